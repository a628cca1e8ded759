//! The load plot's simulated bands (issue 42): the serving row's simulation run at each load
//! of a sweep (a closed loop of `c` clients, or Poisson arrivals at `qps`), on the link's own
//! engine aggregated on its chip, with the row's seed, lengths, prefix hits and host tier, each
//! step read as the row reads it. Each point gives TTFT and TPOT at P50 and P99 (TPOT each
//! request's own `(E2E − TTFT)/(G − 1)`, the row's `tpot_pNN`). Each point simulates the
//! requests asked ([`BAND_REQUESTS`] in the page), except the link's own load, which simulates
//! as many as the serving row ([`super::SIM_REQUESTS`] or fewer, by the row's rule), so there
//! its figures are the row's cells bit for bit (`tests/it/serving_tails_sweep.rs`).

use super::disagg_row::{disagg_figures, disagg_setup};
use super::{aggregated_setup, count, request_count, simulate, simulate_n, Setup};
use crate::analysis::Options;
use crate::chip::Chip;
use crate::error::Error;
use crate::op::{Disagg, Load, Op};
use crate::serving::disagg::plan;
use crate::serving::kv_tier;
use crate::serving::sim::{BoundSteps, QueuePoint, SimResult, StepCoef, StepTiming, WARMUP};
use crate::units::format_sig;
use serde::{Deserialize, Serialize};

/// The most requests each point of the load plot's sweep simulates (the first 20 % discarded);
/// the link's own load simulates the row's count.
pub const BAND_REQUESTS: usize = 1_000;
/// Steps each point aims to stay under (few clients with long outputs: a run takes about
/// `N·G/n̄` steps, as the row's [`super::STEP_BUDGET`]); natively a 16-point sweep of the
/// issue's scenario takes about 0.1 s besides the row's own load (0.3 s at 1,000 everywhere).
pub const BAND_STEP_BUDGET: f64 = 2e5;
/// The fewest requests a point simulates.
pub const BAND_MIN_REQUESTS: usize = 100;

/// One load of the sweep: its figures, or why it has none.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepPoint {
    /// The load: clients, or requests per second.
    pub x: f64,
    /// Requests simulated at this load, the warm-up included.
    pub requests: usize,
    /// The figures, or why there are none (a rate at or past saturation).
    pub figures: Result<PointTails, String>,
}

/// P50 and P99 of TTFT and TPOT at one load, seconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PointTails {
    /// TTFT's median.
    pub ttft_p50: f64,
    /// TTFT's 99th percentile.
    pub ttft_p99: f64,
    /// TPOT's median (each request's own); `None` when every output is one token.
    pub tpot_p50: Option<f64>,
    /// TPOT's 99th percentile.
    pub tpot_p99: Option<f64>,
}

/// The sweep's simulated tails (module docs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepTails {
    /// The most requests simulated per point, the warm-up included (fewer where each takes many
    /// steps, [`BAND_STEP_BUDGET`]; the link's own load: the row's).
    pub requests: usize,
    /// The link's own load, clients or req/s.
    pub own: f64,
    /// Requests simulated at the link's own load (the row's count).
    pub own_requests: Option<usize>,
    /// At the link's own load, the requests waiting and the running batch over simulated
    /// time from the run's start ([`crate::serving::sim::QueueSeries`]); empty without it.
    pub queue: Vec<QueuePoint>,
    /// When the warm-up ends there, seconds from the run's start.
    pub warmup_end: Option<f64>,
    /// The seed.
    pub seed: u64,
    /// What read the steps.
    pub basis: String,
    /// Each load, in the order asked.
    pub points: Vec<SweepPoint>,
    /// With `disagg=`, the disaggregated deployment's tails at the same loads
    /// ([`sweep_disagg`]).
    #[serde(default)]
    pub disagg: Option<DisaggSweep>,
}

/// The disaggregated deployment's simulated tails along the sweep: the link's ratio (`auto`'s
/// chosen once, at the link's own load, as its serving row chooses it) on the same chips.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DisaggSweep {
    /// The ratio run: `3P1D`.
    pub ratio: String,
    /// Whether `disagg=auto` chose it.
    pub auto: bool,
    /// Each load, in the order asked.
    pub points: Vec<SweepPoint>,
}

/// The disaggregated deployment of `op` (`disagg=` other than `none`, under a load) at each
/// load of `xs`, prefill on `chip` and decode on `d_chip`: the row's ratio (for `auto`, the one
/// its serving row chooses at the link's load) and its simulation at each load, up to
/// `requests` per point ([`BAND_STEP_BUDGET`] as the bands), the first 20 % discarded. `Ok(None)`
/// without `disagg=` or a load.
pub fn sweep_disagg(
    op: &Op,
    chip: &Chip,
    d_chip: &Chip,
    opts: &Options,
    timing: &dyn StepTiming,
    xs: &[f64],
    requests: usize,
) -> Result<Option<DisaggSweep>, Error> {
    let Some(l) = op.llm() else {
        return Ok(None);
    };
    if l.load == Load::Batch || l.disagg == Disagg::None {
        return Ok(None);
    }
    // Steps read as the row reads them: the engine's terms, else the bound.
    let reading: &dyn StepTiming = match timing.coef(l, chip) {
        Ok(_) => timing,
        Err(_) => &BoundSteps,
    };
    let (_, figures) = disagg_figures(op, l, chip, d_chip, opts, reading)?;
    let (x, y) = figures.workers;
    let requests = requests.max(1);
    let own = match l.load {
        Load::Rate => l.qps,
        _ => l.c.round().max(1.0),
    };
    let points = xs
        .iter()
        .map(|&at| {
            // The link's own load as its serving row runs it (its request count), others up
            // to `requests`.
            let most = (at != own).then_some(requests);
            let (figures, n) =
                match disagg_point(l, (chip, d_chip), opts, reading, (x, y), at, most) {
                    Ok((t, n)) => (Ok(t), n),
                    Err(why) => (Err(why), most.unwrap_or(0)),
                };
            SweepPoint {
                x: at,
                requests: n,
                figures,
            }
        })
        .collect();
    Ok(Some(DisaggSweep {
        ratio: figures.ratio,
        auto: figures.auto,
        points,
    }))
}

impl SweepTails {
    /// The derivation's words: `up to 1,000 requests per point (fewer where each takes many
    /// steps; the first 20 % of each discarded as warm-up; at this link's load 10,000, as its
    /// serving row), seed 1`.
    pub fn derivation(&self) -> String {
        let own = match self.own_requests {
            Some(n) => format!("; at this link's load {}, as its serving row", count(n)),
            None => String::new(),
        };
        format!(
            "up to {} requests per point (fewer where each takes many steps; the first {} % of \
             each discarded as warm-up{own}), seed {}",
            count(self.requests),
            format_sig(WARMUP * 100.0, 3),
            self.seed
        )
    }

    /// The fewest and most requests its points other than the link's own load simulated.
    pub fn counts(&self) -> Option<(usize, usize)> {
        let n = self
            .points
            .iter()
            .filter(|p| p.x != self.own && p.figures.is_ok())
            .map(|p| p.requests);
        Some((n.clone().min()?, n.max()?))
    }
}

/// The tails of `op` (an `llm` under `load=concurrency|rate`) on `chip` at each load of `xs`
/// (clients or req/s, by the op's load), `requests` per point, its steps read by `timing` (the
/// bound where it has no terms, as the row). `Ok(None)` for another kind or `load=batch`.
pub fn sweep_tails(
    op: &Op,
    chip: &Chip,
    opts: &Options,
    timing: &dyn StepTiming,
    xs: &[f64],
    requests: usize,
) -> Result<Option<SweepTails>, Error> {
    let Some(l) = op.llm() else {
        return Ok(None);
    };
    if l.load == Load::Batch {
        return Ok(None);
    }
    crate::analysis::t_lower(op, chip, opts)?;
    let (coef, basis) = match timing.coef(l, chip) {
        Ok(c) => (c, timing.basis(l)),
        Err(why) => (
            StepCoef::BOUND,
            format!("each step at its bound (T_lower): {why}"),
        ),
    };
    let requests = requests.max(1);
    let own = match l.load {
        Load::Rate => l.qps,
        _ => l.c.round().max(1.0),
    };
    let mut own_requests = None;
    let (mut queue, mut warmup_end) = (Vec::new(), None);
    let points = xs
        .iter()
        .map(|&x| {
            let at_own = x == own;
            let (figures, n) = match point(op, chip, opts, coef, x, (!at_own).then_some(requests)) {
                Ok((r, n)) => {
                    if at_own {
                        queue = r.series.clone();
                        warmup_end = r.warmup_end;
                    }
                    (Ok(tails_of(&r)), n)
                }
                Err(why) => (Err(why), if at_own { 0 } else { requests }),
            };
            if at_own && n > 0 {
                own_requests = Some(n);
            }
            SweepPoint {
                x,
                requests: n,
                figures,
            }
        })
        .collect();
    Ok(Some(SweepTails {
        requests,
        own,
        own_requests,
        queue,
        warmup_end,
        seed: l.seed as u64,
        basis,
        points,
        disagg: None,
    }))
}

/// The op's setup at load `x`, with its prefix hits and host tier as the row sets them.
pub(crate) fn setup_at(
    op: &Op,
    chip: &Chip,
    opts: &Options,
    coef: StepCoef,
    x: f64,
) -> Result<(crate::op::Llm, Setup), Error> {
    let mut l = *op
        .llm()
        .ok_or_else(|| Error::invalid("op", "", "not an llm"))?;
    if !(x.is_finite() && x > 0.0) {
        return Err(Error::invalid("load", format_sig(x, 4), "not a load"));
    }
    match l.load {
        Load::Rate => l.qps = x,
        _ => l.c = x.round().max(1.0),
    }
    let mut setup = aggregated_setup(&l, chip, opts, coef)?;
    if l.kv_host.is_some() || l.prefix_set.is_some() {
        let p = kv_tier::plan(&l, chip, opts, setup.running, coef)?;
        setup.hits = if p.host.is_some() { p.with } else { p.without };
        setup.host = p.host;
    }
    Ok((l, setup))
}

fn point(
    op: &Op,
    chip: &Chip,
    opts: &Options,
    coef: StepCoef,
    x: f64,
    requests: Option<usize>,
) -> Result<(SimResult, usize), String> {
    let (l, setup) = setup_at(op, chip, opts, coef, x).map_err(|e| e.to_string())?;
    // The link's own load as the row runs it (its request count); others `requests`.
    run(&l, &setup, requests)
}

/// A setup's simulation at `l`'s load: `most` requests at most, fewer by the bands' step
/// budget ([`BAND_STEP_BUDGET`]), or without `most` the serving row's count; none for a rate
/// at or past its saturation.
fn run(
    l: &crate::op::Llm,
    setup: &Setup,
    most: Option<usize>,
) -> Result<(SimResult, usize), String> {
    if l.load == Load::Rate && l.qps >= setup.saturation {
        return Err(format!(
            "saturates at {} req/s: {} req/s queues without bound",
            format_sig(setup.saturation, 4),
            format_sig(l.qps, 4)
        ));
    }
    let (r, n) = match most {
        Some(most) => {
            let n = request_count(
                setup.running,
                setup.spread,
                l.output,
                BAND_STEP_BUDGET,
                (BAND_MIN_REQUESTS.min(most), most),
            );
            (simulate_n(l, setup, n), n)
        }
        None => match simulate(l, setup) {
            Ok((r, n)) => (Ok(r), n),
            Err(e) => (Err(e), 0),
        },
    };
    Ok((r.map_err(|e| e.to_string())?, n))
}

/// The disaggregated deployment `(x, y)` of `l` at load `at`: its plan's setup, the row's
/// prefix hits and host tier, and its simulation (`most` requests at most, else the row's
/// count).
fn disagg_point(
    l: &crate::op::Llm,
    (chip, d_chip): (&Chip, &Chip),
    opts: &Options,
    reading: &dyn StepTiming,
    (x, y): (f64, f64),
    at: f64,
    most: Option<usize>,
) -> Result<(PointTails, usize), String> {
    let mut lx = *l;
    match lx.load {
        Load::Rate => lx.qps = at,
        _ => lx.c = at.round().max(1.0),
    }
    let p = plan(&lx, chip, d_chip, opts, (x, y)).map_err(|e| e.to_string())?;
    let (mut setup, _) = disagg_setup(&p, opts, reading).map_err(|e| e.to_string())?;
    if lx.kv_host.is_some() || lx.prefix_set.is_some() {
        let coef = reading.coef(&lx, chip)?;
        let t = kv_tier::plan(&lx, chip, opts, setup.running, coef).map_err(|e| e.to_string())?;
        setup.hits = if t.host.is_some() { t.with } else { t.without };
        setup.host = t.host;
    }
    let (r, n) = run(&lx, &setup, most)?;
    Ok((tails_of(&r), n))
}

/// A run's P50 and P99.
fn tails_of(r: &SimResult) -> PointTails {
    PointTails {
        ttft_p50: r.ttft.p50,
        ttft_p99: r.ttft.p99,
        tpot_p50: r.tpot.map(|t| t.p50),
        tpot_p99: r.tpot.map(|t| t.p99),
    }
}

/// The loads of a sweep with the link's own added: `xs` and `own` (clients rounded for a
/// closed loop), sorted, each once.
pub fn with_own(xs: &[f64], own: f64, load: Load) -> Vec<f64> {
    let round = |x: f64| match load {
        Load::Rate => x,
        _ => x.round().max(1.0),
    };
    let mut out: Vec<f64> = xs
        .iter()
        .chain(std::iter::once(&own))
        .map(|&x| round(x))
        .filter(|x| x.is_finite() && *x > 0.0)
        .collect();
    out.sort_by(f64::total_cmp);
    out.dedup();
    out
}
