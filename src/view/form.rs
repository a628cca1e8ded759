//! How the forms arrange fields: which fold behind "more fields" (issue 17: empty chip fields,
//! tiles, the sharding fields of an unsharded matmul, an LLM's architecture when a preset gives
//! it), and whether the fold starts open.

use roofline::inputs::Op;
use roofline::inputs::{Chip, ChipField};
use roofline::inputs::{FieldSpec, SliderScale};

/// Whether an operation's "more fields" should be open: when one of them is set away from what
/// the op's own preset gives (a link that sets tiles, a draft model or an optimizer shows them;
/// an architecture a preset sets does not), or the op is sharded (its split, link and topology
/// then matter).
pub fn op_more_open(op: &Op) -> bool {
    let Ok(mut base) = Op::default_for(op.kind_id()) else {
        return false;
    };
    if let Some(p) = op
        .get("preset")
        .filter(|p| !p.is_empty() && p != "none" && p != "custom")
    {
        // What the preset sets is not the user's change.
        let _ = base.set("preset", &p);
    }
    if op.get_num("shards").is_some_and(|n| n > 1.0) {
        return true;
    }
    op.fields()
        .iter()
        .filter(|f| f.folds)
        .any(|f| op.get(f.key) != base.get(f.key))
}

/// Whether a chip field folds behind "more": a field the chip does not have (a TPU's fp8 or
/// PCIe), unless every chip must have it.
pub fn is_folded_chip_field(chip: &Chip, f: ChipField) -> bool {
    f != ChipField::Name && !f.is_required() && chip.get(f).is_none()
}

/// A slider beside a numeric field (issue 17, "Explore by dragging"): its range, on a log
/// scale where the quantity spans decades, snapping to powers of two for sizes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Slider {
    /// The smallest value.
    pub min: f64,
    /// The largest value.
    pub max: f64,
    /// Positions are spread over `ln(value)`.
    pub log: bool,
    /// Values snap to powers of two (sizes, chip counts).
    pub pow2: bool,
}

/// How many positions the range input has.
pub const SLIDER_STEPS: f64 = 1000.0;

impl Slider {
    const fn sizes(max: f64) -> Slider {
        Slider {
            min: 1.0,
            max,
            log: true,
            pow2: true,
        }
    }

    const fn decades(min: f64, max: f64) -> Slider {
        Slider {
            min,
            max,
            log: true,
            pow2: false,
        }
    }

    /// The value at position `pos` (0 to [`SLIDER_STEPS`]).
    pub fn value_at(&self, pos: f64) -> f64 {
        let t = (pos / SLIDER_STEPS).clamp(0.0, 1.0);
        let v = if self.log {
            (self.min.ln() + t * (self.max.ln() - self.min.ln())).exp()
        } else {
            self.min + t * (self.max - self.min)
        };
        self.snap(v)
    }

    /// The position of value `v` (clamped to the range).
    pub fn position_of(&self, v: f64) -> f64 {
        if !v.is_finite() {
            return 0.0;
        }
        let v = v.clamp(self.min, self.max);
        let t = if self.log {
            (v.ln() - self.min.ln()) / (self.max.ln() - self.min.ln())
        } else {
            (v - self.min) / (self.max - self.min)
        };
        (t * SLIDER_STEPS).round()
    }

    /// Powers of two for sizes; otherwise three significant digits, so that a dragged value
    /// reads cleanly (`1.97e14`, not `1.9712345e14`).
    fn snap(&self, v: f64) -> f64 {
        let v = if self.pow2 {
            2f64.powi(v.log2().round() as i32)
        } else {
            let e = 10f64.powi(v.abs().log10().floor() as i32 - 2);
            (v / e).round() * e
        };
        v.clamp(self.min, self.max)
    }

    /// The value a key moves `v` to: arrows step to the next power of two (sizes) or by a
    /// 100th of the range; Page Up/Down double and halve.
    pub fn step(&self, v: f64, up: bool, page: bool) -> f64 {
        let next = if page {
            if up {
                v * 2.0
            } else {
                v / 2.0
            }
        } else if self.pow2 {
            let p = 2f64.powi(v.log2().floor() as i32);
            match (up, p == v) {
                (true, _) => p * 2.0,
                (false, true) => p / 2.0,
                (false, false) => p,
            }
        } else {
            let pos = self.position_of(v) + if up { 10.0 } else { -10.0 };
            self.value_at(pos)
        };
        next.clamp(self.min, self.max)
    }
}

/// The slider of an operation's field, as its spec declares it (sizes and sequence lengths
/// in powers of two up to 2^20, chip counts up to 1,024, a dot product's N over its whole
/// range, array sizes from 1 B to 1 TB); `None` for a field without one or not numeric.
pub fn op_slider(spec: &FieldSpec) -> Option<Slider> {
    if !spec.is_numeric() {
        return None;
    }
    Some(match spec.slider? {
        SliderScale::Pow2 { max } => Slider::sizes(max),
        SliderScale::Decades { min, max } => Slider::decades(min, max),
    })
}

/// The slider of a chip field: peaks from 1 TFLOP/s to 10 PFLOP/s, bandwidths from 1 GB/s to
/// 100 TB/s.
pub fn chip_slider(f: ChipField) -> Option<Slider> {
    use roofline::units::Unit;
    match f.unit() {
        Some(Unit::FlopRate) => Some(Slider::decades(1e12, 1e16)),
        Some(Unit::ByteRate) => Some(Slider::decades(1e9, 1e14)),
        _ => None,
    }
}

/// The range a sweep of field `spec` starts from when the field is chosen (issue 24, point 4:
/// switching the swept field kept the old range, 1..511 bytes for an array size): its slider's
/// range, else two decades either side of the value it has now, within the field's own range and
/// the sweep's 12 decades; sampled log-spaced, as every such range spans decades. `(from, to,
/// log)`.
pub fn sweep_range_for(spec: &FieldSpec, now: Option<f64>) -> (f64, f64) {
    let (lo, hi) = match spec.slider {
        Some(SliderScale::Pow2 { max }) => (1.0, max),
        Some(SliderScale::Decades { min, max }) => (min, max),
        None => match now.filter(|v| v.is_finite() && *v > 0.0) {
            Some(v) => (v / 100.0, v * 100.0),
            None => (1.0, 1000.0),
        },
    };
    let lo = lo.max(spec.min).max(f64::MIN_POSITIVE);
    let hi = hi.min(spec.max);
    // At most 12 decades, keeping the top (the sizes people reach for are the large ones).
    let lo = lo.max(hi / 1e12);
    if lo < hi {
        (lo, hi)
    } else {
        (spec.min.max(1.0), spec.max.max(spec.min.max(1.0) * 10.0))
    }
}

/// Keeps the sweep on a field the operations have (issue 38, point 2: an operation switched to
/// a collective left the sweep on `b`, and the plot said "Nothing to plot"): when no operation
/// has the swept field as a number (and no training step's plot stands in for the sweep), the
/// sweep moves to the first numeric field of the first operation that has one, over [`sweep_range_for`]'s range, sampled log-spaced on a log x axis
/// where that range spans two decades or more. `true` when it moved.
pub fn keep_sweep_on_a_field(s: &mut roofline::inputs::Scenario) -> bool {
    let has = |o: &Op| o.field(&s.sweep.field).is_some_and(FieldSpec::is_numeric);
    // A training step's plot stands in for the sweep when no operation has the swept field.
    if s.ops.iter().any(has) || s.ops.iter().any(|o| o.traits().train_plot) {
        return false;
    }
    let Some((op, spec)) = s
        .ops
        .iter()
        .find_map(|o| o.fields().iter().find(|f| f.is_numeric()).map(|f| (o, f)))
    else {
        return false;
    };
    let (from, to) = sweep_range_for(spec, op.get_num(spec.key));
    let log = to / from >= 100.0;
    s.sweep.field = spec.key.to_string();
    s.sweep.from = from;
    s.sweep.to = to;
    s.sweep.log = log;
    s.axes.log_x = log;
    true
}
