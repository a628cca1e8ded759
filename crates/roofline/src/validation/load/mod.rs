//! The serving-at-load set (issue 40): measured engine runs at stated concurrencies
//! (AIConfigurator's silicon sample, its aggregated rows; `rows.rs` reads them and maps each to
//! a scenario link by a written rule), the load model's bound for each
//! ([`crate::serving::LoadModel`]: a closed loop of the row's `c` clients), and a fit of the
//! engines' efficiency on them, held out by (model, system) group. A set of its own: its
//! version, fit, report and targets are apart from the published set's, and neither enters
//! the other's fit.
//!
//! **What is fitted.** Each figure (TTFT, TPOT) of a row is a sum of steps; each step's bound
//! splits into compute-, memory- and link-bound parts ([`crate::serving::Decomp`]). The model
//! is the published set's (`super::fit`): `measured / bound ≈ a_C·compute share + a_M·memory
//! share + a_N·link share (+ a_S·1 ms per step + a_X·1 µs per collective per doubling of tp·ep
//! + a_E·[MoE])`, i.e. an expected step is each part slowed by what its resource achieves plus
//! fixed costs, fitted per engine and figure by least absolute relative error. The choices
//! (terms, pooled or per chip generation, a bias factor) are made inside each fold of the
//! hold-out (`fit.rs`). The page carries the fitted terms, their standard errors (a bootstrap
//! over groups) and the bands (10th and 90th percentiles of the held-out
//! `measured / expected` per engine and figure), stored in `fitted.rs`; not the rows.
//!
//! **An expectation** runs the load model with each state's in-engine TTFT and its TPOT times
//! the engine's ratios ([`ExpectedTiming`]), so the queue, saturation and goodput follow from
//! the expected steps as the bound's follow from the bound's.

#[cfg(feature = "sources")]
pub mod disagg;
pub mod fit;
mod fitted;
mod measured;
pub mod own;
pub mod page;
pub mod report;
pub mod rows;
pub mod steps;

use super::fit::Features;
use super::{family_of, Basis, Family, MIN_POINTS};
use crate::analysis::Options;
use crate::chip::Chip;
use crate::op::{Engine, Op};
use crate::serving::{figures, Decomp, EngineState, LoadModel, Timing};
use crate::url::decode;
pub use fit::{FigureModel, Scope};

/// The version of the serving-at-load set and its fit.
pub const LOAD_SET_VERSION: &str = "2026-12-01.1";

/// A figure the set measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Figure {
    /// Mean time to first token.
    Ttft,
    /// Mean time per output token.
    Tpot,
}

impl Figure {
    /// Both, in report order.
    pub const ALL: [Figure; 2] = [Figure::Tpot, Figure::Ttft];

    /// `ttft` or `tpot`.
    pub fn id(self) -> &'static str {
        match self {
            Figure::Ttft => "ttft",
            Figure::Tpot => "tpot",
        }
    }
}

/// One figure of one row as the fit sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FigureObs {
    /// Measured, seconds.
    pub measured: f64,
    /// The load model's bound, seconds.
    pub bound: f64,
    /// `measured / bound`.
    pub ratio: f64,
    /// What the model reads of the bound.
    pub features: Features,
}

/// One expressed row as the fit sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadObs {
    /// The row's id.
    pub id: String,
    /// Its (model, system) group: holding out drops every row of a group.
    pub group: String,
    /// Its engine.
    pub engine: Engine,
    /// Its chip's generation.
    pub family: Option<Family>,
    /// Its chip's preset id.
    pub chip: String,
    /// Its time to first token.
    pub ttft: Option<FigureObs>,
    /// Its time per output token.
    pub tpot: Option<FigureObs>,
}

impl LoadObs {
    /// One of its figures.
    pub fn figure(&self, f: Figure) -> Option<&FigureObs> {
        match f {
            Figure::Ttft => self.ttft.as_ref(),
            Figure::Tpot => self.tpot.as_ref(),
        }
    }
}

/// The features of a figure whose bound splits as `d` (see the module docs), for an op on a
/// group of `chips` chips, a mixture of experts or not, with `extra` seconds of the figure's own
/// extra feature (the published set's launch slot, 0 for every model step there; here the
/// mean wait of a synchronised wave for a TTFT, and 1 µs per running sequence for a
/// TPOT).
pub fn features_of(d: &Decomp, chips: f64, moe: bool, extra: f64) -> Features {
    let t = d.t;
    let per = |x: f64| if t > 0.0 { x / t } else { 0.0 };
    let [c, m, n] = d.by_bound;
    let total = c + m + n;
    let share = |x: f64| if total > 0.0 { x / total } else { 0.0 };
    Features::from_array([
        share(c),
        share(m),
        share(n),
        per(extra),
        per(1e-3 * d.steps),
        if chips > 1.0 {
            per(1e-6 * d.collectives * libm::log2(chips))
        } else {
            0.0
        },
        f64::from(moe),
        // The published set's tails' terms (narrow training, EP overlap, collective latency)
        // have no feature in a serving row's figure.
        0.0,
        0.0,
        0.0,
    ])
}

/// The extra feature of a TTFT: the wait of a synchronised wave, `(N − 1)/2` prompts' prefill
/// ahead of a request on average. A closed loop of requests alike does not spread out as the
/// bound's steady state assumes: completions come packed (decode steps are short) while
/// prefills take long steps, so the `c` requests started at once keep arriving together, and
/// each waits for those ahead of it. How far the wave survives (lengths that vary, budgets
/// that pack prompts) the rows say, through the term's fitted weight.
pub fn ttft_extra(s: &EngineState) -> f64 {
    (s.running.max(1.0) - 1.0) / 2.0 * (s.ttft.t - s.residual).max(0.0)
}

/// The extra feature of a TPOT: 1 µs per running sequence per step, the engine's per-sequence
/// cost on the host (scheduling, sampling, detokenising) that the step's roofline lacks.
pub fn tpot_extra(s: &EngineState) -> f64 {
    1e-6 * s.running.max(1.0)
}

/// `op`'s group of chips (`tp·ep`) and whether it is a mixture of experts.
fn op_traits(op: &Op) -> (f64, bool) {
    let num = |k: &str| op.get_num(k).unwrap_or(1.0);
    (num("tp") * num("ep"), num("experts") > 1.0)
}

/// The in-engine TTFT and the TPOT of a state as the fitted models expect them: each bound
/// times its model's ratio for its features.
#[derive(Debug, Clone, Copy)]
pub struct ExpectedTiming<'a> {
    /// The op's output length `G`.
    pub output: f64,
    /// The TTFT model.
    pub ttft: &'a FigureModel,
    /// The TPOT model.
    pub tpot: &'a FigureModel,
    /// The chip's generation.
    pub family: Option<Family>,
    /// The op's group of chips.
    pub chips: f64,
    /// A mixture of experts.
    pub moe: bool,
}

impl Timing for ExpectedTiming<'_> {
    fn times(&self, s: &EngineState) -> Option<(f64, f64)> {
        let r = |m: &FigureModel, d: &Decomp, extra: f64| {
            let x = m.ratio(&features_of(d, self.chips, self.moe, extra), self.family);
            (x.is_finite() && x > 0.0).then_some(x * d.t)
        };
        Some((
            r(self.ttft, &s.ttft, ttft_extra(s))?,
            r(self.tpot, &s.tpot, tpot_extra(s))?,
        ))
    }
}

/// A row of the set, as `rows.rs` gives it to the fit: its link and what was measured.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RowInput<'a> {
    /// The row's id.
    pub id: &'a str,
    /// The earlier row with the same measurement, if this one repeats it (the fit counts a
    /// measurement once).
    pub twin_of: Option<&'a str>,
    /// The scenario (a v1 link query).
    pub link: &'a str,
    /// The (model, system) group.
    pub group: &'a str,
    /// Measured mean TTFT, seconds.
    pub ttft_s: f64,
    /// Measured mean TPOT, seconds.
    pub tpot_s: f64,
}

/// A row evaluated: its bound figures and what the fit reads of them, or why it has none.
pub fn observe(row: &RowInput) -> Result<LoadObs, String> {
    let d = decode(row.link);
    if !d.notices.is_empty() {
        return Err(format!("the link has notices: {}", d.notices.join("; ")));
    }
    let s = d.scenario;
    let (Some(op), Some(chip)) = (s.ops.first(), s.chips.first()) else {
        return Err("the link has no op or no chip".into());
    };
    let l = op.llm().ok_or("the link's op is not an llm")?;
    let m = LoadModel::new(op, chip, &s.options).map_err(|e| e.to_string())?;
    if let Some(why) = m.no_request() {
        return Err(why);
    }
    let o = m
        .closed(l.c, &crate::serving::BoundTiming)
        .map_err(|e| e.to_string())?
        .ok_or("no request runs")?;
    let (chips, moe) = op_traits(op);
    // The TTFT's bound: the wait for a slot, a share (c − N)/N of a lifetime, and the
    // in-engine prefill.
    let mut ttft = o.state.ttft;
    if o.queued > 0.0 {
        let life = |d: &Decomp, w: f64| d.scaled(w);
        let q = o.queued / o.running;
        let add = [
            life(&o.state.ttft, q),
            life(&o.state.tpot, q * (l.output - 1.0)),
        ];
        for a in add {
            ttft.t += a.t;
            for (x, y) in ttft.by_bound.iter_mut().zip(a.by_bound) {
                *x += y;
            }
            ttft.steps += a.steps;
            ttft.collectives += a.collectives;
        }
    }
    let fig = |measured: f64, d: &Decomp, extra: f64| -> Option<FigureObs> {
        (measured.is_finite() && measured > 0.0 && d.t > 0.0).then(|| FigureObs {
            measured,
            bound: d.t,
            ratio: measured / d.t,
            features: features_of(d, chips, moe, extra),
        })
    };
    Ok(LoadObs {
        id: row.id.to_string(),
        group: row.group.to_string(),
        engine: l.engine,
        family: family_of(chip),
        chip: chip.preset_id.clone().unwrap_or_default(),
        ttft: fig(row.ttft_s, &ttft, ttft_extra(&o.state)),
        tpot: if l.output > 1.0 {
            fig(row.tpot_s, &o.state.tpot, tpot_extra(&o.state))
        } else {
            None
        },
    })
}

/// An engine's fitted models as the page carries them.
#[derive(Debug, Clone, PartialEq)]
pub struct EngineFit {
    /// The engine (`generic`: every engine's rows pooled).
    pub engine: Engine,
    /// The TTFT model.
    pub ttft: FigureModel,
    /// The TPOT model.
    pub tpot: FigureModel,
    /// The bands: 10th and 90th percentiles of the held-out `measured / expected`, TTFT then
    /// TPOT; `None` with fewer than [`MIN_POINTS`] held-out rows.
    pub bands: [Option<(f64, f64)>; 2],
    /// Rows behind the fit.
    pub rows: usize,
    /// The chips (preset ids) with rows.
    pub chips: Vec<String>,
    /// The generations with rows.
    pub families: Vec<Family>,
}

/// The page's fits, from the stored terms (`fitted.rs`).
pub fn stored_fits() -> Vec<EngineFit> {
    fitted::fits()
}

/// The expected load figures of `op` on `chip`, their bands and basis.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadExpectation {
    /// The engine whose fit made it.
    pub engine: Engine,
    /// Why it is not the op's own engine, if it is not.
    pub fallback: Option<String>,
    /// Which rows back it.
    pub basis: Basis,
    /// Why it rests on pooled generations, if it does.
    pub pooled_because: Option<String>,
    /// Expected mean TTFT, seconds, and its band.
    pub ttft: Option<f64>,
    /// Its band's low end.
    pub ttft_lo: Option<f64>,
    /// Its band's high end.
    pub ttft_hi: Option<f64>,
    /// Expected mean TPOT, seconds.
    pub tpot: Option<f64>,
    /// Its band's low end.
    pub tpot_lo: Option<f64>,
    /// Its band's high end.
    pub tpot_hi: Option<f64>,
    /// Expected requests per second.
    pub requests_per_s: Option<f64>,
    /// Expected output tokens per second.
    pub tokens_per_s: Option<f64>,
    /// Expected saturation rate.
    pub saturation_qps: Option<f64>,
    /// Expected goodput.
    pub goodput_qps: Option<f64>,
    /// The set's version.
    pub set_version: &'static str,
}

/// The expected load figures of `op` (an `llm` under `load=concurrency` or `rate`) on `chip`
/// with the stored fits, or why there are none (never a number without evidence).
pub fn load_expectation(op: &Op, chip: &Chip, opts: &Options) -> Result<LoadExpectation, String> {
    let fits = stored_fits();
    expectation_with(&fits, op, chip, opts)
}

/// [`load_expectation`] with the fits given.
pub fn expectation_with(
    fits: &[EngineFit],
    op: &Op,
    chip: &Chip,
    opts: &Options,
) -> Result<LoadExpectation, String> {
    let l = op.llm().ok_or("not an llm")?;
    let set = LOAD_SET_VERSION;
    let own = fits.iter().find(|f| f.engine == l.engine);
    let (fit, fallback) = match own {
        Some(f) => (f, None),
        None => (
            fits.iter()
                .find(|f| f.engine == Engine::Generic)
                .ok_or_else(|| format!("the serving-at-load set ({set}) has no fit"))?,
            Some(format!(
                "the serving-at-load set ({set}) has no {} fit: generic (every engine's rows pooled)",
                l.engine.as_str()
            )),
        ),
    };
    let family = family_of(chip);
    // Some engine's rows on the chip's generation, or no evidence at all.
    if !fits
        .iter()
        .any(|f| family.is_some_and(|fam| f.families.contains(&fam)))
    {
        return Err(format!(
            "the serving-at-load set ({set}) has no runs on {} or its generation",
            chip.name
        ));
    }
    let basis = if chip
        .preset_id
        .as_deref()
        .is_some_and(|id| fit.chips.iter().any(|c| c == id))
    {
        Basis::Chip
    } else if family.is_some_and(|f| fit.families.contains(&f)) {
        Basis::Family
    } else {
        Basis::Pooled
    };
    let per_gen = fit.ttft.has_family(family) && fit.tpot.has_family(family);
    let pooled_because = (!per_gen).then(|| {
        if fit.ttft.choice.scope == Scope::Pooled && fit.tpot.choice.scope == Scope::Pooled {
            "one model for every generation: per-generation models did not lower the held-out error"
                .to_string()
        } else {
            format!(
                "{} has no rows of this engine: the model pooled over generations",
                family.map_or("this chip", |f| f.id())
            )
        }
    });
    let (chips, moe) = op_traits(op);
    let timing = ExpectedTiming {
        output: l.output,
        ttft: &fit.ttft,
        tpot: &fit.tpot,
        family,
        chips,
        moe,
    };
    let m = LoadModel::new(op, chip, opts).map_err(|e| e.to_string())?;
    let f = figures(&m, &timing).map_err(|e| e.to_string())?;
    let band = |x: Option<f64>, i: usize| match fit.bands[i] {
        Some((lo, hi)) => (x, x.map(|v| v * lo), x.map(|v| v * hi)),
        None => (x, None, None),
    };
    let (ttft, ttft_lo, ttft_hi) = band(f.at.as_ref().map(|o| o.ttft), 0);
    let (tpot, tpot_lo, tpot_hi) = band(f.at.as_ref().map(|o| o.tpot), 1);
    Ok(LoadExpectation {
        engine: fit.engine,
        fallback,
        basis,
        pooled_because,
        ttft,
        ttft_lo,
        ttft_hi,
        tpot,
        tpot_lo,
        tpot_hi,
        requests_per_s: f.at.as_ref().map(|o| o.requests_per_s),
        tokens_per_s: f.tokens_per_s,
        saturation_qps: f.saturation_qps,
        goodput_qps: f.goodput_qps,
        set_version: set,
    })
}

/// The band of held-out `measured / expected`: its 10th and 90th percentiles; `None` with
/// fewer than [`MIN_POINTS`].
pub fn band_of(residuals: &[f64]) -> Option<(f64, f64)> {
    if residuals.len() < MIN_POINTS {
        return None;
    }
    Some((
        super::percentile(residuals, 0.1)?,
        super::percentile(residuals, 0.9)?,
    ))
}

/// Every aggregated row of the set as the fit takes it ([`rows::aggregated`]): its link, group
/// and measurements, or the reason the mapping rule leaves it out.
#[cfg(feature = "sources")]
pub fn row_inputs() -> Vec<Result<RowInput<'static>, String>> {
    let all = rows::rows();
    rows::aggregated()
        .map(|r| match &r.scenario {
            Ok(e) => Ok(RowInput {
                id: r.id,
                twin_of: r.twin.and_then(|i| all.get(i)).map(|t| t.id),
                link: e.link.as_str(),
                group: r.group.as_str(),
                ttft_s: r.ttft,
                tpot_s: r.tpot,
            }),
            Err(u) => Err(u.reason.text().to_string()),
        })
        .collect()
}

/// The set evaluated ([`report::report_of`] on [`row_inputs`]).
#[cfg(feature = "sources")]
pub fn report() -> report::LoadReport {
    report::report_of(&row_inputs())
}
