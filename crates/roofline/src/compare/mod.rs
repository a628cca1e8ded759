//! Why one result is faster than another, and what would move it (issue 26). Above
//! [`crate::analysis`] and [`crate::workload`]: it reads only what every kind reports (its
//! `t_lower`, its parts or phases with their bounds, its traffic terms), never a kind's own
//! rules, so it works between chips, between two operations and across kinds.
//!
//! * [`vs_base`]: `t_lower(row) / t_lower(base)` and its words ("2.39× faster than H100").
//! * [`breakdown`] and [`explain`]: a result split into parts whose times add up to its
//!   `t_lower` (a composite's parts `repeat·T_lower`; a training step's phases: compute,
//!   exposed traffic, pipeline bubble; a collective's bandwidth and latency terms; any other
//!   operation is one part), matched by name between the two sides; each part's share of the
//!   total change is `Δpart / Δtotal`, so the shares add up to 100 % and a part that moves
//!   against the total has a negative share.
//! * [`explain`]'s split by changed input: the inputs that differ between the two sides (the
//!   chip's fields, the operation's fields when both are of one kind) are players of a
//!   cooperative game whose value `v(S)` is `t_lower` of the baseline with the inputs in `S`
//!   taken from the row. Each input's Shapley value
//!   `φ_i = Σ_{S ⊆ N∖{i}} |S|!·(n−|S|−1)!/n! · (v(S ∪ {i}) − v(S))` does not depend on any
//!   order, and `Σ φ_i = v(N) − v(∅) = t_row − t_base` exactly (efficiency), so the shares
//!   `φ_i / Δ` add up to 100 %. Inputs that change `t_lower` neither from the baseline alone
//!   nor from the row alone (a price, an fp8 peak for a bf16 step) are left out as null
//!   players (a test at the two ends, not over every subset; documented on the panel); a field
//!   another field implies (an `llm`'s `preset`, implied by its architecture fields) is left
//!   out too. More than [`MAX_PLAYERS`] inputs left are grouped into two players, the chip
//!   and the operation, and the result says so.
//! * [`elasticities`] and [`levers`]: `d ln t_lower / d ln x` for the peak of the op's dtype,
//!   HBM bandwidth and the link bandwidths, and what each of the op's own inputs would do.

mod levers;
mod parts;
mod shapley;

pub use levers::{elasticities, levers, Elasticities, Lever, Levers};
pub use parts::{breakdown, PartDiff, PartSlice};
pub use shapley::{InputShare, InputSplit, MAX_PLAYERS};

use crate::analysis::{t_lower, Options};
use crate::chip::Chip;
use crate::error::Error;
use crate::op::Op;
use crate::units::format_sig;
use serde::{Deserialize, Serialize};

/// `t_row / t_base`: below 1 the row is faster. `None` when either is not a positive finite
/// time.
pub fn vs_base(t_row: f64, t_base: f64) -> Option<f64> {
    let r = t_row / t_base;
    (t_row > 0.0 && t_base > 0.0 && r.is_finite()).then_some(r)
}

/// The ratio in words, against the baseline's name: `2.39× faster than H100 SXM`, `1.5×
/// slower than …`, `as fast as …` (equal to 3 significant figures).
pub fn ratio_words(ratio: f64, base_name: &str) -> String {
    let (k, word) = if ratio < 1.0 {
        (1.0 / ratio, "faster")
    } else {
        (ratio, "slower")
    };
    let k_text = format_sig(k, 3);
    if k_text == "1" {
        format!("as fast as {base_name}")
    } else {
        format!("{k_text}× {word} than {base_name}")
    }
}

/// A row against its baseline: the times, their ratio, the split by part and by input.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Explanation {
    /// `t_lower` of the baseline, seconds.
    pub t_base: f64,
    /// `t_lower` of the row, seconds.
    pub t_row: f64,
    /// `t_row − t_base`, seconds.
    pub delta: f64,
    /// `t_row / t_base`.
    pub ratio: f64,
    /// Per part, largest share first.
    pub parts: Vec<PartDiff>,
    /// By changed input.
    pub inputs: InputSplit,
}

/// Explains `row` against `base` (each an operation on a chip, same options): both times, the
/// change part by part and input by input (see the module docs). Errors when either side has
/// no analysis.
pub fn explain(
    base: (&Op, &Chip),
    row: (&Op, &Chip),
    opts: &Options,
) -> Result<Explanation, Error> {
    let b = breakdown(base.0, base.1, opts)?;
    let r = breakdown(row.0, row.1, opts)?;
    let t_base = t_lower(base.0, base.1, opts)?;
    let t_row = t_lower(row.0, row.1, opts)?;
    // A baseline that takes no time (a collective with nothing to move) has no ratio to
    // explain: say so instead of a NaN.
    if vs_base(t_row, t_base).is_none() {
        return Err(Error::invalid(
            "base",
            format!("{t_base:e} s against {t_row:e} s"),
            "no ratio: the baseline or this row takes no time",
        ));
    }
    let delta = t_row - t_base;
    Ok(Explanation {
        t_base,
        t_row,
        delta,
        ratio: t_row / t_base,
        parts: parts::diff(&b, &r, delta),
        inputs: shapley::split(base, row, opts, t_base, t_row),
    })
}

#[cfg(test)]
mod tests;
