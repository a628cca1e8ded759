//! Fuzzing of serving under load (issue 40): random `llm` ops with random load keys (engine,
//! load, clients or rate, prefix hit, chunk budget, sequence cap, bounds, lengths, parallelism)
//! on random chips through `load_figures`, and random step aggregates through `step_time`.
//!
//! Properties: nothing panics. Figures are finite and positive where given, and `none` with a
//! reason where not; a closed loop keeps Little's law `c = X·(TTFT + (G − 1)·TPOT)`, an open
//! loop meets its rate below saturation, a goodput stays below saturation; a refused op or
//! step says why in a short message.
//!
//! `load_quick` runs 300 cases in the normal tests; `./dev fuzz` runs `fuzz_load` with
//! `FUZZ_CASES` (default 100000) in release mode:
//!
//! ```text
//! FUZZ_CASES=100000 cargo test -p roofline --release --test fuzz -- --ignored --nocapture load_fuzz::
//! ```

use crate::common;

use common::fuzz;
use common::Rng;
use roofline::serving::{load_figures, step_time, PhaseLoad, StepMix};
use roofline::{preset, Op, Options};

const MAX_MESSAGE: usize = 400;

const PRESETS: &[&str] = &[
    "llama3-8b",
    "llama3-70b",
    "mixtral-8x7b",
    "qwen3-30b-a3b",
    "deepseek-v3",
    "gpt-oss-20b",
    "gemma3-27b",
];
const CHIPS: &[&str] = &["h100", "h200", "b200", "a100", "l4", "tpu-v5e", "mi300x"];

/// A log-uniform number from `lo` to `hi`, whole when `whole`.
fn log_uniform(r: &mut Rng, lo: f64, hi: f64, whole: bool) -> f64 {
    let x = (lo.ln() + r.unit() * (hi.ln() - lo.ln())).exp();
    if whole {
        x.round().clamp(lo, hi)
    } else {
        x
    }
}

/// A random op's settings (keys and texts) and chip.
fn random_case(r: &mut Rng) -> (Vec<(String, String)>, &'static str) {
    let mut kv: Vec<(String, String)> = Vec::new();
    let mut set = |k: &str, v: String| kv.push((k.to_string(), v));
    set("preset", r.pick(PRESETS).to_string());
    set("tp", r.pick(&["1", "2", "4", "8"]).to_string());
    if r.chance(4) {
        set("ep", r.pick(&["2", "4"]).to_string());
    }
    if r.chance(6) {
        set("moe_ep", r.pick(&["2", "4"]).to_string());
    }
    set("link", "nvlink".into());
    set(
        "load",
        r.pick(&["concurrency", "rate", "rate", "concurrency", "batch"])
            .to_string(),
    );
    set(
        "engine",
        r.pick(&["generic", "vllm", "sglang", "trtllm"]).to_string(),
    );
    set("c", format!("{}", log_uniform(r, 1.0, 1e7, true)));
    set("qps", format!("{:e}", log_uniform(r, 1e-6, 1e9, false)));
    set("prompt", format!("{}", log_uniform(r, 1.0, 1e6, true)));
    set("output", format!("{}", log_uniform(r, 1.0, 1e5, true)));
    if r.chance(2) {
        set("prefix_hit", format!("{}", r.unit()));
    }
    match r.below(4) {
        0 => set("chunk", "none".into()),
        1 => set("chunk", format!("{}", log_uniform(r, 1.0, 1e6, true))),
        _ => {}
    }
    if r.chance(3) {
        set("max_seqs", format!("{}", log_uniform(r, 1.0, 1e7, true)));
    }
    if r.chance(2) {
        set(
            "ttft_max",
            format!("{:e}", log_uniform(r, 1e-3, 1e6, false)),
        );
        set(
            "tpot_max",
            format!("{:e}", log_uniform(r, 1e-3, 1e6, false)),
        );
    }
    for w in ["w", "kv"] {
        if r.chance(3) {
            set(w, r.pick(&["fp8", "int4", "bf16"]).to_string());
        }
    }
    (kv, r.pick(CHIPS))
}

fn finite_pos(what: &str, x: f64) -> Result<(), String> {
    if x.is_finite() && x > 0.0 {
        Ok(())
    } else {
        Err(format!("{what} = {x}"))
    }
}

fn short(e: &str) -> Result<(), String> {
    if e.is_empty() || e.chars().count() > MAX_MESSAGE {
        Err(format!("message {e:?}"))
    } else {
        Ok(())
    }
}

/// One op: `Ok(true)` when it has load figures.
fn check_op(case: &(Vec<(String, String)>, &'static str)) -> Result<bool, String> {
    let (kv, chip_id) = case;
    let mut op = Op::default_for("llm").map_err(|e| e.to_string())?;
    for (k, v) in kv {
        // A value the field refuses keeps its default: that is parse_fuzz's to check.
        let _ = op.set(k, v);
    }
    let chip = preset(chip_id).ok_or("no chip")?;
    let opts = Options::default();
    let f = match load_figures(&op, &chip, &opts) {
        Ok(Some(f)) => f,
        Ok(None) => return Ok(false),
        Err(e) => return short(&e.to_string()).map(|()| false),
    };
    let l = op.llm().ok_or("not an llm")?;
    let g = l.output;
    if let Some(sat) = f.saturation_qps {
        finite_pos("saturation", sat)?;
        if let Some(gp) = f.goodput_qps {
            if !(gp >= 0.0 && gp <= sat * (1.0 + 1e-9)) {
                return Err(format!("goodput {gp} past saturation {sat}"));
            }
        }
    }
    if f.goodput_qps.is_none() && f.goodput_none.is_none() {
        return Err("no goodput and no reason".into());
    }
    let Some(at) = &f.at else {
        return match f.why_none {
            Some(_) => Ok(false),
            None => Err("no figures and no reason".into()),
        };
    };
    finite_pos("ttft", at.ttft)?;
    finite_pos("tpot", at.tpot)?;
    finite_pos("X", at.requests_per_s)?;
    finite_pos("tokens/s", f.tokens_per_s.unwrap_or(f64::NAN))?;
    if at.running < 0.0 || at.running > f.resolved.cap * (1.0 + 1e-12) {
        return Err(format!(
            "running {} past the cap {}",
            at.running, f.resolved.cap
        ));
    }
    let rel = |a: f64, b: f64| ((a - b) / b).abs();
    match l.load {
        roofline::op::Load::Concurrency => {
            let c = l.c;
            let little = at.requests_per_s * (at.ttft + (g - 1.0) * at.tpot);
            if rel(little, c) > 1e-9 {
                return Err(format!("Little: X·lifetime = {little}, c = {c}"));
            }
        }
        _ => {
            if rel(at.requests_per_s, l.qps) > 1e-6 {
                return Err(format!("rate {} for qps {}", at.requests_per_s, l.qps));
            }
        }
    }
    // An open loop runs below saturation. (A closed loop may run above the cap's rate: with a
    // tight chunk budget more sequences in partial prefill reread more keys per step, so the
    // throughput can peak below the cap.)
    if let (Some(sat), roofline::op::Load::Rate) = (f.saturation_qps, l.load) {
        if at.requests_per_s >= sat {
            return Err(format!(
                "X {} at or past saturation {sat}",
                at.requests_per_s
            ));
        }
    }
    Ok(true)
}

/// Random aggregates, real or not, through the step function.
fn check_step(r_seed: &(u64, &'static str)) -> Result<bool, String> {
    let mut r = Rng::new(r_seed.0);
    let mut phase = || -> PhaseLoad {
        let n = if r.chance(4) {
            0.0
        } else {
            log_uniform(&mut r, 1.0, 1e4, true)
        };
        let q = log_uniform(&mut r, 1.0, 1e5, false);
        let k = q + log_uniform(&mut r, 1.0, 1e6, false);
        let mut p = PhaseLoad::uniform(n, q, k);
        if r.chance(5) {
            // Break one aggregate.
            let v = *[f64::NAN, -1.0, 0.0, 1e300, f64::INFINITY]
                .get(r.below(5))
                .unwrap_or(&0.0);
            match r.below(5) {
                0 => p.seqs = v,
                1 => p.sq = v,
                2 => p.sk = v,
                3 => p.sqsq = v,
                _ => p.sqsk = v,
            }
        }
        p
    };
    let mix = StepMix {
        prefill: phase(),
        decode: phase(),
    };
    let mut op = Op::default_for("llm").map_err(|e| e.to_string())?;
    op.set("preset", r_seed.1).map_err(|e| e.to_string())?;
    let chip = preset("h100").ok_or("no chip")?;
    match step_time(&op, &chip, &Options::default(), &mix) {
        Ok(s) => {
            if !(s.t.is_finite() && s.t > 0.0 && s.flops.is_finite()) {
                return Err(format!("step {s:?}"));
            }
            Ok(true)
        }
        Err(e) => short(&e.to_string()).map(|()| false),
    }
}

fn fuzz_load(cases: usize) {
    let figured = fuzz::run(
        "load figures",
        cases,
        fuzz::seed(),
        |r, _| random_case(r),
        check_op,
    );
    // The generator reaches both sides: ops with figures and ops without.
    assert!(
        figured > cases / 5 && figured < cases,
        "{figured} of {cases} with figures"
    );
    let timed = fuzz::run(
        "load step",
        cases,
        fuzz::seed(),
        |r, _| (r.next(), r.pick(PRESETS)),
        check_step,
    );
    assert!(
        timed > cases / 5 && timed < cases,
        "{timed} of {cases} steps timed"
    );
}

#[test]
fn load_quick() {
    fuzz_load(300);
}

#[test]
#[ignore = "volume: run by ./dev fuzz"]
fn fuzz_load_volume() {
    fuzz_load(fuzz::volume());
}
