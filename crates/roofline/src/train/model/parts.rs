//! The model's parts under a checkpointing policy: attention shapes and FLOPs, the dense,
//! MoE, embedding and LM-head parts with their parameters and checkpoints.

use super::{Part, INTERMEDIATES_PER_LAYER};
use crate::arch::Arch;
use crate::train::config::Remat;

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
