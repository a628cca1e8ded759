//! Axes: layout (margins measured from the actual tick labels), grid, frame, ticks, titles.

use plotters::prelude::DrawingBackend;
use plotters::style::text_anchor::{HPos, VPos};

use super::*;
use crate::charts::format::{format_ticks, format_time_ticks, linear_ticks, log_ticks, Ticks};
use crate::charts::geometry::{AxisScale, ChartGeometry, PixelRect};

pub(crate) struct AxisTitles<'m> {
    pub title: &'m str,
    pub x_label: &'m str,
    pub y_label: &'m str,
    /// The legend's labels, which a compact chart puts in a strip under the plot (empty: the
    /// legend, if any, goes inside the plot area).
    pub legend: &'m [&'m str],
    /// Whether each axis is in seconds: its ticks then carry a time prefix (`20 µs`, `1.5 ms`)
    /// instead of an exponent (`2e-5`).
    pub x_seconds: bool,
    pub y_seconds: bool,
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
    /// Where the legend goes on a compact chart: a strip under the plot, so that it covers no
    /// curve (an embed of 320×240, a phone).
    pub legend_strip: Option<PixelRect>,
    /// How many entries the legend lists before "+N more" (`None`: up to
    /// [`super::legend::MAX_LEGEND`]); fewer where a compact chart's strip has no room.
    pub legend_shown: Option<usize>,
    /// The title gave its place to the legend strip (a chart too short for both).
    pub title_hidden: bool,
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
pub(super) fn layout_axes<DB: DrawingBackend>(
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

    let mut top = pad
        + if titles.title.is_empty() {
            tick_h / 2.0
        } else {
            title_h + p.px(10.0)
        };
    let mut bottom_fixed =
        pad + if titles.x_label.is_empty() {
            0.0
        } else {
            xlab_h + p.px(6.0)
        } + tick_h
            + tick_gap
            + tick_len;
    // A compact chart keeps its legend out of the plot: a strip of rows under it (issue 38,
    // point 9: above it, the phone's frontier kept 80 px of plot), folded to the rows that leave
    // the plot at least 60 px of height; on a chart too short for one row and its title, the
    // title gives its place (the page or the embed names the plot around it). Failing both,
    // the legend goes inside, as on wide charts.
    let mut title_hidden = false;
    let mut legend_shown = None;
    let legend_strip = if p.width < p.px(COMPACT_WIDTH) && !titles.legend.is_empty() {
        let (_, text_h) = p.measure("Ag", LEGEND_SIZE, Weight::Normal)?;
        let row_h = text_h + p.px(4.0);
        let width = p.width - 2.0 * pad;
        let room = |top: f64, h: f64| p.height - top - bottom_fixed - h - p.px(4.0) >= p.px(60.0);
        // The most entries whose rows (two at most) fit, down to one row of them.
        let fits = |top: f64| -> DrawResult<Option<(usize, f64)>, DB> {
            for shown in (1..=titles.legend.len().min(super::legend::MAX_LEGEND)).rev() {
                let labels = super::legend::folded_labels(titles.legend, shown);
                let refs: Vec<&str> = labels.iter().map(String::as_str).collect();
                let rows = super::legend::legend_rows(p, &refs, width)?;
                let h = rows as f64 * row_h;
                if rows <= MAX_STRIP_ROWS && room(top, h) {
                    return Ok(Some((shown, h)));
                }
            }
            Ok(None)
        };
        let mut fit = fits(top)?;
        if fit.is_none() && !titles.title.is_empty() {
            let short = pad + p.px(4.0);
            if let Some(f) = fits(short)? {
                title_hidden = true;
                top = short;
                fit = Some(f);
            }
        }
        fit.map(|(shown, h)| {
            legend_shown = Some(shown);
            let strip_top = p.height - pad - h;
            bottom_fixed += h + p.px(4.0);
            PixelRect::new(pad, strip_top, p.width - pad, strip_top + h)
        })
    } else {
        None
    };
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
                xl = if titles.x_seconds {
                    format_time_ticks(&xt.major)
                } else {
                    format_ticks(&xt.major)
                };
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
            yl = if titles.y_seconds {
                format_time_ticks(&yt.major)
            } else {
                format_ticks(&yt.major)
            };
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
        legend_strip,
        legend_shown,
        title_hidden,
    })
}

/// Below this width (CSS pixels) a chart is compact: its legend moves to a strip under the plot.
pub(crate) const COMPACT_WIDTH: f64 = 500.0;

/// A compact chart's legend strip takes at most this many rows; the entries past them fold into
/// "+N more" (the page's table and read-out name every series).
const MAX_STRIP_ROWS: usize = 2;

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
pub(super) fn draw_axes_over<DB: DrawingBackend>(
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
    // A title wider than the canvas (an LLM's on a phone) is shortened with an ellipsis and
    // kept inside the canvas rather than clipped at both ends (issue 24, point 5).
    let title = if axes.title_hidden {
        String::new()
    } else {
        fit_text(
            p,
            titles.title,
            TITLE_SIZE,
            Weight::Bold,
            p.width - 2.0 * pad,
        )?
    };
    let (title_w, _) = p.measure(&title, TITLE_SIZE, Weight::Bold)?;
    let cx = cx.clamp(
        pad + title_w / 2.0,
        (p.width - pad - title_w / 2.0).max(pad + title_w / 2.0),
    );
    p.text(
        &title,
        (cx, pad),
        TITLE_SIZE,
        Weight::Bold,
        rgba(t.foreground),
        HPos::Center,
        VPos::Top,
    )?;
    // Above a compact chart's legend strip, which sits at the bottom.
    let x_label_bottom = axes
        .legend_strip
        .map_or(p.height - pad, |strip| strip.top - p.px(4.0));
    p.text(
        titles.x_label,
        (cx, x_label_bottom),
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

/// `text` as is when it measures at most `max_w`, else its longest prefix that fits with `…`.
pub(super) fn fit_text<DB: DrawingBackend>(
    p: &Painter<DB>,
    text: &str,
    size: f64,
    weight: Weight,
    max_w: f64,
) -> DrawResult<String, DB> {
    if p.measure(text, size, weight)?.0 <= max_w {
        return Ok(text.to_string());
    }
    let chars: Vec<char> = text.chars().collect();
    let (mut lo, mut hi) = (0usize, chars.len());
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        let cand: String = chars[..mid].iter().collect::<String>() + "…";
        if p.measure(&cand, size, weight)?.0 <= max_w {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    Ok(chars[..lo]
        .iter()
        .collect::<String>()
        .trim_end()
        .to_string()
        + "…")
}

/// Centered "nothing to plot" message in the plot area.
pub(super) fn draw_empty_message<DB: DrawingBackend>(
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
