//! The serving tails benchmark (issue 42): 10,000 requests of Llama 3.1-70B FP8 on 8 × H200,
//! prompts of 1,024 tokens, outputs of 1,024, 64 clients (vLLM), simulated as the page does it:
//! a fresh module Web Worker of the page's `<meta name="sim-worker">` URL, posted the
//! scenario's key, timed from `new Worker` to its answer (so the figure includes fetching
//! from the cache, compiling and instantiating the simulation's wasm). A worker asked for a
//! lone request of two tokens gives that start-up alone; the difference is the simulation.
//! The same key is simulated natively too (the row's tails, `view::serving_tails::simulate`
//! with the stored fits).
//!
//! Step times: every step is the mixed step read by the engine's fitted TPOT terms,
//! evaluated exactly (`roofline::serving::StepEval`: each part linear in the step's totals,
//! the parts that read no pairs or keys cached by (B, T), runs of like decode steps timed in
//! one go, each attention part's seconds and then the step's as lines along the run while no
//! part changes its longest term, equal to `step_time` to 1e-12 over the zoo): the cache adds
//! no error, the lines only rounding (figures within 1e-12 relative of step-by-step reading).
//! The core's `cargo bench -p roofline --bench tails` times the same row without the app.

use std::time::Instant;

use e2e_harness::Browser;
use roofline::validation::load::steps::FittedSteps;
use roofline_lab::view::serving_tails::{sim_key, simulate};
use serde_json::{json, Value};

/// The issue's scenario.
pub const LINK: &str = "/?chip=h200&op=llm:preset=llama3.1-70b,tp=8,link=nvlink,w=fp8,x=fp8,prompt=1024,output=1024,load=concurrency,c=64,engine=vllm";
/// A lone request of a two-token output: the worker's start-up.
const TRIVIAL: &str = "/?chip=h200&op=llm:prompt=16,output=2,load=concurrency,c=1";
/// Issue 42's budgets: in the page, and natively.
pub const BUDGET_PAGE_MS: f64 = 100.0;
pub const BUDGET_NATIVE_MS: f64 = 20.0;
const RUNS: usize = 5;

fn key(link: &str) -> String {
    let s = roofline::url::decode(link.trim_start_matches("/?")).scenario;
    sim_key(&s).expect("a serving row under load")
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Round trips of fresh workers for `key` in the page, ms.
async fn page(b: &Browser, key: &str) -> Vec<f64> {
    let v = b
        .js(&format!(
            r#"const url = document.querySelector('meta[name="sim-worker"]').content;
            const out = [];
            for (let i = 0; i < {RUNS}; i++) {{
              const t0 = performance.now();
              const w = new Worker(url, {{type: 'module'}});
              const a = await new Promise(res => {{
                w.onmessage = e => res(e.data);
                w.onerror = e => res({{error: String(e.message)}});
                w.postMessage({{key: {key:?}}});
              }});
              out.push(performance.now() - t0);
              w.terminate();
              if (a.error) throw new Error(a.error);
              // A figure, not a message: the P99 TTFT's value is a number.
              const m = /"metric": "ttft_p99",\s*"value": "([^"]*)"/.exec(a.ok || "");
              if (!m || !isFinite(Number(m[1]))) throw new Error("no P99 TTFT in " + String(a.ok).slice(0, 300));
            }}
            return out;"#
        ))
        .await;
    v.as_array()
        .expect("the worker's times")
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

/// The figures.
pub async fn run(b: &Browser) -> Value {
    let (heavy, trivial) = (key(LINK), key(TRIVIAL));
    let fits = FittedSteps::stored();
    let done = simulate(&heavy, &fits);
    let requests = done.rows[0]
        .cells
        .iter()
        .find(|c| c.metric == "ttft_p99")
        .map(|c| c.title.clone())
        .unwrap_or_default();
    let native: Vec<f64> = (0..RUNS)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(simulate(&heavy, &fits));
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    b.open(TRIVIAL).await;
    let start = page(b, &trivial).await;
    let whole = page(b, &heavy).await;
    json!({
        "link": LINK,
        "derivation": requests,
        "native_ms": native, "native_median_ms": median(native.clone()),
        "page_ms": whole, "page_median_ms": median(whole.clone()),
        "startup_ms": start, "startup_median_ms": median(start.clone()),
    })
}

/// The table's rows: what, value, budget, met.
pub fn rows(v: &Value) -> Vec<(String, String, String, bool)> {
    let f = |k: &str| v[k].as_f64().unwrap_or(f64::NAN);
    vec![
        (
            "tails: 10,000 requests 70B c=64, native (median of 5)".into(),
            format!("{:.1} ms", f("native_median_ms")),
            format!("≤ {BUDGET_NATIVE_MS:.0} ms"),
            f("native_median_ms") <= BUDGET_NATIVE_MS,
        ),
        (
            "tails: the same in the page's worker, start to answer".into(),
            format!("{:.1} ms", f("page_median_ms")),
            format!("≤ {BUDGET_PAGE_MS:.0} ms"),
            f("page_median_ms") <= BUDGET_PAGE_MS,
        ),
        (
            "  of which a worker's start-up (a lone 2-token request)".into(),
            format!("{:.1} ms", f("startup_median_ms")),
            String::new(),
            true,
        ),
    ]
}
