//! The Leptos app (browser only). Components are thin: the logic lives in the core crate and in
//! [`crate::view`], both tested natively.

mod address;
mod canvas_backend;
mod chart_canvas;
mod chips;
mod collapse;
mod debounce;
mod distinct;
mod explain;
mod field;
mod hf_import;
mod lazy;
mod menu;
mod ops;
mod options;
mod plots;
mod profile;
mod recipes;
mod results;
mod share;
mod sim;
mod text_measure;
mod validation;

use leptos::prelude::*;
use roofline::inputs::Chip;
use roofline::inputs::Op;
use roofline::inputs::Scenario;

pub use crate::error::AppError;
use crate::keys::{Keys, ListEdit};

pub use chart_canvas::draw_on;

/// Shared app state, provided as context.
#[derive(Clone, Copy)]
pub struct Ctx {
    /// The last valid scenario: every form, plot and result reads it. Changed only through the
    /// methods below, which notify only when something changed.
    pub scenario: RwSignal<Scenario>,
    /// Stable ids of the scenario's operations and chips (the cards' keys).
    pub keys: RwSignal<Keys>,
    /// Dark theme (from `theme=` or `prefers-color-scheme`).
    pub dark: Signal<bool>,
    /// The core's results of the scenario (issue 41): one store, brought to each edit by one
    /// memo (an edit computes only the (operation, chip) pairs it changed); every result row,
    /// the key line and the roofline plot only format it.
    pub results: Memo<roofline::results::Results>,
    /// The chart models (computed once, read by the plots, exports and the embed).
    pub charts: plots::Charts,
    /// The status line: the last failure that belongs to no field (an export, the clipboard,
    /// the address bar), or `None`.
    pub status: RwSignal<Option<String>>,
    /// The imported profile (never in the link), `None` before an import.
    pub profile: RwSignal<Option<std::sync::Arc<roofline::profile::Profile>>>,
    /// The profile against the first chip's roofline, for the panel's tables (the plot's
    /// markers follow it, a frame later when a profile is new: [`profile::measured_memo`]).
    pub measured: Memo<profile::Measured>,
    /// Counts the scenarios loaded whole (a worked example, Back, a link in the page, Start
    /// over): what is laid out once per scenario rather than per edit (a chip card's folded
    /// fields) is laid out again.
    pub loads: RwSignal<u64>,
    /// The worked example last loaded (its position in `view::recipes()`), whose answer shows
    /// by the plot; `None` after Start over or on a scenario that is none of them.
    pub recipe: RwSignal<Option<usize>>,
}

impl Ctx {
    /// Replace the whole scenario (a recipe): cards whose position remains keep their DOM and
    /// take the new values; nothing is notified when the scenario is the same.
    pub fn replace(&self, s: Scenario) {
        self.loads.update(|n| *n += 1);
        self.keys.maybe_update(|k| {
            let before = k.clone();
            k.fit(&s);
            *k != before
        });
        self.scenario.maybe_update(|now| {
            let changed = *now != s;
            if changed {
                *now = s;
            }
            changed
        });
    }

    /// Sets one part of the scenario (an option, the plot, the axes), notifying only when the
    /// value differs.
    pub fn set<T: PartialEq>(&self, slot: impl FnOnce(&mut Scenario) -> &mut T, value: T) {
        self.scenario.maybe_update(|s| {
            let slot = slot(s);
            let changed = *slot != value;
            if changed {
                *slot = value;
            }
            changed
        });
    }

    /// Edits the operation with id `id` on a copy: a refused edit leaves the scenario alone and
    /// notifies no one, and so does one that changes nothing.
    pub fn edit_op(
        &self,
        id: u64,
        f: impl FnOnce(&mut Op) -> Result<(), AppError>,
    ) -> Result<(), AppError> {
        let Some(i) = self.keys.with_untracked(|k| k.op_index(id)) else {
            return Ok(());
        };
        let Some(mut next) = self.scenario.with_untracked(|s| s.ops.get(i).cloned()) else {
            return Ok(());
        };
        f(&mut next)?;
        self.scenario.maybe_update(|s| match s.ops.get_mut(i) {
            Some(o) if *o != next => {
                *o = next;
                // Another kind may not have the swept field: the sweep moves to one it has.
                crate::view::keep_sweep_on_a_field(s);
                true
            }
            _ => false,
        });
        Ok(())
    }

    /// Edits the chip with id `id` on a copy, as [`Ctx::edit_op`].
    pub fn edit_chip(
        &self,
        id: u64,
        f: impl FnOnce(&mut Chip) -> Result<(), AppError>,
    ) -> Result<(), AppError> {
        let Some(i) = self.keys.with_untracked(|k| k.chip_index(id)) else {
            return Ok(());
        };
        let Some(mut next) = self.scenario.with_untracked(|s| s.chips.get(i).cloned()) else {
            return Ok(());
        };
        f(&mut next)?;
        self.scenario.maybe_update(|s| match s.chips.get_mut(i) {
            Some(c) if *c != next => {
                *c = next;
                true
            }
            _ => false,
        });
        Ok(())
    }

    /// Adds, duplicates, moves or removes an operation, its id following it.
    pub fn edit_ops(&self, edit: ListEdit<Op>) {
        let mut ops = self.scenario.with_untracked(|s| s.ops.clone());
        let before = self.keys.get_untracked();
        let mut keys = before.clone();
        if keys.edit_ops(&mut ops, edit) {
            let base = keys.follow_base(&before, self.scenario.with_untracked(|s| s.base_row()));
            self.keys.set(keys);
            self.scenario.update(|s| {
                s.ops = ops;
                s.base = base;
                crate::view::keep_sweep_on_a_field(s);
            });
        }
    }

    /// Adds or removes a chip, its id following it.
    pub fn edit_chips(&self, edit: ListEdit<Chip>) {
        let mut chips = self.scenario.with_untracked(|s| s.chips.clone());
        let before = self.keys.get_untracked();
        let mut keys = before.clone();
        if keys.edit_chips(&mut chips, edit) {
            let base = keys.follow_base(&before, self.scenario.with_untracked(|s| s.base_row()));
            self.keys.set(keys);
            self.scenario.update(|s| {
                s.chips = chips;
                s.base = base;
            });
        }
    }
}

/// The context, inside any component.
pub fn ctx() -> Ctx {
    expect_context::<Ctx>()
}

thread_local! {
    static STATUS: std::cell::Cell<Option<RwSignal<Option<String>>>> = const { std::cell::Cell::new(None) };
}

/// Shows a failure in the status line (`role="status"`) and logs it to the console. Callable
/// from anywhere, also outside a component (a timer, the canvas backend).
pub fn report(e: AppError) {
    let text = e.to_string();
    web_sys::console::warn_1(&wasm_bindgen::JsValue::from_str(&text));
    if let Some(status) = STATUS.with(|s| s.get()) {
        status.try_set(Some(text));
    }
}

/// Reports a failed browser call, if it failed.
pub fn check<T>(r: Result<T, wasm_bindgen::JsValue>, action: &'static str) -> Option<T> {
    match r {
        Ok(v) => Some(v),
        Err(e) => {
            report(AppError::browser(action, js_detail(&e)));
            None
        }
    }
}

/// The browser's message of a thrown JavaScript value (`NotAllowedError: ...`).
pub fn js_detail(e: &wasm_bindgen::JsValue) -> String {
    use wasm_bindgen::JsCast;
    if let Some(err) = e.dyn_ref::<js_sys::Error>() {
        let name = String::from(err.name());
        let msg = String::from(err.message());
        return if name.is_empty() {
            msg
        } else {
            format!("{name}: {msg}")
        };
    }
    e.as_string()
        .unwrap_or_else(|| "the browser gave no reason".to_string())
}

/// The status line (in the page's actions; on its own in the embed).
#[component]
pub fn StatusLine() -> impl IntoView {
    let status = ctx().status;
    view! {
        <span class="readout status" role="status" data-status="true">
            <Show when=move || status.with(Option::is_some)>
                <span class="status-msg">{move || status.get().unwrap_or_default()}</span>
                " "
                <button class="small" data-dismiss="status" on:click=move |_| status.set(None)>"dismiss"</button>
            </Show>
        </span>
    }
}

/// The `prefers-color-scheme: dark` query (`None` where the browser has no `matchMedia`).
fn dark_query() -> Option<web_sys::MediaQueryList> {
    let w = web_sys::window()?;
    check(
        w.match_media("(prefers-color-scheme: dark)"),
        "read the colour scheme",
    )
    .flatten()
}

fn prefers_dark() -> bool {
    dark_query().is_some_and(|m| m.matches())
}

/// After a panic the wasm instance is dead (release builds abort), so the error panel is plain
/// DOM with plain links: "Reset scenario" opens the page without a query (the first-load
/// scenario), "Reload this link" opens the same URL again. Everything is set as text.
fn show_panic_panel(details: &str) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let Some(doc) = window.document() else {
        return;
    };
    if doc.query_selector("[data-panic]").ok().flatten().is_some() {
        return;
    }
    let loc = window.location();
    let path = loc.pathname().unwrap_or_else(|_| "./".into());
    let href = loc.href().unwrap_or_else(|_| path.clone());
    let el = |tag: &str, text: Option<&str>| {
        let e = doc.create_element(tag).ok()?;
        e.set_text_content(text);
        Some(e)
    };
    let build = || -> Option<web_sys::Element> {
        let panel = el("div", None)?;
        panel.set_class_name("panic");
        panel.set_attribute("role", "alert").ok()?;
        panel.set_attribute("data-panic", "true").ok()?;
        let head = el(
            "strong",
            Some("Roofline Lab hit an internal error and stopped."),
        )?;
        panel.append_child(&head).ok()?;
        let text = el(
                "p",
                Some(
                    "The plot and results below are frozen at their last state. Reset the scenario \
                     to start again from the first-load example, or reload this link. If it happens \
                     again, please report the link and the details below.",
                ),
            )?;
        panel.append_child(&text).ok()?;
        let actions = el("div", None)?;
        actions.set_class_name("row");
        let reset = el("a", Some("Reset scenario"))?;
        reset.set_attribute("href", &path).ok()?;
        reset.set_attribute("data-action", "reset-scenario").ok()?;
        reset.set_class_name("button primary");
        actions.append_child(&reset).ok()?;
        let reload = el("a", Some("Reload this link"))?;
        reload.set_attribute("href", &href).ok()?;
        reload.set_attribute("data-action", "reload").ok()?;
        reload.set_class_name("button");
        actions.append_child(&reload).ok()?;
        panel.append_child(&actions).ok()?;
        let more = el("details", None)?;
        let summary = el("summary", Some("Details"))?;
        more.append_child(&summary).ok()?;
        let pre = el("pre", Some(details))?;
        more.append_child(&pre).ok()?;
        panel.append_child(&more).ok()?;
        Some(panel)
    };
    let shown = match (build(), doc.body()) {
        (Some(panel), Some(body)) => body.prepend_with_node_1(&panel).is_ok(),
        _ => false,
    };
    if !shown {
        // The panel could not be built: say it the plainest way there is.
        let text = format!(
            "Roofline Lab hit an internal error and stopped. Reload the page to start again.\n\n{details}"
        );
        if window.alert_with_message(&text).is_err() {
            web_sys::console::error_1(&wasm_bindgen::JsValue::from_str(&text));
        }
    }
}

/// Show the error panel instead of a dead page if anything panics (and log it to the console).
fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        show_panic_panel(&info.to_string());
    }));
}

/// The end-to-end test of the error panel needs a panic on demand: a `roofline-test-panic`
/// event on `window` causes one. Only script running in the page can send it (no URL does).
fn listen_for_test_panic() {
    let handle = window_event_listener_untyped("roofline-test-panic", |_| {
        panic!("a panic requested by a roofline-test-panic event");
    });
    std::mem::forget(handle);
}

/// Entry point: mount the app on `<body>`.
pub fn mount() {
    install_panic_hook();
    listen_for_test_panic();
    crate::charts::set_text_measurer(text_measure::measure);
    // The first view drawn at build time (index.html, src/bin/static-view.rs) leaves in the task
    // that mounts the app: the browser paints the one or the other, never an empty page between.
    if let Ok(views) = document().query_selector_all("[data-static-view]") {
        for i in 0..views.length() {
            if let Some(e) = views.item(i).and_then(|n| n.parent_node().map(|p| (n, p))) {
                check(e.1.remove_child(&e.0), "remove the first view");
            }
        }
    }
    leptos::mount::mount_to_body(App);
    // The page answers input from here on: every element and its event handlers are in place
    // (the load benchmark reads this mark; the plots draw in the effects that follow).
    if let Some(p) = web_sys::window().and_then(|w| w.performance()) {
        check(p.mark("app-ready"), "mark the app ready");
    }
    lazy::start_idle_loads();
}

/// The whole page (or, with `embed=1`, the chromeless embed).
#[component]
pub fn App() -> impl IntoView {
    let status = RwSignal::new(None::<String>);
    STATUS.with(|s| s.set(Some(status)));
    lazy::source_notes();
    let loaded = share::load_from_location();
    let embed = loaded.scenario.embed;
    let scenario = RwSignal::new(loaded.scenario);
    // The store takes the last scenario's figures with it: an unchanged pair (or sweep) is not
    // computed again. It holds the sweeps while the sweep plot shows.
    let results = Memo::new_owning(move |prev: Option<roofline::results::Results>| {
        let mut r = prev.unwrap_or_default();
        scenario.with(|s| r.update_with(s, roofline::results::Wanted::shown(s)));
        (r, true)
    });
    let (os_dark, set_os_dark) = signal(prefers_dark());
    if let Some(m) = dark_query() {
        let cb = wasm_bindgen::closure::Closure::<dyn Fn()>::new(move || {
            set_os_dark.set(prefers_dark())
        });
        m.set_onchange(Some(wasm_bindgen::JsCast::unchecked_ref(cb.as_ref())));
        cb.forget();
    }
    // The theme follows the scenario (`theme=`, the Options panel's control) or, on auto, the
    // system's preference.
    let theme = Memo::new(move |_| scenario.with(|s| s.theme));
    let dark = Signal::derive(move || match theme.get() {
        Some(roofline::inputs::ColorScheme::Dark) => true,
        Some(roofline::inputs::ColorScheme::Light) => false,
        None => os_dark.get(),
    });
    // Sync with the outside world: the stylesheet reads `data-theme` on `<html>`.
    Effect::new(move |_| {
        let word = match theme.get() {
            Some(roofline::inputs::ColorScheme::Dark) => Some("dark"),
            Some(roofline::inputs::ColorScheme::Light) => Some("light"),
            None => None,
        };
        if let Some(root) = document().document_element() {
            let done = match word {
                Some(word) => root.set_attribute("data-theme", word),
                None => root.remove_attribute("data-theme"),
            };
            check(done, "set the colour theme");
        }
    });
    let keys = RwSignal::new(scenario.with_untracked(Keys::new));
    let imported = RwSignal::new(None);
    let (measured, markers) = profile::measured_memo(scenario, imported);
    let ctx = Ctx {
        scenario,
        keys,
        dark,
        results,
        charts: plots::Charts::new(scenario, results, markers),
        status,
        profile: imported,
        measured,
        loads: RwSignal::new(0),
        recipe: RwSignal::new(None),
    };
    provide_context(ctx);
    let notices = RwSignal::new(loaded.notices);

    if embed {
        if let Some(body) = document().body() {
            check(
                body.class_list().add_1("embed"),
                "switch to the embed layout",
            );
        }
        return view! { <share::EmbedView/> <StatusLine/> }.into_any();
    }
    share::sync_url_effect();

    view! {
        <a class="skip-link" href="#results">"Skip to the results"</a>
        <main class="app" data-ready="true">
            <header class="topbar">
                <h1>"Roofline Lab"</h1>
                <span class="tagline">
                    "Why does this take 50 ms and not 5? FLOPs, bytes and the roofline, after "
                    <em>"How to Scale Your Model"</em> ", part 1."
                    <Show when=move || scenario.with(|s| *s == Scenario::default())>
                        <span data-front-question="3">
                            " This plot is the chapter's Question 3: peak FLOP/s against B for D = F = 4096 and 1024."
                        </span>
                    </Show>
                </span>
                <share::ShareActions/>
            </header>
            <share::Notices notices=notices/>
            <div class="layout">
                <div class="forms">
                    <chips::ChipsPanel/>
                    <ops::OpsPanel/>
                    <options::OptionsPanel/>
                    <recipes::RecipesPanel/>
                </div>
                // The answer beside the question: the plot and the key results stay in view
                // (sticky) while the inputs scroll; on phones they come first.
                <div class="outputs">
                    <plots::PlotsPanel/>
                    <results::ResultsPanel/>
                </div>
            </div>
            <profile::ProfilePanel/>
        </main>
    }
    .into_any()
}
