//! Measured by this project on lent GPUs (issue 25's fourth tier): kernels and model steps
//! timed by `scripts/measure_gpu.py` on one NVIDIA H200 and one H100, each run twice, on
//! 2026-11-26. Pure data: each figure is the mean of a card's two runs' medians, both quoted
//! from the runs' output in `docs/measured/`. One script, one day: one campaign, so one source,
//! held out together (neither card's points predict the other's). Over 600 lines on purpose:
//! pure data, the two cards' 23 points each in the same order, so a figure reads against its twin
//! (the generated `measured_s` and texts are per point, as in the other data files).

use super::{MeasureKind, Point, Tier};

const SOURCE: &str = "this repository: scripts/measure_gpu.py (commit 0255aae), run twice back to back on each of the NVIDIA H200 and the NVIDIA H100 lent to this task on 2026-11-26; its output in docs/measured/2026-11-26-h200 and docs/measured/2026-11-26-h100 (run1 and run2: log.txt, measured.json, nvidia-smi -q before and after)";

/// The method every point shares, after the card's conditions.
macro_rules! method {
    () => {
        "PyTorch 2.11.0+cu130, CUDA 13.0, cuDNN 9.19, Python 3.12.3; random normal inputs, warm-ups first, each figure the median over batches of back-to-back calls timed by CUDA events; "
    };
}

/// The conditions of the H200's points: the card and software as found, then the measurement's.
macro_rules! h200 {
    ($what:literal) => {
        concat!("1× NVIDIA H200 SXM 141GB (700 W default and current power limit; the NVL card's is 600 W), driver 580.159.04, measured as found: no clock or power setting changed, software power capping counted for 7.1 s of run 1 and 6.1 s of run 2; ", method!(), $what)
    };
}

/// The conditions of the H100's points.
macro_rules! h100 {
    ($what:literal) => {
        concat!("1× NVIDIA H100 80GB HBM3 (SXM: 700 W default and current power limit), driver 580.159.04, measured as found: no clock or power setting changed, software power capping counted for 7.1 s of run 1 and 6.6 s of run 2; ", method!(), $what)
    };
}

const MEASURED: Point = Point {
    source: SOURCE,
    source_key: "roofline-lab-gpus-2026-11-26",
    tier: Tier::MeasuredByProject,
    ..Point::EMPTY
};

pub(super) static POINTS: &[Point] = &[
    Point {
        id: "h200-gemm-bf16-8192cube",
        work: MeasureKind::Gemm,
        link: "?chip=h200&op=matmul:b=8192,d=8192,f=8192,x=bf16,w=bf16,out=bf16",
        measured: "1.455 ms per call, the mean of two runs' medians (1.516 ms and 1.394 ms)",
        measured_s: (1.515791988e-03 + 1.394060802e-03) / 2.0,
        derivation: "(1.516 ms + 1.394 ms) / 2 = 1.455 ms",
        conditions: h200!("torch.matmul bf16 8192x8192 @ 8192x8192 -> bf16 (cuBLAS)"),
        quote: "run 1: gemm-bf16-8192cube 1515.8 us (min 1388.2, max 1623.3); run 2: 1394.1 us (min 1387.7, max 1634.5)",
        notes: "the runs' medians differ by 8.7 %: run 1 began on an idle card and the card capped its power (700 W) in both; the fastest batches agree (1,388.2 µs and 1,387.7 µs)",
        expressible: Ok(()),
        ..MEASURED
    },
    Point {
        id: "h200-gemm-bf16-4096cube",
        work: MeasureKind::Gemm,
        link: "?chip=h200&op=matmul:b=4096,d=4096,f=4096,x=bf16,w=bf16,out=bf16",
        measured: "176.0 µs per call, the mean of two runs' medians (176.1 µs and 175.9 µs)",
        measured_s: (1.761279941e-04 + 1.758720040e-04) / 2.0,
        derivation: "(176.1 µs + 175.9 µs) / 2 = 176.0 µs",
        conditions: h200!("torch.matmul bf16 4096x4096 @ 4096x4096 -> bf16 (cuBLAS)"),
        quote: "run 1: gemm-bf16-4096cube 176.1 us (min 175.6, max 178.7); run 2: 175.9 us (min 175.2, max 176.9)",
        notes: "the two runs' medians agree within 0.1 %",
        expressible: Ok(()),
        ..MEASURED
    },
    Point {
        id: "h200-gemm-fp8-8192cube",
        work: MeasureKind::Gemm,
        link: "?chip=h200&op=matmul:b=8192,d=8192,f=8192,x=fp8,w=fp8,out=bf16",
        measured: "769.9 µs per call, the mean of two runs' medians (771.0 µs and 768.8 µs)",
        measured_s: (7.710464001e-04 + 7.688159943e-04) / 2.0,
        derivation: "(771.0 µs + 768.8 µs) / 2 = 769.9 µs",
        conditions: h200!("torch._scaled_mm FP8 E4M3 8192^3, per-tensor scales, bf16 out (cuBLASLt)"),
        quote: "run 1: gemm-fp8-8192cube 771.0 us (min 765.3, max 773.1); run 2: 768.8 us (min 767.5, max 770.7)",
        notes: "per-tensor scales (one scale per operand), not DeepGEMM's fine-grained 1×128 blocks",
        expressible: Ok(()),
        ..MEASURED
    },
    Point {
        id: "h200-gemm-bf16-m1-n14336-k4096",
        work: MeasureKind::Gemm,
        link: "?chip=h200&op=matmul:b=1,d=4096,f=14336,x=bf16,w=bf16,out=bf16",
        measured: "31.8 µs per call, the mean of two runs' medians (31.9 µs and 31.8 µs)",
        measured_s: (3.186320066e-05 + 3.182640076e-05) / 2.0,
        derivation: "(31.9 µs + 31.8 µs) / 2 = 31.8 µs",
        conditions: h200!("F.linear bf16 x[1,4096] @ W[14336,4096]^T, four weight copies rotated"),
        quote: "run 1: gemm-bf16-m1-n14336-k4096 31.9 us (min 31.6, max 32.2); run 2: 31.8 us (min 31.5, max 32.6)",
        notes: "decode-shaped: 117 MB of weights read per call (four copies rotated, so none stays in the 60 MB L2); M = 1 runs as cuBLAS's GEMV path",
        expressible: Ok(()),
        ..MEASURED
    },
    Point {
        id: "h200-gemm-bf16-m16-n14336-k4096",
        work: MeasureKind::Gemm,
        link: "?chip=h200&op=matmul:b=16,d=4096,f=14336,x=bf16,w=bf16,out=bf16",
        measured: "32.6 µs per call, the mean of two runs' medians (32.4 µs and 32.9 µs)",
        measured_s: (3.240559995e-05 + 3.285439909e-05) / 2.0,
        derivation: "(32.4 µs + 32.9 µs) / 2 = 32.6 µs",
        conditions: h200!("F.linear bf16 x[16,4096] @ W[14336,4096]^T, four weight copies rotated"),
        quote: "run 1: gemm-bf16-m16-n14336-k4096 32.4 us (min 32.2, max 32.6); run 2: 32.9 us (min 32.7, max 33.0)",
        notes: "decode-shaped: 117 MB of weights read per call (four copies rotated, so none stays in the 60 MB L2)",
        expressible: Ok(()),
        ..MEASURED
    },
    Point {
        id: "h200-gemm-bf16-m128-n14336-k4096",
        work: MeasureKind::Gemm,
        link: "?chip=h200&op=matmul:b=128,d=4096,f=14336,x=bf16,w=bf16,out=bf16",
        measured: "35.8 µs per call, the mean of two runs' medians (35.9 µs and 35.6 µs)",
        measured_s: (3.588240147e-05 + 3.563919961e-05) / 2.0,
        derivation: "(35.9 µs + 35.6 µs) / 2 = 35.8 µs",
        conditions: h200!("F.linear bf16 x[128,4096] @ W[14336,4096]^T, four weight copies rotated"),
        quote: "run 1: gemm-bf16-m128-n14336-k4096 35.9 us (min 35.7, max 36.0); run 2: 35.6 us (min 35.5, max 36.6)",
        notes: "decode-shaped: 117 MB of weights read per call (four copies rotated, so none stays in the 60 MB L2)",
        expressible: Ok(()),
        ..MEASURED
    },
    Point {
        id: "h200-triad-fp32-2e28",
        work: MeasureKind::Memory,
        link: "?chip=h200&op=custom:flops=536870912,bytes=3221225472",
        measured: "741.3 µs per call, the mean of two runs' medians (740.5 µs and 742.1 µs)",
        measured_s: (7.405439854e-04 + 7.421152115e-04) / 2.0,
        derivation: "(740.5 µs + 742.1 µs) / 2 = 741.3 µs",
        conditions: h200!("STREAM triad a = b + 2c, fp32, 2^28 elements (1 GiB per array): 3 x 1 GiB moved"),
        quote: "run 1: triad-fp32-2e28 740.5 us (min 740.1, max 741.9); run 2: 742.1 us (min 739.2, max 742.7)",
        notes: "fp32 arrays of 2^28 elements: 3 GiB moved per call (two read, one written), as BabelStream counts it",
        expressible: Ok(()),
        ..MEASURED
    },
    Point {
        id: "h200-copy-fp32-2e28",
        work: MeasureKind::Memory,
        link: "?chip=h200&op=custom:flops=0,bytes=2147483648",
        measured: "509.3 µs per call, the mean of two runs' medians (509.9 µs and 508.7 µs)",
        measured_s: (5.098656178e-04 + 5.087007999e-04) / 2.0,
        derivation: "(509.9 µs + 508.7 µs) / 2 = 509.3 µs",
        conditions: h200!("device-to-device copy a.copy_(b), fp32, 1 GiB: 2 x 1 GiB moved"),
        quote: "run 1: copy-fp32-2e28 509.9 us (min 508.4, max 510.4); run 2: 508.7 us (min 507.5, max 510.5)",
        notes: "a.copy_(b): 2 GiB moved per call (one read, one written)",
        expressible: Ok(()),
        ..MEASURED
    },
    Point {
        id: "h200-sdpa-flash-b1-h16-s16384-hd128-full-fwd",
        work: MeasureKind::Attention,
        link: "?chip=h200&op=attention:b=1,heads=16,kv_heads=16,sq=16384,skv=16384,head_dim=128,causal=no,x=bf16",
        measured: "6.305 ms per call, the mean of two runs' medians (6.301 ms and 6.309 ms)",
        measured_s: (6.301164627e-03 + 6.309299088e-03) / 2.0,
        derivation: "(6.301 ms + 6.309 ms) / 2 = 6.305 ms",
        conditions: h200!("F.scaled_dot_product_attention forward, backend flash, bf16"),
        quote: "run 1: sdpa-flash-b1-h16-s16384-hd128-full-fwd 6301.2 us (min 6108.5, max 6333.3); run 2: 6309.3 us (min 6105.1, max 6336.1)",
        notes: "PyTorch's FlashAttention-2 backend",
        expressible: Ok(()),
        ..MEASURED
    },
    Point {
        id: "h200-sdpa-flash-b1-h16-s16384-hd128-causal-fwd",
        work: MeasureKind::Attention,
        link: "?chip=h200&op=attention:b=1,heads=16,kv_heads=16,sq=16384,skv=16384,head_dim=128,causal=yes,x=bf16",
        measured: "3.456 ms per call, the mean of two runs' medians (3.458 ms and 3.454 ms)",
        measured_s: (3.458278275e-03 + 3.454284668e-03) / 2.0,
        derivation: "(3.458 ms + 3.454 ms) / 2 = 3.456 ms",
        conditions: h200!("F.scaled_dot_product_attention forward, backend flash, bf16"),
        quote: "run 1: sdpa-flash-b1-h16-s16384-hd128-causal-fwd 3458.3 us (min 3442.6, max 3501.3); run 2: 3454.3 us (min 3421.8, max 3468.7)",
        notes: "PyTorch's FlashAttention-2 backend",
        expressible: Ok(()),
        ..MEASURED
    },
    Point {
        id: "h200-sdpa-flash-b8-h16-s2048-hd128-causal-fwd",
        work: MeasureKind::Attention,
        link: "?chip=h200&op=attention:b=8,heads=16,kv_heads=16,sq=2048,skv=2048,head_dim=128,causal=yes,x=bf16",
        measured: "492.8 µs per call, the mean of two runs' medians (495.0 µs and 490.6 µs)",
        measured_s: (4.950143814e-04 + 4.906112194e-04) / 2.0,
        derivation: "(495.0 µs + 490.6 µs) / 2 = 492.8 µs",
        conditions: h200!("F.scaled_dot_product_attention forward, backend flash, bf16"),
        quote: "run 1: sdpa-flash-b8-h16-s2048-hd128-causal-fwd 495.0 us (min 490.9, max 499.3); run 2: 490.6 us (min 488.4, max 495.3)",
        notes: "PyTorch's FlashAttention-2 backend",
        expressible: Ok(()),
        ..MEASURED
    },
    Point {
        id: "h200-sdpa-cudnn-b1-h16-s16384-hd128-full-fwd",
        work: MeasureKind::Attention,
        link: "?chip=h200&op=attention:b=1,heads=16,kv_heads=16,sq=16384,skv=16384,head_dim=128,causal=no,x=bf16",
        measured: "3.590 ms per call, the mean of two runs' medians (3.589 ms and 3.592 ms)",
        measured_s: (3.589075089e-03 + 3.591532898e-03) / 2.0,
        derivation: "(3.589 ms + 3.592 ms) / 2 = 3.590 ms",
        conditions: h200!("F.scaled_dot_product_attention forward, backend cudnn, bf16"),
        quote: "run 1: sdpa-cudnn-b1-h16-s16384-hd128-full-fwd 3589.1 us (min 3176.6, max 3635.4); run 2: 3591.5 us (min 3185.7, max 3638.0)",
        notes: "cuDNN 9.19's fused attention (a Hopper kernel): 1.76× faster than the FlashAttention-2 backend on the same shape",
        expressible: Ok(()),
        ..MEASURED
    },
    Point {
        id: "h200-sdpa-cudnn-b1-h16-s16384-hd128-causal-fwd",
        work: MeasureKind::Attention,
        link: "?chip=h200&op=attention:b=1,heads=16,kv_heads=16,sq=16384,skv=16384,head_dim=128,causal=yes,x=bf16",
        measured: "1.861 ms per call, the mean of two runs' medians (1.849 ms and 1.873 ms)",
        measured_s: (1.849375916e-03 + 1.872691154e-03) / 2.0,
        derivation: "(1.849 ms + 1.873 ms) / 2 = 1.861 ms",
        conditions: h200!("F.scaled_dot_product_attention forward, backend cudnn, bf16"),
        quote: "run 1: sdpa-cudnn-b1-h16-s16384-hd128-causal-fwd 1849.4 us (min 1748.1, max 1987.6); run 2: 1872.7 us (min 1821.8, max 2053.4)",
        notes: "cuDNN 9.19's fused attention (a Hopper kernel): 1.86× faster than the FlashAttention-2 backend on the same shape",
        expressible: Ok(()),
        ..MEASURED
    },
    Point {
        id: "h200-sdpa-cudnn-b8-h16-s2048-hd128-causal-fwd",
        work: MeasureKind::Attention,
        link: "?chip=h200&op=attention:b=8,heads=16,kv_heads=16,sq=2048,skv=2048,head_dim=128,causal=yes,x=bf16",
        measured: "281.3 µs per call, the mean of two runs' medians (278.5 µs and 284.0 µs)",
        measured_s: (2.784832001e-04 + 2.840192080e-04) / 2.0,
        derivation: "(278.5 µs + 284.0 µs) / 2 = 281.3 µs",
        conditions: h200!("F.scaled_dot_product_attention forward, backend cudnn, bf16"),
        quote: "run 1: sdpa-cudnn-b8-h16-s2048-hd128-causal-fwd 278.5 us (min 277.5, max 279.3); run 2: 284.0 us (min 282.8, max 284.9)",
        notes: "cuDNN 9.19's fused attention (a Hopper kernel): 1.75× faster than the FlashAttention-2 backend on the same shape",
        expressible: Ok(()),
        ..MEASURED
    },
    Point {
        id: "h200-sdpa-flash-b1-h16-s16384-hd128-causal-fwdbwd",
        work: MeasureKind::Attention,
        link: "?chip=h200&op=attention:b=1,heads=16,kv_heads=16,sq=16384,skv=16384,head_dim=128,causal=yes,x=bf16,pass=fwdbwd",
        measured: "12.372 ms per call, the mean of two runs' medians (12.340 ms and 12.405 ms)",
        measured_s: (1.233996836e-02 + 1.240488561e-02) / 2.0,
        derivation: "(12.340 ms + 12.405 ms) / 2 = 12.372 ms",
        conditions: h200!("F.scaled_dot_product_attention forward + backward (autograd), backend flash, bf16"),
        quote: "run 1: sdpa-flash-b1-h16-s16384-hd128-causal-fwdbwd 12340.0 us (min 12311.0, max 12405.0); run 2: 12404.9 us (min 12371.3, max 12477.3)",
        notes: "PyTorch's FlashAttention-2 backend, forward and backward through autograd (the gradients of q, k and v accumulate: one small add each per call)",
        expressible: Ok(()),
        ..MEASURED
    },
    Point {
        id: "h200-llama3.1-8b-decode-b1-ctx1024-eager",
        work: MeasureKind::Decode,
        link: "?chip=h200&op=llm:preset=llama3.1-8b,phase=decode,tp=1,b=1,ctx=1024,w=bf16,x=bf16,kv=bf16",
        measured: "20.064 ms per call, the mean of two runs' medians (23.454 ms and 16.674 ms)",
        measured_s: (2.345438690e-02 + 1.667370911e-02) / 2.0,
        derivation: "(23.454 ms + 16.674 ms) / 2 = 20.064 ms",
        conditions: h200!("one decode step, plain PyTorch eager (each kernel launched from Python)"),
        quote: "run 1: llama3.1-8b-decode-b1-ctx1024-eager 23454.4 us (min 17178.7, max 24068.3); run 2: 16673.7 us (min 16599.4, max 17282.8)",
        notes: "plain PyTorch, no fused kernels: RMSNorm, RoPE, the cache write, softmax and SiLU·up as separate kernels (dozens per layer); attention as two batched matmuls per layer that read each KV head's cache once for its 4 query heads; the step's tokens are random, the weights random normal; the same step as h200-llama3.1-8b-decode-b1-ctx1024-graph, launched kernel by kernel from Python",
        expressible: Err("the step is bound by the host, not the chip: its kernels, launched one at a time from Python, took 16.6 to 24.1 ms a step, while the same step replayed as one CUDA graph takes 6.87 ms; the llm kind does not model the host's launch rate"),
        ..MEASURED
    },
    Point {
        id: "h200-llama3.1-8b-decode-b1-ctx1024-graph",
        work: MeasureKind::Decode,
        link: "?chip=h200&op=llm:preset=llama3.1-8b,phase=decode,tp=1,b=1,ctx=1024,w=bf16,x=bf16,kv=bf16",
        measured: "6.873 ms per call, the mean of two runs' medians (6.874 ms and 6.872 ms)",
        measured_s: (6.874272156e-03 + 6.872022247e-03) / 2.0,
        derivation: "(6.874 ms + 6.872 ms) / 2 = 6.873 ms",
        conditions: h200!("one decode step, plain PyTorch captured as one CUDA graph (replayed)"),
        quote: "run 1: llama3.1-8b-decode-b1-ctx1024-graph 6874.3 us (min 6873.4, max 6876.9); run 2: 6872.0 us (min 6868.6, max 6875.5)",
        notes: "plain PyTorch, no fused kernels: RMSNorm, RoPE, the cache write, softmax and SiLU·up as separate kernels (dozens per layer); attention as two batched matmuls per layer that read each KV head's cache once for its 4 query heads; the step's tokens are random, the weights random normal",
        expressible: Ok(()),
        ..MEASURED
    },
    Point {
        id: "h200-llama3.1-8b-decode-b16-ctx1024-graph",
        work: MeasureKind::Decode,
        link: "?chip=h200&op=llm:preset=llama3.1-8b,phase=decode,tp=1,b=16,ctx=1024,w=bf16,x=bf16,kv=bf16",
        measured: "8.261 ms per call, the mean of two runs' medians (8.265 ms and 8.258 ms)",
        measured_s: (8.264713287e-03 + 8.258195496e-03) / 2.0,
        derivation: "(8.265 ms + 8.258 ms) / 2 = 8.261 ms",
        conditions: h200!("one decode step, plain PyTorch captured as one CUDA graph (replayed)"),
        quote: "run 1: llama3.1-8b-decode-b16-ctx1024-graph 8264.7 us (min 8262.2, max 8265.5); run 2: 8258.2 us (min 8256.5, max 8259.5)",
        notes: "plain PyTorch, no fused kernels: RMSNorm, RoPE, the cache write, softmax and SiLU·up as separate kernels (dozens per layer); attention as two batched matmuls per layer that read each KV head's cache once for its 4 query heads; the step's tokens are random, the weights random normal",
        expressible: Ok(()),
        ..MEASURED
    },
    Point {
        id: "h200-llama3.1-8b-decode-b64-ctx1024-graph",
        work: MeasureKind::Decode,
        link: "?chip=h200&op=llm:preset=llama3.1-8b,phase=decode,tp=1,b=64,ctx=1024,w=bf16,x=bf16,kv=bf16",
        measured: "10.749 ms per call, the mean of two runs' medians (10.750 ms and 10.747 ms)",
        measured_s: (1.075018539e-02 + 1.074709091e-02) / 2.0,
        derivation: "(10.750 ms + 10.747 ms) / 2 = 10.749 ms",
        conditions: h200!("one decode step, plain PyTorch captured as one CUDA graph (replayed)"),
        quote: "run 1: llama3.1-8b-decode-b64-ctx1024-graph 10750.2 us (min 10746.4, max 10754.2); run 2: 10747.1 us (min 10739.0, max 10752.8)",
        notes: "plain PyTorch, no fused kernels: RMSNorm, RoPE, the cache write, softmax and SiLU·up as separate kernels (dozens per layer); attention as two batched matmuls per layer that read each KV head's cache once for its 4 query heads; the step's tokens are random, the weights random normal",
        expressible: Ok(()),
        ..MEASURED
    },
    Point {
        id: "h200-llama3.1-8b-prefill-b1-2048",
        work: MeasureKind::Prefill,
        link: "?chip=h200&op=llm:preset=llama3.1-8b,phase=prefill,tp=1,b=1,ctx=2048,w=bf16,x=bf16,kv=bf16",
        measured: "61.889 ms per call, the mean of two runs' medians (61.887 ms and 61.891 ms)",
        measured_s: (6.188665771e-02 + 6.189120102e-02) / 2.0,
        derivation: "(61.887 ms + 61.891 ms) / 2 = 61.889 ms",
        conditions: h200!("a prefill forward, plain PyTorch eager, SDPA causal (flash), logits of the last token"),
        quote: "run 1: llama3.1-8b-prefill-b1-2048 61886.7 us (min 61790.0, max 62124.9); run 2: 61891.2 us (min 61579.0, max 62126.8)",
        notes: "plain PyTorch eager: the KV heads repeated to 32 for SDPA (FlashAttention-2 backend, causal), RMSNorm, RoPE and SiLU·up as separate kernels, no KV cache written; logits of the last token only, as serving engines do",
        expressible: Ok(()),
        ..MEASURED
    },
    Point {
        id: "h200-llama3.1-8b-prefill-b1-8192",
        work: MeasureKind::Prefill,
        link: "?chip=h200&op=llm:preset=llama3.1-8b,phase=prefill,tp=1,b=1,ctx=8192,w=bf16,x=bf16,kv=bf16",
        measured: "264.835 ms per call, the mean of two runs' medians (263.874 ms and 265.796 ms)",
        measured_s: (2.638738708e-01 + 2.657964478e-01) / 2.0,
        derivation: "(263.874 ms + 265.796 ms) / 2 = 264.835 ms",
        conditions: h200!("a prefill forward, plain PyTorch eager, SDPA causal (flash), logits of the last token"),
        quote: "run 1: llama3.1-8b-prefill-b1-8192 263873.9 us (min 258052.0, max 274243.8); run 2: 265796.4 us (min 258746.2, max 273590.5)",
        notes: "plain PyTorch eager: the KV heads repeated to 32 for SDPA (FlashAttention-2 backend, causal), RMSNorm, RoPE and SiLU·up as separate kernels, no KV cache written; logits of the last token only, as serving engines do",
        expressible: Ok(()),
        ..MEASURED
    },
    Point {
        id: "h200-train-gpt-124m-seq1024-tokens16384",
        work: MeasureKind::Training,
        link: "?chip=h200&op=train:layers=12,dmodel=768,ffn=3072,gated=no,heads=12,kv_heads=12,head_dim=64,vocab=50304,batch=16384,seq=1024,dp=1,fsdp=1,tp=1,pp=1,mb=1,remat=none,param=fp32,grad=fp32,master=none,opt_dtype=fp32",
        measured: "46.147 ms per call, the mean of two runs' medians (45.986 ms and 46.308 ms)",
        measured_s: (4.598619270e-02 + 4.630756760e-02) / 2.0,
        derivation: "(45.986 ms + 46.308 ms) / 2 = 46.147 ms",
        conditions: h200!("one training step: forward, backward, fused AdamW; torch.autocast bf16 over fp32 weights, LayerNorm, GELU MLP, SDPA causal (flash), untied head, fp32 cross-entropy, no activation checkpointing"),
        quote: "run 1: train-gpt-124m-seq1024-tokens16384 45986.2 us (min 45797.2, max 46561.5); run 2: 46307.6 us (min 45860.3, max 46625.6)",
        notes: "a GPT of plain PyTorch modules: LayerNorm, GELU MLP, no biases, SDPA causal (FlashAttention-2 backend), a learned position embedding (8,192·d parameters the train kind does not count; it adds no FLOPs) and an untied head; cross-entropy on fp32 logits; torch.autocast bf16 over fp32 weights and gradients, fused AdamW with fp32 states (param=fp32, grad=fp32, master=none, opt_dtype=fp32); no activation checkpointing; random tokens; 168,531,456 parameters",
        expressible: Ok(()),
        ..MEASURED
    },
    Point {
        id: "h200-train-gpt-1b-seq2048-tokens8192",
        work: MeasureKind::Training,
        link: "?chip=h200&op=train:layers=16,dmodel=2048,ffn=8192,gated=no,heads=16,kv_heads=16,head_dim=128,vocab=50304,batch=8192,seq=2048,dp=1,fsdp=1,tp=1,pp=1,mb=1,remat=none,param=fp32,grad=fp32,master=none,opt_dtype=fp32",
        measured: "107.994 ms per call, the mean of two runs' medians (106.897 ms and 109.091 ms)",
        measured_s: (1.068969269e-01 + 1.090909119e-01) / 2.0,
        derivation: "(106.897 ms + 109.091 ms) / 2 = 107.994 ms",
        conditions: h200!("one training step: forward, backward, fused AdamW; torch.autocast bf16 over fp32 weights, LayerNorm, GELU MLP, SDPA causal (flash), untied head, fp32 cross-entropy, no activation checkpointing"),
        quote: "run 1: train-gpt-1b-seq2048-tokens8192 106896.9 us (min 105434.0, max 122161.9); run 2: 109090.9 us (min 106888.6, max 119898.9)",
        notes: "a GPT of plain PyTorch modules: LayerNorm, GELU MLP, no biases, SDPA causal (FlashAttention-2 backend), a learned position embedding (8,192·d parameters the train kind does not count; it adds no FLOPs) and an untied head; cross-entropy on fp32 logits; torch.autocast bf16 over fp32 weights and gradients, fused AdamW with fp32 states (param=fp32, grad=fp32, master=none, opt_dtype=fp32); no activation checkpointing; random tokens; 1,028,263,936 parameters",
        expressible: Ok(()),
        ..MEASURED
    },
    Point {
        id: "h100-gemm-bf16-8192cube",
        work: MeasureKind::Gemm,
        link: "?chip=h100&op=matmul:b=8192,d=8192,f=8192,x=bf16,w=bf16,out=bf16",
        measured: "1.477 ms per call, the mean of two runs' medians (1.521 ms and 1.433 ms)",
        measured_s: (1.521254444e-03 + 1.432950401e-03) / 2.0,
        derivation: "(1.521 ms + 1.433 ms) / 2 = 1.477 ms",
        conditions: h100!("torch.matmul bf16 8192x8192 @ 8192x8192 -> bf16 (cuBLAS)"),
        quote: "run 1: gemm-bf16-8192cube 1521.3 us (min 1370.8, max 1570.7); run 2: 1433.0 us (min 1374.0, max 1488.4)",
        notes: "the runs' medians differ by 6.2 %: run 1 began on an idle card and the card capped its power (700 W) in both; the fastest batches agree (1,370.8 µs and 1,374.0 µs)",
        expressible: Ok(()),
        ..MEASURED
    },
    Point {
        id: "h100-gemm-bf16-4096cube",
        work: MeasureKind::Gemm,
        link: "?chip=h100&op=matmul:b=4096,d=4096,f=4096,x=bf16,w=bf16,out=bf16",
        measured: "175.0 µs per call, the mean of two runs' medians (175.5 µs and 174.5 µs)",
        measured_s: (1.754816055e-04 + 1.744511962e-04) / 2.0,
        derivation: "(175.5 µs + 174.5 µs) / 2 = 175.0 µs",
        conditions: h100!("torch.matmul bf16 4096x4096 @ 4096x4096 -> bf16 (cuBLAS)"),
        quote: "run 1: gemm-bf16-4096cube 175.5 us (min 175.1, max 175.9); run 2: 174.5 us (min 174.2, max 175.1)",
        notes: "the two runs' medians agree within 0.6 %",
        expressible: Ok(()),
        ..MEASURED
    },
    Point {
        id: "h100-gemm-fp8-8192cube",
        work: MeasureKind::Gemm,
        link: "?chip=h100&op=matmul:b=8192,d=8192,f=8192,x=fp8,w=fp8,out=bf16",
        measured: "763.6 µs per call, the mean of two runs' medians (760.7 µs and 766.6 µs)",
        measured_s: (7.606751919e-04 + 7.665984154e-04) / 2.0,
        derivation: "(760.7 µs + 766.6 µs) / 2 = 763.6 µs",
        conditions: h100!("torch._scaled_mm FP8 E4M3 8192^3, per-tensor scales, bf16 out (cuBLASLt)"),
        quote: "run 1: gemm-fp8-8192cube 760.7 us (min 753.8, max 765.3); run 2: 766.6 us (min 758.2, max 837.7)",
        notes: "per-tensor scales (one scale per operand), not DeepGEMM's fine-grained 1×128 blocks",
        expressible: Ok(()),
        ..MEASURED
    },
    Point {
        id: "h100-gemm-bf16-m1-n14336-k4096",
        work: MeasureKind::Gemm,
        link: "?chip=h100&op=matmul:b=1,d=4096,f=14336,x=bf16,w=bf16,out=bf16",
        measured: "45.1 µs per call, the mean of two runs' medians (44.7 µs and 45.5 µs)",
        measured_s: (4.471600056e-05 + 4.551759958e-05) / 2.0,
        derivation: "(44.7 µs + 45.5 µs) / 2 = 45.1 µs",
        conditions: h100!("F.linear bf16 x[1,4096] @ W[14336,4096]^T, four weight copies rotated"),
        quote: "run 1: gemm-bf16-m1-n14336-k4096 44.7 us (min 44.4, max 45.1); run 2: 45.5 us (min 45.4, max 45.8)",
        notes: "decode-shaped: 117 MB of weights read per call (four copies rotated, so none stays in the 50 MB L2); M = 1 runs as cuBLAS's GEMV path",
        expressible: Ok(()),
        ..MEASURED
    },
    Point {
        id: "h100-gemm-bf16-m16-n14336-k4096",
        work: MeasureKind::Gemm,
        link: "?chip=h100&op=matmul:b=16,d=4096,f=14336,x=bf16,w=bf16,out=bf16",
        measured: "45.7 µs per call, the mean of two runs' medians (45.2 µs and 46.2 µs)",
        measured_s: (4.518559873e-05 + 4.620000124e-05) / 2.0,
        derivation: "(45.2 µs + 46.2 µs) / 2 = 45.7 µs",
        conditions: h100!("F.linear bf16 x[16,4096] @ W[14336,4096]^T, four weight copies rotated"),
        quote: "run 1: gemm-bf16-m16-n14336-k4096 45.2 us (min 45.0, max 45.4); run 2: 46.2 us (min 46.1, max 47.8)",
        notes: "decode-shaped: 117 MB of weights read per call (four copies rotated, so none stays in the 50 MB L2)",
        expressible: Ok(()),
        ..MEASURED
    },
    Point {
        id: "h100-gemm-bf16-m128-n14336-k4096",
        work: MeasureKind::Gemm,
        link: "?chip=h100&op=matmul:b=128,d=4096,f=14336,x=bf16,w=bf16,out=bf16",
        measured: "48.4 µs per call, the mean of two runs' medians (48.6 µs and 48.1 µs)",
        measured_s: (4.864560068e-05 + 4.807200134e-05) / 2.0,
        derivation: "(48.6 µs + 48.1 µs) / 2 = 48.4 µs",
        conditions: h100!("F.linear bf16 x[128,4096] @ W[14336,4096]^T, four weight copies rotated"),
        quote: "run 1: gemm-bf16-m128-n14336-k4096 48.6 us (min 48.5, max 49.2); run 2: 48.1 us (min 48.0, max 48.6)",
        notes: "decode-shaped: 117 MB of weights read per call (four copies rotated, so none stays in the 50 MB L2)",
        expressible: Ok(()),
        ..MEASURED
    },
    Point {
        id: "h100-triad-fp32-2e28",
        work: MeasureKind::Memory,
        link: "?chip=h100&op=custom:flops=536870912,bytes=3221225472",
        measured: "1.057 ms per call, the mean of two runs' medians (1.057 ms and 1.057 ms)",
        measured_s: (1.056915188e-03 + 1.056918430e-03) / 2.0,
        derivation: "(1.057 ms + 1.057 ms) / 2 = 1.057 ms",
        conditions: h100!("STREAM triad a = b + 2c, fp32, 2^28 elements (1 GiB per array): 3 x 1 GiB moved"),
        quote: "run 1: triad-fp32-2e28 1056.9 us (min 1056.2, max 1059.2); run 2: 1056.9 us (min 1056.3, max 1062.0)",
        notes: "fp32 arrays of 2^28 elements: 3 GiB moved per call (two read, one written), as BabelStream counts it",
        expressible: Ok(()),
        ..MEASURED
    },
    Point {
        id: "h100-copy-fp32-2e28",
        work: MeasureKind::Memory,
        link: "?chip=h100&op=custom:flops=0,bytes=2147483648",
        measured: "713.9 µs per call, the mean of two runs' medians (713.8 µs and 714.1 µs)",
        measured_s: (7.137792110e-04 + 7.141151905e-04) / 2.0,
        derivation: "(713.8 µs + 714.1 µs) / 2 = 713.9 µs",
        conditions: h100!("device-to-device copy a.copy_(b), fp32, 1 GiB: 2 x 1 GiB moved"),
        quote: "run 1: copy-fp32-2e28 713.8 us (min 713.6, max 714.2); run 2: 714.1 us (min 714.0, max 714.7)",
        notes: "a.copy_(b): 2 GiB moved per call (one read, one written)",
        expressible: Ok(()),
        ..MEASURED
    },
    Point {
        id: "h100-sdpa-flash-b1-h16-s16384-hd128-full-fwd",
        work: MeasureKind::Attention,
        link: "?chip=h100&op=attention:b=1,heads=16,kv_heads=16,sq=16384,skv=16384,head_dim=128,causal=no,x=bf16",
        measured: "6.081 ms per call, the mean of two runs' medians (6.062 ms and 6.099 ms)",
        measured_s: (6.062239838e-03 + 6.099391937e-03) / 2.0,
        derivation: "(6.062 ms + 6.099 ms) / 2 = 6.081 ms",
        conditions: h100!("F.scaled_dot_product_attention forward, backend flash, bf16"),
        quote: "run 1: sdpa-flash-b1-h16-s16384-hd128-full-fwd 6062.2 us (min 6006.0, max 6263.9); run 2: 6099.4 us (min 6049.2, max 6153.1)",
        notes: "PyTorch's FlashAttention-2 backend",
        expressible: Ok(()),
        ..MEASURED
    },
    Point {
        id: "h100-sdpa-flash-b1-h16-s16384-hd128-causal-fwd",
        work: MeasureKind::Attention,
        link: "?chip=h100&op=attention:b=1,heads=16,kv_heads=16,sq=16384,skv=16384,head_dim=128,causal=yes,x=bf16",
        measured: "3.352 ms per call, the mean of two runs' medians (3.355 ms and 3.349 ms)",
        measured_s: (3.355392075e-03 + 3.349273682e-03) / 2.0,
        derivation: "(3.355 ms + 3.349 ms) / 2 = 3.352 ms",
        conditions: h100!("F.scaled_dot_product_attention forward, backend flash, bf16"),
        quote: "run 1: sdpa-flash-b1-h16-s16384-hd128-causal-fwd 3355.4 us (min 3336.4, max 3414.4); run 2: 3349.3 us (min 3313.8, max 3744.2)",
        notes: "PyTorch's FlashAttention-2 backend",
        expressible: Ok(()),
        ..MEASURED
    },
    Point {
        id: "h100-sdpa-flash-b8-h16-s2048-hd128-causal-fwd",
        work: MeasureKind::Attention,
        link: "?chip=h100&op=attention:b=8,heads=16,kv_heads=16,sq=2048,skv=2048,head_dim=128,causal=yes,x=bf16",
        measured: "494.6 µs per call, the mean of two runs' medians (489.9 µs and 499.2 µs)",
        measured_s: (4.898816109e-04 + 4.992447853e-04) / 2.0,
        derivation: "(489.9 µs + 499.2 µs) / 2 = 494.6 µs",
        conditions: h100!("F.scaled_dot_product_attention forward, backend flash, bf16"),
        quote: "run 1: sdpa-flash-b8-h16-s2048-hd128-causal-fwd 489.9 us (min 479.1, max 516.0); run 2: 499.2 us (min 497.1, max 506.1)",
        notes: "PyTorch's FlashAttention-2 backend",
        expressible: Ok(()),
        ..MEASURED
    },
    Point {
        id: "h100-sdpa-cudnn-b1-h16-s16384-hd128-full-fwd",
        work: MeasureKind::Attention,
        link: "?chip=h100&op=attention:b=1,heads=16,kv_heads=16,sq=16384,skv=16384,head_dim=128,causal=no,x=bf16",
        measured: "3.376 ms per call, the mean of two runs' medians (3.199 ms and 3.553 ms)",
        measured_s: (3.198745537e-03 + 3.553023911e-03) / 2.0,
        derivation: "(3.199 ms + 3.553 ms) / 2 = 3.376 ms",
        conditions: h100!("F.scaled_dot_product_attention forward, backend cudnn, bf16"),
        quote: "run 1: sdpa-cudnn-b1-h16-s16384-hd128-full-fwd 3198.7 us (min 3194.2, max 3566.8); run 2: 3553.0 us (min 3189.7, max 3599.3)",
        notes: "cuDNN 9.19's fused attention (a Hopper kernel): 1.80× faster than the FlashAttention-2 backend on the same shape",
        expressible: Ok(()),
        ..MEASURED
    },
    Point {
        id: "h100-sdpa-cudnn-b1-h16-s16384-hd128-causal-fwd",
        work: MeasureKind::Attention,
        link: "?chip=h100&op=attention:b=1,heads=16,kv_heads=16,sq=16384,skv=16384,head_dim=128,causal=yes,x=bf16",
        measured: "1.803 ms per call, the mean of two runs' medians (1.822 ms and 1.783 ms)",
        measured_s: (1.822150421e-03 + 1.783276749e-03) / 2.0,
        derivation: "(1.822 ms + 1.783 ms) / 2 = 1.803 ms",
        conditions: h100!("F.scaled_dot_product_attention forward, backend cudnn, bf16"),
        quote: "run 1: sdpa-cudnn-b1-h16-s16384-hd128-causal-fwd 1822.2 us (min 1714.8, max 1845.7); run 2: 1783.3 us (min 1732.4, max 1957.2)",
        notes: "cuDNN 9.19's fused attention (a Hopper kernel): 1.86× faster than the FlashAttention-2 backend on the same shape",
        expressible: Ok(()),
        ..MEASURED
    },
    Point {
        id: "h100-sdpa-cudnn-b8-h16-s2048-hd128-causal-fwd",
        work: MeasureKind::Attention,
        link: "?chip=h100&op=attention:b=8,heads=16,kv_heads=16,sq=2048,skv=2048,head_dim=128,causal=yes,x=bf16",
        measured: "279.8 µs per call, the mean of two runs' medians (280.9 µs and 278.8 µs)",
        measured_s: (2.809216022e-04 + 2.787775993e-04) / 2.0,
        derivation: "(280.9 µs + 278.8 µs) / 2 = 279.8 µs",
        conditions: h100!("F.scaled_dot_product_attention forward, backend cudnn, bf16"),
        quote: "run 1: sdpa-cudnn-b8-h16-s2048-hd128-causal-fwd 280.9 us (min 280.7, max 282.3); run 2: 278.8 us (min 277.5, max 279.8)",
        notes: "cuDNN 9.19's fused attention (a Hopper kernel): 1.77× faster than the FlashAttention-2 backend on the same shape",
        expressible: Ok(()),
        ..MEASURED
    },
    Point {
        id: "h100-sdpa-flash-b1-h16-s16384-hd128-causal-fwdbwd",
        work: MeasureKind::Attention,
        link: "?chip=h100&op=attention:b=1,heads=16,kv_heads=16,sq=16384,skv=16384,head_dim=128,causal=yes,x=bf16,pass=fwdbwd",
        measured: "12.292 ms per call, the mean of two runs' medians (12.261 ms and 12.324 ms)",
        measured_s: (1.226122665e-02 + 1.232364782e-02) / 2.0,
        derivation: "(12.261 ms + 12.324 ms) / 2 = 12.292 ms",
        conditions: h100!("F.scaled_dot_product_attention forward + backward (autograd), backend flash, bf16"),
        quote: "run 1: sdpa-flash-b1-h16-s16384-hd128-causal-fwdbwd 12261.2 us (min 12193.4, max 12572.6); run 2: 12323.6 us (min 12245.9, max 12456.5)",
        notes: "PyTorch's FlashAttention-2 backend, forward and backward through autograd (the gradients of q, k and v accumulate: one small add each per call)",
        expressible: Ok(()),
        ..MEASURED
    },
    Point {
        id: "h100-llama3.1-8b-decode-b1-ctx1024-eager",
        work: MeasureKind::Decode,
        link: "?chip=h100&op=llm:preset=llama3.1-8b,phase=decode,tp=1,b=1,ctx=1024,w=bf16,x=bf16,kv=bf16",
        measured: "16.943 ms per call, the mean of two runs' medians (16.743 ms and 17.143 ms)",
        measured_s: (1.674262390e-02 + 1.714312897e-02) / 2.0,
        derivation: "(16.743 ms + 17.143 ms) / 2 = 16.943 ms",
        conditions: h100!("one decode step, plain PyTorch eager (each kernel launched from Python)"),
        quote: "run 1: llama3.1-8b-decode-b1-ctx1024-eager 16742.6 us (min 16632.3, max 17571.3); run 2: 17143.1 us (min 16603.3, max 19140.0)",
        notes: "plain PyTorch, no fused kernels: RMSNorm, RoPE, the cache write, softmax and SiLU·up as separate kernels (dozens per layer); attention as two batched matmuls per layer that read each KV head's cache once for its 4 query heads; the step's tokens are random, the weights random normal; the same step as h100-llama3.1-8b-decode-b1-ctx1024-graph, launched kernel by kernel from Python",
        expressible: Err("the step is bound by the host, not the chip: its kernels, launched one at a time from Python, took 16.6 to 19.1 ms a step, while the same step replayed as one CUDA graph takes 8.49 ms; the llm kind does not model the host's launch rate"),
        ..MEASURED
    },
    Point {
        id: "h100-llama3.1-8b-decode-b1-ctx1024-graph",
        work: MeasureKind::Decode,
        link: "?chip=h100&op=llm:preset=llama3.1-8b,phase=decode,tp=1,b=1,ctx=1024,w=bf16,x=bf16,kv=bf16",
        measured: "8.492 ms per call, the mean of two runs' medians (8.490 ms and 8.494 ms)",
        measured_s: (8.490402985e-03 + 8.493968201e-03) / 2.0,
        derivation: "(8.490 ms + 8.494 ms) / 2 = 8.492 ms",
        conditions: h100!("one decode step, plain PyTorch captured as one CUDA graph (replayed)"),
        quote: "run 1: llama3.1-8b-decode-b1-ctx1024-graph 8490.4 us (min 8486.4, max 8494.9); run 2: 8494.0 us (min 8489.7, max 8497.3)",
        notes: "plain PyTorch, no fused kernels: RMSNorm, RoPE, the cache write, softmax and SiLU·up as separate kernels (dozens per layer); attention as two batched matmuls per layer that read each KV head's cache once for its 4 query heads; the step's tokens are random, the weights random normal",
        expressible: Ok(()),
        ..MEASURED
    },
    Point {
        id: "h100-llama3.1-8b-decode-b16-ctx1024-graph",
        work: MeasureKind::Decode,
        link: "?chip=h100&op=llm:preset=llama3.1-8b,phase=decode,tp=1,b=16,ctx=1024,w=bf16,x=bf16,kv=bf16",
        measured: "10.220 ms per call, the mean of two runs' medians (10.221 ms and 10.219 ms)",
        measured_s: (1.022130203e-02 + 1.021941147e-02) / 2.0,
        derivation: "(10.221 ms + 10.219 ms) / 2 = 10.220 ms",
        conditions: h100!("one decode step, plain PyTorch captured as one CUDA graph (replayed)"),
        quote: "run 1: llama3.1-8b-decode-b16-ctx1024-graph 10221.3 us (min 10217.7, max 10223.3); run 2: 10219.4 us (min 10216.8, max 10223.4)",
        notes: "plain PyTorch, no fused kernels: RMSNorm, RoPE, the cache write, softmax and SiLU·up as separate kernels (dozens per layer); attention as two batched matmuls per layer that read each KV head's cache once for its 4 query heads; the step's tokens are random, the weights random normal",
        expressible: Ok(()),
        ..MEASURED
    },
    Point {
        id: "h100-llama3.1-8b-decode-b64-ctx1024-graph",
        work: MeasureKind::Decode,
        link: "?chip=h100&op=llm:preset=llama3.1-8b,phase=decode,tp=1,b=64,ctx=1024,w=bf16,x=bf16,kv=bf16",
        measured: "13.377 ms per call, the mean of two runs' medians (13.374 ms and 13.379 ms)",
        measured_s: (1.337447968e-02 + 1.337864685e-02) / 2.0,
        derivation: "(13.374 ms + 13.379 ms) / 2 = 13.377 ms",
        conditions: h100!("one decode step, plain PyTorch captured as one CUDA graph (replayed)"),
        quote: "run 1: llama3.1-8b-decode-b64-ctx1024-graph 13374.5 us (min 13370.3, max 13376.2); run 2: 13378.6 us (min 13373.4, max 13380.8)",
        notes: "plain PyTorch, no fused kernels: RMSNorm, RoPE, the cache write, softmax and SiLU·up as separate kernels (dozens per layer); attention as two batched matmuls per layer that read each KV head's cache once for its 4 query heads; the step's tokens are random, the weights random normal",
        expressible: Ok(()),
        ..MEASURED
    },
    Point {
        id: "h100-llama3.1-8b-prefill-b1-2048",
        work: MeasureKind::Prefill,
        link: "?chip=h100&op=llm:preset=llama3.1-8b,phase=prefill,tp=1,b=1,ctx=2048,w=bf16,x=bf16,kv=bf16",
        measured: "63.206 ms per call, the mean of two runs' medians (62.932 ms and 63.480 ms)",
        measured_s: (6.293180847e-02 + 6.348028946e-02) / 2.0,
        derivation: "(62.932 ms + 63.480 ms) / 2 = 63.206 ms",
        conditions: h100!("a prefill forward, plain PyTorch eager, SDPA causal (flash), logits of the last token"),
        quote: "run 1: llama3.1-8b-prefill-b1-2048 62931.8 us (min 62788.8, max 62973.7); run 2: 63480.3 us (min 63204.2, max 63613.0)",
        notes: "plain PyTorch eager: the KV heads repeated to 32 for SDPA (FlashAttention-2 backend, causal), RMSNorm, RoPE and SiLU·up as separate kernels, no KV cache written; logits of the last token only, as serving engines do",
        expressible: Ok(()),
        ..MEASURED
    },
    Point {
        id: "h100-llama3.1-8b-prefill-b1-8192",
        work: MeasureKind::Prefill,
        link: "?chip=h100&op=llm:preset=llama3.1-8b,phase=prefill,tp=1,b=1,ctx=8192,w=bf16,x=bf16,kv=bf16",
        measured: "267.487 ms per call, the mean of two runs' medians (268.415 ms and 266.560 ms)",
        measured_s: (2.684148560e-01 + 2.665597839e-01) / 2.0,
        derivation: "(268.415 ms + 266.560 ms) / 2 = 267.487 ms",
        conditions: h100!("a prefill forward, plain PyTorch eager, SDPA causal (flash), logits of the last token"),
        quote: "run 1: llama3.1-8b-prefill-b1-8192 268414.9 us (min 265165.1, max 274586.6); run 2: 266559.8 us (min 264026.9, max 282177.2)",
        notes: "plain PyTorch eager: the KV heads repeated to 32 for SDPA (FlashAttention-2 backend, causal), RMSNorm, RoPE and SiLU·up as separate kernels, no KV cache written; logits of the last token only, as serving engines do",
        expressible: Ok(()),
        ..MEASURED
    },
    Point {
        id: "h100-train-gpt-124m-seq1024-tokens16384",
        work: MeasureKind::Training,
        link: "?chip=h100&op=train:layers=12,dmodel=768,ffn=3072,gated=no,heads=12,kv_heads=12,head_dim=64,vocab=50304,batch=16384,seq=1024,dp=1,fsdp=1,tp=1,pp=1,mb=1,remat=none,param=fp32,grad=fp32,master=none,opt_dtype=fp32",
        measured: "52.327 ms per call, the mean of two runs' medians (52.198 ms and 52.456 ms)",
        measured_s: (5.219764709e-02 + 5.245623970e-02) / 2.0,
        derivation: "(52.198 ms + 52.456 ms) / 2 = 52.327 ms",
        conditions: h100!("one training step: forward, backward, fused AdamW; torch.autocast bf16 over fp32 weights, LayerNorm, GELU MLP, SDPA causal (flash), untied head, fp32 cross-entropy, no activation checkpointing"),
        quote: "run 1: train-gpt-124m-seq1024-tokens16384 52197.6 us (min 51698.3, max 52325.1); run 2: 52456.2 us (min 52329.0, max 52584.5)",
        notes: "a GPT of plain PyTorch modules: LayerNorm, GELU MLP, no biases, SDPA causal (FlashAttention-2 backend), a learned position embedding (8,192·d parameters the train kind does not count; it adds no FLOPs) and an untied head; cross-entropy on fp32 logits; torch.autocast bf16 over fp32 weights and gradients, fused AdamW with fp32 states (param=fp32, grad=fp32, master=none, opt_dtype=fp32); no activation checkpointing; random tokens; 168,531,456 parameters",
        expressible: Ok(()),
        ..MEASURED
    },
    Point {
        id: "h100-train-gpt-1b-seq2048-tokens8192",
        work: MeasureKind::Training,
        link: "?chip=h100&op=train:layers=16,dmodel=2048,ffn=8192,gated=no,heads=16,kv_heads=16,head_dim=128,vocab=50304,batch=8192,seq=2048,dp=1,fsdp=1,tp=1,pp=1,mb=1,remat=none,param=fp32,grad=fp32,master=none,opt_dtype=fp32",
        measured: "114.201 ms per call, the mean of two runs' medians (114.449 ms and 113.952 ms)",
        measured_s: (1.144488487e-01 + 1.139521751e-01) / 2.0,
        derivation: "(114.449 ms + 113.952 ms) / 2 = 114.201 ms",
        conditions: h100!("one training step: forward, backward, fused AdamW; torch.autocast bf16 over fp32 weights, LayerNorm, GELU MLP, SDPA causal (flash), untied head, fp32 cross-entropy, no activation checkpointing"),
        quote: "run 1: train-gpt-1b-seq2048-tokens8192 114448.8 us (min 112898.3, max 123631.6); run 2: 113952.2 us (min 112874.5, max 120313.0)",
        notes: "a GPT of plain PyTorch modules: LayerNorm, GELU MLP, no biases, SDPA causal (FlashAttention-2 backend), a learned position embedding (8,192·d parameters the train kind does not count; it adds no FLOPs) and an untied head; cross-entropy on fp32 logits; torch.autocast bf16 over fp32 weights and gradients, fused AdamW with fp32 states (param=fp32, grad=fp32, master=none, opt_dtype=fp32); no activation checkpointing; random tokens; 1,028,263,936 parameters",
        expressible: Ok(()),
        ..MEASURED
    },
];
