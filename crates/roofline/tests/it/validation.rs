//! The validation set (issue 25): its integrity (sources, quotes, conditions, links that decode
//! and analyse), and the calibration on synthetic sets whose answer is known.

use roofline::validation::{
    calibrate, fit_model, points, predict, report, select_terms, Compared, Family, Features, Obs,
    Split, Term, Work, MIN_POINTS, SET_VERSION,
};
use std::collections::BTreeSet;

#[test]
fn every_point_carries_its_evidence() {
    let ps = points();
    assert!(ps.len() >= 40, "{} points", ps.len());
    for p in &ps {
        for (what, text) in [
            ("id", p.id),
            ("link", p.link),
            ("measured", p.measured),
            ("derivation", p.derivation),
            ("conditions", p.conditions),
            ("source", p.source),
            ("source_key", p.source_key),
            ("quote", p.quote),
            ("notes", p.notes),
        ] {
            assert!(!text.trim().is_empty(), "{}: empty {what}", p.id);
        }
        assert!(p.link.starts_with("?chip="), "{}: {}", p.id, p.link);
        assert!(
            p.measured_s.is_finite() && p.measured_s > 0.0,
            "{}: measured_s {}",
            p.id,
            p.measured_s
        );
        assert!(
            p.measured.chars().any(|c| c.is_ascii_digit()),
            "{}: the published figure has no number",
            p.id
        );
        if let Err(why) = p.expressible {
            assert!(!why.trim().is_empty(), "{}: a reason", p.id);
        }
    }
    let ids: BTreeSet<&str> = ps.iter().map(|p| p.id).collect();
    assert_eq!(ids.len(), ps.len(), "ids are unique");
}

#[test]
fn the_set_spans_families_and_every_kind_of_work() {
    let ps = points();
    let families: BTreeSet<Family> = ps.iter().map(|p| p.family).collect();
    assert!(families.len() >= 5, "{families:?}");
    for w in Work::ALL {
        assert!(ps.iter().any(|p| p.work == w), "no {} point", w.as_str());
    }
}

#[test]
fn every_expressible_link_decodes_cleanly_and_analyses() {
    for p in points() {
        let d = roofline::url::decode(p.link);
        if p.expressible.is_ok() {
            assert!(d.notices.is_empty(), "{}: {:?}", p.id, d.notices);
            let t = predict(p).unwrap_or_else(|e| panic!("{}: {e}", p.id));
            assert!(t.is_finite() && t > 0.0, "{}: {t}", p.id);
        }
        // The serving comparisons need an llm op; every other one a t_lower.
        if p.compared != Compared::TLower {
            assert!(p.link.contains("op=llm:"), "{}", p.id);
        }
    }
}

#[test]
fn the_report_counts_what_the_set_holds() {
    let r = report();
    assert_eq!(r.set_version, SET_VERSION);
    assert_eq!(r.rows.len(), points().len());
    assert_eq!(r.overall.total, r.rows.len());
    let expressed = points().iter().filter(|p| p.expressible.is_ok()).count();
    assert_eq!(
        r.overall.expressed, expressed,
        "every expressible point predicts"
    );
    assert_eq!(
        r.by_work.iter().map(|s| s.total).sum::<usize>(),
        r.overall.total
    );
    assert_eq!(
        r.by_family.iter().map(|s| s.total).sum::<usize>(),
        r.overall.total
    );
    for row in &r.rows {
        // No expectation without a prediction; an expectation is fitted without its source.
        if let Some(e) = &row.held_out {
            assert!(row.predicted.is_ok(), "{}", row.point.id);
            if e.lo.is_some() {
                assert!(e.based_on.len() >= MIN_POINTS, "{}", row.point.id);
            }
            for id in &e.based_on {
                let q = points().into_iter().find(|q| q.id == *id).unwrap();
                assert_ne!(
                    q.source_key, row.point.source_key,
                    "{} used {id}",
                    row.point.id
                );
            }
        }
    }
    for row in r.below_bound() {
        assert!(row.ratio.unwrap() < 1.0);
        assert!(!row.point.notes.is_empty());
    }
    // Per source: each key once, in the order the set first cites it, its own rows' figures.
    let sources = r.by_source();
    assert_eq!(
        sources.iter().map(|s| s.total).sum::<usize>(),
        r.overall.total
    );
    let mut first_cited: Vec<&str> = Vec::new();
    for p in points() {
        if !first_cited.contains(&p.source_key) {
            first_cited.push(p.source_key);
        }
    }
    let labels: Vec<&str> = sources.iter().map(|s| s.label.as_str()).collect();
    assert_eq!(labels, first_cited);
    for s in &sources {
        let rows: Vec<_> = r
            .rows
            .iter()
            .filter(|x| x.point.source_key == s.label)
            .collect();
        assert_eq!(s.total, rows.len(), "{}", s.label);
        let mut errors: Vec<f64> = rows.iter().filter_map(|x| x.error.map(f64::abs)).collect();
        assert_eq!(s.with_expectation, errors.len(), "{}", s.label);
        errors.sort_by(f64::total_cmp);
        // The median by hand: the middle error, or the mean of the middle two.
        let n = errors.len();
        let by_hand = match n {
            0 => None,
            _ if n % 2 == 1 => Some(errors[n / 2]),
            _ => Some((errors[n / 2 - 1] + errors[n / 2]) / 2.0),
        };
        assert_eq!(s.median_abs_error, by_hand, "{}", s.label);
    }
}

const RES: [Term; 3] = Term::RESOURCES;

/// A compute-bound GEMM point.
fn obs(id: &'static str, source: &'static str, family: Family, ratio: f64) -> Obs {
    with(
        id,
        source,
        family,
        ratio,
        Features {
            split: Split::only(roofline::resource::Bound::Compute),
            ..Features::default()
        },
    )
}

fn with(
    id: &'static str,
    source: &'static str,
    family: Family,
    ratio: f64,
    features: Features,
) -> Obs {
    Obs {
        id,
        source,
        work: Work::Gemm,
        family,
        ratio,
        features,
    }
}

fn compute() -> Features {
    Features {
        split: Split::only(roofline::resource::Bound::Compute),
        ..Features::default()
    }
}

fn close(a: f64, b: f64, tol: f64) {
    assert!((a - b).abs() <= tol * b.abs(), "{a} vs {b}");
}

#[test]
fn a_set_measured_at_exactly_125_percent_fits_r_125_with_no_error() {
    let set = [
        obs("a", "s1", Family::Hopper, 1.25),
        obs("b", "s2", Family::Hopper, 1.25),
        obs("c", "s3", Family::Hopper, 1.25),
        obs("d", "s4", Family::Hopper, 1.25),
        obs("e", "s5", Family::Hopper, 1.25),
    ];
    let cal = calibrate(&set, &RES, None).unwrap();
    let e = cal
        .expect(Work::Gemm, Family::Hopper, &compute(), 2e-3)
        .unwrap();
    close(e.r, 1.25, 1e-9);
    close(e.t, 2.5e-3, 1e-9);
    // measured = 1.25 × t_lower: every held-out residual is 1, the band has no width.
    close(e.lo.unwrap(), e.t, 1e-9);
    close(e.hi.unwrap(), e.t, 1e-9);
    assert_eq!(e.based_on, vec!["a", "b", "c", "d", "e"]);
    assert_eq!(e.pooled, 5);
    assert_eq!(e.borrowed_from, None);
    assert_eq!(e.set_version, SET_VERSION);
    // Without s1, each held-out fold leaves three points: no residual, so no band.
    let held = calibrate(&set, &RES, Some("s1")).unwrap();
    let e = held
        .expect(Work::Gemm, Family::Hopper, &compute(), 2e-3)
        .unwrap();
    close(e.t, 2.5e-3, 1e-9);
    assert_eq!((e.lo, e.hi), (None, None));
}

#[test]
fn holding_out_by_source_drops_every_point_of_the_source() {
    // Source "fast" has five points at 1.0; four other sources one point each at 2.0. The fit
    // minimises Σ |a / r − 1|: between 1 and 2 its slope is 5 − 4/2 = 3 > 0, so on everything
    // a = 1.0; held out by source (every "fast" point dropped) a = 2.0.
    let set = [
        obs("f1", "fast", Family::Hopper, 1.0),
        obs("f2", "fast", Family::Hopper, 1.0),
        obs("f3", "fast", Family::Hopper, 1.0),
        obs("f4", "fast", Family::Hopper, 1.0),
        obs("f5", "fast", Family::Hopper, 1.0),
        obs("o1", "o1", Family::Hopper, 2.0),
        obs("o2", "o2", Family::Hopper, 2.0),
        obs("o3", "o3", Family::Hopper, 2.0),
        obs("o4", "o4", Family::Hopper, 2.0),
    ];
    let all = calibrate(&set, &RES, None).unwrap();
    close(all.model.coef(Term::Compute).unwrap(), 1.0, 1e-6);
    let held = calibrate(&set, &RES, Some("fast")).unwrap();
    close(held.model.coef(Term::Compute).unwrap(), 2.0, 1e-6);
    let e = held
        .expect(Work::Gemm, Family::Hopper, &compute(), 1.0)
        .unwrap();
    assert_eq!(e.based_on, vec!["o1", "o2", "o3", "o4"]);
    // Three points are not evidence: no calibration.
    assert!(calibrate(&set[..8], &RES, Some("fast")).is_none());
}

#[test]
fn a_generation_without_points_gets_nothing_and_one_without_the_kind_says_it_borrows() {
    let set = [
        obs("h1", "s1", Family::Hopper, 1.5),
        obs("h2", "s2", Family::Hopper, 1.5),
        obs("a1", "s3", Family::Ampere, 1.1),
        obs("a2", "s4", Family::Ampere, 1.1),
        obs("a3", "s5", Family::Ampere, 1.1),
    ];
    let cal = calibrate(&set, &RES, None).unwrap();
    assert!(cal
        .expect(Work::Gemm, Family::Tpu, &compute(), 1.0)
        .is_none());
    let own = cal
        .expect(Work::Gemm, Family::Hopper, &compute(), 1.0)
        .unwrap();
    assert_eq!(own.borrowed_from, None);
    let other = cal
        .expect(Work::Memory, Family::Hopper, &compute(), 1.0)
        .unwrap();
    assert!(other
        .borrowed_from
        .unwrap()
        .contains("hopper has no memory point"));
    // No memory point anywhere: the band has nothing behind it.
    assert_eq!((other.lo, other.hi), (None, None));
}

#[test]
fn the_band_is_the_spread_of_held_out_residuals() {
    // Ratios 1, 2, 3, 4, 5 from five sources. Minimising Σ |a/r − 1| = Σ (1/r)|a − r| is a
    // median weighted by 1/r (1, 1/2, 1/3, 1/4, 1/5; half the total 2.283 is 1.142): a = 2.
    // Held out: without 1 → 3 (weights 1/2 + 1/3 pass half of 1.283), without 2 → 1, without
    // 3 → 1, without 4 → 2, without 5 → 2; residuals r / a: 1/3, 2, 3, 2, 2.5. Sorted
    // 1/3, 2, 2, 2.5, 3: p10 at position 0.4 is 1/3 + 0.4 × 5/3 = 1.0, p90 at 3.6 is
    // 2.5 + 0.6 × 0.5 = 2.8.
    let set = [
        obs("a", "a", Family::Tpu, 1.0),
        obs("b", "b", Family::Tpu, 2.0),
        obs("c", "c", Family::Tpu, 3.0),
        obs("d", "d", Family::Tpu, 4.0),
        obs("e", "e", Family::Tpu, 5.0),
    ];
    let e = calibrate(&set, &RES, None)
        .unwrap()
        .expect(Work::Gemm, Family::Tpu, &compute(), 1.0)
        .unwrap();
    close(e.r, 2.0, 1e-5);
    close(e.lo.unwrap(), 2.0 * 1.0, 1e-5);
    close(e.hi.unwrap(), 2.0 * 2.8, 1e-5);
}

/// The fit recovers known terms: points whose ratio is exactly 1.5 × compute + 1.2 × memory +
/// 1.4 × network (+ 3 µs per launch) give those coefficients back; the launch term is kept
/// because it takes the held-out error to zero, and left out of a set without it.
#[test]
fn the_fit_recovers_a_synthetic_sets_terms() {
    let mut set = Vec::new();
    let ids: [&'static str; 8] = ["p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7"];
    let splits = [
        (1.0, 0.0, 0.0, 0.5),
        (0.0, 1.0, 0.0, 0.1),
        (0.0, 0.0, 1.0, 0.0),
        (0.5, 0.5, 0.0, 0.2),
        (0.2, 0.3, 0.5, 0.05),
        (0.6, 0.1, 0.3, 1.0),
        (0.3, 0.7, 0.0, 0.0),
        (0.1, 0.1, 0.8, 0.3),
    ];
    for (id, (c, m, n, launch)) in ids.into_iter().zip(splits) {
        let f = Features {
            split: Split {
                compute: c,
                memory: m,
                network: n,
            },
            launch,
            ..Features::default()
        };
        let ratio = 1.5 * c + 1.2 * m + 1.4 * n + 3.0 * launch;
        set.push(with(id, id, Family::Hopper, ratio, f));
    }
    let data: Vec<(Features, f64)> = set.iter().map(|o| (o.features, o.ratio)).collect();
    let mut terms = RES.to_vec();
    terms.push(Term::Launch);
    let m = fit_model(&data, &terms).unwrap();
    for (t, want) in [
        (Term::Compute, 1.5),
        (Term::Memory, 1.2),
        (Term::Network, 1.4),
        (Term::Launch, 3.0),
    ] {
        close(m.coef(t).unwrap(), want, 1e-6);
    }
    assert_eq!(select_terms(&set), terms);
    for o in &mut set {
        o.ratio -= 3.0 * o.features.launch;
    }
    assert_eq!(select_terms(&set), RES.to_vec());
}

/// The step's HBM fraction is read only in LLM steps (figures with a per-step feature): a
/// synthetic set whose streaming kernels run at 1 / 1.25 of the bandwidth and whose steps'
/// memory pieces at 1 / (1.25 + 0.30) recovers both, and the term is selected; a kernel's
/// memory share never enters it.
#[test]
fn a_steps_hbm_fraction_is_fitted_apart_from_a_kernels() {
    let step = |m: f64| Features {
        split: Split {
            compute: 1.0 - m,
            memory: m,
            network: 0.0,
        },
        step: 0.01,
        ..Features::default()
    };
    let kernel = |m: f64| Features {
        step: 0.0,
        ..step(m)
    };
    assert_eq!(Term::StepMemory.x(&step(0.7)), 0.7);
    assert_eq!(Term::StepMemory.x(&kernel(0.7)), 0.0);
    assert_eq!(Term::StepCompute.x(&step(0.7)), 1.0 - 0.7);
    let ids: [&'static str; 10] = ["k0", "k1", "k2", "k3", "k4", "s0", "s1", "s2", "s3", "s4"];
    let shares = [1.0, 0.0, 0.5, 0.8, 0.2, 1.0, 0.6, 0.9, 0.3, 0.75];
    let set: Vec<Obs> = ids
        .into_iter()
        .zip(shares)
        .enumerate()
        .map(|(i, (id, m))| {
            let f = if i < 5 { kernel(m) } else { step(m) };
            // By hand: 1.5 per compute share, 1.25 per memory share, 0.30 more in a step.
            let ratio = 1.5 * (1.0 - m) + 1.25 * m + if i < 5 { 0.0 } else { 0.30 * m };
            with(id, id, Family::Hopper, ratio, f)
        })
        .collect();
    let data: Vec<(Features, f64)> = set.iter().map(|o| (o.features, o.ratio)).collect();
    let mut terms = RES.to_vec();
    terms.push(Term::StepMemory);
    let m = fit_model(&data, &terms).unwrap();
    close(m.coef(Term::Compute).unwrap(), 1.5, 1e-6);
    close(m.coef(Term::Memory).unwrap(), 1.25, 1e-6);
    close(m.coef(Term::StepMemory).unwrap(), 0.30, 1e-6);
    assert_eq!(select_terms(&set), terms);
}

/// The points and terms the page fits on are the set's, freshly evaluated: every expressed
/// point's link analysed again gives its stored ratio and features bit for bit, and the terms
/// selected on them are the stored ones (`./dev validate --write` rewrites them).
#[test]
fn the_stored_points_and_terms_are_a_fresh_evaluation() {
    let (fresh, terms) = roofline::validation::evaluated();
    let (stored, stored_terms) = roofline::validation::stored();
    assert_eq!(fresh.len(), stored.len(), "run ./dev validate --write");
    for ((a, sa, wa, fa, x, f), (b, sb, wb, fb, y, g)) in fresh.iter().zip(stored) {
        let bits = |v: &[f64; 7]| v.map(f64::to_bits);
        assert_eq!(
            (a, sa, wa, fa, x.to_bits(), bits(f)),
            (b, sb, wb, fb, y.to_bits(), bits(g)),
            "{a}: {x} {f:?} against stored {y} {g:?}"
        );
    }
    assert_eq!(terms, stored_terms, "run ./dev validate --write");
}

/// An expectation for a page's row: the fit for the op's kind of work on the chip's family,
/// naming its points and the set's version; never a number without evidence. A 8192³ fp8 GEMM
/// on an H800 (Hopper) gets one; a custom op (no kind of work the set measures), an L4 (no
/// generation in the set) get the reason instead.
#[test]
fn a_rows_expectation_or_why_there_is_none() {
    use roofline::validation::{expectation_for, family_of, Family, SET_VERSION};
    let decode = |q: &str| roofline::url::decode(q).scenario;
    let s = decode("?chip=h800&op=matmul:b=8192,d=8192,f=8192,x=fp8,w=fp8,out=bf16");
    let (op, chip) = (&s.ops[0], &s.chips[0]);
    assert_eq!(family_of(chip), Some(Family::Hopper));
    let a = roofline::analysis::analyze(op, chip, &roofline::Options::default()).unwrap();
    let t = a.t_lower;
    let e = expectation_for(op, chip, &a).unwrap();
    assert!(e.t > t, "an expectation above the bound: {} vs {t}", e.t);
    // A compute-bound GEMM: the compute coefficient, plus one kernel launch's overhead (µs)
    // over its bound where the model keeps that term.
    let coef = |term| e.model.coef(term).unwrap_or(0.0);
    use roofline::validation::Term;
    let r = coef(Term::Compute) + coef(Term::Launch) * 1e-6 / t;
    assert!((e.r - r).abs() < 1e-12 * r, "{} against {r}", e.r);
    assert!(e.lo.unwrap() <= e.t && e.t <= e.hi.unwrap());
    assert!(e.based_on.len() >= 4);
    assert_eq!(e.set_version, SET_VERSION);
    let custom = decode("?chip=h100&op=custom");
    let bare = |s: &roofline::Scenario| {
        roofline::analysis::analyze(&s.ops[0], &s.chips[0], &roofline::Options::default()).unwrap()
    };
    let why = expectation_for(&custom.ops[0], &custom.chips[0], &bare(&custom)).unwrap_err();
    assert!(why.contains("measures no operation of this kind"), "{why}");
    let l4 = decode("?chip=l4&op=matmul");
    let why = expectation_for(&l4.ops[0], &l4.chips[0], &bare(&l4)).unwrap_err();
    assert!(why.contains("no measurements on L4"), "{why}");
    // Every preset either has a family or is knowingly left without one.
    for id in roofline::chip::preset_ids() {
        let fam = family_of(&roofline::chip::preset(id).unwrap());
        let without = [
            "l4",
            "mi355x",
            "trn2",
            "trn3",
            "gaudi3",
            "rtx-5090",
            "rtx-pro-6000",
        ];
        assert_eq!(fam.is_none(), without.contains(&id), "{id}");
    }
}

/// The multi-chip term's feature, by hand: a Llama 2 7B decode step at batch 1 runs two
/// all-reduces per layer (after attention and after the MLP), 2 × 32 = 64 collectives; over a
/// group of `n` chips each counts `log2 n` µs per µs of coefficient. At TP 8 and a measured
/// 3.04 ms per token (gpt-fast), the feature is 64 × 3 × 1 µs / 3.04 ms = 0.0632, so the fitted
/// 12.4 µs per collective and doubling adds 0.78 to the ratio; at TP 2 a third of that, at
/// TP 1 nothing.
#[test]
fn the_latency_per_collective_counts_each_doubling_of_the_group() {
    let feature = |tp: u32| {
        let q = format!(
            "?chip=a100&op=llm:preset=custom,layers=32,dmodel=4096,ffn=11008,gated=yes,heads=32,\
             kv_heads=32,head_dim=128,vocab=32000,phase=decode,b=1,ctx=105,tp={tp},link=nvlink,\
             w=bf16,x=bf16,kv=bf16"
        );
        let s = roofline::url::decode(&q).scenario;
        let (op, chip) = (&s.ops[0], &s.chips[0]);
        let a = roofline::analysis::analyze(op, chip, &roofline::Options::default()).unwrap();
        Features::of(op, &a, 3.04e-3, 1.0).multi_chip
    };
    close(feature(8), 64.0 * 3.0 * 1e-6 / 3.04e-3, 1e-9);
    close(feature(4), 64.0 * 2.0 * 1e-6 / 3.04e-3, 1e-9);
    close(feature(2), 64.0 * 1e-6 / 3.04e-3, 1e-9);
    assert_eq!(feature(1), 0.0);
    assert_eq!(
        Term::MultiChip.x(&Features {
            multi_chip: 0.5,
            ..Features::default()
        }),
        0.5
    );
}
