//! End-to-end tests in headless Chromium against the release build in `dist/`.
//! Run by `./dev test` after `trunk build --release`.
#![cfg(not(target_arch = "wasm32"))]

use e2e_harness::{close_to, num, Browser};

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

/// The number just before `suffix` at the end of the derivation line starting with `prefix`.
fn derivation_number(lines: &[String], prefix: &str, suffix: &str) -> f64 {
    let line = lines
        .iter()
        .find(|l| l.starts_with(prefix))
        .unwrap_or_else(|| panic!("no derivation line starting with {prefix:?}: {lines:#?}"));
    let body = line.strip_suffix(suffix).unwrap_or(line);
    let last = body.rsplit(" = ").next().unwrap().trim();
    let token = last.split_whitespace().next().unwrap();
    token
        .parse()
        .unwrap_or_else(|_| panic!("cannot read a number in {line:?}"))
}

#[tokio::test(flavor = "current_thread")]
async fn editing_d_moves_the_crossover_redraws_and_updates_the_url() {
    let b = Browser::start().await;
    b.open("/").await;
    let before = b.canvas_hash("canvas[data-chart]").await;
    let history_before = b.js("return history.length").await;
    b.set_input("[data-op='0'] input[name='d']", "8192").await;
    b.set_input("[data-op='0'] input[name='f']", "8192").await;
    // B* = (DF/8.2e11) / (2DF/1.97e14 − (2D + 2F)/8.2e11) with D = F = 8192: 128.07.
    let (d, f) = (8192.0f64, 8192.0f64);
    let expected = (d * f / 8.2e11) / (2.0 * d * f / 1.97e14 - (2.0 * d + 2.0 * f) / 8.2e11);
    let m = b.row_metrics("0", 0).await;
    assert!(
        close_to(num(&m, "critical_b"), expected, 1e-6),
        "critical B {:?}",
        m.get("critical_b")
    );
    let after = b.canvas_hash("canvas[data-chart]").await;
    assert_ne!(before, after, "the canvas was not redrawn");
    let search = serde_json::Value::from(b.settled_search().await);
    assert!(
        search.as_str().unwrap_or("").contains("d=8192"),
        "URL not in sync: {search}"
    );
    let history = b.js("return history.length").await;
    assert_eq!(
        history, history_before,
        "editing must not push history entries"
    );
    assert!(b.console_errors().await.is_empty());
    b.close().await;
}

#[tokio::test(flavor = "current_thread")]
async fn adding_a_chip_adds_a_series_and_result_rows() {
    let b = Browser::start().await;
    b.open("/").await;
    let label = b
        .js("return document.querySelector('canvas[data-chart]').getAttribute('aria-label')")
        .await;
    assert!(label.as_str().unwrap().contains("2 series"), "{label}");
    b.pick("add-chip", "h100").await;
    let label = b
        .js("return document.querySelector('canvas[data-chart]').getAttribute('aria-label')")
        .await;
    assert!(label.as_str().unwrap().contains("4 series"), "{label}");
    // H100 ridge: 9.89e14 / 3.35e12 = 295.2 (chapter: 295 with dense bf16).
    let m = b.row_metrics("0", 1).await;
    assert!(close_to(num(&m, "ridge"), 9.89e14 / 3.35e12, 1e-9), "{m:?}");
    let title = b.text("[data-chip='1'] .title").await;
    assert_eq!(title, "H100 SXM");
    b.set_input("[data-chip='1'] input[name='hbm']", "4T").await;
    let title = b.text("[data-chip='1'] .title").await;
    assert_eq!(title, "H100 SXM (edited)");
    let m = b.row_metrics("0", 1).await;
    assert!(close_to(num(&m, "ridge"), 9.89e14 / 4e12, 1e-9), "{m:?}");
    b.click("[data-chip='1'] button[title^='Back']").await;
    let m = b.row_metrics("0", 1).await;
    assert!(
        close_to(num(&m, "ridge"), 9.89e14 / 3.35e12, 1e-9),
        "reset: {m:?}"
    );
    b.close().await;
}

#[tokio::test(flavor = "current_thread")]
async fn an_invalid_value_shows_the_message_and_keeps_the_last_plot() {
    let b = Browser::start().await;
    b.open("/").await;
    let before = b.canvas_hash("canvas[data-chart]").await;
    let crit = num(&b.row_metrics("0", 0).await, "critical_b");
    for bad in ["-5", "0", "NaN", "", "1e400", "12abc"] {
        b.set_input("[data-op='0'] input[name='d']", bad).await;
        let invalid = b.js("return document.querySelector(\"[data-op='0'] input[name='d']\").getAttribute('aria-invalid')").await;
        assert_eq!(invalid.as_str(), Some("true"), "{bad:?} not marked invalid");
        let msg = b
            .js("return document.querySelector(\"[data-op='0'] input[name='d']\").parentElement.querySelector('.msg').textContent")
            .await;
        let msg = msg.as_str().unwrap_or_default().to_string();
        assert!(
            msg.starts_with("d="),
            "{bad:?}: message {msg:?} does not name the field"
        );
        assert_eq!(
            num(&b.row_metrics("0", 0).await, "critical_b"),
            crit,
            "{bad:?} changed the results"
        );
        assert_eq!(
            b.canvas_hash("canvas[data-chart]").await,
            before,
            "{bad:?} changed the plot"
        );
    }
    let msg = b.js("return document.querySelector(\"[data-op='0'] input[name='d']\").parentElement.querySelector('.msg').textContent").await;
    eprintln!("last message: {msg}");
    b.set_input("[data-op='0'] input[name='d']", "4096").await;
    let invalid = b.js("return document.querySelector(\"[data-op='0'] input[name='d']\").getAttribute('aria-invalid')").await;
    assert_eq!(invalid.as_str(), Some("false"));
    assert!(b.console_errors().await.is_empty());
    b.close().await;
}

#[tokio::test(flavor = "current_thread")]
async fn the_derivation_matches_the_numbers_in_its_row() {
    let b = Browser::start().await;
    b.open("/?chip=tpu-v5e&op=matmul:b=256,d=4096,f=4096,x=bf16,w=int8")
        .await;
    b.click("tr[data-op='0'][data-chip='0']").await;
    b.wait_for("[data-derivation='0'] li").await;
    let lines: Vec<String> = serde_json::from_value(
        b.js("return [...document.querySelectorAll(\"[data-derivation='0'] li\")].map(l => l.textContent)").await,
    )
    .unwrap();
    let m = b.row_metrics("0", 0).await;
    for (prefix, metric) in [
        ("T_math", "t_math"),
        ("T_lower", "t_lower"),
        ("T_upper", "t_upper"),
    ] {
        let v = derivation_number(&lines, prefix, " s");
        assert!(
            close_to(v, num(&m, metric), 5e-3),
            "{prefix}: derivation {v} vs row {:?}",
            m[metric]
        );
    }
    let v = derivation_number(&lines, "Ridge", " FLOPs/byte");
    assert!(close_to(v, num(&m, "ridge"), 5e-3), "ridge {v}");
    // Hand calculation: 2·256·4096·4096 / 1.97e14 = 4.36e-5 s.
    assert!(close_to(
        num(&m, "t_math"),
        2.0 * 256.0 * 4096.0 * 4096.0 / 1.97e14,
        1e-12
    ));
    assert!(
        lines.iter().any(|l| l.contains("136.1")),
        "the exact crossover is missing: {lines:#?}"
    );
    b.close().await;
}

#[tokio::test(flavor = "current_thread")]
async fn the_roofline_tab_draws_the_roofline() {
    let b = Browser::start().await;
    b.open("/").await;
    b.click("button[data-plot='roofline']").await;
    b.wait_for("canvas[data-chart='roofline']").await;
    assert!(b.canvas_ink("canvas[data-chart='roofline']").await > 5_000);
    let search = serde_json::Value::from(b.settled_search().await);
    assert!(
        search.as_str().unwrap().contains("plot=roofline"),
        "{search}"
    );
    b.screenshot("roofline").await;
    b.close().await;
}

#[tokio::test(flavor = "current_thread")]
async fn a_recipe_loads_with_the_chapters_answer_beside_ours() {
    let b = Browser::start().await;
    b.open("/").await;
    b.click("button[data-recipe='network']").await;
    let ours = b.text("[data-recipe-answer] [data-ours]").await;
    assert!(ours.contains("8755"), "ours: {ours}");
    let m = b.row_metrics("0", 0).await;
    // D > 2 · 1.97e14 / 4.5e10 = 8755.6 (the chapter's 2-chip network roofline).
    assert!(
        close_to(num(&m, "critical_d"), 2.0 * 1.97e14 / 4.5e10, 1e-9),
        "{m:?}"
    );
    b.close().await;
}

#[tokio::test(flavor = "current_thread")]
async fn an_llm_step_shows_its_parts_tokens_per_second_and_memory() {
    let b = Browser::start().await;
    b.open("/?chip=h100&op=llm:preset=llama3-8b,b=1,ctx=2048&sweep=b:1..512")
        .await;
    let m = b.row_metrics("0", 0).await;
    // Llama-3 8B decode, B = 1, bf16: ≈ 15.3 GB of weights (embedding table excluded) plus the KV
    // cache, at 3.35e12 B/s: ≈ 4.56 ms per step, so ≈ 219 tokens/s.
    let t = num(&m, "t_lower");
    assert!((4.4e-3..4.7e-3).contains(&t), "step {t}");
    assert!(close_to(num(&m, "tokens_per_s"), 1.0 / t, 1e-9));
    assert!(num(&m, "memory") > 15e9);
    assert_eq!(m["fits"], "true");
    let hidden = b
        .js("return document.querySelector(\"tr[data-op='0.0']\") === null")
        .await;
    assert_eq!(
        hidden.as_bool(),
        Some(true),
        "parts should start collapsed under the model's row"
    );
    b.click("[data-toggle-parts]").await;
    let part = b.row_metrics("0.0", 0).await;
    assert!(
        part.contains_key("t_lower") && part.contains_key("bound"),
        "{part:?}"
    );
    // The open parts follow an edit (the table formats them only once opened): at B = 1 the
    // attention scores read the query (32 heads × 128 × 2 B = 8,192 B) and the cache (8 KV heads
    // × 128 × 2 B × ctx per layer), so ctx 2048 → 4096 moves its bound by
    // (8,192 + 8,388,608) / (8,192 + 4,194,304) = 1.99805.
    let scores = r#"return [...document.querySelectorAll("tr.part-row")]
        .find(r => r.querySelector('.name').textContent.includes('attention scores'))
        .querySelector("[data-metric='t_lower']").dataset.value"#;
    let before: f64 = b.js(scores).await.as_str().unwrap().parse().unwrap();
    b.set_input("[data-op='0'] input[name='ctx']", "4096").await;
    let mut after = before;
    for _ in 0..50 {
        after = b.js(scores).await.as_str().unwrap().parse().unwrap();
        if after != before {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(
        close_to(after / before, 8_396_800.0 / 4_202_496.0, 1e-9),
        "attention scores {before} → {after}"
    );
    b.set_input("[data-op='0'] input[name='ctx']", "2048").await;
    b.click("tr[data-op='0'][data-chip='0']").await;
    let parts = b
        .js("return document.querySelectorAll(\"[data-derivation='0'] li\").length")
        .await;
    assert!(
        parts.as_i64().unwrap() > 8,
        "the model's derivation should list its parts: {parts}"
    );
    b.click("button[data-sweep-metric='fraction']").await;
    let label = b
        .js("return document.querySelector('canvas[data-chart]').getAttribute('aria-label')")
        .await;
    assert!(
        label.as_str().unwrap().starts_with("Fraction of peak"),
        "{label}"
    );
    assert!(b.canvas_ink("canvas[data-chart='sweep']").await > 5_000);
    b.js("window.scrollTo(0, 0)").await;
    b.screenshot("llm-decode-h100").await;
    b.open("/?chip=tpu-v5e&op=llm:preset=llama3-8b,b=1,ctx=2048&sweep=b:1..512")
        .await;
    let m = b.row_metrics("0", 0).await;
    assert!(m["parts_bound"].contains("=memory"), "{m:?}");
    b.click("button[data-sweep-metric='fraction']").await;
    b.js("window.scrollTo(0, 0)").await;
    b.screenshot("llm-decode-tpu-v5e").await;
    assert!(b.console_errors().await.is_empty());
    b.close().await;
}

#[tokio::test(flavor = "current_thread")]
async fn hidpi_sizing_resize_readout_and_dark_theme() {
    let b = Browser::start().await;
    b.open("/?theme=dark").await;
    let theme = b.js("return document.documentElement.dataset.theme").await;
    assert_eq!(theme.as_str(), Some("dark"));
    let sizes = "const c = document.querySelector('canvas[data-chart]'); return [c.width, c.clientWidth, window.devicePixelRatio]";
    let v = b.js(sizes).await;
    let (w, cw, dpr) = (
        v[0].as_f64().unwrap(),
        v[1].as_f64().unwrap(),
        v[2].as_f64().unwrap(),
    );
    assert!(
        (w - (cw * dpr).round()).abs() <= 1.0,
        "canvas {w} px for {cw} CSS px at dpr {dpr}"
    );
    let corner = b.js("const g = document.querySelector('canvas[data-chart]').getContext('2d'); return [...g.getImageData(2, 2, 1, 1).data]").await;
    let lum: f64 = corner.as_array().unwrap()[..3]
        .iter()
        .map(|x| x.as_f64().unwrap())
        .sum::<f64>()
        / 3.0;
    assert!(
        lum < 80.0,
        "dark theme should draw a dark background, got {corner}"
    );
    // The width follows the container.
    b.client.set_window_size(1100, 900).await.unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    loop {
        let now = b.js(sizes).await[0].as_f64().unwrap();
        if (now - w).abs() > 20.0 {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "canvas did not follow the window: {now} px"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    // Readout of the nearest point under the pointer: scan down the middle of the plot.
    let text = b
        .client
        .execute_async(
            r#"const done = arguments[arguments.length - 1];
            const c = document.querySelector('canvas[data-chart]');
            const r = c.getBoundingClientRect();
            const out = document.querySelector('.chart .readout');
            (async () => {
              for (let y = r.top + 5; y < r.bottom; y += 4) {
                c.dispatchEvent(new MouseEvent('mousemove', {clientX: r.left + r.width * 0.3, clientY: y, bubbles: true}));
                await new Promise(ok => setTimeout(ok, 0));
                if (out.textContent.trim()) return done(out.textContent);
              }
              done('');
            })();"#,
            vec![],
        )
        .await
        .unwrap();
    let text = text.as_str().unwrap_or_default().to_string();
    assert!(
        text.contains("batch size B = ") && text.contains("achieved FLOPs/s = "),
        "readout: {text:?}"
    );
    // In the units of the results table (`164 TFLOP/s`, issue 17), not `1.64e14`.
    assert!(
        text.trim_end().ends_with("FLOP/s") && !text.contains("e1"),
        "readout: {text:?}"
    );
    let rows = b
        .js("return document.querySelectorAll('[data-chart-table] tbody tr').length")
        .await;
    assert!(
        rows.as_i64().unwrap() > 10,
        "screen-reader table rows: {rows}"
    );
    assert!(b.console_errors().await.is_empty());
    b.close().await;
}

#[tokio::test(flavor = "current_thread")]
async fn both_plots_show_together_and_redraw_only_what_changed() {
    let b = Browser::start().await;
    b.open("/").await;
    b.click("button[data-plot='both']").await;
    b.wait_for("canvas[data-chart='roofline']").await;
    for chart in ["sweep", "roofline"] {
        let css = format!("canvas[data-chart='{chart}']");
        assert!(b.canvas_ink(&css).await > 5_000, "{chart} looks blank");
    }
    assert!(
        b.settled_search().await.contains("plot=both"),
        "the URL does not say plot=both"
    );
    // The sweep's y axis changes only the sweep.
    let (sweep, roof) = (
        b.canvas_hash("canvas[data-chart='sweep']").await,
        b.canvas_hash("canvas[data-chart='roofline']").await,
    );
    b.click("button[data-sweep-metric='time']").await;
    assert_ne!(b.canvas_hash("canvas[data-chart='sweep']").await, sweep);
    assert_eq!(b.canvas_hash("canvas[data-chart='roofline']").await, roof);
    // An edit of D moves the roofline point too.
    b.set_input("[data-op='0'] input[name='d']", "8192").await;
    assert_ne!(b.canvas_hash("canvas[data-chart='roofline']").await, roof);
    // Two screen-reader tables, one per plot.
    let tables = b
        .js("return [...document.querySelectorAll('[data-chart-table]')].map(t => t.dataset.chartTable)")
        .await;
    assert_eq!(tables, serde_json::json!(["sweep", "roofline"]));
    b.screenshot("both-plots").await;
    assert!(b.console_errors().await.is_empty());
    b.close().await;
}

#[tokio::test(flavor = "current_thread")]
async fn cards_are_keyed_by_stable_ids_and_their_inputs_follow_the_scenario() {
    let b = Browser::start().await;
    b.open("/").await;
    // Tag the two cards' DOM nodes: a keyed list moves nodes, it does not rebuild them.
    b.js("document.querySelectorAll('.card[data-op]').forEach((c, i) => c.__tag = 'card' + i)")
        .await;
    let tags = "return [...document.querySelectorAll('.card[data-op]')].map(c => [c.__tag ?? null, c.dataset.op, c.querySelector('input[name=label]').value, c.querySelector('input[name=d]').value])";
    b.set_input(".card[data-op='0'] input[name='label']", "first")
        .await;
    b.click(".card[data-op='0'] button[title='Move down']")
        .await;
    assert_eq!(
        b.js(tags).await,
        serde_json::json!([["card1", "0", "", "1024"], ["card0", "1", "first", "4096"]]),
        "moving a card should move its DOM node"
    );
    let search = b.settled_search().await;
    let first = search.find("d=1024").unwrap_or(usize::MAX);
    let second = search.find("label=first").unwrap_or(0);
    assert!(
        first < second,
        "the link does not follow the order: {search}"
    );
    // The moved card still edits its own operation.
    b.set_input(".card[data-op='1'] input[name='d']", "2048")
        .await;
    // (F = 4096 is the kind's default, so the link leaves it out.)
    let search = b.settled_search().await;
    assert!(
        search.contains("op=matmul:d=2048,w=int8,label=first"),
        "{search}"
    );
    // A refused value leaves its message; a recipe replaces the scenario: the card that keeps
    // its position keeps its node and takes the recipe's values, and its message goes.
    b.set_input(".card[data-op='0'] input[name='d']", "-5")
        .await;
    let invalid = "return document.querySelector(\".card[data-op='0'] input[name='d']\").getAttribute('aria-invalid')";
    assert_eq!(b.js(invalid).await.as_str(), Some("true"));
    b.click("button[data-recipe='network']").await;
    assert_eq!(
        b.js(tags).await,
        serde_json::json!([["card1", "0", "2-way D split", "16384"]]),
        "the recipe's values should show in the remaining card"
    );
    assert_eq!(b.js(invalid).await.as_str(), Some("false"));
    let shards = b
        .js("return document.querySelector(\".card[data-op='0'] select[name='shards']\")?.value ?? document.querySelector(\".card[data-op='0'] input[name='shards']\").value")
        .await;
    assert_eq!(shards.as_str(), Some("2"));
    let sweep = b
        .js("return [document.querySelector('select[name=sweep]').value, document.querySelector('input[name=sweep-from]').value, document.querySelector('input[name=sweep-to]').value]")
        .await;
    assert_eq!(sweep, serde_json::json!(["d", "512", "32768"]));
    assert!(b.console_errors().await.is_empty());
    b.close().await;
}
