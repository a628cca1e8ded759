//! The engine's steps at a running batch `N` in steady state (issue 40): which steps it runs,
//! how often, and the time per output token and time to first token they make. Every step is
//! timed by [`super::step`]; the equations are in `docs/serving.md` beside a worked example.
//!
//! Notation: `P` prompt, `G` output, `P_h` prompt tokens served by the prefix cache, `P_n = P −
//! P_h` prefilled, `K` the chunk budget (tokens per step, decode and prefill together), `N`
//! requests in the engine, `g = G − 1` decode steps per request. A decoding sequence attends to
//! `P + G/2` keys on average over its decode steps (the static model's mean context).
//!
//! **Mixed steps** (vLLM, TensorRT-LLM). Every running request advances every step: a prompt
//! by a chunk, a decode by a token. A prompt beside `N − 1` decoders has `u = K − (N − 1)`
//! tokens of budget, so `m = ⌈P_n/u⌉` chunks (`u` each, the last the rest; `m = 1` without
//! chunking). A request lives `m + g` steps, so the steps that carry a chunk are `N·m` of every
//! `m + g`:
//!
//! * when `(N − 1)·m ≤ g` prompts never overlap: a request's `g` decode steps hold the other
//!   `N − 1` requests' `m` chunk steps each, the rest pure decode steps of `N` sequences;
//!   `TPOT = [(N − 1)·Σ_j t(chunk_j) + (g − (N − 1)·m)·t(decode)] / g` and its own prefill
//!   `Σ_j t(chunk_j)`;
//! * otherwise every step carries prompts: `r = N/(m + g)` arrive per step, `r·P_n` prefill
//!   tokens and `r·g` decode tokens per step; with `m = 1` a step holds `⌊r⌋` or `⌈r⌉` whole
//!   prompts (in the proportions that make `r`), a request's own step size-biased; with
//!   `m > 1` the steps carry `r` times one prompt's chunks;
//! * when those tokens exceed `K` the budget binds: every step holds `K` tokens,
//!   `d = K·g/(P_n + g)` of them decode, a request lives `L = N·(P_n + g)/K` steps, `L − g` of
//!   them prefilling.
//!
//! **Split steps** (SGLang). A step is a prefill step or a decode step; a prefill step runs
//! whenever a prompt waits. With `N_d = N·g/(g + m)` decoding (`m = ⌈P_n/K⌉`), `a = N_d/g`
//! prompts arrive per decode step; prompts that fit (`P_n ≤ K`) share a prefill step, `k̄ =
//! clamp(a, 1, ⌊K/P_n⌋)` of them, `a/k̄` prefill steps per decode step; longer prompts take
//! their `m` chunk steps alone. `TPOT = t(decode of N_d) + (prefill time per decode step)`.
//!
//! **The step in progress.** A request arrives during a step and waits for it to end: on
//! average `E[t²] / (2·E[t])` over the steps as they occur (the residual of a renewal
//! process), counted in its time to first token; its first token leaves at the end of its last
//! chunk's step.

use super::engine::Pattern;
use super::step::{step_time_unchecked, PhaseLoad, StepMix, StepTime};
use crate::analysis::Options;
use crate::chip::Chip;
use crate::error::Error;
use crate::op::Llm;
use serde::{Deserialize, Serialize};

/// A figure's bound split as the fit reads it: seconds in compute-, memory- and link-bound
/// parts, the steps it spans and the collectives those steps run.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Decomp {
    /// The figure, seconds.
    pub t: f64,
    /// Seconds in parts bound by compute, memory and a link.
    pub by_bound: [f64; 3],
    /// Steps the figure spans.
    pub steps: f64,
    /// Collectives those steps run.
    pub collectives: f64,
}

impl Decomp {
    fn of(s: &StepTime) -> Decomp {
        Decomp {
            t: s.t,
            by_bound: s.by_bound,
            steps: 1.0,
            collectives: s.collectives,
        }
    }

    fn add(&mut self, o: Decomp, w: f64) {
        self.t += w * o.t;
        for (a, b) in self.by_bound.iter_mut().zip(o.by_bound) {
            *a += w * b;
        }
        self.steps += w * o.steps;
        self.collectives += w * o.collectives;
    }

    /// `w` times this.
    pub fn scaled(mut self, w: f64) -> Decomp {
        self.t *= w;
        for a in &mut self.by_bound {
            *a *= w;
        }
        self.steps *= w;
        self.collectives *= w;
        self
    }
}

/// One kind of step in the engine's pattern.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PatternStep {
    /// What the step holds.
    pub mix: StepMix,
    /// Its time.
    pub time: StepTime,
    /// How many of the pattern's steps are of this kind (relative counts).
    pub count: f64,
    /// What it is, in words (`chunk 1 of 2 beside 63 decodes`).
    pub what: String,
}

/// The regime the engine is in at a running batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Regime {
    /// Prompts prefill one at a time: some steps carry a chunk, the rest only decode.
    Apart,
    /// Prompts overlap: every step carries prefill work.
    Overlap,
    /// The chunk budget binds: every step holds `K` tokens.
    BudgetBound,
}

/// The engine's steady state at a running batch (see the module docs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EngineState {
    /// Requests in the engine `N`.
    pub running: f64,
    /// The step pattern.
    pub steps: Vec<PatternStep>,
    /// Chunks one prompt takes.
    pub chunks: f64,
    /// The regime.
    pub regime: Regime,
    /// The wait for the step in progress, seconds.
    pub residual: f64,
    /// A request's prefill in the engine: the residual and its own prefill steps, to its
    /// first token; how it splits.
    pub ttft: Decomp,
    /// Time per output token and how it splits.
    pub tpot: Decomp,
}

impl EngineState {
    /// A request's time in the engine: `ttft + (G − 1)·tpot`.
    pub fn lifetime(&self, output: f64) -> f64 {
        self.ttft.t + (output - 1.0) * self.tpot.t
    }
}

/// What the pattern needs of the scenario.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Shape {
    pub prompt: f64,
    pub output: f64,
    pub hit: f64,
    pub budget: f64,
    pub pattern: Pattern,
}

impl Shape {
    fn new_tokens(&self) -> f64 {
        self.prompt - self.hit
    }

    /// The chunks of one prompt with `u` tokens of budget, `u` each and the last the rest,
    /// as phases over the prefix and the chunks before them, each with how many chunks it
    /// stands for: one each up to [`MAX_CHUNK_STEPS`]; past that the full chunks are timed in
    /// that many groups of consecutive chunks, each at its middle chunk (a chunk's pairs grow
    /// linearly with its keys, so the middle one has the group's mean). Also the number of
    /// chunks `m`.
    fn chunks(&self, u: f64) -> (Vec<(PhaseLoad, f64)>, f64) {
        let pn = self.new_tokens();
        if !u.is_finite() || u >= pn {
            return (vec![(PhaseLoad::uniform(1.0, pn, self.prompt), 1.0)], 1.0);
        }
        let m = (pn / u).ceil();
        let full = m - 1.0;
        let last = pn - full * u;
        let groups = full.min(MAX_CHUNK_STEPS - 1.0);
        let mut v = Vec::with_capacity(groups as usize + 1);
        let mut start = 0.0;
        for g in 0..groups as usize {
            let end = (full * (g as f64 + 1.0) / groups).round();
            let n = end - start;
            if n > 0.0 {
                // Chunks start..end (0-based); the middle one ends at `(start + end + 1)/2·u`.
                let keys = self.hit + u * (start + end + 1.0) / 2.0;
                v.push((PhaseLoad::uniform(1.0, u, keys), n));
            }
            start = end;
        }
        v.push((PhaseLoad::uniform(1.0, last, self.prompt), 1.0));
        (v, m)
    }

    fn decode_keys(&self) -> f64 {
        self.prompt + self.output / 2.0
    }
}

/// The most steps a prompt's chunks are timed at (see [`Shape::chunks`]).
pub const MAX_CHUNK_STEPS: f64 = 32.0;

/// Times one step.
struct Timer<'a> {
    l: &'a Llm,
    chip: &'a Chip,
    opts: &'a Options,
}

impl Timer<'_> {
    fn step(&self, mix: StepMix, count: f64, what: String) -> Result<PatternStep, Error> {
        Ok(PatternStep {
            time: step_time_unchecked(self.l, self.chip, self.opts, &mix)?,
            mix,
            count,
            what,
        })
    }
}

fn decode_phase(n: f64, keys: f64) -> PhaseLoad {
    if n > 0.0 {
        PhaseLoad::decode(n, keys)
    } else {
        PhaseLoad::default()
    }
}

/// `E[t²] / (2·E[t])` over the steps by their counts.
fn residual(steps: &[PatternStep]) -> f64 {
    let (mut s, mut s2) = (0.0, 0.0);
    for p in steps {
        s += p.count * p.time.t;
        s2 += p.count * p.time.t * p.time.t;
    }
    if s > 0.0 {
        s2 / (2.0 * s)
    } else {
        0.0
    }
}

/// The residual's split: `E[t²]/(2·E[t]²)` mean steps.
fn residual_decomp(steps: &[PatternStep], r: f64) -> Decomp {
    let n: f64 = steps.iter().map(|p| p.count).sum();
    let mut mean = Decomp::default();
    for p in steps {
        mean.add(Decomp::of(&p.time), p.count / n);
    }
    if mean.t > 0.0 {
        mean.scaled(r / mean.t)
    } else {
        Decomp::default()
    }
}

/// Two neighbouring whole numbers around `r ≥ 1` and their weights, `(k, w)`, so that `Σ w = 1`
/// and `Σ w·k = r`.
fn split_whole(r: f64, max: f64) -> Vec<(f64, f64)> {
    let r = r.clamp(1.0, max.max(1.0));
    let k0 = r.floor();
    let f = r - k0;
    if f > 0.0 && k0 < max {
        vec![(k0, 1.0 - f), (k0 + 1.0, f)]
    } else {
        vec![(k0, 1.0)]
    }
}

/// The engine's state at `n` requests (see the module docs).
pub(crate) fn state_at(
    l: &Llm,
    chip: &Chip,
    opts: &Options,
    shape: &Shape,
    n: f64,
) -> Result<EngineState, Error> {
    let timer = Timer { l, chip, opts };
    // A request in the engine sees at least itself: below one request on average (an open
    // loop at light load) each runs alone.
    let nc = n.max(1.0);
    match shape.pattern {
        Pattern::Mixed => mixed(&timer, shape, n, nc),
        Pattern::Split => split(&timer, shape, n, nc),
    }
}

fn mixed(timer: &Timer, sh: &Shape, n: f64, nc: f64) -> Result<EngineState, Error> {
    let g = sh.output - 1.0;
    let pn = sh.new_tokens();
    let keys = sh.decode_keys();
    let dc = nc - 1.0;
    let (chunks, m) = sh.chunks(sh.budget - dc);
    if dc * m <= g {
        // Prompts apart.
        let mut steps = Vec::with_capacity(chunks.len() + 1);
        let mut own = Decomp::default();
        let mut tpot = Decomp::default();
        let mut first = 1.0;
        for (p, w) in &chunks {
            let mix = StepMix {
                prefill: *p,
                decode: decode_phase(dc, keys),
            };
            let which = if *w == 1.0 {
                format!("chunk {}", fmt(first))
            } else {
                format!("chunks {}–{}", fmt(first), fmt(first + w - 1.0))
            };
            let what = format!("{which} of {} beside {} decodes", fmt(m), fmt(dc));
            let s = timer.step(mix, nc * w, what)?;
            own.add(Decomp::of(&s.time), *w);
            if g > 0.0 {
                tpot.add(Decomp::of(&s.time), dc * w / g);
            }
            steps.push(s);
            first += w;
        }
        if g > 0.0 {
            let mix = StepMix::decode(PhaseLoad::decode(nc, keys));
            let pure_count = (m + g - nc * m).max(0.0);
            let s = timer.step(mix, pure_count, format!("{} decodes", fmt(nc)))?;
            tpot.add(Decomp::of(&s.time), 1.0 - dc * m / g);
            steps.push(s);
        } else {
            tpot = decode_only(timer, nc, keys)?;
        }
        return finish(n, steps, m, Regime::Apart, own, tpot);
    }
    let r = nc / (m + g);
    let (rho, dbar) = (r * pn, r * g);
    if rho + dbar <= sh.budget {
        let decode = decode_phase(dbar, keys);
        let mut steps = Vec::new();
        let mut own = Decomp::default();
        let mut tpot = Decomp::default();
        if m == 1.0 {
            for (k, w) in split_whole(r, f64::INFINITY) {
                let mix = StepMix {
                    prefill: PhaseLoad::uniform(k, pn, sh.prompt),
                    decode,
                };
                let what = format!("{} prompts beside {} decodes", fmt(k), fmt(dbar));
                let s = timer.step(mix, w, what)?;
                tpot.add(Decomp::of(&s.time), w);
                own.add(Decomp::of(&s.time), k * w / r);
                steps.push(s);
            }
        } else {
            let prefill = chunks
                .iter()
                .fold(PhaseLoad::default(), |a, (p, w)| a.plus(p.scaled(*w)))
                .scaled(r);
            let what = format!("{} prompts' chunks beside {} decodes", fmt(r), fmt(dbar));
            let s = timer.step(StepMix { prefill, decode }, 1.0, what)?;
            tpot.add(Decomp::of(&s.time), 1.0);
            own.add(Decomp::of(&s.time), m);
            steps.push(s);
        }
        if g <= 0.0 {
            tpot = decode_only(timer, nc, keys)?;
        }
        return finish(n, steps, m, Regime::Overlap, own, tpot);
    }
    // The budget binds: every step holds K tokens.
    let k = sh.budget;
    let d = k * g / (pn + g);
    let life = nc * (pn + g) / k;
    let pre_seqs = (nc - d).max(f64::MIN_POSITIVE);
    let q = (k - d) / pre_seqs;
    let kbar = (sh.hit + pn / 2.0 + q / 2.0).clamp(q, sh.prompt.max(q));
    let mix = StepMix {
        prefill: PhaseLoad::uniform(pre_seqs, q, kbar),
        decode: decode_phase(d, keys),
    };
    let what = format!(
        "{} tokens: {} prompts' chunks beside {} decodes",
        fmt(k),
        fmt(pre_seqs),
        fmt(d)
    );
    let s = timer.step(mix, 1.0, what)?;
    let mut own = Decomp::default();
    own.add(Decomp::of(&s.time), (life - g).max(1.0));
    let tpot = if g > 0.0 {
        Decomp::of(&s.time)
    } else {
        decode_only(timer, nc, keys)?
    };
    finish(n, vec![s], life - g, Regime::BudgetBound, own, tpot)
}

fn split(timer: &Timer, sh: &Shape, n: f64, nc: f64) -> Result<EngineState, Error> {
    let g = sh.output - 1.0;
    let pn = sh.new_tokens();
    let keys = sh.decode_keys();
    let (chunks, m) = sh.chunks(sh.budget);
    let nd = if g > 0.0 { nc * g / (g + m) } else { 0.0 };
    let a = if g > 0.0 { nd / g } else { nc / m };
    let mut steps = Vec::new();
    let mut own = Decomp::default();
    // Prefill time per decode step.
    let mut stall = Decomp::default();
    if m > 1.0 {
        let mut first = 1.0;
        for (p, w) in &chunks {
            let what = if *w == 1.0 {
                format!("prefill chunk {} of {}", fmt(first), fmt(m))
            } else {
                format!(
                    "prefill chunks {}–{} of {}",
                    fmt(first),
                    fmt(first + w - 1.0),
                    fmt(m)
                )
            };
            let s = timer.step(StepMix::prefill(*p), a * w, what)?;
            own.add(Decomp::of(&s.time), *w);
            stall.add(Decomp::of(&s.time), a * w);
            steps.push(s);
            first += w;
        }
    } else {
        let kmax = (sh.budget / pn).floor().max(1.0);
        let kbar = a.clamp(1.0, kmax);
        let per_decode = a / kbar;
        for (k, w) in split_whole(kbar, kmax) {
            let what = format!("prefill of {} prompts", fmt(k));
            let mix = StepMix::prefill(PhaseLoad::uniform(k, pn, sh.prompt));
            let s = timer.step(mix, per_decode * w, what)?;
            own.add(Decomp::of(&s.time), k * w / kbar);
            stall.add(Decomp::of(&s.time), per_decode * w);
            steps.push(s);
        }
    }
    let tpot = if nd > 0.0 {
        let s = timer.step(
            StepMix::decode(PhaseLoad::decode(nd, keys)),
            1.0,
            format!("{} decodes", fmt(nd)),
        )?;
        let mut t = Decomp::of(&s.time);
        t.add(stall, 1.0);
        steps.push(s);
        t
    } else {
        decode_only(timer, nc, keys)?
    };
    finish(n, steps, m, Regime::Apart, own, tpot)
}

/// A decode step of `n` sequences, for the time per output token of a request with one output
/// token (none follows the first: the figure is the step it would take).
fn decode_only(timer: &Timer, n: f64, keys: f64) -> Result<Decomp, Error> {
    let mix = StepMix::decode(PhaseLoad::decode(n, keys));
    Ok(Decomp::of(&step_time_unchecked(
        timer.l, timer.chip, timer.opts, &mix,
    )?))
}

fn finish(
    n: f64,
    steps: Vec<PatternStep>,
    chunks: f64,
    regime: Regime,
    own: Decomp,
    tpot: Decomp,
) -> Result<EngineState, Error> {
    let r = residual(&steps);
    let mut ttft = residual_decomp(&steps, r);
    ttft.add(own, 1.0);
    Ok(EngineState {
        running: n,
        steps,
        chunks,
        regime,
        residual: r,
        ttft,
        tpot,
    })
}

fn fmt(x: f64) -> String {
    crate::units::format_sig(x, 4)
}
