//! The `llm` step's decomposition into core operations (see [`Llm`] for the parts and their
//! formulas) and the derivation lines for its architecture (experts, MLA, windows).

use super::behavior::{n, Part, PartKind};
use super::llm::{InferenceStep, Llm, NORM_FLOPS};
use super::{Custom, Elementwise, Matmul, Op, OpKind, Split, WeightSource};
use crate::arch::Arch;
use crate::dtype::DType;
use crate::units::{format_quantity, format_sig, Unit};

/// The values of an `llm` step that depend on the batch `b` and the context `ctx`: the parts
/// read `b` and `ctx` only through them ([`Llm::parts_at`]). Each part's FLOPs and bytes are
/// linear in the ones a sweep of `b` or of `ctx` moves (the others held), which
/// [`super::llm_sweep`] uses to evaluate a sweep point without building the parts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct StepVars {
    /// Sequences `B`.
    pub b: f64,
    /// Tokens per step `T`: `B` (decode) or `B·S` (prefill).
    pub t: f64,
    /// Routed experts the step's tokens hit, `E·(1 − (1 − k/E)^T)` (0 for a dense model).
    pub hit: f64,
    /// Score pairs per sequence and head, on the global layers and on the windowed ones.
    pub pairs: [f64; 2],
    /// KV positions read per sequence, on the global layers and on the windowed ones.
    pub read: [f64; 2],
}

/// Score pairs of one sequence and head: decode `min(S, W)` (one query over the positions it
/// sees); prefill, causal, `Σ_{i=1..S} min(i, W)` = `S·(S+1)/2` without a window (`W ≥ S`),
/// else `W·(W+1)/2 + (S − W)·W`; verify, `q = k+1` queries of which the `i`-th (from 0) sees
/// `min(S + i, W)` positions (`q = 1` is decode): `m·S + m·(m−1)/2 + (q − m)·W` with
/// `m = clamp(W − S + 1, 0, q)` queries inside the window (`q·S + q·(q−1)/2` without one).
fn pairs(phase: InferenceStep, s: f64, w: f64, q: f64) -> f64 {
    match phase {
        InferenceStep::Decode => s.min(w),
        InferenceStep::Prefill if w >= s => s * (s + 1.0) / 2.0,
        InferenceStep::Prefill => w * (w + 1.0) / 2.0 + (s - w) * w,
        InferenceStep::Verify => {
            let m = (w - s + 1.0).clamp(0.0, q);
            // Without a window (`W` infinite) every query is inside it: no `0·∞` term.
            let outside = if m < q { (q - m) * w } else { 0.0 };
            m * s + m * (m - 1.0) / 2.0 + outside
        }
    }
}

impl Llm {
    fn matmul(&self, b: f64, d: f64, f: f64, split: Split) -> OpKind {
        OpKind::Matmul(Matmul {
            b,
            d,
            f,
            x: self.x,
            w: self.w,
            out: self.x,
            compute: None,
            shards: self.tp,
            split,
            link: self.link,
            // The tensor-parallel all-reduce as before the matmul's `topology` key.
            topology: Default::default(),
            from: WeightSource::Hbm,
            tiles: None,
        })
    }

    fn norm(&self, rows: f64) -> OpKind {
        OpKind::Elementwise(Elementwise {
            n: rows * self.shape.dmodel,
            flops: NORM_FLOPS,
            inputs: 1.0,
            t: self.x,
        })
    }

    fn custom(&self, flops: f64, bytes: f64, t: DType) -> OpKind {
        OpKind::Custom(Custom {
            flops,
            bytes,
            t,
            net: 0.0,
            link: self.link,
        })
    }

    /// Routed experts hit by the step's `T` tokens (uniform routing), `E·(1 − (1 − k/E)^T)`;
    /// 0 for a dense model.
    pub fn experts_hit(&self) -> f64 {
        self.arch()
            .moe
            .map_or(0.0, |m| m.expected_distinct(self.tokens()))
    }

    /// The parts of one step, per chip, in execution order (see [`Llm`]'s docs).
    pub fn parts(&self) -> Vec<Part> {
        self.parts_at(&self.step_vars(&self.arch()))
    }

    /// The values of the step that `b` and `ctx` reach (see [`StepVars`]).
    pub(crate) fn step_vars(&self, a: &Arch) -> StepVars {
        let w = a.window.map_or(f64::INFINITY, |x| x.size);
        let t = self.tokens();
        let s = self.ctx;
        // Positions read per sequence: decode (and verify) the cached ones seen; prefill
        // every key once.
        let read = |win: f64| match self.phase {
            InferenceStep::Decode | InferenceStep::Verify => s.min(win),
            InferenceStep::Prefill => s,
        };
        let q = self.spec_k + 1.0;
        StepVars {
            b: self.b,
            t,
            hit: a.moe.map_or(0.0, |m| m.expected_distinct(t)),
            pairs: [
                pairs(self.phase, s, f64::INFINITY, q),
                pairs(self.phase, s, w, q),
            ],
            read: [read(f64::INFINITY), read(w)],
        }
    }

    /// The parts of one step with the values `v` that depend on `b` and `ctx`: every formula
    /// reads the batch, the context and what follows from them only through `v`, so a sweep
    /// of `b` or `ctx` can read each part as a linear function of `v` ([`super::llm_sweep`]).
    pub(crate) fn parts_at(&self, vars: &StepVars) -> Vec<Part> {
        let a = self.arch();
        let (l, d, h) = (self.shape.layers, self.shape.dmodel, self.shape.head_dim);
        // Expert parallelism: each of the `ep` groups serves `B/ep` of the sequences (and their
        // tokens) through attention and the dense layers; the routed experts see every token.
        let ep = self.ep;
        let (b, nn) = (vars.b / ep, self.tp);
        let t = vars.t / ep;
        let hq = self.shape.heads / nn;
        let (sw, sx, skv) = (self.w.bytes(), self.x.bytes(), self.kv.bytes());
        let attn_t = DType::compute_default(self.x, self.kv);
        let ct = self.compute_dtype();
        let part = |name: &str, work: PartKind, kind: OpKind, repeat: f64| Part {
            name: name.to_string(),
            work,
            op: Op::labeled(name, kind),
            repeat,
        };
        let mut v = vec![
            part(
                "embedding gather",
                PartKind::Elementwise,
                self.custom(0.0, t * d * (sw + sx), ct),
                1.0,
            ),
            part("attention norm", PartKind::Norm, self.norm(t), l),
        ];
        match &a.mla {
            None => v.push(part(
                "QKV projection",
                PartKind::WeightMatmul,
                self.matmul(
                    t,
                    d,
                    (self.shape.heads + 2.0 * self.shape.kv_heads) * h,
                    Split::F,
                ),
                l,
            )),
            Some(m) => {
                let qk = m.qk_nope_head_dim + m.qk_rope_head_dim;
                let hh = self.shape.heads;
                if m.q_lora_rank > 0.0 {
                    let rq = m.q_lora_rank;
                    v.push(part(
                        "query down",
                        PartKind::WeightMatmul,
                        self.matmul(t, d, rq, Split::F),
                        l,
                    ));
                    v.push(part(
                        "query up",
                        PartKind::WeightMatmul,
                        self.matmul(t, rq, hh * qk, Split::F),
                        l,
                    ));
                } else {
                    v.push(part(
                        "query projection",
                        PartKind::WeightMatmul,
                        self.matmul(t, d, hh * qk, Split::F),
                        l,
                    ));
                }
                let r = m.kv_lora_rank;
                v.push(part(
                    "KV down (latent)",
                    PartKind::WeightMatmul,
                    self.matmul(t, d, r + m.qk_rope_head_dim, Split::F),
                    l,
                ));
                v.push(part(
                    "KV up (absorbed)",
                    PartKind::WeightMatmul,
                    self.matmul(t, r, hh * (m.qk_nope_head_dim + m.v_head_dim), Split::F),
                    l,
                ));
            }
        }
        // Attention over the cache: the global layers, then the windowed ones.
        let lw = a.window_layers();
        let w = a.window.map_or(f64::INFINITY, |x| x.size);
        let mut groups: Vec<(String, f64, usize)> = Vec::new();
        if lw < l {
            groups.push((String::new(), l - lw, 0));
        }
        if lw > 0.0 {
            groups.push((format!(" (window {})", n(w)), lw, 1));
        }
        for (suffix, rep, g) in groups {
            let (p, read) = (vars.pairs[g], vars.read[g]);
            match &a.mla {
                None => {
                    let hk = self.shape.kv_heads / nn;
                    let attn_flops = 2.0 * b * hq * h * p;
                    let q_bytes = sx * t * hq * h;
                    let cache_bytes = skv * b * hk * read * h;
                    v.push(part(
                        &format!("attention scores Q·Kᵀ{suffix}"),
                        PartKind::Attention,
                        self.custom(attn_flops, q_bytes + cache_bytes, attn_t),
                        rep,
                    ));
                    v.push(part(
                        &format!("attention values P·V{suffix}"),
                        PartKind::Attention,
                        self.custom(attn_flops, cache_bytes + q_bytes, attn_t),
                        rep,
                    ));
                }
                Some(m) => {
                    let (r, dr) = (m.kv_lora_rank, m.qk_rope_head_dim);
                    let latent = skv * b * (r + dr) * read;
                    v.push(part(
                        &format!("attention scores over the latent{suffix}"),
                        PartKind::Attention,
                        self.custom(
                            2.0 * b * hq * (r + dr) * p,
                            sx * t * hq * (r + dr) + latent,
                            attn_t,
                        ),
                        rep,
                    ));
                    v.push(part(
                        &format!("attention values over the latent{suffix}"),
                        PartKind::Attention,
                        self.custom(2.0 * b * hq * r * p, sx * t * hq * r, attn_t),
                        rep,
                    ));
                }
            }
        }
        let v_dim = a.mla.map_or(h, |m| m.v_head_dim);
        v.push(part(
            "output projection",
            PartKind::WeightMatmul,
            self.matmul(t, self.shape.heads * v_dim, d, Split::D),
            l,
        ));
        v.push(part("MLP norm", PartKind::Norm, self.norm(t), l));
        let ld = a.dense_mlp_layers();
        if ld > 0.0 {
            let ff = self.shape.ffn;
            if self.shape.gated {
                v.push(part(
                    "MLP gate",
                    PartKind::WeightMatmul,
                    self.matmul(t, d, ff, Split::F),
                    ld,
                ));
            }
            v.push(part(
                "MLP up",
                PartKind::WeightMatmul,
                self.matmul(t, d, ff, Split::F),
                ld,
            ));
            v.push(part(
                "MLP down",
                PartKind::WeightMatmul,
                self.matmul(t, ff, d, Split::D),
                ld,
            ));
        }
        if let Some(m) = &a.moe {
            let lm = a.moe_layers();
            let mats = if self.shape.gated { 3.0 } else { 2.0 };
            v.push(part(
                "router",
                PartKind::WeightMatmul,
                self.matmul(t, d, m.experts, Split::F),
                lm,
            ));
            if m.shared_experts > 0.0 {
                let p = m.shared_experts * mats * d * m.shared_ffn / nn;
                v.push(part(
                    "shared experts",
                    PartKind::WeightMatmul,
                    self.custom(2.0 * t * p, sw * p + sx * t * 2.0 * d, ct),
                    lm,
                ));
            }
            let pe = mats * d * m.expert_ffn / nn;
            // A group holds E/ep experts and receives, on average, the T·k/ep token slots
            // routed to them (t·k with t = T/ep); under uniform routing it reads the experts
            // hit among its own: E/ep·(1 − (1 − k/E)^T) = hit/ep.
            let hit = vars.hit / ep;
            v.push(part(
                "routed experts",
                PartKind::WeightMatmul,
                self.custom(
                    2.0 * t * m.top_k * pe,
                    sw * hit * pe + sx * t * m.top_k * 2.0 * d,
                    ct,
                ),
                lm,
            ));
            if nn > 1.0 {
                let mut ar = Custom {
                    flops: 0.0,
                    bytes: sx * t * d * 2.0,
                    t: ct,
                    net: 2.0 * (nn - 1.0) / nn * sx * t * d,
                    link: self.link,
                };
                if ar.bytes <= 0.0 {
                    ar.net = 0.0;
                }
                v.push(part(
                    "MoE all-reduce",
                    PartKind::Communication,
                    OpKind::Custom(ar),
                    lm,
                ));
            }
            if ep > 1.0 {
                // Dispatch (tokens to their experts' groups) and combine (back): the AllToAll
                // of V = ep·t·k·D·s_x/n bytes (every group's token slots, split over its n
                // chips), as training's expert parallelism counts it; each chip sends the
                // (ep − 1)/ep of its V/ep that leaves its group: (ep − 1)·V/ep² bytes, over
                // `link` (the collectives' switched-node AllToAll, (n−1)·V/(n²·W)).
                let slots = t * m.top_k * d * sx / nn;
                let a2a = Custom {
                    flops: 0.0,
                    bytes: 2.0 * slots,
                    t: ct,
                    net: (ep - 1.0) / ep * slots,
                    link: self.link,
                };
                v.push(part(
                    "AllToAll dispatch",
                    PartKind::Communication,
                    OpKind::Custom(a2a),
                    lm,
                ));
                v.push(part(
                    "AllToAll combine",
                    PartKind::Communication,
                    OpKind::Custom(a2a),
                    lm,
                ));
            }
        }
        // The logits of each sequence's last position; verify needs all T.
        let rows = if self.phase == InferenceStep::Verify {
            t
        } else {
            b
        };
        v.push(part("final norm", PartKind::Norm, self.norm(rows), 1.0));
        v.push(part(
            "LM head",
            PartKind::WeightMatmul,
            self.matmul(rows, d, self.shape.vocab, Split::F),
            1.0,
        ));
        v
    }

    /// Derivation lines for what the architecture adds to a dense GQA model: active
    /// parameters, the experts a step reads, the MLA cache, windows, memory per sequence.
    pub(crate) fn arch_notes(&self, out: &mut Vec<String>) {
        let a = self.arch();
        let sig = |x: f64| format_sig(x, 4);
        if let Some(m) = &a.moe {
            let t = self.tokens();
            out.push(format!(
                "Mixture of experts: {} MoE layers of E = {} routed experts (top k = {}, width F_e = {}){}{}; active parameters per token {} ({}) of {} total. Every expert is resident in memory.",
                n(a.moe_layers()),
                n(m.experts),
                n(m.top_k),
                n(m.expert_ffn),
                if m.shared_experts > 0.0 {
                    format!(" plus {} shared of width {}", n(m.shared_experts), n(m.shared_ffn))
                } else {
                    String::new()
                },
                if m.dense_layers > 0.0 {
                    format!("; {} dense layers with an MLP of width F = {}", n(m.dense_layers), n(self.shape.ffn))
                } else {
                    String::new()
                },
                crate::units::format_exact(self.active_params()),
                format_quantity(self.active_params(), Unit::Count),
                format_quantity(self.params(), Unit::Count),
            ));
            out.push(format!(
                "Routed experts read per step: {}. Each token runs k experts: FLOPs 2·T·k·P_e per MoE layer (P_e = {} matrix parameters per expert{}), bytes s_w·{}·P_e of weights plus 2·s_x·T·k·D of activations.",
                m.distinct_line(t),
                n(if self.shape.gated { 3.0 } else { 2.0 } * self.shape.dmodel * m.expert_ffn),
                if self.tp > 1.0 {
                    format!(", split {} ways by tensor parallelism", n(self.tp))
                } else {
                    String::new()
                },
                sig(m.expected_distinct(t)),
            ));
            if self.tp > 1.0 {
                out.push(format!(
                    "Each MoE layer's output partial sums are all-reduced over {}: 2·(n−1)/n·s_x·T·D bytes per chip (the part \"MoE all-reduce\").",
                    self.link.as_str().to_ascii_uppercase()
                ));
            }
        }
        if let Some(m) = &a.mla {
            out.push(format!(
                "Multi-head latent attention: the cache holds the latent of rank r = {} plus the shared RoPE key d_r = {}: {} elements per layer and position (GQA would hold 2·K·h); decoding attends over it directly (absorbed form): scores 2·H·(r + d_r) and values 2·H·r FLOPs per position, head and layer. The latent is replicated on every tensor-parallel chip.",
                n(m.kv_lora_rank),
                n(m.qk_rope_head_dim),
                n(m.kv_lora_rank + m.qk_rope_head_dim),
            ));
        }
        if let Some(w) = &a.window {
            out.push(format!(
                "Sliding window W = {} on {} of {} layers: they cache and (in decode) read min(S, W) = {} positions per sequence; prefill computes Σ min(i, W) scores per sequence and head.",
                n(w.size),
                n(w.layers),
                n(self.shape.layers),
                n(self.ctx.min(w.size)),
            ));
        }
        out.push(format!(
            "KV cache per sequence at S = {}: {} bytes per chip ({}).",
            n(self.ctx),
            crate::units::format_exact(self.kv_bytes_per_seq(self.ctx)),
            format_quantity(self.kv_bytes_per_seq(self.ctx), Unit::Bytes),
        ));
    }
}
