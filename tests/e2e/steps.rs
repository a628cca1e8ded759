//! End-to-end: a serving engine's steps (issue 43) in headless Chromium against `dist/`. The
//! project's own fixtures, one per dialect (SGLang `step[…]`, vLLM `execute_…`, ROCm ATOM
//! `prefill[…]`/`decode[…]`), plain and gzip-compressed as the engines write them, chosen with
//! the file picker at a desktop's and a phone's width: the step table's figures against the
//! fixtures' measured times and hand-counted `T_lower`; then a fit of the user's own engine,
//! refused by the guard on too few steps, applied from a trace of eight steady decode steps
//! (`engine=own:` in the link, a removable chip), and removed; and a new trace shown in stages
//! a frame apart: the step table, the kernels' table, the plot.
//!
//! The hand counts: Llama-3 8B (Meta's config.json: d 4096, 32 layers, 32 query and 8 KV heads
//! of 128, MLP 14336, vocabulary 128256) in bf16 on an H100 (9.89e14 FLOP/s, 3.35e12 B/s).
//! A decode step reads every weight once: per layer Q and O 4096², K and V 4096·1024, MLP
//! 3·4096·14336 (218,103,808), ×32, and the LM head 4096·128256: 15,009,316,864 bytes; and
//! 131,072 bytes of K and V per key (8·128·2 bytes each, 32 layers).
#![cfg(not(target_arch = "wasm32"))]

use std::collections::HashMap;

use e2e_harness::{close_to, num, root, Browser};
use roofline::profile::OwnEngine;

const PAGE: &str = "/?chip=h100&op=llm:preset=llama3-8b";
const WEIGHT_BYTES: f64 = 2.0 * (32.0 * 218_103_808.0 + 525_336_576.0);
const KV_PER_KEY: f64 = 2.0 * 8.0 * 128.0 * 2.0 * 32.0;
const HBM: f64 = 3.35e12;

/// A decode step's bound at `keys` keys in all (memory-bound; activations and norms add under
/// 0.2 % at these batches).
fn decode_bound(keys: f64) -> f64 {
    (WEIGHT_BYTES + keys * KV_PER_KEY) / HBM
}

fn fixture(name: &str) -> String {
    root()
        .join("crates/roofline/tests/fixtures/profiles")
        .join(name)
        .display()
        .to_string()
}

/// The step rows: `data-step` → metric → `(data-value, text)`.
async fn step_rows(b: &Browser) -> HashMap<String, HashMap<String, (String, String)>> {
    let v = b
        .js(
            r#"return [...document.querySelectorAll('tr[data-step]')].map(r => {
            const m = {};
            r.querySelectorAll('[data-metric]').forEach(e => m[e.dataset.metric] = [e.dataset.value, e.textContent]);
            return [r.dataset.step, m];
        });"#,
        )
        .await;
    serde_json::from_value::<Vec<(String, HashMap<String, (String, String)>)>>(v)
        .unwrap()
        .into_iter()
        .collect()
}

async fn import(b: &Browser, path: &str, n: usize, first: &str) {
    let input = b.wait_for("input[type=file][name=profile]").await;
    input.send_keys(path).await.unwrap();
    // The new file's rows (the last file's may still be there).
    for _ in 0..200 {
        let got = b
            .js(&format!(
                "const r = document.querySelectorAll('tr[data-step]'); \
                 return r.length === {n} && (document.querySelector('[data-profile-summary]') || {{}}).textContent.includes({first:?})"
            ))
            .await;
        if got.as_bool() == Some(true) {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!(
        "{path}: no {n} step rows; error: {:?}",
        b.text("#profile-msg").await
    );
}

fn value(m: &HashMap<String, HashMap<String, (String, String)>>, step: &str, metric: &str) -> f64 {
    let v: HashMap<String, String> = m[step]
        .iter()
        .map(|(k, (v, _))| (k.clone(), v.clone()))
        .collect();
    num(&v, metric)
}

/// Every dialect, plain and gzip, at a desktop's and a phone's width.
#[tokio::test(flavor = "current_thread")]
async fn each_dialects_steps_against_hand_counted_bounds() {
    let b = Browser::start().await;
    b.open(PAGE).await;
    for (width, files) in [
        (
            None,
            [
                "sglang-steps.json",
                "vllm-steps.json.gz",
                "atom-steps.json.gz",
            ],
        ),
        (
            Some((390, 844)),
            ["sglang-steps.json.gz", "vllm-steps.json", "atom-steps.json"],
        ),
    ] {
        b.viewport(width).await;
        // SGLang: six steps. Step 1 decodes 2 sequences over 1025 + 2049 = 3074 keys:
        // T_lower = (15,009,316,864 + 3074·131,072) / 3.35e12 = 4.601 ms; measured 6.0 ms.
        import(&b, &fixture(files[0]), 6, files[0]).await;
        let rows = step_rows(&b).await;
        assert_eq!(rows["1"]["phase"].0, "decode");
        assert_eq!(rows["1"]["batch"].0, "2");
        assert!(close_to(value(&rows, "1", "measured"), 6.0e-3, 1e-9));
        let t = value(&rows, "1", "t_lower");
        assert!(close_to(t, decode_bound(3074.0), 2e-3), "{t}");
        assert!(close_to(value(&rows, "1", "ratio"), 6.0e-3 / t, 1e-9));
        // Step 0, prompts of 1024 and 2048: 4.4256e13 FLOPs of compute-bound parts at 9.89e14
        // and 4.3222e9 bytes of memory-bound ones (64 norms and the embedding gather of 3072
        // rows, the LM head's weights) at 3.35e12: 44.748 + 1.290 = 46.04 ms.
        let prefill = (2.0 * 32.0 * 218_103_808.0 * 3072.0
            + 4.0 * 128.0 * 32.0 * 32.0 * 2_622_976.0)
            / 9.89e14
            + (65.0 * 2.0 * 3072.0 * 4096.0 * 2.0 + 2.0 * 525_336_576.0) / HBM;
        assert_eq!(rows["0"]["phase"].0, "prefill");
        assert!(close_to(value(&rows, "0", "t_lower"), prefill, 1e-3));
        assert_eq!(rows["5"]["phase"].0, "verify");
        // The H100 is Hopper: the published set's expectation, above the bound.
        assert!(value(&rows, "1", "t_expected") > t);
        // The steady window and its groups (batches 2, 2, 2, 3, 3, 2: steps 3 and 4).
        let window = b.text("[data-steps-window]").await;
        assert!(window.contains("steady state: 2 steps"), "{window}");
        let groups = b
            .js("return document.querySelectorAll('tr[data-step-group]').length")
            .await;
        assert_eq!(groups.as_u64(), Some(2));

        // vLLM: the fifth step's plain name has no bound, and says which flag gives one.
        import(&b, &fixture(files[1]), 5, files[1]).await;
        let rows = step_rows(&b).await;
        assert_eq!(rows["4"]["t_lower"].0, "");
        assert!(
            rows["4"]["t_lower"].1.contains("detailed_trace_annotation"),
            "{:?}",
            rows["4"]["t_lower"]
        );
        assert!(close_to(
            value(&rows, "1", "t_lower"),
            decode_bound(3074.0),
            2e-3
        ));
        let caption = b.text("[data-steps-caption]").await;
        assert!(
            caption.contains("tp 1 from the trace's distributedInfo"),
            "{caption}"
        );

        // ATOM: its CUDA graph padded 2 sequences to 4; bounded at the real batch.
        import(&b, &fixture(files[2]), 4, files[2]).await;
        let rows = step_rows(&b).await;
        assert!(
            rows["1"]["batch"].1.contains("graph 4"),
            "{:?}",
            rows["1"]["batch"]
        );
        assert!(close_to(
            value(&rows, "1", "t_lower"),
            decode_bound(3074.0),
            2e-3
        ));
        assert_eq!(rows["2"]["phase"].0, "mixed");
        // Its times are an MI300X's: three steps beat their bound on chip 1, an H100, and the
        // panel says what that means (and offers the MI300X).
        b.wait_for("[data-steps-faster='3']").await;
        b.wait_for("[data-chip-offer='mi300x']").await;
        let notes = b.text("[data-profile-notes]").await;
        assert!(notes.contains("CUDA-graph capture"), "{notes}");

        // The panel stays within the screen (its tables scroll).
        let fits = b
            .js("const p = document.querySelector('[data-profile-panel]'); const r = p.getBoundingClientRect(); return [r.right, document.documentElement.clientWidth, p.scrollWidth, p.clientWidth]")
            .await;
        let v: Vec<f64> = fits
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect();
        assert!(v[0] <= v[1] + 1.0 && v[2] <= v[3] + 1.0, "{fits}");
        b.js("document.getElementById('steps-h').scrollIntoView()")
            .await;
        b.screenshot(if width.is_some() {
            "steps-phone"
        } else {
            "steps-desktop"
        })
        .await;
    }
    assert!(b.console_errors().await.is_empty());
    b.close().await;
}

/// A vLLM trace of `steps` detailed decode steps, `(batch, keys, measured seconds)` each, with
/// their GPU-side spans.
fn decode_trace(steps: &[(u32, u32, f64)]) -> String {
    let mut ev = Vec::new();
    let mut t = 1000.0;
    for (i, &(b, keys, secs)) in steps.iter().enumerate() {
        let name = format!(
            "execute_{b}_context_0(sq0sk0sqsq0sqsk0)_generation_{b}(sq{b}sk{keys}sqsq{b}sqsk{keys})"
        );
        let (ext, corr, us) = (100 + i, 500 + i, secs * 1e6);
        ev.push(format!(
            r#"{{"ph": "X", "cat": "user_annotation", "name": "{name}", "pid": 9, "tid": 9, "ts": {t:.3}, "dur": 200.0, "args": {{"External id": {ext}}}}}"#
        ));
        ev.push(format!(
            r#"{{"ph": "X", "cat": "cuda_runtime", "name": "cudaGraphLaunch", "pid": 9, "tid": 9, "ts": {:.3}, "dur": 5.0, "args": {{"correlation": {corr}}}}}"#,
            t + 10.0
        ));
        ev.push(format!(
            r#"{{"ph": "X", "cat": "kernel", "name": "decode_graph_kernel", "pid": 0, "tid": 7, "ts": {:.3}, "dur": {us:.3}, "args": {{"correlation": {corr}, "stream": 7}}}}"#,
            t + 50.0
        ));
        ev.push(format!(
            r#"{{"ph": "X", "cat": "gpu_user_annotation", "name": "{name}", "pid": 0, "tid": 7, "ts": {:.3}, "dur": {us:.3}, "args": {{"External id": {ext}}}}}"#,
            t + 50.0
        ));
        t += 100.0 + us;
    }
    format!(
        "{{\"deviceProperties\": [{{\"id\": 0, \"name\": \"NVIDIA H100 80GB HBM3\"}}],\n\"traceEvents\": [\n{}\n]}}\n",
        ev.join(",\n")
    )
}

/// Fit my engine: refused on the SGLang fixture (two steady steps), applied from eight steady
/// decode steps that took 1.25 × their bound + 0.3 ms, removed with its chip.
#[tokio::test(flavor = "current_thread")]
async fn my_engine_is_fitted_guarded_applied_and_removed() {
    let b = Browser::start().await;
    b.open(PAGE).await;
    import(&b, &fixture("sglang-steps.json"), 6, "sglang-steps.json").await;
    b.click("[data-action='fit-engine']").await;
    let why = b.text("[data-engine-refused]").await;
    assert!(why.contains("cannot determine"), "{why}");
    assert!(b
        .js("return document.querySelector(\"[data-action='apply-engine']\") === null")
        .await
        .as_bool()
        .unwrap());

    // Eight steps of 30 to 32 sequences (all steady) over 1500 to 3600 keys per sequence.
    let steps: Vec<(u32, u32, f64)> = (0..8)
        .map(|i| {
            let batch = 30 + (i % 3);
            let keys = batch * (1500 + 300 * i);
            (batch, keys, 1.25 * decode_bound(f64::from(keys)) + 3e-4)
        })
        .collect();
    let dir = std::env::temp_dir().join(format!("roofline-e2e-steps-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("my-engine.json");
    std::fs::write(&path, decode_trace(&steps)).unwrap();
    import(&b, &path.display().to_string(), 8, "my-engine.json").await;
    b.click("[data-action='fit-engine']").await;
    b.click("[data-action='apply-engine']").await;
    let chip = b.wait_for("[data-engine-chip]").await;
    let terms = chip.attr("data-engine-chip").await.unwrap().unwrap();
    let e = OwnEngine::parse(&terms).unwrap();
    // Every step is memory-bound: the memory factor is fitted (1.25, less the activations'
    // share the hand count leaves out), compute and collectives held at 1.
    assert!(close_to(e.memory, 1.25, 0.01), "{terms}");
    assert!((e.step - 3e-4).abs() < 1e-4, "{terms}");
    assert_eq!((e.compute, e.network), (1.0, 1.0));
    let search = b.settled_search().await;
    assert!(search.contains("engine=own%3A"), "{search}");
    // The steps' expectations are now my engine's.
    let own = b
        .js("return [...document.querySelectorAll('tr[data-step]')].every(r => r.dataset.basis === 'own')")
        .await;
    assert_eq!(own.as_bool(), Some(true));
    // ✕ removes it: back to the published engine, out of the link.
    b.click("[data-action='remove-engine']").await;
    for _ in 0..50 {
        if b.js("return document.querySelector('[data-engine-chip]') === null")
            .await
            .as_bool()
            == Some(true)
        {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let search = b.settled_search().await;
    assert!(!search.contains("engine="), "{search}");
    assert!(b.console_errors().await.is_empty());
    b.close().await;
    let _ = std::fs::remove_dir_all(&dir);
}

/// A long trace: 12,000 steady decode steps. The table counts every step, shows them fifty
/// at a time with a pager, and times each as the fixtures' are; an edit made while the
/// importer's worker reads the file is applied (the page never waits for the import).
#[tokio::test(flavor = "current_thread")]
async fn a_long_trace_counts_every_step_and_the_page_takes_edits_meanwhile() {
    const N: u32 = 12_000;
    let b = Browser::start().await;
    b.open(PAGE).await;
    // 30 to 32 sequences over 1,500 to 1,999 keys each; measured 1.25 × the bound + 0.3 ms.
    let steps: Vec<(u32, u32, f64)> = (0..N)
        .map(|i| {
            let batch = 30 + (i % 3);
            let keys = batch * (1500 + i % 500);
            (batch, keys, 1.25 * decode_bound(f64::from(keys)) + 3e-4)
        })
        .collect();
    let dir = std::env::temp_dir().join(format!("roofline-e2e-long-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("long-trace.json");
    std::fs::write(&path, decode_trace(&steps)).unwrap();
    let input = b.wait_for("input[type=file][name=profile]").await;
    input.send_keys(&path.display().to_string()).await.unwrap();
    // While the worker reads the trace (no step row yet), the context is edited.
    let busy = b
        .js(
            r#"const busy = document.querySelector('tr[data-step]') === null;
            const e = document.querySelector("[data-op='0'] input[name='ctx']");
            e.focus();
            e.value = '8192';
            e.dispatchEvent(new Event('input', {bubbles: true}));
            e.dispatchEvent(new Event('change', {bubbles: true}));
            return busy;"#,
        )
        .await;
    assert_eq!(
        busy.as_bool(),
        Some(true),
        "the import ended before the edit"
    );
    let search = b.settled_search().await;
    assert!(
        search.contains("ctx%3D8192") || search.contains("ctx=8192"),
        "{search}"
    );
    // Every step counted, the first fifty shown.
    let count = b.wait_for("[data-steps-count='12000']").await;
    let caption = count.text().await.unwrap();
    assert!(caption.contains("12,000 steps timed"), "{caption}");
    let shown = b
        .js("return [document.querySelectorAll('tr[data-step]').length, document.querySelector('[data-pager=steps]').dataset.shown, document.querySelector('[data-pager=steps]').textContent]")
        .await;
    assert_eq!(shown[0].as_u64(), Some(50), "{shown}");
    assert_eq!(shown[1].as_str(), Some("1-50"), "{shown}");
    assert!(
        shown[2].as_str().unwrap().contains("1–50 of 12,000"),
        "{shown}"
    );
    // The last page: steps 11,951 to 12,000, each bound as the hand count has it.
    b.js("const next = document.querySelector(\"[data-pager=steps] [data-action='page-next']\"); for (let i = 0; i < 239; i++) next.click();")
        .await;
    b.wait_for("[data-pager=steps][data-shown='11951-12000']")
        .await;
    let rows = step_rows(&b).await;
    assert_eq!(rows.len(), 50);
    let (batch, keys, secs) = steps[11_999];
    assert_eq!(rows["11999"]["batch"].0, batch.to_string());
    assert!(close_to(value(&rows, "11999", "measured"), secs, 1e-6));
    // 32 sequences over 63,968 keys: (15,009,316,864 + 63,968·131,072) / 3.35e12 = 6.983 ms;
    // at 32 sequences the activations and norms the hand count leaves out add about 1 %.
    let t = value(&rows, "11999", "t_lower");
    assert!(close_to(t, decode_bound(f64::from(keys)), 1.5e-2), "{t}");
    assert!(t > decode_bound(f64::from(keys)), "{t}");
    // All steady (the smallest batch is 30 of 32, above 90 %): three groups of 4,000.
    let window = b.text("[data-steps-window]").await;
    assert!(window.contains("steady state: 12,000 steps"), "{window}");
    let groups = b
        .js("return [...document.querySelectorAll('tr[data-step-group] [data-metric=steps]')].map(e => e.dataset.value)")
        .await;
    assert_eq!(groups, serde_json::json!(["4000", "4000", "4000"]));
    assert!(b.console_errors().await.is_empty());
    b.close().await;
    let _ = std::fs::remove_dir_all(&dir);
}

/// A new trace is shown in stages, each after a frame of its own (issue 43: no frame gap over
/// 50 ms while a long trace comes in): its step table, then its kernels' table, then the plot
/// redrawn with its steps. Frames are counted by an animation-frame loop; a row's frame is the
/// count when it entered the page, the plot's the count before the first frame that showed it
/// changed (a canvas is drawn in a task, then shown by the next frame).
#[tokio::test(flavor = "current_thread")]
async fn a_new_traces_steps_kernels_and_plot_come_a_frame_apart() {
    let b = Browser::start().await;
    b.open(&format!("{PAGE}&plot=both")).await;
    b.wait_for("canvas[data-chart='roofline']").await;
    b.js(
        r#"const canvas = document.querySelector("canvas[data-chart='roofline']");
        const look = () => {
            const d = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
            let h = 0;
            for (let i = 0; i < d.length; i += 4) h = (h * 31 + d[i] + 7 * d[i + 1] + 13 * d[i + 2]) | 0;
            return h;
        };
        const s = window.__stages = {frame: 0, plot0: look()};
        const loop = () => {
            s.frame++;
            if (s.plot === undefined && s.steps !== undefined && look() !== s.plot0) s.plot = s.frame - 1;
            requestAnimationFrame(loop);
        };
        requestAnimationFrame(loop);
        new MutationObserver(() => {
            if (s.steps === undefined && document.querySelector('tr[data-step]')) s.steps = s.frame;
            if (s.kernels === undefined && document.querySelector('tr[data-measured]')) s.kernels = s.frame;
        }).observe(document.body, {subtree: true, childList: true});
        return 0;"#,
    )
    .await;
    import(&b, &fixture("sglang-steps.json"), 6, "sglang-steps.json").await;
    let mut stages = serde_json::Value::Null;
    for _ in 0..100 {
        stages = b
            .js("const s = window.__stages; return [s.steps, s.kernels, s.plot];")
            .await;
        if stages[2].is_u64() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let [steps, kernels, plot] = [0, 1, 2].map(|i| {
        stages[i]
            .as_u64()
            .unwrap_or_else(|| panic!("stage {i} never seen: {stages}"))
    });
    assert!(
        steps < kernels && kernels < plot,
        "[steps, kernels, plot] drawn in frames {stages}: each should come a frame after the one before"
    );
    b.close().await;
}
