//! # roofline — the core of Roofline Lab
//!
//! A pure, browser-free roofline calculator after "All About Rooflines" (part 1 of the JAX
//! scaling book). It compiles for `wasm32-unknown-unknown`: no threads, no clocks, no files.
//!
//! * [`units`]: quantities are `f64` in base units (FLOPs, bytes, seconds, FLOPs/s, bytes/s);
//!   SI formatting and lenient parsing at the edge.
//! * [`dtype`]: [`DType`] (sizes, peak keys).
//! * [`chip`]: [`Chip`], [`ChipField`], the preset catalog ([`presets`], [`preset`]) with a
//!   source note for every number ([`Chip::source`]).
//! * [`op`]: [`Op`] / [`OpKind`] with generic string field access (forms, URLs, sweeps).
//! * [`analysis`]: [`analyze`] → [`Analysis`] (times, bounds, intensity, ridge, exact critical
//!   batch, step-by-step [`Analysis::derivation`]).
//! * [`sweep`](mod@sweep): [`sweep()`] → [`Series`] with exact crossovers.
//! * [`workload`]: model-level workloads — an `llm` step decomposed into core operations
//!   ([`parts`]), each on its own roofline, summed by [`analyze_workload`] → [`Workload`]
//!   (step time, tokens/s, memory fit, which part binds on what).
//! * [`scenario`]: [`Scenario`], the serialisable state of the app.
//! * [`collective`]: collectives over TPU rings, lines and tori and GPU nodes and clusters,
//!   and the four sharded-matmul cases of part 3 ([`collective_time`], [`sharded_matmul()`]).
//! * [`arch`]: model architectures ([`Arch`]: dense or mixture of experts, GQA or multi-head
//!   latent attention, sliding windows): parameters, KV-cache bytes, FLOPs per token; read
//!   from a Hugging Face `config.json` ([`Arch::from_hf_config`]) or the zoo
//!   ([`arch_presets`]).
//! * [`profile`]: measured profiles (plain CSV, Nsight Compute CSV, PyTorch traces) imported
//!   in chunks, placed on a roofline, grouped, and fitted into a [`profile::Calibration`].
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
//! assert!((v5e.ridge(roofline::DType::Bf16).unwrap() - 240.24).abs() < 0.01);
//! ```

#![deny(missing_docs)]
#![forbid(unsafe_code)]

#[macro_use]
mod ids;

pub mod analysis;
pub mod arch;
mod catalog;
pub mod chip;
pub mod collective;
pub mod dtype;
pub mod error;
pub mod op;
mod ops;
pub mod profile;
pub mod scenario;
pub mod sweep;
pub mod units;
pub mod url;
pub mod workload;

pub use analysis::{
    analyze, Analysis, Bound, CommTerm, ComputeInfo, Critical, ExecUnit, FlopConvention, Options,
    Resource, Tiled,
};
pub use arch::{arch_preset, arch_presets, Arch, ArchPreset, ConfigReport};
pub use chip::{preset, preset_ids, presets, Chip, ChipField, Interconnect};
pub use collective::{collective_time, sharded_matmul, CollectiveKind, CollectiveResult};
pub use dtype::{DType, PeakKey};
pub use error::Error;
pub use op::{
    llm_presets, model_presets, Bmm, Custom, Dot, Elementwise, FieldSpec, FieldType, Link, Llm,
    LlmPreset, Matmul, Model, ModelPreset, Op, OpKind, Phase, Split, WeightSource,
};
pub use scenario::{PlotKind, Scenario, Theme};
pub use sweep::{sweep, Crossover, Series, SweepPoint, SweepSpec};
pub use units::{format_exact, format_si, parse_quantity, Unit};
pub use workload::{analyze_workload, parts, AllReduce, Part, PartTime, Workload};
