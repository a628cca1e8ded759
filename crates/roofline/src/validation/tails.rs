//! The tails (issue 39, point 4): published measurements of the four classes of work the
//! expectation missed — FP8 training under Megatron-style parallelism, expert-parallel
//! prefill, collectives down to small messages, GEMMs on CDNA 4. Pure data, every figure
//! quoted; rows chosen by the rule each source's comment states, so no row is picked for how
//! it fits.

use super::{Compared, Family, MeasureKind, Point, Tier};

const MBRIDGE: &str = "https://github.com/NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md (commit 00b7660), \"25.11 NeMo Container\", Pre-Training Performance (also https://docs.nvidia.com/nemo/megatron-bridge/latest/performance-summary.html)";
const NEMO2407: &str = "https://github.com/NVIDIA/NeMo docs/source/performance/performance_summary.md (commit 070a0bb), Pretraining, container NeMo 24.07, DGX-H100, FP8";
const SGLANG: &str = "https://lmsys.org/blog/2025-05-05-large-scale-ep/ (the SGLang Team, 5 May 2025; source lm-sys/lm-sys.github.io blog/2025-05-05-large-scale-ep.md, commit 2db4e40), \"Evaluation\"";
const ROCM_CDNA4: &str = "https://rocm.blogs.amd.com/software-tools-optimization/cdna4-gemm-kernels/README.html (AMD, 10 Mar 2026; source ROCm/rocm-blogs blogs/software-tools-optimization/cdna4-gemm-kernels/README.md, commit c9ef806), Table 5";
const AZURE_H200: &str = "https://github.com/Azure/AI-benchmarking-guide Azure_Results/ND_H200_v5_results.md (commit 7f20e5f), \"NCCL Bandwidth\"";
const AZURE_GB200: &str = "https://github.com/Azure/AI-benchmarking-guide Azure_Results/ND_GB200_v6_results.md (commit fa79995), \"NCCL Bandwidth\"";
const A3MEGA: &str =
    "https://github.com/lessizzmore/create-a3mega-ztan-fork ztan-NCCL-test-result (commit 02dd8f4)";

/// A Megatron-Bridge 25.11 row: the table's common conditions after the row's own. Rows by
/// rule: every dense Llama row of a system the catalog has (DGX-H100, DGX-B200, DGX-GB200 as
/// the b200 preset; no GB300 preset), a row with context parallelism kept as not expressible.
macro_rules! mbridge {
    ($row:literal) => {
        concat!($row, "; Megatron-Bridge performance recipes, NeMo 25.11 container; FP8-CS: FP8 current scaling (Transformer Engine: the linear layers' GEMMs in FP8, attention and the rest in BF16); synthetic data; activation recomputation not stated in the table (remat=none linked: the lower bound)")
    };
}
const GB200_NOTE: &str = "GB200 is linked as the b200 preset (the catalog has no GB200 yet): GB200's higher power limit may put its peak up to 10 % above HGX B200's, so the bound may sit low. Interleaved pipelining (VP) is not modelled: the link runs 1F1B with the table's accumulation steps as microbatches";

/// A NeMo 24.07 row. Rows by rule: every Llama row (Llama 2 and 3), one with context
/// parallelism kept as not expressible.
macro_rules! nemo2407 {
    ($row:literal) => {
        concat!($row, "; NeMo 24.07 container on DGX-H100 (8× H100 SXM 80GB per node, NVLink 4, InfiniBand between nodes); FP8 (Transformer Engine); activation recomputation not stated (remat=none linked)")
    };
}

const TRAIN: Point = Point {
    work: MeasureKind::Training,
    tier: Tier::VendorPublished,
    ..Point::EMPTY
};

/// An all-reduce of `bytes` over `n` ranks at a bus bandwidth (bytes/s): seconds (nccl-tests:
/// `algbw = busbw · n / (2(n − 1))`).
const fn allreduce_s(bytes: f64, n: f64, busbw: f64) -> f64 {
    bytes / (busbw * n / (2.0 * (n - 1.0)))
}

const COLL: Point = Point {
    work: MeasureKind::Collective,
    ..Point::EMPTY
};

/// SGLang's prefill rows: the blog's conditions. 16,384 tokens per GPU are stated for the 4K
/// prompts (its profile section) and the TBO section says TBO is what lets a GPU take 16,384.
macro_rules! sglang {
    ($prompt:literal) => {
        concat!("32× H100 80GB (4 nodes of 8, InfiniBand between nodes; the NIC per GPU is not stated: 400 Gb/s (~50 GB/s, DeepEP's figure) set as dcn), SGLang with prefill-decode disaggregation measuring the prefill nodes alone; DeepSeek-V3 (671B MoE, MLA) in FP8 (DeepGEMM), routed experts EP32 over DeepEP normal dispatch, DP attention, two-batch overlap (TBO), EPLB from the input distribution; prompts of ", $prompt, " tokens, 16,384 tokens per GPU (stated for 4K; assumed for 1K and 2K, the most a GPU takes with TBO)")
    };
}
const SGLANG_QUOTE: &str = "Prefill Phase: On 4 nodes (4×8×H100, EP32), the system achieved per-node throughputs of 57,674, 54,543, and 50,302 tokens per second for prompt lengths of 1K, 2K, and 4K, respectively.";
const SGLANG_NOTE: &str = "the bound sums every part of the step, its AllToAll dispatch and combine over dcn included; TBO runs one micro-batch's communication under the other's computation (the ep-overlap term's mechanism)";

const PREFILL: Point = Point {
    work: MeasureKind::Prefill,
    compared: Compared::TLower,
    source: SGLANG,
    source_key: "sglang-large-scale-ep-blog",
    quote: SGLANG_QUOTE,
    tier: Tier::VendorPublished,
    notes: SGLANG_NOTE,
    ..Point::EMPTY
};

pub(super) static POINTS: &[Point] = &[
    // ---- FP8 training, Megatron-Bridge 25.11 ---------------------------------------------
    Point {
        id: "mbridge2511-h100-llama3-8b-fp8-8gpu-training",
        family: Family::Hopper,
        link: "?chip=h100&op=train:preset=llama3-8b,batch=1048576,seq=8192,dp=1,fsdp=8,tp=1,pp=1,mb=16,act=fp8,remat=none",
        measured: "14,451 tokens/s/GPU (744 model TFLOP/s/GPU)",
        measured_s: 128.0 * 8192.0 / (8.0 * 14451.0),
        derivation: "a step of GBS 128 × 8,192 = 1,048,576 tokens / (8 GPUs × 14,451 tokens/s) = 9.070 s",
        conditions: mbridge!("8× H100 (DGX-H100), Llama 3 8B, FP8-CS, GBS 128, MBS 1, seq 8,192, FSDP over the 8 GPUs (FSDP 1), TP 1, PP 1, CP 1, 16 accumulation steps"),
        source: MBRIDGE,
        source_key: "megatron-bridge-perf-25.11",
        quote: concat!("System: DGX-H100 ", "| LLAMA3_8B | 8 | FP8-CS | 128 | 1 | 8192 | 1 | 1 | 1 | 1 | n/a | 1 | 16 | 14451 | 744 |"),
        notes: "Megatron-Bridge's own listing of this recipe names recomputation: with block recomputation the bound would be a third longer (8N against 6N)",
        ..TRAIN
    },
    Point {
        id: "mbridge2511-h100-llama3-70b-fp8-64gpu-training",
        family: Family::Hopper,
        link: "?chip=h100&op=train:preset=llama3-70b,batch=1048576,seq=8192,dp=2,fsdp=1,tp=4,pp=8,mb=64,act=fp8,remat=none",
        measured: "1,602 tokens/s/GPU (719 model TFLOP/s/GPU)",
        measured_s: 128.0 * 8192.0 / (64.0 * 1602.0),
        derivation: "GBS 128 × 8,192 = 1,048,576 tokens / (64 × 1,602 tokens/s) = 10.23 s",
        conditions: mbridge!("64× H100 (8 DGX-H100 nodes), Llama 3 70B, FP8-CS, GBS 128, MBS 1, seq 8,192, DDP (FSDP 0), TP 4, PP 8, CP 1, VP 5, 64 accumulation steps: DP 2"),
        source: MBRIDGE,
        source_key: "megatron-bridge-perf-25.11",
        quote: concat!("System: DGX-H100 ", "| LLAMA3_70B | 64 | FP8-CS | 128 | 1 | 8192 | 0 | 4 | 8 | 1 | 5 | 1 | 64 | 1602 | 719 |"),
        notes: "interleaved pipelining (VP 5) shrinks the bubble the 1F1B link counts (7/71 of the step) five times",
        ..TRAIN
    },
    Point {
        id: "mbridge2511-h100-llama3.1-405b-fp8-1024gpu-cp2-training",
        family: Family::Hopper,
        link: "?chip=h100&op=train:preset=llama3.1-405b,batch=4194304,seq=8192,dp=16,fsdp=1,tp=8,pp=8,mb=32,act=fp8,remat=none",
        measured: "292 tokens/s/GPU (737 model TFLOP/s/GPU)",
        measured_s: 512.0 * 8192.0 / (1024.0 * 292.0),
        derivation: "GBS 512 × 8,192 = 4,194,304 tokens / (1,024 × 292 tokens/s) = 14.03 s",
        conditions: mbridge!("1,024× H100, Llama 3.1 405B, FP8-CS, GBS 512, MBS 1, seq 8,192, TP 8, PP 8, CP 2, VP 8, 64 accumulation steps"),
        source: MBRIDGE,
        source_key: "megatron-bridge-perf-25.11",
        quote: concat!("System: DGX-H100 ", "| LLAMA3.1_405B | 1024 | FP8-CS | 512 | 1 | 8192 | 0 | 8 | 8 | 2 | 8 | 1 | 64 | 292 | 737 |"),
        notes: "context parallelism halves each sequence over two GPUs",
        expressible: Err("context parallelism (CP 2): the train kind has no context-parallel axis"),
        ..TRAIN
    },
    Point {
        id: "mbridge2511-b200-llama3-8b-fp8-8gpu-training",
        family: Family::Blackwell,
        link: "?chip=b200&op=train:preset=llama3-8b,batch=1048576,seq=8192,dp=8,fsdp=1,tp=1,pp=1,mb=8,act=fp8,remat=none",
        measured: "30,624 tokens/s/GPU (1,576 model TFLOP/s/GPU)",
        measured_s: 128.0 * 8192.0 / (8.0 * 30624.0),
        derivation: "GBS 128 × 8,192 = 1,048,576 tokens / (8 × 30,624 tokens/s) = 4.280 s",
        conditions: mbridge!("8× B200 (DGX-B200), Llama 3 8B, FP8-CS (FP8-MX 29,521 in parentheses), GBS 128, MBS 2, seq 8,192, DDP, TP 1, PP 1, CP 1, 8 accumulation steps"),
        source: MBRIDGE,
        source_key: "megatron-bridge-perf-25.11",
        quote: concat!("System: DGX-B200 ", "| LLAMA3_8B | 8 | FP8-CS (FP8-MX) | 128 | 2 | 8192 | 0 | 1 | 1 | 1 | n/a | 1 | 8 | 30624 (29521) | 1576 (1519) |"),
        notes: "the FP8-CS figure is compared (the parenthesised FP8-MX one uses 32×32 blocks)",
        ..TRAIN
    },
    Point {
        id: "mbridge2511-b200-llama3.1-405b-fp8-128gpu-cp2-training",
        family: Family::Blackwell,
        link: "?chip=b200&op=train:preset=llama3.1-405b,batch=524288,seq=8192,dp=2,fsdp=1,tp=4,pp=8,mb=32,act=fp8,remat=none",
        measured: "661 tokens/s/GPU (1,667 model TFLOP/s/GPU)",
        measured_s: 64.0 * 8192.0 / (128.0 * 661.0),
        derivation: "GBS 64 × 8,192 = 524,288 tokens / (128 × 661 tokens/s) = 6.197 s",
        conditions: mbridge!("128× B200, Llama 3.1 405B, FP8-CS, GBS 64, MBS 1, seq 8,192, TP 4, PP 8, CP 2, VP 8, 32 accumulation steps"),
        source: MBRIDGE,
        source_key: "megatron-bridge-perf-25.11",
        quote: concat!("System: DGX-B200 ", "| LLAMA3.1_405B | 128 | FP8-CS (FP8-MX) | 64 | 1 | 8192 | 0 | 4 | 8 | 2 | 8 | 1 | 32 | 661 (624) | 1667 (1576) |"),
        notes: "context parallelism halves each sequence over two GPUs",
        expressible: Err("context parallelism (CP 2): the train kind has no context-parallel axis"),
        ..TRAIN
    },
    Point {
        id: "mbridge2511-gb200-llama3-8b-fp8-8gpu-training",
        family: Family::Blackwell,
        link: "?chip=b200&op=train:preset=llama3-8b,batch=1048576,seq=8192,dp=8,fsdp=1,tp=1,pp=1,mb=8,act=fp8,remat=none",
        measured: "31,508 tokens/s/GPU (1,622 model TFLOP/s/GPU)",
        measured_s: 128.0 * 8192.0 / (8.0 * 31508.0),
        derivation: "GBS 128 × 8,192 = 1,048,576 tokens / (8 × 31,508 tokens/s) = 4.160 s",
        conditions: mbridge!("8× GB200 (DGX-GB200), Llama 3 8B, FP8-CS, GBS 128, MBS 2, seq 8,192, DDP, TP 1, PP 1, CP 1, 8 accumulation steps"),
        source: MBRIDGE,
        source_key: "megatron-bridge-perf-25.11",
        quote: concat!("System: DGX-GB200 ", "| LLAMA3_8B | 8 | FP8-CS (FP8-MX) | 128 | 2 | 8192 | 0 | 1 | 1 | 1 | n/a | 1 | 8 | 31508 (29789) | 1622 (1533) |"),
        notes: GB200_NOTE,
        ..TRAIN
    },
    Point {
        id: "mbridge2511-gb200-llama3-70b-fp8-64gpu-training",
        family: Family::Blackwell,
        link: "?chip=b200&op=train:preset=llama3-70b,batch=2097152,seq=8192,dp=1,fsdp=64,tp=1,pp=1,mb=2,act=fp8,remat=none",
        measured: "4,312 tokens/s/GPU (1,937 model TFLOP/s/GPU)",
        measured_s: 256.0 * 8192.0 / (64.0 * 4312.0),
        derivation: "GBS 256 × 8,192 = 2,097,152 tokens / (64 × 4,312 tokens/s) = 7.599 s",
        conditions: mbridge!("64× GB200, Llama 3 70B, FP8-CS, GBS 256, MBS 2, seq 8,192, FSDP over the 64 GPUs (FSDP 1), TP 1, PP 1, CP 1, 2 accumulation steps"),
        source: MBRIDGE,
        source_key: "megatron-bridge-perf-25.11",
        quote: concat!("System: DGX-GB200 ", "| LLAMA3_70B | 64 | FP8-CS | 256 | 2 | 8192 | 1 | 1 | 1 | 1 | 1 | 1 | 2 | 4312 | 1937 |"),
        notes: GB200_NOTE,
        ..TRAIN
    },
    Point {
        id: "mbridge2511-gb200-llama3.1-405b-fp8-256gpu-training",
        family: Family::Blackwell,
        link: "?chip=b200&op=train:preset=llama3.1-405b,batch=12582912,seq=8192,dp=4,fsdp=1,tp=4,pp=16,mb=384,act=fp8,remat=none",
        measured: "813 tokens/s/GPU (2,053 model TFLOP/s/GPU)",
        measured_s: 1536.0 * 8192.0 / (256.0 * 813.0),
        derivation: "GBS 1,536 × 8,192 = 12,582,912 tokens / (256 × 813 tokens/s) = 60.46 s",
        conditions: mbridge!("256× GB200, Llama 3.1 405B, FP8-CS, GBS 1,536, MBS 1, seq 8,192, DDP, TP 4, PP 16, CP 1, VP 4, 384 accumulation steps: DP 4"),
        source: MBRIDGE,
        source_key: "megatron-bridge-perf-25.11",
        quote: concat!("System: DGX-GB200 ", "| LLAMA3.1_405B | 256 | FP8-CS | 1536 | 1 | 8192 | 0 | 4 | 16 | 1 | 4 | 1 | 384 | 813 | 2053 |"),
        notes: GB200_NOTE,
        ..TRAIN
    },
    // ---- FP8 training, NeMo 24.07 ----------------------------------------------------------
    Point {
        id: "nemo2407-h100-llama2-7b-fp8-8gpu-training",
        family: Family::Hopper,
        link: "?chip=h100&op=train:layers=32,dmodel=4096,ffn=11008,gated=yes,heads=32,kv_heads=32,head_dim=128,vocab=32000,batch=524288,seq=4096,dp=8,fsdp=1,tp=1,pp=1,mb=16,act=fp8,remat=none",
        measured: "16,847 tokens/s/GPU (776 model TFLOP/s/GPU)",
        measured_s: 128.0 * 4096.0 / (8.0 * 16847.0),
        derivation: "GBS 128 × 4,096 = 524,288 tokens / (8 × 16,847 tokens/s) = 3.890 s",
        conditions: nemo2407!("8× H100, Llama 2 7B (32 layers, d 4,096, FFN 11,008 SwiGLU, 32 heads, vocab 32,000), GBS 128, MBS 1, seq 4,096, TP 1, PP 1, CP 1: DP 8, 16 microbatches"),
        source: NEMO2407,
        source_key: "nemo-24.07-perf-summary",
        quote: concat!("The results in the table below show pre-training performance for various tasks at FP8 precision. ", "| LLAMA2-7B     | 8      | 128  | 1   | 4096           | 1  | 1  | 1  | 1  | 16847              | 776                     |"),
        notes: "data parallel by DDP (the table has no FSDP column)",
        ..TRAIN
    },
    Point {
        id: "nemo2407-h100-llama2-13b-fp8-16gpu-training",
        family: Family::Hopper,
        link: "?chip=h100&op=train:layers=40,dmodel=5120,ffn=13824,gated=yes,heads=40,kv_heads=40,head_dim=128,vocab=32000,batch=524288,seq=4096,dp=4,fsdp=1,tp=1,pp=4,mb=32,act=fp8,remat=none",
        measured: "8,646 tokens/s/GPU (754 model TFLOP/s/GPU)",
        measured_s: 128.0 * 4096.0 / (16.0 * 8646.0),
        derivation: "GBS 128 × 4,096 = 524,288 tokens / (16 × 8,646 tokens/s) = 3.790 s",
        conditions: nemo2407!("16× H100, Llama 2 13B (40 layers, d 5,120, FFN 13,824, 40 heads), GBS 128, MBS 1, seq 4,096, TP 1, PP 4, CP 1, VP 10: DP 4, 32 microbatches"),
        source: NEMO2407,
        source_key: "nemo-24.07-perf-summary",
        quote: concat!("Container: NeMo24.07; System: DGX-H100. ", "| LLAMA2-13B    | 16     | 128  | 1   | 4096           | 1  | 4  | 1  | 10 | 8646               | 754                     |"),
        notes: "interleaved pipelining (VP 10) is not modelled: the 1F1B bubble the link counts is 3/35 of the step",
        ..TRAIN
    },
    Point {
        id: "nemo2407-h100-llama2-70b-fp8-64gpu-training",
        family: Family::Hopper,
        link: "?chip=h100&op=train:layers=80,dmodel=8192,ffn=28672,gated=yes,heads=64,kv_heads=8,head_dim=128,vocab=32000,batch=524288,seq=4096,dp=4,fsdp=1,tp=4,pp=4,mb=32,act=fp8,remat=none",
        measured: "1,707 tokens/s/GPU (759 model TFLOP/s/GPU)",
        measured_s: 128.0 * 4096.0 / (64.0 * 1707.0),
        derivation: "GBS 128 × 4,096 = 524,288 tokens / (64 × 1,707 tokens/s) = 4.799 s",
        conditions: nemo2407!("64× H100, Llama 2 70B (80 layers, d 8,192, FFN 28,672, 64 heads, 8 KV heads), GBS 128, MBS 1, seq 4,096, TP 4, PP 4, CP 1, VP 20: DP 4, 32 microbatches"),
        source: NEMO2407,
        source_key: "nemo-24.07-perf-summary",
        quote: concat!("Container: NeMo24.07; System: DGX-H100. ", "| LLAMA2-70B    | 64     | 128  | 1   | 4096           | 4  | 4  | 1  | 20 | 1707               | 759                     |"),
        notes: "interleaved pipelining (VP 20) is not modelled: the 1F1B bubble the link counts is 3/35 of the step",
        ..TRAIN
    },
    Point {
        id: "nemo2407-h100-llama3-8b-fp8-8gpu-cp2-training",
        family: Family::Hopper,
        link: "?chip=h100&op=train:preset=llama3-8b,batch=1048576,seq=8192,dp=4,fsdp=1,tp=1,pp=1,mb=32,act=fp8,remat=none",
        measured: "12,036 tokens/s/GPU (697 model TFLOP/s/GPU)",
        measured_s: 128.0 * 8192.0 / (8.0 * 12036.0),
        derivation: "GBS 128 × 8,192 = 1,048,576 tokens / (8 × 12,036 tokens/s) = 10.89 s",
        conditions: nemo2407!("8× H100, Llama 3 8B, GBS 128, MBS 1, seq 8,192, TP 1, PP 1, CP 2, VP 1"),
        source: NEMO2407,
        source_key: "nemo-24.07-perf-summary",
        quote: concat!("Container: NeMo24.07; System: DGX-H100. ", "| LLAMA3-8B     | 8      | 128  | 1   | 8192           | 1  | 1  | 2  | 1  | 12036              | 697                     |"),
        notes: "context parallelism halves each sequence over two GPUs",
        expressible: Err("context parallelism (CP 2): the train kind has no context-parallel axis"),
        ..TRAIN
    },
    Point {
        id: "nemo2407-h100-llama3-70b-fp8-64gpu-cp2-training",
        family: Family::Hopper,
        link: "?chip=h100&op=train:preset=llama3-70b,batch=1048576,seq=8192,dp=2,fsdp=1,tp=4,pp=4,mb=64,act=fp8,remat=none",
        measured: "1,533 tokens/s/GPU (738 model TFLOP/s/GPU)",
        measured_s: 128.0 * 8192.0 / (64.0 * 1533.0),
        derivation: "GBS 128 × 8,192 = 1,048,576 tokens / (64 × 1,533 tokens/s) = 10.69 s",
        conditions: nemo2407!("64× H100, Llama 3 70B, GBS 128, MBS 1, seq 8,192, TP 4, PP 4, CP 2, VP 5"),
        source: NEMO2407,
        source_key: "nemo-24.07-perf-summary",
        quote: concat!("Container: NeMo24.07; System: DGX-H100. ", "| LLAMA3-70B    | 64     | 128  | 1   | 8192           | 4  | 4  | 2  | 5  | 1533               | 738                     |"),
        notes: "context parallelism halves each sequence over two GPUs",
        expressible: Err("context parallelism (CP 2): the train kind has no context-parallel axis"),
        ..TRAIN
    },
    // ---- expert-parallel prefill -----------------------------------------------------------
    Point {
        id: "sglang-h100-deepseek-v3-prefill-ep32-1k",
        link: "?chip=h100:dcn=50e9&op=llm:preset=deepseek-v3,phase=prefill,tp=1,ep=32,b=512,ctx=1024,w=fp8,x=fp8,kv=bf16,link=dcn",
        measured: "57,674 input tokens/s per node (1K prompts)",
        measured_s: 16384.0 / (57674.0 / 8.0),
        derivation: "16,384 tokens per GPU / (57,674 / 8 = 7,209 tokens/s per GPU) = 2.273 s per prefill step; b = 32 GPUs × 16 prompts of 1,024",
        conditions: sglang!("1,024"),
        ..PREFILL
    },
    Point {
        id: "sglang-h100-deepseek-v3-prefill-ep32-2k",
        link: "?chip=h100:dcn=50e9&op=llm:preset=deepseek-v3,phase=prefill,tp=1,ep=32,b=256,ctx=2048,w=fp8,x=fp8,kv=bf16,link=dcn",
        measured: "54,543 input tokens/s per node (2K prompts)",
        measured_s: 16384.0 / (54543.0 / 8.0),
        derivation: "16,384 tokens per GPU / (54,543 / 8 = 6,818 tokens/s per GPU) = 2.403 s; b = 32 × 8 prompts of 2,048",
        conditions: sglang!("2,048"),
        ..PREFILL
    },
    Point {
        id: "sglang-h100-deepseek-v3-prefill-ep32-4k",
        link: "?chip=h100:dcn=50e9&op=llm:preset=deepseek-v3,phase=prefill,tp=1,ep=32,b=128,ctx=4096,w=fp8,x=fp8,kv=bf16,link=dcn",
        measured: "50,302 input tokens/s per node (4K prompts, 16,384 tokens per device)",
        measured_s: 16384.0 / (50302.0 / 8.0),
        derivation: "16,384 tokens per GPU / (50,302 / 8 = 6,288 tokens/s per GPU) = 2.606 s; b = 32 × 4 prompts of 4,096",
        conditions: sglang!("4,096"),
        ..PREFILL
    },
    Point {
        id: "deepseek-profile-h800-deepseek-v3-prefill-ep32-4k",
        family: Family::Hopper,
        link: "?chip=h800:dcn=50e9&op=llm:preset=deepseek-v3,phase=prefill,tp=1,ep=32,b=128,ctx=4096,w=fp8,x=fp8,kv=bf16,link=dcn",
        measured: "62,713 input tokens/s per node (DeepSeek's prefill profile, as SGLang reads it)",
        measured_s: 16384.0 / (62713.0 / 8.0),
        derivation: "16,384 tokens per GPU / (62,713 / 8 = 7,839 tokens/s per GPU) = 2.090 s per prefill step",
        conditions: "32× H800 (DeepSeek's profile: EP32, TP1, as deployed online), DeepSeek-V3 in FP8, prompts of 4K, 16K tokens per GPU, two micro-batches overlapping computation and all-to-all, MoE routing simulated as absolutely balanced; scale-out CX7 400 Gb/s (~50 GB/s) set as dcn",
        source: "https://github.com/deepseek-ai/profile-data README.md (commit ae7fc07) and prefill.json; the throughput as read in https://lmsys.org/blog/2025-05-05-large-scale-ep/ \"Overall Throughput\"",
        source_key: "deepseek-profile-data",
        quote: "For prefilling, the profile employs EP32 and TP1 (in line with DeepSeek V3/R1 ’s actual online deployment), with a prompt length set to 4K and a batch size of 16K tokens per GPU. In our prefilling stage, we utilize two micro-batches to overlap computation and all-to-all communication … (SGLang's table: | Throughput (per node) | 32,206 | 62,713 | 50,302 | 59,337 |, the second column \"DeepSeek Profile\")",
        tier: Tier::VendorPublished,
        notes: "a profile under simulated balanced routing, not a production average (DeepSeek's blog reports about half this in production); the throughput is SGLang's reading of the profile's times",
        ..PREFILL
    },
    // ---- GEMMs on CDNA 4 ---------------------------------------------------------------------
    Point {
        id: "rocm-hipblaslt-mi355x-fp8-4096cube",
        family: Family::Cdna4,
        link: "?chip=mi355x&op=matmul:b=4096,d=4096,f=4096,x=fp8,w=fp8,out=bf16",
        measured: "hipBLASLt 0.04997 ms, 2750.42 TFLOPS/s",
        measured_s: 0.04997e-3,
        derivation: "stated: 0.04997 ms (2·4096³ = 1.374e11 FLOP / 4.997e-5 s = 2,750 TFLOP/s)",
        conditions: "1× AMD Instinct MI355X (gfx950), ROCm 7.1.0; hipblaslt-bench, FP8 E4M3FN A and B, BF16 C and D, FP32 accumulation and scale, transA T transB N, rotating buffers 512 MB, 1,000 cold and 1,000 timed iterations; M = N = K = 4,096",
        source: ROCM_CDNA4,
        source_key: "rocm-blog-cdna4-fp8-gemm",
        quote: "We use hipBLASLt as our performance target. … | hipBLASLt | | `0.04997` | `2750.42`|  `4096` |",
        tier: Tier::VendorPublished,
        notes: "the mi355x preset's FP8 peak (5 PFLOP/s dense) is a third-party reading of AMD's brochure",
        ..Point::EMPTY
    },
    Point {
        id: "rocm-hipblaslt-mi355x-fp8-8192cube",
        family: Family::Cdna4,
        link: "?chip=mi355x&op=matmul:b=8192,d=8192,f=8192,x=fp8,w=fp8,out=bf16",
        measured: "hipBLASLt 0.351 ms, 3130.21 TFLOPS/s",
        measured_s: 0.351e-3,
        derivation: "stated: 0.351 ms (2·8192³ = 1.100e12 FLOP / 3.51e-4 s = 3,132 TFLOP/s; the table's 3,130.21 from the unrounded time)",
        conditions: "as rocm-hipblaslt-mi355x-fp8-4096cube, M = N = K = 8,192",
        source: ROCM_CDNA4,
        source_key: "rocm-blog-cdna4-fp8-gemm",
        quote: "For `M=N=K=8192`, hipBLASLt achieves `~3130 TFLOPS/s`. … | hipBLASLt | | `0.351` | `3130.21`|  `8192` |",
        tier: Tier::VendorPublished,
        notes: "63 % of the preset's dense FP8 peak",
        ..Point::EMPTY
    },
    // ---- collectives down to small messages ---------------------------------------------------
    Point {
        id: "azure-nccl-allreduce-h200-8gpu-64K",
        link: "?chip=h200&op=collective:kind=allreduce,bytes=65536,n=8,topology=node,sharp=yes",
        measured: "busbw 3.72 GB/s at 65K (65,536 B)",
        measured_s: allreduce_s(65536.0, 8.0, 3.72e9),
        derivation: "algbw = 3.72 · 8/14 = 2.126 GB/s → 65,536 B / 2.126e9 = 30.8 µs",
        conditions: "8× H200 141GB (Azure ND H200 v5, NVSwitch), NCCL 2.20.5, CUDA 12.6; nccl-tests AllReduce, NVLS algorithm, in place, 1 KB to 8 GB (the table's sizes are powers of two: 65K = 65,536 B)",
        source: AZURE_H200,
        source_key: "azure-ai-benchmarking-guide",
        quote: "The values (in GB/s), in the table 6 and figure 5 below, are the bus bandwidth values obtained from the NCCL AllReduce (NVLS algorithm) tests in-place operations, varying from 1KB to 8GB of data. | 65K                  | 3.72              |",
        notes: "latency-bound: the whole all-reduce takes about what the 1 KB one does",
        ..COLL
    },
    Point {
        id: "azure-nccl-allreduce-h200-8gpu-1M",
        link: "?chip=h200&op=collective:kind=allreduce,bytes=1048576,n=8,topology=node,sharp=yes",
        measured: "busbw 52.96 GB/s at 1M (1,048,576 B)",
        measured_s: allreduce_s(1048576.0, 8.0, 52.96e9),
        derivation: "algbw = 52.96 · 8/14 = 30.26 GB/s → 1,048,576 B / 3.026e10 = 34.7 µs",
        conditions: "as azure-nccl-allreduce-h200-8gpu-64K, 1M = 1,048,576 B",
        source: AZURE_H200,
        source_key: "azure-ai-benchmarking-guide",
        quote: "| 1M                   | 52.96             |",
        notes: "the class issue 39 names: 1 MiB on 8 GPUs",
        ..COLL
    },
    Point {
        id: "azure-nccl-allreduce-h200-8gpu-16M",
        link: "?chip=h200&op=collective:kind=allreduce,bytes=16777216,n=8,topology=node,sharp=yes",
        measured: "busbw 240.41 GB/s at 16M (16,777,216 B)",
        measured_s: allreduce_s(16777216.0, 8.0, 240.41e9),
        derivation: "algbw = 240.41 · 8/14 = 137.4 GB/s → 16,777,216 B / 1.374e11 = 122 µs",
        conditions: "as azure-nccl-allreduce-h200-8gpu-64K, 16M = 16,777,216 B",
        source: AZURE_H200,
        source_key: "azure-ai-benchmarking-guide",
        quote: "| 16M                  | 240.41            |",
        notes: "half the large-message bus bandwidth (479.98 GB/s at 8G)",
        ..COLL
    },
    Point {
        id: "azure-nccl-allreduce-h200-8gpu-64M",
        link: "?chip=h200&op=collective:kind=allreduce,bytes=67108864,n=8,topology=node,sharp=yes",
        measured: "busbw 368.11 GB/s at 67M (67,108,864 B)",
        measured_s: allreduce_s(67108864.0, 8.0, 368.11e9),
        derivation: "algbw = 368.11 · 8/14 = 210.3 GB/s → 67,108,864 B / 2.103e11 = 319 µs",
        conditions: "as azure-nccl-allreduce-h200-8gpu-64K, 67M = 67,108,864 B",
        source: AZURE_H200,
        source_key: "azure-ai-benchmarking-guide",
        quote: "| 67M                  | 368.11            |",
        notes: "77 % of the large-message bus bandwidth",
        ..COLL
    },
    Point {
        id: "azure-nccl-allreduce-gb200-4gpu-1M",
        family: Family::Blackwell,
        link: "?chip=b200&op=collective:kind=allreduce,bytes=1048576,n=4,topology=node",
        measured: "busbw 80.48 GB/s at 1M (1,048,576 B)",
        measured_s: allreduce_s(1048576.0, 4.0, 80.48e9),
        derivation: "n = 4: algbw = 80.48 · 4/6 = 53.65 GB/s → 1,048,576 B / 5.365e10 = 19.5 µs",
        conditions: "4× NVIDIA GB200 185GB, the GPUs of one Azure ND GB200 v6 VM, NVLink 5; nccl-tests AllReduce, Ring algorithm, in place, 1 KB to 8 GB; NCCL 2.25.1, CUDA 12.8 (as azure-nccl-allreduce-gb200-4gpu-8G)",
        source: AZURE_GB200,
        source_key: "azure-ai-benchmarking-guide",
        quote: "The values (in GB/s) are the bus bandwidth values obtained from the NCCL AllReduce (Ring algorithm) tests in-place operations, varying from 1KB to 8GB of data. | 1M          | 80.48           |",
        notes: "the 4 ranks are an assumption from the VM size, as for the 8G row",
        ..COLL
    },
    Point {
        id: "azure-nccl-allreduce-gb200-4gpu-16M",
        family: Family::Blackwell,
        link: "?chip=b200&op=collective:kind=allreduce,bytes=16777216,n=4,topology=node",
        measured: "busbw 331.09 GB/s at 16M (16,777,216 B)",
        measured_s: allreduce_s(16777216.0, 4.0, 331.09e9),
        derivation: "algbw = 331.09 · 4/6 = 220.7 GB/s → 16,777,216 B / 2.207e11 = 76.0 µs",
        conditions: "as azure-nccl-allreduce-gb200-4gpu-1M, 16M = 16,777,216 B",
        source: AZURE_GB200,
        source_key: "azure-ai-benchmarking-guide",
        quote: "| 16M         | 331.09          |",
        notes: "the 4 ranks are an assumption from the VM size",
        ..COLL
    },
    Point {
        id: "azure-nccl-allreduce-gb200-4gpu-64M",
        family: Family::Blackwell,
        link: "?chip=b200&op=collective:kind=allreduce,bytes=67108864,n=4,topology=node",
        measured: "busbw 550.73 GB/s at 67M (67,108,864 B)",
        measured_s: allreduce_s(67108864.0, 4.0, 550.73e9),
        derivation: "algbw = 550.73 · 4/6 = 367.2 GB/s → 67,108,864 B / 3.672e11 = 183 µs",
        conditions: "as azure-nccl-allreduce-gb200-4gpu-1M, 67M = 67,108,864 B",
        source: AZURE_GB200,
        source_key: "azure-ai-benchmarking-guide",
        quote: "| 67M         | 550.73          |",
        notes: "the 4 ranks are an assumption from the VM size",
        ..COLL
    },
    Point {
        id: "a3mega-nccl-allreduce-h100-2node-16gpu-1MiB",
        link: "?chip=h100:dcn=25e9&op=collective:kind=allreduce,bytes=1048576,n=16,topology=cluster,levels=8/2",
        measured: "203.2 µs at 1,048,576 B (algbw 5.16, busbw 9.68 GB/s), out of place",
        measured_s: 203.2e-6,
        derivation: "stated: 203.2 µs out of place (207.2 in place)",
        conditions: "16× H100 80GB HBM3 in 2 Google Cloud VMs of 8 (the repository is named for A3 Mega: 8 NICs of 200 Gb/s with GPUDirect-TCPXO per VM, ~25 GB/s per GPU, set as dcn; the VM type is read from the name, not stated); nccl-tests all_reduce_perf -b 8 -e 8G -f 2 -g 1 over mpirun -np 16 -npernode 8, float sum, 5 warm-up and 20 timed iterations; NCCL version not stated",
        source: A3MEGA,
        source_key: "a3mega-user-nccl-tests",
        quote: "     1048576        262144     float     sum      -1    203.2    5.16    9.68      0    207.2    5.06    9.49      0",
        tier: Tier::CommunityBenchmark,
        notes: "a TCP-based GPUDirect transport: even 8 B take 123 µs, far above NCCL's InfiniBand latencies",
        ..COLL
    },
    Point {
        id: "a3mega-nccl-allreduce-h100-2node-16gpu-64MiB",
        link: "?chip=h100:dcn=25e9&op=collective:kind=allreduce,bytes=67108864,n=16,topology=cluster,levels=8/2",
        measured: "1,261.6 µs at 67,108,864 B (algbw 53.20, busbw 99.74 GB/s), out of place",
        measured_s: 1261.6e-6,
        derivation: "stated: 1,261.6 µs out of place (1,270.2 in place)",
        conditions: "as a3mega-nccl-allreduce-h100-2node-16gpu-1MiB, 64 MiB",
        source: A3MEGA,
        source_key: "a3mega-user-nccl-tests",
        quote: "    67108864      16777216     float     sum      -1   1261.6   53.20   99.74      0   1270.2   52.83   99.06      0",
        tier: Tier::CommunityBenchmark,
        notes: "the class issue 39 names: 64 MiB across nodes (here 2 nodes, not 4)",
        ..COLL
    },
];
