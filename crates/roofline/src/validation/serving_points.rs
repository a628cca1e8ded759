//! LLM serving: decode and prefill measurements. Pure data, every figure quoted.
//!
//! Throughputs become a time in the compared figure's terms: a "total output throughput" of a
//! group is `1 / throughput` seconds per output token ([`Compared::PerOutputToken`]: the
//! scenario serves `min(b, max_batch)` requests of `prompt` + `output` tokens as a static
//! batch); a first-token latency is a prefill step (`t_lower` of `phase=prefill`); a
//! per-sequence output speed is a decode step. Llama 2 is not in the zoo: its links spell the
//! shape (`preset=custom,layers=..`). Where a source gives no running batch, the link's `b` is
//! the number of requests the benchmark offers at once (capped by what fits).

use super::{Compared, Family, MeasureKind, Point};

const TRT061: &str = "https://github.com/NVIDIA/TensorRT-LLM docs/source/performance.md (commit 138f96d), \"Peak Throughput\" (v0.6.1) and \"Low Latency\" (v0.5)";
/// Why TensorRT-LLM v0.6.1's Llama 2 70B rows (GQA: 8 KV heads for 64 query heads) sit far
/// further above the bound than its MHA 7B rows (1.25–1.34).
macro_rules! pre_xqa {
    () => {
        "v0.6.1 predates the XQA kernel, which reads each KV head once for its group of query heads. Before it, the generation phase ran the masked MHA kernel, \"a single CUDA thread-block per head\" (docs/source/gpt_attention.md), so each of the 8 query heads of a group read its KV head's cache. A later revision of this page (commit 77d24b5, same rows) calls those kernels experimental, off unless TRTLLM_ENABLE_XQA=1 is set, and NVIDIA's XQA post (docs/source/blogs/XQA-kernel.md: \"2.4x more Llama-70B throughput within the same latency budget\", H200, FP8, 128/2048, v0.8a) measures what they changed. The llm kind reads the cache once per KV head, as XQA and FlashAttention-style kernels do, so this row's gap is mostly that kernel, not the roofline's terms."
    };
}
const TRT10: &str = "https://github.com/NVIDIA/TensorRT-LLM docs/source/performance/perf-overview.md (commit 00f3768)";
/// The conditions of a TensorRT-LLM perf-overview row: its SKU and model, then the table's common ones.
macro_rules! trt10 {
    ($sku:literal) => {
        concat!($sku, "; TensorRT-LLM perf overview (v1.0-era docs, PyTorch backend, trtllm-bench throughput), synthetic requests of fixed length, 3,000 requests at an infinite rate, --kv_cache_free_gpu_mem_fraction 0.95 in many cases; in-flight batching")
    };
}
/// A quote: the source's sentence on its conditions, then the row.
macro_rules! trt10_quote {
    ($row:literal) => {
        concat!("The below table shows performance data where a local inference client is fed requests at an infinite rate (no delay between messages), and shows the throughput scenario under maximum load. The reported metric is `Total Output Throughput (tokens/sec)`. ", $row)
    };
}
const AZURE_GB200_SRC: &str = "https://github.com/Azure/AI-benchmarking-guide Azure_Results/ND_GB200_v6_results.md (commit 2a370be), \"End-to-End Inference Workloads - TensorRT-LLM\"";
const AZURE_GB200_TRT: &str = "NVIDIA GB200 185GB GPUs of one Azure ND GB200 v6 VM, mapped to the b200 preset; TensorRT-LLM (version not stated), FP8 quantization (KV dtype not stated: FP8 assumed), 1,000 requests of input 128 / output 2048 tokens; CUDA 12.8, PyTorch 2.6.0";
const AZURE_GB200_TRT_NOTE: &str = "whether the column counts output tokens or all tokens is not stated (all tokens would make the output rate 2048/2176 = 94 % of it); the running batch is not reported: b = the 1,000 requests, capped at what fits";
const AMD: &str = "https://www.amd.com/en/developer/resources/rocm-hub/dev-ai/performance-results.html (vLLM inference table)";
const DEEPSEEK: &str = "https://github.com/deepseek-ai/open-infra-index 202502OpenSourceWeek/day_6_one_more_thing_deepseekV3R1_inference_system_overview.md";

const DECODE: Point = Point {
    work: MeasureKind::Decode,
    compared: Compared::PerOutputToken,
    ..Point::EMPTY
};

const PREFILL: Point = Point {
    work: MeasureKind::Prefill,
    ..DECODE
};

pub(super) static POINTS: &[Point] = &[
    // ---- decode -----------------------------------------------------------------------
    Point {
        id: "deepseek-v3-h800-decode-ep144-node",
        link: "?chip=h800:dcn=50e9&op=llm:preset=deepseek-v3,experts=288,phase=decode,tp=1,ep=144,b=12672,ctx=4989,w=fp8,x=fp8,kv=bf16,link=dcn",
        measured: "~14.8k tokens/s output per H800 node; 20–22 tokens/s per user; average KV 4,989",
        measured_s: 1.0 / 21.0,
        derivation: "a decode step per sequence = 1 / 21 tokens/s (mid of 20–22) = 47.6 ms; batch 14,800 / 8 / 21 ≈ 88 sequences per GPU × 144 = 12,672 (inferred, not published)",
        conditions: "144× H800 (18 nodes of 8), DeepSeek-V3/R1 671B MoE with MLA, production service averaged over 24 h; decode disaggregated: routed experts EP144, MLA and shared expert DP144; FP8 matmuls and dispatch, BF16 MLA core and combine; dual-batch overlap; scale-out CX7 400 Gb/s (~50 GB/s, DeepEP's figure) set as dcn",
        source: DEEPSEEK,
        source_key: "deepseek-v3-inference-overview",
        quote: "The average output speed was 20–22 tokens per second, and the average kvcache length per output token was 4,989 tokens. … Each H800 node delivers an average throughput of ~73.7k tokens/s input (including cache hits) during prefilling or ~14.8k tokens/s output during decoding.",
        notes: "experts=288: the 256 routed experts plus the 32 redundant copies, 2 per GPU as deployed (top-8 routing unchanged, every copy's weights read); a fleet average under diurnal load (idle time, imbalance), not a peak; the batch per GPU is inferred; whether MTP speculative decoding was on is not stated",
        compared: Compared::TLower,
        ..DECODE
    },
    Point {
        id: "trtllm061-h100-llama2-70b-tp4-b480-decode",
        link: "?chip=h100&op=llm:preset=custom,layers=80,dmodel=8192,ffn=28672,gated=yes,heads=64,kv_heads=8,head_dim=128,vocab=32000,b=480,tp=4,link=nvlink,w=fp8,x=fp8,kv=fp8,prompt=128,output=2048",
        measured: "1,486 out tok/s/GPU",
        measured_s: 1.0 / (4.0 * 1486.0),
        derivation: "group of 4 GPUs: 4 × 1,486 = 5,944 output tokens/s → 168 µs per output token",
        conditions: "4× H100 SXM 80GB; TensorRT-LLM v0.6.1 gptSessionBenchmark (static batch), FP8 weights and activations, FP8 KV cache; LLaMA-2 70B, batch 480, TP 4, input 128, output 2048",
        source: TRT061,
        source_key: "trtllm-performance-md",
        quote: "| LLaMA 70B | 480 | 4 | 128 | 2048 | 1,486 |",
        notes: concat!("a throughput over the whole generation (the prefill of 128-token prompts included). ", pre_xqa!(), " Read once per query head, this row's cache would bound it at 133 µs per output token (ratio 1.27)"),
        ..DECODE
    },
    Point {
        id: "trtllm061-h100-llama2-7b-tp1-b112-decode",
        link: "?chip=h100&op=llm:preset=custom,layers=32,dmodel=4096,ffn=11008,gated=yes,heads=32,kv_heads=32,head_dim=128,vocab=32000,b=112,tp=1,w=fp8,x=fp8,kv=fp8,prompt=128,output=2048",
        measured: "6,818 out tok/s/GPU",
        measured_s: 1.0 / 6818.0,
        derivation: "1 / 6,818 tokens/s = 147 µs per output token",
        conditions: "1× H100 SXM 80GB; TensorRT-LLM v0.6.1, static batch, FP8 + FP8 KV; LLaMA-2 7B (MHA), batch 112, TP 1, input 128, output 2048",
        source: TRT061,
        source_key: "trtllm-performance-md",
        quote: "| LLaMA 7B | 112 | 1 | 128 | 2048 | 6,818 |",
        notes: "MHA: KV-cache reads dominate at this batch and context",
        ..DECODE
    },
    Point {
        id: "trtllm061-a100-llama2-7b-tp1-b60-decode",
        family: Family::Ampere,
        link: "?chip=a100&op=llm:preset=custom,layers=32,dmodel=4096,ffn=11008,gated=yes,heads=32,kv_heads=32,head_dim=128,vocab=32000,b=60,tp=1,w=bf16,x=bf16,kv=bf16,prompt=128,output=2048",
        measured: "1,928 out tok/s/GPU",
        measured_s: 1.0 / 1928.0,
        derivation: "1 / 1,928 tokens/s = 519 µs per output token",
        conditions: "1× A100 (80 GB implied by the batch); TensorRT-LLM v0.6.1, static batch, FP16; LLaMA-2 7B, batch 60, TP 1, input 128, output 2048",
        source: TRT061,
        source_key: "trtllm-performance-md",
        quote: "### A100 GPUs (FP16) | LLaMA 7B | 60 | 1 | 128 | 2048 | 1,928 |",
        notes: "FP16 on A100 (\"you will need to remove the --enable_fp8 --fp8_kv_cache options\"); BF16 has the same size and peak",
        ..DECODE
    },
    Point {
        id: "trtllm061-a100-llama2-70b-tp4-b240-decode",
        family: Family::Ampere,
        link: "?chip=a100&op=llm:preset=custom,layers=80,dmodel=8192,ffn=28672,gated=yes,heads=64,kv_heads=8,head_dim=128,vocab=32000,b=240,tp=4,link=nvlink,w=bf16,x=bf16,kv=bf16,prompt=128,output=2048",
        measured: "525 out tok/s/GPU",
        measured_s: 1.0 / (4.0 * 525.0),
        derivation: "per GPU, as a later revision of the page heads this table (\"Throughput (out tok/s/GPU)\", commit 77d24b5, same rows): 4 × 525 = 2,100 tokens/s → 476 µs per output token",
        conditions: "4× A100 (80 GB implied); TensorRT-LLM v0.6.1, static batch, FP16; LLaMA-2 70B, batch 240, TP 4, input 128, output 2048",
        source: TRT061,
        source_key: "trtllm-performance-md",
        quote: "| LLaMA 70B | 240 | 4 | 128 | 2048 | 525 |",
        notes: concat!("the revision quoted heads the A100 table \"out tok/s\"; the later one settles it as per GPU. ", pre_xqa!(), " Read once per query head, this row's cache would bound it at 490 µs per output token (ratio 0.97, above the measurement): some of the repeated reads hit the L2 cache"),
        ..DECODE
    },
    Point {
        id: "trtllm10-b200-llama3.3-70b-tp1-fp4-128-2048",
        family: Family::Blackwell,
        link: "?chip=b200&op=llm:preset=llama3.1-70b,tp=1,w=fp4,x=fp4,kv=fp8,prompt=128,output=2048,b=3000",
        measured: "9,922 Total Output Throughput (tokens/sec)",
        measured_s: 1.0 / 9922.0,
        derivation: "1 / 9,922 = 101 µs per output token",
        conditions: trt10!("1× B200 180GB (DGX B200); nvidia/Llama-3.3-70B-Instruct-FP4 (FP4 weights), TP 1, ISL 128 / OSL 2048; KV dtype not stated (FP8 assumed)"),
        source: TRT10,
        source_key: "trtllm-perf-overview",
        quote: trt10_quote!("| 128/2048 | 9,922 | 11,309 | 4,336 | 6,651 | (B200 TP1 FP4 column)"),
        notes: "the running batch is not reported: b = the 3,000 requests, capped at what fits; Llama 3.3 70B has Llama 3.1 70B's architecture",
        ..DECODE
    },
    Point {
        id: "trtllm10-h200-llama3.3-70b-tp1-fp8-128-2048",
        link: "?chip=h200&op=llm:preset=llama3.1-70b,tp=1,w=fp8,x=fp8,kv=fp8,prompt=128,output=2048,b=3000",
        measured: "4,336 Total Output Throughput (tokens/sec)",
        measured_s: 1.0 / 4336.0,
        derivation: "1 / 4,336 = 231 µs per output token",
        conditions: trt10!("1× H200 SXM 141GB, nvidia/Llama-3.3-70B-Instruct-FP8"),
        source: TRT10,
        source_key: "trtllm-perf-overview",
        quote: trt10_quote!("| 128/2048 | 9,922 | 11,309 | 4,336 | 6,651 | (H200 TP1 FP8 column)"),
        notes: "KV capacity (141 GB − 70 GB of weights) limits the batch",
        ..DECODE
    },
    Point {
        id: "trtllm10-h100-llama3.1-8b-tp1-fp8-128-2048",
        link: "?chip=h100&op=llm:preset=llama3.1-8b,tp=1,w=fp8,x=fp8,kv=fp8,prompt=128,output=2048,b=3000",
        measured: "22,714 Total Output Throughput (tokens/sec)",
        measured_s: 1.0 / 22714.0,
        derivation: "1 / 22,714 = 44.0 µs per output token",
        conditions: trt10!("1× H100 SXM 80GB, nvidia/Llama-3.1-8B-Instruct-FP8"),
        source: TRT10,
        source_key: "trtllm-perf-overview",
        quote: trt10_quote!("| 128/2048 | 26,221 | 22,714 | (Llama 3.1 8B table, H100 TP1 FP8 column)"),
        notes: "the request count of this table is not restated (3,000 assumed)",
        ..DECODE
    },
    Point {
        id: "azure-trtllm-gb200-llama3.1-8b-tp1-fp8-128-2048",
        family: Family::Blackwell,
        link: "?chip=b200&op=llm:preset=llama3.1-8b,tp=1,w=fp8,x=fp8,kv=fp8,prompt=128,output=2048,b=1000",
        measured: "39,809 throughput (tokens/sec)",
        measured_s: 1.0 / 39809.0,
        derivation: "read as output tokens: 1 / 39,809 = 25.1 µs per output token",
        conditions: AZURE_GB200_TRT,
        source: AZURE_GB200_SRC,
        source_key: "azure-ai-benchmarking-guide",
        quote: "Performance results for LLAMA 3.1 (8B) with FP8 quantization, 1000 requests. | 1       | 128       | 2048       | 39809                  |",
        notes: AZURE_GB200_TRT_NOTE,
        ..DECODE
    },
    Point {
        id: "azure-trtllm-gb200-llama3-70b-tp4-fp8-128-2048",
        family: Family::Blackwell,
        link: "?chip=b200&op=llm:preset=llama3-70b,tp=4,link=nvlink,w=fp8,x=fp8,kv=fp8,prompt=128,output=2048,b=1000",
        measured: "21,374 throughput (tokens/sec)",
        measured_s: 1.0 / 21374.0,
        derivation: "read as the group's output tokens: 1 / 21,374 = 46.8 µs per output token",
        conditions: AZURE_GB200_TRT,
        source: AZURE_GB200_SRC,
        source_key: "azure-ai-benchmarking-guide",
        quote: "Performance results for LLAMA 3 (70B) with FP8 quantization, 1000 requests. | 4       | 128       | 2048       |  21374                 |",
        notes: AZURE_GB200_TRT_NOTE,
        ..DECODE
    },
    Point {
        id: "trtllm10-h100-llama3.1-405b-tp8-fp8-128-2048",
        link: "?chip=h100&op=llm:preset=llama3.1-405b,tp=8,link=nvlink,w=fp8,x=fp8,kv=fp8,prompt=128,output=2048,b=3000",
        measured: "4,340 Total Output Throughput (tokens/sec)",
        measured_s: 1.0 / 4340.0,
        derivation: "1 / 4,340 = 230 µs per output token of the 8-GPU group",
        conditions: trt10!("8× H100 SXM 80GB, nvidia/Llama-3.1-405B-Instruct-FP8"),
        source: TRT10,
        source_key: "trtllm-perf-overview",
        quote: trt10_quote!("| 128/2048 | 8,020 | 8,151 | 5,348 | 4,340 | (Llama 3.1 405B table, H100 TP8 FP8 column)"),
        notes: "405 GB of weights leave ≈235 GB of KV: a capacity-limited batch",
        ..DECODE
    },
    Point {
        id: "trtllm10-b200-qwen3-235b-tp8-fp4-1000-1000",
        family: Family::Blackwell,
        link: "?chip=b200&op=llm:preset=qwen3-235b-a22b,tp=8,link=nvlink,w=fp4,x=fp4,kv=fp8,prompt=1000,output=1000,b=3000",
        measured: "42,391 Total Output Throughput (tokens/sec)",
        measured_s: 1.0 / 42391.0,
        derivation: "1 / 42,391 = 23.6 µs per output token of the 8-GPU group",
        conditions: trt10!("8× B200, nvidia/Qwen3-235B-A22B-FP4, ISL 1000 / OSL 1000: half the tokens are prefill"),
        source: TRT10,
        source_key: "trtllm-perf-overview",
        quote: trt10_quote!("| 1000/1000 | 42,391 | 23,789 | 14,898 | (Qwen3-235B-A22B table, B200 TP8 FP4 column)"),
        notes: "the MoE recipe uses attention DP + EP, the exact layout of this row is not stated (TP 8 linked)",
        ..DECODE
    },
    Point {
        id: "vllm-mi300x-llama3.1-70b-tp8-fp8-128-2048",
        family: Family::Cdna3,
        link: "?chip=mi300x&op=llm:preset=llama3.1-70b,tp=8,link=nvlink,w=fp8,x=fp8,kv=fp8,prompt=128,output=2048,b=3200",
        measured: "16581.5 Throughput (tokens/s)",
        measured_s: 1.0 / 16581.5,
        derivation: "1 / 16,581.5 = 60.3 µs per output token of the 8-GPU group",
        conditions: "8× AMD Instinct MI300X 192GB 750 W (dual EPYC 9554); vLLM in rocm/vllm:rocm6.4.1_vllm_0.9.0.1_20250605; amd/Llama-3.1-70B-Instruct-FP8-KV (FP8 weights and KV), TP 8, input 128, output 2048, 3,200 prompts, max-num-seqs 3,200",
        source: AMD,
        source_key: "amd-rocm-performance-results",
        quote: "Llama 3.1 70B (amd/Llama-3.1-70B-Instruct-FP8-KV) FP8 8 128 2048 3200 3200 16581.5",
        notes: "later containers give 12,638.9–13,818.7 for the same row (±15% software spread); \"Throughput\" is not labelled output-only (ambiguous)",
        ..DECODE
    },
    Point {
        id: "vllm-mi300x-llama3.1-405b-tp8-fp8-128-2048",
        family: Family::Cdna3,
        link: "?chip=mi300x&op=llm:preset=llama3.1-405b,tp=8,link=nvlink,w=fp8,x=fp8,kv=fp8,prompt=128,output=2048,b=1500",
        measured: "4275 Throughput (tokens/s)",
        measured_s: 1.0 / 4275.0,
        derivation: "1 / 4,275 = 234 µs per output token of the 8-GPU group",
        conditions: "8× MI300X 192GB; same container (rocm6.4.1_vllm_0.9.0.1_20250605); amd/Llama-3.1-405B-Instruct-FP8-KV, TP 8, 128/2048, 1,500 prompts, max-num-seqs 1,500",
        source: AMD,
        source_key: "amd-rocm-performance-results",
        quote: "Llama 3.1 405B (amd/Llama-3.1-405B-Instruct-FP8-KV) FP8 8 128 2048 1500 1500 4275",
        notes: "version spread 3,816.8–4,275; pairs with trtllm10-h100-llama3.1-405b (4,340 on 8× H100)",
        ..DECODE
    },
    Point {
        id: "mlperf41-h100-llama2-70b-offline-8gpu",
        link: "?chip=h100&op=llm:preset=custom,layers=80,dmodel=8192,ffn=28672,gated=yes,heads=64,kv_heads=8,head_dim=128,vocab=32000,tp=1,w=fp8,x=fp8,kv=fp8,prompt=1024,output=1024,b=3000",
        measured: "24,525 tokens per second across 8 GPUs, or 3,066 tokens per second per NVIDIA H100 GPU",
        measured_s: 1.0 / 3066.0,
        derivation: "per GPU: 1 / 3,066 = 326 µs per output token",
        conditions: "8× H100 SXM (DGX H100); MLPerf Inference v4.1 Llama-2-70B (OpenOrca, 24,576 samples of up to 1,024 input and output tokens), TensorRT-LLM, FP8, offline scenario (stated by a secondary source)",
        source: "https://techcommunity.microsoft.com/blog/azurehighperformancecomputingblog/breaking-the-million-token-barrier-the-technical-achievement-of-azure-nd-gb300-v/4466080",
        source_key: "mlperf-inference-v4.1",
        quote: "For comparison, the previous MLPerf Inference v4.1 results show that the NVIDIA DGX H100 system processed 24,525 tokens per second across 8 GPUs, or 3,066 tokens per second per NVIDIA H100 GPU [2].",
        notes: "secondary citation of an MLCommons result",
        expressible: Err("OpenOrca's length distribution and the replicas' layout are not a fixed prompt, output and TP"),
        ..DECODE
    },
    Point {
        id: "azure-gb200-llama2-70b-mlperf41-unverified",
        family: Family::Blackwell,
        link: "?chip=b200&op=llm:preset=custom,layers=80,dmodel=8192,ffn=28672,gated=yes,heads=64,kv_heads=8,head_dim=128,vocab=32000,tp=4,link=nvlink,w=fp8,x=fp8,kv=fp8,prompt=1024,output=1024,b=3000",
        measured: "865,000 tokens/sec per GB200 NVL72 = 12,022 tokens/s per Blackwell GPU",
        measured_s: 1.0 / 12022.0,
        derivation: "per GPU: 1 / 12,022 = 83.2 µs per output token",
        conditions: "72× GB200 (one NVL72 rack = 18 Azure ND GB200 v6 VMs × 4 GPUs, one Llama 2 70B replica per VM); MLPerf v4.1 Llama 2 70B, unverified submission; precision not stated",
        source: "https://techcommunity.microsoft.com/blog/azurehighperformancecomputingblog/azure%E2%80%99s-nd-gb200-v6-delivers-record-performance-for-inference-workloads/4399253",
        source_key: "azure-gb200-blog",
        quote: "this benchmark showcases how the ND GB200 v6 delivers state-of-the-art throughput with 865,000 tokens/sec measured on one NVIDIA GB200 NVL72 on Azure as an unverified MLPerf v4.1 submission",
        notes: "GB200 mapped to b200; weakly conditioned",
        expressible: Err("precision not stated, and OpenOrca's length distribution is not a fixed prompt and output"),
        ..DECODE
    },
    Point {
        id: "mlperf41-b200-llama2-70b-single-gpu",
        family: Family::Blackwell,
        link: "?chip=b200&op=llm:preset=custom,layers=80,dmodel=8192,ffn=28672,gated=yes,heads=64,kv_heads=8,head_dim=128,vocab=32000,tp=1,w=fp4,x=fp4,kv=fp8,prompt=1024,output=1024,b=3000",
        measured: "11,264 tokens per second offline, 10,755 server (1 GPU)",
        measured_s: 1.0 / 11264.0,
        derivation: "offline: 1 / 11,264 = 88.8 µs per output token",
        conditions: "1× B200 180GB HBM3e; MLPerf Inference v4.1 (preview), Llama 2 70B, FP4, TP 1, TensorRT-LLM",
        source: "Tom's Hardware report as summarised at https://www.slicast.com/article/1sl6z4j",
        source_key: "mlperf41-b200-press",
        quote: "According to Nvidia's results, the B200 achieves 10,755 tokens per second on a single GPU in a server inference test and 11,264 tokens per second in an offline reference test.",
        notes: "via press; KV precision not stated",
        expressible: Err("OpenOrca's length distribution is not a fixed prompt and output; KV precision not stated"),
        ..DECODE
    },
    // ---- prefill ----------------------------------------------------------------------
    Point {
        id: "deepseek-v3-h800-prefill-ep32-node",
        link: "?chip=h800:dcn=50e9&op=llm:preset=deepseek-v3,phase=prefill,tp=1,ep=32,b=32,ctx=4096,w=fp8,x=fp8,kv=bf16,link=dcn",
        measured: "~73.7k tokens/s input (including cache hits) per H800 node",
        measured_s: 4096.0 / (73.7e3 * (1.0 - 0.563) / 8.0),
        derivation: "computed tokens: 73.7k × (1 − 0.563 cache hits) / 8 GPUs = 4,026 tokens/s per GPU; one 4,096-token prompt per GPU → 4096 / 4026 = 1.02 s per prefill step",
        conditions: "32× H800 (4 nodes of 8), DeepSeek-V3/R1 production prefill: routed experts EP32, MLA and shared expert DP32, FP8 matmuls, two-microbatch overlap; prompt length 4,096 assumed (not published); scale-out ~50 GB/s per GPU (DeepEP's CX7 figure) set as dcn",
        source: DEEPSEEK,
        source_key: "deepseek-v3-inference-overview",
        quote: "Total input tokens: 608B, of which 342B tokens (56.3%) hit the on-disk KV cache. … Each H800 node delivers an average throughput of ~73.7k tokens/s input (including cache hits) during prefilling",
        notes: "fleet average, prompt lengths unknown; the hit ratio is assumed to apply evenly. If the bound sits above the measurement: the app sends every token's k = 8 expert copies through the AllToAll over dcn and adds it to the step, where DeepSeek deduplicates per node (≤ 4 nodes per token), forwards over NVLink and overlaps it with compute (two microbatches)",
        compared: Compared::TLower,
        ..PREFILL
    },
    Point {
        id: "trtllm05-a100-llama2-70b-tp4-b1-ttft-2048",
        family: Family::Ampere,
        link: "?chip=a100&op=llm:preset=custom,layers=80,dmodel=8192,ffn=28672,gated=yes,heads=64,kv_heads=8,head_dim=128,vocab=32000,b=1,ctx=2048,phase=prefill,tp=4,link=nvlink,w=bf16,x=bf16,kv=bf16",
        measured: "377 ms 1st Token Latency",
        measured_s: 0.377,
        derivation: "stated: 0.377 s for one 2,048-token prompt",
        conditions: "4× A100; TensorRT-LLM v0.5, FP16; LLaMA-2 70B, batch 1, TP 4, input 2,048",
        source: TRT061,
        source_key: "trtllm-performance-md",
        quote: "The below tables provide reference data at batch size 1 for first token latency … ### A100 GPUs (FP16) | LLaMA 70B | 1 | 4 | 2048 | 377 |",
        notes: "≈60% of peak by 2·N·tokens",
        compared: Compared::TLower,
        ..PREFILL
    },
    Point {
        id: "trtllm05-h100-llama2-70b-tp4-b1-ttft-2048",
        link: "?chip=h100&op=llm:preset=custom,layers=80,dmodel=8192,ffn=28672,gated=yes,heads=64,kv_heads=8,head_dim=128,vocab=32000,b=1,ctx=2048,phase=prefill,tp=4,link=nvlink,w=fp8,x=fp8,kv=fp8",
        measured: "109 ms 1st Token Latency",
        measured_s: 0.109,
        derivation: "stated: 0.109 s",
        conditions: "4× H100 SXM 80GB; TensorRT-LLM v0.5, FP8; LLaMA-2 70B, batch 1, TP 4, input 2,048",
        source: TRT061,
        source_key: "trtllm-performance-md",
        quote: "### H100 GPUs (FP8) | LLaMA 70B | 1 | 4 | 2048 | 109 |",
        notes: "≈33% of the FP8 peak",
        compared: Compared::TLower,
        ..PREFILL
    },
    Point {
        id: "trtllm05-a100-llama2-7b-tp1-b1-ttft-2048",
        family: Family::Ampere,
        link: "?chip=a100&op=llm:preset=custom,layers=32,dmodel=4096,ffn=11008,gated=yes,heads=32,kv_heads=32,head_dim=128,vocab=32000,b=1,ctx=2048,phase=prefill,tp=1,w=bf16,x=bf16,kv=bf16",
        measured: "133 ms 1st Token Latency",
        measured_s: 0.133,
        derivation: "stated: 0.133 s",
        conditions: "1× A100; TensorRT-LLM v0.5, FP16; LLaMA-2 7B, batch 1, TP 1, input 2,048",
        source: TRT061,
        source_key: "trtllm-performance-md",
        quote: "### A100 GPUs (FP16) | LLaMA 7B | 1 | 1 | 2048 | 133 |",
        notes: "≈66% of peak",
        compared: Compared::TLower,
        ..PREFILL
    },
    Point {
        id: "trtllm10-b200-llama3.3-70b-tp1-fp4-2048-128-prefillheavy",
        family: Family::Blackwell,
        link: "?chip=b200&op=llm:preset=llama3.1-70b,tp=1,w=fp4,x=fp4,kv=fp8,prompt=2048,output=128,b=3000",
        measured: "1,339 Total Output Throughput (tokens/sec) at ISL 2048 / OSL 128",
        measured_s: 1.0 / 1339.0,
        derivation: "1 / 1,339 = 747 µs per output token (each carrying 16 prompt tokens: 21,424 prompt tokens/s)",
        conditions: trt10!("1× B200 180GB, nvidia/Llama-3.3-70B-Instruct-FP4"),
        source: TRT10,
        source_key: "trtllm-perf-overview",
        quote: trt10_quote!("| 2048/128 | 1,339 | 1,450 | 442 | 762 | (Llama 3.3 70B table, B200 TP1 FP4 column)"),
        notes: "prefill-dominated; KV dtype FP8 assumed",
        ..PREFILL
    },
    Point {
        id: "trtllm10-h100-llama3.1-8b-tp1-fp8-2048-128-prefillheavy",
        link: "?chip=h100&op=llm:preset=llama3.1-8b,tp=1,w=fp8,x=fp8,kv=fp8,prompt=2048,output=128,b=3000",
        measured: "3,450 Total Output Throughput (tokens/sec) at ISL 2048 / OSL 128",
        measured_s: 1.0 / 3450.0,
        derivation: "1 / 3,450 = 290 µs per output token (55,200 prompt tokens/s)",
        conditions: trt10!("1× H100 SXM 80GB, nvidia/Llama-3.1-8B-Instruct-FP8"),
        source: TRT10,
        source_key: "trtllm-perf-overview",
        quote: trt10_quote!("| 2048/128 | 3,538 | 3,450 | (Llama 3.1 8B table, H100 TP1 FP8 column)"),
        notes: "prefill-dominated",
        ..PREFILL
    },
];
