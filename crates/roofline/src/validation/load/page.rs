//! What the page reads of serving under load (issue 40), as plain data: the serving row's load
//! figures with their expectations, bands and basis ([`load_row`]), and the load plot's curves
//! over concurrency or rate, per engine, with the goodput point and the measured rows of the
//! same model and chip ([`load_curve`], [`measured_points`]). The page turns these into cells and
//! a chart; nothing here formats text for it beyond the reasons a figure is `none`.

use super::super::Basis;
#[cfg(feature = "sources")]
pub use super::measured::{measured_points, measured_set};
pub use super::measured::{measured_points_of, MeasuredPoint, MeasuredRow};
use super::own::OwnTiming;
use super::{expectation_with, features_of, stored_fits, EngineFit, ExpectedTiming};
use crate::analysis::Options;
use crate::chip::Chip;
use crate::error::Error;
use crate::op::{Engine, Load, Op};
use crate::profile::OwnEngine;
use crate::serving::{
    figures, step_time, BoundTiming, LoadModel, Operating, PhaseLoad, StepMix, Timing,
};
use crate::validation::family_of;

/// A figure with its expectation and band, or why it has none.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Figure {
    /// The bound (the load model's roofline figure).
    pub bound: Option<f64>,
    /// The expected figure.
    pub expected: Option<f64>,
    /// The band's low end.
    pub lo: Option<f64>,
    /// The band's high end.
    pub hi: Option<f64>,
}

/// The serving row's load figures (under `load=concurrency` or `rate`; under `load=batch` the
/// static row's, with the load set's expectation for an engine other than `generic`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LoadRow {
    /// Time to first token, seconds.
    pub ttft: Figure,
    /// Time per output token, seconds.
    pub tpot: Figure,
    /// Requests per second.
    pub requests_per_s: Figure,
    /// Output tokens per second of the group.
    pub tokens_per_s: Figure,
    /// Per chip.
    pub tokens_per_s_chip: Option<f64>,
    /// What one request sees, `1 / TPOT`.
    pub tokens_per_s_seq: Option<f64>,
    /// The mean number of requests inside the engine.
    pub running_batch: Option<f64>,
    /// The largest sustainable rate (bound).
    pub saturation_qps: Option<f64>,
    /// The goodput at `ttft_max` and `tpot_max` (bound).
    pub goodput_qps: Option<f64>,
    /// Why the latency and throughput figures are `none`, if they are.
    pub why_none: Option<String>,
    /// Why `saturation_qps` is `none`.
    pub saturation_none: Option<String>,
    /// Why `goodput_qps` is `none`.
    pub goodput_none: Option<String>,
    /// Why there is no expectation, if there is none.
    pub expected_none: Option<String>,
    /// The engine named on the row.
    pub engine: Engine,
    /// The engine whose fit made the expectation, and why it differs from `engine`.
    pub fitted_engine: Option<Engine>,
    /// Why the fit is not the row's engine's.
    pub fallback: Option<String>,
    /// Which rows back the expectation.
    pub basis: Option<Basis>,
    /// The user's own engine whose terms made the expectation (basis [`Basis::Own`]).
    pub own: Option<crate::profile::OwnEngine>,
    /// What the row says about how the figures were obtained.
    pub notes: Vec<String>,
    /// The bound's derivation, each equation beside its numbers.
    pub derivation: Vec<String>,
}

fn band(x: Option<f64>, b: Option<(f64, f64)>) -> (Option<f64>, Option<f64>) {
    match (x, b) {
        (Some(v), Some((lo, hi))) => (Some(v * lo), Some(v * hi)),
        _ => (None, None),
    }
}

/// The serving row's load data for `op` (an `llm`) on `chip`; `Ok(None)` for another kind.
/// Under `load=batch` only the expectations come from here (for an engine other than
/// `generic`; `generic` keeps the published set's), with saturation and goodput `none` and
/// the reason.
pub fn load_row(op: &Op, chip: &Chip, opts: &Options) -> Result<Option<LoadRow>, Error> {
    let Some(l) = op.llm() else {
        return Ok(None);
    };
    let fits = stored_fits();
    if l.load == Load::Batch {
        return batch_row(op, chip, opts, &fits).map(Some);
    }
    let m = LoadModel::new(op, chip, opts)?;
    let f = figures(&m, &BoundTiming)?;
    let at = f.at.as_ref();
    let mut row = LoadRow {
        engine: l.engine,
        running_batch: at.map(|o| o.running),
        tokens_per_s_chip: f.tokens_per_s_chip,
        tokens_per_s_seq: f.tokens_per_s_seq,
        saturation_qps: f.saturation_qps,
        goodput_qps: f.goodput_qps,
        goodput_none: f.goodput_none.clone(),
        why_none: f.why_none.clone(),
        notes: f.notes.clone(),
        derivation: f.derivation.clone(),
        ..LoadRow::default()
    };
    row.ttft.bound = at.map(|o| o.ttft);
    row.tpot.bound = at.map(|o| o.tpot);
    row.requests_per_s.bound = at.map(|o| o.requests_per_s);
    row.tokens_per_s.bound = f.tokens_per_s;
    if let Some(e) = l.own_engine() {
        // "My engine" (issue 43): the user's own engine in place of the published fits.
        own_expectation(&mut row, &m, e)?;
        return Ok(Some(row));
    }
    match expectation_with(&fits, op, chip, opts) {
        Ok(e) => {
            row.ttft = Figure {
                expected: e.ttft,
                lo: e.ttft_lo,
                hi: e.ttft_hi,
                ..row.ttft
            };
            row.tpot = Figure {
                expected: e.tpot,
                lo: e.tpot_lo,
                hi: e.tpot_hi,
                ..row.tpot
            };
            row.requests_per_s.expected = e.requests_per_s;
            row.tokens_per_s.expected = e.tokens_per_s;
            row.fitted_engine = Some(e.engine);
            row.fallback = e.fallback;
            row.basis = Some(e.basis);
        }
        Err(why) => row.expected_none = Some(why),
    }
    Ok(Some(row))
}

/// A static batch's row: the expectations of its prefill and decode steps by the engine's
/// load fit (`None` for `generic`, which keeps the published set's), saturation and goodput
/// `none` with the reason.
fn batch_row(op: &Op, chip: &Chip, opts: &Options, fits: &[EngineFit]) -> Result<LoadRow, Error> {
    let l = op
        .llm()
        .copied()
        .ok_or_else(|| Error::invalid("kind", "not llm", "not an llm"))?;
    let s = crate::serving::serving(op, chip, opts)?
        .ok_or_else(|| Error::invalid("kind", "not llm", "not an llm"))?;
    let why = "load=batch: a static batch has no arrival rate (set load=concurrency or load=rate)";
    let mut row = LoadRow {
        engine: l.engine,
        running_batch: Some(s.batch),
        tokens_per_s_chip: Some(s.tokens_per_s_chip),
        tokens_per_s_seq: Some(s.tokens_per_s_seq),
        saturation_none: Some(why.into()),
        goodput_none: Some(why.into()),
        ..LoadRow::default()
    };
    row.ttft.bound = Some(s.ttft);
    row.tpot.bound = Some(s.tpot);
    row.requests_per_s.bound = Some(s.requests_per_s);
    row.tokens_per_s.bound = Some(s.tokens_per_s);
    if l.engine == Engine::Generic {
        row.expected_none =
            Some("generic under load=batch: the published set's expectation applies".into());
        return Ok(row);
    }
    let Some(fit) = fits.iter().find(|f| f.engine == l.engine) else {
        row.expected_none = Some(format!(
            "no {} fit in the serving-at-load set",
            l.engine.as_str()
        ));
        return Ok(row);
    };
    let family = family_of(chip);
    if !family.is_some_and(|f| fit.families.contains(&f)) {
        row.expected_none = Some(format!(
            "no {} runs on {}'s generation",
            l.engine.as_str(),
            chip.name
        ));
        return Ok(row);
    }
    let (chips, moe) = (l.chips(), l.shape.experts > 1.0);
    let hit = (l.prefix_hit * l.prompt)
        .floor()
        .min(l.prompt - 1.0)
        .max(0.0);
    let prefill = StepMix::prefill(PhaseLoad::uniform(l.b, l.prompt - hit, l.prompt));
    let decode = StepMix::decode(PhaseLoad::decode(l.b, l.prompt + l.output / 2.0));
    let d = |mix: &StepMix| -> Result<crate::serving::Decomp, Error> {
        let t = step_time(op, chip, opts, mix)?;
        Ok(crate::serving::Decomp {
            t: t.t,
            by_bound: t.by_bound,
            steps: 1.0,
            collectives: t.collectives,
        })
    };
    let (dp, dd) = (d(&prefill)?, d(&decode)?);
    // A static batch is one wave prefilled in one step: no wave waits behind it.
    let rt = fit.ttft.ratio(&features_of(&dp, chips, moe, 0.0), family);
    let rp = fit
        .tpot
        .ratio(&features_of(&dd, chips, moe, 1e-6 * l.b), family);
    let (ttft, tpot) = (s.ttft * rt, s.tpot * rp);
    let (tlo, thi) = band(Some(ttft), fit.bands[0]);
    let (plo, phi) = band(Some(tpot), fit.bands[1]);
    row.ttft = Figure {
        expected: Some(ttft),
        lo: tlo,
        hi: thi,
        ..row.ttft
    };
    row.tpot = Figure {
        expected: Some(tpot),
        lo: plo,
        hi: phi,
        ..row.tpot
    };
    row.tokens_per_s.expected = Some(s.batch / tpot);
    row.requests_per_s.expected = Some(s.batch / tpot / l.output);
    row.fitted_engine = Some(fit.engine);
    row.basis = Some(
        if chip
            .preset_id
            .as_deref()
            .is_some_and(|id| fit.chips.iter().any(|c| c == id))
        {
            Basis::Chip
        } else {
            Basis::Family
        },
    );
    Ok(row)
}

/// What a load plot sweeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Axis {
    /// Clients of a closed loop.
    Concurrency,
    /// Requests per second of an open loop.
    Rate,
}

/// A fit's bands, TTFT then TPOT.
type Bands = [Option<(f64, f64)>; 2];

/// One point of a load curve.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadPoint {
    /// Clients or requests per second.
    pub x: f64,
    /// Time to first token, seconds (bound, expected and band).
    pub ttft: Figure,
    /// Time per output token, seconds.
    pub tpot: Figure,
    /// Output tokens per second per chip (bound, expected).
    pub tokens_per_s_chip: Figure,
    /// Output tokens per second one request sees, `1 / TPOT` (bound, expected).
    pub tokens_per_s_user: Figure,
}

/// A curve of one engine over concurrency or rate.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadCurve {
    /// The engine.
    pub engine: Engine,
    /// The axis.
    pub axis: Axis,
    /// The points, in increasing `x`; a rate at or past saturation has none.
    pub points: Vec<LoadPoint>,
    /// The saturation rate (bound).
    pub saturation_qps: Option<f64>,
    /// The goodput (bound, expected) at the op's `ttft_max` and `tpot_max`.
    pub goodput_qps: Figure,
    /// The bounds, seconds.
    pub ttft_max: Option<f64>,
    /// The TPOT bound, seconds.
    pub tpot_max: Option<f64>,
    /// Which rows back the expectation, or why there is none.
    pub basis: Result<Basis, String>,
}

fn point(
    x: f64,
    o: &Operating,
    chips: f64,
    output: f64,
    e: Option<(&Operating, Bands)>,
) -> LoadPoint {
    let fig = |b: f64, ex: Option<f64>, bd: Option<(f64, f64)>| {
        let (lo, hi) = band(ex, bd);
        Figure {
            bound: Some(b),
            expected: ex,
            lo,
            hi,
        }
    };
    let (et, ep, bands) = match e {
        Some((eo, bands)) => (Some(eo.ttft), Some(eo.tpot), bands),
        None => (None, None, [None, None]),
    };
    LoadPoint {
        x,
        ttft: fig(o.ttft, et, bands[0]),
        tpot: fig(o.tpot, ep, bands[1]),
        tokens_per_s_chip: Figure {
            bound: Some(o.requests_per_s * output / chips),
            expected: e.map(|(eo, _)| eo.requests_per_s * output / chips),
            ..Figure::default()
        },
        tokens_per_s_user: Figure {
            bound: Some(1.0 / o.tpot),
            expected: ep.map(|t| 1.0 / t),
            ..Figure::default()
        },
    }
}

/// The load curve of `op` on `chip` with `engine` over `n` points of `axis`: concurrency from 1
/// to twice the cap, or rate from 1 % to 99 % of saturation, both log-spaced.
pub fn load_curve(
    op: &Op,
    chip: &Chip,
    opts: &Options,
    engine: Engine,
    axis: Axis,
    n: usize,
) -> Result<LoadCurve, Error> {
    let op = at_axis(op, engine.as_str(), axis)?;
    let l = *op
        .llm()
        .ok_or_else(|| Error::invalid("kind", "not llm", "not an llm"))?;
    let fits = stored_fits();
    let fit = fits
        .iter()
        .find(|f| f.engine == engine)
        .or_else(|| fits.iter().find(|f| f.engine == Engine::Generic));
    let family = family_of(chip);
    let basis = expectation_with(&fits, &op, chip, opts).map(|e| e.basis);
    let timing = fit.filter(|_| basis.is_ok()).map(|f| ExpectedTiming {
        output: l.output,
        ttft: &f.ttft,
        tpot: &f.tpot,
        family,
        chips: l.chips(),
        moe: l.shape.experts > 1.0,
    });
    let sweep = Sweep {
        timing: timing.as_ref().map(|t| t as &dyn Timing),
        bands: fit.map_or([None, None], |f| f.bands),
        basis,
    };
    curve_with(&op, chip, opts, engine.as_str(), axis, n, sweep)
}

/// `op` with `engine` (an id or `own:<terms>`) under the load of `axis`.
fn at_axis(op: &Op, engine: &str, axis: Axis) -> Result<Op, Error> {
    let mut op = op.clone();
    op.set("engine", engine)?;
    op.set(
        "load",
        if axis == Axis::Rate {
            "rate"
        } else {
            "concurrency"
        },
    )?;
    Ok(op)
}

/// How a curve's expectation is timed: by an engine's fit or the user's own engine (`None`:
/// no expectation), with its bands and basis.
struct Sweep<'a> {
    /// The expectation's timing.
    timing: Option<&'a dyn Timing>,
    /// Its bands, TTFT then TPOT.
    bands: Bands,
    /// Which rows back it, or why there is none.
    basis: Result<Basis, String>,
}

/// The curve of `op` with `engine` (an id or `own:<terms>`) under `axis`, its expectation
/// timed as `sweep` says.
fn curve_with(
    op: &Op,
    chip: &Chip,
    opts: &Options,
    engine: &str,
    axis: Axis,
    n: usize,
    sweep: Sweep,
) -> Result<LoadCurve, Error> {
    let op = at_axis(op, engine, axis)?;
    let l = *op
        .llm()
        .ok_or_else(|| Error::invalid("kind", "not llm", "not an llm"))?;
    let m = LoadModel::new(&op, chip, opts)?;
    let timing = sweep.timing;
    let bands = sweep.bands;
    let sat = m.saturation(&BoundTiming)?;
    let mut points = Vec::with_capacity(n);
    let cap = m.resolved.cap;
    if cap >= 1.0 {
        let (lo, hi) = match axis {
            Axis::Concurrency => (1.0, (2.0 * cap).max(2.0)),
            Axis::Rate => {
                let s = sat.unwrap_or(0.0);
                (0.01 * s, 0.99 * s)
            }
        };
        for i in 0..n {
            let f = if n > 1 {
                i as f64 / (n - 1) as f64
            } else {
                0.0
            };
            let mut x = lo * libm::pow(hi / lo, f);
            if axis == Axis::Concurrency {
                x = x.round().max(1.0);
                if points.last().is_some_and(|p: &LoadPoint| p.x == x) {
                    continue;
                }
            }
            if !(x > 0.0 && x.is_finite()) {
                continue;
            }
            let (b, e) = match axis {
                Axis::Concurrency => {
                    let nrun = x.min(cap);
                    let state = m.state(nrun)?;
                    let e = timing.and_then(|t| m.closed_at(x, nrun, state.clone(), t));
                    (m.closed_at(x, nrun, state, &BoundTiming), e)
                }
                Axis::Rate => {
                    let e = match timing {
                        Some(t) => m.open(x, t)?,
                        None => None,
                    };
                    (m.open(x, &BoundTiming)?, e)
                }
            };
            if let Some(b) = b {
                points.push(point(
                    x,
                    &b,
                    l.chips(),
                    l.output,
                    e.as_ref().map(|e| (e, bands)),
                ));
            }
        }
    }
    let goodput = match (l.ttft_bound(), l.tpot_bound()) {
        (Some(a), Some(b)) => Figure {
            bound: m.goodput(a, b, &BoundTiming)?.map(|g| g.qps),
            expected: match timing {
                Some(t) => m.goodput(a, b, t)?.map(|g| g.qps),
                None => None,
            },
            ..Figure::default()
        },
        _ => Figure::default(),
    };
    Ok(LoadCurve {
        engine: l.engine,
        axis,
        points,
        saturation_qps: sat,
        goodput_qps: goodput,
        ttft_max: l.ttft_bound(),
        tpot_max: l.tpot_bound(),
        basis: sweep.basis,
    })
}

/// Fills `row`'s expected figures (the load model at the link's load, timed by `e`), without
/// bands, with the basis [`Basis::Own`].
fn own_expectation(row: &mut LoadRow, m: &LoadModel, e: OwnEngine) -> Result<(), Error> {
    let f = figures(m, &OwnTiming(e))?;
    let at = f.at.as_ref();
    row.ttft = Figure {
        expected: at.map(|o| o.ttft),
        lo: None,
        hi: None,
        ..row.ttft
    };
    row.tpot = Figure {
        expected: at.map(|o| o.tpot),
        lo: None,
        hi: None,
        ..row.tpot
    };
    row.requests_per_s.expected = at.map(|o| o.requests_per_s);
    row.tokens_per_s.expected = f.tokens_per_s;
    row.fitted_engine = None;
    row.fallback = None;
    row.basis = Some(Basis::Own);
    row.own = Some(e);
    if at.is_none() {
        row.expected_none = f.why_none.clone();
    }
    Ok(())
}

/// The load plot's "my engine" curve: `op` (an `llm`) on `chip` timed by `e` over `n` points
/// of `axis`, as [`load_curve`] sweeps the published engines' (no band: see
/// [`super::own::NO_BAND`]). The curve's engine is `generic`, whose step pattern and defaults the own
/// engine takes; its basis is [`Basis::Own`].
pub fn own_curve(
    op: &Op,
    chip: &Chip,
    opts: &Options,
    e: OwnEngine,
    axis: Axis,
    n: usize,
) -> Result<LoadCurve, Error> {
    let timing = OwnTiming(e);
    curve_with(
        op,
        chip,
        opts,
        &e.format(),
        axis,
        n,
        Sweep {
            timing: Some(&timing),
            bands: [None, None],
            basis: Ok(Basis::Own),
        },
    )
}

/// The throughput–interactivity frontier of every engine (tokens/s per chip against tokens/s
/// per user over concurrency), `n` points each.
pub fn frontiers(op: &Op, chip: &Chip, opts: &Options, n: usize) -> Result<Vec<LoadCurve>, Error> {
    [Engine::Vllm, Engine::Sglang, Engine::Trtllm]
        .into_iter()
        .map(|e| load_curve(op, chip, opts, e, Axis::Concurrency, n))
        .collect()
}
