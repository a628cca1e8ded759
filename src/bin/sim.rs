//! The simulation of serving tails (issue 42), off the page's thread: a small wasm without
//! Leptos that runs `roofline_lab::view::serving_tails::run` in a Web Worker.
//! `assets/sim-worker.js` (the worker's script) loads it when the page first shows a serving
//! row under `load=concurrency|rate`, and answers each scenario's link with the tails cells
//! of its rows as JSON; the app lays them over the rows of that scenario only. So the
//! simulation (10,000 requests, a goodput's bisection, `disagg=auto`'s search) never holds up
//! an edit.
//!
//! Trunk builds it like the importer (index.html: `data-bin="sim" data-type="worker"`, an ES
//! module, without the crate's `app` feature); `scripts/csp_post_build.py` gives its files
//! hashed names and writes them into `<meta name="sim-worker">`. Natively,
//! `cargo run --bin sim -- '<query>'` prints the answer's JSON, `cargo run --bin sim -- --bands
//! '<query>'` the load plot's simulated bands (`view::serving_tails::bands`).

#[cfg(target_arch = "wasm32")]
mod web {
    use wasm_bindgen::prelude::*;

    /// The tails of every row of the scenario `key` (a link's query) as JSON.
    #[wasm_bindgen]
    pub fn simulate(key: &str) -> String {
        roofline_lab::view::serving_tails::run(key)
    }

    /// The load plot's simulated bands of the scenario `key` (its bands' key) as JSON.
    #[wasm_bindgen]
    pub fn bands(key: &str) -> String {
        roofline_lab::view::serving_tails::bands::run_bands(key)
    }
}

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    let mut args = std::env::args().skip(1);
    let (bands, query) = match args.next() {
        Some(a) if a == "--bands" => (true, args.next()),
        q => (false, q),
    };
    let Some(query) = query else {
        eprintln!("sim: give a link's query (?chip=h100&op=llm:load=concurrency,c=8), after --bands for the load plot's bands");
        std::process::exit(2)
    };
    if bands {
        println!(
            "{}",
            roofline_lab::view::serving_tails::bands::run_bands(&query)
        );
    } else {
        println!("{}", roofline_lab::view::serving_tails::run(&query));
    }
}
