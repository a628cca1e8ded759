//! The model the validation set fits (see the module docs of [`super`]): a measured time is the
//! bare bound's pieces, each slowed by what its resource achieves, plus the terms the data
//! show; fitted by least absolute relative error, so one wild point cannot drag every
//! expectation. Pure arithmetic, no analysis.

use super::solve::{least_absolute, Rows};
use crate::resource::Bound;

/// `q`-th quantile (0 to 1) of `v`, interpolating linearly between sorted values; `None` for
/// an empty slice.
pub fn percentile(v: &[f64], q: f64) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let x = q.clamp(0.0, 1.0) * (s.len() - 1) as f64;
    let (i, f) = (x.floor() as usize, x - x.floor());
    let j = (i + 1).min(s.len() - 1);
    Some(s[i] + f * (s[j] - s[i]))
}

pub(super) fn median(v: &[f64]) -> Option<f64> {
    percentile(v, 0.5)
}

/// A bound split by what binds each piece of it: the shares of `T_lower` spent in
/// compute-bound, memory-bound and network-bound pieces (a kernel is one piece; a model step's
/// pieces are its parts, each counted `repeat` times). The shares add up to 1.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Split {
    /// Share of the bound in compute-bound pieces.
    pub compute: f64,
    /// Share in pieces bound by HBM or on-chip memory.
    pub memory: f64,
    /// Share in pieces bound by a link.
    pub network: f64,
}

impl Split {
    /// All of the bound on one resource.
    pub fn only(bound: Bound) -> Split {
        let mut s = Split::default();
        s.add(bound, 1.0);
        s
    }

    /// The split of an analysis: its parts' times by their bound, or the whole by its bound.
    pub fn of(a: &crate::analysis::Analysis) -> Split {
        if a.report.parts.is_empty() {
            return Split::only(a.bound);
        }
        let mut s = Split::default();
        for p in &a.report.parts {
            s.add(p.bound, p.repeat * p.t_lower);
        }
        s.normalized()
    }

    /// Two splits weighted by the times they cover (a request: its prefill and its decode
    /// steps).
    pub fn mix(a: Split, ta: f64, b: Split, tb: f64) -> Split {
        Split {
            compute: a.compute * ta + b.compute * tb,
            memory: a.memory * ta + b.memory * tb,
            network: a.network * ta + b.network * tb,
        }
        .normalized()
    }

    fn add(&mut self, bound: Bound, t: f64) {
        match bound {
            Bound::Compute => self.compute += t,
            Bound::Memory => self.memory += t,
            Bound::Network => self.network += t,
        }
    }

    fn normalized(self) -> Split {
        let total = self.compute + self.memory + self.network;
        if !(total.is_finite() && total > 0.0) {
            return Split::only(Bound::Compute);
        }
        Split {
            compute: self.compute / total,
            memory: self.memory / total,
            network: self.network / total,
        }
    }
}

/// What the model reads of a compared figure besides its bound.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Features {
    /// Which resource binds each piece of the bound.
    pub split: Split,
    /// A single kernel: 1 µs over the compared figure (a fixed launch overhead's ratio per
    /// microsecond); 0 for a model step.
    pub launch: f64,
    /// A model step: 1 ms of overhead per step over the compared figure (scheduler, launches);
    /// 0 for a kernel.
    pub step: f64,
    /// A model step spread over a group of `n = tp × ep` chips: 1 µs per collective the step
    /// runs (its parts that cross a link, each counted `repeat` times) and per doubling of the
    /// group (`log2 n`), over the compared figure: the ratio a fixed latency per collective
    /// adds when it grows with the stages of a tree over the group; else 0. The batch-1 sweeps
    /// of three engines read it so: what is left per collective past the weights' read is about
    /// 11, 21 and 27 µs at TP 2, 4 and 8 (gpt-fast), 23, 48 and 71 µs (FasterTransformer),
    /// 13 and 25 µs at TP 2 and 4 (LMDeploy): flat per doubling, not per chip.
    pub multi_chip: f64,
    /// 1 for a mixture of experts, else 0.
    pub moe: f64,
    /// A training step whose compute dtype is 8-bit or narrower (FP8, FP4): its compute time
    /// over its bound (`T_math / T_lower`, whatever binds the step); else 0. Transformer Engine runs only
    /// the linear layers' GEMMs in FP8 (its docs: "FP8 ... for the GEMMs in Linear layers"):
    /// attention's core stays in BF16 and each FP8 GEMM adds casts and scaling, so such a
    /// step's compute reaches less of the FP8 peak its bound assumes.
    pub narrow_train: f64,
    /// An LLM prefill with expert parallelism (`ep > 1`): the share of its bound that two
    /// micro-batches can hide, `min(network, 1 − network)` (DeepSeek's two-micro-batch overlap:
    /// one micro-batch's dispatch and combine run under the other's computation), which the
    /// bound, summing its parts, counts in full; else 0. Prefill only: in decoding, DeepSeek's
    /// profile notes, "the system waits for the all-to-all communication to complete after the
    /// computation has finished".
    pub ep_overlap: f64,
    /// A GPU collective (all-reduce, all-gather, reduce-scatter): the latency NCCL's own cost
    /// model (`src/graph/tuning.cc`, v2.20.5) assigns to one call, over the compared figure
    /// ([`nccl_latency`]); else 0.
    pub coll_latency: f64,
}

/// How many numbers [`Features::to_array`] stores.
pub const N_FEATURES: usize = 10;

impl Features {
    /// The features of `op` analysed as `a`, for a compared figure of `figure` seconds that
    /// covers `steps` model steps (1 for a step or a kernel; `1 / B` for seconds per output
    /// token of a batch).
    pub fn of(op: &crate::op::Op, a: &crate::analysis::Analysis, figure: f64, steps: f64) -> Self {
        Features::from_split(Split::of(a), op, a, figure, steps)
    }

    /// A kernel bound by `bound`, `launches` times in `t_lower` seconds all told (a measured
    /// profile's row: each launch pays the launch overhead).
    pub fn kernel(bound: Bound, t_lower: f64, launches: f64) -> Self {
        Features {
            split: Split::only(bound),
            launch: if t_lower > 0.0 {
                launches * 1e-6 / t_lower
            } else {
                0.0
            },
            ..Features::default()
        }
    }

    /// [`Features::of`] with the split given (a request mixes two steps' splits).
    pub fn from_split(
        split: Split,
        op: &crate::op::Op,
        a: &crate::analysis::Analysis,
        figure: f64,
        steps: f64,
    ) -> Self {
        use crate::op::MeasureKind;
        // What the analysed operation times: one kernel, a model's step (an LLM decode or
        // prefill: a launch per part, a step overhead), or a whole training step (neither).
        let work = a.op.workload();
        let step = matches!(work, Some(MeasureKind::Decode | MeasureKind::Prefill));
        let training = work == Some(MeasureKind::Training);
        let kernel = !step && !training;
        let num = |k: &str| op.get_num(k).unwrap_or(1.0);
        let per = |s: f64| if figure > 0.0 { s / figure } else { 0.0 };
        // The chips a step's collectives span: its tensor- and expert-parallel group.
        let group = num("tp") * num("ep");
        let narrow = op
            .get("act")
            .and_then(|d| crate::dtype::DType::from_id(&d))
            .is_some_and(|d| d.bytes() <= 1.0);
        Features {
            split,
            launch: if kernel { per(1e-6) } else { 0.0 },
            step: if step { per(1e-3 * steps) } else { 0.0 },
            multi_chip: if step && group > 1.0 {
                per(1e-6 * collectives(a) * steps * libm::log2(group))
            } else {
                0.0
            },
            moe: f64::from(num("experts") > 1.0),
            narrow_train: if training && narrow && a.t_lower > 0.0 {
                a.t_math / a.t_lower
            } else {
                0.0
            },
            ep_overlap: if work == Some(MeasureKind::Prefill) && num("ep") > 1.0 {
                split.network.min(1.0 - split.network)
            } else {
                0.0
            },
            coll_latency: nccl_latency(op).map_or(0.0, per),
        }
    }

    /// As stored (`fitted.rs`): compute, memory, network, launch, step, multi-chip, MoE,
    /// narrow training, EP overlap, collective latency.
    pub fn to_array(self) -> [f64; N_FEATURES] {
        let s = self.split;
        [
            s.compute,
            s.memory,
            s.network,
            self.launch,
            self.step,
            self.multi_chip,
            self.moe,
            self.narrow_train,
            self.ep_overlap,
            self.coll_latency,
        ]
    }

    /// The inverse of [`Features::to_array`].
    pub fn from_array(v: [f64; N_FEATURES]) -> Self {
        Features {
            split: Split {
                compute: v[0],
                memory: v[1],
                network: v[2],
            },
            launch: v[3],
            step: v[4],
            multi_chip: v[5],
            moe: v[6],
            narrow_train: v[7],
            ep_overlap: v[8],
            coll_latency: v[9],
        }
    }
}

/// The collectives one run of `a` starts: its parts that cross a link, each `repeat` times.
fn collectives(a: &crate::analysis::Analysis) -> f64 {
    a.report
        .parts
        .iter()
        .filter(|p| p.t_link > 0.0)
        .map(|p| p.repeat)
        .sum()
}

/// NCCL's cost model (`src/graph/tuning.cc` at tag v2.20.5-1, `baseLat` and `hwLat`, µs), the
/// constants of the protocols that carry small messages: LL for ring and tree (base 6.6 and
/// 6.8 µs, then 0.6 µs per NVLink step and 2.7 (ring) or 5.0 (tree) per network step) and
/// Simple for NVLS (23 µs within a node, its only protocol).
mod nccl {
    pub const RING_BASE: f64 = 6.6;
    pub const TREE_BASE: f64 = 6.8;
    pub const NVLINK_STEP: f64 = 0.6;
    pub const RING_NET_STEP: f64 = 2.7;
    pub const TREE_NET_STEP: f64 = 5.0;
    pub const NVLS: f64 = 23.0;
}

/// The latency NCCL's cost model gives one call of a GPU collective `op` (an all-reduce,
/// all-gather or reduce-scatter over a node or a cluster of nodes, not a TPU torus), in
/// seconds: its `latencies[coll][algo][proto]`, for the algorithm the link names (NVLS where
/// `sharp=yes` within a node; else the smaller of ring and tree for an all-reduce, ring for the
/// others) with the small-message protocol. A ring of `n` ranks over `m` nodes runs `2(n − 1)`
/// steps for an all-reduce (`n − 1` for the others), `2(m − 1)` of them (`m − 1`) over the
/// network; a tree `2((n/m − 1)` NVLink hops `+ log2 m` network hops). `None` for any other op.
pub fn nccl_latency(op: &crate::op::Op) -> Option<f64> {
    use nccl::*;
    let kind = op.get("kind")?;
    let topology = op.get("topology")?;
    if !matches!(topology.as_str(), "node" | "cluster" | "ring" | "line") {
        return None;
    }
    let n = op.get_num("n")?;
    if n < 2.0 {
        return None;
    }
    // Ranks per node: a cluster's first level (`levels=8/4`), else one node.
    let per_node = match topology.as_str() {
        "cluster" => op
            .get("levels")
            .and_then(|l| {
                l.split('/')
                    .next()
                    .and_then(|x| x.trim().parse::<f64>().ok())
            })
            .filter(|p| *p >= 1.0)
            .unwrap_or(n)
            .min(n),
        _ => n,
    };
    let nodes = (n / per_node).ceil().max(1.0);
    let ring =
        |steps: f64, inter: f64| RING_BASE + (steps - inter) * NVLINK_STEP + inter * RING_NET_STEP;
    let us = match kind.as_str() {
        "allreduce" => {
            if nodes == 1.0 && op.get("sharp").as_deref() == Some("yes") {
                NVLS
            } else {
                let tree = TREE_BASE
                    + 2.0 * ((per_node - 1.0) * NVLINK_STEP + libm::log2(nodes) * TREE_NET_STEP);
                ring(2.0 * (n - 1.0), 2.0 * (nodes - 1.0)).min(tree)
            }
        }
        "allgather" | "reducescatter" => ring(n - 1.0, nodes - 1.0),
        _ => return None,
    };
    Some(us * 1e-6)
}

/// A term of the model: `measured / T_lower ≈ Σ coefficient × feature`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Term {
    /// Compute-bound pieces run at 1 / coefficient of the peak.
    Compute,
    /// Memory-bound pieces at 1 / coefficient of the HBM bandwidth.
    Memory,
    /// Network-bound pieces at 1 / coefficient of the link bandwidth.
    Network,
    /// A fixed overhead per kernel launch: coefficient µs.
    Launch,
    /// A fixed overhead per model step: coefficient ms.
    Step,
    /// Several chips per step: a fixed latency per collective (the α of an α–β cost: launch,
    /// synchronisation, hops), coefficient µs per doubling of the group, that the bound's
    /// bandwidth-only link time lacks.
    MultiChip,
    /// A mixture of experts: load imbalance, as a ratio added.
    Moe,
    /// An LLM step's memory-bound pieces (its GEMVs, its decode attention, its many small
    /// kernels) reach less of the HBM bandwidth than one streaming kernel: added to the memory
    /// coefficient for the step's memory share.
    StepMemory,
    /// An LLM step's compute-bound pieces (matmuls as tall as the batch, not 8192³) reach less
    /// of the peak than one large kernel: added to the compute coefficient for the step's
    /// compute share.
    StepCompute,
    /// A training step computing in 8-bit or narrower numbers reaches less of that peak
    /// (attention in BF16, casts and scaling around each FP8 GEMM): coefficient × its compute
    /// time over its bound, added to the ratio.
    Fp8Training,
    /// An expert-parallel step's dispatch and combine hide under the other micro-batch's
    /// computation (DeepSeek's two-micro-batch overlap): the coefficient of the hidden share,
    /// taken off the ratio.
    EpOverlap,
    /// A GPU collective's fixed latency per call as NCCL's own cost model gives it: coefficient
    /// × that latency added to the figure.
    CollLatency,
}

impl Term {
    /// The achievable fractions, always in the model (a term left out counts at 1: the bare
    /// roofline's own resource).
    pub const RESOURCES: [Term; 3] = [Term::Compute, Term::Memory, Term::Network];
    /// The terms kept only where they lower the held-out error.
    /// The fractions of a model step first (a resource's fraction, like the three above), then
    /// the overheads.
    pub const CANDIDATES: [Term; 9] = [
        Term::StepMemory,
        Term::StepCompute,
        Term::Launch,
        Term::Step,
        Term::MultiChip,
        Term::Moe,
        Term::Fp8Training,
        Term::EpOverlap,
        Term::CollLatency,
    ];
    /// The terms added for the tails (issue 39), each with its mechanism's own source:
    /// `./dev validate` prints each tail's nested error with and without them.
    pub const TAILS: [Term; 3] = [Term::Fp8Training, Term::EpOverlap, Term::CollLatency];

    /// A short id.
    pub fn id(self) -> &'static str {
        match self {
            Term::Compute => "compute",
            Term::Memory => "memory",
            Term::Network => "network",
            Term::Launch => "launch",
            Term::Step => "step",
            Term::MultiChip => "multi-chip",
            Term::Moe => "moe",
            Term::StepMemory => "step-memory",
            Term::StepCompute => "step-compute",
            Term::Fp8Training => "fp8-training",
            Term::EpOverlap => "ep-overlap",
            Term::CollLatency => "collective-latency",
        }
    }

    /// What the term stands for, in words.
    pub fn label(self) -> &'static str {
        match self {
            Term::Compute => "achievable fraction of peak FLOP/s",
            Term::Memory => "achievable fraction of HBM bandwidth",
            Term::Network => "achievable fraction of link bandwidth",
            Term::Launch => "fixed overhead per kernel launch",
            Term::Step => "fixed overhead per model step",
            Term::MultiChip => "fixed latency per collective, per doubling of TP × EP",
            Term::Moe => "MoE load imbalance",
            Term::StepMemory => "HBM bandwidth an LLM step reaches below a kernel's",
            Term::StepCompute => "peak an LLM step reaches below a kernel's",
            Term::Fp8Training => "peak an FP8 training step reaches below a BF16 one's",
            Term::EpOverlap => "EP dispatch and combine hidden under compute",
            Term::CollLatency => "NCCL's latency per collective call",
        }
    }

    /// The feature the term multiplies in a figure's [`Features`].
    pub fn x(self, f: &Features) -> f64 {
        match self {
            Term::Compute => f.split.compute,
            Term::Memory => f.split.memory,
            Term::Network => f.split.network,
            Term::Launch => f.launch,
            Term::Step => f.step,
            Term::MultiChip => f.multi_chip,
            Term::Moe => f.moe,
            // A figure is an LLM step's exactly when it carries the per-step overhead feature.
            Term::StepMemory if f.step > 0.0 => f.split.memory,
            Term::StepCompute if f.step > 0.0 => f.split.compute,
            Term::StepMemory | Term::StepCompute => 0.0,
            Term::Fp8Training => f.narrow_train,
            // Hidden time comes off the ratio: a negative feature under a coefficient ≥ 0.
            Term::EpOverlap => -f.ep_overlap,
            Term::CollLatency => f.coll_latency,
        }
    }
}

/// A fitted model: its terms and their coefficients (all ≥ 0).
#[derive(Debug, Clone, PartialEq)]
pub struct TermFit {
    /// The terms, in fit order.
    pub terms: Vec<Term>,
    /// One coefficient per term.
    pub coef: Vec<f64>,
}

impl TermFit {
    /// The predicted `measured / T_lower`: the bare bound's resources not in the model count
    /// at 1.
    pub fn ratio(&self, f: &Features) -> f64 {
        self.terms
            .iter()
            .zip(&self.coef)
            .map(|(t, c)| c * t.x(f))
            .sum::<f64>()
            + offset(&self.terms, f)
    }

    /// The coefficient of `term`, if the model has it.
    pub fn coef(&self, term: Term) -> Option<f64> {
        self.terms
            .iter()
            .position(|t| *t == term)
            .map(|i| self.coef[i])
    }
}

fn offset(terms: &[Term], f: &Features) -> f64 {
    Term::RESOURCES
        .iter()
        .filter(|r| !terms.contains(r))
        .map(|r| r.x(f))
        .sum()
}

/// Fits `terms` on `(features, measured / T_lower)` pairs: the coefficients `a ≥ 0` that
/// minimise `Σ |model ratio / measured ratio − 1|` (least absolute relative error), by
/// iteratively reweighted least squares (`solve::least_absolute`). Deterministic.
/// `None` with fewer points than terms.
pub fn fit_model(data: &[(Features, f64)], terms: &[Term]) -> Option<TermFit> {
    if data.len() < terms.len().max(1) {
        return None;
    }
    let (n, k) = (data.len(), terms.len());
    let mut x = Vec::with_capacity(n * k);
    let mut y = Vec::with_capacity(n);
    // Each row `x_i = feature_i / measured` per term, `y = 1 − offset / measured`.
    for (f, r) in data {
        x.extend(terms.iter().map(|t| t.x(f) / r));
        y.push(1.0 - offset(terms, f) / r);
    }
    Some(TermFit {
        terms: terms.to_vec(),
        coef: least_absolute(&Rows { n, k, x, y }),
    })
}
