//! Roofline Lab, the web app: chart drawing ([`charts`]) and the scenario-to-page logic
//! ([`view`]) compile and test natively, and so does the first view without the app
//! ([`first_view`]); the Leptos components ([`app`]) only for wasm32, with the `app` feature
//! (default; the draw program, src/bin/draw.rs, builds without it).

pub mod charts;
pub mod error;
pub mod first_view;
pub mod json;
pub mod keys;
pub mod profile_json;
pub mod view;

#[cfg(all(target_arch = "wasm32", feature = "app"))]
pub mod app;
