//! The validation view (issue 25, `plot=validation`): the published measurements of the
//! validation set against what the roofline predicts for their scenarios. A log-log plot of
//! measured against predicted with the y = x line (a point below it would beat its bound),
//! one marker colour per kind of work; a table with one row per point (`data-validation-id`)
//! and its `data-metric` cells; the median and p90 held-out error per kind and per chip family
//! above it. Pure, tested natively; computed only while the view is open.

use roofline::units::{format_exact, Unit};
use roofline::validation::{report, Report, Row, Summary, TermReport, Work};

use super::cell::Cell;
use super::names::pretty;
use crate::charts::{ChartSeries, SweepChart};

/// The set's report (every point's scenario analysed: open the view to pay for it).
pub fn validation_report() -> Report {
    report()
}

/// Measured against predicted, log-log: one scatter series per kind of work, and y = x.
pub fn validation_chart(r: &Report) -> SweepChart {
    let mut series: Vec<ChartSeries> = Work::ALL
        .iter()
        .enumerate()
        .filter_map(|(k, w)| {
            let points: Vec<(f64, f64)> = r
                .rows
                .iter()
                .filter(|row| row.point.work == *w)
                .filter_map(|row| Some((*row.predicted.as_ref().ok()?, row.point.measured_s)))
                .collect();
            (!points.is_empty()).then(|| ChartSeries {
                label: w.as_str().to_string(),
                points,
                series_idx: k + 1,
                scatter: true,
                oom_from: None,
            })
        })
        .collect();
    let all: Vec<f64> = series
        .iter()
        .flat_map(|s| s.points.iter().flat_map(|&(x, y)| [x, y]))
        .collect();
    let lo = all.iter().copied().fold(f64::INFINITY, f64::min) / 2.0;
    let hi = all.iter().copied().fold(0.0, f64::max) * 2.0;
    if lo.is_finite() && hi > lo {
        series.push(ChartSeries {
            label: "measured = predicted (below: faster than the bound)".into(),
            points: vec![(lo, lo), (hi, hi)],
            series_idx: 0,
            scatter: false,
            oom_from: None,
        });
    }
    SweepChart {
        title: format!(
            "Published measurements against the roofline (validation set {})",
            r.set_version
        ),
        x_label: "predicted lower bound".into(),
        y_label: "measured".into(),
        series,
        log_x: true,
        log_y: true,
        x_unit: Some(Unit::Seconds),
        y_unit: Some(Unit::Seconds),
        ..Default::default()
    }
}

/// A summary line: `gemm: 9 points, 9 expressed (100%); measured / bound median 1.52;
/// held-out error of the expected time: median 12.9%, p90 28.9% (9 points with an
/// expectation)`.
pub fn summary_text(s: &Summary) -> String {
    let pct = |x: Option<f64>| x.map_or("—".into(), |v| format!("{:.1}%", 100.0 * v));
    format!(
        "{}: {} points, {} expressed ({:.0}%); measured / bound median {}; held-out error of \
         the expected time: median {}, p90 {} ({} with an expectation)",
        s.label,
        s.total,
        s.expressed,
        100.0 * s.coverage,
        s.median_ratio.map_or("—".into(), |r| format!("{r:.2}")),
        pct(s.median_abs_error),
        pct(s.p90_abs_error),
        match s.with_expectation {
            1 => "1 point".to_string(),
            n => format!("{n} points"),
        }
    )
}

/// A term's line: `compute (achievable fraction of peak FLOP/s): kept, coefficient 1.526 (at
/// 65.5%), explains 31.3% of the bare roofline's residual; held out with it: median 22.8%, p90
/// 52.1%`.
pub fn term_text(t: &TermReport) -> String {
    let pct = |v: f64| format!("{:.1}%", 100.0 * v);
    let at = match t.term {
        roofline::validation::Term::Compute
        | roofline::validation::Term::Memory
        | roofline::validation::Term::Network => format!(" (at {})", pct(1.0 / t.coef)),
        roofline::validation::Term::Launch => " µs per launch".into(),
        roofline::validation::Term::Step => " ms per step".into(),
        _ => " added to the ratio".into(),
    };
    format!(
        "{} ({}): {}, coefficient {:.3}{at}, explains {} of the bare roofline's residual; held \
         out with it: median {}, p90 {}",
        t.term.id(),
        t.term.label(),
        if t.kept {
            "kept"
        } else {
            "left out (it does not lower both held-out errors)"
        },
        t.coef,
        pct(t.share),
        pct(t.median),
        pct(t.p90)
    )
}

/// A row's `data-metric` cells: `measured` (seconds), `t_lower` (the predicted figure),
/// `t_expected` (held out by source), `ratio` (measured / predicted); `none` with the reason
/// where a figure is missing.
pub fn validation_cells(row: &Row) -> Vec<Cell> {
    let num = |metric: &'static str, v: f64, text: String, title: String| Cell {
        metric,
        value: format_exact(v),
        text,
        class: "",
        title,
    };
    let none = |metric: &'static str, why: &str| Cell {
        metric,
        value: "none".into(),
        text: "—".into(),
        class: "",
        title: why.to_string(),
    };
    let p = row.point;
    let mut out = vec![num(
        "measured",
        p.measured_s,
        pretty(p.measured_s, Unit::Seconds),
        format!("{} — {}", p.measured, p.derivation),
    )];
    match &row.predicted {
        Ok(t) => out.push(num(
            "t_lower",
            *t,
            pretty(*t, Unit::Seconds),
            format!("the scenario's {}", p.compared.id()),
        )),
        Err(why) => out.push(none("t_lower", why)),
    }
    match &row.held_out {
        Some(e) => out.push(num(
            "t_expected",
            e.t,
            format!("≈ {}", pretty(e.t, Unit::Seconds)),
            format!(
                "fitted without this point's source: r = {:.3} over {}",
                e.r,
                e.based_on.join(", ")
            ),
        )),
        None => out.push(none(
            "t_expected",
            "too few points of this kind without this point's source",
        )),
    }
    match row.ratio {
        Some(r) => out.push(num(
            "ratio",
            r,
            format!("×{r:.2}"),
            "measured / predicted".into(),
        )),
        None => out.push(none("ratio", "not predicted")),
    }
    out
}
