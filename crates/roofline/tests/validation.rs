//! The validation set (issue 25): its integrity (sources, quotes, conditions, links that decode
//! and analyse), and the calibration on synthetic sets whose answer is known.

use roofline::validation::{
    fit, points, predict, report, Compared, Family, Obs, Work, MIN_POINTS, SET_VERSION,
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
            assert!(e.based_on.len() >= MIN_POINTS, "{}", row.point.id);
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
}

fn obs(id: &'static str, source: &'static str, family: Family, ratio: f64) -> Obs {
    Obs {
        id,
        source,
        work: Work::Gemm,
        family,
        ratio,
    }
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
    let e = fit(&set, Work::Gemm, Family::Hopper, 2e-3, Some("s1")).unwrap();
    assert_eq!(e.r, 1.25);
    assert_eq!(e.t, 2.5e-3);
    // measured = 1.25 × t_lower: the held-out error is zero and the band has no width.
    assert_eq!(e.t / (1.25 * 2e-3) - 1.0, 0.0);
    assert_eq!((e.lo, e.hi), (e.t, e.t));
    assert_eq!(e.based_on, vec!["b", "c", "d", "e"]);
    assert_eq!(e.borrowed_from, None);
    assert_eq!(e.set_version, SET_VERSION);
}

#[test]
fn holding_out_by_source_drops_every_point_of_the_source() {
    // Source "fast" has five points at 1.0; four other sources one point each at 2.0. Fitted on
    // everything the median is 1.0; leaving out only f1 it is 1.5 (four 1.0s, four 2.0s); held
    // out by source (every "fast" point dropped) it is 2.0.
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
    let all = fit(&set, Work::Gemm, Family::Hopper, 1.0, None).unwrap();
    assert_eq!(all.r, 1.0);
    let held = fit(&set, Work::Gemm, Family::Hopper, 1.0, Some("fast")).unwrap();
    assert_eq!(held.r, 2.0, "not 1.5: every point of the source is out");
    assert_eq!(held.based_on, vec!["o1", "o2", "o3", "o4"]);
    // With only one other source left, there is no evidence: no expectation.
    assert!(fit(&set[..6], Work::Gemm, Family::Hopper, 1.0, Some("fast")).is_none());
}

#[test]
fn a_family_with_too_few_points_borrows_the_kinds_pool_and_says_so() {
    let set = [
        obs("h1", "s1", Family::Hopper, 1.5),
        obs("h2", "s2", Family::Hopper, 1.5),
        obs("a1", "s3", Family::Ampere, 1.1),
        obs("a2", "s4", Family::Ampere, 1.1),
        obs("a3", "s5", Family::Ampere, 1.1),
    ];
    let e = fit(&set, Work::Gemm, Family::Hopper, 1.0, None).unwrap();
    assert_eq!(e.r, 1.1, "median of 1.5, 1.5, 1.1, 1.1, 1.1");
    assert!(e.borrowed_from.as_deref().unwrap().contains("hopper has 2"));
    assert_eq!(e.based_on.len(), 5);
    // A family with no point of the kind borrows nothing: no expectation.
    assert!(fit(&set, Work::Gemm, Family::Tpu, 1.0, None).is_none());
    // Another kind of work is never pooled in, and three points are not evidence.
    assert!(fit(&set, Work::Memory, Family::Hopper, 1.0, None).is_none());
    assert!(fit(&set[..3], Work::Gemm, Family::Hopper, 1.0, None).is_none());
}

#[test]
fn the_band_is_the_spread_of_held_out_residuals() {
    // Ratios 1, 2, 3, 4, 5 from five sources: r = 3; each point's residual is its ratio over
    // the median of the other four (3.5, 3.5, 3, 2.5, 2.5 → 2/7, 4/7, 1, 1.6, 2); p10 and p90
    // interpolate at positions 0.4 and 3.6 of the sorted residuals.
    let set = [
        obs("a", "a", Family::Tpu, 1.0),
        obs("b", "b", Family::Tpu, 2.0),
        obs("c", "c", Family::Tpu, 3.0),
        obs("d", "d", Family::Tpu, 4.0),
        obs("e", "e", Family::Tpu, 5.0),
    ];
    let e = fit(&set, Work::Gemm, Family::Tpu, 1.0, None).unwrap();
    assert_eq!(e.r, 3.0);
    let lo = 3.0 * (2.0 / 7.0 + 0.4 * (4.0 / 7.0 - 2.0 / 7.0)); // 1.2
    let hi = 3.0 * (1.6 + 0.6 * (2.0 - 1.6)); // 5.52
    assert!((e.lo - lo).abs() < 1e-12, "{} vs {lo}", e.lo);
    assert!((e.hi - hi).abs() < 1e-12, "{} vs {hi}", e.hi);
    assert!(e.lo < e.t && e.t < e.hi);
}

/// The ratios the page fits on are the set's, freshly evaluated: every expressed point's link
/// analysed again gives its stored ratio bit for bit (`./dev validate --write` rewrites them).
#[test]
fn the_stored_ratios_are_a_fresh_evaluation() {
    let fresh = roofline::validation::evaluated_ratios();
    let stored = roofline::validation::stored_ratios();
    assert_eq!(fresh.len(), stored.len(), "run ./dev validate --write");
    for ((a, x), (b, y)) in fresh.iter().zip(stored) {
        assert_eq!(
            (a, x.to_bits()),
            (b, y.to_bits()),
            "{a}: {x} against stored {y}"
        );
    }
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
    let t = roofline::analysis::t_lower(op, chip, &roofline::Options::default()).unwrap();
    let e = expectation_for(op, chip, t).unwrap();
    assert!(e.t > t, "an expectation above the bound: {} vs {t}", e.t);
    assert!(e.lo <= e.t && e.t <= e.hi);
    assert!(e.based_on.len() >= 4);
    assert_eq!(e.set_version, SET_VERSION);
    let custom = decode("?chip=h100&op=custom");
    let why = expectation_for(&custom.ops[0], &custom.chips[0], 1e-3).unwrap_err();
    assert!(why.contains("measures no operation of this kind"), "{why}");
    let l4 = decode("?chip=l4&op=matmul");
    let why = expectation_for(&l4.ops[0], &l4.chips[0], 1e-3).unwrap_err();
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
