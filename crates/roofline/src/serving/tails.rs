//! The serving row's tails (issue 42): an `llm` op under `load=concurrency` or `rate`, its
//! requests simulated ([`super::sim`]) on its engine, or on a disaggregated deployment
//! ([`super::disagg`]), each step read by the engine's fitted terms; the percentiles, the
//! goodput at a service level, the disaggregated ratio and its comparison with aggregated
//! serving on the same chips, and the KV tier's trade ([`super::kv_tier`]).
//!
//! **How many requests.** [`SIM_REQUESTS`] (10,000), fewer where they would take more than
//! [`STEP_BUDGET`] steps (long outputs at low concurrency: a run takes about `N·G/n̄` steps,
//! `n̄` requests decoding at once), never fewer than [`MIN_REQUESTS`]; the first 20 % are
//! discarded. The row names the count and the seed.
//!
//! **Goodput at a service level.** `goodput_qps_slo` is the largest Poisson rate at which at
//! least `slo_pct` % of requests meet both `ttft_max` and their own TPOT ≤ `tpot_max`: the
//! share met at a rate is read from a simulation of [`SLO_REQUESTS`] requests (fewer, down to
//! [`SLO_MIN_REQUESTS`], where few run at once and each takes many steps; the same seed at
//! every rate, so the draws differ only by the rate), and the rate bisected between 0.1 % of
//! saturation and saturation to 0.1 % ([`SLO_STEPS`] halvings).

mod disagg_row;
mod sweep;

use super::kv_tier::{self, TierFigures};
use super::sim::{
    self, aggregated, Arrivals, BoundSteps, Deployment, HitMix, Host, SimResult, SimSpec, Starts,
    StepCoef, StepTiming,
};
use super::LoadModel;
use crate::analysis::Options;
use crate::chip::Chip;
use crate::error::Error;
use crate::op::{Disagg, Llm, Load, Op};
use crate::units::{format_exact, format_sig};
use disagg_row::disagg_figures;
pub use disagg_row::DisaggFigures;
use serde::Serialize;
pub use sweep::{
    sweep_disagg, sweep_tails, with_own, DisaggSweep, PointTails, SweepPoint, SweepTails,
    BAND_MIN_REQUESTS, BAND_REQUESTS, BAND_STEP_BUDGET,
};

/// Requests a row simulates (module docs).
pub const SIM_REQUESTS: usize = 10_000;
/// The fewest.
pub const MIN_REQUESTS: usize = 1_000;
/// Steps a row's simulation aims to stay under.
pub const STEP_BUDGET: f64 = 4e6;
/// Requests per rate of the goodput's bisection.
pub const SLO_REQUESTS: usize = 2_000;
/// Steps each rate of the goodput's bisection aims to stay under.
pub const SLO_STEP_BUDGET: f64 = 5e5;
/// The fewest requests per rate.
pub const SLO_MIN_REQUESTS: usize = 500;
/// Halvings of the goodput's bisection.
pub const SLO_STEPS: usize = 10;
/// `disagg=auto` with a service level simulates at most this many ratios.
pub const AUTO_SIMULATED: usize = 6;
/// A run gives up past this many steps (a rate far past what the steps say it sustains).
pub const MAX_STEPS: u64 = 30_000_000;

/// The serving row's tails (module docs).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Tails {
    /// What the steps were read with.
    pub basis: String,
    /// Whether the engine's fitted terms read them (else the bound, `basis` says why).
    pub fitted: bool,
    /// Requests simulated (the warm-up included).
    pub requests: usize,
    /// The seed.
    pub seed: u64,
    /// The simulated run; `None` with `why_none`.
    pub sim: Option<SimResult>,
    /// Why there is none (a rate at or past saturation, a deployment that holds no request).
    pub why_none: Option<String>,
    /// The deployment's saturation rate with its steps read the same way.
    pub saturation_qps: Option<f64>,
    /// The goodput at the service level; `None` with `goodput_slo_none`.
    pub goodput_qps_slo: Option<f64>,
    /// Why there is none.
    pub goodput_slo_none: Option<String>,
    /// The disaggregated deployment, if `disagg` is set.
    pub disagg: Option<DisaggFigures>,
    /// The KV tier's trade, if `kv_host` is set.
    pub tier: Option<TierFigures>,
    /// The derivation's words.
    pub notes: Vec<String>,
}

/// What a row's simulations run on: a deployment builder, its saturation and the typical
/// latency and batch at the op's load.
pub(crate) struct Setup {
    pub build: Box<dyn Fn() -> Result<Deployment, Error>>,
    /// Where prefix hits come from (a working set of prefixes, a host tier).
    pub hits: Option<HitMix>,
    /// The host tier of each aggregated worker.
    pub host: Option<Host>,
    pub saturation: f64,
    /// One request's latency at the load (the start offsets' range).
    pub latency: f64,
    /// Requests decoding at once, all workers together.
    pub running: f64,
    /// Decode workers the running requests spread over (1 aggregated).
    pub spread: f64,
}

fn fmt(x: f64) -> String {
    format_sig(x, 4)
}

/// A count with its thousands grouped: `10,000`.
pub fn count(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// How many requests for a run of `running` requests decoding at once over `spread` workers
/// (each decode step of a worker advances `running/spread` of them by a token) and outputs of
/// `g`, within `budget` steps, from `min` to `max`.
pub fn request_count(
    running: f64,
    spread: f64,
    g: f64,
    budget: f64,
    (min, max): (usize, usize),
) -> usize {
    let per_step = (running / spread.max(1.0)).max(1.0);
    let n = budget * per_step / (g.max(1.0) * spread.max(1.0));
    (n.floor() as usize).clamp(min, max)
}

pub(crate) fn spec(l: &Llm, requests: usize, arrivals: Arrivals) -> SimSpec {
    SimSpec {
        requests,
        arrivals,
        seed: l.seed as u64,
        prompt: l.prompt,
        output: l.output,
        prompt_cv: l.prompt_cv,
        output_cv: l.output_cv,
        max_steps: MAX_STEPS,
        fast_forward: true,
        slo: match (l.ttft_bound(), l.tpot_bound()) {
            (Some(a), Some(b)) => Some((a, b)),
            _ => None,
        },
    }
}

/// The aggregated engine's setup: its deployment, saturation, latency and batch at the load.
fn aggregated_setup(l: &Llm, chip: &Chip, opts: &Options, coef: StepCoef) -> Result<Setup, Error> {
    let op = Op::new(crate::op::OpKind::from(*l));
    let m = LoadModel::new(&op, chip, opts)?;
    if let Some(why) = m.no_request() {
        return Err(Error::invalid("load", l.load.as_str(), why));
    }
    let saturation = m.saturation(&coef)?.unwrap_or(0.0);
    let (latency, running) = match l.load {
        Load::Rate if l.qps < saturation => match m.open(l.qps, &coef)? {
            Some(o) => (o.state.lifetime(l.output), o.running),
            None => (0.0, 1.0),
        },
        _ => {
            let n = l.c.min(m.resolved.cap).max(1.0);
            let s = m.state(n)?;
            let (a, b) = super::Timing::times(&coef, &s).unwrap_or((s.ttft.t, s.tpot.t));
            (a + (l.output - 1.0) * b, n)
        }
    };
    let (l, chip, opts) = (*l, chip.clone(), *opts);
    Ok(Setup {
        build: Box::new(move || aggregated(&l, &chip, &opts, &Fixed(coef))),
        hits: None,
        host: None,
        saturation,
        latency,
        running,
        spread: 1.0,
    })
}

/// A timing that is one set of coefficients.
struct Fixed(StepCoef);

impl StepTiming for Fixed {
    fn coef(&self, _: &Llm, _: &Chip) -> Result<StepCoef, String> {
        Ok(self.0)
    }
    fn basis(&self, _: &Llm) -> String {
        String::new()
    }
}

/// Runs the op's load on `setup`.
pub(crate) fn simulate(l: &Llm, setup: &Setup) -> Result<(SimResult, usize), Error> {
    let requests = request_count(
        setup.running,
        setup.spread,
        l.output,
        STEP_BUDGET,
        (MIN_REQUESTS, SIM_REQUESTS),
    );
    Ok((simulate_n(l, setup, requests)?, requests))
}

/// Runs the op's load on `setup` with `requests` requests.
pub(crate) fn simulate_n(l: &Llm, setup: &Setup, requests: usize) -> Result<SimResult, Error> {
    let arrivals = match l.load {
        Load::Rate => Arrivals::Open { qps: l.qps },
        _ => Arrivals::Closed {
            clients: l.c as usize,
            starts: Starts::Random {
                within: setup.latency,
            },
        },
    };
    let mut dep = build(setup)?;
    sim::run(&mut dep, &spec(l, requests, arrivals))
}

/// The setup's deployment, its prefix hits and host tier set.
fn build(setup: &Setup) -> Result<Deployment, Error> {
    let mut dep = (setup.build)()?;
    dep.hits = setup.hits;
    if let Some(h) = setup.host {
        for w in dep.workers.iter_mut().filter(|w| w.role.is_none()) {
            w.host = Some(h);
        }
    }
    Ok(dep)
}

/// The goodput at the op's service level on `setup` (module docs): `Ok(None)` without both
/// bounds, with the reason.
pub(crate) fn goodput_slo(l: &Llm, setup: &Setup) -> Result<(Option<f64>, Option<String>), Error> {
    let (Some(a), Some(b)) = (l.ttft_bound(), l.tpot_bound()) else {
        let missing: Vec<&str> = [
            ("ttft_max", l.ttft_max.is_none()),
            ("tpot_max", l.tpot_max.is_none()),
        ]
        .iter()
        .filter(|x| x.1)
        .map(|x| x.0)
        .collect();
        return Ok((
            None,
            Some(format!(
                "goodput at a service level needs both bounds: set {}",
                missing.join(" and ")
            )),
        ));
    };
    let sat = setup.saturation;
    if !(sat > 0.0 && sat.is_finite()) {
        return Ok((None, Some("the deployment sustains no rate".into())));
    }
    let share = |qps: f64| -> Result<f64, Error> {
        let mut dep = build(setup)?;
        // Fewer requests where few run at once (each then takes many steps of its own).
        let running = (qps * setup.latency)
            .min(setup.running.max(1.0) * 4.0)
            .max(1.0);
        let n = request_count(
            running,
            setup.spread,
            l.output,
            SLO_STEP_BUDGET,
            (SLO_MIN_REQUESTS, SLO_REQUESTS),
        );
        let mut s = spec(l, n, Arrivals::Open { qps });
        s.slo = Some((a, b));
        Ok(sim::run(&mut dep, &s)?.slo_met.unwrap_or(0.0))
    };
    let (mut lo, mut hi) = (sat * 1e-3, sat);
    let first = share(lo)?;
    if first < l.slo_pct {
        return Ok((
            Some(0.0),
            Some(format!(
                "even at {} req/s (0.1 % of saturation) only {} % of requests meet TTFT ≤ {} ms and TPOT ≤ {} ms",
                fmt(lo),
                fmt(first),
                fmt(a * 1e3),
                fmt(b * 1e3)
            )),
        ));
    }
    for _ in 0..SLO_STEPS {
        let mid = 0.5 * (lo + hi);
        if share(mid)? >= l.slo_pct {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Ok((Some(lo), None))
}

/// The tails of `op` on the scenario's chip `at` of `chips` (the decode workers on `d_chip`),
/// each step read by `timing` where it has terms for the engine and chip (else the bound, and
/// the row says why); `Ok(None)` for another kind or `load=batch`. Errors at their fields: a
/// disaggregated plan that does not fit, a `d_chip` past the scenario's chips, a host tier
/// without a link.
pub fn tails(
    op: &Op,
    chips: &[Chip],
    at: usize,
    opts: &Options,
    timing: &dyn StepTiming,
) -> Result<Option<Tails>, Error> {
    let Some(l) = op.llm() else {
        return Ok(None);
    };
    if l.load == Load::Batch {
        return Ok(None);
    }
    let chip = chips
        .get(at)
        .ok_or_else(|| Error::invalid("chip", format_exact(at as f64 + 1.0), "no such chip"))?;
    crate::analysis::t_lower(op, chip, opts)?;
    let (fitted, basis, reading): (bool, String, Box<dyn StepTiming>) = match timing.coef(l, chip) {
        Ok(_) => (true, timing.basis(l), Box::new(Borrowed(timing))),
        Err(why) => (
            false,
            format!("each step at its bound (T_lower): {why}"),
            Box::new(BoundSteps),
        ),
    };
    let mut notes = Vec::new();
    let (mut setup, disagg) = match l.disagg {
        Disagg::None => {
            let coef = reading
                .coef(l, chip)
                .map_err(|w| Error::invalid("engine", l.engine.as_str(), w))?;
            (aggregated_setup(l, chip, opts, coef)?, None)
        }
        _ => {
            let d_chip = match l.d_chip {
                None => chip,
                Some(n) => chips.get(n as usize - 1).ok_or_else(|| {
                    Error::invalid(
                        "d_chip",
                        format_exact(n),
                        format!("the scenario has {} chip(s)", chips.len()),
                    )
                })?,
            };
            let (setup, figures) = disagg_figures(op, l, chip, d_chip, opts, reading.as_ref())?;
            (setup, Some(figures))
        }
    };
    // A host tier, or a working set of prefixes: where each request's prefix hit comes from.
    let mut tier = None;
    let mut without = None;
    if l.kv_host.is_some() || l.prefix_set.is_some() {
        let coef = reading
            .coef(l, chip)
            .map_err(|w| Error::invalid("engine", l.engine.as_str(), w))?;
        let p = kv_tier::plan(l, chip, opts, setup.running, coef)?;
        if p.host.is_some() {
            // The same load without the tier, for the trade.
            setup.hits = p.without;
            if !(l.load == Load::Rate && l.qps >= setup.saturation) {
                without = Some(simulate(l, &setup)?.0);
            }
            tier = Some(p.figures);
            setup.hits = p.with;
            setup.host = p.host;
        } else {
            setup.hits = p.without;
            notes.extend(p.figures.notes);
        }
    }
    let mut tier: Option<TierFigures> = tier.map(|mut t| {
        t.without = without.as_ref().map(kv_tier::Trade::of);
        t
    });
    let seed = l.seed as u64;
    let mut out = Tails {
        basis,
        fitted,
        requests: 0,
        seed,
        sim: None,
        why_none: None,
        saturation_qps: Some(setup.saturation),
        goodput_qps_slo: None,
        goodput_slo_none: None,
        disagg,
        tier: None,
        notes: Vec::new(),
    };
    if l.load == Load::Rate && l.qps >= setup.saturation {
        out.why_none = Some(format!(
            "saturates at {} req/s: a rate of {} req/s queues without bound, so no percentile holds",
            fmt(setup.saturation),
            fmt(l.qps)
        ));
    } else {
        let (r, n) = simulate(l, &setup)?;
        out.requests = n;
        notes.push(format!(
            "{} requests simulated (seed {}), the first {} discarded as warm-up; {}",
            count(n),
            seed,
            count(r.warmup),
            match l.load {
                Load::Rate => format!("Poisson arrivals at {} req/s", fmt(l.qps)),
                _ => format!(
                    "a closed loop of {} clients started at random offsets within {} s (one request's latency)",
                    format_exact(l.c),
                    fmt(setup.latency)
                ),
            }
        ));
        if r.shortened > 0 {
            notes.push(format!(
                "{} drawn requests were longer than the KV pool holds and were shortened to fit",
                r.shortened
            ));
        }
        if r.preempted > 0 {
            notes.push(format!(
                "{} preemptions: a request's KV dropped for want of room and recomputed",
                r.preempted
            ));
        }
        if let Some(t) = tier.as_mut() {
            t.with = Some(kv_tier::Trade::of(&r));
        }
        out.sim = Some(r);
    }
    out.tier = tier;
    let (g, why) = goodput_slo(l, &setup)?;
    out.goodput_qps_slo = g;
    out.goodput_slo_none = why;
    notes.push(format!("steps: {}", out.basis));
    out.notes = notes;
    Ok(Some(out))
}

/// A borrowed timing.
struct Borrowed<'a>(&'a dyn StepTiming);

impl StepTiming for Borrowed<'_> {
    fn coef(&self, l: &Llm, chip: &Chip) -> Result<StepCoef, String> {
        self.0.coef(l, chip)
    }
    fn basis(&self, l: &Llm) -> String {
        self.0.basis(l)
    }
}
