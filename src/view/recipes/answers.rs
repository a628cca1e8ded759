//! Each worked example's "ours": the figures the chapter's question asks for, computed from the
//! (possibly edited) scenario, as [`super::Recipe::ours`] shows them beside the chapter's answer.

use roofline::inputs::Op;
use roofline::inputs::Scenario;
use roofline::results::{analyze, Analysis};
use roofline::units::{format_sig, Unit};

use crate::view::names::{dim_word, op_name, pretty};

pub(super) fn first(s: &Scenario) -> Option<Analysis> {
    analyze(s.ops.first()?, s.chips.first()?, &s.options).ok()
}

pub(super) fn ours_critical(s: &Scenario) -> String {
    let Some(a) = first(s) else {
        return "—".into();
    };
    let ridge = format!("ridge {} FLOPs/byte", format_sig(a.ridge, 4));
    match &a.critical {
        Some(c) => format!(
            "{ridge}; exact crossover {} = {}{}",
            dim_word(&c.dim),
            format_sig(c.value, 5),
            c.approx
                .map(|v| format!(
                    ", approximation {} > {}",
                    dim_word(&c.dim),
                    format_sig(v, 4)
                ))
                .unwrap_or_default()
        ),
        None => format!("{ridge}; never compute-bound"),
    }
}

pub(super) fn ours_intensity(s: &Scenario) -> String {
    let Some(a) = first(s) else {
        return "—".into();
    };
    format!(
        "intensity {} FLOPs/byte{}; {}-bound",
        format_sig(a.intensity, 5),
        a.approx_intensity
            .as_ref()
            .map(|(v, f)| {
                if f.chars().any(char::is_alphabetic) {
                    format!(" ({f} = {})", format_sig(*v, 4))
                } else {
                    format!(" ({f})")
                }
            })
            .unwrap_or_default(),
        a.bound.as_str()
    )
}

/// `f` of each operation's analysis on the first chip, joined by `sep`.
pub(super) fn per_op(s: &Scenario, sep: &str, f: impl Fn(&Op, Analysis) -> String) -> String {
    let Some(chip) = s.chips.first() else {
        return "—".into();
    };
    let parts: Vec<String> = s
        .ops
        .iter()
        .filter_map(|op| Some(f(op, analyze(op, chip, &s.options).ok()?)))
        .collect();
    parts.join(sep)
}

/// `f` of the first operation on each chip, joined by `; `.
pub(super) fn per_chip(
    s: &Scenario,
    f: impl Fn(&roofline::inputs::Chip, &Op) -> Option<String>,
) -> String {
    let Some(op) = s.ops.first() else {
        return "—".into();
    };
    let parts: Vec<String> = s.chips.iter().filter_map(|c| f(c, op)).collect();
    parts.join("; ")
}

pub(super) fn ours_all_critical(s: &Scenario) -> String {
    per_op(s, "; ", |op, a| match a.critical {
        Some(c) => format!(
            "{}: {} = {}",
            op_name(op),
            dim_word(&c.dim),
            format_sig(c.value, 4)
        ),
        None => format!(
            "{}: never compute-bound (intensity {} < ridge {})",
            op_name(op),
            format_sig(a.intensity, 3),
            format_sig(a.ridge, 3)
        ),
    })
}

pub(super) fn ours_intensities(s: &Scenario) -> String {
    per_op(s, " · ", |op, a| {
        format!("{} {}", op_name(op), format_sig(a.intensity, 3))
    })
}

pub(super) fn ours_times(s: &Scenario) -> String {
    per_chip(s, |c, op| {
        let a = analyze(op, c, &s.options).ok()?;
        Some(format!(
            "{}: T_math = {}",
            c.name,
            pretty(a.t_math, Unit::Seconds)
        ))
    })
}

pub(super) fn ours_steps(s: &Scenario) -> String {
    per_chip(s, |c, op| {
        let w = roofline::results::analyze_workload(op, c, &s.options).ok()??;
        Some(format!(
            "{}: {} per step, {} tokens/s, reads {}",
            c.name,
            pretty(w.t_lower, Unit::Seconds),
            format_sig(w.tokens_per_s, 4),
            pretty(w.analysis.bytes, Unit::Bytes)
        ))
    })
}

/// A collective's time and whether latency or bandwidth bound it.
pub(super) fn ours_collective(s: &Scenario) -> String {
    let Some(a) = first(s) else {
        return "—".into();
    };
    let how = a
        .report
        .figure("latency_bound")
        .map_or("", |f| f.text.as_str());
    format!("T = {} ({how})", pretty(a.t_lower, Unit::Seconds))
}

/// The sweep plot's crossovers, as it labels them (`shards = 14 ...`).
pub(super) fn ours_crossovers(s: &Scenario) -> String {
    let m = crate::view::sweep::sweep_chart(s, s.axes.y, s.axes.log_x, s.axes.log_y);
    let labels: Vec<String> = m.crossovers.iter().map(|c| c.label.clone()).collect();
    if labels.is_empty() {
        "no crossover in the swept range".into()
    } else {
        labels.join("; ")
    }
}

/// A training step's critical figure for one strategy's links (`fsdp`, `tp`): the batch per
/// chip below which it binds (solved on the model) beside the book's closed form, or, for
/// tensor parallelism, whether this degree is communication-bound at every batch.
pub(super) fn ours_train_critical(s: &Scenario, strategy: &str) -> String {
    let Some(t) = first(s).and_then(|a| a.report.train) else {
        return "—".into();
    };
    let Some(c) = t.critical.iter().find(|c| c.resource.id() == strategy) else {
        return "—".into();
    };
    let book = c.book.map_or("—".into(), |b| format_sig(b, 4));
    match (c.regime, c.exact) {
        (roofline::results::Regime::Always, _) => format!(
            "communication-bound at every batch: compute-bound only while Y < {book} (the closed form)"
        ),
        (_, Some(b)) if strategy == "tp" => format!(
            "compute-bound while Y < {book} (the closed form); here it binds only below {} tokens per chip",
            format_sig(b, 4)
        ),
        (_, Some(b)) => format!(
            "binds below {} tokens per chip (solved on the model: latency and (n−1)/n counted); the closed form gives {book}",
            format_sig(b, 4)
        ),
        _ => format!("never binds; the closed form gives {book}"),
    }
}

/// The batch at which an MoE step's routed experts turn compute-bound: the smallest `b`
/// whose routed-expert part has `T_math ≥ T_comms` (bisection on `b`, each point analysed).
pub(super) fn ours_moe_batch(s: &Scenario) -> String {
    let (Some(op), Some(chip)) = (s.ops.first(), s.chips.first()) else {
        return "—".into();
    };
    let compute_bound = |b: f64| -> Option<bool> {
        let mut o = op.clone();
        o.set("b", &format!("{b}")).ok()?;
        let a = analyze(&o, chip, &s.options).ok()?;
        let p = a.report.parts.iter().find(|p| p.name == "routed experts")?;
        Some(p.t_math >= p.t_comms)
    };
    let (mut lo, mut hi) = (1.0_f64, 1.0e6_f64);
    if compute_bound(hi) != Some(true) || compute_bound(lo) != Some(false) {
        return "—".into();
    }
    while hi - lo > 1.0 {
        let mid = ((lo + hi) / 2.0).floor();
        match compute_bound(mid) {
            Some(true) => hi = mid,
            Some(false) => lo = mid,
            None => return "—".into(),
        }
    }
    format!(
        "the routed experts turn compute-bound at B = {} tokens",
        format_sig(hi, 4)
    )
}

/// A training step's days at the assumed MFU.
pub(super) fn ours_days(s: &Scenario) -> String {
    let Some(a) = first(s) else {
        return "—".into();
    };
    let Some(t) = a.report.train.as_ref() else {
        return "—".into();
    };
    match t.budget.and_then(|b| b.days_at_mfu_6n) {
        Some(d) => format!(
            "{} days at the assumed MFU (6·N·tokens / (chips · peak · MFU)); {} days at the roofline's own step",
            format_sig(d, 4),
            t.budget.map_or("—".into(), |b| format_sig(b.days, 4))
        ),
        None => "—".into(),
    }
}

/// A serving row's figure by its metric.
pub(super) fn serving_figure(s: &Scenario, metric: &str) -> Option<String> {
    let rows = crate::view::rows::result_rows(s);
    let serving = rows.first()?.serving.as_deref()?;
    Some(
        serving
            .cells
            .iter()
            .find(|c| c.metric == metric)?
            .text
            .clone(),
    )
}

pub(super) fn ours_max_batch(s: &Scenario) -> String {
    [serving_figure(s, "max_batch"), serving_figure(s, "tpot")]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join("; ")
}

pub(super) fn ours_ratio(s: &Scenario) -> String {
    serving_figure(s, "prefill_decode_ratio").unwrap_or_else(|| "—".into())
}

pub(super) fn ours_spec(s: &Scenario) -> String {
    [
        serving_figure(s, "tpot"),
        serving_figure(s, "tpot_spec"),
        serving_figure(s, "spec_speedup"),
    ]
    .into_iter()
    .flatten()
    .collect::<Vec<_>>()
    .join("; ")
}

/// Each engine's serving row of the load example (issue 40): its TTFT and TPOT at the load,
/// the bound and the expectation with its band, named by the row's engine.
pub(super) fn ours_load(s: &Scenario) -> String {
    let rows = crate::view::rows::result_rows(s);
    let text = |r: &crate::view::cell::ResultRow, m: &str| {
        r.cells
            .iter()
            .find(|c| c.metric == m)
            .map(|c| c.text.clone())
            .unwrap_or_default()
    };
    let band = |r: &crate::view::cell::ResultRow, m: &str| {
        let (lo, hi) = (text(r, &format!("{m}_lo")), text(r, &format!("{m}_hi")));
        if lo == "—" || lo.is_empty() {
            String::new()
        } else {
            format!(" ({lo}–{hi})")
        }
    };
    rows.iter()
        .filter_map(|r| r.serving.as_deref())
        .map(|r| {
            let engine = text(r, "engine");
            format!(
                "{}: {}, {}{}; {}, {}{}",
                engine.trim_start_matches("engine "),
                text(r, "ttft"),
                text(r, "ttft_expected"),
                band(r, "ttft_expected"),
                text(r, "tpot").split(" at ").next().unwrap_or_default(),
                text(r, "tpot_expected"),
                band(r, "tpot_expected"),
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The concurrencies the load examples compare at (where the sample measured both engines, and
/// TensorRT-LLM's 128).
#[cfg(feature = "load")]
pub(super) const SWEEP_C: [f64; 4] = [4.0, 16.0, 64.0, 128.0];

/// The load examples (issue 40): each engine's row at the link's load ([`ours_load`]), then its
/// expected TTFT and TPOT at [`SWEEP_C`] clients, each the serving row's at that load (the load
/// plot's curves pass through them).
#[cfg(feature = "load")]
pub(super) fn ours_load_sweep(s: &Scenario) -> String {
    use roofline::inputs::{Engine, Load};
    use roofline::validation::load::page::load_row;
    let rows = ours_load(s);
    let (Some(op), Some(chip)) = (s.ops.first(), s.chips.first()) else {
        return rows;
    };
    if op.llm().is_none_or(|l| l.load != Load::Concurrency) {
        return rows;
    }
    let sweep: Vec<String> = [Engine::Vllm, Engine::Sglang, Engine::Trtllm]
        .into_iter()
        .map(|e| {
            let at: Vec<String> = SWEEP_C
                .iter()
                .filter_map(|&c| {
                    let mut op = op.clone();
                    op.set("engine", e.as_str()).ok()?;
                    op.set("c", &format_sig(c, 6)).ok()?;
                    let r = load_row(&op, chip, &s.options).ok()??;
                    Some(format!(
                        "{} / {}",
                        pretty(r.ttft.expected?, Unit::Seconds),
                        pretty(r.tpot.expected?, Unit::Seconds)
                    ))
                })
                .collect();
            let name = crate::view::serving_load::engine_name(e);
            if at.len() == SWEEP_C.len() {
                format!("{name} {}", at.join(", "))
            } else {
                format!("{name}: no expectation here")
            }
        })
        .collect();
    format!(
        "{rows}. Expected TTFT / TPOT at c = 4, 16, 64, 128: {}",
        sweep.join("; ")
    )
}

/// Without the load model (the draw program), the rows alone.
#[cfg(not(feature = "load"))]
pub(super) fn ours_load_sweep(s: &Scenario) -> String {
    ours_load(s)
}
