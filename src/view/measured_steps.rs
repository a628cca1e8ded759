//! A serving engine's steps against the roofline (issue 43): each step a trace annotates
//! (`roofline::profile::steps`) with its measured GPU time, the `T_lower` of that exact step
//! (the mixed step of `roofline::serving::step_time`: weights read once, experts hit by the
//! step's tokens, attention from its aggregates), the expected time and band, the ratio and
//! what binds it; the steps grouped by phase and batch with medians over the steady-state
//! window; and what a fit of the user's own engine is fitted on. Pure, tested natively.
//!
//! The model is the scenario's first `llm` operation, its tensor- and expert-parallel sizes
//! taken from the trace's `distributedInfo` where it names them (a trace is one rank's: batch
//! and tokens are per attention-DP rank), else from the operation, and the table says which.
//! The chip is the scenario's first (the panel offers the trace's device). Bounds are the bare
//! roofline's (no derate, no calibration), like the kernels' table.
//!
//! The expected time: with `engine=own:<terms>` on the operation, the user's own engine
//! (`t = a·C + b·M + n·N + s` on the step's bound split by resource); otherwise the published
//! validation set's expectation for a model step of the kind (decode for decode and verify
//! steps, prefill for prefill and mixed ones) on the chip's generation. Each row names which.
//!
//! The steady-state window: from the first step whose batch reaches 90 % of the trace's
//! largest batch to the last such step. Steps before it (warm-up, the batch still filling)
//! and after it (drain) stay in the table, marked, and out of the medians; CUDA-graph
//! captures, dummy, idle and draft steps never became steps (the import counts them).

use roofline::analysis::Options;
use roofline::chip::Chip;
use roofline::op::{Op, PhaseLoad, StepMix};
use roofline::profile::steps::{Aggregates, StepName, StepPhase};
use roofline::profile::{OwnEngine, Parallel, Profile, Step, StepObs};
use roofline::scenario::Scenario;
use roofline::serving::step_time;
use roofline::units::{format_exact, format_sig, Unit};
use roofline::validation::{expectation_with, Features, Split};

use super::names::{op_name, pretty};

/// Fraction of the largest batch a step must reach to be in the steady-state window.
pub const STEADY_BATCH: f64 = 0.9;

/// Where a step sits in the trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Window {
    /// Before the batch first reached [`STEADY_BATCH`] of its peak.
    Warmup,
    /// In the steady-state window.
    Steady,
    /// After the batch last reached it.
    Drain,
}

impl Window {
    /// The row's `data-window`.
    pub fn id(self) -> &'static str {
        match self {
            Window::Warmup => "warmup",
            Window::Steady => "steady",
            Window::Drain => "drain",
        }
    }
}

/// A step's roofline bound.
#[derive(Debug, Clone, PartialEq)]
pub struct StepBound {
    /// `T_lower`, seconds.
    pub t_lower: f64,
    /// Seconds of it in compute-bound, memory-bound and link-bound parts.
    pub split: [f64; 3],
    /// What binds the step as a whole (`compute`, `memory`, `network`).
    pub binds: &'static str,
    /// The part that takes the most of it, and its share.
    pub part: String,
    pub share: f64,
    /// FLOPs and HBM bytes of the step per chip (where it sits on the roofline).
    pub flops: f64,
    pub hbm_bytes: f64,
}

/// A step's expected time.
#[derive(Debug, Clone, PartialEq)]
pub struct StepExpected {
    /// Seconds.
    pub t: f64,
    /// The p10 and p90 of the band, where one backs it.
    pub lo: Option<f64>,
    pub hi: Option<f64>,
    /// `data-basis`: `own` for the user's engine, else the published set's basis
    /// (`chip`, `family`, `pooled`).
    pub basis: &'static str,
    /// What backs it, in words.
    pub source: String,
}

/// One row of the step table.
#[derive(Debug, Clone, PartialEq)]
pub struct StepRow {
    /// The step's index in the trace (`data-step`).
    pub index: usize,
    pub name: String,
    pub phase: StepPhase,
    /// Sequences (the real batch).
    pub batch: f64,
    /// The padded batch a CUDA graph ran, if padded.
    pub padded: Option<f64>,
    /// New tokens.
    pub tokens: Option<f64>,
    /// Σ keys attended (contexts), where the name gives them.
    pub keys: Option<f64>,
    /// Measured GPU time, seconds.
    pub measured: Option<f64>,
    /// The bound, or why there is none.
    pub bound: Result<StepBound, String>,
    /// The expected time, or why there is none.
    pub expected: Result<StepExpected, String>,
    pub window: Window,
}

impl StepRow {
    /// `measured / T_lower`.
    pub fn ratio(&self) -> Option<f64> {
        let b = self.bound.as_ref().ok()?;
        Some(self.measured? / b.t_lower).filter(|r| r.is_finite())
    }

    /// The `data-metric` cells: `(metric, exact value, shown text)`; an empty value and `—`
    /// (or the reason, for `t_lower` and `t_expected`) where there is none.
    pub fn cells(&self) -> Vec<(&'static str, String, String)> {
        let time = |m: &'static str, v: Option<f64>| {
            (
                m,
                v.map(format_exact).unwrap_or_default(),
                v.map_or_else(|| "—".into(), |v| pretty(v, Unit::Seconds)),
            )
        };
        let batch_text = match self.padded {
            Some(p) => format!("{} (graph {})", format_exact(self.batch), format_exact(p)),
            None => format_exact(self.batch),
        };
        let ratio = self.ratio();
        let (t_lower, binds) = match &self.bound {
            Ok(b) => (
                time("t_lower", Some(b.t_lower)),
                (
                    "binds",
                    b.binds.to_string(),
                    format!("{} ({} {:.0}%)", b.binds, b.part, 100.0 * b.share),
                ),
            ),
            Err(e) => (
                ("t_lower", String::new(), format!("none: {e}")),
                ("binds", String::new(), "—".into()),
            ),
        };
        let expected = match &self.expected {
            Ok(e) => time("t_expected", Some(e.t)),
            Err(why) => ("t_expected", String::new(), format!("none: {why}")),
        };
        let band = |m: &'static str, v: Option<f64>| time(m, v);
        let (lo, hi) = match &self.expected {
            Ok(e) => (e.lo, e.hi),
            Err(_) => (None, None),
        };
        vec![
            ("phase", self.phase.id().into(), self.phase.id().into()),
            ("batch", format_exact(self.batch), batch_text),
            (
                "tokens",
                self.tokens.map(format_exact).unwrap_or_default(),
                self.tokens.map_or_else(|| "—".into(), format_exact),
            ),
            (
                "keys",
                self.keys.map(format_exact).unwrap_or_default(),
                self.keys.map_or_else(|| "—".into(), format_exact),
            ),
            time("measured", self.measured),
            t_lower,
            expected,
            band("t_expected_lo", lo),
            band("t_expected_hi", hi),
            (
                "ratio",
                ratio.map(format_exact).unwrap_or_default(),
                ratio.map_or_else(|| "—".into(), |r| format!("×{}", format_sig(r, 3))),
            ),
            binds,
        ]
    }
}

/// Steps of one phase and batch in the steady-state window, with medians.
#[derive(Debug, Clone, PartialEq)]
pub struct StepGroup {
    pub phase: StepPhase,
    pub batch: f64,
    /// Steps in it.
    pub steps: usize,
    /// Medians of the measured time, the bound, the expected time and the ratio.
    pub measured: Option<f64>,
    pub t_lower: Option<f64>,
    pub expected: Option<f64>,
    pub ratio: Option<f64>,
}

impl StepGroup {
    /// The `data-metric` cells.
    pub fn cells(&self) -> Vec<(&'static str, String, String)> {
        let time = |m: &'static str, v: Option<f64>| {
            (
                m,
                v.map(format_exact).unwrap_or_default(),
                v.map_or_else(|| "—".into(), |v| pretty(v, Unit::Seconds)),
            )
        };
        vec![
            ("steps", self.steps.to_string(), self.steps.to_string()),
            time("measured", self.measured),
            time("t_lower", self.t_lower),
            time("t_expected", self.expected),
            (
                "ratio",
                self.ratio.map(format_exact).unwrap_or_default(),
                self.ratio
                    .map_or_else(|| "—".into(), |r| format!("×{}", format_sig(r, 3))),
            ),
        ]
    }
}

/// The steady-state window in words and numbers.
#[derive(Debug, Clone, PartialEq)]
pub struct WindowSummary {
    /// The largest batch, and the batch a step must reach to be steady.
    pub peak: f64,
    pub threshold: f64,
    pub warmup: usize,
    pub steady: usize,
    pub drain: usize,
}

impl WindowSummary {
    /// The sentence the panel shows.
    pub fn text(&self) -> String {
        format!(
            "steady state: {} steps from the first to the last whose batch reaches {:.0} % of the \
             largest ({}, so ≥ {}); {} warm-up steps before and {} drain steps after are listed \
             but left out of the medians and the fit (CUDA-graph captures, dummy, idle and draft \
             steps are never steps: the notes above count them)",
            self.steady,
            100.0 * STEADY_BATCH,
            format_exact(self.peak),
            format_sig(self.threshold, 3),
            self.warmup,
            self.drain
        )
    }
}

/// Everything the panel's step section shows.
#[derive(Debug, Clone, PartialEq)]
pub struct StepTable {
    /// The model and chip the steps are timed as, and where tp and ep come from.
    pub caption: String,
    pub rows: Vec<StepRow>,
    pub groups: Vec<StepGroup>,
    pub window: WindowSummary,
    /// Steady steps with a measured time and a bound: what the own engine is fitted on.
    pub fit_obs: Vec<StepObs>,
    /// Steps measured faster than their bound (physically impossible on the chip as
    /// described: the trace is from another chip, model, precision or parallelism).
    pub faster: usize,
}

impl StepTable {
    /// The diagnostic for steps faster than their bound, if any.
    pub fn faster_message(&self) -> Option<String> {
        (self.faster > 0).then(|| {
            format!(
                "{} ran faster than the roofline allows: a step cannot beat the chip it ran on, \
                 so the trace is from another chip than chip 1 (the panel offers the one it \
                 names), or another model, precision or parallelism than your llm operation",
                if self.faster == 1 {
                    "1 step".to_string()
                } else {
                    format!("{} steps", self.faster)
                }
            )
        })
    }
}

fn load(a: &Aggregates) -> PhaseLoad {
    PhaseLoad {
        seqs: a.seqs,
        sq: a.sq,
        sk: a.sk,
        sqsq: a.sqsq,
        sqsk: a.sqsk,
    }
}

/// The step's mix, as the mixed step takes it, or why its name cannot give one.
pub fn step_mix(s: &StepName) -> Result<StepMix, String> {
    if !s.detailed() {
        return Err(format!("its name gives no contexts ({})", s.dialect.flag()));
    }
    let mut mix = StepMix::default();
    if let Some(p) = &s.prefill {
        mix.prefill = load(p);
    }
    if let Some(d) = &s.decode {
        mix.decode = load(d);
    }
    if let Some(w) = &s.whole {
        // ATOM gives the whole step's sums: as one phase (exact for every layer that attends to
        // the full context; a sliding-window layer takes the step's mean sequence).
        match s.phase {
            StepPhase::Prefill | StepPhase::Mixed => mix.prefill = load(w),
            StepPhase::Decode | StepPhase::Verify => mix.decode = load(w),
        }
    }
    Ok(mix)
}

/// The operation the steps are timed as: the scenario's first `llm`, its `tp` and `ep` from
/// the trace where `distributedInfo` gives them; with the words for the caption.
pub fn step_op(s: &Scenario, parallel: Option<&Parallel>) -> Result<(Op, String), String> {
    let op = s
        .ops
        .iter()
        .find(|o| o.llm().is_some())
        .ok_or("add an llm operation (the model served) to time each step against")?;
    let mut op = op.clone();
    let mut from = Vec::new();
    let mut mine = Vec::new();
    for (key, got) in [
        ("tp", parallel.and_then(|p| p.tp)),
        ("ep", parallel.and_then(|p| p.ep)),
    ] {
        let have = op.get_num(key).unwrap_or(1.0);
        match got {
            Some(v) if v != have => match op.set(key, &format_exact(v)) {
                Ok(()) => from.push(format!("{key} {}", format_exact(v))),
                Err(e) => mine.push(format!(
                    "{key} {} (the trace's {} does not fit it: {e})",
                    format_exact(have),
                    format_exact(v)
                )),
            },
            Some(v) => from.push(format!("{key} {}", format_exact(v))),
            None => mine.push(format!("{key} {}", format_exact(have))),
        }
    }
    let mut words = op_name(&op);
    if !from.is_empty() {
        words.push_str(&format!(
            "; {} from the trace's distributedInfo",
            from.join(", ")
        ));
    }
    if !mine.is_empty() {
        let why = match parallel {
            None => "the trace has no distributedInfo",
            Some(_) => "the trace's distributedInfo does not name it",
        };
        words.push_str(&format!(
            "; {} from your llm operation ({why})",
            mine.join(", ")
        ));
    }
    Ok((op, words))
}

fn bound_of(op: &Op, chip: &Chip, opts: &Options, s: &StepName) -> Result<StepBound, String> {
    let mix = step_mix(s)?;
    let t = step_time(op, chip, opts, &mix).map_err(|e| e.to_string())?;
    Ok(StepBound {
        t_lower: t.t,
        split: t.by_bound,
        binds: t.bound.as_str(),
        part: t.binding_part,
        share: t.binding_share,
        flops: t.flops,
        hbm_bytes: t.hbm_bytes,
    })
}

/// The published set's expectation for a step bound as `b`: its features as a model step's
/// (the bound's split, 1 ms of step overhead per step, its collectives over the group).
fn published(
    op: &Op,
    chip: &Chip,
    phase: StepPhase,
    b: &StepBound,
    collectives: f64,
) -> Result<StepExpected, String> {
    let mut kind = op.clone();
    let as_phase = match phase {
        StepPhase::Prefill | StepPhase::Mixed => "prefill",
        StepPhase::Decode | StepPhase::Verify => "decode",
    };
    kind.set("phase", as_phase).map_err(|e| e.to_string())?;
    let t = b.t_lower;
    let share = |x: f64| if t > 0.0 { x / t } else { 0.0 };
    let group = kind.get_num("tp").unwrap_or(1.0) * kind.get_num("ep").unwrap_or(1.0);
    let features = Features {
        split: Split {
            compute: share(b.split[0]),
            memory: share(b.split[1]),
            network: share(b.split[2]),
        },
        launch: 0.0,
        step: share(1e-3),
        multi_chip: if group > 1.0 {
            share(1e-6 * collectives * group.log2())
        } else {
            0.0
        },
        moe: if kind.llm().is_some_and(|l| l.arch().moe.is_some()) {
            1.0
        } else {
            0.0
        },
        // An expert-parallel prefill's overlap of dispatch and combine, as `Features::of` has
        // it; narrow training and a collective op's latency have no feature in a serving step.
        ep_overlap: if as_phase == "prefill" && kind.get_num("ep").unwrap_or(1.0) > 1.0 {
            share(b.split[2]).min(1.0 - share(b.split[2]))
        } else {
            0.0
        },
        ..Features::default()
    };
    let e = expectation_with(&kind, chip, features, t)?;
    Ok(StepExpected {
        t: e.t,
        lo: e.lo,
        hi: e.hi,
        basis: e.basis.id(),
        source: format!(
            "the published set ({}) for a {as_phase} step on this chip's generation",
            e.set_version
        ),
    })
}

fn median(mut v: Vec<f64>) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

/// The steps of `p` against the scenario (see the module docs); why not, when the scenario
/// has no `llm` operation or chip, or the profile no step.
pub fn step_table(s: &Scenario, p: &Profile, own: Option<&OwnEngine>) -> Result<StepTable, String> {
    if p.steps.is_empty() {
        return Err("the profile has no serving steps".into());
    }
    let chip = s
        .chips
        .first()
        .ok_or("the scenario has no chip to time the steps on")?;
    let (op, model) = step_op(s, p.parallel.as_ref())?;
    let bare = Options {
        convention: s.options.convention,
        ..Options::default()
    };
    let own = own
        .copied()
        .or_else(|| op.llm().and_then(|l| l.own_engine()));
    let window = windows(&p.steps);
    let mut rows = Vec::with_capacity(p.steps.len());
    let mut fit_obs = Vec::new();
    for (st, w) in p.steps.iter().zip(&window.0) {
        let sn = &st.span;
        let bound = bound_of(&op, chip, &bare, sn);
        let expected = match (&bound, own) {
            (Err(_), _) => Err("no bound".to_string()),
            (Ok(b), Some(e)) => Ok(StepExpected {
                t: e.time(b.split[0], b.split[1], b.split[2]),
                lo: None,
                hi: None,
                basis: "own",
                source: format!("your own engine, {}", e.format()),
            }),
            (Ok(b), None) => {
                let collectives = step_mix(sn)
                    .ok()
                    .and_then(|m| step_time(&op, chip, &bare, &m).ok())
                    .map_or(0.0, |t| t.collectives);
                published(&op, chip, sn.phase, b, collectives)
            }
        };
        if let (Window::Steady, Some(m), Ok(b)) = (w, st.gpu_time, &bound) {
            fit_obs.push(StepObs {
                compute: b.split[0],
                memory: b.split[1],
                network: b.split[2],
                measured: m,
            });
        }
        let keys = [&sn.prefill, &sn.decode, &sn.whole]
            .iter()
            .filter_map(|a| a.map(|a| a.sk))
            .reduce(|a, b| a + b);
        rows.push(StepRow {
            index: st.index,
            name: st.name.clone(),
            phase: sn.phase,
            batch: sn.batch,
            padded: sn.padded,
            tokens: sn.tokens,
            keys,
            measured: st.gpu_time,
            bound,
            expected,
            window: *w,
        });
    }
    let mut groups: Vec<StepGroup> = Vec::new();
    let mut keys: Vec<(StepPhase, f64)> = rows
        .iter()
        .filter(|r| r.window == Window::Steady)
        .map(|r| (r.phase, r.batch))
        .collect();
    keys.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
    keys.dedup();
    for (phase, batch) in keys {
        let of: Vec<&StepRow> = rows
            .iter()
            .filter(|r| r.window == Window::Steady && r.phase == phase && r.batch == batch)
            .collect();
        let pick =
            |f: &dyn Fn(&StepRow) -> Option<f64>| median(of.iter().filter_map(|r| f(r)).collect());
        groups.push(StepGroup {
            phase,
            batch,
            steps: of.len(),
            measured: pick(&|r| r.measured),
            t_lower: pick(&|r| r.bound.as_ref().ok().map(|b| b.t_lower)),
            expected: pick(&|r| r.expected.as_ref().ok().map(|e| e.t)),
            ratio: pick(&|r| r.ratio()),
        });
    }
    let faster = rows
        .iter()
        .filter(|r| r.ratio().is_some_and(|x| x < 1.0 - 1e-9))
        .count();
    let caption = format!(
        "{} steps timed as {model} on {} (the bare roofline: no derate or calibration)",
        rows.len(),
        chip.name
    );
    Ok(StepTable {
        caption,
        rows,
        groups,
        window: window.1,
        fit_obs,
        faster,
    })
}

/// Each step's window and the summary (see the module docs).
fn windows(steps: &[Step]) -> (Vec<Window>, WindowSummary) {
    let timed: Vec<usize> = (0..steps.len())
        .filter(|&i| steps[i].gpu_time.is_some())
        .collect();
    let peak = timed
        .iter()
        .map(|&i| steps[i].span.batch)
        .fold(0.0, f64::max);
    let threshold = STEADY_BATCH * peak;
    let reaches = |i: &&usize| steps[**i].span.batch >= threshold;
    let first = timed.iter().find(reaches).copied();
    let last = timed.iter().rev().find(reaches).copied();
    let w: Vec<Window> = (0..steps.len())
        .map(|i| match (first, last) {
            (Some(a), _) if i < a => Window::Warmup,
            (_, Some(b)) if i > b => Window::Drain,
            _ => Window::Steady,
        })
        .collect();
    let count = |x: Window| w.iter().filter(|&&y| y == x).count();
    let summary = WindowSummary {
        peak,
        threshold,
        warmup: count(Window::Warmup),
        steady: count(Window::Steady),
        drain: count(Window::Drain),
    };
    (w, summary)
}

/// The own engine's fit in words: its terms with their standard errors, what it was fitted
/// on, how much closer it comes than the bare roofline.
pub fn fit_lines(f: &roofline::profile::StepFit) -> Vec<String> {
    let e = &f.engine;
    let se = |x: Option<f64>| match x {
        Some(v) if v.is_finite() => format!(" ±{} %", format_sig(100.0 * v, 2)),
        Some(_) => " (not determined)".into(),
        None => String::new(),
    };
    let factor = |name: &str, v: f64, err: Option<f64>, held: &str| match err {
        None => format!("{name} ×1 ({held})"),
        Some(_) => format!("{name} ×{}{}", format_sig(v, 3), se(err)),
    };
    vec![
        format!(
            "{}: {}, {}, {}, {} per step{}",
            e.rounded().format(),
            factor(
                "compute",
                e.compute,
                f.errors[0],
                "no compute-bound part: held"
            ),
            factor(
                "memory",
                e.memory,
                f.errors[1],
                "no memory-bound part: held"
            ),
            factor(
                "collectives",
                e.network,
                f.errors[2],
                "no step crosses a link: held"
            ),
            pretty(e.step, Unit::Seconds),
            se(f.errors[3])
        ),
        format!(
            "fitted on {} steady steps of {} distinct shapes; RMS log error {} with the bare \
             roofline, {} with this engine",
            f.used,
            f.shapes,
            format_sig(f.rms_before, 2),
            format_sig(f.rms_after, 2)
        ),
    ]
}

/// The user's own engine as the load model reads a state's times ([`roofline::serving::Timing`]):
/// each figure's bound split by resource, times the engine's factors, plus its fixed time per
/// step for every step the figure spans. With it the serving row and the load plot give "my
/// engine"'s figures at any load (`serving::figures(&model, &OwnTiming(e))`), where the
/// published engines' fits give theirs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OwnTiming(pub OwnEngine);

impl OwnTiming {
    fn of(&self, d: &roofline::serving::Decomp) -> f64 {
        let [c, m, n] = d.by_bound;
        self.0.compute * c + self.0.memory * m + self.0.network * n + self.0.step * d.steps
    }
}

impl roofline::serving::Timing for OwnTiming {
    fn times(&self, s: &roofline::serving::EngineState) -> Option<(f64, f64)> {
        Some((self.of(&s.ttft), self.of(&s.tpot)))
    }
}
