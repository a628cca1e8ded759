//! Plot models as plain data: step time (and MFU) against the chip count or against the
//! batch per chip, one curve per parallelism strategy, with the crossover where
//! communication starts to bind and the out-of-memory region (training.md's figures "ratio of
//! FLOPs to comms time for optimal mixed FSDP/TP" and "time taken for communication with
//! different parallelism schemes").
//!
//! Curves ([`PlotStrategy`]): the config's own mesh; pure data parallelism over every chip;
//! pure FSDP; FSDP × tensor parallelism at the fastest whole split at each point (tensor
//! degree up to the heads and 64). Against the batch per chip the chip count stays the
//! config's; against the chips the global batch stays the config's and the config's curve
//! scales its data degree (FSDP if it has one, else data parallelism).

use super::analysis::{divisors, TrainBound};
use super::config::{Mesh, TrainConfig, MAX_TOKENS};
use super::critical::{link_critical, Regime};
use super::fabric::{Fabric, MeshAxis};
use super::model::StepCosts;
use crate::collective::{check, MAX_CHIPS};
use crate::error::Error;
use crate::units::format_exact;
use serde::{Deserialize, Serialize};

/// The most points a training plot holds.
pub const MAX_POINTS: usize = 512;

/// The largest tensor-parallel degree the FSDP × TP curve tries.
pub const MAX_PLOT_TP: f64 = 64.0;

id_enum! {
    /// The x axis (ids `chips`, `batch`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
    pub enum PlotAxis {
        /// The chip count `N`, the global batch fixed.
        Chips = "chips",
        /// The batch per chip `B/N` in tokens, the chips fixed.
        BatchPerChip = "batch",
    }
}

id_enum! {
    /// A curve's strategy (ids `config`, `dp`, `fsdp`, `fsdp-tp`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
    pub enum PlotStrategy {
        /// The config's mesh.
        Config = "config",
        /// Pure data parallelism.
        Dp = "dp",
        /// Pure FSDP.
        Fsdp = "fsdp",
        /// FSDP × tensor parallelism, the fastest split at each point.
        FsdpTp = "fsdp-tp",
    }
}

/// One point of a curve.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TrainPoint {
    /// The x value (chips or tokens per chip).
    pub x: f64,
    /// Chips.
    pub chips: f64,
    /// Tokens per chip.
    pub tokens_per_chip: f64,
    /// The mesh at this point.
    pub mesh: Mesh,
    /// Step time, everything overlapped.
    pub t_lower: f64,
    /// Step time, nothing overlapped.
    pub t_upper: f64,
    /// The compute alone.
    pub t_math: f64,
    /// MFU at `t_lower`.
    pub mfu: f64,
    /// What binds.
    pub bound: TrainBound,
    /// Memory per chip.
    pub memory: f64,
    /// Whether it fits in HBM.
    pub fits: bool,
}

/// One curve.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrainCurve {
    /// The strategy.
    pub strategy: PlotStrategy,
    /// A legend label.
    pub label: String,
    /// The points, by increasing x (points whose mesh is impossible are left out).
    pub points: Vec<TrainPoint>,
    /// The x where communication starts to bind: against the batch, the exact critical batch
    /// per chip (communication-bound below); against the chips, the chip count where the
    /// batch per chip reaches the next mesh's critical batch (communication-bound above).
    /// `None` when it does not change within the curve's meshes.
    pub crossover: Option<f64>,
    /// Against the batch: the largest batch per chip that fits (out of memory above);
    /// against the chips: the smallest plotted chip count that fits after one that does not.
    pub oom_boundary: Option<f64>,
    /// The x ranges (first and last point) of consecutive points that do not fit.
    pub oom: Vec<(f64, f64)>,
    /// Why the curve is empty, if it is.
    pub error: Option<String>,
}

/// A training plot.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrainPlot {
    /// The x axis.
    pub axis: PlotAxis,
    /// One curve per strategy.
    pub curves: Vec<TrainCurve>,
}

fn log_space(from: f64, to: f64, points: usize) -> Vec<f64> {
    let r = libm::log(to / from);
    (0..points)
        .map(|i| {
            if i + 1 == points {
                to
            } else {
                from * libm::exp(r * i as f64 / (points - 1) as f64)
            }
        })
        .collect()
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// Rounds a chip count to a whole multiple of `unit` and of what the fabric needs (whole
/// nodes beyond one node, whole scalable units beyond one unit; on a torus, whole slices that
/// wrap around: 4x4x4 cubes on v5p, axes of 16 on v5e).
fn round_chips(target: f64, unit: f64, fabric: &Fabric) -> f64 {
    let grain = match fabric {
        Fabric::Switched(s) => {
            let su = s.node * s.leaf.unwrap_or(1.0);
            if target > su && s.leaf.is_some() {
                su
            } else if target > s.node {
                s.node
            } else {
                1.0
            }
        }
        Fabric::Torus(t) => {
            // Whole 4x4x4 cubes (v4p, v5p) or axes of 16 (v5e, v6e) wrap around.
            let g = match t.wrap {
                crate::collective::WrapRule::FullCube => libm::pow(4.0, t.dims),
                crate::collective::WrapRule::AxisOf16 => 16.0,
                _ => 1.0,
            };
            if target >= g {
                g
            } else {
                1.0
            }
        }
        _ => 1.0,
    };
    let (u, g) = (unit.max(1.0) as u64, grain.max(1.0) as u64);
    let l = (u / gcd(u, g)).saturating_mul(g) as f64;
    ((target / l).round() * l).max(l)
}

fn mesh_for(cfg: &TrainConfig, s: PlotStrategy, n: f64) -> Option<Mesh> {
    let m = &cfg.mesh;
    let pure = Mesh::default();
    match s {
        PlotStrategy::Config => {
            let mut x = *m;
            if m.fsdp > 1.0 {
                x.fsdp = n / (m.tp * m.pp * m.ep * m.dp);
            } else {
                x.dp = n / (m.tp * m.pp * m.ep * m.fsdp);
            }
            (x.fsdp.fract() == 0.0 && x.dp.fract() == 0.0 && x.fsdp >= 1.0 && x.dp >= 1.0)
                .then_some(x)
        }
        PlotStrategy::Dp => Some(Mesh { dp: n, ..pure }),
        PlotStrategy::Fsdp => Some(Mesh { fsdp: n, ..pure }),
        PlotStrategy::FsdpTp => None,
    }
}

fn build(cfg: &TrainConfig, mesh: Mesh) -> Result<StepCosts, Error> {
    let mut c = cfg.clone();
    c.mesh = mesh;
    c.validate()?;
    StepCosts::build(&c, false)
}

/// The tensor-parallel splits of `n` chips the FSDP × TP curve tries.
fn splits(cfg: &TrainConfig, n: f64) -> Vec<Mesh> {
    divisors(n)
        .into_iter()
        .filter(|&y| y >= 2.0 && y <= cfg.arch.heads.min(MAX_PLOT_TP))
        .map(|y| Mesh {
            fsdp: n / y,
            tp: y,
            ..Mesh::default()
        })
        .collect()
}

fn point(model: &StepCosts, mesh: Mesh, x: f64, b: f64, cfg: &TrainConfig) -> TrainPoint {
    let t = model.eval(b);
    let memory = model.memory_at(b);
    TrainPoint {
        x,
        chips: model.chips,
        tokens_per_chip: b,
        mesh,
        t_lower: t.t_lower,
        t_upper: t.t_upper,
        t_math: t.t_math,
        mfu: b * (model.fwd + model.bwd) / (t.t_lower * model.peak),
        bound: t.bound,
        memory,
        fits: memory <= cfg.hw.hbm,
    }
}

/// Better of two points: fitting first, then faster.
fn better(a: &TrainPoint, b: &TrainPoint) -> bool {
    (a.fits && !b.fits) || (a.fits == b.fits && a.t_lower < b.t_lower)
}

/// The batch per chip below which a link starts to bind: the largest link critical; `None`
/// when none ever binds or one always does.
fn comms_critical(model: &StepCosts) -> Option<f64> {
    let mut out: Option<f64> = None;
    for axis in MeshAxis::ALL {
        match link_critical(model, axis) {
            Some((Regime::Below, Some(x))) => out = Some(out.map_or(x, |y| y.max(x))),
            Some((Regime::Always, _)) => return None,
            _ => {}
        }
    }
    out
}

/// The largest batch per chip that fits.
fn fit_boundary(model: &StepCosts, hbm: f64) -> Option<f64> {
    let fixed = model.mem.fixed();
    let slope = model.mem.scaled() / model.b0;
    (fixed <= hbm && slope > 0.0).then(|| (hbm - fixed) / slope)
}

fn oom_ranges(points: &[TrainPoint]) -> Vec<(f64, f64)> {
    let mut out: Vec<(f64, f64)> = Vec::new();
    let mut open: Option<(f64, f64)> = None;
    for p in points {
        if p.fits {
            if let Some(r) = open.take() {
                out.push(r);
            }
        } else {
            open = Some(open.map_or((p.x, p.x), |(a, _)| (a, p.x)));
        }
    }
    out.extend(open);
    out
}

fn label(s: PlotStrategy, cfg: &TrainConfig) -> String {
    match s {
        PlotStrategy::Config => format!("this mesh ({})", cfg.mesh.describe()),
        PlotStrategy::Dp => "data parallelism".into(),
        PlotStrategy::Fsdp => "FSDP".into(),
        PlotStrategy::FsdpTp => "FSDP × tensor parallelism (best split)".into(),
    }
}

fn batch_curve(cfg: &TrainConfig, s: PlotStrategy, xs: &[f64]) -> TrainCurve {
    let n = cfg.mesh.chips();
    let meshes: Vec<Mesh> = match s {
        PlotStrategy::FsdpTp => splits(cfg, n),
        _ => {
            let mesh = if s == PlotStrategy::Config {
                Some(cfg.mesh)
            } else {
                mesh_for(cfg, s, n)
            };
            mesh.into_iter().collect()
        }
    };
    let mut models = Vec::new();
    let mut error = None;
    for m in meshes {
        match build(cfg, m) {
            Ok(model) => models.push((m, model)),
            Err(e) => error = Some(e.to_string()),
        }
    }
    let mut points = Vec::with_capacity(xs.len());
    for &b in xs {
        let mut best: Option<TrainPoint> = None;
        for (m, model) in &models {
            let p = point(model, *m, b, b, cfg);
            if best.as_ref().is_none_or(|q| better(&p, q)) {
                best = Some(p);
            }
        }
        points.extend(best);
    }
    // The envelope's crossover: the smallest batch at which some mesh is still compute-bound.
    let crossover = models
        .iter()
        .filter_map(|(_, m)| comms_critical(m))
        .fold(None, |acc: Option<f64>, x| {
            Some(acc.map_or(x, |y| y.min(x)))
        });
    let oom_boundary = models
        .iter()
        .filter_map(|(_, m)| fit_boundary(m, cfg.hw.hbm))
        .fold(None, |acc: Option<f64>, x| {
            Some(acc.map_or(x, |y| y.max(x)))
        });
    TrainCurve {
        strategy: s,
        label: label(s, cfg),
        oom: oom_ranges(&points),
        error: if models.is_empty() { error } else { None },
        points,
        crossover,
        oom_boundary,
    }
}

fn chips_curve(cfg: &TrainConfig, s: PlotStrategy, targets: &[f64]) -> TrainCurve {
    let unit = match s {
        PlotStrategy::Config => {
            let m = &cfg.mesh;
            m.tp * m.pp * m.ep * if m.fsdp > 1.0 { m.dp } else { m.fsdp }
        }
        _ => 1.0,
    };
    let mut ns: Vec<f64> = targets
        .iter()
        .map(|&t| round_chips(t, unit, &cfg.hw.fabric))
        .filter(|&n| n <= MAX_CHIPS)
        .collect();
    ns.dedup();
    let mut points: Vec<TrainPoint> = Vec::new();
    let mut models: Vec<StepCosts> = Vec::new();
    let mut error = None;
    for n in ns {
        let b = cfg.batch / n;
        let meshes: Vec<Mesh> = match s {
            PlotStrategy::FsdpTp => splits(cfg, n),
            _ => mesh_for(cfg, s, n).into_iter().collect(),
        };
        let mut best: Option<(TrainPoint, StepCosts)> = None;
        for m in meshes {
            match build(cfg, m) {
                Ok(model) => {
                    let p = point(&model, m, n, b, cfg);
                    if best.as_ref().is_none_or(|(q, _)| better(&p, q)) {
                        best = Some((p, model));
                    }
                }
                Err(e) => error = Some(e.to_string()),
            }
        }
        if let Some((p, m)) = best {
            points.push(p);
            models.push(m);
        }
    }
    let mut crossover = None;
    for i in 1..points.len() {
        let comm = |p: &TrainPoint| matches!(p.bound, TrainBound::Comms(_));
        if !comm(&points[i - 1]) && comm(&points[i]) {
            let (lo, hi) = (points[i - 1].x, points[i].x);
            crossover = Some(match comms_critical(&models[i]) {
                Some(bstar) if bstar > 0.0 => (cfg.batch / bstar).clamp(lo, hi),
                _ => hi,
            });
            break;
        }
    }
    let mut oom_boundary = None;
    for i in 1..points.len() {
        if !points[i - 1].fits && points[i].fits {
            oom_boundary = Some(points[i].x);
        }
    }
    TrainCurve {
        strategy: s,
        label: label(s, cfg),
        oom: oom_ranges(&points),
        error: if points.is_empty() { error } else { None },
        points,
        crossover,
        oom_boundary,
    }
}

/// Step time (and MFU) of `cfg` against the chip count or the batch per chip from `from` to
/// `to` (log-spaced, `points` of them), one curve per [`PlotStrategy`].
///
/// ```
/// use roofline::train::{train_plot, PlotAxis, PlotStrategy, TrainConfig};
/// let cfg = TrainConfig::default();
/// let p = train_plot(&cfg, PlotAxis::BatchPerChip, 16.0, 65536.0, 25).unwrap();
/// let fsdp = p.curves.iter().find(|c| c.strategy == PlotStrategy::Fsdp).unwrap();
/// // Pure FSDP over 8192 chips of a v5p pod binds below about 2550/M_X tokens per chip.
/// let b = fsdp.crossover.unwrap();
/// assert!(b > 700.0 && b < 1100.0, "{b}");
/// ```
pub fn train_plot(
    cfg: &TrainConfig,
    axis: PlotAxis,
    from: f64,
    to: f64,
    points: usize,
) -> Result<TrainPlot, Error> {
    cfg.validate()?;
    if !(2..=MAX_POINTS).contains(&points) {
        return Err(Error::InvalidField {
            field: "points".into(),
            value: points.to_string(),
            reason: format!("must be from 2 to {MAX_POINTS}"),
        });
    }
    let max = match axis {
        PlotAxis::Chips => MAX_CHIPS,
        PlotAxis::BatchPerChip => MAX_TOKENS / cfg.mesh.chips(),
    };
    let min = match axis {
        PlotAxis::Chips => 1.0,
        PlotAxis::BatchPerChip => 1.0 / cfg.mesh.chips(),
    };
    check("from", from, min, max, false, "a positive value")?;
    check("to", to, min, max, false, "a positive value")?;
    if to <= from {
        return Err(Error::InvalidField {
            field: "to".into(),
            value: format_exact(to),
            reason: format!("must exceed from = {}", format_exact(from)),
        });
    }
    let xs = log_space(from, to, points);
    let curves = PlotStrategy::ALL
        .iter()
        .map(|&s| match axis {
            PlotAxis::BatchPerChip => batch_curve(cfg, s, &xs),
            PlotAxis::Chips => chips_curve(cfg, s, &xs),
        })
        .collect();
    Ok(TrainPlot { axis, curves })
}
