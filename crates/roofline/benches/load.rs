//! Benchmarks of serving under load (issue 40): one scenario's load figures, bound and
//! expected, natively (the budget: ≤ 1 ms), a closed loop's figures alone, and one mixed step.
//! Before divan's table it prints the budget's figure and whether it is met.
//!
//! Run: `cargo bench -p roofline --bench load`

use divan::{black_box, Bencher};
use roofline::serving::{load_figures, step_time, PhaseLoad, StepMix};
use roofline::url::decode;
use roofline::validation::load::load_expectation;
use roofline::{Chip, Op, Options};
use std::time::Instant;

/// The budget for one scenario's load figures, natively.
const BUDGET_MS: f64 = 1.0;

/// The heaviest figures a row asks for: an open loop (its rate solved), saturation and goodput
/// (both bounds set), bound and expected.
const RATE: &str = "?chip=h200&op=llm:preset=llama3.1-70b,tp=8,link=nvlink,w=fp8,x=fp8,prompt=1024,output=1024,load=rate,qps=10,engine=vllm,ttft_max=500,tpot_max=20";
const CLOSED: &str = "?chip=h200&op=llm:preset=llama3.1-70b,tp=8,link=nvlink,w=fp8,x=fp8,prompt=8192,output=1024,load=concurrency,c=64,engine=trtllm";

fn scenario(link: &str) -> (Op, Chip, Options) {
    let d = decode(link);
    assert!(d.notices.is_empty(), "{:?}", d.notices);
    let s = d.scenario;
    (s.ops[0].clone(), s.chips[0].clone(), s.options)
}

fn figures(op: &Op, chip: &Chip, opts: &Options) {
    black_box(load_figures(op, chip, opts).unwrap());
    black_box(load_expectation(op, chip, opts).unwrap());
}

fn main() {
    let (op, chip, opts) = scenario(RATE);
    let mut times: Vec<f64> = (0..201)
        .map(|_| {
            let t = Instant::now();
            figures(&op, &chip, &opts);
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    times.sort_by(f64::total_cmp);
    let median = times[times.len() / 2];
    println!(
        "load figures of one scenario (open loop, saturation, goodput; bound and expected), native median: {median:.3} ms, budget ≤ {BUDGET_MS} ms: {}",
        if median <= BUDGET_MS { "met" } else { "missed" }
    );
    divan::main();
}

#[divan::bench]
fn one_scenario_rate(bencher: Bencher) {
    let (op, chip, opts) = scenario(RATE);
    bencher.bench(|| figures(&op, &chip, &opts));
}

#[divan::bench]
fn one_scenario_closed_loop(bencher: Bencher) {
    let (op, chip, opts) = scenario(CLOSED);
    bencher.bench(|| figures(&op, &chip, &opts));
}

#[divan::bench]
fn one_mixed_step(bencher: Bencher) {
    let (op, chip, opts) = scenario(CLOSED);
    let mix = StepMix {
        prefill: PhaseLoad::uniform(1.0, 8192.0, 8192.0),
        decode: PhaseLoad::decode(63.0, 8704.0),
    };
    bencher.bench(|| step_time(black_box(&op), &chip, &opts, &mix).unwrap());
}
