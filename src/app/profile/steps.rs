//! The measured-profile panel's serving steps (issue 43): a trace's annotated steps against the
//! roofline ([`view::step_table`]) in a table of `tr[data-step]` rows, their medians by phase
//! and batch over the steady-state window, and the fit of the user's own engine from them:
//! refused by the guard of every fitted model, else applied to the scenario's `llm` operation
//! as `engine=own:<terms>` (in the link), shown as a removable chip.

use std::sync::Arc;

use leptos::prelude::*;
use roofline::profile::{fit_steps, OwnEngine};

use super::super::ctx;
use super::step_table::{StepsProgress, StepsTimed};
use crate::view::measured_steps;

/// Step rows (and groups) per page of the table: a page is drawn in a few milliseconds, and
/// a trace of thousands of steps is read a page at a time, with the count of them all.
const PAGE: usize = 50;

const STEP_HEAD: [&str; 11] = [
    "phase",
    "batch",
    "tokens",
    "keys (Σ context)",
    "measured",
    "T_lower",
    "expected",
    "p10",
    "p90",
    "measured ÷ T_lower",
    "binds",
];

const GROUP_HEAD: [&str; 6] = [
    "batch",
    "steps",
    "median measured",
    "median T_lower",
    "median expected",
    "median ratio",
];

/// A fit: the engine, its lines, and the guard's verdict (`Err`: why it may not be applied).
type EngineFit = Result<(OwnEngine, Vec<String>, Result<(), String>), String>;

/// The text of the scenario's first `llm` operation's own engine, if it has one.
fn own_text(s: &roofline::inputs::Scenario) -> Option<String> {
    s.ops
        .iter()
        .find_map(|o| o.llm())
        .and_then(|l| l.own_engine())
        .map(|e| e.format())
}

/// Sets the first `llm` operation's `engine` (an own engine's terms, or `generic`).
fn set_engine(c: super::super::Ctx, text: &str) {
    c.scenario.maybe_update(|s| {
        let Some(op) = s.ops.iter_mut().find(|o| o.llm().is_some()) else {
            return false;
        };
        let before = op.get("engine");
        op.set("engine", text).is_ok() && op.get("engine") != before
    });
}

/// The steps section (nothing when the profile has no steps).
#[component]
pub(super) fn StepsSection() -> impl IntoView {
    let c = ctx();
    // Computed with the kernels' table (`measured_memo`), which the roofline's markers read
    // too; or why the steps cannot be placed (no chip to place them on). A new trace's steps
    // come a frame before its kernels: until then, as soon as they are timed.
    let early = use_context::<StepsTimed>().map(|t| t.0);
    let table = Memo::new(move |_| {
        let has_steps = c
            .profile
            .with(|p| p.as_ref().is_some_and(|p| !p.steps.is_empty()));
        c.measured.with(|m| match m {
            Some(Ok(t)) => t.steps.clone(),
            Some(Err(e)) if has_steps => Some(Err(e.clone())),
            Some(Err(_)) => None,
            None => early.and_then(|e| e.get()),
        })
    });
    let fit = RwSignal::new(None::<EngineFit>);
    Effect::new(move |_| {
        table.track();
        fit.set(None);
    });
    let own = Memo::new(move |_| c.scenario.with(own_text));
    let progress = use_context::<StepsProgress>().map(|p| p.0);
    let timing = move || progress.and_then(|p| p.get());
    let do_fit = move |_| {
        let r = table.with_untracked(|t| match t {
            Some(Ok(t)) => fit_steps(&t.fit_obs).map(|f| {
                let lines = measured_steps::fit_lines(&f);
                (f.engine.rounded(), lines, f.check())
            }),
            Some(Err(e)) => Err(e.clone()),
            None => Err("import a trace with a serving engine's steps first".into()),
        });
        fit.set(Some(r));
    };
    let apply = move |_| {
        if let Some(Ok((e, _, Ok(())))) = fit.get_untracked() {
            set_engine(c, &e.format());
        }
    };
    let can_apply = move || fit.with(|f| matches!(f, Some(Ok((_, _, Ok(()))))));
    view! {
        <Show when=move || timing().is_some() && table.with(Option::is_none)>
            <p class="hint" data-steps-pending="true" role="status">{move || timing().map(|(done, all)| {
                format!("Timing the trace's {} steps against the roofline: {} done", measured_steps::thousands(all), measured_steps::thousands(done))
            })}</p>
        </Show>
        <Show when=move || table.with(Option::is_some)>
            <h3 class="small-h" id="steps-h">"Engine steps against the roofline"</h3>
            {move || own.get().map(|text| view! {
                <p class="engine-chip" data-engine-chip=text.clone()>
                    {format!("my engine {text} ")}
                    <button class="small" data-action="remove-engine" aria-label="remove my engine (back to engine=generic)"
                        title="back to the published engine (engine=generic)"
                        on:click=move |_| set_engine(c, "generic")>"✕"</button>
                </p>
            })}
            {move || match table.get() {
                Some(Ok(t)) => steps_view(t).into_any(),
                Some(Err(e)) => view! { <p class="msg" role="alert" data-steps-error="true">{e}</p> }.into_any(),
                None => ().into_any(),
            }}
            <div class="row">
                <button class="small" data-action="fit-engine" on:click=do_fit>"Fit my engine"</button>
                <Show when=can_apply>
                    <button class="small primary" data-action="apply-engine" on:click=apply>"Apply (engine=own)"</button>
                </Show>
            </div>
            <div data-engine-fit="true">
                {move || match fit.get() {
                    None => ().into_any(),
                    Some(Err(e)) => view! { <p class="msg" role="alert" data-engine-refused="true">{e}</p> }.into_any(),
                    Some(Ok((_, lines, verdict))) => view! {
                        <ul class="fit-summary">{lines.into_iter().map(|l| view! { <li>{l}</li> }).collect_view()}</ul>
                        {verdict.err().map(|why| view! {
                            <p class="msg" role="alert" data-engine-refused="true">{format!("Not applied: {why}.")}</p>
                        })}
                    }.into_any(),
                }}
            </div>
        </Show>
    }
}

fn cell(
    (label, (metric, value, text)): (&'static str, (&'static str, String, String)),
) -> impl IntoView {
    view! { <td data-metric=metric data-value=value data-label=label>{text}</td> }
}

/// A step's row.
fn step_row(r: &measured_steps::StepRow) -> impl IntoView {
    let basis = r.expected.as_ref().map_or("none", |e| e.basis);
    let source = r
        .expected
        .as_ref()
        .map_or_else(|why| why.clone(), |e| e.source.clone());
    view! {
        <tr data-step=r.index.to_string() data-window=r.window.id() data-basis=basis title=source>
            <td class="name" title=r.name.clone()><strong>{format!("#{}", r.index)}</strong></td>
            {STEP_HEAD.into_iter().zip(r.cells()).map(cell).collect_view()}
        </tr>
    }
}

/// A group's row.
fn group_row(g: &measured_steps::StepGroup) -> impl IntoView {
    let key = format!(
        "{}-{}",
        g.phase.id(),
        roofline::units::format_exact(g.batch)
    );
    view! {
        <tr data-step-group=key>
            <td class="name">{g.phase.id()}</td>
            <td data-metric="batch" data-value=roofline::units::format_exact(g.batch) data-label="batch">{roofline::units::format_exact(g.batch)}</td>
            {GROUP_HEAD[1..].iter().copied().zip(g.cells()).map(cell).collect_view()}
        </tr>
    }
}

/// The rows of page `page` of `total`: `(first, end)`, `end` exclusive.
fn page_range(page: usize, total: usize) -> (usize, usize) {
    let first = page.saturating_mul(PAGE).min(total);
    (first, first.saturating_add(PAGE).min(total))
}

/// Which rows of `total` are shown (`Steps 101–200 of 12,000`) and buttons for the pages
/// before and after; nothing when one page holds them all.
fn pager(what: &'static str, page: RwSignal<usize>, total: usize) -> impl IntoView {
    let pages = total.div_ceil(PAGE);
    (pages > 1).then(|| {
        let shown = move || {
            let (a, b) = page_range(page.get(), total);
            format!("{what} {}–{} of {}", measured_steps::thousands(a + 1), measured_steps::thousands(b), measured_steps::thousands(total))
        };
        let range = move || {
            let (a, b) = page_range(page.get(), total);
            format!("{}-{}", a + 1, b)
        };
        view! {
            <p class="row pager" data-pager=what data-count=total.to_string() data-shown=range>
                <button class="small" data-action="page-prev" aria-label=format!("previous {PAGE} {what}")
                    disabled=move || page.get() == 0
                    on:click=move |_| page.update(|p| *p = p.saturating_sub(1))>"◀"</button>
                <span class="hint" aria-live="polite">{shown}</span>
                <button class="small" data-action="page-next" aria-label=format!("next {PAGE} {what}")
                    disabled=move || { page.get() + 1 >= pages }
                    on:click=move |_| page.update(|p| *p = (*p + 1).min(pages - 1))>"▶"</button>
            </p>
        }
    })
}

/// The caption, the window, the steps and the groups, each table a page at a time.
fn steps_view(t: Arc<measured_steps::StepTable>) -> impl IntoView {
    let step_page = RwSignal::new(0usize);
    let group_page = RwSignal::new(0usize);
    let (steps_total, groups_total) = (t.rows.len(), t.groups.len());
    let rows = {
        let t = t.clone();
        move || {
            let (a, b) = page_range(step_page.get(), steps_total);
            t.rows[a..b].iter().map(step_row).collect_view()
        }
    };
    let groups = {
        let t = t.clone();
        move || {
            let (a, b) = page_range(group_page.get(), groups_total);
            t.groups[a..b].iter().map(group_row).collect_view()
        }
    };
    let head = |cols: &[&'static str]| {
        cols.iter()
            .map(|h| view! { <th scope="col">{*h}</th> })
            .collect_view()
    };
    view! {
        <p class="hint" data-steps-caption="true" data-steps-count=steps_total.to_string()>{t.caption.clone()}</p>
        <p class="hint" data-steps-window=t.window.steady.to_string()>{t.window.text()}</p>
        {t.faster_message().map(|m| view! {
            <p class="msg" role="alert" data-steps-faster=t.faster.to_string()>{m}</p>
        })}
        {pager("steps", step_page, steps_total)}
        <div class="table-scroll">
            <table class="results-table steps-table">
                <caption>"Each step: measured GPU time against the T_lower of that exact step"</caption>
                <thead><tr><th scope="col">"step"</th>{head(&STEP_HEAD)}</tr></thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
        {pager("groups", group_page, groups_total)}
        <div class="table-scroll">
            <table class="results-table step-groups-table">
                <caption>"Steady-state steps by phase and batch"</caption>
                <thead><tr><th scope="col">"phase"</th>{head(&GROUP_HEAD)}</tr></thead>
                <tbody>{groups}</tbody>
            </table>
        </div>
    }
}
