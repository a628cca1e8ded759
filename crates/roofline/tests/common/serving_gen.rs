//! A generated PyTorch profiler trace of a serving engine (SGLang's annotated decode steps
//! around operator calls, their runtime launches, kernels and GPU-side spans) of any size: the
//! import benchmarks' trace (issue 43), natively (`benches/profile.rs`) and in the page
//! (`benches/page/profile_import.rs`), both of which include this file with `#[path]`.
#![allow(dead_code)]

use std::fmt::Write as _;

/// Operator calls per engine step in the generated trace.
const OPS_PER_STEP: u64 = 300;

/// A PyTorch trace (Kineto JSON, as `export_chrome_trace` writes it) of `bytes` or a little
/// more: operator calls (`aten::mm` in 16 shapes, `aten::add`, `aten::native_layer_norm`),
/// each with its runtime launch and GPU kernel joined by correlation id.
pub fn trace(bytes: usize) -> Vec<u8> {
    let mut s = String::with_capacity(bytes + 4096);
    s.push_str(
        "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA H100 80GB HBM3\", \"computeMajor\": 9, \"computeMinor\": 0}],\n  \"record_shapes\": 1,\n  \"traceEvents\": [\n",
    );
    let mut ts = 1000.0f64;
    let mut i = 0u64;
    let mut step_start = ts;
    let mut kernel_start = ts;
    while s.len() < bytes {
        // An engine step around every OPS_PER_STEP calls: its CPU span and its GPU-side span
        // (SGLang's detailed names, a decode step of 32 sequences at a context growing by one).
        if i % OPS_PER_STEP == 0 && i > 0 {
            let n = i / OPS_PER_STEP;
            let keys = 32 * (2048 + n);
            let name = format!("step[DECODE bs=32 g_sq=32 g_sqsq=32 g_sqsk={keys} g_sk={keys}]");
            writeln!(
                s,
                "  {{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"{name}\", \"pid\": 100, \"tid\": 100, \"ts\": {step_start:.3}, \"dur\": {:.3}, \"args\": {{\"External id\": {}}}}},\n  {{\"ph\": \"X\", \"cat\": \"gpu_user_annotation\", \"name\": \"{name}\", \"pid\": 0, \"tid\": 7, \"ts\": {:.3}, \"dur\": {:.3}, \"args\": {{\"External id\": {}}}}},",
                ts - step_start,
                1_000_000 + n,
                kernel_start,
                ts - kernel_start,
                1_000_000 + n,
            )
            .unwrap();
            step_start = ts;
            kernel_start = ts + 8.0;
        }
        let m = 256 * (1 + i % 16);
        let (op, dims, types, flops, kernel, dur) = match i % 3 {
            0 => (
                "aten::mm",
                format!("[[{m}, 4096], [4096, 4096]]"),
                "[\"c10::BFloat16\", \"c10::BFloat16\"]",
                String::new(),
                "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64",
                2.0 * m as f64 * 4096.0 * 4096.0 / 6e14 * 1e6,
            ),
            1 => (
                "aten::add",
                format!("[[{m}, 4096], [{m}, 4096], []]"),
                "[\"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\"]",
                format!(", \"flops\": {}", m * 4096),
                "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>>",
                3.0 * m as f64 * 4096.0 * 2.0 / 2.5e12 * 1e6,
            ),
            _ => (
                "aten::native_layer_norm",
                format!("[[{m}, 4096], [4096], [4096], []]"),
                "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\"]",
                String::new(),
                "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float>",
                2.0 * m as f64 * 4096.0 * 2.0 / 2e12 * 1e6,
            ),
        };
        let ext = 10_000 + i;
        writeln!(
            s,
            "  {{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"{op}\", \"pid\": 100, \"tid\": 100, \"ts\": {ts:.3}, \"dur\": 12.000, \"args\": {{\"External id\": {ext}, \"Record function id\": 0, \"Input Dims\": {dims}, \"Input type\": {types}{flops}}}}},\n  {{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 100, \"tid\": 100, \"ts\": {:.3}, \"dur\": 4.000, \"args\": {{\"External id\": {ext}, \"cbid\": 211, \"correlation\": {ext}}}}},\n  {{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"{kernel}\", \"pid\": 0, \"tid\": 7, \"ts\": {:.3}, \"dur\": {dur:.3}, \"args\": {{\"External id\": {ext}, \"correlation\": {ext}, \"stream\": 7, \"device\": 0}}}},",
            ts + 2.0,
            ts + 8.0,
        )
        .unwrap();
        ts += 20.0 + dur;
        i += 1;
    }
    // The last event without its comma, then the closing brackets.
    s.truncate(s.trim_end().len() - 1);
    s.push_str("\n  ]\n}\n");
    s.into_bytes()
}
