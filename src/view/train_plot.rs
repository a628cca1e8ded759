//! The training plot: step time (or MFU) against the chip count or the batch per chip, one
//! curve per parallelism strategy ([`roofline::results::train_plot`]), with the crossovers where
//! communication starts to bind and the out-of-memory boundaries (training.md's figures of
//! comms against FLOPs per strategy), as a [`SweepChart`] so that the canvas, read-out, SVG,
//! embed and screen-reader table draw it like any sweep.
//!
//! It stands in for the sweep plot when the scenario has a training step and no operation has
//! the swept field. The swept field picks the x axis: `n` (the chip count `N`, the global
//! batch fixed) or anything else, the default `b` included (the batch per chip `B/N`, the chips
//! fixed); the range is the config's own, from `N/64` to `8·N` chips or from 16 to 65,536
//! tokens per chip. The y metric: `% of peak` shows MFU, the others the step time `t_lower`.
//! Out of memory: the config's own boundary is a dashed line; another strategy's is in its
//! legend entry, or `out of memory` when none of its points fits (pure data parallelism of a
//! large model).

use roofline::inputs::Chip;
use roofline::inputs::Op;
use roofline::inputs::Scenario;
use roofline::results::{train_plot, PlotAxis, PlotStrategy, TrainPlot};
use roofline::units::format_sig;

use super::names::series_name;
use crate::charts::{ChartSeries, HLine, Marker, SweepChart, VLine};
use roofline::inputs::SweepMetric;

/// Points per curve.
pub const TRAIN_POINTS: usize = 33;

/// Curves per training op on a chip (the palette index stride).
const CURVES: usize = 4;

/// The x axis the scenario asks for (see the module docs).
pub fn train_axis(s: &Scenario) -> PlotAxis {
    if s.sweep.field == "n" {
        PlotAxis::Chips
    } else {
        PlotAxis::BatchPerChip
    }
}

/// The training plot of `op` on `chip` at the scenario's derate, over the axis's range.
pub fn train_plot_of(s: &Scenario, op: &Op, chip: &Chip) -> Option<TrainPlot> {
    let mut cfg = op.training_config(chip)?.ok()?;
    cfg.hw.peak *= s.options.compute_efficiency();
    let axis = train_axis(s);
    let (from, to) = match axis {
        PlotAxis::Chips => {
            let n = cfg.mesh.chips();
            ((n / 64.0).max(1.0), (8.0 * n).min(1e9))
        }
        PlotAxis::BatchPerChip => (16.0, 65_536.0),
    };
    train_plot(&cfg, axis, from, to, TRAIN_POINTS).ok()
}

/// The y value of the chart nearest `x` on a curve's points.
fn y_near(points: &[(f64, f64)], x: f64) -> Option<f64> {
    points
        .iter()
        .min_by(|a, b| (a.0 / x).ln().abs().total_cmp(&(b.0 / x).ln().abs()))
        .map(|p| p.1)
}

/// Whether the sweep plot is the training plot: a training step, and no operation with the
/// swept field.
pub fn train_plot_shown(s: &Scenario) -> bool {
    s.ops.iter().any(|o| o.traits().train_plot)
        && !s.ops.iter().any(|o| o.field(&s.sweep.field).is_some())
}

/// The y metrics the sweep plot's buttons offer, as (metric, word), and the one pressed: on
/// the training plot `step time` and `MFU` (its two views; issue 38, point 10: "FLOPs/s" stayed
/// pressed over a step-time plot), else FLOPs/s, time, % of peak and, with a model workload,
/// tokens/s.
pub fn y_buttons(s: &Scenario) -> (Vec<(SweepMetric, &'static str)>, SweepMetric) {
    if train_plot_shown(s) {
        let shown = if s.axes.y == SweepMetric::Fraction {
            SweepMetric::Fraction
        } else {
            SweepMetric::Time
        };
        return (
            vec![
                (SweepMetric::Time, "step time"),
                (SweepMetric::Fraction, "MFU"),
            ],
            shown,
        );
    }
    let mut out = vec![
        (SweepMetric::Achieved, "FLOPs/s"),
        (SweepMetric::Time, "time"),
        (SweepMetric::Fraction, "% of peak"),
    ];
    if s.ops.iter().any(|o| o.traits().serves) {
        out.push((SweepMetric::TokensPerS, "tokens/s"));
    }
    (out, s.axes.y)
}

/// The training plot as a chart, `None` when the sweep plot has something of its own to show
/// (no training step, or an operation with the swept field).
pub fn train_chart(
    s: &Scenario,
    metric: SweepMetric,
    log_x: bool,
    log_y: bool,
) -> Option<SweepChart> {
    if !train_plot_shown(s) {
        return None;
    }
    let mfu = metric == SweepMetric::Fraction;
    let eff = s.options.compute_efficiency();
    let axis = train_axis(s);
    let (x_label, dim) = match axis {
        PlotAxis::Chips => ("chips N", "N"),
        PlotAxis::BatchPerChip => ("batch per chip B/N (tokens)", "B/N"),
    };
    let chips: Vec<&str> = s.chips.iter().map(|c| c.name.as_str()).collect();
    let mut chart = SweepChart {
        title: format!(
            "Training {} vs {} ({})",
            if mfu { "MFU" } else { "step time" },
            if axis == PlotAxis::Chips {
                "chips"
            } else {
                "batch per chip"
            },
            chips.join(", ")
        ),
        x_label: x_label.into(),
        y_label: if mfu { "MFU (%)" } else { "step time t_lower" }.into(),
        // Step times on the axis as times (`2 s`), not raw seconds (issue 38, point 10).
        y_unit: (!mfu).then_some(roofline::units::Unit::Seconds),
        log_x,
        log_y,
        ..SweepChart::default()
    };
    let n_ops = s.ops.len();
    for (j, chip) in s.chips.iter().enumerate() {
        for (i, op) in s.ops.iter().enumerate() {
            let Some(plot) = train_plot_of(s, op, chip) else {
                continue;
            };
            // One training step on one chip: the strategies alone name the curves.
            let who = if s.ops.len() * s.chips.len() > 1 {
                format!("{} · ", series_name(s, op, &chip.name))
            } else {
                String::new()
            };
            for (k, c) in plot.curves.iter().enumerate() {
                if c.points.is_empty() {
                    continue;
                }
                let points: Vec<(f64, f64)> = c
                    .points
                    .iter()
                    .map(|p| (p.x, if mfu { 100.0 * eff * p.mfu } else { p.t_lower }))
                    .collect();
                let mut label = format!("{who}{}", c.label);
                if let Some(x) = c.crossover {
                    let y = y_near(&points, x).unwrap_or(0.0);
                    chart.crossovers.push(Marker::new(
                        x,
                        y,
                        format!("{}: comms bind at {dim} = {}", c.label, format_sig(x, 4)),
                    ));
                }
                // Out of memory: a curve that never fits says so in the legend; the config's
                // own boundary is a line, the other strategies' are in their legends.
                let text = match axis {
                    PlotAxis::BatchPerChip => "out of memory above",
                    PlotAxis::Chips => "fits from",
                };
                if c.points.iter().all(|p| !p.fits) {
                    label.push_str(" — out of memory");
                } else if let Some(x) = c.oom_boundary {
                    let at = format!("{text} {dim} = {}", format_sig(x, 3));
                    if c.strategy == PlotStrategy::Config {
                        chart.vlines.push(VLine {
                            x,
                            label: format!("{who}{at}"),
                        });
                    } else {
                        label.push_str(&format!(" — {at}"));
                    }
                }
                chart.series.push(ChartSeries {
                    label,
                    points,
                    series_idx: (j * n_ops + i) * CURVES + k,
                    scatter: false,
                    oom_from: None,
                });
            }
        }
    }
    if mfu {
        chart.hlines.push(HLine {
            label: "peak (100%)".into(),
            y: 100.0,
            series_idx: 0,
        });
    }
    Some(chart)
}
