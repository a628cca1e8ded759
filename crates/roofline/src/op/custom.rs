use super::behavior::{n, OpBehavior};
use crate::chip::Chip;
use crate::dtype::DType;
use crate::error::Error;
use crate::eval::Cost;
use crate::field::{dtype, number};
use crate::resource::Resource;
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

impl OpBehavior for Custom {
    op_fields! {
        "flops" => num(flops): number(
            "FLOPs",
            "1e12",
            (0.0, 1e30),
            "a number of FLOPs",
            "total FLOPs (2 per multiply-accumulate; 0 for pure data movement): T_math = FLOPs / peak",
        ),
        "bytes" => num(bytes): number(
            "bytes",
            "1e9",
            (1.0, 1e30),
            "a positive number of bytes",
            "total bytes moved to/from HBM: T_comms = bytes / HBM bandwidth",
        ),
        "t" => dtype(t): dtype("dtype", "bf16", "the dtype whose peak the FLOPs run at"),
    }
    fn is_affine(&self, _key: &str) -> bool {
        true
    }
    fn cost(&self, chip: &Chip) -> Result<Cost, Error> {
        let mut c = Cost::at_peak(self.flops, self.t, chip)?;
        c.hbm_io(self.bytes, 0.0, chip.hbm);
        Ok(c)
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
