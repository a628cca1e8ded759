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
) -> impl IntoView {
    let (open, set_open) = signal(true);
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
