//! The sweep plot's figures in the store (issue 41): for each (operation, chip) whose operation
//! has the swept field, its curve over the sweep, its analysis at the operation's own value and
//! where it stops fitting in memory, computed once per (operation, chip, options, sweep), keyed
//! by content like the pairs. The sweep chart (`src/view/sweep.rs`) only formats them.

use std::sync::Arc;

use crate::analysis::{analyze, memory_fit, Analysis};
use crate::chip::Chip;
use crate::error::Error;
use crate::field::FieldType;
use crate::op::Op;
use crate::options::Options;
use crate::sweep::{sweep, SweepCurve, SweepSpec};

/// One (operation, chip)'s sweep.
#[derive(Debug, Clone, PartialEq)]
pub struct Swept {
    /// The curve over the swept field ([`sweep`]).
    pub curve: Result<SweepCurve, Error>,
    /// The analysis at the operation's own value of the field (its marker on the curve).
    pub analysis: Result<Analysis, Error>,
    /// Where the operation stops fitting in the chip's memory over the sweep ([`oom_edge`]).
    pub oom: Option<OomEdge>,
}

impl Swept {
    /// The sweep of `op` on `chip` under `opts`.
    pub fn compute(op: &Op, chip: &Chip, opts: &Options, spec: &SweepSpec) -> Swept {
        Swept {
            curve: sweep(op, chip, opts, spec),
            analysis: analyze(op, chip, opts),
            oom: oom_edge(op, chip, opts, spec),
        }
    }
}

/// Where a swept operation stops fitting in the chip's HBM.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum OomEdge {
    /// It fits up to and including `x` and not above it.
    Above(f64),
    /// It does not fit anywhere in the swept range.
    Everywhere,
}

/// Where `op` on `chip` stops fitting in memory as the swept field grows from `from` to `to`
/// (memory only grows with a size), or `None` when it fits over the whole range. An LLM swept
/// over its batch uses the closed form `⌊(capacity − weights) / KV per sequence⌋`; any other
/// field is bisected on the memory against the capacity ([`memory_fit`]: the analysis' `fits`;
/// up to 60 steps, whole numbers for integer fields).
pub fn oom_edge(op: &Op, chip: &Chip, opts: &Options, spec: &SweepSpec) -> Option<OomEdge> {
    // Memory only: a full analysis of an MoE would bisect its critical batch at every step.
    let at = |x: f64| -> Option<bool> {
        let mut o = op.clone();
        o.set_num(&spec.field, x).ok()?;
        let (memory, capacity) = memory_fit(&o, chip, opts).ok()?;
        Some(memory <= capacity || capacity <= 0.0)
    };
    if at(spec.to)? {
        return None;
    }
    if !at(spec.from)? {
        return Some(OomEdge::Everywhere);
    }
    if spec.field == "b" && op.traits().serves {
        let cap = memory_fit(op, chip, opts).ok()?.1;
        return op.batch_limit(cap).map(OomEdge::Above);
    }
    let integer = op
        .field(&spec.field)
        .is_some_and(|f| f.ty == FieldType::Integer);
    let (mut lo, mut hi) = (spec.from, spec.to);
    for _ in 0..60 {
        // Geometric steps across decades, then halving (exact for whole numbers at the end).
        let mid = if spec.log && hi > 1.01 * lo {
            (lo * hi).sqrt()
        } else {
            lo + (hi - lo) / 2.0
        };
        let mid = if integer { mid.floor() } else { mid };
        if mid <= lo || mid >= hi {
            break;
        }
        if at(mid)? {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Some(OomEdge::Above(lo))
}

/// One stored sweep: what it was computed from and its figures.
#[derive(Debug, Clone)]
pub(super) struct SweepEntry {
    op: Op,
    chip: Chip,
    options: Options,
    spec: SweepSpec,
    swept: Arc<Swept>,
}

/// The sweeps of a scenario's pairs, kept between updates like the pairs.
#[derive(Debug, Clone, Default)]
pub(super) struct Sweeps {
    /// Operation-major, `None` where the operation has no swept field (or no sweep is asked).
    pub(super) grid: Vec<Option<Arc<Swept>>>,
    entries: Vec<SweepEntry>,
    /// Sweeps computed over the store's life.
    pub(super) computed: usize,
}

impl Sweeps {
    /// Brings the sweeps to `ops × chips` under `options` and `spec`; with `wanted` false, holds
    /// none (and forgets those it held).
    pub(super) fn update(
        &mut self,
        ops: &[Op],
        chips: &[Chip],
        options: &Options,
        spec: &SweepSpec,
        wanted: bool,
    ) {
        let mut old = std::mem::take(&mut self.entries);
        self.grid.clear();
        if !wanted {
            return;
        }
        for op in ops {
            for chip in chips {
                if op.field(&spec.field).is_none() {
                    self.grid.push(None);
                    continue;
                }
                let is_for = |e: &SweepEntry| {
                    e.spec == *spec && e.options == *options && e.op == *op && e.chip == *chip
                };
                let swept = if let Some(e) = self.entries.iter().find(|e| is_for(e)) {
                    e.swept.clone()
                } else {
                    let swept = match old.iter().position(is_for) {
                        Some(k) => old.swap_remove(k).swept,
                        None => {
                            self.computed += 1;
                            Arc::new(Swept::compute(op, chip, options, spec))
                        }
                    };
                    self.entries.push(SweepEntry {
                        op: op.clone(),
                        chip: chip.clone(),
                        options: *options,
                        spec: spec.clone(),
                        swept: swept.clone(),
                    });
                    swept
                };
                self.grid.push(Some(swept));
            }
        }
    }
}
