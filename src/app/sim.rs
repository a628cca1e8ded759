//! The serving row's tails in the page (issue 42): the simulation of requests runs in a Web
//! Worker (`src/bin/sim.rs`, `assets/sim-worker.js`, its URL in `<meta name="sim-worker">`),
//! never on the page's thread. Each scenario with a serving row under load is asked once by
//! its key (`view::serving_tails::sim_key`, its link). An idle worker takes the next scenario
//! (no start-up again); a busy one, still simulating an older scenario whose figures would
//! only be stale, is ended and a fresh one started. An answer is kept only while its key is
//! the scenario's, and the results table lays it over the rows of that scenario
//! (`SimDone::overlay`). Until then the tails cells are `pending` and the row says
//! `data-sim="running"`.
//!
//! The load plot's simulated bands (`view::serving_tails::bands`) are a second job of the
//! same kind with its own worker (so neither waits for the other nor ends the other's run),
//! asked by their own key while the load plot shows: [`Sim`] over [`Answer`], one
//! implementation per job.

use std::sync::Arc;

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use super::{check, js_detail};
use crate::view::serving_tails::bands::{read_bands, Bands};
use crate::view::serving_tails::{read, SimDone};

/// A job of the simulation worker: its answer read back, its key, what stands for it when
/// the worker cannot run, and which worker runs it.
pub(super) trait Answer: Sized + Send + Sync + 'static {
    /// `what` in the worker's message (`None`: the rows' tails).
    const WHAT: Option<&'static str>;
    /// The job's worker ([`JOBS`]).
    const SLOT: usize;
    /// Reads the worker's JSON.
    fn read(json: &str) -> Result<Self, String>;
    /// The key it answers.
    fn key(&self) -> &str;
    /// The answer when the worker could not run.
    fn failed(key: &str, why: &str) -> Self;
}

impl Answer for SimDone {
    const WHAT: Option<&'static str> = None;
    const SLOT: usize = 0;
    fn read(json: &str) -> Result<Self, String> {
        read(json)
    }
    fn key(&self) -> &str {
        &self.key
    }
    fn failed(key: &str, why: &str) -> Self {
        let s = roofline::url::decode(key).scenario;
        SimDone::failed(key, &s, &format!("no simulation: {why}"))
    }
}

impl Answer for Bands {
    const WHAT: Option<&'static str> = Some("bands");
    const SLOT: usize = 1;
    fn read(json: &str) -> Result<Self, String> {
        read_bands(json)
    }
    fn key(&self) -> &str {
        &self.key
    }
    fn failed(key: &str, why: &str) -> Self {
        Bands {
            key: key.into(),
            sweep: None,
            error: Some(format!("no simulation: {why}")),
        }
    }
}

/// The simulation's state: the last key asked and the last answer.
pub(super) struct Sim<T: Answer> {
    /// The last answer (or failure), with the key it is for.
    pub(super) done: RwSignal<Option<Arc<T>>>,
    /// The key of the simulation asked last; its number bumped with every new one.
    asked: StoredValue<(u64, Option<String>)>,
    /// Whether the worker is simulating (an answer is due).
    busy: StoredValue<bool>,
}

impl<T: Answer> Clone for Sim<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: Answer> Copy for Sim<T> {}

impl Sim<SimDone> {
    /// The rows' tails.
    pub(super) fn new() -> Sim<SimDone> {
        Sim::make()
    }
}

impl Sim<Bands> {
    /// The load plot's bands.
    pub(super) fn bands() -> Sim<Bands> {
        Sim::make()
    }
}

impl<T: Answer> Sim<T> {
    fn make() -> Sim<T> {
        Sim {
            done: RwSignal::new(None),
            asked: StoredValue::new((0, None)),
            busy: StoredValue::new(false),
        }
    }

    /// Asks for the tails of the scenario `key` (`None`: no row has tails), unless it was the
    /// last asked.
    pub(super) fn ask(&self, key: Option<String>) {
        if self.asked.with_value(|a| a.1 == key) {
            return;
        }
        self.asked.update_value(|a| {
            a.0 += 1;
            a.1 = key.clone();
        });
        // Back to the scenario answered last (the load plot shown again): nothing to run.
        let answered = self
            .done
            .with_untracked(|d| d.as_ref().is_some_and(|d| Some(d.key()) == key.as_deref()));
        if answered {
            if self.busy.get_value() {
                end_worker(T::SLOT);
                self.busy.set_value(false);
            }
            return;
        }
        // A worker still simulating an older scenario would only give stale figures: end it.
        if self.busy.get_value() {
            end_worker(T::SLOT);
            self.busy.set_value(false);
        }
        if let Some(key) = key {
            self.post(key);
        }
    }

    /// Ends a simulation of the scenario asked last: its answer, or every tails cell `none`
    /// with the reason. An answer for another scenario is dropped.
    fn finish(&self, answer: Result<T, String>) {
        self.busy.set_value(false);
        let Some(key) = self.asked.try_with_value(|a| a.1.clone()).flatten() else {
            return;
        };
        let done = match answer {
            Ok(d) if d.key() == key => {
                timeline(T::WHAT, true);
                d
            }
            Ok(_) => return,
            Err(why) => {
                // A worker that failed is not asked again.
                end_worker(T::SLOT);
                T::failed(&key, &why)
            }
        };
        self.done.set(Some(Arc::new(done)));
    }

    /// Posts `key` to the idle worker, or to a new one.
    fn post(&self, key: String) {
        let me = *self;
        timeline(T::WHAT, false);
        if JOBS.with(|j| j.borrow()[T::SLOT].is_none()) {
            if let Err(why) = me.start() {
                return me.finish(Err(why));
            }
        }
        let msg = js_sys::Object::new();
        check(
            js_sys::Reflect::set(&msg, &"key".into(), &key.as_str().into()),
            "pass the scenario to the simulation",
        );
        if let Some(what) = T::WHAT {
            check(
                js_sys::Reflect::set(&msg, &"what".into(), &what.into()),
                "pass the simulation's job",
            );
        }
        let posted = JOBS.with(|j| {
            j.borrow()[T::SLOT]
                .as_ref()
                .map(|(w, _, _)| w.post_message(&msg))
        });
        match posted {
            Some(Ok(())) => me.busy.set_value(true),
            Some(Err(e)) => me.finish(Err(js_detail(&e))),
            None => me.finish(Err("the simulation's worker is gone".into())),
        }
    }

    /// Starts a worker with its handlers.
    fn start(&self) -> Result<(), String> {
        let me = *self;
        let url = sim_url().ok_or("the page names no simulation (<meta name=\"sim-worker\">)")?;
        let opts = web_sys::WorkerOptions::new();
        opts.set_type(web_sys::WorkerType::Module);
        let worker = web_sys::Worker::new_with_options(&url, &opts).map_err(|e| js_detail(&e))?;
        let on_message = wasm_bindgen::closure::Closure::<dyn Fn(web_sys::MessageEvent)>::new(
            move |ev: web_sys::MessageEvent| {
                let data = ev.data();
                let get = |f: &str| js_sys::Reflect::get(&data, &f.into()).ok();
                let answer = match (get("ok").and_then(|v| v.as_string()), get("error")) {
                    (Some(json), _) => T::read(&json),
                    (None, Some(e)) => Err(e
                        .as_string()
                        .unwrap_or_else(|| "the simulation failed".into())),
                    (None, None) => Err("the simulation gave no answer".into()),
                };
                me.finish(answer);
            },
        );
        // A script that cannot load fires a plain `Event`, an error inside it an `ErrorEvent`.
        let on_error = wasm_bindgen::closure::Closure::<dyn Fn(web_sys::Event)>::new(
            move |ev: web_sys::Event| {
                let detail = ev
                    .dyn_ref::<web_sys::ErrorEvent>()
                    .map(|e| e.message())
                    .filter(|m| !m.is_empty())
                    .unwrap_or_else(|| "its script did not load".into());
                me.finish(Err(detail));
            },
        );
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        // The worker and its handlers live until a newer scenario ends it.
        JOBS.with(|j| {
            let old = j.borrow_mut()[T::SLOT].replace((worker, on_message, on_error));
            if let Some((old, _, _)) = old {
                old.terminate();
            }
        });
        Ok(())
    }
}

/// The bands' time from the question to its answer on the page's performance timeline
/// (`sim-bands`, the latest only, which `./dev bench` reads): marked when asked, measured
/// when the answer for the key asked arrives. The rows' tails are timed by their own bench.
fn timeline(what: Option<&'static str>, answered: bool) {
    let (Some(what), Some(p)) = (what, web_sys::window().and_then(|w| w.performance())) else {
        return;
    };
    let (start, name) = (format!("sim-{what}-start"), format!("sim-{what}"));
    if answered {
        p.clear_measures_with_measure_name(&name);
        check(
            p.measure_with_start_mark(&name, &start),
            "measure the simulation's time",
        );
    } else {
        p.clear_marks_with_mark_name(&start);
        check(p.mark(&start), "mark the simulation's start");
    }
}

/// Ends the job's worker, if any (its handlers are dropped after it can no longer call them).
fn end_worker(slot: usize) {
    let old = JOBS.with(|j| j.borrow_mut()[slot].take());
    if let Some((w, on_message, on_error)) = old {
        w.set_onmessage(None);
        w.set_onerror(None);
        w.terminate();
        // Dropped in a later task: this may run inside one of them.
        wasm_bindgen_futures::spawn_local(async move {
            drop((on_message, on_error));
        });
    }
}

/// The worker and its two handlers.
type Job = (
    web_sys::Worker,
    wasm_bindgen::closure::Closure<dyn Fn(web_sys::MessageEvent)>,
    wasm_bindgen::closure::Closure<dyn Fn(web_sys::Event)>,
);

thread_local! {
    /// Each job's worker: the rows' tails, the load plot's bands.
    static JOBS: std::cell::RefCell<[Option<Job>; 2]> = const { std::cell::RefCell::new([None, None]) };
}

/// The simulation worker's URL (`sim-worker.js?js=...&wasm=...`), as the page names it.
fn sim_url() -> Option<String> {
    web_sys::window()?
        .document()?
        .query_selector("meta[name=\"sim-worker\"]")
        .ok()??
        .get_attribute("content")
        .filter(|c| !c.is_empty())
}
