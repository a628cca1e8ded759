//! # roofline — the core of Roofline Lab
//!
//! A pure, browser-free roofline calculator after "All About Rooflines" (part 1 of the JAX
//! scaling book). It compiles for `wasm32-unknown-unknown`: no threads, no clocks, no files.
//!
//! Modules, from the bottom up (each imports only modules listed before it; see
//! ARCHITECTURE.md, `tests/it/module_deps.rs` enforces it):
//!
//! * [`error`], [`units`] (quantities are `f64` in base units; SI formatting and lenient
//!   parsing at the edge), [`dtype`] ([`DType`], [`PeakKey`]).
//! * [`chip`]: [`Chip`], [`ChipField`], the preset catalog ([`presets`], [`preset`]; pure data
//!   in `chip/presets.rs`) with a source note for every number ([`Chip::source`]).
//! * [`resource`] ([`Resource`], [`Bound`], [`ExecUnit`]), [`options`] ([`Options`],
//!   [`FlopConvention`]), [`eval`] (an operation's cost on a chip, its times, affine
//!   interpolation, the one critical-point solver): the shared vocabulary.
//! * [`field`]: [`FieldSpec`] and the declarative field lists of operation kinds.
//! * [`op`]: the kind table ([`OpKind`], [`Op`]), one file per kind, with generic string field
//!   access (forms, URLs, sweeps).
//! * [`analysis`]: [`analyze`] → [`Analysis`] (times, bounds, intensity, ridge, exact critical
//!   batch, step-by-step [`Analysis::derivation`]); composites summed over their parts.
//! * [`sweep`](mod@sweep): [`sweep()`] → [`SweepCurve`] with exact crossovers.
//! * [`workload`]: a composite (`llm`) step part by part ([`parts`], [`analyze_workload`] →
//!   [`Workload`]: step time, tokens/s, memory fit, which part binds on what).
//! * [`scenario`]: [`Scenario`], the serialisable state of the app; [`url`]: its link form.
//! * [`collective`]: collectives over TPU rings, lines and tori and GPU nodes and clusters,
//!   and the four sharded-matmul cases of part 3 ([`collective_time`], [`sharded_matmul()`]).
//! * [`arch`]: model architectures ([`Arch`]: dense or mixture of experts, GQA or multi-head
//!   latent attention, sliding windows): parameters, KV-cache bytes, FLOPs per token; read
//!   from a Hugging Face `config.json` ([`Arch::from_hf_config`]) or the zoo
//!   ([`arch_presets`]).
//! * [`train`]: training on a mesh of chips (parts 5, 6 and 12): step time, MFU, memory per
//!   chip, the critical batch per chip of each parallelism strategy beside the book's closed
//!   forms, the best FSDP × TP split, days and cost of a token budget ([`analyze_train`]).
//! * [`profile`]: measured profiles (plain CSV, Nsight Compute CSV, PyTorch traces) imported
//!   in chunks, placed on a roofline, grouped, and fitted into a [`profile::Calibration`].
//! * [`validation`]: published measurements as scenarios, the bare roofline's ratio to them
//!   and a calibration fitted on them, held out by source, stored, and the expected times and
//!   bands it gives a row.
//! * [`results`]: the result store above them ([`results::Results`]): each (operation,
//!   chip, options) of a scenario computed once per edit, keyed by content, with its analysis,
//!   workload, serving, load figures, expectations and elasticities as plain data; and the
//!   door to every output the page reads. [`inputs`]: the door to every input it sets up.
//!   The app names only these two, [`url`], [`units`], [`profile`] and [`validation`].
//!   The validation set's points are computed through the store as the page computes them
//!   ([`results::validated`], with the set's report: [`results::validated::report`]).
//!
//! The formulas (book notation, `s` = bytes per element):
//!
//! * `T_math = FLOPs / peak`, `T_comms = bytes / bandwidth`
//! * `T_lower = max(T_math, T_comms)`, `T_upper = T_math + T_comms`
//! * intensity `= FLOPs / bytes`; ridge `= peak / bandwidth` (TPU v5e: 1.97e14 / 8.2e11 = 240)
//! * matmul `X[B,D]·W[D,F]`: FLOPs `2BDF`, bytes `s_x·BD + s_w·DF + s_out·BF`, intensity ≈ B
//!   in bf16
//!
//! ```
//! use roofline::{analyze, preset, Op, Options};
//! let v5e = preset("tpu-v5e").unwrap();
//! let mut op = Op::default_for("matmul").unwrap();
//! op.set("b", "512").unwrap();
//! let a = analyze(&op, &v5e, &Options::default()).unwrap();
//! assert_eq!(a.bound, roofline::Bound::Compute);
//! assert!((a.ridge - 240.24).abs() < 0.01); // 1.97e14 / 8.2e11
//! ```

#![deny(missing_docs)]
#![forbid(unsafe_code)]

#[macro_use]
mod ids;
#[macro_use]
pub mod field;

pub mod analysis;
pub mod arch;
pub mod chip;
pub mod collective;
pub mod compare;
pub mod dtype;
pub mod error;
pub mod eval;
pub mod inputs;
pub mod json;
pub mod op;
pub mod options;
pub mod profile;
pub mod resource;
pub mod results;
pub mod scenario;
pub mod serving;
pub mod sweep;
pub mod train;
pub mod units;
pub mod url;
pub mod validation;
pub mod workload;

pub use analysis::{analyze, Analysis, CollectiveTimes, CommTerm, ComputeInfo, PartTime};
pub use arch::{arch_preset, arch_presets, Arch, ArchPreset, ConfigReport};
pub use chip::{preset, preset_ids, presets, Chip, ChipField, Evidence, Interconnect, Tier};
pub use collective::{collective_time, sharded_matmul, CollectiveKind, CollectiveResult};
pub use dtype::{DType, PeakKey};
pub use error::Error;
pub use eval::{Critical, Tiled};
pub use field::{FieldSpec, FieldType};
pub use op::{
    aggregate_presets, llm_presets, Aggregate, AggregatePreset, AllReduceTopology, AxisSpec, Bmm,
    Collective, Custom, Dot, Elementwise, InferenceStep, KindInfo, LevelSpec, Link, Llm, LlmPreset,
    Matmul, Op, OpKind, Part, Split, Train, WeightSource,
};
pub use options::{Calibration, FlopConvention, Options};
pub use resource::{Bound, ExecUnit, Resource};
pub use scenario::{ColorScheme, PlotKind, Scenario};
pub use sweep::{sweep, sweep_path, sweep_rebuilt, Crossover, SweepCurve, SweepPoint, SweepSpec};
pub use train::{analyze_train, TrainAnalysis, TrainConfig};
pub use units::{format_exact, format_quantity, parse_quantity, Unit};
pub use workload::{analyze_workload, parts, AllReduce, Workload};
