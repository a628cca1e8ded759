//! Over 600 lines on purpose: test support only, never in the page; the static server, the
//! chromedriver lifecycle and the recorders that every end-to-end suite and the page benchmark
//! share, kept in one place so the suites drive the browser the same way.
//!
//! The browser harness of the end-to-end tests (`tests/e2e*.rs`) and the page benchmark
//! (`benches/page.rs`): the release build in `dist/` served by an in-process HTTP server on
//! 127.0.0.1, driven by headless Chromium through a chromedriver that the harness starts and stops
//! itself (by handle), on free ports. Every wait is bounded; a missing build or browser fails at
//! once with a message saying what to run.
#![cfg(not(target_arch = "wasm32"))]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use fantoccini::wd::WebDriverCompatibleCommand;
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio::process::{Child, Command};

/// How many browsers run at once: `E2E_BROWSERS`, else 2. A test spends most of its time
/// waiting on the page (polls, timers, the worker's import), so two at once keep a 2-core
/// machine busier than one (issue 41: the end-to-end tests were 557 s of a fresh machine's
/// `./dev test`, one at a time).
fn browsers() -> &'static tokio::sync::Semaphore {
    static BROWSERS: std::sync::OnceLock<tokio::sync::Semaphore> = std::sync::OnceLock::new();
    BROWSERS.get_or_init(|| {
        let n = std::env::var("E2E_BROWSERS")
            .ok()
            .and_then(|v| v.parse::<usize>().ok())
            .filter(|&n| n > 0)
            .unwrap_or(2);
        tokio::sync::Semaphore::new(n)
    })
}

/// The repository root (this crate lives in `crates/e2e-harness`).
pub fn root() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    here.ancestors().nth(2).unwrap_or(here).to_path_buf()
}

/// Where screenshots and downloads go, for people to look at.
pub fn artifacts_dir() -> PathBuf {
    let dir = root().join("target").join("e2e");
    std::fs::create_dir_all(&dir).expect("create target/e2e");
    dir
}

/// Reads an HTTP request's head from `sock`: at most 16 KiB, 5 s per read, up to the blank
/// line. Used by the test server and the page benchmark's gzip server.
pub async fn read_request_head(sock: &mut tokio::net::TcpStream) -> String {
    let mut buf = vec![0u8; 16 * 1024];
    let mut used = 0;
    while used < buf.len() {
        match tokio::time::timeout(Duration::from_secs(5), sock.read(&mut buf[used..])).await {
            Ok(Ok(0)) | Err(_) | Ok(Err(_)) => break,
            Ok(Ok(n)) => used += n,
        }
        if buf[..used].windows(4).any(|w| w == b"\r\n\r\n") {
            break;
        }
    }
    String::from_utf8_lossy(&buf[..used]).into_owned()
}

/// The built app the server serves: `dist/`, or `$ROOFLINE_DIST` (relative to the repository
/// root) so that several builds can be tested side by side.
pub fn dist_dir() -> PathBuf {
    match std::env::var("ROOFLINE_DIST") {
        Ok(d) if !d.is_empty() => root().join(d),
        _ => root().join("dist"),
    }
}

/// Requests the server saw: (path, status).
pub type RequestLog = Arc<Mutex<Vec<(String, u16)>>>;

/// A static file server for `dist/` (at `/` and at `/roofline/`, the sub-path a GitHub Pages
/// project site uses) and for the test pages in `tests/pages/` (at `/pages/`).
pub struct Server {
    pub base: String,
    pub log: RequestLog,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Server {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "js" => "text/javascript; charset=utf-8",
        "wasm" => "application/wasm",
        "css" => "text/css; charset=utf-8",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "json" => "application/json",
        _ => "application/octet-stream",
    }
}

fn resolve(path: &str) -> Option<PathBuf> {
    let path = path.split(['?', '#']).next().unwrap_or("/");
    if path.contains("..") {
        return None;
    }
    let (dir, rest) = if let Some(rest) = path.strip_prefix("/pages/") {
        (root().join("tests").join("pages"), rest)
    } else if let Some(rest) = path.strip_prefix("/roofline/") {
        (dist_dir(), rest)
    } else {
        (dist_dir(), path.trim_start_matches('/'))
    };
    let file = if rest.is_empty() || rest.ends_with('/') {
        dir.join(rest).join("index.html")
    } else {
        dir.join(rest)
    };
    file.is_file().then_some(file)
}

impl Server {
    pub async fn start() -> Server {
        let index = dist_dir().join("index.html");
        assert!(
            index.is_file(),
            "{} is missing: build the app first with `trunk build --release` (./dev test does this)",
            index.display()
        );
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind 127.0.0.1:0");
        let base = format!("http://{}", listener.local_addr().unwrap());
        let log: RequestLog = Arc::default();
        let task_log = log.clone();
        let task = tokio::spawn(async move {
            loop {
                let Ok((mut sock, _)) = listener.accept().await else {
                    return;
                };
                let log = task_log.clone();
                tokio::spawn(async move {
                    let head = read_request_head(&mut sock).await;
                    let path = head.split_whitespace().nth(1).unwrap_or("/").to_string();
                    let (status, body, ctype) = match resolve(&path) {
                        Some(file) => match std::fs::read(&file) {
                            Ok(bytes) => (200u16, bytes, content_type(&file)),
                            Err(_) => (500, b"read error".to_vec(), "text/plain"),
                        },
                        None => (404, b"not found".to_vec(), "text/plain"),
                    };
                    log.lock().unwrap().push((path, status));
                    let reason = if status == 200 { "OK" } else { "Not Found" };
                    let header = format!(
                        "HTTP/1.1 {status} {reason}\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n",
                        body.len()
                    );
                    let _ = sock.write_all(header.as_bytes()).await;
                    let _ = sock.write_all(&body).await;
                    let _ = sock.shutdown().await;
                });
            }
        });
        Server { base, log, task }
    }

    /// Requests that did not succeed (a favicon 404 counts).
    pub fn failures(&self) -> Vec<(String, u16)> {
        self.log
            .lock()
            .unwrap()
            .iter()
            .filter(|(_, s)| *s != 200)
            .cloned()
            .collect()
    }
}

fn find_chromedriver() -> PathBuf {
    if let Ok(p) = std::env::var("CHROMEDRIVER") {
        if !p.is_empty() {
            return PathBuf::from(p);
        }
    }
    for dir in std::env::var("PATH").unwrap_or_default().split(':') {
        let p = Path::new(dir).join("chromedriver");
        if p.is_file() {
            return p;
        }
    }
    panic!("chromedriver not found: install Chromium and its driver (Debian: apt-get install chromium chromium-driver; ./dev test does this) or set CHROMEDRIVER");
}

fn find_chrome() -> Option<PathBuf> {
    [
        "/usr/bin/chromium",
        "/usr/bin/chromium-browser",
        "/usr/bin/google-chrome",
    ]
    .iter()
    .map(PathBuf::from)
    .find(|p| p.is_file())
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A browser session with its own chromedriver, profile directory and server.
pub struct Browser {
    pub client: Client,
    pub server: Server,
    driver: Child,
    profile: PathBuf,
    _guard: tokio::sync::SemaphorePermit<'static>,
}

/// chromedriver's log endpoint (not in W3C WebDriver, still served by chromedriver): the entries
/// of one log (`browser`: the console; `performance`: DevTools events) since the last read.
#[derive(Debug)]
struct BrowserLog(&'static str);

impl WebDriverCompatibleCommand for BrowserLog {
    fn endpoint(
        &self,
        base: &url::Url,
        session: Option<&str>,
    ) -> Result<url::Url, url::ParseError> {
        base.join(&format!("session/{}/se/log", session.unwrap_or_default()))
    }
    fn method_and_body(&self, _url: &url::Url) -> (http::Method, Option<String>) {
        (
            http::Method::POST,
            Some(json!({"type": self.0}).to_string()),
        )
    }
}

/// chromedriver's endpoint for a raw DevTools Protocol command on the current page.
#[derive(Debug)]
struct Cdp {
    cmd: String,
    params: Value,
}

impl WebDriverCompatibleCommand for Cdp {
    fn endpoint(
        &self,
        base: &url::Url,
        session: Option<&str>,
    ) -> Result<url::Url, url::ParseError> {
        base.join(&format!(
            "session/{}/goog/cdp/execute",
            session.unwrap_or_default()
        ))
    }
    fn method_and_body(&self, _url: &url::Url) -> (http::Method, Option<String>) {
        (
            http::Method::POST,
            Some(json!({"cmd": self.cmd, "params": self.params}).to_string()),
        )
    }
}

/// What a [`Browser`] records beyond the defaults (each costs a little, so tests opt in).
#[derive(Debug, Default, Clone, Copy)]
pub struct Options {
    /// Record every network request the browser makes (chromedriver's performance log with
    /// DevTools `Network` events), read with [`Browser::network_requests`].
    pub network_log: bool,
}

/// One request the browser made (or tried to make), from the DevTools `Network` events.
#[derive(Debug, Clone)]
pub struct NetRequest {
    /// The requested URL (http(s), ws(s), data:, blob:, ...; data: URLs cut to 80 characters).
    pub url: String,
    /// DevTools resource type: Document, Script, Stylesheet, Fetch, Image, WebSocket, Other, ...
    pub kind: String,
    /// The URL of the document that made it.
    pub document: String,
    /// Why it failed, when it did (`csp` when the Content-Security-Policy blocked it).
    pub blocked: Option<String>,
}

/// Installed by [`Browser::record_csp_violations`] in every new document, before its scripts:
/// collects `securitypolicyviolation` events in `window.__cspViolations`. A same-origin frame
/// (the embed preview) adds to its top window's list, so one read sees the whole page.
const CSP_RECORDER: &str = r#"(() => {
  let list = null;
  try { if (window.top !== window) list = window.top.__cspViolations || null; } catch (e) {}
  if (!list) list = [];
  Object.defineProperty(window, '__cspViolations', { value: list, configurable: false });
  document.addEventListener('securitypolicyviolation', (e) => list.push({
    directive: e.effectiveDirective, blocked: e.blockedURI, source: e.sourceFile,
    line: e.lineNumber, sample: e.sample, disposition: e.disposition, document: location.href,
  }), true);
})();"#;

impl Browser {
    /// Start server, chromedriver and a headless Chromium; fail within seconds if anything is missing.
    pub async fn start() -> Browser {
        Browser::start_with(Options::default()).await
    }

    /// [`Browser::start`] with extra recording.
    pub async fn start_with(options: Options) -> Browser {
        let guard = browsers()
            .acquire()
            .await
            .expect("the browsers' semaphore is never closed");
        let server = Server::start().await;
        let driver_path = find_chromedriver();
        let port = free_port();
        let driver = Command::new(&driver_path)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", driver_path.display()));
        let deadline = Instant::now() + Duration::from_secs(10);
        while tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_err()
        {
            assert!(
                Instant::now() < deadline,
                "chromedriver did not listen on port {port} within 10 s"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let profile =
            std::env::temp_dir().join(format!("roofline-e2e-{}-{port}", std::process::id()));
        let _ = std::fs::remove_dir_all(&profile);
        std::fs::create_dir_all(&profile).unwrap();
        let mut chrome = json!({
            "args": [
                "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--no-first-run", "--disable-default-apps", "--disable-extensions",
                "--window-size=1280,1000", "--force-device-scale-factor=1",
                format!("--user-data-dir={}", profile.display()),
            ],
            "prefs": {
                "download.default_directory": artifacts_dir().join("downloads").display().to_string(),
                "download.prompt_for_download": false,
                // Several exports in a row are several downloads: allow them without a prompt.
                "profile.default_content_setting_values.automatic_downloads": 1
            }
        });
        if let Some(bin) = find_chrome() {
            chrome["binary"] = json!(bin.display().to_string());
        }
        let mut logging = json!({"browser": "ALL"});
        if options.network_log {
            logging["performance"] = json!("ALL");
            chrome["perfLoggingPrefs"] = json!({"enableNetwork": true, "enablePage": false});
        }
        let mut caps = serde_json::Map::new();
        caps.insert("browserName".into(), json!("chrome"));
        caps.insert("goog:chromeOptions".into(), chrome);
        caps.insert("goog:loggingPrefs".into(), logging);
        let mut builder =
            ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new());
        builder.capabilities(caps);
        let url = format!("http://127.0.0.1:{port}");
        let client = tokio::time::timeout(Duration::from_secs(30), builder.connect(&url))
            .await
            .expect("Chromium did not start within 30 s")
            .expect("cannot open a Chromium session through chromedriver");
        Browser {
            client,
            server,
            driver,
            profile,
            _guard: guard,
        }
    }

    /// Open `path` (relative to the server root, e.g. `/` or `/?chip=h100`) and wait for the app.
    pub async fn open(&self, path: &str) {
        self.client
            .goto(&format!("{}{}", self.server.base, path))
            .await
            .expect("navigate");
        self.wait_for("[data-ready='true']").await;
    }

    /// Opens `path` with every `.wasm` request blocked: the page as it is before the app runs
    /// (the front page drawn at build time, or a link's skeleton). Call
    /// [`Browser::allow_wasm`] before opening anything that needs the app again.
    pub async fn open_without_app(&self, path: &str) {
        self.open_blocking(path, &["*.wasm"]).await;
    }

    /// Opens `path` with the requests matching `urls` (DevTools' `Network.setBlockedURLs`
    /// patterns, `*` a wildcard) blocked, and waits for the first view (`[data-static-view]`).
    /// With the app's wasm alone blocked (`*/roofline-lab-*.wasm`), a link shows what the draw
    /// program drew. Call [`Browser::allow_wasm`] before opening anything that needs the app.
    pub async fn open_blocking(&self, path: &str, urls: &[&str]) {
        self.cdp("Network.enable", json!({})).await;
        self.cdp("Network.setBlockedURLs", json!({ "urls": urls }))
            .await;
        self.client.goto("about:blank").await.expect("navigate");
        self.client
            .goto(&format!("{}{}", self.server.base, path))
            .await
            .expect("navigate");
        let deadline = Instant::now() + Duration::from_secs(10);
        while self.js("return location.pathname + location.search").await != path {
            assert!(Instant::now() < deadline, "{path} did not open within 10 s");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        self.wait_for("[data-static-view]").await;
    }

    /// Lets `.wasm` requests through again (after [`Browser::open_without_app`]).
    pub async fn allow_wasm(&self) {
        self.cdp("Network.setBlockedURLs", json!({"urls": []}))
            .await;
    }

    /// Wait (at most 10 s) for a CSS selector to match.
    pub async fn wait_for(&self, css: &str) -> fantoccini::elements::Element {
        self.client
            .wait()
            .at_most(Duration::from_secs(10))
            .for_element(Locator::Css(css))
            .await
            .unwrap_or_else(|e| panic!("`{css}` did not appear within 10 s: {e}"))
    }

    /// Run JavaScript (its `return` value comes back as JSON).
    pub async fn js(&self, script: &str) -> Value {
        self.client
            .execute(script, vec![])
            .await
            .unwrap_or_else(|e| panic!("script failed: {e}\n{script}"))
    }

    /// Console messages at SEVERE level (errors), from chromedriver's browser log.
    pub async fn console_errors(&self) -> Vec<String> {
        let log = self
            .client
            .issue_cmd(BrowserLog("browser"))
            .await
            .expect("read the browser log");
        log.as_array()
            .map(|entries| {
                entries
                    .iter()
                    .filter(|e| e["level"] == "SEVERE")
                    .map(|e| e["message"].as_str().unwrap_or_default().to_string())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Send a DevTools Protocol command to the current page (through chromedriver).
    pub async fn cdp(&self, cmd: &str, params: Value) -> Value {
        self.client
            .issue_cmd(Cdp {
                cmd: cmd.to_string(),
                params,
            })
            .await
            .unwrap_or_else(|e| panic!("DevTools command {cmd} failed: {e}"))
    }

    /// With `BENCH_PROFILE` set (and not empty), starts the DevTools CPU profiler on the page,
    /// sampling every 100 µs; returns whether it started (the benches' `--profile` runs).
    pub async fn start_profile_if_asked(&self) -> bool {
        if !std::env::var("BENCH_PROFILE").is_ok_and(|v| !v.is_empty()) {
            return false;
        }
        self.cdp("Profiler.enable", json!({})).await;
        self.cdp("Profiler.setSamplingInterval", json!({"interval": 100}))
            .await;
        self.cdp("Profiler.start", json!({})).await;
        true
    }

    /// Stops the profiler [`Browser::start_profile_if_asked`] started and writes its profile
    /// (DevTools' `.cpuprofile` JSON) to `file`.
    pub async fn stop_profile_into(&self, file: &std::path::Path) {
        let p = self.cdp("Profiler.stop", json!({})).await;
        if let Some(dir) = file.parent() {
            std::fs::create_dir_all(dir).unwrap();
        }
        std::fs::write(file, p["profile"].to_string()).unwrap();
        eprintln!("profile: {}", file.display());
    }

    /// Run `source` in every document (and frame) loaded from now on, before its own scripts.
    pub async fn on_new_document(&self, source: &str) {
        self.cdp(
            "Page.addScriptToEvaluateOnNewDocument",
            json!({ "source": source }),
        )
        .await;
    }

    /// Record Content-Security-Policy violations in every document loaded from now on; read
    /// them with [`Browser::csp_violations`].
    pub async fn record_csp_violations(&self) {
        self.on_new_document(CSP_RECORDER).await;
    }

    /// The CSP violations recorded in the current top-level document and its same-origin frames
    /// (a JSON object each: directive, blocked, source, line, sample, disposition, document).
    /// `None` when the recorder is not installed in this document.
    pub async fn csp_violations(&self) -> Option<Vec<Value>> {
        self.js(
            "return window.__cspViolations === undefined ? null : window.__cspViolations.slice()",
        )
        .await
        .as_array()
        .cloned()
    }

    /// The requests the browser made since the last call (needs [`Options::network_log`]), in
    /// order: every `Network.requestWillBeSent` and `Network.webSocketCreated`, with the reason
    /// from `Network.loadingFailed` when one was blocked.
    pub async fn network_requests(&self) -> Vec<NetRequest> {
        let log = self
            .client
            .issue_cmd(BrowserLog("performance"))
            .await
            .expect(
                "read the performance log (start the browser with Options { network_log: true })",
            );
        let mut out: Vec<NetRequest> = Vec::new();
        let mut by_id: HashMap<String, usize> = HashMap::new();
        for entry in log.as_array().into_iter().flatten() {
            let Some(text) = entry["message"].as_str() else {
                continue;
            };
            let Ok(msg) = serde_json::from_str::<Value>(text) else {
                continue;
            };
            let (method, p) = (&msg["message"]["method"], &msg["message"]["params"]);
            let id = p["requestId"].as_str().unwrap_or_default().to_string();
            match method.as_str().unwrap_or_default() {
                "Network.requestWillBeSent" => {
                    let mut url = p["request"]["url"].as_str().unwrap_or_default().to_string();
                    if url.starts_with("data:") && url.len() > 80 {
                        url = format!("{}…", url.chars().take(80).collect::<String>());
                    }
                    by_id.insert(id, out.len());
                    out.push(NetRequest {
                        url,
                        kind: p["type"].as_str().unwrap_or("Other").to_string(),
                        document: p["documentURL"].as_str().unwrap_or_default().to_string(),
                        blocked: None,
                    });
                }
                "Network.webSocketCreated" => {
                    by_id.insert(id, out.len());
                    out.push(NetRequest {
                        url: p["url"].as_str().unwrap_or_default().to_string(),
                        kind: "WebSocket".into(),
                        document: String::new(),
                        blocked: None,
                    });
                }
                "Network.loadingFailed" => {
                    if let Some(&i) = by_id.get(&id) {
                        out[i].blocked = Some(
                            p["blockedReason"]
                                .as_str()
                                .or(p["errorText"].as_str())
                                .unwrap_or("failed")
                                .to_string(),
                        );
                    }
                }
                _ => {}
            }
        }
        out
    }

    /// `location.search` once the app has written the scenario to the address bar: the app
    /// waits for edits to pause (250 ms) before it calls `history.replaceState`, so this polls
    /// until the value has been stable for 600 ms (at most 10 s).
    pub async fn settled_search(&self) -> String {
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut last = String::new();
        let mut since = Instant::now();
        loop {
            let now = self
                .js("return location.search")
                .await
                .as_str()
                .unwrap_or_default()
                .to_string();
            if now != last {
                last = now;
                since = Instant::now();
            } else if since.elapsed() >= Duration::from_millis(600) || Instant::now() > deadline {
                return last;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Write a PNG screenshot under target/e2e/ and return its path.
    pub async fn screenshot(&self, name: &str) -> PathBuf {
        let png = self.client.screenshot().await.expect("screenshot");
        let path = artifacts_dir().join(format!("{name}.png"));
        std::fs::write(&path, png).expect("write screenshot");
        path
    }

    /// The box (left, top, width, height in CSS px, rounded) of the first visible match of each
    /// selector, `null` where none is visible: for checking that a takeover keeps the layout.
    pub async fn boxes(&self, selectors: &[&str]) -> Value {
        self.js(&format!(
            r#"return {selectors:?}.map(s => {{
                const e = [...document.querySelectorAll(s)].find(e => e.getClientRects().length > 0);
                if (!e) return null;
                const r = e.getBoundingClientRect();
                return [r.left, r.top, r.width, r.height].map(Math.round);
            }});"#
        ))
        .await
    }

    /// Number of pixels of a canvas that differ from its top-left pixel (the background).
    pub async fn canvas_ink(&self, css: &str) -> u64 {
        let v = self
            .js(&format!(
                r#"const c = document.querySelector({css:?});
                if (!c) return -1;
                const g = c.getContext('2d');
                const d = g.getImageData(0, 0, c.width, c.height).data;
                let n = 0;
                for (let i = 0; i < d.length; i += 4) {{
                  if (Math.abs(d[i]-d[0]) + Math.abs(d[i+1]-d[1]) + Math.abs(d[i+2]-d[2]) > 30) n++;
                }}
                return n;"#
            ))
            .await;
        let n = v.as_i64().unwrap_or(-1);
        assert!(n >= 0, "no canvas matches `{css}`");
        n as u64
    }

    /// How many marks (paths, lines, shapes, text) the SVG inside the element matching `css`
    /// holds: an SVG plot's [`Browser::canvas_ink`] (a drawn embed's, issue 27). Panics when
    /// there is no such SVG.
    pub async fn svg_marks(&self, css: &str) -> u64 {
        let v = self
            .js(&format!(
                r#"const s = document.querySelector({css:?} + ' svg');
                if (!s) return -1;
                return s.querySelectorAll('path, polyline, polygon, line, rect, circle, text').length;"#
            ))
            .await;
        let n = v.as_i64().unwrap_or(-1);
        assert!(n >= 0, "no SVG inside `{css}`");
        n as u64
    }

    /// A hash of a canvas's pixels, to tell whether it was redrawn differently.
    pub async fn canvas_hash(&self, css: &str) -> String {
        self.js(&format!(
            r#"const c = document.querySelector({css:?});
            const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
            let h = 2166136261;
            for (let i = 0; i < d.length; i += 7) {{ h ^= d[i]; h = Math.imul(h, 16777619) >>> 0; }}
            return c.width + 'x' + c.height + ':' + h;"#
        ))
        .await
        .as_str()
        .unwrap_or_default()
        .to_string()
    }

    /// All `data-metric` figures of the result row for (op, chip), as metric → data-value.
    pub async fn row_metrics(&self, op: &str, chip: usize) -> HashMap<String, String> {
        let v = self
            .js(&format!(
                r#"const row = document.querySelector('[data-op="{op}"][data-chip="{chip}"]');
                if (!row) return null;
                const out = {{}};
                row.querySelectorAll('[data-metric]').forEach(e => out[e.dataset.metric] = e.dataset.value);
                return out;"#
            ))
            .await;
        let obj = v
            .as_object()
            .unwrap_or_else(|| panic!("no result row for op {op}, chip {chip}"));
        obj.iter()
            .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
            .collect()
    }

    /// Set an input's value as a user would (select all, type) and fire `input` + `change`.
    pub async fn set_input(&self, css: &str, value: &str) {
        self.js(&format!(
            r#"const e = document.querySelector({css:?});
            if (!e) throw new Error('no element ' + {css:?});
            e.focus();
            e.value = {value:?};
            e.dispatchEvent(new Event('input', {{bubbles: true}}));
            e.dispatchEvent(new Event('change', {{bubbles: true}}));"#
        ))
        .await;
    }

    /// Emulates a viewport of `width`×`height` CSS pixels (a phone: 390×844), or the window's
    /// own size again with `None`.
    pub async fn viewport(&self, size: Option<(u32, u32)>) {
        match size {
            Some((w, h)) => {
                self.cdp(
                    "Emulation.setDeviceMetricsOverride",
                    serde_json::json!({"width": w, "height": h, "deviceScaleFactor": 1, "mobile": w < 600}),
                )
                .await;
            }
            None => {
                self.cdp(
                    "Emulation.clearDeviceMetricsOverride",
                    serde_json::json!({}),
                )
                .await;
            }
        }
    }

    /// Runs axe-core (the pinned copy `./dev setup` installs in `.tools/`) on the page and
    /// returns its violations of any impact, each as `id (impact): targets — help`.
    pub async fn axe(&self) -> Vec<String> {
        let path = root().join(".tools/node_modules/axe-core/axe.min.js");
        let source = std::fs::read_to_string(&path).unwrap_or_else(|e| {
            panic!(
                "axe-core is missing ({}): run ./dev setup: {e}",
                path.display()
            )
        });
        self.js(&format!("if (!window.axe) {{ {source}\n }} return true;"))
            .await;
        let v = self
            .client
            .execute_async(
                r#"const done = arguments[arguments.length - 1];
                axe.run(document, { iframes: false, resultTypes: ['violations'] })
                  .then(r => done(r.violations.map(v => `${v.id} (${v.impact}): ${v.nodes.map(n => n.target.join(' ')).slice(0, 5).join(', ')} — ${v.help}`)))
                  .catch(e => done(['axe failed: ' + e]));"#,
                vec![],
            )
            .await
            .expect("run axe");
        serde_json::from_value(v).unwrap_or_default()
    }

    /// Chooses item `item` of the menu button `menu` (`add-op`, `add-chip`, `export`) with real
    /// clicks, as a user would: the button opens the list, the item acts.
    pub async fn pick(&self, menu: &str, item: &str) {
        self.click(&format!("button[data-menu='{menu}']")).await;
        self.click(&format!("[data-menu-list='{menu}'] [data-item='{item}']"))
            .await;
    }

    /// Click the first element matching `css`.
    pub async fn click(&self, css: &str) {
        self.wait_for(css)
            .await
            .click()
            .await
            .unwrap_or_else(|e| panic!("click `{css}`: {e}"));
    }

    /// From now on in this document, keeps every download instead of saving it: object URLs'
    /// blobs and data URLs of clicked links (read by [`Browser::export`]).
    pub async fn capture_downloads(&self) {
        self.js(CAPTURE_DOWNLOADS).await;
    }

    /// Chooses `what` in the page's export menu (`csv`, `json`, `svg`, `png`) and returns the
    /// downloaded file's name and text (after [`Browser::capture_downloads`]).
    pub async fn export(&self, what: &str) -> (String, String) {
        self.js("window.__dl = [];").await;
        self.pick("export", what).await;
        for _ in 0..100 {
            let v = self
                .client
                .execute_async(
                    r#"const done = arguments[arguments.length - 1];
                    const d = window.__dl[window.__dl.length - 1];
                    if (!d) { done(null); return; }
                    if (d.blob) { d.blob.text().then(t => done([d.name, t])); }
                    else { fetch(d.href).then(r => r.text()).then(t => done([d.name, t])); }"#,
                    vec![],
                )
                .await
                .unwrap();
            if let Some(a) = v.as_array() {
                return (
                    a[0].as_str().unwrap_or_default().to_string(),
                    a[1].as_str().unwrap_or_default().to_string(),
                );
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("no download for {what}");
    }

    /// Text content of the first element matching `css`.
    pub async fn text(&self, css: &str) -> String {
        self.wait_for(css).await.text().await.unwrap_or_default()
    }

    /// Opens the derivation of operation `op` on the first chip (a click on its row) and
    /// returns its lines, one per line.
    pub async fn derivation(&self, op: &str) -> String {
        self.click(&format!("tr[data-op='{op}'][data-chip='0']"))
            .await;
        self.wait_for(&format!("[data-derivation='{op}'] li")).await;
        self.js(&format!(
            "return [...document.querySelectorAll(\"[data-derivation='{op}'] li\")].map(l => l.textContent).join('\\n')"
        ))
        .await
        .as_str()
        .unwrap_or_default()
        .to_string()
    }

    /// The message next to the form input `css` (its `.field`'s `.msg`) and whether it is
    /// marked `aria-invalid`.
    pub async fn field_message(&self, css: &str) -> (String, bool) {
        let v = self
            .js(&format!(
                r#"const e = document.querySelector({css:?});
                const m = e.closest('.field').querySelector('.msg');
                return [m.textContent, e.getAttribute('aria-invalid') === 'true'];"#
            ))
            .await;
        (
            v[0].as_str().unwrap_or_default().to_string(),
            v[1].as_bool().unwrap_or(false),
        )
    }

    /// Close the session and stop chromedriver.
    pub async fn close(mut self) {
        let _ = tokio::time::timeout(Duration::from_secs(10), self.client.clone().close()).await;
        let _ = self.driver.kill().await;
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}

/// Captures downloads in the page: object URLs' blobs and data URLs of clicked links go to
/// `window.__dl` instead of the disk.
pub const CAPTURE_DOWNLOADS: &str = r#"
window.__dl = [];
const blobs = new Map();
const create = URL.createObjectURL;
URL.createObjectURL = (b) => { const u = create(b); blobs.set(u, b); return u; };
HTMLAnchorElement.prototype.click = function () {
  window.__dl.push({ name: this.download, href: this.href, blob: blobs.get(this.href) || null });
};
"#;

/// Parse a `data-value` as a number.
pub fn num(m: &HashMap<String, String>, key: &str) -> f64 {
    m.get(key)
        .unwrap_or_else(|| {
            panic!(
                "metric `{key}` missing; have {:?}",
                m.keys().collect::<Vec<_>>()
            )
        })
        .parse()
        .unwrap_or_else(|_| panic!("metric `{key}` is not a number: {:?}", m[key]))
}

/// Panics unless every box of `after` ([`Browser::boxes`]) is within `px` CSS pixels of the
/// same box in `before`, and every box is there in both.
pub fn assert_boxes_kept(before: &Value, after: &Value, px: f64, what: &str) {
    let (b, a) = (before.as_array().unwrap(), after.as_array().unwrap());
    assert_eq!(b.len(), a.len(), "{what}: boxes {before} then {after}");
    for (s, t) in b.iter().zip(a) {
        let (s, t) = (s.as_array(), t.as_array());
        assert!(
            s.is_some() && t.is_some(),
            "{what}: a box is missing: {before} then {after}"
        );
        for (x, y) in s.unwrap().iter().zip(t.unwrap()) {
            assert!(
                (x.as_f64().unwrap() - y.as_f64().unwrap()).abs() <= px,
                "{what}: moved: {before} then {after}"
            );
        }
    }
}

/// Relative closeness.
pub fn close_to(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * b.abs().max(f64::MIN_POSITIVE)
}
