//! From a scenario to what the page shows: result rows (with the test contract's `data-metric`
//! figures), chart models, the key result line, exports and recipes. Pure and tested natively;
//! the Leptos components only render what this module computes.

use roofline::analysis::{analyze, Analysis, Bound, FlopConvention};
use roofline::op::Op;
use roofline::scenario::Scenario;
use roofline::sweep::sweep;
use roofline::units::{format_exact, format_si, format_sig, Unit};
use std::rc::Rc;
use std::sync::Arc;

use crate::charts::{
    self, Ceiling, ChartGeometry, HLine, Marker, PointMark, RooflineChart, Series, Slope,
    SweepChart, Theme, VLine,
};

/// Operation kinds offered in the forms: (kind id, label).
pub const OP_KINDS: &[(&str, &str)] = &[
    ("matmul", "matmul X[B,D]·W[D,F]"),
    ("bmm", "per-example-weight matmul"),
    ("dot", "dot product"),
    ("elementwise", "elementwise"),
    ("custom", "custom FLOPs / bytes"),
    ("llm", "Transformer step (LLM)"),
    ("model", "aggregate model (ResNet-50, …)"),
];

/// What the sweep plot shows on its y axis: part of the scenario (`y=` in links).
pub use roofline::scenario::SweepMetric;

/// The chart in front.
#[derive(Debug, Clone, PartialEq)]
pub enum ChartModel {
    /// Achieved FLOPs/s (or time, or % of peak) against the swept field.
    Sweep(SweepChart),
    /// Log-log roofline.
    Roofline(RooflineChart),
}

fn name_of(f: &str, s: &Scenario) -> String {
    s.ops
        .iter()
        .find_map(|o| o.field(f).map(|spec| spec.label.to_string()))
        .unwrap_or_else(|| f.to_string())
}

/// A short name for an operation: its label, else `D=F=4096` style for matmul-like kinds (as
/// in the chapter's legend), else its description.
pub fn op_name(op: &Op) -> String {
    if let Some(l) = op.label.as_deref().filter(|l| !l.trim().is_empty()) {
        return l.to_string();
    }
    if op.kind_id() == "llm" {
        let model = op
            .get("preset")
            .filter(|p| p != "custom")
            .unwrap_or_else(|| "custom LLM".into());
        return format!("{model} {}", op.get("phase").unwrap_or_default());
    }
    match (op.get("d"), op.get("f")) {
        (Some(d), Some(f)) if d == f => format!("{} D=F={d}", op.kind_id()),
        (Some(d), Some(f)) => format!("{} D={d}, F={f}", op.kind_id()),
        _ => op.title(),
    }
}

fn series_name(s: &Scenario, op: &Op, chip: &str) -> String {
    if s.chips.len() > 1 {
        format!("{} · {chip}", op_name(op))
    } else {
        op_name(op)
    }
}

/// Format a quantity for people: SI prefixes and units.
pub fn pretty(v: f64, unit: Unit) -> String {
    if !v.is_finite() {
        return "—".into();
    }
    format_si(v, unit)
}

impl ChartModel {
    /// `sweep` or `roofline` (the canvas's `data-chart`).
    pub fn kind(&self) -> &'static str {
        match self {
            ChartModel::Sweep(_) => "sweep",
            ChartModel::Roofline(_) => "roofline",
        }
    }

    /// What the chart shows, in a sentence, for `aria-label`.
    pub fn aria_label(&self) -> String {
        match self {
            ChartModel::Sweep(m) => {
                let xs: Vec<String> = m.crossovers.iter().map(|c| c.label.clone()).collect();
                format!(
                    "{}: {} series{}",
                    m.title,
                    m.series.len(),
                    if xs.is_empty() {
                        String::new()
                    } else {
                        format!("; compute-bound from {}", xs.join(", "))
                    }
                )
            }
            ChartModel::Roofline(m) => format!(
                "{}: {} points, {} ceilings",
                m.title,
                m.points.len(),
                m.ceilings.len()
            ),
        }
    }

    /// The plotted numbers as a table (header, rows), for screen readers.
    pub fn table(&self) -> (Vec<String>, Vec<Vec<String>>) {
        match self {
            ChartModel::Sweep(m) => {
                let head = vec!["series".into(), m.x_label.clone(), m.y_label.clone()];
                let mut rows = Vec::new();
                for s in &m.series {
                    // Every point would be hundreds of rows per series; list a readable subset
                    // (about 16 per series) plus every crossover.
                    let step = (s.points.len() / 16).max(1);
                    for (i, (x, y)) in s.points.iter().enumerate() {
                        if i % step == 0 || i + 1 == s.points.len() {
                            rows.push(vec![s.label.clone(), format_sig(*x, 4), format_sig(*y, 4)]);
                        }
                    }
                }
                for c in &m.crossovers {
                    rows.push(vec![
                        format!("crossover {}", c.label),
                        format_sig(c.x, 4),
                        format_sig(c.y, 4),
                    ]);
                }
                (head, rows)
            }
            ChartModel::Roofline(m) => {
                let head = vec!["point".into(), m.x_label.clone(), m.y_label.clone()];
                let mut rows: Vec<Vec<String>> = m
                    .points
                    .iter()
                    .map(|p| vec![p.label.clone(), format_sig(p.x, 4), format_sig(p.y, 4)])
                    .collect();
                rows.extend(
                    m.ceilings
                        .iter()
                        .map(|c| vec![c.label.clone(), "—".into(), format_sig(c.flops_per_s, 4)]),
                );
                rows.extend(
                    m.ridges
                        .iter()
                        .map(|r| vec![r.label.clone(), format_sig(r.x, 4), format_sig(r.y, 4)]),
                );
                (head, rows)
            }
        }
    }

    /// The nearest plotted point to a pointer position (backend pixels), as text.
    pub fn readout(&self, g: &ChartGeometry, px: f64, py: f64, max_px: f64) -> Option<String> {
        match self {
            ChartModel::Sweep(m) => {
                let hits = m.hit_points();
                let n =
                    charts::nearest_point(&hits, g, px, py).filter(|n| n.distance_px <= max_px)?;
                let (_, x, y) = hits[n.index];
                let s = &m.series[n.series];
                Some(format!(
                    "{} — {} = {}, {} = {}",
                    s.label,
                    m.x_label,
                    format_sig(x, 4),
                    m.y_label,
                    format_sig(y, 4)
                ))
            }
            ChartModel::Roofline(m) => {
                let hits = m.hit_points();
                let n =
                    charts::nearest_point(&hits, g, px, py).filter(|n| n.distance_px <= max_px)?;
                let p = &m.points[n.series];
                Some(format!(
                    "{} — intensity {} FLOPs/byte, {}",
                    p.label,
                    format_sig(p.x, 4),
                    pretty(p.y, Unit::FlopRate)
                ))
            }
        }
    }

    /// The same drawing as an SVG document (the export).
    pub fn to_svg(&self, dark: bool, width: u32, height: u32) -> Result<String, String> {
        self.to_svg_via::<charts::NoBackend>(dark, width, height)
    }

    /// [`ChartModel::to_svg`], drawn through `EitherBackend<SVGBackend, B>`: the page passes
    /// its canvas backend, whose drawings go through the same type, so the wasm holds one copy
    /// of the chart code for the screen and the export.
    pub fn to_svg_via<B: plotters::prelude::DrawingBackend>(
        &self,
        dark: bool,
        width: u32,
        height: u32,
    ) -> Result<String, String> {
        let theme = if dark { Theme::dark() } else { Theme::light() };
        charts::render_svg_with::<B, _>(width, height, &theme, |root, theme| match self {
            ChartModel::Sweep(m) => charts::sweep::draw(root, m, theme),
            ChartModel::Roofline(m) => charts::roofline::draw(root, m, theme),
        })
        .map(|(svg, _)| svg)
    }
}

/// Numeric fields of the scenario's operations that a sweep can vary: (key, label), no repeats.
pub fn sweepable_fields(s: &Scenario) -> Vec<(&'static str, &'static str)> {
    let mut out: Vec<(&'static str, &'static str)> = Vec::new();
    for op in &s.ops {
        for f in op.fields() {
            if f.is_numeric() && !out.iter().any(|(k, _)| *k == f.key) {
                out.push((f.key, f.label));
            }
        }
    }
    if !out.iter().any(|(k, _)| *k == s.sweep.field) {
        // Keep the current choice visible even if no op has it (its series then say so).
        if let Some(f) = s
            .ops
            .iter()
            .flat_map(|o| o.fields())
            .find(|f| f.key == s.sweep.field)
        {
            out.push((f.key, f.label));
        }
    }
    out
}

/// The swept field for an axis title: `batch size B`, `D`, `context (ctx)`.
fn axis_name(s: &Scenario) -> String {
    let (label, dim) = (name_of(&s.sweep.field, s), dim_word(&s.sweep.field));
    if s.sweep.field == "b" && label == "B" {
        "batch size B".into()
    } else if label == dim || label.starts_with(&format!("{dim} ")) {
        label
    } else {
        format!("{label} ({dim})")
    }
}

fn dim_word(field: &str) -> String {
    match field {
        "b" => "B".into(),
        "d" => "D".into(),
        "f" => "F".into(),
        "n" => "N".into(),
        other => other.to_string(),
    }
}

fn sweep_title(s: &Scenario, metric: SweepMetric) -> String {
    let what = match metric {
        SweepMetric::Achieved => "Achieved FLOPs/s",
        SweepMetric::Time => "Time (lower bound)",
        SweepMetric::Fraction => "Fraction of peak",
        SweepMetric::TokensPerS => "Tokens/s",
    };
    let chips: Vec<&str> = s.chips.iter().map(|c| c.name.as_str()).collect();
    format!(
        "{what} vs {} ({})",
        name_of(&s.sweep.field, s),
        chips.join(", ")
    )
}

/// Sweeps remembered between charts: a series is re-swept only when its operation, its chip, the
/// options or the sweep changed, so an edit to one operation re-sweeps only that operation's
/// series. Each chart keeps only the entries it used.
#[derive(Default)]
pub struct SweepCache {
    entries: std::collections::HashMap<(usize, usize), CachedSweep>,
}

struct CachedSweep {
    op: Op,
    chip: roofline::chip::Chip,
    options: roofline::analysis::Options,
    spec: roofline::sweep::SweepSpec,
    swept: Rc<Swept>,
}

/// A series and the analysis at the operation's own values (for its peak and critical lines).
type Swept = (
    Result<roofline::sweep::Series, roofline::Error>,
    Result<Analysis, roofline::Error>,
);

impl SweepCache {
    /// The sweep and analysis of operation `i` on chip `j` of `s`, computed or remembered.
    fn get(
        &self,
        next: &mut std::collections::HashMap<(usize, usize), CachedSweep>,
        s: &Scenario,
        i: usize,
        j: usize,
    ) -> Rc<Swept> {
        let (op, chip) = (&s.ops[i], &s.chips[j]);
        let swept = match self.entries.get(&(i, j)) {
            Some(e)
                if e.op == *op
                    && e.chip == *chip
                    && e.options == s.options
                    && e.spec == s.sweep =>
            {
                e.swept.clone()
            }
            _ => Rc::new((
                sweep(op, chip, &s.options, &s.sweep),
                analyze(op, chip, &s.options),
            )),
        };
        next.insert(
            (i, j),
            CachedSweep {
                op: op.clone(),
                chip: chip.clone(),
                options: s.options,
                spec: s.sweep.clone(),
                swept: swept.clone(),
            },
        );
        swept
    }
}

/// The sweep plot: one series per (operation, chip), peak lines, exact crossovers, and the
/// closed-form approximation as a dashed line.
pub fn sweep_chart(s: &Scenario, metric: SweepMetric, log_x: bool, log_y: bool) -> SweepChart {
    sweep_chart_cached(s, metric, log_x, log_y, &mut SweepCache::default())
}

/// [`sweep_chart`], re-using the sweeps of `cache` that are still valid (and updating it).
pub fn sweep_chart_cached(
    s: &Scenario,
    metric: SweepMetric,
    log_x: bool,
    log_y: bool,
    cache: &mut SweepCache,
) -> SweepChart {
    let mut next = std::collections::HashMap::new();
    let mut chart = SweepChart {
        title: sweep_title(s, metric),
        x_label: axis_name(s),
        y_label: match metric {
            SweepMetric::Achieved => "achieved FLOPs/s".into(),
            SweepMetric::Time => "T_lower (s)".into(),
            SweepMetric::Fraction => "% of peak".into(),
            SweepMetric::TokensPerS => "tokens/s".into(),
        },
        log_x,
        log_y,
        ..SweepChart::default()
    };
    let n_ops = s.ops.len();
    for (j, chip) in s.chips.iter().enumerate() {
        let mut peaks_seen: Vec<f64> = Vec::new();
        for (i, op) in s.ops.iter().enumerate() {
            if op.field(&s.sweep.field).is_none() {
                continue;
            }
            if metric == SweepMetric::TokensPerS && op.kind_id() != "llm" {
                continue;
            }
            let swept = cache.get(&mut next, s, i, j);
            let (Ok(series), analysis) = swept.as_ref() else {
                continue;
            };
            let idx = j * n_ops + i;
            let y_of = |p: &roofline::sweep::SweepPoint| match metric {
                SweepMetric::Achieved => p.achieved,
                SweepMetric::Time => p.t_lower,
                SweepMetric::Fraction => 100.0 * p.fraction,
                SweepMetric::TokensPerS => tokens_at(op, &s.sweep.field, p.x) / p.t_lower,
            };
            chart.series.push(Series {
                label: series_name(s, op, &chip.name),
                points: series.points.iter().map(|p| (p.x, y_of(p))).collect(),
                series_idx: idx,
            });
            if metric == SweepMetric::Fraction && op.kind_id() == "llm" {
                part_series(&mut chart, s, op, chip, series, idx);
            }
            for c in &series.crossovers {
                let y = match metric {
                    SweepMetric::Achieved => c.achieved,
                    SweepMetric::Time => c.t_lower,
                    SweepMetric::Fraction => 100.0 * (c.achieved / series.peak).min(1.0),
                    SweepMetric::TokensPerS => tokens_at(op, &s.sweep.field, c.x) / c.t_lower,
                };
                chart.crossovers.push(Marker::new(
                    c.x,
                    y,
                    format!("{} = {}", dim_word(&s.sweep.field), format_sig(c.x, 4)),
                ));
            }
            if let Ok(a) = analysis {
                if let Some(crit) = a.critical.as_ref().filter(|c| c.dim == s.sweep.field) {
                    if let Some(approx) = crit.approx {
                        let label = format!(
                            "{} > {} (approx.)",
                            dim_word(&crit.dim),
                            format_sig(approx, 3)
                        );
                        if !chart.vlines.iter().any(|v| v.label == label) {
                            chart.vlines.push(VLine { x: approx, label });
                        }
                    }
                }
                let peak = a.compute.effective_peak;
                if metric == SweepMetric::Achieved && !peaks_seen.contains(&peak) {
                    peaks_seen.push(peak);
                    let who = if s.chips.len() > 1 {
                        format!("{} ", chip.name)
                    } else {
                        String::new()
                    };
                    chart.hlines.push(HLine {
                        label: format!(
                            "{who}{} peak {}",
                            a.compute.dtype.as_str(),
                            pretty(peak, Unit::FlopRate)
                        ),
                        y: peak,
                        series_idx: idx,
                    });
                }
            }
        }
        if metric == SweepMetric::Fraction && j == 0 {
            chart.hlines.push(HLine {
                label: "peak (100%)".into(),
                y: 100.0,
                series_idx: 0,
            });
        }
    }
    cache.entries = next;
    chart
}

/// Tokens per step of a model workload with `field` at `x` (decode: B; prefill: B·ctx). `x`
/// is taken as it is, not validated: a crossover lies between grid points, at a fractional
/// batch such as B = 22.34.
fn tokens_at(op: &Op, field: &str, x: f64) -> f64 {
    let num = |k: &str| {
        if k == field {
            x
        } else {
            op.get_num(k).unwrap_or(0.0)
        }
    };
    match op.get("phase").as_deref() {
        Some("prefill") => num("b") * num("ctx"),
        _ => num("b"),
    }
}

/// The group a model part belongs to on the sweep plot.
fn part_group(name: &str) -> &'static str {
    if name.contains("attention scores") || name.contains("attention values") {
        "attention (KV cache)"
    } else if name.contains("norm") || name.contains("gather") {
        "norms, embedding gather"
    } else {
        "weight matmuls"
    }
}

/// "% of peak" curves for the parts of a model workload, grouped (weight matmuls, attention over
/// the KV cache, norms): each group's FLOPs over its summed time, against the chip's peak. Decode's
/// weight matmuls climb to the peak near the ridge while attention, reading per-sequence KV cache,
/// stays low at any batch.
fn part_series(
    chart: &mut SweepChart,
    s: &Scenario,
    op: &Op,
    chip: &roofline::chip::Chip,
    series: &roofline::sweep::Series,
    idx: usize,
) {
    const GROUPS: [&str; 3] = [
        "weight matmuls",
        "attention (KV cache)",
        "norms, embedding gather",
    ];
    let mut curves: [Vec<(f64, f64)>; 3] = Default::default();
    for p in &series.points {
        let mut o = op.clone();
        if o.set_num(&s.sweep.field, p.x).is_err() {
            continue;
        }
        let Some(parts) = roofline::workload::parts(&o) else {
            return;
        };
        // (Σ FLOPs, Σ time) per group; the peak is the chip's peak for the step's dtype.
        let mut sums = [(0.0f64, 0.0f64); 3];
        let mut peak = 0.0f64;
        for part in parts {
            let Ok(a) = analyze(&part.op, chip, &s.options) else {
                continue;
            };
            let g = GROUPS
                .iter()
                .position(|g| *g == part_group(&part.name))
                .unwrap_or(0);
            sums[g].0 += part.repeat * a.flops;
            sums[g].1 += part.repeat * a.t_lower;
            peak = peak.max(a.compute.peak);
        }
        for (g, (flops, t)) in sums.iter().enumerate() {
            if *t > 0.0 && peak > 0.0 {
                curves[g].push((p.x, 100.0 * (flops / t / peak).min(1.0)));
            }
        }
    }
    for (k, points) in curves.into_iter().enumerate() {
        if !points.is_empty() {
            chart.series.push(Series {
                label: format!("{} · {}", op_name(op), GROUPS[k]),
                points,
                series_idx: idx + 1 + k,
            });
        }
    }
}

/// The roofline plot: per chip its compute ceilings (dtypes in use), HBM slope and the link
/// slopes the operations use; ridges; one point per (operation, chip).
pub fn roofline_chart(s: &Scenario) -> RooflineChart {
    let mut chart = RooflineChart {
        title: format!(
            "Roofline: {}",
            s.chips
                .iter()
                .map(|c| c.name.as_str())
                .collect::<Vec<_>>()
                .join(" vs ")
        ),
        x_label: "arithmetic intensity (FLOPs/byte)".into(),
        y_label: "achieved FLOPs/s".into(),
        shade_regions: true,
        ..RooflineChart::default()
    };
    let n_ops = s.ops.len().max(1);
    for (j, chip) in s.chips.iter().enumerate() {
        let color = j * n_ops;
        let mut ceilings: Vec<(String, f64)> = Vec::new();
        let mut slopes: Vec<(roofline::analysis::Resource, f64)> = Vec::new();
        for (i, op) in s.ops.iter().enumerate() {
            let Ok(a) = analyze(op, chip, &s.options) else {
                continue;
            };
            let dt = a.compute.dtype.as_str().to_string();
            if !ceilings.iter().any(|(d, _)| *d == dt) {
                ceilings.push((dt, a.compute.effective_peak));
            }
            for t in &a.comms {
                if !slopes.iter().any(|(r, _)| *r == t.resource) {
                    slopes.push((t.resource, t.bandwidth));
                }
            }
            chart.points.push(PointMark {
                x: a.intensity,
                y: a.achieved,
                label: series_name(s, op, &chip.name),
                series_idx: j * n_ops + i,
            });
        }
        if !slopes
            .iter()
            .any(|(r, _)| *r == roofline::analysis::Resource::Hbm)
        {
            slopes.insert(0, (roofline::analysis::Resource::Hbm, chip.hbm));
        }
        for (dt, peak) in &ceilings {
            chart.ceilings.push(Ceiling {
                label: format!("{} {dt} peak {}", chip.name, pretty(*peak, Unit::FlopRate)),
                flops_per_s: *peak,
                series_idx: color,
            });
        }
        for (r, bw) in &slopes {
            chart.slopes.push(Slope {
                label: format!(
                    "{} {} {}",
                    chip.name,
                    r.label(),
                    pretty(*bw, Unit::ByteRate)
                ),
                bytes_per_s: *bw,
                series_idx: color,
                dashed: *r != roofline::analysis::Resource::Hbm,
            });
        }
        let conv = s.options.convention.factor();
        for (_, peak) in &ceilings {
            let ridge = peak / (conv * chip.hbm);
            chart.ridges.push(Marker::new(
                ridge,
                *peak,
                format!("ridge {}", format_sig(ridge, 3)),
            ));
        }
    }
    chart
}

/// One figure of a result row: `data-metric`, raw `data-value` (base units) and display text.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    /// The metric key of the test contract (`flops`, `t_math`, `bound`, ...).
    pub metric: &'static str,
    /// The raw value in base units, or a word.
    pub value: String,
    /// What people read.
    pub text: String,
    /// CSS class.
    pub class: &'static str,
    /// Tooltip.
    pub title: String,
}

/// A row of the results table.
#[derive(Debug, Clone, PartialEq)]
pub struct ResultRow {
    /// Unique id (for open/closed derivations).
    pub id: String,
    /// `data-op`: the op's position (`"0"`), or `"<i>.<k>"` for the k-th part of a model.
    pub op_key: String,
    /// `data-chip`.
    pub chip: usize,
    /// "operation · chip".
    pub name: String,
    /// Extra row class (`part-row`, `total-row`).
    pub class: &'static str,
    /// The figures.
    pub cells: Vec<Cell>,
    /// The analysis behind the figures; its derivation is written only when a row is opened,
    /// not on every keystroke.
    pub analysis: Option<Box<Analysis>>,
    /// Why there are no figures (invalid combination, missing peak).
    pub error: Option<String>,
    /// Rows of the parts (model workloads), shown under this one.
    pub parts: Vec<ResultRow>,
}

fn cell(metric: &'static str, v: f64, text: String) -> Cell {
    Cell {
        metric,
        value: format_exact(v),
        text,
        class: "",
        title: String::new(),
    }
}

/// The figures of an analysis, in column order.
pub fn cells(a: &Analysis) -> Vec<Cell> {
    let mut out = vec![
        cell("flops", a.flops, pretty(a.flops, Unit::Flops)),
        cell("bytes", a.bytes, pretty(a.bytes, Unit::Bytes)),
        cell("intensity", a.intensity, format_sig(a.intensity, 4)),
        cell("t_math", a.t_math, pretty(a.t_math, Unit::Seconds)),
    ];
    let mut comms = cell("t_comms", a.t_comms, pretty(a.t_comms, Unit::Seconds));
    comms.title = a
        .comms
        .iter()
        .map(|t| {
            format!(
                "{} = {} / {} = {}",
                t.resource.time_symbol(),
                pretty(t.bytes, Unit::Bytes),
                pretty(t.bandwidth, Unit::ByteRate),
                pretty(t.time, Unit::Seconds)
            )
        })
        .collect::<Vec<_>>()
        .join("\n");
    if a.comms.len() > 1 {
        comms.text = a
            .comms
            .iter()
            .map(|t| format!("{} {}", t.resource.label(), pretty(t.time, Unit::Seconds)))
            .collect::<Vec<_>>()
            .join(" · ");
    }
    out.push(comms);
    out.push(cell("t_lower", a.t_lower, pretty(a.t_lower, Unit::Seconds)));
    out.push(cell("t_upper", a.t_upper, pretty(a.t_upper, Unit::Seconds)));
    let bound = a.bound.as_str();
    out.push(Cell {
        metric: "bound",
        value: bound.to_string(),
        text: if a.bound == Bound::Compute {
            bound.to_string()
        } else {
            format!("{bound} ({})", a.binding.label())
        },
        class: match a.bound {
            Bound::Compute => "bound-compute",
            Bound::Memory => "bound-memory",
            Bound::Network => "bound-network",
        },
        title: String::new(),
    });
    out.push(cell(
        "achieved",
        a.achieved,
        pretty(a.achieved, Unit::FlopRate),
    ));
    out.push(cell(
        "fraction",
        a.fraction,
        format!("{}%", format_sig(100.0 * a.fraction, 3)),
    ));
    out.push(cell("ridge", a.ridge, format_sig(a.ridge, 4)));
    match &a.critical {
        Some(c) => {
            let metric = if c.dim == "d" {
                "critical_d"
            } else {
                "critical_b"
            };
            let mut text = format!("{} > {}", dim_word(&c.dim), format_sig(c.value, 4));
            if let Some(ap) = c.approx {
                text.push_str(&format!(" (≈ {})", format_sig(ap, 3)));
            }
            out.push(Cell {
                metric,
                value: format_exact(c.value),
                text,
                class: "",
                title: String::new(),
            });
        }
        None => out.push(Cell {
            metric: "critical_b",
            value: "none".into(),
            text: "—".into(),
            class: "",
            title: "never compute-bound by growing the batch".into(),
        }),
    }
    out.push(Cell {
        metric: "fits",
        value: a.fits.to_string(),
        text: format!(
            "{} {} / {}",
            if a.fits { "✓" } else { "✗" },
            pretty(a.memory, Unit::Bytes),
            pretty(a.capacity, Unit::Bytes)
        ),
        class: if a.fits {
            "bound-compute"
        } else {
            "bound-memory"
        },
        title: "bytes resident in HBM against its capacity".into(),
    });
    out
}

/// Parts grouped by what binds them: `compute: MLP up, MLP down · memory: attention scores`.
fn bound_groups(summary: &[(String, Bound)]) -> String {
    [Bound::Compute, Bound::Memory, Bound::Network]
        .iter()
        .filter_map(|b| {
            let names: Vec<&str> = summary
                .iter()
                .filter(|(_, x)| x == b)
                .map(|(n, _)| n.as_str())
                .collect();
            (!names.is_empty()).then(|| format!("{}: {}", b.as_str(), names.join(", ")))
        })
        .collect::<Vec<_>>()
        .join(" · ")
}

/// The extra figures of a model workload's total row: tokens/s, time per token, memory.
fn workload_cells(w: &roofline::workload::Workload) -> Vec<Cell> {
    let binds: Vec<String> = w
        .summary
        .iter()
        .map(|(n, b)| format!("{n}: {}", b.as_str()))
        .collect();
    vec![
        Cell {
            metric: "tokens_per_s",
            value: format_exact(w.tokens_per_s),
            text: format!("{} {}/s", format_sig(w.tokens_per_s, 4), w.unit),
            class: "",
            title: format!(
                "{} {} per step; {} per {}",
                format_exact(w.tokens),
                w.unit,
                pretty(w.time_per_token, Unit::Seconds),
                w.unit
            ),
        },
        Cell {
            metric: "time_per_token",
            value: format_exact(w.time_per_token),
            text: pretty(w.time_per_token, Unit::Seconds),
            class: "",
            title: binds.join("\n"),
        },
        Cell {
            metric: "parts_bound",
            value: w
                .summary
                .iter()
                .map(|(n, b)| format!("{n}={}", b.as_str()))
                .collect::<Vec<_>>()
                .join(";"),
            text: bound_groups(&w.summary),
            class: "",
            title: "which parts bind on what".into(),
        },
        Cell {
            metric: "memory",
            value: format_exact(w.memory),
            text: format!(
                "{} (weights {} + KV {})",
                pretty(w.memory, Unit::Bytes),
                pretty(w.weights, Unit::Bytes),
                pretty(w.kv_cache, Unit::Bytes)
            ),
            class: if w.fits { "" } else { "bound-memory" },
            title: format!("against {} of HBM", pretty(w.capacity, Unit::Bytes)),
        },
    ]
}

impl ResultRow {
    /// The worked derivation, one step per line (empty when the analysis failed).
    pub fn derivation(&self) -> Vec<String> {
        self.analysis
            .as_ref()
            .map(|a| a.derivation())
            .unwrap_or_default()
    }
}

/// One row per (operation, chip), operation-major.
pub fn result_rows(s: &Scenario) -> Vec<ResultRow> {
    result_rows_cached(s, &mut RowCache::default())
        .into_iter()
        .map(|r| Arc::try_unwrap(r).unwrap_or_else(|r| (*r).clone()))
        .collect()
}

/// Rows remembered between edits: a row is recomputed only when its operation, its chip or the
/// options changed, and an unchanged row is the same `Arc` as before (so a reader can tell it
/// apart with `Arc::ptr_eq`, without comparing figures).
#[derive(Default)]
pub struct RowCache {
    entries: std::collections::HashMap<(usize, usize), CachedRow>,
}

struct CachedRow {
    op: Op,
    chip: roofline::chip::Chip,
    options: roofline::analysis::Options,
    row: Arc<ResultRow>,
}

/// [`result_rows`], re-using the rows of `cache` that are still valid (and updating it).
pub fn result_rows_cached(s: &Scenario, cache: &mut RowCache) -> Vec<Arc<ResultRow>> {
    let mut next = std::collections::HashMap::new();
    let mut rows = Vec::new();
    for (i, op) in s.ops.iter().enumerate() {
        for (j, chip) in s.chips.iter().enumerate() {
            let row = match cache.entries.get(&(i, j)) {
                Some(e) if e.op == *op && e.chip == *chip && e.options == s.options => {
                    e.row.clone()
                }
                _ => Arc::new(result_row(s, i, j)),
            };
            next.insert(
                (i, j),
                CachedRow {
                    op: op.clone(),
                    chip: chip.clone(),
                    options: s.options,
                    row: row.clone(),
                },
            );
            rows.push(row);
        }
    }
    cache.entries = next;
    rows
}

/// The row of operation `i` on chip `j`.
fn result_row(s: &Scenario, i: usize, j: usize) -> ResultRow {
    let (op, chip) = (&s.ops[i], &s.chips[j]);
    {
        {
            let name = format!("{} · {}", op_name(op), chip.name);
            // A model workload's aggregate analysis comes with its parts: analyse once.
            let workload = roofline::workload::analyze_workload(op, chip, &s.options);
            let analysis = match &workload {
                Ok(Some(w)) => Ok(w.analysis.clone()),
                _ => analyze(op, chip, &s.options),
            };
            let (mut cells, analysis, error) = match analysis {
                Ok(a) => (cells(&a), Some(Box::new(a)), None),
                Err(e) => (Vec::new(), None, Some(e.to_string())),
            };
            let mut parts = Vec::new();
            let mut class = "";
            if let Ok(Some(w)) = workload {
                class = "total-row";
                cells.extend(workload_cells(&w));
                for (k, (part, a)) in w.parts.into_iter().enumerate() {
                    let mut c = self::cells(&a);
                    c.push(Cell {
                        metric: "repeat",
                        value: format_exact(part.repeat),
                        text: format!("×{}", format_exact(part.repeat)),
                        class: "",
                        title: "how many times per step (layers)".into(),
                    });
                    parts.push(ResultRow {
                        id: format!("{i}.{k}/{j}"),
                        op_key: format!("{i}.{k}"),
                        chip: j,
                        name: format!("  {} ×{}", part.name, format_exact(part.repeat)),
                        class: "part-row",
                        cells: c,
                        analysis: Some(Box::new(a)),
                        error: None,
                        parts: Vec::new(),
                    });
                }
            }
            ResultRow {
                id: format!("{i}/{j}"),
                op_key: i.to_string(),
                chip: j,
                name,
                class,
                cells,
                analysis,
                error,
                parts,
            }
        }
    }
}

/// The one-line key result (embed and under the plot).
pub fn key_line(s: &Scenario) -> String {
    let mut parts = Vec::new();
    for chip in &s.chips {
        for op in &s.ops {
            let who = series_name(s, op, &chip.name);
            match analyze(op, chip, &s.options) {
                Ok(a) => {
                    let mut t = format!("{who}: {}-bound", a.bound.as_str());
                    if let Some(c) = &a.critical {
                        t.push_str(&format!(
                            ", compute-bound for {} > {}",
                            dim_word(&c.dim),
                            format_sig(c.value, 4)
                        ));
                        if let Some(ap) = c.approx {
                            t.push_str(&format!(" (≈ {})", format_sig(ap, 3)));
                        }
                    }
                    parts.push(t);
                }
                Err(e) => parts.push(format!("{who}: {e}")),
            }
        }
    }
    let chips = s
        .chips
        .iter()
        .map(|c| c.name.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    format!("{chips} — {}", parts.join("; "))
}

/// A file name stem for exports: `roofline-lab-tpu-v5e-matmul-sweep`.
pub fn file_stem(s: &Scenario) -> String {
    let mut words = vec!["roofline-lab".to_string()];
    if let Some(c) = s.chips.first() {
        words.push(c.preset_id.clone().unwrap_or_else(|| "custom".into()));
    }
    if let Some(o) = s.ops.first() {
        words.push(o.kind_id().to_string());
    }
    words.push(s.plot.as_str().into());
    words.join("-")
}

fn csv_field(t: &str) -> String {
    if t.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", t.replace('"', "\"\""))
    } else {
        t.to_string()
    }
}

/// The sweep series as CSV, with units in the header; one row per point.
pub fn sweep_csv(s: &Scenario) -> String {
    let conv = match s.options.convention {
        FlopConvention::TwoPerMac => "2 FLOPs/MAC",
        FlopConvention::OnePerMac => "1 FLOP/MAC",
    };
    let mut out = format!(
        "operation,chip,{},achieved (FLOPs/s; {conv}),t_lower (s),t_upper (s),t_math (s),t_comms (s),fraction of peak,bound\n",
        csv_field(&s.sweep.field)
    );
    for chip in &s.chips {
        for op in &s.ops {
            if op.field(&s.sweep.field).is_none() {
                continue;
            }
            let Ok(series) = sweep(op, chip, &s.options, &s.sweep) else {
                continue;
            };
            for p in &series.points {
                out.push_str(&format!(
                    "{},{},{},{},{},{},{},{},{},{}\n",
                    csv_field(&op.title()),
                    csv_field(&chip.name),
                    format_exact(p.x),
                    format_exact(p.achieved),
                    format_exact(p.t_lower),
                    format_exact(p.t_upper),
                    format_exact(p.t_math),
                    format_exact(p.t_comms),
                    format_exact(p.fraction),
                    p.bound.as_str()
                ));
            }
        }
    }
    out
}

/// The scenario with its results, as JSON (export). Keys in alphabetical order; a result has
/// either an analysis or an error (the other is `null`).
pub fn scenario_json(s: &Scenario) -> String {
    #[derive(serde::Serialize)]
    struct Doc<'a> {
        generator: &'static str,
        results: Vec<Entry>,
        scenario: &'a Scenario,
        url_query: String,
    }
    #[derive(serde::Serialize)]
    struct Entry {
        analysis: Option<Analysis>,
        chip: usize,
        error: Option<String>,
        op: usize,
    }
    let results = s
        .ops
        .iter()
        .enumerate()
        .flat_map(|(i, op)| {
            s.chips.iter().enumerate().map(move |(j, chip)| {
                let r = analyze(op, chip, &s.options);
                let error = r.as_ref().err().map(|e| e.to_string());
                Entry {
                    analysis: r.ok(),
                    chip: j,
                    error,
                    op: i,
                }
            })
        })
        .collect();
    let doc = Doc {
        generator: "Roofline Lab",
        results,
        scenario: s,
        url_query: roofline::url::encode(s),
    };
    crate::json::to_string_pretty(&doc).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}

fn attr_escape(t: &str) -> String {
    t.replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// An `<iframe>` snippet (src, width, height, `loading="lazy"`, title).
pub fn iframe_html(src: &str, width: u32, height: u32, title: &str) -> String {
    format!(
        "<iframe src=\"{}\" width=\"{width}\" height=\"{height}\" loading=\"lazy\" title=\"{}\" style=\"border:0\"></iframe>",
        attr_escape(src),
        attr_escape(title)
    )
}

/// The embed's title attribute.
pub fn embed_title(s: &Scenario) -> String {
    let ops: Vec<String> = s.ops.iter().map(Op::title).collect();
    let chips: Vec<&str> = s.chips.iter().map(|c| c.name.as_str()).collect();
    format!("Roofline Lab: {} on {}", ops.join(", "), chips.join(", "))
}

/// A worked example of the chapter, loadable in one click.
pub struct Recipe {
    /// Stable id (`data-recipe`).
    pub id: &'static str,
    /// Button text.
    pub title: &'static str,
    /// What it shows.
    pub summary: &'static str,
    /// The chapter's answer, quoted.
    pub chapter: &'static str,
    /// The scenario.
    pub scenario: Scenario,
    /// Our answer, computed from the (possibly edited) scenario.
    pub ours: fn(&Scenario) -> String,
}

fn scenario_from(query: &str) -> Scenario {
    roofline::url::decode(query).scenario
}

fn first(s: &Scenario) -> Option<Analysis> {
    analyze(s.ops.first()?, s.chips.first()?, &s.options).ok()
}

fn ours_critical(s: &Scenario) -> String {
    let Some(a) = first(s) else {
        return "—".into();
    };
    let ridge = format!("ridge {} FLOPs/byte", format_sig(a.ridge, 4));
    match &a.critical {
        Some(c) => format!(
            "{ridge}; exact crossover {} = {}{}",
            dim_word(&c.dim),
            format_sig(c.value, 5),
            c.approx
                .map(|v| format!(
                    ", approximation {} > {}",
                    dim_word(&c.dim),
                    format_sig(v, 4)
                ))
                .unwrap_or_default()
        ),
        None => format!("{ridge}; never compute-bound"),
    }
}

fn ours_intensity(s: &Scenario) -> String {
    let Some(a) = first(s) else {
        return "—".into();
    };
    format!(
        "intensity {} FLOPs/byte{}; {}-bound",
        format_sig(a.intensity, 5),
        a.approx_intensity
            .as_ref()
            .map(|(v, f)| {
                if f.chars().any(char::is_alphabetic) {
                    format!(" ({f} = {})", format_sig(*v, 4))
                } else {
                    format!(" ({f})")
                }
            })
            .unwrap_or_default(),
        a.bound.as_str()
    )
}

/// `f` of each operation's analysis on the first chip, joined by `sep`.
fn per_op(s: &Scenario, sep: &str, f: impl Fn(&Op, Analysis) -> String) -> String {
    let Some(chip) = s.chips.first() else {
        return "—".into();
    };
    let parts: Vec<String> = s
        .ops
        .iter()
        .filter_map(|op| Some(f(op, analyze(op, chip, &s.options).ok()?)))
        .collect();
    parts.join(sep)
}

/// `f` of the first operation on each chip, joined by `; `.
fn per_chip(s: &Scenario, f: impl Fn(&roofline::chip::Chip, &Op) -> Option<String>) -> String {
    let Some(op) = s.ops.first() else {
        return "—".into();
    };
    let parts: Vec<String> = s.chips.iter().filter_map(|c| f(c, op)).collect();
    parts.join("; ")
}

fn ours_all_critical(s: &Scenario) -> String {
    per_op(s, "; ", |op, a| match a.critical {
        Some(c) => format!(
            "{}: {} = {}",
            op_name(op),
            dim_word(&c.dim),
            format_sig(c.value, 4)
        ),
        None => format!(
            "{}: never compute-bound (intensity {} < ridge {})",
            op_name(op),
            format_sig(a.intensity, 3),
            format_sig(a.ridge, 3)
        ),
    })
}

fn ours_intensities(s: &Scenario) -> String {
    per_op(s, " · ", |op, a| {
        format!("{} {}", op_name(op), format_sig(a.intensity, 3))
    })
}

fn ours_times(s: &Scenario) -> String {
    per_chip(s, |c, op| {
        let a = analyze(op, c, &s.options).ok()?;
        Some(format!(
            "{}: T_math = {}",
            c.name,
            pretty(a.t_math, Unit::Seconds)
        ))
    })
}

fn ours_steps(s: &Scenario) -> String {
    per_chip(s, |c, op| {
        let w = roofline::workload::analyze_workload(op, c, &s.options).ok()??;
        Some(format!(
            "{}: {} per step, {} tokens/s, reads {}",
            c.name,
            pretty(w.t_lower, Unit::Seconds),
            format_sig(w.tokens_per_s, 4),
            pretty(w.analysis.bytes, Unit::Bytes)
        ))
    })
}

/// The chapter's worked examples.
pub fn recipes() -> Vec<Recipe> {
    vec![
        Recipe {
            id: "dot",
            title: "Dot product",
            summary: "x·y: bf16[N]·bf16[N] → bf16[1]: intensity (2N−1)/(4N+2) → 1/2",
            chapter: "Intensity = (N + N − 1)/(2N + 2N + 2) = (2N − 1)/(4N + 2) → 1/2: communication-bound.",
            scenario: scenario_from("chip=tpu-v5e&op=dot:n=1000000,t=bf16&plot=roofline"),
            ours: ours_intensity,
        },
        Recipe {
            id: "v5e-critical",
            title: "v5e critical batch",
            summary: "bf16 matmul on TPU v5e: compute-bound when B > 240",
            chapter: "B > 1.97e14 / 8.20e11 = 240 (intensity ≈ B when B ≪ D, F).",
            scenario: scenario_from("chip=tpu-v5e&op=matmul:d=8192,f=8192,label=bf16 D=F=8192&sweep=b:1..1024"),
            ours: ours_critical,
        },
        Recipe {
            id: "q1-int8",
            title: "Q1: int8 matmul",
            summary: "int8 X, W and Z with HBM 8.1e11 B/s and 3.94e14 int8 OPs/s",
            chapter: "Intensity ≈ 2B; 3.94e14 / 8.1e11 = 486, so B > 486 / 2 = 243.",
            scenario: scenario_from(
                "chip=tpu-v5e:hbm=8.1e11&op=matmul:d=8192,f=8192,x=int8,w=int8,out=int8,label=int8 matmul&sweep=b:1..1024",
            ),
            ours: ours_critical,
        },
        Recipe {
            id: "q2-w8a16",
            title: "Q2: int8 weights, bf16 acts",
            summary: "bf16[B,D] × int8[D,F] → bf16[B,F], computing in bf16",
            chapter: "Only DF weight bytes: compute-bound when 2B > 240, i.e. B > 120.",
            scenario: scenario_from(
                "chip=tpu-v5e&op=matmul:d=8192,f=8192,x=bf16,w=int8,label=W8A16 D=F=8192&sweep=b:1..512",
            ),
            ours: ours_critical,
        },
        Recipe {
            id: "q3-plot",
            title: "Q3: D=F=4096 vs 1024",
            summary: "The chapter's plot: achieved FLOPs/s against B, exact bytes 2BD + DF + 2BF",
            chapter: "Both reach the peak; the larger D = F reaches it sooner; D = F = 1024 almost doubles the critical batch.",
            scenario: Scenario::default(),
            ours: ours_all_critical,
        },
        Recipe {
            id: "q4-bmm",
            title: "Q4: per-example weights",
            summary: "int8[B,D] · int8[B,D,F] → int8[B,F]",
            chapter: "Intensity 2BDF / (BD + BDF + BF) ≈ 2: essentially constant, always comms-bound.",
            scenario: scenario_from("chip=tpu-v5e&op=bmm:b=256,d=4096,f=4096,x=int8,w=int8,out=int8&plot=roofline"),
            ours: ours_intensity,
        },
        Recipe {
            id: "q5-h100",
            title: "Q5: H100 critical batch",
            summary: "dense bf16 9.89e14 FLOPs/s (half the sparse 1.979e15), 3.35e12 B/s",
            chapter: "1e15 / 3.35e12 = 298 (with the rounded 1e15; 9.89e14 gives 295).",
            scenario: scenario_from("chip=h100&op=matmul:d=8192,f=8192,label=bf16 D=F=8192&sweep=b:1..1024"),
            ours: ours_critical,
        },
        Recipe {
            id: "network",
            title: "2-chip network roofline",
            summary: "X·Y split along D over 2 TPU v5e; partial sums cross ICI at 4.5e10 B/s",
            chapter: "Compute-bound w.r.t. the network when D/2 > 1.97e14 / 4.5e10 = 4377, i.e. D > 8755.",
            scenario: scenario_from(
                "chip=tpu-v5e&op=matmul:b=8192,d=16384,f=16384,shards=2,split=d,link=ici,label=2-way D split&sweep=d:512..32768",
            ),
            ours: ours_critical,
        },
        Recipe {
            id: "pcie",
            title: "Weights over PCIe",
            summary: "TPU v6e reading bf16 weights from host memory at 1.6e10 B/s",
            chapter: "(TPU chapter) B > 9.2e14 / 1.6e10 = 57,500 to be compute-bound on weights from PCIe.",
            scenario: scenario_from(
                "chip=tpu-v6e&op=matmul:d=8192,f=8192,from=pcie,label=weights from host&sweep=b:1000..200000:log",
            ),
            ours: ours_critical,
        },
        Recipe {
            id: "1e12",
            title: "1e12 FLOPs: H100 vs v6e",
            summary: "T_math = FLOPs / peak: 1.01 ms on H100, 1.1 ms on a v6e at 9.1e14",
            chapter: "1e12 / 9.89e14 = 1.01 ms and 1e12 / 9.1e14 = 1.1 ms.",
            scenario: scenario_from("chip=h100&chip=tpu-v6e:bf16=9.1e14&op=custom:flops=1e12,bytes=1e6&plot=roofline"),
            ours: ours_times,
        },
        Recipe {
            id: "typical",
            title: "Typical intensities",
            summary: "The notes' table: dot product, LayerNorm, matmul at B = 32, 256, 1024 on TPU v5e",
            chapter: "Dot product ~0.5, LayerNorm ~5, matmul ~32 / ~256 / ~1024 (intensity ≈ B): only the last two are compute-bound on v5e.",
            scenario: scenario_from(
                "chip=tpu-v5e&op=dot:n=1000000,label=dot product&op=elementwise:n=1000000,flops=20,inputs=1,label=LayerNorm\
                 &op=matmul:b=32,d=8192,f=8192,label=matmul B=32&op=matmul:b=256,d=8192,f=8192,label=matmul B=256\
                 &op=matmul:b=1024,d=8192,f=8192,label=matmul B=1024&plot=roofline",
            ),
            ours: ours_intensities,
        },
        Recipe {
            id: "llama3-8b-decode",
            title: "Llama-3 8B decode",
            summary: "One decode step of Llama-3 8B in bf16 on H100 and TPU v5e, part by part",
            chapter: "(Issue's hand calculation) B = 1 reads every weight but the embedding table, ≈ 15 GB, plus the KV cache: ≈ 4.5 ms per step on H100 at 3.35e12 B/s.",
            scenario: scenario_from("chip=h100&chip=tpu-v5e&op=llm:preset=llama3-8b,b=1,ctx=2048&sweep=b:1..1024"),
            ours: ours_steps,
        },
        Recipe {
            id: "resnet50",
            title: "ResNet-50: MLSys·im vs per-input activations",
            summary: "Aggregate model on A100: weights only (MLSys·im's view) against weights + activations",
            chapter: "(MLSys·im) 4.1 GFLOP and ~50 MB of weights at batch 1: ~82 FLOP/byte in 1-per-MAC (164 in 2-per-MAC), near the A100's ridge; compute-bound from batch 1 in its table.",
            scenario: scenario_from(
                "chip=a100&op=model:params=25e6,act=0,label=weights only (MLSys-im)&op=model:label=with activations&sweep=b:1..256",
            ),
            ours: ours_all_critical,
        },
    ]
}
