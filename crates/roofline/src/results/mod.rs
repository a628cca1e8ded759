//! The result store (issue 41): every (operation, chip) pair of a scenario analysed once per
//! edit, keyed by what it is computed from (the operation, the chip and the options, compared
//! by content, not by position), with everything a result row reads of the core: the analysis,
//! a composite's workload, an `llm`'s serving figures (the smallest topology, speculative
//! decoding, the load figures with their expectations), the expected time and its band, the
//! serving expectations and the elasticities.
//!
//! [`Results::update`] takes the scenario after an edit: a pair whose inputs are unchanged keeps
//! its figures (the same [`Arc`], so a reader can tell with [`Arc::ptr_eq`] that nothing
//! changed), a changed pair is computed again, and pairs no longer in the scenario are
//! forgotten. Moving an operation or a chip to another position re-uses its figures.
//!
//! With [`Results::update_with`] it also holds the sweep plot's curves ([`Swept`]: each
//! (operation, chip)'s sweep, its analysis at its own value and where it stops fitting in
//! memory), kept by content in the same way, the sweep included in the key.
//!
//! Plain data out: each figure is a field of [`PairResults`], asked by its type, never through a
//! string key. The top layer of the core: it reads every layer below it and nothing reads it.
//!
//! Also the page's door to the core's outputs: what the page reads or computes beside the
//! store (a sweep, the load and serving models a plot draws, a training plot, a comparison)
//! is re-exported here, so the app names six modules of the core ([`crate::inputs`] says
//! which). Each item lives, and is documented, in its own module.

mod sweeps;
pub mod validated;

pub use sweeps::{oom_edge, OomEdge, Swept};

use std::sync::Arc;

pub use crate::analysis::{analyze, memory_fit, Analysis, Bound, Figure, Resource, Tone};
pub use crate::compare::{explain, levers, ratio_words, vs_base, Elasticities, Explanation};
pub use crate::serving::{
    disagg, frontier, kv_tier, sim, step_time, tails, Decomp, EngineState, Serving, Speculative,
    Timing, Topology, MAX_TOPOLOGY_CHIPS,
};
pub use crate::sweep::{sweep, SweepCurve, SweepPoint};
pub use crate::train::{train_plot, PlotAxis, PlotStrategy, Regime, TrainPlot};

use crate::chip::Chip;
use crate::compare::elasticities;
use crate::error::Error;
use crate::op::Op;
use crate::options::Options;
use crate::scenario::Scenario;
use crate::serving::{serving, serving_steps, smallest_topology, speculative};
#[cfg(feature = "load")]
use crate::validation::load::page::load_row;
use crate::validation::load::page::LoadRow;
use crate::validation::{
    expectation_for, expectation_with, serving_features, serving_features_of, Expectation,
};
pub use crate::workload::{analyze_workload, parts, Workload};

/// Everything the core computes for one (operation, chip) pair under the scenario's options.
#[derive(Debug, Clone, PartialEq)]
pub struct PairResults {
    /// The roofline analysis: a composite's aggregate (the workload's), else [`analyze`]'s.
    pub analysis: Result<Analysis, Error>,
    /// A composite step part by part (`Ok(None)` for a single operation).
    pub workload: Result<Option<Workload>, Error>,
    /// The expected time against the bare bound (no derate, no calibration: what the
    /// validation set was fitted against) with its band, or why there is none.
    pub expectation: Result<Expectation, String>,
    /// The bare bound the expectation is applied to (`t_lower` without derate or
    /// calibration); `None` when there is no bare analysis.
    pub bare_t_lower: Option<f64>,
    /// A composite's parts' expectations, in the workload's part order (empty for a single
    /// operation), each against its part's bare bound.
    pub parts: Vec<PartExpectation>,
    /// How `t_lower` moves with each of the chip's resources; `None` when the analysis failed.
    pub elasticities: Option<Elasticities>,
    /// The serving figures of an `llm` (`Ok(None)` for any other kind), present only when the
    /// analysis succeeded (the page shows no serving row under a failed analysis).
    pub serving: Option<ServingResults>,
}

/// One part of a composite step: its expected time against its bare bound.
#[derive(Debug, Clone, PartialEq)]
pub struct PartExpectation {
    /// The expected time and band, or why there is none.
    pub expectation: Result<Expectation, String>,
    /// The part's bare bound, `None` when it has no bare analysis.
    pub bare_t_lower: Option<f64>,
}

impl PartExpectation {
    /// The expectation of `op` analysed as `a` under `opts`, against its bare analysis (`a`
    /// itself when `opts` are already bare).
    fn of(op: &Op, chip: &Chip, opts: &Options, a: &Analysis) -> PartExpectation {
        let bare = bare_options(opts);
        let computed;
        let b = if *opts == bare {
            Some(a)
        } else {
            computed = analyze(op, chip, &bare).ok();
            computed.as_ref()
        };
        match b {
            Some(b) => PartExpectation {
                expectation: expectation_for(op, chip, b),
                bare_t_lower: Some(b.t_lower),
            },
            None => PartExpectation {
                expectation: Err("no bare bound".to_string()),
                bare_t_lower: None,
            },
        }
    }
}

/// An `llm`'s serving figures on the chip.
#[derive(Debug, Clone, PartialEq)]
pub struct ServingResults {
    /// TTFT, TPOT, throughput, cost, energy and the largest batch ([`serving`]).
    pub figures: Result<Option<Serving>, Error>,
    /// The smallest group of chips that holds the batch, under the op's `tpot_max` if it has
    /// one ([`smallest_topology`]).
    pub topology: Result<Option<Topology>, Error>,
    /// Speculative decoding with the op's draft model, if it names one ([`speculative`]).
    pub speculative: Result<Option<Speculative>, Error>,
    /// The load figures (`load=concurrency` or `rate`, or a static batch's expectations by an
    /// engine's fit) with their expectations and bands ([`load_row`]).
    pub load: Result<Option<LoadRow>, Error>,
    /// The expected TPOT and TTFT of the static batch by the validation set, against the bare
    /// bound; `None` where there are no serving figures to expect.
    pub expected: Option<ServingExpectation>,
    /// The static batch's two steps analysed under the pair's options, or why not (also when
    /// there are no serving figures).
    pub steps: Result<ServingSteps, String>,
}

/// An `llm`'s serving steps ([`serving_steps`]: a prefill of the batch's prompts and a decode
/// step at `P + G/2`), each analysed under the pair's options: what the validation set's
/// serving points read their features from ([`validated`]), and what the static batch's
/// expectations read theirs from when the options are the defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct ServingSteps {
    /// The prefill step's analysis.
    pub prefill: Analysis,
    /// The decode step's analysis.
    pub decode: Analysis,
}

impl ServingSteps {
    /// The steps of `op` on `chip` under `opts`: the first analysis error, or "not an llm".
    fn compute(op: &Op, chip: &Chip, opts: &Options) -> Result<ServingSteps, String> {
        let (pre, dec) = serving_steps(op).ok_or("not an llm")?;
        let an = |o: &Op| analyze(o, chip, opts).map_err(|e| e.to_string());
        Ok(ServingSteps {
            prefill: an(&pre)?,
            decode: an(&dec)?,
        })
    }
}

/// The validation set's expectation of a static batch's decode and prefill steps.
#[derive(Debug, Clone, PartialEq)]
pub struct ServingExpectation {
    /// The bare serving figures the expectations are applied to.
    pub bare: Serving,
    /// Expected time per output token (a decode step at `P + G/2`).
    pub tpot: Result<Expectation, String>,
    /// Expected time to first token (a prefill of the batch's prompts).
    pub ttft: Result<Expectation, String>,
}

impl ServingExpectation {
    /// Output tokens per second of the group at the expected TPOT, `B / expected TPOT`; `None`
    /// without an expected TPOT or for a batch that does not fit.
    pub fn tokens_per_s(&self) -> Option<f64> {
        let e = self.tpot.as_ref().ok()?;
        self.bare.fits.then(|| self.bare.batch / e.t)
    }
}

impl PairResults {
    /// Computes everything for `op` on `chip` under `opts` (what [`Results::update`] calls for a
    /// changed pair).
    pub fn compute(op: &Op, chip: &Chip, opts: &Options) -> PairResults {
        // A composite's aggregate analysis comes with its parts: analyse once.
        let workload = analyze_workload(op, chip, opts);
        let analysis = match &workload {
            Ok(Some(w)) => Ok(w.analysis.clone()),
            _ => analyze(op, chip, opts),
        };
        let own = match &analysis {
            Ok(a) => PartExpectation::of(op, chip, opts, a),
            Err(_) => PartExpectation {
                expectation: Err("no bare bound".to_string()),
                bare_t_lower: None,
            },
        };
        let parts = match &workload {
            Ok(Some(w)) => w
                .parts
                .iter()
                .map(|(part, a)| PartExpectation::of(&part.op, chip, opts, a))
                .collect(),
            _ => Vec::new(),
        };
        let elasticities = analysis.as_ref().ok().map(|a| elasticities(a, chip, opts));
        let serving = analysis
            .is_ok()
            .then(|| ServingResults::compute(op, chip, opts));
        PairResults {
            analysis,
            workload,
            expectation: own.expectation,
            bare_t_lower: own.bare_t_lower,
            parts,
            elasticities,
            serving,
        }
    }

    /// The serving figures, if the op serves tokens and they were computed.
    pub fn serving_figures(&self) -> Option<&Serving> {
        self.serving.as_ref()?.figures.as_ref().ok()?.as_ref()
    }

    /// The load figures, if the op is an `llm` and they were computed.
    pub fn load(&self) -> Option<&LoadRow> {
        self.serving.as_ref()?.load.as_ref().ok()?.as_ref()
    }
}

impl ServingResults {
    /// The figures; the topology, speculative decoding, the load and the expectations only
    /// where the serving figures exist (the row shows nothing else otherwise).
    fn compute(op: &Op, chip: &Chip, opts: &Options) -> ServingResults {
        let figures = serving(op, chip, opts);
        let Ok(Some(v)) = &figures else {
            return ServingResults {
                figures,
                topology: Ok(None),
                speculative: Ok(None),
                load: Ok(None),
                expected: None,
                steps: Err("no serving figures".to_string()),
            };
        };
        let tpot_max = op.llm().and_then(|l| l.tpot_max).map(|ms| ms / 1e3);
        let steps = ServingSteps::compute(op, chip, opts);
        ServingResults {
            topology: smallest_topology(op, chip, opts, tpot_max),
            speculative: speculative(op, chip, opts),
            load: load_figures(op, chip, opts),
            expected: serving_expectation(op, chip, opts, v, &steps),
            steps,
            figures,
        }
    }
}

/// The load figures ([`load_row`]).
#[cfg(feature = "load")]
fn load_figures(op: &Op, chip: &Chip, opts: &Options) -> Result<Option<LoadRow>, Error> {
    load_row(op, chip, opts)
}

/// Built without the `load` feature (the page's draw program, whose size budget the load
/// model would overrun), the store holds no load figures, and the views show no load's row.
#[cfg(not(feature = "load"))]
fn load_figures(_: &Op, _: &Chip, _: &Options) -> Result<Option<LoadRow>, Error> {
    Ok(None)
}

/// The options the validation set's ratios were fitted against: the same FLOP convention, no
/// derate, no calibration.
fn bare_options(opts: &Options) -> Options {
    Options {
        convention: opts.convention,
        ..Options::default()
    }
}

/// The static batch's expected TPOT and TTFT: the bare serving figures' decode and prefill
/// steps, each with the features of its step (the steps analysed with the default options:
/// `steps` themselves when the pair's options are the defaults).
fn serving_expectation(
    op: &Op,
    chip: &Chip,
    opts: &Options,
    figures: &Serving,
    steps: &Result<ServingSteps, String>,
) -> Option<ServingExpectation> {
    let bare_opts = bare_options(opts);
    let bare = if *opts == bare_opts {
        figures.clone()
    } else {
        serving(op, chip, &bare_opts).ok().flatten()?
    };
    let features = if *opts == Options::default() {
        steps
            .as_ref()
            .ok()
            .map(|s| serving_features_of(op, &s.prefill, &s.decode, bare.ttft, bare.tpot))
    } else {
        serving_features(op, chip, bare.ttft, bare.tpot)
    };
    let expect = |phase: &str, t: f64| -> Result<Expectation, String> {
        let mut o = op.clone();
        o.set("phase", phase)
            .map_err(|_| format!("no {phase} phase"))?;
        let (pre, dec) = features.ok_or_else(|| format!("no {phase} step to analyse"))?;
        expectation_with(&o, chip, if phase == "decode" { dec } else { pre }, t)
    };
    Some(ServingExpectation {
        tpot: expect("decode", bare.tpot),
        ttft: expect("prefill", bare.ttft),
        bare,
    })
}

/// What a store computes for a scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Wanted {
    /// Each (operation, chip) pair's figures ([`Results::get`]).
    pub pairs: bool,
    /// The sweep plot's curves ([`Results::sweep`]).
    pub sweeps: bool,
}

impl Default for Wanted {
    /// The pairs, no sweeps.
    fn default() -> Self {
        Wanted::PAIRS
    }
}

impl Wanted {
    /// The pairs alone.
    pub const PAIRS: Wanted = Wanted {
        pairs: true,
        sweeps: false,
    };
    /// The sweeps alone (a sweep chart drawn by itself).
    pub const SWEEPS: Wanted = Wanted {
        pairs: false,
        sweeps: true,
    };

    /// What the page shows for `s`: the pairs, and the sweeps while its plot shows the sweep.
    pub fn shown(s: &Scenario) -> Wanted {
        Wanted {
            pairs: true,
            sweeps: s.plot.shows_sweep(),
        }
    }
}

/// One stored pair: what it was computed from and its figures.
#[derive(Debug, Clone)]
struct Entry {
    op: Op,
    chip: Chip,
    options: Options,
    results: Arc<PairResults>,
}

impl Entry {
    fn is_for(&self, op: &Op, chip: &Chip, options: &Options) -> bool {
        self.options == *options && self.op == *op && self.chip == *chip
    }
}

/// The results of a scenario's (operation, chip) pairs, kept between edits (see the module
/// docs).
#[derive(Debug, Clone, Default)]
pub struct Results {
    /// The pairs of the last scenario, operation-major (`ops × chips`).
    grid: Vec<Arc<PairResults>>,
    /// The sweeps of the last scenario's pairs, when asked for ([`Wanted::sweeps`]).
    sweeps: sweeps::Sweeps,
    chips: usize,
    /// The distinct pairs, by content.
    entries: Vec<Entry>,
    /// Pairs computed over the store's life.
    computed: usize,
}

impl Results {
    /// An empty store.
    pub fn new() -> Results {
        Results::default()
    }

    /// The store of one scenario: its pairs.
    pub fn of(s: &Scenario) -> Results {
        Results::of_with(s, Wanted::default())
    }

    /// The store of one scenario with what `wanted` asks.
    pub fn of_with(s: &Scenario, wanted: Wanted) -> Results {
        let mut r = Results::new();
        r.update_with(s, wanted);
        r
    }

    /// Brings the store to `s` for what `wanted` asks: the pairs as [`Results::update`] does,
    /// and the sweeps: each (operation, chip) whose operation has the swept field, swept once
    /// per (operation, chip, options, sweep), kept by content like the pairs. What is not asked
    /// for is not held.
    pub fn update_with(&mut self, s: &Scenario, wanted: Wanted) {
        if wanted.pairs {
            self.update_pairs(s);
        } else {
            self.grid.clear();
            self.entries.clear();
            self.chips = s.chips.len();
        }
        self.sweeps
            .update(&s.ops, &s.chips, &s.options, &s.sweep, wanted.sweeps);
    }

    /// The sweep of operation `i` on chip `j` of the last scenario: `None` where its operation
    /// has no swept field or the last update asked for no sweeps.
    pub fn sweep(&self, i: usize, j: usize) -> Option<&Arc<Swept>> {
        if j >= self.chips {
            return None;
        }
        self.sweeps.grid.get(i * self.chips + j)?.as_ref()
    }

    /// How many sweeps the store has computed over its life.
    pub fn sweeps_computed(&self) -> usize {
        self.sweeps.computed
    }

    /// Brings the store to scenario `s`: each pair whose (operation, chip, options) the store
    /// holds keeps its figures, each other pair is computed once (two positions with the same
    /// operation and chip share one computation), and pairs not in `s` are forgotten, as are
    /// any sweeps ([`Results::update_with`] keeps them).
    pub fn update(&mut self, s: &Scenario) {
        self.update_with(s, Wanted::default());
    }

    fn update_pairs(&mut self, s: &Scenario) {
        let mut old = std::mem::take(&mut self.entries);
        let mut grid = Vec::with_capacity(s.ops.len() * s.chips.len());
        for op in &s.ops {
            for chip in &s.chips {
                let results = if let Some(e) =
                    self.entries.iter().find(|e| e.is_for(op, chip, &s.options))
                {
                    e.results.clone()
                } else {
                    let results = match old.iter().position(|e| e.is_for(op, chip, &s.options)) {
                        Some(k) => old.swap_remove(k).results,
                        None => {
                            self.computed += 1;
                            Arc::new(PairResults::compute(op, chip, &s.options))
                        }
                    };
                    self.entries.push(Entry {
                        op: op.clone(),
                        chip: chip.clone(),
                        options: s.options,
                        results: results.clone(),
                    });
                    results
                };
                grid.push(results);
            }
        }
        self.grid = grid;
        self.chips = s.chips.len();
    }

    /// The figures of operation `i` on chip `j` of the last scenario (`None` when its update
    /// asked for no pairs).
    pub fn get(&self, i: usize, j: usize) -> Option<&Arc<PairResults>> {
        if j >= self.chips {
            return None;
        }
        self.grid.get(i * self.chips + j)
    }

    /// Every pair of the last scenario, operation-major: `(i, j, figures)`.
    pub fn pairs(&self) -> impl Iterator<Item = (usize, usize, &Arc<PairResults>)> {
        let chips = self.chips.max(1);
        self.grid
            .iter()
            .enumerate()
            .map(move |(k, r)| (k / chips, k % chips, r))
    }

    /// How many pairs the store has computed over its life (an unchanged pair costs nothing).
    pub fn computed(&self) -> usize {
        self.computed
    }

    /// Distinct pairs held (equal operations on the same chip count once).
    pub fn distinct(&self) -> usize {
        self.entries.len()
    }
}
