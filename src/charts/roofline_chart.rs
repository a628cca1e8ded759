//! The log-log roofline chart: arithmetic intensity (FLOPs/byte) vs FLOP/s.

use std::collections::BTreeMap;
use std::ops::ControlFlow;

use plotters::coord::Shift;
use plotters::prelude::{DrawingArea, DrawingBackend};
use plotters::style::text_anchor::{HPos, VPos};

use super::geometry::{AxisScale, ChartGeometry, PixelRect};
use super::model::RooflineChart;
use super::paint::{
    annotate_best, begin_chart, best_rect, draw_axes_under, drop_guides, finish_chart, place_label,
    rgba, ring_marker, Axes, AxisTitles, DrawResult, LegendEntry, Occupancy, Painter, Pt, Side,
    Swatch, Weight, ANNOT_SIZE,
};
use super::theme::ChartTheme;

/// Message drawn when the model has nothing plottable.
pub const EMPTY_MESSAGE: &str = "Nothing to plot";

fn valid(v: f64) -> bool {
    v.is_finite() && v > 0.0
}

/// Per-chip summary: its roof (highest ceiling) and main memory bandwidth
/// (fastest non-dashed slope, else fastest slope).
#[derive(Debug, Default, Clone, Copy)]
struct Chip {
    roof: Option<f64>,
    hbm: Option<f64>,
    any_bw: Option<f64>,
}

impl Chip {
    fn bw(&self) -> Option<f64> {
        self.hbm.or(self.any_bw)
    }
}

fn max_opt(a: Option<f64>, b: f64) -> Option<f64> {
    Some(a.map_or(b, |a| a.max(b)))
}

fn chips(model: &RooflineChart) -> BTreeMap<usize, Chip> {
    let mut chips: BTreeMap<usize, Chip> = BTreeMap::new();
    for c in model.ceilings.iter().filter(|c| valid(c.flops_per_s)) {
        let chip = chips.entry(c.series_idx).or_default();
        chip.roof = max_opt(chip.roof, c.flops_per_s);
    }
    for s in model.slopes.iter().filter(|s| valid(s.bytes_per_s)) {
        let chip = chips.entry(s.series_idx).or_default();
        chip.any_bw = max_opt(chip.any_bw, s.bytes_per_s);
        if !s.dashed {
            chip.hbm = max_opt(chip.hbm, s.bytes_per_s);
        }
    }
    chips
}

fn floor_exp(v: f64) -> f64 {
    v.floor().clamp(-300.0, 300.0)
}

fn ceil_exp(v: f64) -> f64 {
    v.ceil().clamp(-300.0, 300.0)
}

/// Pick log-log axis ranges (whole decades) enclosing everything with margins.
/// Returns `None` when there is nothing to plot.
pub fn auto_ranges(model: &RooflineChart) -> Option<(AxisScale, AxisScale)> {
    let chips = chips(model);
    let mut xs: Vec<f64> = Vec::new();
    let mut ys: Vec<f64> = Vec::new();
    let mut main_ridges: Vec<f64> = Vec::new();
    for p in &model.points {
        if valid(p.x) && valid(p.y) {
            xs.push(p.x);
            ys.push(p.y);
        }
    }
    for m in &model.measured {
        if valid(m.x) && valid(m.y) {
            xs.push(m.x);
            ys.push(m.y);
        }
    }
    for r in &model.ridges {
        if valid(r.x) && valid(r.y) {
            xs.push(r.x);
            ys.push(r.y);
        }
    }
    for c in &model.ceilings {
        if valid(c.flops_per_s) {
            ys.push(c.flops_per_s);
        }
    }
    for chip in chips.values() {
        if let (Some(roof), Some(bw)) = (chip.roof, chip.bw()) {
            let r = roof / bw;
            if valid(r) {
                main_ridges.push(r);
            }
        }
    }
    // Where link slopes meet the roof, so they are drawn completely.
    for s in model.slopes.iter().filter(|s| valid(s.bytes_per_s)) {
        if let Some(roof) = chips.get(&s.series_idx).and_then(|c| c.roof) {
            let r = roof / s.bytes_per_s;
            if valid(r) {
                xs.push(r);
            }
        }
    }
    xs.extend(main_ridges.iter().copied());
    let have_slopes = model.slopes.iter().any(|s| valid(s.bytes_per_s));
    if ys.is_empty() && !have_slopes {
        return None;
    }
    if xs.is_empty() && ys.is_empty() && !have_slopes {
        return None;
    }

    let lmin = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min).log10();
    let lmax = |v: &[f64]| v.iter().copied().fold(f64::NEG_INFINITY, f64::max).log10();

    // x: decades with ≥0.3 decade of margin; at least 1.5 decades left of the
    // leftmost ridge (bandwidth-bound region) and ~1 decade right of the
    // rightmost one (compute-bound region).
    let (mut x0, mut x1) = if xs.is_empty() {
        (0.0, 3.0)
    } else {
        (floor_exp(lmin(&xs) - 0.3), ceil_exp(lmax(&xs) + 0.3))
    };
    if !main_ridges.is_empty() {
        x0 = x0.min(floor_exp(lmin(&main_ridges) - 1.5));
        x1 = x1.max(ceil_exp(lmax(&main_ridges) + 0.8));
    }
    if x1 <= x0 {
        x1 = x0 + 1.0;
    }

    // y: data decades; include the slopes down to the left edge, but don't
    // let a very slow link stretch the axis by more than 6 decades.
    let x_lo = 10f64.powf(x0);
    let slope_lows: Vec<f64> = model
        .slopes
        .iter()
        .filter(|s| valid(s.bytes_per_s))
        .map(|s| s.bytes_per_s * x_lo)
        .filter(|v| valid(*v))
        .collect();
    let (mut y0, mut y1) = if ys.is_empty() {
        let lo = lmin(&slope_lows);
        let hi = lmax(
            &model
                .slopes
                .iter()
                .filter(|s| valid(s.bytes_per_s))
                .map(|s| s.bytes_per_s * 10f64.powf(x1))
                .filter(|v| valid(*v))
                .collect::<Vec<_>>(),
        );
        if !(lo.is_finite() && hi.is_finite()) {
            return None;
        }
        (floor_exp(lo), ceil_exp(hi))
    } else {
        (floor_exp(lmin(&ys) - 0.2), ceil_exp(lmax(&ys) + 0.12))
    };
    if !slope_lows.is_empty() {
        let s = floor_exp(lmin(&slope_lows)).max(y1 - 6.0);
        y0 = y0.min(s);
    }
    if y1 - y0 < 2.0 {
        y0 = y1 - 2.0;
    }
    if !(x0.is_finite() && x1.is_finite() && y0.is_finite() && y1.is_finite()) {
        return None;
    }
    if y1 <= y0 {
        y1 = y0 + 1.0;
    }
    Some((
        AxisScale::new(10f64.powf(x0), 10f64.powf(x1), true),
        AxisScale::new(10f64.powf(y0), 10f64.powf(y1), true),
    ))
}

/// Draw the roofline chart onto `root`.
pub fn draw<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    model: &RooflineChart,
    theme: &ChartTheme,
) -> DrawResult<ChartGeometry, DB> {
    let p = Painter::new(&root, theme);
    // The legend's labels, as drawn below: a compact chart lays them out in a strip under
    // the plot (issue 38, point 9).
    let measured = format!("measured kernels ({})", model.measured.len());
    let labels: Vec<&str> = model
        .slopes
        .iter()
        .filter(|s| valid(s.bytes_per_s) && !s.label.is_empty())
        .map(|s| s.label.as_str())
        .chain((!model.measured.is_empty()).then_some(measured.as_str()))
        .collect();
    let titles = AxisTitles {
        title: &model.title,
        x_label: &model.x_label,
        y_label: &model.y_label,
        legend: &labels,
        x_seconds: false,
        y_seconds: false,
    };
    let axes = match begin_chart(&p, &titles, auto_ranges(model), EMPTY_MESSAGE)? {
        ControlFlow::Continue(axes) => axes,
        ControlFlow::Break(geometry) => return Ok(geometry),
    };
    let (xs, plot) = (axes.x, axes.plot);
    let chips = chips(model);
    let mut occ = Occupancy::default();

    let shaded_ridge_x = if model.shade_regions {
        shade(&p, &axes, model, &chips)?
    } else {
        None
    };
    draw_axes_under(&p, &axes)?;

    // Slopes, capped by the roof of the same chip.
    let sample = p.px(4.0);
    let mut legend = Vec::new();
    for s in &model.slopes {
        if !valid(s.bytes_per_s) {
            continue;
        }
        let color = rgba(theme.color(s.series_idx));
        let x_end = chips
            .get(&s.series_idx)
            .and_then(|c| c.roof)
            .map(|roof| roof / s.bytes_per_s)
            .filter(|x| valid(*x))
            .unwrap_or(xs.hi)
            .min(xs.hi);
        let a = axes.to_px(xs.lo, s.bytes_per_s * xs.lo);
        let b = axes.to_px(x_end, s.bytes_per_s * x_end);
        let (width, dash) = if s.dashed {
            (1.6, Some((6.0, 4.0)))
        } else {
            (2.2, theme.dash(s.series_idx))
        };
        let runs = p.line_clipped(&[a, b], &plot, color, width, dash)?;
        for r in &runs {
            occ.add_polyline_weighted(r, sample, if s.dashed { 0.7 } else { 1.0 });
        }
        legend.push(LegendEntry {
            label: s.label.clone(),
            swatch: Swatch::Line { color, width, dash },
        });
    }

    // Ceilings: from the chip's main ridge to the right edge.
    let mut ceiling_lines: Vec<(usize, Pt, Pt)> = Vec::new();
    for (i, c) in model.ceilings.iter().enumerate() {
        if !valid(c.flops_per_s) {
            continue;
        }
        let color = rgba(theme.color(c.series_idx));
        let x_start = chips
            .get(&c.series_idx)
            .and_then(|chip| chip.bw())
            .map(|bw| c.flops_per_s / bw)
            .filter(|x| valid(*x))
            .unwrap_or(xs.lo)
            .max(xs.lo);
        let a = axes.to_px(x_start, c.flops_per_s);
        let b = axes.to_px(xs.hi, c.flops_per_s);
        let runs = p.line_clipped(&[a, b], &plot, color, 2.2, None)?;
        for r in &runs {
            occ.add_polyline(r, sample);
            if let (Some(&first), Some(&last)) = (r.first(), r.last()) {
                ceiling_lines.push((i, first, last));
            }
        }
    }

    // Ridge markers with a dotted guide down to the x axis.
    let ridges = model.ridges.iter().map(|r| (r.x, r.y));
    let ridge_px = drop_guides(&p, &axes, &mut occ, ridges)?;
    for &(i, at) in &ridge_px {
        let color = ridge_color(model, theme, model.ridges[i].y);
        ring_marker(&p, &mut occ, at, color)?;
    }

    // Measured kernels: a thin line to the predicted point (the roof at the same intensity),
    // then a hollow square, in the text colour so they read apart from the operations; the
    // legend names the marker.
    let (ink, guide) = (rgba(theme.foreground), rgba(theme.muted));
    if !model.measured.is_empty() {
        legend.push(LegendEntry {
            label: measured.clone(),
            swatch: Swatch::Square { color: ink },
        });
    }
    for m in &model.measured {
        let (Some(at), Some(pred)) = (axes.to_px(m.x, m.y), axes.to_px(m.x, m.predicted_y)) else {
            continue;
        };
        if !plot.contains(at.0, at.1) {
            continue;
        }
        p.polyline(&[at, (at.0, pred.1.max(plot.top))], guide, 1.0)?;
        let r = p.px(3.5);
        p.stroke_rect(
            &PixelRect::new(at.0 - r, at.1 - r, at.0 + r, at.1 + r),
            ink,
            1.5,
        )?;
    }

    // Operation points.
    let mut point_px: Vec<(usize, Pt)> = Vec::new();
    for (i, pt) in model.points.iter().enumerate() {
        let Some(at) = axes.to_px(pt.x, pt.y) else {
            continue;
        };
        if !plot.contains(at.0, at.1) {
            continue;
        }
        p.dot(
            at,
            4.5,
            Some(rgba(theme.color(pt.series_idx))),
            Some((rgba(theme.plot_background), 1.5)),
        )?;
        occ.add_rect(PixelRect::new(at.0, at.1, at.0, at.1).inflate(p.px(5.0)));
        point_px.push((i, at));
    }

    // Labels: ceilings (inline, above the line near the right end), points,
    // ridges. Placement avoids lines, markers and previous labels.
    let inner = plot.inflate(-p.px(3.0));
    for &(i, a, b) in &ceiling_lines {
        let c = &model.ceilings[i];
        if c.label.is_empty() {
            continue;
        }
        let (w, h) = p.measure(&c.label, ANNOT_SIZE, Weight::Normal)?;
        let gap = p.px(3.0);
        let right = b.0 - p.px(6.0);
        let left = a.0 + p.px(8.0);
        let y = a.1;
        let candidates = [
            PixelRect::new(right - w, y - gap - h, right, y - gap),
            PixelRect::new(right - w, y + gap, right, y + gap + h),
            PixelRect::new(left, y - gap - h, left + w, y - gap),
            PixelRect::new(left, y + gap, left + w, y + gap + h),
        ];
        let color = rgba(theme.color(c.series_idx));
        annotate_best(&p, &mut occ, &inner, &candidates, &c.label, color)?;
    }
    for &(i, at) in &point_px {
        place_label(
            &p,
            &mut occ,
            &inner,
            at,
            &model.points[i].label,
            ANNOT_SIZE,
            Weight::Normal,
            rgba(theme.foreground),
            &[
                Side::Right,
                Side::BelowRight,
                Side::AboveLeft,
                Side::Left,
                Side::BelowLeft,
                Side::AboveRight,
                Side::Below,
                Side::Above,
            ],
            7.0,
        )?;
    }
    for &(i, at) in &ridge_px {
        place_label(
            &p,
            &mut occ,
            &inner,
            at,
            &model.ridges[i].label,
            ANNOT_SIZE,
            Weight::Normal,
            rgba(theme.muted),
            &[
                Side::BelowRight,
                Side::Right,
                Side::AboveLeft,
                Side::BelowLeft,
                Side::Below,
                Side::Left,
            ],
            7.0,
        )?;
    }

    if let Some(x) = shaded_ridge_x {
        region_labels(&p, &axes, x, &mut occ)?;
    }

    finish_chart(&p, &axes, &titles, &mut occ, &legend)
}

/// Colour for a ridge marker: the chip whose ceiling matches its height.
fn ridge_color(model: &RooflineChart, theme: &ChartTheme, y: f64) -> plotters::style::RGBAColor {
    model
        .ceilings
        .iter()
        .filter(|c| valid(c.flops_per_s) && valid(y))
        .find(|c| (c.flops_per_s.log10() - y.log10()).abs() < 0.005)
        .map(|c| rgba(theme.color(c.series_idx)))
        .unwrap_or_else(|| rgba(theme.foreground))
}

/// Tint the bandwidth-bound / compute-bound regions under the roof of the
/// first chip that has both a ceiling and a slope.
fn shade<DB: DrawingBackend>(
    p: &Painter<DB>,
    axes: &Axes,
    model: &RooflineChart,
    chips: &BTreeMap<usize, Chip>,
) -> DrawResult<Option<f64>, DB> {
    let primary = model
        .ceilings
        .iter()
        .filter(|c| valid(c.flops_per_s))
        .filter_map(|c| chips.get(&c.series_idx))
        .find_map(|chip| Some((chip.roof?, chip.bw()?)));
    let Some((roof, bw)) = primary else {
        return Ok(None);
    };
    let (xs, ys) = (axes.x, axes.y);
    let ridge = roof / bw;
    if !valid(ridge) {
        return Ok(None);
    }
    let plot = axes.plot;
    let pts = [
        axes.to_px(xs.lo, ys.lo),
        axes.to_px(xs.lo, bw * xs.lo),
        axes.to_px(ridge, roof),
        axes.to_px(ridge, ys.lo),
        axes.to_px(xs.hi, roof),
        axes.to_px(xs.hi, ys.lo),
    ];
    let [Some(bl), Some(sl), Some(rt), Some(rb), Some(ct), Some(cb)] = pts else {
        return Ok(None);
    };
    let left = super::paint::clip_polygon(&[bl, sl, rt, rb], &plot);
    let right = super::paint::clip_polygon(&[rb, rt, ct, cb], &plot);
    p.fill_polygon(&left, p.theme.bandwidth_region)?;
    p.fill_polygon(&right, p.theme.compute_region)?;

    Ok(Some(rt.0.clamp(plot.left, plot.right)))
}

/// "bandwidth-bound" / "compute-bound" labels along the bottom of their
/// regions, in the least crowded spot (when there is room).
fn region_labels<DB: DrawingBackend>(
    p: &Painter<DB>,
    axes: &Axes,
    ridge_x: f64,
    occ: &mut Occupancy,
) -> DrawResult<(), DB> {
    let plot = axes.plot;
    let inset = p.px(7.0);
    let regions = [
        (
            "bandwidth-bound",
            plot.left,
            ridge_x,
            p.theme.bandwidth_region_text,
            true,
        ),
        (
            "compute-bound",
            ridge_x,
            plot.right,
            p.theme.compute_region_text,
            false,
        ),
    ];
    for (label, x0, x1, color, from_left) in regions {
        let (w, h) = p.measure(label, ANNOT_SIZE, Weight::Italic)?;
        if x1 - x0 < w + 2.0 * inset {
            continue;
        }
        let bounds = PixelRect::new(x0 + inset, plot.top, x1 - inset, plot.bottom - inset);
        let step = p.px(16.0);
        let mut candidates = Vec::new();
        for row in 0..2 {
            let bottom = plot.bottom - inset - row as f64 * (h + inset);
            let mut k = 0.0;
            while k * step + w <= bounds.width() && candidates.len() < 200 {
                let left = if from_left {
                    bounds.left + k * step
                } else {
                    bounds.right - w - k * step
                };
                candidates.push(PixelRect::new(left, bottom - h, left + w, bottom));
                k += 1.0;
            }
        }
        if candidates.is_empty() {
            continue;
        }
        let r = candidates[best_rect(occ, &candidates, &bounds)];
        occ.add_rect(r);
        p.text(
            label,
            (r.left, r.bottom),
            ANNOT_SIZE,
            Weight::Italic,
            rgba(color),
            HPos::Left,
            VPos::Bottom,
        )?;
    }
    Ok(())
}
