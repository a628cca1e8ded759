//! Recipes: one click loads a worked example of the chapter, with the chapter's answer next to ours.

use leptos::prelude::*;

use super::collapse;

use roofline::scenario::Scenario;

use super::ctx;
use super::share::load_as_new_entry;
use crate::view::recipes;

/// The recipe buttons and the comparison for the one loaded last.
#[component]
pub fn RecipesPanel() -> impl IntoView {
    let c = ctx();
    let (active, set_active) = signal(None::<usize>);
    let answer = move || {
        let i = active.get()?;
        let r = recipes().into_iter().nth(i)?;
        let ours = c.scenario.with(|s| (r.ours)(s));
        Some((r.chapter, ours))
    };
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
                        let scenario = r.scenario.clone();
                        let heading = first
                            .then(|| view! { <div class="recipe-part" data-part=r.part>{r.part}</div> });
                        view! {
                            {heading}
                            <button class="small" data-recipe=r.id title=r.summary
                                on:click=move |_| { load_as_new_entry(scenario.clone()); set_active.set(Some(i)); show_the_plot(); }>
                                {r.title}
                            </button>
                        }
                    })
                    .collect_view()}
                <button class="small" data-recipe="start-over" title="The first page's scenario: chapter 1's bf16 × int8 matmuls on TPU v5e (Back returns to this one)"
                    on:click=move |_| { load_as_new_entry(Scenario::default()); set_active.set(None); show_the_plot(); }>
                    "Start over"
                </button>
            </div>
            {move || answer().map(|(chapter, ours)| view! {
                <div class="recipe-answer" data-recipe-answer="true">
                    <div><b>"Chapter: "</b>{chapter}</div>
                    <div><b>"Roofline Lab: "</b><span data-ours="true">{ours}</span></div>
                </div>
            })}
        </section>
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
