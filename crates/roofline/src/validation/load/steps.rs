//! The engines' fitted terms read step by step (issue 42): what the simulation of serving
//! tails times each step with ([`crate::serving::sim::StepTiming`]).
//!
//! Issue 40's fit reads a figure (a TTFT, a TPOT) as a sum of steps whose bound splits into
//! compute-, memory- and link-bound seconds, and expects `ratio(features)·bound`. Its TPOT
//! model is fitted on the steps an engine runs per output token (decode steps, and the
//! chunks beside them) with terms that are each linear in that split (a fraction of each
//! resource, a cost per step, per collective and per running sequence, a factor for a mixture
//! of experts): read on a single step, it is that step's expected time, and a sum of steps
//! read one by one is the figure read whole. So each simulated step, prefill or decode, is
//! read by the engine's TPOT model ([`StepCoef::probe`] finds its coefficients and checks they
//! are linear). The TTFT model is not used per step: its wave term stands for the closed
//! loop's synchronised arrivals, which the simulation runs itself.

use super::{features_of, stored_fits, EngineFit, LOAD_SET_VERSION};
use crate::chip::Chip;
use crate::op::{Engine, Llm};
use crate::serving::sim::{StepCoef, StepTiming};
use crate::validation::family_of;

/// Steps read by the stored fits of the serving-at-load set.
#[derive(Debug, Clone)]
pub struct FittedSteps {
    fits: Vec<EngineFit>,
}

impl FittedSteps {
    /// The page's fits ([`stored_fits`]).
    pub fn stored() -> FittedSteps {
        FittedSteps {
            fits: stored_fits(),
        }
    }

    /// Given fits.
    pub fn with(fits: Vec<EngineFit>) -> FittedSteps {
        FittedSteps { fits }
    }

    /// The fit for `engine`: its own, else `generic` (every engine's rows pooled), and
    /// whether it fell back.
    fn fit(&self, engine: Engine) -> Option<(&EngineFit, bool)> {
        match self.fits.iter().find(|f| f.engine == engine) {
            Some(f) => Some((f, false)),
            None => self
                .fits
                .iter()
                .find(|f| f.engine == Engine::Generic)
                .map(|f| (f, true)),
        }
    }
}

impl StepTiming for FittedSteps {
    fn coef(&self, l: &Llm, chip: &Chip) -> Result<StepCoef, String> {
        let set = LOAD_SET_VERSION;
        let (fit, _) = self
            .fit(l.engine)
            .ok_or_else(|| format!("the serving-at-load set ({set}) has no fit"))?;
        let family = family_of(chip);
        if !self
            .fits
            .iter()
            .any(|f| family.is_some_and(|fam| f.families.contains(&fam)))
        {
            return Err(format!(
                "the serving-at-load set ({set}) has no runs on {} or its generation",
                chip.name
            ));
        }
        let chips = l.tp * l.ep;
        let moe = l.shape.experts > 1.0;
        StepCoef::probe(|d, seqs| {
            fit.tpot
                .ratio(&features_of(d, chips, moe, 1e-6 * seqs), family)
                * d.t
        })
        .ok_or_else(|| {
            format!(
                "the {} TPOT model of set {set} is not linear in a step's split",
                fit.engine.as_str()
            )
        })
    }

    fn basis(&self, l: &Llm) -> String {
        match self.fit(l.engine) {
            Some((f, false)) => format!(
                "each step read by {}'s fitted TPOT terms (serving-at-load set {})",
                f.engine.as_str(),
                LOAD_SET_VERSION
            ),
            Some((f, true)) => format!(
                "each step read by the {} fitted TPOT terms (serving-at-load set {}: no {} fit)",
                f.engine.as_str(),
                LOAD_SET_VERSION,
                l.engine.as_str()
            ),
            None => "no fit".into(),
        }
    }
}
