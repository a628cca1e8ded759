//! The `llm` op: a transformer step described by an `arch::Arch` (dense or MoE, GQA or MLA,
//! windows), its fields, presets and serving lengths; its parts are in `llm_parts.rs`, its
//! architecture's 30 fields in `arch/fields.rs` (shared with `train`). Over 600 lines on
//! purpose: its own 17 fields, each declared once with its help text, and the documentation of
//! every part's formula on the type.

use super::behavior::{
    check_kv_heads, check_tp_heads, n, Composite, MeasureKind, OpBehavior, Traits,
};
use super::llm_load::{chunk_spec, Chunk, Engine, Load, MAX_CLIENTS, MAX_QPS};
use super::llm_tails::{cv_spec, disagg_spec, opt, parse_cv, Disagg, MAX_SEED};
use super::Evaluation;
use super::Link;
#[cfg(doc)]
use super::Matmul;
use crate::arch::{arch_presets, Arch, ArchFields, ArchPreset};
use crate::chip::Chip;
use crate::dtype::DType;
use crate::error::Error;
use crate::eval::Cost;
use crate::field::{
    choice, dtype, integer, number, opt_integer, opt_number, parse_choice, size, FieldAccess,
    FieldSpec, CHIPS, SIZES,
};
use crate::resource::Resource;
use crate::units::{format_exact, format_quantity, format_sig, Unit};
use serde::{Deserialize, Serialize};

/// A transformer architecture preset: an entry of the architecture zoo
/// ([`crate::arch::arch_presets`]), with the source of its numbers.
pub type LlmPreset = ArchPreset;

/// The transformer presets: the architecture zoo, `llama3-8b` (the default) and `llama3-70b`
/// first.
pub fn llm_presets() -> &'static [LlmPreset] {
    arch_presets()
}

id_enum! {
    /// Which step of inference (ids `decode`, `prefill`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
    pub enum InferenceStep {
        /// One new token per sequence: `T = B` tokens per step; attention reads the KV cache
        /// of `ctx` positions per sequence.
        #[default]
        Decode = "decode",
        /// The whole prompt: `T = B·ctx` tokens per step; causal attention (query `i` sees
        /// keys `1..=i`: `ctx·(ctx+1)/2` scores per sequence and head, about half the score
        /// matrix).
        Prefill = "prefill",
        /// Speculative decoding's verify step: the target model scores the `k` draft tokens
        /// of each sequence and one of its own, `T = B·(k+1)` tokens per step (`k` the
        /// `spec_k` field), reading the weights once; each sequence's `k+1` queries attend to
        /// its `ctx` cached positions and causally to each other; the LM head makes all `T`
        /// logits.
        Verify = "verify",
    }
}

impl InferenceStep {
    /// Tokens each sequence brings to a step of this kind: 1 (decode), `ctx` (prefill),
    /// `k + 1` (verify, `k = spec_k`). The one place the tokens of a step are written: a
    /// step's tokens are `B` times this ([`Llm::tokens`], the key line's words, the sweep's
    /// tokens per second).
    pub fn tokens_per_sequence(self, ctx: f64, spec_k: f64) -> f64 {
        match self {
            InferenceStep::Decode => 1.0,
            InferenceStep::Prefill => ctx,
            InferenceStep::Verify => spec_k + 1.0,
        }
    }
}

/// `none`, the zoo's ids in its order, then `custom`: the `draft` field takes all but the last,
/// the `preset` field all but the first (`tests/it/llm.rs` and `tests/it/speculative.rs` check they
/// match [`arch_presets`]).
const ZOO_IDS: &[&str] = &[
    "none",
    "llama3-8b",
    "llama3-70b",
    "llama3.1-8b",
    "llama3.1-70b",
    "llama3.1-405b",
    "llama4-scout",
    "llama4-maverick",
    "mistral-7b",
    "mixtral-8x7b",
    "mixtral-8x22b",
    "qwen2.5-7b",
    "qwen2.5-72b",
    "qwen3-30b-a3b",
    "qwen3-235b-a22b",
    "deepseek-v3",
    "gpt-oss-20b",
    "gpt-oss-120b",
    "gemma3-27b",
    "qwen3-32b",
    "minimax-m2.5",
    "kimi-k2.5",
    "custom",
];

/// The `preset` field's ids: the zoo's, in its order, then `custom`.
pub(super) const PRESET_IDS: &[&str] = match ZOO_IDS.split_first() {
    Some((_, ids)) => ids,
    None => &[],
};

/// The `draft` field's ids: `none`, then the zoo's (`custom` is not a draft: a draft is named
/// by its preset).
const DRAFT_IDS: &[&str] = match ZOO_IDS.split_last() {
    Some((_, ids)) => ids,
    None => &[],
};

/// Tokens one speculative step yields on average with `k` draft tokens each accepted with
/// rate `α` (the longest accepted prefix plus the target's own token):
/// `Σ_{i=0..k} α^i = (1 − α^(k+1)) / (1 − α)`, `k + 1` when `α = 1`.
pub fn expected_tokens(k: f64, accept: f64) -> f64 {
    if accept == 1.0 {
        k + 1.0
    } else {
        (1.0 - libm::pow(accept, k + 1.0)) / (1.0 - accept)
    }
}

/// FLOPs per element of an RMSNorm: square, accumulate, scale by `1/rms`, multiply by `γ`.
pub(crate) const NORM_FLOPS: f64 = 4.0;

/// A transformer inference step (decode or prefill), analysed the chapter's way: decomposed
/// into core operations, each on its own roofline, and summed (see [`crate::workload`]).
/// The architecture is an [`Arch`] (dense or mixture of experts, GQA or multi-head latent
/// attention, sliding windows) held as flat fields (URL keys); [`Llm::arch`] builds it.
///
/// Notation: `L` layers, `D` d_model, `F` ffn width, `H` query heads, `K` KV heads, `h` head
/// dim, `V` vocabulary, `B` sequences, `S` context, `n` tensor-parallel chips, `s_w s_x s_kv`
/// bytes per weight, activation and KV-cache element; `T` tokens per step (`B` in decode,
/// `B·S` in prefill). MoE: `E` experts, `k` per token, `F_e` expert width, `S_e` shared
/// experts, `L_d` dense layers; MLA: `r` KV rank, `r_q` query rank, `d_n`/`d_r`/`d_v`; windows
/// `W` on `L_w` layers. Per chip, parts (per layer × `L` unless noted):
///
/// * embedding gather (once): reads only the `T` rows used, `T·D·(s_w + s_x)` bytes, 0 FLOPs;
/// * attention norm, MLP norm: RMSNorm on `T·D` elements (4 FLOPs each);
/// * QKV projection: matmul `[T,D]·[D,(H+2K)·h]`, split along F (columns) over `n` chips
///   (MLA: the query down/up, KV down and absorbed KV up projections, see [`Mla`]);
/// * attention scores `Q·Kᵀ` and values `P·V`, per sequence (each sequence has its own KV
///   cache, like per-example weights): FLOPs `2·B·(H/n)·h·pairs` each, with `pairs = S`
///   (decode) or `S·(S+1)/2` (prefill, causal); bytes `s_x·T·(H/n)·h` (Q read, or O
///   written) plus `s_kv·B·(K/n)·S·h` (the K or V cache, read once): intensity ≈
///   `2·(H/K)/s_kv` in decode (the GQA ratio in bf16) whatever `B` is. A fused
///   (FlashAttention-style) kernel is assumed: the score matrix stays on chip. Sliding-window
///   layers are their own parts, with `min(S, W)` positions in decode;
/// * output projection `[T,H·h]·[H·h,D]` and MLP down `[T,F]·[F,D]`, split along D (rows)
///   over `n` chips: their partial sums are all-reduced over `link`, `2·(n−1)/n·s_x·T·D`
///   bytes per chip each (two all-reduces per layer), as a D-sharded [`Matmul`];
/// * MLP gate and up (or only up when not gated) `[T,D]·[D,F]`, split along F (on the
///   `L_d` dense layers of an MoE); an MoE layer has a router `[T,D]·[D,E]`, the shared
///   experts, and the routed experts, which read only the `E·(1 − (1 − k/E)^T)` experts the
///   step's tokens hit (see [`Moe::expected_distinct`]);
/// * final norm and LM head `[B,D]·[D,V]` (once; the logits of the last position of each
///   sequence: `B` rows in both phases), split along V.
///
/// Elementwise work besides the norms (activation, residual adds, RoPE, softmax) is assumed
/// fused into neighbouring kernels and not counted, nor are norm weights and biases in
/// traffic. Memory per chip: all weights (every expert resident; the sharded ones `/n`,
/// norms replicated) plus the KV cache ([`Llm::kv_bytes`]).
///
/// The `preset` field is derived: the first zoo preset whose architecture equals the fields
/// (identical architectures — Llama-3 and Llama-3.1 — show the first, `llama3-8b`), else
/// `custom`; setting `preset` to a preset id fills the architecture, `custom` changes
/// nothing. The new fields (MoE, MLA, windows, parameter details, `prompt`, `output`) default
/// to a dense Llama-3 8B, so links written before them keep their meaning.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Llm {
    /// The architecture's fields (`layers dmodel ffn ... norms`; [`ArchFields`]), their keys
    /// at the top level of the link and of the serialised op.
    #[serde(flatten)]
    pub shape: ArchFields,
    /// Batch `B`, in sequences.
    pub b: f64,
    /// Context length `S` (KV-cache positions per sequence; prompt length in prefill).
    pub ctx: f64,
    /// Decode or prefill.
    pub phase: InferenceStep,
    /// Weight dtype.
    pub w: DType,
    /// Activation dtype.
    pub x: DType,
    /// KV-cache dtype.
    pub kv: DType,
    /// Tensor-parallel degree `n` (chips).
    pub tp: f64,
    /// The link the all-reduces use when `tp > 1`.
    pub link: Link,
    /// Serving: prompt length `P` (tokens).
    pub prompt: f64,
    /// Serving: output length `G` (tokens generated per request).
    pub output: f64,
    /// Speculative decoding: the draft model, an index into [`arch_presets`]; `None` for no
    /// speculation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub draft: Option<usize>,
    /// Speculative decoding: draft tokens `k` per step (and the verify phase's `k`).
    pub spec_k: f64,
    /// Speculative decoding: the probability `α` that the target accepts a draft token.
    pub accept: f64,
    /// Serving: the bound on the time per output token for the smallest topology, in ms (as
    /// the field reads; [`Llm::tpot_bound`] in seconds); `None` for memory alone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tpot_max: Option<f64>,
    /// Expert parallelism: `ep` groups of `tp` chips (the step runs on `tp·ep` chips). The
    /// routed experts are split over the groups (`E/ep` per group); attention, dense layers,
    /// shared experts and embeddings are replicated in each group, which serves `B/ep` of the
    /// sequences (data-parallel attention, as DeepSeek-V3 serves); tokens go to their experts'
    /// group and back by two AllToAlls per MoE layer. 1: no expert parallelism.
    pub ep: f64,
    /// Experts split inside each group: the routed experts are spread over `moe_ep` of the
    /// group's `tp` chips, each expert tensor-split over the other `tp/moe_ep` (TensorRT-LLM's
    /// `moe_expert_parallel_size` inside the attention group); 1: every expert split over all
    /// `tp` chips. Under uniform routing a chip holds and reads the same share of expert
    /// weights and does the same share of expert FLOPs either way, so the bound does not
    /// change; what changes is which chips wait for the most loaded one (the fit's `moe`
    /// feature).
    pub moe_ep: f64,
    /// Serving under load: how requests arrive (`batch`, `concurrency`, `rate`).
    pub load: Load,
    /// Serving under load: clients of a closed loop (`load=concurrency`).
    pub c: f64,
    /// Serving under load: Poisson arrival rate in requests per second (`load=rate`).
    pub qps: f64,
    /// Serving: the fraction of each prompt's tokens served from a prefix cache (0 to 1; at 1
    /// the last prompt token is still prefilled).
    pub prefix_hit: f64,
    /// Serving under load: the chunked-prefill budget per step.
    pub chunk: Chunk,
    /// Serving under load: the engine's cap on running sequences; `None` for the engine's
    /// default.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_seqs: Option<f64>,
    /// Serving: the bound on the mean time to first token for the goodput, in ms (as the field
    /// reads; [`Llm::ttft_bound`] in seconds); `None` for no bound.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ttft_max: Option<f64>,
    /// Serving: the engine whose step pattern, defaults and fitted efficiency apply.
    pub engine: Engine,
    /// Serving: the user's own engine, fitted on the steps of their trace (issue 43), in place
    /// of the published fit (the link's `engine=own:<compute>:<memory>:<network>:<step>`; the
    /// step pattern and defaults are then `generic`'s). `None`: the published engine.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub own: Option<crate::profile::OwnEngine>,
    /// Serving tails: the coefficient of variation of prompt lengths (0: every prompt `P`
    /// tokens; else lognormal with mean `P`).
    pub prompt_cv: f64,
    /// Serving tails: the coefficient of variation of output lengths (lognormal, mean `G`).
    pub output_cv: f64,
    /// Serving tails: the simulation's seed (the same seed gives the same figures everywhere).
    pub seed: f64,
    /// Serving tails: the share of requests, in percent, that must meet `ttft_max` and
    /// `tpot_max` for a rate to count toward `goodput_qps_slo`.
    pub slo_pct: f64,
    /// Disaggregated prefill and decode.
    pub disagg: Disagg,
    /// Disaggregated: a prefill worker's tensor-parallel degree; `None` for the op's `tp`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p_tp: Option<f64>,
    /// Disaggregated: a prefill worker's expert-parallel groups; `None` for the op's `ep`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p_ep: Option<f64>,
    /// Disaggregated: a decode worker's tensor-parallel degree; `None` for the op's `tp`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub d_tp: Option<f64>,
    /// Disaggregated: a decode worker's expert-parallel groups; `None` for the op's `ep`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub d_ep: Option<f64>,
    /// Disaggregated: the scenario's chip (counted from 1) the decode workers run on; `None`
    /// for the row's own chip.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub d_chip: Option<f64>,
    /// Disaggregated: the link the prompt's KV crosses from a prefill worker to a decode one.
    pub kv_link: Link,
    /// KV tier: bytes per GPU of host memory holding inactive KV; `None` for no tier.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kv_host: Option<f64>,
    /// KV tier: bytes per GPU of the distinct prefixes in use (the prefix cache's working
    /// set); `None` for the one common prefix of `prefix_hit`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prefix_set: Option<f64>,
}

impl Default for Llm {
    /// Llama-3 8B, decode, B=1, ctx 2048, bf16 everywhere, tp 1; serving prompt 2048, output
    /// 512.
    fn default() -> Self {
        let mut l = Llm::zeroed();
        l.apply_preset(&arch_presets()[0]);
        l
    }
}

impl Llm {
    /// The architecture the fields describe ([`ArchFields::arch`]).
    pub fn arch(&self) -> Arch {
        self.shape.arch()
    }

    /// Sets every architecture field from `a` (batch, context, phase, dtypes, parallelism and
    /// serving lengths are kept); what `a` lacks (experts, MLA, a window) gets the defaults.
    pub fn set_arch(&mut self, a: &Arch) {
        self.shape = ArchFields::of(a);
    }

    /// The architecture's fields, spliced into the op's (`op_fields!`'s `arch`).
    fn arch_fields(&self) -> &ArchFields {
        &self.shape
    }

    fn set_arch_field(&mut self, spec: &FieldSpec, text: &str) -> Result<(), Error> {
        self.shape.set_field(spec, text)
    }

    fn set_arch_num(&mut self, key: &str, x: f64) -> bool {
        self.shape.set_num_raw(key, x)
    }

    /// The defaults of every field but the architecture's base shape (no experts, GQA, no
    /// window; the shape fields at 1 until a preset fills them).
    fn zeroed() -> Llm {
        Llm {
            shape: ArchFields::BLANK,
            b: 1.0,
            ctx: 2048.0,
            phase: InferenceStep::Decode,
            w: DType::Bf16,
            x: DType::Bf16,
            kv: DType::Bf16,
            tp: 1.0,
            link: Link::Ici,
            prompt: 2048.0,
            output: 512.0,
            draft: None,
            spec_k: 4.0,
            accept: 0.8,
            tpot_max: None,
            ep: 1.0,
            moe_ep: 1.0,
            load: Load::Batch,
            c: 1.0,
            qps: 1.0,
            prefix_hit: 0.0,
            chunk: Chunk::Auto,
            max_seqs: None,
            ttft_max: None,
            engine: Engine::Generic,
            own: None,
            prompt_cv: 0.0,
            output_cv: 0.0,
            seed: 1.0,
            slo_pct: 90.0,
            disagg: Disagg::None,
            p_tp: None,
            p_ep: None,
            d_tp: None,
            d_ep: None,
            d_chip: None,
            kv_link: Link::Dcn,
            kv_host: None,
            prefix_set: None,
        }
    }

    /// The zoo preset whose architecture equals this one, if any (the first of identical
    /// ones).
    pub fn preset(&self) -> Option<&'static LlmPreset> {
        // The fields themselves, not only the architecture they make: a field that does not
        // act yet (`shared_experts` without `experts`) still makes the op differ from the
        // preset, so setting the preset's own id back changes nothing (FUZZ_SEED=6, train
        // case 22661).
        arch_presets()
            .iter()
            .find(|p| ArchFields::of(&p.arch) == self.shape)
    }

    /// The value of the `preset` field: a preset id or `custom`.
    pub fn preset_id(&self) -> &'static str {
        self.preset().map_or("custom", |p| p.id)
    }

    /// Sets the architecture fields from a preset (batch, context, phase, dtypes and
    /// parallelism are kept).
    pub fn apply_preset(&mut self, p: &LlmPreset) {
        self.set_arch(&p.arch);
    }

    /// Sets the `preset` field: a preset id fills the architecture, `custom` changes nothing.
    fn set_preset(&mut self, spec: &FieldSpec, text: &str) -> Result<(), Error> {
        if let Some(p) = arch_presets().get(parse_choice(spec, text)?) {
            self.apply_preset(p);
        }
        Ok(())
    }

    /// Tokens processed per step: `B` (decode) or `B·ctx` (prefill).
    pub fn tokens(&self) -> f64 {
        self.b * self.phase.tokens_per_sequence(self.ctx, self.spec_k)
    }

    /// The draft model (a zoo preset), if speculative decoding is on.
    pub fn draft_preset(&self) -> Option<&'static LlmPreset> {
        self.draft.and_then(|i| arch_presets().get(i))
    }

    /// The value of the `draft` field: a preset id or `none`.
    fn draft_id(&self) -> &'static str {
        self.draft_preset().map_or("none", |p| p.id)
    }

    /// Sets the `draft` field: `none` or a preset id (an unknown id names the choices).
    fn set_draft(&mut self, spec: &FieldSpec, text: &str) -> Result<(), Error> {
        self.draft = parse_choice(spec, text)?.checked_sub(1);
        Ok(())
    }

    /// The bound on the time per output token (`tpot_max`), seconds.
    pub fn tpot_bound(&self) -> Option<f64> {
        self.tpot_max.map(|ms| ms / 1e3)
    }

    /// The `tpot_max` field in ms (its one value, index 0).
    fn tpot_max_ms(&self, _i: usize) -> Option<f64> {
        self.tpot_max
    }

    fn set_tpot_max_ms(&mut self, _i: usize, ms: f64) {
        self.tpot_max = Some(ms);
    }

    fn clear_tpot_max(&mut self) {
        self.tpot_max = None;
    }

    /// The bound on the mean time to first token (`ttft_max`), seconds.
    pub fn ttft_bound(&self) -> Option<f64> {
        self.ttft_max.map(|ms| ms / 1e3)
    }

    fn ttft_max_ms(&self, _i: usize) -> Option<f64> {
        self.ttft_max
    }

    fn set_ttft_max_ms(&mut self, _i: usize, ms: f64) {
        self.ttft_max = Some(ms);
    }

    fn clear_ttft_max(&mut self) {
        self.ttft_max = None;
    }

    fn max_seqs_of(&self, _i: usize) -> Option<f64> {
        self.max_seqs
    }

    fn set_max_seqs(&mut self, _i: usize, n: f64) {
        self.max_seqs = Some(n);
    }

    fn clear_max_seqs(&mut self) {
        self.max_seqs = None;
    }

    /// The value of the `chunk` field: `auto`, `none` or the budget in tokens.
    fn chunk_text(&self) -> String {
        self.chunk.text()
    }

    /// The `engine` field's text: the engine's id, or the own engine's terms
    /// (`own:1.62:1.29:1:4.12e-4`).
    fn engine_text(&self) -> String {
        match &self.own {
            Some(e) => e.format(),
            None => self.engine.as_str().to_string(),
        }
    }

    /// Reads the `engine` field: an engine's id, or `own:<terms>` (rounded to the link's 3
    /// significant digits, so the link reads back to the same terms).
    fn set_engine(&mut self, spec: &FieldSpec, text: &str) -> Result<(), Error> {
        let t = text.trim();
        if t.starts_with("own") {
            let e = crate::profile::OwnEngine::parse(t)?;
            self.own = Some(e.rounded());
            self.engine = Engine::Generic;
            return Ok(());
        }
        self.engine = crate::ids::IdEnum::from_id(t).ok_or_else(|| {
            Error::invalid(
                spec.key,
                t,
                "must be one of generic, vllm, sglang, trtllm, or own:<compute>:<memory>:<network>:\
                 <step> (your own engine, fitted on a trace's steps in the measured-profile panel)",
            )
        })?;
        self.own = None;
        Ok(())
    }

    /// The user's own engine, when the `engine` field carries one.
    pub fn own_engine(&self) -> Option<crate::profile::OwnEngine> {
        self.own
    }

    fn set_chunk(&mut self, spec: &FieldSpec, text: &str) -> Result<(), Error> {
        self.chunk = Chunk::parse(spec, text)?;
        Ok(())
    }

    fn prompt_cv_text(&self) -> String {
        format_exact(self.prompt_cv)
    }

    fn set_prompt_cv(&mut self, spec: &FieldSpec, text: &str) -> Result<(), Error> {
        self.prompt_cv = parse_cv(spec, text)?;
        Ok(())
    }

    fn output_cv_text(&self) -> String {
        format_exact(self.output_cv)
    }

    fn set_output_cv(&mut self, spec: &FieldSpec, text: &str) -> Result<(), Error> {
        self.output_cv = parse_cv(spec, text)?;
        Ok(())
    }

    fn disagg_text(&self) -> String {
        self.disagg.text()
    }

    fn set_disagg(&mut self, spec: &FieldSpec, text: &str) -> Result<(), Error> {
        self.disagg = Disagg::parse(spec, text)?;
        Ok(())
    }

    /// The optional numbers of the topology and the host tier (`opt_num`, by [`opt`] index).
    fn tail_slot(&mut self, i: usize) -> &mut Option<f64> {
        match i {
            opt::P_TP => &mut self.p_tp,
            opt::P_EP => &mut self.p_ep,
            opt::D_TP => &mut self.d_tp,
            opt::D_EP => &mut self.d_ep,
            opt::D_CHIP => &mut self.d_chip,
            opt::KV_HOST => &mut self.kv_host,
            _ => &mut self.prefix_set,
        }
    }

    fn tail_opt(&self, i: usize) -> Option<f64> {
        match i {
            opt::P_TP => self.p_tp,
            opt::P_EP => self.p_ep,
            opt::D_TP => self.d_tp,
            opt::D_EP => self.d_ep,
            opt::D_CHIP => self.d_chip,
            opt::KV_HOST => self.kv_host,
            _ => self.prefix_set,
        }
    }

    fn set_tail_opt(&mut self, i: usize, x: f64) {
        *self.tail_slot(i) = Some(x);
    }

    fn clear_p_tp(&mut self) {
        self.p_tp = None;
    }

    fn clear_p_ep(&mut self) {
        self.p_ep = None;
    }

    fn clear_d_tp(&mut self) {
        self.d_tp = None;
    }

    fn clear_d_ep(&mut self) {
        self.d_ep = None;
    }

    fn clear_d_chip(&mut self) {
        self.d_chip = None;
    }

    fn clear_kv_host(&mut self) {
        self.kv_host = None;
    }

    fn clear_prefix_set(&mut self) {
        self.prefix_set = None;
    }

    /// Norm weights (replicated on every chip): `norms·L·D + D` (Llama: `2·L·D + D`).
    pub fn norm_params(&self) -> f64 {
        self.arch().params().norms
    }

    /// Parameters split by tensor parallelism: all but the norms.
    pub fn sharded_params(&self) -> f64 {
        let p = self.arch().params();
        p.total() - p.norms
    }

    /// All parameters, every expert included (Llama-3 8B: 8,030,261,248; 70B:
    /// 70,553,706,496). See [`Arch::params`].
    pub fn params(&self) -> f64 {
        self.arch().params_total()
    }

    /// Parameters one token uses (the total for a dense model): [`Arch::params_active`].
    pub fn active_params(&self) -> f64 {
        self.arch().params_active()
    }

    /// Weight bytes resident per chip: `s_w·(sharded/n + norms)` (every expert resident),
    /// the routed experts further split over the `ep` groups: `s_w·((sharded − routed)/n +
    /// routed/(n·ep) + norms)`.
    pub fn weight_bytes(&self) -> f64 {
        let p = self.arch().params();
        // Without expert parallelism, the sum as published before `ep` existed: splitting the
        // routed experts out of it would round differently in the last bit.
        if self.ep == 1.0 {
            return self.w.bytes() * ((p.total() - p.norms) / self.tp + p.norms);
        }
        let routed = p.routed_experts;
        self.w.bytes()
            * ((p.total() - p.norms - routed) / self.tp + routed / (self.tp * self.ep) + p.norms)
    }

    /// Chips the step runs on: `tp·ep`.
    pub fn chips(&self) -> f64 {
        self.tp * self.ep
    }

    /// KV-cache bytes of one sequence per chip at context `S`: GQA `2·K·h·s_kv·((L − L_w)·S +
    /// L_w·min(S, W)) / n` (the KV heads split over the `n` chips); MLA `(r + d_r)·s_kv·(...)`,
    /// not divided: every chip's heads read the one shared latent, so it is replicated.
    pub fn kv_bytes_per_seq(&self, ctx: f64) -> f64 {
        let a = self.arch();
        let per = a.kv_bytes(ctx, self.kv.bytes());
        if a.mla.is_some() {
            per
        } else {
            per / self.tp
        }
    }

    /// KV-cache bytes per chip: `(B/ep) ·` [`Llm::kv_bytes_per_seq`] (dense Llama:
    /// `2·L·K·h·S·B·s_kv / n`); with expert parallelism each group holds its `B/ep` sequences.
    pub fn kv_bytes(&self) -> f64 {
        self.b / self.ep * self.kv_bytes_per_seq(self.ctx)
    }

    /// The largest batch whose weights and KV cache at context `ctx` fit in `capacity` bytes
    /// per chip: `ep·⌊(capacity − weights) / KV per sequence⌋` (each of the `ep` groups holds
    /// its own sequences), 0 when the weights alone do not fit (or a sequence's cache does not
    /// fit beside them).
    pub fn max_batch(&self, capacity: f64, ctx: f64) -> f64 {
        let free = capacity - self.weight_bytes();
        let per = self.kv_bytes_per_seq(ctx);
        if free > 0.0 && per > 0.0 {
            // Each of the ep groups holds its own sequences' caches.
            (free / per).floor() * self.ep
        } else {
            0.0
        }
    }

    /// The dtype the projections compute in (default rule of `x × w`): the peak the
    /// aggregate is reported against.
    pub fn compute_dtype(&self) -> DType {
        DType::compute_default(self.x, self.w)
    }

    fn name(&self) -> String {
        match self.preset() {
            Some(p) => p.name.to_string(),
            None if self.shape.experts <= 0.0
                && self.shape.kv_rank <= 0.0
                && self.shape.window <= 0.0 =>
            {
                format!(
                    "LLM (L={}, D={}, F={}{}, H={}, K={}, h={}, V={})",
                    n(self.shape.layers),
                    n(self.shape.dmodel),
                    n(self.shape.ffn),
                    if self.shape.gated { " gated" } else { "" },
                    n(self.shape.heads),
                    n(self.shape.kv_heads),
                    n(self.shape.head_dim),
                    n(self.shape.vocab)
                )
            }
            None => format!("LLM ({})", self.arch().describe()),
        }
    }

    /// Checks the MoE, MLA and window fields against each other and the layers (the other
    /// fields are checked by their specs): `top_k ≤ experts`, `dense_layers < layers`,
    /// `window_layers ≤ layers`, MLA dimensions.
    pub(super) fn check_arch(&self) -> Result<(), Error> {
        if self.ep > 1.0 {
            if self.shape.experts <= 0.0 {
                return Err(Error::invalid(
                    "ep",
                    n(self.ep),
                    "expert parallelism needs a mixture of experts (experts > 0)",
                ));
            }
            if self.shape.experts % self.ep != 0.0 {
                return Err(Error::invalid(
                    "ep",
                    n(self.ep),
                    format!(
                        "must divide the routed experts E = {} (each group holds E/ep of them)",
                        n(self.shape.experts)
                    ),
                ));
            }
        }
        if self.moe_ep > 1.0 {
            let e = self.shape.experts;
            let bad = |why: String| Err(Error::invalid("moe_ep", n(self.moe_ep), why));
            if e <= 0.0 {
                return bad("splitting experts needs a mixture of experts (experts > 0)".into());
            }
            if self.tp % self.moe_ep != 0.0 {
                return bad(format!(
                    "must divide tp = {} (the experts are spread over moe_ep of each group's tp chips)",
                    n(self.tp)
                ));
            }
        }
        self.shape.check_moe()?;
        // Grouped-query attention: each KV head serves a whole group of query heads (MLA has
        // no KV heads: its cache is the latent).
        if self.shape.kv_rank <= 0.0 {
            check_kv_heads(self.shape.heads, self.shape.kv_heads)?;
        }
        // Tensor parallelism splits the query heads across the chips (KV heads fewer than the
        // chips are replicated).
        check_tp_heads(self.shape.heads, self.tp)?;
        self.shape.check_mla_window()?;
        Ok(())
    }
}
impl OpBehavior for Llm {
    op_fields! {
        "preset" => derived(preset_id, set_preset): choice(
            "model",
            PRESET_IDS,
            "llama3-8b",
            "architecture preset (fills layers … vocab); editing any of those makes it custom",
            "a model preset",
        ),
        "b" => num(b): size(
            "B (sequences)",
            "1",
            "batch B in sequences: decode processes T = B tokens per step, prefill T = B·ctx",
        ).slider(SIZES),
        "ctx" => num(ctx): size(
            "context",
            "2048",
            "context length S: KV-cache positions read per sequence in decode; prompt length in prefill",
        ).slider(SIZES),
        "phase" => choice(phase): choice(
            "phase",
            InferenceStep::IDS,
            "decode",
            "decode: one new token per sequence (T = B); prefill: the whole prompt (T = B·ctx), causal attention",
            "a phase",
        ),
        "w" => dtype(w): dtype("weights", "bf16", "weight dtype: s_w bytes per parameter"),
        "x" => dtype(x): dtype("activations", "bf16", "activation dtype: s_x bytes per element"),
        "kv" => dtype(kv): dtype(
            "KV cache",
            "bf16",
            "KV-cache dtype: 2·L·K·h·S·s_kv bytes per sequence",
        ),
        "tp" => num(tp): integer(
            "tensor parallel",
            "1",
            (1.0, 1e6),
            "a whole number of chips",
            "tensor-parallel degree n: weights, heads and KV cache split n ways; 2 all-reduces of 2·(n−1)/n·s_x·T·D bytes per chip per layer",
        ).slider(CHIPS),
        "link" => choice(link): choice(
            "link",
            Link::IDS,
            "ici",
            "link for the tensor-parallel all-reduces: ici/nvlink use the peer bandwidth, pcie the host link, dcn the network",
            "a link",
        );
        arch(crate::field::MAX_DIM);
        "prompt" => num(prompt): size(
            "prompt",
            "2048",
            "serving: prompt length P; time to first token is a prefill of B prompts of P tokens",
        ).slider(SIZES),
        "output" => num(output): size(
            "output",
            "512",
            "serving: tokens generated per request G; time per output token is a decode step at context P + G/2",
        ).slider(SIZES),
        "draft" => derived(draft_id, set_draft): choice(
            "draft model",
            DRAFT_IDS,
            "none",
            "speculative decoding (part 7): a smaller model of the zoo proposes spec_k tokens per step, the target verifies them in one pass (none: no speculation)",
            "none or a model preset",
        ).folds(),
        "spec_k" => num(spec_k): integer(
            "draft tokens k",
            "4",
            (1.0, 64.0),
            "a whole number of draft tokens",
            "speculative decoding: k draft tokens per step; the verify step scores T = B·(k+1) tokens (also phase=verify's k)",
        ).folds(),
        "accept" => num(accept): number(
            "acceptance rate",
            "0.8",
            (0.0, 1.0),
            "an acceptance rate",
            "speculative decoding: the rate α at which the target accepts a draft token; a step yields (1 − α^(k+1)) / (1 − α) tokens on average",
        ).folds(),
        "tpot_max" => opt_num(tpot_max_ms, set_tpot_max_ms, clear_tpot_max, 0): opt_number(
            "TPOT bound (ms)",
            "none",
            (1e-6, 1e9),
            "a time in ms, or none",
            "serving: the smallest topology (min_chips) must also decode with a time per output token at most this many ms (none: memory alone)",
        ).folds(),
        "ep" => num(ep): integer(
            "expert parallel",
            "1",
            (1.0, 1e6),
            "a whole number of expert groups",
            "expert parallelism: ep groups of tp chips (tp·ep chips in all); routed experts split E/ep per group, attention and dense layers replicated, each group serving B/ep sequences (on average); 2 AllToAlls per MoE layer move each token's top-k activations to their experts and back",
        ).folds().slider(CHIPS),
        "moe_ep" => num(moe_ep): integer(
            "experts split in group",
            "1",
            (1.0, 1e6),
            "a whole number of chips that divides tp",
            "experts spread over moe_ep of each group's tp chips, each expert split over tp/moe_ep of them (1: every expert split over all tp); under uniform routing the bound is the same, the load balance is not",
        ).folds(),
        "load" => choice(load): choice(
            "load",
            Load::IDS,
            "batch",
            "serving: batch = the static batch of B prompts (parts 7, 8); concurrency = a closed loop of c clients; rate = Poisson arrivals at qps requests/s, with continuous batching, chunked prefill and the engine's caps",
            "a load",
        ).folds(),
        "c" => num(c): integer(
            "clients c",
            "1",
            (1.0, MAX_CLIENTS),
            "a whole number of clients",
            "load=concurrency: c clients, each sending its next request when its last one ends",
        ).folds(),
        "qps" => num(qps): number(
            "request rate (req/s)",
            "1",
            (1e-6, MAX_QPS),
            "a request rate in requests per second",
            "load=rate: Poisson arrivals at qps requests per second (a rate past saturation is valid: the row says where it saturates)",
        ).folds(),
        "prefix_hit" => num(prefix_hit): number(
            "prefix-cache hit rate",
            "0",
            (0.0, 1.0),
            "a fraction of prompt tokens",
            "serving: the fraction of each prompt's tokens served from a prefix cache (one common prefix, stored once): their projections and MLP are skipped, new tokens' attention still reads them; at 1 the last token is still prefilled",
        ).folds(),
        "chunk" => derived(chunk_text, set_chunk): chunk_spec(),
        "max_seqs" => opt_num(max_seqs_of, set_max_seqs, clear_max_seqs, 0): opt_integer(
            "sequence cap",
            "auto",
            (1.0, MAX_CLIENTS),
            "a whole number of sequences, or auto",
            "serving under load: the engine's cap on running sequences (vLLM max_num_seqs, SGLang max_running_requests, TensorRT-LLM max_batch_size); auto: the engine's default",
        ).folds(),
        "ttft_max" => opt_num(ttft_max_ms, set_ttft_max_ms, clear_ttft_max, 0): opt_number(
            "TTFT bound (ms)",
            "none",
            (1e-6, 1e9),
            "a time in ms, or none",
            "serving: goodput is the largest request rate whose mean time to first token is at most this many ms and mean time per output token at most tpot_max (none: no goodput)",
        ).folds(),
        "engine" => derived(engine_text, set_engine): choice(
            "engine",
            Engine::IDS,
            "generic",
            "serving: the engine whose step pattern, defaults (chunk budget, sequence cap, memory fraction) and fitted efficiency apply; generic: the pattern of the mixed-step engines and the fit pooled over engines; own:<compute>:<memory>:<network>:<step>: your own engine, fitted on a trace's steps (generic's pattern and defaults)",
            "an engine",
        ).folds(),
        "prompt_cv" => derived(prompt_cv_text, set_prompt_cv): cv_spec(
            "prompt length CV",
            "serving under load, simulated: the coefficient of variation of prompt lengths, drawn lognormal with mean prompt (0: every prompt the same)",
        ),
        "output_cv" => derived(output_cv_text, set_output_cv): cv_spec(
            "output length CV",
            "serving under load, simulated: the coefficient of variation of output lengths, drawn lognormal with mean output (0: every output the same)",
        ),
        "seed" => num(seed): integer(
            "simulation seed",
            "1",
            (0.0, MAX_SEED),
            "a whole number",
            "serving under load: the seed of the simulated requests' arrivals, lengths and start offsets; the same seed gives the same percentiles everywhere",
        ).folds(),
        "slo_pct" => num(slo_pct): number(
            "SLO share (%)",
            "90",
            (1.0, 100.0),
            "a percentage of requests",
            "serving under load: goodput_qps_slo is the largest rate at which at least this share of requests meets both ttft_max and its own TPOT ≤ tpot_max",
        ).folds(),
        "disagg" => derived(disagg_text, set_disagg): disagg_spec(),
        "p_tp" => opt_num(tail_opt, set_tail_opt, clear_p_tp, opt::P_TP): opt_integer(
            "prefill tp",
            "auto",
            (1.0, 1e6),
            "a whole number of chips, or auto",
            "disaggregated: each prefill worker's tensor-parallel degree (auto: the op's tp)",
        ).folds(),
        "p_ep" => opt_num(tail_opt, set_tail_opt, clear_p_ep, opt::P_EP): opt_integer(
            "prefill ep",
            "auto",
            (1.0, 1e6),
            "a whole number of expert groups, or auto",
            "disaggregated: each prefill worker's expert-parallel groups (auto: the op's ep)",
        ).folds(),
        "d_tp" => opt_num(tail_opt, set_tail_opt, clear_d_tp, opt::D_TP): opt_integer(
            "decode tp",
            "auto",
            (1.0, 1e6),
            "a whole number of chips, or auto",
            "disaggregated: each decode worker's tensor-parallel degree (auto: the op's tp)",
        ).folds(),
        "d_ep" => opt_num(tail_opt, set_tail_opt, clear_d_ep, opt::D_EP): opt_integer(
            "decode ep",
            "auto",
            (1.0, 1e6),
            "a whole number of expert groups, or auto",
            "disaggregated: each decode worker's expert-parallel groups (auto: the op's ep)",
        ).folds(),
        "d_chip" => opt_num(tail_opt, set_tail_opt, clear_d_chip, opt::D_CHIP): opt_integer(
            "decode chip (n-th)",
            "auto",
            (1.0, 1e3),
            "the position of one of the scenario's chips (from 1), or auto",
            "disaggregated: the decode workers run on the scenario's n-th chip, counted from 1 (auto: the row's own chip)",
        ).folds(),
        "kv_link" => choice(kv_link): choice(
            "KV transfer link",
            Link::IDS,
            "dcn",
            "disaggregated: the link a prompt's KV crosses from its prefill worker to its decode worker, per chip: nvlink/ici the peer bandwidth, pcie the host link, dcn the network",
            "a link",
        ).folds(),
        "kv_host" => opt_num(tail_opt, set_tail_opt, clear_kv_host, opt::KV_HOST): opt_number(
            "host KV tier (bytes/GPU)",
            "none",
            (1.0, 1e18),
            "a size in bytes, or none",
            "KV tier: bytes of host memory per GPU holding inactive KV (cached prefixes, preempted sequences) over the host link (PCIe, or NVLink-C2C on Grace systems); none: no tier",
        ).unit(Unit::Bytes).folds(),
        "prefix_set" => opt_num(tail_opt, set_tail_opt, clear_prefix_set, opt::PREFIX_SET): opt_number(
            "prefix working set (bytes/GPU)",
            "none",
            (1.0, 1e18),
            "a size in bytes, or none",
            "KV tier: bytes per GPU of distinct prefixes in use; the hits served are capped by what HBM and the host tier hold (none: the one common prefix of prefix_hit)",
        ).unit(Unit::Bytes).folds(),
    }
    fn check_consistency(&self) -> Result<(), Error> {
        self.check_arch()?;
        self.check_workers()
    }
    fn traits(&self) -> Traits {
        Traits {
            serves: true,
            ..Traits::default()
        }
    }
    fn short_name(&self) -> Option<String> {
        let model = self.get("preset").filter(|p| p != "custom");
        Some(format!(
            "{} {}",
            model.as_deref().unwrap_or("custom LLM"),
            self.get("phase").unwrap_or_default()
        ))
    }
    fn batch_limit(&self, capacity: f64) -> Option<f64> {
        Some(self.max_batch(capacity, self.ctx))
    }
    fn ridge_notes(&self, ridge: f64) -> Vec<String> {
        self.arch()
            .moe
            .map(|moe| {
                format!(
                    "Mixture of experts: {}",
                    moe.critical_line(ridge, self.w.bytes())
                )
            })
            .into_iter()
            .collect()
    }
    fn workload(&self) -> Option<MeasureKind> {
        Some(match self.phase {
            InferenceStep::Prefill => MeasureKind::Prefill,
            InferenceStep::Decode | InferenceStep::Verify => MeasureKind::Decode,
        })
    }
    fn cost(&self, chip: &Chip) -> Result<Cost, Error> {
        self.composite_parts().summed_cost(chip)
    }
    fn describe(&self) -> String {
        let mut s = format!(
            "{} {}: B={}, ctx {}, T={} tokens per step, w {} / x {} / kv {}",
            self.name(),
            self.phase.as_str(),
            n(self.b),
            n(self.ctx),
            n(self.tokens()),
            self.w,
            self.x,
            self.kv
        );
        if self.tp > 1.0 {
            s.push_str(&format!(
                ", tensor parallel over {} chips ({})",
                n(self.tp),
                self.link.as_str().to_ascii_uppercase()
            ));
        }
        if self.ep > 1.0 {
            s.push_str(&format!(
                ", expert parallel over {} groups ({} chips in all)",
                n(self.ep),
                n(self.chips())
            ));
        }
        s
    }
    fn flops_formula(&self) -> (String, String) {
        ("Σ repeat·FLOPs of the parts".into(), String::new())
    }
    fn bytes_formula(&self, _resource: Resource) -> Option<(String, String)> {
        None
    }
    fn notes(&self, _chip: &str, out: &mut Vec<String>) {
        if let Some(p) = self.preset() {
            out.push(format!("{}: {}.", p.name, p.source));
        }
        out.push(format!(
            "Parameters: {} ({}), of which the embedding table's V·D = {} are only gathered (T rows per step).",
            format_exact(self.params()),
            format_quantity(self.params(), Unit::Count),
            format_exact(self.shape.vocab * self.shape.dmodel)
        ));
        self.arch_notes(out);
        out.push(match self.phase {
            InferenceStep::Decode => format!(
                "Decode: one new token per sequence, T = B = {} tokens per step; attention reads the KV cache of S = {} positions per sequence.",
                n(self.b),
                n(self.ctx)
            ),
            InferenceStep::Prefill => format!(
                "Prefill: the whole prompt, T = B·S = {}·{} = {} tokens per step; causal attention computes S·(S+1)/2 scores per sequence and head (about half the score matrix); the LM head runs on the last position of each sequence (B rows).",
                n(self.b),
                n(self.ctx),
                n(self.tokens())
            ),
            InferenceStep::Verify => format!(
                "Verify (speculative decoding): the target scores k = {k} draft tokens and one of its own per sequence, T = B·(k+1) = {}·{} = {} tokens per step, reading the weights once; each sequence's k+1 queries attend to its S = {} cached positions and causally to each other; the LM head makes all T logits.",
                n(self.b),
                n(self.spec_k + 1.0),
                n(self.tokens()),
                n(self.ctx),
                k = n(self.spec_k),
            ),
        });
        if let Some(d) = self.draft_preset() {
            let (a, k) = (self.accept, self.spec_k);
            out.push(format!(
                "Speculative decoding (serving row): {} drafts k = {} tokens per step ({} decode steps of the draft at B and context P + G/2, on the same chips), the target verifies them in one step of T = B·(k+1) tokens (phase verify); with each draft token accepted with rate α = {}, a step yields E[tokens] = (1 − α^(k+1)) / (1 − α) = {} tokens, so tpot_spec = (k · draft step + verify step) / E[tokens].",
                d.name,
                n(k),
                n(k),
                format_sig(a, 4),
                format_sig(expected_tokens(k, a), 4),
            ));
        }
        out.push(
            "Attention is a fused kernel (FlashAttention-style): Q and the K/V cache are read once and O written once; the score matrix stays on chip. Other elementwise work (activation, residual adds, RoPE, softmax) is assumed fused and not counted."
                .to_string(),
        );
        if self.tp > 1.0 {
            out.push(format!(
                "Tensor parallel over n = {nn} chips ({link}): QKV, gate/up and the LM head are split along F (columns), the output and down projections along D (rows); their partial sums are all-reduced over {link}: 2·(n−1)/n·s_x·T·D bytes per chip, twice per layer (each lets its all-reduce overlap its matmul, as a D-sharded matmul does). Heads and the KV cache split n ways; norms and the embedding gather are replicated. Values are per chip.",
                nn = n(self.tp),
                link = self.link.as_str().to_ascii_uppercase()
            ));
        }
        if self.ep > 1.0 {
            let e = self.shape.experts;
            out.push(format!(
                "Expert parallel over ep = {ep} groups of {nn} chip(s), {chips} chips in all (values are per chip): each group holds E/ep = {e_g} of the E = {e} routed experts and a copy of everything else, and serves B/ep = {b_g} of the sequences through attention and the dense layers (T/ep tokens, their KV caches). Under uniform routing a group receives T·k/ep token slots and reads its experts hit, E/ep·(1 − (1 − k/E)^T) = 1/ep of the model's. Per MoE layer, an AllToAll dispatches each token's k activations to their experts' groups and another combines the results: V = ep·(T/ep)·k·D·s_x/n bytes each, of which every chip sends the (ep − 1)/ep that leaves its group, (ep − 1)·V/ep² bytes over {link} (the switched AllToAll, (n−1)·V/(n²·W); sharding.md, \"Our final communication primitive: the AllToAll\").",
                ep = n(self.ep),
                nn = n(self.tp),
                chips = n(self.chips()),
                e_g = n(e / self.ep),
                e = n(e),
                b_g = format_sig(self.b / self.ep, 4),
                link = self.link.as_str().to_ascii_uppercase()
            ));
        }
    }
    fn critical_dim(&self) -> Option<&'static str> {
        Some("b")
    }
    fn model(&self) -> Evaluation<'_> {
        Evaluation::Composite(self.composite_parts())
    }
}

impl Llm {
    fn composite_parts(&self) -> Composite {
        Composite {
            affine: self.shape.experts <= 0.0,
            parts: self.parts(),
            tokens: self.tokens(),
            dtype: self.compute_dtype(),
            weights: self.weight_bytes(),
            kv: self.kv_bytes(),
            unit: "token",
        }
    }
}
