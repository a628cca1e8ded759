//! Which terms the validation set's model keeps (step 1 of the calibration in [`super::calibration`]):
//! candidates tried best first, each kept only where it lowers both the held-out median and p90
//! |error|; and what each term does on the whole set, for the report ([`TermReport`]).

use super::fit::{fit_model, Term, TermFit};
use super::obs::{data, sources_of, stats, Obs};
use super::MIN_POINTS;

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
    /// Held-out median |error| of the model with it (held out by source, terms as listed:
    /// the selection's own figure, not the nested one).
    pub median: f64,
    /// Held-out p90 |error| of the model with it.
    pub p90: f64,
    /// Its share of the bare roofline's residual: the drop of `Σ |ln(measured / expected)|`
    /// when it joins the model (resources first, in order, then the kept candidates), over the
    /// bare roofline's `Σ |ln(measured / T_lower)|`.
    pub share: f64,
}

/// Held-out `(median, p90)` |error| of `terms` on `obs`, each source's points predicted by the
/// model fitted without that source.
fn held_out_stats(obs: &[Obs], terms: &[Term]) -> Option<(f64, f64)> {
    let mut e = Vec::new();
    for s in sources_of(obs) {
        let rest: Vec<&Obs> = obs.iter().filter(|o| o.source != s).collect();
        if rest.len() < MIN_POINTS {
            continue;
        }
        let Some(m) = fit_model(&data(&rest), terms) else {
            continue;
        };
        for o in obs.iter().filter(|o| o.source == s) {
            let p = m.ratio(&o.features);
            if p > 0.0 {
                e.push((p / o.ratio - 1.0).abs());
            }
        }
    }
    stats(&e)
}

/// The terms the data support: the three resources and the tails' terms, then candidates best
/// first. Each round tries every candidate left and keeps the one that lowers both the held-out
/// median and p90 |error| of the model so far, by the most in their sum; the rounds stop when
/// none lowers both. A term whose feature is zero on every point is not tried (nothing to fit it
/// on).
pub fn select_terms(obs: &[Obs]) -> Vec<Term> {
    select_terms_from(obs, &Term::CANDIDATES)
}

/// [`select_terms`] over the candidates given (`./dev validate` runs it without the tails'
/// terms too). The tails' terms among them ([`Term::TAILS`]) are not selected but always in the
/// model where their feature is not zero on every point: each takes its form from a stated
/// mechanism and touches only its class, whose few points cannot move the whole set's median,
/// so the rule that selects the other candidates would judge them on points they do not touch;
/// their coefficients are fitted like any other, in each fold.
pub fn select_terms_from(obs: &[Obs], candidates: &[Term]) -> Vec<Term> {
    let live = |c: &Term| obs.iter().any(|o| c.x(&o.features) != 0.0);
    let mut terms = Term::RESOURCES.to_vec();
    terms.extend(
        candidates
            .iter()
            .copied()
            .filter(|c| Term::TAILS.contains(c) && live(c)),
    );
    let Some(mut best) = held_out_stats(obs, &terms) else {
        return terms;
    };
    let live: Vec<Term> = candidates
        .iter()
        .copied()
        .filter(|c| !Term::TAILS.contains(c) && live(c))
        .collect();
    loop {
        let mut pick: Option<(Term, (f64, f64))> = None;
        for &c in live.iter().filter(|c| !terms.contains(c)) {
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

fn log_residual(obs: &[Obs], model: Option<&TermFit>) -> f64 {
    obs.iter()
        .map(|o| {
            let p = model.map_or(1.0, |m| m.ratio(&o.features));
            libm::log(o.ratio / p).abs()
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
