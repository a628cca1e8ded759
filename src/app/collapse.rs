//! The fold of an input panel: a button in its heading that hides everything but the heading
//! (issue 17: on phones the inputs sit below the answer in collapsible sections).

use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// A disclosure button for the `<section>` it sits in: toggles the section's `collapsed`
/// class (the stylesheet hides all but the heading) and says so in `aria-expanded`.
#[component]
pub fn Collapse(
    /// What the section is called, for the button's name (`Chips`).
    #[prop(into)]
    what: String,
    /// Whether the section starts open (its `collapsed` class must agree: see
    /// [`folded_at_start`]).
    #[prop(default = true)]
    open: bool,
) -> impl IntoView {
    let (open, set_open) = signal(open);
    let toggle = move |ev: leptos::ev::MouseEvent| {
        let section = ev
            .current_target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .and_then(|e| e.closest("section").ok().flatten());
        let now = !open.get_untracked();
        set_open.set(now);
        if let Some(s) = section {
            let _ = s.class_list().toggle_with_force("collapsed", !now);
        }
    };
    view! {
        <button class="small collapse" data-collapse=what.clone() aria-expanded=move || open.get().to_string()
            aria-label=move || format!("{} {what}", if open.get() { "Hide" } else { "Show" })
            on:click=toggle>
            {move || if open.get() { "▾" } else { "▸" }}
        </button>
    }
}

/// Whether the input panels start folded: on a phone (at most 600 px wide, where the stylesheet
/// stacks the answer above them), so that the first screens hold the answer and the worked
/// examples rather than every field (issue 38, point 11). Decided once, when the page mounts.
pub fn folded_at_start() -> bool {
    web_sys::window()
        .and_then(|w| w.match_media("(max-width: 600px)").ok().flatten())
        .is_some_and(|m| m.matches())
}

/// The class of an input panel's `<section>`: `panel`, folded to its heading on a phone.
pub fn panel_class() -> &'static str {
    if folded_at_start() {
        "panel collapsed"
    } else {
        "panel"
    }
}
