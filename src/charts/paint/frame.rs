//! The chart skeleton shared by both charts: begin (background, axes, the empty chart) and
//! finish (frame, legend), and the markers both draw.

use std::ops::ControlFlow;

use plotters::prelude::DrawingBackend;
use plotters::style::{Color, RGBAColor};

use super::*;
use crate::charts::geometry::{AxisScale, ChartGeometry, PixelRect};

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
/// size) that lies inside `bounds` and covers no label already placed, and mark that spot
/// taken; with no such candidate, leave it out (its line stays, the derivation and readout
/// still give its value): an out-of-memory label never prints over a knee's or off the plot.
pub(crate) fn annotate_best<DB: DrawingBackend>(
    p: &Painter<DB>,
    occ: &mut Occupancy,
    bounds: &PixelRect,
    candidates: &[PixelRect],
    text: &str,
    color: RGBAColor,
) -> DrawResult<(), DB> {
    let free: Vec<PixelRect> = candidates
        .iter()
        .copied()
        .filter(|r| !occ.covers_label(r) && bounds.contains_rect(r))
        .collect();
    if free.is_empty() {
        return Ok(());
    }
    let r = free[best_rect(occ, &free, bounds)];
    occ.add_label(r);
    p.label(text, &r, ANNOT_SIZE, Weight::Normal, color)
}
