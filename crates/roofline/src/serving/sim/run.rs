//! The event loop of the simulation (see the module docs of [`super`]): requests, workers,
//! their steps and the KV transfers between them.
//!
//! Over 600 lines on purpose: one engine's scheduler (admission, chunks, preemption, the two
//! step patterns, a disaggregated deployment's prefill and decode roles and its transfers)
//! is one state machine, and its parts read and write the same request and worker state.

use super::rng::Rng;
use super::{Arrivals, Pcts, Samples, SimResult, SimSpec, Starts, StepCoef, QUEUE_POINTS, WARMUP};
use crate::error::Error;
use crate::op::{PhaseLoad, Role, StepMix};
use crate::serving::{Decomp, Pages, Pattern, StepEval};
use std::cmp::{Ordering, Reverse};
use std::collections::{BinaryHeap, VecDeque};

/// One worker of a deployment: an engine on its own chips.
#[derive(Debug, Clone)]
pub struct Worker {
    /// Prefill and decode (aggregated), or one of them (disaggregated).
    pub role: Option<Role>,
    /// Its steps.
    pub eval: StepEval,
    /// How its steps' bounds are read.
    pub coef: StepCoef,
    /// The engine's step pattern.
    pub pattern: Pattern,
    /// Tokens per step (decode and prefill together); infinite for whole prompts.
    pub budget: f64,
    /// The most requests admitted at once.
    pub cap: f64,
    /// KV tokens the pool holds, all groups together (the common prefix's apart).
    pub pool: f64,
    /// The most tokens of one request's own KV (one group's pool).
    pub seq_max: f64,
    /// Grown with tokens or reserved at admission.
    pub pages: Pages,
    /// A prefill worker sends each chunk's KV when the chunk is done (SGLang), else the whole
    /// prompt's after its last chunk.
    pub chunk_send: bool,
    /// Its KV tier in host memory, if any.
    pub host: Option<Host>,
}

/// Workers and what joins them.
#[derive(Debug, Clone)]
pub struct Deployment {
    /// One aggregated worker, or `x` prefill workers then `y` decode workers.
    pub workers: Vec<Worker>,
    /// Prompt tokens served by the prefix cache (one common prefix).
    pub hit: f64,
    /// Disaggregated: seconds a KV token takes over the link (the slower of a prefill chip's
    /// sending and a decode chip's receiving share).
    pub transfer: f64,
    /// Where prefix hits are served from, when not every request finds the common prefix in
    /// HBM (a working set of prefixes larger than the room for them; `serving::kv_tier`).
    pub hits: Option<HitMix>,
    /// A KV tier in host memory: it holds preempted requests' KV (swapped out and back
    /// instead of recomputed) and cached prefixes.
    pub host: Option<Host>,
}

/// Where a request's prefix hit is served from: HBM with probability `hbm`, the host tier
/// with probability `host` (its KV loaded over the host link in `load` seconds before the
/// request is admitted), else nowhere (the whole prompt prefilled).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HitMix {
    /// The share of requests whose prefix is in HBM.
    pub hbm: f64,
    /// The share whose prefix is in the host tier and is loaded.
    pub host: f64,
    /// Seconds one prefix takes over the host link.
    pub load: f64,
}

/// A KV tier in host memory, per worker.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Host {
    /// KV tokens it holds (all groups together).
    pub tokens: f64,
    /// Seconds a KV token takes over the host link, each way.
    pub per_token: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    AdmitQueue,
    Waiting,
    Prefilling,
    Transfer,
    Decoding,
    Done,
}

#[derive(Debug, Clone)]
struct Req {
    arrive: f64,
    prompt: f64,
    output: f64,
    /// Prompt tokens served by the prefix cache.
    hit: f64,
    /// KV tokens swapped out to the host tier (0 when none).
    swapped: f64,
    /// Tokens to prefill to: the prompt, or prompt and output so far when recomputed.
    target: f64,
    /// Prompt tokens with KV (the prefix hit included).
    done: f64,
    /// Tokens emitted when it joined the decoders.
    gen0: f64,
    /// The decode step count of its worker when it joined.
    join: u64,
    first: f64,
    last_emit: f64,
    epoch: u32,
    /// The worker it prefills on, and (disaggregated) decodes on.
    pw: usize,
    dw: usize,
    client: usize,
    kept: bool,
    /// In the previous decode step of its worker (else a fresh decoder).
    old: bool,
    state: State,
}

/// A worker's running state.
#[derive(Debug, Default)]
struct Run {
    waiting: VecDeque<usize>,
    prefilling: Vec<usize>,
    /// Admission order, for preemption (lazily cleaned).
    admitted: Vec<usize>,
    running: f64,
    usage: f64,
    /// Tokens admitted prompts will still prefill (pages that grow).
    promised: f64,
    dec_n: f64,
    dec_keys: f64,
    old_kept: f64,
    fresh: Vec<usize>,
    heap: BinaryHeap<Reverse<(u64, usize, u32)>>,
    dsteps: u64,
    busy: bool,
    plan_chunks: Vec<(usize, f64)>,
    plan_decode: bool,
    /// The end of each step of the planned run (one step, or a run of decode steps alike).
    plan_ends: Vec<f64>,
    /// Requests ready to decode (prompt done, or KV arrived), joining at the next step.
    pending: Vec<usize>,
    /// KV tokens in the host tier.
    host_used: f64,
    /// Seconds of swaps the next step waits for.
    swap: f64,
    /// When the host link is free (prefix loads queue on it).
    host_free: f64,
    last_decode_end: f64,
    link_free: f64,
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct T(f64);
impl Eq for T {}
impl PartialOrd for T {
    fn partial_cmp(&self, o: &T) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for T {
    fn cmp(&self, o: &T) -> Ordering {
        self.0.total_cmp(&o.0)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Ev {
    Arrival,
    Client(usize),
    StepEnd(usize),
    Transferred(usize),
    Loaded(usize),
}

struct Sim<'a> {
    spec: SimSpec,
    dep: &'a mut Deployment,
    runs: Vec<Run>,
    reqs: Vec<Req>,
    admit_q: VecDeque<usize>,
    events: BinaryHeap<Reverse<(T, u64, Ev)>>,
    seq: u64,
    now: f64,
    rng_len: Rng,
    rng_arr: Rng,
    rng_hit: Rng,
    warm: usize,
    total: usize,
    measured_done: usize,
    // Figures.
    ttft: Samples,
    tpot: Samples,
    e2e: Samples,
    itl: Samples,
    out_sum: f64,
    slo_ok: usize,
    preempted: usize,
    shortened: usize,
    steps: u64,
    t0: Option<f64>,
    t1: Option<f64>,
    area: f64,
    last_t: f64,
    queue: Vec<(f64, f64)>,
    queue_stride: usize,
    queue_seen: usize,
    series: super::QueueSeries,
    disagg: bool,
    /// Decode workers from this index.
    first_decode: usize,
}

/// Runs `spec` on `dep` (see the module docs of [`super`]). Errors: a step the model refuses,
/// a run past [`SimSpec::max_steps`], a deployment that holds no request.
pub fn run(dep: &mut Deployment, spec: &SimSpec) -> Result<SimResult, Error> {
    if dep.workers.is_empty() || spec.requests == 0 {
        return Err(Error::invalid(
            "simulation",
            "empty",
            "a simulation needs a worker and a request",
        ));
    }
    for w in &dep.workers {
        if w.cap < 1.0 || w.seq_max < 2.0 || w.pool < 2.0 {
            return Err(Error::invalid(
                "simulation",
                "no room",
                "a worker's KV pool or sequence cap holds no request",
            ));
        }
    }
    let first_decode = dep
        .workers
        .iter()
        .position(|w| w.role == Some(Role::Decode))
        .unwrap_or(dep.workers.len());
    let disagg = first_decode < dep.workers.len();
    let n = dep.workers.len();
    let warm = ((spec.requests as f64) * WARMUP).floor() as usize;
    let mut sim = Sim {
        spec: *spec,
        dep,
        runs: (0..n).map(|_| Run::default()).collect(),
        reqs: Vec::with_capacity(spec.requests + 64),
        admit_q: VecDeque::new(),
        events: BinaryHeap::new(),
        seq: 0,
        now: 0.0,
        rng_len: Rng::new(spec.seed, 1),
        rng_arr: Rng::new(spec.seed, 2),
        rng_hit: Rng::new(spec.seed, 4),
        warm,
        total: spec.requests,
        measured_done: 0,
        ttft: Samples::new(),
        tpot: Samples::new(),
        e2e: Samples::new(),
        itl: Samples::new(),
        out_sum: 0.0,
        slo_ok: 0,
        preempted: 0,
        shortened: 0,
        steps: 0,
        t0: None,
        t1: None,
        area: 0.0,
        last_t: 0.0,
        queue: Vec::new(),
        queue_stride: 1,
        queue_seen: 0,
        series: super::QueueSeries::default(),
        disagg,
        first_decode,
    };
    sim.start();
    sim.drive()?;
    sim.result()
}

impl Sim<'_> {
    fn push(&mut self, t: f64, ev: Ev) {
        self.seq += 1;
        self.events.push(Reverse((T(t), self.seq, ev)));
    }

    fn start(&mut self) {
        match self.spec.arrivals {
            Arrivals::Closed { clients, starts } => {
                let mut r = Rng::new(self.spec.seed, 3);
                for c in 0..clients {
                    let t = match starts {
                        Starts::Random { within } => r.uniform() * within,
                        Starts::Even { within } => c as f64 * within / clients as f64,
                        Starts::Ramp => 0.0,
                    };
                    self.push(t, Ev::Client(c));
                }
            }
            Arrivals::Open { qps } => {
                let t = self.rng_arr.exponential(1.0 / qps);
                self.push(t, Ev::Arrival);
            }
        }
    }

    fn drive(&mut self) -> Result<(), Error> {
        while let Some(Reverse((T(t), _, ev))) = self.events.pop() {
            self.advance(t);
            match ev {
                Ev::Arrival => {
                    self.issue(usize::MAX);
                    if let Arrivals::Open { qps } = self.spec.arrivals {
                        let next = t + self.rng_arr.exponential(1.0 / qps);
                        self.push(next, Ev::Arrival);
                    }
                }
                Ev::Client(c) => self.issue(c),
                Ev::StepEnd(w) => self.finish_step(w),
                Ev::Transferred(r) => self.transferred(r)?,
                Ev::Loaded(r) => self.enqueue(r),
            }
            if self.measured_done >= self.total - self.warm {
                return Ok(());
            }
            if self.steps > self.spec.max_steps {
                return Err(Error::invalid(
                    "simulation",
                    format!("{} steps", self.steps),
                    "the run did not finish its measured requests within the step limit (a rate far past saturation?)",
                ));
            }
            // Every event at this instant first (a request that arrives as a step ends is in
            // the next step: the scheduler sees what has arrived when it schedules), then any
            // idle worker with work starts its next step.
            if matches!(self.events.peek(), Some(Reverse((T(next), _, _))) if *next == t) {
                continue;
            }
            for w in 0..self.runs.len() {
                if !self.runs[w].busy {
                    self.try_start(w)?;
                }
            }
        }
        Ok(())
    }

    /// Time moves to `t`: the mean number inside the engine integrates over the window.
    fn advance(&mut self, t: f64) {
        if let Some(t0) = self.t0 {
            let from = self.last_t.max(t0);
            let to = self.t1.map_or(t, |t1| t.min(t1));
            if to > from {
                self.area += self.inside() * (to - from);
            }
        }
        self.last_t = t;
        self.now = t;
    }

    fn inside(&self) -> f64 {
        if self.disagg {
            self.runs[self.first_decode..].iter().map(|r| r.dec_n).sum()
        } else {
            self.runs[0].running
        }
    }

    /// A new request from `client` (`usize::MAX` in an open loop).
    fn issue(&mut self, client: usize) {
        let i = self.reqs.len();
        let hit = self.dep.hit;
        let draw = |rng: &mut Rng, mean: f64, cv: f64| rng.lognormal(mean, cv).round().max(1.0);
        let mut p = draw(&mut self.rng_len, self.spec.prompt, self.spec.prompt_cv);
        let mut g = draw(&mut self.rng_len, self.spec.output, self.spec.output_cv);
        let seq_max = self
            .dep
            .workers
            .iter()
            .map(|w| w.seq_max)
            .fold(f64::INFINITY, f64::min)
            .floor();
        let own = |p: f64, g: f64| p - hit.min(p - 1.0) + g;
        if own(p, g) > seq_max {
            g = g.min((seq_max - (p - hit.min(p - 1.0))).max(1.0));
            if own(p, g) > seq_max {
                p = (seq_max - g + hit).max(1.0);
            }
            self.shortened += 1;
        }
        let mut h = hit.min(p - 1.0).max(0.0);
        let mut load = None;
        if let (Some(m), true) = (self.dep.hits, h > 0.0) {
            let u = self.rng_hit.uniform();
            if u >= m.hbm + m.host {
                h = 0.0;
            } else if u >= m.hbm {
                load = Some(m.load);
            }
        }
        let kept = i >= self.warm && i < self.total;
        if i == self.warm {
            self.t0 = Some(self.now);
        }
        if i + 1 == self.total {
            self.t1 = Some(self.now);
        }
        self.reqs.push(Req {
            arrive: self.now,
            prompt: p,
            output: g,
            hit: h,
            swapped: 0.0,
            target: p,
            done: h,
            gen0: 0.0,
            join: 0,
            first: f64::NAN,
            last_emit: f64::NAN,
            epoch: 0,
            pw: 0,
            dw: 0,
            client,
            kept,
            old: false,
            state: State::Waiting,
        });
        match load {
            // The prefix's KV comes over the host link first (queued on it).
            Some(secs) => {
                let run = &mut self.runs[0];
                run.host_free = run.host_free.max(self.now) + secs;
                let at = run.host_free;
                self.push(at, Ev::Loaded(i));
            }
            None => self.enqueue(i),
        }
    }

    /// A request ready to queue: for its decode slot (disaggregated) or its engine.
    fn enqueue(&mut self, i: usize) {
        if self.disagg {
            self.reqs[i].state = State::AdmitQueue;
            self.admit_q.push_back(i);
            self.admit_decode();
        } else {
            self.runs[0].waiting.push_back(i);
        }
    }

    /// Disaggregated: reserves decode slots for the requests at the head of the admission
    /// queue (a decode worker with a free slot and room for the request's whole KV, the
    /// fewest admitted first), and sends each to the prefill worker with the least work.
    fn admit_decode(&mut self) {
        while let Some(&r) = self.admit_q.front() {
            let need = self.reqs[r].prompt + self.reqs[r].output;
            let d = (self.first_decode..self.runs.len())
                .filter(|&d| {
                    let (w, run) = (&self.dep.workers[d], &self.runs[d]);
                    run.running < w.cap && run.usage + need <= w.pool
                })
                .min_by(|&a, &b| self.runs[a].running.total_cmp(&self.runs[b].running));
            let Some(d) = d else { break };
            self.admit_q.pop_front();
            self.runs[d].running += 1.0;
            self.runs[d].usage += need;
            let p = (0..self.first_decode)
                .min_by_key(|&p| self.runs[p].waiting.len() + self.runs[p].prefilling.len())
                .unwrap_or(0);
            let q = &mut self.reqs[r];
            q.dw = d;
            q.pw = p;
            q.state = State::Waiting;
            self.runs[p].waiting.push_back(r);
        }
    }

    /// KV tokens request `r` holds on its prefill (or only) worker now: what was reserved
    /// for it, or the tokens it has so far (its prompt's, and one per decode step since it
    /// joined the decoders).
    fn held(&self, r: usize) -> f64 {
        let q = &self.reqs[r];
        let hit = q.hit;
        match self.dep.workers[q.pw].pages {
            Pages::Reserve => q.prompt - hit + q.output,
            Pages::Grow => {
                let own = q.done - hit;
                if q.state == State::Decoding && !self.disagg {
                    own + (self.runs[q.pw].dsteps - q.join) as f64
                } else {
                    own
                }
            }
        }
    }

    /// Starts `w`'s next step if it is idle and has work (module docs: mixed steps carry the
    /// decode tokens and chunks; split steps prefill when they can, else decode).
    fn try_start(&mut self, w: usize) -> Result<(), Error> {
        if self.runs[w].busy {
            return Ok(());
        }
        let pending = std::mem::take(&mut self.runs[w].pending);
        for &r in &pending {
            self.join_decoders(w, r);
        }
        self.runs[w].pending = pending;
        self.runs[w].pending.clear();
        let role = self.dep.workers[w].role;
        let pattern = self.dep.workers[w].pattern;
        let mut chunks = std::mem::take(&mut self.runs[w].plan_chunks);
        chunks.clear();
        let mut with_decode = false;
        match (role, pattern) {
            (Some(Role::Prefill), _) => self.plan_prefill(w, false, &mut chunks),
            (Some(Role::Decode), _) => with_decode = true,
            (None, Pattern::Mixed) => {
                with_decode = true;
                self.ensure_room(w);
                let decode = self.runs[w].dec_n > 0.0;
                self.plan_prefill(w, decode, &mut chunks);
            }
            (None, Pattern::Split) => {
                self.plan_prefill(w, false, &mut chunks);
                with_decode = chunks.is_empty();
            }
        }
        if with_decode && role.is_none() && pattern == Pattern::Split {
            self.ensure_room(w);
        }
        let with_decode = with_decode && self.runs[w].dec_n > 0.0;
        if chunks.is_empty() && !with_decode {
            self.runs[w].plan_chunks = chunks;
            return Ok(());
        }
        // The step's phases.
        let mut pre = PhaseLoad::default();
        for &(r, q) in &chunks {
            let k = self.reqs[r].done + q;
            pre.seqs += 1.0;
            pre.sq += q;
            pre.sk += k;
            pre.sqsq += q * q;
            pre.sqsk += q * k;
        }
        let run = &mut self.runs[w];
        let dec = if with_decode {
            PhaseLoad {
                seqs: run.dec_n,
                sq: run.dec_n,
                sk: run.dec_keys,
                sqsq: run.dec_n,
                sqsk: run.dec_keys,
            }
        } else {
            PhaseLoad::default()
        };
        let grow = self.dep.workers[w].pages == Pages::Grow && role.is_none();
        // A run of decode steps alike: nothing changes the batch before the next request
        // finishes, the pool fills, or another event (an arrival, a transfer, another
        // worker's step) comes; each step is timed as it would be alone.
        let mut k_max = 1u64;
        if chunks.is_empty() && self.spec.fast_forward {
            k_max = run.heap.peek().map_or(u64::MAX, |Reverse((at, _, _))| {
                at.saturating_sub(run.dsteps).max(1)
            });
            if grow {
                let room = self.dep.workers[w].pool - run.usage - run.promised;
                k_max = k_max.min(((room / run.dec_n).floor() as u64).max(1));
            }
            k_max = k_max.min(self.spec.max_steps.saturating_sub(self.steps).max(1));
        }
        let t_ev = self
            .events
            .peek()
            .map_or(f64::INFINITY, |Reverse((T(t), _, _))| *t);
        run.plan_chunks = chunks;
        run.plan_decode = with_decode;
        run.busy = true;
        let mut ends = std::mem::take(&mut run.plan_ends);
        ends.clear();
        let mix = StepMix {
            prefill: pre,
            decode: dec,
        };
        // Swaps to and from the host tier hold the step back (they share its time).
        let mut t = self.now + std::mem::take(&mut self.runs[w].swap);
        let worker = &mut self.dep.workers[w];
        let coef = worker.coef;
        let seqs = mix.seqs();
        if k_max > 1 {
            let time = |d: &Decomp| coef.time(d, seqs);
            worker
                .eval
                .decode_run(&mix, k_max, coef.by_bound, time, |dt| {
                    t += dt;
                    ends.push(t);
                    t < t_ev
                })?;
        } else {
            t += coef.time(&worker.eval.step(&mix)?, seqs);
            ends.push(t);
        }
        let k = ends.len();
        let run = &mut self.runs[w];
        if grow && with_decode {
            run.usage += run.dec_n * k as f64;
        }
        run.plan_ends = ends;
        self.steps += k as u64;
        self.record_queue();
        self.push(t, Ev::StepEnd(w));
        Ok(())
    }

    /// KV tokens a waiting request needs free to be admitted: all of what it will prefill
    /// where pages grow (a prompt is admitted only with room for all of it), its whole own
    /// KV where they are reserved.
    fn first_need(&self, w: usize, r: usize) -> f64 {
        let q = &self.reqs[r];
        if q.swapped > 0.0 {
            return q.swapped;
        }
        match self.dep.workers[w].pages {
            Pages::Grow => q.target - q.done,
            Pages::Reserve => q.prompt - q.done + q.output,
        }
    }

    /// The step's prefill chunks: running prompts first, then waiting ones admitted first
    /// come first served within the cap, the budget and the pool.
    fn plan_prefill(&mut self, w: usize, with_decode: bool, chunks: &mut Vec<(usize, f64)>) {
        let (budget, cap, pool, pages) = {
            let wk = &self.dep.workers[w];
            (wk.budget, wk.cap, wk.pool, wk.pages)
        };
        let grow = pages == Pages::Grow;
        let mut tokens = if with_decode { self.runs[w].dec_n } else { 0.0 };
        for i in 0..self.runs[w].prefilling.len() {
            let left = budget - tokens;
            if left <= 0.0 {
                break;
            }
            let r = self.runs[w].prefilling[i];
            let q = (self.reqs[r].target - self.reqs[r].done).min(left);
            chunks.push((r, q));
            tokens += q;
        }
        while tokens < budget && self.runs[w].running < cap {
            let Some(&r) = self.runs[w].waiting.front() else {
                break;
            };
            let need = self.first_need(w, r);
            let run = &self.runs[w];
            if run.usage + run.promised + need > pool {
                break;
            }
            let run = &mut self.runs[w];
            run.waiting.pop_front();
            run.running += 1.0;
            run.admitted.push(r);
            self.reqs[r].pw = w;
            let swapped = self.reqs[r].swapped;
            if swapped > 0.0 {
                // Swapped back in from the host tier: its KV as it was, no recompute.
                let per_token = self.dep.workers[w].host.map_or(0.0, |h| h.per_token);
                run.usage += swapped;
                run.host_used -= swapped;
                run.swap += swapped * per_token;
                self.reqs[r].swapped = 0.0;
                let q = &self.reqs[r];
                if q.done >= q.target {
                    self.reqs[r].state = State::Decoding;
                    run.pending.push(r);
                    continue;
                }
                if grow {
                    run.promised += q.target - q.done;
                }
            } else if grow {
                run.promised += need;
            } else {
                run.usage += need;
            }
            let q = (self.reqs[r].target - self.reqs[r].done).min(budget - tokens);
            run.prefilling.push(r);
            self.reqs[r].state = State::Prefilling;
            chunks.push((r, q));
            tokens += q;
        }
        if grow {
            let run = &mut self.runs[w];
            for &(_, q) in chunks.iter() {
                run.usage += q;
                run.promised -= q;
            }
        }
    }

    /// Pages that grow: before a decode step, preempts the most recently admitted requests
    /// until the step's new tokens fit (their KV dropped and recomputed when they run again).
    fn ensure_room(&mut self, w: usize) {
        if self.dep.workers[w].pages != Pages::Grow {
            return;
        }
        let pool = self.dep.workers[w].pool;
        let over = |run: &Run| run.usage + run.promised + run.dec_n > pool;
        while over(&self.runs[w]) && self.runs[w].running > 1.0 {
            let Some(r) = self.runs[w].admitted.pop() else {
                break;
            };
            let st = self.reqs[r].state;
            if self.reqs[r].pw != w || !matches!(st, State::Prefilling | State::Decoding) {
                continue;
            }
            self.preempt(w, r);
        }
    }

    /// Preempts `r` on `w`: its KV swapped out to the host tier where it has room (and back
    /// when it runs again), else dropped and recomputed.
    fn preempt(&mut self, w: usize, r: usize) {
        let held = self.held(r);
        let dsteps = self.runs[w].dsteps;
        let host = self.dep.workers[w].host;
        let run = &mut self.runs[w];
        let swap = host.is_some_and(|h| run.host_used + held <= h.tokens);
        let q = &mut self.reqs[r];
        match q.state {
            State::Decoding => {
                let gen = q.gen0 + (dsteps - q.join) as f64;
                run.dec_n -= 1.0;
                run.dec_keys -= q.prompt + gen;
                if q.old && q.kept {
                    run.old_kept -= 1.0;
                }
                if !q.old {
                    run.fresh.retain(|&x| x != r);
                }
                q.epoch += 1;
                q.target = q.prompt + gen;
                q.gen0 = gen;
                if swap {
                    q.done = q.target;
                }
            }
            _ => {
                run.prefilling.retain(|&x| x != r);
                run.promised -= q.target - q.done;
            }
        }
        run.usage -= held;
        run.running -= 1.0;
        match host {
            Some(h) if swap => {
                run.host_used += held;
                run.swap += held * h.per_token;
                q.swapped = held;
            }
            _ => q.done = q.hit,
        }
        q.old = false;
        q.state = State::Waiting;
        run.waiting.push_front(r);
        self.preempted += 1;
    }

    fn finish_step(&mut self, w: usize) {
        let now = self.now;
        self.runs[w].busy = false;
        if self.runs[w].plan_decode {
            self.decode_done(w, now);
        }
        let chunks = std::mem::take(&mut self.runs[w].plan_chunks);
        for &(r, q) in &chunks {
            self.reqs[r].done += q;
            let role = self.dep.workers[w].role;
            if role == Some(Role::Prefill) && self.dep.workers[w].chunk_send {
                let run = &mut self.runs[w];
                run.link_free = run.link_free.max(now) + q * self.dep.transfer;
            }
            if self.reqs[r].done >= self.reqs[r].target {
                self.runs[w].prefilling.retain(|&x| x != r);
                match role {
                    Some(Role::Prefill) => {
                        let run = &mut self.runs[w];
                        if !self.dep.workers[w].chunk_send {
                            let bytes = self.reqs[r].target * self.dep.transfer;
                            run.link_free = run.link_free.max(now) + bytes;
                        }
                        self.reqs[r].state = State::Transfer;
                        let at = run.link_free.max(now);
                        self.push(at, Ev::Transferred(r));
                    }
                    _ => self.prefilled(w, r, now),
                }
            }
        }
        self.runs[w].plan_chunks = chunks;
    }

    /// An aggregated worker's prompt is done: its first token leaves (or, recomputed, it
    /// decodes on).
    fn prefilled(&mut self, w: usize, r: usize, now: f64) {
        if self.reqs[r].first.is_nan() {
            self.reqs[r].first = now;
            self.reqs[r].last_emit = now;
            self.reqs[r].gen0 = 1.0;
            if self.reqs[r].output <= 1.0 {
                self.complete(r, now);
                return;
            }
        }
        self.reqs[r].state = State::Decoding;
        self.runs[w].pending.push(r);
    }

    fn join_decoders(&mut self, w: usize, r: usize) {
        let run = &mut self.runs[w];
        let q = &mut self.reqs[r];
        q.state = State::Decoding;
        q.join = run.dsteps;
        q.old = false;
        run.dec_n += 1.0;
        run.dec_keys += q.prompt + q.gen0;
        run.fresh.push(r);
        let finish = run.dsteps + (q.output - q.gen0) as u64;
        run.heap.push(Reverse((finish, r, q.epoch)));
    }

    fn decode_done(&mut self, w: usize, now: f64) {
        let run = &mut self.runs[w];
        let ends = &run.plan_ends;
        let e0 = ends[0];
        // Gaps: the decoders of the previous decode step emitted at its end; fresh ones at
        // their first token (or before a preemption); then one step each.
        self.itl.push(e0 - run.last_decode_end, run.old_kept);
        for &r in &run.fresh {
            let q = &mut self.reqs[r];
            if q.kept {
                self.itl.push(e0 - q.last_emit, 1.0);
                run.old_kept += 1.0;
            }
            q.old = true;
        }
        run.fresh.clear();
        for j in 1..ends.len() {
            self.itl.push(ends[j] - ends[j - 1], run.old_kept);
        }
        let k = ends.len() as u64;
        run.dsteps += k;
        run.dec_keys += run.dec_n * k as f64;
        run.last_decode_end = now;
        let dsteps = run.dsteps;
        while let Some(&Reverse((at, r, epoch))) = self.runs[w].heap.peek() {
            if at > dsteps {
                break;
            }
            self.runs[w].heap.pop();
            if self.reqs[r].epoch != epoch || self.reqs[r].state != State::Decoding {
                continue;
            }
            self.reqs[r].last_emit = now;
            self.complete(r, now);
        }
    }

    /// Request `r` emitted its last token at `now`.
    fn complete(&mut self, r: usize, now: f64) {
        let was_decoding = self.reqs[r].state == State::Decoding;
        let (w, d) = (self.reqs[r].pw, self.reqs[r].dw);
        let dw = if self.disagg { d } else { w };
        if was_decoding {
            let held = self.held(r);
            let run = &mut self.runs[dw];
            let q = &self.reqs[r];
            run.dec_n -= 1.0;
            run.dec_keys -= q.prompt + q.output;
            if q.kept && q.old {
                run.old_kept -= 1.0;
            }
            if !q.old {
                run.fresh.retain(|&x| x != r);
            }
            if !self.disagg {
                run.usage -= held;
            }
        } else if !self.disagg {
            // One output token: done at the end of its prefill.
            let held = self.held(r);
            self.runs[w].usage -= held;
        }
        let run = &mut self.runs[dw];
        run.running -= 1.0;
        if self.disagg {
            let q = &self.reqs[r];
            run.usage -= q.prompt + q.output;
        }
        let q = &mut self.reqs[r];
        q.state = State::Done;
        if q.kept {
            let ttft = q.first - q.arrive;
            let e2e = now - q.arrive;
            self.ttft.push(ttft, 1.0);
            self.e2e.push(e2e, 1.0);
            self.out_sum += q.output;
            let tpot = (q.output > 1.0).then(|| (e2e - ttft) / (q.output - 1.0));
            if let Some(t) = tpot {
                self.tpot.push(t, 1.0);
            }
            if let Some((a, b)) = self.spec.slo {
                if ttft <= a && tpot.is_none_or(|t| t <= b) {
                    self.slo_ok += 1;
                }
            }
            self.measured_done += 1;
        }
        let client = q.client;
        if client != usize::MAX {
            self.push(now, Ev::Client(client));
        }
        if self.disagg {
            self.admit_decode();
        }
    }

    /// Disaggregated: request `r`'s KV is on its decode worker; its first token leaves.
    fn transferred(&mut self, r: usize) -> Result<(), Error> {
        let now = self.now;
        let (p, d) = (self.reqs[r].pw, self.reqs[r].dw);
        let held = self.held(r);
        self.runs[p].usage -= held;
        self.runs[p].running -= 1.0;
        let q = &mut self.reqs[r];
        q.first = now;
        q.last_emit = now;
        q.gen0 = 1.0;
        if q.output <= 1.0 {
            // One output token: done when its KV (and first token) arrives.
            self.complete(r, now);
        } else {
            self.reqs[r].state = State::Decoding;
            self.runs[d].pending.push(r);
        }
        self.try_start(d)?;
        self.try_start(p)
    }

    fn record_queue(&mut self) {
        let queued = self.admit_q.len() + self.runs.iter().map(|r| r.waiting.len()).sum::<usize>();
        self.series.add(super::QueuePoint {
            t: self.now,
            waiting: queued as f64,
            running: self.inside(),
        });
        let Some(t0) = self.t0 else {
            return;
        };
        self.queue_seen += 1;
        if self.queue_seen % self.queue_stride != 0 {
            return;
        }
        self.queue.push((self.now - t0, queued as f64));
        if self.queue.len() >= 2 * QUEUE_POINTS {
            let kept: Vec<(f64, f64)> = self.queue.iter().copied().step_by(2).collect();
            self.queue = kept;
            self.queue_stride *= 2;
        }
    }

    fn result(&self) -> Result<SimResult, Error> {
        let none = || Error::invalid("simulation", "no requests", "no measured request completed");
        let measured = self.total - self.warm;
        let ttft = Pcts::of(&self.ttft).ok_or_else(none)?;
        let e2e = Pcts::of(&self.e2e).ok_or_else(none)?;
        let (t0, t1) = (self.t0.unwrap_or(0.0), self.t1.unwrap_or(self.now));
        let span = t1 - t0;
        let requests_per_s = if span > 0.0 && measured > 1 {
            (measured - 1) as f64 / span
        } else {
            measured as f64 / e2e.mean
        };
        let mean_output = self.out_sum / measured.max(1) as f64;
        let mut queue = self.queue.clone();
        queue.truncate(QUEUE_POINTS);
        let cached: u64 = self.dep.workers.iter().map(|w| w.eval.counts.1).sum();
        Ok(SimResult {
            measured,
            warmup: self.warm,
            seed: self.spec.seed,
            ttft,
            itl: Pcts::of(&self.itl),
            tpot: Pcts::of(&self.tpot),
            e2e,
            requests_per_s,
            tokens_per_s: requests_per_s * mean_output,
            mean_output,
            running: if span > 0.0 {
                self.area / span
            } else {
                self.inside()
            },
            queue,
            series: self.series.points(),
            warmup_end: self.t0,
            slo_met: self.spec.slo.map(|_| super::pct(self.slo_ok, measured)),
            preempted: self.preempted,
            shortened: self.shortened,
            steps: self.steps,
            cached_steps: cached,
            span: self.now,
        })
    }
}
