//! The `llm` op's keys for serving tails and topologies (issue 42), as plain data: how long
//! requests are (`prompt_cv`, `output_cv`: lognormal lengths around `prompt` and `output`),
//! which random draws a simulation takes (`seed`), the share of requests a service level holds
//! (`slo_pct`, with `ttft_max` and `tpot_max`), disaggregated prefill and decode (`disagg`,
//! `p_tp p_ep d_tp d_ep d_chip`, `kv_link`), and a KV cache tier in host memory (`kv_host`,
//! `prefix_set`). Each key's default leaves a link without it meaning what it meant before
//! the key existed: fixed lengths, seed 1, 90 %, no disaggregation, no host tier. What they do
//! is in `crate::serving` (`sim`, `disagg`, `kv_tier`) and `docs/serving.md`.

use crate::error::Error;
use crate::field::{FieldSpec, FieldType};
use crate::units::{format_exact, parse_quantity};
use serde::{Deserialize, Serialize};

/// Largest coefficient of variation of a length (`prompt_cv`, `output_cv`).
pub const MAX_CV: f64 = 10.0;
/// Largest number of prefill or decode workers of an explicit `disagg=xPyD`.
pub const MAX_WORKERS: f64 = 1024.0;
/// `disagg=auto` tries `x` and `y` from 1 to this.
pub const AUTO_MAX_WORKERS: f64 = 16.0;
/// Largest `seed`.
pub const MAX_SEED: f64 = 1e15;

/// Disaggregated prefill and decode (`disagg`): none (one engine runs both, the default),
/// `auto` (the ratio of prefill to decode workers with the most goodput or saturation rate per
/// chip, `x` and `y` from 1 to [`AUTO_MAX_WORKERS`]), or `x` prefill workers beside `y` decode
/// workers (`3P1D`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
pub enum Disagg {
    /// One engine serves prefill and decode (aggregated).
    #[default]
    None,
    /// Search `x` and `y` from 1 to [`AUTO_MAX_WORKERS`].
    Auto,
    /// `prefill` workers beside `decode` workers.
    Split {
        /// Prefill workers `x`.
        prefill: f64,
        /// Decode workers `y`.
        decode: f64,
    },
}

/// The `disagg` field's words: what it must be.
pub(super) const DISAGG_WHAT: &str =
    "none, auto, or xPyD: x prefill workers beside y decode workers, each a whole number from 1 to 1024 (3P1D)";

impl Disagg {
    /// The field's text: `none`, `auto` or `3P1D`.
    pub fn text(self) -> String {
        match self {
            Disagg::None => "none".into(),
            Disagg::Auto => "auto".into(),
            Disagg::Split { prefill, decode } => {
                format!("{}P{}D", format_exact(prefill), format_exact(decode))
            }
        }
    }

    /// Parses the field's text (`none`, `auto`, `xPyD` with `x` and `y` whole numbers from 1
    /// to [`MAX_WORKERS`], case-insensitive). The error names the field and what it takes.
    pub fn parse(spec: &FieldSpec, text: &str) -> Result<Disagg, Error> {
        let t = text.trim();
        if t.is_empty() || t.eq_ignore_ascii_case("none") {
            return Ok(Disagg::None);
        }
        if t.eq_ignore_ascii_case("auto") {
            return Ok(Disagg::Auto);
        }
        let bad = || Error::invalid(spec.key, t, format!("must be {DISAGG_WHAT}"));
        let upper = t.to_ascii_uppercase();
        let body = upper.strip_suffix('D').ok_or_else(bad)?;
        let (x, y) = body.split_once('P').ok_or_else(bad)?;
        let whole = |s: &str| -> Result<f64, Error> {
            let s = s.trim();
            if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) || s.len() > 5 {
                return Err(bad());
            }
            let v: f64 = s.parse().map_err(|_| bad())?;
            if (1.0..=MAX_WORKERS).contains(&v) {
                Ok(v)
            } else {
                Err(bad())
            }
        };
        Ok(Disagg::Split {
            prefill: whole(x)?,
            decode: whole(y)?,
        })
    }
}

/// The `disagg` field: structured text read by [`Disagg::parse`], so it is not swept.
pub(super) const fn disagg_spec(key: &'static str) -> FieldSpec {
    FieldSpec {
        key,
        label: "disaggregated (xPyD)",
        ty: FieldType::Text,
        default: "none",
        help: "serving under load: x prefill workers (each p_tp·p_ep chips) beside y decode workers (each d_tp·d_ep chips), the prompt's KV moving over kv_link; auto: the ratio with the most goodput (ttft_max and tpot_max set) or saturation rate per chip, x and y from 1 to 16; none: one engine serves both",
        what: DISAGG_WHAT,
        min: 0.0,
        max: 0.0,
        none: None,
        slider: None,
        unit: None,
        folds: true,
    }
}

/// The words of a length's coefficient of variation: what it must be.
pub(super) const CV_WHAT: &str = "a coefficient of variation from 0 (fixed lengths) to 10";

/// Parses a coefficient of variation (`prompt_cv`, `output_cv`): a number from 0 to
/// [`MAX_CV`], fractions included (`0.5`). The error names the field and what it takes.
pub(super) fn parse_cv(spec: &FieldSpec, text: &str) -> Result<f64, Error> {
    let t = text.trim();
    let bad = || Error::invalid(spec.key, t, format!("must be {CV_WHAT}"));
    let v = parse_quantity(t).map_err(|_| bad())?;
    if v.is_finite() && (0.0..=MAX_CV).contains(&v) {
        Ok(v + 0.0)
    } else {
        Err(bad())
    }
}

/// A length's coefficient of variation (`prompt_cv`, `output_cv`): structured text read by
/// [`parse_cv`] (a fraction between 0 and 10, which a number field from 0 reads as 0 or from
/// 1 up), so it is not swept.
pub(super) const fn cv_spec(
    key: &'static str,
    label: &'static str,
    help: &'static str,
) -> FieldSpec {
    FieldSpec {
        key,
        label,
        ty: FieldType::Text,
        default: "0",
        help,
        what: CV_WHAT,
        min: 0.0,
        max: 0.0,
        none: None,
        slider: None,
        unit: None,
        folds: true,
    }
}

/// The optional numbers of the disaggregated topology and the host tier, by index in
/// [`Llm`](super::Llm)'s `opt_num` accesses.
pub(super) mod opt {
    /// `p_tp`.
    pub const P_TP: usize = 0;
    /// `p_ep`.
    pub const P_EP: usize = 1;
    /// `d_tp`.
    pub const D_TP: usize = 2;
    /// `d_ep`.
    pub const D_EP: usize = 3;
    /// `d_chip`.
    pub const D_CHIP: usize = 4;
    /// `kv_host`.
    pub const KV_HOST: usize = 5;
    /// `prefix_set`.
    pub const PREFIX_SET: usize = 6;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The words `disagg` takes and what it refuses.
    #[test]
    fn disagg_words() {
        let spec = disagg_spec("disagg");
        let ok = |t: &str| Disagg::parse(&spec, t).unwrap();
        assert_eq!(ok(""), Disagg::None);
        assert_eq!(ok("NONE"), Disagg::None);
        assert_eq!(ok("Auto"), Disagg::Auto);
        assert_eq!(
            ok("3p1d"),
            Disagg::Split {
                prefill: 3.0,
                decode: 1.0
            }
        );
        assert_eq!(ok(" 2P16D ").text(), "2P16D");
        assert_eq!(ok("1024P1D").text(), "1024P1D");
        for bad in [
            "0P1D", "1P0D", "1025P1D", "P1D", "1PD", "1.5P1D", "-1P1D", "3:1", "1P1", "NaNPNaND",
            "1e3P1D",
        ] {
            let e = Disagg::parse(&spec, bad).unwrap_err().to_string();
            assert!(e.contains("disagg") && e.contains("xPyD"), "{bad}: {e}");
        }
    }

    /// A coefficient of variation takes fractions, 0, and up to 10.
    #[test]
    fn cv_words() {
        let spec = cv_spec("prompt_cv", "prompt CV", "");
        assert_eq!(parse_cv(&spec, "0.5").unwrap(), 0.5);
        assert_eq!(parse_cv(&spec, "0").unwrap(), 0.0);
        assert_eq!(parse_cv(&spec, "-0").unwrap().to_bits(), 0.0f64.to_bits());
        assert_eq!(parse_cv(&spec, "10").unwrap(), 10.0);
        for bad in ["-0.1", "10.5", "NaN", "inf", "", "abc", "1e9"] {
            let e = parse_cv(&spec, bad).unwrap_err().to_string();
            assert!(
                e.contains("prompt_cv") && e.contains("coefficient"),
                "{bad}: {e}"
            );
        }
    }
}
