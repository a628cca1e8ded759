//! The procedure's fits as `fitted.rs` stores them (plain data, read without fitting) and as
//! a fresh run records them.

use super::calibration::{Calibration, FamilyFactor, KindBand};
use super::fit::{Term, TermFit};
use super::obs::Obs;

/// A fit of the procedure as `fitted.rs` stores it.
#[derive(Debug, Clone, Copy)]
pub struct StoredFit {
    /// The source held out; `None` for the page's fit on every point.
    pub held_out: Option<&'static str>,
    /// The terms selected.
    pub terms: &'static [Term],
    /// Their coefficients.
    pub coef: &'static [f64],
    /// Every family with a point, its factor and whether it is kept.
    pub families: &'static [FamilyFactor],
    /// Every kind's bias and band.
    pub kinds: &'static [KindBand],
}

/// A fit of the procedure: what it chose on the points it was given.
#[derive(Debug, Clone, PartialEq)]
pub struct FitRecord {
    /// The source held out; `None` for the fit on every point.
    pub held_out: Option<&'static str>,
    /// The terms selected.
    pub terms: Vec<Term>,
    /// Their coefficients.
    pub coef: Vec<f64>,
    /// Every family with a point, its factor and whether it is kept (empty for the old fits).
    pub families: Vec<FamilyFactor>,
    /// Every kind's bias and band (empty for the old fits).
    pub kinds: Vec<KindBand>,
}

impl StoredFit {
    /// As a record.
    pub fn record(&self) -> FitRecord {
        FitRecord {
            held_out: self.held_out,
            terms: self.terms.to_vec(),
            coef: self.coef.to_vec(),
            families: self.families.to_vec(),
            kinds: self.kinds.to_vec(),
        }
    }

    /// The calibration it stores, on `obs` (the points it was fitted on are those of `obs`
    /// without its held-out source).
    pub fn calibration(&self, obs: &[Obs]) -> Calibration {
        self.record().calibration(obs)
    }
}

impl FitRecord {
    /// The record of a calibration fitted without `held_out`.
    pub fn of(c: &Calibration, held_out: Option<&'static str>) -> FitRecord {
        FitRecord {
            held_out,
            terms: c.model.terms.clone(),
            coef: c.model.coef.clone(),
            families: c.families.clone(),
            kinds: c.kinds.clone(),
        }
    }

    /// The calibration it records, on `obs` without its held-out source (no residuals: read,
    /// not fitted).
    pub fn calibration(&self, obs: &[Obs]) -> Calibration {
        Calibration {
            model: TermFit {
                terms: self.terms.clone(),
                coef: self.coef.clone(),
            },
            obs: obs
                .iter()
                .filter(|o| Some(o.source) != self.held_out)
                .copied()
                .collect(),
            residuals: Vec::new(),
            families: self.families.clone(),
            kinds: self.kinds.clone(),
        }
    }
}
