use super::behavior::{check_kv_heads, n, MeasureKind, OpBehavior};
use crate::chip::Chip;
use crate::dtype::DType;
use crate::error::Error;
use crate::eval::Cost;
use crate::field::{choice, dtype, integer, size, SIZES};
use crate::resource::Resource;
use serde::{Deserialize, Serialize};

const YES_NO: &[&str] = &["yes", "no"];

id_enum! {
    /// Which passes of the kernel run (ids `fwd`, `bwd`, `fwdbwd`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
    pub enum Pass {
        /// The forward kernel: `Q·Kᵀ` and `P·V`, two matmuls per pair.
        #[default]
        Fwd = "fwd",
        /// The backward kernel (FlashAttention-2's): it recomputes `Q·Kᵀ`, then `dV = Pᵀ·dO`,
        /// `dP = dO·Vᵀ`, `dQ = dS·K` and `dK = dSᵀ·Q`: five matmuls, 2.5× the forward's.
        Bwd = "bwd",
        /// Forward then backward, as training runs them: seven matmuls, 3.5× the forward's
        /// (the FlashAttention papers' "fwd + bwd" count).
        FwdBwd = "fwdbwd",
    }
}

impl Pass {
    /// Matmuls per query–key pair and head: each `2·d` FLOPs.
    fn matmuls(self) -> f64 {
        match self {
            Pass::Fwd => 2.0,
            Pass::Bwd => 5.0,
            Pass::FwdBwd => 7.0,
        }
    }
    fn has_fwd(self) -> bool {
        self != Pass::Bwd
    }
    fn has_bwd(self) -> bool {
        self != Pass::Fwd
    }
}

const PASS_IDS: &[&str] = Pass::IDS;

/// A fused attention kernel (FlashAttention-style): `softmax(Q·Kᵀ)·V` for `B` sequences of
/// `H` query heads over `H_kv` key/value heads (grouped queries when `H_kv < H`), `S_q`
/// queries against `S_kv` keys of width `d`, the scores never written to HBM.
///
/// * FLOPs = `4·B·H·d·pairs` forward (Q·Kᵀ and P·V, 2 per multiply-accumulate each; softmax,
///   mask and rescaling ignored, as the scaling book does); `10·B·H·d·pairs` backward (five
///   matmuls, `Q·Kᵀ` recomputed), `14·B·H·d·pairs` both; with `pairs = S_q·S_kv`, or with `causal`
///   the pairs a causal mask keeps when the queries are the last `S_q` of the `S_kv`
///   positions: `S_q·S_kv − S_q·(S_q − 1)/2` (`S·(S+1)/2` for `S_q = S_kv = S`, the count the
///   `llm` op's prefill uses).
/// * HBM bytes = `s·B·d·(2·H·S_q + 2·H_kv·S_kv)` forward: Q and K, V read once, O written
///   once; backward `s·B·d·(4·H·S_q + 4·H_kv·S_kv)`: Q, K, V, O and dO read once, dQ, dK and
///   dV written once (the softmax statistics, 4 B per query row, not counted).
/// * intensity, `H_kv = H`, not causal: `4·S_q·S_kv / (2·s·(S_q + S_kv))`, the scaling book's
///   `S·T/(S + T)` in bf16.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Attention {
    /// Batch `B` (sequences).
    pub b: f64,
    /// Query heads `H`.
    pub heads: f64,
    /// Key/value heads `H_kv`.
    pub kv_heads: f64,
    /// Query length `S_q`.
    pub sq: f64,
    /// Key/value length `S_kv`.
    pub skv: f64,
    /// Head dimension `d`.
    pub head_dim: f64,
    /// A causal mask.
    pub causal: bool,
    /// Element dtype of Q, K, V and O (the tensor peak it runs at).
    pub x: DType,
    /// Forward, backward, or both.
    pub pass: Pass,
}

impl Default for Attention {
    fn default() -> Self {
        Attention {
            b: 1.0,
            heads: 32.0,
            kv_heads: 8.0,
            sq: 4096.0,
            skv: 4096.0,
            head_dim: 128.0,
            causal: true,
            x: DType::Bf16,
            pass: Pass::Fwd,
        }
    }
}

impl Attention {
    /// Query–key pairs per sequence and head.
    fn pairs(&self) -> f64 {
        let (q, k) = (self.sq, self.skv);
        if self.causal {
            q * k - q * (q - 1.0) / 2.0
        } else {
            q * k
        }
    }

    fn flops(&self) -> f64 {
        2.0 * self.pass.matmuls() * self.b * self.heads * self.head_dim * self.pairs()
    }

    /// Bytes read and written: forward Q, K, V in and O out; backward Q, K, V, O, dO in and
    /// dQ, dK, dV out.
    fn io(&self) -> (f64, f64) {
        let s = self.x.bytes();
        // One Q-sized tensor (Q, O, dO, dQ) and one K-sized one (K, V, dK, dV).
        let q = s * self.b * self.heads * self.sq * self.head_dim;
        let k = s * self.b * self.kv_heads * self.skv * self.head_dim;
        let (mut read, mut written) = (0.0, 0.0);
        if self.pass.has_fwd() {
            read += q + 2.0 * k;
            written += q;
        }
        if self.pass.has_bwd() {
            read += 3.0 * q + 2.0 * k;
            written += q + 2.0 * k;
        }
        (read, written)
    }
}

impl OpBehavior for Attention {
    op_fields! {
        "b" => num(b): size("B", "1", "batch B: sequences, each with its own Q, K and V").slider(SIZES),
        "heads" => num(heads): size("heads", "32", "query heads H: FLOPs 4·B·H·d·pairs"),
        "kv_heads" => num(kv_heads): size(
            "KV heads",
            "8",
            "key/value heads H_kv (H for multi-head attention, fewer for grouped queries): K and V bytes 2·s·B·H_kv·S_kv·d",
        ),
        "sq" => num(sq): size("S_q", "4096", "query length S_q (the new tokens: S_kv in prefill, 1 in decode)").slider(SIZES),
        "skv" => num(skv): size("S_kv", "4096", "key/value length S_kv (the positions attended to)").slider(SIZES),
        "head_dim" => num(head_dim): integer(
            "head dim",
            "128",
            (1.0, 65536.0),
            "a head dimension",
            "head dimension d",
        ),
        "causal" => yes_no(causal): choice(
            "causal",
            YES_NO,
            "yes",
            "yes: a causal mask, each query sees the positions up to its own (S_q·S_kv − S_q(S_q−1)/2 pairs); no: every pair",
            "yes or no",
        ),
        "x" => dtype(x): dtype("dtype", "bf16", "dtype of Q, K, V and O (s bytes each): the tensor peak it runs at"),
        "pass" => choice(pass): choice(
            "pass",
            PASS_IDS,
            "fwd",
            "fwd: the forward kernel (2 matmuls per pair); bwd: the backward (5, Q·Kᵀ recomputed); fwdbwd: both, as a training step runs them (7, the FlashAttention papers' 3.5 × forward)",
            "fwd, bwd or fwdbwd",
        ),
    }
    fn is_affine(&self, key: &str) -> bool {
        // FLOPs and bytes are linear in these; in S_q only without the mask (causal pairs are
        // quadratic in S_q).
        matches!(key, "b" | "heads" | "kv_heads" | "skv" | "head_dim")
            || (key == "sq" && !self.causal)
    }
    fn check_consistency(&self) -> Result<(), Error> {
        check_kv_heads(self.heads, self.kv_heads)?;
        if self.causal && self.sq > self.skv {
            return Err(Error::invalid(
                "sq",
                n(self.sq),
                format!(
                    "must be at most S_kv = {} with causal=yes (the queries are the last S_q positions)",
                    n(self.skv)
                ),
            ));
        }
        Ok(())
    }
    fn workload(&self) -> Option<MeasureKind> {
        Some(MeasureKind::Attention)
    }
    fn cost(&self, chip: &Chip) -> Result<Cost, Error> {
        let mut c = Cost::at_peak(self.flops(), self.x, chip)?;
        let (read, written) = self.io();
        c.hbm_io(read, written, chip.hbm);
        Ok(c)
    }
    fn describe(&self) -> String {
        format!(
            "attention{}: B={}, H={} (KV {}), S_q={} × S_kv={}, d={}{}, {}",
            match self.pass {
                Pass::Fwd => "",
                Pass::Bwd => " backward",
                Pass::FwdBwd => " forward + backward",
            },
            n(self.b),
            n(self.heads),
            n(self.kv_heads),
            n(self.sq),
            n(self.skv),
            n(self.head_dim),
            if self.causal { ", causal" } else { "" },
            self.x.as_str()
        )
    }
    fn flops_formula(&self) -> (String, String) {
        let pairs = if self.causal {
            (
                "(S_q·S_kv − S_q(S_q−1)/2)".to_string(),
                format!(
                    "({}·{} − {}·{}/2)",
                    n(self.sq),
                    n(self.skv),
                    n(self.sq),
                    n(self.sq - 1.0)
                ),
            )
        } else {
            (
                "S_q·S_kv".to_string(),
                format!("{}·{}", n(self.sq), n(self.skv)),
            )
        };
        let c = 2.0 * self.pass.matmuls();
        (
            format!("{}·B·H·d·{}", n(c), pairs.0),
            format!(
                "{}·{}·{}·{}·{}",
                n(c),
                n(self.b),
                n(self.heads),
                n(self.head_dim),
                pairs.1
            ),
        )
    }
    fn bytes_formula(&self, r: Resource) -> Option<(String, String)> {
        // Q-sized and K-sized tensors moved: forward 2 and 2, backward 4 and 4.
        let (cq, ck) = match self.pass {
            Pass::Fwd => (2.0, 2.0),
            Pass::Bwd => (4.0, 4.0),
            Pass::FwdBwd => (6.0, 6.0),
        };
        (r == Resource::Hbm).then(|| {
            (
                format!("s·B·d·({}·H·S_q + {}·H_kv·S_kv)", n(cq), n(ck)),
                format!(
                    "{}·{}·{}·({}·{}·{} + {}·{}·{})",
                    n(self.x.bytes()),
                    n(self.b),
                    n(self.head_dim),
                    n(cq),
                    n(self.heads),
                    n(self.sq),
                    n(ck),
                    n(self.kv_heads),
                    n(self.skv)
                ),
            )
        })
    }
    fn notes(&self, _chip: &str, out: &mut Vec<String>) {
        out.push(
            "A fused kernel: Q and K, V are read from HBM once, O written once, and the S_q × S_kv \
             scores stay on chip (scaling book, inference.md, \"What about attention?\": 2BSTD \
             FLOPs in each of the Q·K and attention·V matmuls; transformers.md, question 4: \
             intensity 4BTSKGH / (4BHK·(TG + S)) with G = H/H_kv). Softmax and masking FLOPs \
             are not counted."
                .into(),
        );
        if self.causal {
            let half = self.sq * self.skv / 2.0;
            out.push(format!(
                "Causal pairs counted exactly: the i-th of the last S_q queries sees S_kv − S_q + i \
                 keys, {} pairs per head here. The FlashAttention papers (Dao et al. 2022, Dao \
                 2023, Shah et al. 2024) count a causal kernel as half the full one, S_q·S_kv/2 = \
                 {} pairs, so a TFLOPs/s they report for a causal kernel is {} × the rate this \
                 count gives for the same time.",
                n(self.pairs()),
                n(half),
                crate::units::format_sig(half / self.pairs(), 6)
            ));
        }
        if self.pass.has_bwd() {
            out.push(
                "The backward pass (FlashAttention-2, Dao 2023, section 3.2 and its benchmark's \
                 3.5 × forward for forward + backward): the scores are recomputed from Q and K, \
                 then dV = Pᵀ·dO, dP = dO·Vᵀ, dQ = dS·K and dK = dSᵀ·Q, five matmuls of 2·d FLOPs \
                 per pair; it reads Q, K, V, O and dO once and writes dQ, dK and dV once (a \
                 kernel that accumulates dQ in FP32 across key blocks moves more). The softmax \
                 statistics, 4 B per query row, are not counted."
                    .into(),
            );
        }
        let g = self.heads / self.kv_heads;
        if g > 1.0 {
            out.push(format!(
                "Grouped queries: G = H/H_kv = {} query heads share each K and V head, so K and V \
                 are read once per group.",
                n(g)
            ));
        }
    }
}
