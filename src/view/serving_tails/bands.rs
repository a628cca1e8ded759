//! The load plot's simulated P50–P99 bands (issue 42), in the simulation worker: the serving
//! row's simulation run along the plot's sweep ([`roofline::results::tails::sweep_tails`]) at
//! [`BAND_POINTS`] loads of the link's own engine's curve (the plot's concurrency from 1 to
//! twice the cap, or rate from 1 % to 99 % of saturation) and the link's own load, with
//! [`BAND_REQUESTS`] requests per point (the link's own load: the row's count). The worker
//! answers a scenario's band key ([`band_key`]: the tails' key, asked only while the load plot
//! shows) with [`Bands`] as JSON ([`run_bands`]); the page reads it back ([`read_bands`]) and
//! draws it only over the scenario of the same key. Here, not under `view::load_plot`, because
//! the worker's wasm is built without the load plot.

use roofline::inputs::json::Value;
use roofline::inputs::Scenario;
use roofline::results::sim::{QueuePoint, StepTiming};
use roofline::results::tails::{
    sweep_disagg, sweep_tails, with_own, DisaggSweep, PointTails, SweepPoint, SweepTails,
    BAND_REQUESTS,
};
use roofline::validation::load::page::{load_curve, Axis};
use roofline::validation::load::steps::FittedSteps;
use serde::Serialize;

use super::worker::{sim_key, PageSteps};
use crate::view::serving_load::load_pair;

/// Loads of the sweep besides the link's own (the plot's curves have 64; a band needs fewer:
/// `./dev bench` times a sweep in the page).
pub const BAND_POINTS: usize = 16;

/// The bands' key of a scenario: the tails' key ([`sim_key`]) while it shows the load plot of
/// an `llm` under a load, else `None` (nothing to simulate).
pub fn band_key(s: &Scenario) -> Option<String> {
    if !s.plot.shows_load() {
        return None;
    }
    load_pair(s)?;
    sim_key(s)
}

/// The worker's answer for one scenario's bands.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Bands {
    /// The scenario's key ([`band_key`]).
    pub key: String,
    /// The sweep's tails; `None` with `error`.
    pub sweep: Option<SweepTails>,
    /// Why there are none.
    pub error: Option<String>,
}

/// The bands of the scenario `key` with its steps read by `timing`.
pub fn bands(key: &str, timing: &dyn StepTiming) -> Bands {
    let s = roofline::url::decode(key).scenario;
    let (sweep, error) = match sweep_of(&s, timing) {
        Ok(t) => (Some(t), None),
        Err(why) => (None, Some(why)),
    };
    Bands {
        key: key.into(),
        sweep,
        error,
    }
}

fn sweep_of(s: &Scenario, timing: &dyn StepTiming) -> Result<SweepTails, String> {
    let (op, chip) = load_pair(s).ok_or("no llm operation under a load")?;
    let l = op.llm().ok_or("no llm operation under a load")?;
    let (axis, own) = match l.load {
        roofline::inputs::Load::Rate => (Axis::Rate, l.qps),
        _ => (Axis::Concurrency, l.c),
    };
    let curve =
        load_curve(op, chip, &s.options, l.engine, axis, BAND_POINTS).map_err(|e| e.to_string())?;
    let xs: Vec<f64> = curve.points.iter().map(|p| p.x).collect();
    let xs = with_own(&xs, own, l.load);
    let mut sweep = sweep_tails(op, chip, &s.options, timing, &xs, BAND_REQUESTS)
        .map_err(|e| e.to_string())?
        .ok_or("no llm operation under a load")?;
    // The disaggregated deployment at the same loads, decode on `d_chip` (the row's rule).
    let d_chip = match l.d_chip {
        None => chip,
        Some(n) => s
            .chips
            .get(n as usize - 1)
            .ok_or("d_chip names a chip the scenario does not have")?,
    };
    sweep.disagg = sweep_disagg(op, chip, d_chip, &s.options, timing, &xs, BAND_REQUESTS)
        .map_err(|e| format!("disaggregated: {e}"))?;
    Ok(sweep)
}

/// The worker's job: [`bands`] with the page's step timing, as JSON.
pub fn run_bands(key: &str) -> String {
    let b = bands(key, &PageSteps(FittedSteps::stored()));
    crate::json::to_string_pretty(&b).unwrap_or_default()
}

/// Reads the worker's JSON.
pub fn read_bands(json: &str) -> Result<Bands, String> {
    let doc = crate::json_read::Doc("the simulated bands");
    let v: Value = roofline::inputs::json::parse(json).map_err(|e| e.to_string())?;
    let key = doc.text(&v, "key")?;
    let error = doc.opt_text(&v, "error")?;
    let sweep = match v.get("sweep") {
        None | Some(Value::Null) => None,
        Some(t) => Some(read_sweep(doc, t)?),
    };
    if sweep.is_none() && error.is_none() {
        return Err("the simulated bands have neither a sweep nor an error".into());
    }
    Ok(Bands { key, sweep, error })
}

fn read_points(doc: crate::json_read::Doc, t: &Value) -> Result<Vec<SweepPoint>, String> {
    let mut points = Vec::new();
    for p in doc.list(t, "points")? {
        let x = doc
            .number(p, "x")?
            .ok_or("the simulated bands have a point without a load")?;
        let f = doc.field(p, "figures")?;
        let figures = match (f.get("Ok"), f.get("Err")) {
            (Some(ok), _) => {
                let need = |k: &str| -> Result<f64, String> {
                    doc.number(ok, k)?
                        .ok_or_else(|| format!("the simulated bands' \"{k}\" is empty"))
                };
                Ok(PointTails {
                    ttft_p50: need("ttft_p50")?,
                    ttft_p99: need("ttft_p99")?,
                    tpot_p50: doc.opt_number(ok, "tpot_p50")?,
                    tpot_p99: doc.opt_number(ok, "tpot_p99")?,
                })
            }
            (None, Some(Value::String(why))) => Err(why.clone()),
            _ => return Err("the simulated bands have a point without figures".into()),
        };
        points.push(SweepPoint {
            x,
            requests: whole_of(doc, p, "requests")?,
            figures,
        });
    }
    Ok(points)
}

fn read_disagg(doc: crate::json_read::Doc, t: &Value) -> Result<Option<DisaggSweep>, String> {
    let d = match t.get("disagg") {
        None | Some(Value::Null) => return Ok(None),
        Some(d) => d,
    };
    Ok(Some(DisaggSweep {
        ratio: doc.text(d, "ratio")?,
        auto: matches!(d.get("auto"), Some(Value::Bool(true))),
        points: read_points(doc, d)?,
    }))
}

fn read_sweep(doc: crate::json_read::Doc, t: &Value) -> Result<SweepTails, String> {
    let whole = |k: &str| whole_of(doc, t, k);
    let points = read_points(doc, t)?;
    let mut queue = Vec::new();
    for q in doc.list(t, "queue")? {
        let need = |k: &str| -> Result<f64, String> {
            doc.number(q, k)?
                .ok_or_else(|| format!("the simulated queue's \"{k}\" is empty"))
        };
        queue.push(QueuePoint {
            t: need("t")?,
            waiting: need("waiting")?,
            running: need("running")?,
        });
    }
    Ok(SweepTails {
        queue,
        warmup_end: doc.opt_number(t, "warmup_end")?,
        requests: whole("requests")?,
        own: doc
            .number(t, "own")?
            .ok_or("the simulated bands have no load of their own")?,
        own_requests: doc.opt_number(t, "own_requests")?.map(|x| x as usize),
        seed: whole("seed")? as u64,
        basis: doc.text(t, "basis")?,
        points,
        disagg: read_disagg(doc, t)?,
    })
}

fn whole_of(doc: crate::json_read::Doc, v: &Value, k: &str) -> Result<usize, String> {
    doc.number(v, k)?
        .filter(|x| *x >= 0.0 && x.fract() == 0.0)
        .map(|x| x as usize)
        .ok_or_else(|| format!("the simulated bands' \"{k}\" is not a count"))
}
