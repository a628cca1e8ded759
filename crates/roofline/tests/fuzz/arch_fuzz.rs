//! Fuzzing of `config.json` reading: any bytes, random JSON trees shaped like configs
//! (model types, the keys each family reads, values in and out of range, nested
//! `text_config`s, layer lists), and mutations of real configs go through
//! `Arch::from_hf_config` and the JSON reader.
//!
//! Properties: nothing panics; an error's message stays short; an accepted config gives an
//! architecture that validates, with finite positive parameters (active ≤ total), KV bytes and
//! FLOPs, and no key listed twice as unused. The JSON reader agrees with `serde_json` (a
//! dev-dependency only): what one accepts the other does, with the same values, except for
//! what Python's `json` adds (`NaN`, `±Infinity`), numbers beyond `f64` (read as ±infinity,
//! as Python does), lone UTF-16 surrogates (read as U+FFFD) and nesting beyond
//! `json::MAX_DEPTH`.
//!
//! `config_quick` runs 3000 cases in the normal tests; `./dev fuzz` runs `fuzz_config` with
//! `FUZZ_CASES` (default 100000) in release mode:
//!
//! ```text
//! FUZZ_CASES=100000 cargo test -p roofline --release --test fuzz -- --ignored --nocapture arch_fuzz::
//! ```

use crate::common;

use common::fuzz;
use common::Rng;
use roofline::arch::json::{self, Value};
use roofline::arch::Arch;

/// Longest error message allowed (user text in messages is clipped).
const MAX_MESSAGE: usize = 600;

const MODEL_TYPES: &[&str] = &[
    "llama",
    "llama4",
    "llama4_text",
    "mistral",
    "mixtral",
    "qwen2",
    "qwen2_moe",
    "qwen3",
    "qwen3_moe",
    "gemma2",
    "gemma3",
    "gemma3_text",
    "deepseek_v2",
    "deepseek_v3",
    "gpt_oss",
    "phi3",
    "bert",
    "",
    "LLAMA",
];

/// Keys the families read, with the values they are tried with (as JSON text).
const KEYS: &[(&str, &[&str])] = &[
    (
        "hidden_size",
        &[
            "64", "128", "2048", "4096", "7168", "0", "-1", "1e10", "4096.5", "\"4096\"", "null",
        ],
    ),
    (
        "num_hidden_layers",
        &["1", "2", "3", "24", "48", "61", "0", "1e9", "true"],
    ),
    (
        "num_attention_heads",
        &["1", "3", "8", "16", "32", "64", "128", "0"],
    ),
    (
        "num_key_value_heads",
        &["1", "2", "4", "8", "16", "7", "null"],
    ),
    ("head_dim", &["32", "64", "128", "256", "0", "null"]),
    (
        "intermediate_size",
        &["768", "2048", "14336", "0", "null", "1e9"],
    ),
    ("intermediate_size_mlp", &["1024", "16384", "null"]),
    ("moe_intermediate_size", &["512", "768", "2048", "0"]),
    (
        "shared_expert_intermediate_size",
        &["0", "1024", "5632", "null"],
    ),
    ("vocab_size", &["32000", "128256", "1", "0", "-5", "null"]),
    (
        "num_local_experts",
        &["1", "2", "8", "16", "128", "0", "null"],
    ),
    ("num_experts", &["0", "1", "8", "60", "128", "null"]),
    ("n_routed_experts", &["null", "1", "8", "64", "256"]),
    (
        "num_experts_per_tok",
        &["1", "2", "4", "8", "9", "300", "0"],
    ),
    ("experts_per_token", &["1", "2", "4", "8"]),
    ("n_shared_experts", &["0", "1", "2", "null"]),
    ("first_k_dense_replace", &["0", "1", "3", "100"]),
    ("moe_layer_freq", &["0", "1", "2", "3"]),
    ("decoder_sparse_step", &["0", "1", "2", "4"]),
    ("interleave_moe_layer_step", &["0", "1", "2", "4"]),
    ("q_lora_rank", &["null", "0", "64", "1536"]),
    ("kv_lora_rank", &["64", "512", "0", "null"]),
    ("qk_nope_head_dim", &["0", "64", "128"]),
    ("qk_rope_head_dim", &["0", "32", "64"]),
    ("v_head_dim", &["64", "128", "0"]),
    ("sliding_window", &["null", "128", "1024", "4096", "0"]),
    ("attention_chunk_size", &["null", "8192", "16"]),
    ("sliding_window_pattern", &["0", "1", "2", "6"]),
    ("no_rope_layer_interval", &["0", "1", "4"]),
    ("max_window_layers", &["0", "1", "28", "100"]),
    ("use_sliding_window", &["true", "false", "1", "null"]),
    ("tie_word_embeddings", &["true", "false", "\"no\""]),
    ("attention_bias", &["true", "false"]),
    ("mlp_bias", &["true", "false"]),
    ("use_qk_norm", &["true", "false", "3"]),
    ("num_nextn_predict_layers", &["0", "1", "-1"]),
    ("topk_method", &["\"noaux_tc\"", "\"greedy\"", "7"]),
    ("query_pre_attn_scalar", &["128", "168", "0"]),
    (
        "max_position_embeddings",
        &["4096", "131072", "-1", "NaN", "\"x\""],
    ),
    ("torch_dtype", &["\"bfloat16\"", "\"float32\"", "7"]),
    ("rope_theta", &["10000.0", "500000"]),
    ("architectures", &["[\"LlamaForCausalLM\"]"]),
    ("unknown_key", &["1", "{}", "[]"]),
];

const LAYER_KINDS: &[&str] = &[
    "\"full_attention\"",
    "\"sliding_attention\"",
    "\"chunked_attention\"",
    "\"linear_attention\"",
    "1",
    "null",
];

/// Real configs, compact, for mutation.
const SEEDS: &[&str] = &[
    r#"{"architectures":["LlamaForCausalLM"],"attention_bias":false,"hidden_size":4096,"intermediate_size":14336,"max_position_embeddings":131072,"mlp_bias":false,"model_type":"llama","num_attention_heads":32,"num_hidden_layers":32,"num_key_value_heads":8,"rope_theta":500000.0,"tie_word_embeddings":false,"torch_dtype":"bfloat16","vocab_size":128256}"#,
    r#"{"model_type":"deepseek_v3","first_k_dense_replace":3,"hidden_size":7168,"intermediate_size":18432,"kv_lora_rank":512,"moe_intermediate_size":2048,"moe_layer_freq":1,"n_routed_experts":256,"n_shared_experts":1,"num_attention_heads":128,"num_experts_per_tok":8,"num_hidden_layers":61,"num_key_value_heads":128,"num_nextn_predict_layers":1,"q_lora_rank":1536,"qk_nope_head_dim":128,"qk_rope_head_dim":64,"quantization_config":{"fmt":"e4m3","quant_method":"fp8","weight_block_size":[128,128]},"topk_method":"noaux_tc","v_head_dim":128,"vocab_size":129280}"#,
    r#"{"model_type":"gpt_oss","attention_bias":true,"experts_per_token":4,"head_dim":64,"hidden_size":2880,"intermediate_size":2880,"layer_types":["sliding_attention","full_attention","sliding_attention","full_attention"],"num_attention_heads":64,"num_experts_per_tok":4,"num_hidden_layers":4,"num_key_value_heads":8,"num_local_experts":32,"sliding_window":128,"tie_word_embeddings":false,"vocab_size":201088}"#,
    r#"{"model_type":"gemma3","text_config":{"head_dim":128,"hidden_size":5376,"intermediate_size":21504,"model_type":"gemma3_text","num_attention_heads":32,"num_hidden_layers":62,"num_key_value_heads":16,"query_pre_attn_scalar":168,"sliding_window":1024},"vision_config":{"hidden_size":1152}}"#,
    r#"{"model_type":"llama4","text_config":{"attention_chunk_size":8192,"head_dim":128,"hidden_size":5120,"interleave_moe_layer_step":2,"intermediate_size":8192,"intermediate_size_mlp":16384,"num_attention_heads":40,"num_experts_per_tok":1,"num_hidden_layers":4,"num_key_value_heads":8,"num_local_experts":128,"moe_layers":[1,3],"no_rope_layers":[1,1,1,0],"vocab_size":202048},"tie_word_embeddings":false}"#,
    r#"{"model_type":"qwen2_moe","decoder_sparse_step":2,"hidden_size":2048,"intermediate_size":5632,"mlp_only_layers":[0],"moe_intermediate_size":1408,"num_attention_heads":16,"num_experts":60,"num_experts_per_tok":4,"num_hidden_layers":4,"shared_expert_intermediate_size":5632,"sliding_window":32768,"use_sliding_window":true,"max_window_layers":2,"vocab_size":151936}"#,
];

/// Tokens mutations insert.
const TOKENS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    "\"",
    ":",
    ",",
    " ",
    "\n",
    "null",
    "true",
    "false",
    "0",
    "-1",
    "1e999",
    "-1e999",
    "NaN",
    "Infinity",
    "-Infinity",
    "1.5",
    "1e-400",
    "\\",
    "\\u",
    "\\ud800",
    "\\uDC00",
    "\"model_type\"",
    "\"text_config\"",
    "\"layer_types\"",
    "\"hidden_size\"",
    "True",
    "None",
    "'",
    "//",
    "/*",
    "\u{FEFF}",
    "é",
    "😀",
    "\0",
    "\t",
    "01",
    "1.",
    "1e",
    "-",
    "\"x\":",
];

fn random_bytes(r: &mut Rng) -> String {
    let n = r.below(300);
    let bytes: Vec<u8> = (0..n)
        .map(|_| {
            if r.chance(2) {
                b"{}[]\":,0123456789-.eE ntrufalsNI\\"[r.below(33)]
            } else {
                r.next() as u8
            }
        })
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// A random JSON value as text (possibly nested past `json::MAX_DEPTH`).
fn any_value(r: &mut Rng, depth: usize, out: &mut String) {
    let deep = depth < 80 && r.chance(if depth > 3 { 3 } else { 2 });
    match r.below(if deep { 8 } else { 6 }) {
        0 => out.push_str(r.pick(&["null", "true", "false"])),
        1 => out.push_str(r.pick(&[
            "0",
            "-0",
            "1",
            "-7",
            "4096",
            "1e308",
            "1e309",
            "0.1",
            "2.5e-3",
            "123456789012345678901234567890",
        ])),
        2 => {
            let x = f64::from_bits(r.next());
            if x.is_finite() {
                out.push_str(&format!("{x:e}"));
            } else {
                out.push('1');
            }
        }
        3 => out.push_str(r.pick(&[
            "\"\"",
            "\"a\"",
            "\"é\\n\"",
            "\"\\u00e9\"",
            "\"\\ud83d\\ude00\"",
            "\"\\ud800\"",
            "\"llama\"",
        ])),
        4 => out.push_str(&format!("\"{}\"", r.pick(MODEL_TYPES))),
        5 => out.push_str(r.pick(&["NaN", "Infinity", "-Infinity", "1", "2"])),
        6 => {
            out.push('[');
            for i in 0..r.below(4) {
                if i > 0 {
                    out.push(',');
                }
                any_value(r, depth + 1, out);
            }
            out.push(']');
        }
        _ => {
            out.push('{');
            for i in 0..r.below(4) {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(r.pick(&["\"a\"", "\"b\"", "\"a\"", "\"hidden_size\"", "\"\""]));
                out.push(':');
                any_value(r, depth + 1, out);
            }
            out.push('}');
        }
    }
}

fn layer_list(r: &mut Rng, out: &mut String, items: &[&str]) {
    out.push('[');
    for i in 0..r.below(70) {
        if i > 0 {
            out.push(',');
        }
        out.push_str(r.pick(items));
    }
    out.push(']');
}

fn sep(first: &mut bool, r: &mut Rng, out: &mut String) {
    if !std::mem::take(first) {
        out.push_str(if r.chance(2) { ", " } else { ",\n  " });
    }
}

/// A config-shaped object: a model type and some of the keys the families read.
fn config(r: &mut Rng, depth: usize, out: &mut String) {
    out.push('{');
    let mut first = true;
    if !r.chance(20) {
        sep(&mut first, r, out);
        out.push_str("\"model_type\": \"");
        out.push_str(r.pick(MODEL_TYPES));
        out.push('"');
    }
    for (key, values) in KEYS {
        if r.chance(3) {
            continue;
        }
        sep(&mut first, r, out);
        out.push_str(&format!("\"{key}\": {}", r.pick(values)));
    }
    for key in [
        "layer_types",
        "mlp_only_layers",
        "moe_layers",
        "no_rope_layers",
    ] {
        if r.chance(3) {
            sep(&mut first, r, out);
            out.push_str(&format!("\"{key}\": "));
            let ints: &[&str] = &["0", "1", "2", "3", "23", "47", "-1", "1.5"];
            layer_list(
                r,
                out,
                if key == "layer_types" {
                    LAYER_KINDS
                } else {
                    ints
                },
            );
        }
    }
    if depth == 0 && r.chance(3) {
        sep(&mut first, r, out);
        out.push_str("\"text_config\": ");
        config(r, 1, out);
    }
    if r.chance(4) {
        sep(&mut first, r, out);
        out.push_str("\"quantization_config\": ");
        any_value(r, 1, out);
    }
    out.push('}');
}

/// 1 to 8 token-level edits of `base`, on char boundaries.
fn mutate(r: &mut Rng, base: &str) -> String {
    let mut s: Vec<char> = base.chars().collect();
    for _ in 0..1 + r.below(8) {
        let at = r.below(s.len() + 1);
        match r.below(4) {
            0 => {
                let t: Vec<char> = r.pick(TOKENS).chars().collect();
                s.splice(at..at, t);
            }
            1 if at < s.len() => {
                let end = (at + 1 + r.below(12)).min(s.len());
                s.drain(at..end);
            }
            2 if at < s.len() => {
                // Replace a digit run's neighbour: numbers out of range, zeros, signs.
                s[at] = r.pick(&['0', '9', '-', '.', 'e', '"', ',', '}', ']']);
            }
            _ => {
                let end = (at + r.below(60)).min(s.len());
                let span: Vec<char> = s[at..end].to_vec();
                let to = r.below(s.len() + 1);
                s.splice(to..to, span);
            }
        }
    }
    s.into_iter().collect()
}

fn input(r: &mut Rng, i: usize) -> String {
    match i % 8 {
        0 => random_bytes(r),
        1 => {
            let mut s = String::new();
            any_value(r, 0, &mut s);
            s
        }
        2 | 3 => {
            let mut s = String::new();
            config(r, 0, &mut s);
            s
        }
        4 => {
            let mut s = String::new();
            config(r, 0, &mut s);
            mutate(r, &s)
        }
        7 if i % 1024 == 7 => {
            // Deep nesting and long input.
            let n = 60 + r.below(10_000);
            format!("{}{}", "[".repeat(n), "]".repeat(r.below(n + 1)))
        }
        _ => {
            let seed = r.pick(SEEDS);
            if r.chance(8) {
                seed.to_string()
            } else {
                mutate(r, seed)
            }
        }
    }
}

/// Our value against serde_json's (numbers to within serde_json's own rounding).
fn same(a: &Value, b: &serde_json::Value) -> Result<(), String> {
    use serde_json::Value as S;
    match (a, b) {
        (Value::Null, S::Null) => Ok(()),
        (Value::Bool(x), S::Bool(y)) if x == y => Ok(()),
        (Value::Number(x), S::Number(y)) => {
            let y = y.as_f64().ok_or("serde number")?;
            let diff = (x - y).abs();
            if *x == y || diff <= 1e-15 * x.abs().max(y.abs()) || diff < 1e-300 {
                Ok(())
            } else {
                Err(format!("number {x} vs {y}"))
            }
        }
        (Value::String(x), S::String(y)) if x == y => Ok(()),
        (Value::Array(x), S::Array(y)) if x.len() == y.len() => {
            x.iter().zip(y).try_for_each(|(a, b)| same(a, b))
        }
        (Value::Object(x), S::Object(y)) => {
            let mut keys: Vec<&str> = x.iter().map(|(k, _)| k.as_str()).collect();
            keys.sort_unstable();
            keys.dedup();
            if keys.len() != y.len() {
                return Err(format!("{} distinct keys vs {}", keys.len(), y.len()));
            }
            for k in keys {
                let theirs = y
                    .get(k)
                    .ok_or_else(|| format!("key {k} missing in serde_json"))?;
                same(a.get(k).ok_or("own key")?, theirs)?;
            }
            Ok(())
        }
        _ => Err(format!("{} vs {b}", a.kind())),
    }
}

/// What Python's json (and so ours) reads but serde_json refuses.
fn python_only(v: &Value) -> bool {
    match v {
        Value::Number(x) => !x.is_finite(),
        Value::String(s) => s.contains('\u{FFFD}'),
        Value::Array(a) => a.iter().any(python_only),
        Value::Object(m) => m
            .iter()
            .any(|(k, v)| k.contains('\u{FFFD}') || python_only(v)),
        _ => false,
    }
}

fn check_json(text: &str) -> Result<(), String> {
    let ours = json::parse(text);
    let theirs = serde_json::from_str::<serde_json::Value>(text);
    match (&ours, &theirs) {
        (Ok(a), Ok(b)) => same(a, b),
        (Err(e), Ok(_)) => {
            if e.message.starts_with("nested deeper than") || e.message.contains("at most") {
                Ok(())
            } else {
                Err(format!("we refuse what serde_json reads: {e}"))
            }
        }
        (Ok(a), Err(e)) => {
            if python_only(a) || text.trim_start_matches('\u{FEFF}') != text {
                Ok(())
            } else {
                Err(format!("we read what serde_json refuses ({e})"))
            }
        }
        (Err(e), Err(_)) => {
            if e.line == 0 || e.column == 0 || e.message.is_empty() {
                Err(format!("bad position or message: {e:?}"))
            } else {
                Ok(())
            }
        }
    }
}

/// `Ok(true)` when the config was accepted.
fn check_config(text: &str) -> Result<bool, String> {
    check_json(text)?;
    match Arch::from_hf_config(text) {
        Err(e) => {
            let m = e.to_string();
            if m.chars().count() > MAX_MESSAGE {
                return Err(format!("message of {} characters", m.chars().count()));
            }
            Ok(false)
        }
        Ok((a, report)) => {
            a.validate()
                .map_err(|e| format!("accepted but invalid: {e}"))?;
            let p = a.params();
            let (total, active) = (p.total(), p.active());
            if !(total.is_finite() && total > 0.0 && active > 0.0 && active <= total) {
                return Err(format!("params total {total}, active {active}"));
            }
            for (what, x) in [
                ("kv per token", a.kv_bytes_per_token(2.0)),
                ("kv at 128K", a.kv_bytes(131072.0, 2.0)),
                ("flops per token", a.flops_per_token(4096.0)),
                ("matmul params", a.matmul_params_active()),
            ] {
                if !(x.is_finite() && x > 0.0) {
                    return Err(format!("{what} = {x}"));
                }
            }
            if let Some(m) = a.moe {
                let d = m.expected_distinct(64.0);
                if !(d.is_finite() && d > 0.0 && d <= m.experts) {
                    return Err(format!("distinct experts {d}"));
                }
                let c = m.critical_tokens(240.0, 2.0);
                if !(c.is_finite() && c >= 0.0 && c <= m.critical_rule(240.0, 2.0) * (1.0 + 1e-12))
                {
                    return Err(format!("critical tokens {c}"));
                }
            }
            let mut keys = report.unused_keys.clone();
            keys.sort();
            keys.dedup();
            if keys.len() != report.unused_keys.len() {
                return Err(format!("unused keys repeat: {:?}", report.unused_keys));
            }
            if a.describe().is_empty() || report.model_type.is_empty() {
                return Err("empty description".into());
            }
            Ok(true)
        }
    }
}

fn fuzz_configs(cases: usize) {
    let accepted = fuzz::run("config.json", cases, fuzz::seed(), input, |s| {
        check_config(s)
    });
    // The generators reach both sides: configs read and configs refused.
    assert!(
        accepted > cases / 50 && accepted < cases / 2,
        "{accepted} of {cases} accepted"
    );
}

#[test]
fn config_quick() {
    fuzz_configs(3_000);
}

#[test]
#[ignore = "volume: run by ./dev fuzz"]
fn fuzz_config() {
    fuzz_configs(fuzz::volume());
}

#[test]
fn seeds_are_read() {
    for s in SEEDS {
        assert!(check_config(s).unwrap(), "{s}");
    }
}
