//! End-to-end: the `train` operation in headless Chromium against `dist/` (issue 14): picked
//! in the form, its fields set, the link; a link alone with the book's 44 days; the result
//! row (`t_lower`, `mfu`, `tokens_per_s`, `days`, `days_at_mfu`, `memory`, `fits`,
//! `critical_b`), the training plot (four strategies against the batch per chip), the
//! derivation naming the book's formulas and sections, the SVG and JSON exports, at desktop
//! and phone widths.
#![cfg(not(target_arch = "wasm32"))]

use e2e_harness::{close_to, num, Browser};

/// The form: a training step added to the first-load scenario (TPU v5e), its mesh edited to
/// dp 1 × fsdp 64 × tp 4 = 256 chips (one v5e pod); the row's tokens/s is B / t_lower and the
/// link holds the edit.
#[tokio::test(flavor = "current_thread")]
async fn a_training_step_from_the_form_to_the_link() {
    let b = Browser::start().await;
    b.open("/?chip=tpu-v5e").await;
    b.pick("add-op", "train").await;
    let card = "[data-op='2']";
    b.wait_for(&format!("{card} input[name='dp']")).await;
    b.set_input(&format!("{card} input[name='dp']"), "1").await;
    let m = b.row_metrics("2", 0).await;
    let t = num(&m, "t_lower");
    assert!(t > 0.0, "{m:?}");
    assert!(
        close_to(num(&m, "tokens_per_s"), 4_194_304.0 / t, 1e-9),
        "{m:?}"
    );
    for k in ["mfu", "days", "memory", "fits", "critical_b", "t_upper"] {
        assert!(m.contains_key(k), "{k} missing: {m:?}");
    }
    let search = b.settled_search().await;
    assert!(search.contains("op=train:dp=1"), "{search}");
    // Issue 24, point 8: a training step added in the page opens its plot on log axes (the
    // strategies' curves span decades); the link says so, and both boxes are ticked.
    assert!(search.contains("log=xy"), "{search}");
    let ticked = b
        .js("return ['log-x', 'log-y'].map(n => document.querySelector(`input[name='${n}']`).checked)")
        .await;
    assert_eq!(ticked, serde_json::json!([true, true]));
    assert!(b.console_errors().await.is_empty());
    b.close().await;
}

/// applied-training.md: "Let's say we wanted to train on a full TPU v5p pod with 16x20x28 =
/// 8960 chips. How long would this take to train at 40% MFU ...? ... T = 6.3e24 / (8960 *
/// 4.59e14 * 0.4) = 3.8e6 seconds. This is about 44 days!" With the model's N = 70,553,706,496
/// parameters, 6·N·15e12 = 6.3498e24 FLOPs: 44.675 days. The link alone shows it, plots the
/// four strategies against the batch per chip, and derives it with the book's sections.
#[tokio::test(flavor = "current_thread")]
async fn the_books_44_days_from_a_link_with_plot_derivation_and_exports() {
    let b = Browser::start().await;
    for (w, h, name) in [(1280, 900, "desktop"), (390, 844, "phone")] {
        b.viewport(Some((w, h))).await;
        b.open("/?chip=tpu-v5p&op=train:dp=1,fsdp=2240,mfu=0.4&log=xy")
            .await;
        // Nothing wider than the viewport.
        let wide = b
            .js("return document.documentElement.scrollWidth - document.documentElement.clientWidth")
            .await;
        assert!(
            wide.as_i64().unwrap_or(1) <= 0,
            "{name}: {wide} px too wide"
        );
        let m = b.row_metrics("0", 0).await;
        assert!(
            close_to(num(&m, "days_at_mfu"), 44.675_344_952_795_93, 1e-9),
            "{m:?}"
        );
        assert_eq!(m.get("fits").map(String::as_str), Some("true"));
        assert_eq!(m.get("bound").map(String::as_str), Some("compute"));
        // FSDP binds below 311.5 tokens per chip (the book's 2550/M_X/tp = 318.75 beside it);
        // the mesh runs 468.1.
        let crit = num(&m, "critical_b");
        assert!(crit > 300.0 && crit < 4_194_304.0 / 8960.0, "{m:?}");
        let days = num(&m, "days");
        assert!(
            close_to(days, 15e12 / num(&m, "tokens_per_s") / 86_400.0, 1e-9),
            "{m:?}"
        );
        // The training plot: four strategies against the batch per chip.
        let ink = b.canvas_ink("canvas[data-chart='sweep']").await;
        assert!(ink > 5_000, "{name}: the plot looks blank ({ink})");
        let label = b
            .js("return document.querySelector('canvas[data-chart]').getAttribute('aria-label')")
            .await;
        let label = label.as_str().unwrap_or_default().to_string();
        assert!(label.contains("Training step time"), "{label}");
        assert!(label.contains("4 series"), "{label}");
        b.screenshot(&format!("train-{name}")).await;
    }

    // The derivation: the book's formulas with their sections, and the 44.68 days.
    b.viewport(None).await;
    let text = b.derivation("0").await;
    assert!(text.contains("44.68 days"), "{text}");
    assert!(text.contains("applied-training.md"), "{text}");
    assert!(
        text.contains("training.md, \"Fully-Sharded Data Parallelism (FSDP)\""),
        "{text}"
    );
    assert!(text.contains("transformers.md"), "{text}");

    // Exports: the plot as SVG, the results as JSON with the training figures.
    b.capture_downloads().await;
    let (name, svg) = b.export("svg").await;
    assert!(name.ends_with(".svg"), "{name}");
    assert!(
        svg.contains("batch per chip"),
        "{}",
        &svg[..svg.len().min(400)]
    );
    let (name, json) = b.export("json").await;
    assert!(name.ends_with(".json"), "{name}");
    assert!(
        json.contains("\"days_at_mfu_6n\": 44.67"),
        "no 44.67 days in the JSON"
    );
    assert!(b.console_errors().await.is_empty());
    b.close().await;
}

/// Issue 24, point 8: the training card shows its 12 main fields (and the op's label) and folds
/// the other 44 (the architecture's 30 fields a preset sets, the `llm` op's since issue 22;
/// optimizer, schedule, dtypes, torus axes, price) behind "more fields", closed by default and
/// open for a link that sets one of them.
#[tokio::test(flavor = "current_thread")]
async fn the_training_card_folds_what_most_people_leave_alone() {
    let b = Browser::start().await;
    b.open("/?chip=tpu-v5p&op=train").await;
    let count = "const c = document.querySelector(\"[data-op='0']\"); const d = c.querySelector('details.more-fields'); return [c.querySelectorAll('.field').length - d.querySelectorAll('.field').length, d.querySelectorAll('.field').length, d.open]";
    let v = b.js(count).await;
    assert_eq!(v, serde_json::json!([13, 44, false]), "{v:?}");
    b.open("/?chip=tpu-v5p&op=train:opt=sgd").await;
    let v = b.js(count).await;
    assert_eq!(
        v[2], true,
        "a link that sets a folded field opens the fold: {v:?}"
    );
    assert!(b.console_errors().await.is_empty());
    b.close().await;
}

/// Issue 38, point 3: a training step refuses a tensor-parallel degree that does not divide the
/// query heads, as a transformer step does and in its words (one rule for both). Typed into the
/// form, tp 3 over LLaMA 3-70B's 64 heads leaves the row with the refusal instead of a step (the
/// fields are checked against each other by the analysis, so a link keeps what it says and
/// shows why); an llm step says the same; MLP blocks alone (`mlp_only=yes`) have no heads to
/// split and compute.
#[tokio::test(flavor = "current_thread")]
async fn a_tensor_parallel_degree_must_divide_the_heads_in_training_too() {
    let b = Browser::start().await;
    let refusal = "tp=3: must divide the 64 query heads";
    b.open("/?chip=h100&op=train").await;
    let field = "[data-op='0'] input[name='tp']";
    b.wait_for(field).await;
    assert!(num(&b.row_metrics("0", 0).await, "t_lower") > 0.0);
    b.set_input(field, "3").await;
    b.wait_for("tr.result-row[data-op='0'] [data-metric='error']")
        .await;
    let m = b.row_metrics("0", 0).await;
    assert!(m["error"].contains(refusal), "{m:?}");
    assert!(!m.contains_key("t_lower"), "{m:?}");
    // The same words from an llm step, and from a link.
    for link in [
        "/?chip=h100&op=llm:preset=llama3-70b,tp=3",
        "/?chip=h100&op=train:tp=3",
    ] {
        b.open(link).await;
        let m = b.row_metrics("0", 0).await;
        assert!(m["error"].contains(refusal), "{link}: {m:?}");
    }
    b.open("/?chip=h100&op=train:tp=3,mlp_only=yes").await;
    let m = b.row_metrics("0", 0).await;
    assert!(num(&m, "t_lower") > 0.0, "{m:?}");
    assert!(b.console_errors().await.is_empty());
    b.close().await;
}
