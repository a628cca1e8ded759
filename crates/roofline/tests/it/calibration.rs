//! A calibration (`cal=<compute>:<memory>:<overhead>`) in the analysis: hand-computed
//! times, its composition with the derate, composites paying the overhead per part launch,
//! sweeps agreeing with analyses, and derivations showing the calibrated terms.

use roofline::url::decode;
use roofline::{analyze, preset, sweep, Calibration, Op, Options, SweepSpec};

fn h100_matmul() -> Op {
    // B = 512, D = F = 8192, bf16: FLOPs 2·512·8192² = 6.8719e10, HBM bytes
    // 2·(512·8192 + 8192² + 512·8192) = 150,994,944.
    decode("?chip=h100&op=matmul:b=512,d=8192,f=8192")
        .scenario
        .ops[0]
        .clone()
}

fn opts(derate: f64, cal: Calibration) -> Options {
    Options {
        derate,
        cal,
        ..Options::default()
    }
}

#[test]
fn hand_computed_times_and_derivation() {
    let chip = preset("h100").unwrap();
    let cal = Calibration::new(0.5, 0.25, 10e-6).unwrap();
    let a = analyze(&h100_matmul(), &chip, &opts(1.0, cal)).unwrap();
    // T_math = 6.8719476736e10 / (0.5 · 9.89e14), T_hbm = 150994944 / (0.25 · 3.35e12).
    let t_math = 6.8719476736e10 / (0.5 * 9.89e14);
    let t_hbm = 150994944.0 / (0.25 * 3.35e12);
    assert!((a.t_math - t_math).abs() < 1e-18);
    assert!((a.t_comms - t_hbm).abs() < 1e-18);
    assert!((a.t_lower - (t_hbm + 10e-6)).abs() < 1e-18);
    assert!((a.t_upper - (t_math + t_hbm + 10e-6)).abs() < 1e-18);
    assert_eq!(a.bound, roofline::Bound::Memory);
    assert_eq!(a.compute.cal, cal);
    let d = a.derivation().join("\n");
    assert!(d.contains("Calibrated (cal=0.5:0.25:1e-5)"), "{d}");
    assert!(d.contains("HBM bandwidth × m = 3.35e12 × 0.25"), "{d}");
    assert!(d.contains("T_lower = max(T_math, T_comms) + o"), "{d}");
    assert!(d.contains("T_upper = T_math + T_hbm + o"), "{d}");
    // Uncalibrated, no line speaks of a calibration.
    let plain = analyze(&h100_matmul(), &chip, &Options::default()).unwrap();
    assert!(!plain.derivation().join("\n").contains("Calibrated"));
    assert!(!plain.derivation().join("\n").contains("+ o"));
}

/// `derate = d` alone and `cal = d:1:0` at derate 1 are the same model, bit for bit, for
/// single operations, composites and sweeps; and derate and `c` multiply.
#[test]
fn compute_efficiency_generalises_the_derate() {
    for chip in ["h100", "tpu-v5e", "a100"] {
        let chip = preset(chip).unwrap();
        for op in [
            h100_matmul(),
            Op::default_for("llm").unwrap(),
            Op::default_for("dot").unwrap(),
        ] {
            for d in [0.8, 0.37] {
                let a = analyze(&op, &chip, &opts(d, Calibration::NONE)).unwrap();
                let b =
                    analyze(&op, &chip, &opts(1.0, Calibration::from_derate(d).unwrap())).unwrap();
                assert_eq!(a.t_lower, b.t_lower);
                assert_eq!(a.t_upper, b.t_upper);
                assert_eq!(a.achieved, b.achieved);
                assert_eq!(a.critical, b.critical);
                assert_eq!(a.ridge, b.ridge);
                assert_eq!(a.compute.effective_peak, b.compute.effective_peak);
                // 0.5 × 0.8 = 0.4 of peak.
                let c = analyze(
                    &op,
                    &chip,
                    &opts(0.8, Calibration::new(0.5, 1.0, 0.0).unwrap()),
                )
                .unwrap();
                let e = analyze(&op, &chip, &opts(0.8 * 0.5, Calibration::NONE)).unwrap();
                assert!((c.t_math - e.t_math).abs() <= 1e-12 * e.t_math);
            }
        }
    }
}

/// The overhead is paid once per kernel launch: once for a single operation, `repeat`
/// times per part of a composite; it moves neither the bound nor the critical batch.
#[test]
fn overhead_per_launch() {
    let chip = preset("h100").unwrap();
    let o = 7e-6;
    let cal = Calibration::new(1.0, 1.0, o).unwrap();
    let op = h100_matmul();
    let (p, c) = (
        analyze(&op, &chip, &Options::default()).unwrap(),
        analyze(&op, &chip, &opts(1.0, cal)).unwrap(),
    );
    assert_eq!(c.t_lower, p.t_lower + o);
    assert_eq!(c.t_upper, p.t_upper + o);
    assert_eq!((c.bound, &c.critical), (p.bound, &p.critical));
    let llm = Op::default_for("llm").unwrap();
    let (p, c) = (
        analyze(&llm, &chip, &Options::default()).unwrap(),
        analyze(&llm, &chip, &opts(1.0, cal)).unwrap(),
    );
    let launches: f64 = p.report.parts.iter().map(|x| x.repeat).sum();
    assert!(launches > 1.0);
    assert!((c.t_lower - (p.t_lower + o * launches)).abs() < 1e-12 * c.t_lower);
    assert_eq!(c.critical, p.critical);
}

/// Memory efficiency `m` scales the HBM time by 1/m; sweeps agree with analyses.
#[test]
fn memory_efficiency_and_sweeps() {
    let chip = preset("h100").unwrap();
    let op = decode("?chip=h100&op=matmul:b=64,d=8192,f=8192")
        .scenario
        .ops[0]
        .clone();
    let p = analyze(&op, &chip, &Options::default()).unwrap();
    let cal = Calibration::new(0.9, 0.5, 3e-6).unwrap();
    let c = analyze(&op, &chip, &opts(1.0, cal)).unwrap();
    let hbm = |a: &roofline::Analysis| a.term(roofline::Resource::Hbm).unwrap().time;
    assert!((hbm(&c) - 2.0 * hbm(&p)).abs() < 1e-15 * hbm(&c));
    let spec = SweepSpec {
        field: "b".into(),
        from: 1.0,
        to: 64.0,
        points: 64,
        log: false,
    };
    let curve = sweep(&op, &chip, &opts(1.0, cal), &spec).unwrap();
    let last = curve.points.last().unwrap();
    assert_eq!(last.x, 64.0);
    assert!((last.t_lower - c.t_lower).abs() <= 1e-12 * c.t_lower);
    assert!((last.t_upper - c.t_upper).abs() <= 1e-12 * c.t_upper);
}
