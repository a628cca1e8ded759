//! The validation view (issue 25, `plot=validation`): the set's measurements against the
//! roofline's predictions, a log-log plot with y = x, the summaries per kind of work and per
//! chip family, and a table with one row per point, each opening its scenario. The report is
//! computed only while the view is open (view::validation).

use leptos::prelude::*;

use super::chart_canvas::ChartCanvas;
use super::ctx;
use crate::view::{self, ChartModel};

/// The view: summaries, plot and table.
#[component]
pub fn ValidationView() -> impl IntoView {
    let c = ctx();
    let report = StoredValue::new(view::validation::validation_report());
    let chart = Memo::new(move |_| {
        Some(ChartModel::Sweep(
            report.with_value(view::validation::validation_chart),
        ))
    });
    let summaries = report.with_value(|r| {
        let mut v = vec![(
            "overall".to_string(),
            view::validation::summary_text(&r.overall),
        )];
        for s in r.by_work.iter().chain(&r.by_family) {
            v.push((s.label.clone(), view::validation::summary_text(s)));
        }
        v
    });
    let terms = report.with_value(|r| {
        r.terms
            .iter()
            .map(|t| (t.term.id(), t.kept, view::validation::term_text(t)))
            .collect::<Vec<_>>()
    });
    let rows = report.with_value(|r| {
        r.rows
            .iter()
            .map(|row| {
                let p = row.point;
                let cells = view::validation::validation_cells(row);
                let href = p.link.to_string();
                view! {
                    <tr data-validation-id=p.id>
                        <td class="name" title=format!("{} — {}", p.conditions, p.quote)>
                            <a href=href>{p.id}</a>
                        </td>
                        <td>{p.work.as_str()}</td>
                        <td>{p.chip()}</td>
                        {cells.into_iter().map(|c| view! {
                            <td data-metric=c.metric data-value=c.value title=c.title>{c.text}</td>
                        }).collect_view()}
                        <td class="hint" title=p.source>{p.measured}</td>
                    </tr>
                }
            })
            .collect_view()
    });
    view! {
        <div class="validation" data-validation="true">
            <p class="hint">
                {report.with_value(|r| format!(
                    "Validation set {}: {} published measurements, each a scenario this page opens; \
                     the expected times are fitted without each point's own source.",
                    r.set_version, r.rows.len()
                ))}
            </p>
            <ul class="notes" data-validation-summary="true">
                {summaries.into_iter().map(|(k, t)| view! { <li data-group=k>{t}</li> }).collect_view()}
            </ul>
            <p class="hint">
                "Expected time = the bound's compute-, memory- and network-bound shares, each at \
                 the achievable fraction the set shows; the terms, and those the data do not support:"
            </p>
            <ul class="notes" data-validation-terms="true">
                {terms.into_iter().map(|(id, kept, t)| view! {
                    <li data-term=id data-kept=if kept { "true" } else { "false" }>{t}</li>
                }).collect_view()}
            </ul>
            <ChartCanvas model=chart dark=c.dark/>
            <div class="table-scroll">
                <table class="results-table validation-table">
                    <caption>"Measured against predicted, one row per published measurement"</caption>
                    <thead><tr>
                        <th scope="col">"point"</th><th scope="col">"work"</th><th scope="col">"chip"</th>
                        <th scope="col">"measured"</th><th scope="col">"predicted"</th>
                        <th scope="col">"expected (held out)"</th><th scope="col">"measured ÷ predicted"</th>
                        <th scope="col">"as published"</th>
                    </tr></thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
        </div>
    }
}
