//! Fuzzing of the simulated serving tails (issue 42): random `llm` ops under a load, with
//! spread lengths, seeds, service levels, disaggregated deployments and host KV tiers, on
//! random chips, through `serving::tails::tails` with the published engines' fitted steps.
//!
//! Properties: nothing panics. A run gives every percentile finite and non-negative with
//! P50 ≤ P90 ≤ P99 (TTFT, ITL, TPOT, E2E), a finite positive rate, a goodput at the service
//! level no larger than the deployment's saturation; a run with no figures says why; a
//! refused op says why in a short message.
//!
//! Each case simulates up to ten thousand requests (a disaggregated `auto` case many times
//! over), so the volume run takes a thousandth of `FUZZ_CASES` cases (`./dev fuzz`); `tails_quick` runs 4 in the normal tests:
//!
//! ```text
//! FUZZ_CASES=100000 cargo test -p roofline --release --test fuzz -- --ignored --nocapture tails_fuzz::
//! ```

use crate::common;

use common::fuzz;
use common::Rng;
use roofline::serving::sim::Pcts;
use roofline::serving::tails::tails;
use roofline::validation::load::steps::FittedSteps;
use roofline::{preset, Op, Options};

const PRESETS: &[&str] = &["llama3-8b", "llama3-70b", "mixtral-8x7b", "qwen3-30b-a3b"];
const CHIPS: &[&str] = &["h100", "h200", "b200", "gb200", "a100", "mi300x"];

/// A random op's settings under a load, and its chip.
fn random_case(r: &mut Rng) -> (Vec<(String, String)>, &'static str) {
    let mut kv: Vec<(String, String)> = Vec::new();
    let mut set = |k: &str, v: String| kv.push((k.to_string(), v));
    set("preset", r.pick(PRESETS).to_string());
    set("tp", r.pick(&["1", "2", "4", "8"]).to_string());
    set("link", "nvlink".into());
    set("load", r.pick(&["concurrency", "rate"]).to_string());
    set(
        "engine",
        r.pick(&["generic", "vllm", "sglang", "trtllm"]).to_string(),
    );
    set("c", format!("{}", 1 + r.below(256)));
    set("qps", format!("{}", 0.01 + 50.0 * r.unit()));
    set("prompt", format!("{}", 1 + r.below(4096)));
    set("output", format!("{}", 1 + r.below(512)));
    if r.chance(2) {
        set("prompt_cv", format!("{}", 2.0 * r.unit()));
        set("output_cv", format!("{}", 2.0 * r.unit()));
    }
    set("seed", format!("{}", r.below(1000)));
    if r.chance(3) {
        set("prefix_hit", format!("{}", r.unit()));
    }
    if r.chance(3) {
        set("ttft_max", format!("{}", 1.0 + 2000.0 * r.unit()));
        set("tpot_max", format!("{}", 1.0 + 100.0 * r.unit()));
        set("slo_pct", format!("{}", 1.0 + 99.0 * r.unit()));
    }
    match r.below(4) {
        0 => set("disagg", "auto".into()),
        1 => set("disagg", format!("{}P{}D", 1 + r.below(4), 1 + r.below(4))),
        _ => {}
    }
    if r.chance(4) {
        set("kv_host", format!("{:e}", 1e9 * (1.0 + 500.0 * r.unit())));
        set(
            "prefix_set",
            format!("{:e}", 1e8 * (1.0 + 1000.0 * r.unit())),
        );
    }
    (kv, r.pick(CHIPS))
}

fn ordered(what: &str, p: &Pcts) -> Result<(), String> {
    let all = [p.p50, p.p90, p.p99, p.mean];
    if all.iter().any(|x| !x.is_finite() || *x < 0.0) {
        return Err(format!("{what} {p:?}"));
    }
    let tol = 1e-12 * p.p99.abs().max(1.0);
    if p.p50 > p.p90 + tol || p.p90 > p.p99 + tol {
        return Err(format!("{what} out of order {p:?}"));
    }
    Ok(())
}

/// One op: `Ok(true)` when it was simulated.
fn check(case: &(Vec<(String, String)>, &'static str)) -> Result<bool, String> {
    let (kv, chip_id) = case;
    let mut op = Op::default_for("llm").map_err(|e| e.to_string())?;
    for (k, v) in kv {
        // A value the field refuses keeps its default: that is parse_fuzz's to check.
        let _ = op.set(k, v);
    }
    let chips = [preset(chip_id).ok_or("no chip")?];
    let t = match tails(&op, &chips, 0, &Options::default(), &FittedSteps::stored()) {
        Ok(Some(t)) => t,
        Ok(None) => return Err("an op under a load has no tails".into()),
        Err(e) => {
            let e = e.to_string();
            return if e.is_empty() || e.chars().count() > 400 {
                Err(format!("message {e:?}"))
            } else {
                Ok(false)
            };
        }
    };
    let Some(sim) = &t.sim else {
        return match t.why_none {
            Some(_) => Ok(false),
            None => Err("no run and no reason".into()),
        };
    };
    ordered("ttft", &sim.ttft)?;
    ordered("e2e", &sim.e2e)?;
    if let Some(p) = &sim.itl {
        ordered("itl", p)?;
    }
    if let Some(p) = &sim.tpot {
        ordered("tpot", p)?;
    }
    if !(sim.requests_per_s.is_finite() && sim.requests_per_s > 0.0) {
        return Err(format!("rate {}", sim.requests_per_s));
    }
    if let (Some(g), Some(sat)) = (t.goodput_qps_slo, t.saturation_qps) {
        if !(g >= 0.0 && g <= sat * (1.0 + 1e-9)) {
            return Err(format!("goodput {g} past saturation {sat}"));
        }
    }
    Ok(true)
}

fn fuzz_tails(cases: usize) {
    let simulated = fuzz::run(
        "serving tails",
        cases,
        fuzz::seed(),
        |r, _| random_case(r),
        check,
    );
    assert!(simulated > 0, "none of {cases} simulated");
}

#[test]
fn tails_quick() {
    fuzz_tails(4);
}

#[test]
#[ignore = "volume: run by ./dev fuzz"]
fn fuzz_tails_volume() {
    fuzz_tails((fuzz::volume() / 1000).max(10));
}
