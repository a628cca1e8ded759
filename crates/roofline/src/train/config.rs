//! The training run: the model, the batch, the mesh, the precision, the optimizer, the
//! checkpointing policy, the chip's numbers and its network ([`TrainConfig`]), with
//! validation that names the offending field.

use super::fabric::Fabric;
pub use super::mesh::{AxisCounts, Mesh};
use crate::arch::{arch_preset, Arch};
use crate::collective::{check, parse_err, MAX_CHIPS, MAX_RATE};
use crate::dtype::DType;
use crate::error::Error;
use crate::units::format_exact;
use serde::{Deserialize, Serialize};
use std::str::FromStr;

/// The largest global batch and token budget accepted, in tokens (1e18).
pub const MAX_TOKENS: f64 = 1e18;
/// The smallest assumed MFU (0.01 %): below it the book's days = FLOPs/(N·C·MFU) says nothing
/// useful, and at `1e-320` (a subnormal, accepted as "above 0") it overflowed to infinity.
pub const MIN_MFU: f64 = 1e-4;
/// The most microbatches per step.
pub const MAX_MICROBATCHES: f64 = 1e6;
/// The largest sequence length accepted (1e9 positions).
pub const MAX_SEQ: f64 = 1e9;
/// The largest price per chip-hour accepted (1e9).
pub const MAX_PRICE: f64 = 1e9;
/// The most `D`-sized checkpoints per layer and token a custom policy may save.
pub const MAX_SAVED: f64 = 1000.0;

id_enum! {
    /// The optimizer, by the state it keeps per parameter (ids `adam`, `momentum`, `sgd`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
    pub enum Optimizer {
        /// Adam / AdamW: two moments per parameter (training.md: "Adam stores parameters,
        /// first order and second order accumulators").
        #[default]
        Adam = "adam",
        /// SGD with momentum: one state per parameter.
        Momentum = "momentum",
        /// Plain SGD: no state.
        Sgd = "sgd",
    }
}

impl Optimizer {
    /// States kept per parameter: 2 (Adam), 1 (momentum), 0 (SGD).
    pub fn states(self) -> f64 {
        match self {
            Optimizer::Adam => 2.0,
            Optimizer::Momentum => 1.0,
            Optimizer::Sgd => 0.0,
        }
    }
}

impl FromStr for Optimizer {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Error> {
        let l = s.trim().to_ascii_lowercase();
        Ok(match l.as_str() {
            "adam" | "adamw" => Optimizer::Adam,
            "momentum" | "sgdm" => Optimizer::Momentum,
            "sgd" => Optimizer::Sgd,
            _ => return Err(parse_err(s, "expected an optimizer: adam, momentum or sgd")),
        })
    }
}

id_enum! {
    /// The pipeline schedule (ids `1f1b`, `gpipe`, `zb`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
    pub enum Schedule {
        /// One forward, one backward: a bubble of `(p − 1)/(m + p − 1)` of the step; the
        /// first stage holds `min(m, p)` microbatches of activations.
        #[default]
        OneFOneB = "1f1b",
        /// All forwards, then all backwards: the same bubble, every microbatch's activations
        /// held at once.
        Gpipe = "gpipe",
        /// A zero-bubble schedule (gpus.md, "Pipeline Parallelism": "with new zero-bubble
        /// pipelining approaches, it is typically possible to do without"; DeepSeek's
        /// DualPipe): no bubble, activations as 1F1B.
        ZeroBubble = "zb",
    }
}

impl Schedule {}

impl FromStr for Schedule {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Error> {
        let l = s.trim().to_ascii_lowercase();
        Ok(match l.as_str() {
            "1f1b" => Schedule::OneFOneB,
            "gpipe" => Schedule::Gpipe,
            "zb" | "zerobubble" | "zero-bubble" | "dualpipe" => Schedule::ZeroBubble,
            _ => {
                return Err(parse_err(
                    s,
                    "expected a pipeline schedule: 1f1b, gpipe or zb",
                ))
            }
        })
    }
}

/// Activation checkpointing (rematerialization): what the forward pass keeps for the backward
/// pass, and what the backward pass recomputes (transformers.md, "Gradient checkpointing").
///
/// Memory is counted in elements per token and layer; FLOPs recomputed per token.
///
/// | id | kept per token and layer | recomputed in the backward pass |
/// | --- | --- | --- |
/// | `none` | about `20·D` (the book's "roughly 20" intermediates) | nothing |
/// | `block` | `D` (the block input) | the whole forward pass of every block (`6N → 8N`) |
/// | `matmuls` | the outputs of the big matmuls: Q, K, V, O and the MLP's | the dot-product attention (question 6: `4BT²NH`) |
/// | `mlp` | the outputs of the MLP's matmuls: `D + 2F` gated (part 5, question 2) | the attention block |
/// | a number `k` | `k·D` (part 6: "checkpoint gradients 4 times per layer") | as `block`: the forward pass |
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Remat {
    /// Keep everything: no recompute, about 20 `D`-sized intermediates per layer.
    None,
    /// Keep only each block's input; recompute the forward pass ("Block remat").
    #[default]
    Block,
    /// Keep the outputs of the big matmuls ("Big matmuls only"); recompute dot-product
    /// attention.
    Matmuls,
    /// Keep the outputs of the MLP's matmuls ("checkpoint activations three times per layer
    /// (after the three big matmuls)"); recompute the attention block.
    Mlp,
    /// Keep `k` arrays of `D` per token and layer; recompute the forward pass.
    Saved(f64),
}

impl Remat {
    /// The named policies' ids, in form order (a number is also accepted).
    pub const IDS: [&'static str; 4] = ["none", "block", "matmuls", "mlp"];

    /// The id: `none`, `block`, `matmuls`, `mlp`, or the number `k`.
    pub fn id(self) -> String {
        match self {
            Remat::None => "none".into(),
            Remat::Block => "block".into(),
            Remat::Matmuls => "matmuls".into(),
            Remat::Mlp => "mlp".into(),
            Remat::Saved(k) => format_exact(k),
        }
    }

    /// A description with the book's section.
    pub fn describe(self) -> String {
        match self {
            Remat::None => "no checkpointing: every intermediate kept (about 20·D per token and layer, transformers.md \"Gradient checkpointing\")".into(),
            Remat::Block => "block remat: only each block's input kept (D per token and layer); the forward pass recomputed, 6N → 8N FLOPs per token (transformers.md \"Block remat\")".into(),
            Remat::Matmuls => "big matmuls only: the outputs of Q, K, V, O and the MLP matmuls kept; dot-product attention recomputed (transformers.md \"Big matmuls only\", question 6)".into(),
            Remat::Mlp => "the three MLP matmuls' outputs kept (D + 2F per token and layer, training.md question 2); the attention block recomputed".into(),
            Remat::Saved(k) => format!(
                "{} checkpoints of D per token and layer (applied-training.md: \"checkpoint gradients 4 times per layer\"); the forward pass recomputed",
                format_exact(k)
            ),
        }
    }
}

impl std::fmt::Display for Remat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.id())
    }
}

impl FromStr for Remat {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Error> {
        let l = s.trim().to_ascii_lowercase();
        Ok(match l.as_str() {
            "none" | "off" | "no" => Remat::None,
            "block" | "full" => Remat::Block,
            "matmuls" | "dots" => Remat::Matmuls,
            "mlp" | "ffw" => Remat::Mlp,
            _ => match l.parse::<f64>() {
                Ok(k) if k.is_finite() && k > 0.0 && k <= MAX_SAVED => Remat::Saved(k),
                _ => {
                    return Err(parse_err(
                        s,
                        "expected none, block, matmuls, mlp or a number of D-sized checkpoints per layer (0 to 1000)",
                    ))
                }
            },
        })
    }
}

/// Element types: bf16 compute with fp32 master weights and optimizer states by default
/// ("mixed precision").
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Precision {
    /// Working copy of the weights (what is multiplied and AllGathered).
    pub param: DType,
    /// Activations: checkpoints, tensor-parallel and pipeline traffic. The chip's peak in
    /// [`Hardware::peak`] is the caller's peak for this dtype.
    pub compute: DType,
    /// A separate master copy of the weights (fp32), or none (the book's "bf16 parameters
    /// and fp32 optimizer state": `2 + 8 = 10` bytes per parameter).
    pub master: Option<DType>,
    /// Gradients, as held and as reduced.
    pub grad: DType,
    /// Optimizer states.
    pub optimizer: DType,
}

impl Default for Precision {
    fn default() -> Self {
        Precision {
            param: DType::Bf16,
            compute: DType::Bf16,
            master: Some(DType::Fp32),
            grad: DType::Bf16,
            optimizer: DType::Fp32,
        }
    }
}

impl Precision {
    /// The book's accounting (training.md, "Data Parallelism"): bf16 parameters, fp32 Adam
    /// states, no separate master copy.
    pub fn book() -> Self {
        Precision {
            master: None,
            ..Precision::default()
        }
    }
}

/// The chip's numbers, as plain numbers (the caller reads them from its chip), and its
/// network.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Hardware {
    /// Peak FLOPs/s per chip in the compute dtype (`C`).
    pub peak: f64,
    /// HBM capacity per chip, bytes.
    pub hbm: f64,
    /// HBM bandwidth per chip, bytes/s.
    pub hbm_bw: f64,
    /// The network the mesh's collectives run over.
    pub fabric: Fabric,
}

impl Hardware {
    /// TPU v5p, with the scaling book's numbers (tpus.md, chip table: 4.59e14 bf16 FLOPs/s,
    /// 96 GB of HBM at 2.8e12 bytes/s) and its network preset (a 16x20x28 pod of 3D torus
    /// ICI at 9e10 bytes/s per link and direction, 6.25e9 bytes/s of DCN per chip).
    pub fn tpu_v5p() -> Self {
        Hardware {
            peak: 4.59e14,
            hbm: 96e9,
            hbm_bw: 2.8e12,
            fabric: Fabric::preset("tpu-v5p").unwrap_or_else(|_| Fabric::unknown()),
        }
    }
}

/// A training run: what is trained, on what batch, sharded how, on which chips.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrainConfig {
    /// The architecture.
    pub arch: Arch,
    /// Global batch `B` in tokens per step (the book's `B`: "number of tokens in the batch;
    /// total, not per-device").
    pub batch: f64,
    /// Sequence length `T` (attention FLOPs; sequences per step `B/T`).
    pub seq: f64,
    /// Causal attention (half the `T×T` dot products: the useful FLOPs); else the book's
    /// full `12BT²NH`.
    pub causal: bool,
    /// The book's simplified layer (training.md: "we'll approximate a Transformer as a stack
    /// of MLP blocks"): only the MLP (or MoE) blocks count, no attention, norms, embedding or
    /// LM head, and tensor parallelism gathers and scatters once per layer. For comparing
    /// with the book's rules; set `gated` off in the architecture to drop the gating matrix
    /// as the book does.
    pub mlp_only: bool,
    /// Parallelism degrees and microbatches.
    pub mesh: Mesh,
    /// Torus axes per strategy (`M_X`, `M_Y`, `M_Z`).
    pub axes: AxisCounts,
    /// Element types.
    pub precision: Precision,
    /// The optimizer.
    pub optimizer: Optimizer,
    /// Activation checkpointing.
    pub remat: Remat,
    /// The pipeline schedule (with `pp > 1`).
    pub schedule: Schedule,
    /// ZeRO-1: optimizer states and master weights also sharded over `dp` (communication
    /// unchanged: a ReduceScatter and an AllGather instead of an AllReduce).
    pub zero1: bool,
    /// Tokens to train on (the budget), for the time and cost to train.
    pub tokens: Option<f64>,
    /// An assumed MFU (0 to 1) for the book's estimate `days = FLOPs / (N·C·MFU)`, beside the
    /// roofline's own.
    pub mfu: Option<f64>,
    /// Price per chip-hour, for the cost.
    pub price: Option<f64>,
    /// The chips.
    pub hw: Hardware,
}

impl Default for TrainConfig {
    /// LLaMA-3 70B on a TPU v5p pod with the book's sharding (applied-training.md, "How to
    /// shard LLaMA 3-70B for training"): a batch of 4M tokens (1024 sequences of 4096),
    /// 1024-way FSDP × 2-way data (sequence) parallelism × 4-way tensor parallelism, block
    /// remat, Adam, 15T tokens.
    fn default() -> Self {
        TrainConfig {
            arch: arch_preset("llama3-70b")
                .map(|p| p.arch)
                .unwrap_or_default(),
            batch: 4.0 * 1024.0 * 1024.0,
            seq: 4096.0,
            causal: true,
            mlp_only: false,
            mesh: Mesh {
                dp: 2.0,
                fsdp: 1024.0,
                tp: 4.0,
                ..Mesh::default()
            },
            axes: AxisCounts::default(),
            precision: Precision::default(),
            optimizer: Optimizer::Adam,
            remat: Remat::Block,
            schedule: Schedule::OneFOneB,
            zero1: false,
            tokens: Some(15e12),
            mfu: None,
            price: None,
            hw: Hardware::tpu_v5p(),
        }
    }
}

fn whole(field: &str, x: f64, max: f64, what: &str) -> Result<f64, Error> {
    check(field, x, 1.0, max, true, what)
}

fn invalid(field: &str, value: f64, reason: String) -> Error {
    Error::invalid(field, format_exact(value), reason)
}

impl TrainConfig {
    /// Checks every field and the constraints between them; the error names the field:
    ///
    /// * the architecture ([`Arch::validate`]);
    /// * `batch` from 1 to 1e18 tokens, `seq` a whole number from 1 to 1e9;
    /// * the degrees whole from 1, their product at most 1e9 chips; `microbatches` whole,
    ///   at most 1e6; `ep > 1` only for a mixture of experts, dividing its experts; `pp`
    ///   at most the layers;
    /// * `mx`, `my`, `mz` whole from 0 (automatic) to 16; a custom checkpoint count above 0
    ///   and at most 1000;
    /// * `tokens` from 1 to 1e18, `mfu` from 1e-4 to 1, `price` from 0 to 1e9;
    /// * `peak`, `hbm`, `hbm_bw` from 1 to 1e30; the fabric (see [`Fabric::validate`]).
    pub fn validate(&self) -> Result<(), Error> {
        self.arch.validate()?;
        check(
            "batch",
            self.batch,
            1.0,
            MAX_TOKENS,
            false,
            "a number of tokens",
        )?;
        whole("seq", self.seq, MAX_SEQ, "a whole sequence length")?;
        let m = &self.mesh;
        for (f, x) in [
            ("dp", m.dp),
            ("fsdp", m.fsdp),
            ("tp", m.tp),
            ("pp", m.pp),
            ("ep", m.ep),
        ] {
            whole(f, x, MAX_CHIPS, "a whole number of chips")?;
        }
        whole(
            "microbatches",
            m.microbatches,
            MAX_MICROBATCHES,
            "a whole number of microbatches",
        )?;
        if m.chips() > MAX_CHIPS {
            return Err(invalid(
                "dp",
                m.dp,
                format!(
                    "the mesh dp·fsdp·tp·pp·ep = {} exceeds 1e9 chips",
                    format_exact(m.chips())
                ),
            ));
        }
        if m.pp > self.arch.layers {
            return Err(invalid(
                "pp",
                m.pp,
                format!(
                    "more pipeline stages than the {} layers",
                    format_exact(self.arch.layers)
                ),
            ));
        }
        match &self.arch.moe {
            None if m.ep > 1.0 => {
                return Err(invalid(
                    "ep",
                    m.ep,
                    "expert parallelism needs a mixture of experts (this model is dense)".into(),
                ))
            }
            Some(moe) if moe.experts % m.ep != 0.0 => {
                return Err(invalid(
                    "ep",
                    m.ep,
                    format!("must divide the {} experts", format_exact(moe.experts)),
                ))
            }
            _ => {}
        }
        for (f, x) in [
            ("mx", self.axes.mx),
            ("my", self.axes.my),
            ("mz", self.axes.mz),
        ] {
            check(
                f,
                x,
                0.0,
                16.0,
                true,
                "a whole number of torus axes (0: automatic)",
            )?;
        }
        if let Remat::Saved(k) = self.remat {
            if !(k.is_finite() && k > 0.0 && k <= MAX_SAVED) {
                return Err(invalid(
                    "remat",
                    k,
                    "a number of checkpoints per layer must be above 0 and at most 1000".into(),
                ));
            }
        }
        if let Some(t) = self.tokens {
            check("tokens", t, 1.0, MAX_TOKENS, false, "a number of tokens")?;
        }
        if let Some(u) = self.mfu {
            if !(u.is_finite() && (MIN_MFU..=1.0).contains(&u)) {
                return Err(invalid(
                    "mfu",
                    u,
                    "must be from 0.0001 (0.01 %) to 1".into(),
                ));
            }
        }
        if let Some(p) = self.price {
            check("price", p, 0.0, MAX_PRICE, false, "a price per chip-hour")?;
        }
        check("peak", self.hw.peak, 1.0, MAX_RATE, false, "a FLOP rate")?;
        check("hbm", self.hw.hbm, 1.0, 1e30, false, "a size in bytes")?;
        check(
            "hbm_bw",
            self.hw.hbm_bw,
            1.0,
            MAX_RATE,
            false,
            "a bandwidth in bytes/s",
        )?;
        self.hw.fabric.validate()
    }

    /// Sequences per step `B/T`.
    pub fn sequences(&self) -> f64 {
        self.batch / self.seq
    }
}
