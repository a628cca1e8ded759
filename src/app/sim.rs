//! The serving row's tails in the page (issue 42): the simulation of requests runs in a Web
//! Worker (`src/bin/sim.rs`, `assets/sim-worker.js`, its URL in `<meta name="sim-worker">`),
//! never on the page's thread. Each scenario with a serving row under load is asked once by
//! its key (`view::serving_tails::sim_key`, its link): a new key ends the worker of the one
//! before (its figures would be stale) and starts another; the answer is kept only while its
//! key is the scenario's, and the results table lays it over the rows of that scenario
//! (`SimDone::overlay`). Until then the tails cells are `pending` and the row says
//! `data-sim="running"`.

use std::sync::Arc;

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use super::{check, js_detail};
use crate::view::serving_tails::{read, SimDone};

/// The simulation's state: the last key asked and the last answer.
#[derive(Clone, Copy)]
pub(super) struct Sim {
    /// The last answer (or failure), with the key it is for.
    pub(super) done: RwSignal<Option<Arc<SimDone>>>,
    /// The key of the simulation asked last; bumped with every new one.
    asked: StoredValue<(u64, Option<String>)>,
}

impl Sim {
    pub(super) fn new() -> Sim {
        Sim {
            done: RwSignal::new(None),
            asked: StoredValue::new((0, None)),
        }
    }

    fn current(&self, generation: u64) -> bool {
        self.asked.try_with_value(|a| a.0) == Some(generation)
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
        let generation = self.asked.with_value(|a| a.0);
        // The worker of an older scenario would only give stale figures: end it.
        JOB.with(|j| {
            if let Some((old, _, _)) = j.take() {
                old.terminate();
            }
        });
        if let Some(key) = key {
            self.start(generation, key);
        }
    }

    /// Ends a simulation: its answer, or every tails cell `none` with the reason.
    fn finish(&self, generation: u64, key: &str, answer: Result<SimDone, String>) {
        if !self.current(generation) {
            return;
        }
        let done = answer
            .and_then(|d| {
                if d.key == key {
                    Ok(d)
                } else {
                    Err("the simulation answered for another scenario".into())
                }
            })
            .unwrap_or_else(|why| {
                let s = roofline::url::decode(key).scenario;
                SimDone::failed(key, &s, &format!("no simulation: {why}"))
            });
        self.done.set(Some(Arc::new(done)));
    }

    fn start(&self, generation: u64, key: String) {
        let me = *self;
        let Some(url) = sim_url() else {
            return me.finish(
                generation,
                &key,
                Err("the page names no simulation (<meta name=\"sim-worker\">)".into()),
            );
        };
        let opts = web_sys::WorkerOptions::new();
        opts.set_type(web_sys::WorkerType::Module);
        let worker = match web_sys::Worker::new_with_options(&url, &opts) {
            Ok(w) => w,
            Err(e) => return me.finish(generation, &key, Err(js_detail(&e))),
        };
        let w = worker.clone();
        let k = key.clone();
        let on_message = wasm_bindgen::closure::Closure::<dyn Fn(web_sys::MessageEvent)>::new(
            move |ev: web_sys::MessageEvent| {
                w.terminate();
                let data = ev.data();
                let get = |f: &str| js_sys::Reflect::get(&data, &f.into()).ok();
                let answer = match (get("ok").and_then(|v| v.as_string()), get("error")) {
                    (Some(json), _) => read(&json),
                    (None, Some(e)) => Err(e
                        .as_string()
                        .unwrap_or_else(|| "the simulation failed".into())),
                    (None, None) => Err("the simulation gave no answer".into()),
                };
                me.finish(generation, &k, answer);
            },
        );
        let k = key.clone();
        // A script that cannot load fires a plain `Event`, an error inside it an `ErrorEvent`.
        let on_error = wasm_bindgen::closure::Closure::<dyn Fn(web_sys::Event)>::new(
            move |ev: web_sys::Event| {
                let detail = ev
                    .dyn_ref::<web_sys::ErrorEvent>()
                    .map(|e| e.message())
                    .filter(|m| !m.is_empty())
                    .unwrap_or_else(|| "its script did not load".into());
                me.finish(generation, &k, Err(detail));
            },
        );
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        let msg = js_sys::Object::new();
        check(
            js_sys::Reflect::set(&msg, &"key".into(), &key.as_str().into()),
            "pass the scenario to the simulation",
        );
        if let Err(e) = worker.post_message(&msg) {
            worker.terminate();
            return me.finish(generation, &key, Err(js_detail(&e)));
        }
        // The worker and its handlers live until the next scenario replaces them.
        JOB.with(|j| {
            if let Some((old, _, _)) = j.replace(Some((worker, on_message, on_error))) {
                old.terminate();
            }
        });
    }
}

/// The worker and its two handlers of the last simulation.
type Job = (
    web_sys::Worker,
    wasm_bindgen::closure::Closure<dyn Fn(web_sys::MessageEvent)>,
    wasm_bindgen::closure::Closure<dyn Fn(web_sys::Event)>,
);

thread_local! {
    static JOB: std::cell::RefCell<Option<Job>> = const { std::cell::RefCell::new(None) };
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
