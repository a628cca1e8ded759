//! Fuzzing of the engines' step names (issue 43): the three dialects' forms (SGLang `step[…]`,
//! vLLM `execute_…`, ROCm ATOM `prefill[…]`/`decode[…]`, detailed and plain, padded, MTP,
//! two-batch overlap, skipped kinds) mutated character by character (cuts, inserted delimiters,
//! key words, huge and odd numbers, non-ASCII), and each accepted step timed by the mixed step
//! (`serving::step_time`) on an `llm` op.
//!
//! Properties: nothing panics; a refusal is a short message naming the engine; an accepted
//! step has a finite batch at least 0, finite aggregates, and a phase that agrees with its
//! name's sequences; reading is a pure function (the same name reads the same twice); a step
//! timed by the mixed step is a finite time at least 0 or a message.
//!
//! `steps_quick` runs a few thousand cases in the normal tests; `./dev fuzz` runs
//! `fuzz_steps` with `FUZZ_CASES` (default 100000) in release mode:
//!
//! ```text
//! FUZZ_CASES=100000 cargo test -p roofline --release --test fuzz -- --ignored --nocapture steps_fuzz::
//! ```

use crate::common;

use common::fuzz;
use common::Rng;
use roofline::op::{PhaseLoad, StepMix};
use roofline::profile::steps::{parse_span, Aggregates, Span, StepPhase};
use roofline::{preset, Op, Options};

/// Names in every dialect's forms (the engines' own examples, and this project's fixtures').
const BASES: &[&str] = &[
    "step[EXTEND bs=2 toks=14721 c_sq=14721 c_sqsq=108745533 c_sqsk=108745533 c_sk=14721]",
    "step[DECODE bs=64 g_sq=128 g_sqsq=256 g_sqsk=262144 g_sk=131072]",
    "step[DECODE bs=2 g_sq=2 g_sqsq=2 g_sqsk=30 g_sk=30]",
    "step[MIXED bs=2 c=1 g=1 c_sq=5 c_sk=8 c_sqsq=25 c_sqsk=40 g_sq=1 g_sk=12 g_sqsq=1 g_sqsk=12]",
    "step[TARGET_VERIFY bs=4 g_sq=16 g_sqsq=64 g_sqsk=40960 g_sk=10240]",
    "step[EXTEND bs=2 toks=14721]",
    "step[DECODE bs=64]",
    "draft step[DECODE bs=32]",
    "step[IDLE bs=0]",
    "execute_14721_context_2(sq14721sk14721sqsq108745533sqsk108745533)_generation_0(sq0sk0sqsq0sqsk0)",
    "execute_64_context_0(sq0sk0sqsq0sqsk0)_generation_64(sq64sk131072sqsq64sqsk131072)",
    "execute_6147_context_2(sq6144sk7144sqsq20971520sqsk23019520)_generation_3(sq3sk6144sqsq3sqsk6144)",
    "execute_context_2(14721)_generation_0(0)",
    "execute_new_2_cached_30",
    "prefill[bs=2 tok=14721 ctx=[7803, 6918] sqsq=108745533 sqsk=108745533 sk=14721]",
    "prefill[bs=6 tok=17408 ctx=[4096, 4096, 4096]...+3]",
    "decode[bs=117/128 tok=117 d=117]",
    "decode[bs=32 tok=128 d=32 spec=3 sqsq=512 sqsk=262144 sk=65536]",
    "decode[bs=128 tok=384 p=2 d=126 sqsq=132612 sqsk=1114112 sk=258048 tbo=1]",
    "eager_decode[bs=3 tok=3 ctx=[10, 20, 30]]",
    "dummy_decode[bs=1 tok=1 d=1]",
    "capture_graph_bs_64",
];

/// Pieces the mutations insert: the dialects' own delimiters and keys, odd numbers.
const PIECES: &[&str] = &[
    "[",
    "]",
    "(",
    ")",
    "_",
    "=",
    " ",
    "/",
    ",",
    "...+",
    "bs=",
    "toks=",
    "tok=",
    "c_sq=",
    "g_sk=",
    "sqsq",
    "sqsk",
    "sk",
    "sq",
    "context_",
    "_generation_",
    "execute_",
    "step[",
    "decode[",
    "0",
    "9",
    "18446744073709551616",
    "9007199254740993",
    "-1",
    "1e9",
    "NaN",
    "é",
    "\u{202E}",
];

fn input(r: &mut Rng, i: usize) -> String {
    let base = BASES[i % BASES.len()];
    if i % 7 == 0 {
        return base.to_string();
    }
    let mut s = if r.below(3) == 0 {
        fuzz::mutate(r, base)
    } else {
        base.to_string()
    };
    for _ in 0..r.below(4) {
        let at = s
            .char_indices()
            .map(|(k, _)| k)
            .nth(r.below(s.chars().count() + 1))
            .unwrap_or(s.len());
        match r.below(3) {
            0 => s.insert_str(at, r.pick(PIECES)),
            1 => {
                let end = s[at..]
                    .char_indices()
                    .nth(1 + r.below(6))
                    .map_or(s.len(), |(k, _)| at + k);
                s.replace_range(at..end, "");
            }
            _ => s.insert_str(at, &fuzz::number_text(r)),
        }
    }
    s
}

fn finite(a: &Aggregates) -> bool {
    [a.seqs, a.sq, a.sk, a.sqsq, a.sqsk]
        .iter()
        .all(|x| x.is_finite() && *x >= 0.0)
}

fn load(a: &Aggregates) -> PhaseLoad {
    PhaseLoad {
        seqs: a.seqs,
        sq: a.sq,
        sk: a.sk,
        sqsq: a.sqsq,
        sqsk: a.sqsk,
    }
}

fn check(name: &str, timed: bool) -> Result<bool, String> {
    let r = parse_span(name);
    if r != parse_span(name) {
        return Err("read twice, two answers".into());
    }
    let s = match r {
        Err(e) => {
            let m = e.to_string();
            if m.len() > 400 || !m.contains("step name") {
                return Err(format!("a poor message: {m}"));
            }
            return Ok(false);
        }
        Ok(Span::Other) | Ok(Span::Skip(..)) => return Ok(false),
        Ok(Span::Step(s)) => s,
    };
    if !(s.batch.is_finite() && s.batch >= 0.0) {
        return Err(format!("batch {}", s.batch));
    }
    if s.tokens.is_some_and(|t| !(t.is_finite() && t >= 0.0)) {
        return Err(format!("tokens {:?}", s.tokens));
    }
    for a in [&s.prefill, &s.decode, &s.whole].into_iter().flatten() {
        if !finite(a) {
            return Err(format!("aggregates {a:?}"));
        }
    }
    if let Some([(cn, _), (gn, _)]) = s.split {
        let ok = match s.phase {
            StepPhase::Prefill => gn == 0.0,
            StepPhase::Decode | StepPhase::Verify => cn == 0.0,
            StepPhase::Mixed => cn > 0.0 && gn > 0.0,
        };
        if !ok {
            return Err(format!(
                "phase {:?} with {cn} prefill and {gn} decode sequences",
                s.phase
            ));
        }
    }
    if timed && s.detailed() {
        let mut mix = StepMix::default();
        if let Some(p) = &s.prefill {
            mix.prefill = load(p);
        }
        if let Some(d) = &s.decode {
            mix.decode = load(d);
        }
        if let Some(w) = &s.whole {
            mix.decode = load(w);
        }
        let op = Op::default_for("llm").unwrap();
        let chip = preset("h100").unwrap();
        if let Ok(t) = roofline::serving::step_time(&op, &chip, &Options::default(), &mix) {
            if !(t.t.is_finite() && t.t >= 0.0) {
                return Err(format!("step time {}", t.t));
            }
        }
    }
    Ok(true)
}

fn fuzz_steps(cases: usize) {
    let ok = fuzz::run("step_names", cases, fuzz::seed(), input, |n| check(n, true));
    // The unmutated bases and mild mutations read: the target is not only refusals.
    assert!(ok * 10 >= cases, "only {ok} of {cases} read as steps");
}

#[test]
fn steps_quick() {
    fuzz_steps(3000);
}

#[test]
#[ignore = "volume: run by ./dev fuzz"]
fn fuzz_step_names() {
    fuzz_steps(fuzz::volume());
}
