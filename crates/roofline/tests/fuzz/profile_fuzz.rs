//! Fuzzing of every profile parser: the importer (format detection, plain CSV, Nsight Compute
//! raw and details pages, PyTorch traces and the JSON tokenizer under them) on the fixtures and
//! a generated trace mutated byte by byte (cuts, inserted delimiters and format words,
//! invalid UTF-8, duplicated and deleted spans) and on random soups; then placement, ranking,
//! grouping and the calibration fit on whatever imported; and the text parsers of
//! calibrations (`cal=` links) and group patterns.
//!
//! Properties: nothing panics; feeding the same bytes in random slices gives the same result
//! as feeding them at once (the same profile or the same message); a refusal is a short
//! message; an import gives finite, non-negative figures; placements are finite; group totals
//! add up to the total time; a fit stays in range and never does worse than the plain roofline;
//! an accepted calibration text reads back to itself.
//!
//! `profile_quick` runs a few hundred cases in the normal tests; `./dev fuzz` runs
//! `fuzz_profiles` with `FUZZ_CASES` (default 100000) in release mode:
//!
//! ```text
//! FUZZ_CASES=100000 cargo test -p roofline --release --test fuzz -- --ignored --nocapture profile_fuzz::
//! ```

use crate::common;
use crate::profile_gen;

use common::fuzz::{self, number_text, random_string};
use common::Rng;
use roofline::profile::{
    default_groups, fit, group_totals, import, rank_by_time_lost, Calibration, Importer, Pattern,
    Profile, Roofline,
};
use std::sync::OnceLock;

const FIXTURES: &[&[u8]] = &[
    include_bytes!("../fixtures/profiles/plain.csv"),
    include_bytes!("../fixtures/profiles/plain-units.csv"),
    include_bytes!("../fixtures/profiles/ncu-raw-h100.csv"),
    include_bytes!("../fixtures/profiles/ncu-details-a100.csv"),
    include_bytes!("../fixtures/profiles/pytorch-trace-2x.json"),
    include_bytes!("../fixtures/profiles/pytorch-trace-1x.json"),
    // Serving engines' step spans (issue 43), plain and gzip (mutated gzip bytes: a corrupt
    // stream gets a message).
    include_bytes!("../fixtures/profiles/sglang-steps.json"),
    include_bytes!("../fixtures/profiles/vllm-steps.json"),
    include_bytes!("../fixtures/profiles/atom-steps.json"),
    include_bytes!("../fixtures/profiles/sglang-steps.json.gz"),
    include_bytes!("../fixtures/profiles/atom-steps.json.gz"),
];

/// Longest refusal allowed.
const MAX_MESSAGE: usize = 600;

/// Pieces inserted by the mutations: delimiters of every format, format words, odd numbers
/// and bytes that are not UTF-8.
const PIECES: &[&[u8]] = &[
    b"{",
    b"}",
    b"[",
    b"]",
    b"\"",
    b",",
    b":",
    b"\\",
    b"\\u",
    b"\\ud800",
    b"\\udc00",
    b"\n",
    b"\r\n",
    b"\t",
    b" ",
    b"==PROF== x\n",
    b"n/a",
    b"1e999",
    b"-",
    b"-0",
    b"0",
    b"9",
    b".",
    b"NaN",
    b"-Infinity",
    b"true",
    b"null",
    b"\"ID\",\"Kernel Name\",",
    b"\"Metric Name\",\"Metric Unit\",\"Metric Value\"",
    b"name,flops,bytes,time\n",
    b"time (us)",
    b"\"cat\": \"kernel\"",
    b"\"cat\": \"cpu_op\"",
    b"\"ph\": \"X\"",
    b"\"correlation\": 1",
    b"\"External id\": 1",
    b"\"Input Dims\": [[",
    b"\"flops\": 5",
    b"\"ts\": ",
    b"\"dur\": ",
    b"\xff",
    b"\xc3",
    b"\xe6\x97",
    b"\xef\xbb\xbf",
    b"12.5us",
    b"1.2 GB",
    b"Kbyte",
    b"usecond",
    b"cycle/nsecond",
    b"%",
    b"4,096",
    b"\"\"",
    b"gpu__time_duration.sum",
    b"sm__ops_path_tensor_src_bf16_dst_fp32.sum",
    b"sm__inst_executed_pipe_tensor.sum",
    b"dram__bytes.sum",
];

fn small_trace() -> &'static [u8] {
    static T: OnceLock<Vec<u8>> = OnceLock::new();
    T.get_or_init(|| profile_gen::trace(6000).bytes)
}

/// 1 to 8 byte-level edits of `base`.
fn mutate(r: &mut Rng, mut s: Vec<u8>) -> Vec<u8> {
    for _ in 0..1 + r.below(8) {
        let at = r.below(s.len() + 1);
        match r.below(6) {
            0 | 1 => {
                let p = r.pick(PIECES);
                s.splice(at..at, p.iter().copied());
            }
            2 if at < s.len() => {
                let end = (at + 1 + r.below(40)).min(s.len());
                s.drain(at..end);
            }
            3 if at < s.len() => s[at] = r.next() as u8,
            4 => s.truncate(at),
            _ => {
                let end = (at + r.below(200)).min(s.len());
                let span = s[at..end].to_vec();
                let to = r.below(s.len() + 1);
                s.splice(to..to, span);
            }
        }
    }
    s
}

/// Random pieces and text.
fn soup(r: &mut Rng) -> Vec<u8> {
    let mut s = Vec::new();
    for _ in 0..r.below(60) {
        if r.chance(3) {
            s.extend_from_slice(random_string(r).as_bytes());
        } else {
            s.extend_from_slice(r.pick(PIECES));
        }
    }
    s
}

#[derive(Debug)]
struct Case {
    bytes: Vec<u8>,
    chunks: u64,
}

fn input(r: &mut Rng, i: usize) -> Case {
    let bytes = match i % 10 {
        0..=6 => {
            let base = r.pick(FIXTURES).to_vec();
            if r.chance(8) {
                base
            } else {
                mutate(r, base)
            }
        }
        7 | 8 => mutate(r, small_trace().to_vec()),
        _ => soup(r),
    };
    Case {
        bytes,
        chunks: r.next(),
    }
}

fn import_in_slices(bytes: &[u8], seed: u64) -> Result<Profile, String> {
    let mut r = Rng::new(seed);
    let mut imp = Importer::new();
    let mut at = 0;
    while at < bytes.len() {
        let n = match r.below(3) {
            0 => 1 + r.below(4),
            1 => 1 + r.below(64),
            _ => 1 + r.below(4096),
        };
        let end = (at + n).min(bytes.len());
        if let Err(e) = imp.feed(&bytes[at..end]) {
            return Err(e.to_string());
        }
        at = end;
    }
    if imp.consumed() != bytes.len() as u64 {
        return Err(format!("consumed {} of {}", imp.consumed(), bytes.len()));
    }
    imp.finish().map_err(|e| e.to_string())
}

fn finite_nonneg(v: Option<f64>) -> bool {
    v.is_none_or(|x| x.is_finite() && x >= 0.0)
}

fn check(case: &Case, i: usize) -> Result<bool, String> {
    let whole = import(&case.bytes).map_err(|e| e.to_string());
    let sliced = import_in_slices(&case.bytes, case.chunks);
    if whole != sliced {
        return Err(format!("whole {whole:?}\nsliced {sliced:?}"));
    }
    let p = match whole {
        Err(msg) => {
            if msg.is_empty() || msg.chars().count() > MAX_MESSAGE {
                return Err(format!(
                    "message of {} characters: {msg}",
                    msg.chars().count()
                ));
            }
            return Ok(false);
        }
        Ok(p) => p,
    };
    if p.kernels.is_empty() {
        return Err("an import without records".into());
    }
    for k in &p.kernels {
        if k.count == 0 || !(k.time.is_finite() && k.time > 0.0) {
            return Err(format!("bad count or time: {k:?}"));
        }
        if ![k.flops, k.bytes, k.bytes_read, k.bytes_written]
            .into_iter()
            .all(finite_nonneg)
        {
            return Err(format!("bad figures: {k:?}"));
        }
    }
    let roof = Roofline::new(989e12, 3.35e12).unwrap();
    for k in &p.kernels {
        if let Some(pl) = roof.place(k) {
            let ok = [
                pl.achieved,
                pl.roof,
                pl.roof_fraction,
                pl.lower_bound,
                pl.time_lost,
            ]
            .iter()
            .all(|x| x.is_finite())
                && pl.intensity >= 0.0
                && pl.roof_fraction >= 0.0;
            if !ok {
                return Err(format!("bad placement {pl:?} of {k:?}"));
            }
        }
    }
    let ranked = rank_by_time_lost(&p.kernels, &roof);
    let mut seen: Vec<usize> = ranked.iter().map(|r| r.index).collect();
    seen.sort_unstable();
    if seen != (0..p.kernels.len()).collect::<Vec<_>>() {
        return Err("the ranking is not a permutation".into());
    }
    let totals = group_totals(&p.kernels, &default_groups(), &roof);
    let sum: f64 = totals.iter().map(|g| g.time).sum();
    let total = p.total_time();
    if (sum - total).abs() > 1e-9 * total.max(1e-300) {
        return Err(format!("group times {sum} vs total {total}"));
    }
    if i % 4 == 0 {
        if let Ok(f) = fit(&p.kernels, &roof) {
            f.calibration.validate().map_err(|e| e.to_string())?;
            if !(f.rms_after.is_finite() && f.rms_after <= f.rms_before * (1.0 + 1e-12) + 1e-15) {
                return Err(format!("fit worse than the roofline: {f:?}"));
            }
            if let Some(s) = f.shares {
                let sum = s.compute + s.memory + s.overhead + s.unexplained;
                if (sum - 1.0).abs() > 1e-6 {
                    return Err(format!("shares add up to {sum}: {s:?}"));
                }
            }
        }
    }
    Ok(true)
}

fn fuzz_profiles(cases: usize) {
    let seed = fuzz::seed();
    let ok = fuzz::run("profile_import", cases, seed, input, |c| {
        // The case number only picks which cases also run the (slower) fit.
        check(c, c.chunks as usize)
    });
    // Unmutated fixtures and mild mutations import: the target is not only refusals.
    assert!(ok * 20 >= cases, "only {ok} of {cases} imported");
}

/// `Calibration::parse` and `Pattern::parse` on number-shaped and random text.
fn fuzz_texts(cases: usize) {
    fuzz::run(
        "profile_text",
        cases,
        fuzz::seed(),
        |r, i| {
            let cal = match i % 3 {
                // In range, written every way a link or a form may write it.
                0 => {
                    let eff = |r: &mut Rng| {
                        let v = 1e-4 + r.unit() * (1.0 - 1e-4);
                        match r.below(3) {
                            0 => format!("{v}"),
                            1 => format!("{}%", v * 100.0),
                            _ => format!("{v:e}"),
                        }
                    };
                    let (c, m) = (eff(r), eff(r));
                    let o = r.unit() * 1e-3;
                    let o = match r.below(3) {
                        0 => format!("{o}"),
                        1 => format!("{}us", o * 1e6),
                        _ => format!("{} ms", o * 1e3),
                    };
                    format!("{c}:{m}:{o}")
                }
                1 => (0..r.below(5))
                    .map(|_| number_text(r))
                    .collect::<Vec<_>>()
                    .join(":"),
                _ => random_string(r),
            };
            (cal, random_string(r))
        },
        |(cal, pat)| {
            let accepted = match Calibration::parse(cal) {
                Ok(c) => {
                    c.validate().map_err(|e| e.to_string())?;
                    let back = Calibration::parse(&c.format()).map_err(|e| e.to_string())?;
                    if back != c {
                        return Err(format!("{c:?} reads back as {back:?}"));
                    }
                    true
                }
                Err(e) => {
                    let m = e.to_string();
                    if !m.starts_with("cal=") || m.chars().count() > MAX_MESSAGE {
                        return Err(format!("message: {m}"));
                    }
                    false
                }
            };
            if let Ok(p) = Pattern::parse(pat) {
                let _ = p.matches(pat);
                let _ = p.matches(cal);
            }
            Ok(accepted)
        },
    );
}

#[test]
fn profile_quick() {
    fuzz_profiles(400);
    fuzz_texts(3000);
}

#[test]
#[ignore = "volume: run by ./dev fuzz"]
fn fuzz_profile() {
    fuzz_profiles(fuzz::volume());
    fuzz_texts(fuzz::volume());
}
