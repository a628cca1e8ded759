use super::behavior::{frac_str, n, MeasureKind, OpBehavior};
use crate::chip::Chip;
use crate::dtype::DType;
use crate::error::Error;
use crate::eval::Cost;
use crate::field::{dtype, size, SIZES};
use crate::resource::Resource;
use serde::{Deserialize, Serialize};

/// Per-example weights (question 4): `x[B,D] ·_D w[B,D,F] → out[B,F]`.
///
/// * FLOPs = `2·B·D·F`
/// * bytes = `s_x·B·D + s_w·B·D·F + s_out·B·F`
/// * intensity = `2·D·F / (s_x·D + s_w·D·F + s_out·F)` ≈ `2/s_w`, independent of `B`
///   (int8: ≈ 2): no critical batch size.
///
/// Computes at the default compute dtype of `x × w` (see [`DType::compute_default`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Bmm {
    /// Batch `B` (one weight matrix per example).
    pub b: f64,
    /// Contracting dimension `D`.
    pub d: f64,
    /// Output dimension `F`.
    pub f: f64,
    /// Activation dtype.
    pub x: DType,
    /// Weight dtype.
    pub w: DType,
    /// Output dtype.
    pub out: DType,
}

impl Default for Bmm {
    fn default() -> Self {
        Bmm {
            b: 1.0,
            d: 4096.0,
            f: 4096.0,
            x: DType::Bf16,
            w: DType::Bf16,
            out: DType::Bf16,
        }
    }
}

impl Bmm {
    /// The compute dtype (default rule of `x × w`).
    pub fn compute_dtype(&self) -> DType {
        DType::compute_default(self.x, self.w)
    }
}

impl OpBehavior for Bmm {
    op_fields! {
        "b" => num(b): size("B", "1", "batch B: one [D,F] weight matrix per example").slider(SIZES),
        "d" => num(d): size("D", "4096", "contracting dimension D").slider(SIZES),
        "f" => num(f): size("F", "4096", "output dimension F").slider(SIZES),
        "x" => dtype(x): dtype("x dtype", "bf16", "activations x[B,D]: s_x·B·D bytes"),
        "w" => dtype(w): dtype(
            "w dtype",
            "bf16",
            "per-example weights w[B,D,F]: s_w·B·D·F bytes",
        ),
        "out" => dtype(out): dtype("out dtype", "bf16", "output out[B,F]: s_out·B·F bytes"),
    }
    fn is_affine(&self, _key: &str) -> bool {
        true
    }
    fn workload(&self) -> Option<MeasureKind> {
        Some(MeasureKind::Gemm)
    }
    fn cost(&self, chip: &Chip) -> Result<Cost, Error> {
        let (b, d, f) = (self.b, self.d, self.f);
        let mut c = Cost::at_peak(2.0 * b * d * f, self.compute_dtype(), chip)?;
        let read = self.x.bytes() * b * d + self.w.bytes() * b * d * f;
        c.hbm_io(read, self.out.bytes() * b * f, chip.hbm);
        Ok(c)
    }
    fn approx_intensity(&self, binding: Resource, conv: f64) -> Option<(f64, String)> {
        (binding == Resource::Hbm).then(|| {
            let v = conv * 2.0 / self.w.bytes();
            (v, format!("≈ {}", frac_str(v)))
        })
    }
    fn describe(&self) -> String {
        format!(
            "{}[{b},{d}]·{}[{b},{d},{f}] → {}[{b},{f}]",
            self.x.as_str(),
            self.w.as_str(),
            self.out.as_str(),
            b = n(self.b),
            d = n(self.d),
            f = n(self.f)
        )
    }
    fn flops_formula(&self) -> (String, String) {
        (
            "2·B·D·F".into(),
            format!("2·{}·{}·{}", n(self.b), n(self.d), n(self.f)),
        )
    }
    fn bytes_formula(&self, r: Resource) -> Option<(String, String)> {
        let (sx, sw, so) = (n(self.x.bytes()), n(self.w.bytes()), n(self.out.bytes()));
        let (b, d, f) = (n(self.b), n(self.d), n(self.f));
        (r == Resource::Hbm).then(|| {
            (
                format!("{sx}·B·D + {sw}·B·D·F + {so}·B·F"),
                format!("{sx}·{b}·{d} + {sw}·{b}·{d}·{f} + {so}·{b}·{f}"),
            )
        })
    }
    fn notes(&self, _chip: &str, out: &mut Vec<String>) {
        out.push(format!(
            "Intensity 2·D·F/({}·D + {}·D·F + {}·F) does not depend on B: no critical batch size.",
            n(self.x.bytes()),
            n(self.w.bytes()),
            n(self.out.bytes())
        ));
    }
}
