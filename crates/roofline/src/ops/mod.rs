//! The operation kinds, one file each. See [`crate::op`] for the generic field access.

mod bmm;
mod custom;
mod dot;
mod elementwise;
mod llm;
mod matmul;
mod model;

pub use bmm::Bmm;
pub use custom::Custom;
pub use dot::Dot;
pub use elementwise::Elementwise;
pub use llm::{llm_presets, Llm, LlmPreset, Phase};
pub use matmul::{Link, Matmul, Split, WeightSource};
pub use model::{model_presets, Model, ModelPreset};

use crate::analysis::ExecUnit;
use crate::chip::Chip;
use crate::dtype::DType;
use crate::error::Error;
use crate::op::{FieldSpec, FieldType};
use crate::units::{format_exact, format_sig};

/// Largest size per dimension: 1e15 elements.
pub(crate) const MAX_DIM: f64 = 1e15;

/// A field with no range and no none word (the constructors below fill in the rest).
const fn field(
    key: &'static str,
    label: &'static str,
    ty: FieldType,
    default: &'static str,
    help: &'static str,
    what: &'static str,
) -> FieldSpec {
    FieldSpec {
        key,
        label,
        ty,
        default,
        help,
        what,
        min: 0.0,
        max: 0.0,
        none: None,
    }
}

/// A size field: an integer from 1 to 1e15.
pub(crate) const fn size(
    key: &'static str,
    label: &'static str,
    default: &'static str,
    help: &'static str,
) -> FieldSpec {
    FieldSpec {
        min: 1.0,
        max: MAX_DIM,
        ..field(
            key,
            label,
            FieldType::Integer,
            default,
            help,
            "a positive size",
        )
    }
}

/// A choice field.
pub(crate) const fn choice(
    key: &'static str,
    label: &'static str,
    ids: &'static [&'static str],
    default: &'static str,
    help: &'static str,
    what: &'static str,
) -> FieldSpec {
    field(key, label, FieldType::Choice(ids), default, help, what)
}

/// Parses a choice field: the index of `text` (trimmed, case-insensitive) in its ids.
pub(crate) fn parse_choice(spec: &FieldSpec, text: &str) -> Result<usize, Error> {
    let t = text.trim();
    match spec.ty {
        FieldType::Choice(ids) => ids
            .iter()
            .position(|id| id.eq_ignore_ascii_case(t))
            .ok_or_else(|| Error::invalid(spec.key, t, spec.reason())),
        _ => Err(Error::invalid(spec.key, t, spec.reason())),
    }
}

/// A dtype field.
pub(crate) const fn dtype(
    key: &'static str,
    label: &'static str,
    default: &'static str,
    help: &'static str,
) -> FieldSpec {
    field(key, label, FieldType::DType, default, help, "a dtype")
}

/// The vector unit if the chip has one, else the dtype's peak.
pub(crate) fn vector_or_peak(chip: &Chip, t: DType) -> Result<(ExecUnit, f64), Error> {
    match chip.vpu {
        Some(v) => Ok((ExecUnit::Vector, v)),
        None => Ok((ExecUnit::Peak(t.peak_key()), chip.peak(t)?)),
    }
}

/// `2·B` style: a coefficient glued to a variable (`B`, `2B`, `B/2`, `1.5·B`).
pub(crate) fn coef_str(c: f64, var: &str) -> String {
    if c == 1.0 {
        var.to_string()
    } else if c > 1.0 && c.fract() == 0.0 && c < 1e6 {
        format!("{}{var}", format_exact(c))
    } else if c > 0.0 && c < 1.0 && (1.0 / c).fract() == 0.0 && 1.0 / c < 1e6 {
        format!("{var}/{}", format_exact(1.0 / c))
    } else {
        format!("{}·{var}", format_sig(c, 3))
    }
}

/// A constant as a fraction when simple: `1/2`, `2`, `0.167`.
pub(crate) fn frac_str(v: f64) -> String {
    if v >= 1.0 && v.fract() == 0.0 {
        format_exact(v)
    } else if v > 0.0 && v < 1.0 && (1.0 / v).fract() == 0.0 && 1.0 / v < 1e6 {
        format!("1/{}", format_exact(1.0 / v))
    } else {
        format_sig(v, 3)
    }
}

/// A size as shown in formulas (`4096`, `0.5`).
pub(crate) fn n(x: f64) -> String {
    format_exact(x)
}
