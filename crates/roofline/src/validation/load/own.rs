//! "My engine" under a load (issue 43): the user's own engine, fitted on the steps of their
//! trace and carried by the link as `engine=own:<compute>:<memory>:<network>:<step>`
//! ([`OwnEngine`]), read where the published engines' fits are read otherwise: the serving
//! row's expected figures at the link's load ([`own_expectation`], basis [`Basis::Own`]) and
//! the load plot's curve ([`own_curve`]).
//!
//! **Timing.** The load model's states split each figure's bound by resource
//! ([`crate::serving::Decomp`]: `C`, `M`, `N` seconds in compute-, memory- and link-bound
//! parts over `S` steps); the own engine times it as its fit was made,
//! `t = a·C + b·M + n·N + s·S` ([`OwnTiming`]), so the queue, saturation and goodput follow
//! from the engine's steps as the bound's follow from the bound's.
//!
//! **No band.** The link carries the four terms to 3 significant digits, not their standard
//! errors nor the fit's residuals, so an own-engine figure has no band ([`NO_BAND`] says
//! why): a band would have to be made up.

use crate::profile::OwnEngine;
use crate::serving::{Decomp, EngineState, Timing};

/// Why an own-engine figure has no band.
pub const NO_BAND: &str = "no band: the link carries your engine's four terms (engine=own:…, \
     3 significant digits), not their standard errors or the fit's residuals, so no band can \
     be derived; the fit's guard refused it if any term's standard error passed 50 %";

/// The user's own engine as the load model reads a state's times: each figure's bound split
/// by resource, times the engine's factors, plus its fixed time per step for every step the
/// figure spans.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OwnTiming(pub OwnEngine);

impl OwnTiming {
    /// The figure whose bound splits as `d`: `a·C + b·M + n·N + s·S`.
    pub fn of(&self, d: &Decomp) -> f64 {
        let [c, m, n] = d.by_bound;
        self.0.compute * c + self.0.memory * m + self.0.network * n + self.0.step * d.steps
    }
}

impl Timing for OwnTiming {
    fn times(&self, s: &EngineState) -> Option<(f64, f64)> {
        Some((self.of(&s.ttft), self.of(&s.tpot)))
    }
}

/// The expectation's words: whose fit it is, with the terms the link carries.
pub fn own_words(e: &OwnEngine) -> String {
    format!(
        "your engine's fit from your trace's steps (engine={}: compute, memory and collective \
         factors, then seconds per step)",
        e.format()
    )
}
