//! The step table built off the frame's critical path (issue 43: a 50 MiB trace from file pick
//! to step table with no frame gap over 50 ms). Timing a step runs the mixed step's roofline
//! and the published expectation; a trace of thousands of steps would hold up one frame for
//! seconds. So the steps are timed a slice of [`SLICE_MS`] per task
//! ([`crate::view::measured_steps::StepTableBuilder`]), each in a task after the one that
//! brought the profile or the edit, while the page paints and takes input, the panel saying
//! how many are timed. A newer profile, or an edit of what the
//! steps are timed with (the first `llm` operation, the first chip, the FLOP convention),
//! drops the table being built and starts anew; a table is only ever shown with the profile
//! and inputs it was built from.

use std::sync::Arc;

use leptos::prelude::*;
use roofline::inputs::Chip;
use roofline::inputs::Op;
use roofline::inputs::Scenario;
use roofline::profile::Profile;

use super::super::check;
use crate::view::measured_steps::{StepTable, StepTableBuilder};

/// Milliseconds of step timing per task: with the page's own work in the same frame, well
/// inside the 50 ms budget.
const SLICE_MS: f64 = 8.0;
/// Steps timed between two looks at the clock.
const BATCH: usize = 8;

/// What the steps are timed with: the first `llm` operation, the first chip, the convention.
pub(super) type StepInputs = (Option<Op>, Option<Chip>, roofline::inputs::FlopConvention);

/// The step table, or why the steps cannot be timed: `None` without steps, or while being
/// built.
pub(super) type Timed = Option<Result<Arc<StepTable>, String>>;

/// Steps timed so far and in all while a table is being built, for the panel.
#[derive(Clone, Copy)]
pub(super) struct StepsProgress(pub(super) RwSignal<Option<(usize, usize)>>);

/// The step table as soon as it is built, for the panel: a new trace's steps are drawn a task
/// before its kernels (see [`timed_steps`]).
#[derive(Clone, Copy)]
pub(super) struct StepsTimed(pub(super) Memo<Timed>);

/// A built table and what it was built from.
struct Built {
    profile: Arc<Profile>,
    inputs: StepInputs,
    table: Result<Arc<StepTable>, String>,
}

/// What a new profile's first showing still waits for: each is true from the profile's arrival
/// to a frame after its first step table (for any inputs) is built.
#[derive(Clone, Copy)]
pub(super) struct FirstShowing {
    /// The kernels' tables: until a task after the frame that draws the step table.
    pub(super) kernels: Memo<bool>,
    /// The roofline plot's markers: until a task after the frame that draws the kernels'
    /// tables.
    pub(super) plot: Memo<bool>,
}

/// The step table of `profile`'s steps timed with `inputs`, built a slice per task (see the
/// module docs), and what a new profile's first showing waits for: its step table is drawn,
/// then `prepare` runs (it computes the kernels' table), then the kernels' tables are drawn,
/// then its markers on the plot, each in a task of its own, a frame apart (issue 43: the last
/// three were one task of 50–62 ms, and two tasks without a frame between them are one frame
/// gap). Provides [`StepsProgress`] and [`StepsTimed`] to the panel.
pub(super) fn timed_steps(
    profile: RwSignal<Option<Arc<Profile>>>,
    inputs: Memo<StepInputs>,
    prepare: impl Fn() + Copy + 'static,
) -> (Memo<Timed>, FirstShowing) {
    let built = RwSignal::new(None::<Arc<Built>>);
    // The profile whose kernels' table may be shown (its first step table was drawn a frame
    // ago or more), and the one whose markers may be (its kernels' table was).
    let timed_once = RwSignal::new(None::<Arc<Profile>>);
    let plotted_once = RwSignal::new(None::<Arc<Profile>>);
    let progress = RwSignal::new(None);
    provide_context(StepsProgress(progress));
    let generation = StoredValue::new(0u64);
    Effect::new(move |_| {
        let p = profile.get();
        let inputs = inputs.get();
        generation.update_value(|g| *g += 1);
        let current = generation.get_value();
        let Some(p) = p.filter(|p| !p.steps.is_empty()) else {
            progress.set(None);
            return;
        };
        let done = move |p: Arc<Profile>, inputs: StepInputs, table| {
            progress.set(None);
            let first =
                !timed_once.with_untracked(|t| t.as_ref().is_some_and(|t| Arc::ptr_eq(t, &p)));
            if first {
                let p = p.clone();
                leptos::task::spawn_local(async move {
                    super::import::after_next_frame().await;
                    prepare();
                    super::import::after_next_frame().await;
                    timed_once.set(Some(p.clone()));
                    super::import::after_next_frame().await;
                    plotted_once.set(Some(p));
                });
            }
            built.set(Some(Arc::new(Built {
                profile: p,
                inputs,
                table,
            })));
            if let Some(perf) = web_sys::window().and_then(|w| w.performance()) {
                check(perf.mark("steps-computed"), "mark the steps timed");
            }
        };
        let s = scenario_of(&inputs);
        let mut b = match StepTableBuilder::new(&s, &p, None) {
            Ok(b) => b,
            Err(e) => return done(p, inputs, Err(e)),
        };
        progress.set(Some(b.progress()));
        // Every slice in a task of its own: the one that changed the profile or the inputs
        // draws the kernels' table and the plot.
        leptos::task::spawn_local(async move {
            loop {
                super::import::next_task().await;
                if generation.try_get_value() != Some(current) {
                    return;
                }
                if slice(&mut b, &p) {
                    break;
                }
                progress.set(Some(b.progress()));
            }
            done(p, inputs, Ok(Arc::new(b.finish())));
        });
    });
    let waiting = move |once: RwSignal<Option<Arc<Profile>>>| {
        Memo::new(move |_| {
            let Some(p) = profile.get().filter(|p| !p.steps.is_empty()) else {
                return false;
            };
            once.with(|t| !t.as_ref().is_some_and(|t| Arc::ptr_eq(t, &p)))
        })
    };
    let first = FirstShowing {
        kernels: waiting(timed_once),
        plot: waiting(plotted_once),
    };
    let table = Memo::new(move |_| {
        let p = profile.get()?;
        built.with(|b| {
            let b = b.as_ref()?;
            let same = Arc::ptr_eq(&b.profile, &p) && inputs.with(|i| *i == b.inputs);
            same.then(|| b.table.clone())
        })
    });
    provide_context(StepsTimed(table));
    (table, first)
}

/// The scenario the steps are timed in: the inputs alone.
fn scenario_of((op, chip, convention): &StepInputs) -> Scenario {
    Scenario {
        ops: op.iter().cloned().collect(),
        chips: chip.iter().cloned().collect(),
        options: roofline::inputs::Options {
            convention: *convention,
            ..Default::default()
        },
        ..Scenario::default()
    }
}

/// Times steps for [`SLICE_MS`]; true once all are timed.
fn slice(b: &mut StepTableBuilder, p: &Profile) -> bool {
    let perf = web_sys::window().and_then(|w| w.performance());
    let now = || perf.as_ref().map_or(0.0, |p| p.now());
    let start = now();
    loop {
        if b.advance(p, BATCH) {
            return true;
        }
        if now() - start >= SLICE_MS {
            return false;
        }
    }
}
