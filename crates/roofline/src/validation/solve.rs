//! The solver under the validation set's fit ([`super::fit::fit_model`]): least absolute error
//! with non-negative coefficients, by reweighted non-negative least squares (Lawson and
//! Hanson's active set on the normal equations) and a vertex polish. Pure linear algebra: it
//! knows nothing of features or terms.

/// Most rounds of reweighting in [`least_absolute`].
pub const ROUNDS: usize = 100;

/// The coefficients `a ≥ 0` that minimise the L1 objective `Σ |x·a − y|`, by iteratively
/// reweighted least squares from equal weights, each round a non-negative least squares solve
/// ([`Normal::nnls`]). An L1 optimum sits on a vertex (it fits some points exactly): every ten
/// rounds the vertex the fit approaches is taken ([`polish`]), and the rounds stop once two such
/// vertices agree bit for bit (else after [`ROUNDS`] rounds). Deterministic.
pub(super) fn least_absolute(rows: &Rows) -> Vec<f64> {
    let mut w = vec![1.0; rows.n];
    let mut a = vec![0.0; rows.k];
    let mut vertex: Option<Vec<f64>> = None;
    for round in 1..=ROUNDS {
        a = Normal::of(rows, &w).nnls();
        for (i, wi) in w.iter_mut().enumerate() {
            *wi = 1.0 / rows.residual(i, &a).abs().max(1e-6);
        }
        if round % 10 == 0 {
            let v = polish(rows, a.clone());
            if vertex.as_ref() == Some(&v) {
                break;
            }
            vertex = Some(v);
        }
    }
    vertex.unwrap_or_else(|| polish(rows, a))
}

/// A fit's rows, flat: `n` rows of `k` columns `x` and their targets `y`.
pub(super) struct Rows {
    pub(super) n: usize,
    pub(super) k: usize,
    pub(super) x: Vec<f64>,
    pub(super) y: Vec<f64>,
}

impl Rows {
    fn row(&self, i: usize) -> &[f64] {
        &self.x[i * self.k..(i + 1) * self.k]
    }

    /// `x_i · a − y_i`.
    fn residual(&self, i: usize, a: &[f64]) -> f64 {
        dot(self.row(i), a) - self.y[i]
    }

    /// The L1 objective `Σ |x·a − y|`.
    fn l1(&self, a: &[f64]) -> f64 {
        (0..self.n).map(|i| self.residual(i, a).abs()).sum()
    }
}

/// Reweighting approaches an L1 optimum slowly where it sits on a vertex: the coefficients
/// that fit exactly the points nearest to the fit, one per non-zero coefficient. Takes that
/// vertex when it is non-negative and no worse.
fn polish(rows: &Rows, a: Vec<f64>) -> Vec<f64> {
    let free: Vec<usize> = (0..a.len()).filter(|i| a[*i] > 0.0).collect();
    let mut order: Vec<usize> = (0..rows.n).collect();
    let res: Vec<f64> = (0..rows.n).map(|i| rows.residual(i, &a).abs()).collect();
    order.sort_by(|&i, &j| res[i].total_cmp(&res[j]));
    let exact: Vec<usize> = order.into_iter().take(free.len()).collect();
    let ones = vec![1.0; rows.n];
    let Some(sol) = Normal::of_rows(rows, &ones, &exact).solve(&free) else {
        return a;
    };
    let mut v = vec![0.0; a.len()];
    for (i, x) in free.iter().zip(sol) {
        v[*i] = x;
    }
    if v.iter().all(|x| *x >= 0.0) && rows.l1(&v) <= rows.l1(&a) {
        v
    } else {
        a
    }
}

fn dot(x: &[f64], a: &[f64]) -> f64 {
    x.iter().zip(a).map(|(p, q)| p * q).sum()
}

/// The weighted normal equations of every column: `Σ w·x_i·x_j` (row-major, `k × k`) and
/// `Σ w·x_i·y`, summed over the rows in order.
struct Normal {
    k: usize,
    xx: Vec<f64>,
    xy: Vec<f64>,
}

impl Normal {
    fn of(rows: &Rows, w: &[f64]) -> Normal {
        let all: Vec<usize> = (0..rows.n).collect();
        Normal::of_rows(rows, w, &all)
    }

    /// The equations of the rows `which` only.
    fn of_rows(rows: &Rows, w: &[f64], which: &[usize]) -> Normal {
        let k = rows.k;
        let mut xx = vec![0.0; k * k];
        let mut xy = vec![0.0; k];
        for &r in which {
            let (x, y, wi) = (rows.row(r), rows.y[r], w[r]);
            for i in 0..k {
                let wx = wi * x[i];
                if wx == 0.0 {
                    continue;
                }
                for j in i..k {
                    xx[i * k + j] += wx * x[j];
                }
                xy[i] += wx * y;
            }
        }
        for i in 0..k {
            for j in 0..i {
                xx[i * k + j] = xx[j * k + i];
            }
        }
        Normal { k, xx, xy }
    }

    /// `min Σ w (x·a − y)²` over `a ≥ 0`, by Lawson and Hanson's active set on the normal
    /// equations: columns enter one at a time, the one whose gradient most wants to grow;
    /// a column whose coefficient would turn negative leaves. A column that makes the
    /// equations singular (a feature zero on every point, or a copy of another) stays at 0.
    fn nnls(&self) -> Vec<f64> {
        let k = self.k;
        let mut a = vec![0.0; k];
        let mut free: Vec<usize> = Vec::new();
        let mut barred = vec![false; k];
        let scale = self
            .xy
            .iter()
            .fold(0.0_f64, |m, v| m.max(v.abs()))
            .max(1e-300);
        let tol = 1e-12 * scale;
        for _ in 0..4 * k + 4 {
            // The gradient of −objective/2: how much each column wants to grow.
            let g: Vec<f64> = (0..k)
                .map(|i| self.xy[i] - dot(&self.xx[i * k..(i + 1) * k], &a))
                .collect();
            let Some(j) = (0..k)
                .filter(|i| !free.contains(i) && !barred[*i] && g[*i] > tol)
                .max_by(|&p, &q| g[p].total_cmp(&g[q]))
            else {
                break;
            };
            free.push(j);
            free.sort_unstable();
            loop {
                let Some(z) = self.solve(&free) else {
                    free.retain(|i| *i != j);
                    barred[j] = true;
                    break;
                };
                if z.iter().all(|v| *v > 0.0) {
                    for (i, v) in free.iter().zip(&z) {
                        a[*i] = *v;
                    }
                    break;
                }
                // Step from a toward z until the first coefficient reaches 0; it leaves.
                let mut alpha = 1.0_f64;
                for (i, v) in free.iter().zip(&z) {
                    if *v <= 0.0 {
                        let d = a[*i] - v;
                        alpha = if d > 0.0 { alpha.min(a[*i] / d) } else { 0.0 };
                    }
                }
                for (i, v) in free.iter().zip(&z) {
                    a[*i] += alpha * (v - a[*i]);
                }
                let before = free.len();
                free.retain(|i| a[*i] > tol);
                for (i, ai) in a.iter_mut().enumerate() {
                    if !free.contains(&i) {
                        *ai = 0.0;
                    }
                }
                if free.is_empty() || free.len() == before {
                    break;
                }
            }
        }
        a
    }

    /// The equations of the columns `free`, solved by Gaussian elimination with partial
    /// pivoting; `None` when singular.
    fn solve(&self, free: &[usize]) -> Option<Vec<f64>> {
        let n = free.len();
        let k = self.k;
        let mut m: Vec<Vec<f64>> = free
            .iter()
            .map(|&i| {
                let mut row: Vec<f64> = free.iter().map(|&j| self.xx[i * k + j]).collect();
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
