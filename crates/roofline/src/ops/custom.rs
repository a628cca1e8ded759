use super::{dtype, n};
use crate::analysis::{Core, Resource};
use crate::chip::Chip;
use crate::dtype::DType;
use crate::error::Error;
use crate::op::{FieldSpec, FieldType, OpModel};
use serde::{Deserialize, Serialize};

/// A computation given by its totals: `flops` FLOPs over `bytes` bytes of HBM traffic, at the
/// peak of dtype `t`. Intensity = `flops / bytes`. All bytes are counted as read.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Custom {
    /// Total FLOPs (2 per MAC).
    pub flops: f64,
    /// Total HBM bytes.
    pub bytes: f64,
    /// The dtype whose peak applies.
    pub t: DType,
}

impl Default for Custom {
    fn default() -> Self {
        Custom {
            flops: 1e12,
            bytes: 1e9,
            t: DType::Bf16,
        }
    }
}

static FIELDS: [FieldSpec; 3] = [
    FieldSpec {
        key: "flops",
        label: "FLOPs",
        ty: FieldType::Number,
        default: "1e12",
        help: "total FLOPs (2 per multiply-accumulate; 0 for pure data movement): T_math = FLOPs / peak",
        what: "a number of FLOPs",
        min: 0.0,
        max: 1e30,
        none: None,
    },
    FieldSpec {
        key: "bytes",
        label: "bytes",
        ty: FieldType::Number,
        default: "1e9",
        help: "total bytes moved to/from HBM: T_comms = bytes / HBM bandwidth",
        what: "a positive number of bytes",
        min: 1.0,
        max: 1e30,
        none: None,
    },
    dtype(
        "t",
        "dtype",
        "bf16",
        "the dtype whose peak the FLOPs run at",
    ),
];

impl OpModel for Custom {
    fn id(&self) -> &'static str {
        "custom"
    }
    fn fields(&self) -> &'static [FieldSpec] {
        &FIELDS
    }
    fn dtype_field(&self, key: &str) -> Option<DType> {
        (key == "t").then_some(self.t)
    }
    fn dtype_field_mut(&mut self, key: &str) -> Option<&mut DType> {
        (key == "t").then_some(&mut self.t)
    }
    fn get_num(&self, key: &str) -> Option<f64> {
        match key {
            "flops" => Some(self.flops),
            "bytes" => Some(self.bytes),
            _ => None,
        }
    }
    fn is_affine(&self, _key: &str) -> bool {
        true
    }
    fn set_num_raw(&mut self, key: &str, x: f64) -> bool {
        match key {
            "flops" => self.flops = x,
            "bytes" => self.bytes = x,
            _ => return false,
        }
        true
    }
    fn core(&self, chip: &Chip) -> Result<Core, Error> {
        let mut c = Core::at_peak(self.flops, self.t, chip)?;
        c.hbm_io(self.bytes, 0.0, chip.hbm);
        Ok(c)
    }
    fn approx_intensity(&self, _binding: Resource, _conv: f64) -> Option<(f64, String)> {
        None
    }
    fn describe(&self) -> String {
        format!(
            "custom: {} FLOPs over {} bytes ({})",
            n(self.flops),
            n(self.bytes),
            self.t.as_str()
        )
    }
    fn flops_formula(&self) -> (String, String) {
        ("FLOPs".into(), n(self.flops))
    }
    fn bytes_formula(&self, r: Resource) -> Option<(String, String)> {
        (r == Resource::Hbm).then(|| ("bytes".into(), n(self.bytes)))
    }
}
