use super::{dtype, frac_str, n, size};
use crate::analysis::{Core, Resource};
use crate::chip::Chip;
use crate::dtype::DType;
use crate::error::Error;
use crate::op::{FieldSpec, OpModel};
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

static FIELDS: [FieldSpec; 6] = [
    size(
        "b",
        "B",
        "1",
        "batch B: one [D,F] weight matrix per example",
    ),
    size("d", "D", "4096", "contracting dimension D"),
    size("f", "F", "4096", "output dimension F"),
    dtype("x", "x dtype", "bf16", "activations x[B,D]: s_x·B·D bytes"),
    dtype(
        "w",
        "w dtype",
        "bf16",
        "per-example weights w[B,D,F]: s_w·B·D·F bytes",
    ),
    dtype(
        "out",
        "out dtype",
        "bf16",
        "output out[B,F]: s_out·B·F bytes",
    ),
];

impl Bmm {
    /// The compute dtype (default rule of `x × w`).
    pub fn compute_dtype(&self) -> DType {
        DType::compute_default(self.x, self.w)
    }
}

impl OpModel for Bmm {
    fn id(&self) -> &'static str {
        "bmm"
    }
    fn fields(&self) -> &'static [FieldSpec] {
        &FIELDS
    }
    fn dtype_field(&self, key: &str) -> Option<DType> {
        match key {
            "x" => Some(self.x),
            "w" => Some(self.w),
            "out" => Some(self.out),
            _ => None,
        }
    }
    fn dtype_field_mut(&mut self, key: &str) -> Option<&mut DType> {
        match key {
            "x" => Some(&mut self.x),
            "w" => Some(&mut self.w),
            "out" => Some(&mut self.out),
            _ => None,
        }
    }
    fn get_num(&self, key: &str) -> Option<f64> {
        match key {
            "b" => Some(self.b),
            "d" => Some(self.d),
            "f" => Some(self.f),
            _ => None,
        }
    }
    fn is_affine(&self, _key: &str) -> bool {
        true
    }
    fn set_num_raw(&mut self, key: &str, x: f64) -> bool {
        match key {
            "b" => self.b = x,
            "d" => self.d = x,
            "f" => self.f = x,
            _ => return false,
        }
        true
    }
    fn core(&self, chip: &Chip) -> Result<Core, Error> {
        let (b, d, f) = (self.b, self.d, self.f);
        let mut c = Core::at_peak(2.0 * b * d * f, self.compute_dtype(), chip)?;
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
