//! The validation set's report (issue 25): per kind of work, per chip family and overall, the
//! coverage, the bare roofline's median measured / predicted, and the held-out error of the
//! calibrated expectation; then every point's row and the points whose bound sits above the
//! measurement.
//!
//! `cargo run -p roofline --release --example validate --locked` (or `./dev validate`);
//! with `--write`, it also rewrites `src/validation/fitted.rs`, the stored ratios the page
//! fits its expectations on (tests/validation.rs checks they match a fresh evaluation).

use roofline::units::{format_quantity, Unit};
use roofline::validation::{report, Summary, MIN_POINTS};

fn pct(x: Option<f64>) -> String {
    x.map_or("—".into(), |v| format!("{:.1}%", 100.0 * v))
}

fn num(x: Option<f64>) -> String {
    x.map_or("—".into(), |v| format!("{v:.2}"))
}

fn secs(x: f64) -> String {
    format_quantity(x, Unit::Seconds)
}

fn summary_line(s: &Summary) {
    println!(
        "{:<11} {:>5} {:>9} {:>8} {:>9} {:>7} {:>8} {:>11} {:>9}",
        s.label,
        s.total,
        s.expressed,
        pct(Some(s.coverage)),
        num(s.median_ratio),
        s.below_bound,
        s.with_expectation,
        pct(s.median_abs_error),
        pct(s.p90_abs_error)
    );
}

fn header(first: &str) {
    println!(
        "{first:<11} {:>5} {:>9} {:>8} {:>9} {:>7} {:>8} {:>11} {:>9}",
        "total",
        "expressed",
        "coverage",
        "median m/p",
        "m<p",
        "with t_exp",
        "median|err|",
        "p90|err|"
    );
}

/// Writes the stored ratios (`src/validation/fitted.rs`).
fn write_fitted() {
    let mut out = String::from(
        "//! Each expressed point's measured / predicted ratio, as `super::evaluated_ratios` gives\n\
         //! it: stored so the page fits expectations without analysing the set's scenarios on\n\
         //! load. Written by `./dev validate --write`; `tests/validation.rs` checks it equals a fresh\n\
         //! evaluation, bit for bit.\n\n\
         /// `(point id, measured / predicted)`.\n\
         pub(super) const RATIOS: &[(&str, f64)] = &[\n",
    );
    for (id, r) in roofline::validation::evaluated_ratios() {
        out.push_str(&format!("    ({id:?}, {r:?}),\n"));
    }
    out.push_str("];\n");
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/validation/fitted.rs");
    std::fs::write(path, out).expect("write src/validation/fitted.rs");
    eprintln!("wrote {path}");
}

fn main() {
    if std::env::args().any(|a| a == "--write") {
        write_fitted();
    }
    let r = report();
    println!(
        "Roofline Lab validation set {} — {} points; fit: median measured/predicted per kind (per family where it has ≥ {MIN_POINTS} points), held out by source",
        r.set_version,
        r.rows.len()
    );
    println!();
    header("kind");
    for s in &r.by_work {
        summary_line(s);
    }
    summary_line(&r.overall);
    println!();
    header("family");
    for s in &r.by_family {
        summary_line(s);
    }
    println!();
    println!(
        "{:<58} {:<7} {:<11} {:>10} {:>10} {:>7} {:>10} {:>8}  fit",
        "point", "chip", "compared", "measured", "predicted", "m/p", "t_exp", "err"
    );
    for row in &r.rows {
        let p = row.point;
        let (pred, ratio) = match &row.predicted {
            Ok(t) => (secs(*t), num(row.ratio)),
            Err(_) => ("—".into(), "—".into()),
        };
        let (texp, err, fit) = match &row.held_out {
            Some(e) => (
                secs(e.t),
                pct(row.error),
                match &e.borrowed_from {
                    Some(_) => format!("{} pts, r={:.2}, kind pool", e.based_on.len(), e.r),
                    None => format!("{} pts, r={:.2}, {}", e.based_on.len(), e.r, p.family.id()),
                },
            ),
            None => (
                "—".into(),
                "—".into(),
                "no expectation (too few points)".into(),
            ),
        };
        let fit = match &row.predicted {
            Err(why) => format!("not expressed: {why}"),
            Ok(_) => fit,
        };
        println!(
            "{:<58} {:<7} {:<11} {:>10} {:>10} {:>7} {:>10} {:>8}  {}",
            p.id,
            p.chip(),
            p.compared.id(),
            secs(p.measured_s),
            pred,
            ratio,
            texp,
            err,
            fit
        );
    }
    println!();
    println!("Bounds above the measurement (measured / predicted < 1):");
    for row in r.below_bound() {
        println!(
            "  {} ({:.2}): {}",
            row.point.id,
            row.ratio.unwrap_or(f64::NAN),
            row.point.notes
        );
    }
    let o = &r.overall;
    println!();
    println!(
        "Targets: held-out median |err| ≤ 15% (got {}), p90 ≤ 35% (got {}), ≥ 80% expressed (got {}; {} of {} points have an expectation)",
        pct(o.median_abs_error),
        pct(o.p90_abs_error),
        pct(Some(o.coverage)),
        o.with_expectation,
        o.total
    );
}
