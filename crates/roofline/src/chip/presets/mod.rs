//! The preset catalog, pure data read by [`super`]: every number carries a source note and
//! the tier of that source; absent values say why.
//!
//! The catalog is split by vendor (`tpu.rs`, `nvidia.rs`, `others.rs`) because one file of
//! 23 chips of ~35 annotated lines each would be ~1,000 lines; this file holds the types,
//! the shared notes and the catalog order.
//!
//! Book figures ("scaling book") come from "How to Scale Your Model" (JAX scaling book):
//! part 1 "All About Rooflines" (in `shared/reference/`) and part 2 "How to Think About TPUs".
//! Where the book is silent, the vendor's published dense figure is used and the vendor page
//! named. Capacities are stored in the unit the source writes: "GB" as decimal (1e9 bytes),
//! "GiB" and "MiB" as binary (2^30, 2^20), so the page shows them as the vendor does.

mod nvidia;
mod others;
mod tpu;

use self::nvidia::*;
use self::others::*;
use self::tpu::*;
pub(crate) use super::evidence::Tier;
use super::Interconnect;

/// A disagreement between sources: the lowest and highest figure stated, and who states the
/// others (`(1.31e16, 1.5e16, "HGX page 108 PFLOPS per 8 ...")`).
pub(crate) type Range = (f64, f64, &'static str);

/// One value with its source note, the tier of that source (`None` only for an absent value:
/// its note says why it is absent) and, where sources disagree, the range they span.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Spec {
    pub v: Option<f64>,
    pub src: &'static str,
    pub tier: Option<Tier>,
    pub range: Option<Range>,
}

/// A source note as kept: the note itself, or empty without the `sources` feature (then the
/// text is not in the binary).
const fn note(src: &'static str) -> &'static str {
    if cfg!(feature = "sources") {
        src
    } else {
        ""
    }
}

const fn with(tier: Tier, v: f64, src: &'static str) -> Spec {
    Spec {
        v: Some(v),
        src: note(src),
        tier: Some(tier),
        range: None,
    }
}

/// A figure the reference text (the scaling book) states.
const fn book(v: f64, src: &'static str) -> Spec {
    with(Tier::ReferenceText, v, src)
}

/// A figure of the vendor's datasheet or product specification page.
const fn sheet(v: f64, src: &'static str) -> Spec {
    with(Tier::VendorDatasheet, v, src)
}

/// A figure of the vendor's documentation: whitepaper, technical blog, docs site, talk.
const fn docs(v: f64, src: &'static str) -> Spec {
    with(Tier::VendorDocs, v, src)
}

/// A figure only a third party states (a press report, a measurement, a copy of a vendor
/// table read second-hand, a library's constant).
const fn third(v: f64, src: &'static str) -> Spec {
    with(Tier::ThirdParty, v, src)
}

/// An absent value; the note says why.
const fn none(src: &'static str) -> Spec {
    Spec {
        v: None,
        src: note(src),
        tier: None,
        range: None,
    }
}

impl Spec {
    /// The same figure, noting that sources span `lo..=hi` (`other` says who states what).
    const fn range(self, lo: f64, hi: f64, other: &'static str) -> Spec {
        Spec {
            range: Some((lo, hi, note(other))),
            ..self
        }
    }
}

/// No NVLink-C2C: the host link is PCIe (every chip but the Grace superchips' GPUs).
pub(crate) const NO_C2C: Spec =
    none("no NVLink-C2C: the host CPU is reached over PCIe (the pcie field)");

/// A preset chip definition.
#[derive(Debug)]
pub(crate) struct PresetDef {
    pub id: &'static str,
    pub name: &'static str,
    pub name_src: &'static str,
    pub interconnect: Interconnect,
    pub fp32: Spec,
    pub tf32: Spec,
    pub bf16: Spec,
    pub fp16: Spec,
    pub fp8: Spec,
    pub int8: Spec,
    pub int4: Spec,
    pub fp4: Spec,
    pub vpu: Spec,
    pub hbm: Spec,
    pub hbm_cap: Spec,
    pub onchip: Spec,
    pub onchip_cap: Spec,
    pub pcie: Spec,
    pub c2c: Spec,
    pub ici: Spec,
    pub links: Spec,
    pub dcn: Spec,
    pub torus: Spec,
    pub wrap: Spec,
    pub node: Spec,
    pub leaf: Spec,
    pub hop_lat: Spec,
    pub net_lat: Spec,
    pub price: Spec,
    pub power: Spec,
}

/// The catalog, in its published order (new chips are appended: ids in links never move).
pub(crate) static PRESETS: [&PresetDef; 23] = [
    &TPU_V4P,
    &TPU_V5E,
    &TPU_V5P,
    &TPU_V6E,
    &TPU7X,
    &A100,
    &H100,
    &H200,
    &B200,
    &MI300X,
    &L4,
    // The chips of 2026 (issue 23).
    &H800,
    &H20,
    &B300,
    &MI325X,
    &MI355X,
    &TRN2,
    &TRN3,
    &GAUDI3,
    &RTX_5090,
    &RTX_PRO_6000,
    // The Grace Blackwell racks (issue 40: the serving-at-load set's GB200 rows).
    &GB200,
    &GB300,
];

/// Device names as profilers report them (nvidia-smi, Nsight, `torch.cuda.get_device_name`,
/// ROCm, JAX's `device_kind`), per preset: each pattern is a run of whole words matched
/// case-insensitively, and the longest matching pattern wins (`TPU v5 lite` before `TPU v5`).
/// A pattern names the family; the preset holds its named variant's figures (an
/// "A100-PCIE-40GB" maps to `a100`, the SXM 80GB). GB200 and GB300 name their own presets:
/// Grace superchips whose GPUs run a higher power and clock bin than `b200` / `b300`.
pub(crate) static DEVICE_NAMES: &[(&str, &[&str])] = &[
    ("tpu-v4p", &["tpu v4", "tpu v4p"]),
    ("tpu-v5e", &["tpu v5 lite", "tpu v5e", "tpu v5litepod"]),
    ("tpu-v5p", &["tpu v5", "tpu v5p"]),
    ("tpu-v6e", &["tpu v6 lite", "tpu v6e", "trillium"]),
    ("tpu7x", &["tpu7x", "tpu 7x", "ironwood"]),
    ("a100", &["a100"]),
    ("h100", &["h100"]),
    ("h200", &["h200"]),
    ("b200", &["b200"]),
    ("mi300x", &["mi300x"]),
    ("l4", &["l4"]),
    ("h800", &["h800"]),
    ("h20", &["h20"]),
    ("b300", &["b300"]),
    ("mi325x", &["mi325x"]),
    ("mi355x", &["mi355x"]),
    ("trn2", &["trainium2", "trn2"]),
    ("trn3", &["trainium3", "trn3"]),
    ("gaudi3", &["gaudi 3", "gaudi3", "hl 325l"]),
    ("rtx-5090", &["rtx 5090"]),
    ("rtx-pro-6000", &["rtx pro 6000"]),
    ("gb200", &["gb200"]),
    ("gb300", &["gb300"]),
];

pub(crate) fn find(id: &str) -> Option<&'static PresetDef> {
    PRESETS.iter().copied().find(|p| p.id == id)
}

const NO_PRICE: &str = "no price in the references for this chip (prices vary by provider and contract); set price= (USD per chip-hour) for cost per token";
const NO_POWER: &str = "no power figure in the references for this chip; set power= (watts per chip) for joules per token";
const TPU_NO_FP32: &str = "no fp32 MXU peak published: TPU MXUs multiply bf16 (fp32 matmuls run as several bf16 passes); left empty";
const TPU_NO_TF32: &str = "TPUs have no tf32 mode; left empty";
const TPU_NO_FP16: &str = "TPUs compute in bf16; no fp16 peak is published; left empty";
const TPU_NO_INT4: &str = "no int4 peak given in the scaling book for this chip; left empty";
const TPU_NO_FP4: &str = "no fp4 support published for this chip; left empty";
const TPU_NO_ONCHIP: &str = "VMEM bandwidth is not published as a figure (the scaling book only says it is much higher than HBM's); left empty: set it to model weights streamed from VMEM";
const TPU_NO_PCIE: &str =
    "host PCIe bandwidth not given in the scaling book for this chip; left empty";

const GPU_NO_ONCHIP: &str =
    "shared-memory/L1 bandwidth is not published as a single chip-wide figure; left empty";
const GPU_NO_ONCHIP_CAP: &str =
    "on-chip SRAM is split into per-SM shared memory and L2; not modelled as one capacity; left empty";

const ICI_LAT: Spec = book(1e-6, "scaling book, sharding.md, \"A note on ICI latency\": each ICI hop has an overhead \"typically around 1us\"");
const TPU_NO_NET_LAT: Spec =
    none("no per-hop DCN latency is given in the scaling book; left empty");
const TPU_NO_NODE: Spec =
    none("a TPU has no NVLink node: its chips form an ICI torus (see torus, wrap)");
const TPU_NO_LEAF: Spec = none("TPU slices are joined over the DCN, not leaf switches; left empty");
const CUBE_WRAP: Spec = book(4.0, "scaling book, tpus.md: \"Any multiple of a full cube (e.g. 4x4x4 or 4x4x8) will have wraparounds\"; \"a 2x2x4 won't have any\" (slices of whole 4x4x4 cubes)");
const POD16_WRAP: Spec = book(16.0, "scaling book, tpus.md: \"a single 16x16 2D torus with wraparounds along any axis of size 16 (meaning an 8x16 has a wraparound on the long axis)\"");
const TORUS3: Spec = book(
    3.0,
    "scaling book, tpus.md, \"TPU Networking\": a 3D torus (6 nearest neighbours)",
);
const TORUS2: Spec = book(
    2.0,
    "scaling book, tpus.md, \"TPU Networking\": a 2D torus (4 nearest neighbours)",
);
const GPU_NO_TORUS: Spec = none("GPUs are switched, not a torus");
const NCCL_NVLINK_LAT: Spec = third(6e-7, "NCCL src/graph/tuning.cc (commit b6475625), hwLat[NVLINK][Ring][LL] = 0.6 µs per ring step (LL128 1.9, Simple 3.4); plus a 6.6 µs base per call, not modelled");
const NCCL_NET_LAT: Spec = third(2.7e-6, "NCCL src/graph/tuning.cc (commit b6475625), hwLat[NET][Ring][LL] = 2.7 µs per inter-node step (LL128 4.0, Simple 14); plus a 6.6 µs base per call, not modelled");

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chip::{Chip, ChipField};

    #[test]
    fn every_field_has_a_source_and_valid_value() {
        for p in PRESETS {
            for f in ChipField::ALL {
                let spec = p.spec(f);
                assert!(spec.src.len() > 10, "{} {f}", p.id);
                if let Some(v) = spec.v {
                    assert!(Chip::validate(f, v).is_ok(), "{} {f}={v}", p.id);
                    assert!(spec.tier.is_some(), "{} {f}: a figure needs a tier", p.id);
                } else {
                    assert!(spec.tier.is_none() && spec.range.is_none(), "{} {f}", p.id);
                }
                if let Some((lo, hi, other)) = spec.range {
                    let v = spec.v.unwrap();
                    assert!(
                        lo < hi && lo <= v && v <= hi,
                        "{} {f}: {v} not in {lo}..{hi}",
                        p.id
                    );
                    assert!(other.len() > 10, "{} {f}", p.id);
                }
            }
            assert!(p.hbm.v.is_some() && p.hbm_cap.v.is_some() && p.bf16.v.is_some());
        }
    }
}
