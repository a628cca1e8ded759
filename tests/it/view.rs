//! Native tests of the view layer: result rows (the test contract's figures), chart models,
//! exports and recipes, against hand calculations.
#![cfg(not(target_arch = "wasm32"))]

use roofline::scenario::Scenario;
use roofline_lab::view::{self, ChartModel, SweepMetric};

/// An Nsight Compute details page written like the RTX 5090 exports (CC 12.0, Device "0", no
/// device name): 17.5 MB read, 2.5 MB written, 100 µs, no FLOPs.
const NCU_CC12: &str = include_str!("../fixtures/ncu-details-cc12-no-device.csv");

fn value(row: &view::ResultRow, metric: &str) -> String {
    row.cells
        .iter()
        .find(|c| c.metric == metric)
        .unwrap_or_else(|| panic!("{metric} missing in {}", row.name))
        .value
        .clone()
}

fn exact_crossover(d: f64) -> f64 {
    // 2BDF/1.97e14 = (2BD + DF + 2BF)/8.2e11 solved for B (question 3, exact bytes).
    (d * d / 8.2e11) / (2.0 * d * d / 1.97e14 - 4.0 * d / 8.2e11)
}

#[test]
fn first_load_rows_carry_the_contract_metrics() {
    let s = Scenario::default();
    let rows = view::result_rows(&s);
    assert_eq!(rows.len(), 2);
    for (row, d) in rows.iter().zip([4096.0, 1024.0]) {
        for m in [
            "flops",
            "bytes",
            "intensity",
            "t_math",
            "t_comms",
            "t_lower",
            "t_upper",
            "bound",
            "achieved",
            "fraction",
            "ridge",
            "critical_b",
            "fits",
        ] {
            let _ = value(row, m);
        }
        let crit: f64 = value(row, "critical_b").parse().unwrap();
        assert!((crit / exact_crossover(d) - 1.0).abs() < 1e-12, "{crit}");
        // B = 1: FLOPs 2·1·D·D, bytes 2·D + D·D + 2·D.
        let flops: f64 = value(row, "flops").parse().unwrap();
        assert_eq!(flops, 2.0 * d * d);
        let bytes: f64 = value(row, "bytes").parse().unwrap();
        assert_eq!(bytes, 2.0 * d + d * d + 2.0 * d);
        assert_eq!(value(row, "bound"), "memory");
        assert_eq!(value(row, "fits"), "true");
    }
    assert_eq!(rows[0].op_key, "0");
    assert_eq!(rows[1].op_key, "1");
    assert!(
        rows[0].name.starts_with("matmul D=F=4096"),
        "{}",
        rows[0].name
    );
}

#[test]
fn first_load_sweep_chart_has_two_series_peak_and_exact_crossovers() {
    let m = view::sweep_chart(&Scenario::default(), SweepMetric::Achieved, false, false);
    assert_eq!(m.series.len(), 2);
    assert!(m.series.iter().all(|s| s.points.len() == 511));
    assert_eq!(m.hlines.len(), 1);
    assert_eq!(m.hlines[0].y, 1.97e14);
    let labels: Vec<&str> = m.crossovers.iter().map(|c| c.label.as_str()).collect();
    assert_eq!(labels, ["B = 136.1", "B = 226.3"]);
    assert!(
        m.vlines.iter().any(|v| v.label.starts_with("B > 120")),
        "{:?}",
        m.vlines
    );
    // Achieved at B = 64 for D = F = 4096: memory-bound, FLOPs / T_comms.
    let (b, d) = (64.0, 4096.0);
    let want = 2.0 * b * d * d / ((2.0 * b * d + d * d + 2.0 * b * d) / 8.2e11);
    let got = m.series[0].points.iter().find(|p| p.0 == b).unwrap().1;
    assert!((got / want - 1.0).abs() < 1e-12, "{got} vs {want}");
    let svg = ChartModel::Sweep(m).to_svg(false, 800, 450).unwrap();
    assert!(svg.contains("B = 136.1") && svg.contains("B = 226.3"));
}

#[test]
fn roofline_chart_has_ceiling_slope_ridge_and_points() {
    let s = roofline::url::decode("chip=tpu-v5e&chip=h100&op=matmul:b=64&plot=roofline").scenario;
    let m = view::roofline_chart(&s);
    assert_eq!(m.points.len(), 2);
    assert_eq!(m.ceilings.len(), 2);
    assert!(m.slopes.iter().any(|sl| sl.bytes_per_s == 8.2e11));
    let ridges: Vec<f64> = m.ridges.iter().map(|r| r.x).collect();
    assert!(
        (ridges[0] - 1.97e14 / 8.2e11).abs() < 1e-9 && (ridges[1] - 9.89e14 / 3.35e12).abs() < 1e-9
    );
}

#[test]
fn csv_has_a_row_per_point_and_units_in_the_header() {
    let csv = view::sweep_csv(&Scenario::default());
    let lines: Vec<&str> = csv.lines().collect();
    assert!(lines[0].contains("(FLOPs/s") && lines[0].contains("t_lower (s)"));
    assert_eq!(lines.len(), 1 + 2 * 511);
}

#[test]
fn iframe_snippet_escapes_its_attributes() {
    let html = view::iframe_html("https://x/?a=1&b=\"2\"", 640, 400, "<b>t</b>");
    assert!(html.contains("loading=\"lazy\"") && html.contains("width=\"640\""));
    assert!(html.contains("&amp;b=&quot;2&quot;") && html.contains("&lt;b&gt;"));
}

#[test]
fn every_recipe_loads_cleanly_and_answers_like_the_chapter() {
    for r in view::recipes() {
        let again = roofline::url::decode(&roofline::url::encode(&r.scenario));
        assert!(again.notices.is_empty(), "{}: {:?}", r.id, again.notices);
        assert_eq!(again.scenario, r.scenario, "{}", r.id);
        if r.id == "typical" {
            assert_eq!(r.scenario.ops.len(), 5);
        }
        let rows = view::result_rows(&r.scenario);
        assert!(
            rows.iter().all(|row| row.error.is_none()),
            "{}: {:?}",
            r.id,
            rows[0].error
        );
        let ours = (r.ours)(&r.scenario);
        eprintln!("{}: {ours}", r.id);
        let want = match r.id {
            "v5e-critical" => "240.2",
            "q1-int8" => "242.", // 3.94e14 / 8.1e11 / 2 = 243.2 (approximation B > 243)
            "q2-w8a16" => "120.1",
            "q3-plot" => "136.1",
            "q5-h100" => "295.2",
            "network" => "8756",
            "pcie" => "57500",
            "1e12" => "1.01 ms",
            "typical" => "dot product 0.5",
            "llama3-8b-decode" => "H100 SXM: 4.5",
            // sharding.md Pop Quiz 2: 3·8.4e6/4.5e10 = 560 µs (exactly 3/4·33,554,432 / 4.5e10).
            "allgather-pop-quiz" => "T = 559 µs (bandwidth-bound)",
            // sharding.md question 2: 4·1024·4096 / (16·9e10) = 11.65 µs, bandwidth-bound (3
            // hops of 1 µs are below it).
            "allreduce-question-2" => "T = 11.7 µs (bandwidth-bound)",
            // gpus.md: 536,870,912·(7/8)/450e9 = 1.04 ms, plus 7 hops of 0.6 µs are below it.
            "h100-node-allgather" => "T = 1.04 ms",
            // n > D·W/(2C) = 12.85: the exact crossover at 14 (an odd ring moves (n−1)/n).
            "sharded-matmul-chips" => "shards = 14",
            // training.md: C/W_ici = 4.59e14 / 1.8e11 = 2550 per chip on one axis; the model
            // solves 2492 (its AllGathers move (n−1)/n of the weights and pay latency).
            "fsdp-critical-batch" => "binds below 2492 tokens per chip",
            // F·W/C = 28672 · 1.8e11 / 4.59e14 = 11.24: 16-way is communication-bound.
            "tp-critical" => {
                "communication-bound at every batch: compute-bound only while Y < 11.24"
            }
            // transformers.md question 8: B > 120·E/k = 3840 with the ridge rounded to 240. By
            // hand (D = 7168, expert F = 2048, int8 weights, bf16 at 1.97e14 FLOP/s, 8.1e11 B/s):
            // weights alone, 6·D·F·8B / 1.97e14 = 3·256·D·F / 8.1e11 gives B = 3891; adding
            // every matrix's bf16 input and output per token-expert (55,296 B) gives 4592. The
            // exact count lies between: 4171.
            "moe-e-over-k" => "turn compute-bound at B = 4171 tokens",
            "44-days" => "44.68 days",
            "llama-max-batch" => "max B 42",
            // The book's "P = 3G" comes from its 910 ms prefill and 19 ms decode step at B = 43
            // "(let's call that 32)"; the bounds here at B = 32 give 2.38 : 1 (the core's unit
            // test checks the book's own figures give 3).
            "p-3g" => "prefill:decode 2.38 : 1",
            "speculative" => "TPOT spec",
            // The golden file's bound at 64 vLLM clients (TTFT 15.746 ms, TPOT 3.3959 ms); the
            // measured 194.9 ms and 12.73 ms lie inside vLLM's bands (docs/serving.md).
            "load-70b-h200" => "vLLM: TTFT 15.7 ms, expected TTFT ≈",
            _ => "",
        };
        if r.id == "q1-int8" {
            assert!(ours.contains("243"), "{}: {ours}", r.id);
        } else {
            assert!(
                ours.contains(want),
                "{}: {ours} should contain {want}",
                r.id
            );
        }
    }
}

#[test]
fn llm_rows_expand_into_parts_with_tokens_and_memory() {
    // Llama-3 8B decode at B = 1 on H100 in bf16 (see crates/roofline/tests/llm.rs for the
    // byte count by hand: about 15.3 GB read per step, so about 4.56 ms at 3.35e12 B/s).
    let s = roofline::url::decode("chip=h100&op=llm:preset=llama3-8b,b=1,ctx=2048&sweep=b:1..512")
        .scenario;
    let rows = view::result_rows(&s);
    assert_eq!(rows.len(), 1);
    let row = &rows[0];
    assert!(row.parts.len() >= 6, "{}", row.parts.len());
    assert!(row
        .parts
        .iter()
        .enumerate()
        .all(|(k, p)| p.op_key == format!("0.{k}")));
    let t: f64 = value(row, "t_lower").parse().unwrap();
    assert!((t - 4.56e-3).abs() < 0.05e-3, "step {t}");
    let tps: f64 = value(row, "tokens_per_s").parse().unwrap();
    assert!((tps - 1.0 / t).abs() < 1e-9 * tps);
    let binds = value(row, "parts_bound");
    assert!(
        binds.contains("MLP up=memory"),
        "at B = 1 every matmul is memory-bound: {binds}"
    );
    let mem: f64 = value(row, "memory").parse().unwrap();
    assert!(mem > 15e9 && mem < 17.5e9, "{mem}");
    let chart = view::sweep_chart(&s, SweepMetric::Fraction, false, false);
    assert!(chart.series.len() > 2, "parts should get their own curves");
    let tokens = view::sweep_chart(&s, SweepMetric::TokensPerS, false, false);
    assert_eq!(tokens.series.len(), 1);
}

/// The JSON export as `serde_json` wrote it before the page got its own writer (`src/json.rs`):
/// the reference the export must keep matching, value for value (the text differs: keys now
/// come in declaration order, and small numbers read `2.048e-5`, not `0.00002048`).
fn serde_json_export(s: &Scenario) -> String {
    let results: Vec<serde_json::Value> = s
        .ops
        .iter()
        .enumerate()
        .flat_map(|(i, op)| {
            s.chips.iter().enumerate().map(move |(j, chip)| {
                let r = roofline::analysis::analyze(op, chip, &s.options);
                serde_json::json!({
                    "op": i,
                    "chip": j,
                    "analysis": r.as_ref().ok(),
                    "elasticities": r.as_ref().ok().map(|a| roofline::compare::elasticities(a, chip, &s.options)),
                    "error": r.as_ref().err().map(|e| e.to_string()),
                })
            })
        })
        .collect();
    let mut doc = serde_json::json!({
        "generator": "Roofline Lab",
        "url_query": roofline::url::encode(s),
        "scenario": s,
        "results": results,
    });
    if let Some(c) = view::export::comparison(s) {
        doc["comparison"] = serde_json::to_value(c).unwrap();
    }
    serde_json::to_string_pretty(&doc).unwrap()
}

#[test]
fn json_export_matches_serde_json() {
    let golden = include_str!("../../crates/roofline/tests/golden_urls.txt");
    let mut scenarios: Vec<Scenario> = golden
        .lines()
        .filter(|l| l.starts_with('?'))
        .map(|l| roofline::url::decode(l.split('\t').next().unwrap()).scenario)
        .collect();
    scenarios.extend(view::recipes().into_iter().map(|r| r.scenario));
    scenarios.push(Scenario::default());
    // Text that needs escaping, an analysis error, no ops, 1 FLOP per MAC, a theme.
    for q in [
        "chip=custom:name=a%22b%5Cc%09d%01%E2%9C%93&op=matmul:label=%22q%22%0A,x=int4&theme=dark",
        "chip=tpu-v5e:int8=none&op=matmul:x=int8,w=int8&flops=1mac&derate=0.95",
        "chip=h100&chip=tpu-v5e&op=llm:preset=llama3-8b,b=16,ctx=4096,tp=2&op=model&embed=1",
        "chip=a100",
        "chip=h100&chip=b200&op=llm:preset=llama3-8b,b=64,ctx=4096&base=1.1",
        "op=custom:flops=1e300,bytes=1e-300&sweep=b:1..100000:log:n=7&plot=both",
    ] {
        scenarios.push(roofline::url::decode(q).scenario);
    }
    assert!(scenarios.len() > 40);
    for s in &scenarios {
        let ours = view::scenario_json(s);
        let reference = serde_json_export(s);
        let a: serde_json::Value = serde_json::from_str(&ours).expect("valid JSON");
        let b: serde_json::Value = serde_json::from_str(&reference).unwrap();
        assert_eq!(a, b, "{}", roofline::url::encode(s));
    }
}

/// The form offers exactly the core's operation kinds, in the kind table's order, each with
/// the table's label, and every offered kind makes a default operation.
#[test]
fn form_kinds_are_the_cores_kind_table() {
    let ids: Vec<&str> = view::OP_KINDS.iter().map(|(id, _)| *id).collect();
    assert_eq!(ids, roofline::OpKind::IDS.to_vec());
    for ((id, label), k) in view::OP_KINDS.iter().zip(roofline::OpKind::KINDS) {
        assert_eq!((*id, *label), (k.id, k.label));
        assert!(!k.family.is_empty(), "{id}");
        assert_eq!(roofline::Op::default_for(id).unwrap().kind_id(), *id);
    }
    assert_eq!(
        view::OP_KINDS[0].0,
        "matmul",
        "the default kind comes first"
    );
}

#[test]
fn row_cache_hands_back_unchanged_rows_and_recomputes_edited_ones() {
    use std::sync::Arc;
    // The first load: D = F = 4096 and D = F = 1024 on one TPU v5e.
    let mut s = Scenario::default();
    let mut cache = view::RowCache::default();
    let mut store = roofline::results::Results::of(&s);
    let first = view::result_rows_cached(&s, &store, &mut cache);
    let again = view::result_rows_cached(&s, &store, &mut cache);
    assert_eq!(first.len(), 2);
    assert!(first.iter().zip(&again).all(|(a, b)| Arc::ptr_eq(a, b)));

    // An edit of the second operation rebuilds its row only, with the new figures:
    // B = 1024 (the default batch), D = F = 2048 → 2·B·D·F = 2·1024·2048·2048 = 8.589934592e9.
    s.ops[1].set("d", "2048").unwrap();
    s.ops[1].set("f", "2048").unwrap();
    store.update(&s);
    let edited = view::result_rows_cached(&s, &store, &mut cache);
    assert!(Arc::ptr_eq(&first[0], &edited[0]));
    assert!(!Arc::ptr_eq(&first[1], &edited[1]));
    let b = s.ops[1].get_num("b").unwrap();
    assert_eq!(
        value(&edited[1], "flops").parse::<f64>().unwrap(),
        2.0 * b * 2048.0 * 2048.0
    );
    assert_eq!(*edited[1], view::result_rows(&s)[1]);

    // The options belong to every row: a derate rebuilds them all.
    s.options.derate = 0.5;
    store.update(&s);
    let derated = view::result_rows_cached(&s, &store, &mut cache);
    assert!(derated.iter().zip(&edited).all(|(a, b)| !Arc::ptr_eq(a, b)));
}

#[test]
fn pair_cache_recomputes_only_what_changed_and_forgets_what_is_gone() {
    let mut s = Scenario::default();
    let mut cache: view::PairCache<u32, usize> = view::PairCache::default();
    // One pass: the value of each (op, chip) pair, counting the computations.
    let pass = |s: &Scenario, extra: u32, cache: &mut view::PairCache<u32, usize>| {
        let mut computed = 0;
        let mut pass = cache.pass();
        for i in 0..s.ops.len() {
            for j in 0..s.chips.len() {
                pass.get(s, i, j, &extra, || {
                    computed += 1;
                    10 * i + j
                });
            }
        }
        computed
    };
    assert_eq!(pass(&s, 0, &mut cache), 2);
    assert_eq!(pass(&s, 0, &mut cache), 0);
    s.ops[0].set("b", "8").unwrap();
    assert_eq!(pass(&s, 0, &mut cache), 1);
    // The extra input (the sweep, for the sweep chart) belongs to every pair.
    assert_eq!(pass(&s, 1, &mut cache), 2);
    // A pass without the second operation forgets it: bringing it back recomputes it.
    let second = s.ops.pop().unwrap();
    assert_eq!(pass(&s, 1, &mut cache), 0);
    s.ops.push(second);
    assert_eq!(pass(&s, 1, &mut cache), 1);
}

/// A collective's row carries `latency_bound` beside the contract's `t_comms`, and swept over
/// its array size on log-log time axes the plot marks the knee where the per-hop latency and
/// the bandwidth term are equal. sharding.md, Pop Quiz 2: an AllGather over an axis of 4 TPU
/// v5e without wraparound takes 3 hops of V/4 at 4.5e10 bytes/s, at least 3 × 1 µs: equal at
/// V = 4·4.5e10·1e-6 = 180 kB; 33,554,432 bytes take 559.2 µs, 131,072 bytes 3 µs.
#[test]
fn collective_rows_and_the_time_against_size_plot() {
    let s = roofline::url::decode(
        "?chip=tpu-v5e&chip=h100&op=collective:bytes=33554432,n=4,topology=line&op=collective:bytes=131072,n=4,topology=line&sweep=bytes:1..1e10:log&y=time&log=xy",
    )
    .scenario;
    let rows = view::result_rows(&s);
    assert_eq!(rows.len(), 4);
    let v5e = |op: usize| {
        rows.iter()
            .find(|r| r.op_key == op.to_string() && r.chip == 0)
            .unwrap()
    };
    let t: f64 = value(v5e(0), "t_comms").parse().unwrap();
    assert!((t - 3.0 * 33554432.0 / 4.0 / 4.5e10).abs() < 1e-15, "{t}");
    assert_eq!(value(v5e(0), "latency_bound"), "false");
    assert_eq!(value(v5e(1), "latency_bound"), "true");
    assert_eq!(value(v5e(1), "t_comms"), "3e-6");
    let m = view::sweep_chart(&s, SweepMetric::Time, true, true);
    assert_eq!(m.series.len(), 4, "one curve per (operation, chip)");
    let knee = m
        .vlines
        .iter()
        .find(|v| v.label.starts_with("TPU v5e: latency-bound below"))
        .unwrap_or_else(|| panic!("{:?}", m.vlines));
    assert!((knee.x - 180e3).abs() < 1e-6, "{knee:?}");
    // The H100 line of 4 at its peer bandwidth 4.5e11 and 0.6 µs per hop: 3 hops, knee at
    // 4·4.5e11·0.6e-6 = 1.08 MB.
    let h100 = m
        .vlines
        .iter()
        .find(|v| v.label.starts_with("H100"))
        .unwrap();
    assert!((h100.x - 1.08e6).abs() < 1e-3, "{h100:?}");
    // Flat below the knee, linear above it.
    let first = &m.series[0].points;
    assert!((first[0].1 - 3e-6).abs() < 1e-18, "{:?}", first[0]);
    let (x, y) = *first.last().unwrap();
    assert!((y - 3.0 * x / 4.0 / 4.5e10).abs() < 1e-12 * y);
    // Exports: the JSON carries the collective's terms.
    let json = view::scenario_json(&s);
    assert!(json.contains("\"latency_bound\": true"), "{json}");
}

/// A measured profile against the first chip (H100 SXM, bf16 989 TFLOP/s, HBM 3.35 TB/s:
/// ridge 295.2 FLOPs/byte), by hand:
/// * `gemm_a`: 1e12 FLOPs, 1e9 bytes, 2 ms → intensity 1000 (compute-bound), lower bound
///   1e12/9.89e14 = 1.0111 ms, time lost 0.9889 ms, achieved 5e14, roof 9.89e14, 50.56%;
/// * `add_b`: 1e8 FLOPs, 1e9 bytes, 1 ms → intensity 0.1 (memory-bound), lower bound
///   1e9/3.35e12 = 0.2985 ms, time lost 0.7015 ms, achieved 1e11, roof 3.35e11, 29.85%;
/// * `layer_norm_c`: 1e6 FLOPs and bytes, 10 µs → lower bound 0.2985 µs, lost 9.70 µs.
#[test]
fn measured_rows_groups_fit_and_markers() {
    use roofline_lab::view::measured::{
        add_measured, fit_summary, measured_groups, measured_roofline, measured_rows,
    };
    let csv = "name,flops,bytes,time\ngemm_a,1e12,1e9,2ms\nadd_b,1e8,1e9,1ms\nlayer_norm_c,1e6,1e6,10us\n";
    let p = roofline::profile::import(csv.as_bytes()).unwrap();
    let s = roofline::url::decode("?chip=h100&op=matmul:b=512,d=8192,f=8192").scenario;
    let (roof, caption) = measured_roofline(&s).unwrap();
    assert!(caption.contains("H100"), "{caption}");
    let rows = measured_rows(&p.kernels, &roof);
    let names: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["gemm_a", "add_b", "layer_norm_c"]);
    assert_eq!(rows[0].index, 0);
    let close = |a: f64, b: f64| assert!((a - b).abs() <= 1e-12 * b.abs(), "{a} vs {b}");
    close(rows[0].time_lost.unwrap(), 2e-3 - 1e12 / 9.89e14);
    close(rows[0].achieved.unwrap(), 5e14);
    close(rows[0].roof.unwrap(), 9.89e14);
    close(rows[0].roof_fraction.unwrap(), 5e14 / 9.89e14);
    assert_eq!(rows[0].bound, Some("compute"));
    close(rows[1].intensity.unwrap(), 0.1);
    close(rows[1].roof.unwrap(), 0.1 * 3.35e12);
    close(rows[1].time_lost.unwrap(), 1e-3 - 1e9 / 3.35e12);
    assert_eq!(rows[1].bound, Some("memory"));
    close(rows[2].time_lost.unwrap(), 10e-6 - 1e6 / 3.35e12);
    let cells = rows[1].cells();
    let metrics: Vec<&str> = cells.iter().map(|c| c.0).collect();
    assert_eq!(
        metrics,
        [
            "time",
            "flops",
            "bytes",
            "intensity",
            "achieved",
            "roof",
            "roof_fraction",
            "bound",
            "time_lost",
            "expected"
        ]
    );
    assert_eq!(cells[0].1, "1e-3");
    assert_eq!(cells[7].1, "memory");

    // Groups: gemm_a is GEMM, layer_norm_c a norm; add_b elsewhere. Totals add up.
    let groups = measured_groups(&p.kernels, &roof);
    let total: f64 = groups.iter().map(|g| g.time).sum();
    close(total, 2e-3 + 1e-3 + 10e-6);
    assert!(groups
        .iter()
        .any(|g| g.records == 1 && (g.time - 2e-3).abs() < 1e-15));

    // The fit: three kernels with FLOPs, bytes and a time give it three equations for c, m, o;
    // the summary names them as cal= writes them.
    let f = roofline::profile::fit(&p.kernels, &roof).unwrap();
    let lines = fit_summary(&f).join("\n");
    assert!(
        lines.contains(&format!("cal={}", f.calibration.format())),
        "{lines}"
    );
    assert!(lines.contains("RMS error of log time"), "{lines}");
    assert!(lines.contains("Uncertainty (one standard error"), "{lines}");
    assert!(f.rms_after <= f.rms_before + 1e-12);

    // Markers: one per placed kernel, each joined to the roof at its intensity.
    let mut chart = roofline_lab::view::roofline_chart(&s);
    add_measured(&mut chart, &rows, 2);
    assert_eq!(chart.measured.len(), 2);
    assert_eq!(chart.measured[0].label, "gemm_a");
    close(chart.measured[0].x, 1000.0);
    close(chart.measured[0].y, 5e14);
    close(chart.measured[0].predicted_y, 9.89e14);
    // Drawn: the SVG of the chart with markers differs from the one without.
    let plain = roofline_lab::view::roofline_chart(&s);
    let theme = roofline_lab::charts::ChartTheme::light();
    let svg = |m: &roofline_lab::charts::RooflineChart| {
        roofline_lab::charts::render_svg_with::<roofline_lab::charts::NoBackend, _>(
            800,
            500,
            &theme,
            |root, t| roofline_lab::charts::roofline_chart::draw(root, m, t),
        )
        .unwrap()
        .0
    };
    let (a, b) = (svg(&plain), svg(&chart));
    assert_ne!(a, b);
}

/// The profile panel's table: rows, groups and the count of kernels that cannot be placed, and
/// a group's `data-metric` cells. By hand, on the H100 (9.89e14 FLOP/s, 3.35e12 bytes/s):
/// `gemm_a` (1e12 FLOPs, 1e9 bytes, 2 ms) has lower bound 1e12/9.89e14 = 1.0111 ms; a second
/// launch of it (1 ms) gives its group 2 launches, 3 ms, 2e12 FLOPs, 2e9 bytes, achieved
/// 2e12/3e-3 = 6.667e14, and 2·1.0111 / 3 = 67.41% of the roof; `mystery` has no FLOPs.
#[test]
fn measured_table_and_group_cells() {
    use roofline_lab::view::measured::{group_cells, measured_roofline, measured_table};
    let csv = "name,flops,bytes,time\ngemm_a,1e12,1e9,2ms\ngemm_a,1e12,1e9,1ms\nmystery,,1e6,5us\n";
    let p = roofline::profile::import(csv.as_bytes()).unwrap();
    let s = roofline::url::decode("?chip=h100").scenario;
    let (roof, caption) = measured_roofline(&s).unwrap();
    let t = measured_table(roof, caption.clone(), &p);
    assert_eq!(t.caption, caption);
    assert_eq!(t.rows.len(), 3);
    assert_eq!(t.unplaced, 1);
    // Placed first (biggest time lost), the unplaced one last.
    assert_eq!(t.rows[2].name, "mystery");
    assert_eq!(t.rows[0].index, 0);
    let gemm = t.groups.iter().find(|g| g.launches == 2).unwrap();
    let cells = group_cells(gemm);
    let get = |m: &str| -> f64 { cells.iter().find(|c| c.0 == m).unwrap().1.parse().unwrap() };
    let close = |a: f64, b: f64| assert!((a - b).abs() <= 1e-12 * b.abs(), "{a} vs {b}");
    assert_eq!(cells[0], ("records", "2".to_string(), "2".to_string()));
    close(get("time"), 3e-3);
    close(get("flops"), 2e12);
    close(get("bytes"), 2e9);
    close(get("achieved"), 2e12 / 3e-3);
    close(get("roof_fraction"), 2.0 * 1e12 / 9.89e14 / 3e-3);
    close(get("time_lost"), 3e-3 - 2.0 * 1e12 / 9.89e14);
    assert!(
        cells
            .iter()
            .any(|c| c.0 == "roof_fraction" && c.2 == "67.4%"),
        "{cells:?}"
    );
}

/// A kernel measured above its roof is a diagnostic, not a silent marker (issue 23). By hand on
/// the H100's bf16 roof (9.89e14 FLOP/s): `fp8_gemm` does 1e12 FLOPs over 1e6 bytes in 0.5 ms,
/// 2e15 FLOP/s, 2e15 / 9.89e14 = 2.022× its roof (an fp8 kernel placed on the bf16 roof, or a
/// sparse count); `gemm_ok` (1e12 FLOPs in 2 ms, 5e14) sits at 50.6 %: one kernel above.
#[test]
fn a_kernel_above_its_roof_is_said_with_where_to_look() {
    use roofline_lab::view::measured::{measured_roofline, measured_table};
    let csv = "name,flops,bytes,time\nfp8_gemm,1e12,1e6,0.5ms\ngemm_ok,1e12,1e9,2ms\n";
    let p = roofline::profile::import(csv.as_bytes()).unwrap();
    let s = roofline::url::decode("?chip=h100").scenario;
    let (roof, caption) = measured_roofline(&s).unwrap();
    let t = measured_table(roof, caption, &p);
    let a = t.above_roof.as_ref().expect("a kernel above its roof");
    assert_eq!(a.count, 1);
    assert!((a.worst - 2e15 / 9.89e14).abs() < 1e-9, "{}", a.worst);
    let m = a.message();
    assert!(
        m.starts_with("1 kernel runs faster than this roofline allows (up to 2.02× its roof)"),
        "{m}"
    );
    for cause in ["sparse", "dtype", "convention", "another chip"] {
        assert!(m.contains(cause), "{cause}: {m}");
    }
    let above: Vec<_> = t
        .rows
        .iter()
        .filter(|r| r.above_roof())
        .map(|r| r.name.as_str())
        .collect();
    assert_eq!(above, ["fp8_gemm"]);
    let cell = t
        .rows
        .iter()
        .find(|r| r.name == "fp8_gemm")
        .unwrap()
        .cells();
    assert!(
        cell.iter()
            .any(|c| c.0 == "roof_fraction" && c.2 == "202.2% ⚠ above roof"),
        "{cell:?}"
    );
    // Every kernel under its roof: no diagnostic.
    let ok = roofline::profile::import("name,flops,bytes,time\ngemm_ok,1e12,1e9,2ms\n".as_bytes())
        .unwrap();
    let (roof, caption) = measured_roofline(&s).unwrap();
    assert_eq!(measured_table(roof, caption, &ok).above_roof, None);
}

/// A profile of a Llama 3 8B decode step against the `llm` op's parts, by kind of work. Two
/// steps profiled (measured times halved), by hand: GEMM 2 ms + 1 ms = 3 ms → 1.5 ms per
/// step; attention (flash 0.4 ms + softmax 0.2 ms) → 0.3 ms; norm 0.1 ms → 0.05 ms; NCCL
/// 0.06 ms → 0.03 ms (communication: nothing predicted at tp = 1); elementwise 0.08 ms →
/// `other` 0.04 ms. The predicted times of the rows add up to the step's `T_lower`.
#[test]
fn llm_parts_matched_to_kernels_by_kind_of_work() {
    use roofline_lab::view::measured_parts::{match_llm_parts, part_category};
    let csv = "name,flops,bytes,time\n\
        sm90_xmma_gemm_bf16,1e12,1e9,2ms\n\
        cutlass_gemm_small,1e11,1e9,1ms\n\
        flash_fwd_kernel,1e10,1e8,0.4ms\n\
        softmax_warp_forward,1e6,1e8,0.2ms\n\
        rms_norm_kernel,1e6,1e8,0.1ms\n\
        ncclKernel_AllReduce_RING,0,1e8,0.06ms\n\
        vectorized_elementwise_kernel,1e6,1e8,0.08ms\n";
    let p = roofline::profile::import(csv.as_bytes()).unwrap();
    let s = roofline::url::decode("?chip=h100&op=llm:preset=llama3-8b,b=1,ctx=2048").scenario;
    let (roof, _) = roofline_lab::view::measured_roofline(&s).unwrap();
    let m = match_llm_parts(&s, &p, &roof, 2.0).unwrap().unwrap();
    let (name, step, rows) = (m.name, m.step, m.rows);
    assert!(name.to_lowercase().contains("llama"), "{name}");
    let w = roofline::workload::analyze_workload(&s.ops[0], &s.chips[0], &s.options)
        .unwrap()
        .unwrap();
    let close = |a: f64, b: f64| assert!((a - b).abs() <= 1e-12 * b.abs(), "{a} vs {b}");
    close(step, w.t_lower);
    close(rows.iter().map(|r| r.predicted).sum::<f64>(), w.t_lower);
    let get = |c: &str| rows.iter().find(|r| r.category == c).unwrap();
    close(get("gemm").measured, 1.5e-3);
    assert_eq!(get("gemm").records, 2);
    close(get("attention").measured, 0.3e-3);
    close(get("norm").measured, 0.05e-3);
    close(get("communication").measured, 0.03e-3);
    assert_eq!(get("communication").predicted, 0.0);
    assert_eq!(get("communication").ratio(), None);
    close(get("other").measured, 0.04e-3);
    let gemm_parts = &get("gemm").parts;
    assert!(gemm_parts.iter().any(|n| n == "MLP up"), "{gemm_parts:?}");
    assert!(get("norm").parts.iter().any(|n| n == "attention norm"));
    assert!(get("attention")
        .parts
        .iter()
        .all(|n| n.contains("attention")));
    assert!(get("gemm").predicted > 0.0 && get("attention").predicted > 0.0);
    close(get("gemm").ratio().unwrap(), 1.5e-3 / get("gemm").predicted);
    // The kind of work set where each part is built decides, never the part's name.
    use roofline::op::PartKind;
    assert_eq!(part_category(PartKind::Norm), "norm");
    assert_eq!(part_category(PartKind::WeightMatmul), "gemm");
    assert_eq!(part_category(PartKind::Elementwise), "other");
    assert_eq!(part_category(PartKind::Communication), "communication");
    // No llm op: nothing; a bad step count: a message.
    let plain = roofline::url::decode("?chip=h100").scenario;
    assert!(match_llm_parts(&plain, &p, &roof, 1.0).is_none());
    assert!(match_llm_parts(&s, &p, &roof, 0.0).unwrap().is_err());
}

/// Issue 38, point 8: a profile is compared with the model step only when it may be that step.
/// Llama-3 8B decode at B = 1 on an H100 reads its ≈ 15 GB of weights at 3.35 TB/s: a step of
/// ≈ 4.5 ms at least. Five GEMMs of a recommender's trace (0.08 ms each, 0.4 ms in all) take
/// ×0.09 of that bound (the TorchRec trace): no run of this step is that fast, and the
/// panel says the profile may not be this model. The same step measured at 1.3 × its bound in
/// every kind of work (its own mix) is compared.
#[test]
fn a_profile_is_compared_with_the_step_only_when_it_may_be_that_step() {
    use roofline_lab::view::measured_parts::match_llm_parts;
    let s = roofline::url::decode("?chip=h100&op=llm:preset=llama3-8b,b=1,ctx=2048").scenario;
    let (roof, _) = roofline_lab::view::measured_roofline(&s).unwrap();
    let w = roofline::workload::analyze_workload(&s.ops[0], &s.chips[0], &s.options)
        .unwrap()
        .unwrap();
    assert!(w.t_lower > 4.4e-3 && w.t_lower < 5.0e-3, "{}", w.t_lower);
    let rec = "name,flops,bytes,time\n\
        volta_sgemm_128x64_nn,4e9,2e7,0.08ms\n\
        volta_sgemm_128x64_nt,4e9,2e7,0.08ms\n\
        ampere_sgemm_64x32_tn,4e9,2e7,0.08ms\n\
        volta_sgemm_32x128_nn,4e9,2e7,0.08ms\n\
        ampere_sgemm_128x32_nn,4e9,2e7,0.08ms\n";
    let p = roofline::profile::import(rec.as_bytes()).unwrap();
    let m = match_llm_parts(&s, &p, &roof, 1.0).unwrap().unwrap();
    let r = &m.resemblance;
    let ratio = r.ratio.unwrap();
    assert!((ratio - 0.4e-3 / w.t_lower).abs() < 1e-9, "{ratio}");
    assert!(ratio < 0.1, "{ratio}: far below the rule's minimum");
    assert!(!r.resembles());
    let msg = r.message(&m.name).unwrap();
    assert!(msg.starts_with("This profile may not be "), "{msg}");
    assert!(msg.contains(&format!("×{ratio:.2}")), "{msg}");
    // The step's own mix, 1.3 × its bound in each kind of work: compared.
    let by = |c: &str| {
        m.rows
            .iter()
            .find(|r| r.category == c)
            .map_or(0.0, |r| r.predicted)
    };
    let own = format!(
        "name,flops,bytes,time\nsm90_gemm,1e12,1e9,{}\nflash_fwd_kernel,1e9,1e8,{}\nrms_norm_kernel,1e6,1e7,{}\nembedding_gather,1e3,1e6,{}\n",
        1.3 * by("gemm"),
        1.3 * by("attention"),
        1.3 * by("norm"),
        1.3 * by("other"),
    );
    let p = roofline::profile::import(own.as_bytes()).unwrap();
    let m = match_llm_parts(&s, &p, &roof, 1.0).unwrap().unwrap();
    let r = &m.resemblance;
    assert!((r.ratio.unwrap() - 1.3).abs() < 1e-9, "{r:?}");
    assert!((r.overlap - 1.0).abs() < 1e-9, "{r:?}");
    assert!(r.resembles() && r.message(&m.name).is_none(), "{r:?}");
}

/// The key line from one store kept between edits: an edit of one operation gives the line a
/// fresh computation gives, and words of the operations it did not touch stay as they were.
#[test]
fn the_key_line_from_the_store_follows_each_edit() {
    let mut s = Scenario::default();
    let mut store = roofline::results::Results::new();
    let mut key = |s: &Scenario, detail| {
        store.update(s);
        view::key_line_of(s, &store, detail)
    };
    let full = view::KeyLineDetail::Full;
    let first = key(&s, full);
    assert_eq!(first, view::key_line(&s));
    // Question 3's D = F = 4096 bf16 × int8 on the v5e: compute-bound above the exact B
    // solved by hand in `exact_crossover` (240.9…), the rule of thumb's 240 beside it.
    assert!(
        first.contains(&format!(
            "B > {}",
            roofline::units::format_sig(exact_crossover(4096.0), 4)
        )),
        "{first}"
    );
    // The second matmul's D = F = 1024 → 2048: its words change, the first's stay.
    s.ops[1].set("d", "2048").unwrap();
    s.ops[1].set("f", "2048").unwrap();
    let second = key(&s, full);
    assert_eq!(second, view::key_line(&s));
    assert_ne!(second, first);
    let head = |l: &str| l.split("; ").next().unwrap().to_string();
    assert_eq!(head(&second), head(&first));
    // And back: the words computed for 1024 again, not left over from 2048.
    s.ops[1].set("d", "1024").unwrap();
    s.ops[1].set("f", "1024").unwrap();
    assert_eq!(key(&s, full), first);
    // The compact detail: the embed's words are not the page's.
    let compact = key(&s, view::KeyLineDetail::Compact);
    assert_eq!(
        compact,
        view::key_line_with(&s, view::KeyLineDetail::Compact)
    );
    assert_ne!(compact, first);
}

/// The roofline plot from one store kept between edits: after each edit it is the plot a fresh
/// computation gives, with the edited operation's point moved and the others where they were.
#[test]
fn the_roofline_chart_from_the_store_follows_each_edit() {
    let mut s = Scenario::default();
    s.chips.push(roofline::preset("h100").unwrap());
    let mut store = roofline::results::Results::new();
    let mut chart = |s: &Scenario| {
        store.update(s);
        view::roofline_chart_of(s, &store)
    };
    let first = chart(&s);
    assert_eq!(first, view::roofline_chart(&s));
    assert_eq!(first.points.len(), 4);
    // D = F = 1024 → 2048 for the second matmul: its intensity 2BDF / (2BD + DF + 2BF) (bf16
    // × int8 bytes) grows with D = F, so its two points (odd series) move; the first op's stay.
    s.ops[1].set("d", "2048").unwrap();
    s.ops[1].set("f", "2048").unwrap();
    let second = chart(&s);
    assert_eq!(second, view::roofline_chart(&s));
    for (a, b) in first.points.iter().zip(&second.points) {
        let moved = a.series_idx % 2 == 1;
        assert_eq!(a.x != b.x, moved, "{a:?} → {b:?}");
    }
    // A chip edit moves every point on that chip: the H100's HBM bandwidth halved.
    let bw = s.chips[1].hbm;
    s.chips[1].hbm = bw / 2.0;
    let third = chart(&s);
    assert_eq!(third, view::roofline_chart(&s));
    assert_ne!(third, second);
}

/// The profile panel offers the preset an export was recorded on (issue 23): by the device it
/// names, else by its compute capability (an Nsight Compute details page that names no device,
/// as the RTX 5090 exports do: CC 12.0 is the RTX 5090 or the RTX PRO 6000 Blackwell); nothing
/// when chip 1 already is one of them, or the export says nothing.
#[test]
fn the_profile_panel_offers_the_chip_the_export_names() {
    use roofline_lab::view::measured::chip_offer;
    let h100 = roofline::chip::preset("h100").unwrap();
    let named = roofline::profile::import(
        "name,flops,bytes,time,device\ngemm,1e12,1e9,2ms,NVIDIA GeForce RTX 5090\n".as_bytes(),
    )
    .unwrap();
    let offer = chip_offer(&named, Some(&h100)).unwrap();
    assert_eq!(offer.ids, ["rtx-5090"]);
    assert_eq!(offer.reason, "the export names NVIDIA GeForce RTX 5090");
    let r5090 = roofline::chip::preset("rtx-5090").unwrap();
    assert_eq!(chip_offer(&named, Some(&r5090)), None);
    // A details page in ncu's layout (one row per metric), CC 12.0 and Device "0" only.
    let csv = NCU_CC12;
    let p = roofline::profile::import(csv.as_bytes()).unwrap();
    assert_eq!(p.device, None);
    assert_eq!(p.compute_capability.as_deref(), Some("12.0"));
    let offer = chip_offer(&p, Some(&h100)).unwrap();
    assert_eq!(offer.ids, ["rtx-5090", "rtx-pro-6000"]);
    assert!(
        offer.reason.contains("compute capability 12.0"),
        "{}",
        offer.reason
    );
    assert_eq!(chip_offer(&p, Some(&r5090)), None);
    let plain =
        roofline::profile::import("name,flops,bytes,time\ngemm,1e12,1e9,2ms\n".as_bytes()).unwrap();
    assert_eq!(chip_offer(&plain, Some(&h100)), None);
}

/// An RTX 5090 Nsight Compute export (this project's fixture in the details format of the real
/// exports, `crates/roofline/tests/fixtures/profiles/ncu-details-rtx5090.csv`: a CUTLASS bf16
/// GEMM and an fp32 scale, CC 12.0) is offered the RTX 5090 and placed on its roofline: the
/// GEMM's 1.374e11 FLOP in 900 µs (153 TFLOP/s) below the RTX 5090's dense bf16 peak with FP32
/// accumulate (210 TFLOP/s), no kernel above its roof.
#[test]
fn an_rtx_5090_export_places_on_the_rtx_5090() {
    let bytes = include_bytes!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/crates/roofline/tests/fixtures/profiles/ncu-details-rtx5090.csv"
    ));
    let p = roofline::profile::import(bytes).unwrap();
    let h100 = roofline::chip::preset("h100").unwrap();
    let offer = roofline_lab::view::measured::chip_offer(&p, Some(&h100)).unwrap();
    assert_eq!(offer.ids[0], "rtx-5090");
    let s = roofline::url::decode("?chip=rtx-5090").scenario;
    let (roof, caption) = roofline_lab::view::measured_roofline(&s).unwrap();
    assert!(caption.contains("RTX 5090"), "{caption}");
    let t = roofline_lab::view::measured_table(roof, caption, &p);
    assert_eq!(
        t.rows.iter().filter(|r| r.roof.is_some()).count(),
        2,
        "{:?}",
        t.rows
    );
    assert_eq!(t.above_roof, None, "{:?}", t.rows);
}

/// Every result row says what to expect (issue 25): `t_expected` with its p10–p90 band where the
/// validation set has evidence for the op's kind of work on the chip's generation, the bare bound
/// times the fitted ratio; a user's derate or calibration does not move it; where there is no
/// evidence, `none` with the reason.
#[test]
fn result_rows_carry_the_expected_time_or_why_not() {
    let rows = |q: &str| view::result_rows(&roofline::url::decode(q).scenario);
    let get =
        |r: &view::ResultRow, m: &str| r.cells.iter().find(|c| c.metric == m).cloned().unwrap();
    let q = "?chip=h100&op=matmul:b=8192,d=8192,f=8192,x=fp8,w=fp8,out=bf16";
    let r = &rows(q)[0];
    let t_lower: f64 = get(r, "t_lower").value.parse().unwrap();
    let s = roofline::url::decode(q).scenario;
    let a = roofline::analysis::analyze(&s.ops[0], &s.chips[0], &s.options).unwrap();
    let e = roofline::validation::expectation_for(&s.ops[0], &s.chips[0], &a).unwrap();
    let t: f64 = get(r, "t_expected").value.parse().unwrap();
    assert_eq!(t, e.t);
    assert_eq!(t, t_lower * e.r);
    // An 8192³ fp8 GEMM is compute-bound: r is the fitted compute coefficient plus one launch's
    // fitted overhead over the bound (a kernel), and the title writes the sum out.
    let coef = |term| e.model.coef(term).unwrap_or(0.0);
    use roofline::validation::Term;
    let want = (coef(Term::Compute) + coef(Term::Launch) * 1e-6 / t_lower)
        * e.family_factor.unwrap_or(1.0)
        * e.bias;
    assert!((e.r - want).abs() < 1e-12 * want, "{} against {want}", e.r);
    assert!(
        get(r, "t_expected").title.contains("× 1 compute"),
        "{}",
        get(r, "t_expected").title
    );
    let (lo, hi): (f64, f64) = (
        get(r, "t_expected_lo").value.parse().unwrap(),
        get(r, "t_expected_hi").value.parse().unwrap(),
    );
    assert!(lo <= t && t <= hi, "{lo} {t} {hi}");
    assert!(get(r, "t_expected").title.contains(&format!(
        "validation set {}",
        roofline::validation::SET_VERSION
    )));
    // The column follows T_upper.
    let order: Vec<&str> = r.cells.iter().map(|c| c.metric).collect();
    let at = order.iter().position(|m| *m == "t_upper").unwrap();
    assert_eq!(
        &order[at + 1..at + 4],
        ["t_expected", "t_expected_lo", "t_expected_hi"]
    );
    // A derate halves nothing here: the expectation is the bare bound's.
    let derated = &rows(&format!("{q}&derate=0.5"))[0];
    assert_eq!(get(derated, "t_expected").value, get(r, "t_expected").value);
    assert_ne!(get(derated, "t_lower").value, get(r, "t_lower").value);
    // No evidence: none, and why.
    let custom = &rows("?chip=h100&op=custom")[0];
    assert_eq!(get(custom, "t_expected").value, "none");
    assert!(get(custom, "t_expected")
        .title
        .contains("measures no operation of this kind"));
    let l4 = &rows("?chip=l4&op=matmul")[0];
    assert_eq!(get(l4, "t_expected").value, "none");
    // An LLM decode step: its memory pieces also carry the step's HBM term where the set
    // keeps it, and r is the sum by hand, each kept coefficient times its share.
    let q = "?chip=h100&op=llm:preset=llama3-8b,phase=decode,b=1,ctx=1024";
    let s = roofline::url::decode(q).scenario;
    let a = roofline::analysis::analyze(&s.ops[0], &s.chips[0], &s.options).unwrap();
    let e = roofline::validation::expectation_for(&s.ops[0], &s.chips[0], &a).unwrap();
    let f = e.features.split;
    let c = |t| e.model.coef(t).unwrap_or(0.0);
    let by_hand = c(Term::Compute) * f.compute
        + c(Term::Memory) * f.memory
        + c(Term::Network) * f.network
        + c(Term::StepMemory) * f.memory
        + c(Term::StepCompute) * f.compute;
    // Then the family's factor and the kind's bias where the set keeps them (issue 39).
    let by_hand = by_hand * e.family_factor.unwrap_or(1.0) * e.bias;
    assert!(
        (e.r - by_hand).abs() <= 1e-12 * by_hand,
        "{} vs {by_hand}",
        e.r
    );
    // The title writes out every kept term the step has a share of: this memory-bound decode's
    // memory, and its compute share's step term where the set keeps one (`./dev validate`).
    assert!(f.memory > 0.9, "{f:?}");
    let title = get(&rows(q)[0], "t_expected").title;
    assert!(title.contains(" memory (at "), "{title}");
    for t in &e.model.terms {
        if t.x(&e.features) > 0.0 {
            assert!(title.contains(&format!(" {}", t.id())), "{t:?}: {title}");
        }
    }
    // Over 8 chips the step also pays the latency per collective the set keeps: Llama 3 70B
    // runs 2 all-reduces × 80 layers = 160 collectives a step, each the fitted µs per doubling
    // × log2 8 = 3; by hand, t_expected less the resource terms' share of the bound is
    // 160 × 3 × that many µs.
    let q = "?chip=a100&op=llm:preset=llama3-70b,phase=decode,b=1,ctx=1024,tp=8,link=nvlink";
    let s = roofline::url::decode(q).scenario;
    let a = roofline::analysis::analyze(&s.ops[0], &s.chips[0], &s.options).unwrap();
    let e = roofline::validation::expectation_for(&s.ops[0], &s.chips[0], &a).unwrap();
    assert!(e.model.terms.contains(&Term::MultiChip), "{:?}", e.model);
    let c = |t| e.model.coef(t).unwrap_or(0.0);
    let f = e.features.split;
    let resources = c(Term::Compute) * f.compute
        + c(Term::Memory) * f.memory
        + c(Term::Network) * f.network
        + c(Term::StepMemory) * f.memory
        + c(Term::StepCompute) * f.compute;
    let latency = e.t - a.t_lower * resources;
    let by_hand = 160.0 * 3.0 * c(Term::MultiChip) * 1e-6;
    assert!(
        (latency - by_hand).abs() <= 1e-9 * by_hand,
        "{latency} vs {by_hand}"
    );
    let title = get(&rows(q)[0], "t_expected").title;
    assert!(
        title.contains(&format!(
            "multi-chip ({} µs per collective per doubling of the group)",
            roofline::units::format_sig(c(Term::MultiChip), 3)
        )),
        "{title}"
    );
}

/// The validation view's data as the build writes it and the page reads it (issue 27: loaded
/// on first use): it reads back as written, every row with its four cells and its link; a
/// file that is not JSON or lacks a field gets a message naming what is wrong, never a panic.
#[test]
fn the_validation_data_reads_back_as_written() {
    use roofline_lab::view::validation::{validation_report, ValidationPage};
    let r = validation_report();
    let page = ValidationPage::of(&r);
    assert_eq!(page.set_version, roofline::validation::SET_VERSION);
    assert_eq!(page.rows.len(), r.rows.len());
    // overall, then the 7 kinds of work and the 6 families.
    assert_eq!(page.summaries.len(), 1 + 7 + 6);
    assert_eq!(page.summaries[0].group, "overall");
    let text = page.to_json();
    let back = ValidationPage::from_json(&text).unwrap();
    assert_eq!(back, page);
    let row = |id: &str| back.rows.iter().find(|row| row.id == id).unwrap();
    // Exact numbers: the shortest round-trip form reads back as the same f64.
    let deepgemm = row("deepgemm-h800-m4096-n7168-k16384-fp8");
    assert_eq!(
        deepgemm.measured_s,
        2.0 * 4096.0 * 7168.0 * 16384.0 / 1358e12
    );
    assert!(deepgemm.link.starts_with("?chip=h800&op=matmul:"));
    // The measured figure's hover: the evidence tier, then the source.
    assert!(
        deepgemm
            .source
            .starts_with("vendor-published: https://github.com/deepseek-ai/DeepGEMM"),
        "{}",
        deepgemm.source
    );
    let own = row("h100-gemm-bf16-8192cube");
    assert!(
        own.source
            .starts_with("measured by this project: this repository: scripts/measure_gpu.py"),
        "{}",
        own.source
    );
    // The name's hover: the conditions and the quote, then the notes on a line of their own
    // (why TensorRT-LLM v0.6.1's 70B row sits 4.9× above its bound is in them).
    let trt = row("trtllm061-h100-llama2-70b-tp4-b480-decode");
    let (head, notes) = trt.title.split_once("\nNotes: ").unwrap();
    assert!(
        head.starts_with("4× H100 SXM 80GB; TensorRT-LLM v0.6.1"),
        "{head}"
    );
    assert!(
        head.ends_with("| LLaMA 70B | 480 | 4 | 128 | 2048 | 1,486 |"),
        "{head}"
    );
    assert!(
        notes.contains("XQA") && notes.contains("ratio 1.27"),
        "{notes}"
    );
    for p in roofline::validation::points() {
        let r = row(p.id);
        assert!(r
            .title
            .starts_with(&format!("{} — {}", p.conditions, p.quote)));
        assert_eq!(
            r.title.contains("\nNotes: "),
            !p.notes.is_empty(),
            "{}",
            p.id
        );
    }
    let unexpressed = back
        .rows
        .iter()
        .filter(|row| row.predicted.is_none())
        .count();
    assert_eq!(
        unexpressed,
        r.rows.iter().filter(|row| row.predicted.is_err()).count()
    );
    for (bad, want) in [
        ("", "is not JSON"),
        ("{\"set_version\": \"x\"", "is not JSON"),
        ("[]", "has no \"summaries\""),
        ("{\"summaries\": 3}", "\"summaries\" is not a list"),
        (
            "{\"summaries\": [], \"terms\": [], \"rows\": [{\"cells\": []}]}",
            "has no \"id\"",
        ),
        (
            "{\"summaries\": [], \"terms\": [], \"rows\": [], \"set_version\": 2}",
            "\"set_version\" is not text",
        ),
    ] {
        let e = ValidationPage::from_json(bad).unwrap_err();
        assert!(e.contains(want), "{bad:?}: {e}");
    }
    let no_time = text.replacen("\"measured_s\": ", "\"measured_s\": null, \"x\": ", 1);
    assert_eq!(
        ValidationPage::from_json(&no_time).unwrap_err(),
        "a row of the validation data has no measured time"
    );
}

/// The validation view's models (issue 25): one scatter series per kind of work with every
/// predicted point, and the y = x line spanning them; each row's cells are the contract's
/// (`measured` in seconds, `t_lower`, `t_expected` held out, `ratio` = measured / t_lower), and a
/// point the app cannot express says why instead of a number.
#[test]
fn the_validation_view_plots_and_tabulates_the_set() {
    use roofline_lab::view::validation::{
        validation_cells, validation_chart, validation_report, ValidationPage,
    };
    let r = validation_report();
    assert!(r.rows.len() >= 40);
    let chart = validation_chart(&ValidationPage::of(&r));
    assert!(chart.log_x && chart.log_y);
    let scatter: usize = chart
        .series
        .iter()
        .filter(|s| s.scatter)
        .map(|s| s.points.len())
        .sum();
    let predicted = r.rows.iter().filter(|row| row.predicted.is_ok()).count();
    assert_eq!(scatter, predicted);
    let line = chart.series.iter().find(|s| !s.scatter).unwrap();
    assert!(line.points.iter().all(|(x, y)| x == y), "y = x");
    for row in &r.rows {
        let cells = validation_cells(row);
        let metrics: Vec<&str> = cells.iter().map(|c| c.metric).collect();
        assert_eq!(
            metrics,
            ["measured", "t_lower", "t_expected", "ratio"],
            "{}",
            row.point.id
        );
        let v = |m: &str| cells.iter().find(|c| c.metric == m).unwrap().value.clone();
        match &row.predicted {
            Ok(t) => {
                let ratio: f64 = v("ratio").parse().unwrap();
                assert_eq!(ratio, row.point.measured_s / t);
            }
            Err(why) => {
                assert_eq!(v("t_lower"), "none");
                assert!(!why.is_empty());
            }
        }
    }
    // The terms: the three fractions in order with their achievable percentage (1 / coef),
    // the candidates with their units and why they are out.
    use roofline_lab::view::validation::term_text;
    let texts: Vec<String> = r.terms.iter().map(term_text).collect();
    assert_eq!(texts.len(), 12);
    let compute = &r.terms[0];
    assert_eq!(compute.term, roofline::validation::Term::Compute);
    assert!(
        texts[0].contains(&format!("(at {:.1}%)", 100.0 / compute.coef)),
        "{}",
        texts[0]
    );
    let launch = r
        .terms
        .iter()
        .position(|t| t.term == roofline::validation::Term::Launch)
        .unwrap();
    assert!(texts[launch].contains("µs per launch"), "{}", texts[launch]);
    assert!(r.terms[launch].kept || texts[launch].contains("left out"));
    // The latency per collective reads in µs; a step's HBM fraction as what it adds.
    let unit = |t: roofline::validation::Term| {
        texts[r.terms.iter().position(|x| x.term == t).unwrap()].clone()
    };
    let multi = unit(roofline::validation::Term::MultiChip);
    assert!(multi.contains("µs per collective"), "{multi}");
    let step_memory = unit(roofline::validation::Term::StepMemory);
    assert!(
        step_memory.contains("added to the memory coefficient in an LLM step"),
        "{step_memory}"
    );
    // The shares of the kept terms and what is left add up to the bare residual.
    let kept: f64 = r.terms.iter().filter(|t| t.kept).map(|t| t.share).sum();
    assert!(kept > 0.0 && kept < 1.0, "{kept}");
}

/// The profile panel shows each kernel's expected time beside its measured one (issue 25): its
/// roofline bound times the validation set's ratio for its kind of work (by name group) on chip
/// 1's generation; a kernel no group matches, or a chip without a generation in the set, gets
/// none. By hand on the H100: `gemm_a` (1e12 FLOPs, 1e9 bytes) is bound at 1e12 / 9.89e14.
#[test]
fn measured_kernels_carry_their_expected_time() {
    use roofline_lab::view::measured::{add_expected, measured_roofline, measured_table};
    let csv = "name,count,flops,bytes,time\ngemm_a,1,1e12,1e9,2ms\ngemm_b,4,1e12,1e9,2ms\nmystery_kernel,1,1e9,1e9,1ms\n";
    let p = roofline::profile::import(csv.as_bytes()).unwrap();
    let s = roofline::url::decode("?chip=h100").scenario;
    let (roof, caption) = measured_roofline(&s).unwrap();
    let mut t = measured_table(roof, caption, &p);
    add_expected(&mut t, &s.chips[0]);
    let gemm = t.rows.iter().find(|r| r.name == "gemm_a").unwrap();
    let bound = 1e12 / 9.89e14;
    let e = roofline::validation::expected(
        roofline::op::MeasureKind::Gemm,
        roofline::validation::Family::Hopper,
        roofline::validation::Features::kernel(roofline::resource::Bound::Compute, bound, 1.0),
        bound,
    )
    .unwrap();
    assert!((gemm.expected.unwrap() - e.t).abs() <= 1e-12 * e.t);
    // By hand: the bound times the compute coefficient, plus one launch overhead per launch
    // where the set keeps that term; four launches of the same kernel expect four times one.
    use roofline::validation::Term;
    let coef = |term| e.model.coef(term).unwrap_or(0.0);
    let one = (bound * coef(Term::Compute) + coef(Term::Launch) * 1e-6)
        * e.family_factor.unwrap_or(1.0)
        * e.bias;
    assert!((e.t - one).abs() <= 1e-12 * one, "{} vs {one}", e.t);
    let four = t.rows.iter().find(|r| r.name == "gemm_b").unwrap();
    assert!(
        (four.expected.unwrap() - 4.0 * one).abs() <= 1e-9 * one,
        "{four:?}"
    );
    assert!(gemm
        .cells()
        .iter()
        .any(|c| c.0 == "expected" && c.2.starts_with('≈')));
    let mystery = t.rows.iter().find(|r| r.name == "mystery_kernel").unwrap();
    assert_eq!(mystery.expected, None);
    let l4 = roofline::url::decode("?chip=l4").scenario;
    let (roof, caption) = measured_roofline(&l4).unwrap();
    let mut t = measured_table(roof, caption, &p);
    add_expected(&mut t, &l4.chips[0]);
    assert!(t.rows.iter().all(|r| r.expected.is_none()));
}

/// A calibrated page says so in its key line, in the page and in embeds alike (issue 24, point
/// 1): a shared link with `cal=` can no longer change every time silently.
#[test]
fn a_calibrated_key_line_says_so() {
    let plain = view::key_line(&roofline::url::decode("?chip=h100&op=matmul").scenario);
    assert!(!plain.contains("calibrated"), "{plain}");
    let s = roofline::url::decode("?chip=h100&op=matmul&cal=0.8:0.9:5us").scenario;
    let line = view::key_line(&s);
    assert!(
        line.ends_with("[calibrated: cal=0.8:0.9:5e-6, fitted to measured kernels, in every time]"),
        "{line}"
    );
    let compact = view::key_line_with(&s, view::KeyLineDetail::Compact);
    assert!(compact.contains("[calibrated: cal="), "{compact}");
}

/// The sample profile the page ships (issue 24, point 6) is what it says it is: each kernel's
/// time is its H100 roofline bound (989 TFLOP/s bf16, 3.35 TB/s) times the validation set's
/// factor for the binding resource (1.620 compute, 1.287 HBM; every kernel of it is memory-bound)
/// plus 3 µs per launch, to the
/// 0.01 µs it is written with (the plain format gives one launch's figures); and its
/// description names the set those factors are from.
#[test]
fn the_sample_profile_is_its_stated_derivation() {
    let csv = include_str!("../../assets/sample-profile.csv");
    let p = roofline::profile::import(csv.as_bytes()).unwrap();
    assert_eq!(p.kernels.len(), 8);
    for k in &p.kernels {
        let n = k.count as f64;
        let (math, mem) = (
            k.flops.unwrap() / n / 989e12,
            k.bytes.unwrap() / n / 3.35e12,
        );
        let factor = if math >= mem { 1.620 } else { 1.287 };
        let want = n * (math.max(mem) * factor + 3e-6);
        assert!(
            (k.time - want).abs() <= n * 0.0051e-6,
            "{}: {} vs {want}",
            k.name,
            k.time
        );
    }
    // The factors are those of the set the sample was made with, and its description says
    // which (the set's own have moved since: issue 39's set fits 1.303 for HBM).
    assert!(
        roofline_lab::view::measured::SAMPLE_SOURCE.contains("set 2026-11-26.4, 1.287 for HBM"),
        "{}",
        roofline_lab::view::measured::SAMPLE_SOURCE
    );
}

/// Issue 24, point 9: no unit leaks in what rows show. Across the worked examples and one
/// scenario per family: no long decimals (a derived bandwidth quoted as
/// `514285714285.7143`), no kiloseconds (`97.8 ks` reads `27.2 h`), no scientific
/// notation in a cost or a rate (`$2.194e7` reads `$21.9M`, `6.535e6 tokens/s` reads
/// `6.54M tokens/s`), and parameter counts past a thousand trillion in plain scientific.
#[test]
fn rows_say_their_numbers_in_units() {
    let mut qs: Vec<String> = view::recipes()
        .into_iter()
        .map(|r| roofline::url::encode(&r.scenario))
        .collect();
    qs.extend(
        [
            "?chip=h100&chip=tpu-v5e&op=llm:preset=llama3-8b,b=64,ctx=4096",
            "?chip=h100&op=collective:bytes=1e6,n=8,topology=node",
            "?chip=b200&op=llm:preset=deepseek-v3,ep=8,b=256",
            "?chip=h100&op=matmul:shards=8,split=d,topology=node",
        ]
        .map(String::from),
    );
    let long_decimal = |t: &str| {
        t.split(|c: char| !(c.is_ascii_digit() || c == '.'))
            .any(|w| {
                w.split_once('.')
                    .is_some_and(|(i, f)| i.len() >= 8 && !f.is_empty())
            })
    };
    let sci_before = |t: &str, unit: &str| {
        t.match_indices(unit).any(|(at, _)| {
            let before = t[..at].trim_end();
            let word = before.rsplit(' ').next().unwrap_or("");
            word.contains('e') && word.chars().next().is_some_and(|c| c.is_ascii_digit())
        })
    };
    for q in &qs {
        let s = roofline::url::decode(q).scenario;
        for r in view::result_rows(&s) {
            let mut texts = r.derivation();
            for c in r
                .cells
                .iter()
                .chain(r.serving.iter().flat_map(|v| v.cells.iter()))
            {
                texts.push(c.text.clone());
                texts.push(c.title.clone());
            }
            for t in &texts {
                assert!(!long_decimal(t), "{q}: {t}");
                assert!(!t.contains(" ks") && !t.contains(" Ms "), "{q}: {t}");
                assert!(!sci_before(t, "tokens/s"), "{q}: {t}");
                assert!(
                    !t.contains('$')
                        || !t.split('$').skip(1).any(|w| {
                            w.split(|c: char| c.is_whitespace() || c == '/')
                                .next()
                                .is_some_and(|n| n.contains('e'))
                        }),
                    "{q}: {t}"
                );
            }
        }
    }
    assert_eq!(roofline::units::format_params(5.637e19), "5.637e19");
    assert_eq!(roofline::units::format_params(70.6e9), "70.6B");
}

/// Issue 24, point 7: a collective's row and key line say what a collective is about. By hand
/// (gpus.md): an AllGather of 1 MB over an H100 node's 8 GPUs moves (n−1)·V/(n·W) = 7·1e6 /
/// (8·450e9) = 1.94 µs of bandwidth but pays 7 hops × 0.6 µs = 4.2 µs of latency: T = 4.2 µs,
/// latency-bound, busbw V·(n−1)/n / T = 875,000 / 4.2e-6 = 208 GB/s. Its FLOP columns say `—`
/// (not `0 FLOP/s, 0 %, ✓ 0 B`), and it names its algorithm.
#[test]
fn a_collective_row_shows_time_algorithm_and_busbw_not_flops() {
    let s = roofline::url::decode("?chip=h100&op=collective:bytes=1e6,n=8,topology=node").scenario;
    let row = &view::result_rows(&s)[0];
    let cell = |m: &str| row.cells.iter().find(|c| c.metric == m).unwrap().clone();
    for m in ["flops", "achieved", "fraction", "fits", "t_math"] {
        assert_eq!(cell(m).text, "—", "{m}");
    }
    let t: f64 = cell("t_lower").value.parse().unwrap();
    assert!((t - 4.2e-6).abs() < 1e-12, "{t}");
    let busbw: f64 = cell("busbw").value.parse().unwrap();
    assert!((busbw - 875_000.0 / 4.2e-6).abs() < 1e-3 * busbw, "{busbw}");
    assert!(
        cell("algorithm").text.starts_with("node: "),
        "{}",
        cell("algorithm").text
    );
    let key = view::key_line(&s);
    assert!(
        key.contains("network-bound, T = 4.2 µs (latency-bound, busbw 208 GB/s)"),
        "{key}"
    );
}

/// A model's part rows are formatted when first read, not with their row (the page shows them
/// only once opened, so an edit of a model's field formats none of them), and read, they are
/// the parts of the step: Llama-3 8B has 12 (embedding gather; attention norm, QKV projection,
/// scores, values and output projection; MLP norm, gate, up and down; the final norm; the LM
/// head), each row `0.k/0` with its repeat.
#[test]
fn a_models_part_rows_are_formatted_only_when_read() {
    let s = roofline::url::decode("chip=h100&op=llm:preset=llama3-8b,b=1,ctx=2048").scenario;
    let results = roofline::results::Results::of(&s);
    let rows = view::result_rows_cached(&s, &results, &mut view::RowCache::default());
    let parts = &rows[0].parts;
    assert_eq!(parts.len(), 12);
    assert!(!parts.formatted(), "formatted with their row");
    let copy = rows[0].parts.clone();
    assert_eq!(parts[3].id, "0.3/0");
    assert!(
        parts[3].name.contains("attention scores"),
        "{}",
        parts[3].name
    );
    assert_eq!(value(&parts[3], "repeat"), "32");
    assert!(
        parts.formatted() && copy.formatted(),
        "a clone shares the rows"
    );
    assert_eq!(parts.iter().filter(|p| p.class == "part-row").count(), 12);
}
