//! End-to-end: serving under load in the page (issue 40), in headless Chromium against
//! `dist/`. A `load=concurrency` link's serving row shows the load model's figures at that load
//! (the golden file's issue 40 block gives the bound's numbers), with its expectations, bands,
//! basis, running batch, saturation, goodput and engine, at a desktop's and a phone's width; a
//! rate past saturation shows `none` and where it saturates; an engine switch and a prefix hit
//! change the figures and the link; bad input at `c`, `qps`, `prefix_hit` and `chunk` is named
//! next to its field and keeps the last good figures and plot. With `engine=own:…` (issue 43)
//! the row's expectation and the load plot's "my engine" curve are the user's own engine's.
#![cfg(not(target_arch = "wasm32"))]

use e2e_harness::{close_to, num, Browser};

/// The worked example: Llama 3.1-70B, fp8, tp 8 on H200, vLLM, 64 clients, 1,024/1,024.
const WORKED: &str = "/?chip=h200&op=llm:preset=llama3.1-70b,tp=8,link=nvlink,w=fp8,x=fp8,prompt=1024,output=1024,load=concurrency,c=64,engine=vllm";

fn card(name: &str) -> String {
    format!(".card[data-op='0'] [name='{name}']")
}

async fn attr(b: &Browser, metric: &str, what: &str) -> String {
    b.js(&format!(
        "const e = document.querySelector(\"tr[data-op='0.serving'] [data-metric='{metric}']\"); return e ? (e.getAttribute('{what}') || e.closest('[title]')?.getAttribute('{what}') || '') : 'missing'"
    ))
    .await
    .as_str()
    .unwrap_or_default()
    .to_string()
}

/// Golden: TTFT 15.745957664 ms, TPOT 3.3959026369 ms, X = 18.339399707 req/s (X·G = 18,779.5
/// tok/s), N = 64, saturation 27.279924426 req/s. Little's law by hand: 18.3394 × (0.015746 +
/// 1023 × 0.0033959) = 64.0.
#[tokio::test(flavor = "current_thread")]
async fn a_concurrency_link_shows_the_figures_at_its_load_on_desktop_and_phone() {
    let b = Browser::start().await;
    for size in [None, Some((390, 844))] {
        b.viewport(size).await;
        b.open(WORKED).await;
        b.wait_for("tr[data-op='0.serving'] [data-metric='running_batch']")
            .await;
        let s = b.row_metrics("0.serving", 0).await;
        assert!(
            close_to(num(&s, "ttft"), 0.015745957664396792, 1e-9),
            "{s:?}"
        );
        assert!(
            close_to(num(&s, "tpot"), 0.0033959026368587603, 1e-9),
            "{s:?}"
        );
        assert!(close_to(
            num(&s, "requests_per_s"),
            18.339399707365835,
            1e-9
        ));
        assert!(close_to(num(&s, "tokens_per_s"), 18.3393997 * 1024.0, 1e-8));
        assert!(close_to(num(&s, "running_batch"), 64.0, 1e-12));
        assert!(close_to(num(&s, "saturation_qps"), 27.27992442647717, 1e-9));
        assert_eq!(s.get("goodput_qps").map(String::as_str), Some("none"));
        assert_eq!(s.get("engine").map(String::as_str), Some("vllm"));
        let (lo, e, hi) = (
            num(&s, "tpot_expected_lo"),
            num(&s, "tpot_expected"),
            num(&s, "tpot_expected_hi"),
        );
        assert!(lo <= e && e <= hi, "{lo} {e} {hi}");
        assert!(close_to(
            num(&s, "requests_per_s_expected") * 1024.0,
            num(&s, "tokens_per_s_expected"),
            1e-9
        ));
        for m in ["ttft_expected", "tpot_expected", "requests_per_s_expected"] {
            let basis = attr(&b, m, "data-basis").await;
            assert!(
                ["chip", "family", "pooled"].contains(&basis.as_str()),
                "{m}: {basis}"
            );
        }
        assert!(attr(&b, "goodput_qps", "title")
            .await
            .contains("ttft_max and tpot_max"));
        // Nothing scrolls sideways, and the row's load figures are on screen when scrolled to.
        let overflow = b
            .js("const e = document.documentElement; return [e.scrollWidth, e.clientWidth]")
            .await;
        assert!(
            overflow[0].as_f64() <= overflow[1].as_f64(),
            "{size:?}: {overflow}"
        );
        let inside = b
            .js("const e = document.querySelector(\"tr[data-op='0.serving'] [data-metric='saturation_qps']\"); e.scrollIntoView(); const r = e.getBoundingClientRect(); return r.width > 0 && r.right <= document.documentElement.clientWidth")
            .await;
        assert_eq!(inside.as_bool(), Some(true), "{size:?}");
    }
    b.viewport(None).await;
    b.open(WORKED).await;
    let d = b.derivation("0.serving").await;
    for words in [
        "X = N / (TTFT_e + g·TPOT) = 64 / (15.7 ms + 1023·3.4 ms) = 18.34 req/s",
        "saturation = cap / (TTFT_e + g·TPOT) at N = cap = 27.28 req/s",
    ] {
        assert!(d.contains(words), "{words:?} not in {d}");
    }
    b.screenshot("load-row").await;
    // The row's new cells and bands keep the page accessible.
    let violations = b.axe().await;
    assert!(violations.is_empty(), "{violations:#?}");
    assert!(b.console_errors().await.is_empty());
    b.close().await;
}

/// Golden: Llama-3 8B on one H100, SGLang, 1e6 req/s: saturates at 32.485023838 req/s.
#[tokio::test(flavor = "current_thread")]
async fn a_rate_past_saturation_shows_none_and_where_it_saturates() {
    let b = Browser::start().await;
    for size in [None, Some((390, 844))] {
        b.viewport(size).await;
        b.open("/?chip=h100&op=llm:preset=llama3-8b,prompt=1024,output=256,load=rate,qps=1e6,engine=sglang")
            .await;
        b.wait_for("tr[data-op='0.serving'] [data-metric='saturation_qps']")
            .await;
        let s = b.row_metrics("0.serving", 0).await;
        for m in [
            "ttft",
            "tpot",
            "tokens_per_s",
            "requests_per_s",
            "tpot_expected",
        ] {
            assert_eq!(s.get(m).map(String::as_str), Some("none"), "{m}: {s:?}");
        }
        assert!(close_to(num(&s, "saturation_qps"), 32.48502383759581, 1e-9));
        assert!(attr(&b, "ttft", "title")
            .await
            .contains("saturates at 32.49 req/s"));
        let text = b
            .text("tr[data-op='0.serving'] [data-metric='saturation_qps']")
            .await;
        assert_eq!(text, "saturates at 32.49 req/s");
    }
    assert!(b.console_errors().await.is_empty());
    b.close().await;
}

/// An engine switch in the card: SGLang runs prompts in steps of their own, so TPOT moves and
/// the row and link name it. A prefix hit of half the prompt shortens TTFT.
#[tokio::test(flavor = "current_thread")]
async fn an_engine_switch_and_a_prefix_hit_change_the_row_and_the_link() {
    let b = Browser::start().await;
    b.open(WORKED).await;
    b.wait_for("tr[data-op='0.serving'] [data-metric='engine']")
        .await;
    let vllm = b.row_metrics("0.serving", 0).await;
    b.js(&format!(
        "const s = document.querySelector(\"{}\"); s.value = 'sglang'; s.dispatchEvent(new Event('change', {{bubbles: true}}));",
        card("engine")
    ))
    .await;
    let search = b.settled_search().await;
    assert!(search.contains("engine=sglang"), "{search}");
    let sglang = b.row_metrics("0.serving", 0).await;
    assert_eq!(sglang.get("engine").map(String::as_str), Some("sglang"));
    assert_ne!(sglang.get("tpot"), vllm.get("tpot"));
    assert!(b
        .text("tr[data-op='0.serving'] [data-metric='engine']")
        .await
        .contains("SGLang"));
    b.set_input(&card("prefix_hit"), "0.5").await;
    let search = b.settled_search().await;
    assert!(search.contains("prefix_hit=0.5"), "{search}");
    let hit = b.row_metrics("0.serving", 0).await;
    assert!(num(&hit, "ttft") < num(&sglang, "ttft"), "{hit:?}");
    let d = b.derivation("0.serving").await;
    assert!(
        d.contains("512 of P = 1024 prompt tokens served from the cache"),
        "{d}"
    );
    assert!(b.console_errors().await.is_empty());
    b.close().await;
}

/// Bad input at the load fields: the message at the field, marked invalid, the figures and the
/// plot as they were; a good value afterwards is taken.
#[tokio::test(flavor = "current_thread")]
async fn bad_load_fields_are_named_at_the_field_and_keep_the_last_good_plot() {
    let b = Browser::start().await;
    b.open(WORKED).await;
    b.wait_for("canvas[data-chart]").await;
    // The row as it settles: its simulated tails (issue 42) answered by the worker.
    const DONE: &str = "tr[data-op='0.serving'][data-sim='done']";
    b.wait_for(DONE).await;
    let before = b.row_metrics("0.serving", 0).await;
    let plot = b.canvas_hash("canvas[data-chart]").await;
    for (field, bad, words) in [
        ("c", "0", "c=0"),
        ("c", "2.5", "c=2.5"),
        ("c", "1e8", "c=1e8"),
        ("qps", "-1", "qps=-1"),
        ("qps", "NaN", "qps=NaN"),
        ("prefix_hit", "1.5", "prefix_hit=1.5"),
        ("chunk", "0", "chunk=0"),
        ("chunk", "abc", "chunk=abc"),
    ] {
        let css = card(field);
        b.set_input(&css, bad).await;
        let (msg, invalid) = b.field_message(&css).await;
        assert!(msg.contains(words), "{field}={bad}: {msg:?}");
        assert!(invalid, "{field}={bad}: not marked invalid");
        b.wait_for(DONE).await;
        assert_eq!(b.row_metrics("0.serving", 0).await, before, "{field}={bad}");
        assert_eq!(
            b.canvas_hash("canvas[data-chart]").await,
            plot,
            "{field}={bad}"
        );
        let search = b.settled_search().await;
        assert!(search.contains("c=64"), "{field}={bad}: {search}");
        // Back to a good value before the next.
        let good = match field {
            "c" => "64",
            "qps" => "1",
            "prefix_hit" => "0",
            _ => "auto",
        };
        b.set_input(&css, good).await;
        assert_eq!(b.field_message(&css).await.0, "", "{field}={good}");
    }
    // A good c is taken: 32 clients, another running batch.
    b.set_input(&card("c"), "32").await;
    let s = b.row_metrics("0.serving", 0).await;
    assert!(close_to(num(&s, "running_batch"), 32.0, 1e-12), "{s:?}");
    assert!(b.console_errors().await.is_empty());
    b.close().await;
}

/// The draw program (a link's view before the app) never shows the static batch's figures for
/// a link that asks for a load: it leaves that serving row to the app, which then shows it; a
/// static batch's row it draws as the app does.
#[tokio::test(flavor = "current_thread")]
async fn before_the_app_a_load_link_shows_no_static_serving_figures() {
    let b = Browser::start().await;
    let rows = "return document.querySelector('[data-drawn-view] table.results-table') ? document.querySelectorAll('[data-drawn-view] tr.serving-row').length : -1";
    for (path, serving) in [(WORKED, 0), ("/?chip=h100&op=llm:preset=llama3-8b,b=32", 1)] {
        b.open_blocking(path, &["*/roofline-lab-*.wasm"]).await;
        let mut n = serde_json::Value::Null;
        for _ in 0..250 {
            n = b.js(rows).await;
            if n.as_i64().is_some_and(|n| n >= 0) {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(40)).await;
        }
        assert_eq!(n.as_i64(), Some(serving), "{path}: drawn serving rows");
        b.allow_wasm().await;
        let _ = b.console_errors().await;
    }
    b.open(WORKED).await;
    let s = b.row_metrics("0.serving", 0).await;
    assert!(
        close_to(num(&s, "ttft"), 0.015745957664396792, 1e-9),
        "{s:?}"
    );
    b.close().await;
}

/// "My engine" under a load (issue 43): a link with `engine=own:1:1.5:1:0` at one client on
/// the H100 (Llama 3 8B, 1,024/256) shows the row's expected cells with `data-basis="own"`,
/// the expected TPOT 1.5 × the bound's 4.527433 ms (one decode step per token, every part
/// memory-bound: by hand ≈ 15.16 GB / 3.35e12 B/s = 4.525 ms; the golden file pins it), no
/// band and why, not the generic fit's figure; the load plot's legend names "my engine (fit
/// from your trace)" beside the published engines; at a desktop's and a phone's width.
#[tokio::test(flavor = "current_thread")]
async fn my_engine_under_a_load_gives_the_rows_expectation_and_the_plots_curve() {
    const MINE: &str = "/?chip=h100&op=llm:preset=llama3-8b,prompt=1024,output=256,load=concurrency,c=1,engine=own:1:1.5:1:0&plot=load";
    let b = Browser::start().await;
    b.open(&MINE.replace("own:1:1.5:1:0", "generic")).await;
    b.wait_for("tr[data-op='0.serving'] [data-metric='tpot_expected']")
        .await;
    let generic = b.row_metrics("0.serving", 0).await;
    for size in [None, Some((390, 844))] {
        b.viewport(size).await;
        b.open(MINE).await;
        b.wait_for("tr[data-op='0.serving'] [data-metric='tpot_expected']")
            .await;
        let s = b.row_metrics("0.serving", 0).await;
        assert!(
            close_to(num(&s, "tpot"), 0.004527433055522388, 1e-9),
            "{s:?}"
        );
        assert!(
            close_to(num(&s, "tpot_expected"), 1.5 * 0.004527433055522388, 1e-9),
            "{size:?}: {s:?}"
        );
        assert_ne!(s.get("tpot_expected"), generic.get("tpot_expected"));
        for m in [
            "ttft_expected",
            "tpot_expected",
            "tokens_per_s_expected",
            "requests_per_s_expected",
        ] {
            assert_eq!(attr(&b, m, "data-basis").await, "own", "{m} {size:?}");
        }
        assert_eq!(s.get("tpot_expected_lo").map(String::as_str), Some("none"));
        assert!(attr(&b, "tpot_expected_lo", "title")
            .await
            .contains("not their standard errors"));
        assert!(attr(&b, "tpot_expected", "title")
            .await
            .contains("your engine's fit"));
        let legend = b
            .js("const e = document.querySelector(\"canvas[data-chart='load'][data-panel='tpot']\"); return e ? e.getAttribute('aria-label') : ''")
            .await;
        let legend = legend.as_str().unwrap_or_default();
        assert!(
            legend.contains("my engine (fit from your trace)") && legend.contains("SGLang"),
            "{size:?}: {legend}"
        );
        let overflow = b
            .js("const e = document.documentElement; return [e.scrollWidth, e.clientWidth]")
            .await;
        assert!(
            overflow[0].as_f64() <= overflow[1].as_f64(),
            "{size:?}: {overflow}"
        );
        let w = size.map_or(1280, |(w, _)| w);
        b.screenshot(&format!("load-my-engine-{w}")).await;
    }
    b.viewport(None).await;
    let violations = b.axe().await;
    assert!(violations.is_empty(), "{violations:#?}");
    assert!(b.console_errors().await.is_empty());
    b.close().await;
}
