//! Benchmarks: one analysis, one derivation, and sweeps (1 and 4 series × 1024 points).
//!
//! Run: `CARGO_TARGET_DIR=/tmp/tgt-core cargo bench -p roofline`

use divan::{black_box, Bencher};
use roofline::{analyze, preset, sweep, Chip, Op, Options, Scenario, SweepSpec};

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
