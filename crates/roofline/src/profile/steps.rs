//! Serving engines' step annotations (issue 43): the name of the `record_function` span an
//! engine wraps around each forward step, read into that step's batch and aggregates. Pure
//! functions of the name, one dialect per engine, each confirmed from the engine's source:
//!
//! * **SGLang** (`python/sglang/srt/model_executor/step_span_utils.py`, sgl-project/sglang at
//!   2502c66c): `step[<MODE> bs=<n>]`, an `EXTEND` step with ` toks=<new tokens>`; with
//!   `roofline_annotations` on (`/start_profile` body `{"roofline_annotations": true}`) a suffix
//!   of per-phase aggregates, `c_` for prefill (context) chunks and `g_` for decode
//!   (generation): `step[EXTEND bs=2 toks=14721 c_sq=… c_sqsq=… c_sqsk=… c_sk=…]`,
//!   `step[DECODE bs=64 g_sq=… g_sqsq=… g_sqsk=… g_sk=…]`, `step[MIXED bs=… c=<n> g=<n> c_sq=…
//!   c_sk=… c_sqsq=… c_sqsk=… g_sq=… …]`, `step[TARGET_VERIFY bs=… g_…]`. A draft model's
//!   steps are prefixed `draft ` and an idle step is `step[IDLE bs=0]`.
//! * **vLLM** (`vllm/v1/worker/gpu_worker.py`, `Worker.annotate_profile`): natively
//!   `execute_context_<n>(<tokens>)_generation_<n>(<tokens>)` (requests and new tokens of each
//!   phase; `execute_new_<n>_cached_<n>` in older versions); with
//!   `--profiler-config.detailed_trace_annotation True` (vllm-project/vllm#37524)
//!   `execute_<tokens>_context_<n>(sq…sk…sqsq…sqsk…)_generation_<n>(sq…sk…sqsq…sqsk…)`.
//! * **ROCm ATOM** (`atom/model_engine/run_labels.py` and `model_runner.py`,
//!   `_detailed_label_suffix`, ROCm/ATOM at ffdf3bb5): `prefill[bs=<n> tok=<n> ctx=[…]]`,
//!   `decode[bs=<real>[/<padded>] tok=<n> [p=<n>] d=<n> [spec=<n>]]` (CUDA graphs: the padded
//!   batch the graph ran after the slash), `eager_decode[…]`, ` tbo=1` for two-batch overlap;
//!   with `ATOM_ENABLE_DETAILED_ANNOTATION=1` the whole step's ` sqsq=… sqsk=… sk=…` (not split
//!   by phase). `dummy_…[…]` steps (warm-up, data-parallel sync) and `capture_graph_bs_<n>`
//!   are not real steps.
//!
//! The aggregates, per phase and summed over its sequences, with `N_q` a sequence's new tokens
//! and `N_kv` the keys its queries attend to (cached context plus new tokens): `sq = Σ N_q`,
//! `sk = Σ N_kv`, `sqsq = Σ N_q²`, `sqsk = Σ N_q·N_kv`. A phase without them (the engines'
//! native names) has its sequences and tokens but no contexts: its step cannot be timed, and
//! the import says which flag to turn on.

mod atom;
mod sglang;
mod vllm;

use atom::atom;
use serde::{Deserialize, Serialize};
use sglang::sglang;
use vllm::vllm;

/// The engine whose annotation a step name is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Dialect {
    /// SGLang's `step[…]`.
    Sglang,
    /// vLLM's `execute_…`.
    Vllm,
    /// ROCm ATOM's `prefill[…]` / `decode[…]`.
    Atom,
}

impl Dialect {
    /// Every dialect, in the order the page lists them.
    pub const ALL: [Dialect; 3] = [Dialect::Sglang, Dialect::Vllm, Dialect::Atom];

    /// The engine's name.
    pub fn label(self) -> &'static str {
        match self {
            Dialect::Sglang => "SGLang",
            Dialect::Vllm => "vLLM",
            Dialect::Atom => "ROCm ATOM",
        }
    }

    /// How to turn the engine's aggregates on.
    pub fn flag(self) -> &'static str {
        match self {
            Dialect::Sglang => {
                "SGLang: start the profile with roofline_annotations on (POST /start_profile \
                 with {\"roofline_annotations\": true})"
            }
            Dialect::Vllm => {
                "vLLM: serve with --profiler-config.detailed_trace_annotation True (with \
                 --profiler-config.profiler torch)"
            }
            Dialect::Atom => "ROCm ATOM: set ATOM_ENABLE_DETAILED_ANNOTATION=1 while profiling",
        }
    }
}

/// What a step computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepPhase {
    /// Prefill chunks only.
    Prefill,
    /// Decode tokens only, one per sequence.
    Decode,
    /// Prefill chunks and decode tokens in one step.
    Mixed,
    /// Speculative decoding's verify step: several tokens per decoding sequence (SGLang's
    /// `TARGET_VERIFY`, or a decode phase with more tokens than sequences: MTP).
    Verify,
}

impl StepPhase {
    /// Every phase, in table order.
    pub const ALL: [StepPhase; 4] = [
        StepPhase::Prefill,
        StepPhase::Decode,
        StepPhase::Mixed,
        StepPhase::Verify,
    ];

    /// The id the table and its `data-value` use.
    pub fn id(self) -> &'static str {
        match self {
            StepPhase::Prefill => "prefill",
            StepPhase::Decode => "decode",
            StepPhase::Mixed => "mixed",
            StepPhase::Verify => "verify",
        }
    }
}

/// One phase of a step (its prefill chunks, or its decode tokens), summed over its sequences:
/// the engines' own aggregates, as numbers.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Aggregates {
    /// Sequences.
    pub seqs: f64,
    /// Σ new tokens.
    pub sq: f64,
    /// Σ keys attended (cached context plus new tokens).
    pub sk: f64,
    /// Σ new².
    pub sqsq: f64,
    /// Σ new · keys.
    pub sqsk: f64,
}

/// A step as its name gives it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepName {
    /// The engine.
    pub dialect: Dialect,
    /// What the step computed.
    pub phase: StepPhase,
    /// Sequences in the step (the real batch; an ATOM CUDA graph's padding apart).
    pub batch: f64,
    /// New tokens in the step (`None` where the name does not give them).
    pub tokens: Option<f64>,
    /// Sequences and new tokens of the prefill part and of the decode part, where the name
    /// separates them (`None`: the name gives only the whole step's).
    pub split: Option<[(f64, f64); 2]>,
    /// The prefill chunks' aggregates (`None` without the engine's detailed annotation, or
    /// where the engine gives only the whole step's: see `whole`).
    pub prefill: Option<Aggregates>,
    /// The decode tokens' aggregates.
    pub decode: Option<Aggregates>,
    /// The whole step's aggregates where the engine does not split them by phase (ATOM).
    pub whole: Option<Aggregates>,
    /// The batch a CUDA graph ran, padded past the real one (ATOM's `bs=117/128`).
    pub padded: Option<f64>,
    /// Speculative steps (ATOM's `spec=`).
    pub spec: Option<f64>,
    /// Two-batch overlap (ATOM's `tbo=1`).
    pub tbo: bool,
}

impl StepName {
    /// Whether the name carries the aggregates a step's time needs.
    pub fn detailed(&self) -> bool {
        self.whole.is_some() || self.prefill.is_some() || self.decode.is_some()
    }
}

/// What a span's name is.
#[derive(Debug, Clone, PartialEq)]
pub enum Span {
    /// A forward step of the model served.
    Step(Box<StepName>),
    /// A span of a dialect that is not a step of the model served (a draft model's step, an
    /// idle or dummy step, a CUDA-graph capture), with why.
    Skip(Dialect, &'static str),
    /// Not a step annotation at all.
    Other,
}

/// Why a step name could not be read: its dialect and the problem, in words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepNameError {
    /// The engine whose form the name started in.
    pub dialect: Dialect,
    /// What is wrong.
    pub reason: String,
}

impl std::fmt::Display for StepNameError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} step name: {}", self.dialect.label(), self.reason)
    }
}

/// Longest step name read (the engines' are about 200 bytes: ATOM cuts its context list
/// past five sequences).
pub const MAX_NAME: usize = 2000;

/// Whether a name could be a step annotation of some dialect (a quick test on its first bytes,
/// before [`parse_span`]).
pub fn looks_like_step(name: &str) -> bool {
    const PREFIXES: [&str; 8] = [
        "step[",
        "draft step[",
        "execute_",
        "prefill[",
        "decode[",
        "eager_decode[",
        "dummy_",
        "capture_graph_bs_",
    ];
    PREFIXES.iter().any(|p| name.starts_with(p))
}

/// Reads a span's name (see the module docs for the three dialects).
///
/// ```
/// use roofline::profile::steps::{parse_span, Span, StepPhase};
/// let Span::Step(s) = parse_span("step[DECODE bs=2 g_sq=2 g_sqsq=2 g_sqsk=30 g_sk=30]").unwrap()
/// else { panic!() };
/// assert_eq!((s.phase, s.batch, s.tokens), (StepPhase::Decode, 2.0, Some(2.0)));
/// assert_eq!(s.decode.unwrap().sk, 30.0);
/// ```
pub fn parse_span(name: &str) -> Result<Span, StepNameError> {
    if name.len() > MAX_NAME && looks_like_step(name) {
        let dialect = if name.starts_with("execute_") {
            Dialect::Vllm
        } else if name.contains("step[") {
            Dialect::Sglang
        } else {
            Dialect::Atom
        };
        return Err(err(
            dialect,
            format!(
                "{} bytes, longer than any engine writes ({MAX_NAME})",
                name.len()
            ),
        ));
    }
    if let Some(rest) = name.strip_prefix("draft step[") {
        let _ = rest;
        return Ok(Span::Skip(
            Dialect::Sglang,
            "a draft model's step (speculative decoding), not the model served",
        ));
    }
    if let Some(rest) = name.strip_prefix("step[") {
        return sglang(rest);
    }
    if let Some(rest) = name.strip_prefix("execute_") {
        return vllm(rest);
    }
    if name.starts_with("capture_graph_bs_") {
        return Ok(Span::Skip(Dialect::Atom, "a CUDA-graph capture"));
    }
    if name.starts_with("dummy_") && name.contains('[') {
        return Ok(Span::Skip(
            Dialect::Atom,
            "a dummy step (warm-up or data-parallel sync)",
        ));
    }
    for (prefix, prefill) in [
        ("prefill[", true),
        ("decode[", false),
        ("eager_decode[", false),
    ] {
        if let Some(rest) = name.strip_prefix(prefix) {
            return atom(rest, prefill);
        }
    }
    Ok(Span::Other)
}

/// A piece of the name quoted in a message, at most 40 characters.
fn q(s: &str) -> String {
    crate::error::clip_text(s, 40)
}

fn err(dialect: Dialect, reason: impl Into<String>) -> StepNameError {
    StepNameError {
        dialect,
        reason: reason.into(),
    }
}

/// A count as an engine writes it: decimal digits only, below 2⁵³ (exact in an `f64`).
fn count(dialect: Dialect, key: &str, text: &str) -> Result<f64, StepNameError> {
    let bad = || {
        err(
            dialect,
            format!("{key}={:?} is not a whole number", q(text)),
        )
    };
    if text.is_empty() || text.len() > 16 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let v: u64 = text.parse().map_err(|_| bad())?;
    if v >= 1 << 53 {
        return Err(err(dialect, format!("{key}={} is too large", q(text))));
    }
    Ok(v as f64)
}

/// The bracket's body up to its closing `]`, which must end the name.
fn body(dialect: Dialect, rest: &str) -> Result<&str, StepNameError> {
    rest.strip_suffix(']')
        .filter(|b| !b.contains(']'))
        .ok_or_else(|| err(dialect, "the name does not end at its closing `]`"))
}

/// `key=value` fields split on spaces, each key once.
struct Fields<'a> {
    dialect: Dialect,
    pairs: Vec<(&'a str, &'a str)>,
}

impl<'a> Fields<'a> {
    fn read(dialect: Dialect, words: impl Iterator<Item = &'a str>) -> Result<Self, StepNameError> {
        let mut pairs: Vec<(&str, &str)> = Vec::new();
        for w in words.filter(|w| !w.is_empty()) {
            let (k, v) = w
                .split_once('=')
                .ok_or_else(|| err(dialect, format!("`{}` is not key=value", q(w))))?;
            if pairs.iter().any(|(x, _)| *x == k) {
                return Err(err(dialect, format!("{}= is given twice", q(k))));
            }
            pairs.push((k, v));
        }
        Ok(Fields { dialect, pairs })
    }

    fn text(&self, key: &str) -> Option<&'a str> {
        self.pairs.iter().find(|(k, _)| *k == key).map(|(_, v)| *v)
    }

    fn get(&self, key: &str) -> Result<Option<f64>, StepNameError> {
        self.text(key)
            .map(|v| count(self.dialect, key, v))
            .transpose()
    }

    fn need(&self, key: &str) -> Result<f64, StepNameError> {
        self.get(key)?
            .ok_or_else(|| err(self.dialect, format!("{key}= is missing")))
    }

    /// A phase's four aggregates under `prefix` (`c_`, `g_`, or none), all or none of them.
    fn phase(&self, prefix: &str, seqs: f64) -> Result<Option<Aggregates>, StepNameError> {
        let keys = ["sq", "sk", "sqsq", "sqsk"].map(|k| format!("{prefix}{k}"));
        let vals = keys
            .iter()
            .map(|k| self.get(k))
            .collect::<Result<Vec<_>, _>>()?;
        match vals.as_slice() {
            [Some(sq), Some(sk), Some(sqsq), Some(sqsk)] => Ok(Some(Aggregates {
                seqs,
                sq: *sq,
                sk: *sk,
                sqsq: *sqsq,
                sqsk: *sqsk,
            })),
            [None, None, None, None] => Ok(None),
            _ => {
                let missing: Vec<&str> = keys
                    .iter()
                    .zip(&vals)
                    .filter(|(_, v)| v.is_none())
                    .map(|(k, _)| k.as_str())
                    .collect();
                Err(err(
                    self.dialect,
                    format!("{} missing beside the other aggregates", missing.join(", ")),
                ))
            }
        }
    }

    /// Refuses keys outside `known`.
    fn only(&self, known: &[&str]) -> Result<(), StepNameError> {
        match self.pairs.iter().find(|(k, _)| !known.contains(k)) {
            Some((k, _)) => Err(err(self.dialect, format!("unknown field {}=", q(k)))),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(name: &str) -> StepName {
        match parse_span(name) {
            Ok(Span::Step(s)) => *s,
            other => panic!("{name}: {other:?}"),
        }
    }

    #[test]
    fn sglang_forms() {
        // step_span_utils.py's own test: two decode requests at 10 and 20 tokens.
        let s = step("step[DECODE bs=2 g_sq=2 g_sqsq=2 g_sqsk=30 g_sk=30]");
        assert_eq!(s.phase, StepPhase::Decode);
        assert_eq!(
            s.decode,
            Some(Aggregates {
                seqs: 2.0,
                sq: 2.0,
                sk: 30.0,
                sqsq: 2.0,
                sqsk: 30.0
            })
        );
        // MTP: 64 sequences, 2 tokens each.
        let s = step("step[DECODE bs=64 g_sq=128 g_sqsq=256 g_sqsk=262144 g_sk=131072]");
        assert_eq!((s.phase, s.tokens), (StepPhase::Verify, Some(128.0)));
        let s = step("step[EXTEND bs=2 toks=14721]");
        assert_eq!(
            (s.phase, s.batch, s.tokens, s.detailed()),
            (StepPhase::Prefill, 2.0, Some(14721.0), false)
        );
        let s = step("step[MIXED bs=2 c=1 g=1 c_sq=5 c_sk=8 c_sqsq=25 c_sqsk=40 g_sq=1 g_sk=12 g_sqsq=1 g_sqsk=12]");
        assert_eq!((s.phase, s.tokens), (StepPhase::Mixed, Some(6.0)));
        assert_eq!(s.prefill.unwrap().sqsk, 40.0);
        assert_eq!(s.decode.unwrap().seqs, 1.0);
        assert!(matches!(
            parse_span("draft step[DECODE bs=32]"),
            Ok(Span::Skip(..))
        ));
        assert!(matches!(parse_span("step[IDLE bs=0]"), Ok(Span::Skip(..))));
        for bad in [
            "step[EXTEND bs=2 toks=14721 c_sq=14720 c_sqsq=1 c_sqsk=1 c_sk=1]",
            "step[EXTEND bs=2]",
            "step[DECODE bs=x]",
            "step[DECODE bs=2 g_sq=2]",
            "step[WARP bs=2]",
            "step[DECODE bs=2",
            "step[MIXED bs=3 c=1 g=1 c_sq=5 c_sk=8 c_sqsq=25 c_sqsk=40 g_sq=1 g_sk=12 g_sqsq=1 g_sqsk=12]",
        ] {
            assert!(parse_span(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn vllm_forms() {
        let s = step("execute_14721_context_2(sq14721sk14721sqsq108745533sqsk108745533)_generation_0(sq0sk0sqsq0sqsk0)");
        assert_eq!(
            (s.phase, s.batch, s.tokens),
            (StepPhase::Prefill, 2.0, Some(14721.0))
        );
        assert_eq!(s.decode, None);
        let s = step("execute_6147_context_2(sq6144sk7144sqsq20971520sqsk23019520)_generation_3(sq3sk6144sqsq3sqsk6144)");
        assert_eq!(
            (s.phase, s.batch, s.tokens),
            (StepPhase::Mixed, 5.0, Some(6147.0))
        );
        assert_eq!(s.decode.unwrap().sk, 6144.0);
        let s = step("execute_context_0(0)_generation_64(64)");
        assert_eq!(
            (s.phase, s.batch, s.detailed()),
            (StepPhase::Decode, 64.0, false)
        );
        let s = step("execute_new_2_cached_30");
        assert_eq!((s.phase, s.batch), (StepPhase::Mixed, 32.0));
        // vLLM's other spans (`execute_model`) are not step annotations.
        assert_eq!(parse_span("execute_model"), Ok(Span::Other));
        for bad in [
            "execute_10_context_2(sq14721sk14721sqsq1sqsk1)_generation_0(sq0sk0sqsq0sqsk0)",
            "execute_context_2(14721)_generation_0(sq0sk0sqsq0sqsk0)",
            "execute_context_2(14721)_generation_0(0)x",
            "execute_5_context_1(sq5sk5sqsk25sqsq25)_generation_0(sq0sk0sqsq0sqsk0)",
        ] {
            assert!(parse_span(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn atom_forms() {
        let s =
            step("prefill[bs=2 tok=14721 ctx=[7803, 6918] sqsq=108745533 sqsk=108745533 sk=14721]");
        assert_eq!(
            (s.phase, s.batch, s.tokens),
            (StepPhase::Prefill, 2.0, Some(14721.0))
        );
        assert_eq!(s.whole.unwrap().sk, 14721.0);
        let s = step("decode[bs=117/128 tok=117 d=117]");
        assert_eq!(
            (s.phase, s.batch, s.padded),
            (StepPhase::Decode, 117.0, Some(128.0))
        );
        let s = step("decode[bs=32 tok=128 d=32 spec=3 sqsq=512 sqsk=262144 sk=65536]");
        assert_eq!((s.phase, s.spec), (StepPhase::Verify, Some(3.0)));
        let s = step("decode[bs=128 tok=384 p=2 d=126 sqsq=132612 sqsk=1114112 sk=258048 tbo=1]");
        assert_eq!((s.phase, s.tbo, s.split), (StepPhase::Mixed, true, None));
        let s = step("prefill[bs=6 tok=17408 ctx=[4096, 4096, 4096]...+3]");
        assert_eq!((s.batch, s.detailed()), (6.0, false));
        assert!(matches!(
            parse_span("dummy_decode[bs=1]"),
            Ok(Span::Skip(..))
        ));
        assert!(matches!(
            parse_span("capture_graph_bs_64"),
            Ok(Span::Skip(..))
        ));
        for bad in [
            "decode[bs=128/64 tok=1 d=1]",
            "decode[bs=1 tok=1 sqsq=1]",
            "prefill[bs=1]",
            "decode[bs=1 tok=1 d=1 q=3]",
        ] {
            assert!(parse_span(bad).is_err(), "{bad}");
        }
        assert_eq!(parse_span("aten::mm"), Ok(Span::Other));
    }
}
