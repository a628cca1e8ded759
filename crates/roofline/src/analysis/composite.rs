//! The sums over a composite operation's parts (`llm`): the aggregate [`Analysis`], the
//! [`Eval`] sweeps use, the [`Sample`] the critical-point solver uses, and the derivation.
//! See [`crate::workload`] for the formulas.

use super::numbers::{crit_str, distinct, secs};

use super::{assemble, Analysis, Bound, ExecUnit, Options, PartTime, Report, Resource, Specific};
use crate::chip::Chip;
use crate::error::Error;
use crate::eval::{eval_cost, max_time, Cost, Eff, Eval, RawTerm, Sample};
use crate::op::{Composite, Evaluation, Op, OpKind};
use crate::units::{format_exact, format_quantity, format_sig, num3, Unit};

/// The sums over the parts.
struct Agg {
    ev: Eval,
    /// Each resource's summed traffic.
    res: Vec<RawTerm>,
    bytes_read: f64,
    bytes_written: f64,
    parts: Vec<(Cost, Eval)>,
}

fn aggregate(c: &Composite, chip: &Chip, eff: Eff) -> Result<Agg, Error> {
    let peak = chip.peak(c.dtype)?;
    let (mut flops, mut t_math, mut lower, mut upper) = (0.0, 0.0, 0.0, 0.0);
    let (mut read, mut written) = (0.0, 0.0);
    let mut res: Vec<RawTerm> = Vec::new();
    let mut parts = Vec::with_capacity(c.parts.len());
    for p in &c.parts {
        let cost = p.op.kind.behavior().cost(chip)?;
        let ev = eval_cost(&cost, eff);
        let r = p.repeat;
        flops += r * cost.flops;
        t_math += r * ev.t_math;
        lower += r * ev.t_lower();
        upper += r * ev.t_upper();
        read += r * cost.bytes_read;
        written += r * cost.bytes_written;
        for t in cost.terms() {
            match res.iter_mut().find(|x| x.resource == t.resource) {
                Some(x) => x.bytes += r * t.bytes,
                None => res.push(RawTerm {
                    resource: t.resource,
                    bytes: r * t.bytes,
                    bw: t.bw,
                }),
            }
        }
        parts.push((cost, ev));
    }
    let (t_max, binding, _) = max_time(res.iter().map(|x| x.bytes / x.bw));
    let bound = if t_math >= t_max {
        Bound::Compute
    } else {
        res[binding].resource.bound()
    };
    Ok(Agg {
        ev: Eval {
            flops,
            peak,
            peak_eff: peak * eff.compute,
            t_math,
            t_max,
            binding,
            bound,
            lower,
            upper,
        },
        res,
        bytes_read: read,
        bytes_written: written,
        parts,
    })
}

/// The [`Sample`] of a composite for the critical-point solver: its summed `T_math` and each
/// resource's summed time (seconds over a rate of 1).
pub(crate) fn sample(c: &Composite, chip: &Chip, eff: Eff) -> Result<Sample, Error> {
    let agg = aggregate(c, chip, eff)?;
    Ok(Sample {
        math: agg.ev.t_math,
        math_rate: 1.0,
        terms: agg
            .res
            .iter()
            .map(|r| (r.resource, r.bytes / r.bw, 1.0))
            .collect(),
    })
}

/// The [`Eval`] of an operation: summed over the parts for a composite kind, else of its
/// cost. Sweeps and [`analyze_composite`] share it, so sweep points equal analyses exactly.
pub(crate) fn eval_op(kind: &OpKind, chip: &Chip, eff: Eff) -> Result<Eval, Error> {
    let m = kind.behavior();
    match m.model() {
        Evaluation::Train(t) => Ok(super::train::step_eval(&t.config_on(chip)?, eff)?.0),
        Evaluation::Composite(c) => Ok(aggregate(&c, chip, eff)?.ev),
        Evaluation::Kernel | Evaluation::Collective(_) => Ok(eval_cost(&m.cost(chip)?, eff)),
    }
}

/// The aggregate [`Analysis`] of a composite (inputs already validated).
pub(crate) fn analyze_composite(
    op: &Op,
    c: &Composite,
    chip: &Chip,
    opts: &Options,
) -> Result<Analysis, Error> {
    let agg = aggregate(c, chip, Eff::of(opts))?;
    let conv = opts.convention.factor();
    let parts: Vec<PartTime> = c
        .parts
        .iter()
        .zip(&agg.parts)
        .map(|(p, (cost, e))| {
            let bt = cost.terms().get(e.binding);
            let t_link = cost
                .terms()
                .iter()
                .filter(|t| t.resource.bound() == Bound::Network)
                .map(|t| t.bytes / t.bw)
                .fold(0.0, f64::max);
            PartTime {
                name: p.name.clone(),
                repeat: p.repeat,
                flops: conv * cost.flops,
                bytes: cost.terms().iter().map(|t| t.bytes).sum(),
                intensity: bt.map_or(0.0, |t| conv * cost.flops / t.bytes),
                t_math: e.t_math,
                t_comms: e.t_max,
                t_lower: e.t_lower(),
                t_upper: e.t_upper(),
                t_link,
                bound: e.bound,
                binding: bt.map_or(Resource::Hbm, |t| t.resource),
            }
        })
        .collect();
    let report = Report {
        parts,
        ..Report::default()
    };
    let mut a = assemble(
        op,
        chip,
        opts,
        &agg.ev,
        &agg.res,
        Specific {
            dtype: c.dtype,
            unit: ExecUnit::Peak(c.dtype.peak_key()),
            bytes_read: agg.bytes_read,
            bytes_written: agg.bytes_written,
            memory: c.weights + c.kv,
            critical: super::critical(&op.kind, chip, Eff::of(opts))?,
            tiled: None,
            report,
        },
    );
    if op.traits().serves {
        a.report.key_words_fit = super::report::step_words(op, a.t_lower);
    }
    Ok(a)
}

pub(crate) fn bound_order(b: Bound) -> u8 {
    match b {
        Bound::Compute => 0,
        Bound::Memory => 1,
        Bound::Network => 2,
    }
}

fn bound_word(b: Bound) -> &'static str {
    match b {
        Bound::Compute => "compute-bound",
        Bound::Memory => "memory-bound",
        Bound::Network => "network-bound",
    }
}

/// The derivation of a composite's aggregate analysis: the parts, then the sums.
pub(crate) fn derivation(a: &Analysis) -> Vec<String> {
    let m = a.op.kind.behavior();
    let conv = a.convention.factor();
    let mut out = a.derivation_head();
    out.push(
        "Parts, per chip, each on its own roofline (one run; ×r = runs per step):".to_string(),
    );
    for p in &a.report.parts {
        out.push(format!(
            "{} ×{}: FLOPs {}, bytes {}, intensity {} FLOPs/byte; T_math {} s, T_comms {} s ({}): {}, T_lower {} s, ×{} = {} s",
            p.name,
            format_exact(p.repeat),
            num3(p.flops),
            num3(p.bytes),
            num3(p.intensity),
            num3(p.t_math),
            num3(p.t_comms),
            p.binding.label(),
            bound_word(p.bound),
            num3(p.t_lower),
            format_exact(p.repeat),
            num3(p.repeat * p.t_lower)
        ));
    }
    out.push(format!("FLOPs = Σ r·FLOPs = {} per step", num3(a.flops)));
    let raw_peak = a.compute.peak / conv;
    out.push(format!(
        "Peak: the {} peak of {} (the projections' compute dtype), {} FLOPs/s ({}); each part's T_math uses its own unit (norms on the vector unit when the chip has one)",
        a.compute.dtype,
        a.chip_name,
        format_exact(raw_peak),
        format_quantity(raw_peak, Unit::FlopRate)
    ));
    a.push_peak_lines(&mut out);
    out.push(format!("T_math = Σ r·T_math = {}", secs(a.t_math)));
    for c in &a.comms {
        let label = c.resource.label();
        out.push(format!(
            "{label} bytes = Σ r·bytes = {}; {} = {} / {} = {}",
            num3(c.bytes),
            c.resource.time_symbol(),
            num3(c.bytes),
            format_exact(c.bandwidth),
            secs(c.time)
        ));
    }
    let syms = a.push_t_comms(&mut out);
    let terms: Vec<String> = a
        .report
        .parts
        .iter()
        .map(|p| format!("{}×{}", format_exact(p.repeat), num3(p.t_lower)))
        .collect();
    out.push(format!(
        "T_lower = Σ r·T_lower = {} = {} (parts run one after another, each overlapping its own compute and traffic)",
        terms.join(" + "),
        secs(a.t_lower)
    ));
    let o = if a.compute.cal.overhead > 0.0 {
        " + Σ r·o (each part's launch overhead)"
    } else {
        ""
    };
    out.push(format!(
        "T_upper = Σ r·T_upper = T_math + {}{o} = {}",
        syms.join(" + "),
        secs(a.t_upper)
    ));
    let bl = a.binding.label();
    let bind = a.term(a.binding);
    out.push(format!(
        "Intensity = FLOPs / {bl} bytes = {} / {} = {} FLOPs/byte (whole step)",
        num3(a.flops),
        num3(bind.map_or(0.0, |c| c.bytes)),
        num3(a.intensity)
    ));
    out.push(a.ridge_line());
    let (sm, sc) = distinct(a.t_math, a.t_comms);
    out.push(match a.bound {
        Bound::Compute => {
            format!("The step is compute-bound: summed T_math {sm} s ≥ summed T_comms {sc} s")
        }
        b => format!(
            "The step is {} on {bl}: summed T_comms {sc} s > summed T_math {sm} s",
            bound_word(b)
        ),
    });
    let mut shares: Vec<(Bound, f64)> = Vec::new();
    for p in &a.report.parts {
        match shares.iter_mut().find(|(b, _)| *b == p.bound) {
            Some((_, t)) => *t += p.repeat * p.t_lower,
            None => shares.push((p.bound, p.repeat * p.t_lower)),
        }
    }
    shares.sort_by_key(|(b, _)| bound_order(*b));
    let share_txt: Vec<String> = shares
        .iter()
        .map(|(b, t)| {
            format!(
                "{} parts {} s ({}%)",
                bound_word(*b),
                num3(*t),
                format_sig(100.0 * t / a.t_lower, 3)
            )
        })
        .collect();
    out.push(format!("Time by bound: {}", share_txt.join(", ")));
    out.push(a.achieved_line());
    match &a.critical {
        Some(c) if c.value == 0.0 => {
            out.push("Critical B: the step is compute-bound at every B".to_string())
        }
        Some(c) => out.push(format!(
            "Critical B = {} (exact: summed T_math = summed {}); the whole step is compute-bound for B ≥ {}",
            crit_str(c.value, 4),
            c.resource.time_symbol(),
            crit_str(c.value, 4)
        )),
        None => out.push(
            "No critical B: some traffic per sequence (the KV cache, activations) costs at least as much time as its FLOPs, so the step never becomes compute-bound as B grows"
                .to_string(),
        ),
    }
    if let Some(hbm) = a.term(Resource::Hbm) {
        // Part 7's MoE rule, at this chip's ridge (2 FLOPs per MAC, derated peak / HBM).
        let ridge = a.compute.effective_peak / conv / hbm.bandwidth;
        out.extend(m.ridge_notes(ridge));
    }
    if let Evaluation::Composite(c) = m.model() {
        out.push(format!(
            "Throughput = tokens / T_lower = {} / {} = {} {}s/s; {} s per {}",
            num3(c.tokens),
            num3(a.t_lower),
            num3(c.tokens / a.t_lower),
            c.unit,
            num3(a.t_lower / c.tokens),
            c.unit
        ));
        out.push(format!(
            "Memory per chip: weights {} + KV cache {} = {} bytes vs capacity {} ({}): {}",
            num3(c.weights),
            num3(c.kv),
            num3(a.memory),
            format_exact(a.capacity),
            format_quantity(a.capacity, Unit::Bytes),
            if a.fits { "fits" } else { "does not fit" }
        ));
    }
    out
}

/// One part of a composite timed by [`composite_times`]: its `repeat`, its times and whether it
/// crosses a link (a collective).
#[derive(Debug, Clone, Copy)]
pub(crate) struct PartEval {
    pub repeat: f64,
    pub ev: Eval,
    pub crosses_link: bool,
    /// HBM bytes of one repeat (a step placed on the roofline needs its bytes: issue 43).
    pub hbm_bytes: f64,
}

/// A composite's summed times and each part's on `chip` with the options' calibration and
/// derate applied, without validating anything: what [`crate::serving`]'s step function times
/// a mixed step with. A composite built as an op's own parts gives that op's `t_lower` to the
/// bit (the same [`aggregate`]).
pub(crate) fn composite_times(
    c: &Composite,
    chip: &Chip,
    opts: &Options,
) -> Result<(Eval, Vec<PartEval>), Error> {
    let chip = super::calibrated_chip(chip, opts);
    let agg = aggregate(c, &chip, Eff::of(opts))?;
    let parts = c
        .parts
        .iter()
        .zip(agg.parts)
        .map(|(p, (cost, ev))| PartEval {
            repeat: p.repeat,
            ev,
            crosses_link: cost
                .terms()
                .iter()
                .any(|t| t.resource.bound() == Bound::Network && t.bytes > 0.0),
            hbm_bytes: cost
                .terms()
                .iter()
                .filter(|t| t.resource == crate::resource::Resource::Hbm)
                .map(|t| t.bytes)
                .sum(),
        })
        .collect();
    Ok((agg.ev, parts))
}
