//! The public API: units, dtypes, the chip catalog, generic op fields, sweeps, scenario.

use roofline::units::{format_bytes_binary, format_sig, parse_quantity_unit};
use roofline::*;

/// `chip` with one numeric field changed (validated like the form).
fn with(chip: &Chip, field: ChipField, value: f64) -> Result<Chip, Error> {
    let mut c = chip.clone();
    c.set(field, value)?;
    Ok(c)
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

#[test]
fn si_formatting_and_parsing() {
    // Issue 3: "`1.97e14 FLOPs/s` → `197 TFLOP/s`, `8.2e11 B/s` → `820 GB/s`".
    assert_eq!(format_quantity(1.97e14, Unit::FlopRate), "197 TFLOP/s");
    assert_eq!(format_quantity(8.2e11, Unit::ByteRate), "820 GB/s");
    assert_eq!(format_quantity(16e9, Unit::Bytes), "16 GB");
    assert_eq!(format_bytes_binary(16.0 * (1u64 << 30) as f64), "16 GiB");
    // "parsing that accepts `4096`, `1.97e14`, `197T`, `820G`, `16GiB`, `16GB`, `4k`".
    for (text, want) in [
        ("4096", 4096.0),
        ("1.97e14", 1.97e14),
        ("197T", 1.97e14),
        ("820G", 8.2e11),
        ("16GiB", 17_179_869_184.0),
        ("16GB", 16e9),
        ("4k", 4000.0),
        ("  197 TFLOP/s ", 1.97e14),
        ("820 GB/s", 8.2e11),
        ("2B", 2.0),
    ] {
        assert_eq!(parse_quantity(text).unwrap(), want, "{text}");
    }
    assert_eq!(
        parse_quantity_unit("820 GB/s").unwrap().1,
        Some(Unit::ByteRate)
    );
    for x in [
        1.97e14,
        4096.0,
        8.2e11,
        0.5,
        1.0 / 3.0,
        136.085_701_179_200_75,
        5e-324,
    ] {
        assert_eq!(parse_quantity(&format_exact(x)).unwrap(), x);
    }
    assert_eq!(format_exact(1.97e14), "1.97e14");
    assert_eq!(format_exact(4096.0), "4096");
    assert_eq!(format_sig(136.0857, 4), "136.1");
}

#[test]
fn dtypes() {
    let ids: Vec<&str> = DType::ALL.iter().map(|d| d.as_str()).collect();
    assert_eq!(
        ids,
        ["fp32", "tf32", "bf16", "fp16", "fp8", "fp8e5m2", "int8", "int4", "fp4"]
    );
    let sizes: Vec<f64> = DType::ALL.iter().map(|d| d.bytes()).collect();
    assert_eq!(sizes, [4.0, 4.0, 2.0, 2.0, 1.0, 1.0, 1.0, 0.5, 0.5]);
    assert_eq!("fp8e4m3".parse::<DType>().unwrap(), DType::Fp8E4m3);
    assert_eq!(DType::Fp8E5m2.peak_key(), PeakKey::Fp8);
    assert_eq!(DType::Fp8E4m3.peak_key(), PeakKey::Fp8);
    assert_eq!(DType::Tf32.peak_key(), PeakKey::Tf32);
    assert_eq!(PeakKey::ALL.len(), 8);
    assert_eq!(serde_json::to_string(&DType::Fp8E4m3).unwrap(), "\"fp8\"");
}

#[test]
fn chip_catalog() {
    let ids = preset_ids();
    assert_eq!(
        ids,
        [
            "tpu-v4p",
            "tpu-v5e",
            "tpu-v5p",
            "tpu-v6e",
            "tpu7x",
            "a100",
            "h100",
            "h200",
            "b200",
            "mi300x",
            "l4",
            "h800",
            "h20",
            "b300",
            "mi325x",
            "mi355x",
            "trn2",
            "trn3",
            "gaudi3",
            "rtx-5090",
            "rtx-pro-6000",
            "gb200",
            "gb300"
        ]
    );
    for chip in presets() {
        assert_eq!(preset(chip.preset_id.as_deref().unwrap()).unwrap(), chip);
        assert!(!chip.is_edited());
        chip.check().unwrap();
        for f in ChipField::ALL {
            let src = chip.source(f);
            assert!(src.len() > 10, "{} {f}: {src}", chip.name);
            assert_eq!(f.as_str().parse::<ChipField>().unwrap(), f);
        }
        assert!(chip.bf16.is_some(), "{}", chip.name);
    }
    let names: Vec<String> = presets().into_iter().map(|c| c.name).collect();
    assert!(names.contains(&"TPU v5e".to_string()) && names.contains(&"H100 SXM".to_string()));
    let v5e = preset("tpu-v5e").unwrap();
    assert_eq!(v5e.hbm_cap, 16.0 * 1024.0 * 1024.0 * 1024.0); // the book's "16GiB"
    assert_eq!(v5e.links, Some(4.0));
    assert_eq!(v5e.peer_bandwidth(), Some(4.5e10));
    let h100 = preset("h100").unwrap();
    assert_eq!(h100.interconnect, Interconnect::Switch);
    assert_eq!(h100.peer_bandwidth(), Some(4.5e11));
    assert!(h100.source(ChipField::Fp8).contains("3,958"));
    let b200 = preset("b200").unwrap();
    assert_eq!(
        (b200.bf16, b200.hbm, b200.hbm_cap),
        (Some(2.25e15), 8e12, 192e9)
    );
    let a100 = preset("a100").unwrap();
    assert_eq!((a100.bf16, a100.hbm), (Some(3.12e14), 2.039e12));
    assert_eq!(
        preset("tpu-v4p").unwrap().int8,
        preset("tpu-v4p").unwrap().bf16
    );
    assert_eq!(preset("tpu-v5p").unwrap().vpu, Some(7e12));
    assert_eq!(preset("tpu7x").unwrap().bf16, Some(2.3e15));
    assert_eq!(preset("h200").unwrap().hbm_cap, 141e9);
    assert!(preset("tpu-v9").is_none());
    let ids: Vec<&str> = ChipField::ALL.iter().map(|f| f.as_str()).collect();
    assert_eq!(
        ids,
        [
            "name",
            "fp32",
            "tf32",
            "bf16",
            "fp16",
            "fp8",
            "int8",
            "int4",
            "fp4",
            "vpu",
            "hbm",
            "hbm_cap",
            "onchip",
            "onchip_cap",
            "pcie",
            "c2c",
            "ici",
            "links",
            "dcn",
            "torus",
            "wrap",
            "node",
            "leaf",
            "hop_lat",
            "net_lat",
            "price",
            "power"
        ]
    );
}

#[test]
fn chip_editing() {
    let v5e = preset("tpu-v5e").unwrap();
    for bad in [0.0, -1.0, f64::NAN, f64::INFINITY, 1e31] {
        let e = with(&v5e, ChipField::Hbm, bad).unwrap_err();
        assert!(e.to_string().starts_with("hbm="), "{e}");
    }
    assert!(with(&v5e, ChipField::Links, 2.5).is_err());
    assert!(with(&v5e, ChipField::Links, 0.0).is_err());
    assert!(v5e.without(ChipField::Hbm).is_err());
    let mut c = with(&v5e, ChipField::Hbm, 8.1e11).unwrap();
    assert!(c.is_edited());
    assert_eq!(
        c.source(ChipField::Hbm),
        "edited by the user: differs from the preset's value"
    );
    assert_eq!(c.source(ChipField::Bf16), v5e.source(ChipField::Bf16));
    c.reset();
    assert_eq!(c, v5e);
    let mut c = v5e.clone();
    c.set_str(ChipField::Hbm, "820 GB/s").unwrap();
    assert!(!c.is_edited());
    c.set_str(ChipField::OnchipCap, "128MiB").unwrap();
    assert_eq!(c.onchip_cap, Some(134_217_728.0));
    assert!(c.set_str(ChipField::Hbm, "197 TFLOP/s").is_err());
    assert!(c.set_str(ChipField::Hbm, "").is_err());
    // A field cleared to be retyped keeps its value: empty text is an error, not a removal.
    let before = c.clone();
    let e = c.set_str(ChipField::Ici, " ").unwrap_err();
    assert_eq!(
        e.to_string(),
        "ici=: empty; type a number, or none to remove it"
    );
    let e = c.set_str(ChipField::Hbm, "").unwrap_err();
    assert_eq!(e.to_string(), "hbm=: empty; type a number");
    assert_eq!(c, before);
    // In a link an empty value still removes an optional field, as it always did.
    let d = url::decode("?chip=tpu-v5e:ici=,pcie=");
    assert!(d.notices.is_empty(), "{:?}", d.notices);
    assert_eq!(
        (d.scenario.chips[0].ici, d.scenario.chips[0].pcie),
        (None, None)
    );
    assert_eq!(
        url::encode(&d.scenario),
        url::encode(&url::decode("?chip=tpu-v5e:ici=none,pcie=none").scenario)
    );
    let d = url::decode("?chip=tpu-v5e:hbm=");
    assert_eq!(d.scenario.chips[0].hbm, 8.2e11);
    assert!(d.notices[0].contains("required"), "{:?}", d.notices);
    c.set_str(ChipField::Ici, "-").unwrap();
    assert_eq!(c.ici, None);
    c.set_str(ChipField::Ici, "none").unwrap();
    assert_eq!(c.ici, None);
    assert!(c.is_edited());
    c.set_str(ChipField::Name, "My v5e").unwrap();
    assert_eq!(c.get_str(ChipField::Name).unwrap(), "My v5e");
    assert_eq!(c.get_str(ChipField::Hbm).unwrap(), "8.2e11");
    let custom = Chip::custom("Lab chip");
    assert_eq!(custom.preset_id, None);
    assert!(!custom.is_edited());
    assert!(custom.source(ChipField::Hbm).contains("placeholder"));
    assert_eq!(custom.source(ChipField::Int8), "custom chip: not set");
    let json = serde_json::to_string(&c).unwrap();
    assert_eq!(serde_json::from_str::<Chip>(&json).unwrap(), c);
}

#[test]
fn op_fields_and_defaults() {
    let keys = |id: &str| -> Vec<&str> {
        Op::default_for(id)
            .unwrap()
            .fields()
            .iter()
            .map(|f| f.key)
            .collect()
    };
    assert_eq!(keys("dot"), ["n", "t"]);
    assert_eq!(keys("elementwise"), ["n", "flops", "inputs", "t"]);
    assert_eq!(
        keys("matmul"),
        [
            "b", "d", "f", "x", "w", "out", "compute", "shards", "split", "link", "topology",
            "from", "bm", "bk", "bn"
        ]
    );
    assert_eq!(keys("bmm"), ["b", "d", "f", "x", "w", "out"]);
    assert_eq!(
        keys("collective"),
        ["kind", "bytes", "n", "topology", "axes", "levels", "sharp"]
    );
    assert_eq!(keys("custom"), ["flops", "bytes", "t", "net", "link"]);
    assert!(matches!(
        Op::default_for("conv"),
        Err(Error::UnknownKind { .. })
    ));
    for id in OpKind::IDS {
        let op = Op::default_for(id).unwrap();
        assert_eq!(op.kind_id(), id);
        op.validate().unwrap();
        for spec in op.fields() {
            // Defaults are what `get` returns on the default op; set(get) is the identity.
            let v = op.get(spec.key).unwrap();
            assert_eq!(v, spec.default, "{id}.{}", spec.key);
            let mut o2 = op.clone();
            o2.set(spec.key, &v).unwrap();
            assert_eq!(o2, op);
            assert!(!spec.help.is_empty());
        }
        assert!(op.get("nope").is_none());
        let mut o = op.clone();
        assert!(matches!(
            o.set("nope", "1"),
            Err(Error::UnknownField { .. })
        ));
    }
    let mm = Op::default_for("matmul").unwrap();
    assert_eq!(mm.get("d").unwrap(), "4096");
    assert_eq!(mm.get("compute").unwrap(), "auto");
    assert_eq!(mm.get("split").unwrap(), "d");
    assert_eq!(mm.get("bm").unwrap(), "off");
    assert_eq!(Op::default_for("dot").unwrap().get("n").unwrap(), "4096");
}

#[test]
fn op_set_validation() {
    let mut op = Op::default_for("matmul").unwrap();
    let e = op.set("d", "-5").unwrap_err();
    assert!(
        e.to_string().starts_with("d=-5: must be a positive size"),
        "{e}"
    );
    for bad in ["0", "NaN", "inf", "1e16", "2.5", "", "x", "1e400"] {
        assert!(op.set("b", bad).is_err(), "{bad}");
    }
    assert!(op.set("shards", "0").is_err());
    assert!(op.set("x", "fp9").is_err());
    assert!(op
        .set("split", "q")
        .unwrap_err()
        .to_string()
        .contains("d, b, f"));
    op.set("b", "4k").unwrap();
    assert_eq!(op.get_num("b"), Some(4000.0));
    op.set("d", "16384").unwrap();
    op.set("compute", "int8").unwrap();
    assert_eq!(op.get("compute").unwrap(), "int8");
    op.set("compute", "auto").unwrap();
    assert_eq!(op.get("compute").unwrap(), "auto");
    op.set("bm", "256").unwrap();
    assert_eq!(op.get("bm").unwrap(), "256");
    assert_eq!(op.get("bn").unwrap(), "512");
    op.set("bn", "off").unwrap();
    assert_eq!(op.get("bm").unwrap(), "off");
    assert!(op.set_num("b", 1.5).is_err());
    op.set_num("b", 2.0).unwrap();
    // A real field from 0 takes 0 or from 1 up: 1e-306 activation bytes would make
    // flops/act infinite in the derivation.
    let mut m = Op::default_for("model").unwrap();
    let e = m.set("act", "1e-306").unwrap_err();
    assert!(
        e.to_string()
            .ends_with("must be a number of bytes (0, or a number from 1 to 1e18)"),
        "{e}"
    );
    m.set("act", "0").unwrap();
    m.set("act", "1").unwrap();
    let mut c = Op::default_for("custom").unwrap();
    assert!(c.set("flops", "0.5").is_err());
    // -0 is stored as 0 (it would show as -0).
    c.set("flops", "-0").unwrap();
    assert!(c.get_num("flops").unwrap().is_sign_positive());
    assert_eq!(c.get("flops").unwrap(), "0");
    // A number too small for an f64 is refused, not read as 0.
    let e = c.set("flops", "1e-400").unwrap_err();
    assert!(e.to_string().contains("too small"), "{e}");
    // Hand-built invalid ops are rejected by analyze.
    let bad = Op::new(OpKind::Matmul(Matmul {
        b: -1.0,
        ..Matmul::default()
    }));
    let chip = preset("tpu-v5e").unwrap();
    assert!(analyze(&bad, &chip, &Options::default()).is_err());
    let bad_chip = Chip {
        hbm: 0.0,
        ..chip.clone()
    };
    assert!(analyze(
        &Op::default_for("dot").unwrap(),
        &bad_chip,
        &Options::default()
    )
    .is_err());
    let bad_opts = Options {
        derate: 0.0,
        ..Options::default()
    };
    assert!(analyze(&Op::default_for("dot").unwrap(), &chip, &bad_opts).is_err());
}

#[test]
fn layernorm_and_elementwise() {
    let chip = preset("tpu-v5e").unwrap();
    let a = analyze(&layernorm(4096.0), &chip, &Options::default()).unwrap();
    assert_eq!(a.intensity, 5.0);
    assert_eq!(a.flops, 20.0 * 4096.0);
    assert_eq!(a.bytes, 2.0 * 2.0 * 4096.0);
    // On a chip with a vector unit the op runs there.
    let v5p = preset("tpu-v5p").unwrap();
    let a = analyze(&layernorm(4096.0), &v5p, &Options::default()).unwrap();
    assert_eq!(a.compute.unit, ExecUnit::Vector);
}

#[test]
fn tiles_footnote() {
    // all-about-rooflines.md footnote: "Ignoring the last term, we have an intensity of
    // bm·bn/(bm + bn)"; total bytes 2·tm·tn·(tk·(bm·bk + bk·bn) + 2·bm·bn) in bf16.
    let chip = preset("tpu-v5e").unwrap();
    let mut op = Op::default_for("matmul").unwrap();
    for (k, v) in [
        ("b", "1024"),
        ("d", "2048"),
        ("f", "4096"),
        ("bm", "256"),
        ("bk", "512"),
        ("bn", "1024"),
    ] {
        op.set(k, v).unwrap();
    }
    let t = analyze(&op, &chip, &Options::default())
        .unwrap()
        .tiled
        .unwrap();
    let (m, k, n, bm, bk, bn) = (1024.0, 2048.0, 4096.0, 256.0, 512.0, 1024.0);
    let (tm, tk, tn) = (m / bm, k / bk, n / bn);
    assert_eq!(t.flops, 2.0 * tm * tn * tk * bm * bk * bn);
    assert_eq!(
        t.bytes,
        2.0 * tm * tn * (tk * (bm * bk + bk * bn) + 2.0 * bm * bn)
    );
    assert_eq!(t.approx_intensity, bm * bn / (bm + bn));
    assert!(t.intensity < t.approx_intensity);
}

#[test]
fn sweeps() {
    let chip = preset("tpu-v5e").unwrap();
    let op = Op::default_for("matmul").unwrap();
    let opts = Options::default();
    let spec = |field: &str, from: f64, to: f64, points: usize, log: bool| SweepSpec {
        field: field.into(),
        from,
        to,
        points,
        log,
    };
    let s = sweep(&op, &chip, &opts, &spec("b", 1.0, 4096.0, 1024, false)).unwrap();
    assert_eq!(s.points.len(), 1024);
    assert!(s.points.iter().all(|p| p.x.fract() == 0.0));
    assert_eq!(s.crossovers.len(), 1);
    let crit = analyze(&op, &chip, &opts).unwrap().critical.unwrap().value;
    assert!(((s.crossovers[0].x - crit) / crit).abs() < 1e-12);
    let s = sweep(&op, &chip, &opts, &spec("b", 1.0, 1e6, 64, true)).unwrap();
    assert!(s.points.len() <= 64 && s.points.len() > 40);
    assert!(s.points.windows(2).all(|w| w[0].x < w[1].x));
    let s = sweep(&op, &chip, &opts, &spec("b", 511.0, 1.0, 600, false)).unwrap();
    assert_eq!(s.points.len(), 511);
    assert_eq!(s.points[0].x, 511.0);
    assert_eq!(
        (s.crossovers[0].before, s.crossovers[0].after),
        (Bound::Compute, Bound::Memory)
    );
    for bad in [
        spec("x", 1.0, 2.0, 10, false),
        spec("zz", 1.0, 2.0, 10, false),
        spec("b", 0.0, 2.0, 10, false),
        spec("b", 1.0, 2.0, 1, false),
        spec("b", 1.0, 2.0, 10_000_000, false),
        spec("b", 1.0, f64::NAN, 10, false),
    ] {
        assert!(sweep(&op, &chip, &opts, &bad).is_err(), "{bad:?}");
    }
    // A dot product over N never crosses over.
    let s = sweep(
        &Op::default_for("dot").unwrap(),
        &chip,
        &opts,
        &spec("n", 1.0, 1e9, 100, true),
    )
    .unwrap();
    assert!(s.crossovers.is_empty());
}

#[test]
fn scenario_default_and_serde() {
    let sc = Scenario::default();
    assert_eq!(sc.chips.len(), 1);
    assert_eq!(sc.chips[0].preset_id.as_deref(), Some("tpu-v5e"));
    assert_eq!(sc.ops.len(), 2);
    // Unlabelled, so that the spelled-out first-load URL decodes to exactly this.
    assert_eq!(sc.ops[0].label, None);
    assert_eq!(sc.ops[1].label, None);
    for (op, d) in sc.ops.iter().zip(["4096", "1024"]) {
        assert_eq!(op.get("x").unwrap(), "bf16");
        assert_eq!(op.get("w").unwrap(), "int8");
        assert_eq!(op.get("out").unwrap(), "bf16");
        assert_eq!(op.get("d").unwrap(), d);
        assert_eq!(op.get("f").unwrap(), d);
        let a = analyze(op, &sc.chips[0], &sc.options).unwrap();
        assert_eq!(a.compute.dtype, DType::Bf16);
    }
    assert_eq!(sc.sweep.field, "b");
    assert_eq!(
        (sc.sweep.from, sc.sweep.to, sc.sweep.log),
        (1.0, 511.0, false)
    );
    assert_eq!(sc.plot, PlotKind::Sweep);
    assert_eq!(sc.options, Options::default());
    assert!(!sc.embed && sc.theme.is_none());
    let json = serde_json::to_string(&sc).unwrap();
    assert_eq!(serde_json::from_str::<Scenario>(&json).unwrap(), sc);
    assert_eq!(serde_json::from_str::<Scenario>("{}").unwrap(), sc);
    assert!(sc.sweeps().iter().all(|s| s.is_ok()));
    assert_eq!(sc.sweeps().len(), 2);
    // Analyses serialise too.
    let a = analyze(&sc.ops[0], &sc.chips[0], &sc.options).unwrap();
    let back: Analysis = serde_json::from_str(&serde_json::to_string(&a).unwrap()).unwrap();
    // (serde_json without its float_roundtrip feature may change the last bit of a float.)
    assert_eq!(
        (back.bound, back.critical.map(|c| c.dim)),
        (a.bound, Some("b".to_string()))
    );
    assert!(((back.t_math - a.t_math) / a.t_math).abs() < 1e-15);
}

#[test]
fn derivation_numbers_match_fields() {
    let opts = Options::default();
    for id in ["tpu-v5e", "h100", "mi300x", "l4"] {
        let chip = preset(id).unwrap();
        for kind in OpKind::IDS {
            let op = Op::default_for(kind).unwrap();
            let a = match analyze(&op, &chip, &opts) {
                Ok(a) => a,
                // The L4 has no scale-up link for a collective to run over.
                Err(e) if id == "l4" && kind == "collective" => {
                    assert_eq!(
                        e.to_string(),
                        "no ICI/NVLink bandwidth on L4 (set the chip's `ici` field)"
                    );
                    continue;
                }
                // Nor for a training mesh's collectives.
                Err(e) if id == "l4" && kind == "train" => {
                    assert!(e.to_string().starts_with("dp=32: "), "{e}");
                    continue;
                }
                Err(e) => panic!("{id}/{kind}: {e}"),
            };
            let text = a.derivation().join("\n");
            for v in [a.t_math, a.t_lower, a.t_upper, a.intensity, a.ridge] {
                let s = if v.fract() == 0.0 && v < 1e6 {
                    format_exact(v)
                } else {
                    format_sig(v, 3)
                };
                assert!(text.contains(&s), "{id}/{kind}: {s} missing in\n{text}");
            }
        }
    }
}

/// Every preset figure has evidence: a tier and its source note; an edited or removed value
/// has none (its source note says so instead), and the serde form of a chip holds no tier.
#[test]
fn chip_evidence_tiers() {
    use roofline::{Evidence, Tier};
    for chip in presets() {
        for f in ChipField::ALL {
            match (chip.get(f), chip.evidence(f)) {
                (Some(_), Some(e)) => {
                    assert_eq!(e.source, chip.source(f), "{} {f}", chip.name);
                    assert!(!e.tier.label().is_empty());
                }
                (None, None) => {}
                (v, e) => panic!("{} {f}: value {v:?} but evidence {e:?}", chip.name),
            }
        }
    }
    let h100 = preset("h100").unwrap();
    // "scaling book, All About Rooflines: an NVIDIA H100 can perform about 9.89e14 ..."
    assert_eq!(
        h100.evidence(ChipField::Bf16).unwrap().tier,
        Tier::ReferenceText
    );
    assert_eq!(
        h100.evidence(ChipField::Fp8).unwrap().tier,
        Tier::VendorDatasheet
    );
    assert_eq!(
        h100.evidence(ChipField::HopLat).unwrap().tier,
        Tier::ThirdParty
    );
    assert_eq!(h100.evidence(ChipField::Name), None);
    let mut edited = h100.clone();
    edited.set(ChipField::Bf16, 1e15).unwrap();
    assert_eq!(edited.evidence(ChipField::Bf16), None);
    assert!(edited
        .source(ChipField::Bf16)
        .starts_with("edited by the user"));
    let removed = h100.without(ChipField::Fp8).unwrap();
    assert_eq!(removed.evidence(ChipField::Fp8), None);
    assert_eq!(Chip::custom("x").evidence(ChipField::Bf16), None);
    // The book's two figures for the v5e's HBM bandwidth: 8.2e11 (used) and 8.1e11.
    let v5e = preset("tpu-v5e").unwrap();
    let Evidence { tier, range, .. } = v5e.evidence(ChipField::Hbm).unwrap();
    assert_eq!(tier, Tier::ReferenceText);
    let (lo, hi, other) = range.unwrap();
    assert_eq!((lo, hi), (8.1e11, 8.2e11));
    assert!(other.contains("8.1e11"));
    assert_eq!(
        Tier::IDS,
        [
            "reference_text",
            "vendor_datasheet",
            "vendor_docs",
            "third_party"
        ]
    );
    assert_eq!(Tier::from_id("Vendor_Docs"), Some(Tier::VendorDocs));
    // The tier lives in the catalog, not in the chip: its JSON form is unchanged.
    let json = serde_json::to_string(&h100).unwrap();
    assert!(!json.contains("tier") && !json.contains("vendor_datasheet"));
}

/// The chips of 2026 (issue 23): each loads by id and by link, its ridge follows from the
/// figures its notes quote, every note quotes a number with its unit, and no peak is a sparse
/// figure.
#[test]
fn chips_of_2026() {
    const NEW: [&str; 10] = [
        "h800",
        "h20",
        "b300",
        "mi325x",
        "mi355x",
        "trn2",
        "trn3",
        "gaudi3",
        "rtx-5090",
        "rtx-pro-6000",
    ];
    // bf16 dense FLOP/s over HBM bytes/s, from the figures the notes quote, by hand.
    let ridges = [
        ("h800", 989e12 / 3.35e12),           // 295.2
        ("h20", 148e12 / 4.0e12),             // 37
        ("b300", 36e15 / 8.0 / 2.0 / 7.7e12), // 36 PFLOPS sparse per 8 → 292.2
        ("mi325x", 1307.4e12 / 6e12),         // 217.9
        ("mi355x", 2.5e15 / 8e12),            // 312.5
        ("trn2", 667e12 / 2.9e12),            // 230
        ("trn3", 671e12 / 4.9e12),            // 136.9
        ("gaudi3", 1835e12 / 3.67e12),        // 500
        ("rtx-5090", 210e12 / 1792e9),        // 117.2 (FP32 accumulate)
        ("rtx-pro-6000", 503.8e12 / 1792e9),  // 281.1
    ];
    for (id, ridge) in ridges {
        let chip = preset(id).unwrap();
        let r = chip.bf16.unwrap() / chip.hbm;
        assert!((r - ridge).abs() / ridge < 1e-12, "{id}: {r} vs {ridge}");
        let d = roofline::url::decode(&format!("?chip={id}&op=matmul:b=4096"));
        assert_eq!(d.scenario.chips[0], chip, "{id} by link");
        assert!(d.notices.is_empty(), "{id}: {:?}", d.notices);
        let a = analyze(&d.scenario.ops[0], &chip, &d.scenario.options).unwrap();
        assert!(
            (a.ridge - ridge).abs() / ridge < 1e-12,
            "{id}: ridge {}",
            a.ridge
        );
    }
    let h20 = analyze(
        &roofline::url::decode("?chip=h20&op=matmul").scenario.ops[0],
        &preset("h20").unwrap(),
        &Default::default(),
    )
    .unwrap();
    assert_eq!(h20.ridge, 37.0);
    let units = [
        "TFLOPS", "PFLOPS", "TOPS", "POPS", "GB/s", "TB/s", "TB/sec", "GB", "GiB", "Gb/s", "Gbps",
        "W", "MB", "GB/sec",
    ];
    let num_unit = |src: &str| {
        let b = src.as_bytes();
        (0..b.len()).any(|i| {
            b[i].is_ascii_digit()
                && units.iter().any(|u| {
                    let rest = src[i + 1..].trim_start_matches([
                        ',', '.', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9',
                    ]);
                    let rest = rest.trim_start_matches(' ');
                    rest.starts_with(u)
                })
        })
    };
    for id in NEW {
        let chip = preset(id).unwrap();
        assert!(!chip.is_edited());
        for f in ChipField::ALL {
            let src = chip.source(f);
            assert!(src.len() > 10, "{id} {f}");
            if let Some(v) = chip.get(f) {
                let e = chip
                    .evidence(f)
                    .unwrap_or_else(|| panic!("{id} {f}: no tier"));
                assert_eq!(e.source, src);
                let counts = matches!(
                    f,
                    ChipField::Links | ChipField::Node | ChipField::HopLat | ChipField::NetLat
                );
                assert!(
                    counts || num_unit(src),
                    "{id} {f}={v}: no number with a unit in {src:?}"
                );
                // A note that mentions sparsity states the dense value used.
                if src.contains("sparsity") || src.contains("sparse") {
                    assert!(src.contains("dense"), "{id} {f}: {src}");
                }
            }
        }
        // Never a sparse figure: where a peak's note quotes a figure with sparsity, the peak
        // is at most half the largest FLOP/s figure the note quotes (the sparse one, or a
        // larger per-system one), to the rounding of three-digit figures (1 %: MI355X's FP4
        // 10.1 dense against 20.1 with sparsity).
        for f in ChipField::ALL {
            let (Some(v), src) = (chip.get(f), chip.source(f)) else {
                continue;
            };
            let quotes_sparse = (src.contains("sparsity") || src.contains("sparse"))
                && !src.contains("no sparsity");
            if !quotes_sparse {
                continue;
            }
            let largest = flops_in(src).into_iter().fold(0.0_f64, f64::max);
            assert!(largest > 0.0, "{id} {f}: no FLOP/s figure in {src:?}");
            assert!(
                v <= largest / 2.0 * 1.01,
                "{id} {f}={v}: above half of {largest} quoted in {src:?}"
            );
        }
    }
    // Sparse figures quoted, dense used, each to the datasheet's own rounding (half a TFLOP/s):
    // H800 bf16 "1,979 teraFLOPS" with sparsity → 989.5 dense, stored as 989; RTX 5090 bf16
    // with FP32 accumulate: 838 sparse with FP16 accumulate / 4 → 209.5, stored as 210; B300
    // fp4 108 PFLOPS dense per 8 GPUs → 13.5; Trainium2's 2,563 sparse is not used.
    let within = |v: Option<f64>, want: f64, tol: f64| {
        let v = v.unwrap();
        assert!((v - want).abs() <= tol, "{v} against {want} ± {tol}");
    };
    within(preset("h800").unwrap().bf16, 1979e12 / 2.0, 0.5e12);
    assert_eq!(preset("b300").unwrap().fp4, Some(108e15 / 8.0));
    assert_eq!(preset("trn2").unwrap().bf16, Some(667e12));
    within(preset("rtx-5090").unwrap().bf16, 838e12 / 4.0, 0.5e12);
    // B300's dense FP4 disagreement: 13.1 / 13.5 / 14 / 15 PFLOP/s.
    let (lo, hi, other) = preset("b300")
        .unwrap()
        .evidence(ChipField::Fp4)
        .unwrap()
        .range
        .unwrap();
    assert_eq!((lo, hi), (13.125e15, 15e15));
    assert!(other.contains("14") && other.contains("15"));
    // Tiers: AWS's own docs for Trainium; H20's figures are all third-party.
    let tier = |id: &str, f| preset(id).unwrap().evidence(f).unwrap().tier;
    assert_eq!(tier("trn2", ChipField::Bf16), Tier::VendorDocs);
    assert_eq!(tier("h20", ChipField::Bf16), Tier::ThirdParty);
    assert_eq!(tier("tpu-v5e", ChipField::HbmCap), Tier::ReferenceText);
    // NVLink parts reuse NCCL's constants, as the h100 entry does.
    for id in ["h800", "h20", "b300"] {
        let c = preset(id).unwrap();
        assert_eq!((c.hop_lat, c.net_lat), (Some(6e-7), Some(2.7e-6)), "{id}");
        assert_eq!(c.interconnect, Interconnect::Switch);
    }
    // H800: NVLink 400 GB/s both ways = 8 links × 25 GB/s per direction.
    assert_eq!(preset("h800").unwrap().egress(), Some(2e11));
}

/// The Grace Blackwell racks (issue 40): 72 GPUs on one NVLink switch, the 1,200 W and 1,400 W
/// bins' peaks, no PCIe host link (the note names NVLink-C2C and the Grace's LPDDR5X for the KV
/// tier), each by link, and a Blackwell for the validation set.
#[test]
fn grace_blackwell_racks() {
    // bf16 dense over HBM, from the quoted figures: GB200 NVL72 360 PFLOPS sparse per 72 GPUs
    // (2.5 dense each) over 576 TB/s per 72 (8 each); GB300 the same two figures.
    for (id, ridge, fp4, hbm_cap, power) in [
        (
            "gb200",
            360e15 / 72.0 / 2.0 / (576e12 / 72.0),
            1e16,
            186e9,
            1200.0,
        ),
        (
            "gb300",
            360e15 / 72.0 / 2.0 / (576e12 / 72.0),
            1.5e16,
            288e9,
            1400.0,
        ),
    ] {
        let chip = preset(id).unwrap();
        assert_eq!(ridge, 312.5);
        assert_eq!(chip.bf16.unwrap() / chip.hbm, ridge, "{id}");
        assert_eq!(
            (chip.fp4, chip.hbm_cap, chip.power),
            (Some(fp4), hbm_cap, Some(power))
        );
        assert_eq!(chip.node, Some(72.0), "{id}: NVL72");
        assert_eq!(chip.peer_bandwidth(), Some(18.0 * 5e10), "{id}: NVLink 5");
        assert_eq!(chip.pcie, None, "{id}");
        let host = chip.source(ChipField::Pcie);
        assert!(
            host.contains("NVLink-C2C") && host.contains("LPDDR5X"),
            "{host}"
        );
        let d = roofline::url::decode(&format!("?chip={id}&op=matmul:b=4096"));
        assert_eq!(d.scenario.chips[0], chip, "{id} by link");
        assert!(d.notices.is_empty(), "{id}: {:?}", d.notices);
        assert_eq!(
            roofline::validation::family_of(&chip),
            Some(roofline::validation::Family::Blackwell)
        );
        assert_eq!(
            roofline::chip::preset_for_device(&format!("NVIDIA {id}")),
            Some(id)
        );
    }
    // The GB200 bin against HGX B200: +11 % on every tensor peak (2.5 / 2.25), as the
    // 1,200 W against 1,000 W bins.
    let (gb, b) = (preset("gb200").unwrap(), preset("b200").unwrap());
    assert_eq!(gb.fp8.unwrap() / b.fp8.unwrap(), 5.0 / 4.5);
    assert_eq!(gb.fp4.unwrap() / b.fp4.unwrap(), 10.0 / 9.0);
}

/// Capacities show as their vendors write them: binary where the source writes GiB, decimal
/// where it writes GB.
#[test]
fn capacities_in_the_vendors_units() {
    use roofline::units::{format_field, Unit};
    let cap = |id: &str| format_field(preset(id).unwrap().hbm_cap, Unit::Bytes);
    assert_eq!(cap("tpu-v5e"), "16 GiB"); // tpus.md: "TPU v5e has 16GiB of HBM"
    assert_eq!(cap("tpu-v6e"), "32 GiB"); // Google: "HBM capacity per chip (GiB) 32"
    assert_eq!(cap("tpu7x"), "192 GiB");
    assert_eq!(cap("h100"), "80 GB"); // NVIDIA: "80GB HBM3"
    assert_eq!(cap("h20"), "96 GB");
    assert_eq!(cap("b300"), "288 GB"); // NVIDIA: "288 GB of HBM3e per GPU"
    assert_eq!(cap("mi355x"), "288 GiB"); // ROCm: "VRAM (GiB) 288"
    assert_eq!(cap("mi325x"), "256 GiB");
    assert_eq!(cap("trn2"), "96 GiB"); // AWS: "96 GiB of device memory"
    assert_eq!(cap("trn3"), "144 GiB");
    assert_eq!(cap("gaudi3"), "128 GB"); // Intel: "HBM Capacity 128 GB"
    assert_eq!(cap("rtx-5090"), "32 GB");
    assert_eq!(preset("tpu-v5e").unwrap().hbm_cap, 17_179_869_184.0);
    assert_eq!(preset("h100").unwrap().hbm_cap, 8e10);
}

/// Issue 24, point 9: a peak field takes a rate of FLOPs the way people write it, "FLOPs"
/// included, as the README promises (`197 tflops`, `2 PFLOPs`, `2 PF`): the field's unit decides.
/// A unit of another kind is still refused.
#[test]
fn peak_fields_take_flops_written_as_people_write_them() {
    let mut c = preset("h100").unwrap();
    for (text, want) in [
        ("197 tflops", 1.97e14),
        ("2 PFLOPs", 2e15),
        ("2 PF", 2e15),
        ("989 TFLOP/s", 9.89e14),
        ("1979 TFLOPS", 1.979e15),
    ] {
        c.set_str(ChipField::Bf16, text)
            .unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(c.bf16, Some(want), "{text}");
    }
    let e = c.set_str(ChipField::Bf16, "2 TB").unwrap_err().to_string();
    assert!(e.contains("does not fit"), "{e}");
    let e = c
        .set_str(ChipField::Hbm, "3 tflops")
        .unwrap_err()
        .to_string();
    assert!(e.contains("does not fit"), "{e}");
}

/// The FLOP/s (or OP/s) figures a chip note quotes, in base units: a number (commas allowed,
/// not part of a name such as `H800` or `FP8`) followed, directly or after up to two words, by
/// `TFLOPS`, `TOPS`, `PFLOPS` or `POPS`
/// (`teraFLOPS`, `petaFLOPS` too), a bare number followed by "with sparsity" taking the unit of
/// the last one before it ("312 TFLOPS dense (624 with sparsity)"), and a number in scientific
/// notation as written ("→ 4.945e14 dense").
fn flops_in(src: &str) -> Vec<f64> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut unit: Option<f64> = None;
    let mut i = 0;
    while i < b.len() {
        let starts = b[i].is_ascii_digit() && (i == 0 || !b[i - 1].is_ascii_alphanumeric());
        if !starts {
            i += 1;
            continue;
        }
        let mut j = i;
        while j < b.len() && (b[j].is_ascii_digit() || b[j] == b',' || b[j] == b'.') {
            j += 1;
        }
        let mut text: String = src[i..j].trim_end_matches(['.', ',']).replace(',', "");
        let sci = j < b.len() && b[j] == b'e' && b.get(j + 1).is_some_and(|c| c.is_ascii_digit());
        if sci {
            let mut k = j + 1;
            while k < b.len() && b[k].is_ascii_digit() {
                k += 1;
            }
            text = src[i..k].replace(',', "");
            j = k;
        }
        let Ok(v) = text.parse::<f64>() else {
            i = j;
            continue;
        };
        let rest = src[j..].trim_start();
        let unit_of = |r: &str| {
            [
                ("teraFLOPS", 1e12),
                ("petaFLOPS", 1e15),
                ("TFLOPS", 1e12),
                ("TOPS", 1e12),
                ("PFLOPS", 1e15),
                ("POPS", 1e15),
            ]
            .iter()
            .find(|(u, _)| r.starts_with(u))
            .map(|(_, s)| *s)
        };
        // The unit right after the number, or after up to two words naming its dtypes or
        // kind ("667 BF16/FP16/TF32 TFLOPS", "2,563 FP8/FP16/BF16/TF32 sparse TFLOPS").
        let mut scale = unit_of(rest);
        let mut r = rest;
        for _ in 0..2 {
            if scale.is_some() {
                break;
            }
            r = r.split_once(' ').map_or("", |(_, t)| t.trim_start());
            scale = unit_of(r);
        }
        if sci {
            out.push(v);
        } else if let Some(s) = scale {
            unit = Some(s);
            out.push(v * s);
        } else if let (Some(s), true) = (unit, rest.starts_with("with sparsity")) {
            out.push(v * s);
        }
        i = j;
    }
    out
}

#[test]
fn the_flops_a_note_quotes_are_read_with_their_units() {
    assert_eq!(
        flops_in("NVIDIA A100 datasheet: BF16 Tensor Core 312 TFLOPS dense (624 with sparsity)"),
        vec![312e12, 624e12]
    );
    assert_eq!(
        flops_in("NVIDIA H100 datasheet (SXM): FP8 Tensor Core 3,958 TFLOPS with sparsity → 1.979e15 dense"),
        vec![3958e12, 1.979e15]
    );
    assert_eq!(
        flops_in("HGX B200: 36 PFLOPS per 8 GPUs with sparsity"),
        vec![36e15]
    );
    assert_eq!(
        flops_in(
            "\"667 BF16/FP16/TF32 TFLOPS\" dense (\"2,563 FP8/FP16/BF16/TF32 sparse TFLOPS\")"
        ),
        vec![667e12, 2563e12]
    );
}

/// `validate` walks each field's value beside its spec in one pass (`OpKind::nums`, from the
/// same `op_fields!` list as `fields`): one value per field, in form order, each the one a
/// lookup by key gives. Every numeric field is first set to its own value (2, 3, 4, ... where
/// its range takes it), so a value handed to the wrong spec would show.
#[test]
fn each_fields_value_is_read_beside_its_spec() {
    for id in OpKind::IDS {
        let mut op = Op::default_for(id).unwrap();
        let specs = op.fields();
        for (k, spec) in specs.iter().enumerate() {
            if spec.is_numeric() {
                let _ = op.set(spec.key, &(k + 2).to_string());
            }
        }
        let nums = op.kind.nums();
        assert_eq!(nums.len(), specs.len(), "{id}");
        let mut distinct = 0;
        for ((key, v), spec) in nums.iter().zip(specs) {
            assert_eq!(*key, spec.key);
            assert_eq!(*v, op.get_num(spec.key), "{id}.{key}");
            distinct += usize::from(v.is_some());
        }
        assert!(distinct > 0, "{id}: no numeric field read");
        op.validate().unwrap();
    }
}
