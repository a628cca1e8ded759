//! Operations and their generic field access (for forms, URLs and sweeps).
//!
//! An [`Op`] is an optional label plus an [`OpKind`]. Each kind is a plain struct (one file
//! each under `src/ops/`: [`Dot`], [`Elementwise`], [`Matmul`], [`Bmm`], [`Custom`]); all are
//! read and written generically through string keys:
//!
//! | kind | `kind_id()` | field keys |
//! | --- | --- | --- |
//! | dot product | `dot` | `n t` |
//! | elementwise | `elementwise` | `n flops inputs t` |
//! | matmul | `matmul` | `b d f x w out compute shards split link from bm bk bn` |
//! | per-example weights | `bmm` | `b d f x w out` |
//! | custom | `custom` | `flops bytes t` |
//! | transformer workload | `llm` | `preset b ctx phase w x kv tp link layers dmodel ffn gated heads kv_heads head_dim vocab` |
//! | aggregate model | `model` | `preset b w flops params act` |
//!
//! `llm` is *composite*: it is analysed as a sum of core operations (see
//! [`crate::workload`]); its `preset` is derived from the architecture fields (`llama3-8b`
//! when they match that preset, else `custom`), so any order of `set` calls gives the same op.
//!
//! Values are text: numbers losslessly formatted by [`format_exact`], dtypes by their id,
//! choices by their id; optional fields use a "none word" (`compute=auto`, `bm=off`).
//!
//! Adding a kind: write a struct implementing the crate-private `OpModel` trait in a new file
//! under `ops/`, add a variant to [`OpKind`], one line to the `dispatch!` macro and to
//! [`OpKind::default_for`], and its id to [`OpKind::IDS`]. Nothing else matches on kinds:
//! analysis, critical-point solving, sweeps and derivations go through the trait (a composite
//! kind returns its parts from `OpModel::composite`).

use crate::analysis::{Core, Resource, Tiled};
use crate::chip::Chip;
use crate::dtype::DType;
use crate::error::Error;
pub use crate::ops::{
    llm_presets, model_presets, Bmm, Custom, Dot, Elementwise, Link, Llm, LlmPreset, Matmul, Model,
    ModelPreset, Phase, Split, WeightSource,
};
use crate::units::{format_exact, parse_quantity};
use serde::{Deserialize, Serialize};

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
}

impl FieldSpec {
    /// Whether the field takes a number (and can be swept).
    pub fn is_numeric(&self) -> bool {
        matches!(self.ty, FieldType::Number | FieldType::Integer)
    }

    /// Whether a number field takes 0 or values from 1 up (a real field whose minimum is 0:
    /// custom FLOPs, activation bytes). A fraction of one FLOP or byte is never meant, and a
    /// tiny positive value (`1e-306`) would make ratios such as `flops/act` infinite.
    fn zero_or_from_one(&self) -> bool {
        self.ty == FieldType::Number && self.min == 0.0
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

/// The behaviour each operation kind implements (crate-private; one struct per kind under
/// `ops/`).
pub(crate) trait OpModel {
    /// The kind id.
    fn id(&self) -> &'static str;
    /// Field specs, in form order.
    fn fields(&self) -> &'static [FieldSpec];
    /// A field as text (`None` for an unknown key). By default a dtype field's id, else the
    /// number ([`get_plain`]).
    fn get(&self, key: &str) -> Option<String> {
        get_plain(self, key)
    }
    /// Sets a field from text, validated. By default a dtype field by its id, else a number
    /// ([`set_plain`]).
    fn set(&mut self, key: &str, text: &str) -> Result<(), Error> {
        let spec = find_spec(self.fields(), key, self.id())?;
        set_plain(self, spec, text)
    }
    /// A dtype field's value (`None` for any other key).
    fn dtype_field(&self, _key: &str) -> Option<DType> {
        None
    }
    /// A dtype field, to set it (`None` for any other key).
    fn dtype_field_mut(&mut self, _key: &str) -> Option<&mut DType> {
        None
    }
    /// A numeric field's value.
    fn get_num(&self, key: &str) -> Option<f64>;
    /// Sets a numeric field without validation (sweeps, critical-point solving). Returns
    /// `false` if the key is not numeric.
    fn set_num_raw(&mut self, key: &str, x: f64) -> bool;
    /// Whether FLOPs and every resource's bytes are affine in this numeric field (all else
    /// fixed), so sweeps may interpolate exactly from two evaluations. `false` by default: a
    /// kind opts in per field.
    fn is_affine(&self, _key: &str) -> bool {
        false
    }
    /// Extra validation beyond per-field ranges (none by default).
    fn validate_extra(&self) -> Result<(), Error> {
        Ok(())
    }
    /// FLOPs (2 per MAC), peak, per-resource bytes. Errors only on missing chip values.
    fn core(&self, chip: &Chip) -> Result<Core, Error>;
    /// The dimension whose critical value is solved (`b` or `d`), if FLOPs and bytes are
    /// affine in it and it makes sense.
    fn critical_dim(&self) -> Option<&'static str> {
        None
    }
    /// Approximate critical value of `dim` from the binding resource's simple formula.
    fn approx_critical(&self, _binding: Resource, _peak_eff: f64, _bw: f64) -> Option<f64> {
        None
    }
    /// Approximate intensity against `binding` with its formula (`≈ B`), scaled by the FLOP
    /// convention factor `conv`.
    fn approx_intensity(&self, binding: Resource, conv: f64) -> Option<(f64, String)>;
    /// Tile-level figures, if tiles are set.
    fn tiled(&self, _conv: f64) -> Option<Tiled> {
        None
    }
    /// A one-line description of the operation with its values.
    fn describe(&self) -> String;
    /// Symbolic and substituted FLOPs formula (2 per MAC): (`2·B·D·F`, `2·136·4096·4096`).
    fn flops_formula(&self) -> (String, String);
    /// Symbolic and substituted bytes formula for one resource.
    fn bytes_formula(&self, resource: Resource) -> Option<(String, String)>;
    /// Extra derivation lines (where it runs, sharding, constant intensity...).
    fn notes(&self, _chip_name: &str, _out: &mut Vec<String>) {}
    /// The decomposition of a composite kind into core operations (`None` for a plain
    /// kind). Analysis, sweeps and derivations of a composite go through its parts.
    fn composite(&self) -> Option<crate::workload::Composite> {
        None
    }
}

/// Runs `$body` with `$o` bound to the struct inside any [`OpKind`] variant.
macro_rules! dispatch {
    ($self:expr, $o:ident => $body:expr) => {
        match $self {
            OpKind::Dot($o) => $body,
            OpKind::Elementwise($o) => $body,
            OpKind::Matmul($o) => $body,
            OpKind::Bmm($o) => $body,
            OpKind::Custom($o) => $body,
            OpKind::Llm($o) => $body,
            OpKind::Model($o) => $body,
        }
    };
}

/// What an operation computes. Serialised with an `op` tag: `{"op":"matmul","b":1,...}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum OpKind {
    /// `x·y: [N]·[N] → [1]` (see [`Dot`]).
    Dot(Dot),
    /// `f` FLOPs per element over `inputs` operands (see [`Elementwise`]).
    Elementwise(Elementwise),
    /// `X[B,D]·W[D,F] → Z[B,F]`, optionally sharded (see [`Matmul`]).
    Matmul(Matmul),
    /// Per-example weights `X[B,D]·W[B,D,F] → Z[B,F]` (see [`Bmm`]).
    Bmm(Bmm),
    /// Given FLOPs and bytes (see [`Custom`]).
    Custom(Custom),
    /// A transformer decode or prefill step, decomposed into core operations (see [`Llm`]).
    Llm(Llm),
    /// A whole model by its totals: FLOPs and activations per input, parameters (see
    /// [`Model`]).
    Model(Model),
}

impl OpKind {
    /// All kind ids.
    pub const IDS: [&'static str; 7] = [
        "dot",
        "elementwise",
        "matmul",
        "bmm",
        "custom",
        "llm",
        "model",
    ];

    /// The kind id: `dot`, `elementwise`, `matmul`, `bmm`, `custom`, `llm`, `model`.
    pub fn kind_id(&self) -> &'static str {
        dispatch!(self, o => o.id())
    }

    /// The default operation of a kind (matmul: B=1, D=F=4096, bf16 everywhere, 1 shard;
    /// dot: N=4096 bf16; llm: Llama-3 8B decode, B=1, ctx 2048, bf16, tp 1; model: ResNet-50,
    /// B=1, bf16; ...). Errors on an unknown id.
    pub fn default_for(kind_id: &str) -> Result<OpKind, Error> {
        Ok(match kind_id.trim() {
            "dot" => OpKind::Dot(Dot::default()),
            "elementwise" => OpKind::Elementwise(Elementwise::default()),
            "matmul" => OpKind::Matmul(Matmul::default()),
            "bmm" => OpKind::Bmm(Bmm::default()),
            "custom" => OpKind::Custom(Custom::default()),
            "llm" => OpKind::Llm(Llm::default()),
            "model" => OpKind::Model(Model::default()),
            other => return Err(Error::UnknownKind(other.to_string())),
        })
    }

    /// Field specs of this kind, in form order.
    pub fn fields(&self) -> &'static [FieldSpec] {
        dispatch!(self, o => o.fields())
    }

    /// Checks every field against its range (and kind-specific rules).
    pub fn validate(&self) -> Result<(), Error> {
        for spec in self.fields() {
            if spec.is_numeric() {
                if let Some(v) = self.get_num(spec.key) {
                    spec.check(v)?;
                }
            }
        }
        dispatch!(self, o => o.validate_extra())
    }

    /// A field as lossless text; `None` for an unknown key.
    pub fn get(&self, key: &str) -> Option<String> {
        dispatch!(self, o => o.get(key))
    }

    /// A numeric field's value; `None` for unknown or non-numeric keys and unset optional
    /// fields.
    pub fn get_num(&self, key: &str) -> Option<f64> {
        dispatch!(self, o => o.get_num(key))
    }

    /// Sets a field from text, parsed and validated; never panics.
    pub fn set(&mut self, key: &str, text: &str) -> Result<(), Error> {
        dispatch!(self, o => o.set(key, text))
    }

    pub(crate) fn set_num_raw(&mut self, key: &str, x: f64) -> bool {
        dispatch!(self, o => o.set_num_raw(key, x))
    }

    pub(crate) fn model(&self) -> &dyn OpModel {
        dispatch!(self, o => o as &dyn OpModel)
    }
}

/// An operation to analyse: an optional label (`D=F=4096`) and what it computes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Op {
    /// A user label; [`Op::title`] falls back to the description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The computation.
    pub kind: OpKind,
}

impl Op {
    /// An unlabelled operation.
    pub fn new(kind: OpKind) -> Op {
        Op { label: None, kind }
    }

    /// A labelled operation.
    pub fn labeled(label: &str, kind: OpKind) -> Op {
        Op {
            label: Some(label.to_string()),
            kind,
        }
    }

    /// The default operation of a kind id (see [`OpKind::default_for`]).
    pub fn default_for(kind_id: &str) -> Result<Op, Error> {
        OpKind::default_for(kind_id).map(Op::new)
    }

    /// A LayerNorm-like elementwise op on `n` bf16 elements with intensity 5 (the notes'
    /// table: "LayerNorm ~5"): 20 FLOPs per element, 1 input, 1 output, so intensity =
    /// 20 / ((1+1)·2) = 5.
    pub fn layernorm(n: f64) -> Op {
        Op::labeled(
            "LayerNorm",
            OpKind::Elementwise(Elementwise {
                n,
                flops: 20.0,
                inputs: 1.0,
                t: DType::Bf16,
            }),
        )
    }

    /// The kind id (`matmul`, ...).
    pub fn kind_id(&self) -> &'static str {
        self.kind.kind_id()
    }

    /// The label, or a description of the operation.
    pub fn title(&self) -> String {
        match &self.label {
            Some(l) if !l.trim().is_empty() => l.clone(),
            _ => self.kind.model().describe(),
        }
    }

    /// Field specs of this op's kind.
    pub fn fields(&self) -> &'static [FieldSpec] {
        self.kind.fields()
    }

    /// The spec of one field.
    pub fn field(&self, key: &str) -> Option<&'static FieldSpec> {
        self.fields().iter().find(|f| f.key == key)
    }

    /// A field as lossless text (`4096`, `1.97e14`, `bf16`, `auto`); `None` for an unknown
    /// key.
    pub fn get(&self, key: &str) -> Option<String> {
        self.kind.get(key)
    }

    /// A numeric field's value.
    pub fn get_num(&self, key: &str) -> Option<f64> {
        self.kind.get_num(key)
    }

    /// Sets a field from text; parses and validates; the error names the field and its
    /// allowed range. Never panics.
    pub fn set(&mut self, key: &str, text: &str) -> Result<(), Error> {
        self.kind.set(key, text)
    }

    /// Sets a numeric field, validated.
    pub fn set_num(&mut self, key: &str, v: f64) -> Result<(), Error> {
        let spec = find_spec(self.fields(), key, self.kind_id())?;
        if !spec.is_numeric() {
            return Err(Error::invalid(key, format_exact(v), spec.reason()));
        }
        let v = spec.check(v)?;
        self.kind.set_num_raw(key, v);
        Ok(())
    }

    /// Checks every field (see [`OpKind::validate`]).
    pub fn validate(&self) -> Result<(), Error> {
        self.kind.validate()
    }
}

/// A dtype or numeric field as text: the dtype's id, else the number losslessly formatted
/// (the default `OpModel::get`; kinds with other fields fall back to it).
pub(crate) fn get_plain<M: OpModel + ?Sized>(m: &M, key: &str) -> Option<String> {
    match m.dtype_field(key) {
        Some(t) => Some(t.as_str().into()),
        None => m.get_num(key).map(format_exact),
    }
}

/// Sets a dtype or numeric field from text, parsed and validated against `spec` (the default
/// `OpModel::set`; kinds with other fields fall back to it).
pub(crate) fn set_plain<M: OpModel + ?Sized>(
    m: &mut M,
    spec: &FieldSpec,
    text: &str,
) -> Result<(), Error> {
    if let Some(t) = m.dtype_field_mut(spec.key) {
        *t = spec.parse_dtype(text)?;
    } else {
        let v = spec.parse_num(text)?;
        m.set_num_raw(spec.key, v);
    }
    Ok(())
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
