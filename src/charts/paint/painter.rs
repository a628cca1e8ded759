//! The painter: pixel-space primitives (lines with clipping and dashes, polygons, dots,
//! text measured once and cached) over any plotters backend, at the device pixel ratio.

use std::cell::RefCell;
use std::collections::HashMap;

use plotters::coord::Shift;
use plotters::drawing::DrawingArea;
use plotters::element::{Circle, PathElement, Polygon, Rectangle, Text};
use plotters::prelude::DrawingBackend;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::{
    Color, FontDesc, FontFamily, FontStyle, FontTransform, RGBAColor, RGBColor, ShapeStyle,
    TextStyle,
};

use super::*;
use crate::charts::geometry::PixelRect;
use crate::charts::theme::{sanitize_scale, ChartTheme};

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
    pub theme: &'a ChartTheme,
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
    pub fn new(area: &'a DrawingArea<DB, Shift>, theme: &'a ChartTheme) -> Self {
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
