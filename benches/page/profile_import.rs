//! The profile import benchmark (issues 15, 43): a generated 50 MiB PyTorch profiler trace of a
//! serving engine (SGLang's annotated steps around operator calls, their kernels and GPU-side
//! spans), chosen with the page's file picker as a user would, plain and gzip-compressed as the
//! engines write it. Timed from the picker's `change` event to the app's `profile-imported` mark
//! (every 1 MiB slice read, inflated and fed to the core's importer), to the step table drawn
//! (its first `tr[data-step]` row) and to the next `plot-drawn` mark (the roofline's markers).
//! While it runs, a `requestAnimationFrame` loop records the gaps between frames: the longest
//! gap says whether the page stayed responsive. Where the time went is printed too: the
//! worker's own timing of its phases (posted with its answer: waiting for its wasm, reading
//! the slices, parsing, finishing and writing the JSON), the page's reading of the answer
//! (to the `profile-imported` mark), timing the steps (to the `steps-computed` mark) and
//! drawing the table, when the longest gap began, and the page's long tasks (over 50 ms).
//! The page's importer starts when the pointer comes over the panel, half a second before the
//! pick, as it does before a user's click and file dialog (the budgets are judged on that
//! import); the plain trace is also imported picked at once, the importer started by the pick.
//! The same bytes are imported natively too.

use std::time::{Duration, Instant};

use e2e_harness::{root, Browser};
use serde_json::{json, Value};

#[path = "../../crates/roofline/tests/common/serving_gen.rs"]
mod serving_gen;
use serving_gen::trace;

/// Size of the generated trace.
pub const TRACE_BYTES: usize = 50 << 20;
/// Issue 43's budget: a 50 MiB annotated trace (and its gzip), from file pick to step table
/// drawn, in at most 1 s (issue 15's was 3 s to the kernels' table).
pub const BUDGET_IMPORT_MS: f64 = 1000.0;
/// Issue 43's: the longest frame gap at most 50 ms (issue 15's was RAIL's 100 ms), three
/// frames at 60 Hz.
pub const BUDGET_FRAME_GAP_MS: f64 = 50.0;
/// How far a frame gap's reading strays from a whole number of frames: the browser's frame
/// times are 16.67 ms apart and a gap of three reads 49.9 to 50.1 ms (seen in this bench), so
/// a gap is judged against the budget with this much allowed (far less than a frame: a gap of
/// four frames, 66.7 ms, is never met).
const FRAME_JITTER_MS: f64 = 0.5;
/// Runs in the page: records the `change` event's time and the frame gaps until the import
/// mark and the next draw, then reports.
const WATCH: &str = r#"
const done = arguments[arguments.length - 1];
window.__imp = {t0: null, gaps: [], frames: 0, long: []};
const imp = window.__imp;
// The importer's answer: when it came, and the worker's own timing of its phases.
const Base = window.Worker;
window.Worker = class extends Base {
  constructor(url, opts) {
    super(url, opts);
    this.addEventListener('message', e => {
      if (e.data && e.data.ok !== undefined && imp.answer === undefined) {
        imp.answer = performance.now();
        imp.worker = e.data.timing || null;
        imp.json_bytes = e.data.ok.byteLength;
      }
    });
  }
};
// Tasks over 50 ms on the page's thread: when (from the pick) and how long.
try {
  new PerformanceObserver(list => {
    for (const e of list.getEntries()) {
      if (imp.t0 !== null && e.startTime >= imp.t0) imp.long.push([e.startTime - imp.t0, e.duration]);
    }
  }).observe({type: 'longtask'});
} catch (_) {}
document.addEventListener('change', e => {
  if (e.target.matches('input[type=file][name=profile]') && imp.t0 === null) imp.t0 = performance.now();
}, true);
// The step table drawn: the first frame that shows one of its rows.
new MutationObserver(() => {
  if (imp.t0 !== null && imp.table === undefined && document.querySelector('tr[data-step]')) {
    imp.table = performance.now();
  }
}).observe(document.body, {subtree: true, childList: true});
let last = null;
const loop = (t) => {
  if (imp.t0 !== null) {
    if (last !== null) { imp.gaps.push([t - last, last - imp.t0]); imp.frames++; }
    last = t;
  }
  if (!imp.stop) requestAnimationFrame(loop);
};
requestAnimationFrame(loop);
done(true);
"#;

const RESULT: &str = r#"
const imp = window.__imp;
if (imp.t0 === null) return null;
const mark = performance.getEntriesByName('profile-imported').find(e => e.startTime >= imp.t0);
if (!mark) return null;
const drawn = performance.getEntriesByName('plot-drawn').find(e => e.startTime >= mark.startTime);
const rows = document.querySelectorAll('tr[data-measured]').length;
const steps = Number((document.querySelector('[data-steps-count]') || {dataset: {}}).dataset.stepsCount || 0);
const err = document.getElementById('profile-msg').textContent;
if ((!drawn || imp.table === undefined) && !err) return null;
imp.stop = true;
const since = (name, after) => {
  const m = performance.getEntriesByName(name).find(e => e.startTime >= after);
  return m ? m.startTime - imp.t0 : null;
};
const gap = imp.gaps.reduce((a, g) => (g[0] > a[0] ? g : a), [0, 0]);
return {import_ms: mark.startTime - imp.t0, shown_ms: drawn ? drawn.startTime - imp.t0 : null,
        table_ms: imp.table === undefined ? null : imp.table - imp.t0,
        answer_ms: imp.answer === undefined ? null : imp.answer - imp.t0,
        worker: imp.worker || null, json_bytes: imp.json_bytes || null,
        steps_ms: since('steps-computed', mark.startTime),
        max_gap_ms: gap[0], max_gap_at_ms: gap[1], long_tasks: imp.long,
        frames: imp.frames, rows, steps, error: err,
        summary: (document.querySelector('[data-profile-summary]') || {}).textContent || ''};
"#;

/// How long the pointer is over the panel before the pick in the [`Approach::Pointer`] import:
/// less than a click on the picker and its file dialog take (or a file dragged onto the panel
/// and dropped).
const APPROACH_MS: u64 = 500;

/// What comes before the pick.
#[derive(Clone, Copy, PartialEq)]
enum Approach {
    /// As a user does: the pointer comes over the panel (the page starts its importer then),
    /// [`APPROACH_MS`] before the file is chosen. The budgets are judged on this import.
    Pointer,
    /// Nothing: the file is chosen at once, the importer started by the pick itself.
    Cold,
}

/// Imports `path` in a fresh page through the file picker and returns the page's figures.
/// With `BENCH_PROFILE=1` the page's thread runs under the DevTools CPU profiler from the pick
/// to the end, and the profile lands in `target/bench/import-<file>.cpuprofile` (the worker's
/// thread is not in it).
async fn page_import(path: &std::path::Path, approach: Approach) -> Value {
    let b = Browser::start().await;
    b.open("/?chip=h100&op=llm:preset=llama3-8b&plot=both")
        .await;
    b.client
        .execute_async(WATCH, vec![])
        .await
        .expect("watch script");
    let input = b.wait_for("input[type=file][name=profile]").await;
    if approach == Approach::Pointer {
        b.js("document.querySelector('[data-profile-panel]').dispatchEvent(new PointerEvent('pointerover', {bubbles: true})); return 0;")
            .await;
        tokio::time::sleep(Duration::from_millis(APPROACH_MS)).await;
    }
    let profile = b.start_profile_if_asked().await;
    input
        .send_keys(&path.display().to_string())
        .await
        .expect("choose the trace");
    let deadline = Instant::now() + Duration::from_secs(120);
    let r = loop {
        let r = b.js(RESULT).await;
        if !r.is_null() {
            break r;
        }
        assert!(
            Instant::now() < deadline,
            "the 50 MiB import did not end in 120 s"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    if profile {
        let name = path
            .file_name()
            .map_or("trace".into(), |n| n.to_string_lossy());
        let cold = if approach == Approach::Cold {
            "-cold"
        } else {
            ""
        };
        b.stop_profile_into(&path.with_file_name(format!("import-{name}{cold}.cpuprofile")))
            .await;
    }
    b.close().await;
    assert_eq!(r["error"], json!(""), "the import failed: {r}");
    r
}

/// The native import of `bytes` in the page's 1 MiB slices: the whole, the longest slice
/// and the finish (where kernels are joined to operators and steps), which bound the page's
/// frame gaps; and the profile.
fn native(bytes: &[u8]) -> (f64, f64, f64, roofline::profile::Profile) {
    let t = Instant::now();
    let mut imp = roofline::profile::Importer::new();
    let mut slice_max_ms = 0.0f64;
    for chunk in bytes.chunks(1 << 20) {
        let ts = Instant::now();
        imp.feed(chunk)
            .expect("the generated trace imports natively");
        slice_max_ms = slice_max_ms.max(ts.elapsed().as_secs_f64() * 1e3);
    }
    let tf = Instant::now();
    let p = imp.finish().expect("the generated trace imports natively");
    let finish_ms = tf.elapsed().as_secs_f64() * 1e3;
    (t.elapsed().as_secs_f64() * 1e3, slice_max_ms, finish_ms, p)
}

/// The figures: for the plain trace and its gzip, the page's times (to the import mark, the
/// step table, the markers) and longest frame gap, and the native import of the same bytes.
pub async fn run() -> Value {
    use std::io::Write as _;
    let bytes = trace(TRACE_BYTES);
    let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    z.write_all(&bytes).unwrap();
    let gz = z.finish().unwrap();
    let dir = root().join("target").join("bench");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("profile-50mib.json");
    let gz_path = dir.join("profile-50mib.json.gz");
    std::fs::write(&path, &bytes).unwrap();
    std::fs::write(&gz_path, &gz).unwrap();

    let (native_ms, slice_max_ms, finish_ms, p) = native(&bytes);
    let (native_gz_ms, gz_slice_max_ms, _, _) = native(&gz);
    let page = page_import(&path, Approach::Pointer).await;
    let page_gz = page_import(&gz_path, Approach::Pointer).await;
    let cold = page_import(&path, Approach::Cold).await;
    json!({
        "bytes": bytes.len(),
        "gz_bytes": gz.len(),
        "records": p.kernels.len(),
        "launches": p.kernels.iter().map(|k| k.count).sum::<u64>(),
        "steps": p.steps.len(),
        "native_import_ms": native_ms,
        "native_slice_max_ms": slice_max_ms,
        "native_finish_ms": finish_ms,
        "native_gz_import_ms": native_gz_ms,
        "native_gz_slice_max_ms": gz_slice_max_ms,
        "page": page,
        "page_gz": page_gz,
        "page_cold": cold,
    })
}

/// The printed rows: (what, value, budget, status).
pub fn rows(v: &Value) -> Vec<(String, String, String, bool)> {
    let f = |v: &Value| v.as_f64().unwrap_or(f64::NAN);
    let mb = f(&v["bytes"]) / 1048576.0;
    let mut out = Vec::new();
    for (key, what) in [
        ("page", format!("{mb:.0} MiB annotated trace")),
        (
            "page_gz",
            format!("its gzip ({:.1} MiB)", f(&v["gz_bytes"]) / 1048576.0),
        ),
    ] {
        let page = &v[key];
        out.push((
            format!("profile import, {what}: file pick to step table"),
            format!("{:.0} ms", f(&page["table_ms"])),
            format!("≤ {BUDGET_IMPORT_MS:.0} ms"),
            f(&page["table_ms"]) <= BUDGET_IMPORT_MS,
        ));
        out.push((
            format!(
                "  longest frame gap while importing ({} frames)",
                page["frames"]
            ),
            // One decimal: a gap of three frames reads 49.9 to 50.1 ms ([`FRAME_JITTER_MS`]).
            format!("{:.1} ms", f(&page["max_gap_ms"])),
            format!("≤ {BUDGET_FRAME_GAP_MS:.0} ms"),
            f(&page["max_gap_ms"]) <= BUDGET_FRAME_GAP_MS + FRAME_JITTER_MS,
        ));
        out.push(info(
            &format!(
                "  to the import mark / markers drawn ({} steps)",
                page["steps"]
            ),
            format!(
                "{:.0} / {:.0} ms",
                f(&page["import_ms"]),
                f(&page["shown_ms"])
            ),
        ));
        out.extend(phases(page));
    }
    let cold = &v["page_cold"];
    out.push(info(
        "profile import, the same trace picked at once (the importer started by the pick)",
        format!(
            "{:.0} ms, longest gap {:.1} ms",
            f(&cold["table_ms"]),
            f(&cold["max_gap_ms"])
        ),
    ));
    out.extend(phases(cold));
    out.push(info(
        &format!(
            "  same bytes, native import ({} records, {} launches, {} steps)",
            v["records"], v["launches"], v["steps"]
        ),
        format!(
            "{:.0} ms (gzip {:.0} ms)",
            f(&v["native_import_ms"]),
            f(&v["native_gz_import_ms"])
        ),
    ));
    out.push(info(
        "    longest 1 MiB slice / finish (native)",
        format!(
            "{:.0} / {:.0} ms",
            f(&v["native_slice_max_ms"]),
            f(&v["native_finish_ms"])
        ),
    ));
    out
}

/// A printed row without a budget.
fn info(what: &str, value: String) -> (String, String, String, bool) {
    (what.to_string(), value, String::new(), true)
}

/// Where one import's time went: the worker (its wasm, reading the file, parsing, writing the
/// JSON), the page reading the JSON back, computing the step table, drawing it; the longest
/// frame gap and when it began; the page's long tasks.
fn phases(page: &Value) -> Vec<(String, String, String, bool)> {
    let f = |v: &Value| v.as_f64().unwrap_or(f64::NAN);
    let w = &page["worker"];
    let answer = f(&page["answer_ms"]);
    let inside = ["ready", "read", "feed", "finish"]
        .iter()
        .map(|k| f(&w[*k]))
        .sum::<f64>();
    let long: Vec<String> = page["long_tasks"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|t| format!("{:.0}+{:.0}", f(&t[0]), f(&t[1])))
                .collect()
        })
        .unwrap_or_default();
    vec![
        info(
            "    worker: start+post / wasm / read / parse / finish",
            format!(
                "{:.0} / {:.0} / {:.0} / {:.0} / {:.0} ms",
                answer - inside,
                f(&w["ready"]),
                f(&w["read"]),
                f(&w["feed"]),
                f(&w["finish"])
            ),
        ),
        info(
            &format!(
                "    page: JSON read ({:.0} KiB) / steps computed / table",
                f(&page["json_bytes"]) / 1024.0
            ),
            format!(
                "{:.0} / {:.0} / {:.0} ms",
                f(&page["import_ms"]) - answer,
                f(&page["steps_ms"]) - f(&page["import_ms"]),
                f(&page["table_ms"]) - f(&page["steps_ms"]),
            ),
        ),
        info(
            "    longest gap began at (ms after the pick)",
            format!("{:.0} ms", f(&page["max_gap_at_ms"])),
        ),
        info(
            "    page tasks over 50 ms (start+duration)",
            if long.is_empty() {
                "none".into()
            } else {
                long.join(" ")
            },
        ),
    ]
}
