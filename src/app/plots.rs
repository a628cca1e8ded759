//! The plots panel: sweep / roofline / both / serving frontier / load tabs, axis toggles, the live canvases, the key result
//! line and a visually hidden data table per plot for screen readers.

use leptos::prelude::*;
use roofline::inputs::{PlotKind, Scenario, SweepAxes};

use super::chart_canvas::ChartCanvas;
use super::ctx;
use super::debounce::settled;
use crate::view::load_plot::bands::{add_bands, BandState};
use crate::view::load_plot::queue::queue_chart;
use crate::view::serving_tails::bands::{band_key, Bands};
use crate::view::{self, ChartModel};

/// The chart models, one memo per plot: each is computed only while its plot is shown and
/// notifies (redraws) only when its own model changed, so toggling the sweep's axes (part of
/// the scenario) leaves the roofline alone and an edit that moves no roofline point does not
/// redraw it.
#[derive(Clone, Copy)]
pub struct Charts {
    /// The sweep plot's model, `None` while it is hidden.
    pub sweep: Memo<Option<ChartModel>>,
    /// The roofline plot's model, `None` while it is hidden.
    pub roofline: Memo<Option<ChartModel>>,
    /// The serving frontier's model, `None` while it is hidden.
    pub frontier: Memo<Option<ChartModel>>,
    /// The load plot's panels (TTFT, TPOT, frontier), `None` while it is hidden.
    pub load: [Memo<Option<ChartModel>>; 3],
    /// The load plot's simulated bands: `running` until the worker's answer for the scenario
    /// shown has arrived, then `done` (the plot's `data-sim`).
    pub load_sim: Memo<&'static str>,
    /// The load plot's queue panel (a sweep chart over simulated time), `None` while hidden.
    pub load_queue: Memo<Option<ChartModel>>,
}

impl Charts {
    /// Memos over the scenario (its sweep axes included) and the measured profile (markers on
    /// the roofline plot: the second of [`super::profile::measured_memo`]'s memos).
    pub fn new(
        scenario: RwSignal<Scenario>,
        results: Memo<roofline::results::Results>,
        measured: Memo<super::profile::Measured>,
    ) -> Charts {
        // The sweeps are the store's (brought to each scenario with them while the sweep plot
        // shows: `Wanted::shown`); the chart only formats them.
        let sweep = Memo::new(move |_| {
            scenario.with(|s| {
                s.plot.shows_sweep().then(|| {
                    let SweepAxes { y, log_x, log_y } = s.axes;
                    let chart = results.with(|r| view::sweep_chart_of(s, r, y, log_x, log_y));
                    ChartModel::Sweep(chart)
                })
            })
        });
        let roofline = Memo::new(move |_| {
            let mut chart = scenario.with(|s| {
                s.plot
                    .shows_roofline()
                    .then(|| results.with(|r| view::roofline_chart_of(s, r)))
            })?;
            measured.with(|m| {
                if let Some(Ok(t)) = m {
                    view::add_measured(&mut chart, &t.rows, super::profile::MAX_MARKERS);
                    view::add_step_marks(&mut chart, t, super::profile::MAX_MARKERS);
                }
            });
            Some(ChartModel::Roofline(chart))
        });
        let frontier = Memo::new(move |_| {
            scenario.with(|s| {
                s.plot
                    .shows_frontier()
                    .then(|| ChartModel::Frontier(view::frontier_chart(s)))
            })
        });
        let (load, load_sim, load_queue) = load_panels(scenario);
        Charts {
            sweep,
            roofline,
            frontier,
            load,
            load_sim,
            load_queue,
        }
    }

    /// Runs `f` on the chart in front (the sweep when both are shown), without tracking.
    pub fn with_front<R>(&self, f: impl FnOnce(&ChartModel) -> R) -> Option<R> {
        let mut f = Some(f);
        let r = self
            .sweep
            .with_untracked(|m| m.as_ref().map(|m| (f.take().unwrap())(m)));
        r.or_else(|| {
            self.roofline
                .with_untracked(|m| m.as_ref().and_then(|m| f.take().map(|f| f(m))))
        })
        .or_else(|| {
            self.frontier
                .with_untracked(|m| m.as_ref().and_then(|m| f.take().map(|f| f(m))))
        })
        .or_else(|| {
            self.load[0].with_untracked(|m| m.as_ref().and_then(|m| f.take().map(|f| f(m))))
        })
    }
}

/// The load plot's three panels, whether its simulated bands are in (`running`/`done`), and
/// its queue panel.
type LoadPanels = (
    [Memo<Option<ChartModel>>; 3],
    Memo<&'static str>,
    Memo<Option<ChartModel>>,
);

/// The load plot's three panels: the curves are computed once per scenario while the plot is
/// shown (timed on the page's performance timeline as `load-plot-model`, which `./dev bench`
/// reads), the measured rows laid on once the validation data (fetched when the plot first
/// shows) has arrived, and the simulated bands once the simulation worker has answered for
/// this scenario ([`load_bands`]).
fn load_panels(scenario: RwSignal<Scenario>) -> LoadPanels {
    use crate::charts::LoadPanel;
    use crate::view::load_plot::{load_chart, load_data, Rows};
    let validation = super::validation::data();
    let (bands, band_key, load_sim) = load_bands(scenario);
    let data = Memo::new(move |_| {
        scenario.with(|s| {
            s.plot.shows_load().then(|| {
                let perf = web_sys::window().and_then(|w| w.performance());
                if let Some(p) = &perf {
                    p.clear_marks_with_mark_name("load-plot-start");
                    super::check(p.mark("load-plot-start"), "mark the load plot's start");
                }
                let d = load_data(s);
                if let Some(p) = &perf {
                    // The latest only (the timeline keeps no history of edits).
                    p.clear_measures_with_measure_name("load-plot-model");
                    super::check(
                        p.measure_with_start_mark("load-plot-model", "load-plot-start"),
                        "measure the load plot's model",
                    );
                }
                d
            })
        })
    });
    Effect::new(move |_| {
        if data.with(Option::is_some) {
            super::validation::fetch();
        }
    });
    let panels = LoadPanel::ALL.map(|panel| {
        Memo::new(move |_| {
            data.with(|d| {
                let d = d.as_ref()?;
                let mut chart = validation.with(|v| {
                    let rows = match v {
                        None => Rows::Loading,
                        Some(Err(why)) => Rows::Failed(why),
                        Some(Ok(page)) => Rows::Loaded(&page.load_rows),
                    };
                    load_chart(d.as_ref(), panel, rows)
                });
                if let Some(d) = d.as_ref() {
                    band_key.with(|k| {
                        bands.done.with(|b| {
                            let state = match (k, b) {
                                (Some(k), Some(b)) if b.key == *k => BandState::Done(b),
                                _ => BandState::Running,
                            };
                            add_bands(&mut chart, d, state);
                        })
                    });
                }
                Some(ChartModel::Load(chart))
            })
        })
    });
    let queue = Memo::new(move |_| {
        data.with(|d| {
            let d = d.as_ref()?.as_ref()?;
            let chart = band_key.with(|k| {
                bands.done.with(|b| {
                    let state = match (k, b) {
                        (Some(k), Some(b)) if b.key == *k => BandState::Done(b),
                        _ => BandState::Running,
                    };
                    queue_chart(d, state)
                })
            });
            Some(ChartModel::Sweep(chart))
        })
    });
    (panels, load_sim, queue)
}

/// The load plot's simulated bands: asked of their own worker by the scenario's band key
/// while the plot shows (`view::serving_tails::bands`); the key, and whether the answer for
/// it has arrived (`running` / `done`).
fn load_bands(
    scenario: RwSignal<Scenario>,
) -> (
    super::sim::Sim<Bands>,
    Memo<Option<String>>,
    Memo<&'static str>,
) {
    let bands = super::sim::Sim::bands();
    let key = Memo::new(move |_| scenario.with(band_key));
    Effect::new(move |_| bands.ask(key.get()));
    let state = Memo::new(move |_| {
        key.with(|k| {
            bands.done.with(|b| match (k, b) {
                (Some(k), Some(b)) if b.key == *k => "done",
                _ => "running",
            })
        })
    });
    (bands, key, state)
}

/// Tabs + canvases + key line + hidden tables.
#[component]
pub fn PlotsPanel() -> impl IntoView {
    let c = ctx();
    let plot = Memo::new(move |_| c.scenario.with(|s| s.plot));
    let axes = Memo::new(move |_| c.scenario.with(|s| s.axes));
    let set_plot = move |p: PlotKind| c.set(|s| &mut s.plot, p);
    // The y metrics this plot offers, and the one it shows (the training plot shows step time
    // or MFU, whatever else the link's `y=` says).
    let buttons = Memo::new(move |_| c.scenario.with(view::y_buttons));
    let metric_buttons = move || {
        buttons
            .with(|(list, _)| list.clone())
            .into_iter()
            .map(|(m, text)| {
                view! {
                    <button
                        class="small"
                        data-sweep-metric=m.as_str()
                        aria-pressed=move || buttons.with(|(_, shown)| *shown == m).to_string()
                        on:click=move |_| c.set(|s| &mut s.axes.y, m)
                    >{text}</button>
                }
            })
            .collect_view()
    };
    // Tabs (the ARIA pattern): one tab stop, the selected one; arrows, Home and End select and
    // focus the neighbour.
    let has_llm = Memo::new(move |_| c.scenario.with(|s| s.ops.iter().any(|o| o.traits().serves)));
    // The load plot's tab: with an llm operation under load=concurrency|rate.
    let has_load = Memo::new(move |_| {
        c.scenario
            .with(|s| view::serving_load::load_pair(s).is_some())
    });
    let tab_key = move |ev: leptos::ev::KeyboardEvent| {
        // The frontier's tab is shown only with an llm operation (or when it is selected).
        let all: Vec<PlotKind> = PlotKind::ALL
            .iter()
            .copied()
            .filter(|&p| {
                (!p.shows_frontier() || has_llm.get_untracked())
                    && (!p.shows_load() || has_load.get_untracked())
                    || plot.get_untracked() == p
            })
            .collect();
        let now = all
            .iter()
            .position(|k| *k == plot.get_untracked())
            .unwrap_or(0);
        let next = match ev.key().as_str() {
            "ArrowRight" => (now + 1) % all.len(),
            "ArrowLeft" => (now + all.len() - 1) % all.len(),
            "Home" => 0,
            "End" => all.len() - 1,
            _ => return,
        };
        ev.prevent_default();
        let p = all[next];
        set_plot(p);
        let focus = document()
            .query_selector(&format!("[role=tab][data-plot='{}']", p.as_str()))
            .ok()
            .flatten()
            .and_then(|e| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(e).ok());
        if let Some(e) = focus {
            let _ = e.focus();
        }
    };
    let tab = move |p: PlotKind, text: &'static str| {
        view! {
            <button role="tab" data-plot=p.as_str() aria-selected=move || (plot.get() == p).to_string()
                tabindex=move || if plot.get() == p { "0" } else { "-1" }
                on:click=move |_| set_plot(p) on:keydown=tab_key>{text}</button>
        }
    };
    // Words only: the store analysed each (operation, chip) once for the edit.
    let key_line = Memo::new(move |_| {
        c.scenario.with(|s| {
            c.results
                .with(|r| view::key_line_of(s, r, view::KeyLineDetail::Full))
        })
    });
    let sweep = c.charts.sweep;
    let roofline = c.charts.roofline;
    let frontier = c.charts.frontier;
    let load = c.charts.load;
    let load_sim = c.charts.load_sim;
    let load_queue = c.charts.load_queue;
    view! {
        <section class="panel" aria-label="Plots">
            <div class="plot-tabs">
                <div class="tabs" role="tablist" aria-label="Plot">
                    {tab(PlotKind::Sweep, "Sweep")}
                    {tab(PlotKind::Roofline, "Roofline")}
                    {tab(PlotKind::Both, "Both")}
                    <Show when=move || has_llm.get() || plot.get().shows_frontier()>
                        {tab(PlotKind::Frontier, "Serving frontier")}
                    </Show>
                    <Show when=move || has_load.get() || plot.get().shows_load()>
                        {tab(PlotKind::Load, "Load")}
                    </Show>
                    {tab(PlotKind::Validation, "Validation")}
                </div>
                <span class="spacer"></span>
                <CalibrationMarker/>
                <Show when=move || plot.get().shows_sweep()>
                    {metric_buttons}
                    <label class="small"><input type="checkbox" name="log-x"
                        prop:checked=move || axes.get().log_x
                        on:change=move |ev| {
                            // A log x axis samples log-spaced points, a linear one linear points
                            // (linear points on a log axis drew a false ramp); the link keeps both.
                            let on = event_target_checked(&ev);
                            c.scenario.maybe_update(|s| {
                                let before = (s.axes.log_x, s.sweep.log);
                                s.axes.log_x = on;
                                s.sweep.log = on;
                                before != (on, on)
                            });
                        }/>" log x"</label>
                    <label class="small"><input type="checkbox" name="log-y"
                        prop:checked=move || axes.get().log_y
                        on:change=move |ev| c.set(|s| &mut s.axes.log_y, event_target_checked(&ev))/>" log y"</label>
                </Show>
            </div>
            <Show when=move || plot.get().shows_sweep()>
                <ChartCanvas model=sweep dark=c.dark/>
                <DataTable model=sweep/>
            </Show>
            <Show when=move || plot.get().shows_roofline()>
                <ChartCanvas model=roofline dark=c.dark/>
                <DataTable model=roofline/>
            </Show>
            <Show when=move || plot.get().shows_frontier()>
                <ChartCanvas model=frontier dark=c.dark/>
                <DataTable model=frontier/>
            </Show>
            <Show when=move || plot.get().shows_load()>
                <div class="load-plot" data-sim=move || load_sim.get()>
                    {load.map(|m| view! {
                        <ChartCanvas model=m dark=c.dark/>
                        <DataTable model=m/>
                    })}
                    <div class="load-queue" data-load-queue="true">
                        <ChartCanvas model=load_queue dark=c.dark/>
                        <DataTable model=load_queue/>
                    </div>
                </div>
            </Show>
            <Show when=move || plot.get().shows_validation()>
                <super::validation::ValidationView/>
            </Show>
            <p class="keyline" data-keyline="true">{move || key_line.get()}</p>
            <super::recipes::TryNext/>
            <super::recipes::RecipeAnswer/>
        </section>
    }
}

/// How long the screen-reader table waits for edits to pause before it follows the plot.
const TABLE_DELAY_MS: u64 = 200;

/// The plotted numbers as a table for screen readers: off-screen, and skipped by layout while
/// off-screen (`content-visibility: auto`), with rows keyed by content so that an edit rebuilds
/// only the rows whose numbers changed.
#[component]
pub fn DataTable(
    /// The chart whose data to list (nothing while it is `None`).
    #[prop(into)]
    model: Signal<Option<ChartModel>>,
) -> impl IntoView {
    // The table follows the plot once edits pause: it is read by screen readers, not watched
    // while typing, and rebuilding it is DOM work that would otherwise land on every keystroke.
    let settled = settled(model, TABLE_DELAY_MS);
    let table =
        Memo::new(move |_| settled.with(|m| m.as_ref().map(|m| (m.aria_label(), m.table()))));
    let head = Memo::new(move |_| {
        table.with(|t| t.as_ref().map(|(_, (h, _))| h.clone()).unwrap_or_default())
    });
    let rows = move || {
        table.with(|t| {
            t.as_ref()
                .map(|(_, (_, rows))| {
                    rows.iter()
                        .enumerate()
                        .map(|(i, r)| (i, r.clone()))
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default()
        })
    };
    let key = |(i, r): &(usize, Vec<String>)| {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (i, r).hash(&mut h);
        h.finish()
    };
    view! {
        <div class="offscreen-table"><table data-chart-table=move || model.with(|m| m.as_ref().map(ChartModel::kind))>
            <caption>{move || table.with(|t| t.as_ref().map(|(label, _)| label.clone()).unwrap_or_default())}</caption>
            <thead><tr>{move || head.get().into_iter().map(|h| view! { <th scope="col">{h}</th> }).collect_view()}</tr></thead>
            <tbody>
                <For each=rows key=key let((_, r))>
                    <tr>{r.into_iter().map(|c| view! { <td>{c}</td> }).collect_view()}</tr>
                </For>
            </tbody>
        </table></div>
    }
}

/// While a calibration is on (`cal=`, from the profile panel's Fit and Apply, or a link), a
/// chip by the plot says so and removes it in one click (issue 38, point 6): every time on the
/// page includes it.
#[component]
fn CalibrationMarker() -> impl IntoView {
    let c = ctx();
    let cal = Memo::new(move |_| c.scenario.with(|s| s.options.cal));
    let remove = move |_| c.set(|s| &mut s.options.cal, roofline::inputs::Calibration::NONE);
    move || {
        let cal = cal.get();
        (cal != roofline::inputs::Calibration::NONE).then(|| {
            let text = cal.format();
            view! {
                <span class="calibrated" role="status" data-calibrated=text.clone()>
                    <button class="small cal-chip" data-action="remove-calibration"
                        title=view::calibration_words(&text)
                        aria-label=format!("calibrated (cal={text}): remove the calibration")
                        on:click=remove>"calibrated ✕"</button>
                </span>
            }
        })
    }
}
