//! Where communication (or HBM) starts to bind: the batch per chip `b*` solved on the model
//! (latency, `(n−1)/n` factors, attention and every parameter included), beside the book's
//! closed forms.
//!
//! For a link, compute-bound means its traffic fits in each pass's compute (see
//! [`StepCosts::link`]): `g(b) = min(t_fwd − F, t_bwd − (B + L), t_bwd/m − L) ≥ 0`. Each
//! collective's time is `max(latency, κ·V(b))` (or their sum for a send) with `V` constant
//! (weights) or proportional to `b` (activations), so each branch is a linear function less
//! a convex piecewise-linear one, and `g` is concave: it crosses zero at most once from
//! below. `b*` is found by
//! bisection to the last bit of an `f64`, after the asymptotic slopes decide whether the link
//! binds at every batch (tensor parallelism with `Y > F·W/C`) or at none.

use super::model::{StepCosts, Window};
use super::MeshAxis;
use crate::collective::Combine;
use serde::{Deserialize, Serialize};

/// How a resource's binding depends on the batch per chip.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Regime {
    /// It binds below the critical batch, and the step is compute-bound above.
    Below,
    /// It never binds (no latency, and its time grows no faster than the compute's).
    Never,
    /// It binds at every batch (its time grows faster with the batch than the compute's, or
    /// as fast with a constant on top).
    Always,
}

/// `(slope, constant)` of one branch at large `b`, and its value at `b`.
struct Branch {
    slope: f64,
    constant: f64,
}

/// The three branches of `g` for `axis` at large `b`: forward traffic in the forward pass,
/// backward traffic in the backward pass, last-backward traffic in the last microbatch's
/// backward pass.
fn asymptotes(model: &StepCosts, axis: MeshAxis) -> [Branch; 3] {
    let mu_f = model.fwd / model.peak;
    let mu_b = (model.bwd + model.recompute) / model.peak;
    let mut s = [0.0; 3];
    let mut c = [0.0; 3];
    for t in model.terms.iter().filter(|t| t.axis == axis) {
        let (slope, constant) = if t.scales {
            let per_b = t.count * t.kappa * t.bytes / model.b0;
            let lat = match t.combine {
                Combine::Max => 0.0,
                Combine::Sum => t.count * t.latency,
            };
            (per_b, lat)
        } else {
            (0.0, t.time(1.0))
        };
        let which: &[usize] = match t.window {
            Window::Forward => &[0],
            Window::Backward => &[1],
            Window::LastBackward => &[1, 2],
        };
        for &i in which {
            s[i] += slope;
            c[i] += constant;
        }
    }
    [
        Branch {
            slope: mu_f - s[0],
            constant: -c[0],
        },
        Branch {
            slope: mu_b - s[1],
            constant: -c[1],
        },
        Branch {
            slope: mu_b / model.m - s[2],
            constant: -c[2],
        },
    ]
}

/// `g(b)` for `axis`: the least slack of the three branches.
fn slack(model: &StepCosts, axis: MeshAxis, b: f64) -> f64 {
    let t_fwd = b * model.fwd / model.peak;
    let t_bwd = b * (model.bwd + model.recompute) / model.peak;
    let r = b / model.b0;
    let (mut f, mut back, mut last) = (0.0, 0.0, 0.0);
    for t in model.terms.iter().filter(|t| t.axis == axis) {
        let x = t.time(r);
        match t.window {
            Window::Forward => f += x,
            Window::Backward => back += x,
            Window::LastBackward => last += x,
        }
    }
    (t_fwd - f)
        .min(t_bwd - back - last)
        .min(t_bwd / model.m - last)
}

/// Solves `g(b) = 0` for a concave `g` with `g(0) < 0` and `g(hi) ≥ 0`: the smallest `b`
/// with `g(b) ≥ 0`, to the last bit.
fn bisect(g: impl Fn(f64) -> f64, hi: f64) -> f64 {
    let (mut lo, mut hi) = (0.0f64, hi);
    for _ in 0..2200 {
        let mid = lo + (hi - lo) / 2.0;
        if mid <= lo || mid >= hi {
            break;
        }
        if g(mid) >= 0.0 {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    hi
}

/// The critical batch per chip of a link: `(regime, b*)`; `None` when the axis carries no
/// traffic.
pub(crate) fn link_critical(model: &StepCosts, axis: MeshAxis) -> Option<(Regime, Option<f64>)> {
    if !model.terms.iter().any(|t| t.axis == axis && t.count > 0.0) {
        return None;
    }
    let branches = asymptotes(model, axis);
    if branches
        .iter()
        .any(|b| b.slope < 0.0 || (b.slope == 0.0 && b.constant < 0.0))
    {
        return Some((Regime::Always, None));
    }
    let g = |b: f64| slack(model, axis, b);
    // At b → 0 only latencies and weight traffic remain.
    if g(0.0) >= 0.0 {
        return Some((Regime::Never, None));
    }
    let mut hi = model.b0.max(1.0);
    while g(hi) < 0.0 {
        hi *= 2.0;
        if !hi.is_finite() || hi > 1e300 {
            return Some((Regime::Always, None));
        }
    }
    Some((Regime::Below, Some(bisect(g, hi))))
}

/// The batch per chip where HBM traffic (weights and the optimizer update, independent of the
/// batch) equals the compute: `b* = T_HBM·C/FLOPs per token`.
pub(crate) fn hbm_critical(model: &StepCosts) -> (Regime, Option<f64>) {
    let t_hbm = model.hbm_bytes / model.hbm_bw;
    if t_hbm <= 0.0 {
        return (Regime::Never, None);
    }
    let mu = (model.fwd + model.bwd + model.recompute) / model.peak;
    (Regime::Below, Some(t_hbm / mu))
}
