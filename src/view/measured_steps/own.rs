//! The user's own engine (`engine=own:<terms>`): its fit in words, and its timing of the load
//! model's states (the core's).

use roofline::units::{format_sig, Unit};

use super::super::names::pretty;

/// The own engine's fit in words: its terms with their standard errors, what it was fitted
/// on, how much closer it comes than the bare roofline.
pub fn fit_lines(f: &roofline::profile::StepFit) -> Vec<String> {
    let e = &f.engine;
    let se = |x: Option<f64>| match x {
        Some(v) if v.is_finite() => format!(" ±{} %", format_sig(100.0 * v, 2)),
        Some(_) => " (not determined)".into(),
        None => String::new(),
    };
    let factor = |name: &str, v: f64, err: Option<f64>, held: &str| match err {
        None => format!("{name} ×1 ({held})"),
        Some(_) => format!("{name} ×{}{}", format_sig(v, 3), se(err)),
    };
    vec![
        format!(
            "{}: {}, {}, {}, {} per step{}",
            e.rounded().format(),
            factor(
                "compute",
                e.compute,
                f.errors[0],
                "no compute-bound part: held"
            ),
            factor(
                "memory",
                e.memory,
                f.errors[1],
                "no memory-bound part: held"
            ),
            factor(
                "collectives",
                e.network,
                f.errors[2],
                "no step crosses a link: held"
            ),
            pretty(e.step, Unit::Seconds),
            se(f.errors[3])
        ),
        format!(
            "fitted on {} steady steps of {} distinct shapes; RMS log error {} with the bare \
             roofline, {} with this engine",
            f.used,
            f.shapes,
            format_sig(f.rms_before, 2),
            format_sig(f.rms_after, 2)
        ),
    ]
}

/// The user's own engine as the load model reads a state's times: the core's
/// ([`roofline::validation::load::own::OwnTiming`]), which the serving row and the load plot
/// read under a load.
pub use roofline::validation::load::own::OwnTiming;
