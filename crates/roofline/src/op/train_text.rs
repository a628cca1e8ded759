//! Text access to the `train` op's fields, behind its `op_fields!` list (the one declaration
//! of its fields: key, label, type, range, help): [`Train::cfg_text`] writes a field of the
//! [`TrainConfig`] as text that [`Train::cfg_set`] reads back to the same op. Numbers take SI
//! suffixes (`4M` tokens); an optional field takes `none` (or empty text). A refused text
//! leaves the op unchanged and its error names the field (`tp=0: must be a whole number from
//! 1 to 1e9`). Constraints between fields (`ep` dividing the experts, ...) are checked by
//! [`TrainConfig::validate`], so a link's fields may arrive in any order.

use super::train::Train;
use crate::collective::check;
use crate::dtype::DType;
use crate::error::Error;
use crate::field::{parse_choice, FieldSpec, FieldType};
use crate::train::{TrainConfig, MAX_PRICE};
use crate::units::{format_exact, parse_quantity};

fn field_err(key: &str, text: &str, reason: impl Into<String>) -> Error {
    Error::invalid(key, text.trim(), reason)
}

fn is_none(text: &str) -> bool {
    let t = text.trim();
    t.is_empty() || t.eq_ignore_ascii_case("none") || t.eq_ignore_ascii_case("off")
}

/// A number for field `key` (SI suffixes read), checked against `min..=max`, whole when
/// `integer`; `-0` reads as `0`.
fn number(key: &str, text: &str, min: f64, max: f64, integer: bool) -> Result<f64, Error> {
    let x = parse_quantity(text).map_err(|e| match e {
        Error::Parse { reason, .. } => field_err(key, text, reason),
        other => other,
    })?;
    let what = if integer {
        "a whole number"
    } else {
        "a number"
    };
    let x = check(key, x, min, max, integer, what)?;
    Ok(if x == 0.0 { 0.0 } else { x })
}

fn yn(b: bool) -> String {
    if b { "yes" } else { "no" }.into()
}

/// The config's text of field `key` (`""` for a key the op does not have).
pub(super) fn text_of(c: &TrainConfig, key: &str) -> String {
    let n = format_exact;
    let o = |x: Option<f64>| x.map_or("none".into(), format_exact);
    match key {
        "batch" => n(c.batch),
        "seq" => n(c.seq),
        "dp" => n(c.mesh.dp),
        "fsdp" => n(c.mesh.fsdp),
        "tp" => n(c.mesh.tp),
        "pp" => n(c.mesh.pp),
        "mb" => n(c.mesh.microbatches),
        "ep" => n(c.mesh.ep),
        "remat" => c.remat.id(),
        "opt" => c.optimizer.as_str().into(),
        "sched" => c.schedule.as_str().into(),
        "zero1" => yn(c.zero1),
        "causal" => yn(c.causal),
        "mlp_only" => yn(c.mlp_only),
        "param" => c.precision.param.as_str().into(),
        "act" => c.precision.compute.as_str().into(),
        "grad" => c.precision.grad.as_str().into(),
        "master" => c.precision.master.map_or("none", |d| d.as_str()).into(),
        "opt_dtype" => c.precision.optimizer.as_str().into(),
        "mx" => n(c.axes.mx),
        "my" => n(c.axes.my),
        "mz" => n(c.axes.mz),
        "tokens" => o(c.tokens),
        "mfu" => o(c.mfu),
        "price" => o(c.price),
        _ => String::new(),
    }
}

/// Sets a numeric field of the config (`None`: an optional field's `none`).
fn set_number(c: &mut TrainConfig, key: &str, x: Option<f64>) {
    let v = x.unwrap_or(0.0);
    match key {
        "batch" => c.batch = v,
        "seq" => c.seq = v,
        "dp" => c.mesh.dp = v,
        "fsdp" => c.mesh.fsdp = v,
        "tp" => c.mesh.tp = v,
        "pp" => c.mesh.pp = v,
        "mb" => c.mesh.microbatches = v,
        "ep" => c.mesh.ep = v,
        "mx" => c.axes.mx = v,
        "my" => c.axes.my = v,
        "mz" => c.axes.mz = v,
        "tokens" => c.tokens = x,
        "mfu" => c.mfu = x,
        "price" => c.price = x,
        _ => {}
    }
}

/// Sets a choice field (its text one of the spec's ids).
fn set_choice(c: &mut TrainConfig, spec: &FieldSpec, text: &str) -> Result<(), Error> {
    let FieldType::Choice(ids) = spec.ty else {
        return Ok(());
    };
    let id = ids[parse_choice(spec, text)?];
    let yes = id == "yes";
    match spec.key {
        "zero1" => c.zero1 = yes,
        "causal" => c.causal = yes,
        "mlp_only" => c.mlp_only = yes,
        "opt" => c.optimizer = id.parse().unwrap_or(c.optimizer),
        "sched" => c.schedule = id.parse().unwrap_or(c.schedule),
        _ => {}
    }
    Ok(())
}

/// Sets a dtype field (`master` also takes `none`).
fn set_dtype(c: &mut TrainConfig, spec: &FieldSpec, text: &str) -> Result<(), Error> {
    let key = spec.key;
    let d = if spec.none.is_some() && is_none(text) {
        None
    } else {
        Some(text.parse::<DType>().map_err(|_| {
            field_err(
                key,
                text,
                "must be a dtype: fp32, tf32, bf16, fp16, fp8, fp8e5m2, int8, int4 or fp4",
            )
        })?)
    };
    let p = &mut c.precision;
    match (key, d) {
        ("master", d) => p.master = d,
        (_, None) => return Err(field_err(key, text, "must be a dtype")),
        ("param", Some(d)) => p.param = d,
        ("act", Some(d)) => p.compute = d,
        ("grad", Some(d)) => p.grad = d,
        (_, Some(d)) => p.optimizer = d,
    }
    Ok(())
}

/// Sets field `spec.key` of `c` from text; on an error `c` may be partly changed (the
/// caller edits a copy).
pub(super) fn set_text(c: &mut TrainConfig, spec: &FieldSpec, text: &str) -> Result<(), Error> {
    let key = spec.key;
    match (spec.ty, key) {
        (FieldType::Integer | FieldType::Number, _) => {
            let x = if spec.none.is_some() && is_none(text) {
                None
            } else {
                let integer = spec.ty == FieldType::Integer;
                Some(number(key, text, spec.min, spec.max, integer)?)
            };
            set_number(c, key, x);
        }
        (FieldType::Choice(_), _) => set_choice(c, spec, text)?,
        (FieldType::DType, _) => set_dtype(c, spec, text)?,
        (FieldType::Text, "price") => {
            let x = if is_none(text) {
                None
            } else {
                Some(number(key, text, 0.0, MAX_PRICE, false)?)
            };
            set_number(c, key, x);
        }
        (FieldType::Text, _) => {
            c.remat = text.parse().map_err(|_| {
                field_err(
                    key,
                    text,
                    "must be none, block, matmuls, mlp or a number of checkpoints per layer above 0 and at most 1000",
                )
            })?;
        }
    }
    Ok(())
}

impl Train {
    /// The text of field `key`.
    pub(super) fn cfg_text(&self, key: &str) -> String {
        text_of(&self.config, key)
    }

    /// Sets a field from text; a refused text leaves the op unchanged.
    pub(super) fn cfg_set(&mut self, spec: &FieldSpec, text: &str) -> Result<(), Error> {
        let mut c = (*self.config).clone();
        set_text(&mut c, spec, text)?;
        *self.config = c;
        Ok(())
    }

    /// A numeric field's value (`None` for the others, and for an unset budget).
    pub(super) fn cfg_num(&self, key: &str) -> Option<f64> {
        self.numeric(key)?;
        self.cfg_text(key).parse().ok()
    }

    /// Sets a numeric field (sweeps); a value the field refuses leaves the op unchanged.
    pub(super) fn cfg_set_num(&mut self, key: &str, x: f64) -> bool {
        match self.numeric(key) {
            Some(spec) => self.cfg_set(spec, &format_exact(x)).is_ok(),
            None => false,
        }
    }
}
