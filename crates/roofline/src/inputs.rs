//! The page's door to the core's inputs (issue 41): everything a form, a link or an import
//! sets up before the core computes: the scenario and its operations, chips, options, fields
//! and a model's architecture. With [`crate::results`] (what the core computes of them),
//! [`crate::url`] (the link), [`crate::units`] (quantities as people read them),
//! [`crate::profile`] (measured profiles) and [`crate::validation`] (the measurements the
//! expectations rest on), the only modules the app names (`tests/it/module_deps.rs`
//! checks it). Re-exports only: each item lives, and is documented, in its own module.

pub use crate::analysis::parse_derate;
pub use crate::arch::{json, Arch, ArchFields, ConfigReport};
pub use crate::chip::{preset, preset_for_device, presets, source_notes, Chip, ChipField};
pub use crate::dtype::{DType, PeakKey};
pub use crate::error::{clip_text, Error};
pub use crate::field::{FieldSpec, FieldType, SliderScale};
pub use crate::op::{
    Disagg, Engine, Llm, Load, MeasureKind, Op, OpKind, PartKind, PhaseLoad, StepMix,
};
pub use crate::options::{Calibration, FlopConvention, Options};
pub use crate::scenario::{BaseRow, ColorScheme, PlotKind, Scenario, SweepAxes, SweepMetric};
pub use crate::sweep::SweepSpec;
