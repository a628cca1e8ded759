//! The explanation panel of a result row (issue 26): the row against the baseline part by part
//! and input by input, then what moves it. Its figures are computed only while it is open
//! (`view::explain_panel`: up to 2^n evaluations of T_lower for the split by input).

use leptos::prelude::*;

use super::ctx;
use crate::view::{self, explain::Against};

/// Which row's panel is open: (operation, chip); `None` when closed. Provided by the results
/// panel to its rows.
#[derive(Clone, Copy)]
pub struct ExplainOpen(pub RwSignal<Option<(usize, usize)>>);

/// The panel under the results table, while a row's "why?" has opened it.
#[component]
pub fn ExplainPanel() -> impl IntoView {
    let c = ctx();
    let open = expect_context::<ExplainOpen>().0;
    let panel = Memo::new(move |_| {
        let (i, j) = open.get()?;
        Some(c.scenario.with(|s| view::explain_panel(s, i, j)))
    });
    move || {
        let p = panel.get()?;
        let body = match p {
            Ok(p) => panel_body(p).into_any(),
            Err(e) => view! { <p class="error" data-explain-error="true">{e}</p> }.into_any(),
        };
        Some(view! {
            <section class="explain" id="explain" data-explain="true" aria-labelledby="explain-h">
                <h3 id="explain-h">
                    "Why this time, and what moves it"
                    <span class="spacer"></span>
                    <button class="small" data-action="close-explain" on:click=move |_| open.set(None)>"close"</button>
                </h3>
                {body}
            </section>
        })
    }
}

fn panel_body(p: view::ExplainPanel) -> impl IntoView {
    let against = match p.against {
        Ok(a) => against_view(a).into_any(),
        Err(why) => view! { <p class="hint" data-against="none">{why}</p> }.into_any(),
    };
    let levers = p
        .levers
        .into_iter()
        .map(|(key, v, words)| view! { <li data-lever=key data-value=v>{words}</li> })
        .collect_view();
    view! {
        <h4 data-explain-row="true">{p.title}</h4>
        {against}
        <h4>"What moves it"</h4>
        <p data-cheapest="true"><strong>{p.cheapest}</strong></p>
        <ol class="levers">{levers}</ol>
        <p class="hint">{format!("Elasticities: {}.", p.method)}</p>
    }
}

fn against_view(a: Against) -> impl IntoView {
    let parts = a
        .parts
        .into_iter()
        .map(|l| {
            let key = l.name.clone();
            view! {
                <tr data-part=key data-value=l.share_value>
                    <td class="name">{l.name}</td>
                    <td>{l.base}</td><td>{l.base_binding}</td>
                    <td>{l.row}</td><td>{l.row_binding}</td>
                    <td class="share">{l.share}</td>
                </tr>
            }
        })
        .collect_view();
    let inputs = a
        .inputs
        .into_iter()
        .map(|(key, v, words)| view! { <li data-input=key data-value=v>{words}</li> })
        .collect_view();
    let notes = a
        .notes
        .into_iter()
        .map(|n| view! { <li>{n}</li> })
        .collect_view();
    view! {
        <p data-against="true">{a.summary}</p>
        <div class="table-scroll">
            <table class="explain-parts">
                <caption>"By part, largest share of the change first"</caption>
                <thead><tr>
                    <th scope="col">"part"</th>
                    <th scope="col">"baseline"</th><th scope="col">"binds"</th>
                    <th scope="col">"this row"</th><th scope="col">"binds"</th>
                    <th scope="col">"share"</th>
                </tr></thead>
                <tbody>{parts}</tbody>
            </table>
        </div>
        <p class="hint" data-parts-total="true">{a.parts_total}</p>
        <h4>"By changed input"</h4>
        <ul class="inputs">{inputs}</ul>
        <ul class="notes hint">{notes}</ul>
    }
}
