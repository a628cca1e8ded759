//! The importers on the real exports in `shared/profiles/` (third-party files, never committed;
//! CI has them at `../shared/profiles` from the repository root). Skips when absent.

use roofline::profile::{fit, import, Roofline};
use std::path::PathBuf;

fn dir() -> Option<PathBuf> {
    let d = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/profiles");
    d.is_dir().then_some(d)
}

#[test]
fn real_exports() {
    let Some(d) = dir() else {
        eprintln!("shared/profiles not found: skipped");
        return;
    };
    let mut names: Vec<_> = std::fs::read_dir(&d)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    names.sort();
    for p in names {
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        if name.ends_with(".md") {
            continue;
        }
        let bytes = std::fs::read(&p).unwrap();
        match import(&bytes) {
            Ok(prof) => {
                println!(
                    "{name}: {} — {} records, {:.6} s, device {:?}",
                    prof.format.label(),
                    prof.kernels.len(),
                    prof.total_time(),
                    prof.device
                );
                for k in prof.kernels.iter().take(40) {
                    println!(
                        "   {:<60} n={} t={:.3e} F={:?} B={:?} {}",
                        k.name.chars().take(60).collect::<String>(),
                        k.count,
                        k.time,
                        k.flops,
                        k.bytes,
                        k.flops_estimate.as_deref().unwrap_or("")
                    );
                }
                for n in &prof.notes {
                    println!("   note: {n}");
                }
                let roof = Roofline::new(312e12, 1.555e12).unwrap();
                if let Ok(f) = fit(&prof.kernels, &roof) {
                    println!(
                        "   fit on A100: {} rms {:.3} -> {:.3}, shares {:?}",
                        f.calibration, f.rms_before, f.rms_after, f.shares
                    );
                }
            }
            Err(e) => println!("{name}: error: {e}"),
        }
    }
}
