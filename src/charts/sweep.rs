//! Sweep chart: one or more curves (e.g. achieved FLOP/s vs batch size) with
//! peak lines, marked crossovers and dashed reference lines.

use std::ops::ControlFlow;

use plotters::coord::Shift;
use plotters::prelude::{DrawingArea, DrawingBackend};
use plotters::style::Color;

use super::geometry::{AxisScale, ChartGeometry, PixelRect};
use super::model::{ChartSeries, SweepChart};
use super::paint::{
    annotate_best, begin_chart, draw_axes_under, drop_guides, finish_chart, place_label, rgba,
    ring_marker, AxisTitles, DrawResult, LegendEntry, Occupancy, Painter, Pt, Side, Swatch, Weight,
    ANNOT_SIZE,
};
use super::theme::ChartTheme;

/// Message drawn when the model has nothing plottable.
pub const EMPTY_MESSAGE: &str = "Nothing to plot";

const LIN_LIMIT: f64 = 1e300;

fn ok_on(v: f64, log: bool) -> bool {
    v.is_finite() && (!log || v > 0.0)
}

/// Automatic range for one axis. `margin` is a fraction of the span added on
/// each side (`[lo, hi]`); on linear axes a range that nearly reaches zero is
/// pinned to zero (no margin on that side).
pub fn auto_axis(values: &[f64], log: bool, margin: (f64, f64)) -> Option<AxisScale> {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for &v in values {
        if ok_on(v, log) {
            let v = v.clamp(-LIN_LIMIT, LIN_LIMIT);
            lo = lo.min(v);
            hi = hi.max(v);
        }
    }
    if lo > hi {
        return None;
    }
    if log {
        let (mut l0, mut l1) = (lo.log10(), hi.log10());
        if l1 - l0 < 1e-9 {
            l0 -= 0.5;
            l1 += 0.5;
        }
        let span = l1 - l0;
        l0 = (l0 - span * margin.0).clamp(-300.0, 300.0);
        l1 = (l1 + span * margin.1).clamp(-300.0, 300.0);
        if l1 <= l0 {
            l1 = l0 + 1.0;
        }
        return Some(AxisScale::new(10f64.powf(l0), 10f64.powf(l1), true));
    }
    if hi - lo <= hi.abs().max(lo.abs()) * 1e-12 {
        let d = if lo == 0.0 { 1.0 } else { lo.abs() * 0.1 };
        return Some(AxisScale::new(lo - d, hi + d, false));
    }
    let (mut a, mut b) = (lo, hi);
    let pin_lo = lo >= 0.0 && lo <= 0.25 * hi;
    let pin_hi = hi <= 0.0 && hi >= 0.25 * lo;
    if pin_lo {
        a = 0.0;
    }
    if pin_hi {
        b = 0.0;
    }
    let span = b - a;
    if !pin_lo {
        a -= span * margin.0;
    }
    if !pin_hi {
        b += span * margin.1;
    }
    if !(a.is_finite() && b.is_finite() && b > a) {
        return None;
    }
    Some(AxisScale::new(a, b, false))
}

/// Axis ranges for a sweep chart; `None` when there is nothing to plot.
pub fn auto_ranges(model: &SweepChart) -> Option<(AxisScale, AxisScale)> {
    let (lx, ly) = (model.log_x, model.log_y);
    let n = model.series.iter().map(|s| s.points.len()).sum::<usize>()
        + model.crossovers.len()
        + model.vlines.len()
        + model.hlines.len();
    let mut xs = Vec::with_capacity(n);
    let mut ys = Vec::with_capacity(n);
    for s in &model.series {
        for &(x, y) in &s.points {
            if ok_on(x, lx) && ok_on(y, ly) {
                xs.push(x);
                ys.push(y);
            }
        }
    }
    for b in &model.bars {
        for y in [b.lo, b.hi, b.mid] {
            if ok_on(b.x, lx) && ok_on(y, ly) {
                xs.push(b.x);
                ys.push(y);
            }
        }
    }
    let have_series = !xs.is_empty();
    for m in &model.crossovers {
        if ok_on(m.x, lx) && ok_on(m.y, ly) {
            xs.push(m.x);
            ys.push(m.y);
        }
    }
    let have_x_refs = model.vlines.iter().any(|v| ok_on(v.x, lx));
    let have_y_refs = model.hlines.iter().any(|h| ok_on(h.y, ly));
    if !have_series && xs.is_empty() && !(have_x_refs && have_y_refs) {
        return None;
    }
    xs.extend(model.vlines.iter().map(|v| v.x).filter(|&x| ok_on(x, lx)));
    ys.extend(model.hlines.iter().map(|h| h.y).filter(|&y| ok_on(y, ly)));
    let y_top = if model.hlines.is_empty() { 0.05 } else { 0.08 };
    let x = auto_axis(&xs, lx, (0.03, 0.03))?;
    let y = auto_axis(&ys, ly, (0.05, y_top))?;
    Some((x, y))
}

/// Draw the sweep chart onto `root`.
pub fn draw<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    model: &SweepChart,
    theme: &ChartTheme,
) -> DrawResult<ChartGeometry, DB> {
    let p = Painter::new(&root, theme);
    let labels: Vec<&str> = (!model.bars.is_empty())
        .then_some(model.bars_label.as_str())
        .into_iter()
        .chain(model.series.iter().map(|s| s.label.as_str()))
        .filter(|l| !l.is_empty())
        .collect();
    let titles = AxisTitles {
        title: &model.title,
        x_label: &model.x_label,
        y_label: &model.y_label,
        legend: &labels,
        x_seconds: model.x_unit == Some(roofline::units::Unit::Seconds),
        y_seconds: model.y_unit == Some(roofline::units::Unit::Seconds),
    };
    let axes = match begin_chart(&p, &titles, auto_ranges(model), EMPTY_MESSAGE)? {
        ControlFlow::Continue(axes) => axes,
        ControlFlow::Break(geometry) => return Ok(geometry),
    };
    let plot = axes.plot;
    let mut occ = Occupancy::default();
    let sample = p.px(4.0);
    draw_axes_under(&p, &axes)?;

    // Vertical reference lines (dashed, muted).
    let mut vline_px = Vec::new();
    for (i, v) in model.vlines.iter().enumerate() {
        let Some(x) = axes.x_px(v.x) else { continue };
        let runs = p.line_clipped(
            &[Some((x, plot.top)), Some((x, plot.bottom))],
            &plot,
            rgba(theme.muted).mix(0.9),
            1.2,
            Some((6.0, 4.0)),
        )?;
        for r in &runs {
            occ.add_polyline_weighted(r, sample, 0.5);
        }
        if !runs.is_empty() {
            vline_px.push((i, x));
        }
    }

    // Horizontal peak lines (dashed, series colour).
    let mut hline_px = Vec::new();
    for (i, h) in model.hlines.iter().enumerate() {
        let Some(y) = axes.y_px(h.y) else { continue };
        let runs = p.line_clipped(
            &[Some((plot.left, y)), Some((plot.right, y))],
            &plot,
            rgba(theme.color(h.series_idx)).mix(0.85),
            1.2,
            Some((7.0, 4.0)),
        )?;
        for r in &runs {
            occ.add_polyline_weighted(r, sample, 0.6);
        }
        if !runs.is_empty() {
            hline_px.push((i, y));
        }
    }

    // Bars (an expectation's band) with their marker, muted, under the series.
    let mut legend = Vec::new();
    let bar_color = rgba(theme.muted);
    for b in &model.bars {
        let (Some(lo), Some(hi), Some(mid)) = (
            axes.to_px(b.x, b.lo),
            axes.to_px(b.x, b.hi),
            axes.to_px(b.x, b.mid),
        ) else {
            continue;
        };
        p.line_clipped(&[Some(lo), Some(hi)], &plot, bar_color, 1.4, None)?;
        if plot.contains(mid.0, mid.1) {
            let w = p.px(4.0);
            p.polyline(&[(mid.0 - w, mid.1), (mid.0 + w, mid.1)], bar_color, 2.0)?;
            occ.add_point(mid);
        }
    }
    if !model.bars.is_empty() && !model.bars_label.is_empty() {
        legend.push(LegendEntry {
            label: model.bars_label.clone(),
            swatch: Swatch::Line {
                color: bar_color,
                width: 1.4,
                dash: None,
            },
        });
    }

    // Series.
    for s in &model.series {
        let color = rgba(theme.color(s.series_idx));
        let pts: Vec<Option<Pt>> = s.points.iter().map(|&(x, y)| axes.to_px(x, y)).collect();
        if s.scatter {
            for q in pts.iter().flatten().filter(|q| plot.contains(q.0, q.1)) {
                p.dot(*q, 3.5, Some(color), None)?;
                occ.add_point(*q);
            }
            legend.push(LegendEntry {
                label: s.label.clone(),
                swatch: Swatch::Dot { color },
            });
            continue;
        }
        let dash = theme.dash(s.series_idx);
        let (fits, oom) = split_at_oom(s, &pts);
        let runs = p.line_clipped(&fits, &plot, color, 2.2, dash)?;
        // The stretch that does not fit in memory: faint and dotted (issue 24, point 2).
        p.line_clipped(&oom, &plot, color.mix(0.45), 1.6, Some((2.0, 3.0)))?;
        // A lone point (or isolated samples) still deserves a mark.
        let visible: Vec<Pt> = fits
            .iter()
            .flatten()
            .copied()
            .filter(|q| plot.contains(q.0, q.1))
            .collect();
        if runs.is_empty() {
            for &q in &visible {
                p.dot(q, 3.0, Some(color), None)?;
                occ.add_point(q);
            }
        }
        for r in &runs {
            occ.add_polyline(r, sample);
        }
        legend.push(LegendEntry {
            label: s.label.clone(),
            swatch: Swatch::Line {
                color,
                width: 2.2,
                dash,
            },
        });
    }

    // Crossovers: dotted guide to the x axis + ring marker.
    let crossovers = model.crossovers.iter().map(|m| (m.x, m.y));
    let cross_px = drop_guides(&p, &axes, &mut occ, crossovers)?;
    for &(_, at) in &cross_px {
        ring_marker(&p, &mut occ, at, rgba(theme.foreground))?;
    }

    // Labels.
    let inner = plot.inflate(-p.px(3.0));
    let gap = p.px(4.0);
    // Crossover labels first (most important), then reference-line labels.
    for &(i, at) in &cross_px {
        place_label(
            &p,
            &mut occ,
            &inner,
            at,
            &model.crossovers[i].label,
            ANNOT_SIZE,
            Weight::Bold,
            rgba(theme.foreground),
            &[
                Side::BelowRight,
                Side::AboveLeft,
                Side::Right,
                Side::BelowLeft,
                Side::AboveRight,
                Side::Left,
                Side::Below,
                Side::Above,
            ],
            8.0,
        )?;
    }

    for &(i, y) in &hline_px {
        let h = &model.hlines[i];
        if h.label.is_empty() {
            continue;
        }
        let (w, th) = p.measure(&h.label, ANNOT_SIZE, Weight::Normal)?;
        let g = p.px(3.0);
        let left = plot.left + p.px(8.0);
        let right = plot.right - p.px(8.0);
        let candidates = [
            PixelRect::new(left, y - g - th, left + w, y - g),
            PixelRect::new(right - w, y - g - th, right, y - g),
            PixelRect::new(left, y + g, left + w, y + g + th),
            PixelRect::new(right - w, y + g, right, y + g + th),
        ];
        let color = rgba(theme.color(h.series_idx));
        annotate_best(&p, &mut occ, &inner, &candidates, &h.label, color)?;
    }
    for &(i, x) in &vline_px {
        let label = &model.vlines[i].label;
        if label.is_empty() {
            continue;
        }
        let (w, h) = p.measure(label, ANNOT_SIZE, Weight::Normal)?;
        let top = plot.top + p.px(6.0);
        let bottom = plot.bottom - p.px(6.0) - h;
        let candidates = [
            PixelRect::new(x + gap, top, x + gap + w, top + h),
            PixelRect::new(x - gap - w, top, x - gap, top + h),
            PixelRect::new(x + gap, bottom, x + gap + w, bottom + h),
            PixelRect::new(x - gap - w, bottom, x - gap, bottom + h),
        ];
        annotate_best(&p, &mut occ, &inner, &candidates, label, rgba(theme.muted))?;
    }
    finish_chart(&p, &axes, &titles, &mut occ, &legend)
}

/// A curve's pixels split where it stops fitting in memory ([`ChartSeries::oom_from`]): the
/// points that fit (the rest `None`, so no line reaches past the edge), and those that do not
/// (from the last point that fits, so the two stretches meet). Without an edge, all fit.
fn split_at_oom(s: &ChartSeries, pts: &[Option<Pt>]) -> (Vec<Option<Pt>>, Vec<Option<Pt>>) {
    let Some(edge) = s.oom_from else {
        return (pts.to_vec(), Vec::new());
    };
    let beyond: Vec<bool> = s.points.iter().map(|&(x, _)| x > edge).collect();
    let fits = pts
        .iter()
        .zip(&beyond)
        .map(|(q, &b)| if b { None } else { *q })
        .collect();
    let oom = pts
        .iter()
        .enumerate()
        .map(|(k, q)| {
            let next_beyond = beyond.get(k + 1).copied().unwrap_or(false);
            if beyond[k] || next_beyond {
                *q
            } else {
                None
            }
        })
        .collect();
    (fits, oom)
}
