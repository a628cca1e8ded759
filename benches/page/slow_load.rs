//! Loads on a slow phone (issue 27): Chromium with DevTools `Network.emulateNetworkConditions`
//! (150 ms round trip, 1.6 Mbit/s down, 750 kbit/s up) and `Emulation.setCPUThrottlingRate` 4×,
//! against `dist/` served with gzip by this benchmark's own server (flate2, level 9, in memory;
//! the harness's test server sends files as they are). Median of [`LOADS`] loads of each of three
//! pages: the front page (no query), a link with an `llm` step on two chips, and an `embed=1`
//! link. For each:
//!
//! - **first paint:** the browser's `first-contentful-paint` (the first text or image painted);
//! - **first plot:** the `first-plot` mark, set once a plot of the requested scenario has been
//!   painted (the app's canvas, the static front page's SVG, or a link's SVG drawn by the draw
//!   program, src/bin/draw.rs);
//! - **app ready:** the `app-ready` mark, set once the app answers input;
//! - **bytes before the first plot:** the document and every resource whose fetch started before
//!   the `first-plot` mark (on a link, the draw program's `draw-*` files among them; printed by
//!   kind of file too), at their transferred (gzip) body size; a response still arriving at
//!   the mark counts with the share of its transfer time that lay before it (an estimate: bytes
//!   arrive at the emulated link's even rate);
//! - **layout shift:** the load's cumulative layout shift once the app has drawn (the static view
//!   taken over by the app included), reported without a budget. It cannot see the takeover
//!   itself (the app's nodes are new, not moved), which `tests/e2e/page.rs` checks by the boxes
//!   of the plot, the key line and the results.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use e2e_harness::{dist_dir, read_request_head, Browser};
use serde_json::{json, Value};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpListener;

/// Loads per page (the median is reported).
pub const LOADS: usize = 5;
/// The emulated network: DevTools' "slow 4G" figures.
const LATENCY_MS: f64 = 150.0;
const DOWN_BYTES_PER_S: f64 = 1.6e6 / 8.0;
const UP_BYTES_PER_S: f64 = 750e3 / 8.0;
const CPU_THROTTLE: f64 = 4.0;
/// Budget for the `app-ready` mark, every page.
pub const BUDGET_APP_READY_MS: f64 = 3500.0;

/// One page the benchmark loads, with its budgets.
pub struct Page {
    pub name: &'static str,
    pub path: &'static str,
    pub budget_first_plot_ms: f64,
    pub budget_bytes: u64,
}

pub const PAGES: [Page; 3] = [
    Page {
        name: "front page",
        path: "/",
        budget_first_plot_ms: 1000.0,
        budget_bytes: 200_000,
    },
    Page {
        name: "link: llm on two chips",
        path: "/?chip=h100&chip=b200&op=llm:preset=llama3-8b,b=64,ctx=4096",
        budget_first_plot_ms: 2500.0,
        budget_bytes: 350_000,
    },
    Page {
        name: "embed link",
        path: "/?chip=h100&chip=b200&op=llm:preset=llama3-8b,b=64,ctx=4096&embed=1",
        budget_first_plot_ms: 2500.0,
        budget_bytes: 350_000,
    },
];

fn content_type(path: &Path) -> (&'static str, bool) {
    match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" => ("text/html; charset=utf-8", true),
        "js" => ("text/javascript; charset=utf-8", true),
        "wasm" => ("application/wasm", true),
        "css" => ("text/css; charset=utf-8", true),
        "svg" => ("image/svg+xml", true),
        "json" => ("application/json", true),
        "png" => ("image/png", false),
        _ => ("application/octet-stream", false),
    }
}

/// A file as the server sends it: its type, its bytes, gzip-compressed when that helps.
struct Served {
    ctype: &'static str,
    body: Vec<u8>,
    gzip: Option<Vec<u8>>,
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    enc.write_all(bytes).expect("gzip in memory");
    enc.finish().expect("gzip in memory")
}

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
    {
        let p = e.path();
        if p.is_dir() {
            files_under(&p, out);
        } else if p.is_file() {
            out.push(p);
        }
    }
}

/// `dist/` served on 127.0.0.1 with `Content-Encoding: gzip` for whoever accepts it, as a
/// compressing static host would; every file compressed once, up front.
pub struct GzipServer {
    pub base: String,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for GzipServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl GzipServer {
    pub async fn start() -> GzipServer {
        let dir = dist_dir();
        let mut paths = Vec::new();
        files_under(&dir, &mut paths);
        let mut files = HashMap::new();
        for p in paths {
            if matches!(p.extension().and_then(|e| e.to_str()), Some("gz" | "br")) {
                continue;
            }
            let name = p
                .strip_prefix(&dir)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            let body = std::fs::read(&p).unwrap();
            let (ctype, compress) = content_type(&p);
            let gzip = compress.then(|| gzip(&body));
            files.insert(name, Served { ctype, body, gzip });
        }
        let files = Arc::new(files);
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let base = format!("http://{}", listener.local_addr().unwrap());
        let task = tokio::spawn(async move {
            while let Ok((mut sock, _)) = listener.accept().await {
                let files = files.clone();
                tokio::spawn(async move {
                    let head = read_request_head(&mut sock).await;
                    let path = head.split_whitespace().nth(1).unwrap_or("/");
                    let path = path.split(['?', '#']).next().unwrap_or("/");
                    let mut name = path.trim_start_matches('/').to_string();
                    if name.is_empty() || name.ends_with('/') {
                        name.push_str("index.html");
                    }
                    let accepts_gzip = head.lines().any(|l| {
                        let l = l.to_ascii_lowercase();
                        l.starts_with("accept-encoding:") && l.contains("gzip")
                    });
                    let (status, ctype, body, encoding) = match files.get(&name) {
                        Some(f) => match (&f.gzip, accepts_gzip) {
                            (Some(gz), true) => (
                                "200 OK",
                                f.ctype,
                                gz.as_slice(),
                                "Content-Encoding: gzip\r\n",
                            ),
                            _ => ("200 OK", f.ctype, f.body.as_slice(), ""),
                        },
                        None => ("404 Not Found", "text/plain", &b"not found"[..], ""),
                    };
                    let header = format!(
                        "HTTP/1.1 {status}\r\nContent-Type: {ctype}\r\n{encoding}Vary: Accept-Encoding\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n",
                        body.len()
                    );
                    let _ = sock.write_all(header.as_bytes()).await;
                    let _ = sock.write_all(body).await;
                    let _ = sock.shutdown().await;
                });
            }
        });
        GzipServer { base, task }
    }
}

/// Polled after each load: `null` until both marks exist, then the figures.
const READ: &str = r#"
const mark = n => { const e = performance.getEntriesByName(n, 'mark')[0]; return e ? e.startTime : null; };
const fp = mark('first-plot'), ready = mark('app-ready');
if (fp === null || ready === null) return null;
const paint = performance.getEntriesByType('paint').find(e => e.name === 'first-contentful-paint');
const nav = performance.getEntriesByType('navigation')[0];
const all = [{url: nav.name, start: 0, rs: nav.responseStart, end: nav.responseEnd, bytes: nav.encodedBodySize}]
  .concat(performance.getEntriesByType('resource').map(e =>
    ({url: e.name, start: e.startTime, rs: e.responseStart, end: e.responseEnd, bytes: e.encodedBodySize})));
let before = 0;
const files = [];
for (const r of all) {
  if (r.start > fp) continue;
  let counted = r.bytes;
  if (r.end > fp) {
    const share = r.end > r.rs ? Math.max(0, Math.min(1, (fp - r.rs) / (r.end - r.rs))) : 0;
    counted = Math.round(r.bytes * share);
  }
  before += counted;
  files.push({url: r.url, bytes: r.bytes, counted, start: r.start, end: r.end});
}
return {first_paint: paint ? paint.startTime : null, first_plot: fp, app_ready: ready, bytes_before_first_plot: before, files};
"#;

/// The page's cumulative layout shift so far (buffered `layout-shift` entries).
const CLS: &str = r#"
const done = arguments[arguments.length - 1];
let sum = 0;
new PerformanceObserver(list => { for (const e of list.getEntries()) if (!e.hadRecentInput) sum += e.value; })
  .observe({type: 'layout-shift', buffered: true});
setTimeout(() => done(sum), 200);
"#;

async fn emulate(b: &Browser, slow: bool) {
    if slow {
        b.cdp("Network.enable", json!({})).await;
        b.cdp("Network.setCacheDisabled", json!({"cacheDisabled": true}))
            .await;
        b.cdp(
            "Network.emulateNetworkConditions",
            json!({"offline": false, "latency": LATENCY_MS,
                   "downloadThroughput": DOWN_BYTES_PER_S, "uploadThroughput": UP_BYTES_PER_S}),
        )
        .await;
        b.cdp(
            "Emulation.setCPUThrottlingRate",
            json!({"rate": CPU_THROTTLE}),
        )
        .await;
    } else {
        b.cdp(
            "Network.emulateNetworkConditions",
            json!({"offline": false, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1}),
        )
        .await;
        b.cdp("Emulation.setCPUThrottlingRate", json!({"rate": 1}))
            .await;
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    if v.is_empty() {
        f64::NAN
    } else {
        v[v.len() / 2]
    }
}

/// Loads every page [`LOADS`] times under the slow conditions; one JSON object per page.
pub async fn run(b: &Browser) -> Value {
    let server = GzipServer::start().await;
    let mut pages = Vec::new();
    for page in &PAGES {
        let mut loads = Vec::new();
        for _ in 0..LOADS {
            b.client.goto("about:blank").await.unwrap();
            emulate(b, true).await;
            b.client
                .goto(&format!("{}{}", server.base, page.path))
                .await
                .expect("navigate");
            let mut v = Value::Null;
            for _ in 0..300 {
                v = b.js(READ).await;
                if !v.is_null() {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            assert!(
                !v.is_null(),
                "{}: no first-plot and app-ready marks within 30 s",
                page.name
            );
            // The layout shift of the load (the static view taken over by the app included),
            // once the app has drawn: the sum of the `layout-shift` entries' values.
            tokio::time::sleep(Duration::from_millis(500)).await;
            let cls = b
                .client
                .execute_async(CLS, vec![])
                .await
                .expect("read the layout shift");
            v["layout_shift"] = cls;
            loads.push(v);
        }
        emulate(b, false).await;
        let med = |key: &str| median(loads.iter().filter_map(|l| l[key].as_f64()).collect());
        let bytes = median(
            loads
                .iter()
                .filter_map(|l| l["bytes_before_first_plot"].as_f64())
                .collect(),
        );
        pages.push(json!({
            "name": page.name,
            "path": page.path,
            "first_paint_ms": med("first_paint"),
            "first_plot_ms": med("first_plot"),
            "app_ready_ms": med("app_ready"),
            "layout_shift": med("layout_shift"),
            "bytes_before_first_plot": bytes,
            "budget_first_plot_ms": page.budget_first_plot_ms,
            "budget_app_ready_ms": BUDGET_APP_READY_MS,
            "budget_bytes": page.budget_bytes,
            "loads": loads,
        }));
    }
    json!({
        "conditions": {
            "latency_ms": LATENCY_MS,
            "down_bytes_per_s": DOWN_BYTES_PER_S,
            "up_bytes_per_s": UP_BYTES_PER_S,
            "cpu_throttle": CPU_THROTTLE,
            "loads": LOADS,
            "served": "gzip -9 (flate2) by the benchmark's own server",
        },
        "pages": pages,
    })
}

/// What a load counted before its first plot, by kind of file: the draw program's wasm and JS
/// (`draw-*`, links only) apart from the app's.
fn by_kind(files: &Value) -> String {
    let mut sums: Vec<(&str, f64)> = Vec::new();
    for f in files.as_array().into_iter().flatten() {
        let url = f["url"].as_str().unwrap_or_default();
        let file = url.split(['?', '#']).next().unwrap_or(url);
        let file = file.rsplit('/').next().unwrap_or(file);
        let kind = match file.rsplit_once('.').map(|(_, e)| e) {
            _ if file.starts_with("draw-") && file.ends_with(".wasm") => "draw wasm",
            _ if file.starts_with("draw-") => "draw JS",
            Some("wasm") => "app wasm",
            Some("js") => "JS",
            Some("css") => "CSS",
            _ => "html and other",
        };
        let counted = f["counted"].as_f64().unwrap_or(0.0);
        match sums.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, n)) => *n += counted,
            None => sums.push((kind, counted)),
        }
    }
    sums.iter()
        .filter(|(_, n)| *n > 0.0)
        .map(|(k, n)| format!("{k} {n:.0} B"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The rows the benchmark prints: (what, value, budget, met), `budget` empty where none.
pub fn rows(v: &Value) -> Vec<(String, String, String, Option<bool>)> {
    let f = |v: &Value| v.as_f64().unwrap_or(f64::NAN);
    let mut out = vec![(
        format!("slow 4G + CPU 4×, gzip, median of {LOADS} loads (issue 27)"),
        String::new(),
        String::new(),
        None,
    )];
    for p in v["pages"].as_array().into_iter().flatten() {
        let name = p["name"].as_str().unwrap_or_default();
        let fp = f(&p["first_plot_ms"]);
        let ready = f(&p["app_ready_ms"]);
        let bytes = f(&p["bytes_before_first_plot"]);
        let (bfp, bb) = (f(&p["budget_first_plot_ms"]), f(&p["budget_bytes"]));
        out.push((
            format!("  {name}: first paint"),
            format!("{:.0} ms", f(&p["first_paint_ms"])),
            String::new(),
            None,
        ));
        out.push((
            format!("  {name}: first plot"),
            format!("{fp:.0} ms"),
            format!("≤ {bfp:.0} ms"),
            Some(fp <= bfp),
        ));
        out.push((
            format!("  {name}: app ready"),
            format!("{ready:.0} ms"),
            format!("≤ {BUDGET_APP_READY_MS:.0} ms"),
            Some(ready <= BUDGET_APP_READY_MS),
        ));
        out.push((
            format!("  {name}: layout shift (CLS), after the app drew"),
            format!("{:.3}", f(&p["layout_shift"])),
            String::new(),
            None,
        ));
        out.push((
            format!("  {name}: gzip bytes before first plot"),
            format!("{bytes:.0} B"),
            format!("≤ {bb:.0} B"),
            Some(bytes <= bb),
        ));
        out.push((
            format!("  {name}:   of which (first load)"),
            by_kind(&p["loads"][0]["files"]),
            String::new(),
            None,
        ));
    }
    out
}
