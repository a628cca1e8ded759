//! Each input's leverage on `t_lower`: the elasticities to the chip's resources, exact where
//! the bound is piecewise linear, and what a step of each of the op's own inputs would do.

use crate::analysis::{t_lower, Analysis, Bound, Options};
use crate::chip::{Chip, ChipField};
use crate::dtype::DType;
use crate::field::{FieldSpec, FieldType, SliderScale};
use crate::op::Op;
use crate::resource::ExecUnit;
use crate::units::format_exact;
use serde::{Deserialize, Serialize};

/// `d ln t_lower / d ln x` for the chip's resources (`None`: the op does not use it, or the
/// chip has no such figure).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Elasticities {
    /// To the peak the op's FLOPs run at (its dtype's, or the vector unit's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak: Option<f64>,
    /// To HBM bandwidth.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hbm: Option<f64>,
    /// To the link bandwidths (ICI/NVLink, DCN, PCIe scaled together); `None` for an op
    /// without communication.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<f64>,
}

/// The chip fields behind the peak the analysis ran at.
fn peak_fields(a: &Analysis) -> Vec<ChipField> {
    match a.compute.unit {
        ExecUnit::Vector => vec![ChipField::Vpu],
        ExecUnit::Peak(k) => vec![ChipField::from_peak(k)],
    }
}

const LINKS: [ChipField; 3] = [ChipField::Ici, ChipField::Dcn, ChipField::Pcie];

/// `chip` with `fields` (those it has) times `k`; `None` when it has none of them.
fn scaled(chip: &Chip, fields: &[ChipField], k: f64) -> Option<Chip> {
    let mut c = chip.clone();
    let mut any = false;
    for &f in fields {
        if let Some(v) = chip.get(f) {
            c.set(f, v * k).ok()?;
            any = true;
        }
    }
    any.then_some(c)
}

/// The change of `ln t` from `x` to `x·1.001`, over `ln 1.001`, rounded to 1e-9: where `t`
/// is a sum of terms each proportional to `1/x` or independent of it (every roofline away
/// from a tie), this is the exact elasticity (−1 for a memory-bound step's HBM, 0 for its
/// peak); at a tie it is the side of more `x` (what buying more of it does). One evaluation
/// of `t_lower` per resource, beside the row's own `t`.
fn elasticity(op: &Op, chip: &Chip, opts: &Options, t: f64, fields: &[ChipField]) -> Option<f64> {
    let k = 1.0 + 1e-3;
    let up = t_lower(op, &scaled(chip, fields, k)?, opts).ok()?;
    let e = (libm::log(up) - libm::log(t)) / libm::log(k);
    e.is_finite().then(|| (e * 1e9).round() / 1e9 + 0.0)
}

/// The three elasticities of an analysed op on `chip` (up to 3 evaluations of `t_lower`).
pub fn elasticities(a: &Analysis, chip: &Chip, opts: &Options) -> Elasticities {
    let (op, t) = (&a.op, a.t_lower);
    let comms = a.comms.iter().any(|t| t.resource.bound() == Bound::Network);
    Elasticities {
        peak: elasticity(op, chip, opts, t, &peak_fields(a)),
        hbm: elasticity(op, chip, opts, t, &[ChipField::Hbm]),
        link: comms
            .then(|| elasticity(op, chip, opts, t, &LINKS))
            .flatten(),
    }
}

/// One step of one input and what it does to `t_lower`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Lever {
    /// `peak`, `hbm`, `link` or the op's field key.
    pub key: String,
    /// `+25 % of HBM bandwidth`, `weights bf16 → int8`, `tensor parallel 4 → 8`.
    pub step: String,
    /// `t_after / t_lower − 1` (−0.2: 20 % less time).
    pub change: f64,
    /// The step and its effect: `+25 % of HBM bandwidth → −20 % time`.
    pub words: String,
}

/// The "what moves it" panel's figures: every lever, most time saved first, and the cheapest
/// of the chip's resources in words.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Levers {
    /// Most time saved first.
    pub levers: Vec<Lever>,
    /// `buy HBM bandwidth, not FLOPs`, …
    pub cheapest: String,
}

fn percent(change: f64) -> String {
    let p = crate::units::format_sig(100.0 * change.abs(), 3);
    if p == "0" {
        "no change in time".into()
    } else {
        format!("{}{p} % time", if change < 0.0 { "−" } else { "+" })
    }
}

fn lever(key: &str, step: String, t: f64, after: f64) -> Lever {
    let change = after / t - 1.0;
    Lever {
        key: key.into(),
        words: format!("{step} → {}", percent(change)),
        step,
        change,
    }
}

/// The next cheaper dtype people quantise to: fp32/tf32 → bf16 → int8 → int4, fp8 → fp4.
fn cheaper(d: DType) -> Option<DType> {
    Some(match d {
        DType::Fp32 | DType::Tf32 => DType::Bf16,
        DType::Bf16 | DType::Fp16 => DType::Int8,
        DType::Int8 => DType::Int4,
        DType::Fp8E4m3 | DType::Fp8E5m2 => DType::Fp4,
        DType::Int4 | DType::Fp4 => return None,
    })
}

/// The next valid value of one of the op's fields: a cheaper dtype, twice the chips of a chip
/// count, +25 % of any other number (rounded up for whole numbers).
fn next_value(op: &Op, spec: &FieldSpec) -> Option<(String, String)> {
    let now = op.get(spec.key)?;
    let label = spec.label;
    if spec.ty == FieldType::DType {
        let next = cheaper(DType::from_id(&now)?)?.as_str();
        return Some((next.into(), format!("{label} {now} → {next}")));
    }
    let v = op.get_num(spec.key)?;
    let chips = matches!(spec.slider, Some(SliderScale::Pow2 { max }) if max <= 1024.0);
    Some(match spec.ty {
        FieldType::Integer if chips => {
            let next = format_exact(v * 2.0);
            (next.clone(), format!("{label} {now} → {next}"))
        }
        FieldType::Integer => {
            let next = format_exact((v * 1.25).ceil());
            (next.clone(), format!("+25 % of {label} ({now} → {next})"))
        }
        FieldType::Number => (format_exact(v * 1.25), format!("+25 % of {label}")),
        _ => return None,
    })
}

/// Every lever of `a` (an analysed op) on `chip`: +25 % of each resource, then each of the
/// op's own fields that a form shows unfolded (a next value that is invalid, or that leaves
/// no analysis, is left out).
pub fn levers(a: &Analysis, chip: &Chip, opts: &Options) -> Levers {
    let (op, t) = (&a.op, a.t_lower);
    let e = elasticities(a, chip, opts);
    let mut out = Vec::new();
    let resources: [(&str, &str, Vec<ChipField>, Option<f64>); 3] = [
        ("peak", "peak FLOP/s", peak_fields(a), e.peak),
        ("hbm", "HBM bandwidth", vec![ChipField::Hbm], e.hbm),
        ("link", "link bandwidth", LINKS.to_vec(), e.link),
    ];
    for (key, label, fields, el) in &resources {
        let after = el
            .and_then(|_| scaled(chip, fields, 1.25))
            .and_then(|c| t_lower(op, &c, opts).ok());
        if let Some(after) = after {
            out.push(lever(key, format!("+25 % of {label}"), t, after));
        }
    }
    for spec in op.fields().iter().filter(|s| !s.folds) {
        let Some((next, step)) = next_value(op, spec) else {
            continue;
        };
        let mut o = op.clone();
        if o.set(spec.key, &next).is_err() {
            continue;
        }
        if let Ok(after) = t_lower(&o, chip, opts) {
            out.push(lever(spec.key, step, t, after));
        }
    }
    // A zero time (a collective over one chip) has no relative change.
    out.retain(|l| l.change.is_finite());
    out.sort_by(|x, y| x.change.total_cmp(&y.change));
    Levers {
        levers: out,
        cheapest: cheapest(&e),
    }
}

/// The resource with the most negative elasticity, in words.
fn cheapest(e: &Elasticities) -> String {
    let all = [
        (e.peak, "FLOPs"),
        (e.hbm, "HBM bandwidth"),
        (e.link, "link bandwidth"),
    ];
    let best = all
        .iter()
        .filter_map(|(v, n)| v.map(|v| (v, *n)))
        .min_by(|a, b| a.0.total_cmp(&b.0));
    match best {
        Some((v, name)) if v < 0.0 => {
            let others: Vec<&str> = all
                .iter()
                .filter(|(o, n)| *n != name && o.is_some())
                .map(|(_, n)| *n)
                .collect();
            if others.is_empty() {
                format!("buy {name}")
            } else {
                format!("buy {name}, not {}", others.join(" or "))
            }
        }
        _ => "no resource of the chip moves it (latency or a fixed overhead binds)".into(),
    }
}
