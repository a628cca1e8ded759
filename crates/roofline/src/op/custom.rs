use super::behavior::{n, OpBehavior};
use super::Link;
use crate::chip::Chip;
use crate::dtype::DType;
use crate::error::Error;
use crate::eval::Cost;
use crate::field::{choice, dtype, number, BYTES};
use crate::resource::Resource;
use crate::units::Unit;
use serde::{Deserialize, Serialize};

/// A computation given by its totals: `flops` FLOPs over `bytes` bytes of HBM traffic, at the
/// peak of dtype `t`, and optionally `net` bytes per chip over a `link` (a collective: an
/// `llm` step's MoE all-reduce or AllToAll is one). Intensity = `flops / bytes`. All bytes are
/// counted as read.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Custom {
    /// Total FLOPs (2 per MAC).
    pub flops: f64,
    /// Total HBM bytes.
    pub bytes: f64,
    /// The dtype whose peak applies.
    pub t: DType,
    /// Bytes per chip over `link` (0: none).
    pub net: f64,
    /// The link `net` goes over.
    pub link: Link,
}

impl Default for Custom {
    fn default() -> Self {
        Custom {
            flops: 1e12,
            bytes: 1e9,
            t: DType::Bf16,
            net: 0.0,
            link: Link::Ici,
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
        ).slider(BYTES).unit(Unit::Bytes),
        "t" => dtype(t): dtype("dtype", "bf16", "the dtype whose peak the FLOPs run at"),
        "net" => num(net): number(
            "link bytes",
            "0",
            (0.0, 1e30),
            "0 or a number of bytes",
            "bytes per chip over the link (a collective; 0 for none): T_link = bytes / link bandwidth",
        ),
        "link" => choice(link): choice(
            "link",
            Link::IDS,
            "ici",
            "the link the link bytes go over: ici/nvlink the peer bandwidth, pcie the host link, dcn the network",
            "a link",
        ),
    }
    fn is_affine(&self, _key: &str) -> bool {
        true
    }
    fn cost(&self, chip: &Chip) -> Result<Cost, Error> {
        let mut c = Cost::at_peak(self.flops, self.t, chip)?;
        c.hbm_io(self.bytes, 0.0, chip.hbm);
        if self.net > 0.0 {
            c.push(self.link.resource(), self.net, self.link.bandwidth(chip)?);
        }
        Ok(c)
    }
    fn describe(&self) -> String {
        let mut s = format!(
            "custom: {} FLOPs over {} bytes ({})",
            n(self.flops),
            n(self.bytes),
            self.t.as_str()
        );
        if self.net > 0.0 {
            s.push_str(&format!(
                ", {} bytes over {}",
                n(self.net),
                self.link.as_str().to_ascii_uppercase()
            ));
        }
        s
    }
    fn flops_formula(&self) -> (String, String) {
        ("FLOPs".into(), n(self.flops))
    }
    fn bytes_formula(&self, r: Resource) -> Option<(String, String)> {
        if r == Resource::Hbm {
            Some(("bytes".into(), n(self.bytes)))
        } else if self.net > 0.0 && r == self.link.resource() {
            Some(("link bytes".into(), n(self.net)))
        } else {
            None
        }
    }
}
