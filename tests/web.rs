//! wasm-bindgen tests in headless Chromium: mount the real app, change an input, see the DOM
//! change. Run by `./dev test` (`cargo test --target wasm32-unknown-unknown --test web`).
#![cfg(target_arch = "wasm32")]

use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{Document, HtmlInputElement};

wasm_bindgen_test_configure!(run_in_browser);

fn doc() -> Document {
    web_sys::window().unwrap().document().unwrap()
}

/// Let Leptos run its effects and re-render.
async fn tick() {
    let p = js_sys::Promise::new(&mut |resolve, _| {
        web_sys::window()
            .unwrap()
            .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 30)
            .unwrap();
    });
    wasm_bindgen_futures::JsFuture::from(p).await.unwrap();
}

fn metric(op: &str, chip: usize, metric: &str) -> Option<String> {
    doc()
        .query_selector(&format!(
            "tr[data-op='{op}'][data-chip='{chip}'] [data-metric='{metric}']"
        ))
        .ok()
        .flatten()
        .and_then(|e| e.get_attribute("data-value"))
}

fn type_into(css: &str, text: &str) {
    let input: HtmlInputElement = doc()
        .query_selector(css)
        .unwrap()
        .expect(css)
        .unchecked_into();
    input.set_value(text);
    // `input` as each key does, then `change` as leaving the field does (an edit ends there).
    for kind in ["input", "change"] {
        let ev = web_sys::Event::new_with_event_init_dict(kind, &{
            let init = web_sys::EventInit::new();
            init.set_bubbles(true);
            init
        })
        .unwrap();
        input.dispatch_event(&ev).unwrap();
    }
}

#[wasm_bindgen_test]
async fn mounted_app_reacts_to_input_and_keeps_last_valid_state_on_bad_input() {
    leptos::mount::mount_to_body(roofline_lab::app::App);
    tick().await;
    // First load: op 0 is D=F=4096 on TPU v5e; exact crossover 136.1 (see e2e.rs for the algebra).
    let before: f64 = metric("0", 0, "critical_b")
        .expect("result row for op 0")
        .parse()
        .unwrap();
    assert!((before - 136.1).abs() < 0.1, "critical B {before}");

    // D = F = 8192: B* = (DF/8.2e11) / (2DF/1.97e14 − (2D + 2F)/8.2e11) = 128.1.
    type_into("[data-op='0'] input[name='d']", "8192");
    type_into("[data-op='0'] input[name='f']", "8192");
    tick().await;
    let (d, f) = (8192.0f64, 8192.0f64);
    let expected = (d * f / 8.2e11) / (2.0 * d * f / 1.97e14 - (2.0 * d + 2.0 * f) / 8.2e11);
    let after: f64 = metric("0", 0, "critical_b").unwrap().parse().unwrap();
    assert!(
        (after - expected).abs() < 1e-6 * expected,
        "critical B {after}, expected {expected}"
    );

    // A bad value shows the core's message next to the field and keeps the last valid result.
    type_into("[data-op='0'] input[name='d']", "-5");
    tick().await;
    let input = doc()
        .query_selector("[data-op='0'] input[name='d']")
        .unwrap()
        .unwrap();
    assert_eq!(input.get_attribute("aria-invalid").as_deref(), Some("true"));
    let msg = input
        .parent_element()
        .unwrap()
        .query_selector(".msg")
        .unwrap()
        .unwrap();
    let text = msg.text_content().unwrap_or_default();
    assert!(
        text.contains("d=-5") && text.contains("positive"),
        "message: {text:?}"
    );
    let kept: f64 = metric("0", 0, "critical_b").unwrap().parse().unwrap();
    assert_eq!(kept, after, "the result must keep the last valid state");
}
