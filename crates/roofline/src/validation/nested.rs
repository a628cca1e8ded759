//! The nested hold-out (issue 39): the whole calibration procedure run once without each
//! source, the fits it gives stored (`fitted.rs`, checked against a fresh run by
//! `tests/it/validation.rs`), each point's expectation, error and band coverage read from
//! them; the tails issue 39 names as classes of points; the binomial range a band's coverage
//! is judged by.

use super::calibration::{Calibration, Models};
use super::fit::{fit_model, median, percentile, Term, TermFit};
use super::obs::Obs;
use super::stored::{FitRecord, StoredFit};
use super::{fitted, Family, MeasureKind, Point, Row};

/// Every fit the report reads.
#[derive(Debug, Clone, PartialEq)]
pub struct Fits {
    /// The page's: the procedure on every point.
    pub page: FitRecord,
    /// The procedure without each source, in the order the set first cites them.
    pub nested: Vec<FitRecord>,
    /// The same with the candidates left without the tails' terms ([`Term::TAILS`]).
    pub without_tails: Vec<FitRecord>,
    /// The figure before the nested hold-out: the page's terms fitted without each source
    /// (model only).
    pub old: Vec<FitRecord>,
}

/// The fits as `fitted.rs` stores them.
pub fn stored_fits() -> Fits {
    let all = |v: &[StoredFit]| v.iter().map(StoredFit::record).collect();
    Fits {
        page: fitted::PAGE.record(),
        nested: all(fitted::NESTED),
        without_tails: all(fitted::WITHOUT_TAILS),
        old: all(fitted::OLD),
    }
}

/// The sources of `obs` in the order they first appear.
pub(super) fn sources_in_order(obs: &[Obs]) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for o in obs {
        if !out.contains(&o.source) {
            out.push(o.source);
        }
    }
    out
}

/// The candidates without the tails' terms.
fn without_tails() -> Vec<Term> {
    Term::CANDIDATES
        .into_iter()
        .filter(|t| !Term::TAILS.contains(t))
        .collect()
}

/// One nested fold: the procedure on `obs` without `source`, with `candidates` (its
/// residuals nested too: a selection without each pair of sources).
pub fn fresh_fold(obs: &[Obs], candidates: &[Term], source: &'static str) -> Option<FitRecord> {
    Models::new(obs, candidates)
        .calibration(Some(source))
        .map(|c| FitRecord::of(&c, Some(source)))
}

/// The models of the nested folds alone (steps 1 and 2 without each source, no residuals):
/// what `tests/it/validation.rs` checks a stored fold's terms and coefficients against.
pub fn fresh_fold_model(obs: &[Obs], candidates: &[Term], source: &'static str) -> Option<TermFit> {
    Models::new(obs, candidates).without(&[source])
}

/// The old figure's fold: the page's terms fitted without `source`, model only.
pub fn old_fold(obs: &[Obs], terms: &[Term], source: &'static str) -> Option<FitRecord> {
    let rest: Vec<(super::Features, f64)> = obs
        .iter()
        .filter(|o| o.source != source)
        .map(|o| (o.features, o.ratio))
        .collect();
    if rest.len() < super::MIN_POINTS {
        return None;
    }
    let m = fit_model(&rest, terms)?;
    Some(FitRecord {
        held_out: Some(source),
        terms: m.terms,
        coef: m.coef,
        families: Vec::new(),
        kinds: Vec::new(),
    })
}

/// Every fit, run fresh on the stored points: the procedure on all of them, then without each
/// source, with and without the tails' terms, and the old figure's folds. The selection runs
/// once per source and once per pair of sources (the folds' own residuals are nested):
/// `./dev validate --write` stores the result; in an optimised build it takes minutes.
pub fn fresh_fits(obs: &[Obs]) -> Option<Fits> {
    let sources = sources_in_order(obs);
    let run = |candidates: &[Term]| -> Option<(FitRecord, Vec<FitRecord>)> {
        let mut models = Models::new(obs, candidates);
        let page = FitRecord::of(&models.calibration(None)?, None);
        let folds = sources
            .iter()
            .filter_map(|s| {
                models
                    .calibration(Some(s))
                    .map(|c| FitRecord::of(&c, Some(s)))
            })
            .collect();
        Some((page, folds))
    };
    let (page, nested) = run(&Term::CANDIDATES)?;
    let (_, without_tails) = run(&without_tails())?;
    Some(Fits {
        old: sources
            .iter()
            .filter_map(|s| old_fold(obs, &page.terms, s))
            .collect(),
        page,
        nested,
        without_tails,
    })
}

/// The expectation of a row from the fit without its source, and the calibrations built so
/// far (one per source).
struct Folds<'a> {
    obs: &'a [Obs],
    fits: &'a [FitRecord],
    built: Vec<(&'static str, Calibration)>,
}

impl<'a> Folds<'a> {
    fn new(obs: &'a [Obs], fits: &'a [FitRecord]) -> Self {
        Folds {
            obs,
            fits,
            built: Vec::new(),
        }
    }

    fn of(&mut self, source: &'static str) -> Option<&Calibration> {
        if !self.built.iter().any(|(s, _)| *s == source) {
            let f = self.fits.iter().find(|f| f.held_out == Some(source))?;
            self.built.push((source, f.calibration(self.obs)));
        }
        self.built
            .iter()
            .find(|(s, _)| *s == source)
            .map(|(_, c)| c)
    }
}

/// Fills each row's nested expectation, error, coverage, old error and error without the
/// tails' terms from `fits`.
pub(super) fn fill(rows: &mut [Row], obs: &[Obs], fits: &Fits) {
    let mut nested = Folds::new(obs, &fits.nested);
    let mut plain = Folds::new(obs, &fits.without_tails);
    let mut old = Folds::new(obs, &fits.old);
    for row in rows.iter_mut() {
        let p = row.point;
        let (Ok(t), Some(f)) = (&row.predicted, row.features) else {
            continue;
        };
        let (t, chip, s) = (*t, p.chip(), p.source_key);
        row.held_out = nested
            .of(s)
            .and_then(|c| c.expect(p.work, p.family, chip, &f, t));
        row.error = row.held_out.as_ref().map(|e| e.t / p.measured_s - 1.0);
        row.covered = row.held_out.as_ref().and_then(|e| {
            let (lo, hi) = (e.lo?, e.hi?);
            Some(lo <= p.measured_s && p.measured_s <= hi)
        });
        row.without_tails_error = plain
            .of(s)
            .and_then(|c| c.expect(p.work, p.family, chip, &f, t))
            .map(|e| e.t / p.measured_s - 1.0);
        row.old_error = old.of(s).and_then(|c| {
            if !c.obs.iter().any(|o| o.family == p.family) {
                return None;
            }
            let r = c.model.ratio(&f);
            (r.is_finite() && r > 0.0).then(|| t * r / p.measured_s - 1.0)
        });
    }
}

/// A class of work the expectation missed before issue 39 (its point 4), found by rule from a
/// point's scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Tail {
    /// A training step computing in FP8 or narrower (`act` 8-bit or less).
    Fp8Training,
    /// An LLM prefill with expert parallelism (`ep > 1`).
    EpPrefill,
    /// An all-reduce, all-gather or reduce-scatter of at most 64 MiB.
    SmallCollective,
    /// A GEMM on a CDNA 4 chip (MI355X).
    Cdna4Gemm,
}

impl Tail {
    /// Every tail, in report order.
    pub const ALL: [Tail; 4] = [
        Tail::Fp8Training,
        Tail::EpPrefill,
        Tail::SmallCollective,
        Tail::Cdna4Gemm,
    ];

    /// A short id.
    pub fn id(self) -> &'static str {
        match self {
            Tail::Fp8Training => "fp8-training",
            Tail::EpPrefill => "ep-prefill",
            Tail::SmallCollective => "small-collective",
            Tail::Cdna4Gemm => "cdna4-gemm",
        }
    }

    /// In words.
    pub fn label(self) -> &'static str {
        match self {
            Tail::Fp8Training => "training steps computing in FP8 (or narrower)",
            Tail::EpPrefill => "LLM prefill with expert parallelism",
            Tail::SmallCollective => "all-reduce / all-gather / reduce-scatter of ≤ 64 MiB",
            Tail::Cdna4Gemm => "GEMMs on CDNA 4 (MI355X)",
        }
    }

    /// The term added for it ([`Term::TAILS`]); `None` for the missing family, which the set's
    /// new points fix, not a term.
    pub fn term(self) -> Option<Term> {
        match self {
            Tail::Fp8Training => Some(Term::Fp8Training),
            Tail::EpPrefill => Some(Term::EpOverlap),
            Tail::SmallCollective => Some(Term::CollLatency),
            Tail::Cdna4Gemm => None,
        }
    }

    /// The tail a point belongs to, by rule from its kind of work, family and link.
    pub fn of(p: &Point) -> Option<Tail> {
        let d = crate::url::decode(p.link);
        let op = d.scenario.ops.first()?;
        let narrow = op
            .get("act")
            .and_then(|x| crate::dtype::DType::from_id(&x))
            .is_some_and(|x| x.bytes() <= 1.0);
        match p.work {
            MeasureKind::Training if narrow => Some(Tail::Fp8Training),
            MeasureKind::Prefill if op.get_num("ep").is_some_and(|e| e > 1.0) => {
                Some(Tail::EpPrefill)
            }
            MeasureKind::Collective => {
                let kind = op.get("kind")?;
                let small = op
                    .get_num("bytes")
                    .is_some_and(|b| b <= 64.0 * 1024.0 * 1024.0);
                (small && matches!(kind.as_str(), "allreduce" | "allgather" | "reducescatter"))
                    .then_some(Tail::SmallCollective)
            }
            MeasureKind::Gemm if p.family == Family::Cdna4 => Some(Tail::Cdna4Gemm),
            _ => None,
        }
    }
}

/// A tail's nested error with and without the tails' terms.
#[derive(Debug, Clone, PartialEq)]
pub struct TailSummary {
    /// The tail.
    pub tail: Tail,
    /// Its points.
    pub total: usize,
    /// Its points with a nested expectation.
    pub with_expectation: usize,
    /// Median and p90 |error|, nested, with the tails' terms among the candidates.
    pub with_terms: (Option<f64>, Option<f64>),
    /// Points with an expectation when the candidates leave the tails' terms out.
    pub without_count: usize,
    /// The same without them.
    pub without_terms: (Option<f64>, Option<f64>),
    /// The old figure (terms chosen on every point, no factor or bias).
    pub old: (Option<f64>, Option<f64>),
}

impl TailSummary {
    pub(super) fn of(tail: Tail, rows: &[&Row]) -> TailSummary {
        let abs = |f: &dyn Fn(&Row) -> Option<f64>| -> Vec<f64> {
            rows.iter().filter_map(|r| f(r).map(f64::abs)).collect()
        };
        let two = |e: &[f64]| (median(e), percentile(e, 0.9));
        let with = abs(&|r| r.error);
        let without = abs(&|r| r.without_tails_error);
        let old = abs(&|r| r.old_error);
        TailSummary {
            tail,
            total: rows.len(),
            with_expectation: with.len(),
            with_terms: two(&with),
            without_count: without.len(),
            without_terms: two(&without),
            old: two(&old),
        }
    }
}

/// The central `level` range of a binomial count of `n` trials at probability `p`: the
/// largest `lo` with `P(X < lo) ≤ (1 − level)/2` and the smallest `hi` with `P(X > hi) ≤
/// (1 − level)/2`. At `p = 0.8`, `level = 0.95`: 5–10 of 10, 15–23 of 24, 27–37 of 40.
pub fn binomial_range(n: usize, p: f64, level: f64) -> (usize, usize) {
    let tail = (1.0 - level) / 2.0;
    // P(X = k), by the recurrence P(k) = P(k − 1) · (n − k + 1)/k · p/(1 − p), from P(0).
    let mut pmf = vec![0.0; n + 1];
    pmf[0] = (1.0 - p).powi(n as i32);
    for k in 1..=n {
        pmf[k] = pmf[k - 1] * (n - k + 1) as f64 / k as f64 * p / (1.0 - p);
    }
    let mut lo = 0;
    let mut below = 0.0;
    for (k, pk) in pmf.iter().enumerate() {
        if below + pk > tail {
            lo = k;
            break;
        }
        below += pk;
    }
    let mut hi = n;
    let mut above = 0.0;
    for k in (0..=n).rev() {
        if above + pmf[k] > tail {
            hi = k;
            break;
        }
        above += pmf[k];
    }
    (lo, hi)
}
