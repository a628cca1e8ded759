//! The validation set's points as its fits see them ([`Obs`]), and what every step of the
//! calibration ([`super::calibration`]) and the term selection ([`super::terms`]) read of them.

use super::fit::{median, percentile, Features};
use super::{Family, MeasureKind};

/// One point as the fit sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Obs {
    /// The point's id.
    pub id: &'static str,
    /// Its source key (holding out drops every point of one key).
    pub source: &'static str,
    /// Its chip preset id (`h100`).
    pub chip: &'static str,
    /// Its kind of work.
    pub work: MeasureKind,
    /// Its chip family.
    pub family: Family,
    /// `measured / predicted`.
    pub ratio: f64,
    /// What the model reads of its compared figure.
    pub features: Features,
}

pub(super) fn data(obs: &[&Obs]) -> Vec<(Features, f64)> {
    obs.iter().map(|o| (o.features, o.ratio)).collect()
}

pub(super) fn sources_of(obs: &[Obs]) -> Vec<&'static str> {
    let mut s: Vec<&'static str> = obs.iter().map(|o| o.source).collect();
    s.sort_unstable();
    s.dedup();
    s
}

/// `(median, p90)` of `|e|`.
pub(super) fn stats(e: &[f64]) -> Option<(f64, f64)> {
    Some((median(e)?, percentile(e, 0.9)?))
}
