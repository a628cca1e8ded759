//! The core's fuzz targets, one binary. Each module's quick tests run with the others in
//! `cargo test`; its volume test is ignored and run by `./dev fuzz` in release mode, all six
//! (one at a time, as separate binaries ran before):
//!
//! ```text
//! FUZZ_CASES=100000 cargo test -p roofline --release --test fuzz -- --ignored --nocapture --test-threads=1
//! ```
//!
//! or one alone, by its module name (`url_fuzz`, `parse_fuzz`, `arch_fuzz`, `profile_fuzz`,
//! `steps_fuzz`, `train_fuzz`, `load_fuzz`, `tails_fuzz`: a thousandth of the cases):
//!
//! ```text
//! FUZZ_CASES=100000 cargo test -p roofline --release --test fuzz -- --ignored --nocapture url_fuzz::
//! ```

#[path = "../common/mod.rs"]
mod common;
#[path = "../common/profile_gen.rs"]
mod profile_gen;

mod arch_fuzz;
mod load_fuzz;
mod parse_fuzz;
mod profile_fuzz;
mod steps_fuzz;
mod tails_fuzz;
mod train_fuzz;
mod url_fuzz;
