//! The occupancy map for label and legend placement: what is drawn where, and the least
//! crowded spot for a label.

use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use plotters::prelude::DrawingBackend;
use plotters::style::RGBAColor;

use super::*;
use crate::charts::geometry::PixelRect;

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

impl Occupancy {
    /// Whether `r` would cover a label already placed.
    pub(crate) fn covers_label(&self, r: &PixelRect) -> bool {
        self.labels.iter().any(|l| l.overlap_area(r) > 0.0)
    }

    /// Marks `r` as a placed label (and occupied).
    pub(crate) fn add_label(&mut self, r: PixelRect) {
        self.add_rect(r);
        self.labels.push(r);
    }
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
