//! Fused attention kernels (FlashAttention-2 and -3): pure data, every figure quoted.
//!
//! The FlashAttention benchmarks count `4·B·S²·H·d` FLOPs forward, halved when causal, and
//! 3.5× that forward + backward (`benchmarks/benchmark_flash_attention.py`: `f = 4 * batch *
//! seqlen**2 * nheads * headdim // (2 if causal else 1)`, `3.5 * f` for fwd+bwd). Their
//! TFLOPs/s are turned into a time with THEIR count; the time is what is compared (the app's
//! `attention` kind counts causal pairs exactly, `S_q·S_kv − S_q(S_q−1)/2`).
//! Shapes: "B·S = 16k, H·d = 2048" (hidden 2048, batch 16k / seqlen).

use super::{Family, MeasureKind, Point, Tier};

const FA3: &str = "Shah et al., \"FlashAttention-3: Fast and Accurate Attention with Asynchrony and Low-precision\" (NeurIPS 2024), Figure 5, reproduced as assets/flash3_fp16_fwd.png in https://github.com/Dao-AILab/flash-attention";
const FA2: &str = "https://github.com/Dao-AILab/flash-attention README \"Performance / A100\", figure assets/flash2_a100_fwd_bwd_benchmark.png (the FA2 paper's figure, arXiv 2307.08691)";

const FA3_POINT: Point = Point {
    work: MeasureKind::Attention,
    source: FA3,
    source_key: "flashattention-3-paper",
    tier: Tier::Paper,
    ..Point::EMPTY
};

const FA2_POINT: Point = Point {
    family: Family::Ampere,
    source: FA2,
    source_key: "flashattention-2-readme",
    ..FA3_POINT
};

/// FlashAttention's forward FLOPs: `4·B·S²·H·d`, halved when causal.
const fn fa_fwd(b: f64, s: f64, h: f64, d: f64, causal: bool) -> f64 {
    let f = 4.0 * b * s * s * h * d;
    if causal {
        f / 2.0
    } else {
        f
    }
}

pub(super) static POINTS: &[Point] = &[
    Point {
        id: "fa3-h100-hd128-s16k-noncausal",
        link: "?chip=h100&op=attention:b=1,heads=16,kv_heads=16,sq=16384,skv=16384,head_dim=128,causal=no,x=bf16",
        measured: "648 TFLOPs/s",
        measured_s: fa_fwd(1.0, 16384.0, 16.0, 128.0, false) / 648e12,
        derivation: "4·1·16384²·16·128 = 2.199e12 FLOP / 6.48e14 FLOP/s = 3.39 ms",
        conditions: "1× H100 80GB SXM5 (700 W); FlashAttention-3 beta (July 2024), FP16, forward only, no causal mask, head dim 128, seqlen 16k, batch 1, 16 heads (MHA)",
        quote: "Figure 5(c) \"Forward, without causal mask, head dim 128\": FlashAttention-3 at 16k = 648 (cuDNN 595, FA2 370, Triton 395)",
        notes: "bar label read from the figure; FLOPs count the two matmuls only",
        ..FA3_POINT
    },
    Point {
        id: "fa3-h100-hd128-s16k-causal",
        link: "?chip=h100&op=attention:b=1,heads=16,kv_heads=16,sq=16384,skv=16384,head_dim=128,causal=yes,x=bf16",
        measured: "616 TFLOPs/s",
        measured_s: fa_fwd(1.0, 16384.0, 16.0, 128.0, true) / 616e12,
        derivation: "causal counted as half: 2·1·16384²·16·128 = 1.0995e12 FLOP / 6.16e14 FLOP/s = 1.78 ms",
        conditions: "1× H100 80GB SXM5; FA3, FP16, forward, causal, head dim 128, S 16k, B 1, 16 heads",
        quote: "Figure 5(d) \"Forward, with causal mask, head dim 128\": FlashAttention-3 at 16k = 616 (cuDNN 539, FA2 335, Triton 378)",
        notes: "the app counts S_q·S_kv − S_q(S_q−1)/2 pairs, 0.006% more than half at 16k",
        ..FA3_POINT
    },
    Point {
        id: "fa3-h100-hd128-s2k-causal",
        link: "?chip=h100&op=attention:b=8,heads=16,kv_heads=16,sq=2048,skv=2048,head_dim=128,causal=yes,x=bf16",
        measured: "521 TFLOPs/s",
        measured_s: fa_fwd(8.0, 2048.0, 16.0, 128.0, true) / 521e12,
        derivation: "4·8·2048²·16·128/2 = 1.374e11 FLOP / 5.21e14 FLOP/s = 264 µs",
        conditions: "1× H100 80GB SXM5; FA3, FP16, forward, causal, head dim 128, S 2k, B 8, 16 heads",
        quote: "Figure 5(d), FlashAttention-3 bar at 2k = 521",
        notes: "shorter sequence: prologue, epilogue and causal imbalance weigh more",
        ..FA3_POINT
    },
    Point {
        id: "fa3-h100-hd64-s4k-causal",
        link: "?chip=h100&op=attention:b=4,heads=32,kv_heads=32,sq=4096,skv=4096,head_dim=64,causal=yes,x=bf16",
        measured: "420 TFLOPs/s",
        measured_s: fa_fwd(4.0, 4096.0, 32.0, 64.0, true) / 420e12,
        derivation: "4·4·4096²·32·64/2 = 2.749e11 FLOP / 4.20e14 FLOP/s = 654 µs",
        conditions: "1× H100 80GB SXM5; FA3, FP16, forward, causal, head dim 64, S 4k, B 4, 32 heads",
        quote: "Figure 5(b) \"Forward, with causal mask, head dim 64\", FlashAttention-3 bar at 4k = 420",
        notes: "head dim 64: softmax exponentials per matmul FLOP ∝ 1/d weigh more (the roofline counts matmul FLOPs only)",
        ..FA3_POINT
    },
    Point {
        id: "fa3-h100-hd256-s16k-noncausal",
        link: "?chip=h100&op=attention:b=1,heads=8,kv_heads=8,sq=16384,skv=16384,head_dim=256,causal=no,x=bf16",
        measured: "756 TFLOPs/s",
        measured_s: fa_fwd(1.0, 16384.0, 8.0, 256.0, false) / 756e12,
        derivation: "4·16384²·8·256 = 2.199e12 FLOP / 7.56e14 FLOP/s = 2.91 ms",
        conditions: "1× H100 80GB SXM5; FA3, FP16, forward, no causal mask, head dim 256, S 16k, B 1, 8 heads",
        quote: "Figure 5(e) \"Forward, without causal mask, head dim 256\", FlashAttention-3 bar at 16k = 756 (cuDNN 581, FA2 326)",
        notes: "the highest FP16 point, ≈76% of 989 TFLOPS",
        ..FA3_POINT
    },
    Point {
        id: "fa2-a100-hd128-s16k-noncausal-fwdbwd",
        link: "?chip=a100&op=attention:b=1,heads=16,kv_heads=16,sq=16384,skv=16384,head_dim=128,causal=no,x=bf16,pass=fwdbwd",
        measured: "203 TFLOPs/s (forward + backward)",
        measured_s: 3.5 * fa_fwd(1.0, 16384.0, 16.0, 128.0, false) / 203e12,
        derivation: "fwd+bwd = 3.5 × 4·16384²·16·128 = 7.697e12 FLOP / 2.03e14 FLOP/s = 37.9 ms",
        conditions: "1× A100 80GB SXM4; FlashAttention-2, FP16/BF16, forward + backward, no causal mask, head dim 128, hidden 2048 (16 heads), S 16k, B 1",
        quote: "Head dimension 64 or 128, hidden dimension 2048 (i.e. either 32 or 16 heads). Sequence length 512, 1k, 2k, 4k, 8k, 16k. Batch size set to 16k / seqlen. Panel (b) \"Without causal mask, head dimension 128\": FlashAttention-2 at 16k = 203",
        notes: "the link runs forward and backward (pass=fwdbwd: 7 matmuls per pair, the papers' 3.5 × forward); the backward's five matmuls run at lower efficiency than the forward's two",
        ..FA2_POINT
    },
    Point {
        id: "fa2-a100-hd128-s16k-causal-fwdbwd",
        link: "?chip=a100&op=attention:b=1,heads=16,kv_heads=16,sq=16384,skv=16384,head_dim=128,causal=yes,x=bf16,pass=fwdbwd",
        measured: "189 TFLOPs/s (forward + backward)",
        measured_s: 3.5 * fa_fwd(1.0, 16384.0, 16.0, 128.0, true) / 189e12,
        derivation: "3.5 × 1.0995e12 = 3.848e12 FLOP / 1.89e14 FLOP/s = 20.4 ms",
        conditions: "1× A100 80GB SXM4; FA2, FP16/BF16, fwd+bwd, causal, head dim 128, S 16k, B 1, 16 heads",
        quote: "Panel (d) \"With causal mask, head dimension 128\", FlashAttention-2 bar at 16k = 189",
        notes: "as fa2-a100-hd128-s16k-noncausal-fwdbwd",
        ..FA2_POINT
    },
    Point {
        id: "fa2-a100-hd64-s4k-causal-fwdbwd",
        link: "?chip=a100&op=attention:b=4,heads=32,kv_heads=32,sq=4096,skv=4096,head_dim=64,causal=yes,x=bf16,pass=fwdbwd",
        measured: "156 TFLOPs/s (forward + backward)",
        measured_s: 3.5 * fa_fwd(4.0, 4096.0, 32.0, 64.0, true) / 156e12,
        derivation: "3.5 × 4·4·4096²·32·64/2 = 9.621e11 FLOP / 1.56e14 FLOP/s = 6.17 ms",
        conditions: "1× A100 80GB SXM4; FA2, FP16/BF16, fwd+bwd, causal, head dim 64, S 4k, B 4, 32 heads",
        quote: "Panel (c) \"With causal mask, head dimension 64\", FlashAttention-2 bar at 4k = 156",
        notes: "as fa2-a100-hd128-s16k-noncausal-fwdbwd",
        ..FA2_POINT
    },
    Point {
        id: "azure-fa2-mi300x-hd64-b2-s8192",
        family: Family::Cdna3,
        link: "?chip=mi300x&op=attention:b=2,heads=32,kv_heads=32,sq=8192,skv=8192,head_dim=64,causal=no,x=bf16",
        measured: "328.6 TFLOPS (Flash Attention 2.0)",
        measured_s: 3.5 * fa_fwd(2.0, 8192.0, 32.0, 64.0, false) / 328.6e12,
        derivation: "read as fwd+bwd: 3.5 × 4·2·8192²·32·64 = 3.848e12 FLOP / 3.286e14 FLOP/s = 11.7 ms (forward only would be 3.35 ms)",
        conditions: "1× AMD Instinct MI300X (Azure ND MI300X v5); flash-attention benchmark_flash_attention.py (ROCm build), FP16, first match of batch_size=2, seqlen=8192 (causal=False, headdim=64)",
        source: "https://github.com/yosoyjay/AI-benchmarking-guide Azure_Results/ND_MI300X_v5_results.md and Benchmarks/FlashAttention.py",
        source_key: "azure-ai-benchmarking-guide",
        quote: "The performance (in TFLOPS), in table below, represents the performance for a head dimension of 64, a batch size of 2, and a sequence length of 8192. | Flash Attention 2.0   | 328.6  |",
        tier: Tier::VendorPublished,
        notes: "which of fwd, bwd or fwd+bwd the guide reports is not stated; the same pipeline's A100 and H100 figures match the FA2 README's fwd+bwd bars, so fwd+bwd is the likely reading. Low confidence.",
        expressible: Err("forward + backward is likely but not stated, and a forward-only reading gives a time 3.5× shorter: the pass cannot be chosen"),
        ..FA3_POINT
    },
    Point {
        id: "azure-fa2-gb200-hd128-b2-s8192",
        family: Family::Blackwell,
        link: "?chip=b200&op=attention:b=2,heads=16,kv_heads=16,sq=8192,skv=8192,head_dim=128,causal=no,x=bf16",
        measured: "373.9 TFLOPS (Flash Attention 2.0)",
        measured_s: 3.5 * fa_fwd(2.0, 8192.0, 16.0, 128.0, false) / 373.9e12,
        derivation: "read as fwd+bwd: 3.5 × 4·2·8192²·16·128 = 3.848e12 FLOP / 3.739e14 FLOP/s = 10.3 ms (forward only would be 2.94 ms)",
        conditions: "1× NVIDIA GB200 185GB (Azure ND GB200 v6); the guide's flash-attention benchmark, head dim 128, batch 2, seqlen 8192; the head count, mask and passes are not stated (16 heads, as the FlashAttention benchmark's hidden 2048, assumed)",
        source: "https://github.com/Azure/AI-benchmarking-guide Azure_Results/ND_GB200_v6_results.md (commit 2a370be)",
        source_key: "azure-ai-benchmarking-guide",
        quote: "The performance (in TFLOPS), in table below, represents the performance for a head dimension of 128, a batch size of 2, and a sequence length of 8192. | Flash Attention 2.0   | 373.9  |",
        tier: Tier::VendorPublished,
        notes: "as azure-fa2-mi300x-hd64-b2-s8192: which passes the figure covers is not stated",
        expressible: Err("forward + backward is likely but not stated, and a forward-only reading gives a time 3.5× shorter: the pass cannot be chosen"),
        ..FA3_POINT
    },
];
