//! Measured profiles: the importers on fixtures written here in each real format (numbers
//! chosen so every FLOP, byte and fraction can be checked by hand in the test), malformed and
//! truncated inputs (a message, never a panic), placement, grouping and the calibration fit.
//!
//! The fixtures in `tests/fixtures/profiles/` follow real exports (Nsight Compute's raw and
//! details pages as `ncu --csv` writes them, PyTorch 1.x and 2.x Kineto traces) but every
//! value in them is made up.

use crate::profile_gen;

use roofline::profile::{
    default_groups, fit, group_totals, import, merge_same, rank_by_time_lost, Bound, Calibration,
    Format, Group, Importer, Kernel, Profile, Roofline,
};

const PLAIN: &[u8] = include_bytes!("../fixtures/profiles/plain.csv");
const PLAIN_UNITS: &[u8] = include_bytes!("../fixtures/profiles/plain-units.csv");
const NCU_RAW: &[u8] = include_bytes!("../fixtures/profiles/ncu-raw-h100.csv");
const NCU_DETAILS: &[u8] = include_bytes!("../fixtures/profiles/ncu-details-a100.csv");
const TRACE_2X: &[u8] = include_bytes!("../fixtures/profiles/pytorch-trace-2x.json");
const TRACE_1X: &[u8] = include_bytes!("../fixtures/profiles/pytorch-trace-1x.json");
const INDUCTOR: &[u8] = include_bytes!("../fixtures/profiles/inductor-trace.json");
const INDUCTOR_GZ: &[u8] = include_bytes!("../fixtures/profiles/inductor-trace.json.gz");

const FIXTURES: &[(&str, &[u8])] = &[
    ("plain.csv", PLAIN),
    ("plain-units.csv", PLAIN_UNITS),
    ("ncu-raw-h100.csv", NCU_RAW),
    ("ncu-details-a100.csv", NCU_DETAILS),
    ("pytorch-trace-2x.json", TRACE_2X),
    ("pytorch-trace-1x.json", TRACE_1X),
    ("inductor-trace.json", INDUCTOR),
];

/// An H100 SXM in bf16 (dense): 989 TFLOP/s, 3.35 TB/s; ridge 295.2 FLOPs/byte.
const P: f64 = 989e12;
const W: f64 = 3.35e12;

fn h100() -> Roofline {
    Roofline::new(P, W).unwrap()
}

fn close(got: f64, want: f64, tol: f64, what: &str) {
    let rel = if want == 0.0 {
        got.abs()
    } else {
        ((got - want) / want).abs()
    };
    assert!(rel <= tol, "{what}: got {got}, want {want} (rel {rel})");
}

fn by_name<'a>(p: &'a Profile, name: &str) -> &'a Kernel {
    p.kernels
        .iter()
        .find(|k| k.name == name)
        .unwrap_or_else(|| {
            panic!(
                "no {name} in {:?}",
                p.kernels.iter().map(|k| &k.name).collect::<Vec<_>>()
            )
        })
}

// -------------------------------------------------------------------------------------------
// Plain CSV

#[test]
fn plain_csv_reads_units_counts_and_quotes() {
    let p = import(PLAIN).unwrap();
    assert_eq!(p.format, Format::PlainCsv);
    assert_eq!(p.kernels.len(), 3);
    assert_eq!(p.device.as_deref(), Some("H100 SXM"));
    // A GEMM of M = N = K = 4096 in bf16: 2·4096³ = 137,438,953,472 FLOPs; A, B and C once:
    // 3·4096²·2 = 100,663,296 bytes.
    let g = by_name(&p, "gemm_bf16_4096");
    assert_eq!(g.flops, Some(2.0 * 4096f64.powi(3)));
    assert_eq!(g.flops, Some(137_438_953_472.0));
    assert_eq!(g.bytes, Some(3.0 * 4096.0 * 4096.0 * 2.0));
    assert_eq!(g.time, 200e-6);
    // `16.777216M` FLOPs (4096² adds), 45.2 µs, three launches: totals ×3.
    let a = by_name(&p, "add_bf16, fused");
    assert_eq!(a.count, 3);
    assert_eq!(a.flops, Some(3.0 * 16_777_216.0));
    assert_eq!(a.bytes, Some(3.0 * 100_663_296.0));
    close(a.time, 3.0 * 45.2e-6, 1e-15, "add time");
    close(a.time_per_launch(), 45.2e-6, 1e-15, "add time per launch");
    // `64 MiB` and `0.1ms`; an empty count is 1.
    let s = by_name(&p, "softmax");
    assert_eq!(
        (s.count, s.bytes, s.flops),
        (1, Some(64.0 * 1048576.0), Some(2.5e9))
    );
    close(s.time, 1e-4, 1e-15, "softmax time");
}

#[test]
fn plain_csv_header_units_apply_to_bare_numbers() {
    // Tab-separated; `Bytes (MB)` and `Time (us)` scale the bare numbers under them.
    let p = import(PLAIN_UNITS).unwrap();
    let g = by_name(&p, "gemm");
    assert_eq!((g.flops, g.bytes), (Some(1.5e12), Some(200e6)));
    close(g.time, 1500e-6, 1e-15, "gemm time");
    let c = by_name(&p, "copy");
    assert_eq!((c.flops, c.bytes), (Some(0.0), Some(2e9)));
    close(c.time, 1e-3, 1e-15, "copy time");
    // A copy with no FLOPs still sits on the roofline, at intensity 0: bound by memory,
    // lower bound 2e9 / 3.35e12 = 597 µs of the 1 ms measured.
    let pl = h100().place(c).unwrap();
    assert_eq!(
        (pl.intensity, pl.achieved, pl.roof, pl.bound),
        (0.0, 0.0, 0.0, Bound::Memory)
    );
    close(
        pl.roof_fraction,
        2e9 / 3.35e12 / 1e-3,
        1e-12,
        "copy roof fraction",
    );
}

#[test]
fn placement_and_time_lost_by_hand() {
    let p = import(PLAIN).unwrap();
    let roof = h100();
    assert!((roof.ridge() - 295.22).abs() < 0.01);
    // gemm: intensity 137438953472 / 100663296 = 1365.3 > 295.2: compute-bound; lower bound
    // 137438953472 / 989e12 = 138.97 µs; of 200 µs measured: 69.48% of the roof, 61.03 µs lost.
    let g = roof.place(by_name(&p, "gemm_bf16_4096")).unwrap();
    assert_eq!(g.bound, Bound::Compute);
    close(g.intensity, 4096.0 / 3.0, 1e-15, "gemm intensity");
    close(g.lower_bound, 138.967e-6, 1e-5, "gemm lower bound");
    close(g.roof_fraction, 0.694837, 1e-5, "gemm roof fraction");
    close(g.time_lost, 61.033e-6, 1e-4, "gemm time lost");
    close(g.roof, P, 0.0, "gemm roof");
    close(
        g.achieved,
        137_438_953_472.0 / 200e-6,
        1e-15,
        "gemm achieved",
    );
    // achieved / roof is the same fraction.
    close(
        g.achieved / g.roof,
        g.roof_fraction,
        1e-12,
        "fraction two ways",
    );
    // add, 3 launches: intensity 1/6, memory-bound; per launch 100663296 / 3.35e12 = 30.049 µs
    // against 45.2 µs: 66.48%; lost 3·(45.2 − 30.049) = 45.45 µs.
    let a = roof.place(by_name(&p, "add_bf16, fused")).unwrap();
    assert_eq!(a.bound, Bound::Memory);
    close(a.intensity, 1.0 / 6.0, 1e-15, "add intensity");
    close(a.roof, W / 6.0, 1e-15, "add roof");
    close(a.lower_bound, 3.0 * 30.0487e-6, 1e-5, "add lower bound");
    close(a.roof_fraction, 0.664794, 1e-5, "add roof fraction");
    close(a.time_lost, 45.454e-6, 1e-4, "add time lost");
    // softmax: 67108864 bytes / 3.35e12 = 20.03 µs of 100 µs: 20.03%, 79.97 µs lost.
    let s = roof.place(by_name(&p, "softmax")).unwrap();
    assert_eq!(s.bound, Bound::Memory);
    close(s.roof_fraction, 0.200325, 1e-5, "softmax roof fraction");
    close(s.time_lost, 79.9675e-6, 1e-5, "softmax time lost");
    // Most time lost first: softmax (80.0 µs), gemm (61.0 µs), add (45.5 µs).
    let order: Vec<&str> = rank_by_time_lost(&p.kernels, &roof)
        .iter()
        .map(|r| p.kernels[r.index].name.as_str())
        .collect();
    assert_eq!(order, ["softmax", "gemm_bf16_4096", "add_bf16, fused"]);
}

#[test]
fn groups_total_by_pattern() {
    let p = import(PLAIN).unwrap();
    let groups = vec![
        Group::new("matmuls", "GEMM|matmul").unwrap(),
        Group::new("pointwise", "add_*|*relu*").unwrap(),
    ];
    let t = group_totals(&p.kernels, &groups, &h100());
    assert_eq!(
        t.iter()
            .map(|g| (g.name.as_str(), g.records, g.launches))
            .collect::<Vec<_>>(),
        [("matmuls", 1, 1), ("pointwise", 1, 3), ("other", 1, 1)]
    );
    // The group's intensity and fraction are those of its sums.
    let pw = &t[1];
    close(pw.intensity(), 1.0 / 6.0, 1e-15, "pointwise intensity");
    close(pw.roof_fraction(), 0.664794, 1e-5, "pointwise fraction");
    close(pw.time_lost(), 45.454e-6, 1e-4, "pointwise time lost");
    let total: f64 = t.iter().map(|g| g.time).sum();
    close(total, p.total_time(), 1e-15, "totals add up");
}

// -------------------------------------------------------------------------------------------
// Nsight Compute

#[test]
fn ncu_raw_page() {
    let p = import(NCU_RAW).unwrap();
    assert_eq!(p.format, Format::NsightComputeRaw);
    assert_eq!(p.device.as_deref(), Some("NVIDIA H100 80GB HBM3"));
    // ID 2 has no duration (`n/a`): left out, and said so.
    assert_eq!(p.kernels.len(), 3);
    assert!(
        p.notes
            .iter()
            .any(|n| n.contains("1 kernels without a duration")),
        "{:?}",
        p.notes
    );
    // ID 0: tensor ops counted exactly (sm__ops_path_tensor_src_bf16_dst_fp32.sum =
    // 137,438,953,472, a 4096³ GEMM) plus 2 × 1,048,576 FFMA: 137,441,050,624 FLOPs. DRAM
    // 67.108864 Mbyte read + 33,554.432 Kbyte written = 100,663,296 bytes; 180.50 usecond.
    let g = &p.kernels[0];
    assert!(g.name.starts_with("sm90_xmma_gemm"));
    assert_eq!(g.flops, Some(137_438_953_472.0 + 2.0 * 1_048_576.0));
    assert_eq!(g.flops_estimate, None);
    assert_eq!(g.bytes, Some(100_663_296.0));
    assert_eq!(
        (g.bytes_read, g.bytes_written),
        (Some(67_108_864.0), Some(33_554_432.0))
    );
    close(g.time, 180.5e-6, 1e-15, "gemm time");
    // ID 1: 16,777,216 FADD, no tensor work.
    let a = &p.kernels[1];
    assert_eq!(a.flops, Some(16_777_216.0));
    close(a.time, 45.2e-6, 1e-15, "add time");
    // ID 3: tensor-pipe instructions on CC 9.0 without sm__ops_path_tensor (n/a): FLOPs
    // unknown, not guessed; bytes and time kept.
    let h = &p.kernels[2];
    assert_eq!(h.name, "hopper_tensor_kernel");
    assert_eq!(h.flops, None);
    assert!(h.flops_estimate.as_deref().unwrap().contains("CC 9.0"));
    assert_eq!(h.bytes, Some(2.0 * 1_048_576.0));
    assert!(h100().place(h).is_none());
    assert!(
        p.notes.iter().any(|n| n.contains("cannot be known")),
        "{:?}",
        p.notes
    );
}

#[test]
fn ncu_details_page() {
    let p = import(NCU_DETAILS).unwrap();
    assert_eq!(p.format, Format::NsightComputeDetails);
    assert_eq!(p.kernels.len(), 3);
    // ID 0, CC 8.0, `s16816gemm`: 33,554,432 tensor-pipe instructions × 4096 FLOPs per
    // m16n8k16 MMA = 137,438,953,472 = 2·4096³: estimated, and marked so. DRAM 67,108.864
    // Kbyte + 33.554432 Mbyte; 250.00 usecond.
    let g = &p.kernels[0];
    assert_eq!(g.flops, Some(33_554_432.0 * 4096.0));
    assert_eq!(g.flops, Some(2.0 * 4096f64.powi(3)));
    let est = g.flops_estimate.as_deref().unwrap();
    assert!(est.contains("× 4096") && est.contains("m16n8k16"), "{est}");
    assert_eq!(g.bytes, Some(100_663_296.0));
    close(g.time, 250e-6, 1e-15, "gemm time");
    // ID 1: no gpu__time_duration: 1,410,000 cycles / 1.41 cycle/nsecond = 1 ms. FLOPs:
    // 1,048,576 FADD + 2 × 1,073,741,824 FFMA (a 1024³ fp32 GEMM) = 2,148,532,224. DRAM
    // 12.582912 Mbyte = 3·1024²·4.
    let n = &p.kernels[1];
    assert_eq!(
        n.name,
        "void naive_sgemm<float>(float *, float *, float *, int)"
    );
    assert_eq!(n.flops, Some(1_048_576.0 + 2.0 * 1_073_741_824.0));
    assert_eq!(n.bytes, Some(3.0 * 1024.0 * 1024.0 * 4.0));
    close(n.time, 1e-3, 1e-12, "sgemm time from cycles");
    // ID 2: Duration 0.02 msecond, 1,000,000 bytes, no FLOP metric (`n/a`).
    let f = &p.kernels[2];
    close(f.time, 20e-6, 1e-12, "fill time");
    assert_eq!((f.bytes, f.flops), (Some(1e6), None));
    assert!(
        p.notes.iter().any(|n| n.contains("estimated")),
        "{:?}",
        p.notes
    );
    // Against an A100's roofline (312 TFLOP/s bf16, 1.555 TB/s) the GEMM's 137.4 GFLOP in
    // 250 µs, 549.8 TFLOP/s, beats the roof: the fraction says so (> 1), the time lost is
    // negative (the kernel ran on a faster chip than the one chosen).
    let a100 = Roofline::new(312e12, 1.555e12).unwrap();
    let pl = a100.place(g).unwrap();
    close(
        pl.roof_fraction,
        137_438_953_472.0 / 312e12 / 250e-6,
        1e-12,
        "fraction",
    );
    assert!(pl.roof_fraction > 1.0 && pl.time_lost < 0.0);
}

#[test]
fn ncu_log_without_a_table_says_so() {
    let log = "==PROF== Connected to process 249494 (/usr/bin/python3.12)\n\
               ==PROF== Connected to process 249578 (/usr/bin/nvidia-smi)\n\
               ==PROF== Disconnected from process 249578\n";
    let e = import(log.as_bytes()).unwrap_err().to_string();
    assert!(
        e.contains("no kernel table") && e.contains("ncu --csv"),
        "{e}"
    );
    let header_only = "\"ID\",\"Process ID\",\"Kernel Name\",\"gpu__time_duration.sum\"\n\"\",\"\",\"\",\"nsecond\"\n";
    let e = import(header_only.as_bytes()).unwrap_err().to_string();
    assert!(e.contains("no kernel rows"), "{e}");
}

// -------------------------------------------------------------------------------------------
// PyTorch traces

#[test]
fn pytorch_2x_trace_matches_kernels_to_operators() {
    let p = import(TRACE_2X).unwrap();
    assert_eq!(p.format, Format::PyTorchTrace);
    assert_eq!(p.device.as_deref(), Some("NVIDIA H100 80GB HBM3"));
    let names: Vec<&str> = p.kernels.iter().map(|k| k.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "aten::addmm",
            "aten::clamp_min",
            "aten::mm",
            "aten::bmm",
            "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)"
        ]
    );
    // aten::linear → aten::addmm(bias[4096], x[8, 4096], w[4096, 4096]) in bf16: the kernel
    // (correlation 501, launched at 1020.25 µs inside both) goes to the innermost operator
    // with FLOPs. FLOPs from the trace: 2·8·4096·4096 = 268,435,456. Bytes from the shapes:
    // 2·(4096 + 8·4096 + 4096·4096 + 8·4096) = 33,693,696. Time: the kernel's 30.5 µs.
    let a = by_name(&p, "aten::addmm");
    assert_eq!(a.flops, Some(268_435_456.0));
    assert_eq!(
        a.bytes,
        Some(2.0 * (4096.0 + 8.0 * 4096.0 + 4096.0 * 4096.0 + 8.0 * 4096.0))
    );
    close(a.time, 30.5e-6, 1e-12, "addmm time");
    assert!(a.kernel.as_deref().unwrap().starts_with("sm90_xmma_gemm"));
    assert_eq!(
        a.shape.as_deref(),
        Some("[[4096], [8, 4096], [4096, 4096], [], []]")
    );
    // aten::relu → aten::clamp_min: no FLOPs anywhere, so the innermost operator.
    let c = by_name(&p, "aten::clamp_min");
    assert_eq!((c.flops, c.bytes), (None, None));
    close(c.time, 2.25e-6, 1e-12, "clamp time");
    // Two aten::mm calls with the same shapes merge: 2 calls, 10 + 12 + 1.5 µs (the second
    // call also ran a split-K reduction), FLOPs 2·(2·128·256·512) = 67,108,864, bytes
    // 2·4·(128·256 + 256·512 + 128·512) = 1,835,008.
    let m = by_name(&p, "aten::mm");
    assert_eq!(m.count, 2);
    close(m.time, 23.5e-6, 1e-12, "mm time");
    assert_eq!(m.flops, Some(67_108_864.0));
    assert_eq!(m.bytes, Some(1_835_008.0));
    assert_eq!(m.kernel.as_deref(), Some("ampere_sgemm_64x64_nn"));
    // aten::bmm has no runtime call in the trace: its kernel's External id (40) names it.
    // Shapes in fp16: FLOPs 2·4·64·32·64 = 1,048,576; bytes 2·4·(64·32 + 32·64 + 64·64).
    let b = by_name(&p, "aten::bmm");
    assert_eq!(b.flops, Some(1_048_576.0));
    assert_eq!(b.bytes, Some(65_536.0));
    close(b.time, 4e-6, 1e-12, "bmm time");
    // The NCCL kernel has no operator: listed under its own name.
    let n = p.kernels.last().unwrap();
    assert_eq!((n.kernel.as_deref(), n.flops), (None, None));
    close(n.time, 50e-6, 1e-12, "nccl time");
    // 7 kernels, 30.5 + 2.25 + 10 + 12 + 1.5 + 4 + 50 = 110.25 µs; the memcpy is left out.
    close(p.total_time(), 110.25e-6, 1e-12, "total");
    assert!(
        p.notes[0].starts_with("7 GPU kernels, 110 µs in all: 6 matched"),
        "{:?}",
        p.notes
    );
    assert!(
        p.notes.iter().any(|n| n.contains("1 memory copies")),
        "{:?}",
        p.notes
    );
    assert!(
        p.notes.iter().any(|n| n.contains("1 profiler step")),
        "{:?}",
        p.notes
    );
}

#[test]
fn pytorch_1x_trace_uses_flows_and_skips_profiler_steps() {
    let p = import(TRACE_1X).unwrap();
    let names: Vec<&str> = p.kernels.iter().map(|k| k.name.as_str()).collect();
    assert_eq!(names, ["aten::mm", "aten::add", "stray_kernel"]);
    // aten::mm(1024×1024, 1024×1024) fp32, no `flops` in the trace: 2·1024³ from the shapes,
    // 3·1024²·4 bytes; 800 µs. Kernel and runtime call share correlation 900 (which is also
    // their External id, as in PyTorch 1.x).
    let m = &p.kernels[0];
    assert_eq!(m.flops, Some(2.0 * 1024f64.powi(3)));
    assert_eq!(m.bytes, Some(3.0 * 1024.0 * 1024.0 * 4.0));
    close(m.time, 800e-6, 1e-12, "mm time");
    // No runtime call for correlation 901: the `ac2g` flow's start on the CPU thread (205 µs,
    // inside aten::add) places it.
    close(p.kernels[1].time, 20e-6, 1e-12, "add time");
    // Launched at 300 µs inside ProfilerStep#3 only: a step is not an operator.
    assert_eq!(p.kernels[2].kernel, None);
}

/// An Inductor-augmented trace (`profile_analysis --augment_trace`: `args.kernel_flop` in
/// FLOPs and `args.kernel_num_gb` in 1e9 bytes on each kernel it benchmarked), written here in
/// that format: three kernels of one compiled function on an H100. The two with their own
/// figures are each a record under the kernel's own name, placed by those figures; the third,
/// with none, stays with the operator that launched it. Plain and gzip import alike.
#[test]
fn an_inductor_trace_places_each_kernel_by_its_own_figures() {
    let p = import(INDUCTOR).unwrap();
    assert_eq!(import(INDUCTOR_GZ).unwrap().kernels, p.kernels);
    assert_eq!(p.device.as_deref(), Some("NVIDIA H100 80GB HBM3"));
    let mm = by_name(&p, "triton_tem_fused_mm_0");
    // A 4096³ bf16 matmul: 2·4096³ = 137,438,953,472 FLOPs; 3·4096²·2 = 100,663,296 bytes
    // (0.100663296 GB); 200 µs. Intensity 1365.3 above the ridge (295.2): compute-bound,
    // T_lower = 137,438,953,472 / 989e12 = 138.97 µs, 69.5 % of the roof.
    assert_eq!(mm.flops, Some(137_438_953_472.0));
    close(mm.bytes.unwrap(), 100_663_296.0, 1e-12, "mm bytes");
    close(mm.time, 200e-6, 1e-12, "mm time");
    let pl = h100().place(mm).unwrap();
    assert_eq!(pl.bound, roofline::profile::Bound::Compute);
    close(
        pl.lower_bound,
        137_438_953_472.0 / 989e12,
        1e-12,
        "mm T_lower",
    );
    close(pl.roof_fraction, 138.967e-6 / 200e-6, 1e-4, "mm fraction");
    // A pointwise kernel: Inductor writes 0 FLOPs; 50,331,648 bytes in 18 µs. Placed by its
    // bytes: T_lower = 50,331,648 / 3.35e12 = 15.024 µs, 83.5 % of the roof.
    let pw = by_name(&p, "triton_poi_fused_add_gelu_1");
    assert_eq!(pw.flops, Some(0.0));
    let pl = h100().place(pw).unwrap();
    assert_eq!(pl.bound, roofline::profile::Bound::Memory);
    close(
        pl.lower_bound,
        50_331_648.0 / 3.35e12,
        1e-12,
        "gelu T_lower",
    );
    close(pl.roof_fraction, 15.0244e-6 / 18e-6, 1e-4, "gelu fraction");
    // The reduction carries no figures: it stays the launching operator's (10 µs, no FLOPs or
    // bytes of its own, so not placed).
    let op = by_name(&p, "CompiledFunction");
    assert_eq!(op.kernel.as_deref(), Some("triton_red_fused_sum_2"));
    close(op.time, 10e-6, 1e-12, "op time");
    assert_eq!((op.flops, op.bytes), (None, None));
    assert_eq!(p.kernels.len(), 3);
    assert!(
        p.notes
            .iter()
            .any(|n| n.starts_with("2 kernels carry their own FLOPs and bytes")),
        "{:?}",
        p.notes
    );
}

#[test]
fn json_array_format_without_its_closing_bracket() {
    // The Trace Event Format's array form may end without `]` (here after a trailing comma).
    let text = std::str::from_utf8(TRACE_1X).unwrap();
    let start = text.find("\"traceEvents\": [").unwrap() + "\"traceEvents\": ".len();
    let end = text.rfind(']').unwrap();
    let array = format!("{},\n", &text[start..end].trim_end());
    let a = import(array.as_bytes()).unwrap();
    let b = import(TRACE_1X).unwrap();
    assert_eq!(a.kernels, b.kernels);
}

#[test]
fn synthetic_trace_totals() {
    let s = profile_gen::trace(2 << 20);
    let p = import(&s.bytes).unwrap();
    assert_eq!(p.kernels.len(), s.distinct);
    let launches: u64 = p.kernels.iter().map(|k| k.count).sum();
    assert_eq!(launches as usize, s.kernels);
    close(
        p.total_time(),
        s.kernel_ns as f64 * 1e-9,
        1e-9,
        "kernel time",
    );
    let addmm: Vec<&Kernel> = p
        .kernels
        .iter()
        .filter(|k| k.name == "aten::addmm")
        .collect();
    assert_eq!(
        addmm.iter().map(|k| k.count).sum::<u64>() as usize,
        s.addmm_calls
    );
    close(
        addmm.iter().map(|k| k.flops.unwrap()).sum(),
        s.addmm_flops,
        1e-12,
        "addmm flops",
    );
    // Every launch is matched: no kernel listed under its own name.
    assert!(p.kernels.iter().all(|k| k.kernel.is_some()));
}

// -------------------------------------------------------------------------------------------
// Streaming, malformed and truncated input

fn import_chunked(bytes: &[u8], chunk: usize) -> Result<Profile, String> {
    let mut imp = Importer::new();
    for c in bytes.chunks(chunk.max(1)) {
        imp.feed(c).map_err(|e| e.to_string())?;
    }
    assert_eq!(imp.consumed(), bytes.len() as u64);
    imp.finish().map_err(|e| e.to_string())
}

#[test]
fn any_chunking_gives_the_same_profile() {
    for (name, bytes) in FIXTURES {
        let whole = import(bytes).map_err(|e| e.to_string());
        assert!(whole.is_ok(), "{name}: {whole:?}");
        for chunk in [1, 2, 3, 7, 64, 1000] {
            assert_eq!(
                import_chunked(bytes, chunk),
                whole,
                "{name} in chunks of {chunk}"
            );
        }
    }
}

/// Issue 43: an event whole in a slice is read straight from the text, one cut by the slice
/// token by token; both give the same profile. Here the events the fast reading must either
/// read as the tokens do or leave to them: duplicate `args`, nested and odd `Input Dims`
/// (an object, a string, a list of lists), nested `Input type`, escapes and non-ASCII in
/// names, literals, numbers with exponents, unknown keys holding objects and arrays, an empty
/// `args`, and a kernel whose `args` come before its name. Read whole, then in slices of 1 byte
/// (no event ever whole), 5 and 97 bytes.
#[test]
fn events_read_whole_or_token_by_token_give_the_same_profile() {
    let text = r#"{"traceEvents": [
      {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 10, "dur": 5e1,
       "args": {"External id": 7, "Input Dims": [[64, 128], [128, 32]], "Input type": ["float", "float"]},
       "args": {"External id": 8, "Input Dims": [[64, 128], [128, 32]], "Input type": ["c10::BFloat16", "c10::BFloat16"]}},
      {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 12, "dur": 1, "args": {"correlation": 99, "External id": 8}},
      {"ph": "X", "cat": "kernel", "args": {"correlation": 99, "grid": [1, 2, {"x": [3]}], "flag": true, "none": null},
       "name": "gemm \"tiled\" é kernel", "pid": 0, "tid": 7, "ts": 20, "dur": 2.5E+1},
      {"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 1, "tid": 1, "ts": 100, "dur": 40,
       "args": {"External id": 9, "Input Dims": [[32], [16, {"a": 1}], "x", [[1, 2], [3]], [16, 32], []],
                "Input type": ["float", ["float"], {"t": 1}, 4, "float", "Scalar"], "extra": {"k": [1, [2]]}}},
      {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 101, "dur": 1, "args": {"correlation": 100}},
      {"ph": "X", "cat": "Kernel", "name": "addmm_kernel", "pid": 0, "tid": 7, "ts": 120, "dur": 30, "args": {"correlation": 100}},
      {"ph": "X", "cat": "cpu_op", "name": "aten::relu", "pid": 1, "tid": 1, "ts": 200, "dur": 10, "args": {}},
      {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 201, "dur": 1, "args": {"correlation": 101}},
      {"ph": "X", "cat": "kernel", "name": "relu\tkernel", "pid": 0, "tid": 7, "ts": 210, "dur": 3, "args": {"correlation": 101, "External id": -1}},
      {}
    ]}"#;
    let whole = import(text.as_bytes()).map_err(|e| e.to_string());
    let p = whole.as_ref().expect("the trace imports");
    // Three kernels, each matched to its operator; the mm's bytes from the second `args`
    // (bf16: 2 · (64·128 + 128·32 + 64·32)) and its FLOPs 2·64·128·32.
    assert_eq!(p.kernels.len(), 3, "{p:?}");
    let mm = p.kernels.iter().find(|k| k.name == "aten::mm").unwrap();
    assert_eq!(mm.flops, Some(2.0 * 64.0 * 128.0 * 32.0));
    assert_eq!(
        mm.bytes,
        Some(2.0 * (64.0 * 128.0 + 128.0 * 32.0 + 64.0 * 32.0))
    );
    assert_eq!(mm.kernel.as_deref(), Some("gemm \"tiled\" é kernel"));
    let addmm = p.kernels.iter().find(|k| k.name == "aten::addmm").unwrap();
    assert_eq!(addmm.flops, None, "odd shapes give no FLOPs: {addmm:?}");
    assert_eq!(
        addmm.shape.as_deref(),
        Some("[[32], [16, null], \"x\", [[1, 2], [3]], [16, 32], []]")
    );
    for chunk in [1, 5, 97] {
        assert_eq!(
            import_chunked(text.as_bytes(), chunk),
            whole,
            "in chunks of {chunk}"
        );
    }
}

/// Blanks and byte-order marks before the text are skipped in any order and however the file
/// is sliced (FUZZ_SEED=7 found a blank, a mark and a blank read one way whole and another in
/// slices): a trace after them is a trace, an unknown text quotes the same start, and a gzip
/// magic number is caught even when the first slice holds one byte of it.
#[test]
fn leading_blanks_and_marks_read_the_same_in_any_slices() {
    let trace = br#"{"traceEvents": []}"#;
    let cases: [&[u8]; 4] = [
        b" \xEF\xBB\xBF cleafw~6dot5tokens\nname\n",
        b"\n\xEF\xBB\xBF\xEF\xBB\xBF\t# a comment\nx,y\n",
        b"\x1f\x8b\x08\x00",
        b"  \x1f\x8b\x08\x00",
    ];
    for bytes in cases {
        let whole = import(bytes).map_err(|e| e.to_string());
        for chunk in 1..=5 {
            assert_eq!(
                import_chunked(bytes, chunk),
                whole,
                "{bytes:?} in chunks of {chunk}"
            );
        }
    }
    let unknown = import(cases[0]).unwrap_err().to_string();
    assert!(
        unknown.contains("It starts with `cleafw~6dot5tokens`"),
        "{unknown}"
    );
    assert!(import(cases[2]).unwrap_err().to_string().contains("gzip"));
    // Not at the file's start, the magic number is only an unknown text.
    assert!(!import(cases[3]).unwrap_err().to_string().contains("gzip"));
    let mut marked = b" \xEF\xBB\xBF \n".to_vec();
    marked.extend_from_slice(trace);
    for chunk in [1, 2, 4, 100] {
        // Read as a trace however it is sliced.
        let mut imp = Importer::new();
        for c in marked.chunks(chunk) {
            imp.feed(c).unwrap();
        }
        assert_eq!(
            imp.format(),
            Some(Format::PyTorchTrace),
            "chunks of {chunk}"
        );
        let p = import_chunked(&marked, chunk);
        assert_eq!(p, import(&marked).map_err(|e| e.to_string()));
    }
}

#[test]
fn the_format_is_known_after_the_header() {
    let mut imp = Importer::new();
    imp.feed(&NCU_RAW[..100]).unwrap();
    assert_eq!(imp.format(), None); // still in ncu's log lines
    let header_end = NCU_RAW.windows(5).position(|w| w == b"\n\"\",\"").unwrap();
    imp.feed(&NCU_RAW[100..header_end + 1]).unwrap();
    assert_eq!(imp.format(), Some(Format::NsightComputeRaw));
    let mut imp = Importer::new();
    imp.feed(b"\xEF\xBB\xBF  \n {").unwrap();
    assert_eq!(imp.format(), Some(Format::PyTorchTrace));
}

#[test]
fn truncated_files_give_a_message_never_a_panic() {
    for (name, bytes) in FIXTURES {
        let json = name.ends_with(".json");
        // Every cut of the small files, every few bytes of the larger ones (and all near the
        // ends).
        let step = 1 + bytes.len() / 1500;
        let cuts = (0..bytes.len()).filter(|c| c % step == 0 || *c < 64 || bytes.len() - c < 64);
        for cut in cuts {
            let r = import(&bytes[..cut]);
            if let Err(e) = &r {
                let msg = e.to_string();
                assert!(msg.len() < 500, "{name} cut at {cut}: {msg}");
            }
            // A trace cut anywhere before its last `}` is refused.
            let last = bytes.iter().rposition(|&b| b == b'}').unwrap_or(0);
            if json && cut <= last {
                let msg = r.expect_err(&format!("{name} cut at {cut}")).to_string();
                assert!(
                    msg.contains("cut short")
                        || msg.contains("empty")
                        || msg.contains("traceEvents"),
                    "{name} cut at {cut}: {msg}"
                );
            }
        }
    }
}

#[test]
fn malformed_inputs_get_clear_messages() {
    let cases: &[(&[u8], &str)] = &[
        (b"", "empty"),
        (b"   \n\t ", "empty"),
        (b"\x00\x01\x02\xff\xfe binary", "not a profile"),
        (b"kernel,flops,ms\nx,1,2\n", "lacks: bytes, time"),
        (b"hello world\n", "It starts with `hello world`"),
        (b"name,flops,bytes,time\n", "header but no rows"),
        (b"name,flops,bytes,time\ngemm,1e9,1e6,\n", "line 2: `gemm` has no time"),
        (b"name,flops,bytes,time\ngemm,1e9,1e6,0\n", "has no time"),
        (b"name,flops,bytes,time\ngemm,1e9,1e6,12 parsecs\n", "line 2: time `12 parsecs`"),
        (b"name,flops,bytes,time\ngemm,5 s,1e6,1ms\n", "flops `5 s`: is in s, where FLOP (or no unit) is expected"),
        (b"name,flops,bytes,time\ngemm,-5,1e6,1ms\n", "0 or more"),
        (b"name,flops,bytes,time\ngemm,NaN,1e6,1ms\n", "line 2: flops"),
        (b"name,flops,bytes,time,count\ngemm,1,1,1ms,2.5\n", "whole number"),
        (b"name,flops,bytes,time\n,1,1,1ms\n", "name is empty"),
        (b"name,flops,bytes,time\n\"gemm,1,1,1ms\n", "unclosed"),
        (b"{\"foo\": 1}", "without a `traceEvents`"),
        (b"\x1f\x8b\x08\x00\x00\x00", "the gzip file was cut short"),
        (b"{\"traceEvents\": []}", "no GPU kernels"),
        (
            b"{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"ts\": 1, \"dur\": 2}]}",
            "no GPU kernels",
        ),
        (b"{\"traceEvents\": [{\"ph\": \"X\",, }]}", "byte 28: expected a key"),
        (b"{\"traceEvents\": [1 2]}", "expected `,` or `]`"),
        (b"{\"traceEvents\": [{\"ts\": 1e999}]}", "no GPU kernels"),
        (b"[{\"ph\": \"X\", \"cat\": \"kernel\", \"ts\": 1, \"dur\": 0}]", "all took no time"),
        (b" \n\t{\"traceEvents\": [1 2]}", "byte 22: expected `,` or `]`"),
    ];
    for (input, want) in cases {
        let r = import(input);
        let text = String::from_utf8_lossy(input);
        let msg = r.expect_err(&format!("{text:?} imported")).to_string();
        assert!(msg.contains(want), "{text:?}: `{msg}` lacks `{want}`");
        assert!(msg.len() < 500, "{text:?}: {msg}");
    }
    let deep = format!("{{\"traceEvents\": {}", "[".repeat(5000));
    let e = import(deep.as_bytes()).unwrap_err().to_string();
    assert!(e.contains("nested deeper than 1000"), "{e}");
}

#[test]
fn an_importer_stays_failed() {
    let mut imp = Importer::new();
    let first = imp.feed(b"{\"traceEvents\": [}").unwrap_err();
    assert!(
        first
            .to_string()
            .contains("byte 17: expected a value (an object, array, string, number, true, false or null), found `}`"),
        "{first}"
    );
    let again = imp.feed(b"]}").unwrap_err();
    assert_eq!(again, first);
    assert_eq!(imp.finish().unwrap_err(), first);
}

// -------------------------------------------------------------------------------------------
// Merging, grouping

#[test]
fn merge_same_adds_launches() {
    let p = import(NCU_RAW).unwrap();
    let mut twice = p.kernels.clone();
    twice.extend(p.kernels.iter().cloned());
    let m = merge_same(&twice);
    assert_eq!(m.len(), p.kernels.len());
    for (a, b) in m.iter().zip(&p.kernels) {
        assert_eq!(a.count, 2 * b.count);
        close(a.time, 2.0 * b.time, 1e-15, "merged time");
        assert_eq!(a.flops, b.flops.map(|f| 2.0 * f));
        // The place on the roofline does not change: same intensity, same fraction.
        if let (Some(x), Some(y)) = (h100().place(a), h100().place(b)) {
            close(x.intensity, y.intensity, 1e-15, "intensity");
            close(x.roof_fraction, y.roof_fraction, 1e-15, "fraction");
        }
    }
}

#[test]
fn default_groups_sort_a_trace() {
    let p = import(TRACE_2X).unwrap();
    let t = group_totals(&p.kernels, &default_groups(), &h100());
    let get = |n: &str| t.iter().find(|g| g.name == n).unwrap();
    // addmm, mm and bmm by operator name; the NCCL kernel as communication; clamp_min's
    // kernel is a vectorized elementwise one.
    assert_eq!(get("gemm").records, 3);
    assert_eq!(get("gemm").launches, 4);
    assert_eq!(get("communication").records, 1);
    assert_eq!(get("elementwise").records, 1);
    assert_eq!(get("other").records, 0);
    // gemm's placed FLOPs: 268,435,456 + 67,108,864 + 1,048,576.
    assert_eq!(
        get("gemm").flops,
        268_435_456.0 + 67_108_864.0 + 1_048_576.0
    );
}

// -------------------------------------------------------------------------------------------
// Calibration

#[test]
fn calibration_text_round_trips() {
    let c = Calibration::parse("0.8:90%:5us").unwrap();
    assert_eq!((c.compute, c.memory, c.overhead), (0.8, 0.9, 5e-6));
    assert_eq!(c.to_string(), "0.8:0.9:5e-6");
    assert_eq!(Calibration::parse(&c.to_string()).unwrap(), c);
    assert_eq!(Calibration::parse("1:1:0").unwrap(), Calibration::NONE);
    assert!(Calibration::NONE.is_none());
    // A derate is a calibration of the compute term alone.
    let d = Calibration::from_derate(0.85).unwrap();
    assert_eq!(d.to_string(), "0.85:1:0");
    assert!(Calibration::from_derate(0.0).is_err());
    assert_eq!(
        Calibration::parse(" 0.5 : 0.25 : 2 ms ").unwrap().overhead,
        2e-3
    );
    for bad in [
        "",
        "0.8",
        "0.8:0.9",
        "0.8:0.9:1:2",
        "0:1:0",
        "1.01:1:0",
        "1:1:-1us",
        "1:1:2s",
        "1:1:5GB",
        "a:b:c",
        "NaN:1:0",
        "1:1:inf",
    ] {
        let e = Calibration::parse(bad).unwrap_err().to_string();
        assert!(
            e.starts_with("cal=") && e.contains("<compute>:<memory>:<overhead>"),
            "{bad}: {e}"
        );
    }
}

#[test]
fn calibrated_time_by_hand() {
    // 2·4096³ FLOPs and 100,663,296 bytes on the H100 at c = 0.8, m = 0.9, o = 5 µs:
    // T_math = 137438953472 / (0.8·989e12) = 173.71 µs, T_mem = 100663296 / (0.9·3.35e12)
    // = 33.39 µs, total 173.71 + 5 = 178.71 µs.
    let c = Calibration::new(0.8, 0.9, 5e-6).unwrap();
    let t = c.terms(137_438_953_472.0, 100_663_296.0, P, W);
    close(t.t_math, 173.709e-6, 1e-5, "t_math");
    close(t.t_memory, 33.388e-6, 1e-4, "t_memory");
    close(t.total, 178.709e-6, 1e-5, "total");
    assert_eq!(c.time(137_438_953_472.0, 100_663_296.0, P, W), t.total);
    // The plain roofline is the lower bound.
    let lb = h100().lower_bound(137_438_953_472.0, 100_663_296.0);
    assert_eq!(
        Calibration::NONE.time(137_438_953_472.0, 100_663_296.0, P, W),
        lb
    );
}

fn kernel(name: &str, flops: f64, bytes: f64, time: f64, count: u64) -> Kernel {
    let mut k = Kernel::new(name, Format::PlainCsv);
    k.flops = Some(flops);
    k.bytes = Some(bytes);
    k.time = time;
    k.count = count;
    k
}

#[test]
fn fit_by_hand() {
    // Two compute-bound kernels at half the peak and two memory-bound ones at 80% of the
    // bandwidth (each pair a thousand times apart in size, which pins the overhead at 0).
    // Before: errors ln 2 = 0.6931 (twice) and ln 1.25 = 0.2231 (twice), RMS
    // sqrt((0.6931² + 0.2231²)/2) = 0.5149. The fit finds c = 0.5, m = 0.8, o = 0.
    let gemm_lb = 137_438_953_472.0 / P; // intensity 1365: far right of the ridge (295)
    let copy_lb = 1e9 / W; // intensity 0.01: far left
    let ks = [
        kernel("gemm", 137_438_953_472.0, 100_663_296.0, 2.0 * gemm_lb, 1),
        kernel(
            "gemm/1000",
            137_438_953.472,
            100_663.296,
            2.0 * gemm_lb / 1000.0,
            1,
        ),
        kernel("copy", 1e7, 1e9, 1.25 * copy_lb, 1),
        kernel("copy/1000", 1e4, 1e6, 1.25 * copy_lb / 1000.0, 1),
    ];
    let f = fit(&ks, &h100()).unwrap();
    close(
        f.rms_before,
        ((2f64.ln().powi(2) + 1.25f64.ln().powi(2)) / 2.0).sqrt(),
        1e-12,
        "rms before",
    );
    close(f.rms_before, 0.5149, 1e-3, "rms before, 4 digits");
    close(f.calibration.compute, 0.5, 1e-6, "c");
    close(f.calibration.memory, 0.8, 1e-6, "m");
    assert!(
        f.calibration.overhead < 1e-12,
        "o = {}",
        f.calibration.overhead
    );
    assert!(f.rms_after < 1e-6, "rms after {}", f.rms_after);
    assert_eq!(
        (f.compute_bound, f.memory_bound, f.used, f.skipped),
        (2, 2, 4, 0)
    );
    // The gap: the gemms lose 1.001·gemm_lb, the copies 0.25·1.001·copy_lb; compute explains
    // the first, memory the second, nothing is left.
    let gap = 1.001 * (gemm_lb + 0.25 * copy_lb);
    close(f.measured - f.roofline, gap, 1e-9, "gap");
    let s = f.shares.unwrap();
    close(
        s.compute,
        gemm_lb / (gemm_lb + 0.25 * copy_lb),
        1e-5,
        "compute share",
    );
    close(
        s.memory,
        0.25 * copy_lb / (gemm_lb + 0.25 * copy_lb),
        1e-5,
        "memory share",
    );
    assert!(
        s.overhead.abs() < 1e-6 && s.unexplained.abs() < 1e-6,
        "{s:?}"
    );
}

#[test]
fn fit_recovers_known_efficiencies_and_overhead() {
    // 40 kernels from intensity 0.05 to 5000 with sizes over four decades, timed by the model
    // itself at c = 0.7, m = 0.85, o = 4 µs.
    let (c, m, o) = (0.7, 0.85, 4e-6);
    let truth = Calibration::new(c, m, o).unwrap();
    let mut ks = Vec::new();
    for i in 0..40 {
        let intensity = 0.05 * 10f64.powf(5.0 * i as f64 / 39.0);
        let bytes = 1e6 * 10f64.powf(4.0 * ((i * 7) % 40) as f64 / 39.0);
        let flops = intensity * bytes;
        let count = 1 + (i % 3) as u64;
        let t = truth.time(flops, bytes, P, W);
        ks.push(kernel(
            &format!("k{i}"),
            flops * count as f64,
            bytes * count as f64,
            t * count as f64,
            count,
        ));
    }
    let f = fit(&ks, &h100()).unwrap();
    close(f.calibration.compute, c, 1e-6, "c");
    close(f.calibration.memory, m, 1e-6, "m");
    close(f.calibration.overhead, o, 1e-5, "o");
    assert!(
        f.rms_after < 1e-6 && f.rms_before > 0.1,
        "{} -> {}",
        f.rms_before,
        f.rms_after
    );
    let s = f.shares.unwrap();
    close(
        s.compute + s.memory + s.overhead + s.unexplained,
        1.0,
        1e-12,
        "shares add up",
    );
    assert!(
        s.unexplained.abs() < 1e-6 && s.overhead > 0.0 && s.compute > 0.0 && s.memory > 0.0,
        "{s:?}"
    );
    // With ±10% multiplicative noise the fit stays close.
    let mut noisy = ks.clone();
    for (i, k) in noisy.iter_mut().enumerate() {
        k.time *= 1.0 + 0.1 * ((i as f64 * 2.399).sin());
    }
    let g = fit(&noisy, &h100()).unwrap();
    close(g.calibration.compute, c, 0.1, "noisy c");
    close(g.calibration.memory, m, 0.1, "noisy m");
    assert!(g.rms_after < 0.1 && g.rms_after < g.rms_before);
}

#[test]
fn fit_leaves_unconstrained_terms_at_the_plain_roofline() {
    // Only memory-bound kernels: nothing says what c is, so it stays 1.
    let ks: Vec<Kernel> = (1..=5)
        .map(|i| {
            let bytes = 1e8 * i as f64;
            kernel(&format!("copy{i}"), 0.0, bytes, bytes / (0.6 * W), 1)
        })
        .collect();
    let f = fit(&ks, &h100()).unwrap();
    assert_eq!(f.calibration.compute, 1.0);
    close(f.calibration.memory, 0.6, 1e-6, "m");
    assert_eq!(f.compute_bound, 0);
}

#[test]
fn fit_degenerate_inputs() {
    let roof = h100();
    // Nothing to fit.
    assert!(fit(&[], &roof).is_err());
    let mut unknown = Kernel::new("x", Format::PlainCsv);
    unknown.time = 1e-3;
    let e = fit(&[unknown.clone()], &roof).unwrap_err().to_string();
    assert!(e.contains("no kernel has FLOPs, bytes and a time"), "{e}");
    assert!(fit(&[kernel("zero", 0.0, 0.0, 1e-3, 1)], &roof).is_err());
    // Issue 24, point 1: what the data cannot determine is refused with the reason. One
    // kernel, or fifty launches of one shape with a faster one beside them (two shapes), cannot
    // separate three parameters: the A100 CUTLASS export's seven launches of one GEMM gave
    // 51.9 ms of "overhead" and "RMS 0.609 → 0.000".
    let one = [kernel("one", 1e12, 1e9, 5e-3, 1)];
    let e = fit(&one, &roof).unwrap_err().to_string();
    assert!(e.contains("1 kernels of 1 distinct shape"), "{e}");
    let mut same = vec![kernel("s", 1e12, 1e9, 5e-3, 1); 50];
    same.push(unknown);
    same.push(kernel("fast", 1e12 / 2.0, 1e9 / 2.0, 1e-4, 1));
    let e = fit(&same, &roof).unwrap_err().to_string();
    assert!(e.contains("51 kernels of 2 distinct shapes"), "{e}");
    // Three shapes of honest kernels: deterministic and within range; tiny and huge times too.
    let three = [
        kernel("a", 1e12, 1e9, 5e-3, 1),
        kernel("b", 1e9, 1e9, 1e-3, 1),
        kernel("c", 1e11, 1e10, 8e-3, 1),
    ];
    let a = fit(&three, &roof).unwrap();
    assert_eq!(a, fit(&three, &roof).unwrap());
    a.calibration.validate().unwrap();
    assert!(a.rms_after <= a.rms_before);
    let f = fit(
        &[
            kernel("t", 1.0, 1.0, 1e-15, 1),
            kernel("h", 1e20, 1e20, 1e9, u64::MAX),
            kernel("m", 1e10, 1e8, 1e-3, 1),
        ],
        &roof,
    )
    .unwrap();
    f.calibration.validate().unwrap();
    assert!(f.rms_after.is_finite() && f.rms_after <= f.rms_before);
}

#[test]
fn a_roofline_needs_positive_numbers() {
    for (p, w) in [
        (0.0, 1.0),
        (1.0, -1.0),
        (f64::NAN, 1.0),
        (1.0, f64::INFINITY),
    ] {
        assert!(Roofline::new(p, w).is_err(), "{p} {w}");
    }
    let mut k = kernel("k", 1.0, 1.0, 1.0, 1);
    k.time = 0.0;
    assert!(h100().place(&k).is_none());
}

/// Issue 24, point 1: the fit reports how well the kernels determine each term. Eight shapes,
/// four compute-bound at half the peak and four memory-bound at 80 % of the bandwidth, over
/// three decades of size so the overhead (5 µs) is pinned too, each time off by a factor
/// `e^(±δ)` in turn. Every term is then determined, its standard error grows with the noise
/// (twice the noise, about twice the error: the fit is nearly linear at this noise), and
/// exact data leave no error at all.
#[test]
fn the_fit_reports_its_uncertainty() {
    let (c, m, o) = (0.5, 0.8, 5e-6);
    let kernels = |delta: f64| -> Vec<Kernel> {
        let mut ks = Vec::new();
        for (k, scale) in [1.0, 10.0, 100.0, 1000.0].into_iter().enumerate() {
            let sign = if k % 2 == 0 { 1.0 } else { -1.0 };
            // A GEMM of intensity ~1365 and a copy of intensity 0.01, `scale` times larger.
            let (gf, gb) = (137_438_953.472 * scale, 100_663.296 * scale);
            let gemm = (gf / P / c).max(gb / W / m) + o;
            ks.push(kernel("gemm", gf, gb, gemm * (sign * delta).exp(), 1));
            let (cf, cb) = (1e4 * scale, 1e6 * scale);
            let copy = (cf / P / c).max(cb / W / m) + o;
            ks.push(kernel("copy", cf, cb, copy * (-sign * delta).exp(), 1));
        }
        ks
    };
    let u1 = fit(&kernels(0.02), &h100()).unwrap().uncertainty;
    let u2 = fit(&kernels(0.04), &h100()).unwrap().uncertainty;
    assert_eq!(u1.shapes, 8);
    for (name, a, b) in [
        ("c", u1.compute, u2.compute),
        ("m", u1.memory, u2.memory),
        ("o", u1.overhead, u2.overhead),
    ] {
        let (a, b) = (a.unwrap(), b.unwrap());
        assert!(
            a > 0.0 && (1.6..2.4).contains(&(b / a)),
            "{name}: {a} then {b}"
        );
    }
    // ±2 % noise on four shapes each: the efficiencies within a few percent.
    assert!(
        u1.compute.unwrap() < 0.05 && u1.memory.unwrap() < 0.05,
        "{u1:?}"
    );
    let exact = fit(&kernels(0.0), &h100()).unwrap().uncertainty;
    assert!(exact.compute.unwrap() < 1e-6, "{exact:?}");
}
