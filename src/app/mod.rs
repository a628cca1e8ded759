//! The Leptos app (browser only). Components are thin: the logic lives in the core crate and in
//! [`crate::view`], both tested natively.

mod canvas_backend;
mod chart_canvas;
mod chips;
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

/// Show a message instead of a blank page if anything panics.
fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        if let Some(doc) = web_sys::window().and_then(|w| w.document()) {
            if let Ok(div) = doc.create_element("div") {
                div.set_class_name("panic");
                div.set_attribute("role", "alert").ok();
                // Text, never markup.
                div.set_text_content(Some(
                    "Roofline Lab hit an internal error and stopped. Reload the page; if it happens again, \
                     please report the URL. Details are in the browser console.",
                ));
                if let Some(body) = doc.body() {
                    body.prepend_with_node_1(&div).ok();
                }
            }
        }
    }));
}

/// Entry point: mount the app on `<body>`.
pub fn mount() {
    install_panic_hook();
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
        Some(roofline::scenario::Theme::Dark) => true,
        Some(roofline::scenario::Theme::Light) => false,
        None => os_dark.get(),
    });
    if let Some(root) = document().document_element() {
        match theme {
            Some(roofline::scenario::Theme::Dark) => root.set_attribute("data-theme", "dark").ok(),
            Some(roofline::scenario::Theme::Light) => {
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
