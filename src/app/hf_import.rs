//! "Paste a config.json" on a card whose kind takes an architecture (`llm` since issue 13,
//! `train` since issue 22; `Op::takes_arch`): a text area
//! (`textarea[name=hf-config]`) and a file input read in the page (nothing is uploaded).
//! Text that reads as a config sets the card's architecture through the core's reader
//! ([`crate::view::import_hf_config`]); text that does not (malformed JSON, an unknown
//! `model_type`, a missing key) gets its message next to the field and changes nothing, so the
//! last good plot stays. User text is only ever a text node or an input's value.

use super::{ctx, js_detail};
use crate::view;
use leptos::prelude::*;

/// The import box of the operation of stable id `id`.
#[component]
pub fn HfImport(
    /// The operation's stable id.
    id: u64,
) -> impl IntoView {
    let c = ctx();
    // `Ok(summary)` after a good import, `Err(message)` after a refused one.
    let outcome = RwSignal::new(None::<Result<view::Imported, String>>);
    let apply = move |text: String| {
        let mut result = None;
        // The edit works on a copy and the import leaves it untouched when refused: a refused
        // text changes nothing and notifies no one.
        let _ = c.edit_op(id, |o| {
            result = Some(view::import_hf_config(o, &text));
            Ok(())
        });
        outcome.set(result);
    };
    let on_input = move |ev: leptos::ev::Event| apply(event_target_value(&ev));
    let on_file = move |ev: leptos::ev::Event| {
        let input: web_sys::HtmlInputElement = event_target(&ev);
        let Some(file) = input.files().and_then(|f| f.get(0)) else {
            return;
        };
        leptos::task::spawn_local(async move {
            let read = wasm_bindgen_futures::JsFuture::from(file.text()).await;
            match read {
                Ok(v) => apply(v.as_string().unwrap_or_default()),
                Err(e) => outcome.set(Some(Err(format!(
                    "could not read the file: {}",
                    js_detail(&e)
                )))),
            }
        });
    };
    let summary = move || {
        outcome.with(|o| match o {
            Some(Ok(i)) => i.summary.clone(),
            _ => String::new(),
        })
    };
    let details = move || {
        outcome.with(|o| match o {
            Some(Ok(i)) => i.details.join("\n"),
            _ => String::new(),
        })
    };
    let error = move || {
        outcome.with(|o| match o {
            Some(Err(e)) => e.clone(),
            _ => String::new(),
        })
    };
    let invalid = move || outcome.with(|o| matches!(o, Some(Err(_)))).to_string();
    let msg_id = format!("hf-config-{id}-msg");
    view! {
        <details class="hf-import" data-hf-import="true">
            <summary>"Import a Hugging Face config.json"</summary>
            <label class="hf-label">
                "paste config.json"
                <textarea name="hf-config" rows="6" spellcheck="false" aria-invalid=invalid
                    aria-describedby=msg_id.clone() on:input=on_input
                    placeholder="{\"model_type\": \"mixtral\", \"hidden_size\": 4096, ...}"></textarea>
            </label>
            <label class="hf-label">"or open a file "
                <input type="file" name="hf-config-file" accept=".json,application/json" on:change=on_file/>
            </label>
            <span class="msg" id=msg_id role="alert" data-hf-error="true">{error}</span>
            <span class="hf-summary" data-hf-summary="true" title=details>{summary}</span>
        </details>
    }
}
