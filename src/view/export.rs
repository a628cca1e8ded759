//! Exports: file names, the sweep as CSV, the scenario with its results as JSON, the embed
//! snippet.

use roofline::inputs::FlopConvention;
use roofline::inputs::Op;
use roofline::inputs::Scenario;
use roofline::results::sweep;
use roofline::results::Analysis;
use roofline::results::Results;
use roofline::results::{Elasticities, Explanation};
use roofline::units::format_exact;

/// A file name stem for exports: `roofline-lab-tpu-v5e-matmul-sweep`.
pub fn file_stem(s: &Scenario) -> String {
    let mut words = vec!["roofline-lab".to_string()];
    if let Some(c) = s.chips.first() {
        words.push(c.preset_id.clone().unwrap_or_else(|| "custom".into()));
    }
    if let Some(o) = s.ops.first() {
        words.push(o.kind_id().to_string());
    }
    words.push(s.plot.as_str().into());
    words.join("-")
}

fn csv_field(t: &str) -> String {
    if t.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", t.replace('"', "\"\""))
    } else {
        t.to_string()
    }
}

/// The sweep series as CSV, with units in the header; one row per point.
pub fn sweep_csv(s: &Scenario) -> String {
    let conv = match s.options.convention {
        FlopConvention::TwoPerMac => "2 FLOPs/MAC",
        FlopConvention::OnePerMac => "1 FLOP/MAC",
    };
    let mut out = format!(
        "operation,chip,{},achieved (FLOPs/s; {conv}),t_lower (s),t_upper (s),t_math (s),t_comms (s),fraction of peak,bound\n",
        csv_field(&s.sweep.field)
    );
    for chip in &s.chips {
        for op in &s.ops {
            if op.field(&s.sweep.field).is_none() {
                continue;
            }
            let Ok(series) = sweep(op, chip, &s.options, &s.sweep) else {
                continue;
            };
            for p in &series.points {
                out.push_str(&format!(
                    "{},{},{},{},{},{},{},{},{},{}\n",
                    csv_field(&op.title()),
                    csv_field(&chip.name),
                    format_exact(p.x),
                    format_exact(p.achieved),
                    format_exact(p.t_lower),
                    format_exact(p.t_upper),
                    format_exact(p.t_math),
                    format_exact(p.t_comms),
                    format_exact(p.fraction),
                    p.bound.as_str()
                ));
            }
        }
    }
    out
}

/// The scenario with its results, as JSON (export). Keys in alphabetical order; a result has
/// either an analysis or an error (the other is `null`).
pub fn scenario_json(s: &Scenario) -> String {
    scenario_json_of(s, &Results::of(s))
}

/// [`scenario_json`] from `results` (the store brought to `s`).
pub fn scenario_json_of(s: &Scenario, results: &Results) -> String {
    #[derive(serde::Serialize)]
    struct Doc<'a> {
        #[serde(skip_serializing_if = "Option::is_none")]
        comparison: Option<Vec<Compared>>,
        generator: &'static str,
        results: Vec<Entry>,
        scenario: &'a Scenario,
        url_query: String,
    }
    #[derive(serde::Serialize)]
    struct Entry {
        analysis: Option<Analysis>,
        chip: usize,
        elasticities: Option<Elasticities>,
        error: Option<String>,
        op: usize,
    }
    let results = results
        .pairs()
        .map(|(i, j, r)| Entry {
            elasticities: r.elasticities,
            analysis: r.analysis.as_ref().ok().cloned(),
            chip: j,
            error: r.analysis.as_ref().err().map(|e| e.to_string()),
            op: i,
        })
        .collect();
    let doc = Doc {
        comparison: comparison(s),
        generator: "Roofline Lab",
        results,
        scenario: s,
        url_query: roofline::url::encode(s),
    };
    crate::json::to_string_pretty(&doc).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}

/// Every other row against the baseline (issue 26), in the JSON export.
#[derive(Debug, serde::Serialize)]
pub struct Compared {
    /// The row's chip.
    pub chip: usize,
    /// Why there is no explanation (an analysis error).
    pub error: Option<String>,
    /// The row against the baseline.
    pub explanation: Option<Explanation>,
    /// The row's operation.
    pub op: usize,
}

/// Each row but the baseline explained against it; `None` without a baseline.
pub fn comparison(s: &Scenario) -> Option<Vec<Compared>> {
    let b = s.base_row()?;
    let base = (&s.ops[b.op], &s.chips[b.chip]);
    let mut out = Vec::new();
    for (i, op) in s.ops.iter().enumerate() {
        for (j, chip) in s.chips.iter().enumerate() {
            if (i, j) == (b.op, b.chip) {
                continue;
            }
            let e = roofline::results::explain(base, (op, chip), &s.options);
            out.push(Compared {
                chip: j,
                error: e.as_ref().err().map(|e| e.to_string()),
                explanation: e.ok(),
                op: i,
            });
        }
    }
    Some(out)
}

/// The results as CSV (issue 26): one line per (operation, chip) with `T_lower`, the bound,
/// the time against the baseline (`vs_base`, `none` without one) and the three elasticities
/// (`none` where the op does not use the resource).
pub fn results_csv(s: &Scenario) -> String {
    let mut out = String::from(
        "operation,chip,t_lower (s),bound,vs_base,elasticity_peak,elasticity_hbm,elasticity_link,error\n",
    );
    for r in super::rows::result_rows(s) {
        let v = |m: &str| {
            r.cells
                .iter()
                .find(|c| c.metric == m)
                .map_or("none".to_string(), |c| c.value.clone())
        };
        let (i, _) = r.op_key.split_once('.').unwrap_or((&r.op_key, ""));
        let op = i.parse::<usize>().ok().and_then(|i| s.ops.get(i));
        let line = [
            op.map(|o| o.title()).unwrap_or_default(),
            s.chips
                .get(r.chip)
                .map(|c| c.name.clone())
                .unwrap_or_default(),
            v("t_lower"),
            v("bound"),
            v("vs_base"),
            v("elasticity_peak"),
            v("elasticity_hbm"),
            v("elasticity_link"),
            r.error.clone().unwrap_or_default(),
        ];
        let line: Vec<String> = line.iter().map(|t| csv_field(t)).collect();
        out.push_str(&line.join(","));
        out.push('\n');
    }
    out
}

fn attr_escape(t: &str) -> String {
    t.replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// An `<iframe>` snippet (src, width, height, `loading="lazy"`, title).
pub fn iframe_html(src: &str, width: u32, height: u32, title: &str) -> String {
    format!(
        "<iframe src=\"{}\" width=\"{width}\" height=\"{height}\" loading=\"lazy\" title=\"{}\" style=\"border:0\"></iframe>",
        attr_escape(src),
        attr_escape(title)
    )
}

/// The embed's title attribute.
pub fn embed_title(s: &Scenario) -> String {
    let ops: Vec<String> = s.ops.iter().map(Op::title).collect();
    let chips: Vec<&str> = s.chips.iter().map(|c| c.name.as_str()).collect();
    format!("Roofline Lab: {} on {}", ops.join(", "), chips.join(", "))
}
