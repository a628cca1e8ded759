//! Backend-independent drawing helpers shared by both charts, one file per concern: the
//! [`painter`] (pixel-space primitives), [`clip`] (clipping, dashes), [`occupancy`] (label
//! placement), [`axes`], the [`legend`] and the chart [`frame`] (begin, finish, shared markers).

use plotters::drawing::DrawingAreaErrorKind;
use plotters::prelude::DrawingBackend;

/// Error type of every `draw` function: plotters' drawing-area error for the
/// backend in use.
pub type DrawError<DB> = DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>;
pub(crate) type DrawResult<T, DB> = Result<T, DrawError<DB>>;

pub(crate) type Pt = (f64, f64);

// Font sizes in CSS pixels at scale 1 (tuned for a ~800×450 canvas).
pub(crate) const TITLE_SIZE: f64 = 15.0;
pub(crate) const AXIS_TITLE_SIZE: f64 = 13.0;
pub(crate) const TICK_SIZE: f64 = 11.5;
pub(crate) const LEGEND_SIZE: f64 = 11.5;
pub(crate) const ANNOT_SIZE: f64 = 11.0;

mod axes;
mod clip;
mod frame;
mod legend;
mod occupancy;
mod painter;

pub(crate) use axes::{draw_axes_under, Axes, AxisTitles};
pub(crate) use clip::{clip_polygon, clip_polyline, dash_polyline, simplify};
pub(crate) use frame::{annotate_best, begin_chart, drop_guides, finish_chart, ring_marker};
pub(crate) use legend::{LegendEntry, Swatch};
pub(crate) use occupancy::{best_rect, place_label, Occupancy, Side};
pub(crate) use painter::{rgba, Painter, Weight};
pub use painter::{set_text_measurer, TextMeasurer};

use axes::{draw_axes_over, draw_empty_message, layout_axes};
use legend::draw_legend;
