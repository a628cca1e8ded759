//! One step of an `llm` as a serving engine runs it (issue 40): prefill chunks and decode
//! tokens of many sequences in one forward pass, given the way engines annotate their steps,
//! per phase (`c_` the prefill chunks, `g_` the decode tokens): sequences, Σ new tokens
//! (`sq`), Σ keys attended (`sk`), Σ new² (`sqsq`), Σ new·keys (`sqsk`).
//!
//! `sk` counts, per sequence, the keys its queries attend to: the cached context plus the
//! step's own new tokens (FlashAttention's `seqlen_k`; a decode step at context `S` has
//! `sk = S`, a prompt's first chunk of `q` tokens `sk = q`). With `q` new tokens over `k`
//! keys, the `i`-th new query (from 1) sees `k − q + i` keys (causal), so a sequence's
//! score pairs per head are `q·k − (q² − q)/2` and the step's, summed over its sequences,
//!
//! ```text
//! pairs = Σ q·k − (Σ q² − Σ q)/2 = sqsk − (sqsq − sq)/2      (the causal correction)
//! ```
//!
//! exact whatever the sequences' lengths; every key is read once per sequence (`sk`
//! positions of K and of V). Sliding-window layers see `min(position, W)` keys, which the
//! aggregates cannot give per sequence: they are taken at the phase's mean sequence (`sq/seqs`
//! new tokens over `sk/seqs` keys), exact when the phase's sequences have equal lengths.
//!
//! The step's parts are the op's own ([`Llm::parts_at`]) with the step's values: the weights
//! are read once for all `T = sq_prefill + sq_decode` tokens, the routed experts hit are those
//! of `T` tokens, the attention parts take the pairs and keys above, and the LM head runs on
//! every sequence of the step (each one's last scheduled position: a chunk that does not end
//! its prompt still computes its logits, as vLLM's model runner does, and discards the
//! sample). A pure decode step of `B` sequences at context `S`, or a pure prefill of `B`
//! prompts of `S` tokens, is the op's own step in that phase: the same parts from the same
//! values, so the same `T_lower` to the bit (`tests/it/serving_step.rs`).

use super::behavior::Composite;
use super::llm::{InferenceStep, Llm};
use super::llm_parts::StepVars;
use crate::error::Error;
use crate::units::format_exact;
use serde::{Deserialize, Serialize};

/// One phase of a step (its prefill chunks, or its decode tokens), summed over its sequences.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct PhaseLoad {
    /// Sequences in the phase.
    pub seqs: f64,
    /// Σ new tokens `q` (a decode sequence has 1; a prefill chunk its chunk).
    pub sq: f64,
    /// Σ keys `k` each sequence's queries attend to: its cached context plus its new tokens.
    pub sk: f64,
    /// Σ `q²`.
    pub sqsq: f64,
    /// Σ `q·k`.
    pub sqsk: f64,
}

impl PhaseLoad {
    /// `seqs` sequences alike, each with `q` new tokens over `k` keys (its context plus `q`).
    pub fn uniform(seqs: f64, q: f64, k: f64) -> PhaseLoad {
        PhaseLoad {
            seqs,
            sq: seqs * q,
            sk: seqs * k,
            sqsq: seqs * q * q,
            sqsk: seqs * q * k,
        }
    }

    /// `B` decode sequences at context `S` (keys `S`, the new token included).
    pub fn decode(b: f64, ctx: f64) -> PhaseLoad {
        PhaseLoad {
            seqs: b,
            sq: b,
            sk: b * ctx,
            sqsq: b,
            sqsk: b * ctx,
        }
    }

    /// `B` prompts of `P` tokens prefilled whole.
    pub fn prefill(b: f64, prompt: f64) -> PhaseLoad {
        let t = b * prompt;
        PhaseLoad {
            seqs: b,
            sq: t,
            sk: t,
            sqsq: t * prompt,
            sqsk: t * prompt,
        }
    }

    /// The sum of two phases' aggregates.
    pub fn plus(self, o: PhaseLoad) -> PhaseLoad {
        PhaseLoad {
            seqs: self.seqs + o.seqs,
            sq: self.sq + o.sq,
            sk: self.sk + o.sk,
            sqsq: self.sqsq + o.sqsq,
            sqsk: self.sqsk + o.sqsk,
        }
    }

    /// Every aggregate times `w` (a share of steps).
    pub fn scaled(self, w: f64) -> PhaseLoad {
        PhaseLoad {
            seqs: self.seqs * w,
            sq: self.sq * w,
            sk: self.sk * w,
            sqsq: self.sqsq * w,
            sqsk: self.sqsk * w,
        }
    }

    /// Score pairs per head summed over the phase's sequences, causal: `sqsk − (sqsq − sq)/2`.
    pub fn pairs(&self) -> f64 {
        self.sqsk - (self.sqsq - self.sq) / 2.0
    }

    /// Checks the aggregates can come from real sequences: finite, not negative, at least one
    /// new token per sequence and every new token among its keys (`sq ≥ seqs`, `sk ≥ sq`),
    /// none without sequences, and `sq² ≤ seqs·sqsq` (Cauchy–Schwarz). `phase` names it.
    pub fn check(&self, phase: &str) -> Result<(), Error> {
        let bad = |what: &str, v: f64, why: &str| {
            Err(Error::invalid(
                &format!("{phase}.{what}"),
                format_exact(v),
                why.to_string(),
            ))
        };
        for (what, v) in [
            ("seqs", self.seqs),
            ("sq", self.sq),
            ("sk", self.sk),
            ("sqsq", self.sqsq),
            ("sqsk", self.sqsk),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return bad(what, v, "must be a finite number ≥ 0");
            }
        }
        if self.seqs == 0.0 {
            if self.sq + self.sk + self.sqsq + self.sqsk > 0.0 {
                return bad("seqs", 0.0, "a phase with tokens has sequences");
            }
            return Ok(());
        }
        if self.sq < self.seqs {
            return bad("sq", self.sq, "must be at least one new token per sequence");
        }
        if self.sk < self.sq {
            return bad(
                "sk",
                self.sk,
                "must count every new token among the keys (sk ≥ sq)",
            );
        }
        // Σq² ≥ (Σq)²/n and Σq·k ≥ Σq² (k ≥ q per sequence), with a relative margin for
        // aggregates summed in floating point.
        let tol = 1e-9;
        if self.sqsq * (1.0 + tol) < self.sq * self.sq / self.seqs {
            return bad("sqsq", self.sqsq, "must be at least sq²/seqs");
        }
        if self.sqsk * (1.0 + tol) < self.sqsq {
            return bad(
                "sqsk",
                self.sqsk,
                "must be at least sqsq (k ≥ q per sequence)",
            );
        }
        Ok(())
    }
}

/// A step of an engine: its prefill chunks and its decode tokens.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct StepMix {
    /// The prefill chunks (`c_`).
    pub prefill: PhaseLoad,
    /// The decode tokens (`g_`).
    pub decode: PhaseLoad,
}

impl StepMix {
    /// A step of decode tokens only.
    pub fn decode(p: PhaseLoad) -> StepMix {
        StepMix {
            prefill: PhaseLoad::default(),
            decode: p,
        }
    }

    /// A step of prefill chunks only.
    pub fn prefill(p: PhaseLoad) -> StepMix {
        StepMix {
            prefill: p,
            decode: PhaseLoad::default(),
        }
    }

    /// Sequences in the step.
    pub fn seqs(&self) -> f64 {
        self.prefill.seqs + self.decode.seqs
    }

    /// Tokens in the step, `T = sq_prefill + sq_decode`.
    pub fn tokens(&self) -> f64 {
        self.prefill.sq + self.decode.sq
    }

    /// Checks both phases ([`PhaseLoad::check`]) and that the step has a sequence.
    pub fn check(&self) -> Result<(), Error> {
        self.prefill.check("prefill")?;
        self.decode.check("decode")?;
        if self.seqs() <= 0.0 {
            return Err(Error::invalid(
                "step",
                "0 sequences",
                "a step has at least one sequence",
            ));
        }
        Ok(())
    }
}

/// Pairs and keys read per sequence of a window-`W` layer, for a sequence of `q` new tokens
/// over `k` keys: the new query `i` (from 1) sees `min(k − q + i, W)` keys, so with `a = k − q`
/// cached and `m = clamp(W − a, 0, q)` queries inside the window, pairs `m·a + m(m+1)/2 +
/// (q − m)·W`; the keys read are those any query sees, `min(k, W + q − 1)`. Decode (`q = 1`,
/// `k = S`): `min(S, W)` both; a prompt (`a = 0`, `q = k = S`): `Σ min(i, W)` and `S`.
fn window_pairs_read(q: f64, k: f64, w: f64) -> (f64, f64) {
    let a = k - q;
    let m = (w - a).clamp(0.0, q);
    // Without a window (`W` infinite) every query is inside it: no `0·∞` term.
    let outside = if m < q { (q - m) * w } else { 0.0 };
    (m * a + m * (m + 1.0) / 2.0 + outside, k.min(w + q - 1.0))
}

impl Llm {
    /// The step values of a mixed step ([`StepVars`]): `B` its sequences, `T` its tokens, the
    /// experts `T` tokens hit, and per sequence (on average) the pairs and keys of the global
    /// layers (exact, from the aggregates) and of the windowed ones (at each phase's mean
    /// sequence).
    pub(crate) fn mixed_vars(&self, mix: &StepMix) -> StepVars {
        self.mixed_vars_of(&self.arch(), mix)
    }

    /// [`Llm::mixed_vars`] with the op's architecture `a` given (built once by a caller that
    /// times many steps).
    pub(crate) fn mixed_vars_of(&self, a: &crate::arch::Arch, mix: &StepMix) -> StepVars {
        let w = a.window.map_or(f64::INFINITY, |x| x.size);
        let b = mix.seqs();
        let t = mix.tokens();
        let phases = [mix.prefill, mix.decode];
        // The phases with sequences, without allocating (the simulation times a step this way
        // hundreds of thousands of times per run).
        let mut buf = [&phases[0]; 2];
        let mut n_live = 0;
        for p in phases.iter().filter(|p| p.seqs > 0.0) {
            buf[n_live] = p;
            n_live += 1;
        }
        let live = &buf[..n_live];
        // Per sequence of the step. A step of one phase takes its values directly, so a pure
        // decode or prefill step is the op's own step in that phase, bit for bit.
        let per_seq = |f: &dyn Fn(&PhaseLoad) -> f64| -> f64 {
            match live {
                [p] => f(p) / p.seqs,
                _ => live.iter().map(|p| f(p)).sum::<f64>() / b,
            }
        };
        let windowed = |p: &PhaseLoad| -> (f64, f64) {
            let (pairs, read) = window_pairs_read(p.sq / p.seqs, p.sk / p.seqs, w);
            (pairs, read)
        };
        let (w_pairs, w_read) = match live {
            [p] => windowed(p),
            _ => {
                let (mut pp, mut rr) = (0.0, 0.0);
                for p in live {
                    let (x, y) = windowed(p);
                    pp += x * p.seqs;
                    rr += y * p.seqs;
                }
                (pp / b, rr / b)
            }
        };
        StepVars {
            b,
            t,
            hit: a.moe.map_or(0.0, |m| m.expected_distinct(t)),
            pairs: [per_seq(&|p| p.pairs()), w_pairs],
            read: [per_seq(&|p| p.sk), w_read],
        }
    }

    /// The parts of a mixed step, as a composite (the LM head on every sequence of the step).
    pub(crate) fn mixed_composite(&self, mix: &StepMix) -> Composite {
        let mut l = *self;
        // Decode's LM head rows: one per sequence (verify would make all T).
        l.phase = InferenceStep::Decode;
        let vars = l.mixed_vars(mix);
        Composite {
            affine: false,
            parts: l.parts_at(&vars),
            tokens: vars.t,
            dtype: l.compute_dtype(),
            weights: l.weight_bytes(),
            kv: 0.0,
            unit: "token",
        }
    }
}
