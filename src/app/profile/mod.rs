//! The measured-profile panel (issue 15). A file picker, drag-and-drop onto the panel and a
//! paste box feed the core's streaming importer, which runs in a Web Worker of its own
//! ([`import`]); a `<progress>` follows the bytes it reports. The panel lists the kernels by time lost against the first chip's
//! roofline (`tr[data-measured]` rows with `data-metric` cells), totals per name group, and the
//! fit of a calibration; Apply writes it into the scenario (`cal=` and `derate=1`), so the link
//! carries the calibration. The profile itself stays in the page: it never enters the link.
//! The roofline plot shows the kernels as markers through [`Ctx::measured`].
//!
//! Imported text is shown through text nodes and attributes only, never as markup. A failed
//! import shows its message next to the field and keeps the last good profile.

use std::sync::Arc;

use leptos::prelude::*;

mod import;
mod step_table;
mod steps;

use import::Import;

use super::collapse;
use roofline::inputs::Scenario;
use roofline::profile::{Calibration, Profile};
use wasm_bindgen::JsCast;

use super::{ctx, AppError};
use crate::view::{self, MeasuredTable};
use roofline::units::format_exact;

/// Rows listed in the table (the biggest time lost first); the rest are counted.
const MAX_ROWS: usize = 200;
/// Kernels drawn on the roofline plot.
pub const MAX_MARKERS: usize = 300;

/// The profile against the scenario's first chip, for the panel and the roofline plot: `None`
/// without a profile, the message when the scenario gives no roofline to place it against.
pub type Measured = Option<Result<Arc<MeasuredTable>, String>>;

/// The memos behind [`Ctx::measured`] (the panel's) and the roofline plot's markers: the
/// roofline is recomputed on every scenario change, the kernels' table only when the roofline
/// or the profile changed, and a serving engine's steps are timed a slice per task
/// ([`step_table`]) and joined to it once all are timed. A new profile with steps is shown in
/// tasks a frame apart: its step table, then its kernels' table computed, then drawn, then its
/// markers on the plot (issue 43: the step table is what the import waits for, no task does
/// two of these, and the kernels' tables and the plot are drawn once, with the steps, not
/// twice); an edit that times the steps anew keeps the kernels shown meanwhile, and the plot
/// follows the panel in the edit's own task.
pub fn measured_memo(
    scenario: RwSignal<Scenario>,
    profile: RwSignal<Option<Arc<Profile>>>,
) -> (Memo<Measured>, Memo<Measured>) {
    let roof = Memo::new(move |_| {
        scenario.with(|s| view::measured_roofline(s).map_err(|e| AppError::from(e).to_string()))
    });
    let chip = Memo::new(move |_| scenario.with(|s| s.chips.first().cloned()));
    // What a serving engine's steps are timed with: the first llm operation, the first chip
    // and the FLOP convention (a change elsewhere in the scenario leaves them be).
    let step_inputs = Memo::new(move |_| {
        scenario.with(|s| {
            (
                s.ops.iter().find(|o| o.llm().is_some()).cloned(),
                s.chips.first().cloned(),
                s.options.convention,
            )
        })
    });
    let kernels = Memo::new(move |_| {
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
    });
    // A new profile's kernels' table is computed a frame before it is drawn.
    let prepare = move || kernels.with_untracked(|_| ());
    let (steps, first) = step_table::timed_steps(profile, step_inputs, prepare);
    let panel = Memo::new(move |_| {
        if first.kernels.get() {
            return None;
        }
        let k = kernels.get()?;
        Some(k.map(|t| match steps.get() {
            Some(s) => Arc::new(MeasuredTable {
                steps: Some(s),
                ..(*t).clone()
            }),
            None => t,
        }))
    });
    let plot = Memo::new(move |_| if first.plot.get() { None } else { panel.get() });
    (panel, plot)
}

/// The last fit: its calibration, summary lines and why Apply refuses it (issue 38, point 6),
/// or its message; `None` before a fit.
type FitShown = Option<Result<(Calibration, Vec<String>, Option<String>), String>>;

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
    // The kernels' side of the table: unchanged when a serving engine's steps join it, so the
    // kernels' tables are not drawn again then.
    let kernels = Memo::new(move |_| {
        c.measured.with(|m| {
            m.clone().map(|r| {
                r.map(|t| match t.steps {
                    Some(_) => Arc::new(MeasuredTable {
                        steps: None,
                        ..(*t).clone()
                    }),
                    None => t,
                })
            })
        })
    });
    // A new profile or roofline makes the last fit stale.
    Effect::new(move |_| {
        kernels.track();
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
            // An import may follow: its worker starts loading now (`import::prewarm`).
            on:pointerover=move |_| import::prewarm()
            on:focusin=move |_| import::prewarm()
            on:dragover=move |ev: web_sys::DragEvent| { ev.prevent_default(); dragging.set(true); import::prewarm(); }
            on:dragleave=move |_| dragging.set(false)
            on:drop=on_drop
        >
            <h2 id="profile-h"><collapse::Collapse what="Measured profile"/>"Measured profile" <span class="hint">"(stays in this page; only a fitted cal= goes into the link)"</span></h2>
            <div class="profile-import">
                <label>"Profile file (plain CSV, Nsight Compute CSV, PyTorch trace JSON, .json.gz) "
                    <input type="file" name="profile" accept=".csv,.json,.gz,.txt,text/csv,application/json,application/gzip"
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
                <steps::StepsSection/>
                <MeasuredTables fit=fit table=kernels/>
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
        let Some(chip) = roofline::inputs::preset(id) else {
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
                    let name = roofline::inputs::preset(id).map(|ch| ch.name).unwrap_or_default();
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

/// The fit controls, the kernels' table and the groups' table.
#[component]
fn MeasuredTables(
    /// The last fit (its calibration and summary) or its message.
    fit: RwSignal<FitShown>,
    /// The kernels' table ([`Ctx::measured`] without the steps).
    table: Memo<Measured>,
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
                .map(|f| {
                    let refused = view::apply_refusal(&f, &p.kernels);
                    (f.calibration, view::fit_summary(&f), refused)
                })
                .map_err(|e| AppError::from(e).to_string())
        });
        fit.set(Some(r));
    };
    let apply = move |_| {
        if let Some(Ok((cal, _, None))) = fit.get_untracked() {
            c.scenario.maybe_update(|s| {
                let changed = s.options.cal != cal || s.options.derate != 1.0;
                s.options.cal = cal;
                s.options.derate = 1.0;
                changed
            });
        }
    };
    let fit_ok = move || fit.with(|f| matches!(f, Some(Ok(_))));
    let refused = move || {
        fit.with(|f| match f {
            Some(Ok((_, _, why))) => why.clone(),
            _ => None,
        })
    };
    view! {
        <div class="row">
            <button class="small" data-action="fit-calibration" on:click=do_fit>"Fit calibration"</button>
            <Show when=fit_ok>
                // A fit the kernels do not pin down is shown, not applied: Apply stays off and
                // says why (issue 38, point 6).
                <button class="small primary" data-action="apply-calibration"
                    disabled=move || refused().is_some()
                    aria-describedby="apply-refused"
                    on:click=apply>"Apply (cal= and derate=1)"</button>
            </Show>
        </div>
        <p class="msg" id="apply-refused" data-apply-refused=move || refused().is_some().to_string()>
            {move || refused().unwrap_or_default()}
        </p>
        <div data-fit="true">
            {move || match fit.get() {
                None => ().into_any(),
                Some(Err(e)) => view! { <p class="msg" role="alert">{e}</p> }.into_any(),
                Some(Ok((_, lines, _))) => view! {
                    <ul class="fit-summary">{lines.into_iter().map(|l| view! { <li>{l}</li> }).collect_view()}</ul>
                }.into_any(),
            }}
        </div>
        {move || match table.get() {
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
            // Two lines of a name, the rest on demand (issue 38, point 8: CUTLASS template
            // names made the page 11,946 px tall).
            let open = RwSignal::new(false);
            view! {
                <tr data-measured=r.index.to_string() data-above-roof=r.above_roof().then_some("true")>
                    <td class="name" title=name.clone() data-metric="name" data-value=name.clone()>
                        <button class=move || if open.get() { "kname open" } else { "kname" }
                            aria-expanded=move || open.get().to_string()
                            on:click=move |_| open.update(|o| *o = !*o)>{name.clone()}</button>
                        {count}
                    </td>
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
                Some(Ok(view::StepMatch { name, step, rows, resemblance })) => {
                    // A profile whose kernel mix is not this step's is listed, not compared
                    // (issue 38, point 8): the ratios stay empty and the panel says why.
                    let unlike = resemblance.message(&name);
                    let compare = unlike.is_none();
                    let body = rows
                        .into_iter()
                        .map(|r| {
                            let parts = r.parts.join(", ");
                            let cells = r.cells().into_iter().map(|(m, v, t)| {
                                let (v, t) = if m == "ratio" && !compare { ("none".to_string(), "—".to_string()) } else { (v, t) };
                                view! { <td data-metric=m data-value=v>{t}</td> }
                            }).collect_view();
                            view! {
                                <tr data-part-category=r.category>
                                    <td class="name">{r.category}</td>
                                    {cells}
                                    <td class="name" title=parts.clone()>{parts.clone()}</td>
                                </tr>
                            }
                        })
                        .collect_view();
                    view! {
                        <p class="hint" data-step-predicted=format_exact(step)>
                            {format!("{name}: predicted step {} on the first chip, with the options and calibration above", view::pretty(step, roofline::units::Unit::Seconds))}
                        </p>
                        {unlike.map(|m| view! { <p class="msg" data-step-unlike="true">{m}</p> })}
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
