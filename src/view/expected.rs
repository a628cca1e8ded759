//! The expected time of a result (issue 25): the bare roofline's bound times what the
//! validation set measured for that kind of work on that chip's generation, with the p10–p90
//! band of its held-out residuals, as `data-metric` cells (`t_expected`, `t_expected_lo`,
//! `t_expected_hi`). Where the set has no evidence the cells are `none` and say why: never a
//! number without evidence. A user's own `cal=` and `derate=` do not change it: the fit is
//! against the bare bound. Pure, tested natively.

use roofline::results::ServingExpectation;
use roofline::units::{format_exact, format_sig, Unit};
use roofline::validation::{Expectation, Term, MIN_POINTS};

use super::cell::Cell;
use super::names::pretty;

/// The model's sum for a figure, term by term, each kept term with the feature it multiplies:
/// `1.29 × 1 memory (at 77.7% of the HBM bandwidth) + 0.204 × 1 step-memory (a step's memory
/// pieces at 67.1% of the HBM bandwidth) + 12.4 × 0.0561 multi-chip (12.4 µs per collective per
/// doubling of the group)` for a memory-bound decode step over 8 chips.
fn model_words(e: &Expectation) -> String {
    let f = &e.features;
    let coef = |t: Term| e.model.coef(t).unwrap_or(1.0);
    let at = |a: f64| format_sig(100.0 / a, 3);
    let mut parts = Vec::new();
    for (&term, &a) in e.model.terms.iter().zip(&e.model.coef) {
        let x = term.x(f);
        if x <= 0.0 {
            continue;
        }
        let how = match term {
            Term::Compute => format!(" (at {}% of the peak)", at(a)),
            Term::Memory => format!(" (at {}% of the HBM bandwidth)", at(a)),
            Term::Network => format!(" (at {}% of the link bandwidth)", at(a)),
            Term::StepMemory => format!(
                " (a step's memory pieces at {}% of the HBM bandwidth)",
                at(coef(Term::Memory) + a)
            ),
            Term::StepCompute => format!(
                " (a step's compute pieces at {}% of the peak)",
                at(coef(Term::Compute) + a)
            ),
            Term::MultiChip => format!(
                " ({} µs per collective per doubling of the group)",
                format_sig(a, 3)
            ),
            Term::Launch => format!(" ({} µs per kernel launch)", format_sig(a, 3)),
            Term::Step => format!(" ({} ms per model step)", format_sig(a, 3)),
            _ => String::new(),
        };
        parts.push(format!(
            "{} × {} {}{how}",
            format_sig(a, 3),
            format_sig(x, 3),
            term.id()
        ));
    }
    parts.join(" + ")
}

/// How the expectation was made, for its cells' titles and the derivation.
pub fn expectation_words(e: &Expectation, bare: f64) -> String {
    let band = match (e.lo, e.hi) {
        (Some(lo), Some(hi)) => format!(
            "p10–p90 of the held-out residuals of the {} points of this kind of work ({}): {} to {}",
            e.based_on.len(),
            e.based_on.join(", "),
            pretty(lo, Unit::Seconds),
            pretty(hi, Unit::Seconds)
        ),
        _ => format!(
            "no band: fewer than {MIN_POINTS} held-out points of this kind of work"
        ),
    };
    // The model's sum, then the family's factor and the kind's bias where the set keeps them.
    let mut ratio = model_words(e);
    if e.family_factor.is_some() || e.bias != 1.0 {
        ratio = format!("({ratio})");
    }
    if let Some(g) = e.family_factor {
        ratio.push_str(&format!(" × {} (its family's factor)", format_sig(g, 3)));
    }
    if e.bias != 1.0 {
        ratio.push_str(&format!(" × {} (its kind's bias)", format_sig(e.bias, 3)));
    }
    format!(
        "expected {} = {} × T_lower {}, r = {} fitted on {} measurements{}; {}; \
         rests on {}; validation set {}",
        pretty(e.t, Unit::Seconds),
        format_sig(e.r, 4),
        pretty(bare, Unit::Seconds),
        ratio,
        e.pooled,
        e.borrowed_from
            .as_deref()
            .map(|b| format!(" ({b})"))
            .unwrap_or_default(),
        band,
        e.basis.label(),
        e.set_version
    )
}

fn none_cell(metric: &'static str, why: &str) -> Cell {
    Cell {
        metric,
        value: "none".into(),
        text: "—".into(),
        class: "",
        title: why.to_string(),
        basis: Some(NO_BASIS),
    }
}

/// The `data-basis` of an expected figure without an expectation.
pub const NO_BASIS: &str = "none";

/// The short mark an expected figure `metric` shows of its basis (`fam`), and the basis in
/// words for its hover; `None` for `none` (the figure's own text says there is none), for a
/// band's bounds (their figure carries the mark) and for other cells.
pub fn basis_mark(metric: &str, basis: Option<&str>) -> Option<(&'static str, &'static str)> {
    use roofline::validation::Basis;
    if metric.ends_with("_lo") || metric.ends_with("_hi") {
        return None;
    }
    let b = Basis::ALL.into_iter().find(|b| Some(b.id()) == basis)?;
    Some((b.mark(), b.label()))
}

/// The one sentence the expected column's header says (issue 38, point 5): what the figure
/// is and what backs it.
pub const EXPECTED_HELP: &str = "Expected: what runs of this kind of work measured on chips \
     of this generation took against their bound, applied to this bound (median, with the \
     p10–p90 band of held-out errors; the mark says whose points back it: this chip's, its \
     family's or every family's pooled).";

/// The expectation of a row analysed as `a`: its cells. The band's cells are `none` where
/// fewer than four held-out points of the kind back it.
/// `e` is the store's expectation against the bare bound `bare`.
pub fn expected_cells(e: &Result<Expectation, String>, bare: Option<f64>) -> Vec<Cell> {
    let metrics = ["t_expected", "t_expected_lo", "t_expected_hi"];
    let (e, bare) = match (e, bare) {
        (Ok(e), Some(bare)) => (e, bare),
        (Err(why), _) => return metrics.into_iter().map(|m| none_cell(m, why)).collect(),
        (Ok(_), None) => {
            return metrics
                .into_iter()
                .map(|m| none_cell(m, "no bare bound"))
                .collect()
        }
    };
    let title = expectation_words(e, bare);
    let cell = |metric: &'static str, v: Option<f64>, text: &dyn Fn(f64) -> String| match v {
        Some(v) => Cell {
            metric,
            value: format_exact(v),
            text: text(v),
            class: "",
            title: title.clone(),
            basis: Some(e.basis.id()),
        },
        None => none_cell(metric, &title),
    };
    // Inline after the figure (issue 38, point 5): `≈ 787 µs (620–990)`, the bounds' unit
    // written once when all three share it.
    let (lo, hi) = band_texts(e.t, e.lo, e.hi);
    vec![
        cell("t_expected", Some(e.t), &|v| {
            format!("≈ {}", pretty(v, Unit::Seconds))
        }),
        cell("t_expected_lo", e.lo, &|_| lo.clone()),
        cell("t_expected_hi", e.hi, &|_| hi.clone()),
    ]
}

/// The texts of an expected band's bounds shown after the figure `t`: the numbers alone where
/// the figure and both bounds share a unit (`620`, `990` beside `≈ 787 µs`), else each with
/// its own (`620 µs`, `1.2 ms`).
pub fn band_texts(t: f64, lo: Option<f64>, hi: Option<f64>) -> (String, String) {
    let text = |v: Option<f64>| v.map(|v| pretty(v, Unit::Seconds)).unwrap_or_default();
    let (lo, hi, t) = (text(lo), text(hi), pretty(t, Unit::Seconds));
    let split = |s: &str| {
        s.rsplit_once(' ')
            .map(|(n, u)| (n.to_string(), u.to_string()))
    };
    match (split(&lo), split(&hi), split(&t)) {
        (Some((l, lu)), Some((h, hu)), Some((_, tu))) if lu == tu && hu == tu => (l, h),
        _ => (lo, hi),
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
/// `expected` is the store's (`None`, no cells, where the bare serving figures fail).
pub fn serving_expected_cells(expected: Option<&ServingExpectation>) -> Vec<Cell> {
    let Some(x) = expected else {
        return Vec::new();
    };
    let v = &x.bare;
    let cell =
        |metric: &'static str, label: &str, e: &Result<Expectation, String>, bare: f64| match e {
            Ok(e) => Cell {
                metric,
                value: format_exact(e.t),
                text: format!("{label} ≈ {}", pretty(e.t, Unit::Seconds)),
                class: "",
                title: expectation_words(e, bare),
                basis: Some(e.basis.id()),
            },
            Err(why) => none_cell(metric, why),
        };
    // The band's ends as cells of their own (`tpot_expected_lo`, named like the op row's
    // `t_expected_lo`), shown inline after their figure (issue 40).
    let band = |metric: &'static str, e: &Result<Expectation, String>, lo: bool| match e {
        Ok(e) => match if lo { e.lo } else { e.hi } {
            Some(x) => Cell {
                metric,
                value: format_exact(x),
                text: pretty(x, Unit::Seconds),
                class: "",
                title: if lo {
                    "the band's low end (p10 of the held-out residuals)".into()
                } else {
                    "the band's high end (p90 of the held-out residuals)".into()
                },
                basis: Some(e.basis.id()),
            },
            None => none_cell(metric, "the set's residuals give no band here"),
        },
        Err(why) => none_cell(metric, why),
    };
    let (tpot, ttft) = (&x.tpot, &x.ttft);
    let mut out = vec![
        cell("tpot_expected", "expected TPOT", tpot, v.tpot),
        band("tpot_expected_lo", tpot, true),
        band("tpot_expected_hi", tpot, false),
        cell("ttft_expected", "expected TTFT", ttft, v.ttft),
        band("ttft_expected_lo", ttft, true),
        band("ttft_expected_hi", ttft, false),
    ];
    out.push(match (tpot, v.fits) {
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
            basis: Some(e.basis.id()),
        },
        (Err(why), _) => Cell {
            metric: "tokens_per_s_expected",
            value: "none".into(),
            text: "—".into(),
            class: "",
            title: why.clone(),
            basis: Some(NO_BASIS),
        },
        (Ok(_), false) => Cell {
            metric: "tokens_per_s_expected",
            value: "none".into(),
            text: "—".into(),
            class: "bound-memory",
            title: "the batch does not fit at P + G: no throughput".into(),
            basis: Some(NO_BASIS),
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
                basis: exp.basis,
            },
            _ => Cell {
                metric,
                value: "none".into(),
                text: "—".into(),
                class: "",
                title: exp.title.clone(),
                basis: Some(NO_BASIS),
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
            format!(
                "≈ {} expected",
                super::names::days_words(v).trim_start_matches("≈ ")
            )
        });
    }
}
