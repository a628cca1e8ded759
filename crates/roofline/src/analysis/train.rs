//! A training step (the `train` kind) as an [`Analysis`]: the step of [`crate::train`] on
//! the chip at the derated peak, in the shared vocabulary (hardware FLOPs per chip, `T_math`,
//! one traffic term per resource, the bounds, the critical batch per chip, memory against
//! HBM), with the whole [`TrainAnalysis`] beside it.
//!
//! Derate and calibration: the roofline's peak is `C·derate·c` (every time, MFU and critical
//! batch follow it); MFU and HFU are then reported against the nominal peak `C`, and the days
//! at an assumed MFU (`FLOPs/(N·C·MFU)`, the book's estimate) keep the nominal peak too. A
//! calibration's memory factor scales the HBM bandwidth; its per-kernel overhead does not
//! apply to a whole step.

use super::{assemble, Analysis, Options, Report, Specific};
use crate::chip::Chip;
use crate::error::Error;
use crate::eval::{Critical, Eff, Eval, RawTerm};
use crate::op::Op;
use crate::resource::{Bound, ExecUnit, Resource};
use crate::train::{analyze_train, Fabric, LinkTime, TrainAnalysis, TrainBound, TrainConfig};
use crate::units::{format_exact, format_quantity, format_sig, Unit};

/// The resource a strategy's links use: DCN when they leave the scale-up network, NVLink
/// on a switched fabric, else ICI.
fn resource_of(cfg: &TrainConfig, link: &LinkTime) -> Resource {
    if link.scale_out {
        Resource::Dcn
    } else if matches!(cfg.hw.fabric, Fabric::Switched(_)) {
        Resource::Nvlink
    } else {
        Resource::Ici
    }
}

/// The step of `cfg` at the efficiency `eff`: its [`Eval`] (hardware FLOPs per chip, `T_math`,
/// the largest traffic term, the bound, `t_lower` and `t_upper` of the step), one traffic term
/// per resource (HBM, then each resource's busiest strategy: strategies overlap), and the
/// analysis with MFU, HFU and the assumed-MFU days against the nominal peak.
pub(crate) fn step_eval(
    cfg: &TrainConfig,
    eff: Eff,
) -> Result<(Eval, Vec<RawTerm>, TrainAnalysis), Error> {
    let peak = cfg.hw.peak;
    let mut c = cfg.clone();
    c.hw.peak = peak * eff.compute;
    let mut a = analyze_train(&c)?;
    if eff.compute != 1.0 {
        a.mfu *= eff.compute;
        a.mfu_min *= eff.compute;
        a.hfu *= eff.compute;
        if let Some(b) = &mut a.budget {
            b.days_at_mfu = b.days_at_mfu.map(|d| d * eff.compute);
            b.days_at_mfu_6n = b.days_at_mfu_6n.map(|d| d * eff.compute);
        }
    }
    let mut terms: Vec<(RawTerm, f64)> = Vec::new();
    if a.t_hbm > 0.0 {
        let bw = c.hw.hbm_bw;
        let term = RawTerm {
            resource: Resource::Hbm,
            bytes: a.t_hbm * bw,
            bw,
        };
        terms.push((term, a.t_hbm));
    }
    for l in &a.links {
        if !(l.time > 0.0 && l.bandwidth > 0.0) {
            continue;
        }
        let term = RawTerm {
            resource: resource_of(&c, l),
            bytes: l.time * l.bandwidth,
            bw: l.bandwidth,
        };
        match terms.iter_mut().find(|t| t.0.resource == term.resource) {
            Some(t) if t.1 < l.time => *t = (term, l.time),
            Some(_) => {}
            None => terms.push((term, l.time)),
        }
    }
    let binding_resource = match a.bound {
        TrainBound::Hbm => Some(Resource::Hbm),
        TrainBound::Comms(axis) => a
            .links
            .iter()
            .find(|l| l.axis == axis)
            .map(|l| resource_of(&c, l)),
        TrainBound::Compute => None,
    };
    let longest = (0..terms.len()).max_by(|&i, &j| terms[i].1.total_cmp(&terms[j].1));
    let binding = binding_resource
        .and_then(|r| terms.iter().position(|t| t.0.resource == r))
        .or(longest)
        .unwrap_or(0);
    let ev = Eval {
        flops: a.flops_per_chip,
        peak,
        peak_eff: c.hw.peak,
        t_math: a.t_math,
        t_max: terms.iter().map(|t| t.1).fold(0.0, f64::max),
        binding,
        bound: match a.bound {
            TrainBound::Compute => Bound::Compute,
            TrainBound::Hbm => Bound::Memory,
            TrainBound::Comms(_) => Bound::Network,
        },
        lower: a.t_lower,
        upper: a.t_upper,
    };
    Ok((ev, terms.into_iter().map(|t| t.0).collect(), a))
}

/// The [`Analysis`] of a training step on `chip` (inputs validated; `cfg` on the chip).
pub(crate) fn analyze_step(
    op: &Op,
    cfg: &TrainConfig,
    chip: &Chip,
    opts: &Options,
) -> Result<Analysis, Error> {
    let (ev, terms, t) = step_eval(cfg, Eff::of(opts))?;
    let dtype = cfg.precision.compute;
    let critical = t.critical_b.map(|value| {
        let c = t.critical.iter().find(|c| c.exact == Some(value));
        Critical {
            dim: "B/N".into(),
            value,
            approx: c.and_then(|c| c.book),
            resource: c
                .and_then(|c| match c.resource {
                    TrainBound::Comms(axis) => t.links.iter().find(|l| l.axis == axis),
                    _ => None,
                })
                .map_or(Resource::Hbm, |l| resource_of(cfg, l)),
        }
    });
    let mut a = assemble(
        op,
        chip,
        opts,
        &ev,
        &terms,
        Specific {
            dtype,
            unit: ExecUnit::Peak(dtype.peak_key()),
            bytes_read: 0.0,
            bytes_written: 0.0,
            memory: t.memory.total,
            critical,
            tiled: None,
            report: Report::default(),
        },
    );
    a.fits = t.fits;
    a.report = super::train_figures::train_report(t);
    Ok(a)
}

/// The derivation of a training step: the title, the peak (derate), the step's own worked
/// derivation (each formula with its section of the book), then the results.
pub(crate) fn derivation(a: &Analysis, t: &TrainAnalysis) -> Vec<String> {
    let mut out = a.derivation_head();
    a.push_peak_lines(&mut out);
    out.extend(t.derivation.iter().cloned());
    let n = |x: f64| {
        if x.fract() == 0.0 && x < 1e6 {
            format_exact(x)
        } else {
            format_sig(x, 3)
        }
    };
    out.push(format!(
        "As one roofline: {} FLOPs per chip over {} of {} traffic: intensity {} FLOPs/byte against a ridge of {} (peak / {} bandwidth)",
        n(a.flops),
        format_quantity(a.term(a.binding).map_or(0.0, |c| c.bytes), Unit::Bytes),
        a.binding.label(),
        n(a.intensity),
        n(a.ridge),
        a.binding.label(),
    ));
    out.push(format!(
        "Result: T_math = {} s, t_lower = {} s, t_upper = {} s per step ({}); MFU = {}% against the nominal peak; {} tokens/s; {} per chip of {} HBM ({})",
        n(a.t_math),
        n(t.t_lower),
        n(t.t_upper),
        t.bound.describe(),
        format_sig(100.0 * t.mfu, 3),
        format_quantity(t.tokens_per_s, Unit::Count),
        format_quantity(t.memory.total, Unit::Bytes),
        format_quantity(t.memory.capacity, Unit::Bytes),
        if t.fits { "fits" } else { "does not fit" },
    ));
    out
}
