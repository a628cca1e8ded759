//! A result as parts whose times add up to its `t_lower`, read from what every kind reports,
//! and two such lists compared part by part.

use crate::analysis::{analyze, Analysis, Options};
use crate::chip::Chip;
use crate::error::Error;
use crate::op::Op;
use serde::{Deserialize, Serialize};

/// One part of a result: its name, its time per step and what binds it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PartSlice {
    /// `MLP ×32`, `pipeline bubble`, `whole matmul`.
    pub name: String,
    /// Seconds per step (`repeat·T_lower` for a composite's part).
    pub time: f64,
    /// `compute`, `memory (HBM)`, `network (NVLink)`, `fsdp communication`, …
    pub binding: String,
}

/// A part on both sides of a comparison.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PartDiff {
    /// The part's name.
    pub name: String,
    /// Its time on the baseline (`None`: the baseline has no such part).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<f64>,
    /// Its time on the row.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub row: Option<f64>,
    /// What binds it on the baseline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_binding: Option<String>,
    /// What binds it on the row.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub row_binding: Option<String>,
    /// `row − base` (a missing side counts 0), seconds.
    pub delta: f64,
    /// `delta / Δtotal` (`None` when the total does not change).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub share: Option<f64>,
}

/// The parts of `op` on `chip` (see the module docs of [`crate::compare`]); a last part
/// `other` holds what the reported parts leave of `t_lower` (a calibration's overhead), so
/// the parts always add up to it.
pub fn breakdown(op: &Op, chip: &Chip, opts: &Options) -> Result<Vec<PartSlice>, Error> {
    let a = analyze(op, chip, opts)?;
    let mut out = reported_parts(&a);
    let rest = a.t_lower - out.iter().map(|p| p.time).sum::<f64>();
    if out.is_empty() || rest.abs() > 1e-9 * a.t_lower {
        out.push(PartSlice {
            name: if out.is_empty() {
                format!("whole {}", op.kind_id())
            } else {
                "other (not in the parts)".into()
            },
            time: if out.is_empty() { a.t_lower } else { rest },
            binding: crate::analysis::report::binding_words(a.bound, a.binding),
        });
    }
    Ok(out)
}

/// The parts a kind reports ([`crate::analysis::Report::phases`]): a composite's parts, a
/// training step's phases, a collective's two terms; empty for a plain operation.
fn reported_parts(a: &Analysis) -> Vec<PartSlice> {
    a.report
        .phases()
        .into_iter()
        .map(|p| PartSlice {
            name: p.name,
            time: p.time,
            binding: p.binding,
        })
        .collect()
}

/// The two lists matched by name (the k-th part of a name with the k-th of the same name on
/// the other side), each with its share of `delta`, largest share first (by size, so a part
/// moving against the total ranks by how much it moves).
pub(crate) fn diff(base: &[PartSlice], row: &[PartSlice], delta: f64) -> Vec<PartDiff> {
    let mut out: Vec<PartDiff> = Vec::new();
    let mut used = vec![false; row.len()];
    for b in base {
        let m = (0..row.len()).find(|&k| !used[k] && row[k].name == b.name);
        if let Some(k) = m {
            used[k] = true;
        }
        out.push(part_diff(&b.name, Some(b), m.map(|k| &row[k]), delta));
    }
    for (k, r) in row.iter().enumerate().filter(|(k, _)| !used[*k]) {
        let _ = k;
        out.push(part_diff(&r.name, None, Some(r), delta));
    }
    out.sort_by(|x, y| y.delta.abs().total_cmp(&x.delta.abs()));
    out
}

fn part_diff(name: &str, b: Option<&PartSlice>, r: Option<&PartSlice>, delta: f64) -> PartDiff {
    let d = r.map_or(0.0, |r| r.time) - b.map_or(0.0, |b| b.time);
    PartDiff {
        name: name.to_string(),
        base: b.map(|b| b.time),
        row: r.map(|r| r.time),
        base_binding: b.map(|b| b.binding.clone()),
        row_binding: r.map(|r| r.binding.clone()),
        delta: d,
        share: (delta != 0.0).then(|| d / delta),
    }
}
