//! The result store (`roofline::results`, issue 41): each (operation, chip, options) computed
//! once per edit, keyed by content; its figures equal the direct calls and, for a matmul, a
//! hand calculation.

use std::sync::Arc;

use roofline::results::{PairResults, Results};
use roofline::url::decode;

fn scenario(q: &str) -> roofline::Scenario {
    let d = decode(q);
    assert!(d.notices.is_empty(), "{q}: {:?}", d.notices);
    d.scenario
}

const THREE_OPS: &str = "?chip=tpu-v5e&chip=h100\
    &op=matmul:b=512,d=4096,f=4096\
    &op=matmul:b=64,d=1024,f=1024\
    &op=llm:preset=llama3-8b,b=16,ctx=2048,phase=decode";

#[test]
fn results_second_update_recomputes_only_the_changed_ops_pairs() {
    let s = scenario(THREE_OPS);
    let mut r = Results::new();
    r.update(&s);
    // 3 ops × 2 chips, all new.
    assert_eq!(r.computed(), 6);
    let before: Vec<Arc<PairResults>> = r.pairs().map(|(_, _, p)| p.clone()).collect();

    // Nothing changed: nothing computed, the same figures handed back.
    r.update(&s);
    assert_eq!(r.computed(), 6);

    // One op edited: only its two pairs (one per chip) are computed again.
    let mut edited = s.clone();
    edited.ops[1].set("b", "128").unwrap();
    r.update(&edited);
    assert_eq!(r.computed(), 8);
    for (i, j, p) in r.pairs() {
        let same = Arc::ptr_eq(p, &before[i * 2 + j]);
        assert_eq!(same, i != 1, "op {i} chip {j}: reused {same}");
    }

    // Keyed by content, not position: swapping the first two ops computes nothing, and each
    // op keeps its own figures at its new position.
    let mut swapped = edited.clone();
    swapped.ops.swap(0, 2);
    r.update(&swapped);
    assert_eq!(r.computed(), 8);
    assert!(Arc::ptr_eq(r.get(2, 0).unwrap(), &before[0]));
    assert!(Arc::ptr_eq(r.get(0, 1).unwrap(), &before[5]));

    // The options are part of the key: a derate computes every pair again.
    let mut derated = swapped.clone();
    derated.options.derate = 0.9;
    r.update(&derated);
    assert_eq!(r.computed(), 14);
}

#[test]
fn results_equal_operations_are_computed_once() {
    let s = scenario("?chip=tpu-v5e&op=matmul:b=512&op=matmul:b=512&op=matmul:b=512");
    let r = Results::of(&s);
    assert_eq!(r.computed(), 1);
    assert_eq!(r.distinct(), 1);
    assert_eq!(r.pairs().count(), 3);
}

#[test]
fn results_equal_the_direct_calls() {
    let s = scenario(THREE_OPS);
    let r = Results::of(&s);
    for (i, j, p) in r.pairs() {
        let (op, chip, o) = (&s.ops[i], &s.chips[j], &s.options);
        let w = roofline::workload::analyze_workload(op, chip, o);
        let a = match &w {
            Ok(Some(w)) => Ok(w.analysis.clone()),
            _ => roofline::analyze(op, chip, o),
        };
        assert_eq!(p.analysis, a, "op {i} chip {j}");
        assert_eq!(p.workload, w);
        let a = a.unwrap();
        assert_eq!(
            p.expectation,
            roofline::validation::expectation_for(op, chip, &a)
        );
        assert_eq!(
            p.elasticities,
            Some(roofline::compare::elasticities(&a, chip, o))
        );
        let serving = roofline::serving::serving(op, chip, o);
        assert_eq!(
            p.serving.as_ref().map(|v| &v.figures),
            Some(&serving),
            "op {i}"
        );
        assert_eq!(
            p.serving.as_ref().map(|v| &v.load),
            Some(&roofline::validation::load::page::load_row(op, chip, o))
        );
        assert_eq!(p.serving_figures().is_some(), i == 2);
        // The serving steps, each analysed under the scenario's options.
        let steps = p.serving.as_ref().map(|v| v.steps.clone());
        match roofline::serving::serving_steps(op) {
            Some((pre, dec)) => {
                let st = steps.unwrap().unwrap();
                assert_eq!(Ok(st.prefill), roofline::analyze(&pre, chip, o));
                assert_eq!(Ok(st.decode), roofline::analyze(&dec, chip, o));
            }
            None => assert!(steps.unwrap().is_err(), "op {i}"),
        }
    }
}

/// The sweeps (`Results::update_with`): each equals the direct calls, an edit re-sweeps only
/// its operation's pairs, a new sweep re-sweeps every pair, a store brought up without sweeps
/// holds none (and one without pairs no pair), and an operation without the swept field has
/// none.
#[test]
fn results_sweeps_equal_the_direct_calls_and_follow_edits() {
    use roofline::results::{oom_edge, Swept, Wanted};
    let with = Wanted {
        pairs: true,
        sweeps: true,
    };
    let mut s = scenario(THREE_OPS);
    s.sweep.field = "b".into();
    let mut r = Results::of_with(&s, with);
    assert_eq!(r.sweeps_computed(), 6);
    for (i, j, _) in r.pairs() {
        let (op, chip, o) = (&s.ops[i], &s.chips[j], &s.options);
        let direct = Swept {
            curve: roofline::sweep::sweep(op, chip, o, &s.sweep),
            analysis: roofline::analyze(op, chip, o),
            oom: oom_edge(op, chip, o, &s.sweep),
        };
        assert_eq!(**r.sweep(i, j).unwrap(), direct, "op {i} chip {j}");
    }
    let before: Vec<_> = (0..3).map(|i| r.sweep(i, 1).unwrap().clone()).collect();
    s.ops[2].set("ctx", "4096").unwrap();
    r.update_with(&s, with);
    assert_eq!(r.sweeps_computed(), 8);
    for (i, old) in before.iter().enumerate() {
        assert_eq!(Arc::ptr_eq(r.sweep(i, 1).unwrap(), old), i != 2, "op {i}");
    }
    s.sweep.to /= 2.0;
    r.update_with(&s, with);
    assert_eq!(r.sweeps_computed(), 14);
    let swept = r.sweep(1, 1).unwrap().clone();
    r.update(&s);
    assert!(r.sweep(0, 0).is_none() && r.get(0, 0).is_some());
    // The sweeps alone: no pair, the same figures.
    let alone = Results::of_with(&s, Wanted::SWEEPS);
    assert!(alone.get(0, 0).is_none());
    assert_eq!(alone.sweep(1, 1).unwrap(), &swept);
    // `d` is no field of the llm step: the matmuls are swept, the llm is not.
    s.sweep.field = "d".into();
    r.update_with(&s, with);
    assert!(r.sweep(0, 0).is_some() && r.sweep(2, 0).is_none());
}

/// The validation set computes through the store (`results::validated`): each expressible
/// point's prediction is the figure the store holds for its link's op 1 on chip 1: `T_lower`,
/// or, for a point per output token (a serving group's `1 / throughput`), the request latency
/// per output token of the store's pair at the largest batch that fits. The set compares
/// nothing else today; the first point of each of those kinds is checked.
#[test]
fn results_validation_points_are_the_stores_figures() {
    use roofline::validation::{points, Compared};
    let mut seen = std::collections::BTreeSet::new();
    for p in points() {
        if p.expressible.is_err() || seen.contains(p.compared.id()) {
            continue;
        }
        let mut s = scenario(p.link);
        let mut store = Results::of(&s);
        let pair = store.get(0, 0).unwrap().clone();
        let from_store = match p.compared {
            Compared::TLower => pair.analysis.as_ref().unwrap().t_lower,
            Compared::PerOutputToken => {
                let first = pair.serving_figures().unwrap();
                let b = first.batch.min(first.max_batch.floor());
                s.ops[0].set("b", &format!("{b}")).unwrap();
                store.update(&s);
                let v = store.get(0, 0).unwrap().serving_figures().unwrap().clone();
                v.request_latency / (v.batch * v.output)
            }
            other => panic!("{}: the set compares {other:?} now: check it here", p.id),
        };
        let predicted = roofline::results::validated::predict(p).unwrap();
        assert_eq!(predicted, from_store, "{}", p.id);
        seen.insert(p.compared.id());
    }
    assert_eq!(seen.len(), 2, "{seen:?}");
}

/// Matmul `bf16[512,4096] · int8[4096,4096]` on TPU v5e by hand: FLOPs 2·512·4096·4096 =
/// 17,179,869,184; bytes 2·512·4096 + 4096·4096 + 2·512·4096 = 25,165,824; T_math = FLOPs /
/// 1.97e14 (v5e's bf16 peak) = 87.21 µs; T_comms = bytes / 8.2e11 = 30.69 µs; compute-bound.
#[test]
fn results_matmul_by_hand() {
    let s = scenario("?chip=tpu-v5e&op=matmul:b=512,d=4096,f=4096,x=bf16,w=int8");
    let r = Results::of(&s);
    let a = r.get(0, 0).unwrap().analysis.as_ref().unwrap();
    let flops = 2.0 * 512.0 * 4096.0 * 4096.0;
    let bytes = 2.0 * 512.0 * 4096.0 + 4096.0 * 4096.0 + 2.0 * 512.0 * 4096.0;
    assert_eq!(a.flops, flops);
    assert_eq!(a.bytes, bytes);
    assert!((a.t_math - flops / 1.97e14).abs() < 1e-15);
    assert!((a.t_comms - bytes / 8.2e11).abs() < 1e-15);
    assert_eq!(a.bound, roofline::Bound::Compute);
    assert!(r.get(0, 0).unwrap().serving.as_ref().unwrap().figures == Ok(None));
    assert!(r.get(1, 0).is_none() && r.get(0, 1).is_none());
}

/// The static serving expectation: `B / expected TPOT` for a batch that fits, as the serving
/// row's `tokens_per_s_expected` defines it.
#[test]
fn results_serving_expectation_tokens() {
    let s = scenario("?chip=h100&op=llm:preset=llama3-8b,b=16,prompt=1024,output=512");
    let r = Results::of(&s);
    let v = r.get(0, 0).unwrap().serving.as_ref().unwrap();
    let e = v.expected.as_ref().expect("a serving expectation");
    let fig = r.get(0, 0).unwrap().serving_figures().unwrap();
    assert_eq!(&e.bare, fig, "bare options: the same figures");
    assert_eq!(e.bare.batch, 16.0);
    let tpot = e
        .tpot
        .as_ref()
        .expect("the set expects an H100 decode step");
    assert_eq!(e.tokens_per_s(), Some(16.0 / tpot.t));
    // An expected decode step is slower than its bound (the set's ratio r > 1 on H100).
    assert!(tpot.t > fig.tpot, "{} vs {}", tpot.t, fig.tpot);
}

/// A failed analysis keeps its error and computes no serving figures, as the page shows none
/// (A100 has no fp8 peak).
#[test]
fn results_failed_analysis() {
    let s = scenario("?chip=a100&op=matmul:x=fp8,w=fp8");
    let r = Results::of(&s);
    let p = r.get(0, 0).unwrap();
    let e = p.analysis.as_ref().unwrap_err();
    assert!(e.to_string().contains("no fp8 peak on A100 SXM"), "{e}");
    assert!(p.serving.is_none() && p.elasticities.is_none());
    assert!(p.expectation.is_err());
}
