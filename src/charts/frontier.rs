//! The serving frontier (parts 7 and 8 of the scaling book): throughput per chip against time
//! per output token over the batch, one curve per (model, chip), log-log. Drawn as a sweep
//! chart: the batches that fit as one series, the out-of-memory tail as another in the same
//! colour, and the largest batch that fits as a marked point.

use plotters::coord::Shift;
use plotters::prelude::{DrawingArea, DrawingBackend};

use super::geometry::ChartGeometry;
use super::model::{ChartSeries, Marker, SweepChart};
use super::paint::DrawResult;
use super::theme::ChartTheme;

/// One batch size on a curve.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct FrontierMark {
    /// Batch `B`.
    pub batch: f64,
    /// Time per output token (seconds): the x axis.
    pub tpot: f64,
    /// Output tokens per second per chip: the y axis.
    pub tokens_per_s_chip: f64,
    /// Whether `B` fits in memory.
    pub fits: bool,
}

/// One (model, chip) curve.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FrontierCurve {
    pub label: String,
    pub series_idx: usize,
    /// Points in increasing batch.
    pub points: Vec<FrontierMark>,
    /// The largest batch that fits (0: none).
    pub max_batch: f64,
}

/// The frontier chart.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FrontierChart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub curves: Vec<FrontierCurve>,
}

impl FrontierChart {
    /// The sweep chart it is drawn as (log-log): per curve, the batches that fit, then the
    /// out-of-memory tail (joined to the last point that fits), and a marker at the largest
    /// batch that fits.
    pub fn to_sweep(&self) -> SweepChart {
        let xy = |p: &FrontierMark| (p.tpot, p.tokens_per_s_chip);
        let mut series = Vec::new();
        let mut crossovers = Vec::new();
        for c in &self.curves {
            let fit: Vec<(f64, f64)> = c.points.iter().filter(|p| p.fits).map(xy).collect();
            let last_fit = c.points.iter().rfind(|p| p.fits);
            let oom: Vec<(f64, f64)> = last_fit
                .into_iter()
                .chain(c.points.iter().filter(|p| !p.fits))
                .map(xy)
                .collect();
            if !fit.is_empty() {
                series.push(ChartSeries {
                    label: c.label.clone(),
                    points: fit,
                    series_idx: c.series_idx,
                    scatter: false,
                    oom_from: None,
                });
            }
            if oom.len() > usize::from(last_fit.is_some()) {
                series.push(ChartSeries {
                    label: format!("{} (out of memory)", c.label),
                    points: oom,
                    series_idx: c.series_idx,
                    scatter: false,
                    // All of it beyond memory: faint and dotted, as on the sweep plot.
                    oom_from: Some(f64::NEG_INFINITY),
                });
            }
            if let Some(p) = last_fit {
                crossovers.push(Marker::new(
                    p.tpot,
                    p.tokens_per_s_chip,
                    format!("max B {}", p.batch),
                ));
            }
        }
        SweepChart {
            title: self.title.clone(),
            x_label: self.x_label.clone(),
            y_label: self.y_label.clone(),
            series,
            crossovers,
            log_x: true,
            log_y: true,
            // Times per token on the axis as times (`20 ms`), not raw seconds (issue 38).
            x_unit: Some(roofline::units::Unit::Seconds),
            ..SweepChart::default()
        }
    }

    /// Hit-test targets: `(curve, x, y)` for every point.
    pub fn hit_points(&self) -> Vec<(usize, f64, f64)> {
        self.curves
            .iter()
            .enumerate()
            .flat_map(|(i, c)| {
                c.points
                    .iter()
                    .map(move |p| (i, p.tpot, p.tokens_per_s_chip))
            })
            .collect()
    }

    /// The point of hit `index` in [`FrontierChart::hit_points`]'s order.
    pub fn point(&self, index: usize) -> Option<(&FrontierCurve, &FrontierMark)> {
        self.curves
            .iter()
            .flat_map(|c| c.points.iter().map(move |p| (c, p)))
            .nth(index)
    }
}

/// Draw the frontier onto `root`.
pub fn draw<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    model: &FrontierChart,
    theme: &ChartTheme,
) -> DrawResult<ChartGeometry, DB> {
    super::sweep::draw(root, &model.to_sweep(), theme)
}
