//! Field specs: what each field of an operation kind is (key, label, type, range, help), the
//! constructors kinds declare them with, and `op_fields!`, the declarative list a kind's
//! field access is generated from.

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

/// The field access `op_fields!` generates: a kind's (inside its `OpBehavior`) or a group of
/// fields several kinds share (the architecture's, [`ArchFields`](crate::arch::ArchFields)).
pub(crate) trait FieldAccess {
    /// The fields, in form order.
    fn fields(&self) -> &'static [FieldSpec];
    /// A field's text; `None` for an unknown key.
    fn get(&self, key: &str) -> Option<String>;
    /// Sets a field from text.
    fn set_field(&mut self, spec: &FieldSpec, text: &str) -> Result<(), Error>;
    /// A numeric field's value.
    fn get_num(&self, key: &str) -> Option<f64>;
    /// Sets a numeric field; `false` when the key is not a numeric field.
    fn set_num_raw(&mut self, key: &str, x: f64) -> bool;
}

/// A kind's fields with a shared group spliced in: `before`, then the group's specs with
/// the defaults of the kind's default value (`shared`: its group, so `train`'s `layers`
/// defaults to its LLaMA-3 70B's 80 where `llm`'s defaults to 32), then `after`. Built once
/// per kind (a default that differs from the group's is kept for the process).
pub(crate) fn splice(
    before: &[FieldSpec],
    shared: &dyn FieldAccess,
    after: &[FieldSpec],
) -> Vec<FieldSpec> {
    let group = shared.fields().iter().map(|f| {
        let default = match shared.get(f.key) {
            Some(t) if t != f.default => &*Box::leak(t.into_boxed_str()),
            _ => f.default,
        };
        FieldSpec {
            default,
            ..f.clone()
        }
    });
    before
        .iter()
        .cloned()
        .chain(group)
        .chain(after.iter().cloned())
        .collect()
}

/// Generates a kind's field specs and field access from one declarative list, one line per
/// field in form order: `"key" => access(...): constructor(spec args after the key)`, then
/// what the form needs of it, if anything: `.slider(SIZES)`, `.unit(Unit::Bytes)`, `.folds()`.
///
/// Accesses (`self.f` is the struct field `f`):
///
/// * `num(f)`: an `f64`, read and written as a number (swept, solved);
/// * `dtype(f)`: a [`DType`];
/// * `opt_dtype(f)`: an `Option<DType>`, `None` written as the spec's none word (`auto`);
/// * `choice(f)`: an `id_enum!` enum, by its id;
/// * `yes_no(f)`: a `bool`, as the choice `yes` / `no`;
/// * `derived(get, set)`: text from the method `self.get()`, written by `self.set(spec,
///   text)` (a preset derived from other fields);
/// * `opt_num(get, set, clear, i)`: an optional number read by `self.get(i)`, written by
///   `self.set(i, x)`, cleared by `self.clear()` on the none word (tiles).
/// * `cfg("key")`: a field of a nested config with its own text access (`train`): text from
///   `self.cfg_text("key")`, written by `self.cfg_set(spec, text)`; numbers (numeric specs
///   only) from `self.cfg_num("key")`, written by `self.cfg_set_num("key", x)`.
///
/// It expands to the `OpBehavior` methods `fields`, `get`, `set_field`, `get_num` and
/// `set_num_raw`, inside the kind's `impl OpBehavior` (or a [`FieldAccess`] impl).
///
/// A kind that takes an architecture splices the architecture's fields (declared once, in
/// [`ArchFields`](crate::arch::ArchFields)) into its list with a line `; arch;` between two
/// groups of its own entries: they are read through the kind's `self.arch_fields()` (an
/// `&ArchFields`) and written through `self.set_arch_field(spec, text)` and
/// `self.set_arch_num(key, x)`, their defaults those of the kind's `Default`; the kind then
/// says it takes an architecture (`takes_arch`), which `self.set_arch(a)` sets whole
/// (`apply_arch`: a pasted `config.json`; the kind's module imports `Arch`).
macro_rules! op_fields {
    ($($key:literal => $how:ident($($arg:tt)*) : $ctor:ident($($spec:expr),* $(,)?) $(.$form:ident($($farg:expr),*))*),+ ;
     arch ;
     $($key2:literal => $how2:ident($($arg2:tt)*) : $ctor2:ident($($spec2:expr),* $(,)?) $(.$form2:ident($($farg2:expr),*))*),* $(,)?) => {
        fn fields(&self) -> &'static [$crate::field::FieldSpec] {
            static BEFORE: [$crate::field::FieldSpec; [$($key),+].len()] =
                [$($ctor($key, $($spec),*)$(.$form($($farg),*))*),+];
            static AFTER: [$crate::field::FieldSpec; <[&str]>::len(&[$($key2),*])] =
                [$($ctor2($key2, $($spec2),*)$(.$form2($($farg2),*))*),*];
            static ALL: std::sync::OnceLock<Vec<$crate::field::FieldSpec>> =
                std::sync::OnceLock::new();
            ALL.get_or_init(|| {
                let d = <Self as Default>::default();
                $crate::field::splice(&BEFORE, d.arch_fields(), &AFTER)
            })
        }
        fn get(&self, key: &str) -> Option<String> {
            match key {
                $($key => Some(op_fields!(@get self, $key, $how($($arg)*))),)+
                $($key2 => Some(op_fields!(@get self, $key2, $how2($($arg2)*))),)*
                _ => $crate::field::FieldAccess::get(self.arch_fields(), key),
            }
        }
        fn set_field(
            &mut self,
            spec: &$crate::field::FieldSpec,
            text: &str,
        ) -> Result<(), $crate::error::Error> {
            match spec.key {
                $($key => op_fields!(@set self, spec, text, $how($($arg)*)),)+
                $($key2 => op_fields!(@set self, spec, text, $how2($($arg2)*)),)*
                _ => self.set_arch_field(spec, text)?,
            }
            Ok(())
        }
        #[allow(unreachable_patterns)]
        fn get_num(&self, key: &str) -> Option<f64> {
            match key {
                $($key => op_fields!(@get_num self, $how($($arg)*)),)+
                $($key2 => op_fields!(@get_num self, $how2($($arg2)*)),)*
                _ => $crate::field::FieldAccess::get_num(self.arch_fields(), key),
            }
        }
        #[allow(unreachable_patterns)]
        fn set_num_raw(&mut self, key: &str, x: f64) -> bool {
            match key {
                $($key => op_fields!(@set_num self, x, $how($($arg)*)),)+
                $($key2 => op_fields!(@set_num self, x, $how2($($arg2)*)),)*
                _ => self.set_arch_num(key, x),
            }
        }
        fn takes_arch(&self) -> bool {
            true
        }
        // `Arch` as the kind's module names it (`field` sits below `arch`).
        fn apply_arch(&mut self, a: &Arch) {
            self.set_arch(a)
        }
    };

    ($($key:literal => $how:ident($($arg:tt)*) : $ctor:ident($($spec:expr),* $(,)?) $(.$form:ident($($farg:expr),*))*),+ $(,)?) => {
        fn fields(&self) -> &'static [$crate::field::FieldSpec] {
            static FIELDS: [$crate::field::FieldSpec; [$($key),+].len()] =
                [$($ctor($key, $($spec),*)$(.$form($($farg),*))*),+];
            &FIELDS
        }
        fn get(&self, key: &str) -> Option<String> {
            match key {
                $($key => Some(op_fields!(@get self, $key, $how($($arg)*))),)+
                _ => None,
            }
        }
        fn set_field(
            &mut self,
            spec: &$crate::field::FieldSpec,
            text: &str,
        ) -> Result<(), $crate::error::Error> {
            match spec.key {
                $($key => op_fields!(@set self, spec, text, $how($($arg)*)),)+
                _ => {}
            }
            Ok(())
        }
        #[allow(unreachable_patterns)]
        fn get_num(&self, key: &str) -> Option<f64> {
            match key {
                $($key => op_fields!(@get_num self, $how($($arg)*)),)+
                _ => None,
            }
        }
        #[allow(unreachable_patterns)]
        fn set_num_raw(&mut self, key: &str, x: f64) -> bool {
            match key {
                $($key => op_fields!(@set_num self, x, $how($($arg)*)),)+
                _ => false,
            }
        }
    };

    (@get $s:ident, $k:literal, num($f:ident)) => { $crate::units::format_exact($s.$f) };
    (@get $s:ident, $k:literal, dtype($f:ident)) => { $s.$f.as_str().to_string() };
    (@get $s:ident, $k:literal, choice($f:ident)) => { $s.$f.as_str().to_string() };
    (@get $s:ident, $k:literal, yes_no($f:ident)) => { (if $s.$f { "yes" } else { "no" }).to_string() };
    (@get $s:ident, $k:literal, derived($g:ident, $set:ident)) => { $s.$g().to_string() };
    (@get $s:ident, $k:literal, cfg($f:literal)) => { $s.cfg_text($f) };
    (@get $s:ident, $k:literal, opt_dtype($f:ident)) => {
        $s.$f
            .map_or($crate::field::none_word($s.fields(), $k), |t| t.as_str())
            .to_string()
    };
    (@get $s:ident, $k:literal, opt_num($g:ident, $set:ident, $clear:ident, $i:expr)) => {
        $s.$g($i)
            .map_or_else(|| $crate::field::none_word($s.fields(), $k).to_string(), $crate::units::format_exact)
    };

    (@set $s:ident, $spec:ident, $t:ident, num($f:ident)) => { $s.$f = $spec.parse_num($t)? };
    (@set $s:ident, $spec:ident, $t:ident, dtype($f:ident)) => { $s.$f = $spec.parse_dtype($t)? };
    (@set $s:ident, $spec:ident, $t:ident, choice($f:ident)) => {
        $s.$f = $crate::ids::IdEnum::from_id($t)
            .ok_or_else(|| $crate::error::Error::invalid($spec.key, $t.trim(), $spec.reason()))?
    };
    (@set $s:ident, $spec:ident, $t:ident, yes_no($f:ident)) => {
        $s.$f = $crate::field::parse_choice($spec, $t)? == 0
    };
    (@set $s:ident, $spec:ident, $t:ident, derived($g:ident, $set:ident)) => { $s.$set($spec, $t)? };
    (@set $s:ident, $spec:ident, $t:ident, cfg($f:literal)) => { $s.cfg_set($spec, $t)? };
    (@set $s:ident, $spec:ident, $t:ident, opt_dtype($f:ident)) => {
        $s.$f = if $crate::field::is_none_word($spec, $t, &[]) {
            None
        } else {
            Some($spec.parse_dtype($t)?)
        }
    };
    (@set $s:ident, $spec:ident, $t:ident, opt_num($g:ident, $set:ident, $clear:ident, $i:expr)) => {
        if $crate::field::is_none_word($spec, $t, &["none"]) {
            $s.$clear()
        } else {
            $s.$set($i, $spec.parse_num($t)?)
        }
    };

    (@get_num $s:ident, num($f:ident)) => { Some($s.$f) };
    (@get_num $s:ident, opt_num($g:ident, $set:ident, $clear:ident, $i:expr)) => { $s.$g($i) };
    (@get_num $s:ident, cfg($f:literal)) => { $s.cfg_num($f) };
    (@get_num $s:ident, $how:ident($($a:tt)*)) => { None };

    (@set_num $s:ident, $x:ident, num($f:ident)) => {{ $s.$f = $x; true }};
    (@set_num $s:ident, $x:ident, opt_num($g:ident, $set:ident, $clear:ident, $i:expr)) => {{
        $s.$set($i, $x);
        true
    }};
    (@set_num $s:ident, $x:ident, cfg($f:literal)) => { $s.cfg_set_num($f, $x) };
    (@set_num $s:ident, $x:ident, $how:ident($($a:tt)*)) => { false };
}
