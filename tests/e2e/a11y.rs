//! End-to-end: axe-core (pinned in `./dev`, installed into `.tools/`) finds no accessibility
//! violation of any impact on the main page, with the Embed dialog open, on an LLM scenario, in
//! dark mode, at phone width and on `embed=1` (issue 17).
#![cfg(not(target_arch = "wasm32"))]

use e2e_harness::Browser;

async fn no_violations(b: &Browser, what: &str) {
    let v = b.axe().await;
    assert!(v.is_empty(), "{what}: axe found\n{}", v.join("\n"));
}

#[tokio::test(flavor = "current_thread")]
async fn axe_finds_nothing_on_the_page_in_any_state() {
    let b = Browser::start().await;
    b.open("/").await;
    no_violations(&b, "first page").await;
    b.click("button[data-action='embed']").await;
    b.wait_for("[role=dialog] textarea").await;
    no_violations(&b, "Embed dialog").await;
    b.click("button[data-action='close-embed']").await;
    b.click("button[data-menu='add-op']").await;
    b.wait_for("[data-menu-list='add-op']").await;
    no_violations(&b, "open menu").await;

    b.open("/?chip=h100&op=llm:phase=decode&plot=both&y=fraction&theme=dark")
        .await;
    b.wait_for("canvas[data-chart='roofline']").await;
    no_violations(&b, "LLM scenario, dark").await;

    b.viewport(Some((390, 844))).await;
    b.open("/").await;
    no_violations(&b, "phone width").await;
    b.viewport(None).await;

    b.open("/?embed=1&chip=tpu-v5e&op=matmul:d=4096,f=4096,x=bf16,w=int8")
        .await;
    b.wait_for("[data-embed='true']").await;
    no_violations(&b, "embed=1").await;
    b.open("/?embed=1&theme=dark&plot=roofline&chip=h100&op=matmul:b=64,d=8192,f=8192")
        .await;
    b.wait_for("[data-embed='true']").await;
    no_violations(&b, "embed=1, dark").await;
    b.close().await;
}

/// Issue 27: the page before its wasm runs (the front page drawn at build time, a link's
/// skeleton) is as accessible as the app, in both themes.
#[tokio::test(flavor = "current_thread")]
async fn axe_finds_nothing_on_the_page_before_the_app_runs() {
    let b = Browser::start().await;
    b.open_without_app("/").await;
    no_violations(&b, "static front page").await;
    b.open_without_app("/?theme=dark").await;
    no_violations(&b, "a link's skeleton, dark").await;
    b.open_without_app("/?embed=1").await;
    no_violations(&b, "an embed's skeleton").await;
    b.cdp(
        "Emulation.setEmulatedMedia",
        serde_json::json!({"features": [{"name": "prefers-color-scheme", "value": "dark"}]}),
    )
    .await;
    b.open_without_app("/").await;
    no_violations(&b, "static front page, dark").await;
    b.allow_wasm().await;
    b.close().await;
}
