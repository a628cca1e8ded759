//! Calibration: the roofline with a compute efficiency `c`, a memory-bandwidth efficiency `m`
//! and a fixed overhead per launch `o`,
//!
//! ```text
//! t = max(F / (c·P), B / (m·W)) + o
//! ```
//!
//! fitted to measured kernels by least squares on log time. `c = m = 1, o = 0` is the plain
//! roofline; `c` alone is today's derate.
//!
//! Why `max` and a log-time fit: the roofline's lower bound is a `max`, and the efficiencies
//! scale its two terms as a derate scales the peak; the overhead is the launch and tail cost
//! that no efficiency explains (it dominates microsecond kernels). Log time makes a 2× miss
//! on a 5 µs kernel weigh as much as on a 5 ms one, so the many small kernels of a trace fix
//! `o` and the large ones fix `c` and `m`.

use super::uncertainty::{uncertainty, Obs, Uncertainty};
use super::{Kernel, Roofline};
use crate::error::Error;
use crate::units::{format_exact, parse_quantity, parse_quantity_unit, Unit};
use serde::{Deserialize, Serialize};

/// Smallest efficiency accepted (and searched).
pub const MIN_EFFICIENCY: f64 = 1e-4;
/// Largest overhead accepted, seconds.
pub const MAX_OVERHEAD: f64 = 1.0;

/// A calibration of the roofline: `t = max(F/(c·P), B/(m·W)) + o`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    /// Compute efficiency `c`, from 1e-4 to 1: the fraction of peak FLOP/s reached.
    pub compute: f64,
    /// Memory-bandwidth efficiency `m`, from 1e-4 to 1.
    pub memory: f64,
    /// Fixed overhead per launch `o`, seconds, from 0 to 1.
    pub overhead: f64,
}

/// The terms of a calibrated time, for derivations.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CalibratedTerms {
    /// `F / (c·P)`, seconds.
    pub t_math: f64,
    /// `B / (m·W)`, seconds.
    pub t_memory: f64,
    /// `o`, seconds.
    pub overhead: f64,
    /// `max(t_math, t_memory) + o`, seconds.
    pub total: f64,
}

const CAL_REASON: &str = "must be <compute>:<memory>:<overhead>, e.g. 0.8:0.9:5us (efficiencies \
                          from 0.0001 to 1 or as percentages, overhead from 0 to 1 s)";

impl Default for Calibration {
    fn default() -> Self {
        Calibration::NONE
    }
}

impl std::fmt::Display for Calibration {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.format())
    }
}

impl Calibration {
    /// The plain roofline: `c = m = 1`, `o = 0`.
    pub const NONE: Calibration = Calibration {
        compute: 1.0,
        memory: 1.0,
        overhead: 0.0,
    };

    /// A checked calibration.
    pub fn new(compute: f64, memory: f64, overhead: f64) -> Result<Calibration, Error> {
        let c = Calibration {
            compute,
            memory,
            overhead,
        };
        c.validate()?;
        Ok(c)
    }

    /// Checks the ranges: efficiencies from 1e-4 to 1, overhead from 0 to 1 s.
    pub fn validate(&self) -> Result<(), Error> {
        let eff = |v: f64| v.is_finite() && (MIN_EFFICIENCY..=1.0).contains(&v);
        let ok = eff(self.compute)
            && eff(self.memory)
            && self.overhead.is_finite()
            && (0.0..=MAX_OVERHEAD).contains(&self.overhead);
        if ok {
            Ok(())
        } else {
            Err(Error::invalid("cal", self.format(), CAL_REASON))
        }
    }

    /// Today's derate as a calibration: compute efficiency `derate`, memory 1, no overhead.
    pub fn from_derate(derate: f64) -> Result<Calibration, Error> {
        Calibration::new(derate, 1.0, 0.0)
    }

    /// Whether this is the plain roofline.
    pub fn is_none(&self) -> bool {
        *self == Calibration::NONE
    }

    /// Reads `<compute>:<memory>:<overhead>`: efficiencies as fractions or percentages
    /// (`0.8`, `80%`), the overhead in seconds or with a unit (`5e-6`, `5us`, `0`).
    ///
    /// ```
    /// use roofline::profile::Calibration;
    /// let c = Calibration::parse("80%:0.9:5us").unwrap();
    /// assert_eq!((c.compute, c.memory, c.overhead), (0.8, 0.9, 5e-6));
    /// assert_eq!(c.format(), "0.8:0.9:5e-6");
    /// assert_eq!(Calibration::parse(&c.format()).unwrap(), c);
    /// assert!(Calibration::parse("1.2:1:0").is_err());
    /// ```
    pub fn parse(text: &str) -> Result<Calibration, Error> {
        let bad = || Error::invalid("cal", text, CAL_REASON);
        let parts: Vec<&str> = text.trim().split(':').collect();
        let [c, m, o] = parts.as_slice() else {
            return Err(bad());
        };
        let eff = |s: &str| -> Result<f64, Error> {
            let s = s.trim();
            match s.strip_suffix('%') {
                Some(p) => parse_quantity(p).map(|v| v / 100.0),
                None => parse_quantity(s),
            }
            .map_err(|_| bad())
        };
        let (o, unit) = parse_quantity_unit(o).map_err(|_| bad())?;
        if !matches!(unit, None | Some(Unit::Seconds)) {
            return Err(bad());
        }
        let cal = Calibration {
            compute: eff(c)?,
            memory: eff(m)?,
            overhead: o,
        };
        cal.validate().map_err(|_| bad())?;
        Ok(cal)
    }

    /// The link text, lossless: `0.8:0.9:5e-6` (overhead in seconds).
    pub fn format(&self) -> String {
        format!(
            "{}:{}:{}",
            format_exact(self.compute),
            format_exact(self.memory),
            format_exact(self.overhead)
        )
    }

    /// The calibrated terms of `flops` FLOPs and `bytes` bytes on a chip of `peak` FLOP/s and
    /// `bandwidth` bytes/s.
    pub fn terms(&self, flops: f64, bytes: f64, peak: f64, bandwidth: f64) -> CalibratedTerms {
        let t_math = flops / (self.compute * peak);
        let t_memory = bytes / (self.memory * bandwidth);
        CalibratedTerms {
            t_math,
            t_memory,
            overhead: self.overhead,
            total: t_math.max(t_memory) + self.overhead,
        }
    }

    /// The calibrated time, seconds: `max(F/(c·P), B/(m·W)) + o`.
    ///
    /// ```
    /// use roofline::profile::Calibration;
    /// // 2·4096³ FLOPs and 96 MiB on 989 TFLOP/s, 3.35 TB/s at c = 0.8, m = 0.9, o = 5 µs:
    /// // max(137.4e9 / 791.2e12, 100.7e6 / 3.015e12) + 5e-6 = 173.7 µs + 5 µs.
    /// let c = Calibration::new(0.8, 0.9, 5e-6).unwrap();
    /// let t = c.time(137438953472.0, 100663296.0, 989e12, 3.35e12);
    /// assert!((t - (137438953472.0 / (0.8 * 989e12) + 5e-6)).abs() < 1e-15);
    /// ```
    pub fn time(&self, flops: f64, bytes: f64, peak: f64, bandwidth: f64) -> f64 {
        self.terms(flops, bytes, peak, bandwidth).total
    }
}

/// How much of the gap between the measured time and the plain roofline's lower bound
/// (summed over all launches) each term of the fit explains, as fractions of that gap. The
/// three terms are Shapley values (each term's added time averaged over the orders in which
/// the terms can be applied), so they add up to the calibrated model's gap exactly; the rest
/// is `unexplained`. The four add up to 1.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Shares {
    /// Explained by the compute efficiency.
    pub compute: f64,
    /// Explained by the memory efficiency.
    pub memory: f64,
    /// Explained by the overhead.
    pub overhead: f64,
    /// Not explained by the calibrated model (negative when it overshoots).
    pub unexplained: f64,
}

/// The result of [`fit`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fit {
    /// The fitted calibration.
    pub calibration: Calibration,
    /// Records used (known FLOPs and bytes, not both zero, positive time).
    pub used: usize,
    /// Records left out.
    pub skipped: usize,
    /// Root mean square of `ln(measured / predicted)` over launches, with the plain roofline.
    pub rms_before: f64,
    /// The same with the calibration.
    pub rms_after: f64,
    /// Measured time of the records used, seconds.
    pub measured: f64,
    /// Their plain-roofline lower bounds, summed, seconds.
    pub roofline: f64,
    /// Their calibrated times, summed, seconds.
    pub calibrated: f64,
    /// The gap's decomposition; `None` when the measured time does not exceed the roofline's.
    pub shares: Option<Shares>,
    /// Records the calibrated model calls compute-bound (if 0, nothing constrains `c`, left at
    /// the largest value that fits as well, usually 1).
    pub compute_bound: usize,
    /// Records it calls memory-bound.
    pub memory_bound: usize,
    /// How well the data determine each parameter: standard errors from the fit's curvature
    /// (`profile::uncertainty`).
    #[serde(default)]
    pub uncertainty: Uncertainty,
    /// The median time of one launch among the records used, seconds (what the guard holds
    /// the overhead to).
    #[serde(default)]
    pub median: f64,
}

impl Fit {
    /// The guard every fitted model passes before a link carries it ([`super::check_fit`]):
    /// at least three distinct kernel shapes, no efficiency or overhead with a standard error
    /// past 50 %, an overhead per launch within a tenth of the median launch.
    pub fn check(&self) -> Result<(), String> {
        let u = &self.uncertainty;
        let o = self.calibration.overhead;
        let overhead = u.overhead.and_then(|se| (o > 0.0).then_some(se / o));
        super::check_fit(&super::FitCheck {
            shapes: u.shapes,
            errors: &[
                ("the compute efficiency", u.compute),
                ("the memory efficiency", u.memory),
                ("the overhead per launch", overhead),
            ],
            fixed: ("overhead per launch", o),
            median: self.median,
        })
    }
}

/// One launch's figures: compute time at peak, memory time at full bandwidth, measured time,
/// and the weight (launches).
#[derive(Debug, Clone, Copy)]
struct Point {
    a: f64,
    b: f64,
    ln_t: f64,
    w: f64,
}

/// Search coordinates: `x = ln c`, `y = ln m`, and `z ≥ 0` with `o = τ·(e^z − 1)`.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Coords {
    x: f64,
    y: f64,
    z: f64,
}

struct Problem {
    pts: Vec<Point>,
    weight: f64,
    tau: f64,
    x_min: f64,
    z_max: f64,
}

impl Problem {
    fn cal(&self, p: Coords) -> Calibration {
        Calibration {
            compute: libm::exp(p.x).clamp(MIN_EFFICIENCY, 1.0),
            memory: libm::exp(p.y).clamp(MIN_EFFICIENCY, 1.0),
            overhead: (self.tau * libm::expm1(p.z)).clamp(0.0, MAX_OVERHEAD),
        }
    }

    fn clamp(&self, p: Coords) -> Coords {
        Coords {
            x: p.x.clamp(self.x_min, 0.0),
            y: p.y.clamp(self.x_min, 0.0),
            z: p.z.clamp(0.0, self.z_max),
        }
    }

    /// Mean squared log error, weighted by launches.
    fn cost_of(&self, cal: &Calibration) -> f64 {
        let mut s = 0.0;
        for p in &self.pts {
            let t = (p.a / cal.compute).max(p.b / cal.memory) + cal.overhead;
            let r = p.ln_t - libm::log(t);
            s += p.w * r * r;
        }
        s / self.weight
    }

    fn cost(&self, p: Coords) -> f64 {
        self.cost_of(&self.cal(p))
    }
}

use super::guard::MIN_SHAPES;

/// How many distinct shapes (FLOPs and bytes per launch, each to 1e-6 relative) the points
/// span: launches of one shape give one equation, whatever their number.
fn distinct_shapes(pts: &[Point]) -> usize {
    let same = |x: f64, y: f64| x == y || (x - y).abs() <= 1e-6 * x.abs().max(y.abs());
    let mut seen: Vec<(f64, f64)> = Vec::new();
    for p in pts {
        if !seen.iter().any(|&(a, b)| same(a, p.a) && same(b, p.b)) {
            seen.push((p.a, p.b));
        }
    }
    seen.len()
}

/// Fits `c`, `m` and `o` to the kernels that can be placed (see the module docs): weighted
/// least squares on `ln t` per launch, each record weighing its launch count. The search is
/// deterministic: a grid over `ln c`, `ln m` and the overhead, then a compass search (axis and
/// diagonal steps, halved until below 1e-9) from the best grid point; ties keep the values
/// nearest the plain roofline (`c`, `m` near 1, `o` near 0), so a term the data do not
/// constrain stays put.
///
/// Errors when no record has FLOPs, bytes and a time, and refuses what the data cannot
/// determine: kernels of fewer than [`MIN_SHAPES`] distinct shapes, or a fitted
/// overhead per launch longer than the median kernel.
pub fn fit(kernels: &[Kernel], roofline: &Roofline) -> Result<Fit, Error> {
    let (peak, bw) = (roofline.peak(), roofline.bandwidth());
    let mut pts = Vec::new();
    for k in kernels {
        let (Some(f), Some(b)) = (k.flops, k.bytes) else {
            continue;
        };
        let n = k.count.max(1) as f64;
        let t = k.time / n;
        if !(f.is_finite() && b.is_finite() && t.is_finite()) || f < 0.0 || b < 0.0 || t <= 0.0 {
            continue;
        }
        if f == 0.0 && b == 0.0 {
            continue;
        }
        pts.push(Point {
            a: f / n / peak,
            b: b / n / bw,
            ln_t: libm::log(t),
            w: n,
        });
    }
    if pts.is_empty() {
        return Err(Error::Parse {
            input: "calibration".into(),
            reason: "no kernel has FLOPs, bytes and a time to fit".into(),
        });
    }
    // Three parameters (c, m, o) need three equations: kernels of one shape (the A100 CUTLASS
    // export's seven launches) fit any split of their time between efficiency and overhead
    // equally well, and a fit would pick one at random (51.9 ms of "overhead").
    let shapes = distinct_shapes(&pts);
    if shapes < MIN_SHAPES {
        return Err(Error::Parse {
            input: "calibration".into(),
            reason: format!(
                "{} kernels of {shapes} distinct shape{} (FLOPs and bytes) cannot determine \
                 compute efficiency, memory efficiency and overhead apart: profile kernels of at \
                 least {MIN_SHAPES} different sizes or intensities",
                pts.len(),
                if shapes == 1 { "" } else { "s" }
            ),
        });
    }
    let used = pts.len();
    let weight: f64 = pts.iter().map(|p| p.w).sum();
    let mut times: Vec<f64> = pts.iter().map(|p| libm::exp(p.ln_t)).collect();
    times.sort_by(f64::total_cmp);
    let tau = times[times.len() / 2].max(1e-12);
    let t_max = times[times.len() - 1].min(MAX_OVERHEAD);
    let prob = Problem {
        pts,
        weight,
        tau,
        x_min: libm::log(MIN_EFFICIENCY),
        z_max: libm::log1p(t_max / tau).max(0.0),
    };

    // Grid: c and m from 1 down to 1e-4, o from 0 up to the longest launch.
    const N: usize = 13;
    let axis = |i: usize, lo: f64, hi: f64| hi + (lo - hi) * i as f64 / (N - 1) as f64;
    let mut best = Coords {
        x: 0.0,
        y: 0.0,
        z: 0.0,
    };
    let mut best_cost = prob.cost(best);
    for i in 0..N {
        for j in 0..N {
            for l in 0..N {
                let p = Coords {
                    x: axis(i, prob.x_min, 0.0),
                    y: axis(j, prob.x_min, 0.0),
                    z: axis(l, prob.z_max, 0.0),
                };
                let c = prob.cost(p);
                if c < best_cost * (1.0 - 1e-12) {
                    best = p;
                    best_cost = c;
                }
            }
        }
    }
    // Compass search from the best grid point.
    let mut step = Coords {
        x: -prob.x_min / (N - 1) as f64,
        y: -prob.x_min / (N - 1) as f64,
        z: (prob.z_max / (N - 1) as f64).max(1e-3),
    };
    let dirs: [(f64, f64, f64); 10] = [
        (1.0, 0.0, 0.0),
        (-1.0, 0.0, 0.0),
        (0.0, 1.0, 0.0),
        (0.0, -1.0, 0.0),
        (0.0, 0.0, 1.0),
        (0.0, 0.0, -1.0),
        (1.0, 1.0, 0.0),
        (-1.0, -1.0, 0.0),
        (1.0, -1.0, 0.0),
        (-1.0, 1.0, 0.0),
    ];
    for _ in 0..20_000 {
        if step.x < 1e-9 && step.y < 1e-9 && step.z < 1e-9 {
            break;
        }
        let mut moved = false;
        for (dx, dy, dz) in dirs {
            let p = prob.clamp(Coords {
                x: best.x + dx * step.x,
                y: best.y + dy * step.y,
                z: best.z + dz * step.z,
            });
            if p == best {
                continue;
            }
            let c = prob.cost(p);
            if c < best_cost * (1.0 - 1e-14) {
                best = p;
                best_cost = c;
                moved = true;
                break;
            }
        }
        if !moved {
            step = Coords {
                x: step.x / 2.0,
                y: step.y / 2.0,
                z: step.z / 2.0,
            };
        }
    }
    let cal = prob.cal(best);
    // An overhead per launch longer than the typical kernel it is added to explains nothing:
    // the data did not determine it.
    if cal.overhead > tau {
        return Err(Error::Parse {
            input: "calibration".into(),
            reason: format!(
                "the fitted overhead per launch, {}, is longer than the median kernel it would be \
                 added to ({}): these kernels cannot determine it; profile more kinds of kernel",
                crate::units::format_quantity(cal.overhead, crate::units::Unit::Seconds),
                crate::units::format_quantity(tau, crate::units::Unit::Seconds)
            ),
        });
    }

    // Reports.
    let total = |c: &Calibration| -> f64 {
        prob.pts
            .iter()
            .map(|p| p.w * ((p.a / c.compute).max(p.b / c.memory) + c.overhead))
            .sum()
    };
    let measured: f64 = prob.pts.iter().map(|p| p.w * libm::exp(p.ln_t)).sum();
    let plain = total(&Calibration::NONE);
    let calibrated = total(&cal);
    let gap = measured - plain;
    let shares = (gap > 1e-12 * measured).then(|| {
        // v(S): the model's total with the terms in S calibrated, the others plain.
        let v = |sc: bool, sm: bool, so: bool| {
            total(&Calibration {
                compute: if sc { cal.compute } else { 1.0 },
                memory: if sm { cal.memory } else { 1.0 },
                overhead: if so { cal.overhead } else { 0.0 },
            })
        };
        let shapley = |player: usize| {
            let mut s = 0.0;
            // The 6 orders of three terms: the marginal gain of `player` in each.
            for order in [
                [0, 1, 2],
                [0, 2, 1],
                [1, 0, 2],
                [1, 2, 0],
                [2, 0, 1],
                [2, 1, 0],
            ] {
                let pos = order.iter().position(|&q| q == player).unwrap_or(0);
                let mut on = [false; 3];
                for &q in &order[..pos] {
                    on[q] = true;
                }
                let before = v(on[0], on[1], on[2]);
                on[player] = true;
                s += v(on[0], on[1], on[2]) - before;
            }
            s / 6.0
        };
        Shares {
            compute: shapley(0) / gap,
            memory: shapley(1) / gap,
            overhead: shapley(2) / gap,
            unexplained: (measured - calibrated) / gap,
        }
    });
    let obs: Vec<Obs> = prob
        .pts
        .iter()
        .map(|p| Obs {
            a: p.a,
            b: p.b,
            ln_t: p.ln_t,
            w: p.w,
        })
        .collect();
    let uncertainty = uncertainty(&obs, shapes, cal.compute, cal.memory, cal.overhead);
    let compute_bound = prob
        .pts
        .iter()
        .filter(|p| p.a / cal.compute >= p.b / cal.memory)
        .count();
    Ok(Fit {
        calibration: cal,
        used,
        skipped: kernels.len() - used,
        rms_before: prob.cost_of(&Calibration::NONE).sqrt(),
        rms_after: best_cost.sqrt(),
        measured,
        roofline: plain,
        calibrated,
        shares,
        compute_bound,
        memory_bound: used - compute_bound,
        uncertainty,
        median: tau,
    })
}
