//! Serving tails (issue 42): a discrete-event simulation of requests through an engine, or
//! through a disaggregated deployment of prefill and decode workers, each step timed by the
//! mixed step of issue 40 ([`super::step_time`], through [`super::StepEval`]) read by the
//! engine's fitted terms ([`StepTiming`]); percentiles of what the requests see.
//!
//! **Requests.** They arrive in a closed loop (`c` clients, each sending its next request when
//! its last one ends; the clients start at seeded random offsets within one request's
//! latency, or all at once: the benchmark's ramp) or an open one (Poisson at `qps`). Lengths
//! are the op's `prompt` and `output`, or drawn lognormal with those means and coefficients
//! of variation `prompt_cv`, `output_cv` (rounded, at least 1 token; a request longer than
//! the KV pool holds is shortened to fit, and counted). A prefix hit serves the same
//! `⌊prefix_hit·P⌋` tokens of every prompt (one common prefix), as the load model's.
//!
//! **The engine** ([`run`]) admits waiting requests first come first served while its sequence
//! cap (`max_seqs`; for mixed steps also the chunk budget), its chunk budget and its KV pool
//! allow, and advances one step at a time in the engine's pattern (issue 40's
//! [`super::Pattern`]): mixed steps carry every decode token and prefill chunks up to the
//! budget (running prompts first, then new ones); split steps run a prefill step whenever a
//! prompt can be admitted or a chunked one continues, else a decode step of every running
//! sequence. Pages follow the engine: grown with tokens (a step that would overflow the pool
//! preempts the most recently admitted request, whose KV is recomputed when it runs again, as
//! vLLM's default does), or reserved for prompt and output at admission. The first token
//! leaves at the end of the last chunk's step; each decode step emits one token per running
//! sequence.
//!
//! **Figures** ([`SimResult`]) come from the requests issued after a discarded warm-up (the
//! first [`WARMUP`] of them): TTFT, ITL (every gap between consecutive tokens of those
//! requests) and TPOT (each request's own `(E2E − TTFT)/(G − 1)`) at P50, P90 and P99 by
//! nearest rank ([`Samples`]), mean and P99 end-to-end latency, throughput over the issue
//! times of those requests, the mean number inside the engine and the queue over time.
//!
//! `docs/serving.md` ("Percentiles from simulated requests") says the same with the checks.

mod deploy;
mod quantile;
pub mod rng;
mod run;
mod series;

pub use deploy::{aggregated, prefix_tokens, worker};
pub use quantile::Samples;
pub use run::{run, Deployment, HitMix, Host, Worker};
pub use series::{QueuePoint, QueueSeries};

#[cfg(doc)]
use crate::serving::step_time;

use super::pattern::Decomp;
use crate::chip::Chip;
use crate::op::Llm;
use serde::{Deserialize, Serialize};

/// The share of requests discarded as warm-up: the first 20 % issued.
pub const WARMUP: f64 = 0.2;

/// A step's expected time as a linear function of its bound's split and its sequences (what
/// issue 40's fitted terms are: each resource's seconds slowed by what the engine achieves,
/// plus fixed costs per step, per collective and per running sequence): `Σ by_bound[i]·
/// d.by_bound[i] + per_step·d.steps + per_collective·d.collectives + per_sequence·seqs`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct StepCoef {
    /// Seconds per second of the bound in compute-, memory- and link-bound parts.
    pub by_bound: [f64; 3],
    /// Seconds per step.
    pub per_step: f64,
    /// Seconds per collective.
    pub per_collective: f64,
    /// Seconds per sequence in a step (the host's cost per running sequence).
    pub per_sequence: f64,
}

impl StepCoef {
    /// The bound itself: each step its `T_lower`.
    pub const BOUND: StepCoef = StepCoef {
        by_bound: [1.0; 3],
        per_step: 0.0,
        per_collective: 0.0,
        per_sequence: 0.0,
    };

    /// The expected time of a step (or of a sum of steps) whose bound splits as `d`, with
    /// `seqs` sequences (summed over its steps).
    #[inline]
    pub fn time(&self, d: &Decomp, seqs: f64) -> f64 {
        self.by_bound[0] * d.by_bound[0]
            + self.by_bound[1] * d.by_bound[1]
            + self.by_bound[2] * d.by_bound[2]
            + self.per_step * d.steps
            + self.per_collective * d.collectives
            + self.per_sequence * seqs
    }

    /// The coefficients of a reading `f(d, seqs)` that is linear in the decomposition and the
    /// sequences (an expectation `ratio(features(d, seqs))·d.t` whose features are shares of
    /// `d.t` and per-second counts), found by reading unit decompositions and checked at an
    /// unrelated one to 1e-9; `None` when `f` is not linear or not finite there.
    pub fn probe(f: impl Fn(&Decomp, f64) -> f64) -> Option<StepCoef> {
        let unit = |i: usize| {
            let mut d = Decomp {
                t: 1.0,
                by_bound: [0.0; 3],
                steps: 0.0,
                collectives: 0.0,
            };
            d.by_bound[i] = 1.0;
            d
        };
        let mut c = StepCoef {
            by_bound: [0.0; 3],
            per_step: 0.0,
            per_collective: 0.0,
            per_sequence: 0.0,
        };
        for i in 0..3 {
            c.by_bound[i] = f(&unit(i), 0.0);
        }
        let mut s = unit(1);
        s.steps = 1.0;
        c.per_step = f(&s, 0.0) - c.by_bound[1];
        let mut x = unit(1);
        x.collectives = 1.0;
        c.per_collective = f(&x, 0.0) - c.by_bound[1];
        c.per_sequence = f(&unit(1), 1.0) - c.by_bound[1];
        let check = Decomp {
            t: 0.0371,
            by_bound: [0.0123, 0.0211, 0.0037],
            steps: 1.0,
            collectives: 160.0,
        };
        let (a, b) = (f(&check, 37.0), c.time(&check, 37.0));
        let finite = c.by_bound.iter().all(|x| x.is_finite())
            && c.per_step.is_finite()
            && c.per_collective.is_finite()
            && c.per_sequence.is_finite();
        (finite && a.is_finite() && (a - b).abs() <= 1e-9 * a.abs().max(b.abs())).then_some(c)
    }
}

impl super::Timing for StepCoef {
    fn times(&self, s: &super::EngineState) -> Option<(f64, f64)> {
        let n = s.running.max(1.0);
        Some((
            self.time(&s.ttft, n * s.ttft.steps),
            self.time(&s.tpot, n * s.tpot.steps),
        ))
    }
}

/// How a deployment's steps are read: the coefficients for a worker of `l` on `chip`
/// ([`StepCoef::BOUND`] for the bound; an engine's fitted terms for an expectation), or why
/// there are none.
pub trait StepTiming {
    /// The coefficients for a worker of `l` on `chip`.
    fn coef(&self, l: &Llm, chip: &Chip) -> Result<StepCoef, String>;
    /// What the reading is, in words (`the bound`, `vLLM's fitted terms (set …)`).
    fn basis(&self, l: &Llm) -> String;
}

/// The bound: every step its `T_lower`.
#[derive(Debug, Clone, Copy, Default)]
pub struct BoundSteps;

impl StepTiming for BoundSteps {
    fn coef(&self, _: &Llm, _: &Chip) -> Result<StepCoef, String> {
        Ok(StepCoef::BOUND)
    }
    fn basis(&self, _: &Llm) -> String {
        "the bound (each step its T_lower)".into()
    }
}

/// When a closed loop's clients send their first requests.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum Starts {
    /// At seeded uniform offsets in `[0, within)` seconds.
    Random {
        /// The offsets' range, seconds (one request's latency).
        within: f64,
    },
    /// Evenly, client `i` of `c` at `i·within/c`.
    Even {
        /// The offsets' range, seconds.
        within: f64,
    },
    /// All at once: the benchmark's ramp.
    Ramp,
}

/// How requests arrive.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum Arrivals {
    /// `clients` in a closed loop, each sending its next request when its last one ends.
    Closed {
        /// Clients `c`.
        clients: usize,
        /// When they start.
        starts: Starts,
    },
    /// Poisson arrivals at `qps` requests per second.
    Open {
        /// The rate.
        qps: f64,
    },
}

/// What to simulate besides the deployment.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SimSpec {
    /// Requests counted: the first [`WARMUP`] of them discarded, the rest measured (more are
    /// issued while they run, so the load holds to the last).
    pub requests: usize,
    /// How they arrive.
    pub arrivals: Arrivals,
    /// The seed.
    pub seed: u64,
    /// Mean prompt and output lengths, tokens.
    pub prompt: f64,
    /// Mean output length.
    pub output: f64,
    /// Coefficients of variation of the lengths (0: fixed).
    pub prompt_cv: f64,
    /// Of the output lengths.
    pub output_cv: f64,
    /// The most steps the run may take before it gives up (a rate far past saturation with
    /// long outputs), all workers together.
    pub max_steps: u64,
    /// Runs of decode steps alike are timed in one go (each step still timed alone; the
    /// figures are the same as step by step, `tests/it/serving_sim.rs`); `false` for one
    /// event per step.
    pub fast_forward: bool,
    /// The bounds a service level holds each request to, seconds: its TTFT and its own TPOT
    /// (`ttft_max`, `tpot_max`); `None` for no service level.
    pub slo: Option<(f64, f64)>,
}

/// P50, P90 and P99 of a figure, and its mean, seconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Pcts {
    /// Median.
    pub p50: f64,
    /// 90th percentile.
    pub p90: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Mean.
    pub mean: f64,
}

impl Pcts {
    fn of(s: &Samples) -> Option<Pcts> {
        let [p50, p90, p99] = s.quantiles([0.5, 0.9, 0.99])?;
        Some(Pcts {
            p50,
            p90,
            p99,
            mean: s.mean()?,
        })
    }
}

/// A simulated run's figures over its measured requests (module docs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SimResult {
    /// Requests measured (after the warm-up).
    pub measured: usize,
    /// Requests discarded as warm-up.
    pub warmup: usize,
    /// The seed.
    pub seed: u64,
    /// Time to first token.
    pub ttft: Pcts,
    /// Gaps between consecutive tokens of a request; `None` when every output is one token.
    pub itl: Option<Pcts>,
    /// Each request's own `(E2E − TTFT)/(G − 1)`; `None` when every output is one token.
    pub tpot: Option<Pcts>,
    /// End-to-end latency, first byte sent to last token.
    pub e2e: Pcts,
    /// Requests per second over the measured requests' issue times.
    pub requests_per_s: f64,
    /// Output tokens per second: `requests_per_s` times the measured mean output.
    pub tokens_per_s: f64,
    /// Mean measured output length, tokens.
    pub mean_output: f64,
    /// Mean number of requests inside the engine (admitted, not waiting), over the
    /// measurement: in a disaggregated deployment, decoding on the decode workers.
    pub running: f64,
    /// Requests waiting for admission over time `(t, n)`, seconds from the first measured
    /// request's issue, at most [`QUEUE_POINTS`] points.
    pub queue: Vec<(f64, f64)>,
    /// Requests waiting and the running batch after each step from the run's start, at most
    /// [`QUEUE_POINTS`] bins each keeping its most ([`QueueSeries`]).
    pub series: Vec<QueuePoint>,
    /// When the warm-up ends: the first measured request's issue, seconds from the run's start.
    pub warmup_end: Option<f64>,
    /// The share of measured requests, percent, whose TTFT and own TPOT both meet
    /// [`SimSpec::slo`]; `None` without one.
    pub slo_met: Option<f64>,
    /// Preemptions (a request's KV dropped for want of room, recomputed later).
    pub preempted: usize,
    /// Requests whose drawn lengths were shortened to fit the KV pool.
    pub shortened: usize,
    /// Steps run, all workers together.
    pub steps: u64,
    /// Steps timed from the `(B, T)` cache ([`super::StepEval`]).
    pub cached_steps: u64,
    /// The simulated time, seconds.
    pub span: f64,
}

/// The most points of the queue's series.
pub const QUEUE_POINTS: usize = 512;

/// The share of `ok` among the measured, percent.
pub(crate) fn pct(ok: usize, of: usize) -> f64 {
    if of == 0 {
        0.0
    } else {
        100.0 * ok as f64 / of as f64
    }
}
