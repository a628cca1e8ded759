//! One labelled form field: text input (or select) with the core's message next to it.

use leptos::prelude::*;

/// A labelled input that applies its text on every keystroke. When the text is invalid, the
/// message is shown next to the field and the scenario (plots, results) keeps its last valid
/// state.
#[component]
pub fn Field(
    /// The field key: the input's `name` attribute (the test contract relies on it).
    #[prop(into)]
    key: String,
    /// The visible label.
    #[prop(into)]
    label: String,
    /// The initial text.
    #[prop(into)]
    initial: String,
    /// Tooltip: the field's help or the source of its number.
    #[prop(optional, into)]
    title: Signal<String>,
    /// Choices for a `<select>` as (value, label); empty for a text input.
    #[prop(optional)]
    choices: Vec<(String, String)>,
    /// Free text (a label or name) rather than a number: no numeric keyboard on phones.
    #[prop(optional)]
    text: bool,
    /// Applies the text; `Err(message)` marks the field invalid.
    on_commit: Callback<String, Result<(), String>>,
) -> impl IntoView {
    let (error, set_error) = signal(None::<String>);
    let id = format!("f-{}", next_id());
    let msg_id = format!("{id}-msg");
    // A message stays short whatever was typed (a pasted page would otherwise come back in it).
    let apply = move |text: String| set_error.set(on_commit.run(text).err().map(short_message));
    let control = if choices.is_empty() {
        view! {
            <input
                id=id.clone()
                name=key
                type="text"
                inputmode=if text { "text" } else { "decimal" }
                autocomplete="off"
                spellcheck="false"
                value=initial
                title=move || title.get()
                aria-invalid=move || if error.with(Option::is_some) { "true" } else { "false" }
                aria-describedby=msg_id.clone()
                on:input=move |ev| apply(event_target_value(&ev))
            />
        }
        .into_any()
    } else {
        view! {
            <select
                id=id.clone()
                name=key
                title=move || title.get()
                on:change=move |ev| apply(event_target_value(&ev))
            >
                {choices
                    .into_iter()
                    .map(|(value, text)| {
                        let selected = value == initial;
                        view! { <option value=value selected=selected>{text}</option> }
                    })
                    .collect_view()}
            </select>
        }
        .into_any()
    };
    view! {
        <div class="field">
            <label for=id>{label}</label>
            {control}
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

/// A message cut to 300 characters.
fn short_message(m: String) -> String {
    roofline::error::clip_text(&m, 299)
}
