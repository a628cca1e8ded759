//! The mesh a step is sharded over (`dp × fsdp × tp × pp × ep` and the microbatches) and how
//! many hardware torus axes each strategy spans: what both the run's config and the fabric
//! that places it read, below both.

use crate::units::format_exact;
use serde::{Deserialize, Serialize};

/// Parallelism degrees: the mesh `dp × fsdp × tp × pp × ep` and the microbatches of a step.
///
/// Tokens are sharded over `dp·fsdp·ep` (the data shards; `ep` shards the experts and acts
/// as data parallelism for everything else, as DeepSeek-V3's 64-way EP); weights over
/// `fsdp·tp·pp` (and experts over `ep`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Mesh {
    /// Data parallelism: weights replicated, gradients AllReduced once per step (the book's
    /// X for "pure data parallelism").
    pub dp: f64,
    /// FSDP (ZeRO-3): weights, gradients and optimizer state sharded; weights AllGathered
    /// before use (forward and backward), gradients ReduceScattered (the book's X).
    pub fsdp: f64,
    /// Tensor (Megatron) parallelism: matrices sharded along `F` and heads, activations
    /// AllGathered and ReduceScattered around each block (the book's Y).
    pub tp: f64,
    /// Pipeline stages: layers sharded (the book's `L_Z`).
    pub pp: f64,
    /// Expert parallelism: experts sharded, tokens sent to them by AllToAll (gpus.md's
    /// `E_Z`). Needs a mixture of experts.
    pub ep: f64,
    /// Microbatches per step `m` (pipelining, or gradient accumulation with `pp = 1`).
    pub microbatches: f64,
}

impl Default for Mesh {
    fn default() -> Self {
        Mesh {
            dp: 1.0,
            fsdp: 1.0,
            tp: 1.0,
            pp: 1.0,
            ep: 1.0,
            microbatches: 1.0,
        }
    }
}

impl Mesh {
    /// `dp·fsdp·tp·pp·ep`.
    pub fn chips(&self) -> f64 {
        self.dp * self.fsdp * self.tp * self.pp * self.ep
    }

    /// Data shards `dp·fsdp·ep`: the ways the batch's tokens are split.
    pub fn data(&self) -> f64 {
        self.dp * self.fsdp * self.ep
    }

    /// A one-line description: `dp 2 × fsdp 1024 × tp 4 = 8192 chips`.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        for (name, d) in [
            ("dp", self.dp),
            ("fsdp", self.fsdp),
            ("tp", self.tp),
            ("pp", self.pp),
            ("ep", self.ep),
        ] {
            if d > 1.0 {
                parts.push(format!("{name} {}", format_exact(d)));
            }
        }
        if parts.is_empty() {
            parts.push("one chip".into());
        }
        let mut s = format!(
            "{} = {} chips",
            parts.join(" × "),
            format_exact(self.chips())
        );
        if self.microbatches > 1.0 {
            s.push_str(&format!(
                ", {} microbatches",
                format_exact(self.microbatches)
            ));
        }
        s
    }
}

/// How many hardware torus axes each strategy spans (the book's `M_X`, `M_Y`): `0` picks
/// them automatically (see [`Fabric`](super::Fabric)). Ignored on switched (GPU) fabrics.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
pub struct AxisCounts {
    /// `M_X`: axes of the data strategies (FSDP, and data parallelism inside the ICI
    /// domain).
    pub mx: f64,
    /// `M_Y`: axes of tensor parallelism.
    pub my: f64,
    /// `M_Z`: axes of expert parallelism.
    pub mz: f64,
}
