//! Benchmarks of the serving row's simulated tails (issue 42): the scenario (10,000
//! requests of Llama 3.1-70B FP8 on 8 × H200, prompts of 1,024 tokens, outputs of 1,024,
//! 64 clients under vLLM, each step read by the stored fits), natively, against its budget
//! (≤ 20 ms; the page's figure, with the worker's start-up, is `benches/page.rs`'s), and the
//! deployment's set-up alone.
//! Before divan's table it prints the budget's figure and whether it is met.
//!
//! Run: `cargo bench -p roofline --bench tails`

use divan::{black_box, Bencher};
use roofline::op::Llm;
use roofline::serving::sim;
use roofline::serving::tails::{tails, SIM_REQUESTS};
use roofline::url::decode;
use roofline::validation::load::steps::FittedSteps;
use roofline::{Chip, Op, Options};
use std::time::Instant;

/// The budget for the scenario's tails, natively.
const BUDGET_MS: f64 = 20.0;

/// The scenario (`benches/page/sim_tails.rs` times the same link in the page).
const LINK: &str = "?chip=h200&op=llm:preset=llama3.1-70b,tp=8,link=nvlink,w=fp8,x=fp8,prompt=1024,output=1024,load=concurrency,c=64,engine=vllm";

fn scenario() -> (Op, Vec<Chip>, Options) {
    let d = decode(LINK);
    assert!(d.notices.is_empty(), "{:?}", d.notices);
    let s = d.scenario;
    (s.ops[0].clone(), s.chips, s.options)
}

fn row(op: &Op, chips: &[Chip], opts: &Options, fits: &FittedSteps) {
    let t = tails(op, chips, 0, opts, fits).unwrap().unwrap();
    assert_eq!(t.requests, SIM_REQUESTS);
    black_box(t);
}

fn main() {
    let (op, chips, opts) = scenario();
    let fits = FittedSteps::stored();
    let mut times: Vec<f64> = (0..9)
        .map(|_| {
            let t = Instant::now();
            row(&op, &chips, &opts, &fits);
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    times.sort_by(f64::total_cmp);
    let median = times[times.len() / 2];
    println!(
        "tails: 10,000 requests of Llama 3.1-70B FP8 on 8 × H200, c = 64, native median of 9: {median:.1} ms, budget ≤ {BUDGET_MS} ms: {}",
        if median <= BUDGET_MS { "met" } else { "missed" }
    );
    divan::main();
}

/// The whole row, as the page's worker computes it (less the cells' words).
#[divan::bench(sample_count = 10)]
fn whole_row(bencher: Bencher) {
    let (op, chips, opts) = scenario();
    let fits = FittedSteps::stored();
    bencher.bench(|| row(&op, &chips, &opts, &fits));
}

fn llm(op: &Op) -> Llm {
    *op.llm().unwrap()
}

/// The aggregated deployment's set-up alone: the engine's caps and pool, the step evaluator.
#[divan::bench(sample_count = 10)]
fn deployment(bencher: Bencher) {
    let (op, chips, opts) = scenario();
    let fits = FittedSteps::stored();
    let l = llm(&op);
    bencher.bench(|| black_box(sim::aggregated(&l, &chips[0], &opts, &fits).unwrap()));
}
