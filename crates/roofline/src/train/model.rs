//! Over 600 lines: the step's parts and every collective term are evaluated together at any
//! batch (critical batches solve over them); a split of terms from parts is a follow-up.
//!
//! The step as numbers: the model's parts (dense layers, MoE layers, embedding and LM head)
//! with their parameters, FLOPs and checkpoints; every collective of the step as a [`Term`]
//! whose time is known at any batch; the HBM traffic; and their evaluation ([`Model::eval`]).
//!
//! Everything per chip and per step. `b = B/N` is the batch per chip in tokens; FLOPs and
//! activation traffic are proportional to it, weight traffic is not.

use super::config::{Remat, Schedule, TrainConfig};
use super::fabric::{place, AxisNet, MeshAxis, Placement};
use crate::arch::Arch;
use crate::collective::formulas::coefficients;
use crate::collective::{collective_time, CollectiveKind, CollectiveResult, Combine};
use crate::error::Error;
use serde::{Deserialize, Serialize};

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
pub enum Phase {
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
    pub phase: Phase,
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

/// Attention shapes for training (keys and values materialized per head; MLA not absorbed):
/// `(query·key dims, value dims)` per head.
pub(crate) fn train_attn_dims(a: &Arch) -> (f64, f64) {
    match &a.mla {
        Some(m) => (m.qk_nope_head_dim + m.qk_rope_head_dim, m.v_head_dim),
        None => (a.head_dim, a.head_dim),
    }
}

/// Attention projection matrix parameters of one layer (no biases or norms).
pub(crate) fn attn_matrices(a: &Arch) -> f64 {
    let (d, hq) = (a.dmodel, a.heads);
    match &a.mla {
        Some(m) => {
            let qk = m.qk_nope_head_dim + m.qk_rope_head_dim;
            let (rq, r) = (m.q_lora_rank, m.kv_lora_rank);
            let q = if rq > 0.0 {
                d * rq + rq * hq * qk
            } else {
                d * hq * qk
            };
            q + d * (r + m.qk_rope_head_dim)
                + r * hq * (m.qk_nope_head_dim + m.v_head_dim)
                + hq * m.v_head_dim * d
        }
        None => 2.0 * d * hq * a.head_dim + 2.0 * d * a.kv_heads * a.head_dim,
    }
}

/// Mean positions a token attends to, summed over the layers, for sequences of `t`: causal,
/// `(t + 1)/2` on a global layer and the mean of `min(i, W)` on a windowed one; full, `t` and
/// `min(t, W)`.
pub(crate) fn mean_context_sum(a: &Arch, t: f64, causal: bool) -> f64 {
    let global = a.global_layers();
    let (wl, w) = a.window.map_or((0.0, t), |w| (w.layers, w.size));
    if !causal {
        return global * t + wl * t.min(w);
    }
    let g = (t + 1.0) / 2.0;
    let win = if w >= t {
        g
    } else {
        (w * (w + 1.0) / 2.0 + (t - w) * w) / t
    };
    global * g + wl * win
}

/// Forward FLOPs per token of dot-product attention, whole model: `2·H·(qk + v)` per
/// attended position and layer (the book's `4·T·N·H` per token and layer without masking).
pub(crate) fn attn_dot_fwd(a: &Arch, t: f64, causal: bool) -> f64 {
    let (qk, v) = train_attn_dims(a);
    2.0 * a.heads * (qk + v) * mean_context_sum(a, t, causal)
}

/// Elements the big matmuls output per token in an attention block.
fn attn_outputs(a: &Arch) -> f64 {
    let (qk, v) = train_attn_dims(a);
    match &a.mla {
        Some(m) => {
            a.heads * qk
                + m.kv_lora_rank
                + m.qk_rope_head_dim
                + a.heads * (m.qk_nope_head_dim + v)
                + a.dmodel
        }
        None => a.heads * qk + 2.0 * a.kv_heads * a.head_dim + a.dmodel,
    }
}

fn mats(a: &Arch) -> f64 {
    if a.gated {
        3.0
    } else {
        2.0
    }
}

/// The model's parts under a checkpointing policy, for sequences of `t`. `mlp_only`: the
/// book's simplified layer, only the MLP (or MoE) blocks (no attention, norms, embedding or
/// LM head; one AllGather and one ReduceScatter per layer under tensor parallelism).
pub(crate) fn parts(a: &Arch, t: f64, causal: bool, remat: Remat, mlp_only: bool) -> Vec<Part> {
    let d = a.dmodel;
    let mm = mats(a);
    let keep = if mlp_only { 0.0 } else { 1.0 };
    let attn_dot = keep * attn_dot_fwd(a, t, causal) / a.layers;
    let attn_mat = keep * attn_matrices(a);
    let attn_params = keep * a.attention_params_per_layer();
    let norms = keep * a.norms_per_layer * d;
    let tp_colls = if mlp_only { 2.0 } else { 4.0 };
    let layer = |name: &'static str,
                 layers: f64,
                 dense: f64,
                 experts: f64,
                 mlp_flops: f64,
                 mlp_out: f64,
                 a2a: f64| {
        let fwd = 2.0 * (attn_mat + mlp_flops) + attn_dot;
        let (recompute, saved, tp_re, a2a_re, reread) = match remat {
            Remat::None => (0.0, INTERMEDIATES_PER_LAYER * d, 0.0, 0.0, 0.0),
            Remat::Block => (fwd, d, tp_colls, a2a, 1.0),
            Remat::Saved(k) => (fwd, k * d, tp_colls, a2a, 1.0),
            Remat::Matmuls => (attn_dot, keep * attn_outputs(a) + mlp_out, 0.0, 0.0, 0.0),
            Remat::Mlp => (
                2.0 * attn_mat + attn_dot,
                mlp_out,
                keep * 2.0,
                0.0,
                attn_params / (dense + experts),
            ),
        };
        Part {
            name,
            layers,
            dense,
            attention: attn_params,
            experts,
            fwd,
            recompute,
            saved,
            tp_colls,
            tp_recompute: tp_re,
            a2a,
            a2a_recompute: a2a_re,
            reread,
            gather_unit: None,
        }
    };
    let mut out = Vec::new();
    let dense_layers = a.dense_mlp_layers();
    if dense_layers > 0.0 {
        out.push(layer(
            "dense layer",
            dense_layers,
            attn_params + a.mlp_params(a.ffn) + norms,
            0.0,
            mm * d * a.ffn,
            (mm - 1.0) * a.ffn + d,
            0.0,
        ));
    }
    if let Some(m) = &a.moe {
        let shared = if m.shared_experts > 0.0 {
            m.shared_experts * a.mlp_params(m.shared_ffn)
        } else {
            0.0
        };
        let router = m.experts * d
            + if m.router_bias { m.experts } else { 0.0 }
            + if m.shared_gate { d } else { 0.0 };
        let shared_w = if m.shared_experts > 0.0 {
            m.shared_experts * m.shared_ffn
        } else {
            0.0
        };
        let mlp_flops = mm * d * (m.top_k * m.expert_ffn + shared_w)
            + m.experts * d
            + if m.shared_gate { d } else { 0.0 };
        let out_elems = m.top_k * ((mm - 1.0) * m.expert_ffn + d)
            + if m.shared_experts > 0.0 {
                m.shared_experts * ((mm - 1.0) * m.shared_ffn + d)
            } else {
                0.0
            };
        out.push(layer(
            "MoE layer",
            a.moe_layers(),
            attn_params + shared + router + norms,
            m.experts * a.expert_params(),
            mlp_flops,
            out_elems,
            2.0,
        ));
    }
    if mlp_only {
        return out;
    }
    let head = if a.tied_embeddings { 0.0 } else { d * a.vocab };
    out.push(Part {
        name: "embedding and LM head",
        layers: 1.0,
        dense: a.vocab * d + head + d,
        attention: 0.0,
        experts: 0.0,
        fwd: 2.0 * d * a.vocab,
        recompute: 0.0,
        saved: 0.0,
        tp_colls: 2.0,
        tp_recompute: 0.0,
        a2a: 0.0,
        a2a_recompute: 0.0,
        reread: 0.0,
        gather_unit: Some(a.vocab * d),
    });
    out
}

/// Parameters of the parts, `(total, active per token)`.
pub(crate) fn part_params(a: &Arch, parts: &[Part]) -> (f64, f64) {
    let share = a.moe.map_or(1.0, |m| m.top_k / m.experts);
    parts.iter().fold((0.0, 0.0), |(t, act), p| {
        (
            t + p.layers * (p.dense + p.experts),
            act + p.layers * (p.dense + p.experts * share),
        )
    })
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
pub(crate) struct Model {
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
    pub bound: super::TrainBound,
}

/// Distinct collectives analysed so far (explaining): `(axis, kind, V)` → the analysis.
type Seen = Vec<(MeshAxis, CollectiveKind, f64, CollectiveResult)>;

#[allow(clippy::too_many_arguments)]
fn add(
    terms: &mut Vec<Term>,
    seen: &mut Seen,
    net: &AxisNet,
    explain: bool,
    spec: (CollectiveKind, &'static str, &'static str, Phase, Window),
    group_bytes: f64,
    count: f64,
    scales: bool,
) -> Result<(), Error> {
    let (kind, part, array, phase, window) = spec;
    if count <= 0.0 || group_bytes <= 0.0 {
        return Ok(());
    }
    let v = group_bytes * net.scale;
    let (kappa, latency, combine, result) = if explain {
        let known = seen
            .iter()
            .find(|x| x.0 == net.axis && x.1 == kind && x.2 == v)
            .map(|x| x.3.clone());
        let r = match known {
            Some(r) => r,
            None => {
                let r = collective_time(kind, v, &net.network)?;
                seen.push((net.axis, kind, v, r.clone()));
                r
            }
        };
        (r.seconds_per_byte, r.t_latency, r.combine, Some(r))
    } else {
        crate::collective::check(
            "bytes",
            v,
            0.0,
            crate::collective::MAX_BYTES,
            false,
            "a size in bytes",
        )?;
        let c = coefficients(kind, &net.network.topology, false);
        (c.kappa, c.hops * net.network.latency, c.combine, None)
    };
    terms.push(Term {
        axis: net.axis,
        kind,
        part,
        array,
        phase,
        window,
        count,
        bytes: v,
        array_bytes: match &net.network.topology {
            crate::collective::Topology::Cluster { inner, .. } => v / inner,
            _ => v,
        },
        scales,
        kappa,
        latency,
        combine,
        critical_path: matches!(net.axis, MeshAxis::Tp | MeshAxis::Ep | MeshAxis::Pp),
        result,
    });
    Ok(())
}

impl Model {
    /// Builds the step of a validated config; `explain` keeps each collective's analysis.
    pub fn build(cfg: &TrainConfig, explain: bool) -> Result<Model, Error> {
        let mesh = &cfg.mesh;
        let a = &cfg.arch;
        let placement = place(mesh, &cfg.axes, &cfg.hw.fabric, explain)?;
        let parts = parts(a, cfg.seq, cfg.causal, cfg.remat, cfg.mlp_only);
        let n = mesh.chips();
        let b0 = cfg.batch / n;
        let (tp, pp, ep, fsdp, m) = (mesh.tp, mesh.pp, mesh.ep, mesh.fsdp, mesh.microbatches);
        let pr = &cfg.precision;
        let (sp, sa, sg) = (pr.param.bytes(), pr.compute.bytes(), pr.grad.bytes());
        let sm = pr.master.map_or(0.0, |d| d.bytes());
        let so = pr.optimizer.bytes();
        let states = cfg.optimizer.states();
        // Tokens of one microbatch on one data shard.
        let t_mb = cfg.batch / (mesh.data() * m);
        let d = a.dmodel;
        let k = a.moe.map_or(1.0, |x| x.top_k);

        let fwd: f64 = parts.iter().map(|p| p.layers * p.fwd).sum();
        let recompute: f64 = parts.iter().map(|p| p.layers * p.recompute).sum();

        let mut terms = Vec::new();
        let mut seen: Seen = Vec::new();
        let pl = &placement;
        for p in &parts {
            let c = p.layers / pp;
            let grp = p.dense / tp + p.experts / (tp * ep);
            let name = p.name;
            if let Some(net) = &pl.fsdp {
                use CollectiveKind::*;
                add(
                    &mut terms,
                    &mut seen,
                    net,
                    explain,
                    (AllGather, name, "weights", Phase::Forward, Window::Forward),
                    sp * grp,
                    c * m,
                    false,
                )?;
                add(
                    &mut terms,
                    &mut seen,
                    net,
                    explain,
                    (
                        AllGather,
                        name,
                        "weights",
                        Phase::Backward,
                        Window::Backward,
                    ),
                    sp * grp,
                    c * m,
                    false,
                )?;
                add(
                    &mut terms,
                    &mut seen,
                    net,
                    explain,
                    (
                        ReduceScatter,
                        name,
                        "gradients",
                        Phase::Backward,
                        Window::Backward,
                    ),
                    sg * grp,
                    c * m,
                    false,
                )?;
            }
            for net in [&pl.dp, &pl.dcn].into_iter().flatten() {
                add(
                    &mut terms,
                    &mut seen,
                    net,
                    explain,
                    (
                        CollectiveKind::AllReduce,
                        name,
                        "gradients",
                        Phase::Backward,
                        Window::LastBackward,
                    ),
                    sg * grp / fsdp,
                    c,
                    false,
                )?;
            }
            if let Some(net) = &pl.ep {
                add(
                    &mut terms,
                    &mut seen,
                    net,
                    explain,
                    (
                        CollectiveKind::AllReduce,
                        name,
                        "dense gradients",
                        Phase::Backward,
                        Window::LastBackward,
                    ),
                    sg * p.dense / tp / fsdp,
                    c,
                    false,
                )?;
                let v = ep * t_mb * k * d * sa / tp;
                let per = c * m * p.a2a;
                let re = c * m * p.a2a_recompute;
                add(
                    &mut terms,
                    &mut seen,
                    net,
                    explain,
                    (
                        CollectiveKind::AllToAll,
                        name,
                        "tokens to experts",
                        Phase::Forward,
                        Window::Forward,
                    ),
                    v,
                    per,
                    true,
                )?;
                add(
                    &mut terms,
                    &mut seen,
                    net,
                    explain,
                    (
                        CollectiveKind::AllToAll,
                        name,
                        "tokens to experts",
                        Phase::Backward,
                        Window::Backward,
                    ),
                    v,
                    per,
                    true,
                )?;
                add(
                    &mut terms,
                    &mut seen,
                    net,
                    explain,
                    (
                        CollectiveKind::AllToAll,
                        name,
                        "tokens to experts",
                        Phase::Recompute,
                        Window::Backward,
                    ),
                    v,
                    re,
                    true,
                )?;
            }
            if let Some(net) = &pl.tp {
                use CollectiveKind::*;
                let v = sa * t_mb * d;
                let half = c * m * p.tp_colls / 2.0;
                let re = c * m * p.tp_recompute / 2.0;
                add(
                    &mut terms,
                    &mut seen,
                    net,
                    explain,
                    (
                        AllGather,
                        name,
                        "activations",
                        Phase::Forward,
                        Window::Forward,
                    ),
                    v,
                    half,
                    true,
                )?;
                add(
                    &mut terms,
                    &mut seen,
                    net,
                    explain,
                    (
                        ReduceScatter,
                        name,
                        "activations",
                        Phase::Forward,
                        Window::Forward,
                    ),
                    v,
                    half,
                    true,
                )?;
                add(
                    &mut terms,
                    &mut seen,
                    net,
                    explain,
                    (
                        AllGather,
                        name,
                        "activation gradients",
                        Phase::Backward,
                        Window::Backward,
                    ),
                    v,
                    half,
                    true,
                )?;
                add(
                    &mut terms,
                    &mut seen,
                    net,
                    explain,
                    (
                        ReduceScatter,
                        name,
                        "activation gradients",
                        Phase::Backward,
                        Window::Backward,
                    ),
                    v,
                    half,
                    true,
                )?;
                add(
                    &mut terms,
                    &mut seen,
                    net,
                    explain,
                    (
                        AllGather,
                        name,
                        "activations",
                        Phase::Recompute,
                        Window::Backward,
                    ),
                    v,
                    re,
                    true,
                )?;
                add(
                    &mut terms,
                    &mut seen,
                    net,
                    explain,
                    (
                        ReduceScatter,
                        name,
                        "activations",
                        Phase::Recompute,
                        Window::Backward,
                    ),
                    v,
                    re,
                    true,
                )?;
            }
        }
        let mut pp_send = None;
        if let Some(net) = &pl.pp {
            let v = sa * t_mb * d / tp;
            pp_send = Some(terms.len());
            add(
                &mut terms,
                &mut seen,
                net,
                explain,
                (
                    CollectiveKind::Send,
                    "stage",
                    "activations",
                    Phase::Forward,
                    Window::Forward,
                ),
                v,
                m,
                true,
            )?;
            add(
                &mut terms,
                &mut seen,
                net,
                explain,
                (
                    CollectiveKind::Send,
                    "stage",
                    "activation gradients",
                    Phase::Backward,
                    Window::Backward,
                ),
                v,
                m,
                true,
            )?;
            if terms.len() == pp_send.unwrap_or(0) {
                pp_send = None;
            }
        }

        // HBM traffic and memory.
        let mut hbm = 0.0;
        let mut p_local = 0.0;
        let mut act = 0.0;
        let mut max_layer = 0.0f64;
        for p in &parts {
            let c = p.layers / pp;
            let comp = p.dense / tp + p.experts / (tp * ep);
            let reads = sp * (2.0 + p.reread) + sg * if m > 1.0 { 2.0 } else { 1.0 };
            hbm += c * m * comp * reads;
            p_local += c * comp / fsdp;
            act += c * p.saved;
            // FSDP gathers a layer at a time, the embedding and the LM head one matrix each.
            let unit = p.gather_unit.map_or(comp, |u| u / tp);
            max_layer = max_layer.max(unit);
        }
        let z1 = if cfg.zero1 { mesh.dp } else { 1.0 };
        let p_upd = p_local / z1;
        hbm += p_upd * (sg + 2.0 * sp + 2.0 * sm + 2.0 * states * so);
        let inflight = if pp > 1.0 {
            match cfg.schedule {
                Schedule::Gpipe => m,
                _ => m.min(pp),
            }
        } else {
            1.0
        };
        let tok_chip = t_mb / tp;
        let mem = MemModel {
            params: sp * p_local,
            grads: sg * p_local,
            master: sm * p_local / z1,
            optimizer: states * so * p_local / z1,
            fsdp_buffers: if fsdp > 1.0 {
                2.0 * sp * max_layer
            } else {
                0.0
            },
            activations: sa * act * tok_chip * inflight,
            working: if cfg.remat == Remat::None {
                0.0
            } else {
                sa * INTERMEDIATES_PER_LAYER * d * tok_chip
            },
            logits: LOGIT_BYTES * t_mb * a.vocab / tp,
        };
        Ok(Model {
            b0,
            chips: n,
            peak: cfg.hw.peak,
            hbm_bw: cfg.hw.hbm_bw,
            m,
            pp,
            schedule: cfg.schedule,
            fwd,
            bwd: 2.0 * fwd,
            recompute,
            parts,
            terms,
            pp_send,
            hbm_bytes: hbm,
            mem,
            placement,
        })
    }

    /// The step at `b` tokens per chip: each pass lasts as long as its compute or the
    /// slowest link's traffic in that pass, whichever is longer (see [`Model::link`]), and
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
            super::TrainBound::Hbm
        } else {
            match top {
                Some((axis, _)) if passes > t_math => super::TrainBound::Comms(axis),
                _ => super::TrainBound::Compute,
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
