//! Roofline Lab, the web app: chart drawing ([`charts`]) and the scenario-to-page logic
//! ([`view`]) compile and test natively, and so does the first view without the app
//! ([`first_view`]); the Leptos components ([`app`]) only for wasm32, with the `app` feature
//! (default; the draw program, src/bin/draw.rs, builds without it).

/// Talc instead of the default dlmalloc, in every wasm program of the crate (the app, the draw
/// program, the importer): a smaller allocator (about 2 KB gzip less wasm) and a faster one.
#[cfg(target_arch = "wasm32")]
#[global_allocator]
static TALC: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

pub mod charts;
pub mod error;
pub mod first_view;
pub mod json;
pub mod json_read;
pub mod keys;
pub mod profile_json;
pub mod view;

#[cfg(all(target_arch = "wasm32", feature = "app"))]
pub mod app;
