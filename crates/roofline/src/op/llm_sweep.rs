//! A sweep of an `llm` step's `b` or `ctx` without building its parts at every point.
//!
//! The parts read the batch and the context only through [`StepVars`] (`B`, `T`, the experts hit,
//! score pairs and positions read), and each part's FLOPs and bytes per resource are linear in the
//! values a sweep of one field moves (the others held). So the parts are built a few times per
//! sweep, by the one builder [`Llm::parts_at`]: once with the moved values at 0 and once with each
//! of them at a power of two beyond the sweep (dividing by it is exact), which gives each part's
//! FLOPs and bytes as `c0 + Σ k_j·v_j`. A point then computes the step values (one `powf` for an
//! MoE's experts hit, the closed form of the causal pairs) and, per part, a few multiply-adds and
//! the same divisions, maxima and sums as [`crate::eval`] and the composite's aggregate, 64 points
//! at a time (loops the compiler vectorises): no allocation per point.
//!
//! Bit for bit: the model is used only when every coefficient is a multiple of a power of two
//! and every sum stays an exact integer once scaled by it (sizes split by a tensor-parallel
//! degree that is a power of two), so at whole step values it gives the exact FLOPs and bytes,
//! as the parts built directly do; the experts hit, the one fractional value, enters one
//! product in both. Grid points are then the same bits as rebuilding the parts; a crossover
//! lies at a fractional `x` where both round, so its bisection may end a few ulps away.
//!
//! Nothing here restates a formula of a part: a part added to [`Llm::parts_at`] is picked up
//! by the sampling. Guards keep a part that breaks the premise from giving wrong numbers: the
//! builder runs on a copy of the op whose `b` and `ctx` are NaN (a part reading them directly
//! instead of through [`StepVars`] gives NaN coefficients), and the model must equal the parts
//! built directly, bit for bit, at both ends of the sweep. Any failure returns `None`, and the
//! sweep rebuilds the op at every point as before (`tests/it/llm_sweep.rs` asserts the fast path
//! is taken and equals the rebuilt one for every preset, and with every other field moved).

use super::llm::Llm;
use super::llm_parts::StepVars;
use super::Part;
use crate::arch::Arch;
use crate::chip::Chip;
use crate::error::Error;
use crate::eval::{max_time, pow2_scale, Cost, Eff, Eval, MAX_TERMS};
use crate::resource::{Bound, Resource};

/// Number of step values: `B`, `T`, experts hit, pairs ×2, positions read ×2.
const NV: usize = 7;
/// Largest number of distinct resources a step's parts use.
const MAX_RES: usize = 6;
/// Scratch columns of a batch evaluation: the moved values, a part's quantities, its largest
/// and summed term times, the four sums and the resources' bytes.
const SCRATCH: usize = NV + (1 + MAX_TERMS) + 2 + 4 + MAX_RES;
/// Points evaluated together.
const CHUNK: usize = 64;
/// The index of the experts hit in [`values`].
const HIT: usize = 2;

fn values(v: &StepVars) -> [f64; NV] {
    [
        v.b, v.t, v.hit, v.pairs[0], v.pairs[1], v.read[0], v.read[1],
    ]
}

fn vars_of(a: &[f64; NV]) -> StepVars {
    StepVars {
        b: a[0],
        t: a[1],
        hit: a[2],
        pairs: [a[3], a[4]],
        read: [a[5], a[6]],
    }
}

/// A swept field the model covers, and the step values a sweep of it moves.
#[derive(Debug, Clone, Copy)]
enum Swept {
    B,
    Ctx,
}

impl Swept {
    fn of(field: &str) -> Option<Swept> {
        match field {
            "b" => Some(Swept::B),
            "ctx" => Some(Swept::Ctx),
            _ => None,
        }
    }

    /// Indices into [`values`] of what the field moves (the experts hit only with experts,
    /// the windowed layers' values only with a window: no part reads them otherwise).
    fn moved(self, a: &Arch) -> &'static [usize] {
        match (self, a.moe.is_some(), a.window.is_some()) {
            (Swept::B, true, _) => &[0, 1, 2],
            (Swept::B, false, _) => &[0, 1],
            (Swept::Ctx, true, true) => &[1, 2, 3, 4, 5, 6],
            (Swept::Ctx, true, false) => &[1, 2, 3, 5],
            (Swept::Ctx, false, true) => &[1, 3, 4, 5, 6],
            (Swept::Ctx, false, false) => &[1, 3, 5],
        }
    }

    fn set(self, l: &mut Llm, x: f64) {
        match self {
            Swept::B => l.b = x,
            Swept::Ctx => l.ctx = x,
        }
    }
}

/// `c0 + Σ k_j·v_j` over the moved values.
#[derive(Debug, Clone, Copy)]
struct Line {
    c0: f64,
    k: [f64; NV],
}

/// One part as linear functions of the step values: quantity 0 is its FLOPs, `1 + i` the
/// bytes of its term `i`.
#[derive(Debug, Clone, Copy)]
struct LinPart {
    repeat: f64,
    /// The part's peak times the compute efficiency.
    peak_eff: f64,
    n: usize,
    /// Each term's index into the sweep's resources.
    res: [usize; MAX_TERMS],
    bw: [f64; MAX_TERMS],
    q: [Line; 1 + MAX_TERMS],
    /// The moved values this part depends on.
    active: [usize; NV],
    na: usize,
}

/// One part's figures at a point.
#[derive(Debug, Clone, Copy)]
struct PartEval {
    flops: f64,
    t_math: f64,
    lower: f64,
    upper: f64,
    bytes: [f64; MAX_TERMS],
}

impl LinPart {
    fn at(&self, v: &[f64; NV], overhead: f64) -> PartEval {
        let active = &self.active[..self.na];
        let val = |l: &Line| {
            let mut s = l.c0;
            for &j in active {
                s += l.k[j] * v[j];
            }
            s
        };
        let flops = val(&self.q[0]);
        let mut bytes = [0.0; MAX_TERMS];
        for (i, b) in bytes[..self.n].iter_mut().enumerate() {
            *b = val(&self.q[1 + i]);
        }
        // As `eval_cost`: a term with no bytes is absent, so it takes no time.
        let (t_max, _, t_sum) = max_time((0..self.n).map(|i| {
            if bytes[i] <= 0.0 {
                0.0
            } else {
                bytes[i] / self.bw[i]
            }
        }));
        let t_math = flops / self.peak_eff;
        PartEval {
            flops,
            t_math,
            lower: t_math.max(t_max) + overhead,
            upper: t_math + t_sum + overhead,
            bytes,
        }
    }
}

/// An `llm` step's sweep of `b` or `ctx`, evaluated per point from its parts' linear
/// models (see the module docs). [`LlmSweep::eval`] gives the same [`Eval`] as
/// [`crate::analysis`]'s sum over the parts built at that point.
#[derive(Debug, Clone)]
pub(crate) struct LlmSweep {
    llm: Llm,
    arch: Arch,
    swept: Swept,
    peak: f64,
    eff: Eff,
    parts: Vec<LinPart>,
    /// Precomputed figures of the parts no moved value reaches (`None` for the others).
    fixed: Vec<Option<PartEval>>,
    res: [Resource; MAX_RES],
    nres: usize,
    res_bw: [f64; MAX_RES],
    /// [`LlmSweep::eval_chunk`]'s scratch, allocated once per sweep (every value is written
    /// before it is read, so it is never cleared).
    scratch: Vec<f64>,
}

/// Each part's cost on `chip`.
fn costs(parts: &[Part], chip: &Chip) -> Result<Vec<(f64, Cost)>, Error> {
    parts
        .iter()
        .map(|p| Ok((p.repeat, p.op.kind.behavior().cost(chip)?)))
        .collect()
}

fn bytes_of(c: &Cost, r: Resource) -> f64 {
    c.terms()
        .iter()
        .find(|t| t.resource == r)
        .map_or(0.0, |t| t.bytes)
}

/// The exponent `e` of the lowest set bit of `c` (`c = m·2^e`, `m` odd; `i32::MAX` for 0),
/// or `None` for a value that is not finite and normal.
fn grain(c: f64) -> Option<i32> {
    if c == 0.0 {
        return Some(i32::MAX);
    }
    if !c.is_normal() {
        return None;
    }
    let bits = c.to_bits();
    let mantissa = (bits & ((1u64 << 52) - 1)) | (1u64 << 52);
    let exp = ((bits >> 52) & 0x7ff) as i32 - 1075;
    Some(exp + mantissa.trailing_zeros() as i32)
}

impl LlmSweep {
    /// Points [`LlmSweep::eval_chunk`] evaluates together.
    pub(crate) const CHUNK: usize = CHUNK;

    /// The model of `llm`'s parts for a sweep of `field` from `from` to `to` on `chip`;
    /// `None` when the field is not `b` or `ctx`, or the parts do not fit the model (the
    /// sweep then rebuilds the op at every point). Errors as the parts' costs do.
    /// [`LlmSweep::new`] for an op of any kind: `None` for a kind other than `llm`.
    pub(crate) fn for_kind(
        kind: &super::OpKind,
        field: &str,
        chip: &Chip,
        eff: Eff,
        (from, to): (f64, f64),
    ) -> Option<Result<LlmSweep, Error>> {
        match kind {
            super::OpKind::Llm(l) => Self::new(l, field, chip, eff, from, to),
            _ => None,
        }
    }

    pub(crate) fn new(
        llm: &Llm,
        field: &str,
        chip: &Chip,
        eff: Eff,
        from: f64,
        to: f64,
    ) -> Option<Result<LlmSweep, Error>> {
        let swept = Swept::of(field)?;
        Self::build(llm, swept, chip, eff, from, to).transpose()
    }

    fn build(
        llm: &Llm,
        swept: Swept,
        chip: &Chip,
        eff: Eff,
        from: f64,
        to: f64,
    ) -> Result<Option<LlmSweep>, Error> {
        // Sizes per chip stay dyadic (exact in binary) only when the tensor-parallel degree is
        // a power of two; split 3 ways, the parts built directly round at each factor, which
        // a linear form cannot reproduce bit for bit.
        if libm::log2(llm.tp).fract() != 0.0 {
            return Ok(None);
        }
        let arch = llm.arch();
        let peak = chip.peak(llm.compute_dtype())?;
        let moved = swept.moved(&arch);
        let at = |x: f64| {
            let mut l = *llm;
            swept.set(&mut l, x);
            l
        };
        // The base: the moved values at 0, the others as at every point of the sweep.
        let end = values(&at(from.abs().max(to.abs())).step_vars(&arch));
        let mut base = end;
        for &j in moved {
            base[j] = 0.0;
        }
        let mut poisoned = *llm;
        poisoned.b = f64::NAN;
        poisoned.ctx = f64::NAN;
        let c0 = costs(&poisoned.parts_at(&vars_of(&base)), chip)?;
        let mut samples = Vec::with_capacity(moved.len());
        for &j in moved {
            // Beyond the sweep's far end, so the check there is not at a sample.
            let s = 2.0 * pow2_scale(end[j]);
            let mut v = base;
            v[j] = s;
            let c = costs(&poisoned.parts_at(&vars_of(&v)), chip)?;
            if c.len() != c0.len() {
                return Ok(None);
            }
            samples.push((j, s, c));
        }
        let mut res = [Resource::Hbm; MAX_RES];
        let mut res_bw = [1.0; MAX_RES];
        let mut nres = 0;
        let mut parts = Vec::with_capacity(c0.len());
        for (i, (repeat, base_cost)) in c0.iter().enumerate() {
            let all = std::iter::once(base_cost).chain(samples.iter().map(|(_, _, c)| &c[i].1));
            let mut p = LinPart {
                repeat: *repeat,
                peak_eff: base_cost.peak * eff.compute,
                n: 0,
                res: [0; MAX_TERMS],
                bw: [1.0; MAX_TERMS],
                q: [Line {
                    c0: 0.0,
                    k: [0.0; NV],
                }; 1 + MAX_TERMS],
                active: [0; NV],
                na: 0,
            };
            let mut terms: Vec<(Resource, f64)> = Vec::new();
            for c in all {
                if c.peak != base_cost.peak {
                    return Ok(None);
                }
                for t in c.terms() {
                    if !terms.iter().any(|x| x.0 == t.resource) {
                        terms.push((t.resource, t.bw));
                    }
                }
            }
            if terms.len() > MAX_TERMS {
                return Ok(None);
            }
            for &(r, bw) in &terms {
                let k = match res[..nres].iter().position(|&x| x == r) {
                    Some(k) => k,
                    None if nres < MAX_RES => {
                        res[nres] = r;
                        res_bw[nres] = bw;
                        nres += 1;
                        nres - 1
                    }
                    None => return Ok(None),
                };
                p.res[p.n] = k;
                p.bw[p.n] = bw;
                p.n += 1;
            }
            let quantity = |c: &Cost, q: usize| {
                if q == 0 {
                    c.flops
                } else {
                    bytes_of(c, terms[q - 1].0)
                }
            };
            for q in 0..=p.n {
                p.q[q].c0 = quantity(base_cost, q);
                for (j, s, c) in &samples {
                    if c[i].0 != *repeat {
                        return Ok(None);
                    }
                    p.q[q].k[*j] = (quantity(&c[i].1, q) - p.q[q].c0) / s;
                }
            }
            for &j in moved {
                if (0..=p.n).any(|q| p.q[q].k[j] != 0.0) {
                    p.active[p.na] = j;
                    p.na += 1;
                }
            }
            // Exactness: every coefficient, and so every term at whole step values, is a
            // multiple of 2^e, and every sum stays below 2^(53+e): `c0 + Σ k_j·v_j` is then
            // the exact value, as the parts built directly are. (NaN from a poisoned field
            // fails here too.)
            for line in &p.q[..=p.n] {
                let mut e = i32::MAX;
                let mut size = line.c0.abs();
                for &j in moved {
                    size += line.k[j].abs() * end[j].abs();
                }
                // The experts hit is fractional: its one product rounds alike in both.
                let whole = moved.iter().filter(|&&j| j != HIT).map(|&j| line.k[j]);
                for c in std::iter::once(line.c0).chain(whole) {
                    match grain(c) {
                        Some(g) => e = e.min(g),
                        None => return Ok(None),
                    }
                }
                if size >= 2f64.powi(53i32.saturating_add(e).min(1000)) {
                    return Ok(None);
                }
            }
            parts.push(p);
        }
        let mut model = LlmSweep {
            llm: *llm,
            arch,
            swept,
            peak,
            eff,
            parts,
            fixed: Vec::new(),
            res,
            nres,
            res_bw,
            scratch: vec![0.0; SCRATCH * CHUNK],
        };
        let v = values(&llm.step_vars(&arch));
        model.fixed = model
            .parts
            .iter()
            .map(|p| (p.na == 0).then(|| p.at(&v, eff.overhead)))
            .collect();
        for x in [from, to] {
            if !model.matches_direct(&at(x), chip)? {
                return Ok(None);
            }
        }
        Ok(Some(model))
    }

    /// Whether the model's parts at `l`'s swept value equal the parts built directly.
    fn matches_direct(&self, l: &Llm, chip: &Chip) -> Result<bool, Error> {
        let direct = costs(&l.parts(), chip)?;
        if direct.len() != self.parts.len() {
            return Ok(false);
        }
        let v = values(&l.step_vars(&self.arch));
        Ok(self.parts.iter().zip(&direct).all(|(p, (r, c))| {
            let e = p.at(&v, 0.0);
            *r == p.repeat
                && e.flops == c.flops
                && c.terms()
                    .iter()
                    .all(|t| (0..p.n).any(|i| self.res[p.res[i]] == t.resource))
                && (0..p.n).all(|i| e.bytes[i].max(0.0) == bytes_of(c, self.res[p.res[i]]))
        }))
    }

    /// The step at swept value `x`: the same sums as the composite's aggregate (its
    /// resources in the order they first appear in the parts).
    pub(crate) fn eval(&self, x: f64) -> Eval {
        let mut out = [self.blank()];
        let mut buf = [0.0; SCRATCH];
        self.eval_all(&[x], &mut out, &mut buf);
        out[0]
    }

    fn blank(&self) -> Eval {
        Eval {
            flops: 0.0,
            peak: self.peak,
            peak_eff: self.peak * self.eff.compute,
            t_math: 0.0,
            t_max: 0.0,
            binding: 0,
            bound: Bound::Compute,
            lower: 0.0,
            upper: 0.0,
        }
    }

    /// [`LlmSweep::eval`] at up to [`LlmSweep::CHUNK`] values `xs`, into `out` (cleared
    /// first), part by part over all of them: loops the compiler vectorises, on scratch that
    /// stays in the L1 cache and is allocated once per sweep (a zeroed array on the stack per
    /// chunk was 5 % of a sweep). Allocates nothing once `out` has room.
    pub(crate) fn eval_chunk(&mut self, xs: &[f64], out: &mut Vec<Eval>) {
        let xs = &xs[..xs.len().min(CHUNK)];
        out.clear();
        out.resize(xs.len(), self.blank());
        let mut buf = std::mem::take(&mut self.scratch);
        self.eval_all(xs, out, &mut buf);
        self.scratch = buf;
    }

    /// `buf`: at least [`SCRATCH`] values per point (it need not be zero).
    fn eval_all(&self, xs: &[f64], out: &mut [Eval], buf: &mut [f64]) {
        let np = xs.len();
        let moved = self.swept.moved(&self.arch);
        // Scratch, column by column: the moved values, then per part its quantities, the
        // largest and summed term times, then the sums over the parts.
        let (vals, rest) = buf.split_at_mut(moved.len() * np);
        let (qv, rest) = rest.split_at_mut((1 + MAX_TERMS) * np);
        let (tmax, rest) = rest.split_at_mut(np);
        let (tsum, rest) = rest.split_at_mut(np);
        let (sums, rb) = rest.split_at_mut(4 * np);
        sums.fill(0.0);
        rb[..self.nres * np].fill(0.0);
        let mut l = self.llm;
        for (i, &x) in xs.iter().enumerate() {
            self.swept.set(&mut l, x);
            let v = values(&l.step_vars(&self.arch));
            for (m, &j) in moved.iter().enumerate() {
                vals[m * np + i] = v[j];
            }
        }
        let (flops, rest) = sums.split_at_mut(np);
        let (t_math, rest) = rest.split_at_mut(np);
        let (lower, upper) = rest.split_at_mut(np);
        let oh = self.eff.overhead;
        for (p, fixed) in self.parts.iter().zip(&self.fixed) {
            let r = p.repeat;
            if let Some(e) = fixed {
                for i in 0..np {
                    flops[i] += r * e.flops;
                    t_math[i] += r * e.t_math;
                    lower[i] += r * e.lower;
                    upper[i] += r * e.upper;
                }
                for t in 0..p.n {
                    if e.bytes[t] > 0.0 {
                        let rbt = &mut rb[p.res[t] * np..][..np];
                        rbt.iter_mut().for_each(|b| *b += r * e.bytes[t]);
                    }
                }
                continue;
            }
            // Each quantity: `c0 + Σ k_j·v_j` over the moved values, in `j` order.
            for q in 0..=p.n {
                let line = &p.q[q];
                let col = &mut qv[q * np..][..np];
                col.fill(line.c0);
                for (m, &j) in moved.iter().enumerate() {
                    if p.active[..p.na].contains(&j) {
                        let k = line.k[j];
                        let vj = &vals[m * np..][..np];
                        col.iter_mut().zip(vj).for_each(|(c, v)| *c += k * v);
                    }
                }
            }
            // As `eval_cost`: a term with no bytes is absent (no time); the largest term is
            // the first strictly above the others.
            tmax.fill(0.0);
            tsum.fill(0.0);
            for t in 0..p.n {
                let bw = p.bw[t];
                let bytes = &qv[(1 + t) * np..][..np];
                let rbt = &mut rb[p.res[t] * np..][..np];
                // Branch-free, so it vectorises (adding 0 changes no sum).
                for i in 0..np {
                    let b = bytes[i];
                    let ti = if b > 0.0 { b / bw } else { 0.0 };
                    tsum[i] += ti;
                    tmax[i] = if ti > tmax[i] { ti } else { tmax[i] };
                    rbt[i] += if b > 0.0 { r * b } else { 0.0 };
                }
            }
            let f = &qv[..np];
            for i in 0..np {
                let tm = f[i] / p.peak_eff;
                flops[i] += r * f[i];
                t_math[i] += r * tm;
                // `max` of two times (never NaN) without its NaN rule.
                lower[i] += r * ((if tm >= tmax[i] { tm } else { tmax[i] }) + oh);
                upper[i] += r * (tm + tsum[i] + oh);
            }
        }
        for (i, o) in out.iter_mut().enumerate() {
            let (t_max, binding, _) =
                max_time((0..self.nres).map(|k| rb[k * np + i] / self.res_bw[k]));
            let tm = t_math[i];
            *o = Eval {
                flops: flops[i],
                t_math: tm,
                t_max,
                binding,
                bound: if tm >= t_max {
                    Bound::Compute
                } else {
                    self.res[binding].bound()
                },
                lower: lower[i],
                upper: upper[i],
                ..*o
            };
        }
    }
}

#[cfg(test)]
#[path = "llm_sweep_tests.rs"]
mod tests;
