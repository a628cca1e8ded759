//! Chips: peaks, bandwidths and capacities, with a preset catalog whose every number cites
//! its source (see [`Chip::source`]).
//!
//! All values are in base units: dense FLOPs/s (OPs/s for integers), bytes/s per direction,
//! bytes. "Dense" means without 2:4 structured sparsity: vendors' sheets quoting sparse
//! figures are halved (the H100's 1,979 bf16 TFLOPS "with sparsity" is 9.89e14 dense).

mod device;
mod evidence;
mod field;
mod presets;

pub use self::device::preset_for_device;
pub use self::evidence::{Evidence, Tier};
pub use self::field::ChipField;

use self::presets::PresetDef;
use crate::dtype::{DType, PeakKey};
use crate::error::Error;
use crate::units::{format_exact, parse_quantity_unit, Unit};
use serde::{Deserialize, Serialize};

id_enum! {
    /// How a chip's scale-up links reach a peer.
    ///
    /// * [`Interconnect::PointToPoint`]: TPU ICI (torus) and AMD Infinity Fabric (full mesh): a
    ///   neighbour is reached over **one** link, so the bandwidth to a peer is `ici`.
    /// * [`Interconnect::Switch`]: NVIDIA NVLink through NVSwitch: every link goes to the switch,
    ///   so a peer is reached over **all** links: `ici × links`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
    pub enum Interconnect {
        /// One link per peer (TPU ICI torus, AMD Infinity Fabric mesh).
        #[default]
        PointToPoint = "point_to_point",
        /// All links to a switch (NVLink + NVSwitch).
        Switch = "switch",
    }
}

/// An accelerator: dense peaks per dtype, memory and link bandwidths, capacities.
///
/// Optional values are `None` when the chip has no such unit or no trustworthy published
/// figure; the analysis then fails with a typed error (e.g. `no int8 peak on TPU v6e`), never
/// falling back to another value. Create one with [`preset`], [`Chip::custom`], and edit with
/// [`Chip::set`] / [`Chip::set_str`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Chip {
    /// Display name (`TPU v5e`, `H100 SXM`).
    pub name: String,
    /// The preset this chip came from (`tpu-v5e`), `None` for a chip built from scratch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preset_id: Option<String>,
    /// How scale-up links reach a peer; see [`Chip::peer_bandwidth`].
    #[serde(default)]
    pub interconnect: Interconnect,
    /// Dense fp32 FLOPs/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fp32: Option<f64>,
    /// Dense tf32 FLOPs/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tf32: Option<f64>,
    /// Dense bf16 FLOPs/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bf16: Option<f64>,
    /// Dense fp16 FLOPs/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fp16: Option<f64>,
    /// Dense fp8 FLOPs/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fp8: Option<f64>,
    /// Dense int8 OPs/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub int8: Option<f64>,
    /// Dense int4 OPs/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub int4: Option<f64>,
    /// Dense fp4 FLOPs/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fp4: Option<f64>,
    /// Vector unit FLOPs/s (dot products and elementwise ops run here when present).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vpu: Option<f64>,
    /// HBM bandwidth, bytes/s.
    pub hbm: f64,
    /// HBM capacity, bytes.
    pub hbm_cap: f64,
    /// On-chip memory bandwidth (VMEM), bytes/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub onchip: Option<f64>,
    /// On-chip memory capacity, bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub onchip_cap: Option<f64>,
    /// Host link bandwidth per direction, bytes/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pcie: Option<f64>,
    /// NVLink-C2C to the host CPU, bytes/s per direction per GPU (Grace systems).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub c2c: Option<f64>,
    /// Scale-up link bandwidth per direction **per link**, bytes/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ici: Option<f64>,
    /// Number of scale-up links.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub links: Option<f64>,
    /// Data-center network bandwidth per chip, bytes/s (a GPU's scale-out NIC per direction).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dcn: Option<f64>,
    /// Dimensions of the ICI torus (TPU: 2 or 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub torus: Option<f64>,
    /// The axis length that brings wraparound links; see [`Chip::wraps`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wrap: Option<f64>,
    /// GPUs per node (NVLink domain).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<f64>,
    /// Nodes per leaf switch group (a scalable unit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leaf: Option<f64>,
    /// Scale-up (ICI, NVLink) latency per hop, seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hop_lat: Option<f64>,
    /// Scale-out (InfiniBand, DCN) latency per hop, seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub net_lat: Option<f64>,
    /// Price, USD per chip-hour.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price: Option<f64>,
    /// Power per chip, watts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub power: Option<f64>,
}

/// All preset chips, in catalog order: `tpu-v4p tpu-v5e tpu-v5p tpu-v6e tpu7x a100 h100 h200
/// b200 mi300x l4`, then the chips of 2026: `h800 h20 b300 mi325x mi355x trn2 trn3 gaudi3
/// rtx-5090 rtx-pro-6000`, then the Grace Blackwell racks `gb200 gb300`.
pub fn presets() -> Vec<Chip> {
    presets::PRESETS.iter().map(|p| p.chip()).collect()
}

/// A preset field's source note as the catalog keeps it (see [`source_notes`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SourceNote {
    /// The preset's id (`h100`).
    pub preset: &'static str,
    /// The field.
    pub field: ChipField,
    /// Where the value comes from (or why it is absent).
    pub note: &'static str,
    /// Where sources disagree, who states the other figures.
    pub others: Option<&'static str>,
}

/// Every preset field's source note, in catalog order: what [`Chip::source`] and
/// [`Chip::evidence`] say of a preset's own value. Empty without the `sources` feature, whose
/// build leaves the notes out of the binary (the page loads them as a file after its first plot,
/// issue 27): then those two say `""` where a note would be.
pub fn source_notes() -> Vec<SourceNote> {
    presets::PRESETS
        .iter()
        .flat_map(|p| {
            ChipField::ALL.into_iter().map(move |f| {
                let s = p.spec(f);
                SourceNote {
                    preset: p.id,
                    field: f,
                    note: s.src,
                    others: s.range.map(|r| r.2).filter(|o| !o.is_empty()),
                }
            })
        })
        .filter(|n| !n.note.is_empty() && n.field != ChipField::Name)
        .collect()
}

/// The preset ids, in catalog order.
pub fn preset_ids() -> Vec<&'static str> {
    presets::PRESETS.iter().map(|p| p.id).collect()
}

/// The preset with this id (`tpu-v5e`, `h100`, ...), or `None`.
pub fn preset(id: &str) -> Option<Chip> {
    presets::find(id.trim()).map(PresetDef::chip)
}

impl Chip {
    /// A chip built from scratch, with no preset and no optional values. Its required values
    /// are round placeholders to be edited: `bf16` 1e15 FLOPs/s, `hbm` 1e12 B/s, `hbm_cap`
    /// 1e11 B ([`Chip::source`] says so).
    pub fn custom(name: &str) -> Chip {
        let name = name.trim();
        let mut c = Chip::blank(if name.is_empty() {
            "Custom chip".into()
        } else {
            name.chars().take(80).collect()
        });
        c.bf16 = Some(1e15);
        c.hbm = 1e12;
        c.hbm_cap = 1e11;
        c
    }

    /// A field as lossless text: the name, or the number via [`format_exact`]; `None` when
    /// absent.
    pub fn get_str(&self, field: ChipField) -> Option<String> {
        match field {
            ChipField::Name => Some(self.name.clone()),
            f => self.get(f).map(format_exact),
        }
    }

    /// Checks a numeric value for a field: finite, from 1 to 1e30 (counts: whole numbers,
    /// `links` 1 to 1024, `torus` 1 to 16, `wrap`, `node`, `leaf` 1 to 1e9; latencies 0 to
    /// 1000 s).
    pub fn validate(field: ChipField, value: f64) -> Result<f64, Error> {
        if field == ChipField::Name {
            return Err(Error::invalid("name", format_exact(value), "must be text"));
        }
        let (min, max, integer) = field.range();
        let ok =
            value.is_finite() && value >= min && value <= max && (!integer || value.fract() == 0.0);
        if ok {
            Ok(value)
        } else if integer {
            Err(Error::invalid(
                field.as_str(),
                format_exact(value),
                format!(
                    "must be a whole number ({}) from {} to {}",
                    field.label(),
                    format_exact(min),
                    format_exact(max)
                ),
            ))
        } else {
            Err(Error::invalid(
                field.as_str(),
                format_exact(value),
                format!(
                    "must be a{} finite {} from {} to {} {}",
                    if min > 0.0 { " positive" } else { "" },
                    field.label(),
                    format_exact(min),
                    format_exact(max),
                    field.unit().map(Unit::symbol).unwrap_or("")
                )
                .trim_end()
                .to_string(),
            ))
        }
    }

    /// Checks every numeric value of the chip with [`Chip::validate`] (chips built by hand or
    /// deserialised may hold anything).
    pub fn check(&self) -> Result<(), Error> {
        for f in ChipField::ALL {
            if let Some(v) = self.get(f) {
                Chip::validate(f, v)?;
            }
        }
        Ok(())
    }

    /// Sets a numeric field in place after [`Chip::validate`].
    pub fn set(&mut self, field: ChipField, value: f64) -> Result<(), Error> {
        let v = Chip::validate(field, value)?;
        if !self.set_required(field, v) {
            if let Some(slot) = self.slot(field) {
                *slot = Some(v);
            }
        }
        Ok(())
    }

    /// A copy with an optional field removed (`hbm`, `hbm_cap` and `name` are required and
    /// give an error).
    pub fn without(&self, field: ChipField) -> Result<Chip, Error> {
        let mut c = self.clone();
        match c.slot(field) {
            Some(slot) => {
                *slot = None;
                Ok(c)
            }
            None => Err(Error::invalid(
                field.as_str(),
                "",
                format!("{} is required and cannot be removed", field.label()),
            )),
        }
    }

    /// Sets a field from text: the name (trimmed, 1 to 80 characters), or a number read by
    /// [`parse_quantity_unit`] (`820G`, `1.97e14`, `3.35 TB/s`; a unit, if given, must match
    /// the field's). `none` or `-` removes an optional value. Empty text is an error
    /// (`hbm=: empty; type a number, or none to remove it`): a field cleared to be retyped
    /// never silently drops a value.
    pub fn set_str(&mut self, field: ChipField, text: &str) -> Result<(), Error> {
        let t = text.trim();
        if field == ChipField::Name {
            if t.is_empty() || t.chars().count() > 80 {
                return Err(Error::invalid(
                    "name",
                    t,
                    "must be 1 to 80 characters of text",
                ));
            }
            self.name = t.to_string();
            return Ok(());
        }
        if t.is_empty() {
            let how = if field.is_required() {
                "type a number"
            } else {
                "type a number, or none to remove it"
            };
            return Err(Error::invalid(field.as_str(), "", format!("empty; {how}")));
        }
        if t.eq_ignore_ascii_case("none") || t == "-" {
            *self = self.without(field)?;
            return Ok(());
        }
        let (v, unit) = parse_quantity_unit(t).map_err(|e| match e {
            Error::Parse { reason, .. } => Error::invalid(field.as_str(), t, reason),
            other => other,
        })?;
        if let (Some(given), Some(want)) = (unit, field.unit()) {
            // People write a rate of FLOPs as "FLOPs" (`197 tflops`, `2 PFLOPs`, `2 PF`): in a
            // peak field, whose unit is a rate, the field's unit decides. Count fields elsewhere
            // (an op's `flops=`) keep reading counts.
            let rate_written_as_count = given == Unit::Flops && want == Unit::FlopRate;
            if given != want && want != Unit::Count && !rate_written_as_count {
                return Err(Error::invalid(
                    field.as_str(),
                    t,
                    format!(
                        "unit {} does not fit {} ({})",
                        given.symbol(),
                        field.label(),
                        want.symbol()
                    ),
                ));
            }
        }
        self.set(field, v)
    }

    /// Where a value comes from: the preset's source note (vendor page or book passage), or a
    /// note that the value was edited, is a placeholder, or is absent. Never empty, except for
    /// a preset's own value in a build without the `sources` feature (see [`source_notes`]).
    pub fn source(&self, field: ChipField) -> &'static str {
        if let Some(def) = self.preset_id.as_deref().and_then(presets::find) {
            let spec = def.spec(field);
            let same = match field {
                ChipField::Name => self.name == def.name,
                f => self.get(f) == spec.v,
            };
            return if same {
                spec.src
            } else if field != ChipField::Name && self.get(field).is_none() {
                "removed by the user (the preset has a value)"
            } else {
                "edited by the user: differs from the preset's value"
            };
        }
        match field {
            ChipField::Name => "custom chip: name given by the user",
            ChipField::Bf16 if self.bf16 == Some(1e15) => {
                "placeholder of a custom chip (1e15): set your own value"
            }
            ChipField::Hbm if self.hbm == 1e12 => {
                "placeholder of a custom chip (1e12): set your own value"
            }
            ChipField::HbmCap if self.hbm_cap == 1e11 => {
                "placeholder of a custom chip (1e11): set your own value"
            }
            f if self.get(f).is_some() => "custom chip: value entered by the user",
            _ => "custom chip: not set",
        }
    }

    /// The evidence for a preset figure: its [`Tier`], its source note and the range where
    /// sources disagree. `None` for the name, an absent value, a chip without a preset, and
    /// a value edited away from the preset's (as [`Chip::source`] then says).
    pub fn evidence(&self, field: ChipField) -> Option<Evidence> {
        let def = self.preset_id.as_deref().and_then(presets::find)?;
        let spec = def.spec(field);
        let v = self.get(field)?;
        (field != ChipField::Name && spec.v == Some(v)).then_some(())?;
        Some(Evidence {
            tier: spec.tier?,
            source: spec.src,
            range: spec.range,
        })
    }

    /// The dense peak for a peak key, if the chip has one.
    pub fn peak_for(&self, key: PeakKey) -> Option<f64> {
        self.get(ChipField::from_peak(key))
    }

    /// The dense peak a dtype computes at; error `no fp8 peak on A100 SXM` when absent.
    pub fn peak(&self, dtype: DType) -> Result<f64, Error> {
        let key = dtype.peak_key();
        self.peak_for(key).ok_or_else(|| Error::MissingPeak {
            key: key.as_str().into(),
            chip: self.name.clone(),
        })
    }

    /// Bandwidth to one peer over the scale-up network, bytes/s per direction.
    ///
    /// * point-to-point (TPU ICI, Infinity Fabric): `ici` (one link reaches a neighbour; TPU
    ///   v5e: 4.5e10);
    /// * switch (NVLink): `ici × links` (H100: 18 × 2.5e10 = 4.5e11).
    ///
    /// `None` when `ici` is absent, or `links` is absent on a switched chip.
    pub fn peer_bandwidth(&self) -> Option<f64> {
        let ici = self.ici?;
        match self.interconnect {
            Interconnect::PointToPoint => Some(ici),
            Interconnect::Switch => self.links.map(|l| ici * l),
        }
    }

    /// Egress per chip into the scale-up network, per direction: `ici × links` (H100: 18 ×
    /// 2.5e10 = 4.5e11, the book's "450GB/s"; MI300X: 7 × 6.4e10 over its full mesh). `None`
    /// when either is absent.
    pub fn egress(&self) -> Option<f64> {
        Some(self.ici? * self.links?)
    }

    /// Whether a torus axis of `size` chips has wraparound links in a slice of `shape`: never
    /// without `wrap` or for an axis of 1; on a 3D torus (`torus` ≥ 3: v4p, v5p, built from
    /// 4×4×4 cubes) every axis wraps when every axis is a multiple of `wrap` ("Any multiple of a
    /// full cube (e.g. 4x4x4 or 4x4x8) will have wraparounds", "a 2x2x4 won't have any",
    /// tpus.md); otherwise an axis wraps when its length is a multiple of `wrap` (v5e, v6e:
    /// "wraparounds along any axis of size 16").
    pub fn wraps(&self, size: f64, shape: &[f64]) -> bool {
        let Some(w) = self.wrap else {
            return false;
        };
        if size <= 1.0 || size % w != 0.0 {
            return false;
        }
        self.torus.unwrap_or(0.0) < 3.0 || shape.iter().all(|s| s % w == 0.0)
    }

    /// Whether this chip came from a preset and differs from it in any value or the name.
    pub fn is_edited(&self) -> bool {
        match self.preset_id.as_deref().and_then(preset) {
            Some(p) => *self != p,
            None => false,
        }
    }

    /// Restores the preset's values (no effect on a chip without a known preset).
    pub fn reset(&mut self) {
        if let Some(p) = self.preset_id.as_deref().and_then(preset) {
            *self = p;
        }
    }
}
