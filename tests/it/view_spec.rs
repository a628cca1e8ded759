//! Issue 13 in the view: speculative decoding (`draft=`, `spec_k=`, `accept=`) and the latency
//! bound of the smallest topology (`tpot_max=`) in the serving row's `data-metric` cells, and
//! the form's fold opening for them. Issue 26 in the view: the baseline's `vs_base` cells,
//! the elasticity cells, the key line's words, the explanation panel and the results CSV.
#![cfg(not(target_arch = "wasm32"))]

use crate::view_support;

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

/// The issue's link: H100 (base, row 1.1) and B200, Llama-3 8B decode at B = 64, ctx 4096.
const BASE_LINK: &str = "chip=h100&chip=b200&op=llm:preset=llama3-8b,b=64,ctx=4096&base=1.1";

/// A memory-bound step: every part's time is its bytes over HBM bandwidth, so the B200 row
/// is 3.35e12 / 8e12 = 0.41875 of the H100's (both chips' datasheet HBM bandwidths), and the
/// step's elasticity to HBM bandwidth is −1, to the peak 0, with no link (tp = 1).
#[test]
fn vs_base_and_elasticities_on_the_issue_link() {
    let d = roofline::url::decode(BASE_LINK);
    assert!(d.notices.is_empty(), "{:?}", d.notices);
    let rows = view::result_rows(&d.scenario);
    assert_eq!(cell(&rows[0], "vs_base").text, "baseline");
    close(num(&rows[1], "vs_base"), 3.35 / 8.0, 1e-12, "vs_base");
    assert_eq!(cell(&rows[1], "vs_base").text, "0.419×");
    assert!(cell(&rows[1], "vs_base")
        .title
        .contains("2.39× faster than H100 SXM"));
    for r in &rows {
        assert_eq!(cell(r, "elasticity_hbm").value, "-1");
        assert_eq!(cell(r, "elasticity_peak").value, "0");
        assert_eq!(cell(r, "elasticity_link").value, "none");
    }
    let key = view::key_line(&d.scenario);
    assert!(
        key.contains("against the baseline H100 SXM: B200: 2.39× faster than H100 SXM"),
        "{key}"
    );
    // An embed's compact key line carries it too.
    let compact = view::key_line_with(&d.scenario, view::KeyLineDetail::Compact);
    assert!(
        compact.contains("B200: 2.39× faster than H100 SXM"),
        "{compact}"
    );
    // Without a baseline every row says none, and the key line says nothing of it.
    let mut s = d.scenario.clone();
    s.base = None;
    let rows = view::result_rows(&s);
    assert!(rows.iter().all(|r| cell(r, "vs_base").value == "none"));
    assert!(!view::key_line(&s).contains("baseline"));
}

/// A compute-bound matmul (B = D = F = 8192 bf16 on an H100: intensity ≈ 2730 FLOPs/byte,
/// far over the ridge 9.89e14 / 3.35e12 = 295): −1 to the peak, 0 to HBM.
#[test]
fn elasticities_of_a_compute_bound_matmul() {
    let d = roofline::url::decode("chip=h100&op=matmul:b=8192,d=8192,f=8192,w=bf16");
    let rows = view::result_rows(&d.scenario);
    assert_eq!(cell(&rows[0], "elasticity_peak").value, "-1");
    assert_eq!(cell(&rows[0], "elasticity_hbm").value, "0");
    assert_eq!(cell(&rows[0], "elasticity_link").value, "none");
    let p = view::explain_panel(&d.scenario, 0, 0).unwrap();
    assert_eq!(p.cheapest, "buy FLOPs, not HBM bandwidth");
    assert!(p
        .levers
        .iter()
        .any(|(_, _, w)| w == "+25 % of peak FLOP/s → −20 % time"));
}

/// The panel of the B200 row: its parts' shares add up to 100 %, and HBM bandwidth explains
/// all of the change.
#[test]
fn the_explanation_panel_of_the_issue_link() {
    let s = roofline::url::decode(BASE_LINK).scenario;
    let p = view::explain_panel(&s, 0, 1).unwrap();
    let a = p.against.unwrap();
    assert!(
        a.summary.starts_with("B200 against the baseline H100 SXM"),
        "{}",
        a.summary
    );
    assert_eq!(a.parts_total, "the parts' shares add up to 100 %");
    let total: f64 = a
        .parts
        .iter()
        .map(|l| l.share_value.parse::<f64>().unwrap())
        .sum();
    close(total, 1.0, 1e-12, "shares");
    assert_eq!(a.parts[0].name, "attention scores Q·Kᵀ ×32");
    assert_eq!(a.parts[0].base_binding, "memory (HBM)");
    assert_eq!(a.inputs.len(), 1);
    assert_eq!(
        a.inputs[0].2,
        "HBM bandwidth 3.35 TB/s → 8 TB/s explains 100 % of the change"
    );
    assert_eq!(p.cheapest, "buy HBM bandwidth, not FLOPs");
    // The baseline's own panel has no comparison, and says why.
    let p = view::explain_panel(&s, 0, 0).unwrap();
    assert_eq!(p.against.unwrap_err(), "this row is the baseline");
}

/// The results CSV and the JSON export carry the comparison.
#[test]
fn exports_carry_the_baseline() {
    let s = roofline::url::decode(BASE_LINK).scenario;
    let csv = view::results_csv(&s);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "operation,chip,t_lower (s),bound,vs_base,elasticity_peak,elasticity_hbm,elasticity_link,error");
    assert_eq!(lines.len(), 3);
    assert!(
        lines[1].contains(",H100 SXM,") && lines[1].contains(",memory,1,0,-1,none,"),
        "{}",
        lines[1]
    );
    assert!(
        lines[2].contains(",B200,") && lines[2].contains(",0.41875"),
        "{}",
        lines[2]
    );
    let json: serde_json::Value = serde_json::from_str(&view::scenario_json(&s)).unwrap();
    let c = &json["comparison"][0];
    assert_eq!((c["op"].as_u64(), c["chip"].as_u64()), (Some(0), Some(1)));
    let ratio = c["explanation"]["ratio"].as_f64().unwrap();
    close(ratio, 0.41875, 1e-12, "ratio");
    assert_eq!(c["explanation"]["inputs"]["shares"][0]["key"], "hbm");
    assert_eq!(
        json["results"][1]["elasticities"]["hbm"].as_f64(),
        Some(-1.0)
    );
    assert_eq!(json["scenario"]["base"]["chip"].as_u64(), Some(0));
}
