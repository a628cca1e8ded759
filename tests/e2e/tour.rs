//! End-to-end: issue 38's page as a newcomer meets it, at 1400, 768 and 390 px. One figure per
//! question (point 4), the expected time inline (point 5), layouts that hold (point 7), small
//! plots (point 9), no leaked units or words (point 10), a first screen that leads somewhere
//! (point 11); axe-core in every state opened. Screenshots: `target/e2e/tour-*.png` (copied to
//! `docs/screenshots/`).
#![cfg(not(target_arch = "wasm32"))]

use e2e_harness::{num, Browser};
use serde_json::Value;

/// An LLM step on two chips with a baseline, a collective and a training step: every kind of
/// row the table has (a total row with parts and a serving row, a collective's own figures, a
/// training step's MFU, days and cost).
const MIXED: &str =
    "/?chip=h100&chip=b200&op=llm:preset=llama3-8b,b=64,ctx=4096,prompt=2048,output=2048\
     &op=collective:bytes=1e6,n=8,topology=node&op=train:dp=1,fsdp=8,tp=1&base=1.1";

const WIDTHS: [(u32, u32); 3] = [(1400, 1000), (768, 1000), (390, 844)];

async fn no_violations(b: &Browser, what: &str) {
    let v = b.axe().await;
    assert!(v.is_empty(), "{what}: axe found\n{}", v.join("\n"));
}

/// What overflows in the results: the panel, the table, and every visible element whose box
/// runs past the panel's right edge or whose content is wider than its own box.
const OVERFLOW: &str = r#"
const panel = document.querySelector('#results');
const p = panel.getBoundingClientRect();
const out = [];
if (panel.scrollWidth > panel.clientWidth + 1) out.push(`panel ${panel.scrollWidth} > ${panel.clientWidth}`);
for (const e of panel.querySelectorAll('*')) {
  if (e.getClientRects().length === 0) continue;
  const r = e.getBoundingClientRect();
  const what = `${e.tagName.toLowerCase()}.${e.className}[${e.dataset.metric || ''}]`;
  if (r.right > p.right + 1) out.push(`${what} ends at ${Math.round(r.right)} > ${Math.round(p.right)}`);
  else if (e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX !== 'visible')
    out.push(`${what} scrolls: ${e.scrollWidth} > ${e.clientWidth}`);
}
return out.slice(0, 10);
"#;

/// Every figure of a result row with no header over it nor a label beside it: in the table,
/// the i-th visible cell of a row under the i-th visible header; as cards, the cell's own
/// label (`data-label`), or, in the last column, each figure's.
const UNLABELLED: &str = r#"
const cards = getComputedStyle(document.querySelector('tr.result-row')).display === 'block';
const visible = e => e.getClientRects().length > 0 && getComputedStyle(e).display !== 'none';
const heads = [...document.querySelectorAll('.results-table thead th')].filter(visible).map(h => h.textContent.trim());
const out = [];
for (const tr of document.querySelectorAll('.results-table tr.result-row:not(.serving-row)')) {
  const tds = [...tr.children].filter(visible);
  tds.forEach((td, i) => {
    if (td.classList.contains('name') || td.classList.contains('error-cell')) return;
    if (!td.textContent.trim()) return;
    const label = cards ? (td.dataset.label || '') : (heads[i] || '');
    if (!label) out.push(`${tr.dataset.op}/${tr.dataset.chip}: ${td.className} "${td.textContent.trim().slice(0, 40)}"`);
  });
}
return out;
"#;

/// Point 7: at 1400, 768 and 390 px no results element is wider than its container; below
/// 900 px the rows are cards; every figure has a headed column or a labelled line. With a
/// baseline, an LLM, a collective and a training step, the widest table there is. Point 10:
/// no figure of the page leaks an exponent or mixed units.
#[tokio::test(flavor = "current_thread")]
async fn the_results_fit_every_width_and_every_figure_is_named() {
    let b = Browser::start().await;
    for (w, h) in WIDTHS {
        b.viewport(Some((w, h))).await;
        b.open(MIXED).await;
        b.wait_for("tr.result-row[data-op='2'] [data-metric='t_lower']")
            .await;
        let page = b
            .js("const e = document.documentElement; return [e.scrollWidth, e.clientWidth]")
            .await;
        assert!(
            page[0].as_f64() <= page[1].as_f64(),
            "{w}×{h}: the page scrolls sideways {page}"
        );
        let over = b.js(OVERFLOW).await;
        assert_eq!(over, Value::Array(vec![]), "{w}×{h}: {over}");
        let display = b
            .js("return getComputedStyle(document.querySelector('tr.result-row')).display")
            .await;
        assert_eq!(
            display,
            if w < 900 { "block" } else { "table-row" },
            "{w}×{h}: cards below 900 px"
        );
        let unlabelled = b.js(UNLABELLED).await;
        assert_eq!(unlabelled, Value::Array(vec![]), "{w}×{h}: {unlabelled}");
        // The test contract holds in cards as in the table.
        let m = b.row_metrics("0", 1).await;
        for k in ["t_lower", "t_expected", "fits", "vs_base", "time_per_token"] {
            assert!(m.contains_key(k), "{w}×{h}: {k} missing: {m:?}");
        }
        // Point 10: no exponent and no figure in two unit systems anywhere in the results.
        let text = b
            .js("return document.querySelector('#results').innerText")
            .await;
        let text = text.as_str().unwrap();
        for leak in ["e+", "e18", "e23", "e6 days"] {
            assert!(!text.contains(leak), "{w}×{h}: {leak:?} in {text:.400}");
        }
        b.screenshot(&format!("tour-results-{w}x{h}")).await;
        no_violations(&b, &format!("results at {w}×{h}")).await;
    }
    // The first screen with the examples, at each width.
    for (w, h) in WIDTHS {
        b.viewport(Some((w, h))).await;
        b.open("/").await;
        b.wait_for("[data-example-link]").await;
        b.screenshot(&format!("tour-first-screen-{w}x{h}")).await;
    }
    assert!(b.console_errors().await.is_empty());
    b.close().await;
}

/// Point 4: one step time and one time per output token, each naming its context, the same in
/// the row, the key line and the serving row. LLaMA 3-70B int8 on a v5e 4x2 with the book's
/// 16 GB (the "max batch" example), B = 42, ctx 2048, P = 7680, G = 512: the key line's step is
/// the row's `T_lower` at ctx 2048; the serving row's TPOT is a decode step at P + G/2 = 7936;
/// the step's fit is judged at ctx 2048 and says so in the capacity's units (16 GB, decimal),
/// the largest batch at P + G = 8192; the figure labelled "step ÷ tokens" is the step over
/// B = 42.
#[tokio::test(flavor = "current_thread")]
async fn one_step_time_and_one_tpot_each_naming_its_context() {
    let b = Browser::start().await;
    b.open("/?chip=tpu-v5e:hbm_cap=16e9&op=llm:preset=llama3-70b,w=int8,x=int8,kv=int8,tp=8,prompt=7680,output=512,b=42")
        .await;
    let m = b.row_metrics("0", 0).await;
    let step = num(&m, "t_lower");
    assert!(
        (num(&m, "time_per_token") - step / 42.0).abs() < 1e-12,
        "{m:?}"
    );
    let key = b.text("[data-keyline]").await;
    let step_text = roofline::units::format_quantity(step, roofline::units::Unit::Seconds);
    assert!(
        key.contains(&format!("step {step_text} at ctx 2048")),
        "{key} lacks step {step_text} at ctx 2048"
    );
    assert!(!key.contains("per sequence"), "{key}");
    let cells = b
        .js("const r = document.querySelector(\"tr[data-op='0'][data-chip='0']\"); return [r.querySelector(\"[data-metric='fits']\").textContent, document.querySelector(\"[data-op='0.serving'] [data-metric='tpot']\").textContent, document.querySelector(\"[data-op='0.serving'] [data-metric='max_batch']\").textContent, r.querySelector(\"[data-metric='time_per_token']\").closest('.kind-cell').querySelector('.kind-label').textContent.trim()]")
        .await;
    let fits = cells[0].as_str().unwrap();
    assert!(fits.ends_with("of 16 GB at ctx 2048"), "{fits}");
    assert!(!fits.contains("GiB"), "{fits}");
    assert!(
        cells[1].as_str().unwrap().contains("at P + G/2 = 7936"),
        "{cells}"
    );
    let max_b = cells[2].as_str().unwrap();
    assert!(max_b.contains("at P + G = 8192"), "{max_b}");
    assert!(!max_b.contains("does not fit"), "one verdict only: {max_b}");
    assert_eq!(cells[3], "step ÷ tokens");
    // A chip whose capacity the vendor writes in GiB: what is held in GiB too.
    b.open("/?chip=tpu-v5e&op=llm:preset=llama3-8b,b=8").await;
    let fits = b
        .js("return document.querySelector(\"tr[data-op='0'][data-chip='0'] [data-metric='fits']\").textContent")
        .await;
    let fits = fits.as_str().unwrap();
    assert!(
        fits.contains("GiB of 16 GiB") && !fits.contains(" GB "),
        "{fits}"
    );
    no_violations(&b, "an llm row").await;
    b.close().await;
}

/// Point 5: the expected time inline, `≈ 26.9 µs (21.7–32.9)`, its three figures each an element
/// with its own `data-value` and a basis, the column's header one sentence on hover; on a card
/// the same. The validation view opens with its scatter and one plain sentence, its
/// statistics below; the scatter carries a bar per point (its held-out expectation's band).
#[tokio::test(flavor = "current_thread")]
async fn the_expected_time_reads_inline_and_the_validation_view_opens_with_its_scatter() {
    let b = Browser::start().await;
    for (w, h) in [(1400, 1000), (390, 844)] {
        b.viewport(Some((w, h))).await;
        b.open("/").await;
        let v = b
            .js(r#"const r = document.querySelector("tr.result-row[data-op='0']");
                const f = m => r.querySelector(`[data-metric='${m}']`);
                const td = f('t_expected').closest('td');
                return [td.textContent.replace(/\s+/g, ' ').trim(), f('t_expected').dataset.value, f('t_expected_lo').dataset.value, f('t_expected_hi').dataset.value, f('t_expected').dataset.basis, td.closest('table').querySelector("th[data-col='t_expected']").title, getComputedStyle(f('t_expected_lo')).display];"#)
            .await;
        let text = v[0].as_str().unwrap();
        // The bound 20.5 µs (16.8 MB at 820 GB/s) × r = 26.9 µs, r = (1.30 memory + 0.837 µs
        // launch / 20.5 µs) × 0.976, the gemm kind's bias (set 2026-11-29.1) = 1.311; its band
        // 21.7 to 32.9 µs.
        assert!(
            text.starts_with("≈ 26.9 µs") && text.contains("(21.7–32.9)"),
            "{w}×{h}: {text}"
        );
        let value = |i: usize| v[i].as_str().unwrap().parse::<f64>().unwrap();
        assert!(value(2) < value(1) && value(1) < value(3), "{v}");
        assert!(
            ["chip", "family", "pooled"].contains(&v[4].as_str().unwrap()),
            "{v}"
        );
        let help = v[5].as_str().unwrap();
        assert!(
            help.starts_with("Expected: ") && help.matches(". ").count() == 0,
            "one sentence: {help}"
        );
        assert_ne!(v[6], "none", "{w}×{h}: the band is hidden");
    }
    b.viewport(Some((1400, 1000))).await;
    b.open("/?chip=h100&plot=validation").await;
    b.wait_for("tr[data-validation-id]").await;
    let order = b
        .js("return [...document.querySelector('.validation').children].slice(0, 3).map(e => e.className + (e.querySelector('canvas') ? ' canvas' : ''))")
        .await;
    assert!(
        order[0].as_str().unwrap().contains("canvas")
            && order[1].as_str().unwrap().contains("validation-lead"),
        "{order}"
    );
    let lead = b.text("[data-validation-lead]").await;
    assert_eq!(lead.matches(". ").count(), 0, "one sentence: {lead}");
    let expected = b
        .js("return [...document.querySelectorAll(\"tr[data-validation-id] [data-metric='t_expected']\")].map(e => e.dataset.basis)")
        .await;
    assert!(
        expected
            .as_array()
            .unwrap()
            .iter()
            .all(|b| ["chip", "family", "pooled", "none"].contains(&b.as_str().unwrap_or(""))),
        "{expected}"
    );
    // Issue 39: the view says what the nested hold-out held out, names the old figure, and
    // lists band coverage per kind (the whole set first) and each tail.
    let said = b
        .js("return ['held-out', 'old', 'coverage', 'factors', 'tails'].map(k => { const e = document.querySelector(`[data-validation-${k}]`); return e ? [e.textContent, e.children.length] : null; })")
        .await;
    let part = |i: usize| {
        (
            said[i][0].as_str().unwrap_or(""),
            said[i][1].as_u64().unwrap_or(0),
        )
    };
    assert!(part(0).0.contains("source"), "what was held out: {said}");
    assert!(
        part(1).0.starts_with("Before the nested hold-out"),
        "{said}"
    );
    let coverage = part(2).0;
    assert!(
        part(2).1 >= 8 && coverage.contains("held-out p10–p90 band") && coverage.contains("75–85%"),
        "coverage: the whole set and seven kinds: {said}"
    );
    assert!(
        part(3).1 >= 1 && part(4).1 == 4,
        "factors, four tails: {said}"
    );
    b.screenshot("tour-validation-1400x1000").await;
    no_violations(&b, "validation view").await;
    b.close().await;
}

/// Point 11: four worked examples under the key line, in the first screen at every width; plain
/// links in the page drawn before the app (they open their example without it); in the app a
/// click loads the example, its answer shows by the plot, and Back returns. Hovering the plot
/// rings the point the read-out names.
#[tokio::test(flavor = "current_thread")]
async fn the_first_screen_leads_to_examples_and_marks_what_it_reads_out() {
    let b = Browser::start().await;
    let want: Vec<String> = roofline_lab::view::recipes::try_next()
        .into_iter()
        .map(|(_, _, _, q)| format!("?{q}"))
        .collect();
    assert_eq!(want.len(), 4);
    let links = "return [...document.querySelectorAll('[data-example-link]')].filter(e => e.getClientRects().length > 0).map(e => [e.getAttribute('href'), e.getBoundingClientRect().bottom <= innerHeight])";
    for (w, h) in WIDTHS {
        b.viewport(Some((w, h))).await;
        // Before the app: plain links, in the first screen.
        b.open_without_app("/").await;
        let got = b.js(links).await;
        let hrefs: Vec<&str> = got
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l[0].as_str().unwrap())
            .collect();
        assert_eq!(hrefs, want, "{w}×{h}, before the app");
        assert!(
            got.as_array().unwrap().iter().all(|l| l[1] == true),
            "{w}×{h}: an example below the first screen {got}"
        );
        b.allow_wasm().await;
        b.open("/").await;
        let got = b.js(links).await;
        assert!(
            got.as_array().unwrap().iter().all(|l| l[1] == true)
                && got.as_array().unwrap().len() == 4,
            "{w}×{h}, the app: {got}"
        );
    }
    // A link before the app opens its example.
    b.viewport(Some((1400, 1000))).await;
    b.open_without_app("/").await;
    b.click("[data-example-link='q5-h100']").await;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while b.js("return location.search").await.as_str() != Some(&want[1]) {
        assert!(
            std::time::Instant::now() < deadline,
            "the link did not open"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    b.allow_wasm().await;
    // The blocked wasm's failed requests are the browser's errors, not the page's.
    let _ = b.console_errors().await;
    // In the app: one click loads it as the buttons do; its answer sits by the plot.
    b.open("/").await;
    b.click("[data-example-link='llama3-8b-decode']").await;
    let answer = b
        .js("const a = document.querySelector('[data-recipe-answer]'); const p = a.closest('section'); return [!!p.querySelector('canvas'), a.getBoundingClientRect().top < document.querySelector('#results').getBoundingClientRect().top, a.textContent]")
        .await;
    assert_eq!(
        answer[0], true,
        "the answer is not in the plot's panel: {answer}"
    );
    assert_eq!(answer[1], true, "{answer}");
    assert!(
        answer[2].as_str().unwrap().contains("Llama-3 8B decode"),
        "{answer}"
    );
    assert_eq!(
        roofline::url::decode(&b.settled_search().await).scenario,
        roofline::url::decode(&want[0]).scenario
    );
    no_violations(&b, "an example loaded").await;
    // The hover read-out's point is ringed on the plot.
    let hit = b
        .client
        .execute_async(
            r#"const done = arguments[arguments.length - 1];
            const c = document.querySelector("canvas[data-chart='sweep']");
            const r = c.getBoundingClientRect();
            const frame = () => new Promise(f => requestAnimationFrame(() => f()));
            (async () => {
              for (let fy = 0.1; fy < 0.95; fy += 0.04) for (let fx = 0.1; fx < 0.98; fx += 0.04) {
                const x = r.left + fx * r.width, y = r.top + fy * r.height;
                c.dispatchEvent(new MouseEvent('mousemove', { clientX: x, clientY: y, bubbles: true }));
                await frame();
                const text = document.querySelector('.chart .readout').textContent;
                const ring = document.querySelector('[data-hover-mark] circle');
                if (text && ring) {
                  const m = ring.getBoundingClientRect();
                  done([text, Math.hypot(m.left + m.width / 2 - x, m.top + m.height / 2 - y)]);
                  return;
                }
              }
              done(null);
            })();"#,
            vec![],
        )
        .await
        .unwrap();
    assert!(hit.is_array(), "no read-out anywhere on the plot");
    assert!(
        hit[1].as_f64().unwrap() <= 30.0,
        "the ring is {} px from the pointer: {hit}",
        hit[1]
    );
    b.screenshot("tour-example-1400x1000").await;
    b.js("history.back()").await;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while b.js("return location.search").await.as_str() != Some("")
        && roofline::url::decode(b.js("return location.search").await.as_str().unwrap()).scenario
            != roofline::scenario::Scenario::default()
    {
        assert!(std::time::Instant::now() < deadline, "Back did not return");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(b.console_errors().await.is_empty());
    b.close().await;
}

/// Point 9: a 320×240 embed with a long key line (eight operations) keeps a plot: the key line
/// takes at most two lines (its whole text on hover), and the plot is not blank.
#[tokio::test(flavor = "current_thread")]
async fn a_small_embed_with_a_long_key_line_keeps_its_plot() {
    let b = Browser::start().await;
    b.viewport(Some((320, 240))).await;
    let ops: String = (1..=8)
        .map(|k| format!("&op=matmul:d={},f={}", 512 * k, 512 * k))
        .collect();
    b.open(&format!("/?embed=1&chip=tpu-v5e&chip=h100{ops}"))
        .await;
    b.wait_for("[data-chart='sweep'] svg").await;
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let v = b
        .js("const k = document.querySelector('.embed-foot .keyline'); const lh = parseFloat(getComputedStyle(k).lineHeight) || 16; const f = document.querySelector('[data-chart]'); return [k.getBoundingClientRect().height / lh, k.title.length > 200, f.getBoundingClientRect().height]")
        .await;
    assert!(
        v[0].as_f64().unwrap() <= 2.2,
        "the key line is {} lines",
        v[0]
    );
    assert_eq!(v[1], true, "the hover lacks the whole key line: {v}");
    assert!(
        v[2].as_f64().unwrap() >= 120.0,
        "the plot is {} px tall",
        v[2]
    );
    let ink = b.svg_marks("[data-chart='sweep']").await;
    assert!(ink > 40, "blank plot ({ink} marks)");
    b.screenshot("tour-embed-320x240").await;
    no_violations(&b, "a small embed").await;
    b.close().await;
}
