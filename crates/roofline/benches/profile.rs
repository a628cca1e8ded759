//! Import benchmark for measured profiles (issue 15): a generated ~50 MB PyTorch profiler
//! trace imported whole and in the 1 MiB slices the page feeds, with throughput; and the
//! calibration fit on the records it gives. Native figures; the page's come from
//! `benches/page.rs`.
//!
//! Run: `cargo bench -p roofline --bench profile`

#[path = "../tests/common/profile_gen.rs"]
mod profile_gen;

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
    divan::main();
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
