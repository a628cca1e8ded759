//! The address bar as the browser's history: a scenario loaded whole becomes a step Back undoes,
//! and the link is written without a history entry per keystroke (`share`'s debounced sync
//! calls [`set_address`]).

use leptos::prelude::*;
use roofline::inputs::Scenario;

use super::{check, ctx};

/// Loads a whole new scenario (a worked example, starting over) as a step the browser's Back
/// undoes: the address first takes the scenario as it is now (an edit may not have reached it
/// yet), then a new history entry holds the loaded one.
pub fn load_as_new_entry(s: Scenario) {
    let c = ctx();
    set_address(&c.scenario.with_untracked(roofline::url::encode), false);
    c.replace(s);
    set_address(&c.scenario.with_untracked(roofline::url::encode), true);
}

/// Writes `?query` to the address bar, as a new history entry when `push`; nothing when the
/// address already holds it.
pub(super) fn set_address(query: &str, push: bool) {
    let Some(w) = web_sys::window() else {
        return;
    };
    let loc = w.location();
    let action = "update the address bar";
    if check(loc.search(), action).as_deref() == Some(&format!("?{query}")) {
        return;
    }
    let Some(path) = check(loc.pathname(), action) else {
        return;
    };
    let Some(h) = check(w.history(), action) else {
        return;
    };
    let url = format!("{path}?{query}");
    let done = if push {
        h.push_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url))
    } else {
        h.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url))
    };
    check(done, action);
}
