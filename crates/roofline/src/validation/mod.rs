//! The validation set: published measurements as scenarios, their bare-roofline ratio, and a
//! calibration fitted on them, held out by source (issue 25).
//!
//! Each [`Point`] is one published measurement: a scenario link (v1 syntax) the page opens,
//! the figure as its source states it, the time in seconds that follows from it (with the
//! arithmetic), the conditions, the source with its quoted row, an evidence tier, and which
//! figure of the scenario it is compared with ([`Compared`]). The data lives in one file per
//! kind of work (`gemm.rs`, `attention.rs`, `serving_points.rs`, `training.rs`,
//! `collective.rs`), pure statics like the chip presets, and in `measured.rs`: what this project
//! measured itself on a lent GPU (`scripts/measure_gpu.py`, its output in `docs/measured/`). A point the app cannot express yet
//! stays in the set with `expressible: Err(reason)` and counts against coverage.
//!
//! **The bare roofline.** [`predict`] decodes a point's link, analyses op 1 on chip 1 and takes
//! the compared figure: `ratio = measured / predicted`. A ratio below 1 is a lower bound above
//! a measured time, a defect of the model or of the scenario: [`Report::below_bound`] lists
//! them with their notes.
//!
//! **The calibration** ([`calibrate`], the model in `fit.rs`). A compared figure's bound is
//! split by what binds each piece of it ([`Split`]: the shares of `T_lower` in compute-,
//! memory- and network-bound parts; a kernel is one piece). The model says
//! `measured / T_lower ≈ a_C·compute + a_M·memory + a_N·network (+ candidate terms)`: each
//! resource's piece slowed by the inverse of its achievable fraction, pooled over every chip
//! and kind of work (per-family and per-kind factors were tried and raised the held-out
//! error). The candidate terms ([`Term::CANDIDATES`]: a fixed overhead per kernel launch and
//! per model step, a fixed latency per collective on several chips, MoE load imbalance) are
//! added best first, each kept only where it lowers both the held-out median and p90 |error|
//! ([`select_terms`]; the kept list is stored in `fitted.rs` and checked by
//! `tests/it/validation.rs`). Coefficients are
//! `≥ 0` and minimise `Σ |model / measured − 1|` (least absolute relative error by iteratively
//! reweighted least squares: one wild point cannot drag every expectation; deterministic).
//! `t_expected = T_lower × r`. The band `[lo, hi]` is `t_expected` times the 10th and 90th
//! percentiles of the held-out residuals of the figure's kind of work (each point's ratio over
//! the model fitted without its source), shown only where at least [`MIN_POINTS`] back it. A
//! chip whose generation has no point in the set gets no expectation; one whose generation has
//! none of the kind says it rests on the other generations' points. Held out by source: a
//! point's own expectation ([`Report`]) is fitted without every point of its source
//! ([`Point::source_key`]: the publication or benchmark campaign, so one vendor table is one
//! source). Medians and percentiles interpolate linearly between sorted values
//! ([`percentile`]).

mod attention;
mod calibration;
mod collective;
mod fit;
mod fitted;
mod gemm;
mod latency_points;
pub mod load;
mod measured;
mod serving_points;
mod summary;
mod training;

use crate::analysis::{analyze, Analysis};
use crate::serving::{serving, serving_steps};
use crate::url::decode;
use std::sync::OnceLock;

pub use calibration::{
    calibrate, select_terms, term_reports, Basis, Calibration, Expectation, Obs, TermReport,
};
pub use fit::{fit_model, percentile, Features, Model, Split, Term};
use summary::summary;
pub use summary::Summary;

/// The version of the set and its fit: an expectation names the set it came from.
pub const SET_VERSION: &str = "2026-11-26.4";

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

impl Tier {
    /// The tier in words, as the validation view names it.
    pub fn label(self) -> &'static str {
        match self {
            Tier::VendorPublished => "vendor-published",
            Tier::Paper => "paper",
            Tier::CommunityBenchmark => "community benchmark",
            Tier::MeasuredByProject => "measured by this project",
        }
    }
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
    /// Every text empty, a GEMM on Hopper, vendor-published, compared with `t_lower`: the base
    /// a data file's own defaults start from (`..Point::EMPTY`).
    pub(super) const EMPTY: Point = Point {
        id: "",
        work: Work::Gemm,
        family: Family::Hopper,
        link: "",
        measured: "",
        measured_s: 0.0,
        derivation: "",
        conditions: "",
        source: "",
        source_key: "",
        quote: "",
        tier: Tier::VendorPublished,
        notes: "",
        compared: Compared::TLower,
        expressible: Ok(()),
    };

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
        latency_points::POINTS,
        training::POINTS,
        collective::POINTS,
        measured::POINTS,
    ]
    .iter()
    .flat_map(|g| g.iter())
    .collect()
}

/// The figure a point's scenario predicts, in seconds ([`Point::compared`]): its link decoded
/// (any notice is an error: the link must mean exactly what it says), op 1 on chip 1.
pub fn predict(p: &Point) -> Result<f64, String> {
    predict_with_features(p).map(|(t, _)| t)
}

/// [`predict`] with what the model reads of the figure ([`Features`]): the split of the
/// analysis it comes from (a request's, its prefill's and decode steps' weighted by time).
pub fn predict_with_features(p: &Point) -> Result<(f64, Features), String> {
    let d = decode(p.link);
    if !d.notices.is_empty() {
        return Err(format!("the link has notices: {}", d.notices.join("; ")));
    }
    let s = d.scenario;
    let (Some(op), Some(chip)) = (s.ops.first(), s.chips.first()) else {
        return Err("the link has no op or no chip".into());
    };
    let opts = &s.options;
    let a = analyze(op, chip, opts).map_err(|e| e.to_string())?;
    let serve = |op: &crate::op::Op| {
        serving(op, chip, opts)
            .map_err(|e| e.to_string())?
            .ok_or_else(|| "a serving figure of an op that is not an llm".to_string())
    };
    let steps = |op: &crate::op::Op| -> Result<(Analysis, Analysis), String> {
        let (pre, dec) = serving_steps(op).ok_or("not an llm")?;
        let an = |o: &crate::op::Op| analyze(o, chip, opts).map_err(|e| e.to_string());
        Ok((an(&pre)?, an(&dec)?))
    };
    let (t, f) = match p.compared {
        Compared::TLower => (a.t_lower, Features::of(op, &a, a.t_lower, 1.0)),
        Compared::Tpot => {
            let t = serve(op)?.tpot;
            (t, Features::of(op, &steps(op)?.1, t, 1.0))
        }
        Compared::Ttft => {
            let t = serve(op)?.ttft;
            (t, Features::of(op, &steps(op)?.0, t, 1.0))
        }
        Compared::PerOutputToken => {
            let first = serve(op)?;
            let b = first.batch.min(first.max_batch.floor());
            if b < 1.0 {
                return Err("no sequence fits in memory".into());
            }
            let mut at_b = op.clone();
            at_b.set("b", &format!("{b}")).map_err(|e| e.to_string())?;
            let s = serve(&at_b)?;
            let t = s.request_latency / (s.batch * s.output);
            let (pre, dec) = steps(&at_b)?;
            let split = Split::mix(
                Split::of(&pre),
                s.ttft,
                Split::of(&dec),
                (s.output - 1.0) * s.tpot,
            );
            (
                t,
                Features::from_split(split, &at_b, &dec, t, 1.0 / s.batch),
            )
        }
    };
    if t.is_finite() && t > 0.0 {
        Ok((t, f))
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
    /// What the model reads of the predicted figure.
    pub features: Option<Features>,
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
                Ok(()) => predict_with_features(p),
                Err(why) => Err(why.to_string()),
            };
            let ratio = predicted.as_ref().ok().map(|(t, _)| p.measured_s / t);
            Row {
                point: p,
                features: predicted.as_ref().ok().map(|(_, f)| *f),
                predicted: predicted.map(|(t, _)| t),
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
                features: r.features?,
            })
        })
        .collect()
}

/// The set as the page fits it: each expressed point as stored ([`fitted::POINTS`], checked
/// against a fresh evaluation by `tests/it/validation.rs`), so an expectation costs no
/// analysis of the set's scenarios and reads none of its texts.
fn all_observations() -> Vec<Obs> {
    fitted::POINTS
        .iter()
        .map(|&(id, source, work, family, ratio, f)| Obs {
            id,
            source,
            work,
            family,
            ratio,
            features: Features::from_array(f),
        })
        .collect()
}

/// The page's calibration: the stored terms fitted on the stored set, once.
fn page_calibration() -> Option<&'static Calibration> {
    static CAL: OnceLock<Option<Calibration>> = OnceLock::new();
    CAL.get_or_init(|| calibrate(&all_observations(), fitted::TERMS, None))
        .as_ref()
}

/// A stored point: id, source key, kind of work, chip family, `measured / predicted`,
/// [`Features::to_array`]: all the page's fit reads, so it needs none of the set's texts (the
/// draw program, which shows expectations but no validation view, then carries none).
pub type StoredPoint = (&'static str, &'static str, Work, Family, f64, [f64; 7]);

/// Every expressed point's ratio and features, freshly evaluated (each link analysed), and the
/// terms the data support on them: what `fitted.rs` must equal, and what
/// `./dev validate --write` writes there.
pub fn evaluated() -> (Vec<StoredPoint>, Vec<Term>) {
    let rows = evaluate();
    let points = rows
        .iter()
        .filter_map(|r| {
            let p = r.point;
            Some((
                p.id,
                p.source_key,
                p.work,
                p.family,
                r.ratio?,
                r.features?.to_array(),
            ))
        })
        .collect();
    (points, select_terms(&observations(&rows)))
}

/// The stored points and terms, as [`evaluated`] gave them when they were written.
pub fn stored() -> (&'static [StoredPoint], &'static [Term]) {
    (fitted::POINTS, fitted::TERMS)
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
    ("gb200", Family::Blackwell),
    ("gb300", Family::Blackwell),
    ("mi300x", Family::Cdna3),
    ("mi325x", Family::Cdna3),
];

/// The family of a chip (from its preset, edited or not); `None` for a chip the set has no
/// generation for, or one built from scratch.
pub fn family_of(chip: &crate::chip::Chip) -> Option<Family> {
    let id = chip.preset_id.as_deref()?;
    FAMILIES.iter().find(|(p, _)| *p == id).map(|(_, f)| *f)
}

/// The expected time of `op` on `chip` analysed as `a` with the bare options (no derate, no
/// calibration): the page's calibration for the op's kind of work on the chip's generation,
/// or why there is none (never a number without evidence).
pub fn expectation_for(
    op: &crate::op::Op,
    chip: &crate::chip::Chip,
    a: &Analysis,
) -> Result<Expectation, String> {
    expectation_with(op, chip, Features::of(op, a, a.t_lower, 1.0), a.t_lower)
}

/// [`expectation_for`] of a figure bound at `t_lower` with `features` given (a serving row's
/// step, a measured kernel).
pub fn expectation_with(
    op: &crate::op::Op,
    chip: &crate::chip::Chip,
    features: Features,
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
    expected(work, family, features, t_lower).ok_or_else(|| {
        format!("the validation set ({SET_VERSION}) has too few measurements behind an expectation")
    })
}

/// The expectation for a bare roofline figure `t_lower` with `features`, of `work` on
/// `family`, from the page's calibration (nothing held out); `None` without evidence.
pub fn expected(
    work: Work,
    family: Family,
    features: Features,
    t_lower: f64,
) -> Option<Expectation> {
    if !(t_lower.is_finite() && t_lower > 0.0) {
        return None;
    }
    page_calibration()?.expect(work, family, &features, t_lower)
}

/// The serving steps' features of an `llm` op on `chip` (prefill, decode), for its
/// `ttft_expected` and `tpot_expected`: each step analysed with the bare options.
pub fn serving_features(
    op: &crate::op::Op,
    chip: &crate::chip::Chip,
    ttft: f64,
    tpot: f64,
) -> Option<(Features, Features)> {
    let (pre, dec) = serving_steps(op)?;
    let opts = crate::options::Options::default();
    let a = |o: &crate::op::Op| analyze(o, chip, &opts).ok();
    Some((
        Features::of(op, &a(&pre)?, ttft, 1.0),
        Features::of(op, &a(&dec)?, tpot, 1.0),
    ))
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
    /// What each term of the model does ([`term_reports`]).
    pub terms: Vec<TermReport>,
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
    let mut by_source: Vec<(&str, Option<Calibration>)> = Vec::new();
    for row in &mut rows {
        let p = row.point;
        let (Ok(t), Some(f)) = (&row.predicted, row.features) else {
            continue;
        };
        if !by_source.iter().any(|(s, _)| *s == p.source_key) {
            let c = calibrate(&obs, fitted::TERMS, Some(p.source_key));
            by_source.push((p.source_key, c));
        }
        let cal = by_source.iter().find(|(s, _)| *s == p.source_key);
        row.held_out = cal
            .and_then(|(_, c)| c.as_ref())
            .and_then(|c| c.expect(p.work, p.family, &f, *t));
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
        terms: term_reports(&obs, fitted::TERMS),
        rows,
        by_work,
        by_family,
        overall,
    }
}
