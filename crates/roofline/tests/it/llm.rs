//! Transformer workloads (`op=llm`): the step decomposed into core operations and summed.
//! Every expected number is worked out by hand here from the architecture (Llama-3 8B: 32
//! layers, d_model 4096, ffn 14336 gated, 32 heads, 8 KV heads, head dim 128, vocab 128256;
//! 70B: 80, 8192, 28672, 64, 8, 128, 128256) and the H100 figures (bf16 9.89e14 FLOPs/s,
//! vector unit 6.7e13, HBM 3.35e12 B/s, 80e9 B, NVLink 18 × 2.5e10 = 4.5e11 B/s).

use crate::common;

use common::{close, op_with, rel};
use roofline::units::format_sig;
use roofline::*;

const P: f64 = 9.89e14; // H100 dense bf16
const VPU: f64 = 6.7e13; // H100 vector unit (norms)
const HBM: f64 = 3.35e12;

fn h100() -> Chip {
    preset("h100").unwrap()
}

fn llm(kv: &[(&str, &str)]) -> Op {
    op_with("llm", kv)
}

fn work(op: &Op, chip: &Chip) -> Workload {
    analyze_workload(op, chip, &Options::default())
        .unwrap()
        .unwrap()
}

fn part<'a>(w: &'a Workload, name: &str) -> &'a (Part, Analysis) {
    w.parts
        .iter()
        .find(|(p, _)| p.name.starts_with(name))
        .unwrap_or_else(|| panic!("no part {name}"))
}

/// Matrices read per decode step of Llama-3 8B (everything but the embedding table, of which
/// only the gathered rows are read): per layer q 4096·4096, k and v 2·4096·1024, o
/// 4096·4096, MLP 3·4096·14336; LM head 4096·128256.
const L8_LAYER_MATS: f64 =
    4096.0 * 4096.0 + 2.0 * 4096.0 * 1024.0 + 4096.0 * 4096.0 + 3.0 * 4096.0 * 14336.0;
const L8_MATS: f64 = 32.0 * L8_LAYER_MATS + 4096.0 * 128256.0;

#[test]
fn fields_presets_and_parameter_counts() {
    let op = Op::default_for("llm").unwrap();
    let keys: Vec<&str> = op.fields().iter().map(|f| f.key).collect();
    assert_eq!(
        keys,
        [
            "preset",
            "b",
            "ctx",
            "phase",
            "w",
            "x",
            "kv",
            "tp",
            "link",
            "layers",
            "dmodel",
            "ffn",
            "gated",
            "heads",
            "kv_heads",
            "head_dim",
            "vocab",
            // Additions (issue 13), each defaulting to today's dense Llama behaviour.
            "experts",
            "top_k",
            "shared_experts",
            "expert_ffn",
            "shared_ffn",
            "dense_layers",
            "router_bias",
            "shared_gate",
            "kv_rank",
            "q_rank",
            "rope_dim",
            "nope_dim",
            "v_dim",
            "window",
            "window_layers",
            "tied",
            "qkv_bias",
            "o_bias",
            "mlp_bias",
            "sinks",
            "qk_norm",
            "norms",
            "prompt",
            "output",
            "draft",
            "spec_k",
            "accept",
            "tpot_max",
            "ep",
            // Issue 40: serving under load, each absent from a link at its default.
            "moe_ep",
            "load",
            "c",
            "qps",
            "prefix_hit",
            "chunk",
            "max_seqs",
            "ttft_max",
            "engine",
            "prompt_cv",
            "output_cv",
            "seed",
            "slo_pct",
            "disagg",
            "p_tp",
            "p_ep",
            "d_tp",
            "d_ep",
            "d_chip",
            "kv_link",
            "kv_host",
            "prefix_set",
        ]
    );
    for (k, v) in [
        ("preset", "llama3-8b"),
        ("b", "1"),
        ("ctx", "2048"),
        ("phase", "decode"),
        ("w", "bf16"),
        ("tp", "1"),
        ("layers", "32"),
        ("dmodel", "4096"),
        ("ffn", "14336"),
        ("gated", "yes"),
        ("heads", "32"),
        ("kv_heads", "8"),
        ("head_dim", "128"),
        ("vocab", "128256"),
    ] {
        assert_eq!(op.get(k).unwrap(), v, "{k}");
    }
    // The preset is derived from the architecture: editing a field makes it custom, setting
    // it back makes it the preset again; `preset=llama3-70b` fills the architecture.
    let mut o = op.clone();
    o.set("layers", "33").unwrap();
    assert_eq!(o.get("preset").unwrap(), "custom");
    o.set("preset", "custom").unwrap();
    assert_eq!(o.get("layers").unwrap(), "33");
    o.set("layers", "32").unwrap();
    assert_eq!(o.get("preset").unwrap(), "llama3-8b");
    o.set("b", "64").unwrap();
    o.set("preset", "llama3-70b").unwrap();
    for (k, v) in [
        ("preset", "llama3-70b"),
        ("layers", "80"),
        ("dmodel", "8192"),
        ("ffn", "28672"),
        ("heads", "64"),
        ("kv_heads", "8"),
        ("b", "64"),
    ] {
        assert_eq!(o.get(k).unwrap(), v, "{k}");
    }
    // Order of set calls does not matter (what a generic URL codec needs).
    let mut a = op.clone();
    a.set("preset", "llama3-70b").unwrap();
    a.set("heads", "32").unwrap();
    let mut b = op.clone();
    b.set("heads", "32").unwrap();
    for (k, v) in [("layers", "80"), ("dmodel", "8192"), ("ffn", "28672")] {
        b.set(k, v).unwrap();
    }
    assert_eq!(a, b);
    assert_eq!(a.get("preset").unwrap(), "custom");
    // Bad values name the field.
    let mut e = op.clone();
    assert!(e
        .set("phase", "training")
        .unwrap_err()
        .to_string()
        .contains("phase=training"));
    assert!(e.set("gated", "maybe").is_err());
    assert!(e.set("tp", "0").is_err());
    assert!(e.set("preset", "gpt-5").is_err());
    assert!(llm_presets()
        .iter()
        .all(|p| p.source.contains("config.json")));

    // Parameter counts by hand. 8B: per layer 16,777,216 + 8,388,608 + 16,777,216 +
    // 176,160,768 + 2·4096 (norms) = 218,112,000; ×32 = 6,979,584,000; embedding and LM head
    // 2·525,336,576; final norm 4096 → 8,030,261,248.
    let OpKind::Llm(l8) = op.kind else { panic!() };
    assert_eq!(
        l8.params(),
        32.0 * (L8_LAYER_MATS + 2.0 * 4096.0) + 2.0 * 4096.0 * 128256.0 + 4096.0
    );
    assert_eq!(l8.params(), 8_030_261_248.0);
    // 70B: per layer 8192² + 2·8192·1024 + 8192² + 3·8192·28672 + 2·8192 = 855,654,400.
    let OpKind::Llm(l70) = o.kind else { panic!() };
    let l70_layer = 8192.0 * 8192.0
        + 2.0 * 8192.0 * 1024.0
        + 8192.0 * 8192.0
        + 3.0 * 8192.0 * 28672.0
        + 2.0 * 8192.0;
    assert_eq!(l70_layer, 855_654_400.0);
    assert_eq!(
        l70.params(),
        80.0 * l70_layer + 2.0 * 8192.0 * 128256.0 + 8192.0
    );
    assert_eq!(l70.params(), 70_553_706_496.0);
}

#[test]
fn parts_of_a_decode_step() {
    let op = Op::default_for("llm").unwrap();
    let ps = parts(&op).unwrap();
    let names: Vec<(&str, f64)> = ps.iter().map(|p| (p.name.as_str(), p.repeat)).collect();
    assert_eq!(
        names,
        [
            ("embedding gather", 1.0),
            ("attention norm", 32.0),
            ("QKV projection", 32.0),
            ("attention scores Q·Kᵀ", 32.0),
            ("attention values P·V", 32.0),
            ("output projection", 32.0),
            ("MLP norm", 32.0),
            ("MLP gate", 32.0),
            ("MLP up", 32.0),
            ("MLP down", 32.0),
            ("final norm", 1.0),
            ("LM head", 1.0),
        ]
    );
    // Every part is a plain, valid core op (it can be analysed on its own).
    for p in &ps {
        assert!(parts(&p.op).is_none());
        p.op.validate().unwrap();
        assert_eq!(p.op.label.as_deref(), Some(p.name.as_str()));
    }
    assert_eq!(ps[2].op.get("f").unwrap(), "6144"); // (32 + 2·8)·128
    assert_eq!(ps[11].op.get("f").unwrap(), "128256");
    // Not gated: up and down only.
    let ng = parts(&llm(&[("gated", "no")])).unwrap();
    assert_eq!(ng.len(), 11);
    assert!(ng.iter().all(|p| p.name != "MLP gate"));
    // Plain kinds have no parts.
    assert!(parts(&Op::default_for("matmul").unwrap()).is_none());
    assert!(parts(&Op::default_for("model").unwrap()).is_none());
    assert!(analyze_workload(
        &Op::default_for("matmul").unwrap(),
        &h100(),
        &Options::default()
    )
    .unwrap()
    .is_none());
}

/// Llama-3 8B decode at B=1, ctx 2048, bf16 on H100: every weight but the embedding table is
/// read once (15.0 GB), plus the KV cache (0.27 GB) and a few activations; every part is
/// memory-bound, so the step takes bytes / 3.35e12 = 4.56 ms.
#[test]
fn llama3_8b_decode_b1_on_h100() {
    let w = work(&Op::default_for("llm").unwrap(), &h100());
    let weights = 2.0 * L8_MATS;
    assert_eq!(weights, 15_009_316_864.0); // ≈ 15 GB
                                           // KV cache: 2 (K and V) · 32 layers · 8 KV heads · 128 · 2048 positions · 2 bytes.
    let kv = 2.0 * 32.0 * 8.0 * 128.0 * 2048.0 * 2.0;
    assert_eq!(kv, 268_435_456.0);
    // Activations (T = 1 token, 2 bytes each): per layer attention norm in+out 2·4096·2, QKV
    // in 4096 + out 6144, Q 4096 + O 4096 (attention), o-proj in 4096 + out 4096, MLP norm
    // 2·4096, gate and up in 4096 + out 14336 each, down in 14336 + out 4096; once: gather
    // (table row + activation) 2·4096·2, final norm 2·4096·2, LM head in 4096 + out 128256.
    let layer_act = 2.0
        * (2.0 * 4096.0
            + (4096.0 + 6144.0)
            + (4096.0 + 4096.0)
            + (4096.0 + 4096.0)
            + 2.0 * 4096.0
            + 2.0 * (4096.0 + 14336.0)
            + (14336.0 + 4096.0));
    assert_eq!(layer_act, 196_608.0);
    let act = 32.0 * layer_act + 2.0 * (2.0 * 4096.0) * 2.0 + 2.0 * (4096.0 + 128256.0);
    let bytes = weights + kv + act;
    assert_eq!(bytes, 15_284_341_248.0);
    assert_eq!(w.bytes, bytes);
    assert_eq!(w.analysis.term(Resource::Hbm).unwrap().bytes, bytes);
    // Every part is memory-bound, so T_lower = Σ bytes / HBM bandwidth.
    assert!(w.summary.iter().all(|(_, b)| *b == Bound::Memory));
    assert_eq!(w.time_by_bound.len(), 1);
    close(w.t_lower, bytes / HBM, 1e-12, "step time");
    close(w.t_lower, 4.5625e-3, 1e-4, "≈ 4.56 ms");
    assert!((4.5e-3..4.6e-3).contains(&w.t_lower));
    assert_eq!(w.bound, Bound::Memory);
    // FLOPs: 2 per weight used, attention 2 · 2·32·128·2048 per layer, norms 4 per element.
    let attn = 2.0 * (2.0 * 32.0 * 128.0 * 2048.0);
    let norms = 4.0 * 4096.0 * (2.0 * 32.0 + 1.0);
    let flops = 2.0 * L8_MATS + 32.0 * attn + norms;
    assert_eq!(flops, 16_084_123_648.0);
    assert_eq!(w.flops, flops);
    // T_math: everything at the bf16 peak but the norms, which run on the vector unit.
    close(w.t_math, (flops - norms) / P + norms / VPU, 1e-12, "T_math");
    // Intensity of the whole step ≈ 1 (MLSys·im: "1 FLOP/byte → deeply memory-bound").
    close(w.analysis.intensity, flops / bytes, 1e-12, "intensity");
    assert!((1.0..1.1).contains(&w.analysis.intensity));
    // Tokens: B = 1 per step.
    assert_eq!(w.tokens, 1.0);
    close(w.tokens_per_s, 1.0 / w.t_lower, 1e-15, "tokens/s");
    close(w.time_per_token, w.t_lower, 1e-15, "s/token");
    assert!((219.0..220.0).contains(&w.tokens_per_s));
    // Memory: all weights (embedding too, and norms) + KV cache.
    assert_eq!(w.weights, 2.0 * 8_030_261_248.0);
    assert_eq!(w.kv_cache, kv);
    assert_eq!(w.memory, 2.0 * 8_030_261_248.0 + kv);
    assert!(w.fits);
    assert!(w.allreduce.is_none());
    // analyze() gives the same aggregate.
    let a = analyze(
        &Op::default_for("llm").unwrap(),
        &h100(),
        &Options::default(),
    )
    .unwrap();
    assert_eq!(a, w.analysis);
    assert_eq!(a.t_lower, w.t_lower);
    assert_eq!(a.bound, Bound::Memory);
    assert_eq!(a.binding, Resource::Hbm);
    close(a.ridge, P / HBM, 1e-12, "ridge 295");
    close(a.achieved, flops / w.t_lower, 1e-12, "achieved");
    assert_eq!(a.report.parts.len(), 12);
    // T_upper = T_math + T_hbm.
    close(a.t_upper, a.t_math + bytes / HBM, 1e-12, "T_upper");
    // The embedding table is not read: only the one gathered row (4096·2 bytes) + its copy.
    let (_, g) = part(&w, "embedding gather");
    assert_eq!(g.bytes, 4096.0 * 2.0 * 2.0);
    assert_eq!(g.flops, 0.0);
}

/// Decode at larger B: the MLP matmuls turn compute-bound near B ≈ 295 (the ridge: intensity
/// ≈ B in bf16); attention keeps intensity ≈ H/K = 4 at any B, so it stays memory-bound; with
/// a 2048 context the KV cache keeps the whole step memory-bound at every B.
#[test]
fn decode_batch_mlp_versus_attention() {
    let chip = h100();
    // MLP gate [B,4096]·[4096,14336]: exact critical from 2BDF/P = 2(BD + DF + BF)/HBM.
    let (d, f) = (4096.0, 14336.0);
    let crit = (d * f / HBM) / (d * f / P - (d + f) / HBM);
    assert!((325.0..326.0).contains(&crit));
    let w1 = work(&Op::default_for("llm").unwrap(), &chip);
    let (_, g) = part(&w1, "MLP gate");
    let c = g.critical.as_ref().unwrap();
    close(c.value, crit, 1e-9, "MLP gate critical B");
    close(c.approx.unwrap(), P / HBM, 1e-12, "≈ ridge 295");
    // Attention: 2·H·S·h FLOPs per sequence over 2·H·h (Q) + 2·K·S·h (K cache) bytes.
    let attn_i = (2.0 * 32.0 * 2048.0 * 128.0) / (2.0 * 32.0 * 128.0 + 2.0 * 8.0 * 2048.0 * 128.0);
    assert!((3.99..4.0).contains(&attn_i));
    for b in ["1", "295", "400", "4096"] {
        let w = work(&llm(&[("b", b)]), &chip);
        for name in ["attention scores", "attention values"] {
            let (_, a) = part(&w, name);
            close(a.intensity, attn_i, 1e-12, name);
            assert_eq!(a.bound, Bound::Memory, "{name} at B={b}");
        }
        let bound = part(&w, "MLP up").1.bound;
        let want = if b.parse::<f64>().unwrap() >= crit {
            Bound::Compute
        } else {
            Bound::Memory
        };
        assert_eq!(bound, want, "MLP up at B={b}");
        assert_eq!(w.bound, Bound::Memory, "step at B={b}");
        assert!(w.analysis.critical.is_none());
    }
    // Why never: per sequence the step reads 268,435,456 bytes of KV cache (80 µs) but does
    // only 16.1e9 FLOPs (16 µs), so the time per extra sequence grows faster on HBM.
    let kv_per_seq = 2.0 * 32.0 * 8.0 * 128.0 * 2048.0 * 2.0;
    assert!(kv_per_seq / HBM > 16_084_123_648.0 / P * 4.0);

    // A short context (128): the step turns compute-bound at an exact B. Times per sequence:
    // math (2·mats + attention at S=128) / P + norms / VPU; HBM: KV at S=128 + activations
    // (196,608 per layer, 16384 + 16384 + 264,704 once); the weights' 15.0 GB is the constant.
    let mats = 2.0 * L8_MATS;
    let attn = 32.0 * 2.0 * (2.0 * 32.0 * 128.0 * 128.0);
    let norms = 4.0 * 4096.0 * 65.0;
    let math = (mats + attn) / P + norms / VPU;
    let act = 32.0 * 196_608.0 + 16384.0 + 16384.0 + 264_704.0;
    let hbm = (2.0 * 32.0 * 8.0 * 128.0 * 128.0 * 2.0 + act) / HBM;
    // (≈ 15.0e9/3.35e12 = 4.48 ms over 15.3 µs − 7.0 µs per sequence.)
    let b_crit = (mats / HBM) / (math - hbm);
    assert!((540.0..542.0).contains(&b_crit), "{b_crit}");
    let op = llm(&[("ctx", "128")]);
    let a = analyze(&op, &chip, &Options::default()).unwrap();
    let c = a.critical.clone().unwrap();
    assert_eq!((c.dim.as_str(), c.resource), ("b", Resource::Hbm));
    close(c.value, b_crit, 1e-9, "step critical B at ctx 128");
    let at = |b: f64| {
        let mut o = op.clone();
        o.set_num("b", b).unwrap();
        analyze(&o, &chip, &Options::default()).unwrap()
    };
    assert_eq!(at(b_crit.floor()).bound, Bound::Memory);
    assert_eq!(at(b_crit.ceil()).bound, Bound::Compute);
    // The sweep finds the same crossover.
    let s = sweep(
        &op,
        &chip,
        &Options::default(),
        &SweepSpec {
            field: "b".into(),
            from: 1.0,
            to: 1024.0,
            points: 64,
            log: true,
        },
    )
    .unwrap();
    assert_eq!(s.crossovers.len(), 1);
    close(s.crossovers[0].x, b_crit, 1e-9, "sweep crossover");
    assert_eq!(
        (s.crossovers[0].before, s.crossovers[0].after),
        (Bound::Memory, Bound::Compute)
    );
}

/// Prefill of one 2048-token prompt: T = 2048 tokens; the matmuls and the causal attention
/// are compute-bound, only the norms and the gather are memory-bound.
#[test]
fn prefill_is_mostly_compute_bound() {
    let chip = h100();
    let w = work(&llm(&[("phase", "prefill")]), &chip);
    assert_eq!(w.tokens, 2048.0);
    let (t, s) = (2048.0, 2048.0);
    // Attention per layer and part: 2·H·h·S(S+1)/2 FLOPs over Q (2·T·H·h) + cache (2·K·S·h).
    let attn_flops = 2.0 * 32.0 * 128.0 * s * (s + 1.0) / 2.0;
    let attn_bytes = 2.0 * t * 32.0 * 128.0 + 2.0 * 8.0 * s * 128.0;
    let (_, sc) = part(&w, "attention scores");
    assert_eq!(sc.flops, attn_flops);
    assert_eq!(sc.bytes, attn_bytes);
    assert!(attn_flops / attn_bytes > 800.0);
    assert_eq!(sc.bound, Bound::Compute);
    for (name, want) in [
        ("embedding gather", Bound::Memory),
        ("attention norm", Bound::Memory),
        ("QKV projection", Bound::Compute),
        ("attention scores", Bound::Compute),
        ("attention values", Bound::Compute),
        ("output projection", Bound::Compute),
        ("MLP gate", Bound::Compute),
        ("MLP up", Bound::Compute),
        ("MLP down", Bound::Compute),
        ("final norm", Bound::Memory),
        // The LM head runs on the last position only (B = 1 row): memory-bound.
        ("LM head", Bound::Memory),
    ] {
        assert_eq!(part(&w, name).1.bound, want, "{name}");
    }
    // FLOPs: 2·T per layer matrix weight, LM head 2·1·4096·128256, attention, norms.
    let flops = 2.0 * t * 32.0 * L8_LAYER_MATS
        + 2.0 * 4096.0 * 128256.0
        + 32.0 * 2.0 * attn_flops
        + 4.0 * 4096.0 * (2.0 * 32.0 * t + 1.0);
    close(w.flops, flops, 1e-15, "prefill FLOPs");
    assert_eq!(w.bound, Bound::Compute);
    let compute = w
        .time_by_bound
        .iter()
        .find(|(b, _)| *b == Bound::Compute)
        .unwrap()
        .1;
    assert!(compute / w.t_lower > 0.95);
    // A compute-bound matmul part takes exactly FLOPs / peak.
    let (_, up) = part(&w, "MLP up");
    close(up.t_lower, 2.0 * t * 4096.0 * 14336.0 / P, 1e-12, "MLP up");
    // The step: at least its FLOPs at peak, 66 thousand tokens/s.
    assert!(w.t_lower > (flops - 4.0 * 4096.0 * (64.0 * t + 1.0)) / P);
    close(w.tokens_per_s, 2048.0 / w.t_lower, 1e-15, "tokens/s");
    assert!((6.0e4..7.0e4).contains(&w.tokens_per_s));
    // Compute-bound at any batch (critical B below 1).
    assert!(w.analysis.critical.as_ref().unwrap().value < 1.0);
}

/// Tensor parallelism over 8 H100s on NVLink: weights, heads and KV cache split 8 ways; two
/// all-reduces per layer of 2·(8−1)/8 · T·4096·2 bytes per chip each.
#[test]
fn tensor_parallel_8_on_nvlink() {
    let chip = h100();
    let op = llm(&[("tp", "8"), ("link", "nvlink")]);
    let w = work(&op, &chip);
    let ar = w.allreduce.unwrap();
    assert_eq!(ar.resource, Resource::Nvlink);
    assert_eq!(ar.bandwidth, 18.0 * 2.5e10);
    assert_eq!(ar.count, 2.0 * 32.0);
    assert_eq!(ar.bytes_each, 2.0 * 7.0 / 8.0 * 1.0 * 4096.0 * 2.0);
    assert_eq!(ar.bytes_each, 14336.0);
    assert_eq!(ar.bytes, 64.0 * 14336.0);
    close(ar.time, 64.0 * 14336.0 / 4.5e11, 1e-15, "all-reduce time");
    assert_eq!(
        w.analysis.term(Resource::Nvlink).unwrap().bytes,
        64.0 * 14336.0
    );
    // Per-chip matmuls: QKV [1,4096]·[4096,768], o-proj [1,512]·[512,4096] + all-reduce.
    let (_, qkv) = part(&w, "QKV projection");
    assert_eq!(qkv.flops, 2.0 * 4096.0 * 768.0);
    assert_eq!(qkv.bytes, 2.0 * (4096.0 + 4096.0 * 768.0 + 768.0));
    let (_, o) = part(&w, "output projection");
    assert_eq!(
        o.term(Resource::Hbm).unwrap().bytes,
        2.0 * (512.0 + 512.0 * 4096.0 + 4096.0)
    );
    assert_eq!(o.term(Resource::Nvlink).unwrap().bytes, 14336.0);
    // Attention: 4 query heads and 1 KV head per chip.
    let (_, sc) = part(&w, "attention scores");
    assert_eq!(sc.flops, 2.0 * 4.0 * 128.0 * 2048.0);
    assert_eq!(sc.bytes, 2.0 * 4.0 * 128.0 + 2.0 * 1.0 * 2048.0 * 128.0);
    // Memory per chip: sharded weights / 8 + norms (replicated) + KV / 8.
    let sharded = 32.0 * L8_LAYER_MATS + 2.0 * 4096.0 * 128256.0;
    let norms = (2.0 * 32.0 + 1.0) * 4096.0;
    assert_eq!(w.weights, 2.0 * (sharded / 8.0 + norms));
    assert_eq!(w.kv_cache, 268_435_456.0 / 8.0);
    // The matrices read per chip are an eighth of 15.0 GB.
    let mats: f64 = w
        .parts
        .iter()
        .filter(|(p, _)| p.op.kind_id() == "matmul")
        .map(|(p, a)| {
            let (d, f) = (p.op.get_num("d").unwrap(), p.op.get_num("f").unwrap());
            let local = 2.0 * d * f / 8.0;
            assert!(a.bytes >= local);
            p.repeat * local
        })
        .sum();
    assert_eq!(mats, 2.0 * L8_MATS / 8.0);
    // Still memory-bound, about 8× faster; T_upper adds the NVLink time.
    assert_eq!(w.bound, Bound::Memory);
    let w1 = work(&Op::default_for("llm").unwrap(), &chip);
    assert!(w.t_lower < w1.t_lower / 7.9 && w.t_lower > w1.t_lower / 8.1);
    let a = &w.analysis;
    close(
        a.t_upper,
        a.t_math + a.term(Resource::Hbm).unwrap().time + ar.time,
        1e-12,
        "T_upper",
    );
    // Over PCIe the same bytes use the host link (6.4e10 B/s).
    let wp = work(&llm(&[("tp", "8"), ("link", "pcie")]), &chip);
    let arp = wp.allreduce.unwrap();
    assert_eq!(
        (arp.resource, arp.bandwidth, arp.bytes),
        (Resource::Pcie, 6.4e10, ar.bytes)
    );
    // Prefill with tp=8: the all-reduces carry 2·7/8·2048·4096·2 bytes each.
    let wpf = work(
        &llm(&[("tp", "8"), ("link", "nvlink"), ("phase", "prefill")]),
        &chip,
    );
    assert_eq!(
        wpf.allreduce.unwrap().bytes_each,
        2.0 * 7.0 / 8.0 * 2048.0 * 4096.0 * 2.0
    );
    // A chip without the link: a typed error, no fallback.
    let mut no_link = chip.clone();
    no_link.ici = None;
    assert!(matches!(
        analyze(&op, &no_link, &Options::default()),
        Err(Error::MissingResource { .. })
    ));
    // tp = 1 needs no link.
    no_link.pcie = None;
    analyze(
        &Op::default_for("llm").unwrap(),
        &no_link,
        &Options::default(),
    )
    .unwrap();
}

/// Llama-3 70B: 70.6e9 parameters × 2 bytes ≈ 141 GB > 80 GB: does not fit on one H100;
/// with tp=2 each chip holds ≈ 70.6 GB + half the KV cache and fits.
#[test]
fn llama3_70b_memory() {
    let chip = h100();
    let a = analyze(
        &llm(&[("preset", "llama3-70b")]),
        &chip,
        &Options::default(),
    )
    .unwrap();
    let kv = 2.0 * 80.0 * 8.0 * 128.0 * 2048.0 * 2.0;
    assert_eq!(a.memory, 70_553_706_496.0 * 2.0 + kv);
    assert!(a.memory > 141e9);
    assert_eq!(a.capacity, 80e9);
    assert!(!a.fits);
    let a2 = analyze(
        &llm(&[("preset", "llama3-70b"), ("tp", "2"), ("link", "nvlink")]),
        &chip,
        &Options::default(),
    )
    .unwrap();
    let norms = (2.0 * 80.0 + 1.0) * 8192.0;
    assert_eq!(
        a2.memory,
        2.0 * ((70_553_706_496.0 - norms) / 2.0 + norms) + kv / 2.0
    );
    assert!(a2.memory < 72e9);
    assert!(a2.fits);
    assert!(a.derivation().iter().any(|l| l.contains("does not fit")));
}

/// Sweeps over B and ctx give, point for point, what analyze gives.
#[test]
fn sweeps_over_b_and_ctx_match_analysis() {
    let chip = h100();
    let opts = Options {
        derate: 0.8,
        convention: FlopConvention::OnePerMac,
        ..Options::default()
    };
    for (op, field, from, to) in [
        (Op::default_for("llm").unwrap(), "b", 1.0, 4096.0),
        (llm(&[("phase", "prefill")]), "ctx", 16.0, 65536.0),
        (llm(&[("tp", "4"), ("link", "nvlink")]), "ctx", 1.0, 1e6),
        (
            llm(&[("preset", "llama3-70b"), ("tp", "8")]),
            "b",
            1.0,
            2048.0,
        ),
    ] {
        let s = sweep(
            &op,
            &chip,
            &opts,
            &SweepSpec {
                field: field.into(),
                from,
                to,
                points: 41,
                log: true,
            },
        )
        .unwrap();
        assert!(s.points.len() > 30);
        assert_eq!(s.peak, 0.5 * P);
        for p in &s.points {
            let mut o = op.clone();
            o.set_num(field, p.x).unwrap();
            let a = analyze(&o, &chip, &opts).unwrap();
            assert_eq!(p.t_lower, a.t_lower, "{field}={}", p.x);
            assert_eq!(p.t_upper, a.t_upper);
            assert_eq!(p.t_math, a.t_math);
            assert_eq!(p.t_comms, a.t_comms);
            assert_eq!(p.achieved, a.achieved);
            assert_eq!(p.bound, a.bound);
        }
        // Crossovers are exact real values (a context of 282.88): the bound changes between
        // the whole numbers around them.
        for c in &s.crossovers {
            let at = |x: f64| {
                let mut o = op.clone();
                o.set_num(field, x).unwrap();
                analyze(&o, &chip, &opts).unwrap().bound
            };
            assert_ne!(c.before, c.after);
            if c.x.fract() != 0.0 {
                assert_ne!(at(c.x.floor()), at(c.x.ceil()), "{field} crossover {}", c.x);
            }
        }
    }
    // Longer context at decode: the KV cache makes each step slower.
    let s = sweep(
        &Op::default_for("llm").unwrap(),
        &chip,
        &Options::default(),
        &SweepSpec {
            field: "ctx".into(),
            from: 1024.0,
            to: 131072.0,
            points: 8,
            log: true,
        },
    )
    .unwrap();
    assert!(s.points.windows(2).all(|w| w[1].t_lower > w[0].t_lower));
}

#[test]
fn derivation_serde_and_url() {
    let chip = h100();
    let op = llm(&[("tp", "2"), ("link", "nvlink"), ("b", "8")]);
    let a = analyze(&op, &chip, &Options::default()).unwrap();
    let text = a.derivation().join("\n");
    for name in [
        "QKV projection",
        "attention scores Q·Kᵀ",
        "MLP down",
        "LM head",
    ] {
        assert!(text.contains(name), "{name} missing in\n{text}");
    }
    for s in [
        "T_lower = Σ r·T_lower",
        "T_upper = Σ r·T_upper",
        "Llama 3 model card",
        "all-reduced over NVLINK",
        "tokens/s",
        "Memory per chip",
    ] {
        assert!(text.contains(s), "{s} missing in\n{text}");
    }
    for v in [a.t_math, a.t_lower, a.t_upper, a.intensity, a.ridge] {
        assert!(text.contains(&format_sig(v, 3)), "{v} missing");
    }
    // serde and URL round trips (the URL goes through generic get/set).
    let json = serde_json::to_string(&op).unwrap();
    assert!(json.contains("\"op\":\"llm\""));
    assert_eq!(serde_json::from_str::<Op>(&json).unwrap(), op);
    for o in [
        op.clone(),
        llm(&[("preset", "llama3-70b"), ("phase", "prefill")]),
        llm(&[("preset", "llama3-70b"), ("heads", "32"), ("gated", "no")]),
        Op::default_for("llm").unwrap(),
    ] {
        let sc = Scenario {
            ops: vec![o.clone()],
            ..Scenario::default()
        };
        let e = url::encode(&sc);
        assert!(e.contains("op=llm"), "{e}");
        let d = url::decode(&e);
        assert!(d.notices.is_empty(), "{e}: {:?}", d.notices);
        assert_eq!(d.scenario.ops[0], o, "{e}");
    }
    let d = url::decode("?chip=h100&op=llm:preset=llama3-70b,tp=2,link=nvlink&sweep=b:1..256");
    assert!(d.notices.is_empty(), "{:?}", d.notices);
    assert_eq!(d.scenario.ops[0].get("layers").unwrap(), "80");
    let series = d.scenario.sweeps();
    assert!(series.iter().all(|s| s.is_ok()));
}

#[test]
fn errors_are_typed() {
    // fp8 weights and activations compute in fp8: A100 has no fp8 peak.
    let a100 = preset("a100").unwrap();
    let op = llm(&[("w", "fp8"), ("x", "fp8")]);
    assert!(matches!(
        analyze(&op, &a100, &Options::default()),
        Err(Error::MissingPeak { .. })
    ));
    // On H100 it runs at the fp8 peak and reads half the weight bytes.
    let w8 = work(&op, &h100());
    assert_eq!(w8.analysis.compute.dtype, DType::Fp8E4m3);
    let w16 = work(&Op::default_for("llm").unwrap(), &h100());
    assert!(w8.t_lower < 0.51 * w16.t_lower);
    // Every preset chip: a result or a typed error, never a panic; all numbers finite.
    for chip in presets() {
        for o in [
            Op::default_for("llm").unwrap(),
            llm(&[("phase", "prefill"), ("b", "64"), ("ctx", "8192")]),
        ] {
            match analyze(&o, &chip, &Options::default()) {
                Ok(a) => {
                    assert!(a.t_lower.is_finite() && a.t_lower > 0.0);
                    assert!(a.t_lower <= a.t_upper);
                    assert!(a.achieved <= a.compute.effective_peak * (1.0 + 1e-12));
                    assert_eq!(a.bound == Bound::Compute, a.t_math >= a.t_comms);
                }
                Err(e) => assert!(matches!(e, Error::MissingPeak { .. })),
            }
        }
    }
}

mod props {
    use super::*;
    use proptest::prelude::*;

    fn arch() -> impl Strategy<Value = Op> {
        (
            (1u32..=96, 1u32..=64, 1u32..=16, 1u32..=32),
            (1u32..=16, 1u32..=256, 1u32..=64, any::<bool>()),
            (1u32..=8192, 1u32..=65536, any::<bool>(), 0usize..4),
            (0usize..4, 0usize..4),
        )
            .prop_map(
                |(
                    (layers, dm, kvh, g),
                    (hd_x, vocab_k, ffn_x, gated),
                    (b, ctx, pre, link),
                    (tp, dt),
                )| {
                    // Tensor parallelism gives each chip whole heads: H a multiple of tp.
                    let t = [1, 2, 8, 3][tp];
                    let heads = kvh * g * t;
                    let hd = 8 * hd_x;
                    let mut op = Op::default_for("llm").unwrap();
                    let dts = ["bf16", "fp8", "int8", "fp32"];
                    let set = |op: &mut Op, k: &str, v: String| op.set(k, &v).unwrap();
                    set(&mut op, "layers", layers.to_string());
                    set(&mut op, "dmodel", (64 * dm).to_string());
                    set(&mut op, "heads", heads.to_string());
                    set(&mut op, "kv_heads", kvh.to_string());
                    set(&mut op, "head_dim", hd.to_string());
                    set(&mut op, "vocab", (1000 * vocab_k).to_string());
                    set(&mut op, "ffn", (256 * ffn_x).to_string());
                    set(&mut op, "gated", if gated { "yes" } else { "no" }.into());
                    set(&mut op, "b", b.to_string());
                    set(&mut op, "ctx", ctx.to_string());
                    set(
                        &mut op,
                        "phase",
                        if pre { "prefill" } else { "decode" }.into(),
                    );
                    set(
                        &mut op,
                        "link",
                        ["ici", "nvlink", "pcie", "dcn"][link].into(),
                    );
                    set(&mut op, "tp", t.to_string());
                    set(&mut op, "w", dts[dt].into());
                    set(&mut op, "kv", dts[(dt + 1) % 4].into());
                    op
                },
            )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Totals are sums of the parts; the bounds and invariants of a single op hold for the
        /// aggregate; sweeps agree with analysis.
        #[test]
        fn aggregate_is_the_sum_of_parts(op in arch(), ext in 0usize..5, idx in 0usize..11, one in any::<bool>(), derate in 0.3f64..=1.0) {
            // Half the cases add an architecture feature: experts, MLA, a window, or all three.
            let mut op = op;
            let layers = op.get_num("layers").unwrap();
            if ext == 1 || ext == 4 {
                op.set("experts", "16").unwrap();
                op.set("top_k", "2").unwrap();
                op.set("shared_experts", "1").unwrap();
                op.set_num("dense_layers", (layers / 2.0).floor()).unwrap();
            }
            if ext == 2 || ext == 4 {
                op.set("kv_rank", "512").unwrap();
                op.set("q_rank", "1536").unwrap();
            }
            if ext == 3 || ext == 4 {
                op.set("window", "512").unwrap();
                op.set_num("window_layers", (layers / 2.0).ceil()).unwrap();
            }
            let chip = presets().swap_remove(idx);
            let opts = Options {
                convention: if one { FlopConvention::OnePerMac } else { FlopConvention::TwoPerMac },
                derate,
                ..Options::default()
            };
            let w = match analyze_workload(&op, &chip, &opts) {
                Ok(w) => w.unwrap(),
                Err(e) => {
                    prop_assert!(matches!(e, Error::MissingPeak { .. } | Error::MissingResource { .. }), "{e}");
                    return Ok(());
                }
            };
            let a = &w.analysis;
            let sum = |f: &dyn Fn(&Analysis) -> f64| -> f64 {
                w.parts.iter().map(|(p, pa)| p.repeat * f(pa)).sum()
            };
            prop_assert!(rel(a.flops, sum(&|x| x.flops)) < 1e-12);
            prop_assert!(rel(a.bytes, sum(&|x| x.bytes)) < 1e-12);
            prop_assert!(rel(a.t_lower, sum(&|x| x.t_lower)) < 1e-12);
            prop_assert!(rel(a.t_upper, sum(&|x| x.t_upper)) < 1e-12);
            prop_assert!(rel(a.t_math, sum(&|x| x.t_math)) < 1e-12);
            prop_assert!(a.t_lower.is_finite() && a.t_lower > 0.0);
            prop_assert!(a.t_lower >= a.t_math.max(a.t_comms) * (1.0 - 1e-12));
            prop_assert!(a.t_lower <= a.t_upper * (1.0 + 1e-12));
            prop_assert_eq!(a.bound == Bound::Compute, a.t_math >= a.t_comms);
            prop_assert!(a.achieved <= a.compute.effective_peak * (1.0 + 1e-12));
            prop_assert!(a.fraction > 0.0 && a.fraction <= 1.0);
            prop_assert!(!a.derivation().is_empty());
            prop_assert!(rel(w.tokens_per_s * w.t_lower, w.tokens) < 1e-12);
            if let Some(c) = a.critical.as_ref().filter(|c| c.value > 1.0 && c.value < 1e9) {
                // The sweep's bisected crossover (T_math = T_comms to machine precision) is
                // the solved critical B; the bound flips between the whole numbers around it.
                let to = c.value.floor() + 2.0;
                let s = sweep(&op, &chip, &opts, &SweepSpec { field: "b".into(), from: 1.0, to, points: 2, log: false }).unwrap();
                prop_assert_eq!(s.crossovers.len(), 1);
                prop_assert!(rel(s.crossovers[0].x, c.value) < 1e-9, "{} vs {}", s.crossovers[0].x, c.value);
            }
            for field in ["b", "ctx"] {
                let s = sweep(&op, &chip, &opts, &SweepSpec { field: field.into(), from: 1.0, to: 4096.0, points: 9, log: true }).unwrap();
                for p in &s.points {
                    let mut o = op.clone();
                    o.set_num(field, p.x).unwrap();
                    let pa = analyze(&o, &chip, &opts).unwrap();
                    prop_assert_eq!(p.t_lower, pa.t_lower);
                    prop_assert_eq!(p.bound, pa.bound);
                }
            }
        }
    }
}

/// The `preset` field lists the whole architecture zoo (then `custom`), each id fills its
/// architecture, and identical architectures show the first of them.
#[test]
fn presets_are_the_zoo() {
    let op = Op::default_for("llm").unwrap();
    let spec = op.fields().iter().find(|f| f.key == "preset").unwrap();
    let FieldType::Choice(ids) = spec.ty else {
        panic!("preset is a choice")
    };
    let zoo: Vec<&str> = arch::arch_presets().iter().map(|p| p.id).collect();
    assert_eq!(&ids[..ids.len() - 1], &zoo[..]);
    assert_eq!(ids.last(), Some(&"custom"));
    assert!(zoo.len() >= 15);
    for p in arch::arch_presets() {
        let o = llm(&[("preset", p.id)]);
        let OpKind::Llm(l) = o.kind else { panic!() };
        assert_eq!(l.arch(), p.arch, "{}", p.id);
        let first = arch::arch_presets()
            .iter()
            .find(|q| q.arch == p.arch)
            .unwrap();
        assert_eq!(o.get("preset").unwrap(), first.id, "{}", p.id);
        // The link carries the architecture: encode, decode, same op.
        let sc = Scenario {
            ops: vec![o.clone()],
            ..Scenario::default()
        };
        let back = url::decode(&url::encode(&sc)).scenario;
        assert_eq!(back.ops[0], o, "{}", p.id);
    }
    // Llama-3.1 8B is Llama-3 8B's architecture: the derived preset is the first.
    assert_eq!(
        llm(&[("preset", "llama3.1-8b")]).get("preset").unwrap(),
        "llama3-8b"
    );
}

/// inference.md, worked problems 1 and 2 (a LLaMA-2-13B-like model: L 64, D 4096, F 16384,
/// N 32, K 8, H 256, V 32128, shared embeddings): "18.4e9" parameters, "262kB" of KV cache
/// per token in int8, and on a TPU v5e 4x4 with 128k sequences "the largest batch size we
/// can fit is (16 * 16e9 - 18.4e9) / 33.5e9 = 7. If we had K=1, we would have 8 times this,
/// aka about 56."
#[test]
fn inference_worked_problems_1_and_2() {
    let base = [
        ("layers", "64"),
        ("dmodel", "4096"),
        ("ffn", "16384"),
        ("heads", "32"),
        ("kv_heads", "8"),
        ("head_dim", "256"),
        ("vocab", "32128"),
        ("tied", "yes"),
        ("w", "int8"),
        ("x", "int8"),
        ("kv", "int8"),
    ];
    let OpKind::Llm(l) = llm(&base).kind else {
        panic!()
    };
    // L·D·(3F + 2H·(N + K)) + D·V = 18,385,207,296, plus norms 2·64·4096 + 4096.
    let book = 64.0 * 4096.0 * (3.0 * 16384.0 + 2.0 * 256.0 * 40.0) + 4096.0 * 32128.0;
    assert_eq!(book, 18_385_207_296.0);
    assert_eq!(l.params(), book + 2.0 * 64.0 * 4096.0 + 4096.0);
    assert_eq!(l.active_params(), l.params());
    assert_eq!(l.kv_bytes_per_seq(1.0), 2.0 * 64.0 * 8.0 * 256.0); // 262,144 B
                                                                   // 4x4 slice: 16 chips, weights and KV cache fully sharded; v5e's 16e9 bytes of HBM.
    let v5e = preset("tpu-v5e").unwrap();
    // The preset holds tpus.md's "16GiB"; this worked problem uses the book's "16GB".
    assert_eq!(v5e.hbm_cap, 17_179_869_184.0);
    let mut l16 = l;
    l16.tp = 16.0;
    let mb = l16.max_batch(16e9, 128e3);
    assert_eq!(mb, 7.0);
    // By hand, per chip: (16e9 − 18.39e9/16) / (262,144·128,000/16) = 7.08.
    let hand = (16e9 - l.params() / 16.0) / (262_144.0 * 128e3 / 16.0);
    assert_eq!(mb, hand.floor());
    l16.shape.kv_heads = 1.0;
    assert_eq!(l16.max_batch(16e9, 128e3), 56.0);
}

/// inference.md, worked problem 5: the model of problem 1 as an MoE with E = 16, k = 2: "212e9
/// total parameters ... 31.2e9" activated; "our HBM roofline increases by a factor of E/k.
/// That means on a TPU v5e we need about 240 * (16 / 2) = 1920 tokens"; "the KV cache size
/// stays the same".
#[test]
fn inference_worked_problem_5_moe() {
    let dense = [
        ("layers", "64"),
        ("dmodel", "4096"),
        ("ffn", "16384"),
        ("heads", "32"),
        ("kv_heads", "8"),
        ("head_dim", "256"),
        ("vocab", "32128"),
        ("tied", "yes"),
    ];
    let mut moe_kv = dense.to_vec();
    moe_kv.extend([("experts", "16"), ("top_k", "2")]);
    let (d_op, m_op) = (llm(&dense), llm(&moe_kv));
    let (OpKind::Llm(d), OpKind::Llm(m)) = (d_op.kind.clone(), m_op.kind.clone()) else {
        panic!()
    };
    let norms = 2.0 * 64.0 * 4096.0 + 4096.0;
    let router = 64.0 * 16.0 * 4096.0; // E·D per layer, which the book leaves out
    let total: f64 = 64.0 * 4096.0 * (3.0 * 16.0 * 16384.0 + 2.0 * 256.0 * 40.0) + 4096.0 * 32128.0;
    let active: f64 = 64.0 * 4096.0 * (3.0 * 2.0 * 16384.0 + 2.0 * 256.0 * 40.0) + 4096.0 * 32128.0;
    assert_eq!((total / 1e9).round(), 212.0);
    assert_eq!((active / 1e8).round(), 313.0); // 31.27e9: the book's "31.2e9"
    assert_eq!(m.params(), total + router + norms);
    assert_eq!(m.active_params(), active + router + norms);
    assert_eq!(m.kv_bytes_per_seq(4096.0), d.kv_bytes_per_seq(4096.0));

    let v5e = preset("tpu-v5e").unwrap();
    let ridge = 1.97e14 / 8.2e11; // 240.2
                                  // Decode reads only the experts the batch hits: B = 1 hits k = 2 experts, B = 4 hits
                                  // 16·(1 − (7/8)^4) = 6.62, B = 1920 all 16. Routed-expert weight bytes per layer are
                                  // hit · 3·D·F_e · 2 (bf16), plus 2·s_x·T·k·D of activations.
    let pe = 3.0 * 4096.0 * 16384.0;
    for (b, hit) in [
        (1.0, 2.0),
        (4.0, 16.0 * (1.0 - (7.0f64 / 8.0).powi(4))),
        (1920.0, 16.0),
    ] {
        let mut o = m_op.clone();
        o.set_num("b", b).unwrap();
        let w = work(&o, &v5e);
        let (_, a) = part(&w, "routed experts");
        close(
            a.bytes,
            2.0 * hit * pe + 2.0 * b * 2.0 * 2.0 * 4096.0,
            1e-12,
            "routed bytes",
        );
        close(a.flops, 2.0 * b * 2.0 * pe, 1e-15, "routed FLOPs");
    }
    // Part 7's rule in the derivation: E/k · ridge·s_w/2 = 8 · 240.2 = 1922 tokens.
    let a = analyze(&m_op, &v5e, &Options::default()).unwrap();
    let text = a.derivation().join("\n");
    assert!(
        text.contains("part 7's rule E/k · ridge·s_w/2 = 16/2 · 240.2·2/2 = 1922"),
        "{text}"
    );
    assert!(text.contains("E·(1 − (1 − k/E)^T) = 16·(1 − (1 − 2/16)^1) = 2 of 16"));
    let OpKind::Llm(ml) = &m_op.kind else {
        panic!()
    };
    let moe = ml.arch().moe.unwrap();
    close(moe.critical_rule(ridge, 2.0), 1920.0, 0.002, "book's 1920");
    // The rule falls out of the routed-experts part: at T = 1920 tokens its intensity is the
    // ridge (1% below it: the book leaves out the 2·s_x·T·k·D bytes of activations), at 960
    // half of it.
    for (b, frac) in [(1920.0, 1.0), (960.0, 0.5)] {
        let mut o = m_op.clone();
        o.set_num("b", b).unwrap();
        let w = work(&o, &v5e);
        let (_, a) = part(&w, "routed experts");
        close(a.intensity, frac * ridge, 0.02, "routed experts' intensity");
    }
    // The whole step's critical batch, at a short context (the book's weights-only view):
    // attention, embeddings and LM head are not MoE, so it grows by less than E/k = 8 over
    // the dense model's (by about total/active = 6.8).
    let crit = |op: &Op| {
        let mut o = op.clone();
        o.set("ctx", "1").unwrap();
        analyze(&o, &v5e, &Options::default())
            .unwrap()
            .critical
            .unwrap()
            .value
    };
    let (cd, cm) = (crit(&d_op), crit(&m_op));
    assert!(cd > 240.0 && cd < 300.0, "dense critical {cd}");
    let ratio = cm / cd;
    assert!(
        ratio > 6.0 && ratio < 8.0,
        "MoE/dense critical ratio {ratio}"
    );
    // The bisected critical batch is the sweep's crossover (where summed T_math overtakes
    // the summed HBM time), and the bound flips around it.
    let mut at = m_op.clone();
    at.set("ctx", "1").unwrap();
    let spec = SweepSpec {
        field: "b".into(),
        from: 1.0,
        to: 4096.0,
        points: 64,
        log: true,
    };
    let s = sweep(&at, &v5e, &Options::default(), &spec).unwrap();
    assert_eq!(s.crossovers.len(), 1);
    close(s.crossovers[0].x, cm, 1e-9, "crossover = critical");
    for (b, bound) in [(cm.floor(), Bound::Memory), (cm.ceil(), Bound::Compute)] {
        at.set_num("b", b).unwrap();
        assert_eq!(
            analyze(&at, &v5e, &Options::default()).unwrap().bound,
            bound
        );
    }
}

/// Multi-head latent attention (DeepSeek-V3) and sliding windows through the op.
#[test]
fn mla_and_windows_through_the_op() {
    let h100 = h100();
    // DeepSeek-V3: the cache holds 512 + 64 elements per layer and position: 61·576·2 =
    // 70,272 bytes per token in bf16 (against 2·61·128·128·2 = 4.0 MB were it MHA), and the
    // latent is not split by tensor parallelism.
    let mut ds = llm(&[("preset", "deepseek-v3"), ("b", "32"), ("ctx", "4096")]);
    let OpKind::Llm(l) = ds.kind.clone() else {
        panic!()
    };
    assert_eq!(l.kv_bytes_per_seq(1.0), 70_272.0);
    assert_eq!(l.kv_bytes(), 32.0 * 4096.0 * 70_272.0);
    ds.set("tp", "8").unwrap();
    let OpKind::Llm(l8) = ds.kind.clone() else {
        panic!()
    };
    assert_eq!(l8.kv_bytes(), l.kv_bytes());
    // Attention FLOPs per decode step: scores 2·B·H·(r + d_r)·S and values 2·B·H·r·S per
    // layer: 2·32·128·(576 + 512)·4096·61 = the arch's per-token figure × B.
    let op = llm(&[("preset", "deepseek-v3"), ("b", "32"), ("ctx", "4096")]);
    let w = work(&op, &h100);
    let attn: f64 = w
        .parts
        .iter()
        .filter(|(p, _)| p.name.starts_with("attention") && p.name != "attention norm")
        .map(|(p, a)| p.repeat * a.flops)
        .sum();
    assert_eq!(attn, 2.0 * 32.0 * 128.0 * (576.0 + 512.0) * 4096.0 * 61.0);
    assert_eq!(attn, 32.0 * l.arch().attention_flops_per_token(4096.0));
    let (_, sc) = part(&w, "attention scores over the latent");
    // Bytes: queries in the latent space 2·B·H·576 plus the latent cache 2·B·576·S.
    assert_eq!(
        sc.bytes,
        2.0 * 32.0 * 128.0 * 576.0 + 2.0 * 32.0 * 576.0 * 4096.0
    );
    // All 256 experts resident; 37.6B active parameters with the embedding table.
    assert!((l.params() / 1e9 - 671.0).abs() < 0.5);
    assert!((l.active_params() / 1e9 - 37.6).abs() < 0.1);

    // Mistral 7B: a window of 4096 on all 32 layers caps the cache and the decode reads at
    // 4096 positions: at ctx 16384 a sequence holds 2·32·8·128·4096·2 = 536,870,912 bytes.
    let mi = llm(&[("preset", "mistral-7b"), ("ctx", "16384")]);
    let OpKind::Llm(ml) = mi.kind.clone() else {
        panic!()
    };
    assert_eq!(ml.kv_bytes_per_seq(16384.0), 536_870_912.0);
    let w = work(&mi, &h100);
    let (p, sc) = part(&w, "attention scores Q·Kᵀ (window 4096)");
    assert_eq!(p.repeat, 32.0);
    assert_eq!(sc.flops, 2.0 * 32.0 * 128.0 * 4096.0);
    assert!(w
        .parts
        .iter()
        .all(|(p, _)| p.name != "attention scores Q·Kᵀ"));
    // Gemma 3 27B: 10 global layers see all 32768 positions, 52 windowed layers 1024.
    let g = llm(&[("preset", "gemma3-27b"), ("ctx", "32768")]);
    let OpKind::Llm(gl) = g.kind.clone() else {
        panic!()
    };
    assert_eq!(
        gl.kv_bytes_per_seq(32768.0),
        2.0 * 16.0 * 128.0 * 2.0 * (10.0 * 32768.0 + 52.0 * 1024.0)
    );
    let w = work(&g, &h100);
    assert_eq!(part(&w, "attention scores Q·Kᵀ").0.repeat, 10.0);
    assert_eq!(
        part(&w, "attention scores Q·Kᵀ (window 1024)").0.repeat,
        52.0
    );
    // Prefill with a window: Σ_{i=1..S} min(i, W) = W(W+1)/2 + (S − W)·W score pairs.
    let mut gp = g.clone();
    gp.set("phase", "prefill").unwrap();
    gp.set("ctx", "4096").unwrap();
    let w = work(&gp, &h100);
    let (_, a) = part(&w, "attention scores Q·Kᵀ (window 1024)");
    let pairs = 1024.0 * 1025.0 / 2.0 + (4096.0 - 1024.0) * 1024.0;
    assert_eq!(a.flops, 2.0 * 32.0 * 128.0 * pairs);
}

/// applied-inference.md: LLaMA 3-70B's KV cache in int8 is "2 * 8 * 128 * 80 = 160kB" per
/// token; the new fields' errors name the field.
#[test]
fn applied_inference_kv_and_field_errors() {
    let OpKind::Llm(l) = llm(&[("preset", "llama3-70b"), ("kv", "int8")]).kind else {
        panic!()
    };
    assert_eq!(l.kv_bytes_per_seq(1.0), 163_840.0);
    let h100 = h100();
    for (kv, want) in [
        (vec![("experts", "8"), ("top_k", "9")], "top_k"),
        (
            vec![("experts", "8"), ("dense_layers", "32")],
            "dense_layers",
        ),
        (
            vec![("window", "4096"), ("window_layers", "33")],
            "window_layers",
        ),
        (
            vec![("kv_rank", "512"), ("nope_dim", "0"), ("rope_dim", "0")],
            "nope_dim",
        ),
    ] {
        let op = llm(&kv);
        let e = analyze(&op, &h100, &Options::default()).unwrap_err();
        assert!(e.to_string().contains(want), "{e}");
    }
    assert!(Op::default_for("llm")
        .unwrap()
        .set("experts", "-1")
        .is_err());
    assert!(Op::default_for("llm").unwrap().set("top_k", "0").is_err());
}
