//! End-to-end: any model, served (issue 13), in headless Chromium against `dist/`: a pasted
//! `config.json` fills the `llm` card (parameters total and active through the `data-metric`
//! contract), the serving row (`ttft`, `tpot`, `tokens_per_s`, `tokens_per_s_chip`,
//! `cost_per_mtok`, `max_batch`), the zoo in the form, a bad config's message next to the field
//! with the last good plot kept and no markup made of it, the serving frontier plot, its link
//! and its SVG export, at desktop and phone widths.
#![cfg(not(target_arch = "wasm32"))]

use e2e_harness::{close_to, num, Browser};

const MIXTRAL: &str = include_str!("../fixtures/mixtral-8x7b.config.json");
const DEEPSEEK_V3: &str = include_str!("../fixtures/deepseek-v3.config.json");

/// Pastes `text` into the first card's config box.
async fn paste(b: &Browser, text: &str) {
    b.set_input(".card[data-op='0'] textarea[name='hf-config']", text)
        .await;
}

async fn message(b: &Browser) -> String {
    b.js("return document.querySelector(\".card[data-op='0'] [data-hf-error]\").textContent")
        .await
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[tokio::test(flavor = "current_thread")]
async fn a_pasted_config_sets_the_model_and_its_serving_figures() {
    let b = Browser::start().await;
    b.open("/?chip=h100&op=llm:b=32,tp=2,link=nvlink").await;
    b.click(".card[data-op='0'] [data-hf-import] summary").await;
    paste(&b, MIXTRAL).await;
    let s = b.row_metrics("0.serving", 0).await;
    // Mixtral 8x7B by hand (tests/view_models.rs spells it out): 46,702,792,704 parameters,
    // 12,879,925,248 active (two of eight experts per token; Mistral AI's "12.9B active").
    assert_eq!(num(&s, "params"), 46_702_792_704.0, "{s:?}");
    assert_eq!(num(&s, "active_params"), 12_879_925_248.0);
    let summary = b.text(".card[data-op='0'] [data-hf-summary]").await;
    assert!(
        summary.starts_with("Mixtral (mixtral): 46.7B parameters, 12.88B active"),
        "{summary}"
    );
    assert_eq!(message(&b).await, "");
    // The largest batch, by hand: bf16 weights on each of 2 chips, (46,702,792,704 − 266,240
    // norm weights)/2 + 266,240 = 23,351,529,472 parameters, 46,703,058,944 bytes; a
    // sequence's KV cache at P + G = 2560 is 2·32 layers·8 heads·128·2560·2 bytes / 2 chips =
    // 167,772,160 bytes; ⌊(80e9 − 46,703,058,944) / 167,772,160⌋ = 198.
    assert_eq!(
        ((80e9 - 46_703_058_944.0) / 167_772_160.0f64).floor(),
        198.0
    );
    assert_eq!(num(&s, "max_batch"), 198.0);
    // Serving throughput is B / tpot over the group of 2 chips; the H100 at the book's $10.8
    // per chip-hour (applied-inference.md) and 700 W.
    let tpot = num(&s, "tpot");
    let tps = num(&s, "tokens_per_s");
    assert!(close_to(tps, 32.0 / tpot, 1e-12), "{s:?}");
    assert!(close_to(num(&s, "tokens_per_s_chip"), tps / 2.0, 1e-12));
    assert!(close_to(
        num(&s, "cost_per_mtok"),
        10.8 * 2.0 / 3600.0 / tps * 1e6,
        1e-12
    ));
    assert!(close_to(
        num(&s, "joules_per_token"),
        700.0 * 2.0 / tps,
        1e-12
    ));
    assert!(
        num(&s, "ttft") > tpot,
        "a prefill of 32 × 2048 tokens takes longer than a step"
    );
    // The model's row keeps its own tokens_per_s: one step at the op's context (2048).
    let m = b.row_metrics("0", 0).await;
    assert!(close_to(
        num(&m, "tokens_per_s"),
        32.0 / num(&m, "t_lower"),
        1e-12
    ));
    // The link holds the architecture fields, not the JSON.
    let search = b.settled_search().await;
    assert!(search.contains("experts=8,top_k=2"), "{search}");
    assert!(!search.contains("model_type"), "{search}");
    b.js("document.querySelector(\"tr[data-op='0.serving']\").scrollIntoView()")
        .await;
    b.screenshot("models-mixtral-h100").await;

    // DeepSeek-V3: 671B parameters, 37B active (transformers.md question 7: "Given that it
    // has 37B activated parameters"); exactly 671,026,419,200 and 37,552,297,472 (counted term
    // by term in crates/roofline/tests/arch.rs). In bf16 it cannot fit two H100s.
    paste(&b, DEEPSEEK_V3).await;
    let s = b.row_metrics("0.serving", 0).await;
    assert_eq!(num(&s, "params"), 671_026_419_200.0, "{s:?}");
    assert_eq!(num(&s, "active_params"), 37_552_297_472.0);
    assert_eq!(num(&s, "max_batch"), 0.0);
    let preset = b
        .js("return document.querySelector(\".card[data-op='0'] select[name='preset']\").value")
        .await;
    assert_eq!(preset.as_str(), Some("deepseek-v3"), "the zoo names it");

    // The zoo in the form: Qwen3 30B-A3B (30.5B total, 3.3B active in Qwen's model card).
    b.js("const s = document.querySelector(\".card[data-op='0'] select[name='preset']\"); s.value = 'qwen3-30b-a3b'; s.dispatchEvent(new Event('change', {bubbles: true}));").await;
    let s = b.row_metrics("0.serving", 0).await;
    let (p, a) = (num(&s, "params"), num(&s, "active_params"));
    assert!(
        (30.4e9..30.6e9).contains(&p) && (3.2e9..3.4e9).contains(&a),
        "{p} {a}"
    );
    assert!(b.console_errors().await.is_empty());
    b.close().await;
}

/// Issue 22: a training card has the same import. A pasted Mixtral config makes the step a
/// mixture of experts (the zoo names it: 8 experts, top-2; 46.7B parameters, 12.88B active, as
/// tests/view_models.rs counts them), the mesh stays, and the link carries the architecture's
/// fields, never the JSON.
#[tokio::test(flavor = "current_thread")]
async fn a_pasted_config_sets_a_training_steps_model() {
    let b = Browser::start().await;
    b.open("/?chip=h100&op=train:dp=1,fsdp=512,tp=8").await;
    b.click(".card[data-op='0'] [data-hf-import] summary").await;
    paste(&b, MIXTRAL).await;
    let summary = b.text(".card[data-op='0'] [data-hf-summary]").await;
    assert!(
        summary.starts_with("Mixtral (mixtral): 46.7B parameters, 12.88B active"),
        "{summary}"
    );
    assert_eq!(message(&b).await, "");
    let preset = b
        .js("return document.querySelector(\".card[data-op='0'] select[name='preset']\").value")
        .await;
    assert_eq!(preset.as_str(), Some("mixtral-8x7b"), "the zoo names it");
    let q = b.settled_search().await;
    for want in [
        "op=train:preset=mixtral-8x7b",
        "experts=8",
        "top_k=2",
        "fsdp=512",
        "tp=8",
    ] {
        assert!(q.contains(want), "{want} in {q}");
    }
    assert!(!q.contains("model_type"), "{q}");
    let m = b.row_metrics("0", 0).await;
    assert!(num(&m, "t_lower") > 0.0, "{m:?}");
    assert!(b.console_errors().await.is_empty());
    b.close().await;
}

#[tokio::test(flavor = "current_thread")]
async fn a_bad_config_is_named_next_to_the_field_and_keeps_the_last_good_plot() {
    let b = Browser::start().await;
    b.open("/?chip=h100&op=llm:preset=mixtral-8x7b,b=16,tp=2,link=nvlink")
        .await;
    let before = b.row_metrics("0.serving", 0).await;
    let plot = b.canvas_hash("canvas[data-chart='sweep']").await;
    let area = ".card[data-op='0'] textarea[name='hf-config']";
    paste(&b, "{\"model_type\": \"mixtral\", \"hidden_size\": 4096,").await;
    let msg = message(&b).await;
    assert!(msg.contains("config.json"), "{msg}");
    let invalid = b
        .js(&format!(
            "return document.querySelector(\"{area}\").getAttribute('aria-invalid')"
        ))
        .await;
    assert_eq!(invalid.as_str(), Some("true"));
    assert_eq!(b.row_metrics("0.serving", 0).await, before);
    assert_eq!(b.canvas_hash("canvas[data-chart='sweep']").await, plot);
    // Markup in a config is text: quoted in the message, never an element.
    paste(
        &b,
        "{\"model_type\": \"<img src=x onerror=window.__pwned=1>\"}",
    )
    .await;
    let msg = message(&b).await;
    assert!(msg.contains("unknown model_type `<img src=x"), "{msg}");
    assert!(
        msg.contains("mixtral"),
        "the message lists what is read: {msg}"
    );
    let img = b
        .js("return document.querySelectorAll('img').length + ':' + (window.__pwned === undefined)")
        .await;
    assert_eq!(img.as_str(), Some("0:true"));
    paste(&b, "{\"model_type\": \"mixtral\"}").await;
    assert!(message(&b)
        .await
        .contains("missing required key `hidden_size`"));
    assert_eq!(b.row_metrics("0.serving", 0).await, before);
    // A good one clears the message.
    paste(&b, MIXTRAL).await;
    assert_eq!(message(&b).await, "");
    assert!(b.console_errors().await.is_empty());
    b.close().await;
}

#[tokio::test(flavor = "current_thread")]
async fn the_serving_frontier_is_a_plot_with_a_link_and_an_svg_export() {
    // applied-inference.md, "Serving LLaMA 3-70B" in int8 on a TPU v5e 4x2 at 8k context:
    // the largest batch is 42 (the book's 43 from rounded figures), ≈ 19 ms per step there.
    // The chapter reads the v5e's HBM as 16 GB: hbm_cap=16e9 (the preset holds 16 GiB).
    let q = "/?chip=tpu-v5e:hbm_cap=16e9&op=llm:preset=llama3-70b,w=int8,x=int8,kv=int8,tp=8,prompt=7680,output=512,b=42";
    let b = Browser::start().await;
    b.open(q).await;
    let s = b.row_metrics("0.serving", 0).await;
    assert_eq!(num(&s, "max_batch"), 42.0);
    assert!(close_to(num(&s, "tpot"), 16e9 / 8.2e11, 0.05), "{s:?}");
    // "int8 | 70GB | ... | 4x2 = 8 chips": the smallest topology that holds it.
    assert_eq!(num(&s, "min_chips"), 8.0);
    // Part 8's disaggregated serving: prefill servers per decode server, B · (one prefill) /
    // (tpot · G); one 7680-token prefill takes at least its matmul FLOPs at the int8 peak,
    // 2·70.55e9·7680/(8·3.94e14) = 0.344 s, so the ratio is at least 42·0.344/(tpot·512).
    let ratio = num(&s, "prefill_decode_ratio");
    let floor = 42.0 * (2.0 * 70.55e9 * 7680.0 / (8.0 * 3.94e14)) / (num(&s, "tpot") * 512.0);
    assert!(ratio >= floor && ratio.is_finite(), "{ratio} < {floor}");
    b.click("button[data-plot='frontier']").await;
    b.wait_for("canvas[data-chart='frontier']").await;
    let ink = b.canvas_ink("canvas[data-chart='frontier']").await;
    assert!(ink > 3_000, "the frontier canvas looks blank ({ink})");
    let label = b
        .js("return document.querySelector('canvas[data-chart]').getAttribute('aria-label')")
        .await;
    assert!(label.as_str().unwrap_or("").contains("1 curves"), "{label}");
    let search = b.settled_search().await;
    assert!(search.ends_with("&plot=frontier"), "{search}");
    let v = b.axe().await;
    assert!(v.is_empty(), "axe on the frontier found\n{}", v.join("\n"));
    b.js("window.scrollTo(0, 0)").await;
    b.screenshot("models-frontier").await;
    b.capture_downloads().await;
    let (name, svg) = b.export("svg").await;
    assert!(name.ends_with(".svg"), "{name}");
    assert!(
        svg.contains("Serving frontier") && svg.contains("max B 42"),
        "{svg:.300}"
    );
    assert!(svg.contains("(out of memory)"));
    // The tail beyond memory is drawn faint and dotted (issue 24, point 2).
    assert!(
        svg.contains("opacity=\"0.45"),
        "no faint stretch in {svg:.300}"
    );
    b.close().await;

    // The link alone opens on the frontier.
    let b = Browser::start().await;
    b.open(&format!("/{search}")).await;
    b.wait_for("canvas[data-chart='frontier']").await;
    assert!(b.canvas_ink("canvas[data-chart='frontier']").await > 3_000);
    assert!(b.console_errors().await.is_empty());
    b.close().await;
}

/// Issue 23: the v5e holds 16 GiB (tpus.md), so LLaMA 3-70B at 8k on a 4x4 fits 49 sequences
/// (crates/roofline/tests/serving.rs works it out by hand); the book's own 42 with its "16GB"
/// stays one field away, `hbm_cap=16e9`, and the field shows each the way it is written.
#[tokio::test(flavor = "current_thread")]
async fn the_v5e_holds_16_gib_and_the_books_16_gb_stays_reachable() {
    let q = "chip=tpu-v5e&op=llm:preset=llama3-70b,b=1,ctx=8192,prompt=8190,output=2,tp=16";
    let b = Browser::start().await;
    b.open(&format!("/?{q}")).await;
    assert_eq!(num(&b.row_metrics("0.serving", 0).await, "max_batch"), 49.0);
    let cap = "[data-chip='0'] input[name='hbm_cap']";
    let shown = b
        .js(&format!("return document.querySelector({cap:?}).value"))
        .await;
    assert_eq!(shown, "16 GiB");
    b.open(&format!(
        "/?{}",
        q.replace("tpu-v5e", "tpu-v5e:hbm_cap=16e9")
    ))
    .await;
    assert_eq!(num(&b.row_metrics("0.serving", 0).await, "max_batch"), 42.0);
    let shown = b
        .js(&format!("return document.querySelector({cap:?}).value"))
        .await;
    assert_eq!(shown, "16 GB");
    assert!(b.console_errors().await.is_empty());
    b.close().await;
}

#[tokio::test(flavor = "current_thread")]
async fn the_config_box_and_serving_row_fit_a_phone() {
    let b = Browser::start().await;
    b.client.set_window_size(390, 844).await.unwrap();
    b.open("/?chip=h100&op=llm:preset=mixtral-8x7b,b=16,tp=2,link=nvlink")
        .await;
    // On a phone the input panels start folded (issue 38): open the operations'.
    b.click("button[data-collapse='Operations']").await;
    b.click(".card[data-op='0'] [data-hf-import] summary").await;
    paste(&b, "{").await;
    let fits = b
        .js("const w = document.documentElement.clientWidth; return [...document.querySelectorAll(\".card[data-op='0'] [data-hf-import], .card[data-op='0'] textarea[name='hf-config'], .card[data-op='0'] [data-hf-error]\")].map(e => [e.getBoundingClientRect().right, w])")
        .await;
    for pair in fits.as_array().unwrap() {
        let (right, w) = (pair[0].as_f64().unwrap(), pair[1].as_f64().unwrap());
        assert!(
            right <= w + 0.5,
            "the config box overflows a 390 px phone: {fits}"
        );
    }
    assert!(b.row_metrics("0.serving", 0).await.contains_key("tpot"));
    // The open config box with its message, the serving row and the frontier tab pass axe-core.
    let v = b.axe().await;
    assert!(v.is_empty(), "axe found\n{}", v.join("\n"));
    b.js("document.querySelector(\".card[data-op='0'] [data-hf-import]\").scrollIntoView()")
        .await;
    b.screenshot("models-phone").await;
    assert!(b.console_errors().await.is_empty());
    b.close().await;
}

/// Issue 24, point 2, in the page: LLaMA 3-70B in bf16 on one H100 (141 GB of weights against
/// 80 GB) gets no throughput in the key line and `none` for the serving row's tokens/s and
/// cost-like figures, each with its reason, while the row keeps its bound.
#[tokio::test(flavor = "current_thread")]
async fn a_model_that_does_not_fit_gets_no_headline_figure() {
    let b = Browser::start().await;
    b.open("/?chip=h100&op=llm:preset=llama3-70b,b=1,ctx=2048")
        .await;
    let key = b
        .js("return document.querySelector('[data-keyline]').textContent")
        .await;
    let key = key.as_str().unwrap_or_default();
    assert!(key.contains("does not fit in HBM"), "{key}");
    assert!(!key.contains("tokens/s"), "{key}");
    let cells = b
        .js("return ['tokens_per_s', 'tokens_per_s_chip', 'requests_per_s'].map(m => document.querySelector(`tr[data-op='0.serving'] [data-metric='${m}']`).dataset.value)")
        .await;
    assert_eq!(cells, serde_json::json!(["none", "none", "none"]));
    assert!(num(&b.row_metrics("0", 0).await, "t_lower") > 0.0);
    assert!(b.console_errors().await.is_empty());
    b.close().await;
}
