//! A measured profile (kernels timed on a GPU, [`roofline::profile`]) against the first
//! chip's roofline: the rows of the time-lost table (with the test contract's `data-metric`
//! figures), totals per name group, the calibration fit's summary, and the chart's measured
//! markers. Pure, tested natively; the profile itself never enters the link (too big).
//!
//! The roofline is the first chip's **nominal** one (no derate, no calibration): the peak of
//! the first operation's dtype (bf16 when there is no operation or it fails) and the HBM
//! bandwidth. The fit is made against it, so `cal=` from a fit means what it says.

use roofline::inputs::DType;
use roofline::inputs::Error;
use roofline::inputs::Scenario;
use roofline::profile::{
    default_groups, fit, group_totals, rank_by_time_lost, Fit, GroupTotal, Kernel, Profile,
    Roofline,
};
use roofline::units::{format_exact, Unit};

use super::names::pretty;
use crate::charts::{MeasuredMark, RooflineChart};

/// The sample profile (issue 24, point 6): a plain CSV of the project's own, shipped with the
/// page. Synthetic, not a measurement: LLaMA 3.1 8B's decode kernels at B = 64 and a 4096-token
/// context on one H100 in bf16, each time its roofline bound × the validation set's fitted
/// factor for its resource (1.620 compute, 1.287 HBM; set 2026-11-26.4, the HBM factor unchanged
/// since set 2026-11-26.2, when the sample was made; every kernel here is memory-bound) + 3 µs per
/// launch.
pub const SAMPLE_PROFILE: &str = include_str!("../../assets/sample-profile.csv");

/// Where the sample's numbers come from, as the summary and the button's title say.
pub const SAMPLE_SOURCE: &str = "the sample profile (synthetic, not measured: LLaMA 3.1 8B decode \
    kernels at B = 64, context 4096, on one H100 in bf16; each time = its roofline bound × the \
    validation set's fitted factor as of set 2026-11-26.4, 1.287 for HBM, + 3 µs per launch)";

/// The roofline measured kernels are placed against: the first chip's nominal peak for the
/// first operation's dtype (else bf16) and its HBM bandwidth, with a caption saying so.
pub fn measured_roofline(s: &Scenario) -> Result<(Roofline, String), Error> {
    let chip = s.chips.first().ok_or_else(|| Error::Parse {
        input: "profile".into(),
        reason: "the scenario has no chip to place the kernels against".into(),
    })?;
    let dtype = s
        .ops
        .first()
        .and_then(|op| {
            roofline::results::analyze(op, chip, &roofline::inputs::Options::default()).ok()
        })
        .map_or(DType::Bf16, |a| a.compute.dtype);
    let peak = chip.peak(dtype)?;
    let roof = Roofline::new(peak, chip.hbm)?;
    let caption = format!(
        "against {} ({} {} peak, HBM {}; nominal, without derate or calibration)",
        chip.name,
        pretty(peak, Unit::FlopRate),
        dtype.as_str(),
        pretty(chip.hbm, Unit::ByteRate)
    );
    Ok((roof, caption))
}

/// What a kernel of a name group times, as the validation set groups its measurements: GEMMs
/// and attention kernels as such, communication as collectives, every other group (norms,
/// softmax, copies, elementwise) as memory-bound kernels; kernels no group matches are not
/// guessed at.
fn workload_of_group(group: &str) -> Option<roofline::inputs::MeasureKind> {
    use roofline::inputs::MeasureKind;
    Some(match group {
        "gemm" => MeasureKind::Gemm,
        "attention" => MeasureKind::Attention,
        "communication" => MeasureKind::Collective,
        "norm" | "softmax" | "reduce" | "copy" | "elementwise" => MeasureKind::Memory,
        _ => return None,
    })
}

/// The expected time of each placed kernel (issue 25): its roofline bound times what the
/// validation set measured for its kind of work (by its name group) on chip 1's generation;
/// `None` where the set has no evidence (the table shows `none`).
pub fn add_expected(t: &mut MeasuredTable, chip: &roofline::inputs::Chip) {
    let Some(family) = roofline::validation::family_of(chip) else {
        return;
    };
    let groups = default_groups();
    let group_of = |name: &str| {
        groups
            .iter()
            .find(|g| g.pattern.matches(name))
            .map(|g| g.name.as_str())
    };
    for r in &mut t.rows {
        let (Some(time), Some(frac)) = (Some(r.time), r.roof_fraction) else {
            continue;
        };
        let bound = time * frac;
        let resource = match (r.bound, group_of(&r.name)) {
            (_, Some("communication")) => roofline::results::Bound::Network,
            (Some("memory"), _) => roofline::results::Bound::Memory,
            _ => roofline::results::Bound::Compute,
        };
        let features = roofline::validation::Features::kernel(resource, bound, r.count as f64);
        r.expected = group_of(&r.name)
            .and_then(workload_of_group)
            .and_then(|w| roofline::validation::expected(w, family, features, bound))
            .map(|e| e.t);
    }
}

/// One row of the measured table. FLOP and byte figures are `None` for a kernel the export
/// gave no FLOPs or bytes for (listed by its time, not placed).
#[derive(Debug, Clone, PartialEq)]
pub struct MeasuredRow {
    /// Index of the kernel in the profile (`data-measured`).
    pub index: usize,
    pub name: String,
    pub count: u64,
    /// Measured time of all launches, seconds.
    pub time: f64,
    pub flops: Option<f64>,
    pub bytes: Option<f64>,
    pub intensity: Option<f64>,
    /// `flops / time`, FLOP/s.
    pub achieved: Option<f64>,
    /// The roof at the kernel's intensity, FLOP/s.
    pub roof: Option<f64>,
    /// `achieved / roof` (= lower bound / time).
    pub roof_fraction: Option<f64>,
    /// `compute` or `memory`.
    pub bound: Option<&'static str>,
    /// `time − lower bound`, seconds.
    pub time_lost: Option<f64>,
    /// What the validation set expects of such a kernel on this chip's generation, seconds
    /// ([`add_expected`]); `None` without evidence.
    pub expected: Option<f64>,
}

/// The rows, biggest time lost first (kernels that cannot be placed last, by time).
pub fn measured_rows(kernels: &[Kernel], roof: &Roofline) -> Vec<MeasuredRow> {
    rank_by_time_lost(kernels, roof)
        .into_iter()
        .map(|r| {
            let k = &kernels[r.index];
            let p = r.placed;
            MeasuredRow {
                index: r.index,
                name: k.name.clone(),
                count: k.count,
                time: k.time,
                flops: k.flops,
                bytes: k.bytes,
                intensity: p.map(|p| p.intensity),
                achieved: p.map(|p| p.achieved),
                roof: p.map(|p| p.roof),
                roof_fraction: p.map(|p| p.roof_fraction),
                bound: p.map(|p| match p.bound {
                    roofline::profile::Bound::Compute => "compute",
                    roofline::profile::Bound::Memory => "memory",
                }),
                time_lost: p.map(|p| p.time_lost),
                expected: None,
            }
        })
        .collect()
}

impl MeasuredRow {
    /// Whether the kernel was measured above its roof (see [`AboveRoof`]).
    pub fn above_roof(&self) -> bool {
        self.roof_fraction.is_some_and(|f| f > ABOVE_ROOF)
    }

    /// The `data-metric` cells: `(metric, exact value for the attribute, shown text)`; the
    /// exact value is `format_exact` (empty when unknown), the text rounded with its unit.
    pub fn cells(&self) -> Vec<(&'static str, String, String)> {
        let num = |metric: &'static str, v: Option<f64>, unit: Unit| {
            (
                metric,
                v.map(format_exact).unwrap_or_default(),
                v.map_or_else(|| "—".to_string(), |v| pretty(v, unit)),
            )
        };
        vec![
            num("time", Some(self.time), Unit::Seconds),
            num("flops", self.flops, Unit::Flops),
            num("bytes", self.bytes, Unit::Bytes),
            num("intensity", self.intensity, Unit::Intensity),
            num("achieved", self.achieved, Unit::FlopRate),
            num("roof", self.roof, Unit::FlopRate),
            (
                "roof_fraction",
                self.roof_fraction.map(format_exact).unwrap_or_default(),
                self.roof_fraction.map_or_else(
                    || "—".into(),
                    |f| {
                        if f > ABOVE_ROOF {
                            format!("{:.1}% ⚠ above roof", 100.0 * f)
                        } else {
                            format!("{:.1}%", 100.0 * f)
                        }
                    },
                ),
            ),
            (
                "bound",
                self.bound.unwrap_or("").to_string(),
                self.bound.unwrap_or("—").to_string(),
            ),
            num("time_lost", self.time_lost, Unit::Seconds),
            (
                "expected",
                self.expected
                    .map(format_exact)
                    .unwrap_or_else(|| "none".into()),
                self.expected
                    .map_or_else(|| "—".into(), |e| format!("≈ {}", pretty(e, Unit::Seconds))),
            ),
        ]
    }
}

/// Totals per name group ([`default_groups`]: GEMM, attention, norms, ...), groups with no
/// kernel left out.
pub fn measured_groups(kernels: &[Kernel], roof: &Roofline) -> Vec<GroupTotal> {
    group_totals(kernels, &default_groups(), roof)
        .into_iter()
        .filter(|g| g.records > 0)
        .collect()
}

/// The fit's summary lines, for the panel: the calibration (as `cal=` writes it), the RMS
/// log error before and after, and each term's share of the gap.
pub fn fit_summary(f: &Fit) -> Vec<String> {
    let c = &f.calibration;
    let mut out = vec![
        format!(
            "Fit over {} kernels ({} skipped): compute efficiency c = {:.3}, memory efficiency m = {:.3}, overhead o = {} per launch (cal={})",
            f.used,
            f.skipped,
            c.compute,
            c.memory,
            pretty(c.overhead, Unit::Seconds),
            c.format()
        ),
        format!(
            "RMS error of log time: {:.3} before (plain roofline), {:.3} after (×{:.2} → ×{:.2} typical miss)",
            f.rms_before,
            f.rms_after,
            f.rms_before.exp(),
            f.rms_after.exp()
        ),
        format!(
            "Total time: measured {}, roofline {}, calibrated {}",
            pretty(f.measured, Unit::Seconds),
            pretty(f.roofline, Unit::Seconds),
            pretty(f.calibrated, Unit::Seconds)
        ),
    ];
    out.push(uncertainty_line(&f.uncertainty));
    if let Some(s) = &f.shares {
        out.push(format!(
            "Of the gap between measured and roofline: compute efficiency explains {:.1}%, memory efficiency {:.1}%, overhead {:.1}%, unexplained {:.1}%",
            100.0 * s.compute,
            100.0 * s.memory,
            100.0 * s.overhead,
            100.0 * s.unexplained
        ));
    }
    out
}

/// The largest standard error a fitted term may have for Apply: 50 % (issue 38, point 6: a fit
/// at ±78 % on an efficiency applied in one click).
pub const MAX_APPLY_SE: f64 = 0.5;

/// Why Apply refuses fit `f` of `kernels`, or `None` when it may apply: a standard error above
/// [`MAX_APPLY_SE`] (relative: `ln c`'s and `ln m`'s, the overhead's against its value), or an
/// overhead per launch above a tenth of the median kernel (per launch, over the kernels the fit
/// used). A term the kernels do not determine is no reason: the fit says so on its own line.
pub fn apply_refusal(
    f: &roofline::profile::Fit,
    kernels: &[roofline::profile::Kernel],
) -> Option<String> {
    let c = &f.calibration;
    let u = &f.uncertainty;
    let mut why = Vec::new();
    let pct = |se: f64| format!("±{} %", roofline::units::format_sig(100.0 * se, 2));
    for (name, se) in [
        ("compute efficiency c", u.compute),
        ("memory efficiency m", u.memory),
    ] {
        if let Some(se) = se.filter(|se| *se > MAX_APPLY_SE) {
            why.push(format!("{name} is only known to {}", pct(se)));
        }
    }
    if let Some(se) = u
        .overhead
        .filter(|se| c.overhead > 0.0 && *se / c.overhead > MAX_APPLY_SE)
    {
        why.push(format!(
            "the overhead per launch is only known to {}",
            pct(se / c.overhead)
        ));
    }
    let per_launch: Vec<f64> = kernels
        .iter()
        .filter(|k| k.flops.is_some() && k.bytes.is_some() && k.time > 0.0)
        .map(|k| k.time / k.count.max(1) as f64)
        .filter(|t| t.is_finite())
        .collect();
    if let Some(median) = roofline::validation::percentile(&per_launch, 0.5) {
        if c.overhead > 0.1 * median {
            why.push(format!(
                "its overhead of {} per launch is more than a tenth of the median kernel's {}",
                pretty(c.overhead, Unit::Seconds),
                pretty(median, Unit::Seconds)
            ));
        }
    }
    (!why.is_empty()).then(|| {
        format!(
            "Not applied: {} (more than {} off, or launches that cost more than the work: the \
             kernels do not pin this calibration down; import more kinds of kernels).",
            why.join("; "),
            pct(MAX_APPLY_SE)
        )
    })
}

/// What the "calibrated ✕" chip by the plot says on hover, for `cal=<text>`.
pub fn calibration_words(text: &str) -> String {
    format!(
        "Calibrated: cal={text} (compute and memory efficiency, overhead per launch, fitted to \
         measured kernels) is in every time on this page and in its link. Click to remove it."
    )
}

/// How well the kernels determine each term: `c ±3.2 %` (a standard error of `ln c`, about a
/// relative one), `o ±1.2 µs`, or "not determined" for a term at its bound or that no kernel
/// constrains.
fn uncertainty_line(u: &roofline::profile::Uncertainty) -> String {
    let rel = |se: Option<f64>| {
        se.map_or("not determined".to_string(), |s| {
            format!("±{} %", roofline::units::format_sig(100.0 * s, 2))
        })
    };
    format!(
        "Uncertainty (one standard error, from the fit's curvature over {} kernel shapes): c {}, m {}, o {}",
        u.shapes,
        rel(u.compute),
        rel(u.memory),
        u.overhead.map_or("not determined".to_string(), |s| format!(
            "±{}",
            pretty(s, Unit::Seconds)
        ))
    )
}

/// What the profile panel shows: the roofline's caption, the rows (biggest time lost first),
/// the group totals and the FLOPs and bytes counts that could not be placed.
#[derive(Debug, Clone, PartialEq)]
pub struct MeasuredTable {
    /// The roofline the kernels are placed against ([`measured_roofline`]).
    pub roof: Roofline,
    pub caption: String,
    pub rows: Vec<MeasuredRow>,
    pub groups: Vec<GroupTotal>,
    /// Records without FLOPs or bytes (listed by time, not placed).
    pub unplaced: usize,
    /// Kernels measured faster than the roofline allows, said as a diagnostic (`None` when
    /// every placed kernel sits at or under its roof).
    pub above_roof: Option<AboveRoof>,
    /// A serving engine's steps against the scenario's `llm` operation
    /// ([`super::measured_steps`]): `None` when the profile has none, the reason when they
    /// cannot be timed.
    pub steps: Option<Result<std::sync::Arc<super::measured_steps::StepTable>, String>>,
}

/// Kernels measured above their roof: physically impossible on the chip as described, so the
/// description is wrong somewhere, and the panel says where to look instead of plotting them
/// silently.
#[derive(Debug, Clone, PartialEq)]
pub struct AboveRoof {
    /// How many placed kernels sit above their roof.
    pub count: usize,
    /// The largest `achieved / roof` among them.
    pub worst: f64,
}

impl AboveRoof {
    /// The kernels of `rows` above their roof (a fraction above 1 by more than rounding), if
    /// any.
    pub fn of(rows: &[MeasuredRow]) -> Option<AboveRoof> {
        let above: Vec<f64> = rows
            .iter()
            .filter(|r| r.above_roof())
            .filter_map(|r| r.roof_fraction)
            .collect();
        (!above.is_empty()).then(|| AboveRoof {
            count: above.len(),
            worst: above.iter().copied().fold(0.0, f64::max),
        })
    }

    /// The diagnostic in words.
    pub fn message(&self) -> String {
        format!(
            "{} {} faster than this roofline allows (up to {:.2}× {} roof). A measured kernel \
             cannot beat the chip it ran on, so something here does not describe that run: the \
             chip's peak may be a 2:4-sparse figure rather than the dense one, the kernels' \
             dtype not the one placed against (an fp8 or int8 kernel on a bf16 roof), their \
             FLOPs counted by another convention (2 per multiply-accumulate here; the \
             FlashAttention papers count causal attention as half), or the export from another \
             chip than chip 1.",
            self.count,
            if self.count == 1 {
                "kernel runs"
            } else {
                "kernels run"
            },
            self.worst,
            if self.count == 1 { "its" } else { "their" },
        )
    }
}

/// `achieved / roof` above which a kernel counts as above its roof: 1, with room for the
/// rounding of exported FLOP and byte counts.
const ABOVE_ROOF: f64 = 1.0 + 1e-9;

/// A profile against a roofline (from [`measured_roofline`], with its caption): everything
/// the panel's tables need.
pub fn measured_table(roof: Roofline, caption: String, p: &Profile) -> MeasuredTable {
    let rows = measured_rows(&p.kernels, &roof);
    let unplaced = rows.iter().filter(|r| r.roof.is_none()).count();
    MeasuredTable {
        groups: measured_groups(&p.kernels, &roof),
        roof,
        caption,
        above_roof: AboveRoof::of(&rows),
        rows,
        unplaced,
        steps: None,
    }
}

/// The cells of a group's row: `(metric, exact value, shown text)`, as [`MeasuredRow::cells`]
/// (FLOPs, bytes, achieved and the fraction cover the group's placed records).
pub fn group_cells(g: &GroupTotal) -> Vec<(&'static str, String, String)> {
    let num = |metric: &'static str, v: f64, unit: Unit| (metric, format_exact(v), pretty(v, unit));
    vec![
        ("records", g.records.to_string(), g.records.to_string()),
        ("launches", g.launches.to_string(), g.launches.to_string()),
        num("time", g.time, Unit::Seconds),
        num("flops", g.flops, Unit::Flops),
        num("bytes", g.bytes, Unit::Bytes),
        num("achieved", g.achieved(), Unit::FlopRate),
        (
            "roof_fraction",
            format_exact(g.roof_fraction()),
            format!("{:.1}%", 100.0 * g.roof_fraction()),
        ),
        num("time_lost", g.time_lost(), Unit::Seconds),
    ]
}

/// Fits a calibration to the profile against `roof` (see [`roofline::profile::fit`]).
pub fn fit_profile(p: &Profile, roof: &Roofline) -> Result<Fit, Error> {
    fit(&p.kernels, roof)
}

/// Adds a serving engine's steps to a roofline chart as measured markers: each step at its
/// intensity (FLOPs over HBM bytes of the mixed step) and its achieved FLOP/s (FLOPs over the
/// measured GPU time), joined to the roof there. At most `limit`, in trace order.
pub fn add_step_marks(chart: &mut RooflineChart, t: &MeasuredTable, limit: usize) {
    let Some(Ok(steps)) = &t.steps else { return };
    chart.measured.extend(
        steps
            .rows
            .iter()
            .filter_map(|r| {
                let b = r.bound.as_ref().ok()?;
                let x = b.flops / b.hbm_bytes;
                Some(MeasuredMark {
                    x,
                    y: b.flops / r.measured?,
                    predicted_y: t.roof.roof(x),
                    label: format!(
                        "step #{} {} B={}",
                        r.index,
                        r.phase.id(),
                        format_exact(r.batch)
                    ),
                })
            })
            .filter(|m| m.x > 0.0 && m.y > 0.0 && m.x.is_finite() && m.y.is_finite())
            .take(limit),
    );
}

/// Adds the placed kernels to a roofline chart as measured markers, each joined to its
/// predicted point (the roof at its intensity). At most `limit` markers, biggest time lost
/// first, so a trace of thousands of kernels stays cheap to draw.
pub fn add_measured(chart: &mut RooflineChart, rows: &[MeasuredRow], limit: usize) {
    chart.measured.extend(
        rows.iter()
            .filter_map(|r| {
                Some(MeasuredMark {
                    x: r.intensity?,
                    y: r.achieved?,
                    predicted_y: r.roof?,
                    label: r.name.clone(),
                })
            })
            .filter(|m| m.x > 0.0 && m.y > 0.0 && m.x.is_finite() && m.y.is_finite())
            .take(limit),
    );
}

/// The presets a profile says it was recorded on, offered by the panel when chip 1 is not one
/// of them: the preset whose name the export's device matches (`NVIDIA GeForce RTX 5090` →
/// `rtx-5090`), else, for an export that names no device, the presets of the compute
/// capability it gives (CC 12.0: RTX 5090 or RTX PRO 6000 Blackwell). Empty when the profile
/// says nothing, or chip 1 already is one of them.
#[derive(Debug, Clone, PartialEq)]
pub struct ChipOffer {
    /// Preset ids, best match first.
    pub ids: Vec<&'static str>,
    /// What in the export points to them (`the export names NVIDIA GeForce RTX 5090`).
    pub reason: String,
}

/// Presets per NVIDIA compute capability (CUDA's table of compute capabilities), for an
/// export that names no device.
const CC_PRESETS: &[(&str, &[&str])] = &[
    ("8.0", &["a100"]),
    ("8.9", &["l4"]),
    ("9.0", &["h100", "h200", "h800", "h20"]),
    ("10.0", &["b200"]),
    ("10.3", &["b300"]),
    ("12.0", &["rtx-5090", "rtx-pro-6000"]),
];

/// The presets `p` was recorded on that chip 1 (`current`) is not (see [`ChipOffer`]).
pub fn chip_offer(p: &Profile, current: Option<&roofline::inputs::Chip>) -> Option<ChipOffer> {
    let (ids, reason): (Vec<&'static str>, String) = if let Some(d) = p.device.as_deref() {
        let id = roofline::inputs::preset_for_device(d)?;
        (vec![id], format!("the export names {d}"))
    } else {
        let cc = p.compute_capability.as_deref()?;
        let (_, ids) = CC_PRESETS.iter().find(|(c, _)| *c == cc)?;
        (
            ids.to_vec(),
            format!("the export names no device, but compute capability {cc}"),
        )
    };
    let ids: Vec<&'static str> = ids
        .into_iter()
        .filter(|id| roofline::inputs::preset(id).is_some())
        .collect();
    let here = current.and_then(|c| c.preset_id.as_deref());
    (!ids.is_empty() && !here.is_some_and(|h| ids.contains(&h)))
        .then_some(ChipOffer { ids, reason })
}
