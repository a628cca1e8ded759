//! The sweep chart model: one series per (operation, chip) against the swept field, peak lines,
//! exact crossovers and the closed-form approximation; the fields a sweep can vary.

use roofline::inputs::Scenario;
use roofline::inputs::{Op, PartKind};
use roofline::results::{analyze, OomEdge, Results, Swept, Wanted};
use roofline::units::{format_exact, format_sig, Unit};

use super::names::{dim_word, name_of, op_name, pretty, series_name};
use crate::charts::{ChartSeries, HLine, Marker, SweepChart, VLine};

/// What the sweep plot shows on its y axis: part of the scenario (`y=` in links).
pub use roofline::inputs::SweepMetric;

/// Numeric fields of the scenario's operations that a sweep can vary: (key, label), no repeats.
pub fn sweepable_fields(s: &Scenario) -> Vec<(&'static str, &'static str)> {
    let mut out: Vec<(&'static str, &'static str)> = Vec::new();
    for op in &s.ops {
        for f in op.fields() {
            if f.is_numeric() && !out.iter().any(|(k, _)| *k == f.key) {
                out.push((f.key, f.label));
            }
        }
    }
    if !out.iter().any(|(k, _)| *k == s.sweep.field) {
        // Keep the current choice visible even if no op has it (its series then say so).
        if let Some(f) = s
            .ops
            .iter()
            .flat_map(|o| o.fields())
            .find(|f| f.key == s.sweep.field)
        {
            out.push((f.key, f.label));
        }
    }
    out
}

/// The swept field for an axis title: `batch size B`, `D`, `context (ctx)`.
fn axis_name(s: &Scenario) -> String {
    let (label, dim) = (name_of(&s.sweep.field, s), dim_word(&s.sweep.field));
    if s.sweep.field == "b" && label == "B" {
        "batch size B".into()
    } else if label == dim || label.starts_with(&format!("{dim} ")) {
        label
    } else {
        format!("{label} ({dim})")
    }
}

fn sweep_title(s: &Scenario, metric: SweepMetric) -> String {
    let what = match metric {
        SweepMetric::Achieved => "Achieved FLOPs/s",
        SweepMetric::Time => "Time (lower bound)",
        SweepMetric::Fraction => "Fraction of peak",
        SweepMetric::TokensPerS => "Tokens/s",
    };
    let chips: Vec<&str> = s.chips.iter().map(|c| c.name.as_str()).collect();
    format!(
        "{what} vs {} ({})",
        name_of(&s.sweep.field, s),
        chips.join(", ")
    )
}

/// The sweep plot: one series per (operation, chip), peak lines, exact crossovers, and the
/// closed-form approximation as a dashed line (a store of `s`'s sweeps alone, computed here).
pub fn sweep_chart(s: &Scenario, metric: SweepMetric, log_x: bool, log_y: bool) -> SweepChart {
    let results = Results::of_with(s, Wanted::SWEEPS);
    sweep_chart_of(s, &results, metric, log_x, log_y)
}

/// [`sweep_chart`] from the store's sweeps (`results` brought to `s` with its sweeps: the
/// page's store while the sweep plot shows); only formats them.
pub fn sweep_chart_of(
    s: &Scenario,
    results: &Results,
    metric: SweepMetric,
    log_x: bool,
    log_y: bool,
) -> SweepChart {
    if let Some(chart) = super::train_plot::train_chart(s, metric, log_x, log_y) {
        return chart;
    }
    let mut chart = SweepChart {
        title: sweep_title(s, metric),
        x_label: axis_name(s),
        y_label: match metric {
            SweepMetric::Achieved => "achieved FLOPs/s".into(),
            SweepMetric::Time => "T_lower".into(),
            SweepMetric::Fraction => "% of peak".into(),
            SweepMetric::TokensPerS => "tokens/s".into(),
        },
        log_x,
        log_y,
        y_unit: match metric {
            SweepMetric::Achieved => Some(Unit::FlopRate),
            SweepMetric::Time => Some(Unit::Seconds),
            SweepMetric::TokensPerS => Some(Unit::Count),
            SweepMetric::Fraction => None,
        },
        ..SweepChart::default()
    };
    let n_ops = s.ops.len();
    for (j, chip) in s.chips.iter().enumerate() {
        let mut peaks_seen: Vec<f64> = Vec::new();
        for (i, op) in s.ops.iter().enumerate() {
            if op.field(&s.sweep.field).is_none() {
                continue;
            }
            if metric == SweepMetric::TokensPerS && !op.traits().serves {
                continue;
            }
            let Some(swept) = results.sweep(i, j) else {
                continue;
            };
            let Swept {
                curve: Ok(series),
                analysis,
                oom,
            } = swept.as_ref()
            else {
                continue;
            };
            // Where the curve's points stop fitting in HBM (inference.md: the KV cache bounds
            // the batch), marked on the plot rather than only as a ✗ in the results.
            if let Some(edge) = oom {
                let who = if s.chips.len() > 1 || n_ops > 1 {
                    format!("{}: ", series_name(s, op, &chip.name))
                } else {
                    String::new()
                };
                let dim = dim_word(&s.sweep.field);
                // The edge of a model step is judged at the context its row states (issue 38,
                // point 4): the label says which, as the row's fit cell does.
                let at = op
                    .get_num("ctx")
                    .filter(|_| s.sweep.field != "ctx")
                    .map(|c| format!(" at ctx {}", format_exact(c)))
                    .unwrap_or_default();
                let (x, label) = match *edge {
                    OomEdge::Above(x) => (
                        x,
                        format!(
                            "{who}does not fit in HBM above {dim} = {}{at}",
                            format_sig(x, 4)
                        ),
                    ),
                    OomEdge::Everywhere => (
                        s.sweep.from,
                        format!("{who}does not fit in HBM anywhere in this range"),
                    ),
                };
                chart.vlines.push(VLine { x, label });
            }
            let idx = j * n_ops + i;
            let y_of = |p: &roofline::results::SweepPoint| match metric {
                SweepMetric::Achieved => p.achieved,
                SweepMetric::Time => p.t_lower,
                SweepMetric::Fraction => 100.0 * p.fraction,
                SweepMetric::TokensPerS => tokens_at(op, &s.sweep.field, p.x) / p.t_lower,
            };
            chart.series.push(ChartSeries {
                label: series_name(s, op, &chip.name),
                points: series.points.iter().map(|p| (p.x, y_of(p))).collect(),
                series_idx: idx,
                scatter: false,
                oom_from: oom.map(|e| match e {
                    OomEdge::Above(x) => x,
                    OomEdge::Everywhere => f64::NEG_INFINITY,
                }),
            });
            if metric == SweepMetric::Fraction && op.traits().serves {
                part_series(&mut chart, s, op, chip, series, idx);
            }
            // A sharded matmul on time axes: T_math and T_comms (its largest communication
            // term) as curves of their own, so the crossover where communication starts to
            // bind is where they meet (sharding.md, part 3; roofline.md's D > 8755 for 2 chips).
            if metric == SweepMetric::Time && op.traits().comm_curves {
                let label = series_name(s, op, &chip.name);
                for (k, term) in ["T_math", "T_comms"].into_iter().enumerate() {
                    let of = |p: &roofline::results::SweepPoint| {
                        if k == 0 {
                            p.t_math
                        } else {
                            p.t_comms
                        }
                    };
                    chart.series.push(ChartSeries {
                        label: format!("{label} · {term}"),
                        points: series.points.iter().map(|p| (p.x, of(p))).collect(),
                        series_idx: idx + 1 + k,
                        scatter: false,
                        oom_from: None,
                    });
                }
            }
            for c in &series.crossovers {
                let y = match metric {
                    SweepMetric::Achieved => c.achieved,
                    SweepMetric::Time => c.t_lower,
                    SweepMetric::Fraction => 100.0 * (c.achieved / series.peak).min(1.0),
                    SweepMetric::TokensPerS => tokens_at(op, &s.sweep.field, c.x) / c.t_lower,
                };
                chart.crossovers.push(Marker::new(
                    c.x,
                    y,
                    format!("{} = {}", dim_word(&s.sweep.field), format_sig(c.x, 4)),
                ));
            }
            if let Ok(a) = analysis {
                if let Some(crit) = a.critical.as_ref().filter(|c| c.dim == s.sweep.field) {
                    if let Some(approx) = crit.approx {
                        let label = format!(
                            "{} > {} (approx.)",
                            dim_word(&crit.dim),
                            format_sig(approx, 3)
                        );
                        if !chart.vlines.iter().any(|v| v.label == label) {
                            chart.vlines.push(VLine { x: approx, label });
                        }
                    }
                }
                // The marks the kind reports on a sweep of this field (a collective's
                // latency knee over its array size: sharding.md, "A note on ICI latency").
                for m in a.report.marks.iter().filter(|m| m.field == s.sweep.field) {
                    let who = if s.chips.len() > 1 {
                        format!("{}: ", chip.name)
                    } else {
                        String::new()
                    };
                    let label = format!("{who}{}", m.label);
                    if !chart.vlines.iter().any(|v| v.label == label) {
                        chart.vlines.push(VLine { x: m.x, label });
                    }
                }
                let peak = a.compute.effective_peak;
                if metric == SweepMetric::Achieved && !peaks_seen.contains(&peak) {
                    peaks_seen.push(peak);
                    let who = if s.chips.len() > 1 {
                        format!("{} ", chip.name)
                    } else {
                        String::new()
                    };
                    chart.hlines.push(HLine {
                        label: format!(
                            "{who}{} peak {}",
                            a.compute.dtype.as_str(),
                            pretty(peak, Unit::FlopRate)
                        ),
                        y: peak,
                        series_idx: idx,
                    });
                }
            }
        }
        if metric == SweepMetric::Fraction && j == 0 {
            chart.hlines.push(HLine {
                label: "peak (100%)".into(),
                y: 100.0,
                series_idx: 0,
            });
        }
    }
    chart
}

/// Tokens per step of a model workload with `field` at `x` (decode: B; prefill: B·ctx;
/// verify: B·(k+1)). `x`
/// is taken as it is, not validated: a crossover lies between grid points, at a fractional
/// batch such as B = 22.34.
fn tokens_at(op: &Op, field: &str, x: f64) -> f64 {
    let num = |k: &str| {
        if k == field {
            x
        } else {
            op.get_num(k).unwrap_or(0.0)
        }
    };
    match op.llm() {
        Some(l) => num("b") * l.phase.tokens_per_sequence(num("ctx"), num("spec_k")),
        None => num("b"),
    }
}

/// The group a model part belongs to on the sweep plot, by its kind of work; `None` for
/// communication, which does no FLOPs: it has no % of peak, and counting its time in another
/// group would lower that group's curve.
fn part_group(work: PartKind) -> Option<usize> {
    match work {
        PartKind::WeightMatmul => Some(0),
        PartKind::Attention => Some(1),
        PartKind::Norm | PartKind::Elementwise => Some(2),
        PartKind::Communication => None,
    }
}

/// "% of peak" curves for the parts of a model workload, grouped (weight matmuls, attention over
/// the KV cache, norms): each group's FLOPs over its summed time, against the chip's peak. Decode's
/// weight matmuls climb to the peak near the ridge while attention, reading per-sequence KV cache,
/// stays low at any batch.
fn part_series(
    chart: &mut SweepChart,
    s: &Scenario,
    op: &Op,
    chip: &roofline::inputs::Chip,
    series: &roofline::results::SweepCurve,
    idx: usize,
) {
    const GROUPS: [&str; 3] = [
        "weight matmuls",
        "attention (KV cache)",
        "norms, embedding gather",
    ];
    let mut curves: [Vec<(f64, f64)>; 3] = Default::default();
    for p in &series.points {
        let mut o = op.clone();
        if o.set_num(&s.sweep.field, p.x).is_err() {
            continue;
        }
        let Some(parts) = roofline::results::parts(&o) else {
            return;
        };
        // (Σ FLOPs, Σ time) per group; the peak is the chip's peak for the step's dtype.
        let mut sums = [(0.0f64, 0.0f64); 3];
        let mut peak = 0.0f64;
        for part in parts {
            let Some(g) = part_group(part.work) else {
                continue;
            };
            let Ok(a) = analyze(&part.op, chip, &s.options) else {
                continue;
            };
            sums[g].0 += part.repeat * a.flops;
            sums[g].1 += part.repeat * a.t_lower;
            peak = peak.max(a.compute.peak);
        }
        for (g, (flops, t)) in sums.iter().enumerate() {
            if *t > 0.0 && peak > 0.0 {
                curves[g].push((p.x, 100.0 * (flops / t / peak).min(1.0)));
            }
        }
    }
    for (k, points) in curves.into_iter().enumerate() {
        if !points.is_empty() {
            chart.series.push(ChartSeries {
                label: format!("{} · {}", op_name(op), GROUPS[k]),
                points,
                series_idx: idx + 1 + k,
                scatter: false,
                oom_from: None,
            });
        }
    }
}
