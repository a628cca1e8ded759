//! Over 600 lines: one analysis writes every strategy's figures and derivation lines with the
//! book's closed forms beside them; moving the derivation writer out is a follow-up.
//!
//! [`analyze_train`]: the step of a [`TrainConfig`] on its mesh, with every number written out.

use super::config::{Remat, Schedule, TrainConfig};
use super::critical::{hbm_critical, link_critical, Regime};
use super::fabric::{AxisNet, Fabric, MeshAxis};
use super::model::{attn_dot_fwd, part_params, Model, Phase, Times, Window};
use crate::arch::Params;
use crate::collective::CollectiveKind;
use crate::error::Error;
use crate::units::{format_exact, format_quantity, format_sig, Unit};
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
    pub phase: Phase,
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

fn fs(x: f64) -> String {
    format_quantity(x, Unit::Seconds)
}
fn fb(x: f64) -> String {
    format_quantity(x, Unit::Bytes)
}
fn ff(x: f64) -> String {
    format_quantity(x, Unit::Flops)
}
fn fr(x: f64) -> String {
    format_quantity(x, Unit::ByteRate)
}
fn sig(x: f64) -> String {
    format_sig(x, 4)
}
fn nn(x: f64) -> String {
    format_exact(x)
}

const SEC_DP: &str =
    "training.md, \"Data Parallelism\"; gpus.md, \"Data Parallelism\" (MoE: × E/k)";
const SEC_FSDP: &str = "training.md, \"Fully-Sharded Data Parallelism (FSDP)\" and \"Combining FSDP and Tensor Parallelism\"";
const SEC_TP: &str = "training.md, \"Tensor Parallelism\"; gpus.md, \"Tensor Parallelism\"";
const SEC_DCN: &str = "training.md, \"Scaling Across Pods\"";
const SEC_EP: &str = "gpus.md, \"Expert Parallelism\"";
const SEC_PP: &str = "gpus.md, \"Pipeline Parallelism\"";
const SEC_HBM: &str = "training.md, \"Data Parallelism\" (\"even a tiny batch size (>240 tokens, so as to be compute-bound)\"); roofline.md";

/// The MLP width the book's rules use: `F` of the dense MLP, or `k·F_e + S_e·F_s` for a model
/// with only MoE layers.
pub(crate) fn f_eff(cfg: &TrainConfig) -> f64 {
    let a = &cfg.arch;
    match &a.moe {
        Some(m) if a.dense_mlp_layers() == 0.0 => {
            m.top_k * m.expert_ffn
                + if m.shared_experts > 0.0 {
                    m.shared_experts * m.shared_ffn
                } else {
                    0.0
                }
        }
        _ => a.ffn,
    }
}

/// The book's MoE factor `E/k` (with expert parallelism, `E/(ep·k)`), 1 for a dense model.
fn moe_factor(cfg: &TrainConfig) -> f64 {
    cfg.arch
        .moe
        .map_or(1.0, |m| m.experts / (cfg.mesh.ep * m.top_k))
}

/// Analyzes a training step: FLOPs, every collective, overlap, the bound, MFU, tokens/s,
/// memory, critical batches, the best FSDP × TP split and the time and cost of the budget.
///
/// ```
/// use roofline::train::{analyze_train, TrainConfig};
/// // The default: LLaMA-3 70B, 4M tokens per step on 8192 TPU v5p (applied-training.md).
/// let a = analyze_train(&TrainConfig::default()).unwrap();
/// assert_eq!(a.chips, 8192.0);
/// assert!(a.fits && a.mfu > 0.5 && a.t_lower <= a.t_upper);
/// ```
pub fn analyze_train(cfg: &TrainConfig) -> Result<TrainAnalysis, Error> {
    cfg.validate()?;
    let model = Model::build(cfg, true)?;
    let t = model.eval(model.b0);
    let mut d = Vec::new();
    let a = &cfg.arch;
    let mesh = &cfg.mesh;
    let n = model.chips;
    let b = model.b0;
    let peak = cfg.hw.peak;
    let params = a.params();

    // FLOPs.
    let attention = if cfg.mlp_only {
        0.0
    } else {
        3.0 * attn_dot_fwd(a, cfg.seq, cfg.causal)
    };
    let matmul = 3.0 * model.fwd - attention;
    let (p_total, p_active) = part_params(a, &model.parts);
    let flops = FlopsPerToken {
        matmul,
        attention,
        model: matmul + attention,
        recompute: model.recompute,
        hardware: matmul + attention + model.recompute,
        six_n: 6.0 * p_active,
    };
    if cfg.mlp_only {
        d.push(format!(
            "The book's simplified layer: MLP blocks only ({} parameters), no attention, norms, embedding or LM head (training.md, \"we'll approximate a Transformer as a stack of MLP blocks\")",
            sig(p_total)
        ));
    }
    d.push(format!(
        "Model: {}; {} parameters ({} active per token)",
        a.describe(),
        sig(params.total()),
        sig(params.active())
    ));
    d.push(format!(
        "Mesh: {}; batch B = {} tokens per step ({} sequences of T = {}); b = B/N = {} tokens per chip",
        mesh.describe(),
        sig(cfg.batch),
        sig(cfg.sequences()),
        nn(cfg.seq),
        sig(b)
    ));
    d.push(format!(
        "FLOPs per token: 6·N_matmul = 6·{} = {} (transformers.md, \"General rule of thumb\"; the book's 6·params = {}) + attention 3·2·H·(qk + v)·Σ mean context = {} ({}) = {} model FLOPs",
        sig(matmul / 6.0),
        ff(matmul),
        ff(flops.six_n),
        ff(attention),
        if cfg.causal { "causal: half the T×T products" } else { "full T×T, the book's 12BT²NH" },
        ff(flops.model)
    ));
    d.push(format!(
        "Checkpointing: {}; recompute {} per token: {} hardware FLOPs per token",
        cfg.remat.describe(),
        ff(flops.recompute),
        ff(flops.hardware)
    ));
    let flops_per_chip = b * flops.hardware;
    d.push(format!(
        "T_math = b·FLOPs/C = {}·{}/{} = {} (forward {}, backward {})",
        sig(b),
        ff(flops.hardware),
        format_quantity(peak, Unit::FlopRate),
        fs(t.t_math),
        fs(t.t_fwd),
        fs(t.t_bwd)
    ));

    // Per-part breakdown.
    let parts = part_costs(cfg, &model, &t);

    // Collectives.
    let mut collectives = Vec::with_capacity(model.terms.len());
    for term in &model.terms {
        let Some(r) = &term.result else { continue };
        let each = term.one(1.0);
        collectives.push(TrainCollective {
            axis: term.axis,
            kind: term.kind,
            part: term.part.into(),
            array: term.array.into(),
            phase: term.phase,
            window: term.window,
            count: term.count,
            bytes: term.array_bytes,
            time_each: each,
            time: term.count * each,
            critical_path: term.critical_path,
            latency_bound: r.latency_bound,
            formula: r.formula.into(),
            section: r.section.into(),
            derivation: r.derivation.clone(),
        });
        d.push(format!(
            "{} {} {} of the {} ({}): V = {}, {} per step × {} = {} ({}; {})",
            term.axis.name(),
            r.kind.name(),
            term.array,
            term.part,
            match term.phase {
                Phase::Forward => "forward",
                Phase::Backward => "backward",
                Phase::Recompute => "recompute",
            },
            if term.array_bytes == term.bytes {
                fb(term.bytes)
            } else {
                format!(
                    "{} (the cluster formula's V = {} with the inner axis)",
                    fb(term.array_bytes),
                    fb(term.bytes)
                )
            },
            sig(term.count),
            fs(each),
            fs(term.count * each),
            r.formula,
            if r.latency_bound {
                "latency-bound"
            } else {
                "bandwidth-bound"
            }
        ));
    }
    let links = link_times(&model, &t, &mut d);
    d.push(format!(
        "HBM: {} per step (weights read forward, backward{} per microbatch, gradients written, optimizer update) / {} = {}",
        fb(model.hbm_bytes),
        if matches!(cfg.remat, Remat::Block | Remat::Saved(_)) { " and recompute" } else { "" },
        fr(cfg.hw.hbm_bw),
        fs(t.t_hbm)
    ));
    let bubble_fraction = if mesh.pp > 1.0 && cfg.schedule != Schedule::ZeroBubble {
        (mesh.pp - 1.0) / (mesh.microbatches + mesh.pp - 1.0)
    } else {
        0.0
    };
    if mesh.pp > 1.0 {
        d.push(format!(
            "Pipeline ({}): bubble (p − 1)/(m + p − 1) = {}/{} = {} of the step: T_math·(p − 1)/m + 2(p − 1) sends = {} ({SEC_PP}; the book's total send time 2BD/(W·N_MB)·(N_MB + N_stages − 2))",
            cfg.schedule.as_str(),
            nn(mesh.pp - 1.0),
            nn(mesh.microbatches + mesh.pp - 1.0),
            sig(bubble_fraction),
            fs(t.t_bubble)
        ));
    }
    d.push(format!(
        "t_lower = max(each pass as long as its compute or its slowest link's traffic in it ({} for T_math {}), T_HBM {}) + bubble {} = {}: {}",
        fs(t.t_lower - t.t_bubble),
        fs(t.t_math),
        fs(t.t_hbm),
        fs(t.t_bubble),
        fs(t.t_lower),
        t.bound.describe()
    ));
    d.push(format!(
        "t_upper = T_math + T_HBM + Σ links + bubble = {} (nothing overlapped)",
        fs(t.t_upper)
    ));
    let model_per_chip = b * flops.model;
    let mfu = model_per_chip / (t.t_lower * peak);
    let mfu_min = model_per_chip / (t.t_upper * peak);
    let hfu = flops_per_chip / (t.t_lower * peak);
    let tokens_per_s = cfg.batch / t.t_lower;
    let tokens_per_s_min = cfg.batch / t.t_upper;
    d.push(format!(
        "MFU = b·model FLOPs/(t·C) = {} at t_lower ({} at t_upper); HFU {}; {} tokens/s ({} at t_upper)",
        sig(mfu),
        sig(mfu_min),
        sig(hfu),
        sig(tokens_per_s),
        sig(tokens_per_s_min)
    ));

    // Memory.
    let memory = memory(cfg, &model, &mut d);

    // Budget.
    let budget = cfg.tokens.map(|tokens| {
        let steps = tokens / cfg.batch;
        let flops_total = tokens * flops.model;
        let flops_6n = tokens * flops.six_n;
        let days = steps * t.t_lower / 86400.0;
        let days_upper = steps * t.t_upper / 86400.0;
        let at = |f: f64| cfg.mfu.map(|u| f / (n * peak * u) / 86400.0);
        let chip_hours = n * days * 24.0;
        let bud = Budget {
            tokens,
            steps,
            flops: flops_total,
            flops_6n,
            days,
            days_upper,
            days_at_mfu: at(flops_total),
            days_at_mfu_6n: at(flops_6n),
            chip_hours,
            cost: cfg.price.map(|p| p * chip_hours),
            cost_upper: cfg.price.map(|p| p * n * days_upper * 24.0),
        };
        d.push(format!(
            "Budget: {} tokens = {} steps, {} model FLOPs (6·N·tokens = {}): {} days at t_lower ({} at t_upper), {} chip-hours",
            sig(tokens),
            sig(steps),
            sig(flops_total),
            sig(flops_6n),
            sig(days),
            sig(days_upper),
            sig(chip_hours)
        ));
        if let (Some(u), Some(x), Some(y)) = (cfg.mfu, bud.days_at_mfu, bud.days_at_mfu_6n) {
            d.push(format!(
                "At an assumed MFU of {}: FLOPs/(N·C·MFU) = {} days (the book's 6·N·tokens: {} days; applied-training.md)",
                sig(u),
                sig(x),
                sig(y)
            ));
        }
        if let (Some(p), Some(c)) = (cfg.price, bud.cost) {
            d.push(format!(
                "Cost: {} chip-hours × {} per chip-hour = {}",
                sig(chip_hours),
                sig(p),
                sig(c)
            ));
        }
        bud
    });

    // Critical batches.
    let critical = criticals(cfg, &model, &mut d);
    let mut critical_b: Option<f64> = None;
    let mut always = false;
    for c in &critical {
        if let TrainBound::Comms(_) = c.resource {
            match (c.regime, c.exact) {
                (Regime::Below, Some(x)) => critical_b = Some(critical_b.map_or(x, |y| y.max(x))),
                (Regime::Always, _) => always = true,
                _ => {}
            }
        }
    }
    if always {
        critical_b = None;
    }
    let optimal_fsdp = optimal_fsdp(cfg, &model, &mut d);
    let notes = notes(cfg, &model, &memory);

    Ok(TrainAnalysis {
        chips: n,
        tokens_per_chip: b,
        sequences: cfg.sequences(),
        params,
        flops,
        flops_per_chip,
        t_fwd: t.t_fwd,
        t_bwd: t.t_bwd,
        t_math: t.t_math,
        t_hbm: t.t_hbm,
        t_bubble: t.t_bubble,
        bubble_fraction,
        t_lower: t.t_lower,
        t_upper: t.t_upper,
        bound: t.bound,
        links,
        collectives,
        parts,
        mfu,
        mfu_min,
        hfu,
        tokens_per_s,
        tokens_per_s_min,
        days: budget.map(|x| x.days),
        cost: budget.and_then(|x| x.cost),
        budget,
        fits: memory.fits,
        memory,
        critical,
        critical_b,
        optimal_fsdp,
        notes,
        derivation: d,
    })
}

fn link_times(model: &Model, t: &Times, d: &mut Vec<String>) -> Vec<LinkTime> {
    let mut out = Vec::new();
    for l in &t.links {
        let (axis, time, done) = (l.axis, l.all, l.done);
        let Some(net) = model.placement.all().find(|x| x.axis == axis) else {
            continue;
        };
        let exposed = (done - t.t_math).max(0.0);
        d.push(format!(
            "{} links ({}): {} of collectives; with them the passes take {}{}",
            axis.name(),
            net.note,
            fs(time),
            fs(done),
            if exposed > 0.0 {
                format!(", {} past the compute", fs(exposed))
            } else {
                ", hidden under the compute".into()
            }
        ));
        out.push(LinkTime {
            axis,
            network: net.note.clone(),
            hardware_axes: net.m,
            bandwidth: net.ag_bandwidth_approx(),
            time,
            done,
            exposed,
        });
    }
    out
}

fn part_costs(cfg: &TrainConfig, model: &Model, t: &Times) -> Vec<PartCost> {
    let mesh = &cfg.mesh;
    let b = model.b0;
    model
        .parts
        .iter()
        .map(|p| {
            let per_chip = p.layers / mesh.pp;
            // One layer's share of the chip's compute: b·pp tokens-worth per layer on a chip.
            let t_math = b * mesh.pp * (3.0 * p.fwd + p.recompute) / cfg.hw.peak;
            let mut comms: Vec<(MeshAxis, f64)> = Vec::new();
            for term in model.terms.iter().filter(|x| x.part == p.name) {
                let x = term.time(1.0) / per_chip;
                match comms.iter_mut().find(|c| c.0 == term.axis) {
                    Some(c) => c.1 += x,
                    None => comms.push((term.axis, x)),
                }
            }
            let mut bound = TrainBound::Compute;
            let mut top = t_math;
            for &(axis, x) in &comms {
                if x > top {
                    top = x;
                    bound = TrainBound::Comms(axis);
                }
            }
            let _ = t;
            PartCost {
                name: p.name.into(),
                layers: p.layers,
                per_chip,
                params: p.dense + p.experts,
                params_per_chip: (p.dense / mesh.tp + p.experts / (mesh.tp * mesh.ep)) / mesh.fsdp,
                fwd_per_token: p.fwd,
                recompute_per_token: p.recompute,
                t_math,
                comms,
                bound,
            }
        })
        .collect()
}

fn memory(cfg: &TrainConfig, model: &Model, d: &mut Vec<String>) -> Memory {
    let m = &model.mem;
    let total = m.fixed() + m.scaled();
    let cap = cfg.hw.hbm;
    let fits = total <= cap;
    let max_tokens_per_chip = if m.fixed() > cap {
        None
    } else if m.scaled() > 0.0 {
        Some((cap - m.fixed()) / (m.scaled() / model.b0))
    } else {
        Some(f64::MAX)
    };
    let pr = &cfg.precision;
    let p = part_params(&cfg.arch, &model.parts).0;
    let saved: f64 = model.parts.iter().map(|x| x.layers * x.saved).sum();
    let whole = ModelMemory {
        params: pr.param.bytes() * p,
        grads: pr.grad.bytes() * p,
        master: pr.master.map_or(0.0, |x| x.bytes()) * p,
        optimizer: cfg.optimizer.states() * pr.optimizer.bytes() * p,
        activations: pr.compute.bytes() * saved * cfg.batch,
    };
    d.push(format!(
        "Memory per chip: params {} + grads {} + master {} + optimizer {} + checkpoints {} + FSDP buffers {} + layer working set {} + logits {} = {} of {} HBM: {}",
        fb(m.params),
        fb(m.grads),
        fb(m.master),
        fb(m.optimizer),
        fb(m.activations),
        fb(m.fsdp_buffers),
        fb(m.working),
        fb(m.logits),
        fb(total),
        fb(cap),
        if fits { "fits" } else { "does not fit" }
    ));
    d.push(format!(
        "Whole model (training.md, question 2): params {} + optimizer {} + checkpoints of the batch {} (gradients {}, master {})",
        fb(whole.params),
        fb(whole.optimizer),
        fb(whole.activations),
        fb(whole.grads),
        fb(whole.master)
    ));
    if let Some(x) = max_tokens_per_chip {
        if x < f64::MAX {
            d.push(format!(
                "Largest batch per chip that fits: (HBM − fixed {}) / {} per token = {} tokens per chip (B = {})",
                fb(m.fixed()),
                fb(m.scaled() / model.b0),
                sig(x),
                sig(x * model.chips)
            ));
        }
    } else {
        d.push(format!(
            "Even without activations the fixed {} exceed the HBM",
            fb(m.fixed())
        ));
    }
    Memory {
        params: m.params,
        grads: m.grads,
        master: m.master,
        optimizer: m.optimizer,
        activations: m.activations,
        fsdp_buffers: m.fsdp_buffers,
        working: m.working,
        logits: m.logits,
        total,
        capacity: cap,
        fits,
        max_tokens_per_chip,
        model: whole,
    }
}

fn net_of(model: &Model, axis: MeshAxis) -> Option<&AxisNet> {
    model.placement.all().find(|x| x.axis == axis)
}

fn criticals(cfg: &TrainConfig, model: &Model, d: &mut Vec<String>) -> Vec<Critical> {
    let mesh = &cfg.mesh;
    let c = cfg.hw.peak;
    let pr = &cfg.precision;
    let (sp, sg) = (pr.param.bytes(), pr.grad.bytes());
    let g = moe_factor(cfg);
    let f = f_eff(cfg);
    let mut out = Vec::new();

    let (regime, exact) = hbm_critical(model);
    let book = c / cfg.hw.hbm_bw * sp / 2.0;
    out.push(Critical {
        resource: TrainBound::Hbm,
        regime,
        exact,
        book: Some(book),
        book_rule: format!(
            "weights read 3 times per 6 FLOPs per token: b > (s/2)·C/W_HBM = {}·{}/{} = {} (the chip's ridge)",
            sig(sp / 2.0),
            format_quantity(c, Unit::FlopRate),
            fr(cfg.hw.hbm_bw),
            sig(book)
        ),
        section: SEC_HBM.into(),
    });

    for axis in MeshAxis::ALL {
        let Some((regime, exact)) = link_critical(model, axis) else {
            continue;
        };
        let Some(net) = net_of(model, axis) else {
            continue;
        };
        let w = net.ag_bandwidth_approx();
        let (book, rule, section): (Option<f64>, String, &str) = match axis {
            MeshAxis::Dp | MeshAxis::Dcn => {
                let x = sg / 2.0 * g * c / (w * mesh.tp * mesh.pp * mesh.fsdp);
                let waits = if model.m > 1.0 {
                    format!(
                        "; the model's reduction also waits for all {} microbatches' gradients and hides only in the last one's backward pass (gpus.md: \"significant non-overlapped communication time\"), {}× the book's form",
                        nn(model.m),
                        nn(model.m)
                    )
                } else {
                    String::new()
                };
                (
                    Some(x),
                    format!(
                        "B/X > {}C/W per data shard (AllReduce of the gradients vs the backward pass), per chip ÷ tp·pp·fsdp = {}: {}{}/{} / {} = {}",
                        if g != 1.0 { "(E/k)·" } else { "" },
                        nn(mesh.tp * mesh.pp * mesh.fsdp),
                        if g != 1.0 { format!("{}·", sig(g)) } else { String::new() },
                        format_quantity(c, Unit::FlopRate),
                        fr(w),
                        nn(mesh.tp * mesh.pp * mesh.fsdp),
                        sig(x)
                    ) + &waits,
                    if axis == MeshAxis::Dcn { SEC_DCN } else { SEC_DP },
                )
            }
            MeshAxis::Fsdp => {
                let x = sp / 2.0 * g * c / (w * mesh.tp * mesh.pp);
                let mut rule = format!(
                    "B/X > {}C/W_X = {}/M_X per data shard (AllGathers of the weights vs the FLOPs), per chip ÷ tp·pp = {}: {}",
                    if g != 1.0 { "(E/k)·" } else { "" },
                    sig(c / (w / net.m.max(1.0))),
                    nn(mesh.tp * mesh.pp),
                    sig(x)
                );
                if model.m > 1.0 {
                    rule.push_str(&format!(
                        "; the model gathers the weights for each of the {} microbatches (gpus.md: ZeRO-3 \"requires us to AllGather the weights on every microbatch\")",
                        nn(model.m)
                    ));
                }
                (Some(x), rule, SEC_FSDP)
            }
            MeshAxis::Tp => {
                let y = f * w / c;
                (
                    Some(y),
                    format!(
                        "independent of the batch: compute-bound iff Y < F·W_Y/C = {}·{}/{} = {} (Y = {}: {})",
                        nn(f),
                        fr(w),
                        format_quantity(c, Unit::FlopRate),
                        sig(y),
                        nn(mesh.tp),
                        if mesh.tp < y { "compute-bound" } else { "communication-bound" }
                    ),
                    SEC_TP,
                )
            }
            MeshAxis::Ep => (
                None,
                "AllToAlls of the routed tokens grow with the batch as the FLOPs do: the ratio is fixed by F, k and the network (gpus.md gives the cross-node form)".into(),
                SEC_EP,
            ),
            MeshAxis::Pp => (
                None,
                "sends of microbatch activations grow with the batch as the FLOPs do (gpus.md: \"from a communication standpoint, pipelining is basically free\")".into(),
                SEC_PP,
            ),
        };
        d.push(format!(
            "Critical batch per chip, {}: {}; the book's rule: {} ({section})",
            axis.name(),
            match (regime, exact) {
                (Regime::Below, Some(x)) => format!(
                    "binds below b* = {} tokens per chip (B = {})",
                    sig(x),
                    sig(x * model.chips)
                ),
                (Regime::Never, _) => "never binds".into(),
                _ => "binds at every batch".into(),
            },
            rule
        ));
        out.push(Critical {
            resource: TrainBound::Comms(axis),
            regime,
            exact,
            book,
            book_rule: rule,
            section: section.into(),
        });
    }
    out
}

/// Every divisor of a whole `n` (≤ 1e9), ascending.
pub(crate) fn divisors(n: f64) -> Vec<f64> {
    let n = n as u64;
    let mut small = Vec::new();
    let mut large = Vec::new();
    let mut i = 1u64;
    while i * i <= n {
        if n % i == 0 {
            small.push(i as f64);
            if i * i != n {
                large.push((n / i) as f64);
            }
        }
        i += 1;
    }
    small.extend(large.into_iter().rev());
    small
}

/// The fastest `(fsdp, tp)` split of `fsdp·tp` chips at the config's batch (fitting in memory
/// when any split does; of equal times, the one whose busiest link has the most headroom),
/// with its time and fit.
pub(crate) fn best_split(cfg: &TrainConfig) -> Option<(f64, f64, f64, bool, Model)> {
    let nxy = cfg.mesh.fsdp * cfg.mesh.tp;
    let mut best: Option<(f64, f64, f64, bool, f64, Model)> = None;
    for y in divisors(nxy) {
        let mut c = cfg.clone();
        c.mesh.tp = y;
        c.mesh.fsdp = nxy / y;
        let Ok(m) = Model::build(&c, false) else {
            continue;
        };
        let times = m.eval(m.b0);
        let t = times.t_lower;
        let slack = times.links.iter().map(|l| l.load).fold(0.0, f64::max);
        let fits = m.memory_at(m.b0) <= cfg.hw.hbm;
        let better = match &best {
            None => true,
            Some((_, _, bt, bf, bs, _)) => {
                (fits && !bf) || (fits == *bf && (t < *bt || (t == *bt && slack < *bs)))
            }
        };
        if better {
            best = Some((c.mesh.fsdp, y, t, fits, slack, m));
        }
    }
    best.map(|(x, y, t, f, _, m)| (x, y, t, f, m))
}

fn optimal_fsdp(cfg: &TrainConfig, model: &Model, d: &mut Vec<String>) -> Option<OptimalFsdp> {
    let mesh = &cfg.mesh;
    if mesh.fsdp <= 1.0 && mesh.tp <= 1.0 {
        return None;
    }
    let nxy = mesh.fsdp * mesh.tp;
    let (fsdp, tp, t_lower, fits, best) = best_split(cfg)?;
    let f = f_eff(cfg);
    // The bandwidths W_X, W_Y: the book's W_ici·M_X and W_ici·M_Y on a torus.
    let widths = match &cfg.hw.fabric {
        Fabric::Torus(t) => {
            let on = |x: f64| if x > 1.0 { 1.0 } else { 0.0 };
            let auto_x = (t.dims - 1.0 - on(mesh.ep) - on(mesh.pp)).max(1.0);
            let mx = if cfg.axes.mx > 0.0 {
                cfg.axes.mx
            } else {
                auto_x
            };
            let my = if cfg.axes.my > 0.0 { cfg.axes.my } else { 1.0 };
            let w = 2.0 * t.link;
            Some((w * mx, w * my, format!("M_X/M_Y = {}/{}", nn(mx), nn(my))))
        }
        _ => {
            let pick = |m: &Model| -> Option<(f64, f64)> {
                Some((
                    m.placement.fsdp.as_ref()?.ag_bandwidth_approx(),
                    m.placement.tp.as_ref()?.ag_bandwidth_approx(),
                ))
            };
            pick(&best)
                .or_else(|| pick(model))
                .map(|(wx, wy)| (wx, wy, format!("W_X/W_Y = {}/{}", fr(wx), fr(wy))))
        }
    };
    let (book, book_rule, book_min) = match widths {
        Some((wx, wy, what)) => {
            let r = wx / wy;
            let x = (cfg.batch / f * r * nxy).sqrt();
            let bmin = Some(cfg.hw.peak.powi(2) / (wx * wy * f));
            (
                Some(x),
                format!(
                    "X_opt = √((B/F)·(M_X/M_Y)·N) = √({}/{}·{}·{}) = {} ({what})",
                    sig(cfg.batch),
                    nn(f),
                    sig(r),
                    nn(nxy),
                    sig(x)
                ),
                bmin,
            )
        }
        None => (
            None,
            "no tensor- and FSDP-parallel split to compare".into(),
            None,
        ),
    };
    d.push(format!(
        "Optimal FSDP ({SEC_FSDP}): {book_rule}; on the model the fastest split of the {} chips is fsdp {} × tp {}: {}{}{}",
        nn(nxy),
        nn(fsdp),
        nn(tp),
        fs(t_lower),
        if fits { "" } else { " (none fits in memory)" },
        match book_min {
            Some(x) => format!("; the book's least batch per chip with FSDP + TP, C²/(W_X·W_Y·F) = α²/(M_X·M_Y·F) = {}", sig(x)),
            None => String::new(),
        }
    ));
    Some(OptimalFsdp {
        chips: nxy,
        book,
        book_rule,
        book_min_batch: book_min,
        fsdp,
        tp,
        t_lower,
        fits,
    })
}

fn notes(cfg: &TrainConfig, model: &Model, memory: &Memory) -> Vec<String> {
    let mut out = Vec::new();
    let mesh = &cfg.mesh;
    let per_shard = cfg.batch / (cfg.seq * mesh.data());
    if per_shard < 1.0 {
        out.push(format!(
            "{} sequences per data shard: splitting the batch {} ways needs sequence (context) parallelism (applied-training.md: \"we can only really do pure data parallelism/FSDP up to 1024 chips because that's how many sequences we have\")",
            sig(per_shard),
            nn(mesh.data())
        ));
    }
    if cfg.arch.mla.is_none() && mesh.tp > cfg.arch.kv_heads {
        out.push(format!(
            "tp = {} exceeds the {} KV heads: each chip keeps whole KV heads (replicated), not modelled",
            nn(mesh.tp),
            nn(cfg.arch.kv_heads)
        ));
    }
    if mesh.pp > 1.0 && mesh.fsdp > 1.0 {
        out.push("FSDP with pipelining gathers the weights for every microbatch (gpus.md: \"ZeRO-3 sharding in particular works badly\" with pipelining)".into());
    }
    if mesh.pp > 1.0 && mesh.microbatches < mesh.pp {
        out.push(format!(
            "fewer microbatches ({}) than stages ({}): most of the step is bubble",
            nn(mesh.microbatches),
            nn(mesh.pp)
        ));
    }
    if let Some(net) = &model.placement.dcn {
        out.push(format!(
            "data parallelism crosses the data-center network: {}",
            net.note
        ));
    }
    if cfg.arch.moe.is_some() {
        out.push("experts are taken as evenly loaded (uniform routing), every local expert's weights read".into());
    }
    if !memory.fits {
        out.push(format!(
            "does not fit: {} per chip of {} HBM",
            fb(memory.total),
            fb(memory.capacity)
        ));
    }
    out
}
