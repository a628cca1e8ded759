//! The load plot (issue 40, `plot=load`): per engine, an expected serving figure against the
//! load (TTFT or TPOT against concurrency or request rate, with the fitted band as bars), or
//! the throughput–interactivity frontier (tokens/s per chip against tokens/s per user), with the
//! measured rows of the same setup as dots, the service-level lines and the link's own point.
//! Drawn as a sweep chart; the numbers come from the view (`view::load_plot`), this file only
//! lays them out.

use plotters::coord::Shift;
use plotters::prelude::{Color, DrawingArea, DrawingBackend, Polygon};
use roofline::units::{format_sig, Unit};

use super::geometry::ChartGeometry;
use super::model::{ChartSeries, ErrorBar, HLine, Marker, SweepChart, VLine};
use super::paint::DrawResult;
use super::theme::ChartTheme;

/// Which of the load plot's three panels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoadPanel {
    /// Expected time to first token against the load.
    Ttft,
    /// Expected time per output token against the load.
    Tpot,
    /// Tokens/s per chip against tokens/s per user.
    Frontier,
}

impl LoadPanel {
    /// The three, in the page's order.
    pub const ALL: [LoadPanel; 3] = [LoadPanel::Ttft, LoadPanel::Tpot, LoadPanel::Frontier];

    /// `ttft`, `tpot` or `frontier` (the canvas's `data-panel`).
    pub fn as_str(self) -> &'static str {
        match self {
            LoadPanel::Ttft => "ttft",
            LoadPanel::Tpot => "tpot",
            LoadPanel::Frontier => "frontier",
        }
    }
}

/// One point: `y` (with its band where it has one) at `x`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct LoadMark {
    pub x: f64,
    pub y: f64,
    /// The fitted band's ends (`None`: no band).
    pub band: Option<(f64, f64)>,
}

/// An engine's curve, or its measured rows (dots).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LoadSeries {
    /// The legend's words (an engine without a curve says why here).
    pub label: String,
    pub series_idx: usize,
    /// In increasing `x` for a curve.
    pub points: Vec<LoadMark>,
    /// Measured rows: dots, not a line.
    pub measured: bool,
}

/// A panel of the load plot.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadChart {
    pub panel: LoadPanel,
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    /// The axes' units where the ticks carry one (seconds).
    pub x_unit: Option<Unit>,
    pub y_unit: Option<Unit>,
    pub series: Vec<LoadSeries>,
    /// `ttft_max` / `tpot_max`.
    pub hlines: Vec<HLine>,
    /// The link's load, the goodput, `tpot_max` as tokens/s per user.
    pub vlines: Vec<VLine>,
    /// The link's own point on each curve it has.
    pub marks: Vec<Marker>,
    /// Lines the table adds (goodput where the axis cannot place it): label, value.
    pub notes: Vec<(String, String)>,
    /// Simulated bands (issue 42): each point's `y` its P50, its band (P50, P99), shaded
    /// between them in the series' colour with both ends dashed; a band without points is
    /// its legend's words only (`simulating…`).
    pub sim: Vec<LoadSeries>,
}

/// The palette slot of a simulated band of series colour `idx`: the same colour, dashed.
fn sim_slot(idx: usize) -> usize {
    idx % 8 + 8
}

/// At most this many band bars per curve (a bar at every point hides the curves).
const BARS_PER_CURVE: usize = 8;

impl LoadChart {
    /// The sweep chart it is drawn as, log-log: each curve a line, each engine's measured rows
    /// dots in its colour, the bands as bars at about [`BARS_PER_CURVE`] points of each curve.
    pub fn to_sweep(&self) -> SweepChart {
        let mut bars = Vec::new();
        let series = self
            .series
            .iter()
            .map(|s| {
                if !s.measured {
                    let step = s.points.len().div_ceil(BARS_PER_CURVE).max(1);
                    bars.extend(s.points.iter().step_by(step).filter_map(|p| {
                        p.band.map(|(lo, hi)| ErrorBar {
                            x: p.x,
                            lo,
                            hi,
                            mid: p.y,
                        })
                    }));
                }
                ChartSeries {
                    label: s.label.clone(),
                    points: s.points.iter().map(|p| (p.x, p.y)).collect(),
                    series_idx: s.series_idx,
                    scatter: s.measured,
                    oom_from: None,
                }
            })
            .collect();
        let mut series: Vec<ChartSeries> = series;
        for b in &self.sim {
            let line = |label: &str, pick: fn(&LoadMark) -> Option<f64>| ChartSeries {
                label: label.to_string(),
                points: b
                    .points
                    .iter()
                    .filter_map(|p| Some((p.x, pick(p)?)))
                    .collect(),
                series_idx: sim_slot(b.series_idx),
                scatter: false,
                oom_from: None,
            };
            series.push(line("", |p| Some(p.y)));
            series.push(line(&b.label, |p| p.band.map(|(_, hi)| hi)));
        }
        SweepChart {
            title: self.title.clone(),
            x_label: self.x_label.clone(),
            y_label: self.y_label.clone(),
            series,
            hlines: self.hlines.clone(),
            crossovers: self.marks.clone(),
            vlines: self.vlines.clone(),
            log_x: true,
            log_y: true,
            x_unit: self.x_unit,
            y_unit: self.y_unit,
            bars_label: if bars.is_empty() {
                String::new()
            } else {
                "fitted band (lo–hi)".into()
            },
            bars,
        }
    }

    /// Hit-test targets: `(series, x, y)` for every point.
    pub fn hit_points(&self) -> Vec<(usize, f64, f64)> {
        self.series
            .iter()
            .enumerate()
            .flat_map(|(i, s)| s.points.iter().map(move |p| (i, p.x, p.y)))
            .collect()
    }

    /// The point of hit `index` in [`LoadChart::hit_points`]'s order.
    pub fn point(&self, index: usize) -> Option<(&LoadSeries, &LoadMark)> {
        self.series
            .iter()
            .flat_map(|s| s.points.iter().map(move |p| (s, p)))
            .nth(index)
    }

    /// A value of an axis as the table and the read-out write it.
    pub fn show(v: f64, unit: Option<Unit>) -> String {
        match unit {
            Some(Unit::Seconds) => roofline::units::format_time_si(v, 4),
            _ => format_sig(v, 4),
        }
    }

    /// The plotted numbers for screen readers: every point (series, x, y, band), then the
    /// lines, the link's points and the notes.
    pub fn table(&self) -> (Vec<String>, Vec<Vec<String>>) {
        let head = vec![
            "series".into(),
            self.x_label.clone(),
            self.y_label.clone(),
            "band lo".into(),
            "band hi".into(),
        ];
        let (xu, yu) = (self.x_unit, self.y_unit);
        let dash = || "—".to_string();
        let mut rows: Vec<Vec<String>> = Vec::new();
        for s in self.series.iter().chain(&self.sim) {
            if s.points.is_empty() {
                rows.push(vec![s.label.clone(), dash(), dash(), dash(), dash()]);
            }
            for p in &s.points {
                let (lo, hi) = p.band.map_or((dash(), dash()), |(lo, hi)| {
                    (Self::show(lo, yu), Self::show(hi, yu))
                });
                rows.push(vec![
                    s.label.clone(),
                    Self::show(p.x, xu),
                    Self::show(p.y, yu),
                    lo,
                    hi,
                ]);
            }
        }
        for h in &self.hlines {
            rows.push(vec![
                h.label.clone(),
                dash(),
                Self::show(h.y, yu),
                dash(),
                dash(),
            ]);
        }
        for v in &self.vlines {
            rows.push(vec![
                v.label.clone(),
                Self::show(v.x, xu),
                dash(),
                dash(),
                dash(),
            ]);
        }
        for m in &self.marks {
            rows.push(vec![
                m.label.clone(),
                Self::show(m.x, xu),
                Self::show(m.y, yu),
                dash(),
                dash(),
            ]);
        }
        for (what, value) in &self.notes {
            rows.push(vec![what.clone(), value.clone(), dash(), dash(), dash()]);
        }
        (head, rows)
    }
}

/// Draw a load plot's panel onto `root`.
pub fn draw<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    model: &LoadChart,
    theme: &ChartTheme,
) -> DrawResult<ChartGeometry, DB> {
    let g = super::sweep::draw(root.clone(), &model.to_sweep(), theme)?;
    if g.has_data {
        for b in &model.sim {
            shade(&root, &g, b, theme)?;
        }
    }
    Ok(g)
}

/// A simulated band's area between its P50 and P99, faint in its colour, kept inside the plot.
fn shade<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    g: &ChartGeometry,
    b: &LoadSeries,
    theme: &ChartTheme,
) -> DrawResult<(), DB> {
    let r = &g.plot;
    let px = |x: f64, y: f64| {
        g.to_pixel(x, y).map(|(a, b)| {
            (
                a.clamp(r.left, r.right).round() as i32,
                b.clamp(r.top, r.bottom).round() as i32,
            )
        })
    };
    // Each stretch of points with a band, its P99 forward and its P50 back.
    let mut run: Vec<&LoadMark> = Vec::new();
    let ends = b.points.iter().map(Some).chain(std::iter::once(None));
    for p in ends {
        if let Some(p) = p.filter(|p| p.band.is_some()) {
            run.push(p);
            continue;
        }
        if run.len() >= 2 {
            let top = run.iter().filter_map(|p| px(p.x, p.band?.1));
            let bottom = run.iter().rev().filter_map(|p| px(p.x, p.band?.0));
            let poly: Vec<(i32, i32)> = top.chain(bottom).collect();
            let color = theme.color(b.series_idx).mix(0.16);
            root.draw(&Polygon::new(poly, color.filled()))?;
        }
        run.clear();
    }
    Ok(())
}
