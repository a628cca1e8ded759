//! Serving figures (`roofline::serving`): the worked numbers of part 8 (applied-inference.md,
//! "Serving LLaMA 3-70B" on TPU v5e) and hand calculations.

use crate::common;

use common::{close, op_with};
use roofline::serving::{frontier, serving, Serving};
use roofline::*;

fn serve(op: &Op, chip: &Chip) -> Serving {
    serving(op, chip, &Options::default()).unwrap().unwrap()
}

/// LLaMA 3-70B served at 8k context (prompt 7680 + 512 generated), fields `kv` over that.
fn llama3_70b_8k(kv: &[(&str, &str)]) -> Op {
    let mut op = op_with(
        "llm",
        &[
            ("preset", "llama3-70b"),
            ("prompt", "7680"),
            ("output", "512"),
        ],
    );
    for (k, v) in kv {
        op.set(k, v).unwrap();
    }
    op
}

/// applied-inference.md, "what is the smallest TPU v5e topology we could serve LLaMA 3-70B on
/// ... with 8k context?": in int8 on a 4x2 (8 chips) "remaining HBM for KV caches 58 [GB]",
/// "162kB" per token, "num KV caches @ 8k: 43"; "this is just 16GB / 8.2e11 = 19ms / step";
/// "throughput is just B / (per-step latency · median steps · N) ≈ 43 / (0.019 * 512 * N)",
/// 0.55 QPS per chip in int8.
#[test]
fn llama3_70b_int8_on_v5e_4x2() {
    // The book's "16GB" per chip (this chapter's figure); the preset holds tpus.md's "16GiB".
    let mut v5e = preset("tpu-v5e").unwrap();
    v5e.hbm_cap = 16e9;
    let mut op = llama3_70b_8k(&[("w", "int8"), ("x", "int8"), ("kv", "int8"), ("tp", "8")]);
    let s = serve(&op, &v5e);
    // Exactly: weights 70,553,706,496 bytes in int8 (8 ways, norms replicated), KV cache
    // 2·80·8·128 = 163,840 bytes per token, 8192 positions, split 8 ways.
    let OpKind::Llm(l) = op.kind.clone() else {
        panic!()
    };
    assert_eq!(l.kv_bytes_per_seq(1.0) * 8.0, 163_840.0);
    let weights = l.weight_bytes();
    let per_seq = 163_840.0 * 8192.0 / 8.0;
    assert_eq!(s.max_batch, ((16e9 - weights) / per_seq).floor());
    // 42: the book's 43 comes from its rounded 70 GB and 162 kB: (128e9 − 70e9) / (162e3 ·
    // 8192) = 43.7.
    assert_eq!(s.max_batch, 42.0);
    assert_eq!(((128e9 - 70e9) / (162e3 * 8192.0f64)).floor(), 43.0);
    // At that batch a decode step reads about a full HBM: 16e9 / 8.2e11 = 19.5 ms.
    op.set_num("b", s.max_batch).unwrap();
    let s = serve(&op, &v5e);
    close(s.tpot, 16e9 / 8.2e11, 0.05, "19 ms per step");
    assert!(s.fits);
    // Queries per second per chip: B / (tpot · G · N) ≈ 0.55 in int8.
    close(s.requests_per_s / s.chips, 0.55, 0.05, "QPS per chip");
    assert_eq!(s.requests_per_s, s.tokens_per_s / 512.0);
    assert_eq!(s.tokens_per_s, 42.0 / s.tpot);
    assert_eq!(s.tokens_per_s_chip, s.tokens_per_s / 8.0);
    assert_eq!(s.tokens_per_s_seq, 1.0 / s.tpot);
    // Cost: v5e at the book's $1.2 per chip-hour, 8 chips: 1.2·8/3600 USD/s over
    // 42/0.0195 tokens/s ≈ $1.24 per million tokens.
    assert_eq!(v5e.price, Some(1.2));
    let cost = s.cost_per_mtok.unwrap();
    assert_eq!(cost, 1.2 * 8.0 / 3600.0 / s.tokens_per_s * 1e6);
    close(
        cost,
        1.2 * 8.0 / 3600.0 / (42.0 / 0.0195) * 1e6,
        0.05,
        "USD/Mtok",
    );
    assert_eq!(s.joules_per_token, None); // no power figure for v5e
                                          // Mean context P + G/2 = 7936; the first token after a prefill of B prompts of 7680.
    assert_eq!(s.mean_ctx, 7936.0);
    let mut pre = op.clone();
    pre.set("phase", "prefill").unwrap();
    pre.set("ctx", "7680").unwrap();
    assert_eq!(
        s.ttft,
        analyze(&pre, &v5e, &Options::default()).unwrap().t_lower
    );
    assert_eq!(s.request_latency, s.ttft + 511.0 * s.tpot);
    // One batch too many does not fit.
    op.set_num("b", 43.0).unwrap();
    assert!(!serve(&op, &v5e).fits);
}

/// Energy per token on the H100 (700 W), the frontier's shape and its out-of-memory end.
#[test]
fn h100_energy_and_frontier() {
    let h100 = preset("h100").unwrap();
    let op = op_with("llm", &[("b", "32")]);
    let s = serve(&op, &h100);
    assert_eq!(s.joules_per_token, Some(700.0 / s.tokens_per_s));
    assert_eq!(s.params, 8_030_261_248.0);
    assert_eq!(s.active_params, s.params);
    // Llama-3 8B in bf16: 16.06e9 bytes of weights; KV 131,072 bytes per token, 2560
    // positions: ⌊(80e9 − 16,060,522,496) / (131,072·2560)⌋ = 190.
    assert_eq!(
        s.max_batch,
        ((80e9 - 16_060_522_496.0) / (131_072.0 * 2560.0f64)).floor()
    );
    assert_eq!(s.max_batch, 190.0);
    let f = frontier(&op, &h100, &Options::default()).unwrap().unwrap();
    assert_eq!(f.max_batch, 190.0);
    let bs: Vec<f64> = f.points.iter().map(|p| p.batch).collect();
    assert_eq!(
        bs,
        [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 190.0, 256.0]
    );
    // Throughput and latency both grow with the batch; the points past 190 are out of memory.
    for w in f.points.windows(2) {
        assert!(w[1].tpot > w[0].tpot && w[1].tokens_per_s_chip > w[0].tokens_per_s_chip);
    }
    assert!(f.points.iter().all(|p| p.fits == (p.batch <= 190.0)));
    let p32 = f.points.iter().find(|p| p.batch == 32.0).unwrap();
    assert_eq!(p32.tpot, s.tpot);
    assert_eq!(p32.tokens_per_s_chip, s.tokens_per_s_chip);
    // Not an llm: none.
    let mm = Op::default_for("matmul").unwrap();
    assert!(serving(&mm, &h100, &Options::default()).unwrap().is_none());
    assert!(frontier(&mm, &h100, &Options::default()).unwrap().is_none());
    // No price, no cost; an inconsistent architecture is an error naming the field.
    let l4 = preset("l4").unwrap();
    assert_eq!(serve(&op, &l4).cost_per_mtok, None);
    let bad = op_with("llm", &[("experts", "4"), ("top_k", "8")]);
    let e = serving(&bad, &h100, &Options::default()).unwrap_err();
    assert!(e.to_string().contains("top_k"), "{e}");
}

/// An MoE serves with all experts resident but reads only those its batch hits: DeepSeek-V3
/// on 8 H200s in fp8, and the chip fields `price=`, `power=` from a link.
#[test]
fn moe_serving_and_chip_fields_from_a_link() {
    let d = url::decode(
        "?chip=h200:price=3.5,power=700&op=llm:preset=deepseek-v3,w=fp8,x=fp8,kv=fp8,tp=8,link=nvlink,b=64,prompt=1024,output=1024",
    );
    assert!(d.notices.is_empty(), "{:?}", d.notices);
    let (op, chip) = (&d.scenario.ops[0], &d.scenario.chips[0]);
    assert_eq!(chip.price, Some(3.5));
    assert_eq!(chip.power, Some(700.0));
    let s = serve(op, chip);
    let OpKind::Llm(l) = op.kind.clone() else {
        panic!()
    };
    // 671e9 fp8 bytes over 8 chips: 84 GB of each H200's 141 GB; the MLA latent (61·576
    // bytes per token in fp8) is replicated: ⌊(141e9 − weights) / (35,136·2048)⌋.
    assert_eq!(l.kv_bytes_per_seq(1.0), 61.0 * 576.0);
    let want = ((141e9 - l.weight_bytes()) / (61.0 * 576.0 * 2048.0)).floor();
    assert_eq!(s.max_batch, want);
    assert!(
        s.max_batch > 700.0 && s.max_batch < 900.0,
        "{}",
        s.max_batch
    );
    assert_eq!(
        s.cost_per_mtok,
        Some(3.5 * 8.0 / 3600.0 / s.tokens_per_s * 1e6)
    );
    assert_eq!(s.joules_per_token, Some(700.0 * 8.0 / s.tokens_per_s));
    assert!((s.active_params / 1e9 - 37.6).abs() < 0.1);
    // The link keeps the fields: encode then decode gives the same scenario.
    let again = url::decode(&url::encode(&d.scenario));
    assert_eq!(again.scenario, d.scenario);
    // Bad chip values are refused with the field named.
    let bad = url::decode("?chip=h100:price=-1");
    assert!(
        bad.notices.iter().any(|n| n.contains("price")),
        "{:?}",
        bad.notices
    );
}

/// applied-inference.md, "What is the smallest TPU v5e topology we could serve LLaMA 3-70B on
/// using bfloat16, int8, and int4 (both KVs and parameters) with 8k context?": `ceil(70e9 ·
/// sizeof(dtype) / 16e9)` "rounded to the nearest reasonable topology": 4x4 = 16 chips in
/// bf16, 4x2 = 8 in int8, 2x2 = 4 in int4 (at a tiny batch). Then "serve L3 70B at batch size
/// 32 and 8192 sequence length with everything in int8 ... 112GB ... TPU v5e 4x2", where
/// "our step time is basically 112e9 / (8 * 8.2e11) = 17ms" and "235 tokens / sec / chip";
/// "if we were to run on a 4x4 ... our latency would drop to 17 / 2 = 8.5ms".
#[test]
fn smallest_topology_of_llama3_70b_on_v5e() {
    use roofline::serving::smallest_topology;
    let v5e = preset("tpu-v5e").unwrap();
    let o = Options::default();
    for (dtype, chips) in [("bf16", 16.0), ("int8", 8.0), ("int4", 4.0)] {
        let op = llama3_70b_8k(&[("w", dtype), ("kv", dtype)]);
        // By hand: weights ≈ 70.55e9 · size / n must leave room for one 8k cache.
        let t = smallest_topology(&op, &v5e, &o, None).unwrap().unwrap();
        assert_eq!(t.chips, chips, "{dtype}");
        assert!(t.max_batch >= 1.0);
        let mut half = op.clone();
        half.set_num("tp", chips / 2.0).unwrap();
        assert_eq!(
            serve(&half, &v5e).max_batch,
            0.0,
            "{dtype} on {} chips",
            chips / 2.0
        );
    }
    // B = 32 at 8k in int8: 70.55e9 + 32 · 163,840 · 8192 = 113.5e9 bytes, more than 7 chips'
    // 112e9: 8 chips, about 17 ms per step (113.5e9 / (8 · 8.2e11) = 17.3 ms; the step reads
    // the mean context 7936, not 8192), 235 tokens/s per chip.
    let mut op = llama3_70b_8k(&[("w", "int8"), ("x", "int8"), ("kv", "int8"), ("b", "32")]);
    let t = smallest_topology(&op, &v5e, &o, None).unwrap().unwrap();
    assert_eq!(t.chips, 8.0);
    close(t.tpot, 0.017, 0.05, "17 ms per step on a 4x2");
    close(32.0 / t.tpot / 8.0, 235.0, 0.05, "tokens/s/chip");
    // Under a 10 ms bound the 4x2 is too slow; the 4x4 takes about 8.5 ms.
    let t = smallest_topology(&op, &v5e, &o, Some(0.010))
        .unwrap()
        .unwrap();
    assert_eq!(t.chips, 16.0);
    close(t.tpot, 0.0085, 0.08, "8.5 ms per step on a 4x4");
    // No bound a step can meet: none.
    assert_eq!(smallest_topology(&op, &v5e, &o, Some(1e-9)).unwrap(), None);
    // Not an llm: none.
    op = Op::default_for("matmul").unwrap();
    assert_eq!(smallest_topology(&op, &v5e, &o, None).unwrap(), None);
}

/// Part 8's disaggregated serving (applied-inference.md): a prefill server handles one prompt
/// at a time, a decode server B sequences for G steps, so `P/G = B · T_prefill / (T_step · G)`
/// servers keep both pools busy (the book's 910 ms, 19 ms, B = 32, G = 512 give "P = 3G"; the
/// core's unit test checks that). Here for the book's LLaMA 3-70B in int8 on a v5e 4x2 at B = 42:
/// the ratio is built from a prefill of one 7680-token prompt and the decode step, by hand.
#[test]
fn disaggregated_prefill_to_decode_ratio_of_llama3_70b() {
    let v5e = preset("tpu-v5e").unwrap();
    let op = llama3_70b_8k(&[
        ("w", "int8"),
        ("x", "int8"),
        ("kv", "int8"),
        ("tp", "8"),
        ("b", "42"),
    ]);
    let s = serve(&op, &v5e);
    let OpKind::Llm(l) = op.kind.clone() else {
        panic!()
    };
    let mut one = l;
    one.phase = roofline::op::InferenceStep::Prefill;
    one.ctx = 7680.0;
    one.b = 1.0;
    let prefill_one = analyze(&Op::new(OpKind::Llm(one)), &v5e, &Options::default())
        .unwrap()
        .t_lower;
    assert_eq!(s.prefill_one, prefill_one);
    assert_eq!(
        s.prefill_decode_ratio,
        42.0 * prefill_one / (s.tpot * 512.0)
    );
    // A single 7680-token prefill on 8 chips cannot beat its matmul FLOPs at the int8 peak:
    // 2·N·P / (8·C) = 2·70.55e9·7680 / (8·3.94e14) = 0.344 s (the model adds attention and the
    // tensor-parallel AllReduces over ICI on top), against 42 tokens per ~19.5 ms decode step:
    // more prefill servers than decode servers.
    assert!(
        prefill_one >= 2.0 * 70.55e9 * 7680.0 / (8.0 * 3.94e14),
        "{prefill_one}"
    );
    assert!(s.prefill_decode_ratio > 1.0, "{}", s.prefill_decode_ratio);
}

/// The v5e preset's capacity is tpus.md's "16GiB" (17,179,869,184 bytes), not the chip
/// table's "16GB": LLaMA 3-70B in bf16 over tp=16 at 8k context fits 49 sequences per
/// replica, 42 with 16e9 bytes. By hand, per chip: weights W/16 and KV 2·L·K·H·2 bytes per
/// token over 16 chips; max_batch = floor((HBM − W/16) / (8192 · 2·80·8·128·2 / 16)).
#[test]
fn v5e_gib_capacity_moves_max_batch_from_42_to_49() {
    let d = roofline::url::decode(
        "?chip=tpu-v5e&op=llm:preset=llama3-70b,b=1,ctx=8192,prompt=8190,output=2,tp=16",
    );
    let (op, chip) = (&d.scenario.ops[0], &d.scenario.chips[0]);
    let OpKind::Llm(l) = op.kind.clone() else {
        panic!()
    };
    let per_seq = 8192.0 * 2.0 * 80.0 * 8.0 * 128.0 * 2.0 / 16.0; // 167,772,160 bytes
    assert_eq!(l.kv_bytes_per_seq(8192.0), per_seq);
    let w = l.weight_bytes(); // ≈ 141.1e9 / 16 ≈ 8.82e9 bytes per chip
    assert!((w - 70_553_706_496.0 * 2.0 / 16.0).abs() / w < 1e-3, "{w}");
    let gib16 = 16.0 * 1024.0 * 1024.0 * 1024.0;
    assert_eq!(chip.hbm_cap, gib16);
    // (17.18e9 − 8.82e9) / 1.678e8 = 49.8 → 49; (16e9 − 8.82e9) / 1.678e8 = 42.8 → 42.
    assert_eq!(((gib16 - w) / per_seq).floor(), 49.0);
    assert_eq!(((16e9 - w) / per_seq).floor(), 42.0);
    let opts = &d.scenario.options;
    let s = roofline::serving::serving(op, chip, opts).unwrap().unwrap();
    assert_eq!(s.max_batch, 49.0);
    let mut book = chip.clone();
    book.set(ChipField::HbmCap, 16e9).unwrap();
    let s = roofline::serving::serving(op, &book, opts)
        .unwrap()
        .unwrap();
    assert_eq!(s.max_batch, 42.0);
}

/// Issue 25, "Also": an odd `output` made the decode step's mean context P + G/2 fractional
/// (8192 + 1/2), which the `ctx` field refuses, so the serving row showed "ctx=8192.5: must be
/// a positive size" instead of its figures. Every part of a decode step is linear in its
/// context, and one resource binds at both 8192 and 8193 here, so the step at 8192.5 is their
/// mean; an even G keeps its whole context and the same bits as a plain decode step.
#[test]
fn an_odd_output_serves_at_its_fractional_mean_context() {
    let chip = preset("tpu-v5e").unwrap();
    let opts = Options::default();
    let at = |q: &str| -> Op { url::decode(&format!("?op=llm:{q}")).scenario.ops[0].clone() };
    let base = "preset=llama3-70b,b=1,tp=16";
    let odd = serve(&at(&format!("{base},ctx=8192,prompt=8192,output=1")), &chip);
    assert_eq!(odd.mean_ctx, 8192.5);
    let decode = |ctx: &str| {
        analysis::t_lower(&at(&format!("{base},phase=decode,ctx={ctx}")), &chip, &opts).unwrap()
    };
    let mean = (decode("8192") + decode("8193")) / 2.0;
    assert!(
        (odd.tpot - mean).abs() <= 1e-12 * mean,
        "{} vs {mean}",
        odd.tpot
    );
    let even = serve(&at(&format!("{base},ctx=8192,prompt=8190,output=2")), &chip);
    assert_eq!(even.tpot, decode("8191"));
}
