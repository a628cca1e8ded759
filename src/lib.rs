//! Roofline Lab, the web app: chart drawing ([`charts`]) and the scenario-to-page logic
//! ([`view`]) compile and test natively; the Leptos components ([`app`]) only for wasm32.

pub mod charts;
pub mod error;
pub mod first_view;
pub mod json;
pub mod keys;
pub mod view;

#[cfg(target_arch = "wasm32")]
pub mod app;
