//! Native tests of a training step in the view: its result row (the data-metric contract)
//! and the training plot that stands in for the sweep, against the book's numbers.
#![cfg(not(target_arch = "wasm32"))]

use roofline::train::PlotAxis;
use roofline_lab::view::{self, ChartModel, SweepMetric};

fn scenario(q: &str) -> roofline::Scenario {
    let d = roofline::url::decode(q);
    assert!(d.notices.is_empty(), "{q}: {:?}", d.notices);
    d.scenario
}

fn value(row: &view::ResultRow, metric: &str) -> f64 {
    let c = row
        .cells
        .iter()
        .find(|c| c.metric == metric)
        .unwrap_or_else(|| panic!("{metric} missing in {}", row.name));
    c.value
        .parse()
        .unwrap_or_else(|_| panic!("{metric}: {}", c.value))
}

/// applied-training.md: LLaMA 3-70B, 15T tokens on 8960 TPU v5p at 40% MFU, "about 44 days"
/// (6.3e24/(8960 × 4.59e14 × 0.4)/86,400 = 44.33; with N = 70.55e9, 6.3498e24 FLOPs: 44.675).
/// The row carries every figure the issue names.
#[test]
fn the_row_shows_the_books_44_days() {
    let s = scenario("chip=tpu-v5p&op=train:dp=1,fsdp=2240,mfu=0.4");
    let rows = view::result_rows(&s);
    let r = &rows[0];
    assert!(r.error.is_none(), "{:?}", r.error);
    for m in [
        "t_lower",
        "t_upper",
        "mfu",
        "tokens_per_s",
        "days",
        "days_at_mfu",
        "memory",
        "fits",
        "critical_b",
        "cost",
    ] {
        assert!(r.cells.iter().any(|c| c.metric == m), "{m} missing");
    }
    let d = value(r, "days_at_mfu");
    assert!((d - 44.675).abs() < 0.001, "{d}");
    // tokens/s = B / t_lower; days = tokens / (tokens/s) / 86,400.
    let tps = value(r, "tokens_per_s");
    assert!((tps - 4_194_304.0 / value(r, "t_lower")).abs() < 1e-6 * tps);
    let days = value(r, "days");
    assert!((days - 15e12 / tps / 86_400.0).abs() < 1e-9 * days);
    // FSDP binds below 311.5 tokens per chip (the book's 2550/M_X/tp = 318.75 beside it).
    let crit = r.cells.iter().find(|c| c.metric == "critical_b").unwrap();
    assert!(crit.text.starts_with("B/N > 311.5"), "{}", crit.text);
    assert!(crit.text.contains("319"), "{}", crit.text);
    assert!(r.derivation().iter().any(|l| l.contains("44.68 days")));
    // The key line says what binds, and where it turned compute-bound, once (issue 38: it
    // said "compute-bound, compute-bound for B/N > 311.5").
    let key = view::key_line(&s);
    assert!(
        key.contains("above its crossover B/N = 311.5 exactly"),
        "{key}"
    );
    assert_eq!(key.matches("compute-bound").count(), 1, "{key}");
}

/// With only training steps and the default sweep (`b`), the sweep plot is the training
/// plot against the batch per chip: four strategies, FSDP's crossover near the book's
/// 2550/M_X tokens per chip (train/plot.rs's doc test: 8192 v5p chips, between 700 and 1100),
/// and the out-of-memory boundary.
#[test]
fn the_training_plot_stands_in_for_the_sweep() {
    let s = scenario("chip=tpu-v5p&op=train:dp=2,fsdp=1024");
    assert_eq!(view::train_axis(&s), PlotAxis::BatchPerChip);
    let c = view::sweep_chart(&s, SweepMetric::Time, true, true);
    assert_eq!(
        c.series.len(),
        4,
        "{:?}",
        c.series.iter().map(|x| &x.label).collect::<Vec<_>>()
    );
    assert_eq!(c.x_label, "batch per chip B/N (tokens)");
    let fsdp = c
        .crossovers
        .iter()
        .find(|m| m.label.starts_with("pure FSDP") || m.label.contains("FSDP:"))
        .unwrap_or_else(|| panic!("{:?}", c.crossovers));
    assert!(fsdp.x > 700.0 && fsdp.x < 1100.0, "{fsdp:?}");
    // Out of memory: the mesh's boundary is a line (its largest batch per chip that fits);
    // pure data parallelism replicates 70.55e9 parameters with fp32 Adam and master weights
    // (16 bytes each: 1.13 TB per chip against 96 GB) and never fits.
    assert_eq!(c.vlines.len(), 1, "{:?}", c.vlines);
    assert!(
        c.vlines[0].label.starts_with("out of memory above B/N = "),
        "{:?}",
        c.vlines
    );
    let dp = c
        .series
        .iter()
        .find(|x| x.label.starts_with("data parallelism"))
        .unwrap();
    assert!(dp.label.ends_with(" — out of memory"), "{}", dp.label);
    // The step time grows with the batch per chip (more tokens per chip per step).
    let first = &c.series[0].points;
    assert!(first.last().unwrap().1 > first[0].1);
    // MFU never above 100%; against the chips with sweep=n.
    let m = view::sweep_chart(&s, SweepMetric::Fraction, true, false);
    assert!(m
        .series
        .iter()
        .flat_map(|x| &x.points)
        .all(|p| p.1 > 0.0 && p.1 <= 100.0 + 1e-9));
    let n = scenario("chip=tpu-v5p&op=train:dp=2,fsdp=1024&sweep=n:1..64");
    let c = view::sweep_chart(&n, SweepMetric::Time, true, true);
    assert_eq!(c.x_label, "chips N");
    assert!(!c.series.is_empty());
    // It draws (SVG export) and has a table for screen readers.
    let model = ChartModel::Sweep(c);
    let svg = model.to_svg(false, 800, 500).unwrap();
    assert!(svg.contains("chips N"));
    assert!(!model.table().1.is_empty());
}

/// A derate lowers the plotted MFU with the peak (MFU against the nominal peak).
#[test]
fn the_plot_follows_the_derate() {
    let full = scenario("chip=tpu-v5p&op=train:dp=1,fsdp=2240");
    let half = scenario("chip=tpu-v5p&op=train:dp=1,fsdp=2240&derate=0.5");
    let f = view::sweep_chart(&full, SweepMetric::Time, true, true);
    let h = view::sweep_chart(&half, SweepMetric::Time, true, true);
    // Compute-bound at large batches per chip: the step takes twice as long at half the peak.
    let (tf, th) = (f.series[0].points[32].1, h.series[0].points[32].1);
    assert!((th / tf - 2.0).abs() < 1e-6, "{tf} {th}");
}

/// A scenario whose operations have the swept field keeps its sweep.
#[test]
fn other_sweeps_are_unchanged() {
    let s = scenario("chip=tpu-v5p&op=train&op=matmul");
    assert!(view::train_chart(&s, SweepMetric::Achieved, false, false).is_none());
}

/// A training row says what to expect (issue 25): its step time times the set's training ratio
/// (the TPU pool for a v5p), and from it the MFU and the budget's days, by hand: MFU × T_lower /
/// t_expected and days × t_expected / T_lower.
#[test]
fn a_training_row_expects_its_mfu_and_days() {
    let s = scenario("chip=tpu-v5p&op=train:dp=1,fsdp=2240,mfu=0.4");
    let rows = view::result_rows(&s);
    let r = &rows[0];
    let (t, e) = (value(r, "t_lower"), value(r, "t_expected"));
    assert!(e > t, "{e} vs {t}");
    let close = |a: f64, b: f64| assert!((a - b).abs() <= 1e-12 * b.abs(), "{a} vs {b}");
    close(value(r, "mfu_expected"), value(r, "mfu") * t / e);
    close(value(r, "days_expected"), value(r, "days") * e / t);
}
