//! Analysis options: the FLOP counting convention, the achievable fraction of peak and a
//! calibration fitted to measured kernels.
//!
//! # Derate and calibration together
//!
//! A [`Calibration`] `c:m:o` generalises the derate: `T_math = FLOPs / (peak·derate·c)`,
//! the HBM time is `bytes / (m·HBM bandwidth)` (other resources keep their bandwidth: the
//! fit measures DRAM bytes), and `o` is added to `T_lower` and `T_upper` once per kernel
//! launch (once for a single operation, `repeat` times per part of a composite). The
//! derate and `c` **multiply**: both are fractions of the nominal peak that compose (a
//! calibration fitted against the plain roofline is meant to be used with derate 1; the page
//! sets derate to 1 when it applies a fit). Without a calibration (`c = m = 1`, `o = 0`,
//! the default) every result equals the derate-only one bit for bit.

use crate::error::Error;
pub use crate::profile::Calibration;
use crate::units::format_exact;
use serde::{Deserialize, Serialize};

/// How FLOPs are counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum FlopConvention {
    /// 2 FLOPs per multiply-accumulate: the book's and the vendors' convention (default).
    #[default]
    TwoPerMac,
    /// 1 FLOP per multiply-accumulate (MLSys·im): halves displayed FLOPs, intensities,
    /// ridges, achieved and peak; no time changes.
    OnePerMac,
}

impl FlopConvention {
    /// The factor applied to displayed FLOP quantities: 1 or 0.5.
    pub fn factor(self) -> f64 {
        match self {
            FlopConvention::TwoPerMac => 1.0,
            FlopConvention::OnePerMac => 0.5,
        }
    }
}

/// Analysis options.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Options {
    /// FLOP counting convention (default 2 per MAC).
    pub convention: FlopConvention,
    /// Achievable fraction of peak, from 0.01 to 1 (default 1 = off). The book's footnote:
    /// H100s and B200s reach about 80–85% of peak, TPUs about 95%. `T_math = FLOPs /
    /// (peak·derate)`.
    pub derate: f64,
    /// The calibration (default none: `c = m = 1`, `o = 0`); see the module docs for how it
    /// combines with `derate`. Link key `cal=<compute>:<memory>:<overhead>`.
    pub cal: Calibration,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            convention: FlopConvention::TwoPerMac,
            derate: 1.0,
            cal: Calibration::NONE,
        }
    }
}

/// Reads an achievable fraction of peak as links and the form take it: `0.95` or `95%`,
/// checked by [`Options::validate`] (0.01 to 1).
pub fn parse_derate(text: &str) -> Result<f64, Error> {
    let t = text.trim();
    let derate = match t.strip_suffix('%') {
        Some(p) => crate::units::parse_quantity(p).map(|x| x / 100.0),
        None => crate::units::parse_quantity(t),
    }?;
    Options {
        derate,
        ..Options::default()
    }
    .validate()?;
    Ok(derate)
}

impl Options {
    /// The compute efficiency the analysis uses: `derate · c`.
    pub fn compute_efficiency(&self) -> f64 {
        self.derate * self.cal.compute
    }

    /// Checks `derate` is a number from 0.01 to 1 and the calibration is in range.
    pub fn validate(&self) -> Result<(), Error> {
        self.cal.validate()?;
        if self.derate.is_finite() && (0.01..=1.0).contains(&self.derate) {
            Ok(())
        } else {
            Err(Error::invalid(
                "derate",
                format_exact(self.derate),
                "must be the achievable fraction of peak (a number from 0.01 to 1)",
            ))
        }
    }
}
