//! The load plot's model (issue 40, `plot=load`): for the scenario's first `llm` operation under
//! `load=concurrency|rate` on its first chip, each engine's curve over the load from the core
//! ([`roofline::validation::load::page::load_curve`], [`POINTS`] points, concurrency from 1 to
//! twice the cap or rate from 1 % to 99 % of saturation), the serving row's figures at the
//! link's own load ([`load_row`]), and the measured rows of the same model, chip, lengths and
//! layout ([`measured_points_of`]), which travel with the lazily fetched validation data, never
//! in the wasm. Three panels: expected TTFT, expected TPOT (each with its fitted band) and the
//! throughput–interactivity frontier. An engine without a curve or without measured rows says
//! so in the legend; every number is the core's. Issue 42 adds the simulated P50–P99 bands on
//! the TTFT and TPOT panels ([`bands`]) and a queue panel under them ([`queue`]), both from the
//! simulation worker's answer for the same scenario (`view::serving_tails::bands`).

use roofline::inputs::Chip;
use roofline::inputs::Scenario;
use roofline::inputs::{Engine, Load, Op};
use roofline::units::{format_exact, format_sig, Unit};
use roofline::validation::load::page::{
    load_curve, load_row, measured_points_of, own_curve, Axis, LoadCurve, LoadRow, MeasuredPoint,
    MeasuredRow,
};

pub mod bands;
pub mod queue;

use super::names::{pretty, series_name};
use super::serving_load::{engine_name, load_pair};
use crate::charts::{HLine, LoadChart, LoadMark, LoadPanel, LoadSeries, Marker, VLine};

/// Points per curve: a 64-point sweep (`./dev bench` times it in the page, ≤ 20 ms).
pub const POINTS: usize = 64;

/// The engines every load plot shows (the link's own is added when it is `generic`).
const ENGINES: [Engine; 3] = [Engine::Vllm, Engine::Sglang, Engine::Trtllm];

/// What the load plot computes for a scenario: the curves and the link's point.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadData {
    /// The operation's name (and chip's, with several chips).
    pub name: String,
    /// The operation and chip plotted.
    pub op: Op,
    pub chip: Chip,
    /// Concurrency or rate.
    pub axis: Axis,
    /// The link's engine.
    pub own: Engine,
    /// The link's load: `c` or `qps`.
    pub current: f64,
    /// Each engine's curve, or why it has none.
    pub curves: Vec<(Engine, Result<LoadCurve, String>)>,
    /// "My engine" (issue 43): the curve of the link's own engine (`engine=own:…`), or why it
    /// has none; `None` for a published engine.
    pub mine: Option<Result<LoadCurve, String>>,
    /// The serving row's figures at the link's load (its own engine).
    pub here: Option<LoadRow>,
}

/// The measured rows, as far as the lazily fetched data has come.
#[derive(Debug, Clone, Copy)]
pub enum Rows<'a> {
    /// Still being fetched.
    Loading,
    /// Not fetched, and why.
    Failed(&'a str),
    /// The set's rows.
    Loaded(&'a [MeasuredRow]),
}

/// The curves of the scenario's load plot; `None` without an `llm` operation under a load.
pub fn load_data(s: &Scenario) -> Option<LoadData> {
    let (op, chip) = load_pair(s)?;
    let l = op.llm()?;
    let axis = if l.load == Load::Rate {
        Axis::Rate
    } else {
        Axis::Concurrency
    };
    let mut engines = ENGINES.to_vec();
    // With the user's own engine the link's curve is "my engine", not generic's.
    if !engines.contains(&l.engine) && l.own_engine().is_none() {
        engines.push(l.engine);
    }
    let curves = engines
        .into_iter()
        .map(|e| {
            let c = load_curve(op, chip, &s.options, e, axis, POINTS).map_err(|e| e.to_string());
            (e, c)
        })
        .collect();
    Some(LoadData {
        name: series_name(s, op, &chip.name),
        op: op.clone(),
        chip: chip.clone(),
        axis,
        own: l.engine,
        current: if axis == Axis::Rate { l.qps } else { l.c },
        curves,
        mine: l
            .own_engine()
            .map(|e| own_curve(op, chip, &s.options, e, axis, POINTS).map_err(|e| e.to_string())),
        here: load_row(op, chip, &s.options).ok().flatten(),
    })
}

/// The palette slot of an engine: the same colour on every panel.
fn colour(e: Engine) -> usize {
    match e {
        Engine::Vllm => 0,
        Engine::Sglang => 1,
        Engine::Trtllm => 2,
        Engine::Generic => 3,
    }
}

/// A panel's words: title, x label, y label and units.
fn words(d: &LoadData, panel: LoadPanel) -> (String, String, String, Option<Unit>, Option<Unit>) {
    let x = match d.axis {
        Axis::Concurrency => "concurrency (clients)",
        Axis::Rate => "request rate (req/s)",
    };
    let (what, xl, yl, xu, yu) = match panel {
        LoadPanel::Ttft => (
            "Expected TTFT",
            x,
            "time to first token",
            None,
            Some(Unit::Seconds),
        ),
        LoadPanel::Tpot => (
            "Expected TPOT",
            x,
            "time per output token",
            None,
            Some(Unit::Seconds),
        ),
        LoadPanel::Frontier => (
            "Throughput against interactivity",
            "output tokens/s per user",
            "output tokens/s per chip",
            None,
            None,
        ),
    };
    let title = format!("{what} per engine (load plot): {}", d.name);
    (title, xl.into(), yl.into(), xu, yu)
}

/// A curve's point on `panel`: expected figures only (the line is what the fit expects).
fn mark(
    axis_x: f64,
    p: &roofline::validation::load::page::LoadPoint,
    panel: LoadPanel,
) -> Option<LoadMark> {
    let band = |f: &roofline::validation::load::page::Figure| f.lo.zip(f.hi);
    match panel {
        LoadPanel::Ttft => Some(LoadMark {
            x: axis_x,
            y: p.ttft.expected?,
            band: band(&p.ttft),
        }),
        LoadPanel::Tpot => Some(LoadMark {
            x: axis_x,
            y: p.tpot.expected?,
            band: band(&p.tpot),
        }),
        LoadPanel::Frontier => Some(LoadMark {
            x: p.tokens_per_s_user.expected?,
            y: p.tokens_per_s_chip.expected?,
            band: None,
        }),
    }
}

/// A measured row's point on `panel`: on the rate axis at its own rate by Little's law,
/// `X = c / (TTFT + (G − 1)·TPOT)`.
fn measured_mark(m: &MeasuredPoint, axis: Axis, panel: LoadPanel) -> LoadMark {
    let x = match axis {
        Axis::Concurrency => m.c,
        Axis::Rate => m.c / (m.ttft + (m.osl - 1.0) * m.tpot),
    };
    let (x, y) = match panel {
        LoadPanel::Ttft => (x, m.ttft),
        LoadPanel::Tpot => (x, m.tpot),
        LoadPanel::Frontier => (m.tokens_per_s_user, m.tokens_per_s_chip),
    };
    LoadMark { x, y, band: None }
}

/// The load's words: `c = 64` or `λ = 12.5 req/s`.
fn load_words(axis: Axis, x: f64) -> String {
    match axis {
        Axis::Concurrency => format!("c = {}", format_exact(x)),
        Axis::Rate => format!("λ = {} req/s", format_sig(x, 4)),
    }
}

/// One panel of the load plot of `d` (`None`: no operation under a load), with the measured
/// rows as far as they have arrived.
pub fn load_chart(d: Option<&LoadData>, panel: LoadPanel, rows: Rows) -> LoadChart {
    let Some(d) = d else {
        return LoadChart {
            panel,
            title:
                "Load plot (add a transformer (llm) operation under load=concurrency or load=rate)"
                    .into(),
            x_label: String::new(),
            y_label: String::new(),
            x_unit: None,
            y_unit: None,
            series: Vec::new(),
            hlines: Vec::new(),
            vlines: Vec::new(),
            marks: Vec::new(),
            notes: Vec::new(),
            sim: Vec::new(),
        };
    };
    let (title, x_label, y_label, x_unit, y_unit) = words(d, panel);
    let measured = match rows {
        Rows::Loaded(r) => Some(measured_points_of(&d.op, &d.chip, r).0),
        _ => None,
    };
    let mut series = Vec::new();
    let mut vlines = Vec::new();
    let mut notes = Vec::new();
    for (e, c) in &d.curves {
        let mut label = engine_name(*e).to_string();
        if *e == d.own {
            label.push_str(" (this link's engine)");
        }
        let mut points = Vec::new();
        match c {
            Err(why) => label.push_str(&format!(": no curve ({why})")),
            Ok(c) => match &c.basis {
                Err(why) => label.push_str(&format!(": no expectation ({why})")),
                Ok(_) => {
                    points = c
                        .points
                        .iter()
                        .filter_map(|p| mark(p.x, p, panel))
                        .collect()
                }
            },
        }
        if let Some(m) = &measured {
            if !m.iter().any(|p| p.engine == *e) && *e != Engine::Generic {
                label.push_str("; no measured row of this model, chip, lengths and layout");
            }
        }
        series.push(LoadSeries {
            label,
            series_idx: colour(*e),
            points,
            measured: false,
        });
        if let Ok(c) = c {
            if let Some(g) = c.goodput_qps.expected {
                let what = format!("goodput {} (expected)", engine_name(*e));
                if d.axis == Axis::Rate && panel != LoadPanel::Frontier {
                    vlines.push(VLine {
                        x: g,
                        label: format!("{what} {} req/s", format_sig(g, 4)),
                    });
                } else {
                    notes.push((what, format!("{} req/s", format_sig(g, 4))));
                }
            }
        }
    }
    series.extend(own_series(d, panel, &mut notes));
    for e in ENGINES {
        let pts: Vec<LoadMark> = measured
            .iter()
            .flatten()
            .filter(|p| p.engine == e)
            .map(|p| measured_mark(p, d.axis, panel))
            .collect();
        if !pts.is_empty() {
            series.push(LoadSeries {
                label: format!("{} measured", engine_name(e)),
                series_idx: colour(e),
                points: pts,
                measured: true,
            });
        }
    }
    match rows {
        Rows::Loading => notes.push(("measured rows".into(), "loading".into())),
        Rows::Failed(why) => notes.push(("measured rows".into(), format!("not loaded: {why}"))),
        Rows::Loaded(_) => {}
    }
    let l = d.op.llm();
    let (ttft_max, tpot_max) = (
        l.and_then(|l| l.ttft_bound()),
        l.and_then(|l| l.tpot_bound()),
    );
    let mut hlines = Vec::new();
    let line = |what: &str, v: f64| HLine {
        label: format!("{what} {}", pretty(v, Unit::Seconds)),
        y: v,
        series_idx: colour(d.own),
    };
    match (panel, ttft_max, tpot_max) {
        (LoadPanel::Ttft, Some(t), _) => hlines.push(line("ttft_max", t)),
        (LoadPanel::Tpot, _, Some(t)) => hlines.push(line("tpot_max", t)),
        (LoadPanel::Frontier, _, Some(t)) => vlines.push(VLine {
            x: 1.0 / t,
            label: format!(
                "tpot_max {} = {} tokens/s per user",
                pretty(t, Unit::Seconds),
                format_sig(1.0 / t, 4)
            ),
        }),
        _ => {}
    }
    let marks = here(d, panel, &mut vlines);
    LoadChart {
        panel,
        title,
        x_label,
        y_label,
        x_unit,
        y_unit,
        series,
        hlines,
        vlines,
        marks,
        notes,
        sim: Vec::new(),
    }
}

/// The legend of the user's own engine's curve.
pub const MY_ENGINE: &str = "my engine (fit from your trace)";

/// "My engine"'s curve on `panel` (issue 43, `engine=own:…`): its expected figures, without a
/// band (the link carries no standard errors), in a colour of its own; its expected goodput
/// goes to the notes.
fn own_series(
    d: &LoadData,
    panel: LoadPanel,
    notes: &mut Vec<(String, String)>,
) -> Option<LoadSeries> {
    let mut label = MY_ENGINE.to_string();
    let points = match d.mine.as_ref()? {
        Err(why) => {
            label.push_str(&format!(": no curve ({why})"));
            Vec::new()
        }
        Ok(c) => {
            if let Some(g) = c.goodput_qps.expected {
                let what = "goodput my engine (expected)".to_string();
                notes.push((what, format!("{} req/s", format_sig(g, 4))));
            }
            c.points
                .iter()
                .filter_map(|p| mark(p.x, p, panel))
                .collect()
        }
    };
    Some(LoadSeries {
        label: format!("{label} (this link's engine)"),
        series_idx: 4,
        points,
        measured: false,
    })
}

/// The link's own point (its serving row's expected figures at its load) on `panel`, and the
/// line at its load.
fn here(d: &LoadData, panel: LoadPanel, vlines: &mut Vec<VLine>) -> Vec<Marker> {
    let Some(r) = &d.here else {
        return Vec::new();
    };
    let (Some(ttft), Some(tpot)) = (r.ttft.expected, r.tpot.expected) else {
        return Vec::new();
    };
    let at = load_words(d.axis, d.current);
    let chips = d.op.llm().map_or(1.0, |l| l.chips());
    if panel != LoadPanel::Frontier {
        vlines.push(VLine {
            x: d.current,
            label: format!("{at} (this link)"),
        });
    }
    let point = match panel {
        LoadPanel::Ttft => Some((d.current, ttft, pretty(ttft, Unit::Seconds))),
        LoadPanel::Tpot => Some((d.current, tpot, pretty(tpot, Unit::Seconds))),
        LoadPanel::Frontier => r.tokens_per_s.expected.map(|t| {
            (
                1.0 / tpot,
                t / chips,
                format!("{} tokens/s per chip", format_sig(t / chips, 4)),
            )
        }),
    };
    point
        .map(|(x, y, text)| Marker::new(x, y, format!("this link ({at}): {text}")))
        .into_iter()
        .collect()
}
