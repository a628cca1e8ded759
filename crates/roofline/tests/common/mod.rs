//! Helpers shared by the integration tests (each test crate uses some of them).
#![allow(dead_code)]

use roofline::Op;

pub mod fuzz;
pub mod train;

/// Relative difference of `a` from `b` (0 when equal).
pub fn rel(a: f64, b: f64) -> f64 {
    if a == b {
        0.0
    } else {
        ((a - b) / b).abs()
    }
}

/// Asserts `got` is within relative tolerance `tol` of `want`.
pub fn close(got: f64, want: f64, tol: f64, what: &str) {
    assert!(
        rel(got, want) <= tol,
        "{what}: got {got}, want {want} (rel {})",
        rel(got, want)
    );
}

/// The default op of `kind` with the given fields set.
pub fn op_with(kind: &str, kv: &[(&str, &str)]) -> Op {
    let mut op = Op::default_for(kind).unwrap();
    for (k, v) in kv {
        op.set(k, v).unwrap();
    }
    op
}

/// The golden URLs (the first column of the lines starting with `?`).
pub fn golden_urls() -> Vec<&'static str> {
    include_str!("../golden_urls.txt")
        .lines()
        .filter(|l| l.starts_with('?'))
        .filter_map(|l| l.split('\t').next())
        .collect()
}

/// A small deterministic PRNG: xorshift64* with a splitmix64-scrambled seed (distinct seeds
/// give distinct, non-zero states).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        Rng((z ^ (z >> 31)) | 1)
    }
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    pub fn chance(&mut self, one_in: usize) -> bool {
        self.below(one_in) == 0
    }
    pub fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    pub fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len())]
    }
}
