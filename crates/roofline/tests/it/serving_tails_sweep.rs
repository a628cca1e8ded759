//! The load plot's simulated bands (issue 42, `serving::tails::sweep_tails`): at the link's own
//! load and the row's request count they are the serving row's cells; a lone client's figures
//! are its steps by hand; a rate at or past saturation has none and says why.

use roofline::serving::sim::BoundSteps;
use roofline::serving::tails::{sweep_tails, tails, with_own, SweepTails};
use roofline::serving::{step_time, PhaseLoad, StepMix};
use roofline::*;

fn scenario(link: &str) -> Scenario {
    let d = url::decode(link);
    assert!(d.notices.is_empty(), "{:?}", d.notices);
    d.scenario
}

fn sweep(link: &str, xs: &[f64], n: usize) -> SweepTails {
    let s = scenario(link);
    sweep_tails(&s.ops[0], &s.chips[0], &s.options, &BoundSteps, xs, n)
        .unwrap()
        .unwrap()
}

/// At the link's own load the sweep simulates as many requests as the row, with its seed, and
/// its P50 and P99 are the row's `ttft_p50/p99` and `tpot_p50/p99` exactly: a closed loop with
/// drawn lengths, an open loop, and a prefix working set (its hits as the row's). The other
/// loads simulate the count asked.
#[test]
fn at_the_links_own_load_the_band_is_the_rows_cells() {
    for link in [
        "?chip=h100&op=llm:prompt=500,output=40,prompt_cv=0.5,output_cv=0.5,load=concurrency,c=24,engine=vllm,seed=3",
        "?chip=h100&op=llm:prompt=500,output=40,load=rate,qps=20,engine=sglang",
        "?chip=h100&op=llm:prompt=800,output=30,prefix_hit=0.5,prefix_set=20,load=concurrency,c=16,engine=vllm",
    ] {
        let s = scenario(link);
        let row = tails(&s.ops[0], &s.chips, 0, &s.options, &BoundSteps)
            .unwrap()
            .unwrap();
        let r = row.sim.as_ref().unwrap();
        let l = s.ops[0].llm().unwrap();
        let own = if l.load == op::Load::Rate { l.qps } else { l.c };
        let xs = with_own(&[own / 4.0, own * 2.0], own, l.load);
        assert_eq!(xs.len(), 3, "{xs:?}");
        let b = sweep(link, &xs, 300);
        assert_eq!((b.seed, b.requests), (row.seed, 300));
        assert_eq!((b.own, b.own_requests), (own, Some(row.requests)), "{link}");
        assert_eq!(row.requests, 10_000, "{link}");
        let p = b.points.iter().find(|p| p.x == own).unwrap();
        assert_eq!(p.requests, row.requests);
        assert!(b.points.iter().filter(|p| p.x != own).all(|p| p.requests == 300));
        let f = p.figures.as_ref().unwrap();
        assert_eq!((f.ttft_p50, f.ttft_p99), (r.ttft.p50, r.ttft.p99), "{link}");
        let t = r.tpot.unwrap();
        assert_eq!((f.tpot_p50, f.tpot_p99), (Some(t.p50), Some(t.p99)), "{link}");
        for p in &b.points {
            let f = p.figures.as_ref().unwrap();
            assert!(f.ttft_p50 > 0.0 && f.ttft_p50 <= f.ttft_p99, "{p:?}");
            assert!(f.tpot_p50.unwrap() <= f.tpot_p99.unwrap(), "{p:?}");
        }
    }
}

/// One client of Llama-3 8B (bf16, one H100) under TensorRT-LLM, prompts of 1,000 and outputs
/// of 50 tokens: every request runs alone, so at c = 1 P50 = P99 = its prefill step, and its
/// TPOT is the mean of its 49 decode steps at contexts 1,001 … 1,049, to 1e-9 of those sums;
/// at c = 16 requests share steps and queue, so TTFT's P99 and TPOT's P50 are higher.
#[test]
fn a_lone_client_is_its_steps_and_more_clients_wait() {
    let link = "?chip=h100&op=llm:prompt=1000,output=50,engine=trtllm,load=concurrency,c=4";
    let s = scenario(link);
    let (op, h100) = (&s.ops[0], &s.chips[0]);
    let t = |mix: StepMix| step_time(op, h100, &Options::default(), &mix).unwrap().t;
    let prefill = t(StepMix::prefill(PhaseLoad::prefill(1.0, 1000.0)));
    let decode: f64 = (1..50)
        .map(|g| t(StepMix::decode(PhaseLoad::decode(1.0, 1000.0 + g as f64))))
        .sum::<f64>()
        / 49.0;
    let b = sweep(link, &[1.0, 16.0], 200);
    assert_eq!((b.requests, b.seed, b.counts()), (200, 1, Some((200, 200))));
    assert_eq!(
        b.derivation(),
        "up to 200 requests per point (fewer where each takes many steps; the first 20 % of \
         each discarded as warm-up), seed 1"
    );
    let with_own = sweep(link, &[1.0, 4.0], 200);
    assert_eq!(
        with_own.derivation(),
        "up to 200 requests per point (fewer where each takes many steps; the first 20 % of \
         each discarded as warm-up; at this link's load 10,000, as its serving row), seed 1"
    );
    let one = b.points[0].figures.as_ref().unwrap();
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b;
    for v in [one.ttft_p50, one.ttft_p99] {
        assert!(close(v, prefill), "{v} vs {prefill}");
    }
    for v in [one.tpot_p50.unwrap(), one.tpot_p99.unwrap()] {
        assert!(close(v, decode), "{v} vs {decode}");
    }
    let many = b.points[1].figures.as_ref().unwrap();
    assert!(many.ttft_p99 > prefill * 1.5, "{many:?}");
    assert!(many.tpot_p50.unwrap() > decode, "{many:?}");
}

/// Rates at or past the deployment's saturation have no figures and say where it saturates;
/// a load that is no load (0, NaN) is refused; loads are sorted, rounded to whole clients
/// for a closed loop, each once.
#[test]
fn past_saturation_and_bad_loads_have_no_figures() {
    let link = "?chip=h100&op=llm:prompt=500,output=40,load=rate,qps=5,engine=vllm";
    let b = sweep(link, &[5.0, 1e6, 0.0, f64::NAN], 300);
    assert!(b.points[0].figures.is_ok());
    let why = b.points[1].figures.as_ref().unwrap_err();
    assert!(why.starts_with("saturates at "), "{why}");
    assert!(b.points[2].figures.is_err() && b.points[3].figures.is_err());
    assert_eq!(
        with_own(&[3.4, 1.0, 8.0, 0.0], 8.2, op::Load::Concurrency),
        vec![1.0, 3.0, 8.0]
    );
    assert_eq!(
        with_own(&[3.4, 1.0], 2.5, op::Load::Rate),
        vec![1.0, 2.5, 3.4]
    );
}

/// Few clients with long outputs take many steps per request: a point simulates
/// `⌊2·10⁵·n̄/G⌋` requests (`n̄` decoding at once, the closed loop's `c`), between 100 and the
/// most asked. Outputs of 4,000 tokens: one client, ⌊200,000/4,000⌋ = 50 → 100 (the fewest);
/// 4 clients, 200; 8 clients, 400; 64 clients, 3,200 → 1,000 (the most asked).
#[test]
fn few_clients_with_long_outputs_simulate_fewer_requests() {
    let link = "?chip=h100&op=llm:prompt=100,output=4000,engine=vllm,load=concurrency,c=2";
    let b = sweep(link, &[1.0, 4.0, 8.0, 64.0], 1_000);
    let n: Vec<usize> = b.points.iter().map(|p| p.requests).collect();
    assert_eq!(n, vec![100, 200, 400, 1_000]);
    assert_eq!(b.counts(), Some((100, 1_000)));
}

/// The disaggregated band (`sweep_disagg`): the ratio its serving row runs (`auto`'s chosen at
/// the link's load, as the row's `best_disagg`), and at the link's own load its P50 and P99 are
/// the row's cells exactly (the same plan, request count and seed); the other loads simulate
/// up to the count asked, with P50 ≤ P99; without `disagg=` there is none.
#[test]
fn the_disaggregated_band_runs_the_rows_ratio_and_is_its_cells_at_its_load() {
    use roofline::serving::tails::sweep_disagg;
    for (link, ratio, auto) in [
        (
            "?chip=h100&op=llm:prompt=1000,output=50,load=concurrency,c=16,engine=vllm,disagg=2P1D",
            "2P1D",
            false,
        ),
        (
            "?chip=h100&op=llm:prompt=1000,output=50,load=concurrency,c=16,engine=vllm,disagg=auto",
            "",
            true,
        ),
    ] {
        let s = scenario(link);
        let row = tails(&s.ops[0], &s.chips, 0, &s.options, &BoundSteps)
            .unwrap()
            .unwrap();
        let r = row.sim.as_ref().unwrap();
        let best = row.disagg.as_ref().unwrap();
        let xs = [4.0, 16.0, 48.0];
        let d = sweep_disagg(
            &s.ops[0],
            &s.chips[0],
            &s.chips[0],
            &s.options,
            &BoundSteps,
            &xs,
            200,
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            (d.ratio.as_str(), d.auto),
            (best.ratio.as_str(), auto),
            "{link}"
        );
        if !auto {
            assert_eq!(d.ratio, ratio);
        }
        let own = d.points.iter().find(|p| p.x == 16.0).unwrap();
        assert_eq!(own.requests, row.requests, "{link}");
        let f = own.figures.as_ref().unwrap();
        assert_eq!((f.ttft_p50, f.ttft_p99), (r.ttft.p50, r.ttft.p99), "{link}");
        let t = r.tpot.unwrap();
        assert_eq!(
            (f.tpot_p50, f.tpot_p99),
            (Some(t.p50), Some(t.p99)),
            "{link}"
        );
        for p in d.points.iter().filter(|p| p.x != 16.0) {
            assert!(p.requests <= 200 && p.requests >= 100, "{p:?}");
            let f = p.figures.as_ref().unwrap();
            assert!(f.ttft_p50 > 0.0 && f.ttft_p50 <= f.ttft_p99, "{p:?}");
            assert!(f.tpot_p50.unwrap() <= f.tpot_p99.unwrap(), "{p:?}");
        }
    }
    let s = scenario("?chip=h100&op=llm:prompt=1000,output=50,load=concurrency,c=16,engine=vllm");
    let none = sweep_disagg(
        &s.ops[0],
        &s.chips[0],
        &s.chips[0],
        &s.options,
        &BoundSteps,
        &[16.0],
        200,
    );
    assert_eq!(none.unwrap(), None);
}
