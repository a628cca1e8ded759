//! Operations: the kind table, and generic field access for forms, URLs and sweeps.
//!
//! An [`Op`] is an optional label plus an [`OpKind`]. Each kind is a plain struct in one file
//! under `op/`; all are read and written generically through string keys:
//!
//! | kind | `kind_id()` | field keys |
//! | --- | --- | --- |
//! | dot product | `dot` | `n t` |
//! | elementwise | `elementwise` | `n flops inputs t` |
//! | matmul | `matmul` | `b d f x w out compute shards split link topology from bm bk bn` |
//! | per-example weights | `bmm` | `b d f x w out` |
//! | custom | `custom` | `flops bytes t net link` |
//! | transformer workload | `llm` | `preset b ctx phase w x kv tp link layers dmodel ffn gated heads kv_heads head_dim vocab experts top_k shared_experts expert_ffn shared_ffn dense_layers router_bias shared_gate kv_rank q_rank rope_dim nope_dim v_dim window window_layers tied qkv_bias o_bias mlp_bias sinks qk_norm norms prompt output draft spec_k accept tpot_max ep moe_ep load c qps prefix_hit chunk max_seqs ttft_max engine prompt_cv output_cv seed slo_pct disagg p_tp p_ep d_tp d_ep d_chip kv_link kv_host prefix_set` |
//! | aggregate model | `model` | `preset b w flops params act` |
//! | collective | `collective` | `kind bytes n topology axes levels sharp` |
//! | fused attention | `attention` | `b heads kv_heads sq skv head_dim causal x` |
//! | training step | `train` | `preset layers dmodel ffn heads kv_heads head_dim vocab gated batch seq dp fsdp tp pp mb ep remat opt sched zero1 causal mlp_only param act grad master opt_dtype mx my mz tokens mfu price` |
//!
//! `llm` is *composite*: it is analysed as a sum of core operations (see
//! [`crate::workload`]); its `preset` is derived from the architecture fields (`llama3-8b`
//! when they match that preset, else `custom`), so any order of `set` calls gives the same op.
//!
//! Values are text: numbers losslessly formatted by [`format_exact`], dtypes by their id,
//! choices by their id; optional fields use a "none word" (`compute=auto`, `bm=off`).
//!
//! The table's order is the form's order, and the order in which a URL's `sweep=` looks up a
//! field no op of the scenario has (the first kind with the key gives its range): put a new
//! kind after those that share its keys.
//!
//! **Adding a kind**: one new file under `op/` with a struct (`Default`, serde) implementing
//! [`behavior::OpBehavior`] (its fields from one `op_fields!` list), and one line in the
//! `op_kinds!` table below. The enum, dispatch, ids, defaults, the unknown-kind error and the
//! form's kind list ([`OpKind::KINDS`]) all come from that line; analysis, critical-point
//! solving, sweeps, derivations and URLs go through the trait (a composite kind returns its
//! parts through `OpBehavior::model`, as a collective and a training step say what they are).

#[macro_use]
mod table;
pub(crate) mod behavior;

mod aggregate;
mod attention;
mod bmm;
mod collective;
mod custom;
mod dot;
mod elementwise;
mod llm;
mod llm_load;
mod llm_parts;
mod llm_step;
mod llm_sweep;
mod llm_tails;
mod llm_workers;
mod matmul;
mod train;
mod train_text;

pub use aggregate::{aggregate_presets, Aggregate, AggregatePreset};
pub use attention::Attention;
pub use behavior::{MeasureKind, Part, PartKind, Traits};
pub use bmm::Bmm;
pub use collective::{AxisSpec, Collective, LevelSpec};
pub use custom::Custom;
pub use dot::Dot;
pub use elementwise::Elementwise;
pub use llm::{expected_tokens, llm_presets, InferenceStep, Llm, LlmPreset};
pub use llm_load::{Chunk, Engine, Load, MAX_CHUNK, MAX_CLIENTS, MAX_QPS};
pub use llm_step::{PhaseLoad, StepMix};
pub use llm_tails::{Disagg, AUTO_MAX_WORKERS, MAX_CV, MAX_SEED, MAX_WORKERS};
pub use llm_workers::Role;
pub use matmul::{AllReduceTopology, Link, Matmul, Split, WeightSource};
pub use train::{fabric_of, Train};

use crate::arch::Arch;
use crate::error::Error;
use crate::field::find_spec;
pub use crate::field::{FieldSpec, FieldType};
use crate::units::format_exact;
pub(crate) use behavior::{Composite, OpBehavior};
pub(crate) use llm_parts::StepVars;
pub(crate) use llm_sweep::LlmSweep;
use serde::{Deserialize, Serialize};

op_kinds! {
    /// `X[B,D]·W[D,F] → Z[B,F]`, optionally sharded (see [`Matmul`]).
    Matmul(Matmul) = "matmul", "matmul X[B,D]·W[D,F]", SINGLE;
    /// Per-example weights `X[B,D]·W[B,D,F] → Z[B,F]` (see [`Bmm`]).
    Bmm(Bmm) = "bmm", "per-example-weight matmul", SINGLE;
    /// `x·y: [N]·[N] → [1]` (see [`Dot`]).
    Dot(Dot) = "dot", "dot product", SINGLE;
    /// `f` FLOPs per element over `inputs` operands (see [`Elementwise`]).
    Elementwise(Elementwise) = "elementwise", "elementwise", SINGLE;
    /// Given FLOPs and bytes (see [`Custom`]).
    Custom(Custom) = "custom", "custom FLOPs / bytes", SINGLE;
    /// A transformer decode or prefill step, decomposed into core operations (see [`Llm`]).
    Llm(Llm) = "llm", "Transformer step (LLM)", MODELS;
    /// A whole model by its totals: FLOPs and activations per input, parameters (see
    /// [`Aggregate`]).
    Aggregate(Aggregate) = "model", "aggregate model (ResNet-50, …)", MODELS;
    /// A collective (AllGather, ReduceScatter, AllReduce, AllToAll, send) of V bytes over a
    /// topology (see [`Collective`]).
    Collective(Collective) = "collective", "collective (AllGather, AllReduce, …)", COLLECTIVES;
    /// A training step on a mesh of chips: dp × fsdp × tp × pp × ep (see [`Train`]).
    Train(Train) = "train", "training step (dp × fsdp × tp × pp)", MODELS;
    /// A fused attention kernel, FlashAttention-style (see [`Attention`]).
    Attention(Attention) = "attention", "fused attention (FlashAttention)", SINGLE;
}

/// How an analysis evaluates a kind (`OpBehavior::model`).
pub(crate) enum Evaluation<'a> {
    /// One kernel: its [`OpBehavior::cost`] is the whole story.
    Kernel,
    /// A sum of core operations (`llm`): analysed part by part and summed.
    Composite(Composite),
    /// A collective: its cost, with its latency and bandwidth terms timed on the chip's
    /// network.
    Collective(&'a Collective),
    /// A training step: its run on the chip, analysed by [`crate::train`].
    Train(&'a Train),
}

/// The family of single operations (one roofline each).
pub const SINGLE: &str = "Single operations";
/// The family of model workloads (a transformer step, a whole model).
pub const MODELS: &str = "Models";
/// The family of communication operations (collectives over a topology).
pub const COLLECTIVES: &str = "Collectives";

/// One line of the kind table, for forms: the kind id, its label and its family (the page
/// groups kinds by family).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct KindInfo {
    /// The kind id (`matmul`).
    pub id: &'static str,
    /// The form label (`matmul X[B,D]·W[D,F]`).
    pub label: &'static str,
    /// The family ([`SINGLE`], [`MODELS`], ...).
    pub family: &'static str,
}

impl OpKind {
    /// Field specs of this kind, in form order.
    pub fn fields(&self) -> &'static [FieldSpec] {
        self.behavior().fields()
    }

    /// Checks every field against its range (and kind-specific rules).
    pub fn validate(&self) -> Result<(), Error> {
        // Each field's value beside its spec, in form order (`each_num` and `fields` come from
        // one `op_fields!` list; `tests/it/api.rs` checks they agree for every kind).
        let mut specs = self.fields().iter();
        self.behavior().each_num(&mut |v| match (specs.next(), v) {
            (Some(spec), Some(v)) if spec.is_numeric() => spec.check(v).map(|_| ()),
            _ => Ok(()),
        })?;
        self.behavior().validate_extra()
    }

    /// Each field's numeric value in form order, beside its key (`None` for a non-numeric
    /// field or an unset optional one), read in one pass: what [`OpKind::validate`] checks.
    pub fn nums(&self) -> Vec<(&'static str, Option<f64>)> {
        let mut keys = self.fields().iter();
        let mut out = Vec::new();
        let _ = self.behavior().each_num(&mut |v| {
            out.push((keys.next().map_or("", |s| s.key), v));
            Ok(())
        });
        out
    }

    /// A field as lossless text; `None` for an unknown key.
    pub fn get(&self, key: &str) -> Option<String> {
        self.behavior().get(key)
    }

    /// A numeric field's value; `None` for unknown or non-numeric keys and unset optional
    /// fields.
    pub fn get_num(&self, key: &str) -> Option<f64> {
        self.behavior().get_num(key)
    }

    /// Sets a field from text, parsed and validated; never panics.
    pub fn set(&mut self, key: &str, text: &str) -> Result<(), Error> {
        let spec = find_spec(self.fields(), key, self.kind_id())?;
        self.behavior_mut().set_field(spec, text)
    }

    pub(crate) fn set_num_raw(&mut self, key: &str, x: f64) -> bool {
        self.behavior_mut().set_num_raw(key, x)
    }
}

/// An operation to analyse: an optional label (`D=F=4096`) and what it computes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Op {
    /// A user label; [`Op::title`] falls back to the description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The computation.
    pub kind: OpKind,
}

impl Op {
    /// An unlabelled operation.
    pub fn new(kind: OpKind) -> Op {
        Op { label: None, kind }
    }

    /// A labelled operation.
    pub fn labeled(label: &str, kind: OpKind) -> Op {
        Op {
            label: Some(label.to_string()),
            kind,
        }
    }

    /// The default operation of a kind id (see [`OpKind::default_for`]).
    pub fn default_for(kind_id: &str) -> Result<Op, Error> {
        OpKind::default_for(kind_id).map(Op::new)
    }

    /// The kind id (`matmul`, ...).
    pub fn kind_id(&self) -> &'static str {
        self.kind.kind_id()
    }

    /// The label, or a description of the operation.
    pub fn title(&self) -> String {
        match &self.label {
            Some(l) if !l.trim().is_empty() => l.clone(),
            _ => self.kind.behavior().describe(),
        }
    }

    /// Field specs of this op's kind.
    pub fn fields(&self) -> &'static [FieldSpec] {
        self.kind.fields()
    }

    /// The spec of one field.
    pub fn field(&self, key: &str) -> Option<&'static FieldSpec> {
        self.fields().iter().find(|f| f.key == key)
    }

    /// A field as lossless text (`4096`, `1.97e14`, `bf16`, `auto`); `None` for an unknown
    /// key.
    pub fn get(&self, key: &str) -> Option<String> {
        self.kind.get(key)
    }

    /// A numeric field's value.
    pub fn get_num(&self, key: &str) -> Option<f64> {
        self.kind.get_num(key)
    }

    /// Sets a field from text; parses and validates; the error names the field and its
    /// allowed range. Never panics.
    pub fn set(&mut self, key: &str, text: &str) -> Result<(), Error> {
        self.kind.set(key, text)
    }

    /// Sets a numeric field, validated.
    pub fn set_num(&mut self, key: &str, v: f64) -> Result<(), Error> {
        let spec = find_spec(self.fields(), key, self.kind_id())?;
        if !spec.is_numeric() {
            return Err(Error::invalid(key, format_exact(v), spec.reason()));
        }
        let v = spec.check(v)?;
        self.kind.set_num_raw(key, v);
        Ok(())
    }

    /// Checks every field (see [`OpKind::validate`]).
    pub fn validate(&self) -> Result<(), Error> {
        self.kind.validate()
    }

    /// Whether this op takes a transformer architecture (`llm`, `train`): a pasted
    /// `config.json` can set it ([`Op::set_arch`]).
    pub fn takes_arch(&self) -> bool {
        self.kind.behavior().takes_arch()
    }

    /// Sets the op's architecture from `a` (every architecture field; what `a` lacks, such as
    /// experts, at the defaults), keeping the rest of the op. An error for a kind that takes
    /// no architecture, or an architecture [`Arch::validate`] refuses; the op is then unchanged.
    ///
    /// ```
    /// use roofline::{arch_preset, Op};
    /// let mut op = Op::default_for("train").unwrap();
    /// op.set("batch", "1M").unwrap();
    /// op.set_arch(&arch_preset("mixtral-8x7b").unwrap().arch).unwrap();
    /// assert_eq!(op.get("preset").as_deref(), Some("mixtral-8x7b"));
    /// assert_eq!(op.get("batch").as_deref(), Some("1e6"));
    /// assert!(Op::default_for("matmul").unwrap().set_arch(&Default::default()).is_err());
    /// ```
    pub fn set_arch(&mut self, a: &Arch) -> Result<(), Error> {
        if !self.takes_arch() {
            return Err(Error::invalid(
                "op",
                self.kind_id(),
                "takes no transformer architecture (llm and train do)",
            ));
        }
        a.validate()?;
        self.kind.behavior_mut().apply_arch(a);
        Ok(())
    }

    /// What a measurement of this operation times (a GEMM, a decode step, ...), if the
    /// validation set measures such work.
    pub fn workload(&self) -> Option<MeasureKind> {
        self.kind.behavior().workload()
    }

    /// What the kind tells the generic code about itself ([`Traits`]); with a sharded
    /// matmul's communication curves only while it is sharded.
    pub fn traits(&self) -> Traits {
        self.kind.behavior().traits()
    }

    /// A short name for legends and rows: the label, else the kind's own (`llama3-8b
    /// decode`), else `D=F=4096` style for kinds with `d` and `f` (as in the chapter's
    /// legend), else the description.
    pub fn short_name(&self) -> String {
        if let Some(l) = self.label.as_deref().filter(|l| !l.trim().is_empty()) {
            return l.to_string();
        }
        if let Some(n) = self.kind.behavior().short_name() {
            return n;
        }
        match (self.get("d"), self.get("f")) {
            (Some(d), Some(f)) if d == f => format!("{} D=F={d}", self.kind_id()),
            (Some(d), Some(f)) => format!("{} D={d}, F={f}", self.kind_id()),
            _ => self.title(),
        }
    }

    /// The largest batch `b` whose memory fits `capacity` bytes, where the kind knows it in
    /// closed form; `None` where it must be searched for.
    pub fn batch_limit(&self, capacity: f64) -> Option<f64> {
        self.kind.behavior().batch_limit(capacity)
    }

    /// The transformer of an `llm` op, for its serving figures ([`Traits::serves`]); `None`
    /// for every other kind.
    pub fn llm(&self) -> Option<&Llm> {
        match &self.kind {
            OpKind::Llm(l) => Some(l),
            _ => None,
        }
    }

    /// The run a training plot draws ([`Traits::train_plot`]): the config on `chip` (its
    /// peak, memory and network); `None` for a kind without a training plot.
    pub fn training_config(
        &self,
        chip: &crate::chip::Chip,
    ) -> Option<Result<crate::train::TrainConfig, Error>> {
        match &self.kind {
            OpKind::Train(t) => Some(t.config_on(chip)),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every kind's field list and its accessors agree: each spec key reads back as text
    /// that sets it again, numeric keys (and only they) read as numbers, and no other key
    /// reads at all.
    #[test]
    fn field_lists_match_accessors() {
        for k in OpKind::KINDS {
            let mut op = Op::default_for(k.id).unwrap();
            assert_eq!(op.kind_id(), k.id);
            for spec in op.fields() {
                let text = op
                    .get(spec.key)
                    .unwrap_or_else(|| panic!("{} {}", k.id, spec.key));
                assert_eq!(text, spec.default, "{} {} default", k.id, spec.key);
                op.set(spec.key, &text).unwrap();
                if spec.is_numeric() && spec.none.is_none() {
                    assert!(op.get_num(spec.key).is_some(), "{} {}", k.id, spec.key);
                } else if !spec.is_numeric() {
                    assert!(op.get_num(spec.key).is_none(), "{} {}", k.id, spec.key);
                }
            }
            assert_eq!(op.get("nope"), None);
            assert!(!op.kind.set_num_raw("nope", 1.0));
        }
    }

    /// The kinds whose field lists splice in the architecture's say so (the page offers them
    /// a config.json import); the others refuse an architecture and stay unchanged.
    #[test]
    fn the_kinds_that_take_an_architecture() {
        let a = crate::arch::arch_preset("mixtral-8x7b").unwrap().arch;
        let mut with = Vec::new();
        for k in OpKind::KINDS {
            let mut op = Op::default_for(k.id).unwrap();
            let before = op.clone();
            if op.takes_arch() {
                with.push(k.id);
                op.set_arch(&a).unwrap();
                assert_eq!(
                    op.get("preset").as_deref(),
                    Some("mixtral-8x7b"),
                    "{}",
                    k.id
                );
            } else {
                assert!(op.set_arch(&a).is_err(), "{}", k.id);
                assert_eq!(op, before);
            }
        }
        assert_eq!(with, ["llm", "train"]);
    }

    #[test]
    fn unknown_kind_lists_the_table() {
        let e = Op::default_for("conv").unwrap_err().to_string();
        assert_eq!(
            e,
            "unknown operation kind `conv`; kinds are: matmul, bmm, dot, elementwise, custom, llm, model, collective, train, attention"
        );
    }
}
