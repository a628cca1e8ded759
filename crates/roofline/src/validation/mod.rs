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
//! **The calibration** (`calibration.rs`, the model in `fit.rs`). A compared figure's bound is
//! split by what binds each piece of it ([`Split`]: the shares of `T_lower` in compute-,
//! memory- and network-bound parts; a kernel is one piece). The model says
//! `measured / T_lower ≈ a_C·compute + a_M·memory + a_N·network (+ terms)`: each resource's
//! piece slowed by the inverse of its achievable fraction. Candidate terms ([`Term::CANDIDATES`])
//! are selected best first where they lower both the held-out median and p90 |error|
//! ([`select_terms`]); the tails' terms ([`Term::TAILS`], each from a stated mechanism) are in
//! every fit where their feature is not zero. Coefficients are `≥ 0` and minimise
//! `Σ |model / measured − 1|` (least absolute relative error; deterministic). Then, from each
//! point's residual with the terms selected and fitted without its source: a factor per chip
//! family and a bias per kind of work, each kept only where it lowers both held-out figures of
//! its points, and a p10–p90 band per kind that always contains the expectation
//! ([`FamilyFactor`], [`KindBand`]). `t_expected = T_lower × model × factor × bias`; the
//! expectation names its basis ([`Basis`]: the chip's own points, its family's, or every
//! family's).
//!
//! **The nested hold-out** (`nested.rs`, issue 39): each point's expectation comes from the
//! whole procedure run without its source ([`Point::source_key`]: the publication or benchmark
//! campaign), terms, model, factors, bias and band included; the page's calibration is the same
//! procedure on every point, so its residuals are the nested hold-out's. The fits are stored in
//! `fitted.rs` (checked against a fresh run by `tests/it/validation.rs` and `./dev validate
//! --check`), so neither the page nor the report fits anything at first use. A chip whose
//! generation has no point in the set gets no expectation, and says why. Medians and
//! percentiles interpolate linearly between sorted values ([`percentile`]).

mod attention;
mod calibration;
mod collective;
mod fit;
mod fitted;
mod gemm;
mod latency_points;
pub mod load;
mod measured;
mod nested;
mod obs;
mod report;
mod serving_points;
mod solve;
mod stored;
mod summary;
mod tails;
mod terms;
pub mod text;
mod training;

use crate::analysis::{analyze, Analysis};
use crate::serving::serving_steps;
use std::sync::OnceLock;

pub use calibration::{
    calibrate, calibrate_selecting, finish_with, Basis, Calibration, Expectation, FamilyFactor,
    KindBand, Models, MIN_SOURCES,
};
pub use fit::{fit_model, nccl_latency, percentile, Features, Split, Term, TermFit, N_FEATURES};
pub use nested::{
    binomial_range, fresh_fits, fresh_fold, fresh_fold_model, old_fold, stored_fits, Fits, Tail,
    TailSummary,
};
pub use obs::Obs;
pub use report::{report_of, Report, HELD_OUT};
pub use stored::{FitRecord, StoredFit};
pub use summary::Summary;
pub use terms::{select_terms, select_terms_from, term_reports, TermReport};

/// The version of the set and its fit: an expectation names the set it came from.
pub const SET_VERSION: &str = "2026-11-29.1";

/// Fewest points behind a fit (and fewest held-out residuals behind its band).
pub const MIN_POINTS: usize = 4;

/// The kind of work a measurement times: each operation kind says which it is
/// ([`crate::op::Op::workload`]).
pub use crate::op::MeasureKind;

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
    /// AMD CDNA 4: MI355X.
    Cdna4,
    /// Google TPUs: v4, v5e, v5p, v6e.
    Tpu,
}

impl Family {
    /// Every family, in report order.
    pub const ALL: [Family; 6] = [
        Family::Hopper,
        Family::Blackwell,
        Family::Ampere,
        Family::Cdna3,
        Family::Cdna4,
        Family::Tpu,
    ];

    /// The family's id (`hopper`, ...).
    pub fn id(self) -> &'static str {
        match self {
            Family::Hopper => "hopper",
            Family::Blackwell => "blackwell",
            Family::Ampere => "ampere",
            Family::Cdna3 => "cdna3",
            Family::Cdna4 => "cdna4",
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
    pub work: MeasureKind,
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
        work: MeasureKind::Gemm,
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
        tails::POINTS,
        measured::POINTS,
    ]
    .iter()
    .flat_map(|g| g.iter())
    .collect()
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
    /// The expectation of the procedure run without the point's source (nested: its terms,
    /// model, family factors, kind bias and band all chosen without that source).
    pub held_out: Option<Expectation>,
    /// `t_expected / measured − 1` of the held-out expectation.
    pub error: Option<f64>,
    /// Whether the measured time lies in the held-out expectation's p10–p90 band; `None`
    /// without a band.
    pub covered: Option<bool>,
    /// The figure before the nested hold-out (issue 25's): the model with the terms selected
    /// on every point (this one's source included), fitted without its source, no family
    /// factor or kind bias: `t / measured − 1`.
    pub old_error: Option<f64>,
    /// The nested error when the candidates leave out the tails' terms ([`Term::TAILS`]).
    pub without_tails_error: Option<f64>,
    /// The class of work issue 39 calls a tail, if the point is one.
    pub tail: Option<Tail>,
}

/// The observations the fit reads of evaluated rows: each expressed point's ratio and
/// features.
pub fn observations(rows: &[Row]) -> Vec<Obs> {
    rows.iter()
        .filter_map(|r| {
            Some(Obs {
                id: r.point.id,
                source: r.point.source_key,
                chip: r.point.chip(),
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
        .map(|&(id, source, chip, work, family, ratio, f)| Obs {
            id,
            source,
            chip,
            work,
            family,
            ratio,
            features: Features::from_array(f),
        })
        .collect()
}

/// The page's calibration: the procedure's result on the whole set as stored (terms,
/// coefficients, family factors, kind biases and bands), read once; nothing is fitted at first
/// use.
fn page_calibration() -> &'static Calibration {
    static CAL: OnceLock<Calibration> = OnceLock::new();
    CAL.get_or_init(|| fitted::PAGE.calibration(&all_observations()))
}

/// A stored point: id, source key, chip preset id, kind of work, chip family, `measured /
/// predicted`, [`Features::to_array`]: all the page's fit reads, so it needs none of the set's
/// texts (the draw program, which shows expectations but no validation view, then carries
/// none).
pub type StoredPoint = (
    &'static str,
    &'static str,
    &'static str,
    MeasureKind,
    Family,
    f64,
    [f64; N_FEATURES],
);

/// The stored points, as `results::validated::evaluated` gave them when they were written.
pub fn stored() -> &'static [StoredPoint] {
    fitted::POINTS
}

/// The stored points as the fit sees them.
pub fn stored_observations() -> Vec<Obs> {
    all_observations()
}

/// Chip families by preset id. A preset not listed (L4, RTX parts, Trainium, Gaudi) has no
/// generation in the set to borrow from: its rows say so instead of showing an expectation.
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
    ("mi355x", Family::Cdna4),
];

/// The family of a chip (from its preset, edited or not); `None` for a chip the set has no
/// generation for, or one built from scratch.
pub fn family_of(chip: &crate::chip::Chip) -> Option<Family> {
    let id = chip.preset_id.as_deref()?;
    FAMILIES.iter().find(|(p, _)| *p == id).map(|(_, f)| *f)
}

/// The expected time of `op` on `chip` analysed as `a` with the bare options (no derate, no
/// calibration): the page's calibration (one model pooled over every family, with the chip's
/// family's factor and the kind's bias where the nested hold-out keeps them), naming what it
/// rests on ([`Basis`]), or why there is none (never a number without evidence).
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
    let id = chip.preset_id.as_deref().unwrap_or("");
    expected_on(work, family, id, features, t_lower).ok_or_else(|| {
        format!(
            "the validation set ({SET_VERSION}) has no {} point on {}",
            family.id(),
            chip.name
        )
    })
}

/// The expectation for a bare roofline figure `t_lower` with `features`, of `work` on
/// `family`, from the page's calibration; `None` without evidence. Its basis never says
/// `Chip`: no chip is named ([`expected_on`] takes one).
pub fn expected(
    work: MeasureKind,
    family: Family,
    features: Features,
    t_lower: f64,
) -> Option<Expectation> {
    expected_on(work, family, "", features, t_lower)
}

/// [`expected`] on the chip preset `chip` (empty for none): the basis is `Chip` where that
/// chip's own points of the kind are in the set.
pub fn expected_on(
    work: MeasureKind,
    family: Family,
    chip: &str,
    features: Features,
    t_lower: f64,
) -> Option<Expectation> {
    if !(t_lower.is_finite() && t_lower > 0.0) {
        return None;
    }
    page_calibration().expect(work, family, chip, &features, t_lower)
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
    Some(serving_features_of(op, &a(&pre)?, &a(&dec)?, ttft, tpot))
}

/// [`serving_features`] from the steps' analyses already made (`prefill`, `decode`: the
/// [`serving_steps`] of `op`, analysed with the default options).
pub fn serving_features_of(
    op: &crate::op::Op,
    prefill: &Analysis,
    decode: &Analysis,
    ttft: f64,
    tpot: f64,
) -> (Features, Features) {
    (
        Features::of(op, prefill, ttft, 1.0),
        Features::of(op, decode, tpot, 1.0),
    )
}
