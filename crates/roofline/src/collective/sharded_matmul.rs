//! Over 600 lines on purpose: part 3's four cases and the parallelism rules of parts 5 and 12
//! share one critical-size solver and one derivation writer; a fifth is their documentation.
//!
//! Sharded matmuls: the four cases of part 3 for `X[B,D] · W[D,F] → Z[B,F]` over one mesh
//! axis of `n` chips, and the per-layer parallelism rules of parts 5 and 12.
//!
//! | case | sharding (axis `n`) | collective | FLOPs per chip | critical size |
//! | --- | --- | --- | --- | --- |
//! | 1 | `X[B_n, D]·W[D, F]` or `W[D, F_n]` | none | `2BDF/n` | none |
//! | 2, gather X | `X[B, D_n]·W[D, F]` (or `W[D, F_n]`: split) | AllGather X first (`s_x·B·D`) | `2BDF` (split: `/n`) | `F` |
//! | 2, gather W | `X[B, D]·W[D_n, F]` (or `X[B_n, D]`: split, FSDP) | AllGather W first (`s_w·D·F`) | `2BDF` (split: `/n`) | `B` |
//! | 3 | `X[B, D_n]·W[D_n, F]` | AllReduce (or ReduceScatter) of Z after (`s_out·B·F`) | `2BDF/n` | `D` |
//! | 4, gather X or W | `X[B_n, D]·W[D, F_n]` | AllGather X or W first | `2BDF/n` | `F` or `B` |
//!
//! In every case the collective's bytes do not depend on the critical dimension while T_math
//! is proportional to it, so the critical size is exactly `x·T_comms/T_math`, latency and the
//! `(n−1)/n` factors included; [`CriticalSize::approx`] uses the book's large-`n` bandwidth
//! and no latency (`D > 8755` for chapter 1's two TPU v5e chips: `2·n·C/W_ici`).
//!
//! Part 3, question 4's "Strategy 2" (multiply the local shards of a Case 2 product and
//! AllReduce) costs exactly Case 3. The existing `matmul` operation's `split=d` is Case 3 with
//! an AllReduce on a [`Topology::UniRing`] (`2·(n−1)/n·s_out·B·F` bytes over one link), and
//! `split=b`/`split=f` are Case 1.
//!
//! Communication can overlap the matmul (a *collective matmul*, sharding.md, "How to overlap
//! matmul communication with compute"), so by default `T = max(T_math, T_comms)`; with
//! [`ShardedMatmul::overlap`] off, `T = T_math + T_comms`.

use super::formulas::{coefficients, collective_time};
use super::topology::{Network, Topology};
use super::{check, parse_err, CollectiveKind, CollectiveResult, MAX_CHIPS, MAX_RATE};
use crate::error::Error;
use crate::units::{format_exact, format_quantity, Unit};
use serde::{Deserialize, Serialize};
use std::str::FromStr;

/// The largest matmul dimension accepted (1e15), as for the `matmul` operation.
pub const MAX_DIM: f64 = 1e15;

/// Which input of `X[B,D]·W[D,F]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Operand {
    /// The activations `X[B,D]`.
    X,
    /// The weights `W[D,F]`.
    W,
}

/// The four sharding cases of part 3 (sharding.md, "Computation With Sharded Arrays").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "case", rename_all = "lowercase")]
pub enum Case {
    /// Case 1: no contracting dimension is sharded (`X[B_n, D]·W[D, F]`): no communication,
    /// FLOPs divided by `n`.
    One,
    /// Case 2: one input is sharded along the contracting dimension; it is AllGathered
    /// first. `split`: the other input is sharded along the same axis on its free dimension
    /// (`X[B, D_n]·W[D, F_n]`, tensor parallelism; `X[B_n, D]·W[D_n, F]`, FSDP), so the FLOPs
    /// are divided by `n`; otherwise every chip does the whole matmul.
    Two {
        /// The input sharded along `D` and gathered.
        gather: Operand,
        /// Whether the other input's free dimension is sharded along the same axis.
        split: bool,
    },
    /// Case 3: both inputs are sharded along the contracting dimension (`X[B, D_n]·W[D_n,
    /// F]`): local partial sums, then an AllReduce of `Z[B,F]`, or a ReduceScatter when
    /// `scatter` (the output stays sharded).
    Three {
        /// ReduceScatter instead of AllReduce.
        scatter: bool,
    },
    /// Case 4: both inputs have a free dimension sharded along the same axis (`X[B_n,
    /// D]·W[D, F_n]`): one is AllGathered first.
    Four {
        /// The input gathered.
        gather: Operand,
    },
}

impl Case {
    /// Every case, in form order.
    pub const ALL: [Case; 9] = [
        Case::One,
        Case::Two {
            gather: Operand::X,
            split: false,
        },
        Case::Two {
            gather: Operand::W,
            split: false,
        },
        Case::Two {
            gather: Operand::X,
            split: true,
        },
        Case::Two {
            gather: Operand::W,
            split: true,
        },
        Case::Three { scatter: false },
        Case::Three { scatter: true },
        Case::Four { gather: Operand::X },
        Case::Four { gather: Operand::W },
    ];

    /// The id: `1`, `2x`, `2w`, `2x-split`, `2w-split`, `3`, `3-scatter`, `4x`, `4w`.
    pub fn as_str(self) -> &'static str {
        match self {
            Case::One => "1",
            Case::Two {
                gather: Operand::X,
                split: false,
            } => "2x",
            Case::Two {
                gather: Operand::W,
                split: false,
            } => "2w",
            Case::Two {
                gather: Operand::X,
                split: true,
            } => "2x-split",
            Case::Two {
                gather: Operand::W,
                split: true,
            } => "2w-split",
            Case::Three { scatter: false } => "3",
            Case::Three { scatter: true } => "3-scatter",
            Case::Four { gather: Operand::X } => "4x",
            Case::Four { gather: Operand::W } => "4w",
        }
    }

    /// The sharding in the book's notation, e.g. `X[B, D_n]·W[D_n, F] → Z[B, F]{U_n}`.
    pub fn notation(self) -> &'static str {
        match self {
            Case::One => "X[B_n, D]·W[D, F] → Z[B_n, F]",
            Case::Two {
                gather: Operand::X,
                split: false,
            } => "AllGather X[B, D_n] → X[B, D]; X[B, D]·W[D, F] → Z[B, F]",
            Case::Two {
                gather: Operand::W,
                split: false,
            } => "AllGather W[D_n, F] → W[D, F]; X[B, D]·W[D, F] → Z[B, F]",
            Case::Two {
                gather: Operand::X,
                split: true,
            } => "AllGather X[B, D_n] → X[B, D]; X[B, D]·W[D, F_n] → Z[B, F_n]",
            Case::Two {
                gather: Operand::W,
                split: true,
            } => "AllGather W[D_n, F] → W[D, F]; X[B_n, D]·W[D, F] → Z[B_n, F]",
            Case::Three { scatter: false } => {
                "X[B, D_n]·W[D_n, F] → Z[B, F]{U_n}; AllReduce → Z[B, F]"
            }
            Case::Three { scatter: true } => {
                "X[B, D_n]·W[D_n, F] → Z[B, F]{U_n}; ReduceScatter → Z[B, F_n]"
            }
            Case::Four { gather: Operand::X } => {
                "AllGather X[B_n, D] → X[B, D]; X[B, D]·W[D, F_n] → Z[B, F_n]"
            }
            Case::Four { gather: Operand::W } => {
                "AllGather W[D, F_n] → W[D, F]; X[B_n, D]·W[D, F] → Z[B_n, F]"
            }
        }
    }

    /// The book's section.
    pub fn section(self) -> &'static str {
        match self {
            Case::One => "sharding.md, \"Case 1: neither multiplicand has a sharded contracting dimension\"",
            Case::Two { .. } => "sharding.md, \"Case 2: one multiplicand has a sharded contracting dimension\"",
            Case::Three { .. } => "sharding.md, \"Case 3: both multiplicands have sharded contracting dimensions\"",
            Case::Four { .. } => "sharding.md, \"Case 4: both multiplicands have a non-contracting dimension sharded along the same axis\"",
        }
    }

    /// Whether the FLOPs are divided over the axis.
    pub(crate) fn splits_compute(self) -> bool {
        !matches!(self, Case::Two { split: false, .. })
    }
}

impl std::fmt::Display for Case {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Case {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Error> {
        let l = s.trim().to_ascii_lowercase();
        Case::ALL
            .into_iter()
            .find(|c| c.as_str() == l)
            .ok_or_else(|| {
                parse_err(
                    s,
                    "expected a case: 1, 2x, 2w, 2x-split, 2w-split, 3, 3-scatter, 4x or 4w",
                )
            })
    }
}

/// A matmul `X[B,D]·W[D,F] → Z[B,F]` sharded over one mesh axis (the network's chips).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShardedMatmul {
    /// Global `B` (rows of X).
    pub b: f64,
    /// Global `D` (the contracting dimension).
    pub d: f64,
    /// Global `F` (columns of W).
    pub f: f64,
    /// Bytes per element of X.
    pub s_x: f64,
    /// Bytes per element of W.
    pub s_w: f64,
    /// Bytes per element of Z (and of its partial sums).
    pub s_out: f64,
    /// Peak FLOPs/s per chip (`C`).
    pub peak: f64,
    /// The sharding case.
    pub case: Case,
    /// The mesh axis (its chips are `n`) and its latency.
    pub network: Network,
    /// Whether communication overlaps the matmul (collective matmul): `T = max`, else sum.
    pub overlap: bool,
}

/// One collective of a sharded matmul.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// What is communicated (`X[B,D]`, `W[D,F]`, `Z[B,F]`, `dW[D,F]` ...).
    pub array: &'static str,
    /// `before` the matmul (a gather) or `after` it (a reduction).
    pub when: &'static str,
    /// Its time.
    pub result: CollectiveResult,
}

/// Compute- or communication-bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MatmulBound {
    /// `T_math ≥ T_comms` (also with no communication).
    Compute,
    /// `T_comms > T_math`.
    Comms,
}

/// Where a sharded computation turns communication-bound.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CriticalSize {
    /// The dimension (`b`, `d`, `f`): compute-bound above `value`.
    pub dim: &'static str,
    /// The exact global size where `T_math = T_comms` (latency and `(n−1)/n` included).
    pub value: f64,
    /// `value` per chip when the dimension is sharded over the axis (`B/X`, `D/n`), else
    /// `value`.
    pub per_chip: f64,
    /// The book's form: large-`n` bandwidth, no latency (chapter 1's `D > 8755`, `B/X >
    /// C/W_ici`).
    pub approx: f64,
    /// `approx` per chip.
    pub approx_per_chip: f64,
    /// The rule, with numbers.
    pub rule: String,
}

/// A sharded matmul's times.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShardedResult {
    /// The case.
    pub case: Case,
    /// Chips on the axis.
    pub chips: f64,
    /// FLOPs per chip.
    pub flops_per_chip: f64,
    /// `FLOPs per chip / C`.
    pub t_math: f64,
    /// The collectives, in order.
    pub steps: Vec<Step>,
    /// Their total time.
    pub t_comms: f64,
    /// The book's large-`n` bandwidth time of the collectives, without latency.
    pub t_comms_approx: f64,
    /// Whether T_math and T_comms overlap.
    pub overlap: bool,
    /// `max(T_math, T_comms)` with overlap, else the sum.
    pub t_lower: f64,
    /// `T_math + T_comms`.
    pub t_upper: f64,
    /// Which one binds.
    pub bound: MatmulBound,
    /// Where it turns communication-bound; `None` when nothing is communicated.
    pub critical: Option<CriticalSize>,
    /// The book's section.
    pub section: &'static str,
    /// The worked derivation.
    pub derivation: Vec<String>,
}

fn check_dim(field: &str, x: f64) -> Result<f64, Error> {
    check(field, x, 1.0, MAX_DIM, true, "a positive size")
}

fn check_elem(field: &str, x: f64) -> Result<f64, Error> {
    check(field, x, 0.0625, 64.0, false, "bytes per element")
}

fn check_peak(x: f64) -> Result<f64, Error> {
    check("peak", x, 1.0, MAX_RATE, false, "a FLOP rate")
}

fn fs(x: f64) -> String {
    format_quantity(x, Unit::Seconds)
}
fn nn(x: f64) -> String {
    format_exact(x)
}
fn sig(x: f64) -> String {
    crate::units::format_sig(x, 4)
}

impl ShardedMatmul {
    /// A matmul of bf16 inputs and output, overlapped.
    pub fn bf16(b: f64, d: f64, f: f64, peak: f64, case: Case, network: Network) -> Self {
        ShardedMatmul {
            b,
            d,
            f,
            s_x: 2.0,
            s_w: 2.0,
            s_out: 2.0,
            peak,
            case,
            network,
            overlap: true,
        }
    }

    pub(crate) fn validate(&self) -> Result<(), Error> {
        check_dim("b", self.b)?;
        check_dim("d", self.d)?;
        check_dim("f", self.f)?;
        check_elem("s_x", self.s_x)?;
        check_elem("s_w", self.s_w)?;
        check_elem("s_out", self.s_out)?;
        check_peak(self.peak)?;
        self.network.validate()
    }

    /// `(kind, bytes, array, when)` of the case's collective, if any.
    pub(crate) fn collective(&self) -> Option<(CollectiveKind, f64, &'static str, &'static str)> {
        let x = (self.s_x * self.b * self.d, "X[B,D]");
        let w = (self.s_w * self.d * self.f, "W[D,F]");
        match self.case {
            Case::One => None,
            Case::Two { gather, .. } | Case::Four { gather } => {
                let (v, a) = if gather == Operand::X { x } else { w };
                Some((CollectiveKind::AllGather, v, a, "before"))
            }
            Case::Three { scatter } => Some((
                if scatter {
                    CollectiveKind::ReduceScatter
                } else {
                    CollectiveKind::AllReduce
                },
                self.s_out * self.b * self.f,
                "Z[B,F]",
                "after",
            )),
        }
    }

    /// The critical dimension and whether it is sharded over the axis.
    fn critical_dim(&self) -> Option<(&'static str, f64, bool)> {
        match self.case {
            Case::One => None,
            Case::Two {
                gather: Operand::X,
                split,
            } => Some(("f", self.f, split)),
            Case::Two {
                gather: Operand::W,
                split,
            } => Some(("b", self.b, split)),
            Case::Three { .. } => Some(("d", self.d, true)),
            Case::Four { gather: Operand::X } => Some(("f", self.f, true)),
            Case::Four { gather: Operand::W } => Some(("b", self.b, true)),
        }
    }
}

/// Analyses a sharded matmul: FLOPs and T_math per chip, the case's collective, T_comms,
/// overlap, the bound and the exact critical size.
///
/// ```
/// use roofline::collective::{sharded_matmul, Case, Network, ShardedMatmul, Topology};
/// // Chapter 1: X, Y split over 2 TPU v5e along D: compute-bound iff D > 8755.
/// let net = Network::new(Topology::ring(2.0, 4.5e10));
/// let mm = ShardedMatmul::bf16(65536.0, 8192.0, 65536.0, 1.97e14, Case::Three { scatter: false }, net);
/// let r = sharded_matmul(&mm).unwrap();
/// let c = r.critical.unwrap();
/// assert_eq!(c.dim, "d");
/// assert_eq!(c.value.floor(), 8755.0);
/// ```
pub fn sharded_matmul(mm: &ShardedMatmul) -> Result<ShardedResult, Error> {
    mm.validate()?;
    let n = mm.network.topology.chips();
    let p = if mm.case.splits_compute() { n } else { 1.0 };
    let flops = 2.0 * mm.b * mm.d * mm.f / p;
    let t_math = flops / mm.peak;
    let mut steps = Vec::new();
    if let Some((kind, v, array, when)) = mm.collective() {
        let result = collective_time(kind, v, &mm.network)?;
        steps.push(Step {
            array,
            when,
            result,
        });
    }
    let t_comms: f64 = steps.iter().map(|s| s.result.t_total).sum();
    let t_comms_approx: f64 = steps.iter().map(|s| s.result.t_bandwidth_approx).sum();
    let bound = if t_comms > t_math {
        MatmulBound::Comms
    } else {
        MatmulBound::Compute
    };
    let mut derivation = vec![
        format!(
            "{} over n = {} chips ({})",
            mm.case.notation(),
            nn(n),
            mm.case.section()
        ),
        format!(
            "FLOPs per chip = 2·B·D·F{} = 2·{}·{}·{}{} = {}",
            if p > 1.0 { "/n" } else { "" },
            nn(mm.b),
            nn(mm.d),
            nn(mm.f),
            if p > 1.0 {
                format!("/{}", nn(n))
            } else {
                String::new()
            },
            sig(flops)
        ),
        format!(
            "T_math = {} / {} FLOP/s = {}",
            sig(flops),
            sig(mm.peak),
            fs(t_math)
        ),
    ];
    for s in &steps {
        derivation.push(format!(
            "{} {} ({}) {} the matmul: {} ({}; {})",
            s.result.kind.name(),
            s.array,
            format_quantity(s.result.bytes, Unit::Bytes),
            s.when,
            fs(s.result.t_total),
            s.result.formula,
            s.result.section
        ));
    }
    if steps.is_empty() {
        derivation.push("No contracting dimension is sharded: no communication".into());
    }
    let (t_lower, overlap_note) = if mm.overlap && !steps.is_empty() {
        (
            t_math.max(t_comms),
            "they overlap (collective matmul, sharding.md \"How to overlap matmul communication with compute\"): T = max",
        )
    } else if steps.is_empty() {
        (t_math, "T = T_math")
    } else {
        (t_math + t_comms, "no overlap: T = T_math + T_comms")
    };
    derivation.push(format!(
        "T_math = {}, T_comms = {}: {} = {} ({})",
        fs(t_math),
        fs(t_comms),
        overlap_note,
        fs(t_lower),
        if bound == MatmulBound::Comms {
            "communication-bound"
        } else {
            "compute-bound"
        }
    ));
    let critical = match mm.critical_dim() {
        Some((dim, x0, sharded)) if t_comms > 0.0 => {
            let value = x0 * t_comms / t_math;
            let approx = x0 * t_comms_approx / t_math;
            let per = |v: f64| if sharded { v / n } else { v };
            let big = dim.to_ascii_uppercase();
            let rule = format!(
                "T_math ∝ {big} while T_comms does not depend on it: compute-bound iff {big} > {big}·T_comms/T_math = {}{} (large-n bandwidth without latency, as the book's rules: {}{})",
                sig(value),
                if sharded { format!(", {big}/n > {}", sig(value / n)) } else { String::new() },
                sig(approx),
                if sharded { format!(", {big}/n > {}", sig(approx / n)) } else { String::new() },
            );
            derivation.push(rule.clone());
            Some(CriticalSize {
                dim,
                value,
                per_chip: per(value),
                approx,
                approx_per_chip: per(approx),
                rule,
            })
        }
        _ => None,
    };
    Ok(ShardedResult {
        case: mm.case,
        chips: n,
        flops_per_chip: flops,
        t_math,
        steps,
        t_comms,
        t_comms_approx,
        overlap: mm.overlap,
        t_lower,
        t_upper: t_math + t_comms,
        bound,
        critical,
        section: mm.case.section(),
        derivation,
    })
}

/// `T_math` and `T_comms` of `mm` over `topo` (not validated), without building derivations
/// (for scans and plots).
pub(crate) fn fast_times(mm: &ShardedMatmul, topo: &Topology) -> (f64, f64) {
    let n = topo.chips();
    let p = if mm.case.splits_compute() { n } else { 1.0 };
    let t_math = 2.0 * mm.b * mm.d * mm.f / p / mm.peak;
    let t_comms = match mm.collective() {
        Some((kind, v, _, _)) => {
            let c = coefficients(kind, topo, false);
            (c.kappa * v).max(c.hops * mm.network.latency)
        }
        None => 0.0,
    };
    (t_math, t_comms)
}

/// [`fast_times`] with the axis resized to `n` chips; `None` for a torus or a cluster.
pub(crate) fn times_at_chips(mm: &ShardedMatmul, n: f64) -> Option<(f64, f64)> {
    let topo = mm.network.topology.with_chips(n)?;
    Some(fast_times(mm, &topo))
}

/// The smallest chip count `n ≥ 2` (up to `max_chips`) at which `mm`, with its axis resized,
/// is communication-bound, by exact evaluation at every `n`; and the book's closed form
/// (large-`n` bandwidth, no latency) `n·T_math/T_comms`, the `Y < F·W/C` of tensor
/// parallelism. Errors for a torus or cluster (their sizes follow from their shape) and for
/// invalid input; `Ok((None, ..))` when still compute-bound at `max_chips`.
pub fn critical_chips(
    mm: &ShardedMatmul,
    max_chips: f64,
) -> Result<(Option<f64>, Option<f64>), Error> {
    mm.validate()?;
    let max = check(
        "max_chips",
        max_chips,
        2.0,
        MAX_CHIPS.min(1e7),
        true,
        "a chip count",
    )?;
    if mm.network.topology.with_chips(2.0).is_none() {
        return Err(Error::InvalidField {
            field: "topology".into(),
            value: mm.network.topology.kind().as_str().into(),
            reason:
                "the critical chip count needs a one-axis topology (ring, line, uniring or node)"
                    .into(),
        });
    }
    let r = sharded_matmul(mm)?;
    let approx = (mm.case.splits_compute() && r.t_comms_approx > 0.0)
        .then(|| r.chips * r.t_math / r.t_comms_approx);
    let mut n = 2.0;
    while n <= max {
        if let Some((tm, tc)) = times_at_chips(mm, n) {
            if tc > tm {
                return Ok((Some(n), approx));
            }
        }
        n += 1.0;
    }
    Ok((None, approx))
}

/// A parallelism strategy for a Transformer MLP layer `x[B,D]·W_in[D,F]·W_out[F,D]`, `B` in
/// tokens (training.md, "How to Parallelize a Transformer for Training"; gpus.md, "Rooflines
/// for LLM Scaling on GPUs").
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "strategy", rename_all = "lowercase")]
pub enum Parallelism {
    /// Pure data parallelism over the axis (`X` chips): per layer, backward pass,
    /// `T_math = 8·k·B·D·F/(X·C)` and two AllReduces of the `E·D·F` weight gradients. Dense:
    /// `experts = active = 1`.
    Data {
        /// Experts `E` (1 for a dense model).
        experts: f64,
        /// Experts per token `k` (1 for a dense model).
        active: f64,
    },
    /// FSDP / ZeRO-3: per layer, forward pass, `T_math = 4·B·D·F/(X·C)` and two AllGathers
    /// of `W[D,F]` (the backward's ReduceScatters cost the same, in the same proportion).
    Fsdp,
    /// Tensor parallelism over `Y` chips: per layer, forward pass, `T_math = 4·B·D·F/(Y·C)`,
    /// an AllGather of the activations `[B,D]` and a ReduceScatter of the output `[B,D]`.
    Tensor,
}

/// A parallelism strategy's per-layer roofline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ParallelismResult {
    /// The strategy.
    pub strategy: Parallelism,
    /// Chips on the axis (`X` or `Y`).
    pub chips: f64,
    /// T_math per layer.
    pub t_math: f64,
    /// The collectives per layer.
    pub steps: Vec<Step>,
    /// Their total time.
    pub t_comms: f64,
    /// The book's large-`n` form, without latency.
    pub t_comms_approx: f64,
    /// Which one binds (they overlap).
    pub bound: MatmulBound,
    /// DP and FSDP: the critical batch `B` (`per_chip` = the book's `B/X`); TP: the critical
    /// `F` (`F > Y·C/W`).
    pub critical: Option<CriticalSize>,
    /// TP only: the largest `Y` still compute-bound in the book's form, `Y < F·W/C`.
    pub max_chips_approx: Option<f64>,
    /// Sections of the book.
    pub section: &'static str,
    /// The worked derivation.
    pub derivation: Vec<String>,
}

/// T_math, the collectives `(kind, bytes, array, when)`, the critical dimension, its value and
/// the book's section.
type Plan = (
    f64,
    Vec<(CollectiveKind, f64, &'static str, &'static str)>,
    &'static str,
    f64,
    &'static str,
);

/// The per-layer roofline of a parallelism strategy for an MLP of `b` tokens, model
/// dimension `d`, hidden `f`, `s` bytes per element (weights, gradients and activations),
/// `peak` FLOPs/s per chip, over `network`.
///
/// ```
/// use roofline::collective::{parallelism, Network, Parallelism, Topology};
/// // training.md: TPU v5p, one axis: "our batch size per chip must be at least 2,550".
/// let net = Network::new(Topology::ring(16.0, 9e10));
/// let dense = Parallelism::Data { experts: 1.0, active: 1.0 };
/// let r = parallelism(dense, 16.0 * 4096.0, 8192.0, 32768.0, 2.0, 4.59e14, &net).unwrap();
/// assert!((r.critical.unwrap().approx_per_chip - 2550.0).abs() < 1e-9);
/// ```
pub fn parallelism(
    strategy: Parallelism,
    b: f64,
    d: f64,
    f: f64,
    s: f64,
    peak: f64,
    network: &Network,
) -> Result<ParallelismResult, Error> {
    check_dim("b", b)?;
    check_dim("d", d)?;
    check_dim("f", f)?;
    check_elem("s", s)?;
    check_peak(peak)?;
    network.validate()?;
    let n = network.topology.chips();
    let (t_math, colls, dim, x0, section): Plan = match strategy {
        Parallelism::Data { experts, active } => {
            let e = check(
                "experts",
                experts,
                1.0,
                1e6,
                true,
                "a whole number of experts",
            )?;
            let k = check(
                "active",
                active,
                1.0,
                e,
                true,
                "a whole number of experts per token",
            )?;
            let g = s * e * d * f;
            (
                8.0 * k * b * d * f / (n * peak),
                vec![
                    (CollectiveKind::AllReduce, g, "dW_in[D,F]", "after"),
                    (CollectiveKind::AllReduce, g, "dW_out[F,D]", "after"),
                ],
                "b",
                b,
                "training.md, \"Data Parallelism\"; gpus.md, \"Data Parallelism\"",
            )
        }
        Parallelism::Fsdp => (
            4.0 * b * d * f / (n * peak),
            vec![
                (CollectiveKind::AllGather, s * d * f, "W_in[D,F]", "before"),
                (CollectiveKind::AllGather, s * d * f, "W_out[F,D]", "before"),
            ],
            "b",
            b,
            "training.md, \"Fully-Sharded Data Parallelism (FSDP)\"",
        ),
        Parallelism::Tensor => (
            4.0 * b * d * f / (n * peak),
            vec![
                (CollectiveKind::AllGather, s * b * d, "In[B,D]", "before"),
                (
                    CollectiveKind::ReduceScatter,
                    s * b * d,
                    "Out[B,D]",
                    "after",
                ),
            ],
            "f",
            f,
            "training.md, \"Tensor Parallelism\"; gpus.md, \"Tensor Parallelism\"",
        ),
    };
    let mut steps = Vec::with_capacity(colls.len());
    for (kind, v, array, when) in colls {
        steps.push(Step {
            array,
            when,
            result: collective_time(kind, v, network)?,
        });
    }
    let t_comms: f64 = steps.iter().map(|s| s.result.t_total).sum();
    let t_comms_approx: f64 = steps.iter().map(|s| s.result.t_bandwidth_approx).sum();
    let bound = if t_comms > t_math {
        MatmulBound::Comms
    } else {
        MatmulBound::Compute
    };
    let mut derivation = vec![format!("T_math per layer = {} ({section})", fs(t_math))];
    for s in &steps {
        derivation.push(format!(
            "{} {}: {} ({})",
            s.result.kind.name(),
            s.array,
            fs(s.result.t_total),
            s.result.formula
        ));
    }
    let critical = (t_comms > 0.0).then(|| {
        let value = x0 * t_comms / t_math;
        let approx = x0 * t_comms_approx / t_math;
        let big = dim.to_ascii_uppercase();
        let which = if dim == "b" { "B/X" } else { "F/Y" };
        let rule = format!(
            "compute-bound iff {big} > {} ({which} > {}); large-n bandwidth without latency, as the book's rules: {which} > {}",
            sig(value),
            sig(value / n),
            sig(approx / n)
        );
        derivation.push(rule.clone());
        CriticalSize {
            dim,
            value,
            per_chip: value / n,
            approx,
            approx_per_chip: approx / n,
            rule,
        }
    });
    let max_chips_approx = (strategy == Parallelism::Tensor && t_comms_approx > 0.0).then(|| {
        let y = n * t_math / t_comms_approx;
        derivation.push(format!(
            "Largest compute-bound Y in the book's form: Y < F·W/C = {}",
            sig(y)
        ));
        y
    });
    Ok(ParallelismResult {
        strategy,
        chips: n,
        t_math,
        steps,
        t_comms,
        t_comms_approx,
        bound,
        critical,
        max_chips_approx,
        section,
        derivation,
    })
}
