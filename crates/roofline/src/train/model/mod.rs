//! The step as numbers: the model's parts (dense layers, MoE layers, embedding and LM head)
//! with their parameters, FLOPs and checkpoints; every collective of the step as a [`Term`]
//! whose time is known at any batch; the HBM traffic; and their evaluation ([`StepCosts::eval`]).
//!
//! Everything per chip and per step. `b = B/N` is the batch per chip in tokens; FLOPs and
//! activation traffic are proportional to it, weight traffic is not.

mod build;
mod parts;

pub(crate) use parts::{attn_dot_fwd, part_params, parts};

use super::config::Schedule;
use super::fabric::{MeshAxis, Placement};
use crate::collective::{CollectiveKind, CollectiveResult, Combine};
use serde::{Deserialize, Serialize};

/// What binds the step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TrainBound {
    /// The FLOPs.
    Compute,
    /// HBM traffic (weights and the optimizer update).
    Hbm,
    /// A strategy's links.
    Comms(MeshAxis),
}

impl TrainBound {
    /// `compute`, `hbm`, or the axis id (`fsdp`, `tp`, ...).
    pub fn id(self) -> &'static str {
        match self {
            TrainBound::Compute => "compute",
            TrainBound::Hbm => "hbm",
            TrainBound::Comms(a) => a.as_str(),
        }
    }

    /// In words: `compute-bound`, `HBM-bound`, `FSDP communication-bound`.
    pub fn describe(self) -> String {
        match self {
            TrainBound::Compute => "compute-bound".into(),
            TrainBound::Hbm => "HBM-bound".into(),
            TrainBound::Comms(a) => format!("{} communication-bound", a.name()),
        }
    }
}

/// The book's count of intermediates kept per layer without checkpointing, in units of `D`
/// per token (transformers.md, "Gradient checkpointing": "2 * 20 * B * T * D * L ... The 20
/// comes from (roughly) counting every intermediate node").
pub const INTERMEDIATES_PER_LAYER: f64 = 20.0;

/// Bytes per logit (fp32 logits for the loss).
pub const LOGIT_BYTES: f64 = 4.0;

/// When, in a step, a collective may run hidden behind compute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Window {
    /// During the forward pass (and after).
    Forward,
    /// During the backward pass (recompute included).
    Backward,
    /// During the last microbatch's backward pass only: the data-parallel gradient
    /// reductions, which wait for every microbatch's gradients (gpus.md: "we can't AllReduce
    /// or ReduceScatter the gradients until the last microbatch has passed a given stage").
    LastBackward,
}

/// What a collective belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Pass {
    /// The forward pass.
    Forward,
    /// The backward pass.
    Backward,
    /// Recomputation in the backward pass (checkpointing).
    Recompute,
}

/// One collective of the step, repeated `count` times per chip.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Term {
    pub axis: MeshAxis,
    pub kind: CollectiveKind,
    pub part: &'static str,
    pub array: &'static str,
    pub phase: Pass,
    pub window: Window,
    /// Instances per step per chip.
    pub count: f64,
    /// `V` of one instance at the model's batch, as [`collective_time`] takes it.
    pub bytes: f64,
    /// The array one group gathers, reduces or exchanges (`bytes` without a cluster's inner
    /// factor).
    pub array_bytes: f64,
    /// Whether `V` is proportional to the batch (activations) or not (weights).
    pub scales: bool,
    pub kappa: f64,
    pub latency: f64,
    pub combine: Combine,
    /// On the critical path between layers (tensor and expert parallelism, pipeline sends).
    pub critical_path: bool,
    /// One instance's analysis (when explaining).
    pub result: Option<CollectiveResult>,
}

impl Term {
    /// One instance's time at `r` times the model's batch.
    pub fn one(&self, r: f64) -> f64 {
        let v = if self.scales {
            self.bytes * r
        } else {
            self.bytes
        };
        let bw = self.kappa * v;
        match self.combine {
            Combine::Max => bw.max(self.latency),
            Combine::Sum => bw + self.latency,
        }
    }

    /// All instances' time at `r` times the model's batch.
    pub fn time(&self, r: f64) -> f64 {
        self.count * self.one(r)
    }
}

/// A part of the model: a kind of layer, repeated.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Part {
    pub name: &'static str,
    /// Layers of this kind in the model (1 for the embedding and LM head).
    pub layers: f64,
    /// Parameters per layer replicated over `ep` (sharded over `tp·fsdp`).
    pub dense: f64,
    /// Of which attention (for the `mlp` policy's re-read weights).
    pub attention: f64,
    /// Routed-expert parameters per layer (sharded over `ep·tp·fsdp`).
    pub experts: f64,
    /// Forward FLOPs per token and layer.
    pub fwd: f64,
    /// Recomputed FLOPs per token and layer.
    pub recompute: f64,
    /// Elements kept per token and layer.
    pub saved: f64,
    /// Tensor-parallel AllGathers + ReduceScatters per layer and microbatch, forward.
    pub tp_colls: f64,
    /// Of which recomputed.
    pub tp_recompute: f64,
    /// AllToAlls per layer and microbatch, forward.
    pub a2a: f64,
    /// Of which recomputed.
    pub a2a_recompute: f64,
    /// Fraction of the layer's weights read again when recomputing.
    pub reread: f64,
    /// The most parameters FSDP gathers at once when less than the layer (the embedding and
    /// the LM head: one `V·D` matrix at a time), before tensor sharding.
    pub gather_unit: Option<f64>,
}

/// Memory per chip as a constant plus a part proportional to the batch.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(crate) struct MemModel {
    pub params: f64,
    pub grads: f64,
    pub master: f64,
    pub optimizer: f64,
    pub fsdp_buffers: f64,
    /// At the model's batch (proportional to it).
    pub activations: f64,
    pub working: f64,
    pub logits: f64,
}

impl MemModel {
    pub fn fixed(&self) -> f64 {
        self.params + self.grads + self.master + self.optimizer + self.fsdp_buffers
    }
    pub fn scaled(&self) -> f64 {
        self.activations + self.working + self.logits
    }
}

/// The whole step.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct StepCosts {
    /// Tokens per chip `b` the terms' bytes are given at.
    pub b0: f64,
    pub chips: f64,
    pub peak: f64,
    pub hbm_bw: f64,
    pub m: f64,
    pub pp: f64,
    pub schedule: Schedule,
    /// Hardware FLOPs per token, whole model: forward, backward, recomputed.
    pub fwd: f64,
    pub bwd: f64,
    pub recompute: f64,
    pub parts: Vec<Part>,
    pub terms: Vec<Term>,
    /// Index of the pipeline's forward send (its critical path adds to the bubble).
    pub pp_send: Option<usize>,
    /// HBM bytes per step (weights and optimizer: independent of the batch).
    pub hbm_bytes: f64,
    pub mem: MemModel,
    pub placement: Placement,
}

/// One link's traffic at some batch.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct LinkEval {
    /// All its collectives' time.
    pub all: f64,
    /// The forward pass, stretched by this link's forward traffic.
    pub phase_f: f64,
    /// The backward pass, stretched by this link's backward traffic.
    pub phase_b: f64,
    /// The largest fraction of a pass its traffic fills.
    pub load: f64,
}

impl LinkEval {
    /// The step's compute passes as this link alone would stretch them.
    pub fn done(&self) -> f64 {
        self.phase_f + self.phase_b
    }
}

/// One link at some batch.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct LinkAt {
    pub axis: MeshAxis,
    /// All its collectives' time.
    pub all: f64,
    /// The passes as this link alone would stretch them.
    pub done: f64,
    /// The largest fraction of a pass (or of the last microbatch's backward pass) its
    /// traffic fills.
    pub load: f64,
}

/// Times of one step at some batch.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Times {
    pub b: f64,
    pub t_fwd: f64,
    pub t_bwd: f64,
    pub t_math: f64,
    pub t_hbm: f64,
    /// Per axis with traffic.
    pub links: Vec<LinkAt>,
    pub t_bubble: f64,
    pub t_lower: f64,
    pub t_upper: f64,
    pub bound: TrainBound,
}

impl StepCosts {
    /// The step at `b` tokens per chip: each pass lasts as long as its compute or the
    /// slowest link's traffic in that pass, whichever is longer (see [`StepCosts::link`]), and
    /// the step at least as long as its HBM traffic.
    pub fn eval(&self, b: f64) -> Times {
        let r = b / self.b0;
        let t_fwd = b * self.fwd / self.peak;
        let t_bwd = b * (self.bwd + self.recompute) / self.peak;
        let t_math = t_fwd + t_bwd;
        let t_hbm = self.hbm_bytes / self.hbm_bw;
        let mut links: Vec<LinkAt> = Vec::new();
        let mut sum_all = 0.0;
        let (mut phase_f, mut phase_b) = (t_fwd, t_bwd);
        let mut top: Option<(MeshAxis, f64)> = None;
        for axis in MeshAxis::ALL {
            let l = self.link(axis, r, t_fwd, t_bwd);
            if l.all > 0.0 {
                links.push(LinkAt {
                    axis,
                    all: l.all,
                    done: l.done(),
                    load: l.load,
                });
                sum_all += l.all;
                phase_f = phase_f.max(l.phase_f);
                phase_b = phase_b.max(l.phase_b);
                if top.is_none_or(|(_, d)| l.done() > d) {
                    top = Some((axis, l.done()));
                }
            }
        }
        let t_bubble = self.bubble(r, t_math);
        let passes = phase_f + phase_b;
        let core = passes.max(t_hbm);
        let bound = if t_hbm > passes && t_hbm > t_math {
            TrainBound::Hbm
        } else {
            match top {
                Some((axis, _)) if passes > t_math => TrainBound::Comms(axis),
                _ => TrainBound::Compute,
            }
        };
        Times {
            b,
            t_fwd,
            t_bwd,
            t_math,
            t_hbm,
            links,
            t_bubble,
            t_lower: core + t_bubble,
            t_upper: t_math + t_hbm + sum_all + t_bubble,
            bound,
        }
    }

    /// An axis's collectives at ratio `r` of the model's batch, per pass: forward traffic
    /// must be done within the forward pass (a layer's matmul waits for its gathers), backward
    /// traffic within the backward pass, and last-backward traffic (the data-parallel
    /// reductions) within the last microbatch's backward pass, `t_bwd/m`; a pass lasts as long
    /// as its compute or its traffic: `phase_f = max(t_fwd, F)`, `phase_b = max(t_bwd, B + L,
    /// t_bwd·(1 − 1/m) + L)` (the book's per-layer `T = max(T_math, T_comms)`, pass by pass).
    pub fn link(&self, axis: MeshAxis, r: f64, t_fwd: f64, t_bwd: f64) -> LinkEval {
        let (mut f, mut back, mut last) = (0.0, 0.0, 0.0);
        for t in self.terms.iter().filter(|t| t.axis == axis) {
            let x = t.time(r);
            match t.window {
                Window::Forward => f += x,
                Window::Backward => back += x,
                Window::LastBackward => last += x,
            }
        }
        let frac = |x: f64, w: f64| {
            if x <= 0.0 {
                0.0
            } else if w > 0.0 {
                x / w
            } else {
                f64::INFINITY
            }
        };
        LinkEval {
            load: frac(f, t_fwd)
                .max(frac(back + last, t_bwd))
                .max(frac(last, t_bwd / self.m)),
            all: f + back + last,
            phase_f: t_fwd.max(f),
            phase_b: t_bwd.max(back + last).max(t_bwd - t_bwd / self.m + last),
        }
    }

    /// The pipeline bubble: `(p − 1)/m` of the compute (a fraction `(p − 1)/(m + p − 1)` of
    /// the step) plus the `2(p − 1)` sends on the critical path of the fill and drain; none
    /// with a zero-bubble schedule.
    pub fn bubble(&self, r: f64, t_math: f64) -> f64 {
        if self.pp <= 1.0 || self.schedule == Schedule::ZeroBubble {
            return 0.0;
        }
        let send = self
            .pp_send
            .and_then(|i| self.terms.get(i))
            .map_or(0.0, |t| t.one(r));
        t_math * (self.pp - 1.0) / self.m + 2.0 * (self.pp - 1.0) * send
    }

    /// Memory per chip at `b` tokens per chip.
    pub fn memory_at(&self, b: f64) -> f64 {
        self.mem.fixed() + self.mem.scaled() * b / self.b0
    }
}
