//! One import of the measured-profile panel (issue 27: the importer loaded on first use, off the
//! page's thread). The core's importer is a program of its own (`src/bin/import.rs`) that a
//! module Web Worker runs (`assets/import-worker.js`, its URL in `<meta name="import-worker">`):
//! each import takes the worker started when the pointer or the keyboard came to the panel
//! ([`prewarm`]), or starts one (ending the one before), posts it the file or the pasted text,
//! follows the bytes it reports, and reads back the profile it posts as JSON bytes, 64 KiB
//! per task (`crate::profile_json`). The page's thread never parses a profile.

use std::sync::Arc;

use leptos::prelude::*;
use roofline::inputs::PlotKind;
use roofline::profile::Profile;
use wasm_bindgen::JsCast;

use super::super::{check, js_detail, AppError};

/// What the panel knows about the import under way or last done.
#[derive(Clone, Copy)]
pub(super) struct Import {
    /// The app's state, kept here: a file read ends outside any component.
    pub(super) ctx: super::super::Ctx,
    /// Bytes read and the file's size, while a file is being read.
    pub(super) progress: RwSignal<Option<(f64, f64)>>,
    /// The last failure's message (the last good profile stays).
    pub(super) error: RwSignal<Option<String>>,
    /// Where the profile came from (`trace.json, 52,428,800 bytes`).
    pub(super) source: RwSignal<String>,
    /// Bumped by every import; a file read whose number is no longer current stops.
    pub(super) generation: StoredValue<u64>,
}

impl Import {
    pub(super) fn start(&self) -> u64 {
        self.generation.update_value(|g| *g += 1);
        self.error.set(None);
        self.generation.get_value()
    }

    fn current(&self, generation: u64) -> bool {
        self.generation.try_get_value() == Some(generation)
    }

    /// Ends an import: the profile replaces the last one, or the message is shown.
    fn done(&self, result: Result<Profile, AppError>, source: String) {
        self.progress.set(None);
        let c = self.ctx;
        match result.and_then(|p| {
            if p.kernels.is_empty() {
                Err(AppError::invalid(
                    "profile",
                    &source,
                    "the profile holds no kernels",
                ))
            } else {
                Ok(p)
            }
        }) {
            Ok(p) => {
                self.error.set(None);
                self.source.set(source);
                c.profile.set(Some(Arc::new(p)));
                // The markers are on the roofline plot: show it beside the sweep.
                if c.scenario.with_untracked(|s| s.plot) == PlotKind::Sweep {
                    c.set(|s| &mut s.plot, PlotKind::Both);
                }
                if let Some(perf) = web_sys::window().and_then(|w| w.performance()) {
                    perf.clear_marks_with_mark_name("profile-imported");
                    check(perf.mark("profile-imported"), "mark the profile imported");
                }
            }
            Err(e) => self.error.set(Some(e.to_string())),
        }
    }

    /// Imports pasted text at once (it is in memory already).
    pub(super) fn text(&self, text: String) {
        let source = format!("pasted text, {} bytes", text.len());
        self.text_from(&text, source);
    }

    /// Imports text already in memory, saying where it came from.
    pub(super) fn text_from(&self, text: &str, source: String) {
        if text.trim().is_empty() {
            return;
        }
        let msg = js_sys::Object::new();
        check(
            js_sys::Reflect::set(&msg, &"text".into(), &text.into()),
            "pass the text to the profile importer",
        );
        self.in_worker(msg, None, source);
    }

    /// Imports a file.
    pub(super) fn file(&self, file: web_sys::File) {
        let size = file.size();
        let source = format!("{}, {} bytes", file.name(), size);
        let msg = js_sys::Object::new();
        check(
            js_sys::Reflect::set(&msg, &"file".into(), &file),
            "pass the file to the profile importer",
        );
        self.in_worker(msg, Some(size), source);
    }

    /// Runs one import in the waiting worker ([`prewarm`]) or a new one (ending the one before,
    /// if still running): posts `msg`, follows its progress through a file of `size` bytes,
    /// ends with its profile or message.
    fn in_worker(&self, msg: js_sys::Object, size: Option<f64>, source: String) {
        let generation = self.start();
        let me = *self;
        self.progress.set(size.map(|s| (0.0, s)));
        let failed = |detail: String| {
            me.done(
                Err(AppError::browser("start the profile importer", detail)),
                String::new(),
            )
        };
        let worker = match take_spare().map_or_else(|| new_worker().map(|(w, _)| w), Ok) {
            Ok(w) => w,
            Err(e) => return failed(e),
        };
        let w = worker.clone();
        let on_message = wasm_bindgen::closure::Closure::<dyn Fn(web_sys::MessageEvent)>::new(
            move |ev: web_sys::MessageEvent| {
                if !me.current(generation) {
                    return;
                }
                let data = ev.data();
                let get = |k: &str| js_sys::Reflect::get(&data, &k.into()).ok();
                if let Some(at) = get("progress").and_then(|v| v.as_f64()) {
                    me.progress.set(size.map(|s| (at, s)));
                    return;
                }
                w.terminate();
                let ok = get("ok").and_then(|v| v.dyn_into::<js_sys::Uint8Array>().ok());
                let source = source.clone();
                match (ok, get("error")) {
                    (Some(json), _) => wasm_bindgen_futures::spawn_local(async move {
                        let result = read_profile(json, || me.current(generation)).await;
                        if let Some(result) = result {
                            me.done(result.map_err(AppError::Import), source);
                        }
                    }),
                    (None, Some(e)) => me.done(
                        Err(AppError::Import(
                            e.as_string()
                                .unwrap_or_else(|| "the importer failed".into()),
                        )),
                        source,
                    ),
                    (None, None) => me.done(
                        Err(AppError::Import("the importer gave no answer".into())),
                        source,
                    ),
                }
            },
        );
        // A script that cannot load fires a plain `Event`, an error inside it an `ErrorEvent`.
        let on_error = wasm_bindgen::closure::Closure::<dyn Fn(web_sys::Event)>::new(
            move |ev: web_sys::Event| {
                if me.current(generation) {
                    let detail = ev
                        .dyn_ref::<web_sys::ErrorEvent>()
                        .map(|e| e.message())
                        .filter(|m| !m.is_empty())
                        .unwrap_or_else(|| "its script did not load".into());
                    me.done(
                        Err(AppError::browser("start the profile importer", detail)),
                        String::new(),
                    );
                }
            },
        );
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        if let Err(e) = worker.post_message(&msg) {
            worker.terminate();
            return failed(js_detail(&e));
        }
        // The worker and its handlers live until the next import replaces them (never dropped
        // while one of them runs).
        JOB.with(|j| {
            if let Some((old, _, _)) = j.replace(Some((worker, on_message, on_error))) {
                old.terminate();
            }
        });
    }
}

/// Bytes of the profile's JSON read per task: about 15 ms of reading on a 2-core machine
/// (./dev bench), so that the page's frames stay within issue 43's 50 ms.
const READ_SLICE: u32 = 64 << 10;

/// Reads the worker's JSON a slice per task, so that a big profile holds up no frame; `None`
/// once `current` says a newer import has begun.
async fn read_profile(
    json: js_sys::Uint8Array,
    current: impl Fn() -> bool,
) -> Option<Result<Profile, String>> {
    let mut reader = crate::profile_json::Reader::new();
    let len = json.length();
    let mut at = 0;
    while at < len {
        let end = at.saturating_add(READ_SLICE).min(len);
        if let Err(e) = reader.feed(&json.subarray(at, end).to_vec()) {
            return Some(Err(e));
        }
        at = end;
        if at < len {
            next_task().await;
            if !current() {
                return None;
            }
        }
    }
    Some(reader.finish())
}

/// How long [`after_next_frame`] waits for a frame before it resolves anyway: a hidden page
/// draws none.
const FRAME_WAIT_MS: i32 = 100;

/// Resolves in a task after the browser's next frame has been drawn (a zero timeout set from
/// an animation frame's callback), or after [`FRAME_WAIT_MS`] when no frame comes: work
/// started then does not share a frame with what the task before it drew. Two zero timeouts
/// in a row may run before the page draws; this may not.
pub(super) async fn after_next_frame() {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let Some(w) = web_sys::window() else {
            return;
        };
        check(
            w.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, FRAME_WAIT_MS),
            "wait for a frame",
        );
        let after_frame = wasm_bindgen::closure::Closure::once_into_js(move || {
            if let Some(w) = web_sys::window() {
                check(
                    w.set_timeout_with_callback(&resolve),
                    "wait for the frame's end",
                );
            }
        });
        check(
            w.request_animation_frame(after_frame.unchecked_ref()),
            "wait for the next frame",
        );
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}

/// Resolves in a later task (a zero timeout), letting the page paint between.
pub(super) async fn next_task() {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        if let Some(w) = web_sys::window() {
            check(
                w.set_timeout_with_callback(&resolve),
                "wait for the next task",
            );
        }
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}

/// The worker and its two handlers of the last import.
type Job = (
    web_sys::Worker,
    wasm_bindgen::closure::Closure<dyn Fn(web_sys::MessageEvent)>,
    wasm_bindgen::closure::Closure<dyn Fn(web_sys::Event)>,
);

thread_local! {
    static JOB: std::cell::RefCell<Option<Job>> = const { std::cell::RefCell::new(None) };
}

/// A worker started before an import, its URL, and whether its script failed to load (an
/// `error` event fired before the import set its own handlers), with the handler that says so.
type Spare = (
    web_sys::Worker,
    String,
    std::rc::Rc<std::cell::Cell<bool>>,
    wasm_bindgen::closure::Closure<dyn Fn(web_sys::Event)>,
);

thread_local! {
    static SPARE: std::cell::RefCell<Option<Spare>> = const { std::cell::RefCell::new(None) };
}

/// Starts an importer ahead of an import, when the user shows they may import one (the pointer
/// over the panel, the keyboard in it, a file dragged onto it): its script and its wasm load
/// while the file is chosen, so that an import starts reading at once (issue 43). Nothing when
/// one is already waiting; the next import takes it.
pub(super) fn prewarm() {
    if SPARE.with(|s| s.borrow().is_some()) {
        return;
    }
    let Ok((worker, url)) = new_worker() else {
        // The import says why when it starts its own.
        return;
    };
    let failed = std::rc::Rc::new(std::cell::Cell::new(false));
    let flag = failed.clone();
    let on_error =
        wasm_bindgen::closure::Closure::<dyn Fn(web_sys::Event)>::new(move |_: web_sys::Event| {
            flag.set(true)
        });
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    SPARE.with(|s| *s.borrow_mut() = Some((worker, url, failed, on_error)));
}

/// The waiting importer, if one was started from the page's importer URL and its script did
/// not fail to load (else it is ended: the import starts its own, which says why).
fn take_spare() -> Option<web_sys::Worker> {
    let (worker, url, failed, _on_error) = SPARE.with(|s| s.borrow_mut().take())?;
    worker.set_onerror(None);
    if failed.get() || importer_url().as_ref() != Some(&url) {
        worker.terminate();
        return None;
    }
    Some(worker)
}

/// A new importer worker (a module worker at the page's importer URL) and its URL, or why not.
fn new_worker() -> Result<(web_sys::Worker, String), String> {
    let url = importer_url()
        .ok_or_else(|| "the page names no importer (<meta name=\"import-worker\">)".to_string())?;
    let opts = web_sys::WorkerOptions::new();
    opts.set_type(web_sys::WorkerType::Module);
    let worker = web_sys::Worker::new_with_options(&url, &opts).map_err(|e| js_detail(&e))?;
    Ok((worker, url))
}

/// The importer worker's URL (`import-worker.js?js=...&wasm=...`), as the page names it.
fn importer_url() -> Option<String> {
    web_sys::window()?
        .document()?
        .query_selector("meta[name=\"import-worker\"]")
        .ok()??
        .get_attribute("content")
        .filter(|c| !c.is_empty())
}
