//! Collectives: all-reduce and all-to-all (MoE dispatch). Pure data, every figure quoted.
//!
//! nccl-tests report bus bandwidth; for an all-reduce over n ranks the time is
//! `bytes / algbw` with `algbw = busbw · n / (2(n − 1))`. DeepEP's normal kernels report a
//! per-rank "bottleneck bandwidth": its tests divide a byte count by the kernel's time, so the
//! time is that byte count over the bandwidth. The count is DeepEP's own (its test scripts):
//! every token once per distinct destination rank (NVLink) or node (RDMA), the own rank or
//! node included, at 7,168 FP8 bytes plus 4 B of scale per 128 (7,392 B). The scenario moves
//! the bytes that physically cross the bound link: the app's all-to-all sends (n − 1)/n of each
//! rank's V/n over a node's NVLink and, across nodes, the share bound for other nodes over the
//! NIC, so V is set to make that share equal the deduplicated traffic.

use super::{Family, MeasureKind, Point, Tier};

const DEEPEP: &str = "https://github.com/deepseek-ai/DeepEP docs/legacy.md (the V1 README)";
const DEEPEP_LL: &str = "We test low-latency kernels on H800 with each connected to a CX7 InfiniBand 400 Gb/s RDMA network card (~50 GB/s maximum bandwidth). And we follow a typical DeepSeek-V3/R1 production setting (128 tokens per batch, 7168 hidden, top-8 experts, FP8 dispatching and BF16 combining).";
const AZURE: &str = "https://github.com/Azure/AI-benchmarking-guide Azure_Results/ (ND H100 v5, ND A100 v4; ND MI300X v5 in the yosoyjay fork), NCCL/RCCL bandwidth tables";

const COLL: Point = Point {
    work: MeasureKind::Collective,
    source: DEEPEP,
    source_key: "deepep-v1-readme",
    ..Point::EMPTY
};

/// DeepEP's tests route each of 4,096 tokens to its top 8 of 256 experts drawn at random (the
/// scores are |N(0, 1)| + 1; with 4 nodes, "top-4 groups" masks none): the chance that a rank
/// or node holding `held` of the 256 experts receives a given token is
/// `1 − C(256 − held, 8) / C(256, 8)`.
const fn hit(held: u32) -> f64 {
    let mut miss = 1.0;
    let mut i = 0;
    while i < 8 {
        miss *= (256 - held - i) as f64 / (256 - i) as f64;
        i += 1;
    }
    1.0 - miss
}

/// A token's bytes in DeepEP's count: `hidden · 2 · (1 + 4/128) / 2` for FP8 with scales.
const DEEPEP_TOKEN_B: f64 = 7168.0 * 2.0 * (1.0 + 4.0 / 128.0) / 2.0;

/// An 8 GiB all-reduce over 8 ranks at a bus bandwidth (bytes/s): seconds.
const fn allreduce_8g_8(busbw: f64) -> f64 {
    8589934592.0 / (busbw * 8.0 / 14.0)
}

pub(super) static POINTS: &[Point] = &[
    Point {
        id: "deepep-v1-h800-intranode-ep8-dispatch",
        link: "?chip=h800&op=collective:kind=alltoall,bytes=1282476199,n=8,topology=node",
        measured: "dispatch 153 GB/s (NVLink) bottleneck bandwidth; combine 158 GB/s",
        measured_s: 8.0 * 4096.0 * hit(32) * DEEPEP_TOKEN_B / 153e9,
        derivation: "DeepEP's count (tests/test_intranode.py: recv_x.numel() × 2 × (1 + 4/128)/2): a rank receives each of the 8 ranks' 4,096 tokens with chance 1 − C(224, 8)/C(256, 8) = 0.6618, so 21,687 tokens × 7,392 B = 1.603e8 B, at 153 GB/s = 1.048 ms. The bound link carries the 7/8 from other ranks, 1.403e8 B per rank; the app's all-to-all sends 7/8 of V/8, so V = 64 × 4,096 × 0.6618 × 7,392 B = 1.282e9 B",
        conditions: "8× H800 SXM in one node (NVLink ~160 GB/s); DeepEP V1 normal kernels, 4096 tokens per batch, 7168 hidden, 256 experts, top-8 experts drawn at random, FP8 dispatch, EP 8",
        quote: "| Intranode |      8       |  153 GB/s (NVLink)   |      8      |  158 GB/s (NVLink)   |",
        notes: "an achieved bandwidth: the time is DeepEP's byte count (read in deepseek-ai/DeepEP tests/test_intranode.py, commit 031a5c4: 4,096 tokens, 7,168 hidden, 256 experts, top-8) over 153 GB/s; a token bound for several experts on one rank crosses NVLink once",
        ..COLL
    },
    Point {
        id: "deepep-v1-h800-internode-ep32-dispatch",
        link: "?chip=h800:dcn=50e9&op=collective:kind=alltoall,bytes=3501755223,n=32,topology=cluster,levels=8/4",
        measured: "dispatch 58 GB/s (RDMA) bottleneck bandwidth; combine 57 GB/s",
        measured_s: 4.0 * 4096.0 * hit(64) * DEEPEP_TOKEN_B / 58e9,
        derivation: "DeepEP's count (tests/test_internode.py: num_rdma_token_sent × hidden × 2 × (1 + 4/128)/2, the distinct nodes of each token's experts, its own node included): 4,096 tokens × 4 nodes × (1 − C(192, 8)/C(256, 8) = 0.9036) = 14,804 × 7,392 B = 1.094e8 B, at 58 GB/s = 1.887 ms. Only the 3 other nodes cross the NIC: 4,096 × 3 × 0.9036 × 7,392 B = 8.207e7 B per rank; the app's all-to-all sends 24/32 of V/32 off the node, so V = 8.207e7 × 32 × 32/24 = 3.502e9 B",
        conditions: "32× H800 (4 nodes), each GPU with a CX7 400 Gb/s InfiniBand NIC (~50 GB/s, set as dcn); DeepEP V1 normal kernels with NVLink→RDMA forwarding (each token crosses the NIC once per destination node), 4096 tokens per batch, 7168 hidden, 256 experts, top-8 of top-4 groups (all 4 nodes), FP8 dispatch, EP 32",
        quote: "| Internode |      32      |    58 GB/s (RDMA)    |     32      |    57 GB/s (RDMA)    |",
        notes: "58 GB/s exceeds the 50 GB/s NIC because DeepEP's RDMA count includes each token's own node, which NVLink serves (read in deepseek-ai/DeepEP tests/legacy/test_internode.py, commit 81a433e); with only the other nodes' bytes on the NIC the bound sits below the measurement. An earlier version of this point took one copy per token and put the bound above it",
        ..COLL
    },
    Point {
        id: "deepep-v1-h800-lowlatency-ep8-dispatch-128tok",
        link: "?chip=h800&op=collective:kind=alltoall,bytes=60686336,n=8,topology=node",
        measured: "dispatch 77 us at 98 GB/s; combine 114 us at 127 GB/s",
        measured_s: 77e-6,
        derivation: "stated: 77 µs; DeepEP's count (tests/test_low_latency.py: hidden + hidden/128 × 4 + 16 = 7,408 B per (token, expert) copy, every copy sent): V = 8 ranks × 128 tokens × 8 copies × 7,408 B = 6.069e7 B (98 GB/s × 77 µs = 7.55e6 B per rank, as V/8 = 7.59e6)",
        conditions: "8× H800 with CX7 400 Gb/s IB; DeepEP V1 low-latency kernels, 128 tokens per batch, 7168 hidden, top-8 experts, FP8 dispatch, EP 8",
        quote: "|      8       |  77 us  |    98 GB/s     |      8      | 114 us  |    127 GB/s    |",
        notes: "latency-dominated; the low-latency kernels send every (token, expert) copy without deduplication; 98 GB/s exceeds the NIC, so the EP8 traffic is read as NVLink (topology=node), an assumption",
        ..COLL
    },
    Point {
        id: "deepep-v1-h800-lowlatency-ep256-dispatch-128tok",
        link: "?chip=h800:dcn=50e9&op=collective:kind=alltoall,bytes=1941962752,n=256,topology=cluster,levels=8/32",
        measured: "dispatch 194 us at 39 GB/s; combine 360 us at 40 GB/s",
        measured_s: 194e-6,
        derivation: "stated: 194 µs; V = 256 ranks × 128 tokens × 8 copies × 7,408 B (DeepEP's count, as EP 8) = 1.942e9 B (39 GB/s × 194 µs = 7.57e6 B per rank, as V/256 = 7.59e6)",
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
        id: "azure-nccl-allreduce-gb200-4gpu-8G",
        family: Family::Blackwell,
        link: "?chip=b200&op=collective:kind=allreduce,bytes=8589934592,n=4,topology=node",
        measured: "busbw 679.61 GB/s at 8G",
        measured_s: 8589934592.0 / (679.61e9 * 4.0 / 6.0),
        derivation: "n = 4: algbw = busbw · n / (2(n − 1)) = 679.61 · 4/6 = 453.1 GB/s → 8,589,934,592 B / 4.531e11 = 19.0 ms",
        conditions: "4× NVIDIA GB200 185GB, the GPUs of one Azure ND GB200 v6 VM (the VM size; the rank count is not restated), NVLink 5; nccl-tests AllReduce, Ring algorithm, in place, 1 KB to 8 GB; NCCL 2.25.1, CUDA 12.8",
        source: "https://github.com/Azure/AI-benchmarking-guide Azure_Results/ND_GB200_v6_results.md (commit 2a370be)",
        source_key: "azure-ai-benchmarking-guide",
        quote: "The values (in GB/s) are the bus bandwidth values obtained from the NCCL AllReduce (Ring algorithm) tests in-place operations, varying from 1KB to 8GB of data. | 8G          | 679.61          |",
        notes: "ring, not NVLS; the 4 ranks are an assumption from the VM size (72 ranks over the NVL72 domain would give algbw 679.61 · 72/142 and a different bound)",
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
