//! End-to-end robustness: every kind of field takes every kind of bad input and the page stays
//! whole (a message next to the field, the last good plot and results, no console errors), and
//! a panic shows the error panel with a working "Reset scenario" instead of a dead page.
#![cfg(not(target_arch = "wasm32"))]

use e2e_harness::{close_to, num, Browser};
use serde_json::Value;

/// Both plots, a matmul on the first card and a custom op (its `bytes` is a real-valued field)
/// on the second.
const PAGE: &str = "/?chip=tpu-v5e&op=matmul:d=4096,f=4096,x=bf16,w=int8\
    &op=custom:flops=1e12,bytes=1e9&plot=both";

const MARKUP: &str = "<img src=x onerror=window.__pwned=1><script>window.__pwned=2</script>";

/// The inputs every field gets: (what, text).
fn bad_inputs() -> Vec<(&'static str, String)> {
    vec![
        ("empty", String::new()),
        ("zero", "0".into()),
        ("negative", "-1".into()),
        ("NaN", "NaN".into()),
        ("inf", "inf".into()),
        ("overflow", "1e309".into()),
        ("subnormal", "1e-320".into()),
        ("letters", "abc".into()),
        ("10,000 characters", "1".repeat(10_000)),
        ("pasted markup", MARKUP.into()),
    ]
}

/// Everything that shows the scenario: every canvas's pixels and every result figure.
async fn page_state(b: &Browser) -> Value {
    b.js(r#"const out = {};
        document.querySelectorAll('canvas[data-chart]').forEach(c => {
          const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
          let h = 2166136261;
          for (let i = 0; i < d.length; i += 7) { h ^= d[i]; h = Math.imul(h, 16777619) >>> 0; }
          out['canvas ' + c.dataset.chart] = c.width + 'x' + c.height + ':' + h;
        });
        document.querySelectorAll('[data-metric]').forEach((e, i) => out['metric ' + i] = e.dataset.value);
        out.keyline = document.querySelector('[data-keyline]').textContent;
        return out;"#)
        .await
}

/// The message next to the field `css` and its aria-invalid.
async fn field_message(b: &Browser, css: &str) -> (String, String) {
    let v = b
        .js(&format!(
            r#"const e = document.querySelector({css:?});
            const m = e.closest('.field').querySelector('.msg');
            return [m.textContent, e.getAttribute('aria-invalid') || ''];"#
        ))
        .await;
    (
        v[0].as_str().unwrap_or_default().to_string(),
        v[1].as_str().unwrap_or_default().to_string(),
    )
}

/// No element came from typed or linked markup and nothing it carried ran.
async fn no_markup_ran(b: &Browser, ctx: &str) {
    let v = b
        .js("return [document.querySelectorAll('img').length, window.__pwned === undefined, [...document.scripts].filter(s => !s.src).length]")
        .await;
    assert_eq!(
        v,
        serde_json::json!([0, true, 0]),
        "{ctx}: markup became DOM"
    );
}

/// Feeds every bad input to the field `css`. An input named in `accepted` is valid text for
/// this field (labels, names): it must be taken without a message and shown literally in the
/// card's title. Every other input must get a message next to the field, be marked invalid and
/// leave the plots and results as they were. The field's value is restored at the end.
async fn batter(b: &Browser, css: &str, accepted: &[&str]) {
    let card = b
        .js(&format!(
            "const c = document.querySelector({css:?}).closest('.card'); return !c ? '' : c.dataset.op !== undefined ? \".card[data-op='\" + c.dataset.op + \"']\" : \".card[data-chip='\" + c.dataset.chip + \"']\";"
        ))
        .await;
    let card = card.as_str().unwrap_or_default().to_string();
    let original = b
        .js(&format!("return document.querySelector({css:?}).value"))
        .await;
    let original = original.as_str().unwrap().to_string();
    let initial = page_state(b).await;
    for (what, text) in bad_inputs() {
        let before = page_state(b).await;
        b.set_input(css, &text).await;
        let (msg, invalid) = field_message(b, css).await;
        let ctx = format!("{css} ← {what}");
        if accepted.contains(&what) {
            assert!(
                msg.is_empty() && invalid == "false",
                "{ctx}: valid text refused: {msg}"
            );
            if !text.trim().is_empty() {
                let title = b.text(&format!("{card} .title")).await;
                assert!(
                    title.contains(text.trim()),
                    "{ctx}: the card title {title:?} does not show the text"
                );
            }
        } else {
            assert!(!msg.is_empty(), "{ctx}: no message next to the field");
            assert_eq!(invalid, "true", "{ctx}: not marked invalid");
            assert!(
                msg.chars().count() <= 300,
                "{ctx}: the message repeats the input ({} characters)",
                msg.chars().count()
            );
            assert!(
                !msg.contains("NaN") || what == "NaN",
                "{ctx}: message shows NaN: {msg}"
            );
            assert_eq!(
                page_state(b).await,
                before,
                "{ctx}: the plot or the results changed (message: {msg})"
            );
        }
        no_markup_ran(b, &ctx).await;
    }
    b.set_input(css, &original).await;
    let (msg, invalid) = field_message(b, css).await;
    assert!(
        msg.is_empty() && invalid == "false",
        "{css}: the original value {original:?} still shows {msg:?}"
    );
    assert_eq!(
        page_state(b).await,
        initial,
        "{css}: restoring {original:?} did not restore the page"
    );
}

/// Sets a `<select>` to a value it does not offer (as a script or a broken extension could),
/// expecting a message and an unchanged page, then back to `good`.
async fn batter_select(b: &Browser, css: &str, good: &str) {
    let before = page_state(b).await;
    b.js(&format!(
        r#"const e = document.querySelector({css:?});
        e.value = 'no-such-choice';
        e.dispatchEvent(new Event('change', {{bubbles: true}}));"#
    ))
    .await;
    let (msg, _) = field_message(b, css).await;
    assert!(!msg.is_empty(), "{css}: no message for an unknown choice");
    assert_eq!(page_state(b).await, before, "{css}: the page changed");
    b.set_input(css, good).await;
    let (msg, _) = field_message(b, css).await;
    assert!(msg.is_empty(), "{css}: {good:?} still shows {msg:?}");
    assert_eq!(page_state(b).await, before, "{css}: not restored");
}

#[tokio::test(flavor = "current_thread")]
async fn every_field_kind_refuses_bad_input_and_keeps_the_last_good_plot() {
    let b = Browser::start().await;
    b.record_csp_violations().await;
    b.open(PAGE).await;
    assert_eq!(
        b.js("return document.querySelectorAll('canvas[data-chart]').length")
            .await,
        2,
        "both plots are shown"
    );
    // Integer size of an operation.
    batter(&b, ".card[data-op='0'] input[name='d']", &[]).await;
    // Real-valued field of an operation (bytes of the custom op, 1 to 1e30).
    batter(&b, ".card[data-op='1'] input[name='bytes']", &[]).await;
    // A chip's bandwidth (units allowed: 8.2e11, 820G, 820 GB/s), its link count (integer).
    batter(&b, ".card[data-chip='0'] input[name='hbm']", &[]).await;
    batter(&b, ".card[data-chip='0'] input[name='links']", &[]).await;
    // Options: the achievable fraction and the sweep's range.
    batter(&b, "input[name='derate']", &[]).await;
    batter(&b, "input[name='sweep-from']", &[]).await;
    batter(&b, "input[name='sweep-to']", &[]).await;
    // Free text: an op label takes any text up to 80 characters, shown as text.
    let label_ok = [
        "empty",
        "zero",
        "negative",
        "NaN",
        "inf",
        "overflow",
        "subnormal",
        "letters",
    ];
    let mut label_ok = label_ok.to_vec();
    label_ok.push("pasted markup");
    batter(&b, ".card[data-op='0'] input[name='label']", &label_ok).await;
    // A chip name must be 1 to 80 characters.
    batter(
        &b,
        ".card[data-chip='0'] input[name='name']",
        &label_ok[1..],
    )
    .await;
    // Choices.
    batter_select(&b, ".card[data-op='0'] select[name='x']", "bf16").await;
    batter_select(&b, "select[name='flops']", "2mac").await;
    batter_select(&b, "select[name='sweep']", "b").await;
    batter_select(&b, "select[name='sweep-scale']", "linear").await;

    // The embed dialog's size fields.
    b.click("button[data-action='embed']").await;
    b.wait_for("[name='embed-width']").await;
    for (css, good) in [
        ("input[name='embed-width']", "640"),
        ("input[name='embed-height']", "400"),
    ] {
        let snippet = b
            .js("return document.querySelector('[name=embed-snippet]').value")
            .await;
        for (what, text) in bad_inputs() {
            b.set_input(css, &text).await;
            let (msg, invalid) = field_message(&b, css).await;
            assert!(
                !msg.is_empty() && invalid == "true",
                "{css} ← {what}: no message"
            );
            assert_eq!(
                b.js("return document.querySelector('[name=embed-snippet]').value")
                    .await,
                snippet,
                "{css} ← {what}: the snippet changed"
            );
        }
        b.set_input(css, good).await;
        assert!(field_message(&b, css).await.0.is_empty());
    }
    no_markup_ran(&b, "embed dialog").await;
    b.js("document.querySelector('.dialog button').click()")
        .await;

    // The page still works: D = F = 8192 moves the crossover to the hand-solved
    // B* = (DF/8.2e11) / (2DF/1.97e14 − (2D + 2F)/8.2e11) = 128.07.
    let before = page_state(&b).await;
    b.set_input(".card[data-op='0'] input[name='d']", "8192")
        .await;
    b.set_input(".card[data-op='0'] input[name='f']", "8192")
        .await;
    let m = b.row_metrics("0", 0).await;
    let d = 8192.0f64;
    let exact = (d * d / 8.2e11) / (2.0 * d * d / 1.97e14 - 4.0 * d / 8.2e11);
    assert!(close_to(num(&m, "critical_b"), exact, 1e-6), "{m:?}");
    assert_ne!(page_state(&b).await, before, "the edit did not redraw");
    b.screenshot("robust-after-bad-input").await;

    let errors = b.console_errors().await;
    assert!(errors.is_empty(), "console errors: {errors:#?}");
    let violations = b.csp_violations().await.unwrap_or_default();
    assert!(violations.is_empty(), "CSP violations: {violations:#?}");
    assert!(
        b.server.failures().is_empty(),
        "failed requests (markup loading /x?): {:?}",
        b.server.failures()
    );
    b.close().await;
}

#[tokio::test(flavor = "current_thread")]
async fn a_panic_shows_the_error_panel_and_reset_brings_the_page_back() {
    let b = Browser::start().await;
    b.open("/?chip=h100&op=matmul:b=64&plot=roofline").await;
    let ink = b.canvas_ink("canvas[data-chart='roofline']").await;
    assert!(ink > 5_000);
    // The test hook: only script in the page can send this event.
    b.js("window.setTimeout(() => window.dispatchEvent(new Event('roofline-test-panic')), 0)")
        .await;
    let panel = b.wait_for("[data-panic]").await;
    let text = panel.text().await.unwrap();
    assert!(
        text.contains("internal error") && text.contains("Reset scenario"),
        "{text}"
    );
    assert_eq!(
        b.js("return document.querySelector('[data-panic]').getAttribute('role')")
            .await,
        "alert"
    );
    // The details name the panic; the page behind stays (no blank page).
    let details = b
        .js("return document.querySelector('[data-panic] pre').textContent")
        .await;
    assert!(
        details.as_str().unwrap().contains("roofline-test-panic"),
        "{details}"
    );
    assert_eq!(b.canvas_ink("canvas[data-chart='roofline']").await, ink);
    b.screenshot("panic-panel").await;
    // One panel however many panics.
    b.js("window.setTimeout(() => window.dispatchEvent(new Event('roofline-test-panic')), 0)")
        .await;
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    assert_eq!(
        b.js("return document.querySelectorAll('[data-panic]').length")
            .await,
        1
    );
    // Reset: the first-load scenario, working again.
    b.click("[data-panic] a[data-action='reset-scenario']")
        .await;
    b.wait_for("[data-ready='true'] canvas[data-chart='sweep']")
        .await;
    assert_eq!(
        b.js("return document.querySelectorAll('[data-panic]').length")
            .await,
        0
    );
    let search = b.settled_search().await;
    // The first-load scenario, canonically encoded (default fields left out).
    assert_eq!(
        search, "?v=1&chip=tpu-v5e&op=matmul:w=int8&op=matmul:d=1024,f=1024,w=int8&sweep=b:1..511",
        "not the first-load scenario"
    );
    b.set_input(".card[data-op='0'] input[name='d']", "8192")
        .await;
    let m = b.row_metrics("0", 0).await;
    assert!(num(&m, "flops") > 0.0);
    b.close().await;
}
