//! Everything the page shows, for any scenario: no panic, no `NaN`, `inf`, `Infinity` or `∞`
//! in any displayed text, and every plotted coordinate finite.
//!
//! Scenarios come from random and mutated links (decoded by `roofline::url::decode`, as the
//! page loads them) and from random edits of chips, operations, options and sweeps through
//! the same setters the forms use (`Chip::set_str`, `Op::set`), with extreme values (every
//! field's minimum and maximum) and adversarial text. For each one the test computes what
//! the page displays: `view::result_rows` (every cell's text, value and tooltip, every
//! derivation line, the part rows of model workloads), `view::key_line`, `view::sweep_chart`
//! for every `SweepMetric` on log and linear axes, `view::roofline_chart`, both chart models'
//! `table()` and `aria_label()`, `view::sweep_csv` and `view::scenario_json`; now and then
//! the SVG drawing of both charts.
//!
//! User text (chip names, labels) may itself say `NaN`; it is blanked out before the check.
//!
//! The normal tests run `screen_quick` (300 cases), every golden link and recipe, and the
//! corners (each kind with every field at its minimum or maximum on chips whose figures are
//! all 1 or all 1e30); `./dev fuzz` runs `fuzz_screen_volume` with `FUZZ_CASES` (default
//! 100000) in release mode:
//!
//! ```text
//! FUZZ_CASES=100000 cargo test -p roofline-lab --release --test it -- --ignored --nocapture screen_props::
//! ```
#![cfg(not(target_arch = "wasm32"))]

use crate::common;

use common::fuzz::{self, number_text, url_input};
use common::{golden_urls, Rng};
use roofline::scenario::{BaseRow, SweepAxes};
use roofline::url::decode;
use roofline::{
    preset, preset_ids, Calibration, Chip, ChipField, DType, FieldSpec, FieldType, FlopConvention,
    Op, OpKind, Options, PlotKind, Scenario, SweepSpec,
};
use roofline_lab::view::{self, ChartModel, ResultRow, SweepMetric};
use serde_json::Value;

// ---------------------------------------------------------------------------------------
// What counts as a non-finite number on screen

/// Words that only a non-finite number prints as: Rust's `NaN`, `inf`, JavaScript's
/// `Infinity` (compared case-insensitively, as whole words).
const BAD_WORDS: [&str; 3] = ["nan", "inf", "infinity"];

/// The first word of `text` that shows a non-finite number, if any (`∞` counts too).
fn bad_word(text: &str) -> Option<String> {
    if text.contains('∞') {
        return Some("∞".into());
    }
    text.split(|c: char| !c.is_alphanumeric())
        .find(|w| BAD_WORDS.iter().any(|b| w.eq_ignore_ascii_case(b)))
        .map(str::to_string)
}

/// Checks displayed text, with the scenario's user text blanked out.
struct Screen {
    /// User texts (names, labels; also as escaped in CSV) that contain a bad word.
    user: Vec<String>,
}

impl Screen {
    fn new(s: &Scenario) -> Screen {
        let mut user: Vec<String> = s
            .chips
            .iter()
            .map(|c| c.name.clone())
            .chain(s.ops.iter().filter_map(|o| o.label.clone()))
            .filter(|t| bad_word(t).is_some())
            .collect();
        let csv: Vec<String> = user.iter().map(|t| t.replace('"', "\"\"")).collect();
        user.extend(csv);
        // A chart title too wide for its canvas is cut with an ellipsis, maybe inside a name.
        let cut: Vec<String> = user
            .iter()
            .flat_map(|t| {
                t.char_indices()
                    .skip(1)
                    .map(|(i, _)| format!("{}…", t[..i].trim_end()))
                    .collect::<Vec<_>>()
            })
            .collect();
        user.extend(cut);
        // Longest first, so a text containing another is blanked whole.
        user.sort_by_key(|t| std::cmp::Reverse(t.len()));
        user.dedup();
        Screen { user }
    }

    fn text(&self, what: &str, text: &str) -> Result<(), String> {
        let mut t = text.to_string();
        for u in &self.user {
            if t.contains(u.as_str()) {
                t = t.replace(u.as_str(), "\u{1}");
            }
        }
        match bad_word(&t) {
            Some(w) => Err(format!("{what} shows {w:?}: {text:?}")),
            None => Ok(()),
        }
    }

    fn finite(&self, what: &str, v: f64) -> Result<(), String> {
        if v.is_finite() {
            Ok(())
        } else {
            Err(format!("{what} plots {v}"))
        }
    }
}

/// JSON keys whose value may be `null` (`None`); anywhere else a `null` is a number that was
/// not finite (`serde_json` writes NaN and infinities as `null`).
const NULLABLE: &[&str] = &[
    "analysis",
    // Issue 26: a result with an error has no elasticities; a row against the baseline whose
    // analysis fails has no explanation.
    "elasticities",
    "explanation",
    "error",
    "label",
    "theme",
    "compute",
    "tiles",
    "approx",
    "approx_intensity",
    "critical",
    "tiled",
    "preset_id",
    // A training step (op=train): its optional config, architecture and figures.
    "master",
    "tokens",
    "mfu",
    "price",
    "moe",
    "mla",
    "window",
    "days",
    "cost",
    "cost_upper",
    "budget",
    "days_at_mfu",
    "days_at_mfu_6n",
    "exact",
    "book",
    "critical_b",
    "max_tokens_per_chip",
    "optimal_fsdp",
    "book_min_batch",
];

fn json(screen: &Screen, what: &str, key: &str, v: &Value) -> Result<(), String> {
    match v {
        Value::Null if !NULLABLE.contains(&key) => Err(format!("{what}: {key} is null")),
        Value::String(t) if key != "url_query" => screen.text(&format!("{what}.{key}"), t),
        Value::Number(n) if !n.as_f64().is_some_and(f64::is_finite) => {
            Err(format!("{what}: {key} = {n}"))
        }
        Value::Array(a) => a.iter().try_for_each(|x| json(screen, what, key, x)),
        Value::Object(o) => o.iter().try_for_each(|(k, x)| json(screen, what, k, x)),
        _ => Ok(()),
    }
}

// ---------------------------------------------------------------------------------------
// The page

/// Metrics whose `data-value` is a word, not a number.
const WORD_METRICS: &[&str] = &[
    "bound",
    "fits",
    "parts_bound",
    "latency_bound",
    "algorithm",
    "engine",
    "best_disagg",
    "disagg_wins",
    "kv_hit_source",
];

fn row(screen: &Screen, r: &ResultRow) -> Result<(), String> {
    let what = format!("row {}", r.id);
    screen.text(&what, &r.name)?;
    // A serving row (issue 13) has figures without an analysis of its own.
    if r.class != "serving-row" && r.error.is_some() == r.analysis.is_some() {
        return Err(format!("{what}: error {:?} and analysis together", r.error));
    }
    if let Some(e) = &r.error {
        screen.text(&format!("{what} error"), e)?;
    }
    for c in &r.cells {
        let w = format!("{what} {}", c.metric);
        screen.text(&w, &c.text)?;
        screen.text(&w, &c.value)?;
        screen.text(&w, &c.title)?;
        // Serving tails (issue 42) are `pending` until the page's worker answers.
        let pending = c.value == roofline_lab::view::serving_tails::PENDING;
        if !WORD_METRICS.contains(&c.metric) && c.value != "none" && !pending {
            let v: f64 = c
                .value
                .parse()
                .map_err(|_| format!("{w}: value {:?} is not a number", c.value))?;
            screen.finite(&w, v)?;
        }
    }
    if let Some(a) = &r.analysis {
        let v = serde_json::to_value(a).map_err(|e| format!("{what}: {e}"))?;
        json(screen, &what, "analysis", &v)?;
        for (k, line) in r.derivation().iter().enumerate() {
            screen.text(&format!("{what} derivation line {k}"), line)?;
        }
    }
    r.parts
        .iter()
        .chain(r.serving.as_deref())
        .try_for_each(|p| row(screen, p))
}

fn chart_model(screen: &Screen, m: &ChartModel) -> Result<(), String> {
    screen.text("aria-label", &m.aria_label())?;
    let (head, rows) = m.table();
    for h in head {
        screen.text("table head", &h)?;
    }
    for r in rows {
        for c in r {
            screen.text("table cell", &c)?;
        }
    }
    Ok(())
}

const METRICS: [SweepMetric; 4] = [
    SweepMetric::Achieved,
    SweepMetric::Time,
    SweepMetric::Fraction,
    SweepMetric::TokensPerS,
];

/// Everything the page shows for `s`. `Ok(true)` when something was analysed and plotted.
fn page(s: &Scenario, case: usize) -> Result<bool, String> {
    let screen = Screen::new(s);
    let rows = view::result_rows(s);
    if rows.len() != s.ops.len() * s.chips.len() {
        return Err(format!("{} rows", rows.len()));
    }
    for r in &rows {
        row(&screen, r)?;
    }
    screen.text("key line", &view::key_line(s))?;
    // The explanation panel of the last row (against the baseline when there is one).
    if let Ok(p) = view::explain_panel(s, s.ops.len() - 1, s.chips.len() - 1) {
        let against = p.against.as_ref().ok();
        let lines = against
            .into_iter()
            .flat_map(|a| {
                let parts = a
                    .parts
                    .iter()
                    .flat_map(|l| [&l.name, &l.base, &l.row, &l.share]);
                let inputs = a.inputs.iter().map(|(_, _, w)| w);
                std::iter::once(&a.summary)
                    .chain(parts)
                    .chain(inputs)
                    .chain(&a.notes)
            })
            .chain(p.levers.iter().map(|(_, _, w)| w))
            .chain([&p.cheapest, &p.title]);
        for l in lines {
            screen.text("explanation panel", l)?;
        }
    }

    let mut plotted = false;
    for (k, metric) in METRICS.into_iter().enumerate() {
        // Every combination of log and linear axes comes up over four cases.
        let axes = (case + k) % 4;
        let (log_x, log_y) = (axes & 1 == 1, axes & 2 == 2);
        let c = view::sweep_chart(s, metric, log_x, log_y);
        let what = format!("{metric:?} sweep chart");
        for t in [&c.title, &c.x_label, &c.y_label] {
            screen.text(&what, t)?;
        }
        for series in &c.series {
            screen.text(&what, &series.label)?;
            for &(x, y) in &series.points {
                screen.finite(&format!("{what} {} x", series.label), x)?;
                screen.finite(&format!("{what} {} at x = {x}", series.label), y)?;
            }
            plotted |= !series.points.is_empty();
        }
        for m in &c.crossovers {
            screen.text(&what, &m.label)?;
            screen.finite(&format!("{what} crossover x"), m.x)?;
            screen.finite(&format!("{what} crossover {} y", m.label), m.y)?;
        }
        for h in &c.hlines {
            screen.text(&what, &h.label)?;
            screen.finite(&format!("{what} line {}", h.label), h.y)?;
        }
        for v in &c.vlines {
            screen.text(&what, &v.label)?;
            screen.finite(&format!("{what} line {}", v.label), v.x)?;
        }
        let m = ChartModel::Sweep(c);
        chart_model(&screen, &m)?;
        if case % 97 == k {
            svg(&screen, &m)?;
        }
    }

    let c = view::roofline_chart(s);
    let what = "roofline chart";
    for t in [&c.title, &c.x_label, &c.y_label] {
        screen.text(what, t)?;
    }
    for p in &c.points {
        screen.text(what, &p.label)?;
        screen.finite(&format!("{what} {} intensity", p.label), p.x)?;
        screen.finite(&format!("{what} {} achieved", p.label), p.y)?;
    }
    for x in &c.ceilings {
        screen.text(what, &x.label)?;
        screen.finite(&format!("{what} {}", x.label), x.flops_per_s)?;
    }
    for x in &c.slopes {
        screen.text(what, &x.label)?;
        screen.finite(&format!("{what} {}", x.label), x.bytes_per_s)?;
    }
    for x in &c.ridges {
        screen.text(what, &x.label)?;
        screen.finite(&format!("{what} {} x", x.label), x.x)?;
        screen.finite(&format!("{what} {} y", x.label), x.y)?;
    }
    let m = ChartModel::Roofline(c);
    chart_model(&screen, &m)?;
    if case % 97 == 4 {
        svg(&screen, &m)?;
    }

    // The serving frontier of the llm ops (issue 13).
    let f = view::frontier_chart(s);
    for c in &f.curves {
        screen.text("frontier", &c.label)?;
        for p in &c.points {
            screen.finite(&format!("frontier {} tpot", c.label), p.tpot)?;
            screen.finite(
                &format!("frontier {} tokens/s", c.label),
                p.tokens_per_s_chip,
            )?;
        }
    }
    let m = ChartModel::Frontier(f);
    chart_model(&screen, &m)?;
    if case % 97 == 5 {
        svg(&screen, &m)?;
    }

    // Now and then, the draw program's view of the same link (issue 27): what a link shows
    // before the app arrives.
    if case % 97 == 6 {
        drawn(&screen, s)?;
    }

    let csv = view::sweep_csv(s);
    screen.text("CSV", &csv)?;
    for line in csv.lines().skip(1) {
        // The last 8 fields: the swept value, 7 figures and the bound (names come first and
        // may hold commas).
        let fields: Vec<&str> = line.rsplitn(9, ',').collect();
        for f in &fields[1..8.min(fields.len())] {
            let v: f64 = f
                .parse()
                .map_err(|_| format!("CSV field {f:?} is not a number: {line}"))?;
            screen.finite("CSV", v)?;
        }
    }

    let doc: Value = serde_json::from_str(&view::scenario_json(s))
        .map_err(|e| format!("scenario JSON does not parse: {e}"))?;
    json(&screen, "scenario JSON", "", &doc)?;

    Ok(plotted && rows.iter().any(|r| r.analysis.is_some()))
}

/// The draw program's view of the scenario's link (`first_view::Drawn`): drawn without
/// panicking, every user text escaped (no markup from a name), no non-finite number in its
/// HTML or its plots.
fn drawn(screen: &Screen, s: &Scenario) -> Result<(), String> {
    let Some(d) = roofline_lab::first_view::Drawn::from_query(&roofline::url::encode(s)) else {
        return Ok(());
    };
    let html = d.html();
    if html.contains("<img") {
        return Err(format!("the drawn view holds markup from a name: {html}"));
    }
    // The link back to the page (an embed's) carries the names URL-encoded: not shown.
    let shown: String = html
        .split("href=\"")
        .enumerate()
        .map(|(i, part)| {
            if i == 0 {
                part
            } else {
                part.split_once('"').map_or("", |(_, rest)| rest)
            }
        })
        .collect();
    screen.text("drawn view", &shown)?;
    for i in 0..d.plots() {
        if let Some(svg) = d.svg(i, 390, 260, i % 2 == 1) {
            if svg.contains("<img") {
                return Err(format!("drawn plot {i} holds markup from a name: {svg}"));
            }
            screen.text("drawn plot", &svg)?;
        }
    }
    Ok(())
}

/// The SVG export of a chart: drawn without panicking, and no non-finite number in it.
fn svg(screen: &Screen, m: &ChartModel) -> Result<(), String> {
    match m.to_svg(false, 640, 400) {
        Ok(doc) => screen.text(&format!("{} SVG", m.kind()), &doc),
        // A chart that cannot be drawn says so (the page shows the message).
        Err(e) => screen.text(&format!("{} SVG error", m.kind()), &e),
    }
}

// ---------------------------------------------------------------------------------------
// Scenarios

/// Names and labels, some of them saying `NaN` or holding markup.
const TEXTS: &[&str] = &[
    "x",
    "NaN",
    "inf",
    "Infinity chip",
    "∞",
    "<img src=x onerror=alert(1)>",
    "a, b: c & d = e",
    "日本 ✓ 😀",
    "  padded  ",
    "\"quoted\"",
];

/// A value for an op field: mostly valid (its minimum, maximum, or anything between on a log
/// scale), sometimes adversarial text (then usually refused).
fn op_value(r: &mut Rng, f: &FieldSpec) -> String {
    if r.chance(6) {
        return number_text(r);
    }
    if let Some(none) = f.none {
        if r.chance(4) {
            return none.to_string();
        }
    }
    match f.ty {
        FieldType::DType => r.pick(&DType::ALL).as_str().to_string(),
        FieldType::Choice(ids) => r.pick(ids).to_string(),
        // Structured text (a collective's torus axes or cluster levels).
        FieldType::Text => match f.key {
            "axes" => r
                .pick(&["4x4", "16", "8nx16w", "2x2x2", "1x1", "16x16", "4x4x4"])
                .to_string(),
            _ => r
                .pick(&["auto", "8", "8/32", "8@450G/32@400G/4", "2@1/2@1e30"])
                .to_string(),
        },
        FieldType::Integer | FieldType::Number => {
            let v = extreme(r, f.min, f.max);
            let v = if f.ty == FieldType::Integer {
                v.round().clamp(f.min, f.max)
            } else {
                v
            };
            roofline::format_exact(v)
        }
    }
}

/// A number from `min` to `max`: either end, just inside, or log-uniform between.
fn extreme(r: &mut Rng, min: f64, max: f64) -> f64 {
    let lo = min.max(1e-3);
    match r.below(6) {
        0 => min,
        1 => max,
        2 => (min + 1.0).min(max),
        _ => (lo.ln() + r.unit() * (max.ln() - lo.ln()))
            .exp()
            .clamp(min, max),
    }
}

/// A value for a chip field through the form's parser: extreme, random, removed, or junk.
fn chip_value(r: &mut Rng, f: ChipField) -> String {
    match r.below(8) {
        _ if f == ChipField::Name => r.pick(TEXTS).to_string(),
        0 => number_text(r),
        1 => "none".into(),
        _ if f == ChipField::Links => roofline::format_exact(extreme(r, 1.0, 1024.0).round()),
        2 => "1".into(),
        3 => "1e30".into(),
        _ => roofline::format_exact(10f64.powf(r.unit() * 30.0)),
    }
}

fn edit_chip(r: &mut Rng, c: &mut Chip) {
    for _ in 0..r.below(8) {
        let f = r.pick(&ChipField::ALL);
        let _ = c.set_str(f, &chip_value(r, f));
    }
    if r.chance(5) {
        c.interconnect = match c.interconnect {
            roofline::Interconnect::Switch => roofline::Interconnect::PointToPoint,
            roofline::Interconnect::PointToPoint => roofline::Interconnect::Switch,
        };
    }
}

fn edit_op(r: &mut Rng, o: &mut Op) {
    let fields = o.fields();
    for _ in 0..r.below(fields.len() + 3) {
        let f = &fields[r.below(fields.len())];
        let _ = o.set(f.key, &op_value(r, f));
    }
    if r.chance(4) {
        o.label = Some(r.pick(TEXTS).to_string());
    }
}

/// A sweep over a numeric field of one of `ops` (or any field, now and then), between
/// extremes of its range, linear or log, 2 to 4096 points (mostly few).
fn random_sweep(r: &mut Rng, ops: &[Op]) -> SweepSpec {
    let numeric: Vec<&'static FieldSpec> = ops
        .iter()
        .flat_map(|o| o.fields().iter().filter(|f| f.is_numeric()))
        .collect();
    if numeric.is_empty() || r.chance(8) {
        return SweepSpec {
            points: points(r),
            ..SweepSpec::default()
        };
    }
    let f = numeric[r.below(numeric.len())];
    let (mut a, mut b) = (extreme(r, f.min, f.max), extreme(r, f.min, f.max));
    if f.ty == FieldType::Integer {
        a = a.round();
        b = b.round();
    }
    if a > b {
        std::mem::swap(&mut a, &mut b);
    }
    if a == b {
        b = f.max;
    }
    SweepSpec {
        field: f.key.to_string(),
        from: a,
        to: b,
        points: points(r),
        log: a > 0.0 && r.chance(2),
    }
}

/// Sweep points: mostly few, so that a hundred thousand cases take minutes; now and then
/// the default 511 or the most a link may ask for, 4096.
fn points(r: &mut Rng) -> usize {
    match r.below(256) {
        0 => 4096,
        1..=8 => 511,
        _ => 2 + r.below(63),
    }
}

fn options(r: &mut Rng) -> Options {
    Options {
        convention: if r.chance(2) {
            FlopConvention::TwoPerMac
        } else {
            FlopConvention::OnePerMac
        },
        derate: match r.below(4) {
            0 => 1.0,
            1 => 0.01,
            _ => 0.01 + 0.99 * r.unit(),
        },
        cal: match r.below(3) {
            0 => Calibration::NONE,
            1 => Calibration::new(1e-4, 1e-4, 1.0).unwrap(),
            _ => Calibration::new(
                0.05 + 0.95 * r.unit(),
                0.05 + 0.95 * r.unit(),
                1e-5 * r.unit(),
            )
            .unwrap(),
        },
    }
}

/// A scenario built by random edits through the forms' setters.
fn edited(r: &mut Rng) -> Scenario {
    let chips = (0..1 + r.below(3))
        .map(|_| {
            let mut c = if r.chance(4) {
                Chip::custom(r.pick(TEXTS))
            } else {
                preset(r.pick(&preset_ids())).unwrap()
            };
            edit_chip(r, &mut c);
            c
        })
        .collect();
    let ops: Vec<Op> = (0..1 + r.below(4))
        .map(|_| {
            let mut o = Op::default_for(r.pick(&OpKind::IDS)).unwrap();
            edit_op(r, &mut o);
            o
        })
        .collect();
    let chips: Vec<Chip> = chips;
    let base = r.chance(2).then(|| BaseRow {
        op: r.below(ops.len()),
        chip: r.below(chips.len()),
    });
    Scenario {
        chips,
        sweep: random_sweep(r, &ops),
        ops,
        plot: r.pick(&[PlotKind::Sweep, PlotKind::Roofline]),
        axes: SweepAxes::default(),
        options: options(r),
        embed: r.chance(4),
        theme: None,
        base,
    }
}

/// Case `i`: a random or mutated link (as the page loads it), a golden link edited through
/// the setters, or a scenario built from scratch by random edits.
fn scenario(r: &mut Rng, i: usize, golden: &[&str]) -> Scenario {
    let mut s = match i % 4 {
        0 => decode(&url_input(r, i / 4, golden)).scenario,
        1 => {
            let mut s = decode(r.pick(golden)).scenario;
            for c in &mut s.chips {
                if r.chance(2) {
                    edit_chip(r, c);
                }
            }
            for o in &mut s.ops {
                if r.chance(2) {
                    edit_op(r, o);
                }
            }
            if r.chance(2) {
                s.sweep = random_sweep(r, &s.ops);
            }
            if r.chance(3) {
                s.options = options(r);
            }
            s
        }
        _ => edited(r),
    };
    // Links mostly sweep 511 points (the default); keep that in 1 case of 8 and sweep fewer
    // points otherwise, for speed (the points are where the time goes).
    if i % 4 < 2 && !r.chance(8) {
        s.sweep.points = points(r);
    }
    s
}

fn fuzz_screen(cases: usize) {
    let golden = golden_urls();
    let plotted = fuzz::run(
        "screen",
        cases,
        fuzz::seed(),
        |r, i| (i, scenario(r, i, &golden)),
        |(i, s)| page(s, *i),
    );
    // Most scenarios must get as far as figures and curves, or the test checks little.
    assert!(plotted > cases / 3, "{plotted} of {cases} plotted");
}

#[test]
fn screen_quick() {
    fuzz_screen(300);
}

#[test]
#[ignore = "volume: run by ./dev fuzz"]
fn fuzz_screen_volume() {
    fuzz_screen(fuzz::volume());
}

/// The golden links, the first-load scenario and the recipes, on every axis combination.
#[test]
fn known_scenarios_show_finite_numbers() {
    let mut all: Vec<Scenario> = golden_urls()
        .into_iter()
        .map(|u| decode(u).scenario)
        .collect();
    all.push(Scenario::default());
    all.extend(view::recipes().into_iter().map(|r| r.scenario));
    for (i, s) in all.iter().enumerate() {
        for case in 0..4 {
            if let Err(e) = page(s, case) {
                panic!("scenario {i} ({}): {e}", roofline::url::encode(s));
            }
        }
    }
}

/// Tokens/s at a crossover: the crossover lies between grid points, at a fractional batch
/// (it used to plot NaN, the batch being refused as not whole).
#[test]
fn tokens_per_s_crossovers_are_finite() {
    let s = decode("?chip=h100&op=llm:phase=prefill,ctx=64&sweep=b:1..64").scenario;
    let c = view::sweep_chart(&s, SweepMetric::TokensPerS, false, false);
    assert!(!c.crossovers.is_empty());
    for m in &c.crossovers {
        assert!(m.x.fract() != 0.0 && m.y.is_finite() && m.y > 0.0, "{m:?}");
    }
}

/// A chip with every value at `v`, clamped to each field's range (links at 1 or 1024,
/// latencies at most 1000 s).
fn uniform_chip(v: f64, switch: bool) -> Chip {
    let mut c = Chip::custom(&format!("all {v}"));
    for f in &ChipField::ALL[1..] {
        let (min, max, _) = f.range();
        c.set(*f, v.clamp(min, max)).unwrap();
    }
    if switch {
        c.interconnect = roofline::Interconnect::Switch;
    }
    c
}

/// The corners: every kind with every numeric field at its minimum or its maximum, in the
/// narrowest and the widest dtype, on chips whose every figure is 1 or 1e30, swept over each
/// numeric field's whole range.
#[test]
fn corners_show_finite_numbers() {
    let chips = vec![
        uniform_chip(1.0, false),
        uniform_chip(1e30, true),
        preset("h100").unwrap(),
    ];
    let (mut cases, mut plotted) = (0, 0);
    for kind in OpKind::IDS {
        for (at_max, dtype) in [
            (false, "fp32"),
            (true, "fp32"),
            (false, "int4"),
            (true, "int4"),
        ] {
            let mut op = Op::default_for(kind).unwrap();
            for f in op.fields() {
                let v = match f.ty {
                    FieldType::Integer | FieldType::Number if at_max => f.max,
                    FieldType::Integer | FieldType::Number => f.min,
                    FieldType::DType => continue,
                    FieldType::Choice(ids) if at_max => {
                        op.set(f.key, ids[ids.len() - 1]).unwrap();
                        continue;
                    }
                    FieldType::Choice(_) | FieldType::Text => continue,
                };
                op.set(f.key, &roofline::format_exact(v)).unwrap();
            }
            for f in op.fields().iter().filter(|f| f.ty == FieldType::DType) {
                op.set(f.key, dtype).unwrap();
            }
            let numeric: Vec<&FieldSpec> = op.fields().iter().filter(|f| f.is_numeric()).collect();
            for f in numeric {
                for derate in [0.01, 1.0] {
                    let s = Scenario {
                        chips: chips.clone(),
                        ops: vec![op.clone()],
                        sweep: SweepSpec {
                            field: f.key.into(),
                            from: f.min,
                            to: f.max,
                            points: 64,
                            log: f.min > 0.0,
                        },
                        options: Options {
                            derate,
                            convention: if derate < 1.0 {
                                FlopConvention::OnePerMac
                            } else {
                                FlopConvention::TwoPerMac
                            },
                            cal: Calibration::NONE,
                        },
                        ..Scenario::default()
                    };
                    match page(&s, cases) {
                        // A training step at its corners (1e9 chips, 1-token batches) is
                        // mostly no valid mesh: it must show finite numbers, not a plot.
                        Ok(p) => plotted += usize::from(p || kind == "train"),
                        Err(e) => panic!("{}: {e}", roofline::url::encode(&s)),
                    }
                    cases += 1;
                }
            }
        }
    }
    assert!(
        cases > 100 && plotted == cases,
        "{plotted} of {cases} plotted"
    );
}

/// The checker itself: it must catch what a non-finite number prints as, and only that.
#[test]
fn the_checker_catches_non_finite_numbers() {
    let s = Scenario::default();
    let screen = Screen::new(&s);
    for bad in [
        format!("{}", f64::NAN),
        format!("T = {} s", f64::INFINITY),
        format!("{}%", -f64::INFINITY),
        roofline::format_quantity(f64::INFINITY, roofline::Unit::Seconds),
        roofline::units::format_sig(f64::NAN, 3),
        "Infinity".into(),
        "x=inf,".into(),
    ] {
        assert!(screen.text("t", &bad).is_err(), "{bad:?} passes");
    }
    for good in [
        "information",
        "infer",
        "1e308",
        "nano",
        "banana",
        "FLOPs/s",
        "—",
    ] {
        screen.text("t", good).unwrap();
    }
    assert!(screen.finite("x", f64::NAN).is_err());
    assert!(screen.finite("x", f64::INFINITY).is_err());
    let mut v = serde_json::json!({"t_math": 1.0});
    v["t_math"] = Value::Null;
    assert!(json(&screen, "j", "", &v).is_err());
    json(
        &screen,
        "j",
        "",
        &serde_json::json!({"critical": null, "t": 1.5}),
    )
    .unwrap();

    // User text that says NaN is not a number on screen; the same word elsewhere is.
    let s = decode("?chip=custom:name=NaN+chip&op=dot:label=inf").scenario;
    let screen = Screen::new(&s);
    screen
        .text("t", "dot inf · NaN chip: memory-bound")
        .unwrap();
    assert!(screen.text("t", "NaN chip: T = NaN s").is_err());
    page(&s, 0).unwrap();
}

// ---------------------------------------------------------------------------------------
// Snapshot: everything the page shows, as text, for a restructuring to compare

/// What the page shows for `s`, written out: every row's cells (value, text, tooltip) and
/// derivation, the key line, the explanation panel of the last row, every sweep chart's
/// points on linear axes, the roofline chart's points, the serving frontier, and the sweep
/// CSV, results CSV and scenario JSON exports.
fn snapshot_of(s: &Scenario, out: &mut String) {
    use std::fmt::Write;
    fn rows(out: &mut String, rs: &[ResultRow]) {
        for r in rs {
            let _ = writeln!(out, "row {} {} {:?}", r.id, r.name, r.error);
            for c in &r.cells {
                let _ = writeln!(
                    out,
                    "  {} = {} | {} | {}",
                    c.metric, c.value, c.text, c.title
                );
            }
            if r.analysis.is_some() {
                for l in r.derivation() {
                    let _ = writeln!(out, "  > {l}");
                }
            }
            rows(out, &r.parts);
            rows(
                out,
                r.serving
                    .as_deref()
                    .map(std::slice::from_ref)
                    .unwrap_or(&[]),
            );
        }
    }
    rows(out, &view::result_rows(s));
    let _ = writeln!(out, "key {}", view::key_line(s));
    if let Ok(p) = view::explain_panel(s, s.ops.len() - 1, s.chips.len() - 1) {
        let _ = writeln!(out, "explain {} {:?}", p.title, p.levers);
        if let Ok(a) = &p.against {
            let _ = writeln!(out, "  {} {:?} {:?}", a.summary, a.inputs, a.notes);
            for l in &a.parts {
                let _ = writeln!(out, "  {} {} {} {}", l.name, l.base, l.row, l.share);
            }
        }
    }
    for metric in METRICS {
        let c = view::sweep_chart(s, metric, false, false);
        let _ = writeln!(
            out,
            "sweep {metric:?} {} {} {}",
            c.title, c.x_label, c.y_label
        );
        for series in &c.series {
            let _ = writeln!(out, "  {} {:?}", series.label, series.points);
        }
        for m in &c.crossovers {
            let _ = writeln!(out, "  x {} {} {}", m.label, m.x, m.y);
        }
    }
    let c = view::roofline_chart(s);
    for p in &c.points {
        let _ = writeln!(out, "point {} {} {}", p.label, p.x, p.y);
    }
    for c in &view::frontier_chart(s).curves {
        let pts: Vec<_> = c
            .points
            .iter()
            .map(|p| (p.tpot, p.tokens_per_s_chip))
            .collect();
        let _ = writeln!(out, "frontier {} {pts:?}", c.label);
    }
    out.push_str(&view::sweep_csv(s));
    out.push_str(&view::results_csv(s));
    out.push_str(&view::scenario_json(s));
    out.push('\n');
}

/// Writes the snapshot of `SNAPSHOT_CASES` (default 3000) fuzzed scenarios of seed
/// `FUZZ_SEED` to the file `SNAPSHOT_OUT`, one case after another. Run it before and after a
/// change that must not change behaviour, and compare the files:
///
/// ```text
/// SNAPSHOT_OUT=/tmp/before.txt cargo test -p roofline-lab --release --test it -- --ignored screen_props::snapshot
/// ```
#[test]
#[ignore = "a tool: writes SNAPSHOT_OUT"]
fn snapshot() {
    let Ok(path) = std::env::var("SNAPSHOT_OUT") else {
        return;
    };
    let cases: usize = std::env::var("SNAPSHOT_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3000);
    let golden = golden_urls();
    let mut out = String::new();
    // With `SNAPSHOT_URLS`, a file of `=== case <i> <link>` lines (an earlier snapshot): those
    // links' scenarios, so a change that shifts the generator's choices (a kind with new fields)
    // is still compared scenario for scenario.
    let given: Option<Vec<(usize, Scenario)>> = std::env::var("SNAPSHOT_URLS").ok().map(|p| {
        std::fs::read_to_string(p)
            .expect("read SNAPSHOT_URLS")
            .lines()
            .filter_map(|l| l.strip_prefix("=== case "))
            .filter_map(|l| l.split_once(' '))
            .filter_map(|(i, u)| Some((i.parse().ok()?, decode(u).scenario)))
            .collect()
    });
    let cases: Vec<(usize, Scenario)> = given.unwrap_or_else(|| {
        (0..cases)
            .map(|i| {
                (
                    i,
                    scenario(&mut fuzz::case_rng(fuzz::seed(), i), i, &golden),
                )
            })
            .collect()
    });
    for (i, s) in &cases {
        use std::fmt::Write;
        let _ = writeln!(out, "=== case {i} {}", roofline::url::encode(s));
        snapshot_of(s, &mut out);
    }
    for u in &golden {
        out.push_str("=== golden ");
        out.push_str(u);
        out.push('\n');
        snapshot_of(&decode(u).scenario, &mut out);
    }
    std::fs::write(&path, out).expect("write SNAPSHOT_OUT");
}
