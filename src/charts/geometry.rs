//! Mapping between data coordinates and pixels, for pointer read-outs.

/// One axis: data range and scale type.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AxisScale {
    pub lo: f64,
    pub hi: f64,
    pub log: bool,
}

impl AxisScale {
    pub fn new(lo: f64, hi: f64, log: bool) -> Self {
        Self { lo, hi, log }
    }

    /// Value in the transformed (linear or log10) space; `None` if the value
    /// cannot be shown on this axis (NaN, ±inf, or <= 0 on a log axis).
    #[inline(always)]
    pub fn transform(&self, v: f64) -> Option<f64> {
        if !v.is_finite() {
            return None;
        }
        if self.log {
            (v > 0.0).then(|| v.log10())
        } else {
            Some(v)
        }
    }

    /// Position of `v` along the axis: 0 at `lo`, 1 at `hi` (may lie outside).
    #[inline(always)]
    pub fn fraction(&self, v: f64) -> Option<f64> {
        let a = self.transform(self.lo)?;
        let b = self.transform(self.hi)?;
        let t = self.transform(v)?;
        let d = b - a;
        if !(d.is_finite() && d != 0.0) {
            return None;
        }
        let f = (t - a) / d;
        f.is_finite().then_some(f)
    }
}

/// A pixel rectangle (backend pixels, origin at the top-left of the drawing
/// area the chart was drawn on).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PixelRect {
    pub left: f64,
    pub top: f64,
    pub right: f64,
    pub bottom: f64,
}

impl PixelRect {
    pub fn new(left: f64, top: f64, right: f64, bottom: f64) -> Self {
        Self {
            left,
            top,
            right,
            bottom,
        }
    }
    pub fn width(&self) -> f64 {
        self.right - self.left
    }
    pub fn height(&self) -> f64 {
        self.bottom - self.top
    }
    #[inline(always)]
    pub fn contains(&self, x: f64, y: f64) -> bool {
        x >= self.left && x <= self.right && y >= self.top && y <= self.bottom
    }
    pub fn contains_rect(&self, r: &PixelRect) -> bool {
        r.left >= self.left && r.right <= self.right && r.top >= self.top && r.bottom <= self.bottom
    }
    /// Area of the intersection with `r` (0 if disjoint).
    #[inline(always)]
    pub fn overlap_area(&self, r: &PixelRect) -> f64 {
        let w = self.right.min(r.right) - self.left.max(r.left);
        let h = self.bottom.min(r.bottom) - self.top.max(r.top);
        if w > 0.0 && h > 0.0 {
            w * h
        } else {
            0.0
        }
    }
    pub fn inflate(&self, d: f64) -> Self {
        Self::new(self.left - d, self.top - d, self.right + d, self.bottom + d)
    }
}

/// Where a chart put its plot area and what ranges its axes show. Returned
/// by every `draw` function so the app can map pointer positions to data.
///
/// Pixel coordinates are *backend* pixels relative to the drawing area that
/// was passed to `draw` — for a HiDPI canvas, multiply CSS-pixel pointer
/// offsets by the device pixel ratio first.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChartGeometry {
    /// Size of the drawing area.
    pub width: u32,
    pub height: u32,
    /// The plot area (inside the axes frame).
    pub plot: PixelRect,
    pub x: AxisScale,
    pub y: AxisScale,
    /// False when there was nothing to plot (an empty frame was drawn).
    pub has_data: bool,
}

impl ChartGeometry {
    /// Pixel position of a data point (may lie outside the plot area);
    /// `None` if it can't be placed (NaN, non-positive on a log axis, ...).
    pub fn to_pixel(&self, x: f64, y: f64) -> Option<(f64, f64)> {
        let fx = self.x.fraction(x)?;
        let fy = self.y.fraction(y)?;
        let px = self.plot.left + fx * self.plot.width();
        let py = self.plot.bottom - fy * self.plot.height();
        (px.is_finite() && py.is_finite()).then_some((px, py))
    }
}

/// Result of [`nearest_point`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Nearest {
    /// Position in the slice passed to [`nearest_point`].
    pub index: usize,
    /// The `usize` stored with that point (series / point id).
    pub series: usize,
    /// Distance from the query pixel, in pixels.
    pub distance_px: f64,
}

/// The point (`(series, x, y)` in data units) closest in *pixel* distance to
/// `(px, py)`. Points that can't be placed on the axes are skipped. Ties go
/// to the earlier point. Callers usually ignore hits farther than ~20 px.
pub fn nearest_point(
    points: &[(usize, f64, f64)],
    geometry: &ChartGeometry,
    px: f64,
    py: f64,
) -> Option<Nearest> {
    if !(px.is_finite() && py.is_finite()) {
        return None;
    }
    let mut best: Option<Nearest> = None;
    for (index, &(series, x, y)) in points.iter().enumerate() {
        let Some((qx, qy)) = geometry.to_pixel(x, y) else {
            continue;
        };
        let d = ((qx - px).powi(2) + (qy - py).powi(2)).sqrt();
        if !d.is_finite() {
            continue;
        }
        if best.is_none_or(|b| d < b.distance_px) {
            best = Some(Nearest {
                index,
                series,
                distance_px: d,
            });
        }
    }
    best
}
