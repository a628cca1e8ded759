//! The expected time of a result (issue 25): the bare roofline's bound times what the
//! validation set measured for that kind of work on that chip's generation, with the p10–p90
//! band of its held-out residuals, as `data-metric` cells (`t_expected`, `t_expected_lo`,
//! `t_expected_hi`). Where the set has no evidence the cells are `none` and say why: never a
//! number without evidence. A user's own `cal=` and `derate=` do not change it: the fit is
//! against the bare bound. Pure, tested natively.

use roofline::analysis::Options;
use roofline::chip::Chip;
use roofline::op::Op;
use roofline::units::{format_exact, Unit};
use roofline::validation::{expectation_for, Expectation};

use super::names::pretty;
use super::rows::Cell;

/// The bare roofline bound of `op` on `chip` (no derate, no calibration: what the set's ratios
/// were fitted against); `t_lower` itself when the options are already bare.
fn bare_t_lower(op: &Op, chip: &Chip, opts: &Options, t_lower: f64) -> Option<f64> {
    let bare = Options {
        convention: opts.convention,
        ..Options::default()
    };
    if *opts == bare {
        Some(t_lower)
    } else {
        roofline::analysis::t_lower(op, chip, &bare).ok()
    }
}

/// How the expectation was made, for its cells' titles and the derivation.
pub fn expectation_words(e: &Expectation, bare: f64) -> String {
    format!(
        "expected {} = {:.3} × T_lower {} (the median measured / predicted of {} published \
         measurements{}: {}), p10–p90 of their held-out residuals {} to {}; validation set {}",
        pretty(e.t, Unit::Seconds),
        e.r,
        pretty(bare, Unit::Seconds),
        e.based_on.len(),
        e.borrowed_from
            .as_deref()
            .map(|b| format!(", borrowed from {b}"))
            .unwrap_or_default(),
        e.based_on.join(", "),
        pretty(e.lo, Unit::Seconds),
        pretty(e.hi, Unit::Seconds),
        e.set_version
    )
}

/// The expectation of a row: its cells and, when there is one, the derivation's line.
pub fn expected_cells(op: &Op, chip: &Chip, opts: &Options, t_lower: f64) -> Vec<Cell> {
    let e = bare_t_lower(op, chip, opts, t_lower)
        .ok_or_else(|| "no bare bound".to_string())
        .and_then(|bare| expectation_for(op, chip, bare).map(|e| (e, bare)));
    match e {
        Ok((e, bare)) => {
            let title = expectation_words(&e, bare);
            let cell = |metric: &'static str, v: f64, text: String| Cell {
                metric,
                value: format_exact(v),
                text,
                class: "",
                title: title.clone(),
            };
            vec![
                cell(
                    "t_expected",
                    e.t,
                    format!("≈ {}", pretty(e.t, Unit::Seconds)),
                ),
                cell("t_expected_lo", e.lo, pretty(e.lo, Unit::Seconds)),
                cell("t_expected_hi", e.hi, pretty(e.hi, Unit::Seconds)),
            ]
        }
        Err(why) => ["t_expected", "t_expected_lo", "t_expected_hi"]
            .into_iter()
            .map(|metric| Cell {
                metric,
                value: "none".into(),
                text: "—".into(),
                class: "",
                title: why.clone(),
            })
            .collect(),
    }
}

/// Puts a row's expectation cells after its `t_upper` cell (the column order of the table).
pub fn insert_expected(cells: &mut Vec<Cell>, expected: Vec<Cell>) {
    let at = cells
        .iter()
        .position(|c| c.metric == "t_upper")
        .map_or(cells.len(), |i| i + 1);
    cells.splice(at..at, expected);
}
