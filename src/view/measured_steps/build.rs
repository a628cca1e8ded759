//! Building the step table (see the parent module's docs): each step's mix, bound and
//! expected time, the steady-state window, the groups' medians, a few steps at a time.

use roofline::inputs::Chip;
use roofline::inputs::Options;
use roofline::inputs::Scenario;
use roofline::inputs::{Op, PhaseLoad, StepMix};
use roofline::profile::steps::{Aggregates, StepName, StepPhase};
use roofline::profile::{OwnEngine, Parallel, Profile, Step, StepObs};
use roofline::results::step_time;
use roofline::units::format_exact;
use roofline::validation::{expectation_with, Features, Split};

use super::super::names::op_name;
use super::{
    StepBound, StepExpected, StepGroup, StepRow, StepTable, Window, WindowSummary, STEADY_BATCH,
};

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

/// The step's bound, and the collectives it runs (each counted `repeat` times), which the
/// published expectation weighs.
fn bound_of(
    op: &Op,
    chip: &Chip,
    opts: &Options,
    s: &StepName,
) -> Result<(StepBound, f64), String> {
    let mix = step_mix(s)?;
    let t = step_time(op, chip, opts, &mix).map_err(|e| e.to_string())?;
    Ok((
        StepBound {
            t_lower: t.t,
            split: t.by_bound,
            binds: t.bound.as_str(),
            part: t.binding_part,
            share: t.binding_share,
            flops: t.flops,
            hbm_bytes: t.hbm_bytes,
        },
        t.collectives,
    ))
}

/// The operation as a prefill step and as a decode step (the kinds of work the published set
/// has expectations for), or why it cannot be set to that phase.
type Kinds = [Result<Op, String>; 2];

fn kinds(op: &Op) -> Kinds {
    ["prefill", "decode"].map(|phase| {
        let mut k = op.clone();
        k.set("phase", phase).map(|()| k).map_err(|e| e.to_string())
    })
}

/// The published set's expectation for a step bound as `b`: its features as a model step's
/// (the bound's split, 1 ms of step overhead per step, its collectives over the group).
fn published(
    kinds: &Kinds,
    chip: &Chip,
    phase: StepPhase,
    b: &StepBound,
    collectives: f64,
) -> Result<StepExpected, String> {
    let (kind, as_phase) = match phase {
        StepPhase::Prefill | StepPhase::Mixed => (&kinds[0], "prefill"),
        StepPhase::Decode | StepPhase::Verify => (&kinds[1], "decode"),
    };
    let kind = kind.as_ref().map_err(Clone::clone)?;
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
    let e = expectation_with(kind, chip, features, t)?;
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
    let mut b = StepTableBuilder::new(s, p, own)?;
    b.advance(p, usize::MAX);
    Ok(b.finish())
}

/// The step table built a few steps at a time: [`StepTableBuilder::new`] takes what every
/// step is timed with, [`StepTableBuilder::advance`] times the next steps, and
/// [`StepTableBuilder::finish`] adds the groups' medians and the caption. However the steps
/// are spread over calls, the table is [`step_table`]'s.
pub struct StepTableBuilder {
    chip: Chip,
    op: Op,
    kinds: Kinds,
    /// The model and where tp and ep come from, for the caption.
    model: String,
    bare: Options,
    own: Option<OwnEngine>,
    window: Vec<Window>,
    summary: WindowSummary,
    rows: Vec<StepRow>,
    fit_obs: Vec<StepObs>,
}

impl StepTableBuilder {
    /// A table of `p`'s steps against the scenario, none timed yet (the errors are
    /// [`step_table`]'s).
    pub fn new(
        s: &Scenario,
        p: &Profile,
        own: Option<&OwnEngine>,
    ) -> Result<StepTableBuilder, String> {
        if p.steps.is_empty() {
            return Err("the profile has no serving steps".into());
        }
        let chip = s
            .chips
            .first()
            .ok_or("the scenario has no chip to time the steps on")?
            .clone();
        let (op, model) = step_op(s, p.parallel.as_ref())?;
        let own = own
            .copied()
            .or_else(|| op.llm().and_then(|l| l.own_engine()));
        let (window, summary) = windows(&p.steps);
        Ok(StepTableBuilder {
            chip,
            kinds: kinds(&op),
            op,
            model,
            bare: Options {
                convention: s.options.convention,
                ..Options::default()
            },
            own,
            window,
            summary,
            rows: Vec::with_capacity(p.steps.len()),
            fit_obs: Vec::new(),
        })
    }

    /// Steps timed so far, and in all.
    pub fn progress(&self) -> (usize, usize) {
        (self.rows.len(), self.window.len())
    }

    /// Times the next `n` steps of `p` (the profile given to [`StepTableBuilder::new`]); true
    /// once every step is timed.
    pub fn advance(&mut self, p: &Profile, n: usize) -> bool {
        let at = self.rows.len();
        let end = at
            .saturating_add(n)
            .min(self.window.len())
            .min(p.steps.len());
        for i in at..end {
            self.time(&p.steps[i], self.window[i]);
        }
        self.rows.len() >= self.window.len()
    }

    fn time(&mut self, st: &Step, w: Window) {
        let sn = &st.span;
        let bound = bound_of(&self.op, &self.chip, &self.bare, sn);
        let expected = match (&bound, self.own) {
            (Err(_), _) => Err("no bound".to_string()),
            (Ok((b, _)), Some(e)) => Ok(StepExpected {
                t: e.time(b.split[0], b.split[1], b.split[2]),
                lo: None,
                hi: None,
                basis: "own",
                source: format!("your own engine, {}", e.format()),
            }),
            (Ok((b, collectives)), None) => {
                published(&self.kinds, &self.chip, sn.phase, b, *collectives)
            }
        };
        let bound = bound.map(|(b, _)| b);
        if let (Window::Steady, Some(m), Ok(b)) = (w, st.gpu_time, &bound) {
            self.fit_obs.push(StepObs {
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
        self.rows.push(StepRow {
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
            window: w,
        });
    }

    /// The table: the steps timed, their groups and the caption.
    pub fn finish(self) -> StepTable {
        let rows = self.rows;
        let faster = rows
            .iter()
            .filter(|r| r.ratio().is_some_and(|x| x < 1.0 - 1e-9))
            .count();
        let caption = format!(
            "{} steps timed as {} on {} (the bare roofline: no derate or calibration)",
            super::thousands(rows.len()),
            self.model,
            self.chip.name
        );
        StepTable {
            caption,
            groups: groups(&rows),
            rows,
            window: self.summary,
            fit_obs: self.fit_obs,
            faster,
        }
    }
}

/// The steady steps by phase and batch (in that order), with their medians.
fn groups(rows: &[StepRow]) -> Vec<StepGroup> {
    let mut steady: Vec<&StepRow> = rows.iter().filter(|r| r.window == Window::Steady).collect();
    // Stable: each group's steps stay in trace order.
    steady.sort_by(|a, b| a.phase.cmp(&b.phase).then(a.batch.total_cmp(&b.batch)));
    steady
        .chunk_by(|a, b| a.phase == b.phase && a.batch == b.batch)
        .map(|of| {
            let pick = |f: &dyn Fn(&StepRow) -> Option<f64>| {
                median(of.iter().filter_map(|r| f(r)).collect())
            };
            StepGroup {
                phase: of[0].phase,
                batch: of[0].batch,
                steps: of.len(),
                measured: pick(&|r| r.measured),
                t_lower: pick(&|r| r.bound.as_ref().ok().map(|b| b.t_lower)),
                expected: pick(&|r| r.expected.as_ref().ok().map(|e| e.t)),
                ratio: pick(&|r| r.ratio()),
            }
        })
        .collect()
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
