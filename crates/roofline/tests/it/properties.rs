//! Property tests: no panic and finite outputs for any valid input, the bound inequalities,
//! exact critical points, lossless formatting, and robustness to arbitrary text.

use proptest::prelude::*;
use roofline::*;

/// Log-uniform positive integer size from 1 to 1e15.
fn size() -> impl Strategy<Value = f64> + Clone {
    (0.0f64..=15.0).prop_map(|e| 10f64.powf(e).round().clamp(1.0, 1e15))
}

/// Log-uniform moderate size (where crossovers are interesting).
fn dim() -> impl Strategy<Value = f64> + Clone {
    (0.0f64..=6.0).prop_map(|e| 10f64.powf(e).round().max(1.0))
}

fn rate() -> impl Strategy<Value = f64> + Clone {
    (0.0f64..=30.0).prop_map(|e| 10f64.powf(e).clamp(1.0, 1e30))
}

fn dtype() -> impl Strategy<Value = DType> {
    prop::sample::select(DType::ALL.to_vec())
}

/// A chip with every peak and link set to arbitrary positive values.
fn full_chip() -> impl Strategy<Value = Chip> {
    (prop::collection::vec(rate(), 16), 1u32..=64, any::<bool>()).prop_map(|(v, links, switch)| {
        let mut c = Chip::custom("prop chip");
        let fields = [
            ChipField::Fp32,
            ChipField::Tf32,
            ChipField::Bf16,
            ChipField::Fp16,
            ChipField::Fp8,
            ChipField::Int8,
            ChipField::Int4,
            ChipField::Fp4,
            ChipField::Vpu,
            ChipField::Hbm,
            ChipField::HbmCap,
            ChipField::Onchip,
            ChipField::OnchipCap,
            ChipField::Pcie,
            ChipField::Ici,
            ChipField::Dcn,
        ];
        for (f, x) in fields.iter().zip(v) {
            c.set(*f, x).unwrap();
        }
        c.set(ChipField::Links, f64::from(links)).unwrap();
        c.interconnect = if switch {
            Interconnect::Switch
        } else {
            Interconnect::PointToPoint
        };
        c
    })
}

fn choice<T: Clone + std::fmt::Debug + 'static>(v: &[T]) -> impl Strategy<Value = T> {
    prop::sample::select(v.to_vec())
}

fn matmul_with(sizes: impl Strategy<Value = f64> + Clone) -> impl Strategy<Value = Matmul> {
    (
        (sizes.clone(), sizes.clone(), sizes),
        (dtype(), dtype(), dtype(), prop::option::of(dtype())),
        (
            prop::sample::select(vec![1.0, 2.0, 4.0, 8.0, 256.0]),
            choice(&[Split::D, Split::B, Split::F]),
            choice(&[Link::Ici, Link::Nvlink, Link::Pcie, Link::Dcn]),
            choice(&[WeightSource::Hbm, WeightSource::Onchip, WeightSource::Pcie]),
            choice(&[
                AllReduceTopology::UniRing,
                AllReduceTopology::Ring,
                AllReduceTopology::Line,
            ]),
        ),
        prop::option::of((size(), size(), size())),
    )
        .prop_map(
            |((b, d, f), (x, w, out, compute), (shards, split, link, from, topology), tiles)| {
                Matmul {
                    b,
                    d,
                    f,
                    x,
                    w,
                    out,
                    compute,
                    shards,
                    split,
                    link,
                    topology,
                    from,
                    tiles,
                }
            },
        )
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (size(), dtype()).prop_map(|(n, t)| Op::new(OpKind::Dot(Dot { n, t }))),
        (size(), 1e-3f64..1e6, 0u32..=64, dtype()).prop_map(|(n, flops, inputs, t)| {
            Op::new(OpKind::Elementwise(Elementwise {
                n,
                flops,
                inputs: f64::from(inputs),
                t,
            }))
        }),
        matmul_with(size()).prop_map(|m| Op::new(OpKind::Matmul(m))),
        (size(), size(), size(), dtype(), dtype(), dtype())
            .prop_map(|(b, d, f, x, w, out)| { Op::new(OpKind::Bmm(Bmm { b, d, f, x, w, out })) }),
        (rate(), rate(), dtype()).prop_map(|(flops, bytes, t)| {
            Op::new(OpKind::Custom(Custom {
                flops,
                bytes,
                t,
                ..Custom::default()
            }))
        }),
    ]
}

fn options() -> impl Strategy<Value = Options> {
    (any::<bool>(), 0.01f64..=1.0).prop_map(|(one, derate)| Options {
        convention: if one {
            FlopConvention::OnePerMac
        } else {
            FlopConvention::TwoPerMac
        },
        derate,
        ..Options::default()
    })
}

fn all_finite(a: &Analysis) -> bool {
    let mut v = vec![
        a.flops,
        a.bytes,
        a.bytes_read,
        a.bytes_written,
        a.intensity,
        a.t_math,
        a.t_comms,
        a.t_lower,
        a.t_upper,
        a.achieved,
        a.fraction,
        a.ridge,
        a.memory,
        a.capacity,
        a.compute.peak,
        a.compute.effective_peak,
    ];
    for c in &a.comms {
        v.extend([c.bytes, c.bandwidth, c.time, c.intensity, c.ridge]);
    }
    if let Some(c) = &a.critical {
        v.push(c.value);
        v.extend(c.approx);
    }
    if let Some(t) = &a.tiled {
        v.extend([t.flops, t.bytes, t.intensity, t.approx_intensity]);
    }
    if let Some((x, _)) = &a.approx_intensity {
        v.push(*x);
    }
    v.iter().all(|x| x.is_finite())
}

/// Hand formulas for a matmul at a given (possibly fractional) B or D: (T_math, max T_comm).
fn matmul_times(m: &Matmul, chip: &Chip, derate: f64) -> (f64, f64) {
    let n = m.shards;
    let (bl, dl, fl) = if n <= 1.0 {
        (m.b, m.d, m.f)
    } else {
        match m.split {
            Split::B => (m.b / n, m.d, m.f),
            Split::D => (m.b, m.d / n, m.f),
            Split::F => (m.b, m.d, m.f / n),
        }
    };
    let cd = m
        .compute
        .unwrap_or_else(|| DType::compute_default(m.x, m.w));
    let t_math = 2.0 * bl * dl * fl / (chip.peak(cd).unwrap() * derate);
    let xb = m.x.bytes() * bl * dl;
    let wb = m.w.bytes() * dl * fl;
    let zb = m.out.bytes() * bl * fl;
    // bytes per resource: hbm, onchip, pcie, link
    let mut hbm = xb + zb;
    let mut onchip = 0.0;
    let mut pcie = 0.0;
    match m.from {
        WeightSource::Hbm => hbm += wb,
        WeightSource::Onchip => onchip += wb,
        WeightSource::Pcie => pcie += wb,
    }
    let mut t = vec![hbm / chip.hbm, onchip / chip.onchip.unwrap()];
    let link = if n > 1.0 && m.split == Split::D {
        // Per link direction: 2·(n−1)/n of Z on a unidirectional ring or a line, 2·⌊n/2⌋/n
        // on a bidirectional ring (sharding.md, Case 3).
        let factor = match m.topology {
            AllReduceTopology::Ring => 2.0 * (n / 2.0).floor() / n,
            _ => 2.0 * (n - 1.0) / n,
        };
        factor * m.out.bytes() * m.b * m.f
    } else {
        0.0
    };
    match m.link {
        Link::Pcie => pcie += link,
        Link::Dcn => t.push(link / chip.dcn.unwrap()),
        Link::Ici | Link::Nvlink => t.push(link / chip.peer_bandwidth().unwrap()),
    }
    t.push(pcie / chip.pcie.unwrap());
    (t_math, t.into_iter().fold(0.0, f64::max))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn analysis_is_total_and_finite(op in op(), chip in full_chip(), opts in options()) {
        let a = analyze(&op, &chip, &opts).unwrap();
        prop_assert!(all_finite(&a), "{a:?}");
        prop_assert!(!a.derivation().is_empty());
        // T_lower ≤ T_upper ≤ (1 + #terms)·T_lower; with one resource ≤ 2·T_lower (book).
        let k = a.comms.len() as f64;
        prop_assert!(a.t_lower <= a.t_upper * (1.0 + 1e-12));
        prop_assert!(a.t_upper <= (1.0 + k) * a.t_lower * (1.0 + 1e-12));
        if a.comms.len() == 1 {
            prop_assert!(a.t_upper <= 2.0 * a.t_lower * (1.0 + 1e-12));
        }
        prop_assert!(a.achieved <= a.compute.effective_peak * (1.0 + 1e-12));
        prop_assert!(a.achieved <= a.compute.peak * (1.0 + 1e-12));
        prop_assert!(a.fraction > 0.0 && a.fraction <= 1.0);
        prop_assert_eq!(a.bound == Bound::Compute, a.t_math >= a.t_comms);
    }

    #[test]
    fn presets_never_panic(op in op(), idx in 0usize..11, opts in options()) {
        let chip = presets().swap_remove(idx);
        match analyze(&op, &chip, &opts) {
            Ok(a) => prop_assert!(all_finite(&a)),
            Err(e) => prop_assert!(matches!(e, Error::MissingPeak { .. } | Error::MissingResource { .. }), "{e}"),
        }
    }

    #[test]
    fn matmul_intensity_increases_with_b(
        m in matmul_with(dim()), chip in full_chip(), b1 in dim(), b2 in dim()
    ) {
        let (lo, hi) = if b1 <= b2 { (b1, b2) } else { (b2, b1) };
        let m = Matmul { from: WeightSource::Hbm, shards: 1.0, ..m };
        let at = |b: f64| {
            let op = Op::new(OpKind::Matmul(Matmul { b, ..m }));
            analyze(&op, &chip, &Options::default()).unwrap().term(Resource::Hbm).unwrap().intensity
        };
        prop_assert!(at(lo) <= at(hi) * (1.0 + 1e-12));
    }

    #[test]
    fn exact_critical_balances_times(m in matmul_with(dim()), chip in full_chip(), derate in 0.5f64..=1.0) {
        let m = Matmul { tiles: None, ..m };
        let opts = Options { derate, ..Options::default() };
        let a = analyze(&Op::new(OpKind::Matmul(m)), &chip, &opts).unwrap();
        if let Some(c) = a.critical {
            prop_assume!(c.value > 0.0);
            let at = match c.dim.as_str() {
                "b" => Matmul { b: c.value, ..m },
                _ => Matmul { d: c.value, ..m },
            };
            let (t_math, t_comms) = matmul_times(&at, &chip, derate);
            prop_assert!(((t_math - t_comms) / t_math).abs() <= 1e-9,
                "dim {} = {}: T_math {t_math} vs T_comms {t_comms}", c.dim, c.value);
        }
    }

    #[test]
    fn sweep_points_match_direct_analysis(
        op in op(), chip in full_chip(), opts in options(), key_idx in 0usize..16,
        from in 1.0f64..1e4, to in 1.0f64..1e6, log in any::<bool>(),
    ) {
        let numeric: Vec<&str> = op.fields().iter().filter(|f| f.is_numeric()).map(|f| f.key).collect();
        let field = numeric[key_idx % numeric.len()];
        let spec = SweepSpec { field: field.into(), from: from.round(), to: to.round(), points: 17, log };
        // Endpoints may be out of the field's range (inputs ≤ 64): then the sweep errors.
        if let Ok(s) = sweep(&op, &chip, &opts, &spec) {
            for p in &s.points {
                let mut o = op.clone();
                o.set_num(field, p.x).unwrap();
                let a = analyze(&o, &chip, &opts).unwrap();
                for (got, want) in [(p.t_lower, a.t_lower), (p.t_upper, a.t_upper), (p.achieved, a.achieved), (p.t_math, a.t_math)] {
                    prop_assert!(((got - want) / want).abs() <= 1e-12, "{field}={}: {got} vs {want}", p.x);
                }
                prop_assert_eq!(p.bound, a.bound);
            }
        }
    }

    #[test]
    fn format_exact_round_trips(x in prop::num::f64::ANY.prop_filter("finite", |x| x.is_finite())) {
        let s = format_exact(x);
        prop_assert_eq!(parse_quantity(&s).unwrap(), x, "{}", s);
    }

    #[test]
    fn parse_never_panics(s in any::<String>(), t in "[0-9eE.+\\- kKMGTPmuµnpiBbsFLOP/]{0,16}") {
        for text in [&s, &t] {
            if let Ok(v) = parse_quantity(text) {
                prop_assert!(v.is_finite());
            }
        }
    }

    #[test]
    fn op_set_never_panics(
        kind in prop::sample::select(OpKind::IDS.to_vec()),
        key_idx in 0usize..20,
        junk_key in any::<String>(),
        value in prop_oneof![any::<String>(), "[0-9eE.+\\- kKMGTPiBoffauto]{0,12}".prop_map(String::from)],
    ) {
        let mut op = Op::default_for(kind).unwrap();
        let keys: Vec<&str> = op.fields().iter().map(|f| f.key).collect();
        let key = keys.get(key_idx).map_or(junk_key.as_str(), |k| k);
        if op.set(key, &value).is_ok() {
            op.validate().unwrap();
            let chip = preset("h100").unwrap();
            let _ = analyze(&op, &chip, &Options::default());
        }
    }

    #[test]
    fn chip_set_str_never_panics(idx in 0usize..18, value in any::<String>(), t in "[0-9eE.+\\- kKMGTPiBbs/]{0,12}") {
        let mut chip = preset("tpu-v5e").unwrap();
        let f = ChipField::ALL[idx];
        for v in [&value, &t] {
            if chip.set_str(f, v).is_ok() {
                chip.check().unwrap();
            }
        }
    }

    #[test]
    fn sweep_never_panics(
        op in op(), chip in full_chip(), opts in options(),
        key_idx in 0usize..16, from in -10.0f64..1e7, to in -10.0f64..1e7,
        points in 0usize..300, log in any::<bool>(),
    ) {
        let field = op.fields().get(key_idx).map_or("zz", |f| f.key).to_string();
        let spec = SweepSpec { field, from: from.round(), to: to.round(), points, log };
        if let Ok(s) = sweep(&op, &chip, &opts, &spec) {
            prop_assert!(!s.points.is_empty());
            prop_assert!(s.points.iter().all(|p| p.achieved.is_finite() && p.t_upper.is_finite()));
            prop_assert!(s.crossovers.iter().all(|c| c.x.is_finite()));
        }
    }
}
