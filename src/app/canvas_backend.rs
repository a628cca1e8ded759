//! A plotters backend drawing on a `<canvas>` 2D context, written for redraw speed (it replaces
//! `plotters-canvas`, which sets every style and font string on every primitive and crosses into
//! JavaScript once per path point):
//!
//! - styles, line width, font and text alignment are set only when they change;
//! - consecutive strokes of the same colour and width (grid lines, ticks, the dashes of a dashed
//!   line, series segments) are gathered into one path and stroked once: a chart of 24 series
//!   made about 1,600 `stroke()` calls per redraw, it now makes a few dozen;
//! - a path or polygon is handed to JavaScript in one call, as a typed array of coordinates;
//! - text is measured with the context's own `measureText`, never by laying out an element.

use plotters::backend::DrawingBackend;
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind, FontTransform,
};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

#[wasm_bindgen(inline_js = "
export function rl_path(ctx, pts, close, fill) {
  ctx.beginPath();
  const n = pts.length;
  if (n >= 2) {
    ctx.moveTo(pts[0], pts[1]);
    for (let i = 2; i + 1 < n; i += 2) ctx.lineTo(pts[i], pts[i + 1]);
  }
  if (close) ctx.closePath();
  if (fill) ctx.fill(); else ctx.stroke();
}
export function rl_stroke_runs(ctx, pts) {
  ctx.beginPath();
  let move = true;
  for (let i = 0; i + 1 < pts.length; i += 2) {
    const x = pts[i], y = pts[i + 1];
    if (x !== x) { move = true; continue; }
    if (move) { ctx.moveTo(x, y); move = false; } else ctx.lineTo(x, y);
  }
  ctx.stroke();
}
")]
extern "C" {
    /// Trace `pts` (x0, y0, x1, y1, ...) as one path, then stroke or fill it.
    fn rl_path(ctx: &CanvasRenderingContext2d, pts: &[i32], close: bool, fill: bool);
    /// Stroke polylines in one path: `pts` holds (x, y) pairs, a NaN pair starts a new one.
    fn rl_stroke_runs(ctx: &CanvasRenderingContext2d, pts: &[f64]);
}

/// A drawing error from the canvas (the browser's message).
#[derive(Debug)]
pub struct CanvasError(String);

impl std::fmt::Display for CanvasError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "canvas: {}", self.0)
    }
}

impl std::error::Error for CanvasError {}

fn js_error(e: JsValue) -> DrawingErrorKind<CanvasError> {
    DrawingErrorKind::DrawingError(CanvasError(
        e.as_string()
            .or_else(|| {
                e.dyn_ref::<js_sys::Error>()
                    .map(|e| String::from(e.message()))
            })
            .unwrap_or_else(|| "unknown error".into()),
    ))
}

/// The context's state as last set by this backend, to skip redundant (and string-copying)
/// setters.
#[derive(Default)]
struct State {
    stroke: Option<(u8, u8, u8, u64)>,
    fill: Option<(u8, u8, u8, u64)>,
    line_width: Option<u32>,
    font: String,
    align: Option<&'static str>,
    baseline: Option<&'static str>,
}

/// Draws on a canvas element's 2D context.
pub struct CanvasBackend {
    canvas: HtmlCanvasElement,
    ctx: CanvasRenderingContext2d,
    state: State,
    /// Scratch coordinates for paths.
    pts: Vec<i32>,
    /// Strokes gathered but not yet drawn: (x, y) pairs, NaN pairs between polylines.
    strokes: Vec<f64>,
    /// The colour and width of the gathered strokes.
    stroke_style: Option<(BackendColor, u32)>,
}

fn color_key(c: BackendColor) -> (u8, u8, u8, u64) {
    (c.rgb.0, c.rgb.1, c.rgb.2, c.alpha.to_bits())
}

fn css_color(c: BackendColor) -> String {
    let (r, g, b) = c.rgb;
    if c.alpha >= 1.0 {
        format!("rgb({r},{g},{b})")
    } else {
        format!("rgba({r},{g},{b},{})", c.alpha.clamp(0.0, 1.0))
    }
}

impl CanvasBackend {
    /// A backend for `canvas`, or why it has no 2D context.
    pub fn new(canvas: HtmlCanvasElement) -> Result<Self, crate::app::AppError> {
        let no_context =
            |detail: String| crate::app::AppError::browser("get the canvas's 2D context", detail);
        let ctx = canvas
            .get_context("2d")
            .map_err(|e| no_context(crate::app::js_detail(&e)))?
            .ok_or_else(|| no_context("the canvas has none".into()))?
            .dyn_into()
            .map_err(|_| no_context("not a 2D context".into()))?;
        Ok(CanvasBackend {
            canvas,
            ctx,
            state: State::default(),
            pts: Vec::new(),
            strokes: Vec::new(),
            stroke_style: None,
        })
    }

    /// Adds a polyline to the gathered strokes (drawing what was gathered first when its style
    /// differs).
    fn gather(
        &mut self,
        color: BackendColor,
        width: u32,
        pts: impl IntoIterator<Item = (f64, f64)>,
    ) {
        let same = self
            .stroke_style
            .is_some_and(|(c, w)| w == width && color_key(c) == color_key(color));
        if !same {
            self.flush();
            self.stroke_style = Some((color, width));
        } else {
            self.strokes.extend([f64::NAN, f64::NAN]);
        }
        for (x, y) in pts {
            self.strokes.extend([x, y]);
        }
    }

    /// Draws the gathered strokes. Every other primitive calls this first, so that the order
    /// of drawing is kept.
    fn flush(&mut self) {
        if let Some((color, width)) = self.stroke_style.take() {
            if self.strokes.len() >= 4 {
                self.set_stroke(color, width);
                rl_stroke_runs(&self.ctx, &self.strokes);
            }
        }
        self.strokes.clear();
    }

    fn set_stroke(&mut self, color: BackendColor, width: u32) {
        let key = color_key(color);
        if self.state.stroke != Some(key) {
            self.ctx.set_stroke_style_str(&css_color(color));
            self.state.stroke = Some(key);
        }
        if self.state.line_width != Some(width) {
            self.ctx.set_line_width(width as f64);
            self.state.line_width = Some(width);
        }
    }

    fn set_fill(&mut self, color: BackendColor) {
        let key = color_key(color);
        if self.state.fill != Some(key) {
            self.ctx.set_fill_style_str(&css_color(color));
            self.state.fill = Some(key);
        }
    }

    fn set_font<S: BackendTextStyle>(&mut self, style: &S) {
        use std::fmt::Write;
        let mut font = String::with_capacity(64);
        let _ = write!(
            font,
            "{} {}px {}",
            style.style().as_str(),
            style.size(),
            style.family().as_str()
        );
        if self.state.font != font {
            self.ctx.set_font(&font);
            self.state.font = font;
        }
    }

    fn path<I: IntoIterator<Item = BackendCoord>>(&mut self, path: I, close: bool, fill: bool) {
        self.pts.clear();
        for (x, y) in path {
            self.pts.push(x);
            self.pts.push(y);
        }
        rl_path(&self.ctx, &self.pts, close, fill);
    }
}

impl DrawingBackend for CanvasBackend {
    type ErrorType = CanvasError;

    fn get_size(&self) -> (u32, u32) {
        (self.canvas.width(), self.canvas.height())
    }

    fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<CanvasError>> {
        Ok(())
    }

    fn present(&mut self) -> Result<(), DrawingErrorKind<CanvasError>> {
        self.flush();
        Ok(())
    }

    fn draw_pixel(
        &mut self,
        point: BackendCoord,
        color: BackendColor,
    ) -> Result<(), DrawingErrorKind<CanvasError>> {
        if color.alpha == 0.0 {
            return Ok(());
        }
        self.flush();
        self.set_fill(color);
        self.ctx
            .fill_rect(f64::from(point.0), f64::from(point.1), 1.0, 1.0);
        Ok(())
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<(), DrawingErrorKind<CanvasError>> {
        if style.color().alpha == 0.0 {
            return Ok(());
        }
        // Horizontal and vertical lines on pixel centres, as plotters-canvas does.
        let (mut a, mut b) = ((from.0 as f64, from.1 as f64), (to.0 as f64, to.1 as f64));
        if a.0 == b.0 {
            a.0 -= 0.5;
            b.0 -= 0.5;
        }
        if a.1 == b.1 {
            a.1 -= 0.5;
            b.1 -= 0.5;
        }
        self.gather(style.color(), style.stroke_width(), [a, b]);
        Ok(())
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<CanvasError>> {
        if style.color().alpha == 0.0 {
            return Ok(());
        }
        let (x, y) = (f64::from(upper_left.0), f64::from(upper_left.1));
        let (w, h) = (
            f64::from(bottom_right.0 - upper_left.0),
            f64::from(bottom_right.1 - upper_left.1),
        );
        self.flush();
        if fill {
            self.set_fill(style.color());
            self.ctx.fill_rect(x, y, w, h);
        } else {
            self.set_stroke(style.color(), style.stroke_width());
            self.ctx.stroke_rect(x, y, w, h);
        }
        Ok(())
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<CanvasError>> {
        if style.color().alpha == 0.0 {
            return Ok(());
        }
        let pts = path.into_iter().map(|(x, y)| (f64::from(x), f64::from(y)));
        self.gather(style.color(), style.stroke_width(), pts);
        Ok(())
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<CanvasError>> {
        if style.color().alpha == 0.0 {
            return Ok(());
        }
        self.flush();
        self.set_fill(style.color());
        self.path(path, true, true);
        Ok(())
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<CanvasError>> {
        if style.color().alpha == 0.0 {
            return Ok(());
        }
        self.flush();
        if fill {
            self.set_fill(style.color());
        } else {
            self.set_stroke(style.color(), style.stroke_width());
        }
        self.ctx.begin_path();
        self.ctx
            .arc(
                f64::from(center.0),
                f64::from(center.1),
                f64::from(radius),
                0.0,
                std::f64::consts::TAU,
            )
            .map_err(js_error)?;
        if fill {
            self.ctx.fill();
        } else {
            self.ctx.stroke();
        }
        Ok(())
    }

    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &S,
        pos: BackendCoord,
    ) -> Result<(), DrawingErrorKind<CanvasError>> {
        let color = style.color();
        if color.alpha == 0.0 || text.is_empty() {
            return Ok(());
        }
        let angle = match style.transform() {
            FontTransform::None => 0.0,
            FontTransform::Rotate90 => 90.0,
            FontTransform::Rotate180 => 180.0,
            FontTransform::Rotate270 => 270.0,
        } * std::f64::consts::PI
            / 180.0;
        self.flush();
        let anchor = style.anchor();
        let baseline = match anchor.v_pos {
            VPos::Top => "top",
            VPos::Center => "middle",
            VPos::Bottom => "bottom",
        };
        if self.state.baseline != Some(baseline) {
            self.ctx.set_text_baseline(baseline);
            self.state.baseline = Some(baseline);
        }
        let align = match anchor.h_pos {
            HPos::Left => "start",
            HPos::Right => "end",
            HPos::Center => "center",
        };
        if self.state.align != Some(align) {
            self.ctx.set_text_align(align);
            self.state.align = Some(align);
        }
        self.set_fill(color);
        self.set_font(style);
        let (x, y) = (f64::from(pos.0), f64::from(pos.1));
        if angle != 0.0 {
            self.ctx.save();
            self.ctx.translate(x, y).map_err(js_error)?;
            self.ctx.rotate(angle).map_err(js_error)?;
            let r = self.ctx.fill_text(text, 0.0, 0.0).map_err(js_error);
            self.ctx.restore();
            r
        } else {
            self.ctx.fill_text(text, x, y).map_err(js_error)
        }
    }

    fn estimate_text_size<S: BackendTextStyle>(
        &self,
        text: &str,
        style: &S,
    ) -> Result<(u32, u32), DrawingErrorKind<CanvasError>> {
        let font = format!(
            "{} {}px {}",
            style.style().as_str(),
            style.size(),
            style.family().as_str()
        );
        match super::text_measure::measure_font(text, &font) {
            Some((w, h)) => Ok((w as u32, h as u32)),
            None => Ok((
                (style.size() * 0.6 * text.chars().count() as f64) as u32,
                style.size() as u32,
            )),
        }
    }
}

impl Drop for CanvasBackend {
    /// Strokes still gathered are drawn, whether or not the chart called `present`.
    fn drop(&mut self) {
        self.flush();
    }
}
