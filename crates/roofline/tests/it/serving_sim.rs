//! The simulation of serving tails (issue 42): its step evaluator against the mixed step, and
//! the simulated requests against the two models that must hold where they apply: the
//! steady-state load model of issue 40 in a closed loop, and the M/D/1 queue in an open loop
//! of one request at a time.

use crate::common;

use common::op_with;
use roofline::op::Llm;
use roofline::serving::sim::{self, Arrivals, BoundSteps, SimSpec, Starts, StepCoef};
use roofline::serving::{step_time, LoadModel, PhaseLoad, StepEval, StepMix};
use roofline::*;

fn llm(kv: &[(&str, &str)]) -> (Op, Llm) {
    let op = op_with("llm", kv);
    let l = *op.llm().unwrap();
    (op, l)
}

/// The evaluator times a step as `step_time` does, to rounding, for every preset of the zoo
/// (dense, MoE, MLA, windows) on a tensor-parallel group, over pure, mixed and chunked steps;
/// and it takes the linear path for each (the direct one is only a fallback).
#[test]
fn evaluator_matches_the_mixed_step() {
    let h100 = preset("h100").unwrap();
    let opts = Options::default();
    let mixes = [
        StepMix::decode(PhaseLoad::decode(1.0, 1.0)),
        StepMix::decode(PhaseLoad::decode(64.0, 2560.0)),
        StepMix::prefill(PhaseLoad::prefill(2.0, 3000.0)),
        StepMix {
            prefill: PhaseLoad::uniform(1.0, 1024.0, 5000.0),
            decode: PhaseLoad::decode(255.0, 9000.0),
        },
        StepMix {
            prefill: PhaseLoad::uniform(3.0, 17.0, 17.0)
                .plus(PhaseLoad::uniform(1.0, 8000.0, 8000.0)),
            decode: PhaseLoad::decode(7.0, 130_000.0),
        },
    ];
    for p in llm_presets() {
        let heads = p.arch.heads;
        let tp = [8.0, 4.0, 2.0, 1.0]
            .into_iter()
            .find(|t| heads % t == 0.0)
            .unwrap();
        let (op, l) = llm(&[
            ("preset", p.id),
            ("tp", &tp.to_string()),
            ("link", "nvlink"),
            ("w", "fp8"),
        ]);
        let mut e = StepEval::new(&l, &h100, &opts).unwrap();
        assert!(e.is_linear(), "{}: the linear model's check failed", p.id);
        for mix in &mixes {
            let want = step_time(&op, &h100, &opts, mix).unwrap();
            // Twice: the second from the (B, T) cache.
            for _ in 0..2 {
                let got = e.step(mix).unwrap();
                let rel = (got.t - want.t).abs() / want.t;
                assert!(rel < 1e-12, "{} {mix:?}: {} vs {}", p.id, got.t, want.t);
                for i in 0..3 {
                    assert!((got.by_bound[i] - want.by_bound[i]).abs() <= 1e-12 * want.t);
                }
                assert_eq!(got.collectives, want.collectives, "{}", p.id);
            }
        }
        assert!(
            e.counts.1 >= mixes.len() as u64,
            "{}: the cache was not used",
            p.id
        );
    }
}

pub(crate) fn spec(requests: usize, arrivals: Arrivals, l: &Llm) -> SimSpec {
    SimSpec {
        requests,
        arrivals,
        seed: 1,
        prompt: l.prompt,
        output: l.output,
        prompt_cv: 0.0,
        output_cv: 0.0,
        max_steps: 50_000_000,
        fast_forward: true,
        slo: None,
    }
}

/// One client alone is exact by hand: its request's prefill step, then one decode step per
/// further token at contexts `P + 1 … P + G − 1`, back to back; the next request is sent as
/// the last token leaves. TTFT, TPOT, E2E and requests/s are those sums.
#[test]
fn one_client_is_its_steps() {
    let h100 = preset("h100").unwrap();
    let opts = Options::default();
    let (op, l) = llm(&[("prompt", "300"), ("output", "40"), ("engine", "vllm")]);
    let prefill = step_time(
        &op,
        &h100,
        &opts,
        &StepMix::prefill(PhaseLoad::prefill(1.0, 300.0)),
    )
    .unwrap()
    .t;
    let decode: f64 = (1..40)
        .map(|g| {
            let mix = StepMix::decode(PhaseLoad::decode(1.0, 300.0 + g as f64));
            step_time(&op, &h100, &opts, &mix).unwrap().t
        })
        .sum();
    let mut dep = sim::aggregated(&l, &h100, &opts, &BoundSteps).unwrap();
    let arrivals = Arrivals::Closed {
        clients: 1,
        starts: Starts::Ramp,
    };
    let r = sim::run(&mut dep, &spec(50, arrivals, &l)).unwrap();
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b;
    assert!(close(r.ttft.p99, prefill) && close(r.ttft.p50, prefill));
    assert!(close(r.tpot.unwrap().mean, decode / 39.0));
    assert!(close(r.e2e.mean, prefill + decode));
    assert!(close(r.requests_per_s, 1.0 / (prefill + decode)));
    assert_eq!((r.measured, r.warmup), (40, 10));
    // Every gap between tokens is one decode step: the slowest is the last, at context 339.
    let last = step_time(
        &op,
        &h100,
        &opts,
        &StepMix::decode(PhaseLoad::decode(1.0, 339.0)),
    )
    .unwrap()
    .t;
    assert!(close(r.itl.unwrap().p99, last));
}

/// Check (1) as the issue states it: a closed loop of fixed lengths at 25, 50 and 90 % of the
/// cap, the clients started at seeded random offsets within one request's latency and the
/// first 20 % of requests discarded, against the steady-state model read the same way (the
/// bound). Llama-3 8B on an H100 under vLLM's pattern, prompts of 512 tokens, outputs of 64,
/// the cap set to 64 sequences, seed 1. What it measures (docs/serving.md has seeds 1–3):
///
/// * at 25 and 50 % mean TPOT and requests/s are within 5 % (+1.7 % and −1.3 %, +3.7 % and
///   −3.2 %);
/// * mean TTFT is 10.5 % and 11.4 % *below* the model's and above the model's own prefill
///   (its TTFT less the residual): in a closed loop a request is sent as a step ends, so it
///   never waits for a step in progress, where the model adds the residual of an arrival at
///   a random time (`E[t²]/(2·E[t])`, 3.1 and 3.8 ms); prompts that arrive in one step are
///   prefilled together (longer chunk steps), which puts some of it back;
/// * at 90 % the clients' first requests collide: with fixed lengths two prompts prefilled in
///   one step finish in one step and come back together for good, so chunk steps carry two
///   or three prompts and more steps decode alone: TPOT +12.5 %, requests/s −12.1 %, TTFT
///   +66 %: the steady state's "prompts apart" premise does not hold there.
#[test]
fn closed_loop_against_the_steady_state() {
    let h100 = preset("h100").unwrap();
    let opts = Options::default();
    for c in [16usize, 32, 58] {
        let (op, l) = llm(&[
            ("prompt", "512"),
            ("output", "64"),
            ("max_seqs", "64"),
            ("engine", "vllm"),
            ("load", "concurrency"),
            ("c", &c.to_string()),
        ]);
        let m = LoadModel::new(&op, &h100, &opts).unwrap();
        assert_eq!(m.resolved.cap, 64.0);
        let model = m.closed(c as f64, &StepCoef::BOUND).unwrap().unwrap();
        let life = model.state.lifetime(l.output);
        let mut dep = sim::aggregated(&l, &h100, &opts, &BoundSteps).unwrap();
        let arrivals = Arrivals::Closed {
            clients: c,
            starts: Starts::Random { within: life },
        };
        let r = sim::run(&mut dep, &spec(3000, arrivals, &l)).unwrap();
        let tpot = r.tpot.unwrap().mean;
        let rel = |a: f64, b: f64| (a - b) / b;
        let own_prefill = model.ttft - model.state.residual;
        eprintln!(
            "c {c}: TPOT {:+.1} %, requests/s {:+.1} %, TTFT {:+.1} % (own prefill {:+.1} %)",
            100.0 * rel(tpot, model.tpot),
            100.0 * rel(r.requests_per_s, model.requests_per_s),
            100.0 * rel(r.ttft.mean, model.ttft),
            100.0 * rel(r.ttft.mean, own_prefill),
        );
        if c < 58 {
            assert!(rel(tpot, model.tpot).abs() < 0.05, "c {c}");
            assert!(
                rel(r.requests_per_s, model.requests_per_s).abs() < 0.05,
                "c {c}"
            );
            assert!(
                r.ttft.mean < model.ttft && r.ttft.mean > own_prefill,
                "c {c}"
            );
        } else {
            assert!(tpot > model.tpot && r.requests_per_s < model.requests_per_s);
            assert!(r.ttft.mean > model.ttft);
        }
        assert!(r.ttft.p50 <= r.ttft.p90 && r.ttft.p90 <= r.ttft.p99);
        assert_eq!(r.preempted, 0);
        // Little's law over the simulated run itself: c = X·(mean E2E).
        assert!(
            rel(r.requests_per_s * r.e2e.mean, c as f64).abs() < 0.02,
            "c {c}"
        );
    }
}

/// Steps read by coefficients that differ by bound, with costs per step, collective and
/// sequence (as an engine's fitted terms are): a part read with the wrong bound would change
/// a step's time by far more than rounding.
struct Uneven;

impl sim::StepTiming for Uneven {
    fn coef(&self, _: &Llm, _: &Chip) -> Result<StepCoef, String> {
        Ok(StepCoef {
            by_bound: [1.9, 1.2, 1.6],
            per_step: 3e-4,
            per_collective: 4e-6,
            per_sequence: 2e-6,
        })
    }
    fn basis(&self, _: &Llm) -> String {
        String::new()
    }
}

/// A run of decode steps timed in one go (each attention part's seconds, then the step's, as
/// lines along the run while no part changes its longest term) gives the figures of one
/// event per step, to rounding: an open loop with lognormal lengths, so runs end at arrivals
/// as well as at completions, and a mixed closed loop, each read by the bound and by
/// coefficients that differ by bound; and long contexts and outputs (runs of hundreds of
/// steps, where rounding would grow along a run).
#[test]
fn runs_of_decode_steps_change_nothing() {
    let h100 = preset("h100").unwrap();
    let opts = Options::default();
    let (_, short) = llm(&[("prompt", "700"), ("output", "90"), ("engine", "vllm")]);
    let (_, long) = llm(&[("prompt", "30000"), ("output", "3000"), ("engine", "vllm")]);
    let timings: [&dyn sim::StepTiming; 2] = [&BoundSteps, &Uneven];
    for (l, arrivals, timing) in [
        (short, Arrivals::Open { qps: 30.0 }, timings[0]),
        (short, Arrivals::Open { qps: 30.0 }, timings[1]),
        (
            short,
            Arrivals::Closed {
                clients: 24,
                starts: Starts::Random { within: 0.5 },
            },
            timings[0],
        ),
        (
            short,
            Arrivals::Closed {
                clients: 24,
                starts: Starts::Random { within: 0.5 },
            },
            timings[1],
        ),
        (
            long,
            Arrivals::Closed {
                clients: 6,
                starts: Starts::Random { within: 5.0 },
            },
            timings[1],
        ),
    ] {
        let mut s = spec(if l.output > 1000.0 { 40 } else { 600 }, arrivals, &l);
        s.prompt_cv = 0.5;
        s.output_cv = 0.8;
        let a = sim::run(&mut sim::aggregated(&l, &h100, &opts, timing).unwrap(), &s).unwrap();
        s.fast_forward = false;
        let b = sim::run(&mut sim::aggregated(&l, &h100, &opts, timing).unwrap(), &s).unwrap();
        let close = |x: f64, y: f64| (x - y).abs() <= 1e-9 * y.abs();
        assert_eq!(a.steps, b.steps);
        for (x, y) in [
            (a.ttft.p99, b.ttft.p99),
            (a.itl.unwrap().p99, b.itl.unwrap().p99),
            (a.itl.unwrap().mean, b.itl.unwrap().mean),
            (a.tpot.unwrap().p50, b.tpot.unwrap().p50),
            (a.e2e.mean, b.e2e.mean),
            (a.requests_per_s, b.requests_per_s),
            (a.running, b.running),
        ] {
            assert!(close(x, y), "{x} vs {y}");
        }
    }
}

/// Check (2): one request at a time (`max_seqs=1`) in an open loop is exactly an M/D/1 queue
/// with service `D = TTFT₀ + Σ decode steps` (here written out from `step_time`: the lone
/// prefill of 512 tokens, then decode steps at contexts 513 … 527 for an output of 16); the
/// mean wait is `λD²/(2(1 − λD))` (Pollaczek–Khinchine with a deterministic service). Over
/// 100,000 requests: within 5 % at ρ = 0.2 and 0.5, within 10 % at ρ = 0.8.
#[test]
fn one_at_a_time_is_md1() {
    let h100 = preset("h100").unwrap();
    let opts = Options::default();
    let (op, l) = llm(&[
        ("prompt", "512"),
        ("output", "16"),
        ("max_seqs", "1"),
        ("engine", "vllm"),
        ("load", "rate"),
    ]);
    let ttft0 = step_time(
        &op,
        &h100,
        &opts,
        &StepMix::prefill(PhaseLoad::prefill(1.0, 512.0)),
    )
    .unwrap()
    .t;
    let decode: f64 = (1..16)
        .map(|g| {
            let mix = StepMix::decode(PhaseLoad::decode(1.0, 512.0 + g as f64));
            step_time(&op, &h100, &opts, &mix).unwrap().t
        })
        .sum();
    let d = ttft0 + decode;
    for (rho, tol) in [(0.2, 0.05), (0.5, 0.05), (0.8, 0.10)] {
        let lambda = rho / d;
        let mut dep = sim::aggregated(&l, &h100, &opts, &BoundSteps).unwrap();
        let r = sim::run(&mut dep, &spec(100_000, Arrivals::Open { qps: lambda }, &l)).unwrap();
        let wait = r.ttft.mean - ttft0;
        let want = lambda * d * d / (2.0 * (1.0 - lambda * d));
        assert!(
            (wait - want).abs() / want < tol,
            "ρ {rho}: wait {wait} vs M/D/1 {want}"
        );
        // Every request's service is D: its E2E less its wait.
        assert!(((r.e2e.mean - wait) - d).abs() / d < 1e-9);
    }
}
