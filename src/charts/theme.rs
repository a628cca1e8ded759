//! Colours, fonts and scale for the charts.

use plotters::style::{RGBAColor, RGBColor};

/// Okabe–Ito colour-blind-safe palette (Okabe & Ito, 2008), in the order used
/// for series on a light background.
pub const OKABE_ITO_LIGHT: [RGBColor; 8] = [
    RGBColor(0x00, 0x72, 0xB2), // blue
    RGBColor(0xD5, 0x5E, 0x00), // vermillion
    RGBColor(0x00, 0x9E, 0x73), // bluish green
    RGBColor(0xCC, 0x79, 0xA7), // reddish purple
    RGBColor(0xE6, 0x9F, 0x00), // orange
    RGBColor(0x56, 0xB4, 0xE9), // sky blue
    RGBColor(0x33, 0x33, 0x33), // black (softened)
    RGBColor(0xB8, 0xA8, 0x00), // yellow (darkened to stay visible on white)
];

/// The same palette reordered / lightened for a dark background.
pub const OKABE_ITO_DARK: [RGBColor; 8] = [
    RGBColor(0x56, 0xB4, 0xE9), // sky blue
    RGBColor(0xE6, 0x9F, 0x00), // orange
    RGBColor(0x1F, 0xC0, 0x93), // bluish green (lightened)
    RGBColor(0xE0, 0x8F, 0xBE), // reddish purple (lightened)
    RGBColor(0xF0, 0x7A, 0x2A), // vermillion (lightened)
    RGBColor(0xF0, 0xE4, 0x42), // yellow
    RGBColor(0xDD, 0xDD, 0xDD), // white-ish
    RGBColor(0x4A, 0x9A, 0xD8), // blue (lightened)
];

/// Everything that decides how a chart looks (but not what it shows).
#[derive(Debug, Clone, PartialEq)]
pub struct ChartTheme {
    /// Whole-canvas background.
    pub background: RGBColor,
    /// Background of the plot area (inside the axes frame).
    pub plot_background: RGBColor,
    /// Main text (title, axis titles).
    pub foreground: RGBColor,
    /// Secondary text (tick labels, annotations).
    pub muted: RGBColor,
    /// Axes frame and tick marks.
    pub frame: RGBColor,
    /// Major grid lines.
    pub grid: RGBColor,
    /// Minor grid lines (log axes).
    pub grid_minor: RGBColor,
    /// Series colours, indexed by `series_idx` modulo the length.
    pub palette: Vec<RGBColor>,
    /// Fill of the bandwidth-bound region of the roofline (translucent).
    pub bandwidth_region: RGBAColor,
    /// Fill of the compute-bound region of the roofline (translucent).
    pub compute_region: RGBAColor,
    /// Text colour of the "bandwidth-bound" region label.
    pub bandwidth_region_text: RGBColor,
    /// Text colour of the "compute-bound" region label.
    pub compute_region_text: RGBColor,
    /// Legend box fill (translucent so data underneath stays visible).
    pub legend_background: RGBAColor,
    /// Legend box border.
    pub legend_border: RGBColor,
    /// CSS-style font family list, used by both canvas and SVG.
    pub font_family: String,
    /// Device pixel ratio: multiplies every font size, line width, margin
    /// and marker size. Use `window.devicePixelRatio` with a canvas whose
    /// backing store is `css size × scale`.
    pub scale: f64,
    /// Backend text-size correction. plotters' SVG backend writes
    /// `font-size = size / 1.24` whereas the canvas backend uses `size` px,
    /// so [`render_svg_with`](super::render_svg_with) sets this to 1.24.
    /// Leave it at 1.0 for the canvas backend.
    pub font_size_factor: f64,
}

const FONT_STACK: &str =
    "system-ui, -apple-system, Segoe UI, Roboto, Helvetica Neue, Arial, sans-serif";

impl ChartTheme {
    pub fn light() -> Self {
        Self {
            background: RGBColor(0xFF, 0xFF, 0xFF),
            plot_background: RGBColor(0xFF, 0xFF, 0xFF),
            foreground: RGBColor(0x1F, 0x23, 0x28),
            muted: RGBColor(0x4A, 0x50, 0x58),
            frame: RGBColor(0x5A, 0x60, 0x68),
            grid: RGBColor(0xE3, 0xE5, 0xE8),
            grid_minor: RGBColor(0xF2, 0xF3, 0xF5),
            palette: OKABE_ITO_LIGHT.to_vec(),
            bandwidth_region: RGBAColor(0xD5, 0x5E, 0x00, 0.075),
            compute_region: RGBAColor(0x00, 0x9E, 0x73, 0.085),
            bandwidth_region_text: RGBColor(0xB0, 0x4A, 0x00),
            compute_region_text: RGBColor(0x00, 0x7A, 0x58),
            legend_background: RGBAColor(0xFF, 0xFF, 0xFF, 0.88),
            legend_border: RGBColor(0xD0, 0xD3, 0xD8),
            font_family: FONT_STACK.to_string(),
            scale: 1.0,
            font_size_factor: 1.0,
        }
    }

    pub fn dark() -> Self {
        Self {
            background: RGBColor(0x16, 0x19, 0x1E),
            plot_background: RGBColor(0x16, 0x19, 0x1E),
            foreground: RGBColor(0xE6, 0xE8, 0xEB),
            muted: RGBColor(0xB4, 0xB9, 0xC0),
            frame: RGBColor(0x8A, 0x90, 0x98),
            grid: RGBColor(0x2E, 0x33, 0x3A),
            grid_minor: RGBColor(0x1F, 0x23, 0x28),
            palette: OKABE_ITO_DARK.to_vec(),
            bandwidth_region: RGBAColor(0xF0, 0x7A, 0x2A, 0.12),
            compute_region: RGBAColor(0x1F, 0xC0, 0x93, 0.11),
            bandwidth_region_text: RGBColor(0xF0, 0x9A, 0x5A),
            compute_region_text: RGBColor(0x4F, 0xD0, 0xA8),
            legend_background: RGBAColor(0x16, 0x19, 0x1E, 0.88),
            legend_border: RGBColor(0x3A, 0x40, 0x48),
            font_family: FONT_STACK.to_string(),
            scale: 1.0,
            font_size_factor: 1.0,
        }
    }

    /// Same theme with a different device pixel ratio (clamped to 0.25..=8).
    pub fn with_scale(mut self, scale: f64) -> Self {
        self.scale = sanitize_scale(scale);
        self
    }

    /// The dash of series `idx`: solid on the palette's first pass, then one dash pattern per
    /// further pass, so 32 series (8 colours × 4 patterns) each draw differently. `(on, off)`
    /// in CSS pixels.
    pub fn dash(&self, idx: usize) -> Option<(f64, f64)> {
        let pass = idx / self.palette.len().max(1);
        DASHES.get(pass % DASHES.len()).copied().flatten()
    }

    /// Colour of series `idx` (wraps around the palette).
    pub fn color(&self, idx: usize) -> RGBColor {
        if self.palette.is_empty() {
            self.foreground
        } else {
            self.palette[idx % self.palette.len()]
        }
    }
}

impl Default for ChartTheme {
    fn default() -> Self {
        Self::light()
    }
}

/// The palette's passes: solid, long dashes, dots, dash-dot-like long-short.
const DASHES: [Option<(f64, f64)>; 4] =
    [None, Some((7.0, 4.0)), Some((2.0, 3.0)), Some((12.0, 3.0))];

pub(crate) fn sanitize_scale(scale: f64) -> f64 {
    if scale.is_finite() {
        scale.clamp(0.25, 8.0)
    } else {
        1.0
    }
}
