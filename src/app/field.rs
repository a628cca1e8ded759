//! One labelled form field: text input (or select) with the core's message next to it.

use leptos::html;
use leptos::prelude::*;

use super::AppError;
use crate::view::{FieldEdit, Slider, SLIDER_STEPS};

/// A labelled input controlled by the scenario: it shows `value` and applies its text on every
/// keystroke. When the text is invalid, the message is shown next to the field and the
/// scenario (plots, results, the link) goes back to the value the field had before this edit
/// began, never to a half-typed one (typing `2,000T` must not compute with the `2` typed on the
/// way), and the message says which value is shown. An edit ends when the input's `change`
/// fires with valid text. When `value` changes from elsewhere (a recipe, a reset, a change of
/// kind), the input takes it and its message goes; the echo of the field's own edit (`4k` read
/// as `4000`) does not overwrite what is being typed.
#[component]
pub fn Field(
    /// The field key: the input's `name` attribute (the test contract relies on it).
    #[prop(into)]
    key: String,
    /// The visible label.
    #[prop(into)]
    label: String,
    /// The value in the scenario, as text.
    #[prop(into)]
    value: Signal<String>,
    /// Tooltip: the field's help or the source of its number.
    #[prop(optional, into)]
    title: Signal<String>,
    /// Choices for a `<select>` as (value, label); empty for a text input.
    #[prop(optional, into)]
    choices: Signal<Vec<(String, String)>>,
    /// Free text (a label or name) rather than a number: no numeric keyboard on phones.
    #[prop(optional)]
    text: bool,
    /// The evidence tier of the field's number (`vendor_datasheet`; empty: none), written as
    /// `data-tier` on the field.
    #[prop(optional, into)]
    tier: Signal<String>,
    /// Sources disagree on the number: the label carries a mark, explained in the title.
    #[prop(optional, into)]
    disputed: Signal<bool>,
    /// A slider beside the text input for numbers people explore by dragging (`None`: none).
    #[prop(default = None)]
    slider: Option<Slider>,
    /// Applies the text; an error marks the field invalid and is shown next to it.
    on_commit: Callback<String, Result<(), AppError>>,
) -> impl IntoView {
    let (error, set_error) = signal(None::<String>);
    let id = format!("f-{}", next_id());
    let msg_id = format!("{id}-msg");
    // The edit's state and its rules (`view::FieldEdit`, natively tested); the message signal
    // follows it after every event.
    let edit = StoredValue::new(FieldEdit::new(value.get_untracked()));
    let sync = move || set_error.set(edit.with_value(|e| e.error().map(str::to_string)));
    let commit = move |text: String| on_commit.run(text).map_err(|e| e.to_string());
    let now = move || value.get_untracked();
    let name = label.clone();
    let apply = move |text: String| {
        edit.update_value(|e| e.choose(commit(text), now));
        sync();
    };
    let type_text = move |text: String| {
        edit.update_value(|e| e.type_text(text, &name, commit, now));
        sync();
    };
    let end_edit = move || edit.update_value(FieldEdit::change);
    let input = NodeRef::<html::Input>::new();
    // A value set by the slider: applied, and shown in the text input at once (a drag is not
    // typing, so there is no edit of the user's to protect).
    let slide_to = move |v: f64| {
        let r = commit(roofline::units::format_exact(v));
        if let Some(now) = edit.try_update_value(|e| e.slide(r, now)).flatten() {
            sync();
            if let Some(el) = input.get_untracked() {
                el.set_value(&now);
            }
        }
    };
    // The slider and its field are one tab stop (issue 24: every slider was a tab stop of its
    // own): on the field, Up/Down and Page Up/Down step as the slider does; Left/Right stay with
    // the caret.
    let field_key = move |ev: leptos::ev::KeyboardEvent| {
        let Some(sl) = slider else { return };
        let (up, page) = match ev.key().as_str() {
            "ArrowUp" => (true, false),
            "ArrowDown" => (false, false),
            "PageUp" => (true, true),
            "PageDown" => (false, true),
            _ => return,
        };
        if let Ok(v) = value.with_untracked(|t| roofline::units::parse_quantity(t)) {
            ev.prevent_default();
            slide_to(sl.step(v, up, page));
        }
    };
    let slider_name = label.clone();
    let slider_view = slider.map(|sl| {
        let position = move || {
            value.with(|t| roofline::units::parse_quantity(t).map_or(0.0, |v| sl.position_of(v)))
        };
        let on_key = move |ev: leptos::ev::KeyboardEvent| {
            let (up, page) = match ev.key().as_str() {
                "ArrowUp" | "ArrowRight" => (true, false),
                "ArrowDown" | "ArrowLeft" => (false, false),
                "PageUp" => (true, true),
                "PageDown" => (false, true),
                _ => return,
            };
            ev.prevent_default();
            if let Ok(v) = value.with_untracked(|t| roofline::units::parse_quantity(t)) {
                slide_to(sl.step(v, up, page));
            }
        };
        view! {
            <input type="range" class="slider" min="0" max=SLIDER_STEPS.to_string() step="1"
                tabindex="-1"
                aria-label=format!("{slider_name} (slider)")
                aria-valuetext=move || value.get()
                prop:value=move || position().to_string()
                on:input=move |ev| {
                    if let Ok(pos) = event_target_value(&ev).parse::<f64>() {
                        slide_to(sl.value_at(pos));
                    }
                }
                on:keydown=on_key
            />
        }
    });
    let control = if choices.with_untracked(Vec::is_empty) {
        Effect::new(move |_| {
            let v = value.get();
            if edit.try_update_value(|e| e.external(&v)) == Some(true) {
                if let Some(el) = input.get_untracked() {
                    el.set_value(&v);
                }
                sync();
            }
        });
        view! {
            <input
                node_ref=input
                id=id.clone()
                name=key
                type="text"
                inputmode=if text { "text" } else { "decimal" }
                autocomplete="off"
                spellcheck="false"
                // A property, not the attribute: a view rebuilt in place (another kind's
                // fields, another chip's layout) reuses this input, and only the property
                // changes the text of an input that has been typed in or set before (issue 38).
                prop:value=value.get_untracked()
                title=move || title.get()
                aria-invalid=move || if error.with(Option::is_some) { "true" } else { "false" }
                aria-describedby=msg_id.clone()
                on:input=move |ev| type_text(event_target_value(&ev))
                on:change=move |_| end_edit()
                on:keydown=field_key
            />
        }
        .into_any()
    } else {
        // Selects show canonical values, so they simply follow the scenario; a change from
        // elsewhere also clears a message left by a refused choice.
        Effect::new(move |first: Option<()>| {
            value.track();
            if first.is_some() {
                set_error.set(None);
            }
        });
        view! {
            <select
                id=id.clone()
                name=key
                title=move || title.get()
                on:change=move |ev| apply(event_target_value(&ev))
            >
                {move || {
                    // A select never shows a value it does not hold: a value that is not
                    // among the choices (a link's) is shown as itself, first.
                    let mut list = choices.get();
                    value.with(|now| {
                        if !list.iter().any(|(v, _)| v == now) {
                            list.insert(0, (now.clone(), format!("{now} (not among the choices)")));
                        }
                    });
                    list
                        .into_iter()
                        .map(|(v, text)| {
                            let this = v.clone();
                            view! {
                                <option value=v prop:selected=move || value.with(|now| *now == this)>
                                    {text}
                                </option>
                            }
                        })
                        .collect_view()
                }}
            </select>
        }
        .into_any()
    };
    view! {
        <div class="field" data-tier=move || Some(tier.get()).filter(|t| !t.is_empty())>
            <label for=id>{label}
                {move || disputed.get().then(|| view! {
                    <span class="disputed" data-disputed="true" title="sources disagree on this figure: the range and the value used are in the note">" ≠"</span>
                })}
            </label>
            {control}
            {slider_view}
            <span class="msg" id=msg_id role="alert">{move || error.get().unwrap_or_default()}</span>
            <span class="note" aria-hidden="true">{move || title.get()}</span>
        </div>
    }
}

fn next_id() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}
