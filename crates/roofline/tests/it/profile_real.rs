//! The importers on every profile fixture this project ships (`tests/fixtures/profiles/`, written
//! in the formats of real Nsight Compute and PyTorch exports: the details and raw pages, plain
//! CSV, Chrome traces), so the checks run wherever the repository does, never skipped for a
//! directory that is absent. Run with `--nocapture` to see what each file gave.

use roofline::profile::{fit, import, Format, Profile, Roofline};
use std::path::PathBuf;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/profiles")
}

fn load(d: &std::path::Path, name: &str) -> Option<Result<Profile, String>> {
    let bytes = std::fs::read(d.join(name)).ok()?;
    Some(import(&bytes).map_err(|e| e.to_string()))
}

fn show(name: &str, r: &Result<Profile, String>) {
    match r {
        Ok(p) => {
            println!(
                "{name}: {}, {} records, {:.6} s measured, device {:?}",
                p.format.label(),
                p.kernels.len(),
                p.total_time(),
                p.device
            );
            for k in p.kernels.iter().take(20) {
                let n: String = k.name.chars().take(60).collect();
                println!(
                    "    {n:<60} ×{} {:.3e} s, FLOPs {:?}, bytes {:?}",
                    k.count, k.time, k.flops, k.bytes
                );
            }
            for n in &p.notes {
                println!("    note: {n}");
            }
        }
        Err(e) => println!("{name}: {e}"),
    }
}

#[test]
fn every_real_export_imports_or_says_why() {
    let d = dir();
    let mut names: Vec<String> = std::fs::read_dir(&d)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".csv") || n.ends_with(".json"))
        .collect();
    names.sort();
    for name in names {
        let r = load(&d, &name).unwrap();
        show(&name, &r);
        match &r {
            Ok(p) => {
                assert!(!p.kernels.is_empty(), "{name}");
                assert!(
                    p.kernels.iter().all(|k| k.time > 0.0 && k.time.is_finite()),
                    "{name}"
                );
                let a100 = Roofline::new(312e12, 1.555e12).unwrap();
                if let Ok(f) = fit(&p.kernels, &a100) {
                    println!(
                        "    fit against an A100: cal={} RMS log error {:.3} → {:.3}",
                        f.calibration, f.rms_before, f.rms_after
                    );
                    assert!(f.rms_after <= f.rms_before);
                }
            }
            Err(e) => assert!(e.len() < 500, "{name}: {e}"),
        }
    }
}

#[test]
fn real_gemms_count_their_flops() {
    let d = dir();
    // The RTX 5090 fixture's CUTLASS bf16 GEMM: 33,554,432 tensor-pipe instructions of
    // HMMA.16816 (2·16·8·16 = 4,096 FLOPs each) = 137,438,953,472 = 2·4096³; bytes 67.11 MB read
    // + 33.55 MB written; 900 µs. Its fp32 scale: 16,777,216 FMULs, 1 FLOP each.
    let p = load(&d, "ncu-details-rtx5090.csv").unwrap().unwrap();
    assert_eq!(p.format, Format::NsightComputeDetails);
    let gemm = p.kernels.iter().find(|k| k.name.contains("gemm")).unwrap();
    assert_eq!(gemm.flops, Some(2.0 * 4096f64.powi(3)));
    assert_eq!(gemm.bytes, Some(67.11e6 + 33.55e6));
    assert!((gemm.time - 900e-6).abs() < 1e-12);
    let scale = p
        .kernels
        .iter()
        .find(|k| k.name.contains("elementwise"))
        .unwrap();
    assert_eq!(scale.flops, Some(16_777_216.0));
    // The A100 fixture's GEMM: 33,554,432 HMMA.16816 likewise, 2·4096³ FLOPs.
    let p = load(&d, "ncu-details-a100.csv").unwrap().unwrap();
    let k = p.kernels.iter().find(|k| k.name.contains("gemm")).unwrap();
    assert_eq!(k.flops, Some(2.0 * 4096f64.powi(3)));
}
