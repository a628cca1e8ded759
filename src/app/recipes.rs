//! Recipes: one click loads a worked example of the chapter, with the chapter's answer next to
//! ours by the plot; the first screen offers four of them under the key line.

use leptos::prelude::*;

use super::collapse;

use roofline::inputs::Scenario;

use super::address::load_as_new_entry;
use super::ctx;
use crate::view::recipes;

/// Loads worked example `i` as a new history entry, remembers it as the one whose answer the
/// page shows, and brings the plot into view.
pub fn load_recipe(i: usize) {
    let Some(r) = recipes().into_iter().nth(i) else {
        return;
    };
    load_as_new_entry(r.scenario);
    ctx().recipe.set(Some(i));
    show_the_plot();
}

/// The worked example whose scenario `s` is, if any (Back to it); none for the front page's
/// scenario, which the title bar already names.
pub fn recipe_of(s: &Scenario) -> Option<usize> {
    if *s == Scenario::default() {
        return None;
    }
    recipes().iter().position(|r| r.scenario == *s)
}

/// The recipe buttons.
#[component]
pub fn RecipesPanel() -> impl IntoView {
    let c = ctx();
    view! {
        <section class="panel" aria-labelledby="recipes-h">
            <h2 id="recipes-h"><collapse::Collapse what="Worked examples"/>"Worked examples from the book"</h2>
            <div class="recipes">
                {recipes()
                    .into_iter()
                    .enumerate()
                    .scan(None, |last: &mut Option<&'static str>, (i, r)| {
                        // A heading where the book's part changes.
                        let first = last.replace(r.part) != Some(r.part);
                        Some((i, r, first))
                    })
                    .map(|(i, r, first)| {
                        let heading = first
                            .then(|| view! { <div class="recipe-part" data-part=r.part>{r.part}</div> });
                        view! {
                            {heading}
                            <button class="small" data-recipe=r.id title=r.summary
                                aria-pressed=move || (c.recipe.get() == Some(i)).to_string()
                                on:click=move |_| load_recipe(i)>
                                {r.title}
                            </button>
                        }
                    })
                    .collect_view()}
                <button class="small" data-recipe="start-over" title="The first page's scenario: chapter 1's bf16 × int8 matmuls on TPU v5e (Back returns to this one)"
                    on:click=move |_| { load_as_new_entry(Scenario::default()); c.recipe.set(None); show_the_plot(); }>
                    "Start over"
                </button>
            </div>
        </section>
    }
}

/// The loaded example's answer, the chapter's beside ours (computed from the scenario as it is
/// now, edits included), by the plot where the answer is read.
#[component]
pub fn RecipeAnswer() -> impl IntoView {
    let c = ctx();
    let answer = move || {
        let i = c.recipe.get()?;
        let r = recipes().into_iter().nth(i)?;
        let ours = c.scenario.with(|s| (r.ours)(s));
        Some((r.title, r.chapter, ours))
    };
    move || {
        answer().map(|(title, chapter, ours)| {
            view! {
                <div class="recipe-answer" data-recipe-answer="true">
                    <div><b>{title}" — the chapter: "</b>{chapter}</div>
                    <div><b>"Roofline Lab: "</b><span data-ours="true">{ours}</span></div>
                </div>
            }
        })
    }
}

/// Four worked examples as plain links under the key line (the first view drawn without the
/// app has the same links, which work before the app arrives): in the app a click loads the
/// example as the buttons do, a click with a modifier opens the link as links do.
#[component]
pub fn TryNext() -> impl IntoView {
    let c = ctx();
    view! {
        <nav class="try-next" aria-label="Worked examples to try">
            <span class="hint">"Try: "</span>
            {recipes::try_next()
                .into_iter()
                .map(|(i, id, title, query)| {
                    let click = move |ev: leptos::ev::MouseEvent| {
                        if ev.button() != 0 || ev.ctrl_key() || ev.meta_key() || ev.shift_key() || ev.alt_key() {
                            return;
                        }
                        ev.prevent_default();
                        load_recipe(i);
                    };
                    view! {
                        <a class="example-link" href=format!("?{query}") data-example-link=id
                            aria-current=move || (c.recipe.get() == Some(i)).then_some("true")
                            on:click=click>{title}</a>
                    }
                })
                .collect_view()}
        </nav>
    }
}

/// Loading an example never changes a plot the user cannot see: on a phone, where the examples
/// sit below the plot, the plot scrolls back into view.
fn show_the_plot() {
    let Some(plot) = document().query_selector(".outputs").ok().flatten() else {
        return;
    };
    let r = plot.get_bounding_client_rect();
    let height = window()
        .inner_height()
        .ok()
        .and_then(|h| h.as_f64())
        .unwrap_or(0.0);
    if r.top() < 0.0 || r.top() > height * 0.5 {
        plot.scroll_into_view();
    }
}
