//! LLM decode at batch 1: one user's time per output token, the latency regime the serving
//! tables (maximum load) leave out. Pure data, every figure quoted.
//!
//! gpt-fast (PyTorch's own batch-1 generation code: `torch.compile` in "reduce-overhead" mode,
//! so CUDA graphs, bf16 activations) publishes tokens/s at batch 1 for Llama 2 7B and 70B on
//! A100s, from one GPU to eight in tensor parallel. Its `generate.py` times the whole
//! generation (a prompt of 5 tokens, then the CLI's default 200 new tokens) and divides the
//! tokens by the time: one output token is one decode step at a mean context of about
//! 6 + 200 / 2 ≈ 105 tokens (the prefill of 5 tokens and the KV cache change the 7B's step by
//! under 0.5 %). At batch 1 each tensor-parallel all-reduce carries one token's activations
//! (8 KB for the 7B): the bound's link time for it is nanoseconds, so what the measurement
//! has past the weights' read is per-collective latency and launches.
//!
//! Three more sources measure the same regime with other engines, so that what tensor
//! parallelism costs at batch 1 is fitted on one source and checked on the others:
//! LMDeploy's TurboMind (A100, TP 1 to 4: its static benchmark's throughput, the prefill of a
//! 128-token prompt included, compared as the request's seconds per output token),
//! FasterTransformer (A100, GPT-20B at TP 1, 2, 4 and 8: the latency of a 200-token generation
//! less that of a 20-token one, so the prefill and fixed costs cancel), and AMD's vLLM
//! (MI300X, TP 8: `benchmark_latency.py`'s end-to-end latency of one request).

use super::{Compared, Family, MeasureKind, Point, Tier};

const GPT_FAST: &str = "https://github.com/pytorch-labs/gpt-fast README.md (commit 0f925b5), \"Benchmarks\", \"Tensor Parallelism\" and \"Tensor Parallelism + Quantization\"; timing in generate.py (commit 0055c42): tokens_generated / t, --max_new_tokens default 200";
/// The README's conditions, common to every row.
macro_rules! gpt_fast {
    ($rest:literal) => {
        concat!("A100-80GB of an 8× A100 machine, power limited to 330 W, hybrid cube mesh topology; gpt-fast, torch.compile (reduce-overhead: CUDA graphs), bf16 activations; batch size 1, prompt of 5 tokens, 200 new tokens (generate.py's default); ", $rest)
    };
}
/// The README's sentence on its conditions, then the row.
macro_rules! gpt_fast_quote {
    ($row:literal) => {
        concat!("Benchmarks run on an 8xA100-80GB, power limited to 330W with a hybrid cube mesh topology. Note that all benchmarks are run at *batch size=1*, making the reported tokens/s numbers equivalent to \"tokens/s/user\". In addition, they are run with a very small prompt length (just 5 tokens). ", $row)
    };
}

/// A link to one decode step of Llama 2 7B (its shape spelled, as Llama 2 is not in the zoo) at
/// batch 1 and the mean context ≈ 105 on an A100; `$rest`: parallelism and dtypes.
macro_rules! llama2_7b {
    ($rest:literal) => {
        concat!("?chip=a100&op=llm:preset=custom,layers=32,dmodel=4096,ffn=11008,gated=yes,heads=32,kv_heads=32,head_dim=128,vocab=32000,phase=decode,b=1,ctx=105,", $rest)
    };
}
/// `llama2_7b!`'s link for Llama 2 70B (grouped-query attention, 8 KV heads).
macro_rules! llama2_70b {
    ($rest:literal) => {
        concat!("?chip=a100&op=llm:preset=custom,layers=80,dmodel=8192,ffn=28672,gated=yes,heads=64,kv_heads=8,head_dim=128,vocab=32000,phase=decode,b=1,ctx=105,", $rest)
    };
}

const TP_NOTE: &str = "each all-reduce carries one token's activations (8 KB for the 7B, 16 KB for the 70B): its bound is nanoseconds, so the time past the weights' read is per-collective latency (2 per layer) and launches; the mesh's per-pair bandwidth does not matter at this size";
const INT4_WHY: &str = "int4 weight-only with groups of 32: each group carries a bf16 scale and zero point (gpt-fast's WeightOnlyInt4QuantHandler), 1/8 byte per weight more than w=int4 holds";

const INT4_NOTE: &str = "the weights are 0.5 + 0.125 bytes per parameter (int4 and the groups' bf16 scale and zero point); kept in the set so coverage counts what the app cannot express";

const BATCH1: Point = Point {
    work: MeasureKind::Decode,
    family: Family::Ampere,
    source: GPT_FAST,
    source_key: "gpt-fast-readme",
    tier: Tier::Paper,
    ..Point::EMPTY
};

const LMDEPLOY_SRC: &str = "https://github.com/InternLM/lmdeploy docs/en/benchmark/a100_fp16.md (commit 3e391df), \"Static Inference Benchmark\"; throughput as defined in docs/en/benchmark/profile_generation.md";
/// One request of LMDeploy's static benchmark at batch 1: a 128-token prompt, 2,048 new tokens,
/// FP16 weights, activations and KV cache; `$shape` the model's fields, then its parallelism.
macro_rules! lmdeploy {
    ($shape:literal) => {
        concat!($shape, "w=fp16,x=fp16,kv=fp16,b=1,prompt=128,output=2048,")
    };
}
/// The page's conditions, common to every row.
macro_rules! lmdeploy_conditions {
    ($rest:literal) => {
        concat!("A100-80G of an 8-GPU machine (form factor not stated), CUDA 11.8; LMDeploy v0.1.0a1 (TurboMind), FP16; static inference benchmark, batch 1, prompt 128 tokens, 2,048 output tokens; ", $rest)
    };
}
/// The page's sentence on its conditions, then the row.
macro_rules! lmdeploy_quote {
    ($row:literal) => {
        concat!("All the following results are tested on (x8) A100-80G CUDA 11.8. The tested lmdeploy version is `v0.1.0a1`. | batch | tp  | prompt_tokens | output_tokens | throughput(out tok/s) | mem(GB) | FTL(ave)(s) | ... ", $row)
    };
}
const LMDEPLOY_NOTE: &str = "throughput(out tok/s) is the generated tokens over the whole request's time, the first token's latency (22–74 ms here, under 0.4 % of it) included: compared as the request's seconds per output token; the per-token latency percentiles (50%(s)) agree to their two digits";
const LMDEPLOY: Point = Point {
    source: LMDEPLOY_SRC,
    source_key: "lmdeploy-a100-fp16",
    compared: Compared::PerOutputToken,
    ..BATCH1
};

const FT_SRC: &str = "https://github.com/NVIDIA/FasterTransformer docs/gpt_guide.md (commit 07fdd2f), \"Performance of GPT-20B\"";
/// GPT-20B as the guide states it (48 heads of 128, 44 layers, FP16, vocabulary 51,200; GPT's
/// FFN of 4 × hidden, not gated), one decode step at batch 1 and the mean context of the 180
/// tokens the two rows differ by (about 192); `tp=` follows.
macro_rules! gpt_20b {
    () => {
        "?chip=a100&op=llm:preset=custom,layers=44,dmodel=6144,ffn=24576,gated=no,heads=48,kv_heads=48,head_dim=128,vocab=51200,w=fp16,x=fp16,kv=fp16,phase=decode,b=1,ctx=192,"
    };
}
macro_rules! ft_conditions {
    ($rest:literal) => {
        concat!("8× A100-80GB (mclk 1593 MHz, pclk 1410 MHz) linked by NVSwitch, AMD EPYC 7742; FasterTransformer (release not stated on the page), GPT-20B (head_num 48, size_per_head 128, num_layers 44, FP16, vocab_size 51200, top_p 0.9); batch 1; ", $rest)
    };
}
macro_rules! ft_quote {
    ($rows:literal) => {
        concat!("Hardware settings (A100 SuperPod architecture): Intra node: 8xA100-80GBs (with mclk 1593MHz, pclk 1410MHz) with AMD EPYC 7742 64-Core Processor, linked by NVSwitch. #### Performance of GPT-20B ... | Batch_size | Input Length | Output Length | Latency of single GPU (ms) | Latency of 2-way TP (ms) | Latency of 4-way TP (ms) | Latency of 8-way TP (ms) | ", $rows)
    };
}
const FT_NOTE: &str = "the difference of two rows' end-to-end latencies: the longer run's extra 180 tokens, with the prefill (80 against 60 tokens, a few ms) and fixed costs cancelled; whether the 8-way runs used FT's custom all-reduce is not stated";
const FT: Point = Point {
    source: FT_SRC,
    source_key: "fastertransformer-gpt-guide",
    tier: Tier::VendorPublished,
    ..BATCH1
};

const ROCM_SRC: &str = "https://github.com/ROCm/vllm docs/dev-docker/README.md (commit 040de12), \"Latency Measurements\"";
macro_rules! rocm_conditions {
    ($model:literal) => {
        concat!("8× AMD Instinct MI300X 192GiB 750 W (Supermicro AS-8125GS-TNMR2, 2× EPYC 9554); ROCm 6.4.1, vLLM v0.10.0, PyTorch 2.7 (rocm/vllm-dev image), vLLM v0.8.5's benchmark_latency.py: batch 1, input 128, output 2,048, TP 8, --dtype float16 (no --kv-cache-dtype: a 16-bit KV cache); ", $model, ", FP8 weights and activations")
    };
}
macro_rules! rocm_quote {
    ($row:literal) => {
        concat!("vLLM's benchmark_latency.py script measures end-to-end latency for a specified model, input/output length, and batch size. | Model | Precision | TP Size | Batch Size | Input | Output | MI300X Latency (sec) | ", $row)
    };
}
const ROCM_NOTE: &str = "one request's whole latency (the 128-token prefill, a few ms, included) over its 2,048 output tokens; other image releases of the same page give 15.3–16.2 s for the 70B row (a ±6 % software spread)";
const ROCM: Point = Point {
    family: Family::Cdna3,
    source: ROCM_SRC,
    source_key: "rocm-vllm-latency",
    tier: Tier::VendorPublished,
    compared: Compared::PerOutputToken,
    ..BATCH1
};

pub(super) static POINTS: &[Point] = &[
    Point {
        id: "gpt-fast-a100-llama2-7b-bf16-b1",
        link: llama2_7b!("tp=1,w=bf16,x=bf16,kv=bf16"),
        measured: "104.9 tokens/s (1,397.31 GB/s memory bandwidth)",
        measured_s: 1.0 / 104.9,
        derivation: "1 / 104.9 tokens/s = 9.53 ms per output token (a decode step)",
        conditions: gpt_fast!("Llama-2-7B, bf16 weights, one GPU"),
        quote: gpt_fast_quote!("| Llama-2-7B  | Base    |  104.9  | 1397.31 |"),
        notes: "the README adds \"Empirically, seems like peak bandwidth is about 1700 GB/s\" on these power-limited A100s (the datasheet's is 2,039 GB/s)",
        ..BATCH1
    },
    Point {
        id: "gpt-fast-a100-llama2-7b-int8-b1",
        link: llama2_7b!("tp=1,w=int8,x=bf16,kv=bf16"),
        measured: "155.58 tokens/s (1,069.20 GB/s)",
        measured_s: 1.0 / 155.58,
        derivation: "1 / 155.58 tokens/s = 6.43 ms per output token",
        conditions: gpt_fast!("Llama-2-7B, int8 weight-only quantization (per-channel scales), one GPU"),
        quote: gpt_fast_quote!("| | 8-bit   | 155.58   | 1069.20 |"),
        notes: "the int8 weights are dequantized to bf16 inside the matmul (weight-only): the bytes read are int8, the arithmetic bf16",
        ..BATCH1
    },
    Point {
        id: "gpt-fast-a100-llama2-7b-int4-g32-b1",
        link: llama2_7b!("tp=1,w=int4,x=bf16,kv=bf16"),
        measured: "196.80 tokens/s (862.69 GB/s)",
        measured_s: 1.0 / 196.80,
        derivation: "1 / 196.80 tokens/s = 5.08 ms per output token",
        conditions: gpt_fast!("Llama-2-7B, int4 weight-only quantization with groups of 32, one GPU"),
        quote: gpt_fast_quote!("| | 4-bit (G=32)   | 196.80   | 862.69 |"),
        notes: INT4_NOTE,
        expressible: Err(INT4_WHY),
        ..BATCH1
    },
    Point {
        id: "gpt-fast-a100-llama2-7b-bf16-tp2-b1",
        link: llama2_7b!("tp=2,link=nvlink,w=bf16,x=bf16,kv=bf16"),
        measured: "168.84 tokens/s (1,181.99 GB/s)",
        measured_s: 1.0 / 168.84,
        derivation: "1 / 168.84 tokens/s = 5.92 ms per output token",
        conditions: gpt_fast!("Llama-2-7B, bf16, tensor parallel over 2 GPUs (ENABLE_INTRA_NODE_COMM=1 torchrun)"),
        quote: gpt_fast_quote!("### Tensor Parallelism | Llama-2-7B  | 2   | 168.84   | 1181.99 |"),
        notes: TP_NOTE,
        ..BATCH1
    },
    Point {
        id: "gpt-fast-a100-llama2-7b-bf16-tp4-b1",
        link: llama2_7b!("tp=4,link=nvlink,w=bf16,x=bf16,kv=bf16"),
        measured: "254.02 tokens/s (955.83 GB/s)",
        measured_s: 1.0 / 254.02,
        derivation: "1 / 254.02 tokens/s = 3.94 ms per output token",
        conditions: gpt_fast!("Llama-2-7B, bf16, tensor parallel over 4 GPUs"),
        quote: gpt_fast_quote!("### Tensor Parallelism | | 4   | 254.02   | 955.83 |"),
        notes: TP_NOTE,
        ..BATCH1
    },
    Point {
        id: "gpt-fast-a100-llama2-7b-bf16-tp8-b1",
        link: llama2_7b!("tp=8,link=nvlink,w=bf16,x=bf16,kv=bf16"),
        measured: "328.43 tokens/s (704.10 GB/s)",
        measured_s: 1.0 / 328.43,
        derivation: "1 / 328.43 tokens/s = 3.04 ms per output token",
        conditions: gpt_fast!("Llama-2-7B, bf16, tensor parallel over 8 GPUs"),
        quote: gpt_fast_quote!("### Tensor Parallelism | | 8   | 328.43   | 704.10 |"),
        notes: TP_NOTE,
        ..BATCH1
    },
    Point {
        id: "gpt-fast-a100-llama2-70b-int8-b1",
        link: llama2_70b!("tp=1,w=int8,x=bf16,kv=bf16"),
        measured: "19.13 tokens/s (1,322.58 GB/s)",
        measured_s: 1.0 / 19.13,
        derivation: "1 / 19.13 tokens/s = 52.3 ms per output token",
        conditions: gpt_fast!("Llama-2-70B, int8 weight-only quantization, one GPU (bf16 does not fit: \"OOM\")"),
        quote: gpt_fast_quote!("| Llama-2-70B | 8-bit   | 19.13    | 1322.58 |"),
        notes: "69 GB of int8 weights on one 80 GB GPU, dequantized to bf16 inside the matmul; the TP 8 rows run the same model in bf16 and int8",
        ..BATCH1
    },
    Point {
        id: "gpt-fast-a100-llama2-70b-int4-g32-b1",
        link: llama2_70b!("tp=1,w=int4,x=bf16,kv=bf16"),
        measured: "25.25 tokens/s (1,097.66 GB/s)",
        measured_s: 1.0 / 25.25,
        derivation: "1 / 25.25 tokens/s = 39.6 ms per output token",
        conditions: gpt_fast!("Llama-2-70B, int4 weight-only quantization with groups of 32, one GPU"),
        quote: gpt_fast_quote!("| | 4-bit (G=32)   | 25.25    | 1097.66 |"),
        notes: INT4_NOTE,
        expressible: Err(INT4_WHY),
        ..BATCH1
    },
    Point {
        id: "gpt-fast-a100-llama2-70b-bf16-tp2-b1",
        link: llama2_70b!("tp=2,link=nvlink,w=bf16,x=bf16,kv=bf16"),
        measured: "21.32 tokens/s (1,481.87 GB/s)",
        measured_s: 1.0 / 21.32,
        derivation: "1 / 21.32 tokens/s = 46.9 ms per output token",
        conditions: gpt_fast!("Llama-2-70B, bf16, tensor parallel over 2 GPUs"),
        quote: gpt_fast_quote!("### Tensor Parallelism | Llama-2-70B  | 2   | 21.32   | 1481.87 |"),
        notes: TP_NOTE,
        ..BATCH1
    },
    Point {
        id: "gpt-fast-a100-llama2-70b-bf16-tp4-b1",
        link: llama2_70b!("tp=4,link=nvlink,w=bf16,x=bf16,kv=bf16"),
        measured: "38.01 tokens/s (1,340.76 GB/s)",
        measured_s: 1.0 / 38.01,
        derivation: "1 / 38.01 tokens/s = 26.3 ms per output token",
        conditions: gpt_fast!("Llama-2-70B, bf16, tensor parallel over 4 GPUs"),
        quote: gpt_fast_quote!("### Tensor Parallelism | | 4   | 38.01   | 1340.76 |"),
        notes: TP_NOTE,
        ..BATCH1
    },
    Point {
        id: "gpt-fast-a100-llama2-70b-bf16-tp8-b1",
        link: llama2_70b!("tp=8,link=nvlink,w=bf16,x=bf16,kv=bf16"),
        measured: "62.50 tokens/s (1,135.29 GB/s)",
        measured_s: 1.0 / 62.50,
        derivation: "1 / 62.50 tokens/s = 16.0 ms per output token",
        conditions: gpt_fast!("Llama-2-70B, bf16, tensor parallel over 8 GPUs"),
        quote: gpt_fast_quote!("### Tensor Parallelism | | 8   | 62.50   | 1135.29 |"),
        notes: TP_NOTE,
        ..BATCH1
    },
    Point {
        id: "gpt-fast-a100-llama2-70b-int8-tp8-b1",
        link: llama2_70b!("tp=8,link=nvlink,w=int8,x=bf16,kv=bf16"),
        measured: "80.44 tokens/s (752.04 GB/s)",
        measured_s: 1.0 / 80.44,
        derivation: "1 / 80.44 tokens/s = 12.4 ms per output token",
        conditions: gpt_fast!("Llama-2-70B, int8 weight-only quantization, tensor parallel over 8 GPUs"),
        quote: gpt_fast_quote!("### Tensor Parallelism + Quantization | Llama-2-70B | 8-bit   | 80.44    | 752.04 |"),
        notes: TP_NOTE,
        ..BATCH1
    },
    Point {
        id: "gpt-fast-a100-llama2-70b-int4-g32-tp8-b1",
        link: llama2_70b!("tp=8,link=nvlink,w=int4,x=bf16,kv=bf16"),
        measured: "90.77 tokens/s (548.10 GB/s)",
        measured_s: 1.0 / 90.77,
        derivation: "1 / 90.77 tokens/s = 11.0 ms per output token",
        conditions: gpt_fast!("Llama-2-70B, int4 weight-only quantization with groups of 32, tensor parallel over 8 GPUs"),
        quote: gpt_fast_quote!("### Tensor Parallelism + Quantization | | 4-bit (G=32)   | 90.77    | 548.10 |"),
        notes: INT4_NOTE,
        expressible: Err(INT4_WHY),
        ..BATCH1
    },
    // LMDeploy v0.1.0a1 (TurboMind), A100-80G, FP16, batch 1, 128-token prompt, 2,048 new tokens.
    Point {
        id: "lmdeploy-a100-llama2-7b-fp16-b1",
        link: concat!(lmdeploy!("?chip=a100&op=llm:preset=custom,layers=32,dmodel=4096,ffn=11008,gated=yes,heads=32,kv_heads=32,head_dim=128,vocab=32000,"), "tp=1"),
        measured: "98.92 out tok/s",
        measured_s: 1.0 / 98.92,
        derivation: "1 / 98.92 tokens/s = 10.1 ms per output token (the request: a 128-token prefill, then 2,048 tokens)",
        conditions: lmdeploy_conditions!("Llama-2-7B, one GPU"),
        quote: lmdeploy_quote!("### llama2-7b | 1     | 1   | 128           | 2048          | 98.92                 | 76.59   | 0.022       | 0.022       | 0.022       | 0.01   | 0.01   | 0.01   | 0.01   |"),
        notes: LMDEPLOY_NOTE,
        ..LMDEPLOY
    },
    Point {
        id: "lmdeploy-a100-llama2-13b-fp16-b1",
        link: concat!(lmdeploy!("?chip=a100&op=llm:preset=custom,layers=40,dmodel=5120,ffn=13824,gated=yes,heads=40,kv_heads=40,head_dim=128,vocab=32000,"), "tp=1"),
        measured: "55.29 out tok/s",
        measured_s: 1.0 / 55.29,
        derivation: "1 / 55.29 tokens/s = 18.1 ms per output token",
        conditions: lmdeploy_conditions!("Llama-2-13B, one GPU"),
        quote: lmdeploy_quote!("### llama2-13b | 1     | 1   | 128           | 2048          | 55.29                 | 74.84   | 0.04        | 0.04        | 0.04        | 0.018  | 0.018  | 0.018  | 0.019  |"),
        notes: LMDEPLOY_NOTE,
        ..LMDEPLOY
    },
    Point {
        id: "lmdeploy-a100-internlm-20b-fp16-tp2-b1",
        link: concat!(lmdeploy!("?chip=a100&op=llm:preset=custom,layers=60,dmodel=5120,ffn=13824,gated=yes,heads=40,kv_heads=40,head_dim=128,vocab=103168,"), "tp=2,link=nvlink"),
        measured: "58.26 out tok/s",
        measured_s: 1.0 / 58.26,
        derivation: "1 / 58.26 tokens/s = 17.2 ms per output token",
        conditions: lmdeploy_conditions!("InternLM-20B (60 layers, hidden 5,120, 40 heads, FFN 13,824, vocabulary 103,168: its config.json), tensor parallel over 2 GPUs"),
        quote: lmdeploy_quote!("### internlm-20b | 1     | 2   | 128           | 2048          | 58.26                 | 73.55   | 0.042       | 0.042       | 0.043       | 0.017  | 0.017  | 0.018  | 0.018  |"),
        notes: LMDEPLOY_NOTE,
        ..LMDEPLOY
    },
    Point {
        id: "lmdeploy-a100-llama2-70b-fp16-tp4-b1",
        link: concat!(lmdeploy!("?chip=a100&op=llm:preset=custom,layers=80,dmodel=8192,ffn=28672,gated=yes,heads=64,kv_heads=8,head_dim=128,vocab=32000,"), "tp=4,link=nvlink"),
        measured: "32.38 out tok/s",
        measured_s: 1.0 / 32.38,
        derivation: "1 / 32.38 tokens/s = 30.9 ms per output token",
        conditions: lmdeploy_conditions!("Llama-2-70B, tensor parallel over 4 GPUs"),
        quote: lmdeploy_quote!("### llama2-70b | 1     | 4   | 128           | 2048          | 32.38                 | 73.72   | 0.074       | 0.074       | 0.075       | 0.031  | 0.031  | 0.031  | 0.031  |"),
        notes: LMDEPLOY_NOTE,
        ..LMDEPLOY
    },
    // FasterTransformer, GPT-20B, FP16, batch 1, on an A100-80GB node with NVSwitch.
    Point {
        id: "fastertransformer-a100-gpt-20b-fp16-b1",
        link: concat!(gpt_20b!(), "tp=1"),
        measured: "5,609 ms (input 80, output 200) and 560 ms (input 60, output 20), single GPU",
        measured_s: (5609.0 - 560.0) / 180.0 / 1000.0,
        derivation: "(5,609 − 560) ms / (200 − 20) tokens = 28.05 ms per output token",
        conditions: ft_conditions!("one GPU"),
        quote: ft_quote!("|     1      |      80      |      200      |               5609               |              3532              |              2438              |              2053              | and |     1      |      60      |      20       |               560                |              358               |              248               |              212               |"),
        notes: FT_NOTE,
        ..FT
    },
    Point {
        id: "fastertransformer-a100-gpt-20b-fp16-tp2-b1",
        link: concat!(gpt_20b!(), "tp=2,link=nvlink"),
        measured: "3,532 ms (input 80, output 200) and 358 ms (input 60, output 20), 2-way TP",
        measured_s: (3532.0 - 358.0) / 180.0 / 1000.0,
        derivation: "(3,532 − 358) ms / 180 tokens = 17.63 ms per output token",
        conditions: ft_conditions!("tensor parallel over 2 GPUs"),
        quote: ft_quote!("the 2-way TP column of the same two rows: 3532 and 358"),
        notes: FT_NOTE,
        ..FT
    },
    Point {
        id: "fastertransformer-a100-gpt-20b-fp16-tp4-b1",
        link: concat!(gpt_20b!(), "tp=4,link=nvlink"),
        measured: "2,438 ms (input 80, output 200) and 248 ms (input 60, output 20), 4-way TP",
        measured_s: (2438.0 - 248.0) / 180.0 / 1000.0,
        derivation: "(2,438 − 248) ms / 180 tokens = 12.17 ms per output token",
        conditions: ft_conditions!("tensor parallel over 4 GPUs"),
        quote: ft_quote!("the 4-way TP column of the same two rows: 2438 and 248"),
        notes: FT_NOTE,
        ..FT
    },
    Point {
        id: "fastertransformer-a100-gpt-20b-fp16-tp8-b1",
        link: concat!(gpt_20b!(), "tp=8,link=nvlink"),
        measured: "2,053 ms (input 80, output 200) and 212 ms (input 60, output 20), 8-way TP",
        measured_s: (2053.0 - 212.0) / 180.0 / 1000.0,
        derivation: "(2,053 − 212) ms / 180 tokens = 10.23 ms per output token",
        conditions: ft_conditions!("tensor parallel over 8 GPUs"),
        quote: ft_quote!("the 8-way TP column of the same two rows: 2053 and 212"),
        notes: FT_NOTE,
        ..FT
    },
    // AMD's vLLM container, MI300X, FP8, TP 8, batch 1: one request's end-to-end latency.
    Point {
        id: "vllm-mi300x-llama3.1-70b-fp8-tp8-b1",
        link: "?chip=mi300x&op=llm:preset=llama3.1-70b,tp=8,link=nvlink,w=fp8,x=fp8,kv=fp16,b=1,prompt=128,output=2048",
        measured: "17.236 s MI300X Latency (sec)",
        measured_s: 17.236 / 2048.0,
        derivation: "17.236 s / 2,048 output tokens = 8.42 ms per output token (the 128-token prefill included)",
        conditions: rocm_conditions!("amd/Llama-3.1-70B-Instruct-FP8-KV"),
        quote: rocm_quote!("| Llama 3.1 70B (amd/Llama-3.1-70B-Instruct-FP8-KV) | FP8 | 8 | 1 | 128 | 2048 | 17.236 |"),
        notes: ROCM_NOTE,
        ..ROCM
    },
    Point {
        id: "vllm-mi300x-llama3.1-405b-fp8-tp8-b1",
        link: "?chip=mi300x&op=llm:preset=llama3.1-405b,tp=8,link=nvlink,w=fp8,x=fp8,kv=fp16,b=1,prompt=128,output=2048",
        measured: "48.453 s MI300X Latency (sec)",
        measured_s: 48.453 / 2048.0,
        derivation: "48.453 s / 2,048 output tokens = 23.7 ms per output token",
        conditions: rocm_conditions!("amd/Llama-3.1-405B-Instruct-FP8-KV"),
        quote: rocm_quote!("| Llama 3.1 405B (amd/Llama-3.1-405B-Instruct-FP8-KV) | FP8 | 8 | 1 | 128 | 2048 | 48.453 |"),
        notes: ROCM_NOTE,
        ..ROCM
    },
];
