//! The serving row's tails (issue 42), plain and natively tested: the percentiles of simulated
//! requests, a disaggregated deployment's figures and a KV tier's trade, as cells of the
//! serving row under `load=concurrency|rate`.
//!
//! The simulation runs off the page's thread (`src/bin/sim.rs` in a Web Worker, the app's
//! `app::sim`): the row is first built with every tails cell `pending` ([`pending_cells`]),
//! the worker computes [`tails_cells`] for the scenario's link ([`run`]), and the app lays the
//! result over the rows of that same scenario only ([`SimDone::overlay`]); a result for an
//! older scenario is dropped. Links and embeds drawn by the draw program build the same rows
//! and so show the tails `pending`, never a figure of another model.
//!
//! Each cell's title is its derivation: the simulated count, the warm-up discarded, the seed,
//! and what timed the steps (`roofline::results::tails`).

use roofline::inputs::Chip;
use roofline::inputs::Options;
use roofline::inputs::{Disagg, Llm, Load, Op};
use roofline::results::sim::{BoundSteps, Pcts, StepTiming};
use roofline::results::tails::{count, DisaggFigures, Tails};
use roofline::results::{disagg, kv_tier};
use roofline::units::{format_exact, format_sig, Unit};

pub mod bands;
mod worker;

pub use worker::{read, run, sim_key, simulate, PageSteps, SimCell, SimDone, SimRow};

use super::cell::{Cell, ResultRow};
use super::names::pretty;

/// The percentiles' cells, in reading order (issue 42's names).
pub const PERCENTILES: [&str; 12] = [
    "ttft_p50",
    "ttft_p90",
    "ttft_p99",
    "itl_p50",
    "itl_p90",
    "itl_p99",
    "tpot_p50",
    "tpot_p90",
    "tpot_p99",
    "e2e_mean",
    "e2e_p99",
    "goodput_qps_slo",
];

/// A disaggregated deployment's cells (`disagg=` other than `none`).
pub const DISAGG: [&str; 7] = [
    "best_disagg",
    "disagg_prefill_qps",
    "disagg_decode_qps",
    "disagg_saturation_qps",
    "disagg_per_chip",
    "aggregated_per_chip",
    "disagg_wins",
];

/// A KV tier's cells (`kv_host=`): each figure with the tier and without it.
pub const TIER: [&str; 9] = [
    "kv_running",
    "kv_running_without",
    "kv_tokens_per_s",
    "kv_tokens_per_s_without",
    "kv_ttft_mean",
    "kv_ttft_mean_without",
    "kv_ttft_p99",
    "kv_ttft_p99_without",
    "kv_hit_source",
];

/// The cell value of a figure the simulation has not given yet.
pub const PENDING: &str = "pending";

/// The `llm` of an op whose serving row has tails: under `load=concurrency` or `rate`.
fn loaded(op: &Op) -> Option<&Llm> {
    op.llm().filter(|l| l.load != Load::Batch)
}

/// The tails cells' metrics of `op`'s serving row, in order (empty under `load=batch` or for
/// another kind).
pub fn metrics(op: &Op) -> Vec<&'static str> {
    let Some(l) = loaded(op) else {
        return Vec::new();
    };
    let mut out = PERCENTILES.to_vec();
    if l.disagg != Disagg::None {
        out.extend(DISAGG);
    }
    if l.kv_host.is_some() {
        out.extend(TIER);
    }
    out
}

/// A metric's static name, if it is a tails metric (reading the worker's answer).
fn metric_name(m: &str) -> Option<&'static str> {
    PERCENTILES
        .iter()
        .chain(&DISAGG)
        .chain(&TIER)
        .find(|x| **x == m)
        .copied()
}

/// A cell's short label in the serving row: `TTFT P99`.
fn label(metric: &str) -> &'static str {
    match metric {
        "ttft_p50" => "TTFT P50",
        "ttft_p90" => "TTFT P90",
        "ttft_p99" => "TTFT P99",
        "itl_p50" => "ITL P50",
        "itl_p90" => "ITL P90",
        "itl_p99" => "ITL P99",
        "tpot_p50" => "TPOT P50",
        "tpot_p90" => "TPOT P90",
        "tpot_p99" => "TPOT P99",
        "e2e_mean" => "E2E mean",
        "e2e_p99" => "E2E P99",
        "goodput_qps_slo" => "goodput at SLO",
        "best_disagg" => "disaggregated",
        "disagg_prefill_qps" => "prefill worker",
        "disagg_decode_qps" => "decode worker",
        "disagg_saturation_qps" => "deployment saturates at",
        "disagg_per_chip" => "disaggregated per chip",
        "aggregated_per_chip" => "aggregated per chip",
        "disagg_wins" => "wins:",
        "kv_running" => "KV tier: running",
        "kv_running_without" => "without tier: running",
        "kv_tokens_per_s" => "KV tier:",
        "kv_tokens_per_s_without" => "without tier:",
        "kv_ttft_mean" => "KV tier: TTFT mean",
        "kv_ttft_mean_without" => "without tier: TTFT mean",
        "kv_ttft_p99" => "KV tier: TTFT P99",
        "kv_ttft_p99_without" => "without tier: TTFT P99",
        "kv_hit_source" => "tier hits",
        _ => "",
    }
}

fn labelled(metric: &'static str, text: String) -> String {
    format!("{} {text}", label(metric))
}

/// The tails cells while the simulation runs: `pending`.
pub fn pending_cells(op: &Op) -> Vec<Cell> {
    metrics(op)
        .into_iter()
        .map(|m| Cell {
            metric: m,
            value: PENDING.into(),
            text: labelled(m, "…".into()),
            class: "pending",
            title: "simulating requests off the page's thread (issue 42): the figure follows \
                    when the simulation of this scenario ends"
                .into(),
            basis: None,
        })
        .collect()
}

/// A cell with no figure, and why.
fn none(metric: &'static str, why: &str) -> Cell {
    Cell {
        metric,
        value: "none".into(),
        text: labelled(metric, "—".into()),
        class: "",
        title: why.into(),
        basis: None,
    }
}

fn figure(metric: &'static str, v: f64, text: String, title: String) -> Cell {
    Cell {
        metric,
        value: format_exact(v),
        text: labelled(metric, text),
        class: "",
        title,
        basis: None,
    }
}

fn word(metric: &'static str, w: &str, title: String) -> Cell {
    Cell {
        metric,
        value: w.into(),
        text: labelled(metric, w.into()),
        class: "",
        title,
        basis: None,
    }
}

fn secs(v: f64) -> String {
    pretty(v, Unit::Seconds)
}

fn qps(v: f64) -> String {
    format!("{} req/s", format_sig(v, 4))
}

/// The derivation every simulated figure shares: the count, the warm-up, the seed, the steps.
fn provenance(t: &Tails, measured: usize, warmup: usize) -> String {
    format!(
        "over {} simulated requests ({} run, the first {} discarded as warm-up; seed {}); {}",
        count(measured),
        count(t.requests),
        count(warmup),
        t.seed,
        t.basis
    )
}

/// The tails cells of `op` from its result (`roofline::results::tails`), the same metrics as
/// [`pending_cells`]: an error, or a run with no figure, leaves each cell `none` with the
/// reason.
pub fn tails_cells(op: &Op, result: &Result<Option<Tails>, roofline::inputs::Error>) -> Vec<Cell> {
    let ms = metrics(op);
    let t = match result {
        Ok(Some(t)) => t,
        Ok(None) => return ms.into_iter().map(|m| none(m, "no simulation")).collect(),
        Err(e) => return ms.into_iter().map(|m| none(m, &e.to_string())).collect(),
    };
    ms.into_iter()
        .map(|m| {
            if PERCENTILES.contains(&m) {
                percentile_cell(m, t)
            } else if DISAGG.contains(&m) {
                match &t.disagg {
                    Some(d) => disagg_cell(m, d),
                    None => none(m, "no disaggregated deployment"),
                }
            } else {
                tier_cell(m, t)
            }
        })
        .collect()
}

fn percentile_cell(m: &'static str, t: &Tails) -> Cell {
    if m == "goodput_qps_slo" {
        return match t.goodput_qps_slo {
            Some(g) => figure(
                m,
                g,
                qps(g),
                format!(
                    "the largest Poisson rate at which the required share of requests meets both \
                     ttft_max and its own TPOT ≤ tpot_max, bisected on simulated runs; steps: {}",
                    t.basis
                ),
            ),
            None => none(
                m,
                t.goodput_slo_none
                    .as_deref()
                    .unwrap_or("no goodput at the service level"),
            ),
        };
    }
    let Some(r) = &t.sim else {
        return none(
            m,
            t.why_none
                .as_deref()
                .unwrap_or("no simulated request finished"),
        );
    };
    let (pcts, what): (Option<&Pcts>, &str) = match &m[..3] {
        "ttf" => (Some(&r.ttft), "time to first token"),
        "itl" => (
            r.itl.as_ref(),
            "gap between consecutive tokens of a request (ITL)",
        ),
        "tpo" => (
            r.tpot.as_ref(),
            "request's own TPOT, (E2E − TTFT)/(output − 1)",
        ),
        _ => (
            Some(&r.e2e),
            "end-to-end latency, request sent to last token",
        ),
    };
    let Some(p) = pcts else {
        return none(m, "every output is one token: no gap between tokens");
    };
    let (v, stat) = match &m[m.len() - 3..] {
        "p50" => (p.p50, "median"),
        "p90" => (p.p90, "90th percentile (nearest rank)"),
        "p99" => (p.p99, "99th percentile (nearest rank)"),
        _ => (p.mean, "mean"),
    };
    figure(
        m,
        v,
        secs(v),
        format!("{stat} {what}, {}", provenance(t, r.measured, r.warmup)),
    )
}

fn disagg_cell(m: &'static str, d: &DisaggFigures) -> Cell {
    let words = d.notes.join("; ");
    let c = &d.capacity;
    let per_chip = |v: Option<f64>, none_why: &str, who: &str| match v {
        Some(v) => figure(
            m,
            v,
            format!("{} {}", format_sig(v, 4), "req/s/chip"),
            format!("{who}: {} per chip; {words}", d.figure),
        ),
        None => none(m, none_why),
    };
    match m {
        "best_disagg" => word(
            m,
            &d.ratio,
            format!(
                "{}; {}",
                if d.auto {
                    "the ratio disagg=auto found"
                } else {
                    "the ratio given"
                },
                words
            ),
        ),
        "disagg_prefill_qps" => figure(
            m,
            c.prefill,
            qps(c.prefill),
            format!("one prefill worker's saturation; {words}"),
        ),
        "disagg_decode_qps" => figure(
            m,
            c.decode,
            qps(c.decode),
            format!(
                "one decode worker's saturation at its cap of {} sequences; {words}",
                format_exact(c.decode_cap)
            ),
        ),
        "disagg_saturation_qps" => figure(
            m,
            c.saturation,
            qps(c.saturation),
            format!(
                "min(x · prefill, y · decode) on {} chips; {words}",
                format_exact(d.chips.2)
            ),
        ),
        "disagg_per_chip" => per_chip(d.per_chip, "no figure per chip", &d.ratio),
        "aggregated_per_chip" => per_chip(
            d.aggregated_per_chip,
            d.aggregated_none
                .as_deref()
                .unwrap_or("no aggregated figure on these chips"),
            &format!(
                "aggregated serving on the same chips ({} replicas of the op's own group)",
                format_exact(d.aggregated_replicas)
            ),
        ),
        _ => word(
            m,
            d.wins,
            format!(
                "{} per chip: disaggregated {} against aggregated {} on the same chips",
                d.figure,
                d.per_chip.map_or("none".into(), |v| format_sig(v, 4)),
                d.aggregated_per_chip
                    .map_or("none".into(), |v| format_sig(v, 4))
            ),
        ),
    }
}

fn tier_cell(m: &'static str, t: &Tails) -> Cell {
    let Some(tier) = &t.tier else {
        return none(m, "no KV tier");
    };
    let words = tier.notes.join("; ");
    if m == "kv_hit_source" {
        return match tier.hit_source {
            Some(s) => word(
                m,
                s,
                format!(
                    "a prefix held in the tier is {s}, the faster: loading it over {} takes {}, \
                     recomputing it {}; {words}",
                    tier.link,
                    secs(tier.load_s),
                    secs(tier.recompute_s)
                ),
            ),
            None => none(m, &format!("no prefix is served from the tier; {words}")),
        };
    }
    let without = m.ends_with("_without");
    let (trade, side) = if without {
        (tier.without.as_ref(), "the same load without the tier")
    } else {
        (tier.with.as_ref(), "with the tier")
    };
    let Some(tr) = trade else {
        return none(
            m,
            t.why_none
                .as_deref()
                .unwrap_or("no simulated run at this load"),
        );
    };
    let base = m.trim_end_matches("_without");
    let (v, text, what) = match base {
        "kv_running" => (
            tr.running,
            format_sig(tr.running, 4),
            "mean requests inside the engine",
        ),
        "kv_tokens_per_s" => (
            tr.tokens_per_s,
            format!("{} tok/s", format_sig(tr.tokens_per_s, 4)),
            "output tokens per second",
        ),
        "kv_ttft_mean" => (tr.ttft_mean, secs(tr.ttft_mean), "mean time to first token"),
        _ => (tr.ttft_p99, secs(tr.ttft_p99), "P99 time to first token"),
    };
    figure(
        m,
        v,
        text,
        format!(
            "{what}, {side}: {} requests simulated (seed {}); {words}",
            count(t.requests),
            t.seed
        ),
    )
}

/// `data-sim` of a row: `running` while any tails cell is pending, then `done`; `None` for a
/// row without tails.
pub fn sim_state(r: &ResultRow) -> Option<&'static str> {
    let mut tails = r.cells.iter().filter(|c| metric_name(c.metric).is_some());
    let first = tails.next()?;
    if first.value == PENDING || tails.any(|c| c.value == PENDING) {
        Some("running")
    } else {
        Some("done")
    }
}

/// The derivation's lines for a serving row's tails: the simulation's own words, once.
pub fn derivation(cells: &[Cell]) -> Vec<String> {
    let Some(c) = cells.iter().find(|c| c.metric == "ttft_p99") else {
        return Vec::new();
    };
    if c.value == PENDING {
        return vec!["Tails: the simulation of requests is running.".into()];
    }
    let mut out = vec![format!("Tails (P99 TTFT): {}.", c.title)];
    for m in ["goodput_qps_slo", "best_disagg", "kv_hit_source"] {
        if let Some(c) = cells.iter().find(|c| c.metric == m) {
            out.push(format!("{}: {}.", label(m), c.title));
        }
    }
    out
}

/// The fields whose edits [`precheck`] judges against the scenario's chips.
pub const CHECKED_KEYS: [&str; 9] = [
    "disagg", "d_chip", "p_tp", "p_ep", "d_tp", "d_ep", "kv_link", "kv_host", "load",
];

/// Whether `op` (just edited) can run its tails on every chip of the scenario: a disaggregated
/// ratio whose workers fit, a `d_chip` the scenario has, a host tier on a chip with a host
/// link. The page refuses an edit that fails at the field (the last good plot kept), where a
/// simulation would otherwise fail later in the worker. Cheap: no simulation.
pub fn precheck(op: &Op, chips: &[Chip], opts: &Options) -> Result<(), roofline::inputs::Error> {
    let Some(l) = loaded(op) else {
        return Ok(());
    };
    for chip in chips {
        if l.disagg != Disagg::None {
            let d_chip = match l.d_chip {
                None => chip,
                Some(n) => chips.get(n as usize - 1).ok_or_else(|| {
                    roofline::inputs::Error::InvalidField {
                        field: "d_chip".into(),
                        value: format_exact(n),
                        reason: format!("the scenario has {} chip(s)", chips.len()),
                    }
                })?,
            };
            let xy = match l.disagg {
                Disagg::Split { prefill, decode } => (prefill, decode),
                _ => (1.0, 1.0),
            };
            disagg::plan(l, chip, d_chip, opts, xy)?;
        }
        if l.kv_host.is_some() {
            let coef = BoundSteps.coef(l, chip).map_err(|reason| {
                roofline::inputs::Error::InvalidField {
                    field: "engine".into(),
                    value: l.engine.as_str().into(),
                    reason,
                }
            })?;
            kv_tier::plan(l, chip, opts, 1.0, coef)?;
        }
    }
    Ok(())
}
