use super::behavior::{frac_str, n, vector_or_peak, MeasureKind, OpBehavior, Traits};
use crate::chip::Chip;
use crate::dtype::DType;
use crate::error::Error;
use crate::eval::Cost;
use crate::field::{dtype, size, SliderScale, MAX_DIM};
use crate::resource::Resource;
use serde::{Deserialize, Serialize};

/// Dot product `x·y: t[N]·t[N] → t[1]`.
///
/// * FLOPs = `2N − 1` (N multiplies, N − 1 adds)
/// * bytes = `2·s·N + s` (read x and y, write one element), `s` = size of `t`
/// * intensity = `(2N − 1) / (2·s·N + s)` → `1/s` (bf16: `(2N−1)/(4N+2)` → 1/2)
///
/// Runs on the chip's vector unit (`vpu`) when it has one, else at the peak of `t`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Dot {
    /// Vector length `N`.
    pub n: f64,
    /// Element dtype.
    pub t: DType,
}

impl Default for Dot {
    fn default() -> Self {
        Dot {
            n: 4096.0,
            t: DType::Bf16,
        }
    }
}

impl OpBehavior for Dot {
    op_fields! {
        "n" => num(n): size("N", "4096", "vector length N: FLOPs 2N−1, bytes 2·s·N + s").slider(SliderScale::Pow2 { max: MAX_DIM }),
        "t" => dtype(t): dtype("dtype", "bf16", "element dtype (s bytes each)"),
    }
    fn is_affine(&self, _key: &str) -> bool {
        true
    }
    fn traits(&self) -> Traits {
        Traits {
            vector: true,
            ..Traits::default()
        }
    }
    fn workload(&self) -> Option<MeasureKind> {
        Some(MeasureKind::Memory)
    }
    fn cost(&self, chip: &Chip) -> Result<Cost, Error> {
        let s = self.t.bytes();
        let (unit, peak) = vector_or_peak(chip, self.t)?;
        let mut c = Cost::new(2.0 * self.n - 1.0, self.t, unit, peak);
        c.hbm_io(2.0 * s * self.n, s, chip.hbm);
        Ok(c)
    }
    fn approx_intensity(&self, binding: Resource, conv: f64) -> Option<(f64, String)> {
        (binding == Resource::Hbm).then(|| {
            let v = conv / self.t.bytes();
            (v, format!("→ {}", frac_str(v)))
        })
    }
    fn describe(&self) -> String {
        let t = self.t.as_str();
        format!("x·y: {t}[{}]·{t}[{}] → {t}[1]", n(self.n), n(self.n))
    }
    fn flops_formula(&self) -> (String, String) {
        ("2·N − 1".into(), format!("2·{} − 1", n(self.n)))
    }
    fn bytes_formula(&self, r: Resource) -> Option<(String, String)> {
        let s = n(self.t.bytes());
        (r == Resource::Hbm).then(|| {
            (
                format!("2·{s}·N + {s}"),
                format!("2·{s}·{} + {s}", n(self.n)),
            )
        })
    }
    fn notes(&self, _chip: &str, out: &mut Vec<String>) {
        out.push(format!(
            "Intensity (2N − 1)/(2·{s}·N + {s}) tends to a constant 1/{s} as N grows: no critical N, \
             a dot product stays memory-bound unless the ridge is below 1/{s}.",
            s = n(self.t.bytes())
        ));
    }
}
