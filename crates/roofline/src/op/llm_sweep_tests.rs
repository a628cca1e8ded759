//! Unit tests of `llm_sweep.rs` (a file of their own to keep that one under 600 lines).

use super::*;

#[test]
fn grain_is_the_lowest_set_bit() {
    assert_eq!(grain(3.0), Some(0));
    assert_eq!(grain(12.0), Some(2)); // 3·2^2
    assert_eq!(grain(0.5), Some(-1));
    assert_eq!(grain(-40.0), Some(3)); // −5·2^3
    assert_eq!(grain(0.0), Some(i32::MAX));
    assert_eq!(grain(f64::NAN), None);
    assert_eq!(grain(f64::INFINITY), None);
}

/// A point alone (the crossovers' bisection) and in a chunk (the grid) are the same bits,
/// for a dense model and an MoE with MLA, in both phases.
#[test]
fn one_point_equals_a_chunk() {
    let chip = crate::chip::preset("h100").unwrap();
    let eff = Eff {
        compute: 0.8,
        overhead: 1e-6,
    };
    for id in ["llama3-8b", "deepseek-v3"] {
        for phase in [
            super::super::InferenceStep::Decode,
            super::super::InferenceStep::Prefill,
        ] {
            let mut l = Llm::default();
            l.apply_preset(
                crate::arch::arch_presets()
                    .iter()
                    .find(|p| p.id == id)
                    .unwrap(),
            );
            l.phase = phase;
            let mut m = LlmSweep::new(&l, "b", &chip, eff, 1.0, 300.0)
                .unwrap()
                .unwrap();
            let xs: Vec<f64> = (1..=70).map(|i| f64::from(i) * 4.25).collect();
            let mut out = Vec::new();
            m.eval_chunk(&xs, &mut out);
            assert_eq!(out.len(), LlmSweep::CHUNK);
            for (x, e) in xs.iter().zip(&out) {
                let one = m.eval(*x);
                assert_eq!(one.lower.to_bits(), e.lower.to_bits(), "{id} {x}");
                assert_eq!(one.upper.to_bits(), e.upper.to_bits(), "{id} {x}");
                assert_eq!(one.t_max.to_bits(), e.t_max.to_bits(), "{id} {x}");
                assert_eq!(one.bound, e.bound, "{id} {x}");
            }
        }
    }
}
