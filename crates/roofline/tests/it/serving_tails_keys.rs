//! The `llm` op's keys for serving tails and topologies (issue 42): `prompt_cv output_cv seed
//! slo_pct disagg p_tp p_ep d_tp d_ep d_chip kv_link kv_host prefix_set` parse, keep their
//! defaults out of a link, and refuse bad input at the field with a message that names it and
//! what it takes.

use crate::common;

use common::op_with;
use roofline::op::{Disagg, Role};
use roofline::url::{decode, encode};
use roofline::*;

const NEW_KEYS: [(&str, &str); 13] = [
    ("prompt_cv", "0"),
    ("output_cv", "0"),
    ("seed", "1"),
    ("slo_pct", "90"),
    ("disagg", "none"),
    ("p_tp", "auto"),
    ("p_ep", "auto"),
    ("d_tp", "auto"),
    ("d_ep", "auto"),
    ("d_chip", "auto"),
    ("kv_link", "dcn"),
    ("kv_host", "none"),
    ("prefix_set", "none"),
];

/// At their defaults the new keys are absent from the canonical link, so every link written
/// before them encodes as it did; set, they round-trip.
#[test]
fn defaults_are_absent_and_values_round_trip() {
    let op = Op::default_for("llm").unwrap();
    for (k, v) in NEW_KEYS {
        assert_eq!(op.get(k).as_deref(), Some(v), "{k}");
    }
    let plain = encode(&decode("?chip=h100&op=llm").scenario);
    for (k, _) in NEW_KEYS {
        assert!(!plain.contains(&format!("{k}=")), "{k} in {plain}");
    }
    let link = "?chip=h100&chip=h200&op=llm:preset=llama3-8b,load=rate,qps=4,prompt_cv=0.5,output_cv=1.25,seed=7,slo_pct=99,disagg=3P1D,p_tp=2,p_ep=1,d_tp=4,d_ep=1,d_chip=2,kv_link=nvlink,kv_host=64GiB,prefix_set=10GB,ttft_max=500,tpot_max=50";
    let d = decode(link);
    assert!(d.notices.is_empty(), "{:?}", d.notices);
    let e = encode(&d.scenario);
    for kv in [
        "prompt_cv=0.5",
        "output_cv=1.25",
        "seed=7",
        "slo_pct=99",
        "disagg=3P1D",
        "p_tp=2",
        "p_ep=1",
        "d_tp=4",
        "d_ep=1",
        "d_chip=2",
        "kv_link=nvlink",
        "kv_host=68719476736",
        "prefix_set=1e10",
    ] {
        assert!(e.contains(kv), "{kv} missing from {e}");
    }
    assert_eq!(decode(&e).scenario, d.scenario);
    let mut op = Op::default_for("llm").unwrap();
    for (k, v, back) in [
        ("disagg", "auto", "auto"),
        ("disagg", "2p5d", "2P5D"),
        ("disagg", "", "none"),
        ("prompt_cv", "0.25", "0.25"),
        ("kv_host", "none", "none"),
        ("kv_host", "1TB", "1e12"),
        ("kv_link", "PCIe", "pcie"),
        ("seed", "0", "0"),
        ("d_chip", "auto", "auto"),
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
        (
            "prompt_cv",
            "-1",
            "prompt_cv=-1: must be a coefficient of variation from 0 (fixed lengths) to 10",
        ),
        ("prompt_cv", "NaN", "prompt_cv=NaN: must be a coefficient"),
        ("output_cv", "1e6", "output_cv=1e6: must be a coefficient"),
        ("output_cv", "", "output_cv=: must be a coefficient"),
        (
            "seed",
            "-1",
            "seed=-1: must be a whole number (an integer from 0 to 1e15)",
        ),
        ("seed", "1.5", "seed=1.5"),
        ("seed", "1e16", "seed=1e16"),
        (
            "slo_pct",
            "0",
            "slo_pct=0: must be a percentage of requests (a number from 1 to 100)",
        ),
        ("slo_pct", "101", "slo_pct=101"),
        ("slo_pct", "inf", "slo_pct="),
        ("disagg", "0P1D", "disagg=0P1D: must be none, auto, or xPyD"),
        ("disagg", "3:1", "disagg=3:1: must be none, auto, or xPyD"),
        ("disagg", "2000P1D", "disagg=2000P1D"),
        (
            "p_tp",
            "0",
            "p_tp=0: must be a whole number of chips, or auto",
        ),
        ("d_ep", "2.5", "d_ep=2.5"),
        (
            "d_chip",
            "0",
            "d_chip=0: must be the position of one of the scenario's chips",
        ),
        (
            "kv_link",
            "wifi",
            "kv_link=wifi: must be one of ici, nvlink, pcie, dcn",
        ),
        (
            "kv_host",
            "0",
            "kv_host=0: must be a size in bytes, or none",
        ),
        ("kv_host", "-5GiB", "kv_host="),
        ("kv_host", "1e30", "kv_host=1e30"),
        ("prefix_set", "NaN", "prefix_set="),
    ] {
        let before = op.get(k);
        let e = op.set(k, bad).unwrap_err().to_string();
        assert!(e.starts_with(want), "{k}={bad}: {e}");
        assert_eq!(op.get(k), before, "{k} kept");
    }
    // Bad values in a link are notices naming the field, the default kept.
    let d = decode("?chip=h100&op=llm:disagg=1P0D,kv_link=x,prompt_cv=-2");
    assert_eq!(d.notices.len(), 3, "{:?}", d.notices);
    for k in ["disagg=1P0D", "kv_link=x", "prompt_cv=-2"] {
        assert!(
            d.notices.iter().any(|n| n.contains(k)),
            "{k}: {:?}",
            d.notices
        );
    }
}

/// A disaggregated op's workers must suit the architecture as the op must: Llama-3 8B's 32
/// heads take `d_tp=8` but not `d_tp=3`, and the error names the worker's key. Without
/// `disagg` the worker keys are not read.
#[test]
fn workers_are_checked_under_their_own_keys() {
    let h100 = preset("h100").unwrap();
    let opts = Options::default();
    let run = |kv: &[(&str, &str)]| analyze(&op_with("llm", kv), &h100, &opts).map(|_| ());
    run(&[("disagg", "1P1D"), ("d_tp", "8"), ("link", "nvlink")]).unwrap();
    let e = run(&[("disagg", "1P1D"), ("d_tp", "3")])
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("d_tp=3: must divide the 32 query heads"),
        "{e}"
    );
    let e = run(&[("disagg", "2P1D"), ("p_ep", "2")])
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("p_ep=2: expert parallelism needs a mixture of experts"),
        "{e}"
    );
    run(&[("d_tp", "3")]).unwrap();
    // The worker takes its own degrees and no disaggregation of its own.
    let op = op_with("llm", &[("disagg", "3P1D"), ("tp", "2"), ("d_tp", "8")]);
    let l = op.llm().unwrap();
    let (p, d) = (l.worker(Role::Prefill), l.worker(Role::Decode));
    assert_eq!(
        (p.tp, d.tp, p.disagg, d.disagg),
        (2.0, 8.0, Disagg::None, Disagg::None)
    );
}
