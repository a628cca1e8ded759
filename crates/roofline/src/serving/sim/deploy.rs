//! A deployment's workers from an `llm` op: the engine's defaults and caps as the load model
//! resolves them (issue 40's [`LoadModel`]), its steps' evaluator, and the coefficients its
//! steps are read with.

use super::run::{Deployment, Worker};
use super::{StepCoef, StepTiming};
use crate::analysis::Options;
use crate::chip::Chip;
use crate::error::Error;
use crate::op::{Engine, Llm, Op, OpKind, Role};
use crate::serving::{LoadModel, Pattern, StepEval};

/// An engine's worker of `l` on `chip` in `role` (`None`: aggregated), its steps read by
/// `coef`: the budget, the sequence cap (for mixed steps also the budget: a step holds one
/// token per running sequence), the KV pool in tokens over the `ep` groups (the common
/// prefix's apart; a token's bytes those of the mean context `P + G/2`, exact where no layer
/// has a window), from [`LoadModel::new`]. Errors as it does.
pub fn worker(
    l: &Llm,
    chip: &Chip,
    opts: &Options,
    role: Option<Role>,
    coef: StepCoef,
) -> Result<Worker, Error> {
    let op = Op::new(OpKind::from(*l));
    let m = LoadModel::new(&op, chip, opts)?;
    let r = &m.resolved;
    let pattern = r.defaults.pattern;
    let budget = r.budget.unwrap_or(f64::INFINITY);
    let mut cap = r.max_seqs;
    if pattern == Pattern::Mixed && role.is_none() {
        cap = cap.min(budget);
    }
    let mean = l.prompt + l.output / 2.0;
    let per_token = l.kv_bytes_per_seq(mean) / mean;
    let free = (r.pool_bytes - r.prefix_bytes).max(0.0);
    let seq_max = if per_token > 0.0 {
        (free / per_token).floor()
    } else {
        f64::INFINITY
    };
    Ok(Worker {
        role,
        eval: StepEval::new(l, chip, opts)?,
        coef,
        pattern,
        budget,
        cap,
        pool: seq_max * l.ep,
        seq_max,
        pages: r.defaults.pages,
        chunk_send: l.engine == Engine::Sglang,
        host: None,
    })
}

/// The aggregated deployment of `l` on `chip`: one worker, its steps read by `timing`.
pub fn aggregated(
    l: &Llm,
    chip: &Chip,
    opts: &Options,
    timing: &dyn StepTiming,
) -> Result<Deployment, Error> {
    let coef = timing
        .coef(l, chip)
        .map_err(|why| Error::invalid("engine", l.engine.as_str(), why))?;
    let w = worker(l, chip, opts, None, coef)?;
    Ok(Deployment {
        workers: vec![w],
        hit: prefix_tokens(l),
        transfer: 0.0,
        hits: None,
        host: None,
    })
}

/// Prompt tokens served by the prefix cache: `⌊prefix_hit·P⌋`, at most `P − 1` (the load
/// model's `P_h`).
pub fn prefix_tokens(l: &Llm) -> f64 {
    (l.prefix_hit * l.prompt)
        .floor()
        .min(l.prompt - 1.0)
        .max(0.0)
}
