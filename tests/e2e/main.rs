//! The end-to-end tests, one binary: headless Chromium against the release build in `dist/`
//! (`trunk build --release` first), through `crates/e2e-harness`. Run by `./dev test`; one
//! file's tests alone: `cargo test -p roofline-lab --test e2e -- a11y::`.
#![cfg(not(target_arch = "wasm32"))]

mod a11y;
mod basics;
mod collective;
mod ep;
mod fields;
mod first_view;
mod layout;
mod load;
mod load_plot;
mod models;
mod page;
mod profile;
mod robust;
mod security;
mod share;
mod spec;
mod steps;
mod tails;
mod tour;
mod train;
mod trust;
