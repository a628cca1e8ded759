//! [`ChipField`]: the fields of a chip, with ids, labels, units and ranges.

use crate::dtype::PeakKey;
use crate::error::Error;
use crate::units::Unit;
use serde::{Deserialize, Serialize};
use std::str::FromStr;

id_enum! {
    /// A field of a [`Chip`], with string ids exactly `name fp32 tf32 bf16 fp16 fp8 int8 int4 fp4
    /// vpu hbm hbm_cap onchip onchip_cap pcie ici links dcn torus wrap node leaf hop_lat
    /// net_lat price power`.
    ///
    /// The last six describe the chip's network for collectives (see
    /// [`crate::collective`]); with `ici × links` (the NVLink egress per GPU) and `dcn` (the
    /// scale-out NIC per GPU, or a TPU's DCN egress) they are all a collective reads.
    ///
    /// `price` and `power` are for serving figures (cost and joules per token).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
    pub enum ChipField {
        /// Display name (text).
        Name = "name",
        /// Dense fp32 peak, FLOPs/s.
        Fp32 = "fp32",
        /// Dense tf32 peak, FLOPs/s.
        Tf32 = "tf32",
        /// Dense bf16 peak, FLOPs/s.
        Bf16 = "bf16",
        /// Dense fp16 peak, FLOPs/s.
        Fp16 = "fp16",
        /// Dense fp8 peak (e4m3 and e5m2), FLOPs/s.
        Fp8 = "fp8",
        /// Dense int8 peak, OPs/s.
        Int8 = "int8",
        /// Dense int4 peak, OPs/s.
        Int4 = "int4",
        /// Dense fp4 peak, FLOPs/s.
        Fp4 = "fp4",
        /// Vector unit (TPU VPU, GPU CUDA cores) FLOPs/s: runs dot products and elementwise ops.
        Vpu = "vpu",
        /// HBM (device memory) bandwidth, bytes/s.
        Hbm = "hbm",
        /// HBM capacity, bytes.
        HbmCap = "hbm_cap",
        /// On-chip memory (TPU VMEM, GPU shared memory) bandwidth, bytes/s.
        Onchip = "onchip",
        /// On-chip memory capacity, bytes.
        OnchipCap = "onchip_cap",
        /// Host link (PCIe) bandwidth, bytes/s per direction.
        Pcie = "pcie",
        /// Scale-up link (TPU ICI, NVLink, Infinity Fabric) bandwidth, bytes/s per direction per
        /// link.
        Ici = "ici",
        /// Number of scale-up links per chip.
        Links = "links",
        /// Data-center network bandwidth, bytes/s per chip (on a GPU: its scale-out NIC, per
        /// direction).
        Dcn = "dcn",
        /// Dimensions of the TPU ICI torus (2 or 3).
        Torus = "torus",
        /// The axis length that brings wraparound links (see [`Chip::wraps`](super::Chip::wraps)):
        /// 4 on v4p/v5p (whole 4×4×4 cubes), 16 on v5e/v6e (a full pod axis).
        Wrap = "wrap",
        /// GPUs per node (the NVLink domain).
        Node = "node",
        /// Nodes under one set of leaf switches (a scalable unit).
        Leaf = "leaf",
        /// Latency per hop of the scale-up network (ICI, NVLink), seconds.
        HopLat = "hop_lat",
        /// Latency per hop of the scale-out network (InfiniBand, DCN), seconds.
        NetLat = "net_lat",
        /// Price, USD per chip-hour (serving cost per token).
        Price = "price",
        /// Power per chip, watts (serving joules per token).
        Power = "power",
    }
}

impl ChipField {
    /// A short human label (`HBM bandwidth`, `bf16 peak`, ...).
    pub fn label(self) -> &'static str {
        match self {
            ChipField::Name => "name",
            ChipField::Fp32 => "fp32 peak",
            ChipField::Tf32 => "tf32 peak",
            ChipField::Bf16 => "bf16 peak",
            ChipField::Fp16 => "fp16 peak",
            ChipField::Fp8 => "fp8 peak",
            ChipField::Int8 => "int8 peak",
            ChipField::Int4 => "int4 peak",
            ChipField::Fp4 => "fp4 peak",
            ChipField::Vpu => "vector unit",
            ChipField::Hbm => "HBM bandwidth",
            ChipField::HbmCap => "HBM capacity",
            ChipField::Onchip => "on-chip memory bandwidth",
            ChipField::OnchipCap => "on-chip memory capacity",
            ChipField::Pcie => "PCIe bandwidth",
            ChipField::Ici => "ICI/NVLink bandwidth per link",
            ChipField::Links => "scale-up links",
            ChipField::Dcn => "DCN bandwidth",
            ChipField::Torus => "torus dimensions",
            ChipField::Wrap => "wraparound axis length",
            ChipField::Node => "GPUs per node",
            ChipField::Leaf => "nodes per leaf (scalable unit)",
            ChipField::HopLat => "scale-up latency per hop",
            ChipField::NetLat => "scale-out latency per hop",
            ChipField::Price => "price (USD per chip-hour)",
            ChipField::Power => "power (W per chip)",
        }
    }

    /// The unit of the field's value (`None` for `name`).
    pub fn unit(self) -> Option<Unit> {
        match self {
            ChipField::Name => None,
            ChipField::Fp32
            | ChipField::Tf32
            | ChipField::Bf16
            | ChipField::Fp16
            | ChipField::Fp8
            | ChipField::Int8
            | ChipField::Int4
            | ChipField::Fp4
            | ChipField::Vpu => Some(Unit::FlopRate),
            ChipField::Hbm
            | ChipField::Onchip
            | ChipField::Pcie
            | ChipField::Ici
            | ChipField::Dcn => Some(Unit::ByteRate),
            ChipField::HbmCap | ChipField::OnchipCap => Some(Unit::Bytes),
            ChipField::Links
            | ChipField::Torus
            | ChipField::Wrap
            | ChipField::Node
            | ChipField::Leaf
            | ChipField::Price
            | ChipField::Power => Some(Unit::Count),
            ChipField::HopLat | ChipField::NetLat => Some(Unit::Seconds),
        }
    }

    /// Whether every chip has this field (`name`, `hbm`, `hbm_cap`); others may be absent.
    pub fn is_required(self) -> bool {
        matches!(self, ChipField::Name | ChipField::Hbm | ChipField::HbmCap)
    }

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

    /// The allowed range of a numeric field, `(min, max, integer)`: counts are whole
    /// (`links` 1 to 1024, `torus` 1 to 16, `wrap`, `node`, `leaf` 1 to 1e9), latencies from 0
    /// to 1000 s, everything else from 1 to 1e30.
    pub fn range(self) -> (f64, f64, bool) {
        match self {
            ChipField::Links => (1.0, 1024.0, true),
            ChipField::Torus => (1.0, 16.0, true),
            ChipField::Wrap | ChipField::Node | ChipField::Leaf => (1.0, 1e9, true),
            ChipField::HopLat | ChipField::NetLat => (0.0, 1e3, false),
            ChipField::Price | ChipField::Power => (1e-6, 1e30, false),
            _ => (1.0, 1e30, false),
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
