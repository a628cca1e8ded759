//! Collectives over a mesh axis and sharded matmuls, after parts 3 ("Sharded Matrices and How
//! to Multiply Them") and 12 ("How to Think About GPUs") of the JAX scaling book.
//!
//! Everything here is plain numbers in base units (bytes, seconds, bytes/s, FLOPs/s): no
//! [`Chip`](crate::Chip) is read. The chip-to-network glue lives in [`network_presets`](mod@network_presets), which
//! is pure data keyed by chip preset id.
//!
//! * [`collective_time`]: one collective ([`CollectiveKind`]: AllGather, ReduceScatter,
//!   AllReduce, AllToAll, a point-to-point send) of an array of `V` bytes over a
//!   [`Network`] (a [`Topology`] plus a per-hop latency) → [`CollectiveResult`] (bandwidth
//!   time, latency, total, hops, whether latency-bound, the formula, the book's section, a
//!   step-by-step derivation, the latency/bandwidth knee).
//! * [`sharded_matmul()`]: the four cases of part 3 for `X[B,D]·W[D,F]` sharded over one mesh
//!   axis → [`ShardedResult`] (T_math, the collectives chosen, T_comms, overlap, the bound and
//!   the exact critical size), and [`parallelism`] for the per-layer rules of parts 5 and 12
//!   (data parallelism, FSDP, tensor parallelism: `B/X > C/W`, `Y < F·W/C`).
//! * [`plot`]: plain-data plot models (time against array size with the latency knee; T_math
//!   and T_comms against a dimension or the chip count with their crossovers).
//!
//! # Notation
//!
//! `V` is the size in bytes of the **whole** array being gathered, reduced or rearranged (the
//! book's V: for an AllGather the gathered result, for a ReduceScatter or AllReduce the
//! unreduced array each chip holds, for an AllToAll the array summed over all chips), `n` the
//! chips along the axis. `W_link` is the bandwidth of one link in one direction (the book's
//! "one-way" or "unidirectional" figure); the book's `W_ici` is the **bidirectional**
//! `2·W_link`. GPU topologies take the per-GPU egress bandwidth per direction (450 GB/s on
//! an H100) and, above the node, each level's bandwidth per child.
//!
//! # How latency combines with bandwidth
//!
//! * Collectives (AllGather, ReduceScatter, AllReduce, AllToAll) run as a sequence of hops;
//!   each hop takes `max(T_min, bytes of the hop / bandwidth)` (sharding.md, "A note on ICI
//!   latency"), so the whole collective takes `T = max(hops·T_min, T_bandwidth)`: the book's
//!   `T_total = max[T_min·X/2, V/W_ici]`, and `max[T_min·Σ|X_i|/2, V/(W_ici·N_axes)]` over
//!   several axes. An AllReduce is a ReduceScatter followed by an AllGather, each with its own
//!   hops, so the same rule holds with twice the hops.
//! * A point-to-point send is pipelined through the intermediate chips: the first byte arrives
//!   after `hops·T_min`, the last leaves the source after `V/bandwidth`, so the terms **add**
//!   (tpus.md, question 5: "the total transfer will take about 188 + 6 = 194us ... in general,
//!   the latency and bandwidth terms are additive").
//!
//! A collective is latency-bound when its latency term exceeds its bandwidth term
//! ([`CollectiveResult::latency_bound`]); the array size where they are equal is
//! [`CollectiveResult::knee_bytes`] (solved exactly: both terms are linear in `V`).

mod derived_networks;
pub mod formulas;
pub mod network_presets;
pub mod plot;
pub mod sharded_matmul;
pub mod topology;

pub use derived_networks::{network_preset, network_presets};
pub use formulas::collective_time;
pub use network_presets::{NetworkPreset, Sourced, WrapRule};
pub use sharded_matmul::{
    critical_chips, parallelism, sharded_matmul, Case, CriticalSize, MatmulBound, Operand,
    Parallelism, ParallelismResult, ShardedMatmul, ShardedResult, Step,
};
pub use topology::{Level, Network, Topology, TopologyKind, TorusAxis};

use crate::error::Error;
use crate::units::format_exact;
use serde::{Deserialize, Serialize};
use std::str::FromStr;

/// The largest array a collective accepts, in bytes (1e30).
pub const MAX_BYTES: f64 = 1e30;
/// The most chips a topology may span (1e9).
pub const MAX_CHIPS: f64 = 1e9;
/// The largest per-hop latency accepted, in seconds (1000 s).
pub const MAX_LATENCY: f64 = 1e3;
/// Bandwidths (and FLOP rates) are accepted from 1 to 1e30 per second, like chip fields.
pub const MAX_RATE: f64 = 1e30;
/// The most parallel links per neighbour and direction.
pub const MAX_LINKS: f64 = 1024.0;

/// A collective communication operation (URL ids `allgather`, `reducescatter`, `allreduce`,
/// `alltoall`, `send`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum CollectiveKind {
    /// Removes a sharding subscript: every chip ends with the whole array
    /// (`[A_X, B] → [A, B]`).
    #[default]
    AllGather,
    /// Sums partial arrays and shards the result (`[A, B]{U_X} → [A_X, B]`).
    ReduceScatter,
    /// Sums partial arrays, every chip ends with the sum (`[A_X, B]{U_Y} → [A_X, B]`); a
    /// ReduceScatter followed by an AllGather.
    AllReduce,
    /// Moves a sharding subscript to another dimension (`[A, B_X] → [A_X, B]`).
    AllToAll,
    /// A point-to-point copy of `V` bytes from one chip to the farthest chip of the topology.
    Send,
}

impl CollectiveKind {
    /// Every kind, in form order.
    pub const ALL: [CollectiveKind; 5] = [
        CollectiveKind::AllGather,
        CollectiveKind::ReduceScatter,
        CollectiveKind::AllReduce,
        CollectiveKind::AllToAll,
        CollectiveKind::Send,
    ];
    /// Every URL id, in form order.
    pub const IDS: [&'static str; 5] = [
        "allgather",
        "reducescatter",
        "allreduce",
        "alltoall",
        "send",
    ];

    /// The short names the parser also reads, as the book and NCCL write them: `(alias, id)`.
    /// Beside these, an id reads with any case and with `_`, `-` or spaces inside
    /// (`All-Reduce`).
    pub const ALIASES: [(&'static str, &'static str); 6] = [
        ("ag", "allgather"),
        ("rs", "reducescatter"),
        ("ar", "allreduce"),
        ("a2a", "alltoall"),
        ("p2p", "send"),
        ("sendrecv", "send"),
    ];

    /// `s` as the parser compares it: lower case, without `_`, `-` or spaces.
    pub fn normalized(s: &str) -> String {
        s.trim()
            .chars()
            .filter(|c| !matches!(c, '_' | '-' | ' '))
            .collect::<String>()
            .to_ascii_lowercase()
    }

    /// The URL id (`allgather`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            CollectiveKind::AllGather => "allgather",
            CollectiveKind::ReduceScatter => "reducescatter",
            CollectiveKind::AllReduce => "allreduce",
            CollectiveKind::AllToAll => "alltoall",
            CollectiveKind::Send => "send",
        }
    }

    /// The book's name (`AllGather`, `ReduceScatter`, `AllReduce`, `AllToAll`, `send`).
    pub fn name(self) -> &'static str {
        match self {
            CollectiveKind::AllGather => "AllGather",
            CollectiveKind::ReduceScatter => "ReduceScatter",
            CollectiveKind::AllReduce => "AllReduce",
            CollectiveKind::AllToAll => "AllToAll",
            CollectiveKind::Send => "send",
        }
    }
}

impl std::fmt::Display for CollectiveKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for CollectiveKind {
    type Err = Error;
    /// Reads an id, case-insensitively, also with `_`/`-` and the short forms `ag`, `rs`, `ar`,
    /// `a2a`, `p2p`.
    fn from_str(s: &str) -> Result<Self, Error> {
        let l = Self::normalized(s);
        let id = Self::ALIASES
            .iter()
            .find(|(a, _)| *a == l)
            .map_or(l.as_str(), |(_, id)| id);
        Ok(match id {
            "allgather" => CollectiveKind::AllGather,
            "reducescatter" => CollectiveKind::ReduceScatter,
            "allreduce" => CollectiveKind::AllReduce,
            "alltoall" => CollectiveKind::AllToAll,
            "send" => CollectiveKind::Send,
            _ => {
                return Err(parse_err(
                    s,
                    &format!("expected one of {}", Self::IDS.join(", ")),
                ))
            }
        })
    }
}

/// How the latency and bandwidth terms of a [`CollectiveResult`] combine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Combine {
    /// `max(latency, bandwidth)`: every hop of a collective takes the larger of the two.
    Max,
    /// `latency + bandwidth`: a pipelined point-to-point send.
    Sum,
}

/// The time of one collective, with its formula and derivation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CollectiveResult {
    /// The collective.
    pub kind: CollectiveKind,
    /// `V`, the bytes of the whole array.
    pub bytes: f64,
    /// The chips taking part.
    pub chips: f64,
    /// Seconds per byte of `V` in the bandwidth term: `t_bandwidth = seconds_per_byte · V`.
    pub seconds_per_byte: f64,
    /// The bandwidth term, exact for this `n` (the `(n−1)/n`, `⌊n/2⌋/n` factors kept).
    pub t_bandwidth: f64,
    /// The book's large-`n` form of the bandwidth term (`V/W_ici`, `B/W_GPU egress`, ...): what
    /// the book's "≈" and "→" answers use.
    pub t_bandwidth_approx: f64,
    /// Sequential hops (steps) the algorithm takes.
    pub hops: f64,
    /// The latency term: `hops × per-hop latency`.
    pub t_latency: f64,
    /// The collective's time: `max(t_latency, t_bandwidth)`, or their sum for a send (see
    /// [`CollectiveResult::combine`]).
    pub t_total: f64,
    /// How the terms combine.
    pub combine: Combine,
    /// `t_latency > t_bandwidth`.
    pub latency_bound: bool,
    /// The array size at which the two terms are equal (smaller arrays are latency-bound);
    /// `None` when there is no latency or nothing to communicate.
    pub knee_bytes: Option<f64>,
    /// The bandwidth formula used, in the book's notation.
    pub formula: &'static str,
    /// The book's large-`n` form.
    pub formula_approx: &'static str,
    /// Where the formula comes from (file and section of the scaling book).
    pub section: &'static str,
    /// The worked derivation, one step per line, with the numbers substituted.
    pub derivation: Vec<String>,
}

impl CollectiveResult {
    /// The bus bandwidth of nccl-tests' convention (its PERFORMANCE.md): `V / t` times
    /// `2(n−1)/n` for an AllReduce, `(n−1)/n` for an AllGather, ReduceScatter or AllToAll, 1 for
    /// a send: comparable with the link's speed whatever `n`, and with what nccl-tests prints.
    /// `None` when nothing takes time.
    pub fn bus_bandwidth(&self) -> Option<f64> {
        let n = self.chips;
        let factor = match self.kind {
            CollectiveKind::AllReduce => 2.0 * (n - 1.0) / n,
            CollectiveKind::AllGather
            | CollectiveKind::ReduceScatter
            | CollectiveKind::AllToAll => (n - 1.0) / n,
            CollectiveKind::Send => 1.0,
        };
        (self.t_total > 0.0 && n >= 1.0).then(|| self.bytes * factor / self.t_total)
    }

    /// The effective bandwidth `V / t_bandwidth` (the book's "collective bandwidth"), `None`
    /// when nothing is communicated.
    pub fn effective_bandwidth(&self) -> Option<f64> {
        (self.seconds_per_byte > 0.0).then(|| 1.0 / self.seconds_per_byte)
    }
}

/// The crate error for a field value outside its range.
pub(crate) fn invalid(field: &str, value: f64, reason: &str) -> Error {
    Error::InvalidField {
        field: field.to_string(),
        value: format_exact(value),
        reason: reason.to_string(),
    }
}

/// The crate error for text that cannot be read.
pub(crate) fn parse_err(input: &str, reason: &str) -> Error {
    let t = input.trim();
    Error::Parse {
        input: crate::error::clip_text(t, 40),
        reason: reason.to_string(),
    }
}

/// Checks `x` lies in `[min, max]` (and is a whole number when `integer`); NaN and infinities
/// fail. The error reads `{field}={x}: must be {what} from {min} to {max}`.
pub(crate) fn check(
    field: &str,
    x: f64,
    min: f64,
    max: f64,
    integer: bool,
    what: &str,
) -> Result<f64, Error> {
    let ok = x.is_finite() && x >= min && x <= max && (!integer || x.fract() == 0.0);
    if ok {
        Ok(x)
    } else {
        Err(invalid(
            field,
            x,
            &format!(
                "must be {what} from {} to {}",
                format_exact(min),
                format_exact(max)
            ),
        ))
    }
}
