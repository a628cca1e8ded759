//! The validation view (issue 25, `plot=validation`): the published measurements of the
//! validation set against what the roofline predicts for their scenarios. A log-log plot of
//! measured against predicted with the y = x line (a point below it would beat its bound),
//! one marker colour per kind of work; a table with one row per point (`data-validation-id`)
//! and its `data-metric` cells; the median and p90 held-out error per kind and per chip family
//! above it. Pure, tested natively.
//!
//! The page does not evaluate the set (issue 27: load what the first plot does not need later).
//! The build does, natively: `src/bin/static-view.rs` writes [`ValidationPage::of`] the report
//! as JSON next to the page, and the app fetches it the first time the view opens
//! ([`ValidationPage::from_json`]). So the set's texts, its 70 scenarios' analyses and the
//! held-out fits stay out of the wasm, and the view costs a file instead of seconds of fitting.

use roofline::inputs::json::Value;
use roofline::results::validated::report;
use roofline::units::{format_exact, Unit};
use roofline::validation::load::page::MeasuredRow;
use roofline::validation::{MeasureKind, Report, Row, Summary};
use serde::Serialize;

mod text;

pub use text::{
    coverage_text, factor_text, kind_text, old_text, summary_text, tail_text, term_text,
};

use super::cell::Cell;
use super::names::pretty;
use crate::charts::{ChartSeries, SweepChart};
use crate::json_read::Doc;

/// The set's report (every point's scenario analysed: the build pays for it, not the page).
pub fn validation_report() -> Report {
    report()
}

/// Everything the validation view shows, as plain text and numbers: what the build writes and
/// the page reads.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ValidationPage {
    /// The set's version (`2026-11-26.4`).
    pub set_version: String,
    /// The summary lines: `overall`, then each kind of work and each chip family.
    pub summaries: Vec<Line>,
    /// The terms' lines, in fit order.
    pub terms: Vec<TermLine>,
    /// One row per point.
    pub rows: Vec<PageRow>,
    /// What the nested hold-out held out, in words (issue 39).
    pub held_out: String,
    /// The band coverage: `overall`, then each kind of work ([`coverage_text`]).
    pub coverage: Vec<Line>,
    /// The family factors and kind biases with the figures that decided them: a line per
    /// family (`hopper`), then per kind (`gemm`) ([`factor_text`], [`kind_text`]).
    pub factors: Vec<Line>,
    /// Each tail's nested error with and without its terms ([`tail_text`]).
    pub tails: Vec<Line>,
    /// The old (not nested) figure over the whole set, named for what it is ([`old_text`]).
    pub old: String,
    /// The serving-at-load set's expressed rows (issue 40): the load plot places those of its
    /// model, chip, lengths and layout on it, so the rows travel here and never in the wasm.
    pub load_rows: Vec<MeasuredRow>,
}

/// A summary line and its group (`data-group`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Line {
    /// `overall`, a kind of work or a chip family.
    pub group: String,
    /// [`summary_text`].
    pub text: String,
}

/// A term's line.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TermLine {
    /// The term's id (`data-term`).
    pub id: String,
    /// Whether the fit keeps it.
    pub kept: bool,
    /// [`term_text`].
    pub text: String,
}

/// A point's row.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PageRow {
    /// `data-validation-id`.
    pub id: String,
    /// The kind of work's id (`gemm`).
    pub work: String,
    /// The chip preset.
    pub chip: String,
    /// The scenario's link (a query).
    pub link: String,
    /// The name's hover: conditions, then the quote, then the point's notes (what the
    /// conditions leave open, and why a point sits where it does) on a line of their own.
    pub title: String,
    /// The figure as published.
    pub measured: String,
    /// The evidence tier and the source (the last cell's hover).
    pub source: String,
    /// Measured seconds (the plot's y).
    pub measured_s: f64,
    /// Predicted seconds (the plot's x), absent where the point is not expressed.
    pub predicted: Option<f64>,
    /// [`validation_cells`].
    pub cells: Vec<PageCell>,
    /// What its held-out expectation rests on: `chip`, `family`, `pooled`, or `none` where it
    /// has none (issue 39).
    pub basis: String,
    /// The basis in words, with the points it names, or why there is no expectation.
    pub basis_title: String,
    /// Whether the measured time lies in the held-out expectation's band; `None` without one.
    pub covered: Option<bool>,
    /// The tail it belongs to (`fp8-training`), if any.
    pub tail: Option<String>,
    /// The held-out expectation, seconds, and its p10–p90 band (issue 38: the plot's marker and
    /// bar at the point's predicted bound); absent where there is none.
    pub expected: Option<f64>,
    pub expected_lo: Option<f64>,
    pub expected_hi: Option<f64>,
}

/// A cell of a row, as [`Cell`] with owned names.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PageCell {
    /// `data-metric`.
    pub metric: String,
    /// `data-value`.
    pub value: String,
    /// The text shown.
    pub text: String,
    /// The hover.
    pub title: String,
    /// An expected figure's basis (`data-basis`: `chip`, `family`, `pooled` or `none`); `None`
    /// for other figures.
    pub basis: Option<String>,
}

impl ValidationPage {
    /// The page of a report.
    pub fn of(r: &Report) -> ValidationPage {
        let line = |s: &Summary, group: &str| Line {
            group: group.to_string(),
            text: summary_text(s),
        };
        let mut summaries = vec![line(&r.overall, "overall")];
        summaries.extend(
            r.by_work
                .iter()
                .chain(&r.by_family)
                .map(|s| line(s, &s.label)),
        );
        let mut coverage = vec![line_of(&r.overall, "overall", coverage_text)];
        coverage.extend(
            r.by_work
                .iter()
                .map(|s| line_of(s, &s.label, coverage_text)),
        );
        let mut factors: Vec<Line> = r
            .families
            .iter()
            .map(|f| Line {
                group: f.family.id().to_string(),
                text: factor_text(f),
            })
            .collect();
        factors.extend(r.kinds.iter().map(|k| Line {
            group: k.work.as_str().to_string(),
            text: kind_text(k),
        }));
        ValidationPage {
            held_out: r.held_out.to_string(),
            coverage,
            factors,
            tails: r
                .tails
                .iter()
                .map(|t| Line {
                    group: t.tail.id().to_string(),
                    text: tail_text(t),
                })
                .collect(),
            old: old_text(&r.overall),
            set_version: r.set_version.to_string(),
            summaries,
            terms: r
                .terms
                .iter()
                .map(|t| TermLine {
                    id: t.term.id().to_string(),
                    kept: t.kept,
                    text: term_text(t),
                })
                .collect(),
            rows: r.rows.iter().map(PageRow::of).collect(),
            // Natively (the build) the core has its rows; a wasm build carries none.
            #[cfg(not(target_arch = "wasm32"))]
            load_rows: roofline::validation::load::page::measured_set(),
            #[cfg(target_arch = "wasm32")]
            load_rows: Vec::new(),
        }
    }

    /// As written next to the page.
    pub fn to_json(&self) -> String {
        crate::json::to_string_pretty(self).expect("plain strings and numbers")
    }

    /// Reads [`ValidationPage::to_json`]'s text; says what is missing or malformed.
    pub fn from_json(text: &str) -> Result<ValidationPage, String> {
        let v = roofline::inputs::json::parse(text)
            .map_err(|e| format!("the validation data is not JSON: {e}"))?;
        let summaries = DOC
            .list(&v, "summaries")?
            .iter()
            .map(|l| {
                Ok(Line {
                    group: DOC.text(l, "group")?,
                    text: DOC.text(l, "text")?,
                })
            })
            .collect::<Result<_, String>>()?;
        let terms = DOC
            .list(&v, "terms")?
            .iter()
            .map(|t| {
                Ok(TermLine {
                    id: DOC.text(t, "id")?,
                    kept: DOC
                        .field(t, "kept")?
                        .as_bool()
                        .ok_or("the validation data's \"kept\" is not true or false")?,
                    text: DOC.text(t, "text")?,
                })
            })
            .collect::<Result<_, String>>()?;
        let rows = DOC
            .list(&v, "rows")?
            .iter()
            .map(PageRow::from_value)
            .collect::<Result<_, String>>()?;
        let lines = |k: &str| -> Result<Vec<Line>, String> {
            DOC.list(&v, k)?
                .iter()
                .map(|l| {
                    Ok(Line {
                        group: DOC.text(l, "group")?,
                        text: DOC.text(l, "text")?,
                    })
                })
                .collect()
        };
        Ok(ValidationPage {
            set_version: DOC.text(&v, "set_version")?,
            summaries,
            terms,
            rows,
            held_out: DOC.text(&v, "held_out")?,
            coverage: lines("coverage")?,
            factors: lines("factors")?,
            tails: lines("tails")?,
            old: DOC.text(&v, "old")?,
            load_rows: DOC
                .list(&v, "load_rows")?
                .iter()
                .map(load_row_of)
                .collect::<Result<_, String>>()?,
        })
    }
}

/// A serving-at-load row of the validation data.
fn load_row_of(r: &Value) -> Result<MeasuredRow, String> {
    let n = |k: &str| -> Result<f64, String> {
        DOC.number(r, k)?
            .ok_or_else(|| format!("a load row of the validation data has no {k}"))
    };
    Ok(MeasuredRow {
        id: DOC.text(r, "id")?,
        preset: DOC.text(r, "preset")?,
        chip: DOC.text(r, "chip")?,
        tp: n("tp")?,
        ep: n("ep")?,
        moe_ep: n("moe_ep")?,
        engine: DOC.text(r, "engine")?,
        c: n("c")?,
        isl: n("isl")?,
        osl: n("osl")?,
        ttft: n("ttft")?,
        tpot: n("tpot")?,
    })
}

/// The messages' name of the text.
const DOC: Doc = Doc("the validation data");

impl PageRow {
    fn from_value(r: &Value) -> Result<PageRow, String> {
        let cells = DOC
            .list(r, "cells")?
            .iter()
            .map(|c| {
                Ok(PageCell {
                    metric: DOC.text(c, "metric")?,
                    value: DOC.text(c, "value")?,
                    text: DOC.text(c, "text")?,
                    title: DOC.text(c, "title")?,
                    basis: match DOC.field(c, "basis") {
                        Ok(b) => b.as_str().map(str::to_string),
                        Err(_) => None,
                    },
                })
            })
            .collect::<Result<_, String>>()?;
        Ok(PageRow {
            id: DOC.text(r, "id")?,
            work: DOC.text(r, "work")?,
            chip: DOC.text(r, "chip")?,
            link: DOC.text(r, "link")?,
            title: DOC.text(r, "title")?,
            measured: DOC.text(r, "measured")?,
            source: DOC.text(r, "source")?,
            measured_s: DOC
                .number(r, "measured_s")?
                .ok_or("a row of the validation data has no measured time")?,
            predicted: DOC.number(r, "predicted")?,
            cells,
            basis: DOC.text(r, "basis")?,
            basis_title: DOC.text(r, "basis_title")?,
            covered: match DOC.field(r, "covered")? {
                Value::Null => None,
                b => Some(
                    b.as_bool()
                        .ok_or("the validation data's \"covered\" is not true, false or null")?,
                ),
            },
            tail: DOC.opt_text(r, "tail")?,
            expected: DOC.number(r, "expected")?,
            expected_lo: DOC.number(r, "expected_lo")?,
            expected_hi: DOC.number(r, "expected_hi")?,
        })
    }

    fn of(row: &Row) -> PageRow {
        let p = row.point;
        PageRow {
            id: p.id.to_string(),
            work: p.work.as_str().to_string(),
            chip: p.chip().to_string(),
            link: p.link.to_string(),
            title: row_title(p),
            measured: p.measured.to_string(),
            source: format!("{}: {}", p.tier.label(), p.source),
            measured_s: p.measured_s,
            predicted: row.predicted.as_ref().ok().copied(),
            basis: row
                .held_out
                .as_ref()
                .map_or("none", |e| e.basis.id())
                .to_string(),
            basis_title: basis_title(row),
            covered: row.covered,
            tail: row.tail.map(|t| t.id().to_string()),
            cells: validation_cells(row)
                .into_iter()
                .map(|c| PageCell {
                    metric: c.metric.to_string(),
                    value: c.value,
                    text: c.text,
                    title: c.title,
                    basis: c.basis.map(str::to_string),
                })
                .collect(),
            expected: row.held_out.as_ref().map(|e| e.t),
            expected_lo: row.held_out.as_ref().and_then(|e| e.lo),
            expected_hi: row.held_out.as_ref().and_then(|e| e.hi),
        }
    }
}

/// The one sentence the validation view opens with, under its scatter (issue 38, point 5).
pub const VIEW_SENTENCE: &str = "Each dot is a measured run against the lower bound the page \
     computes for its scenario: on the line it ran at its bound, above it slower; the grey bar \
     is what the page expects of it (with its p10–p90 band), fitted without that run's own \
     source.";

/// The hover of a point's name: its conditions and quote, and its notes where it has any.
fn row_title(p: &roofline::validation::Point) -> String {
    let head = format!("{} — {}", p.conditions, p.quote);
    if p.notes.is_empty() {
        head
    } else {
        format!("{head}\nNotes: {}", p.notes)
    }
}

/// Measured against predicted, log-log: one scatter series per kind of work, and y = x.
pub fn validation_chart(r: &ValidationPage) -> SweepChart {
    let mut series: Vec<ChartSeries> = MeasureKind::ALL
        .iter()
        .enumerate()
        .filter_map(|(k, w)| {
            let points: Vec<(f64, f64)> = r
                .rows
                .iter()
                .filter(|row| row.work == w.as_str())
                .filter_map(|row| Some((row.predicted?, row.measured_s)))
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
            label: "measured = predicted; bars: expected, held out (p10–p90)".into(),
            points: vec![(lo, lo), (hi, hi)],
            series_idx: 0,
            scatter: false,
            oom_from: None,
        });
    }
    // Each point's held-out expectation at its predicted bound, with its p10–p90 band.
    let bars = r
        .rows
        .iter()
        .filter_map(|row| {
            let (x, mid) = (row.predicted?, row.expected?);
            Some(crate::charts::ErrorBar {
                x,
                mid,
                lo: row.expected_lo.unwrap_or(mid),
                hi: row.expected_hi.unwrap_or(mid),
            })
        })
        .collect();
    SweepChart {
        title: format!(
            "Measured runs against the roofline (validation set {})",
            r.set_version
        ),
        x_label: "predicted lower bound".into(),
        y_label: "measured".into(),
        series,
        log_x: true,
        log_y: true,
        x_unit: Some(Unit::Seconds),
        y_unit: Some(Unit::Seconds),
        // Named in the y = x line's legend entry: the legend keeps all its kinds of work.
        bars,
        ..Default::default()
    }
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
        basis: None,
    };
    let none = |metric: &'static str, why: &str| Cell {
        metric,
        value: "none".into(),
        text: "—".into(),
        class: "",
        title: why.to_string(),
        basis: None,
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
    // Issue 38: an expected figure says which points back it (`data-basis`).
    if let Some(c) = out.last_mut() {
        c.basis = Some(row.held_out.as_ref().map_or("none", |e| e.basis.id()));
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

fn line_of(s: &Summary, group: &str, text: fn(&Summary) -> String) -> Line {
    Line {
        group: group.to_string(),
        text: text(s),
    }
}

/// A row's basis in words: the points it names, or why there is no expectation.
fn basis_title(row: &Row) -> String {
    match (&row.held_out, &row.predicted) {
        (Some(e), _) => {
            let pts = if e.basis_points.is_empty() {
                String::new()
            } else {
                format!(": {}", e.basis_points.join(", "))
            };
            format!(
                "rests on {} (without this point's source){pts}",
                e.basis.label()
            )
        }
        (None, Err(why)) => format!("no expectation: not expressed ({why})"),
        (None, Ok(_)) => format!(
            "no expectation: without this point's source the set has no {} point",
            row.point.family.id()
        ),
    }
}
