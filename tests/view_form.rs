//! Native tests of how the forms arrange fields (issue 17): which fold behind "more fields" and
//! when the fold opens, and the sliders' scales and keyboard steps.

use roofline_lab::view;

/// Fields that fold behind "more fields": a TPU's missing fp8 and PCIe figures, a matmul's tiles
/// and sharding fields while it is not sharded, an LLM's architecture under a preset. The fold
/// opens when a link sets one of them (tiles), or when the matmul is sharded.
#[test]
fn which_fields_fold_and_when_the_fold_opens() {
    use roofline::chip::ChipField;
    let v5e = roofline::chip::preset("tpu-v5e").unwrap();
    assert!(view::is_folded_chip_field(&v5e, ChipField::Fp8));
    assert!(view::is_folded_chip_field(&v5e, ChipField::Pcie));
    assert!(!view::is_folded_chip_field(&v5e, ChipField::Bf16));
    assert!(!view::is_folded_chip_field(&v5e, ChipField::Hbm));
    assert!(!view::is_folded_chip_field(&v5e, ChipField::Name));
    assert!(view::is_advanced_op_field("matmul", "bm"));
    assert!(view::is_advanced_op_field("matmul", "topology"));
    assert!(!view::is_advanced_op_field("matmul", "d"));
    assert!(!view::is_advanced_op_field("matmul", "shards"));
    assert!(view::is_advanced_op_field("llm", "experts"));
    assert!(!view::is_advanced_op_field("llm", "b"));
    assert!(!view::is_advanced_op_field("collective", "bytes"));
    let op = |q: &str| roofline::url::decode(q).scenario.ops[0].clone();
    assert!(!view::op_more_open(&op("?op=matmul:d=8192")));
    assert!(view::op_more_open(&op("?op=matmul:bm=256")));
    assert!(view::op_more_open(&op("?op=matmul:shards=4")));
    assert!(!view::op_more_open(&op("?op=llm:preset=llama3-70b")));
}

/// Sliders: sizes snap to powers of two on a log scale, Page Up/Down double and halve, arrows
/// step to the next power of two; peaks spread over decades with three significant digits.
#[test]
fn sliders_map_positions_to_values_people_explore() {
    use view::SLIDER_STEPS;
    let d = view::op_slider("d").unwrap();
    assert_eq!(d.value_at(0.0), 1.0);
    assert_eq!(d.value_at(SLIDER_STEPS), 1_048_576.0);
    // Position 600 of 1000 over 2^0..2^20 is 2^12 = 4096.
    assert_eq!(d.value_at(600.0), 4096.0);
    assert_eq!(d.position_of(4096.0), 600.0);
    assert_eq!(d.step(4096.0, true, false), 8192.0);
    assert_eq!(d.step(4096.0, false, false), 2048.0);
    assert_eq!(d.step(3000.0, true, false), 4096.0);
    assert_eq!(d.step(3000.0, false, false), 2048.0);
    assert_eq!(d.step(3000.0, true, true), 6000.0);
    assert_eq!(d.step(1_048_576.0, true, true), 1_048_576.0);
    assert!(view::op_slider("x").is_none());
    let peak = view::chip_slider(roofline::chip::ChipField::Bf16).unwrap();
    // Halfway across 1e12..1e16 (log) is 1e14.
    assert_eq!(peak.value_at(500.0), 1e14);
    let v = peak.value_at(573.0);
    assert_eq!(
        v,
        (v / 1e12).round() * 1e12,
        "three significant digits: {v}"
    );
    assert_eq!(peak.step(1.97e14, true, true), 3.94e14);
    assert!(view::chip_slider(roofline::chip::ChipField::HbmCap).is_none());
}
