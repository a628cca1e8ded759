//! The validation set's report as text (issues 25, 39, 40 and 42): what `./dev validate` prints
//! and `roofline validate` prints, from the same code. Each section a function of its report;
//! no clock here (the core has none): a caller that timed a report passes the seconds.

use super::{binomial_range, load, stored_observations, Report, Summary, MIN_POINTS, MIN_SOURCES};
use crate::units::{format_quantity, Unit};

/// `println!` into a string.
macro_rules! w {
    ($out:expr) => {
        $out.push('\n')
    };
    ($out:expr, $($arg:tt)*) => {{
        $out.push_str(&format!($($arg)*));
        $out.push('\n');
    }};
}

/// ` (1.2 s)` when the caller timed the section.
fn took(secs: Option<f64>) -> String {
    secs.map(|s| format!(" ({s:.1} s)")).unwrap_or_default()
}

/// The whole report, as `./dev validate` prints it but for the sections' timings, with `r` the
/// set's report (`results::validated::full_report` evaluates it). With the `sources` feature
/// only, as the serving-at-load set's rows.
#[cfg(feature = "sources")]
pub fn full_report_of(r: &Report) -> String {
    let mut out = report_text(r);
    out.push('\n');
    let load = load::report::report_of(&load::row_inputs());
    out.push_str(&load_text(&load, None));
    out.push('\n');
    out.push_str(&disagg_text(&load::disagg::report(), None));
    out
}

/// The validation set's sections for `r`: its terms, family factors and kind biases, the
/// nested hold-out's groups, the bands' coverage, the tails, every point's row and the targets.
pub fn report_text(r: &Report) -> String {
    let mut out = String::new();
    let out = &mut out;
    w!(
        out,
        "Roofline Lab validation set {} — {} points ({} stored); fit: achievable fractions per resource (+ kept terms), least absolute relative error; family factors where they hold out; kind bias and p10–p90 band from ≥ {MIN_POINTS} residuals of the kind",
        r.set_version,
        r.rows.len(),
        stored_observations().len()
    );
    w!(out);
    terms_section(r, out);
    factors_section(r, out);
    groups_section(r, out);
    coverage_section(r, out);
    tails_section(r, out);
    rows_section(r, out);
    targets_section(r, out);
    std::mem::take(out)
}

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
fn summary_line(s: &Summary, w: usize, out: &mut String) {
    w!(
        out,
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

fn header(first: &str, w: usize, out: &mut String) {
    w!(
        out,
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

fn terms_section(r: &Report, out: &mut String) {
    w!(out, "Terms on the whole set (the page's fit; \"in\": a tail's term, in every fit where its feature is not zero, not selected; held-out |err| of the model with the term, terms as listed; share = drop of Σ|ln(measured/expected)| over the bare roofline's):");
    w!(
        out,
        "{:<18} {:<56} {:>5} {:>9} {:>11} {:>9} {:>7}",
        "term",
        "what",
        "kept",
        "coef",
        "median|err|",
        "p90|err|",
        "share"
    );
    for t in &r.terms {
        w!(
            out,
            "{:<18} {:<56} {:>5} {:>9.3} {:>11} {:>9} {:>7}",
            t.term.id(),
            t.term.label(),
            match (t.kept, super::Term::TAILS.contains(&t.term)) {
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
    w!(out);
}

fn factors_section(r: &Report, out: &mut String) {
    w!(out, "Family factors (the page's; a point's factor from the other sources' residuals of its family, kept where it lowers both the family's median and p90 |err|):");
    w!(
        out,
        "{:<10} {:>7} {:>9} {:>19} {:>19} {:>6}",
        "family",
        "factor",
        "tried on",
        "without (med/p90)",
        "with (med/p90)",
        "kept"
    );
    for f in &r.families {
        w!(
            out,
            "{:<10} {:>7.3} {:>9} {:>19} {:>19} {:>6}",
            f.family.id(),
            f.factor,
            f.tried_on,
            format!("{} / {}", pct(Some(f.without.0)), pct(Some(f.without.1))),
            format!("{} / {}", pct(Some(f.with.0)), pct(Some(f.with.1))),
            if f.kept { "yes" } else { "pooled" }
        );
    }
    w!(out);
    w!(out, "Kind bias and band (the page's; residuals after the family factors: the bias, their median, kept by the same rule; the band p10 and p90 over the bias, widened to contain 1, every kind's where the kind's residuals come from fewer than {MIN_SOURCES} sources):");
    w!(
        out,
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
        w!(
            out,
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
    w!(out);
}

fn groups_section(r: &Report, out: &mut String) {
    w!(out, "Nested hold-out ({}), per kind of work and overall; \"old\" is the figure before it (terms chosen on every point, each point's model fitted without its source, no family factor or kind bias):", r.held_out);
    header("kind", 11, out);
    for s in &r.by_work {
        summary_line(s, 11, out);
    }
    summary_line(&r.overall, 11, out);
    w!(out);
    header("family", 11, out);
    for s in &r.by_family {
        summary_line(s, 11, out);
    }
    w!(out);
    let sources = r.by_source();
    let w = sources.iter().map(|s| s.label.len()).max().unwrap_or(11);
    header("source", w, out);
    for s in &sources {
        summary_line(s, w, out);
    }
    w!(out);
}

fn coverage_section(r: &Report, out: &mut String) {
    w!(out, "Band coverage (a point is covered when its measured time lies in the p10–p90 band of its own held-out expectation); each kind's count against the central 95 % binomial range around 80 % of its points with a band:");
    for s in r.by_work.iter().chain([&r.overall]) {
        if s.with_band == 0 {
            w!(out, "  {:<11} no point with a band", s.label);
            continue;
        }
        let (lo, hi) = binomial_range(s.with_band, 0.8, 0.95);
        let ok = if s.label == "all" {
            let share = s.covered as f64 / s.with_band as f64;
            (0.75..=0.85).contains(&share)
        } else {
            (lo..=hi).contains(&s.covered)
        };
        w!(
            out,
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
    w!(out);
}

fn tails_section(r: &Report, out: &mut String) {
    w!(out, "The tails (issue 39, point 4): nested |err| with the tails' terms among the candidates, without them, and the old figure:");
    w!(
        out,
        "{:<55} {:>5} {:>12} {:>21} {:>21} {:>21}",
        "tail",
        "pts",
        "with t_exp",
        "with terms med/p90",
        "without med/p90",
        "old med/p90"
    );
    for t in &r.tails {
        let two = |x: (Option<f64>, Option<f64>)| format!("{} / {}", pct(x.0), pct(x.1));
        w!(
            out,
            "{:<55} {:>5} {:>12} {:>21} {:>21} {:>21}",
            format!("{} ({})", t.tail.label(), t.tail.id()),
            t.total,
            format!("{} / {}", t.with_expectation, t.without_count),
            two(t.with_terms),
            two(t.without_terms),
            two(t.old)
        );
    }
    w!(out);
}

fn rows_section(r: &Report, out: &mut String) {
    w!(
        out,
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
        w!(
            out,
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
    w!(out);
    w!(
        out,
        "Bounds above the measurement (measured / predicted < 1):"
    );
    for row in r.below_bound() {
        w!(
            out,
            "  {} ({:.2}): {}",
            row.point.id,
            row.ratio.unwrap_or(f64::NAN),
            row.point.notes
        );
    }
    w!(out);
}

fn targets_section(r: &Report, out: &mut String) {
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
    w!(out,
        "Targets (nested hold-out, the published set this issue owns; serving at load is not in it):"
    );
    w!(out,
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
    w!(
        out,
        "  band coverage 75–85% of {} points with a band (got {} covered: {})",
        o.with_band,
        o.covered,
        target(share, &|v| (0.75..=0.85).contains(&v))
    );
    w!(
        out,
        "  the old figure (not nested) for comparison: median {}, p90 {}",
        pct(o.old_median_abs_error),
        pct(o.old_p90_abs_error)
    );
}

/// The serving-at-load section of the report for `r` (`secs`: how long its fits took, when
/// the caller timed them).
pub fn load_text(r: &load::report::LoadReport, secs: Option<f64>) -> String {
    use load::report::{TARGETS, TARGET_EXPRESSED};
    let mut out = String::new();
    let out = &mut out;
    w!(out,
        "Serving-at-load set {} — AIConfigurator silicon sample (aggregated rows), each a closed loop of its c clients; fit per engine and figure, held out by (model, system) group with every choice made inside the fold{}",
        r.set_version,
        took(secs)
    );
    w!(out,
        "rows: {} aggregated, {} expressed ({}; target ≥ {TARGET_EXPRESSED}: {}), {} distinct measurements fitted",
        r.total,
        r.expressed,
        pct(Some(r.expressed as f64 / r.total.max(1) as f64)),
        if r.expressed >= TARGET_EXPRESSED { "met" } else { "missed" },
        r.obs.len()
    );
    for (why, n) in &r.unexpressed {
        w!(out, "  not expressed ({n}): {why}");
    }
    w!(out);
    let verdict = |got: Option<f64>, t: f64| match got {
        Some(v) => format!("{} {}", pct(Some(v)), if v <= t { "met" } else { "missed" }),
        None => "— missed".into(),
    };
    w!(
        out,
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
        w!(
            out,
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
    w!(out,
        "(targets per engine: TPOT median |err| ≤ {}, p90 ≤ {}, TTFT median ≤ {}; bare = the load model's bound against the measurement; generic = rows whose engine had no other group in the fold)",
        pct(Some(TARGETS[0])),
        pct(Some(TARGETS[1])),
        pct(Some(TARGETS[2]))
    );
    w!(out);
    w!(out, "The page's fits (every distinct row; coefficient ± standard error over 30 group resamples; band = 10th–90th percentile of held-out measured/expected):");
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
            w!(
                out,
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
    std::mem::take(out)
}

/// The disaggregated rows' section for `r` (`secs`: how long its simulation took, when the
/// caller timed it).
#[cfg(feature = "sources")]
pub fn disagg_text(r: &load::disagg::Report, secs: Option<f64>) -> String {
    use load::disagg::TARGETS;
    let mut out = String::new();
    let out = &mut out;
    w!(out,
        "Disaggregated rows (issue 42) — each a closed loop of its c clients started at once on its xPyD deployment, simulated; steps read by the aggregated fits without the row's (model, system) group{}",
        took(secs)
    );
    w!(out,
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
        w!(out, "  not expressed ({n}): {}", why.text());
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
        w!(out, "  not simulated ({n}): {why}");
    }
    let verdict = |got: Option<f64>, t: f64| match got {
        Some(v) => format!("{} {}", pct(Some(v)), if v <= t { "met" } else { "missed" }),
        None => "— missed".into(),
    };
    w!(out);
    w!(
        out,
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
        w!(
            out,
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
    w!(out,
        "(targets, held out: TPOT median |err| ≤ {}, TTFT median ≤ {}; bare = every step at its bound)",
        pct(Some(TARGETS[0])),
        pct(Some(TARGETS[1]))
    );
    std::mem::take(out)
}
