//! Model architectures (`roofline::arch`): the architecture arithmetic of the scaling book's
//! parts 4 (transformers.md), 6 (applied-training.md), 7 (inference.md) and 8
//! (applied-inference.md) reproduced with hand calculations written out, the zoo against the
//! publishers' parameter counts, and `config.json` files of each family read back.

use crate::common;

use common::{close, rel};
use roofline::arch::json::{self, Value};
use roofline::arch::{arch_preset, arch_presets, Arch, Mla, Moe, SlidingWindow};

/// A dense, gated, untied GQA architecture with two norms per layer and no biases.
fn dense(layers: f64, d: f64, heads: f64, kv: f64, hd: f64, ffn: f64, vocab: f64) -> Arch {
    Arch {
        layers,
        dmodel: d,
        heads,
        kv_heads: kv,
        head_dim: hd,
        ffn,
        gated: true,
        vocab,
        tied_embeddings: false,
        qkv_bias: false,
        o_bias: false,
        mlp_bias: false,
        attn_sinks: false,
        norms_per_layer: 2.0,
        qk_norm: false,
        moe: None,
        mla: None,
        window: None,
    }
}

fn routed(experts: f64, top_k: f64, expert_ffn: f64) -> Moe {
    Moe {
        experts,
        top_k,
        expert_ffn,
        shared_experts: 0.0,
        shared_ffn: 0.0,
        dense_layers: 0.0,
        router_bias: false,
        shared_gate: false,
    }
}

fn zoo(id: &str) -> Arch {
    arch_preset(id)
        .unwrap_or_else(|| panic!("no preset {id}"))
        .arch
}

fn read(config: &str) -> (Arch, roofline::ConfigReport) {
    Arch::from_hf_config(config).unwrap_or_else(|e| panic!("{e}"))
}

fn read_err(config: &str) -> String {
    match Arch::from_hf_config(config) {
        Ok((a, _)) => panic!("accepted: {}", a.describe()),
        Err(e) => e.to_string(),
    }
}

// ---------------------------------------------------------------------------------------
// Part 4 (transformers.md)

/// transformers.md, "A Few Problems to Work", question 1: "How many parameters does a model
/// with D=4096, F=4·D, V=32,000, and L=64 have? What fraction of these are attention
/// parameters? How large are our KV caches per token? You can assume N·H=D and multi-head
/// attention with int8 KVs." Answer: "L·(3DF + 4DNH + 2D) + 2DV ... = 16e9", "1/4", "2·L·N·H
/// = 2·64·4096 in int8, which is 512 KiB / token".
#[test]
fn part4_question1_parameters_attention_share_kv_per_token() {
    // N·H = D: 32 heads of 128.
    let a = dense(64.0, 4096.0, 32.0, 32.0, 128.0, 4.0 * 4096.0, 32000.0);
    a.validate().unwrap();
    // The book's formula counts the two norms per layer but not the final norm (D).
    let (d, f, l, v) = (4096.0, 16384.0, 64.0, 32000.0);
    let book = l * (3.0 * d * f + 4.0 * d * d + 2.0 * d) + 2.0 * d * v;
    assert_eq!(book, 17_442_537_472.0);
    assert_eq!(a.params_total(), book + d);
    // The book's "16e9" comes from its rounded arithmetic (4e3 for 4096, 16e3 for 16384):
    // 64·(3·4e3·16e3 + 4·4e3·4e3 + 2·4e3) + 2·4e3·32e3 = 16.6e9, which it writes as 16B.
    let rounded = dense(64.0, 4000.0, 32.0, 32.0, 125.0, 16000.0, 32000.0);
    let r = rounded.params_total() - 4000.0;
    assert_eq!(r, 16_640_512_000.0);
    assert!((16e9..17e9).contains(&r));
    // Attention share: 4DNH / (4DNH + 3DF) = 4D² / (4D² + 12D²) = 1/4 exactly.
    let p = a.params();
    assert_eq!(p.attention / (p.attention + p.dense_mlp), 0.25);
    // KV per token in int8: 2·L·N·H = 2·64·4096 = 524,288 bytes = 512 KiB.
    assert_eq!(a.kv_bytes_per_token(1.0), 2.0 * 64.0 * 4096.0);
    assert_eq!(a.kv_bytes_per_token(1.0), 512.0 * 1024.0);
}

/// transformers.md, "Inference" in the recap above the problems: "For a moderately sized
/// model with 8k context length, 64 layers, and KH = NH = D = 8192, this is 2·8192·64·8192 =
/// 8GiB" (int8).
#[test]
fn part4_kv_cache_of_one_8k_sequence() {
    let a = dense(64.0, 8192.0, 64.0, 64.0, 128.0, 4.0 * 8192.0, 32000.0);
    assert_eq!(a.kv_bytes(8192.0, 1.0), 2.0 * 8192.0 * 64.0 * 8192.0);
    assert_eq!(a.kv_bytes(8192.0, 1.0), 8.0 * 1024.0 * 1024.0 * 1024.0);
}

/// transformers.md, question 5: "At what sequence length are self-attention FLOPs equal to the
/// QKVO projection FLOPs? ... 24BTDNH = 12BT²NH ... 2D = T, so e.g. for D=4096, this is 8192."
/// And "Fractional cost of attention with context length": with F=4D, D=NH and N=K,
/// attention FLOPs / matmul FLOPs = T/8D, "Gemma-27B with D=4608, attention becomes dominant
/// around 37k sequence lengths". Per token (B = T = 1, context S): attention `4·L·N·H·S`
/// against `2·params` of the projections.
#[test]
fn part4_attention_flops_against_projections() {
    // D = 4096, MHA 32 × 128.
    let a = dense(1.0, 4096.0, 32.0, 32.0, 128.0, 16384.0, 32000.0);
    let qkvo = 2.0 * a.params().attention; // 2 FLOPs per projection weight
    assert_eq!(qkvo, 2.0 * 4.0 * 4096.0 * 4096.0);
    assert_eq!(a.attention_flops_per_token(8192.0), qkvo);
    assert!(a.attention_flops_per_token(8191.0) < qkvo);
    // T = 8D: D = 4608 = 36 heads of 128, F = 4D; attention equals all matmul FLOPs but the
    // LM head at S = 8·4608 = 36,864 ≈ 37k.
    let g = dense(2.0, 4608.0, 36.0, 36.0, 128.0, 4.0 * 4608.0, 32000.0);
    let matmuls = 2.0 * (g.params().attention + g.params().dense_mlp);
    assert_eq!(g.attention_flops_per_token(8.0 * 4608.0), matmuls);
    assert_eq!(8.0 * 4608.0, 36_864.0);
    // The whole per-token count is 2·(matmul weights incl. the LM head) + attention.
    assert_eq!(
        g.flops_per_token(1000.0),
        matmuls + 2.0 * 4608.0 * 32000.0 + g.attention_flops_per_token(1000.0)
    );
}

/// transformers.md, question 8: "What batch size in tokens is required to be compute-bound for
/// an MoE with weights in int8 on TPU v5e? For DeepSeek, which has 256 (routed) experts and
/// k=8 ... (2·k·BDF) / EDF > 240 or k·B/E > 120 ... B > 120·256/8 = 3840."
#[test]
fn part4_question8_moe_critical_batch() {
    let ds = zoo("deepseek-v3").moe.unwrap();
    assert_eq!((ds.experts, ds.top_k), (256.0, 8.0));
    // int8 weights (1 byte), bf16 FLOPs: ridge 240.
    assert_eq!(ds.critical_rule(240.0, 1.0), 3840.0);
    // With the experts a batch actually hits (uniform routing), the exact crossover is the
    // same: at T = 3840, (1 − 8/256)^3840 = e^(−121.9), so all 256 experts are read.
    close(
        ds.critical_tokens(240.0, 1.0),
        3840.0,
        1e-12,
        "exact critical",
    );
    close(ds.intensity(3840.0, 1.0), 240.0, 1e-12, "intensity at 3840");
    assert_eq!(
        ds.critical_line(240.0, 1.0),
        "routed experts reach the ridge 240 FLOPs/byte at T = 3840 tokens (2·T·k = ridge·s_w·E·(1 − (1 − k/E)^T)); part 7's rule E/k · ridge·s_w/2 = 256/8 · 240·1/2 = 3840: E/k = 32 times the dense 120"
    );
    assert!(ds.intensity(3000.0, 1.0) < 240.0);
    assert!(ds.intensity(4000.0, 1.0) > 240.0);
}

/// transformers.md, question 7: "Given that it has 37B activated parameters ... this training
/// run should have used about 6·37e9·14.8e12 = 3.3e24 FLOPs." DeepSeek's own active count
/// leaves out the embedding table (see `zoo_against_published_counts`).
#[test]
fn part4_question7_deepseek_training_flops() {
    let a = zoo("deepseek-v3");
    let active = a.params_active() - a.params().embedding;
    assert_eq!((active / 1e9).round(), 37.0); // 36.6e9
                                              // The book's 6·37e9·14.8e12 = 3.29e24 ("3.3e24"); with 36.6e9, 3.25e24.
    assert!(rel(6.0 * 37e9 * 14.8e12, 3.3e24) < 0.005);
    let flops = 6.0 * active * 14.8e12;
    assert!(rel(flops, 3.3e24) < 0.015, "{flops:e}");
}

// ---------------------------------------------------------------------------------------
// Part 6 (applied-training.md) and part 8 (applied-inference.md): LLaMA 3-70B

/// applied-training.md, "Counting parameters and FLOPs": FFW `8,192·8,192·3.5·3·80 =
/// 56.3e9`, vocab `2·128,256·8,192 = 2.1e9`, attention `80·(2·8,192·64·128 + 2·8,192·8·128)
/// = 12e9`, total `70.4e9`; "roughly 6·70e9 = 4.2e11 FLOPs / token" in training.
/// applied-inference.md: "each forward pass uses 2·70e9·B FLOPs".
#[test]
fn part6_llama3_70b_parameters_and_flops() {
    let a = zoo("llama3-70b");
    let p = a.params();
    assert_eq!(p.dense_mlp, 8192.0 * 28672.0 * 3.0 * 80.0);
    assert_eq!(p.dense_mlp, 56_371_445_760.0); // 56.3e9
    assert_eq!(p.embedding + p.lm_head, 2.0 * 128256.0 * 8192.0); // 2.1e9
    assert_eq!(
        p.attention,
        80.0 * (2.0 * 8192.0 * 64.0 * 128.0 + 2.0 * 8192.0 * 8.0 * 128.0)
    );
    assert_eq!(p.attention, 12_079_595_520.0); // 12e9
                                               // + norms 80·2·8192 + 8192 = 1,318,912: 70,553,706,496 (the `llm` op's count).
    assert_eq!(p.norms, 1_318_912.0);
    assert_eq!(a.params_total(), 70_553_706_496.0);
    assert!(rel(a.params_total(), 70.4e9) < 0.003);
    // Forward FLOPs per token: 2 per matmul weight (the embedding is gathered, not
    // multiplied): 2·(70,553,706,496 − 1,050,673,152 − 1,318,912) = 1.39e11 ≈ 2·70e9.
    assert_eq!(
        a.matmul_params_active(),
        70_553_706_496.0 - 128256.0 * 8192.0 - 1_318_912.0
    );
    assert!(rel(a.flops_per_token(0.0), 2.0 * 70e9) < 0.01);
    assert!(rel(3.0 * a.flops_per_token(0.0), 4.2e11) < 0.01);
}

/// applied-inference.md: "LLaMA 3-70B has 8 KV heads, so the size per token is 2·K·H·L =
/// 2·8·128·80 = 160kB" (int8); "a sequence length of 32k tokens ... 160e3·32,768 = 5.3GB /
/// sequence"; "batch size 32 and 8192 sequence length ... 160e3·8192·32 = 41.9e9 bytes"; the
/// table's KV size per token "bf16 324kB, int8 162kB, int4 81kB".
#[test]
fn part8_llama3_70b_kv_cache() {
    let a = zoo("llama3-70b");
    // 2·8·128·80 = 163,840 bytes = 160 KiB: the book's "160kB" is KiB.
    assert_eq!(a.kv_bytes_per_token(1.0), 2.0 * 8.0 * 128.0 * 80.0);
    assert_eq!(a.kv_bytes_per_token(1.0), 160.0 * 1024.0);
    // 32k context: 163,840·32,768 = 5.37e9 (the book multiplies by 160e3: 5.24e9, "5.3GB").
    assert_eq!(a.kv_bytes(32768.0, 1.0), 5_368_709_120.0);
    assert!(rel(a.kv_bytes(32768.0, 1.0), 5.3e9) < 0.02);
    // Batch 32 at 8192 in int8: exactly 40 GiB = 42.9e9 bytes; the book's 41.9e9 uses 160e3
    // bytes per token (2.4% low).
    assert_eq!(32.0 * a.kv_bytes(8192.0, 1.0), 40.0 * (1u64 << 30) as f64);
    assert_eq!(160e3 * 8192.0 * 32.0, 41_943_040_000.0);
    // bf16 / int8 / int4: 327,680 / 163,840 / 81,920 bytes; the table's 324 / 162 / 81 kB are
    // within 1.2%.
    for (s, book) in [(2.0, 324e3), (1.0, 162e3), (0.5, 81e3)] {
        let got = a.kv_bytes_per_token(s);
        assert_eq!(got, s * 163_840.0);
        assert!(rel(got, book) < 0.012, "{s}: {got}");
    }
    // Memory of the batch-32 question: "41.9e9 + 70e9 = 112GB"; exactly, 70.55e9 int8
    // parameters + 42.9e9 of KV caches = 113.5e9 (the book's two roundings add 1.3%).
    let total = a.params_total() + 32.0 * a.kv_bytes(8192.0, 1.0);
    assert_eq!(total, 70_553_706_496.0 + 42_949_672_960.0);
    assert!(rel(total, 112e9) < 0.015, "{total:e}");
}

// ---------------------------------------------------------------------------------------
// Part 7 (inference.md)

/// inference.md, "What about memory?" for LLaMA 2-13B (L 40, D 5,120, F 13,824, N = K = 40,
/// H 128, V 32,000): FFW "5,120·5,120·2.7·3·40 = 8.5e9", vocab "2·32,000·5,120 = 0.3e9",
/// attention "(2·5,120·40·128 + 2·5,120·40·128)·40 = 4.2e9", "13e9 total parameters"; "a KV
/// cache for a single 8192 sequence at bf16 is 8192·40·128·40·2·2 = 6.7GB"; the throughput
/// table's KV column (6.7 per sequence, ×8 = 53.6, ..., ×240 = 1608) and total memory at
/// batch 1 (32.7 = 26 params + 6.7); with 8 KV heads ("1:5 GMQA") 1.34 per sequence.
/// The architecture is read from LLaMA 2-13B's own config.json.
#[test]
fn part7_llama2_13b_memory() {
    let (a, _) = read(LLAMA2_13B);
    let p = a.params();
    assert_eq!(p.dense_mlp, 3.0 * 5120.0 * 13824.0 * 40.0);
    assert_eq!(p.dense_mlp, 8_493_465_600.0); // 8.5e9 (13,824 = 2.7·5,120)
    assert_eq!(p.embedding + p.lm_head, 2.0 * 32000.0 * 5120.0); // 0.33e9
    assert_eq!(
        p.attention,
        (2.0 * 5120.0 * 40.0 * 128.0 + 2.0 * 5120.0 * 40.0 * 128.0) * 40.0
    );
    assert_eq!(p.attention, 4_194_304_000.0); // 4.2e9
                                              // + norms 40·2·5120 + 5120 = 414,720.
    assert_eq!(a.params_total(), 13_015_864_320.0);
    assert!(rel(a.params_total(), 13e9) < 0.002);
    // One 8192-position sequence in bf16: 8192·40·128·40·2·2 = 6,710,886,400 bytes.
    let seq = a.kv_bytes(8192.0, 2.0);
    assert_eq!(seq, 8192.0 * 40.0 * 128.0 * 40.0 * 2.0 * 2.0);
    assert!(rel(seq, 6.7e9) < 0.002);
    for (b, book) in [
        (1.0, 6.7e9),
        (8.0, 53.6e9),
        (16.0, 107.2e9),
        (32.0, 214.4e9),
        (64.0, 428.8e9),
        (240.0, 1608e9),
    ] {
        assert!(rel(b * seq, book) < 0.002, "B={b}");
    }
    // Total memory at B = 1: bf16 parameters (26e9) + one cache = 32.7e9.
    assert!(rel(2.0 * a.params_total() + seq, 32.7e9) < 0.002);
    // 8 KV heads shared by the 40 query heads: 5× smaller, 1.34e9 per sequence.
    let gqa = Arch { kv_heads: 8.0, ..a };
    assert_eq!(gqa.kv_bytes(8192.0, 2.0), seq / 5.0);
    assert!(rel(gqa.kv_bytes(8192.0, 2.0), 1.34e9) < 0.002);
    assert!(rel(64.0 * gqa.kv_bytes(8192.0, 2.0), 85.76e9) < 0.002);
}

/// inference.md, worked problems 1, 2 and 5, on the model "based on LLaMA-2 13B" (L 64,
/// D 4,096, F 16,384, N 32, K 8, H 256, V 32,128, shared input and output embeddings):
/// (1) "L·D·(3F + 2H·(N + K)) + D·V ... = 18.4e9"; "2·L·K·H per token in int8, which is
/// 2·64·8·256 = 262kB"; (2) "262e3·128e3 = 33.5GB per batch entry ... (16·16e9 − 18.4e9) /
/// 33.5e9 = 7. If we had K=1, we would have 8 times this, aka about 56"; (5) as an MoE with
/// E=16, k=2: "L·D·(3EF + 2H·(N + K)) + D·V ... = 212e9 total parameters", "31.2e9"
/// activated, "240·(16 / 2) = 1920 tokens", the same KV cache, and "2·31.2e9·T" FLOPs.
#[test]
fn part7_worked_problems_1_2_5() {
    let tied = |a: Arch| Arch {
        tied_embeddings: true,
        ..a
    };
    let a = tied(dense(64.0, 4096.0, 32.0, 8.0, 256.0, 16384.0, 32128.0));
    a.validate().unwrap();
    let (l, d, f, h, n, k, v) = (64.0, 4096.0, 16384.0, 256.0, 32.0, 8.0, 32128.0);
    let book = l * d * (3.0 * f + 2.0 * h * (n + k)) + d * v;
    assert_eq!(book, 18_385_207_296.0);
    let norms = l * 2.0 * d + d; // 528,384: not in the book's formula
    assert_eq!(a.params_total(), book + norms);
    assert!(rel(a.params_total(), 18.4e9) < 0.001);
    // (1) KV per token, int8: 2·64·8·256 = 262,144 bytes.
    assert_eq!(a.kv_bytes_per_token(1.0), 262_144.0);
    // (2) 128k = 128e3 positions: 33.5e9 per sequence; 16 chips of 16e9 bytes hold 7.
    let seq = a.kv_bytes(128e3, 1.0);
    assert_eq!(seq, 33_554_432_000.0);
    let fit = ((16.0 * 16e9 - a.params_total()) / seq).floor();
    assert_eq!(fit, 7.0);
    // With K = 1 the cache is 8× smaller (and the K/V projections shrink a little): 56.
    let k1 = Arch { kv_heads: 1.0, ..a };
    assert_eq!(k1.kv_bytes(128e3, 1.0), seq / 8.0);
    assert_eq!(
        ((16.0 * 16e9 - k1.params_total()) / k1.kv_bytes(128e3, 1.0)).floor(),
        56.0
    );
    // (5) The MoE: E = 16 copies of the MLP, k = 2 per token.
    let m = Arch {
        moe: Some(routed(16.0, 2.0, 16384.0)),
        ..a
    };
    m.validate().unwrap();
    let e = 16.0;
    let book_total = l * d * (3.0 * e * f + 2.0 * h * (n + k)) + d * v;
    assert_eq!(book_total, 211_658_735_616.0); // "212e9"
    let routers = l * e * d; // 4,194,304: the router D×E per layer
    assert_eq!(m.params_total(), book_total + norms + routers);
    let book_active = l * d * (3.0 * 2.0 * f + 2.0 * h * (n + k)) + d * v;
    assert_eq!(book_active, 31_270_109_184.0); // "31.2e9" (truncated)
    assert_eq!(m.params_active(), book_active + norms + routers);
    // "an increase of about 12x" and "less than 2x over the dense variant".
    assert!((11.0..12.5).contains(&(m.params_total() / a.params_total())));
    assert!(m.params_active() / a.params_total() < 2.0);
    // (2) of problem 5: E/k times the dense critical batch, 240·16/2 = 1920 in bf16.
    let moe = m.moe.unwrap();
    assert_eq!(moe.critical_rule(240.0, 2.0), 1920.0);
    close(moe.critical_tokens(240.0, 2.0), 1920.0, 1e-12, "exact");
    // (3) The KV cache is unchanged.
    assert_eq!(m.kv_bytes_per_token(1.0), a.kv_bytes_per_token(1.0));
    // (4) 2·active·T FLOPs (context aside): 2 per matrix weight, i.e. the book's active
    // count plus the routers (the tied table counts once, as the LM head).
    assert_eq!(m.flops_per_token(0.0), 2.0 * (book_active + routers));
}

// ---------------------------------------------------------------------------------------
// Mixture of experts

/// `expected_distinct(T) = E·(1 − (1 − k/E)^T)`, checked against independent counts.
#[test]
fn expected_distinct_experts() {
    let m = routed(8.0, 2.0, 1.0);
    // One token: k experts. Two: |A ∪ B| = |A| + |B| − E|A ∩ B| = 2 + 2 − k²/E = 3.5.
    assert_eq!(m.expected_distinct(1.0), 2.0);
    assert_eq!(m.expected_distinct(2.0), 4.0 - 4.0 / 8.0);
    assert_eq!(m.expected_distinct(0.0), 0.0);
    assert_eq!(m.expected_distinct(-3.0), 0.0);
    assert_eq!(m.expected_distinct(f64::NAN), 0.0);
    assert!(m.expected_distinct(1e6) <= 8.0);
    close(m.expected_distinct(200.0), 8.0, 1e-15, "saturates at E");
    // Brute force: E = 5, k = 2, T = 3 — every (C(5,2))³ = 1000 routing equally likely.
    let pairs: Vec<u8> = (0..5u8)
        .flat_map(|i| (i + 1..5).map(move |j| (1 << i) | (1 << j)))
        .collect();
    assert_eq!(pairs.len(), 10);
    let mut sum = 0u32;
    for a in &pairs {
        for b in &pairs {
            for c in &pairs {
                sum += (a | b | c).count_ones();
            }
        }
    }
    let m5 = routed(5.0, 2.0, 1.0);
    close(
        m5.expected_distinct(3.0),
        f64::from(sum) / 1000.0,
        1e-15,
        "E=5 k=2 T=3",
    );
    assert_eq!(f64::from(sum) / 1000.0, 5.0 * (1.0 - 0.6f64.powi(3)));
    // E = k: every expert every time.
    assert_eq!(routed(4.0, 4.0, 1.0).expected_distinct(1.0), 4.0);
    // DeepSeek-V3 at 64 decode sequences: 256·(1 − (31/32)^64) = 222.4 of 256.
    let ds = zoo("deepseek-v3").moe.unwrap();
    let want = 256.0 * (1.0 - (31.0f64 / 32.0).powi(64));
    close(ds.expected_distinct(64.0), want, 1e-14, "DeepSeek T=64");
    assert!((222.0..223.0).contains(&want));
    let line = ds.distinct_line(64.0);
    assert!(
        line.starts_with("E·(1 − (1 − k/E)^T) = 256·(1 − (1 − 8/256)^64) = 222.4 of 256"),
        "{line}"
    );
}

/// The exact crossover of the routed experts' matmuls never exceeds part 7's E/k rule and
/// equals it once a batch hits every expert; with a tiny ridge every batch is compute-bound.
#[test]
fn moe_critical_batch_exact_and_rule() {
    for id in [
        "mixtral-8x7b",
        "qwen3-30b-a3b",
        "gpt-oss-120b",
        "llama4-maverick",
    ] {
        let m = zoo(id).moe.unwrap();
        for (ridge, s) in [(240.0, 2.0), (240.0, 1.0), (295.0, 2.0), (590.0, 0.5)] {
            let exact = m.critical_tokens(ridge, s);
            let rule = m.critical_rule(ridge, s);
            assert!(exact <= rule * (1.0 + 1e-15), "{id}");
            close(m.intensity(exact, s), ridge, 1e-9, id);
            // T*·k/E ≥ ridge·s/2 ≥ 60 here, so (1 − k/E)^T* is negligible.
            close(exact, rule, 1e-12, id);
        }
    }
    // gpus.md: "the new OpenAI OSS model with k=4 and E=128" — E/k = 32 times the dense batch.
    let g = zoo("gpt-oss-120b").moe.unwrap();
    assert_eq!(g.critical_rule(2475.0, 2.0) / 2475.0, 32.0);
    // Intensity: a dense MLP has 2T/s_w; the MoE at one token has 2k/(s_w·k) = the same.
    assert_eq!(g.intensity(1.0, 2.0), 1.0);
    // A ridge below what one token reaches: compute-bound at any batch.
    assert_eq!(g.critical_tokens(0.5, 2.0), 0.0);
}

// ---------------------------------------------------------------------------------------
// Attention kinds: MLA and windows

/// DeepSeek-V3's MLA cache: per layer the 512-dim latent and the 64-dim RoPE key, shared by
/// all 128 heads: 61·576·2 = 70,272 bytes per token in bf16 (against 2·61·128·128·2 =
/// 3,997,696 for the same heads in plain multi-head attention: 57× less). Decoding attends
/// over the latent (absorbed form): per layer and position 2·128·(576 + 512) = 278,528
/// FLOPs for 576·2 bytes read — 241.8 FLOPs per byte, against GQA's 2·(H/K)/s.
#[test]
fn mla_cache_and_attention_flops() {
    let a = zoo("deepseek-v3");
    assert_eq!(a.kv_bytes_per_token(2.0), 61.0 * (512.0 + 64.0) * 2.0);
    assert_eq!(a.kv_bytes_per_token(2.0), 70_272.0);
    let mha = 2.0 * 61.0 * 128.0 * 128.0 * 2.0;
    assert!((56.0..57.0).contains(&(mha / 70_272.0)));
    assert_eq!(a.kv_bytes(131072.0, 2.0), 70_272.0 * 131072.0);
    let per = a.attention_flops_per_token(1.0);
    assert_eq!(per, 61.0 * 2.0 * 128.0 * (576.0 + 512.0));
    assert_eq!(a.attention_flops_per_token(4096.0), 4096.0 * per);
    let intensity = per / a.kv_bytes_per_token(2.0);
    assert!((241.7..241.8).contains(&intensity));
    // GQA: Llama-3 70B, 4·H·h FLOPs over 2·K·h·s bytes: 2·(64/8)/2 = 8.
    let l = zoo("llama3-70b");
    assert_eq!(
        l.attention_flops_per_token(1.0) / l.kv_bytes_per_token(2.0),
        8.0
    );
    // MLA attention parameters per layer: q_a 7168·1536 + 1536 (norm) + q_b 1536·128·192,
    // kv_a 7168·576 + 512 (norm), kv_b 512·128·256, o 128·128·7168.
    let layer = 7168.0 * 1536.0
        + 1536.0
        + 1536.0 * 128.0 * 192.0
        + 7168.0 * 576.0
        + 512.0
        + 512.0 * 128.0 * 256.0
        + 128.0 * 128.0 * 7168.0;
    assert_eq!(layer, 187_107_328.0);
    assert_eq!(a.attention_params_per_layer(), layer);
    let d = a.attn_dims();
    assert_eq!((d.qk, d.v, d.cache, d.group), (576.0, 512.0, 576.0, 128.0));
}

/// Sliding windows cap the cache (and the reads) of their layers. inference.md: "Local
/// attention caps the context to a small to moderately sized max length ... By mixing in
/// some local layers into the model with some global layers, the KV cache is greatly reduced
/// in size at contexts longer than the local window."
#[test]
fn sliding_windows_cap_the_cache() {
    // Gemma 3 27B at 128K (131,072) in bf16: 2·16·128·2 = 8192 bytes per layer and position;
    // 10 global layers hold 131,072 positions, 52 windowed ones 1024.
    let g = zoo("gemma3-27b");
    let per_layer_pos = 2.0 * 16.0 * 128.0 * 2.0;
    let want = per_layer_pos * (10.0 * 131072.0 + 52.0 * 1024.0);
    assert_eq!(g.kv_bytes(131072.0, 2.0), want);
    assert_eq!(want, 11_173_625_856.0);
    // Without the window: 62·131,072·8192 = 62 GiB, 6× more.
    assert_eq!(
        g.kv_bytes_per_token(2.0) * 131072.0,
        62.0 * (1u64 << 30) as f64
    );
    // Below the window nothing is capped.
    assert_eq!(g.kv_bytes(1000.0, 2.0), 1000.0 * g.kv_bytes_per_token(2.0));
    assert_eq!(g.context_sum(1024.0), 62.0 * 1024.0);
    // Attention FLOPs follow the same positions.
    assert_eq!(
        g.attention_flops_per_token(131072.0),
        4.0 * 32.0 * 128.0 * (10.0 * 131072.0 + 52.0 * 1024.0)
    );
    // Mistral 7B v0.1: every layer windowed at 4096: the cache stops growing there.
    let m = zoo("mistral-7b");
    assert_eq!(m.kv_bytes(32768.0, 2.0), m.kv_bytes(4096.0, 2.0));
    assert_eq!(
        m.kv_bytes(4096.0, 2.0),
        32.0 * 4096.0 * 2.0 * 8.0 * 128.0 * 2.0
    ); // 512 MiB
       // gpt-oss-120b: 18 global layers, 18 at 128, 2·8·64·2 = 2048 bytes per layer-position.
    let o = zoo("gpt-oss-120b");
    assert_eq!(
        o.kv_bytes(131072.0, 2.0),
        2048.0 * (18.0 * 131072.0 + 18.0 * 128.0)
    );
}

// ---------------------------------------------------------------------------------------
// The zoo

/// Every preset against its publisher's counts. Tolerances follow how each publisher rounds
/// (the digits it prints), and where a count covers something else, the test says what.
#[test]
fn zoo_against_published_counts() {
    let ids: Vec<&str> = arch_presets().iter().map(|p| p.id).collect();
    assert!(ids.len() >= 17, "{ids:?}");
    for id in [
        "llama3-8b",
        "llama3-70b",
        "llama3.1-8b",
        "llama3.1-70b",
        "llama3.1-405b",
        "llama4-scout",
        "llama4-maverick",
        "mistral-7b",
        "mixtral-8x7b",
        "mixtral-8x22b",
        "qwen2.5-7b",
        "qwen2.5-72b",
        "qwen3-30b-a3b",
        "qwen3-235b-a22b",
        "deepseek-v3",
        "gpt-oss-20b",
        "gpt-oss-120b",
        "gemma3-27b",
        "qwen3-32b",
        "minimax-m2.5",
        "kimi-k2.5",
    ] {
        assert!(ids.contains(&id), "missing {id}");
    }
    for p in arch_presets() {
        p.arch.validate().unwrap();
        assert!(p.source.contains("config.json"), "{}", p.id);
        assert!(
            p.id.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '.'),
            "{}",
            p.id
        );
    }
    // (id, published total, tolerance, published active, tolerance, active convention)
    let emb = |a: &Arch| a.params().embedding;
    let check = |id: &str, total: f64, tt: f64, active: Option<(f64, f64, bool)>| {
        let a = zoo(id);
        let t = a.params_total();
        assert!(
            rel(t, total) <= tt,
            "{id}: total {t} vs {total} (rel {})",
            rel(t, total)
        );
        match active {
            Some((want, ta, with_embedding)) => {
                let got = a.params_active() - if with_embedding { 0.0 } else { emb(&a) };
                assert!(rel(got, want) <= ta, "{id}: active {got} vs {want}");
                assert!(a.params_active() < t);
            }
            None => assert_eq!(a.params_active(), t, "{id}: dense"),
        }
    };
    // Meta (model cards, 2 decimals on Hugging Face): 8.03B, 70.6B, 405.85B (8B and 70B keep
    // the `llm` op's exact counts).
    assert_eq!(zoo("llama3-8b").params_total(), 8_030_261_248.0);
    assert_eq!(zoo("llama3-70b").params_total(), 70_553_706_496.0);
    check("llama3-8b", 8.03e9, 0.001, None);
    check("llama3-70b", 70.6e9, 0.001, None);
    check("llama3.1-8b", 8.03e9, 0.001, None);
    check("llama3.1-70b", 70.6e9, 0.001, None);
    check("llama3.1-405b", 405.85e9, 0.0001, None);
    // Llama 4 (Meta: "17B active, 109B total" and "17B active, 400B total"): the totals
    // include the vision encoder (Scout's parameter listing: 109,676,279,296), so the
    // language model counted here is 1.7% below; active rounds to the billion.
    check("llama4-scout", 109e9, 0.02, Some((17e9, 0.02, true)));
    check("llama4-maverick", 400e9, 0.005, Some((17e9, 0.02, true)));
    // Mistral announces "7.3B" for Mistral 7B; its checkpoint holds 7,241,732,096.
    assert_eq!(zoo("mistral-7b").params_total(), 7_241_732_096.0);
    check("mistral-7b", 7.3e9, 0.01, None);
    // Mixtral: "46.7B total parameters but only uses 12.9B parameters per token"; 8x22B:
    // "141B parameters, 39B active" (embedding counted in active).
    check("mixtral-8x7b", 46.7e9, 0.001, Some((12.9e9, 0.002, true)));
    check("mixtral-8x22b", 141e9, 0.003, Some((39e9, 0.004, true)));
    // Qwen model cards (2 or 1 decimals): 7.61B (6.53B non-embedding), 72.7B (70.0B); Qwen3:
    // 30.5B / 3.3B activated (3.35B: Qwen truncates), 235B / 22B.
    check("qwen2.5-7b", 7.61e9, 0.001, None);
    check("qwen2.5-72b", 72.7e9, 0.001, None);
    // Non-embedding counts (Qwen2.5-72B's card says 70.0B, but 72.7B less its two
    // 152064·8192 tables is 70.2B: that one is left out).
    for (id, non_emb) in [
        ("qwen2.5-7b", 6.53e9),
        ("qwen3-30b-a3b", 29.9e9),
        ("qwen3-32b", 31.2e9),
    ] {
        let a = zoo(id);
        let p = a.params();
        assert!(
            rel(a.params_total() - p.embedding - p.lm_head, non_emb) < 0.001,
            "{id}"
        );
    }
    check("qwen3-30b-a3b", 30.5e9, 0.002, Some((3.3e9, 0.02, true)));
    check("qwen3-235b-a22b", 235e9, 0.001, Some((22e9, 0.01, true)));
    // DeepSeek-V3: 671B total, 37B activated; DeepSeek leaves the embedding table out of
    // active (DeepSeek-V2-Lite's "2.4B activated" is 2.45B without it, 2.66B with it; see
    // `deepseek_configs`): 36.6B here.
    check("deepseek-v3", 671e9, 0.001, Some((37e9, 0.015, false)));
    // gpt-oss model card table: 20.91B total, 3.61B active; 116.83B, 5.13B — OpenAI's active
    // leaves out the embedding (its table lists "Embed + Unembed" apart).
    check("gpt-oss-20b", 20.91e9, 0.0005, Some((3.61e9, 0.001, false)));
    check(
        "gpt-oss-120b",
        116.83e9,
        0.0001,
        Some((5.13e9, 0.001, false)),
    );
    // Gemma 3: 27B (the language model; the 0.4B SigLIP encoder aside).
    check("gemma3-27b", 27e9, 0.001, None);
    // The serving-at-load set's models (issue 40). Qwen3-32B's card: 32.8B (31.2B
    // non-embedding, above). MiniMax: "230B total, 10B activated" (M2's card; M2.5 keeps its
    // config), rounded to tens and to the billion: 228.7B and, without the embedding table as
    // DeepSeek counts, 10.42B here. Moonshot (Kimi K2 and K2.5 cards): "1T total, 32B
    // activated", rounded to the trillion: 1.026T and 31.69B without the embedding table.
    check("qwen3-32b", 32.8e9, 0.002, None);
    check("minimax-m2.5", 230e9, 0.006, Some((10e9, 0.05, false)));
    check("kimi-k2.5", 1e12, 0.03, Some((32e9, 0.015, false)));
}

/// MiniMaxAI/MiniMax-M2.5's config.json (the copy in ai-dynamo/aiconfigurator,
/// model_configs/MiniMaxAI--MiniMax-M2.5_config.json, commit 095f58a51).
const MINIMAX_M25: &str = r#"{
  "architectures": [
    "MiniMaxM2ForCausalLM"
  ],
  "model_type": "minimax_m2",
  "num_hidden_layers": 62,
  "hidden_size": 3072,
  "num_attention_heads": 48,
  "num_key_value_heads": 8,
  "head_dim": 128,
  "intermediate_size": 1536,
  "vocab_size": 200064,
  "num_experts_per_tok": 8,
  "num_local_experts": 256,
  "max_position_embeddings": 196608,
  "rope_theta": 5000000,
  "rotary_dim": 64,
  "hidden_act": "silu",
  "rms_norm_eps": 1e-06,
  "use_cache": true,
  "tie_word_embeddings": false,
  "use_qk_norm": true,
  "qk_norm_type": "per_layer",
  "use_routing_bias": true,
  "use_mtp": true,
  "mtp_transformer_layers": 1,
  "num_mtp_modules": 3,
  "shared_intermediate_size": 0,
  "scoring_func": "sigmoid",
  "quantization_config": {
    "quant_method": "fp8",
    "fmt": "float8_e4m3fn",
    "activation_scheme": "dynamic",
    "weight_block_size": [128, 128],
    "modules_to_not_convert": ["gate", "e_score_correction_bias", "lm_head"]
  },
  "auto_map": {
    "AutoConfig": "configuration_minimax_m2.MiniMaxM2Config",
    "AutoModelForCausalLM": "modeling_minimax_m2.MiniMaxM2ForCausalLM"
  },
  "transformers_version": "4.46.1"
}"#;

/// moonshotai/Kimi-K2.5's config.json (the same copy's moonshotai--Kimi-K2.5_config.json),
/// cut to the architecture's keys: generation defaults, the quantisation config and most of the
/// vision config left out.
const KIMI_K25: &str = r#"{
  "architectures": [
    "KimiK25ForConditionalGeneration"
  ],
  "model_type": "kimi_k25",
  "text_config": {
    "architectures": [
      "DeepseekV3ForCausalLM"
    ],
    "attention_bias": false,
    "first_k_dense_replace": 1,
    "hidden_act": "silu",
    "hidden_size": 7168,
    "intermediate_size": 18432,
    "kv_lora_rank": 512,
    "max_position_embeddings": 262144,
    "model_type": "kimi_k2",
    "moe_intermediate_size": 2048,
    "moe_layer_freq": 1,
    "n_group": 1,
    "n_routed_experts": 384,
    "n_shared_experts": 1,
    "norm_topk_prob": true,
    "num_attention_heads": 64,
    "num_experts_per_tok": 8,
    "num_hidden_layers": 61,
    "num_key_value_heads": 64,
    "num_nextn_predict_layers": 0,
    "q_lora_rank": 1536,
    "qk_nope_head_dim": 128,
    "qk_rope_head_dim": 64,
    "rms_norm_eps": 1e-05,
    "rope_theta": 50000.0,
    "routed_scaling_factor": 2.827,
    "scoring_func": "sigmoid",
    "tie_word_embeddings": false,
    "topk_group": 1,
    "topk_method": "noaux_tc",
    "v_head_dim": 128,
    "vocab_size": 163840
  },
  "tie_word_embeddings": false,
  "vision_config": {
    "merge_kernel_size": [
      2,
      2
    ],
    "patch_size": 14,
    "vt_hidden_size": 1152,
    "vt_num_hidden_layers": 27
  }
}"#;

/// MiniMax-M2 and Kimi K2 / K2.5 configs read into the zoo's presets, with what the reader says.
#[test]
fn minimax_and_kimi_configs() {
    let (m, r) = read(MINIMAX_M25);
    assert_eq!(m, zoo("minimax-m2.5"));
    assert_eq!(r.family, "MiniMax-M2");
    assert!(
        r.notes
            .iter()
            .any(|n| n.contains("qk_norm_type per_layer") && n.contains("7168 weights a layer")),
        "{:?}",
        r.notes
    );
    assert!(r
        .notes
        .iter()
        .any(|n| n == "use_mtp: the 3 multi-token-prediction modules are not counted"));
    assert_eq!(r.quant_method.as_deref(), Some("fp8"));
    // Without the routing bias the routers lose their 256 biases a layer.
    let (nb, _) =
        read(&MINIMAX_M25.replace("\"use_routing_bias\": true", "\"use_routing_bias\": false"));
    assert_eq!(m.params_total() - nb.params_total(), 62.0 * 256.0);
    // A shared expert where shared_intermediate_size is set.
    let (sh, _) = read(&MINIMAX_M25.replace(
        "\"shared_intermediate_size\": 0",
        "\"shared_intermediate_size\": 1536",
    ));
    assert_eq!(sh.moe.unwrap().shared_experts, 1.0);
    assert_eq!(
        sh.params_total() - m.params_total(),
        62.0 * 3.0 * 3072.0 * 1536.0
    );
    let (k, r) = read(KIMI_K25);
    assert_eq!(k, zoo("kimi-k2.5"));
    assert_eq!(
        (r.model_type.as_str(), r.family.as_str()),
        ("kimi_k25", "DeepSeek-V3")
    );
    assert!(
        r.notes.iter().any(|n| n.starts_with("vision_config")),
        "{:?}",
        r.notes
    );
    // Kimi K2's own config is the text_config alone.
    let k2 = KIMI_K25
        .split_once("\"text_config\": ")
        .map(|(_, t)| t.split_once("\n  },").unwrap().0.to_string() + "\n  }")
        .unwrap();
    assert_eq!(read(&k2).0, k);
}

/// The serving-at-load set's three models counted by hand from their configs (the copies in
/// ai-dynamo/aiconfigurator at commit 095f58a51), term by term, and Qwen3-32B and Kimi K2.5
/// read back from config text (Kimi's text_config is DeepSeek-V3's architecture, keys and all).
#[test]
fn serving_set_models_by_hand() {
    // Qwen3-32B: per layer q 5120·8192, k and v 2·5120·1024, o 8192·5120, q/k norms 2·128,
    // MLP 3·5120·25600, norms 2·5120; × 64; final norm 5120; embedding and head 2·151936·5120.
    let layer = 5120.0 * 8192.0
        + 2.0 * 5120.0 * 1024.0
        + 8192.0 * 5120.0
        + 2.0 * 128.0
        + 3.0 * 5120.0 * 25600.0
        + 2.0 * 5120.0;
    assert_eq!(layer, 487_598_336.0);
    let q = zoo("qwen3-32b");
    assert_eq!(
        q.params_total(),
        64.0 * layer + 5120.0 + 2.0 * 151936.0 * 5120.0
    );
    assert_eq!(q.params_total(), 32_762_123_264.0); // Qwen: "32.8B"
    let text = QWEN3_8B
        .replace("\"hidden_size\": 4096", "\"hidden_size\": 5120")
        .replace(
            "\"intermediate_size\": 12288",
            "\"intermediate_size\": 25600",
        )
        .replace("\"max_window_layers\": 36", "\"max_window_layers\": 64")
        .replace("\"num_attention_heads\": 32", "\"num_attention_heads\": 64")
        .replace("\"num_hidden_layers\": 36", "\"num_hidden_layers\": 64");
    assert_eq!(read(&text).0, q);

    // MiniMax-M2.5: per layer attention 3072·6144 + 2·3072·1024 + 6144·3072 (44,040,192) and
    // q/k norms 256; 256 experts of 3·3072·1536 (14,155,776 each); router 256·3072 + 256
    // biases; norms 2·3072; × 62; final norm 3072; embedding and head 2·200064·3072.
    let expert = 3.0 * 3072.0 * 1536.0;
    assert_eq!(expert, 14_155_776.0);
    let attention = 3072.0 * 6144.0 + 2.0 * 3072.0 * 1024.0 + 6144.0 * 3072.0;
    assert_eq!(attention, 44_040_192.0);
    let layer = attention + 256.0 + 256.0 * expert + 256.0 * 3072.0 + 256.0 + 2.0 * 3072.0;
    let m = zoo("minimax-m2.5");
    let embed = 2.0 * 200064.0 * 3072.0;
    assert_eq!(m.params_total(), 62.0 * layer + 3072.0 + embed);
    assert_eq!(m.params_total(), 228_689_336_320.0);
    // Active: the 248 experts a token skips, per layer, come off.
    assert_eq!(m.params_active(), m.params_total() - 62.0 * 248.0 * expert);
    assert_eq!(m.params_active(), 11_030_124_544.0);
    assert_eq!(m.kv_bytes_per_token(2.0), 2.0 * 62.0 * 8.0 * 128.0 * 2.0); // 253,952 B

    // Kimi K2.5: MLA per layer (q 7168·1536 + norm 1536 + 1536·64·192, KV 7168·576 + norm 512 +
    // 512·64·256, o 64·128·7168) = 101,124,096; 60 MoE layers of 384 experts and one shared
    // (3·7168·2048 = 44,040,192 each), router 384·7168 + 384; one dense layer 3·7168·18432;
    // norms 2·7168 per layer and the final one; embedding and head 2·163840·7168.
    let mla = 7168.0 * 1536.0
        + 1536.0
        + 1536.0 * 64.0 * 192.0
        + 7168.0 * 576.0
        + 512.0
        + 512.0 * 64.0 * 256.0
        + 64.0 * 128.0 * 7168.0;
    assert_eq!(mla, 101_124_096.0);
    let expert = 3.0 * 7168.0 * 2048.0;
    let moe_layer = 385.0 * expert + 384.0 * 7168.0 + 384.0;
    let k = zoo("kimi-k2.5");
    let total = 61.0 * (mla + 2.0 * 7168.0)
        + 60.0 * moe_layer
        + 3.0 * 7168.0 * 18432.0
        + 7168.0
        + 2.0 * 163840.0 * 7168.0;
    assert_eq!(k.params_total(), total);
    assert_eq!(k.params_total(), 1_026_408_232_448.0);
    assert_eq!(k.params_active(), total - 60.0 * 376.0 * expert);
    // MLA caches the latent and the RoPE key: 61·(512 + 64) elements a position.
    assert_eq!(k.kv_bytes_per_token(2.0), 61.0 * 576.0 * 2.0);
    let text = DEEPSEEK_V3
        .replace(
            "\"first_k_dense_replace\": 3",
            "\"first_k_dense_replace\": 1",
        )
        .replace("\"n_routed_experts\": 256", "\"n_routed_experts\": 384")
        .replace(
            "\"num_attention_heads\": 128",
            "\"num_attention_heads\": 64",
        )
        .replace(
            "\"num_key_value_heads\": 128",
            "\"num_key_value_heads\": 64",
        )
        .replace(
            "\"num_nextn_predict_layers\": 1",
            "\"num_nextn_predict_layers\": 0",
        )
        .replace("\"vocab_size\": 129280", "\"vocab_size\": 163840");
    assert_eq!(read(&text).0, k);
}

/// DeepSeek-V3 counted by hand, term by term (the config's numbers).
#[test]
fn deepseek_v3_by_hand() {
    let a = zoo("deepseek-v3");
    let attention = 61.0 * 187_107_328.0; // per layer: see mla_cache_and_attention_flops
    let dense = 3.0 * (3.0 * 7168.0 * 18432.0); // first_k_dense_replace 3
    let expert = 3.0 * 7168.0 * 2048.0; // 44,040,192
    let moe_layer = 256.0 * expert + expert + 256.0 * 7168.0 + 256.0; // + shared, router, bias
    let norms = 61.0 * 2.0 * 7168.0 + 7168.0;
    let embed = 2.0 * 129280.0 * 7168.0;
    let total = attention + dense + 58.0 * moe_layer + norms + embed;
    assert_eq!(total, 671_026_419_200.0);
    assert_eq!(a.params_total(), total);
    let active = attention + dense + 58.0 * (9.0 * expert + 256.0 * 7168.0 + 256.0) + norms + embed;
    assert_eq!(active, 37_552_297_472.0);
    assert_eq!(a.params_active(), active);
    assert_eq!(a.moe_layers(), 58.0);
}

// ---------------------------------------------------------------------------------------
// config.json of each family

const LLAMA2_13B: &str = r#"{
  "architectures": ["LlamaForCausalLM"],
  "bos_token_id": 1,
  "eos_token_id": 2,
  "hidden_act": "silu",
  "hidden_size": 5120,
  "initializer_range": 0.02,
  "intermediate_size": 13824,
  "max_position_embeddings": 4096,
  "model_type": "llama",
  "num_attention_heads": 40,
  "num_hidden_layers": 40,
  "num_key_value_heads": 40,
  "pretraining_tp": 1,
  "rms_norm_eps": 1e-05,
  "rope_scaling": null,
  "tie_word_embeddings": false,
  "torch_dtype": "float16",
  "transformers_version": "4.32.0.dev0",
  "use_cache": true,
  "vocab_size": 32000
}"#;

const LLAMA31_8B: &str = r#"{
  "architectures": ["LlamaForCausalLM"],
  "attention_bias": false,
  "attention_dropout": 0.0,
  "bos_token_id": 128000,
  "eos_token_id": 128001,
  "hidden_act": "silu",
  "hidden_size": 4096,
  "initializer_range": 0.02,
  "intermediate_size": 14336,
  "max_position_embeddings": 131072,
  "mlp_bias": false,
  "model_type": "llama",
  "num_attention_heads": 32,
  "num_hidden_layers": 32,
  "num_key_value_heads": 8,
  "pretraining_tp": 1,
  "rms_norm_eps": 1e-05,
  "rope_scaling": {
    "factor": 8.0,
    "low_freq_factor": 1.0,
    "high_freq_factor": 4.0,
    "original_max_position_embeddings": 8192,
    "rope_type": "llama3"
  },
  "rope_theta": 500000.0,
  "tie_word_embeddings": false,
  "torch_dtype": "bfloat16",
  "transformers_version": "4.43.0.dev0",
  "use_cache": true,
  "vocab_size": 128256
}"#;

#[test]
fn llama_configs() {
    let (a, r) = read(LLAMA31_8B);
    assert_eq!(a, zoo("llama3.1-8b"));
    assert_eq!(a.params_total(), 8_030_261_248.0);
    assert_eq!(r.model_type, "llama");
    assert_eq!(r.family, "Llama 2/3");
    assert_eq!(
        r.unused_keys,
        [
            "architectures",
            "attention_dropout",
            "bos_token_id",
            "eos_token_id",
            "hidden_act",
            "initializer_range",
            "pretraining_tp",
            "rms_norm_eps",
            "rope_scaling",
            "rope_theta",
            "transformers_version",
            "use_cache"
        ]
    );
    assert_eq!(r.max_position_embeddings, Some(131072.0));
    assert_eq!(r.torch_dtype.as_deref(), Some("bfloat16"));
    assert!(
        r.notes
            .iter()
            .any(|n| n == "head_dim absent: h = hidden_size / num_attention_heads = 4096 / 32 = 128 (transformers' rule)"),
        "{:?}",
        r.notes
    );
    // LLaMA-1 style config without num_key_value_heads: multi-head attention, said so.
    let old = LLAMA2_13B.replace("\"num_key_value_heads\": 40,\n", "");
    let (b, r) = read(&old);
    assert_eq!(b.kv_heads, 40.0);
    assert!(r
        .notes
        .iter()
        .any(|n| n.starts_with("num_key_value_heads absent: K = H = 40")));
    // attention_bias and mlp_bias add their biases: q, k, v (H·h + 2·K·h), o (D) per layer,
    // and MLP (2F + D) per layer.
    let biased = LLAMA31_8B
        .replace("\"attention_bias\": false", "\"attention_bias\": true")
        .replace("\"mlp_bias\": false", "\"mlp_bias\": true");
    let (c, _) = read(&biased);
    let per_layer = (4096.0 + 2.0 * 1024.0) + 4096.0 + (2.0 * 14336.0 + 4096.0);
    assert_eq!(c.params_total(), 8_030_261_248.0 + 32.0 * per_layer);
}

const LLAMA4_SCOUT: &str = r#"{
  "architectures": ["Llama4ForConditionalGeneration"],
  "boi_token_index": 200080,
  "eoi_token_index": 200081,
  "image_token_index": 200092,
  "model_type": "llama4",
  "text_config": {
    "attention_bias": false,
    "attention_chunk_size": 8192,
    "attention_dropout": 0.0,
    "attn_scale": 0.1,
    "attn_temperature_tuning": 4,
    "bos_token_id": 200000,
    "eos_token_id": [200001, 200007, 200008],
    "floor_scale": 8192,
    "for_llm_compressor": false,
    "head_dim": 128,
    "hidden_act": "silu",
    "hidden_size": 5120,
    "initializer_range": 0.02,
    "interleave_moe_layer_step": 1,
    "intermediate_size": 8192,
    "intermediate_size_mlp": 16384,
    "max_position_embeddings": 10485760,
    "model_type": "llama4_text",
    "moe_layers": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23,
      24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47],
    "no_rope_layers": [1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0,
      1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0],
    "num_attention_heads": 40,
    "num_experts_per_tok": 1,
    "num_hidden_layers": 48,
    "num_key_value_heads": 8,
    "num_local_experts": 16,
    "output_router_logits": false,
    "pad_token_id": 200018,
    "rms_norm_eps": 1e-05,
    "rope_scaling": {"factor": 8.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
      "original_max_position_embeddings": 8192, "rope_type": "llama3"},
    "rope_theta": 500000.0,
    "router_aux_loss_coef": 0.001,
    "router_jitter_noise": 0.0,
    "torch_dtype": "bfloat16",
    "use_cache": true,
    "use_qk_norm": true,
    "vocab_size": 202048
  },
  "tie_word_embeddings": false,
  "torch_dtype": "bfloat16",
  "transformers_version": "4.51.0.dev0",
  "vision_config": {
    "attention_dropout": 0.0,
    "hidden_act": "gelu",
    "hidden_size": 1408,
    "image_size": 336,
    "intermediate_size": 5632,
    "model_type": "llama4_vision_model",
    "num_attention_heads": 16,
    "num_hidden_layers": 34,
    "patch_size": 14,
    "vision_output_dim": 4096
  }
}"#;

#[test]
fn llama4_configs() {
    let (a, r) = read(LLAMA4_SCOUT);
    assert_eq!(a, zoo("llama4-scout"));
    // By hand: attention 2·5120·5120 + 2·5120·1024 = 62,914,560; experts 16 + 1 shared of
    // 3·5120·8192 = 125,829,120; router 16·5120; norms 2·5120; per layer × 48; embedding
    // and LM head 2·202048·5120; final norm.
    let layer = 62_914_560.0 + 17.0 * 125_829_120.0 + 16.0 * 5120.0 + 2.0 * 5120.0;
    let total = 48.0 * layer + 2.0 * 202048.0 * 5120.0 + 5120.0;
    assert_eq!(a.params_total(), total);
    assert_eq!(total, 107_769_861_120.0);
    let active_layer = 62_914_560.0 + 2.0 * 125_829_120.0 + 16.0 * 5120.0 + 2.0 * 5120.0;
    assert_eq!(
        a.params_active(),
        48.0 * active_layer + 2.0 * 202048.0 * 5120.0 + 5120.0
    );
    assert_eq!(
        a.window,
        Some(SlidingWindow {
            size: 8192.0,
            layers: 36.0
        })
    );
    assert!(r.notes.iter().any(|n| n.starts_with("vision_config")));
    assert!(r.unused_keys.contains(&"vision_config".to_string()));
    assert!(r
        .unused_keys
        .contains(&"text_config.rope_theta".to_string()));
    assert!(!r
        .unused_keys
        .iter()
        .any(|k| k.contains("moe_layers") || k.contains("no_rope")));
    assert_eq!(r.max_position_embeddings, Some(10_485_760.0));
    // Maverick: 128 experts on every other layer (interleave_moe_layer_step 2, no explicit
    // moe_layers); the dense ones use intermediate_size_mlp 16384; chunking by the default
    // interval (every 4th layer global).
    let maverick = LLAMA4_SCOUT
        .replace("\"num_local_experts\": 16", "\"num_local_experts\": 128")
        .replace(
            "\"interleave_moe_layer_step\": 1",
            "\"interleave_moe_layer_step\": 2",
        )
        .replace(
            &LLAMA4_SCOUT[LLAMA4_SCOUT.find("\"moe_layers\"").unwrap()
                ..LLAMA4_SCOUT.find("\"num_attention_heads\"").unwrap()],
            "",
        );
    let (m, _) = read(&maverick);
    assert_eq!(m, zoo("llama4-maverick"));
    assert_eq!(m.moe.unwrap().dense_layers, 24.0);
    assert_eq!(m.ffn, 16384.0);
    // Without text_config: a clear error.
    let e = read_err(r#"{"model_type": "llama4", "vision_config": {}}"#);
    assert!(e.contains("missing required key `text_config`"), "{e}");
    let e = read_err(r#"{"model_type": "llama4", "text_config": [1]}"#);
    assert!(
        e.starts_with("text_config=an array of 1: must be an object"),
        "{e}"
    );
    // A moe_layers index out of range names the element.
    let bad = LLAMA4_SCOUT.replace("46, 47]", "46, 48]");
    let e = read_err(&bad);
    assert!(
        e.starts_with("text_config.moe_layers[47]=48: must be a layer index from 0 to 47"),
        "{e}"
    );
}

const MISTRAL_7B: &str = r#"{
  "architectures": ["MistralForCausalLM"],
  "bos_token_id": 1,
  "eos_token_id": 2,
  "hidden_act": "silu",
  "hidden_size": 4096,
  "initializer_range": 0.02,
  "intermediate_size": 14336,
  "max_position_embeddings": 32768,
  "model_type": "mistral",
  "num_attention_heads": 32,
  "num_hidden_layers": 32,
  "num_key_value_heads": 8,
  "rms_norm_eps": 1e-05,
  "rope_theta": 10000.0,
  "sliding_window": 4096,
  "tie_word_embeddings": false,
  "torch_dtype": "bfloat16",
  "transformers_version": "4.34.0.dev0",
  "use_cache": true,
  "vocab_size": 32000
}"#;

const MIXTRAL_8X7B: &str = r#"{
  "architectures": ["MixtralForCausalLM"],
  "attention_dropout": 0.0,
  "bos_token_id": 1,
  "eos_token_id": 2,
  "hidden_act": "silu",
  "hidden_size": 4096,
  "initializer_range": 0.02,
  "intermediate_size": 14336,
  "max_position_embeddings": 32768,
  "model_type": "mixtral",
  "num_attention_heads": 32,
  "num_experts_per_tok": 2,
  "num_hidden_layers": 32,
  "num_key_value_heads": 8,
  "num_local_experts": 8,
  "output_router_logits": false,
  "rms_norm_eps": 1e-05,
  "rope_theta": 1000000.0,
  "router_aux_loss_coef": 0.02,
  "sliding_window": null,
  "tie_word_embeddings": false,
  "torch_dtype": "bfloat16",
  "transformers_version": "4.36.0.dev0",
  "use_cache": true,
  "vocab_size": 32000
}"#;

#[test]
fn mistral_and_mixtral_configs() {
    let (a, r) = read(MISTRAL_7B);
    assert_eq!(a, zoo("mistral-7b"));
    assert!(r
        .notes
        .iter()
        .any(|n| n.starts_with("sliding window of 4096 positions on 32 of 32 layers")));
    let (m, _) = read(MIXTRAL_8X7B);
    assert_eq!(m, zoo("mixtral-8x7b"));
    // By hand: per layer attention 2·4096² + 2·4096·1024 = 41,943,040, 8 experts of
    // 3·4096·14336 = 176,160,768, router 8·4096, norms 2·4096; + 2·32000·4096 + 4096.
    let layer = 41_943_040.0 + 8.0 * 176_160_768.0 + 8.0 * 4096.0 + 2.0 * 4096.0;
    assert_eq!(
        m.params_total(),
        32.0 * layer + 2.0 * 32000.0 * 4096.0 + 4096.0
    );
    assert_eq!(m.params_total(), 46_702_792_704.0);
    let active = 41_943_040.0 + 2.0 * 176_160_768.0 + 8.0 * 4096.0 + 2.0 * 4096.0;
    assert_eq!(
        m.params_active(),
        32.0 * active + 2.0 * 32000.0 * 4096.0 + 4096.0
    );
    assert_eq!(m.params_active(), 12_879_925_248.0);
    let x22 = MIXTRAL_8X7B
        .replace("4096", "6144")
        .replace("14336", "16384")
        .replace("\"num_hidden_layers\": 32", "\"num_hidden_layers\": 56")
        .replace("\"num_attention_heads\": 32", "\"num_attention_heads\": 48");
    let (x, _) = read(&x22);
    assert_eq!(x, zoo("mixtral-8x22b"));
    // Missing the experts: named.
    let e = read_err(&MIXTRAL_8X7B.replace("\"num_local_experts\": 8,", ""));
    assert!(
        e.contains("missing required key `num_local_experts` (model_type `mixtral`)"),
        "{e}"
    );
    // More experts per token than experts.
    let e =
        read_err(&MIXTRAL_8X7B.replace("\"num_experts_per_tok\": 2", "\"num_experts_per_tok\": 9"));
    assert!(
        e.starts_with("num_experts_per_tok=9: must be at most the number of experts, 8"),
        "{e}"
    );
}

const QWEN25_7B: &str = r#"{
  "architectures": ["Qwen2ForCausalLM"],
  "attention_dropout": 0.0,
  "bos_token_id": 151643,
  "eos_token_id": 151643,
  "hidden_act": "silu",
  "hidden_size": 3584,
  "initializer_range": 0.02,
  "intermediate_size": 18944,
  "max_position_embeddings": 131072,
  "max_window_layers": 28,
  "model_type": "qwen2",
  "num_attention_heads": 28,
  "num_hidden_layers": 28,
  "num_key_value_heads": 4,
  "rms_norm_eps": 1e-06,
  "rope_theta": 1000000.0,
  "sliding_window": 131072,
  "tie_word_embeddings": false,
  "torch_dtype": "bfloat16",
  "transformers_version": "4.40.1",
  "use_cache": true,
  "use_mrope": false,
  "use_sliding_window": false,
  "vocab_size": 152064
}"#;

const QWEN15_MOE: &str = r#"{
  "architectures": ["Qwen2MoeForCausalLM"],
  "attention_dropout": 0.0,
  "bos_token_id": 151643,
  "decoder_sparse_step": 1,
  "eos_token_id": 151643,
  "hidden_act": "silu",
  "hidden_size": 2048,
  "initializer_range": 0.02,
  "intermediate_size": 5632,
  "max_position_embeddings": 8192,
  "max_window_layers": 21,
  "model_type": "qwen2_moe",
  "moe_intermediate_size": 1408,
  "norm_topk_prob": false,
  "num_attention_heads": 16,
  "num_experts": 60,
  "num_experts_per_tok": 4,
  "num_hidden_layers": 24,
  "num_key_value_heads": 16,
  "output_router_logits": false,
  "rms_norm_eps": 1e-06,
  "rope_theta": 1000000.0,
  "router_aux_loss_coef": 0.001,
  "shared_expert_intermediate_size": 5632,
  "sliding_window": 32768,
  "tie_word_embeddings": false,
  "torch_dtype": "bfloat16",
  "transformers_version": "4.39.0.dev0",
  "use_cache": true,
  "use_sliding_window": false,
  "vocab_size": 151936
}"#;

const QWEN3_8B: &str = r#"{
  "architectures": ["Qwen3ForCausalLM"],
  "attention_bias": false,
  "attention_dropout": 0.0,
  "bos_token_id": 151643,
  "eos_token_id": 151645,
  "head_dim": 128,
  "hidden_act": "silu",
  "hidden_size": 4096,
  "initializer_range": 0.02,
  "intermediate_size": 12288,
  "max_position_embeddings": 40960,
  "max_window_layers": 36,
  "model_type": "qwen3",
  "num_attention_heads": 32,
  "num_hidden_layers": 36,
  "num_key_value_heads": 8,
  "rms_norm_eps": 1e-06,
  "rope_scaling": null,
  "rope_theta": 1000000,
  "sliding_window": null,
  "tie_word_embeddings": false,
  "torch_dtype": "bfloat16",
  "transformers_version": "4.51.0",
  "use_cache": true,
  "use_sliding_window": false,
  "vocab_size": 151936
}"#;

const QWEN3_30B_A3B: &str = r#"{
  "architectures": ["Qwen3MoeForCausalLM"],
  "attention_bias": false,
  "attention_dropout": 0.0,
  "bos_token_id": 151643,
  "decoder_sparse_step": 1,
  "eos_token_id": 151645,
  "head_dim": 128,
  "hidden_act": "silu",
  "hidden_size": 2048,
  "initializer_range": 0.02,
  "intermediate_size": 6144,
  "max_position_embeddings": 40960,
  "max_window_layers": 48,
  "mlp_only_layers": [],
  "model_type": "qwen3_moe",
  "moe_intermediate_size": 768,
  "norm_topk_prob": true,
  "num_attention_heads": 32,
  "num_experts": 128,
  "num_experts_per_tok": 8,
  "num_hidden_layers": 48,
  "num_key_value_heads": 4,
  "output_router_logits": false,
  "rms_norm_eps": 1e-06,
  "rope_scaling": null,
  "rope_theta": 1000000.0,
  "router_aux_loss_coef": 0.001,
  "sliding_window": null,
  "tie_word_embeddings": false,
  "torch_dtype": "bfloat16",
  "transformers_version": "4.51.0",
  "use_cache": true,
  "use_sliding_window": false,
  "vocab_size": 151936
}"#;

#[test]
fn qwen_configs() {
    let (a, r) = read(QWEN25_7B);
    assert_eq!(a, zoo("qwen2.5-7b"));
    // By hand: q 3584² + bias 3584, k and v 2·(3584·512 + 512), o 3584², MLP
    // 3·3584·18944, norms 2·3584; × 28; + 2·152064·3584 + 3584.
    let layer = 3584.0 * 3584.0
        + 3584.0
        + 2.0 * (3584.0 * 512.0 + 512.0)
        + 3584.0 * 3584.0
        + 3.0 * 3584.0 * 18944.0
        + 2.0 * 3584.0;
    assert_eq!(
        a.params_total(),
        28.0 * layer + 2.0 * 152064.0 * 3584.0 + 3584.0
    );
    assert!(r
        .notes
        .iter()
        .any(|n| n == "use_sliding_window false: sliding_window 131072 is not applied"));
    assert_eq!(a.window, None);
    // With the window switched on, layers from max_window_layers on use it.
    let on = QWEN25_7B
        .replace(
            "\"use_sliding_window\": false",
            "\"use_sliding_window\": true",
        )
        .replace("\"max_window_layers\": 28", "\"max_window_layers\": 20")
        .replace("\"sliding_window\": 131072", "\"sliding_window\": 4096");
    let (w, _) = read(&on);
    assert_eq!(
        w.window,
        Some(SlidingWindow {
            size: 4096.0,
            layers: 8.0
        })
    );
    // Qwen1.5-MoE-A2.7B (qwen2_moe): 60 experts of 1408, top-4, one gated shared expert of
    // 5632. Per layer: attention 4·2048² + q/k/v biases 3·2048; experts 60·3·2048·1408;
    // shared 3·2048·5632; router 60·2048; shared gate 2048; norms 2·2048.
    let (m, _) = read(QWEN15_MOE);
    let moe = m.moe.unwrap();
    assert_eq!(
        (moe.shared_experts, moe.shared_ffn, moe.shared_gate),
        (1.0, 5632.0, true)
    );
    let layer = 4.0 * 2048.0 * 2048.0
        + 3.0 * 2048.0
        + 60.0 * 3.0 * 2048.0 * 1408.0
        + 3.0 * 2048.0 * 5632.0
        + 60.0 * 2048.0
        + 2048.0
        + 2.0 * 2048.0;
    let embed = 2.0 * 151936.0 * 2048.0 + 2048.0;
    assert_eq!(m.params_total(), 24.0 * layer + embed);
    assert_eq!(m.params_total(), 14_315_784_192.0); // Qwen: "14.3B"
    let active_layer = layer - 56.0 * 3.0 * 2048.0 * 1408.0;
    assert_eq!(m.params_active(), 24.0 * active_layer + embed);
    assert!(rel(m.params_active(), 2.7e9) < 0.005); // Qwen: "2.7B activated"
                                                    // mlp_only_layers and decoder_sparse_step make dense layers.
    let sparse = QWEN15_MOE
        .replace("\"decoder_sparse_step\": 1", "\"decoder_sparse_step\": 2")
        .replace(
            "\"hidden_act\"",
            "\"mlp_only_layers\": [1, 2],\n  \"hidden_act\"",
        );
    let (s, _) = read(&sparse);
    // MoE where (i + 1) % 2 == 0 and i not in {1, 2}: i = 3, 5, ..., 23 → 11.
    assert_eq!(s.moe_layers(), 11.0);
    assert_eq!(s.ffn, 5632.0);
    // Qwen3-8B: q/k norms (2·128 per layer), no biases: 8.19B ("8.2B").
    let (q, _) = read(QWEN3_8B);
    assert!(q.qk_norm);
    let layer = 2.0 * 4096.0 * 4096.0
        + 2.0 * 4096.0 * 1024.0
        + 2.0 * 128.0
        + 3.0 * 4096.0 * 12288.0
        + 2.0 * 4096.0;
    assert_eq!(
        q.params_total(),
        36.0 * layer + 2.0 * 151936.0 * 4096.0 + 4096.0
    );
    assert!(rel(q.params_total(), 8.2e9) < 0.005);
    let (q3, r) = read(QWEN3_30B_A3B);
    assert_eq!(q3, zoo("qwen3-30b-a3b"));
    assert!(r.unused_keys.contains(&"norm_topk_prob".to_string()));
    let q235 = QWEN3_30B_A3B
        .replace("\"hidden_size\": 2048", "\"hidden_size\": 4096")
        .replace(
            "\"intermediate_size\": 6144",
            "\"intermediate_size\": 12288",
        )
        .replace(
            "\"moe_intermediate_size\": 768",
            "\"moe_intermediate_size\": 1536",
        )
        .replace("\"num_attention_heads\": 32", "\"num_attention_heads\": 64")
        .replace("\"num_hidden_layers\": 48", "\"num_hidden_layers\": 94");
    assert_eq!(read(&q235).0, zoo("qwen3-235b-a22b"));
    // Sliding window on but no size: named.
    let e = read_err(&QWEN3_8B.replace(
        "\"use_sliding_window\": false",
        "\"use_sliding_window\": true",
    ));
    assert!(e.contains("missing required key `sliding_window`"), "{e}");
}

const GEMMA2_9B: &str = r#"{
  "architectures": ["Gemma2ForCausalLM"],
  "attention_bias": false,
  "attention_dropout": 0.0,
  "attn_logit_softcapping": 50.0,
  "bos_token_id": 2,
  "cache_implementation": "hybrid",
  "eos_token_id": 1,
  "final_logit_softcapping": 30.0,
  "head_dim": 256,
  "hidden_act": "gelu_pytorch_tanh",
  "hidden_activation": "gelu_pytorch_tanh",
  "hidden_size": 3584,
  "initializer_range": 0.02,
  "intermediate_size": 14336,
  "max_position_embeddings": 8192,
  "model_type": "gemma2",
  "num_attention_heads": 16,
  "num_hidden_layers": 42,
  "num_key_value_heads": 8,
  "pad_token_id": 0,
  "query_pre_attn_scalar": 256,
  "rms_norm_eps": 1e-06,
  "rope_theta": 10000.0,
  "sliding_window": 4096,
  "sliding_window_size": 4096,
  "torch_dtype": "float32",
  "transformers_version": "4.42.0.dev0",
  "use_cache": true,
  "vocab_size": 256000
}"#;

/// google/gemma-3-27b-pt's config.json: its text_config leaves vocab_size,
/// sliding_window_pattern and tie_word_embeddings to Gemma3TextConfig's defaults.
const GEMMA3_27B: &str = r#"{
  "architectures": ["Gemma3ForConditionalGeneration"],
  "boi_token_index": 255999,
  "eoi_token_index": 256000,
  "eos_token_id": [1, 106],
  "image_token_index": 262144,
  "initializer_range": 0.02,
  "mm_tokens_per_image": 256,
  "model_type": "gemma3",
  "text_config": {
    "head_dim": 128,
    "hidden_size": 5376,
    "intermediate_size": 21504,
    "model_type": "gemma3_text",
    "num_attention_heads": 32,
    "num_hidden_layers": 62,
    "num_key_value_heads": 16,
    "query_pre_attn_scalar": 168,
    "rope_scaling": {"factor": 8.0, "rope_type": "linear"},
    "sliding_window": 1024
  },
  "torch_dtype": "bfloat16",
  "transformers_version": "4.50.0.dev0",
  "vision_config": {
    "hidden_size": 1152,
    "image_size": 896,
    "intermediate_size": 4304,
    "model_type": "siglip_vision_model",
    "num_attention_heads": 16,
    "num_hidden_layers": 27,
    "patch_size": 14,
    "vision_use_head": false
  }
}"#;

#[test]
fn gemma_configs() {
    // Gemma 2 9B: 4 norms per layer, tied embeddings, sliding window on alternate layers
    // (21 of 42). Per layer: q 3584·4096, k and v 2·3584·2048, o 4096·3584, MLP
    // 3·3584·14336, norms 4·3584; + 256000·3584 (tied) + 3584: 9.24B (Google: 9.24B).
    let (a, r) = read(GEMMA2_9B);
    let layer = 3584.0 * 4096.0
        + 2.0 * 3584.0 * 2048.0
        + 4096.0 * 3584.0
        + 3.0 * 3584.0 * 14336.0
        + 4.0 * 3584.0;
    assert_eq!(a.params_total(), 42.0 * layer + 256000.0 * 3584.0 + 3584.0);
    assert_eq!(a.params_total(), 9_241_705_984.0);
    assert_eq!(
        a.window,
        Some(SlidingWindow {
            size: 4096.0,
            layers: 21.0
        })
    );
    assert!(a.tied_embeddings);
    assert!(r
        .notes
        .iter()
        .any(|n| n.starts_with("tie_word_embeddings absent: true")));
    assert!(r.unused_keys.contains(&"sliding_window_size".to_string()));
    // Gemma 3 27B as published: defaults applied and said.
    let (g, r) = read(GEMMA3_27B);
    assert_eq!(g, zoo("gemma3-27b"));
    for want in [
        "text_config.vocab_size absent: 262208",
        "text_config.sliding_window_pattern absent: 6",
        "text_config.tie_word_embeddings absent: true",
        "query_pre_attn_scalar 168 only scales the attention scores",
        "vision_config",
    ] {
        assert!(
            r.notes.iter().any(|n| n.starts_with(want)),
            "{want}: {:?}",
            r.notes
        );
    }
    assert!(r
        .unused_keys
        .contains(&"text_config.rope_scaling".to_string()));
    assert!(r.unused_keys.contains(&"mm_tokens_per_image".to_string()));
    assert_eq!(r.torch_dtype.as_deref(), Some("bfloat16"));
    // layer_types (newer configs) overrides the pattern; a wrong length is named.
    let types: Vec<String> = (0..62)
        .map(|i| {
            if (i + 1) % 2 == 0 {
                "\"full_attention\"".to_string()
            } else {
                "\"sliding_attention\"".to_string()
            }
        })
        .collect();
    let with_types = GEMMA3_27B.replace(
        "\"sliding_window\": 1024",
        &format!(
            "\"sliding_window\": 1024, \"layer_types\": [{}]",
            types.join(", ")
        ),
    );
    assert_eq!(read(&with_types).0.window_layers(), 31.0);
    let short = GEMMA3_27B.replace(
        "\"sliding_window\": 1024",
        "\"sliding_window\": 1024, \"layer_types\": [\"full_attention\"]",
    );
    let e = read_err(&short);
    assert!(
        e.starts_with("text_config.layer_types=an array of 1: must name one attention kind per layer (62 layers)"),
        "{e}"
    );
    let odd = GEMMA3_27B.replace(
        "\"sliding_window\": 1024",
        &format!(
            "\"sliding_window\": 1024, \"layer_types\": [{}, \"linear_attention\"]",
            types[..61].join(", ")
        ),
    );
    let e = read_err(&odd);
    assert!(
        e.starts_with("text_config.layer_types[61]=\"linear_attention\""),
        "{e}"
    );
    // Gemma 3 1B is text only (model_type gemma3_text at the top). Per layer: q 1152·1024,
    // k and v 2·1152·256, o 1024·1152, q/k norms 2·256, MLP 3·1152·6912, norms 4·1152; + the
    // tied 262144·1152 table + 1152: 1.0e9 (Google: 1B). Window 512 on 26 − ⌊26/6⌋ = 22 layers.
    let (one, r) = read(GEMMA3_1B);
    let layer = 1152.0 * 1024.0
        + 2.0 * 1152.0 * 256.0
        + 1024.0 * 1152.0
        + 2.0 * 256.0
        + 3.0 * 1152.0 * 6912.0
        + 4.0 * 1152.0;
    assert_eq!(
        one.params_total(),
        26.0 * layer + 262144.0 * 1152.0 + 1152.0
    );
    assert_eq!(one.params_total(), 999_885_952.0);
    assert_eq!(one.window_layers(), 22.0);
    assert!(
        !r.notes.iter().any(|n| n.contains("without a text_config")),
        "{:?}",
        r.notes
    );
}

const GEMMA3_1B: &str = r#"{
  "architectures": ["Gemma3ForCausalLM"],
  "attention_bias": false,
  "attn_logit_softcapping": null,
  "bos_token_id": 2,
  "cache_implementation": "hybrid",
  "eos_token_id": 1,
  "final_logit_softcapping": null,
  "head_dim": 256,
  "hidden_activation": "gelu_pytorch_tanh",
  "hidden_size": 1152,
  "initializer_range": 0.02,
  "intermediate_size": 6912,
  "max_position_embeddings": 32768,
  "model_type": "gemma3_text",
  "num_attention_heads": 4,
  "num_hidden_layers": 26,
  "num_key_value_heads": 1,
  "pad_token_id": 0,
  "query_pre_attn_scalar": 256,
  "rms_norm_eps": 1e-06,
  "rope_local_base_freq": 10000,
  "rope_scaling": null,
  "rope_theta": 1000000,
  "sliding_window": 512,
  "sliding_window_pattern": 6,
  "torch_dtype": "bfloat16",
  "transformers_version": "4.50.0.dev0",
  "use_cache": true,
  "vocab_size": 262144
}"#;

const DEEPSEEK_V3: &str = r#"{
  "architectures": ["DeepseekV3ForCausalLM"],
  "attention_bias": false,
  "attention_dropout": 0.0,
  "auto_map": {
    "AutoConfig": "configuration_deepseek.DeepseekV3Config",
    "AutoModel": "modeling_deepseek.DeepseekV3Model",
    "AutoModelForCausalLM": "modeling_deepseek.DeepseekV3ForCausalLM"
  },
  "aux_loss_alpha": 0.001,
  "bos_token_id": 0,
  "eos_token_id": 1,
  "ep_size": 1,
  "first_k_dense_replace": 3,
  "hidden_act": "silu",
  "hidden_size": 7168,
  "initializer_range": 0.02,
  "intermediate_size": 18432,
  "kv_lora_rank": 512,
  "max_position_embeddings": 163840,
  "model_type": "deepseek_v3",
  "moe_intermediate_size": 2048,
  "moe_layer_freq": 1,
  "n_group": 8,
  "n_routed_experts": 256,
  "n_shared_experts": 1,
  "norm_topk_prob": true,
  "num_attention_heads": 128,
  "num_experts_per_tok": 8,
  "num_hidden_layers": 61,
  "num_key_value_heads": 128,
  "num_nextn_predict_layers": 1,
  "q_lora_rank": 1536,
  "qk_nope_head_dim": 128,
  "qk_rope_head_dim": 64,
  "quantization_config": {
    "activation_scheme": "dynamic",
    "fmt": "e4m3",
    "quant_method": "fp8",
    "weight_block_size": [128, 128]
  },
  "rms_norm_eps": 1e-06,
  "rope_scaling": {
    "beta_fast": 32,
    "beta_slow": 1,
    "factor": 40,
    "mscale": 1.0,
    "mscale_all_dim": 1.0,
    "original_max_position_embeddings": 4096,
    "type": "yarn"
  },
  "rope_theta": 10000,
  "routed_scaling_factor": 2.5,
  "scoring_func": "sigmoid",
  "tie_word_embeddings": false,
  "topk_group": 4,
  "topk_method": "noaux_tc",
  "torch_dtype": "bfloat16",
  "transformers_version": "4.33.1",
  "use_cache": true,
  "v_head_dim": 128,
  "vocab_size": 129280
}"#;

const DEEPSEEK_V2_LITE: &str = r#"{
  "architectures": ["DeepseekV2ForCausalLM"],
  "attention_bias": false,
  "aux_loss_alpha": 0.001,
  "first_k_dense_replace": 1,
  "hidden_act": "silu",
  "hidden_size": 2048,
  "intermediate_size": 10944,
  "kv_lora_rank": 512,
  "max_position_embeddings": 163840,
  "model_type": "deepseek_v2",
  "moe_intermediate_size": 1408,
  "moe_layer_freq": 1,
  "n_group": 1,
  "n_routed_experts": 64,
  "n_shared_experts": 2,
  "norm_topk_prob": false,
  "num_attention_heads": 16,
  "num_experts_per_tok": 6,
  "num_hidden_layers": 27,
  "num_key_value_heads": 16,
  "q_lora_rank": null,
  "qk_nope_head_dim": 128,
  "qk_rope_head_dim": 64,
  "routed_scaling_factor": 1.0,
  "scoring_func": "softmax",
  "tie_word_embeddings": false,
  "topk_group": 1,
  "topk_method": "greedy",
  "torch_dtype": "bfloat16",
  "v_head_dim": 128,
  "vocab_size": 102400
}"#;

#[test]
fn deepseek_configs() {
    let (a, r) = read(DEEPSEEK_V3);
    assert_eq!(a, zoo("deepseek-v3"));
    assert_eq!(r.quant_method.as_deref(), Some("fp8"));
    assert!(r.notes.iter().any(|n| n.starts_with(
        "num_nextn_predict_layers 1: the multi-token-prediction module is not counted"
    )));
    assert!(r
        .notes
        .iter()
        .any(|n| n == "MoE: 256 routed experts, 8 per token, width 2048, 1 shared of width 2048; MoE on 58 of 61 layers"));
    for k in [
        "quantization_config.fmt",
        "n_group",
        "routed_scaling_factor",
        "auto_map",
    ] {
        assert!(
            r.unused_keys.contains(&k.to_string()),
            "{k}: {:?}",
            r.unused_keys
        );
    }
    for k in [
        "q_lora_rank",
        "num_key_value_heads",
        "topk_method",
        "quantization_config.quant_method",
    ] {
        assert!(!r.unused_keys.contains(&k.to_string()), "{k}");
    }
    // DeepSeek-V2 (236B total, 21B activated): 60 layers of D 5120 and 128 heads, first
    // layer dense (12288), 160 experts of 1536, 6 per token, 2 shared; vocab 102400.
    let v2 = DEEPSEEK_V3
        .replace(
            "\"first_k_dense_replace\": 3",
            "\"first_k_dense_replace\": 1",
        )
        .replace("\"hidden_size\": 7168", "\"hidden_size\": 5120")
        .replace(
            "\"intermediate_size\": 18432",
            "\"intermediate_size\": 12288",
        )
        .replace(
            "\"moe_intermediate_size\": 2048",
            "\"moe_intermediate_size\": 1536",
        )
        .replace("\"n_routed_experts\": 256", "\"n_routed_experts\": 160")
        .replace("\"n_shared_experts\": 1", "\"n_shared_experts\": 2")
        .replace("\"num_experts_per_tok\": 8", "\"num_experts_per_tok\": 6")
        .replace("\"num_hidden_layers\": 61", "\"num_hidden_layers\": 60")
        .replace(
            "\"topk_method\": \"noaux_tc\"",
            "\"topk_method\": \"group_limited_greedy\"",
        )
        .replace("\"vocab_size\": 129280", "\"vocab_size\": 102400")
        .replace("deepseek_v3", "deepseek_v2");
    let (b, _) = read(&v2);
    // Attention per layer: q_a 5120·1536 + 1536, q_b 1536·128·192, kv_a 5120·576 + 512,
    // kv_b 512·128·256, o 128·128·5120 = 149,227,520.
    let attn = 5120.0 * 1536.0
        + 1536.0
        + 1536.0 * 128.0 * 192.0
        + 5120.0 * 576.0
        + 512.0
        + 512.0 * 128.0 * 256.0
        + 128.0 * 128.0 * 5120.0;
    assert_eq!(attn, 149_227_520.0);
    let expert = 3.0 * 5120.0 * 1536.0;
    let rest = 60.0 * attn
        + 3.0 * 5120.0 * 12288.0
        + 60.0 * 2.0 * 5120.0
        + 5120.0
        + 2.0 * 102400.0 * 5120.0;
    let total = rest + 59.0 * (162.0 * expert + 160.0 * 5120.0);
    assert_eq!(b.params_total(), total);
    assert!(rel(total, 236e9) < 0.002, "{total}");
    let active = rest + 59.0 * (8.0 * expert + 160.0 * 5120.0);
    assert_eq!(b.params_active(), active);
    assert!(rel(active - 102400.0 * 5120.0, 21e9) < 0.01);
    // DeepSeek-V2-Lite (15.7B total, "2.4B activated"): no query compression.
    let (lite, r) = read(DEEPSEEK_V2_LITE);
    assert_eq!(lite.mla.unwrap().q_lora_rank, 0.0);
    assert!(r.notes.iter().any(|n| n.starts_with("q_lora_rank null")));
    // Attention per layer: q 2048·16·192, kv_a 2048·576 + 512, kv_b 512·16·256, o 16·128·2048.
    let attn = 2048.0 * 16.0 * 192.0
        + 2048.0 * 576.0
        + 512.0
        + 512.0 * 16.0 * 256.0
        + 16.0 * 128.0 * 2048.0;
    let expert = 3.0 * 2048.0 * 1408.0;
    let rest = 27.0 * attn
        + 3.0 * 2048.0 * 10944.0
        + 27.0 * 2.0 * 2048.0
        + 2048.0
        + 2.0 * 102400.0 * 2048.0;
    assert_eq!(
        lite.params_total(),
        rest + 26.0 * (66.0 * expert + 64.0 * 2048.0)
    );
    assert!(rel(lite.params_total(), 15.7e9) < 0.001);
    let active = rest + 26.0 * (8.0 * expert + 64.0 * 2048.0);
    assert_eq!(lite.params_active(), active);
    // 2.66B counting the embedding table, 2.45B without: DeepSeek's 2.4B leaves it out.
    assert!(rel(active - 102400.0 * 2048.0, 2.4e9) < 0.025);
    assert!(rel(active, 2.4e9) > 0.1);
    // MLA keys missing: named.
    let e = read_err(&DEEPSEEK_V3.replace("\"kv_lora_rank\": 512,", ""));
    assert!(
        e.contains("missing required key `kv_lora_rank` (model_type `deepseek_v3`)"),
        "{e}"
    );
    // A dense DeepSeek (n_routed_experts null).
    let dense = DEEPSEEK_V2_LITE.replace("\"n_routed_experts\": 64", "\"n_routed_experts\": null");
    let (d, r) = read(&dense);
    assert!(d.moe.is_none());
    assert!(r
        .notes
        .iter()
        .any(|n| n == "n_routed_experts null: a dense model"));
}

const GPT_OSS_20B: &str = r#"{
  "architectures": ["GptOssForCausalLM"],
  "attention_bias": true,
  "attention_dropout": 0.0,
  "eos_token_id": 200002,
  "experts_per_token": 4,
  "head_dim": 64,
  "hidden_act": "silu",
  "hidden_size": 2880,
  "initial_context_length": 4096,
  "initializer_range": 0.02,
  "intermediate_size": 2880,
  "layer_types": [
    "sliding_attention", "full_attention", "sliding_attention", "full_attention",
    "sliding_attention", "full_attention", "sliding_attention", "full_attention",
    "sliding_attention", "full_attention", "sliding_attention", "full_attention",
    "sliding_attention", "full_attention", "sliding_attention", "full_attention",
    "sliding_attention", "full_attention", "sliding_attention", "full_attention",
    "sliding_attention", "full_attention", "sliding_attention", "full_attention"
  ],
  "max_position_embeddings": 131072,
  "model_type": "gpt_oss",
  "num_attention_heads": 64,
  "num_experts_per_tok": 4,
  "num_hidden_layers": 24,
  "num_key_value_heads": 8,
  "num_local_experts": 32,
  "output_router_logits": false,
  "pad_token_id": 199999,
  "quantization_config": {
    "modules_to_not_convert": ["model.layers.*.self_attn", "model.layers.*.mlp.router", "model.embed_tokens", "lm_head"],
    "quant_method": "mxfp4"
  },
  "rms_norm_eps": 1e-05,
  "rope_scaling": {"beta_fast": 32.0, "beta_slow": 1.0, "factor": 32.0,
    "original_max_position_embeddings": 4096, "rope_type": "yarn", "truncate": false},
  "rope_theta": 150000,
  "router_aux_loss_coef": 0.9,
  "sliding_window": 128,
  "swiglu_limit": 7.0,
  "tie_word_embeddings": false,
  "transformers_version": "4.55.0.dev0",
  "use_cache": true,
  "vocab_size": 201088
}"#;

#[test]
fn gpt_oss_configs() {
    let (a, r) = read(GPT_OSS_20B);
    assert_eq!(a, zoo("gpt-oss-20b"));
    assert_eq!(r.quant_method.as_deref(), Some("mxfp4"));
    assert!(r
        .unused_keys
        .contains(&"quantization_config.modules_to_not_convert".to_string()));
    // By hand, per layer: q 2880·4096 + 4096, k and v 2·(2880·512 + 512), o 4096·2880 + 2880,
    // sinks 64; 32 experts of 2880·5760 + 5760 (gate_up with bias) + 2880·2880 + 2880 (down);
    // router 32·2880 + 32; norms 2·2880. + 2·201088·2880 + 2880.
    let attn =
        2880.0 * 4096.0 + 4096.0 + 2.0 * (2880.0 * 512.0 + 512.0) + 4096.0 * 2880.0 + 2880.0 + 64.0;
    let expert = 2880.0 * 5760.0 + 5760.0 + 2880.0 * 2880.0 + 2880.0;
    assert_eq!(a.expert_params(), expert);
    let other = attn + 32.0 * 2880.0 + 32.0 + 2.0 * 2880.0;
    let embed = 2.0 * 201088.0 * 2880.0 + 2880.0;
    assert_eq!(a.params_total(), 24.0 * (other + 32.0 * expert) + embed);
    assert_eq!(a.params_active(), 24.0 * (other + 4.0 * expert) + embed);
    // 120b: 36 layers, 128 experts.
    let types_36 = "\"sliding_attention\", \"full_attention\", ".repeat(18);
    let big = GPT_OSS_20B
        .replace("\"num_hidden_layers\": 24", "\"num_hidden_layers\": 36")
        .replace("\"num_local_experts\": 32", "\"num_local_experts\": 128")
        .replace(
            &GPT_OSS_20B[GPT_OSS_20B.find("\"layer_types\"").unwrap()
                ..GPT_OSS_20B.find("\"max_position_embeddings\"").unwrap()],
            &format!(
                "\"layer_types\": [{}],\n  ",
                types_36.trim_end_matches(", ")
            ),
        );
    let (b, _) = read(&big);
    assert_eq!(b, zoo("gpt-oss-120b"));
    assert_eq!(b.params_total(), 116_829_156_672.0); // OpenAI: 116.83B
                                                     // The two top-k keys must agree.
    let e = read_err(&GPT_OSS_20B.replace("\"experts_per_token\": 4", "\"experts_per_token\": 2"));
    assert!(
        e.starts_with("experts_per_token=2: disagrees with num_experts_per_tok = 4"),
        "{e}"
    );
}

const PHI4: &str = r#"{
  "architectures": ["Phi3ForCausalLM"],
  "attention_bias": false,
  "attention_dropout": 0.0,
  "bos_token_id": 100257,
  "embd_pdrop": 0.0,
  "eos_token_id": 100265,
  "hidden_act": "silu",
  "hidden_size": 5120,
  "initializer_range": 0.02,
  "intermediate_size": 17920,
  "max_position_embeddings": 16384,
  "model_type": "phi3",
  "num_attention_heads": 40,
  "num_hidden_layers": 40,
  "num_key_value_heads": 10,
  "original_max_position_embeddings": 16384,
  "pad_token_id": 100349,
  "resid_pdrop": 0.0,
  "rms_norm_eps": 1e-05,
  "rope_scaling": null,
  "rope_theta": 250000,
  "sliding_window": null,
  "tie_word_embeddings": false,
  "torch_dtype": "bfloat16",
  "transformers_version": "4.47.0",
  "use_cache": true,
  "vocab_size": 100352
}"#;

#[test]
fn phi_configs() {
    // Phi-4 (model_type phi3): fused qkv and gate_up hold the same parameters. Per layer:
    // q and o 2·5120², k and v 2·5120·1280, MLP 3·5120·17920, norms 2·5120; + 2·100352·5120
    // + 5120 = 14.66e9 (Microsoft: 14B; the checkpoint: 14.7B).
    let (a, _) = read(PHI4);
    let layer =
        2.0 * 5120.0 * 5120.0 + 2.0 * 5120.0 * 1280.0 + 3.0 * 5120.0 * 17920.0 + 2.0 * 5120.0;
    assert_eq!(
        a.params_total(),
        40.0 * layer + 2.0 * 100352.0 * 5120.0 + 5120.0
    );
    assert!(rel(a.params_total(), 14.7e9) < 0.003);
    assert_eq!(a.window, None);
    // Phi-3-mini-4k: MHA 32 × 96, sliding_window 2047 on every layer; 3.82e9 ("3.8B").
    let mini = PHI4
        .replace("\"hidden_size\": 5120", "\"hidden_size\": 3072")
        .replace(
            "\"intermediate_size\": 17920",
            "\"intermediate_size\": 8192",
        )
        .replace("\"num_attention_heads\": 40", "\"num_attention_heads\": 32")
        .replace("\"num_hidden_layers\": 40", "\"num_hidden_layers\": 32")
        .replace("\"num_key_value_heads\": 10", "\"num_key_value_heads\": 32")
        .replace("\"sliding_window\": null", "\"sliding_window\": 2047")
        .replace("\"vocab_size\": 100352", "\"vocab_size\": 32064");
    let (m, _) = read(&mini);
    assert_eq!(m.head_dim, 96.0);
    assert_eq!(
        m.window,
        Some(SlidingWindow {
            size: 2047.0,
            layers: 32.0
        })
    );
    assert_eq!(m.params_total(), 3_821_079_552.0);
    assert!(rel(m.params_total(), 3.8e9) < 0.006);
}

// ---------------------------------------------------------------------------------------
// Bad input: clear errors, never a guess

#[test]
fn config_errors_are_clear() {
    // Not JSON: line and column.
    let e = read_err("{\n  \"model_type\": \"llama\",\n  \"hidden_size\": 4096,\n}");
    assert_eq!(
        e,
        "cannot read `config.json`: line 4, column 1: trailing comma before `}` (JSON allows none)"
    );
    let e = read_err("{\"model_type\": 'llama'}");
    assert!(
        e.contains("line 1, column 16: strings use double quotes"),
        "{e}"
    );
    let e = read_err("{\"tie_word_embeddings\": True}");
    assert!(e.contains("`True` is Python; JSON writes `true`"), "{e}");
    let e = read_err("");
    assert!(e.contains("no JSON value: the text is empty"), "{e}");
    let e = read_err("[1, 2]");
    assert!(
        e.contains("expected a JSON object {...} at the top, found an array"),
        "{e}"
    );
    // The family.
    let e = read_err("{\"hidden_size\": 4096}");
    assert!(e.contains("missing required key `model_type`"), "{e}");
    let e = read_err("{\"model_type\": \"bert\"}");
    assert!(
        e.contains("unknown model_type `bert`; this app reads: llama, llama4"),
        "{e}"
    );
    assert!(e.contains("deepseek_v3, gpt_oss, phi3"), "{e}");
    let e = read_err("{\"model_type\": 7}");
    assert_eq!(e, "model_type=7: must be a string");
    // Required keys and their values, named.
    let e = read_err(&LLAMA31_8B.replace("\"num_hidden_layers\": 32,", ""));
    assert_eq!(
        e,
        "cannot read `config.json`: missing required key `num_hidden_layers` (model_type `llama`)"
    );
    for (from, to, want) in [
        (
            "\"hidden_size\": 4096",
            "\"hidden_size\": -4096",
            "hidden_size=-4096: must be a whole number from 1 to 1e9",
        ),
        (
            "\"hidden_size\": 4096",
            "\"hidden_size\": \"4096\"",
            "hidden_size=\"4096\": must be a whole number",
        ),
        (
            "\"hidden_size\": 4096",
            "\"hidden_size\": 4096.5",
            "hidden_size=4096.5: must be a whole number",
        ),
        (
            "\"hidden_size\": 4096",
            "\"hidden_size\": 1e30",
            "hidden_size=1e30: must be a whole number",
        ),
        (
            "\"vocab_size\": 128256",
            "\"vocab_size\": NaN",
            "vocab_size=NaN: must be a whole number",
        ),
        (
            "\"tie_word_embeddings\": false",
            "\"tie_word_embeddings\": \"no\"",
            "tie_word_embeddings=\"no\": must be true or false",
        ),
        (
            "\"num_key_value_heads\": 8",
            "\"num_key_value_heads\": 7",
            "kv_heads=7: must divide heads = 32",
        ),
    ] {
        let e = read_err(&LLAMA31_8B.replace(from, to));
        assert!(e.starts_with(want), "{to}: {e}");
    }
    // head_dim cannot be derived.
    let e = read_err(
        &LLAMA31_8B
            .replace("\"hidden_size\": 4096", "\"hidden_size\": 4000")
            .replace("\"num_attention_heads\": 32", "\"num_attention_heads\": 3"),
    );
    assert!(
        e.contains(
            "head_dim is absent and hidden_size 4000 is not a multiple of num_attention_heads 3"
        ),
        "{e}"
    );
    // Messages stay short whatever was pasted.
    let long = format!("{{\"model_type\": \"{}\"}}", "x".repeat(100_000));
    assert!(read_err(&long).chars().count() < 400);
}

#[test]
fn duplicate_keys_take_the_last_and_unused_keys_are_listed_once() {
    let text = LLAMA31_8B.replace(
        "\"vocab_size\": 128256",
        "\"vocab_size\": 1, \"vocab_size\": 128256, \"foo\": 1, \"foo\": 2",
    );
    let (a, r) = read(&text);
    assert_eq!(a.vocab, 128256.0);
    assert_eq!(r.unused_keys.iter().filter(|k| *k == "foo").count(), 1);
    assert!(!r.unused_keys.contains(&"vocab_size".to_string()));
}

// ---------------------------------------------------------------------------------------
// The JSON reader

#[test]
fn json_reader() {
    let v = json::parse(
        "\u{FEFF} {\"a\": [1, -2.5e3, true, false, null, \"x\\n\\u00e9\\ud83d\\ude00\\/\"], \"b\": {}, \"c\": [], \"d\": -0, \"e\": NaN, \"f\": -Infinity, \"g\": 1e400}",
    )
    .unwrap();
    let a = v.get("a").unwrap().as_array().unwrap();
    assert_eq!(a[0], Value::Number(1.0));
    assert_eq!(a[1], Value::Number(-2500.0));
    assert_eq!(a[2], Value::Bool(true));
    assert_eq!(a[4], Value::Null);
    assert_eq!(a[5].as_str(), Some("x\né😀/"));
    assert_eq!(v.get("b").unwrap().as_object().unwrap().len(), 0);
    assert!(v.get("e").unwrap().as_f64().unwrap().is_nan());
    assert_eq!(v.get("f").unwrap().as_f64(), Some(f64::NEG_INFINITY));
    assert_eq!(v.get("g").unwrap().as_f64(), Some(f64::INFINITY));
    // A lone surrogate becomes U+FFFD.
    assert_eq!(
        json::parse("\"\\ud800x\"").unwrap().as_str(),
        Some("\u{FFFD}x")
    );
    // Errors: line and column (in characters), what was expected.
    for (text, line, col, msg) in [
        (
            "{\"a\" 1}",
            1,
            6,
            "expected `:` after the key \"a\", found `1`",
        ),
        (
            "[1 2]",
            1,
            4,
            "expected `,` or `]` after an array element, found `2`",
        ),
        ("[1,]", 1, 4, "trailing comma before `]` (JSON allows none)"),
        (
            "{\"é\": x}",
            1,
            7,
            "unexpected word `x`: expected a value (strings need double quotes)",
        ),
        ("\"abc", 1, 1, "unterminated string: no closing `\"`"),
        (
            "\"a\tb\"",
            1,
            3,
            "control character inside a string (write it as an escape, e.g. \\n)",
        ),
        (
            "\"\\q\"",
            1,
            3,
            "invalid escape `\\q` (JSON escapes: \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)",
        ),
        (
            "\"\\u12\"",
            1,
            6,
            "expected 4 hex digits after \\u, found `\"`",
        ),
        ("01", 1, 2, "numbers do not start with 0 (no leading zeros)"),
        ("1.", 1, 3, "expected a digit after the decimal point"),
        ("1e+", 1, 4, "expected a digit in the exponent"),
        ("-", 1, 2, "expected a digit after `-`"),
        (
            "{} {}",
            1,
            4,
            "unexpected `{` after the JSON value (one value per text)",
        ),
        ("// c\n{}", 1, 1, "comments are not JSON: remove them"),
        (
            "{\n\n  None}",
            3,
            3,
            "expected a key in double quotes, found `N`",
        ),
        ("[None]", 1, 2, "`None` is Python; JSON writes `null`"),
        ("   ", 1, 4, "no JSON value: the text is empty"),
        (
            "{\"a\":",
            1,
            6,
            "expected a value, found the end of the text",
        ),
        ("[", 1, 2, "expected a value, found the end of the text"),
        ("[1", 1, 3, "unterminated array: expected `,` or `]`"),
        ("{\"a\":1", 1, 7, "unterminated object: expected `,` or `}`"),
    ] {
        let e = json::parse(text).unwrap_err();
        assert_eq!(
            (e.line, e.column, e.message.as_str()),
            (line, col, msg),
            "{text:?}"
        );
    }
    // Nesting is limited (no stack overflow), and so is the length.
    let deep = "[".repeat(json::MAX_DEPTH) + &"]".repeat(json::MAX_DEPTH);
    assert!(json::parse(&deep).is_ok());
    let deeper = "[".repeat(json::MAX_DEPTH + 1) + &"]".repeat(json::MAX_DEPTH + 1);
    assert_eq!(
        json::parse(&deeper).unwrap_err().message,
        format!("nested deeper than {} levels", json::MAX_DEPTH)
    );
    let huge = "[".repeat(1_000_000);
    assert!(json::parse(&huge).is_err());
    let long = " ".repeat(json::MAX_LEN + 1);
    assert!(json::parse(&long).unwrap_err().message.contains("at most"));
}

#[test]
fn describe_and_validate() {
    let a = zoo("deepseek-v3");
    assert_eq!(
        a.describe(),
        "61 layers, d_model 7168, MLA (KV rank 512 + RoPE 64), 128 heads, MoE 256 experts top-8 + 1 shared (width 2048), 3 dense layers (ffn 18432), vocab 129280"
    );
    assert_eq!(
        zoo("gemma3-27b").describe(),
        "62 layers, d_model 5376, 32 heads / 16 KV heads of 128, ffn 21504, window 1024 on 52 of 62 layers, vocab 262208 (tied)"
    );
    let mut bad = zoo("mixtral-8x7b");
    bad.moe = Some(Moe {
        dense_layers: 32.0,
        ..bad.moe.unwrap()
    });
    assert!(bad
        .validate()
        .unwrap_err()
        .to_string()
        .starts_with("dense_layers=32: must be below layers = 32"));
    let mut bad = zoo("gemma3-27b");
    bad.window = Some(SlidingWindow {
        size: 1024.0,
        layers: 63.0,
    });
    assert!(bad
        .validate()
        .unwrap_err()
        .to_string()
        .starts_with("window_layers=63: must be at most layers = 62"));
    let bad = Arch {
        layers: f64::INFINITY,
        ..zoo("llama3-8b")
    };
    assert!(bad
        .validate()
        .unwrap_err()
        .to_string()
        .starts_with("layers=inf: must be a whole number"));
    let bad = Arch {
        mla: Some(Mla {
            qk_nope_head_dim: 0.0,
            qk_rope_head_dim: 0.0,
            ..zoo("deepseek-v3").mla.unwrap()
        }),
        ..zoo("deepseek-v3")
    };
    assert!(bad.validate().is_err());
    assert_eq!(Arch::default(), zoo("llama3-8b"));
}

/// Work stays proportional to the text: layer counts are computed, not iterated (a pasted
/// `num_hidden_layers` of 1e9 costs nothing), and long layer lists and key lists are checked
/// in `n log n`. A quadratic pass over these inputs would take minutes.
#[test]
fn pathological_configs_are_cheap() {
    let start = std::time::Instant::now();
    let big = QWEN15_MOE
        .replace(
            "\"num_hidden_layers\": 24",
            "\"num_hidden_layers\": 1000000000",
        )
        .replace("\"decoder_sparse_step\": 1", "\"decoder_sparse_step\": 3");
    let list: Vec<String> = (0..200_000).map(|i| (i * 5).to_string()).collect();
    let text = big.replace(
        "\"hidden_act\"",
        &format!(
            "\"mlp_only_layers\": [{}],\n  \"hidden_act\"",
            list.join(",")
        ),
    );
    let (a, _) = read(&text);
    // MoE where (i + 1) % 3 == 0, less the listed i = 5j with (5j + 1) % 3 == 0 (j ≡ 1 mod 3:
    // 66,667 of the 200,000).
    assert_eq!(a.moe_layers(), (1e9f64 / 3.0).floor() - 66_667.0);
    // A repeated layer is named.
    let dup = QWEN15_MOE.replace(
        "\"hidden_act\"",
        "\"mlp_only_layers\": [3, 1, 3],\n  \"hidden_act\"",
    );
    let e = read_err(&dup);
    assert_eq!(e, "mlp_only_layers=an array of 3: lists layer 3 twice");
    // 200,000 unused keys are listed once each.
    let keys: Vec<String> = (0..200_000).map(|i| format!("\"k{i}\": {i}")).collect();
    let text = LLAMA31_8B.replace(
        "\"vocab_size\"",
        &format!("{},\n  \"vocab_size\"", keys.join(", ")),
    );
    let (_, r) = read(&text);
    assert_eq!(r.unused_keys.len(), 12 + 200_000);
    assert!(start.elapsed().as_secs() < 20, "{:?}", start.elapsed());
}
