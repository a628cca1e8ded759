//! Measured kernels against a chip's roofline: placement, the table sorted by time lost, and
//! totals per group of kernel names.

use super::Kernel;
use crate::error::Error;
use crate::units::format_exact;
use serde::{Deserialize, Serialize};

/// A chip's roofline: peak compute `P` (FLOP/s) and memory bandwidth `W` (bytes/s), as
/// plain numbers (the caller picks the chip, dtype, derate...).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Roofline {
    peak: f64,
    bandwidth: f64,
}

/// Which roof limits a kernel at its intensity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Bound {
    /// `F/P ≥ B/W`: at or right of the ridge.
    Compute,
    /// `B/W > F/P`: left of the ridge.
    Memory,
}

/// A kernel placed on a roofline. Times are totals over the kernel's launches.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Placed {
    /// `F / B`, FLOPs per byte (infinite when no byte moved).
    pub intensity: f64,
    /// `F / t`, FLOP/s achieved.
    pub achieved: f64,
    /// `min(P, W·I)`: the roofline's FLOP/s at this intensity.
    pub roof: f64,
    /// `achieved / roof`, which equals `lower_bound / t` (and stays defined with no FLOPs).
    pub roof_fraction: f64,
    /// `max(F/P, B/W)`, seconds: the roofline's lower bound on the time.
    pub lower_bound: f64,
    /// `t − lower_bound`, seconds (negative when the measured kernel beat the chip's numbers).
    pub time_lost: f64,
    /// The roof that binds at this intensity.
    pub bound: Bound,
}

impl Roofline {
    /// A roofline of peak `peak` FLOP/s and bandwidth `bandwidth` bytes/s, both finite and
    /// positive.
    pub fn new(peak: f64, bandwidth: f64) -> Result<Roofline, Error> {
        for (field, v) in [("peak", peak), ("bandwidth", bandwidth)] {
            if !(v.is_finite() && v > 0.0) {
                return Err(Error::invalid(
                    field,
                    format_exact(v),
                    "must be a finite positive number",
                ));
            }
        }
        Ok(Roofline { peak, bandwidth })
    }

    /// Peak compute, FLOP/s.
    pub fn peak(&self) -> f64 {
        self.peak
    }

    /// Memory bandwidth, bytes/s.
    pub fn bandwidth(&self) -> f64 {
        self.bandwidth
    }

    /// `P / W`, FLOPs per byte: the intensity where the roofs meet.
    pub fn ridge(&self) -> f64 {
        self.peak / self.bandwidth
    }

    /// The roof at intensity `i`: `min(P, W·i)`.
    pub fn roof(&self, intensity: f64) -> f64 {
        self.peak.min(self.bandwidth * intensity)
    }

    /// `max(F/P, B/W)`, seconds.
    pub fn lower_bound(&self, flops: f64, bytes: f64) -> f64 {
        (flops / self.peak).max(bytes / self.bandwidth)
    }

    /// Places a kernel; `None` when its FLOPs or bytes are unknown, both are zero, or its
    /// time is not positive.
    pub fn place(&self, k: &Kernel) -> Option<Placed> {
        let (f, b, t) = (k.flops?, k.bytes?, k.time);
        if !(f.is_finite() && b.is_finite() && t.is_finite()) || f < 0.0 || b < 0.0 || t <= 0.0 {
            return None;
        }
        if f == 0.0 && b == 0.0 {
            return None;
        }
        let intensity = if b > 0.0 { f / b } else { f64::INFINITY };
        let (tm, tc) = (f / self.peak, b / self.bandwidth);
        let lower_bound = tm.max(tc);
        Some(Placed {
            intensity,
            achieved: f / t,
            roof: self.roof(intensity),
            roof_fraction: lower_bound / t,
            lower_bound,
            time_lost: t - lower_bound,
            bound: if tm >= tc {
                Bound::Compute
            } else {
                Bound::Memory
            },
        })
    }
}

/// A row of the time-lost table: the kernel's index in the input and its placement.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RankedRow {
    /// Index into the kernels given.
    pub index: usize,
    /// `None` when the kernel cannot be placed (unknown FLOPs or bytes).
    pub placed: Option<Placed>,
}

/// The kernels sorted by time lost against the roofline, most first; kernels that cannot be
/// placed follow, by measured time. Ties keep the input order.
pub fn rank_by_time_lost(kernels: &[Kernel], roofline: &Roofline) -> Vec<RankedRow> {
    let mut rows: Vec<RankedRow> = kernels
        .iter()
        .enumerate()
        .map(|(index, k)| RankedRow {
            index,
            placed: roofline.place(k),
        })
        .collect();
    rows.sort_by(|a, b| match (&a.placed, &b.placed) {
        (Some(x), Some(y)) => y.time_lost.total_cmp(&x.time_lost),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => kernels[b.index].time.total_cmp(&kernels[a.index].time),
    });
    rows
}

/// A name pattern: alternatives separated by `|`, each a case-insensitive substring
/// (`gemm`) or, when it holds a `*`, a glob over the whole name (`*gemm*nn`, `aten::*mm`).
/// A kernel matches when its name or its GPU kernel name matches an alternative.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pattern {
    text: String,
    alts: Vec<String>,
}

/// Whether `p` (a glob of `*`) matches all of `t`, ASCII case-insensitively. Linear-time
/// backtracking over the last star: no blow-up on `*a*a*a*b`.
fn glob(p: &[u8], t: &[u8]) -> bool {
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && p[pi] == b'*' {
            star = Some((pi, ti));
            pi += 1;
        } else if pi < p.len() && p[pi].eq_ignore_ascii_case(&t[ti]) {
            pi += 1;
            ti += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == b'*')
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    needle.is_empty()
        || hay
            .windows(needle.len())
            .any(|w| w.eq_ignore_ascii_case(needle))
}

impl Pattern {
    /// Reads a pattern. Refuses an empty pattern or an empty alternative (`gemm||`), and
    /// patterns over 400 characters.
    pub fn parse(text: &str) -> Result<Pattern, Error> {
        let t = text.trim();
        let bad = |reason: &str| Error::invalid("group", t, reason);
        if t.is_empty() {
            return Err(bad(
                "is empty; give a name part such as gemm, or a glob such as *gemm*",
            ));
        }
        if t.chars().count() > 400 {
            return Err(bad("is longer than 400 characters"));
        }
        let alts: Vec<String> = t.split('|').map(|a| a.trim().to_string()).collect();
        if alts
            .iter()
            .any(|a| a.is_empty() || a.bytes().all(|b| b == b'*'))
        {
            return Err(bad("has an empty alternative (`|` twice, or a lone `*`)"));
        }
        Ok(Pattern {
            text: t.to_string(),
            alts,
        })
    }

    /// The pattern as given.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether `text` matches.
    pub fn matches(&self, text: &str) -> bool {
        self.alts.iter().any(|a| {
            if a.contains('*') {
                glob(a.as_bytes(), text.as_bytes())
            } else {
                contains(text.as_bytes(), a.as_bytes())
            }
        })
    }

    /// Whether the kernel's name or GPU kernel name matches.
    pub fn matches_kernel(&self, k: &Kernel) -> bool {
        self.matches(&k.name) || k.kernel.as_deref().is_some_and(|n| self.matches(n))
    }
}

/// A named group of kernels.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Group {
    /// What the table calls it.
    pub name: String,
    /// Which kernels belong.
    pub pattern: Pattern,
}

impl Group {
    /// A group from a name and pattern text.
    pub fn new(name: impl Into<String>, pattern: &str) -> Result<Group, Error> {
        Ok(Group {
            name: name.into(),
            pattern: Pattern::parse(pattern)?,
        })
    }
}

/// Groups for common kernels, in the order they are tried (a kernel joins the first that
/// matches): attention, GEMM, communication, normalisation, softmax, reductions, copies,
/// elementwise.
pub fn default_groups() -> Vec<Group> {
    [
        ("attention", "attention|attn|fmha|flash|sdpa|mha_"),
        (
            "gemm",
            "gemm|matmul|aten::mm|aten::addmm|aten::bmm|aten::baddbmm|aten::linear|cutlass|cublas|wgmma",
        ),
        (
            "communication",
            "nccl|rccl|all_reduce|allreduce|all_gather|allgather|reduce_scatter|all_to_all",
        ),
        ("norm", "norm"),
        ("softmax", "softmax"),
        ("reduce", "reduce|aten::sum|aten::mean|aten::max"),
        ("copy", "copy|memcpy|memset|aten::cat|concat|transpose|permute"),
        ("elementwise", "elementwise|vectorized|pointwise|triton_poi|aten::add|aten::mul|relu|gelu|silu"),
    ]
    .into_iter()
    .filter_map(|(n, p)| Group::new(n, p).ok())
    .collect()
}

/// Totals of one group. FLOPs, bytes and the roofline figures cover the kernels that can be
/// placed; `time` covers all.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GroupTotal {
    /// The group's name (`other` for kernels no group matched).
    pub name: String,
    /// Records in the group.
    pub records: usize,
    /// Launches in the group.
    pub launches: u64,
    /// Measured time of all records, seconds.
    pub time: f64,
    /// Measured time of the records that can be placed, seconds.
    pub placed_time: f64,
    /// FLOPs of the placed records.
    pub flops: f64,
    /// Bytes of the placed records.
    pub bytes: f64,
    /// Sum of the placed records' lower bounds, seconds.
    pub lower_bound: f64,
}

impl GroupTotal {
    fn new(name: &str) -> GroupTotal {
        GroupTotal {
            name: name.to_string(),
            records: 0,
            launches: 0,
            time: 0.0,
            placed_time: 0.0,
            flops: 0.0,
            bytes: 0.0,
            lower_bound: 0.0,
        }
    }

    /// `placed_time − lower_bound`, seconds.
    pub fn time_lost(&self) -> f64 {
        self.placed_time - self.lower_bound
    }

    /// `flops / bytes` of the placed records.
    pub fn intensity(&self) -> f64 {
        if self.bytes > 0.0 {
            self.flops / self.bytes
        } else if self.flops > 0.0 {
            f64::INFINITY
        } else {
            0.0
        }
    }

    /// `flops / placed_time`, FLOP/s (0 when nothing is placed).
    pub fn achieved(&self) -> f64 {
        if self.placed_time > 0.0 {
            self.flops / self.placed_time
        } else {
            0.0
        }
    }

    /// `lower_bound / placed_time`: the fraction of the roofline the group reaches as a whole
    /// (0 when nothing is placed).
    pub fn roof_fraction(&self) -> f64 {
        if self.placed_time > 0.0 {
            self.lower_bound / self.placed_time
        } else {
            0.0
        }
    }
}

/// Sums the kernels per group (each joins the first group whose pattern matches, else
/// `other`); one total per group in order, then `other`. Groups with no kernel are kept (with
/// zeros) so a table's rows stay put.
pub fn group_totals(kernels: &[Kernel], groups: &[Group], roofline: &Roofline) -> Vec<GroupTotal> {
    let mut out: Vec<GroupTotal> = groups.iter().map(|g| GroupTotal::new(&g.name)).collect();
    out.push(GroupTotal::new("other"));
    for k in kernels {
        let i = groups
            .iter()
            .position(|g| g.pattern.matches_kernel(k))
            .unwrap_or(groups.len());
        let g = &mut out[i];
        g.records += 1;
        g.launches = g.launches.saturating_add(k.count);
        g.time += k.time;
        if let Some(p) = roofline.place(k) {
            g.placed_time += k.time;
            g.flops += k.flops.unwrap_or(0.0);
            g.bytes += k.bytes.unwrap_or(0.0);
            g.lower_bound += p.lower_bound;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_and_substrings() {
        let p = Pattern::parse("GEMM").unwrap();
        assert!(p.matches("ampere_sgemm_128x64_nn"));
        assert!(!p.matches("flash_fwd"));
        let p = Pattern::parse("aten::*mm").unwrap();
        assert!(p.matches("aten::addmm") && p.matches("ATEN::MM"));
        assert!(!p.matches("aten::mm_backward"));
        let p = Pattern::parse("*a*a*a*b").unwrap();
        assert!(!p.matches(&"a".repeat(10_000)));
        assert!(p.matches(&format!("{}b", "a".repeat(10_000))));
        let p = Pattern::parse("flash | fmha").unwrap();
        assert!(p.matches("fmha_cutlassF") && p.matches("flash_attn"));
        for bad in ["", "  ", "a||b", "*", "x|**"] {
            assert!(Pattern::parse(bad).is_err(), "{bad:?}");
        }
    }
}
