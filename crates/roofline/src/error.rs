//! The crate's error type.
//!
//! Every fallible function of the crate returns [`Error`]. Messages name the field and the
//! allowed range, e.g. `d=-5: must be a positive size (an integer from 1 to 1e15)` or
//! `no int8 peak on TPU v6e`. No input makes the crate panic.

use serde::{Deserialize, Serialize};

/// Everything that can go wrong in the core crate.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
pub enum Error {
    /// A field was given a value outside its allowed range (zero, negative, NaN, infinite,
    /// absurdly large, not an integer, not one of the choices...).
    ///
    /// Displays as `{field}={value}: {reason}`.
    #[error("{field}={value}: {reason}")]
    InvalidField {
        /// The field key (`d`, `hbm`, `links`, ...).
        field: String,
        /// The offending value, as given (or formatted losslessly).
        value: String,
        /// What the field accepts, e.g. `must be a positive size (an integer from 1 to 1e15)`.
        reason: String,
    },
    /// A text could not be parsed as a number, dtype or choice.
    #[error("cannot read `{input}`: {reason}")]
    Parse {
        /// The text that failed to parse (trimmed, shortened when very long).
        input: String,
        /// Why, e.g. `unknown unit suffix "XB"`.
        reason: String,
    },
    /// The key is not a field of this operation kind or chip.
    #[error("unknown field `{field}` for {kind}; fields are: {expected}")]
    UnknownField {
        /// The unknown key.
        field: String,
        /// The operation kind id (`matmul`, ...) or `chip`.
        kind: String,
        /// The comma-separated list of valid keys.
        expected: String,
    },
    /// The operation kind id is not known (`default_for("conv")`).
    #[error("unknown operation kind `{kind}`; kinds are: {expected}")]
    UnknownKind {
        /// The unknown id.
        kind: String,
        /// The comma-separated list of kind ids (from the kind table, `crate::op`).
        expected: String,
    },
    /// The chip has no peak for the dtype the operation computes in.
    ///
    /// Displays as `no fp8 peak on A100 SXM`. The analysis never falls back to another
    /// dtype's peak.
    #[error("no {key} peak on {chip} (set the chip's `{key}` field to use it)")]
    MissingPeak {
        /// The peak key (`fp8`, `int8`, ...).
        key: String,
        /// The chip's display name.
        chip: String,
    },
    /// The chip lacks a bandwidth (or link count) the operation needs.
    ///
    /// Displays as `no DCN bandwidth on TPU v5e (set the chip's `dcn` field)`.
    #[error("no {what} on {chip} (set the chip's `{field}` field)")]
    MissingResource {
        /// Human description, e.g. `DCN bandwidth`.
        what: String,
        /// The chip field that would supply it (`dcn`, `pcie`, `ici`, `links`, `onchip`).
        field: String,
        /// The chip's display name.
        chip: String,
    },
    /// A sweep specification is unusable (field not numeric, bad range, too many points).
    #[error("sweep over `{field}`: {reason}")]
    Sweep {
        /// The swept field key.
        field: String,
        /// What is wrong.
        reason: String,
    },
}

impl Error {
    /// Shorthand for [`Error::InvalidField`].
    pub(crate) fn invalid(
        field: &str,
        value: impl Into<String>,
        reason: impl Into<String>,
    ) -> Self {
        Error::InvalidField {
            field: field.to_string(),
            value: clip(&value.into()),
            reason: reason.into(),
        }
    }

    /// Shorthand for [`Error::Parse`].
    pub(crate) fn parse(input: &str, reason: impl Into<String>) -> Self {
        Error::Parse {
            input: clip(input.trim()),
            reason: reason.into(),
        }
    }
}

/// Shortens very long user input for error messages (on a char boundary).
pub(crate) fn clip(s: &str) -> String {
    clip_text(s, 40)
}

/// `s` if it has at most `max` characters, else its first `max` characters and `…`: user text
/// echoed in a message stays short whatever was pasted.
pub fn clip_text(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut out: String = s.chars().take(max).collect();
        out.push('…');
        out
    }
}
