//! What every operation kind implements ([`OpBehavior`]), the parts a composite kind
//! decomposes into ([`Part`], [`Composite`]), and the small formula helpers kinds share.

use super::{Evaluation, Op};
use crate::chip::Chip;
use crate::dtype::DType;
use crate::error::Error;
use crate::eval::{Cost, Tiled};
use crate::field::FieldSpec;
use crate::resource::{ExecUnit, Resource};
use crate::units::{format_exact, format_sig};
use serde::{Deserialize, Serialize};

/// The behaviour each operation kind implements (crate-private; one struct per kind under
/// `op/`). The field methods (`fields` to `set_num_raw`) come from the kind's `op_fields!`
/// list; the rest is the kind's roofline.
pub(crate) trait OpBehavior {
    /// Field specs, in form order.
    fn fields(&self) -> &'static [FieldSpec];
    /// A field as lossless text (`None` for an unknown key).
    fn get(&self, key: &str) -> Option<String>;
    /// Sets the field of `spec` from text, parsed and validated against `spec`.
    fn set_field(&mut self, spec: &FieldSpec, text: &str) -> Result<(), Error>;
    /// A numeric field's value (`None` for other keys and unset optional fields).
    fn get_num(&self, key: &str) -> Option<f64>;
    /// Sets a numeric field without validation (sweeps, critical-point solving). Returns
    /// `false` if the key is not numeric.
    fn set_num_raw(&mut self, key: &str, x: f64) -> bool;
    /// Hands `f` each field's [`OpBehavior::get_num`] in form order, one call per field of
    /// [`OpBehavior::fields`] (`None` for a non-numeric one), without looking a key up (what
    /// [`Op::validate`](super::Op::validate) walks, once per analysis).
    fn each_num(&self, f: &mut dyn FnMut(Option<f64>) -> Result<(), Error>) -> Result<(), Error>;
    /// Whether the kind takes a transformer architecture (its fields include the
    /// architecture's, [`ArchFields`](crate::arch::ArchFields)): `op_fields!` says so for the
    /// kinds whose list splices them in (`; arch(max);`).
    fn takes_arch(&self) -> bool {
        false
    }
    /// Sets every architecture field from `a` (a kind that takes an architecture; the others
    /// ignore it).
    fn apply_arch(&mut self, _a: &crate::arch::Arch) {}
    /// Whether FLOPs and every resource's bytes are affine in this numeric field (all else
    /// fixed), so sweeps may interpolate exactly from two evaluations. `false` by default: a
    /// kind opts in per field.
    fn is_affine(&self, _key: &str) -> bool {
        false
    }
    /// Extra validation beyond per-field ranges (none by default).
    fn validate_extra(&self) -> Result<(), Error> {
        Ok(())
    }
    /// Checks between fields that only an analysis needs (`llm`: `top_k ≤ experts`). Not part
    /// of [`Op::validate`](super::Op::validate), so a link decodes the same whatever order
    /// its fields come in, and an inconsistent op is kept and shown with its error.
    fn check_consistency(&self) -> Result<(), Error> {
        Ok(())
    }
    /// FLOPs (2 per MAC), peak, per-resource bytes. Errors only on missing chip values. A
    /// composite kind returns the sums of its parts (its analysis goes through
    /// [`OpBehavior::model`]).
    fn cost(&self, chip: &Chip) -> Result<Cost, Error>;
    /// The dimension whose critical value is solved (`b` or `d`), if FLOPs and bytes are
    /// affine in it and it makes sense.
    fn critical_dim(&self) -> Option<&'static str> {
        None
    }
    /// Approximate critical value of `dim` from the binding resource's simple formula.
    fn approx_critical(&self, _binding: Resource, _peak_eff: f64, _bw: f64) -> Option<f64> {
        None
    }
    /// Approximate intensity against `binding` with its formula (`≈ B`), scaled by the FLOP
    /// convention factor `conv`.
    fn approx_intensity(&self, _binding: Resource, _conv: f64) -> Option<(f64, String)> {
        None
    }
    /// Tile-level figures, if tiles are set.
    fn tiled(&self, _conv: f64) -> Option<Tiled> {
        None
    }
    /// A one-line description of the operation with its values.
    fn describe(&self) -> String;
    /// Symbolic and substituted FLOPs formula (2 per MAC): (`2·B·D·F`, `2·136·4096·4096`).
    fn flops_formula(&self) -> (String, String);
    /// Symbolic and substituted bytes formula for one resource.
    fn bytes_formula(&self, resource: Resource) -> Option<(String, String)>;
    /// Extra derivation lines (where it runs, sharding, constant intensity...).
    fn notes(&self, _chip_name: &str, _out: &mut Vec<String>) {}
    /// How the analysis evaluates the kind: one kernel by its cost (the default), a sum of
    /// parts, a collective's terms, a training step. The analysis layer above `op/` does the
    /// evaluating; the kind says which it is, once.
    fn model(&self) -> Evaluation<'_> {
        Evaluation::Kernel
    }
    /// What a measurement of this operation times (`None`: nothing the validation set
    /// measures, such as a custom op given by its totals).
    fn workload(&self) -> Option<MeasureKind> {
        None
    }
    /// What the generic code may ask of the kind, as plain data (nothing by default).
    fn traits(&self) -> Traits {
        Traits::default()
    }
    /// A short name for legends and rows (`llama3-8b decode`); `None` for the generic one
    /// ([`Op::short_name`](super::Op::short_name)).
    fn short_name(&self) -> Option<String> {
        None
    }
    /// The largest batch whose memory fits `capacity` bytes, where the kind knows it in closed
    /// form (`llm`: weights plus the KV cache at its context); `None` to search for it.
    fn batch_limit(&self, _capacity: f64) -> Option<f64> {
        None
    }
    /// Derivation lines that need the chip's ridge (FLOPs per HBM byte, 2 per MAC, derated):
    /// an MoE's critical batch (part 7). None by default.
    fn ridge_notes(&self, _ridge: f64) -> Vec<String> {
        Vec::new()
    }
}

/// What a kind tells the generic code about itself (ripgrep's flags: each flag says what it
/// is; nothing outside `op/` tests a kind's id). Plain data, all `false` by default.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Traits {
    /// A model step that makes tokens: tokens per second, the serving figures and the
    /// serving frontier, a measured step's parts (`llm`).
    pub serves: bool,
    /// Work the chip's vector unit runs when it has one (`dot`, `elementwise`): without a
    /// vector figure it runs at the dtype's peak, and the derivation says why.
    pub vector: bool,
    /// Its plot opens on log axes when the operation is added: its curves span decades
    /// (`train`).
    pub log_axes: bool,
    /// It has a training plot of its own (strategies against batch or chips, `train`).
    pub train_plot: bool,
    /// Its time on a sweep splits into `T_math` and a communication term worth a curve each
    /// (a sharded `matmul`).
    pub comm_curves: bool,
}

id_enum! {
    /// What a measurement of an operation times, as the validation set groups measurements
    /// (`crate::validation`): each kind says which it is, if any.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
    pub enum MeasureKind {
        /// A dense matrix multiplication (GEMM) kernel.
        Gemm = "gemm",
        /// A fused attention kernel.
        Attention = "attention",
        /// A memory-bandwidth kernel (STREAM-like, elementwise).
        Memory = "memory",
        /// An LLM decode step (serving throughput, time per output token).
        Decode = "decode",
        /// An LLM prefill (time to first token).
        Prefill = "prefill",
        /// A training step.
        Training = "training",
        /// A collective (all-reduce, all-gather, all-to-all).
        Collective = "collective",
    }
}

id_enum! {
    /// The kind of work a part does, set where the part is built: every grouping of parts (the
    /// sweep plot's % of peak curves, a profile's kernel categories) reads it, never the part's
    /// name.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
    pub enum PartKind {
        /// A matmul against weights (projections, MLP, experts, router, LM head).
        WeightMatmul = "weight_matmul",
        /// Attention over the KV cache (scores and values).
        Attention = "attention",
        /// Normalisation layers.
        Norm = "norm",
        /// Gathers and elementwise work (the embedding lookup).
        Elementwise = "elementwise",
        /// Collective communication between chips (all-reduces, AllToAll dispatch and combine).
        Communication = "communication",
    }
}

/// One part of a composite operation: a plain core operation (labelled with `name`) run
/// `repeat` times per step (`layers` for per-layer parts, 1 otherwise).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Part {
    /// What it is (`QKV projection`, `attention scores Q·Kᵀ`, `LM head`, ...).
    pub name: String,
    /// The kind of work it does.
    pub work: PartKind,
    /// The operation, per chip (never composite).
    pub op: Op,
    /// How many times it runs per step.
    pub repeat: f64,
}

/// The decomposition a composite kind returns (crate-private).
#[derive(Debug, Clone)]
pub(crate) struct Composite {
    /// Every part's FLOPs and bytes are affine in the critical dimension (false for an MoE,
    /// whose expert reads saturate with the batch: its critical point is bisected).
    pub affine: bool,
    pub parts: Vec<Part>,
    pub tokens: f64,
    /// The dtype whose peak the aggregate is reported against.
    pub dtype: DType,
    /// Weight bytes per chip.
    pub weights: f64,
    /// KV-cache bytes per chip.
    pub kv: f64,
    pub unit: &'static str,
}

impl Composite {
    /// The summed cost of the parts (`Σ repeat·FLOPs`, `Σ repeat·bytes` per resource) at the
    /// peak of the aggregate's dtype; memory = weights + KV cache.
    pub fn summed_cost(&self, chip: &Chip) -> Result<Cost, Error> {
        let mut sum = Cost::at_peak(0.0, self.dtype, chip)?;
        for p in &self.parts {
            let c = p.op.kind.behavior().cost(chip)?;
            sum.flops += p.repeat * c.flops;
            sum.bytes_read += p.repeat * c.bytes_read;
            sum.bytes_written += p.repeat * c.bytes_written;
            for t in c.terms() {
                sum.push(t.resource, p.repeat * t.bytes, t.bw);
            }
        }
        sum.memory = self.weights + self.kv;
        Ok(sum)
    }
}

/// Grouped-query attention's rule, shared by the kinds with heads: each KV head serves a whole
/// group of query heads, so `kv_heads` divides `heads` (the error names `kv_heads`).
pub(crate) fn check_kv_heads(heads: f64, kv_heads: f64) -> Result<(), Error> {
    if heads % kv_heads == 0.0 {
        return Ok(());
    }
    Err(Error::invalid(
        "kv_heads",
        n(kv_heads),
        format!(
            "must divide the {} query heads (each KV head serves a whole group of query heads)",
            n(heads)
        ),
    ))
}

/// Tensor parallelism's rule, shared by `llm` and `train` (issue 38, point 3: `train` took
/// tp 3 with 64 heads, which `llm` refused): each chip computes `heads/tp` whole query heads,
/// so `tp` divides `heads` (the error names `tp`). A training step of MLP blocks alone
/// (`mlp_only=yes`) has no attention and is not asked.
pub(crate) fn check_tp_heads(heads: f64, tp: f64) -> Result<(), Error> {
    if heads % tp == 0.0 {
        return Ok(());
    }
    Err(Error::invalid(
        "tp",
        n(tp),
        format!(
            "must divide the {} query heads (tensor parallelism gives each chip H/tp whole heads)",
            n(heads)
        ),
    ))
}

/// The vector unit if the chip has one, else the dtype's peak.
pub(crate) fn vector_or_peak(chip: &Chip, t: DType) -> Result<(ExecUnit, f64), Error> {
    match chip.vpu {
        Some(v) => Ok((ExecUnit::Vector, v)),
        None => Ok((ExecUnit::Peak(t.peak_key()), chip.peak(t)?)),
    }
}

/// `2·B` style: a coefficient glued to a variable (`B`, `2B`, `B/2`, `1.5·B`).
pub(crate) fn coef_str(c: f64, var: &str) -> String {
    if c == 1.0 {
        var.to_string()
    } else if c > 1.0 && c.fract() == 0.0 && c < 1e6 {
        format!("{}{var}", format_exact(c))
    } else if c > 0.0 && c < 1.0 && (1.0 / c).fract() == 0.0 && 1.0 / c < 1e6 {
        format!("{var}/{}", format_exact(1.0 / c))
    } else {
        format!("{}·{var}", format_sig(c, 3))
    }
}

/// A constant as a fraction when simple: `1/2`, `2`, `0.167`.
pub(crate) fn frac_str(v: f64) -> String {
    if v >= 1.0 && v.fract() == 0.0 {
        format_exact(v)
    } else if v > 0.0 && v < 1.0 && (1.0 / v).fract() == 0.0 && 1.0 / v < 1e6 {
        format!("1/{}", format_exact(1.0 / v))
    } else {
        format_sig(v, 3)
    }
}

/// A size as shown in formulas (`4096`, `0.5`).
pub(crate) fn n(x: f64) -> String {
    format_exact(x)
}
