//! What a kind reports about its analysis beyond the figures every kind shares, as plain data
//! the generic code renders without asking which kind it is: its own figures (with their
//! `data-metric` names), the shared figures that mean nothing for it, the words the key line
//! adds, the parts its time splits into (for comparisons), and marks on a sweep of one of its
//! fields.
//!
//! The typed results of a collective and of a training step stay beside it for the JSON
//! export (whose `collective` and `train` objects they are) and for the family's own views
//! (the training plot, the worked examples); rows, the key line, sweeps, comparisons and the
//! validation set read the report.

use super::CollectiveTimes;
use crate::resource::{Bound, Resource};
use crate::train::TrainAnalysis;
use crate::units::{format_exact, Unit};
use serde::{Deserialize, Serialize};

/// One part's figures inside an aggregate [`Analysis`] (per run, per chip; displayed FLOP
/// convention).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PartTime {
    /// The part's name.
    pub name: String,
    /// Runs per step.
    pub repeat: f64,
    /// FLOPs of one run.
    pub flops: f64,
    /// Bytes of one run, all resources.
    pub bytes: f64,
    /// FLOPs / bytes of the binding resource.
    pub intensity: f64,
    /// `T_math` of one run, seconds.
    pub t_math: f64,
    /// Largest comm time of one run, seconds.
    pub t_comms: f64,
    /// `T_lower` of one run, seconds.
    pub t_lower: f64,
    /// `T_upper` of one run, seconds.
    pub t_upper: f64,
    /// The longest time one run spends on a link (a tensor-parallel all-reduce, an expert
    /// dispatch), seconds; 0 for a part that crosses no link.
    pub t_link: f64,
    /// What limits the part.
    pub bound: Bound,
    /// The resource with the largest comm time.
    pub binding: Resource,
}

/// How a figure reads at a glance (the page colours it like a bound).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Tone {
    /// Nothing to flag.
    #[default]
    Plain,
    /// Good news, coloured like compute-bound (a fit).
    Compute,
    /// Coloured like memory-bound (does not fit; latency-bound).
    Memory,
    /// Coloured like network-bound.
    Network,
}

/// One figure a kind reports: its `data-metric` name, its exact value (or a word such as
/// `none`), what people read, a tooltip.
#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    /// The metric key (`busbw`, `mfu`, ...).
    pub metric: &'static str,
    /// The raw value in base units, or a word.
    pub value: String,
    /// What people read.
    pub text: String,
    /// How it reads.
    pub tone: Tone,
    /// Tooltip.
    pub title: String,
}

impl Figure {
    /// A plain figure.
    pub fn new(metric: &'static str, value: String, text: String, title: String) -> Figure {
        Figure {
            metric,
            value,
            text,
            tone: Tone::Plain,
            title,
        }
    }

    /// A figure with no value: `none`, shown as `—`, with why.
    pub fn none(metric: &'static str, why: &str) -> Figure {
        Figure::new(metric, "none".into(), "—".into(), why.into())
    }
}

/// Shared figures that mean nothing for a kind (a collective's FLOP columns): shown as `—`
/// with `why`, their values kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotApplicable {
    /// The shared metrics.
    pub metrics: &'static [&'static str],
    /// Why (the tooltip).
    pub why: &'static str,
}

/// One part of a result's time, for comparisons: the parts of a kind add up to its
/// `t_lower` (what they leave is the comparison's `other`).
#[derive(Debug, Clone, PartialEq)]
pub struct TimePart {
    /// `MLP ×32`, `pipeline bubble`, `bandwidth term`.
    pub name: String,
    /// Seconds per step.
    pub time: f64,
    /// `compute`, `memory (HBM)`, `network (NVLink)`, `fsdp communication`, ...
    pub binding: String,
}

/// A vertical mark a sweep of `field` shows at `x` (a collective's latency knee).
#[derive(Debug, Clone, PartialEq)]
pub struct Mark {
    /// The swept field it belongs to.
    pub field: &'static str,
    /// Where, in the field's unit.
    pub x: f64,
    /// Its label (the page puts the chip's name before it when there are several).
    pub label: String,
}

/// What a kind reports (see the module docs). Serialised as before the report existed: its
/// `parts`, `collective` and `train` at the top of the analysis, the rest not at all.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// A composite's parts with their times (`llm`); empty otherwise. See
    /// [`crate::workload`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<PartTime>,
    /// The kind's own figures, after the shared ones, in column order.
    #[serde(skip)]
    pub figures: Vec<Figure>,
    /// Shared figures that mean nothing for the kind.
    #[serde(skip)]
    pub not_applicable: Option<NotApplicable>,
    /// Words the key line adds after the bound (a collective's time and busbw).
    #[serde(skip)]
    pub key_words: String,
    /// Words the key line adds when the operation fits in memory (an LLM step's tokens/s).
    #[serde(skip)]
    pub key_words_fit: String,
    /// The parts of its time that are not `parts` (a training step's, a collective's terms);
    /// read them through [`Report::phases`], which derives a composite's from its parts.
    #[serde(skip)]
    pub phases: Vec<TimePart>,
    /// Marks on a sweep of one of its fields.
    #[serde(skip)]
    pub marks: Vec<Mark>,
    /// A collective's two terms, formula and section (for the export).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub collective: Option<CollectiveTimes>,
    /// A training step's whole analysis (for the export and the training views).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub train: Option<Box<TrainAnalysis>>,
}

impl Report {
    /// A reported figure by its metric.
    pub fn figure(&self, metric: &str) -> Option<&Figure> {
        self.figures.iter().find(|f| f.metric == metric)
    }

    /// The parts of its time, adding up to `t_lower` (empty for a plain operation): a
    /// composite's parts (derived when asked, not on every analysis), else the phases the kind
    /// reported.
    pub fn phases(&self) -> Vec<TimePart> {
        if self.parts.is_empty() {
            self.phases.clone()
        } else {
            part_phases(&self.parts)
        }
    }
}

pub(crate) use crate::units::format_shown as pretty;

/// `compute`, or the bound with its resource: `memory (HBM)`.
pub fn binding_words(bound: Bound, resource: Resource) -> String {
    match bound {
        Bound::Compute => "compute".into(),
        b => format!("{} ({})", b.as_str(), resource.label()),
    }
}

/// A composite's parts as phases: each part's `repeat·T_lower`.
pub(crate) fn part_phases(parts: &[PartTime]) -> Vec<TimePart> {
    parts
        .iter()
        .map(|p| TimePart {
            name: format!("{} ×{}", p.name, format_exact(p.repeat)),
            time: p.repeat * p.t_lower,
            binding: binding_words(p.bound, p.binding),
        })
        .collect()
}

/// A collective's report: no FLOPs, its algorithm, whether latency binds, the bus bandwidth,
/// its two terms and the knee of a sweep over its array size.
pub(crate) fn collective_report(
    c: CollectiveTimes,
    topology: String,
    binding: Resource,
    t_lower: f64,
) -> Report {
    let (bound_word, tone) = if c.latency_bound {
        ("latency", Tone::Memory)
    } else {
        ("bandwidth", Tone::Network)
    };
    let mut figures = vec![
        Figure::new(
            "algorithm",
            topology.clone(),
            format!("{topology}: {}", c.formula),
            format!("the book's formula for this topology ({})", c.section),
        ),
        Figure {
            tone,
            ..Figure::new(
                "latency_bound",
                c.latency_bound.to_string(),
                format!("{bound_word}-bound"),
                format!(
                    "latency {} hops = {}, bandwidth term {} ({}, {})",
                    format_exact(c.hops),
                    pretty(c.t_latency, Unit::Seconds),
                    pretty(c.t_bandwidth, Unit::Seconds),
                    c.formula,
                    c.section
                ),
            )
        },
    ];
    figures.push(match c.busbw {
        Some(bw) => Figure::new(
            "busbw",
            format_exact(bw),
            format!("busbw {}", pretty(bw, Unit::ByteRate)),
            "bus bandwidth, nccl-tests' convention: V·2(n−1)/n / t for an AllReduce, \
             V·(n−1)/n / t for an AllGather, ReduceScatter or AllToAll"
                .into(),
        ),
        None => Figure::none("busbw", "nothing to communicate"),
    });
    let knee = c.knee_bytes.map(|x| Mark {
        field: "bytes",
        x,
        label: format!(
            "latency-bound below V = {}, bandwidth-bound above",
            pretty(x, Unit::Bytes)
        ),
    });
    // A collective's answer is its time (issue 24, point 7).
    let key_words = format!(
        ", T = {} ({bound_word}-bound{})",
        pretty(t_lower, Unit::Seconds),
        c.busbw
            .map(|bw| format!(", busbw {}", pretty(bw, Unit::ByteRate)))
            .unwrap_or_default()
    );
    Report {
        figures,
        key_words,
        not_applicable: Some(NotApplicable {
            metrics: &[
                "flops",
                "intensity",
                "t_math",
                "achieved",
                "fraction",
                "ridge",
                "critical_b",
                "fits",
            ],
            why: "a collective only moves data: no FLOPs, nothing held in HBM",
        }),
        phases: vec![
            TimePart {
                name: "bandwidth term".into(),
                time: c.t_bandwidth,
                binding: binding_words(Bound::Network, binding),
            },
            TimePart {
                name: "latency term".into(),
                time: c.t_latency,
                binding: "latency".into(),
            },
        ],
        marks: knee.into_iter().collect(),
        collective: Some(c),
        ..Report::default()
    }
}

/// An LLM step in the key line: its latency and the tokens per second of all its sequences
/// together, then of one sequence, labelled as such: `, step 19.5 ms: 2.15k tokens/s in all,
/// 51.3 per sequence`. Decode makes one token per sequence per step; prefill reads `ctx` per
/// sequence; verify scores `k+1`.
pub(crate) fn step_words(op: &crate::op::Op, step: f64) -> String {
    let b = op.get_num("b").unwrap_or(1.0);
    let per_seq = op
        .llm()
        .map_or(1.0, |l| l.phase.tokens_per_sequence(l.ctx, l.spec_k));
    if step.is_nan() || step <= 0.0 {
        return String::new();
    }
    format!(
        ", step {}: {} tokens/s in all, {} per sequence",
        pretty(step, Unit::Seconds),
        pretty(b * per_seq / step, Unit::Count),
        pretty(per_seq / step, Unit::Count)
    )
}
