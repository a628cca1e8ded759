//! The serving-at-load set's disaggregated rows (issue 42): the mapping rule's counts, against
//! an independent count (a Python script over the same CSV, written out below), and every
//! link a plan that fits.
//!
//! The script read `silicon_sample.csv`'s 1,602 `disagg` rows by the rule of
//! `validation/load/disagg.rs` (the same model and system names, the workers from the row or
//! a row of the same TTFT and TPOT to 12 significant digits, each stage's `tp × attention_dp =
//! moe_tp × moe_ep` for a mixture of experts, `attention_dp = 1` for a dense model, `tp`
//! dividing the heads, `decode_batch × attention_dp × y = c`) and counted: 603 expressed;
//! left out, 22 sparse attention (GLM-5), 7 without a concurrency, 970 without worker
//! counts; expressed by engine trtllm 369, sglang 220, vllm 14; by system gb200 216, gb300
//! 161, b200_sxm 136, h200_sxm 69, h100_sxm 21; by model deepseek-v3 571, kimi-k2.5 29,
//! qwen3-32b 3; 377 of them in one NVLink domain; 267 distinct measurements.

use roofline::serving::disagg::plan;
use roofline::url::decode;
use roofline::validation::load::disagg::{disagg_rows, Why};
use std::collections::{BTreeMap, HashSet};

#[test]
fn the_rule_counts_what_an_independent_count_does() {
    let rows = disagg_rows();
    assert_eq!(rows.len(), 1602);
    let mut why: BTreeMap<Why, usize> = BTreeMap::new();
    let mut engine: BTreeMap<&str, usize> = BTreeMap::new();
    let mut system: BTreeMap<&str, usize> = BTreeMap::new();
    let mut model: BTreeMap<&str, usize> = BTreeMap::new();
    let (mut nvlink, mut expressed) = (0, 0);
    let mut distinct = HashSet::new();
    for d in &rows {
        match &d.scenario {
            Ok(e) => {
                expressed += 1;
                *engine.entry(d.row.engine).or_default() += 1;
                *system.entry(d.row.system).or_default() += 1;
                let preset = e
                    .link
                    .split("preset=")
                    .nth(1)
                    .unwrap()
                    .split(',')
                    .next()
                    .unwrap();
                *model.entry(preset).or_default() += 1;
                nvlink += usize::from(e.link.contains("kv_link=nvlink"));
                distinct.insert((d.row.ttft.to_bits(), d.row.tpot.to_bits()));
            }
            Err(w) => *why.entry(*w).or_default() += 1,
        }
    }
    assert_eq!(expressed, 603);
    assert_eq!(
        why.into_iter().collect::<Vec<_>>(),
        [
            (Why::Attention, 22),
            (Why::NoConcurrency, 7),
            (Why::NoTopology, 970)
        ]
    );
    assert_eq!(
        engine.into_iter().collect::<Vec<_>>(),
        [("sglang", 220), ("trtllm", 369), ("vllm", 14)]
    );
    assert_eq!(
        system.into_iter().collect::<Vec<_>>(),
        [
            ("b200_sxm", 136),
            ("gb200", 216),
            ("gb300", 161),
            ("h100_sxm", 21),
            ("h200_sxm", 69)
        ]
    );
    assert_eq!(
        model.into_iter().collect::<Vec<_>>(),
        [("deepseek-v3", 571), ("kimi-k2.5", 29), ("qwen3-32b", 3)]
    );
    assert_eq!(nvlink, 377);
    // Twins by exact TTFT and TPOT bits may split a 12-digit measurement group; at most.
    assert!(distinct.len() >= 267, "{}", distinct.len());
}

/// Every expressed row's link decodes with no notice into a disaggregated op, round-trips, and
/// is a plan whose transfer link exists (NVLink only within one domain); where a plan does not
/// fit, it is because a worker's weights leave its engine's KV pool no room for a request (the
/// engines' default memory fractions: a run may have raised them, the row does not say), and
/// the report counts it apart.
#[test]
fn every_link_is_a_plan() {
    let mut no_room = 0;
    for d in disagg_rows() {
        let Ok(e) = &d.scenario else { continue };
        let dec = decode(&e.link);
        assert!(dec.notices.is_empty(), "{}: {:?}", e.link, dec.notices);
        let s = dec.scenario;
        let l = s.ops[0].llm().unwrap();
        let (x, y) = (f64::from(e.xy.0), f64::from(e.xy.1));
        if let Err(err) = plan(l, &s.chips[0], &s.chips[0], &s.options, (x, y)) {
            let err = err.to_string();
            assert!(
                err.contains("worker") && err.contains("holds no request"),
                "{}: {err}",
                e.link
            );
            no_room += 1;
        }
        assert_eq!(
            roofline::url::encode(&s),
            roofline::url::encode(&decode(&roofline::url::encode(&s)).scenario)
        );
    }
    assert!(no_room < 603, "every plan leaves no room");
}
