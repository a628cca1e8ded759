//! The mixed step ([`super::step_time`]) evaluated many times for one op on one chip, as the
//! simulation of "Serving tails and topologies" times every step it runs (issue 42).
//!
//! [`super::step_time`] builds the step's parts (a `Vec` of ops) and analyses each, some
//! microseconds a step; a simulation of 10,000 requests runs a few hundred thousand steps.
//! The parts read a step only through its values (`Llm::mixed_vars`: sequences `B`, tokens
//! `T`, the experts hit `H`, and per sequence the score pairs and keys read of the global and
//! the windowed layers), and each part's FLOPs and bytes per resource are linear in the
//! step's *totals* `x = (B, T, H, B·pairs₀, B·pairs₁, B·read₀, B·read₁)`. So the parts are
//! built eight times, once at a base point and once with each total moved by a power of two,
//! which gives each part's FLOPs and bytes as `c₀ + Σ k_j·x_j`; a step then costs, per part, a
//! few multiply-adds, the same divisions and maxima as the analysis, and its sums. Nothing
//! restates a part's formula: a part added to `Llm::parts_at` is sampled like the others.
//!
//! **Checked, not assumed.** The model is kept only if, at two steps unlike the samples (a
//! mixed step of realistic size and a lone decode), every part's FLOPs and bytes equal the
//! parts built directly to 1e-12 relative; otherwise every step is timed by
//! [`super::step_time`] itself ([`StepEval::is_linear`] says which). Either way a step's time
//! is `step_time`'s: the linear model adds only rounding (`tests/it/serving_sim.rs` compares
//! both over every preset and a grid of steps to 1e-12).
//!
//! **Cached.** The parts that read no pairs or keys (every projection, norm, MLP, expert, the
//! LM head, the collectives: all but attention) depend on `(B, T)` alone, which a run of
//! decode steps repeats; their summed times are kept in a small table keyed by `(B, T)`, so a
//! step evaluates its attention parts and looks the rest up. The cache returns the very sums
//! it stored: it adds no error.

mod run;

use run::RunPart;

use super::pattern::Decomp;
use super::step::{step_time_unchecked, StepMix};
use crate::analysis::{calibrated_chip, Options};
use crate::arch::Arch;
use crate::chip::Chip;
use crate::error::Error;
use crate::eval::{Cost, Eff};
use crate::op::{Llm, StepVars};
use crate::resource::{Bound, Resource};

/// The step's totals a part reads: `B`, `T`, `H`, `B·pairs₀`, `B·pairs₁`, `B·read₀`, `B·read₁`.
const NV: usize = 7;
/// Terms a part can have (`eval::MAX_TERMS`).
const MAX_TERMS: usize = 4;
/// The sample offset of each total (a power of two: dividing by it is exact).
const SCALE: f64 = 1024.0;
/// Entries of the `(B, T)` cache (a power of two).
const CACHE: usize = 256;
/// The most attention parts a run of decode steps steps along (else each step is evaluated).
const RUN_PARTS: usize = 4;

fn totals(v: &StepVars) -> [f64; NV] {
    [
        v.b,
        v.t,
        v.hit,
        v.b * v.pairs[0],
        v.b * v.pairs[1],
        v.b * v.read[0],
        v.b * v.read[1],
    ]
}

/// Step values with totals `x` (`B ≥ 1`, so the per-sequence values divide by it).
fn vars_of(x: &[f64; NV]) -> StepVars {
    StepVars {
        b: x[0],
        t: x[1],
        hit: x[2],
        pairs: [x[3] / x[0], x[4] / x[0]],
        read: [x[5] / x[0], x[6] / x[0]],
    }
}

/// `c₀ + Σ k_j·x_j` over the totals whose `k_j` is not 0 (`j` in `on`, `n` of them).
#[derive(Debug, Clone, Copy, Default)]
struct Line {
    c0: f64,
    k: [f64; NV],
    on: [u8; NV],
    n: u8,
}

impl Line {
    #[inline]
    fn at(&self, x: &[f64; NV]) -> f64 {
        let mut s = self.c0;
        for &j in &self.on[..self.n as usize] {
            s += self.k[j as usize] * x[j as usize];
        }
        s
    }

    /// The change of the line for a change `dx` of the totals.
    #[inline]
    fn slope(&self, dx: &[f64; NV]) -> f64 {
        let mut s = 0.0;
        for &j in &self.on[..self.n as usize] {
            s += self.k[j as usize] * dx[j as usize];
        }
        s
    }

    /// Notes which coefficients are not 0.
    fn seal(mut self) -> Line {
        self.n = 0;
        for j in 0..NV {
            if self.k[j] != 0.0 {
                self.on[self.n as usize] = j as u8;
                self.n += 1;
            }
        }
        self
    }
}

/// One part as linear functions of the totals: its FLOPs, and the bytes of each term.
#[derive(Debug, Clone, Copy)]
struct LinPart {
    repeat: f64,
    peak_eff: f64,
    flops: Line,
    n: usize,
    bytes: [Line; MAX_TERMS],
    bw: [f64; MAX_TERMS],
    bound: [Bound; MAX_TERMS],
    /// Whether it reads the pairs or keys (attention): not cached.
    attention: bool,
}

/// Summed figures of some parts: seconds by bound and collectives.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Sums {
    by_bound: [f64; 3],
    collectives: f64,
}

fn bound_index(b: Bound) -> usize {
    match b {
        Bound::Compute => 0,
        Bound::Memory => 1,
        Bound::Network => 2,
    }
}

impl LinPart {
    /// The part along a run whose totals start at `x` and move by `dx` per step.
    fn along(&self, x: &[f64; NV], dx: &[f64; NV]) -> RunPart {
        let mut r = RunPart {
            repeat: self.repeat,
            math: (
                self.flops.at(x) / self.peak_eff,
                self.flops.slope(dx) / self.peak_eff,
            ),
            n: self.n,
            terms: [(0.0, 0.0); MAX_TERMS],
            bound: self.bound,
        };
        for i in 0..self.n {
            r.terms[i] = (
                self.bytes[i].at(x) / self.bw[i],
                self.bytes[i].slope(dx) / self.bw[i],
            );
        }
        r
    }

    /// As `eval_cost` and the composite's sum: `T_lower = max(T_math, T_max) + o`, the bound
    /// compute unless a term takes longer (the first longest term's), `repeat` times; a part
    /// whose bytes cross a link counts `repeat` collectives.
    #[inline]
    fn add(&self, x: &[f64; NV], overhead: f64, s: &mut Sums) {
        let t_math = self.flops.at(x) / self.peak_eff;
        let (mut t_max, mut which, mut net) = (0.0, 0usize, false);
        for i in 0..self.n {
            let b = self.bytes[i].at(x);
            if b > 0.0 {
                let t = b / self.bw[i];
                if t > t_max {
                    t_max = t;
                    which = i;
                }
                net |= self.bound[i] == Bound::Network;
            }
        }
        let bound = if t_math >= t_max {
            Bound::Compute
        } else {
            self.bound[which]
        };
        s.by_bound[bound_index(bound)] += self.repeat * (t_math.max(t_max) + overhead);
        if net {
            s.collectives += self.repeat;
        }
    }
}

/// Many mixed steps of one `llm` op on one chip (see the module docs).
#[derive(Debug, Clone)]
pub struct StepEval {
    l: Llm,
    arch: Arch,
    chip: Chip,
    opts: Options,
    overhead: f64,
    /// The linear model, or `None` when the check failed (then [`step_time`] times each step):
    /// the parts that read no pairs or keys (cached by `(B, T)`), then the attention parts.
    parts: Option<(Vec<LinPart>, Vec<LinPart>)>,
    cache: Vec<Option<([u64; 2], Sums)>>,
    /// Steps evaluated, and the cache's hits among them.
    pub counts: (u64, u64),
}

/// Each part's repeat and cost at totals `x`.
fn costs(l: &Llm, chip: &Chip, x: &[f64; NV]) -> Result<Vec<(f64, Cost)>, Error> {
    l.parts_at(&vars_of(x))
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

fn close(a: f64, b: f64) -> bool {
    a == b || (a - b).abs() <= 1e-12 * a.abs().max(b.abs())
}

impl StepEval {
    /// The evaluator of `l` (an `llm` op, already checked) on `chip` with `opts`. Errors as
    /// the parts' costs do (a missing peak or link).
    pub fn new(l: &Llm, chip: &Chip, opts: &Options) -> Result<StepEval, Error> {
        let cal = calibrated_chip(chip, opts).into_owned();
        let eff = Eff::of(opts);
        let parts =
            Self::model(l, &cal, eff)?.map(|p| p.into_iter().partition(|p: &LinPart| !p.attention));
        Ok(StepEval {
            l: *l,
            arch: l.arch(),
            chip: chip.clone(),
            opts: *opts,
            overhead: eff.overhead,
            parts,
            cache: vec![None; CACHE],
            counts: (0, 0),
        })
    }

    /// Whether steps are timed by the linear model (else by [`step_time`] directly).
    pub fn is_linear(&self) -> bool {
        self.parts.is_some()
    }

    fn model(l: &Llm, chip: &Chip, eff: Eff) -> Result<Option<Vec<LinPart>>, Error> {
        let base = [1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0];
        let c0 = costs(l, chip, &base)?;
        let mut samples = Vec::with_capacity(NV);
        for j in 0..NV {
            let mut x = base;
            x[j] += SCALE;
            let c = costs(l, chip, &x)?;
            if c.len() != c0.len() {
                return Ok(None);
            }
            samples.push(c);
        }
        let mut parts = Vec::with_capacity(c0.len());
        for (i, (repeat, cost)) in c0.iter().enumerate() {
            let all = || std::iter::once(cost).chain(samples.iter().map(|s| &s[i].1));
            let mut terms: Vec<(Resource, f64)> = Vec::new();
            for c in all() {
                if c.peak != cost.peak {
                    return Ok(None);
                }
                for t in c.terms() {
                    if !terms.iter().any(|x| x.0 == t.resource) {
                        terms.push((t.resource, t.bw));
                    }
                }
            }
            if terms.len() > MAX_TERMS || samples.iter().any(|s| s[i].0 != *repeat) {
                return Ok(None);
            }
            let line = |q: &dyn Fn(&Cost) -> f64| {
                let mut l = Line {
                    c0: q(cost),
                    ..Line::default()
                };
                for (j, s) in samples.iter().enumerate() {
                    l.k[j] = (q(&s[i].1) - l.c0) / SCALE;
                }
                // At the totals 0 (the base has B = T = 1).
                l.c0 -= l.k[0] * base[0] + l.k[1] * base[1];
                l.seal()
            };
            let mut p = LinPart {
                repeat: *repeat,
                peak_eff: cost.peak * eff.compute,
                flops: line(&|c: &Cost| c.flops),
                n: terms.len(),
                bytes: [Line::default(); MAX_TERMS],
                bw: [1.0; MAX_TERMS],
                bound: [Bound::Memory; MAX_TERMS],
                attention: false,
            };
            for (t, (r, bw)) in terms.iter().enumerate() {
                p.bytes[t] = line(&|c: &Cost| bytes_of(c, *r));
                p.bw[t] = *bw;
                p.bound[t] = r.bound();
            }
            p.attention = std::iter::once(&p.flops)
                .chain(&p.bytes[..p.n])
                .any(|l| l.k[3..].iter().any(|&k| k != 0.0));
            parts.push(p);
        }
        // The check: two steps unlike the samples, part by part.
        let mixed = StepMix {
            prefill: crate::op::PhaseLoad::uniform(3.0, 700.0, 2900.0),
            decode: crate::op::PhaseLoad::decode(37.0, 3001.0),
        };
        let lone = StepMix::decode(crate::op::PhaseLoad::decode(1.0, 5.0));
        for mix in [mixed, lone] {
            let x = totals(&l.mixed_vars(&mix));
            let direct = costs(l, chip, &x)?;
            let ok = direct.len() == parts.len()
                && parts.iter().zip(&direct).all(|(p, (r, c))| {
                    *r == p.repeat
                        && close(p.flops.at(&x), c.flops)
                        && c.terms().iter().all(|t| {
                            (0..p.n).any(|i| {
                                p.bytes[i].at(&x) > 0.0 && close(p.bytes[i].at(&x), t.bytes)
                            })
                        })
                        && (0..p.n).all(|i| {
                            let b = p.bytes[i].at(&x);
                            b <= 0.0 || c.terms().iter().any(|t| close(b, t.bytes))
                        })
                });
            if !ok {
                return Ok(None);
            }
        }
        Ok(Some(parts))
    }

    /// The step's bound split as the load model's [`Decomp`]: its time (`step_time`'s `t`),
    /// seconds by bound, one step, its collectives. Errors: a step [`StepMix::check`] refuses
    /// (on the direct path only: the simulation builds only real steps).
    pub fn step(&mut self, mix: &StepMix) -> Result<Decomp, Error> {
        self.counts.0 += 1;
        if self.parts.is_none() {
            return self.direct(mix);
        }
        let x = totals(&self.l.mixed_vars_of(&self.arch, mix));
        let s = self.fixed_sums(&x);
        Ok(self.with_attention(s, &x))
    }

    /// A run of decode steps alike (no prefill), each with one more key per sequence than the
    /// last, read by `time` (linear in the split, seconds per second of each bound `by_bound`,
    /// as the simulation's `StepCoef::time` is): `go` takes each step's time in turn and says
    /// whether the run goes on; at most `k_max` steps. Returns how many ran. Each is timed as
    /// [`StepEval::step`] would time it alone; without windowed layers its totals move by the
    /// same amount every step (the global layers' pairs and keys are the keys), so each
    /// attention part's compute and byte seconds are lines in the step's index, read as
    /// `value + k·slope` with no division; and while no part's longest term changes (every
    /// other term below it by more than 1e-9 of its value, far past rounding, so each step
    /// would choose the same), the step's time is itself a line, `t₀ + j·slope`. The same
    /// values up to rounding: a simulated figure moves by at most 1e-12 relative (about
    /// 1e-13 s on times of seconds summed over hundreds of thousands of steps).
    pub fn decode_run(
        &mut self,
        mix: &StepMix,
        k_max: u64,
        by_bound: [f64; 3],
        time: impl Fn(&Decomp) -> f64,
        mut go: impl FnMut(f64) -> bool,
    ) -> Result<u64, Error> {
        let mut m = *mix;
        let next = |m: &mut StepMix| {
            m.decode.sk += m.decode.seqs;
            m.decode.sqsk += m.decode.seqs;
        };
        let few = self
            .parts
            .as_ref()
            .is_some_and(|(_, a)| a.len() <= RUN_PARTS);
        if !few || self.arch.window.is_some() || k_max < 3 {
            for k in 1..=k_max {
                let d = self.step(&m)?;
                if !go(time(&d)) || k == k_max {
                    return Ok(k);
                }
                next(&mut m);
            }
            return Ok(k_max);
        }
        let x = totals(&self.l.mixed_vars_of(&self.arch, &m));
        next(&mut m);
        let x1 = totals(&self.l.mixed_vars_of(&self.arch, &m));
        let mut dx = [0.0; NV];
        for j in 0..NV {
            dx[j] = x1[j] - x[j];
        }
        // (B, T) stay: the parts that read neither pairs nor keys take the same time.
        let s = self.fixed_sums(&x);
        // The attention parts' seconds, each a line in the step's index along the run.
        let mut runs = [RunPart::NONE; RUN_PARTS];
        let mut n = 0;
        for p in self.parts.iter().flat_map(|(_, a)| a) {
            runs[n] = p.along(&x, &dx);
            n += 1;
        }
        let runs = &runs[..n];
        let overhead = self.overhead;
        let mut k = 0u64;
        while k < k_max {
            // Step `k` evaluated part by part, then as many steps as surely keep each part's
            // longest term, as a line from it.
            let at = k as f64;
            let mut sums = s;
            let (mut slope, mut safe) = (0.0, f64::INFINITY);
            for p in runs {
                p.add(at, overhead, &mut sums);
                let (sw, b, sf) = p.lead(at);
                slope += p.repeat * sw * by_bound[b];
                safe = safe.min(sf);
            }
            let d = Decomp {
                t: sums.by_bound[0] + sums.by_bound[1] + sums.by_bound[2],
                by_bound: sums.by_bound,
                steps: 1.0,
                collectives: sums.collectives,
            };
            let t0 = time(&d);
            let len = 1 + (safe.floor().min((k_max - k - 1) as f64)) as u64;
            for j in 0..len {
                // The first step's fixed parts came from the cache or were computed above.
                self.counts.0 += 1;
                self.counts.1 += u64::from(k > 0);
                k += 1;
                let t = if j == 0 { t0 } else { t0 + j as f64 * slope };
                if !go(t) {
                    return Ok(k);
                }
            }
        }
        Ok(k_max)
    }

    /// The step timed by [`step_time`] itself.
    fn direct(&self, mix: &StepMix) -> Result<Decomp, Error> {
        mix.check()?;
        let s = step_time_unchecked(&self.l, &self.chip, &self.opts, mix)?;
        Ok(Decomp {
            t: s.t,
            by_bound: s.by_bound,
            steps: 1.0,
            collectives: s.collectives,
        })
    }

    /// The summed figures of the parts that read no pairs or keys, from the cache or computed
    /// and kept.
    fn fixed_sums(&mut self, x: &[f64; NV]) -> Sums {
        let Some((fixed, _)) = &self.parts else {
            return Sums::default();
        };
        let key = [x[0].to_bits(), x[1].to_bits()];
        let slot = ((key[0].wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ key[1].rotate_left(29))
            .wrapping_mul(0xBF58_476D_1CE4_E5B9)
            >> 56) as usize
            % CACHE;
        match self.cache[slot] {
            Some((k, s)) if k == key => {
                self.counts.1 += 1;
                s
            }
            _ => {
                let mut s = Sums::default();
                for p in fixed {
                    p.add(x, self.overhead, &mut s);
                }
                self.cache[slot] = Some((key, s));
                s
            }
        }
    }

    /// `s` with the attention parts at `x` added, as a [`Decomp`] of one step.
    fn with_attention(&self, mut s: Sums, x: &[f64; NV]) -> Decomp {
        if let Some((_, attention)) = &self.parts {
            for p in attention {
                p.add(x, self.overhead, &mut s);
            }
        }
        Decomp {
            t: s.by_bound[0] + s.by_bound[1] + s.by_bound[2],
            by_bound: s.by_bound,
            steps: 1.0,
            collectives: s.collectives,
        }
    }
}
