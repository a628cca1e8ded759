//! A serving engine's steps against the roofline (issue 43): each step a trace annotates
//! (`roofline::profile::steps`) with its measured GPU time, the `T_lower` of that exact step
//! (the mixed step of `roofline::results::step_time`: weights read once, experts hit by the
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
//!
//! The table is built a few steps at a time ([`StepTableBuilder`], `build`), so that the page
//! can spread a trace of thousands of steps over many frames; the own engine's words and its
//! timing of the load model are in `own`.

use roofline::profile::steps::StepPhase;
use roofline::profile::StepObs;
use roofline::units::{format_exact, format_sig, Unit};

use super::names::pretty;

mod build;
mod own;

pub use build::{step_mix, step_op, step_table, StepTableBuilder};
pub use own::{fit_lines, OwnTiming};

/// `n` with its thousands separated by commas (`12,000`), as the panel counts steps.
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

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
            thousands(self.steady),
            100.0 * STEADY_BATCH,
            format_exact(self.peak),
            format_sig(self.threshold, 3),
            thousands(self.warmup),
            thousands(self.drain)
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
