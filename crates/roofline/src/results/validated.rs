//! The validation set evaluated through the result store (issue 41): each point's link decoded
//! into a scenario, its op 1 on chip 1 computed by [`Results`] exactly as the page computes a
//! row, the compared figure ([`Compared`]) read from the store's pair, and the set's report
//! built on those rows ([`crate::validation::report_of`]).
//!
//! Inside the store's module, above the store: the store reads the set's stored calibration
//! ([`crate::validation`]: the expected times and bands of a row), and this module reads the
//! store, so `validation` never imports `results`. What the page shows for a point's link and
//! what `./dev validate` compares with its measurement are one computation.

use super::{PairResults, Results, Serving, ServingSteps};
use crate::op::Op;
use crate::url::decode;
use crate::validation::{
    points, report_of, stored_fits, Compared, Features, Fits, Point, Report, Row, Split,
    StoredPoint, Tail,
};

/// The figure a point's scenario predicts, in seconds ([`Point::compared`]): its link decoded
/// (any notice is an error: the link must mean exactly what it says), op 1 on chip 1.
pub fn predict(p: &Point) -> Result<f64, String> {
    predict_with_features(p).map(|(t, _)| t)
}

/// [`predict`] with what the model reads of the figure ([`Features`]): the split of the
/// analysis it comes from (a request's, its prefill's and decode steps' weighted by time).
pub fn predict_with_features(p: &Point) -> Result<(f64, Features), String> {
    let d = decode(p.link);
    if !d.notices.is_empty() {
        return Err(format!("the link has notices: {}", d.notices.join("; ")));
    }
    let mut s = d.scenario;
    let Some(op) = s.ops.first().cloned() else {
        return Err("the link has no op or no chip".into());
    };
    // Op 1 on chip 1 only: a store of the one pair the point compares.
    s.ops.truncate(1);
    s.chips.truncate(1);
    let mut store = Results::of(&s);
    let pair = store
        .get(0, 0)
        .cloned()
        .ok_or("the link has no op or no chip")?;
    let a = pair.analysis.as_ref().map_err(|e| e.to_string())?;
    let (t, f) = match p.compared {
        Compared::TLower => (a.t_lower, Features::of(&op, a, a.t_lower, 1.0)),
        Compared::Tpot => {
            let t = serve(&pair)?.tpot;
            (t, Features::of(&op, &steps(&pair)?.decode, t, 1.0))
        }
        Compared::Ttft => {
            let t = serve(&pair)?.ttft;
            (t, Features::of(&op, &steps(&pair)?.prefill, t, 1.0))
        }
        Compared::PerOutputToken => {
            let first = serve(&pair)?;
            let b = first.batch.min(first.max_batch.floor());
            if b < 1.0 {
                return Err("no sequence fits in memory".into());
            }
            // The same store, brought to the op at the batch that fits (a batch that already
            // fits is the same pair, not computed again).
            let mut at_b: Op = op.clone();
            at_b.set("b", &format!("{b}")).map_err(|e| e.to_string())?;
            s.ops = vec![at_b.clone()];
            store.update(&s);
            let pair = store.get(0, 0).ok_or("the link has no op or no chip")?;
            let v = serve(pair)?;
            let t = v.request_latency / (v.batch * v.output);
            let st = steps(pair)?;
            let split = Split::mix(
                Split::of(&st.prefill),
                v.ttft,
                Split::of(&st.decode),
                (v.output - 1.0) * v.tpot,
            );
            (
                t,
                Features::from_split(split, &at_b, &st.decode, t, 1.0 / v.batch),
            )
        }
    };
    if t.is_finite() && t > 0.0 {
        Ok((t, f))
    } else {
        Err(format!("the predicted figure is {t}"))
    }
}

/// The pair's serving figures, or why there are none.
fn serve(pair: &PairResults) -> Result<&Serving, String> {
    let Some(s) = &pair.serving else {
        return Err("a serving figure of an op that is not an llm".to_string());
    };
    s.figures
        .as_ref()
        .map_err(|e| e.to_string())?
        .as_ref()
        .ok_or_else(|| "a serving figure of an op that is not an llm".to_string())
}

/// The pair's serving steps under its options, or why there are none.
fn steps(pair: &PairResults) -> Result<&ServingSteps, String> {
    let s = pair.serving.as_ref().ok_or("not an llm")?;
    s.steps.as_ref().map_err(|e| e.clone())
}

/// Every point of the set, predicted: its ratio and features, no expectation yet
/// ([`report_with`] fills them).
pub fn evaluate() -> Vec<Row> {
    points()
        .into_iter()
        .map(|p| {
            let predicted = match p.expressible {
                Ok(()) => predict_with_features(p),
                Err(why) => Err(why.to_string()),
            };
            let ratio = predicted.as_ref().ok().map(|(t, _)| p.measured_s / t);
            Row {
                point: p,
                features: predicted.as_ref().ok().map(|(_, f)| *f),
                predicted: predicted.map(|(t, _)| t),
                ratio,
                held_out: None,
                error: None,
                covered: None,
                old_error: None,
                without_tails_error: None,
                tail: Tail::of(p),
            }
        })
        .collect()
}

/// Every expressed point's ratio and features, freshly evaluated (each link through the
/// store): what `fitted.rs`'s points must equal, and what `./dev validate --write` writes
/// there.
pub fn evaluated() -> Vec<StoredPoint> {
    evaluate()
        .iter()
        .filter_map(|r| {
            let p = r.point;
            Some((
                p.id,
                p.source_key,
                p.chip(),
                p.work,
                p.family,
                r.ratio?,
                r.features?.to_array(),
            ))
        })
        .collect()
}

/// Evaluates the set: predictions, ratios, each point's expectation held out by source
/// (nested), from the stored fits ([`stored_fits`]: `tests/it/validation.rs` checks they equal
/// a fresh run of the procedure), so the report costs the set's analyses, not its fits.
pub fn report() -> Report {
    report_with(&stored_fits())
}

/// [`report`] from the fits given ([`crate::validation::fresh_fits`] for a fresh run).
pub fn report_with(fits: &Fits) -> Report {
    report_of(evaluate(), fits)
}

/// The whole report, as `./dev validate` prints it but for the sections' timings. With the
/// `sources` feature only, as the serving-at-load set's rows.
#[cfg(feature = "sources")]
pub fn full_report() -> String {
    crate::validation::text::full_report_of(&report())
}
