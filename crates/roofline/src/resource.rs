//! The shared vocabulary of a roofline: the resources bytes move over, what bounds an
//! operation, and which unit its FLOPs run on.

use crate::dtype::PeakKey;
use serde::{Deserialize, Serialize};

id_enum! {
    /// A resource bytes move over (ids `hbm`, `onchip`, `pcie`, `ici`, `nvlink`, `dcn`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
    pub enum Resource {
        /// HBM (device memory).
        Hbm = "hbm",
        /// On-chip memory (VMEM).
        Onchip = "onchip",
        /// The host link.
        Pcie = "pcie",
        /// TPU inter-chip interconnect.
        Ici = "ici",
        /// NVLink.
        Nvlink = "nvlink",
        /// Data-center network.
        Dcn = "dcn",
    }
}

impl Resource {
    /// A display label (`HBM`, `on-chip memory`, `PCIe`, `ICI`, `NVLink`, `DCN`).
    pub fn label(self) -> &'static str {
        match self {
            Resource::Hbm => "HBM",
            Resource::Onchip => "on-chip memory",
            Resource::Pcie => "PCIe",
            Resource::Ici => "ICI",
            Resource::Nvlink => "NVLink",
            Resource::Dcn => "DCN",
        }
    }

    /// The time symbol used in derivations (`T_hbm`, `T_ici`, ...).
    pub fn time_symbol(self) -> &'static str {
        match self {
            Resource::Hbm => "T_hbm",
            Resource::Onchip => "T_onchip",
            Resource::Pcie => "T_pcie",
            Resource::Ici => "T_ici",
            Resource::Nvlink => "T_nvlink",
            Resource::Dcn => "T_dcn",
        }
    }

    /// The bound an operation has when this resource binds: memory for HBM and on-chip
    /// memory, network for links (PCIe, ICI, NVLink, DCN).
    pub fn bound(self) -> Bound {
        match self {
            Resource::Hbm | Resource::Onchip => Bound::Memory,
            _ => Bound::Network,
        }
    }
}

id_enum! {
    /// What limits an operation (ids `compute`, `memory`, `network`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
    pub enum Bound {
        /// `T_math ≥ T_comms` (ties count as compute-bound).
        Compute = "compute",
        /// HBM or on-chip memory binds.
        Memory = "memory",
        /// A link (PCIe, ICI, NVLink, DCN) binds.
        Network = "network",
    }
}

/// Which unit the FLOPs run on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExecUnit {
    /// The vector unit (`chip.vpu`): dot products and elementwise ops when present.
    Vector,
    /// The matrix peak of a dtype.
    Peak(PeakKey),
}
