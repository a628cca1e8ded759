//! Golden URLs: every case of `tests/golden_urls.txt` (a table shared with the browser tests;
//! its header defines the format) is decoded and checked natively against its expectations,
//! plus hand-computed checks of the book's numbers and the link limits.
//!
//! A URL in the table may never change meaning: a failure here means a published link would
//! now show something else.

use roofline::url::{self, decode, encode, Decoded, MAX_CHIPS, MAX_NOTICES, MAX_OPS};
use roofline::{analyze, preset, preset_ids, Analysis, ChipField, Scenario};
use std::str::FromStr;

const GOLDEN: &str = include_str!("../golden_urls.txt");

/// `(line number, URL, expectations)` of every case.
fn cases() -> Vec<(usize, &'static str, Vec<&'static str>)> {
    GOLDEN
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|(i, l)| {
            let mut cols = l.split('\t');
            let url = cols.next().unwrap_or_default();
            (i + 1, url, cols.filter(|c| !c.is_empty()).collect())
        })
        .collect()
}

/// `1` or `2,3` → (op, chip), 1-based, default 1.
fn loc(at: Option<&str>) -> Result<(usize, usize), String> {
    let Some(at) = at else { return Ok((1, 1)) };
    let mut it = at.split(',').map(|p| p.trim().parse::<usize>());
    let a = it.next().unwrap_or(Ok(1)).map_err(|e| e.to_string())?;
    let b = it.next().unwrap_or(Ok(1)).map_err(|e| e.to_string())?;
    if a == 0 || b == 0 {
        return Err("indices are 1-based".into());
    }
    Ok((a, b))
}

fn num(got: Option<f64>, want: &str) -> Result<(), String> {
    let (v, tol) = match want.split_once('±') {
        Some((v, t)) => (v, t.parse::<f64>().map_err(|e| format!("tolerance: {e}"))?),
        None => (want, 1e-9),
    };
    match (got, v.trim()) {
        (None, "none") => Ok(()),
        (Some(g), "none") => Err(format!("got {g}, want none")),
        (None, _) => Err(format!("got none, want {v}")),
        (Some(g), v) => {
            let w: f64 = v.parse().map_err(|e| format!("value {v:?}: {e}"))?;
            let rel = if w == 0.0 {
                g.abs()
            } else {
                ((g - w) / w).abs()
            };
            if rel <= tol {
                Ok(())
            } else {
                Err(format!(
                    "got {g}, want {w} ± {tol} (relative error {rel:.3e})"
                ))
            }
        }
    }
}

fn eq(got: &str, want: &str) -> Result<(), String> {
    if got == want {
        Ok(())
    } else {
        Err(format!("got {got:?}, want {want:?}"))
    }
}

fn analysis(d: &Decoded, at: Option<&str>) -> Result<Result<Analysis, roofline::Error>, String> {
    let (o, c) = loc(at)?;
    let s = &d.scenario;
    let op = s.ops.get(o - 1).ok_or(format!("no op {o}"))?;
    let chip = s.chips.get(c - 1).ok_or(format!("no chip {c}"))?;
    Ok(analyze(op, chip, &s.options))
}

/// Checks one expectation (see the header of `golden_urls.txt`).
fn check(url: &str, exp: &str, d: &Decoded) -> Result<(), String> {
    let i = exp.find(['=', '~']).ok_or("no = or ~")?;
    let (lhs, op, value) = (&exp[..i], &exp[i..=i], &exp[i + 1..]);
    let (key, at) = match lhs.split_once('@') {
        Some((k, a)) => (k, Some(a)),
        None => (lhs, None),
    };
    let s = &d.scenario;
    if op == "~" {
        return match key {
            "notice" => {
                if d.notices.iter().any(|n| n.contains(value)) {
                    Ok(())
                } else {
                    Err(format!("no notice contains {value:?}"))
                }
            }
            "error" => match analysis(d, at)? {
                Err(e) if e.to_string().contains(value) => Ok(()),
                Err(e) => Err(format!("error {e:?} does not contain {value:?}")),
                Ok(_) => Err("the analysis succeeded".into()),
            },
            _ => Err(format!("unknown ~ key {key}")),
        };
    }
    if let Some(field) = key.strip_prefix("chip.") {
        let c = at.map_or(Ok(1), |a| a.parse::<usize>().map_err(|e| e.to_string()))?;
        let chip = s
            .chips
            .get(c.wrapping_sub(1))
            .ok_or(format!("no chip {c}"))?;
        let got = match field {
            "preset" => chip.preset_id.clone().unwrap_or_else(|| "none".into()),
            "interconnect" => match chip.interconnect {
                roofline::Interconnect::Switch => "switch".into(),
                roofline::Interconnect::PointToPoint => "point_to_point".into(),
            },
            f => {
                let f = ChipField::from_str(f).map_err(|e| e.to_string())?;
                chip.get_str(f).unwrap_or_else(|| "none".into())
            }
        };
        return eq(&got, value);
    }
    if let Some(field) = key.strip_prefix("op.") {
        let o = at.map_or(Ok(1), |a| a.parse::<usize>().map_err(|e| e.to_string()))?;
        let op = s.ops.get(o.wrapping_sub(1)).ok_or(format!("no op {o}"))?;
        let got = match field {
            "kind" => op.kind_id().to_string(),
            "label" => op.label.clone().unwrap_or_else(|| "none".into()),
            k => op.get(k).ok_or(format!("op {o} has no field {k}"))?,
        };
        return eq(&got, value);
    }
    let count = |n: usize| eq(&n.to_string(), value);
    match key {
        "chips" => return count(s.chips.len()),
        "ops" => return count(s.ops.len()),
        "notices" => {
            return count(d.notices.len()).map_err(|e| format!("{e}: {:#?}", d.notices));
        }
        "encode" => return eq(&encode(s), value),
        "sweep" => {
            let e = encode(s);
            let sw = e
                .split('&')
                .find_map(|p| p.strip_prefix("sweep="))
                .unwrap_or_default();
            return eq(sw, value);
        }
        "plot" => return eq(&format!("{:?}", s.plot).to_lowercase(), value),
        "y" => return eq(s.axes.y.as_str(), value),
        "log" => return eq(s.axes.log_str().unwrap_or("none"), value),
        "flops" => {
            let f = match s.options.convention {
                roofline::FlopConvention::TwoPerMac => "2mac",
                roofline::FlopConvention::OnePerMac => "1mac",
            };
            return eq(f, value);
        }
        "derate" => return num(Some(s.options.derate), value),
        "cal" => {
            let c = &s.options.cal;
            return eq(
                if c.is_none() {
                    "none".into()
                } else {
                    c.format()
                }
                .as_str(),
                value,
            );
        }
        "embed" => return eq(if s.embed { "1" } else { "0" }, value),
        "theme" => {
            let t = s
                .theme
                .map_or("none".into(), |t| format!("{t:?}").to_lowercase());
            return eq(&t, value);
        }
        _ => {}
    }
    if let Some(figure) = key.strip_prefix("load_expected.") {
        // The serving row's expectation under a load (issue 43 pins "my engine"'s): the
        // expected figures and their basis.
        let (o, c) = loc(at)?;
        let op = s.ops.get(o - 1).ok_or(format!("no op {o}"))?;
        let chip = s.chips.get(c - 1).ok_or(format!("no chip {c}"))?;
        let r = roofline::validation::load::page::load_row(op, chip, &s.options)
            .map_err(|e| format!("load row failed: {e}"))?
            .ok_or("no load row (not an llm)")?;
        return match figure {
            "basis" => eq(r.basis.map_or("none", |b| b.id()), value),
            "ttft" => num(r.ttft.expected, value),
            "tpot" => num(r.tpot.expected, value),
            "ttft_lo" => num(r.ttft.lo, value),
            "tpot_lo" => num(r.tpot.lo, value),
            "ttft_hi" => num(r.ttft.hi, value),
            "tpot_hi" => num(r.tpot.hi, value),
            "requests_per_s" => num(r.requests_per_s.expected, value),
            "tokens_per_s" => num(r.tokens_per_s.expected, value),
            k => Err(format!("unknown expected load figure {k}")),
        };
    }
    if let Some(figure) = key.strip_prefix("load.") {
        // Serving under load (issue 40): the load model's bound figures.
        let (o, c) = loc(at)?;
        let op = s.ops.get(o - 1).ok_or(format!("no op {o}"))?;
        let chip = s.chips.get(c - 1).ok_or(format!("no chip {c}"))?;
        let f = roofline::serving::load_figures(op, chip, &s.options)
            .map_err(|e| format!("load figures failed: {e}"))?
            .ok_or("no load figures (load=batch or not an llm)")?;
        let at = f.at.as_ref();
        if figure == "none" {
            return match (&f.why_none, value) {
                (None, "none") => Ok(()),
                (Some(w), v) if v != "none" && w.starts_with(v) => Ok(()),
                (w, v) => Err(format!("why none {w:?}, want {v:?}")),
            };
        }
        return num(
            match figure {
                "ttft" => at.map(|a| a.ttft),
                "tpot" => at.map(|a| a.tpot),
                "requests_per_s" => at.map(|a| a.requests_per_s),
                "tokens_per_s" => f.tokens_per_s,
                "running_batch" => at.map(|a| a.running),
                "saturation_qps" => f.saturation_qps,
                "goodput_qps" => f.goodput_qps,
                k => return Err(format!("unknown load figure {k}")),
            },
            value,
        );
    }
    let serving_key = matches!(
        key,
        "max_batch" | "ttft" | "tpot" | "tokens_per_s_chip" | "tokens_per_s_seq" | "requests_per_s"
    );
    // `tokens_per_s` is a training step's figure for a `train` op, the serving row's for an
    // `llm` (B / tpot).
    let llm_tokens = key == "tokens_per_s" && {
        let (o, _) = loc(at)?;
        s.ops.get(o - 1).is_some_and(|op| op.kind_id() == "llm")
    };
    if serving_key || llm_tokens {
        // An llm op's serving row (issue 13; issue 40 pins its figures): the largest batch
        // whose weights and KV caches fit, and the static batch's times and throughputs.
        let (o, c) = loc(at)?;
        let op = s.ops.get(o - 1).ok_or(format!("no op {o}"))?;
        let chip = s.chips.get(c - 1).ok_or(format!("no chip {c}"))?;
        let sv = roofline::serving::serving(op, chip, &s.options)
            .map_err(|e| format!("serving failed: {e}"))?;
        let f = |g: fn(&roofline::serving::Serving) -> f64| sv.as_ref().map(g);
        return num(
            match key {
                "max_batch" => f(|v| v.max_batch),
                "ttft" => f(|v| v.ttft),
                "tpot" => f(|v| v.tpot),
                "tokens_per_s" => f(|v| v.tokens_per_s),
                "tokens_per_s_chip" => f(|v| v.tokens_per_s_chip),
                "tokens_per_s_seq" => f(|v| v.tokens_per_s_seq),
                _ => f(|v| v.requests_per_s),
            },
            value,
        );
    }
    let a = analysis(d, at)?.map_err(|e| format!("analysis failed: {e}"))?;
    let _ = url;
    match key {
        "bound" => eq(a.bound.as_str(), value),
        "binding" => eq(a.binding.as_str(), value),
        "critical_dim" => eq(
            a.critical.as_ref().map_or("none", |c| c.dim.as_str()),
            value,
        ),
        "flops" => num(Some(a.flops), value),
        "bytes" => num(Some(a.bytes), value),
        "intensity" => num(Some(a.intensity), value),
        "approx_intensity" => num(a.approx_intensity.as_ref().map(|x| x.0), value),
        "ridge" => num(Some(a.ridge), value),
        "t_math" => num(Some(a.t_math), value),
        "t_comms" => num(Some(a.t_comms), value),
        "t_lower" => num(Some(a.t_lower), value),
        "t_upper" => num(Some(a.t_upper), value),
        "achieved" => num(Some(a.achieved), value),
        "fraction" => num(Some(a.fraction), value),
        "memory" => num(Some(a.memory), value),
        "critical" => num(a.critical.as_ref().map(|c| c.value), value),
        "approx_critical" => num(a.critical.as_ref().and_then(|c| c.approx), value),
        "latency_bound" => eq(
            a.report.collective.as_ref().map_or("none", |c| {
                if c.latency_bound {
                    "true"
                } else {
                    "false"
                }
            }),
            value,
        ),
        "t_latency" => num(a.report.collective.as_ref().map(|c| c.t_latency), value),
        "t_bandwidth" => num(a.report.collective.as_ref().map(|c| c.t_bandwidth), value),
        // A training step (op=train): its own figures.
        "mfu" => num(a.report.train.as_ref().map(|t| t.mfu), value),
        "tokens_per_s" => num(a.report.train.as_ref().map(|t| t.tokens_per_s), value),
        "days" => num(a.report.train.as_ref().and_then(|t| t.days), value),
        "days_at_mfu" => num(
            a.report
                .train
                .as_ref()
                .and_then(|t| t.budget.and_then(|b| b.days_at_mfu_6n)),
            value,
        ),
        "train_chips" => num(a.report.train.as_ref().map(|t| t.chips), value),
        "fits" => eq(if a.fits { "true" } else { "false" }, value),
        k => Err(format!("unknown key {k}")),
    }
}

#[test]
fn golden_table() {
    let cases = cases();
    assert!(cases.len() >= 40, "the table lost cases: {}", cases.len());
    let mut failures = Vec::new();
    let mut checked = 0;
    for (line, u, exps) in &cases {
        assert!(u.starts_with('?'), "line {line}: a URL starts with '?'");
        let d = decode(u);
        for e in exps {
            checked += 1;
            if let Err(msg) = check(u, e, &d) {
                failures.push(format!("line {line}: {u}\n    {e}\n    → {msg}"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {checked} expectations failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Every golden URL re-encodes to a link that decodes to the same scenario, without notices,
/// and whose encoding is a fixed point.
#[test]
fn golden_urls_reencode_cleanly() {
    for (line, u, _) in cases() {
        let d = decode(u);
        let e = encode(&d.scenario);
        let d2 = decode(&e);
        assert_eq!(d2.scenario, d.scenario, "line {line}: {u} → {e}");
        assert!(d2.notices.is_empty(), "line {line}: {e}: {:?}", d2.notices);
        assert_eq!(encode(&d2.scenario), e, "line {line}");
        assert!(!e.starts_with('?') && e.starts_with("v=1&"), "{e}");
    }
}

const EXAMPLE: &str = "?chip=tpu-v5e&op=matmul:d=4096,f=4096,x=bf16,w=int8&op=matmul:d=1024,f=1024,x=bf16,w=int8&sweep=b:1..511";

/// The example is the first-load scenario. `Scenario::default()` labels its ops
/// `D=F=4096` / `D=F=1024` and the example has no `label=`, so equality is checked with the
/// labels cleared; once the default drops its labels the check is strict.
#[test]
fn example_is_the_first_load_scenario() {
    let d = decode(EXAMPLE);
    assert!(d.notices.is_empty(), "{:?}", d.notices);
    let default = Scenario::default();
    assert_eq!(decode("").scenario, default);
    assert!(decode("").notices.is_empty());
    assert_eq!(decode("?").scenario, default);
    let mut unlabeled = default.clone();
    for op in &mut unlabeled.ops {
        op.label = None;
    }
    assert_eq!(d.scenario, unlabeled);
    if default.ops.iter().all(|o| o.label.is_none()) {
        assert_eq!(d.scenario, default);
    }
    // Everything that affects numbers is identical.
    // Every op on every chip, chip-major.
    let analyses = |s: &Scenario| -> Vec<_> {
        s.chips
            .iter()
            .flat_map(|c| s.ops.iter().map(move |o| analyze(o, c, &s.options)))
            .collect()
    };
    let (a, b) = (analyses(&d.scenario), analyses(&default));
    for (x, y) in a.iter().zip(&b) {
        let (x, y) = (x.as_ref().unwrap(), y.as_ref().unwrap());
        assert_eq!(x.t_lower, y.t_lower);
        assert_eq!(x.critical, y.critical);
    }
    // With labels spelled out, the default round-trips exactly.
    assert_eq!(decode(&encode(&default)).scenario, default);
}

/// The book's question 3, computed by hand from the chip figures.
#[test]
fn hand_computed_critical_batches() {
    let d = decode(EXAMPLE);
    let s = &d.scenario;
    let (peak, hbm) = (1.97e14, 8.2e11);
    for (op, dim) in s.ops.iter().zip([4096.0, 1024.0]) {
        let (dd, ff) = (dim, dim);
        let want = (dd * ff / hbm) / (2.0 * dd * ff / peak - (2.0 * dd + 2.0 * ff) / hbm);
        let a = analyze(op, &s.chips[0], &s.options).unwrap();
        let got = a.critical.unwrap().value;
        assert!((got - want).abs() / want < 1e-12, "{got} vs {want}");
    }
    let r = |d: &str| {
        let x = decode(d);
        analyze(
            &x.scenario.ops[0],
            &x.scenario.chips[0],
            &x.scenario.options,
        )
        .unwrap()
    };
    let crit = |d: &str| r(d).critical.unwrap().value;
    assert_eq!(format!("{:.1}", crit(EXAMPLE)), "136.1");
    let second = decode(EXAMPLE);
    let a2 = analyze(
        &second.scenario.ops[1],
        &second.scenario.chips[0],
        &second.scenario.options,
    )
    .unwrap();
    assert_eq!(format!("{:.1}", a2.critical.unwrap().value), "226.3");
    let h = r("?chip=h100&op=matmul:b=512,d=8192,f=8192");
    assert!((h.ridge - 9.89e14 / 3.35e12).abs() < 1e-9);
    assert_eq!(format!("{:.1}", h.ridge), "295.2");
    assert_eq!(h.bound, roofline::Bound::Compute);
    let n = r("?chip=tpu-v5e&op=matmul:b=65536,d=8755,f=65536,shards=2,split=d,link=ici");
    assert_eq!(n.bound, roofline::Bound::Network);
    assert_eq!(n.critical.unwrap().value.floor(), 8755.0);
    let q1 = r("?chip=tpu-v5e:hbm=8.1e11&op=matmul:x=int8,w=int8,out=int8");
    assert_eq!(q1.critical.unwrap().approx.unwrap().round(), 243.0);
    let p = r("?chip=tpu-v6e&op=matmul:b=1024,d=8192,f=32768,from=pcie");
    assert!((p.critical.unwrap().value - 57_500.0).abs() < 1e-6);
    for n in [1.0, 7.0, 4096.0, 1e9] {
        let a = r(&format!("?op=dot:n={n}"));
        assert!((a.intensity - (2.0 * n - 1.0) / (4.0 * n + 2.0)).abs() < 1e-15);
    }
    let b = r("?op=bmm:b=64,x=int8,w=int8,out=int8");
    assert!((b.intensity - 2.0).abs() < 1e-3);
}

#[test]
fn every_preset_is_a_bare_id() {
    for id in preset_ids() {
        let d = decode(&format!("chip={id}&op=dot"));
        assert!(d.notices.is_empty(), "{id}: {:?}", d.notices);
        assert_eq!(d.scenario.chips, vec![preset(id).unwrap()]);
        assert!(encode(&d.scenario).contains(&format!("&chip={id}&")));
        let upper = decode(&format!("chip={}", id.to_uppercase()));
        assert_eq!(upper.scenario.chips[0].preset_id.as_deref(), Some(id));
    }
}

#[test]
fn limits() {
    // 16 chips, 64 ops.
    let many = |p: &str, n: usize| vec![p; n].join("&");
    let d = decode(&format!(
        "{}&{}",
        many("chip=h100", MAX_CHIPS + 3),
        many("op=dot", MAX_OPS + 5)
    ));
    assert_eq!(d.scenario.chips.len(), MAX_CHIPS);
    assert_eq!(d.scenario.ops.len(), MAX_OPS);
    assert_eq!(d.notices.len(), 2, "{:?}", d.notices);
    assert!(d.notices[0].contains("3 more were ignored"));
    assert!(d.notices[1].contains("5 more were ignored"));
    let exact = decode(&format!(
        "{}&{}",
        many("chip=l4", MAX_CHIPS),
        many("op=dot", MAX_OPS)
    ));
    assert!(exact.notices.is_empty());

    // 64 KiB: the rest is cut at a parameter boundary.
    let long = format!(
        "chip=h100&op=dot:label={}&{}",
        "y".repeat(70_000),
        "plot=roofline"
    );
    let d = decode(&long);
    assert!(
        d.notices.iter().any(|n| n.contains("longer than 64 KiB")),
        "{:?}",
        d.notices
    );
    assert_eq!(d.scenario.plot, roofline::PlotKind::Sweep);
    assert_eq!(d.scenario.chips[0].preset_id.as_deref(), Some("h100"));
    let filler = format!("op=dot&{}", "x=1&".repeat(20_000));
    let d = decode(&format!("{filler}op=bmm"));
    assert!(d.notices.len() <= MAX_NOTICES, "{}", d.notices.len());
    assert!(d.notices.last().unwrap().contains("more problems"));
    assert_eq!(d.scenario.ops.len(), 1);
    // A multi-byte character straddling the limit.
    let d = decode(&format!("op=dot:label={}", "é".repeat(40_000)));
    assert!(d.notices.iter().any(|n| n.contains("64 KiB")));

    // Names and labels are cut to 80 characters.
    let d = decode(&format!("op=dot:label={}", "ü".repeat(100)));
    assert_eq!(
        d.scenario.ops[0].label.as_ref().unwrap().chars().count(),
        80
    );
    assert_eq!(
        d.notices,
        ["op 1: label is longer than 80 characters; cut to 80"]
    );
}

#[test]
fn lenient_input() {
    let want = decode("chip=h100&op=dot").scenario;
    for q in [
        "?chip=h100&op=dot",
        "  ?chip=h100&op=dot#fragment",
        "https://example.org/lab/?chip=h100&op=dot",
        "/lab?chip=h100&op=dot",
        "chip=h100&&op=dot&",
        "CHIP=h100&Op=DOT",
        "chip=%20h100%20&op=dot:",
    ] {
        let d = decode(q);
        assert_eq!(d.scenario, want, "{q}");
        assert!(d.notices.is_empty(), "{q}: {:?}", d.notices);
    }
    // A `?` inside a value is text.
    let d = decode("op=dot:label=why?not");
    assert_eq!(d.scenario.ops[0].label.as_deref(), Some("why?not"));
    // `embed` alone switches embed mode on.
    assert!(decode("embed").scenario.embed);
    // Repeated single parameters: the last wins, with a notice.
    let d = decode("plot=roofline&plot=sweep");
    assert_eq!(d.scenario.plot, roofline::PlotKind::Sweep);
    assert_eq!(d.notices.len(), 1);
    // An empty label means no label; control characters become spaces.
    let d = decode("op=dot:label=&op=dot:label=a%0Ab");
    assert_eq!(d.scenario.ops[0].label, None);
    assert_eq!(d.scenario.ops[1].label.as_deref(), Some("a b"));
    assert_eq!(url::VERSION, 1);
}
