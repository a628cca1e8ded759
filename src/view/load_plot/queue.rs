//! The load plot's queue panel (issue 42): at the link's own load, the simulation's requests
//! waiting for admission and its running batch over simulated time (the worker's series from
//! the run's start, each bin the most of its steps, `roofline::results::sim::QueueSeries`),
//! with the warm-up's end marked. Drawn as a sweep chart on linear axes; `simulating…` until
//! the worker's answer for this scenario arrives.

use roofline::units::{format_sig, Unit};

use super::bands::BandState;
use super::{colour, load_words, LoadData};
use crate::charts::{ChartSeries, SweepChart, VLine};
use crate::view::serving_load::engine_name;

/// The queue panel of `d` as `state` stands.
pub fn queue_chart(d: &LoadData, state: BandState) -> SweepChart {
    let at = load_words(d.axis, d.current);
    let mut c = SweepChart {
        title: format!(
            "Queue over time at {at} ({} simulated): {}",
            engine_name(d.own),
            d.name
        ),
        x_label: "simulated time".into(),
        y_label: "requests".into(),
        series: Vec::new(),
        hlines: Vec::new(),
        crossovers: Vec::new(),
        vlines: Vec::new(),
        log_x: false,
        log_y: false,
        x_unit: Some(Unit::Seconds),
        y_unit: None,
        bars: Vec::new(),
        bars_label: String::new(),
    };
    let sweep = match state {
        BandState::Running => {
            c.title.push_str(" (simulating…)");
            return c;
        }
        BandState::Done(b) => match &b.sweep {
            Some(s) if s.own == super::bands::own_load(d) && !s.queue.is_empty() => s,
            Some(_) => {
                c.title
                    .push_str(" (none: the simulation was for another load)");
                return c;
            }
            None => {
                let why = b.error.as_deref().unwrap_or("no answer");
                c.title.push_str(&format!(" (none: {why})"));
                return c;
            }
        },
    };
    let n = sweep.own_requests.unwrap_or(sweep.requests);
    let line = |label: String, idx: usize, f: fn(&roofline::results::sim::QueuePoint) -> f64| {
        ChartSeries {
            label,
            points: sweep.queue.iter().map(|p| (p.t, f(p))).collect(),
            series_idx: idx,
            scatter: false,
            oom_from: None,
        }
    };
    c.series.push(line(
        "waiting for admission (the most in each bin)".into(),
        1,
        |p| p.waiting,
    ));
    c.series.push(line(
        "running batch (the most in each bin)".into(),
        colour(d.own),
        |p| p.running,
    ));
    if let Some(t) = sweep.warmup_end {
        c.vlines.push(VLine {
            x: t,
            label: format!(
                "warm-up ends ({} s: the first 20 % of {} requests)",
                format_sig(t, 3),
                roofline::results::tails::count(n)
            ),
        });
    }
    c
}
