//! Synthetic PyTorch profiler traces (Kineto's layout: one event per few lines, fractional
//! microseconds, `cpu_op` → `cuda_runtime` → `kernel` joined by correlation ids and `ac2g`
//! flows) of any size, for the import benchmark and the scale tests. Included with
//! `#[path]` by `tests/it/main.rs`, `tests/fuzz/main.rs` and `benches/profile.rs`.
#![allow(dead_code)]

/// A generated trace and what it holds, counted while writing it.
pub struct Synthetic {
    pub bytes: Vec<u8>,
    /// Layers written (each: a linear, a layer norm, a relu).
    pub layers: usize,
    /// GPU kernels written.
    pub kernels: usize,
    /// Sum of the kernels' durations, nanoseconds.
    pub kernel_ns: u64,
    /// `aten::addmm` calls and their FLOPs in all.
    pub addmm_calls: usize,
    pub addmm_flops: f64,
    /// Distinct (operator, shapes) pairs that launch kernels.
    pub distinct: usize,
}

const GEMM: &str = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas";
const NORM: &str = "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float>(int, float, c10::BFloat16 const*, c10::BFloat16 const*, c10::BFloat16 const*, float*, float*, c10::BFloat16*)";
const RELU: &str = "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, at::native::detail::ClampLimits)::{lambda()#1}::operator()() const::{lambda()#7}::operator()() const::{lambda(c10::BFloat16)#1}, at::detail::Array<char*, 2> >(int, at::native::(anonymous namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, at::native::detail::ClampLimits)::{lambda()#1}::operator()() const::{lambda()#7}::operator()() const::{lambda(c10::BFloat16)#1}, at::detail::Array<char*, 2>)";

fn us(ns: u64) -> String {
    format!("{}.{:03}", ns / 1000, ns % 1000)
}

struct W {
    out: String,
    ext: u64,
    corr: u64,
    first: bool,
}

impl W {
    fn event(&mut self, body: &str) {
        if !self.first {
            self.out.push_str(",\n");
        }
        self.first = false;
        self.out.push_str("  {\n    ");
        self.out.push_str(body);
        self.out.push_str("\n  }");
    }

    fn op(
        &mut self,
        name: &str,
        ts: u64,
        dur: u64,
        dims: &str,
        types: &str,
        flops: Option<f64>,
    ) -> u64 {
        self.ext += 1;
        let flops = flops.map_or(String::new(), |f| format!(", \"flops\": {f}"));
        let body = format!(
            "\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"{name}\", \"pid\": 3120, \"tid\": 3120,\n    \"ts\": {}, \"dur\": {},\n    \"args\": {{\"External id\": {}, \"Record function id\": 0, \"Ev Idx\": {}, \"Input Dims\": {dims}, \"Input type\": {types}, \"Concrete Inputs\": [\"\", \"\"]{flops}}}",
            us(ts),
            us(dur),
            self.ext,
            self.ext
        );
        self.event(&body);
        self.ext
    }

    /// A runtime launch at `ts` and its kernel of `dur` starting at `kts`.
    fn launch(&mut self, ext: u64, ts: u64, kernel: &str, kts: u64, dur: u64) {
        self.corr += 1;
        let c = self.corr;
        self.event(&format!(
            "\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 3120, \"tid\": 3120,\n    \"ts\": {}, \"dur\": 4.120,\n    \"args\": {{\"External id\": {ext}, \"cbid\": 211, \"correlation\": {c}}}",
            us(ts)
        ));
        self.event(&format!(
            "\"ph\": \"s\", \"id\": {c}, \"pid\": 3120, \"tid\": 3120, \"ts\": {},\n    \"cat\": \"ac2g\", \"name\": \"ac2g\"",
            us(ts)
        ));
        self.event(&format!(
            "\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"{kernel}\", \"pid\": 0, \"tid\": 7,\n    \"ts\": {}, \"dur\": {},\n    \"args\": {{\"External id\": {ext}, \"queued\": 0, \"device\": 0, \"context\": 1, \"stream\": 7, \"correlation\": {c}, \"registers per thread\": 168, \"shared memory\": 65536, \"blocks per SM\": 0.484848, \"warps per SM\": 1.939394, \"grid\": [64, 1, 1], \"block\": [128, 1, 1], \"est. achieved occupancy %\": 0}}",
            us(kts),
            us(dur)
        ));
        self.event(&format!(
            "\"ph\": \"f\", \"id\": {c}, \"pid\": 0, \"tid\": 7, \"ts\": {},\n    \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"",
            us(kts)
        ));
    }
}

/// A trace of at least `target` bytes.
pub fn trace(target: usize) -> Synthetic {
    let mut w = W {
        out: String::with_capacity(target + 4096),
        ext: 0,
        corr: 0,
        first: true,
    };
    w.out.push_str("{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [\n    {\"id\": 0, \"name\": \"NVIDIA H100 80GB HBM3\", \"totalGlobalMem\": 85045379072, \"computeMajor\": 9, \"computeMinor\": 0, \"numSms\": 132}\n  ],\n  \"record_shapes\": 1,\n  \"traceEvents\": [\n");
    let mut s = Synthetic {
        bytes: Vec::new(),
        layers: 0,
        kernels: 0,
        kernel_ns: 0,
        addmm_calls: 0,
        addmm_flops: 0.0,
        distinct: 0,
    };
    let mut seen = std::collections::HashSet::new();
    let mut t: u64 = 1_000_000_000; // ns
    let mut gpu: u64 = t;
    while w.out.len() < target {
        let l = s.layers;
        let b = 8 * (1 + (l % 4) as u64);
        let k = [1024u64, 2048, 4096][l % 3];
        let n = [4096u64, 1024, 2048][(l / 3) % 3];
        let dims = format!("[[{b}, {k}], [{n}, {k}], [{n}]]");
        let bf = "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\"]";
        w.op("aten::linear", t, 60_500, &dims, bf, None);
        let flops = 2.0 * (b * k * n) as f64;
        let ext = w.op(
            "aten::addmm",
            t + 5_000,
            50_000,
            &format!("[[{n}], [{b}, {k}], [{k}, {n}], [], []]"),
            "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\", \"Scalar\"]",
            Some(flops),
        );
        gpu = gpu.max(t + 20_000);
        let dur = 20_000 + (l as u64 % 7) * 1_111;
        w.launch(ext, t + 10_250, GEMM, gpu, dur);
        gpu += dur + 1_000;
        s.kernel_ns += dur;
        s.addmm_calls += 1;
        s.addmm_flops += flops;
        seen.insert(("addmm", b, k, n));

        let ext = w.op(
            "aten::layer_norm",
            t + 80_000,
            30_000,
            &format!("[[{b}, {n}], [], [{n}], [{n}], []]"),
            "[\"c10::BFloat16\", \"ScalarList\", \"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\"]",
            None,
        );
        let dur = 3_000 + (l as u64 % 5) * 250;
        w.launch(ext, t + 85_000, NORM, gpu, dur);
        gpu += dur + 1_000;
        s.kernel_ns += dur;
        seen.insert(("norm", b, 0, n));

        w.op(
            "aten::relu",
            t + 120_000,
            20_000,
            &format!("[[{b}, {n}]]"),
            "[\"c10::BFloat16\"]",
            None,
        );
        let ext = w.op(
            "aten::clamp_min",
            t + 122_000,
            15_000,
            &format!("[[{b}, {n}], []]"),
            "[\"c10::BFloat16\", \"Scalar\"]",
            None,
        );
        let dur = 2_250 + (l as u64 % 3) * 125;
        w.launch(ext, t + 125_000, RELU, gpu, dur);
        gpu += dur + 1_000;
        s.kernel_ns += dur;
        seen.insert(("relu", b, 0, n));

        s.kernels += 3;
        s.layers += 1;
        t += 150_000;
    }
    w.out.push_str(
        "\n  ],\n  \"traceName\": \"synthetic.json\",\n  \"displayTimeUnit\": \"ms\"\n}\n",
    );
    s.distinct = seen.len();
    s.bytes = w.out.into_bytes();
    s
}
