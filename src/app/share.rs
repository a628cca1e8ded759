//! Share and embed: the URL kept in sync with the scenario (`history.replaceState`), "Copy link",
//! the embed dialog with a live preview, exports (PNG, SVG, CSV, JSON), and the chromeless embed.

use leptos::prelude::*;
use roofline::inputs::Scenario;
use wasm_bindgen::JsCast;

use super::address::set_address;
use super::chart_canvas::ChartCanvas;
use super::debounce::Debounce;
use super::field::Field;
use super::menu::{MenuButton, MenuGroup};
use super::plots::DataTable;
use super::{check, ctx, js_detail, report, AppError};
use crate::view::{self, ChartModel};

/// The scenario read from the page's URL, with notices about what was ignored.
pub struct Loaded {
    /// What the URL describes (the first-load scenario when it has no parameters).
    pub scenario: Scenario,
    /// What was ignored and why.
    pub notices: Vec<String>,
}

/// Decode `location.search`.
pub fn load_from_location() -> Loaded {
    let search = web_sys::window()
        .and_then(|w| check(w.location().search(), "read the link"))
        .unwrap_or_default();
    let d = roofline::url::decode(&search);
    Loaded {
        scenario: d.scenario,
        notices: d.notices,
    }
}

/// The full app's URL for a scenario (same origin and path, scenario in the query).
pub fn app_url(s: &Scenario) -> String {
    let loc = web_sys::window().map(|w| w.location());
    let (origin, path) = loc
        .map(|l| {
            (
                check(l.origin(), "read the page's address").unwrap_or_default(),
                check(l.pathname(), "read the page's address").unwrap_or_default(),
            )
        })
        .unwrap_or_default();
    format!("{origin}{path}?{}", roofline::url::encode(s))
}

/// How long the address bar waits for typing to pause before it takes the new scenario.
/// `history.replaceState` costs milliseconds per call in Chromium (and is throttled past about a
/// hundred calls in ten seconds), so writing it on every keystroke would dominate each edit.
const URL_SYNC_DELAY_MS: u64 = 250;

/// Keep the address bar in sync with the scenario, without a history entry per keystroke: the
/// URL is written once edits pause for [`URL_SYNC_DELAY_MS`], and before the page is hidden.
pub fn sync_url_effect() {
    let c = ctx();
    let debounce = Debounce::new(URL_SYNC_DELAY_MS);
    let write = move || {
        debounce.cancel();
        set_address(&c.scenario.with_untracked(roofline::url::encode), false);
    };
    Effect::new(move |first: Option<()>| {
        c.scenario.track();
        if first.is_none() {
            // The loaded link, canonicalised at once.
            write();
            return;
        }
        debounce.schedule(write);
    });
    let flush = window_event_listener(leptos::ev::pagehide, move |_| write());
    // Back and Forward between the entries that loading a worked example pushed: the page
    // takes the scenario of the entry (the address is already that entry's).
    let back = window_event_listener(leptos::ev::popstate, move |_| {
        debounce.cancel();
        let s = load_from_location().scenario;
        c.recipe.set(super::recipes::recipe_of(&s));
        c.replace(s);
    });
    on_cleanup(move || {
        flush.remove();
        back.remove();
    });
}

/// The notice listing what a malformed link ignored (dismissible).
#[component]
pub fn Notices(
    /// The messages; emptied when dismissed.
    notices: RwSignal<Vec<String>>,
) -> impl IntoView {
    view! {
        <Show when=move || notices.with(|n| !n.is_empty())>
            <div class="notice" role="status" data-notice="url">
                <div class="row">
                    <b>"Parts of this link were ignored:"</b>
                    <span class="spacer"></span>
                    <button class="small" data-dismiss="notice" on:click=move |_| notices.set(Vec::new())>"dismiss"</button>
                </div>
                <ul>{move || notices.get().into_iter().map(|n| view! { <li>{n}</li> }).collect_view()}</ul>
            </div>
        </Show>
    }
}

/// A failed browser call of an export, as an [`AppError`].
fn js(action: &'static str) -> impl Fn(wasm_bindgen::JsValue) -> AppError {
    move |e| AppError::browser(action, js_detail(&e))
}

fn download(name: &str, mime: &str, bytes: &[u8]) -> Result<(), AppError> {
    let arr = js_sys::Uint8Array::from(bytes);
    let parts = js_sys::Array::of1(&arr);
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type(mime);
    let blob = web_sys::Blob::new_with_u8_array_sequence_and_options(&parts, &opts)
        .map_err(js("make the file"))?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(js("make the file"))?;
    let clicked = download_url(name, &url);
    // Released even when the click failed; either failure is reported.
    web_sys::Url::revoke_object_url(&url).map_err(js("release the file"))?;
    clicked
}

fn download_url(name: &str, url: &str) -> Result<(), AppError> {
    let a: web_sys::HtmlAnchorElement = document()
        .create_element("a")
        .map_err(js("start the download"))?
        .unchecked_into();
    a.set_href(url);
    a.set_download(name);
    a.click();
    Ok(())
}

/// PNG of the chart at 2× device pixels: drawn on an off-screen canvas of twice the size.
fn export_png(model: &ChartModel, dark: bool, name: &str) -> Result<(), AppError> {
    let on_page: web_sys::HtmlCanvasElement = document()
        .query_selector("canvas[data-chart]")
        .map_err(js("find the chart"))?
        .ok_or(AppError::NoPlot)?
        .unchecked_into();
    let (w, h) = (
        on_page.client_width().max(320),
        on_page.client_height().max(180),
    );
    let canvas: web_sys::HtmlCanvasElement = document()
        .create_element("canvas")
        .map_err(js("make the PNG"))?
        .unchecked_into();
    // Off-screen by a class (the CSP refuses style attributes); with no CSS size, its CSS size is
    // its backing size, w × h, until draw_scaled enlarges the backing store.
    canvas.set_class_name("export-canvas");
    canvas.set_width(w as u32);
    canvas.set_height(h as u32);
    document()
        .body()
        .ok_or_else(|| AppError::browser("make the PNG", "the page has no body"))?
        .append_child(&canvas)
        .map_err(js("make the PNG"))?;
    let dpr = web_sys::window()
        .map(|w| w.device_pixel_ratio())
        .unwrap_or(1.0)
        .max(1.0);
    let result = crate::app::chart_canvas::draw_scaled(&canvas, model, dark, 2.0 * dpr, None)
        .and_then(|_| {
            canvas
                .to_data_url_with_type("image/png")
                .map_err(js("make the PNG"))
        });
    canvas.remove();
    download_url(name, &result?)
}

/// Copy link, Embed, Export.
#[component]
pub fn ShareActions() -> impl IntoView {
    let c = ctx();
    // Some(true) after a copy, Some(false) when the browser refused (the link is in the address
    // bar; the status line says why).
    let (copied, set_copied) = signal(None::<bool>);
    let (embed_open, set_embed_open) = signal(false);
    let embed_button = NodeRef::<leptos::html::Button>::new();
    let charts = c.charts;
    let copy = move |_| {
        let url = c.scenario.with(app_url);
        let Some(w) = web_sys::window() else { return };
        let promise = w.navigator().clipboard().write_text(&url);
        leptos::task::spawn_local(async move {
            let result = wasm_bindgen_futures::JsFuture::from(promise).await;
            if let Err(e) = &result {
                report(AppError::browser(
                    "copy the link (it is in the address bar)",
                    js_detail(e),
                ));
            }
            set_copied.set(Some(result.is_ok()));
            set_timeout(
                move || set_copied.set(None),
                std::time::Duration::from_millis(2000),
            );
        });
    };
    let export = Callback::new(move |what: String| {
        let s = c.scenario.get_untracked();
        let base = view::file_stem(&s);
        let r = match what.as_str() {
            "png" => charts
                .with_front(|m| export_png(m, c.dark.get_untracked(), &format!("{base}.png")))
                .unwrap_or(Err(AppError::NoPlot)),
            "svg" => charts
                .with_front(|m| {
                    m.to_svg_via::<super::canvas_backend::CanvasBackend>(
                        c.dark.get_untracked(),
                        960,
                        540,
                    )
                    .map_err(AppError::Draw)
                })
                .unwrap_or(Err(AppError::NoPlot))
                .and_then(|svg| download(&format!("{base}.svg"), "image/svg+xml", svg.as_bytes())),
            "csv" => {
                let csv = view::sweep_csv(&s);
                download(&format!("{base}-sweep.csv"), "text/csv", csv.as_bytes())
            }
            "results-csv" => {
                let csv = view::results_csv(&s);
                download(&format!("{base}-results.csv"), "text/csv", csv.as_bytes())
            }
            "json" => {
                let json = c.results.with_untracked(|r| view::scenario_json_of(&s, r));
                download(&format!("{base}.json"), "application/json", json.as_bytes())
            }
            _ => Ok(()),
        };
        match r {
            Ok(()) => c.status.set(None),
            Err(e) => report(AppError::Export(Box::new(e))),
        }
    });
    let exports = vec![MenuGroup {
        heading: String::new(),
        items: [
            ("png", "PNG (plot, 2×)"),
            ("svg", "SVG (plot)"),
            ("csv", "CSV (sweep series)"),
            ("results-csv", "CSV (results: vs baseline, elasticities)"),
            ("json", "JSON (scenario + results)"),
        ]
        .map(|(id, text)| (id.to_string(), text.to_string()))
        .to_vec(),
    }];
    view! {
        <div class="actions">
            <button class="primary" data-action="copy-link" on:click=copy>
                {move || match copied.get() {
                    Some(true) => "Copied ✓",
                    Some(false) => "Copy blocked: use the address bar",
                    None => "Copy link",
                }}
            </button>
            <button node_ref=embed_button data-action="embed" aria-haspopup="dialog" on:click=move |_| set_embed_open.set(true)>"Embed"</button>
            <MenuButton name="export" label="Export" aria_label="Export the plot or the scenario" groups=exports on_pick=export/>
            <super::StatusLine/>
            <Show when=move || embed_open.get()>
                <EmbedDialog on_close=Callback::new(move |_| {
                    set_embed_open.set(false);
                    // Focus goes back where it came from.
                    if let Some(b) = embed_button.get_untracked() {
                        let _ = b.focus();
                    }
                })/>
            </Show>
        </div>
    }
}

/// The iframe snippet for a scenario.
fn iframe_snippet(s: &Scenario, width: u32, height: u32) -> String {
    let mut e = s.clone();
    e.embed = true;
    let src = app_url(&e);
    view::iframe_html(&src, width, height, &view::embed_title(s))
}

/// A size in whole pixels from `min` to 2000, or a message naming the field and the range.
fn parse_px(field: &'static str, text: &str, min: u32) -> Result<u32, AppError> {
    match text.trim().parse::<u32>() {
        Ok(v) if (min..=2000).contains(&v) => Ok(v),
        _ => Err(AppError::invalid(
            field,
            text,
            format!("must be a whole number of pixels from {min} to 2000"),
        )),
    }
}

/// The embed dialog: snippet ready to paste, with a live preview.
#[component]
fn EmbedDialog(
    /// Called to close the dialog.
    on_close: Callback<()>,
) -> impl IntoView {
    let c = ctx();
    let (w, set_w) = signal(640u32);
    let (h, set_h) = signal(400u32);
    let snippet = move || c.scenario.with(|s| iframe_snippet(s, w.get(), h.get()));
    let src = move || {
        c.scenario.with(|s| {
            let mut e = s.clone();
            e.embed = true;
            app_url(&e)
        })
    };
    let panel = NodeRef::<leptos::html::Div>::new();
    let snippet_box = NodeRef::<leptos::html::Textarea>::new();
    // The dialog takes focus when it opens (its snippet, ready to copy).
    request_animation_frame(move || {
        if let Some(t) = snippet_box.get_untracked() {
            let _ = t.focus();
        }
    });
    // Tab and Shift+Tab cycle inside the dialog; Escape closes it.
    let on_key = move |ev: leptos::ev::KeyboardEvent| match ev.key().as_str() {
        "Escape" => on_close.run(()),
        "Tab" => {
            let Some(panel) = panel.get_untracked() else {
                return;
            };
            let focusable = focusables(&panel);
            let (Some(first), Some(last)) = (focusable.first(), focusable.last()) else {
                return;
            };
            let active = document().active_element();
            let at = |e: &web_sys::HtmlElement| active.as_ref().is_some_and(|a| a == &**e);
            if ev.shift_key() && at(first) {
                ev.prevent_default();
                let _ = last.focus();
            } else if !ev.shift_key() && at(last) {
                ev.prevent_default();
                let _ = first.focus();
            }
        }
        _ => {}
    };
    let (copied, set_copied) = signal(None::<bool>);
    let copy = move |_| {
        let text = snippet();
        let Some(w) = web_sys::window() else { return };
        let promise = w.navigator().clipboard().write_text(&text);
        leptos::task::spawn_local(async move {
            let ok = wasm_bindgen_futures::JsFuture::from(promise).await.is_ok();
            set_copied.set(Some(ok));
        });
    };
    view! {
        <div class="dialog" role="dialog" aria-modal="true" aria-labelledby="embed-h" on:keydown=on_key>
            <div node_ref=panel>
                <div class="row">
                    <h2 id="embed-h">"Embed this plot"</h2>
                    <button data-action="close-embed" on:click=move |_| on_close.run(())>"close"</button>
                </div>
                <p>"Paste this into a blog post. The plot stays live and links back to the full app."</p>
                <div class="row">
                    <Field key="embed-width" label="width (px)" value="640".to_string()
                        on_commit=Callback::new(move |t: String| parse_px("width", &t, 320).map(|v| set_w.set(v)))/>
                    <Field key="embed-height" label="height (px)" value="400".to_string()
                        on_commit=Callback::new(move |t: String| parse_px("height", &t, 240).map(|v| set_h.set(v)))/>
                </div>
                <label for="embed-snippet">"HTML to paste"</label>
                <textarea node_ref=snippet_box id="embed-snippet" readonly name="embed-snippet" prop:value=snippet></textarea>
                <div class="row">
                    <button data-action="copy-embed" on:click=copy>"Copy HTML"</button>
                    <span role="status">{move || match copied.get() {
                        Some(true) => "Copied ✓",
                        Some(false) => "Copy blocked: select the text and copy it",
                        None => "",
                    }}</span>
                </div>
                <p>"Preview:"</p>
                <iframe src=src width=move || w.get().to_string() height=move || h.get().to_string() title="Roofline Lab embed preview"></iframe>
                // The last stop: Tab out of the preview's own controls lands here, then wraps.
                <div class="row"><button data-action="done-embed" on:click=move |_| on_close.run(())>"Done"</button></div>
            </div>
        </div>
    }
}

/// The elements Tab can reach inside `root`, in document order.
fn focusables(root: &web_sys::HtmlElement) -> Vec<web_sys::HtmlElement> {
    let Ok(nodes) =
        root.query_selector_all("button:not([disabled]), input, textarea, select, iframe, a[href]")
    else {
        return Vec::new();
    };
    (0..nodes.length())
        .filter_map(|i| nodes.item(i)?.dyn_into::<web_sys::HtmlElement>().ok())
        .collect()
}

/// The chromeless embed: plot, compact legend (drawn in the plot), key result, link to the app.
#[component]
pub fn EmbedView() -> impl IntoView {
    let c = ctx();
    // The embed shows one plot: the sweep, or the roofline when only that is chosen (an embed
    // has no tabs, so the choice is made once).
    let plot = c.scenario.with_untracked(|s| s.plot);
    let model = if plot.shows_sweep() {
        c.charts.sweep
    } else if plot.shows_frontier() {
        c.charts.frontier
    } else if plot.shows_load() {
        // The load plot's first panel (expected TTFT against the load).
        c.charts.load[0]
    } else {
        c.charts.roofline
    };
    let key = move || {
        c.scenario.with(|s| {
            c.results
                .with(|r| view::key_line_of(s, r, view::KeyLineDetail::Compact))
        })
    };
    let href = move || {
        c.scenario.with(|s| {
            let mut full = s.clone();
            full.embed = false;
            app_url(&full)
        })
    };
    view! {
        <main class="embed-view" data-ready="true" data-embed="true">
            <h1 class="visually-hidden">{move || c.scenario.with(view::embed_title)}</h1>
            <ChartCanvas model=model dark=c.dark/>
            <div class="embed-foot">
                <span class="keyline" data-keyline="true" title=key>{key}</span>
                <a href=href target="_blank" rel="noopener" data-open-app="true">"Open in Roofline Lab ↗"</a>
            </div>
            <DataTable model=model/>
        </main>
    }
}
