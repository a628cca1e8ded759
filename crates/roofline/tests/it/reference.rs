//! Every worked number of the reference texts (`shared/reference/`), computed by hand here
//! and compared with the crate. Each case cites its file and passage.
//!
//! Where texts disagree, `shared/reference/README.md` decides: v5e HBM 8.2e11 (question 1
//! uses 8.1e11 → 486 and B > 243), H100 dense bf16 9.89e14 → ridge 295 (298 with 1e15).

use roofline::units::format_quantity;
use roofline::*;

/// `chip` with one numeric field changed (validated like the form).
fn with(chip: &Chip, field: ChipField, value: f64) -> Result<Chip, Error> {
    let mut c = chip.clone();
    c.set(field, value)?;
    Ok(c)
}

/// Critical (ridge) intensity against HBM: `peak(dtype) / hbm` FLOPs per byte.
fn ridge(chip: &Chip, t: DType) -> Result<f64, Error> {
    Ok(chip.peak(t)? / chip.hbm)
}

/// A LayerNorm-like elementwise op on `n` bf16 elements with intensity 5 (the notes' table:
/// "LayerNorm ~5"): 20 FLOPs per element, 1 input, 1 output, so intensity = 20 / ((1+1)·2) = 5.
fn layernorm(n: f64) -> Op {
    Op::labeled(
        "LayerNorm",
        OpKind::Elementwise(Elementwise {
            n,
            flops: 20.0,
            inputs: 1.0,
            t: DType::Bf16,
        }),
    )
}

const V5E_BF16: f64 = 1.97e14;
const V5E_INT8: f64 = 3.94e14;
const V5E_HBM: f64 = 8.2e11;

fn v5e() -> Chip {
    preset("tpu-v5e").unwrap()
}

fn rel(a: f64, b: f64) -> f64 {
    ((a - b) / b).abs()
}

fn assert_close(got: f64, want: f64, tol: f64, what: &str) {
    assert!(
        rel(got, want) <= tol,
        "{what}: got {got}, want {want} (rel err {})",
        rel(got, want)
    );
}

fn matmul(b: f64, d: f64, f: f64, x: DType, w: DType, out: DType) -> Op {
    Op::new(OpKind::Matmul(Matmul {
        b,
        d,
        f,
        x,
        w,
        out,
        ..Matmul::default()
    }))
}

fn run(op: &Op, chip: &Chip) -> Analysis {
    analyze(op, chip, &Options::default()).unwrap()
}

/// all-about-rooflines.md, "Where Does the Time Go?": "For the TPU v5e MXU, this is about 240
/// FLOPs/byte, since the TPU can perform `1.97e14` FLOPs/s and load `8.2e11` bytes/s from HBM."
/// three-bounds-interactive-notes.txt: "1.97e14 / 8.2e11 = 240 FLOPs/byte".
#[test]
fn v5e_critical_intensity_240() {
    let chip = v5e();
    assert_eq!(chip.bf16, Some(V5E_BF16));
    assert_eq!(chip.hbm, V5E_HBM);
    let ridge = ridge(&chip, DType::Bf16).unwrap();
    assert_close(ridge, 240.243_902_439, 1e-9, "v5e ridge");
    assert_eq!(ridge.floor(), 240.0);
    // An HBM-bound op reports the same ridge.
    let a = run(
        &matmul(1.0, 4096.0, 4096.0, DType::Bf16, DType::Bf16, DType::Bf16),
        &chip,
    );
    assert_close(a.ridge, 1.97e14 / 8.2e11, 1e-12, "analysis ridge");
}

/// all-about-rooflines.md, "Example (dot product)": `x • y: bf16[N], bf16[N] → bf16[1]`,
/// "Intensity(dot product) = (N + N - 1)/(2N + 2N + 2) = (2N - 1)/(4N + 2) → 1/2".
/// (scaling-with-the-roofline-model.md writes the numerator as 2n + 1, a typo: N multiplies
/// and N − 1 additions are 2N − 1; the chapter is followed.)
#[test]
fn dot_product_intensity() {
    let chip = v5e();
    for n in [1.0, 2.0, 10.0, 4096.0, 1e6, 1e12] {
        let op = Op::new(OpKind::Dot(Dot { n, t: DType::Bf16 }));
        let a = run(&op, &chip);
        let flops = n + n - 1.0;
        let bytes = 2.0 * n + 2.0 * n + 2.0;
        assert_eq!(a.flops, flops);
        assert_eq!(a.bytes, bytes);
        assert_eq!(a.bytes_read, 4.0 * n);
        assert_eq!(a.bytes_written, 2.0);
        assert_close(
            a.intensity,
            (2.0 * n - 1.0) / (4.0 * n + 2.0),
            1e-15,
            "dot intensity",
        );
        assert_eq!(a.bound, Bound::Memory);
        let (approx, formula) = a.approx_intensity.clone().unwrap();
        assert_eq!(approx, 0.5);
        assert_eq!(formula, "→ 1/2");
    }
    let a = run(
        &Op::new(OpKind::Dot(Dot {
            n: 1e12,
            t: DType::Bf16,
        })),
        &chip,
    );
    assert!((a.intensity - 0.5).abs() < 1e-9);
}

/// all-about-rooflines.md, footnote on the dot product: "The TPU v5p VPU can do roughly 7e12
/// FLOPs / second, so its critical intensity is around 3". The dot runs on the vector unit.
#[test]
fn dot_product_on_v5p_vpu() {
    let chip = preset("tpu-v5p").unwrap();
    let a = run(&Op::default_for("dot").unwrap(), &chip);
    assert_eq!(a.compute.unit, ExecUnit::Vector);
    assert_eq!(a.compute.peak, 7e12);
    // 7e12 / 2.8e12 = 2.5 ("around 3"), still comms-bound at intensity 1/2.
    assert_close(a.ridge, 7e12 / 2.8e12, 1e-12, "v5p vpu ridge");
    assert_eq!(a.bound, Bound::Memory);
    assert!(a.derivation().iter().any(|l| l.contains("vector unit")));
}

/// all-about-rooflines.md, "Matrix multiplication": "Intensity(matmul) = 2BDF / (2BD + 2DF +
/// 2BF) = BDF / (BD + DF + BF)" and "≈ BDF / DF = B".
#[test]
fn matmul_intensity_approx_b() {
    let chip = v5e();
    for (b, d, f) in [
        (1.0, 4096.0, 4096.0),
        (32.0, 8192.0, 8192.0),
        (256.0, 8192.0, 32768.0),
        (1024.0, 16384.0, 16384.0),
    ] {
        let a = run(
            &matmul(b, d, f, DType::Bf16, DType::Bf16, DType::Bf16),
            &chip,
        );
        assert_eq!(a.flops, 2.0 * b * d * f);
        assert_eq!(a.bytes, 2.0 * b * d + 2.0 * d * f + 2.0 * b * f);
        assert_close(
            a.intensity,
            b * d * f / (b * d + d * f + b * f),
            1e-14,
            "exact",
        );
        let (approx, formula) = a.approx_intensity.clone().unwrap();
        assert_eq!(approx, b);
        assert_eq!(formula, "≈ B");
        // B ≪ D, F: the exact intensity is within (B/D + B/F) of B, relatively.
        assert!(rel(a.intensity, b) <= b / d + b / f + 1e-12);
    }
}

/// three-bounds-interactive-notes.txt, table of typical intensities: "Matmul (B=32) ~32,
/// Matmul (B=256) ~256 (compute-bound on TPU v5e), Matmul (B=1024) ~1024", "LayerNorm ~5",
/// "Dot product ~0.5". (With D = F = 65536 ≫ B, the matmul is compute-bound from B = 256 on.)
#[test]
fn typical_intensities_table() {
    let chip = v5e();
    for (b, bound) in [
        (32.0, Bound::Memory),
        (256.0, Bound::Compute),
        (1024.0, Bound::Compute),
    ] {
        let a = run(
            &matmul(b, 65536.0, 65536.0, DType::Bf16, DType::Bf16, DType::Bf16),
            &chip,
        );
        assert!(rel(a.intensity, b) < 0.04, "B={b}: {}", a.intensity);
        assert_eq!(a.bound, bound, "B={b}");
    }
    let ln = run(&layernorm(1e6), &chip);
    assert_eq!(ln.intensity, 5.0);
    let dot = run(&Op::default_for("dot").unwrap(), &chip);
    assert!((dot.intensity - 0.5).abs() < 1e-3);
}

/// all-about-rooflines.md, question 1 [int8 matmul]: "Assume our HBM bandwidth is `8.1e11`
/// bytes/s and our int8 peak OPs/s is `3.94e14`" ... "this int8 intensity is `3.94e14 /
/// 8.1e11 = 486`, so the rule is B > 486 / 2 = 243". Bytes: "BD + DF bytes loaded from HBM
/// and BF written back"; "2BDF" OPs. With the app's 8.2e11 the same rule gives 480 and 240.
#[test]
fn int8_matmul_question_1() {
    let (b, d, f) = (64.0, 8192.0, 8192.0);
    let op = matmul(b, d, f, DType::Int8, DType::Int8, DType::Int8);
    if let OpKind::Matmul(m) = &op.kind {
        assert_eq!(m.compute_dtype(), DType::Int8);
    }
    // The problem's own figure: a v5e with 8.1e11 bytes/s.
    let chip81 = with(&v5e(), ChipField::Hbm, 8.1e11).unwrap();
    assert!(chip81.is_edited());
    let ridge81 = 3.94e14 / 8.1e11; // 486.4
    assert_eq!(ridge(&chip81, DType::Int8).unwrap().floor(), 486.0);
    let a = run(&op, &chip81);
    assert_eq!(a.bytes_read, b * d + d * f);
    assert_eq!(a.bytes_written, b * f);
    assert_eq!(a.flops, 2.0 * b * d * f);
    assert_eq!(a.compute.peak, V5E_INT8);
    assert_close(
        a.intensity,
        2.0 * b * d * f / (b * d + d * f + b * f),
        1e-14,
        "int8 AI",
    );
    assert_eq!(a.approx_intensity.as_ref().unwrap().0, 2.0 * b);
    assert_eq!(a.approx_intensity.as_ref().unwrap().1, "≈ 2B");
    // T_math = 2BDF / 3.94e14, T_comms = (BD + DF + BF) / 8.1e11.
    assert_close(a.t_math, 2.0 * b * d * f / 3.94e14, 1e-14, "T_math");
    assert_close(
        a.t_comms,
        (b * d + d * f + b * f) / 8.1e11,
        1e-14,
        "T_comms",
    );
    assert_close(a.t_lower, a.t_math.max(a.t_comms), 1e-15, "lower");
    assert_close(a.t_upper, a.t_math + a.t_comms, 1e-15, "upper");
    let c = a.critical.clone().unwrap();
    assert_eq!(c.dim, "b");
    let approx = c.approx.unwrap();
    assert_close(approx, ridge81 / 2.0, 1e-12, "B > 243");
    assert_eq!(approx.floor(), 243.0);
    // And with the app's 8.2e11: 480 and 240.
    let a = run(&op, &v5e());
    assert_eq!(ridge(&v5e(), DType::Int8).unwrap().floor(), 480.0);
    assert_eq!(a.critical.unwrap().approx.unwrap().floor(), 240.0);
}

/// all-about-rooflines.md, question 2 [int8 + bf16 matmul]: `bfloat16[B, D] * int8[D, F] ->
/// bfloat16[B, F]`: "we become compute-bound when 2B > 240 or B > 120".
/// roofline-problems-worked.txt, problem 2: "Threshold: B > 120".
#[test]
fn int8_weights_bf16_activations_question_2() {
    let op = matmul(
        64.0,
        16384.0,
        16384.0,
        DType::Bf16,
        DType::Int8,
        DType::Bf16,
    );
    let a = run(&op, &v5e());
    assert_eq!(a.compute.dtype, DType::Bf16);
    assert_eq!(a.compute.peak, V5E_BF16);
    assert_eq!(a.approx_intensity.as_ref().unwrap().1, "≈ 2B");
    let c = a.critical.unwrap();
    let approx = c.approx.unwrap();
    assert_close(approx, 1.97e14 / 8.2e11 / 2.0, 1e-12, "B > 120");
    assert_eq!(approx.floor(), 120.0);
    let text = run(&op, &v5e()).derivation().join("\n");
    assert!(
        text.contains("approximately B > 120 (from 2B > 240)"),
        "{text}"
    );
}

/// all-about-rooflines.md, question 3: "make a roofline plot of peak FLOPs/s vs. B for F = D =
/// 4096 and F = D = 1024. Use the exact number of bytes loaded": `flops_time = 2*B*D*F /
/// 1.97e14`, `comms_time = (2*B*D + D*F + 2*B*F) / 8.2e11`, `bs = np.arange(1, 512)`.
/// three-bounds-interactive-notes.txt: "For D=F=4096, we reach peak around B=160" (loose).
/// Exact crossovers: B = 136.1 (D=F=4096) and 226.3 (D=F=1024).
#[test]
fn question_3_exact_crossovers_and_achieved() {
    let sc = Scenario::default();
    let chip = &sc.chips[0];
    for (op, d, want) in [(&sc.ops[0], 4096.0, 136.1), (&sc.ops[1], 1024.0, 226.3)] {
        let f = d;
        // By hand: 2BDF/P = (2BD + DF + 2BF)/H  ⇔  B·(2DF/P − (2D + 2F)/H) = DF/H.
        let b_star = (d * f / V5E_HBM) / (2.0 * d * f / V5E_BF16 - (2.0 * d + 2.0 * f) / V5E_HBM);
        assert_eq!((b_star * 10.0).round() / 10.0, want);
        let a = run(op, chip);
        let c = a.critical.clone().unwrap();
        assert_eq!(c.dim, "b");
        assert_eq!(c.resource, Resource::Hbm);
        assert_close(c.value, b_star, 1e-12, "closed-form critical B");
        // The sweep b:1..511 finds the same crossover by bisection.
        let s = sweep(op, chip, &sc.options, &sc.sweep).unwrap();
        assert_eq!(s.points.len(), 511);
        assert_eq!(s.points[0].x, 1.0);
        assert_eq!(s.points[510].x, 511.0);
        assert_eq!(s.crossovers.len(), 1);
        let x = s.crossovers[0];
        assert_eq!(x.before, Bound::Memory);
        assert_eq!(x.after, Bound::Compute);
        assert_close(x.x, b_star, 1e-12, "bisection crossover");
        assert_close(x.achieved, V5E_BF16, 1e-12, "peak at the crossover");
        // Achieved FLOPs/s at a few B: total_flops / max(flops_time, comms_time).
        for b in [
            1.0, 16.0, 64.0, 128.0, 136.0, 137.0, 226.0, 227.0, 300.0, 511.0,
        ] {
            let flops = 2.0 * b * d * f;
            let flops_time = flops / 1.97e14;
            let comms_time = (2.0 * b * d + d * f + 2.0 * b * f) / 8.2e11;
            let want = flops / flops_time.max(comms_time);
            let p = s.points[b as usize - 1];
            assert_eq!(p.x, b);
            assert_close(p.achieved, want, 1e-12, "achieved");
            assert_close(p.t_lower, flops_time.max(comms_time), 1e-12, "t_lower");
            assert_close(p.t_upper, flops_time + comms_time, 1e-12, "t_upper");
        }
    }
    // "D=F=1024 almost doubles the critical batch size."
    let r = 226.3 / 136.1;
    assert!(r > 1.6 && r < 2.0);
}

/// The derivation reads like the chapter's answers, with the brief's example line.
#[test]
fn question_3_derivation_lines() {
    let sc = Scenario::default();
    let mut op = sc.ops[0].clone();
    op.set("b", "136").unwrap();
    let a = run(&op, &sc.chips[0]);
    let lines = a.derivation();
    let text = lines.join("\n");
    assert!(
        lines.contains(
            &"T_math = FLOPs / peak = 2·B·D·F / 1.97e14 = 2·136·4096·4096 / 1.97e14 = 2.32e-5 s (23.2 µs)"
                .to_string()
        ),
        "{text}"
    );
    assert!(
        text.contains("HBM bytes = 2·B·D + 1·D·F + 2·B·F = 2·136·4096 + 1·4096·4096 + 2·136·4096")
    );
    assert!(text.contains("Critical B = 136.1 (exact"), "{text}");
    assert!(text.contains("≈ 2B = 272"), "{text}");
    assert!(
        text.contains("Ridge = peak / HBM bandwidth = 1.97e14 / 8.2e11 = 240"),
        "{text}"
    );
    assert!(
        text.contains("Memory-bound on HBM: intensity 240.1 < ridge 240.2"),
        "{text}"
    );
}

/// all-about-rooflines.md, question 4: `int8[B, D] *_D int8[B, D, F] → int8[B, F]`: "Total
/// comms: BD + BDF + BF", "arithmetic intensity is now actually 2BDF / (BD + BDF + BF) ...
/// roughly 2". roofline-problems-worked.txt, problem 4: "AI: 2*DF / (D + DF + F) ≈ 2".
#[test]
fn per_example_weights_question_4() {
    let chip = v5e();
    for (b, d, f) in [
        (1.0, 4096.0, 4096.0),
        (64.0, 4096.0, 4096.0),
        (512.0, 8192.0, 1024.0),
    ] {
        let op = Op::new(OpKind::Bmm(Bmm {
            b,
            d,
            f,
            x: DType::Int8,
            w: DType::Int8,
            out: DType::Int8,
        }));
        let a = run(&op, &chip);
        assert_eq!(a.flops, 2.0 * b * d * f);
        assert_eq!(a.bytes, b * d + b * d * f + b * f);
        assert_close(a.intensity, 2.0 * d * f / (d + d * f + f), 1e-14, "bmm AI");
        assert!((a.intensity - 2.0).abs() < 3e-3);
        assert_eq!(
            a.approx_intensity.clone().unwrap(),
            (2.0, "≈ 2".to_string())
        );
        assert!(a.critical.is_none());
        assert_eq!(a.bound, Bound::Memory);
    }
}

/// all-about-rooflines.md, problem 5: "The true value is half this without sparsity, meaning
/// close to `1e15` FLOPs/s ... 3.35e12 bytes / second. Thus B_crit is `1e15 / 3.35e12 = 298`".
/// three-bounds-interactive-notes.txt: "On an H100, the critical intensity is 9.89e14 /
/// 3.35e12 ≈ 295". README: the app uses 9.89e14 (295); 298 comes from 1e15.
#[test]
fn h100_critical_295_and_298() {
    let h100 = preset("h100").unwrap();
    assert_eq!(h100.name, "H100 SXM");
    let r = ridge(&h100, DType::Bf16).unwrap();
    assert_close(r, 9.89e14 / 3.35e12, 1e-12, "H100 ridge");
    assert_eq!(r.floor(), 295.0);
    let with_1e15 = with(&h100, ChipField::Bf16, 1e15).unwrap();
    assert_eq!(ridge(&with_1e15, DType::Bf16).unwrap().floor(), 298.0);
    let op = matmul(
        64.0,
        32768.0,
        32768.0,
        DType::Bf16,
        DType::Bf16,
        DType::Bf16,
    );
    let c = run(&op, &h100).critical.unwrap();
    assert_eq!(c.approx.unwrap().floor(), 295.0);
    let c = run(&op, &with_1e15).critical.unwrap();
    assert_eq!(c.approx.unwrap().floor(), 298.0);
}

/// all-about-rooflines.md, "Network communication rooflines": X, Y split over 2 TPUs along
/// D; "T_math = 2BDF / (2 · Accelerator FLOPs/s) = BDF / 1.97e14", "T_comms = 2BF / Network
/// Bandwidth = 2BF / 4.5e10", compute-bound when "D/2 > 1.97e14 / 4.5e10 = 4377 or D > 8755".
#[test]
fn two_chip_sharded_matmul_d_8755() {
    let chip = v5e();
    assert_eq!(chip.peer_bandwidth(), Some(4.5e10));
    let (b, f) = (65536.0, 65536.0);
    for d in [4096.0, 8192.0, 16384.0] {
        let mut op = matmul(b, d, f, DType::Bf16, DType::Bf16, DType::Bf16);
        op.set("shards", "2").unwrap();
        op.set("split", "d").unwrap();
        op.set("link", "ici").unwrap();
        let a = run(&op, &chip);
        assert_close(a.t_math, b * d * f / 1.97e14, 1e-14, "T_math = BDF/1.97e14");
        let ici = a.term(Resource::Ici).unwrap();
        assert_eq!(ici.bytes, 2.0 * b * f);
        assert_close(
            ici.time,
            2.0 * b * f / 4.5e10,
            1e-14,
            "T_comms = 2BF/4.5e10",
        );
        assert_close(ici.intensity, d / 2.0, 1e-14, "BDF/2BF = D/2");
        assert_close(ici.ridge, 1.97e14 / 4.5e10, 1e-14, "4377");
        assert_eq!(ici.ridge.floor(), 4377.0);
        let c = a.critical.clone().unwrap();
        assert_eq!(c.dim, "d");
        assert_eq!(c.resource, Resource::Ici);
        assert_close(c.value, 2.0 * 1.97e14 / 4.5e10, 1e-12, "D > 8755");
        assert_eq!(c.value.floor(), 8755.0);
        assert_close(
            c.approx.unwrap(),
            c.value,
            1e-12,
            "approx = exact for the link",
        );
        let want = if d > 8755.6 {
            Bound::Compute
        } else {
            Bound::Network
        };
        assert_eq!(a.bound, want, "D={d}");
        assert_eq!(a.approx_intensity.clone().unwrap().1, "= D/2");
    }
}

/// all-about-rooflines.md: "doing 1e12 FLOPs on an H100 will take (roughly) `1e12 / 9.89e14 =
/// 1.01ms` and `1e12 / 9.1e14 = 1.1ms` on a TPU v6e". The chapter uses 9.1e14 there (the
/// catalog's v6e has the TPU chapter's 9.2e14), so a custom chip with bf16 = 9.1e14 is used.
#[test]
fn one_teraflop_times() {
    let op = Op::new(OpKind::Custom(Custom {
        flops: 1e12,
        bytes: 1.0,
        t: DType::Bf16,
        ..Custom::default()
    }));
    let h100 = run(&op, &preset("h100").unwrap());
    assert_close(h100.t_math, 1e12 / 9.89e14, 1e-15, "H100 time");
    assert_eq!(format_quantity(h100.t_math, Unit::Seconds), "1.01 ms");
    let mut v6e_91 = Chip::custom("TPU v6e (chapter figure)");
    v6e_91.set(ChipField::Bf16, 9.1e14).unwrap();
    v6e_91.set(ChipField::Hbm, 1.6e12).unwrap();
    let v6e = run(&op, &v6e_91);
    assert_close(v6e.t_math, 1e12 / 9.1e14, 1e-15, "v6e time");
    assert_eq!(format_quantity(v6e.t_math, Unit::Seconds), "1.1 ms");
    // Derated: the footnote's "80-85%" on GPUs.
    let opts = Options {
        derate: 0.8,
        ..Options::default()
    };
    let d = analyze(&op, &preset("h100").unwrap(), &opts).unwrap();
    assert_close(d.t_math, 1e12 / (0.8 * 9.89e14), 1e-15, "derated time");
}

/// all-about-rooflines.md: "the lower and upper bounds differ by at most a factor of 2 since
/// T_math + T_comms ≤ 2 * max(T_math, T_comms)"; three-bounds notes: "Tupper ≤ 2 × Tlower".
#[test]
fn upper_at_most_twice_lower() {
    let chip = v5e();
    let mut ops = vec![
        Op::default_for("dot").unwrap(),
        layernorm(1e6),
        Op::default_for("bmm").unwrap(),
        Op::default_for("custom").unwrap(),
    ];
    for b in [1.0, 100.0, 136.0, 240.0, 1000.0] {
        ops.push(matmul(
            b,
            4096.0,
            4096.0,
            DType::Bf16,
            DType::Int8,
            DType::Bf16,
        ));
    }
    for op in ops {
        let a = run(&op, &chip);
        assert_eq!(a.comms.len(), 1);
        assert!(
            a.t_lower <= a.t_upper && a.t_upper <= 2.0 * a.t_lower,
            "{}",
            op.title()
        );
    }
}

/// The scaling book's TPU chapter, PCIe example (quoted in the brief): weights over PCIe on
/// v6e, bf16: compute-bound iff B > 9.2e14·2 / (2·1.6e10) = 57,500.
#[test]
fn pcie_weights_v6e_57500() {
    let chip = preset("tpu-v6e").unwrap();
    assert_eq!(chip.pcie, Some(1.6e10));
    let mut op = matmul(
        1024.0,
        8192.0,
        32768.0,
        DType::Bf16,
        DType::Bf16,
        DType::Bf16,
    );
    op.set("from", "pcie").unwrap();
    let a = run(&op, &chip);
    let pcie = a.term(Resource::Pcie).unwrap();
    assert_eq!(pcie.bytes, 2.0 * 8192.0 * 32768.0);
    assert_eq!(
        a.term(Resource::Hbm).unwrap().bytes,
        2.0 * 1024.0 * 8192.0 + 2.0 * 1024.0 * 32768.0
    );
    assert_eq!(a.binding, Resource::Pcie);
    assert_eq!(a.bound, Bound::Network);
    let c = a.critical.unwrap();
    let want = 9.2e14 * 2.0 / (2.0 * 1.6e10);
    assert_eq!(want, 57500.0);
    assert_close(c.value, want, 1e-12, "B > 57,500");
    assert_close(c.approx.unwrap(), want, 1e-12, "approx");
    assert_eq!(c.resource, Resource::Pcie);
}

/// mlsysim-hello-roofline.txt, "Conventions": "We count one multiply-accumulate (MAC) as 1
/// FLOP ... This factor of 2 shifts the ridge point: the A100's ridge is ~156 FLOP/byte in our
/// convention but ~312 in the 2-FLOP convention." README: halves displayed FLOPs, intensities
/// and ridge points and changes no time.
#[test]
fn one_per_mac_halves_flops_not_times() {
    let a100 = preset("a100").unwrap();
    // 312 TFLOP/s / 2.0 TB/s (the tutorial's rounded bandwidth) ≈ 156 vs 312... with the
    // datasheet's 2.039e12: 153 / 306.
    let two = Options::default();
    let one = Options {
        convention: FlopConvention::OnePerMac,
        ..two
    };
    for op in [
        matmul(64.0, 4096.0, 4096.0, DType::Bf16, DType::Bf16, DType::Bf16),
        matmul(
            4096.0,
            4096.0,
            4096.0,
            DType::Bf16,
            DType::Bf16,
            DType::Bf16,
        ),
        Op::default_for("dot").unwrap(),
    ] {
        let a2 = analyze(&op, &a100, &two).unwrap();
        let a1 = analyze(&op, &a100, &one).unwrap();
        assert_eq!(a1.flops, a2.flops / 2.0);
        assert_eq!(a1.intensity, a2.intensity / 2.0);
        assert_eq!(a1.ridge, a2.ridge / 2.0);
        assert_eq!(a1.achieved, a2.achieved / 2.0);
        assert_eq!(a1.compute.peak, a2.compute.peak / 2.0);
        assert_eq!(a1.t_math, a2.t_math);
        assert_eq!(a1.t_comms, a2.t_comms);
        assert_eq!(a1.t_lower, a2.t_lower);
        assert_eq!(a1.t_upper, a2.t_upper);
        assert_eq!(a1.bound, a2.bound);
        assert_eq!(a1.fraction, a2.fraction);
        assert_eq!(a1.critical, a2.critical);
    }
    let tut = with(&a100, ChipField::Hbm, 2.0e12).unwrap();
    let r2 = analyze(&Op::default_for("matmul").unwrap(), &tut, &two)
        .unwrap()
        .ridge;
    let r1 = analyze(&Op::default_for("matmul").unwrap(), &tut, &one)
        .unwrap()
        .ridge;
    assert_eq!(r2, 3.12e14 / 2.0e12);
    assert_eq!(r1, r2 / 2.0);
}

/// mlsysim-hello-roofline.txt, "Sanity check" (1 FLOP per MAC, A100 at 156 TFLOP/s and
/// 2.0 TB/s): ResNet-50 at batch 1, "~4.1 GFLOP" over "~50 MB of weights": "T_memory = 50 MB
/// ÷ 2.0 TB/s = 0.025 ms", "T_compute = 4.1 GFLOP ÷ 156 TFLOP/s = 0.026 ms", "arithmetic
/// intensity of ~82 FLOP/byte". (The tutorial's "ridge ~156 in our convention but ~312 in the
/// 2-FLOP convention" is off by its own factor of 2: 312e12 / 2.0e12 = 156 is the 2-FLOP
/// ridge; the README's rule, halving, is what the app does: 78 with 1 FLOP per MAC.)
#[test]
fn mlsysim_resnet50_sanity_check() {
    let a100 = with(&preset("a100").unwrap(), ChipField::Hbm, 2.0e12).unwrap();
    // Custom ops take vendor (2 per MAC) FLOPs: 4.1e9 MACs-as-FLOPs = 8.2e9.
    let op = Op::new(OpKind::Custom(Custom {
        flops: 8.2e9,
        bytes: 50e6,
        t: DType::Fp16,
        ..Custom::default()
    }));
    let one = Options {
        convention: FlopConvention::OnePerMac,
        ..Options::default()
    };
    let a = analyze(&op, &a100, &one).unwrap();
    assert_eq!(a.flops, 4.1e9);
    assert_eq!(a.compute.peak, 1.56e14);
    assert_close(a.t_math, 4.1e9 / 156e12, 1e-12, "T_compute");
    assert_eq!(format!("{:.3}", a.t_math * 1e3), "0.026");
    assert_close(a.t_comms, 50e6 / 2.0e12, 1e-12, "T_memory");
    assert_eq!(format!("{:.3}", a.t_comms * 1e3), "0.025");
    assert_eq!(a.intensity, 82.0);
    assert_eq!(a.bound, Bound::Compute);
    assert_eq!(a.ridge, 78.0);
}

/// README: "A chip without a peak for a dtype says so; it never silently falls back to
/// another dtype's peak." Ampere has no fp8; TPU7x publishes no int8 figure.
#[test]
fn missing_peak_is_an_error() {
    let a100 = preset("a100").unwrap();
    let op = matmul(
        64.0,
        4096.0,
        4096.0,
        DType::Fp8E4m3,
        DType::Fp8E5m2,
        DType::Bf16,
    );
    let e = analyze(&op, &a100, &Options::default()).unwrap_err();
    assert!(matches!(e, Error::MissingPeak { .. }));
    assert!(e.to_string().starts_with("no fp8 peak on A100"), "{e}");
    let op = matmul(64.0, 4096.0, 4096.0, DType::Int8, DType::Int8, DType::Int8);
    let e = analyze(&op, &preset("tpu7x").unwrap(), &Options::default()).unwrap_err();
    assert!(e.to_string().starts_with("no int8 peak on TPU7x"), "{e}");
    // A sharded matmul over DCN on a chip with no DCN figure (the MI300X datasheet gives none).
    let mut op = Op::default_for("matmul").unwrap();
    op.set("shards", "4").unwrap();
    op.set("link", "dcn").unwrap();
    let e = analyze(&op, &preset("mi300x").unwrap(), &Options::default()).unwrap_err();
    assert!(
        e.to_string().starts_with("no DCN bandwidth on MI300X"),
        "{e}"
    );
    // TPU v5e has the book's figure (tpus.md: "v5e has 3.125e9 bytes/s" of DCN per TPU): the
    // default matmul's (B = 1, D = F = 4096) all-reduce of B·F = 4096 bf16 outputs over 4
    // chips on a unidirectional ring moves 2·(4−1)/4·2·4096 = 12,288 bytes per chip.
    let a = analyze(&op, &v5e(), &Options::default()).unwrap();
    let dcn = a.term(Resource::Dcn).unwrap();
    assert_eq!(dcn.bytes, 12_288.0);
    assert!((dcn.time - 12_288.0 / 3.125e9).abs() < 1e-18, "{dcn:?}");
}

/// The `attention` kind (issue 22): a fused FlashAttention-style kernel, checked against the
/// scaling book's own attention arithmetic and against hand counts.
mod attention {
    use roofline::*;

    fn op(q: &str) -> Op {
        let s = url::decode(&format!("?op=attention:{q}")).scenario;
        assert_eq!(s.ops.len(), 1, "{q}");
        s.ops[0].clone()
    }

    /// transformers.md, question 4: multi-head attention (G = 1) over Q of length T and K, V
    /// of length S performs 4·B·T·S·N·H FLOPs over 4·B·H·N·(T + S) bf16 bytes: intensity
    /// T·S/(T + S), "T/2" for prefill (T = S). Not causal, so every pair counts.
    #[test]
    fn intensity_is_the_books_st_over_s_plus_t() {
        let h100 = preset("h100").unwrap();
        for (t, s) in [(4096.0, 4096.0), (1.0, 8192.0), (512.0, 2048.0)] {
            let o = op(&format!(
                "b=2,heads=16,kv_heads=16,sq={t},skv={s},head_dim=128,causal=no"
            ));
            let a = analyze(&o, &h100, &Options::default()).unwrap();
            let book = t * s / (t + s);
            assert!(
                (a.intensity - book).abs() <= 1e-12 * book,
                "{t} {s}: {}",
                a.intensity
            );
        }
        let a = analyze(
            &op("b=1,heads=8,kv_heads=8,sq=8192,skv=8192,causal=no"),
            &h100,
            &Options::default(),
        )
        .unwrap();
        assert_eq!(a.intensity, 8192.0 / 2.0, "prefill: T/2");
    }

    /// Llama-3 8B-like prefill of one 4096-token sequence on an H100 (H = 32, H_kv = 8, d = 128,
    /// causal, bf16), by hand:
    /// pairs = 4096·4096 − 4096·4095/2 = 16,777,216 − 8,386,560 = 8,390,656 (= 4096·4097/2);
    /// FLOPs = 4·1·32·128·8,390,656 = 137,472,507,904;
    /// bytes = 2·1·128·(2·32·4096 + 2·8·4096) = 256·327,680 = 83,886,080;
    /// T_math = 137,472,507,904 / 9.89e14 = 139.0 µs > T_hbm = 83,886,080 / 3.35e12 = 25.0 µs:
    /// compute-bound.
    #[test]
    fn a_causal_prefill_by_hand() {
        let h100 = preset("h100").unwrap();
        let o = op("b=1,heads=32,kv_heads=8,sq=4096,skv=4096,head_dim=128,causal=yes,x=bf16");
        let a = analyze(&o, &h100, &Options::default()).unwrap();
        assert_eq!(a.flops, 137_472_507_904.0);
        assert_eq!(a.bytes, 83_886_080.0);
        assert_eq!(a.bound, Bound::Compute);
        assert!((a.t_lower - 137_472_507_904.0 / 9.89e14).abs() < 1e-15);
        // The derivation says how the FlashAttention papers count: S²/2 = 8,388,608 pairs, so
        // their TFLOPs/s is 8,388,608 / 8,390,656 = 0.999756 × this count's.
        let text = a.derivation().join("\n");
        assert!(text.contains("8390656 pairs"), "{text}");
        assert!(text.contains("0.999756"), "{text}");
        assert!(text.contains("inference.md"), "{text}");
    }

    /// A decode step's attention: one query over an 8,192-position cache for 8 sequences (H = 32,
    /// H_kv = 8, d = 128, bf16): FLOPs 4·8·32·128·8192 = 1,073,741,824; bytes
    /// 2·8·128·(2·32·1 + 2·8·8192) = 2048·131,136 = 268,566,528: intensity 4.0 FLOPs per byte,
    /// far below the H100's 295: memory-bound at 268,566,528 / 3.35e12 = 80.2 µs.
    #[test]
    fn a_decode_step_is_memory_bound() {
        let h100 = preset("h100").unwrap();
        let o = op("b=8,heads=32,kv_heads=8,sq=1,skv=8192,head_dim=128,causal=yes");
        let a = analyze(&o, &h100, &Options::default()).unwrap();
        assert_eq!(a.flops, 1_073_741_824.0);
        assert_eq!(a.bytes, 268_566_528.0);
        assert_eq!(a.bound, Bound::Memory);
        assert!((a.t_lower - 268_566_528.0 / 3.35e12).abs() < 1e-15);
    }

    /// The backward pass and forward + backward, by hand, on the FlashAttention-2 README's
    /// A100 shape (B = 1, H = 16, S = 16,384, d = 128, not causal, bf16):
    /// pairs = 16,384² = 268,435,456; the forward's FLOPs 4·16·128·pairs = 2,199,023,255,552;
    /// backward 10·16·128·pairs = 5,497,558,138,880 (2.5×); both 14·… = 7,696,581,394,432
    /// (3.5×, the papers' count). One Q-sized tensor is 2·16·16,384·128 = 67,108,864 B, and
    /// K-sized the same (H_kv = H): forward 2 + 2 of them = 268,435,456 B; backward reads Q,
    /// O, dO (Q-sized) and K, V, and writes dQ, dK, dV: 4 + 4 = 8 of them = 536,870,912 B; both
    /// 12 = 805,306,368 B. On the A100 (312 TFLOP/s, 2.039 TB/s) both are compute-bound:
    /// 7,696,581,394,432 / 3.12e14 = 24.67 ms.
    #[test]
    fn backward_and_forward_backward_by_hand() {
        let a100 = preset("a100").unwrap();
        let shape = "b=1,heads=16,kv_heads=16,sq=16384,skv=16384,head_dim=128,causal=no,x=bf16";
        let run = |pass: &str| {
            analyze(
                &op(&format!("{shape},pass={pass}")),
                &a100,
                &Options::default(),
            )
            .unwrap()
        };
        let (f, b, fb) = (run("fwd"), run("bwd"), run("fwdbwd"));
        assert_eq!(f.flops, 2_199_023_255_552.0);
        assert_eq!(b.flops, 5_497_558_138_880.0);
        assert_eq!(fb.flops, 7_696_581_394_432.0);
        assert_eq!(f.bytes, 268_435_456.0);
        assert_eq!(b.bytes, 536_870_912.0);
        assert_eq!(fb.bytes, 805_306_368.0);
        assert_eq!(fb.bound, Bound::Compute);
        assert!((fb.t_lower - 7_696_581_394_432.0 / a100.peak(DType::Bf16).unwrap()).abs() < 1e-15);
        assert!((fb.t_lower - 0.02467).abs() < 1e-5, "{}", fb.t_lower);
        // The link without `pass` is the forward kernel it always was.
        let plain = analyze(&op(shape), &a100, &Options::default()).unwrap();
        assert_eq!(plain.flops, f.flops);
        let text = fb.derivation().join("\n");
        assert!(text.contains("14·B·H·d·S_q·S_kv"), "{text}");
        assert!(text.contains("recomputed"), "{text}");
        assert!(url::decode(&format!("?op=attention:{shape},pass=sideways"))
            .notices
            .iter()
            .any(|n| n.contains("pass")));
    }

    /// Setups that cannot exist are refused with the field named: 7 query heads cannot share 8
    /// KV heads, and causal queries cannot outnumber the keys they follow.
    #[test]
    fn impossible_setups_name_their_field() {
        let h100 = preset("h100").unwrap();
        let e = analyze(&op("heads=7,kv_heads=8"), &h100, &Options::default()).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("kv_heads=8: must divide the 7 query heads"),
            "{e}"
        );
        let e = analyze(
            &op("sq=8192,skv=4096,causal=yes"),
            &h100,
            &Options::default(),
        )
        .unwrap_err();
        assert!(
            e.to_string()
                .starts_with("sq=8192: must be at most S_kv = 4096"),
            "{e}"
        );
        assert!(analyze(
            &op("sq=8192,skv=4096,causal=no"),
            &h100,
            &Options::default()
        )
        .is_ok());
    }
}
