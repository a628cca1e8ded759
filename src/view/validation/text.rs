//! The validation view's sentences: each summary, term, family factor, kind band, tail and the
//! old figure in words, with their percentages, as the view's lines and the report print them.

use roofline::validation::{
    binomial_range, FamilyFactor, KindBand, Summary, TailSummary, TermReport,
};

/// A summary line: `gemm: 9 points, 9 expressed (100%); measured / bound median 1.52;
/// held-out error of the expected time: median 12.9%, p90 28.9% (9 points with an
/// expectation)`.
pub fn summary_text(s: &Summary) -> String {
    let pct = |x: Option<f64>| x.map_or("—".into(), |v| format!("{:.1}%", 100.0 * v));
    format!(
        "{}: {} points, {} expressed ({:.0}%); measured / bound median {}; held-out error of \
         the expected time: median {}, p90 {} ({} with an expectation)",
        s.label,
        s.total,
        s.expressed,
        100.0 * s.coverage,
        s.median_ratio.map_or("—".into(), |r| format!("{r:.2}")),
        pct(s.median_abs_error),
        pct(s.p90_abs_error),
        match s.with_expectation {
            1 => "1 point".to_string(),
            n => format!("{n} points"),
        }
    )
}

/// A term's line: `compute (achievable fraction of peak FLOP/s): kept, coefficient 1.526 (at
/// 65.5%), explains 31.3% of the bare roofline's residual; held out with it: median 22.8%, p90
/// 52.1%`.
pub fn term_text(t: &TermReport) -> String {
    let pct = |v: f64| format!("{:.1}%", 100.0 * v);
    let at = match t.term {
        roofline::validation::Term::Compute
        | roofline::validation::Term::Memory
        | roofline::validation::Term::Network => format!(" (at {})", pct(1.0 / t.coef)),
        roofline::validation::Term::Launch => " µs per launch".into(),
        roofline::validation::Term::Step => " ms per step".into(),
        roofline::validation::Term::MultiChip => {
            " µs per collective per doubling of the group (log2 of TP × EP)".into()
        }
        roofline::validation::Term::StepMemory => {
            " added to the memory coefficient in an LLM step".into()
        }
        roofline::validation::Term::StepCompute => {
            " added to the compute coefficient in an LLM step".into()
        }
        roofline::validation::Term::Moe => " added to the ratio".into(),
        roofline::validation::Term::Fp8Training => {
            " per unit of an FP8 training step's compute time over its bound".into()
        }
        roofline::validation::Term::EpOverlap => {
            " of the share an expert-parallel step's two micro-batches hide, taken off".into()
        }
        roofline::validation::Term::CollLatency => {
            " × NCCL's own latency per call (v2.20.5's cost model)".into()
        }
    };
    format!(
        "{} ({}): {}, coefficient {:.3}{at}, explains {} of the bare roofline's residual; held \
         out with it: median {}, p90 {}",
        t.term.id(),
        t.term.label(),
        if t.kept {
            "kept"
        } else {
            "left out (it does not lower both held-out errors)"
        },
        t.coef,
        pct(t.share),
        pct(t.median),
        pct(t.p90)
    )
}

fn pct(v: f64) -> String {
    format!("{:.1}%", 100.0 * v)
}

fn pct_or(v: Option<f64>) -> String {
    v.map_or("—".into(), pct)
}

/// A group's band coverage: `gemm: 19 of 24 points with a band measured inside it (79.2%);
/// the central 95% binomial range around 80% of 24 is 15–23: met`.
pub fn coverage_text(s: &Summary) -> String {
    if s.with_band == 0 {
        return format!("{}: no point has a held-out band", s.label);
    }
    let (lo, hi) = binomial_range(s.with_band, 0.8, 0.95);
    let share = s.covered as f64 / s.with_band as f64;
    let (target, met) = if s.label == "all" {
        (
            "the target is 75–85%".to_string(),
            (0.75..=0.85).contains(&share),
        )
    } else {
        (
            format!(
                "the central 95% binomial range around 80% of {} is {lo}–{hi}",
                s.with_band
            ),
            (lo..=hi).contains(&s.covered),
        )
    };
    format!(
        "{}: {} of {} points with a band measured inside their own held-out p10–p90 band ({}); {target}: {}",
        s.label,
        s.covered,
        s.with_band,
        pct(share),
        if met { "met" } else { "missed" }
    )
}

/// A family factor and what decided it: `hopper: factor 1.25 pooled (each of its 97 points
/// with a factor from the other sources: median 29.8%, p90 57.8% against 25.9%, 59.5%
/// without)`.
pub fn factor_text(f: &FamilyFactor) -> String {
    if f.tried_on == 0 {
        return format!(
            "{}: pooled (no point has {} other points of its family from other sources to give it a factor)",
            f.family.id(),
            roofline::validation::MIN_POINTS
        );
    }
    format!(
        "{}: factor {:.3} {} (each of its {} points with a factor from the other sources' points of the family: held-out median {}, p90 {}, against {}, {} without)",
        f.family.id(),
        f.factor,
        if f.kept {
            "kept: both figures lower with it"
        } else {
            "not kept, the family is pooled: it does not lower both figures"
        },
        f.tried_on,
        pct(f.with.0),
        pct(f.with.1),
        pct(f.without.0),
        pct(f.without.1)
    )
}

/// A kind's bias and band and what decided them.
pub fn kind_text(k: &KindBand) -> String {
    format!(
        "{}: {} residuals from {} sources; bias {} ({}: held-out median {}, p90 {} with it against {}, {} without); band {:.3}–{:.3} of the expectation ({})",
        k.work.as_str(),
        k.n,
        k.sources,
        if k.kept {
            format!("{:.3}", k.bias)
        } else {
            "none".to_string()
        },
        if k.kept { "kept" } else { "not kept" },
        pct(k.with.0),
        pct(k.with.1),
        pct(k.without.0),
        pct(k.without.1),
        k.lo,
        k.hi,
        if k.pooled_band {
            "every kind's residuals: this kind's come from too few sources"
        } else {
            "this kind's residuals"
        }
    )
}

/// A tail's nested error with and without the tails' terms, and the old figure.
pub fn tail_text(t: &TailSummary) -> String {
    format!(
        "{} ({} points, {} with a held-out expectation): nested |error| median {}, p90 {} with the tails' terms; {}, {} without them; the old figure {}, {}",
        t.tail.label(),
        t.total,
        t.with_expectation,
        pct_or(t.with_terms.0),
        pct_or(t.with_terms.1),
        pct_or(t.without_terms.0),
        pct_or(t.without_terms.1),
        pct_or(t.old.0),
        pct_or(t.old.1)
    )
}

/// The old figure, named for what it is.
pub fn old_text(s: &Summary) -> String {
    format!(
        "Before the nested hold-out (terms chosen on every point, its own source included; each point's model fitted without its source; no family factor or kind bias): median {}, p90 {}. The figures above are nested: nothing of a point's source enters its expectation.",
        pct_or(s.old_median_abs_error),
        pct_or(s.old_p90_abs_error)
    )
}
