//! The set's report: every point evaluated, its expectation held out by source (nested), and
//! the figures per kind of work, per chip family and overall, with what each term, family factor
//! and kind band does ([`Report`]); `./dev validate` prints it and the validation view shows it.

use super::nested::{self, Fits, Tail, TailSummary};
use super::summary::summary;
use super::terms::{term_reports, TermReport};
use super::{observations, Family, FamilyFactor, KindBand, MeasureKind, Row, Summary, SET_VERSION};

/// The set evaluated: each point's row, and the figures per kind of work, per family and
/// overall, all of the nested hold-out.
#[derive(Debug, Clone)]
pub struct Report {
    /// [`SET_VERSION`].
    pub set_version: &'static str,
    /// One row per point, in set order.
    pub rows: Vec<Row>,
    /// Per kind of work, in [`MeasureKind::ALL`] order.
    pub by_work: Vec<Summary>,
    /// Per family, in [`Family::ALL`] order.
    pub by_family: Vec<Summary>,
    /// The whole set.
    pub overall: Summary,
    /// What each term of the model does on the whole set ([`term_reports`]).
    pub terms: Vec<TermReport>,
    /// The page's family factors: every family with a point, kept or pooled, with the figures
    /// that decided it.
    pub families: Vec<FamilyFactor>,
    /// The page's kind biases and bands.
    pub kinds: Vec<KindBand>,
    /// Each tail's nested error with and without the tails' terms.
    pub tails: Vec<TailSummary>,
    /// What was held out, in words.
    pub held_out: &'static str,
}

/// What the nested hold-out holds out, as the report and the view say it.
pub const HELD_OUT: &str = "Each point's expectation comes from the whole procedure run on every other source's points: all points sharing its source key (one publication, vendor table or benchmark campaign) are left out, then the terms are selected, the model fitted, the family factors decided and the kind's bias and band taken on what is left. Nothing of a point's own source enters its expectation, its band or the choices behind them.";

impl Report {
    /// The rows whose predicted lower bound is above the measured time (ratio below 1).
    pub fn below_bound(&self) -> Vec<&Row> {
        self.rows
            .iter()
            .filter(|r| r.ratio.is_some_and(|x| x < 1.0))
            .collect()
    }
}

/// The set's report from its evaluated rows (`results::validated::report` evaluates them
/// through the result store): each point's expectation held out by source (nested), from the
/// fits given (the stored ones, [`super::stored_fits`], or a fresh run, [`super::fresh_fits`]),
/// and the figures per kind of work, per family and per source.
pub fn report_of(mut rows: Vec<Row>, fits: &Fits) -> Report {
    let obs = observations(&rows);
    nested::fill(&mut rows, &obs, fits);
    let group = |f: &dyn Fn(&Row) -> bool| -> Vec<&Row> { rows.iter().filter(|r| f(r)).collect() };
    let by_work = MeasureKind::ALL
        .iter()
        .map(|w| summary(w.as_str(), &group(&|r| r.point.work == *w)))
        .collect();
    let by_family = Family::ALL
        .iter()
        .map(|f| summary(f.id(), &group(&|r| r.point.family == *f)))
        .collect();
    let overall = summary("all", &group(&|_| true));
    let tails = Tail::ALL
        .iter()
        .map(|t| TailSummary::of(*t, &group(&|r| r.tail == Some(*t))))
        .collect();
    let page = fits.page.calibration(&obs);
    Report {
        set_version: SET_VERSION,
        terms: term_reports(&obs, &fits.page.terms),
        families: page.families.clone(),
        kinds: page.kinds.clone(),
        rows,
        by_work,
        by_family,
        overall,
        tails,
        held_out: HELD_OUT,
    }
}

impl Report {
    /// Per source (a point's `source_key`), in the order the set first cites each: where the
    /// held-out error comes from. Holding out is by source, so a source whose engine runs
    /// farther from the bound than every other source's shows here as one group.
    pub fn by_source(&self) -> Vec<Summary> {
        let mut keys: Vec<&str> = Vec::new();
        for r in &self.rows {
            if !keys.contains(&r.point.source_key) {
                keys.push(r.point.source_key);
            }
        }
        keys.iter()
            .map(|k| {
                let rows: Vec<&Row> = self
                    .rows
                    .iter()
                    .filter(|r| r.point.source_key == *k)
                    .collect();
                summary(k, &rows)
            })
            .collect()
    }
}
