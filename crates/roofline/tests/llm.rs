//! Transformer workloads (`op=llm`): the step decomposed into core operations and summed.
//! Every expected number is worked out by hand here from the architecture (Llama-3 8B: 32
//! layers, d_model 4096, ffn 14336 gated, 32 heads, 8 KV heads, head dim 128, vocab 128256;
//! 70B: 80, 8192, 28672, 64, 8, 128, 128256) and the H100 figures (bf16 9.89e14 FLOPs/s,
//! vector unit 6.7e13, HBM 3.35e12 B/s, 80e9 B, NVLink 18 × 2.5e10 = 4.5e11 B/s).

mod common;

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
            "preset", "b", "ctx", "phase", "w", "x", "kv", "tp", "link", "layers", "dmodel", "ffn",
            "gated", "heads", "kv_heads", "head_dim", "vocab"
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
    assert_eq!(a.parts.len(), 12);
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
        "Meta Llama 3 model card",
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
                    let heads = kvh * g;
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
                    set(&mut op, "tp", [1, 2, 8, 3][tp].to_string());
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
        fn aggregate_is_the_sum_of_parts(op in arch(), idx in 0usize..11, one in any::<bool>(), derate in 0.3f64..=1.0) {
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
