//! Backend-independent drawing helpers shared by both charts: pixel-space
//! primitives with clipping and dashes, axes layout (margins measured from
//! the actual tick labels), grid/frame/ticks, label placement and legend.

use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::ops::ControlFlow;

use plotters::coord::Shift;
use plotters::drawing::{DrawingArea, DrawingAreaErrorKind};
use plotters::element::{Circle, PathElement, Polygon, Rectangle, Text};
use plotters::prelude::DrawingBackend;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::{
    Color, FontDesc, FontFamily, FontStyle, FontTransform, RGBAColor, RGBColor, ShapeStyle,
    TextStyle,
};

use super::format::{format_ticks, linear_ticks, log_ticks, Ticks};
use super::geometry::{AxisScale, ChartGeometry, PixelRect};
use super::theme::{sanitize_scale, Theme};

/// Error type of every `draw` function: plotters' drawing-area error for the
/// backend in use.
pub type DrawError<DB> = DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>;
pub(crate) type DrawResult<T, DB> = Result<T, DrawError<DB>>;

pub(crate) type Pt = (f64, f64);

// Font sizes in CSS pixels at scale 1 (tuned for a ~800×450 canvas).
pub(crate) const TITLE_SIZE: f64 = 15.0;
pub(crate) const AXIS_TITLE_SIZE: f64 = 13.0;
pub(crate) const TICK_SIZE: f64 = 11.5;
pub(crate) const LEGEND_SIZE: f64 = 11.5;
pub(crate) const ANNOT_SIZE: f64 = 11.0;

/// Convert to backend integer pixels without ever overflowing.
fn ip(v: f64) -> i32 {
    if v.is_nan() {
        0
    } else {
        v.round().clamp(-1.0e7, 1.0e7) as i32
    }
}

fn ipt(p: Pt) -> (i32, i32) {
    (ip(p.0), ip(p.1))
}

fn ipts(pts: &[Pt]) -> Vec<(i32, i32)> {
    pts.iter().map(|&p| ipt(p)).collect()
}

fn fill_style(color: RGBAColor) -> ShapeStyle {
    ShapeStyle {
        color,
        filled: true,
        stroke_width: 0,
    }
}

pub(crate) fn rgba(c: RGBColor) -> RGBAColor {
    c.to_rgba()
}

pub(crate) struct Painter<'a, DB: DrawingBackend> {
    pub area: &'a DrawingArea<DB, Shift>,
    pub theme: &'a Theme,
    /// Device pixel ratio.
    pub s: f64,
    pub width: f64,
    pub height: f64,
    /// Text measurements are expensive in the browser (DOM layout): cache.
    measured: RefCell<HashMap<(String, u64, Weight), Pt>>,
}

/// Measures text: (text, CSS font family list, size in backend px, CSS font style as plotters
/// names it: `normal`, `bold`, `italic`) → (width, height) in backend px, or `None` to fall back
/// to plotters' estimate. plotters' browser estimate lays out a `<span>` with a `style`
/// attribute per label, which the page's Content-Security-Policy refuses (and which forces a
/// layout per label); the app registers a canvas `measureText` instead. Native builds have none.
pub type TextMeasurer = fn(&str, &str, f64, &str) -> Option<(f64, f64)>;

static TEXT_MEASURER: std::sync::OnceLock<TextMeasurer> = std::sync::OnceLock::new();

/// Measure all chart text with `m` from now on (the first registration wins).
pub fn set_text_measurer(m: TextMeasurer) {
    let _ = TEXT_MEASURER.set(m);
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Weight {
    Normal,
    Bold,
    Italic,
}

impl<'a, DB: DrawingBackend> Painter<'a, DB> {
    pub fn new(area: &'a DrawingArea<DB, Shift>, theme: &'a Theme) -> Self {
        let (w, h) = area.dim_in_pixel();
        Self {
            area,
            theme,
            s: sanitize_scale(theme.scale),
            width: w as f64,
            height: h as f64,
            measured: RefCell::new(HashMap::new()),
        }
    }

    /// CSS px → backend px.
    pub fn px(&self, v: f64) -> f64 {
        v * self.s
    }

    fn stroke(&self, width: f64) -> u32 {
        (width * self.s).round().clamp(1.0, 64.0) as u32
    }

    fn text_style(
        &self,
        size: f64,
        weight: Weight,
        color: RGBAColor,
        h: HPos,
        v: VPos,
        rotate: bool,
    ) -> TextStyle<'a> {
        let factor = if self.theme.font_size_factor.is_finite() && self.theme.font_size_factor > 0.0
        {
            self.theme.font_size_factor
        } else {
            1.0
        };
        let style = match weight {
            Weight::Normal => FontStyle::Normal,
            Weight::Bold => FontStyle::Bold,
            Weight::Italic => FontStyle::Italic,
        };
        let mut font = FontDesc::new(
            FontFamily::Name(&self.theme.font_family),
            size * self.s * factor,
            style,
        );
        if rotate {
            font = font.transform(FontTransform::Rotate270);
        }
        TextStyle {
            font,
            color: color.to_backend_color(),
            pos: Pos::new(h, v),
        }
    }

    /// Size of `text` in backend pixels (unrotated).
    pub fn measure(&self, text: &str, size: f64, weight: Weight) -> DrawResult<Pt, DB> {
        if text.is_empty() {
            return Ok((0.0, 0.0));
        }
        let key = (text.to_string(), size.to_bits(), weight);
        if let Some(&m) = self.measured.borrow().get(&key) {
            return Ok(m);
        }
        let style = self.text_style(
            size,
            weight,
            rgba(self.theme.foreground),
            HPos::Left,
            VPos::Top,
            false,
        );
        let font = &style.font;
        let (w, h) = match TEXT_MEASURER.get().and_then(|m| {
            m(
                text,
                font.get_family().as_str(),
                font.get_size(),
                font.get_style().as_str(),
            )
        }) {
            Some(wh) => wh,
            None => {
                let (w, h) = self.area.estimate_text_size(text, &style)?;
                (w as f64, h as f64)
            }
        };
        // Never trust a zero height: keep layout sane on odd backends.
        let m = (w, h.max(size * self.s * 0.9));
        self.measured.borrow_mut().insert(key, m);
        Ok(m)
    }

    /// Text aligned on `at` (`h`, `v`), optionally rotated to read
    /// bottom-to-top; empty text draws nothing.
    #[allow(clippy::too_many_arguments)]
    fn draw_text(
        &self,
        text: &str,
        at: Pt,
        size: f64,
        weight: Weight,
        color: RGBAColor,
        (h, v): (HPos, VPos),
        rotate: bool,
    ) -> DrawResult<(), DB> {
        if text.is_empty() {
            return Ok(());
        }
        let style = self.text_style(size, weight, color, h, v, rotate);
        self.area.draw(&Text::new(text.to_string(), ipt(at), style))
    }

    #[allow(clippy::too_many_arguments)]
    pub fn text(
        &self,
        text: &str,
        at: Pt,
        size: f64,
        weight: Weight,
        color: RGBAColor,
        h: HPos,
        v: VPos,
    ) -> DrawResult<(), DB> {
        self.draw_text(text, at, size, weight, color, (h, v), false)
    }

    /// Text rotated to read bottom-to-top, centred on `at`.
    pub fn text_vertical(
        &self,
        text: &str,
        at: Pt,
        size: f64,
        weight: Weight,
        color: RGBAColor,
    ) -> DrawResult<(), DB> {
        let centre = (HPos::Center, VPos::Center);
        self.draw_text(text, at, size, weight, color, centre, true)
    }

    /// Annotation text placed in `r` (its top-left corner at the top-left
    /// of `r`).
    pub fn label(
        &self,
        text: &str,
        r: &PixelRect,
        size: f64,
        weight: Weight,
        color: RGBAColor,
    ) -> DrawResult<(), DB> {
        let top_left = (HPos::Left, VPos::Top);
        self.draw_text(text, (r.left, r.top), size, weight, color, top_left, false)
    }

    fn line_style(&self, color: RGBAColor, width: f64) -> ShapeStyle {
        ShapeStyle {
            color,
            filled: false,
            stroke_width: self.stroke(width),
        }
    }

    pub fn polyline(&self, pts: &[Pt], color: RGBAColor, width: f64) -> DrawResult<(), DB> {
        if pts.len() < 2 {
            return Ok(());
        }
        let style = self.line_style(color, width);
        self.area.draw(&PathElement::new(ipts(pts), style))
    }

    /// Draw a polyline clipped to `clip`; `None` entries break the line.
    /// `dash` = (on, off) lengths in CSS px.
    pub fn line_clipped(
        &self,
        pts: &[Option<Pt>],
        clip: &PixelRect,
        color: RGBAColor,
        width: f64,
        dash: Option<(f64, f64)>,
    ) -> DrawResult<Vec<Vec<Pt>>, DB> {
        // The common case, every point finite and inside: one run, no per-segment clipping.
        let inside = |p: &Option<Pt>| {
            p.is_some_and(|(x, y)| x.is_finite() && y.is_finite() && clip.contains(x, y))
        };
        let runs: Vec<Vec<Pt>> = if pts.len() >= 2 && pts.iter().all(inside) {
            let run: Vec<Pt> = pts.iter().flatten().copied().collect();
            vec![simplify(&run, 0.25)]
        } else {
            clip_polyline(pts, clip)
                .into_iter()
                .map(|r| simplify(&r, 0.25))
                .collect()
        };
        for run in &runs {
            match dash {
                None => self.polyline(run, color, width)?,
                Some((on, off)) => {
                    for d in dash_polyline(run, self.px(on), self.px(off)) {
                        self.polyline(&d, color, width)?;
                    }
                }
            }
        }
        Ok(runs)
    }

    pub fn fill_rect(&self, r: &PixelRect, color: RGBAColor) -> DrawResult<(), DB> {
        self.area.draw(&Rectangle::new(
            [ipt((r.left, r.top)), ipt((r.right, r.bottom))],
            fill_style(color),
        ))
    }

    pub fn stroke_rect(&self, r: &PixelRect, color: RGBAColor, width: f64) -> DrawResult<(), DB> {
        let pts = [
            (r.left, r.top),
            (r.right, r.top),
            (r.right, r.bottom),
            (r.left, r.bottom),
            (r.left, r.top),
        ];
        self.polyline(&pts, color, width)
    }

    pub fn fill_polygon(&self, pts: &[Pt], color: RGBAColor) -> DrawResult<(), DB> {
        if pts.len() < 3 {
            return Ok(());
        }
        self.area.draw(&Polygon::new(ipts(pts), fill_style(color)))
    }

    /// A filled circle (radius in CSS px) with an optional outline.
    pub fn dot(
        &self,
        at: Pt,
        radius: f64,
        fill: Option<RGBAColor>,
        outline: Option<(RGBAColor, f64)>,
    ) -> DrawResult<(), DB> {
        let r = ip(self.px(radius)).max(1);
        if let Some(fill) = fill {
            self.area.draw(&Circle::new(ipt(at), r, fill_style(fill)))?;
        }
        if let Some((color, width)) = outline {
            let style = self.line_style(color, width);
            self.area.draw(&Circle::new(ipt(at), r, style))?;
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------
// Geometry helpers (pure).

/// Liang–Barsky segment clipping.
pub(crate) fn clip_segment(a: Pt, b: Pt, r: &PixelRect) -> Option<(Pt, Pt)> {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let mut t0 = 0.0f64;
    let mut t1 = 1.0f64;
    for (p, q) in [
        (-dx, a.0 - r.left),
        (dx, r.right - a.0),
        (-dy, a.1 - r.top),
        (dy, r.bottom - a.1),
    ] {
        if p == 0.0 {
            if q < 0.0 {
                return None;
            }
        } else {
            let t = q / p;
            if p < 0.0 {
                if t > t1 {
                    return None;
                }
                t0 = t0.max(t);
            } else {
                if t < t0 {
                    return None;
                }
                t1 = t1.min(t);
            }
        }
    }
    if !(t0.is_finite() && t1.is_finite()) {
        return None;
    }
    Some((
        (a.0 + t0 * dx, a.1 + t0 * dy),
        (a.0 + t1 * dx, a.1 + t1 * dy),
    ))
}

/// Clip a polyline (with `None` breaks and possibly non-finite points) to a
/// rectangle; returns the visible runs.
pub(crate) fn clip_polyline(pts: &[Option<Pt>], r: &PixelRect) -> Vec<Vec<Pt>> {
    let finite = |p: &Option<Pt>| p.filter(|(x, y)| x.is_finite() && y.is_finite());
    let mut runs: Vec<Vec<Pt>> = Vec::new();
    let mut current: Vec<Pt> = Vec::new();
    let flush = |current: &mut Vec<Pt>, runs: &mut Vec<Vec<Pt>>| {
        if current.len() >= 2 {
            runs.push(std::mem::take(current));
        } else {
            current.clear();
        }
    };
    for w in pts.windows(2) {
        let (Some(a), Some(b)) = (finite(&w[0]), finite(&w[1])) else {
            flush(&mut current, &mut runs);
            continue;
        };
        match clip_segment(a, b, r) {
            Some((ca, cb)) => {
                let continues = current
                    .last()
                    .is_some_and(|l| (l.0 - ca.0).abs() < 1e-6 && (l.1 - ca.1).abs() < 1e-6);
                if !continues {
                    flush(&mut current, &mut runs);
                    current.push(ca);
                }
                current.push(cb);
                if cb != b {
                    flush(&mut current, &mut runs);
                }
            }
            None => flush(&mut current, &mut runs),
        }
    }
    flush(&mut current, &mut runs);
    runs
}

/// Ramer–Douglas–Peucker simplification (tolerance in pixels). Removes the
/// integer-rounding "staircase" of dense samples and keeps output small.
pub(crate) fn simplify(pts: &[Pt], tol: f64) -> Vec<Pt> {
    if pts.len() <= 2 {
        return pts.to_vec();
    }
    let mut keep = vec![false; pts.len()];
    keep[0] = true;
    keep[pts.len() - 1] = true;
    let mut stack = vec![(0usize, pts.len() - 1)];
    while let Some((a, b)) = stack.pop() {
        if b <= a + 1 {
            continue;
        }
        let (p, q) = (pts[a], pts[b]);
        let (dx, dy) = (q.0 - p.0, q.1 - p.1);
        let len = (dx * dx + dy * dy).sqrt();
        let mut worst = (0.0f64, a);
        for (i, r) in pts.iter().enumerate().take(b).skip(a + 1) {
            let d = if len > 0.0 {
                ((r.0 - p.0) * dy - (r.1 - p.1) * dx).abs() / len
            } else {
                ((r.0 - p.0).powi(2) + (r.1 - p.1).powi(2)).sqrt()
            };
            if d > worst.0 {
                worst = (d, i);
            }
        }
        if worst.0 > tol {
            keep[worst.1] = true;
            stack.push((a, worst.1));
            stack.push((worst.1, b));
        }
    }
    pts.iter()
        .zip(keep)
        .filter_map(|(p, k)| k.then_some(*p))
        .collect()
}

/// Split a polyline into dashes (pattern continues across vertices).
pub(crate) fn dash_polyline(pts: &[Pt], on: f64, off: f64) -> Vec<Vec<Pt>> {
    let on = if on.is_finite() && on > 0.5 { on } else { 4.0 };
    let off = if off.is_finite() && off > 0.5 {
        off
    } else {
        4.0
    };
    let mut out = Vec::new();
    let mut cur: Vec<Pt> = Vec::new();
    let mut drawing = true;
    let mut left = on; // remaining length of the current dash/gap
    for w in pts.windows(2) {
        let (a, b) = (w[0], w[1]);
        let len = ((b.0 - a.0).powi(2) + (b.1 - a.1).powi(2)).sqrt();
        if !(len.is_finite() && len > 0.0) {
            continue;
        }
        let mut t = 0.0;
        if drawing && cur.is_empty() {
            cur.push(a);
        }
        let mut guard = 0;
        while t < len && guard < 100_000 {
            guard += 1;
            let step = left.min(len - t);
            t += step;
            left -= step;
            let p = (a.0 + (b.0 - a.0) * t / len, a.1 + (b.1 - a.1) * t / len);
            if drawing {
                cur.push(p);
            }
            if left <= 1e-9 {
                if drawing {
                    out.push(std::mem::take(&mut cur));
                    left = off;
                } else {
                    cur.push(p);
                    left = on;
                }
                drawing = !drawing;
            }
        }
    }
    if drawing && cur.len() >= 2 {
        out.push(cur);
    }
    out
}

/// Sutherland–Hodgman clipping of a polygon to a rectangle.
pub(crate) fn clip_polygon(poly: &[Pt], r: &PixelRect) -> Vec<Pt> {
    type Inside = fn(Pt, &PixelRect) -> bool;
    type Cross = fn(Pt, Pt, &PixelRect) -> Pt;
    fn lerp_x(a: Pt, b: Pt, x: f64) -> Pt {
        let t = if b.0 != a.0 {
            (x - a.0) / (b.0 - a.0)
        } else {
            0.0
        };
        (x, a.1 + t * (b.1 - a.1))
    }
    fn lerp_y(a: Pt, b: Pt, y: f64) -> Pt {
        let t = if b.1 != a.1 {
            (y - a.1) / (b.1 - a.1)
        } else {
            0.0
        };
        (a.0 + t * (b.0 - a.0), y)
    }
    let edges: [(Inside, Cross); 4] = [
        (|p, r| p.0 >= r.left, |a, b, r| lerp_x(a, b, r.left)),
        (|p, r| p.0 <= r.right, |a, b, r| lerp_x(a, b, r.right)),
        (|p, r| p.1 >= r.top, |a, b, r| lerp_y(a, b, r.top)),
        (|p, r| p.1 <= r.bottom, |a, b, r| lerp_y(a, b, r.bottom)),
    ];
    let mut out: Vec<Pt> = poly
        .iter()
        .copied()
        .filter(|p| p.0.is_finite() && p.1.is_finite())
        .collect();
    for (inside, cross) in edges {
        if out.is_empty() {
            break;
        }
        let input = std::mem::take(&mut out);
        for i in 0..input.len() {
            let cur = input[i];
            let prev = input[(i + input.len() - 1) % input.len()];
            let (ci, pi) = (inside(cur, r), inside(prev, r));
            if ci {
                if !pi {
                    out.push(cross(prev, cur, r));
                }
                out.push(cur);
            } else if pi {
                out.push(cross(prev, cur, r));
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------
// Occupancy map for label / legend placement.

/// What is drawn where, for placing labels where they cover the least: sampled points of lines
/// (weighted) and the rectangles of labels and markers already placed. Points are bucketed in a
/// grid of [`Occupancy::CELL`]-pixel cells, so that scoring a candidate rectangle looks only at
/// the points near it (a sweep of 24 series × 1024 points samples thousands of points, and a
/// chart scores about a thousand candidates).
#[derive(Default)]
pub(crate) struct Occupancy {
    /// Sampled points of drawn lines with a weight (how bad it is to cover
    /// them: data lines 1, reference lines less), by grid cell.
    cells: Cells,
    rects: Vec<PixelRect>,
    /// The rectangles of the labels placed by [`place_label`].
    labels: Vec<PixelRect>,
}

/// Weighted sampled points by grid cell.
type Cells = HashMap<(i32, i32), Vec<(Pt, f64)>, BuildHasherDefault<CellHasher>>;

/// A multiplicative hash for grid cells (the default SipHash is built to resist adversarial
/// keys, which pixel cells are not, and costs several times more per lookup).
#[derive(Default)]
pub(crate) struct CellHasher(u64);

impl std::hash::Hasher for CellHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    fn write_i32(&mut self, v: i32) {
        self.write_u64(v as u32 as u64);
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl Occupancy {
    /// Grid cell size, in backend pixels.
    const CELL: f64 = 32.0;

    #[inline(always)]
    fn cell_of(v: f64) -> i32 {
        (v / Self::CELL)
            .floor()
            .clamp(i32::MIN as f64, i32::MAX as f64) as i32
    }

    pub fn add_point(&mut self, p: Pt) {
        self.add_weighted(p, 1.0);
    }

    fn add_weighted(&mut self, p: Pt, w: f64) {
        if p.0.is_finite() && p.1.is_finite() {
            self.cells
                .entry((Self::cell_of(p.0), Self::cell_of(p.1)))
                .or_default()
                .push((p, w));
        }
    }

    /// Sample a polyline every `step` px (weight 1).
    pub fn add_polyline(&mut self, pts: &[Pt], step: f64) {
        self.add_polyline_weighted(pts, step, 1.0);
    }

    /// Sample a polyline every `step` px with a given weight.
    pub fn add_polyline_weighted(&mut self, pts: &[Pt], step: f64, weight: f64) {
        let step = step.max(1.0);
        for w in pts.windows(2) {
            let (a, b) = (w[0], w[1]);
            let len = ((b.0 - a.0).powi(2) + (b.1 - a.1).powi(2)).sqrt();
            let n = ((len / step).ceil() as usize).clamp(1, 5000);
            for i in 0..=n {
                let t = i as f64 / n as f64;
                self.add_weighted((a.0 + t * (b.0 - a.0), a.1 + t * (b.1 - a.1)), weight);
            }
        }
    }

    pub fn add_rect(&mut self, r: PixelRect) {
        self.rects.push(r);
    }

    /// How bad it is to cover `r`: the weights of the sampled points within 2 px of it, plus a
    /// quarter of its overlap with placed rectangles.
    /// Returns any value ≥ `limit` as soon as the cost reaches it (a candidate that already
    /// costs more than the best one needs no exact score).
    pub fn cost_below(&self, r: &PixelRect, limit: f64) -> f64 {
        let grown = r.inflate(2.0);
        let mut hits = 0.0;
        if grown.left.is_finite()
            && grown.right.is_finite()
            && grown.top.is_finite()
            && grown.bottom.is_finite()
        {
            let (cx0, cx1) = (Self::cell_of(grown.left), Self::cell_of(grown.right));
            let (cy0, cy1) = (Self::cell_of(grown.top), Self::cell_of(grown.bottom));
            let span = (cx1 as i64 - cx0 as i64 + 1) * (cy1 as i64 - cy0 as i64 + 1);
            if span <= self.cells.len() as i64 {
                'cells: for cx in cx0..=cx1 {
                    for cy in cy0..=cy1 {
                        if let Some(pts) = self.cells.get(&(cx, cy)) {
                            hits += points_in(pts, &grown);
                            if hits >= limit {
                                break 'cells;
                            }
                        }
                    }
                }
            } else {
                // A rectangle larger than the drawn area: every cell is a candidate.
                for pts in self.cells.values() {
                    hits += points_in(pts, &grown);
                    if hits >= limit {
                        break;
                    }
                }
            }
            if hits >= limit {
                return hits;
            }
        }
        let overlap: f64 = self.rects.iter().map(|o| o.overlap_area(r)).sum();
        hits + overlap * 0.25
    }
}

/// The summed weight of the points of `pts` inside `r`.
#[inline(always)]
fn points_in(pts: &[(Pt, f64)], r: &PixelRect) -> f64 {
    pts.iter()
        .filter(|(p, _)| r.contains(p.0, p.1))
        .map(|(_, w)| w)
        .sum()
}

/// Where to put a label relative to its anchor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Side {
    Right,
    Left,
    Above,
    Below,
    AboveRight,
    BelowRight,
    AboveLeft,
    BelowLeft,
}

pub(crate) fn label_rect(anchor: Pt, size: Pt, gap: f64, side: Side) -> PixelRect {
    let (x, y) = anchor;
    let (w, h) = size;
    let (left, top) = match side {
        Side::Right => (x + gap, y - h / 2.0),
        Side::Left => (x - gap - w, y - h / 2.0),
        Side::Above => (x - w / 2.0, y - gap - h),
        Side::Below => (x - w / 2.0, y + gap),
        Side::AboveRight => (x + gap * 0.7, y - gap * 0.7 - h),
        Side::BelowRight => (x + gap * 0.7, y + gap * 0.7),
        Side::AboveLeft => (x - gap * 0.7 - w, y - gap * 0.7 - h),
        Side::BelowLeft => (x - gap * 0.7 - w, y + gap * 0.7),
    };
    PixelRect::new(left, top, left + w, top + h)
}

/// Choose the candidate rectangle with the lowest cost; rectangles that don't
/// fit inside `bounds` are heavily penalised. Earlier candidates win ties.
pub(crate) fn best_rect(occ: &Occupancy, candidates: &[PixelRect], bounds: &PixelRect) -> usize {
    let ranked = candidates.iter().enumerate();
    cheapest(occ, ranked.map(|(i, &r)| (r, i as f64 * 0.01)), bounds)
}

/// Index of the `(rect, penalty)` candidate with the lowest occupancy cost
/// plus penalty; rectangles that don't fit inside `bounds` are heavily
/// penalised. Earlier candidates win ties.
fn cheapest(
    occ: &Occupancy,
    candidates: impl IntoIterator<Item = (PixelRect, f64)>,
    bounds: &PixelRect,
) -> usize {
    let mut best = 0;
    let mut best_cost = f64::INFINITY;
    for (i, (r, penalty)) in candidates.into_iter().enumerate() {
        let outside = if bounds.contains_rect(&r) { 0.0 } else { 1.0e6 };
        // Scores are only compared with the best so far: stop counting once it is beaten.
        let mut c = occ.cost_below(&r, best_cost - penalty - outside) + penalty;
        c += outside;
        if c < best_cost {
            best_cost = c;
            best = i;
        }
    }
    best
}

// ---------------------------------------------------------------------------
// Axes.

pub(crate) struct AxisTitles<'m> {
    pub title: &'m str,
    pub x_label: &'m str,
    pub y_label: &'m str,
}

pub(crate) struct Axes {
    pub plot: PixelRect,
    pub x: AxisScale,
    pub y: AxisScale,
    pub x_ticks: Ticks,
    pub y_ticks: Ticks,
    pub x_tick_labels: Vec<String>,
    pub y_tick_labels: Vec<String>,
    /// The plot area is too small to draw anything meaningful.
    pub tiny: bool,
}

impl Axes {
    pub fn geometry(&self, p_width: f64, p_height: f64, has_data: bool) -> ChartGeometry {
        ChartGeometry {
            width: p_width.max(0.0) as u32,
            height: p_height.max(0.0) as u32,
            plot: self.plot,
            x: self.x,
            y: self.y,
            has_data,
        }
    }

    #[inline(always)]
    pub fn to_px(&self, x: f64, y: f64) -> Option<Pt> {
        let fx = self.x.fraction(x)?;
        let fy = self.y.fraction(y)?;
        let px = self.plot.left + fx * self.plot.width();
        let py = self.plot.bottom - fy * self.plot.height();
        (px.is_finite() && py.is_finite()).then_some((px, py))
    }

    pub fn x_px(&self, x: f64) -> Option<f64> {
        let f = self.x.fraction(x)?;
        Some(self.plot.left + f * self.plot.width())
    }

    pub fn y_px(&self, y: f64) -> Option<f64> {
        let f = self.y.fraction(y)?;
        Some(self.plot.bottom - f * self.plot.height())
    }
}

fn ticks_for(axis: &AxisScale, target: usize) -> Ticks {
    if axis.log {
        log_ticks(axis.lo, axis.hi, target)
    } else {
        linear_ticks(axis.lo, axis.hi, target)
    }
}

/// Lay out the plot area: margins are measured from the actual tick labels
/// and titles, and tick density adapts to the available room.
fn layout_axes<DB: DrawingBackend>(
    p: &Painter<DB>,
    titles: &AxisTitles,
    x: AxisScale,
    y: AxisScale,
    with_ticks: bool,
) -> DrawResult<Axes, DB> {
    let pad = p.px(10.0);
    let tick_len = p.px(4.0);
    let tick_gap = p.px(3.0);
    let (_, title_h) = p.measure(titles.title, TITLE_SIZE, Weight::Bold)?;
    let (_, xlab_h) = p.measure(titles.x_label, AXIS_TITLE_SIZE, Weight::Normal)?;
    let (_, ylab_h) = p.measure(titles.y_label, AXIS_TITLE_SIZE, Weight::Normal)?;
    let (_, tick_h) = p.measure("0123456789", TICK_SIZE, Weight::Normal)?;

    let top = pad
        + if titles.title.is_empty() {
            tick_h / 2.0
        } else {
            title_h + p.px(10.0)
        };
    let bottom_fixed =
        pad + if titles.x_label.is_empty() {
            0.0
        } else {
            xlab_h + p.px(6.0)
        } + tick_h
            + tick_gap
            + tick_len;
    let left_fixed =
        pad + if titles.y_label.is_empty() {
            0.0
        } else {
            ylab_h + p.px(8.0)
        } + tick_gap
            + tick_len;

    let mut plot = PixelRect::new(
        left_fixed + p.px(30.0),
        top,
        p.width - p.px(18.0),
        p.height - bottom_fixed,
    );
    let mut x_target = 10usize;
    let mut y_target = 10usize;
    let mut xt = Ticks::default();
    let mut yt = Ticks::default();
    let mut xl: Vec<String> = Vec::new();
    let mut yl: Vec<String> = Vec::new();

    if with_ticks {
        for _pass in 0..4 {
            x_target = ((plot.width() / p.px(70.0)).floor() as usize).clamp(2, 12);
            y_target = ((plot.height() / p.px(42.0)).floor() as usize).clamp(2, 10);
            let mut attempt = 0;
            loop {
                xt = ticks_for(&x, x_target);
                xl = format_ticks(&xt.major);
                // Shrink the tick count until labels don't collide.
                let mut widths = 0.0;
                for l in &xl {
                    widths += p.measure(l, TICK_SIZE, Weight::Normal)?.0 + p.px(14.0);
                }
                if widths <= plot.width() || x_target <= 2 || attempt > 6 {
                    break;
                }
                x_target -= 1;
                attempt += 1;
            }
            yt = ticks_for(&y, y_target);
            yl = format_ticks(&yt.major);
            let mut max_w: f64 = 0.0;
            for l in &yl {
                max_w = max_w.max(p.measure(l, TICK_SIZE, Weight::Normal)?.0);
            }
            let last_w = match xl.last() {
                Some(l) => p.measure(l, TICK_SIZE, Weight::Normal)?.0,
                None => 0.0,
            };
            let new_plot = PixelRect::new(
                left_fixed + max_w,
                top,
                p.width - (last_w / 2.0 + p.px(6.0)).max(p.px(18.0)),
                p.height - bottom_fixed,
            );
            let settled = (new_plot.left - plot.left).abs() < 0.5
                && (new_plot.right - plot.right).abs() < 0.5;
            plot = new_plot;
            if settled {
                break;
            }
        }
    }
    let tiny = !(plot.width() >= p.px(24.0) && plot.height() >= p.px(24.0));
    let _ = (x_target, y_target);
    Ok(Axes {
        plot,
        x,
        y,
        x_ticks: xt,
        y_ticks: yt,
        x_tick_labels: xl,
        y_tick_labels: yl,
        tiny,
    })
}

/// Background, plot-area fill and grid (drawn under the data).
pub(crate) fn draw_axes_under<DB: DrawingBackend>(
    p: &Painter<DB>,
    axes: &Axes,
) -> DrawResult<(), DB> {
    let t = p.theme;
    let r = &axes.plot;
    if t.plot_background != t.background {
        p.fill_rect(r, rgba(t.plot_background))?;
    }
    let grids = [
        (&axes.x_ticks.minor, &axes.y_ticks.minor, t.grid_minor),
        (&axes.x_ticks.major, &axes.y_ticks.major, t.grid),
    ];
    for (xs, ys, color) in grids {
        for &v in xs {
            if let Some(x) = axes.x_px(v) {
                p.polyline(&[(x, r.top), (x, r.bottom)], rgba(color), 1.0)?;
            }
        }
        for &v in ys {
            if let Some(y) = axes.y_px(v) {
                p.polyline(&[(r.left, y), (r.right, y)], rgba(color), 1.0)?;
            }
        }
    }
    Ok(())
}

/// Frame, ticks, tick labels, axis titles and chart title (drawn over the
/// data).
fn draw_axes_over<DB: DrawingBackend>(
    p: &Painter<DB>,
    axes: &Axes,
    titles: &AxisTitles,
) -> DrawResult<(), DB> {
    let t = p.theme;
    let r = &axes.plot;
    let frame = rgba(t.frame);
    let tick_len = p.px(4.0);
    let minor_len = p.px(2.5);
    let tick_gap = p.px(3.0);
    let pad = p.px(10.0);

    for &v in &axes.x_ticks.minor {
        if let Some(x) = axes.x_px(v) {
            p.polyline(&[(x, r.bottom), (x, r.bottom + minor_len)], frame, 1.0)?;
        }
    }
    for &v in &axes.y_ticks.minor {
        if let Some(y) = axes.y_px(v) {
            p.polyline(&[(r.left - minor_len, y), (r.left, y)], frame, 1.0)?;
        }
    }
    for (&v, label) in axes.x_ticks.major.iter().zip(&axes.x_tick_labels) {
        if let Some(x) = axes.x_px(v) {
            p.polyline(&[(x, r.bottom), (x, r.bottom + tick_len)], frame, 1.0)?;
            p.text(
                label,
                (x, r.bottom + tick_len + tick_gap),
                TICK_SIZE,
                Weight::Normal,
                rgba(t.muted),
                HPos::Center,
                VPos::Top,
            )?;
        }
    }
    for (&v, label) in axes.y_ticks.major.iter().zip(&axes.y_tick_labels) {
        if let Some(y) = axes.y_px(v) {
            p.polyline(&[(r.left - tick_len, y), (r.left, y)], frame, 1.0)?;
            p.text(
                label,
                (r.left - tick_len - tick_gap, y),
                TICK_SIZE,
                Weight::Normal,
                rgba(t.muted),
                HPos::Right,
                VPos::Center,
            )?;
        }
    }
    p.stroke_rect(r, frame, 1.0)?;

    let cx = (r.left + r.right) / 2.0;
    p.text(
        titles.title,
        (cx, pad),
        TITLE_SIZE,
        Weight::Bold,
        rgba(t.foreground),
        HPos::Center,
        VPos::Top,
    )?;
    p.text(
        titles.x_label,
        (cx, p.height - pad),
        AXIS_TITLE_SIZE,
        Weight::Normal,
        rgba(t.foreground),
        HPos::Center,
        VPos::Bottom,
    )?;
    let (_, ylab_h) = p.measure(titles.y_label, AXIS_TITLE_SIZE, Weight::Normal)?;
    p.text_vertical(
        titles.y_label,
        (pad + ylab_h / 2.0, (r.top + r.bottom) / 2.0),
        AXIS_TITLE_SIZE,
        Weight::Normal,
        rgba(t.foreground),
    )?;
    Ok(())
}

/// Centered "nothing to plot" message in the plot area.
fn draw_empty_message<DB: DrawingBackend>(
    p: &Painter<DB>,
    axes: &Axes,
    message: &str,
) -> DrawResult<(), DB> {
    let r = &axes.plot;
    p.text(
        message,
        ((r.left + r.right) / 2.0, (r.top + r.bottom) / 2.0),
        AXIS_TITLE_SIZE,
        Weight::Italic,
        rgba(p.theme.muted),
        HPos::Center,
        VPos::Center,
    )
}

// ---------------------------------------------------------------------------
// Legend.

#[derive(Clone, Debug)]
pub(crate) enum Swatch {
    Line {
        color: RGBAColor,
        width: f64,
        dashed: bool,
    },
}

#[derive(Clone, Debug)]
pub(crate) struct LegendEntry {
    pub label: String,
    pub swatch: Swatch,
}

/// Draw a compact legend in the least crowded corner of the plot area.
fn draw_legend<DB: DrawingBackend>(
    p: &Painter<DB>,
    axes: &Axes,
    occ: &mut Occupancy,
    entries: &[LegendEntry],
) -> DrawResult<(), DB> {
    let entries: Vec<&LegendEntry> = entries.iter().filter(|e| !e.label.is_empty()).collect();
    if entries.is_empty() || axes.tiny {
        return Ok(());
    }
    let pad = p.px(7.0);
    let sample_w = p.px(24.0);
    let gap = p.px(7.0);
    let row_gap = p.px(4.0);
    let mut text_w: f64 = 0.0;
    let mut text_h: f64 = 0.0;
    for e in &entries {
        let (w, h) = p.measure(&e.label, LEGEND_SIZE, Weight::Normal)?;
        text_w = text_w.max(w);
        text_h = text_h.max(h);
    }
    let n = entries.len() as f64;
    let w = pad * 2.0 + sample_w + gap + text_w;
    let h = pad * 2.0 + n * text_h + (n - 1.0) * row_gap;

    let r = &axes.plot;
    let inset = p.px(8.0);
    let (l, rt) = (r.left + inset, r.right - inset - w);
    let (t, b) = (r.top + inset, r.bottom - inset - h);
    let cx = (r.left + r.right - w) / 2.0;
    let cy = (r.top + r.bottom - h) / 2.0;
    let corners = [
        (l, t),
        (rt, t),
        (rt, b),
        (l, b),
        (cx, t),
        (rt, cy),
        (cx, b),
        (l, cy),
    ];
    let candidates: Vec<PixelRect> = corners
        .iter()
        .map(|&(x, y)| PixelRect::new(x, y, x + w, y + h))
        .collect();
    let box_r = candidates[best_rect(occ, &candidates, r)];
    occ.add_rect(box_r);

    p.fill_rect(&box_r, p.theme.legend_background)?;
    p.stroke_rect(&box_r, rgba(p.theme.legend_border), 1.0)?;
    for (i, e) in entries.iter().enumerate() {
        let row_top = box_r.top + pad + i as f64 * (text_h + row_gap);
        let mid = row_top + text_h / 2.0;
        let x0 = box_r.left + pad;
        match e.swatch {
            Swatch::Line {
                color,
                width,
                dashed,
            } => {
                let pts = [(x0, mid), (x0 + sample_w, mid)];
                if dashed {
                    for d in dash_polyline(&pts, p.px(5.0), p.px(3.0)) {
                        p.polyline(&d, color, width)?;
                    }
                } else {
                    p.polyline(&pts, color, width)?;
                }
            }
        }
        p.text(
            &e.label,
            (x0 + sample_w + gap, mid),
            LEGEND_SIZE,
            Weight::Normal,
            rgba(p.theme.foreground),
            HPos::Left,
            VPos::Center,
        )?;
    }
    Ok(())
}

/// Place and draw a text label near `anchor`, avoiding what's in `occ`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn place_label<DB: DrawingBackend>(
    p: &Painter<DB>,
    occ: &mut Occupancy,
    bounds: &PixelRect,
    anchor: Pt,
    text: &str,
    size: f64,
    weight: Weight,
    color: RGBAColor,
    sides: &[Side],
    gap: f64,
) -> DrawResult<Option<PixelRect>, DB> {
    if text.is_empty() || sides.is_empty() {
        return Ok(None);
    }
    let sz = p.measure(text, size, weight)?;
    // Two rings of candidates: next to the anchor, then a bit farther out
    // (slightly penalised) for crowded spots.
    let mut candidates = Vec::with_capacity(sides.len() * 2);
    for (ring, (dist, penalty)) in [(1.0, 0.0), (2.2, 4.0)].into_iter().enumerate() {
        for (i, &s) in sides.iter().enumerate() {
            let r = label_rect(anchor, sz, p.px(gap) * dist, s);
            candidates.push((r, penalty + (ring * sides.len() + i) as f64 * 0.01));
        }
    }
    let best = candidates[cheapest(occ, candidates.iter().copied(), bounds)].0;
    // A label that could only go on top of another is left out (the marker stays, and the
    // readout and the data table still give its value): in a crowded chart overlapping text
    // helps nobody, and drawing it costs a text layout per label per redraw.
    if occ.labels.iter().any(|l| l.overlap_area(&best) > 0.0) {
        return Ok(None);
    }
    occ.add_rect(best);
    occ.labels.push(best);
    p.label(text, &best, size, weight, color)?;
    Ok(Some(best))
}

/// Build the geometry-and-frame for the "nothing to plot" / tiny cases.
fn draw_empty_chart<DB: DrawingBackend>(
    p: &Painter<DB>,
    titles: &AxisTitles,
    message: &str,
) -> DrawResult<ChartGeometry, DB> {
    let x = AxisScale::new(0.0, 1.0, false);
    let y = AxisScale::new(0.0, 1.0, false);
    let axes = layout_axes(p, titles, x, y, false)?;
    if !axes.tiny {
        draw_axes_over(p, &axes, titles)?;
        draw_empty_message(p, &axes, message)?;
    }
    Ok(axes.geometry(p.width, p.height, false))
}

// ---------------------------------------------------------------------------
// Chart skeleton and markers shared by both charts.

/// Start a chart: fill the background and lay out the axes for `ranges`.
/// When there is nothing more to draw (no ranges: the empty chart with
/// `empty_message`; a tiny plot area) the chart is presented and its
/// geometry comes back as `Break`.
pub(crate) fn begin_chart<DB: DrawingBackend>(
    p: &Painter<DB>,
    titles: &AxisTitles,
    ranges: Option<(AxisScale, AxisScale)>,
    empty_message: &str,
) -> DrawResult<ControlFlow<ChartGeometry, Axes>, DB> {
    p.area.fill(&p.theme.background)?;
    let Some((xs, ys)) = ranges else {
        let g = draw_empty_chart(p, titles, empty_message)?;
        p.area.present()?;
        return Ok(ControlFlow::Break(g));
    };
    let axes = layout_axes(p, titles, xs, ys, true)?;
    if axes.tiny {
        p.area.present()?;
        return Ok(ControlFlow::Break(axes.geometry(p.width, p.height, false)));
    }
    Ok(ControlFlow::Continue(axes))
}

/// End a chart begun with [`begin_chart`]: frame, ticks and titles over the
/// data, then the legend; present it and return its geometry.
pub(crate) fn finish_chart<DB: DrawingBackend>(
    p: &Painter<DB>,
    axes: &Axes,
    titles: &AxisTitles,
    occ: &mut Occupancy,
    legend: &[LegendEntry],
) -> DrawResult<ChartGeometry, DB> {
    draw_axes_over(p, axes, titles)?;
    draw_legend(p, axes, occ, legend)?;
    p.area.present()?;
    Ok(axes.geometry(p.width, p.height, true))
}

/// A dotted guide from each point inside the plot area down to the x axis.
/// Returns the index and pixel position of the points that got one.
pub(crate) fn drop_guides<DB: DrawingBackend>(
    p: &Painter<DB>,
    axes: &Axes,
    occ: &mut Occupancy,
    points: impl IntoIterator<Item = (f64, f64)>,
) -> DrawResult<Vec<(usize, Pt)>, DB> {
    let plot = axes.plot;
    let sample = p.px(4.0);
    let mut placed = Vec::new();
    for (i, (x, y)) in points.into_iter().enumerate() {
        let Some(at) = axes.to_px(x, y) else {
            continue;
        };
        if !plot.contains(at.0, at.1) {
            continue;
        }
        let guide = p.line_clipped(
            &[Some(at), Some((at.0, plot.bottom))],
            &plot,
            rgba(p.theme.muted).mix(0.6),
            1.0,
            Some((2.0, 3.0)),
        )?;
        for g in &guide {
            occ.add_polyline_weighted(g, sample, 0.25);
        }
        placed.push((i, at));
    }
    Ok(placed)
}

/// A ring marker (plot-background fill, `color` outline) at `at`.
pub(crate) fn ring_marker<DB: DrawingBackend>(
    p: &Painter<DB>,
    occ: &mut Occupancy,
    at: Pt,
    color: RGBAColor,
) -> DrawResult<(), DB> {
    p.dot(
        at,
        5.0,
        Some(rgba(p.theme.plot_background)),
        Some((color, 2.0)),
    )?;
    occ.add_rect(PixelRect::new(at.0, at.1, at.0, at.1).inflate(p.px(6.0)));
    Ok(())
}

/// Draw the annotation `text` in the least crowded of `candidates` (all its
/// size) inside `bounds`, and mark that spot taken.
pub(crate) fn annotate_best<DB: DrawingBackend>(
    p: &Painter<DB>,
    occ: &mut Occupancy,
    bounds: &PixelRect,
    candidates: &[PixelRect],
    text: &str,
    color: RGBAColor,
) -> DrawResult<(), DB> {
    let r = candidates[best_rect(occ, candidates, bounds)];
    occ.add_rect(r);
    p.label(text, &r, ANNOT_SIZE, Weight::Normal, color)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clip_segment_basics() {
        let r = PixelRect::new(0.0, 0.0, 10.0, 10.0);
        assert_eq!(
            clip_segment((-5.0, 5.0), (15.0, 5.0), &r),
            Some(((0.0, 5.0), (10.0, 5.0)))
        );
        assert_eq!(clip_segment((-5.0, -5.0), (-1.0, -1.0), &r), None);
    }

    #[test]
    fn clip_polyline_breaks() {
        let r = PixelRect::new(0.0, 0.0, 10.0, 10.0);
        let pts = [
            Some((1.0, 1.0)),
            Some((5.0, 5.0)),
            None,
            Some((6.0, 6.0)),
            Some((20.0, 6.0)),
            Some((f64::NAN, 1.0)),
        ];
        let runs = clip_polyline(&pts, &r);
        assert_eq!(runs.len(), 2);
        assert_eq!(runs[1], vec![(6.0, 6.0), (10.0, 6.0)]);
    }

    #[test]
    fn dashes_cover_length() {
        let d = dash_polyline(&[(0.0, 0.0), (100.0, 0.0)], 6.0, 4.0);
        assert_eq!(d.len(), 10);
        assert!(d.iter().all(|s| s.len() >= 2));
    }

    #[test]
    fn polygon_clip() {
        let r = PixelRect::new(0.0, 0.0, 10.0, 10.0);
        let poly = [(-5.0, -5.0), (15.0, -5.0), (15.0, 15.0), (-5.0, 15.0)];
        let c = clip_polygon(&poly, &r);
        assert_eq!(c.len(), 4);
        assert!(c.iter().all(|p| r.contains(p.0, p.1)));
    }
}
