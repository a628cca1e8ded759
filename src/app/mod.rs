//! The Leptos app (browser only). Components are thin: the logic lives in the core crate and in
//! [`crate::view`], both tested natively.

mod canvas_backend;
mod chart_canvas;
mod chips;
mod debounce;
mod field;
mod ops;
mod options;
mod plots;
mod recipes;
mod results;
mod share;
mod text_measure;

use leptos::prelude::*;
use roofline::scenario::Scenario;

use crate::view::SweepMetric;

pub use chart_canvas::draw_on;

/// Shared app state, provided as context.
#[derive(Clone, Copy)]
pub struct Ctx {
    /// The last valid scenario: every plot and result reads it.
    pub scenario: RwSignal<Scenario>,
    /// Bumped when the scenario is replaced as a whole (recipe, reset): forms re-render from it.
    pub generation: RwSignal<u64>,
    /// What the sweep plot shows on its y axis.
    pub sweep_metric: RwSignal<SweepMetric>,
    /// Log axes on the sweep plot.
    pub sweep_log_x: RwSignal<bool>,
    pub sweep_log_y: RwSignal<bool>,
    /// Dark theme (from `theme=` or `prefers-color-scheme`).
    pub dark: Signal<bool>,
    /// The chart models (computed once, read by the plots, exports and the embed).
    pub charts: plots::Charts,
}

impl Ctx {
    /// Replace the whole scenario (forms are rebuilt from it).
    pub fn replace(&self, s: Scenario) {
        self.scenario.set(s);
        self.generation.update(|g| *g += 1);
    }
}

/// The context, inside any component.
pub fn ctx() -> Ctx {
    expect_context::<Ctx>()
}

fn prefers_dark() -> bool {
    web_sys::window()
        .and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten())
        .map(|m| m.matches())
        .unwrap_or(false)
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
    if let (Some(panel), Some(body)) = (build(), doc.body()) {
        body.prepend_with_node_1(&panel).ok();
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
    leptos::mount::mount_to_body(App);
}

/// The whole page (or, with `embed=1`, the chromeless embed).
#[component]
pub fn App() -> impl IntoView {
    let loaded = share::load_from_location();
    let embed = loaded.scenario.embed;
    let theme = loaded.scenario.theme;
    let scenario = RwSignal::new(loaded.scenario);
    let (os_dark, set_os_dark) = signal(prefers_dark());
    if let Some(m) =
        web_sys::window().and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten())
    {
        let cb = wasm_bindgen::closure::Closure::<dyn Fn()>::new(move || {
            set_os_dark.set(prefers_dark())
        });
        m.set_onchange(Some(wasm_bindgen::JsCast::unchecked_ref(cb.as_ref())));
        cb.forget();
    }
    let dark = Signal::derive(move || match theme {
        Some(roofline::scenario::ColorScheme::Dark) => true,
        Some(roofline::scenario::ColorScheme::Light) => false,
        None => os_dark.get(),
    });
    if let Some(root) = document().document_element() {
        match theme {
            Some(roofline::scenario::ColorScheme::Dark) => {
                root.set_attribute("data-theme", "dark").ok()
            }
            Some(roofline::scenario::ColorScheme::Light) => {
                root.set_attribute("data-theme", "light").ok()
            }
            None => None,
        };
    }
    let (sweep_metric, sweep_log_x, sweep_log_y) = (
        RwSignal::new(SweepMetric::Achieved),
        RwSignal::new(false),
        RwSignal::new(false),
    );
    let ctx = Ctx {
        scenario,
        generation: RwSignal::new(0),
        sweep_metric,
        sweep_log_x,
        sweep_log_y,
        dark,
        charts: plots::Charts::new(scenario, sweep_metric, sweep_log_x, sweep_log_y),
    };
    provide_context(ctx);
    let notices = RwSignal::new(loaded.notices);

    if embed {
        if let Some(body) = document().body() {
            body.class_list().add_1("embed").ok();
        }
        return view! { <share::EmbedView/> }.into_any();
    }
    share::sync_url_effect();

    view! {
        <div class="app" data-ready="true">
            <header class="topbar">
                <h1>"Roofline Lab"</h1>
                <span class="tagline">
                    "Why does this take 50 ms and not 5? FLOPs, bytes and the roofline, after "
                    <em>"How to Scale Your Model"</em> ", part 1."
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
                <div class="outputs">
                    <plots::PlotsPanel/>
                </div>
            </div>
            <results::ResultsPanel/>
        </div>
    }
    .into_any()
}
