//! End-to-end: the serving row's tails (issue 42) in headless Chromium against `dist/`. The
//! simulation runs in its Web Worker (`sim-worker.js`, fetched when a serving row first runs
//! under load); the page's figures are the core's for the same link, run natively here with
//! the same stored fits (`view::serving_tails::simulate`, whose hand checks are in
//! `tests/it/serving_tails.rs`): a P99 link, an edit while it runs (the older scenario's
//! answer dropped), a disaggregated link with its best ratio, a KV tier link, a host tier on a
//! chip with no host link refused at its field, and the draw program's view with the tails
//! pending.
#![cfg(not(target_arch = "wasm32"))]

use std::collections::HashMap;

use e2e_harness::{close_to, Browser, Options};
use roofline::validation::load::steps::FittedSteps;
use roofline_lab::view::serving_tails::{self, sim_key, simulate};

/// The tails cells the core gives the link's first op on its first chip: metric → value.
fn native(link: &str) -> HashMap<String, String> {
    let s = roofline::url::decode(link).scenario;
    let key = sim_key(&s).expect("a serving row under load");
    let done = simulate(&key, &FittedSteps::stored());
    done.rows[0]
        .cells
        .iter()
        .map(|c| (c.metric.clone(), c.value.clone()))
        .collect()
}

/// The serving row's figures once its simulation is done.
async fn done_row(b: &Browser) -> HashMap<String, String> {
    b.wait_for("tr[data-op='0.serving'][data-sim='done']").await;
    b.row_metrics("0.serving", 0).await
}

/// Each tails figure of the page equals the core's for the link (to 1e-9: the wasm's
/// transcendental functions may differ from the native ones in a last digit); words equal.
fn same(page: &HashMap<String, String>, want: &HashMap<String, String>) {
    assert!(!want.is_empty());
    for (m, v) in want {
        let got = page
            .get(m)
            .unwrap_or_else(|| panic!("{m} missing in the page"));
        match (got.parse::<f64>(), v.parse::<f64>()) {
            (Ok(a), Ok(b)) => assert!(close_to(a, b, 1e-9), "{m}: page {a} vs core {b}"),
            _ => assert_eq!(got, v, "{m}"),
        }
    }
}

const P99: &str = "/?chip=h100&op=llm:preset=llama3-8b,prompt=1000,output=200,engine=vllm,load=concurrency,c=16,output_cv=0.5";

#[tokio::test(flavor = "current_thread")]
async fn a_p99_link_is_simulated_in_its_worker() {
    let b = Browser::start_with(Options { network_log: true }).await;
    b.network_requests().await;
    b.open(P99).await;
    let page = done_row(&b).await;
    let want = native(P99);
    same(&page, &want);
    for p in ["ttft", "itl", "tpot"] {
        let v: Vec<f64> = ["p50", "p90", "p99"]
            .iter()
            .map(|q| page[&format!("{p}_{q}")].parse().unwrap())
            .collect();
        assert!(v[0] > 0.0 && v[0] <= v[1] && v[1] <= v[2], "{p}: {v:?}");
    }
    // Off the page's thread: the simulation's worker and wasm were fetched.
    let reqs: Vec<String> = b
        .network_requests()
        .await
        .into_iter()
        .map(|r| r.url)
        .collect();
    assert!(
        reqs.iter().any(|u| u.contains("/sim-worker.js?js=sim-"))
            && reqs
                .iter()
                .any(|u| u.contains("/sim-") && u.ends_with("_bg.wasm")),
        "{reqs:#?}"
    );
    // Its derivation names the count, the warm-up and the seed.
    b.click("tr[data-op='0.serving'] .row-toggle").await;
    let d = b.text("[data-derivation='0.serving']").await;
    assert!(d.contains("discarded as warm-up; seed 1)"), "{d}");

    // An edit: the row goes pending, then shows the new scenario's figures only, from the
    // same worker (idle, it takes the next scenario without starting again).
    b.set_input("[data-op='0'] input[name='c']", "4").await;
    let page = done_row(&b).await;
    same(&page, &native(&P99.replace("c=16", "c=4")));
    let again: Vec<String> = b
        .network_requests()
        .await
        .into_iter()
        .map(|r| r.url)
        .collect();
    assert!(
        !again.iter().any(|u| u.contains("/sim-worker.js")),
        "{again:#?}"
    );
    b.close().await;
}

#[tokio::test(flavor = "current_thread")]
async fn disaggregated_and_kv_tier_links() {
    let b = Browser::start().await;
    let disagg = "/?chip=h100&op=llm:preset=llama3-8b,prompt=2000,output=100,engine=trtllm,load=concurrency,c=16,disagg=auto";
    b.open(disagg).await;
    let page = done_row(&b).await;
    same(&page, &native(disagg));
    let best = &page["best_disagg"];
    assert!(best.contains('P') && best.ends_with('D'), "{best}");
    assert!(["disaggregated", "aggregated", "neither"].contains(&page["disagg_wins"].as_str()));

    let tier = "/?chip=h100&op=llm:preset=llama3-8b,prompt=2000,output=100,prefix_hit=0.5,load=concurrency,c=4,engine=vllm,prefix_set=60GB,kv_host=20GB";
    b.open(tier).await;
    let page = done_row(&b).await;
    same(&page, &native(tier));
    assert_eq!(page["kv_hit_source"], "loaded");
    for m in serving_tails::TIER {
        assert!(page.contains_key(m), "{m}");
    }

    // A host tier on a chip with no host link: the message at the field, the link unchanged.
    let no_link = "/?chip=h100:pcie=none&op=llm:preset=llama3-8b,load=rate,qps=1";
    b.open(no_link).await;
    done_row(&b).await;
    let before = b.settled_search().await;
    b.set_input("[data-op='0'] input[name='kv_host']", "64GiB")
        .await;
    let (msg, invalid) = b.field_message("[data-op='0'] input[name='kv_host']").await;
    assert!(invalid && msg.contains("has no host link"), "{msg}");
    assert_eq!(b.settled_search().await, before);
    b.close().await;
}

/// The draw program's view of a link (the app's wasm blocked): no tails figure, each tails
/// cell it draws `pending` (a draw program that leaves a load's serving row to the app, as
/// issue 40's does, draws none at all).
#[tokio::test(flavor = "current_thread")]
async fn the_drawn_view_shows_the_tails_pending() {
    let b = Browser::start().await;
    b.open_blocking(P99, &["*/roofline-lab-*.wasm"]).await;
    let drawn = b
        .js(
            r#"return [...document.querySelectorAll('[data-static-view] [data-metric]')]
            .filter(e => /^(ttft_p|itl_p|tpot_p|e2e_|goodput_qps_slo)/.test(e.dataset.metric))
            .map(e => e.dataset.value);"#,
        )
        .await;
    let drawn = drawn.as_array().unwrap();
    assert!(drawn.iter().all(|v| v == "pending"), "{drawn:?}");
    b.allow_wasm().await;
    b.close().await;
}

/// At a phone's width the serving row's tails wrap inside the screen and pass axe-core; at a
/// desktop's the row shows them beside the static figures (docs/screenshots/tails-*.png).
#[tokio::test(flavor = "current_thread")]
async fn the_tails_fit_a_phone() {
    let b = Browser::start().await;
    for (w, h, name) in [(390, 844, "tails-390x844"), (1400, 1000, "tails-1400x1000")] {
        b.client.set_window_size(w, h).await.unwrap();
        b.open(P99).await;
        done_row(&b).await;
        let fits = b
            .js(r#"const w = document.documentElement.clientWidth;
            return [...document.querySelectorAll("tr[data-op='0.serving'] [data-metric]")]
              .map(e => [e.dataset.metric, e.getBoundingClientRect().right, w]);"#)
            .await;
        let cells = fits.as_array().unwrap();
        assert!(cells.len() >= 12, "{fits}");
        for c in cells {
            let (right, width) = (c[1].as_f64().unwrap(), c[2].as_f64().unwrap());
            assert!(right <= width + 0.5, "{} overflows {w} px: {fits}", c[0]);
        }
        let v = b.axe().await;
        assert!(v.is_empty(), "axe found\n{}", v.join("\n"));
        b.js("document.querySelector(\"tr[data-op='0.serving'] [data-metric='ttft_p99']\").scrollIntoView({block: 'center'})")
            .await;
        b.screenshot(name).await;
    }
    assert!(b.console_errors().await.is_empty());
    b.close().await;
}
