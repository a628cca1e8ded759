//! The importers on the real exports in `shared/profiles/` (third-party files, never
//! committed; see its SOURCES.md). The directory sits next to the repository
//! (`../shared/profiles` from its root); the test skips when it is absent. Run with
//! `--nocapture` to see what each file gave.

use roofline::profile::{fit, import, Format, Profile, Roofline};
use std::path::PathBuf;

fn dir() -> Option<PathBuf> {
    let d = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/profiles");
    d.is_dir().then_some(d)
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
    let Some(d) = dir() else {
        eprintln!("shared/profiles is absent: skipped");
        return;
    };
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
    let Some(d) = dir() else {
        return;
    };
    // The CUTLASS examples print "Cutlass GEMM Performance: 94622.9 GFLOPS" for 181.561 ms:
    // 1.718e13 FLOPs, a 20480³ GEMM (2·20480³ = 17,179,869,184,000). ncu's tensor-pipe
    // instruction counts times the MMA shape give exactly that on the A100 (m16n8k8 from
    // CUTLASS's template name, m16n8k16 from `s16816gemm`) and on the V100 (512 per HMMA.884,
    // plus the epilogue's few FP32 instructions).
    let gemm = 2.0 * 20480f64.powi(3);
    if let Some(r) = load(&d, "ncu-details-a100pcie-cutlass-gemm.csv") {
        let p = r.unwrap();
        assert_eq!(p.format, Format::NsightComputeDetails);
        let gemms: Vec<_> = p
            .kernels
            .iter()
            .filter(|k| k.name.contains("gemm") || k.name.contains("Gemm"))
            .collect();
        assert_eq!(gemms.len(), 7);
        for k in gemms {
            assert_eq!(k.flops, Some(gemm), "{}", k.name);
            assert!(k.flops_estimate.is_some());
        }
    }
    if let Some(r) = load(&d, "ncu-details-v100pcie-cutlass-gemm.csv") {
        let p = r.unwrap();
        for k in p
            .kernels
            .iter()
            .filter(|k| k.name.contains("gemm") || k.name.contains("Gemm"))
        {
            let f = k.flops.unwrap();
            assert!(f >= gemm && f < gemm * 1.001, "{}: {f}", k.name);
        }
    }
    // A naive fp32 GEMM: 40960 × 40960 outputs of K = 20480: 2·40960²·20480 FLOPs of FFMA.
    if let Some(r) = load(&d, "ncu-details-a100pcie-naive-sgemm.csv") {
        let p = r.unwrap();
        let k = p
            .kernels
            .iter()
            .find(|k| k.name.starts_with("void gemm_v0"))
            .unwrap();
        assert!(k.flops.unwrap() >= 2.0 * 40960f64.powi(2) * 20480.0);
    }
    // The RTX 5090 exports carry NVIDIA's exact tensor op counters.
    if let Some(r) = load(&d, "ncu-details-rtx5090-cutlass-bf16-gemm.csv") {
        let k = &r.unwrap().kernels[0];
        assert_eq!(k.flops, Some(12_532_580_352.0));
        assert_eq!(k.flops_estimate, None);
        assert_eq!(k.bytes, Some(17.5e6));
    }
    // An ncu log with no table.
    if let Some(r) = load(&d, "ncu-raw-b200-no-kernels.csv") {
        assert!(r.unwrap_err().contains("no kernel table"));
    }
    // The A100 trace: aten::addmm(bias[64], x[4096, 100], w[100, 64]) in fp32.
    if let Some(r) = load(&d, "pytorch-trace-a100-torchrec-step550-subset.json") {
        let p = r.unwrap();
        let k = p.kernels.iter().find(|k| k.name == "aten::addmm").unwrap();
        assert_eq!(k.flops, Some(2.0 * 4096.0 * 100.0 * 64.0));
        assert_eq!(
            k.bytes,
            Some(4.0 * (64.0 + 4096.0 * 100.0 + 100.0 * 64.0 + 4096.0 * 64.0))
        );
        assert_eq!(p.kernels.iter().map(|k| k.count).sum::<u64>(), 5);
    }
}
