//! What the page loads after its first plot (issue 27): data files the build writes beside the
//! page, each named by its content; `scripts/csp_post_build.py` writes each name into a
//! `<meta name=...>` of the page. The validation view's data loads when the view first opens
//! (app::validation); the catalog's source notes (the chip fields' hovers) load once the app
//! answers input, so the first plot never waits for them.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::view::SourceNotes;

thread_local! {
    static NOTES: std::cell::Cell<Option<RwSignal<SourceNotes>>> = const { std::cell::Cell::new(None) };
}

/// The source notes' state, read by the chip fields' hovers. Created by the first caller (the
/// app's root component).
pub fn source_notes() -> RwSignal<SourceNotes> {
    NOTES.with(|n| {
        n.get().unwrap_or_else(|| {
            let s = RwSignal::new(SourceNotes::Loading);
            n.set(Some(s));
            s
        })
    })
}

/// Starts the loads that wait for the app to answer input: the source notes. When they have
/// arrived (or failed), `<html data-source-notes="loaded">` (or `"failed"`) says so.
pub fn start_idle_loads() {
    let notes = source_notes();
    leptos::task::spawn_local(async move {
        let loaded = match fetch_named("source-notes", "source-notes.json").await {
            Ok(text) => SourceNotes::from_json(&text),
            Err(why) => SourceNotes::Failed(why),
        };
        let word = match &loaded {
            SourceNotes::Loaded(_) => "loaded",
            _ => "failed",
        };
        notes.set(loaded);
        if let Some(root) = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.document_element())
        {
            super::check(
                root.set_attribute("data-source-notes", word),
                "mark the source notes loaded",
            );
        }
    });
}

/// The text of the file named by `<meta name="{meta}" content=...>` (relative to the page), or
/// of `default` where the page names none (a page built without the post-build hook); why not,
/// naming the file.
pub async fn fetch_named(meta: &str, default: &str) -> Result<String, String> {
    use wasm_bindgen_futures::JsFuture;
    let window = web_sys::window().ok_or("no window")?;
    let url = window
        .document()
        .and_then(|d| {
            d.query_selector(&format!("meta[name=\"{meta}\"]"))
                .ok()
                .flatten()
        })
        .and_then(|m| m.get_attribute("content"))
        .filter(|c| !c.is_empty())
        .unwrap_or_else(|| default.to_string());
    let failed = |what: &str| format!("{url}: {what}");
    let resp = JsFuture::from(window.fetch_with_str(&url))
        .await
        .map_err(|_| failed("the request failed"))?;
    let resp: web_sys::Response = resp.dyn_into().map_err(|_| failed("no response"))?;
    if !resp.ok() {
        return Err(failed(&format!("HTTP {}", resp.status())));
    }
    JsFuture::from(resp.text().map_err(|_| failed("no body"))?)
        .await
        .map_err(|_| failed("the body could not be read"))?
        .as_string()
        .ok_or_else(|| failed("the body is not text"))
}
