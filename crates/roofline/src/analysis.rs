//! Roofline analysis of one operation on one chip.
//!
//! With `P` the (derated) peak the operation runs at and, for each resource `r` it moves
//! bytes over, `bytes_r` and bandwidth `BW_r`:
//!
//! * `T_math = FLOPs / P`
//! * `T_r = bytes_r / BW_r`; `T_comms = max_r T_r`
//! * `T_lower = max(T_math, T_comms)`; `T_upper = T_math + Σ_r T_r`
//!   (≤ 2·T_lower with one resource; ≤ (1 + #resources)·T_lower in general)
//! * `intensity = FLOPs / bytes_binding` where the binding resource has the largest `T_r`
//! * `ridge = P / BW_binding`; compute-bound iff `T_math ≥ T_comms` (ties → compute), i.e.
//!   iff `intensity ≥ ridge`
//! * `achieved = FLOPs / T_lower`, `fraction = achieved / nominal peak`
//!
//! The 1-FLOP-per-MAC convention halves displayed FLOPs, intensities, ridges, achieved and
//! peak, and changes no time.

use crate::chip::Chip;
use crate::dtype::{DType, PeakKey};
use crate::error::Error;
use crate::op::{Op, OpKind};
use crate::units::{format_exact, format_si, format_sig, num3, Unit};
use crate::workload::PartTime;
use serde::{Deserialize, Serialize};

/// A resource bytes move over.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Resource {
    /// HBM (device memory).
    Hbm,
    /// On-chip memory (VMEM).
    Onchip,
    /// The host link.
    Pcie,
    /// TPU inter-chip interconnect.
    Ici,
    /// NVLink.
    Nvlink,
    /// Data-center network.
    Dcn,
}

impl Resource {
    /// The id (`hbm`, `onchip`, `pcie`, `ici`, `nvlink`, `dcn`).
    pub fn as_str(self) -> &'static str {
        match self {
            Resource::Hbm => "hbm",
            Resource::Onchip => "onchip",
            Resource::Pcie => "pcie",
            Resource::Ici => "ici",
            Resource::Nvlink => "nvlink",
            Resource::Dcn => "dcn",
        }
    }

    /// A display label (`HBM`, `on-chip memory`, `PCIe`, `ICI`, `NVLink`, `DCN`).
    pub fn label(self) -> &'static str {
        match self {
            Resource::Hbm => "HBM",
            Resource::Onchip => "on-chip memory",
            Resource::Pcie => "PCIe",
            Resource::Ici => "ICI",
            Resource::Nvlink => "NVLink",
            Resource::Dcn => "DCN",
        }
    }

    /// The time symbol used in derivations (`T_hbm`, `T_ici`, ...).
    pub fn time_symbol(self) -> &'static str {
        match self {
            Resource::Hbm => "T_hbm",
            Resource::Onchip => "T_onchip",
            Resource::Pcie => "T_pcie",
            Resource::Ici => "T_ici",
            Resource::Nvlink => "T_nvlink",
            Resource::Dcn => "T_dcn",
        }
    }

    /// The bound an operation has when this resource binds: memory for HBM and on-chip
    /// memory, network for links (PCIe, ICI, NVLink, DCN).
    pub fn bound(self) -> Bound {
        match self {
            Resource::Hbm | Resource::Onchip => Bound::Memory,
            _ => Bound::Network,
        }
    }
}

/// What limits an operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Bound {
    /// `T_math ≥ T_comms` (ties count as compute-bound).
    Compute,
    /// HBM or on-chip memory binds.
    Memory,
    /// A link (PCIe, ICI, NVLink, DCN) binds.
    Network,
}

impl Bound {
    /// `compute`, `memory` or `network`.
    pub fn as_str(self) -> &'static str {
        match self {
            Bound::Compute => "compute",
            Bound::Memory => "memory",
            Bound::Network => "network",
        }
    }
}

/// Which unit the FLOPs run on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExecUnit {
    /// The vector unit (`chip.vpu`): dot products and elementwise ops when present.
    Vector,
    /// The matrix peak of a dtype.
    Peak(PeakKey),
}

/// How FLOPs are counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum FlopConvention {
    /// 2 FLOPs per multiply-accumulate: the book's and the vendors' convention (default).
    #[default]
    TwoPerMac,
    /// 1 FLOP per multiply-accumulate (MLSys·im): halves displayed FLOPs, intensities,
    /// ridges, achieved and peak; no time changes.
    OnePerMac,
}

impl FlopConvention {
    /// The factor applied to displayed FLOP quantities: 1 or 0.5.
    pub fn factor(self) -> f64 {
        match self {
            FlopConvention::TwoPerMac => 1.0,
            FlopConvention::OnePerMac => 0.5,
        }
    }
}

/// Analysis options.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Options {
    /// FLOP counting convention (default 2 per MAC).
    pub convention: FlopConvention,
    /// Achievable fraction of peak, from 0.01 to 1 (default 1 = off). The book's footnote:
    /// H100s and B200s reach about 80–85% of peak, TPUs about 95%. `T_math = FLOPs /
    /// (peak·derate)`.
    pub derate: f64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            convention: FlopConvention::TwoPerMac,
            derate: 1.0,
        }
    }
}

/// Reads an achievable fraction of peak as links and the form take it: `0.95` or `95%`,
/// checked by [`Options::validate`] (0.01 to 1).
pub fn parse_derate(text: &str) -> Result<f64, Error> {
    let t = text.trim();
    let derate = match t.strip_suffix('%') {
        Some(p) => crate::units::parse_quantity(p).map(|x| x / 100.0),
        None => crate::units::parse_quantity(t),
    }?;
    Options {
        derate,
        ..Options::default()
    }
    .validate()?;
    Ok(derate)
}

impl Options {
    /// Checks `derate` is a number from 0.01 to 1.
    pub fn validate(&self) -> Result<(), Error> {
        if self.derate.is_finite() && (0.01..=1.0).contains(&self.derate) {
            Ok(())
        } else {
            Err(Error::invalid(
                "derate",
                format_exact(self.derate),
                "must be the achievable fraction of peak (a number from 0.01 to 1)",
            ))
        }
    }
}

/// Traffic on one resource.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CommTerm {
    /// The resource.
    pub resource: Resource,
    /// Bytes moved (per chip).
    pub bytes: f64,
    /// Bandwidth, bytes/s.
    pub bandwidth: f64,
    /// `bytes / bandwidth`, seconds.
    pub time: f64,
    /// `FLOPs / bytes` (displayed convention).
    pub intensity: f64,
    /// `peak / bandwidth` (derated peak, displayed convention): the ridge of this roof.
    pub ridge: f64,
}

/// The compute side of an analysis.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ComputeInfo {
    /// The dtype the FLOPs run in.
    pub dtype: DType,
    /// The unit (vector unit or a dtype peak).
    pub unit: ExecUnit,
    /// Nominal peak, FLOPs/s (displayed convention).
    pub peak: f64,
    /// Derate applied (1 = none).
    pub derate: f64,
    /// `peak · derate`, FLOPs/s (displayed convention).
    pub effective_peak: f64,
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

/// The full analysis of an operation on a chip. All FLOP quantities follow
/// `convention`; times never depend on it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Analysis {
    /// The analysed operation.
    pub op: Op,
    /// The chip's display name.
    pub chip_name: String,
    /// The FLOP convention used for display.
    pub convention: FlopConvention,
    /// FLOPs per chip.
    pub flops: f64,
    /// Bytes over all resources, per chip.
    pub bytes: f64,
    /// Bytes read from memory (inputs and weights, wherever they come from).
    pub bytes_read: f64,
    /// Bytes written to HBM.
    pub bytes_written: f64,
    /// One term per resource, HBM first.
    pub comms: Vec<CommTerm>,
    /// The resource with the largest time (binds unless compute-bound).
    pub binding: Resource,
    /// `FLOPs / bytes` of the binding resource.
    pub intensity: f64,
    /// The simple approximation with its formula (`≈ B`, `≈ 2B`, `= D/2`, `→ 1/2`, `≈ 2`).
    pub approx_intensity: Option<(f64, String)>,
    /// Dtype, unit and peak.
    pub compute: ComputeInfo,
    /// `FLOPs / (peak·derate)`, seconds.
    pub t_math: f64,
    /// The largest comm term, seconds.
    pub t_comms: f64,
    /// `max(T_math, all comm terms)`.
    pub t_lower: f64,
    /// `T_math + Σ comm terms`.
    pub t_upper: f64,
    /// What limits the operation.
    pub bound: Bound,
    /// `FLOPs / T_lower`, FLOPs/s.
    pub achieved: f64,
    /// `achieved / peak` (nominal peak), in 0..=1.
    pub fraction: f64,
    /// `peak·derate / bandwidth of the binding resource`, FLOPs/byte.
    pub ridge: f64,
    /// The exact critical batch (or D), when the operation has one.
    pub critical: Option<Critical>,
    /// Bytes resident in HBM.
    pub memory: f64,
    /// The chip's HBM capacity.
    pub capacity: f64,
    /// `memory ≤ capacity`.
    pub fits: bool,
    /// Tiling footnote figures, when tiles are set.
    pub tiled: Option<Tiled>,
    /// For a composite operation (`llm`): one line per part with its times; empty otherwise.
    /// See [`crate::workload`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<PartTime>,
}

// ---------------------------------------------------------------------------------------
// Lean internal path (shared by `analyze` and sweeps; no allocation).

#[derive(Debug, Clone, Copy)]
pub(crate) struct RawTerm {
    pub resource: Resource,
    pub bytes: f64,
    pub bw: f64,
}

pub(crate) const MAX_TERMS: usize = 4;

/// FLOPs, peak and per-resource bytes of an operation on a chip (2 FLOPs per MAC).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Core {
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

impl Core {
    pub fn new(flops: f64, dtype: DType, unit: ExecUnit, peak: f64) -> Core {
        Core {
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

    /// A core running at the peak of dtype `t` (errors when the chip has none).
    pub fn at_peak(flops: f64, t: DType, chip: &Chip) -> Result<Core, Error> {
        Ok(Core::new(
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

/// The times of a [`Core`].
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

pub(crate) fn eval_core(core: &Core, derate: f64) -> Eval {
    let terms = core.terms();
    Eval::from_times(
        core.flops,
        core.peak,
        derate,
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
        derate: f64,
        times: impl IntoIterator<Item = f64>,
        bound_of: impl FnOnce(usize) -> Bound,
    ) -> Eval {
        let peak_eff = peak * derate;
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
            lower: t_math.max(t_max),
            upper: t_math + t_sum,
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
    derate: f64,
    n: usize,
    res: [Resource; MAX_TERMS],
    b0: [f64; MAX_TERMS],
    bk: [f64; MAX_TERMS],
    bw: [f64; MAX_TERMS],
}

impl Affine {
    /// From the cores at `x = 0` and `x = s` (`s` a power of two, so dividing by it is
    /// exact).
    pub fn new(c0: &Core, c1: &Core, s: f64, derate: f64) -> Affine {
        let mut a = Affine {
            f0: c0.flops,
            fk: (c1.flops - c0.flops) / s,
            peak: c1.peak,
            derate,
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

    /// The same [`Eval`] as [`eval_core`] on the core at `x`.
    pub fn eval(&self, x: f64) -> Eval {
        let n = self.n;
        Eval::from_times(
            self.f0 + self.fk * x,
            self.peak,
            self.derate,
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
    2f64.powi(x.log2().ceil() as i32)
}

/// The cores of `kind` with the numeric field `dim` set to `0` and to `s` (the two ends an
/// [`Affine`] interpolates between).
pub(crate) fn cores_at_0_and(
    kind: &OpKind,
    dim: &str,
    s: f64,
    chip: &Chip,
) -> Result<(Core, Core), Error> {
    let mut k0 = kind.clone();
    k0.set_num_raw(dim, 0.0);
    let mut k1 = kind.clone();
    k1.set_num_raw(dim, s);
    Ok((k0.model().core(chip)?, k1.model().core(chip)?))
}

/// Validates everything an analysis depends on.
pub(crate) fn check_inputs(kind: &OpKind, chip: &Chip, opts: &Options) -> Result<(), Error> {
    opts.validate()?;
    chip.check()?;
    kind.validate()
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

/// Solves the critical value of the operation's critical dimension exactly.
///
/// FLOPs and every resource's bytes are affine in the dimension `x`, so with `T_math =
/// a0 + a·x` and `T_r = c_r + k_r·x`, the operation is compute-bound w.r.t. `r` iff
/// `(a − k_r)·x ≥ c_r − a0`; the critical value is the largest of these thresholds, or
/// `None` when some resource grows at least as fast as the math and is not already below it.
pub(crate) fn solve_critical(
    kind: &OpKind,
    chip: &Chip,
    derate: f64,
) -> Result<Option<Critical>, Error> {
    let model = kind.model();
    let Some(dim) = model.critical_dim() else {
        return Ok(None);
    };
    // Evaluate at 0 and at a power of two near the current value (exact division, and no
    // cancellation when the constant part dwarfs the slope).
    let scale = pow2_scale(kind.get_num(dim).unwrap_or(1.0));
    let (c0, c1) = cores_at_0_and(kind, dim, scale, chip)?;
    let aff = Affine::new(&c0, &c1, scale, derate);
    let peak_eff = c1.peak * derate;
    let a0 = aff.f0 / peak_eff;
    let a = aff.fk / peak_eff;
    let lines = c1
        .terms()
        .iter()
        .enumerate()
        .map(|(i, t1)| (aff.b0[i] / t1.bw, aff.bk[i] / t1.bw, *t1));
    let Some((x, term)) = crossover(a0, a, lines) else {
        return Ok(None);
    };
    Ok(Some(Critical {
        dim: dim.to_string(),
        value: x.max(0.0),
        approx: model.approx_critical(term.resource, peak_eff, term.bw),
        resource: term.resource,
    }))
}

/// Analyses `op` on `chip`: times, bounds, intensity, ridge, exact critical batch, memory
/// fit. Validates every input first (op fields, chip values, options) and fails with a typed
/// error on a missing peak or link (`no fp8 peak on A100 SXM`); never panics, and every
/// number in a successful result is finite.
///
/// A composite operation (`llm`) is analysed part by part and summed: see
/// [`crate::workload`] (`T_lower = Σ repeat·T_lower`, `T_upper = Σ repeat·T_upper`, bound by
/// the resource with the largest summed time).
pub fn analyze(op: &Op, chip: &Chip, opts: &Options) -> Result<Analysis, Error> {
    check_inputs(&op.kind, chip, opts)?;
    analyze_unchecked(op, chip, opts)
}

/// [`analyze`] without validating the op (inputs already checked; parts of a composite).
pub(crate) fn analyze_unchecked(op: &Op, chip: &Chip, opts: &Options) -> Result<Analysis, Error> {
    let model = op.kind.model();
    if let Some(c) = model.composite() {
        return crate::workload::analyze_composite(op, &c, chip, opts);
    }
    let core = model.core(chip)?;
    let ev = eval_core(&core, opts.derate);
    let conv = opts.convention.factor();
    let mut a = assemble(
        op,
        chip,
        opts,
        &ev,
        core.terms(),
        Specific {
            dtype: core.dtype,
            unit: core.unit,
            bytes_read: core.bytes_read,
            bytes_written: core.bytes_written,
            memory: core.memory,
            critical: solve_critical(&op.kind, chip, opts.derate)?,
            tiled: model.tiled(conv),
            parts: Vec::new(),
        },
    );
    a.approx_intensity = model.approx_intensity(a.binding, conv);
    Ok(a)
}

/// What an [`Analysis`] takes from its operation beyond the [`Eval`] and the traffic terms.
pub(crate) struct Specific {
    pub dtype: DType,
    pub unit: ExecUnit,
    pub bytes_read: f64,
    pub bytes_written: f64,
    pub memory: f64,
    pub critical: Option<Critical>,
    pub tiled: Option<Tiled>,
    pub parts: Vec<PartTime>,
}

/// The [`Analysis`] of an [`Eval`] with its traffic `terms` (one per resource, in the order
/// of `ev.binding`), for one operation or a composite's sums alike; `approx_intensity` is
/// left for the caller.
pub(crate) fn assemble(
    op: &Op,
    chip: &Chip,
    opts: &Options,
    ev: &Eval,
    terms: &[RawTerm],
    x: Specific,
) -> Analysis {
    let conv = opts.convention.factor();
    let comms: Vec<CommTerm> = terms
        .iter()
        .map(|t| CommTerm {
            resource: t.resource,
            bytes: t.bytes,
            bandwidth: t.bw,
            time: t.bytes / t.bw,
            intensity: conv * ev.flops / t.bytes,
            ridge: conv * ev.peak_eff / t.bw,
        })
        .collect();
    let bind = comms.get(ev.binding).copied().unwrap_or(CommTerm {
        resource: Resource::Hbm,
        bytes: 0.0,
        bandwidth: chip.hbm,
        time: 0.0,
        intensity: 0.0,
        ridge: conv * ev.peak_eff / chip.hbm,
    });
    let achieved = ev.achieved();
    Analysis {
        op: op.clone(),
        chip_name: chip.name.clone(),
        convention: opts.convention,
        flops: conv * ev.flops,
        bytes: comms.iter().map(|c| c.bytes).sum(),
        bytes_read: x.bytes_read,
        bytes_written: x.bytes_written,
        binding: bind.resource,
        intensity: bind.intensity,
        approx_intensity: None,
        compute: ComputeInfo {
            dtype: x.dtype,
            unit: x.unit,
            peak: conv * ev.peak,
            derate: opts.derate,
            effective_peak: conv * ev.peak_eff,
        },
        t_math: ev.t_math,
        t_comms: ev.t_max,
        t_lower: ev.t_lower(),
        t_upper: ev.t_upper(),
        bound: ev.bound,
        achieved: conv * achieved,
        fraction: (achieved / ev.peak).min(1.0),
        ridge: bind.ridge,
        critical: x.critical,
        memory: x.memory,
        capacity: chip.hbm_cap,
        fits: x.memory <= chip.hbm_cap,
        tiled: x.tiled,
        comms,
        parts: x.parts,
    }
}

/// Formats two numbers with enough digits to tell them apart (3 to 8 significant digits).
pub(crate) fn distinct(a: f64, b: f64) -> (String, String) {
    let (mut sa, mut sb) = (num3(a), num3(b));
    let mut sig = 4;
    while sa == sb && a != b && sig <= 8 {
        sa = format_sig(a, sig);
        sb = format_sig(b, sig);
        sig += 1;
    }
    (sa, sb)
}

/// Wraps a formula in parentheses when it has a top-level sum or difference.
fn paren(f: &str) -> String {
    if f.contains(" + ") || f.contains(" − ") {
        format!("({f})")
    } else {
        f.to_string()
    }
}

pub(crate) fn crit_str(v: f64, digits: usize) -> String {
    if v >= 1000.0 {
        format!("{v:.0}")
    } else {
        format_sig(v, digits)
    }
}

/// Derivation lines that read the same for one operation and for a composite's sums.
impl Analysis {
    /// The title (label, description, chip) and the operation's notes.
    pub(crate) fn derivation_head(&self) -> Vec<String> {
        let m = self.op.kind.model();
        let mut out = Vec::new();
        let desc = m.describe();
        out.push(match &self.op.label {
            Some(l) if !l.trim().is_empty() => format!("{l}: {desc} on {}", self.chip_name),
            _ => format!("{desc} on {}", self.chip_name),
        });
        m.notes(&self.chip_name, &mut out);
        out
    }

    /// The derated peak and the 1-FLOP-per-MAC halving, when they apply.
    pub(crate) fn push_peak_lines(&self, out: &mut Vec<String>) {
        let conv = self.convention.factor();
        let raw_peak = self.compute.peak / conv;
        if self.compute.derate < 1.0 {
            out.push(format!(
                "Derated peak = {} × {} = {} FLOPs/s (achievable fraction of peak)",
                format_exact(raw_peak),
                format_exact(self.compute.derate),
                num3(self.compute.effective_peak / conv)
            ));
        }
        if self.convention == FlopConvention::OnePerMac {
            out.push(format!(
                "1 FLOP per MAC: displayed FLOPs = {} / 2 = {}, peak = {} / 2 = {} FLOPs/s; times are unchanged",
                num3(self.flops / conv),
                num3(self.flops),
                format_exact(raw_peak),
                num3(self.compute.peak)
            ));
        }
    }

    /// `T_comms = max(...)` when there is more than one resource; returns the time symbols.
    pub(crate) fn push_t_comms(&self, out: &mut Vec<String>) -> Vec<&'static str> {
        let syms: Vec<&str> = self
            .comms
            .iter()
            .map(|c| c.resource.time_symbol())
            .collect();
        if self.comms.len() > 1 {
            out.push(format!(
                "T_comms = max({}) = {} s ({})",
                syms.join(", "),
                num3(self.t_comms),
                self.binding.label()
            ));
        }
        syms
    }

    /// `Ridge = peak / bandwidth` of the binding resource.
    pub(crate) fn ridge_line(&self) -> String {
        format!(
            "Ridge = peak / {} bandwidth = {} / {} = {} FLOPs/byte",
            self.binding.label(),
            num3(self.compute.effective_peak),
            format_exact(self.term(self.binding).map_or(0.0, |c| c.bandwidth)),
            num3(self.ridge)
        )
    }

    /// `Achieved = FLOPs / T_lower` and the fraction of peak.
    pub(crate) fn achieved_line(&self) -> String {
        format!(
            "Achieved = FLOPs / T_lower = {} / {} = {} FLOPs/s ({}) = {}% of peak",
            num3(self.flops),
            num3(self.t_lower),
            num3(self.achieved),
            format_si(self.achieved, Unit::FlopRate),
            format_sig(100.0 * self.fraction, 3)
        )
    }
}

impl Analysis {
    /// The term of a resource, if the operation uses it.
    pub fn term(&self, resource: Resource) -> Option<&CommTerm> {
        self.comms.iter().find(|c| c.resource == resource)
    }

    /// The derivation, step by step with numbers substituted, in the style of the book's
    /// answers, e.g. `T_math = FLOPs / peak = 2·B·D·F / 1.97e14 = 2·136·4096·4096 / 1.97e14 =
    /// 2.32e-5 s`. Every number is computed from this analysis's fields.
    ///
    /// For a composite operation: every part with its times, then the sums.
    pub fn derivation(&self) -> Vec<String> {
        if !self.parts.is_empty() {
            return crate::workload::derivation(self);
        }
        let m = self.op.kind.model();
        let conv = self.convention.factor();
        let mut out = self.derivation_head();

        let raw_flops = self.flops / conv;
        let raw_peak = self.compute.peak / conv;
        let raw_eff = self.compute.effective_peak / conv;
        let (fs, fsub) = m.flops_formula();
        out.push(format!("FLOPs = {fs} = {fsub} = {}", num3(raw_flops)));
        let unit_line = match self.compute.unit {
            ExecUnit::Vector => format!(
                "Runs on the vector unit of {}: vpu = {} FLOPs/s ({})",
                self.chip_name,
                format_exact(raw_peak),
                format_si(raw_peak, Unit::FlopRate)
            ),
            ExecUnit::Peak(k) => {
                let why = if matches!(self.op.kind_id(), "dot" | "elementwise") {
                    " (the chip has no vector-unit figure, so it runs at the dtype's peak)"
                } else {
                    ""
                };
                format!(
                    "Runs at the {k} peak of {}: {} FLOPs/s ({}){why}",
                    self.chip_name,
                    format_exact(raw_peak),
                    format_si(raw_peak, Unit::FlopRate)
                )
            }
        };
        out.push(unit_line);
        self.push_peak_lines(&mut out);
        let peak_txt = if self.compute.derate < 1.0 {
            num3(raw_eff)
        } else {
            format_exact(raw_peak)
        };
        out.push(format!(
            "T_math = FLOPs / peak = {} / {peak_txt} = {} / {peak_txt} = {} s",
            paren(&fs),
            paren(&fsub),
            num3(self.t_math)
        ));
        for c in &self.comms {
            let label = c.resource.label();
            let (bs, bsub) = m
                .bytes_formula(c.resource)
                .unwrap_or_else(|| ("bytes".into(), num3(c.bytes)));
            out.push(format!("{label} bytes = {bs} = {bsub} = {}", num3(c.bytes)));
            out.push(format!(
                "{} = {label} bytes / {label} bandwidth = {} / {} = {} s",
                c.resource.time_symbol(),
                num3(c.bytes),
                format_exact(c.bandwidth),
                num3(c.time)
            ));
        }
        let syms = self.push_t_comms(&mut out);
        out.push(format!(
            "T_lower = max(T_math, T_comms) = max({}, {}) = {} s",
            num3(self.t_math),
            num3(self.t_comms),
            num3(self.t_lower)
        ));
        let parts: Vec<String> = self.comms.iter().map(|c| num3(c.time)).collect();
        out.push(format!(
            "T_upper = T_math + {} = {} + {} = {} s",
            syms.join(" + "),
            num3(self.t_math),
            parts.join(" + "),
            num3(self.t_upper)
        ));
        let bl = self.binding.label();
        let bind_bytes = self.term(self.binding).map_or(0.0, |c| c.bytes);
        let mut il = format!(
            "Intensity = FLOPs / {bl} bytes = {} / {} = {} FLOPs/byte (exact)",
            num3(self.flops),
            num3(bind_bytes),
            num3(self.intensity)
        );
        if let Some((v, f)) = &self.approx_intensity {
            if f.chars().any(|c| c.is_ascii_alphabetic()) {
                il.push_str(&format!("; {f} = {}", num3(*v)));
            } else {
                il.push_str(&format!("; {f}"));
            }
        }
        out.push(il);
        out.push(self.ridge_line());
        let (si, sr) = distinct(self.intensity, self.ridge);
        out.push(match self.bound {
            Bound::Compute => {
                format!("Compute-bound: intensity {si} ≥ ridge {sr} (T_math ≥ T_comms)")
            }
            b => format!(
                "{}-bound on {bl}: intensity {si} < ridge {sr} (T_comms > T_math)",
                if b == Bound::Memory {
                    "Memory"
                } else {
                    "Network"
                },
            ),
        });
        out.push(self.achieved_line());
        match (&self.critical, m.critical_dim()) {
            (Some(c), _) => {
                let d = c.dim.to_ascii_uppercase();
                let mut l = if c.value == 0.0 {
                    format!("Critical {d}: compute-bound at every {d}")
                } else {
                    format!(
                        "Critical {d} = {} (exact: T_math = T_comms against {}); compute-bound for {d} ≥ {}",
                        crit_str(c.value, 4),
                        c.resource.label(),
                        crit_str(c.value, 4)
                    )
                };
                if let Some(ap) = c.approx {
                    let ridge = self.term(c.resource).map_or(self.ridge, |t| t.ridge);
                    match m.approx_intensity(c.resource, conv) {
                        Some((_, f)) => l.push_str(&format!(
                            "; approximately {d} > {} (from {} > {})",
                            crit_str(ap, 3),
                            f.trim_start_matches(['≈', '=', ' ']),
                            num3(ridge)
                        )),
                        None => l.push_str(&format!("; approximately {d} > {}", crit_str(ap, 3))),
                    }
                }
                out.push(l);
            }
            (None, Some(dim)) => out.push(format!(
                "No critical {}: some traffic grows at least as fast as the FLOPs, so it never becomes compute-bound",
                dim.to_ascii_uppercase()
            )),
            (None, None) => {}
        }
        out.push(format!(
            "Memory: {} bytes in HBM vs capacity {} ({}): {}",
            num3(self.memory),
            format_exact(self.capacity),
            format_si(self.capacity, Unit::Bytes),
            if self.fits { "fits" } else { "does not fit" }
        ));
        if let Some(t) = &self.tiled {
            out.push(format!(
                "Tiled ({}, {}, {}): bytes = tm·tn·(tk·(s_x·bm·bk + s_w·bk·bn) + 2·s_out·bm·bn) = {}; \
                 tiled intensity = {} ≈ 2·bm·bn/(s_x·bm + s_w·bn) = {} (bf16: bm·bn/(bm+bn))",
                format_exact(t.bm),
                format_exact(t.bk),
                format_exact(t.bn),
                num3(t.bytes),
                num3(t.intensity),
                num3(t.approx_intensity)
            ));
        }
        out
    }
}
