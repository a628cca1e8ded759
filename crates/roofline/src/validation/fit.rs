//! The model the validation set fits (see the module docs of [`super`]): a measured time is the
//! bare bound's pieces, each slowed by what its resource achieves, plus the terms the data
//! show; fitted by least absolute relative error, so one wild point cannot drag every
//! expectation. Pure arithmetic, no analysis.

use crate::resource::Bound;

/// `q`-th quantile (0 to 1) of `v`, interpolating linearly between sorted values; `None` for
/// an empty slice.
pub fn percentile(v: &[f64], q: f64) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let x = q.clamp(0.0, 1.0) * (s.len() - 1) as f64;
    let (i, f) = (x.floor() as usize, x - x.floor());
    let j = (i + 1).min(s.len() - 1);
    Some(s[i] + f * (s[j] - s[i]))
}

pub(super) fn median(v: &[f64]) -> Option<f64> {
    percentile(v, 0.5)
}

/// A bound split by what binds each piece of it: the shares of `T_lower` spent in
/// compute-bound, memory-bound and network-bound pieces (a kernel is one piece; a model step's
/// pieces are its parts, each counted `repeat` times). The shares add up to 1.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Split {
    /// Share of the bound in compute-bound pieces.
    pub compute: f64,
    /// Share in pieces bound by HBM or on-chip memory.
    pub memory: f64,
    /// Share in pieces bound by a link.
    pub network: f64,
}

impl Split {
    /// All of the bound on one resource.
    pub fn only(bound: Bound) -> Split {
        let mut s = Split::default();
        s.add(bound, 1.0);
        s
    }

    /// The split of an analysis: its parts' times by their bound, or the whole by its bound.
    pub fn of(a: &crate::analysis::Analysis) -> Split {
        if a.report.parts.is_empty() {
            return Split::only(a.bound);
        }
        let mut s = Split::default();
        for p in &a.report.parts {
            s.add(p.bound, p.repeat * p.t_lower);
        }
        s.normalized()
    }

    /// Two splits weighted by the times they cover (a request: its prefill and its decode
    /// steps).
    pub fn mix(a: Split, ta: f64, b: Split, tb: f64) -> Split {
        Split {
            compute: a.compute * ta + b.compute * tb,
            memory: a.memory * ta + b.memory * tb,
            network: a.network * ta + b.network * tb,
        }
        .normalized()
    }

    fn add(&mut self, bound: Bound, t: f64) {
        match bound {
            Bound::Compute => self.compute += t,
            Bound::Memory => self.memory += t,
            Bound::Network => self.network += t,
        }
    }

    fn normalized(self) -> Split {
        let total = self.compute + self.memory + self.network;
        if !(total.is_finite() && total > 0.0) {
            return Split::only(Bound::Compute);
        }
        Split {
            compute: self.compute / total,
            memory: self.memory / total,
            network: self.network / total,
        }
    }
}

/// What the model reads of a compared figure besides its bound.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Features {
    /// Which resource binds each piece of the bound.
    pub split: Split,
    /// A single kernel: 1 µs over the compared figure (a fixed launch overhead's ratio per
    /// microsecond); 0 for a model step.
    pub launch: f64,
    /// A model step: 1 ms of overhead per step over the compared figure (scheduler, launches);
    /// 0 for a kernel.
    pub step: f64,
    /// A model step spread over a group of `n = tp × ep` chips: 1 µs per collective the step
    /// runs (its parts that cross a link, each counted `repeat` times) and per doubling of the
    /// group (`log2 n`), over the compared figure: the ratio a fixed latency per collective
    /// adds when it grows with the stages of a tree over the group; else 0. The batch-1 sweeps
    /// of three engines read it so: what is left per collective past the weights' read is about
    /// 11, 21 and 27 µs at TP 2, 4 and 8 (gpt-fast), 23, 48 and 71 µs (FasterTransformer),
    /// 13 and 25 µs at TP 2 and 4 (LMDeploy): flat per doubling, not per chip.
    pub multi_chip: f64,
    /// 1 for a mixture of experts, else 0.
    pub moe: f64,
}

impl Features {
    /// The features of `op` analysed as `a`, for a compared figure of `figure` seconds that
    /// covers `steps` model steps (1 for a step or a kernel; `1 / B` for seconds per output
    /// token of a batch).
    pub fn of(op: &crate::op::Op, a: &crate::analysis::Analysis, figure: f64, steps: f64) -> Self {
        Features::from_split(Split::of(a), op, a, figure, steps)
    }

    /// A kernel bound by `bound`, `launches` times in `t_lower` seconds all told (a measured
    /// profile's row: each launch pays the launch overhead).
    pub fn kernel(bound: Bound, t_lower: f64, launches: f64) -> Self {
        Features {
            split: Split::only(bound),
            launch: if t_lower > 0.0 {
                launches * 1e-6 / t_lower
            } else {
                0.0
            },
            ..Features::default()
        }
    }

    /// [`Features::of`] with the split given (a request mixes two steps' splits).
    pub fn from_split(
        split: Split,
        op: &crate::op::Op,
        a: &crate::analysis::Analysis,
        figure: f64,
        steps: f64,
    ) -> Self {
        use crate::op::Workload;
        // What the analysed operation times: one kernel, a model's step (an LLM decode or
        // prefill: a launch per part, a step overhead), or a whole training step (neither).
        let work = a.op.workload();
        let step = matches!(work, Some(Workload::Decode | Workload::Prefill));
        let kernel = !step && work != Some(Workload::Training);
        let num = |k: &str| op.get_num(k).unwrap_or(1.0);
        let per = |s: f64| if figure > 0.0 { s / figure } else { 0.0 };
        // The chips a step's collectives span: its tensor- and expert-parallel group.
        let group = num("tp") * num("ep");
        Features {
            split,
            launch: if kernel { per(1e-6) } else { 0.0 },
            step: if step { per(1e-3 * steps) } else { 0.0 },
            multi_chip: if step && group > 1.0 {
                per(1e-6 * collectives(a) * steps * group.log2())
            } else {
                0.0
            },
            moe: f64::from(num("experts") > 1.0),
        }
    }

    /// As stored (`fitted.rs`): compute, memory, network, launch, step, multi-chip, MoE.
    pub fn to_array(self) -> [f64; 7] {
        let s = self.split;
        [
            s.compute,
            s.memory,
            s.network,
            self.launch,
            self.step,
            self.multi_chip,
            self.moe,
        ]
    }

    /// The inverse of [`Features::to_array`].
    pub fn from_array(v: [f64; 7]) -> Self {
        Features {
            split: Split {
                compute: v[0],
                memory: v[1],
                network: v[2],
            },
            launch: v[3],
            step: v[4],
            multi_chip: v[5],
            moe: v[6],
        }
    }
}

/// The collectives one run of `a` starts: its parts that cross a link, each `repeat` times.
fn collectives(a: &crate::analysis::Analysis) -> f64 {
    a.report
        .parts
        .iter()
        .filter(|p| p.t_link > 0.0)
        .map(|p| p.repeat)
        .sum()
}

/// A term of the model: `measured / T_lower ≈ Σ coefficient × feature`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Term {
    /// Compute-bound pieces run at 1 / coefficient of the peak.
    Compute,
    /// Memory-bound pieces at 1 / coefficient of the HBM bandwidth.
    Memory,
    /// Network-bound pieces at 1 / coefficient of the link bandwidth.
    Network,
    /// A fixed overhead per kernel launch: coefficient µs.
    Launch,
    /// A fixed overhead per model step: coefficient ms.
    Step,
    /// Several chips per step: a fixed latency per collective (the α of an α–β cost: launch,
    /// synchronisation, hops), coefficient µs per doubling of the group, that the bound's
    /// bandwidth-only link time lacks.
    MultiChip,
    /// A mixture of experts: load imbalance, as a ratio added.
    Moe,
    /// An LLM step's memory-bound pieces (its GEMVs, its decode attention, its many small
    /// kernels) reach less of the HBM bandwidth than one streaming kernel: added to the memory
    /// coefficient for the step's memory share.
    StepMemory,
    /// An LLM step's compute-bound pieces (matmuls as tall as the batch, not 8192³) reach less
    /// of the peak than one large kernel: added to the compute coefficient for the step's
    /// compute share.
    StepCompute,
}

impl Term {
    /// The achievable fractions, always in the model (a term left out counts at 1: the bare
    /// roofline's own resource).
    pub const RESOURCES: [Term; 3] = [Term::Compute, Term::Memory, Term::Network];
    /// The terms kept only where they lower the held-out error.
    /// The fractions of a model step first (a resource's fraction, like the three above), then
    /// the overheads.
    pub const CANDIDATES: [Term; 6] = [
        Term::StepMemory,
        Term::StepCompute,
        Term::Launch,
        Term::Step,
        Term::MultiChip,
        Term::Moe,
    ];

    /// A short id.
    pub fn id(self) -> &'static str {
        match self {
            Term::Compute => "compute",
            Term::Memory => "memory",
            Term::Network => "network",
            Term::Launch => "launch",
            Term::Step => "step",
            Term::MultiChip => "multi-chip",
            Term::Moe => "moe",
            Term::StepMemory => "step-memory",
            Term::StepCompute => "step-compute",
        }
    }

    /// What the term stands for, in words.
    pub fn label(self) -> &'static str {
        match self {
            Term::Compute => "achievable fraction of peak FLOP/s",
            Term::Memory => "achievable fraction of HBM bandwidth",
            Term::Network => "achievable fraction of link bandwidth",
            Term::Launch => "fixed overhead per kernel launch",
            Term::Step => "fixed overhead per model step",
            Term::MultiChip => "fixed latency per collective, per doubling of TP × EP",
            Term::Moe => "MoE load imbalance",
            Term::StepMemory => "HBM bandwidth an LLM step reaches below a kernel's",
            Term::StepCompute => "peak an LLM step reaches below a kernel's",
        }
    }

    /// The feature the term multiplies in a figure's [`Features`].
    pub fn x(self, f: &Features) -> f64 {
        match self {
            Term::Compute => f.split.compute,
            Term::Memory => f.split.memory,
            Term::Network => f.split.network,
            Term::Launch => f.launch,
            Term::Step => f.step,
            Term::MultiChip => f.multi_chip,
            Term::Moe => f.moe,
            // A figure is an LLM step's exactly when it carries the per-step overhead feature.
            Term::StepMemory if f.step > 0.0 => f.split.memory,
            Term::StepCompute if f.step > 0.0 => f.split.compute,
            Term::StepMemory | Term::StepCompute => 0.0,
        }
    }
}

/// A fitted model: its terms and their coefficients (all ≥ 0).
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    /// The terms, in fit order.
    pub terms: Vec<Term>,
    /// One coefficient per term.
    pub coef: Vec<f64>,
}

impl Model {
    /// The predicted `measured / T_lower`: the bare bound's resources not in the model count
    /// at 1.
    pub fn ratio(&self, f: &Features) -> f64 {
        self.terms
            .iter()
            .zip(&self.coef)
            .map(|(t, c)| c * t.x(f))
            .sum::<f64>()
            + offset(&self.terms, f)
    }

    /// The coefficient of `term`, if the model has it.
    pub fn coef(&self, term: Term) -> Option<f64> {
        self.terms
            .iter()
            .position(|t| *t == term)
            .map(|i| self.coef[i])
    }
}

fn offset(terms: &[Term], f: &Features) -> f64 {
    Term::RESOURCES
        .iter()
        .filter(|r| !terms.contains(r))
        .map(|r| r.x(f))
        .sum()
}

/// Rounds of reweighting in [`fit_model`].
pub const ROUNDS: usize = 100;

/// Fits `terms` on `(features, measured / T_lower)` pairs: the coefficients `a ≥ 0` that
/// minimise `Σ |model ratio / measured ratio − 1|` (least absolute relative error), by
/// iteratively reweighted least squares ([`ROUNDS`] rounds from equal weights), then polished
/// to the vertex it approaches (an L1 optimum fits some points exactly). Deterministic.
/// `None` with fewer points than terms.
pub fn fit_model(data: &[(Features, f64)], terms: &[Term]) -> Option<Model> {
    if data.len() < terms.len().max(1) {
        return None;
    }
    let rows: Vec<(Vec<f64>, f64)> = data
        .iter()
        .map(|(f, r)| {
            let x = terms.iter().map(|t| t.x(f) / r).collect();
            (x, 1.0 - offset(terms, f) / r)
        })
        .collect();
    let mut w = vec![1.0; rows.len()];
    let mut a = vec![0.0; terms.len()];
    for _ in 0..ROUNDS {
        a = nonneg_weighted_lsq(&rows, &w)?;
        for (wi, (x, y)) in w.iter_mut().zip(&rows) {
            let res = (dot(x, &a) - y).abs();
            *wi = 1.0 / res.max(1e-6);
        }
    }
    Some(Model {
        terms: terms.to_vec(),
        coef: polish(&rows, a),
    })
}

/// The L1 objective `Σ |x·a − y|`.
fn l1(rows: &[(Vec<f64>, f64)], a: &[f64]) -> f64 {
    rows.iter().map(|(x, y)| (dot(x, a) - y).abs()).sum()
}

/// Reweighting approaches an L1 optimum slowly where it sits on a vertex: the coefficients
/// that fit exactly the points nearest to the fit, one per non-zero coefficient. Takes that
/// vertex when it is non-negative and no worse.
fn polish(rows: &[(Vec<f64>, f64)], a: Vec<f64>) -> Vec<f64> {
    let free: Vec<usize> = (0..a.len()).filter(|i| a[*i] > 0.0).collect();
    let mut order: Vec<usize> = (0..rows.len()).collect();
    order.sort_by(|&i, &j| {
        let r = |k: usize| (dot(&rows[k].0, &a) - rows[k].1).abs();
        r(i).total_cmp(&r(j))
    });
    let exact: Vec<(Vec<f64>, f64)> = order
        .iter()
        .take(free.len())
        .map(|&i| rows[i].clone())
        .collect();
    let ones = vec![1.0; exact.len()];
    let Some(sol) = solve_subset(&exact, &ones, &free) else {
        return a;
    };
    let mut v = vec![0.0; a.len()];
    for (i, x) in free.iter().zip(sol) {
        v[*i] = x;
    }
    if v.iter().all(|x| *x >= 0.0) && l1(rows, &v) <= l1(rows, &a) {
        v
    } else {
        a
    }
}

fn dot(x: &[f64], a: &[f64]) -> f64 {
    x.iter().zip(a).map(|(p, q)| p * q).sum()
}

/// `min Σ w (x·a − y)²` over `a ≥ 0`: the unconstrained solution when it is non-negative, else
/// the best over every subset of free coefficients (the others at 0). The normal equations are
/// summed once ([`Normal`]) and each subset solves its part of them.
fn nonneg_weighted_lsq(rows: &[(Vec<f64>, f64)], w: &[f64]) -> Option<Vec<f64>> {
    let k = rows.first()?.0.len();
    let normal = Normal::of(rows, w);
    let objective = |a: &[f64]| -> f64 {
        rows.iter()
            .zip(w)
            .map(|((x, y), wi)| wi * (dot(x, a) - y).powi(2))
            .sum()
    };
    let mut best: Option<(f64, Vec<f64>)> = None;
    for mask in (1..1u32 << k).rev() {
        let free: Vec<usize> = (0..k).filter(|i| mask & (1 << i) != 0).collect();
        let Some(sol) = normal.solve(&free) else {
            continue;
        };
        if sol.iter().any(|v| *v < 0.0) {
            continue;
        }
        let mut a = vec![0.0; k];
        for (i, v) in free.iter().zip(sol) {
            a[*i] = v;
        }
        let obj = objective(&a);
        if mask == (1 << k) - 1 {
            return Some(a);
        }
        if best.as_ref().is_none_or(|(b, _)| obj < *b) {
            best = Some((obj, a));
        }
    }
    best.map(|(_, a)| a).or(Some(vec![0.0; k]))
}

/// The weighted normal equations of every column: `Σ w·x_i·x_j` and `Σ w·x_i·y`, summed over
/// the rows in order (so any subset's equations are, bit for bit, those summed for it alone).
struct Normal {
    xx: Vec<Vec<f64>>,
    xy: Vec<f64>,
}

impl Normal {
    fn of(rows: &[(Vec<f64>, f64)], w: &[f64]) -> Normal {
        let k = rows.first().map_or(0, |r| r.0.len());
        let mut xx = vec![vec![0.0; k]; k];
        let mut xy = vec![0.0; k];
        for ((x, y), wi) in rows.iter().zip(w) {
            for i in 0..k {
                for j in 0..k {
                    xx[i][j] += wi * x[i] * x[j];
                }
                xy[i] += wi * x[i] * y;
            }
        }
        Normal { xx, xy }
    }

    /// The equations of the columns `free`, solved by Gaussian elimination with partial
    /// pivoting; `None` when singular.
    fn solve(&self, free: &[usize]) -> Option<Vec<f64>> {
        let n = free.len();
        let mut m: Vec<Vec<f64>> = free
            .iter()
            .map(|&i| {
                let mut row: Vec<f64> = free.iter().map(|&j| self.xx[i][j]).collect();
                row.push(self.xy[i]);
                row
            })
            .collect();
        for col in 0..n {
            let piv = (col..n).max_by(|&a, &b| m[a][col].abs().total_cmp(&m[b][col].abs()))?;
            if m[piv][col].abs() < 1e-12 {
                return None;
            }
            m.swap(col, piv);
            let pivot_row = m[col].clone();
            for (r, row) in m.iter_mut().enumerate() {
                if r != col {
                    let f = row[col] / pivot_row[col];
                    for (x, p) in row.iter_mut().zip(&pivot_row).skip(col) {
                        *x -= f * p;
                    }
                }
            }
        }
        Some((0..n).map(|i| m[i][n] / m[i][i]).collect())
    }
}

/// The weighted normal equations of the columns `free`, solved; `None` when singular.
fn solve_subset(rows: &[(Vec<f64>, f64)], w: &[f64], free: &[usize]) -> Option<Vec<f64>> {
    Normal::of(rows, w).solve(free)
}
