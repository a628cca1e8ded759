//! End-to-end: speculative decoding and a latency bound (issue 13, "Serving"), in headless
//! Chromium against `dist/`: a link with `draft=`, `spec_k=`, `accept=` and `tpot_max=` puts
//! `tpot_spec` and a bounded `min_chips` in the serving row through the `data-metric` contract,
//! the fields sit in the `llm` card's open "more fields", and a bad acceptance rate is named
//! next to its field, leaving the figures as they were.
#![cfg(not(target_arch = "wasm32"))]

use e2e_harness::{close_to, num, Browser};

#[tokio::test(flavor = "current_thread")]
async fn a_speculative_link_shows_tpot_spec_and_a_bounded_min_chips() {
    // LLaMA 3-70B int8 on a TPU v5e 4x2 at B = 32 and 8k, drafted by LLaMA 3-8B with k = 4,
    // α = 0.8: tpot_spec = (4 · 3.8136 ms + 22.480 ms) / 3.3616 = 11.225 ms (each step written
    // out in crates/roofline/tests/speculative.rs). applied-inference.md: 17 ms per step on a
    // 4x2, "17 / 2 = 8.5ms" on a 4x4: under tpot_max=10 the smallest topology is 16 chips.
    let q = "/?chip=tpu-v5e&op=llm:preset=llama3-70b,w=int8,x=int8,kv=int8,tp=8,b=32,prompt=7680,output=512,draft=llama3-8b,spec_k=4,accept=0.8,tpot_max=10";
    let b = Browser::start().await;
    b.open(q).await;
    let s = b.row_metrics("0.serving", 0).await;
    let spec = num(&s, "tpot_spec");
    assert!(close_to(spec, 11.225e-3, 1e-4), "{s:?}");
    assert!(close_to(
        num(&s, "spec_speedup"),
        num(&s, "tpot") / spec,
        1e-12
    ));
    assert_eq!(num(&s, "min_chips"), 16.0);
    let title = b
        .js("return document.querySelector(\"tr[data-op='0.serving'] [data-metric='min_chips']\").closest('[title]').getAttribute('title')")
        .await;
    assert!(
        title.as_str().unwrap_or("").contains("tpot_max = 10 ms"),
        "{title}"
    );
    // The fields are in the card, its fold open, and the link keeps them.
    let draft = b
        .js("return document.querySelector(\".card[data-op='0'] select[name='draft']\").value")
        .await;
    assert_eq!(draft.as_str(), Some("llama3-8b"));
    let fold = b
        .js("const d = document.querySelector(\".card[data-op='0'] input[name='accept']\").closest('details.more-fields'); return d ? (d.open ? 'open' : 'closed') : 'shown';")
        .await;
    assert_eq!(
        fold.as_str(),
        Some("open"),
        "the speculation fields are in the open fold"
    );
    let search = b.settled_search().await;
    assert!(search.contains("draft=llama3-8b,tpot_max=10"), "{search}");

    // A bad rate: named next to the field, marked invalid, the figures unchanged.
    let accept = ".card[data-op='0'] input[name='accept']";
    b.set_input(accept, "1.5").await;
    let (msg, invalid) = b.field_message(accept).await;
    assert!(
        msg.contains("accept=1.5: must be an acceptance rate (a number from 0 to 1)"),
        "{msg:?}"
    );
    assert!(invalid);
    let after = b.row_metrics("0.serving", 0).await;
    assert_eq!(after.get("tpot_spec"), s.get("tpot_spec"));
    // A good one: α = 0.5 gives E = 1 + 0.5 + … + 0.5⁴ = 1.9375 tokens per step, so
    // tpot_spec = 37.734 ms / 1.9375 = 19.476 ms, slower than plain decoding.
    b.set_input(accept, "0.5").await;
    let (msg, _) = b.field_message(accept).await;
    assert_eq!(msg, "");
    let s = b.row_metrics("0.serving", 0).await;
    assert!(
        close_to(num(&s, "tpot_spec"), spec * 3.3616 / 1.9375, 1e-9),
        "{s:?}"
    );
    assert!(num(&s, "spec_speedup") < 1.0);
    // No draft: none, with the reason.
    b.js("const s = document.querySelector(\".card[data-op='0'] select[name='draft']\"); s.value = 'none'; s.dispatchEvent(new Event('change', {bubbles: true}));").await;
    let s = b.row_metrics("0.serving", 0).await;
    assert_eq!(
        s.get("tpot_spec").map(String::as_str),
        Some("none"),
        "{s:?}"
    );
    assert!(b.console_errors().await.is_empty());
    b.close().await;
}
