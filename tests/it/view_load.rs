//! Issue 40 in the view: the serving row under a load (`view::serving_load`). Under
//! `load=concurrency|rate` the row's headline figures are the load model's at that load, never
//! the static batch's; the bound's figures are those the golden file pins for the same links
//! (`crates/roofline/tests/golden_urls.txt`, the "Issue 40: serving under load" block), and
//! each is checked against a hand relation written out here (X·G, Little's law).
#![cfg(not(target_arch = "wasm32"))]

use crate::view_support;

use roofline_lab::view::{self, ResultRow};
use view_support::{cell, close, num};

fn serving_row(q: &str) -> ResultRow {
    let d = roofline::url::decode(q);
    assert!(d.notices.is_empty(), "{q}: {:?}", d.notices);
    let rows = view::result_rows(&d.scenario);
    rows[0].serving.as_deref().expect("a serving row").clone()
}

/// The worked example: Llama 3.1-70B, fp8, tp 8 on H200, vLLM, 64 clients, 1,024/1,024.
const WORKED: &str = "chip=h200&op=llm:preset=llama3.1-70b,tp=8,link=nvlink,w=fp8,x=fp8,\
                      prompt=1024,output=1024,load=concurrency,c=64,engine=vllm";

fn none_with(row: &ResultRow, metric: &str, words: &str) {
    let c = cell(row, metric);
    assert_eq!(c.value, "none", "{metric}: {c:?}");
    assert!(
        c.title.contains(words),
        "{metric}: {words:?} not in {:?}",
        c.title
    );
}

fn band_holds(row: &ResultRow, stem: &str) {
    let (lo, e, hi) = (
        num(row, &format!("{stem}_lo")),
        num(row, stem),
        num(row, &format!("{stem}_hi")),
    );
    assert!(lo <= e && e <= hi, "{stem}: {lo} ≤ {e} ≤ {hi}");
    for m in [stem.to_string(), format!("{stem}_lo"), format!("{stem}_hi")] {
        let b = cell(row, &m).basis.expect("an expected cell has a basis");
        assert!(["chip", "family", "pooled"].contains(&b), "{m}: {b}");
    }
}

/// Golden: TTFT 15.745957664 ms, TPOT 3.3959026369 ms, X = 18.339399707 req/s, 18,779.545
/// tok/s, N = 64 running, saturation 27.279924426 req/s. By hand: X·G = 18.3393997 × 1024 =
/// 18,779.55 tok/s, / 8 chips = 2,347.44; 1 / TPOT = 294.47 tok/s/seq; Little's law
/// X·(TTFT + (G − 1)·TPOT) = 18.3394 × (0.015746 + 1023 × 0.0033959) = 18.3394 × 3.48975 = 64.0
/// clients.
#[test]
fn a_concurrency_link_shows_the_load_figures() {
    let row = serving_row(WORKED);
    assert!(row.name.contains("c = 64 clients"), "{}", row.name);
    close(num(&row, "ttft"), 0.015745957664396792, 1e-9, "ttft");
    close(num(&row, "tpot"), 0.0033959026368587603, 1e-9, "tpot");
    close(num(&row, "requests_per_s"), 18.339399707365835, 1e-9, "X");
    close(num(&row, "tokens_per_s"), 18779.545300342616, 1e-9, "tok/s");
    close(num(&row, "running_batch"), 64.0, 1e-12, "N");
    close(num(&row, "saturation_qps"), 27.27992442647717, 1e-9, "sat");
    close(num(&row, "tokens_per_s"), 18.3393997 * 1024.0, 1e-8, "X·G");
    close(num(&row, "tokens_per_s_chip"), 2347.44, 1e-5, "per chip");
    close(num(&row, "tokens_per_s_seq"), 294.47, 1e-4, "1/TPOT");
    close(
        18.3394 * (0.015746 + 1023.0 * 0.0033959),
        64.0,
        1e-4,
        "Little by hand",
    );
    let little = num(&row, "requests_per_s") * (num(&row, "ttft") + 1023.0 * num(&row, "tpot"));
    close(little, 64.0, 1e-9, "Little's law in the row");
    assert!(cell(&row, "tpot").text.contains("at c = 64 clients"));
    // Expectations at the load, with their bands and basis.
    band_holds(&row, "ttft_expected");
    band_holds(&row, "tpot_expected");
    close(
        num(&row, "requests_per_s_expected") * 1024.0,
        num(&row, "tokens_per_s_expected"),
        1e-12,
        "expected X·G",
    );
    assert!(num(&row, "tpot_expected") > num(&row, "tpot"));
    none_with(&row, "goodput_qps", "ttft_max and tpot_max");
    assert_eq!(cell(&row, "engine").value, "vllm");
    assert_eq!(cell(&row, "engine").text, "engine vLLM");
    // The static batch's own figures describe a batch this link does not run.
    none_with(&row, "min_chips", "load=batch");
    none_with(&row, "prefill_decode_ratio", "load=batch");
    let d = row.derivation().join("\n");
    for words in [
        "X = N / (TTFT_e + g·TPOT) = 64 / (15.7 ms + 1023·3.4 ms) = 18.34 req/s",
        "TPOT = [(N − 1)·Σ_j t_j + (g − (N − 1)·m)·t_d] / g",
        "saturation = cap / (TTFT_e + g·TPOT) at N = cap = 27.28 req/s",
    ] {
        assert!(d.contains(words), "{words:?} not in\n{d}");
    }
}

/// Golden: Llama-3 8B on one H100, SGLang, 1e6 req/s: saturates at 32.485023838 req/s.
#[test]
fn a_rate_past_saturation_is_none_and_says_where_it_saturates() {
    let row = serving_row(
        "chip=h100&op=llm:preset=llama3-8b,prompt=1024,output=256,load=rate,qps=1e6,engine=sglang",
    );
    for m in [
        "ttft",
        "tpot",
        "tokens_per_s",
        "tokens_per_s_chip",
        "tokens_per_s_seq",
        "requests_per_s",
        "running_batch",
        "cost_per_mtok",
    ] {
        none_with(&row, m, "saturates at 32.49 req/s");
    }
    for m in ["ttft_expected", "tpot_expected_lo", "tokens_per_s_expected"] {
        none_with(&row, m, "saturates at 32.49 req/s");
        assert_eq!(cell(&row, m).basis, Some("none"));
    }
    close(num(&row, "saturation_qps"), 32.48502383759581, 1e-9, "sat");
    assert_eq!(
        cell(&row, "saturation_qps").text,
        "saturates at 32.49 req/s"
    );
    assert_eq!(cell(&row, "engine").value, "sglang");
}

/// Golden: Llama-3 8B on one H100, TensorRT-LLM, 5 req/s, half the prompt cached, ttft_max
/// 500 ms and tpot_max 20 ms: TTFT 10.590428 ms, TPOT 4.8422109 ms, N = 6.226771, saturation
/// 43.398498 req/s, goodput 42.757919 req/s. By hand: X·G = 5 × 256 = 1,280 tok/s; Little's
/// law N = 5 × (0.0105904 + 255 × 0.00484221) = 5 × 1.245354 = 6.22677.
#[test]
fn a_prefix_hit_and_a_goodput() {
    let q = "chip=h100&op=llm:preset=llama3-8b,prompt=1024,output=256,load=rate,qps=5,\
             engine=trtllm,prefix_hit=0.5,ttft_max=500,tpot_max=20";
    let row = serving_row(q);
    close(num(&row, "ttft"), 0.01059042825950532, 1e-9, "ttft");
    close(num(&row, "tpot"), 0.004842210869881246, 1e-9, "tpot");
    close(num(&row, "tokens_per_s"), 1280.0, 1e-12, "X·G");
    close(num(&row, "running_batch"), 6.22677, 1e-5, "N by hand");
    close(num(&row, "saturation_qps"), 43.398498388207024, 1e-9, "sat");
    close(num(&row, "goodput_qps"), 42.75791897114227, 1e-9, "goodput");
    assert!(num(&row, "goodput_qps") <= num(&row, "saturation_qps"));
    band_holds(&row, "ttft_expected");
    let d = row.derivation().join("\n");
    assert!(
        d.contains("512 of P = 1024 prompt tokens served from the cache"),
        "{d}"
    );
    // Without the hit the prompt's whole prefill is paid: a longer TTFT.
    let cold = serving_row(&q.replace("prefix_hit=0.5,", ""));
    assert!(num(&cold, "ttft") > 1.5 * num(&row, "ttft"));
}

/// Golden: 512 clients of Llama-3 8B on one H100 with vLLM: the KV pool holds 370, the rest
/// wait; X = the saturation 32.750931075 req/s.
#[test]
fn a_closed_loop_past_the_pool_says_who_waits() {
    let row = serving_row(
        "chip=h100&op=llm:preset=llama3-8b,prompt=1024,output=256,load=concurrency,c=512,engine=vllm",
    );
    close(num(&row, "running_batch"), 370.0, 1e-12, "N");
    close(num(&row, "requests_per_s"), 32.75093107509611, 1e-9, "X");
    close(num(&row, "ttft"), 4.404991987751859, 1e-9, "ttft");
    let d = row.derivation().join("\n");
    assert!(d.contains("370 of the c = 512 requests run at once"), "{d}");
}

/// Golden (issue 40's static block): Llama-3 8B, B = 32 on one H100 keeps its figures bit for
/// bit; saturation and goodput are `none` with the reason; the expectation's band and
/// requests/s = tokens/s / G (G = 512).
#[test]
fn a_static_batch_keeps_its_figures_and_names_its_engine() {
    let row = serving_row("chip=h100&op=llm:preset=llama3-8b,b=32");
    assert_eq!(num(&row, "ttft"), 0.9817115170676887);
    assert_eq!(num(&row, "tpot"), 0.007428011634626865);
    assert_eq!(num(&row, "requests_per_s"), 8.4140955984299);
    none_with(&row, "saturation_qps", "load=batch");
    none_with(&row, "goodput_qps", "load=batch");
    close(num(&row, "running_batch"), 32.0, 1e-12, "B");
    band_holds(&row, "tpot_expected");
    band_holds(&row, "ttft_expected");
    close(
        num(&row, "requests_per_s_expected"),
        num(&row, "tokens_per_s_expected") / 512.0,
        1e-12,
        "tok/s / G",
    );
    assert_eq!(cell(&row, "engine").value, "generic");
    assert!(!row.derivation().iter().any(|l| l.contains("No expected")));
    // An engine changes only the expectations under load=batch.
    let vllm = serving_row("chip=h100&op=llm:preset=llama3-8b,b=32,engine=vllm");
    for m in [
        "ttft",
        "tpot",
        "tokens_per_s",
        "requests_per_s",
        "max_batch",
    ] {
        assert_eq!(num(&vllm, m), num(&row, m), "{m}");
    }
    assert_ne!(num(&vllm, "tpot_expected"), num(&row, "tpot_expected"));
    band_holds(&vllm, "tpot_expected");
    assert_eq!(cell(&vllm, "engine").value, "vllm");
    assert!(cell(&vllm, "tpot_expected").title.contains("vLLM fit"));
}

/// SGLang runs prefill steps and decode steps apart; vLLM mixes them: the same load gives
/// another TPOT, and the row names the engine.
#[test]
fn an_engine_switch_changes_the_load_figures() {
    let v = serving_row(WORKED);
    let s = serving_row(&WORKED.replace("engine=vllm", "engine=sglang"));
    assert_eq!(cell(&s, "engine").text, "engine SGLang");
    assert_ne!(num(&s, "tpot"), num(&v, "tpot"));
    let d = s.derivation().join("\n");
    assert!(d.contains("prefill steps and decode steps apart"), "{d}");
}

/// Speculative decoding under load is refused with the core's message, never ignored: every
/// figure of the load `none`, no band left of the published set's.
#[test]
fn a_draft_under_load_is_refused_with_a_message() {
    let row = serving_row(
        "chip=h100&op=llm:preset=llama3-70b,tp=8,prompt=1024,output=256,load=concurrency,c=16,\
         draft=llama3-8b",
    );
    for m in [
        "ttft",
        "tpot",
        "requests_per_s",
        "tpot_expected",
        "tpot_expected_lo",
        "ttft_expected_hi",
        "saturation_qps",
        "tpot_spec",
    ] {
        none_with(&row, m, "speculative decoding under load");
    }
    assert_eq!(cell(&row, "engine").value, "generic");
}
