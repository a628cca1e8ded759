//! Hand-checked comparisons (issue 26): every expected number is written out from the
//! chips' datasheet figures and the model's shapes, not read back from the code under test.

use super::*;
use crate::analysis::analyze;
use crate::chip::{preset, ChipField};

fn llm(q: &str) -> Op {
    let mut op = Op::default_for("llm").unwrap();
    for kv in q.split(',') {
        let (k, v) = kv.split_once('=').unwrap();
        op.set(k, v).unwrap();
    }
    op
}

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * b.abs()
}

fn sum_shares(e: &Explanation) -> (f64, f64) {
    let parts = e.parts.iter().filter_map(|p| p.share).sum();
    let inputs = e.inputs.shares.iter().filter_map(|s| s.share).sum();
    (parts, inputs)
}

/// The first case: Llama-3 8B decode, B = 64, ctx 4096, H100 (base) against B200.
/// Every part is memory-bound on both chips (a weight matmul's intensity is about B = 64,
/// under both ridges: 9.89e14 / 3.35e12 = 295 and 2.25e15 / 8e12 = 281), so each part's
/// time is its bytes over HBM bandwidth and the ratio is 3.35 / 8 = 0.41875 exactly.
#[test]
fn memory_bound_step_between_chips_is_hbm_alone() {
    let op = llm("preset=llama3-8b,b=64,ctx=4096");
    let (h100, b200) = (preset("h100").unwrap(), preset("b200").unwrap());
    let o = Options::default();
    let e = explain((&op, &h100), (&op, &b200), &o).unwrap();
    assert!(close(e.ratio, 3.35 / 8.0, 1e-12), "{}", e.ratio);
    assert!(close(vs_base(e.t_row, e.t_base).unwrap(), 0.41875, 1e-12));
    assert_eq!(
        ratio_words(e.ratio, "H100 SXM"),
        "2.39× faster than H100 SXM"
    );
    // The largest parts: attention over the KV cache. Q·Kᵀ per layer reads K, B·S·K·h·2 =
    // 64·4096·8·128·2 = 536,870,912 bytes, and Q, B·H·h·2 = 64·32·128·2 = 524,288 bytes:
    // 537,395,200 B / 3.35e12 B/s × 32 layers = 5.1333 ms on the H100, / 8e12 on the B200.
    let qk = &e.parts[0];
    assert_eq!(qk.name, "attention scores Q·Kᵀ ×32");
    assert!(close(
        qk.base.unwrap(),
        537_395_200.0 / 3.35e12 * 32.0,
        1e-3
    ));
    assert!(close(qk.row.unwrap(), 537_395_200.0 / 8e12 * 32.0, 1e-3));
    assert_eq!(qk.base_binding.as_deref(), Some("memory (HBM)"));
    // Every part shrinks by the same factor, so each one's share is its own share of the time.
    assert!(close(qk.share.unwrap(), qk.base.unwrap() / e.t_base, 1e-9));
    let (parts, inputs) = sum_shares(&e);
    assert!(close(parts, 1.0, 1e-12) && close(inputs, 1.0, 1e-12));
    // By input: HBM bandwidth 3.35 → 8 TB/s explains all of it; the peaks, capacity,
    // NVLink, price … differ but move nothing.
    let s = &e.inputs.shares;
    assert_eq!(s.len(), 1, "{s:?}");
    assert_eq!(
        (s[0].key.as_str(), s[0].from.as_str(), s[0].to.as_str()),
        ("hbm", "3.35 TB/s", "8 TB/s")
    );
    assert!(close(s[0].share.unwrap(), 1.0, 1e-12));
    assert!(e.inputs.unused.iter().any(|u| u == "bf16 peak"));
    assert!(e.inputs.unused.iter().any(|u| u == "HBM capacity"));
}

/// The second case: parts moving against the total. Llama-3 8B decode at B = 256 on an
/// H100 (base) and on an H100 with half the bf16 peak (4.945e14) and twice the HBM bandwidth
/// (6.7e12). The MLP gate per layer: FLOPs 2·256·4096·14336 = 30,064,771,072; bytes: weights
/// 4096·14336·2 = 117,440,512, input 256·4096·2 = 2,097,152, output 256·14336·2 = 7,340,032,
/// 126,877,696 in all. On the H100: T_math 3.040e-5 s < T_hbm 3.787e-5 s, memory-bound. On the
/// other: T_math 6.080e-5 s > T_hbm 1.894e-5 s: it turns compute-bound and gets slower, while
/// attention (memory-bound on both) halves: the total falls.
#[test]
fn a_part_turning_compute_bound_moves_against_the_total() {
    let op = llm("preset=llama3-8b,b=256,ctx=4096");
    let h100 = preset("h100").unwrap();
    let mut other = h100.clone();
    other.set(ChipField::Hbm, 6.7e12).unwrap();
    other.set(ChipField::Bf16, 4.945e14).unwrap();
    let o = Options::default();
    let e = explain((&op, &h100), (&op, &other), &o).unwrap();
    assert!(e.delta < 0.0);
    let gate = e.parts.iter().find(|p| p.name == "MLP gate ×32").unwrap();
    assert!(close(
        gate.base.unwrap(),
        126_877_696.0 / 3.35e12 * 32.0,
        1e-9
    ));
    assert!(close(
        gate.row.unwrap(),
        30_064_771_072.0 / 4.945e14 * 32.0,
        1e-9
    ));
    assert_eq!(gate.base_binding.as_deref(), Some("memory (HBM)"));
    assert_eq!(gate.row_binding.as_deref(), Some("compute"));
    assert!(
        gate.share.unwrap() < 0.0,
        "slower while the total is faster"
    );
    let qk = e
        .parts
        .iter()
        .find(|p| p.name.starts_with("attention scores"))
        .unwrap();
    assert!(close(qk.row.unwrap(), qk.base.unwrap() / 2.0, 1e-9));
    assert!(qk.share.unwrap() > 0.0);
    let (parts, inputs) = sum_shares(&e);
    assert!(close(parts, 1.0, 1e-9) && close(inputs, 1.0, 1e-9));
    // By input: HBM explains more than all of it, the halved peak works against it.
    let s = &e.inputs.shares;
    assert_eq!(s.len(), 2);
    assert_eq!(s[0].key, "hbm");
    assert!(s[0].share.unwrap() > 1.0);
    assert_eq!(s[1].key, "bf16");
    assert!(s[1].share.unwrap() < 0.0);
    // Shapley with two players: φ_hbm = ½(v(hbm) − v(∅)) + ½(v(both) − v(bf16)).
    let t = |c: &Chip| crate::analysis::t_lower(&op, c, &o).unwrap();
    let mut hbm_only = h100.clone();
    hbm_only.set(ChipField::Hbm, 6.7e12).unwrap();
    let mut bf16_only = h100.clone();
    bf16_only.set(ChipField::Bf16, 4.945e14).unwrap();
    let phi = 0.5 * (t(&hbm_only) - t(&h100)) + 0.5 * (t(&other) - t(&bf16_only));
    assert!(close(s[0].phi, phi, 1e-12));
}

/// Between two operations on one chip: the changed field explains the whole change.
#[test]
fn between_two_operations() {
    let h100 = preset("h100").unwrap();
    let o = Options::default();
    for (a, b, key) in [
        ("preset=llama3-8b,b=64", "preset=llama3-8b,b=128", "b"),
        (
            "preset=llama3-8b,b=64,w=bf16",
            "preset=llama3-8b,b=64,w=int8",
            "w",
        ),
        (
            "preset=llama3-70b,b=64,tp=4",
            "preset=llama3-70b,b=64,tp=8",
            "tp",
        ),
    ] {
        let (a, b) = (llm(a), llm(b));
        let e = explain((&a, &h100), (&b, &h100), &o).unwrap();
        let s = &e.inputs.shares;
        assert_eq!(s.len(), 1, "{key}: {s:?}");
        assert_eq!(s[0].key, key);
        assert!(close(s[0].share.unwrap(), 1.0, 1e-12));
        assert!(close(sum_shares(&e).0, 1.0, 1e-9));
    }
    // Two llm ops of different models: the preset is implied by the architecture fields.
    let (a, b) = (llm("preset=llama3-8b"), llm("preset=llama3-70b"));
    let e = explain((&a, &h100), (&b, &h100), &o).unwrap();
    assert!(e.inputs.shares.iter().all(|s| s.key != "preset"));
    assert!(close(sum_shares(&e).1, 1.0, 1e-9));
}

/// Across kinds: parts are matched by name (none here), inputs only the chip's.
#[test]
fn across_kinds() {
    let mm = Op::default_for("matmul").unwrap();
    let op = llm("preset=llama3-8b");
    let (h100, b200) = (preset("h100").unwrap(), preset("b200").unwrap());
    let e = explain((&mm, &h100), (&op, &b200), &Options::default()).unwrap();
    assert!(close(sum_shares(&e).0, 1.0, 1e-9));
    assert!(e
        .inputs
        .note
        .as_deref()
        .unwrap()
        .contains("different kinds"));
    assert!(e
        .parts
        .iter()
        .any(|p| p.name == "whole matmul" && p.row.is_none()));
}

/// Elasticities: a memory-bound decode step on one chip is −1 to HBM and 0 to the peak; a
/// big matmul is −1 to the peak and 0 to HBM; only an op that communicates has a link one.
#[test]
fn elasticities_exact_where_piecewise_linear() {
    let h100 = preset("h100").unwrap();
    let o = Options::default();
    let decode = analyze(&llm("preset=llama3-8b,b=64,ctx=4096"), &h100, &o).unwrap();
    let e = elasticities(&decode, &h100, &o);
    assert_eq!((e.peak, e.hbm, e.link), (Some(0.0), Some(-1.0), None));
    let mut mm = Op::default_for("matmul").unwrap();
    for (k, v) in [("b", "8192"), ("d", "8192"), ("f", "8192"), ("w", "bf16")] {
        mm.set(k, v).unwrap();
    }
    let a = analyze(&mm, &h100, &o).unwrap();
    let e = elasticities(&a, &h100, &o);
    assert_eq!((e.peak, e.hbm, e.link), (Some(-1.0), Some(0.0), None));
    let l = levers(&a, &h100, &o);
    assert_eq!(l.cheapest, "buy FLOPs, not HBM bandwidth");
    // +25 % of the peak: t/1.25, −20 % exactly.
    let peak = l.levers.iter().find(|l| l.key == "peak").unwrap();
    assert!(close(peak.change, -0.2, 1e-12));
    assert_eq!(peak.words, "+25 % of peak FLOP/s → −20 % time");
    // A tensor-parallel step all-reduces over NVLink: a link elasticity, between −1 and 0.
    let tp = analyze(&llm("preset=llama3-70b,b=64,tp=8"), &h100, &o).unwrap();
    let e = elasticities(&tp, &h100, &o);
    let link = e.link.expect("tp=8 communicates");
    assert!((-1.0..=0.0).contains(&link));
    // Σ elasticities = −1 for a roofline whose every term scales with one resource.
    assert!(close(e.peak.unwrap() + e.hbm.unwrap() + link, -1.0, 1e-6));
}

/// The levers name the discrete inputs' next values.
#[test]
fn levers_of_an_llm_step() {
    let h100 = preset("h100").unwrap();
    let o = Options::default();
    let a = analyze(&llm("preset=llama3-70b,b=64,tp=4"), &h100, &o).unwrap();
    let l = levers(&a, &h100, &o);
    let words: Vec<&str> = l.levers.iter().map(|l| l.step.as_str()).collect();
    assert!(words.contains(&"tensor parallel 4 → 8"), "{words:?}");
    assert!(words.contains(&"weights bf16 → int8"), "{words:?}");
    assert_eq!(l.cheapest, "buy HBM bandwidth, not FLOPs or link bandwidth");
    assert!(l.levers.windows(2).all(|w| w[0].change <= w[1].change));
}

#[test]
fn ratio_words_both_ways() {
    assert_eq!(ratio_words(0.5, "A"), "2× faster than A");
    assert_eq!(ratio_words(1.5, "A"), "1.5× slower than A");
    assert_eq!(ratio_words(1.0000001, "A"), "as fast as A");
    assert_eq!(vs_base(1.0, 0.0), None);
}

/// `base=<op>.<chip>` in links: counted from 1, absent by default, and bad values say why.
#[test]
fn base_in_links() {
    use crate::scenario::BaseRow;
    use crate::url::{decode, encode};
    let q = "?chip=h100&chip=b200&op=llm:preset=llama3-8b,b=64,ctx=4096&base=1.1";
    let d = decode(q);
    assert!(d.notices.is_empty(), "{:?}", d.notices);
    assert_eq!(d.scenario.base, Some(BaseRow { op: 0, chip: 0 }));
    assert!(encode(&d.scenario).ends_with("&base=1.1"));
    assert_eq!(decode(&encode(&d.scenario)).scenario, d.scenario);
    let d = decode("?chip=h100&base=9.9");
    assert_eq!(d.scenario.base, None);
    assert_eq!(
        d.notices,
        ["base=9.9: there is no operation 9 on chip 9 (2 operations, 1 chip); no baseline"]
    );
    for bad in ["x", "0.1", "1", "1.", "1.2.3", "-1.1", "99999999.1"] {
        let d = decode(&format!("?base={bad}"));
        assert_eq!(d.scenario.base, None);
        assert!(
            d.notices[0].contains("must be <operation>.<chip>"),
            "{bad}: {:?}",
            d.notices
        );
    }
    assert!(!encode(&decode("").scenario).contains("base"));
}

/// A training step splits into its phases (compute, traffic not hidden under it, pipeline
/// bubble) and a collective into its bandwidth and latency terms; each adds up to `t_lower`,
/// so the shares of a change between chips add up to 100 % for every kind.
#[test]
fn phases_and_terms_add_up_for_every_kind() {
    let o = Options::default();
    let (a, b) = (preset("tpu-v5p").unwrap(), preset("tpu-v6e").unwrap());
    for kind in crate::op::OpKind::IDS {
        let op = Op::default_for(kind).unwrap();
        let parts = breakdown(&op, &a, &o).unwrap_or_else(|e| panic!("{kind}: {e}"));
        let t = crate::analysis::t_lower(&op, &a, &o).unwrap();
        let sum: f64 = parts.iter().map(|p| p.time).sum();
        assert!(close(sum, t, 1e-9), "{kind}: {sum} against {t}");
        let e = explain((&op, &a), (&op, &b), &o).unwrap_or_else(|e| panic!("{kind}: {e}"));
        // No change, no shares: then the two chips give the same time (a collective: v5p's and
        // v6e's ICI links are alike), checked, not skipped.
        if e.delta == 0.0 {
            let tb = crate::analysis::t_lower(&op, &b, &o).unwrap();
            assert_eq!(t, tb, "{kind}");
            continue;
        }
        let (p, i) = sum_shares(&e);
        assert!(
            close(p, 1.0, 1e-9) && close(i, 1.0, 1e-9),
            "{kind}: {p} {i}"
        );
    }
    let train = breakdown(&Op::default_for("train").unwrap(), &a, &o).unwrap();
    let names: Vec<&str> = train.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "compute (forward + backward)",
            "traffic not hidden under compute",
            "pipeline bubble"
        ]
    );
    let coll = breakdown(&Op::default_for("collective").unwrap(), &a, &o).unwrap();
    assert_eq!(coll[0].name, "bandwidth term");
    assert_eq!(coll[1].name, "latency term");
}

/// Fuzz case 12831 of seed 21 (`./dev fuzz`): two attention ops on one chip, one with
/// `b = 1e15`, the other with `heads = 1e15`, take exactly the same time (B·H is the same), but
/// the coalitions that mix them (both at 1e15) take ~1e27 s, so the inputs' shares are ±1e27 s
/// and their sum rounds to 5.5e11 s instead of 0. There is no change to explain a fraction
/// of: the note says so in words, never "inf".
#[test]
fn equal_times_with_huge_shares_say_so_without_inf() {
    let s = crate::url::decode(
        "?chip=b300&op=attention:b=1e15,heads=64,head_dim=2&op=attention:heads=1e15",
    )
    .scenario;
    let chip = &s.chips[0];
    let e = explain((&s.ops[0], chip), (&s.ops[1], chip), &s.options).unwrap();
    assert_eq!(e.delta, 0.0);
    assert_eq!(e.t_row, e.t_base);
    let explained: f64 = e.inputs.shares.iter().map(|x| x.phi).sum();
    assert!(explained != 0.0, "the case rounds: {explained}");
    let note = e.inputs.note.unwrap();
    assert!(
        note.starts_with("the two sides take the same time"),
        "{note}"
    );
    assert!(!note.contains("inf") && !note.contains("NaN"), "{note}");
}
