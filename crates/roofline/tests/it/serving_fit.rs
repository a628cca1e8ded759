//! The serving-at-load set's fit (`roofline::validation::load`, issue 40): the nested hold-out
//! never lets a group see its own rows, the fit recovers a model it was built from, the stored
//! fits are a fresh fit of the rows with the stored choices, and an expectation names its basis
//! and its fallback.

use roofline::op::Engine;
use roofline::serving::Decomp;
use roofline::validation::load::fit::{choose, fit_choice, nested, Choice, Scope};
use roofline::validation::load::{
    expectation_with, features_of, report, stored_fits, EngineFit, Figure, FigureObs, LoadObs,
};
use roofline::validation::{Basis, Family, Term};
use roofline::{preset, Op, Options};

/// An observation of `group` whose TPOT bound splits `compute` / `1 − compute` and whose
/// measured TPOT is `ratio` times it.
fn obs(group: usize, i: usize, engine: Engine, compute: f64, ratio: f64) -> LoadObs {
    let d = Decomp {
        t: 0.01,
        by_bound: [0.01 * compute, 0.01 * (1.0 - compute), 0.0],
        steps: 1.0,
        collectives: 0.0,
    };
    let f = features_of(&d, 1.0, false, 0.0);
    let x = FigureObs {
        measured: 0.01 * ratio,
        bound: 0.01,
        ratio,
        features: f,
    };
    LoadObs {
        id: format!("g{group}-{i}"),
        group: format!("g{group}"),
        engine,
        family: Some(if group % 2 == 0 {
            Family::Hopper
        } else {
            Family::Blackwell
        }),
        chip: "h100".into(),
        ttft: Some(x),
        tpot: Some(x),
    }
}

/// Rows made by `measured / bound = 1.5·compute + 2·memory` exactly: the fit recovers the two
/// coefficients, every held-out error is 0, and a group made 3× slower than the rest is
/// predicted from the others only, so its held-out error is −2/3 (expected 1/3 of measured).
#[test]
fn nested_hold_out_never_sees_a_group() {
    let mut rows = Vec::new();
    for g in 0..8 {
        for i in 0..4 {
            let c = (g * 4 + i) as f64 / 32.0;
            let r = 1.5 * c + 2.0 * (1.0 - c);
            rows.push(obs(g, i, Engine::Vllm, c, if g == 5 { 3.0 * r } else { r }));
        }
    }
    let refs: Vec<&LoadObs> = rows.iter().filter(|o| o.group != "g5").collect();
    let choice = Choice {
        terms: Term::RESOURCES.to_vec(),
        scope: Scope::Pooled,
        bias: false,
    };
    let m = fit_choice(&refs, Figure::Tpot, &choice, 1.0).unwrap();
    let coef = |t: Term| m.pooled.coef(t).unwrap();
    assert!((coef(Term::Compute) - 1.5).abs() < 1e-6, "{:?}", m.pooled);
    assert!((coef(Term::Memory) - 2.0).abs() < 1e-6, "{:?}", m.pooled);
    let held = nested(&rows);
    assert_eq!(held.len(), 2 * rows.len());
    for h in &held {
        let g5 = rows[h.row].group == "g5";
        if g5 {
            assert!((h.error + 2.0 / 3.0).abs() < 0.05, "g5 {h:?}");
        } else {
            assert!(h.error.abs() < 0.05, "{} {h:?}", rows[h.row].group);
        }
        assert_eq!(h.engine, Engine::Vllm);
    }
    // The choices made on the clean rows keep the resources alone.
    let (c, _) = choose(&refs, Figure::Tpot).unwrap();
    assert_eq!(&c.terms[..3], &Term::RESOURCES);
}

/// An engine whose rows all sit in the held-out fold has no model of its own there: its rows
/// fall back to `generic` (every engine's training rows), and say so.
#[test]
fn an_engine_without_another_group_falls_back_to_generic() {
    let mut rows = Vec::new();
    for g in 0..6 {
        for i in 0..4 {
            let c = (g * 4 + i) as f64 / 24.0;
            rows.push(obs(g, i, Engine::Vllm, c, 1.2 + c));
        }
    }
    // One SGLang group: in its fold no other SGLang group trains.
    for i in 0..4 {
        rows.push(obs(99, i, Engine::Sglang, 0.5, 1.7));
    }
    let held = nested(&rows);
    let sg: Vec<_> = held
        .iter()
        .filter(|h| rows[h.row].engine == Engine::Sglang)
        .collect();
    assert!(!sg.is_empty());
    assert!(sg.iter().all(|h| h.engine == Engine::Generic), "{sg:?}");
}

/// The stored fits (`fitted.rs`) are the fit of the set's rows with the stored choices: each
/// engine's and figure's coefficients, refitted on a fresh evaluation of every row.
#[test]
fn stored_fits_are_a_fresh_fit() {
    let stored = stored_fits();
    assert!(stored.len() >= 4, "{} stored fits", stored.len());
    let inputs = roofline::validation::load::row_inputs();
    let obs: Vec<LoadObs> = inputs
        .iter()
        .flatten()
        .filter(|r| r.twin_of.is_none())
        .filter_map(|r| roofline::validation::load::observe(r).ok())
        .collect();
    for f in &stored {
        let rows = roofline::validation::load::fit::of_engine(&obs, f.engine);
        assert_eq!(rows.len(), f.rows, "{:?} rows", f.engine);
        for (fig, m) in [(Figure::Ttft, &f.ttft), (Figure::Tpot, &f.tpot)] {
            let fresh = fit_choice(&rows, fig, &m.choice, m.bias).unwrap();
            let same = |a: &roofline::validation::TermFit, b: &roofline::validation::TermFit| {
                report::same_model(a, b, 1e-9)
            };
            assert!(
                same(&fresh.pooled, &m.pooled),
                "{:?} {fig:?}: {:?} vs {:?}",
                f.engine,
                fresh.pooled,
                m.pooled
            );
            assert_eq!(fresh.by_family.len(), m.by_family.len());
            for ((fa, a), (fb, b)) in fresh.by_family.iter().zip(&m.by_family) {
                assert_eq!(fa, fb);
                assert!(same(a, b), "{:?} {fig:?} {fa:?}", f.engine);
            }
        }
    }
}

/// An expectation of a row's own setup: finite, inside its band, its basis the chip's own
/// rows; an engine with no fit of its own takes `generic` and says so; a chip with no
/// generation in the set has none, with the reason.
#[test]
fn expectations_name_their_basis_and_fallback() {
    let fits = stored_fits();
    let h200 = preset("h200").unwrap();
    let opts = Options::default();
    let mut op = Op::default_for("llm").unwrap();
    for (k, v) in [
        ("preset", "llama3.1-70b"),
        ("tp", "8"),
        ("link", "nvlink"),
        ("w", "fp8"),
        ("x", "fp8"),
        ("prompt", "1024"),
        ("output", "1024"),
        ("load", "concurrency"),
        ("c", "64"),
        ("engine", "vllm"),
    ] {
        op.set(k, v).unwrap();
    }
    let e = expectation_with(&fits, &op, &h200, &opts).unwrap();
    assert_eq!(
        (e.engine, e.basis, e.fallback.clone()),
        (Engine::Vllm, Basis::Chip, None)
    );
    let (t, lo, hi) = (e.tpot.unwrap(), e.tpot_lo.unwrap(), e.tpot_hi.unwrap());
    assert!(lo < t && t < hi, "{lo} {t} {hi}");
    assert!(e.ttft.unwrap() > 0.0 && e.requests_per_s.unwrap() > 0.0);
    let only_generic: Vec<EngineFit> = fits
        .iter()
        .filter(|f| f.engine == Engine::Generic)
        .cloned()
        .collect();
    let g = expectation_with(&only_generic, &op, &h200, &opts).unwrap();
    assert_eq!(g.engine, Engine::Generic);
    assert!(g.fallback.unwrap().contains("no vllm fit"));
    let tpu = preset("tpu-v5e").unwrap();
    let mut small = op.clone();
    small.set("preset", "llama3-8b").unwrap();
    let none = expectation_with(&fits, &small, &tpu, &opts).unwrap_err();
    assert!(
        none.contains("has no runs on TPU v5e or its generation"),
        "{none}"
    );
}
