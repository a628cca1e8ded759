//! Fuzzing of the URL decoder: random strings, parameter soups and mutations of the golden
//! URLs go through `decode`, `encode` of the result and `decode` again, checking that nothing
//! panics and that the re-encoded link is canonical (decodes to the same scenario, without
//! notices, and encodes to itself).
//!
//! `decode_quick` runs 3000 cases in the normal tests; `./dev fuzz` runs `fuzz_decode` with
//! `FUZZ_CASES` (default 100000) in release mode:
//!
//! ```text
//! FUZZ_CASES=100000 cargo test -p roofline --release --test fuzz -- --ignored --nocapture url_fuzz::
//! ```
//!
//! `FUZZ_SEED` changes the inputs. (The app's `tests/screen_props.rs` renders what these
//! links decode to.)

use crate::common;

use common::fuzz::{self, url_input};
use common::golden_urls;
use roofline::url::{decode, encode};

/// Decode, re-encode, decode again; `Err` describes a broken invariant. `Ok(true)` when the
/// input gave notices.
fn stable(input: &str) -> Result<bool, String> {
    let d1 = decode(input);
    let e1 = encode(&d1.scenario);
    let d2 = decode(&e1);
    if !d2.notices.is_empty() {
        return Err(format!(
            "re-encoded link has notices {:?}: {e1}",
            d2.notices
        ));
    }
    if d2.scenario != d1.scenario {
        return Err(format!("re-encoded link decodes differently: {e1}"));
    }
    let e2 = encode(&d2.scenario);
    if e2 != e1 {
        return Err(format!("encoding is not a fixed point: {e1} → {e2}"));
    }
    Ok(!d1.notices.is_empty())
}

fn fuzz_urls(cases: usize) {
    let golden = golden_urls();
    assert!(!golden.is_empty());
    let noticed = fuzz::run(
        "url decode",
        cases,
        fuzz::seed(),
        |r, i| url_input(r, i, &golden),
        |s| stable(s),
    );
    // The generators must reach both sides: links with and without problems.
    assert!(
        noticed > cases / 4 && noticed < cases,
        "{noticed} of {cases} with notices"
    );
}

#[test]
fn decode_quick() {
    fuzz_urls(3_000);
}

#[test]
#[ignore = "volume: run by ./dev fuzz"]
fn fuzz_decode() {
    fuzz_urls(fuzz::volume());
}
