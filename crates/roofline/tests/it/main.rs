//! The core's integration tests, one binary (`cargo test -p roofline --test it`): one module per
//! subject, so the tests link once instead of once per file. A test's name starts with its
//! module (`arch::deepseek_v3_by_hand`): `cargo test -p roofline --test it -- arch::` runs one
//! file's tests. The fuzz targets are the other binary, `tests/fuzz/main.rs`.
//!
//! proptest keeps its regression seeds in `tests/proptest-regressions/<module>.txt` (its
//! default `FileFailurePersistence::SourceParallel`: the folder beside the one holding
//! `main.rs`).

#[path = "../common/mod.rs"]
mod common;
#[path = "../common/profile_gen.rs"]
mod profile_gen;

mod api;
mod arch;
mod calibration;
mod collectives;
mod llm;
mod llm_ep;
mod llm_sweep;
mod load_disagg;
mod load_own;
mod load_rows;
mod model;
mod module_deps;
mod profile;
mod profile_real;
mod profile_steps;
mod properties;
mod reference;
mod results;
mod serving;
mod serving_fit;
mod serving_keys;
mod serving_load;
mod serving_page;
mod serving_sim;
mod serving_sim_queue;
mod serving_step;
mod serving_tails;
mod serving_tails_keys;
mod serving_tails_sweep;
mod speculative;
mod train;
mod train_op;
mod url_golden;
mod url_props;
mod validation;
