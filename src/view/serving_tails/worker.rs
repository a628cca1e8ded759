//! The tails' exchange with the simulation worker: the scenario's key ([`sim_key`]), the
//! worker's run of it ([`run`], [`simulate`]) and its answer read back and laid over the rows of
//! that same scenario ([`read`], [`SimDone::overlay`]).

use std::sync::Arc;

use roofline::inputs::json::Value;
use roofline::inputs::Chip;
use roofline::inputs::Llm;
use roofline::inputs::Scenario;
use roofline::results::sim::{StepCoef, StepTiming};
use roofline::results::tails::tails;
use roofline::units::{format_sig, Unit};
use roofline::validation::load::steps::FittedSteps;
use serde::Serialize;

use super::{loaded, metric_name, metrics, none, tails_cells};
use crate::view::cell::{Cell, ResultRow};
use crate::view::names::pretty;

/// The scenario's key for the simulation: its canonical link with only what the tails read
/// (operations, chips, options), or `None` when no row has tails.
pub fn sim_key(s: &Scenario) -> Option<String> {
    if !s.ops.iter().any(|o| loaded(o).is_some()) {
        return None;
    }
    let only = Scenario {
        chips: s.chips.clone(),
        ops: s.ops.clone(),
        options: s.options,
        sweep: s.sweep.clone(),
        ..Scenario::default()
    };
    Some(roofline::url::encode(&only))
}

/// One row's tails as the worker sends them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SimRow {
    /// The operation.
    pub op: usize,
    /// The chip.
    pub chip: usize,
    /// The cells.
    pub cells: Vec<SimCell>,
}

/// A cell as the worker sends it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SimCell {
    /// `data-metric`.
    pub metric: String,
    /// `data-value`.
    pub value: String,
    /// Text.
    pub text: String,
    /// Title (its derivation).
    pub title: String,
}

impl From<Cell> for SimCell {
    fn from(c: Cell) -> SimCell {
        SimCell {
            metric: c.metric.into(),
            value: c.value,
            text: c.text,
            title: c.title,
        }
    }
}

/// The worker's answer for one scenario.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct SimDone {
    /// The scenario's key ([`sim_key`]).
    pub key: String,
    /// Each row with tails.
    pub rows: Vec<SimRow>,
}

/// The tails of every row of the scenario `key` (a link's query, [`sim_key`]) with `timing`.
pub fn simulate(key: &str, timing: &dyn StepTiming) -> SimDone {
    let s = roofline::url::decode(key).scenario;
    let mut rows = Vec::new();
    for (i, op) in s.ops.iter().enumerate() {
        if loaded(op).is_none() {
            continue;
        }
        for j in 0..s.chips.len() {
            let r = tails(op, &s.chips, j, &s.options, timing);
            let cells = tails_cells(op, &r).into_iter().map(SimCell::from).collect();
            rows.push(SimRow {
                op: i,
                chip: j,
                cells,
            });
        }
    }
    SimDone {
        key: key.into(),
        rows,
    }
}

/// What the page times each simulated step with: the user's own engine where the link has one
/// (`engine=own:…`, issue 43: each step's bound split by resource times its factors, plus its
/// fixed time per step, as the rest of the row reads it), else the published engines' stored
/// fits.
pub struct PageSteps(pub FittedSteps);

impl StepTiming for PageSteps {
    fn coef(&self, l: &Llm, chip: &Chip) -> Result<StepCoef, String> {
        let Some(o) = l.own else {
            return self.0.coef(l, chip);
        };
        StepCoef::probe(|d, _| {
            let [c, m, n] = d.by_bound;
            o.compute * c + o.memory * m + o.network * n + o.step * d.steps
        })
        .ok_or_else(|| "your engine's factors are not finite".to_string())
    }

    fn basis(&self, l: &Llm) -> String {
        match l.own {
            Some(o) => format!(
                "each step read by your own engine: its bound's compute seconds × {}, memory × \
                 {}, collectives × {}, plus {} per step",
                format_sig(o.compute, 4),
                format_sig(o.memory, 4),
                format_sig(o.network, 4),
                pretty(o.step, Unit::Seconds)
            ),
            None => self.0.basis(l),
        }
    }
}

/// The worker's job: [`simulate`] with [`PageSteps`], as JSON.
pub fn run(key: &str) -> String {
    let done = simulate(key, &PageSteps(FittedSteps::stored()));
    crate::json::to_string_pretty(&done).unwrap_or_default()
}

/// Reads the worker's JSON.
pub fn read(json: &str) -> Result<SimDone, String> {
    let doc = crate::json_read::Doc("the simulation's answer");
    let v: Value = roofline::inputs::json::parse(json).map_err(|e| e.to_string())?;
    let key = doc.text(&v, "key")?;
    let mut rows = Vec::new();
    for r in doc.list(&v, "rows")? {
        let index = |k: &str| -> Result<usize, String> {
            doc.number(r, k)?
                .filter(|x| *x >= 0.0 && x.fract() == 0.0)
                .map(|x| x as usize)
                .ok_or_else(|| format!("the simulation's answer has no {k}"))
        };
        let mut cells = Vec::new();
        for c in doc.list(r, "cells")? {
            cells.push(SimCell {
                metric: doc.text(c, "metric")?,
                value: doc.text(c, "value")?,
                text: doc.text(c, "text")?,
                title: doc.text(c, "title")?,
            });
        }
        rows.push(SimRow {
            op: index("op")?,
            chip: index("chip")?,
            cells,
        });
    }
    Ok(SimDone { key, rows })
}

impl SimDone {
    /// Every row with tails of `key`'s scenario shows `message` instead of its figures (the
    /// worker could not run).
    pub fn failed(key: &str, s: &Scenario, message: &str) -> SimDone {
        let mut rows = Vec::new();
        for (i, op) in s.ops.iter().enumerate() {
            for j in 0..s.chips.len() {
                let cells: Vec<SimCell> = metrics(op)
                    .into_iter()
                    .map(|m| SimCell::from(none(m, message)))
                    .collect();
                if !cells.is_empty() {
                    rows.push(SimRow {
                        op: i,
                        chip: j,
                        cells,
                    });
                }
            }
        }
        SimDone {
            key: key.into(),
            rows,
        }
    }

    /// Lays the answer over `rows` (the page's rows of the scenario whose key is `key`): each
    /// serving row's pending cells take the figures of the same metric. Nothing when the
    /// answer is for another scenario.
    pub fn overlay(&self, key: Option<&str>, rows: &mut [Arc<ResultRow>]) {
        if key != Some(self.key.as_str()) {
            return;
        }
        for row in rows.iter_mut() {
            let Ok(i) = row.op_key.parse::<usize>() else {
                continue;
            };
            let Some(sim) = self.rows.iter().find(|r| r.op == i && r.chip == row.chip) else {
                continue;
            };
            let Some(serving) = row.serving.as_deref() else {
                continue;
            };
            let mut serving = serving.clone();
            let mut changed = false;
            for cell in serving.cells.iter_mut() {
                if let Some(new) = sim
                    .cells
                    .iter()
                    .find(|c| c.metric == cell.metric && metric_name(&c.metric).is_some())
                {
                    cell.value = new.value.clone();
                    cell.text = new.text.clone();
                    cell.title = new.title.clone();
                    cell.class = "";
                    changed = true;
                }
            }
            if changed {
                let mut top = (**row).clone();
                top.serving = Some(Box::new(serving));
                *row = Arc::new(top);
            }
        }
    }
}
