//! The user's own engine, fitted on their steps (issue 43). Each step's roofline bound splits
//! by what binds its parts: `C` seconds in compute-bound parts, `M` in memory-bound ones, `N`
//! in collectives (`T_lower = C + M + N`, the mixed step of `crate::serving`). The engine is
//!
//! ```text
//! t = a·C + b·M + n·N + s
//! ```
//!
//! `a`, `b`, `n` how many times its kernels take the bound's time on each resource (1 is the
//! roofline), `s` a fixed time per step (scheduling, launches, sampling), fitted by least
//! squares on the relative error `(t̂ − t)/t` (a 5 ms step weighs as much as a 50 ms one). A
//! resource no step is bound by keeps its factor at 1 (not determined). The fit passes the
//! guard of every fitted model ([`super::check_fit`]) before a link carries it as
//! `engine=own:<a>:<b>:<n>:<s>`, each to 3 significant digits like `cal=`, `s` in seconds.

use super::guard::{check_fit, FitCheck};
use crate::error::Error;
use crate::units::{format_sig, parse_quantity, parse_quantity_unit, Unit};
use serde::{Deserialize, Serialize};

/// One step as the fit sees it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct StepObs {
    /// Seconds of the bound in compute-bound parts.
    pub compute: f64,
    /// In memory-bound parts.
    pub memory: f64,
    /// In collectives.
    pub network: f64,
    /// The measured GPU time, seconds.
    pub measured: f64,
}

/// An engine's terms: `t = compute·C + memory·M + network·N + step`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct OwnEngine {
    /// Factor on the compute-bound seconds.
    pub compute: f64,
    /// Factor on the memory-bound seconds.
    pub memory: f64,
    /// Factor on the collectives' seconds.
    pub network: f64,
    /// Fixed time per step, seconds.
    pub step: f64,
}

/// Largest factor accepted in a link.
pub const MAX_FACTOR: f64 = 1e3;

const OWN_REASON: &str = "must be own:<compute>:<memory>:<network>:<step>, e.g. \
    own:1.62:1.29:1:4.12e-4 (factors on the bound's compute, memory and collective seconds from \
    0.01 to 1000, a fixed time per step from 0 to 1 s)";

impl OwnEngine {
    /// The time of a step whose bound splits as `compute`, `memory`, `network` seconds.
    pub fn time(&self, compute: f64, memory: f64, network: f64) -> f64 {
        self.compute * compute + self.memory * memory + self.network * network + self.step
    }

    /// The link text, 3 significant digits each: `own:1.62:1.29:1:4.12e-4`.
    ///
    /// ```
    /// use roofline::profile::OwnEngine;
    /// let e = OwnEngine { compute: 1.6234, memory: 1.287, network: 1.0, step: 4.1234e-4 };
    /// assert_eq!(e.format(), "own:1.62:1.29:1:4.12e-4");
    /// assert_eq!(OwnEngine::parse(&e.format()).unwrap().format(), e.format());
    /// assert_eq!(OwnEngine::parse("own:1.62:1.29:1:412us").unwrap().step, 412e-6);
    /// assert!(OwnEngine::parse("own:1.62:1.29:1").is_err());
    /// ```
    pub fn format(&self) -> String {
        format!(
            "own:{}:{}:{}:{}",
            format_sig(self.compute, 3),
            format_sig(self.memory, 3),
            format_sig(self.network, 3),
            format_sig(self.step, 3)
        )
    }

    /// The terms rounded as the link carries them.
    pub fn rounded(&self) -> OwnEngine {
        OwnEngine::parse(&self.format()).unwrap_or(*self)
    }

    /// Reads `own:<compute>:<memory>:<network>:<step>` (the step in seconds, or with a unit:
    /// `412us`). The error names the `engine` field.
    pub fn parse(text: &str) -> Result<OwnEngine, Error> {
        let t = text.trim();
        let bad = || Error::invalid("engine", t, OWN_REASON);
        let body = t.strip_prefix("own:").ok_or_else(bad)?;
        let parts: Vec<&str> = body.split(':').collect();
        let [c, m, n, s] = parts.as_slice() else {
            return Err(bad());
        };
        let factor = |x: &str| -> Result<f64, Error> {
            let v = parse_quantity(x.trim()).map_err(|_| bad())?;
            if v.is_finite() && (0.01..=MAX_FACTOR).contains(&v) {
                Ok(v)
            } else {
                Err(bad())
            }
        };
        let (step, unit) = parse_quantity_unit(s).map_err(|_| bad())?;
        if !matches!(unit, None | Some(Unit::Seconds)) || !(0.0..=1.0).contains(&step) {
            return Err(bad());
        }
        Ok(OwnEngine {
            compute: factor(c)?,
            memory: factor(m)?,
            network: factor(n)?,
            step: step + 0.0,
        })
    }
}

/// What [`fit_steps`] gives.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepFit {
    /// The fitted terms (not rounded).
    pub engine: OwnEngine,
    /// Relative standard error of `compute`, `memory`, `network`, `step` (`None`: held, not
    /// fitted).
    pub errors: [Option<f64>; 4],
    /// Steps used.
    pub used: usize,
    /// Their distinct shapes (steps of one shape are one equation).
    pub shapes: usize,
    /// The median measured step, seconds.
    pub median: f64,
    /// Root mean square of `ln(measured / T_lower)`: the bare roofline.
    pub rms_before: f64,
    /// Root mean square of `ln(measured / t̂)`: the fit.
    pub rms_after: f64,
}

impl StepFit {
    /// The guard ([`check_fit`]): three distinct step shapes, no term with a standard error
    /// past 50 %, a fixed time per step within a tenth of the median step.
    pub fn check(&self) -> Result<(), String> {
        let [c, m, n, s] = self.errors;
        check_fit(&FitCheck {
            shapes: self.shapes,
            errors: &[
                ("the compute factor", c),
                ("the memory factor", m),
                ("the collectives' factor", n),
                ("the time per step", s),
            ],
            fixed: ("fixed time per step", self.engine.step),
            median: self.median,
        })
    }
}

/// Solves `a·x = b` (Gaussian elimination with partial pivoting); `None` when singular.
fn solve(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Option<Vec<f64>> {
    let n = b.len();
    let scale = a
        .iter()
        .flatten()
        .fold(0.0f64, |m, x| m.max(x.abs()))
        .max(f64::MIN_POSITIVE);
    for col in 0..n {
        let p = (col..n).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))?;
        if a[p][col].abs() <= 1e-12 * scale {
            return None;
        }
        a.swap(col, p);
        b.swap(col, p);
        let (top, below) = a.split_at_mut(col + 1);
        let pivot = &top[col];
        for (k, row) in below.iter_mut().enumerate() {
            let f = row[col] / pivot[col];
            for (x, p) in row[col..].iter_mut().zip(&pivot[col..]) {
                *x -= f * p;
            }
            b[col + 1 + k] -= f * b[col];
        }
    }
    let mut x = vec![0.0; n];
    for r in (0..n).rev() {
        let s: f64 = (r + 1..n).map(|c| a[r][c] * x[c]).sum();
        x[r] = (b[r] - s) / a[r][r];
    }
    Some(x)
}

/// Fits the own engine to steps (see the module docs). Errors: no usable step, fewer distinct
/// shapes than terms, terms the steps cannot tell apart, a negative term.
pub fn fit_steps(obs: &[StepObs]) -> Result<StepFit, String> {
    let pts: Vec<&StepObs> = obs
        .iter()
        .filter(|o| {
            [o.compute, o.memory, o.network, o.measured]
                .iter()
                .all(|x| x.is_finite() && *x >= 0.0)
                && o.measured > 0.0
                && o.compute + o.memory + o.network > 0.0
        })
        .collect();
    if pts.is_empty() {
        return Err("no step has both a measured time and a bound to fit".into());
    }
    let same = |x: f64, y: f64| (x - y).abs() <= 1e-6 * x.abs().max(y.abs());
    let mut seen: Vec<[f64; 3]> = Vec::new();
    for o in &pts {
        if !seen
            .iter()
            .any(|s| same(s[0], o.compute) && same(s[1], o.memory) && same(s[2], o.network))
        {
            seen.push([o.compute, o.memory, o.network]);
        }
    }
    let shapes = seen.len();
    // Columns: the resources some step is bound by, and the fixed time.
    let col = |o: &StepObs, j: usize| [o.compute, o.memory, o.network, 1.0][j];
    let active: Vec<usize> = (0..3)
        .filter(|&j| pts.iter().any(|o| col(o, j) > 0.0))
        .chain([3])
        .collect();
    let k = active.len();
    if shapes <= k {
        return Err(format!(
            "{} of {shapes} distinct shape{} cannot determine {k} terms (the factors on the \
             bound's resources and a time per step): profile steps of more batch sizes and \
             contexts",
            if pts.len() == 1 {
                "1 step".to_string()
            } else {
                format!("{} steps", pts.len())
            },
            if shapes == 1 { "" } else { "s" }
        ));
    }
    let n = pts.len() as f64;
    let mut g = vec![vec![0.0; k]; k];
    let mut rhs = vec![0.0; k];
    for o in &pts {
        let x: Vec<f64> = active.iter().map(|&j| col(o, j) / o.measured).collect();
        for a in 0..k {
            rhs[a] += x[a] / n;
            for b in 0..k {
                g[a][b] += x[a] * x[b] / n;
            }
        }
    }
    let theta = solve(g.clone(), rhs).ok_or_else(|| {
        "these steps cannot tell the terms apart (their bounds split alike between compute and \
         memory): profile steps of more batch sizes and contexts"
            .to_string()
    })?;
    let mut e = OwnEngine {
        compute: 1.0,
        memory: 1.0,
        network: 1.0,
        step: 0.0,
    };
    for (&j, &v) in active.iter().zip(&theta) {
        match j {
            0 => e.compute = v,
            1 => e.memory = v,
            2 => e.network = v,
            _ => e.step = v,
        }
    }
    let names = [
        "compute factor",
        "memory factor",
        "collectives' factor",
        "time per step",
    ];
    for (&j, &v) in active.iter().zip(&theta) {
        if v < 0.0 {
            return Err(format!(
                "the fit gives a negative {}: these steps do not determine it",
                names[j]
            ));
        }
    }
    // Standard errors (Gauss–Newton, distinct shapes as the observations, as the kernels'
    // calibration counts them).
    let mut ss = 0.0;
    let (mut before, mut after) = (0.0, 0.0);
    for o in &pts {
        let bound = o.compute + o.memory + o.network;
        let t_hat = e.time(o.compute, o.memory, o.network);
        let r = 1.0 - t_hat / o.measured;
        ss += r * r / n;
        before += libm::log(o.measured / bound).powi(2) / n;
        after += libm::log(o.measured / t_hat.max(f64::MIN_POSITIVE)).powi(2) / n;
    }
    let ns = shapes as f64;
    let s2 = ss * ns / (ns - k as f64);
    let mut errors = [None; 4];
    for (i, &j) in active.iter().enumerate() {
        let mut unit = vec![0.0; k];
        unit[i] = 1.0;
        if let Some(col_i) = solve(g.clone(), unit) {
            let var = s2 * col_i[i] / ns;
            let v = theta[i].abs();
            errors[j] = Some(if v > 0.0 {
                var.max(0.0).sqrt() / v
            } else {
                f64::INFINITY
            });
        }
    }
    let mut times: Vec<f64> = pts.iter().map(|o| o.measured).collect();
    times.sort_by(f64::total_cmp);
    let median = times[times.len() / 2];
    Ok(StepFit {
        engine: e,
        errors,
        used: pts.len(),
        shapes,
        median,
        rms_before: before.sqrt(),
        rms_after: after.sqrt(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recovers_an_engine_by_hand() {
        // Steps of an engine 1.5× the compute bound, 1.25× the memory bound, 0.3 ms per step.
        let shapes = [
            (1e-3, 4e-3),
            (5e-3, 3e-3),
            (2e-3, 8e-3),
            (9e-3, 1e-3),
            (0.0, 6e-3),
        ];
        let obs: Vec<StepObs> = shapes
            .iter()
            .map(|&(c, m)| StepObs {
                compute: c,
                memory: m,
                network: 0.0,
                measured: 1.5 * c + 1.25 * m + 3e-4,
            })
            .collect();
        let f = fit_steps(&obs).unwrap();
        assert!((f.engine.compute - 1.5).abs() < 1e-9);
        assert!((f.engine.memory - 1.25).abs() < 1e-9);
        assert!((f.engine.step - 3e-4).abs() < 1e-12);
        // No step crosses a link: that factor is held at 1, not fitted.
        assert_eq!((f.engine.network, f.errors[2]), (1.0, None));
        assert!(f.rms_after < 1e-9 && f.rms_before > 0.1);
        assert!(f.check().is_ok(), "{:?}", f.check());
        // Two shapes for three terms: refused.
        assert!(fit_steps(&obs[..2])
            .unwrap_err()
            .contains("cannot determine"));
    }
}
