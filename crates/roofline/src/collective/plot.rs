//! Plot models as plain data (no charts dependency): a collective's time against the array
//! size with its latency/bandwidth knee, and a sharded matmul's T_math and T_comms against a
//! dimension or the chip count with their crossovers.

use super::formulas::coefficients;
use super::sharded_matmul::{fast_times, times_at_chips, ShardedMatmul};
use super::topology::Network;
use super::{check, CollectiveKind, Combine, MAX_BYTES, MAX_CHIPS};
use crate::error::Error;
use serde::{Deserialize, Serialize};

/// The most points a plot model holds.
pub const MAX_POINTS: usize = 4096;

/// One point of [`CollectivePlot`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CollectivePoint {
    /// Array size `V`, bytes.
    pub bytes: f64,
    /// The bandwidth term.
    pub t_bandwidth: f64,
    /// The latency term (the same at every size).
    pub t_latency: f64,
    /// The collective's time.
    pub t_total: f64,
}

/// A collective's time against the array size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CollectivePlot {
    /// The collective.
    pub kind: CollectiveKind,
    /// Log-spaced points, smallest first.
    pub points: Vec<CollectivePoint>,
    /// The size where the bandwidth term equals the latency term (exact; may lie outside
    /// the plotted range), `None` without latency or communication.
    pub knee: Option<f64>,
    /// The bandwidth formula.
    pub formula: &'static str,
}

fn check_points(points: usize) -> Result<usize, Error> {
    if (2..=MAX_POINTS).contains(&points) {
        Ok(points)
    } else {
        Err(Error::InvalidField {
            field: "points".into(),
            value: points.to_string(),
            reason: format!("must be from 2 to {MAX_POINTS}"),
        })
    }
}

fn check_range(field: &str, from: f64, to: f64, min: f64, max: f64) -> Result<(), Error> {
    check(field, from, min, max, false, "a positive value")?;
    check(field, to, min, max, false, "a positive value")?;
    if to <= from {
        return Err(Error::InvalidField {
            field: field.into(),
            value: format!(
                "{}..{}",
                crate::units::format_exact(from),
                crate::units::format_exact(to)
            ),
            reason: "the range must increase".into(),
        });
    }
    Ok(())
}

fn log_space(from: f64, to: f64, points: usize) -> impl Iterator<Item = f64> {
    let r = libm::log(to / from);
    (0..points).map(move |i| {
        if i + 1 == points {
            to
        } else {
            from * libm::exp(r * i as f64 / (points - 1) as f64)
        }
    })
}

/// `kind`'s time over `network` for log-spaced array sizes from `from` to `to` bytes.
///
/// ```
/// use roofline::collective::{plot, CollectiveKind, Network, Topology};
/// // TPU v5e ring of 16 with 1 µs hops: AllGathers of shards under 45 kB are latency-bound.
/// let net = Network::new(Topology::ring(16.0, 4.5e10)).with_latency(1e-6);
/// let p = plot::collective_vs_bytes(CollectiveKind::AllGather, &net, 1e3, 1e9, 61).unwrap();
/// assert!((p.knee.unwrap() / 16.0 - 45e3).abs() < 1e-6);
/// assert!(p.points[0].t_total == p.points[0].t_latency);
/// ```
pub fn collective_vs_bytes(
    kind: CollectiveKind,
    network: &Network,
    from: f64,
    to: f64,
    points: usize,
) -> Result<CollectivePlot, Error> {
    network.validate()?;
    check_range("bytes", from, to, 1e-300, MAX_BYTES)?;
    let points = check_points(points)?;
    let c = coefficients(kind, &network.topology, false);
    let t_latency = c.hops * network.latency;
    let pts = log_space(from, to, points)
        .map(|v| {
            let t_bandwidth = c.kappa * v;
            CollectivePoint {
                bytes: v,
                t_bandwidth,
                t_latency,
                t_total: match c.combine {
                    Combine::Max => t_bandwidth.max(t_latency),
                    Combine::Sum => t_bandwidth + t_latency,
                },
            }
        })
        .collect();
    Ok(CollectivePlot {
        kind,
        points: pts,
        knee: (c.kappa > 0.0 && t_latency > 0.0).then(|| t_latency / c.kappa),
        formula: c.formula,
    })
}

/// What a matmul plot sweeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MatmulAxis {
    /// The batch `B`.
    B,
    /// The contracting dimension `D`.
    D,
    /// The output dimension `F`.
    F,
    /// The chips on the axis (one-axis topologies only), whole numbers.
    Chips,
}

/// One point of [`MatmulPlot`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MatmulPoint {
    /// The swept value.
    pub x: f64,
    /// T_math there.
    pub t_math: f64,
    /// T_comms there.
    pub t_comms: f64,
}

/// T_math and T_comms of a sharded matmul against one variable.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MatmulPlot {
    /// The swept variable.
    pub axis: MatmulAxis,
    /// Log-spaced points (whole numbers for chips), smallest first.
    pub points: Vec<MatmulPoint>,
    /// Where the bound flips inside the range: the exact `x` with `T_math = T_comms` for a
    /// dimension; for chips the first whole `n` on the other side of a flip.
    pub crossovers: Vec<f64>,
}

fn with_dim(mm: &ShardedMatmul, axis: MatmulAxis, x: f64) -> ShardedMatmul {
    let mut m = mm.clone();
    match axis {
        MatmulAxis::B => m.b = x,
        MatmulAxis::D => m.d = x,
        MatmulAxis::F => m.f = x,
        MatmulAxis::Chips => {}
    }
    m
}

fn dim_of(mm: &ShardedMatmul, axis: MatmulAxis) -> f64 {
    match axis {
        MatmulAxis::B => mm.b,
        MatmulAxis::D => mm.d,
        MatmulAxis::F => mm.f,
        MatmulAxis::Chips => mm.network.topology.chips(),
    }
}

/// The exact `x` where `T_math(x) = T_comms(x)` for a dimension: `T_math = a·x`, and
/// `T_comms = max(L, k·V(x))` with `V` either constant or proportional to `x`.
fn dim_crossovers(mm: &ShardedMatmul, axis: MatmulAxis) -> Vec<f64> {
    let Some((kind, v0, _, _)) = mm.collective() else {
        return Vec::new();
    };
    let x0 = dim_of(mm, axis);
    let (t_math0, _) = fast_times(mm, &mm.network.topology);
    let a = t_math0 / x0;
    let c = coefficients(kind, &mm.network.topology, false);
    let lat = c.hops * mm.network.latency;
    let v2 = with_dim(mm, axis, 2.0 * x0)
        .collective()
        .map_or(v0, |(_, v, _, _)| v);
    if v2 == v0 {
        let tc = (c.kappa * v0).max(lat);
        if tc > 0.0 {
            vec![tc / a]
        } else {
            Vec::new()
        }
    } else {
        let slope = c.kappa * v0 / x0;
        if slope < a && lat > 0.0 {
            vec![lat / a]
        } else {
            Vec::new()
        }
    }
}

/// T_math and T_comms of `mm` for log-spaced values of `axis` from `from` to `to` (dimensions
/// from 1 to 1e15; chips from 1 to 1e7, rounded to whole numbers and deduplicated).
///
/// ```
/// use roofline::collective::{plot, Case, Network, ShardedMatmul, Topology};
/// let net = Network::new(Topology::ring(2.0, 4.5e10));
/// let mm = ShardedMatmul::bf16(4096.0, 4096.0, 4096.0, 1.97e14, Case::Three { scatter: false }, net);
/// let p = plot::matmul_vs(&mm, plot::MatmulAxis::D, 1e3, 1e5, 50).unwrap();
/// assert_eq!(p.crossovers.len(), 1);
/// assert!((p.crossovers[0] - 4.0 * 1.97e14 / 9e10).abs() < 1e-9);
/// ```
pub fn matmul_vs(
    mm: &ShardedMatmul,
    axis: MatmulAxis,
    from: f64,
    to: f64,
    points: usize,
) -> Result<MatmulPlot, Error> {
    mm.validate()?;
    let points = check_points(points)?;
    if axis == MatmulAxis::Chips {
        check_range("n", from, to, 1.0, MAX_CHIPS.min(1e7))?;
        if mm.network.topology.with_chips(2.0).is_none() {
            return Err(Error::InvalidField {
                field: "topology".into(),
                value: mm.network.topology.kind().as_str().into(),
                reason: "a chip-count plot needs a one-axis topology (ring, line, uniring or node)"
                    .into(),
            });
        }
        let mut xs: Vec<f64> = log_space(from.ceil(), to.floor().max(from.ceil()), points)
            .map(f64::round)
            .collect();
        xs.dedup();
        let at = |n: f64| times_at_chips(mm, n).unwrap_or((0.0, 0.0));
        let pts: Vec<MatmulPoint> = xs
            .iter()
            .map(|&x| {
                let (t_math, t_comms) = at(x);
                MatmulPoint { x, t_math, t_comms }
            })
            .collect();
        let comms = |p: (f64, f64)| p.1 > p.0;
        let mut crossovers = Vec::new();
        for w in pts.windows(2) {
            let (l, r) = (w[0], w[1]);
            let cl = comms((l.t_math, l.t_comms));
            if cl != comms((r.t_math, r.t_comms)) {
                // Bisect whole numbers for the first n on the right side of the flip.
                let (mut lo, mut hi) = (l.x, r.x);
                while hi - lo > 1.0 {
                    let mid = ((lo + hi) / 2.0).floor();
                    if comms(at(mid)) == cl {
                        lo = mid;
                    } else {
                        hi = mid;
                    }
                }
                crossovers.push(hi);
            }
        }
        return Ok(MatmulPlot {
            axis,
            points: pts,
            crossovers,
        });
    }
    check_range(
        match axis {
            MatmulAxis::B => "b",
            MatmulAxis::D => "d",
            _ => "f",
        },
        from,
        to,
        1.0,
        super::sharded_matmul::MAX_DIM,
    )?;
    let pts = log_space(from, to, points)
        .map(|x| {
            let (t_math, t_comms) = fast_times(&with_dim(mm, axis, x), &mm.network.topology);
            MatmulPoint { x, t_math, t_comms }
        })
        .collect();
    let crossovers = dim_crossovers(mm, axis)
        .into_iter()
        .filter(|x| (from..=to).contains(x))
        .collect();
    Ok(MatmulPlot {
        axis,
        points: pts,
        crossovers,
    })
}
