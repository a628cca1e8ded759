//! The serving row's tails in the page (issue 42): the cells the simulation worker computes
//! (`view::serving_tails`), against hand numbers composed from the step model: a lone client
//! is its steps, one request at a time is an M/D/1 queue, a lone request on 1P1D is its
//! prefill and its transfer; and the page's plumbing: pending cells, the overlay of an answer
//! on its own scenario only, the checks at the field, the draw program's pending cells.
#![cfg(not(target_arch = "wasm32"))]

use std::sync::Arc;

use roofline::analysis::Options;
use roofline::scenario::Scenario;
use roofline::serving::sim::BoundSteps;
use roofline::serving::tails::tails;
use roofline::serving::{step_time, PhaseLoad, StepMix};
use roofline::validation::load::steps::FittedSteps;
use roofline_lab::view::serving_tails::{
    self, pending_cells, precheck, read, sim_key, sim_state, simulate, tails_cells, SimDone,
    PERCENTILES,
};
use roofline_lab::view::{self, Cell, ResultRow};

fn scenario(link: &str) -> Scenario {
    let d = roofline::url::decode(link);
    assert!(d.notices.is_empty(), "{:?}", d.notices);
    d.scenario
}

/// The tails cells of the link's first op on its first chip, steps at their bound.
fn cells(link: &str) -> Vec<Cell> {
    let s = scenario(link);
    let r = tails(&s.ops[0], &s.chips, 0, &s.options, &BoundSteps);
    tails_cells(&s.ops[0], &r)
}

fn get<'a>(cells: &'a [Cell], metric: &str) -> &'a Cell {
    cells
        .iter()
        .find(|c| c.metric == metric)
        .unwrap_or_else(|| panic!("no {metric}"))
}

fn num(cells: &[Cell], metric: &str) -> f64 {
    let c = get(cells, metric);
    c.value
        .parse()
        .unwrap_or_else(|_| panic!("{metric} = {:?} ({})", c.value, c.title))
}

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * b.abs()
}

fn step(s: &Scenario, mix: StepMix) -> f64 {
    step_time(&s.ops[0], &s.chips[0], &Options::default(), &mix)
        .unwrap()
        .t
}

/// One client, whole prompts of 1,000 tokens, outputs of 50 (Llama-3 8B, bf16, one H100,
/// TensorRT-LLM): every request's TTFT is its lone prefill step, its TPOT the mean of its 49
/// decode steps at contexts 1,001 … 1,049, its E2E their sum; so P50 = P90 = P99 for each.
/// The titles name the count, the warm-up and the seed.
#[test]
fn a_lone_client_is_its_steps() {
    let link = "?chip=h100&op=llm:prompt=1000,output=50,engine=trtllm,load=concurrency,c=1";
    let s = scenario(link);
    let prefill = step(&s, StepMix::prefill(PhaseLoad::prefill(1.0, 1000.0)));
    let decode: f64 = (1..50)
        .map(|g| {
            step(
                &s,
                StepMix::decode(PhaseLoad::decode(1.0, 1000.0 + g as f64)),
            )
        })
        .sum();
    let c = cells(link);
    assert_eq!(
        c.iter().map(|c| c.metric).collect::<Vec<_>>(),
        PERCENTILES.to_vec()
    );
    for m in ["ttft_p50", "ttft_p90", "ttft_p99"] {
        assert!(
            close(num(&c, m), prefill, 1e-9),
            "{m}: {} vs {prefill}",
            num(&c, m)
        );
    }
    for m in ["tpot_p50", "tpot_p99"] {
        assert!(close(num(&c, m), decode / 49.0, 1e-9), "{m}");
    }
    for m in ["e2e_mean", "e2e_p99"] {
        assert!(close(num(&c, m), prefill + decode, 1e-9), "{m}");
    }
    // Each gap is one decode step: between the first (context 1,001) and the last (1,049).
    let (first, last) = (
        step(&s, StepMix::decode(PhaseLoad::decode(1.0, 1001.0))),
        step(&s, StepMix::decode(PhaseLoad::decode(1.0, 1049.0))),
    );
    for m in ["itl_p50", "itl_p90", "itl_p99"] {
        let v = num(&c, m);
        assert!(
            v >= first * (1.0 - 1e-9) && v <= last * (1.0 + 1e-9),
            "{m}: {v}"
        );
    }
    let t = &get(&c, "ttft_p99").title;
    assert!(
        t.starts_with("99th percentile (nearest rank) time to first token"),
        "{t}"
    );
    assert!(t.contains("discarded as warm-up; seed 1)"), "{t}");
    assert!(t.contains("(10,000 run, the first 2,000 discarded"), "{t}");
    assert!(get(&c, "ttft_p99").text.starts_with("TTFT P99 "));
    // No service level: no goodput at it, and why.
    assert_eq!(get(&c, "goodput_qps_slo").value, "none");
}

/// The user's own engine (issue 43) times the simulated steps as the rest of the row reads it:
/// factors of 1.5 on every resource and no fixed time make a lone client's every step 1.5 × its
/// bound, so its TTFT and TPOT are 1.5 × the hand sums above; the title says whose steps.
#[test]
fn your_own_engine_times_the_steps() {
    let link = "?chip=h100&op=llm:prompt=1000,output=50,engine=trtllm,load=concurrency,c=1";
    let s = scenario(link);
    let prefill = step(&s, StepMix::prefill(PhaseLoad::prefill(1.0, 1000.0)));
    let decode: f64 = (1..50)
        .map(|g| {
            step(
                &s,
                StepMix::decode(PhaseLoad::decode(1.0, 1000.0 + g as f64)),
            )
        })
        .sum();
    let own = scenario(&format!("{link},engine=own:1.5:1.5:1.5:0"));
    let timing = serving_tails::PageSteps(FittedSteps::stored());
    let r = tails(&own.ops[0], &own.chips, 0, &own.options, &timing);
    let c = tails_cells(&own.ops[0], &r);
    assert!(close(num(&c, "ttft_p99"), 1.5 * prefill, 1e-9));
    assert!(close(num(&c, "tpot_p50"), 1.5 * decode / 49.0, 1e-9));
    assert!(
        get(&c, "ttft_p99").title.contains("your own engine"),
        "{}",
        get(&c, "ttft_p99").title
    );
}

/// One request at a time (`max_seqs=1`), outputs of 16, Poisson arrivals at ρ = 0.5: an M/D/1
/// queue with service D = TTFT₀ + Σ 15 decode steps (written out from the step model), so the
/// mean E2E is D + λD²/(2(1 − λD)) = 1.5 D (Pollaczek–Khinchine); the row's run is within 5 %.
/// Every TTFT is at least the prefill's, and P50 ≤ P90 ≤ P99.
#[test]
fn one_at_a_time_is_md1_in_the_cells() {
    let base = "?chip=h100&op=llm:prompt=512,output=16,max_seqs=1,engine=vllm,load=rate";
    let s = scenario(&format!("{base},qps=1"));
    let ttft0 = step(&s, StepMix::prefill(PhaseLoad::prefill(1.0, 512.0)));
    let decode: f64 = (1..16)
        .map(|g| {
            step(
                &s,
                StepMix::decode(PhaseLoad::decode(1.0, 512.0 + g as f64)),
            )
        })
        .sum();
    let d = ttft0 + decode;
    let lambda = 0.5 / d;
    let c = cells(&format!("{base},qps={lambda}"));
    let want = d + lambda * d * d / (2.0 * (1.0 - lambda * d));
    let e2e = num(&c, "e2e_mean");
    assert!(close(e2e, want, 0.05), "E2E mean {e2e} vs M/D/1 {want}");
    assert!(num(&c, "ttft_p50") >= ttft0 * (1.0 - 1e-9));
    for p in ["ttft", "itl", "tpot"] {
        let (a, b, c3) = (
            num(&c, &format!("{p}_p50")),
            num(&c, &format!("{p}_p90")),
            num(&c, &format!("{p}_p99")),
        );
        assert!(a <= b && b <= c3, "{p}: {a} {b} {c3}");
    }
    // Past saturation (1/D), no percentile holds: each says where it saturates.
    let c = cells(&format!("{base},qps={}", 2.0 / d));
    assert_eq!(get(&c, "ttft_p99").value, "none");
    assert!(get(&c, "ttft_p99").title.starts_with("saturates at"));
}

/// A lone request on `1P1D`: its TTFT is its prefill step plus the prompt's KV over the
/// default network at 50 GB/s (1,000 tokens × 131,072 bytes, 2.62 ms); the row names the
/// ratio and which of aggregated and disaggregated serving wins, consistent with its two
/// figures per chip.
#[test]
fn disaggregated_cells() {
    let link =
        "?chip=h100&op=llm:prompt=1000,output=50,engine=trtllm,load=concurrency,c=1,disagg=1P1D";
    let s = scenario(link);
    let prefill = step(&s, StepMix::prefill(PhaseLoad::prefill(1.0, 1000.0)));
    let transfer = 1000.0 * 131_072.0 / 5e10;
    let c = cells(link);
    assert!(close(num(&c, "ttft_p50"), prefill + transfer, 1e-9));
    assert_eq!(get(&c, "best_disagg").value, "1P1D");
    let (d, a) = (num(&c, "disagg_per_chip"), num(&c, "aggregated_per_chip"));
    let wins = &get(&c, "disagg_wins").value;
    assert_eq!(
        wins,
        if d > a {
            "disaggregated"
        } else if a > d {
            "aggregated"
        } else {
            "neither"
        }
    );
    let sat = num(&c, "disagg_saturation_qps");
    assert!(close(
        sat,
        num(&c, "disagg_prefill_qps").min(num(&c, "disagg_decode_qps")),
        1e-12
    ));
    // auto names the ratio it found, and how it differs from part 8's.
    let c = cells(
        "?chip=h100&op=llm:prompt=1000,output=50,engine=trtllm,load=concurrency,c=8,disagg=auto",
    );
    let best = get(&c, "best_disagg");
    assert!(
        best.value.contains('P') && best.value.ends_with('D'),
        "{}",
        best.value
    );
    assert!(
        best.title.contains("part 8's prefill_decode_ratio"),
        "{}",
        best.title
    );
}

/// The KV tier's trade: prefixes of a 60 GB working set, 20 GB of host memory over PCIe; a
/// prefix of 1,000 tokens loads in 1,000 × 131,072 / 64 GB/s = 2.048 ms, faster than its
/// prefill: `loaded` (the title rounds it to 2.05 ms). Each figure with and without the tier.
#[test]
fn tier_cells() {
    let link = "?chip=h100&op=llm:prompt=2000,output=100,prefix_hit=0.5,load=concurrency,c=1,engine=vllm,prefix_set=60GB,kv_host=20GB";
    let c = cells(link);
    assert_eq!(get(&c, "kv_hit_source").value, "loaded");
    assert!(
        get(&c, "kv_hit_source")
            .title
            .contains("loading it over PCIe takes 2.05 ms"),
        "{}",
        get(&c, "kv_hit_source").title
    );
    for m in serving_tails::TIER
        .iter()
        .filter(|m| **m != "kv_hit_source")
    {
        let v = num(&c, m);
        assert!(v.is_finite() && v > 0.0, "{m}: {v}");
    }
}

/// Checks at the field, without a simulation: a host tier on a chip with no host link, a
/// `d_chip` the scenario lacks, a ratio whose workers do not fit (Llama 3.1-70B's 141 GB of
/// bf16 weights on one 80 GB H100). The worker's own error fills every cell with it.
#[test]
fn bad_input_is_refused_at_its_field() {
    let check = |link: &str| {
        let s = scenario(link);
        precheck(&s.ops[0], &s.chips, &s.options).map_err(|e| e.to_string())
    };
    let e = check("?chip=h100:pcie=none&op=llm:load=rate,qps=1,kv_host=64GiB").unwrap_err();
    assert!(
        e.starts_with("kv_host=") && e.contains("has no host link"),
        "{e}"
    );
    let e = check("?chip=h100&op=llm:load=rate,qps=1,disagg=1P1D,d_chip=2").unwrap_err();
    assert!(e.starts_with("d_chip=2: the scenario has 1 chip(s)"), "{e}");
    assert!(check("?chip=h100&op=llm:preset=llama3.1-70b,load=rate,qps=1,disagg=2P1D").is_err());
    assert!(check("?chip=h100&op=llm:load=rate,qps=1,kv_host=64GiB").is_ok());
    // Under load=batch nothing is simulated, nothing checked.
    assert!(check("?chip=h100:pcie=none&op=llm:kv_host=64GiB").is_ok());
    let c = cells("?chip=h100:pcie=none&op=llm:load=rate,qps=1,kv_host=64GiB");
    assert!(c
        .iter()
        .all(|c| c.value == "none" && c.title.contains("has no host link")));
}

/// The serving row under load carries the tails `pending` (and `data-sim` running), and an
/// answer fills them only for its own scenario: one for an older scenario changes nothing.
/// The answer's JSON reads back as sent.
#[test]
fn pending_then_done_for_its_own_scenario_only() {
    let link = "?chip=h100&op=llm:prompt=1000,output=50,engine=trtllm,load=concurrency,c=1";
    let s = scenario(link);
    let serving_of = |rows: &[Arc<ResultRow>]| rows[0].serving.as_deref().unwrap().clone();
    let mut rows: Vec<Arc<ResultRow>> = view::result_rows(&s).into_iter().map(Arc::new).collect();
    let before = serving_of(&rows);
    assert_eq!(sim_state(&before), Some("running"));
    let pending: Vec<&Cell> = before
        .cells
        .iter()
        .filter(|c| PERCENTILES.contains(&c.metric))
        .collect();
    assert_eq!(pending.len(), 12);
    assert!(pending.iter().all(|c| c.value == "pending"));
    assert_eq!(pending_cells(&s.ops[0]).len(), 12);

    let key = sim_key(&s).unwrap();
    let done = simulate(&key, &BoundSteps);
    let json = roofline_lab::json::to_string_pretty(&done).unwrap();
    assert_eq!(read(&json).unwrap(), done);

    // An answer for another scenario (c=2) is dropped.
    let other = sim_key(&scenario(&link.replace("c=1", "c=2"))).unwrap();
    assert_ne!(other, key);
    done.overlay(Some(&other), &mut rows);
    assert_eq!(serving_of(&rows), before);

    done.overlay(Some(&key), &mut rows);
    let after = serving_of(&rows);
    assert_eq!(sim_state(&after), Some("done"));
    let want = cells(link);
    for m in PERCENTILES {
        let c = after.cells.iter().find(|c| c.metric == m).unwrap();
        assert_eq!(c.value, get(&want, m).value, "{m}");
    }
    // The figures before the tails are the static row's, untouched.
    assert_eq!(
        after.cells[..before.cells.len() - 12],
        before.cells[..before.cells.len() - 12]
    );
    assert!(after
        .derivation()
        .iter()
        .any(|l| l.starts_with("Tails (P99 TTFT)")));

    // A static batch has no tails and no key.
    let batch = scenario("?chip=h100&op=llm:prompt=1000,output=50");
    assert_eq!(sim_key(&batch), None);
    let r = view::result_rows(&batch);
    assert_eq!(sim_state(r[0].serving.as_deref().unwrap()), None);
    // A worker that could not run: every tails cell says so.
    let f = SimDone::failed(&key, &s, "no simulation: it broke");
    assert!(f.rows[0]
        .cells
        .iter()
        .all(|c| c.value == "none" && c.title == "no simulation: it broke"));
}

/// A link drawn by the draw program (before the app) shows each tails cell it draws pending,
/// never a figure (a draw program that leaves a load's serving row to the app draws none).
#[test]
fn the_draw_program_shows_the_tails_pending() {
    let html = roofline_lab::first_view::Drawn::from_query(
        "?chip=h100&op=llm:prompt=1000,output=50,engine=trtllm,load=concurrency,c=1",
    )
    .expect("the link draws")
    .html();
    for m in PERCENTILES {
        let at = format!(r#"data-metric="{m}" data-value=""#);
        for (i, _) in html.match_indices(&at) {
            let value = &html[i + at.len()..];
            assert!(value.starts_with("pending\""), "{m} drawn as a figure");
        }
    }
}
