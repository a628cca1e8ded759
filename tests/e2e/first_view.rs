//! End-to-end, issue 27: a link's or an embed's own plot before the app. The draw program
//! (src/bin/draw.rs, a small wasm without Leptos) draws the link's plot, key line and results
//! into the page's skeleton; the app then takes over in place with the same figures.
#![cfg(not(target_arch = "wasm32"))]

use std::time::Duration;

use e2e_harness::{assert_boxes_kept, Browser, Options};
use serde_json::{json, Value};

const LINK: &str = "/?chip=h100&chip=b200&op=llm:preset=llama3-8b,b=64,ctx=4096";
/// The app's wasm (not the draw program's): blocked, the page stays as the draw program left it.
const APP_WASM: &str = "*/roofline-lab-*.wasm";

/// What is on screen before the app: the drawn view's parts, the front page's, the marks.
const DRAWN: &str = r#"
const shown = e => !!e && e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
const root = document.querySelector('[data-drawn-view]');
return {
  drawn: !!root,
  svgs: root ? [...root.querySelectorAll('.sv-plot svg')].filter(shown).length : 0,
  keyline: root && shown(root.querySelector('[data-drawn-keyline]')) ? root.querySelector('[data-drawn-keyline]').textContent : null,
  label: root && root.querySelector('.sv-plot') ? root.querySelector('.sv-plot').getAttribute('aria-label') : null,
  rows: root ? [...root.querySelectorAll('table.results-table tr')].map(tr => [...tr.children].map(c => c.textContent.trim()).join('|')) : [],
  front: document.querySelectorAll('[data-static-keyline], [data-front-question], .sv-front').length,
  skeleton: shown(document.querySelector('[data-static-view] .sv-plot')),
  marks: performance.getEntriesByType('mark').map(m => m.name),
};
"#;

/// The same figures from the app.
const APP: &str = r#"
const root = document.querySelector('main.app, main.embed-view');
return {
  keyline: root.querySelector('[data-keyline]').textContent,
  label: root.querySelector('canvas[data-chart]').getAttribute('aria-label'),
  rows: [...root.querySelectorAll('table.results-table tr')].map(tr => [...tr.children].map(c => c.textContent.trim()).join('|')),
};
"#;

async fn wait_js(b: &Browser, script: &str, ok: impl Fn(&Value) -> bool, what: &str) -> Value {
    let mut v = Value::Null;
    for _ in 0..250 {
        v = b.js(script).await;
        if ok(&v) {
            return v;
        }
        tokio::time::sleep(Duration::from_millis(40)).await;
    }
    panic!("{what} within 10 s: {v}");
}

/// With the app's wasm blocked, a link and an embed show their own plot (drawn, one SVG), key
/// line and results, never the front page's, and set `first-plot`; loaded normally, the app's
/// key line, plot label and results equal the drawn ones and the plot, key line and results stay
/// in their boxes (within 3 px), on a desktop window and at phone width. An embed needs no app:
/// it is ready as drawn (`an_embed_is_live_without_the_app`).
#[tokio::test(flavor = "current_thread")]
async fn a_links_own_plot_is_drawn_before_the_app_which_takes_it_over_in_place() {
    let b = Browser::start().await;
    let embed = format!("{LINK}&embed=1");
    for (size, path) in [
        (None, LINK),
        (Some((390, 844)), LINK),
        (None, embed.as_str()),
        (Some((390, 844)), embed.as_str()),
    ] {
        let what = format!("{path} at {size:?}");
        b.viewport(size).await;
        b.open_blocking(path, &[APP_WASM]).await;
        let drawn = wait_js(
            &b,
            DRAWN,
            |v| v["marks"].to_string().contains("first-plot"),
            &format!("{what}: the drawn plot and its first-plot mark"),
        )
        .await;
        assert_eq!(drawn["drawn"], true, "{what}: {drawn}");
        assert_eq!(drawn["svgs"], 1, "{what}: one plot: {drawn}");
        assert_eq!(
            drawn["front"], 0,
            "{what}: nothing of the front page: {drawn}"
        );
        let is_embed = path.contains("embed=1");
        // An embed is ready as drawn: it never needs the app.
        let marks = if is_embed {
            json!(["first-plot", "app-ready"])
        } else {
            json!(["first-plot"])
        };
        assert_eq!(drawn["marks"], marks, "{what}: {drawn}");
        let keyline = drawn["keyline"].as_str().unwrap_or_default();
        assert!(
            keyline.contains("H100"),
            "{what}: the link's key line: {drawn}"
        );
        // What a link shows before the app (docs/screenshots/first-view-*.png).
        let (w, h) = size.unwrap_or((1280, 1000));
        let kind = if is_embed { "embed" } else { "link" };
        b.screenshot(&format!("first-view-{kind}-{w}x{h}")).await;
        if !is_embed {
            assert!(
                drawn["rows"].as_array().unwrap().len() >= 3,
                "{what}: {drawn}"
            );
        }
        let (plot, key, table) = if is_embed {
            (
                "[data-drawn-view] .sv-plot",
                "[data-drawn-keyline]",
                "[data-drawn-keyline]",
            )
        } else {
            (
                "[data-drawn-view] .sv-plot",
                "[data-drawn-keyline]",
                "[data-drawn-view] table.results-table",
            )
        };
        let before = b.boxes(&[plot, key, table]).await;
        if size.is_none() {
            // The drawn view is as accessible as the app's (axe-core, every impact).
            let axe = b.axe().await;
            assert!(axe.is_empty(), "{what}: {axe:#?}");
        }
        if is_embed {
            // An embed is the draw program's alone: live and ready without the app.
            assert_eq!(
                b.js("return [...document.querySelectorAll('[data-ready]')].map(e => e.matches('[data-drawn-view] main.embed-view'))")
                    .await,
                json!([true]),
                "{what}"
            );
            b.allow_wasm().await;
            let _ = b.console_errors().await;
            continue;
        }
        // Nothing of the app ran.
        assert_eq!(
            b.js("return document.querySelectorAll('[data-ready]').length")
                .await,
            0,
            "{what}"
        );

        b.allow_wasm().await;
        let _ = b.console_errors().await; // the blocked wasm's errors
        b.open(path).await;
        b.wait_for("canvas[data-chart]").await;
        let app = wait_js(
            &b,
            "return performance.getEntriesByName('app-ready', 'mark').length",
            |v| v == 1,
            &format!("{what}: app-ready"),
        )
        .await;
        assert_eq!(app, 1);
        assert_eq!(
            b.js("return document.querySelectorAll('[data-static-view]').length")
                .await,
            0,
            "{what}: the app removes the drawn view"
        );
        let figures = b.js(APP).await;
        assert_eq!(figures["keyline"], drawn["keyline"], "{what}: key lines");
        assert_eq!(figures["label"], drawn["label"], "{what}: plot labels");
        assert_eq!(figures["rows"], drawn["rows"], "{what}: results");
        let (plot, key, table) = (
            "canvas[data-chart]",
            "[data-keyline]",
            "main.app table.results-table",
        );
        let after = b.boxes(&[plot, key, table]).await;
        assert_boxes_kept(
            &before,
            &after,
            3.0,
            &format!("{what}: drawn, then the app"),
        );
        assert_eq!(
            b.js("return ['first-plot', 'app-ready'].map(n => performance.getEntriesByName(n, 'mark').length)")
                .await,
            json!([1, 1]),
            "{what}: one first-plot (the drawn plot's), one app-ready"
        );
        assert!(b.console_errors().await.is_empty(), "{what}");
    }
    b.viewport(None).await;
    b.close().await;
}

/// A link the app has something to say about (an unknown chip) is not drawn: the page keeps
/// its skeleton, sets no mark, and the app shows its notice.
#[tokio::test(flavor = "current_thread")]
async fn a_bad_link_keeps_the_skeleton_for_the_app() {
    let b = Browser::start().await;
    let path = "/?chip=nonesuch&op=llm:preset=llama3-8b";
    b.open_blocking(path, &[APP_WASM]).await;
    // The draw program has had its chance once boot.js may go on (no `data-drawing`).
    wait_js(
        &b,
        "return document.documentElement.hasAttribute('data-drawing')",
        |v| v == false,
        "the draw program done",
    )
    .await;
    let shown = b.js(DRAWN).await;
    assert_eq!(shown["drawn"], false, "{shown}");
    assert_eq!(shown["skeleton"], true, "{shown}");
    assert_eq!(shown["marks"], json!([]), "{shown}");
    b.allow_wasm().await;
    b.open(path).await;
    assert!(b.text("main.app").await.contains("nonesuch"));
    b.close().await;
}

/// What the first plot does not need loads later. The validation view is a family loaded on first use: the page fetches its data (built
/// natively, named by content in `<meta name="validation-data">`) only when the view first
/// opens, once, and never at load; opening the view again reads it from memory. Without the
/// file the view says why, next to where the table would be, and the rest of the page works.
#[tokio::test(flavor = "current_thread")]
async fn the_validation_set_loads_on_first_use_only() {
    const FETCHED: &str = r#"return performance.getEntriesByType('resource')
        .map(e => e.name).filter(n => /validation-[0-9a-f]{16}\.json$/.test(n));"#;
    let b = Browser::start().await;
    b.viewport(Some((1280, 1000))).await;
    b.open("/").await;
    wait_js(
        &b,
        "return performance.getEntriesByName('app-ready', 'mark').length",
        |v| v == 1,
        "front page: app-ready",
    )
    .await;
    // The catalog's source notes load once the app answers input, never before it: a chip
    // field's hover says where its number comes from.
    b.wait_for("html[data-source-notes='loaded']").await;
    let notes = b
        .js(
            r#"const app = performance.getEntriesByName('app-ready', 'mark')[0].startTime;
            const e = performance.getEntriesByType('resource')
                .filter(e => /source-notes-[0-9a-f]{16}\.json$/.test(e.name));
            return [e.length, e.length ? e[0].startTime >= app : null,
                    document.querySelector("[data-chip='0'] input[name='hbm']").title];"#,
        )
        .await;
    assert_eq!(notes[0], 1, "{notes:?}");
    assert_eq!(
        notes[1], true,
        "the notes were fetched before the app answered input"
    );
    // The front page's TPU v5e: the note the core has natively.
    let hbm = notes[2].as_str().unwrap();
    let v5e = roofline::chip::preset("tpu-v5e").unwrap();
    let note = v5e.source(roofline::chip::ChipField::Hbm);
    assert!(note.len() > 20 && hbm.contains(note), "{hbm}");
    // Idle loads have had their time: still nothing of the set.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(b.js(FETCHED).await, json!([]), "fetched at load");
    let file = b
        .js("return document.querySelector('meta[name=validation-data]').content")
        .await;
    let file = file.as_str().unwrap().to_string();
    assert!(
        file.starts_with("validation-") && file.ends_with(".json"),
        "{file}"
    );

    b.click("[role=tab][data-plot='validation']").await;
    b.wait_for("tr[data-validation-id]").await;
    let fetched = b.js(FETCHED).await;
    let fetched = fetched.as_array().unwrap();
    assert_eq!(fetched.len(), 1, "{fetched:?}");
    assert!(fetched[0].as_str().unwrap().ends_with(&file), "{fetched:?}");
    // Its rows are the set's, as the build evaluated it.
    let report = roofline::results::validated::report();
    let rows = b
        .js("return document.querySelectorAll('tr[data-validation-id]').length")
        .await;
    assert_eq!(rows, report.rows.len());
    // Away and back: no second request.
    b.click("[role=tab][data-plot='roofline']").await;
    b.wait_for("canvas[data-chart]").await;
    b.click("[role=tab][data-plot='validation']").await;
    b.wait_for("tr[data-validation-id]").await;
    assert_eq!(b.js(FETCHED).await.as_array().unwrap().len(), 1);

    // The file missing (a host that lost it): the view says so; the page still works.
    b.cdp("Network.enable", json!({})).await;
    b.cdp(
        "Network.setBlockedURLs",
        json!({ "urls": ["*validation-*.json"] }),
    )
    .await;
    b.open("/?chip=h100&plot=validation").await;
    let msg = b.wait_for("[data-validation=error] [role=alert]").await;
    let text = msg.text().await.unwrap();
    assert!(
        text.starts_with("The validation set could not be loaded:") && text.contains(&file),
        "{text}"
    );
    // docs/screenshots/validation-missing-data-1280x1000.png
    b.screenshot("validation-missing-data-1280x1000").await;
    b.click("[role=tab][data-plot='roofline']").await;
    b.wait_for("canvas[data-chart]").await;
    b.allow_wasm().await;
    b.cdp("Network.setCacheDisabled", json!({"cacheDisabled": false}))
        .await;
    b.close().await;
}

/// The profile importer is a program loaded on first use (src/bin/import.rs in a Web Worker):
/// none of its files is requested while the page loads and idles; the pointer coming over the
/// profile panel starts it (issue 43: its files load while a file is chosen), importing
/// nothing by that alone, and the import that follows uses that worker, not a second one; its
/// profile arrives on the page as the pasted text says. A second import starts a fresh worker
/// (the browser's cache answers); a worker that cannot start gets a message next to the field,
/// and the last good profile stays.
#[tokio::test(flavor = "current_thread")]
async fn the_profile_importer_loads_on_first_use() {
    let b = Browser::start_with(Options { network_log: true }).await;
    b.network_requests().await;
    b.open("/").await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let importer = |reqs: &[e2e_harness::NetRequest]| -> Vec<String> {
        reqs.iter()
            .map(|r| r.url.clone())
            .filter(|u| u.contains("/import-"))
            .collect()
    };
    let at_load = b.network_requests().await;
    assert!(
        at_load.iter().any(|r| r.url.contains("roofline-lab-")),
        "the recorder saw the app: {at_load:#?}"
    );
    assert_eq!(
        importer(&at_load),
        Vec::<String>::new(),
        "importer fetched at load"
    );

    // The pointer over the panel: the importer's script and wasm are fetched, nothing imported.
    b.js("window.__workers = 0;
          const Base = window.Worker;
          window.Worker = class extends Base { constructor(u, o) { super(u, o); window.__workers++; } };
          document.querySelector('[data-profile-panel]').dispatchEvent(new PointerEvent('pointerover', {bubbles: true}));
          return 0;")
        .await;
    let mut first = Vec::new();
    for _ in 0..100 {
        first.extend(importer(&b.network_requests().await));
        if first.iter().any(|u| u.ends_with("_bg.wasm")) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(
        first
            .iter()
            .any(|u| u.contains("/import-worker.js?js=import-"))
            && first.iter().any(|u| u.ends_with("_bg.wasm")),
        "{first:?}"
    );
    assert_eq!(
        b.js("return [window.__workers, document.querySelectorAll('tr[data-measured]').length]")
            .await,
        json!([1, 0]),
        "one worker started by the pointer, nothing imported"
    );
    b.click("[data-action='sample-profile']").await;
    b.wait_for("tr[data-measured]").await;
    assert_eq!(
        b.js("return window.__workers").await,
        json!(1),
        "the import used the worker the pointer started"
    );
    let rows = b
        .js("return document.querySelectorAll('tr[data-measured]').length")
        .await;
    assert!(rows.as_u64().unwrap() > 0);

    // The importer's own message, word for word, next to the field.
    b.set_input("#profile-paste", "name,flops\nx,1").await;
    b.click("[data-action='import-profile']").await;
    let msg = b.wait_for("[data-profile-error='true']").await;
    let text = msg.text().await.unwrap();
    let mut imp = roofline::profile::Importer::new();
    let want = imp
        .feed(b"name,flops\nx,1")
        .and_then(|_| imp.finish())
        .unwrap_err()
        .to_string();
    assert_eq!(text, want);
    assert_eq!(
        b.js("return document.querySelectorAll('tr[data-measured]').length")
            .await,
        rows,
        "the last good profile stays"
    );

    // The importer's files missing (a host that lost them): the worker's script, or the
    // program it loads. Each says so next to the field; the last good profile stays.
    for (content, want) in [
        (
            "no-such-worker.js",
            "could not start the profile importer: its script did not load",
        ),
        (
            "import-worker.js?js=import-missing.js&wasm=import-missing_bg.wasm",
            "the profile importer could not start: ",
        ),
    ] {
        // The pointer comes over the panel first: the worker it starts (whose script fails to
        // load, or whose program does) is the one the import finds.
        b.js(&format!(
            "document.querySelector('meta[name=import-worker]').content = {content:?};
             document.querySelector('[data-profile-panel]').dispatchEvent(new PointerEvent('pointerover', {{bubbles: true}}));
             return 0;"
        ))
        .await;
        tokio::time::sleep(Duration::from_millis(500)).await;
        b.click("[data-action='sample-profile']").await;
        wait_js(
            &b,
            "return document.querySelector('#profile-msg').textContent",
            |v| v.as_str().is_some_and(|t| t.starts_with(want)),
            want,
        )
        .await;
        assert_eq!(
            b.js("return document.querySelectorAll('tr[data-measured]').length")
                .await,
            rows
        );
    }
    b.close().await;
}

/// The pointer read-out of a drawn embed: scans down the plot's middle with pointer moves until
/// the read-out names a point; `""` when none did.
const SCAN_READOUT: &str = r#"const done = arguments[arguments.length - 1];
const f = document.querySelector('[data-drawn-plot]');
const r = f.getBoundingClientRect();
const out = f.parentElement.querySelector('.readout');
(async () => {
  for (let y = r.top + 5; y < r.bottom; y += 3) {
    f.dispatchEvent(new PointerEvent('pointermove', {clientX: r.left + r.width * 0.4, clientY: y, bubbles: true}));
    await new Promise(ok => setTimeout(ok, 0));
    if (out.textContent.trim()) return done(out.textContent);
  }
  done('');
})();"#;

/// Issue 27: an embed is the draw program's alone and never loads the app. At a desktop size
/// and a phone's, it is ready (`data-ready`, `app-ready` after `first-plot`) with nothing of the
/// app fetched; it answers the pointer with the app's read-out words; it redraws at a new frame
/// size and when the system's theme changes; its link back opens the full page; the plot's data
/// is there for screen readers; an embed the draw program cannot draw still gets the app.
#[tokio::test(flavor = "current_thread")]
async fn an_embed_is_live_without_the_app() {
    const APP_FETCHED: &str = r#"return performance.getEntriesByType('resource')
        .map(e => new URL(e.name).pathname).filter(n => /\/roofline-lab-[0-9a-f]+(_bg\.wasm|\.js)$/.test(n));"#;
    let b = Browser::start().await;
    let path = format!("{LINK}&embed=1");
    for size in [(800, 450), (390, 300)] {
        b.viewport(Some(size)).await;
        b.open(&path).await;
        let what = format!("embed at {size:?}");
        let marks = wait_js(
            &b,
            "return performance.getEntriesByType('mark').map(m => m.name)",
            |v| v.to_string().contains("app-ready"),
            &format!("{what}: app-ready"),
        )
        .await;
        assert_eq!(marks, json!(["first-plot", "app-ready"]), "{what}");
        assert_eq!(
            b.js(APP_FETCHED).await,
            json!([]),
            "{what}: the app was fetched"
        );
        assert_eq!(
            b.js("return document.querySelectorAll('main.app, canvas').length")
                .await,
            0,
            "{what}: nothing of the app"
        );
        // The read-out names a point of the plot in the app's words.
        let text = b.client.execute_async(SCAN_READOUT, vec![]).await.unwrap();
        let text = text.as_str().unwrap_or_default().to_string();
        assert!(
            text.contains(" — B (sequences) = ") && text.contains("achieved FLOPs/s = "),
            "{what}: read-out {text:?}"
        );
        assert!(
            text.trim_end().ends_with("FLOP/s"),
            "{what}: read-out {text:?}"
        );
        // The read-out over the plot (docs/screenshots/embed-live-800x450.png).
        b.screenshot(&format!("embed-live-{}x{}", size.0, size.1))
            .await;
        b.js("document.querySelector('[data-drawn-plot]').dispatchEvent(new PointerEvent('pointerleave'))").await;
        assert_eq!(b.text("[data-drawn-plot] + .readout").await, "", "{what}");
        // The data for screen readers, and the link back to the whole page.
        let rows = b
            .js("return document.querySelectorAll('[data-chart-table=sweep] tbody tr').length")
            .await;
        assert!(rows.as_i64().unwrap() > 10, "{what}: {rows}");
        let href = b
            .js("return document.querySelector('[data-open-app]').href")
            .await;
        let href = href.as_str().unwrap_or_default();
        assert!(
            href.contains("chip=h100") && !href.contains("embed=1"),
            "{what}: {href}"
        );
    }
    // A new frame size redraws the plot at that size.
    const DRAWN_AS: &str = "const f = document.querySelector('[data-drawn-plot]'); const v = f.querySelector('svg').viewBox.baseVal; return [f.dataset.drawnAs, v.width, v.height]";
    let before = b.js(DRAWN_AS).await;
    b.viewport(Some((640, 400))).await;
    let after = wait_js(&b, DRAWN_AS, |v| v != &before, "a redraw at the new size").await;
    let w = after[1].as_f64().unwrap();
    assert!((560.0..=640.0).contains(&w), "{before} → {after}");
    assert!(!after[0].as_str().unwrap().contains("dark"), "{after}");
    // The system's theme turns dark: the plot is redrawn dark.
    b.cdp(
        "Emulation.setEmulatedMedia",
        json!({"features": [{"name": "prefers-color-scheme", "value": "dark"}]}),
    )
    .await;
    let dark = wait_js(
        &b,
        DRAWN_AS,
        |v| v[0].as_str().unwrap_or_default().ends_with(" dark"),
        "a dark redraw",
    )
    .await;
    assert_eq!(dark[1], after[1], "{dark}");
    b.cdp("Emulation.setEmulatedMedia", json!({"features": []}))
        .await;
    assert!(b.console_errors().await.is_empty());

    // An embed with something to say (an unknown chip) is not drawn: the app loads and says it.
    b.viewport(None).await;
    b.open("/?embed=1&chip=nonesuch&op=matmul:d=4096").await;
    b.wait_for("main.embed-view[data-ready] canvas[data-chart]")
        .await;
    assert_eq!(
        b.js("return document.querySelectorAll('[data-drawn-view]').length")
            .await,
        0
    );
    b.close().await;
}
