//! Sweeps: one operation analysed over a range of one numeric field, with exact crossovers.
//!
//! Points use the lean internal path (no derivation strings, no allocation per point); a
//! 1024-point sweep takes microseconds. Crossovers — where `T_math − max comm` changes sign —
//! are refined by bisection to machine precision, re-analysing the operation at the exact
//! real-valued `x` (so a batch crossover may be fractional, e.g. B = 136.08).
//!
//! A composite operation (`llm`) is summed over its parts at every point (its step time
//! `Σ repeat·T_lower` is not affine in any field); its crossover is where the summed `T_math`
//! overtakes the largest summed comm time. A sweep of an `llm`'s `b` or `ctx` reads each part
//! as a linear function of the step's values ([`crate::op::LlmSweep`]: no parts built per
//! point); other fields rebuild the op at every point.

use crate::analysis::{check_inputs, costs_at_0_and, eval_op};
use crate::chip::Chip;
use crate::error::Error;
use crate::eval::{pow2_scale, Affine, Eff, Eval};
use crate::field::{find_spec, FieldType};
use crate::op::{Evaluation, LlmSweep, Op, OpKind};
use crate::options::Options;
use crate::resource::Bound;
use crate::units::format_exact;
use serde::{Deserialize, Serialize};

/// Largest number of points a sweep may ask for.
pub const MAX_POINTS: usize = 100_000;

/// What to sweep: `field` from `from` to `to` over `points` points, linearly or
/// logarithmically.
///
/// An integer field (`b`, `d`, ...) whose range holds no more integers than `points` is swept
/// over every integer (`b` from 1 to 511 gives 511 points); otherwise grid values of integer
/// fields are rounded and duplicates dropped.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SweepSpec {
    /// The field key (`b`, `d`, `n`, `flops`, ...).
    pub field: String,
    /// First value.
    pub from: f64,
    /// Last value.
    pub to: f64,
    /// Number of points, 2 to [`MAX_POINTS`].
    pub points: usize,
    /// Logarithmic spacing (needs `from > 0`).
    pub log: bool,
}

impl Default for SweepSpec {
    /// `b` from 1 to 511, 511 points, linear (the book's question 3 plot).
    fn default() -> Self {
        SweepSpec {
            field: "b".into(),
            from: 1.0,
            to: 511.0,
            points: 511,
            log: false,
        }
    }
}

/// One point of a sweep.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SweepPoint {
    /// The swept value.
    pub x: f64,
    /// Achieved FLOPs/s = FLOPs / T_lower (displayed convention).
    pub achieved: f64,
    /// `max(T_math, comm terms)`, seconds.
    pub t_lower: f64,
    /// `T_math + Σ comm terms`, seconds.
    pub t_upper: f64,
    /// `T_math`, seconds.
    pub t_math: f64,
    /// Largest comm term, seconds.
    pub t_comms: f64,
    /// `achieved / peak`.
    pub fraction: f64,
    /// What binds.
    pub bound: Bound,
}

/// An exact change of bound between compute and memory/network.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Crossover {
    /// The value where `T_math = max comm` (the compute-bound side, to machine precision).
    pub x: f64,
    /// The bound just below `x` (in sweep order).
    pub before: Bound,
    /// The bound just after.
    pub after: Bound,
    /// Achieved FLOPs/s at `x`.
    pub achieved: f64,
    /// `T_lower` at `x`.
    pub t_lower: f64,
}

/// The result of a sweep.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepCurve {
    /// The operation's title (label or description).
    pub label: String,
    /// The chip's name.
    pub chip_name: String,
    /// The swept field.
    pub field: String,
    /// The nominal peak (displayed convention), FLOPs/s: the roof of an achieved-FLOPs plot.
    pub peak: f64,
    /// The points, in sweep order.
    pub points: Vec<SweepPoint>,
    /// Exact crossovers between grid points.
    pub crossovers: Vec<Crossover>,
}

fn point(x: f64, ev: &Eval, conv: f64) -> SweepPoint {
    let achieved = ev.achieved();
    SweepPoint {
        x,
        achieved: conv * achieved,
        t_lower: ev.t_lower(),
        t_upper: ev.t_upper(),
        t_math: ev.t_math,
        t_comms: ev.t_max,
        fraction: (achieved / ev.peak).min(1.0),
        bound: ev.bound,
    }
}

/// Evaluates the op at a value of the swept field: by affine interpolation when the kind
/// declares the field affine, else by recomputing the cost.
enum Evaluator<'a> {
    Affine(Affine),
    /// An `llm` step's parts as linear functions of the swept `b` or `ctx`.
    Parts(Box<LlmSweep>),
    /// Recomputed at every point (a composite kind: summed over its parts). Boxed: an `llm`
    /// op is much larger than the other variants.
    Direct {
        kind: Box<OpKind>,
        field: &'a str,
        chip: &'a Chip,
        eff: Eff,
    },
}

impl<'a> Evaluator<'a> {
    fn new(
        kind: &OpKind,
        field: &'a str,
        chip: &'a Chip,
        eff: Eff,
        (from, to): (f64, f64),
        paths: Paths,
    ) -> Result<Self, Error> {
        let fast = paths == Paths::Fastest;
        if fast {
            if let Some(m) = LlmSweep::for_kind(kind, field, chip, eff, (from, to)) {
                return Ok(Evaluator::Parts(Box::new(m?)));
            }
        }
        let span = from.abs().max(to.abs());
        let composite = matches!(kind.behavior().model(), Evaluation::Composite(_));
        if fast && !composite && kind.behavior().is_affine(field) {
            let s = pow2_scale(span);
            let (c0, c1) = costs_at_0_and(kind, field, s, chip)?;
            Ok(Evaluator::Affine(Affine::new(&c0, &c1, s, eff)))
        } else {
            Ok(Evaluator::Direct {
                kind: Box::new(kind.clone()),
                field,
                chip,
                eff,
            })
        }
    }

    /// The evaluation at grid value `xs[i]`: an `llm`'s parts over the next
    /// [`LlmSweep::CHUNK`] grid values at once (kept in `chunk`), else that point alone.
    fn eval_grid(&mut self, xs: &[f64], i: usize, chunk: &mut Vec<Eval>) -> Result<Eval, Error> {
        match self {
            Evaluator::Parts(m) => {
                let k = i % LlmSweep::CHUNK;
                if k == 0 {
                    m.eval_chunk(&xs[i..], chunk);
                }
                Ok(chunk[k])
            }
            _ => self.eval(xs[i]),
        }
    }

    fn eval(&mut self, x: f64) -> Result<Eval, Error> {
        match self {
            Evaluator::Affine(a) => Ok(a.eval(x)),
            Evaluator::Parts(m) => Ok(m.eval(x)),
            Evaluator::Direct {
                kind,
                field,
                chip,
                eff,
            } => {
                kind.set_num_raw(field, x);
                eval_op(kind, chip, *eff)
            }
        }
    }
}

/// The x values of a sweep (validated spec).
fn grid(spec: &SweepSpec, integer: bool) -> Vec<f64> {
    let (a, b) = (spec.from, spec.to);
    let span = (b - a).abs();
    if integer && span + 1.0 <= spec.points as f64 {
        let step = if b >= a { 1.0 } else { -1.0 };
        let count = span as usize + 1;
        return (0..count).map(|i| a + step * i as f64).collect();
    }
    let n = spec.points;
    let mut xs: Vec<f64> = Vec::with_capacity(n);
    for i in 0..n {
        let t = i as f64 / (n - 1) as f64;
        let mut x = if i == 0 {
            a
        } else if i == n - 1 {
            b
        } else if spec.log {
            a * libm::pow(b / a, t)
        } else {
            a + (b - a) * t
        };
        if integer {
            x = x.round();
        }
        if xs.last() != Some(&x) {
            xs.push(x);
        }
    }
    xs
}

/// Sweeps `spec.field` of `op` on `chip`.
///
/// Errors (never panics) when the inputs are invalid, the field is unknown or not numeric,
/// an endpoint is outside the field's range, `points` is not in 2..=[`MAX_POINTS`], or a log
/// sweep starts at 0.
pub fn sweep(op: &Op, chip: &Chip, opts: &Options, spec: &SweepSpec) -> Result<SweepCurve, Error> {
    sweep_with(op, chip, opts, spec, Paths::Fastest).map(|(c, _)| c)
}

/// Which ways of evaluating points a sweep may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Paths {
    /// The fastest that applies: affine interpolation, an `llm`'s linear parts, else rebuilt.
    Fastest,
    /// The op rebuilt at every point (the reference).
    Rebuilt,
}

/// How a sweep evaluates its points: `"affine"` (two evaluations interpolated), `"parts"`
/// (an `llm`'s parts as linear functions of `b` or `ctx`) or `"rebuilt"` (the op rebuilt at
/// every point).
#[doc(hidden)]
pub fn sweep_path(
    op: &Op,
    chip: &Chip,
    opts: &Options,
    spec: &SweepSpec,
) -> Result<&'static str, Error> {
    sweep_with(op, chip, opts, spec, Paths::Fastest).map(|(_, p)| p)
}

/// [`sweep`] with the op rebuilt at every point whatever its kind and field: the reference
/// the faster paths are tested and benchmarked against.
#[doc(hidden)]
pub fn sweep_rebuilt(
    op: &Op,
    chip: &Chip,
    opts: &Options,
    spec: &SweepSpec,
) -> Result<SweepCurve, Error> {
    sweep_with(op, chip, opts, spec, Paths::Rebuilt).map(|(c, _)| c)
}

fn sweep_with(
    op: &Op,
    chip: &Chip,
    opts: &Options,
    spec: &SweepSpec,
    paths: Paths,
) -> Result<(SweepCurve, &'static str), Error> {
    check_inputs(&op.kind, chip, opts)?;
    let fs = find_spec(op.fields(), &spec.field, op.kind_id())?;
    let err = |reason: String| Error::Sweep {
        field: spec.field.clone(),
        reason,
    };
    if !fs.is_numeric() {
        return Err(err(format!(
            "{} is not numeric and cannot be swept",
            fs.key
        )));
    }
    if !(2..=MAX_POINTS).contains(&spec.points) {
        return Err(err(format!(
            "points={} must be from 2 to {MAX_POINTS}",
            spec.points
        )));
    }
    fs.check(spec.from)?;
    fs.check(spec.to)?;
    if spec.log && spec.from <= 0.0 {
        return Err(err(format!(
            "a log sweep needs from > 0 (from={})",
            format_exact(spec.from)
        )));
    }
    let conv = opts.convention.factor();
    let xs = grid(spec, fs.ty == FieldType::Integer);
    let cal_chip = crate::analysis::calibrated_chip(chip, opts);
    let chip = &*cal_chip;
    let mut ctx = Evaluator::new(
        &op.kind,
        fs.key,
        chip,
        Eff::of(opts),
        (spec.from, spec.to),
        paths,
    )?;
    let path = match ctx {
        Evaluator::Affine(_) => "affine",
        Evaluator::Parts(_) => "parts",
        Evaluator::Direct { .. } => "rebuilt",
    };
    let mut points = Vec::with_capacity(xs.len());
    let mut crossovers = Vec::new();
    let mut prev: Option<(f64, Eval)> = None;
    let mut chunk = Vec::new();
    for (i, &x) in xs.iter().enumerate() {
        let ev = ctx.eval_grid(&xs, i, &mut chunk)?;
        if let Some((px, pev)) = prev {
            let (pc, c) = (pev.margin() >= 0.0, ev.margin() >= 0.0);
            if pc != c {
                let (mut lo, mut hi) = (px, x);
                for _ in 0..2100 {
                    let mid = lo + (hi - lo) / 2.0;
                    if mid == lo || mid == hi {
                        break;
                    }
                    if (ctx.eval(mid)?.margin() >= 0.0) == pc {
                        lo = mid;
                    } else {
                        hi = mid;
                    }
                }
                let cx = if pc { lo } else { hi };
                let cev = ctx.eval(cx)?;
                let cp = point(cx, &cev, conv);
                crossovers.push(Crossover {
                    x: cx,
                    before: pev.bound,
                    after: ev.bound,
                    achieved: cp.achieved,
                    t_lower: cp.t_lower,
                });
            }
        }
        points.push(point(x, &ev, conv));
        prev = Some((x, ev));
    }
    let curve = SweepCurve {
        label: op.title(),
        chip_name: chip.name.clone(),
        field: fs.key.to_string(),
        peak: conv * prev.map_or(0.0, |(_, e)| e.peak),
        points,
        crossovers,
    };
    Ok((curve, path))
}
