//! Fuzzing of the URL decoder (ignored by default; run by `./dev fuzz`):
//!
//! ```text
//! FUZZ_CASES=100000 cargo test -p roofline --release --test url_fuzz -- --ignored --nocapture
//! ```
//!
//! Runs `FUZZ_CASES` (default 100000) deterministic inputs — random strings, parameter soups
//! and mutations of the golden URLs — through `decode`, `encode` of the result and `decode`
//! again, checking that nothing panics and that the re-encoded link is canonical (decodes to
//! the same scenario, without notices, and encodes to itself). `FUZZ_SEED` changes the inputs.

mod common;

use common::{golden_urls, Rng};
use roofline::url::{decode, encode};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Instant;

const DELIMS: &[char] = &[
    '&', '=', ':', ',', '.', '%', '+', '#', '?', ' ', '-', '_', '~', '/', '<', '>', '"', '\'',
    '\\', '\0', '\n', '\t', 'é', 'ü', '✓', '日', '😀', '\u{FEFF}', '\u{202E}',
];
const WORDS: &[&str] = &[
    "v",
    "chip",
    "op",
    "sweep",
    "plot",
    "flops",
    "derate",
    "embed",
    "theme",
    "label",
    "name",
    "custom",
    "matmul",
    "dot",
    "elementwise",
    "bmm",
    "h100",
    "tpu-v5e",
    "tpu-v6e",
    "a100",
    "l4",
    "b",
    "d",
    "f",
    "n",
    "x",
    "w",
    "out",
    "compute",
    "shards",
    "split",
    "link",
    "from",
    "bm",
    "bk",
    "bn",
    "t",
    "inputs",
    "bytes",
    "hbm",
    "hbm_cap",
    "bf16",
    "int8",
    "fp8",
    "fp4",
    "ici",
    "links",
    "interconnect",
    "switch",
    "pcie",
    "onchip",
    "dcn",
    "log",
    "n=",
    "none",
    "auto",
    "off",
    "roofline",
    "1mac",
    "2mac",
    "dark",
    "light",
    "1",
    "2",
    "0",
    "-5",
    "4096",
    "1.97e14",
    "197T",
    "16GB",
    "16GiB",
    "1e999",
    "1e-400",
    "NaN",
    "inf",
    "0x10",
    "..",
    "%2C",
    "%3A",
    "%25",
    "%",
    "%2",
    "%FF",
    "%C3%A9",
    "%00",
    "+",
    "utm_source",
    "fbclid",
];

fn random_string(r: &mut Rng) -> String {
    let len = r.below(200);
    let mut s = String::new();
    for _ in 0..len {
        match r.below(4) {
            0 => s.push(r.pick(DELIMS)),
            1 => s.push_str(r.pick(WORDS)),
            2 => s.push(char::from(b'a' + r.below(26) as u8)),
            _ => s.push(char::from(b'0' + r.below(10) as u8)),
        }
    }
    s
}

/// Structurally plausible parameters with random values.
fn soup(r: &mut Rng) -> String {
    let mut s = String::new();
    for i in 0..1 + r.below(12) {
        if i > 0 || r.below(2) == 0 {
            s.push(if i == 0 { '?' } else { '&' });
        }
        s.push_str(r.pick(&[
            "chip", "op", "sweep", "v", "plot", "flops", "derate", "embed", "theme", "zz",
        ]));
        s.push('=');
        s.push_str(r.pick(WORDS));
        for j in 0..r.below(6) {
            s.push(if j == 0 {
                ':'
            } else {
                r.pick(&[',', ',', ':', '.'])
            });
            s.push_str(r.pick(WORDS));
            if r.below(3) > 0 {
                s.push('=');
                s.push_str(r.pick(WORDS));
            }
        }
    }
    s
}

fn mutate(r: &mut Rng, base: &str) -> String {
    let mut s: Vec<char> = base.chars().collect();
    for _ in 0..1 + r.below(16) {
        let at = r.below(s.len() + 1);
        match r.below(5) {
            0 => {
                let w: Vec<char> = r.pick(WORDS).chars().collect();
                s.splice(at..at, w);
            }
            1 => s.insert(at, r.pick(DELIMS)),
            2 if at < s.len() => {
                let end = (at + 1 + r.below(10)).min(s.len());
                s.drain(at..end);
            }
            3 if at < s.len() => s[at] = r.pick(DELIMS),
            _ => {
                let end = (at + r.below(40)).min(s.len());
                let span: Vec<char> = s[at..end].to_vec();
                let to = r.below(s.len() + 1);
                s.splice(to..to, span);
            }
        }
    }
    s.into_iter().collect()
}

/// Decode, re-encode, decode again; `Err` describes a broken invariant.
fn run(input: &str) -> Result<bool, String> {
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

#[test]
#[ignore = "long: run with ./dev fuzz"]
fn fuzz_decode() {
    let cases: usize = std::env::var("FUZZ_CASES")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(100_000);
    let seed: u64 = std::env::var("FUZZ_SEED")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(1);
    let golden: Vec<&str> = golden_urls();
    assert!(!golden.is_empty());
    let r = &mut Rng::new(seed);
    let start = Instant::now();
    let (mut with_notices, mut bytes) = (0usize, 0usize);
    for i in 0..cases {
        let input = match i % 8 {
            0 | 1 => random_string(r),
            2 | 3 => soup(r),
            4 => {
                let a = r.pick(&golden);
                let b = r.pick(&golden);
                mutate(r, &format!("{a}&{}", b.trim_start_matches('?')))
            }
            7 if i % 4096 == 7 => {
                // Now and then, a link over the 64 KiB limit.
                let g = r.pick(&golden);
                mutate(r, &format!("{g}&{}", "op=dot:label=ü&".repeat(6_000)))
            }
            _ => {
                let g = r.pick(&golden);
                mutate(r, g)
            }
        };
        bytes += input.len();
        match catch_unwind(AssertUnwindSafe(|| run(&input))) {
            Ok(Ok(noticed)) => with_notices += usize::from(noticed),
            Ok(Err(e)) => panic!("case {i} (seed {seed}): {e}\ninput: {input:?}"),
            Err(_) => panic!("case {i} (seed {seed}) panicked\ninput: {input:?}"),
        }
    }
    let t = start.elapsed();
    println!(
        "url fuzz: {cases} cases ({} MB of input, {with_notices} with notices) in {:.2?} ({:.1} µs per case), seed {seed}",
        bytes / 1_000_000,
        t,
        t.as_secs_f64() * 1e6 / cases.max(1) as f64
    );
}
