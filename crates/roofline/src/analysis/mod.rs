//! Roofline analysis of one operation on one chip.
//!
//! With `P` the (derated) peak the operation runs at and, for each resource `r` it moves
//! bytes over, `bytes_r` and bandwidth `BW_r`:
//!
//! * `T_math = FLOPs / P`
//! * `T_r = bytes_r / BW_r`; `T_comms = max_r T_r`
//! * `T_lower = max(T_math, T_comms)`; `T_upper = T_math + Σ_r T_r`
//!   (≤ 2·T_lower with one resource; ≤ (1 + #resources)·T_lower in general)
//! * `intensity = FLOPs / bytes_binding` where the binding resource has the largest `T_r`
//! * `ridge = P / BW_binding`; compute-bound iff `T_math ≥ T_comms` (ties → compute), i.e.
//!   iff `intensity ≥ ridge`
//! * `achieved = FLOPs / T_lower`, `fraction = achieved / nominal peak`
//!
//! The 1-FLOP-per-MAC convention halves displayed FLOPs, intensities, ridges, achieved and
//! peak, and changes no time.

//!
//! Layout: this file holds the result types and [`analyze`]; `derivation.rs` the worked
//! derivation of one operation; `composite.rs` the sums over a composite's parts (`llm`).

mod composite;
mod derivation;
mod numbers;
pub mod report;
mod train;
mod train_figures;

pub(crate) use self::composite::composite_times;
pub(crate) use self::composite::{bound_order, eval_op};
pub use self::report::PartTime;
pub use self::report::{Figure, Mark, NotApplicable, Report, TimePart, Tone};
pub use crate::eval::{Critical, Tiled};
pub use crate::options::{parse_derate, Calibration, FlopConvention, Options};
pub use crate::resource::{Bound, ExecUnit, Resource};

use crate::chip::Chip;
use crate::dtype::DType;
use crate::error::Error;
use crate::eval::{eval_cost, pow2_scale, solve_critical, Cost, Eff, Eval, RawTerm, Sample};
use crate::op::{Evaluation, Op, OpKind};
use serde::{Deserialize, Serialize};

/// Traffic on one resource.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CommTerm {
    /// The resource.
    pub resource: Resource,
    /// Bytes moved (per chip).
    pub bytes: f64,
    /// Bandwidth, bytes/s.
    pub bandwidth: f64,
    /// `bytes / bandwidth`, seconds.
    pub time: f64,
    /// `FLOPs / bytes` (displayed convention).
    pub intensity: f64,
    /// `peak / bandwidth` (derated peak, displayed convention): the ridge of this roof.
    pub ridge: f64,
}

/// The compute side of an analysis.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ComputeInfo {
    /// The dtype the FLOPs run in.
    pub dtype: DType,
    /// The unit (vector unit or a dtype peak).
    pub unit: ExecUnit,
    /// Nominal peak, FLOPs/s (displayed convention).
    pub peak: f64,
    /// Derate applied (1 = none).
    pub derate: f64,
    /// The calibration applied (none by default; its `c` multiplies the derate, its `m`
    /// scales HBM bandwidth, its `o` adds to `T_lower` and `T_upper`).
    #[serde(default, skip_serializing_if = "Calibration::is_none")]
    pub cal: Calibration,
    /// `peak · derate · c`, FLOPs/s (displayed convention).
    pub effective_peak: f64,
}

/// The full analysis of an operation on a chip. All FLOP quantities follow
/// `convention`; times never depend on it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Analysis {
    /// The analysed operation.
    pub op: Op,
    /// The chip's display name.
    pub chip_name: String,
    /// The FLOP convention used for display.
    pub convention: FlopConvention,
    /// FLOPs per chip.
    pub flops: f64,
    /// Bytes over all resources, per chip.
    pub bytes: f64,
    /// Bytes read from memory (inputs and weights, wherever they come from).
    pub bytes_read: f64,
    /// Bytes written to HBM.
    pub bytes_written: f64,
    /// One term per resource, HBM first.
    pub comms: Vec<CommTerm>,
    /// The resource with the largest time (binds unless compute-bound).
    pub binding: Resource,
    /// `FLOPs / bytes` of the binding resource.
    pub intensity: f64,
    /// The simple approximation with its formula (`≈ B`, `≈ 2B`, `= D/2`, `→ 1/2`, `≈ 2`).
    pub approx_intensity: Option<(f64, String)>,
    /// Dtype, unit and peak.
    pub compute: ComputeInfo,
    /// `FLOPs / (peak·derate)`, seconds.
    pub t_math: f64,
    /// The largest comm term, seconds.
    pub t_comms: f64,
    /// `max(T_math, all comm terms)`.
    pub t_lower: f64,
    /// `T_math + Σ comm terms`.
    pub t_upper: f64,
    /// What limits the operation.
    pub bound: Bound,
    /// `FLOPs / T_lower`, FLOPs/s.
    pub achieved: f64,
    /// `achieved / peak` (nominal peak), in 0..=1.
    pub fraction: f64,
    /// `peak·derate / bandwidth of the binding resource`, FLOPs/byte.
    pub ridge: f64,
    /// The exact critical batch (or D), when the operation has one.
    pub critical: Option<Critical>,
    /// Bytes resident in HBM.
    pub memory: f64,
    /// The chip's HBM capacity.
    pub capacity: f64,
    /// `memory ≤ capacity`.
    pub fits: bool,
    /// Tiling footnote figures, when tiles are set.
    pub tiled: Option<Tiled>,
    /// What the kind reports beyond the shared figures: its own figures, parts and marks
    /// (see [`report`]). Serialised flat: `parts`, `collective`, `train` as before.
    #[serde(flatten)]
    pub report: Report,
}

/// The two terms of a collective's time (see [`crate::collective`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CollectiveTimes {
    /// The bandwidth term `V·κ`, seconds (exact for this `n`).
    pub t_bandwidth: f64,
    /// The latency term `hops × per-hop latency`, seconds.
    pub t_latency: f64,
    /// Sequential hops.
    pub hops: f64,
    /// `t_latency > t_bandwidth`.
    pub latency_bound: bool,
    /// The array size where the terms are equal, bytes (smaller arrays are latency-bound).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub knee_bytes: Option<f64>,
    /// The bus bandwidth (nccl-tests' convention: `V·2(n−1)/n / t` for an AllReduce,
    /// `V·(n−1)/n / t` for an AllGather or ReduceScatter), bytes/s; `None` when nothing takes
    /// time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub busbw: Option<f64>,
    /// The bandwidth formula, in the book's notation.
    pub formula: String,
    /// The book's file and section.
    pub section: String,
    /// The collective's worked derivation, one step per line.
    pub derivation: Vec<String>,
}

impl From<crate::collective::CollectiveResult> for CollectiveTimes {
    fn from(r: crate::collective::CollectiveResult) -> Self {
        CollectiveTimes {
            busbw: r.bus_bandwidth(),
            t_bandwidth: r.t_bandwidth,
            t_latency: r.t_latency,
            hops: r.hops,
            latency_bound: r.latency_bound,
            knee_bytes: r.knee_bytes,
            formula: r.formula.to_string(),
            section: r.section.to_string(),
            derivation: r.derivation,
        }
    }
}

impl Analysis {
    /// The derivation, step by step with numbers substituted, in the style of the book's
    /// answers, e.g. `T_math = FLOPs / peak = 2·B·D·F / 1.97e14 = 2·136·4096·4096 / 1.97e14 =
    /// 2.32e-5 s (23.2 µs)`. Every number is computed from this analysis's fields.
    ///
    /// For a composite operation: every part with its times, then the sums; for a training
    /// step, the step's own worked derivation.
    pub fn derivation(&self) -> Vec<String> {
        if !self.report.parts.is_empty() {
            return composite::derivation(self);
        }
        if let Some(t) = &self.report.train {
            return train::derivation(self, t);
        }
        self.single_derivation()
    }

    /// The term of a resource, if the operation uses it.
    pub fn term(&self, resource: Resource) -> Option<&CommTerm> {
        self.comms.iter().find(|c| c.resource == resource)
    }
}

/// The costs of `kind` with the numeric field `dim` set to `0` and to `s` (the two ends an
/// [`crate::eval::Affine`] interpolates between).
pub(crate) fn costs_at_0_and(
    kind: &OpKind,
    dim: &str,
    s: f64,
    chip: &Chip,
) -> Result<(Cost, Cost), Error> {
    let mut k0 = kind.clone();
    k0.set_num_raw(dim, 0.0);
    let mut k1 = kind.clone();
    k1.set_num_raw(dim, s);
    Ok((k0.behavior().cost(chip)?, k1.behavior().cost(chip)?))
}

/// Validates everything an analysis depends on.
pub(crate) fn check_inputs(kind: &OpKind, chip: &Chip, opts: &Options) -> Result<(), Error> {
    opts.validate()?;
    chip.check()?;
    kind.validate()?;
    kind.behavior().check_consistency()
}

/// The [`Sample`] of `kind` with its critical dimension `dim` at `x`: FLOPs and bytes of one
/// operation, or a composite's summed times.
fn sample_at(kind: &OpKind, dim: &str, x: f64, chip: &Chip, eff: Eff) -> Result<Sample, Error> {
    let mut k = kind.clone();
    k.set_num_raw(dim, x);
    let b = k.behavior();
    Ok(match b.model() {
        Evaluation::Composite(c) => composite::sample(&c, chip, eff)?,
        _ => Sample::of_cost(&b.cost(chip)?, eff),
    })
}

/// The exact critical value of the operation's critical dimension (`b`, or `d` for a matmul
/// sharded along D), for a single operation or a composite alike: sampled at 0 and at a
/// power of two near the current value (exact division, and no cancellation when the
/// constant part dwarfs the slope), then [`solve_critical`].
fn critical(kind: &OpKind, chip: &Chip, eff: Eff) -> Result<Option<Critical>, Error> {
    let b = kind.behavior();
    let Some(dim) = b.critical_dim() else {
        return Ok(None);
    };
    let s = pow2_scale(kind.get_num(dim).unwrap_or(1.0));
    if matches!(b.model(), Evaluation::Composite(c) if !c.affine) {
        return critical_bisected(kind, dim, s, chip, eff);
    }
    let at0 = sample_at(kind, dim, 0.0, chip, eff)?;
    let at_s = sample_at(kind, dim, s, chip, eff)?;
    Ok(
        solve_critical(s, &at0, &at_s).map(|(value, resource, rate)| Critical {
            dim: dim.to_string(),
            value,
            approx: b.approx_critical(resource, at_s.math_rate, rate),
            resource,
        }),
    )
}

/// The critical value of a composite whose costs are not affine in `dim` (an MoE: the experts
/// read saturate as the batch grows), by bisection on `g(x) = T_math − max_r T_r`. Each
/// `T_math − T_r` is convex in `x` there (affine minus concave) and not positive at 0 while
/// some traffic is left, so the set where all are ≥ 0 is `[x*, ∞)`: `x*` is found by
/// doubling from `s` (up to 1e15, else `None`) and bisecting to machine precision.
fn critical_bisected(
    kind: &OpKind,
    dim: &str,
    s: f64,
    chip: &Chip,
    eff: Eff,
) -> Result<Option<Critical>, Error> {
    let g = |x: f64| -> Result<(f64, Resource), Error> {
        let smp = sample_at(kind, dim, x, chip, eff)?;
        let math = smp.math / smp.math_rate;
        let mut worst = (f64::NEG_INFINITY, Resource::Hbm);
        for &(res, amount, rate) in &smp.terms {
            let t = amount / rate;
            if t > worst.0 {
                worst = (t, res);
            }
        }
        Ok((math - worst.0, worst.1))
    };
    let (g0, r0) = g(0.0)?;
    let found = |value: f64, resource: Resource| {
        Some(Critical {
            dim: dim.to_string(),
            value,
            approx: None,
            resource,
        })
    };
    if g0 >= 0.0 {
        return Ok(found(0.0, r0));
    }
    let mut hi = s.max(1.0);
    loop {
        if g(hi)?.0 >= 0.0 {
            break;
        }
        if hi > 1e15 {
            return Ok(None);
        }
        hi *= 2.0;
    }
    let mut lo = 0.0;
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if g(mid)?.0 >= 0.0 {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    let (_, res) = g(lo)?;
    Ok(found(hi, res))
}

/// The memory `op` holds per chip and the chip's capacity: the `memory` and `capacity` of
/// [`analyze`], with the same errors, without timing the step of a composite (an `llm`'s
/// memory is its weights and KV cache; the page bisects on it for where a sweep stops
/// fitting, where a full analysis of an MoE bisects its critical batch each time).
pub fn memory_fit(op: &Op, chip: &Chip, opts: &Options) -> Result<(f64, f64), Error> {
    match op.kind.behavior().model() {
        Evaluation::Composite(c) => {
            check_inputs(&op.kind, chip, opts)?;
            let chip = &*calibrated_chip(chip, opts);
            // The parts' costs: the errors (a missing peak or link) the analysis meets.
            let cost = c.summed_cost(chip)?;
            Ok((cost.memory, chip.hbm_cap))
        }
        _ => analyze(op, chip, opts).map(|a| (a.memory, a.capacity)),
    }
}

/// Analyses `op` on `chip`: times, bounds, intensity, ridge, exact critical batch, memory
/// fit. Validates every input first (op fields, chip values, options) and fails with a typed
/// error on a missing peak or link (`no fp8 peak on A100 SXM`); never panics, and every
/// number in a successful result is finite.
///
/// A composite operation (`llm`) is analysed part by part and summed: see
/// [`crate::workload`] (`T_lower = Σ repeat·T_lower`, `T_upper = Σ repeat·T_upper`, bound by
/// the resource with the largest summed time).
pub fn analyze(op: &Op, chip: &Chip, opts: &Options) -> Result<Analysis, Error> {
    check_inputs(&op.kind, chip, opts)?;
    analyze_unchecked(op, chip, opts)
}

/// [`analyze`]'s `t_lower` alone, the same bits, without the derivation, the critical size
/// or an analysis per part: what the serving figures ask of the many steps they time (each
/// an MoE's critical batch would bisect again).
pub fn t_lower(op: &Op, chip: &Chip, opts: &Options) -> Result<f64, Error> {
    check_inputs(&op.kind, chip, opts)?;
    t_lower_unchecked(op, chip, opts)
}

/// [`t_lower`] without validating the op's fields: for a step derived from an op already
/// checked, at values no field would take (the serving figures' mean decode context P + G/2,
/// fractional for an odd G).
pub(crate) fn t_lower_unchecked(op: &Op, chip: &Chip, opts: &Options) -> Result<f64, Error> {
    let cal_chip = calibrated_chip(chip, opts);
    Ok(composite::eval_op(&op.kind, &cal_chip, Eff::of(opts))?.t_lower())
}

/// [`analyze`] without validating the op (inputs already checked; parts of a composite).
pub(crate) fn analyze_unchecked(op: &Op, chip: &Chip, opts: &Options) -> Result<Analysis, Error> {
    let cal_chip = calibrated_chip(chip, opts);
    let chip = &*cal_chip;
    let b = op.kind.behavior();
    let collective = match b.model() {
        Evaluation::Train(t) => return train::analyze_step(op, &t.config_on(chip)?, chip, opts),
        Evaluation::Composite(c) => return composite::analyze_composite(op, &c, chip, opts),
        Evaluation::Collective(c) => Some(c),
        Evaluation::Kernel => None,
    };
    let cost = b.cost(chip)?;
    let ev = eval_cost(&cost, Eff::of(opts));
    let conv = opts.convention.factor();
    let mut a = assemble(
        op,
        chip,
        opts,
        &ev,
        cost.terms(),
        Specific {
            dtype: cost.dtype,
            unit: cost.unit,
            bytes_read: cost.bytes_read,
            bytes_written: cost.bytes_written,
            memory: cost.memory,
            critical: critical(&op.kind, chip, Eff::of(opts))?,
            tiled: b.tiled(conv),
            report: Report::default(),
        },
    );
    a.approx_intensity = b.approx_intensity(a.binding, conv);
    if let Some(c) = collective.map(|c| c.time_on(chip)).transpose()? {
        let topology = op.get("topology").unwrap_or_default();
        a.report = report::collective_report(c.into(), topology, a.binding, a.t_lower);
    }
    Ok(a)
}

/// The chip as a calibration sees it: HBM bandwidth `m·W` (borrowed as it is when `m = 1`,
/// so an uncalibrated analysis is the derate-only one bit for bit).
pub(crate) fn calibrated_chip<'a>(chip: &'a Chip, opts: &Options) -> std::borrow::Cow<'a, Chip> {
    if opts.cal.memory == 1.0 {
        std::borrow::Cow::Borrowed(chip)
    } else {
        let mut c = chip.clone();
        c.hbm *= opts.cal.memory;
        std::borrow::Cow::Owned(c)
    }
}

/// What an [`Analysis`] takes from its operation beyond the [`Eval`] and the traffic terms.
pub(crate) struct Specific {
    pub dtype: DType,
    pub unit: ExecUnit,
    pub bytes_read: f64,
    pub bytes_written: f64,
    pub memory: f64,
    pub critical: Option<Critical>,
    pub tiled: Option<Tiled>,
    pub report: Report,
}

/// The [`Analysis`] of an [`Eval`] with its traffic `terms` (one per resource, in the order
/// of `ev.binding`), for one operation or a composite's sums alike; `approx_intensity` is
/// left for the caller.
pub(crate) fn assemble(
    op: &Op,
    chip: &Chip,
    opts: &Options,
    ev: &Eval,
    terms: &[RawTerm],
    x: Specific,
) -> Analysis {
    let conv = opts.convention.factor();
    let comms: Vec<CommTerm> = terms
        .iter()
        .map(|t| CommTerm {
            resource: t.resource,
            bytes: t.bytes,
            bandwidth: t.bw,
            time: t.bytes / t.bw,
            intensity: conv * ev.flops / t.bytes,
            ridge: conv * ev.peak_eff / t.bw,
        })
        .collect();
    let bind = comms.get(ev.binding).copied().unwrap_or(CommTerm {
        resource: Resource::Hbm,
        bytes: 0.0,
        bandwidth: chip.hbm,
        time: 0.0,
        intensity: 0.0,
        ridge: conv * ev.peak_eff / chip.hbm,
    });
    let achieved = ev.achieved();
    Analysis {
        op: op.clone(),
        chip_name: chip.name.clone(),
        convention: opts.convention,
        flops: conv * ev.flops,
        bytes: comms.iter().map(|c| c.bytes).sum(),
        bytes_read: x.bytes_read,
        bytes_written: x.bytes_written,
        binding: bind.resource,
        intensity: bind.intensity,
        approx_intensity: None,
        compute: ComputeInfo {
            dtype: x.dtype,
            unit: x.unit,
            peak: conv * ev.peak,
            derate: opts.derate,
            cal: opts.cal,
            effective_peak: conv * ev.peak_eff,
        },
        t_math: ev.t_math,
        t_comms: ev.t_max,
        t_lower: ev.t_lower(),
        t_upper: ev.t_upper(),
        bound: ev.bound,
        achieved: conv * achieved,
        fraction: (achieved / ev.peak).min(1.0),
        ridge: bind.ridge,
        critical: x.critical,
        memory: x.memory,
        capacity: chip.hbm_cap,
        fits: x.memory <= chip.hbm_cap,
        tiled: x.tiled,
        comms,
        report: x.report,
    }
}
