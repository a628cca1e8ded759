//! The serving row under a load (issue 40): under `load=concurrency` or `load=rate` the row's
//! `ttft tpot tokens_per_s tokens_per_s_chip tokens_per_s_seq requests_per_s` and their
//! expectations are the core's figures *at that load* (`roofline::validation::load::page::
//! load_row`), never the static batch's; every row adds `requests_per_s_expected`, the bands
//! `ttft_expected_lo/hi` and `tpot_expected_lo/hi`, `running_batch`, `saturation_qps`,
//! `goodput_qps` (`none` with the reason under `load=batch`) and the `engine` named. The load's
//! derivation (each equation beside its numbers) goes into the row's derivation lines.
//!
//! Kept apart from `serving` (the static row) so that the two read on their own: `serving_row`
//! builds the static cells, then [`apply`] rewrites what a load changes.

use roofline::inputs::Chip;
use roofline::inputs::{Engine, Load, Op};
use roofline::units::{format_exact, format_sig, Unit};
use roofline::validation::load::own::{own_words, NO_BAND};
use roofline::validation::load::page::{Figure, LoadRow};

use super::cell::Cell;
use super::expected::NO_BASIS;
use super::names::pretty;

/// An engine as people write it.
pub fn engine_name(e: Engine) -> &'static str {
    match e {
        Engine::Generic => "generic",
        Engine::Vllm => "vLLM",
        Engine::Sglang => "SGLang",
        Engine::Trtllm => "TensorRT-LLM",
    }
}

/// The operation and chip the load plot (`plot=load`) shows: the first `llm` operation under
/// `load=concurrency|rate`, on the first chip; `None` without one (no load tab).
pub fn load_pair(s: &roofline::inputs::Scenario) -> Option<(&Op, &Chip)> {
    let op = s
        .ops
        .iter()
        .find(|o| o.llm().is_some_and(|l| l.load != Load::Batch))?;
    Some((op, s.chips.first()?))
}

/// A figure's cell: its value, or `none` with the reason.
fn cell(
    metric: &'static str,
    v: Option<f64>,
    text: impl Fn(f64) -> String,
    title: &str,
    why: &str,
) -> Cell {
    match v.filter(|x| x.is_finite()) {
        Some(x) => Cell {
            metric,
            value: format_exact(x),
            text: text(x),
            class: "",
            title: title.to_string(),
            basis: None,
        },
        None => Cell {
            metric,
            value: "none".into(),
            text: "—".into(),
            class: "",
            title: why.to_string(),
            basis: None,
        },
    }
}

/// An expected figure's cell with its `data-basis` (`none` where there is no expectation).
fn expected(
    metric: &'static str,
    v: Option<f64>,
    text: impl Fn(f64) -> String,
    title: &str,
    why: &str,
    basis: Option<&'static str>,
) -> Cell {
    let mut c = cell(metric, v, text, title, why);
    c.basis = Some(match (&c.value[..], basis) {
        ("none", _) | (_, None) => NO_BASIS,
        (_, Some(b)) => b,
    });
    c
}

/// Puts `c` in place of the cell of its metric, or at the end.
fn put(cells: &mut Vec<Cell>, c: Cell) {
    match cells.iter_mut().find(|x| x.metric == c.metric) {
        Some(x) => *x = c,
        None => cells.push(c),
    }
}

fn secs(t: f64) -> String {
    pretty(t, Unit::Seconds)
}

/// The load as the row's name and titles say it: `c = 64 clients`, `λ = 5 req/s`.
pub fn load_words(op: &Op) -> Option<String> {
    let l = op.llm()?;
    match l.load {
        Load::Batch => None,
        Load::Concurrency => Some(format!("c = {} clients", format_exact(l.c))),
        Load::Rate => Some(format!("λ = {} req/s", format_sig(l.qps, 4))),
    }
}

/// Why a static batch has no saturation or goodput (as the core's `load_row` says it).
#[cfg(not(feature = "load"))]
const NO_RATE: &str =
    "load=batch: a static batch has no arrival rate (set load=concurrency or load=rate)";

/// What the row's cells become under `op`'s load, and the derivation's lines; `None` where the
/// row is left to the app. The draw program (built without the `load` feature, whose size
/// budget the load model would overrun) shows only a `generic` static batch's row, whose cells
/// need no load model, and leaves a load's or an engine's row to the app: it never shows the
/// static figures for a link that asks for a load.
#[cfg(not(feature = "load"))]
pub fn apply(
    op: &Op,
    _load: &Result<Option<LoadRow>, roofline::inputs::Error>,
    cells: &mut Vec<Cell>,
) -> Option<Vec<String>> {
    let l = op.llm()?;
    if l.load != Load::Batch || l.engine != Engine::Generic {
        return None;
    }
    let row = static_row(l.b, l.engine);
    expectations(&row, l.output, true, cells);
    extras(&row, cells);
    Some(Vec::new())
}

/// A static batch's row without the load model: B running, no rate.
#[cfg(not(feature = "load"))]
fn static_row(b: f64, engine: Engine) -> LoadRow {
    LoadRow {
        engine,
        running_batch: Some(b),
        saturation_none: Some(NO_RATE.into()),
        goodput_none: Some(NO_RATE.into()),
        ..LoadRow::default()
    }
}

/// What the row's cells become under `op`'s load, and the derivation's lines. Under
/// `load=batch` the static cells stay (an engine other than `generic` changes only the
/// expectations); under a load the headline figures are the load's. `load` is the store's
/// ([`roofline::results::ServingResults::load`]).
#[cfg(feature = "load")]
pub fn apply(
    op: &Op,
    load: &Result<Option<LoadRow>, roofline::inputs::Error>,
    cells: &mut Vec<Cell>,
) -> Option<Vec<String>> {
    let l = op.llm()?;
    let mut row = match load {
        Ok(Some(r)) => r.clone(),
        Ok(None) => return Some(Vec::new()),
        Err(e) => {
            refuse(cells, l.load, &e.to_string());
            put(cells, engine_cell(l.engine, None));
            return Some(vec![format!("No figures at this load: {e}.")]);
        }
    };
    if l.load != Load::Batch {
        at_load(op, &row, cells);
    }
    // Under load=batch with `generic`, the published set's expectations stay (`serving::
    // serving_expected_cells`); an engine's changes only the expectations.
    let keep = l.load == Load::Batch && l.engine == Engine::Generic;
    if keep {
        row.expected_none = None;
    }
    expectations(&row, l.output, keep, cells);
    extras(&row, cells);
    Some(lines(&row))
}

/// A load the core refuses (speculative decoding under load): every figure of the load `none`
/// with the message.
#[cfg(feature = "load")]
fn refuse(cells: &mut Vec<Cell>, load: Load, why: &str) {
    let metrics: &[&'static str] = if load == Load::Batch {
        &["saturation_qps", "goodput_qps"]
    } else {
        &[
            "ttft",
            "tpot",
            "tokens_per_s",
            "tokens_per_s_chip",
            "tokens_per_s_seq",
            "requests_per_s",
            "cost_per_mtok",
            "joules_per_token",
            "ttft_expected",
            "ttft_expected_lo",
            "ttft_expected_hi",
            "tpot_expected",
            "tpot_expected_lo",
            "tpot_expected_hi",
            "tokens_per_s_expected",
            "requests_per_s_expected",
            "running_batch",
            "saturation_qps",
            "goodput_qps",
            "prefill_decode_ratio",
            "min_chips",
            "tpot_spec",
            "spec_speedup",
        ]
    };
    for &m in metrics {
        let mut c = cell(m, None, format_exact, "", why);
        if m.contains("_expected") {
            c.basis = Some(NO_BASIS);
        }
        put(cells, c);
    }
}

/// Under a load: the headline figures at that load (the bound), cost and energy per token from
/// the load's throughput, and the static batch's own figures (`min_chips`, the prefill:decode
/// ratio, speculative decoding) `none`: they describe a batch this link does not run.
#[cfg(feature = "load")]
fn at_load(op: &Op, row: &LoadRow, cells: &mut Vec<Cell>) {
    let load = load_words(op).unwrap_or_default();
    let why = row
        .why_none
        .clone()
        .unwrap_or_else(|| "no figure at this load".into());
    let static_tps = cells
        .iter()
        .find(|c| c.metric == "tokens_per_s")
        .and_then(|c| c.value.parse::<f64>().ok());
    let tps = row.tokens_per_s.bound;
    let seq = |m: &str| {
        format!(
            "{m} at {load} ({} engine, the bound)",
            engine_name(row.engine)
        )
    };
    put(
        cells,
        cell(
            "ttft",
            row.ttft.bound,
            |t| format!("TTFT {}", secs(t)),
            &seq("time to first token: the wait for a slot plus the steps its prefill takes"),
            &why,
        ),
    );
    put(
        cells,
        cell(
            "tpot",
            row.tpot.bound,
            |t| format!("TPOT {} at {load}", secs(t)),
            &seq("time per output token: the time-weighted mean of the engine's steps"),
            &why,
        ),
    );
    put(
        cells,
        cell(
            "tokens_per_s",
            tps,
            |x| format!("{} tok/s", format_sig(x, 4)),
            &seq("output tokens per second of the group: X · G"),
            &why,
        ),
    );
    put(
        cells,
        cell(
            "tokens_per_s_chip",
            row.tokens_per_s_chip,
            |x| format!("{} tok/s/chip", format_sig(x, 4)),
            &seq("X · G / chips"),
            &why,
        ),
    );
    put(
        cells,
        cell(
            "tokens_per_s_seq",
            row.tokens_per_s_seq,
            |x| format!("{} tok/s/seq", format_sig(x, 4)),
            &seq("what one request sees: 1 / TPOT"),
            &why,
        ),
    );
    put(
        cells,
        cell(
            "requests_per_s",
            row.requests_per_s.bound,
            |x| format!("{} req/s", format_sig(x, 4)),
            &seq("requests completed per second X (Little's law: c = X·(TTFT + (G − 1)·TPOT))"),
            &why,
        ),
    );
    // Cost and energy per token are price · chips and power · chips over the throughput: the
    // static cell's figure times the static throughput over the load's.
    for (m, unit) in [("cost_per_mtok", "$/Mtok"), ("joules_per_token", "J/tok")] {
        let Some(c) = cells.iter_mut().find(|c| c.metric == m) else {
            continue;
        };
        let v = c.value.parse::<f64>().ok();
        let scaled = match (v, static_tps, tps) {
            (Some(v), Some(s), Some(t)) if t > 0.0 => Some(v * s / t),
            _ => None,
        };
        let text = |x: f64| match unit {
            "$/Mtok" => format!("${}/Mtok", format_sig(x, 4)),
            _ => format!("{} J/tok", format_sig(x, 4)),
        };
        let title = format!(
            "{}, at the load's {} tok/s",
            c.title,
            tps.map_or("—".into(), |t| format_sig(t, 4))
        );
        let missing = if v.is_none() {
            c.title.clone()
        } else {
            why.clone()
        };
        *c = cell(m, scaled, text, &title, &missing);
    }
    let batch_only = format!("a static batch's figure (load=batch): not computed at {load}");
    for m in [
        "min_chips",
        "prefill_decode_ratio",
        "tpot_spec",
        "spec_speedup",
    ] {
        if cells.iter().any(|c| c.metric == m) {
            put(cells, cell(m, None, format_exact, "", &batch_only));
        }
    }
}

fn band_title(f: &Figure) -> String {
    match (f.lo, f.hi) {
        (Some(lo), Some(hi)) => format!(" (band {}–{})", secs(lo), secs(hi)),
        _ => String::new(),
    }
}

/// The expectations: the load set's (under a load, or an engine's fit under `load=batch`),
/// or under `load=batch` with `generic` the published set's, which `serving_expected_cells`
/// wrote already (`keep`); `requests_per_s_expected` then follows as tokens/s / G.
fn expectations(row: &LoadRow, output: f64, keep: bool, cells: &mut Vec<Cell>) {
    if keep {
        let tps = cells
            .iter()
            .find(|c| c.metric == "tokens_per_s_expected")
            .cloned();
        if let Some(t) = tps {
            let v = t.value.parse::<f64>().ok();
            let mut c = expected(
                "requests_per_s_expected",
                v.map(|x| x / output),
                |x| format!("≈ {} req/s expected", format_sig(x, 3)),
                &format!(
                    "expected tokens/s / G: {} / {}",
                    t.value,
                    format_exact(output)
                ),
                &t.title,
                t.basis,
            );
            if v.is_none() {
                c.basis = Some(NO_BASIS);
            }
            put(cells, c);
        }
        return;
    }
    let basis = row.basis.map(|b| b.id());
    let fit = match (row.own, row.fitted_engine) {
        (Some(o), _) => own_words(&o),
        (None, Some(e)) => {
            let mut s = format!("the serving-at-load set's {} fit", engine_name(e));
            if let Some(f) = &row.fallback {
                s.push_str(&format!(" ({f})"));
            }
            s
        }
        (None, None) => String::new(),
    };
    let why = row
        .expected_none
        .clone()
        .or_else(|| row.why_none.clone())
        .unwrap_or_else(|| "no expectation".into());
    // The own engine's figures have no band, and say why (the link carries no errors).
    let why_band = match (
        row.own,
        row.expected_none.is_none() && row.why_none.is_none(),
    ) {
        (Some(_), true) => NO_BAND.to_string(),
        _ => why.clone(),
    };
    let t = |x: f64| secs(x);
    put(
        cells,
        expected(
            "ttft_expected",
            row.ttft.expected,
            |x| format!("expected TTFT ≈ {}", t(x)),
            &format!(
                "expected TTFT: the load model read by {fit}{}",
                band_title(&row.ttft)
            ),
            &why,
            basis,
        ),
    );
    put(
        cells,
        expected(
            "ttft_expected_lo",
            row.ttft.lo,
            t,
            "the band's low end (p10 of the held-out residuals)",
            &why_band,
            basis,
        ),
    );
    put(
        cells,
        expected(
            "ttft_expected_hi",
            row.ttft.hi,
            t,
            "the band's high end (p90 of the held-out residuals)",
            &why_band,
            basis,
        ),
    );
    put(
        cells,
        expected(
            "tpot_expected",
            row.tpot.expected,
            |x| format!("expected TPOT ≈ {}", t(x)),
            &format!(
                "expected TPOT: the load model read by {fit}{}",
                band_title(&row.tpot)
            ),
            &why,
            basis,
        ),
    );
    put(
        cells,
        expected(
            "tpot_expected_lo",
            row.tpot.lo,
            t,
            "the band's low end (p10 of the held-out residuals)",
            &why_band,
            basis,
        ),
    );
    put(
        cells,
        expected(
            "tpot_expected_hi",
            row.tpot.hi,
            t,
            "the band's high end (p90 of the held-out residuals)",
            &why_band,
            basis,
        ),
    );
    put(
        cells,
        expected(
            "tokens_per_s_expected",
            row.tokens_per_s.expected,
            |x| format!("≈ {} tok/s expected", format_sig(x, 3)),
            &format!("expected output tokens per second, by {fit}"),
            &why,
            basis,
        ),
    );
    put(
        cells,
        expected(
            "requests_per_s_expected",
            row.requests_per_s.expected,
            |x| format!("≈ {} req/s expected", format_sig(x, 3)),
            &format!("expected requests per second, by {fit}"),
            &why,
            basis,
        ),
    );
}

/// `running_batch`, `saturation_qps`, `goodput_qps` and the engine.
fn extras(row: &LoadRow, cells: &mut Vec<Cell>) {
    let why = row.why_none.clone().unwrap_or_else(|| "no figure".into());
    put(
        cells,
        cell(
            "running_batch",
            row.running_batch,
            |n| format!("running {}", format_sig(n, 4)),
            "the mean number of requests inside the engine (Little's law over the running ones)",
            &why,
        ),
    );
    let sat_why = row.saturation_none.clone().unwrap_or_else(|| why.clone());
    put(
        cells,
        cell(
            "saturation_qps",
            row.saturation_qps,
            |x| format!("saturates at {} req/s", format_sig(x, 4)),
            "the largest sustainable rate: N_cap / (TTFT + (G − 1)·TPOT) at the cap (the bound)",
            &sat_why,
        ),
    );
    let good_why = row.goodput_none.clone().unwrap_or_else(|| why.clone());
    put(cells, cell("goodput_qps", row.goodput_qps, |x| format!("goodput {} req/s", format_sig(x, 4)),
        "the largest rate at which the mean TTFT ≤ ttft_max and the mean TPOT ≤ tpot_max (the bound)", &good_why));
    let own = row
        .own
        .map(|o| format!("{}; the step pattern and defaults generic's", own_words(&o)));
    put(
        cells,
        engine_cell(row.engine, own.as_deref().or(row.fallback.as_deref())),
    );
}

/// The engine named, with why its expectation is another engine's fit, if it is.
fn engine_cell(engine: Engine, fallback: Option<&str>) -> Cell {
    let mut e = Cell {
        metric: "engine",
        value: engine.as_str().into(),
        text: format!("engine {}", engine_name(engine)),
        class: "",
        title: "the engine whose step pattern and defaults apply (engine=)".into(),
        basis: None,
    };
    if let Some(f) = fallback {
        e.title.push_str(&format!("; expectation: {f}"));
    }
    e
}

/// The derivation's lines: the load's equations beside their numbers, its notes, and where
/// the expectation comes from.
#[cfg(feature = "load")]
fn lines(row: &LoadRow) -> Vec<String> {
    let mut v = row.derivation.clone();
    v.extend(row.notes.iter().cloned());
    if let Some(w) = &row.why_none {
        v.push(format!("No latency or throughput figure: {w}."));
    }
    if let Some(w) = &row.expected_none {
        v.push(format!("No expected figure: {w}."));
    }
    v
}
