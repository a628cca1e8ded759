//! The results table: one row per (operation, chip), each opening its worked derivation.

use std::collections::BTreeSet;

use leptos::prelude::*;

use super::ctx;
use crate::view::{self, ResultRow};

/// Column headers, in the order of [`ResultRow::cells`].
const HEAD: [&str; 13] = [
    "FLOPs",
    "bytes",
    "intensity",
    "T_math",
    "T_comms",
    "T_lower",
    "T_upper",
    "bound",
    "achieved",
    "% peak",
    "ridge",
    "critical",
    "fits",
];

/// Extra columns when a model workload is present.
const WORKLOAD_HEAD: [&str; 4] = ["tokens/s", "time/token", "parts bound by", "memory"];

/// Results and derivations.
#[component]
pub fn ResultsPanel() -> impl IntoView {
    let c = ctx();
    let rows = Memo::new(move |_| c.scenario.with(view::result_rows));
    let open = RwSignal::new(BTreeSet::<String>::new());
    view! {
        <section class="panel results" aria-labelledby="results-h">
            <h2 id="results-h">"Results" <span class="hint">"(click a row for its derivation)"</span></h2>
            <table class="results-table">
                <thead>
                    <tr>
                        <th scope="col">"operation · chip"</th>
                        {HEAD.iter().map(|h| view! { <th scope="col">{*h}</th> }).collect_view()}
                        {move || {
                            let any = rows.with(|r| r.iter().any(|r| !r.parts.is_empty()));
                            any.then(|| WORKLOAD_HEAD.iter().map(|h| view! { <th scope="col">{*h}</th> }).collect_view())
                        }}
                    </tr>
                </thead>
                <tbody>
                    // Keyed by content: an edit rebuilds only the rows whose figures changed.
                    <For each=move || rows.get() key=fingerprint let(r)>
                        <Row row=r open=open/>
                    </For>
                </tbody>
            </table>
        </section>
    }
}

/// Everything a row shows, hashed: its key in the table, so that an unchanged row keeps its DOM.
fn fingerprint(r: &ResultRow) -> u64 {
    use std::hash::{Hash, Hasher};
    fn feed(r: &ResultRow, h: &mut impl Hasher) {
        (&r.id, &r.op_key, r.chip, &r.name, r.class, &r.error).hash(h);
        for c in &r.cells {
            (c.metric, &c.value, &c.text, c.class, &c.title).hash(h);
        }
        r.parts.len().hash(h);
        for p in &r.parts {
            feed(p, h);
        }
    }
    let mut h = std::collections::hash_map::DefaultHasher::new();
    feed(r, &mut h);
    h.finish()
}

#[component]
fn Row(
    /// The row to show.
    row: ResultRow,
    /// Which rows have their derivation open (by row id).
    open: RwSignal<BTreeSet<String>>,
) -> impl IntoView {
    let id = row.id.clone();
    let id_toggle = id.clone();
    let is_open = Signal::derive(move || open.with(|o| o.contains(&id)));
    let toggle = move || {
        open.update(|o| {
            if !o.remove(&id_toggle) {
                o.insert(id_toggle.clone());
            }
        })
    };
    let toggle_key = toggle.clone();
    let class = row.class;
    let cells = match &row.error {
        Some(e) => view! { <td class="error-cell" colspan="13" data-metric="error" data-value=e.clone()>{e.clone()}</td> }.into_any(),
        None => row
            .cells
            .iter()
            .map(|cell| {
                view! {
                    <td data-metric=cell.metric data-value=cell.value.clone() class=cell.class title=cell.title.clone()>
                        {cell.text.clone()}
                    </td>
                }
            })
            .collect_view()
            .into_any(),
    };
    let row_for_derivation = row.clone();
    let parts = row.parts.clone();
    let has_parts = !parts.is_empty();
    let parts_key = format!("parts:{}", row.id);
    let parts_key_toggle = parts_key.clone();
    let parts_open = Signal::derive(move || open.with(|o| o.contains(&parts_key)));
    let toggle_parts = move |ev: leptos::ev::MouseEvent| {
        ev.stop_propagation();
        open.update(|o| {
            if !o.remove(&parts_key_toggle) {
                o.insert(parts_key_toggle.clone());
            }
        })
    };
    view! {
        <tr class=format!("result-row {class}") data-op=row.op_key.clone() data-chip=row.chip
            aria-expanded=move || is_open.get().to_string() tabindex="0" on:click=move |_| toggle()
            on:keydown=move |ev| if ev.key() == "Enter" { toggle_key() }>
            <td class="name">
                {has_parts.then(|| view! {
                    <button class="small" data-toggle-parts="true" aria-expanded=move || parts_open.get().to_string()
                        on:click=toggle_parts>{move || if parts_open.get() { "▾ parts" } else { "▸ parts" }}</button>
                    " "
                })}
                {row.name.clone()}
            </td>
            {cells}
        </tr>
        <Show when=move || is_open.get()>
            <tr class="derivation-row">
                <td class="derivation" colspan="14" data-derivation=row.op_key.clone()>
                    <ol>{row_for_derivation.derivation().into_iter().map(|l| view! { <li>{l}</li> }).collect_view()}</ol>
                </td>
            </tr>
        </Show>
        <Show when=move || parts_open.get()>
            {parts.clone().into_iter().map(|p| view! { <Row row=p open=open/> }).collect_view()}
        </Show>
    }
    .into_any()
}
