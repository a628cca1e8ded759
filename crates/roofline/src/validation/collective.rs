//! Collectives: all-reduce and all-to-all (MoE dispatch). Pure data, every figure quoted.
//!
//! nccl-tests report bus bandwidth; for an all-reduce over n ranks the time is
//! `bytes / algbw` with `algbw = busbw · n / (2(n − 1))`. DeepEP reports a per-rank
//! "bottleneck bandwidth": its time is the bytes each rank sends over that link divided by it,
//! the bytes taken as the app's all-to-all moves them (each rank sends (n − 1)/n of its V/n
//! over a node's NVLink; across nodes, the share bound for other nodes over the NIC).

use super::{Compared, Family, Point, Tier, Work};

const DEEPEP: &str = "https://github.com/deepseek-ai/DeepEP docs/legacy.md (the V1 README)";
const DEEPEP_LL: &str = "We test low-latency kernels on H800 with each connected to a CX7 InfiniBand 400 Gb/s RDMA network card (~50 GB/s maximum bandwidth). And we follow a typical DeepSeek-V3/R1 production setting (128 tokens per batch, 7168 hidden, top-8 experts, FP8 dispatching and BF16 combining).";
const AZURE: &str = "https://github.com/Azure/AI-benchmarking-guide Azure_Results/ (ND H100 v5, ND A100 v4; ND MI300X v5 in the yosoyjay fork), NCCL/RCCL bandwidth tables";

const COLL: Point = Point {
    id: "",
    work: Work::Collective,
    family: Family::Hopper,
    link: "",
    measured: "",
    measured_s: 0.0,
    derivation: "",
    conditions: "",
    source: DEEPEP,
    source_key: "deepep-v1-readme",
    quote: "",
    tier: Tier::VendorPublished,
    notes: "",
    compared: Compared::TLower,
    expressible: Ok(()),
};

/// An 8 GiB all-reduce over 8 ranks at a bus bandwidth (bytes/s): seconds.
const fn allreduce_8g_8(busbw: f64) -> f64 {
    8589934592.0 / (busbw * 8.0 / 14.0)
}

pub(super) static POINTS: &[Point] = &[
    Point {
        id: "deepep-v1-h800-intranode-ep8-dispatch",
        link: "?chip=h800&op=collective:kind=alltoall,bytes=234881024,n=8,topology=node",
        measured: "dispatch 153 GB/s (NVLink) bottleneck bandwidth; combine 158 GB/s",
        measured_s: 7.0 / 8.0 * (234881024.0 / 8.0) / 153e9,
        derivation: "V = 8 ranks × 4096 tokens × 7168 B = 2.349e8 B; each rank sends 7/8 of V/8 = 2.569e7 B over NVLink at 153 GB/s = 168 µs",
        conditions: "8× H800 SXM in one node (NVLink ~160 GB/s); DeepEP V1 normal kernels, 4096 tokens per batch, 7168 hidden, top-4 groups, top-8 experts, FP8 dispatch, EP 8",
        quote: "| Intranode |      8       |  153 GB/s (NVLink)   |      8      |  158 GB/s (NVLink)   |",
        notes: "an achieved bandwidth, not a time: the comparison is 153 GB/s against the app's per-GPU NVLink bandwidth; DeepEP counts logical bytes (real traffic depends on routing)",
        ..COLL
    },
    Point {
        id: "deepep-v1-h800-internode-ep32-dispatch",
        link: "?chip=h800:dcn=50e9&op=collective:kind=alltoall,bytes=939524096,n=32,topology=cluster,levels=8/4",
        measured: "dispatch 58 GB/s (RDMA) bottleneck bandwidth; combine 57 GB/s",
        measured_s: 24.0 / 32.0 * (939524096.0 / 32.0) / 58e9,
        derivation: "V = 32 × 4096 × 7168 B = 9.395e8 B; each rank's share for the other 3 nodes, 24/32 of V/32 = 2.202e7 B, at 58 GB/s = 380 µs",
        conditions: "32× H800 (4 nodes), each GPU with a CX7 400 Gb/s InfiniBand NIC (~50 GB/s, set as dcn); DeepEP V1 normal kernels with NVLink→RDMA forwarding, settings as intranode, EP 32",
        quote: "| Internode |      32      |    58 GB/s (RDMA)    |     32      |    57 GB/s (RDMA)    |",
        notes: "58 GB/s exceeds the 50 GB/s NIC: DeepEP's logical bytes count traffic that is deduplicated per node and forwarded over NVLink, so a bound on raw bytes can sit above it",
        ..COLL
    },
    Point {
        id: "deepep-v1-h800-lowlatency-ep8-dispatch-128tok",
        link: "?chip=h800&op=collective:kind=alltoall,bytes=58720256,n=8,topology=node",
        measured: "dispatch 77 us at 98 GB/s; combine 114 us at 127 GB/s",
        measured_s: 77e-6,
        derivation: "stated: 77 µs (V = 8 ranks × 128 tokens × 8 expert copies × 7168 B = 5.87e7 B)",
        conditions: "8× H800 with CX7 400 Gb/s IB; DeepEP V1 low-latency kernels, 128 tokens per batch, 7168 hidden, top-8 experts, FP8 dispatch, EP 8",
        quote: "|      8       |  77 us  |    98 GB/s     |      8      | 114 us  |    127 GB/s    |",
        notes: "latency-dominated; the low-latency kernels send every (token, expert) copy without deduplication; 98 GB/s exceeds the NIC, so the EP8 traffic is read as NVLink (topology=node), an assumption",
        ..COLL
    },
    Point {
        id: "deepep-v1-h800-lowlatency-ep256-dispatch-128tok",
        link: "?chip=h800:dcn=50e9&op=collective:kind=alltoall,bytes=1879048192,n=256,topology=cluster,levels=8/32",
        measured: "dispatch 194 us at 39 GB/s; combine 360 us at 40 GB/s",
        measured_s: 194e-6,
        derivation: "stated: 194 µs (V = 256 × 128 × 8 × 7168 B = 1.879e9 B)",
        conditions: "256× H800 (32 nodes) with CX7 400 Gb/s IB (~50 GB/s, set as dcn); DeepEP V1 low-latency kernels, settings as EP 8, EP 256",
        quote: DEEPEP_LL,
        notes: "row: |     256      | 194 us  |    39 GB/s     |     256     | 360 us  |    40 GB/s     |; combine is BF16, twice the bytes",
        ..COLL
    },
    Point {
        id: "nccl-allreduce-h20-2node-16gpu-512MiB",
        link: "?chip=h20&op=collective:kind=allreduce,bytes=536870912,n=16,topology=cluster,levels=8/2",
        measured: "busbw 312.75 GB/s (algbw 166.80), 3218.6 us at 536,870,912 B",
        measured_s: 3218.6e-6,
        derivation: "stated: 3,218.6 µs out of place (536,870,912 B / 3,218.6 µs = 166.8 GB/s algbw; × 30/16 = 312.75 busbw)",
        conditions: "16× NVIDIA H20 (2 nodes × 8; NVLink + NVLink SHARP in the node, InfiniBand between); nccl-tests all_reduce_perf, float32 sum; NCCL version not stated",
        source: "https://github.com/NVIDIA/nccl/issues/1244",
        source_key: "nccl-issue-1244",
        quote: "   536870912     134217728     float     sum      -1    3218.6  166.80  312.75      0    3204.9  167.52  314.10      0",
        tier: Tier::CommunityBenchmark,
        notes: "the reporter finds it below expectation (\"theoretically it should be able to reach 460GBps\")",
        expressible: Err("the nodes' NICs are not stated in the source and the h20 preset has no dcn: the inter-node level has no bandwidth"),
        ..COLL
    },
    Point {
        id: "nccl-allreduce-h100pcie-2gpu-nvlink-1GiB",
        link: "?chip=h100:links=1,ici=300e9&op=collective:kind=allreduce,bytes=1073741824,n=2,topology=ring",
        measured: "busbw 115.37 GB/s, 9306.7 us at 1,073,741,824 B",
        measured_s: 9306.7e-6,
        derivation: "stated: 9,306.7 µs for 1 GiB (n = 2: busbw = algbw)",
        conditions: "2× H100 PCIe 80GB joined by an NVLink bridge (600 GB/s, 300 GB/s per direction set as one link), single process; nccl-tests all_reduce_perf -b 1G -e 8G -f 2 -g 2, float sum",
        source: "https://github.com/NVIDIA/nccl-tests/issues/194 (also NVIDIA/nccl#1161)",
        source_key: "nccl-tests-issue-194",
        quote: "  1073741824     268435456     float     sum      -1   9306.7  115.37  115.37      0   9291.5  115.56  115.56      0",
        tier: Tier::CommunityBenchmark,
        notes: "reported as lower than expected; the catalog h100 is SXM (the PCIe card clocks lower; only the link is overridden)",
        ..COLL
    },
    Point {
        id: "nccl-h100-8gpu-nvls-allreduce-peak",
        link: "?chip=h100&op=collective:kind=allreduce,bytes=8589934592,n=8,topology=node,sharp=yes",
        measured: "peak busBw of ~480GB/s (algbw ~275GB/s)",
        measured_s: 8589934592.0 / 275e9,
        derivation: "at algbw 275 GB/s an 8 GiB all-reduce takes 8,589,934,592 / 2.75e11 = 31.2 ms (large-message asymptote)",
        conditions: "8× H100 SXM5 80GB in one HGX node (NVLink 4, NVSwitch); nccl-tests, NCCL ≥ 2.17 with NVLS (NVLink SHARP); large messages (256 MB is too small)",
        source: "https://github.com/NVIDIA/nccl-tests/issues/212 (comment by sjeaugey, NVIDIA, 2024-05-06)",
        source_key: "nccl-tests-issue-212",
        quote: "On 8 GPUs, you should reach a peak busBw of ~480GB/s (algbw ~275GB/s). You need to run on larger sizes though; 256M is too small to reach peak bandwidth.",
        notes: "a maintainer's statement of expected measured values; the size is not pinned (8 GiB linked)",
        ..COLL
    },
    Point {
        id: "azure-nccl-allreduce-h100-8gpu-8G",
        link: "?chip=h100&op=collective:kind=allreduce,bytes=8589934592,n=8,topology=node,sharp=yes",
        measured: "busbw 478.87 GB/s at 8G",
        measured_s: allreduce_8g_8(478.87e9),
        derivation: "algbw = 478.87 · 8/14 = 273.6 GB/s → 8,589,934,592 B / 2.736e11 = 31.4 ms",
        conditions: "8× H100 80GB HBM3 SXM (ND H100 v5, NVSwitch); nccl-tests all_reduce_perf -b 8 -e 8G -f 2 -g 8 -n 40, NCCL 2.18.5, NVLS, in place, float sum",
        source: AZURE,
        source_key: "azure-ai-benchmarking-guide",
        quote: "The values (in GB/s), in the table 6 and figure 5 below, are the bus bandwidth values obtained from the NCCL AllReduce (NVLS algorithm) tests in-place operations, varying from 1KB to 8GB of data. | 8G                   | 478.87            |",
        notes: "NVLS busbw is not wire bandwidth; agrees with NVIDIA's ~480",
        ..COLL
    },
    Point {
        id: "azure-nccl-allreduce-a100-8gpu-8G",
        family: Family::Ampere,
        link: "?chip=a100&op=collective:kind=allreduce,bytes=8589934592,n=8,topology=node",
        measured: "busbw 231.58 GB/s at 8G",
        measured_s: allreduce_8g_8(231.58e9),
        derivation: "algbw = 231.58 · 8/14 = 132.3 GB/s → 8.59e9 / 1.323e11 = 64.9 ms",
        conditions: "8× A100-SXM4-80GB (ND A100 v4, NVSwitch gen 2); nccl-tests as the H100 row, NCCL 2.18.5",
        source: AZURE,
        source_key: "azure-ai-benchmarking-guide",
        quote: "| 8G                   | 231.58            | (ND_A100_v4_results.md, same caption)",
        notes: "the caption says NVLS, which A100 lacks: ring or tree in fact",
        ..COLL
    },
    Point {
        id: "azure-rccl-allreduce-mi300x-8gpu-8G",
        family: Family::Cdna3,
        link: "?chip=mi300x&op=collective:kind=allreduce,bytes=8589934592,n=8,topology=node",
        measured: "busbw 316.82 GB/s at 8G",
        measured_s: allreduce_8g_8(316.82e9),
        derivation: "algbw = 316.82 · 8/14 = 181.0 GB/s → 8.59e9 / 1.810e11 = 47.5 ms",
        conditions: "8× MI300X in one node (fully connected xGMI); rccl-tests all_reduce_perf 1 KB–8 GB, RCCL 2.22.3-develop, in place",
        source: AZURE,
        source_key: "azure-ai-benchmarking-guide",
        quote: "The values (in GB/s) are the bus bandwidth values obtained from the RCCL AllReduce (NVLS algorithm) tests in-place operations, varying from 1KB to 8GB of data. | 8G                   | 316.82            |",
        notes: "\"NVLS\" is copied from the NVIDIA template; RCCL assumes 48 GB/s per xGMI link per direction after overheads (7 × 48 = 336 GB/s)",
        ..COLL
    },
];
