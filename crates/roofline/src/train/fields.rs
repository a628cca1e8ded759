//! Text access to a [`TrainConfig`] for forms and URLs: [`train_fields`] lists the keys in
//! form order, [`TrainConfig::get`] writes a field as text that [`TrainConfig::set`] reads
//! back to the same config, and `set` refuses bad text with an error naming the field
//! (`tp=0: must be a whole number of chips from 1 to 1e9`), leaving the config unchanged.
//! Constraints between fields (`ep` dividing the experts, ...) are checked by
//! [`TrainConfig::validate`], so a URL's fields may arrive in any order.

use super::config::{
    Optimizer, Remat, Schedule, TrainConfig, MAX_MICROBATCHES, MAX_PRICE, MAX_SEQ, MAX_TOKENS,
    MIN_MFU,
};
use super::fabric::Fabric;
use crate::arch::{arch_preset, arch_presets, MAX_DIM};
use crate::collective::{check, MAX_CHIPS, MAX_RATE};
use crate::dtype::DType;
use crate::error::Error;
use crate::units::{format_exact, parse_quantity};
use serde::Serialize;

/// What a field holds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub enum TrainFieldKind {
    /// A number (SI suffixes read: `4M`, `459T`), from `min` to `max`, whole when `integer`;
    /// `optional` fields also take `none` (or empty text) for no value.
    Number {
        /// Smallest value.
        min: f64,
        /// Largest value.
        max: f64,
        /// Whole numbers only.
        integer: bool,
        /// `none` allowed.
        optional: bool,
    },
    /// One of the ids.
    Choice(&'static [&'static str]),
    /// One of the ids, or a number from `min` to `max` (checkpointing: `block` or `4`).
    ChoiceOrNumber {
        /// The named choices.
        ids: &'static [&'static str],
        /// Smallest number (exclusive).
        min: f64,
        /// Largest number.
        max: f64,
    },
    /// A dtype id (`bf16`, `fp32`, ...); `optional`: also `none`.
    DType {
        /// `none` allowed.
        optional: bool,
    },
    /// `yes` or `no`.
    Flag,
    /// An architecture preset id ([`arch_presets`]), or `custom` (read only).
    ArchPreset,
    /// A chip preset id with a network ([`network_presets`](crate::collective::network_presets())).
    Network,
}

/// One field of a training config.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct TrainField {
    /// The key (`batch`, `fsdp`, `remat`, ...).
    pub key: &'static str,
    /// A short label.
    pub label: &'static str,
    /// What it holds.
    pub kind: TrainFieldKind,
    /// Help text.
    pub help: &'static str,
}

/// A field of `kind`.
const fn field(
    key: &'static str,
    label: &'static str,
    kind: TrainFieldKind,
    help: &'static str,
) -> TrainField {
    TrainField {
        key,
        label,
        kind,
        help,
    }
}

const fn num(
    key: &'static str,
    label: &'static str,
    min: f64,
    max: f64,
    integer: bool,
    help: &'static str,
) -> TrainField {
    field(
        key,
        label,
        TrainFieldKind::Number {
            min,
            max,
            integer,
            optional: false,
        },
        help,
    )
}

const fn opt(
    key: &'static str,
    label: &'static str,
    min: f64,
    max: f64,
    help: &'static str,
) -> TrainField {
    field(
        key,
        label,
        TrainFieldKind::Number {
            min,
            max,
            integer: false,
            optional: true,
        },
        help,
    )
}

const fn choice(
    key: &'static str,
    label: &'static str,
    ids: &'static [&'static str],
    help: &'static str,
) -> TrainField {
    field(key, label, TrainFieldKind::Choice(ids), help)
}

const fn dtype(
    key: &'static str,
    label: &'static str,
    optional: bool,
    help: &'static str,
) -> TrainField {
    field(key, label, TrainFieldKind::DType { optional }, help)
}

const fn flag(key: &'static str, label: &'static str, help: &'static str) -> TrainField {
    field(key, label, TrainFieldKind::Flag, help)
}

const DEGREE: f64 = MAX_CHIPS;

static FIELDS: [TrainField; 43] = [
    TrainField {
        key: "preset",
        label: "model",
        kind: TrainFieldKind::ArchPreset,
        help: "architecture preset (fills the architecture fields); editing one of them makes it custom",
    },
    num("layers", "layers", 1.0, MAX_DIM, true, "transformer layers L"),
    num("dmodel", "d_model", 1.0, MAX_DIM, true, "model width D"),
    num("ffn", "ffn", 1.0, MAX_DIM, true, "dense MLP width F"),
    num("heads", "heads", 1.0, MAX_DIM, true, "query heads H"),
    num("kv_heads", "KV heads", 1.0, MAX_DIM, true, "key/value heads K"),
    num("head_dim", "head dim", 1.0, MAX_DIM, true, "head dimension h"),
    num("vocab", "vocabulary", 1.0, MAX_DIM, true, "vocabulary V"),
    flag("gated", "gated MLP", "gate, up and down matrices (3·D·F, SwiGLU) or up and down (2·D·F); the book's rules drop the gate"),
    num("experts", "experts", 1.0, MAX_DIM, true, "routed experts E (mixtures of experts only)"),
    num("top_k", "experts per token", 1.0, MAX_DIM, true, "routed experts per token k (mixtures of experts only)"),
    num("expert_ffn", "expert width", 1.0, MAX_DIM, true, "each routed expert's MLP width F_e (mixtures of experts only)"),
    num("batch", "batch (tokens)", 1.0, MAX_TOKENS, false, "global batch B in tokens per step (the book's B: total, not per chip)"),
    num("seq", "sequence", 1.0, MAX_SEQ, true, "sequence length T: attention FLOPs, sequences per step B/T"),
    num("dp", "data parallel", 1.0, DEGREE, true, "data parallelism: weights replicated, gradients AllReduced once per step"),
    num("fsdp", "FSDP", 1.0, DEGREE, true, "FSDP (ZeRO-3): weights, gradients and optimizer sharded; weights AllGathered forward and backward, gradients ReduceScattered"),
    num("tp", "tensor parallel", 1.0, DEGREE, true, "tensor parallelism: matrices sharded along F and heads, activations AllGathered and ReduceScattered around each block"),
    num("pp", "pipeline stages", 1.0, DEGREE, true, "pipeline stages: layers sharded; a bubble of (p − 1)/(m + p − 1)"),
    num("mb", "microbatches", 1.0, MAX_MICROBATCHES, true, "microbatches per step m (pipelining or gradient accumulation)"),
    num("ep", "expert parallel", 1.0, DEGREE, true, "expert parallelism: experts sharded, tokens sent by AllToAll (mixtures of experts only)"),
    TrainField {
        key: "remat",
        label: "checkpointing",
        kind: TrainFieldKind::ChoiceOrNumber {
            ids: &Remat::IDS,
            min: 0.0,
            max: super::config::MAX_SAVED,
        },
        help: "activation checkpointing: none (keep ~20·D per layer), block (keep the block input, recompute the forward: 6N → 8N), matmuls (keep the big matmuls' outputs), mlp (keep the MLP's: D + 2F), or a number k of D-sized checkpoints per layer",
    },
    choice("opt", "optimizer", Optimizer::IDS, "adam: two states per parameter; momentum: one; sgd: none"),
    choice("sched", "pipeline schedule", Schedule::IDS, "1f1b or gpipe: bubble (p − 1)/(m + p − 1); zb: zero bubble"),
    flag("zero1", "ZeRO-1", "also shard the optimizer states and master weights over dp"),
    flag("causal", "causal attention", "causal masking: half the T×T attention products"),
    flag("mlp_only", "MLP blocks only", "the book's simplified layer: only the MLP blocks count (no attention, embedding or norms), as in its rules"),
    dtype("param", "weights", false, "working weights: held, multiplied and AllGathered"),
    dtype("act", "compute", false, "activations: checkpoints and tensor-parallel and pipeline traffic (the peak is the chip's for this dtype)"),
    dtype("grad", "gradients", false, "gradients: held and reduced"),
    dtype("master", "master weights", true, "a master copy of the weights (fp32), or none"),
    dtype("opt_dtype", "optimizer states", false, "optimizer states"),
    num("mx", "M_X", 0.0, 16.0, true, "torus axes FSDP and in-pod data parallelism span (0: automatic)"),
    num("my", "M_Y", 0.0, 16.0, true, "torus axes tensor parallelism spans (0: automatic, 1)"),
    num("mz", "M_Z", 0.0, 16.0, true, "torus axes expert parallelism spans (0: automatic, 1)"),
    opt("tokens", "token budget", 1.0, MAX_TOKENS, "tokens to train on, for the days and cost; none for no budget"),
    opt("mfu", "assumed MFU", MIN_MFU, 1.0, "an MFU (0.0001 to 1) for the book's estimate FLOPs/(N·C·MFU); none for the roofline's own only"),
    opt("price", "price per chip-hour", 0.0, MAX_PRICE, "price per chip-hour, for the cost; none for no cost"),
    num("peak", "peak", 1.0, MAX_RATE, false, "the chip's peak FLOPs/s in the compute dtype (C)"),
    num("hbm", "HBM", 1.0, 1e30, false, "HBM capacity per chip, bytes"),
    num("hbm_bw", "HBM bandwidth", 1.0, MAX_RATE, false, "HBM bandwidth per chip, bytes/s"),
    TrainField {
        key: "net",
        label: "network",
        kind: TrainFieldKind::Network,
        help: "the chip preset whose network the mesh runs over (TPU torus and DCN, GPU nodes and fat tree)",
    },
    flag("sharp", "SHARP", "GPU in-network reductions (switched fabrics only)"),
    opt("dcn", "DCN per chip", 1.0, MAX_RATE, "TPU data-center network egress per chip, bytes/s (torus fabrics only)"),
];

/// Every field, in form order.
pub fn train_fields() -> &'static [TrainField] {
    &FIELDS
}

fn field_err(key: &str, text: &str, reason: impl Into<String>) -> Error {
    Error::invalid(key, text.trim(), reason)
}

fn yes_no(key: &str, text: &str) -> Result<bool, Error> {
    match text.trim().to_ascii_lowercase().as_str() {
        "yes" | "true" | "on" | "1" => Ok(true),
        "no" | "false" | "off" | "0" => Ok(false),
        _ => Err(field_err(key, text, "must be yes or no")),
    }
}

fn is_none(text: &str) -> bool {
    let t = text.trim();
    t.is_empty() || t.eq_ignore_ascii_case("none") || t.eq_ignore_ascii_case("off")
}

fn number(key: &str, text: &str, min: f64, max: f64, integer: bool) -> Result<f64, Error> {
    let x = parse_quantity(text).map_err(|e| match e {
        Error::Parse { reason, .. } => field_err(key, text, reason),
        other => other,
    })?;
    let what = if integer {
        "a whole number"
    } else {
        "a number"
    };
    let x = check(key, x, min, max, integer, what)?;
    // No minus sign on a zero.
    Ok(if x == 0.0 { 0.0 } else { x })
}

fn yn(b: bool) -> String {
    if b { "yes" } else { "no" }.into()
}

impl TrainConfig {
    /// The field `key` as text ([`train_fields`] lists the keys); `None` for an unknown key,
    /// an MoE field of a dense model, or a network field the fabric does not have (`sharp`
    /// off a switched fabric, `dcn` off a torus).
    ///
    /// ```
    /// use roofline::train::TrainConfig;
    /// let c = TrainConfig::default();
    /// assert_eq!(c.get("preset").as_deref(), Some("llama3-70b"));
    /// assert_eq!(c.get("fsdp").as_deref(), Some("1024"));
    /// assert_eq!(c.get("remat").as_deref(), Some("block"));
    /// assert_eq!(c.get("master").as_deref(), Some("fp32"));
    /// ```
    pub fn get(&self, key: &str) -> Option<String> {
        let a = &self.arch;
        let n = |x: f64| Some(format_exact(x));
        let o = |x: Option<f64>| Some(x.map_or("none".into(), format_exact));
        match key {
            "preset" => Some(
                arch_presets()
                    .iter()
                    .find(|p| p.arch == *a)
                    .map_or("custom", |p| p.id)
                    .into(),
            ),
            "layers" => n(a.layers),
            "dmodel" => n(a.dmodel),
            "ffn" => n(a.ffn),
            "heads" => n(a.heads),
            "kv_heads" => n(a.kv_heads),
            "head_dim" => n(a.head_dim),
            "vocab" => n(a.vocab),
            "gated" => Some(yn(a.gated)),
            "experts" => a.moe.and_then(|m| n(m.experts)),
            "top_k" => a.moe.and_then(|m| n(m.top_k)),
            "expert_ffn" => a.moe.and_then(|m| n(m.expert_ffn)),
            "batch" => n(self.batch),
            "seq" => n(self.seq),
            "dp" => n(self.mesh.dp),
            "fsdp" => n(self.mesh.fsdp),
            "tp" => n(self.mesh.tp),
            "pp" => n(self.mesh.pp),
            "mb" => n(self.mesh.microbatches),
            "ep" => n(self.mesh.ep),
            "remat" => Some(self.remat.id()),
            "opt" => Some(self.optimizer.as_str().into()),
            "sched" => Some(self.schedule.as_str().into()),
            "zero1" => Some(yn(self.zero1)),
            "causal" => Some(yn(self.causal)),
            "mlp_only" => Some(yn(self.mlp_only)),
            "param" => Some(self.precision.param.as_str().into()),
            "act" => Some(self.precision.compute.as_str().into()),
            "grad" => Some(self.precision.grad.as_str().into()),
            "master" => Some(self.precision.master.map_or("none", |d| d.as_str()).into()),
            "opt_dtype" => Some(self.precision.optimizer.as_str().into()),
            "mx" => n(self.axes.mx),
            "my" => n(self.axes.my),
            "mz" => n(self.axes.mz),
            "tokens" => o(self.tokens),
            "mfu" => o(self.mfu),
            "price" => o(self.price),
            "peak" => n(self.hw.peak),
            "hbm" => n(self.hw.hbm),
            "hbm_bw" => n(self.hw.hbm_bw),
            "net" => Some(self.hw.fabric.name().into()),
            "sharp" => match &self.hw.fabric {
                Fabric::Switched(s) => Some(yn(s.sharp)),
                _ => None,
            },
            "dcn" => match &self.hw.fabric {
                Fabric::Torus(t) => o(t.dcn),
                _ => None,
            },
            _ => None,
        }
    }

    /// Sets the field `key` from text. Numbers take SI suffixes (`4M` tokens, `459T`
    /// FLOPs/s); `none` (or empty text) clears an optional field. A refused edit leaves the
    /// config unchanged and its error names the field.
    ///
    /// ```
    /// use roofline::train::{Remat, TrainConfig};
    /// let mut c = TrainConfig::default();
    /// c.set("remat", "4").unwrap();
    /// assert_eq!(c.remat, Remat::Saved(4.0));
    /// c.set("batch", "2M").unwrap();
    /// assert_eq!(c.batch, 2e6);
    /// let e = c.set("tp", "0").unwrap_err().to_string();
    /// assert!(e.starts_with("tp=0"), "{e}");
    /// assert!(c.set("opt", "rmsprop").is_err());
    /// ```
    pub fn set(&mut self, key: &str, text: &str) -> Result<(), Error> {
        let spec = FIELDS
            .iter()
            .find(|f| f.key == key)
            .ok_or_else(|| Error::UnknownField {
                field: crate::error::clip_text(key, 40),
                kind: "train".into(),
                expected: FIELDS.iter().map(|f| f.key).collect::<Vec<_>>().join(", "),
            })?;
        let mut c = self.clone();
        match spec.kind {
            TrainFieldKind::Number {
                min,
                max,
                integer,
                optional,
            } => {
                let x = if optional && is_none(text) {
                    None
                } else {
                    Some(number(key, text, min, max, integer)?)
                };
                c.set_number(key, x, text)?;
            }
            TrainFieldKind::Choice(_) => match key {
                "opt" => {
                    c.optimizer = text
                        .parse()
                        .map_err(|_| field_err(key, text, "must be adam, momentum or sgd"))?
                }
                _ => {
                    c.schedule = text
                        .parse()
                        .map_err(|_| field_err(key, text, "must be 1f1b, gpipe or zb"))?
                }
            },
            TrainFieldKind::ChoiceOrNumber { .. } => {
                c.remat = text.parse().map_err(|_| {
                    field_err(
                        key,
                        text,
                        "must be none, block, matmuls, mlp or a number of checkpoints per layer above 0 and at most 1000",
                    )
                })?;
            }
            TrainFieldKind::DType { optional } => {
                let d = if optional && is_none(text) {
                    None
                } else {
                    Some(
                        text.parse::<DType>()
                            .map_err(|_| field_err(key, text, "must be a dtype: fp32, tf32, bf16, fp16, fp8, fp8e5m2, int8, int4 or fp4"))?,
                    )
                };
                let p = &mut c.precision;
                match (key, d) {
                    ("master", d) => p.master = d,
                    (_, None) => return Err(field_err(key, text, "must be a dtype")),
                    ("param", Some(d)) => p.param = d,
                    ("act", Some(d)) => p.compute = d,
                    ("grad", Some(d)) => p.grad = d,
                    (_, Some(d)) => p.optimizer = d,
                }
            }
            TrainFieldKind::Flag => {
                let v = yes_no(key, text)?;
                match key {
                    "zero1" => c.zero1 = v,
                    "causal" => c.causal = v,
                    "mlp_only" => c.mlp_only = v,
                    "gated" => c.arch.gated = v,
                    _ => match &mut c.hw.fabric {
                        Fabric::Switched(s) => s.sharp = v,
                        _ => {
                            return Err(field_err(
                                key,
                                text,
                                "SHARP applies to switched (GPU) networks only",
                            ))
                        }
                    },
                }
            }
            TrainFieldKind::ArchPreset => {
                let t = text.trim();
                if !t.eq_ignore_ascii_case("custom") {
                    let p = arch_preset(&t.to_ascii_lowercase()).ok_or_else(|| {
                        field_err(key, text, "not an architecture preset (see arch_presets)")
                    })?;
                    c.arch = p.arch;
                }
            }
            TrainFieldKind::Network => {
                let t = text.trim().to_ascii_lowercase();
                c.hw.fabric = Fabric::preset(&t).map_err(|e| match e {
                    Error::InvalidField { .. } => {
                        field_err(key, text, "not a chip with a network preset")
                    }
                    Error::MissingResource { what, .. } => {
                        field_err(key, text, format!("this chip has no {what}"))
                    }
                    other => other,
                })?;
            }
        }
        *self = c;
        Ok(())
    }

    fn set_number(&mut self, key: &str, x: Option<f64>, text: &str) -> Result<(), Error> {
        let a = &mut self.arch;
        let v = x.unwrap_or(0.0);
        match key {
            "layers" => a.layers = v,
            "dmodel" => a.dmodel = v,
            "ffn" => a.ffn = v,
            "heads" => a.heads = v,
            "kv_heads" => a.kv_heads = v,
            "head_dim" => a.head_dim = v,
            "vocab" => a.vocab = v,
            "experts" | "top_k" | "expert_ffn" => {
                let m = a.moe.as_mut().ok_or_else(|| {
                    field_err(
                        key,
                        text,
                        "the model is dense: pick a mixture-of-experts preset first",
                    )
                })?;
                match key {
                    "experts" => m.experts = v,
                    "top_k" => m.top_k = v,
                    _ => m.expert_ffn = v,
                }
            }
            "batch" => self.batch = v,
            "seq" => self.seq = v,
            "dp" => self.mesh.dp = v,
            "fsdp" => self.mesh.fsdp = v,
            "tp" => self.mesh.tp = v,
            "pp" => self.mesh.pp = v,
            "mb" => self.mesh.microbatches = v,
            "ep" => self.mesh.ep = v,
            "mx" => self.axes.mx = v,
            "my" => self.axes.my = v,
            "mz" => self.axes.mz = v,
            "tokens" => self.tokens = x,
            "price" => self.price = x,
            "mfu" => {
                if x.is_some_and(|u| u < MIN_MFU) {
                    return Err(field_err(
                        key,
                        text,
                        "must be from 0.0001 (0.01 %) to 1, or none",
                    ));
                }
                self.mfu = x
            }
            "peak" => self.hw.peak = v,
            "hbm" => self.hw.hbm = v,
            "hbm_bw" => self.hw.hbm_bw = v,
            "dcn" => match &mut self.hw.fabric {
                Fabric::Torus(t) => t.dcn = x,
                _ => {
                    return Err(field_err(
                        key,
                        text,
                        "the data-center network applies to torus (TPU) networks only",
                    ))
                }
            },
            _ => {}
        }
        Ok(())
    }
}
