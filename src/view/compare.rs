//! A baseline and what moves a result (issue 26), as the page shows them: every row's
//! `vs_base` and elasticity cells, the key line's words, the explanation panel's lines and
//! the results CSV. The figures come from the core's comparison (through `roofline::results`);
//! this only words them. Pure, tested natively.

use std::sync::Arc;

use roofline::inputs::{BaseRow, Scenario};
use roofline::results::Analysis;
use roofline::results::{ratio_words, vs_base, Elasticities};
use roofline::units::{format_exact, format_sig, Unit};

use super::cache::PairCache;
use super::cell::Cell;
use super::cell::ResultRow;
use super::names::{op_name, pretty};

/// How the elasticities are found, for their cells' titles and the panel.
pub const ELASTICITY_METHOD: &str = "d ln T_lower / d ln x: T_lower at x·1.001 against T_lower \
     at x, the difference of their logarithms over ln 1.001, rounded to 1e-9; exact where the \
     bound is piecewise linear (each part's time ∝ 1/x or independent of it), the side of more \
     x at a tie";

/// How the change is split by input, for the panel.
pub const SHAPLEY_METHOD: &str = "Shapley values: each changed input's average effect on \
     T_lower over every order of switching the inputs from the baseline's values to the row's \
     (2^n evaluations), so no order is favoured and the shares add up to 100 %; inputs that move \
     T_lower neither from the baseline alone nor from the row alone are left out";

/// A row's name for the key line and the panel: the chip when there is one operation, the
/// operation when there is one chip, else both.
pub fn row_label(s: &Scenario, i: usize, j: usize) -> String {
    let (op, chip) = (&s.ops[i], &s.chips[j].name);
    match (s.ops.len(), s.chips.len()) {
        (1, _) => chip.clone(),
        (_, 1) => op_name(op),
        _ => format!("{} · {chip}", op_name(op)),
    }
}

fn signed(v: f64) -> String {
    let t = format_sig(v, 3);
    match t.strip_prefix('-') {
        Some(rest) => format!("−{rest}"),
        None => t,
    }
}

/// The three elasticity cells of an analysed row (`none` where the op does not use the
/// resource, or the chip has no figure for it).
pub fn elasticity_cells(a: &Analysis, e: &Elasticities) -> Vec<Cell> {
    let peak = format!("the {} peak", a.compute.dtype.label());
    [
        ("elasticity_peak", e.peak, peak.as_str()),
        ("elasticity_hbm", e.hbm, "HBM bandwidth"),
        ("elasticity_link", e.link, "the link bandwidths"),
    ]
    .into_iter()
    .map(|(metric, v, what)| match v {
        Some(v) => Cell {
            metric,
            value: format_exact(v),
            text: signed(v),
            class: "",
            title: format!(
                "{}: d ln T_lower / d ln ({what}); {ELASTICITY_METHOD}",
                signed(v)
            ),
            basis: None,
        },
        None => Cell {
            metric,
            value: "none".into(),
            text: "—".into(),
            class: "",
            title: if a.t_lower == 0.0 {
                "T_lower is 0: no relative change to measure".into()
            } else if metric == "elasticity_link" {
                "no communication: no link carries this operation's traffic".into()
            } else {
                format!("no figure for {what} on this chip")
            },
            basis: None,
        },
    })
    .collect()
}

/// A ratio as people read one, never an exponent (issue 38, point 10: `2.83e-4×`): `0.419×`,
/// `20,500×`, and below a hundredth its inverse, `1/3,530×`; three significant digits.
pub fn ratio_text(r: f64) -> String {
    let sig3 = |v: f64| {
        let e = v.abs().log10().floor() as i32 - 2;
        (v / 10f64.powi(e)).round() * 10f64.powi(e)
    };
    if !(r.is_finite() && r > 0.0) {
        return format!("{}×", format_sig(r, 3));
    }
    if r >= 1e4 {
        format!("{}×", super::names::grouped(sig3(r)))
    } else if r < 0.01 {
        format!("1/{}×", super::names::grouped(sig3(1.0 / r)))
    } else {
        format!("{}×", format_sig(r, 3))
    }
}

/// The `vs_base` cell of a row with no baseline (its column folds behind "more columns"
/// until there is one).
pub fn no_base_cell() -> Cell {
    Cell {
        metric: "vs_base",
        value: "none".into(),
        text: "—".into(),
        class: "extra",
        title: "no baseline: choose one with a row's \"base\" button (base= in the link)".into(),
        basis: None,
    }
}

/// The `vs_base` cell against a baseline of time `t_base` named `base`.
fn vs_base_cell(t_row: f64, t_base: Result<f64, &str>, base: &str, is_base: bool) -> Cell {
    if is_base {
        return Cell {
            metric: "vs_base",
            value: "1".into(),
            text: "baseline".into(),
            class: "baseline",
            title: "the baseline: every other row's T_lower is divided by this row's".into(),
            basis: None,
        };
    }
    let r = t_base.map_err(str::to_string).and_then(|tb| {
        vs_base(t_row, tb)
            .map(|r| (r, tb))
            .ok_or_else(|| "no time".into())
    });
    match r {
        Ok((r, tb)) => Cell {
            metric: "vs_base",
            value: format_exact(r),
            text: ratio_text(r),
            class: if r < 1.0 { "faster" } else { "slower" },
            title: format!(
                "T_lower {} / {} ({base}) = {}: {}",
                pretty(t_row, Unit::Seconds),
                pretty(tb, Unit::Seconds),
                format_sig(r, 4),
                ratio_words(r, base)
            ),
            basis: None,
        },
        Err(why) => Cell {
            title: format!("the baseline {base} has no time: {why}"),
            class: "",
            ..no_base_cell()
        },
    }
}

/// A row compared by pointer: the base pass recomputes a row only when the row itself changed.
#[derive(Clone)]
pub struct ByPtr(Arc<ResultRow>);

impl PartialEq for ByPtr {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// What a row's `vs_base` cell depends on beyond its own row: the baseline's time (bits),
/// name and whether this row is it.
type BaseKey = (ByPtr, Option<u64>, String, bool);

/// The rows with their `vs_base` cells filled against the baseline, remembered between edits.
pub type BaseCache = PairCache<BaseKey, Arc<ResultRow>>;

/// Fills each row's `vs_base` cell against `s`'s baseline (rows come operation-major, as
/// [`super::rows::result_rows_cached`] gives them). Without a baseline the rows are handed
/// back as they are (their cells say `none`).
pub fn rows_with_base(
    s: &Scenario,
    rows: Vec<Arc<ResultRow>>,
    cache: &mut BaseCache,
) -> Vec<Arc<ResultRow>> {
    let n = s.chips.len();
    let Some(b) = s
        .base_row()
        .filter(|b| rows.len() == s.ops.len() * n && b.op * n + b.chip < rows.len())
    else {
        return rows;
    };
    let base = &rows[b.op * n + b.chip];
    let t_base = base.analysis.as_ref().map(|a| a.t_lower);
    let why = base.error.clone().unwrap_or_default();
    let name = row_label(s, b.op, b.chip);
    let mut pass = cache.pass();
    rows.iter()
        .enumerate()
        .map(|(k, r)| {
            let (i, j) = (k / n, k % n);
            let is_base = (i, j) == (b.op, b.chip);
            let key = (
                ByPtr(r.clone()),
                t_base.map(f64::to_bits),
                name.clone(),
                is_base,
            );
            pass.get(s, i, j, &key, || {
                let mut row = (**r).clone();
                if let (Some(a), Some(c)) = (
                    &row.analysis,
                    row.cells.iter_mut().find(|c| c.metric == "vs_base"),
                ) {
                    *c = vs_base_cell(a.t_lower, t_base.ok_or(why.as_str()), &name, is_base);
                }
                Arc::new(row)
            })
        })
        .collect()
}

/// The key line's words against the baseline: ` — against the baseline H100 SXM: B200: 2.39×
/// faster than H100 SXM` (empty without a baseline). `t(i, j)` is each row's `t_lower`.
pub fn base_words(s: &Scenario, t: impl Fn(usize, usize) -> Option<f64>) -> String {
    let Some(BaseRow { op, chip }) = s.base_row() else {
        return String::new();
    };
    let name = row_label(s, op, chip);
    let Some(tb) = t(op, chip) else {
        return format!(" — the baseline {name} has no time");
    };
    let mut words = Vec::new();
    for i in 0..s.ops.len() {
        for j in 0..s.chips.len() {
            if (i, j) == (op, chip) {
                continue;
            }
            if let Some(r) = t(i, j).and_then(|tr| vs_base(tr, tb)) {
                words.push(format!("{}: {}", row_label(s, i, j), ratio_words(r, &name)));
            }
        }
    }
    format!(" — against the baseline {name}: {}", words.join("; "))
}
