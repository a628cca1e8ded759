//! The explanation panel of a row (issue 26), as lines: the row against the baseline part by
//! part and input by input, then "what moves it". Computed only while the panel is open (the
//! Shapley split evaluates `T_lower` up to 2^n times). Pure, tested natively.

use roofline::inputs::Scenario;
use roofline::results::analyze;
use roofline::results::{explain, levers, ratio_words, Explanation};
use roofline::units::{format_sig, Unit};

use super::compare::{row_label, ELASTICITY_METHOD, SHAPLEY_METHOD};
use super::names::pretty;

/// One part on both sides.
#[derive(Debug, Clone, PartialEq)]
pub struct PartLine {
    /// The part (`MLP gate ×32`).
    pub name: String,
    /// Its time on the baseline (`—` when it has no such part).
    pub base: String,
    /// Its time on the row.
    pub row: String,
    /// What binds it on the baseline.
    pub base_binding: String,
    /// What binds it on the row.
    pub row_binding: String,
    /// Its share of the change (`34.5 %`, `−12 %`).
    pub share: String,
    /// The share as a number (`data-value`), `none` when the total does not change.
    pub share_value: String,
}

/// The row against its baseline.
#[derive(Debug, Clone, PartialEq)]
pub struct Against {
    /// `B200 against the baseline H100 SXM: 6.22 ms against 14.9 ms, 0.419× (2.39× faster)`.
    pub summary: String,
    /// Largest share first.
    pub parts: Vec<PartLine>,
    /// `the parts' shares add up to 100 %`.
    pub parts_total: String,
    /// `(key, share value, words)`: `HBM bandwidth 3.35 TB/s → 8 TB/s explains 100 % of the
    /// change`, largest first.
    pub inputs: Vec<(String, String, String)>,
    /// The method, the inputs left out, and any note.
    pub notes: Vec<String>,
}

/// The panel of a row.
#[derive(Debug, Clone, PartialEq)]
pub struct ExplainPanel {
    /// The row's name.
    pub title: String,
    /// Against the baseline, when there is one and this row is not it; or why not.
    pub against: Result<Against, String>,
    /// `(key, change, words)`, most time saved first.
    pub levers: Vec<(String, String, String)>,
    /// `buy HBM bandwidth, not FLOPs`.
    pub cheapest: String,
    /// How the elasticities are found.
    pub method: &'static str,
}

fn percent(v: f64) -> String {
    let t = format_sig(100.0 * v, 3);
    format!("{} %", t.replacen('-', "−", 1))
}

fn opt_time(t: Option<f64>) -> String {
    t.map_or("—".into(), |t| pretty(t, Unit::Seconds))
}

/// The panel of operation `i` on chip `j`: `Err` with the reason when the row has no analysis.
pub fn explain_panel(s: &Scenario, i: usize, j: usize) -> Result<ExplainPanel, String> {
    let (op, chip) = (
        s.ops.get(i).ok_or("no such operation")?,
        s.chips.get(j).ok_or("no such chip")?,
    );
    let a = analyze(op, chip, &s.options).map_err(|e| e.to_string())?;
    let l = levers(&a, chip, &s.options);
    let against = match s.base_row() {
        None => Err("no baseline: choose one with a row's \"base\" button".into()),
        Some(b) if (b.op, b.chip) == (i, j) => Err("this row is the baseline".into()),
        Some(b) => explain((&s.ops[b.op], &s.chips[b.chip]), (op, chip), &s.options)
            .map(|e| against(&row_label(s, i, j), &row_label(s, b.op, b.chip), &e))
            .map_err(|e| format!("the baseline has no time: {e}")),
    };
    Ok(ExplainPanel {
        title: row_label(s, i, j),
        against,
        levers: l
            .levers
            .into_iter()
            .map(|l| (l.key, roofline::units::format_exact(l.change), l.words))
            .collect(),
        cheapest: l.cheapest,
        method: ELASTICITY_METHOD,
    })
}

fn against(row: &str, base: &str, e: &Explanation) -> Against {
    let summary = format!(
        "{row} against the baseline {base}: T_lower {} against {}, {}× ({})",
        pretty(e.t_row, Unit::Seconds),
        pretty(e.t_base, Unit::Seconds),
        format_sig(e.ratio, 3),
        ratio_words(e.ratio, base)
    );
    let parts: Vec<PartLine> = e
        .parts
        .iter()
        .map(|p| PartLine {
            name: p.name.clone(),
            base: opt_time(p.base),
            row: opt_time(p.row),
            base_binding: p.base_binding.clone().unwrap_or_else(|| "—".into()),
            row_binding: p.row_binding.clone().unwrap_or_else(|| "—".into()),
            share: p.share.map_or("—".into(), percent),
            share_value: p.share.map_or("none".into(), roofline::units::format_exact),
        })
        .collect();
    let total: f64 = e.parts.iter().filter_map(|p| p.share).sum();
    let parts_total = if e.delta == 0.0 {
        "no change in T_lower: no shares".into()
    } else {
        format!("the parts' shares add up to {}", percent(total))
    };
    let inputs = e
        .inputs
        .shares
        .iter()
        .map(|i| {
            let share = i.share.map_or("—".into(), percent);
            (
                i.key.clone(),
                i.share.map_or("none".into(), roofline::units::format_exact),
                format!(
                    "{} {} → {} explains {share} of the change",
                    i.label, i.from, i.to
                ),
            )
        })
        .collect();
    let mut notes = vec![format!("Split by input with {SHAPLEY_METHOD}.")];
    notes.extend(e.inputs.note.clone());
    if !e.inputs.unused.is_empty() {
        notes.push(format!(
            "Differ but move nothing here: {}.",
            e.inputs.unused.join(", ")
        ));
    }
    Against {
        summary,
        parts,
        parts_total,
        inputs,
        notes,
    }
}
