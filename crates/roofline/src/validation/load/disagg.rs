//! The serving-at-load set's disaggregated rows (issue 42): 1,602 measured runs of prefill and
//! decode workers apart, read into links by a written rule, and their TTFT and TPOT against the
//! simulation of the same deployment, each step read by the engines' fitted terms held out by
//! (model, system) group.
//!
//! # The mapping rule
//!
//! A disaggregated row becomes the link `?chip=C&op=llm:preset=P,tp=d_tp[,ep=d_ep][,link=
//! nvlink],[w=..,x=..,]prompt=ISL,output=OSL,load=concurrency,c=N,engine=E,disagg=xPyD,
//! p_tp=..,p_ep=..,kv_link=nvlink|dcn` unless one of these, in this order, leaves it out
//! ([`Why`]):
//!
//! 1. **Attention forms the architecture lacks** (GLM-5's sparse attention, 22 rows) and models
//!    or systems the rule does not name: as the aggregated rule (`rows.rs`, steps 2).
//! 2. **No concurrency** (7 rows of the Qwen3-32B campaign): the load is unknown.
//! 3. **No topology** (970 rows): the 2026-03-25 and 2026-04-06 campaigns write each stage's
//!    parallel columns but neither stage's worker count, so `x` and `y` are unknown; a row
//!    takes them from a row of the same measurement (TTFT and TPOT to 12 significant digits,
//!    as the aggregated rule's twins) that writes them (336 rows), never by guess.
//! 4. **The layout** of each stage (from the row that writes the workers): `tp` tensor-parallel
//!    GPUs in each of `attention_dp` groups (`p_tp`, `p_ep`; `d_tp`, `d_ep`); a mixture of
//!    experts needs `moe_tp × moe_ep = tp × attention_dp` and `attention_dp` dividing its
//!    experts, a dense model `attention_dp = 1`, and `tp` must divide the heads. The experts'
//!    split inside a group (`moe_ep`) is left out of the link: under uniform routing it does
//!    not change the bound, and the two stages may split differently.
//! 5. **The batch**: `decode_batch_size × decode attention_dp × y` must be the concurrency (the
//!    per-rank batch of the decode workers at the row's load).
//! 6. **Precision**: as the aggregated rule (step 7).
//!
//! The KV moves over NVLink where every worker fits in one NVLink domain (the chip's `node`:
//! 72 GPUs on GB200 and GB300, 8 on HGX), else over the network (`dcn`). The op's own `tp`
//! and `ep` are the decode worker's (what aggregated serving on the same chips is compared
//! with).
//!
//! # The figures
//!
//! Each distinct measurement once (twins dropped): a closed loop of the row's `c` clients
//! started at once (the runs' first wave), lengths fixed, `max(2c + 500, 1,000)` requests of
//! which the first 20 % are discarded; the mean TTFT and TPOT of the rest against the row's.
//! The steps are read by the engines' TPOT terms fitted on the aggregated rows **without the
//! row's (model, system) group** (the engine's own, else `generic`), so no disaggregated row
//! and no aggregated row of its group enters what predicts it; and by the bare bound.

#![cfg(feature = "sources")]

use super::super::fit::{median, percentile};
use super::super::{family_of, Family};
use super::fit::{fit_figure, of_engine};
use super::rows::{chip_of, dtypes, model_of, rows, Mode, Row};
use super::steps::FittedSteps;
use super::{observe, row_inputs, EngineFit, Figure, LoadObs};
use crate::chip::preset as chip_preset;
use crate::op::Engine;
use crate::serving::sim::{self, Arrivals, BoundSteps, SimSpec, Starts, StepTiming};
use crate::serving::tails::MAX_STEPS;
use crate::url::decode;
use std::collections::HashMap;

/// The targets, held out: TPOT median |error| and TTFT median |error|.
pub const TARGETS: [f64; 2] = [0.12, 0.25];

/// Why a disaggregated row has no link (the rule's steps, in order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Why {
    /// GLM-5's sparse attention or Qwen3.5's linear attention.
    Attention,
    /// A model or system the rule does not name.
    Unknown,
    /// No `silicon_concurrency`.
    NoConcurrency,
    /// No worker counts, here or on a row of the same measurement.
    NoTopology,
    /// Attention data parallelism on a dense model.
    DenseDataParallel,
    /// Parallel columns that do not fit the model or each other.
    Inconsistent,
    /// `decode_batch_size × attention_dp × y ≠ c`.
    BatchMismatch,
    /// A quantisation mode the rule does not read.
    Precision,
}

impl Why {
    /// The reason in words.
    pub fn text(self) -> &'static str {
        match self {
            Why::Attention => "an attention form the architecture lacks (GLM-5's sparse attention), never read as full attention",
            Why::Unknown => "a model or system the rule does not name",
            Why::NoConcurrency => "the row names no concurrency: the load is unknown",
            Why::NoTopology => "the row names no worker counts (x prefill, y decode), nor does a row of the same measurement: its xPyD is unknown",
            Why::DenseDataParallel => "attention data parallelism on a dense model",
            Why::Inconsistent => "a stage's parallel columns do not fit the model or each other",
            Why::BatchMismatch => "decode batch × attention DP × decode workers is not the concurrency",
            Why::Precision => "a quantisation mode the rule does not read",
        }
    }
}

/// A disaggregated row's link and what the rule read.
#[derive(Debug, Clone, PartialEq)]
pub struct Expressed {
    /// The v1 link.
    pub link: String,
    /// Prefill and decode workers.
    pub xy: (u32, u32),
    /// GPUs in all.
    pub gpus: u32,
    /// The row the workers were read from, if not this one.
    pub topology_from: Option<&'static str>,
    /// Caveats of the reading.
    pub notes: Vec<&'static str>,
}

/// One disaggregated row and its link, or why it has none.
#[derive(Debug, Clone)]
pub struct DisaggRow {
    /// The row.
    pub row: &'static Row,
    /// Its link, or why not.
    pub scenario: Result<Expressed, Why>,
}

/// A measurement's key: TTFT and TPOT in seconds to 12 significant digits.
fn key(r: &Row) -> (String, String) {
    (
        format!("{:.11e}", r.ttft * 1e3),
        format!("{:.11e}", r.tpot * 1e3),
    )
}

fn has_workers(r: &Row) -> bool {
    r.disagg.is_some_and(|d| {
        d.prefill.workers.is_some() && d.decode.workers.is_some() && d.decode.batch_size.is_some()
    })
}

/// Every disaggregated row, in the file's order, read by the rule.
pub fn disagg_rows() -> Vec<DisaggRow> {
    let all = rows();
    let mut same: HashMap<(String, String), Vec<&'static Row>> = HashMap::new();
    for r in all {
        same.entry(key(r)).or_default().push(r);
    }
    all.iter()
        .filter(|r| r.mode == Mode::Disaggregated)
        .map(|r| {
            let src = if has_workers(r) {
                Some(r)
            } else {
                same.get(&key(r)).and_then(|v| {
                    v.iter()
                        .copied()
                        .find(|t| t.mode == Mode::Disaggregated && has_workers(t))
                })
            };
            DisaggRow {
                row: r,
                scenario: express(r, src),
            }
        })
        .collect()
}

/// The rule (module docs), one row, its workers read from `src`.
fn express(r: &Row, src: Option<&'static Row>) -> Result<Expressed, Why> {
    let model = model_of(r.model).ok_or(Why::Unknown)?;
    if model.lacks.is_some() {
        return Err(Why::Attention);
    }
    let arch = crate::arch::arch_preset(model.preset).ok_or(Why::Unknown)?;
    let chip_id = chip_of(r.system).ok_or(Why::Unknown)?;
    let chip = chip_preset(chip_id).ok_or(Why::Unknown)?;
    let c = r.c.ok_or(Why::NoConcurrency)?;
    let src = src.ok_or(Why::NoTopology)?;
    let d = src.disagg.ok_or(Why::NoTopology)?;
    let one = |x: Option<u32>| x.filter(|&v| v > 0).unwrap_or(1);
    let mut stages = [(0u32, 0u32); 2];
    for (i, s) in [d.prefill, d.decode].iter().enumerate() {
        let p = s.parallel;
        let (tp, adp, mt, me) = (one(p.tp), one(p.attention_dp), one(p.moe_tp), one(p.moe_ep));
        match arch.arch.moe {
            None if adp != 1 => return Err(Why::DenseDataParallel),
            Some(m) if mt * me != tp * adp || m.experts % f64::from(adp) != 0.0 => {
                return Err(Why::Inconsistent);
            }
            None | Some(_) => {}
        }
        if arch.arch.heads % f64::from(tp) != 0.0 {
            return Err(Why::Inconsistent);
        }
        stages[i] = (tp, adp);
    }
    let (x, y) = (one(d.prefill.workers), one(d.decode.workers));
    if one(d.decode.batch_size) * stages[1].1 * y != c {
        return Err(Why::BatchMismatch);
    }
    let (w, xd, mut notes) = dtypes(r, &model, &chip).ok_or(Why::Precision)?;
    let gpus = x * stages[0].0 * stages[0].1 + y * stages[1].0 * stages[1].1;
    let node = chip.node.unwrap_or(1.0) as u32;
    let kv_link = if gpus <= node { "nvlink" } else { "dcn" };
    let ((pt, pe), (dt, de)) = (stages[0], stages[1]);
    let mut keys = vec![format!("preset={}", model.preset)];
    if dt > 1 {
        keys.push(format!("tp={dt}"));
    }
    if de > 1 {
        keys.push(format!("ep={de}"));
    }
    if pt * pe > 1 || dt * de > 1 {
        keys.push("link=nvlink".into());
    }
    if w != crate::dtype::DType::Bf16 {
        keys.push(format!("w={}", w.as_str()));
    }
    if xd != crate::dtype::DType::Bf16 {
        keys.push(format!("x={}", xd.as_str()));
    }
    keys.push(format!("prompt={}", r.isl));
    keys.push(format!("output={}", r.osl));
    keys.push("load=concurrency".into());
    keys.push(format!("c={c}"));
    keys.push(format!("engine={}", r.engine));
    keys.push(format!("disagg={x}P{y}D"));
    if pt != dt {
        keys.push(format!("p_tp={pt}"));
    }
    if pe != de {
        keys.push(format!("p_ep={pe}"));
    }
    keys.push(format!("kv_link={kv_link}"));
    if r.version.is_none() {
        notes.push("engine version not recorded: read as the engine alone");
    }
    let topology_from = (!std::ptr::eq(src, r)).then_some(src.id);
    if topology_from.is_some() {
        notes.push("worker counts and layout read from a row of the same measurement");
    }
    Ok(Expressed {
        link: format!("?chip={chip_id}&op=llm:{}", keys.join(",")),
        xy: (x, y),
        gpus,
        topology_from,
        notes,
    })
}

/// One measurement's figures: measured, bound and expected (held out).
#[derive(Debug, Clone, PartialEq)]
pub struct Obs {
    /// The row's id.
    pub id: &'static str,
    /// Its (model, system) group.
    pub group: String,
    /// Its engine.
    pub engine: Engine,
    /// Its chip's generation.
    pub family: Option<Family>,
    /// Measured TTFT and TPOT, seconds.
    pub measured: [f64; 2],
    /// The simulation with each step at its bound.
    pub bound: [f64; 2],
    /// The simulation with each step read by the held-out fits; `None` where there are none.
    pub expected: Option<[f64; 2]>,
    /// The fit's engine (its own, or `generic`).
    pub fit: Option<Engine>,
}

/// A group of rows' held-out figures.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    /// The group (`trtllm`, `sglang on blackwell`, `all`).
    pub label: String,
    /// Measurements.
    pub n: usize,
    /// TPOT: median and p90 |expected/measured − 1|.
    pub tpot: Option<(f64, f64)>,
    /// TTFT: the same.
    pub ttft: Option<(f64, f64)>,
    /// The bound's median |bound/measured − 1|, TPOT then TTFT.
    pub bare: [Option<f64>; 2],
}

/// The disaggregated rows' report.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// Disaggregated rows.
    pub total: usize,
    /// With a link.
    pub expressed: usize,
    /// Of them on GB200 or GB300.
    pub expressed_gb: usize,
    /// Rows on GB200 or GB300 in all.
    pub total_gb: usize,
    /// Distinct measurements evaluated.
    pub measurements: usize,
    /// Rows left out, by reason.
    pub unexpressed: Vec<(Why, usize)>,
    /// Each measurement.
    pub obs: Vec<Obs>,
    /// By engine, then by engine and generation, then all.
    pub summaries: Vec<Summary>,
    /// Measurements whose simulation failed, and why.
    pub failed: Vec<(&'static str, String)>,
}

/// The aggregated fits of every engine without the rows of `group` (the hold-out).
fn fits_without(obs: &[LoadObs], group: &str) -> Vec<EngineFit> {
    let keep: Vec<LoadObs> = obs.iter().filter(|o| o.group != group).cloned().collect();
    let mut out = Vec::new();
    for e in [
        Engine::Generic,
        Engine::Vllm,
        Engine::Sglang,
        Engine::Trtllm,
    ] {
        let rows = of_engine(&keep, e);
        if let Some(m) = fit_figure(&rows, Figure::Tpot) {
            let mut families: Vec<Family> = rows.iter().filter_map(|o| o.family).collect();
            families.sort_by_key(|f| f.id());
            families.dedup();
            let mut chips: Vec<String> = rows.iter().map(|o| o.chip.clone()).collect();
            chips.sort();
            chips.dedup();
            out.push(EngineFit {
                engine: e,
                ttft: m.clone(),
                tpot: m,
                bands: [None, None],
                rows: rows.len(),
                chips,
                families,
            });
        }
    }
    out
}

/// The closed loop of a row's link, read by `timing`: its mean TTFT and TPOT.
pub fn simulate(link: &str, timing: &dyn StepTiming) -> Result<[f64; 2], String> {
    let d = decode(link);
    if !d.notices.is_empty() {
        return Err(d.notices.join("; "));
    }
    let s = d.scenario;
    let (op, chip) = (&s.ops[0], &s.chips[0]);
    let l = op.llm().ok_or("not an llm")?;
    let p = crate::serving::disagg::plan(
        l,
        chip,
        chip,
        &s.options,
        match l.disagg {
            crate::op::Disagg::Split { prefill, decode } => (prefill, decode),
            _ => return Err("not disaggregated".into()),
        },
    )
    .map_err(|e| e.to_string())?;
    let mut dep = p
        .deployment(&s.options, timing)
        .map_err(|e| e.to_string())?;
    let c = l.c as usize;
    let spec = SimSpec {
        requests: (2 * c + 500).max(1000),
        arrivals: Arrivals::Closed {
            clients: c,
            starts: Starts::Ramp,
        },
        seed: 1,
        prompt: l.prompt,
        output: l.output,
        prompt_cv: 0.0,
        output_cv: 0.0,
        max_steps: MAX_STEPS,
        fast_forward: true,
        slo: None,
    };
    let r = sim::run(&mut dep, &spec).map_err(|e| e.to_string())?;
    Ok([r.ttft.mean, r.tpot.map_or(f64::NAN, |t| t.mean)])
}

fn summary(label: String, obs: &[&Obs]) -> Summary {
    let errs = |i: usize| -> Vec<f64> {
        obs.iter()
            .filter_map(|o| o.expected.map(|e| (e[i] / o.measured[i] - 1.0).abs()))
            .filter(|x| x.is_finite())
            .collect()
    };
    let bare = |i: usize| -> Option<f64> {
        let v: Vec<f64> = obs
            .iter()
            .map(|o| (o.bound[i] / o.measured[i] - 1.0).abs())
            .filter(|x| x.is_finite())
            .collect();
        median(&v)
    };
    let mp = |v: Vec<f64>| Some((median(&v)?, percentile(&v, 0.9)?));
    Summary {
        label,
        n: obs.len(),
        ttft: mp(errs(0)),
        tpot: mp(errs(1)),
        bare: [bare(1), bare(0)],
    }
}

/// The disaggregated rows evaluated (module docs): slow in a debug build (a fit per held-out
/// group and a simulation per measurement); `./dev validate` runs it in release.
pub fn report() -> Report {
    let rows = disagg_rows();
    let total = rows.len();
    let is_gb = |r: &Row| matches!(r.system, "gb200" | "gb300");
    let total_gb = rows.iter().filter(|d| is_gb(d.row)).count();
    let mut unexpressed: HashMap<Why, usize> = HashMap::new();
    let mut seen = std::collections::HashSet::new();
    let mut todo = Vec::new();
    let mut expressed = 0;
    let mut expressed_gb = 0;
    for d in &rows {
        match &d.scenario {
            Ok(e) => {
                expressed += 1;
                expressed_gb += usize::from(is_gb(d.row));
                if seen.insert(key(d.row)) {
                    todo.push((d.row, e.link.clone()));
                }
            }
            Err(w) => *unexpressed.entry(*w).or_default() += 1,
        }
    }
    let mut unexpressed: Vec<(Why, usize)> = unexpressed.into_iter().collect();
    unexpressed.sort();
    // The aggregated rows as the fit sees them, each measurement once.
    let agg: Vec<LoadObs> = row_inputs()
        .iter()
        .filter_map(|r| r.as_ref().ok())
        .filter(|r| r.twin_of.is_none())
        .filter_map(|r| observe(r).ok())
        .collect();
    let mut fits: HashMap<String, FittedSteps> = HashMap::new();
    let mut obs = Vec::new();
    let mut failed = Vec::new();
    for (row, link) in todo {
        let timing = fits
            .entry(row.group.clone())
            .or_insert_with(|| FittedSteps::with(fits_without(&agg, &row.group)));
        let bound = simulate(&link, &BoundSteps);
        let expected = simulate(&link, &*timing);
        let chip = chip_of(row.system).and_then(chip_preset);
        let fit = chip.as_ref().and_then(|c| {
            let d = decode(&link);
            let l = *d.scenario.ops.first()?.llm()?;
            timing.coef(&l, c).ok().map(|_| l.engine)
        });
        match bound {
            Ok(b) => obs.push(Obs {
                id: row.id,
                group: row.group.clone(),
                engine: crate::op::Engine::from_id(row.engine).unwrap_or_default(),
                family: chip.as_ref().and_then(family_of),
                measured: [row.ttft, row.tpot],
                bound: b,
                expected: expected.ok(),
                fit,
            }),
            Err(e) => failed.push((row.id, e)),
        }
    }
    let mut summaries = Vec::new();
    let engines = [Engine::Vllm, Engine::Sglang, Engine::Trtllm];
    for e in engines {
        let v: Vec<&Obs> = obs.iter().filter(|o| o.engine == e).collect();
        if !v.is_empty() {
            summaries.push(summary(e.as_str().into(), &v));
        }
    }
    for e in engines {
        for f in Family::ALL {
            let v: Vec<&Obs> = obs
                .iter()
                .filter(|o| o.engine == e && o.family == Some(f))
                .collect();
            if !v.is_empty() {
                summaries.push(summary(format!("{} on {}", e.as_str(), f.id()), &v));
            }
        }
    }
    summaries.push(summary("all".into(), &obs.iter().collect::<Vec<_>>()));
    Report {
        total,
        expressed,
        expressed_gb,
        total_gb,
        measurements: obs.len() + failed.len(),
        unexpressed,
        obs,
        summaries,
        failed,
    }
}
