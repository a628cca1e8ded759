//! The validation set: published measurements as scenarios, their bare-roofline ratio, and a
//! calibration fitted on them, held out by source (issue 25).
//!
//! Each [`Point`] is one published measurement: a scenario link (v1 syntax) the page opens,
//! the figure as its source states it, the time in seconds that follows from it (with the
//! arithmetic), the conditions, the source with its quoted row, an evidence tier, and which
//! figure of the scenario it is compared with ([`Compared`]). The data lives in one file per
//! kind of work (`gemm.rs`, `attention.rs`, `serving_points.rs`, `training.rs`,
//! `collective.rs`), pure statics like the chip presets. A point the app cannot express yet
//! stays in the set with `expressible: Err(reason)` and counts against coverage.
//!
//! **The bare roofline.** [`predict`] decodes a point's link, analyses op 1 on chip 1 and takes
//! the compared figure: `ratio = measured / predicted`. A ratio below 1 is a lower bound above
//! a measured time, a defect of the model or of the scenario: [`Report::below_bound`] lists
//! them with their notes.
//!
//! **The calibration** ([`fit`]): for a kind of work and a chip family, the pool is the set's
//! points of that kind and family when there are at least [`MIN_POINTS`] of them, else, when
//! the family has at least one, every family's points of that kind (the expectation says it
//! borrowed); a family with none of the kind, or fewer than [`MIN_POINTS`] in the pool, gives
//! no expectation. `r` is the pool's median ratio and `t_expected = t_lower ×
//! r`. The band `[lo, hi]` is `t_expected` times the 10th and 90th percentiles of the pool's
//! held-out residuals (each pool point's ratio over the median of the pool without its
//! source; in a pool of one source, without the point itself); fewer than [`MIN_POINTS`]
//! residuals gives no expectation either. Held out by
//! source: a point's own expectation ([`Report`]) is fitted without every point of its source
//! ([`Point::source_key`]: the publication or benchmark campaign, so one vendor table is one
//! source). Medians and percentiles interpolate linearly between sorted values
//! ([`percentile`]): the fit is deterministic.

mod attention;
mod collective;
mod fit;
mod fitted;
mod gemm;
mod serving_points;
mod training;

use crate::analysis::analyze;
use crate::serving::serving;
use crate::url::decode;
use std::sync::OnceLock;

use fit::median;
pub use fit::{fit, percentile, Expectation, Obs};

/// The version of the set and its fit: an expectation names the set it came from.
pub const SET_VERSION: &str = "2026-11-25.1";

/// Fewest points behind a fit (and fewest held-out residuals behind its band).
pub const MIN_POINTS: usize = 4;

/// The kind of work a measurement times: each operation kind says which it is
/// ([`crate::op::Op::workload`]).
pub use crate::op::Workload as Work;

/// A chip family: chips whose measured efficiency is pooled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Family {
    /// NVIDIA Hopper: H100, H800, H200, H20.
    Hopper,
    /// NVIDIA Blackwell: B200, GB200, B300.
    Blackwell,
    /// NVIDIA Ampere: A100.
    Ampere,
    /// AMD CDNA 3: MI300X, MI325X.
    Cdna3,
    /// Google TPUs: v4, v5e, v5p, v6e.
    Tpu,
}

impl Family {
    /// Every family, in report order.
    pub const ALL: [Family; 5] = [
        Family::Hopper,
        Family::Blackwell,
        Family::Ampere,
        Family::Cdna3,
        Family::Tpu,
    ];

    /// The family's id (`hopper`, ...).
    pub fn id(self) -> &'static str {
        match self {
            Family::Hopper => "hopper",
            Family::Blackwell => "blackwell",
            Family::Ampere => "ampere",
            Family::Cdna3 => "cdna3",
            Family::Tpu => "tpu",
        }
    }
}

/// How much a measurement's source can be trusted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tier {
    /// Published by the vendor of the chip, the kernel or the system (NVIDIA, AMD, Google,
    /// DeepSeek, Microsoft Azure).
    VendorPublished,
    /// A paper or its authors' repository.
    Paper,
    /// A user's benchmark run, published in an issue or forum.
    CommunityBenchmark,
    /// Measured by this project.
    MeasuredByProject,
}

/// Which figure of the scenario the measured time is compared with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compared {
    /// `Analysis::t_lower` of op 1 on chip 1 (a kernel, a collective, an `llm` step, a
    /// training step).
    TLower,
    /// The serving row's time per output token (a decode step at `b` and `P + G/2`).
    Tpot,
    /// The serving row's time to first token.
    Ttft,
    /// Seconds per output token of the whole group, serving `min(b, max_batch)` requests as a
    /// static batch: `request_latency / (B·G)` (prefill of `B` prompts, then `G − 1` decode
    /// steps). The inverse of a "total output throughput".
    PerOutputToken,
}

impl Compared {
    /// A short name for tables.
    pub fn id(self) -> &'static str {
        match self {
            Compared::TLower => "t_lower",
            Compared::Tpot => "tpot",
            Compared::Ttft => "ttft",
            Compared::PerOutputToken => "s/out-token",
        }
    }
}

/// One published measurement.
#[derive(Debug, Clone, Copy)]
pub struct Point {
    /// Unique id.
    pub id: &'static str,
    /// The kind of work.
    pub work: Work,
    /// The chip family.
    pub family: Family,
    /// The scenario, a v1 link query (`?chip=...&op=...`).
    pub link: &'static str,
    /// The figure as published, with its unit (`1358 TFLOPS`).
    pub measured: &'static str,
    /// The measured time in seconds that follows from it, in the compared figure's terms.
    pub measured_s: f64,
    /// The arithmetic from `measured` to `measured_s`.
    pub derivation: &'static str,
    /// Exact SKU and count, engine and version, precision, batch, lengths, parallelism.
    pub conditions: &'static str,
    /// The source: a URL, or a paper and its table.
    pub source: &'static str,
    /// The source for holding out: one key per publication or benchmark campaign.
    pub source_key: &'static str,
    /// The quoted sentence or row.
    pub quote: &'static str,
    /// The evidence tier.
    pub tier: Tier,
    /// Notes: caveats, why a bound may sit above the measurement.
    pub notes: &'static str,
    /// Which figure of the scenario is compared.
    pub compared: Compared,
    /// `Err(reason)` where the app cannot express the measurement yet.
    pub expressible: Result<(), &'static str>,
}

impl Point {
    /// The chip preset id of the link's first chip (`h100` in `?chip=h100:links=1&...`).
    pub fn chip(&self) -> &'static str {
        let q = self.link.trim_start_matches('?');
        q.split('&')
            .find_map(|kv| kv.strip_prefix("chip="))
            .map(|c| c.split(':').next().unwrap_or(c))
            .unwrap_or("")
    }
}

/// Every point of the set, grouped by kind of work.
pub fn points() -> Vec<&'static Point> {
    [
        gemm::POINTS,
        attention::POINTS,
        serving_points::POINTS,
        training::POINTS,
        collective::POINTS,
    ]
    .iter()
    .flat_map(|g| g.iter())
    .collect()
}

/// The figure a point's scenario predicts, in seconds ([`Point::compared`]): its link decoded
/// (any notice is an error: the link must mean exactly what it says), op 1 on chip 1.
pub fn predict(p: &Point) -> Result<f64, String> {
    let d = decode(p.link);
    if !d.notices.is_empty() {
        return Err(format!("the link has notices: {}", d.notices.join("; ")));
    }
    let s = d.scenario;
    let (Some(op), Some(chip)) = (s.ops.first(), s.chips.first()) else {
        return Err("the link has no op or no chip".into());
    };
    let opts = &s.options;
    let t_lower = analyze(op, chip, opts).map_err(|e| e.to_string())?.t_lower;
    let serve = |op: &crate::op::Op| {
        serving(op, chip, opts)
            .map_err(|e| e.to_string())?
            .ok_or_else(|| "a serving figure of an op that is not an llm".to_string())
    };
    let t = match p.compared {
        Compared::TLower => t_lower,
        Compared::Tpot => serve(op)?.tpot,
        Compared::Ttft => serve(op)?.ttft,
        Compared::PerOutputToken => {
            let first = serve(op)?;
            let b = first.batch.min(first.max_batch.floor());
            if b < 1.0 {
                return Err("no sequence fits in memory".into());
            }
            let mut at_b = op.clone();
            at_b.set("b", &format!("{b}")).map_err(|e| e.to_string())?;
            let s = serve(&at_b)?;
            s.request_latency / (s.batch * s.output)
        }
    };
    if t.is_finite() && t > 0.0 {
        Ok(t)
    } else {
        Err(format!("the predicted figure is {t}"))
    }
}

/// A point of the set, evaluated.
#[derive(Debug, Clone)]
pub struct Row {
    /// The point.
    pub point: &'static Point,
    /// The predicted figure (seconds), or why there is none: the point's own reason when it
    /// is not expressible, else the failure of its link.
    pub predicted: Result<f64, String>,
    /// `measured_s / predicted`.
    pub ratio: Option<f64>,
    /// The expectation fitted without the point's source.
    pub held_out: Option<Expectation>,
    /// `t_expected / measured − 1` of the held-out expectation.
    pub error: Option<f64>,
}

fn evaluate() -> Vec<Row> {
    points()
        .into_iter()
        .map(|p| {
            let predicted = match p.expressible {
                Ok(()) => predict(p),
                Err(why) => Err(why.to_string()),
            };
            let ratio = predicted.as_ref().ok().map(|t| p.measured_s / t);
            Row {
                point: p,
                predicted,
                ratio,
                held_out: None,
                error: None,
            }
        })
        .collect()
}

fn observations(rows: &[Row]) -> Vec<Obs> {
    rows.iter()
        .filter_map(|r| {
            Some(Obs {
                id: r.point.id,
                source: r.point.source_key,
                work: r.point.work,
                family: r.point.family,
                ratio: r.ratio?,
            })
        })
        .collect()
}

/// The set as the page fits it: each point with its stored ratio ([`fitted::RATIOS`], checked
/// against a fresh evaluation by `tests/validation.rs`), so an expectation costs no analysis of
/// the set's scenarios.
fn all_observations() -> &'static [Obs] {
    static OBS: OnceLock<Vec<Obs>> = OnceLock::new();
    OBS.get_or_init(|| {
        points()
            .into_iter()
            .filter_map(|p| {
                let ratio = fitted::RATIOS.iter().find(|(id, _)| *id == p.id)?.1;
                Some(Obs {
                    id: p.id,
                    source: p.source_key,
                    work: p.work,
                    family: p.family,
                    ratio,
                })
            })
            .collect()
    })
}

/// Every expressed point's ratio measured / predicted, freshly evaluated (each link analysed):
/// what [`fitted::RATIOS`] must equal, and what `./dev validate --write` writes there.
pub fn evaluated_ratios() -> Vec<(&'static str, f64)> {
    evaluate()
        .iter()
        .filter_map(|r| Some((r.point.id, r.ratio?)))
        .collect()
}

/// The stored ratios, as [`evaluated_ratios`] gives them when they were written.
pub fn stored_ratios() -> &'static [(&'static str, f64)] {
    fitted::RATIOS
}

/// Chip families by preset id: the chips whose measurements are pooled. A preset not listed
/// (L4, RTX parts, MI355X, Trainium, Gaudi) has no generation in the set to borrow from.
const FAMILIES: &[(&str, Family)] = &[
    ("tpu-v4p", Family::Tpu),
    ("tpu-v5e", Family::Tpu),
    ("tpu-v5p", Family::Tpu),
    ("tpu-v6e", Family::Tpu),
    ("tpu7x", Family::Tpu),
    ("a100", Family::Ampere),
    ("h100", Family::Hopper),
    ("h200", Family::Hopper),
    ("h800", Family::Hopper),
    ("h20", Family::Hopper),
    ("b200", Family::Blackwell),
    ("b300", Family::Blackwell),
    ("mi300x", Family::Cdna3),
    ("mi325x", Family::Cdna3),
];

/// The family of a chip (from its preset, edited or not); `None` for a chip the set has no
/// generation for, or one built from scratch.
pub fn family_of(chip: &crate::chip::Chip) -> Option<Family> {
    let id = chip.preset_id.as_deref()?;
    FAMILIES.iter().find(|(p, _)| *p == id).map(|(_, f)| *f)
}

/// The expected time of `op` on `chip` whose bare roofline bound is `t_lower` (no derate, no
/// calibration): the set's fit for the op's kind of work on the chip's family, or why there is
/// none (never a number without evidence).
pub fn expectation_for(
    op: &crate::op::Op,
    chip: &crate::chip::Chip,
    t_lower: f64,
) -> Result<Expectation, String> {
    let work = op.workload().ok_or_else(|| {
        format!("the validation set ({SET_VERSION}) measures no operation of this kind")
    })?;
    let family = family_of(chip).ok_or_else(|| {
        format!(
            "the validation set ({SET_VERSION}) has no measurements on {} or its generation",
            chip.name
        )
    })?;
    if !(t_lower.is_finite() && t_lower > 0.0) {
        return Err("no bound to scale".into());
    }
    fit(all_observations(), work, family, t_lower, None).ok_or_else(|| {
        format!(
            "fewer than {MIN_POINTS} {} measurements back an expectation in the validation set \
             ({SET_VERSION})",
            work.as_str()
        )
    })
}

/// The expectation for a bare roofline figure `t_lower` of `work` on `family`, fitted on the
/// whole set (nothing held out); `None` without enough evidence.
pub fn expected(work: Work, family: Family, t_lower: f64) -> Option<Expectation> {
    fit(all_observations(), work, family, t_lower, None)
}

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
    /// Median `|t_expected / measured − 1|`, held out by source.
    pub median_abs_error: Option<f64>,
    /// 90th percentile of the same.
    pub p90_abs_error: Option<f64>,
}

fn summary(label: &str, rows: &[&Row]) -> Summary {
    let ratios: Vec<f64> = rows.iter().filter_map(|r| r.ratio).collect();
    let errors: Vec<f64> = rows.iter().filter_map(|r| r.error.map(f64::abs)).collect();
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
    }
}

/// The set evaluated: each point's row, and the figures per kind of work, per family and
/// overall.
#[derive(Debug, Clone)]
pub struct Report {
    /// [`SET_VERSION`].
    pub set_version: &'static str,
    /// One row per point, in set order.
    pub rows: Vec<Row>,
    /// Per kind of work, in [`Work::ALL`] order.
    pub by_work: Vec<Summary>,
    /// Per family, in [`Family::ALL`] order.
    pub by_family: Vec<Summary>,
    /// The whole set.
    pub overall: Summary,
}

impl Report {
    /// The rows whose predicted lower bound is above the measured time (ratio below 1).
    pub fn below_bound(&self) -> Vec<&Row> {
        self.rows
            .iter()
            .filter(|r| r.ratio.is_some_and(|x| x < 1.0))
            .collect()
    }
}

/// Evaluates the set: predictions, ratios, each point's expectation held out by source.
pub fn report() -> Report {
    let mut rows = evaluate();
    let obs = observations(&rows);
    for row in &mut rows {
        let p = row.point;
        let Ok(t) = row.predicted else { continue };
        row.held_out = fit(&obs, p.work, p.family, t, Some(p.source_key));
        row.error = row.held_out.as_ref().map(|e| e.t / p.measured_s - 1.0);
    }
    let group = |f: &dyn Fn(&Row) -> bool| -> Vec<&Row> { rows.iter().filter(|r| f(r)).collect() };
    let by_work = Work::ALL
        .iter()
        .map(|w| summary(w.as_str(), &group(&|r| r.point.work == *w)))
        .collect();
    let by_family = Family::ALL
        .iter()
        .map(|f| summary(f.id(), &group(&|r| r.point.family == *f)))
        .collect();
    let overall = summary("all", &group(&|_| true));
    Report {
        set_version: SET_VERSION,
        rows,
        by_work,
        by_family,
        overall,
    }
}
