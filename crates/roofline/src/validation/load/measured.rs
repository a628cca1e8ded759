//! The load plot's measured rows (issue 40): the serving-at-load set's rows of the same model,
//! chip, lengths and parallel layout as the plotted operation, as plain data
//! ([`measured_points_of`]); the rows travel with the page's lazily fetched validation data,
//! never in the wasm. Read through `page`, which re-exports them.

use crate::chip::Chip;
use crate::op::{Engine, Op};

/// A measured row of the set on the load plot.
#[derive(Debug, Clone, PartialEq)]
pub struct MeasuredPoint {
    /// The row's id.
    pub id: String,
    /// Its engine.
    pub engine: Engine,
    /// Its concurrency.
    pub c: f64,
    /// Its prompt and output lengths.
    pub isl: f64,
    /// Output length.
    pub osl: f64,
    /// Measured TTFT, seconds.
    pub ttft: f64,
    /// Measured TPOT, seconds.
    pub tpot: f64,
    /// Output tokens per second per chip, `c·G / (TTFT + (G − 1)·TPOT) / chips` (Little).
    pub tokens_per_s_chip: f64,
    /// `1 / TPOT`.
    pub tokens_per_s_user: f64,
}

/// One expressed, distinct row of the serving-at-load set as plain data: what the page's
/// lazily fetched validation data carries (the rows never enter the wasm), and what
/// [`measured_points_of`] reads.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct MeasuredRow {
    /// The row's id.
    pub id: String,
    /// The zoo preset its link names.
    pub preset: String,
    /// The chip preset.
    pub chip: String,
    /// Tensor-parallel, expert-parallel and in-group expert-parallel degrees.
    pub tp: f64,
    /// `ep`.
    pub ep: f64,
    /// `moe_ep`.
    pub moe_ep: f64,
    /// The engine's id (`vllm`, `sglang`, `trtllm`).
    pub engine: String,
    /// Clients (1 where the row names none).
    pub c: f64,
    /// Prompt length.
    pub isl: f64,
    /// Output length.
    pub osl: f64,
    /// Measured TTFT, seconds.
    pub ttft: f64,
    /// Measured TPOT, seconds.
    pub tpot: f64,
}

/// The set's expressed rows, twins left out (each measurement once), as [`MeasuredRow`]s.
#[cfg(feature = "sources")]
pub fn measured_set() -> Vec<MeasuredRow> {
    super::rows::expressed()
        .filter(|(r, _)| r.twin.is_none())
        .map(|(r, e)| MeasuredRow {
            id: r.id.to_string(),
            preset: e.preset.to_string(),
            chip: e.chip.to_string(),
            tp: f64::from(e.layout.tp),
            ep: f64::from(e.layout.ep),
            moe_ep: f64::from(e.layout.moe_ep),
            engine: r.engine.to_string(),
            c: f64::from(r.c.unwrap_or(1)),
            isl: f64::from(r.isl),
            osl: f64::from(r.osl),
            ttft: r.ttft,
            tpot: r.tpot,
        })
        .collect()
}

/// The set's measured rows of the same model (preset), chip, lengths and parallel layout as
/// `op` (native only: the rows travel with the lazily fetched validation data), and per engine
/// of the three whether it has none.
#[cfg(feature = "sources")]
pub fn measured_points(op: &Op, chip: &Chip) -> (Vec<MeasuredPoint>, Vec<(Engine, bool)>) {
    measured_points_of(op, chip, &measured_set())
}

/// [`measured_points`] among `rows` (the page passes the rows of its lazily fetched data).
pub fn measured_points_of(
    op: &Op,
    chip: &Chip,
    rows: &[MeasuredRow],
) -> (Vec<MeasuredPoint>, Vec<(Engine, bool)>) {
    let mut out = Vec::new();
    let Some(l) = op.llm() else {
        return (out, Vec::new());
    };
    let chip_id = chip.preset_id.as_deref().unwrap_or("");
    let arch = l.arch();
    for r in rows {
        // The same architecture (Llama 3 and 3.1 share theirs), chip and run.
        let same_model = crate::arch::arch_preset(&r.preset).is_some_and(|p| p.arch == arch);
        if !same_model || r.chip != chip_id {
            continue;
        }
        if r.isl != l.prompt
            || r.osl != l.output
            || (r.tp, r.ep, r.moe_ep) != (l.tp, l.ep, l.moe_ep)
        {
            continue;
        }
        let Some(engine) = Engine::from_id(&r.engine) else {
            continue;
        };
        let life = r.ttft + (r.osl - 1.0) * r.tpot;
        out.push(MeasuredPoint {
            id: r.id.clone(),
            engine,
            c: r.c,
            isl: r.isl,
            osl: r.osl,
            ttft: r.ttft,
            tpot: r.tpot,
            tokens_per_s_chip: r.c * r.osl / life / l.chips(),
            tokens_per_s_user: 1.0 / r.tpot,
        });
    }
    out.sort_by(|a, b| {
        (a.engine as usize, a.c)
            .partial_cmp(&(b.engine as usize, b.c))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    let has = [Engine::Vllm, Engine::Sglang, Engine::Trtllm]
        .into_iter()
        .map(|e| (e, out.iter().any(|p| p.engine == e)))
        .collect();
    (out, has)
}
