//! The calibration of the validation set (see the module docs of [`super`]): a kind of work's
//! median measured / predicted ratio on a family, held out by source, with the band of its
//! held-out residuals; and the statistics it needs.

use super::{Family, Work, MIN_POINTS, SET_VERSION};

/// `q`-th quantile (0 to 1) of `v`, interpolating linearly between sorted values; `None` for
/// an empty slice.
pub fn percentile(v: &[f64], q: f64) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let x = q.clamp(0.0, 1.0) * (s.len() - 1) as f64;
    let (i, f) = (x.floor() as usize, x - x.floor());
    let j = (i + 1).min(s.len() - 1);
    Some(s[i] + f * (s[j] - s[i]))
}

pub(super) fn median(v: &[f64]) -> Option<f64> {
    percentile(v, 0.5)
}

/// One point as the fit sees it: its measured over its predicted figure.
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
}

/// An expected time: the bare roofline's figure times the set's measured ratio.
#[derive(Debug, Clone, PartialEq)]
pub struct Expectation {
    /// `t_lower × r`, seconds.
    pub t: f64,
    /// `t` times the 10th percentile of the held-out residuals.
    pub lo: f64,
    /// `t` times the 90th percentile of the held-out residuals.
    pub hi: f64,
    /// The fitted ratio `r` (the pool's median measured / predicted).
    pub r: f64,
    /// The ids of the points the fit used.
    pub based_on: Vec<&'static str>,
    /// Where the family had fewer than [`MIN_POINTS`] points: what the fit borrowed instead
    /// (every family's points of the kind).
    pub borrowed_from: Option<String>,
    /// The set's version.
    pub set_version: &'static str,
}

/// The expectation for `t_lower` of a kind of work on a family, fitted on `obs` without the
/// points of `exclude_source` (see the module docs); `None` without enough evidence.
pub fn fit(
    obs: &[Obs],
    work: Work,
    family: Family,
    t_lower: f64,
    exclude_source: Option<&str>,
) -> Option<Expectation> {
    let kept = |o: &&Obs| o.work == work && Some(o.source) != exclude_source;
    let own: Vec<&Obs> = obs
        .iter()
        .filter(kept)
        .filter(|o| o.family == family)
        .collect();
    // A generation with no measurement of the kind has nothing to stand on: no expectation
    // (a TPU's GEMM is not expected from GPUs' GEMMs).
    if own.is_empty() {
        return None;
    }
    let (pool, borrowed_from) = if own.len() >= MIN_POINTS {
        (own, None)
    } else {
        let all: Vec<&Obs> = obs.iter().filter(kept).collect();
        let why = format!(
            "every family's {} points ({} has {} of its own, fewer than {MIN_POINTS})",
            work.as_str(),
            family.id(),
            own.len()
        );
        (all, Some(why))
    };
    if pool.len() < MIN_POINTS {
        return None;
    }
    let ratios: Vec<f64> = pool.iter().map(|o| o.ratio).collect();
    let r = median(&ratios)?;
    // Held-out residuals: each pool point against the pool's median without its source, or,
    // where its source is the whole pool, without the point itself.
    let single_source = pool.iter().all(|o| o.source == pool[0].source);
    let residuals: Vec<f64> = pool
        .iter()
        .enumerate()
        .filter_map(|(i, q)| {
            let rest: Vec<f64> = pool
                .iter()
                .enumerate()
                .filter(|(j, o)| {
                    if single_source {
                        *j != i
                    } else {
                        o.source != q.source
                    }
                })
                .map(|(_, o)| o.ratio)
                .collect();
            median(&rest).map(|m| q.ratio / m)
        })
        .collect();
    if residuals.len() < MIN_POINTS {
        return None;
    }
    let t = t_lower * r;
    Some(Expectation {
        t,
        lo: t * percentile(&residuals, 0.1)?,
        hi: t * percentile(&residuals, 0.9)?,
        r,
        based_on: pool.iter().map(|o| o.id).collect(),
        borrowed_from,
        set_version: SET_VERSION,
    })
}
