//! Roofline Lab from a command line (issue 41): the page's result rows for a link, as a table or
//! as JSON, the link's sweeps, the validation set's report and the JSON schema of `eval --json`.
//!
//! The rows are the page's own: [`roofline_lab::view::result_rows`] builds them, here as in the
//! browser, so each `data-metric` name and `data-value` string is the page's exactly. Nothing
//! here computes a figure; it decodes the link, asks the view for its rows and writes them out.
//!
//! [`run`] is the whole program (arguments in; exit status, standard output and standard error
//! out), so the tests call it without a process. Bad input (an unknown command or flag, a link
//! with notices without `--lenient`) gives exit status 2 and a message naming the key.

use roofline::scenario::Scenario;
use roofline::url::decode;
use roofline::validation::load::steps::FittedSteps;
use roofline_lab::view::columns::header_of;
use roofline_lab::view::serving_tails;
use roofline_lab::view::{result_rows, sweep_csv, ResultRow};
use serde_json::{json, Map, Value};
use std::sync::Arc;

/// The version of `eval --json`'s shape ([`schema`]); a change of shape is a new version.
pub const SCHEMA_VERSION: u32 = 1;

/// What a row of the page is: an operation on a chip, one part of a model step, or an `llm`'s
/// serving row (which has its own `tokens_per_s`: output tokens per second while decoding,
/// not the step's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowKind {
    /// `data-op="<i>"`.
    Op,
    /// `data-op="<i>.<k>"`.
    Part,
    /// `data-op="<i>.serving"`.
    Serving,
}

impl RowKind {
    /// The word in the JSON (`row`).
    pub fn id(self) -> &'static str {
        match self {
            RowKind::Op => "op",
            RowKind::Part => "part",
            RowKind::Serving => "serving",
        }
    }
}

/// A link's rows as the page shows them, with the link's notices.
pub struct Evaluated {
    /// The decoded scenario.
    pub scenario: Scenario,
    /// Every row, in the page's order (an operation's row, its parts, its serving row).
    pub rows: Vec<(RowKind, ResultRow)>,
    /// What the link held that was left out, each naming its key.
    pub notices: Vec<String>,
}

/// The page's rows of `link` (a whole URL or its query), with the simulated tails (issue 42)
/// the page's worker lays over a serving row under load: computed here, never `pending`.
pub fn eval(link: &str) -> Evaluated {
    let d = decode(link);
    let mut top: Vec<Arc<ResultRow>> = result_rows(&d.scenario).into_iter().map(Arc::new).collect();
    if let Some(key) = serving_tails::sim_key(&d.scenario) {
        let done = serving_tails::simulate(&key, &serving_tails::PageSteps(FittedSteps::stored()));
        done.overlay(Some(&key), &mut top);
    }
    let mut rows = Vec::new();
    for r in top {
        let mut r = Arc::unwrap_or_clone(r);
        let parts = std::mem::take(&mut r.parts);
        let serving = r.serving.take();
        rows.push((RowKind::Op, r));
        rows.extend(parts.into_iter().map(|p| (RowKind::Part, p)));
        rows.extend(serving.map(|s| (RowKind::Serving, *s)));
    }
    Evaluated {
        scenario: d.scenario,
        rows,
        notices: d.notices,
    }
}

/// The operation's position in a row's `data-op` (`"2"`, `"2.1"`, `"2.serving"` → 2).
fn op_index(r: &ResultRow) -> usize {
    let head = r.op_key.split('.').next().unwrap_or_default();
    head.parse().unwrap_or_default()
}

/// `eval --json`: `{schema_version, set_version, rows: [{op, chip, row, metrics}], notices}`,
/// each metric's value the page's `data-value` string.
pub fn eval_json(e: &Evaluated) -> Value {
    let rows: Vec<Value> = e
        .rows
        .iter()
        .map(|(kind, r)| {
            let metrics: Map<String, Value> = r
                .cells
                .iter()
                .map(|c| (c.metric.to_string(), Value::String(c.value.clone())))
                .collect();
            let i = op_index(r);
            let mut row = json!({
                "op": i,
                "chip": r.chip,
                "row": kind.id(),
                "data_op": r.op_key,
                "name": r.name.trim(),
                "op_name": e.scenario.ops.get(i).map(|o| o.title()).unwrap_or_default(),
                "chip_name": e.scenario.chips.get(r.chip).map(|c| c.name.clone()).unwrap_or_default(),
                "metrics": metrics,
            });
            if let Some(err) = &r.error {
                row["error"] = Value::String(err.clone());
            }
            row
        })
        .collect();
    json!({
        "schema_version": SCHEMA_VERSION,
        "set_version": roofline::validation::SET_VERSION,
        "link": roofline::url::encode(&e.scenario),
        "rows": rows,
        "notices": e.notices,
    })
}

/// `eval`'s table: per row its name, then each figure's `data-metric`, its column's header
/// and the text the page shows (with its unit).
pub fn eval_table(e: &Evaluated) -> String {
    let mut out = String::new();
    for (kind, r) in &e.rows {
        out.push_str(&format!("{} [{} {}]\n", r.name.trim(), kind.id(), r.op_key));
        if let Some(err) = &r.error {
            out.push_str(&format!("  error: {err}\n"));
        }
        let w = r.cells.iter().map(|c| c.metric.len()).max().unwrap_or(0);
        for c in &r.cells {
            let head = header_of(c.metric);
            let text = if head.is_empty() || c.text.starts_with(head) {
                c.text.clone()
            } else {
                format!("{head}: {}", c.text)
            };
            out.push_str(&format!("  {:<w$}  {text}\n", c.metric));
        }
    }
    for n in &e.notices {
        out.push_str(&format!("notice: {n}\n"));
    }
    out
}

/// `sweep --json`: each (operation, chip) with the swept field, operation-major within a chip as
/// the page's sweep plot: its points and exact crossovers, or why it has none.
pub fn sweep_json(s: &Scenario) -> Value {
    let mut curves = Vec::new();
    for (j, chip) in s.chips.iter().enumerate() {
        for (i, op) in s.ops.iter().enumerate() {
            if op.field(&s.sweep.field).is_none() {
                continue;
            }
            let mut v = json!({"op": i, "chip": j, "op_name": op.title(), "chip_name": chip.name});
            match roofline::sweep::sweep(op, chip, &s.options, &s.sweep) {
                Ok(c) => {
                    v["field"] = Value::String(c.field.clone());
                    v["points"] = serde_json::to_value(&c.points).unwrap_or_default();
                    v["crossovers"] = serde_json::to_value(&c.crossovers).unwrap_or_default();
                }
                Err(e) => v["error"] = Value::String(e.to_string()),
            }
            curves.push(v);
        }
    }
    json!({
        "schema_version": SCHEMA_VERSION,
        "field": s.sweep.field,
        "from": s.sweep.from,
        "to": s.sweep.to,
        "log": s.sweep.log,
        "curves": curves,
    })
}

/// The JSON schema (draft 2020-12) of `eval --json`.
pub fn schema() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "roofline eval --json",
        "description": "The result rows of a Roofline Lab link, one object per row of the page. Each metric is the page's data-metric name with its data-value string: a number in base units (seconds, bytes, FLOPs, FLOPs/s, tokens/s) written exactly, a word (bound: compute, memory or network; fits: true or false), or \"none\" where the page shows no figure (its reason is on the page). The op row's tokens_per_s counts the tokens of one step per second of that step; the serving row's counts output tokens per second while decoding.",
        "type": "object",
        "required": ["schema_version", "set_version", "rows", "notices"],
        "properties": {
            "schema_version": {"const": SCHEMA_VERSION},
            "set_version": {"type": "string", "description": "the validation set the expected figures come from"},
            "link": {"type": "string", "description": "the canonical link of the scenario evaluated"},
            "notices": {"type": "array", "items": {"type": "string"}, "description": "parts of the link left out, each naming its key"},
            "rows": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["op", "chip", "row", "metrics"],
                    "properties": {
                        "op": {"type": "integer", "minimum": 0, "description": "the operation's position in the link"},
                        "chip": {"type": "integer", "minimum": 0, "description": "the chip's position in the link"},
                        "row": {"enum": ["op", "part", "serving"]},
                        "data_op": {"type": "string", "description": "the row's data-op on the page: <op>, <op>.<part> or <op>.serving"},
                        "name": {"type": "string"},
                        "op_name": {"type": "string"},
                        "chip_name": {"type": "string"},
                        "error": {"type": "string", "description": "why the row has no figures"},
                        "metrics": {
                            "type": "object",
                            "additionalProperties": {"type": "string"}
                        }
                    }
                }
            }
        }
    })
}

/// What a run wrote and how it ended.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// Exit status: 0, or 2 for bad input.
    pub status: i32,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

impl Outcome {
    fn ok(stdout: String) -> Outcome {
        Outcome {
            status: 0,
            stdout,
            stderr: String::new(),
        }
    }

    fn bad(message: String) -> Outcome {
        Outcome {
            status: 2,
            stdout: String::new(),
            stderr: format!("roofline: {message}\n"),
        }
    }
}

/// The usage text (`roofline help`).
pub const USAGE: &str = "\
roofline — Roofline Lab from a command line

USAGE:
  roofline eval '<link or query>' [--json] [--lenient]
      the page's result rows: a table of each row's figures with units, or with --json
      {schema_version, set_version, rows: [{op, chip, row, metrics}], notices}
  roofline sweep '<link or query>' [--sweep <field:from..to[:log][:n=N]>] [--json] [--lenient]
      the link's sweep of every operation on every chip: the page's CSV export, or JSON with
      the exact crossovers
  roofline validate [--json]
      the validation set's report (what ./dev validate prints), or its summaries as JSON
  roofline schema
      the JSON schema of eval --json

A link whose parts were left out (notices, each naming its key) exits with status 2 unless
--lenient is given; bad arguments exit with status 2.
";

/// Flags a command accepts, and its one positional argument (the link), if it takes one.
struct Args {
    link: Option<String>,
    json: bool,
    lenient: bool,
    sweep: Option<String>,
}

fn parse(cmd: &str, rest: &[String], takes_link: bool, flags: &[&str]) -> Result<Args, String> {
    let mut a = Args {
        link: None,
        json: false,
        lenient: false,
        sweep: None,
    };
    let mut it = rest.iter();
    while let Some(x) = it.next() {
        match x.as_str() {
            f if f.starts_with("--") && !flags.contains(&f) => {
                return Err(format!("{cmd}: unknown flag {f} (see roofline help)"))
            }
            "--json" => a.json = true,
            "--lenient" => a.lenient = true,
            "--sweep" => {
                a.sweep = Some(
                    it.next()
                        .ok_or("--sweep needs a value such as b:1..1024:log")?
                        .clone(),
                )
            }
            link if takes_link && a.link.is_none() => a.link = Some(link.to_string()),
            extra => return Err(format!("{cmd}: unexpected argument {extra:?}")),
        }
    }
    if takes_link && a.link.is_none() {
        return Err(format!(
            "{cmd}: missing the link (a URL of the page or its query, '' for the first view)"
        ));
    }
    Ok(a)
}

/// The notices of a link as the message of a run that stops on them.
fn notices_message(notices: &[String]) -> String {
    format!(
        "the link has {} part{} left out (use --lenient to evaluate the rest):\n  {}",
        notices.len(),
        if notices.len() == 1 { "" } else { "s" },
        notices.join("\n  ")
    )
}

/// Runs the program on `args` (without the program's name).
pub fn run(args: &[String]) -> Outcome {
    let Some((cmd, rest)) = args.split_first() else {
        return Outcome::bad(format!("no command\n\n{USAGE}"));
    };
    let result = match cmd.as_str() {
        "eval" => parse(cmd, rest, true, &["--json", "--lenient"]).map(|a| run_eval(&a)),
        "sweep" => {
            parse(cmd, rest, true, &["--json", "--lenient", "--sweep"]).map(|a| run_sweep(&a))
        }
        "validate" => parse(cmd, rest, false, &["--json"]).map(|a| run_validate(&a)),
        "schema" => parse(cmd, rest, false, &[]).map(|_| Outcome::ok(format!("{:#}\n", schema()))),
        "help" | "--help" | "-h" => Ok(Outcome::ok(USAGE.to_string())),
        other => Err(format!(
            "unknown command {other:?} (eval, sweep, validate, schema, help)"
        )),
    };
    result.unwrap_or_else(Outcome::bad)
}

fn run_eval(a: &Args) -> Outcome {
    let e = eval(a.link.as_deref().unwrap_or_default());
    if !e.notices.is_empty() && !a.lenient {
        return Outcome::bad(notices_message(&e.notices));
    }
    Outcome::ok(if a.json {
        format!("{:#}\n", eval_json(&e))
    } else {
        eval_table(&e)
    })
}

fn run_sweep(a: &Args) -> Outcome {
    let d = decode(a.link.as_deref().unwrap_or_default());
    let mut s = d.scenario;
    let mut notices = d.notices;
    if let Some(spec) = &a.sweep {
        let q = format!("?sweep={spec}");
        let over = decode(&q);
        notices.extend(over.notices.into_iter().map(|n| format!("--sweep: {n}")));
        s.sweep = over.scenario.sweep;
    }
    if !notices.is_empty() && !a.lenient {
        return Outcome::bad(notices_message(&notices));
    }
    if !s.ops.iter().any(|o| o.field(&s.sweep.field).is_some()) {
        return Outcome::bad(format!(
            "sweep: no operation of the link has the field {:?}",
            s.sweep.field
        ));
    }
    Outcome::ok(if a.json {
        let mut v = sweep_json(&s);
        v["notices"] = json!(notices);
        format!("{v:#}\n")
    } else {
        sweep_csv(&s)
    })
}

fn run_validate(a: &Args) -> Outcome {
    if a.json {
        Outcome::ok(format!("{:#}\n", validate_json()))
    } else {
        Outcome::ok(roofline::results::validated::full_report())
    }
}

/// `validate --json`: the validation set's summaries (overall, per kind of work, per family)
/// of the nested hold-out, as [`roofline::results::validated::report`] gives them.
pub fn validate_json() -> Value {
    let r = roofline::results::validated::report();
    let group = |s: &roofline::validation::Summary| {
        json!({
            "label": s.label,
            "total": s.total,
            "expressed": s.expressed,
            "coverage": s.coverage,
            "median_measured_over_bound": s.median_ratio,
            "below_bound": s.below_bound,
            "with_expectation": s.with_expectation,
            "median_abs_error": s.median_abs_error,
            "p90_abs_error": s.p90_abs_error,
            "in_band": s.covered,
            "with_band": s.with_band,
        })
    };
    json!({
        "schema_version": SCHEMA_VERSION,
        "set_version": r.set_version,
        "points": r.rows.len(),
        "overall": group(&r.overall),
        "held_out": r.held_out,
        "by_kind": r.by_work.iter().map(group).collect::<Vec<_>>(),
        "by_family": r.by_family.iter().map(group).collect::<Vec<_>>(),
    })
}
