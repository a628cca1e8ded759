//! Expert parallelism on the `llm` op (`ep=`): the routed experts split over `ep` groups of
//! `tp` chips, each group serving `B/ep` of the sequences, and two AllToAlls per MoE layer.
//! Every expected number is worked out here by hand for Mixtral 8x7B (32 layers, D = 4096,
//! 8 experts of width 14336 gated, top-2; 46,702,792,704 parameters, of which the routed
//! experts are 32·8·3·4096·14336 = 45,097,156,608) on H100s (bf16 9.89e14 FLOP/s, HBM
//! 3.35e12 B/s and 80e9 B, NVLink 18 × 2.5e10 = 4.5e11 B/s per direction).
//!
//! The convention is training's (`train/model/build.rs`) and the collectives module's
//! switched AllToAll: the array is V = ep·(T/ep)·k·D·s_x/n, and each chip sends the
//! (ep − 1)/ep of its V/ep that leaves its group, `(n−1)·V/(n²·W)` with n = ep
//! (sharding.md, "Our final communication primitive: the AllToAll").

use crate::common;

use common::{close, op_with};
use roofline::*;

const ROUTED: f64 = 32.0 * 8.0 * 3.0 * 4096.0 * 14336.0;
const TOTAL: f64 = 46_702_792_704.0;
const NVLINK: f64 = 18.0 * 2.5e10;

fn h100() -> Chip {
    preset("h100").unwrap()
}

fn mixtral(kv: &[(&str, &str)]) -> Op {
    let mut all = vec![("preset", "mixtral-8x7b"), ("link", "nvlink")];
    all.extend_from_slice(kv);
    op_with("llm", &all)
}

fn llm(op: &Op) -> &Llm {
    match &op.kind {
        OpKind::Llm(l) => l,
        _ => unreachable!(),
    }
}

fn parts(op: &Op) -> Vec<(Part, Analysis)> {
    roofline::workload::analyze_workload(op, &h100(), &Options::default())
        .unwrap()
        .unwrap()
        .parts
}

#[test]
fn routed_experts_split_over_the_groups_and_the_rest_replicated() {
    assert_eq!(ROUTED, 45_097_156_608.0);
    let one = mixtral(&[]);
    let eight = mixtral(&[("ep", "8")]);
    assert_eq!(llm(&one).params(), TOTAL);
    // ep = 1: every weight on the one chip, 2 bytes each.
    assert_eq!(llm(&one).weight_bytes(), 2.0 * TOTAL);
    // ep = 8: one expert per layer per chip, and everything else: 2·(1,605,636,096 +
    // 45,097,156,608/8) = 2·7,242,780,672.
    assert_eq!(
        llm(&eight).weight_bytes(),
        2.0 * (TOTAL - ROUTED + ROUTED / 8.0)
    );
    assert_eq!(llm(&eight).weight_bytes(), 14_485_561_344.0);
    assert_eq!(llm(&eight).chips(), 8.0);
    // With tp = 2 as well: 16 chips; against tp = 2 alone, the routed experts go from
    // ROUTED/2 to ROUTED/16 per chip (the norms stay whole on every chip in both).
    let both = mixtral(&[("ep", "8"), ("tp", "2")]);
    let tp2 = mixtral(&[("tp", "2")]);
    assert_eq!(llm(&both).chips(), 16.0);
    close(
        llm(&tp2).weight_bytes() - llm(&both).weight_bytes(),
        2.0 * (ROUTED / 2.0 - ROUTED / 16.0),
        1e-12,
        "weights per chip, tp 2 × ep 8",
    );
}

#[test]
fn max_batch_counts_every_groups_sequences() {
    // KV cache per sequence at P + G = 2048 + 512 = 2560 positions: 2·L·K·h·S·s_kv =
    // 2·32·8·128·2560·2 = 335,544,320 bytes (tp 1). One chip holds 80e9 − weights.
    let per: f64 = 2.0 * 32.0 * 8.0 * 128.0 * 2560.0 * 2.0;
    let one = mixtral(&[]);
    let eight = mixtral(&[("ep", "8")]);
    // ep = 1: 80e9 − 93,405,585,408 < 0: Mixtral does not fit on one H100.
    assert_eq!(llm(&one).max_batch(80e9, 2560.0), 0.0);
    // ep = 8: ⌊(80e9 − 14,485,561,344)/335,544,320⌋ = ⌊195.24⌋ = 195 per group, 8 groups.
    let per_group = ((80e9 - 14_485_561_344.0) / per).floor();
    assert_eq!(per_group, 195.0);
    assert_eq!(llm(&eight).max_batch(80e9, 2560.0), 8.0 * 195.0);
    let s = serving::serving(&eight, &h100(), &Options::default())
        .unwrap()
        .unwrap();
    assert_eq!(s.max_batch, 1560.0);
    assert_eq!(s.chips, 8.0);
    // Tokens/s per chip divides by the 8 chips.
    close(
        s.tokens_per_s_chip,
        s.batch / s.tpot / 8.0,
        1e-15,
        "tokens/s per chip",
    );
}

#[test]
fn the_alltoall_parts_by_hand() {
    // Decode at B = 64 on 8 groups of 1 chip: T/ep = 8 tokens per group, k = 2: V/ep = 8·2 ·
    // 4096 · 2 bytes = 131,072 per chip, of which 7/8 leave it: 114,688 bytes over NVLink,
    // 114,688 / 4.5e11 = 254.9 ns per AllToAll; HBM reads and writes 2·131,072 bytes,
    // 262,144 / 3.35e12 = 78.3 ns, so the link binds.
    let op = mixtral(&[("ep", "8"), ("b", "64")]);
    let ps = parts(&op);
    for name in ["AllToAll dispatch", "AllToAll combine"] {
        let (p, a) = ps
            .iter()
            .find(|(p, _)| p.name == name)
            .unwrap_or_else(|| panic!("no part {name}"));
        assert_eq!(p.repeat, 32.0, "{name}: once per MoE layer");
        let net = a.term(Resource::Nvlink).unwrap();
        assert_eq!(net.bytes, 114_688.0);
        assert_eq!(a.term(Resource::Hbm).unwrap().bytes, 262_144.0);
        close(a.t_lower, 114_688.0 / NVLINK, 1e-12, name);
    }
    // Without expert parallelism there is no AllToAll.
    assert!(parts(&mixtral(&[("b", "64")]))
        .iter()
        .all(|(p, _)| !p.name.starts_with("AllToAll")));
}

#[test]
fn each_group_computes_its_share() {
    // The routed experts at B = 64, ep = 8: a group's 8 tokens × k = 2 slots, 2·16·P_e FLOPs
    // (P_e = 3·4096·14336); the experts it reads: E/ep·(1 − (1 − k/E)^T) with T = 64, i.e.
    // 1 − (3/4)^64 of its one expert.
    let pe = 3.0 * 4096.0 * 14336.0;
    let ps = parts(&mixtral(&[("ep", "8"), ("b", "64")]));
    let (_, routed) = ps.iter().find(|(p, _)| p.name == "routed experts").unwrap();
    assert_eq!(routed.flops, 2.0 * 8.0 * 2.0 * pe);
    let hit = 1.0 - 0.75f64.powf(64.0);
    close(
        routed.bytes,
        2.0 * hit * pe + 2.0 * 8.0 * 2.0 * 2.0 * 4096.0,
        1e-12,
        "expert weights hit plus token slots in and out",
    );
    // Attention: each group's 8 sequences (QKV of [8, 4096]·[4096, 6144]).
    let (_, qkv) = ps.iter().find(|(p, _)| p.name == "QKV projection").unwrap();
    assert_eq!(qkv.flops, 2.0 * 8.0 * 4096.0 * 6144.0);
}

/// `ep = 1` (the default, or written out) is the op as it was before the field existed: the
/// figures tests/e2e_models.rs pinned by hand for Mixtral on 2 H100s before expert parallelism,
/// no AllToAll part, and no `ep=` written into its link.
#[test]
fn ep_1_is_the_op_without_it() {
    let op = mixtral(&[("tp", "2"), ("ep", "1")]);
    // (46,702,792,704 − 266,240 norm weights)/2 + 266,240 = 23,351,529,472 parameters per
    // chip, 2 bytes each; a sequence's KV at 2560 positions 2·32·8·128·2560·2/2 = 167,772,160
    // bytes; ⌊(80e9 − 46,703,058,944)/167,772,160⌋ = 198.
    assert_eq!(llm(&op).weight_bytes(), 46_703_058_944.0);
    assert_eq!(llm(&op).kv_bytes_per_seq(2560.0), 167_772_160.0);
    assert_eq!(llm(&op).max_batch(80e9, 2560.0), 198.0);
    assert_eq!(llm(&op).chips(), 2.0);
    assert!(parts(&op)
        .iter()
        .all(|(p, _)| !p.name.starts_with("AllToAll")));
    let s = Scenario {
        ops: vec![op],
        ..Default::default()
    };
    let link = url::encode(&s);
    assert!(!link.contains(",ep=") && !link.contains(":ep="), "{link}");
}

#[test]
fn bad_ep_names_the_field() {
    let chip = h100();
    let msg = |kv: &[(&str, &str)]| {
        let mut op = Op::default_for("llm").unwrap();
        for (k, v) in kv {
            if let Err(e) = op.set(k, v) {
                return e.to_string();
            }
        }
        analyze(&op, &chip, &Options::default())
            .unwrap_err()
            .to_string()
    };
    // A dense model has no experts to split.
    let dense = msg(&[("ep", "2")]);
    assert!(
        dense.contains("ep") && dense.contains("mixture of experts"),
        "{dense}"
    );
    // Mixtral's 8 experts do not split 3 ways.
    let three = msg(&[("preset", "mixtral-8x7b"), ("ep", "3")]);
    assert!(
        three.contains("ep") && three.contains("must divide"),
        "{three}"
    );
    for bad in ["0", "-1", "1.5", "x"] {
        let m = msg(&[("preset", "mixtral-8x7b"), ("ep", bad)]);
        assert!(m.contains("ep"), "{bad}: {m}");
    }
}

/// `analysis::t_lower`, which the serving figures time their steps with, is `analyze`'s
/// `t_lower` to the bit: every zoo model in each phase, with and without tensor and expert
/// parallelism, on a GPU and a TPU, derated and calibrated; a matmul and a training step too.
#[test]
fn t_lower_alone_is_the_analysis_t_lower() {
    let opts = [
        Options::default(),
        Options {
            derate: 0.7,
            ..Options::default()
        },
    ];
    let mut n = 0;
    for chip in ["h100", "tpu-v5e"].map(|c| preset(c).unwrap()) {
        for o in &opts {
            let mut check = |op: &Op| {
                let a = analyze(op, &chip, o);
                let t = roofline::analysis::t_lower(op, &chip, o);
                match (a, t) {
                    (Ok(a), Ok(t)) => assert_eq!(a.t_lower.to_bits(), t.to_bits(), "{op:?}"),
                    (Err(a), Err(t)) => assert_eq!(a.to_string(), t.to_string()),
                    (a, t) => panic!("{op:?}: {a:?} against {t:?}"),
                }
                n += 1;
            };
            for id in llm_presets().iter().map(|p| p.id) {
                for phase in ["decode", "prefill", "verify"] {
                    for (tp, ep) in [("1", "1"), ("8", "1"), ("2", "8")] {
                        let mut op = Op::default_for("llm").unwrap();
                        op.set("preset", id).unwrap();
                        for (k, v) in [("phase", phase), ("tp", tp), ("ep", ep), ("b", "64")] {
                            op.set(k, v).unwrap();
                        }
                        check(&op);
                    }
                }
            }
            check(&Op::default_for("matmul").unwrap());
            check(&Op::default_for("train").unwrap());
        }
    }
    assert!(n > 400, "{n} cases");
}

/// Speculative decoding of an expert-parallel target: the dense draft runs in each of the 8
/// groups on its B/ep = 8 sequences (a draft has no experts to split), so its step is the
/// draft's own decode step at B = 8 on one chip; the verify step is the target's.
#[test]
fn a_dense_draft_runs_in_each_expert_group() {
    let chip = h100();
    let op = mixtral(&[("ep", "8"), ("b", "64"), ("draft", "mistral-7b")]);
    let s = serving::speculative(&op, &chip, &Options::default())
        .unwrap()
        .unwrap();
    // The same draft step by hand: Mistral 7B decode at B = 8, context P + G/2 = 2304.
    let draft = op_with(
        "llm",
        &[
            ("preset", "mistral-7b"),
            ("b", "8"),
            ("ctx", "2304"),
            ("link", "nvlink"),
        ],
    );
    let want = analyze(&draft, &chip, &Options::default()).unwrap().t_lower;
    assert_eq!(s.draft_step, want);
    let mut verify = op.clone();
    verify.set("phase", "verify").unwrap();
    verify.set("ctx", "2304").unwrap();
    assert_eq!(
        s.verify_step,
        analyze(&verify, &chip, &Options::default())
            .unwrap()
            .t_lower
    );
    assert!(s.tpot_spec > 0.0 && s.tpot_spec.is_finite());
}
