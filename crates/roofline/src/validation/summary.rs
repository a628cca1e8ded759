//! Figures over a group of the set's points: per kind of work, per chip family, per source and
//! overall ([`super::report`] and the `./dev validate` example): nested held-out errors, band
//! coverage, and the old (not nested) figure beside them.

use super::fit::{median, percentile};
use super::Row;

/// Figures over a group of points.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    /// The group (`gemm`, `hopper`, `all`).
    pub label: String,
    /// Points in the group.
    pub total: usize,
    /// Points with a predicted figure.
    pub expressed: usize,
    /// `expressed / total`.
    pub coverage: f64,
    /// The bare roofline's median `measured / predicted`.
    pub median_ratio: Option<f64>,
    /// Points whose predicted figure is above the measured one.
    pub below_bound: usize,
    /// Points with a held-out expectation.
    pub with_expectation: usize,
    /// Median `|t_expected / measured − 1|`, held out by source (nested).
    pub median_abs_error: Option<f64>,
    /// 90th percentile of the same.
    pub p90_abs_error: Option<f64>,
    /// Points whose held-out expectation has a band.
    pub with_band: usize,
    /// Of those, the points whose measured time lies in the band.
    pub covered: usize,
    /// The old figure's median |error| (terms chosen on every point: not nested).
    pub old_median_abs_error: Option<f64>,
    /// The old figure's p90 |error|.
    pub old_p90_abs_error: Option<f64>,
}

pub(super) fn summary(label: &str, rows: &[&Row]) -> Summary {
    let ratios: Vec<f64> = rows.iter().filter_map(|r| r.ratio).collect();
    let errors: Vec<f64> = rows.iter().filter_map(|r| r.error.map(f64::abs)).collect();
    let old: Vec<f64> = rows
        .iter()
        .filter_map(|r| r.old_error.map(f64::abs))
        .collect();
    Summary {
        label: label.to_string(),
        total: rows.len(),
        expressed: ratios.len(),
        coverage: if rows.is_empty() {
            0.0
        } else {
            ratios.len() as f64 / rows.len() as f64
        },
        median_ratio: median(&ratios),
        below_bound: ratios.iter().filter(|&&r| r < 1.0).count(),
        with_expectation: errors.len(),
        median_abs_error: median(&errors),
        p90_abs_error: percentile(&errors, 0.9),
        with_band: rows.iter().filter(|r| r.covered.is_some()).count(),
        covered: rows.iter().filter(|r| r.covered == Some(true)).count(),
        old_median_abs_error: median(&old),
        old_p90_abs_error: percentile(&old, 0.9),
    }
}
