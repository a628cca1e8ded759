//! The validation set's report (issue 25): per kind of work, per chip family and overall, the
//! coverage, the bare roofline's median measured / predicted, and the held-out error of the
//! calibrated expectation; then every point's row and the points whose bound sits above the
//! measurement.
//!
//! `cargo run -p roofline --release --example validate --locked` (or `./dev validate`);
//! with `--write`, it also rewrites `src/validation/fitted.rs`, the stored ratios, features and
//! terms the page fits its expectations on (tests/it/validation.rs checks they match a fresh
//! evaluation).

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

/// One group's figures, its label in a column `w` wide (source keys are longer than kinds and
/// families).
fn summary_line(s: &Summary, w: usize) {
    println!(
        "{:<w$} {:>5} {:>9} {:>8} {:>9} {:>7} {:>8} {:>11} {:>9}",
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

fn header(first: &str, w: usize) {
    println!(
        "{first:<w$} {:>5} {:>9} {:>8} {:>9} {:>7} {:>8} {:>11} {:>9}",
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

/// Writes the stored points and terms (`src/validation/fitted.rs`).
fn write_fitted() {
    let (points, terms) = roofline::validation::evaluated();
    let mut out = String::from(
        "//! Each expressed point's measured / predicted ratio and features, and the terms the data\n\
         //! support, as `super::evaluated` gives them: stored so the page fits expectations without\n\
         //! analysing the set's scenarios on load. Written by `./dev validate --write`;\n\
         //! `tests/it/validation.rs` checks they equal a fresh evaluation, bit for bit. Over 600\n\
         //! lines on purpose: generated data, one entry per expressed point, as rustfmt lays it out.\n\n\
         use super::{Family, StoredPoint, Term, Work};\n\n\
         /// `(point id, source key, kind of work, family, measured / predicted, [compute, memory,\n\
         /// network, launch, step, multi-chip, moe])`.\n\
         pub(super) const POINTS: &[StoredPoint] = &[\n",
    );
    for (id, source, work, family, r, f) in points {
        out.push_str(&format!(
            "    ({id:?}, {source:?}, Work::{work:?}, Family::{family:?}, {r:?}, {f:?}),\n"
        ));
    }
    out.push_str("];\n\n/// The model's terms (`super::select_terms`).\npub(super) const TERMS: &[Term] = &[");
    let t: Vec<String> = terms.iter().map(|t| format!("Term::{t:?}")).collect();
    out.push_str(&t.join(", "));
    out.push_str("];\n");
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/validation/fitted.rs");
    std::fs::write(path, out).expect("write src/validation/fitted.rs");
    // As `cargo fmt` leaves it, so the tree stays formatted.
    match std::process::Command::new("rustfmt")
        .args(["--edition", "2021", path])
        .status()
    {
        Ok(s) if s.success() => eprintln!("wrote {path}"),
        _ => eprintln!("wrote {path}; rustfmt failed: run cargo fmt"),
    }
}

fn terms_section(r: &roofline::validation::Report) {
    println!("Terms (coefficients on the whole set; held-out |err| of the model with the term; share = drop of Σ|ln(measured/expected)| over the bare roofline's):");
    println!(
        "{:<11} {:<56} {:>5} {:>9} {:>11} {:>9} {:>7}",
        "term", "what", "kept", "coef", "median|err|", "p90|err|", "share"
    );
    for t in &r.terms {
        println!(
            "{:<11} {:<56} {:>5} {:>9.3} {:>11} {:>9} {:>7}",
            t.term.id(),
            t.term.label(),
            if t.kept { "yes" } else { "no" },
            t.coef,
            pct(Some(t.median)),
            pct(Some(t.p90)),
            pct(Some(t.share))
        );
    }
    let unexplained = 1.0
        - r.terms
            .iter()
            .filter(|t| t.kept)
            .map(|t| t.share)
            .sum::<f64>();
    println!(
        "unexplained share of the bare residual: {}",
        pct(Some(unexplained))
    );
    println!();
}

fn main() {
    if std::env::args().any(|a| a == "--write") {
        write_fitted();
    }
    let r = report();
    println!(
        "Roofline Lab validation set {} — {} points; fit: achievable fractions per resource (+ kept terms), least absolute relative error, held out by source; bands from ≥ {MIN_POINTS} held-out residuals of the kind",
        r.set_version,
        r.rows.len()
    );
    println!();
    terms_section(&r);
    header("kind", 11);
    for s in &r.by_work {
        summary_line(s, 11);
    }
    summary_line(&r.overall, 11);
    println!();
    header("family", 11);
    for s in &r.by_family {
        summary_line(s, 11);
    }
    println!();
    let sources = r.by_source();
    let w = sources.iter().map(|s| s.label.len()).max().unwrap_or(11);
    header("source", w);
    for s in &sources {
        summary_line(s, w);
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
                format!(
                    "r={:.2} on {} pts, band of {} {} pts{}",
                    e.r,
                    e.pooled,
                    e.based_on.len(),
                    p.work.as_str(),
                    if e.borrowed_from.is_some() {
                        ", borrowed"
                    } else {
                        ""
                    }
                ),
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
    let target = |got: Option<f64>, ok: fn(f64) -> bool| match got {
        Some(v) => format!(
            "{:.2}%: {}",
            100.0 * v,
            if ok(v) { "met" } else { "missed" }
        ),
        None => "none: missed".to_string(),
    };
    println!();
    println!(
        "Targets: held-out median |err| ≤ 15% (got {}), p90 ≤ 35% (got {}), ≥ 80% expressed (got {}; {} of {} points have an expectation)",
        target(o.median_abs_error, |v| v <= 0.15),
        target(o.p90_abs_error, |v| v <= 0.35),
        target(Some(o.coverage), |v| v >= 0.80),
        o.with_expectation,
        o.total
    );
    println!();
    serving_at_load(std::env::args().any(|a| a == "--write"));
}

/// The serving-at-load set (issue 40): coverage, per engine and generation the held-out error
/// of the expectation against the targets, the page's fits with their standard errors;
/// with `--write`, `src/validation/load/fitted.rs` rewritten from them.
fn serving_at_load(write: bool) {
    use roofline::validation::load::{report, report::TARGETS, report::TARGET_EXPRESSED};
    let t0 = std::time::Instant::now();
    let r = report::report_of(&roofline::validation::load::row_inputs());
    println!(
        "Serving-at-load set {} — AIConfigurator silicon sample (aggregated rows), each a closed loop of its c clients; fit per engine and figure, held out by (model, system) group with every choice made inside the fold ({:.1} s)",
        r.set_version,
        t0.elapsed().as_secs_f64()
    );
    println!(
        "rows: {} aggregated, {} expressed ({}; target ≥ {TARGET_EXPRESSED}: {}), {} distinct measurements fitted",
        r.total,
        r.expressed,
        pct(Some(r.expressed as f64 / r.total.max(1) as f64)),
        if r.expressed >= TARGET_EXPRESSED { "met" } else { "missed" },
        r.obs.len()
    );
    for (why, n) in &r.unexpressed {
        println!("  not expressed ({n}): {why}");
    }
    println!();
    let verdict = |got: Option<f64>, t: f64| match got {
        Some(v) => format!("{} {}", pct(Some(v)), if v <= t { "met" } else { "missed" }),
        None => "— missed".into(),
    };
    println!(
        "{:<24} {:>6} {:>6} {:>11} {:>11} {:>16} {:>9} {:>16} {:>9} {:>9}",
        "engine",
        "tpot n",
        "ttft n",
        "bare tpot",
        "bare ttft",
        "tpot median",
        "tpot p90",
        "ttft median",
        "ttft p90",
        "generic"
    );
    for s in r.by_engine.iter().chain(&r.by_generation) {
        println!(
            "{:<24} {:>6} {:>6} {:>11} {:>11} {:>16} {:>9} {:>16} {:>9} {:>9}",
            s.label,
            s.tpot_rows,
            s.ttft_rows,
            pct(s.bare_tpot_median),
            pct(s.bare_ttft_median),
            verdict(s.tpot_median, TARGETS[0]),
            verdict(s.tpot_p90, TARGETS[1]),
            verdict(s.ttft_median, TARGETS[2]),
            pct(s.ttft_p90),
            s.fell_back
        );
    }
    println!(
        "(targets per engine: TPOT median |err| ≤ {}, p90 ≤ {}, TTFT median ≤ {}; bare = the load model's bound against the measurement; generic = rows whose engine had no other group in the fold)",
        pct(Some(TARGETS[0])),
        pct(Some(TARGETS[1])),
        pct(Some(TARGETS[2]))
    );
    println!();
    println!("The page's fits (every distinct row; coefficient ± standard error over 30 group resamples; band = 10th–90th percentile of held-out measured/expected):");
    for f in &r.fits {
        for (fig, m) in [("ttft", &f.ttft), ("tpot", &f.tpot)] {
            let coefs: Vec<String> = m
                .model
                .choice
                .terms
                .iter()
                .zip(&m.model.pooled.coef)
                .zip(&m.pooled_se)
                .map(|((t, c), se)| {
                    let id = match (t.id(), fig) {
                        ("launch", "ttft") => "wave",
                        ("launch", _) => "per-seq",
                        (id, _) => id,
                    };
                    format!("{id} {c:.3}±{se:.3}")
                })
                .collect();
            println!(
                "  {:<8} {fig}: {} rows, {}{}, bias {:.3}, band {}: {}",
                f.engine.as_str(),
                f.rows,
                m.model.choice.scope.id(),
                m.model
                    .by_family
                    .iter()
                    .map(|(fam, _)| format!(" +{}", fam.id()))
                    .collect::<String>(),
                m.model.bias,
                m.band
                    .map_or("—".into(), |(lo, hi)| format!("{lo:.2}–{hi:.2}")),
                coefs.join(", ")
            );
        }
    }
    if write {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/validation/load/fitted.rs");
        std::fs::write(path, report::fitted_source(&r.fits)).expect("write load/fitted.rs");
        match std::process::Command::new("rustfmt")
            .args(["--edition", "2021", path])
            .status()
        {
            Ok(s) if s.success() => eprintln!("wrote {path}"),
            _ => eprintln!("wrote {path}; rustfmt failed: run cargo fmt"),
        }
    }
    let _ = report;
}
