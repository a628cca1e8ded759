//! The load plot's simulated P50–P99 bands (issue 42) laid on its TTFT and TPOT panels: the
//! worker's [`Bands`] for this scenario (`view::serving_tails::bands`) as a shaded band per
//! panel in the link's engine's colour, its legend naming the requests per point and the seed,
//! the screen readers' table each point's P50 and P99 and the derivation. While the worker
//! runs the legend says `simulating…`; the app passes only an answer whose key is the
//! scenario's, and a sweep at another load than the plot's is not drawn.

use super::{colour, load_words, LoadData};
use crate::charts::{LoadChart, LoadMark, LoadPanel, LoadSeries};
use crate::view::serving_load::engine_name;
use crate::view::serving_tails::bands::Bands;
use roofline::results::tails::{DisaggSweep, SweepPoint};

/// Where the bands of the plot's scenario stand.
#[derive(Debug, Clone, Copy)]
pub enum BandState<'a> {
    /// The worker is simulating them.
    Running,
    /// The worker's answer for this scenario.
    Done(&'a Bands),
}

/// The words before a band's legend: `vLLM simulated P50–P99`.
fn what(d: &LoadData) -> String {
    format!("{} simulated P50–P99", engine_name(d.own))
}

/// Lays the bands on `chart` (the TTFT and TPOT panels; the frontier has none).
pub fn add_bands(chart: &mut LoadChart, d: &LoadData, state: BandState) {
    if chart.panel == LoadPanel::Frontier {
        return;
    }
    let mut band = LoadSeries {
        label: what(d),
        series_idx: colour(d.own),
        points: Vec::new(),
        measured: false,
    };
    let sweep = match state {
        BandState::Running => {
            band.label.push_str(": simulating…");
            chart.sim.push(band);
            return;
        }
        BandState::Done(b) => match (&b.sweep, &b.error) {
            (Some(s), _) if s.own == own_load(d) => s,
            (Some(_), _) => {
                band.label
                    .push_str(": none (the simulation was for another load)");
                chart.sim.push(band);
                return;
            }
            (None, why) => {
                let why = why.as_deref().unwrap_or("no answer");
                band.label.push_str(&format!(": none ({why})"));
                chart.sim.push(band);
                return;
            }
        },
    };
    band.points = band_marks(chart, d, &sweep.points, &what(d));
    band.label = format!(
        "{}, {} requests per point, seed {}",
        what(d),
        match sweep.counts() {
            Some((lo, hi)) if lo == hi => roofline::results::tails::count(hi),
            Some((lo, hi)) => format!(
                "{}–{}",
                roofline::results::tails::count(lo),
                roofline::results::tails::count(hi)
            ),
            None => "no".into(),
        },
        sweep.seed
    );
    chart.notes.push((
        what(d),
        format!(
            "{}; {} per point, by nearest rank; steps: {}",
            sweep.derivation(),
            match chart.panel {
                LoadPanel::Ttft => "TTFT's P50 and P99",
                _ => "TPOT's P50 and P99 (each request's own (E2E − TTFT)/(output − 1))",
            },
            sweep.basis
        ),
    ));
    chart.sim.push(band);
    if let Some(ds) = &sweep.disagg {
        add_disagg(chart, d, ds, (sweep.seed, sweep.own));
    }
}

/// The disaggregated deployment's band (`disagg=`): the same loads, the ratio the serving row
/// runs, in its own colour.
fn add_disagg(chart: &mut LoadChart, d: &LoadData, ds: &DisaggSweep, (seed, own): (u64, f64)) {
    let what = format!(
        "disaggregated {}{} simulated P50–P99",
        ds.ratio,
        if ds.auto { " (auto's)" } else { "" }
    );
    let points = band_marks(chart, d, &ds.points, &what);
    // The counts of the sweep's own points (the link's own load runs the row's, as the
    // engine's band says in its table).
    let n: Vec<usize> = ds
        .points
        .iter()
        .filter(|p| p.figures.is_ok() && p.x != own)
        .map(|p| p.requests)
        .collect();
    let counts = match (n.iter().min(), n.iter().max()) {
        (Some(lo), Some(hi)) if lo == hi => roofline::results::tails::count(*hi),
        (Some(lo), Some(hi)) => format!(
            "{}–{}",
            roofline::results::tails::count(*lo),
            roofline::results::tails::count(*hi)
        ),
        _ => "no".into(),
    };
    chart.notes.push((
        what.clone(),
        format!(
            "{}: the serving row's prefill and decode workers{}, each load simulated with its \
             requests (the first 20 % discarded; at this link's load as many as its serving \
             row), seed {seed}",
            ds.ratio,
            if ds.auto {
                " (auto's ratio, chosen at this link's load)"
            } else {
                ""
            }
        ),
    ));
    chart.sim.push(LoadSeries {
        label: format!("{what}, {counts} requests per point, seed {seed}"),
        series_idx: DISAGG_COLOUR,
        points,
        measured: false,
    });
}

/// The palette slot of the disaggregated band: none of the engines' (0–3), the own engine's
/// (4) or a sky blue beside vLLM's blue (5).
const DISAGG_COLOUR: usize = 6;

/// A sweep's points as band marks on this panel (P50 with its band to P99); a point without
/// figures becomes a line of the table's notes.
fn band_marks(
    chart: &mut LoadChart,
    d: &LoadData,
    points: &[SweepPoint],
    what: &str,
) -> Vec<LoadMark> {
    let mut out = Vec::new();
    for p in points {
        let f = match &p.figures {
            Ok(f) => f,
            Err(why) => {
                chart.notes.push((
                    format!("{what} at {}", load_words(d.axis, p.x)),
                    why.clone(),
                ));
                continue;
            }
        };
        let (p50, p99) = match chart.panel {
            LoadPanel::Ttft => (Some(f.ttft_p50), Some(f.ttft_p99)),
            _ => (f.tpot_p50, f.tpot_p99),
        };
        if let (Some(lo), Some(hi)) = (p50, p99) {
            out.push(LoadMark {
                x: p.x,
                y: lo,
                band: Some((lo, hi)),
            });
        }
    }
    out
}

/// The plot's load as the sweep names it: clients rounded, or the rate.
pub(super) fn own_load(d: &LoadData) -> f64 {
    match d.axis {
        roofline::validation::load::page::Axis::Concurrency => d.current.round().max(1.0),
        roofline::validation::load::page::Axis::Rate => d.current,
    }
}
