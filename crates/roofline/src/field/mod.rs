//! Field specs: what each field of an operation kind is (key, label, type, range, help), the
//! constructors kinds declare them with, and `op_fields!` (`op_fields.rs`), the declarative
//! list a kind's field access is generated from.

#[macro_use]
mod op_fields;

pub(crate) use op_fields::{splice, FieldAccess};

use crate::dtype::DType;
use crate::error::Error;
use crate::units::{format_exact, parse_quantity, Unit};
use serde::Serialize;

/// Largest size per dimension: 1e15 elements.
pub(crate) const MAX_DIM: f64 = 1e15;

/// The type of an operation field, for building forms.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub enum FieldType {
    /// A real number (FLOPs per element, custom FLOPs/bytes).
    Number,
    /// A whole number (sizes, counts).
    Integer,
    /// A dtype id (`bf16`, `int8`, ...; see [`DType`]).
    DType,
    /// One of a fixed list of ids.
    Choice(&'static [&'static str]),
    /// Structured text read by the kind's own parser (torus axes `8nx16w`, cluster levels
    /// `8@450G/32@400G`); `what` says the format.
    Text,
}

/// Describes one field of an operation kind.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FieldSpec {
    /// The key (`b`, `d`, `compute`, ...).
    pub key: &'static str,
    /// A short label for forms.
    pub label: &'static str,
    /// The value type.
    pub ty: FieldType,
    /// The default value as text (as [`Op::get`] would return it).
    pub default: &'static str,
    /// A help sentence (with the formula the field enters).
    pub help: &'static str,
    /// What the field must be, for error messages (`a positive size`).
    pub what: &'static str,
    /// Smallest allowed value (numeric fields).
    pub min: f64,
    /// Largest allowed value (numeric fields).
    pub max: f64,
    /// The word that means "not set" for optional fields (`auto`, `off`), else `None`.
    pub none: Option<&'static str>,
    /// The slider a form puts beside the field, if it is a number people explore by dragging.
    pub slider: Option<SliderScale>,
    /// The unit the field is shown in (`33554432` bytes as `32 MiB`); `None` for plain numbers
    /// and counts.
    pub unit: Option<Unit>,
    /// Whether the field folds behind "more fields" (fields most people leave alone).
    pub folds: bool,
}

/// The scale of a field's slider: its range, on a log scale (every slider's quantities span
/// decades).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub enum SliderScale {
    /// Powers of two from 1 to `max` (sizes, chip counts).
    Pow2 {
        /// The largest value.
        max: f64,
    },
    /// Any value from `min` to `max`, spread over decades.
    Decades {
        /// The smallest value.
        min: f64,
        /// The largest value.
        max: f64,
    },
}

/// The slider of sizes and sequence lengths people explore: powers of two up to 2^20.
pub(crate) const SIZES: SliderScale = SliderScale::Pow2 { max: 1_048_576.0 };
/// The slider of chip counts and parallel degrees: powers of two up to 1,024.
pub(crate) const CHIPS: SliderScale = SliderScale::Pow2 { max: 1024.0 };
/// The slider of array sizes in bytes: 1 B to 1 TB.
pub(crate) const BYTES: SliderScale = SliderScale::Decades {
    min: 1.0,
    max: 1e12,
};

impl FieldSpec {
    /// Whether the field takes a number (and can be swept).
    pub fn is_numeric(&self) -> bool {
        matches!(self.ty, FieldType::Number | FieldType::Integer)
    }

    /// Whether a number field takes 0 or values from 1 up (a real field whose minimum is 0:
    /// custom FLOPs, activation bytes). A fraction of one FLOP or byte is never meant, and a
    /// tiny positive value (`1e-306`) would make ratios such as `flops/act` infinite. A field
    /// from 0 to at most 1 is a fraction (an acceptance rate) and takes any value between.
    fn zero_or_from_one(&self) -> bool {
        self.ty == FieldType::Number && self.min == 0.0 && self.max > 1.0
    }

    /// Checks a number against this field's range (finite, within `min..=max`, whole for
    /// integers; 0 or from 1 up for a real field whose minimum is 0). The error names the
    /// field and the range: `d=-5: must be a positive size (an integer from 1 to 1e15)`.
    /// Returns the value, `-0` as `0` (no range is negative, and a stored `-0` would show as
    /// `-0`).
    pub fn check(&self, v: f64) -> Result<f64, Error> {
        let integer = self.ty == FieldType::Integer;
        let ok = v.is_finite()
            && v >= self.min
            && v <= self.max
            && (!integer || v.fract() == 0.0)
            && !(self.zero_or_from_one() && v > 0.0 && v < 1.0);
        if ok {
            Ok(v + 0.0)
        } else {
            Err(Error::invalid(self.key, format_exact(v), self.reason()))
        }
    }

    /// The allowed range in words: `must be a positive size (an integer from 1 to 1e15)`.
    pub fn reason(&self) -> String {
        match self.ty {
            FieldType::Integer => format!(
                "must be {} (an integer from {} to {})",
                self.what,
                format_exact(self.min),
                format_exact(self.max)
            ),
            FieldType::Number if self.zero_or_from_one() => format!(
                "must be {} (0, or a number from 1 to {})",
                self.what,
                format_exact(self.max)
            ),
            FieldType::Number => format!(
                "must be {} (a number from {} to {})",
                self.what,
                format_exact(self.min),
                format_exact(self.max)
            ),
            FieldType::DType => {
                "must be a dtype: fp32 tf32 bf16 fp16 fp8 fp8e5m2 int8 int4 fp4".to_string()
            }
            FieldType::Choice(c) => format!("must be one of {}", c.join(", ")),
            FieldType::Text => format!("must be {}", self.what),
        }
    }

    /// Parses text for a numeric field (accepts `4k`, `1.97e14`, `16GiB`, ...) and checks
    /// the range.
    pub fn parse_num(&self, text: &str) -> Result<f64, Error> {
        let v = parse_quantity(text).map_err(|e| match e {
            Error::Parse { reason, .. } => Error::invalid(
                self.key,
                text.trim(),
                format!("{}; {}", reason, self.reason()),
            ),
            other => other,
        })?;
        self.check(v)
    }

    /// Parses a dtype id for a dtype field.
    pub fn parse_dtype(&self, text: &str) -> Result<DType, Error> {
        text.parse::<DType>()
            .map_err(|_| Error::invalid(self.key, text.trim(), self.reason()))
    }
}

/// A field spec with every part given (the constructors below fill in the rest).
#[allow(clippy::too_many_arguments)]
const fn spec(
    key: &'static str,
    label: &'static str,
    ty: FieldType,
    default: &'static str,
    help: &'static str,
    what: &'static str,
    (min, max): (f64, f64),
    none: Option<&'static str>,
) -> FieldSpec {
    FieldSpec {
        key,
        label,
        ty,
        default,
        help,
        what,
        min,
        max,
        none,
        slider: None,
        unit: None,
        folds: false,
    }
}

impl FieldSpec {
    /// The same field with a slider beside it.
    pub(crate) const fn slider(self, scale: SliderScale) -> FieldSpec {
        FieldSpec {
            slider: Some(scale),
            ..self
        }
    }

    /// The same field shown in `unit`.
    pub(crate) const fn unit(self, unit: Unit) -> FieldSpec {
        FieldSpec {
            unit: Some(unit),
            ..self
        }
    }

    /// The same field, folded behind "more fields".
    pub(crate) const fn folds(self) -> FieldSpec {
        FieldSpec {
            folds: true,
            ..self
        }
    }
}

/// A size field: an integer from 1 to 1e15 ("a positive size").
pub(crate) const fn size(
    key: &'static str,
    label: &'static str,
    default: &'static str,
    help: &'static str,
) -> FieldSpec {
    let what = "a positive size";
    spec(
        key,
        label,
        FieldType::Integer,
        default,
        help,
        what,
        (1.0, MAX_DIM),
        None,
    )
}

/// An integer field from `min` to `max`.
pub(crate) const fn integer(
    key: &'static str,
    label: &'static str,
    default: &'static str,
    range: (f64, f64),
    what: &'static str,
    help: &'static str,
) -> FieldSpec {
    spec(
        key,
        label,
        FieldType::Integer,
        default,
        help,
        what,
        range,
        None,
    )
}

/// An optional integer field from `min` to `max`; `none` (`off`) means not set.
pub(crate) const fn opt_integer(
    key: &'static str,
    label: &'static str,
    none: &'static str,
    range: (f64, f64),
    what: &'static str,
    help: &'static str,
) -> FieldSpec {
    spec(
        key,
        label,
        FieldType::Integer,
        none,
        help,
        what,
        range,
        Some(none),
    )
}

/// A real-number field from `min` to `max` (a minimum of 0 means 0, or from 1 up).
pub(crate) const fn number(
    key: &'static str,
    label: &'static str,
    default: &'static str,
    range: (f64, f64),
    what: &'static str,
    help: &'static str,
) -> FieldSpec {
    spec(
        key,
        label,
        FieldType::Number,
        default,
        help,
        what,
        range,
        None,
    )
}

/// A number field that also takes `none` (not set); `default` may be `none`.
pub(crate) const fn opt_number(
    key: &'static str,
    label: &'static str,
    default: &'static str,
    range: (f64, f64),
    what: &'static str,
    help: &'static str,
) -> FieldSpec {
    FieldSpec {
        none: Some("none"),
        ..number(key, label, default, range, what, help)
    }
}

/// A choice field: one of `ids`.
pub(crate) const fn choice(
    key: &'static str,
    label: &'static str,
    ids: &'static [&'static str],
    default: &'static str,
    help: &'static str,
    what: &'static str,
) -> FieldSpec {
    let ty = FieldType::Choice(ids);
    spec(key, label, ty, default, help, what, (0.0, 0.0), None)
}

/// A dtype field.
pub(crate) const fn dtype(
    key: &'static str,
    label: &'static str,
    default: &'static str,
    help: &'static str,
) -> FieldSpec {
    spec(
        key,
        label,
        FieldType::DType,
        default,
        help,
        "a dtype",
        (0.0, 0.0),
        None,
    )
}

/// An optional dtype field; `none` (`auto`) means not set.
pub(crate) const fn opt_dtype(
    key: &'static str,
    label: &'static str,
    none: &'static str,
    what: &'static str,
    help: &'static str,
) -> FieldSpec {
    spec(
        key,
        label,
        FieldType::DType,
        none,
        help,
        what,
        (0.0, 0.0),
        Some(none),
    )
}

/// A structured text field (read by the kind's parser through a `derived` access).
pub(crate) const fn text(
    key: &'static str,
    label: &'static str,
    default: &'static str,
    what: &'static str,
    help: &'static str,
) -> FieldSpec {
    spec(
        key,
        label,
        FieldType::Text,
        default,
        help,
        what,
        (0.0, 0.0),
        None,
    )
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

/// The none word of field `key` (`auto`, `off`), or `""`.
pub(crate) fn none_word(fields: &[FieldSpec], key: &str) -> &'static str {
    fields
        .iter()
        .find(|f| f.key == key)
        .and_then(|f| f.none)
        .unwrap_or("")
}

/// Whether `text` is empty or the field's none word (`off`, `auto`); `also` is accepted too.
pub(crate) fn is_none_word(spec: &FieldSpec, text: &str, also: &[&str]) -> bool {
    let t = text.trim();
    t.is_empty()
        || spec.none.is_some_and(|w| t.eq_ignore_ascii_case(w))
        || also.iter().any(|w| t.eq_ignore_ascii_case(w))
}

/// Finds a field spec or returns [`Error::UnknownField`].
pub(crate) fn find_spec(
    fields: &'static [FieldSpec],
    key: &str,
    kind: &str,
) -> Result<&'static FieldSpec, Error> {
    fields
        .iter()
        .find(|f| f.key == key)
        .ok_or_else(|| Error::UnknownField {
            field: key.chars().take(40).collect(),
            kind: kind.to_string(),
            expected: fields.iter().map(|f| f.key).collect::<Vec<_>>().join(", "),
        })
}
