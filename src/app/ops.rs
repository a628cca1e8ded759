//! The operations panel: add, remove, duplicate, reorder; each kind shows its own fields.

use leptos::prelude::*;

use super::collapse;
use super::distinct::Refreshed;
use roofline::inputs::{FieldType, Op};

use super::field::Field;
use super::menu::{MenuButton, MenuGroup};
use super::{ctx, AppError};
use crate::keys::ListEdit;
use crate::view;

/// Every operation of the scenario as an editable card (keyed by its stable id), plus "add
/// operation".
#[component]
pub fn OpsPanel() -> impl IntoView {
    let c = ctx();
    let add = Callback::new(move |kind: String| {
        if let Ok(op) = Op::default_for(&kind) {
            let log = log_axes_for(&op);
            c.edit_ops(ListEdit::Push(op));
            if log {
                set_log_axes(c);
            }
        }
    });
    view! {
        <section class=collapse::panel_class() aria-labelledby="ops-h">
            <h2 id="ops-h">
                <collapse::Collapse what="Operations" open=!collapse::folded_at_start()/>
                "Operations" <span class="spacer"></span>
                <MenuButton name="add-op" label="+ add operation" aria_label="Add an operation"
                    groups=op_kind_groups() on_pick=add/>
            </h2>
            <For each=move || c.keys.with(|k| k.ops.clone()) key=|id| *id let(id)>
                <OpCard id=id/>
            </For>
        </section>
    }
}

/// A training step added in the page opens its plot on log axes (issue 24, point 8): its
/// strategies' curves span decades of batch and chips and merge on linear ones.
fn log_axes_for(op: &Op) -> bool {
    op.traits().log_axes
}

/// Log x (with log-spaced points) and log y, as the axis checkboxes set them; the link carries
/// both, so links that say nothing keep their meaning.
fn set_log_axes(c: super::Ctx) {
    c.scenario.maybe_update(|s| {
        let before = (s.axes.log_x, s.axes.log_y, s.sweep.log);
        s.axes.log_x = true;
        s.axes.log_y = true;
        s.sweep.log = true;
        before != (true, true, true)
    });
}

/// The kinds offered by "add operation", grouped by family in the kind table's order.
fn op_kind_groups() -> Vec<MenuGroup> {
    let mut groups: Vec<MenuGroup> = Vec::new();
    for k in roofline::inputs::OpKind::KINDS {
        let item = (k.id.to_string(), k.label.to_string());
        match groups.iter_mut().find(|g| g.heading == k.family) {
            Some(g) => g.items.push(item),
            None => groups.push(MenuGroup {
                heading: k.family.to_string(),
                items: vec![item],
            }),
        }
    }
    groups
}

/// The choices of a field: dtypes (with the field's "none" word first) or its options.
fn choices_of(ty: FieldType, none: Option<&'static str>) -> Vec<(String, String)> {
    match ty {
        FieldType::DType => none
            .into_iter()
            .chain(roofline::inputs::DType::ALL.iter().map(|d| d.as_str()))
            .map(|d| (d.to_string(), d.to_string()))
            .collect(),
        FieldType::Choice(options) => options
            .iter()
            .map(|o| (o.to_string(), o.to_string()))
            .collect(),
        _ => Vec::new(),
    }
}

/// One operation: kind, label, and its fields, following the operation of id `id` wherever
/// it moves in the list.
#[component]
fn OpCard(
    /// The operation's stable id.
    id: u64,
) -> impl IntoView {
    let c = ctx();
    let index = Memo::new(move |_| c.keys.with(|k| k.op_index(id)));
    // This operation alone: its fields update only when it changes, not on every edit of
    // another operation or chip.
    let (op, refresh) = super::distinct::distinct(move || {
        c.scenario
            .with(|s| index.get().and_then(|i| s.ops.get(i).cloned()))
    });
    let kind_id = Memo::new(move |_| op.with(|o| o.as_ref().map(Op::kind_id).unwrap_or_default()));
    // The kinds that take an architecture (llm, train) get the config.json import.
    let takes_arch = Memo::new(move |_| op.with(|o| o.as_ref().is_some_and(Op::takes_arch)));
    let n_ops = Memo::new(move |_| c.keys.with(|k| k.ops.len()));
    let at = move || index.get_untracked().unwrap_or(usize::MAX);
    let change_kind = move |ev: leptos::ev::Event| {
        let kind = event_target_value(&ev);
        let _refresh = Refreshed(refresh);
        let result = c.edit_op(id, |o| {
            let mut next = Op::default_for(&kind)?;
            next.label = o.label.take();
            *o = next;
            Ok(())
        });
        match result {
            Err(e) => super::report(e),
            Ok(()) if Op::default_for(&kind).is_ok_and(|o| log_axes_for(&o)) => set_log_axes(c),
            Ok(()) => {}
        }
    };
    let title = move || op.with(|o| o.as_ref().map(Op::title).unwrap_or_default());
    let label_value = Signal::derive(move || {
        op.with(|o| o.as_ref().and_then(|o| o.label.clone()).unwrap_or_default())
    });
    let label_commit = Callback::new(move |t: String| {
        let _refresh = Refreshed(refresh);
        if t.chars().count() > roofline::url::MAX_TEXT_CHARS {
            return Err(AppError::invalid(
                "label",
                &t,
                format!("at most {} characters", roofline::url::MAX_TEXT_CHARS),
            ));
        }
        c.edit_op(id, |o| {
            o.label = (!t.trim().is_empty()).then(|| t.trim().to_string());
            Ok(())
        })
    });
    // The fields of the current kind: rebuilt when the kind changes, each following its value.
    // Fields most people leave alone fold behind "more fields".
    let more_open = Memo::new(move |_| op.with(|o| o.as_ref().is_some_and(view::op_more_open)));
    let fields = move || {
        let kind = kind_id.get();
        let Ok(template) = Op::default_for(kind) else {
            return ().into_any();
        };
        let field = move |spec: &'static roofline::inputs::FieldSpec| {
            let key = spec.key;
            let unit = spec.unit;
            // Quantities with a unit show it (`32 MiB`), to the last digit.
            let value = Memo::new(move |_| {
                op.with(|o| {
                    let o = o.as_ref()?;
                    match (unit, o.get_num(key)) {
                        (Some(unit), Some(v)) => Some(roofline::units::format_field(v, unit)),
                        _ => o.get(key),
                    }
                })
                .unwrap_or_default()
            });
            let help = spec.help;
            let commit = Callback::new(move |t: String| {
                // The field reads back what it now shows at once: bring `op` up to date.
                let _refresh = Refreshed(refresh);
                c.edit_op(id, |o| {
                    o.set(key, &t)?;
                    // Serving tails' fields judged against the chips (issue 42): a
                    // disaggregated ratio that does not fit, a host tier with no link.
                    if view::serving_tails::CHECKED_KEYS.contains(&key) {
                        c.scenario.with_untracked(|s| {
                            view::serving_tails::precheck(o, &s.chips, &s.options)
                        })?;
                    }
                    Ok(())
                })
            });
            // A value the choices do not list (an engine's fitted own:<terms>) is offered as
            // itself, so the select shows what the field holds.
            let (ty, none) = (spec.ty, spec.none);
            let choices = Signal::derive(move || {
                let mut list = choices_of(ty, none);
                let now = value.get();
                if !list.is_empty() && !now.is_empty() && !list.iter().any(|(v, _)| *v == now) {
                    list.push((now.clone(), now));
                }
                list
            });
            view! {
                <Field
                    key=key
                    label=spec.label
                    value=value
                    title=Signal::derive(move || help.to_string())
                    choices=choices
                    slider=view::op_slider(spec)
                    on_commit=commit
                />
            }
        };
        let (more, main): (Vec<_>, Vec<_>) = template.fields().iter().partition(|spec| spec.folds);
        let more = (!more.is_empty()).then(|| {
            let n = more.len();
            view! {
                <details class="more-fields" prop:open=move || more_open.get()>
                    <summary>{format!("more fields ({n})")}</summary>
                    <div class="fields">{more.into_iter().map(field).collect_view()}</div>
                </details>
            }
        });
        view! { {main.into_iter().map(field).collect_view()} {more} }.into_any()
    };
    let is_first = move || index.get() == Some(0);
    let is_last = move || index.get().is_none_or(|i| i + 1 >= n_ops.get());
    let only_one = move || n_ops.get() <= 1;
    let up = move |_| c.edit_ops(ListEdit::MoveUp(at()));
    let down = move |_| c.edit_ops(ListEdit::MoveDown(at()));
    let dup = move |_| c.edit_ops(ListEdit::Duplicate(at()));
    let remove = move |_| c.edit_ops(ListEdit::Remove(at()));
    view! {
        <div class="card" data-op=move || index.get().unwrap_or_default() data-kind=move || kind_id.get()>
            <div class="card-head">
                <select name="kind" aria-label="Kind of operation" on:change=change_kind>
                    {op_kind_groups()
                        .into_iter()
                        .map(|g| view! {
                            <optgroup label=g.heading>
                                {g.items
                                    .into_iter()
                                    .map(|(k, label)| {
                                        let this = k.clone();
                                        view! { <option value=k prop:selected=move || kind_id.get() == this>{label}</option> }
                                    })
                                    .collect_view()}
                            </optgroup>
                        })
                        .collect_view()}
                </select>
                <span class="title">{title}</span>
                <button class="small" title="Move up" aria-label="Move up" disabled=is_first on:click=up>"↑"</button>
                <button class="small" title="Move down" aria-label="Move down" disabled=is_last on:click=down>"↓"</button>
                <button class="small" title="Duplicate" aria-label="dup: duplicate this operation" on:click=dup>"dup"</button>
                <button class="small" title="Remove" aria-label="Remove this operation" disabled=only_one on:click=remove>"✕"</button>
            </div>
            {move || takes_arch.get().then(|| view! { <super::hf_import::HfImport id=id/> })}
            <div class="fields">
                <Field key="label" label="label" value=label_value text=true on_commit=label_commit/>
                {fields}
            </div>
        </div>
    }
}
