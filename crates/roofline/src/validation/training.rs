//! Training steps: pure data, every figure quoted.
//!
//! A published TFLOP/s per chip becomes a step time with the source's own FLOP count where it is
//! known (MaxText: 6·N per token, N counting the logits matmul, plus attention 12·L·S·H·d_h per
//! token, not halved for causal before its PR #1988); Meta's count is not published, so its
//! rows use 6·N (a time a few per cent short); a published tokens/s gives the step directly.
//! Every link sets every mesh axis (the `train` kind defaults to dp 32 × fsdp 64 × tp 4).

use super::{Family, MeasureKind, Point, Tier};

const LLAMA3: &str = "Llama Team, \"The Llama 3 Herd of Models\" (arXiv 2407.21783), Table 4, read through the transcription at https://aarnphm.xyz/thoughts/Llama-3 (the same rows at https://glennklockwood.com/garden/llama-3.1)";
const MAXTEXT: &str = "https://github.com/AI-Hypercomputer/maxtext README.md \"Runtime Performance Results\" and MaxText/configs/";
const MOSAIC: &str = "https://github.com/mosaicml/llm-foundry scripts/train/benchmarking/README.md (commit 061f2c7), the \"H100 80GB BF16\" and \"A100 80GB with 1600 Gbps node-node interconnect (RoCE)\" tables, with the models in scripts/train/yamls/pretrain/mpt-*.yaml";
/// A row of MosaicML's tables: its own conditions, what its GPU's table states or leaves open
/// (the form factor: read from the H100 table's MFU, not stated for the A100), then what every
/// row shares.
macro_rules! mosaic {
    (h100, $row:literal) => {
        mosaic!(@ $row, "H100 80GB as the table's gpu id h100_80gb, SXM since its MFU column divides by 989 TFLOP/s (the SXM's dense BF16 peak); precision amp_bf16, FSDP MP mode DEFAULT")
    };
    (a100, $row:literal, $precision:literal) => {
        mosaic!(@ $row, concat!("A100 80GB as the table's a100_80gb, nodes joined by 1,600 Gbps RoCE; the form factor is not stated: the catalog's A100 is the 80 GB SXM, whose BF16 peak (312 TFLOP/s) the PCIe card shares, and these compute-bound steps' bound rests on that peak; ", $precision))
    };
    (@ $row:literal, $gpu:expr) => {
        concat!($row, "; ", $gpu, "; MPT (LLM Foundry on Composer, PyTorch FSDP FULL_SHARD over every GPU, no CPU offload), FlashAttention (attn_impl triton), MHA with head dim 128, LayerNorm, GELU MLP 4·d, learned position embeddings, vocab 50,368, seq 2,048")
    };
}

/// A MosaicML row's notes: how its activation checkpointing is linked, then what every row
/// shares.
macro_rules! mosaic_notes {
    ($checkpointing:literal) => {
        concat!($checkpointing, "; FSDP gathers each layer's weights for every micro-batch; rows chosen by rule from the H100 BF16 and A100 80GB tables: seq 2048, the fewest GPUs listed for each model size, so one source's sweep does not outweigh the rest")
    };
}

const TRAIN: Point = Point {
    work: MeasureKind::Training,
    family: Family::Tpu,
    source: MAXTEXT,
    source_key: "maxtext-readme",
    ..Point::EMPTY
};

/// MaxText's FLOPs per token of a dense MHA model: `6·N` with `N = L·(4·D·A + m·D·F) + V·D`
/// (A the attention width H·d_h, m = 3 gated or 2) plus attention `12·L·S·A`.
const fn maxtext_flops_per_token(
    l: f64,
    d: f64,
    a: f64,
    f: f64,
    gated: bool,
    v: f64,
    s: f64,
) -> f64 {
    let m = if gated { 3.0 } else { 2.0 };
    let n = l * (4.0 * d * a + m * d * f) + v * d;
    6.0 * n + 12.0 * l * s * a
}

pub(super) static POINTS: &[Point] = &[
    Point {
        id: "llama3-405b-h100-8k-gpus-training",
        family: Family::Hopper,
        link: "?chip=h100&op=train:preset=llama3.1-405b,batch=16777216,seq=8192,dp=64,fsdp=1,tp=8,pp=16,mb=32,remat=none",
        measured: "430 TFLOPs/GPU, BF16 MFU 43%",
        measured_s: 6.0 * 405e9 * 16777216.0 / (8192.0 * 430e12),
        derivation: "6·N·tokens / (GPUs · achieved) = 6 · 405e9 · 16,777,216 / (8,192 · 4.30e14) = 11.6 s per step (6N; Meta's count includes attention, so the real step is a few per cent longer)",
        conditions: "8,192× H100 SXM5 80GB (700 W), Meta Grand Teton, RoCE 400 Gb/s; Llama 3 405B pre-training, BF16; TP 8 × CP 1 × PP 16 × DP 64, seq 8,192, batch per DP 32 sequences, 16M tokens per step",
        source: LLAMA3,
        source_key: "llama3-paper",
        quote: "GPUs TP CP PP DP Seq. Len. Batch size/DP Tokens/Batch TFLOPs/GPU BF16 MFU — 8,192 8 1 16 64 8,192 32 16M 430 43%",
        tier: Tier::Paper,
        notes: "read through mirrors (two transcriptions agree), not the PDF; Meta's interleaved schedule and selective recomputation are not modelled (remat=none linked)",
        ..TRAIN
    },
    Point {
        id: "llama3-405b-h100-16k-gpus-cp16-131k-training",
        family: Family::Hopper,
        link: "?chip=h100&op=train:preset=llama3.1-405b,batch=16777216,seq=131072,dp=8,fsdp=1,tp=8,pp=16,mb=16,remat=none",
        measured: "380 TFLOPs/GPU, BF16 MFU 38%",
        measured_s: 6.0 * 405e9 * 16777216.0 / (16384.0 * 380e12),
        derivation: "6 · 405e9 · 16,777,216 / (16,384 · 3.80e14) = 6.5 s with 6N (attention at 131k is comparable to 6N, so the real step is much longer)",
        conditions: "16,384× H100 SXM5; Llama 3 405B long-context stage: TP 8 × CP 16 × PP 16 × DP 8, seq 131,072, batch per DP 16, 16M tokens per step, BF16",
        source: LLAMA3,
        source_key: "llama3-paper",
        quote: "16,384 8 16 16 8 131,072 16 16M 380 38%",
        tier: Tier::Paper,
        notes: "at 131k attention FLOPs per token ≈ 1.6e12 against 6N = 2.4e12",
        expressible: Err("context parallelism (CP 16): the train kind has no context-parallel axis"),
        ..TRAIN
    },
    Point {
        id: "maxtext-v5p-32b-128chips-training",
        link: "?chip=tpu-v5p&op=train:layers=32,dmodel=8192,ffn=28672,heads=64,kv_heads=64,head_dim=128,vocab=32000,gated=yes,batch=917504,seq=2048,dp=1,fsdp=16,tp=4,pp=1,remat=matmuls",
        measured: "3.28e+02 TFLOP/chip/sec, MFU 67.76%",
        measured_s: maxtext_flops_per_token(32.0, 8192.0, 8192.0, 28672.0, true, 32000.0, 2048.0)
            * 917504.0
            / (64.0 * 328e12),
        derivation: "N = 32·(4·8192² + 3·8192·28672) + 32000·8192 = 31.40e9; per token 6N + 12·32·2048·8192 = 194.8e9 FLOP; 64 chips × 7 × 2048 = 917,504 tokens → 1.787e17 / (64 · 3.28e14) = 8.5 s",
        conditions: "TPU v5p-128 = 64 chips (4×4×4); MaxText (JAX), BF16, synthetic data, per_device_batch_size 7, seq 2048, remat_policy minimal, FSDP 16 × TP 4, flash attention, 1 slice; global_parameter_scale 32 → 32 layers, d 8192, 64 heads × 128, ffn 28,672 (SwiGLU), vocab 32,000",
        quote: "| 32B | v5p-128 | 3.28e+02 | 67.76% |; configs/v5p/32b.sh: \"per_device_batch_size=7 … remat_policy=minimal global_parameter_scale=32 ici_fsdp_parallelism=-1 ici_tensor_parallelism=4 max_target_length=2048\"",
        notes: "remat minimal ≈ the app's matmuls checkpointing (closest option)",
        ..TRAIN
    },
    Point {
        id: "maxtext-v5e-16b-256chips-training",
        link: "?chip=tpu-v5e&op=train:layers=32,dmodel=4096,ffn=28672,heads=64,kv_heads=64,head_dim=128,vocab=32000,gated=yes,batch=3145728,seq=2048,dp=1,fsdp=256,tp=1,pp=1,remat=block",
        measured: "120 TFLOP/sec/chip, 16B MFU 61.10%",
        measured_s: maxtext_flops_per_token(32.0, 4096.0, 8192.0, 28672.0, true, 32000.0, 2048.0)
            * 3145728.0
            / (256.0 * 120e12),
        derivation: "N = 32·(4·4096·8192 + 3·4096·28672) + 32000·4096 = 15.70e9; per token 6N + 12·32·2048·8192 = 100.6e9 FLOP; 256 × 6 × 2048 = 3,145,728 tokens → 3.165e17 / (256 · 1.2e14) = 10.3 s",
        conditions: "1× TPU v5e-256 slice = 256 chips (16×16); MaxText, BF16, per_device_batch_size 6, seq 2048, remat_policy full, FSDP over the slice, flash attention, synthetic data; global_parameter_scale 16 → 32 layers, d 4096, 64 heads × 128, ffn 28,672, vocab 32,000",
        quote: "| 1x v5e-256  | 120                | 61.10%  | …; configs/v5e/16b.sh: \"per_device_batch_size=6 enable_checkpointing=false remat_policy=full global_parameter_scale=16 max_target_length=2048\"",
        notes: "remat full ↔ the app's block",
        ..TRAIN
    },
    Point {
        id: "maxtext-v5e-16b-32slices-training",
        link: "?chip=tpu-v5e&op=train:layers=32,dmodel=4096,ffn=28672,heads=64,kv_heads=64,head_dim=128,vocab=32000,gated=yes,batch=100663296,seq=2048,dp=32,fsdp=256,tp=1,pp=1,remat=block",
        measured: "108 TFLOP/sec/chip, 54.65% MFU",
        measured_s: maxtext_flops_per_token(32.0, 4096.0, 8192.0, 28672.0, true, 32000.0, 2048.0)
            * 100663296.0
            / (8192.0 * 108e12),
        derivation: "100.6e9 FLOP per token × 8192 · 6 · 2048 = 100,663,296 tokens → 1.013e19 / (8192 · 1.08e14) = 11.4 s",
        conditions: "32× TPU v5e-256 = 8,192 chips, DCN between slices; as maxtext-v5e-16b-256chips-training, data parallel across slices",
        quote: "| 32x v5e-256 | 108                | 54.65%  | …",
        notes: "tests the DCN gradient all-reduce term (120 → 108 TFLOP/s per chip from 1 to 32 slices)",
        ..TRAIN
    },
    Point {
        id: "maxtext-v5p-1160b-6144chips-training",
        link: "?chip=tpu-v5p&op=train:layers=128,dmodel=49152,ffn=57344,heads=128,kv_heads=128,head_dim=128,vocab=32000,gated=no,batch=25165824,seq=2048,dp=3,fsdp=128,tp=16,pp=1,remat=block",
        measured: "3.04e+02 TFLOP/chip/sec, MFU 66.23%",
        measured_s: (6.0 * 1.16e12 + 12.0 * 128.0 * 2048.0 * 16384.0) * 25165824.0 / (6144.0 * 304e12),
        derivation: "per token 6 · 1.16e12 (the README's 1160B) + 12·128·2048·16384 = 7.01e12 FLOP; 6,144 × 2 × 2048 = 25,165,824 tokens → 1.764e20 / (6144 · 3.04e14) = 94 s",
        conditions: "TPU v5p-12288 = 6,144 chips; MaxText, BF16, synthetic data, per_device_batch_size 2, seq 2048, remat full, ICI FSDP × TP 16 per slice, data parallel across slices over DCN (3 slices of v5p-4096 linked); global_parameter_scale 512 with base_emb_dim 6144",
        quote: "| 1160B | v5p-12288 | 3.04e+02 | 66.23% |; configs/v5p/v5p-12288.sh: \"per_device_batch_size=2 … remat_policy=full global_parameter_scale=512 ici_fsdp_parallelism=-1 ici_tensor_parallelism=16 max_target_length=2048\"",
        notes: "the shape is uncertain: the scales give 128 layers, d 49,152, 128 heads × 128, ffn 57,344 — 1.14T ungated (linked) or 1.5T gated",
        ..TRAIN
    },
    Point {
        id: "maxtext-v6e-llama3.1-70b-256chips-training",
        link: "?chip=tpu-v6e&op=train:preset=llama3.1-70b,seq=8192,batch=8388608,dp=1,fsdp=256,tp=1,pp=1,remat=block",
        measured: "MFU 50.33%, Approx tokens/sec/device 960",
        measured_s: 4.0 * 8192.0 / 960.0,
        derivation: "a step of per_device_batch_size 4 × 8,192 tokens on each of 256 chips = 8,388,608 tokens; each chip's 32,768 tokens at 960 tokens/s = 34.13 s",
        conditions: "256× TPU v6e (Trillium), one slice; MaxText \"Gold\" recipe llama3_1_70b_8192: Llama 3.1 70B, BF16, SL 8192, per_device_batch_size 4, ici_fsdp_parallelism -1 (FSDP over the 256 chips), remat_policy custom (decoder layer input and Q/K/V projections offloaded to host, the rest recomputed), flash attention, synthetic data",
        source: "https://maxtext.readthedocs.io/en/latest/reference/models/tiering.html (read via a proxy copy), with the recipe in AI-Hypercomputer/maxtext benchmarks/maxtext_trillium_model_configs.py",
        source_key: "maxtext-tiering-docs",
        quote: "Trillium (v6e) … Gold … Llama 3.1 70B … 256 Chips, BF16, SL=8192 … 50.33% … 960; recipe: \"per_device_batch_size\": 4, \"ici_fsdp_parallelism\": -1, \"remat_policy\": \"custom\", \"decoder_layer_input\": \"offload\", \"query_proj\": \"offload\", \"key_proj\": \"offload\", \"value_proj\": \"offload\", \"max_target_length\": 8192",
        notes: "another version of the recipe file has per_device_batch_size 5; the figure is a rate per token, so the ratio is the same (34.13 s / 21.26 s and 42.67 s / 26.57 s both 1.606). The custom policy keeps the layer input and the Q/K/V projections (offloaded to host) and recomputes the rest of the forward, about 90 % of it: remat=block (the whole forward again) is the closest option; host offload traffic is not modelled",
        ..TRAIN
    },
    Point {
        id: "palm-540b-tpuv4-6144-training",
        link: "?chip=tpu-v4p&op=train:layers=118,dmodel=18432,ffn=73728,heads=48,kv_heads=1,head_dim=256,vocab=256000,gated=yes,batch=4194304,seq=2048,dp=512,fsdp=1,tp=12,pp=1,remat=block",
        measured: "MFU 46.2% (HFU 57.8%), 238.3K tokens/sec at batch size 2048",
        measured_s: 2048.0 * 2048.0 / 238.3e3,
        derivation: "2,048 sequences × 2,048 tokens = 4,194,304 tokens / 238,300 tokens/s = 17.6 s per step",
        conditions: "6,144× TPU v4 (two pods of 3,072); PaLM 540B (118 layers, 48 heads × 256, d 18,432, SwiGLU, multi-query attention, parallel block), seq 2048, BF16, Pathways; per pod data × model parallelism (12-way model × 256-way data as recalled, unverified), data parallel across pods over DCN",
        source: "Chowdhery et al., \"PaLM: Scaling Language Modeling with Pathways\" (arXiv 2204.02311), Table 3, read via secondary transcriptions",
        source_key: "palm-paper",
        quote: "| PaLM | 540B | 6144 TPU v4 | 46.2% |; \"Average training throughput: 238.3K tokens/sec at batch size 2048 (the final batch size)\"",
        tier: Tier::Paper,
        notes: "the parallel block (same FLOPs, fused) and 2D weight sharding map only roughly onto dp × tp; HFU/MFU = 1.25 says part of the forward was recomputed (block linked: 8N)",
        ..TRAIN
    },
    Point {
        id: "flashattn-gpt3-2.7b-8xa100-training",
        family: Family::Ampere,
        link: "?chip=a100&op=train:layers=32,dmodel=2560,ffn=10240,gated=no,heads=20,kv_heads=20,head_dim=128,vocab=50257,batch=1048576,seq=2048,dp=8,fsdp=1,tp=1,pp=1,remat=none",
        measured: "85k tokens/sec (GPT3-2.7B, 8 GPUs)",
        measured_s: 1048576.0 / 85e3,
        derivation: "1M = 2^20 tokens per step / 85,000 tokens/s = 12.3 s",
        conditions: "8× A100 80GB SXM4 (400 W), one node with NVLink; flash-attention training scripts, GPT-3 2.7B with head dim 128 (32 layers, d 2560, 20 heads, ffn 10,240 ungated, vocab 50,257), seq 2048, BF16, FlashAttention + fused kernels, no activation checkpointing, data parallel",
        source: "https://github.com/Dao-AILab/flash-attention training/README.md",
        source_key: "flashattention-training-readme",
        quote: "We measure the wallclock training speed on one node with 8 x A100 80GB SXM4 80GB (400W) with NVLink. … | GPT3-2.7B | 1M                  | 85k                      |              3.27 |",
        tier: Tier::Paper,
        notes: "the config's exact sharding was not read (plain data parallelism linked)",
        ..TRAIN
    },
    Point {
        id: "mosaicml-mpt-70b-h100-32gpu-training",
        family: Family::Hopper,
        link: "?chip=h100&op=train:layers=80,dmodel=8192,ffn=32768,gated=no,heads=64,kv_heads=64,head_dim=128,vocab=50368,batch=2097152,seq=2048,dp=1,fsdp=32,tp=1,pp=1,mb=16,remat=block",
        measured: "28,242 tokens/s on 32 GPUs (MFU 36.15%)",
        measured_s: 2097152.0 / 28242.0,
        derivation: "a step of 1,024 sequences × 2,048 = 2,097,152 tokens / 28,242 tokens/s = 74.26 s",
        conditions: mosaic!(h100, "32× H100 80GB; MPT-70b: 80 layers, d 8,192, 64 heads (N = 64,862,437,376, the table's NumParams: 80·(12·d² + 13·d) + 2·d + 50,368·d + 2,048·d, biases and position embeddings included), micro-batch 2 × 16 accumulation, global batch 1024 sequences, activation checkpointing True"),
        source: MOSAIC,
        source_key: "mosaicml-llm-foundry-benchmarks",
        quote: "|  70b | 2048 | 32 | h100_80gb | 36.15 | 48.2 |  3.576911E+14 | 2 | 16 | 1024 | 13 | 28242 | 882 | 2097152 | amp_bf16 | DEFAULT | FULL_SHARD | True | False | 64862437376 |",
        tier: Tier::VendorPublished,
        notes: mosaic_notes!("activation checkpointing: the whole forward again (remat=block)"),
        ..TRAIN
    },
    Point {
        id: "mosaicml-mpt-30b-h100-8gpu-training",
        family: Family::Hopper,
        link: "?chip=h100&op=train:layers=48,dmodel=7168,ffn=28672,gated=no,heads=56,kv_heads=56,head_dim=128,vocab=50368,batch=1032192,seq=2048,dp=1,fsdp=8,tp=1,pp=1,mb=21,remat=block",
        measured: "16,022 tokens/s on 8 GPUs (MFU 38.11%)",
        measured_s: 1032192.0 / 16022.0,
        derivation: "a step of 504 sequences × 2,048 = 1,032,192 tokens / 16,022 tokens/s = 64.42 s",
        conditions: mosaic!(h100, "8× H100 80GB; MPT-30b: 48 layers, d 7,168, 56 heads (N = 29,975,214,080, the table's NumParams: 48·(12·d² + 13·d) + 2·d + 50,368·d + 2,048·d, biases and position embeddings included), micro-batch 3 × 21 accumulation, global batch 504 sequences, activation checkpointing True"),
        source: MOSAIC,
        source_key: "mosaicml-llm-foundry-benchmarks",
        quote: "|  30b | 2048 | 8 | h100_80gb | 38.11 | 50.82 |  3.771361E+14 | 3 | 21 | 504 | 7 | 16022 | 2002 | 1032192 | amp_bf16 | DEFAULT | FULL_SHARD | True | False | 29975214080 |",
        tier: Tier::VendorPublished,
        notes: mosaic_notes!("activation checkpointing: the whole forward again (remat=block)"),
        ..TRAIN
    },
    Point {
        id: "mosaicml-mpt-13b-h100-8gpu-training",
        family: Family::Hopper,
        link: "?chip=h100&op=train:layers=40,dmodel=5120,ffn=20480,gated=no,heads=40,kv_heads=40,head_dim=128,vocab=50368,batch=32768,seq=2048,dp=1,fsdp=8,tp=1,pp=1,mb=1,remat=none",
        measured: "38,336 tokens/s on 8 GPUs (MFU 39.79%)",
        measured_s: 32768.0 / 38336.0,
        derivation: "a step of 16 sequences × 2,048 = 32,768 tokens / 38,336 tokens/s = 0.8548 s",
        conditions: mosaic!(h100, "8× H100 80GB; MPT-13b: 40 layers, d 5,120, 40 heads (N = 12,853,954,560, the table's NumParams: 40·(12·d² + 13·d) + 2·d + 50,368·d + 2,048·d, biases and position embeddings included), micro-batch 2 × 1 accumulation, global batch 16 sequences, activation checkpointing False"),
        source: MOSAIC,
        source_key: "mosaicml-llm-foundry-benchmarks",
        quote: "|  13b | 2048 | 8 | h100_80gb | 39.79 | 39.79 |  3.937055E+14 | 2 | 1 | 16 | 18 | 38336 | 4792 | 32768 | amp_bf16 | DEFAULT | FULL_SHARD | False | False | 12853954560 |",
        tier: Tier::VendorPublished,
        notes: mosaic_notes!("no activation checkpointing (remat=none)"),
        ..TRAIN
    },
    Point {
        id: "mosaicml-mpt-7b-h100-8gpu-training",
        family: Family::Hopper,
        link: "?chip=h100&op=train:layers=32,dmodel=4096,ffn=16384,gated=no,heads=32,kv_heads=32,head_dim=128,vocab=50368,batch=98304,seq=2048,dp=1,fsdp=8,tp=1,pp=1,mb=1,remat=none",
        measured: "85,144 tokens/s on 8 GPUs (MFU 46.44%)",
        measured_s: 98304.0 / 85144.0,
        derivation: "a step of 48 sequences × 2,048 = 98,304 tokens / 85,144 tokens/s = 1.155 s",
        conditions: mosaic!(h100, "8× H100 80GB; MPT-7b: 32 layers, d 4,096, 32 heads (N = 6,658,859,008, the table's NumParams: 32·(12·d² + 13·d) + 2·d + 50,368·d + 2,048·d, biases and position embeddings included), micro-batch 6 × 1 accumulation, global batch 48 sequences, activation checkpointing False"),
        source: MOSAIC,
        source_key: "mosaicml-llm-foundry-benchmarks",
        quote: "|  7b | 2048 | 8 | h100_80gb | 46.44 | 46.44 |  4.595096E+14 | 6 | 1 | 48 | 41 | 85144 | 10643 | 98304 | amp_bf16 | DEFAULT | FULL_SHARD | False | False | 6658859008 |",
        tier: Tier::VendorPublished,
        notes: mosaic_notes!("no activation checkpointing (remat=none)"),
        ..TRAIN
    },
    Point {
        id: "mosaicml-mpt-3b-h100-16gpu-training",
        family: Family::Hopper,
        link: "?chip=h100&op=train:layers=32,dmodel=2560,ffn=10240,gated=no,heads=20,kv_heads=20,head_dim=128,vocab=50368,batch=983040,seq=2048,dp=1,fsdp=16,tp=1,pp=1,mb=3,remat=none",
        measured: "386,285 tokens/s on 16 GPUs (MFU 43.73%)",
        measured_s: 983040.0 / 386285.0,
        derivation: "a step of 480 sequences × 2,048 = 983,040 tokens / 386,285 tokens/s = 2.545 s",
        conditions: mosaic!(h100, "16× H100 80GB; MPT-3b: 32 layers, d 2,560, 20 heads (N = 2,651,837,440, the table's NumParams: 32·(12·d² + 13·d) + 2·d + 50,368·d + 2,048·d, biases and position embeddings included), micro-batch 10 × 3 accumulation, global batch 480 sequences, activation checkpointing False"),
        source: MOSAIC,
        source_key: "mosaicml-llm-foundry-benchmarks",
        quote: "|  3b | 2048 | 16 | h100_80gb | 43.73 | 43.73 |  4.327437E+14 | 10 | 3 | 480 | 188 | 386285 | 24142 | 983040 | amp_bf16 | DEFAULT | FULL_SHARD | False | False | 2651837440 |",
        tier: Tier::VendorPublished,
        notes: mosaic_notes!("no activation checkpointing (remat=none)"),
        ..TRAIN
    },
    Point {
        id: "mosaicml-mpt-1b-h100-8gpu-training",
        family: Family::Hopper,
        link: "?chip=h100&op=train:layers=24,dmodel=2048,ffn=8192,gated=no,heads=16,kv_heads=16,head_dim=128,vocab=50368,batch=229376,seq=2048,dp=1,fsdp=8,tp=1,pp=1,mb=1,remat=none",
        measured: "363,645 tokens/s on 8 GPUs (MFU 41.82%)",
        measured_s: 229376.0 / 363645.0,
        derivation: "a step of 112 sequences × 2,048 = 229,376 tokens / 363,645 tokens/s = 0.6308 s",
        conditions: mosaic!(h100, "8× H100 80GB; MPT-1b: 24 layers, d 2,048, 16 heads (N = 1,315,950,592, the table's NumParams: 24·(12·d² + 13·d) + 2·d + 50,368·d + 2,048·d, biases and position embeddings included), micro-batch 14 × 1 accumulation, global batch 112 sequences, activation checkpointing False"),
        source: MOSAIC,
        source_key: "mosaicml-llm-foundry-benchmarks",
        quote: "|  1b | 2048 | 8 | h100_80gb | 41.82 | 41.82 |  4.138134E+14 | 14 | 1 | 112 | 177 | 363645 | 45455 | 229376 | amp_bf16 | DEFAULT | FULL_SHARD | False | False | 1315950592 |",
        tier: Tier::VendorPublished,
        notes: mosaic_notes!("no activation checkpointing (remat=none)"),
        ..TRAIN
    },
    Point {
        id: "mosaicml-mpt-760m-h100-8gpu-training",
        family: Family::Hopper,
        link: "?chip=h100&op=train:layers=24,dmodel=1536,ffn=6144,gated=no,heads=12,kv_heads=12,head_dim=128,vocab=50368,batch=786432,seq=2048,dp=1,fsdp=8,tp=1,pp=1,mb=2,remat=none",
        measured: "505,177 tokens/s on 8 GPUs (MFU 34.9%)",
        measured_s: 786432.0 / 505177.0,
        derivation: "a step of 384 sequences × 2,048 = 786,432 tokens / 505,177 tokens/s = 1.557 s",
        conditions: mosaic!(h100, "8× H100 80GB; MPT-760m: 24 layers, d 1,536, 12 heads (N = 760,470,528, the table's NumParams: 24·(12·d² + 13·d) + 2·d + 50,368·d + 2,048·d, biases and position embeddings included), micro-batch 24 × 2 accumulation, global batch 384 sequences, activation checkpointing False"),
        source: MOSAIC,
        source_key: "mosaicml-llm-foundry-benchmarks",
        quote: "|  760m | 2048 | 8 | h100_80gb | 34.9 | 34.9 |  3.453389E+14 | 24 | 2 | 384 | 246 | 505177 | 63147 | 786432 | amp_bf16 | DEFAULT | FULL_SHARD | False | False | 760470528 |",
        tier: Tier::VendorPublished,
        notes: mosaic_notes!("no activation checkpointing (remat=none)"),
        ..TRAIN
    },
    Point {
        id: "mosaicml-mpt-70b-a100-32gpu-training",
        family: Family::Ampere,
        link: "?chip=a100&op=train:layers=80,dmodel=8192,ffn=32768,gated=no,heads=64,kv_heads=64,head_dim=128,vocab=50368,batch=2097152,seq=2048,dp=1,fsdp=32,tp=1,pp=1,mb=16,remat=block",
        measured: "11,962 tokens/s on 32 GPUs (MFU 48.56%)",
        measured_s: 2097152.0 / 11962.0,
        derivation: "a step of 1,024 sequences × 2,048 = 2,097,152 tokens / 11,962 tokens/s = 175.3 s",
        conditions: mosaic!(a100, "32× A100 80GB; MPT-70b: 80 layers, d 8,192, 64 heads (N = 64,862,437,376, the table's NumParams: 80·(12·d² + 13·d) + 2·d + 50,368·d + 2,048·d, biases and position embeddings included), micro-batch 2 × 16 accumulation, global batch 1024 sequences, activation checkpointing True", "precision bf16, FSDP MP mode PURE"),
        source: MOSAIC,
        source_key: "mosaicml-llm-foundry-benchmarks",
        quote: "|  70b | 2048 | 32 | a100_80gb | 48.56 | 64.75 | 1.515072E+16 | 2 | 16 | 1024 | 5 | 11962 | 373 | 2097152 | bf16 | PURE | FULL_SHARD | True | False | 64862437376 |",
        tier: Tier::VendorPublished,
        notes: mosaic_notes!("activation checkpointing: the whole forward again (remat=block)"),
        ..TRAIN
    },
    Point {
        id: "mosaicml-mpt-30b-a100-8gpu-training",
        family: Family::Ampere,
        link: "?chip=a100&op=train:layers=48,dmodel=7168,ffn=28672,gated=no,heads=56,kv_heads=56,head_dim=128,vocab=50368,batch=1032192,seq=2048,dp=1,fsdp=8,tp=1,pp=1,mb=21,remat=block",
        measured: "7,330 tokens/s on 8 GPUs (MFU 55.3%)",
        measured_s: 1032192.0 / 7330.0,
        derivation: "a step of 504 sequences × 2,048 = 1,032,192 tokens / 7,330 tokens/s = 140.8 s",
        conditions: mosaic!(a100, "8× A100 80GB; MPT-30b: 48 layers, d 7,168, 56 heads (N = 29,975,214,080, the table's NumParams: 48·(12·d² + 13·d) + 2·d + 50,368·d + 2,048·d, biases and position embeddings included), micro-batch 3 × 21 accumulation, global batch 504 sequences, activation checkpointing True", "precision amp_bf16, FSDP MP mode DEFAULT"),
        source: MOSAIC,
        source_key: "mosaicml-llm-foundry-benchmarks",
        quote: "|  30b | 2048 | 8 | a100_80gb | 55.3 | 73.74 |  1.725420E+14 | 3 | 21 | 504 | 3 | 7330 | 916 | 1032192 | amp_bf16 | DEFAULT | FULL_SHARD | True | False | 29975214080 |",
        tier: Tier::VendorPublished,
        notes: mosaic_notes!("activation checkpointing: the whole forward again (remat=block)"),
        ..TRAIN
    },
    Point {
        id: "mosaicml-mpt-13b-a100-8gpu-training",
        family: Family::Ampere,
        link: "?chip=a100&op=train:layers=40,dmodel=5120,ffn=20480,gated=no,heads=40,kv_heads=40,head_dim=128,vocab=50368,batch=98304,seq=2048,dp=1,fsdp=8,tp=1,pp=1,mb=3,remat=none",
        measured: "18,097 tokens/s on 8 GPUs (MFU 59.57%)",
        measured_s: 98304.0 / 18097.0,
        derivation: "a step of 48 sequences × 2,048 = 98,304 tokens / 18,097 tokens/s = 5.432 s",
        conditions: mosaic!(a100, "8× A100 80GB; MPT-13b: 40 layers, d 5,120, 40 heads (N = 12,853,954,560, the table's NumParams: 40·(12·d² + 13·d) + 2·d + 50,368·d + 2,048·d, biases and position embeddings included), micro-batch 2 × 3 accumulation, global batch 48 sequences, activation checkpointing False", "precision amp_bf16, FSDP MP mode DEFAULT"),
        source: MOSAIC,
        source_key: "mosaicml-llm-foundry-benchmarks",
        quote: "|  13b | 2048 | 8 | a100_80gb | 59.57 | 59.57 |  1.858556E+14 | 2 | 3 | 48 | 8 | 18097 | 2262 | 98304 | amp_bf16 | DEFAULT | FULL_SHARD | False | False | 12853954560 |",
        tier: Tier::VendorPublished,
        notes: mosaic_notes!("no activation checkpointing (remat=none)"),
        ..TRAIN
    },
    Point {
        id: "mosaicml-mpt-7b-a100-8gpu-training",
        family: Family::Ampere,
        link: "?chip=a100&op=train:layers=32,dmodel=4096,ffn=16384,gated=no,heads=32,kv_heads=32,head_dim=128,vocab=50368,batch=196608,seq=2048,dp=1,fsdp=8,tp=1,pp=1,mb=2,remat=none",
        measured: "37,130 tokens/s on 8 GPUs (MFU 64.23%)",
        measured_s: 196608.0 / 37130.0,
        derivation: "a step of 96 sequences × 2,048 = 196,608 tokens / 37,130 tokens/s = 5.295 s",
        conditions: mosaic!(a100, "8× A100 80GB; MPT-7b: 32 layers, d 4,096, 32 heads (N = 6,658,859,008, the table's NumParams: 32·(12·d² + 13·d) + 2·d + 50,368·d + 2,048·d, biases and position embeddings included), micro-batch 6 × 2 accumulation, global batch 96 sequences, activation checkpointing False", "precision amp_bf16, FSDP MP mode DEFAULT"),
        source: MOSAIC,
        source_key: "mosaicml-llm-foundry-benchmarks",
        quote: "|  7b | 2048 | 8 | a100_80gb | 64.23 | 64.23 |  2.003836E+14 | 6 | 2 | 96 | 18 | 37130 | 4641 | 196608 | amp_bf16 | DEFAULT | FULL_SHARD | False | False | 6658859008 |",
        tier: Tier::VendorPublished,
        notes: mosaic_notes!("no activation checkpointing (remat=none)"),
        ..TRAIN
    },
    Point {
        id: "mosaicml-mpt-3b-a100-8gpu-training",
        family: Family::Ampere,
        link: "?chip=a100&op=train:layers=32,dmodel=2560,ffn=10240,gated=no,heads=20,kv_heads=20,head_dim=128,vocab=50368,batch=327680,seq=2048,dp=1,fsdp=8,tp=1,pp=1,mb=2,remat=none",
        measured: "86,491 tokens/s on 8 GPUs (MFU 62.11%)",
        measured_s: 327680.0 / 86491.0,
        derivation: "a step of 160 sequences × 2,048 = 327,680 tokens / 86,491 tokens/s = 3.789 s",
        conditions: mosaic!(a100, "8× A100 80GB; MPT-3b: 32 layers, d 2,560, 20 heads (N = 2,651,837,440, the table's NumParams: 32·(12·d² + 13·d) + 2·d + 50,368·d + 2,048·d, biases and position embeddings included), micro-batch 10 × 2 accumulation, global batch 160 sequences, activation checkpointing False", "precision amp_bf16, FSDP MP mode DEFAULT"),
        source: MOSAIC,
        source_key: "mosaicml-llm-foundry-benchmarks",
        quote: "|  3b | 2048 | 8 | a100_80gb | 62.11 | 62.11 |  1.937863E+14 | 10 | 2 | 160 | 42 | 86491 | 10811 | 327680 | amp_bf16 | DEFAULT | FULL_SHARD | False | False | 2651837440 |",
        tier: Tier::VendorPublished,
        notes: mosaic_notes!("no activation checkpointing (remat=none)"),
        ..TRAIN
    },
    Point {
        id: "mosaicml-mpt-1b-a100-8gpu-training",
        family: Family::Ampere,
        link: "?chip=a100&op=train:layers=24,dmodel=2048,ffn=8192,gated=no,heads=16,kv_heads=16,head_dim=128,vocab=50368,batch=917504,seq=2048,dp=1,fsdp=8,tp=1,pp=1,mb=4,remat=none",
        measured: "164,109 tokens/s on 8 GPUs (MFU 59.86%)",
        measured_s: 917504.0 / 164109.0,
        derivation: "a step of 448 sequences × 2,048 = 917,504 tokens / 164,109 tokens/s = 5.591 s",
        conditions: mosaic!(a100, "8× A100 80GB; MPT-1b: 24 layers, d 2,048, 16 heads (N = 1,315,950,592, the table's NumParams: 24·(12·d² + 13·d) + 2·d + 50,368·d + 2,048·d, biases and position embeddings included), micro-batch 14 × 4 accumulation, global batch 448 sequences, activation checkpointing False", "precision amp_bf16, FSDP MP mode DEFAULT"),
        source: MOSAIC,
        source_key: "mosaicml-llm-foundry-benchmarks",
        quote: "|  1b | 2048 | 8 | a100_80gb | 59.86 | 59.86 |  1.867501E+14 | 14 | 4 | 448 | 80 | 164109 | 20513 | 917504 | amp_bf16 | DEFAULT | FULL_SHARD | False | False | 1315950592 |",
        tier: Tier::VendorPublished,
        notes: mosaic_notes!("no activation checkpointing (remat=none)"),
        ..TRAIN
    },
    Point {
        id: "mosaicml-mpt-760m-a100-8gpu-training",
        family: Family::Ampere,
        link: "?chip=a100&op=train:layers=24,dmodel=1536,ffn=6144,gated=no,heads=12,kv_heads=12,head_dim=128,vocab=50368,batch=786432,seq=2048,dp=1,fsdp=8,tp=1,pp=1,mb=2,remat=none",
        measured: "259,472 tokens/s on 8 GPUs (MFU 56.85%)",
        measured_s: 786432.0 / 259472.0,
        derivation: "a step of 384 sequences × 2,048 = 786,432 tokens / 259,472 tokens/s = 3.031 s",
        conditions: mosaic!(a100, "8× A100 80GB; MPT-760m: 24 layers, d 1,536, 12 heads (N = 760,470,528, the table's NumParams: 24·(12·d² + 13·d) + 2·d + 50,368·d + 2,048·d, biases and position embeddings included), micro-batch 24 × 2 accumulation, global batch 384 sequences, activation checkpointing False", "precision amp_bf16, FSDP MP mode DEFAULT"),
        source: MOSAIC,
        source_key: "mosaicml-llm-foundry-benchmarks",
        quote: "|  760m | 2048 | 8 | a100_80gb | 56.85 | 56.85 |  1.773749E+14 | 24 | 2 | 384 | 126 | 259472 | 32434 | 786432 | amp_bf16 | DEFAULT | FULL_SHARD | False | False | 760470528 |",
        tier: Tier::VendorPublished,
        notes: mosaic_notes!("no activation checkpointing (remat=none)"),
        ..TRAIN
    },
];
