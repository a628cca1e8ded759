//! Over 600 lines on purpose: one reader per model family's keys (15 families), side by side so
//! that their key names and the defaults `transformers` applies can be compared directly.
//!
//! Reading a Hugging Face `config.json` into an [`Arch`] ([`Arch::from_hf_config`]).
//!
//! Each family's keys are read as its `transformers` configuration and modelling classes read
//! them. A key a published config may leave out is taken at that class's default, and the
//! report says so ([`ConfigReport::notes`]); a key no default can stand in for (the model's
//! shape: `hidden_size`, `num_hidden_layers`, ...) is required, and its absence is an error
//! naming it. Keys not read are listed ([`ConfigReport::unused_keys`]).

use super::json::{self, Value};
use super::{count, Arch, Mla, Moe, SlidingWindow, MAX_DIM};
use crate::error::Error;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// What reading a `config.json` found besides the architecture.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ConfigReport {
    /// The config's `model_type` (`deepseek_v3`, ...).
    pub model_type: String,
    /// The family it was read as (`DeepSeek-V3`, ...).
    pub family: String,
    /// Keys present but not used, in order (`rope_theta`, `text_config.rms_norm_eps`, ...).
    pub unused_keys: Vec<String>,
    /// What was derived or defaulted, and what is not modelled (one sentence each).
    pub notes: Vec<String>,
    /// `max_position_embeddings`, if given: the longest context the model was configured for.
    pub max_position_embeddings: Option<f64>,
    /// `torch_dtype` (or `dtype`), if given: the dtype the weights are stored in.
    pub torch_dtype: Option<String>,
    /// `quantization_config.quant_method`, if given (`fp8`, `mxfp4`, ...).
    pub quant_method: Option<String>,
}

/// The `model_type`s read, and the family each names.
const MODEL_TYPES: &[(&str, Family)] = &[
    ("llama", Family::Llama),
    ("llama4", Family::Llama4),
    ("llama4_text", Family::Llama4),
    ("mistral", Family::Mistral),
    ("mixtral", Family::Mixtral),
    ("qwen2", Family::Qwen2),
    ("qwen2_moe", Family::Qwen2Moe),
    ("qwen3", Family::Qwen3),
    ("qwen3_moe", Family::Qwen3Moe),
    ("gemma2", Family::Gemma2),
    ("gemma3", Family::Gemma3),
    ("gemma3_text", Family::Gemma3),
    ("deepseek_v2", Family::DeepseekV2),
    ("deepseek_v3", Family::DeepseekV3),
    ("gpt_oss", Family::GptOss),
    ("phi3", Family::Phi3),
    // Kimi K2 is the DeepSeek-V3 architecture; K2.5 nests it in a text_config.
    ("kimi_k2", Family::DeepseekV3),
    ("kimi_k25", Family::DeepseekV3),
    ("minimax_m2", Family::MiniMaxM2),
];

/// The `model_type` values [`Arch::from_hf_config`] reads.
pub fn model_types() -> impl Iterator<Item = &'static str> {
    MODEL_TYPES.iter().map(|(t, _)| *t)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Family {
    Llama,
    Llama4,
    Mistral,
    Mixtral,
    Qwen2,
    Qwen2Moe,
    Qwen3,
    Qwen3Moe,
    Gemma2,
    Gemma3,
    DeepseekV2,
    DeepseekV3,
    GptOss,
    Phi3,
    MiniMaxM2,
}

impl Family {
    fn name(self) -> &'static str {
        match self {
            Family::Llama => "Llama 2/3",
            Family::Llama4 => "Llama 4",
            Family::Mistral => "Mistral",
            Family::Mixtral => "Mixtral",
            Family::Qwen2 => "Qwen2/2.5",
            Family::Qwen2Moe => "Qwen2-MoE",
            Family::Qwen3 => "Qwen3",
            Family::Qwen3Moe => "Qwen3-MoE",
            Family::Gemma2 => "Gemma 2",
            Family::Gemma3 => "Gemma 3",
            Family::DeepseekV2 => "DeepSeek-V2",
            Family::DeepseekV3 => "DeepSeek-V3",
            Family::GptOss => "gpt-oss",
            Family::Phi3 => "Phi-3/4",
            Family::MiniMaxM2 => "MiniMax-M2",
        }
    }

    fn gemma(self) -> bool {
        matches!(self, Family::Gemma2 | Family::Gemma3)
    }

    fn qwen(self) -> bool {
        matches!(
            self,
            Family::Qwen2 | Family::Qwen2Moe | Family::Qwen3 | Family::Qwen3Moe
        )
    }

    fn deepseek(self) -> bool {
        matches!(self, Family::DeepseekV2 | Family::DeepseekV3)
    }
}

/// A JSON object being read: which members were used.
struct Obj<'a> {
    members: &'a [(String, Value)],
    used: Vec<bool>,
    prefix: &'static str,
}

impl<'a> Obj<'a> {
    fn new(members: &'a [(String, Value)], prefix: &'static str) -> Self {
        Obj {
            members,
            used: vec![false; members.len()],
            prefix,
        }
    }

    /// The value of `key` (the last when repeated, as Python reads it), marking it used.
    fn get(&mut self, key: &str) -> Option<&'a Value> {
        let mut found = None;
        for (i, (k, v)) in self.members.iter().enumerate() {
            if k == key {
                self.used[i] = true;
                found = Some(v);
            }
        }
        found
    }

    /// As [`Obj::get`], with `null` read as absent.
    fn some(&mut self, key: &str) -> Option<&'a Value> {
        self.get(key).filter(|v| !matches!(v, Value::Null))
    }

    fn name(&self, key: &str) -> String {
        format!("{}{key}", self.prefix)
    }

    /// A whole number from `min` to 1e9, or `None` when absent or null.
    fn count(&mut self, key: &str, min: f64) -> Result<Option<f64>, Error> {
        match self.some(key) {
            None => Ok(None),
            Some(v) => match v.as_f64() {
                Some(x) if x.is_finite() && x.fract() == 0.0 && (min..=MAX_DIM).contains(&x) => {
                    Ok(Some(x))
                }
                _ => Err(Error::invalid(
                    &self.name(key),
                    v.brief(),
                    format!("must be a whole number from {} to 1e9", count(min)),
                )),
            },
        }
    }

    fn flag(&mut self, key: &str) -> Result<Option<bool>, Error> {
        match self.some(key) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(v) => Err(Error::invalid(
                &self.name(key),
                v.brief(),
                "must be true or false",
            )),
        }
    }

    fn text(&mut self, key: &str) -> Result<Option<&'a str>, Error> {
        match self.some(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(v) => Err(Error::invalid(
                &self.name(key),
                v.brief(),
                "must be a string",
            )),
        }
    }

    fn array(&mut self, key: &str) -> Result<Option<&'a [Value]>, Error> {
        match self.some(key) {
            None => Ok(None),
            Some(Value::Array(a)) => Ok(Some(a)),
            Some(v) => Err(Error::invalid(
                &self.name(key),
                v.brief(),
                "must be an array",
            )),
        }
    }

    /// Appends the names of the members not used, each once (`seen` holds those already
    /// listed; a set, so a pasted object of many keys costs `n log n`).
    fn unused(&self, out: &mut Vec<String>, seen: &mut BTreeSet<String>) {
        for (i, (k, _)) in self.members.iter().enumerate() {
            if !self.used[i] {
                let name = self.name(k);
                if seen.insert(name.clone()) {
                    out.push(name);
                }
            }
        }
    }
}

fn missing(key: &str, model_type: &str) -> Error {
    Error::parse(
        "config.json",
        format!("missing required key `{key}` (model_type `{model_type}`)"),
    )
}

/// The config being read: the language model's object (`text_config` for multimodal
/// configs) and the top-level object around it.
struct Cfg<'a> {
    main: Obj<'a>,
    outer: Option<Obj<'a>>,
    model_type: String,
    family: Family,
    notes: Vec<String>,
}

impl<'a> Cfg<'a> {
    fn req(&mut self, key: &str) -> Result<f64, Error> {
        match self.main.count(key, 1.0)? {
            Some(x) => Ok(x),
            None => Err(missing(&self.main.name(key), &self.model_type)),
        }
    }

    fn opt(&mut self, key: &str) -> Result<Option<f64>, Error> {
        self.main.count(key, 1.0)
    }

    fn opt0(&mut self, key: &str) -> Result<Option<f64>, Error> {
        self.main.count(key, 0.0)
    }

    fn flag(&mut self, key: &str) -> Result<Option<bool>, Error> {
        self.main.flag(key)
    }

    /// A key read from the language model's object, else from the top level.
    fn flag_either(&mut self, key: &str) -> Result<Option<bool>, Error> {
        if let Some(b) = self.main.flag(key)? {
            return Ok(Some(b));
        }
        match self.outer.as_mut() {
            Some(o) => o.flag(key),
            None => Ok(None),
        }
    }

    fn note(&mut self, s: String) {
        self.notes.push(s);
    }

    /// Layer indices from an array (`mlp_only_layers`, `moe_layers`): whole numbers below
    /// `layers`, each once.
    fn layer_list(&mut self, key: &str, layers: f64) -> Result<Option<Vec<u32>>, Error> {
        let name = self.main.name(key);
        let Some(a) = self.main.array(key)? else {
            return Ok(None);
        };
        let mut out: Vec<u32> = Vec::with_capacity(a.len());
        for (i, v) in a.iter().enumerate() {
            match v.as_f64() {
                Some(x) if x.fract() == 0.0 && (0.0..layers).contains(&x) => out.push(x as u32),
                _ => {
                    return Err(Error::invalid(
                        &format!("{name}[{i}]"),
                        v.brief(),
                        format!("must be a layer index from 0 to {}", count(layers - 1.0)),
                    ))
                }
            }
        }
        let mut sorted = out.clone();
        sorted.sort_unstable();
        if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
            return Err(Error::invalid(
                &name,
                format!("an array of {}", a.len()),
                format!("lists layer {} twice", w[0]),
            ));
        }
        Ok(Some(out))
    }

    /// `layer_types`: one of `full_attention`, `sliding_attention` (or `chunked_attention`)
    /// per layer. Returns how many are local (sliding or chunked).
    fn layer_types(&mut self, layers: f64) -> Result<Option<f64>, Error> {
        let name = self.main.name("layer_types");
        let Some(a) = self.main.array("layer_types")? else {
            return Ok(None);
        };
        if a.len() as f64 != layers {
            return Err(Error::invalid(
                &name,
                format!("an array of {}", a.len()),
                format!(
                    "must name one attention kind per layer ({} layers)",
                    count(layers)
                ),
            ));
        }
        let mut local = 0.0;
        for (i, v) in a.iter().enumerate() {
            match v.as_str() {
                Some("full_attention") => {}
                Some("sliding_attention" | "chunked_attention") => local += 1.0,
                _ => {
                    return Err(Error::invalid(
                        &format!("{name}[{i}]"),
                        v.brief(),
                        "must be \"full_attention\" or \"sliding_attention\" (other attention kinds are not modelled)",
                    ))
                }
            }
        }
        Ok(Some(local))
    }
}

impl Arch {
    /// Reads a Hugging Face `config.json` (its text) into an architecture.
    ///
    /// Families (`model_type`): Llama 2/3/3.1 (`llama`), Llama 4 (`llama4` with its
    /// `text_config`, or `llama4_text`), Mistral (`mistral`), Mixtral (`mixtral`), Qwen2/2.5
    /// (`qwen2`), Qwen2-MoE (`qwen2_moe`), Qwen3 (`qwen3`, `qwen3_moe`), Gemma 2 (`gemma2`),
    /// Gemma 3 (`gemma3` with its `text_config`, or `gemma3_text`), DeepSeek-V2/V3
    /// (`deepseek_v2`, `deepseek_v3`), gpt-oss (`gpt_oss`), Phi-3 and Phi-4 (`phi3`), Kimi K2
    /// (`kimi_k2`, and K2.5's `kimi_k25` with its `text_config`: the DeepSeek-V3
    /// architecture), MiniMax-M2 (`minimax_m2`).
    ///
    /// Errors (never a guess): text that is not JSON (with line and column), a top level
    /// that is not an object, an unknown or missing `model_type`, a missing required key or
    /// a value of the wrong kind or range (naming the key), and an architecture that does not
    /// [`Arch::validate`]. Never panics.
    ///
    /// ```
    /// use roofline::arch::Arch;
    /// let (a, report) = Arch::from_hf_config(r#"{
    ///   "model_type": "mixtral", "hidden_size": 4096, "intermediate_size": 14336,
    ///   "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
    ///   "vocab_size": 32000, "num_local_experts": 8, "num_experts_per_tok": 2,
    ///   "rope_theta": 1000000.0
    /// }"#).unwrap();
    /// assert_eq!(a.params_total(), 46_702_792_704.0); // Mixtral 8x7B: 46.7B
    /// assert_eq!(report.unused_keys, ["rope_theta"]);
    /// let e = Arch::from_hf_config(r#"{"model_type": "mixtral"}"#).unwrap_err();
    /// assert!(e.to_string().contains("missing required key `hidden_size`"));
    /// ```
    pub fn from_hf_config(text: &str) -> Result<(Arch, ConfigReport), Error> {
        let root = json::parse(text).map_err(|e| Error::parse("config.json", e.to_string()))?;
        let Some(members) = root.as_object() else {
            return Err(Error::parse(
                "config.json",
                format!(
                    "expected a JSON object {{...}} at the top, found {}",
                    root.kind()
                ),
            ));
        };
        let mut top = Obj::new(members, "");
        let Some(mt) = top.text("model_type")? else {
            return Err(Error::parse(
                "config.json",
                "missing required key `model_type` (it names the model family)",
            ));
        };
        let Some(family) = MODEL_TYPES.iter().find(|(t, _)| *t == mt).map(|(_, f)| *f) else {
            let known: Vec<&str> = model_types().collect();
            return Err(Error::parse(
                "config.json",
                format!(
                    "unknown model_type `{}`; this app reads: {}",
                    crate::error::clip_text(mt, 40),
                    known.join(", ")
                ),
            ));
        };
        let mut notes = Vec::new();
        // Multimodal configs hold the language model under `text_config`; their `*_text`
        // model types are the language model alone.
        let (main, outer) = if matches!(mt, "llama4" | "gemma3" | "kimi_k25") {
            match top.get("text_config") {
                Some(Value::Object(m)) => (Obj::new(m, "text_config."), Some(top)),
                Some(Value::Null) | None => {
                    if !top.members.iter().any(|(k, _)| k == "hidden_size") {
                        return Err(missing("text_config", mt));
                    }
                    notes.push(format!(
                        "model_type `{mt}` without a text_config: the language model's keys are read from the top level"
                    ));
                    (top, None)
                }
                Some(v) => {
                    return Err(Error::invalid(
                        "text_config",
                        v.brief(),
                        "must be an object (the language model's config)",
                    ))
                }
            }
        } else {
            (top, None)
        };
        let mut c = Cfg {
            main,
            outer,
            model_type: mt.to_string(),
            family,
            notes,
        };
        if c.outer.is_some() {
            // The nested config's own model_type (`llama4_text`, `gemma3_text`, `kimi_k2`).
            c.main.text("model_type")?;
            if c.outer
                .as_ref()
                .is_some_and(|o| o.members.iter().any(|(k, _)| k == "vision_config"))
            {
                c.note(
                    "vision_config: the vision encoder is not modelled (the language model only)"
                        .into(),
                );
            }
        }
        let arch = read(&mut c)?;
        arch.validate()?;
        let mut report = ConfigReport {
            model_type: mt.to_string(),
            family: family.name().to_string(),
            ..ConfigReport::default()
        };
        // Informational only: read leniently, never an error.
        report.max_position_embeddings = c
            .main
            .get("max_position_embeddings")
            .and_then(Value::as_f64)
            .filter(|x| x.is_finite() && *x >= 1.0);
        for key in ["torch_dtype", "dtype"] {
            for obj in std::iter::once(&mut c.main).chain(c.outer.as_mut()) {
                if let Some(t) = obj.get(key).and_then(Value::as_str) {
                    report.torch_dtype.get_or_insert_with(|| t.to_string());
                }
            }
        }
        let mut quant_unused = Vec::new();
        let mut quant_seen = BTreeSet::new();
        for obj in std::iter::once(&mut c.main).chain(c.outer.as_mut()) {
            // Read only when it is an object (else it is listed as unused).
            let is_object = obj
                .members
                .iter()
                .rev()
                .find(|(k, _)| k == "quantization_config")
                .is_some_and(|(_, v)| v.as_object().is_some());
            if !is_object {
                continue;
            }
            if let Some(Value::Object(q)) = obj.get("quantization_config") {
                let mut qo = Obj::new(q, "quantization_config.");
                if let Some(m) = qo.get("quant_method").and_then(Value::as_str) {
                    report.quant_method = Some(m.to_string());
                }
                qo.unused(&mut quant_unused, &mut quant_seen);
            }
        }
        if let Some(m) = &report.quant_method {
            c.notes.push(format!(
                "quantization_config: quant_method `{m}` (the weight dtype is chosen where the model runs)"
            ));
        }
        let mut seen = BTreeSet::new();
        if let Some(o) = &c.outer {
            o.unused(&mut report.unused_keys, &mut seen);
        }
        c.main.unused(&mut report.unused_keys, &mut seen);
        for k in quant_unused {
            if seen.insert(k.clone()) {
                report.unused_keys.push(k);
            }
        }
        report.notes = c.notes;
        Ok((arch, report))
    }
}

/// `what absent: value, transformers' default for <family>` as a note.
fn defaulted(c: &mut Cfg, key: &str, value: &str, why: &str) {
    let name = c.main.name(key);
    c.note(format!("{name} absent: {value} ({why})"));
}

fn read(c: &mut Cfg) -> Result<Arch, Error> {
    let f = c.family;
    let d = c.req("hidden_size")?;
    let layers = c.req("num_hidden_layers")?;
    let heads = c.req("num_attention_heads")?;
    let vocab = match c.opt("vocab_size")? {
        Some(v) => v,
        None if f == Family::Gemma3 => {
            defaulted(c, "vocab_size", "262208", "the default of transformers' Gemma3TextConfig, which Gemma 3's published configs rely on");
            262_208.0
        }
        None => return Err(missing(&c.main.name("vocab_size"), &c.model_type)),
    };
    let mla = if f.deepseek() { read_mla(c)? } else { None };
    let kv_heads = match c.opt("num_key_value_heads")? {
        Some(k) => k,
        None => {
            if mla.is_none() {
                defaulted(
                    c,
                    "num_key_value_heads",
                    &format!("K = H = {}", count(heads)),
                    "multi-head attention, as transformers reads it",
                );
            }
            heads
        }
    };
    let head_dim = match (&mla, c.opt("head_dim")?) {
        (Some(m), _) => m.qk_nope_head_dim + m.qk_rope_head_dim,
        (None, Some(h)) => h,
        (None, None) => {
            if d % heads != 0.0 {
                return Err(Error::parse(
                    "config.json",
                    format!(
                        "head_dim is absent and hidden_size {} is not a multiple of num_attention_heads {}: give head_dim",
                        count(d),
                        count(heads)
                    ),
                ));
            }
            let h = d / heads;
            defaulted(
                c,
                "head_dim",
                &format!(
                    "h = hidden_size / num_attention_heads = {} / {} = {}",
                    count(d),
                    count(heads),
                    count(h)
                ),
                "transformers' rule",
            );
            h
        }
    };
    if f == Family::Gemma2 || f == Family::Gemma3 {
        if let Some(q) = c.main.count("query_pre_attn_scalar", 1.0)? {
            if q != head_dim {
                c.note(format!(
                    "query_pre_attn_scalar {} only scales the attention scores (by 1/√{}); the shapes use head_dim {}",
                    count(q),
                    count(q),
                    count(head_dim)
                ));
            }
        }
    }
    let tied_default = f.gemma();
    let tied = match c.flag_either("tie_word_embeddings")? {
        Some(t) => t,
        None => {
            defaulted(
                c,
                "tie_word_embeddings",
                if tied_default { "true" } else { "false" },
                if tied_default {
                    "Gemma ties them by default: the LM head is the embedding table"
                } else {
                    "transformers' default for this family: a separate LM head"
                },
            );
            tied_default
        }
    };
    // Attention biases.
    let (qkv_bias, o_bias) = match f {
        // Qwen2's modelling code always biases q, k and v (and never o).
        Family::Qwen2 | Family::Qwen2Moe => (true, false),
        Family::Mistral | Family::Mixtral | Family::Phi3 => (false, false),
        Family::GptOss => {
            let b = match c.flag("attention_bias")? {
                Some(b) => b,
                None => {
                    defaulted(c, "attention_bias", "true", "GptOssConfig's default");
                    true
                }
            };
            (b, b)
        }
        _ => {
            let b = c.flag("attention_bias")?.unwrap_or(false);
            (b, b)
        }
    };
    let mlp_bias = match f {
        Family::Llama => c.flag("mlp_bias")?.unwrap_or(false),
        Family::GptOss => true,
        _ => false,
    };
    if f == Family::Llama4 {
        // Llama 4's QK norm is an L2 norm without weights.
        c.flag("use_qk_norm")?;
    }
    let qk_norm = match f {
        Family::Qwen3 | Family::Qwen3Moe | Family::Gemma3 => true,
        Family::MiniMaxM2 => {
            let on = c.flag("use_qk_norm")?.unwrap_or(false);
            if on && c.main.text("qk_norm_type")? == Some("per_layer") {
                c.note(format!(
                    "qk_norm_type per_layer: one norm over all heads' queries and one over all keys, (H + K)·h = {} weights a layer, counted as per-head norms (2·h = {})",
                    count((heads + kv_heads) * head_dim),
                    count(2.0 * head_dim)
                ));
            }
            on
        }
        _ => false,
    };
    if f == Family::MiniMaxM2 && c.flag("use_mtp")? == Some(true) {
        let n = c.opt0("num_mtp_modules")?.unwrap_or(0.0);
        c.note(format!(
            "use_mtp: the {} multi-token-prediction modules are not counted",
            count(n)
        ));
    }
    let moe = read_moe(c, layers)?;
    let ffn = match (&moe, f) {
        (Some(m), _) if m.dense_layers == 0.0 => {
            // No dense layer: the dense width is unused; keep the key marked as read.
            let key = if f == Family::Llama4 {
                "intermediate_size_mlp"
            } else {
                "intermediate_size"
            };
            c.opt(key)?.unwrap_or(m.expert_ffn)
        }
        (Some(_), Family::Llama4) => c.req("intermediate_size_mlp")?,
        _ => c.req("intermediate_size")?,
    };
    let window = read_window(c, layers)?;
    if let Some(w) = &window {
        let local = if f == Family::Llama4 {
            "chunked attention"
        } else {
            "sliding window"
        };
        c.note(format!(
            "{local} of {} positions on {} of {} layers; the others attend to the whole context",
            count(w.size),
            count(w.layers),
            count(layers)
        ));
    }
    if f == Family::DeepseekV3 || f == Family::DeepseekV2 {
        if let Some(n) = c.opt0("num_nextn_predict_layers")? {
            if n > 0.0 {
                c.note(format!(
                    "num_nextn_predict_layers {}: the multi-token-prediction module is not counted (DeepSeek's 671B total for V3 leaves it out too)",
                    count(n)
                ));
            }
        }
    }
    Ok(Arch {
        layers,
        dmodel: d,
        heads,
        kv_heads: if mla.is_some() { heads } else { kv_heads },
        head_dim,
        ffn,
        gated: true,
        vocab,
        tied_embeddings: tied,
        qkv_bias,
        o_bias,
        mlp_bias,
        attn_sinks: f == Family::GptOss,
        norms_per_layer: if f.gemma() { 4.0 } else { 2.0 },
        qk_norm,
        moe,
        mla,
        window,
    })
}

fn read_mla(c: &mut Cfg) -> Result<Option<Mla>, Error> {
    let r = c.req("kv_lora_rank")?;
    let m = Mla {
        q_lora_rank: c.opt0("q_lora_rank")?.unwrap_or(0.0),
        kv_lora_rank: r,
        qk_nope_head_dim: c.req("qk_nope_head_dim")?,
        qk_rope_head_dim: c.req("qk_rope_head_dim")?,
        v_head_dim: c.req("v_head_dim")?,
    };
    if m.q_lora_rank == 0.0 {
        c.note("q_lora_rank null: queries are projected directly, without compression".into());
    }
    Ok(Some(m))
}

/// Layers `i` in `0..L` with `(i + 1) % step == 0`: `⌊L / step⌋` (computed, not counted:
/// a pasted `num_hidden_layers` of 1e9 costs nothing).
fn every_step(layers: f64, step: f64) -> f64 {
    (layers / step).floor()
}

/// Multiples of `freq` in `first..L`: `⌈L / freq⌉ − ⌈first / freq⌉` (0 when `first ≥ L`).
fn multiples_from(first: f64, layers: f64, freq: f64) -> f64 {
    if first >= layers {
        0.0
    } else {
        (layers / freq).ceil() - (first / freq).ceil()
    }
}

fn read_moe(c: &mut Cfg, layers: f64) -> Result<Option<Moe>, Error> {
    let f = c.family;
    let model_type = c.model_type.clone();
    let mut moe = Moe {
        experts: 0.0,
        top_k: 0.0,
        expert_ffn: 0.0,
        shared_experts: 0.0,
        shared_ffn: 0.0,
        dense_layers: 0.0,
        router_bias: false,
        shared_gate: false,
    };
    let moe_layers = match f {
        Family::Mixtral | Family::GptOss => {
            moe.experts = c.req("num_local_experts")?;
            moe.top_k = if f == Family::GptOss {
                let a = c.opt("num_experts_per_tok")?;
                let b = c.opt("experts_per_token")?;
                match (a, b) {
                    (Some(a), Some(b)) if a != b => {
                        return Err(Error::invalid(
                            &c.main.name("experts_per_token"),
                            count(b),
                            format!("disagrees with num_experts_per_tok = {}", count(a)),
                        ))
                    }
                    (Some(k), _) | (None, Some(k)) => k,
                    (None, None) => return Err(missing("num_experts_per_tok", &model_type)),
                }
            } else {
                c.req("num_experts_per_tok")?
            };
            moe.expert_ffn = c.req("intermediate_size")?;
            if f == Family::GptOss {
                moe.router_bias = true;
            }
            layers
        }
        Family::Qwen2Moe | Family::Qwen3Moe => {
            let e = c.opt0("num_experts")?;
            let Some(e) = e.filter(|&e| e > 0.0) else {
                if e.is_none() {
                    return Err(missing(&c.main.name("num_experts"), &model_type));
                }
                c.note("num_experts 0: every layer has a dense MLP".into());
                return Ok(None);
            };
            moe.experts = e;
            moe.top_k = c.req("num_experts_per_tok")?;
            moe.expert_ffn = c.req("moe_intermediate_size")?;
            if f == Family::Qwen2Moe {
                if let Some(s) = c.opt0("shared_expert_intermediate_size")? {
                    if s > 0.0 {
                        moe.shared_experts = 1.0;
                        moe.shared_ffn = s;
                        moe.shared_gate = true;
                    }
                }
            }
            let step = match c.opt("decoder_sparse_step")? {
                Some(s) => s,
                None => {
                    defaulted(c, "decoder_sparse_step", "1", "every layer is MoE");
                    1.0
                }
            };
            let only = c.layer_list("mlp_only_layers", layers)?.unwrap_or_default();
            // transformers: layer i is MoE iff i is not in mlp_only_layers and
            // (i + 1) % decoder_sparse_step == 0.
            let excluded = only
                .iter()
                .filter(|&&i| (f64::from(i) + 1.0) % step == 0.0)
                .count() as f64;
            every_step(layers, step) - excluded
        }
        Family::DeepseekV2 | Family::DeepseekV3 => {
            let Some(e) = c.opt("n_routed_experts")? else {
                c.note("n_routed_experts null: a dense model".into());
                return Ok(None);
            };
            moe.experts = e;
            moe.top_k = c.req("num_experts_per_tok")?;
            moe.expert_ffn = c.req("moe_intermediate_size")?;
            moe.shared_experts = match c.opt0("n_shared_experts")? {
                Some(s) => s,
                None => {
                    defaulted(c, "n_shared_experts", "0", "no shared expert");
                    0.0
                }
            };
            moe.shared_ffn = moe.expert_ffn;
            let first = match c.opt0("first_k_dense_replace")? {
                Some(k) => k,
                None => {
                    defaulted(c, "first_k_dense_replace", "0", "no leading dense layer");
                    0.0
                }
            };
            let freq = match c.opt("moe_layer_freq")? {
                Some(q) => q,
                None => {
                    defaulted(
                        c,
                        "moe_layer_freq",
                        "1",
                        "every layer after the dense ones is MoE",
                    );
                    1.0
                }
            };
            // DeepSeek-V3 routes with a per-expert score-correction bias (`noaux_tc`).
            moe.router_bias = c.main.text("topk_method")? == Some("noaux_tc");
            // DeepSeek: layer i is MoE iff i >= first_k_dense_replace and i % moe_layer_freq == 0.
            multiples_from(first, layers, freq)
        }
        Family::MiniMaxM2 => {
            // Every layer is MoE; intermediate_size is each expert's width.
            moe.experts = c.req("num_local_experts")?;
            moe.top_k = c.req("num_experts_per_tok")?;
            moe.expert_ffn = c.req("intermediate_size")?;
            moe.router_bias = c.flag("use_routing_bias")?.unwrap_or(false);
            if let Some(s) = c.opt0("shared_intermediate_size")? {
                if s > 0.0 {
                    moe.shared_experts = 1.0;
                    moe.shared_ffn = s;
                }
            }
            layers
        }
        Family::Llama4 => {
            moe.experts = c.req("num_local_experts")?;
            moe.top_k = c.req("num_experts_per_tok")?;
            moe.expert_ffn = c.req("intermediate_size")?;
            // Every MoE layer of Llama 4 has one shared expert of the routed experts' width.
            moe.shared_experts = 1.0;
            moe.shared_ffn = moe.expert_ffn;
            let step = c.opt("interleave_moe_layer_step")?;
            match c
                .layer_list("moe_layers", layers)?
                .filter(|l| !l.is_empty())
            {
                Some(list) => list.len() as f64,
                None => {
                    let step = match step {
                        Some(s) => s,
                        None => {
                            defaulted(c, "interleave_moe_layer_step", "1", "every layer is MoE");
                            1.0
                        }
                    };
                    // transformers: moe_layers = range(step − 1, L, step).
                    every_step(layers, step)
                }
            }
        }
        _ => return Ok(None),
    };
    if moe.top_k > moe.experts {
        return Err(Error::invalid(
            "num_experts_per_tok",
            count(moe.top_k),
            format!(
                "must be at most the number of experts, {}",
                count(moe.experts)
            ),
        ));
    }
    if moe_layers == 0.0 {
        c.note("no layer is an MoE layer: every layer has a dense MLP".into());
        return Ok(None);
    }
    moe.dense_layers = layers - moe_layers;
    let mut s = format!(
        "MoE: {} routed experts, {} per token, width {}",
        count(moe.experts),
        count(moe.top_k),
        count(moe.expert_ffn)
    );
    if moe.shared_experts > 0.0 {
        s.push_str(&format!(
            ", {} shared of width {}",
            count(moe.shared_experts),
            count(moe.shared_ffn)
        ));
    }
    s.push_str(&format!(
        "; MoE on {} of {} layers",
        count(moe_layers),
        count(layers)
    ));
    c.note(s);
    Ok(Some(moe))
}

fn read_window(c: &mut Cfg, layers: f64) -> Result<Option<SlidingWindow>, Error> {
    let f = c.family;
    let model_type = c.model_type.clone();
    let (size, local) = match f {
        Family::Mistral | Family::Mixtral | Family::Phi3 => {
            (c.opt("sliding_window")?, Some(layers))
        }
        _ if f.qwen() => {
            let on = c.flag("use_sliding_window")?.unwrap_or(false);
            let size = c.opt("sliding_window")?;
            let max_window = c.opt0("max_window_layers")?;
            let types = c.layer_types(layers)?;
            if !on {
                if let Some(s) = size {
                    c.note(format!(
                        "use_sliding_window false: sliding_window {} is not applied",
                        count(s)
                    ));
                }
                return Ok(None);
            }
            let Some(size) = size else {
                return Err(missing(&c.main.name("sliding_window"), &model_type));
            };
            // transformers: layers from max_window_layers on use the window.
            let local = match (types, max_window) {
                (Some(t), _) => t,
                (None, Some(m)) => (layers - m).max(0.0),
                (None, None) => {
                    return Err(missing(&c.main.name("max_window_layers"), &model_type))
                }
            };
            (Some(size), Some(local))
        }
        Family::Gemma2 | Family::Gemma3 | Family::GptOss => {
            let size = match c.opt("sliding_window")? {
                Some(s) => Some(s),
                None if f.gemma() => {
                    defaulted(
                        c,
                        "sliding_window",
                        "4096",
                        "the Gemma config classes' default",
                    );
                    Some(4096.0)
                }
                None => None,
            };
            let local = match c.layer_types(layers)? {
                Some(t) => t,
                None if f == Family::Gemma3 => {
                    let p = match c.opt("sliding_window_pattern")? {
                        Some(p) => p,
                        None => {
                            defaulted(
                                c,
                                "sliding_window_pattern",
                                "6",
                                "Gemma3TextConfig's default: every 6th layer is global",
                            );
                            6.0
                        }
                    };
                    // transformers: layer i is sliding unless (i + 1) % pattern == 0.
                    layers - (layers / p).floor()
                }
                // Gemma 2 and gpt-oss alternate, starting with a sliding layer.
                None => (layers / 2.0).ceil(),
            };
            if size.is_none() && local > 0.0 {
                return Err(missing(&c.main.name("sliding_window"), &model_type));
            }
            (size, Some(local))
        }
        Family::Llama4 => {
            let Some(chunk) = c.opt("attention_chunk_size")? else {
                return Ok(None);
            };
            let name = c.main.name("no_rope_layers");
            let interval = c.opt("no_rope_layer_interval")?;
            let list = c.main.array("no_rope_layers")?.filter(|a| !a.is_empty());
            // transformers: chunked attention on the RoPE layers (no_rope_layers[i] = 1);
            // the NoPE ones (every 4th by default) are global.
            let local = match list {
                Some(a) => {
                    if a.len() as f64 != layers {
                        return Err(Error::invalid(
                            &name,
                            format!("an array of {}", a.len()),
                            format!("must have one 0 or 1 per layer ({})", count(layers)),
                        ));
                    }
                    let mut n = 0.0;
                    for (i, v) in a.iter().enumerate() {
                        match v.as_f64() {
                            Some(x) if x == 0.0 || x == 1.0 => n += x,
                            _ => {
                                return Err(Error::invalid(
                                    &format!("{name}[{i}]"),
                                    v.brief(),
                                    "must be 0 or 1",
                                ))
                            }
                        }
                    }
                    n
                }
                None => {
                    let every = interval.unwrap_or(4.0);
                    layers - (layers / every).floor()
                }
            };
            (Some(chunk), Some(local))
        }
        _ => return Ok(None),
    };
    match (size, local) {
        (Some(size), Some(local)) if local > 0.0 => Ok(Some(SlidingWindow {
            size,
            layers: local,
        })),
        _ => Ok(None),
    }
}
