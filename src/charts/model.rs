//! Plain data models for the two charts.
//!
//! These types deliberately know nothing about chips, operations or the
//! analysis crate: whoever owns the analysis results converts them into these
//! structs, and the drawing code only ever sees numbers, labels and palette
//! indices. `series_idx` always indexes [`ChartTheme::palette`](super::ChartTheme)
//! (modulo its length), so the same chip keeps the same colour everywhere.

/// A labelled point (ridge point, crossover, ...).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Marker {
    pub x: f64,
    pub y: f64,
    pub label: String,
}

impl Marker {
    pub fn new(x: f64, y: f64, label: impl Into<String>) -> Self {
        Self {
            x,
            y,
            label: label.into(),
        }
    }
}

/// A horizontal compute ceiling (peak FLOP/s) of one chip.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Ceiling {
    pub label: String,
    pub flops_per_s: f64,
    pub series_idx: usize,
}

/// A bandwidth slope `y = bytes_per_s · x`. When drawn it is capped by the
/// highest ceiling with the same `series_idx` (the chip's roof).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Slope {
    pub label: String,
    pub bytes_per_s: f64,
    pub series_idx: usize,
    /// Draw dashed (used for link bandwidths such as ICI / NVLink / PCIe).
    pub dashed: bool,
}

/// One (operation, chip) point: arithmetic intensity vs achieved FLOP/s.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PointMark {
    /// Arithmetic intensity, FLOPs per byte.
    pub x: f64,
    /// Achieved FLOP/s.
    pub y: f64,
    pub label: String,
    pub series_idx: usize,
}

/// One measured kernel: its achieved FLOP/s at its intensity, joined to its predicted point
/// (the roof at the same intensity: what the roofline's lower bound predicts).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MeasuredMark {
    /// Arithmetic intensity, FLOPs per byte.
    pub x: f64,
    /// Measured (achieved) FLOP/s.
    pub y: f64,
    /// The roof at `x`: the predicted FLOP/s.
    pub predicted_y: f64,
    pub label: String,
}

/// Log-log roofline chart: intensity (FLOPs/byte) vs FLOP/s.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RooflineChart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub ceilings: Vec<Ceiling>,
    pub slopes: Vec<Slope>,
    pub ridges: Vec<Marker>,
    pub points: Vec<PointMark>,
    /// Measured kernels (an imported profile), drawn as hollow squares joined to their
    /// predicted points.
    pub measured: Vec<MeasuredMark>,
    /// Tint the bandwidth-bound (left of the ridge) and compute-bound
    /// (right of the ridge) regions under the roof of the first chip.
    pub shade_regions: bool,
}

impl RooflineChart {
    /// Hit-test targets for [`nearest_point`](super::nearest_point):
    /// `(index into self.points, x, y)`.
    pub fn hit_points(&self) -> Vec<(usize, f64, f64)> {
        self.points
            .iter()
            .enumerate()
            .map(|(i, p)| (i, p.x, p.y))
            .collect()
    }
}

/// One curve of a sweep chart.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ChartSeries {
    pub label: String,
    pub points: Vec<(f64, f64)>,
    pub series_idx: usize,
    /// Markers at the points, no line between them (measured points, not a curve).
    pub scatter: bool,
    /// Where the curve stops fitting in memory: its points with a larger x (all of them with
    /// `-inf`) are drawn faint and dotted, so a stretch that cannot run does not read as one
    /// that can (`None`: it fits everywhere).
    pub oom_from: Option<f64>,
}

/// A horizontal reference line (e.g. a chip's peak FLOP/s).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HLine {
    pub label: String,
    pub y: f64,
    pub series_idx: usize,
}

/// A dashed vertical reference line (e.g. the approximation "B > 120").
#[derive(Debug, Clone, PartialEq, Default)]
pub struct VLine {
    pub x: f64,
    pub label: String,
}

/// A vertical bar at `x` from `lo` to `hi` with a marker at `mid`: an expectation and its band
/// (the validation view's held-out expectation of a point and its p10–p90).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ErrorBar {
    pub x: f64,
    pub lo: f64,
    pub hi: f64,
    pub mid: f64,
}

/// Line chart of one or more swept quantities (e.g. achieved FLOP/s vs batch).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SweepChart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub series: Vec<ChartSeries>,
    pub hlines: Vec<HLine>,
    pub crossovers: Vec<Marker>,
    pub vlines: Vec<VLine>,
    pub log_x: bool,
    pub log_y: bool,
    /// The unit of the y values, for the hover read-out (`197 TFLOP/s`, `20.5 µs`); `None`:
    /// plain numbers.
    /// The x axis's unit where it has one the ticks should carry (seconds).
    pub x_unit: Option<roofline::units::Unit>,
    pub y_unit: Option<roofline::units::Unit>,
    /// Bars with a marker (drawn muted, under the series), named in the legend by
    /// `bars_label`.
    pub bars: Vec<ErrorBar>,
    /// The legend's words for the bars (empty: no entry).
    pub bars_label: String,
}

impl SweepChart {
    /// Hit-test targets for [`nearest_point`](super::nearest_point):
    /// `(index into self.series, x, y)` for every sample of every series.
    /// The position of a hit in this list is `Nearest::index`.
    pub fn hit_points(&self) -> Vec<(usize, f64, f64)> {
        self.series
            .iter()
            .enumerate()
            .flat_map(|(i, s)| s.points.iter().map(move |&(x, y)| (i, x, y)))
            .collect()
    }
}
