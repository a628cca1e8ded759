//! The Nsight Compute reader's unit tests: units, numbers with thousands separators, tensor
//! instruction shapes.

use super::*;

#[test]
fn units_scale_to_base_units() {
    for (u, want) in [
        ("", 1.0),
        ("byte", 1.0),
        ("Kbyte", 1e3),
        ("Mbyte", 1e6),
        ("Gbyte", 1e9),
        ("KiB", 1024.0),
        ("nsecond", 1e-9),
        ("ns", 1e-9),
        ("usecond", 1e-6),
        ("us", 1e-6),
        ("msecond", 1e-3),
        ("second", 1.0),
        ("cycle/second", 1.0),
        ("cycle/nsecond", 1e9),
        ("Gbyte/second", 1e9),
        ("Gbyte/s", 1e9),
        ("Ghz", 1e9),
        ("inst", 1.0),
        ("Minst", 1e6),
        ("register/thread", 1.0),
        ("%", 1.0),
    ] {
        assert_eq!(unit_scale(u), Some(want), "{u}");
    }
    for u in ["furlong/fortnight", "Xbyte", "byte/0", "1"] {
        assert_eq!(unit_scale(u), None, "{u}");
    }
}

#[test]
fn numbers_with_thousands_separators() {
    assert_eq!(number("5,318,969,728.00"), Some(5_318_969_728.0));
    assert_eq!(number("17.50"), Some(17.5));
    assert_eq!(number("n/a"), None);
    assert_eq!(number(""), None);
    assert_eq!(number("inf"), None);
    assert_eq!(number("-67,108,864"), None);
}

#[test]
fn tensor_instruction_shapes() {
    // The real exports in shared/profiles: a 20480³ fp16 GEMM reported by the program as
    // 94,622.9 GFLOP/s × 181.561 ms = 1.718e13 = 2·20480³ FLOPs; ncu counted
    // 8,388,608,000 tensor instructions for the CUTLASS kernel with
    // GemmShape<16, 8, 8> on A100 (→ 2048 each), 4,194,304,000 for
    // ampere_s16816gemm (→ 4096 each), and 33,554,432,000 on V100 (→ 512 each).
    let full = 2.0 * 20480f64.powi(3);
    let cutlass = "cutlass::gemm::warp::MmaTensorOpPolicy<cutlass::arch::Mma<cutlass::gemm::GemmShape<(int)16, (int)8, (int)8>, (int)32";
    let (per, _) = tensor_flops_per_instruction(cutlass, Some((8, 0))).unwrap();
    assert_eq!(8_388_608_000.0 * per, full);
    let (per, _) = tensor_flops_per_instruction(
        "ampere_s16816gemm_fp16_256x128_ldg8_stages_64x3_nn",
        Some((8, 0)),
    )
    .unwrap();
    assert_eq!(4_194_304_000.0 * per, full);
    let (per, _) =
        tensor_flops_per_instruction("cutlass_70_tensorop_s884gemm", Some((7, 0))).unwrap();
    assert_eq!(33_554_432_000.0 * per, full);
    assert_eq!(
        tensor_flops_per_instruction("s1688gemm", Some((8, 6)))
            .unwrap()
            .0,
        2048.0
    );
    assert_eq!(
        tensor_flops_per_instruction("gemm", Some((7, 5)))
            .unwrap()
            .0,
        2048.0
    );
    assert!(tensor_flops_per_instruction("sm90_xmma_gemm", Some((9, 0))).is_err());
    assert!(tensor_flops_per_instruction("gemm", None).is_err());
}
