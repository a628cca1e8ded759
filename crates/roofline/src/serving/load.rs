//! Serving under load (issue 40): an `llm` op's figures when requests arrive in a closed loop
//! (`load=concurrency`, `c` clients) or an open one (`load=rate`, Poisson at `qps`), run by an
//! engine that batches continuously, chunks prefills and caps its running sequences. The steps
//! are the book's per-step roofline ([`super::step`]); which steps run and how often is
//! [`super::pattern`]; this module adds the caps, the queue, the closed and open loops,
//! saturation and goodput. `docs/serving.md` writes every equation beside a worked example.
//!
//! * **Prefix cache.** `P_h = min(⌊prefix_hit·P⌋, P − 1)` prompt tokens are served from the
//!   cache: their projections and MLP are skipped, but the new tokens' attention reads their
//!   keys, and their KV is held once in the pool (one common prefix per group of chips).
//! * **Caps.** The running batch is `N = min(c, cap)` with `cap = min(max_seqs, KV pool,
//!   K)`: the engine's sequence cap, what its KV pool holds (`pool = the engine's share of
//!   HBM less the weights`, per chip; each running sequence's KV at `P + G/2` on average where
//!   pages grow with tokens, at `P + G` where the engine reserves them; the prefix once), and
//!   for mixed steps the chunk budget (a step holds at most `K` tokens).
//! * **Closed loop.** `X = N / (TTFT_e + (G − 1)·TPOT)` (Little's law over the engine); the
//!   `c − N` requests beyond the running batch wait `W = (c − N)/X` for a slot, so `TTFT = W
//!   + TTFT_e` and `c = X·(TTFT + (G − 1)·TPOT)`.
//! * **Saturation.** `X_sat = cap / (TTFT_e + (G − 1)·TPOT)` at `N = cap`: the closed loop's
//!   throughput as `c → ∞`, the largest sustainable rate.
//! * **Open loop.** Below saturation the mean number inside `N̄` solves `λ = N̄ / (TTFT_e(N̄) +
//!   (G − 1)·TPOT(N̄))`; a request waits for a slot, with `cap` slots each busy for the
//!   request's lifetime `S`, `W = (1 + C_s²)/2 · C(cap, N̄) · S / (cap − N̄)` (the Allen–Cunneen
//!   approximation of the M/G/c queue, with `C_s = 0` for requests alike, and Erlang's `C`),
//!   which grows without bound toward saturation; at or past it the figures are `none`.
//! * **Goodput.** The largest rate whose mean `TTFT ≤ ttft_max` and mean `TPOT ≤ tpot_max`.
//!
//! Closed-loop runs start `c` requests at once, so their first wave prefills together: the
//! model takes the steady state after it (the benchmark's warm-up requests absorb the wave;
//! `docs/serving.md` says what it would add if they did not).

mod figures;
mod words;

use super::engine::{engine_defaults, EngineDefaults, Pages, Pattern};
use super::pattern::{state_at, EngineState, Shape};
use crate::analysis::{check_inputs, Options};
use crate::chip::Chip;
use crate::error::Error;
use crate::op::{Chunk, Engine, Llm, Load, Op};
use crate::units::format_exact;
pub use figures::{figures, load_figures};
use serde::{Deserialize, Serialize};
use words::{describe_pool, fmt_bytes};

/// What limits the running batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum CapBy {
    /// The engine's sequence cap (`max_seqs`).
    Seqs,
    /// What the KV pool holds.
    Pool,
    /// The chunk budget: a step holds at most `K` tokens.
    Budget,
}

/// The scenario's inputs as the engine takes them: its defaults, the budget, the caps, the
/// prompt's cached and new tokens.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Resolved {
    /// The engine's defaults on this chip.
    pub defaults: EngineDefaults,
    /// The chunk budget per step, tokens (decode and prefill together); `None` for whole
    /// prompts.
    pub budget: Option<f64>,
    /// Whether the budget is the engine's default (`chunk=auto`).
    pub budget_from_engine: bool,
    /// The sequence cap.
    pub max_seqs: f64,
    /// Whether it is the engine's default (`max_seqs=auto`).
    pub max_seqs_from_engine: bool,
    /// KV-pool bytes per chip.
    pub pool_bytes: f64,
    /// The common prefix's KV bytes per chip, held once.
    pub prefix_bytes: f64,
    /// KV bytes per chip a running sequence holds besides the prefix (at `P + G/2` where pages
    /// grow, `P + G` where they are reserved).
    pub seq_bytes: f64,
    /// Sequences the pool holds (over the `ep` groups).
    pub pool_seqs: f64,
    /// The most requests that run at once.
    pub cap: f64,
    /// What sets it.
    pub cap_by: CapBy,
    /// Prompt tokens served by the prefix cache `P_h`.
    pub prompt_hit: f64,
    /// Prompt tokens prefilled `P_n = P − P_h`.
    pub prompt_new: f64,
}

/// The engine at one operating point.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Operating {
    /// Requests inside the engine `N` (the mean `N̄` in an open loop).
    pub running: f64,
    /// Requests waiting for a slot (closed loop `c − N`; 0 in an open loop, whose wait is
    /// `queue_wait`).
    pub queued: f64,
    /// The mean wait for a slot, seconds.
    pub queue_wait: f64,
    /// Time to first token: the wait, the step in progress, the request's prefill steps.
    pub ttft: f64,
    /// Time per output token.
    pub tpot: f64,
    /// Requests per second.
    pub requests_per_s: f64,
    /// The engine's steps there.
    pub state: EngineState,
}

/// How a state's times are read: the bound (its steps' `T_lower`) or an expectation fitted on
/// measured runs (`crate::validation::load`). `None` where the reading has no figure.
pub trait Timing {
    /// The in-engine time to first token and the time per output token of `s`.
    fn times(&self, s: &EngineState) -> Option<(f64, f64)>;
}

/// The bound: the steps' `T_lower`.
#[derive(Debug, Clone, Copy, Default)]
pub struct BoundTiming;

impl Timing for BoundTiming {
    fn times(&self, s: &EngineState) -> Option<(f64, f64)> {
        Some((s.ttft.t, s.tpot.t))
    }
}

/// An `llm` op on a chip under load: the resolved inputs and the model's figures at any load.
#[derive(Debug, Clone)]
pub struct LoadModel<'a> {
    l: Llm,
    chip: &'a Chip,
    opts: &'a Options,
    shape: Shape,
    /// The inputs as the engine takes them.
    pub resolved: Resolved,
}

/// Erlang's C: the probability that an arrival waits, with `s` servers and offered load `a`
/// (in servers), by the stable recursion of Erlang's B: `B_k = a·B_{k−1} / (k + a·B_{k−1})`,
/// `C = s·B_s / (s − a·(1 − B_s))`. Stops once `B` underflows past the load (then `C ≈ 0`).
pub fn erlang_c(s: f64, a: f64) -> f64 {
    if a.is_nan() || a <= 0.0 {
        return 0.0;
    }
    if a >= s {
        return 1.0;
    }
    let mut b = 1.0_f64;
    let mut k = 1.0;
    while k <= s {
        b = a * b / (k + a * b);
        if b < 1e-300 && k > a {
            return 0.0;
        }
        k += 1.0;
    }
    (s * b / (s - a * (1.0 - b))).clamp(0.0, 1.0)
}

fn not_llm() -> Error {
    Error::invalid(
        "kind",
        "not llm",
        "serving under load is a figure of an llm op (a transformer)",
    )
}

impl<'a> LoadModel<'a> {
    /// The model of `op` (an `llm`) on `chip`: its inputs checked (as [`crate::analyze`]
    /// checks them) and resolved against the engine's defaults. Errors: the op's own, an op
    /// that is not an `llm`, speculative decoding (`draft=`, not modelled under load).
    pub fn new(op: &Op, chip: &'a Chip, opts: &'a Options) -> Result<LoadModel<'a>, Error> {
        let l = *op.llm().ok_or_else(not_llm)?;
        check_inputs(&op.kind, chip, opts)?;
        if let Some(d) = l.draft_preset() {
            return Err(Error::invalid(
                "draft",
                d.id,
                "speculative decoding under load (load=concurrency or rate) is not modelled: set draft=none for the load figures, or load=batch for speculative decoding's static figures",
            ));
        }
        let defaults = engine_defaults(l.engine, chip, l.tp);
        let chunk = match l.chunk {
            Chunk::Auto => defaults.chunk,
            c => c,
        };
        let budget = match chunk {
            Chunk::Tokens(k) => Some(k),
            Chunk::Whole | Chunk::Auto => None,
        };
        let (p, g) = (l.prompt, l.output);
        let hit = (l.prefix_hit * p).floor().min(p - 1.0).max(0.0);
        let max_seqs = l.max_seqs.unwrap_or(defaults.max_seqs);
        let pool_bytes = defaults.pool.pool(chip.hbm_cap, l.weight_bytes());
        let prefix_bytes = if hit > 0.0 {
            l.kv_bytes_per_seq(hit)
        } else {
            0.0
        };
        let held = match defaults.pages {
            Pages::Grow => p + g / 2.0,
            Pages::Reserve => p + g,
        };
        let seq_bytes = l.kv_bytes_per_seq(held) - prefix_bytes;
        let free = pool_bytes - prefix_bytes;
        let pool_seqs = if free > 0.0 && seq_bytes > 0.0 {
            (free / seq_bytes).floor() * l.ep
        } else {
            0.0
        };
        let mut cap = (max_seqs, CapBy::Seqs);
        if pool_seqs < cap.0 {
            cap = (pool_seqs, CapBy::Pool);
        }
        if let (Pattern::Mixed, Some(k)) = (defaults.pattern, budget) {
            if k < cap.0 {
                cap = (k, CapBy::Budget);
            }
        }
        let shape = Shape {
            prompt: p,
            output: g,
            hit,
            budget: budget.unwrap_or(f64::INFINITY),
            pattern: defaults.pattern,
        };
        Ok(LoadModel {
            l,
            chip,
            opts,
            shape,
            resolved: Resolved {
                defaults,
                budget,
                budget_from_engine: l.chunk == Chunk::Auto,
                max_seqs,
                max_seqs_from_engine: l.max_seqs.is_none(),
                pool_bytes,
                prefix_bytes,
                seq_bytes,
                pool_seqs,
                cap: cap.0,
                cap_by: cap.1,
                prompt_hit: hit,
                prompt_new: p - hit,
            },
        })
    }

    /// The op.
    pub fn llm(&self) -> &Llm {
        &self.l
    }

    /// Why the engine runs no request at all, if it does not: the KV pool holds none.
    pub fn no_request(&self) -> Option<String> {
        let r = &self.resolved;
        if r.cap >= 1.0 {
            return None;
        }
        Some(if r.pool_bytes <= r.prefix_bytes {
            format!(
                "the KV pool ({} of {} per chip, {}) holds no sequence: the weights ({} per chip) leave {} for KV",
                describe_pool(r.defaults.pool),
                fmt_bytes(self.chip.hbm_cap),
                r.defaults.version,
                fmt_bytes(self.l.weight_bytes()),
                fmt_bytes(r.pool_bytes.max(0.0)),
            )
        } else {
            format!(
                "the KV pool ({} per chip) holds no sequence of P + G = {} tokens ({} each)",
                fmt_bytes(r.pool_bytes),
                format_exact(self.l.prompt + self.l.output),
                fmt_bytes(r.seq_bytes),
            )
        })
    }

    /// The engine's state at `n` requests inside.
    pub fn state(&self, n: f64) -> Result<EngineState, Error> {
        state_at(&self.l, self.chip, self.opts, &self.shape, n)
    }

    fn lifetime(&self, s: &EngineState, timing: &dyn Timing) -> Option<f64> {
        let (ttft, tpot) = timing.times(s)?;
        Some(ttft + (self.l.output - 1.0) * tpot)
    }

    /// The closed loop of `c` clients, read by `timing`.
    pub fn closed(&self, c: f64, timing: &dyn Timing) -> Result<Option<Operating>, Error> {
        let n = c.min(self.resolved.cap);
        if n < 1.0 {
            return Ok(None);
        }
        let state = self.state(n)?;
        Ok(self.closed_at(c, n, state, timing))
    }

    /// The closed loop of `c` clients with `n` of them running in `state`.
    pub fn closed_at(
        &self,
        c: f64,
        n: f64,
        state: EngineState,
        timing: &dyn Timing,
    ) -> Option<Operating> {
        let (ttft_e, tpot) = timing.times(&state)?;
        let life = ttft_e + (self.l.output - 1.0) * tpot;
        let x = n / life;
        let wait = (c - n) / x;
        Some(Operating {
            running: n,
            queued: c - n,
            queue_wait: wait,
            ttft: wait + ttft_e,
            tpot,
            requests_per_s: x,
            state,
        })
    }

    /// The largest sustainable rate, requests per second: `cap / lifetime` at `N = cap`.
    pub fn saturation(&self, timing: &dyn Timing) -> Result<Option<f64>, Error> {
        let cap = self.resolved.cap;
        if cap < 1.0 {
            return Ok(None);
        }
        let s = self.state(cap)?;
        Ok(self.lifetime(&s, timing).map(|life| cap / life))
    }

    /// The open loop at `n` requests inside on average: its rate, and the figures there.
    pub fn open_at(&self, n: f64, timing: &dyn Timing) -> Result<Option<Operating>, Error> {
        let cap = self.resolved.cap;
        let state = self.state(n)?;
        let Some((ttft_e, tpot)) = timing.times(&state) else {
            return Ok(None);
        };
        let life = ttft_e + (self.l.output - 1.0) * tpot;
        let lambda = n / life;
        let wait = if n < cap {
            0.5 * erlang_c(cap, n) * life / (cap - n)
        } else {
            f64::INFINITY
        };
        Ok(Some(Operating {
            running: n,
            queued: 0.0,
            queue_wait: wait,
            ttft: wait + ttft_e,
            tpot,
            requests_per_s: lambda,
            state,
        }))
    }

    /// The open loop at `lambda` requests per second: `None` at or past saturation (or where
    /// `timing` has no figure).
    pub fn open(&self, lambda: f64, timing: &dyn Timing) -> Result<Option<Operating>, Error> {
        match self.saturation(timing)? {
            Some(sat) => self.open_below(lambda, sat, timing),
            None => Ok(None),
        }
    }

    /// [`LoadModel::open`] with the saturation rate `sat` known.
    fn open_below(
        &self,
        lambda: f64,
        sat: f64,
        timing: &dyn Timing,
    ) -> Result<Option<Operating>, Error> {
        let cap = self.resolved.cap;
        if lambda.is_nan() || lambda >= sat {
            return Ok(None);
        }
        // λ(N) = N / lifetime(N) rises with N from 0 to the saturation rate at the cap.
        let rate = |n: f64| -> Result<f64, Error> {
            let s = self.state(n)?;
            Ok(self.lifetime(&s, timing).map_or(f64::NAN, |life| n / life))
        };
        let n = solve_increasing(0.0, 0.0, cap, sat, lambda, rate)?;
        // The rate is the offered one: where λ(N) jumps (a prompt's chunk count changes with
        // the running batch) no N meets it exactly, and the figures are those at the jump.
        Ok(self.open_at(n, timing)?.map(|o| Operating {
            requests_per_s: lambda,
            ..o
        }))
    }

    /// The goodput: the largest rate whose mean time to first token is at most `ttft_max` and
    /// mean time per output token at most `tpot_max` (seconds), and the figures there; `Ok(0)`
    /// when even a lone request misses a bound.
    pub fn goodput(
        &self,
        ttft_max: f64,
        tpot_max: f64,
        timing: &dyn Timing,
    ) -> Result<Option<Goodput>, Error> {
        match self.saturation(timing)? {
            Some(sat) => self.goodput_below(ttft_max, tpot_max, sat, timing),
            None => Ok(None),
        }
    }

    /// [`LoadModel::goodput`] with the saturation rate `sat` known.
    fn goodput_below(
        &self,
        ttft_max: f64,
        tpot_max: f64,
        sat: f64,
        timing: &dyn Timing,
    ) -> Result<Option<Goodput>, Error> {
        let cap = self.resolved.cap;
        if cap < 1.0 {
            return Ok(None);
        }
        // A rate at or past saturation has no steady state, whatever the bounds (with a tight
        // chunk budget the rate can peak below the cap and fall back toward it).
        let meets = |n: f64| -> Result<Option<(bool, Operating)>, Error> {
            Ok(self.open_at(n, timing)?.map(|o| {
                let ok = o.ttft <= ttft_max && o.tpot <= tpot_max && o.requests_per_s < sat;
                (ok, o)
            }))
        };
        // The lightest load: one request alone.
        let lone = cap.min(1.0) * 1e-9;
        let Some((ok, first)) = meets(lone)? else {
            return Ok(None);
        };
        if !ok {
            return Ok(Some(Goodput {
                qps: 0.0,
                at: first,
            }));
        }
        // The largest n that meets both (TTFT and TPOT rise with the load), by bisection.
        let (mut lo, mut hi) = (lone, cap);
        let mut best = first;
        for _ in 0..48 {
            let mid = 0.5 * (lo + hi);
            match meets(mid)? {
                Some((true, o)) => {
                    lo = mid;
                    best = o;
                }
                _ => hi = mid,
            }
            if hi - lo <= 1e-3 * hi {
                break;
            }
        }
        Ok(Some(Goodput {
            qps: best.requests_per_s,
            at: best,
        }))
    }
}

/// A goodput and the operating point it is met at.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Goodput {
    /// Requests per second.
    pub qps: f64,
    /// The open loop at that rate.
    pub at: Operating,
}

/// The `x` in `[lo, hi]` where the increasing `f` (`f(lo) = f_lo`, `f(hi) = f_hi`) reaches
/// `target`, by the Illinois method (regula falsi that halves a stale end's weight): a few
/// evaluations where `f` is smooth, bisection's bracket where it jumps.
fn solve_increasing(
    mut lo: f64,
    mut f_lo: f64,
    mut hi: f64,
    mut f_hi: f64,
    target: f64,
    f: impl Fn(f64) -> Result<f64, Error>,
) -> Result<f64, Error> {
    let mut side = 0;
    for _ in 0..64 {
        let (a, b) = (f_lo - target, f_hi - target);
        let mut x = if b != a {
            lo - a * (hi - lo) / (b - a)
        } else {
            0.5 * (lo + hi)
        };
        if !(x > lo && x < hi) {
            x = 0.5 * (lo + hi);
        }
        let fx = f(x)?;
        if !fx.is_finite() {
            return Ok(x);
        }
        let d = fx - target;
        if d.abs() <= 1e-9 * target || hi - lo <= 1e-9 * hi {
            return Ok(x);
        }
        if d < 0.0 {
            lo = x;
            f_lo = fx;
            if side == -1 {
                f_hi = target + 0.5 * (f_hi - target);
            }
            side = -1;
        } else {
            hi = x;
            f_hi = fx;
            if side == 1 {
                f_lo = target + 0.5 * (f_lo - target);
            }
            side = 1;
        }
    }
    Ok(0.5 * (lo + hi))
}

/// The serving figures of an `llm` op under load (`load=concurrency` or `rate`) on a chip, as
/// the serving row shows them; `Ok(None)` for another kind or `load=batch`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LoadFigures {
    /// How requests arrive.
    pub load: Load,
    /// The engine.
    pub engine: Engine,
    /// Chips serving one copy of the model, `tp·ep`.
    pub chips: f64,
    /// Clients `c` (closed loop) or rate `qps` (open loop).
    pub offered: f64,
    /// The inputs as the engine takes them.
    pub resolved: Resolved,
    /// The operating point; `None` with `why_none`.
    pub at: Option<Operating>,
    /// Output tokens per second, `X·G`.
    pub tokens_per_s: Option<f64>,
    /// `tokens_per_s / chips`.
    pub tokens_per_s_chip: Option<f64>,
    /// What one request sees, `1 / TPOT`.
    pub tokens_per_s_seq: Option<f64>,
    /// The largest sustainable rate.
    pub saturation_qps: Option<f64>,
    /// The goodput at `ttft_max` and `tpot_max`; `None` with `goodput_none`.
    pub goodput_qps: Option<f64>,
    /// Why there is no goodput.
    pub goodput_none: Option<String>,
    /// Why the latency and throughput figures are `none`.
    pub why_none: Option<String>,
    /// What the row says about how the figures were obtained.
    pub notes: Vec<String>,
    /// The derivation: each equation of the figures beside its numbers.
    pub derivation: Vec<String>,
}
