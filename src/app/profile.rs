//! The measured-profile panel (issue 15). A file picker, drag-and-drop onto the panel and a
//! paste box feed the core's streaming importer, which runs in a Web Worker of its own (issue
//! 27: `src/bin/import.rs` and `assets/import-worker.js`, loaded on the first import, so the
//! page's wasm has no importer): the worker reads a file in 1 MiB slices, feeding each as it
//! arrives, and a `<progress>` follows the bytes it reports; the parsed profile comes back as
//! JSON (`crate::profile_json`). The page's thread never parses. The panel lists the kernels by time lost against the first chip's
//! roofline (`tr[data-measured]` rows with `data-metric` cells), totals per name group, and the
//! fit of a calibration; Apply writes it into the scenario (`cal=` and `derate=1`), so the link
//! carries the calibration. The profile itself stays in the page: it never enters the link.
//! The roofline plot shows the kernels as markers through [`Ctx::measured`].
//!
//! Imported text is shown through text nodes and attributes only, never as markup. A failed
//! import shows its message next to the field and keeps the last good profile.

use std::sync::Arc;

use leptos::prelude::*;

use super::collapse;
use roofline::profile::{Calibration, Profile};
use roofline::scenario::{PlotKind, Scenario};
use wasm_bindgen::JsCast;

use super::{check, ctx, js_detail, AppError};
use crate::view::{self, MeasuredTable};
use roofline::units::format_exact;

/// Rows listed in the table (the biggest time lost first); the rest are counted.
const MAX_ROWS: usize = 200;
/// Kernels drawn on the roofline plot.
pub const MAX_MARKERS: usize = 300;

/// The profile against the scenario's first chip, for the panel and the roofline plot: `None`
/// without a profile, the message when the scenario gives no roofline to place it against.
pub type Measured = Option<Result<Arc<MeasuredTable>, String>>;

/// The memo behind [`Ctx::measured`]: the roofline is recomputed on every scenario change,
/// the table only when the roofline or the profile changed.
pub fn measured_memo(
    scenario: RwSignal<Scenario>,
    profile: RwSignal<Option<Arc<Profile>>>,
) -> Memo<Measured> {
    let roof = Memo::new(move |_| {
        scenario.with(|s| view::measured_roofline(s).map_err(|e| AppError::from(e).to_string()))
    });
    let chip = Memo::new(move |_| scenario.with(|s| s.chips.first().cloned()));
    Memo::new(move |_| {
        let p = profile.get()?;
        Some(roof.with(|r| {
            r.clone().map(|(roof, caption)| {
                let mut t = view::measured_table(roof, caption, &p);
                if let Some(chip) = chip.get() {
                    view::add_expected(&mut t, &chip);
                }
                Arc::new(t)
            })
        }))
    })
}

/// The last fit: its calibration and summary lines, or its message; `None` before a fit.
type FitShown = Option<Result<(Calibration, Vec<String>), String>>;

/// What the panel knows about the import under way or last done.
#[derive(Clone, Copy)]
struct Import {
    /// The app's state, kept here: a file read ends outside any component.
    ctx: super::Ctx,
    /// Bytes read and the file's size, while a file is being read.
    progress: RwSignal<Option<(f64, f64)>>,
    /// The last failure's message (the last good profile stays).
    error: RwSignal<Option<String>>,
    /// Where the profile came from (`trace.json, 52,428,800 bytes`).
    source: RwSignal<String>,
    /// Bumped by every import; a file read whose number is no longer current stops.
    generation: StoredValue<u64>,
}

impl Import {
    fn start(&self) -> u64 {
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
    fn text(&self, text: String) {
        let source = format!("pasted text, {} bytes", text.len());
        self.text_from(&text, source);
    }

    /// Imports text already in memory, saying where it came from.
    fn text_from(&self, text: &str, source: String) {
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
    fn file(&self, file: web_sys::File) {
        let size = file.size();
        let source = format!("{}, {} bytes", file.name(), size);
        let msg = js_sys::Object::new();
        check(
            js_sys::Reflect::set(&msg, &"file".into(), &file),
            "pass the file to the profile importer",
        );
        self.in_worker(msg, Some(size), source);
    }

    /// Runs one import in a new worker (ending the one before, if still running): posts
    /// `msg`, follows its progress through a file of `size` bytes, ends with its profile or
    /// message.
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
        let Some(url) = importer_url() else {
            return failed("the page names no importer (<meta name=\"import-worker\">)".into());
        };
        let opts = web_sys::WorkerOptions::new();
        opts.set_type(web_sys::WorkerType::Module);
        let worker = match web_sys::Worker::new_with_options(&url, &opts) {
            Ok(w) => w,
            Err(e) => return failed(js_detail(&e)),
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

/// Bytes of the profile's JSON read per task.
const READ_SLICE: u32 = 512 << 10;

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

/// Resolves in a later task (a zero timeout), letting the page paint between.
async fn next_task() {
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

/// The importer worker's URL (`import-worker.js?js=...&wasm=...`), as the page names it.
fn importer_url() -> Option<String> {
    web_sys::window()?
        .document()?
        .query_selector("meta[name=\"import-worker\"]")
        .ok()??
        .get_attribute("content")
        .filter(|c| !c.is_empty())
}

/// The panel: import controls, progress, message, fit, and the tables.
#[component]
pub fn ProfilePanel() -> impl IntoView {
    let c = ctx();
    let import = Import {
        ctx: c,
        progress: RwSignal::new(None),
        error: RwSignal::new(None),
        source: RwSignal::new(String::new()),
        generation: StoredValue::new(0),
    };
    let fit = RwSignal::new(FitShown::None);
    // A new profile or roofline makes the last fit stale.
    Effect::new(move |_| {
        c.measured.track();
        fit.set(None);
    });
    let on_file = move |ev: web_sys::Event| {
        let Some(input) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
        else {
            return;
        };
        if let Some(f) = input.files().and_then(|l| l.get(0)) {
            import.file(f);
        }
        // Choosing the same file again imports it again.
        input.set_value("");
    };
    let dragging = RwSignal::new(false);
    let on_drop = move |ev: web_sys::DragEvent| {
        ev.prevent_default();
        dragging.set(false);
        if let Some(f) = ev
            .data_transfer()
            .and_then(|d| d.files())
            .and_then(|l| l.get(0))
        {
            import.file(f);
        }
    };
    let paste = NodeRef::<leptos::html::Textarea>::new();
    let import_pasted = move |_| {
        if let Some(t) = paste.get_untracked() {
            import.text(t.value());
        }
    };
    let clear = move |_| {
        import.start();
        import.progress.set(None);
        import.source.set(String::new());
        c.profile.set(None);
    };
    let has_profile = move || c.profile.with(Option::is_some);
    let summary = move || {
        c.profile.with(|p| {
            p.as_ref().map(|p| {
                let device = p
                    .device
                    .as_deref()
                    .map(|d| format!(", recorded on {d}"))
                    .unwrap_or_default();
                format!(
                    "{}: {} kernels, {} measured, from {}{}",
                    p.format.label(),
                    p.kernels.len(),
                    view::pretty(p.total_time(), roofline::units::Unit::Seconds),
                    import.source.get(),
                    device
                )
            })
        })
    };
    view! {
        <section
            class=move || if dragging.get() { "panel profile dragging" } else { "panel profile" }
            aria-labelledby="profile-h"
            data-profile-panel="true"
            on:dragover=move |ev: web_sys::DragEvent| { ev.prevent_default(); dragging.set(true); }
            on:dragleave=move |_| dragging.set(false)
            on:drop=on_drop
        >
            <h2 id="profile-h"><collapse::Collapse what="Measured profile"/>"Measured profile" <span class="hint">"(stays in this page; only a fitted cal= goes into the link)"</span></h2>
            <div class="profile-import">
                <label>"Profile file (plain CSV, Nsight Compute CSV, PyTorch trace JSON) "
                    <input type="file" name="profile" accept=".csv,.json,.txt,text/csv,application/json"
                        aria-describedby="profile-msg" on:change=on_file/>
                </label>
                <label class="hint" for="profile-paste">" or drop a file on this panel, or paste the text here:"</label>
                <textarea id="profile-paste" name="profile" rows="3" spellcheck="false" node_ref=paste
                    placeholder="name,flops,bytes,time\ngemm_4096,137438953472,100663296,200us"
                    aria-describedby="profile-msg"
                    on:change=move |ev| import.text(event_target_value(&ev))></textarea>
                <div class="row">
                    <button class="small" data-action="import-profile" on:click=import_pasted>"Import pasted text"</button>
                    <button class="small" data-action="sample-profile" title=view::measured::SAMPLE_SOURCE
                        on:click=move |_| import.text_from(view::measured::SAMPLE_PROFILE, view::measured::SAMPLE_SOURCE.into())>"Load a sample profile"</button>
                    <Show when=has_profile>
                        <button class="small" data-action="clear-profile" on:click=clear>"Clear profile"</button>
                    </Show>
                </div>
                <Show when=move || import.progress.with(Option::is_some)>
                    <progress data-profile-progress="true" aria-label="bytes of the profile read"
                        max=move || import.progress.get().map_or(1.0, |p| p.1.max(1.0))
                        value=move || import.progress.get().map_or(0.0, |p| p.0)></progress>
                    <span class="hint">{move || import.progress.get().map(|(a, b)| format!(" {:.0}%", 100.0 * a / b.max(1.0)))}</span>
                </Show>
                <p class="msg" id="profile-msg" role="alert" data-profile-error=move || import.error.with(Option::is_some).to_string()>
                    {move || import.error.get().unwrap_or_default()}
                </p>
            </div>
            <Show when=has_profile>
                <p data-profile-summary="true">{summary}</p>
                <ChipOffer/>
                <ul class="notes" data-profile-notes="true">
                    {move || c.profile.with(|p| p.as_ref().map(|p| p.notes.clone()).unwrap_or_default()).into_iter().map(|n| view! { <li>{n}</li> }).collect_view()}
                </ul>
                <MeasuredTables fit=fit/>
            </Show>
        </section>
    }
}

/// The presets the profile says it was recorded on, when chip 1 is none of them
/// ([`view::chip_offer`]): one button each puts that preset in chip 1's place, the chip the
/// kernels are placed against.
#[component]
fn ChipOffer() -> impl IntoView {
    let c = ctx();
    let offer = Memo::new(move |_| {
        c.profile.with(|p| {
            let p = p.as_ref()?;
            c.scenario.with(|s| view::chip_offer(p, s.chips.first()))
        })
    });
    let use_chip = move |id: &'static str| {
        let Some(chip) = roofline::chip::preset(id) else {
            return;
        };
        c.scenario.maybe_update(|s| match s.chips.first_mut() {
            Some(first) if *first != chip => {
                *first = chip;
                true
            }
            None => {
                s.chips.push(chip);
                true
            }
            _ => false,
        });
    };
    move || {
        offer.get().map(|o| {
            let ids = o.ids.join(" ");
            let buttons = o
                .ids
                .iter()
                .map(|&id| {
                    let name = roofline::chip::preset(id).map(|ch| ch.name).unwrap_or_default();
                    view! {
                        <button class="small" data-action="use-chip" data-chip-id=id on:click=move |_| use_chip(id)>
                            {format!("Place on {name}")}
                        </button>
                    }
                })
                .collect_view();
            view! {
                <p class="hint" data-chip-offer=ids>
                    {format!("{}: ", o.reason)}
                    {buttons}
                </p>
            }
        })
    }
}

/// The fit controls, the kernels' table and the groups' table./// The fit controls, the kernels' table and the groups' table.
#[component]
fn MeasuredTables(
    /// The last fit (its calibration and summary) or its message.
    fit: RwSignal<FitShown>,
) -> impl IntoView {
    let c = ctx();
    let do_fit = move |_| {
        let r = c.profile.with_untracked(|p| {
            let p = p.as_ref().ok_or("import a profile first".to_string())?;
            let t = c
                .measured
                .with_untracked(|m| m.clone())
                .ok_or("import a profile first".to_string())??;
            view::fit_profile(p, &t.roof)
                .map(|f| (f.calibration, view::fit_summary(&f)))
                .map_err(|e| AppError::from(e).to_string())
        });
        fit.set(Some(r));
    };
    let apply = move |_| {
        if let Some(Ok((cal, _))) = fit.get_untracked() {
            c.scenario.maybe_update(|s| {
                let changed = s.options.cal != cal || s.options.derate != 1.0;
                s.options.cal = cal;
                s.options.derate = 1.0;
                changed
            });
        }
    };
    let table = move || c.measured.get();
    let fit_ok = move || fit.with(|f| matches!(f, Some(Ok(_))));
    view! {
        <div class="row">
            <button class="small" data-action="fit-calibration" on:click=do_fit>"Fit calibration"</button>
            <Show when=fit_ok>
                <button class="small primary" data-action="apply-calibration" on:click=apply>"Apply (cal= and derate=1)"</button>
            </Show>
        </div>
        <div data-fit="true">
            {move || match fit.get() {
                None => ().into_any(),
                Some(Err(e)) => view! { <p class="msg" role="alert">{e}</p> }.into_any(),
                Some(Ok((_, lines))) => view! {
                    <ul class="fit-summary">{lines.into_iter().map(|l| view! { <li>{l}</li> }).collect_view()}</ul>
                }.into_any(),
            }}
        </div>
        {move || match table() {
            None => ().into_any(),
            Some(Err(e)) => view! { <p class="msg" role="alert" data-profile-error="true">{e}</p> }.into_any(),
            Some(Ok(t)) => tables(&t).into_any(),
        }}
        <StepParts/>
    }
}

const ROW_HEAD: [&str; 10] = [
    "time",
    "FLOPs",
    "bytes",
    "intensity",
    "achieved",
    "roof",
    "% of roof",
    "bound",
    "time lost",
    "expected",
];

const GROUP_HEAD: [&str; 8] = [
    "kernels",
    "launches",
    "time",
    "FLOPs",
    "bytes",
    "achieved",
    "% of roof",
    "time lost",
];

/// The caption, the kernels (at most [`MAX_ROWS`]) and the groups.
fn tables(t: &MeasuredTable) -> impl IntoView {
    let markers = t
        .rows
        .iter()
        .filter(|r| r.roof.is_some())
        .count()
        .min(MAX_MARKERS);
    let more = t.rows.len().saturating_sub(MAX_ROWS);
    let cell = |(metric, value, text): (&'static str, String, String)| {
        view! { <td data-metric=metric data-value=value>{text}</td> }
    };
    let rows = t
        .rows
        .iter()
        .take(MAX_ROWS)
        .map(|r| {
            let name = r.name.clone();
            let count = (r.count > 1).then(|| format!(" ×{}", r.count));
            view! {
                <tr data-measured=r.index.to_string() data-above-roof=r.above_roof().then_some("true")>
                    <td class="name" title=name.clone() data-metric="name" data-value=name.clone()>{name.clone()}{count}</td>
                    {r.cells().into_iter().map(cell).collect_view()}
                </tr>
            }
        })
        .collect_view();
    let groups = t
        .groups
        .iter()
        .map(|g| {
            view! {
                <tr data-group=g.name.clone()>
                    <td class="name">{g.name.clone()}</td>
                    {view::group_cells(g).into_iter().map(cell).collect_view()}
                </tr>
            }
        })
        .collect_view();
    view! {
        <p class="hint" data-profile-caption="true">
            {format!("Placed {}; {} on the roofline plot", t.caption, markers)}
            <span data-markers=markers.to_string()></span>
            {(t.unplaced > 0).then(|| format!("; {} without FLOPs or bytes, listed by time only", t.unplaced))}
        </p>
        {t.above_roof.as_ref().map(|a| view! {
            <p class="msg" role="alert" data-above-roof=a.count.to_string()>{a.message()}</p>
        })}
        {table("measured-table", "Kernels, biggest time lost against the roofline first", "kernel", &ROW_HEAD, rows)}
        {(more > 0).then(|| view! { <p class="hint" data-more=more.to_string()>{format!("… and {more} more kernels (the fit and the groups count them all)")}</p> })}
        {table("groups-table", "Totals per name group", "group", &GROUP_HEAD, groups)}
    }
}

/// A scrolling table with a caption, a first column and the given headers.
fn table(
    class: &'static str,
    caption: &'static str,
    first: &'static str,
    head: &[&'static str],
    body: impl IntoView,
) -> impl IntoView {
    let head = head
        .iter()
        .map(|h| view! { <th scope="col">{*h}</th> })
        .collect_view();
    view! {
        <div class="table-scroll">
            <table class=format!("results-table {class}")>
                <caption>{caption}</caption>
                <thead><tr><th scope="col">{first}</th>{head}</tr></thead>
                <tbody>{body}</tbody>
            </table>
        </div>
    }
}

const PART_HEAD: [&str; 5] = [
    "predicted / step",
    "measured / step",
    "measured ÷ predicted",
    "records",
    "parts",
];

/// Measured against predicted for the scenario's first `llm` step, by kind of work (shown
/// only when the scenario has one). The steps the profile covers are asked for (default 1).
#[component]
fn StepParts() -> impl IntoView {
    let c = ctx();
    let steps = RwSignal::new(1.0f64);
    let step_error = RwSignal::new(None::<String>);
    let matched = Memo::new(move |_| {
        let t = c
            .measured
            .with(|m| m.as_ref().and_then(|m| m.as_ref().ok()).cloned())?;
        let p = c.profile.get()?;
        let n = steps.get();
        c.scenario.with(|s| {
            view::match_llm_parts(s, &p, &t.roof, n)
                .map(|r| r.map_err(|e| AppError::from(e).to_string()))
        })
    });
    let on_steps = move |ev: web_sys::Event| {
        let text = event_target_value(&ev);
        match text.trim().parse::<f64>() {
            Ok(v) if v.is_finite() && v >= 1.0 => {
                step_error.set(None);
                steps.set(v);
            }
            _ => step_error.set(Some(
                AppError::invalid("profile-steps", &text, "must be a number of at least 1")
                    .to_string(),
            )),
        }
    };
    view! {
        <Show when=move || matched.with(Option::is_some)>
            <h3 class="small-h">"Measured against predicted, per kind of work in the model step"</h3>
            <label class="hint">"steps in the profile "
                <input type="number" name="profile-steps" min="1" step="1" value="1" class="steps" on:change=on_steps/>
            </label>
            <span class="msg" role="alert">{move || step_error.get().unwrap_or_default()}</span>
            {move || match matched.get() {
                Some(Ok(view::StepMatch { name, step, rows })) => {
                    let body = rows
                        .into_iter()
                        .map(|r| {
                            let parts = r.parts.join(", ");
                            view! {
                                <tr data-part-category=r.category>
                                    <td class="name">{r.category}</td>
                                    {r.cells().into_iter().map(|(m, v, t)| view! { <td data-metric=m data-value=v>{t}</td> }).collect_view()}
                                    <td class="name" title=parts.clone()>{parts.clone()}</td>
                                </tr>
                            }
                        })
                        .collect_view();
                    view! {
                        <p class="hint" data-step-predicted=format_exact(step)>
                            {format!("{name}: predicted step {} on the first chip, with the options and calibration above", view::pretty(step, roofline::units::Unit::Seconds))}
                        </p>
                        {table("parts-table", "Step parts matched to kernels by kind of work", "work", &PART_HEAD, body)}
                    }
                    .into_any()
                }
                Some(Err(e)) => view! { <p class="msg" role="alert">{e}</p> }.into_any(),
                None => ().into_any(),
            }}
        </Show>
    }
}
