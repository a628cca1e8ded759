//! What the page reads of serving under load (`roofline::validation::load::page`, issue 40):
//! the serving row's data, the load curves and frontiers, and the measured rows beside them.

use roofline::op::Engine;
use roofline::serving::load_figures;
use roofline::validation::load::page::{frontiers, load_curve, load_row, measured_points, Axis};
use roofline::validation::Basis;
use roofline::{preset, Op, Options};

/// Llama 3.1-70B in FP8 on 8 × H200, 1024/1024: the worked example.
fn example(kv: &[(&str, &str)]) -> Op {
    let mut op = Op::default_for("llm").unwrap();
    for (k, v) in [
        ("preset", "llama3.1-70b"),
        ("tp", "8"),
        ("link", "nvlink"),
        ("w", "fp8"),
        ("x", "fp8"),
        ("prompt", "1024"),
        ("output", "1024"),
        ("load", "concurrency"),
        ("c", "64"),
        ("engine", "vllm"),
    ]
    .iter()
    .chain(kv)
    {
        op.set(k, v).unwrap();
    }
    op
}

/// The row under load is the load model's figures with the vLLM fit's expectations, inside
/// their bands, on this chip's own rows; under `load=batch` saturation and goodput are `none`
/// with the reason, and `generic` leaves the expectation to the published set.
#[test]
fn the_serving_rows_data() {
    let (h200, opts) = (preset("h200").unwrap(), Options::default());
    let op = example(&[("ttft_max", "500"), ("tpot_max", "20")]);
    let row = load_row(&op, &h200, &opts).unwrap().unwrap();
    let f = load_figures(&op, &h200, &opts).unwrap().unwrap();
    let at = f.at.unwrap();
    assert_eq!(row.ttft.bound, Some(at.ttft));
    assert_eq!(row.tpot.bound, Some(at.tpot));
    assert_eq!(row.running_batch, Some(64.0));
    assert_eq!(
        (row.basis, row.fitted_engine),
        (Some(Basis::Chip), Some(Engine::Vllm))
    );
    for fig in [&row.ttft, &row.tpot] {
        let (lo, e, hi) = (fig.lo.unwrap(), fig.expected.unwrap(), fig.hi.unwrap());
        assert!(lo < e && e < hi && fig.bound.unwrap() < e, "{fig:?}");
    }
    assert!(
        row.goodput_qps.unwrap() > 0.0 && row.saturation_qps.unwrap() > row.goodput_qps.unwrap()
    );
    let batch = load_row(&example(&[("load", "batch"), ("b", "64")]), &h200, &opts)
        .unwrap()
        .unwrap();
    assert!(batch.saturation_none.unwrap().starts_with("load=batch"));
    assert!(batch.goodput_qps.is_none() && batch.tpot.expected.is_some());
    let generic = load_row(
        &example(&[("load", "batch"), ("engine", "generic")]),
        &h200,
        &opts,
    )
    .unwrap()
    .unwrap();
    assert!(generic.tpot.expected.is_none());
    assert!(generic.expected_none.unwrap().contains("published set"));
}

/// A concurrency sweep's throughput per chip rises and what a user sees falls (the frontier);
/// a rate sweep stays below saturation and its TTFT rises; each engine has its curve.
#[test]
fn curves_and_frontiers() {
    let (h200, opts) = (preset("h200").unwrap(), Options::default());
    let op = example(&[]);
    let c = load_curve(&op, &h200, &opts, Engine::Trtllm, Axis::Concurrency, 24).unwrap();
    assert!(c.points.len() > 10);
    let (first, last) = (&c.points[0], c.points.last().unwrap());
    assert_eq!(first.x, 1.0);
    assert!(last.tokens_per_s_chip.bound > first.tokens_per_s_chip.bound);
    assert!(last.tokens_per_s_user.bound < first.tokens_per_s_user.bound);
    assert!(last.tpot.expected.is_some() && c.basis == Ok(Basis::Chip));
    let r = load_curve(&op, &h200, &opts, Engine::Vllm, Axis::Rate, 16).unwrap();
    let sat = r.saturation_qps.unwrap();
    assert!(r.points.iter().all(|p| p.x < sat));
    assert!(r.points.last().unwrap().ttft.bound > r.points[0].ttft.bound);
    let fr = frontiers(&op, &h200, &opts, 8).unwrap();
    let engines: Vec<Engine> = fr.iter().map(|c| c.engine).collect();
    assert_eq!(engines, [Engine::Vllm, Engine::Sglang, Engine::Trtllm]);
}

/// The measured rows beside the worked example: TensorRT-LLM's and vLLM's, none of SGLang's
/// (the sample has none there), each with Little's law's throughput per chip.
#[test]
fn measured_rows_of_the_example() {
    let (pts, has) = measured_points(&example(&[]), &preset("h200").unwrap());
    assert_eq!(
        has,
        vec![
            (Engine::Vllm, true),
            (Engine::Sglang, false),
            (Engine::Trtllm, true)
        ]
    );
    // vLLM at c = 64: TTFT 194.9 ms, TPOT 12.73 ms (the sample's row): 64·1024 /
    // (0.1949 + 1023·0.01273) / 8 chips = 65536 / 13.2177 / 8 ≈ 620 tokens/s per chip.
    let v = pts
        .iter()
        .find(|p| p.engine == Engine::Vllm && p.c == 64.0)
        .unwrap();
    assert!(
        (v.ttft - 0.1949).abs() < 1e-3 && (v.tpot - 0.01273).abs() < 1e-4,
        "{v:?}"
    );
    let want = 64.0 * 1024.0 / (v.ttft + 1023.0 * v.tpot) / 8.0;
    assert!(
        (v.tokens_per_s_chip - want).abs() < 1e-9 && (want - 620.0).abs() < 1.0,
        "{want}"
    );
}
