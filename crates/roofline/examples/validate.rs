//! The validation set's report (issues 25 and 39): the nested hold-out's figures per kind of
//! work, per chip family, per source and overall (coverage, the bare roofline's median
//! measured / predicted, the held-out error of the expectation, the band's coverage), the old
//! (not nested) figure beside them, the family factors and the kind biases with what decided
//! them, each tail with and without its terms, every point's row, and the targets.
//!
//! `cargo run -p roofline --release --example validate --locked` (or `./dev validate`);
//! with `--write`, it first runs the whole procedure fresh (on every point, then without each
//! source, with and without the tails' terms) and rewrites `src/validation/fitted.rs`, the
//! stored points and fits the page and the report read (tests/it/validation.rs checks they
//! match a fresh evaluation). Each section is a function, so another (serving at load) can sit
//! beside them.

use roofline::units::{format_quantity, Unit};
use roofline::validation::{
    binomial_range, evaluated, fresh_fits, report, stored_observations, FitRecord, Report, Summary,
    MIN_POINTS, MIN_SOURCES,
};

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
        "{:<w$} {:>5} {:>9} {:>8} {:>9} {:>7} {:>8} {:>11} {:>9} {:>9} {:>11} {:>9}",
        s.label,
        s.total,
        s.expressed,
        pct(Some(s.coverage)),
        num(s.median_ratio),
        s.below_bound,
        s.with_expectation,
        pct(s.median_abs_error),
        pct(s.p90_abs_error),
        format!("{}/{}", s.covered, s.with_band),
        pct(s.old_median_abs_error),
        pct(s.old_p90_abs_error),
    );
}

fn header(first: &str, w: usize) {
    println!(
        "{first:<w$} {:>5} {:>9} {:>8} {:>9} {:>7} {:>8} {:>11} {:>9} {:>9} {:>11} {:>9}",
        "total",
        "expressed",
        "coverage",
        "median m/p",
        "m<p",
        "with t_exp",
        "median|err|",
        "p90|err|",
        "in band",
        "old median",
        "old p90"
    );
}

/// A float as Rust source: `{:?}` (the shortest text that reads back to the same bits), NaN
/// as `f64::NAN`.
fn lit(x: f64) -> String {
    if x.is_nan() {
        "f64::NAN".into()
    } else {
        format!("{x:?}")
    }
}

fn fit_source(name: &str, f: &FitRecord) -> String {
    let terms: Vec<String> = f.terms.iter().map(|t| format!("Term::{t:?}")).collect();
    let coef: Vec<String> = f.coef.iter().map(|c| lit(*c)).collect();
    let families: Vec<String> = f
        .families
        .iter()
        .map(|g| {
            format!(
                "FamilyFactor {{ family: Family::{:?}, factor: {}, tried_on: {}, without: ({}, {}), with: ({}, {}), kept: {} }}",
                g.family,
                lit(g.factor),
                g.tried_on,
                lit(g.without.0),
                lit(g.without.1),
                lit(g.with.0),
                lit(g.with.1),
                g.kept
            )
        })
        .collect();
    let kinds: Vec<String> = f
        .kinds
        .iter()
        .map(|k| {
            format!(
                "KindBand {{ work: Work::{:?}, n: {}, sources: {}, bias: {}, without: ({}, {}), with: ({}, {}), kept: {}, pooled_band: {}, lo: {}, hi: {} }}",
                k.work,
                k.n,
                k.sources,
                lit(k.bias),
                lit(k.without.0),
                lit(k.without.1),
                lit(k.with.0),
                lit(k.with.1),
                k.kept,
                k.pooled_band,
                lit(k.lo),
                lit(k.hi)
            )
        })
        .collect();
    format!(
        "{name}StoredFit {{ held_out: {:?}, terms: &[{}], coef: &[{}], families: &[{}], kinds: &[{}] }}",
        f.held_out,
        terms.join(", "),
        coef.join(", "),
        families.join(", "),
        kinds.join(", ")
    )
}

/// The freshly evaluated points as the fit sees them.
fn evaluated_observations() -> Vec<roofline::validation::Obs> {
    evaluated()
        .iter()
        .map(
            |&(id, source, chip, work, family, ratio, f)| roofline::validation::Obs {
                id,
                source,
                chip,
                work,
                family,
                ratio,
                features: roofline::validation::Features::from_array(f),
            },
        )
        .collect()
}

/// Writes the stored points and fits (`src/validation/fitted.rs`).
fn write_fitted() {
    let points = evaluated();
    let fits = fresh_fits(&evaluated_observations()).expect("the set has enough points to fit");
    let mut out = String::from(
        "//! Each expressed point's measured / predicted ratio and features, and the calibration\n\
         //! procedure's fits on them: on every point (the page's) and without each source (the\n\
         //! nested hold-out, with and without the tails' terms, and the old figure's folds).\n\
         //! Written by `./dev validate --write`; `tests/it/validation.rs` checks they equal a\n\
         //! fresh evaluation, bit for bit. Thousands of lines on purpose: generated data, as\n\
         //! rustfmt lays it out.\n\n\
         use super::{Family, FamilyFactor, KindBand, StoredFit, StoredPoint, Term, Work};\n\n\
         /// `(point id, source key, chip, kind of work, family, measured / predicted, [compute,\n\
         /// memory, network, launch, step, multi-chip, moe, narrow training, EP overlap,\n\
         /// collective latency])`.\n\
         pub(super) const POINTS: &[StoredPoint] = &[\n",
    );
    for (id, source, chip, work, family, r, f) in points {
        let f: Vec<String> = f.iter().map(|x| lit(*x)).collect();
        out.push_str(&format!(
            "    ({id:?}, {source:?}, {chip:?}, Work::{work:?}, Family::{family:?}, {}, [{}]),\n",
            lit(r),
            f.join(", ")
        ));
    }
    out.push_str("];\n\n/// The procedure on every point: the page's calibration.\n");
    out.push_str(&format!(
        "pub(super) const PAGE: StoredFit = {};\n",
        fit_source("", &fits.page)
    ));
    for (name, doc, list) in [
        (
            "NESTED",
            "The procedure without each source (the nested hold-out).",
            &fits.nested,
        ),
        (
            "WITHOUT_TAILS",
            "The same with the candidates left without the tails' terms.",
            &fits.without_tails,
        ),
        (
            "OLD",
            "The old figure's folds: the page's terms fitted without each source.",
            &fits.old,
        ),
    ] {
        out.push_str(&format!(
            "\n/// {doc}\npub(super) const {name}: &[StoredFit] = &[\n"
        ));
        for f in list {
            out.push_str(&format!("    {},\n", fit_source("", f)));
        }
        out.push_str("];\n");
    }
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/validation/fitted.rs");
    std::fs::write(path, out).expect("write src/validation/fitted.rs");
    // As `cargo fmt` leaves it, so the tree stays formatted.
    match std::process::Command::new("rustfmt")
        .args(["--edition", "2021", path])
        .status()
    {
        Ok(s) if s.success() => eprintln!("wrote {path}: run ./dev validate again to report it"),
        _ => eprintln!("wrote {path}; rustfmt failed: run cargo fmt"),
    }
}

fn terms_section(r: &Report) {
    println!("Terms on the whole set (the page's fit; \"in\": a tail's term, in every fit where its feature is not zero, not selected; held-out |err| of the model with the term, terms as listed; share = drop of Σ|ln(measured/expected)| over the bare roofline's):");
    println!(
        "{:<18} {:<56} {:>5} {:>9} {:>11} {:>9} {:>7}",
        "term", "what", "kept", "coef", "median|err|", "p90|err|", "share"
    );
    for t in &r.terms {
        println!(
            "{:<18} {:<56} {:>5} {:>9.3} {:>11} {:>9} {:>7}",
            t.term.id(),
            t.term.label(),
            match (t.kept, roofline::validation::Term::TAILS.contains(&t.term)) {
                (true, true) => "in",
                (true, false) => "yes",
                (false, _) => "no",
            },
            t.coef,
            pct(Some(t.median)),
            pct(Some(t.p90)),
            pct(Some(t.share))
        );
    }
    println!();
}

fn factors_section(r: &Report) {
    println!("Family factors (the page's; a point's factor from the other sources' residuals of its family, kept where it lowers both the family's median and p90 |err|):");
    println!(
        "{:<10} {:>7} {:>9} {:>19} {:>19} {:>6}",
        "family", "factor", "tried on", "without (med/p90)", "with (med/p90)", "kept"
    );
    for f in &r.families {
        println!(
            "{:<10} {:>7.3} {:>9} {:>19} {:>19} {:>6}",
            f.family.id(),
            f.factor,
            f.tried_on,
            format!("{} / {}", pct(Some(f.without.0)), pct(Some(f.without.1))),
            format!("{} / {}", pct(Some(f.with.0)), pct(Some(f.with.1))),
            if f.kept { "yes" } else { "pooled" }
        );
    }
    println!();
    println!("Kind bias and band (the page's; residuals after the family factors: the bias, their median, kept by the same rule; the band p10 and p90 over the bias, widened to contain 1, every kind's where the kind's residuals come from fewer than {MIN_SOURCES} sources):");
    println!(
        "{:<11} {:>5} {:>7} {:>7} {:>19} {:>19} {:>6} {:>7} {:>7} {:>7}",
        "kind",
        "n",
        "sources",
        "median",
        "without (med/p90)",
        "with (med/p90)",
        "kept",
        "p10",
        "p90",
        "band"
    );
    for k in &r.kinds {
        println!(
            "{:<11} {:>5} {:>7} {:>7.3} {:>19} {:>19} {:>6} {:>7.3} {:>7.3} {:>7}",
            k.work.as_str(),
            k.n,
            k.sources,
            k.bias,
            format!("{} / {}", pct(Some(k.without.0)), pct(Some(k.without.1))),
            format!("{} / {}", pct(Some(k.with.0)), pct(Some(k.with.1))),
            if k.kept { "yes" } else { "no" },
            k.lo,
            k.hi,
            if k.pooled_band { "pooled" } else { "own" }
        );
    }
    println!();
}

fn groups_section(r: &Report) {
    println!("Nested hold-out ({}), per kind of work and overall; \"old\" is the figure before it (terms chosen on every point, each point's model fitted without its source, no family factor or kind bias):", r.held_out);
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
}

fn coverage_section(r: &Report) {
    println!("Band coverage (a point is covered when its measured time lies in the p10–p90 band of its own held-out expectation); each kind's count against the central 95 % binomial range around 80 % of its points with a band:");
    for s in r.by_work.iter().chain([&r.overall]) {
        if s.with_band == 0 {
            println!("  {:<11} no point with a band", s.label);
            continue;
        }
        let (lo, hi) = binomial_range(s.with_band, 0.8, 0.95);
        let ok = if s.label == "all" {
            let share = s.covered as f64 / s.with_band as f64;
            (0.75..=0.85).contains(&share)
        } else {
            (lo..=hi).contains(&s.covered)
        };
        println!(
            "  {:<11} {:>3} of {:>3} ({:>5}); range {lo}–{hi}{}: {}",
            s.label,
            s.covered,
            s.with_band,
            pct(Some(s.covered as f64 / s.with_band as f64)),
            if s.label == "all" {
                ", target 75–85 %"
            } else {
                ""
            },
            if ok { "met" } else { "missed" }
        );
    }
    println!();
}

fn tails_section(r: &Report) {
    println!("The tails (issue 39, point 4): nested |err| with the tails' terms among the candidates, without them, and the old figure:");
    println!(
        "{:<55} {:>5} {:>12} {:>21} {:>21} {:>21}",
        "tail", "pts", "with t_exp", "with terms med/p90", "without med/p90", "old med/p90"
    );
    for t in &r.tails {
        let two = |x: (Option<f64>, Option<f64>)| format!("{} / {}", pct(x.0), pct(x.1));
        println!(
            "{:<55} {:>5} {:>12} {:>21} {:>21} {:>21}",
            format!("{} ({})", t.tail.label(), t.tail.id()),
            t.total,
            format!("{} / {}", t.with_expectation, t.without_count),
            two(t.with_terms),
            two(t.without_terms),
            two(t.old)
        );
    }
    println!();
}

fn rows_section(r: &Report) {
    println!(
        "{:<58} {:<7} {:<11} {:>10} {:>10} {:>7} {:>10} {:>8} {:>4} {:>8}  fit",
        "point",
        "chip",
        "compared",
        "measured",
        "predicted",
        "m/p",
        "t_exp",
        "err",
        "band",
        "old err"
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
                    "r={:.2} (model {:.2}{} × bias {:.2}) on {} pts, basis {}",
                    e.r,
                    e.model_ratio,
                    e.family_factor
                        .map(|g| format!(" × family {g:.2}"))
                        .unwrap_or_default(),
                    e.bias,
                    e.pooled,
                    e.basis.id()
                ),
            ),
            None => (
                "—".into(),
                "—".into(),
                "no expectation (no point of its family without its source)".into(),
            ),
        };
        let fit = match &row.predicted {
            Err(why) => format!("not expressed: {why}"),
            Ok(_) => fit,
        };
        let band = match row.covered {
            Some(true) => "in",
            Some(false) => "out",
            None => "—",
        };
        println!(
            "{:<58} {:<7} {:<11} {:>10} {:>10} {:>7} {:>10} {:>8} {:>4} {:>8}  {}",
            p.id,
            p.chip(),
            p.compared.id(),
            secs(p.measured_s),
            pred,
            ratio,
            texp,
            err,
            band,
            pct(row.old_error),
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
    println!();
}

fn targets_section(r: &Report) {
    let o = &r.overall;
    let target = |got: Option<f64>, ok: &dyn Fn(f64) -> bool| match got {
        Some(v) => format!(
            "{:.2}%: {}",
            100.0 * v,
            if ok(v) { "met" } else { "missed" }
        ),
        None => "none: missed".to_string(),
    };
    let worst = r
        .by_work
        .iter()
        .filter_map(|s| Some((s.median_abs_error?, s.label.as_str())))
        .max_by(|a, b| a.0.total_cmp(&b.0));
    println!(
        "Targets (nested hold-out, the published set this issue owns; serving at load is not in it):"
    );
    println!(
        "  median |err| ≤ 15% (got {}); p90 ≤ 35% (got {}); ≥ 85% expressed (got {}; {} of {} points have an expectation); no kind's median above 25% (worst {}: {})",
        target(o.median_abs_error, &|v| v <= 0.15),
        target(o.p90_abs_error, &|v| v <= 0.35),
        target(Some(o.coverage), &|v| v >= 0.85),
        o.with_expectation,
        o.total,
        worst.map_or("—", |w| w.1),
        target(worst.map(|w| w.0), &|v| v <= 0.25),
    );
    let share = (o.with_band > 0).then(|| o.covered as f64 / o.with_band as f64);
    println!(
        "  band coverage 75–85% of {} points with a band (got {} covered: {})",
        o.with_band,
        o.covered,
        target(share, &|v| (0.75..=0.85).contains(&v))
    );
    println!(
        "  the old figure (not nested) for comparison: median {}, p90 {}",
        pct(o.old_median_abs_error),
        pct(o.old_p90_abs_error)
    );
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

fn main() {
    let arg = |a: &str| std::env::args().any(|x| x == a);
    if arg("--write") {
        write_fitted();
        serving_at_load(true);
        return;
    }
    // --fresh: the report from a fresh run of every fit instead of the stored ones (what
    // --write would store); --check: also say whether the stored fits equal that fresh run.
    let r = if arg("--fresh") || arg("--check") {
        let fresh = fresh_fits(&evaluated_observations()).expect("the set has enough points");
        if arg("--check") {
            let same = format!("{:?}", fresh)
                == format!("{:?}", roofline::validation::stored_fits())
                && roofline::validation::stored() == evaluated().as_slice();
            println!(
                "stored points and fits against a fresh run: {}",
                if same {
                    "equal"
                } else {
                    "DIFFERENT: run ./dev validate --write"
                }
            );
        }
        roofline::validation::report_with(&fresh)
    } else {
        report()
    };
    println!(
        "Roofline Lab validation set {} — {} points ({} stored); fit: achievable fractions per resource (+ kept terms), least absolute relative error; family factors where they hold out; kind bias and p10–p90 band from ≥ {MIN_POINTS} residuals of the kind",
        r.set_version,
        r.rows.len(),
        stored_observations().len()
    );
    println!();
    terms_section(&r);
    factors_section(&r);
    groups_section(&r);
    coverage_section(&r);
    tails_section(&r);
    rows_section(&r);
    targets_section(&r);
    println!();
    serving_at_load(false);
    println!();
    disaggregated();
}

/// The serving-at-load set's disaggregated rows (issue 42): coverage by the rule's reasons, and
/// per engine and generation the simulated deployment's TTFT and TPOT against the measured,
/// each step read by the engines' fits held out by (model, system) group, and by the bound.
fn disaggregated() {
    use roofline::validation::load::disagg::{report, TARGETS};
    let t0 = std::time::Instant::now();
    let r = report();
    println!(
        "Disaggregated rows (issue 42) — each a closed loop of its c clients started at once on its xPyD deployment, simulated; steps read by the aggregated fits without the row's (model, system) group ({:.1} s)",
        t0.elapsed().as_secs_f64()
    );
    println!(
        "rows: {} disaggregated, {} expressed ({}), of which GB200/GB300 {} of {}; {} distinct measurements, {} simulated",
        r.total,
        r.expressed,
        pct(Some(r.expressed as f64 / r.total.max(1) as f64)),
        r.expressed_gb,
        r.total_gb,
        r.measurements,
        r.obs.len()
    );
    for (why, n) in &r.unexpressed {
        println!("  not expressed ({n}): {}", why.text());
    }
    let mut failed: Vec<(String, usize)> = Vec::new();
    for (_, e) in &r.failed {
        let why = e.split(": the").next().unwrap_or(e).to_string();
        match failed.iter_mut().find(|(w, _)| *w == why) {
            Some((_, n)) => *n += 1,
            None => failed.push((why, 1)),
        }
    }
    for (why, n) in failed {
        println!("  not simulated ({n}): {why}");
    }
    let verdict = |got: Option<f64>, t: f64| match got {
        Some(v) => format!("{} {}", pct(Some(v)), if v <= t { "met" } else { "missed" }),
        None => "— missed".into(),
    };
    println!();
    println!(
        "{:<24} {:>5} {:>10} {:>10} {:>16} {:>9} {:>16} {:>9}",
        "engine",
        "n",
        "bare tpot",
        "bare ttft",
        "tpot median",
        "tpot p90",
        "ttft median",
        "ttft p90"
    );
    for s in &r.summaries {
        println!(
            "{:<24} {:>5} {:>10} {:>10} {:>16} {:>9} {:>16} {:>9}",
            s.label,
            s.n,
            pct(s.bare[0]),
            pct(s.bare[1]),
            verdict(s.tpot.map(|x| x.0), TARGETS[0]),
            pct(s.tpot.map(|x| x.1)),
            verdict(s.ttft.map(|x| x.0), TARGETS[1]),
            pct(s.ttft.map(|x| x.1)),
        );
    }
    println!(
        "(targets, held out: TPOT median |err| ≤ {}, TTFT median ≤ {}; bare = every step at its bound)",
        pct(Some(TARGETS[0])),
        pct(Some(TARGETS[1]))
    );
}
