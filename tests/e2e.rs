//! End-to-end tests in headless Chromium against the release build in `dist/`.
//! Run by `./dev test` after `trunk build --release`.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use support::{close_to, num, Browser};

#[tokio::test(flavor = "current_thread")]
async fn first_load_draws_the_question_3_plot_without_console_errors() {
    let b = Browser::start().await;
    b.open("/").await;
    assert_eq!(b.client.title().await.unwrap(), "Roofline Lab");
    let ink = b.canvas_ink("canvas[data-chart='sweep']").await;
    assert!(
        ink > 5_000,
        "the sweep canvas looks blank ({ink} non-background pixels)"
    );
    let shot = b.screenshot("first-load").await;
    eprintln!("screenshot: {}", shot.display());
    let errors = b.console_errors().await;
    assert!(errors.is_empty(), "console errors: {errors:#?}");
    let failures = b.server.failures();
    assert!(
        failures.is_empty(),
        "requests that failed (favicon included): {failures:?}"
    );
    b.close().await;
}

#[tokio::test(flavor = "current_thread")]
async fn first_load_crossovers_match_the_exact_solution() {
    // Question 3 of the chapter: bf16[B,D] x int8[D,F] -> bf16[B,F] on TPU v5e, exact bytes
    // 2BD + DF + 2BF. T_math = T_comms  <=>  2BDF/1.97e14 = (2BD + DF + 2BF)/8.2e11, so
    // B* = (DF/8.2e11) / (2DF/1.97e14 - (2D + 2F)/8.2e11).
    let exact = |d: f64| (d * d / 8.2e11) / (2.0 * d * d / 1.97e14 - 4.0 * d / 8.2e11);
    assert!(close_to(exact(4096.0), 136.1, 1e-3) && close_to(exact(1024.0), 226.3, 1e-3));
    let b = Browser::start().await;
    b.open("/").await;
    for (op, d) in [("0", 4096.0), ("1", 1024.0)] {
        let m = b.row_metrics(op, 0).await;
        let crit = num(&m, "critical_b");
        assert!(
            close_to(crit, exact(d), 1e-3),
            "op {op}: critical B {crit}, expected {}",
            exact(d)
        );
        assert!(
            close_to(num(&m, "ridge"), 1.97e14 / 8.2e11, 1e-9),
            "ridge {:?}",
            m.get("ridge")
        );
    }
    b.close().await;
}
