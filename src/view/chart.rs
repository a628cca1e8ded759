//! The chart in front, whichever it is: its kind, its sentence and table for screen readers,
//! the pointer read-out and its SVG drawing.

use roofline::units::{format_sig, Unit};

use super::names::pretty;
use crate::charts::{self, ChartGeometry, ChartTheme, FrontierChart, RooflineChart, SweepChart};

/// The chart in front.
#[derive(Debug, Clone, PartialEq)]
pub enum ChartModel {
    /// Achieved FLOPs/s (or time, or % of peak) against the swept field.
    Sweep(SweepChart),
    /// Log-log roofline.
    Roofline(RooflineChart),
    /// Serving frontier: tokens/s per chip against time per output token, log-log.
    Frontier(FrontierChart),
    /// A panel of the load plot (issue 40): an expected figure against the load per engine, or
    /// the throughput–interactivity frontier. Not in the draw program (its size budget).
    #[cfg(feature = "load")]
    Load(charts::LoadChart),
}

impl ChartModel {
    /// `sweep` or `roofline` (the canvas's `data-chart`).
    pub fn kind(&self) -> &'static str {
        match self {
            ChartModel::Sweep(_) => "sweep",
            ChartModel::Roofline(_) => "roofline",
            ChartModel::Frontier(_) => "frontier",
            #[cfg(feature = "load")]
            ChartModel::Load(_) => "load",
        }
    }

    /// The load plot's panel (`ttft`, `tpot`, `frontier`: the canvas's `data-panel`); `None`
    /// for another chart.
    pub fn panel(&self) -> Option<&'static str> {
        match self {
            #[cfg(feature = "load")]
            ChartModel::Load(m) => Some(m.panel.as_str()),
            _ => None,
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
            ChartModel::Frontier(m) => format!("{}: {} curves", m.title, m.curves.len()),
            #[cfg(feature = "load")]
            ChartModel::Load(m) => {
                let (curves, measured): (Vec<_>, Vec<_>) =
                    m.series.iter().partition(|s| !s.measured);
                let engines: Vec<&str> = curves
                    .iter()
                    .copied()
                    .chain(m.sim.iter())
                    .map(|s| s.label.as_str())
                    .collect();
                format!(
                    "{}: {}; {} measured rows",
                    m.title,
                    engines.join(", "),
                    measured.iter().map(|s| s.points.len()).sum::<usize>()
                )
            }
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
                // The marked lines (the closed-form rule, a latency knee, the out-of-memory edge).
                for v in &m.vlines {
                    rows.push(vec![v.label.clone(), format_sig(v.x, 4), "—".into()]);
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
            ChartModel::Frontier(m) => {
                let head = vec![
                    "series".into(),
                    "batch".into(),
                    m.x_label.clone(),
                    m.y_label.clone(),
                    "fits".into(),
                ];
                let rows = m
                    .curves
                    .iter()
                    .flat_map(|c| {
                        c.points.iter().map(|p| {
                            vec![
                                c.label.clone(),
                                format_sig(p.batch, 6),
                                format_sig(p.tpot, 4),
                                format_sig(p.tokens_per_s_chip, 4),
                                if p.fits { "yes" } else { "out of memory" }.into(),
                            ]
                        })
                    })
                    .collect();
                (head, rows)
            }
            #[cfg(feature = "load")]
            ChartModel::Load(m) => m.table(),
        }
    }

    /// The nearest plotted point to a pointer position (backend pixels), as text.
    pub fn readout(&self, g: &ChartGeometry, px: f64, py: f64, max_px: f64) -> Option<String> {
        self.readout_at(g, px, py, max_px).map(|(text, _)| text)
    }

    /// [`ChartModel::readout`] with the point it names, in backend pixels: the page marks it on
    /// the plot (issue 38, point 11: the read-out named a point the eye had to find).
    pub fn readout_at(
        &self,
        g: &ChartGeometry,
        px: f64,
        py: f64,
        max_px: f64,
    ) -> Option<(String, (f64, f64))> {
        let hit = |hits: &[(usize, f64, f64)]| {
            let n = charts::nearest_point(hits, g, px, py).filter(|n| n.distance_px <= max_px)?;
            let (_, x, y) = hits[n.index];
            Some((n, g.to_pixel(x, y)?))
        };
        match self {
            ChartModel::Sweep(m) => {
                let hits = m.hit_points();
                let (n, at) = hit(&hits)?;
                let (_, x, y) = hits[n.index];
                let s = &m.series[n.series];
                // The read-out speaks the units of the results table (`197 TFLOP/s`).
                let y = match m.y_unit {
                    Some(u) => pretty(y, u),
                    None => format_sig(y, 4),
                };
                Some((
                    format!(
                        "{} — {} = {}, {} = {y}",
                        s.label,
                        m.x_label,
                        format_sig(x, 4),
                        m.y_label,
                    ),
                    at,
                ))
            }
            ChartModel::Roofline(m) => {
                let (n, at) = hit(&m.hit_points())?;
                let p = &m.points[n.series];
                Some((
                    format!(
                        "{} — intensity {} FLOPs/byte, {}",
                        p.label,
                        format_sig(p.x, 4),
                        pretty(p.y, Unit::FlopRate)
                    ),
                    at,
                ))
            }
            ChartModel::Frontier(m) => {
                let (n, at) = hit(&m.hit_points())?;
                let (c, p) = m.point(n.index)?;
                Some((
                    format!(
                        "{} — B = {}: {} per token, {} tokens/s per chip{}",
                        c.label,
                        format_sig(p.batch, 6),
                        pretty(p.tpot, Unit::Seconds),
                        format_sig(p.tokens_per_s_chip, 4),
                        if p.fits { "" } else { " (out of memory)" }
                    ),
                    at,
                ))
            }
            #[cfg(feature = "load")]
            ChartModel::Load(m) => {
                let (n, at) = hit(&m.hit_points())?;
                let (s, p) = m.point(n.index)?;
                let show = charts::LoadChart::show;
                let band = p.band.map_or(String::new(), |(lo, hi)| {
                    format!(" ({}–{})", show(lo, m.y_unit), show(hi, m.y_unit))
                });
                Some((
                    format!(
                        "{} — {} = {}: {} = {}{band}",
                        s.label,
                        m.x_label,
                        show(p.x, m.x_unit),
                        m.y_label,
                        show(p.y, m.y_unit)
                    ),
                    at,
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
        self.svg_and_geometry_via::<B>(dark, width, height)
            .map(|(svg, _)| svg)
    }

    /// [`ChartModel::to_svg`] with the drawing's geometry, which [`ChartModel::readout`] reads
    /// (the draw program's embed answers the pointer from its SVG).
    pub fn to_svg_with_geometry(
        &self,
        dark: bool,
        width: u32,
        height: u32,
    ) -> Result<(String, ChartGeometry), String> {
        self.svg_and_geometry_via::<charts::NoBackend>(dark, width, height)
    }

    fn svg_and_geometry_via<B: plotters::prelude::DrawingBackend>(
        &self,
        dark: bool,
        width: u32,
        height: u32,
    ) -> Result<(String, ChartGeometry), String> {
        let theme = if dark {
            ChartTheme::dark()
        } else {
            ChartTheme::light()
        };
        charts::render_svg_with::<B, _>(width, height, &theme, |root, theme| match self {
            ChartModel::Sweep(m) => charts::sweep::draw(root, m, theme),
            ChartModel::Roofline(m) => charts::roofline_chart::draw(root, m, theme),
            ChartModel::Frontier(m) => charts::frontier::draw(root, m, theme),
            #[cfg(feature = "load")]
            ChartModel::Load(m) => charts::load::draw(root, m, theme),
        })
    }
}
