//! Over 600 lines on purpose: nearly a third is the documentation of each formula (parameters,
//! KV bytes, FLOPs, the experts a batch hits), kept beside the code that computes it.
//!
//! Model architectures: what a transformer *is* (shapes, experts, attention kind, windows),
//! apart from how it is run (batch, context, dtypes, parallelism) and where (chips).
//!
//! * [`Arch`]: a dense or mixture-of-experts decoder with grouped-query ([GQA]) or multi-head
//!   latent attention ([`Mla`], DeepSeek), optional sliding-window layers ([`SlidingWindow`]),
//!   and the details that move parameter counts (gated MLP, tied embeddings, biases, norms).
//!   It answers the architecture arithmetic of the scaling book: parameters ([`Arch::params`],
//!   total and active per token), KV-cache bytes ([`Arch::kv_bytes_per_token`],
//!   [`Arch::kv_bytes`]), FLOPs per token ([`Arch::flops_per_token`]) and, for an MoE, the
//!   experts a batch hits ([`Moe::expected_distinct`]) and the batch it needs to be
//!   compute-bound ([`Moe::critical_tokens`]).
//! * [`Arch::from_hf_config`]: a Hugging Face `config.json` (its text) read into an [`Arch`],
//!   with a [`ConfigReport`] of the keys not used and of every default applied.
//! * [`arch_presets`]: the zoo, each number from the model's published config with its source.
//! * [`json`]: the small JSON reader behind it (no `serde_json` in the page).
//!
//! Notation (the book's, part 4): `L` layers, `D` d_model, `F` MLP width, `H` query heads,
//! `K` KV heads, `h` head dim, `V` vocabulary; MoE: `E` routed experts, `k` experts per token,
//! `F_e` expert width, `S_e` shared experts of width `F_s`, `L_d` dense (non-MoE) layers;
//! MLA: `r_q` query rank, `r` KV rank (`kv_lora_rank`), `d_n` / `d_r` the no-RoPE / RoPE parts
//! of a query-key head, `d_v` value head; windows: `W` positions on `L_w` layers; `s` bytes
//! per cached element; `S` context (positions of KV cache a new token attends to).
//!
//! ```
//! use roofline::arch::{arch_preset, Arch};
//! let v3 = &arch_preset("deepseek-v3").unwrap().arch;
//! assert!((v3.params_total() / 1e9 - 671.0).abs() < 0.5); // DeepSeek: 671B total
//! // DeepSeek: "37B activated"; its count leaves out the embedding table (36.6B).
//! let active = v3.params_active() - v3.params().embedding;
//! assert!((active / 1e9 - 36.6).abs() < 0.05);
//! assert_eq!(v3.kv_bytes_per_token(2.0), 61.0 * (512.0 + 64.0) * 2.0); // MLA: 70,272 B
//! let moe = v3.moe.unwrap();
//! assert_eq!(moe.expected_distinct(1.0), 8.0); // one token hits k = 8 experts
//! assert!(moe.expected_distinct(4096.0) > 255.99); // a big batch hits all 256
//! ```
//!
//! [GQA]: https://arxiv.org/abs/2305.13245

mod fields;
mod hf;
pub mod json;
mod zoo;

pub use fields::ArchFields;
pub use hf::{model_types, ConfigReport};
pub use zoo::{arch_preset, arch_presets, ArchPreset};

use crate::error::Error;
use crate::units::format_exact;
use serde::{Deserialize, Serialize};

/// Largest value any architecture number may take (no dimension of a real model comes near;
/// it keeps every product finite).
pub const MAX_DIM: f64 = 1e9;

/// A mixture-of-experts MLP: each token is routed to `top_k` of `experts` routed experts (and
/// always through the `shared_experts`), on every layer but `dense_layers` of them, which keep
/// a dense MLP of the architecture's `ffn` width.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Moe {
    /// Routed experts `E` per MoE layer.
    pub experts: f64,
    /// Routed experts per token `k` (`num_experts_per_tok`).
    pub top_k: f64,
    /// Width `F_e` of each routed expert's MLP (`moe_intermediate_size`).
    pub expert_ffn: f64,
    /// Shared experts `S_e` every token goes through (DeepSeek, Llama 4, Qwen2-MoE); 0 if none.
    pub shared_experts: f64,
    /// Width `F_s` of each shared expert (DeepSeek: `F_e`; Qwen2-MoE:
    /// `shared_expert_intermediate_size`).
    pub shared_ffn: f64,
    /// Layers `L_d` with a dense MLP instead (DeepSeek's `first_k_dense_replace` leading ones,
    /// Llama 4 Maverick's every other one). Where they are does not change any figure here.
    pub dense_layers: f64,
    /// The router has a bias per expert (gpt-oss; DeepSeek-V3's `e_score_correction_bias`).
    pub router_bias: bool,
    /// The shared expert's output is gated by a `D → 1` projection (Qwen2-MoE).
    pub shared_gate: bool,
}

/// Multi-head latent attention (DeepSeek-V2/V3): keys and values are compressed into one
/// latent vector of `kv_lora_rank` per position, cached with a small RoPE key shared by all
/// heads. Per layer (`r` = `kv_lora_rank`, `r_q` = `q_lora_rank`):
///
/// * queries `D → r_q → H·(d_n + d_r)` (or `D → H·(d_n + d_r)` directly when `r_q = 0`), with
///   an RMSNorm of `r_q`;
/// * `D → r + d_r` (the latent and the RoPE key), an RMSNorm of `r`, then `r → H·(d_n + d_v)`
///   (per-head keys and values);
/// * output `H·d_v → D`.
///
/// The cache holds `r + d_r` elements per layer and position, against `2·K·h` for GQA.
/// Decoding reads it in the "absorbed" form (DeepSeek's own kernels): the `r → H·d_n` key
/// up-projection is folded into the query and the `r → H·d_v` value up-projection into the
/// output, so each head attends directly over the latent: scores over `r + d_r` dimensions,
/// values over `r`. Those up-projections then run once per token (not once per cached
/// position), so their FLOPs stay `2·params` like every other matrix.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Mla {
    /// Query compression rank `r_q`; 0 when queries are projected directly (DeepSeek-V2-Lite).
    pub q_lora_rank: f64,
    /// KV latent rank `r` (`kv_lora_rank`): cached elements per layer and position, besides
    /// the RoPE key.
    pub kv_lora_rank: f64,
    /// Per-head query/key dimensions without RoPE `d_n`.
    pub qk_nope_head_dim: f64,
    /// Per-head query/key dimensions with RoPE `d_r` (the key part is shared by all heads and
    /// cached).
    pub qk_rope_head_dim: f64,
    /// Per-head value dimension `d_v`.
    pub v_head_dim: f64,
}

/// Sliding-window (local) attention on some layers: a token attends to at most the `size`
/// most recent positions there, so those layers cache and read at most `size` positions per
/// sequence; the other layers attend to the whole context. Gemma 3: 5 of every 6 layers at
/// 1024; Gemma 2 and gpt-oss: every other layer (4096 and 128); Mistral 7B v0.1: all at 4096.
/// Llama 4's chunked attention (a token sees its own chunk of 8192) is modelled as a window
/// of the chunk size: the same cache cap, and reads at most that.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SlidingWindow {
    /// Window `W`, in positions.
    pub size: f64,
    /// Layers `L_w` that use it (the rest are global).
    pub layers: f64,
}

/// A transformer decoder's architecture. See the module docs for the notation; the formulas
/// are on each method.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Arch {
    /// Layers `L`.
    pub layers: f64,
    /// Model width `D` (`hidden_size`).
    pub dmodel: f64,
    /// Query heads `H`.
    pub heads: f64,
    /// Key/value heads `K` (GQA: `H/K` query heads share one); unused with [`Mla`].
    pub kv_heads: f64,
    /// Head dimension `h` of queries, keys and values; unused with [`Mla`].
    pub head_dim: f64,
    /// Dense MLP width `F` (`intermediate_size`; Llama 4: `intermediate_size_mlp`), used on
    /// every layer of a dense model and on the dense layers of an MoE.
    pub ffn: f64,
    /// Gated MLP (gate, up, down: `3·D·F`) or not (up, down: `2·D·F`); experts alike.
    pub gated: bool,
    /// Vocabulary `V`.
    pub vocab: f64,
    /// The LM head is the embedding table (`tie_word_embeddings`): `V·D` once, not twice.
    pub tied_embeddings: bool,
    /// Biases on the query, key and value projections (Qwen2, gpt-oss, Llama's
    /// `attention_bias`).
    pub qkv_bias: bool,
    /// A bias on the output projection (gpt-oss, Llama's `attention_bias`).
    pub o_bias: bool,
    /// Biases on the MLP (and expert) projections (gpt-oss experts, Llama's `mlp_bias`).
    pub mlp_bias: bool,
    /// A learned attention sink per head and layer (gpt-oss): `H` parameters per layer.
    pub attn_sinks: bool,
    /// RMSNorms of width `D` per layer: 2 (before attention and MLP), Gemma 4 (also after).
    pub norms_per_layer: f64,
    /// Per-head query and key RMSNorms (Qwen3, Gemma 3): `2·h` parameters per layer.
    pub qk_norm: bool,
    /// Mixture of experts, if the MLP is one.
    pub moe: Option<Moe>,
    /// Multi-head latent attention, if attention is MLA (else GQA with `kv_heads`, `head_dim`).
    pub mla: Option<Mla>,
    /// Sliding-window layers, if any.
    pub window: Option<SlidingWindow>,
}

impl Default for Arch {
    /// Llama-3 8B (the `llm` operation's default).
    fn default() -> Self {
        arch_presets()[0].arch
    }
}

/// Parameter counts by component, whole model (all layers). [`Params::total`] is what
/// publishers call total parameters; [`Params::active`] their active (activated) parameters.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Params {
    /// The input embedding table `V·D` (with tied embeddings also the LM head).
    pub embedding: f64,
    /// The LM head `D·V` when untied, else 0.
    pub lm_head: f64,
    /// Attention, all layers: projections and their biases, sinks, q/k norms, MLA's latent
    /// norms.
    pub attention: f64,
    /// Dense MLPs, all dense layers.
    pub dense_mlp: f64,
    /// Routed experts, all MoE layers (`L_moe·E·P_e`).
    pub routed_experts: f64,
    /// The routed experts one token uses (`L_moe·k·P_e`).
    pub routed_active: f64,
    /// Shared experts, all MoE layers.
    pub shared_experts: f64,
    /// Routers (and Qwen2-MoE's shared-expert gates), all MoE layers.
    pub routers: f64,
    /// RMSNorms: `norms_per_layer·D` per layer plus the final `D`.
    pub norms: f64,
}

impl Params {
    /// Every parameter: embedding + LM head + attention + dense MLPs + routed and shared
    /// experts + routers + norms.
    pub fn total(&self) -> f64 {
        self.embedding
            + self.lm_head
            + self.attention
            + self.dense_mlp
            + self.routed_experts
            + self.shared_experts
            + self.routers
            + self.norms
    }

    /// The parameters one token uses: the total less the routed experts it is not sent to,
    /// `total − L_moe·(E − k)·P_e`. Like Meta, Mistral and Qwen this counts the embedding
    /// table (of which a token reads one row); OpenAI's (gpt-oss) and DeepSeek's figures leave
    /// it out (`active − embedding`).
    pub fn active(&self) -> f64 {
        self.total() - self.routed_experts + self.routed_active
    }
}

/// Attention shapes, per query head and per layer (see [`Arch::attn_dims`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct AttnDims {
    /// Dimensions of each query·key dot product: GQA `h`; MLA (absorbed) `r + d_r`.
    pub qk: f64,
    /// Dimensions of each value read: GQA `h`; MLA (absorbed) `r`.
    pub v: f64,
    /// Elements cached per layer and position: GQA `2·K·h` (keys and values); MLA `r + d_r`.
    pub cache: f64,
    /// Query heads reading one cached entry: GQA `H/K`; MLA all `H` (one latent per layer).
    pub group: f64,
}

/// A count for messages and summaries: whole numbers written out (`4000`, not `4e3`), other
/// values as [`format_exact`] writes them (`4096.5`, `1e30`, `inf`).
pub(crate) fn count(x: f64) -> String {
    if x.is_finite() && x.fract() == 0.0 && x.abs() < 1e16 {
        format!("{}", x as i64)
    } else {
        format_exact(x)
    }
}

fn whole(field: &str, x: f64, min: f64) -> Result<(), Error> {
    if x.is_finite() && x.fract() == 0.0 && (min..=MAX_DIM).contains(&x) {
        Ok(())
    } else {
        Err(Error::invalid(
            field,
            count(x),
            format!("must be a whole number from {} to 1e9", count(min)),
        ))
    }
}

impl Moe {
    /// The expected number of distinct routed experts `T` tokens hit, under uniform routing:
    ///
    /// `E·(1 − (1 − k/E)^T)`
    ///
    /// Derivation: a token picks `k` distinct experts of `E`, each set equally likely, so a
    /// given expert is among them with probability `k/E` (it is in `C(E−1,k−1)` of the
    /// `C(E,k)` sets). Tokens route independently, so the expert is missed by all `T` with
    /// probability `(1 − k/E)^T`; by linearity of expectation, summing over the `E` experts,
    /// `E·(1 − (1 − k/E)^T)` are hit. `T = 1` gives `k`; as `T` grows it tends to `E` (a
    /// decode step of `T` sequences reads the weights of that many experts). Real routers are
    /// not uniform (they are trained to balance load); this is the reference point. Defined
    /// for any real `T ≥ 0` (0 tokens hit 0 experts).
    pub fn expected_distinct(&self, tokens: f64) -> f64 {
        if tokens.is_nan() || tokens <= 0.0 {
            return 0.0;
        }
        let q = 1.0 - self.top_k / self.experts;
        self.experts * (1.0 - libm::pow(q.max(0.0), tokens))
    }

    /// `expected_distinct(T)` written out: `E·(1 − (1 − k/E)^T) = 256·(1 − (1 − 8/256)^64)
    /// = 222.4 of 256 routed experts hit by T = 64 tokens (uniform routing)`.
    pub fn distinct_line(&self, tokens: f64) -> String {
        format!(
            "E·(1 − (1 − k/E)^T) = {e}·(1 − (1 − {k}/{e})^{t}) = {d} of {e} routed experts hit by T = {t} tokens (uniform routing: each expert is missed by one token with probability 1 − k/E, by all T with (1 − k/E)^T)",
            e = count(self.experts),
            k = count(self.top_k),
            t = count(tokens),
            d = crate::units::format_sig(self.expected_distinct(tokens), 4),
        )
    }

    /// FLOPs per byte of routed-expert weights read in a step of `T` tokens, with `s_w`
    /// bytes per weight: each token runs `k` experts (`2·k·P_e` FLOPs per token, `P_e` an
    /// expert's matrix parameters) and the step reads the `expected_distinct(T)` experts hit,
    /// so `2·T·k / (s_w·distinct(T))`. Activations are left out (the book's `2BD + 2DF +
    /// 2BF ≈ 2DF`). A dense MLP has `2·T / s_w`; as `distinct → E` the MoE has `k/E` of it.
    pub fn intensity(&self, tokens: f64, weight_bytes: f64) -> f64 {
        let d = self.expected_distinct(tokens);
        if d <= 0.0 {
            return 0.0;
        }
        2.0 * tokens * self.top_k / (weight_bytes * d)
    }

    /// Part 7's rule (inference.md, worked problem 5: "our HBM roofline increases by a factor
    /// of E/k"; transformers.md, problem 8: `B > 120·E/k` for int8 weights on TPU v5e): the
    /// token batch at which the routed experts' matmuls reach the ridge, taking every expert
    /// as read: `E/k · ridge · s_w / 2` — `E/k` times the dense critical batch
    /// `ridge · s_w / 2` (240 in bf16 on TPU v5e, 120 with int8 weights).
    pub fn critical_rule(&self, ridge: f64, weight_bytes: f64) -> f64 {
        self.experts / self.top_k * ridge * weight_bytes / 2.0
    }

    /// The critical batch written out, exact and by part 7's rule: `routed experts reach the
    /// ridge 240 FLOPs/byte at T = 3840 tokens (2·T·k = ridge·s_w·E·(1 − (1 − k/E)^T)); part
    /// 7's rule E/k · ridge·s_w/2 = 256/8 · 240·1/2 = 3840: E/k = 32 times the dense 120`.
    pub fn critical_line(&self, ridge: f64, weight_bytes: f64) -> String {
        let sig = |x: f64| crate::units::format_sig(x, 4);
        format!(
            "routed experts reach the ridge {r} FLOPs/byte at T = {t} tokens (2·T·k = ridge·s_w·E·(1 − (1 − k/E)^T)); part 7's rule E/k · ridge·s_w/2 = {e}/{k} · {r}·{s}/2 = {rule}: E/k = {ek} times the dense {dense}",
            r = sig(ridge),
            t = sig(self.critical_tokens(ridge, weight_bytes)),
            e = count(self.experts),
            k = count(self.top_k),
            s = sig(weight_bytes),
            rule = sig(self.critical_rule(ridge, weight_bytes)),
            ek = sig(self.experts / self.top_k),
            dense = sig(ridge * weight_bytes / 2.0),
        )
    }

    /// The exact token batch `T*` at which [`Moe::intensity`] reaches `ridge` (FLOPs/byte),
    /// with the experts actually hit: the root of `2·T·k = ridge·s_w·E·(1 − (1 − k/E)^T)`.
    /// The right side is concave in `T` and starts below the left side's slope only when
    /// some `T > 0` is memory-bound, so there is one positive root (found by bisection), or
    /// none — then `0`, every batch is compute-bound. Since `distinct ≤ E`, `T* ≤`
    /// [`Moe::critical_rule`], and the two agree whenever `T*·k/E ≫ 1` (the rule's premise):
    /// DeepSeek-V3 at ridge 240 with int8 weights, `T* = 3840` to 1e-40.
    pub fn critical_tokens(&self, ridge: f64, weight_bytes: f64) -> f64 {
        let c = ridge * weight_bytes * self.experts;
        let k = self.top_k;
        let q = (1.0 - k / self.experts).max(0.0);
        // f(T) = 2kT − c(1 − q^T): f(0) = 0, convex; a positive root exists iff f'(0) < 0.
        let f = |t: f64| 2.0 * k * t - c * (1.0 - libm::pow(q, t));
        let slope0 = if q > 0.0 {
            2.0 * k + c * libm::log(q)
        } else {
            f64::NEG_INFINITY
        };
        if !(c.is_finite() && k > 0.0) || slope0 >= 0.0 {
            return 0.0;
        }
        // f(rule) = c·q^rule ≥ 0, and f < 0 just above 0: bisect on (0, rule].
        let mut hi = c / (2.0 * k);
        let mut lo = 0.0;
        for _ in 0..200 {
            let mid = 0.5 * (lo + hi);
            if mid <= lo || mid >= hi {
                break;
            }
            if f(mid) < 0.0 {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        hi
    }
}

impl Mla {
    /// Attention parameters of one layer (without output bias; see [`Arch::params`]):
    /// queries `D·r_q + r_q + r_q·H·(d_n + d_r)` (or `D·H·(d_n + d_r)` when `r_q = 0`), the
    /// latent `D·(r + d_r) + r`, its up-projection `r·H·(d_n + d_v)`, output `H·d_v·D`.
    fn layer_params(&self, d: f64, heads: f64, qkv_bias: bool) -> f64 {
        let qk = self.qk_nope_head_dim + self.qk_rope_head_dim;
        let (rq, r) = (self.q_lora_rank, self.kv_lora_rank);
        // With `attention_bias`, DeepSeek's modelling code biases the down-projections
        // (q_a, kv_a) and the output, not the up-projections or a direct q_proj.
        let q = if rq > 0.0 {
            d * rq + rq + rq * heads * qk + if qkv_bias { rq } else { 0.0 }
        } else {
            d * heads * qk
        };
        let kv = d * (r + self.qk_rope_head_dim)
            + r
            + r * heads * (self.qk_nope_head_dim + self.v_head_dim)
            + if qkv_bias {
                r + self.qk_rope_head_dim
            } else {
                0.0
            };
        q + kv + heads * self.v_head_dim * d
    }

    /// Matrix parameters of one layer (those multiplied per token): as
    /// [`Mla::layer_params`] without norms and biases.
    fn layer_matrices(&self, d: f64, heads: f64) -> f64 {
        let qk = self.qk_nope_head_dim + self.qk_rope_head_dim;
        let (rq, r) = (self.q_lora_rank, self.kv_lora_rank);
        let q = if rq > 0.0 {
            d * rq + rq * heads * qk
        } else {
            d * heads * qk
        };
        q + d * (r + self.qk_rope_head_dim)
            + r * heads * (self.qk_nope_head_dim + self.v_head_dim)
            + heads * self.v_head_dim * d
    }
}

impl Arch {
    /// Checks every number: whole, within `1..=1e9` (counts that may be zero: `0..=1e9`),
    /// `top_k ≤ experts`, fewer dense layers than layers, window layers at most `layers`,
    /// and (GQA) `heads` a multiple of `kv_heads`. The error names the field.
    pub fn validate(&self) -> Result<(), Error> {
        whole("layers", self.layers, 1.0)?;
        whole("dmodel", self.dmodel, 1.0)?;
        whole("heads", self.heads, 1.0)?;
        whole("ffn", self.ffn, 1.0)?;
        whole("vocab", self.vocab, 1.0)?;
        whole("norms_per_layer", self.norms_per_layer, 0.0)?;
        match &self.mla {
            Some(m) => {
                whole("q_lora_rank", m.q_lora_rank, 0.0)?;
                whole("kv_lora_rank", m.kv_lora_rank, 1.0)?;
                whole("qk_nope_head_dim", m.qk_nope_head_dim, 0.0)?;
                whole("qk_rope_head_dim", m.qk_rope_head_dim, 0.0)?;
                whole("v_head_dim", m.v_head_dim, 1.0)?;
                if m.qk_nope_head_dim + m.qk_rope_head_dim < 1.0 {
                    return Err(Error::invalid(
                        "qk_nope_head_dim",
                        count(m.qk_nope_head_dim),
                        "qk_nope_head_dim + qk_rope_head_dim must be at least 1",
                    ));
                }
            }
            None => {
                whole("kv_heads", self.kv_heads, 1.0)?;
                whole("head_dim", self.head_dim, 1.0)?;
                if self.heads % self.kv_heads != 0.0 {
                    return Err(Error::invalid(
                        "kv_heads",
                        count(self.kv_heads),
                        format!(
                            "must divide heads = {} (each KV head serves a whole group of query heads)",
                            count(self.heads)
                        ),
                    ));
                }
            }
        }
        if let Some(m) = &self.moe {
            whole("experts", m.experts, 1.0)?;
            whole("top_k", m.top_k, 1.0)?;
            whole("expert_ffn", m.expert_ffn, 1.0)?;
            whole("shared_experts", m.shared_experts, 0.0)?;
            whole("dense_layers", m.dense_layers, 0.0)?;
            if m.shared_experts > 0.0 {
                whole("shared_ffn", m.shared_ffn, 1.0)?;
            }
            if m.top_k > m.experts {
                return Err(Error::invalid(
                    "top_k",
                    count(m.top_k),
                    format!("must be at most experts = {}", count(m.experts)),
                ));
            }
            if m.dense_layers >= self.layers {
                return Err(Error::invalid(
                    "dense_layers",
                    count(m.dense_layers),
                    format!(
                        "must be below layers = {} (an MoE needs at least one MoE layer)",
                        count(self.layers)
                    ),
                ));
            }
        }
        if let Some(w) = &self.window {
            whole("window", w.size, 1.0)?;
            whole("window_layers", w.layers, 1.0)?;
            if w.layers > self.layers {
                return Err(Error::invalid(
                    "window_layers",
                    count(w.layers),
                    format!("must be at most layers = {}", count(self.layers)),
                ));
            }
        }
        Ok(())
    }

    /// Layers with an MoE MLP: `L − L_d` (0 for a dense model).
    pub fn moe_layers(&self) -> f64 {
        self.moe.map_or(0.0, |m| self.layers - m.dense_layers)
    }

    /// Layers with a dense MLP: `L_d` for an MoE, all `L` for a dense model.
    pub fn dense_mlp_layers(&self) -> f64 {
        self.layers - self.moe_layers()
    }

    /// Layers with a sliding window `L_w` (0 without).
    pub fn window_layers(&self) -> f64 {
        self.window.map_or(0.0, |w| w.layers)
    }

    /// Layers attending to the whole context: `L − L_w`.
    pub fn global_layers(&self) -> f64 {
        self.layers - self.window_layers()
    }

    /// Positions a new token attends to, summed over the layers, at context `S`:
    /// `(L − L_w)·S + L_w·min(S, W)`. Everything the KV cache costs per sequence (bytes,
    /// reads, attention FLOPs) is proportional to it.
    pub fn context_sum(&self, ctx: f64) -> f64 {
        let capped = self.window.map_or(0.0, |w| w.layers * ctx.min(w.size));
        self.global_layers() * ctx + capped
    }

    fn mlp_mats(&self) -> f64 {
        if self.gated {
            3.0
        } else {
            2.0
        }
    }

    /// Parameters of one MLP of width `f`: `(3 or 2)·D·f`, plus biases `(2f or f) + D` with
    /// `mlp_bias`.
    pub fn mlp_params(&self, f: f64) -> f64 {
        let bias = if self.mlp_bias {
            (self.mlp_mats() - 1.0) * f + self.dmodel
        } else {
            0.0
        };
        self.mlp_mats() * self.dmodel * f + bias
    }

    /// Attention parameters of one layer. GQA: `D·H·h + 2·D·K·h + H·h·D` (Q, K, V, O), plus
    /// biases `(H + 2K)·h` (`qkv_bias`) and `D` (`o_bias`), `H` sinks, `2·h` q/k norms. MLA:
    /// see [`Mla`] (its two latent norms included), plus the same optional terms.
    pub fn attention_params_per_layer(&self) -> f64 {
        let (d, hq) = (self.dmodel, self.heads);
        let core = match &self.mla {
            Some(m) => m.layer_params(d, hq, self.qkv_bias),
            None => {
                let (h, k) = (self.head_dim, self.kv_heads);
                let bias = if self.qkv_bias {
                    (hq + 2.0 * k) * h
                } else {
                    0.0
                };
                d * hq * h + 2.0 * d * k * h + hq * h * d + bias
            }
        };
        let qk = match &self.mla {
            Some(m) => m.qk_nope_head_dim + m.qk_rope_head_dim,
            None => self.head_dim,
        };
        core + if self.o_bias { d } else { 0.0 }
            + if self.attn_sinks { hq } else { 0.0 }
            + if self.qk_norm { 2.0 * qk } else { 0.0 }
    }

    /// Parameters of one routed expert `P_e` ([`Arch::mlp_params`] of `F_e`); 0 for a dense
    /// model.
    pub fn expert_params(&self) -> f64 {
        self.moe.map_or(0.0, |m| self.mlp_params(m.expert_ffn))
    }

    /// The parameter counts by component (see [`Params`]):
    ///
    /// * embedding `V·D`; LM head `D·V` unless tied;
    /// * attention `L ·` [`Arch::attention_params_per_layer`];
    /// * dense MLPs `L_dense ·` [`Arch::mlp_params`]`(F)`;
    /// * routed experts `L_moe·E·P_e` (active `L_moe·k·P_e`); shared `L_moe·S_e·mlp(F_s)`;
    /// * routers `L_moe·(E·D + E·[router bias] + D·[shared gate])`;
    /// * norms `L·n·D + D` (`n` norms per layer and the final norm).
    pub fn params(&self) -> Params {
        let (l, d, v) = (self.layers, self.dmodel, self.vocab);
        let lm = self.moe_layers();
        let (routed, active, shared, routers) = match &self.moe {
            Some(m) => {
                let pe = self.mlp_params(m.expert_ffn);
                let shared = if m.shared_experts > 0.0 {
                    m.shared_experts * self.mlp_params(m.shared_ffn)
                } else {
                    0.0
                };
                let router = m.experts * d
                    + if m.router_bias { m.experts } else { 0.0 }
                    + if m.shared_gate { d } else { 0.0 };
                (
                    lm * m.experts * pe,
                    lm * m.top_k * pe,
                    lm * shared,
                    lm * router,
                )
            }
            None => (0.0, 0.0, 0.0, 0.0),
        };
        Params {
            embedding: v * d,
            lm_head: if self.tied_embeddings { 0.0 } else { d * v },
            attention: l * self.attention_params_per_layer(),
            dense_mlp: self.dense_mlp_layers() * self.mlp_params(self.ffn),
            routed_experts: routed,
            routed_active: active,
            shared_experts: shared,
            routers,
            norms: l * self.norms_per_layer * d + d,
        }
    }

    /// All parameters ([`Params::total`]).
    pub fn params_total(&self) -> f64 {
        self.params().total()
    }

    /// Parameters used per token ([`Params::active`]): the total for a dense model.
    pub fn params_active(&self) -> f64 {
        self.params().active()
    }

    /// Matrix parameters one token multiplies by, the `N` of "2·N FLOPs per token": attention
    /// projections, the dense MLPs, the `k` routed and the shared experts' matrices, the
    /// routers, and the LM head `D·V` (tied or not). Not counted: the embedding table (a row
    /// is gathered, no FLOPs), norms, biases and sinks (elementwise).
    pub fn matmul_params_active(&self) -> f64 {
        let d = self.dmodel;
        let attn = match &self.mla {
            Some(m) => m.layer_matrices(d, self.heads),
            None => {
                let (h, k, hq) = (self.head_dim, self.kv_heads, self.heads);
                2.0 * d * hq * h + 2.0 * d * k * h
            }
        };
        let mats = self.mlp_mats() * d;
        let moe = self.moe.map_or(0.0, |m| {
            let shared = if m.shared_experts > 0.0 {
                m.shared_experts * m.shared_ffn
            } else {
                0.0
            };
            self.moe_layers()
                * (mats * (m.top_k * m.expert_ffn + shared)
                    + m.experts * d
                    + if m.shared_gate { d } else { 0.0 })
        });
        self.layers * attn + self.dense_mlp_layers() * mats * self.ffn + moe + d * self.vocab
    }

    /// Attention shapes (see [`AttnDims`]). GQA: `qk = v = h`, `cache = 2·K·h`, `group =
    /// H/K`. MLA, in the absorbed form decoding uses: `qk = r + d_r`, `v = r`, `cache = r +
    /// d_r`, `group = H`.
    pub fn attn_dims(&self) -> AttnDims {
        match &self.mla {
            Some(m) => AttnDims {
                qk: m.kv_lora_rank + m.qk_rope_head_dim,
                v: m.kv_lora_rank,
                cache: m.kv_lora_rank + m.qk_rope_head_dim,
                group: self.heads,
            },
            None => AttnDims {
                qk: self.head_dim,
                v: self.head_dim,
                cache: 2.0 * self.kv_heads * self.head_dim,
                group: self.heads / self.kv_heads,
            },
        }
    }

    /// KV-cache bytes one position adds across all layers, with `s` bytes per element,
    /// before any window caps it: GQA `2·L·K·h·s` (keys and values, every KV head and layer);
    /// MLA `L·(r + d_r)·s` (the latent and the shared RoPE key). Llama-3 70B in int8:
    /// `2·80·8·128 = 163,840` bytes (applied-inference.md's "160kB"); DeepSeek-V3 in bf16:
    /// `61·576·2 = 70,272` bytes.
    pub fn kv_bytes_per_token(&self, s: f64) -> f64 {
        self.layers * self.attn_dims().cache * s
    }

    /// KV-cache bytes of one sequence at context `S`: `cache·s·((L − L_w)·S + L_w·min(S, W))`
    /// ([`Arch::context_sum`]); windowed layers hold at most `W` positions. Also the bytes a
    /// decode step reads per sequence for attention. Without windows,
    /// `S ·`[`Arch::kv_bytes_per_token`]: LLaMA 2-13B, 8192 positions in bf16,
    /// `2·2·40·40·128·8192 = 6.7e9` (inference.md).
    pub fn kv_bytes(&self, ctx: f64, s: f64) -> f64 {
        self.attn_dims().cache * s * self.context_sum(ctx)
    }

    /// Attention FLOPs of one new token attending to `S` positions (a decode step, per
    /// sequence): per layer and query head, scores `2·qk` and values `2·v` per position, so
    /// `2·H·(qk + v)·((L − L_w)·S + L_w·min(S, W))`. GQA: `4·H·h` per position and layer, the
    /// book's `4·B·T·S·N·H` with `B = T = 1` (transformers.md, question 4). MLA (absorbed):
    /// `2·H·(2r + d_r)`. Softmax and masking are not counted.
    pub fn attention_flops_per_token(&self, ctx: f64) -> f64 {
        let a = self.attn_dims();
        2.0 * self.heads * (a.qk + a.v) * self.context_sum(ctx)
    }

    /// Forward FLOPs of one token at context `S`: `2·`[`Arch::matmul_params_active`]` +`
    /// [`Arch::attention_flops_per_token`]. The book's rule "2 · active params · tokens"
    /// (inference.md, worked problem 5) plus the attention term.
    pub fn flops_per_token(&self, ctx: f64) -> f64 {
        2.0 * self.matmul_params_active() + self.attention_flops_per_token(ctx)
    }

    /// A one-line summary: `61 layers, d_model 7168, MLA (KV rank 512 + RoPE 64), 128 heads,
    /// MoE 256 experts top-8 + 1 shared (width 2048), 3 dense layers (ffn 18432), vocab
    /// 129280`.
    pub fn describe(&self) -> String {
        let n = count;
        let mut s = format!("{} layers, d_model {}", n(self.layers), n(self.dmodel));
        match &self.mla {
            Some(m) => s.push_str(&format!(
                ", MLA (KV rank {} + RoPE {}), {} heads",
                n(m.kv_lora_rank),
                n(m.qk_rope_head_dim),
                n(self.heads)
            )),
            None => s.push_str(&format!(
                ", {} heads / {} KV heads of {}",
                n(self.heads),
                n(self.kv_heads),
                n(self.head_dim)
            )),
        }
        match &self.moe {
            Some(m) => {
                s.push_str(&format!(
                    ", MoE {} experts top-{}",
                    n(m.experts),
                    n(m.top_k)
                ));
                if m.shared_experts > 0.0 {
                    s.push_str(&format!(" + {} shared", n(m.shared_experts)));
                }
                s.push_str(&format!(" (width {})", n(m.expert_ffn)));
                if m.dense_layers > 0.0 {
                    s.push_str(&format!(
                        ", {} dense layers (ffn {})",
                        n(m.dense_layers),
                        n(self.ffn)
                    ));
                }
            }
            None => s.push_str(&format!(", ffn {}", n(self.ffn))),
        }
        if let Some(w) = &self.window {
            s.push_str(&format!(
                ", window {} on {} of {} layers",
                n(w.size),
                n(w.layers),
                n(self.layers)
            ));
        }
        s.push_str(&format!(", vocab {}", n(self.vocab)));
        if self.tied_embeddings {
            s.push_str(" (tied)");
        }
        s
    }
}
