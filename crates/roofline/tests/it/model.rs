//! Aggregate models (`op=model`): FLOPs and activation bytes per input, parameters read once
//! per batch. Checked against MLSys·im's "Hello, Roofline" (`mlsysim-hello-roofline.txt`).

use crate::common;

use common::{close, op_with, rel};
use roofline::*;

fn model(kv: &[(&str, &str)]) -> Op {
    op_with("model", kv)
}

#[test]
fn fields_and_preset() {
    let op = Op::default_for("model").unwrap();
    let keys: Vec<&str> = op.fields().iter().map(|f| f.key).collect();
    assert_eq!(keys, ["preset", "b", "w", "flops", "params", "act"]);
    for (k, v) in [
        ("preset", "resnet50"),
        ("b", "1"),
        ("w", "bf16"),
        ("flops", "8.2e9"),
        ("params", "2.56e7"),
        ("act", "5.68e7"),
    ] {
        assert_eq!(op.get(k).unwrap(), v, "{k}");
    }
    let mut o = op.clone();
    o.set("act", "0").unwrap();
    assert_eq!(o.get("preset").unwrap(), "custom");
    o.set("preset", "custom").unwrap();
    assert_eq!(o.get("act").unwrap(), "0");
    o.set("preset", "resnet50").unwrap();
    assert_eq!(o, op);
    assert!(o.set("act", "-1").is_err());
    assert!(o.set("flops", "0").is_err());
    let src = aggregate_presets()[0].source;
    assert!(src.contains("estimate") && src.contains("MLSys"));
}

/// MLSys·im's sanity check: ResNet-50 at batch 1 on an A100 in fp16, "4.1 GFLOP ÷ 50 MB =
/// 82 FLOP/byte" (1 FLOP per MAC, 25M params × 2 bytes, no activations). With act = 0 and
/// params = 25e6 the crate reproduces it: 82 in their convention, 164 in the vendors'.
/// T_memory = 50 MB / 2.039e12 = 0.0245 ms, T_compute = 8.2e9 / 3.12e14 = 0.0263 ms ("T =
/// max(0.025, 0.026) → nearly equal"): compute-bound by a hair. (Their ridge "~156" is the
/// 2-per-MAC 312/2.0; in one convention it is 153 vs 164, or 76.5 vs 82.)
#[test]
fn mlsysim_resnet50_sanity_check() {
    let a100 = preset("a100").unwrap();
    let op = model(&[("w", "fp16"), ("params", "25e6"), ("act", "0")]);
    let two = analyze(&op, &a100, &Options::default()).unwrap();
    let one = analyze(
        &op,
        &a100,
        &Options {
            convention: FlopConvention::OnePerMac,
            ..Options::default()
        },
    )
    .unwrap();
    assert_eq!(two.bytes, 25e6 * 2.0);
    close(two.intensity, 8.2e9 / 5e7, 1e-12, "2-per-MAC intensity");
    assert_eq!(two.intensity, 164.0);
    close(one.intensity, 82.0, 1e-12, "MLSys·im's 82 FLOP/byte");
    close(
        two.term(Resource::Hbm).unwrap().time,
        5e7 / 2.039e12,
        1e-12,
        "T_memory",
    );
    close(two.t_math, 8.2e9 / 3.12e14, 1e-12, "T_compute");
    assert_eq!(one.t_math, two.t_math);
    assert!((0.024e-3..0.025e-3).contains(&two.t_comms));
    assert!((0.026e-3..0.027e-3).contains(&two.t_math));
    assert_eq!(two.bound, Bound::Compute);
    close(two.ridge, 3.12e14 / 2.039e12, 1e-12, "ridge 153");
    close(one.ridge, 1.56e14 / 2.039e12, 1e-12, "ridge 76.5");
    assert_eq!(two.approx_intensity.as_ref().unwrap().1, "= 164B");
    // Critical batch (weights only): B = (5e7/2.039e12)/(8.2e9/3.12e14) = 0.933 < 1, so every
    // batch of their sweep (1 to 256) is compute-bound, as their table says.
    let c = two.critical.as_ref().unwrap();
    close(
        c.value,
        (5e7 / 2.039e12) / (8.2e9 / 3.12e14),
        1e-12,
        "critical B",
    );
    assert!(c.value < 1.0);
    for b in [1.0, 4.0, 16.0, 32.0, 64.0, 128.0, 256.0] {
        let mut o = op.clone();
        o.set_num("b", b).unwrap();
        let a = analyze(&o, &a100, &Options::default()).unwrap();
        assert_eq!(a.bound, Bound::Compute, "B={b}");
        close(a.flops, b * 8.2e9, 1e-15, "FLOPs = B·flops");
        assert_eq!(a.bytes, 5e7);
    }
    let text = two.derivation().join("\n");
    assert!(text.contains("weights read once per batch"));
    assert!(text.contains("activations per input"));
}

/// With the preset's activation estimate (5.68e7 bytes per image), the intensity tends to
/// 8.2e9 / 5.68e7 = 144 as B grows, below the A100's ridge 153: memory-bound at every B
/// (act/BW = 2.79e-5 s per image > flops/P = 2.63e-5 s per image).
#[test]
fn resnet50_with_activations() {
    let a100 = preset("a100").unwrap();
    let op = model(&[("w", "fp16")]);
    assert_eq!(op.get("preset").unwrap(), "resnet50");
    let (act_time, math_time) = (5.68e7 / 2.039e12, 8.2e9 / 3.12e14);
    assert!(act_time > math_time);
    for b in ["1", "64", "4096"] {
        let a = analyze(
            &model(&[("w", "fp16"), ("b", b)]),
            &a100,
            &Options::default(),
        )
        .unwrap();
        let bn: f64 = b.parse().unwrap();
        assert_eq!(a.bytes, 25.6e6 * 2.0 + bn * 5.68e7);
        close(
            a.intensity,
            bn * 8.2e9 / (5.12e7 + bn * 5.68e7),
            1e-12,
            "intensity",
        );
        assert!(a.intensity < 8.2e9 / 5.68e7);
        assert_eq!(a.bound, Bound::Memory);
        assert!(a.critical.is_none());
        assert!(a.approx_intensity.is_none());
        assert_eq!(a.memory, 5.12e7);
    }
    // In int8 (weights and activations halved by hand), the int8 peak 6.24e14 makes the
    // per-image math 1.31e-5 s against 1.39e-5 s of activation traffic: still memory-bound.
    let a = analyze(
        &model(&[("w", "int8"), ("act", "2.84e7"), ("b", "1024")]),
        &a100,
        &Options::default(),
    )
    .unwrap();
    assert_eq!(a.bound, Bound::Memory);
}

/// The critical batch is the root of a linear equation, like a matmul's:
/// B·flops/P = (params·s_w + B·act)/BW → B = (params·s_w/BW) / (flops/P − act/BW).
#[test]
fn critical_batch_is_linear() {
    let h100 = preset("h100").unwrap();
    let (p, bw) = (9.89e14, 3.35e12);
    let op = model(&[("act", "1e7")]);
    let want = (25.6e6 * 2.0 / bw) / (8.2e9 / p - 1e7 / bw);
    assert!((2.8..2.9).contains(&want));
    let a = analyze(&op, &h100, &Options::default()).unwrap();
    let c = a.critical.clone().unwrap();
    assert_eq!((c.dim.as_str(), c.resource), ("b", Resource::Hbm));
    close(c.value, want, 1e-12, "critical B");
    assert!(c.approx.is_none());
    let s = sweep(
        &op,
        &h100,
        &Options::default(),
        &SweepSpec {
            field: "b".into(),
            from: 1.0,
            to: 64.0,
            points: 64,
            log: false,
        },
    )
    .unwrap();
    assert_eq!(s.crossovers.len(), 1);
    close(s.crossovers[0].x, want, 1e-12, "sweep crossover");
    for pt in &s.points {
        let mut o = op.clone();
        o.set_num("b", pt.x).unwrap();
        let a = analyze(&o, &h100, &Options::default()).unwrap();
        assert!(rel(pt.t_lower, a.t_lower) <= 1e-12);
        assert_eq!(pt.bound, a.bound);
    }
    // Weights only: the approximation B ≈ params·s_w·P/(flops·BW) is exact.
    let a0 = analyze(&model(&[("act", "0")]), &h100, &Options::default()).unwrap();
    let c0 = a0.critical.unwrap();
    close(c0.value, 25.6e6 * 2.0 * p / (8.2e9 * bw), 1e-12, "act = 0");
    close(c0.approx.unwrap(), c0.value, 1e-12, "approx");
    // Each chip: a result or a typed error.
    for chip in presets() {
        match analyze(&op, &chip, &Options::default()) {
            Ok(a) => assert!(a.t_lower > 0.0 && a.t_lower.is_finite()),
            Err(e) => assert!(matches!(e, Error::MissingPeak { .. })),
        }
    }
}
