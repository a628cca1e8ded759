use super::behavior::{n, Composite, OpBehavior, Part};
use super::{Custom, Elementwise, Link, Matmul, Op, OpKind, Split, WeightSource};
use crate::chip::Chip;
use crate::dtype::DType;
use crate::error::Error;
use crate::eval::Cost;
use crate::field::{choice, dtype, integer, parse_choice, size, FieldSpec};
use crate::resource::Resource;
use crate::units::{format_exact, format_quantity, Unit};
use serde::{Deserialize, Serialize};

/// A transformer architecture preset, with the source of its numbers.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct LlmPreset {
    /// The id (`llama3-8b`), the value of the `preset` field.
    pub id: &'static str,
    /// Display name (`Llama-3 8B`).
    pub name: &'static str,
    /// Transformer layers `L`.
    pub layers: f64,
    /// Model width `D` (d_model).
    pub dmodel: f64,
    /// MLP hidden width `F`.
    pub ffn: f64,
    /// Gated MLP (3 matrices: gate, up, down) or not (2: up, down).
    pub gated: bool,
    /// Query heads `H`.
    pub heads: f64,
    /// Key/value heads `K` (grouped-query attention: `H/K` query heads share one).
    pub kv_heads: f64,
    /// Head dimension `h`.
    pub head_dim: f64,
    /// Vocabulary size `V`.
    pub vocab: f64,
    /// Where the numbers come from.
    pub source: &'static str,
}

static PRESETS: [LlmPreset; 2] = [
    LlmPreset {
        id: "llama3-8b",
        name: "Llama-3 8B",
        layers: 32.0,
        dmodel: 4096.0,
        ffn: 14336.0,
        gated: true,
        heads: 32.0,
        kv_heads: 8.0,
        head_dim: 128.0,
        vocab: 128256.0,
        source: concat!(
            "Meta Llama 3 model card (github.com/meta-llama/llama3, MODEL_CARD.md) and config.json of ",
            "meta-llama/Meta-Llama-3-8B on the Hugging Face hub: num_hidden_layers 32, hidden_size 4096, ",
            "intermediate_size 14336 (SwiGLU: gate, up, down), num_attention_heads 32, num_key_value_heads 8 ",
            "(GQA), head_dim 4096/32 = 128, vocab_size 128256, untied embeddings; 8.03e9 parameters"
        ),
    },
    LlmPreset {
        id: "llama3-70b",
        name: "Llama-3 70B",
        layers: 80.0,
        dmodel: 8192.0,
        ffn: 28672.0,
        gated: true,
        heads: 64.0,
        kv_heads: 8.0,
        head_dim: 128.0,
        vocab: 128256.0,
        source: concat!(
            "Meta Llama 3 model card (github.com/meta-llama/llama3, MODEL_CARD.md) and config.json of ",
            "meta-llama/Meta-Llama-3-70B on the Hugging Face hub: num_hidden_layers 80, hidden_size 8192, ",
            "intermediate_size 28672 (SwiGLU: gate, up, down), num_attention_heads 64, num_key_value_heads 8 ",
            "(GQA), head_dim 8192/64 = 128, vocab_size 128256, untied embeddings; 70.6e9 parameters"
        ),
    },
];

/// The transformer presets: `llama3-8b`, `llama3-70b`.
pub fn llm_presets() -> &'static [LlmPreset] {
    &PRESETS
}

id_enum! {
    /// Which step of inference (ids `decode`, `prefill`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
    pub enum Phase {
        /// One new token per sequence: `T = B` tokens per step; attention reads the KV cache
        /// of `ctx` positions per sequence.
        #[default]
        Decode = "decode",
        /// The whole prompt: `T = B·ctx` tokens per step; causal attention (query `i` sees
        /// keys `1..=i`: `ctx·(ctx+1)/2` scores per sequence and head, about half the score
        /// matrix).
        Prefill = "prefill",
    }
}

const PRESET_IDS: &[&str] = &["llama3-8b", "llama3-70b", "custom"];
const YES_NO: &[&str] = &["yes", "no"];

/// FLOPs per element of an RMSNorm: square, accumulate, scale by `1/rms`, multiply by `γ`.
pub(crate) const NORM_FLOPS: f64 = 4.0;

/// A transformer inference step (decode or prefill), analysed the chapter's way: decomposed
/// into core operations, each on its own roofline, and summed (see [`crate::workload`]).
///
/// Notation: `L` layers, `D` d_model, `F` ffn width, `H` query heads, `K` KV heads, `h` head
/// dim, `V` vocabulary, `B` sequences, `S` context, `n` tensor-parallel chips, `s_w s_x s_kv`
/// bytes per weight, activation and KV-cache element; `T` tokens per step (`B` in decode,
/// `B·S` in prefill). Per chip, parts (per layer × `L` unless noted):
///
/// * embedding gather (once): reads only the `T` rows used, `T·D·(s_w + s_x)` bytes, 0 FLOPs;
/// * attention norm, MLP norm: RMSNorm on `T·D` elements (4 FLOPs each);
/// * QKV projection: matmul `[T,D]·[D,(H+2K)·h]`, split along F (columns) over `n` chips;
/// * attention scores `Q·Kᵀ` and values `P·V`, per sequence (each sequence has its own KV
///   cache, like per-example weights): FLOPs `2·B·(H/n)·h·pairs` each, with `pairs = S`
///   (decode) or `S·(S+1)/2` (prefill, causal); bytes `s_x·T·(H/n)·h` (Q read, or O
///   written) plus `s_kv·B·(K/n)·S·h` (the K or V cache, read once): intensity ≈
///   `2·(H/K)/s_kv` in decode (the GQA ratio in bf16) whatever `B` is. A fused
///   (FlashAttention-style) kernel is assumed: the score matrix stays on chip;
/// * output projection `[T,H·h]·[H·h,D]` and MLP down `[T,F]·[F,D]`, split along D (rows)
///   over `n` chips: their partial sums are all-reduced over `link`, `2·(n−1)/n·s_x·T·D`
///   bytes per chip each (two all-reduces per layer), as a D-sharded [`Matmul`];
/// * MLP gate and up (or only up when not gated) `[T,D]·[D,F]`, split along F;
/// * final norm and LM head `[B,D]·[D,V]` (once; the logits of the last position of each
///   sequence: `B` rows in both phases), split along V.
///
/// Elementwise work besides the norms (activation, residual adds, RoPE, softmax) is assumed
/// fused into neighbouring kernels and not counted, nor are the norm weights' `2·L·D + D`
/// parameters in traffic. Memory per chip: all weights (the sharded ones `/n`, norms
/// replicated) plus the KV cache `2·L·K·h·S·B·s_kv / n`.
///
/// The `preset` field is derived: `llama3-8b` or `llama3-70b` when the architecture fields
/// equal that preset's, else `custom`; setting `preset` to a preset id fills the
/// architecture, `custom` changes nothing.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Llm {
    /// Transformer layers `L`.
    pub layers: f64,
    /// Model width `D`.
    pub dmodel: f64,
    /// MLP hidden width `F`.
    pub ffn: f64,
    /// Gated MLP (gate, up, down) or not (up, down).
    pub gated: bool,
    /// Query heads `H`.
    pub heads: f64,
    /// Key/value heads `K`.
    pub kv_heads: f64,
    /// Head dimension `h`.
    pub head_dim: f64,
    /// Vocabulary `V`.
    pub vocab: f64,
    /// Batch `B`, in sequences.
    pub b: f64,
    /// Context length `S` (KV-cache positions per sequence; prompt length in prefill).
    pub ctx: f64,
    /// Decode or prefill.
    pub phase: Phase,
    /// Weight dtype.
    pub w: DType,
    /// Activation dtype.
    pub x: DType,
    /// KV-cache dtype.
    pub kv: DType,
    /// Tensor-parallel degree `n` (chips).
    pub tp: f64,
    /// The link the all-reduces use when `tp > 1`.
    pub link: Link,
}

impl Default for Llm {
    /// Llama-3 8B, decode, B=1, ctx 2048, bf16 everywhere, tp 1.
    fn default() -> Self {
        let mut l = Llm {
            layers: 0.0,
            dmodel: 0.0,
            ffn: 0.0,
            gated: true,
            heads: 0.0,
            kv_heads: 0.0,
            head_dim: 0.0,
            vocab: 0.0,
            b: 1.0,
            ctx: 2048.0,
            phase: Phase::Decode,
            w: DType::Bf16,
            x: DType::Bf16,
            kv: DType::Bf16,
            tp: 1.0,
            link: Link::Ici,
        };
        l.apply_preset(&PRESETS[0]);
        l
    }
}

impl Llm {
    /// The preset whose architecture equals this one, if any.
    pub fn preset(&self) -> Option<&'static LlmPreset> {
        PRESETS.iter().find(|p| {
            p.layers == self.layers
                && p.dmodel == self.dmodel
                && p.ffn == self.ffn
                && p.gated == self.gated
                && p.heads == self.heads
                && p.kv_heads == self.kv_heads
                && p.head_dim == self.head_dim
                && p.vocab == self.vocab
        })
    }

    /// The value of the `preset` field: a preset id or `custom`.
    pub fn preset_id(&self) -> &'static str {
        self.preset().map_or("custom", |p| p.id)
    }

    /// Sets the architecture fields from a preset (batch, context, phase, dtypes and
    /// parallelism are kept).
    pub fn apply_preset(&mut self, p: &LlmPreset) {
        self.layers = p.layers;
        self.dmodel = p.dmodel;
        self.ffn = p.ffn;
        self.gated = p.gated;
        self.heads = p.heads;
        self.kv_heads = p.kv_heads;
        self.head_dim = p.head_dim;
        self.vocab = p.vocab;
    }

    /// Sets the `preset` field: a preset id fills the architecture, `custom` changes nothing.
    fn set_preset(&mut self, spec: &FieldSpec, text: &str) -> Result<(), Error> {
        if let Some(p) = PRESETS.get(parse_choice(spec, text)?) {
            self.apply_preset(p);
        }
        Ok(())
    }

    /// Tokens processed per step: `B` (decode) or `B·ctx` (prefill).
    pub fn tokens(&self) -> f64 {
        match self.phase {
            Phase::Decode => self.b,
            Phase::Prefill => self.b * self.ctx,
        }
    }

    fn mlp_mats(&self) -> f64 {
        if self.gated {
            3.0
        } else {
            2.0
        }
    }

    /// Parameters of the matrices split by tensor parallelism: per layer `D·(H+2K)·h +
    /// H·h·D + (3 or 2)·D·F`, plus the LM head and the embedding table (`V·D` each).
    pub fn sharded_params(&self) -> f64 {
        let (d, h) = (self.dmodel, self.head_dim);
        let per_layer = d * (self.heads + 2.0 * self.kv_heads) * h
            + self.heads * h * d
            + self.mlp_mats() * d * self.ffn;
        self.layers * per_layer + 2.0 * self.vocab * d
    }

    /// Norm weights (replicated on every chip): `2·L·D + D`.
    pub fn norm_params(&self) -> f64 {
        (2.0 * self.layers + 1.0) * self.dmodel
    }

    /// All parameters (Llama-3 8B: 8,030,261,248; 70B: 70,553,706,496).
    pub fn params(&self) -> f64 {
        self.sharded_params() + self.norm_params()
    }

    /// Weight bytes resident per chip: `s_w·(sharded/n + norms)`.
    pub fn weight_bytes(&self) -> f64 {
        self.w.bytes() * (self.sharded_params() / self.tp + self.norm_params())
    }

    /// KV-cache bytes per chip: `2·L·K·h·S·B·s_kv / n`.
    pub fn kv_bytes(&self) -> f64 {
        2.0 * self.layers * self.kv_heads * self.head_dim * self.ctx * self.b * self.kv.bytes()
            / self.tp
    }

    /// The dtype the projections compute in (default rule of `x × w`): the peak the
    /// aggregate is reported against.
    pub fn compute_dtype(&self) -> DType {
        DType::compute_default(self.x, self.w)
    }

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
            n: rows * self.dmodel,
            flops: NORM_FLOPS,
            inputs: 1.0,
            t: self.x,
        })
    }

    /// The parts of one step, per chip, in execution order (see the type's docs).
    pub fn parts(&self) -> Vec<Part> {
        let (l, d, ff, h) = (self.layers, self.dmodel, self.ffn, self.head_dim);
        let (b, s, nn) = (self.b, self.ctx, self.tp);
        let t = self.tokens();
        let (hq, hk) = (self.heads / nn, self.kv_heads / nn);
        let (sx, skv) = (self.x.bytes(), self.kv.bytes());
        let pairs = match self.phase {
            Phase::Decode => s,
            Phase::Prefill => s * (s + 1.0) / 2.0,
        };
        let attn_flops = 2.0 * b * hq * h * pairs;
        let q_bytes = sx * t * hq * h;
        let cache_bytes = skv * b * hk * s * h;
        let attn_t = DType::compute_default(self.x, self.kv);
        let custom = |flops: f64, bytes: f64, t: DType| OpKind::Custom(Custom { flops, bytes, t });
        let part = |name: &str, kind: OpKind, repeat: f64| Part {
            name: name.to_string(),
            op: Op::labeled(name, kind),
            repeat,
        };
        let mut v = vec![
            part(
                "embedding gather",
                custom(0.0, t * d * (self.w.bytes() + sx), self.compute_dtype()),
                1.0,
            ),
            part("attention norm", self.norm(t), l),
            part(
                "QKV projection",
                self.matmul(t, d, (self.heads + 2.0 * self.kv_heads) * h, Split::F),
                l,
            ),
            part(
                "attention scores Q·Kᵀ",
                custom(attn_flops, q_bytes + cache_bytes, attn_t),
                l,
            ),
            part(
                "attention values P·V",
                custom(attn_flops, cache_bytes + q_bytes, attn_t),
                l,
            ),
            part(
                "output projection",
                self.matmul(t, self.heads * h, d, Split::D),
                l,
            ),
            part("MLP norm", self.norm(t), l),
        ];
        if self.gated {
            v.push(part("MLP gate", self.matmul(t, d, ff, Split::F), l));
        }
        v.push(part("MLP up", self.matmul(t, d, ff, Split::F), l));
        v.push(part("MLP down", self.matmul(t, ff, d, Split::D), l));
        v.push(part("final norm", self.norm(b), 1.0));
        v.push(part(
            "LM head",
            self.matmul(b, d, self.vocab, Split::F),
            1.0,
        ));
        v
    }

    fn name(&self) -> String {
        match self.preset() {
            Some(p) => p.name.to_string(),
            None => format!(
                "LLM (L={}, D={}, F={}{}, H={}, K={}, h={}, V={})",
                n(self.layers),
                n(self.dmodel),
                n(self.ffn),
                if self.gated { " gated" } else { "" },
                n(self.heads),
                n(self.kv_heads),
                n(self.head_dim),
                n(self.vocab)
            ),
        }
    }
}

impl OpBehavior for Llm {
    op_fields! {
        "preset" => derived(preset_id, set_preset): choice(
            "model",
            PRESET_IDS,
            "llama3-8b",
            "architecture preset (fills layers … vocab); editing any of those makes it custom",
            "a model preset",
        ),
        "b" => num(b): size(
            "B (sequences)",
            "1",
            "batch B in sequences: decode processes T = B tokens per step, prefill T = B·ctx",
        ),
        "ctx" => num(ctx): size(
            "context",
            "2048",
            "context length S: KV-cache positions read per sequence in decode; prompt length in prefill",
        ),
        "phase" => choice(phase): choice(
            "phase",
            Phase::IDS,
            "decode",
            "decode: one new token per sequence (T = B); prefill: the whole prompt (T = B·ctx), causal attention",
            "a phase",
        ),
        "w" => dtype(w): dtype("weights", "bf16", "weight dtype: s_w bytes per parameter"),
        "x" => dtype(x): dtype("activations", "bf16", "activation dtype: s_x bytes per element"),
        "kv" => dtype(kv): dtype(
            "KV cache",
            "bf16",
            "KV-cache dtype: 2·L·K·h·S·s_kv bytes per sequence",
        ),
        "tp" => num(tp): integer(
            "tensor parallel",
            "1",
            (1.0, 1e6),
            "a whole number of chips",
            "tensor-parallel degree n: weights, heads and KV cache split n ways; 2 all-reduces of 2·(n−1)/n·s_x·T·D bytes per chip per layer",
        ),
        "link" => choice(link): choice(
            "link",
            Link::IDS,
            "ici",
            "link for the tensor-parallel all-reduces: ici/nvlink use the peer bandwidth, pcie the host link, dcn the network",
            "a link",
        ),
        "layers" => num(layers): size(
            "layers",
            "32",
            "transformer layers L: per-layer parts repeat L times",
        ),
        "dmodel" => num(dmodel): size("d_model", "4096", "model width D"),
        "ffn" => num(ffn): size("ffn", "14336", "MLP hidden width F"),
        "gated" => yes_no(gated): choice(
            "gated MLP",
            YES_NO,
            "yes",
            "yes: gate, up and down matrices (SwiGLU, 3·D·F parameters); no: up and down (2·D·F)",
            "yes or no",
        ),
        "heads" => num(heads): size("heads", "32", "query heads H"),
        "kv_heads" => num(kv_heads): size(
            "KV heads",
            "8",
            "key/value heads K (GQA: H/K query heads share one; attention intensity ≈ H/K in bf16)",
        ),
        "head_dim" => num(head_dim): size("head dim", "128", "head dimension h"),
        "vocab" => num(vocab): size(
            "vocabulary",
            "128256",
            "vocabulary V: LM head [D,V]; the embedding table is only gathered (T rows)",
        ),
    }
    fn cost(&self, chip: &Chip) -> Result<Cost, Error> {
        self.composite_parts().summed_cost(chip)
    }
    fn describe(&self) -> String {
        let mut s = format!(
            "{} {}: B={}, ctx {}, T={} tokens per step, w {} / x {} / kv {}",
            self.name(),
            self.phase.as_str(),
            n(self.b),
            n(self.ctx),
            n(self.tokens()),
            self.w,
            self.x,
            self.kv
        );
        if self.tp > 1.0 {
            s.push_str(&format!(
                ", tensor parallel over {} chips ({})",
                n(self.tp),
                self.link.as_str().to_ascii_uppercase()
            ));
        }
        s
    }
    fn flops_formula(&self) -> (String, String) {
        ("Σ repeat·FLOPs of the parts".into(), String::new())
    }
    fn bytes_formula(&self, _resource: Resource) -> Option<(String, String)> {
        None
    }
    fn notes(&self, _chip: &str, out: &mut Vec<String>) {
        if let Some(p) = self.preset() {
            out.push(format!("{}: {}.", p.name, p.source));
        }
        out.push(format!(
            "Parameters: {} ({}), of which the embedding table's V·D = {} are only gathered (T rows per step).",
            format_exact(self.params()),
            format_quantity(self.params(), Unit::Count),
            format_exact(self.vocab * self.dmodel)
        ));
        out.push(match self.phase {
            Phase::Decode => format!(
                "Decode: one new token per sequence, T = B = {} tokens per step; attention reads the KV cache of S = {} positions per sequence.",
                n(self.b),
                n(self.ctx)
            ),
            Phase::Prefill => format!(
                "Prefill: the whole prompt, T = B·S = {}·{} = {} tokens per step; causal attention computes S·(S+1)/2 scores per sequence and head (about half the score matrix); the LM head runs on the last position of each sequence (B rows).",
                n(self.b),
                n(self.ctx),
                n(self.tokens())
            ),
        });
        out.push(
            "Attention is a fused kernel (FlashAttention-style): Q and the K/V cache are read once and O written once; the score matrix stays on chip. Other elementwise work (activation, residual adds, RoPE, softmax) is assumed fused and not counted."
                .to_string(),
        );
        if self.tp > 1.0 {
            out.push(format!(
                "Tensor parallel over n = {nn} chips ({link}): QKV, gate/up and the LM head are split along F (columns), the output and down projections along D (rows); their partial sums are all-reduced over {link}: 2·(n−1)/n·s_x·T·D bytes per chip, twice per layer (each lets its all-reduce overlap its matmul, as a D-sharded matmul does). Heads and the KV cache split n ways; norms and the embedding gather are replicated. Values are per chip.",
                nn = n(self.tp),
                link = self.link.as_str().to_ascii_uppercase()
            ));
        }
    }
    fn critical_dim(&self) -> Option<&'static str> {
        Some("b")
    }
    fn composite(&self) -> Option<Composite> {
        Some(self.composite_parts())
    }
}

impl Llm {
    fn composite_parts(&self) -> Composite {
        Composite {
            parts: self.parts(),
            tokens: self.tokens(),
            dtype: self.compute_dtype(),
            weights: self.weight_bytes(),
            kv: self.kv_bytes(),
            unit: "token",
        }
    }
}
