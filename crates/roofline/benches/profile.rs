//! Import benchmark for measured profiles (issue 15): a generated ~50 MB PyTorch profiler
//! trace imported whole and in the 1 MiB slices the page feeds, with throughput; and the
//! calibration fit on the records it gives. Issue 43: the page benchmark's 50 MiB serving
//! trace (annotated engine steps) and its gzip, in 1 MiB slices, with the time in the slices
//! (inflating and parsing), the longest slice and the finish (joining kernels to operators and
//! steps) apart. Native figures; the page's come from `benches/page.rs`.
//!
//! Run: `cargo bench -p roofline --bench profile`

#[path = "../tests/common/profile_gen.rs"]
mod profile_gen;
#[path = "../tests/common/serving_gen.rs"]
mod serving_gen;

use divan::counter::BytesCount;
use divan::{black_box, Bencher};
use roofline::profile::{fit, import, Importer, Kernel, Roofline};
use std::sync::OnceLock;
use std::time::Instant;

const SIZE: usize = 50 << 20;

fn trace() -> &'static profile_gen::Synthetic {
    static T: OnceLock<profile_gen::Synthetic> = OnceLock::new();
    T.get_or_init(|| profile_gen::trace(SIZE))
}

/// CPU time of this thread so far, seconds (Linux: `/proc/thread-self/stat`, in clock ticks
/// of 1/100 s), so a figure taken on a loaded machine still says what the import costs.
fn cpu_time() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
    // The fields after the command name (which is in parentheses and may hold spaces).
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split(' ').collect();
    let ticks: f64 = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

fn main() {
    // Three timed imports first, printed plainly (divan's table follows).
    let t = trace();
    let mb = t.bytes.len() as f64 / 1e6;
    for _ in 0..3 {
        let (wall0, cpu0) = (Instant::now(), cpu_time());
        let p = import(&t.bytes).expect("the synthetic trace imports");
        let wall = wall0.elapsed().as_secs_f64();
        let cpu = cpu0.zip(cpu_time()).map(|(a, b)| b - a);
        println!(
            "profile import: {mb:.1} MB trace ({} kernels → {} records): wall {wall:.3} s \
             ({:.0} MB/s){}",
            t.kernels,
            p.kernels.len(),
            mb / wall,
            cpu.map_or(String::new(), |c| format!(
                ", CPU {c:.2} s ({:.0} MB/s)",
                mb / c.max(0.01)
            ))
        );
    }
    serving();
    divan::main();
}

/// The bytes with gzip around them (miniz_oxide's DEFLATE at its default level, the header
/// and the CRC-32 and length trailer of RFC 1952).
fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255];
    out.extend(miniz_oxide::deflate::compress_to_vec(bytes, 6));
    let mut crc = crc32fast::Hasher::new();
    crc.update(bytes);
    out.extend(crc.finalize().to_le_bytes());
    out.extend((bytes.len() as u32).to_le_bytes());
    out
}

/// Issue 43's trace, plain and gzip, fed in the worker's 1 MiB slices: the slices (inflate
/// and parse), the longest one, the finish, wall and CPU time; best of three (the machine is
/// shared).
fn serving() {
    let plain = serving_gen::trace(SIZE);
    let gz = gzip(&plain);
    let mb = plain.len() as f64 / 1e6;
    // The JSON tokenizer alone, with a sink that only counts: what the trace reader adds is
    // the rest.
    struct Count(u64);
    impl roofline::json::Sink for Count {
        fn token(&mut self, _: roofline::json::Token<'_>) -> Result<(), String> {
            self.0 += 1;
            Ok(())
        }
    }
    let (t, c) = (Instant::now(), cpu_time());
    let mut tok = roofline::json::Tokenizer::new(roofline::json::Options::TRACE);
    let mut n = Count(0);
    for s in plain.chunks(1 << 20) {
        tok.feed(s, &mut n).expect("the serving trace is JSON");
    }
    tok.finish(&mut n).expect("the serving trace is JSON");
    let cpu = c.zip(cpu_time()).map(|(a, b)| b - a);
    println!(
        "serving trace, JSON tokenizer alone: {} tokens in {:.0} ms wall, {:.0} ms CPU",
        n.0,
        t.elapsed().as_secs_f64() * 1e3,
        cpu.unwrap_or(f64::NAN) * 1e3
    );
    for (what, bytes) in [("plain", &plain), ("gzip", &gz)] {
        // (slices wall, slices CPU, longest slice, finish wall, finish CPU)
        let mut best = [f64::INFINITY, f64::NAN, 0.0, 0.0, f64::NAN];
        let mut steps = 0;
        for _ in 0..3 {
            let (t, c) = (Instant::now(), cpu_time());
            let mut imp = Importer::new();
            let mut slice_max = 0.0f64;
            for s in bytes.chunks(1 << 20) {
                let ts = Instant::now();
                imp.feed(s).expect("the serving trace imports");
                slice_max = slice_max.max(ts.elapsed().as_secs_f64());
            }
            let (feed, feed_cpu) = (
                t.elapsed().as_secs_f64(),
                c.zip(cpu_time()).map(|(a, b)| b - a),
            );
            let (f, c) = (Instant::now(), cpu_time());
            let p = imp.finish().expect("the serving trace imports");
            let (finish, finish_cpu) = (
                f.elapsed().as_secs_f64(),
                c.zip(cpu_time()).map(|(a, b)| b - a),
            );
            steps = p.steps.len();
            if feed + finish < best[0] + best[3] {
                best = [
                    feed,
                    feed_cpu.unwrap_or(f64::NAN),
                    slice_max,
                    finish,
                    finish_cpu.unwrap_or(f64::NAN),
                ];
            }
        }
        println!(
            "serving trace import, {what} ({:.1} MiB, {steps} steps): slices {:.0} ms wall, \
             {:.0} ms CPU ({:.0} MB/s of text); longest slice {:.1} ms; finish {:.0} ms wall, \
             {:.0} ms CPU",
            bytes.len() as f64 / 1048576.0,
            best[0] * 1e3,
            best[1] * 1e3,
            mb / best[0],
            best[2] * 1e3,
            best[3] * 1e3,
            best[4] * 1e3
        );
    }
}

#[divan::bench(sample_count = 5, sample_size = 1)]
fn import_50mb_trace(bencher: Bencher) {
    let t = trace();
    bencher
        .counter(BytesCount::new(t.bytes.len()))
        .bench(|| import(black_box(&t.bytes)).unwrap());
}

#[divan::bench(sample_count = 5, sample_size = 1)]
fn import_50mb_trace_in_1mib_slices(bencher: Bencher) {
    let t = trace();
    bencher.counter(BytesCount::new(t.bytes.len())).bench(|| {
        let mut imp = Importer::new();
        for c in black_box(&t.bytes).chunks(1 << 20) {
            imp.feed(c).unwrap();
        }
        imp.finish().unwrap()
    });
}

#[divan::bench]
fn fit_1000_kernels(bencher: Bencher) {
    let roof = Roofline::new(989e12, 3.35e12).unwrap();
    let kernels: Vec<Kernel> = (0..1000)
        .map(|i| {
            let mut k = Kernel::new(format!("k{i}"), roofline::profile::Format::PlainCsv);
            let bytes = 1e6 * (1.0 + (i % 97) as f64);
            k.bytes = Some(bytes);
            k.flops = Some(bytes * 0.1 * (1.0 + (i % 31) as f64 * 100.0));
            k.time = 2e-6 + bytes / 3e12 + k.flops.unwrap() / 7e14;
            k
        })
        .collect();
    bencher.bench(|| fit(black_box(&kernels), &roof).unwrap());
}
