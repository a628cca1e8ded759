//! An attention part along a run of decode steps ([`RunPart`]): the simulation's decode steps
//! read as lines in the step index while no term changes the part's bound (see the module docs
//! of [`super`]).

use super::{bound_index, Sums, MAX_TERMS};
use crate::resource::Bound;

/// An attention part along a run of decode steps: its compute seconds and each term's
/// seconds at the run's first step and their change per step (the totals move by the same
/// amount every step), so step `k` of the run reads `value + k·slope`, the part's own
/// figures at that step up to rounding.
#[derive(Debug, Clone, Copy)]
pub(super) struct RunPart {
    pub(super) repeat: f64,
    pub(super) math: (f64, f64),
    pub(super) n: usize,
    pub(super) terms: [(f64, f64); MAX_TERMS],
    pub(super) bound: [Bound; MAX_TERMS],
}

impl RunPart {
    /// At step `k` of the run: the slope and bound of the term that sets the part's time,
    /// and for how many further steps it surely does (`add`'s choice, with every other term
    /// below it by more than 1e-9 of its value and every term kept or left out as at `k`);
    /// 0 where that is not sure.
    pub(super) fn lead(&self, k: f64) -> (f64, usize, f64) {
        let t_math = self.math.0 + k * self.math.1;
        let (mut t_max, mut which) = (0.0, usize::MAX);
        for i in 0..self.n {
            let t = self.terms[i].0 + k * self.terms[i].1;
            if t > t_max {
                t_max = t;
                which = i;
            }
        }
        let (v, sw, b) = if t_math >= t_max {
            (t_math, self.math.1, 0)
        } else {
            (t_max, self.terms[which].1, bound_index(self.bound[which]))
        };
        let margin = 1e-9 * v.abs();
        let mut safe = f64::INFINITY;
        // Steps a term (value `vc`, slope `sc`) surely stays below the lead.
        let below = |vc: f64, sc: f64| -> f64 {
            let gap = v - vc;
            if gap <= margin {
                0.0
            } else if sc > sw {
                (gap - margin) / (sc - sw)
            } else {
                f64::INFINITY
            }
        };
        let math_leads = t_math >= t_max;
        if !math_leads {
            safe = safe.min(below(t_math, self.math.1));
        }
        for i in 0..self.n {
            let (vi, si) = (self.terms[i].0 + k * self.terms[i].1, self.terms[i].1);
            if vi > 0.0 {
                if math_leads || i != which {
                    safe = safe.min(below(vi, si));
                }
                // A term that falls to 0 leaves the part (and its collective with it).
                if si < 0.0 {
                    safe = safe.min(vi * (1.0 - 1e-9) / -si);
                }
            } else if si > 0.0 {
                // A term that rises past 0 joins it.
                safe = 0.0;
            }
        }
        (sw, b, safe.max(0.0))
    }

    pub(super) const NONE: RunPart = RunPart {
        repeat: 0.0,
        math: (0.0, 0.0),
        n: 0,
        terms: [(0.0, 0.0); MAX_TERMS],
        bound: [Bound::Memory; MAX_TERMS],
    };

    /// As [`LinPart::add`] at step `k` of the run (from 0).
    #[inline]
    pub(super) fn add(&self, k: f64, overhead: f64, s: &mut Sums) {
        let t_math = self.math.0 + k * self.math.1;
        let (mut t_max, mut which, mut net) = (0.0, 0usize, false);
        for i in 0..self.n {
            let t = self.terms[i].0 + k * self.terms[i].1;
            if t > 0.0 {
                if t > t_max {
                    t_max = t;
                    which = i;
                }
                net |= self.bound[i] == Bound::Network;
            }
        }
        let bound = if t_math >= t_max {
            Bound::Compute
        } else {
            self.bound[which]
        };
        s.by_bound[bound_index(bound)] += self.repeat * (t_math.max(t_max) + overhead);
        if net {
            s.collectives += self.repeat;
        }
    }
}
