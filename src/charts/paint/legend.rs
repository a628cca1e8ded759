//! The legend: one entry per series, placed where it covers the least.

use plotters::prelude::DrawingBackend;
use plotters::style::text_anchor::{HPos, VPos};
use plotters::style::RGBAColor;

use super::*;
use crate::charts::geometry::PixelRect;

#[derive(Clone, Debug)]
pub(crate) enum Swatch {
    Line {
        color: RGBAColor,
        width: f64,
        /// `(on, off)` CSS pixels, `None` for a solid line.
        dash: Option<(f64, f64)>,
    },
    /// A marker of a scatter series (measured points).
    Dot { color: RGBAColor },
    /// A hollow square: a measured kernel on the roofline plot.
    Square { color: RGBAColor },
    /// No sample: the "+N more" line of a folded legend.
    Blank,
}

#[derive(Clone, Debug)]
pub(crate) struct LegendEntry {
    pub label: String,
    pub swatch: Swatch,
}

/// The most entries a legend lists; past it, the first ones and "+N more" (issue 38, point 9:
/// 20 operations on 5 chips drew a legend over the whole plot). The page's table, read-out and
/// exports name every series.
pub(crate) const MAX_LEGEND: usize = 8;

/// The labels a legend of `labels` shows: the first `shown` (at most [`MAX_LEGEND`]), and
/// "+N more" for the rest.
pub(crate) fn folded_labels(labels: &[&str], shown: usize) -> Vec<String> {
    let shown = shown.min(MAX_LEGEND);
    let mut out: Vec<String> = labels.iter().take(shown).map(|l| l.to_string()).collect();
    if labels.len() > shown {
        out.push(format!("+{} more", labels.len() - shown));
    }
    out
}

/// Draw a compact legend in the least crowded corner of the plot area (a strip under it on a
/// narrow chart), its entries folded past [`MAX_LEGEND`].
pub(super) fn draw_legend<DB: DrawingBackend>(
    p: &Painter<DB>,
    axes: &Axes,
    occ: &mut Occupancy,
    entries: &[LegendEntry],
) -> DrawResult<(), DB> {
    let all: Vec<&LegendEntry> = entries.iter().filter(|e| !e.label.is_empty()).collect();
    if all.is_empty() || axes.tiny {
        return Ok(());
    }
    let shown = axes.legend_shown.unwrap_or(MAX_LEGEND).min(MAX_LEGEND);
    let more = all.len().saturating_sub(shown);
    let more_entry = LegendEntry {
        label: format!("+{more} more"),
        swatch: Swatch::Blank,
    };
    let mut entries: Vec<&LegendEntry> = all.into_iter().take(shown).collect();
    if more > 0 {
        entries.push(&more_entry);
    }
    if let Some(strip) = axes.legend_strip {
        return draw_legend_strip(p, &strip, &entries);
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
        draw_entry(p, e, x0, mid, sample_w, gap)?;
    }
    Ok(())
}

/// A compact chart's legend: entries flowing in rows across the strip under the plot.
fn draw_legend_strip<DB: DrawingBackend>(
    p: &Painter<DB>,
    strip: &PixelRect,
    entries: &[&LegendEntry],
) -> DrawResult<(), DB> {
    let (_, text_h) = p.measure("Ag", LEGEND_SIZE, Weight::Normal)?;
    let row_h = text_h + p.px(4.0);
    let (mut x, mut y) = (strip.left, strip.top + row_h / 2.0);
    for e in entries {
        let w = legend_entry_width(p, &e.label)?;
        if x > strip.left && x + w > strip.right {
            x = strip.left;
            y += row_h;
        }
        draw_entry(p, e, x, y, p.px(18.0), p.px(5.0))?;
        x += w;
    }
    Ok(())
}

/// One legend entry: its sample line, `sample_w` long from (`x0`, `mid`), then its label `gap`
/// further on.
fn draw_entry<DB: DrawingBackend>(
    p: &Painter<DB>,
    e: &LegendEntry,
    x0: f64,
    mid: f64,
    sample_w: f64,
    gap: f64,
) -> DrawResult<(), DB> {
    draw_swatch(p, &e.swatch, x0, mid, sample_w)?;
    p.text(
        &e.label,
        (x0 + sample_w + gap, mid),
        LEGEND_SIZE,
        Weight::Normal,
        rgba(p.theme.foreground),
        HPos::Left,
        VPos::Center,
    )
}

/// A legend entry's sample line, `w` long, starting at (`x0`, `mid`).
fn draw_swatch<DB: DrawingBackend>(
    p: &Painter<DB>,
    swatch: &Swatch,
    x0: f64,
    mid: f64,
    w: f64,
) -> DrawResult<(), DB> {
    match *swatch {
        Swatch::Line { color, width, dash } => {
            let pts = [(x0, mid), (x0 + w, mid)];
            match dash {
                Some((on, off)) => {
                    for d in dash_polyline(&pts, p.px(on), p.px(off)) {
                        p.polyline(&d, color, width)?;
                    }
                }
                None => p.polyline(&pts, color, width)?,
            }
        }
        Swatch::Dot { color } => {
            p.dot((x0 + w / 2.0, mid), 3.5, Some(color), None)?;
        }
        Swatch::Square { color } => {
            let (cx, r) = (x0 + w / 2.0, p.px(3.5));
            p.stroke_rect(
                &PixelRect::new(cx - r, mid - r, cx + r, mid + r),
                color,
                1.5,
            )?;
        }
        Swatch::Blank => {}
    }
    Ok(())
}

/// Legend entries flow left to right in rows of `width`: the width of one entry.
pub(crate) fn legend_entry_width<DB: DrawingBackend>(
    p: &Painter<DB>,
    label: &str,
) -> DrawResult<f64, DB> {
    Ok(p.px(18.0) + p.px(5.0) + p.measure(label, LEGEND_SIZE, Weight::Normal)?.0 + p.px(12.0))
}

/// How many rows the legend entries `labels` take when they flow in rows of `width`.
pub(crate) fn legend_rows<DB: DrawingBackend>(
    p: &Painter<DB>,
    labels: &[&str],
    width: f64,
) -> DrawResult<usize, DB> {
    let (mut rows, mut x) = (1usize, 0.0);
    for l in labels {
        let w = legend_entry_width(p, l)?;
        if x > 0.0 && x + w > width {
            rows += 1;
            x = 0.0;
        }
        x += w;
    }
    Ok(rows)
}
