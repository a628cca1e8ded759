//! The serving-at-load set's rows (issue 40): AIConfigurator's silicon sample as the reader
//! `roofline::validation::load::rows` gives it. The counts below come from
//! `crates/roofline/src/validation/load/data/expected_counts.py`, a second implementation of the
//! mapping rule run on the same file (`python3 expected_counts.py` in that folder prints them),
//! and from the issue's own reading of the file (5,221 rows, 3,619 aggregated, 366 without a
//! precision, 759 without an engine version); the rows checked one by one were copied from the
//! upstream file by hand.
#![cfg(feature = "sources")]

use roofline::arch::arch_preset;
use roofline::chip::preset;
use roofline::dtype::DType;
use roofline::validation::load::rows::{
    aggregated, expressed, rows, LayoutRead, Mode, Parallel, Reason, Row, COMMIT,
};
use std::collections::{BTreeMap, HashMap};

fn row(id: &str) -> &'static Row {
    rows()
        .iter()
        .find(|r| r.id == id)
        .unwrap_or_else(|| panic!("no row {id}"))
}

fn link(id: &str) -> Option<&'static str> {
    row(id).scenario.as_ref().ok().map(|e| e.link.as_str())
}

fn reason(id: &str) -> Option<Reason> {
    row(id).scenario.as_ref().err().map(|u| u.reason)
}

/// The file as the issue reads it, and three rows against the upstream text.
#[test]
fn the_file_as_published() {
    assert_eq!(COMMIT, "095f58a51c4ca8e61b66ec108d86f223f8d559ce");
    let all = rows();
    assert_eq!(all.len(), 5221);
    let agg: Vec<&Row> = aggregated().collect();
    assert_eq!(agg.len(), 3619);
    assert_eq!(
        all.iter().filter(|r| r.mode == Mode::Disaggregated).count(),
        1602
    );
    assert!(all.iter().enumerate().all(|(i, r)| r.index == i));
    // The issue: 366 rows without a precision, 759 without an engine version (aggregated).
    assert_eq!(
        agg.iter().filter(|r| r.precision[0].is_empty()).count(),
        366
    );
    assert_eq!(agg.iter().filter(|r| r.version.is_none()).count(), 759);
    assert_eq!(agg.iter().filter(|r| r.c.is_none()).count(), 12);
    // The first line of the upstream file: "minimaxm2_5_b300_vllm_fp8_agg_8192x1024_c128_cfg733,
    // db-dump/2026-04-27; config_id=733; silicon_concurrency=128; measured=2026-04-17...;
    // workflow_run_id=758; vllm/vllm-openai:v0.19.0-cu130,vllm,0.19.0,MiniMaxAI/MiniMax-M2.5,
    // b300_sxm,fp8,agg,8192,1024,fp8,fp8,128,4,1,1,4,1,,,...,972.3109823355117,33.442908754168066".
    let r = &all[0];
    assert_eq!(r.id, "minimaxm2_5_b300_vllm_fp8_agg_8192x1024_c128_cfg733");
    assert_eq!((r.engine, r.version), ("vllm", Some("0.19.0")));
    assert_eq!((r.model, r.system), ("MiniMaxAI/MiniMax-M2.5", "b300_sxm"));
    assert_eq!(r.precision, ["fp8", "fp8", "fp8"]);
    assert_eq!(
        (r.isl, r.osl, r.c, r.batch_size),
        (8192, 1024, Some(128), Some(128))
    );
    assert_eq!(
        r.parallel,
        Parallel {
            tp: Some(4),
            pp: Some(1),
            attention_dp: Some(1),
            moe_tp: Some(4),
            moe_ep: Some(1)
        }
    );
    assert_eq!(r.measured, Some("2026-04-17"));
    assert_eq!(r.campaign, "db-dump/2026-04-27 config 733 run 758");
    assert_eq!(r.ttft, 972.3109823355117 / 1e3);
    assert_eq!(r.tpot, 33.442908754168066 / 1e3);
    // A row without a concurrency (its id's "_c_"), batch_size 144 on one GPU.
    let r = row("qwen3_32b_qwen3_32b_gb200_trtllm_agg_4000x1000_c_tp1_epnone_1");
    assert_eq!((r.c, r.batch_size), (None, Some(144)));
    assert_eq!(r.campaign, "gb200/trtllm/1.2.0rc6.post1/qwen3_32b.csv");
    assert_eq!(reason(r.id), Some(Reason::NoConcurrency));
    // Every disaggregated row keeps both stages.
    for r in all.iter().filter(|r| r.mode == Mode::Disaggregated) {
        let d = r.disagg.unwrap_or_else(|| panic!("{}", r.id));
        assert!(
            d.prefill.parallel.tp.is_some() && d.decode.parallel.tp.is_some(),
            "{}",
            r.id
        );
        assert_eq!(reason(r.id), Some(Reason::Disaggregated));
    }
}

/// The expressed rows per reason, engine, system and model (expected_counts.py's figures).
#[test]
fn counts_by_reason_engine_system_and_model() {
    let mut reasons: BTreeMap<&str, usize> = BTreeMap::new();
    for r in aggregated() {
        if let Err(u) = &r.scenario {
            *reasons.entry(u.reason.id()).or_default() += 1;
        }
    }
    let want: BTreeMap<&str, usize> = [
        ("batch-mismatch", 30),
        ("disaggregated-totals", 55),
        ("experts-across-ranks", 2),
        ("layout-unrecoverable", 97),
        ("linear-attention", 351),
        ("no-concurrency", 12),
        ("parallelism-inconsistent", 19),
        ("sparse-attention", 86),
    ]
    .into();
    assert_eq!(reasons, want);
    let ex: Vec<&Row> = expressed().map(|(r, _)| r).collect();
    assert_eq!(ex.len(), 2967);
    // The target: at least 2,534 of the 3,619 aggregated rows (70 %).
    assert!(ex.len() >= 2534);
    let count = |key: fn(&Row) -> String| {
        let mut m: BTreeMap<String, usize> = BTreeMap::new();
        for r in &ex {
            *m.entry(key(r)).or_default() += 1;
        }
        m
    };
    let strs = |v: &[(&str, usize)]| -> BTreeMap<String, usize> {
        v.iter().map(|(k, n)| (k.to_string(), *n)).collect()
    };
    assert_eq!(
        count(|r| r.engine.to_string()),
        strs(&[("sglang", 496), ("trtllm", 1262), ("vllm", 1209)])
    );
    assert_eq!(
        count(|r| r.system.to_string()),
        strs(&[
            ("b200_sxm", 1349),
            ("b300_sxm", 145),
            ("gb200", 2),
            ("h100_sxm", 782),
            ("h200_sxm", 689)
        ])
    );
    let preset = |r: &Row| r.scenario.as_ref().map(|e| e.preset.to_string()).unwrap();
    assert_eq!(
        count(preset),
        strs(&[
            ("deepseek-v3", 707),
            ("gpt-oss-120b", 428),
            ("kimi-k2.5", 157),
            ("llama3.1-70b", 441),
            ("llama3.1-8b", 244),
            ("minimax-m2.5", 456),
            ("qwen3-235b-a22b", 182),
            ("qwen3-32b", 352)
        ])
    );
    assert_eq!(count(|r| r.group.clone()).len(), 22);
    // A measurement counted once: 2,458 distinct among the expressed rows.
    let distinct: std::collections::HashSet<usize> =
        ex.iter().map(|r| r.twin.unwrap_or(r.index)).collect();
    assert_eq!(distinct.len(), 2458);
    // Links with the split inside the attention group, and with attention DP.
    let links: Vec<&str> = expressed().map(|(_, e)| e.link.as_str()).collect();
    assert_eq!(links.iter().filter(|l| l.contains(",moe_ep=")).count(), 478);
    assert_eq!(links.iter().filter(|l| l.contains(",ep=")).count(), 69);
    // The rows without a precision or an engine version, as read.
    let agg: Vec<&Row> = aggregated().collect();
    let ok = |r: &&&Row| r.scenario.is_ok();
    assert_eq!(
        agg.iter()
            .filter(|r| r.precision[0].is_empty())
            .filter(ok)
            .count(),
        353
    );
    assert_eq!(
        agg.iter()
            .filter(|r| r.version.is_none())
            .filter(ok)
            .count(),
        704
    );
}

/// Rows read one by one: the link each gets, or why none (expected_counts.py prints the first
/// five).
#[test]
fn links_row_by_row() {
    for (id, want) in [
        // As written: tp 4 (experts tensor-split like attention), FP8.
        (
            "minimaxm2_5_b300_vllm_fp8_agg_8192x1024_c128_cfg733",
            "?chip=b300&op=llm:preset=minimax-m2.5,tp=4,link=nvlink,w=fp8,x=fp8,prompt=8192,output=1024,load=concurrency,c=128,engine=vllm",
        ),
        // No precision: the bf16 checkpoint, nothing to write.
        (
            "qwen_qwen3_32b_qwen_qwen3_32b_h100_sxm_vllm_agg_1024x128_c8_tp2_epnone_1",
            "?chip=h100&op=llm:preset=qwen3-32b,tp=2,link=nvlink,prompt=1024,output=128,load=concurrency,c=8,engine=vllm",
        ),
        // Columns (64, 1, 8, 8) of tp8_ep8: tp 8 with the experts over the 8.
        (
            "2026_04_06_deepseek_r1_b200_sxm_sglang_fp4_agg_8192x1024_c8_tp8_ep8_1010",
            "?chip=b200&op=llm:preset=deepseek-v3,tp=8,moe_ep=8,link=nvlink,w=fp4,x=fp4,prompt=8192,output=1024,load=concurrency,c=8,engine=sglang",
        ),
        // Columns (1, 64, 8, 8) of tp8_ep8: attention DP over 8, experts over the 8.
        (
            "2026_04_06_deepseek_r1_b200_sxm_trtllm_fp4_agg_1024x1024_c64_tp8_ep8_937",
            "?chip=b200&op=llm:preset=deepseek-v3,ep=8,link=nvlink,w=fp4,x=fp4,prompt=1024,output=1024,load=concurrency,c=64,engine=trtllm",
        ),
        // gpt-oss on Hopper: FP4 weights, 16-bit activations; (4, 1, 2, 2) of tp2_ep2.
        (
            "2026_04_06_gpt_oss_120b_h200_sxm_trtllm_fp4_agg_8192x1024_c16_tp2_ep2_927",
            "?chip=h200&op=llm:preset=gpt-oss-120b,tp=2,moe_ep=2,link=nvlink,w=fp4,prompt=8192,output=1024,load=concurrency,c=16,engine=trtllm",
        ),
        // A db-dump row (DeepSeek-V3 by its model_path, R1 by its id) read through its twin's
        // id, tp8_ep8.
        (
            "dsr1_b200_sglang_fp4_agg_1024x1024_c64_cfg201",
            "?chip=b200&op=llm:preset=deepseek-v3,tp=8,moe_ep=8,link=nvlink,w=fp4,x=fp4,prompt=1024,output=1024,load=concurrency,c=64,engine=sglang",
        ),
        // Kimi's int4 experts with 16-bit activations.
        (
            "2026_03_25_kimi_k2_5_b200_sxm_vllm_int4_agg_1024x8192_c16_tp8_0_ep1_0_319",
            "?chip=b200&op=llm:preset=kimi-k2.5,tp=8,link=nvlink,w=int4,prompt=1024,output=8192,load=concurrency,c=16,engine=vllm",
        ),
    ] {
        assert_eq!(link(id), Some(want), "{id}");
    }
    let r = row("dsr1_b200_sglang_fp4_agg_1024x1024_c64_cfg201");
    assert_eq!(r.model, "deepseek-ai/DeepSeek-V3");
    let e = r.scenario.as_ref().unwrap();
    assert_eq!(e.layout.read, LayoutRead::FromTwin);
    assert_eq!((e.w, e.x, e.kv), (DType::Fp4, DType::Fp4, DType::Bf16));
    let h = row("2026_04_06_gpt_oss_120b_h200_sxm_trtllm_fp4_agg_8192x1024_c16_tp2_ep2_927");
    let e = h.scenario.as_ref().unwrap();
    assert_eq!(e.layout.read, LayoutRead::FromId);
    assert!(e.notes.iter().any(|n| n.contains("Hopper has no FP4")));
    assert!(e
        .notes
        .iter()
        .any(|n| n.contains("quantises its routed experts")));
    for (id, why) in [
        (
            "2026_04_06_kimi_k2_5_b200_sxm_vllm_fp4_agg_8192x1024_c64_tp4_ep4_1290",
            Reason::LayoutUnrecoverable,
        ),
        (
            "2026_04_06_deepseek_r1_gb200_sglang_fp8_agg_1024x1024_c5632_tp72_ep1_43",
            Reason::DisaggregatedTotals,
        ),
        (
            "qwen_qwen3_235b_a22b_fp8_qwen_qwen3_235b_a22b_fp8_h200_sxm_vllm_agg_1000x100_c8_tp1_epnone_2",
            Reason::ParallelismInconsistent,
        ),
        (
            "2026_04_06_gpt_oss_120b_b200_sxm_trtllm_fp4_agg_1024x1024_c32_tp4_ep1_296",
            Reason::ExpertsAcrossRanks,
        ),
    ] {
        assert_eq!(reason(id), Some(why), "{id}");
    }
    let ids: Vec<&str> = Reason::ALL.iter().map(|r| r.id()).collect();
    let mut unique = ids.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), ids.len());
    assert!(Reason::ALL.iter().all(|r| r.text().len() > 20));
}

/// Twins (the same measurement in two campaigns) agree on everything a run is, share their
/// group, and show the converter's two forms: 89 measurements are written with the columns
/// `(T·E, 1, T, E)` or `(1, T·E, T, E)` in one row and `(T, 1, 1, E)` or `(1, T, 1, E)` in
/// another, and none with other differing columns.
#[test]
fn twins_agree_and_show_the_converter_forms() {
    let all = rows();
    let mut twins = 0;
    for r in all {
        let Some(t) = r.twin else { continue };
        let f = &all[t];
        assert!(t < r.index && f.twin.is_none(), "{}", r.id);
        assert_eq!(
            (
                f.mode,
                f.engine,
                f.system,
                f.isl,
                f.osl,
                f.c,
                f.precision[1],
                f.precision[2]
            ),
            (
                r.mode,
                r.engine,
                r.system,
                r.isl,
                r.osl,
                r.c,
                r.precision[1],
                r.precision[2]
            ),
            "{} and {}",
            f.id,
            r.id
        );
        assert_eq!(f.group, r.group, "{} and {}", f.id, r.id);
        if r.mode == Mode::Aggregated {
            twins += 1;
        }
    }
    assert_eq!(twins, 670);
    // Empty columns read as 1.
    let cols = |p: &Parallel| {
        let one = |x: Option<u32>| x.unwrap_or(1);
        (one(p.tp), one(p.attention_dp), one(p.moe_tp), one(p.moe_ep))
    };
    let mut forms: HashMap<usize, Vec<(u32, u32, u32, u32)>> = HashMap::new();
    for r in all {
        forms
            .entry(r.twin.unwrap_or(r.index))
            .or_default()
            .push(cols(&r.parallel));
    }
    let two: Vec<&Vec<(u32, u32, u32, u32)>> = forms
        .values()
        .filter(|v| v.iter().any(|p| p != &v[0]))
        .collect();
    assert_eq!(two.len(), 89);
    let converter = |v: &Vec<(u32, u32, u32, u32)>| {
        v.iter().any(|&(t, a, m, e)| {
            e > 1
                && ((a == 1 && t == m * e && v.contains(&(m, 1, 1, e)))
                    || (t == 1 && a == m * e && v.contains(&(1, m, 1, e))))
        })
    };
    assert!(two.iter().all(|v| converter(v)), "{two:?}");
}

/// What every link stands on: a zoo preset and a chip preset, a layout that fits one NVLink
/// domain and divides the model, and the dtypes the chip computes in.
#[test]
fn every_link_stands_on_presets() {
    for (r, e) in expressed() {
        let arch = arch_preset(e.preset).unwrap().arch;
        let chip = preset(e.chip).unwrap();
        let l = e.layout;
        let gpus = f64::from(l.tp * l.ep);
        assert!(gpus <= chip.node.unwrap(), "{}: {gpus} GPUs", r.id);
        assert_eq!(arch.heads % f64::from(l.tp), 0.0, "{}", r.id);
        assert_eq!(l.tp % l.moe_ep, 0, "{}", r.id);
        match arch.moe {
            Some(m) => assert_eq!(m.experts % f64::from(l.ep * l.moe_ep), 0.0, "{}", r.id),
            None => assert_eq!((l.ep, l.moe_ep), (1, 1), "{}", r.id),
        }
        let compute = DType::compute_default(e.x, e.w);
        assert!(chip.peak(compute).is_ok(), "{}: no {compute} peak", r.id);
        assert!(e.link.contains(&format!("c={}", r.c.unwrap())), "{}", r.id);
        assert!(r.group.starts_with(e.preset), "{}", r.id);
        if l.read != LayoutRead::AsWritten {
            assert!(
                e.notes.iter().any(|n| n.contains("multiplied by ep")),
                "{}",
                r.id
            );
        }
    }
}

/// Every expressed row's link decodes with no notice into the `llm` op its row says (the
/// preset, the layout, the dtypes, the load), and its step analyses on its chip; the canonical
/// link decodes back to the same scenario.
#[test]
fn every_link_decodes_with_no_notice() {
    let mut n = 0;
    for (r, e) in expressed() {
        let d = roofline::url::decode(&e.link);
        assert!(d.notices.is_empty(), "{}: {:?}", r.id, d.notices);
        let s = &d.scenario;
        assert_eq!(s.chips.len(), 1, "{}", r.id);
        assert_eq!(s.chips[0], preset(e.chip).unwrap(), "{}", r.id);
        let op = &s.ops[0];
        let get = |k: &str| op.get(k).unwrap_or_else(|| panic!("{}: no {k}", r.id));
        assert_eq!(
            get("preset"),
            arch_preset(e.preset).map_or("custom", |p| {
                // Identical architectures show the zoo's first (llama3.1-8b is llama3-8b's).
                roofline::arch::arch_presets()
                    .iter()
                    .find(|q| q.arch == p.arch)
                    .unwrap()
                    .id
            })
        );
        let l = e.layout;
        let num = |k: &str| {
            get(k)
                .parse::<f64>()
                .unwrap_or_else(|_| panic!("{}: {k}", r.id))
        };
        let numbers = [
            ("tp", f64::from(l.tp)),
            ("ep", f64::from(l.ep)),
            ("moe_ep", f64::from(l.moe_ep)),
            ("prompt", f64::from(r.isl)),
            ("output", f64::from(r.osl)),
            ("c", f64::from(r.c.unwrap())),
        ];
        for (k, v) in numbers {
            assert_eq!(num(k), v, "{}: {k}", r.id);
        }
        let texts = [
            ("w", e.w.as_str()),
            ("x", e.x.as_str()),
            ("kv", "bf16"),
            ("load", "concurrency"),
            ("engine", r.engine),
        ];
        for (k, v) in texts {
            assert_eq!(get(k), v, "{}: {k}", r.id);
        }
        roofline::analysis::analyze(op, &s.chips[0], &s.options)
            .unwrap_or_else(|err| panic!("{}: {err}", r.id));
        let again = roofline::url::decode(&roofline::url::encode(s));
        assert!(again.notices.is_empty() && &again.scenario == s, "{}", r.id);
        n += 1;
    }
    assert_eq!(n, 2967);
}
