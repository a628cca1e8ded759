//! End-to-end: the `collective` operation in headless Chromium against `dist/` (issue 12):
//! added from the form, its fields set, the link, a reload, the result row (`t_comms`,
//! `latency_bound`), the plot of time against array size, the derivation naming the book's
//! formula, and the CSV and JSON exports.
#![cfg(not(target_arch = "wasm32"))]

use e2e_harness::{close_to, num, Browser};

/// sharding.md, Pop Quiz 2 [AllGather time]: an AllGather of 2048·8192·2 = 33,554,432 bytes
/// over an axis of 4 TPU v5e without wraparound: 3 hops of V/4 at 4.5e10 bytes/s = 559.2 µs
/// ("3 * 8.4e6 / 4.5e10 = 560us"); at 131,072 bytes (part 2) it is latency-bound, 3 × 1 µs.
#[tokio::test(flavor = "current_thread")]
async fn a_collective_from_the_form_to_the_link_plot_derivation_and_exports() {
    let b = Browser::start().await;
    b.open("/?chip=tpu-v5e").await;
    // Add a collective with the form, as a user would.
    b.pick("add-op", "collective").await;
    let card = "[data-op='2']";
    b.wait_for(&format!("{card} input[name='bytes']")).await;
    b.set_input(&format!("{card} input[name='bytes']"), "33554432")
        .await;
    b.set_input(&format!("{card} input[name='n']"), "4").await;
    b.js(&format!(
        "const s = document.querySelector(\"{card} select[name='topology']\"); s.value = 'line'; s.dispatchEvent(new Event('change', {{bubbles: true}}));"
    ))
    .await;
    let want = 3.0 * (33554432.0 / 4.0) / 4.5e10;
    let m = b.row_metrics("2", 0).await;
    assert!(close_to(num(&m, "t_comms"), want, 1e-9), "{m:?}");
    assert_eq!(m.get("latency_bound").map(String::as_str), Some("false"));
    assert_eq!(m.get("bound").map(String::as_str), Some("network"));
    // The link holds the operation.
    let search = b.settled_search().await;
    assert!(
        search.contains("op=collective:bytes=33554432,n=4,topology=line"),
        "{search}"
    );
    assert!(b.console_errors().await.is_empty());
    b.close().await;

    // The link alone, swept over the array size on log-log time axes; part (2) beside it.
    let b = Browser::start().await;
    b.open("/?chip=tpu-v5e&op=collective:bytes=33554432,n=4,topology=line&op=collective:bytes=131072,n=4,topology=line&sweep=bytes:1..1e10:log:n=64&y=time&log=xy").await;
    let m = b.row_metrics("0", 0).await;
    assert!(close_to(num(&m, "t_lower"), want, 1e-9), "{m:?}");
    assert_eq!(m.get("latency_bound").map(String::as_str), Some("false"));
    let m = b.row_metrics("1", 0).await;
    assert!(close_to(num(&m, "t_comms"), 3e-6, 1e-9), "{m:?}");
    assert_eq!(m.get("latency_bound").map(String::as_str), Some("true"));
    let ink = b.canvas_ink("canvas[data-chart='sweep']").await;
    assert!(ink > 5_000, "the sweep canvas looks blank ({ink})");
    let label = b
        .js("return document.querySelector('canvas[data-chart]').getAttribute('aria-label')")
        .await;
    assert!(label.as_str().unwrap_or("").contains("2 series"), "{label}");
    b.screenshot("collective-sweep").await;

    // The derivation names the formula and the book's section.
    let text = b.derivation("0").await;
    assert!(text.contains("(n−1)·V/(n·W_link)"), "{text}");
    assert!(text.contains("sharding.md"), "{text}");
    assert!(text.contains("bandwidth-bound"), "{text}");

    // Exports: the CSV has the swept sizes, the JSON the collective's terms.
    b.capture_downloads().await;
    let (name, csv) = b.export("csv").await;
    assert!(name.ends_with(".csv"), "{name}");
    assert!(csv.starts_with("operation,chip,bytes,"), "{csv}");
    assert!(csv.lines().count() > 100, "{csv}");
    let (name, json) = b.export("json").await;
    assert!(name.ends_with(".json"), "{name}");
    assert!(json.contains("\"latency_bound\": false"), "{json}");
    assert!(json.contains("\"latency_bound\": true"), "{json}");
    assert!(json.contains("\"section\""), "{json}");
    assert!(b.console_errors().await.is_empty());
    b.close().await;
}
