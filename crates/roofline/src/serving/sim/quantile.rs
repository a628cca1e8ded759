//! Percentiles of weighted samples, exactly and in time linear in the samples: a simulated
//! run leaves one gap between tokens per step and request (weighted by how many requests
//! share it), hundreds of thousands of them, which sorting would make the slowest part of a
//! run.
//!
//! **Definition** (nearest rank, weighted): the `q`-quantile is the smallest sample value `v`
//! such that the samples at or below `v` carry at least `q` of the total weight. With unit
//! weights it is the `⌈q·n⌉`-th smallest value (the 99th percentile of 1,000 values is the
//! 990th), as benchmarks' nearest-rank percentiles are.
//!
//! **How.** One pass bins the values by their bit patterns (for values > 0 the IEEE 754 bits
//! order as the values do, so the top bits of `bits − bits(smallest)` are a logarithmic bin,
//! at most 4,096 of them, without a logarithm); the cumulative weights name the bin that holds
//! each quantile; a second pass gathers that bin's samples, which are sorted (a handful) to
//! find the value. Exact: the bins only choose which samples to sort (values ≤ 0 take bins
//! linear in the value).
//!
//! **Stored** as the values and runs of equal weight (a run of decode steps leaves its gaps
//! with one weight): half the memory of a weight per value, and the same sums in the same
//! order.

/// Weighted samples: `(value, weight)`, values finite (times), weights > 0.
#[derive(Debug, Clone, Default)]
pub struct Samples {
    v: Vec<f64>,
    /// Runs of equal weight: `(end, weight)`, the values `v[previous end..end]`.
    runs: Vec<(usize, f64)>,
    total: f64,
}

const BINS: usize = 4096;

impl Samples {
    /// No samples.
    pub fn new() -> Samples {
        Samples::default()
    }

    /// Adds `value` with `weight` (ignored unless the weight is > 0).
    #[inline]
    pub fn push(&mut self, value: f64, weight: f64) {
        if weight > 0.0 {
            self.v.push(value);
            match self.runs.last_mut() {
                Some(r) if r.1 == weight => r.0 += 1,
                _ => self.runs.push((self.v.len(), weight)),
            }
            self.total += weight;
        }
    }

    /// The total weight.
    pub fn weight(&self) -> f64 {
        self.total
    }

    /// Each run of equal weight: its values and weight.
    fn each(&self) -> impl Iterator<Item = (&[f64], f64)> {
        let mut from = 0;
        self.runs.iter().map(move |&(end, w)| {
            let s = &self.v[from..end];
            from = end;
            (s, w)
        })
    }

    /// The weighted mean; `None` without samples.
    pub fn mean(&self) -> Option<f64> {
        (self.total > 0.0).then(|| {
            let mut sum = 0.0;
            for (v, w) in self.each() {
                for &x in v {
                    sum += x * w;
                }
            }
            sum / self.total
        })
    }

    /// The `q`-quantiles (each in [0, 1]) by nearest rank (module docs), in the order given;
    /// `None` without samples.
    pub fn quantiles<const N: usize>(&self, qs: [f64; N]) -> Option<[f64; N]> {
        if self.total <= 0.0 {
            return None;
        }
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for &x in &self.v {
            lo = lo.min(x);
            hi = hi.max(x);
        }
        if lo >= hi {
            return Some([lo; N]);
        }
        // Bins by value: by bit pattern when every value is > 0, else linear in the value.
        let bits = lo > 0.0;
        let a = lo.to_bits();
        let span = if bits { hi.to_bits() - a } else { 0 };
        let shift = (u64::BITS - span.leading_zeros()).saturating_sub(BINS.trailing_zeros());
        let scale = (BINS as f64) / (hi - lo);
        let bin = |x: f64| -> usize {
            if bits {
                ((x.to_bits() - a) >> shift) as usize
            } else {
                (((x - lo) * scale) as usize).min(BINS - 1)
            }
        };
        let mut w = vec![0.0; BINS];
        for (v, wt) in self.each() {
            for &x in v {
                w[bin(x)] += wt;
            }
        }
        // The bin holding each quantile and the weight below it: where the cumulative weight
        // first reaches the target (the last bin with weight when rounding leaves it short).
        let mut at = [(BINS, 0.0); N];
        for (a, &q) in at.iter_mut().zip(&qs) {
            let target = q.clamp(0.0, 1.0) * self.total;
            let mut cum = 0.0;
            for (k, &wk) in w.iter().enumerate() {
                if wk > 0.0 && cum + wk >= target {
                    *a = (k, cum);
                    break;
                }
                cum += wk;
            }
        }
        // One pass gathers the samples of those bins; each is sorted and walked.
        let mut inside: Vec<Vec<(f64, f64)>> = vec![Vec::new(); N];
        for (v, wt) in self.each() {
            for &x in v {
                let b = bin(x);
                for (i, a) in at.iter().enumerate() {
                    if a.0 == b {
                        inside[i].push((x, wt));
                    }
                }
            }
        }
        let mut out = [hi; N];
        for ((o, &q), (a, v)) in out.iter_mut().zip(&qs).zip(at.iter().zip(&mut inside)) {
            if a.0 == BINS {
                continue;
            }
            let target = q.clamp(0.0, 1.0) * self.total;
            v.sort_by(|p, q| p.0.total_cmp(&q.0));
            let mut cum = a.1;
            *o = v.last().map_or(hi, |l| l.0);
            for &(x, wt) in v.iter() {
                cum += wt;
                if cum >= target {
                    *o = x;
                    break;
                }
            }
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Nearest rank by hand: of 1..=1000 the 50th, 90th and 99th percentiles are 500, 900 and
    /// 990; weights count as repeats.
    #[test]
    fn nearest_rank() {
        let mut s = Samples::new();
        for i in (1..=1000).rev() {
            s.push(i as f64, 1.0);
        }
        assert_eq!(s.quantiles([0.5, 0.9, 0.99]), Some([500.0, 900.0, 990.0]));
        assert_eq!(s.quantiles([0.0, 1.0]), Some([1.0, 1000.0]));
        // 1 with weight 3 and 2 with weight 1: the median is 1, the 80th percentile 2.
        let mut w = Samples::new();
        w.push(2.0, 1.0);
        w.push(1.0, 3.0);
        assert_eq!(w.quantiles([0.5, 0.75, 0.8]), Some([1.0, 1.0, 2.0]));
        assert_eq!(w.mean(), Some(1.25));
        assert_eq!(Samples::new().quantiles([0.5]), None);
    }

    /// Against a sort, on values spread over decades with uneven weights, all > 0 (binned by
    /// their bits) or some ≤ 0 (binned by value).
    #[test]
    fn matches_a_sort() {
        for shift in [0.0, -0.3] {
            matches_a_sort_from(shift);
        }
    }

    fn matches_a_sort_from(shift: f64) {
        let mut s = Samples::new();
        let mut all = Vec::new();
        let mut x = 12345u64;
        for _ in 0..20_000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let v = 1e-4 * (1.0 + (x >> 40) as f64 / 1e3) + shift;
            let w = 1.0 + ((x >> 20) & 7) as f64;
            s.push(v, w);
            all.push((v, w));
        }
        all.sort_by(|a, b| a.0.total_cmp(&b.0));
        let total: f64 = all.iter().map(|p| p.1).sum();
        for q in [0.01, 0.5, 0.9, 0.99, 0.999] {
            let mut cum = 0.0;
            let want = all
                .iter()
                .find(|p| {
                    cum += p.1;
                    cum >= q * total
                })
                .unwrap()
                .0;
            assert_eq!(s.quantiles([q]).unwrap()[0], want, "q {q}, shift {shift}");
        }
    }
}
