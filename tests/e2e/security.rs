//! End-to-end security tests: the Content-Security-Policy holds for everything the app does
//! (and the detector is shown to see what it blocks), text from links and forms is only ever
//! text, and no request leaves the page's origin.
#![cfg(not(target_arch = "wasm32"))]

use std::time::{Duration, SystemTime};

use e2e_harness::{artifacts_dir, Browser, NetRequest, Options};

/// Percent-encode `s` for a text value of a link (names, labels): everything but letters,
/// digits and `-._~` is escaped, a space is `+` (as the README says).
fn enc(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                out.push(b as char)
            }
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// Wait (at most 20 s) until `script` returns true.
async fn wait_until(b: &Browser, script: &str, what: &str) {
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        if b.js(script).await.as_bool() == Some(true) {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "timed out after 10 s waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Choose an option of the Export menu as a user would (a real click, so each download has the
/// user gesture Chrome asks of a page that downloads several files).
async fn export(b: &Browser, what: &str) {
    b.pick("export", what).await;
}

/// Open the Embed dialog and wait until its preview iframe shows the embedded plot.
async fn open_embed_preview(b: &Browser) {
    b.click("button[data-action='embed']").await;
    b.wait_for(".dialog iframe").await;
    let frame = b
        .client
        .find(fantoccini::Locator::Css(".dialog iframe"))
        .await
        .unwrap();
    frame.enter_frame().await.expect("enter the preview iframe");
    // The embed is the draw program's SVG (issue 27), live without the app.
    b.wait_for("[data-embed='true'][data-ready='true'] [data-chart] svg")
        .await;
    wait_until(
        b,
        r#"const s = document.querySelector('[data-chart] svg');
        return !!s && s.querySelectorAll('path, polyline, line, rect, text').length > 40;"#,
        "the embed preview's plot",
    )
    .await;
    b.client.clone().enter_parent_frame().await.unwrap();
}

/// The directives of a CSP string: name → sources.
fn directives(csp: &str) -> Vec<(String, Vec<String>)> {
    csp.split(';')
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .map(|d| {
            let mut words = d.split_whitespace().map(str::to_string);
            let name = words.next().unwrap().to_ascii_lowercase();
            (name, words.collect())
        })
        .collect()
}

fn meta_csp_is_strict(csp: &str) {
    let dirs = directives(csp);
    for (name, sources) in &dirs {
        for src in sources {
            // Only the page's own origin, nothing, and wasm compilation: no 'unsafe-inline',
            // 'unsafe-eval', '*', data:, blob:, schemes or hosts.
            let allowed = match src.as_str() {
                "'self'" | "'none'" => true,
                "'wasm-unsafe-eval'" => name == "script-src",
                _ => false,
            };
            assert!(allowed, "CSP {name} allows {src}: {csp}");
        }
    }
    let get = |n: &str| {
        dirs.iter()
            .find(|(name, _)| name == n)
            .map(|(_, s)| s.join(" "))
            .unwrap_or_else(|| panic!("CSP has no {n}: {csp}"))
    };
    assert_eq!(get("default-src"), "'self'");
    assert_eq!(get("script-src"), "'self' 'wasm-unsafe-eval'");
    for d in [
        "style-src",
        "img-src",
        "connect-src",
        "frame-src",
        "base-uri",
    ] {
        assert_eq!(get(d), "'self'", "{d}");
    }
    assert_eq!(get("object-src"), "'none'");
    assert_eq!(get("form-action"), "'none'");
}

/// What a page must not contain under the CSP: inline scripts, style attributes or elements,
/// inline event handlers. Returns descriptions of the offenders.
const INLINE_OFFENDERS: &str = r#"
const bad = [];
for (const s of document.querySelectorAll('script:not([src])')) bad.push('inline script: ' + s.textContent.slice(0, 60));
for (const e of document.querySelectorAll('[style]')) bad.push(e.tagName + ' style="' + e.getAttribute('style') + '"');
for (const e of document.querySelectorAll('style')) bad.push('<style> element');
for (const e of document.querySelectorAll('*')) for (const a of e.attributes) if (a.name.startsWith('on')) bad.push(e.tagName + ' ' + a.name);
return bad;
"#;

/// Files in the download directory written since `since`.
fn downloads_since(since: SystemTime) -> Vec<String> {
    let dir = artifacts_dir().join("downloads");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|e| {
            e.metadata()
                .and_then(|m| m.modified())
                .map(|t| t >= since)
                .unwrap_or(false)
        })
        .map(|e| e.file_name().to_string_lossy().to_string())
        // Chrome writes a download under a hidden temporary name first (`.org.chromium.…`).
        .filter(|n| !n.ends_with(".crdownload") && !n.starts_with('.'))
        .collect()
}

/// Load, edit, switch plots, embed dialog with preview, every export, and an `embed=1` page,
/// all under the CSP: no violation, no console error, and the policy itself is strict.
#[tokio::test(flavor = "current_thread")]
async fn the_strict_csp_holds_for_everything_the_app_does() {
    let b = Browser::start().await;
    b.record_csp_violations().await;
    b.open("/").await;
    assert!(
        b.csp_violations().await.is_some(),
        "the CSP recorder is not installed in the page"
    );

    // The policy: one meta tag, first in <head> before anything it governs, strict.
    let meta = b
        .js(r#"const m = [...document.querySelectorAll('meta[http-equiv]')].filter(m => m.httpEquiv.toLowerCase() === 'content-security-policy');
            const head = [...document.head.children];
            const first = head.findIndex(e => ['SCRIPT', 'LINK', 'STYLE'].includes(e.tagName));
            return [m.length, m[0] ? m[0].content : '', m[0] ? head.indexOf(m[0]) < first : false]"#)
        .await;
    assert_eq!(meta[0].as_u64(), Some(1), "CSP meta tags: {meta}");
    assert_eq!(
        meta[2].as_bool(),
        Some(true),
        "the CSP meta must come before every script, link and style"
    );
    meta_csp_is_strict(meta[1].as_str().unwrap());

    // Edit a field and switch plots.
    b.set_input("[data-op='0'] input[name='f']", "2048").await;
    for tab in ["roofline", "sweep"] {
        b.click(&format!("button[data-plot='{tab}']")).await;
        b.wait_for(&format!("canvas[data-chart='{tab}']")).await;
    }
    assert!(b.canvas_ink("canvas[data-chart='sweep']").await > 5_000);

    // Every export, as real downloads (blob: and data: URLs).
    let since = SystemTime::now() - Duration::from_secs(1);
    for what in ["png", "svg", "csv", "json"] {
        export(&b, what).await;
        let status = b.text(".actions .readout").await;
        assert!(!status.contains("failed"), "export {what}: {status}");
    }
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let mut files = downloads_since(since);
    let all_there = |files: &[String]| {
        [".png", ".svg", ".csv", ".json"]
            .iter()
            .all(|ext| files.iter().any(|f| f.ends_with(ext)))
    };
    while !all_there(&files) && std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(100)).await;
        files = downloads_since(since);
    }
    for ext in [".png", ".svg", ".csv", ".json"] {
        assert!(
            files.iter().any(|f| f.ends_with(ext)),
            "no {ext} download arrived: {files:?}"
        );
    }
    // Leave the directory as it was (Chrome numbers repeated names, up to a limit).
    for f in &files {
        let _ = std::fs::remove_file(artifacts_dir().join("downloads").join(f));
    }

    // The embed dialog and its live preview (an iframe of the embed page, same origin).
    open_embed_preview(&b).await;
    let frames = b
        .js("return [...document.querySelectorAll('iframe')].map(f => f.contentWindow.__cspViolations !== undefined)")
        .await;
    assert_eq!(
        frames,
        serde_json::json!([true]),
        "the recorder is not installed in the preview iframe"
    );
    let offenders = b.js(INLINE_OFFENDERS).await;
    assert_eq!(offenders, serde_json::json!([]), "inline code on the page");
    let violations = b.csp_violations().await.unwrap();
    assert!(
        violations.is_empty(),
        "CSP violations in the app or its embed preview: {violations:#?}"
    );

    // An embed page on its own.
    b.open("/?embed=1&theme=dark&plot=roofline&chip=h100&op=matmul:b=512,d=8192,f=8192")
        .await;
    b.wait_for("[data-embed='true'] [data-chart] svg").await;
    assert!(b.svg_marks("[data-chart]").await > 40);
    let offenders = b.js(INLINE_OFFENDERS).await;
    assert_eq!(offenders, serde_json::json!([]), "inline code in the embed");
    let violations = b.csp_violations().await.unwrap();
    assert!(
        violations.is_empty(),
        "CSP violations in the embed page: {violations:#?}"
    );

    let errors = b.console_errors().await;
    assert!(errors.is_empty(), "console errors: {errors:#?}");
    let failures = b.server.failures();
    assert!(failures.is_empty(), "failed requests: {failures:?}");
    b.close().await;
}

/// Positive control: the recorder and the console check do see what the CSP blocks (an inline
/// script, a style attribute, a string timer (eval), a data: image, a foreign fetch and frame),
/// in the page and in the embed preview iframe, and the blocked things do not take effect.
#[tokio::test(flavor = "current_thread")]
async fn the_csp_detector_sees_what_the_policy_blocks() {
    let b = Browser::start().await;
    b.record_csp_violations().await;
    b.open("/").await;
    assert_eq!(b.csp_violations().await, Some(vec![]));
    let r = b
        .js(r#"
        const s = document.createElement('script');
        s.textContent = 'window.__inlineRan = 1';
        document.head.append(s);
        const d = document.createElement('div');
        d.id = 'probe';
        d.setAttribute('style', 'color: rgb(255, 0, 0)');
        document.body.append(d);
        setTimeout('window.__evalRan = 1', 0);
        const img = new Image();
        img.src = 'data:image/gif;base64,R0lGODlhAQABAAAAACw=';
        document.body.append(img);
        fetch('http://example.invalid/').catch(() => {});
        const f = document.createElement('iframe');
        f.src = 'https://example.invalid/';
        document.body.append(f);
        return [typeof window.__inlineRan, getComputedStyle(d).color];"#)
        .await;
    assert_eq!(r[0].as_str(), Some("undefined"), "the inline script ran");
    assert_ne!(
        r[1].as_str(),
        Some("rgb(255, 0, 0)"),
        "the style attribute applied"
    );
    let want = [
        "script-src-elem",
        "style-src-attr",
        "script-src",
        "img-src",
        "connect-src",
        "frame-src",
    ];
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let seen = loop {
        let v = b.csp_violations().await.unwrap();
        let seen: Vec<String> = v
            .iter()
            .map(|e| e["directive"].as_str().unwrap_or_default().to_string())
            .collect();
        if want.iter().all(|w| seen.iter().any(|s| s == w)) || std::time::Instant::now() > deadline
        {
            break (seen, v);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    for w in want {
        assert!(
            seen.0.iter().any(|s| s == w),
            "no {w} violation reported; got {:#?}",
            seen.1
        );
    }
    assert_eq!(
        b.js("return typeof window.__evalRan").await.as_str(),
        Some("undefined"),
        "the string timer ran"
    );
    let errors = b.console_errors().await;
    assert!(
        errors.iter().any(|e| e.contains("Content Security Policy")),
        "the console check does not see CSP violations: {errors:#?}"
    );

    // In the embed preview iframe: a violation there lands in the top window's list.
    b.open("/").await;
    open_embed_preview(&b).await;
    let frame = b
        .client
        .find(fantoccini::Locator::Css(".dialog iframe"))
        .await
        .unwrap();
    frame.enter_frame().await.unwrap();
    b.js("const d = document.createElement('div'); d.setAttribute('style', 'color: red'); document.body.append(d);")
        .await;
    b.client.clone().enter_parent_frame().await.unwrap();
    let v = b.csp_violations().await.unwrap();
    assert!(
        v.iter().any(|e| e["directive"] == "style-src-attr"
            && e["document"]
                .as_str()
                .unwrap_or_default()
                .contains("embed=1")),
        "a violation in the preview iframe was not recorded: {v:#?}"
    );
    b.close().await;
}

/// Markup placed in every text part of a link: names, labels, and the parts that only show up
/// in the notice (unknown preset, kind, parameter, field, bad values).
const CHIP_NAME: &str = "<img src=x onerror=window.__pwned=1>";
const PRESET_NAME: &str = "<svg onload=window.__pwned=5><b>H</b>";
const OP_LABEL: &str = "<script>window.__pwned=2</script>";
const OP_LABEL_2: &str = "\"><img src=x onerror=window.__pwned=6>";
/// Lower case: presets and kinds are read case-insensitively (and shown lower case).
const NOTICE_TEXTS: [&str; 5] = [
    "<b>preset</b>",
    "<i>kind</i>",
    "<img src=x onerror=window.__pwned=3>",
    "<u>param</u>",
    "<s>f</s>",
];

/// Markup fragments the tests put in text: none may become an element.
const FRAGMENTS: [&str; 8] = [
    "<b>preset</b>",
    "<i>kind</i>",
    "<u>param</u>",
    "<s>f</s>",
    "<b>h</b>",
    "<i>n</i>",
    "<b>H</b>",
    "<b>x</b>",
];

/// No markup became elements, nothing ran, and nothing asked the server for `/x`.
async fn nothing_ran(b: &Browser, context: &str) {
    // Give an onerror / onload the time to fire if it had been parsed.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let frags = serde_json::to_string(&FRAGMENTS).unwrap();
    let r = b
        .js(&format!(
            r#"const frags = {frags};
        // The one SVG allowed is a drawn embed's plot (issue 27), and inside it only what
        // plotters draws: names are its text.
        const drawn = e => e.matches('[data-drawn-plot] > svg.sv-drawn-svg');
        const plotted = ['rect', 'polyline', 'polygon', 'line', 'circle', 'path', 'text'];
        const injected = [...document.querySelectorAll('*')]
            .filter(e => frags.includes(e.outerHTML)
                || (['IMG', 'svg', 'OBJECT', 'EMBED'].includes(e.tagName) && !drawn(e))
                || (e.closest('svg.sv-drawn-svg') && !drawn(e) && !plotted.includes(e.tagName))
                || e.getAttribute('src') === 'x' || (e.tagName === 'IFRAME' && !e.closest('.dialog')))
            .map(e => e.outerHTML.slice(0, 80));
        const handlers = [...document.querySelectorAll('*')]
            .filter(e => [...e.attributes].some(a => a.name.startsWith('on'))).map(e => e.outerHTML.slice(0, 80));
        const scripts = [...document.scripts].map(s => s.src.replace(location.origin, '') || 'inline: ' + s.textContent.slice(0, 60));
        return [typeof window.__pwned, injected, handlers, scripts];"#
        ))
        .await;
    assert_eq!(
        r[0].as_str(),
        Some("undefined"),
        "{context}: markup ran: {r}"
    );
    assert_eq!(
        r[1],
        serde_json::json!([]),
        "{context}: markup became elements"
    );
    assert_eq!(
        r[2],
        serde_json::json!([]),
        "{context}: event handler attributes"
    );
    // The page's two script files: the first view's (issue 27) and the wasm loader.
    let scripts = r[3].as_array().unwrap();
    let is = |s: &serde_json::Value, f: &str| s.as_str().unwrap_or_default().starts_with(f);
    assert!(
        scripts.len() == 2
            && scripts.iter().any(|s| is(s, "/first-view.js"))
            && scripts.iter().any(|s| is(s, "/boot.js?js=")),
        "{context}: scripts other than the first view's and the loader: {scripts:?}"
    );
    let hits: Vec<_> = b
        .server
        .log
        .lock()
        .unwrap()
        .iter()
        .filter(|(p, _)| {
            p.split(['?', '#'])
                .next()
                .unwrap_or_default()
                .ends_with("/x")
        })
        .cloned()
        .collect();
    assert!(hits.is_empty(), "{context}: the server got {hits:?}");
}

/// `textContent` of every element matching `css` (in the current frame).
async fn texts(b: &Browser, css: &str) -> Vec<String> {
    let v = b
        .js(&format!(
            "return [...document.querySelectorAll({css:?})].map(e => e.textContent)"
        ))
        .await;
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap_or_default().to_string())
        .collect()
}

async fn value(b: &Browser, css: &str) -> String {
    b.js(&format!("return document.querySelector({css:?}).value"))
        .await
        .as_str()
        .unwrap_or_else(|| panic!("no value for {css}"))
        .to_string()
}

fn contains(haystack: &[String], needle: &str, what: &str) {
    assert!(
        haystack.iter().any(|t| t.contains(needle)),
        "{what}: {needle:?} not found as text in {haystack:#?}"
    );
}

/// Names and labels show, literally, in the forms, results, legend table and key line.
async fn names_show_as_text(b: &Browser, chip0: &str, op0: &str, context: &str) {
    assert_eq!(
        value(b, ".card[data-chip='0'] input[name='name']").await,
        chip0,
        "{context}: chip name field"
    );
    assert_eq!(
        value(b, ".card[data-op='0'] input[name='label']").await,
        op0,
        "{context}: label field"
    );
    contains(
        &texts(b, ".card[data-chip='0'] .title").await,
        chip0,
        &format!("{context}: chip card title"),
    );
    contains(
        &texts(b, ".card[data-op='0'] .title").await,
        op0,
        &format!("{context}: op card title"),
    );
    let rows = texts(b, "tr.result-row td.name").await;
    contains(&rows, op0, &format!("{context}: result row names"));
    // The screen-reader tables follow the plot once edits pause (200 ms): wait for them.
    for _ in 0..40 {
        let t = texts(b, "[data-chart-table]").await.join("\n");
        if t.contains(chip0) && t.contains(op0) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let tables = texts(b, "[data-chart-table]").await;
    contains(&tables, chip0, &format!("{context}: plot legend table"));
    contains(&tables, op0, &format!("{context}: plot legend table"));
    let key = texts(b, "[data-keyline]").await;
    contains(&key, chip0, &format!("{context}: key line"));
    contains(&key, op0, &format!("{context}: key line"));
}

#[tokio::test(flavor = "current_thread")]
async fn markup_in_a_link_is_shown_as_text_everywhere() {
    for t in [CHIP_NAME, PRESET_NAME, OP_LABEL, OP_LABEL_2] {
        assert!(t.chars().count() <= 80);
    }
    let url = format!(
        "/?chip=custom:name={},bf16=1e15,hbm=1e12&chip=h100:name={},hbm={}\
         &op=matmul:d=4096,f=4096,x=bf16,w=int8,label={}&op=dot:n=1e6,label={},n={}\
         &chip={}&op={}&theme={}&{}=1&sweep={}:1..10",
        enc(CHIP_NAME),
        enc(PRESET_NAME),
        enc("<b>h</b>"),
        enc(OP_LABEL),
        enc(OP_LABEL_2),
        enc("<i>n</i>"),
        enc(NOTICE_TEXTS[0]),
        enc(NOTICE_TEXTS[1]),
        enc(NOTICE_TEXTS[2]),
        enc(NOTICE_TEXTS[3]),
        enc(NOTICE_TEXTS[4]),
    );
    let b = Browser::start().await;
    b.record_csp_violations().await;
    b.open(&url).await;

    names_show_as_text(&b, CHIP_NAME, OP_LABEL, "link").await;
    contains(
        &texts(&b, ".card[data-chip='1'] .title").await,
        PRESET_NAME,
        "preset chip renamed",
    );
    contains(
        &texts(&b, ".card[data-op='1'] .title").await,
        OP_LABEL_2,
        "second op title",
    );
    contains(
        &texts(&b, "tr.result-row td.name").await,
        OP_LABEL_2,
        "result row names",
    );
    contains(
        &texts(&b, "[data-chart-table]").await,
        PRESET_NAME,
        "sweep legend table",
    );
    // The dot product has no batch size, so only the roofline plots it.
    b.click("button[data-plot='roofline']").await;
    b.wait_for("canvas[data-chart='roofline']").await;
    let tables = texts(&b, "[data-chart-table]").await;
    for t in [CHIP_NAME, PRESET_NAME, OP_LABEL, OP_LABEL_2] {
        contains(&tables, t, "roofline legend table");
    }

    // The notice lists the malformed parts, their markup as text.
    let notice = texts(&b, "[data-notice] li").await;
    for t in NOTICE_TEXTS.iter().copied().chain(["<b>h</b>", "<i>n</i>"]) {
        contains(&notice, t, "notice");
    }
    nothing_ran(&b, "link").await;

    // The embed snippet escapes the names in its title attribute; the preview shows them as text.
    open_embed_preview(&b).await;
    let snippet = value(&b, "textarea[name=embed-snippet]").await;
    assert!(
        snippet.contains("&lt;script&gt;") && !snippet.contains("<script>"),
        "snippet: {snippet}"
    );
    let frame = b
        .client
        .find(fantoccini::Locator::Css(".dialog iframe"))
        .await
        .unwrap();
    frame.enter_frame().await.unwrap();
    let key = texts(&b, "[data-keyline]").await;
    contains(&key, CHIP_NAME, "embed key line");
    contains(&key, OP_LABEL, "embed key line");
    contains(
        &texts(&b, "[data-chart-table]").await,
        PRESET_NAME,
        "embed legend table",
    );
    nothing_ran(&b, "embed preview").await;
    b.client.clone().enter_parent_frame().await.unwrap();

    let violations = b.csp_violations().await.unwrap();
    assert!(violations.is_empty(), "CSP violations: {violations:#?}");
    b.close().await;
}

#[tokio::test(flavor = "current_thread")]
async fn markup_typed_into_names_and_labels_is_shown_as_text() {
    const NAME: &str = "<img src=x onerror=window.__pwned=7>";
    const LABEL: &str = "<script>window.__pwned=8</script><b>x</b>";
    let b = Browser::start().await;
    b.record_csp_violations().await;
    b.open("/").await;
    b.set_input(".card[data-chip='0'] input[name='name']", NAME)
        .await;
    b.set_input(".card[data-op='0'] input[name='label']", LABEL)
        .await;
    names_show_as_text(&b, NAME, LABEL, "typed").await;
    nothing_ran(&b, "typed").await;

    // The address bar holds them encoded; the link reopens with the same text.
    let search = b.settled_search().await;
    assert!(
        !search.contains('<') && !search.contains('>'),
        "unencoded markup in the URL: {search}"
    );
    b.open(&format!("/{search}")).await;
    names_show_as_text(&b, NAME, LABEL, "reopened").await;
    nothing_ran(&b, "reopened").await;
    let violations = b.csp_violations().await.unwrap();
    assert!(violations.is_empty(), "CSP violations: {violations:#?}");
    b.close().await;
}

/// The first recorded request whose URL contains `part`, waiting up to 3 s for it.
async fn foreign_request_seen(b: &Browser, part: &str) -> Option<NetRequest> {
    let deadline = std::time::Instant::now() + Duration::from_secs(3);
    loop {
        if let Some(r) = b
            .network_requests()
            .await
            .into_iter()
            .find(|r| r.url.contains(part))
        {
            return Some(r);
        }
        if std::time::Instant::now() > deadline {
            return None;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Every request during load, edits, exports, the embed dialog with its preview, and an
/// `embed=1` page goes to the test server; the recorder is shown to see a foreign request.
#[tokio::test(flavor = "current_thread")]
async fn no_request_leaves_the_origin() {
    let b = Browser::start_with(Options { network_log: true }).await;
    let origin = b.server.base.clone();
    // What the browser did before the test navigated (its own new-tab page) is not the app's.
    b.network_requests().await;
    let mut all: Vec<NetRequest> = Vec::new();

    b.open("/").await;
    b.set_input("[data-op='0'] input[name='d']", "8192").await;
    b.pick("add-chip", "h100").await;
    b.click("button[data-plot='roofline']").await;
    b.wait_for("canvas[data-chart='roofline']").await;
    for what in ["png", "svg", "csv", "json"] {
        export(&b, what).await;
    }
    open_embed_preview(&b).await;
    all.extend(b.network_requests().await);
    b.open("/?embed=1&chip=tpu-v5e&op=matmul:d=4096,f=4096,x=bf16,w=int8")
        .await;
    b.wait_for("[data-embed='true'] [data-chart] svg").await;
    b.open("/roofline/?chip=h100").await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    all.extend(b.network_requests().await);

    // The recorder saw the app's own files, in the page and in the preview iframe.
    for part in [
        "/boot.js?js=",
        ".wasm",
        ".css",
        ".svg",
        "embed=1",
        "/roofline/",
    ] {
        assert!(
            all.iter().any(|r| r.url.contains(part)),
            "the recorder missed a request for {part}: {all:#?}"
        );
    }
    let server = url::Url::parse(&origin).unwrap();
    let mut other = Vec::new();
    let mut internal = 0;
    for r in &all {
        if r.url.starts_with("chrome://") && r.document.starts_with("chrome://") {
            // Chromium's own pages (its new-tab page loading at start): never the network.
            internal += 1;
            continue;
        }
        match url::Url::parse(&r.url) {
            Ok(u) if ["http", "https", "ws", "wss"].contains(&u.scheme()) => assert!(
                ["http", "ws"].contains(&u.scheme())
                    && u.host_str() == server.host_str()
                    && u.port_or_known_default() == server.port_or_known_default(),
                "a request left the origin {origin}: {r:#?}"
            ),
            _ => other.push(format!("{} ({})", r.url, r.kind)),
        }
    }
    eprintln!(
        "{} requests, all to {origin}; {internal} of Chromium's own pages; other schemes (not network): {other:#?}",
        all.len()
    );
    for o in &other {
        assert!(
            o.starts_with("data:") || o.starts_with("blob:") || o.starts_with("about:"),
            "unexpected request: {o}"
        );
    }

    // Positive control, 1: the recorder sees a request that leaves the origin, made where no
    // CSP stops it (the blog test page).
    b.client
        .goto(&format!("{origin}/pages/blog.html"))
        .await
        .unwrap();
    b.network_requests().await;
    b.js("fetch('http://example.invalid/probe').catch(() => {}); return 1")
        .await;
    let seen = foreign_request_seen(&b, "example.invalid/probe").await;
    let seen = seen.expect("the recorder did not see a request to http://example.invalid/");
    eprintln!("control: {seen:?}");

    // 2: in the app the CSP refuses the same request before it leaves: reported, never sent.
    b.open("/").await;
    b.network_requests().await;
    b.js("fetch('http://example.invalid/probe').catch(() => {}); return 1")
        .await;
    assert!(
        foreign_request_seen(&b, "example.invalid/probe")
            .await
            .is_none(),
        "a foreign request left the app's page"
    );
    let errors = b.console_errors().await;
    assert!(
        errors.iter().any(|e| e.contains("example.invalid")
            && e.contains("Content Security Policy")
            && e.contains("connect-src")),
        "the CSP did not refuse the foreign fetch: {errors:#?}"
    );
    b.close().await;
}
