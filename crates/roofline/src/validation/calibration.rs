//! The calibration (see the module docs of [`super`]): the model fitted on the set's points,
//! each point's residual held out by source, the expectation of a row, and which candidate
//! terms the data support.

use super::fit::{fit_model, median, percentile, Features, Model, Term};
use super::{Family, Work, MIN_POINTS, SET_VERSION};

/// One point as the fit sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Obs {
    /// The point's id.
    pub id: &'static str,
    /// Its source key (holding out drops every point of one key).
    pub source: &'static str,
    /// Its kind of work.
    pub work: Work,
    /// Its chip family.
    pub family: Family,
    /// `measured / predicted`.
    pub ratio: f64,
    /// What the model reads of its compared figure.
    pub features: Features,
}

/// Which points an expectation rests on, from the closest to the farthest: the chip's own
/// points, its family's (generation's), or every family's pooled. Shown in each expected cell
/// (`data-basis`); a figure with no expectation has the basis `none`, which is not a value of
/// this type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Basis {
    /// The chip's own measurements back the figure's kind of work.
    Chip,
    /// Other chips of its family (generation) do.
    Family,
    /// Only other families' points do: the fit pooled over every family.
    Pooled,
}

impl Basis {
    /// The id a cell carries as `data-basis`.
    pub fn id(self) -> &'static str {
        match self {
            Basis::Chip => "chip",
            Basis::Family => "family",
            Basis::Pooled => "pooled",
        }
    }

    /// The basis in a few words, for the cell's visible mark and its title.
    pub fn label(self) -> &'static str {
        match self {
            Basis::Chip => "this chip's points",
            Basis::Family => "its family's points",
            Basis::Pooled => "every family's points",
        }
    }
}

/// An expected time: the bare roofline's figure times the model's ratio.
#[derive(Debug, Clone, PartialEq)]
pub struct Expectation {
    /// `t_lower × r`, seconds.
    pub t: f64,
    /// `t` times the 10th percentile of the kind's held-out residuals; `None` where fewer than
    /// [`MIN_POINTS`] points of the kind back a band.
    pub lo: Option<f64>,
    /// `t` times their 90th percentile.
    pub hi: Option<f64>,
    /// The model's ratio `r` for the figure.
    pub r: f64,
    /// The figure's features (its split by resource).
    pub features: Features,
    /// The model: its terms and coefficients.
    pub model: Model,
    /// How many points the model was fitted on.
    pub pooled: usize,
    /// The ids of the kind's points whose held-out residuals make the band.
    pub based_on: Vec<&'static str>,
    /// Where the chip's generation has no point of this kind: that the fit rests on the
    /// other generations' points.
    pub borrowed_from: Option<String>,
    /// Which points back the figure (provisional: `Family` where the chip's family has points
    /// of this kind of work, else `Pooled`; the chip's own points are not told apart yet).
    pub basis: Basis,
    /// The set's version.
    pub set_version: &'static str,
}

/// The model fitted on a set of points, with each point's held-out residual.
#[derive(Debug, Clone)]
pub struct Calibration {
    /// The model on every point given.
    pub model: Model,
    /// The points, as given.
    pub obs: Vec<Obs>,
    /// Per point (same order): `measured ratio / predicted ratio` with the model fitted
    /// without the point's source; `None` where that leaves too few points.
    pub residuals: Vec<Option<f64>>,
}

fn data(obs: &[&Obs]) -> Vec<(Features, f64)> {
    obs.iter().map(|o| (o.features, o.ratio)).collect()
}

/// Fits `terms` on `obs` without the points of `exclude_source`, with each kept point's
/// residual held out by source; `None` with fewer than [`MIN_POINTS`] points.
pub fn calibrate(obs: &[Obs], terms: &[Term], exclude_source: Option<&str>) -> Option<Calibration> {
    let kept: Vec<Obs> = obs
        .iter()
        .filter(|o| Some(o.source) != exclude_source)
        .copied()
        .collect();
    if kept.len() < MIN_POINTS {
        return None;
    }
    let refs: Vec<&Obs> = kept.iter().collect();
    let model = fit_model(&data(&refs), terms)?;
    let mut residuals = vec![None; kept.len()];
    let mut sources: Vec<&str> = kept.iter().map(|o| o.source).collect();
    sources.sort_unstable();
    sources.dedup();
    for s in sources {
        let rest: Vec<&Obs> = kept.iter().filter(|o| o.source != s).collect();
        if rest.len() < MIN_POINTS {
            continue;
        }
        let Some(m) = fit_model(&data(&rest), terms) else {
            continue;
        };
        for (i, o) in kept.iter().enumerate().filter(|(_, o)| o.source == s) {
            let p = m.ratio(&o.features);
            residuals[i] = (p > 0.0).then(|| o.ratio / p);
        }
    }
    Some(Calibration {
        model,
        obs: kept,
        residuals,
    })
}

impl Calibration {
    /// The expectation of a figure of `work` on a chip of `family`, bound at `t_lower` with
    /// `features`; `None` when the family has no point in the set at all (nothing of its
    /// generation to stand on) or the model gives no positive ratio.
    pub fn expect(
        &self,
        work: Work,
        family: Family,
        features: &Features,
        t_lower: f64,
    ) -> Option<Expectation> {
        if !self.obs.iter().any(|o| o.family == family) {
            return None;
        }
        let r = self.model.ratio(features);
        if !(r.is_finite() && r > 0.0) {
            return None;
        }
        let of_kind: Vec<(usize, &Obs)> = self
            .obs
            .iter()
            .enumerate()
            .filter(|(_, o)| o.work == work)
            .collect();
        let res: Vec<f64> = of_kind
            .iter()
            .filter_map(|(i, _)| self.residuals[*i])
            .collect();
        let band = (res.len() >= MIN_POINTS)
            .then(|| Some((percentile(&res, 0.1)?, percentile(&res, 0.9)?)))
            .flatten();
        let t = t_lower * r;
        let own = of_kind.iter().filter(|(_, o)| o.family == family).count();
        Some(Expectation {
            t,
            lo: band.map(|(l, _)| t * l),
            hi: band.map(|(_, h)| t * h),
            r,
            features: *features,
            model: self.model.clone(),
            pooled: self.obs.len(),
            based_on: of_kind.iter().map(|(_, o)| o.id).collect(),
            borrowed_from: (own == 0).then(|| {
                format!(
                    "{} has no {} point: the fractions rest on every generation's points",
                    family.id(),
                    work.as_str()
                )
            }),
            basis: if own > 0 {
                Basis::Family
            } else {
                Basis::Pooled
            },
            set_version: SET_VERSION,
        })
    }

    /// `|predicted / measured − 1|` of every point with a held-out residual.
    pub fn held_out_errors(&self) -> Vec<f64> {
        self.residuals
            .iter()
            .flatten()
            .map(|r| (1.0 / r - 1.0).abs())
            .collect()
    }
}

/// What one term does in the fit on the whole set.
#[derive(Debug, Clone, PartialEq)]
pub struct TermReport {
    /// The term.
    pub term: Term,
    /// Whether the model keeps it.
    pub kept: bool,
    /// Its coefficient: in the kept model for a kept term, in the kept model plus it for a
    /// candidate left out.
    pub coef: f64,
    /// Held-out median |error| of the model with it.
    pub median: f64,
    /// Held-out p90 |error| of the model with it.
    pub p90: f64,
    /// Its share of the bare roofline's residual: the drop of `Σ |ln(measured / expected)|`
    /// when it joins the model (resources first, in order, then the kept candidates), over the
    /// bare roofline's `Σ |ln(measured / T_lower)|`.
    pub share: f64,
}

fn held_out_stats(obs: &[Obs], terms: &[Term]) -> Option<(f64, f64)> {
    let e = calibrate(obs, terms, None)?.held_out_errors();
    Some((median(&e)?, percentile(&e, 0.9)?))
}

/// The terms the data support: the three resources, then candidates best first. Each round
/// tries every candidate left and keeps the one that lowers both the held-out median and p90
/// |error| of the model so far, by the most in their sum; the rounds stop when none lowers
/// both. (A fixed order of trial made the result depend on that order: on set 2026-11-26.4 it
/// keeps the step's HBM term and the step overhead, then nothing, at a held-out 16.8 % /
/// 48.4 %, where this keeps the multi-chip and step-memory terms at 17.6 % / 41.3 %; on the
/// sets before, both give the same terms.)
pub fn select_terms(obs: &[Obs]) -> Vec<Term> {
    let mut terms = Term::RESOURCES.to_vec();
    let Some(mut best) = held_out_stats(obs, &terms) else {
        return terms;
    };
    loop {
        let mut pick: Option<(Term, (f64, f64))> = None;
        for c in Term::CANDIDATES.into_iter().filter(|c| !terms.contains(c)) {
            let mut with = terms.clone();
            with.push(c);
            let Some(s) = held_out_stats(obs, &with) else {
                continue;
            };
            let lowers_both = s.0 < best.0 && s.1 < best.1;
            if lowers_both && pick.is_none_or(|(_, p)| s.0 + s.1 < p.0 + p.1) {
                pick = Some((c, s));
            }
        }
        let Some((c, s)) = pick else {
            return terms;
        };
        terms.push(c);
        best = s;
    }
}

fn log_residual(obs: &[Obs], model: Option<&Model>) -> f64 {
    obs.iter()
        .map(|o| {
            let p = model.map_or(1.0, |m| m.ratio(&o.features));
            (o.ratio / p).ln().abs()
        })
        .sum()
}

/// Every term's report, the kept ones in model order, then the candidates left out.
pub fn term_reports(obs: &[Obs], kept: &[Term]) -> Vec<TermReport> {
    let bare = log_residual(obs, None);
    let all = data(&obs.iter().collect::<Vec<_>>());
    let full = fit_model(&all, kept);
    let mut out = Vec::new();
    let mut prefix: Vec<Term> = Vec::new();
    let mut last = bare;
    for &t in kept {
        prefix.push(t);
        let m = fit_model(&all, &prefix);
        let l = log_residual(obs, m.as_ref());
        let (median, p90) = held_out_stats(obs, &prefix).unwrap_or((f64::NAN, f64::NAN));
        out.push(TermReport {
            term: t,
            kept: true,
            coef: full.as_ref().and_then(|m| m.coef(t)).unwrap_or(f64::NAN),
            median,
            p90,
            share: (last - l) / bare,
        });
        last = l;
    }
    for t in Term::CANDIDATES.into_iter().filter(|c| !kept.contains(c)) {
        let mut with = kept.to_vec();
        with.push(t);
        let m = fit_model(&all, &with);
        let l = log_residual(obs, m.as_ref());
        let (median, p90) = held_out_stats(obs, &with).unwrap_or((f64::NAN, f64::NAN));
        out.push(TermReport {
            term: t,
            kept: false,
            coef: m.and_then(|m| m.coef(t)).unwrap_or(f64::NAN),
            median,
            p90,
            share: (last - l) / bare,
        });
    }
    out
}
