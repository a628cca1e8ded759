//! How well a fitted calibration is determined: each parameter's standard error from the fit's
//! curvature at its optimum (Gauss–Newton, the textbook approximation for least squares).
//!
//! With `t_i = max(a_i/c, b_i/m) + o` and residuals `r_i = ln t_measured − ln t_i`, the
//! sensitivities of `ln t_i` to the parameters `θ = (ln c, ln m, o)` are
//!
//! ```text
//! ∂ln t/∂ln c = −(a/c)/t  where compute binds, else 0
//! ∂ln t/∂ln m = −(b/m)/t  where memory binds, else 0
//! ∂ln t/∂o    = 1/t
//! ```
//!
//! `G = Σ w·g·gᵀ / Σ w` (the fit's launch weights), `s² = Σ w·r² / Σ w · n/(n − k)` with `n`
//! the distinct kernel shapes (launches of one shape are one observation, not many) and `k`
//! the free parameters, and `Cov(θ) ≈ s²·G⁻¹ / n`. A parameter at its bound (`c` or `m` at 1,
//! `o` at 0) or that no kernel constrains (no compute-bound kernel for `c`) is not determined
//! by the curvature: it gets `None`, and the others are computed without it.

use serde::{Deserialize, Serialize};

/// One standard error per parameter of a fit (`None`: not determined, see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
pub struct Uncertainty {
    /// Standard error of `ln c`: about the relative error of the compute efficiency.
    pub compute: Option<f64>,
    /// Standard error of `ln m`: about the relative error of the memory efficiency.
    pub memory: Option<f64>,
    /// Standard error of the overhead per launch, seconds.
    pub overhead: Option<f64>,
    /// Distinct kernel shapes behind it (its observations).
    pub shapes: usize,
}

/// One kernel shape as the fit sees it: compute time at peak `a`, memory time at full
/// bandwidth `b`, measured `ln t`, weight `w`.
pub(super) struct Obs {
    pub a: f64,
    pub b: f64,
    pub ln_t: f64,
    pub w: f64,
}

/// The parameters' standard errors at the fitted `(c, m, o)` (see the module docs).
pub(super) fn uncertainty(obs: &[Obs], shapes: usize, c: f64, m: f64, o: f64) -> Uncertainty {
    let weight: f64 = obs.iter().map(|p| p.w).sum();
    let mut g = [[0.0; 3]; 3];
    let mut ss = 0.0;
    let mut binds = [false; 3];
    for p in obs {
        let (tc, tm) = (p.a / c, p.b / m);
        let t = tc.max(tm) + o;
        let grad = if tc >= tm {
            [-tc / t, 0.0, 1.0 / t]
        } else {
            [0.0, -tm / t, 1.0 / t]
        };
        for (k, gk) in grad.iter().enumerate() {
            binds[k] |= *gk != 0.0;
            for (l, gl) in grad.iter().enumerate() {
                g[k][l] += p.w * gk * gl / weight;
            }
        }
        let r = p.ln_t - libm::log(t);
        ss += p.w * r * r / weight;
    }
    // Free parameters: away from their bounds and constrained by some kernel.
    let at_bound = [c >= 1.0, m >= 1.0, o <= 0.0];
    let free: Vec<usize> = (0..3).filter(|&k| binds[k] && !at_bound[k]).collect();
    let n = shapes as f64;
    let mut out = Uncertainty {
        shapes,
        ..Uncertainty::default()
    };
    if free.is_empty() || shapes <= free.len() {
        return out;
    }
    let s2 = ss * n / (n - free.len() as f64);
    let sub: Vec<Vec<f64>> = free
        .iter()
        .map(|&k| free.iter().map(|&l| g[k][l]).collect())
        .collect();
    let Some(inv) = invert(sub) else {
        return out;
    };
    for (i, &k) in free.iter().enumerate() {
        let var = s2 * inv[i][i] / n;
        let se = (var >= 0.0 && var.is_finite()).then(|| var.sqrt());
        match k {
            0 => out.compute = se,
            1 => out.memory = se,
            _ => out.overhead = se,
        }
    }
    out
}

/// The inverse of a small symmetric matrix by Gauss–Jordan elimination with partial pivoting;
/// `None` when it is singular (a pivot below 1e-12 of the largest entry).
fn invert(mut a: Vec<Vec<f64>>) -> Option<Vec<Vec<f64>>> {
    let n = a.len();
    let scale = a
        .iter()
        .flatten()
        .fold(0.0_f64, |s, x| s.max(x.abs()))
        .max(f64::MIN_POSITIVE);
    let mut inv: Vec<Vec<f64>> = (0..n)
        .map(|i| (0..n).map(|j| f64::from(u8::from(i == j))).collect())
        .collect();
    for col in 0..n {
        let piv = (col..n).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))?;
        if a[piv][col].abs() <= 1e-12 * scale {
            return None;
        }
        a.swap(col, piv);
        inv.swap(col, piv);
        let d = a[col][col];
        for j in 0..n {
            a[col][j] /= d;
            inv[col][j] /= d;
        }
        for i in (0..n).filter(|&i| i != col) {
            let f = a[i][col];
            for j in 0..n {
                a[i][j] -= f * a[col][j];
                inv[i][j] -= f * inv[col][j];
            }
        }
    }
    Some(inv)
}

#[cfg(test)]
mod tests {
    use super::{invert, uncertainty, Obs};

    #[test]
    fn inverts_a_symmetric_matrix_and_refuses_a_singular_one() {
        // [[4, 2], [2, 3]]⁻¹ = [[3, −2], [−2, 4]] / 8.
        let inv = invert(vec![vec![4.0, 2.0], vec![2.0, 3.0]]).unwrap();
        let want = [[0.375, -0.25], [-0.25, 0.5]];
        for i in 0..2 {
            for j in 0..2 {
                assert!((inv[i][j] - want[i][j]).abs() < 1e-15, "{inv:?}");
            }
        }
        assert!(invert(vec![vec![1.0, 2.0], vec![2.0, 4.0]]).is_none());
    }

    /// Compute-bound kernels only, no overhead term free (o at its bound 0): `ln c` is the one
    /// free parameter, with sensitivity −1 for every kernel (`t = a/c`), so `G = 1` and
    /// `se(ln c) = sqrt(s²/n)`, the standard error of a mean. Residuals ±0.1 on four shapes:
    /// `s² = 0.01 · 4/3`, `se = sqrt(0.01/3) = 0.0577`.
    #[test]
    fn one_free_parameter_is_the_standard_error_of_a_mean() {
        let c = 0.5;
        let obs: Vec<Obs> = [1e-3, 2e-3, 4e-3, 8e-3]
            .iter()
            .zip([0.1, -0.1, 0.1, -0.1])
            .map(|(&a, r)| Obs {
                a,
                b: a / 100.0,
                ln_t: libm::log(a / c) + r,
                w: 1.0,
            })
            .collect();
        let u = uncertainty(&obs, 4, c, 0.9, 0.0);
        let se = u.compute.unwrap();
        assert!((se - (0.01f64 / 3.0).sqrt()).abs() < 1e-12, "{se}");
        // m: no memory-bound kernel constrains it; o: at its bound.
        assert_eq!((u.memory, u.overhead, u.shapes), (None, None, 4));
        // Exact data: no error at all.
        let exact: Vec<Obs> = obs
            .iter()
            .map(|p| Obs {
                ln_t: libm::log(p.a / c),
                ..*p
            })
            .collect();
        assert_eq!(uncertainty(&exact, 4, c, 0.9, 0.0).compute, Some(0.0));
        // As many free parameters as shapes: nothing left to estimate the spread from.
        assert_eq!(uncertainty(&obs, 1, c, 0.9, 0.0).compute, None);
    }
}
