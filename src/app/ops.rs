//! The operations panel: add, remove, duplicate, reorder; each kind shows its own fields.

use leptos::prelude::*;
use roofline::op::{FieldType, Op};

use super::ctx;
use super::field::Field;
use crate::view::OP_KINDS;

/// Every operation of the scenario as an editable card, plus "add operation".
#[component]
pub fn OpsPanel() -> impl IntoView {
    let c = ctx();
    let add = move |ev: leptos::ev::Event| {
        let kind = event_target_value(&ev);
        if let Ok(op) = Op::default_for(&kind) {
            c.scenario.update(|s| s.ops.push(op));
            c.generation.update(|g| *g += 1);
        }
        event_target::<web_sys::HtmlSelectElement>(&ev).set_value("");
    };
    view! {
        <section class="panel" aria-labelledby="ops-h">
            <h2 id="ops-h">
                "Operations" <span class="spacer"></span>
                <select name="add-op" aria-label="Add an operation" on:change=add>
                    <option value="">"+ add operation…"</option>
                    {OP_KINDS
                        .iter()
                        .map(|(id, label)| view! { <option value=*id>{*label}</option> })
                        .collect_view()}
                </select>
            </h2>
            {move || {
                c.generation.track();
                let n = c.scenario.with_untracked(|s| s.ops.len());
                (0..n).map(|i| view! { <OpCard index=i/> }).collect_view()
            }}
        </section>
    }
}

/// One operation: kind, label, and its fields.
#[component]
fn OpCard(
    /// Position of the operation in the scenario.
    index: usize,
) -> impl IntoView {
    let c = ctx();
    let Some(initial) = c.scenario.with_untracked(|s| s.ops.get(index).cloned()) else {
        return ().into_any();
    };
    let n_ops = move || c.scenario.with(|s| s.ops.len());
    let edit = move |f: &dyn Fn(&mut Vec<Op>)| {
        c.scenario.update(|s| f(&mut s.ops));
        c.generation.update(|g| *g += 1);
    };
    let change_kind = move |ev: leptos::ev::Event| {
        let kind = event_target_value(&ev);
        if let Ok(op) = Op::default_for(&kind) {
            edit(&|ops: &mut Vec<Op>| {
                if let Some(o) = ops.get_mut(index) {
                    let label = o.label.clone();
                    *o = op.clone();
                    o.label = label;
                }
            });
        }
    };
    let kind_id = initial.kind_id();
    let title = move || {
        c.scenario
            .with(|s| s.ops.get(index).map(Op::title).unwrap_or_default())
    };
    let label_commit = Callback::new(move |t: String| {
        if t.chars().count() > 80 {
            return Err("label: at most 80 characters".to_string());
        }
        c.scenario.update(|s| {
            if let Some(o) = s.ops.get_mut(index) {
                o.label = (!t.trim().is_empty()).then(|| t.trim().to_string());
            }
        });
        Ok(())
    });
    let fields = initial
        .fields()
        .iter()
        .map(|spec| {
            let key = spec.key;
            let text = initial.get(key).unwrap_or_default();
            let choices: Vec<(String, String)> = match spec.ty {
                FieldType::DType => {
                    let mut v: Vec<(String, String)> = roofline::dtype::DType::ALL
                        .iter()
                        .map(|d| (d.as_str().to_string(), d.as_str().to_string()))
                        .collect();
                    if let Some(none) = spec.none {
                        v.insert(0, (none.to_string(), none.to_string()));
                    }
                    v
                }
                FieldType::Choice(options) => options
                    .iter()
                    .map(|o| (o.to_string(), o.to_string()))
                    .collect(),
                _ => Vec::new(),
            };
            let help = spec.help;
            let commit = Callback::new(move |t: String| {
                let mut result = Ok(());
                c.scenario.update(|s| {
                    if let Some(o) = s.ops.get_mut(index) {
                        let mut next = o.clone();
                        match next.set(key, &t) {
                            Ok(()) => *o = next,
                            Err(e) => result = Err(e.to_string()),
                        }
                    }
                });
                result
            });
            view! {
                <Field
                    key=key
                    label=spec.label
                    initial=text
                    title=Signal::derive(move || help.to_string())
                    choices=choices
                    on_commit=commit
                />
            }
        })
        .collect_view();
    let label_text = initial.label.clone().unwrap_or_default();
    let is_first = index == 0;
    let is_last = move || index + 1 >= n_ops();
    let only_one = move || n_ops() <= 1;
    let up = move |_| {
        edit(&|ops: &mut Vec<Op>| {
            if index > 0 {
                ops.swap(index, index - 1)
            }
        })
    };
    let down = move |_| {
        edit(&|ops: &mut Vec<Op>| {
            if index + 1 < ops.len() {
                ops.swap(index, index + 1)
            }
        })
    };
    let dup = move |_| {
        edit(&|ops: &mut Vec<Op>| {
            if let Some(o) = ops.get(index).cloned() {
                ops.insert(index + 1, o)
            }
        })
    };
    let remove = move |_| {
        edit(&|ops: &mut Vec<Op>| {
            if ops.len() > 1 && index < ops.len() {
                ops.remove(index);
            }
        })
    };
    view! {
        <div class="card" data-op=index data-kind=kind_id>
            <div class="card-head">
                <select name="kind" aria-label="Kind of operation" on:change=change_kind>
                    {OP_KINDS
                        .iter()
                        .map(|(id, label)| view! { <option value=*id selected=*id == kind_id>{*label}</option> })
                        .collect_view()}
                </select>
                <span class="title">{title}</span>
                <button class="small" title="Move up" aria-label="Move up" disabled=is_first on:click=up>"↑"</button>
                <button class="small" title="Move down" aria-label="Move down" disabled=is_last on:click=down>"↓"</button>
                <button class="small" title="Duplicate" aria-label="Duplicate" on:click=dup>"dup"</button>
                <button class="small" title="Remove" aria-label="Remove this operation" disabled=only_one on:click=remove>"✕"</button>
            </div>
            <div class="fields">
                <Field key="label" label="label" initial=label_text text=true on_commit=label_commit/>
                {fields}
            </div>
        </div>
    }
    .into_any()
}
