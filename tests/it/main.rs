//! The app's native tests, one binary (`cargo test -p roofline-lab --test it`): the charts,
//! the view (`view*`: rows, forms, plots, exports, against hand calculations) and
//! `screen_props` (everything the page shows for random scenarios). No browser: the
//! end-to-end tests are the `e2e` binary (`tests/e2e/main.rs`), the wasm32 tests `tests/web.rs`.
//! A test's name starts with its module: `cargo test -p roofline-lab --test it -- view_spec::`.
//!
//! `./dev fuzz` runs `screen_props`' volume test alone, in release mode:
//!
//! ```text
//! FUZZ_CASES=100000 cargo test -p roofline-lab --release --test it -- --ignored --nocapture screen_props::
//! ```

// The core's fuzz helpers and golden links, shared with its own tests.
#[cfg(not(target_arch = "wasm32"))]
#[path = "../../crates/roofline/tests/common/mod.rs"]
mod common;
#[cfg(not(target_arch = "wasm32"))]
mod view_support;

mod charts;
mod docs;
mod load_bands;
mod load_plot;
mod measured_steps;
mod screen_props;
mod serving_tails;
mod view;
mod view_form;
mod view_load;
mod view_models;
mod view_own_load;
mod view_plots;
mod view_spec;
mod view_train;
mod view_words;
