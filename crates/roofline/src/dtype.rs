//! Data types and the chip peak each one computes at.

use crate::error::Error;
use serde::{Deserialize, Serialize};
use std::str::FromStr;

id_enum! {
    /// A numeric data type: its storage size and which chip peak it uses.
    ///
    /// Ids (for [`FromStr`], [`DType::as_str`] and serde): `fp32 tf32 bf16 fp16 fp8 fp8e5m2 int8
    /// int4 fp4`; `fp8` is e4m3 (`fp8e4m3` is also accepted when parsing).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
    pub enum DType {
        /// IEEE float32, 4 bytes.
        Fp32 = "fp32",
        /// TensorFloat-32: stored as 4 bytes (fp32 layout), computed on the chip's `tf32` peak.
        Tf32 = "tf32",
        /// bfloat16, 2 bytes.
        Bf16 = "bf16",
        /// IEEE float16, 2 bytes.
        Fp16 = "fp16",
        /// 8-bit float e4m3 (id `fp8`), 1 byte, chip's `fp8` peak.
        #[serde(alias = "fp8e4m3")]
        Fp8E4m3 = "fp8",
        /// 8-bit float e5m2 (id `fp8e5m2`), 1 byte, chip's `fp8` peak.
        Fp8E5m2 = "fp8e5m2",
        /// 8-bit integer, 1 byte.
        Int8 = "int8",
        /// 4-bit integer, 0.5 byte.
        Int4 = "int4",
        /// 4-bit float, 0.5 byte.
        Fp4 = "fp4",
    }
}

impl DType {
    /// A display label, e.g. `fp8 (e4m3)`.
    pub fn label(self) -> &'static str {
        match self {
            DType::Fp8E4m3 => "fp8 (e4m3)",
            DType::Fp8E5m2 => "fp8 (e5m2)",
            other => other.as_str(),
        }
    }

    /// Storage size in bytes `s`: 4 (fp32, tf32), 2 (bf16, fp16), 1 (fp8, int8), 0.5 (int4, fp4).
    pub fn bytes(self) -> f64 {
        match self {
            DType::Fp32 | DType::Tf32 => 4.0,
            DType::Bf16 | DType::Fp16 => 2.0,
            DType::Fp8E4m3 | DType::Fp8E5m2 | DType::Int8 => 1.0,
            DType::Int4 | DType::Fp4 => 0.5,
        }
    }

    /// Which chip peak computations in this dtype use (both fp8 variants use `fp8`).
    pub fn peak_key(self) -> PeakKey {
        match self {
            DType::Fp32 => PeakKey::Fp32,
            DType::Tf32 => PeakKey::Tf32,
            DType::Bf16 => PeakKey::Bf16,
            DType::Fp16 => PeakKey::Fp16,
            DType::Fp8E4m3 | DType::Fp8E5m2 => PeakKey::Fp8,
            DType::Int8 => PeakKey::Int8,
            DType::Int4 => PeakKey::Int4,
            DType::Fp4 => PeakKey::Fp4,
        }
    }

    /// Precision rank used to pick the wider of two inputs (fp32 > tf32 > bf16 = fp16 > fp8 >
    /// int8 > fp4 > int4).
    fn rank(self) -> u8 {
        match self {
            DType::Fp32 => 8,
            DType::Tf32 => 7,
            DType::Bf16 | DType::Fp16 => 6,
            DType::Fp8E4m3 | DType::Fp8E5m2 => 4,
            DType::Int8 => 3,
            DType::Fp4 => 2,
            DType::Int4 => 1,
        }
    }

    /// The default compute dtype of a product `x × w`.
    ///
    /// int8 × int8 → int8, fp8 × fp8 → fp8 (the variant of `x`), otherwise the wider input
    /// (bf16 × int8 → bf16, int8 × int4 → int8); a tie of equal rank keeps `x` (the
    /// activations): bf16 × fp16 → bf16.
    pub fn compute_default(x: DType, w: DType) -> DType {
        if x.peak_key() == w.peak_key() {
            return x;
        }
        if w.rank() > x.rank() {
            w
        } else {
            x
        }
    }
}

impl FromStr for DType {
    type Err = Error;
    /// Reads an id (case-insensitive, surrounding whitespace ignored); also `fp8e4m3`, `e4m3`,
    /// `e5m2`, `f32`, `float32`, `bfloat16`, `f16`, `float16`, `half`, `i8`, `i4`.
    fn from_str(s: &str) -> Result<Self, Error> {
        let l = s.trim().to_ascii_lowercase();
        Ok(match l.as_str() {
            "fp32" | "f32" | "float32" => DType::Fp32,
            "tf32" => DType::Tf32,
            "bf16" | "bfloat16" => DType::Bf16,
            "fp16" | "f16" | "float16" | "half" => DType::Fp16,
            "fp8" | "fp8e4m3" | "e4m3" | "fp8_e4m3" => DType::Fp8E4m3,
            "fp8e5m2" | "e5m2" | "fp8_e5m2" => DType::Fp8E5m2,
            "int8" | "i8" => DType::Int8,
            "int4" | "i4" => DType::Int4,
            "fp4" => DType::Fp4,
            _ => {
                return Err(Error::parse(
                    s,
                    "unknown dtype; expected one of fp32 tf32 bf16 fp16 fp8 fp8e5m2 int8 int4 fp4",
                ))
            }
        })
    }
}

id_enum! {
    /// The eight dense peaks a chip may publish; each [`DType`] maps to one via
    /// [`DType::peak_key`]. Ids: `fp32 tf32 bf16 fp16 fp8 int8 int4 fp4`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
    pub enum PeakKey {
        /// float32 peak.
        Fp32 = "fp32",
        /// TensorFloat-32 peak.
        Tf32 = "tf32",
        /// bfloat16 peak.
        Bf16 = "bf16",
        /// float16 peak.
        Fp16 = "fp16",
        /// fp8 peak (e4m3 and e5m2).
        Fp8 = "fp8",
        /// int8 peak (OPs/s).
        Int8 = "int8",
        /// int4 peak (OPs/s).
        Int4 = "int4",
        /// fp4 peak.
        Fp4 = "fp4",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip() {
        for d in DType::ALL {
            assert_eq!(d.as_str().parse::<DType>().unwrap(), d);
        }
        assert_eq!("fp8e4m3".parse::<DType>().unwrap(), DType::Fp8E4m3);
        assert!("fp9".parse::<DType>().is_err());
    }

    #[test]
    fn compute_defaults() {
        use DType::*;
        assert_eq!(DType::compute_default(Int8, Int8), Int8);
        assert_eq!(DType::compute_default(Fp8E4m3, Fp8E5m2), Fp8E4m3);
        assert_eq!(DType::compute_default(Bf16, Int8), Bf16);
        assert_eq!(DType::compute_default(Int8, Bf16), Bf16);
        assert_eq!(DType::compute_default(Bf16, Fp16), Bf16);
        assert_eq!(DType::compute_default(Int8, Int4), Int8);
    }
}
