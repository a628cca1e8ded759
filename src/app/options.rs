//! Options: FLOP convention, achievable fraction of peak, and the sweep (field, range, scale).

use leptos::prelude::*;
use roofline::analysis::FlopConvention;
use roofline::error::clip_text;
use roofline::units::{format_exact, parse_quantity};

use super::ctx;
use super::field::Field;
use crate::view::sweepable_fields;

/// The options panel.
#[component]
pub fn OptionsPanel() -> impl IntoView {
    let c = ctx();
    view! {
        <section class="panel" aria-labelledby="opts-h">
            <h2 id="opts-h">"Options"</h2>
            {move || {
                c.generation.track();
                let s = c.scenario.get_untracked();
                let convention = Callback::new(move |t: String| {
                    let conv = match t.as_str() {
                        "2mac" => FlopConvention::TwoPerMac,
                        "1mac" => FlopConvention::OnePerMac,
                        _ => return Err(format!("flops={t}: must be 2mac or 1mac")),
                    };
                    c.scenario.update(|s| s.options.convention = conv);
                    Ok(())
                });
                let derate = Callback::new(move |t: String| {
                    // `0.95` or `95%`, 0.01 to 1, as in links.
                    let v = roofline::analysis::parse_derate(&t).map_err(|e| e.to_string())?;
                    c.scenario.update(|s| s.options.derate = v);
                    Ok(())
                });
                let fields: Vec<(String, String)> = sweepable_fields(&s)
                    .into_iter()
                    .map(|(k, l)| (k.to_string(), format!("{k} — {l}")))
                    .collect();
                let sweep_field = Callback::new(move |t: String| {
                    let known = c
                        .scenario
                        .with_untracked(|s| sweepable_fields(s).iter().any(|(k, _)| *k == t));
                    if !known {
                        return Err(format!(
                            "sweep={}: not a numeric field of these operations",
                            clip_text(&t, 40)
                        ));
                    }
                    c.scenario.update(|s| s.sweep.field = t);
                    Ok(())
                });
                let bound = move |which: &'static str| {
                    Callback::new(move |t: String| {
                        let v = parse_quantity(&t).map_err(|e| e.to_string())?;
                        let mut sweep = c.scenario.with_untracked(|s| s.sweep.clone());
                        if !(v.is_finite() && v > 0.0) {
                            return Err(format!("{which}={}: must be a positive number", clip_text(t.trim(), 40)));
                        }
                        // Within the swept field's own range, as a link's sweep= is.
                        let spec = c.scenario.with_untracked(|s| {
                            s.ops.iter().find_map(|o| o.field(&sweep.field).cloned())
                        });
                        if let Some(spec) = spec {
                            spec.check(v).map_err(|e| format!("{which}: {e}"))?;
                        }
                        if which == "from" { sweep.from = v } else { sweep.to = v }
                        if sweep.from >= sweep.to {
                            return Err(format!("{which}={}: the range must go from low to high", clip_text(t.trim(), 40)));
                        }
                        if sweep.to / sweep.from > 1e12 {
                            return Err(format!("{which}={}: the range may span at most 12 decades", clip_text(t.trim(), 40)));
                        }
                        c.scenario.update(|s| s.sweep = sweep);
                        Ok(())
                    })
                };
                let scale = Callback::new(move |t: String| {
                    let log = match t.as_str() {
                        "log" => true,
                        "linear" => false,
                        _ => return Err("sweep points: must be linear or log".to_string()),
                    };
                    c.scenario.update(|s| s.sweep.log = log);
                    Ok(())
                });
                let conv_now = if s.options.convention == FlopConvention::OnePerMac { "1mac" } else { "2mac" };
                view! {
                    <div class="fields">
                        <Field
                            key="flops"
                            label="FLOP convention"
                            initial=conv_now
                            title=Signal::derive(|| "2 FLOPs per multiply-accumulate (the book, the vendors) or 1 (MLSys·im). 1 per MAC halves FLOPs, intensities and ridges; no time changes.".to_string())
                            choices=vec![("2mac".into(), "2 per MAC".into()), ("1mac".into(), "1 per MAC".into())]
                            on_commit=convention
                        />
                        <Field
                            key="derate"
                            label="achievable fraction"
                            initial=format_exact(s.options.derate)
                            title=Signal::derive(|| "Fraction of peak FLOPs/s actually reachable: 1 = peak; the book's footnote: 0.80–0.85 on GPUs, ~0.95 on TPUs".to_string())
                            on_commit=derate
                        />
                        <Field key="sweep" label="sweep field" initial=s.sweep.field.clone() choices=fields on_commit=sweep_field/>
                        <Field key="sweep-from" label="from" initial=format_exact(s.sweep.from) on_commit=bound("from")/>
                        <Field key="sweep-to" label="to" initial=format_exact(s.sweep.to) on_commit=bound("to")/>
                        <Field
                            key="sweep-scale"
                            label="sweep points"
                            initial=if s.sweep.log { "log" } else { "linear" }
                            choices=vec![("linear".into(), "linear".into()), ("log".into(), "log".into())]
                            on_commit=scale
                        />
                    </div>
                }
            }}
        </section>
    }
}
