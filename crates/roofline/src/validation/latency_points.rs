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

use super::{Compared, Family, Point, Tier, Work};

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
    id: "",
    work: Work::Decode,
    family: Family::Ampere,
    link: "",
    measured: "",
    measured_s: 0.0,
    derivation: "",
    conditions: "",
    source: GPT_FAST,
    source_key: "gpt-fast-readme",
    quote: "",
    tier: Tier::Paper,
    notes: "",
    compared: Compared::TLower,
    expressible: Ok(()),
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
];
