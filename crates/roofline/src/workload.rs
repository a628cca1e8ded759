//! Model-level workloads: a composite operation (`llm`) decomposed into core operations, each
//! on its own roofline, and summed — the chapter's answer to "is my model memory-bound?".
//!
//! * [`parts`]: the decomposition, per chip, as plain core operations with repeat counts
//!   (`QKV projection` ×32, `LM head` ×1, ...).
//! * [`analyze_workload`]: every part analysed, plus the sums, tokens per second, memory fit
//!   and which part binds on what ([`Workload`]).
//! * [`crate::analyze`] on a composite returns the aggregate [`Analysis`]; [`crate::sweep()`]
//!   sweeps it (every point recomputed from the parts).
//!
//! The sums, per chip (`r` = a part's repeat count):
//!
//! * `FLOPs = Σ r·FLOPs`, `bytes_res = Σ r·bytes_res` per resource (HBM, the link)
//! * `T_math = Σ r·T_math` (each part at its own unit: projections at the dtype peak, norms on
//!   the vector unit); `T_res = bytes_res / BW_res`; `T_comms = max_res T_res`
//! * `T_lower = Σ r·T_lower`: parts run one after another, each overlapping its own compute and
//!   memory traffic; `T_upper = Σ r·T_upper = T_math + Σ_res T_res`
//! * bound: compute iff `T_math ≥ T_comms` (the resource with the largest summed time
//!   dominates), else that of the resource with the largest summed time
//! * intensity `= FLOPs / bytes` of the binding resource, ridge `= peak / BW` with the peak of
//!   the projections' compute dtype; achieved `= FLOPs / T_lower`
//! * critical `B`: every summed time is affine in the batch, so the `B` where `T_math`
//!   overtakes every summed comm time is solved exactly (none when the traffic per sequence,
//!   e.g. the KV cache, costs more time than its FLOPs)
//!
//! ```
//! use roofline::{analyze, preset, workload, Bound, Op, Options};
//! let h100 = preset("h100").unwrap();
//! let op = Op::default_for("llm").unwrap(); // Llama-3 8B decode, B=1, ctx 2048, bf16
//! let w = workload::analyze_workload(&op, &h100, &Options::default()).unwrap().unwrap();
//! assert_eq!(w.bound, Bound::Memory);
//! assert!((w.t_lower - 4.56e-3).abs() < 0.01e-3); // ≈ 15.3 GB / 3.35e12 B/s
//! assert!(w.parts.iter().all(|(_, a)| a.bound == Bound::Memory));
//! assert_eq!(analyze(&op, &h100, &Options::default()).unwrap().t_lower, w.t_lower);
//! ```

use crate::analysis::{
    analyze_unchecked, assemble, check_inputs, crit_str, crossover, distinct, eval_core, max_time,
    pow2_scale, Analysis, Bound, Core, Critical, Eval, ExecUnit, Options, RawTerm, Resource,
    Specific,
};
use crate::chip::Chip;
use crate::dtype::DType;
use crate::error::Error;
use crate::op::{Op, OpKind};
use crate::units::{format_exact, format_si, format_sig, num3, Unit};
use serde::{Deserialize, Serialize};

/// One part of a composite operation: a plain core operation (labelled with `name`) run
/// `repeat` times per step (`layers` for per-layer parts, 1 otherwise).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Part {
    /// What it is (`QKV projection`, `attention scores Q·Kᵀ`, `LM head`, ...).
    pub name: String,
    /// The operation, per chip (never composite).
    pub op: Op,
    /// How many times it runs per step.
    pub repeat: f64,
}

/// One part's figures inside an aggregate [`Analysis`] (per run, per chip; displayed FLOP
/// convention).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PartTime {
    /// The part's name.
    pub name: String,
    /// Runs per step.
    pub repeat: f64,
    /// FLOPs of one run.
    pub flops: f64,
    /// Bytes of one run, all resources.
    pub bytes: f64,
    /// FLOPs / bytes of the binding resource.
    pub intensity: f64,
    /// `T_math` of one run, seconds.
    pub t_math: f64,
    /// Largest comm time of one run, seconds.
    pub t_comms: f64,
    /// `T_lower` of one run, seconds.
    pub t_lower: f64,
    /// `T_upper` of one run, seconds.
    pub t_upper: f64,
    /// What limits the part.
    pub bound: Bound,
    /// The resource with the largest comm time.
    pub binding: Resource,
}

/// The tensor-parallel all-reduces of a step (per chip). They are part of the output and
/// down projections' own rooflines (each lets its all-reduce overlap its matmul, as a
/// D-sharded matmul does), so they are inside `T_lower` and added in `T_upper`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct AllReduce {
    /// The link.
    pub resource: Resource,
    /// Its bandwidth per chip, bytes/s.
    pub bandwidth: f64,
    /// All-reduces per step (2 per layer).
    pub count: f64,
    /// Bytes per chip per all-reduce: `2·(n−1)/n·s_x·T·D`.
    pub bytes_each: f64,
    /// Bytes per chip per step.
    pub bytes: f64,
    /// `bytes / bandwidth`, seconds per step.
    pub time: f64,
}

/// A composite operation analysed part by part (see the module docs). Times are per step;
/// FLOPs and bytes per chip; FLOP quantities in the displayed convention.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Workload {
    /// The aggregate analysis (what [`crate::analyze`] returns for the op).
    pub analysis: Analysis,
    /// Every part with its own analysis (one run; multiply by `repeat`).
    pub parts: Vec<(Part, Analysis)>,
    /// The tensor-parallel all-reduces, when there are any.
    pub allreduce: Option<AllReduce>,
    /// `Σ repeat·FLOPs`.
    pub flops: f64,
    /// `Σ repeat·bytes`, all resources.
    pub bytes: f64,
    /// `Σ repeat·T_math`.
    pub t_math: f64,
    /// `Σ repeat·T_lower`: the step time.
    pub t_lower: f64,
    /// `Σ repeat·T_upper`.
    pub t_upper: f64,
    /// The bound of the whole step (the resource with the largest summed time).
    pub bound: Bound,
    /// Tokens processed per step (decode: `B`; prefill: `B·ctx`).
    pub tokens: f64,
    /// What `tokens` counts (`token`).
    pub unit: String,
    /// `T_lower / tokens`, seconds per token.
    pub time_per_token: f64,
    /// `tokens / T_lower` (of the whole tensor-parallel group).
    pub tokens_per_s: f64,
    /// Weight bytes per chip.
    pub weights: f64,
    /// KV-cache bytes per chip.
    pub kv_cache: f64,
    /// `weights + kv_cache`.
    pub memory: f64,
    /// The chip's HBM capacity.
    pub capacity: f64,
    /// `memory ≤ capacity`.
    pub fits: bool,
    /// Each part's name and bound, in order.
    pub summary: Vec<(String, Bound)>,
    /// `Σ repeat·T_lower` of the parts with each bound (compute, memory, network; zero ones
    /// left out): how much of the step each kind of limit accounts for.
    pub time_by_bound: Vec<(Bound, f64)>,
}

/// The decomposition a composite kind returns (crate-private).
#[derive(Debug, Clone)]
pub(crate) struct Composite {
    pub parts: Vec<Part>,
    pub tokens: f64,
    /// The dtype whose peak the aggregate is reported against.
    pub dtype: DType,
    /// Weight bytes per chip.
    pub weights: f64,
    /// KV-cache bytes per chip.
    pub kv: f64,
    pub unit: &'static str,
}

/// The parts of a composite operation (`llm`), per chip, in execution order; `None` for a
/// plain kind.
pub fn parts(op: &Op) -> Option<Vec<Part>> {
    op.kind.model().composite().map(|c| c.parts)
}

/// Analyses a composite operation part by part: `Ok(None)` for a plain kind. Validates like
/// [`crate::analyze`]; errors on a missing peak or link of any part.
pub fn analyze_workload(op: &Op, chip: &Chip, opts: &Options) -> Result<Option<Workload>, Error> {
    check_inputs(&op.kind, chip, opts)?;
    let Some(c) = op.kind.model().composite() else {
        return Ok(None);
    };
    let analysis = analyze_composite(op, &c, chip, opts)?;
    let mut parts = Vec::with_capacity(c.parts.len());
    for p in &c.parts {
        let a = analyze_unchecked(&p.op, chip, opts)?;
        parts.push((p.clone(), a));
    }
    let mut allreduce: Option<AllReduce> = None;
    let mut by_bound: Vec<(Bound, f64)> = Vec::new();
    for (p, a) in &parts {
        for t in a
            .comms
            .iter()
            .filter(|t| t.resource.bound() == Bound::Network)
        {
            let ar = allreduce.get_or_insert(AllReduce {
                resource: t.resource,
                bandwidth: t.bandwidth,
                count: 0.0,
                bytes_each: 0.0,
                bytes: 0.0,
                time: 0.0,
            });
            ar.count += p.repeat;
            ar.bytes += p.repeat * t.bytes;
        }
        match by_bound.iter_mut().find(|(b, _)| *b == a.bound) {
            Some((_, t)) => *t += p.repeat * a.t_lower,
            None => by_bound.push((a.bound, p.repeat * a.t_lower)),
        }
    }
    if let Some(ar) = allreduce.as_mut() {
        ar.bytes_each = ar.bytes / ar.count;
        ar.time = ar.bytes / ar.bandwidth;
    }
    by_bound.sort_by_key(|(b, _)| bound_order(*b));
    by_bound.retain(|(_, t)| *t > 0.0);
    let t = analysis.t_lower;
    Ok(Some(Workload {
        summary: parts
            .iter()
            .map(|(p, a)| (p.name.clone(), a.bound))
            .collect(),
        allreduce,
        flops: analysis.flops,
        bytes: analysis.bytes,
        t_math: analysis.t_math,
        t_lower: t,
        t_upper: analysis.t_upper,
        bound: analysis.bound,
        tokens: c.tokens,
        unit: c.unit.to_string(),
        time_per_token: t / c.tokens,
        tokens_per_s: c.tokens / t,
        weights: c.weights,
        kv_cache: c.kv,
        memory: analysis.memory,
        capacity: analysis.capacity,
        fits: analysis.fits,
        time_by_bound: by_bound,
        parts,
        analysis,
    }))
}

/// The sums over the parts.
struct Agg {
    ev: Eval,
    /// Each resource's summed traffic.
    res: Vec<RawTerm>,
    bytes_read: f64,
    bytes_written: f64,
    parts: Vec<(Core, Eval)>,
}

fn aggregate(c: &Composite, chip: &Chip, derate: f64) -> Result<Agg, Error> {
    let peak = chip.peak(c.dtype)?;
    let (mut flops, mut t_math, mut lower, mut upper) = (0.0, 0.0, 0.0, 0.0);
    let (mut read, mut written) = (0.0, 0.0);
    let mut res: Vec<RawTerm> = Vec::new();
    let mut parts = Vec::with_capacity(c.parts.len());
    for p in &c.parts {
        let core = p.op.kind.model().core(chip)?;
        let ev = eval_core(&core, derate);
        let r = p.repeat;
        flops += r * core.flops;
        t_math += r * ev.t_math;
        lower += r * ev.t_lower();
        upper += r * ev.t_upper();
        read += r * core.bytes_read;
        written += r * core.bytes_written;
        for t in core.terms() {
            match res.iter_mut().find(|x| x.resource == t.resource) {
                Some(x) => x.bytes += r * t.bytes,
                None => res.push(RawTerm {
                    resource: t.resource,
                    bytes: r * t.bytes,
                    bw: t.bw,
                }),
            }
        }
        parts.push((core, ev));
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
            peak_eff: peak * derate,
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

/// The summed core of a composite (FLOPs and bytes per resource; times are not sums of
/// maxima here, see [`composite_eval`]).
pub(crate) fn sum_core(c: &Composite, chip: &Chip) -> Result<Core, Error> {
    let agg = aggregate(c, chip, 1.0)?;
    let mut core = Core::new(
        agg.ev.flops,
        c.dtype,
        ExecUnit::Peak(c.dtype.peak_key()),
        agg.ev.peak,
    );
    for r in &agg.res {
        core.push(r.resource, r.bytes, r.bw);
    }
    core.bytes_read = agg.bytes_read;
    core.bytes_written = agg.bytes_written;
    core.memory = c.weights + c.kv;
    Ok(core)
}

/// The [`Eval`] of an operation: summed over the parts for a composite kind, else of its
/// core. Sweeps and [`analyze_composite`] share it, so sweep points equal analyses exactly.
pub(crate) fn composite_eval(kind: &OpKind, chip: &Chip, derate: f64) -> Result<Eval, Error> {
    let m = kind.model();
    match m.composite() {
        Some(c) => Ok(aggregate(&c, chip, derate)?.ev),
        None => Ok(eval_core(&m.core(chip)?, derate)),
    }
}

/// The summed `T_math` and per-resource times at one value of the batch.
fn times_at(kind: &OpKind, dim: &str, x: f64, chip: &Chip, derate: f64) -> Result<Agg, Error> {
    let mut k = kind.clone();
    k.set_num_raw(dim, x);
    match k.model().composite() {
        Some(c) => aggregate(&c, chip, derate),
        None => Err(Error::invalid(
            dim,
            format_exact(x),
            "not a composite operation",
        )),
    }
}

/// The exact batch where the summed `T_math` overtakes every summed comm time (the summed
/// times are affine in `b`): the largest per-resource threshold, `None` when some resource's
/// time grows at least as fast as the math and is not already below it.
fn critical(kind: &OpKind, chip: &Chip, derate: f64) -> Result<Option<Critical>, Error> {
    let dim = "b";
    let Some(cur) = kind.get_num(dim) else {
        return Ok(None);
    };
    let s = pow2_scale(cur);
    let a0 = times_at(kind, dim, 0.0, chip, derate)?;
    let a1 = times_at(kind, dim, s, chip, derate)?;
    let m0 = a0.ev.t_math;
    let slope_m = (a1.ev.t_math - m0) / s;
    let lines = a1.res.iter().map(|r1| {
        let c = a0
            .res
            .iter()
            .find(|r| r.resource == r1.resource)
            .map_or(0.0, |r| r.bytes / r.bw);
        (c, (r1.bytes / r1.bw - c) / s, r1.resource)
    });
    Ok(crossover(m0, slope_m, lines).map(|(x, resource)| Critical {
        dim: dim.to_string(),
        value: x.max(0.0),
        approx: None,
        resource,
    }))
}

/// The aggregate [`Analysis`] of a composite (inputs already validated).
pub(crate) fn analyze_composite(
    op: &Op,
    c: &Composite,
    chip: &Chip,
    opts: &Options,
) -> Result<Analysis, Error> {
    let agg = aggregate(c, chip, opts.derate)?;
    let conv = opts.convention.factor();
    let parts = c
        .parts
        .iter()
        .zip(&agg.parts)
        .map(|(p, (core, e))| {
            let bt = core.terms().get(e.binding);
            PartTime {
                name: p.name.clone(),
                repeat: p.repeat,
                flops: conv * core.flops,
                bytes: core.terms().iter().map(|t| t.bytes).sum(),
                intensity: bt.map_or(0.0, |t| conv * core.flops / t.bytes),
                t_math: e.t_math,
                t_comms: e.t_max,
                t_lower: e.t_lower(),
                t_upper: e.t_upper(),
                bound: e.bound,
                binding: bt.map_or(Resource::Hbm, |t| t.resource),
            }
        })
        .collect();
    Ok(assemble(
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
            critical: critical(&op.kind, chip, opts.derate)?,
            tiled: None,
            parts,
        },
    ))
}

fn bound_order(b: Bound) -> u8 {
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
    let m = a.op.kind.model();
    let conv = a.convention.factor();
    let mut out = a.derivation_head();
    out.push(
        "Parts, per chip, each on its own roofline (one run; ×r = runs per step):".to_string(),
    );
    for p in &a.parts {
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
        format_si(raw_peak, Unit::FlopRate)
    ));
    a.push_peak_lines(&mut out);
    out.push(format!("T_math = Σ r·T_math = {} s", num3(a.t_math)));
    for c in &a.comms {
        let label = c.resource.label();
        out.push(format!(
            "{label} bytes = Σ r·bytes = {}; {} = {} / {} = {} s",
            num3(c.bytes),
            c.resource.time_symbol(),
            num3(c.bytes),
            format_exact(c.bandwidth),
            num3(c.time)
        ));
    }
    let syms = a.push_t_comms(&mut out);
    let terms: Vec<String> = a
        .parts
        .iter()
        .map(|p| format!("{}×{}", format_exact(p.repeat), num3(p.t_lower)))
        .collect();
    out.push(format!(
        "T_lower = Σ r·T_lower = {} = {} s (parts run one after another, each overlapping its own compute and traffic)",
        terms.join(" + "),
        num3(a.t_lower)
    ));
    out.push(format!(
        "T_upper = Σ r·T_upper = T_math + {} = {} s",
        syms.join(" + "),
        num3(a.t_upper)
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
    for p in &a.parts {
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
    if let Some(c) = m.composite() {
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
            format_si(a.capacity, Unit::Bytes),
            if a.fits { "fits" } else { "does not fit" }
        ));
    }
    out
}
