//! The `llm` op's load keys (issue 40): `load c qps prefix_hit chunk max_seqs ttft_max engine
//! moe_ep` parse, keep their defaults out of a link, and refuse bad input at the field with a
//! message that names it and what it takes.

use crate::common;

use common::op_with;
use roofline::url::{decode, encode};
use roofline::*;

const NEW_KEYS: [&str; 9] = [
    "moe_ep",
    "load",
    "c",
    "qps",
    "prefix_hit",
    "chunk",
    "max_seqs",
    "ttft_max",
    "engine",
];

/// At their defaults the new keys are absent from the canonical link, so every link written
/// before them encodes as it did; set, they round-trip.
#[test]
fn defaults_are_absent_and_values_round_trip() {
    let op = Op::default_for("llm").unwrap();
    for (k, v) in [
        ("moe_ep", "1"),
        ("load", "batch"),
        ("c", "1"),
        ("qps", "1"),
        ("prefix_hit", "0"),
        ("chunk", "auto"),
        ("max_seqs", "auto"),
        ("ttft_max", "none"),
        ("engine", "generic"),
    ] {
        assert_eq!(op.get(k).as_deref(), Some(v), "{k}");
    }
    let plain = encode(&decode("?chip=h100&op=llm").scenario);
    for k in NEW_KEYS {
        assert!(!plain.contains(&format!("{k}=")), "{k} in {plain}");
    }
    let link = "?chip=h100&op=llm:preset=llama3-8b,load=concurrency,c=64,qps=2.5,prefix_hit=0.25,chunk=2048,max_seqs=128,ttft_max=500,engine=vllm";
    let d = decode(link);
    assert!(d.notices.is_empty(), "{:?}", d.notices);
    let e = encode(&d.scenario);
    for kv in [
        "load=concurrency",
        "c=64",
        "qps=2.5",
        "prefix_hit=0.25",
        "chunk=2048",
        "max_seqs=128",
        "ttft_max=500",
        "engine=vllm",
    ] {
        assert!(e.contains(kv), "{kv} missing from {e}");
    }
    assert_eq!(decode(&e).scenario, d.scenario);
    // The words and units the fields take.
    let mut op = Op::default_for("llm").unwrap();
    for (k, v, back) in [
        ("chunk", "none", "none"),
        ("chunk", "8k", "8e3"),
        ("chunk", "AUTO", "auto"),
        ("chunk", "", "auto"),
        ("max_seqs", "auto", "auto"),
        ("ttft_max", "none", "none"),
        ("qps", "1e6", "1e6"),
        ("engine", "SGLang", "sglang"),
        ("load", "rate", "rate"),
    ] {
        op.set(k, v).unwrap();
        assert_eq!(op.get(k).as_deref(), Some(back), "{k}={v}");
    }
}

/// Bad input is refused at the field with what it takes; the op keeps its last good value.
#[test]
fn bad_values_are_refused_with_the_field_named() {
    let mut op = Op::default_for("llm").unwrap();
    for (k, bad, want) in [
        ("c", "0", "c=0: must be a whole number of clients (an integer from 1 to 1e7)"),
        ("c", "2.5", "c=2.5: must be a whole number of clients"),
        ("c", "1e8", "c=1e8: must be a whole number of clients"),
        ("c", "-4", "c=-4"),
        ("c", "NaN", "c="),
        ("qps", "0", "qps=0: must be a request rate in requests per second (a number from 1e-6 to 1e9)"),
        ("qps", "-1", "qps=-1"),
        ("qps", "2e9", "qps=2e9"),
        ("qps", "inf", "qps="),
        ("qps", "nan", "qps="),
        ("prefix_hit", "1.5", "prefix_hit=1.5: must be a fraction of prompt tokens (a number from 0 to 1)"),
        ("prefix_hit", "-0.1", "prefix_hit=-0.1"),
        ("chunk", "0", "chunk=0: must be a token budget per step (a whole number from 1 to 1e9), none (whole prompts) or auto (the engine's default)"),
        ("chunk", "0.5", "chunk=0.5: must be a token budget"),
        ("chunk", "-8", "chunk=-8"),
        ("chunk", "lots", "chunk=lots"),
        ("chunk", "2e9", "chunk=2e9"),
        ("max_seqs", "0", "max_seqs=0: must be a whole number of sequences, or auto"),
        ("ttft_max", "0", "ttft_max=0: must be a time in ms, or none"),
        ("engine", "tgi", "engine=tgi: must be one of generic, vllm, sglang, trtllm"),
        ("load", "burst", "load=burst: must be one of batch, concurrency, rate"),
        ("moe_ep", "0", "moe_ep=0"),
    ] {
        let before = op.get(k);
        let e = op.set(k, bad).unwrap_err().to_string();
        assert!(e.starts_with(want), "{k}={bad}: {e}");
        assert_eq!(op.get(k), before, "{k} kept");
    }
    // A rate past any engine's saturation is valid input: the figures say it saturates.
    op.set("qps", "1e6").unwrap();
    op.set("prefix_hit", "1").unwrap();
    // Bad values in a link are notices naming the field, the default kept.
    let d = decode("?chip=h100&op=llm:c=0,engine=tgi,chunk=0");
    assert_eq!(d.notices.len(), 3, "{:?}", d.notices);
    assert!(d.notices.iter().any(|n| n.contains("c=0")));
    assert!(d.notices.iter().any(|n| n.contains("engine=tgi")));
    assert!(d.notices.iter().any(|n| n.contains("chunk=0")));
}

/// `moe_ep` spreads the routed experts over part of the tensor-parallel group: it needs
/// experts and must divide `tp` (not the experts: a chip's share is fractional on average); under
/// uniform routing a chip reads and
/// computes the same share of the experts either way, so the bound is the same to the bit.
#[test]
fn moe_ep_splits_experts_inside_the_group() {
    let h200 = preset("h200").unwrap();
    let opts = Options::default();
    let t = |kv: &[(&str, &str)]| analyze(&op_with("llm", kv), &h200, &opts).map(|a| a.t_lower);
    let base = [
        ("preset", "qwen3-30b-a3b"),
        ("tp", "4"),
        ("b", "64"),
        ("link", "nvlink"),
    ];
    let whole = t(&base).unwrap();
    let mut split = base.to_vec();
    split.push(("moe_ep", "4"));
    assert_eq!(t(&split).unwrap().to_bits(), whole.to_bits());
    let err = |kv: &[(&str, &str)]| t(kv).unwrap_err().to_string();
    let mut three = base.to_vec();
    three.push(("moe_ep", "3"));
    assert!(
        err(&three).starts_with("moe_ep=3: must divide tp = 4"),
        "{}",
        err(&three)
    );
    assert!(err(&[("moe_ep", "2"), ("tp", "2")])
        .starts_with("moe_ep=2: splitting experts needs a mixture of experts"));
    // The experts need not divide evenly: a chip's share is E/(ep·moe_ep) on average under
    // uniform routing (Mixtral's 8 experts over 4 groups of 4 chips: half an expert each).
    assert!(t(&[
        ("preset", "mixtral-8x7b"),
        ("ep", "4"),
        ("tp", "4"),
        ("moe_ep", "4"),
        ("link", "nvlink"),
    ])
    .is_ok());
}
