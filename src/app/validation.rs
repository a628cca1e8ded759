//! The validation view (issue 25, `plot=validation`): the set's measurements against the
//! roofline's predictions, a log-log plot with y = x and each point's held-out expectation as a
//! marker on a p10–p90 bar, one plain sentence under it (issue 38), then the summaries per kind
//! of work and per chip family, and a table with one row per point, each opening its scenario.
//!
//! The build evaluates the set (view::validation::ValidationPage) and writes it next to the page;
//! `scripts/csp_post_build.py` names the file by its content and writes that name into
//! `<meta name="validation-data">`. The view fetches it the first time it opens (issue 27: a
//! family loaded on first use), says so while it loads, and says why if it cannot.

use std::sync::Arc;

use leptos::prelude::*;

use super::chart_canvas::ChartCanvas;
use super::ctx;
use crate::view::validation::ValidationPage;
use crate::view::{self, ChartModel};

/// The validation data as far as it has come: `None` while it is fetched.
pub type Data = RwSignal<Option<Result<Arc<ValidationPage>, String>>>;

thread_local! {
    /// The data's state, shared by the validation view and the load plot (whose measured rows
    /// travel in it), and whether its fetch has started.
    static DATA: std::cell::Cell<Option<Data>> = const { std::cell::Cell::new(None) };
    static FETCHED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// The validation data's state (created by the first caller, the app's root: `Charts::new`).
pub fn data() -> Data {
    DATA.with(|d| {
        d.get().unwrap_or_else(|| {
            let s = RwSignal::new(None);
            d.set(Some(s));
            s
        })
    })
}

/// [`data`], its fetch started by the first call (when the validation view or the load plot
/// first shows): `<html data-validation-data="loaded">` (or `"failed"`) once it has ended.
pub fn fetch() -> Data {
    let state = data();
    if FETCHED.with(|f| f.replace(true)) {
        return state;
    }
    leptos::task::spawn_local(async move {
        let got = load().await.map(Arc::new);
        let word = if got.is_ok() { "loaded" } else { "failed" };
        state.set(Some(got));
        if let Some(root) = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.document_element())
        {
            super::check(
                root.set_attribute("data-validation-data", word),
                "mark the validation data loaded",
            );
        }
    });
    state
}

/// The view: a line while the set loads, then summaries, plot and table (or why it failed).
#[component]
pub fn ValidationView() -> impl IntoView {
    let state = fetch();
    move || {
        match state.get() {
        None => view! {
            <div class="validation" data-validation="loading">
                <p class="hint">"Loading the validation set…"</p>
            </div>
        }
        .into_any(),
        Some(Err(why)) => view! {
            <div class="validation" data-validation="error">
                <p class="msg" role="alert">{format!("The validation set could not be loaded: {why}")}</p>
            </div>
        }
        .into_any(),
        Some(Ok(page)) => loaded(page).into_any(),
    }
    }
}

async fn load() -> Result<ValidationPage, String> {
    let text = super::lazy::fetch_named("validation-data", "validation.json").await?;
    ValidationPage::from_json(&text)
}

fn loaded(page: Arc<ValidationPage>) -> impl IntoView {
    let c = ctx();
    let chart = {
        let page = page.clone();
        Memo::new(move |_| Some(ChartModel::Sweep(view::validation::validation_chart(&page))))
    };
    let rows = page
        .rows
        .iter()
        .map(|row| {
            let cells = row.cells.clone();
            view! {
                <tr data-validation-id=row.id.clone()>
                    <td class="name" title=row.title.clone()>
                        <a href=row.link.clone()>{row.id.clone()}</a>
                    </td>
                    <td>{row.work.clone()}</td>
                    <td>{row.chip.clone()}</td>
                    {cells.into_iter().map(|c| {
                        let mark = view::expected::basis_mark(&c.metric, c.basis.as_deref()).map(|(mark, words)| view! {
                            <sup class="basis-mark" title=format!("backed by {words}")>{mark}</sup>
                        });
                        view! {
                            <td data-metric=c.metric data-value=c.value data-basis=c.basis title=c.title>{c.text}{mark}</td>
                        }
                    }).collect_view()}
                    <td class="hint" title=row.source.clone()>{row.measured.clone()}</td>
                </tr>
            }
        })
        .collect_view();
    // The scatter first and one plain sentence; the statistics below (issue 38, point 5).
    view! {
        <div class="validation" data-validation="true">
            <ChartCanvas model=chart dark=c.dark/>
            <p class="validation-lead" data-validation-lead="true">{view::validation::VIEW_SENTENCE}</p>
            <p class="hint">
                {format!(
                    "Validation set {}: {} measurements (published ones, and this project's own on a lent GPU), each a scenario this page opens; \
                     the expected times are fitted without each point's own source.",
                    page.set_version, page.rows.len()
                )}
            </p>
            <ul class="notes" data-validation-summary="true">
                {page.summaries.iter().map(|l| view! { <li data-group=l.group.clone()>{l.text.clone()}</li> }).collect_view()}
            </ul>
            // What the nested hold-out held out, and the old figure named for what it is
            // (issue 39); then band coverage per kind, the factors and biases with the figures
            // that decided them, and each tail with and without its terms.
            <p class="hint" data-validation-held-out="true">{page.held_out.clone()}</p>
            <p class="hint" data-validation-old="true">{page.old.clone()}</p>
            <p class="hint">"Band coverage: a point is covered when its measurement lies in the p10–p90 band of its own held-out expectation."</p>
            <ul class="notes" data-validation-coverage="true">
                {page.coverage.iter().map(|l| view! { <li data-group=l.group.clone()>{l.text.clone()}</li> }).collect_view()}
            </ul>
            <p class="hint">"Family factors and kind biases, each kept only where it lowers its points' held-out error:"</p>
            <ul class="notes" data-validation-factors="true">
                {page.factors.iter().map(|l| view! { <li data-group=l.group.clone()>{l.text.clone()}</li> }).collect_view()}
            </ul>
            <p class="hint">"The tails: classes of work the expectation missed, with and without the terms added for them:"</p>
            <ul class="notes" data-validation-tails="true">
                {page.tails.iter().map(|l| view! { <li data-group=l.group.clone()>{l.text.clone()}</li> }).collect_view()}
            </ul>
            <p class="hint">
                "Expected time = the bound's compute-, memory- and network-bound shares, each at \
                 the achievable fraction the set shows; the terms, and those the data do not support:"
            </p>
            <ul class="notes" data-validation-terms="true">
                {page.terms.iter().map(|t| view! {
                    <li data-term=t.id.clone() data-kept=if t.kept { "true" } else { "false" }>{t.text.clone()}</li>
                }).collect_view()}
            </ul>
            <div class="table-scroll">
                <table class="results-table validation-table">
                    <caption>"Measured against predicted, one row per measurement"</caption>
                    <thead><tr>
                        <th scope="col">"point"</th><th scope="col">"work"</th><th scope="col">"chip"</th>
                        <th scope="col">"measured"</th><th scope="col">"predicted"</th>
                        <th scope="col">"expected (held out)"</th><th scope="col">"measured ÷ predicted"</th>
                        <th scope="col">"as published"</th>
                    </tr></thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
        </div>
    }
}
