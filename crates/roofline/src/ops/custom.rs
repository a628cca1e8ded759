use super::{dtype, n};
use crate::analysis::{Core, ExecUnit, Resource};
use crate::chip::Chip;
use crate::dtype::DType;
use crate::error::Error;
use crate::op::{find_spec, FieldSpec, FieldType, OpModel};
use crate::units::format_exact;
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
    fn get(&self, key: &str) -> Option<String> {
        match key {
            "t" => Some(self.t.as_str().into()),
            k => self.get_num(k).map(format_exact),
        }
    }
    fn set(&mut self, key: &str, text: &str) -> Result<(), Error> {
        let spec = find_spec(&FIELDS, key, "custom")?;
        if key == "t" {
            self.t = spec.parse_dtype(text)?;
        } else {
            let v = spec.parse_num(text)?;
            self.set_num_raw(key, v);
        }
        Ok(())
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
        let peak = chip.peak(self.t)?;
        let mut c = Core::new(self.flops, self.t, ExecUnit::Peak(self.t.peak_key()), peak);
        c.push(Resource::Hbm, self.bytes, chip.hbm);
        c.bytes_read = self.bytes;
        c.memory = self.bytes;
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
