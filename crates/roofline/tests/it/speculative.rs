//! Speculative decoding (`draft=`, `spec_k=`, `accept=` on the `llm` op; part 7,
//! inference.md appendix on speculative sampling), the `verify` phase it uses, and the
//! `tpot_max` bound of part 8's smallest topology (applied-inference.md): hand calculations
//! written out from the chip's figures, and bad values named.

use crate::common;

use common::{close, op_with};
use roofline::serving::{expected_tokens, smallest_topology, speculative, Speculative};
use roofline::*;

fn spec(op: &Op, chip: &Chip) -> Speculative {
    speculative(op, chip, &Options::default()).unwrap().unwrap()
}

/// The brief's case: LLaMA 3-70B, everything int8, on a TPU v5e 4x2 (tp = 8), B = 32, the
/// book's 8k context (prompt 7680 + 512 generated, mean context S = 7936), drafted by
/// LLaMA 3-8B with k = 4 and α = 0.8.
fn llama70b_with_8b_draft() -> Op {
    op_with(
        "llm",
        &[
            ("preset", "llama3-70b"),
            ("w", "int8"),
            ("x", "int8"),
            ("kv", "int8"),
            ("tp", "8"),
            ("b", "32"),
            ("prompt", "7680"),
            ("output", "512"),
            ("draft", "llama3-8b"),
            ("spec_k", "4"),
            ("accept", "0.8"),
        ],
    )
}

/// TPU v5e (the preset): HBM 8.2e11 B/s, ICI 4.5e10 B/s per link, int8 3.94e14 FLOP/s.
const HBM: f64 = 8.2e11;
const ICI: f64 = 4.5e10;

/// One step of a dense GQA model on n = 8 chips, everything int8 (1 byte), `t` tokens of `b`
/// sequences at `s` cached positions, `q` queries per sequence, by hand: each part is bound
/// by HBM or, for the two row-split projections, by its all-reduce of 2·(n−1)/n·T·D bytes
/// over ICI, whichever is longer (no part is compute-bound: the widest matmul has T = 160
/// rows, below the int8 ridge 3.94e14 / 8.2e11 = 480).
#[allow(clippy::too_many_arguments)]
fn step_by_hand(l: f64, d: f64, f: f64, hq: f64, k: f64, v: f64, b: f64, s: f64, q: f64) -> f64 {
    let (n, h) = (8.0, 128.0);
    let t = b * q;
    let hbm = |bytes: f64| bytes / HBM;
    let all_reduce = 2.0 * (n - 1.0) / n * t * d / ICI;
    // Row-split matmul [t, i]·[i, d]: weights i·d/n, input t·i/n, output t·d.
    let row_split = |i: f64| hbm(i * d / n + t * i / n + t * d).max(all_reduce);
    // Column-split matmul [t, d]·[d, o]: weights d·o/n, input t·d, output t·o/n.
    let col_split = |o: f64| hbm(d * o / n + t * d + t * o / n);
    let norm = hbm(2.0 * t * d);
    // Q·Kᵀ and P·V: each reads the cache, b·(K/n)·S·h, and the queries (or writes the
    // outputs), t·(H/n)·h.
    let attention = hbm(b * (k / n) * s * h + t * (hq / n) * h);
    let layer = 2.0 * norm
        + col_split((hq + 2.0 * k) * h)
        + 2.0 * attention
        + row_split(hq * h)
        + 2.0 * col_split(f)
        + row_split(f);
    // Embedding gather (t rows, read and written), final norm, LM head over the t logits
    // kept (b in decode, all t in verify: col_split(v) with t rows).
    l * layer + norm + norm + col_split(v)
}

/// By hand (inference.md appendix on speculative sampling: "we draft k tokens with the small
/// model, then verify all of them with the big model in one forward pass"):
///
/// * the draft, LLaMA 3-8B (L 32, D 4096, F 14336, H 32, K 8, V 128256), decodes at B = 32
///   and S = 7936 on the same 8 chips: per layer norms 0.64 µs, QKV 4.03 µs, attention
///   2 × 39.66 µs, output projection ICI-bound 5.10 µs, MLP 3 × 9.18 µs; × 32, plus the LM
///   head 80.9 µs: 3.8136 ms;
/// * the verify step of LLaMA 3-70B (L 80, D 8192, F 28672, H 64, K 8): T = B·(k+1) = 160
///   tokens, the weights read once, each cache once: per layer norms 6.39 µs, QKV 14.64 µs,
///   attention 2 × 39.84 µs, output and down projections ICI-bound at 2·7/8·160·8192 / 4.5e10
///   = 50.97 µs each (at T = 32 they were HBM-bound), gate and up 2 × 38.10 µs; × 80, plus
///   the LM head over 160 rows 164.9 µs: 22.480 ms. Not one decode step (17.22 ms): 31%
///   longer;
/// * E[tokens] = (1 − 0.8⁵) / (1 − 0.8) = 3.3616;
/// * tpot_spec = (4 · 3.8136 + 22.480) / 3.3616 = 11.225 ms, 1.53× faster than 17.22 ms.
#[test]
fn llama3_70b_int8_on_v5e_4x2_drafted_by_llama3_8b() {
    let v5e = preset("tpu-v5e").unwrap();
    assert_eq!(
        (v5e.hbm, v5e.ici, v5e.int8),
        (HBM, Some(ICI), Some(3.94e14))
    );
    let s = spec(&llama70b_with_8b_draft(), &v5e);
    assert_eq!((s.draft.as_str(), s.k, s.accept), ("llama3-8b", 4.0, 0.8));
    let draft = step_by_hand(
        32.0, 4096.0, 14336.0, 32.0, 8.0, 128256.0, 32.0, 7936.0, 1.0,
    );
    close(draft, 3.8136e-3, 1e-4, "draft step written out");
    close(s.draft_step, draft, 1e-9, "draft step");
    // Verify: the 5 queries of a sequence see 7936 … 7940 positions; the cache read is the
    // 7936 cached (the new keys are the step's own).
    let verify = step_by_hand(
        80.0, 8192.0, 28672.0, 64.0, 8.0, 128256.0, 32.0, 7936.0, 5.0,
    );
    close(verify, 22.480e-3, 1e-4, "verify step written out");
    close(s.verify_step, verify, 1e-9, "verify step");
    let decode = step_by_hand(
        80.0, 8192.0, 28672.0, 64.0, 8.0, 128256.0, 32.0, 7936.0, 1.0,
    );
    close(s.tpot, decode, 1e-9, "plain decode step");
    // applied-inference.md: "our step time is basically 112e9 / (8 * 8.2e11) = 17ms".
    close(s.tpot, 0.017, 0.02, "the book's 17 ms");
    assert_eq!(s.tokens_per_step, 3.3616);
    close(
        s.tpot_spec,
        (4.0 * draft + verify) / 3.3616,
        1e-9,
        "tpot_spec",
    );
    close(s.tpot_spec, 11.225e-3, 1e-4, "tpot_spec written out");
    close(s.speedup, decode / s.tpot_spec, 1e-12, "speedup");
    // The verify step is the core's `verify` phase at the mean context.
    let mut v = llama70b_with_8b_draft();
    v.set("phase", "verify").unwrap();
    v.set("ctx", "7936").unwrap();
    let a = analyze(&v, &v5e, &Options::default()).unwrap();
    assert_eq!(a.t_lower, s.verify_step);
}

/// The verify phase's FLOPs: 5 tokens per sequence where decode has 1. The matmuls and norms
/// scale by exactly 5; attention's pairs are 7936 + 7937 + … + 7940 = 5 · 7936 + 10 per
/// sequence and head where decode has 7936, so the total is 5× decode's plus the attention's
/// 10 extra pairs: 2 (Q·Kᵀ and P·V) · 2 FLOPs · B · (H/n) · h · 10 · L
/// = 4 · 32 · 8 · 128 · 10 · 80 = 104,857,600 FLOPs.
#[test]
fn verify_does_the_work_of_k_plus_one_tokens() {
    let v5e = preset("tpu-v5e").unwrap();
    let o = Options::default();
    let mut op = llama70b_with_8b_draft();
    op.set("ctx", "7936").unwrap();
    let decode = analyze(&op, &v5e, &o).unwrap();
    op.set("phase", "verify").unwrap();
    let verify = analyze(&op, &v5e, &o).unwrap();
    let extra = 4.0 * 32.0 * 8.0 * 128.0 * 10.0 * 80.0;
    assert_eq!(extra, 104_857_600.0);
    close(
        verify.flops,
        5.0 * decode.flops + extra,
        1e-12,
        "verify FLOPs",
    );
    // k = 1: two queries, 7936 + 7937 pairs.
    op.set("spec_k", "1").unwrap();
    let k1 = analyze(&op, &v5e, &o).unwrap();
    close(k1.flops, 2.0 * decode.flops + extra / 10.0, 1e-12, "k = 1");
}

/// A sliding window: the `i`-th of the k+1 queries sees min(S + i, W) positions. With W 1024
/// on every layer, S = 1022 and k = 4 the five queries see 1022, 1023, 1024, 1024, 1024 =
/// 5117 positions; the same model without a window sees 1022 + … + 1026 = 5120. Attention
/// FLOPs differ by 2 · 2 · B · H · h · 3 · L (B = 1, H 32, h 128, L 32, tp 1).
#[test]
fn verify_under_a_sliding_window() {
    let chip = preset("h100").unwrap();
    let o = Options::default();
    let base = [("phase", "verify"), ("ctx", "1022"), ("spec_k", "4")];
    let windowed = op_with("llm", &[base[0], base[1], base[2], ("window", "1024")]);
    let plain = op_with("llm", &base);
    let (w, p) = (
        analyze(&windowed, &chip, &o).unwrap(),
        analyze(&plain, &chip, &o).unwrap(),
    );
    close(
        p.flops - w.flops,
        4.0 * 32.0 * 128.0 * 3.0 * 32.0,
        1e-9,
        "window",
    );
}

#[test]
fn expected_tokens_of_the_acceptance_model() {
    // (1 − α^(k+1)) / (1 − α) = 1 + α + … + α^k.
    assert_eq!(expected_tokens(4.0, 0.8), 3.3616);
    assert_eq!(expected_tokens(4.0, 1.0), 5.0);
    assert_eq!(expected_tokens(4.0, 0.0), 1.0);
    close(expected_tokens(2.0, 0.5), 1.75, 1e-15, "1 + 0.5 + 0.25");
}

/// Without a draft there is no speculation; another kind has none either.
#[test]
fn no_draft_no_speculation() {
    let v5e = preset("tpu-v5e").unwrap();
    let o = Options::default();
    let mut op = llama70b_with_8b_draft();
    op.set("draft", "none").unwrap();
    assert_eq!(speculative(&op, &v5e, &o).unwrap(), None);
    let m = Op::default_for("matmul").unwrap();
    assert_eq!(speculative(&m, &v5e, &o).unwrap(), None);
}

/// Bad values are named with the field and what it must be; the op keeps its last good value.
#[test]
fn bad_values_are_named() {
    let mut op = llama70b_with_8b_draft();
    for (key, bad, want) in [
        (
            "accept",
            "1.5",
            "accept=1.5: must be an acceptance rate (a number from 0 to 1)",
        ),
        ("accept", "-0.1", "accept=-0.1: must be an acceptance rate"),
        (
            "spec_k",
            "0",
            "spec_k=0: must be a whole number of draft tokens",
        ),
        (
            "spec_k",
            "2.5",
            "spec_k=2.5: must be a whole number of draft tokens",
        ),
        (
            "draft",
            "llama9",
            "draft=llama9: must be one of none, llama3-8b, llama3-70b",
        ),
        ("draft", "custom", "draft=custom: must be one of none,"),
        ("tpot_max", "0", "tpot_max=0: must be a time in ms, or none"),
        ("tpot_max", "fast", "tpot_max=fast"),
    ] {
        let e = op.set(key, bad).unwrap_err().to_string();
        assert!(e.starts_with(want), "{key}={bad}: {e}");
    }
    assert_eq!(op.get("accept").as_deref(), Some("0.8"));
    assert_eq!(op.get("spec_k").as_deref(), Some("4"));
    assert_eq!(op.get("draft").as_deref(), Some("llama3-8b"));
    assert_eq!(op.get("tpot_max").as_deref(), Some("none"));
    // Fractions of the rate are fine, and so are its ends.
    for a in ["0", "0.35", "1"] {
        op.set("accept", a).unwrap();
    }
    // The core's own check, for a value set around the fields.
    let e = serving::speculative_tpot(0.02, 0.002, 0, 0.8).unwrap_err();
    assert!(e.to_string().starts_with("spec_k=0"), "{e}");
}

/// The draft ids are `none` and the zoo's ids, in its order.
#[test]
fn draft_ids_are_the_zoo() {
    let op = llama70b_with_8b_draft();
    let spec = op.fields().iter().find(|f| f.key == "draft").unwrap();
    let FieldType::Choice(ids) = spec.ty else {
        panic!("draft is a choice")
    };
    let zoo: Vec<&str> = arch_presets().iter().map(|p| p.id).collect();
    assert_eq!(ids[0], "none");
    assert_eq!(&ids[1..], zoo.as_slice());
}

/// tpot_max is given in ms and bounds the smallest topology. applied-inference.md: LLaMA
/// 3-70B at B = 32 and 8k in int8 fits a 4x2 with "our step time is basically ... 17ms", and
/// "if we were to run on a 4x4 ... our latency would drop to 17 / 2 = 8.5ms": under 20 ms the
/// 4x2 serves it (8 chips), under 10 ms only the 4x4 (16 chips).
#[test]
fn tpot_max_bounds_the_smallest_topology() {
    let v5e = preset("tpu-v5e").unwrap();
    let o = Options::default();
    let mut op = llama70b_with_8b_draft();
    op.set("tp", "1").unwrap();
    op.set("tpot_max", "20").unwrap();
    assert_eq!(op.get("tpot_max").as_deref(), Some("20"));
    let OpKind::Llm(l) = &op.kind else { panic!() };
    assert_eq!((l.tpot_max, l.tpot_bound()), (Some(20.0), Some(0.020)));
    let t = smallest_topology(&op, &v5e, &o, l.tpot_bound())
        .unwrap()
        .unwrap();
    assert_eq!(t.chips, 8.0);
    op.set("tpot_max", "10").unwrap();
    let OpKind::Llm(l) = &op.kind else { panic!() };
    let t = smallest_topology(&op, &v5e, &o, l.tpot_bound())
        .unwrap()
        .unwrap();
    assert_eq!(t.chips, 16.0);
    close(t.tpot, 0.0085, 0.08, "8.5 ms on a 4x4");
    op.set("tpot_max", "none").unwrap();
    assert_eq!(op.get("tpot_max").as_deref(), Some("none"));
}
