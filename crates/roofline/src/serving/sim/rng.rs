//! The simulation's random numbers: a small seeded generator of its own, so a `seed` gives the
//! same draws natively and in the page's wasm, today and in any later build (no crate's
//! stream to change under a link). SplitMix64 (Steele, Lea and Flood, "Fast splittable
//! pseudorandom number generators", OOPSLA 2014) turns the seed into the state of
//! xoshiro256** (Blackman and Vigna, "Scrambled linear pseudorandom number generators", ACM
//! TOMS 2021), which draws. Logarithms, exponentials and cosines go through `libm`, the same
//! code on every target.

/// xoshiro256**, seeded by SplitMix64.
#[derive(Debug, Clone)]
pub struct Rng {
    s: [u64; 4],
    /// A second normal deviate left by Box–Muller.
    spare: Option<f64>,
}

fn splitmix(x: &mut u64) -> u64 {
    *x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *x;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Rng {
    /// The generator of `seed` and `stream` (independent draws for each use of one seed:
    /// arrivals, lengths, start offsets).
    pub fn new(seed: u64, stream: u64) -> Rng {
        let mut x = seed ^ stream.wrapping_mul(0xD1B5_4A32_D192_ED03);
        let s = [
            splitmix(&mut x),
            splitmix(&mut x),
            splitmix(&mut x),
            splitmix(&mut x),
        ];
        Rng { s, spare: None }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let out = s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        out
    }

    /// Uniform in the open interval (0, 1): 53 random bits and a half, never 0 or 1.
    pub fn uniform(&mut self) -> f64 {
        ((self.next_u64() >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }

    /// Exponential with mean `mean`: `−mean·ln U`.
    pub fn exponential(&mut self, mean: f64) -> f64 {
        -mean * libm::log(self.uniform())
    }

    /// Standard normal, by Box–Muller (two deviates per pair of uniforms).
    pub fn normal(&mut self) -> f64 {
        if let Some(z) = self.spare.take() {
            return z;
        }
        let (u, v) = (self.uniform(), self.uniform());
        let r = libm::sqrt(-2.0 * libm::log(u));
        let a = 2.0 * std::f64::consts::PI * v;
        self.spare = Some(r * libm::sin(a));
        r * libm::cos(a)
    }

    /// Lognormal with mean `mean` and coefficient of variation `cv`: `exp(μ + σ·Z)` with `σ² =
    /// ln(1 + cv²)` and `μ = ln(mean) − σ²/2` (so `E = mean`, `sd/E = cv`); `mean` itself when
    /// `cv = 0`.
    pub fn lognormal(&mut self, mean: f64, cv: f64) -> f64 {
        if cv <= 0.0 {
            return mean;
        }
        let s2 = libm::log1p(cv * cv);
        let mu = libm::log(mean) - s2 / 2.0;
        libm::exp(mu + libm::sqrt(s2) * self.normal())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first output of xoshiro256** from the state [1, 2, 3, 4] is 11520 (the reference
    /// implementation's first value: rotl(2·5, 7)·9 = 1280·9).
    #[test]
    fn xoshiro_reference_value() {
        let mut r = Rng {
            s: [1, 2, 3, 4],
            spare: None,
        };
        assert_eq!(r.next_u64(), 11520);
        // Second value from the reference code: state after one step is
        // [7, 0, 262146, 211106232532992]; rotl(0·5, 7)·9 = 0.
        assert_eq!(r.next_u64(), 0);
    }

    /// SplitMix64 from 0: its first output is 0xE220A8397B1DCDAF (the published test vector).
    #[test]
    fn splitmix_reference_value() {
        let mut x = 0u64;
        assert_eq!(splitmix(&mut x), 0xE220_A839_7B1D_CDAF);
    }

    /// Means and spreads over 200,000 draws: uniform 1/2 and 1/12, exponential its mean, the
    /// lognormal its mean and cv (to a few standard errors).
    #[test]
    fn moments() {
        let mut r = Rng::new(1, 0);
        let n = 200_000;
        let (mut su, mut su2, mut se, mut sl, mut sl2) = (0.0, 0.0, 0.0, 0.0, 0.0);
        for _ in 0..n {
            let u = r.uniform();
            assert!(u > 0.0 && u < 1.0);
            su += u;
            su2 += u * u;
            se += r.exponential(2.0);
            let l = r.lognormal(1000.0, 0.5);
            sl += l;
            sl2 += l * l;
        }
        let n = n as f64;
        assert!((su / n - 0.5).abs() < 0.003);
        assert!((su2 / n - (su / n).powi(2) - 1.0 / 12.0).abs() < 0.001);
        assert!((se / n - 2.0).abs() < 0.02);
        let (m, v) = (sl / n, sl2 / n - (sl / n).powi(2));
        assert!((m - 1000.0).abs() < 5.0, "{m}");
        assert!((v.sqrt() / m - 0.5).abs() < 0.01, "{}", v.sqrt() / m);
        // Streams of one seed differ; one seed repeats.
        assert_ne!(Rng::new(1, 0).next_u64(), Rng::new(1, 1).next_u64());
        assert_eq!(Rng::new(9, 3).next_u64(), Rng::new(9, 3).next_u64());
    }
}
