//! The chips panel: pick one or more presets, edit any number in place, reset an edited preset.

use leptos::prelude::*;
use roofline::chip::{presets, Chip, ChipField};
use roofline::dtype::PeakKey;

use super::ctx;
use super::field::Field;

/// Every chip of the scenario as an editable card, plus "add chip".
#[component]
pub fn ChipsPanel() -> impl IntoView {
    let c = ctx();
    let add = move |ev: leptos::ev::Event| {
        let id = event_target_value(&ev);
        let chip = if id == "custom" {
            Some(Chip::custom("Custom chip"))
        } else {
            roofline::chip::preset(&id)
        };
        if let Some(chip) = chip {
            c.scenario.update(|s| s.chips.push(chip));
            c.generation.update(|g| *g += 1);
        }
        event_target::<web_sys::HtmlSelectElement>(&ev).set_value("");
    };
    view! {
        <section class="panel" aria-labelledby="chips-h">
            <h2 id="chips-h">
                "Chips" <span class="spacer"></span>
                <select name="add-chip" aria-label="Add a chip" on:change=add>
                    <option value="">"+ add chip…"</option>
                    {presets()
                        .into_iter()
                        .map(|p| {
                            let id = p.preset_id.clone().unwrap_or_default();
                            view! { <option value=id>{p.name.clone()}</option> }
                        })
                        .collect_view()}
                    <option value="custom">"custom (from scratch)"</option>
                </select>
            </h2>
            {move || {
                c.generation.track();
                let n = c.scenario.with_untracked(|s| s.chips.len());
                (0..n).map(|i| view! { <ChipCard index=i/> }).collect_view()
            }}
        </section>
    }
}

/// One chip: its name, every number (with its source on hover/focus), ridges per dtype.
#[component]
fn ChipCard(
    /// Position of the chip in the scenario.
    index: usize,
) -> impl IntoView {
    let c = ctx();
    // This chip alone: its title, notes and ridges update only when it changes, not on every
    // edit of an operation or another chip.
    let chip = Memo::new(move |_| c.scenario.with(|s| s.chips.get(index).cloned()));
    let initial = c
        .scenario
        .with_untracked(|s| s.chips.get(index).cloned())
        .unwrap_or_else(|| Chip::custom("?"));
    let title = move || {
        chip.with(|ch| {
            ch.as_ref()
                .map(|ch| {
                    if ch.is_edited() {
                        format!("{} (edited)", ch.name)
                    } else {
                        ch.name.clone()
                    }
                })
                .unwrap_or_default()
        })
    };
    let edited = move || chip.with(|ch| ch.as_ref().is_some_and(|ch| ch.is_edited()));
    let many = Memo::new(move |_| c.scenario.with(|s| s.chips.len() > 1));
    let reset = move |_| {
        c.scenario.update(|s| {
            if let Some(ch) = s.chips.get_mut(index) {
                ch.reset();
            }
        });
        c.generation.update(|g| *g += 1);
    };
    let remove = move |_| {
        c.scenario.update(|s| {
            if s.chips.len() > 1 && index < s.chips.len() {
                s.chips.remove(index);
            }
        });
        c.generation.update(|g| *g += 1);
    };
    let ridges = move || {
        chip.with(|ch| {
            ch.as_ref()
                .map(|ch| {
                    PeakKey::ALL
                        .iter()
                        .filter_map(|k| {
                            let peak = ch.peak_for(*k)?;
                            Some(format!(
                                "{}: {}",
                                k.as_str(),
                                roofline::units::format_sig(peak / ch.hbm, 3)
                            ))
                        })
                        .collect::<Vec<_>>()
                        .join("  ·  ")
                })
                .unwrap_or_default()
        })
    };
    let fields = ChipField::ALL
        .iter()
        .copied()
        .map(|f| {
            let text = initial.get_str(f).unwrap_or_default();
            let note = Signal::derive(move || {
                chip.with(|ch| {
                    ch.as_ref()
                        .map(|ch| format!("{} — {}", f.label(), ch.source(f)))
                        .unwrap_or_default()
                })
            });
            let commit = Callback::new(move |t: String| {
                let mut result = Ok(());
                c.scenario.update(|s| {
                    if let Some(ch) = s.chips.get_mut(index) {
                        let mut next = ch.clone();
                        match next.set_str(f, &t) {
                            Ok(()) => *ch = next,
                            Err(e) => result = Err(e.to_string()),
                        }
                    }
                });
                result
            });
            view! {
                <Field key=f.as_str() label=f.label() initial=text title=note text=f == ChipField::Name on_commit=commit/>
            }
        })
        .collect_view();
    view! {
        <div class="card" data-chip=index>
            <div class="card-head">
                <span class="title">{title}</span>
                <Show when=edited>
                    <button class="small" title="Back to the preset's figures" on:click=reset>"reset"</button>
                </Show>
                <Show when=move || many.get()>
                    <button class="small" aria-label="Remove this chip" on:click=remove>"✕"</button>
                </Show>
            </div>
            <div class="fields">{fields}</div>
            <div class="ridges" title="Critical intensity (ridge) against HBM: peak / HBM bandwidth, FLOPs per byte">
                "ridge vs HBM — " {ridges}
            </div>
        </div>
    }
}
