//! Serving figures of a transformer (`llm`) on a chip: time to first token, time per output
//! token, throughput, cost and energy per token, the largest batch that fits, and the
//! throughput–latency frontier over the batch (parts 7 and 8 of the scaling book).
//!
//! From an `llm` op (its architecture, dtypes, tensor parallelism `n`, batch `B`, prompt `P`,
//! output `G`) and a chip (optional `price` per chip-hour, `power` per chip):
//!
//! * `ttft`: a prefill step of the batch's `B` prompts of `P` tokens (`T_lower` of the op in
//!   phase prefill at context `P`): every sequence of the batch waits that long for its first
//!   token;
//! * `tpot`: a decode step at batch `B` and the mean context over the generation, `P + G/2`:
//!   the time each sequence waits per output token (per-sequence latency);
//! * `tokens_per_s = B / tpot`: output tokens per second of the `n`-chip group while decoding
//!   (prefill counted apart, as in part 8's "throughput is just B / (per-step latency ·
//!   median steps · N)" per request); `tokens_per_s_chip = tokens_per_s / n`; a sequence sees
//!   `1 / tpot` tokens/s;
//! * `requests_per_s = tokens_per_s / G`;
//! * `cost_per_mtok = price · n / 3600 / tokens_per_s · 1e6` USD per million output tokens;
//!   `joules_per_token = power · n / tokens_per_s`;
//! * `max_batch`: the largest `B` whose weights (every expert resident) and KV caches at the
//!   final context `P + G` fit in HBM per chip, `⌊(capacity − weights) / KV per sequence⌋`.
//!
//! With a prefix-cache hit (`prefix_hit`), the batch's prefill is a step of `B` chunks of the
//! `P − P_h` uncached tokens over `P` keys ([`step_time`]); without one it is the op's own
//! prefill step, as before.
//!
//! Serving under load (issue 40, `load=concurrency` or `rate`) is in the submodules: `step`
//! (the mixed step of prefill chunks and decode tokens, [`step_time`]), `engine` (each engine's
//! pattern and defaults, sourced), `pattern` (the steps an engine runs at a running batch) and
//! `load` (caps, queue, closed and open loops, saturation, goodput: [`LoadModel`],
//! [`load_figures`]).
//!
//! ```
//! use roofline::{preset, serving, Op, Options};
//! let mut op = Op::default_for("llm").unwrap(); // Llama-3 8B, B = 1, P 2048, G 512
//! op.set("b", "64").unwrap();
//! let s = serving::serving(&op, &preset("h100").unwrap(), &Options::default()).unwrap().unwrap();
//! assert!(s.tpot > 0.0 && s.ttft > s.tpot);
//! assert_eq!(s.tokens_per_s, 64.0 / s.tpot);
//! assert!(s.cost_per_mtok.is_some()); // the H100 preset has a price
//! ```

pub mod disagg;
mod engine;
pub mod kv_tier;
mod load;
mod pattern;
pub mod sim;
mod step;
mod step_eval;
pub mod tails;

pub use engine::{
    engine_defaults, sglang_mem_fraction, Chunk, Engine, EngineDefaults, Pages, Pattern, PoolRule,
};
pub use load::{
    erlang_c, figures, load_figures, BoundTiming, CapBy, Goodput, LoadFigures, LoadModel,
    Operating, Resolved, Timing,
};
pub use pattern::{Decomp, EngineState, PatternStep, Regime};
pub use step::{step_time, PhaseLoad, StepMix, StepTime};
pub use step_eval::StepEval;

#[cfg(doc)]
use crate::analysis::analyze;
use crate::analysis::{check_inputs, t_lower, t_lower_unchecked, Options};
use crate::chip::Chip;
use crate::error::Error;
pub use crate::op::expected_tokens;
use crate::op::{InferenceStep, Llm, Op, OpKind};
use serde::{Deserialize, Serialize};

/// The serving figures of one `llm` op on one chip (see the module docs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Serving {
    /// Chips serving one copy of the model: `tp·ep` (the tensor-parallel degree `n` times the
    /// expert-parallel groups).
    pub chips: f64,
    /// Sequences decoded together `B`.
    pub batch: f64,
    /// Prompt length `P`.
    pub prompt: f64,
    /// Output length `G`.
    pub output: f64,
    /// Mean context of a decode step, `P + G/2`.
    pub mean_ctx: f64,
    /// Time to first token: a prefill step of `B` prompts of `P` tokens, seconds.
    pub ttft: f64,
    /// Time per output token: a decode step at `B` and `P + G/2`, seconds (per sequence).
    pub tpot: f64,
    /// One request from prompt to last token: `ttft + (G − 1)·tpot`, seconds.
    pub request_latency: f64,
    /// Output tokens per second of the group while decoding, `B / tpot`.
    pub tokens_per_s: f64,
    /// `tokens_per_s / n`.
    pub tokens_per_s_chip: f64,
    /// Tokens per second one sequence sees, `1 / tpot`.
    pub tokens_per_s_seq: f64,
    /// Requests completed per second, `tokens_per_s / G`.
    pub requests_per_s: f64,
    /// USD per million output tokens, when the chip has a price.
    pub cost_per_mtok: Option<f64>,
    /// Joules per output token, when the chip has a power.
    pub joules_per_token: Option<f64>,
    /// The largest batch that fits at the final context `P + G`.
    pub max_batch: f64,
    /// `B ≤ max_batch`.
    pub fits: bool,
    /// All parameters (every expert).
    pub params: f64,
    /// Parameters one token uses.
    pub active_params: f64,
    /// One sequence's prefill alone (`B = 1`, `P` tokens), seconds: what a prefill server
    /// spends per request in a disaggregated setup.
    pub prefill_one: f64,
    /// Prefill servers per decode server in a disaggregated setup, [`prefill_decode_ratio`] of
    /// `prefill_one`, `tpot`, `B` and `G` (part 8).
    pub prefill_decode_ratio: f64,
}

fn with(l: &Llm, phase: InferenceStep, ctx: f64, b: f64) -> Op {
    let mut m = *l;
    m.phase = phase;
    m.ctx = ctx;
    m.b = b;
    Op::new(OpKind::from(m))
}

/// `op` on `chip` analyses without error (`analyze`'s checks, through its cheaper `t_lower`).
fn validate(op: &Op, chip: &Chip, opts: &Options) -> Result<(), Error> {
    t_lower(op, chip, opts).map(|_| ())
}

/// The two steps a serving row times, as ops at whole contexts: the prefill of `B` prompts
/// (`P` tokens) and a decode step at `B` and ⌈P + G/2⌉; `None` for an op that is not an `llm`.
/// What an expectation reads to see which resource binds each step (`crate::validation`).
pub fn serving_steps(op: &Op) -> Option<(Op, Op)> {
    let l = op.llm()?;
    let mean_ctx = (l.prompt + l.output / 2.0).ceil();
    Some((
        with(l, InferenceStep::Prefill, l.prompt, l.b),
        with(l, InferenceStep::Decode, mean_ctx, l.b),
    ))
}

/// `T_lower` of a step of `l` at batch `b` and context `ctx`. The decode step's context is the
/// mean P + G/2, which an odd G makes fractional where the `ctx` field takes whole numbers: the
/// step is checked as analyze checks it at the whole context ⌈ctx⌉ (every other value as
/// given), then timed at `ctx` itself, so an even G gives the same bits as before.
fn step(
    l: &Llm,
    chip: &Chip,
    opts: &Options,
    phase: InferenceStep,
    ctx: f64,
    b: f64,
) -> Result<f64, Error> {
    check_inputs(&with(l, phase, ctx.ceil(), b).kind, chip, opts)?;
    t_lower_unchecked(&with(l, phase, ctx, b), chip, opts)
}

/// The prefill of `b` prompts of the static batch: the op's own prefill step at context `P`,
/// or, with a prefix-cache hit, a step of `b` chunks of the `P_n = P − P_h` uncached tokens
/// each over the `P` keys ([`step_time`]: the hit tokens' projections and MLP skipped, their
/// keys still read).
fn batch_prefill(l: &Llm, chip: &Chip, opts: &Options, b: f64) -> Result<f64, Error> {
    let p = l.prompt;
    let hit = (l.prefix_hit * p).floor().min(p - 1.0).max(0.0);
    if hit == 0.0 {
        return step(l, chip, opts, InferenceStep::Prefill, p, b);
    }
    let mix = StepMix::prefill(PhaseLoad::uniform(b, p - hit, p));
    Ok(step::step_time_unchecked(l, chip, opts, &mix)?.t)
}

/// The serving figures of an `llm` op on `chip`; `Ok(None)` for another kind. Errors like
/// [`analyze`] (a missing peak or link, an inconsistent architecture).
pub fn serving(op: &Op, chip: &Chip, opts: &Options) -> Result<Option<Serving>, Error> {
    let Some(l) = op.llm() else {
        return Ok(None);
    };
    // Validates the op as given (its own phase and context) first: `t_lower` has `analyze`'s
    // errors (tests/it/llm_ep.rs checks them over the zoo) without its derivation and critical
    // size, which a serving row, rebuilt on every edit of its op, does not read.
    validate(op, chip, opts)?;
    let (b, p, g, n) = (l.b, l.prompt, l.output, l.chips());
    let mean_ctx = p + g / 2.0;
    let ttft = batch_prefill(l, chip, opts, b)?;
    let tpot = step(l, chip, opts, InferenceStep::Decode, mean_ctx, b)?;
    let tokens_per_s = b / tpot;
    let max_batch = l.max_batch(chip.hbm_cap, p + g);
    let prefill_one = batch_prefill(l, chip, opts, 1.0)?;
    Ok(Some(Serving {
        chips: n,
        batch: b,
        prompt: p,
        output: g,
        mean_ctx,
        ttft,
        tpot,
        request_latency: ttft + (g - 1.0) * tpot,
        tokens_per_s,
        tokens_per_s_chip: tokens_per_s / n,
        tokens_per_s_seq: 1.0 / tpot,
        requests_per_s: tokens_per_s / g,
        cost_per_mtok: chip.price.map(|c| c * n / 3600.0 / tokens_per_s * 1e6),
        joules_per_token: chip.power.map(|w| w * n / tokens_per_s),
        max_batch,
        fits: b <= max_batch,
        params: l.params(),
        active_params: l.active_params(),
        prefill_one,
        prefill_decode_ratio: prefill_decode_ratio(prefill_one, tpot, b, g)?,
    }))
}

/// One batch size on the throughput–latency frontier.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct FrontierPoint {
    /// Batch `B`.
    pub batch: f64,
    /// Time per output token at `B` (a decode step at `P + G/2`), seconds.
    pub tpot: f64,
    /// Output tokens per second per chip, `B / (tpot · n)`.
    pub tokens_per_s_chip: f64,
    /// Whether `B` fits in memory at the final context `P + G`.
    pub fits: bool,
}

/// The throughput–latency frontier of an `llm` op on a chip over the batch: tokens/s per chip
/// against time per output token (parts 7 and 8's plot).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Frontier {
    /// The chip's name.
    pub chip: String,
    /// Points in increasing batch: powers of two from 1 to twice the largest batch that fits
    /// (at least 16, at most 2^20), and the largest batch that fits itself.
    pub points: Vec<FrontierPoint>,
    /// The largest batch that fits; the points beyond it are out of memory.
    pub max_batch: f64,
}

/// The frontier of `op` (an `llm`) on `chip`; `Ok(None)` for another kind.
pub fn frontier(op: &Op, chip: &Chip, opts: &Options) -> Result<Option<Frontier>, Error> {
    let Some(l) = op.llm() else {
        return Ok(None);
    };
    validate(op, chip, opts)?;
    let mean_ctx = l.prompt + l.output / 2.0;
    let max_batch = l.max_batch(chip.hbm_cap, l.prompt + l.output);
    let top = (2.0 * max_batch).clamp(16.0, (1u64 << 20) as f64);
    let mut batches: Vec<f64> = Vec::new();
    let mut b = 1.0;
    while b <= top {
        batches.push(b);
        b *= 2.0;
    }
    if max_batch >= 1.0 && !batches.contains(&max_batch) {
        batches.push(max_batch);
        batches.sort_by(f64::total_cmp);
    }
    let mut points = Vec::with_capacity(batches.len());
    for b in batches {
        let tpot = step(l, chip, opts, InferenceStep::Decode, mean_ctx, b)?;
        points.push(FrontierPoint {
            batch: b,
            tpot,
            tokens_per_s_chip: b / tpot / l.chips(),
            fits: b <= max_batch,
        });
    }
    Ok(Some(Frontier {
        chip: chip.name.clone(),
        points,
        max_batch,
    }))
}

/// The smallest tensor-parallel group that serves an `llm` op: part 8's "smallest topology".
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Topology {
    /// Chips `n·ep` (`n` a power of two: slices come in even sizes, the book's "rounded to
    /// the nearest reasonable topology"; `ep` the op's expert-parallel groups, 1 without).
    pub chips: f64,
    /// The largest batch that fits on `n` chips at the final context `P + G`.
    pub max_batch: f64,
    /// Time per output token at the op's batch on `n` chips.
    pub tpot: f64,
}

/// Largest group [`smallest_topology`] tries (a TPU v5e pod is 256 chips).
pub const MAX_TOPOLOGY_CHIPS: f64 = 4096.0;

/// The smallest power-of-two tensor-parallel group `n` (the op's `tp` set to `n`, its `ep`
/// kept: `n·ep` chips) on which the op's
/// batch `B` fits at the final context `P + G` (weights, every expert resident, and `B` KV
/// caches) and, when `max_tpot` is given, a decode step at `B` and `P + G/2` takes at most
/// that long. `Ok(None)` for another kind, or when no group up to [`MAX_TOPOLOGY_CHIPS`]
/// whose `n` divides the heads does. applied-inference.md: LLaMA 3-70B at 8k context, B = 1, needs 16 TPU v5e in bf16,
/// 8 in int8, 4 in int4.
pub fn smallest_topology(
    op: &Op,
    chip: &Chip,
    opts: &Options,
    max_tpot: Option<f64>,
) -> Result<Option<Topology>, Error> {
    let Some(l) = op.llm() else {
        return Ok(None);
    };
    validate(op, chip, opts)?;
    let mut n = 1.0;
    // Tensor parallelism gives each chip whole heads: past the largest power of two that
    // divides the heads, no group is possible.
    while n <= MAX_TOPOLOGY_CHIPS && l.shape.heads % n == 0.0 {
        let mut m = *l;
        m.tp = n;
        let max_batch = m.max_batch(chip.hbm_cap, m.prompt + m.output);
        if max_batch >= m.b {
            let tpot = step(
                &m,
                chip,
                opts,
                InferenceStep::Decode,
                m.prompt + m.output / 2.0,
                m.b,
            )?;
            if max_tpot.is_none_or(|t| tpot <= t) {
                return Ok(Some(Topology {
                    // tp = n in each of the op's ep groups.
                    chips: m.chips(),
                    max_batch,
                    tpot,
                }));
            }
        }
        n *= 2.0;
    }
    Ok(None)
}

/// Prefill servers needed per decode (generate) server in a disaggregated setup (part 8,
/// applied-inference.md, "disaggregated serving" question): sequences enter at
/// `P / prefill_latency` and leave at `B · G / (decode_latency · decode_len)`, so both pools stay
/// saturated when `P / G = B · prefill_latency / (decode_latency · decode_len)`.
/// `prefill_s` is one prefill step (one sequence per prefill server), `decode_step_s` one decode
/// step at batch `batch`, `decode_len` the median output length.
pub fn prefill_decode_ratio(
    prefill_s: f64,
    decode_step_s: f64,
    batch: f64,
    decode_len: f64,
) -> Result<f64, Error> {
    for (field, v) in [
        ("prefill_s", prefill_s),
        ("decode_step_s", decode_step_s),
        ("b", batch),
        ("g", decode_len),
    ] {
        if !(v.is_finite() && v > 0.0) {
            return Err(Error::InvalidField {
                field: field.into(),
                value: v.to_string(),
                reason: "must be a positive finite number".into(),
            });
        }
    }
    Ok(batch * prefill_s / (decode_step_s * decode_len))
}

#[cfg(test)]
mod disagg_tests {
    use super::prefill_decode_ratio;

    /// applied-inference.md, disaggregated-serving answer: 910 ms per prefill, 19 ms per decode
    /// step at batch 32, median decode length 512: `P / 0.91 = 32 · G / (0.019 · 512)`, "P = 3G".
    /// By hand: 32 · 0.91 = 29.12; 0.019 · 512 = 9.728; 29.12 / 9.728 = 2.9934.
    #[test]
    fn book_ratio_is_about_three() {
        let r = prefill_decode_ratio(0.91, 0.019, 32.0, 512.0).unwrap();
        assert!((r - 2.9934).abs() < 1e-3, "{r}");
        assert_eq!(r.round(), 3.0);
    }

    #[test]
    fn bad_input_names_the_field() {
        let e = prefill_decode_ratio(0.91, 0.0, 32.0, 512.0).unwrap_err();
        assert!(e.to_string().starts_with("decode_step_s=0"), "{e}");
        assert!(prefill_decode_ratio(f64::NAN, 0.019, 32.0, 512.0).is_err());
    }
}

/// Time per output token with speculative decoding (part 7, inference.md appendix D): a draft
/// model proposes `k` tokens (`k` draft steps of `draft_step_s`), then the target model scores
/// all of them in one forward pass (`verify_step_s`; the book: "we're *not* compute-bound", so
/// close to one decode step; [`speculative`] takes the core's `verify` phase), keeping the
/// longest accepted prefix plus one token of its own. With each draft token accepted
/// independently with rate `accept` (the model of the papers the book cites, Leviathan et al.
/// 2023), a step yields on average `(1 − α^(k+1)) / (1 − α)` tokens
/// (`k + 1` when `α = 1`), so `tpot = (k · draft_step_s + verify_step_s) / E[tokens]`.
pub fn speculative_tpot(
    verify_step_s: f64,
    draft_step_s: f64,
    k: u32,
    accept: f64,
) -> Result<f64, Error> {
    let bad = |field: &str, value: String, reason: &str| Error::InvalidField {
        field: field.into(),
        value,
        reason: reason.into(),
    };
    if k == 0 {
        return Err(bad("spec_k", "0".into(), "must be at least 1 draft token"));
    }
    if !(0.0..=1.0).contains(&accept) {
        return Err(bad(
            "accept",
            accept.to_string(),
            "must be a rate from 0 to 1",
        ));
    }
    for (field, v) in [
        ("verify_step_s", verify_step_s),
        ("draft_step_s", draft_step_s),
    ] {
        if !(v.is_finite() && v >= 0.0) {
            return Err(bad(field, v.to_string(), "must be a finite time ≥ 0"));
        }
    }
    let tokens = expected_tokens(f64::from(k), accept);
    Ok((f64::from(k) * draft_step_s + verify_step_s) / tokens)
}

/// Speculative decoding of an `llm` op with a `draft` (part 7, inference.md appendix D): the
/// draft's and the verify step's times and the resulting time per output token.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Speculative {
    /// The draft model's preset id.
    pub draft: String,
    /// The draft model's name.
    pub draft_name: String,
    /// Draft tokens per step `k`.
    pub k: f64,
    /// Acceptance rate `α`.
    pub accept: f64,
    /// One decode step of the draft model (its own architecture, the target's dtypes, chips,
    /// batch `B` and mean context `P + G/2`), seconds.
    pub draft_step: f64,
    /// One verify step of the target: phase `verify`, `T = B·(k+1)` tokens at `P + G/2`
    /// (weights read once, each sequence's cache read once), seconds.
    pub verify_step: f64,
    /// Tokens a step yields on average, [`expected_tokens`].
    pub tokens_per_step: f64,
    /// The plain time per output token (a decode step of the target), seconds.
    pub tpot: f64,
    /// Time per output token with speculation, [`speculative_tpot`], seconds.
    pub tpot_spec: f64,
    /// `tpot / tpot_spec`.
    pub speedup: f64,
}

/// Speculative decoding of `op` on `chip` when it names a draft (`draft=`); `Ok(None)` for
/// another kind or no draft. Both steps are [`analyze`]'s `T_lower` of an `llm` op: the draft a
/// decode step of the draft's architecture (the target's other fields kept; with `ep` groups,
/// in each group on its B/ep sequences), the verify step the target in phase `verify`. Errors like [`analyze`] and [`speculative_tpot`].
pub fn speculative(op: &Op, chip: &Chip, opts: &Options) -> Result<Option<Speculative>, Error> {
    let Some(l) = op.llm() else {
        return Ok(None);
    };
    let Some(d) = l.draft_preset() else {
        return Ok(None);
    };
    validate(op, chip, opts)?;
    let (b, ctx) = (l.b, l.prompt + l.output / 2.0);
    let mut draft = *l;
    draft.set_arch(&d.arch);
    draft.draft = None;
    // With expert parallelism the draft runs in each of the target's `ep` groups on that
    // group's B/ep sequences (a draft is small and dense: it has no experts to split).
    draft.ep = 1.0;
    let draft_step = step(&draft, chip, opts, InferenceStep::Decode, ctx, b / l.ep)?;
    let verify_step = step(l, chip, opts, InferenceStep::Verify, ctx, b)?;
    let tpot = step(l, chip, opts, InferenceStep::Decode, ctx, b)?;
    if !(l.spec_k >= 1.0 && l.spec_k <= f64::from(u32::MAX)) {
        return Err(Error::invalid(
            "spec_k",
            crate::units::format_exact(l.spec_k),
            "must be at least 1 draft token",
        ));
    }
    let tpot_spec = speculative_tpot(verify_step, draft_step, l.spec_k as u32, l.accept)?;
    Ok(Some(Speculative {
        draft: d.id.to_string(),
        draft_name: d.name.to_string(),
        k: l.spec_k,
        accept: l.accept,
        draft_step,
        verify_step,
        tokens_per_step: expected_tokens(l.spec_k, l.accept),
        tpot,
        tpot_spec,
        speedup: tpot / tpot_spec,
    }))
}

#[cfg(test)]
mod spec_tests {
    use super::speculative_tpot;

    /// Hand calculation (inference.md appendix D, acceptance model of Leviathan et al.):
    /// target step 20 ms, draft step 2 ms, k = 4, α = 0.8. Tokens per step
    /// = (1 − 0.8⁵) / 0.2 = (1 − 0.32768) / 0.2 = 3.3616; step = 4 · 2 + 20 = 28 ms;
    /// tpot = 28 / 3.3616 = 8.3294 ms, a 2.4× win over 20 ms per token.
    #[test]
    fn hand_calculation() {
        let t = speculative_tpot(0.020, 0.002, 4, 0.8).unwrap();
        assert!((t - 0.0083294).abs() < 1e-6, "{t}");
        // α = 1: all k accepted plus one: 28 ms / 5 tokens.
        assert!((speculative_tpot(0.020, 0.002, 4, 1.0).unwrap() - 0.0056).abs() < 1e-12);
        // α = 0: one token per step, slower than plain decoding (the book: "the smaller
        // drafter can still be too expensive if the acceptance rate is low").
        assert!((speculative_tpot(0.020, 0.002, 4, 0.0).unwrap() - 0.028).abs() < 1e-12);
    }

    #[test]
    fn bad_input_names_the_field() {
        let e = speculative_tpot(0.02, 0.002, 0, 0.8).unwrap_err();
        assert!(e.to_string().starts_with("spec_k=0"), "{e}");
        let e = speculative_tpot(0.02, 0.002, 4, 1.5).unwrap_err();
        assert!(e.to_string().starts_with("accept=1.5"), "{e}");
        assert!(speculative_tpot(0.02, f64::NAN, 4, 0.5).is_err());
    }
}
