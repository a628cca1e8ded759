//! The preset catalog, pure data read by [`super`]: every number carries a source note;
//! absent values say why.
//!
//! Book figures ("scaling book") come from "How to Scale Your Model" (JAX scaling book):
//! part 1 "All About Rooflines" (in `shared/reference/`) and part 2 "How to Think About TPUs".
//! Where the book is silent, the vendor's published dense figure is used and the vendor page
//! named. Capacities written "GB" by a vendor are read as decimal (1e9 bytes); "MiB" as binary.

use super::Interconnect;

/// One value with its source note.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Spec {
    pub v: Option<f64>,
    pub src: &'static str,
}

const fn s(v: f64, src: &'static str) -> Spec {
    Spec { v: Some(v), src }
}

const fn none(src: &'static str) -> Spec {
    Spec { v: None, src }
}

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

pub(crate) fn find(id: &str) -> Option<&'static PresetDef> {
    PRESETS.iter().find(|p| p.id == id)
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

const ICI_LAT: Spec = s(1e-6, "scaling book, sharding.md, \"A note on ICI latency\": each ICI hop has an overhead \"typically around 1us\"");
const TPU_NO_NET_LAT: Spec =
    none("no per-hop DCN latency is given in the scaling book; left empty");
const TPU_NO_NODE: Spec =
    none("a TPU has no NVLink node: its chips form an ICI torus (see torus, wrap)");
const TPU_NO_LEAF: Spec = none("TPU slices are joined over the DCN, not leaf switches; left empty");
const CUBE_WRAP: Spec = s(4.0, "scaling book, tpus.md: \"Any multiple of a full cube (e.g. 4x4x4 or 4x4x8) will have wraparounds\"; \"a 2x2x4 won't have any\" (slices of whole 4x4x4 cubes)");
const POD16_WRAP: Spec = s(16.0, "scaling book, tpus.md: \"a single 16x16 2D torus with wraparounds along any axis of size 16 (meaning an 8x16 has a wraparound on the long axis)\"");
const TORUS3: Spec = s(
    3.0,
    "scaling book, tpus.md, \"TPU Networking\": a 3D torus (6 nearest neighbours)",
);
const TORUS2: Spec = s(
    2.0,
    "scaling book, tpus.md, \"TPU Networking\": a 2D torus (4 nearest neighbours)",
);
const GPU_NO_TORUS: Spec = none("GPUs are switched, not a torus");
const NCCL_NVLINK_LAT: Spec = s(6e-7, "NCCL src/graph/tuning.cc (commit b6475625), hwLat[NVLINK][Ring][LL] = 0.6 µs per ring step (LL128 1.9, Simple 3.4); plus a 6.6 µs base per call, not modelled");
const NCCL_NET_LAT: Spec = s(2.7e-6, "NCCL src/graph/tuning.cc (commit b6475625), hwLat[NET][Ring][LL] = 2.7 µs per inter-node step (LL128 4.0, Simple 14); plus a 6.6 µs base per call, not modelled");

pub(crate) static PRESETS: [PresetDef; 11] = [
    PresetDef {
        id: "tpu-v4p",
        name: "TPU v4p",
        name_src: "Google Cloud TPU v4 (the scaling book calls it v4p)",
        interconnect: Interconnect::PointToPoint,
        fp32: none(TPU_NO_FP32),
        tf32: none(TPU_NO_TF32),
        bf16: s(2.75e14, "scaling book, TPU chapter, chip table: TPU v4p 2.75e14 bf16 FLOPs/s"),
        fp16: none(TPU_NO_FP16),
        fp8: none("no fp8 MXU mode on TPU v4; left empty"),
        int8: s(2.75e14, "scaling book, TPU chapter, chip table: int8 OPs/s equal bf16 on v4 (2.75e14)"),
        int4: none(TPU_NO_INT4),
        fp4: none(TPU_NO_FP4),
        vpu: none("the scaling book gives a VPU figure only for v5p; left empty (vector ops then run at the dtype's peak)"),
        hbm: s(1.2e12, "scaling book, TPU chapter, chip table: 1.2e12 bytes/s HBM bandwidth"),
        hbm_cap: s(32e9, "scaling book, TPU chapter, chip table: 32 GB HBM; read as 32e9 decimal bytes"),
        onchip: none(TPU_NO_ONCHIP),
        onchip_cap: none("VMEM size of v4p not given in the scaling book; left empty"),
        pcie: none(TPU_NO_PCIE),
        ici: s(4.5e10, "scaling book, TPU chapter, ICI table: v4p 4.5e10 bytes/s one-way per link (9e10 bidirectional)"),
        links: s(6.0, "3D torus: 6 ICI neighbours per chip (scaling book, TPU chapter)"),
        dcn: s(6.25e9, "scaling book, tpus.md: DCN \"typically around 6.25e9 bytes / second per TPU\" (no v4-specific figure given)"),
        torus: TORUS3,
        wrap: CUBE_WRAP,
        node: TPU_NO_NODE,
        leaf: TPU_NO_LEAF,
        hop_lat: ICI_LAT,
        net_lat: TPU_NO_NET_LAT,
        price: none(NO_PRICE),
        power: none(NO_POWER),
    },
    PresetDef {
        id: "tpu-v5e",
        name: "TPU v5e",
        name_src: "Google Cloud TPU v5e",
        interconnect: Interconnect::PointToPoint,
        fp32: none(TPU_NO_FP32),
        tf32: none(TPU_NO_TF32),
        bf16: s(1.97e14, "scaling book, All About Rooflines: \"the TPU can perform 1.97e14 FLOPs/s\" (v5e MXU, bf16)"),
        fp16: none(TPU_NO_FP16),
        fp8: none("no fp8 MXU mode on TPU v5e; left empty"),
        int8: s(3.94e14, "scaling book, All About Rooflines, question 1: \"int8 peak OPs/s is 3.94e14 (about 2x bfloat16)\""),
        int4: none(TPU_NO_INT4),
        fp4: none(TPU_NO_FP4),
        vpu: none("the scaling book gives a VPU figure only for v5p (~7e12); left empty, so vector ops run at the dtype's peak"),
        hbm: s(8.2e11, "scaling book, All About Rooflines: \"load 8.2e11 bytes/s from HBM\" (question 1 quotes 8.1e11; the app follows 8.2e11)"),
        hbm_cap: s(16e9, "scaling book, TPU chapter, chip table: 16 GB HBM; read as 16e9 decimal bytes"),
        onchip: none(TPU_NO_ONCHIP),
        onchip_cap: s(134_217_728.0, "scaling book, TPU chapter: VMEM is 128 MiB on TPU v5e (binary: 128 × 2^20 bytes)"),
        pcie: none(TPU_NO_PCIE),
        ici: s(4.5e10, "scaling book, All About Rooflines: \"copy 4.5e10 bytes in each direction\" (TPU chapter: v5e ICI one-way per link)"),
        links: s(4.0, "2D torus: 4 ICI neighbours per chip (scaling book, TPU chapter)"),
        dcn: s(3.125e9, "scaling book, tpus.md: \"v5e has 3.125e9 bytes/s\" of DCN per TPU"),
        torus: TORUS2,
        wrap: POD16_WRAP,
        node: TPU_NO_NODE,
        leaf: TPU_NO_LEAF,
        hop_lat: s(1e-6, "scaling book, tpus.md, question 5: \"the per-hop latency for TPU v5e is 1us\""),
        net_lat: TPU_NO_NET_LAT,
        price: s(1.2, "scaling book, applied inference (Google Cloud TPU pricing, February 2025): TPU v5e $1.2 per chip-hour"),
        power: none(NO_POWER),
    },
    PresetDef {
        id: "tpu-v5p",
        name: "TPU v5p",
        name_src: "Google Cloud TPU v5p",
        interconnect: Interconnect::PointToPoint,
        fp32: none(TPU_NO_FP32),
        tf32: none(TPU_NO_TF32),
        bf16: s(4.59e14, "scaling book, TPU chapter, chip table: TPU v5p 4.59e14 bf16 FLOPs/s"),
        fp16: none(TPU_NO_FP16),
        fp8: none("no fp8 MXU mode on TPU v5p; left empty"),
        int8: s(9.18e14, "scaling book, TPU chapter, chip table: v5p 9.18e14 int8 OPs/s"),
        int4: none(TPU_NO_INT4),
        fp4: none(TPU_NO_FP4),
        vpu: s(7e12, "scaling book, All About Rooflines, footnote: \"The TPU v5p VPU can do roughly 7e12 FLOPs / second\""),
        hbm: s(2.8e12, "scaling book, TPU chapter, chip table: 2.8e12 bytes/s HBM bandwidth"),
        hbm_cap: s(96e9, "scaling book, TPU chapter, chip table: 96 GB HBM; read as 96e9 decimal bytes"),
        onchip: none(TPU_NO_ONCHIP),
        onchip_cap: none("VMEM size of v5p not given in the scaling book; left empty"),
        pcie: none(TPU_NO_PCIE),
        ici: s(9e10, "scaling book, TPU chapter, ICI table: v5p 9e10 bytes/s one-way per link (1.8e11 bidirectional)"),
        links: s(6.0, "3D torus: 6 ICI neighbours per chip (scaling book, TPU chapter)"),
        dcn: s(6.25e9, "scaling book, tpus.md: v5p has \"6.25e9 bytes/s (6.25 GB/s) of DCN (egress) bandwidth per TPU\""),
        torus: TORUS3,
        wrap: CUBE_WRAP,
        node: TPU_NO_NODE,
        leaf: TPU_NO_LEAF,
        hop_lat: ICI_LAT,
        net_lat: TPU_NO_NET_LAT,
        price: s(4.2, "scaling book, applied inference (Google Cloud TPU pricing, February 2025): TPU v5p $4.2 per chip-hour"),
        power: none(NO_POWER),
    },
    PresetDef {
        id: "tpu-v6e",
        name: "TPU v6e",
        name_src: "Google Cloud TPU v6e (Trillium)",
        interconnect: Interconnect::PointToPoint,
        fp32: none(TPU_NO_FP32),
        tf32: none(TPU_NO_TF32),
        bf16: s(9.2e14, "scaling book, TPU chapter, chip table: TPU v6e 9.20e14 bf16 FLOPs/s (the rooflines chapter's intro rounds to 9.1e14)"),
        fp16: none(TPU_NO_FP16),
        fp8: none("no fp8 peak given for v6e in the scaling book; left empty"),
        int8: s(1.84e15, "scaling book, TPU chapter, chip table: v6e 1.84e15 int8 OPs/s"),
        int4: none(TPU_NO_INT4),
        fp4: none(TPU_NO_FP4),
        vpu: none("no VPU figure for v6e in the scaling book; left empty, so vector ops run at the dtype's peak"),
        hbm: s(1.6e12, "scaling book, All About Rooflines: \"on TPU v6e this is about 1.6TB/s\" (Google Cloud TPU v6e page)"),
        hbm_cap: s(32e9, "scaling book, TPU chapter, chip table: 32 GB HBM; read as 32e9 decimal bytes"),
        onchip: none(TPU_NO_ONCHIP),
        onchip_cap: none("VMEM size of v6e not given in the scaling book; left empty"),
        pcie: s(1.6e10, "scaling book, TPU chapter, PCIe worked example: 1.6e10 bytes/s host-to-HBM on v6e"),
        ici: s(9e10, "scaling book, TPU chapter, ICI table: v6e 9e10 bytes/s one-way per link"),
        links: s(4.0, "2D torus: 4 ICI neighbours per chip (scaling book, TPU chapter)"),
        dcn: s(1.25e10, "scaling book, tpus.md: \"TPU v6e and TPU7x have 12.5e9 bytes/s\" of DCN"),
        torus: TORUS2,
        wrap: s(16.0, "scaling book, tpus.md: \"TPU v5e and Trillium pods consist of a single 16x16 2D torus with wraparounds along any axis of size 16\""),
        node: TPU_NO_NODE,
        leaf: TPU_NO_LEAF,
        hop_lat: ICI_LAT,
        net_lat: TPU_NO_NET_LAT,
        price: none(NO_PRICE),
        power: none(NO_POWER),
    },
    PresetDef {
        id: "tpu7x",
        name: "TPU7x",
        name_src: "Google TPU7x (Ironwood)",
        interconnect: Interconnect::PointToPoint,
        fp32: none(TPU_NO_FP32),
        tf32: none(TPU_NO_TF32),
        bf16: s(2.3e15, "scaling book, TPU chapter, chip table: TPU7x 2.3e15 bf16 FLOPs/s (half of Google's fp8 figure)"),
        fp16: none(TPU_NO_FP16),
        fp8: s(4.614e15, "Google Ironwood announcement: 4,614 TFLOPs (fp8) peak per chip"),
        int8: none("no int8 figure published for Ironwood; left empty"),
        int4: none(TPU_NO_INT4),
        fp4: none(TPU_NO_FP4),
        vpu: none("no VPU figure for TPU7x; left empty, so vector ops run at the dtype's peak"),
        hbm: s(7.4e12, "scaling book, TPU chapter, chip table: 7.4e12 bytes/s (Google: 7.37 TB/s per chip)"),
        hbm_cap: s(192e9, "scaling book / Google Ironwood announcement: 192 GB HBM per chip; read as 192e9 decimal bytes"),
        onchip: none(TPU_NO_ONCHIP),
        onchip_cap: none("VMEM size of TPU7x not published; left empty"),
        pcie: none(TPU_NO_PCIE),
        ici: none("Google gives Ironwood's ICI only per chip (1.2 TB/s bidirectional), not per link; left empty"),
        links: none("link count of TPU7x not confirmed; left empty"),
        dcn: s(1.25e10, "scaling book, tpus.md: \"TPU v6e and TPU7x have 12.5e9 bytes/s\" of DCN"),
        torus: s(3.0, "scaling book, tpus.md, chip table: pod 4x4x576 (3D)"),
        wrap: s(4.0, "assumed as v5p: Google's TPU7x page says it \"shares many similarities with TPU v5p\" (4x4x4 cubes joined by optical switches); the scaling book gives no TPU7x wraparound rule"),
        node: TPU_NO_NODE,
        leaf: TPU_NO_LEAF,
        hop_lat: ICI_LAT,
        net_lat: TPU_NO_NET_LAT,
        price: none(NO_PRICE),
        power: none(NO_POWER),
    },
    PresetDef {
        id: "a100",
        name: "A100 SXM",
        name_src: "NVIDIA A100 SXM4 80GB",
        interconnect: Interconnect::Switch,
        fp32: s(1.95e13, "NVIDIA A100 datasheet: FP32 19.5 TFLOPS"),
        tf32: s(1.56e14, "NVIDIA A100 datasheet: TF32 Tensor Core 156 TFLOPS dense (312 with sparsity)"),
        bf16: s(3.12e14, "NVIDIA A100 datasheet: BF16 Tensor Core 312 TFLOPS dense (624 with sparsity); the scaling book rounds to 3.1e14"),
        fp16: s(3.12e14, "NVIDIA A100 datasheet: FP16 Tensor Core 312 TFLOPS dense (624 with sparsity)"),
        fp8: none("Ampere has no fp8 tensor cores: no fp8 peak"),
        int8: s(6.24e14, "NVIDIA A100 datasheet: INT8 Tensor Core 624 TOPS dense (1,248 with sparsity)"),
        int4: s(1.248e15, "NVIDIA A100 Tensor Core architecture whitepaper: INT4 Tensor Core 1,248 TOPS dense (2,496 with sparsity)"),
        fp4: none("Ampere has no fp4 tensor cores: no fp4 peak"),
        vpu: s(1.95e13, "NVIDIA A100 datasheet: FP32 19.5 TFLOPS on CUDA cores, used as the vector unit"),
        hbm: s(2.039e12, "NVIDIA A100 datasheet (80GB SXM): 2,039 GB/s HBM2e; the scaling book rounds to 2.0e12"),
        hbm_cap: s(80e9, "NVIDIA A100 datasheet: 80 GB HBM2e; read as 80e9 decimal bytes"),
        onchip: none(GPU_NO_ONCHIP),
        onchip_cap: none(GPU_NO_ONCHIP_CAP),
        pcie: s(3.2e10, "NVIDIA A100 datasheet: PCIe Gen4 64 GB/s (both directions) → 3.2e10 bytes/s per direction"),
        ici: s(2.5e10, "NVIDIA A100 datasheet: NVLink 600 GB/s (both directions) over 12 links → 25 GB/s per link per direction"),
        links: s(12.0, "NVIDIA A100 architecture whitepaper: 12 third-generation NVLink links"),
        dcn: s(2.5e10, "NVIDIA DGX A100 datasheet: 8× 200 Gb/s HDR InfiniBand (one per GPU) → 2.5e10 bytes/s per GPU"),
        torus: GPU_NO_TORUS,
        wrap: GPU_NO_TORUS,
        node: s(8.0, "scaling book, gpus.md, NVLink table: Ampere node of 8 GPUs (6 NVSwitches)"),
        leaf: s(20.0, "NVIDIA DGX SuperPOD (DGX A100) reference architecture: scalable units of 20 nodes"),
        hop_lat: NCCL_NVLINK_LAT,
        net_lat: NCCL_NET_LAT,
        price: none(NO_PRICE),
        power: none(NO_POWER),
    },
    PresetDef {
        id: "h100",
        name: "H100 SXM",
        name_src: "NVIDIA H100 SXM5 80GB",
        interconnect: Interconnect::Switch,
        fp32: s(6.7e13, "NVIDIA H100 datasheet (SXM): FP32 67 TFLOPS"),
        tf32: s(4.945e14, "NVIDIA H100 datasheet (SXM): TF32 Tensor Core 989 TFLOPS with sparsity → 4.945e14 dense"),
        bf16: s(9.89e14, "scaling book, All About Rooflines: \"an NVIDIA H100 can perform about 9.89e14 bfloat16 FLOPs/s\" (datasheet: 1,979 TFLOPS with sparsity)"),
        fp16: s(9.89e14, "NVIDIA H100 datasheet (SXM): FP16 Tensor Core 1,979 TFLOPS with sparsity → 9.89e14 dense (as the book rounds bf16)"),
        fp8: s(1.979e15, "NVIDIA H100 datasheet (SXM): FP8 Tensor Core 3,958 TFLOPS with sparsity → 1.979e15 dense"),
        int8: s(1.979e15, "NVIDIA H100 datasheet (SXM): INT8 Tensor Core 3,958 TOPS with sparsity → 1.979e15 dense"),
        int4: none("the H100 datasheet lists no int4 tensor-core mode: no int4 peak"),
        fp4: none("Hopper has no fp4 tensor cores: no fp4 peak"),
        vpu: s(6.7e13, "NVIDIA H100 datasheet (SXM): FP32 67 TFLOPS on CUDA cores, used as the vector unit"),
        hbm: s(3.35e12, "scaling book, All About Rooflines: \"On an H100, this is about 3.35TB/s\" (NVIDIA H100 datasheet)"),
        hbm_cap: s(80e9, "NVIDIA H100 datasheet (SXM): 80 GB HBM3; read as 80e9 decimal bytes"),
        onchip: none(GPU_NO_ONCHIP),
        onchip_cap: none(GPU_NO_ONCHIP_CAP),
        pcie: s(6.4e10, "NVIDIA H100 datasheet (SXM): PCIe Gen5 128 GB/s (both directions) → 6.4e10 bytes/s per direction"),
        ici: s(2.5e10, "NVIDIA H100 datasheet: NVLink 900 GB/s (both directions) = 450 GB/s per direction over 18 links → 25 GB/s per link"),
        links: s(18.0, "NVIDIA H100 datasheet: 18 fourth-generation NVLink links"),
        dcn: s(5e10, "NVIDIA DGX H100 datasheet: 8× ConnectX-7 400 Gb/s (one per GPU) → 5e10 bytes/s per GPU"),
        torus: GPU_NO_TORUS,
        wrap: GPU_NO_TORUS,
        node: s(8.0, "scaling book, gpus.md: \"for H100, we have 4 NVSwitches per node\" and 8 GPUs"),
        leaf: s(32.0, "scaling book, gpus.md: \"Each set of 32 nodes is called a Scalable Unit (or SU), under a single set of 8 leaf InfiniBand switches\""),
        hop_lat: NCCL_NVLINK_LAT,
        net_lat: NCCL_NET_LAT,
        price: s(10.8, "scaling book, applied inference (Google Cloud pricing, February 2025): H100 $10.8 per chip-hour"),
        power: s(700.0, "NVIDIA H100 Tensor Core GPU datasheet: max thermal design power up to 700 W (SXM)"),
    },
    PresetDef {
        id: "h200",
        name: "H200 SXM",
        name_src: "NVIDIA H200 SXM 141GB",
        interconnect: Interconnect::Switch,
        fp32: s(6.7e13, "NVIDIA H200 datasheet (SXM): FP32 67 TFLOPS"),
        tf32: s(4.945e14, "NVIDIA H200 datasheet (SXM): TF32 Tensor Core 989 TFLOPS with sparsity → 4.945e14 dense"),
        bf16: s(9.89e14, "NVIDIA H200 datasheet (SXM): BF16 Tensor Core 1,979 TFLOPS with sparsity → 9.89e14 dense (same compute as H100)"),
        fp16: s(9.89e14, "NVIDIA H200 datasheet (SXM): FP16 Tensor Core 1,979 TFLOPS with sparsity → 9.89e14 dense"),
        fp8: s(1.979e15, "NVIDIA H200 datasheet (SXM): FP8 Tensor Core 3,958 TFLOPS with sparsity → 1.979e15 dense"),
        int8: s(1.979e15, "NVIDIA H200 datasheet (SXM): INT8 Tensor Core 3,958 TOPS with sparsity → 1.979e15 dense"),
        int4: none("the H200 datasheet lists no int4 tensor-core mode: no int4 peak"),
        fp4: none("Hopper has no fp4 tensor cores: no fp4 peak"),
        vpu: s(6.7e13, "NVIDIA H200 datasheet (SXM): FP32 67 TFLOPS on CUDA cores, used as the vector unit"),
        hbm: s(4.8e12, "NVIDIA H200 datasheet: 4.8 TB/s HBM3e"),
        hbm_cap: s(141e9, "NVIDIA H200 datasheet: 141 GB HBM3e; read as 141e9 decimal bytes"),
        onchip: none(GPU_NO_ONCHIP),
        onchip_cap: none(GPU_NO_ONCHIP_CAP),
        pcie: s(6.4e10, "NVIDIA H200 datasheet: PCIe Gen5 128 GB/s (both directions) → 6.4e10 bytes/s per direction"),
        ici: s(2.5e10, "NVIDIA H200 datasheet: NVLink 900 GB/s (both directions) over 18 links → 25 GB/s per link per direction"),
        links: s(18.0, "NVIDIA H200 datasheet: 18 fourth-generation NVLink links (as H100)"),
        dcn: s(5e10, "NVIDIA DGX H200 datasheet: 8× ConnectX-7 400 Gb/s (one per GPU) → 5e10 bytes/s per GPU"),
        torus: GPU_NO_TORUS,
        wrap: GPU_NO_TORUS,
        node: s(8.0, "scaling book, gpus.md, NVLink table: Hopper node of 8 GPUs"),
        leaf: s(32.0, "as the scaling book's DGX H100 SuperPod: scalable units of 32 nodes"),
        hop_lat: NCCL_NVLINK_LAT,
        net_lat: NCCL_NET_LAT,
        price: none(NO_PRICE),
        power: none(NO_POWER),
    },
    PresetDef {
        id: "b200",
        name: "B200",
        name_src: "NVIDIA B200 (HGX/DGX B200)",
        interconnect: Interconnect::Switch,
        fp32: none("no per-GPU FP32 figure confirmed for B200; left empty"),
        tf32: s(1.125e15, "NVIDIA HGX B200 datasheet: TF32 Tensor Core 18 PFLOPS per 8 GPUs with sparsity → 1.125e15 dense per GPU"),
        bf16: s(2.25e15, "scaling book, GPU chapter: B200 2.25e15 dense bf16 (HGX B200: 36 PFLOPS per 8 GPUs with sparsity)"),
        fp16: s(2.25e15, "NVIDIA HGX B200 datasheet: FP16 Tensor Core 36 PFLOPS per 8 GPUs with sparsity → 2.25e15 dense per GPU"),
        fp8: s(4.5e15, "NVIDIA HGX B200 datasheet: FP8 Tensor Core 72 PFLOPS per 8 GPUs with sparsity → 4.5e15 dense per GPU"),
        int8: s(4.5e15, "NVIDIA HGX B200 datasheet: INT8 Tensor Core 72 POPS per 8 GPUs with sparsity → 4.5e15 dense per GPU"),
        int4: none("Blackwell lists no int4 tensor-core mode: no int4 peak"),
        fp4: s(9e15, "NVIDIA HGX B200 datasheet: FP4 Tensor Core 144 PFLOPS per 8 GPUs with sparsity → 9e15 dense per GPU"),
        vpu: none("no per-GPU CUDA-core FP32 figure confirmed for B200; left empty, so vector ops run at the dtype's peak"),
        hbm: s(8e12, "scaling book, GPU chapter: B200 8e12 bytes/s HBM3e (NVIDIA: 8 TB/s per GPU)"),
        hbm_cap: s(192e9, "scaling book, GPU chapter: B200 192 GB HBM3e; read as 192e9 decimal bytes"),
        onchip: none(GPU_NO_ONCHIP),
        onchip_cap: none(GPU_NO_ONCHIP_CAP),
        pcie: none("host link of B200 boards not confirmed (Gen5 or Gen6); left empty"),
        ici: s(5e10, "NVIDIA Blackwell: NVLink 5 1.8 TB/s (both directions) per GPU over 18 links → 50 GB/s per link per direction"),
        links: s(18.0, "NVIDIA Blackwell: 18 fifth-generation NVLink links per GPU"),
        dcn: s(5e10, "NVIDIA DGX B200 datasheet: 8× ConnectX-7 400 Gb/s (one per GPU) → 5e10 bytes/s per GPU"),
        torus: GPU_NO_TORUS,
        wrap: GPU_NO_TORUS,
        node: s(8.0, "scaling book, gpus.md: \"Blackwell (B200) has nodes of 8 GPUs\""),
        leaf: s(32.0, "NVIDIA DGX SuperPOD (DGX B200) reference architecture, linked from the book's quiz 5: scalable units of 32 nodes"),
        hop_lat: NCCL_NVLINK_LAT,
        net_lat: NCCL_NET_LAT,
        price: none(NO_PRICE),
        power: none(NO_POWER),
    },
    PresetDef {
        id: "mi300x",
        name: "MI300X",
        name_src: "AMD Instinct MI300X",
        interconnect: Interconnect::PointToPoint,
        fp32: s(1.634e14, "AMD Instinct MI300X datasheet: FP32 matrix 163.4 TFLOPS"),
        tf32: s(6.537e14, "AMD Instinct MI300X datasheet: TF32 653.7 TFLOPS dense (1,307.4 with sparsity)"),
        bf16: s(1.3074e15, "AMD Instinct MI300X datasheet: BF16 1,307.4 TFLOPS dense (2,614.9 with sparsity)"),
        fp16: s(1.3074e15, "AMD Instinct MI300X datasheet: FP16 1,307.4 TFLOPS dense (2,614.9 with sparsity)"),
        fp8: s(2.6149e15, "AMD Instinct MI300X datasheet: FP8 2,614.9 TFLOPS dense (5,229.8 with sparsity)"),
        int8: s(2.6149e15, "AMD Instinct MI300X datasheet: INT8 2,614.9 TOPS dense (5,229.8 with sparsity)"),
        int4: none("the MI300X datasheet lists no int4 mode: no int4 peak"),
        fp4: none("CDNA 3 has no fp4 mode: no fp4 peak"),
        vpu: s(1.634e14, "AMD Instinct MI300X datasheet: FP32 vector 163.4 TFLOPS"),
        hbm: s(5.3e12, "AMD Instinct MI300X datasheet: 5.3 TB/s HBM3"),
        hbm_cap: s(192e9, "AMD Instinct MI300X datasheet: 192 GB HBM3; read as 192e9 decimal bytes"),
        onchip: none("LDS/Infinity Cache bandwidth not published as one chip-wide figure; left empty"),
        onchip_cap: none("on-chip SRAM (LDS, 256 MB Infinity Cache) not modelled as one capacity; left empty"),
        pcie: s(6.4e10, "AMD Instinct MI300X datasheet: PCIe Gen5 x16 128 GB/s (both directions) → 6.4e10 bytes/s per direction"),
        ici: s(6.4e10, "AMD Instinct MI300X datasheet: Infinity Fabric links at 128 GB/s (both directions) → 6.4e10 bytes/s per link per direction; the 8-GPU platform is a full mesh, one link per peer"),
        links: s(7.0, "AMD Instinct MI300X datasheet: 7 Infinity Fabric links (one to each of the 7 peers)"),
        dcn: none("no per-GPU network figure in the MI300X datasheet; left empty"),
        torus: none("a full mesh of Infinity Fabric links, not a torus"),
        wrap: none("a full mesh of Infinity Fabric links, not a torus"),
        node: s(8.0, "AMD Instinct MI300X platform: 8 GPUs in a full mesh"),
        leaf: none("no reference scale-out architecture given; left empty"),
        hop_lat: none("no per-hop latency published for Infinity Fabric; left empty"),
        net_lat: none("no scale-out figure; left empty"),
        price: none(NO_PRICE),
        power: none(NO_POWER),
    },
    PresetDef {
        id: "l4",
        name: "L4",
        name_src: "NVIDIA L4 (PCIe, 72 W)",
        interconnect: Interconnect::Switch,
        fp32: s(3.03e13, "NVIDIA L4 datasheet: FP32 30.3 TFLOPS"),
        tf32: s(6e13, "NVIDIA L4 datasheet: TF32 Tensor Core 120 TFLOPS with sparsity → 6e13 dense"),
        bf16: s(1.21e14, "NVIDIA L4 datasheet: BF16 Tensor Core 242 TFLOPS with sparsity → 1.21e14 dense"),
        fp16: s(1.21e14, "NVIDIA L4 datasheet: FP16 Tensor Core 242 TFLOPS with sparsity → 1.21e14 dense"),
        fp8: s(2.425e14, "NVIDIA L4 datasheet: FP8 Tensor Core 485 TFLOPS with sparsity → 2.425e14 dense"),
        int8: s(2.425e14, "NVIDIA L4 datasheet: INT8 Tensor Core 485 TOPS with sparsity → 2.425e14 dense"),
        int4: none("the L4 datasheet lists no int4 mode: no int4 peak"),
        fp4: none("Ada has no fp4 tensor cores: no fp4 peak"),
        vpu: s(3.03e13, "NVIDIA L4 datasheet: FP32 30.3 TFLOPS on CUDA cores, used as the vector unit"),
        hbm: s(3e11, "NVIDIA L4 datasheet: 300 GB/s GDDR6 (the L4 has no HBM; this is its device-memory bandwidth)"),
        hbm_cap: s(24e9, "NVIDIA L4 datasheet: 24 GB GDDR6; read as 24e9 decimal bytes"),
        onchip: none(GPU_NO_ONCHIP),
        onchip_cap: none(GPU_NO_ONCHIP_CAP),
        pcie: s(3.2e10, "NVIDIA L4 datasheet: PCIe Gen4 x16 64 GB/s (both directions) → 3.2e10 bytes/s per direction"),
        ici: none("the L4 has no NVLink: no scale-up link"),
        links: none("the L4 has no NVLink: no scale-up link"),
        dcn: none("L4 is a PCIe card; network bandwidth depends on the host; left empty"),
        torus: none("the L4 has no scale-up link"),
        wrap: none("the L4 has no scale-up link"),
        node: none("the L4 has no NVLink"),
        leaf: none("the L4 has no NVLink"),
        hop_lat: none("the L4 has no scale-up link"),
        net_lat: none("L4 is a PCIe card; left empty"),
        price: none(NO_PRICE),
        power: none(NO_POWER),
    },
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chip::{Chip, ChipField};

    #[test]
    fn every_field_has_a_source_and_valid_value() {
        for p in PRESETS.iter() {
            for f in ChipField::ALL {
                let spec = p.spec(f);
                assert!(spec.src.len() > 10, "{} {f}", p.id);
                if let Some(v) = spec.v {
                    assert!(Chip::validate(f, v).is_ok(), "{} {f}={v}", p.id);
                }
            }
            assert!(p.hbm.v.is_some() && p.hbm_cap.v.is_some() && p.bf16.v.is_some());
        }
    }
}
