//! A menu button (the WAI-ARIA pattern): a button that opens a list of actions. It replaces
//! `<select>`s that acted as buttons ("+ add chip…", "Export…"), which fired on every
//! ArrowDown: here nothing happens until an item is chosen with Enter, Space or a click.
//!
//! Keyboard: Enter, Space or ArrowDown on the button opens the menu on its first item
//! (ArrowUp: on its last); ArrowUp/ArrowDown move (wrapping), Home/End jump, Escape closes and
//! gives focus back to the button, Tab closes. Focus leaving the menu closes it.

use leptos::html;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// One group of a menu: a heading (empty for none) and its items as (id, label).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MenuGroup {
    /// The heading shown above the group's items; empty for none.
    pub heading: String,
    /// The items: (id passed to `on_pick`, visible label).
    pub items: Vec<(String, String)>,
}

/// A button opening a menu of actions.
#[component]
pub fn MenuButton(
    /// The menu's name: `data-menu` on its button and list (the test contract).
    #[prop(into)]
    name: String,
    /// The button's visible text.
    #[prop(into)]
    label: String,
    /// The accessible name of the list (`Add an operation`); the button is named by its text.
    #[prop(into)]
    aria_label: String,
    /// The items, in groups.
    groups: Vec<MenuGroup>,
    /// Called with the chosen item's id.
    on_pick: Callback<String>,
) -> impl IntoView {
    let (open, set_open) = signal(false);
    let button = NodeRef::<html::Button>::new();
    let list = NodeRef::<html::Div>::new();
    let id = format!("menu-{name}");
    // The items of the open list, in order.
    let items = move || -> Vec<web_sys::HtmlElement> {
        let Some(list) = list.get_untracked() else {
            return Vec::new();
        };
        let Ok(nodes) = list.query_selector_all("[role=menuitem]") else {
            return Vec::new();
        };
        (0..nodes.length())
            .filter_map(|i| nodes.item(i)?.dyn_into::<web_sys::HtmlElement>().ok())
            .collect()
    };
    let focus_item = move |pick: &dyn Fn(usize, Option<usize>) -> usize| {
        let all = items();
        if all.is_empty() {
            return;
        }
        let active = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.active_element());
        let now = active.and_then(|a| all.iter().position(|e| **e == a));
        let next = pick(all.len(), now).min(all.len() - 1);
        let _ = all[next].focus();
    };
    // Opens the list, then focuses its first (or last) item once it is in the DOM.
    let open_at = move |last: bool| {
        set_open.set(true);
        request_animation_frame(move || {
            focus_item(&|n, _| if last { n - 1 } else { 0 });
        });
    };
    let close = move |refocus: bool| {
        set_open.set(false);
        if refocus {
            if let Some(b) = button.get_untracked() {
                let _ = b.focus();
            }
        }
    };
    let on_button_key = move |ev: leptos::ev::KeyboardEvent| match ev.key().as_str() {
        "ArrowDown" => {
            ev.prevent_default();
            open_at(false);
        }
        "ArrowUp" => {
            ev.prevent_default();
            open_at(true);
        }
        _ => {}
    };
    let on_list_key = move |ev: leptos::ev::KeyboardEvent| {
        let step = |d: isize| {
            move |n: usize, now: Option<usize>| match now {
                Some(i) => (i as isize + d).rem_euclid(n as isize) as usize,
                None if d > 0 => 0,
                None => n - 1,
            }
        };
        match ev.key().as_str() {
            "ArrowDown" => {
                ev.prevent_default();
                focus_item(&step(1));
            }
            "ArrowUp" => {
                ev.prevent_default();
                focus_item(&step(-1));
            }
            "Home" => {
                ev.prevent_default();
                focus_item(&|_, _| 0);
            }
            "End" => {
                ev.prevent_default();
                focus_item(&|n, _| n - 1);
            }
            "Escape" => {
                ev.prevent_default();
                ev.stop_propagation();
                close(true);
            }
            "Tab" => close(false),
            _ => {}
        }
    };
    // Focus moving out of the button and the list closes the menu (a click elsewhere, Tab).
    let on_focus_out = move |ev: leptos::ev::FocusEvent| {
        let inside = ev
            .related_target()
            .and_then(|t| t.dyn_into::<web_sys::Node>().ok())
            .zip(
                ev.current_target()
                    .and_then(|t| t.dyn_into::<web_sys::Node>().ok()),
            )
            .is_some_and(|(t, wrap)| wrap.contains(Some(&t)));
        if !inside {
            set_open.set(false);
        }
    };
    let menu_name = name.clone();
    let list_label = aria_label.clone();
    let list_id = id.clone();
    view! {
        <div class="menu-wrap" on:focusout=on_focus_out>
            <button
                node_ref=button
                data-menu=name
                aria-haspopup="menu"
                aria-expanded=move || open.get().to_string()
                aria-controls=id
                on:click=move |_| if open.get_untracked() { close(false) } else { open_at(false) }
                on:keydown=on_button_key
            >
                {label}
            </button>
            <Show when=move || open.get()>
                <div
                    node_ref=list
                    class="menu"
                    role="menu"
                    id=list_id.clone()
                    data-menu-list=menu_name.clone()
                    aria-label=list_label.clone()
                    on:keydown=on_list_key
                >
                    {groups
                        .iter()
                        .map(|g| {
                            let heading = (!g.heading.is_empty())
                                .then(|| view! { <div class="menu-heading" role="presentation">{g.heading.clone()}</div> });
                            let items = g
                                .items
                                .iter()
                                .map(|(item, text)| {
                                    let item = item.clone();
                                    let chosen = item.clone();
                                    view! {
                                        <button
                                            role="menuitem"
                                            tabindex="-1"
                                            data-item=item
                                            on:click=move |_| {
                                                close(true);
                                                on_pick.run(chosen.clone());
                                            }
                                        >
                                            {text.clone()}
                                        </button>
                                    }
                                })
                                .collect_view();
                            let group_label = (!g.heading.is_empty()).then(|| g.heading.clone());
                            view! {
                                <div role="group" aria-label=group_label>
                                    {heading}
                                    {items}
                                </div>
                            }
                        })
                        .collect_view()}
                </div>
            </Show>
        </div>
    }
}
