//! The architecture as flat fields, the one declaration of the architecture's fields of every
//! kind that takes one (`llm`, `train`): [`ArchFields`] holds them as link keys hold them
//! (`experts=0` for a dense model, `expert_ffn=0` for "the ffn width", ...), [`ArchFields::arch`]
//! builds the [`Arch`] they describe and [`ArchFields::of`] reads one back. Their specs (label,
//! range, help, folding) and text access are its `op_fields!` list; a kind splices them into
//! its own list (`op_fields! { ...; arch(max); ... }`, see `field/op_fields.rs`).

use super::{Arch, Mla, Moe, SlidingWindow};
use crate::error::Error;
use crate::field::{choice, integer, size, FieldAccess};
use serde::{Deserialize, Serialize};

const YES_NO: &[&str] = &["yes", "no"];

/// An architecture as flat fields (the link keys of `llm` and `train`); see [`Arch`] for the
/// meaning of each.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ArchFields {
    /// Transformer layers `L`.
    pub layers: f64,
    /// Model width `D`.
    pub dmodel: f64,
    /// MLP hidden width `F` (the dense layers' of an MoE).
    pub ffn: f64,
    /// Gated MLP (gate, up, down) or not (up, down); experts alike.
    pub gated: bool,
    /// Query heads `H`.
    pub heads: f64,
    /// Key/value heads `K` (unused with MLA).
    pub kv_heads: f64,
    /// Head dimension `h` (unused with MLA).
    pub head_dim: f64,
    /// Vocabulary `V`.
    pub vocab: f64,
    /// Routed experts `E`; 0 for a dense MLP.
    pub experts: f64,
    /// Experts per token `k`.
    pub top_k: f64,
    /// Expert width `F_e`; 0 means `F`.
    pub expert_ffn: f64,
    /// Shared experts `S_e`.
    pub shared_experts: f64,
    /// Shared expert width `F_s`; 0 means `F_e`.
    pub shared_ffn: f64,
    /// Layers with a dense MLP `L_d`.
    pub dense_layers: f64,
    /// A bias per expert in the router.
    pub router_bias: bool,
    /// The shared expert's output gated by a `D → 1` projection (Qwen2-MoE).
    pub shared_gate: bool,
    /// MLA KV rank `r`; 0 for grouped-query attention.
    pub kv_rank: f64,
    /// MLA query rank `r_q` (0: queries projected directly).
    pub q_rank: f64,
    /// MLA per-head RoPE dimensions `d_r`.
    pub rope_dim: f64,
    /// MLA per-head query/key dimensions without RoPE `d_n`.
    pub nope_dim: f64,
    /// MLA value head dimension `d_v`.
    pub v_dim: f64,
    /// Sliding window `W` in positions; 0 for none.
    pub window: f64,
    /// Layers with the window `L_w`; 0 means all.
    pub window_layers: f64,
    /// The LM head is the embedding table.
    pub tied: bool,
    /// Biases on Q, K, V.
    pub qkv_bias: bool,
    /// A bias on the output projection.
    pub o_bias: bool,
    /// Biases on the MLP and expert projections.
    pub mlp_bias: bool,
    /// A learned attention sink per head and layer.
    pub sinks: bool,
    /// Per-head q/k RMSNorms.
    pub qk_norm: bool,
    /// RMSNorms of width `D` per layer.
    pub norms: f64,
}

impl Default for ArchFields {
    /// The zoo's first preset, Llama-3 8B.
    fn default() -> Self {
        ArchFields::of(&super::arch_presets()[0].arch)
    }
}

impl ArchFields {
    /// The fields of an architecture with no experts, GQA and no window (the shape at 1 until
    /// something fills it).
    pub(crate) const BLANK: ArchFields = ArchFields {
        layers: 1.0,
        dmodel: 1.0,
        ffn: 1.0,
        gated: true,
        heads: 1.0,
        kv_heads: 1.0,
        head_dim: 1.0,
        vocab: 1.0,
        experts: 0.0,
        top_k: 1.0,
        expert_ffn: 0.0,
        shared_experts: 0.0,
        shared_ffn: 0.0,
        dense_layers: 0.0,
        router_bias: false,
        shared_gate: false,
        kv_rank: 0.0,
        q_rank: 0.0,
        rope_dim: 64.0,
        nope_dim: 128.0,
        v_dim: 128.0,
        window: 0.0,
        window_layers: 0.0,
        tied: false,
        qkv_bias: false,
        o_bias: false,
        mlp_bias: false,
        sinks: false,
        qk_norm: false,
        norms: 2.0,
    };

    /// The architecture the fields describe: MoE when `experts > 0` (`expert_ffn` 0 → `F`,
    /// `shared_ffn` 0 → `F_e`), MLA when `kv_rank > 0`, a window when `window > 0`
    /// (`window_layers` 0 → all layers).
    pub fn arch(&self) -> Arch {
        Arch {
            layers: self.layers,
            dmodel: self.dmodel,
            heads: self.heads,
            kv_heads: self.kv_heads,
            head_dim: self.head_dim,
            ffn: self.ffn,
            gated: self.gated,
            vocab: self.vocab,
            tied_embeddings: self.tied,
            qkv_bias: self.qkv_bias,
            o_bias: self.o_bias,
            mlp_bias: self.mlp_bias,
            attn_sinks: self.sinks,
            norms_per_layer: self.norms,
            qk_norm: self.qk_norm,
            moe: self.moe(),
            mla: (self.kv_rank > 0.0).then_some(Mla {
                q_lora_rank: self.q_rank,
                kv_lora_rank: self.kv_rank,
                qk_nope_head_dim: self.nope_dim,
                qk_rope_head_dim: self.rope_dim,
                v_head_dim: self.v_dim,
            }),
            window: (self.window > 0.0).then_some(SlidingWindow {
                size: self.window,
                layers: if self.window_layers > 0.0 {
                    self.window_layers
                } else {
                    self.layers
                },
            }),
        }
    }

    fn moe(&self) -> Option<Moe> {
        if self.experts <= 0.0 {
            return None;
        }
        let ef = if self.expert_ffn > 0.0 {
            self.expert_ffn
        } else {
            self.ffn
        };
        Some(Moe {
            experts: self.experts,
            top_k: self.top_k,
            expert_ffn: ef,
            shared_experts: self.shared_experts,
            shared_ffn: if self.shared_experts <= 0.0 {
                0.0
            } else if self.shared_ffn > 0.0 {
                self.shared_ffn
            } else {
                ef
            },
            dense_layers: self.dense_layers,
            router_bias: self.router_bias,
            shared_gate: self.shared_gate,
        })
    }

    /// The fields of `a`; what `a` lacks (experts, MLA, a window) gets the defaults.
    pub fn of(a: &Arch) -> ArchFields {
        let mut f = ArchFields {
            layers: a.layers,
            dmodel: a.dmodel,
            ffn: a.ffn,
            gated: a.gated,
            heads: a.heads,
            kv_heads: a.kv_heads,
            head_dim: a.head_dim,
            vocab: a.vocab,
            tied: a.tied_embeddings,
            qkv_bias: a.qkv_bias,
            o_bias: a.o_bias,
            mlp_bias: a.mlp_bias,
            sinks: a.attn_sinks,
            norms: a.norms_per_layer,
            qk_norm: a.qk_norm,
            ..ArchFields::BLANK
        };
        if let Some(m) = &a.moe {
            f.experts = m.experts;
            f.top_k = m.top_k;
            f.expert_ffn = m.expert_ffn;
            f.shared_experts = m.shared_experts;
            f.shared_ffn = m.shared_ffn;
            f.dense_layers = m.dense_layers;
            f.router_bias = m.router_bias;
            f.shared_gate = m.shared_gate;
        }
        if let Some(m) = &a.mla {
            f.kv_rank = m.kv_lora_rank;
            f.q_rank = m.q_lora_rank;
            f.rope_dim = m.qk_rope_head_dim;
            f.nope_dim = m.qk_nope_head_dim;
            f.v_dim = m.v_head_dim;
        }
        if let Some(w) = &a.window {
            f.window = w.size;
            f.window_layers = w.layers;
        }
        f
    }

    /// Checks the mixture-of-experts fields against each other and the layers: `top_k`
    /// from 1 to `experts`, `dense_layers` below `layers`.
    pub fn check_moe(&self) -> Result<(), Error> {
        if self.experts > 0.0 {
            if self.top_k < 1.0 || self.top_k > self.experts {
                return Err(Error::invalid(
                    "top_k",
                    n(self.top_k),
                    format!("must be from 1 to experts = {}", n(self.experts)),
                ));
            }
            if self.dense_layers >= self.layers {
                return Err(Error::invalid(
                    "dense_layers",
                    n(self.dense_layers),
                    format!(
                        "must be below layers = {} (an MoE needs at least one MoE layer)",
                        n(self.layers)
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Checks the MLA dimensions (`nope_dim + rope_dim ≥ 1`) and the window's layers (at
    /// most `layers`).
    pub fn check_mla_window(&self) -> Result<(), Error> {
        if self.kv_rank > 0.0 && self.nope_dim + self.rope_dim < 1.0 {
            return Err(Error::invalid(
                "nope_dim",
                n(self.nope_dim),
                "nope_dim + rope_dim must be at least 1 with MLA",
            ));
        }
        if self.window > 0.0 && self.window_layers > self.layers {
            return Err(Error::invalid(
                "window_layers",
                n(self.window_layers),
                format!("must be at most layers = {}", n(self.layers)),
            ));
        }
        Ok(())
    }
}

fn n(x: f64) -> String {
    crate::units::format_exact(x)
}

impl FieldAccess for ArchFields {
    op_fields! {
        "layers" => num(layers): size(
            "layers",
            "32",
            "transformer layers L: per-layer parts repeat L times",
        ).folds(),
        "dmodel" => num(dmodel): size("d_model", "4096", "model width D").folds(),
        "ffn" => num(ffn): size("ffn", "14336", "MLP hidden width F").folds(),
        "gated" => yes_no(gated): choice(
            "gated MLP",
            YES_NO,
            "yes",
            "yes: gate, up and down matrices (SwiGLU, 3·D·F parameters); no: up and down (2·D·F)",
            "yes or no",
        ).folds(),
        "heads" => num(heads): size("heads", "32", "query heads H").folds(),
        "kv_heads" => num(kv_heads): size(
            "KV heads",
            "8",
            "key/value heads K (GQA: H/K query heads share one; attention intensity ≈ H/K in bf16)",
        ).folds(),
        "head_dim" => num(head_dim): size("head dim", "128", "head dimension h").folds(),
        "vocab" => num(vocab): size(
            "vocabulary",
            "128256",
            "vocabulary V: LM head [D,V]; the embedding table is only gathered (T rows)",
        ).folds(),
        "experts" => num(experts): integer(
            "experts",
            "0",
            (0.0, 1e9),
            "0 (dense) or a whole number of experts",
            "routed experts E per MoE layer (0: a dense MLP); decode reads only the E·(1 − (1 − k/E)^T) experts T tokens hit",
        ).folds(),
        "top_k" => num(top_k): integer(
            "experts per token",
            "1",
            (1.0, 1e9),
            "a whole number from 1",
            "routed experts per token k (at most E): active parameters and FLOPs use k experts",
        ).folds(),
        "shared_experts" => num(shared_experts): integer(
            "shared experts",
            "0",
            (0.0, 1e9),
            "0 or a whole number",
            "shared experts every token goes through (DeepSeek, Llama 4)",
        ).folds(),
        "expert_ffn" => num(expert_ffn): integer(
            "expert ffn",
            "0",
            (0.0, 1e9),
            "0 or a whole number",
            "width F_e of each expert's MLP (0: the ffn width F)",
        ).folds(),
        "shared_ffn" => num(shared_ffn): integer(
            "shared expert ffn",
            "0",
            (0.0, 1e9),
            "0 or a whole number",
            "width of each shared expert (0: the expert width F_e)",
        ).folds(),
        "dense_layers" => num(dense_layers): integer(
            "dense layers",
            "0",
            (0.0, 1e9),
            "0 or a whole number",
            "layers L_d with a dense MLP of width F instead of experts (DeepSeek-V3: the first 3)",
        ).folds(),
        "router_bias" => yes_no(router_bias): choice(
            "router bias",
            YES_NO,
            "no",
            "a bias per expert in the router (E parameters per MoE layer)",
            "yes or no",
        ).folds(),
        "shared_gate" => yes_no(shared_gate): choice(
            "shared expert gate",
            YES_NO,
            "no",
            "the shared expert's output gated by a D → 1 projection (Qwen2-MoE)",
            "yes or no",
        ).folds(),
        "kv_rank" => num(kv_rank): integer(
            "MLA KV rank",
            "0",
            (0.0, 1e9),
            "0 (GQA) or a whole number",
            "multi-head latent attention: the cached latent's rank r (kv_lora_rank; 0: grouped-query attention); cache r + d_r elements per layer and position",
        ).folds(),
        "q_rank" => num(q_rank): integer(
            "MLA query rank",
            "0",
            (0.0, 1e9),
            "0 or a whole number",
            "MLA query compression rank r_q (q_lora_rank; 0: queries projected directly)",
        ).folds(),
        "rope_dim" => num(rope_dim): integer(
            "MLA RoPE dim",
            "64",
            (0.0, 1e9),
            "0 or a whole number",
            "MLA per-head RoPE dimensions d_r (qk_rope_head_dim; the key part is shared and cached)",
        ).folds(),
        "nope_dim" => num(nope_dim): integer(
            "MLA no-RoPE dim",
            "128",
            (0.0, 1e9),
            "0 or a whole number",
            "MLA per-head query/key dimensions without RoPE d_n (qk_nope_head_dim)",
        ).folds(),
        "v_dim" => num(v_dim): size("MLA value dim", "128", "MLA value head dimension d_v (v_head_dim)").folds(),
        "window" => num(window): integer(
            "sliding window",
            "0",
            (0.0, 1e9),
            "0 (none) or a whole number of positions",
            "sliding window W: those layers cache and read at most W positions (0: none)",
        ).folds(),
        "window_layers" => num(window_layers): integer(
            "window layers",
            "0",
            (0.0, 1e9),
            "0 (all) or a whole number",
            "layers L_w with the window (0: all layers); the rest attend to the whole context",
        ).folds(),
        "tied" => yes_no(tied): choice(
            "tied embeddings",
            YES_NO,
            "no",
            "the LM head is the embedding table (V·D parameters once, not twice)",
            "yes or no",
        ).folds(),
        "qkv_bias" => yes_no(qkv_bias): choice("QKV bias", YES_NO, "no", "biases on Q, K and V (Qwen2)", "yes or no").folds(),
        "o_bias" => yes_no(o_bias): choice("output bias", YES_NO, "no", "a bias on the attention output projection", "yes or no").folds(),
        "mlp_bias" => yes_no(mlp_bias): choice("MLP bias", YES_NO, "no", "biases on the MLP and expert projections", "yes or no").folds(),
        "sinks" => yes_no(sinks): choice("attention sinks", YES_NO, "no", "a learned attention sink per head and layer (gpt-oss)", "yes or no").folds(),
        "qk_norm" => yes_no(qk_norm): choice("q/k norms", YES_NO, "no", "per-head query and key RMSNorms (Qwen3, Gemma 3)", "yes or no").folds(),
        "norms" => num(norms): integer(
            "norms per layer",
            "2",
            (0.0, 1e9),
            "0 or a whole number",
            "RMSNorms of width D per layer (2: before attention and MLP; Gemma 3: 4)",
        ).folds(),
    }
}
