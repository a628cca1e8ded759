//! Options: FLOP convention, achievable fraction of peak, and the sweep (field, range, scale).

use leptos::prelude::*;

use super::collapse;
use roofline::inputs::ColorScheme;
use roofline::inputs::FlopConvention;
use roofline::units::{format_exact, parse_quantity};

use super::field::Field;
use super::{ctx, AppError};
use crate::view::{self, sweepable_fields};

/// The options panel: every field follows the scenario.
#[component]
pub fn OptionsPanel() -> impl IntoView {
    let c = ctx();
    let text_of =
        move |f: fn(&roofline::inputs::Scenario) -> String| Memo::new(move |_| c.scenario.with(f));
    let conv_now = text_of(|s| {
        if s.options.convention == FlopConvention::OnePerMac {
            "1mac".into()
        } else {
            "2mac".into()
        }
    });
    let derate_now = text_of(|s| format_exact(s.options.derate));
    let field_now = text_of(|s| s.sweep.field.clone());
    let from_now = text_of(|s| format_exact(s.sweep.from));
    let to_now = text_of(|s| format_exact(s.sweep.to));
    let scale_now = text_of(|s| if s.sweep.log { "log" } else { "linear" }.into());
    let theme_now = text_of(|s| s.theme.map_or("auto", |t| t.as_str()).into());
    let fields = Memo::new(move |_| {
        c.scenario.with(|s| {
            sweepable_fields(s)
                .into_iter()
                .map(|(k, l)| (k.to_string(), format!("{k} — {l}")))
                .collect::<Vec<_>>()
        })
    });
    let convention = Callback::new(move |t: String| {
        let conv = match t.as_str() {
            "2mac" => FlopConvention::TwoPerMac,
            "1mac" => FlopConvention::OnePerMac,
            _ => return Err(AppError::invalid("flops", &t, "must be 2mac or 1mac")),
        };
        c.set(|s| &mut s.options.convention, conv);
        Ok(())
    });
    let derate = Callback::new(move |t: String| {
        // `0.95` or `95%`, 0.01 to 1, as in links.
        let v = roofline::inputs::parse_derate(&t)?;
        c.set(|s| &mut s.options.derate, v);
        Ok(())
    });
    let sweep_field = Callback::new(move |t: String| {
        let known = c
            .scenario
            .with_untracked(|s| sweepable_fields(s).iter().any(|(k, _)| *k == t));
        if !known {
            return Err(AppError::invalid(
                "sweep",
                &t,
                "not a numeric field of these operations",
            ));
        }
        // A new field starts from its own scale, sampled log-spaced on a log x axis (the
        // link writes the range and `:log`).
        let range = c.scenario.with_untracked(|s| {
            s.ops.iter().find_map(|o| {
                o.field(&t)
                    .map(|spec| view::sweep_range_for(spec, o.get_num(&t)))
            })
        });
        c.scenario.maybe_update(|s| {
            if s.sweep.field == t {
                return false;
            }
            let before = (s.sweep.clone(), s.axes);
            s.sweep.field = t;
            if let Some((from, to)) = range {
                s.sweep.from = from;
                s.sweep.to = to;
                s.sweep.log = true;
                s.axes.log_x = true;
            }
            (s.sweep.clone(), s.axes) != before
        });
        Ok(())
    });
    let bound = move |which: &'static str| {
        Callback::new(move |t: String| {
            let v = parse_quantity(&t)?;
            let mut sweep = c.scenario.with_untracked(|s| s.sweep.clone());
            if !(v.is_finite() && v > 0.0) {
                return Err(AppError::invalid(which, &t, "must be a positive number"));
            }
            // Within the swept field's own range, as a link's sweep= is.
            let spec = c
                .scenario
                .with_untracked(|s| s.ops.iter().find_map(|o| o.field(&sweep.field).cloned()));
            if let Some(spec) = spec {
                spec.check(v)?;
            }
            if which == "from" {
                sweep.from = v
            } else {
                sweep.to = v
            }
            if sweep.from >= sweep.to {
                return Err(AppError::invalid(
                    which,
                    &t,
                    "the range must go from low to high",
                ));
            }
            if sweep.to / sweep.from > 1e12 {
                return Err(AppError::invalid(
                    which,
                    &t,
                    "the range may span at most 12 decades",
                ));
            }
            c.set(|s| &mut s.sweep, sweep);
            Ok(())
        })
    };
    let scale = Callback::new(move |t: String| {
        let log = match t.as_str() {
            "log" => true,
            "linear" => false,
            _ => {
                return Err(AppError::invalid(
                    "sweep-scale",
                    &t,
                    "must be linear or log",
                ))
            }
        };
        c.set(|s| &mut s.sweep.log, log);
        Ok(())
    });
    let theme = Callback::new(move |t: String| {
        let scheme = match t.as_str() {
            "auto" => None,
            other => Some(
                ColorScheme::from_id(other)
                    .ok_or_else(|| AppError::invalid("theme", &t, "must be auto, light or dark"))?,
            ),
        };
        c.set(|s| &mut s.theme, scheme);
        Ok(())
    });
    view! {
        <section class=collapse::panel_class() aria-labelledby="opts-h">
            <h2 id="opts-h"><collapse::Collapse what="Options" open=!collapse::folded_at_start()/>"Options"</h2>
            <div class="fields">
                <Field
                    key="flops"
                    label="FLOP convention"
                    value=conv_now
                    title=Signal::derive(|| "2 FLOPs per multiply-accumulate (the book, the vendors) or 1 (MLSys·im). 1 per MAC halves FLOPs, intensities and ridges; no time changes.".to_string())
                    choices=vec![("2mac".into(), "2 per MAC".into()), ("1mac".into(), "1 per MAC".into())]
                    on_commit=convention
                />
                <Field
                    key="derate"
                    label="achievable fraction"
                    value=derate_now
                    title=Signal::derive(|| "Fraction of peak FLOPs/s actually reachable: 1 = peak; the book's footnote: 0.80–0.85 on GPUs, ~0.95 on TPUs".to_string())
                    on_commit=derate
                />
                <Field key="sweep" label="sweep field" value=field_now choices=fields on_commit=sweep_field/>
                <Field key="sweep-from" label="from" value=from_now on_commit=bound("from")/>
                <Field key="sweep-to" label="to" value=to_now on_commit=bound("to")/>
                <Field
                    key="sweep-scale"
                    label="sweep points"
                    value=scale_now
                    choices=vec![("linear".into(), "linear".into()), ("log".into(), "log".into())]
                    on_commit=scale
                />
                <Field
                    key="theme"
                    label="theme"
                    value=theme_now
                    title=Signal::derive(|| "Colours of the page and plots: auto follows the system's light or dark setting; kept in the link (theme=)".to_string())
                    choices=vec![("auto".into(), "auto".into()), ("light".into(), "light".into()), ("dark".into(), "dark".into())]
                    on_commit=theme
                />
            </div>
        </section>
    }
}
