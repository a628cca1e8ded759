//! The evaluation pieces every analysis shares: an operation's [`Cost`] on a chip (FLOPs,
//! peak, bytes per resource), its times ([`Eval`]), affine interpolation for sweeps
//! ([`Affine`]) and the one exact critical-point solver ([`solve_critical`]), used by single
//! operations and composite workloads alike.
//!
//! No allocation on the per-point path: a 1024-point sweep takes microseconds.

use crate::chip::Chip;
use crate::dtype::DType;
use crate::error::Error;
use crate::options::Options;
use crate::resource::{Bound, ExecUnit, Resource};
use serde::{Deserialize, Serialize};

/// What an evaluation runs at beyond the chip: the compute efficiency (`derate·c`, a
/// fraction of peak) and the fixed overhead of one launch `o` (seconds, added to `T_lower`
/// and `T_upper`). The memory efficiency scales the chip's HBM bandwidth instead (see
/// [`crate::options`]), so it reaches every term, ridge and approximation at once.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Eff {
    pub compute: f64,
    pub overhead: f64,
}

impl Eff {
    /// The efficiency of `opts`: `derate·c` and `o`.
    pub fn of(opts: &Options) -> Eff {
        Eff {
            compute: opts.compute_efficiency(),
            overhead: opts.cal.overhead,
        }
    }
}

/// The value of a dimension at which the operation turns compute-bound, solved exactly.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Critical {
    /// The dimension key: `b` (batch) or `d` (matmul sharded along D).
    pub dim: String,
    /// Exact value where `T_math = max comm` (compute-bound at and above it).
    pub value: f64,
    /// The simple approximation from the binding resource (`B > ridge·s_w/2`,
    /// `D > (n−1)·s_out·ridge`), when one applies.
    pub approx: Option<f64>,
    /// The resource that binds at the crossover.
    pub resource: Resource,
}

/// Tile-level figures of the scaling book's tiling footnote.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Tiled {
    /// Tile rows.
    pub bm: f64,
    /// Tile depth.
    pub bk: f64,
    /// Tile columns.
    pub bn: f64,
    /// `2·tm·tn·tk·bm·bk·bn` (displayed convention).
    pub flops: f64,
    /// `tm·tn·(tk·(s_x·bm·bk + s_w·bk·bn) + 2·s_out·bm·bn)`.
    pub bytes: f64,
    /// `flops / bytes`.
    pub intensity: f64,
    /// Ignoring the output term: `2·bm·bn/(s_x·bm + s_w·bn)` (bf16: `bm·bn/(bm+bn)`).
    pub approx_intensity: f64,
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct RawTerm {
    pub resource: Resource,
    pub bytes: f64,
    pub bw: f64,
}

pub(crate) const MAX_TERMS: usize = 4;

/// FLOPs, peak and per-resource bytes of an operation on a chip (2 FLOPs per MAC).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Cost {
    pub flops: f64,
    pub dtype: DType,
    pub unit: ExecUnit,
    pub peak: f64,
    terms: [RawTerm; MAX_TERMS],
    n: usize,
    pub bytes_read: f64,
    pub bytes_written: f64,
    pub memory: f64,
}

impl Cost {
    pub fn new(flops: f64, dtype: DType, unit: ExecUnit, peak: f64) -> Cost {
        Cost {
            flops,
            dtype,
            unit,
            peak,
            terms: [RawTerm {
                resource: Resource::Hbm,
                bytes: 0.0,
                bw: 1.0,
            }; MAX_TERMS],
            n: 0,
            bytes_read: 0.0,
            bytes_written: 0.0,
            memory: 0.0,
        }
    }

    /// A cost running at the peak of dtype `t` (errors when the chip has none).
    pub fn at_peak(flops: f64, t: DType, chip: &Chip) -> Result<Cost, Error> {
        Ok(Cost::new(
            flops,
            t,
            ExecUnit::Peak(t.peak_key()),
            chip.peak(t)?,
        ))
    }

    /// All traffic on HBM: `read` bytes read, `written` written, all of it resident.
    pub fn hbm_io(&mut self, read: f64, written: f64, hbm: f64) {
        self.push(Resource::Hbm, read + written, hbm);
        self.bytes_read = read;
        self.bytes_written = written;
        self.memory = read + written;
    }

    /// Adds bytes on a resource (merged with an existing term of the same resource; terms
    /// with no bytes are left out).
    pub fn push(&mut self, resource: Resource, bytes: f64, bw: f64) {
        if bytes <= 0.0 {
            return;
        }
        if let Some(t) = self.terms[..self.n]
            .iter_mut()
            .find(|t| t.resource == resource)
        {
            t.bytes += bytes;
            return;
        }
        if self.n < MAX_TERMS {
            self.terms[self.n] = RawTerm {
                resource,
                bytes,
                bw,
            };
            self.n += 1;
        }
    }

    pub fn terms(&self) -> &[RawTerm] {
        &self.terms[..self.n]
    }
}

/// The times of a [`Cost`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct Eval {
    pub flops: f64,
    pub peak: f64,
    pub peak_eff: f64,
    pub t_math: f64,
    pub t_max: f64,
    pub binding: usize,
    pub bound: Bound,
    /// `T_lower`: `max(T_math, T_max)` for one operation, `Σ repeat·T_lower` for a composite.
    pub lower: f64,
    /// `T_upper`: `T_math + T_sum` for one operation, `Σ repeat·T_upper` for a composite.
    pub upper: f64,
}

impl Eval {
    pub fn t_lower(&self) -> f64 {
        self.lower
    }
    pub fn t_upper(&self) -> f64 {
        self.upper
    }
    /// Achieved FLOPs/s (2 per MAC), never above the derated peak.
    pub fn achieved(&self) -> f64 {
        if self.flops == 0.0 {
            // No FLOPs (a collective): none achieved, also when nothing takes time.
            return 0.0;
        }
        (self.flops / self.t_lower()).min(self.peak_eff)
    }
    /// T_math − max comm (≥ 0 iff compute-bound).
    pub fn margin(&self) -> f64 {
        self.t_math - self.t_max
    }
}

/// The largest of the resources' times (0 when there is none), its index (the first on
/// ties) and their sum.
#[inline]
pub(crate) fn max_time(times: impl IntoIterator<Item = f64>) -> (f64, usize, f64) {
    let mut t_max = 0.0;
    let mut t_sum = 0.0;
    let mut binding = 0;
    for (i, ti) in times.into_iter().enumerate() {
        t_sum += ti;
        if ti > t_max {
            t_max = ti;
            binding = i;
        }
    }
    (t_max, binding, t_sum)
}

pub(crate) fn eval_cost(cost: &Cost, eff: Eff) -> Eval {
    let terms = cost.terms();
    Eval::from_times(
        cost.flops,
        cost.peak,
        eff,
        terms.iter().map(|t| t.bytes / t.bw),
        |i| terms.get(i).map_or(Bound::Memory, |t| t.resource.bound()),
    )
}

impl Eval {
    /// From the FLOPs, the peak and each resource's time in term order: `T_math`, the
    /// binding term (the first with the largest time), the bound (`bound_of` the binding
    /// term unless compute-bound), `T_lower` and `T_upper`.
    #[inline]
    fn from_times(
        flops: f64,
        peak: f64,
        eff: Eff,
        times: impl IntoIterator<Item = f64>,
        bound_of: impl FnOnce(usize) -> Bound,
    ) -> Eval {
        let peak_eff = peak * eff.compute;
        let t_math = flops / peak_eff;
        let (t_max, binding, t_sum) = max_time(times);
        let bound = if t_math >= t_max {
            Bound::Compute
        } else {
            bound_of(binding)
        };
        Eval {
            flops,
            peak,
            peak_eff,
            t_math,
            t_max,
            binding,
            bound,
            // Adding an overhead of 0 changes no time (every time here is ≥ 0).
            lower: t_math.max(t_max) + eff.overhead,
            upper: t_math + t_sum + eff.overhead,
        }
    }
}

/// FLOPs and bytes as affine functions of one field, from evaluations at `0` and at a power
/// of two `s` spanning the sweep: a sweep then costs a few multiplications per point. With
/// sizes whose products stay below 2^53 (every realistic case) the interpolated FLOPs and
/// bytes equal the direct ones bit for bit; beyond, they agree to a few ulps.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Affine {
    f0: f64,
    fk: f64,
    peak: f64,
    eff: Eff,
    n: usize,
    res: [Resource; MAX_TERMS],
    b0: [f64; MAX_TERMS],
    bk: [f64; MAX_TERMS],
    bw: [f64; MAX_TERMS],
}

impl Affine {
    /// From the costs at `x = 0` and `x = s` (`s` a power of two, so dividing by it is
    /// exact).
    pub fn new(c0: &Cost, c1: &Cost, s: f64, eff: Eff) -> Affine {
        let mut a = Affine {
            f0: c0.flops,
            fk: (c1.flops - c0.flops) / s,
            peak: c1.peak,
            eff,
            n: 0,
            res: [Resource::Hbm; MAX_TERMS],
            b0: [0.0; MAX_TERMS],
            bk: [0.0; MAX_TERMS],
            bw: [1.0; MAX_TERMS],
        };
        for t1 in c1.terms() {
            let b0 = c0
                .terms()
                .iter()
                .find(|t| t.resource == t1.resource)
                .map_or(0.0, |t| t.bytes);
            if a.n < MAX_TERMS {
                a.res[a.n] = t1.resource;
                a.b0[a.n] = b0;
                a.bk[a.n] = (t1.bytes - b0) / s;
                a.bw[a.n] = t1.bw;
                a.n += 1;
            }
        }
        a
    }

    /// The same [`Eval`] as [`eval_cost`] on the cost at `x`.
    pub fn eval(&self, x: f64) -> Eval {
        let n = self.n;
        Eval::from_times(
            self.f0 + self.fk * x,
            self.peak,
            self.eff,
            (0..n).map(|i| {
                let bytes = self.b0[i] + self.bk[i] * x;
                // A resource with no bytes at `x` takes no time (adding 0 changes no sum).
                if bytes <= 0.0 {
                    0.0
                } else {
                    bytes / self.bw[i]
                }
            }),
            |i| self.res[i].bound(),
        )
    }
}

/// The power of two nearest above `x` (at least 1, at most 2^60).
pub(crate) fn pow2_scale(x: f64) -> f64 {
    let x = if x.is_finite() {
        x.abs().clamp(1.0, 1e18)
    } else {
        1.0
    };
    2f64.powi(libm::log2(x).ceil() as i32)
}

/// Where `T_math = a0 + a·x` overtakes every resource's time `c + k·x` (`lines`: `(c, k,
/// tag)`): the largest per-resource threshold `(c − a0)/(a − k)` with its tag (`−∞` for a
/// resource the math already covers at any `x`); `None` when there is no resource, or some
/// resource's time grows at least as fast as the math and is not already below it.
pub(crate) fn crossover<T>(
    a0: f64,
    a: f64,
    lines: impl IntoIterator<Item = (f64, f64, T)>,
) -> Option<(f64, T)> {
    let mut best: Option<(f64, T)> = None;
    for (c, k, tag) in lines {
        let slope = a - k;
        let need = c - a0;
        let xi = if slope > 0.0 {
            need / slope
        } else if slope == 0.0 && need <= 0.0 {
            f64::NEG_INFINITY
        } else {
            return None;
        };
        if best.as_ref().is_none_or(|(bx, _)| xi > *bx) {
            best = Some((xi, tag));
        }
    }
    best
}

/// An operation's `T_math` and each resource's traffic at one value of its critical
/// dimension, as amounts over rates: `T_math = math / math_rate` (FLOPs over the derated
/// peak for one operation; summed seconds over 1 for a composite), `T_r = amount_r / rate_r`
/// (bytes over bandwidth; summed seconds over 1).
#[derive(Debug, Clone)]
pub(crate) struct Sample {
    pub math: f64,
    pub math_rate: f64,
    /// `(resource, amount, rate)` per resource.
    pub terms: Vec<(Resource, f64, f64)>,
}

impl Sample {
    /// The sample of one operation's [`Cost`] (FLOPs and bytes over the derated peak and the
    /// bandwidths).
    pub fn of_cost(c: &Cost, eff: Eff) -> Sample {
        Sample {
            math: c.flops,
            math_rate: c.peak * eff.compute,
            terms: c
                .terms()
                .iter()
                .map(|t| (t.resource, t.bytes, t.bw))
                .collect(),
        }
    }
}

/// The one critical-point solver, for single operations and composite workloads alike.
///
/// FLOPs and every resource's bytes (or a composite's summed times) are affine in the
/// critical dimension `x`; from samples at `x = 0` and at a power of two `x = s`, `T_math =
/// a0 + a·x` and `T_r = c_r + k_r·x`, and the operation is compute-bound w.r.t. `r` iff `(a −
/// k_r)·x ≥ c_r − a0`. Returns the critical value (the largest threshold, at least 0) with
/// the binding resource and its rate, or `None` when some resource grows at least as fast
/// as the math and is not already below it.
pub(crate) fn solve_critical(s: f64, at0: &Sample, at_s: &Sample) -> Option<(f64, Resource, f64)> {
    let rate = at_s.math_rate;
    let a0 = at0.math / rate;
    let a = (at_s.math - at0.math) / s / rate;
    let lines = at_s.terms.iter().map(|&(res, amount, r)| {
        let b0 = at0.terms.iter().find(|t| t.0 == res).map_or(0.0, |t| t.1);
        (b0 / r, (amount - b0) / s / r, (res, r))
    });
    crossover(a0, a, lines).map(|(x, (res, r))| (x.max(0.0), res, r))
}
