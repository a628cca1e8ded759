//! GEMM kernels and memory-bandwidth kernels (STREAM): pure data, every figure quoted.
//! FLOPs count 2 per multiply-accumulate (`flops=2mac`, the app's default), as the sources do.

use super::{Family, MeasureKind, Point};

const DEEPGEMM: &str = "https://github.com/deepseek-ai/DeepGEMM README.md at commit a6d97a1 (initial release, Feb 2025), \"Performance / Normal GEMMs for dense models\"";
const DEEPGEMM_COND: &str = "1× NVIDIA H800 SXM5 80GB; DeepGEMM a6d97a1, NVCC 12.8; FP8 E4M3 inputs with fine-grained (1×128 / 128×128) scaling, BF16 output, NT layout; one GPU, no tensor parallelism";
/// A quote: the source's sentence on its conditions, then the row.
macro_rules! deepgemm_quote {
    ($row:literal) => {
        concat!("We test all shapes potentially used in DeepSeek-V3/R1 inference (including both prefilling and decoding, but without tensor parallelism) on H800 with NVCC 12.8. ", $row)
    };
}
const AZURE: &str = "https://github.com/Azure/AI-benchmarking-guide Azure_Results/ (ND H100 v5, ND A100 v4, ND H200 v5; ND MI300X v5 in the yosoyjay fork)";

const AZURE_GB200: &str = "https://github.com/Azure/AI-benchmarking-guide Azure_Results/ND_GB200_v6_results.md (commit 2a370be)";
const GB200_GEMM: &str = "1× NVIDIA GB200 185GB GPU (Azure ND GB200 v6, Grace host), mapped to the b200 preset; cuBLASLt through the guide's GEMM benchmark, random initialization, 10,000 warm-up iterations; CUDA 12.8, driver 570.133.20";
const GB200_PEAK_NOTE: &str = "the b200 preset holds HGX B200's datasheet peaks (4.5 PFLOP/s FP8, 9 FP4 dense); GB200 runs at a higher power limit and published per-GPU figures for it differ (NVL72's 720 PF FP8 and 1,440 PF FP4 per 72 GPUs with sparsity read as 5 and 10 dense), so the bound may sit up to 10 % low";

const GEMM: Point = Point { ..Point::EMPTY };

const MEMORY: Point = Point {
    work: MeasureKind::Memory,
    ..GEMM
};

/// BabelStream Triad with its default arrays: 3 × 2^25 FP64 elements moved = 805,306,368 B.
const TRIAD_BYTES: f64 = 3.0 * 33554432.0 * 8.0;

pub(super) static POINTS: &[Point] = &[
    Point {
        id: "deepgemm-h800-m4096-n7168-k16384-fp8",
        link: "?chip=h800&op=matmul:b=4096,d=16384,f=7168,x=fp8,w=fp8,out=bf16",
        measured: "1358 TFLOPS",
        measured_s: 2.0 * 4096.0 * 7168.0 * 16384.0 / 1358e12,
        derivation: "2·M·N·K = 2·4096·7168·16384 = 9.621e11 FLOP / 1.358e15 FLOP/s = 708 µs",
        conditions: DEEPGEMM_COND,
        source: DEEPGEMM,
        source_key: "deepgemm-readme-a6d97a1",
        quote: deepgemm_quote!("| 4096 | 7168  | 16384 | 1358 TFLOPS |     343 GB/s     |  1.2x   |"),
        notes: "≈69% of the dense FP8 peak (1,979 TFLOPS); scaling-factor promotion runs on CUDA cores. Later README versions claim up to 1550 TFLOPS without a per-shape table.",
        ..GEMM
    },
    Point {
        id: "deepgemm-h800-m4096-n4096-k7168-fp8",
        link: "?chip=h800&op=matmul:b=4096,d=7168,f=4096,x=fp8,w=fp8,out=bf16",
        measured: "1304 TFLOPS",
        measured_s: 2.0 * 4096.0 * 4096.0 * 7168.0 / 1304e12,
        derivation: "2·4096·4096·7168 = 2.405e11 FLOP / 1.304e15 FLOP/s = 184 µs",
        conditions: DEEPGEMM_COND,
        source: DEEPGEMM,
        source_key: "deepgemm-readme-a6d97a1",
        quote: deepgemm_quote!("| 4096 | 4096  | 7168  | 1304 TFLOPS |     500 GB/s     |  1.1x   |"),
        notes: "compute-bound shape",
        ..GEMM
    },
    Point {
        id: "deepgemm-h800-m128-n7168-k16384-fp8",
        link: "?chip=h800&op=matmul:b=128,d=16384,f=7168,x=fp8,w=fp8,out=bf16",
        measured: "645 TFLOPS",
        measured_s: 2.0 * 128.0 * 7168.0 * 16384.0 / 645e12,
        derivation: "2·128·7168·16384 = 3.006e10 FLOP / 6.45e14 FLOP/s = 46.6 µs (the table's 2604 GB/s is 1.214e8 B over the same time)",
        conditions: DEEPGEMM_COND,
        source: DEEPGEMM,
        source_key: "deepgemm-readme-a6d97a1",
        quote: deepgemm_quote!("| 128  | 7168  | 16384 | 645 TFLOPS  |    2604 GB/s     |  1.4x   |"),
        notes: "decode-like small M, near the ridge; 2604 of 3350 GB/s nominal",
        ..GEMM
    },
    Point {
        id: "deepgemm-h800-m64-n2112-k7168-fp8",
        link: "?chip=h800&op=matmul:b=64,d=7168,f=2112,x=fp8,w=fp8,out=bf16",
        measured: "206 TFLOPS",
        measured_s: 2.0 * 64.0 * 2112.0 * 7168.0 / 206e12,
        derivation: "2·64·2112·7168 = 1.938e9 FLOP / 2.06e14 FLOP/s = 9.41 µs",
        conditions: DEEPGEMM_COND,
        source: DEEPGEMM,
        source_key: "deepgemm-readme-a6d97a1",
        quote: deepgemm_quote!("|  64  | 2112  | 7168  | 206 TFLOPS  |    1688 GB/s     |  2.7x   |"),
        notes: "memory-bound and short (≈9 µs): launch and tail latency are a large share",
        ..GEMM
    },
    Point {
        id: "deepgemm-h800-grouped-masked-4x256-n4096-k7168-fp8",
        link: "?chip=h800&op=custom:flops=60129542144,bytes=133169152,t=fp8",
        measured: "932 TFLOPS",
        measured_s: 4.0 * 2.0 * 256.0 * 4096.0 * 7168.0 / 932e12,
        derivation: "4 groups × 2·256·4096·7168 = 6.013e10 FLOP / 9.32e14 FLOP/s = 64.5 µs",
        conditions: "1× H800 SXM5; DeepGEMM a6d97a1, \"Grouped GEMMs for MoE models (masked layout)\": 4 groups, M 256 per group, N 4096, K 7168, FP8 fine-grained scaling, BF16 out",
        source: DEEPGEMM,
        source_key: "deepgemm-readme-a6d97a1",
        quote: deepgemm_quote!("|    4    |     256     | 4096 | 7168 | 932 TFLOPS  |    2064 GB/s     |  1.1x   |"),
        notes: "each group has its own weights, which neither matmul (one weight) nor bmm (one weight per row) expresses: a custom op with the FLOPs 6.013e10 and bytes 4·(256·7168 + 4096·7168 + 2·256·4096) = 1.332e8",
        ..GEMM
    },
    Point {
        id: "azure-cublaslt-h100-fp8-8192cube",
        link: "?chip=h100&op=matmul:b=8192,d=8192,f=8192,x=fp8,w=fp8,out=bf16",
        measured: "1290.1 TFLOPS",
        measured_s: 2.0 * 8192.0 * 8192.0 * 8192.0 / 1290.1e12,
        derivation: "2·8192³ = 1.0995e12 FLOP / 1.2901e15 FLOP/s = 852 µs",
        conditions: "1× H100 80GB HBM3 SXM (Azure ND H100 v5); cuBLASLt through superbench cublaslt_gemm -m 8192 -n 8192 -k 8192 -t fp8e4m3; random init, 10,000 warm-up iterations; CUDA 12.6",
        source: AZURE,
        source_key: "azure-ai-benchmarking-guide",
        quote: "The results shown below are with random initialization (best representation of real-life workloads), FP8, and 10,000 warmup iterations. | 8192        | 8192      | 8192     | 1290.1                 |",
        notes: "65% of dense FP8 peak, sustained (power-limited) clocks; output dtype not stated (BF16 assumed)",
        ..GEMM
    },
    Point {
        id: "azure-cublaslt-h100-fp8-802816x192x768-skinny",
        link: "?chip=h100&op=matmul:b=802816,d=768,f=192,x=fp8,w=fp8,out=bf16",
        measured: "663.8 TFLOPS",
        measured_s: 2.0 * 802816.0 * 192.0 * 768.0 / 663.8e12,
        derivation: "2·802816·192·768 = 2.368e11 FLOP / 6.638e14 FLOP/s = 357 µs",
        conditions: "as azure-cublaslt-h100-fp8-8192cube, m 802816, n 192, k 768",
        source: AZURE,
        source_key: "azure-ai-benchmarking-guide",
        quote: "| 802816      | 192       | 768      | 663.8                  |",
        notes: "bandwidth-bound tall-skinny shape; output dtype unknown (FP8 output would cut the bytes by a sixth)",
        ..GEMM
    },
    Point {
        id: "azure-cublaslt-gb200-fp8-8192cube",
        family: Family::Blackwell,
        link: "?chip=b200&op=matmul:b=8192,d=8192,f=8192,x=fp8,w=fp8,out=bf16",
        measured: "2876.6 TFLOPS",
        measured_s: 2.0 * 8192.0 * 8192.0 * 8192.0 / 2876.6e12,
        derivation: "2·8192³ = 1.0995e12 FLOP / 2.8766e15 FLOP/s = 382 µs",
        conditions: GB200_GEMM,
        source: AZURE_GB200,
        source_key: "azure-ai-benchmarking-guide",
        quote: "### GEMM CuBLASLt (FP8) The results shown below are with random initialization (best representation of real-life workloads), FP8, and 10,000 warmup iterations. | 8192        | 8192      | 8192     | 2876.6                 |",
        notes: GB200_PEAK_NOTE,
        ..GEMM
    },
    Point {
        id: "azure-cublaslt-gb200-fp8-802816x192x768-skinny",
        family: Family::Blackwell,
        link: "?chip=b200&op=matmul:b=802816,d=768,f=192,x=fp8,w=fp8,out=bf16",
        measured: "1459.5 TFLOPS",
        measured_s: 2.0 * 802816.0 * 192.0 * 768.0 / 1459.5e12,
        derivation: "2·802816·192·768 = 2.368e11 FLOP / 1.4595e15 FLOP/s = 162 µs",
        conditions: GB200_GEMM,
        source: AZURE_GB200,
        source_key: "azure-ai-benchmarking-guide",
        quote: "| 802816      | 192       | 768      | 1459.5                  |",
        notes: "bandwidth-bound tall-skinny shape, as on the H100; output dtype not stated (BF16 assumed)",
        ..GEMM
    },
    Point {
        id: "azure-cublaslt-gb200-fp4-8192cube",
        family: Family::Blackwell,
        link: "?chip=b200&op=matmul:b=8192,d=8192,f=8192,x=fp4,w=fp4,out=bf16",
        measured: "7535.6 TFLOPS",
        measured_s: 2.0 * 8192.0 * 8192.0 * 8192.0 / 7535.6e12,
        derivation: "2·8192³ = 1.0995e12 FLOP / 7.5356e15 FLOP/s = 146 µs",
        conditions: GB200_GEMM,
        source: AZURE_GB200,
        source_key: "azure-ai-benchmarking-guide",
        quote: "### GEMM CuBLASLt (FP4) The results shown below are with random initialization (best representation of real-life workloads), FP4, and 10,000 warmup iterations. | 8192        | 8192      | 8192     |   7535.6              |",
        notes: GB200_PEAK_NOTE,
        ..GEMM
    },
    Point {
        id: "azure-cublaslt-a100-fp16-8192cube",
        family: Family::Ampere,
        link: "?chip=a100&op=matmul:b=8192,d=8192,f=8192,x=fp16,w=fp16,out=fp16",
        measured: "253.7 TFLOPS",
        measured_s: 2.0 * 8192.0 * 8192.0 * 8192.0 / 253.7e12,
        derivation: "2·8192³ = 1.0995e12 FLOP / 2.537e14 FLOP/s = 4.33 ms",
        conditions: "1× A100-SXM4-80GB (Azure ND A100 v4); cuBLASLt (superbench cublaslt_gemm), FP16, random init, 10,000 warm-ups; CUDA 12.5",
        source: AZURE,
        source_key: "azure-ai-benchmarking-guide",
        quote: "The results shown below are with random initialization (best representation of real-life workloads), FP16, and 10,000 warmup iterations. | 8192        | 8192      | 8192     | 253.7                |",
        notes: "81% of 312 TFLOPS",
        ..GEMM
    },
    Point {
        id: "azure-hipblaslt-mi300x-fp8-8192cube",
        family: Family::Cdna3,
        link: "?chip=mi300x&op=matmul:b=8192,d=8192,f=8192,x=fp8,w=fp8,out=bf16",
        measured: "1222.9 TFLOPS",
        measured_s: 2.0 * 8192.0 * 8192.0 * 8192.0 / 1222.9e12,
        derivation: "2·8192³ = 1.0995e12 FLOP / 1.2229e15 FLOP/s = 899 µs",
        conditions: "1× AMD Instinct MI300X (Azure ND MI300X v5); hipBLASLt, FP8, random init, 10,000 warm-ups; HIP 6.2.41134",
        source: "https://github.com/yosoyjay/AI-benchmarking-guide Azure_Results/ND_MI300X_v5_results.md (fork of Azure/AI-benchmarking-guide)",
        source_key: "azure-ai-benchmarking-guide",
        quote: "### GEMM HipBLASLt  The results shown below are with random initialization (best representation of real-life workloads), FP8, and 10,000 warmup iterations. | 8192        | 8192      | 8192     |  1222.9               |",
        notes: "47% of the dense FP8 peak (2,615 TFLOPS); 16384³ drops to 1081.4 (clock throttling)",
        ..GEMM
    },
    Point {
        id: "azure-babelstream-h100-triad",
        link: "?chip=h100&op=custom:flops=67108864,bytes=805306368",
        measured: "Triad 2.97 TB/s",
        measured_s: TRIAD_BYTES / 2.97e12,
        derivation: "Triad a = b + s·c on 2^25 FP64 elements: 3·2^25·8 = 805.3 MB / 2.97e12 B/s = 271 µs",
        conditions: "1× H100 80GB HBM3 SXM (Azure ND H100 v5); BabelStream CUDA build (-DMODEL=cuda -DCUDA_ARCH=sm_90, fork gitaumark/BabelStream), default 2^25 doubles, 10 runs; CUDA 12.6, driver 560.35.03",
        source: "https://github.com/Azure/AI-benchmarking-guide Azure_Results/ND_H100_v5_results.md (commit 8fd0c6e), \"HBM Bandwidth\"",
        source_key: "azure-ai-benchmarking-guide",
        quote: "| Triad | 2.97              |",
        notes: "89% of 3.35 TB/s; the app has no fp64 dtype, so a custom op carries the bytes (FLOPs 2 per element, negligible)",
        ..MEMORY
    },
    Point {
        id: "azure-babelstream-a100-triad",
        family: Family::Ampere,
        link: "?chip=a100&op=custom:flops=67108864,bytes=805306368",
        measured: "Triad 1.70 TB/s",
        measured_s: TRIAD_BYTES / 1.70e12,
        derivation: "805.3 MB / 1.70e12 B/s = 474 µs",
        conditions: "1× A100-SXM4-80GB (Azure ND A100 v4); BabelStream CUDA (-DCUDA_ARCH=sm_80), default arrays; CUDA 12.5, driver 550.90.07",
        source: "https://github.com/Azure/AI-benchmarking-guide Azure_Results/ND_A100_v4_results.md, \"HBM Bandwidth\"",
        source_key: "azure-ai-benchmarking-guide",
        quote: "| GPU | NVIDIA A100-SXM4-80GB | … ### HBM Bandwidth … | Triad | 1.70              |",
        notes: "83% of 2.04 TB/s",
        ..MEMORY
    },
    Point {
        id: "azure-babelstream-h200-triad",
        link: "?chip=h200&op=custom:flops=67108864,bytes=805306368",
        measured: "Triad 4.15 TB/s",
        measured_s: TRIAD_BYTES / 4.15e12,
        derivation: "805.3 MB / 4.15e12 B/s = 194 µs",
        conditions: "1× H200 141GB (Azure ND H200 v5); BabelStream CUDA, default arrays; CUDA 12.6, driver 560.28.03",
        source: "https://github.com/Azure/AI-benchmarking-guide Azure_Results/ND_H200_v5_results.md, \"HBM Bandwidth\"",
        source_key: "azure-ai-benchmarking-guide",
        quote: "### HBM Bandwidth … | Triad | 4.15              |",
        notes: "86% of 4.8 TB/s",
        ..MEMORY
    },
    Point {
        id: "azure-babelstream-mi300x-triad",
        family: Family::Cdna3,
        link: "?chip=mi300x&op=custom:flops=67108864,bytes=805306368",
        measured: "Triad 4.10 TB/s",
        measured_s: TRIAD_BYTES / 4.10e12,
        derivation: "805.3 MB / 4.10e12 B/s = 196 µs",
        conditions: "1× AMD Instinct MI300X (Azure ND MI300X v5, SR-IOV VF); BabelStream (HIP build presumed), default arrays assumed; HIP 6.2.41134",
        source: "https://github.com/yosoyjay/AI-benchmarking-guide Azure_Results/ND_MI300X_v5_results.md, \"HBM Bandwidth\"",
        source_key: "azure-ai-benchmarking-guide",
        quote: "### HBM Bandwidth … | Triad | 4.10              |",
        notes: "77% of 5.3 TB/s; 805 MB exceeds the 256 MB Infinity Cache, so this is HBM",
        ..MEMORY
    },
    Point {
        id: "azure-gb200-hbm-7.35TBs",
        family: Family::Blackwell,
        link: "?chip=b200&op=custom:flops=67108864,bytes=805306368",
        measured: "7.35 TB/s (92% efficiency)",
        measured_s: TRIAD_BYTES / 7.35e12,
        derivation: "on the guide's BabelStream Triad (805.3 MB): 805.3e6 / 7.35e12 = 110 µs (the kernel is assumed; the post names the guide as its method)",
        conditions: "1× NVIDIA GB200 Blackwell GPU (Azure ND GB200 v6), mapped to the b200 preset (8 TB/s HBM3e); Azure AI Benchmarking Guide microbenchmarks; array size and kernel not restated",
        source: "https://techcommunity.microsoft.com/blog/azurehighperformancecomputingblog/azure%E2%80%99s-nd-gb200-v6-delivers-record-performance-for-inference-workloads/4399253",
        source_key: "azure-gb200-blog",
        quote: "Additionally, we measured 7.35 TB/s HBM bandwidth utilization (92% efficiency)",
        notes: "which STREAM kernel gives 7.35 is not stated; GB200's GPU runs at a higher power limit than HGX B200",
        ..MEMORY
    },
];
