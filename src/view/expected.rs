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

use super::cell::Cell;
use super::names::pretty;

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

/// A serving row's expectations (issue 25): `tpot_expected` from the set's decode runs,
/// `ttft_expected` from its prefill runs, each times the bare serving figure, and
/// `tokens_per_s_expected` = B / `tpot_expected` (`none` where the batch does not fit). `none`
/// with the reason where the set has no evidence.
/// `figures` are the row's own serving figures: re-used when the options are already bare, so
/// an edit times the steps once.
pub fn serving_expected_cells(
    op: &Op,
    chip: &Chip,
    opts: &Options,
    figures: &roofline::serving::Serving,
) -> Vec<Cell> {
    let bare = Options {
        convention: opts.convention,
        ..Options::default()
    };
    let computed;
    let v = if *opts == bare {
        figures
    } else {
        match roofline::serving::serving(op, chip, &bare) {
            Ok(Some(v)) => {
                computed = v;
                &computed
            }
            _ => return Vec::new(),
        }
    };
    let phase = |p: &str| {
        let mut o = op.clone();
        o.set("phase", p).ok().map(|_| o)
    };
    let expect = |p: &str, t: f64| -> Result<Expectation, String> {
        let o = phase(p).ok_or_else(|| format!("no {p} phase"))?;
        expectation_for(&o, chip, t)
    };
    let cell =
        |metric: &'static str, label: &str, e: &Result<Expectation, String>, bare: f64| match e {
            Ok(e) => Cell {
                metric,
                value: format_exact(e.t),
                text: format!(
                    "{label} ≈ {} ({}–{})",
                    pretty(e.t, Unit::Seconds),
                    pretty(e.lo, Unit::Seconds),
                    pretty(e.hi, Unit::Seconds)
                ),
                class: "",
                title: expectation_words(e, bare),
            },
            Err(why) => Cell {
                metric,
                value: "none".into(),
                text: "—".into(),
                class: "",
                title: why.clone(),
            },
        };
    let tpot = expect("decode", v.tpot);
    let ttft = expect("prefill", v.ttft);
    let mut out = vec![
        cell("tpot_expected", "expected TPOT", &tpot, v.tpot),
        cell("ttft_expected", "expected TTFT", &ttft, v.ttft),
    ];
    out.push(match (&tpot, v.fits) {
        (Ok(e), true) => Cell {
            metric: "tokens_per_s_expected",
            value: format_exact(v.batch / e.t),
            text: format!(
                "≈ {} tok/s expected",
                roofline::units::format_sig(v.batch / e.t, 3)
            ),
            class: "",
            title: format!(
                "B / expected TPOT: {} / {}",
                format_exact(v.batch),
                pretty(e.t, Unit::Seconds)
            ),
        },
        (Err(why), _) => Cell {
            metric: "tokens_per_s_expected",
            value: "none".into(),
            text: "—".into(),
            class: "",
            title: why.clone(),
        },
        (Ok(_), false) => Cell {
            metric: "tokens_per_s_expected",
            value: "none".into(),
            text: "—".into(),
            class: "bound-memory",
            title: "the batch does not fit at P + G: no throughput".into(),
        },
    });
    out
}

/// A training row's expectations from its expected step time (issue 25): `mfu_expected` =
/// MFU × T_lower / t_expected and `days_expected` = days × t_expected / T_lower (the budget at
/// the expected step time); `none` with the reason where there is no expected time. Rows
/// without an MFU or a budget get neither.
pub fn add_training_expected(cells: &mut Vec<Cell>) {
    let get = |m: &str| cells.iter().find(|c| c.metric == m).cloned();
    let (Some(mfu), Some(t_lower), Some(exp)) = (get("mfu"), get("t_lower"), get("t_expected"))
    else {
        return;
    };
    let num = |c: &Cell| c.value.parse::<f64>().ok();
    let days = get("days");
    let mut add = |metric: &'static str, v: Option<f64>, text: &dyn Fn(f64) -> String| {
        cells.push(match v {
            Some(v) if v.is_finite() => Cell {
                metric,
                value: format_exact(v),
                text: text(v),
                class: "",
                title: format!("from the expected step time: {}", exp.title),
            },
            _ => Cell {
                metric,
                value: "none".into(),
                text: "—".into(),
                class: "",
                title: exp.title.clone(),
            },
        });
    };
    let ratio = match (num(&t_lower), num(&exp)) {
        (Some(t), Some(e)) if e > 0.0 => Some(t / e),
        _ => None,
    };
    add(
        "mfu_expected",
        ratio.zip(num(&mfu)).map(|(r, m)| m * r),
        &|v| {
            format!(
                "≈ {}% MFU expected",
                roofline::units::format_sig(100.0 * v, 3)
            )
        },
    );
    if let Some(d) = days.as_ref().and_then(num) {
        add("days_expected", ratio.map(|r| d / r), &|v| {
            format!("≈ {} days expected", roofline::units::format_sig(v, 3))
        });
    }
}
