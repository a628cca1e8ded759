//! The plots panel: sweep and roofline tabs, axis toggles, the live canvas, the key result line
//! and a visually hidden data table for screen readers.

use leptos::prelude::*;
use roofline::scenario::PlotKind;

use super::chart_canvas::ChartCanvas;
use super::ctx;
use crate::view::{self, ChartModel, SweepMetric};

/// The chart model in front, derived from the scenario (memoised: canvas, table and exports read it).
pub fn chart_model() -> Memo<ChartModel> {
    let c = ctx();
    Memo::new(move |_| {
        let metric = c.sweep_metric.get();
        let (lx, ly) = (c.sweep_log_x.get(), c.sweep_log_y.get());
        c.scenario.with(|s| match s.plot {
            PlotKind::Sweep => ChartModel::Sweep(view::sweep_chart(s, metric, lx, ly)),
            PlotKind::Roofline => ChartModel::Roofline(view::roofline_chart(s)),
        })
    })
}

/// Tabs + canvas + key line + hidden table.
#[component]
pub fn PlotsPanel() -> impl IntoView {
    let c = ctx();
    let model = chart_model();
    let plot = move || c.scenario.with(|s| s.plot);
    let set_plot = move |p: PlotKind| c.scenario.update(|s| s.plot = p);
    let metric_button = move |m: SweepMetric, text: &'static str| {
        let id = match m {
            SweepMetric::Achieved => "achieved",
            SweepMetric::Time => "time",
            SweepMetric::Fraction => "fraction",
            SweepMetric::TokensPerS => "tokens_per_s",
        };
        view! {
            <button
                class="small"
                data-sweep-metric=id
                aria-pressed=move || (c.sweep_metric.get() == m).to_string()
                on:click=move |_| c.sweep_metric.set(m)
            >{text}</button>
        }
    };
    let key_line = Memo::new(move |_| c.scenario.with(view::key_line));
    view! {
        <section class="panel" aria-label="Plots">
            <div class="plot-tabs" role="tablist">
                <button role="tab" data-plot="sweep" aria-selected=move || (plot() == PlotKind::Sweep).to_string()
                    on:click=move |_| set_plot(PlotKind::Sweep)>"Sweep"</button>
                <button role="tab" data-plot="roofline" aria-selected=move || (plot() == PlotKind::Roofline).to_string()
                    on:click=move |_| set_plot(PlotKind::Roofline)>"Roofline"</button>
                <span class="spacer"></span>
                <Show when=move || plot() == PlotKind::Sweep>
                    {metric_button(SweepMetric::Achieved, "FLOPs/s")}
                    {metric_button(SweepMetric::Time, "time")}
                    {metric_button(SweepMetric::Fraction, "% of peak")}
                    <Show when=move || c.scenario.with(|s| s.ops.iter().any(|o| o.kind_id() == "llm"))>
                        {metric_button(SweepMetric::TokensPerS, "tokens/s")}
                    </Show>
                    <label class="small"><input type="checkbox" name="log-x"
                        prop:checked=move || c.sweep_log_x.get()
                        on:change=move |ev| c.sweep_log_x.set(event_target_checked(&ev))/>" log x"</label>
                    <label class="small"><input type="checkbox" name="log-y"
                        prop:checked=move || c.sweep_log_y.get()
                        on:change=move |ev| c.sweep_log_y.set(event_target_checked(&ev))/>" log y"</label>
                </Show>
            </div>
            <ChartCanvas
                model=model
                dark=c.dark
                aria_label=Signal::derive(move || model.with(ChartModel::aria_label))
            />
            <p class="keyline" data-keyline="true">{move || key_line.get()}</p>
            <DataTable model=model/>
        </section>
    }
}

/// The plotted numbers as a table, visually hidden, for screen readers.
#[component]
pub fn DataTable(
    /// The chart whose data to list.
    #[prop(into)]
    model: Signal<ChartModel>,
) -> impl IntoView {
    view! {
        <div class="visually-hidden"><table data-chart-table="true">
            {move || {
                model.with(|m| {
                    let (head, rows) = m.table();
                    view! {
                        <caption>{m.aria_label()}</caption>
                        <thead><tr>{head.into_iter().map(|h| view! { <th scope="col">{h}</th> }).collect_view()}</tr></thead>
                        <tbody>
                            {rows.into_iter().map(|r| view! { <tr>{r.into_iter().map(|c| view! { <td>{c}</td> }).collect_view()}</tr> }).collect_view()}
                        </tbody>
                    }
                })
            }}
        </table></div>
    }
}
