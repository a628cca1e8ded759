use super::behavior::{n, vector_or_peak, MeasureKind, OpBehavior, Traits};
use crate::chip::Chip;
use crate::dtype::DType;
use crate::error::Error;
use crate::eval::Cost;
use crate::field::{dtype, integer, number, size, SliderScale, MAX_DIM};
use crate::resource::Resource;
use serde::{Deserialize, Serialize};

/// An elementwise operation over `n` elements with `inputs` operands and one output.
///
/// * FLOPs = `flops · n`
/// * bytes = `(inputs + 1) · s · n` (read `inputs·s·n`, write `s·n`)
/// * intensity = `flops / ((inputs + 1)·s)`, constant in `n` (LayerNorm-like: 20 FLOPs,
///   1 input, bf16 → 20 / (2·2) = 5; the notes' "LayerNorm ~5")
///
/// Runs on the vector unit (`vpu`) when the chip has one, else at the peak of `t`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Elementwise {
    /// Number of elements `n`.
    pub n: f64,
    /// FLOPs per element `f`.
    pub flops: f64,
    /// Number of input operands `k` (0 for a fill).
    pub inputs: f64,
    /// Element dtype.
    pub t: DType,
}

impl Default for Elementwise {
    fn default() -> Self {
        Elementwise {
            n: 16_777_216.0,
            flops: 1.0,
            inputs: 2.0,
            t: DType::Bf16,
        }
    }
}

impl OpBehavior for Elementwise {
    op_fields! {
        "n" => num(n): size(
            "elements",
            "16777216",
            "number of elements n: FLOPs f·n, bytes (k+1)·s·n",
        ).slider(SliderScale::Pow2 { max: MAX_DIM }),
        "flops" => num(flops): number(
            "FLOPs per element",
            "1",
            (1e-3, 1e6),
            "a positive number of FLOPs per element",
            "FLOPs per element f (an add is 1; LayerNorm-like ≈ 20 for intensity 5 in bf16)",
        ),
        "inputs" => num(inputs): integer(
            "inputs",
            "2",
            (0.0, 64.0),
            "a number of input operands",
            "number of input operands k read per element (one output is written)",
        ),
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
        let mut c = Cost::new(self.flops * self.n, self.t, unit, peak);
        c.hbm_io(self.inputs * s * self.n, s * self.n, chip.hbm);
        Ok(c)
    }
    fn approx_intensity(&self, binding: Resource, conv: f64) -> Option<(f64, String)> {
        (binding == Resource::Hbm).then(|| {
            let v = conv * self.flops / ((self.inputs + 1.0) * self.t.bytes());
            (
                v,
                format!(
                    "= {}/(({}+1)·{})",
                    n(self.flops * conv),
                    n(self.inputs),
                    n(self.t.bytes())
                ),
            )
        })
    }
    fn describe(&self) -> String {
        format!(
            "elementwise: {} FLOPs × {} {} elements, {} inputs",
            n(self.flops),
            n(self.n),
            self.t.as_str(),
            n(self.inputs)
        )
    }
    fn flops_formula(&self) -> (String, String) {
        ("f·n".into(), format!("{}·{}", n(self.flops), n(self.n)))
    }
    fn bytes_formula(&self, r: Resource) -> Option<(String, String)> {
        let s = n(self.t.bytes());
        (r == Resource::Hbm).then(|| {
            (
                format!("(k+1)·{s}·n"),
                format!("({}+1)·{s}·{}", n(self.inputs), n(self.n)),
            )
        })
    }
    fn notes(&self, _chip: &str, out: &mut Vec<String>) {
        out.push("Intensity f/((k+1)·s) does not depend on n: no critical size.".to_string());
    }
}
