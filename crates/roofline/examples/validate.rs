//! The validation set's report (issues 25 and 39): the nested hold-out's figures per kind of
//! work, per chip family, per source and overall (coverage, the bare roofline's median
//! measured / predicted, the held-out error of the expectation, the band's coverage), the old
//! (not nested) figure beside them, the family factors and the kind biases with what decided
//! them, each tail with and without its terms, every point's row, and the targets.
//!
//! `cargo run -p roofline --release --example validate --locked` (or `./dev validate`);
//! with `--write`, it first runs the whole procedure fresh (on every point, then without each
//! source, with and without the tails' terms) and rewrites `src/validation/fitted.rs`, the
//! stored points and fits the page and the report read (tests/it/validation.rs checks they
//! match a fresh evaluation). The sections are written by `roofline::validation::text`, which
//! `roofline validate` (crates/roofline-cli) prints too; here each is timed.

use roofline::results::validated::{evaluated, report};
use roofline::validation::{fresh_fits, text, FitRecord};

/// A float as Rust source: `{:?}` (the shortest text that reads back to the same bits), NaN
/// as `f64::NAN`.
fn lit(x: f64) -> String {
    if x.is_nan() {
        "f64::NAN".into()
    } else {
        format!("{x:?}")
    }
}

fn fit_source(name: &str, f: &FitRecord) -> String {
    let terms: Vec<String> = f.terms.iter().map(|t| format!("Term::{t:?}")).collect();
    let coef: Vec<String> = f.coef.iter().map(|c| lit(*c)).collect();
    let families: Vec<String> = f
        .families
        .iter()
        .map(|g| {
            format!(
                "FamilyFactor {{ family: Family::{:?}, factor: {}, tried_on: {}, without: ({}, {}), with: ({}, {}), kept: {} }}",
                g.family,
                lit(g.factor),
                g.tried_on,
                lit(g.without.0),
                lit(g.without.1),
                lit(g.with.0),
                lit(g.with.1),
                g.kept
            )
        })
        .collect();
    let kinds: Vec<String> = f
        .kinds
        .iter()
        .map(|k| {
            format!(
                "KindBand {{ work: MeasureKind::{:?}, n: {}, sources: {}, bias: {}, without: ({}, {}), with: ({}, {}), kept: {}, pooled_band: {}, lo: {}, hi: {} }}",
                k.work,
                k.n,
                k.sources,
                lit(k.bias),
                lit(k.without.0),
                lit(k.without.1),
                lit(k.with.0),
                lit(k.with.1),
                k.kept,
                k.pooled_band,
                lit(k.lo),
                lit(k.hi)
            )
        })
        .collect();
    format!(
        "{name}StoredFit {{ held_out: {:?}, terms: &[{}], coef: &[{}], families: &[{}], kinds: &[{}] }}",
        f.held_out,
        terms.join(", "),
        coef.join(", "),
        families.join(", "),
        kinds.join(", ")
    )
}

/// The freshly evaluated points as the fit sees them.
fn evaluated_observations() -> Vec<roofline::validation::Obs> {
    evaluated()
        .iter()
        .map(
            |&(id, source, chip, work, family, ratio, f)| roofline::validation::Obs {
                id,
                source,
                chip,
                work,
                family,
                ratio,
                features: roofline::validation::Features::from_array(f),
            },
        )
        .collect()
}

/// Writes the stored points and fits (`src/validation/fitted.rs`).
fn write_fitted() {
    let points = evaluated();
    let fits = fresh_fits(&evaluated_observations()).expect("the set has enough points to fit");
    let mut out = String::from(
        "//! Each expressed point's measured / predicted ratio and features, and the calibration\n\
         //! procedure's fits on them: on every point (the page's) and without each source (the\n\
         //! nested hold-out, with and without the tails' terms, and the old figure's folds).\n\
         //! Written by `./dev validate --write`; `tests/it/validation.rs` checks they equal a\n\
         //! fresh evaluation, bit for bit. Thousands of lines on purpose: generated data, as\n\
         //! rustfmt lays it out.\n\n\
         use super::{Family, FamilyFactor, KindBand, StoredFit, StoredPoint, Term, MeasureKind};\n\n\
         /// `(point id, source key, chip, kind of work, family, measured / predicted, [compute,\n\
         /// memory, network, launch, step, multi-chip, moe, narrow training, EP overlap,\n\
         /// collective latency])`.\n\
         pub(super) const POINTS: &[StoredPoint] = &[\n",
    );
    for (id, source, chip, work, family, r, f) in points {
        let f: Vec<String> = f.iter().map(|x| lit(*x)).collect();
        out.push_str(&format!(
            "    ({id:?}, {source:?}, {chip:?}, MeasureKind::{work:?}, Family::{family:?}, {}, [{}]),\n",
            lit(r),
            f.join(", ")
        ));
    }
    out.push_str("];\n\n/// The procedure on every point: the page's calibration.\n");
    out.push_str(&format!(
        "pub(super) const PAGE: StoredFit = {};\n",
        fit_source("", &fits.page)
    ));
    for (name, doc, list) in [
        (
            "NESTED",
            "The procedure without each source (the nested hold-out).",
            &fits.nested,
        ),
        (
            "WITHOUT_TAILS",
            "The same with the candidates left without the tails' terms.",
            &fits.without_tails,
        ),
        (
            "OLD",
            "The old figure's folds: the page's terms fitted without each source.",
            &fits.old,
        ),
    ] {
        out.push_str(&format!(
            "\n/// {doc}\npub(super) const {name}: &[StoredFit] = &[\n"
        ));
        for f in list {
            out.push_str(&format!("    {},\n", fit_source("", f)));
        }
        out.push_str("];\n");
    }
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/validation/fitted.rs");
    std::fs::write(path, out).expect("write src/validation/fitted.rs");
    // As `cargo fmt` leaves it, so the tree stays formatted.
    match std::process::Command::new("rustfmt")
        .args(["--edition", "2021", path])
        .status()
    {
        Ok(s) if s.success() => eprintln!("wrote {path}: run ./dev validate again to report it"),
        _ => eprintln!("wrote {path}; rustfmt failed: run cargo fmt"),
    }
}

/// The serving-at-load set (issue 40): coverage, per engine and generation the held-out error
/// of the expectation against the targets, the page's fits with their standard errors;
/// with `--write`, `src/validation/load/fitted.rs` rewritten from them.
fn serving_at_load(write: bool) {
    use roofline::validation::load::report;
    let t0 = std::time::Instant::now();
    let r = report::report_of(&roofline::validation::load::row_inputs());
    print!("{}", text::load_text(&r, Some(t0.elapsed().as_secs_f64())));
    if write {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/validation/load/fitted.rs");
        std::fs::write(path, report::fitted_source(&r.fits)).expect("write load/fitted.rs");
        match std::process::Command::new("rustfmt")
            .args(["--edition", "2021", path])
            .status()
        {
            Ok(s) if s.success() => eprintln!("wrote {path}"),
            _ => eprintln!("wrote {path}; rustfmt failed: run cargo fmt"),
        }
    }
}

fn main() {
    let arg = |a: &str| std::env::args().any(|x| x == a);
    if arg("--write") {
        write_fitted();
        serving_at_load(true);
        return;
    }
    // --write-load: only the serving-at-load set's fits (a minute; the published set's nested
    // fits take many more), when only what the load fit reads has changed.
    if arg("--write-load") {
        serving_at_load(true);
        return;
    }
    // --fresh: the report from a fresh run of every fit instead of the stored ones (what
    // --write would store); --check: also say whether the stored fits equal that fresh run.
    let r = if arg("--fresh") || arg("--check") {
        let fresh = fresh_fits(&evaluated_observations()).expect("the set has enough points");
        if arg("--check") {
            let same = format!("{:?}", fresh)
                == format!("{:?}", roofline::validation::stored_fits())
                && roofline::validation::stored() == evaluated().as_slice();
            println!(
                "stored points and fits against a fresh run: {}",
                if same {
                    "equal"
                } else {
                    "DIFFERENT: run ./dev validate --write"
                }
            );
        }
        roofline::results::validated::report_with(&fresh)
    } else {
        report()
    };
    print!("{}", text::report_text(&r));
    println!();
    serving_at_load(false);
    println!();
    disaggregated();
}

/// The serving-at-load set's disaggregated rows (issue 42): coverage by the rule's reasons, and
/// per engine and generation the simulated deployment's TTFT and TPOT against the measured,
/// each step read by the engines' fits held out by (model, system) group, and by the bound.
fn disaggregated() {
    let t0 = std::time::Instant::now();
    let r = roofline::validation::load::disagg::report();
    print!(
        "{}",
        text::disagg_text(&r, Some(t0.elapsed().as_secs_f64()))
    );
}
