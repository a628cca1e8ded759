//! The `train` kind: one training step of a transformer on a mesh of chips (parts 5, 6 and 12
//! of the book), analysed by [`crate::train`] on the scenario's chip.
//!
//! The op holds a [`TrainConfig`]; its fields are declared once, in the `op_fields!` list below,
//! and read and written as text by `op/train_text.rs`
//! (`op=train:preset=llama3-70b,batch=4M,dp=2,fsdp=1024,tp=4,remat=block`); the
//! hardware fields of the config (peak, HBM, network) are not op fields: they come from the
//! chip ([`Train::config_on`]). The analysis (see `analysis/train.rs`) reports the step's
//! bounds, MFU, tokens/s, the days and cost of the token budget, memory per chip and the
//! critical batch per chip.

use super::behavior::{check_tp_heads, n, MeasureKind, OpBehavior, Traits};
use super::llm::PRESET_IDS;
use super::Evaluation;
use crate::arch::{arch_presets, Arch, ArchFields};
use crate::chip::{Chip, Interconnect};
use crate::collective::{WrapRule, MAX_CHIPS};
use crate::error::Error;
use crate::eval::Cost;
use crate::field::{
    choice, dtype, integer, number, opt_dtype, opt_number, parse_choice, text, FieldAccess,
    FieldSpec, CHIPS,
};
use crate::resource::Resource;
use crate::train::{
    analyze_train, Fabric, Hardware, Optimizer, Schedule, SwitchedFabric, TorusFabric, TrainConfig,
    MAX_MICROBATCHES, MAX_SEQ, MAX_TOKENS, MIN_MFU,
};
use crate::units::{format_quantity, Unit};
use serde::{Deserialize, Serialize};

/// A training step: the architecture, the global batch, the mesh, precision, optimizer,
/// checkpointing and the budget, as a [`TrainConfig`] (its `hw` is replaced by the chip's
/// numbers when analysed).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, from = "Serialized")]
pub struct Train {
    /// The run; `config.hw` is not used (the chip supplies it), `config.arch` is the one
    /// the architecture's fields describe. Boxed: a config is large, and an
    /// [`OpKind`](super::OpKind) is as large as its largest kind.
    pub config: Box<TrainConfig>,
    /// The architecture's fields, as the link holds them (`experts=0`: dense, `expert_ffn=0`:
    /// the ffn width); every edit sets `config.arch` to [`ArchFields::arch`] of them.
    shape: ArchFields,
}

/// A train op as serialised: its config and, since issue 22, the architecture's fields (JSON
/// without them reads its architecture from the config, [`Train::from_config`]).
#[derive(Deserialize)]
#[serde(default)]
struct Serialized {
    config: Box<TrainConfig>,
    shape: Option<ArchFields>,
}

impl Default for Serialized {
    fn default() -> Self {
        Serialized {
            config: Train::default().config,
            shape: None,
        }
    }
}

impl From<Serialized> for Train {
    fn from(s: Serialized) -> Train {
        let mut t = Train::from_config(*s.config);
        if let Some(shape) = s.shape {
            t.set_shape(shape);
        }
        t
    }
}

impl Default for Train {
    /// [`TrainConfig::default`] (LLaMA-3 70B, 4M tokens per step, block remat, Adam, 15T
    /// tokens) on 8192 chips as dp 32 × fsdp 64 × tp 4, so that FSDP and tensor parallelism
    /// stay within one ICI domain of 256 chips (a TPU v5e or v6e pod, the page's first chip);
    /// the book's own sharding of a v5p pod is `dp=2,fsdp=1024` (or `dp=1,fsdp=2240`).
    fn default() -> Self {
        let mut config = TrainConfig::default();
        config.mesh.dp = 32.0;
        config.mesh.fsdp = 64.0;
        config.mesh.tp = 4.0;
        Train::from_config(config)
    }
}

const YES_NO: &[&str] = &["yes", "no"];
/// The architecture's shape fields: editing one of a preset makes a custom model, dense
/// unless a mixture-of-experts field is given too ([`Train::set_arch_field`]).
const SHAPE_KEYS: &[&str] = &[
    "layers", "dmodel", "ffn", "heads", "kv_heads", "head_dim", "vocab", "gated",
];
const OPT_IDS: &[&str] = Optimizer::IDS;
const SCHED_IDS: &[&str] = Schedule::IDS;
const DEGREE: (f64, f64) = (1.0, MAX_CHIPS);

/// A dtype field that also takes `none`, set by default.
const fn master_dtype(
    key: &'static str,
    label: &'static str,
    default: &'static str,
    help: &'static str,
) -> FieldSpec {
    FieldSpec {
        default,
        ..opt_dtype(key, label, "none", "a dtype or none", help)
    }
}

/// The network a chip's fields describe: its preset's fabric where the chip is a preset with a
/// network (pod size and wraparound rule from it), with the chip's own numbers (ICI per link,
/// torus dimensions, DCN, node and leaf sizes, latencies) over it; a chip from scratch gets
/// a torus (point-to-point links with `torus` dimensions) of one ICI domain, or switched
/// nodes (`node` GPUs at `ici × links`); a chip without a scale-up network gets none (every
/// degree must then be 1).
pub fn fabric_of(chip: &Chip) -> Result<Fabric, Error> {
    let base = chip
        .preset_id
        .as_deref()
        .and_then(|id| Fabric::preset(id).ok());
    let name = chip.preset_id.clone().unwrap_or_else(|| "custom".into());
    let missing = |what: &str, field: &str| Error::MissingResource {
        what: what.into(),
        field: field.into(),
        chip: chip.name.clone(),
    };
    let Some(ici) = chip.ici else {
        return Ok(Fabric::unknown());
    };
    Ok(match chip.interconnect {
        Interconnect::PointToPoint => {
            let (wrap, pod) = match base {
                Some(Fabric::Torus(t)) => (t.wrap, t.pod),
                _ => {
                    let wrap = match chip.wrap {
                        None => WrapRule::None,
                        Some(_) if chip.torus.unwrap_or(0.0) >= 3.0 => WrapRule::FullCube,
                        Some(_) => WrapRule::AxisOf16,
                    };
                    (wrap, MAX_CHIPS)
                }
            };
            Fabric::Torus(TorusFabric {
                name,
                link: ici,
                dims: chip.torus.unwrap_or(2.0).clamp(1.0, 16.0),
                wrap,
                pod,
                latency: chip.hop_lat.unwrap_or(0.0),
                dcn: chip.dcn,
                dcn_latency: chip.net_lat.unwrap_or(0.0),
            })
        }
        Interconnect::Switch => Fabric::Switched(SwitchedFabric {
            name,
            node: chip.node.ok_or_else(|| missing("node size", "node"))?,
            egress: chip
                .egress()
                .ok_or_else(|| missing("NVLink link count", "links"))?,
            nic: chip.dcn,
            leaf: chip.leaf,
            latency: chip.hop_lat.unwrap_or(0.0),
            net_latency: chip.net_lat.unwrap_or(0.0),
            sharp: false,
        }),
    })
}

impl Train {
    /// The op of a config (its `hw` is kept but not used: the chip supplies it); its
    /// architecture is read as fields ([`ArchFields::of`]) and built back from them.
    pub fn from_config(mut config: TrainConfig) -> Train {
        let shape = ArchFields::of(&config.arch);
        config.arch = shape.arch();
        Train {
            config: Box::new(config),
            shape,
        }
    }

    /// Sets the architecture (a preset's, or an imported `config.json`'s): every
    /// architecture field from `a`, what it lacks (experts, MLA, a window) at the defaults.
    pub fn set_arch(&mut self, a: &Arch) {
        self.set_shape(ArchFields::of(a));
    }

    fn set_shape(&mut self, shape: ArchFields) {
        self.shape = shape;
        self.config.arch = shape.arch();
    }

    /// The config on `chip`: peak in the compute dtype (`act`), HBM capacity and bandwidth,
    /// the chip's network ([`fabric_of`]) and, when the op gives no price, the chip's.
    pub fn config_on(&self, chip: &Chip) -> Result<TrainConfig, Error> {
        let mut c = (*self.config).clone();
        c.hw = Hardware {
            peak: chip.peak(c.precision.compute)?,
            hbm: chip.hbm_cap,
            hbm_bw: chip.hbm,
            fabric: fabric_of(chip)?,
        };
        if c.price.is_none() {
            c.price = chip.price;
        }
        Ok(c)
    }

    /// The value of the `preset` field: the zoo preset whose architecture is the op's, or
    /// `custom`.
    pub fn preset_id(&self) -> &'static str {
        // The fields themselves, not only the architecture they make (see `Llm::preset`).
        arch_presets()
            .iter()
            .find(|p| ArchFields::of(&p.arch) == self.shape)
            .map_or("custom", |p| p.id)
    }

    /// Sets the `preset` field: a preset id fills the architecture, `custom` changes nothing.
    fn set_preset(&mut self, spec: &FieldSpec, text: &str) -> Result<(), Error> {
        if let Some(p) = arch_presets().get(parse_choice(spec, text)?) {
            self.set_arch(&p.arch);
        }
        Ok(())
    }

    /// The architecture's fields, spliced into the op's (`op_fields!`'s `arch`).
    fn arch_fields(&self) -> &ArchFields {
        &self.shape
    }

    /// Sets an architecture field. An edit of a shape field ([`SHAPE_KEYS`]) that takes the
    /// model off a preset makes a custom dense model: the shape over [`TrainConfig::default`]'s
    /// LLaMA-3 70B (no experts, latent attention, windows, biases or tied embeddings), so
    /// that a link says everything about it; mixture-of-experts (or other) fields given
    /// after it make it a mixture again. Links written before those fields existed (shape
    /// fields only) keep their meaning.
    fn set_arch_field(&mut self, spec: &FieldSpec, text: &str) -> Result<(), Error> {
        let mut shape = self.shape;
        shape.set_field(spec, text)?;
        self.edit_shape(spec.key, shape);
        Ok(())
    }

    fn set_arch_num(&mut self, key: &str, x: f64) -> bool {
        let mut shape = self.shape;
        let ok = shape.set_num_raw(key, x);
        self.edit_shape(key, shape);
        ok
    }

    fn edit_shape(&mut self, key: &str, shape: ArchFields) {
        let was_preset = self.preset_id() != "custom";
        self.set_shape(shape);
        if !(was_preset && SHAPE_KEYS.contains(&key) && self.preset_id() == "custom") {
            return;
        }
        let s = &self.shape;
        self.set_arch(&Arch {
            layers: s.layers,
            dmodel: s.dmodel,
            heads: s.heads,
            kv_heads: s.kv_heads,
            head_dim: s.head_dim,
            ffn: s.ffn,
            gated: s.gated,
            vocab: s.vocab,
            ..TrainConfig::default().arch
        });
    }

    pub(super) fn numeric(&self, key: &str) -> Option<&'static FieldSpec> {
        self.fields()
            .iter()
            .find(|f| f.key == key && f.is_numeric())
    }
}

impl OpBehavior for Train {
    op_fields! {
        "preset" => derived(preset_id, set_preset): choice(
            "model",
            PRESET_IDS,
            "llama3-70b",
            "architecture preset (fills the architecture's fields: the shape, a mixture's experts, latent attention, windows); editing a shape field (layers … vocab, gated) makes a custom model, dense unless a mixture-of-experts field is given",
            "a model preset",
        );
        arch(crate::arch::MAX_DIM);
        "batch" => cfg("batch"): number("batch (tokens)", "4194304", (1.0, MAX_TOKENS), "a number of tokens", "global batch B in tokens per step (the book's B: total, not per chip)"),
        "seq" => cfg("seq"): integer("sequence", "4096", (1.0, MAX_SEQ), "a whole sequence length", "sequence length T: attention FLOPs, sequences per step B/T"),
        "dp" => cfg("dp"): integer("data parallel", "32", DEGREE, "a whole number of chips", "data parallelism: weights replicated, gradients AllReduced once per step"),
        "fsdp" => cfg("fsdp"): integer("FSDP", "64", DEGREE, "a whole number of chips", "FSDP (ZeRO-3): weights, gradients and optimizer sharded; weights AllGathered forward and backward, gradients ReduceScattered"),
        "tp" => cfg("tp"): integer("tensor parallel", "4", DEGREE, "a whole number of chips", "tensor parallelism: matrices sharded along F and heads, activations AllGathered and ReduceScattered around each block").slider(CHIPS),
        "pp" => cfg("pp"): integer("pipeline stages", "1", DEGREE, "a whole number of chips", "pipeline stages: layers sharded; a bubble of (p − 1)/(m + p − 1)"),
        "mb" => cfg("mb"): integer("microbatches", "1", (1.0, MAX_MICROBATCHES), "a whole number of microbatches", "microbatches per step m (pipelining or gradient accumulation)"),
        "ep" => cfg("ep"): integer("expert parallel", "1", DEGREE, "a whole number of chips", "expert parallelism: experts sharded, tokens sent by AllToAll (mixtures of experts only)").slider(CHIPS),
        "remat" => cfg("remat"): text("checkpointing", "block", "none, block, matmuls, mlp or a number of checkpoints per layer", "activation checkpointing: none (keep ~20·D per layer), block (keep the block input, recompute the forward: 6N → 8N), matmuls (keep the big matmuls' outputs), mlp (keep the MLP's: D + 2F), or a number k of D-sized checkpoints per layer"),
        "opt" => cfg("opt"): choice("optimizer", OPT_IDS, "adam", "adam: two states per parameter; momentum: one; sgd: none", "an optimizer").folds(),
        "sched" => cfg("sched"): choice("pipeline schedule", SCHED_IDS, "1f1b", "1f1b or gpipe: bubble (p − 1)/(m + p − 1); zb: zero bubble", "a schedule").folds(),
        "zero1" => cfg("zero1"): choice("ZeRO-1", YES_NO, "no", "also shard the optimizer states and master weights over dp", "yes or no").folds(),
        "causal" => cfg("causal"): choice("causal attention", YES_NO, "yes", "causal masking: half the T×T attention products", "yes or no").folds(),
        "mlp_only" => cfg("mlp_only"): choice("MLP blocks only", YES_NO, "no", "the book's simplified layer: only the MLP blocks count (no attention, embedding or norms), as in its rules", "yes or no").folds(),
        "param" => cfg("param"): dtype("weights", "bf16", "working weights: held, multiplied and AllGathered").folds(),
        "act" => cfg("act"): dtype("compute", "bf16", "activations: checkpoints and tensor-parallel and pipeline traffic (the peak is the chip's for this dtype)").folds(),
        "grad" => cfg("grad"): dtype("gradients", "bf16", "gradients: held and reduced").folds(),
        "master" => cfg("master"): master_dtype("master weights", "fp32", "a master copy of the weights (fp32), or none").folds(),
        "opt_dtype" => cfg("opt_dtype"): dtype("optimizer states", "fp32", "optimizer states").folds(),
        "mx" => cfg("mx"): integer("M_X", "0", (0.0, 16.0), "a number of torus axes", "torus axes FSDP and in-pod data parallelism span (0: automatic)").folds(),
        "my" => cfg("my"): integer("M_Y", "0", (0.0, 16.0), "a number of torus axes", "torus axes tensor parallelism spans (0: automatic, 1)").folds(),
        "mz" => cfg("mz"): integer("M_Z", "0", (0.0, 16.0), "a number of torus axes", "torus axes expert parallelism spans (0: automatic, 1)").folds(),
        "tokens" => cfg("tokens"): opt_number("token budget", "1.5e13", (1.0, MAX_TOKENS), "a number of tokens", "tokens to train on, for the days and cost; none for no budget"),
        "mfu" => cfg("mfu"): opt_number("assumed MFU", "none", (MIN_MFU, 1.0), "an MFU", "an MFU (0.0001 to 1) for the book's estimate days = FLOPs/(N·C·MFU); none for the roofline's own only"),
        "price" => cfg("price"): text("price per chip-hour", "none", "a price per chip-hour from 0 to 1e9, or none", "USD per chip-hour for the cost; none: the chip's price, if any").folds(),
    }

    fn check_consistency(&self) -> Result<(), Error> {
        self.config.validate()?;
        let c = &self.config;
        if c.mlp_only {
            return Ok(());
        }
        check_tp_heads(c.arch.heads, c.mesh.tp)
    }

    /// The step's hardware FLOPs per chip at the chip's peak, and its HBM traffic; the
    /// analysis itself goes through [`OpBehavior::model`].
    fn traits(&self) -> Traits {
        Traits {
            log_axes: true,
            train_plot: true,
            ..Traits::default()
        }
    }
    fn workload(&self) -> Option<MeasureKind> {
        Some(MeasureKind::Training)
    }
    fn cost(&self, chip: &Chip) -> Result<Cost, Error> {
        let cfg = self.config_on(chip)?;
        let a = analyze_train(&cfg)?;
        let mut c = Cost::at_peak(a.flops_per_chip, cfg.precision.compute, chip)?;
        c.push(Resource::Hbm, a.t_hbm * cfg.hw.hbm_bw, cfg.hw.hbm_bw);
        c.memory = a.memory.total;
        Ok(c)
    }

    fn model(&self) -> Evaluation<'_> {
        Evaluation::Train(self)
    }

    fn describe(&self) -> String {
        let c = &self.config;
        format!(
            "train {} on {} tokens per step, {}",
            self.preset_id(),
            format_quantity(c.batch, Unit::Count),
            c.mesh.describe()
        )
    }

    fn flops_formula(&self) -> (String, String) {
        let c = &self.config;
        (
            "(B/N) · FLOPs per token (6·N_params plus attention, plus recompute)".into(),
            format!("{}/{} · FLOPs per token", n(c.batch), n(c.mesh.chips())),
        )
    }

    fn bytes_formula(&self, _r: Resource) -> Option<(String, String)> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chip::preset;

    /// An unedited chip preset gives its network preset's fabric exactly (the numbers the
    /// training tests check against the book).
    #[test]
    fn preset_chips_give_their_network_presets() {
        for id in [
            "tpu-v4p", "tpu-v5e", "tpu-v5p", "tpu-v6e", "h100", "h200", "b200", "a100",
        ] {
            let chip = preset(id).unwrap();
            let Ok(want) = Fabric::preset(id) else {
                continue;
            };
            assert_eq!(fabric_of(&chip).unwrap(), want, "{id}");
        }
    }

    #[test]
    fn the_chip_supplies_the_hardware() {
        let chip = preset("tpu-v5p").unwrap();
        let c = Train::default().config_on(&chip).unwrap();
        assert_eq!((c.hw.peak, c.hw.hbm, c.hw.hbm_bw), (4.59e14, 96e9, 2.8e12));
        assert_eq!(c.price, Some(4.2));
        let mut l4 = preset("l4").unwrap();
        l4.ici = None;
        assert_eq!(fabric_of(&l4).unwrap(), Fabric::unknown());
    }

    #[test]
    fn choices_take_only_their_ids() {
        let mut t = Train::default();
        let spec = t.fields().iter().find(|f| f.key == "zero1").unwrap();
        assert!(t.set_field(spec, "1").is_err());
        t.set_field(spec, "YES").unwrap();
        assert!(t.config.zero1);
    }

    #[test]
    fn degrees_are_checked() {
        let mut t = Train::default();
        let spec = t.fields().iter().find(|f| f.key == "tp").unwrap();
        let e = t.set_field(spec, "0").unwrap_err().to_string();
        assert!(e.starts_with("tp=0"), "{e}");
    }
}
