//! What [`analyze_train`](super::analyze_train) returns: the step's figures, its collectives,
//! links, parts, memory, critical batches, the best split and the budget.

use crate::arch::Params;
use crate::collective::CollectiveKind;
use crate::train::critical::Regime;
use crate::train::fabric::MeshAxis;
pub use crate::train::model::TrainBound;
use crate::train::model::{Pass, Window};
use serde::{Deserialize, Serialize};

/// FLOPs per token of a training step.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct FlopsPerToken {
    /// `6·N`, `N` the matrix parameters a token multiplies by (attention projections, MLPs or
    /// the routed and shared experts it uses, routers, LM head; not the embedding table):
    /// the forward pass's `2·N` and the backward's `4·N` (transformers.md, "General rule of
    /// thumb for Transformer FLOPs").
    pub matmul: f64,
    /// Dot-product attention, forward and backward: `3 · 2·H·(qk + v)` per attended position
    /// and layer (the book's `12·B·T²·N·H` without masking; half with causal masking).
    pub attention: f64,
    /// `matmul + attention`: the model FLOPs MFU counts.
    pub model: f64,
    /// Recomputed in the backward pass (checkpointing): hardware FLOPs, not model FLOPs.
    pub recompute: f64,
    /// `model + recompute`: what the chips execute.
    pub hardware: f64,
    /// The book's rule `6 · parameters` (active parameters for a mixture of experts),
    /// embedding included: applied-training.md's `6 * 70e9 = 4.2e11`.
    pub six_n: f64,
}

/// One collective of the step, per chip.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrainCollective {
    /// The strategy whose links carry it.
    pub axis: MeshAxis,
    /// The collective.
    pub kind: CollectiveKind,
    /// Which part of the model (`dense layer`, `MoE layer`, `embedding and LM head`,
    /// `stage`).
    pub part: String,
    /// What moves (`weights`, `gradients`, `activations`, ...).
    pub array: String,
    /// Forward, backward or recompute.
    pub phase: Pass,
    /// When it may overlap compute.
    pub window: Window,
    /// How many per step per chip.
    pub count: f64,
    /// The array one group gathers, reduces or exchanges, bytes (an AllToAll's summed over
    /// the group, as [`collective_time`](crate::collective_time)'s `V`).
    pub bytes: f64,
    /// One's time.
    pub time_each: f64,
    /// All of them: `count × time_each`.
    pub time: f64,
    /// Between layers on the critical path (tensor and expert parallelism, pipeline sends):
    /// hidden only by overlapping it with other work (collective matmuls, microbatches).
    pub critical_path: bool,
    /// Latency-bound.
    pub latency_bound: bool,
    /// Its bandwidth formula.
    pub formula: String,
    /// The book's section.
    pub section: String,
    /// One collective's worked derivation ([`collective_time`](crate::collective_time)).
    pub derivation: Vec<String>,
}

/// One strategy's links over the step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LinkTime {
    /// The strategy.
    pub axis: MeshAxis,
    /// Where it runs.
    pub network: String,
    /// Hardware torus axes spanned (`M`), 0 off a torus.
    pub hardware_axes: f64,
    /// The large-`n` bandwidth of an AllGather of the group's array (`W_ici·M`, `W_GPU
    /// egress`, ...), bytes/s.
    pub bandwidth: f64,
    /// Its collectives' total time.
    pub time: f64,
    /// The forward and backward passes as this link alone would stretch them (`T_math` when
    /// its traffic hides under the compute).
    pub done: f64,
    /// `done − T_math` when positive: the time it adds to the step.
    pub exposed: f64,
    /// Whether it leaves the scale-up network: the data-center network beyond a pod, or a
    /// switched cluster spanning nodes.
    pub scale_out: bool,
}

/// A part of the model, per layer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PartCost {
    /// `dense layer`, `MoE layer` or `embedding and LM head`.
    pub name: String,
    /// Layers of this kind in the model.
    pub layers: f64,
    /// On each chip (`layers/pp`).
    pub per_chip: f64,
    /// Parameters of one layer.
    pub params: f64,
    /// Of one layer, held on a chip (sharded over `fsdp·tp`, experts also over `ep`).
    pub params_per_chip: f64,
    /// Forward FLOPs per token of one layer.
    pub fwd_per_token: f64,
    /// Recomputed FLOPs per token of one layer.
    pub recompute_per_token: f64,
    /// One layer's compute on a chip per step.
    pub t_math: f64,
    /// One layer's collectives on a chip per step, by strategy.
    pub comms: Vec<(MeshAxis, f64)>,
    /// Whether the layer alone would be compute- or communication-bound.
    pub bound: TrainBound,
}

/// Memory per chip, bytes.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Memory {
    /// The working weights (`s_param` each).
    pub params: f64,
    /// Gradients (`s_grad` each).
    pub grads: f64,
    /// The master copy (fp32), if any.
    pub master: f64,
    /// Optimizer states.
    pub optimizer: f64,
    /// Activation checkpoints under the policy: `s·(kept per token and layer)·(layers/pp)·
    /// (tokens per microbatch per chip)·(microbatches in flight)`.
    pub activations: f64,
    /// FSDP: two layers' gathered weights (the one in use and the next, prefetched).
    pub fsdp_buffers: f64,
    /// With checkpointing: one layer's intermediates, recomputed for its backward pass.
    pub working: f64,
    /// fp32 logits of a microbatch (vocabulary sharded over `tp`).
    pub logits: f64,
    /// Everything.
    pub total: f64,
    /// The chip's HBM.
    pub capacity: f64,
    /// `total ≤ capacity`.
    pub fits: bool,
    /// The largest batch per chip that fits (memory is a constant plus a part proportional
    /// to the batch); `None` when even the constant does not fit.
    pub max_tokens_per_chip: Option<f64>,
    /// Whole-model totals over all chips, unsharded, for the book's "how much memory"
    /// questions: parameters, gradients, master weights, optimizer states, checkpoints of the
    /// whole batch.
    pub model: ModelMemory,
}

/// Whole-model memory (all chips together).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ModelMemory {
    /// Parameters.
    pub params: f64,
    /// Gradients.
    pub grads: f64,
    /// Master weights.
    pub master: f64,
    /// Optimizer states.
    pub optimizer: f64,
    /// Checkpoints of the whole global batch.
    pub activations: f64,
}

/// A resource's critical batch per chip.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Critical {
    /// HBM or a strategy's links.
    pub resource: TrainBound,
    /// Below the critical batch, at none or at every batch.
    pub regime: Regime,
    /// The batch per chip `B/N` where it starts to bind, solved on the model.
    pub exact: Option<f64>,
    /// The book's closed form, per chip, with this config's numbers (large-`n` bandwidth, no
    /// latency, an MLP-only model); for tensor parallelism the largest degree `Y`.
    pub book: Option<f64>,
    /// The closed form, written out.
    pub book_rule: String,
    /// The book's section.
    pub section: String,
}

/// The split of `fsdp × tp` chips that is fastest, and the book's optimum.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OptimalFsdp {
    /// `N = fsdp·tp`, the chips the two strategies share.
    pub chips: f64,
    /// The book's `X_opt = √((B/F)·(M_X/M_Y)·N)` (training.md, "Combining FSDP and Tensor
    /// Parallelism"), continuous.
    pub book: Option<f64>,
    /// The formula with numbers.
    pub book_rule: String,
    /// The book's smallest batch per chip for FSDP + TP, `C²/(W_X·W_Y·F)` (`2550²/2F`).
    pub book_min_batch: Option<f64>,
    /// The fastest whole split (fitting in memory when any does): FSDP degree.
    pub fsdp: f64,
    /// Its tensor-parallel degree.
    pub tp: f64,
    /// Its `t_lower`.
    pub t_lower: f64,
    /// Whether it fits.
    pub fits: bool,
}

/// Time and cost to train on a token budget.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Budget {
    /// The budget, tokens.
    pub tokens: f64,
    /// Steps: `tokens / B`.
    pub steps: f64,
    /// Model FLOPs: `tokens × FLOPs per token`.
    pub flops: f64,
    /// The book's `6·N·tokens`.
    pub flops_6n: f64,
    /// Days at `t_lower`.
    pub days: f64,
    /// Days at `t_upper`.
    pub days_upper: f64,
    /// Days at the assumed MFU: `flops / (chips·C·MFU)`.
    pub days_at_mfu: Option<f64>,
    /// The book's way: `6·N·tokens / (chips·C·MFU)`.
    pub days_at_mfu_6n: Option<f64>,
    /// Chip-hours at `t_lower`.
    pub chip_hours: f64,
    /// Cost at `t_lower` (price × chip-hours), if priced.
    pub cost: Option<f64>,
    /// Cost at `t_upper`.
    pub cost_upper: Option<f64>,
}

/// The analysis of a training step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrainAnalysis {
    /// Chips `N`.
    pub chips: f64,
    /// `b = B/N` tokens per chip.
    pub tokens_per_chip: f64,
    /// Sequences per step `B/T`.
    pub sequences: f64,
    /// Parameters by component.
    pub params: Params,
    /// FLOPs per token.
    pub flops: FlopsPerToken,
    /// Hardware FLOPs per chip per step.
    pub flops_per_chip: f64,
    /// Forward compute per chip.
    pub t_fwd: f64,
    /// Backward compute (recompute included).
    pub t_bwd: f64,
    /// `t_fwd + t_bwd`.
    pub t_math: f64,
    /// HBM traffic time (weights read per microbatch pass, gradients written, optimizer
    /// update).
    pub t_hbm: f64,
    /// The pipeline bubble.
    pub t_bubble: f64,
    /// `(p − 1)/(m + p − 1)`, 0 without pipelining or with a zero-bubble schedule.
    pub bubble_fraction: f64,
    /// `max(forward pass + backward pass, T_HBM) + bubble`, each pass as long as its compute
    /// or its slowest link's traffic in it: everything overlapped.
    pub t_lower: f64,
    /// `T_math + T_HBM + Σ links + bubble`: nothing overlapped.
    pub t_upper: f64,
    /// What binds `t_lower`.
    pub bound: TrainBound,
    /// Each strategy's links.
    pub links: Vec<LinkTime>,
    /// Every collective.
    pub collectives: Vec<TrainCollective>,
    /// Per layer kind.
    pub parts: Vec<PartCost>,
    /// Model FLOPs utilization at `t_lower` (the best case).
    pub mfu: f64,
    /// At `t_upper`.
    pub mfu_min: f64,
    /// Hardware FLOPs utilization (recompute counted) at `t_lower`.
    pub hfu: f64,
    /// `B / t_lower`.
    pub tokens_per_s: f64,
    /// `B / t_upper`.
    pub tokens_per_s_min: f64,
    /// Days to train the budget at `t_lower`.
    pub days: Option<f64>,
    /// Cost of the budget at `t_lower`.
    pub cost: Option<f64>,
    /// The budget's details.
    pub budget: Option<Budget>,
    /// Memory per chip.
    pub memory: Memory,
    /// `memory.fits`.
    pub fits: bool,
    /// Per resource.
    pub critical: Vec<Critical>,
    /// The batch per chip below which communication starts to bind (the largest link
    /// critical batch); `None` when no link ever binds, or one binds at every batch.
    pub critical_b: Option<f64>,
    /// The best `fsdp × tp` split, when the mesh uses either.
    pub optimal_fsdp: Option<OptimalFsdp>,
    /// Caveats.
    pub notes: Vec<String>,
    /// The worked derivation.
    pub derivation: Vec<String>,
}
