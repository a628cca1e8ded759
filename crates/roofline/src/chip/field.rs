//! [`ChipField`]: the fields of a chip, declared once in one table ([`chip_fields!`]): id,
//! label, unit, range, whether every chip has it, and the `Chip` and preset slot it lives in.
//! The enum, its labels, units and ranges, `Chip::get`, the optional slots, a preset's spec
//! of a field and the chip a preset defines all come from that table.

use super::presets::{PresetDef, Spec};
use super::Chip;
use crate::dtype::PeakKey;
use crate::error::Error;
use crate::units::Unit;
use serde::{Deserialize, Serialize};
use std::str::FromStr;

/// Any finite value from 1 to 1e30.
const ANY: (f64, f64, bool) = (1.0, 1e30, false);
/// A whole count from 1 to 1e9.
const COUNT: (f64, f64, bool) = (1.0, 1e9, true);
/// A latency, 0 to 1000 s.
const LATENCY: (f64, f64, bool) = (0.0, 1e3, false);
/// A price or a power, 1e-6 to 1e30.
const AMOUNT: (f64, f64, bool) = (1e-6, 1e30, false);

/// A required field (every chip has it: a plain `f64`) or an optional one (`Option<f64>`).
macro_rules! chip_slot {
    (get req $self:ident . $f:ident) => {
        Some($self.$f)
    };
    (get opt $self:ident . $f:ident) => {
        $self.$f
    };
    (slot req $self:ident . $f:ident) => {
        return None
    };
    (slot opt $self:ident . $f:ident) => {
        &mut $self.$f
    };
    (preset req $spec:expr) => {
        // Every preset has both; 0 would be caught by the catalog test.
        $spec.v.unwrap_or(0.0)
    };
    (preset opt $spec:expr) => {
        $spec.v
    };
    (blank req) => {
        0.0
    };
    (required req) => {
        true
    };
    (required opt) => {
        false
    };
    (set req $self:ident . $f:ident = $v:ident) => {{
        $self.$f = $v;
        true
    }};
    (set opt $self:ident . $f:ident = $v:ident) => {
        false
    };
    (blank opt) => {
        None
    };
}

/// The chip fields' one declaration: `Variant = "id", slot: req|opt, "label", unit, range;`
/// (`name` comes first, as text).
macro_rules! chip_fields {
    ($($(#[$doc:meta])* $var:ident = $id:literal, $slot:ident: $req:ident, $label:literal, $unit:ident, $range:expr;)+) => {
        id_enum! {
            /// A field of a [`Chip`], with string ids exactly `name fp32 tf32 bf16 fp16 fp8
            /// int8 int4 fp4 vpu hbm hbm_cap onchip onchip_cap pcie c2c ici links dcn torus wrap
            /// node leaf hop_lat net_lat price power`.
            ///
            /// `torus` to `net_lat` describe the chip's network for collectives (see
            /// [`crate::collective`]); with `ici × links` (the NVLink egress per GPU) and
            /// `dcn` (the scale-out NIC per GPU, or a TPU's DCN egress) they are all a
            /// collective reads. `price` and `power` are for serving figures (cost and
            /// joules per token).
            #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
            pub enum ChipField {
                /// Display name (text).
                Name = "name",
                $($(#[$doc])* $var = $id),+
            }
        }

        impl ChipField {
            /// A short human label (`HBM bandwidth`, `bf16 peak`, ...).
            pub fn label(self) -> &'static str {
                match self {
                    ChipField::Name => "name",
                    $(ChipField::$var => $label),+
                }
            }

            /// The unit of the field's value (`None` for `name`).
            pub fn unit(self) -> Option<Unit> {
                match self {
                    ChipField::Name => None,
                    $(ChipField::$var => Some(Unit::$unit)),+
                }
            }

            /// Whether every chip has this field (`name`, `hbm`, `hbm_cap`); others may be
            /// absent.
            pub fn is_required(self) -> bool {
                match self {
                    ChipField::Name => true,
                    $(ChipField::$var => chip_slot!(required $req)),+
                }
            }

            /// The allowed range of a numeric field, `(min, max, integer)`: counts are whole
            /// (`links` 1 to 1024, `torus` 1 to 16, `wrap`, `node`, `leaf` 1 to 1e9),
            /// latencies from 0 to 1000 s, price and power from 1e-6, everything else from 1
            /// to 1e30.
            pub fn range(self) -> (f64, f64, bool) {
                match self {
                    ChipField::Name => ANY,
                    $(ChipField::$var => $range),+
                }
            }
        }

        impl Chip {
            /// A chip with `name`, no preset, no optional value and required values 0 (to
            /// be set).
            pub(super) fn blank(name: String) -> Chip {
                Chip {
                    name,
                    preset_id: None,
                    interconnect: super::Interconnect::PointToPoint,
                    $($slot: chip_slot!(blank $req)),+
                }
            }

            /// The optional value of a field, to set or remove (`None` for `name` and the
            /// required fields).
            pub(super) fn slot(&mut self, field: ChipField) -> Option<&mut Option<f64>> {
                Some(match field {
                    ChipField::Name => return None,
                    $(ChipField::$var => chip_slot!(slot $req self.$slot)),+
                })
            }

            /// The numeric value of a field (`None` for `name` and for absent values).
            pub fn get(&self, field: ChipField) -> Option<f64> {
                match field {
                    ChipField::Name => None,
                    $(ChipField::$var => chip_slot!(get $req self.$slot)),+
                }
            }

            /// Sets a required field's value (validated by the caller); `false` for `name` and
            /// the optional fields (see [`Chip::slot`]).
            pub(super) fn set_required(&mut self, field: ChipField, v: f64) -> bool {
                match field {
                    ChipField::Name => false,
                    $(ChipField::$var => chip_slot!(set $req self.$slot = v)),+
                }
            }
        }

        impl PresetDef {
            /// The value and source note of one field.
            pub(crate) fn spec(&self, f: ChipField) -> Spec {
                match f {
                    ChipField::Name => Spec {
                        v: None,
                        src: self.name_src,
                        tier: None,
                        range: None,
                    },
                    $(ChipField::$var => self.$slot),+
                }
            }

            /// The chip this preset defines.
            pub(crate) fn chip(&self) -> Chip {
                Chip {
                    name: self.name.to_string(),
                    preset_id: Some(self.id.to_string()),
                    interconnect: self.interconnect,
                    $($slot: chip_slot!(preset $req self.$slot)),+
                }
            }
        }
    };
}

chip_fields! {
    /// Dense fp32 peak, FLOPs/s.
    Fp32 = "fp32", fp32: opt, "fp32 peak", FlopRate, ANY;
    /// Dense tf32 peak, FLOPs/s.
    Tf32 = "tf32", tf32: opt, "tf32 peak", FlopRate, ANY;
    /// Dense bf16 peak, FLOPs/s.
    Bf16 = "bf16", bf16: opt, "bf16 peak", FlopRate, ANY;
    /// Dense fp16 peak, FLOPs/s.
    Fp16 = "fp16", fp16: opt, "fp16 peak", FlopRate, ANY;
    /// Dense fp8 peak (e4m3 and e5m2), FLOPs/s.
    Fp8 = "fp8", fp8: opt, "fp8 peak", FlopRate, ANY;
    /// Dense int8 peak, OPs/s.
    Int8 = "int8", int8: opt, "int8 peak", FlopRate, ANY;
    /// Dense int4 peak, OPs/s.
    Int4 = "int4", int4: opt, "int4 peak", FlopRate, ANY;
    /// Dense fp4 peak, FLOPs/s.
    Fp4 = "fp4", fp4: opt, "fp4 peak", FlopRate, ANY;
    /// Vector unit (TPU VPU, GPU CUDA cores) FLOPs/s: runs dot products and elementwise ops.
    Vpu = "vpu", vpu: opt, "vector unit", FlopRate, ANY;
    /// HBM (device memory) bandwidth, bytes/s.
    Hbm = "hbm", hbm: req, "HBM bandwidth", ByteRate, ANY;
    /// HBM capacity, bytes.
    HbmCap = "hbm_cap", hbm_cap: req, "HBM capacity", Bytes, ANY;
    /// On-chip memory (TPU VMEM, GPU shared memory) bandwidth, bytes/s.
    Onchip = "onchip", onchip: opt, "on-chip memory bandwidth", ByteRate, ANY;
    /// On-chip memory capacity, bytes.
    OnchipCap = "onchip_cap", onchip_cap: opt, "on-chip memory capacity", Bytes, ANY;
    /// Host link (PCIe) bandwidth, bytes/s per direction.
    Pcie = "pcie", pcie: opt, "PCIe bandwidth", ByteRate, ANY;
    /// NVLink-C2C to the host CPU (a Grace superchip's GPU), bytes/s per direction per GPU:
    /// the host link a KV tier in the CPU's memory crosses instead of PCIe.
    C2c = "c2c", c2c: opt, "NVLink-C2C to host", ByteRate, ANY;
    /// Scale-up link (TPU ICI, NVLink, Infinity Fabric) bandwidth, bytes/s per direction per
    /// link.
    Ici = "ici", ici: opt, "ICI/NVLink bandwidth per link", ByteRate, ANY;
    /// Number of scale-up links per chip.
    Links = "links", links: opt, "scale-up links", Count, (1.0, 1024.0, true);
    /// Data-center network bandwidth, bytes/s per chip (on a GPU: its scale-out NIC, per
    /// direction).
    Dcn = "dcn", dcn: opt, "DCN bandwidth", ByteRate, ANY;
    /// Dimensions of the TPU ICI torus (2 or 3).
    Torus = "torus", torus: opt, "torus dimensions", Count, (1.0, 16.0, true);
    /// The axis length that brings wraparound links (see [`Chip::wraps`]): 4 on v4p/v5p
    /// (whole 4×4×4 cubes), 16 on v5e/v6e (a full pod axis).
    Wrap = "wrap", wrap: opt, "wraparound axis length", Count, COUNT;
    /// GPUs per node (the NVLink domain).
    Node = "node", node: opt, "GPUs per node", Count, COUNT;
    /// Nodes under one set of leaf switches (a scalable unit).
    Leaf = "leaf", leaf: opt, "nodes per leaf (scalable unit)", Count, COUNT;
    /// Latency per hop of the scale-up network (ICI, NVLink), seconds.
    HopLat = "hop_lat", hop_lat: opt, "scale-up latency per hop", Seconds, LATENCY;
    /// Latency per hop of the scale-out network (InfiniBand, DCN), seconds.
    NetLat = "net_lat", net_lat: opt, "scale-out latency per hop", Seconds, LATENCY;
    /// Price, USD per chip-hour (serving cost per token).
    Price = "price", price: opt, "price (USD per chip-hour)", Count, AMOUNT;
    /// Power per chip, watts (serving joules per token).
    Power = "power", power: opt, "power (W per chip)", Count, AMOUNT;
}

impl ChipField {
    /// The peak field matching a [`PeakKey`].
    pub fn from_peak(key: PeakKey) -> ChipField {
        match key {
            PeakKey::Fp32 => ChipField::Fp32,
            PeakKey::Tf32 => ChipField::Tf32,
            PeakKey::Bf16 => ChipField::Bf16,
            PeakKey::Fp16 => ChipField::Fp16,
            PeakKey::Fp8 => ChipField::Fp8,
            PeakKey::Int8 => ChipField::Int8,
            PeakKey::Int4 => ChipField::Int4,
            PeakKey::Fp4 => ChipField::Fp4,
        }
    }
}

impl FromStr for ChipField {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Error> {
        let t = s.trim();
        ChipField::ALL
            .into_iter()
            .find(|f| f.as_str() == t)
            .ok_or_else(|| Error::UnknownField {
                field: t.to_string(),
                kind: "chip".into(),
                expected: ChipField::ALL.map(|f| f.as_str()).join(", "),
            })
    }
}
