//! The serving-at-load set's fit (issue 40): per engine and figure (TTFT, TPOT), the model of
//! the published set (`measured / bound ≈ Σ coefficient × feature`, least absolute relative
//! error: [`fit_model`]) on the load model's step decompositions, with every choice made
//! inside a hold-out by (model, system) group:
//!
//! * **terms**: the three resources' fractions always, then [`CANDIDATES`] added best first
//!   while each lowers both the inner held-out median and p90 |error|;
//! * **scope**: one model pooled over chip generations, or one per generation (a generation
//!   without training rows falls back to the pooled model);
//! * **bias**: the model as fitted, or times the median of its inner held-out
//!   `measured / expected` (a bias left by the L1 fit's vertex).
//!
//! A choice is scored by `median + p90` of the held-out |error| over [`INNER_FOLDS`] folds of
//! the training groups. [`nested`] holds out [`OUTER_FOLDS`] folds of groups: a group's rows
//! are predicted by a model chosen and fitted without them; an engine with no training group
//! left falls back to `generic` (every engine's rows pooled), and the row says so.

use super::super::fit::{fit_model, median, percentile, Features, Term, TermFit};
use super::super::{Family, MIN_POINTS};
use super::{Figure, LoadObs};
use crate::op::Engine;

/// Candidate terms beyond the resources' fractions: a fixed cost per step, per collective, a
/// mixture of experts' imbalance, and the figure's own extra feature (the published set's
/// launch slot: [`super::ttft_extra`], [`super::tpot_extra`]).
pub const CANDIDATES: [Term; 4] = [Term::Step, Term::MultiChip, Term::Moe, Term::Launch];
/// Folds of groups in the outer hold-out.
pub const OUTER_FOLDS: usize = 10;
/// Folds of groups inside a fold, where the choices are made.
pub const INNER_FOLDS: usize = 3;

/// One model per generation or one for all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// One model over every generation.
    Pooled,
    /// One model per chip generation (a generation without rows takes the pooled one).
    PerFamily,
}

impl Scope {
    /// A short id.
    pub fn id(self) -> &'static str {
        match self {
            Scope::Pooled => "pooled",
            Scope::PerFamily => "per-generation",
        }
    }
}

/// The choices a fit makes.
#[derive(Debug, Clone, PartialEq)]
pub struct Choice {
    /// The model's terms.
    pub terms: Vec<Term>,
    /// Pooled or per generation.
    pub scope: Scope,
    /// Whether the model is scaled by its inner held-out median `measured / expected`.
    pub bias: bool,
}

/// A fitted model of one figure of one engine.
#[derive(Debug, Clone, PartialEq)]
pub struct FigureModel {
    /// The choices.
    pub choice: Choice,
    /// The model over every generation.
    pub pooled: TermFit,
    /// Per generation, where the scope is per generation and the generation has rows.
    pub by_family: Vec<(Family, TermFit)>,
    /// The bias factor (1 without bias).
    pub bias: f64,
}

impl FigureModel {
    /// The model's `measured / bound` for features `f` on a chip of `family`.
    pub fn ratio(&self, f: &Features, family: Option<Family>) -> f64 {
        let m = match (self.choice.scope, family) {
            (Scope::PerFamily, Some(fam)) => self
                .by_family
                .iter()
                .find(|(x, _)| *x == fam)
                .map_or(&self.pooled, |(_, m)| m),
            _ => &self.pooled,
        };
        self.bias * m.ratio(f)
    }

    /// Whether a chip of `family` gets its generation's own model.
    pub fn has_family(&self, family: Option<Family>) -> bool {
        self.choice.scope == Scope::PerFamily
            && family.is_some_and(|f| self.by_family.iter().any(|(x, _)| *x == f))
    }
}

fn data(obs: &[&LoadObs], fig: Figure) -> Vec<(Features, f64)> {
    obs.iter()
        .filter_map(|o| o.figure(fig).map(|x| (x.features, x.ratio)))
        .collect()
}

/// Fits `choice` on `obs` for `fig` (the bias factor given, 1 for none).
pub fn fit_choice(
    obs: &[&LoadObs],
    fig: Figure,
    choice: &Choice,
    bias: f64,
) -> Option<FigureModel> {
    let all = data(obs, fig);
    if all.len() < MIN_POINTS {
        return None;
    }
    let pooled = fit_model(&all, &choice.terms)?;
    let mut by_family = Vec::new();
    if choice.scope == Scope::PerFamily {
        for fam in Family::ALL {
            let of: Vec<&LoadObs> = obs
                .iter()
                .copied()
                .filter(|o| o.family == Some(fam))
                .collect();
            let d = data(&of, fig);
            if d.len() >= MIN_POINTS.max(2 * choice.terms.len()) {
                if let Some(m) = fit_model(&d, &choice.terms) {
                    by_family.push((fam, m));
                }
            }
        }
    }
    Some(FigureModel {
        choice: choice.clone(),
        pooled,
        by_family,
        bias,
    })
}

/// The distinct groups of `obs`, sorted.
pub fn groups(obs: &[&LoadObs]) -> Vec<String> {
    let mut g: Vec<String> = obs.iter().map(|o| o.group.clone()).collect();
    g.sort();
    g.dedup();
    g
}

/// The fold of a group among `k`: groups in sorted order dealt round-robin, so folds differ
/// in size by at most one group and the assignment depends on nothing but the groups' names.
fn fold_of(sorted: &[String], group: &str, k: usize) -> usize {
    sorted.iter().position(|g| g == group).unwrap_or(0) % k
}

/// `measured / expected` of every held-out row of `fig` over `k` folds of the groups of `obs`,
/// each fold predicted by `choice` fitted (bias 1) on the others.
fn cv_residuals(obs: &[&LoadObs], fig: Figure, choice: &Choice, k: usize) -> Vec<f64> {
    let gs = groups(obs);
    let k = k.min(gs.len());
    let mut out = Vec::new();
    for fold in 0..k {
        let (test, train): (Vec<&LoadObs>, Vec<&LoadObs>) =
            obs.iter().partition(|o| fold_of(&gs, &o.group, k) == fold);
        let Some(m) = fit_choice(&train, fig, choice, 1.0) else {
            continue;
        };
        for o in test {
            if let Some(x) = o.figure(fig) {
                let p = m.ratio(&x.features, o.family);
                if p > 0.0 && p.is_finite() {
                    out.push(x.ratio / p);
                }
            }
        }
    }
    out
}

/// `median + p90` of `|1/residual − 1|` (expected / measured − 1).
fn score(res: &[f64], bias: f64) -> Option<f64> {
    let e: Vec<f64> = res.iter().map(|r| (bias / r - 1.0).abs()).collect();
    Some(median(&e)? + percentile(&e, 0.9)?)
}

/// A choice's inner score: `median + p90`, whether the bias helps, the bias, the residuals.
type Scored = (f64, bool, f64, Vec<f64>);

/// The choices for `fig` made on `obs` alone, by [`INNER_FOLDS`]-fold group hold-out (see the
/// module docs); `None` with too few rows or groups.
pub fn choose(obs: &[&LoadObs], fig: Figure) -> Option<(Choice, f64)> {
    if groups(obs).len() < 2 || data(obs, fig).len() < MIN_POINTS {
        return None;
    }
    let mut best: Option<(f64, Choice, f64)> = None;
    for scope in [Scope::Pooled, Scope::PerFamily] {
        let mut terms = Term::RESOURCES.to_vec();
        let eval = |terms: &[Term]| -> Option<Scored> {
            let c = Choice {
                terms: terms.to_vec(),
                scope,
                bias: false,
            };
            let res = cv_residuals(obs, fig, &c, INNER_FOLDS);
            let plain = score(&res, 1.0)?;
            let b = median(&res)?;
            let biased = score(&res, b)?;
            Some(if biased < plain {
                (biased, true, b, res)
            } else {
                (plain, false, 1.0, res)
            })
        };
        let Some(mut cur) = eval(&terms) else {
            continue;
        };
        let stats = |r: &[f64]| -> Option<(f64, f64)> {
            let e: Vec<f64> = r.iter().map(|x| (1.0 / x - 1.0).abs()).collect();
            Some((median(&e)?, percentile(&e, 0.9)?))
        };
        loop {
            let base = stats(&cur.3);
            let mut pick: Option<(Term, Scored)> = None;
            for c in CANDIDATES.into_iter().filter(|c| !terms.contains(c)) {
                let mut with = terms.clone();
                with.push(c);
                let Some(s) = eval(&with) else {
                    continue;
                };
                let (Some(b), Some(n)) = (base, stats(&s.3)) else {
                    continue;
                };
                let lowers_both = n.0 < b.0 && n.1 < b.1;
                if lowers_both && pick.as_ref().is_none_or(|(_, p)| s.0 < p.0) {
                    pick = Some((c, s));
                }
            }
            let Some((c, s)) = pick else {
                break;
            };
            terms.push(c);
            cur = s;
        }
        if best.as_ref().is_none_or(|(s, _, _)| cur.0 < *s) {
            best = Some((
                cur.0,
                Choice {
                    terms,
                    scope,
                    bias: cur.1,
                },
                cur.2,
            ));
        }
    }
    best.map(|(_, c, b)| (c, b))
}

/// Chooses and fits `fig` on `obs`: the page's model.
pub fn fit_figure(obs: &[&LoadObs], fig: Figure) -> Option<FigureModel> {
    let (c, b) = choose(obs, fig)?;
    fit_choice(obs, fig, &c, b)
}

/// A row's held-out expectation of one figure.
#[derive(Debug, Clone, PartialEq)]
pub struct HeldOut {
    /// The row's index in the observations.
    pub row: usize,
    /// The figure.
    pub figure: Figure,
    /// The engine whose fit made it (`generic` where the row's engine had no other group).
    pub engine: Engine,
    /// `expected / measured − 1`.
    pub error: f64,
    /// `measured / expected`.
    pub residual: f64,
}

/// The rows of `engine` (`generic`: every row).
pub fn of_engine(obs: &[LoadObs], engine: Engine) -> Vec<&LoadObs> {
    obs.iter()
        .filter(|o| engine == Engine::Generic || o.engine == engine)
        .collect()
}

/// Every row's held-out expectations: [`OUTER_FOLDS`] folds of all groups; in each, every
/// engine's model chosen and fitted on its training rows, `generic` on all training rows
/// (what a row whose engine has no training group falls back to).
pub fn nested(obs: &[LoadObs]) -> Vec<HeldOut> {
    let all: Vec<&LoadObs> = obs.iter().collect();
    let gs = groups(&all);
    let k = OUTER_FOLDS.min(gs.len());
    let mut out = Vec::new();
    for fold in 0..k {
        let train: Vec<&LoadObs> = all
            .iter()
            .copied()
            .filter(|o| fold_of(&gs, &o.group, k) != fold)
            .collect();
        for fig in Figure::ALL {
            // Every engine's training rows: fitted only for an engine without a group of its
            // own in the fold.
            let mut generic: Option<Option<FigureModel>> = None;
            for engine in [Engine::Vllm, Engine::Sglang, Engine::Trtllm] {
                if !obs
                    .iter()
                    .any(|o| o.engine == engine && fold_of(&gs, &o.group, k) == fold)
                {
                    continue;
                }
                let own: Vec<&LoadObs> = train
                    .iter()
                    .copied()
                    .filter(|o| o.engine == engine)
                    .collect();
                let own_fit = fit_figure(&own, fig);
                let (model, used) = match &own_fit {
                    Some(m) => (Some(m), engine),
                    None => (
                        generic
                            .get_or_insert_with(|| fit_figure(&train, fig))
                            .as_ref(),
                        Engine::Generic,
                    ),
                };
                let Some(model) = model else {
                    continue;
                };
                for (i, o) in obs.iter().enumerate() {
                    if o.engine != engine || fold_of(&gs, &o.group, k) != fold {
                        continue;
                    }
                    let Some(x) = o.figure(fig) else {
                        continue;
                    };
                    let p = model.ratio(&x.features, o.family);
                    if p > 0.0 && p.is_finite() {
                        out.push(HeldOut {
                            row: i,
                            figure: fig,
                            engine: used,
                            error: p / x.ratio - 1.0,
                            residual: x.ratio / p,
                        });
                    }
                }
            }
        }
    }
    out.sort_by_key(|h| (h.row, h.figure as usize));
    out
}
