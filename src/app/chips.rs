//! The chips panel: pick one or more presets, edit any number in place, reset an edited preset.

use leptos::prelude::*;

use super::collapse;
use roofline::inputs::PeakKey;
use roofline::inputs::{presets, Chip, ChipField};

use super::field::Field;
use super::menu::{MenuButton, MenuGroup};
use super::{ctx, AppError};
use crate::keys::ListEdit;

/// Every chip of the scenario as an editable card (keyed by its stable id), plus "add chip".
#[component]
pub fn ChipsPanel() -> impl IntoView {
    let c = ctx();
    let add = Callback::new(move |id: String| {
        let chip = if id == "custom" {
            Some(Chip::custom("Custom chip"))
        } else {
            roofline::inputs::preset(&id)
        };
        if let Some(chip) = chip {
            c.edit_chips(ListEdit::Push(chip));
        }
    });
    let groups = vec![
        MenuGroup {
            heading: "Presets".into(),
            items: presets()
                .into_iter()
                .map(|p| (p.preset_id.clone().unwrap_or_default(), p.name.clone()))
                .collect(),
        },
        MenuGroup {
            heading: String::new(),
            items: vec![("custom".into(), "custom (from scratch)".into())],
        },
    ];
    view! {
        <section class=collapse::panel_class() aria-labelledby="chips-h">
            <h2 id="chips-h">
                <collapse::Collapse what="Chips" open=!collapse::folded_at_start()/>
                "Chips" <span class="spacer"></span>
                <MenuButton name="add-chip" label="+ add chip" aria_label="Add a chip" groups=groups on_pick=add/>
            </h2>
            <For each=move || c.keys.with(|k| k.chips.clone()) key=|id| *id let(id)>
                <ChipCard id=id/>
            </For>
        </section>
    }
}

/// One chip: its name, every number (with its source on hover/focus), ridges per dtype;
/// following the chip of id `id` wherever it is in the list.
#[component]
fn ChipCard(
    /// The chip's stable id.
    id: u64,
) -> impl IntoView {
    let c = ctx();
    let index = Memo::new(move |_| c.keys.with(|k| k.chip_index(id)));
    // This chip alone: its title, notes, ridges and fields update only when it changes, not
    // on every edit of an operation or another chip.
    let chip = Memo::new(move |_| {
        c.scenario
            .with(|s| index.get().and_then(|i| s.chips.get(i).cloned()))
    });
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
    let many = Memo::new(move |_| c.keys.with(|k| k.chips.len() > 1));
    let reset = move |_| {
        // The fields take the preset's figures from the scenario.
        let reset = c.edit_chip(id, |ch| {
            ch.reset();
            Ok(())
        });
        if let Err(e) = reset {
            super::report(e);
        }
    };
    let remove = move |_| {
        if let Some(i) = index.get_untracked() {
            c.edit_chips(ListEdit::Remove(i));
        }
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
    let field = move |f: ChipField| {
        // Shown the way people read it (`820 GB/s`, `128 MiB`), to the last digit: the
        // text reads back to the exact value, which the link keeps.
        let value = Memo::new(move |_| {
            chip.with(|ch| {
                let ch = ch.as_ref()?;
                match (ch.get(f), f.unit()) {
                    (Some(v), Some(unit)) => Some(roofline::units::format_field(v, unit)),
                    _ => ch.get_str(f),
                }
            })
            .unwrap_or_default()
        });
        // The source, its evidence tier and any disagreement between sources (view::evidence).
        let note = Memo::new(move |_| {
            let notes = super::lazy::source_notes();
            notes.with(|notes| {
                chip.with(|ch| {
                    ch.as_ref()
                        .map(|ch| crate::view::chip_field_note(ch, f, notes))
                })
            })
        });
        let title = Signal::derive(move || {
            note.with(|n| n.as_ref().map(|n| n.text.clone()).unwrap_or_default())
        });
        let tier = Signal::derive(move || {
            note.with(|n| {
                n.as_ref()
                    .and_then(|n| n.tier)
                    .unwrap_or_default()
                    .to_string()
            })
        });
        let disputed =
            Signal::derive(move || note.with(|n| n.as_ref().is_some_and(|n| n.disputed)));
        let commit = Callback::new(move |t: String| {
            c.edit_chip(id, |ch| ch.set_str(f, &t).map_err(AppError::from))
        });
        view! {
            <Field key=f.as_str() label=f.label() value=value title=title text=f == ChipField::Name
                    tier=tier disputed=disputed
                    slider=crate::view::chip_slider(f) on_commit=commit/>
        }
    };
    // Fields this chip does not have (a TPU's fp8, PCIe) fold behind "more fields". The layout
    // is the chip's as loaded: laid out again when a scenario is loaded whole (another preset
    // in this place), not while an edit empties or fills a field under the user's cursor.
    let layout = Memo::new(move |_| {
        c.loads.track();
        chip.with_untracked(|ch| {
            ChipField::ALL
                .iter()
                .map(|f| {
                    ch.as_ref()
                        .is_some_and(|ch| crate::view::is_folded_chip_field(ch, *f))
                })
                .collect::<Vec<bool>>()
        })
    });
    let fields = move || {
        let folded = layout.get();
        let fields_where = |fold: bool| -> Vec<ChipField> {
            ChipField::ALL
                .iter()
                .zip(&folded)
                .filter(|(_, f)| **f == fold)
                .map(|(f, _)| *f)
                .collect()
        };
        let (more, main) = (
            fields_where(true).into_iter(),
            fields_where(false).into_iter(),
        );
        let n_more = more.len();
        view! {
            {main.map(field).collect_view()}
            {(n_more > 0).then(|| view! {
                <details class="more-fields">
                    <summary>{format!("more fields ({n_more}): ones this chip has no figure for")}</summary>
                    <div class="fields">{more.map(field).collect_view()}</div>
                </details>
            })}
        }
    };
    view! {
        <div class="card" data-chip=move || index.get().unwrap_or_default()>
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
