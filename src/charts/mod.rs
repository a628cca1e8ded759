//! Chart drawing for Roofline Lab (plotters).
//!
//! Each chart is a module with a generic `draw` function working on any
//! plotters [`DrawingBackend`](plotters::prelude::DrawingBackend): the
//! browser renders to a `<canvas>` (plotters-canvas), tests and the SVG
//! export render to SVG natively. Errors stay plotters errors inside the
//! drawing code and become strings only in [`render_svg_with`].
//!
//! ```ignore
//! // Browser (plotters-canvas), HiDPI-aware:
//! let theme = ChartTheme::light().with_scale(window.device_pixel_ratio());
//! let root = CanvasBackend::with_canvas_object(canvas).unwrap().into_drawing_area();
//! let geometry = charts::roofline_chart::draw(root, &model, &theme).map_err(|e| e.to_string())?;
//! // Pointer read-out (offset in CSS px × devicePixelRatio):
//! let hit = charts::nearest_point(&model.hit_points(), &geometry, px, py);
//! ```
//!
//! The models in [`model`] are plain data; this module does not depend on
//! the analysis crate.

mod either;
pub mod format;
pub mod frontier;
pub mod geometry;
#[cfg(feature = "load")]
pub mod load;
pub mod model;
mod paint;
pub mod roofline_chart;
pub mod sweep;
pub mod theme;

use plotters::coord::Shift;
use plotters::prelude::{DrawingArea, DrawingBackend, IntoDrawingArea, SVGBackend};

pub use either::{BackendError, EitherBackend, NoBackend};
pub use format::{format_ticks, format_time_ticks, linear_ticks, log_ticks, Ticks};
pub use frontier::{FrontierChart, FrontierCurve, FrontierMark};
pub use geometry::{nearest_point, AxisScale, ChartGeometry, Nearest, PixelRect};
#[cfg(feature = "load")]
pub use load::{LoadChart, LoadMark, LoadPanel, LoadSeries};
pub use model::{
    Ceiling, ChartSeries, ErrorBar, HLine, Marker, MeasuredMark, PointMark, RooflineChart, Slope,
    SweepChart, VLine,
};
pub use paint::{set_text_measurer, DrawError, TextMeasurer};
pub use theme::{ChartTheme, OKABE_ITO_DARK, OKABE_ITO_LIGHT};

/// plotters' SVG backend writes `font-size = size / 1.24`; compensate so
/// SVG text has the same size as canvas text.
const SVG_FONT_FACTOR: f64 = 1.24;

/// Largest SVG we agree to produce (per side, pixels).
const MAX_SVG_SIDE: u32 = 16_384;

/// Run a drawing function on an in-memory SVG backend, seen as the `Left` of an
/// [`EitherBackend`] whose `Right` is `B` (the page's canvas backend in the browser, where the
/// canvas is drawn through the same type; [`NoBackend`] natively).
pub fn render_svg_with<B, F>(
    width: u32,
    height: u32,
    theme: &ChartTheme,
    f: F,
) -> Result<(String, ChartGeometry), String>
where
    B: DrawingBackend,
    F: for<'b> FnOnce(
        DrawingArea<EitherBackend<SVGBackend<'b>, B>, Shift>,
        &ChartTheme,
    ) -> Result<ChartGeometry, DrawError<EitherBackend<SVGBackend<'b>, B>>>,
{
    if width == 0 || height == 0 {
        return Err(format!("invalid SVG size {width}×{height}"));
    }
    let size = (width.min(MAX_SVG_SIDE), height.min(MAX_SVG_SIDE));
    let mut theme = theme.clone();
    theme.font_size_factor = SVG_FONT_FACTOR;
    let mut buf = String::new();
    let geometry = {
        let root = EitherBackend::Left(SVGBackend::with_string(&mut buf, size)).into_drawing_area();
        f(root, &theme).map_err(|e| e.to_string())?
    };
    Ok((buf, geometry))
}
