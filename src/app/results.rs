//! The results table: one row per (operation, chip), each opening its worked derivation.

use std::collections::BTreeSet;
use std::sync::Arc;

use leptos::prelude::*;

use super::ctx;
use super::explain::{ExplainOpen, ExplainPanel};
use crate::view::columns::{
    figure_label, header_of, header_title, is_column, is_extra, is_kind_figure, HEAD, KIND_HEAD,
};
use crate::view::{self, Cell, ResultRow};
use roofline::inputs::BaseRow;

fn head_cell((metric, text): (&'static str, &'static str)) -> impl IntoView {
    let title = Some(header_title(metric)).filter(|t| !t.is_empty());
    view! { <th scope="col" data-col=metric title=title class=if is_extra(metric) { "extra" } else { "" }>{text}</th> }
}

/// Whether a row has figures for the last column (of a row's own kind).
fn has_kind_figures(r: &ResultRow) -> bool {
    r.error.is_none()
        && r.class != "serving-row"
        && r.cells.iter().any(|c| is_kind_figure(c.metric))
}

/// Results and derivations.
#[component]
pub fn ResultsPanel() -> impl IntoView {
    let c = ctx();
    // Rows re-used between edits are the same Arc: comparing them is a pointer check.
    let cache = StoredValue::new(view::RowCache::default());
    let base_cache = StoredValue::new(view::BaseCache::default());
    // Serving tails (issue 42): simulated in a worker, laid over the rows of their scenario.
    let sim = super::sim::Sim::new();
    let sim_key = Memo::new(move |_| c.scenario.with(view::serving_tails::sim_key));
    Effect::new(move |_| sim.ask(sim_key.get()));
    let rows = Memo::new_with_compare(
        move |_| {
            let mut rows = c.scenario.with(|s| {
                let rows = cache
                    .try_update_value(|cache| {
                        c.results.with(|r| view::result_rows_cached(s, r, cache))
                    })
                    .unwrap_or_default();
                base_cache
                    .try_update_value(|b| view::rows_with_base(s, rows.clone(), b))
                    .unwrap_or(rows)
            });
            sim.done.with(|d| {
                if let Some(d) = d {
                    sim_key.with(|k| d.overlay(k.as_deref(), &mut rows));
                }
            });
            rows
        },
        |a: Option<&Vec<Arc<ResultRow>>>, b: Option<&Vec<Arc<ResultRow>>>| match (a, b) {
            (Some(a), Some(b)) => {
                a.len() != b.len() || a.iter().zip(b).any(|(x, y)| !Arc::ptr_eq(x, y))
            }
            _ => true,
        },
    );
    // The column of a kind's own figures, before a model's columns: shown when any row has
    // such figures, and then every row has its cell (empty where it has none), so that each
    // cell stands under its header.
    let kind_col = Memo::new(move |_| rows.with(|r| r.iter().any(|r| has_kind_figures(r))));
    let open = RwSignal::new(BTreeSet::<String>::new());
    let (all_columns, set_all_columns) = signal(false);
    provide_context(ExplainOpen(RwSignal::new(None)));
    view! {
        <section class="panel results" id="results" tabindex="-1" aria-labelledby="results-h">
            <h2 id="results-h">
                "Results" <span class="hint">"(click a row for its derivation)"</span>
                <span class="spacer"></span>
                <button class="small" data-action="more-columns" aria-pressed=move || all_columns.get().to_string()
                    on:click=move |_| set_all_columns.update(|a| *a = !*a)>
                    {move || if all_columns.get() { "fewer columns" } else { "more columns" }}
                </button>
            </h2>
            <table class=move || if all_columns.get() { "results-table" } else { "results-table compact" }>
                <thead>
                    <tr>
                        <th scope="col">"operation · chip"</th>
                        {HEAD.into_iter().map(|h| {
                            // The baseline's column shows once there is a baseline.
                            let no_base = move || c.scenario.with(|s| s.base_row().is_none());
                            let class = move || if is_extra(h.0) || (h.0 == "vs_base" && no_base()) { "extra" } else { "" };
                            let title = Some(header_title(h.0)).filter(|t| !t.is_empty());
                            view! { <th scope="col" data-col=h.0 title=title class=class>{h.1}</th> }
                        }).collect_view()}
                        {move || kind_col.get().then(|| head_cell(KIND_HEAD))}
                    </tr>
                </thead>
                <tbody>
                    // Keyed by each row's id and shape: an edit updates the cells of the rows
                    // whose figures changed, in place; rows are rebuilt only when their shape
                    // (error or figures, which metrics, parts) changes.
                    <For each=move || rows.with(|rs| rs.iter().map(|r| shape(r)).collect::<Vec<_>>()) key=|k| k.clone() let((id, _))>
                        <LiveRow id=id rows=rows open=open kind_col=kind_col/>
                    </For>
                </tbody>
            </table>
            <ExplainPanel/>
        </section>
    }
}

/// A row's id and the shape of its DOM: the metric of each cell (or the error), and its parts.
type Shape = (String, u64);

fn shape(r: &ResultRow) -> Shape {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (&r.op_key, r.chip, r.class, r.error.is_some()).hash(&mut h);
    for c in &r.cells {
        c.metric.hash(&mut h);
    }
    // The part rows are rebuilt whenever their row changes (see `Row`): their count is all of
    // their shape that matters here, and reading it leaves them unformatted.
    r.parts.len().hash(&mut h);
    if let Some(p) = r.serving.as_deref() {
        shape(p).hash(&mut h);
    }
    (r.id.clone(), h.finish())
}

/// A top-level row that follows the row of its id in `rows`, cell by cell.
#[component]
fn LiveRow(
    /// The row id.
    id: String,
    /// All rows.
    rows: Memo<Vec<Arc<ResultRow>>>,
    /// Which rows have their derivation open (by row id).
    open: RwSignal<BTreeSet<String>>,
    /// Whether the table shows the column of a kind's own figures.
    kind_col: Memo<bool>,
) -> impl IntoView {
    let find = id.clone();
    // Set only when this row's figures changed: the cells of a row an edit left alone are not
    // woken (`super::distinct`).
    let (row, _) = super::distinct::distinct_by(
        move || rows.with(|rs| rs.iter().find(|r| r.id == find).cloned()),
        |a, b| match (a, b) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        },
    );
    let Some(initial) = row.get_untracked() else {
        return ().into_any();
    };
    view! { <Row initial=(*initial).clone() row=row open=open kind_col=kind_col/> }.into_any()
}

#[component]
fn Row(
    /// The row as first shown: its shape (cells, error, parts) and id.
    initial: ResultRow,
    /// The row's current figures (same shape; `None` once it is gone).
    #[prop(into)]
    row: Signal<Option<Arc<ResultRow>>>,
    /// Which rows have their derivation open (by row id).
    open: RwSignal<BTreeSet<String>>,
    /// Whether the table shows the column of a kind's own figures.
    kind_col: Memo<bool>,
) -> impl IntoView {
    let id = initial.id.clone();
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
    let class = initial.class;
    let cells = match &initial.error {
        Some(_) => {
            let error =
                move || row.with(|r| r.as_ref().and_then(|r| r.error.clone()).unwrap_or_default());
            view! { <td class="error-cell" colspan="13" data-metric="error" data-value=error>{error}</td> }.into_any()
        }
        // A serving row's figures do not line up with the analysis columns: one cell holds
        // them, each a labelled span carrying its `data-metric`.
        None if initial.class == "serving-row" => {
            // An expected figure's band follows it inline, as the op row's does (issue 40):
            // `_expected_lo` draws both ends, `_expected_hi` nothing of its own.
            let cells = &initial.cells;
            let at = |m: &str| cells.iter().position(|c| c.metric == m);
            let spans = cells
                .iter()
                .enumerate()
                .filter(|(_, cell)| !cell.metric.ends_with("_expected_hi"))
                .map(|(i, cell)| {
                    let Some(stem) = cell.metric.strip_suffix("_lo").filter(|s| s.ends_with("_expected")) else {
                        return view! { <span class="serving-cell"><LiveCell metric=cell.metric i=i row=row/></span> }.into_any();
                    };
                    let hi_metric = match stem {
                        "ttft_expected" => "ttft_expected_hi",
                        _ => "tpot_expected_hi",
                    };
                    let Some(hi) = at(hi_metric) else {
                        return ().into_any();
                    };
                    let shown = move || row.with(|r| r.as_ref().and_then(|r| r.cells.get(i)).is_some_and(|c| c.value != "none"));
                    view! {
                        <span class=move || if shown() { "band" } else { "band empty" }>
                            " (" <LiveCell metric=cell.metric i=i row=row/> "–"
                            <LiveCell metric=hi_metric i=hi row=row/> ")"
                        </span>
                    }.into_any()
                })
                .collect_view();
            view! { <td class="serving-cells" colspan="13">{spans}</td> }.into_any()
        }
        None => {
            let has_parts = !initial.parts.is_empty();
            // A row's own figures past the shared columns (a model step's throughput and
            // memory, a training step's MFU, days and cost, a collective's bus bandwidth) go
            // labelled into one last, headed cell (issues 24 and 38); those folded behind
            // "more columns" fold there too.
            let kind: Vec<(usize, &'static str)> = initial
                .cells
                .iter()
                .enumerate()
                .filter(|(_, c)| is_kind_figure(c.metric))
                .map(|(i, c)| (i, c.metric))
                .collect();
            let has_kind = !kind.is_empty();
            let kind_spans = move || {
                kind.iter()
                    .map(|&(i, metric)| {
                        let label = figure_label(metric, has_parts);
                        let class = if is_extra(metric) { "kind-cell extra" } else { "kind-cell" };
                        view! {
                            <span class=class>
                                {(!label.is_empty()).then(|| view! { <span class="kind-label">{label}" "</span> })}
                                <LiveCell metric=metric i=i row=row/>
                            </span>
                        }
                    })
                    .collect_view()
            };
            // The expected figure's band, inline in its column (issue 38, point 5).
            let band = |m: &str| initial.cells.iter().position(|c| c.metric == m);
            let (lo, hi) = (band("t_expected_lo"), band("t_expected_hi"));
            let column = move |(i, cell): (usize, &Cell)| {
                let part = move |f: fn(&Cell) -> String| {
                    move || {
                        row.with(|r| {
                            r.as_ref()
                                .and_then(|r| r.cells.get(i))
                                .map(f)
                                .unwrap_or_default()
                        })
                    }
                };
                let extra = if is_extra(cell.metric) { " extra" } else { "" };
                if cell.metric == "t_expected" {
                    return view! {
                        <td class="expected-cell" data-label=header_of(cell.metric) title=header_title(cell.metric)>
                            <LiveCell metric=cell.metric i=i row=row/>
                            {lo.zip(hi).map(|(lo, hi)| {
                                let shown = move || row.with(|r| r.as_ref().and_then(|r| r.cells.get(lo)).is_some_and(|c| c.value != "none"));
                                view! {
                                    <span class=move || if shown() { "band" } else { "band empty" }>
                                        " (" <LiveCell metric="t_expected_lo" i=lo row=row/> "–"
                                        <LiveCell metric="t_expected_hi" i=hi row=row/> ")"
                                    </span>
                                }
                            })}
                        </td>
                    }.into_any();
                }
                view! {
                    <td data-metric=cell.metric
                        data-label=header_of(cell.metric)
                        data-value=part(|c| c.value.clone())
                        class=move || format!("{}{extra}", row.with(|r| r.as_ref().and_then(|r| r.cells.get(i)).map(|c| c.class).unwrap_or_default()))
                        title=part(|c| c.title.clone())>
                        {part(|c| c.text.clone())}
                    </td>
                }.into_any()
            };
            let shared = initial
                .cells
                .iter()
                .enumerate()
                .filter(|(_, c)| is_column(c.metric))
                .map(column)
                .collect_view();
            // Under its header: present in every row while the table shows the column.
            let kind_cell = move || {
                kind_col.get().then(|| {
                    let label = has_kind.then_some(KIND_HEAD.1);
                    view! { <td class="kind-cells" data-label=label>{kind_spans()}</td> }
                })
            };
            view! { {shared} {kind_cell} }.into_any()
        }
    };
    let has_parts = !initial.parts.is_empty();
    let parts_key = format!("parts:{}", initial.id);
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
    let name = move || row.with(|r| r.as_ref().map(|r| r.name.clone()).unwrap_or_default());
    // An `llm` op's serving figures: a row of their own under the model's (always shown).
    let serving = initial.serving.as_deref().cloned().map(|initial| {
        let live = Memo::new(move |_| {
            row.with(|r| {
                r.as_ref()
                    .and_then(|r| r.serving.as_deref().cloned().map(Arc::new))
            })
        });
        view! { <Row initial=initial row=live open=open kind_col=kind_col/> }
    });
    view! {
        // A click anywhere on the row opens its derivation; for the keyboard and screen readers
        // the name is the disclosure button (a table row cannot be one).
        <tr class=format!("result-row {class}") data-op=initial.op_key.clone() data-chip=initial.chip
            data-sim=move || row.with(|r| r.as_deref().and_then(view::serving_tails::sim_state))
            on:click=move |_| toggle()>
            <td class="name">
                {has_parts.then(|| view! {
                    <button class="small" data-toggle-parts="true" aria-expanded=move || parts_open.get().to_string()
                        on:click=toggle_parts>{move || if parts_open.get() { "▾ parts" } else { "▸ parts" }}</button>
                    " "
                })}
                <button class="row-toggle" aria-expanded=move || is_open.get().to_string()
                    title="Show or hide the derivation"
                    on:click=move |ev| { ev.stop_propagation(); toggle_key() }>{name}</button>
                {row_actions(&initial)}
            </td>
            {cells}
        </tr>
        <Show when=move || is_open.get()>
            <tr class="derivation-row">
                <td class="derivation" colspan="14" data-derivation=initial.op_key.clone()>
                    // On phones the row's buttons live here, so a card stays one line taller at most.
                    {row_actions(&initial)}
                    <ol>{move || row.with(|r| r.as_ref().map(|r| r.derivation()).unwrap_or_default()).into_iter().map(|l| view! { <li>{l}</li> }).collect_view()}</ol>
                </td>
            </tr>
        </Show>
        {serving}
        <Show when=move || parts_open.get()>
            {move || {
                row.with(|r| r.as_ref().map(|r| r.parts.to_vec()).unwrap_or_default())
                    .into_iter()
                    .map(|p| {
                        let part = Memo::new({
                            let p = p.clone();
                            move |_| Some(Arc::new(p.clone()))
                        });
                        view! { <Row initial=p row=part open=open kind_col=kind_col/> }
                    })
                    .collect_view()
            }}
        </Show>
    }
    .into_any()
}

/// A top-level row's "base" (make it the baseline, or clear it) and "why?" (open its
/// explanation panel) buttons; nothing for part and serving rows.
fn row_actions(r: &ResultRow) -> Option<impl IntoView> {
    let i: usize = r.op_key.parse().ok()?;
    let j = r.chip;
    let c = ctx();
    let explain = expect_context::<ExplainOpen>().0;
    let is_base = move || {
        c.scenario
            .with(|s| s.base_row() == Some(BaseRow { op: i, chip: j }))
    };
    let set_base = move |ev: leptos::ev::MouseEvent| {
        ev.stop_propagation();
        let now = c.scenario.with_untracked(|s| s.base_row());
        let next = (now != Some(BaseRow { op: i, chip: j })).then_some(BaseRow { op: i, chip: j });
        c.scenario.update(|s| s.base = next);
    };
    let why = move |ev: leptos::ev::MouseEvent| {
        ev.stop_propagation();
        explain.update(|e| {
            *e = if *e == Some((i, j)) {
                None
            } else {
                Some((i, j))
            }
        });
    };
    Some(view! {
        <span class="row-actions">
        <button class="small" data-action="set-base" aria-pressed=move || is_base().to_string()
            title="Make this row the baseline every other row is compared with (again: no baseline)"
            on:click=set_base>{move || if is_base() { "baseline ✓" } else { "base" }}</button>
        " "
        <button class="small" data-action="explain" aria-expanded=move || (explain.get() == Some((i, j))).to_string()
            title="Why this time against the baseline, and what moves it"
            on:click=why>"why?"</button>
        </span>
    })
}

/// Figure `i` of a row as a `<span>` with its `data-metric`, following the row's current
/// values; an expected figure carries its basis (`data-basis`) and a short mark of it.
#[component]
fn LiveCell(
    /// The cell's `data-metric`.
    metric: &'static str,
    /// Its position in the row's cells.
    i: usize,
    /// The row's current figures.
    #[prop(into)]
    row: Signal<Option<Arc<ResultRow>>>,
) -> impl IntoView {
    let part = move |f: fn(&Cell) -> String| {
        move || {
            row.with(|r| {
                r.as_ref()
                    .and_then(|r| r.cells.get(i))
                    .map(f)
                    .unwrap_or_default()
            })
        }
    };
    let class = move || {
        row.with(|r| {
            r.as_ref()
                .and_then(|r| r.cells.get(i))
                .map(|c| c.class)
                .unwrap_or_default()
        })
    };
    let basis = move || {
        row.with(|r| {
            r.as_ref()
                .and_then(|r| r.cells.get(i))
                .and_then(|c| c.basis)
        })
    };
    let mark = move || {
        view::expected::basis_mark(metric, basis()).map(|(mark, words)| {
            view! { <sup class="basis-mark" title=format!("backed by {words}")>{mark}</sup> }
        })
    };
    view! {
        <span data-metric=metric data-value=part(|c| c.value.clone()) data-basis=basis class=class title=part(|c| c.title.clone())>
            {part(|c| c.text.clone())}{mark}
        </span>
    }
}
