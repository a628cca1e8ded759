//! Measured against predicted for a model step (issue 15): when the scenario holds an `llm`
//! operation, its parts (on the first chip, with the scenario's options, calibration included)
//! are matched to the profile's kernels by what their names say. Kernel names rarely say which
//! projection they computed (a GEMM is a GEMM), so the match is by kind of work, one row per
//! category: norms, attention, GEMMs (every other matmul-like part), communication, and the
//! rest. Pure, tested natively.

use roofline::inputs::Error;
use roofline::inputs::PartKind;
use roofline::inputs::Scenario;
use roofline::profile::{default_groups, group_totals, GroupTotal, Profile, Roofline};
use roofline::results::analyze_workload;
use roofline::units::{format_exact, Unit};

use super::names::{op_name, pretty};

/// One category of work: the step's parts in it and the kernels that match it.
#[derive(Debug, Clone, PartialEq)]
pub struct PartMatch {
    /// `norm`, `attention`, `gemm`, `communication` or `other`.
    pub category: &'static str,
    /// The parts in it, as the step names them (`QKV projection`, `MLP up`, ...).
    pub parts: Vec<String>,
    /// `Σ repeat·T_lower` of those parts: the predicted time per step, seconds.
    pub predicted: f64,
    /// Measured time of the matching records divided by the steps the profile covers.
    pub measured: f64,
    /// Records matched.
    pub records: usize,
}

impl PartMatch {
    /// `measured / predicted` (`None` when nothing is predicted).
    pub fn ratio(&self) -> Option<f64> {
        (self.predicted > 0.0).then(|| self.measured / self.predicted)
    }

    /// The `data-metric` cells: `(metric, exact value, shown text)`.
    pub fn cells(&self) -> Vec<(&'static str, String, String)> {
        let ratio = self.ratio();
        vec![
            (
                "predicted",
                format_exact(self.predicted),
                pretty(self.predicted, Unit::Seconds),
            ),
            (
                "measured",
                format_exact(self.measured),
                pretty(self.measured, Unit::Seconds),
            ),
            (
                "ratio",
                ratio.map(format_exact).unwrap_or_default(),
                ratio.map_or_else(|| "—".into(), |r| format!("×{r:.2}")),
            ),
            (
                "records",
                self.records.to_string(),
                self.records.to_string(),
            ),
        ]
    }
}

/// A step against a profile: the step's name, its predicted time and the rows.
#[derive(Debug, Clone, PartialEq)]
pub struct StepMatch {
    /// The `llm` operation's name.
    pub name: String,
    /// Its predicted step time (`T_lower`), seconds.
    pub step: f64,
    /// One row per category with a part or a record.
    pub rows: Vec<PartMatch>,
    /// Whether the profile's kernel mix resembles the step's (issue 38, point 8: a TorchRec
    /// trace was set against a Llama step, "×0.09", without a word).
    pub resemblance: Resemblance,
}

/// The least share of time two kernel mixes have in common for a profile to be compared with a
/// model step: `Σ min(predicted share, measured share)` over the kinds of work.
pub const MIN_OVERLAP: f64 = 0.6;

/// The least share of the predicted step a kind of work must have for the profile to need
/// kernels of it (a step's attention, its norms).
pub const MIN_SHARE: f64 = 0.05;

/// The least measured ÷ predicted time per step for a profile to be compared with a model
/// step: the prediction is a lower bound, so a profile much faster than it (the TorchRec
/// trace's ×0.09) holds less than this step, or other work; 0.8 leaves a fifth for a peak or
/// clock the chip's figures overstate.
pub const MIN_RATIO: f64 = 0.8;

/// How a profile's time splits by kind of work against the step's prediction.
#[derive(Debug, Clone, PartialEq)]
pub struct Resemblance {
    /// Measured ÷ predicted time per step, over every kind of work (`None` when nothing is
    /// predicted).
    pub ratio: Option<f64>,
    /// `Σ min(p, m)` over the categories: the share of time both mixes put in the same kinds
    /// of work (1: the same mix, 0: nothing in common).
    pub overlap: f64,
    /// Kinds of work with at least [`MIN_SHARE`] of the predicted step and no kernel in the
    /// profile.
    pub missing: Vec<&'static str>,
    /// Each category's (predicted share, measured share), for the message.
    pub shares: Vec<(&'static str, f64, f64)>,
}

impl Resemblance {
    /// The mixes of `rows`.
    pub fn of(rows: &[PartMatch]) -> Resemblance {
        let (tp, tm) = rows
            .iter()
            .fold((0.0, 0.0), |(p, m), r| (p + r.predicted, m + r.measured));
        let share = |v: f64, t: f64| if t > 0.0 { v / t } else { 0.0 };
        let shares: Vec<(&'static str, f64, f64)> = rows
            .iter()
            .map(|r| (r.category, share(r.predicted, tp), share(r.measured, tm)))
            .collect();
        Resemblance {
            ratio: (tp > 0.0).then(|| tm / tp),
            overlap: shares.iter().map(|(_, p, m)| p.min(*m)).sum(),
            missing: rows
                .iter()
                .zip(&shares)
                .filter(|(r, (_, p, _))| *p >= MIN_SHARE && r.records == 0)
                .map(|(r, _)| r.category)
                .collect(),
            shares,
        }
    }

    /// Whether the profile may be this step: at least [`MIN_OVERLAP`] of the time in common, no
    /// kind of work the step needs missing, and no faster than [`MIN_RATIO`] of its bound.
    pub fn resembles(&self) -> bool {
        self.overlap >= MIN_OVERLAP
            && self.missing.is_empty()
            && self.ratio.is_some_and(|r| r >= MIN_RATIO)
    }

    /// What the panel says when the profile does not resemble the step (`None` when it does).
    pub fn message(&self, name: &str) -> Option<String> {
        if self.resembles() {
            return None;
        }
        let pct = |v: f64| format!("{:.0} %", 100.0 * v);
        let mix = |measured: bool| {
            self.shares
                .iter()
                .map(|(c, p, m)| format!("{c} {}", pct(if measured { *m } else { *p })))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut why = format!(
            "its kernels' time ({}) has {} in common with the step's ({})",
            mix(true),
            pct(self.overlap),
            mix(false)
        );
        if !self.missing.is_empty() {
            why.push_str(&format!(
                "; it has no {} kernel, which the step needs",
                self.missing.join(" or ")
            ));
        }
        if let Some(r) = self.ratio.filter(|r| *r < MIN_RATIO) {
            why.push_str(&format!(
                "; it takes ×{r:.2} of the step's lower bound per step, which a run of this step \
                 cannot (or it covers less than one step: see \"steps in the profile\")"
            ));
        }
        Some(format!(
            "This profile may not be {name}: {why}. Its times are listed by kind of work, not \
             compared with the step."
        ))
    }
}

/// The category of a step's part: its kind of work, as the core set it where the part was
/// built (the experts' matmuls are GEMMs, the embedding gather is `other`, every all-reduce
/// and AllToAll is communication).
pub fn part_category(work: PartKind) -> &'static str {
    match work {
        PartKind::WeightMatmul => "gemm",
        PartKind::Attention => "attention",
        PartKind::Norm => "norm",
        PartKind::Communication => "communication",
        PartKind::Elementwise => "other",
    }
}

/// The category of a kernel group of [`default_groups`] (softmax kernels belong to attention;
/// copies, reductions, elementwise and unmatched kernels to `other`).
fn group_category(group: &str) -> &'static str {
    match group {
        "norm" => "norm",
        "attention" | "softmax" => "attention",
        "gemm" => "gemm",
        "communication" => "communication",
        _ => "other",
    }
}

/// The categories, in the order shown.
pub const CATEGORIES: [&str; 5] = ["gemm", "attention", "norm", "communication", "other"];

/// The first `llm` operation's step against the profile: `None` when the scenario has none
/// (categories with neither a part nor a record are left out of the rows). `steps` is how many steps the profile covers (measured times are divided
/// by it).
pub fn match_llm_parts(
    s: &Scenario,
    p: &Profile,
    roof: &Roofline,
    steps: f64,
) -> Option<Result<StepMatch, Error>> {
    let op = s.ops.iter().find(|o| o.traits().serves)?;
    let chip = s.chips.first()?;
    Some((|| {
        if !(steps.is_finite() && steps >= 1.0) {
            return Err(Error::Parse {
                input: format_exact(steps),
                reason: "steps must be a number of at least 1".into(),
            });
        }
        let w = analyze_workload(op, chip, &s.options)?.ok_or_else(|| Error::Parse {
            input: "llm".into(),
            reason: "not a composite operation".into(),
        })?;
        let mut rows: Vec<PartMatch> = CATEGORIES
            .iter()
            .map(|&category| PartMatch {
                category,
                parts: Default::default(),
                predicted: 0.0,
                measured: 0.0,
                records: 0,
            })
            .collect();
        let row = |rows: &mut Vec<PartMatch>, c: &str| rows.iter().position(|r| r.category == c);
        for (part, a) in &w.parts {
            let Some(i) = row(&mut rows, part_category(part.work)) else {
                continue;
            };
            rows[i].predicted += part.repeat * a.t_lower;
            if !rows[i].parts.contains(&part.name) {
                rows[i].parts.push(part.name.clone());
            }
        }
        let groups: Vec<GroupTotal> = group_totals(&p.kernels, &default_groups(), roof);
        for g in groups.iter().filter(|g| g.records > 0) {
            if let Some(i) = row(&mut rows, group_category(&g.name)) {
                rows[i].measured += g.time / steps;
                rows[i].records += g.records;
            }
        }
        rows.retain(|r| !r.parts.is_empty() || r.records > 0);
        Ok(StepMatch {
            name: op_name(op),
            step: w.t_lower,
            resemblance: Resemblance::of(&rows),
            rows,
        })
    })())
}
