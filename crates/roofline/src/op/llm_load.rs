//! The `llm` op's serving-under-load keys (issue 40), as plain data: how requests reach the
//! engine (`load`, `c`, `qps`), what a prefix cache serves (`prefix_hit`), the engine and its
//! scheduler's budgets (`engine`, `chunk`, `max_seqs`), the latency bound a goodput is held to
//! (`ttft_max`), and experts split inside the tensor-parallel group (`moe_ep`). Each key's
//! default leaves a link without it meaning what it meant before the key existed: `load=batch`
//! is the static batch of parts 7 and 8, `chunk` and `max_seqs` follow the engine, `moe_ep=1`
//! splits every expert over the whole group. What they do to the figures is in
//! `crate::serving` (the model) and `docs/serving.md` (its equations and sources).

use crate::field::{FieldSpec, FieldType};
use crate::units::{format_exact, parse_quantity};
use serde::{Deserialize, Serialize};

use crate::error::Error;

id_enum! {
    /// How requests arrive (ids `batch`, `concurrency`, `rate`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
    pub enum Load {
        /// The static batch of parts 7 and 8: `B` prompts prefilled together, then decoded
        /// together (today's serving row, bit for bit).
        #[default]
        Batch = "batch",
        /// A closed loop: `c` clients, each sending its next request when its last one ends
        /// (`vllm bench serve --max-concurrency`, genai-perf, aiperf `--concurrency`).
        Concurrency = "concurrency",
        /// An open loop: Poisson arrivals at `qps` requests per second.
        Rate = "rate",
    }
}

id_enum! {
    /// The serving engine whose step pattern, defaults and fitted efficiency a row takes (ids
    /// `generic`, `vllm`, `sglang`, `trtllm`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
    pub enum Engine {
        /// No engine in particular: the pattern of the mixed-step engines and the fit pooled
        /// over every engine.
        #[default]
        Generic = "generic",
        /// vLLM (V1 engine).
        Vllm = "vllm",
        /// SGLang.
        Sglang = "sglang",
        /// TensorRT-LLM (PyTorch backend, `trtllm-serve`).
        Trtllm = "trtllm",
    }
}

/// The chunked-prefill token budget per step (`chunk`): the engine's default (`auto`), whole
/// prompts (`none`: a prompt is never split), or a budget of tokens per step that counts the
/// step's decode tokens and prefill tokens together (vLLM's `max_num_batched_tokens`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
pub enum Chunk {
    /// The engine's own default.
    #[default]
    Auto,
    /// Whole prompts: no chunking.
    Whole,
    /// At most this many tokens (decode and prefill together) per step.
    Tokens(f64),
}

/// Largest `c` (clients) and `max_seqs` (running sequences).
pub const MAX_CLIENTS: f64 = 1e7;
/// Largest `qps` (requests per second).
pub const MAX_QPS: f64 = 1e9;
/// Largest `chunk` (tokens per step).
pub const MAX_CHUNK: f64 = 1e9;

/// The `chunk` field's words: what it must be.
pub(super) const CHUNK_WHAT: &str =
    "a token budget per step (a whole number from 1 to 1e9), none (whole prompts) or auto (the engine's default)";

impl Chunk {
    /// The field's text: `auto`, `none` or the budget.
    pub fn text(self) -> String {
        match self {
            Chunk::Auto => "auto".into(),
            Chunk::Whole => "none".into(),
            Chunk::Tokens(t) => format_exact(t),
        }
    }

    /// Parses the field's text (`auto`, `none`, or a whole number of tokens from 1 to 1e9;
    /// `8k` reads as 8000). The error names the field and what it takes.
    pub fn parse(spec: &FieldSpec, text: &str) -> Result<Chunk, Error> {
        let t = text.trim();
        if t.is_empty() || t.eq_ignore_ascii_case("auto") {
            return Ok(Chunk::Auto);
        }
        if t.eq_ignore_ascii_case("none") {
            return Ok(Chunk::Whole);
        }
        let bad = || Error::invalid(spec.key, t, format!("must be {CHUNK_WHAT}"));
        let v = parse_quantity(t).map_err(|_| bad())?;
        if v.is_finite() && (1.0..=MAX_CHUNK).contains(&v) && v.fract() == 0.0 {
            Ok(Chunk::Tokens(v + 0.0))
        } else {
            Err(bad())
        }
    }
}

/// The spec of the `chunk` field: structured text read by [`Chunk::parse`] (a number, or the
/// words `auto`, its default, and `none`), so it is not swept.
pub(super) const fn chunk_spec(key: &'static str) -> FieldSpec {
    FieldSpec {
        key,
        label: "chunk budget (tokens)",
        ty: FieldType::Text,
        default: "auto",
        help: "serving under load: the chunked-prefill budget of tokens per step, decode and prefill tokens together (vLLM's max_num_batched_tokens); none: whole prompts; auto: the engine's default. Under load=batch it does not apply",
        what: CHUNK_WHAT,
        min: 0.0,
        max: 0.0,
        none: None,
        slider: None,
        unit: None,
        folds: true,
    }
}
