//! The figures a training step (`train`) adds to its result row, after the shared ones
//! (`t_lower`, `t_upper`, `critical_b` as the batch per chip, `fits`): `mfu`, `tokens_per_s`
//! (the step's training tokens per second), `days` (the token budget at `t_lower`),
//! `days_at_mfu` (the book's estimate at an assumed MFU), `memory` (per chip) and `cost`.

use super::report::{pretty, Figure, Report, TimePart, Tone};
use crate::train::TrainAnalysis;
use crate::units::{format_exact, format_sig, Unit};

fn cell(metric: &'static str, value: String, text: String, title: String) -> Figure {
    Figure::new(metric, value, text, title)
}

fn optional(
    metric: &'static str,
    v: Option<f64>,
    text: impl Fn(f64) -> String,
    title: String,
) -> Figure {
    match v {
        Some(v) => cell(metric, format_exact(v), text(v), title),
        None => cell(metric, "none".into(), "—".into(), "no token budget".into()),
    }
}

/// A count or an amount with an SI prefix and 3 significant digits: `1.55M`, `$23.1M`.
fn count(x: f64) -> String {
    pretty(x, Unit::Count)
}

/// The training figures of a step's analysis, in column order.
fn train_figures(t: &TrainAnalysis) -> Vec<Figure> {
    let days = |d: f64| format!("{} days", format_sig(d, 4));
    let b = t.budget;
    let mut out = vec![
        cell(
            "mfu",
            format_exact(t.mfu),
            format!("{}%", format_sig(100.0 * t.mfu, 3)),
            format!(
                "model FLOPs utilization at t_lower ({}% at t_upper; HFU {}%)",
                format_sig(100.0 * t.mfu_min, 3),
                format_sig(100.0 * t.hfu, 3)
            ),
        ),
        cell(
            "tokens_per_s",
            format_exact(t.tokens_per_s),
            format!("{} tokens/s", count(t.tokens_per_s)),
            format!(
                "B / t_lower: training tokens per second ({} at t_upper)",
                count(t.tokens_per_s_min)
            ),
        ),
        optional(
            "days",
            t.days,
            days,
            b.map_or_else(String::new, |b| {
                format!(
                    "{} tokens in {} steps at t_lower ({} at t_upper)",
                    count(b.tokens),
                    count(b.steps),
                    days(b.days_upper)
                )
            }),
        ),
    ];
    if let Some(d) = b.and_then(|b| b.days_at_mfu_6n) {
        let model = b.and_then(|b| b.days_at_mfu).unwrap_or(d);
        out.push(cell(
            "days_at_mfu",
            format_exact(d),
            days(d),
            format!(
                "the book's estimate 6·N·tokens / (chips·C·MFU) at the assumed MFU ({} with the model's FLOPs)",
                days(model)
            ),
        ));
    }
    let m = &t.memory;
    out.push(Figure {
        tone: if m.fits { Tone::Plain } else { Tone::Memory },
        ..cell(
            "memory",
            format_exact(m.total),
            format!("{} per chip", pretty(m.total, Unit::Bytes)),
            match m.max_tokens_per_chip {
                Some(x) => format!(
                    "of {} HBM; the largest batch that fits is {} tokens per chip",
                    pretty(m.capacity, Unit::Bytes),
                    format_sig(x, 4)
                ),
                None => format!("of {} HBM; no batch fits", pretty(m.capacity, Unit::Bytes)),
            },
        )
    });
    if t.cost.is_some() {
        out.push(optional(
            "cost",
            t.cost,
            |c| format!("${}", count(c)),
            "price per chip-hour × chip-hours of the budget at t_lower".into(),
        ));
    }
    out
}

/// The parts of a step's time: compute, the traffic compute does not hide, the bubble.
fn train_phases(t: &TrainAnalysis) -> Vec<TimePart> {
    let exposed = (t.t_lower - t.t_bubble - t.t_math).max(0.0);
    let phase = |name: &str, time: f64, binding: String| TimePart {
        name: name.into(),
        time,
        binding,
    };
    vec![
        phase("compute (forward + backward)", t.t_math, "compute".into()),
        phase(
            "traffic not hidden under compute",
            exposed,
            t.bound.describe(),
        ),
        phase("pipeline bubble", t.t_bubble, "pipeline".into()),
    ]
}

/// A training step's report: its figures and phases, with the whole analysis.
pub(crate) fn train_report(t: TrainAnalysis) -> Report {
    Report {
        figures: train_figures(&t),
        phases: train_phases(&t),
        train: Some(Box::new(t)),
        ..Report::default()
    }
}
