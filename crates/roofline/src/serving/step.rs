//! The mixed step: one forward pass of an engine over prefill chunks and decode tokens of many
//! sequences, timed by the book's per-step roofline (issue 40). The steady-state load model
//! ([`super::load`]), the simulation of "Serving tails and topologies" and the trace importer
//! of "Your own engine, step by step" all time their steps here.
//!
//! A step is given as engines annotate theirs, per phase: sequences, Σ new tokens `sq`, Σ keys
//! `sk`, Σ new² `sqsq`, Σ new·keys `sqsk` ([`PhaseLoad`], [`StepMix`]; the convention and the
//! causal correction are on [`PhaseLoad`]). Its time is `T_lower` of the `llm` op's parts
//! built with the step's values: weights read once for all the step's tokens, the experts
//! those tokens hit, attention FLOPs and KV bytes from the aggregates, the LM head on every
//! sequence of the step, each part on its own roofline and summed. A pure decode step of `B`
//! sequences at context `S` ([`PhaseLoad::decode`]) or a pure prefill of `B` prompts of `S`
//! tokens ([`PhaseLoad::prefill`]) is the op's own step in that phase, to the bit.
//!
//! ```
//! use roofline::serving::{step_time, PhaseLoad, StepMix};
//! use roofline::{preset, Op, Options};
//! let op = Op::default_for("llm").unwrap(); // Llama-3 8B
//! let h100 = preset("h100").unwrap();
//! let opts = Options::default();
//! // 63 sequences decoding at context 2560 beside one 1024-token prompt chunk.
//! let mix = StepMix {
//!     prefill: PhaseLoad::prefill(1.0, 1024.0),
//!     decode: PhaseLoad::decode(63.0, 2560.0),
//! };
//! let mixed = step_time(&op, &h100, &opts, &mix).unwrap();
//! let decode = step_time(&op, &h100, &opts, &StepMix::decode(mix.decode)).unwrap();
//! assert!(mixed.t > decode.t); // the chunk's 1,024 tokens cost more than weights read once
//! ```

use crate::analysis::{check_inputs, composite_times, Bound, Options};
use crate::chip::Chip;
use crate::error::Error;
use crate::op::Op;
pub use crate::op::{PhaseLoad, StepMix};
use serde::{Deserialize, Serialize};

/// A mixed step's time and what binds it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepTime {
    /// `T_lower` of the step, seconds: `Σ repeat·max(T_math, T_comms)` over its parts.
    pub t: f64,
    /// FLOPs of the step per chip (2 per multiply-add).
    pub flops: f64,
    /// HBM bytes the step moves per chip (its parts' reads and writes): with `flops`, where
    /// the step sits on the roofline (issue 43).
    #[serde(default)]
    pub hbm_bytes: f64,
    /// What binds the step as a whole (its summed compute time against each resource's
    /// summed traffic time).
    pub bound: Bound,
    /// Seconds of `t` in parts bound by compute, by memory and by a link (they add up to `t`).
    pub by_bound: [f64; 3],
    /// The parts that cross a link (collectives), each counted `repeat` times.
    pub collectives: f64,
    /// The part that takes the most of `t` (its `repeat` included).
    pub binding_part: String,
    /// Its share of `t`.
    pub binding_share: f64,
    /// Sequences in the step.
    pub seqs: f64,
    /// Tokens in the step.
    pub tokens: f64,
}

impl StepTime {
    /// Seconds of `t` in parts bound by `b`.
    pub fn in_bound(&self, b: Bound) -> f64 {
        self.by_bound[bound_index(b)]
    }
}

fn bound_index(b: Bound) -> usize {
    match b {
        Bound::Compute => 0,
        Bound::Memory => 1,
        Bound::Network => 2,
    }
}

fn not_llm() -> Error {
    Error::invalid(
        "kind",
        "not llm",
        "a serving step is a step of an llm op (a transformer)",
    )
}

/// The time of a mixed step of `op` (an `llm`) on `chip` (see the module docs). Errors: the
/// op's own (as [`crate::analyze`] would give them), a step whose aggregates cannot come from
/// real sequences ([`StepMix::check`]), an op that is not an `llm`.
pub fn step_time(op: &Op, chip: &Chip, opts: &Options, mix: &StepMix) -> Result<StepTime, Error> {
    let l = op.llm().ok_or_else(not_llm)?;
    check_inputs(&op.kind, chip, opts)?;
    mix.check()?;
    step_time_unchecked(l, chip, opts, mix)
}

/// [`step_time`] of an `llm` already checked (the load model times many steps of one op).
pub(crate) fn step_time_unchecked(
    l: &crate::op::Llm,
    chip: &Chip,
    opts: &Options,
    mix: &StepMix,
) -> Result<StepTime, Error> {
    let c = l.mixed_composite(mix);
    let (ev, parts) = composite_times(&c, chip, opts)?;
    let mut by_bound = [0.0; 3];
    let mut collectives = 0.0;
    let mut hbm_bytes = 0.0;
    let mut top = (0usize, -1.0);
    for (i, p) in parts.iter().enumerate() {
        let t = p.repeat * p.ev.t_lower();
        by_bound[bound_index(p.ev.bound)] += t;
        if p.crosses_link {
            collectives += p.repeat;
        }
        hbm_bytes += p.repeat * p.hbm_bytes;
        if t > top.1 {
            top = (i, t);
        }
    }
    let t = ev.t_lower();
    Ok(StepTime {
        t,
        flops: ev.flops,
        hbm_bytes,
        bound: ev.bound,
        by_bound,
        collectives,
        binding_part: c.parts.get(top.0).map_or(String::new(), |p| p.name.clone()),
        binding_share: if t > 0.0 { top.1 / t } else { 0.0 },
        seqs: mix.seqs(),
        tokens: mix.tokens(),
    })
}
