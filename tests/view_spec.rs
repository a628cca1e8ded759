//! Issue 13 in the view: speculative decoding (`draft=`, `spec_k=`, `accept=`) and the latency
//! bound of the smallest topology (`tpot_max=`) in the serving row's `data-metric` cells, and
//! the form's fold opening for them.
#![cfg(not(target_arch = "wasm32"))]

mod view_support;

use roofline::scenario::Scenario;
use roofline_lab::view::{self, ResultRow};
use view_support::{cell, close, num};

/// applied-inference.md, "Serving LLaMA 3-70B": int8 everywhere on a TPU v5e 4x2, B = 32,
/// 8k context; drafted by LLaMA 3-8B with k = 4, α = 0.8.
const SPEC_70B: &str = "chip=tpu-v5e&op=llm:preset=llama3-70b,w=int8,x=int8,kv=int8,tp=8,b=32,\
                        prompt=7680,output=512,draft=llama3-8b,spec_k=4,accept=0.8";

fn serving_row(q: &str) -> ResultRow {
    let d = roofline::url::decode(q);
    assert!(d.notices.is_empty(), "{q}: {:?}", d.notices);
    let rows = view::result_rows(&d.scenario);
    rows[0].serving.as_deref().expect("a serving row").clone()
}

/// tpot_spec = (k · draft step + verify step) / E[tokens] = (4 · 3.8136 + 22.480) / 3.3616
/// = 11.225 ms (each step written out part by part in crates/roofline/tests/speculative.rs);
/// the plain TPOT 17.217 ms, so 1.534× faster.
#[test]
fn the_serving_row_has_tpot_spec_with_its_derivation() {
    let row = serving_row(SPEC_70B);
    close(num(&row, "tpot_spec"), 11.225e-3, 1e-4, "tpot_spec");
    close(
        num(&row, "spec_speedup"),
        num(&row, "tpot") / num(&row, "tpot_spec"),
        1e-12,
        "speedup",
    );
    close(num(&row, "spec_speedup"), 1.534, 1e-3, "speedup by hand");
    let t = cell(&row, "tpot_spec");
    assert!(t.text.starts_with("TPOT spec 11.2"), "{}", t.text);
    for words in [
        "Llama-3 8B drafts k = 4 tokens",
        "T = B·(k+1)",
        "E[tokens] = (1 − α^(k+1)) / (1 − α) = 3.362",
        "α = 0.8",
    ] {
        assert!(t.title.contains(words), "{words:?} not in {}", t.title);
    }
    // The op's derivation notes say it too.
    let s: Scenario = roofline::url::decode(SPEC_70B).scenario;
    let notes = roofline::analyze(&s.ops[0], &s.chips[0], &s.options)
        .unwrap()
        .derivation()
        .join("\n");
    assert!(
        notes.contains("E[tokens] = (1 − α^(k+1)) / (1 − α) = 3.362"),
        "{notes}"
    );
}

#[test]
fn without_a_draft_tpot_spec_is_none_and_says_why() {
    let row = serving_row(&SPEC_70B.replace("draft=llama3-8b", "draft=none"));
    for m in ["tpot_spec", "spec_speedup"] {
        let c = cell(&row, m);
        assert_eq!(c.value, "none");
        assert!(c.title.contains("no draft= model"), "{}", c.title);
    }
}

/// applied-inference.md: at B = 32 and 8k in int8 "the smallest slice we could use would have
/// ... TPU v5e 4x2" with "our step time is basically ... 17ms"; "if we were to run on a 4x4
/// ... our latency would drop to 17 / 2 = 8.5ms". min_chips keeps its memory meaning without
/// tpot_max (8), and under tpot_max=10 (ms) answers 16, saying which bound applied.
#[test]
fn min_chips_follows_tpot_max() {
    let row = serving_row(SPEC_70B);
    assert_eq!(num(&row, "min_chips"), 8.0);
    assert!(!cell(&row, "min_chips").title.contains("tpot_max"));
    let row = serving_row(&format!("{SPEC_70B},tpot_max=10"));
    assert_eq!(num(&row, "min_chips"), 16.0);
    let title = &cell(&row, "min_chips").title;
    assert!(title.contains("at most tpot_max = 10 ms"), "{title}");
    let row = serving_row(&format!("{SPEC_70B},tpot_max=20"));
    assert_eq!(num(&row, "min_chips"), 8.0);
    // A bound no group meets: none, and why.
    let row = serving_row(&format!("{SPEC_70B},tpot_max=0.001"));
    let c = cell(&row, "min_chips");
    assert_eq!(c.value, "none");
    assert!(c.title.contains("tpot_max = 1 µs"), "{}", c.title);
}

/// The fold opens for a draft or a bound, not for a preset alone.
#[test]
fn the_fold_opens_for_speculation_fields() {
    let op = |q: &str| roofline::url::decode(q).scenario.ops[0].clone();
    assert!(!view::op_more_open(&op(
        "chip=h100&op=llm:preset=llama3-70b"
    )));
    assert!(view::op_more_open(&op(
        "chip=h100&op=llm:preset=llama3-70b,draft=llama3-8b"
    )));
    assert!(view::op_more_open(&op("chip=h100&op=llm:tpot_max=20")));
    let llm = roofline::op::Op::default_for("llm").unwrap();
    assert!(llm.field("accept").unwrap().folds);
}
