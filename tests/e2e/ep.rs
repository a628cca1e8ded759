//! End-to-end: expert parallelism on the `llm` op (issue 13, `ep=`), in headless Chromium
//! against `dist/`: a link with `ep=8` fills the serving row (`max_batch`, `tokens_per_s_chip`
//! over the 8 chips) as the core computes it by hand in `crates/roofline/tests/llm_ep.rs`, the
//! derivation names the AllToAll, the fold shows the field, and an `ep` that does not divide
//! the experts is named in the model's row.
#![cfg(not(target_arch = "wasm32"))]

use e2e_harness::{close_to, num, Browser};

#[tokio::test(flavor = "current_thread")]
async fn expert_parallel_mixtral_serving_row_derivation_and_a_bad_value() {
    let b = Browser::start().await;
    b.open("/?chip=h100&op=llm:preset=mixtral-8x7b,ep=8,b=64,link=nvlink")
        .await;
    let s = b.row_metrics("0.serving", 0).await;
    // By hand: per chip 2·(46,702,792,704 − 45,097,156,608·7/8) = 14,485,561,344 weight
    // bytes; a sequence's KV at P + G = 2560 is 2·32·8·128·2560·2 = 335,544,320 bytes;
    // ⌊(80e9 − 14,485,561,344)/335,544,320⌋ = 195 sequences per group, 8 groups: 1560.
    assert_eq!(num(&s, "max_batch"), 1560.0, "{s:?}");
    // Throughput per chip is B / tpot over the 8 chips.
    let tpot = num(&s, "tpot");
    assert!(
        close_to(num(&s, "tokens_per_s"), 64.0 / tpot, 1e-12),
        "{s:?}"
    );
    assert!(close_to(
        num(&s, "tokens_per_s_chip"),
        64.0 / tpot / 8.0,
        1e-12
    ));
    // The field is shown (its fold open) with its value.
    let ep = ".card[data-op='0'] input[name='ep']";
    let state = b
        .js(&format!(
            "const e = document.querySelector({ep:?}); const d = e.closest('details.more-fields'); return [e.value, d ? d.open : true];"
        ))
        .await;
    assert_eq!(state[0], "8");
    assert_eq!(state[1], true);
    // The derivation names the AllToAll and the groups.
    let text = b.derivation("0").await;
    assert!(
        text.contains("Expert parallel over ep = 8 groups"),
        "{text}"
    );
    assert!(text.contains("AllToAll"), "{text}");
    // ep = 3 does not divide Mixtral's 8 experts: the model's row says so, naming the field
    // (a whole number, the field itself takes it; the op is what it does not fit).
    b.set_input(ep, "3").await;
    let mut row = b.row_metrics("0", 0).await;
    for _ in 0..50 {
        if row.contains_key("error") {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        row = b.row_metrics("0", 0).await;
    }
    let err = row.get("error").cloned().unwrap_or_default();
    assert!(
        err.contains("ep=3") && err.contains("must divide the routed experts E = 8"),
        "{row:?}"
    );
    // Back to 8: the figures return.
    b.set_input(ep, "8").await;
    b.wait_for("tr[data-op='0.serving'] [data-metric='max_batch']")
        .await;
    assert_eq!(
        num(&b.row_metrics("0.serving", 0).await, "max_batch"),
        1560.0
    );
    let errors = b.console_errors().await;
    assert!(errors.is_empty(), "{errors:?}");
    b.close().await;
}
