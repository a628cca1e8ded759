//! Benchmarks: one analysis, one derivation, and sweeps (1 and 4 series × 1024 points): a
//! matmul's, and an `llm` step's `b` (dense and MoE) and `ctx` sweeps, the Llama-3 8B `b` sweep
//! also the reference way (the step rebuilt at every point) beside the fast one (issue 16's
//! budget: ≤ 100 µs).
//!
//! Run: `cargo bench -p roofline --bench analysis`

use divan::{black_box, Bencher};
use roofline::{analyze, preset, sweep, sweep_rebuilt, Chip, Op, Options, Scenario, SweepSpec};

fn main() {
    divan::main();
}

fn spec() -> SweepSpec {
    SweepSpec {
        field: "b".into(),
        from: 1.0,
        to: 4096.0,
        points: 1024,
        log: false,
    }
}

#[divan::bench]
fn one_analysis(bencher: Bencher) {
    let sc = Scenario::default();
    let (op, chip) = (&sc.ops[0], &sc.chips[0]);
    bencher.bench(|| analyze(black_box(op), black_box(chip), &sc.options).unwrap());
}

#[divan::bench]
fn one_derivation(bencher: Bencher) {
    let sc = Scenario::default();
    let a = analyze(&sc.ops[0], &sc.chips[0], &sc.options).unwrap();
    bencher.bench(|| black_box(&a).derivation());
}

#[divan::bench]
fn sweep_1x1024(bencher: Bencher) {
    let sc = Scenario::default();
    let s = spec();
    bencher.bench(|| sweep(black_box(&sc.ops[0]), &sc.chips[0], &sc.options, &s).unwrap());
}

#[divan::bench]
fn sweep_4x1024(bencher: Bencher) {
    let sc = Scenario::default();
    let chips: Vec<Chip> = ["tpu-v5e", "h100"]
        .iter()
        .filter_map(|id| preset(id))
        .collect();
    let ops: Vec<Op> = sc.ops.clone();
    let s = spec();
    let opts = Options::default();
    bencher.bench(|| {
        let mut n = 0;
        for c in &chips {
            for o in &ops {
                n += sweep(black_box(o), c, &opts, &s).unwrap().points.len();
            }
        }
        n
    });
}

/// A default `llm` op (Llama-3 8B decode) with `edit` applied.
fn llm(edit: &[(&str, &str)]) -> Op {
    let mut op = Op::default_for("llm").unwrap();
    for (k, v) in edit {
        op.set(k, v).unwrap();
    }
    op
}

fn llm_sweep(bencher: Bencher, op: Op, s: SweepSpec) {
    let chip = preset("h100").unwrap();
    let opts = Options::default();
    bencher.bench(|| sweep(black_box(&op), &chip, &opts, &s).unwrap());
}

/// Issue 16's budget: a 1024-point `b` sweep of a Llama-3 8B decode step, ≤ 100 µs.
#[divan::bench]
fn llm_b_sweep_1024(bencher: Bencher) {
    llm_sweep(bencher, llm(&[]), spec());
}

/// The same sweep rebuilding the step's parts at every point (the path before issue 16).
#[divan::bench]
fn llm_b_sweep_1024_rebuilt(bencher: Bencher) {
    let (op, s) = (llm(&[]), spec());
    let chip = preset("h100").unwrap();
    let opts = Options::default();
    bencher.bench(|| sweep_rebuilt(black_box(&op), &chip, &opts, &s).unwrap());
}

/// The same sweep of an MoE (DeepSeek-V3, MLA, tensor parallel over 8 NVLink chips).
#[divan::bench]
fn llm_moe_b_sweep_1024(bencher: Bencher) {
    let op = llm(&[("preset", "deepseek-v3"), ("tp", "8"), ("link", "nvlink")]);
    llm_sweep(bencher, op, spec());
}

/// A 1024-point context sweep of a Llama-3 8B decode step at B = 64.
#[divan::bench]
fn llm_ctx_sweep_1024(bencher: Bencher) {
    let s = SweepSpec {
        field: "ctx".into(),
        from: 128.0,
        to: 131072.0,
        points: 1024,
        log: true,
    };
    llm_sweep(bencher, llm(&[("b", "64")]), s);
}

/// Setup only: a 2-point `b` sweep of Llama-3 8B decode.
#[divan::bench]
fn llm_b_sweep_2(bencher: Bencher) {
    let s = SweepSpec {
        points: 2,
        ..spec()
    };
    llm_sweep(bencher, llm(&[]), s);
}

/// An `llm` step's analysis beside what a result row adds for issue 26: its three
/// elasticities (up to 3 more evaluations of `t_lower`), and the explanation panel's figures
/// against another chip (computed only while the panel is open).
#[divan::bench]
fn llm_step_analysis(bencher: Bencher) {
    let (op, chip, opts) = (llm(&[]), preset("h100").unwrap(), Options::default());
    bencher.bench(|| analyze(black_box(&op), &chip, &opts).unwrap());
}

#[divan::bench]
fn llm_step_elasticities(bencher: Bencher) {
    let (op, chip, opts) = (llm(&[]), preset("h100").unwrap(), Options::default());
    let a = analyze(&op, &chip, &opts).unwrap();
    bencher.bench(|| roofline::compare::elasticities(black_box(&a), &chip, &opts));
}

#[divan::bench]
fn llm_step_explain_h100_b200(bencher: Bencher) {
    let (op, opts) = (llm(&[]), Options::default());
    let (h100, b200) = (preset("h100").unwrap(), preset("b200").unwrap());
    bencher.bench(|| roofline::compare::explain((&op, &h100), (black_box(&op), &b200), &opts));
}
