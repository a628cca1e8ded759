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

pub use crate::analysis::PartTime;
pub use crate::op::Part;

use crate::analysis::{
    analyze_unchecked, bound_order, check_inputs, Analysis, Bound, Options, Resource,
};
use crate::chip::Chip;
use crate::error::Error;
use crate::op::{Evaluation, Op};
use serde::{Deserialize, Serialize};

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

/// The parts of a composite operation (`llm`), per chip, in execution order; `None` for a
/// plain kind.
pub fn parts(op: &Op) -> Option<Vec<Part>> {
    match op.kind.behavior().model() {
        Evaluation::Composite(c) => Some(c.parts),
        _ => None,
    }
}

/// Analyses a composite operation part by part: `Ok(None)` for a plain kind. Validates like
/// [`crate::analyze`]; errors on a missing peak or link of any part.
pub fn analyze_workload(op: &Op, chip: &Chip, opts: &Options) -> Result<Option<Workload>, Error> {
    check_inputs(&op.kind, chip, opts)?;
    let Evaluation::Composite(c) = op.kind.behavior().model() else {
        return Ok(None);
    };
    let analysis = analyze_unchecked(op, chip, opts)?;
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
