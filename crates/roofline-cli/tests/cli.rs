//! The command line against the page: for every worked example, each metric of `eval --json`
//! is the `data-value` the page renders for that row, and the core's result store
//! (`roofline::results`) gives the same figures through its own calls; bad input exits with
//! status 2 and names the key, never a panic.

use roofline::results::Results;
use roofline::units::format_exact;
use roofline_cli::run;
use roofline_lab::view::{recipes, result_rows, serving_tails, ResultRow};
use serde_json::Value;
use std::sync::Arc;

fn cli(args: &[&str]) -> roofline_cli::Outcome {
    run(&args.iter().map(|a| a.to_string()).collect::<Vec<_>>())
}

fn json(args: &[&str]) -> Value {
    let out = cli(args);
    assert_eq!(out.status, 0, "{args:?}: {}", out.stderr);
    serde_json::from_str(&out.stdout).expect("valid JSON")
}

/// A page row: `(data-op, data-chip, [(data-metric, data-value)])`.
type PageRow = (String, usize, Vec<(String, String)>);

/// The page's rows flattened as the page lists them.
fn page_rows(rows: Vec<ResultRow>) -> Vec<PageRow> {
    let mut out = Vec::new();
    for mut r in rows {
        let parts = std::mem::take(&mut r.parts);
        let serving = r.serving.take();
        for r in std::iter::once(r).chain(parts).chain(serving.map(|s| *s)) {
            let cells = r
                .cells
                .iter()
                .map(|c| (c.metric.to_string(), c.value.clone()))
                .collect();
            out.push((r.op_key.clone(), r.chip, cells));
        }
    }
    out
}

/// A figure of the store as the page writes a `data-value`.
fn exact(v: f64) -> String {
    format_exact(v)
}

#[test]
fn every_worked_example_matches_the_page_and_the_store() {
    let all = recipes();
    assert!(all.len() >= 10, "{} worked examples", all.len());
    let mut checked_store = 0;
    for recipe in all {
        // The link a reader copies from the page.
        let link = format!("?{}", roofline::url::encode(&recipe.scenario));
        let v = json(&["eval", &link, "--json"]);
        assert_eq!(v["schema_version"], 1);
        assert_eq!(v["set_version"], roofline::validation::SET_VERSION);
        assert_eq!(v["notices"].as_array().unwrap().len(), 0, "{}", recipe.id);
        // The page's rows of the recipe's own scenario (not of the link decoded again), once
        // its worker has answered: the simulated tails (issue 42) laid over a serving row under
        // load, through the worker's own JSON as the page reads it.
        let mut shown: Vec<Arc<ResultRow>> = result_rows(&recipe.scenario)
            .into_iter()
            .map(Arc::new)
            .collect();
        if let Some(key) = serving_tails::sim_key(&recipe.scenario) {
            let done = serving_tails::read(&serving_tails::run(&key)).unwrap();
            done.overlay(Some(&key), &mut shown);
            let pending = shown
                .iter()
                .filter_map(|r| r.serving.as_deref())
                .any(|r| r.cells.iter().any(|c| c.value == serving_tails::PENDING));
            assert!(
                !pending,
                "{}: the worker's answer leaves no cell pending",
                recipe.id
            );
        }
        let page = page_rows(shown.into_iter().map(Arc::unwrap_or_clone).collect());
        let rows = v["rows"].as_array().unwrap();
        assert_eq!(rows.len(), page.len(), "{}: rows", recipe.id);
        for (row, (op_key, chip, cells)) in rows.iter().zip(&page) {
            assert_eq!(row["data_op"], op_key.as_str(), "{}", recipe.id);
            assert_eq!(row["chip"], *chip as u64);
            let kind = if op_key.ends_with(".serving") {
                "serving"
            } else if op_key.contains('.') {
                "part"
            } else {
                "op"
            };
            assert_eq!(row["row"], kind);
            let metrics = row["metrics"].as_object().unwrap();
            assert_eq!(
                metrics.len(),
                cells.len(),
                "{} {op_key}: metrics",
                recipe.id
            );
            for (metric, value) in cells {
                assert_eq!(
                    metrics[metric.as_str()],
                    value.as_str(),
                    "{} {op_key}/{chip} {metric}",
                    recipe.id
                );
            }
        }

        // The store's figures, through its own calls, equal the page's cells.
        let store = Results::of(&recipe.scenario);
        for (i, j, p) in store.pairs() {
            let row = rows
                .iter()
                .find(|r| r["data_op"] == i.to_string().as_str() && r["chip"] == j as u64)
                .expect("an op row per pair");
            let m = &row["metrics"];
            let Ok(a) = &p.analysis else {
                assert!(row["error"].is_string(), "{}: error row", recipe.id);
                continue;
            };
            for (metric, x) in [
                ("flops", a.flops),
                ("bytes", a.bytes),
                ("t_math", a.t_math),
                ("t_comms", a.t_comms),
                ("t_lower", a.t_lower),
                ("t_upper", a.t_upper),
                ("ridge", a.ridge),
            ] {
                assert_eq!(m[metric], exact(x).as_str(), "{} {metric}", recipe.id);
            }
            assert_eq!(m["bound"], a.bound.as_str());
            match &p.expectation {
                Ok(e) => assert_eq!(m["t_expected"], exact(e.t).as_str(), "{}", recipe.id),
                Err(_) => assert_eq!(m["t_expected"], "none", "{}", recipe.id),
            }
            if let Some(e) = &p.elasticities {
                let hbm = e.hbm.map_or("none".to_string(), exact);
                assert_eq!(m["elasticity_hbm"], hbm.as_str(), "{}", recipe.id);
            }
            if let Some(s) = p.serving_figures() {
                let row = rows
                    .iter()
                    .find(|r| {
                        r["data_op"] == format!("{i}.serving").as_str() && r["chip"] == j as u64
                    })
                    .unwrap_or_else(|| panic!("{}: a serving row", recipe.id));
                let m = &row["metrics"];
                assert_eq!(m["max_batch"], exact(s.max_batch).as_str());
                let op = &recipe.scenario.ops[i];
                let under_load = op
                    .llm()
                    .is_some_and(|l| l.load != roofline::op::Load::Batch);
                if under_load {
                    // Under a load the headline figures are the load model's (issue 40).
                    let l = p
                        .load()
                        .unwrap_or_else(|| panic!("{}: load figures", recipe.id));
                    let fig = |x: Option<f64>| x.map_or("none".to_string(), exact);
                    assert_eq!(m["ttft"], fig(l.ttft.bound).as_str(), "{}", recipe.id);
                    assert_eq!(m["tpot"], fig(l.tpot.bound).as_str(), "{}", recipe.id);
                    assert_eq!(
                        m["tpot_expected"],
                        fig(l.tpot.expected).as_str(),
                        "{}",
                        recipe.id
                    );
                    assert_eq!(
                        m["running_batch"],
                        fig(l.running_batch).as_str(),
                        "{}",
                        recipe.id
                    );
                } else {
                    assert_eq!(m["ttft"], exact(s.ttft).as_str(), "{}", recipe.id);
                    assert_eq!(m["tpot"], exact(s.tpot).as_str(), "{}", recipe.id);
                    let exp = p.serving.as_ref().unwrap().expected.as_ref().unwrap();
                    match &exp.tpot {
                        Ok(e) => assert_eq!(m["tpot_expected"], exact(e.t).as_str()),
                        Err(_) => assert_eq!(m["tpot_expected"], "none"),
                    }
                }
            }
            checked_store += 1;
        }
    }
    assert!(
        checked_store >= 10,
        "{checked_store} pairs checked against the store"
    );
}

/// Matmul `bf16[512,4096] · bf16[4096,4096]` (the kind's default dtypes) on TPU v5e by hand:
/// 2·512·4096·4096 FLOPs = 17,179,869,184; T_math = that / 1.97e14 = 87.208 µs; bytes
/// 2·512·4096 + 2·4096² + 2·512·4096 = 41,943,040; compute-bound.
#[test]
fn eval_matmul_by_hand() {
    let v = json(&[
        "eval",
        "?chip=tpu-v5e&op=matmul:b=512,d=4096,f=4096",
        "--json",
    ]);
    let m = &v["rows"][0]["metrics"];
    let num = |k: &str| m[k].as_str().unwrap().parse::<f64>().unwrap();
    assert_eq!(num("flops"), 17_179_869_184.0);
    assert_eq!(num("bytes"), 41_943_040.0);
    assert!((num("t_math") - 17_179_869_184.0 / 1.97e14).abs() < 1e-15);
    assert_eq!(m["bound"], "compute");
    assert_eq!(v["rows"][0]["row"], "op");
    assert_eq!(v["rows"].as_array().unwrap().len(), 1);
    // The table writes the same figures with units.
    let t = cli(&["eval", "?chip=tpu-v5e&op=matmul:b=512,d=4096,f=4096"]);
    assert_eq!(t.status, 0);
    assert!(t.stdout.contains("t_math"), "{}", t.stdout);
    assert!(t.stdout.contains("87.2 µs"), "{}", t.stdout);
}

/// An `llm` has an op row and a serving row, each with its own `tokens_per_s`.
#[test]
fn eval_llm_has_two_tokens_per_s() {
    let v = json(&[
        "eval",
        "?chip=h100&op=llm:preset=llama3-8b,b=16,prompt=1024,output=512",
        "--json",
    ]);
    let rows = v["rows"].as_array().unwrap();
    let op = rows.iter().find(|r| r["row"] == "op").unwrap();
    let serving = rows.iter().find(|r| r["row"] == "serving").unwrap();
    assert!(rows.iter().any(|r| r["row"] == "part"));
    let a = op["metrics"]["tokens_per_s"].as_str().unwrap();
    let b = serving["metrics"]["tokens_per_s"].as_str().unwrap();
    assert_ne!(a, b);
    // The serving row's is B / TPOT.
    let tpot: f64 = serving["metrics"]["tpot"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let tps: f64 = b.parse().unwrap();
    assert!(
        (tps - 16.0 / tpot).abs() <= 1e-9 * tps,
        "{tps} vs 16 / {tpot}"
    );
}

#[test]
fn notices_exit_2_unless_lenient() {
    let link = "?chip=tpu-v9&op=matmul:b=512";
    let out = cli(&["eval", link]);
    assert_eq!(out.status, 2);
    assert!(out.stdout.is_empty());
    assert!(out.stderr.contains("tpu-v9"), "{}", out.stderr);
    let v = json(&["eval", link, "--json", "--lenient"]);
    // The unknown preset, then that the default chip stands in for it.
    let notices = v["notices"].as_array().unwrap();
    assert_eq!(notices.len(), 2, "{notices:?}");
    assert!(notices[0].as_str().unwrap().contains("tpu-v9"));
    assert_eq!(v["rows"][0]["chip_name"], "TPU v5e");
    // The bad field names its key.
    let out = cli(&["eval", "?op=matmul:b=-3"]);
    assert_eq!(out.status, 2);
    assert!(out.stderr.contains("b=-3"), "{}", out.stderr);
}

#[test]
fn bad_arguments_exit_2_naming_them() {
    for (args, says) in [
        (&[][..], "no command"),
        (&["evaluate"][..], "evaluate"),
        (&["eval"][..], "missing the link"),
        (&["eval", "?op=dot", "--jsn"][..], "--jsn"),
        (&["eval", "?op=dot", "extra"][..], "extra"),
        (&["sweep", "?op=dot", "--sweep"][..], "--sweep"),
        (&["sweep", "?op=dot", "--sweep", "b:9..1"][..], "--sweep"),
        (&["sweep", "?op=dot", "--sweep", "zz:1..10"][..], "zz"),
        (&["schema", "now"][..], "now"),
    ] {
        let out = cli(args);
        assert_eq!(out.status, 2, "{args:?}: {}", out.stdout);
        assert!(out.stderr.contains(says), "{args:?}: {}", out.stderr);
    }
}

/// Malformed links: never a panic; each run ends with 0 or 2.
#[test]
fn malformed_links_never_panic() {
    for link in [
        "",
        "?",
        "%%%",
        "?op=llm:b=NaN",
        "?op=matmul:b=1e400,d=0",
        "?chip=custom:hbm=-1&op=custom:flops=inf",
        "?op=llm:preset=nope,tp=0",
        "?sweep=b:0..0&op=train:dp=-1",
        "https://example.org/?chip=h100#op=dot",
        &"&op=dot".repeat(5000),
    ] {
        for lenient in [false, true] {
            let mut args = vec!["eval", link, "--json"];
            if lenient {
                args.push("--lenient");
            }
            let out = cli(&args);
            assert!(matches!(out.status, 0 | 2), "{link:.40}: {}", out.status);
            if out.status == 0 {
                let v: Value = serde_json::from_str(&out.stdout).unwrap();
                assert!(v["rows"].is_array());
            }
        }
    }
}

/// The sweep's exact crossover is the analysis's critical batch (two paths in the core), and
/// the CSV has one line per point.
#[test]
fn sweep_crossover_is_the_critical_batch() {
    let link = "?chip=tpu-v5e&op=matmul:d=4096,f=4096";
    let v = json(&["sweep", link, "--sweep", "b:1..1024:n=64", "--json"]);
    let curve = &v["curves"][0];
    assert_eq!(curve["points"].as_array().unwrap().len(), 64);
    let x = curve["crossovers"][0]["x"].as_f64().unwrap();
    let s = roofline::url::decode(link).scenario;
    let a = roofline::analyze(&s.ops[0], &s.chips[0], &s.options).unwrap();
    let c = a.critical.unwrap().value;
    assert!((x - c).abs() <= 1e-9 * c, "{x} vs {c}");
    let csv = cli(&["sweep", link, "--sweep", "b:1..1024:n=64"]);
    assert_eq!(csv.status, 0);
    assert_eq!(csv.stdout.lines().count(), 65);
    assert!(
        csv.stdout.starts_with("operation,chip,b,"),
        "{}",
        csv.stdout
    );
}

#[test]
fn schema_describes_the_output() {
    let schema = json(&["schema"]);
    let required: Vec<&str> = schema["required"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap())
        .collect();
    let v = json(&["eval", "", "--json"]);
    for k in &required {
        assert!(!v[*k].is_null(), "{k}");
    }
    let row_required = &schema["properties"]["rows"]["items"]["required"];
    for k in row_required.as_array().unwrap() {
        assert!(!v["rows"][0][k.as_str().unwrap()].is_null(), "{k}");
    }
    let kinds = &schema["properties"]["rows"]["items"]["properties"]["row"]["enum"];
    assert!(kinds.as_array().unwrap().contains(&v["rows"][0]["row"]));
}

/// The binary itself: its exit status and streams.
#[test]
fn binary_exit_status() {
    let bin = env!("CARGO_BIN_EXE_roofline");
    let out = std::process::Command::new(bin)
        .args(["eval", "?chip=tpu-v9"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("tpu-v9"));
    let out = std::process::Command::new(bin)
        .args(["eval", "?op=dot", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["rows"][0]["metrics"]["bound"], "memory");
}
