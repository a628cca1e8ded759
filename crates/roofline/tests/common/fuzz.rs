//! The fuzz harness and input generators shared by the fuzz tests (`tests/fuzz/`: `url_fuzz`,
//! `parse_fuzz`, and the app's `screen_props`).
//!
//! Each target runs a number of cases: a small fixed count in the normal `cargo test`, and
//! `FUZZ_CASES` (default 100000) in an ignored test that `./dev fuzz` runs in release mode.
//! Case `i` draws its input from its own generator seeded by (`FUZZ_SEED`, `i`), so a failure
//! names the case and the seed that reproduce it.

use super::Rng;
use std::fmt::Debug;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Instant;

/// `FUZZ_CASES` (default 100000): the number of cases of the volume runs.
pub fn volume() -> usize {
    env_num("FUZZ_CASES").unwrap_or(100_000) as usize
}

/// `FUZZ_SEED` (default 1).
pub fn seed() -> u64 {
    env_num("FUZZ_SEED").unwrap_or(1)
}

fn env_num(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|v| v.trim().parse().ok())
}

/// The generator of case `i` under `seed`.
pub fn case_rng(seed: u64, i: usize) -> Rng {
    Rng::new(
        seed ^ (i as u64)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .rotate_left(17),
    )
}

/// `Debug` of an input, shortened to about 2000 characters for failure messages.
pub fn show<I: Debug>(input: &I) -> String {
    let s = format!("{input:?}");
    if s.chars().count() <= 2000 {
        s
    } else {
        let head: String = s.chars().take(2000).collect();
        format!("{head}… ({} characters)", s.chars().count())
    }
}

/// Runs `cases` cases of a target: `generate` draws an input from the case's generator,
/// `check` must return `Ok` without panicking. Stops at the first failure with the case
/// number, the seed and the input. Prints the cases and the elapsed time; returns the number
/// of cases `check` reported as interesting (`Ok(true)`), e.g. inputs that were accepted.
pub fn run<I: Debug>(
    target: &str,
    cases: usize,
    seed: u64,
    mut generate: impl FnMut(&mut Rng, usize) -> I,
    mut check: impl FnMut(&I) -> Result<bool, String>,
) -> usize {
    let start = Instant::now();
    let mut interesting = 0;
    for i in 0..cases {
        let input = generate(&mut case_rng(seed, i), i);
        match catch_unwind(AssertUnwindSafe(|| check(&input))) {
            Ok(Ok(hit)) => interesting += usize::from(hit),
            Ok(Err(e)) => panic!(
                "{target}: case {i} (FUZZ_SEED={seed}) failed: {e}\ninput: {}",
                show(&input)
            ),
            Err(_) => panic!(
                "{target}: case {i} (FUZZ_SEED={seed}) panicked\ninput: {}",
                show(&input)
            ),
        }
    }
    let t = start.elapsed();
    println!(
        "fuzz {target}: {cases} cases in {:.2} s ({:.1} µs per case; {interesting} interesting), seed {seed}",
        t.as_secs_f64(),
        t.as_secs_f64() * 1e6 / cases.max(1) as f64
    );
    interesting
}

// ---------------------------------------------------------------------------------------
// URL-shaped inputs

/// Single characters URL inputs are made of: delimiters, markup, controls, unicode.
pub const DELIMS: &[char] = &[
    '&', '=', ':', ',', '.', '%', '+', '#', '?', ' ', '-', '_', '~', '/', '<', '>', '"', '\'',
    '\\', '\0', '\n', '\t', 'é', 'ü', '✓', '日', '😀', '\u{FEFF}', '\u{202E}',
];

/// Words URL inputs are made of: parameter names, preset and kind ids, field keys, values.
pub const WORDS: &[&str] = &[
    "v",
    "chip",
    "op",
    "sweep",
    "plot",
    "y",
    "achieved",
    "time",
    "fraction",
    "tokens",
    "xy",
    "flops",
    "derate",
    "cal",
    "0.8:0.9:5us",
    "1e-4:1:1",
    "embed",
    "theme",
    "label",
    "name",
    "custom",
    "matmul",
    "dot",
    "elementwise",
    "bmm",
    "llm",
    "model",
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
    "params",
    "act",
    "ctx",
    "phase",
    "prefill",
    "tp",
    "layers",
    "dmodel",
    "ffn",
    "heads",
    "kv_heads",
    "head_dim",
    "vocab",
    "experts",
    "top_k",
    "shared_experts",
    "expert_ffn",
    "shared_ffn",
    "dense_layers",
    "router_bias",
    "shared_gate",
    "kv_rank",
    "q_rank",
    "rope_dim",
    "nope_dim",
    "v_dim",
    "window",
    "window_layers",
    "tied",
    "qkv_bias",
    "o_bias",
    "mlp_bias",
    "sinks",
    "qk_norm",
    "norms",
    "prompt",
    // Issue 40's load keys and their words.
    "load",
    "concurrency",
    "rate",
    "c",
    "qps",
    "prefix_hit",
    "chunk",
    "max_seqs",
    "ttft_max",
    "engine",
    "vllm",
    "sglang",
    "trtllm",
    "generic",
    "moe_ep",
    "output",
    "net",
    "price",
    "power",
    "deepseek-v3",
    "mixtral-8x7b",
    "gemma3-27b",
    "hbm",
    "hbm_cap",
    "bf16",
    "int8",
    "fp8",
    "fp4",
    "vpu",
    "ici",
    "links",
    "interconnect",
    "switch",
    "pcie",
    "onchip",
    "dcn",
    "torus",
    "wrap",
    "node",
    "leaf",
    "hop_lat",
    "net_lat",
    "collective",
    "kind",
    "allgather",
    "allreduce",
    "alltoall",
    "send",
    "topology",
    "ring",
    "uniring",
    "cluster",
    "axes",
    "levels",
    "sharp",
    "8nx16w",
    "4x4x4",
    "8@450G/32@400G",
    "8/32/4",
    // The train op (issue 14).
    "train",
    "preset",
    "dp",
    "llama3-70b",
    "batch",
    "fsdp",
    "pp",
    "ep",
    "mb",
    "remat",
    "block",
    "adam",
    "gpipe",
    "zero1",
    "tokens",
    "mfu",
    "log",
    "n=",
    "none",
    "auto",
    "off",
    "roofline",
    "both",
    "1mac",
    "2mac",
    "dark",
    "light",
    "1",
    "2",
    "0",
    "-0",
    "-5",
    "4096",
    "1e15",
    "1e30",
    "1e-3",
    "1.97e14",
    "197T",
    "16GB",
    "16GiB",
    "1e999",
    "1e-400",
    "1e-320",
    "1e300",
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

/// Up to 200 characters of delimiters, words, letters and digits.
pub fn random_string(r: &mut Rng) -> String {
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
pub fn soup(r: &mut Rng) -> String {
    let mut s = String::new();
    for i in 0..1 + r.below(12) {
        if i > 0 || r.below(2) == 0 {
            s.push(if i == 0 { '?' } else { '&' });
        }
        s.push_str(r.pick(&[
            "chip", "op", "sweep", "v", "plot", "y", "log", "flops", "derate", "cal", "embed",
            "theme", "zz",
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

/// 1 to 16 random edits of `base` (insert a word or delimiter, delete, replace, duplicate a
/// span), on char boundaries.
pub fn mutate(r: &mut Rng, base: &str) -> String {
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

/// A URL-shaped input for case `i`: random strings, parameter soups, and mutations of golden
/// URLs (alone or two joined); now and then a link over the 64 KiB limit.
pub fn url_input(r: &mut Rng, i: usize, golden: &[&str]) -> String {
    match i % 8 {
        0 | 1 => random_string(r),
        2 | 3 => soup(r),
        4 => {
            let a = r.pick(golden);
            let b = r.pick(golden);
            mutate(r, &format!("{a}&{}", b.trim_start_matches('?')))
        }
        7 if i % 4096 == 7 => {
            let g = r.pick(golden);
            mutate(r, &format!("{g}&{}", "op=dot:label=ü&".repeat(6_000)))
        }
        _ => {
            let g = r.pick(golden);
            mutate(r, g)
        }
    }
}

// ---------------------------------------------------------------------------------------
// Number-shaped inputs

/// Texts every number field must survive: empty, zeros, signs, NaN and infinities, overflow
/// and underflow, subnormals, separators, markup, unicode digits, SI and binary suffixes,
/// words of other fields.
pub const ADVERSARIAL: &[&str] = &[
    "",
    " ",
    "\t",
    "0",
    "-0",
    "+0",
    "0.0",
    "-0.0",
    "00",
    "1",
    "-1",
    "+1",
    "2",
    "0.5",
    "-0.5",
    "NaN",
    "nan",
    "-NaN",
    "inf",
    "-inf",
    "+inf",
    "Infinity",
    "-Infinity",
    "infinity",
    "∞",
    "1e309",
    "-1e309",
    "1e308",
    "1.7976931348623157e308",
    "1.8e308",
    "1e-320",
    "4.9e-324",
    "5e-324",
    "2.2250738585072014e-308",
    "1e-400",
    "-1e-320",
    "1e999999999999999999999",
    "1e-999999999999999999999",
    "1e+30",
    "1e30",
    "1.0000000000000001e30",
    "1e31",
    "1e15",
    "1e15+1",
    "1000000000000001",
    "1e16",
    "9007199254740993",
    "1e6",
    "1000001",
    "64",
    "65",
    "1024",
    "1025",
    "0.01",
    "0.009",
    "1e-3",
    "9e-4",
    "0x10",
    "0b1",
    "1_000",
    "1,000",
    "10,000",
    "1.000,5",
    "1 000",
    "4k",
    "4K",
    "16GiB",
    "16 GiB",
    "16GB",
    "197T",
    "197 TFLOP/s",
    "1.97e14",
    "820 GB/s",
    "3.35 TB/s",
    "2.3 ms",
    "128MiB",
    "1 kB",
    "1 kib",
    "1KiB/s",
    "1 FLOPS",
    "1 TOPS",
    "1 OPs",
    "1E",
    "1P",
    "1Ei",
    "1e",
    "e5",
    ".",
    "..",
    ".5",
    "5.",
    "1..2",
    "--1",
    "+-1",
    "1ee5",
    "1e+",
    "1e-",
    "µs",
    "4 kk",
    "none",
    "None",
    "NONE",
    "-",
    "auto",
    "off",
    "on",
    "yes",
    "no",
    "true",
    "bf16",
    "int8",
    "fp8e5m2",
    "llama3-8b",
    "resnet50",
    "custom",
    "decode",
    "prefill",
    "switch",
    "ici",
    "d",
    "hbm",
    "<img src=x onerror=alert(1)>",
    "<script>alert(1)</script>",
    "\"><b>x</b>",
    "'; DROP TABLE x; --",
    "%2C",
    "%00",
    "\0",
    "1\0",
    "\u{FEFF}1",
    "1\u{200B}",
    "٣",
    "４０９６",
    "①",
    "½",
    "1½",
    "𝟙",
    "ⅰ",
    "日本",
    "😀",
    "\u{202E}1",
    "1\n2",
    " 1 ",
    "1 ",
    "4x4",
    "4X4X4",
    "8nx16w",
    "16w",
    "4x0",
    "4xx4",
    "x",
    "1e9x2",
    "4.5x4",
    "-4x4",
    "8@450G/32@400G",
    "8@450G",
    "8@",
    "@450G",
    "8/32/4",
    "8;32",
    "8/",
    "/",
    "0/8",
    "8@0",
    "8@-1",
    "8@1e31",
    "1e9/2",
    "8@450 GB/s",
    "8@4.5e11/32",
    "1µs",
    "0.6us",
    "1e-6",
];

/// Pieces random numbers are made of.
const NUM_PIECES: &[&str] = &[
    "0", "1", "2", "5", "9", "00", "12", "4096", ".", ".", "e", "E", "e-", "e+", "-", "+", " ",
    "k", "K", "M", "G", "T", "P", "E", "m", "u", "µ", "n", "p", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei",
    "B", "B/s", "FLOP", "FLOP/s", "FLOPs", "FLOPS", "OPS", "s", "ms", "/", "i", "x", "é", "NaN",
    "inf", "none", "999", "308", "309", "320", "324",
];

/// A random number-shaped text: pieces of numbers, suffixes and junk; a formatted random
/// `f64` (any bit pattern) with a random suffix; a number with a huge exponent; a long
/// string; or arbitrary unicode.
pub fn number_text(r: &mut Rng) -> String {
    match r.below(10) {
        0..=2 => r.pick(ADVERSARIAL).to_string(),
        3 | 4 => {
            let mut s = String::new();
            for _ in 0..1 + r.below(8) {
                s.push_str(r.pick(NUM_PIECES));
            }
            s
        }
        5 | 6 => {
            let x = f64::from_bits(r.next());
            let x = if r.chance(2) {
                x
            } else {
                10f64.powf(r.unit() * 80.0 - 40.0)
            };
            let body = if r.chance(2) {
                format!("{x}")
            } else {
                format!("{x:e}")
            };
            let suffix = r.pick(&[
                "", "", "", "k", "M", "G", "T", "P", "E", "Gi", "Ti", " B", " B/s", " FLOP/s",
                "GB", "GiB", "ms", "x",
            ]);
            format!("{body}{suffix}")
        }
        7 => {
            let mant = r.pick(&["1", "9.99", "0.001", "123456789", "-1", "4.9"]);
            let exp = r.pick(&[
                "308",
                "309",
                "-307",
                "-308",
                "-320",
                "-324",
                "-325",
                "400",
                "-400",
                "15",
                "16",
                "30",
                "31",
                "99999999999",
                "-99999999999",
            ]);
            format!("{mant}e{exp}{}", r.pick(&["", "k", "Gi", "p", "E"]))
        }
        8 => {
            let unit = r.pick(&["9", "1", "0", "a", "<", "😀", "1e", "."]);
            let mut s = unit.repeat(1 + r.below(10_000) / unit.len().max(1));
            if r.chance(2) {
                s.push_str(r.pick(&["", "e-400", "e400", "k", "GiB"]));
            }
            s
        }
        _ => (0..r.below(12))
            .map(|_| {
                if r.chance(2) {
                    char::from(32 + r.below(95) as u8)
                } else {
                    char::from_u32(r.below(0x11_0000) as u32).unwrap_or('\u{FFFD}')
                }
            })
            .collect(),
    }
}
