//! The results table: one row per (operation, chip) with the test contract's `data-metric`
//! figures (model workloads add a row per part), and the one-line key result.

use std::sync::Arc;

use roofline::inputs::Scenario;
use roofline::results::Workload;
use roofline::results::{Analysis, Bound};
use roofline::results::{PairResults, Results};
use roofline::units::{format_exact, format_sig, Unit};

use super::cache::PairCache;
use super::cell::{cell, PartRows};
pub use super::cell::{Cell, ResultRow};
use super::compare;
use super::expected::{add_training_expected, expected_cells, insert_expected};
use super::names::{days_words, dim_word, op_name, pretty, series_name};

/// The figures of an analysis, in column order.
pub fn cells(a: &Analysis) -> Vec<Cell> {
    let mut out = vec![
        cell("flops", a.flops, pretty(a.flops, Unit::Flops)),
        cell("bytes", a.bytes, pretty(a.bytes, Unit::Bytes)),
        cell("intensity", a.intensity, format_sig(a.intensity, 4)),
        cell("t_math", a.t_math, pretty(a.t_math, Unit::Seconds)),
    ];
    let mut comms = cell("t_comms", a.t_comms, pretty(a.t_comms, Unit::Seconds));
    comms.title = a
        .comms
        .iter()
        .map(|t| {
            format!(
                "{} = {} / {} = {}",
                t.resource.time_symbol(),
                pretty(t.bytes, Unit::Bytes),
                pretty(t.bandwidth, Unit::ByteRate),
                pretty(t.time, Unit::Seconds)
            )
        })
        .collect::<Vec<_>>()
        .join("\n");
    if a.comms.len() > 1 {
        comms.text = a
            .comms
            .iter()
            .map(|t| format!("{} {}", t.resource.label(), pretty(t.time, Unit::Seconds)))
            .collect::<Vec<_>>()
            .join(" · ");
    }
    out.push(comms);
    out.push(cell("t_lower", a.t_lower, pretty(a.t_lower, Unit::Seconds)));
    out.push(cell("t_upper", a.t_upper, pretty(a.t_upper, Unit::Seconds)));
    let bound = a.bound.as_str();
    out.push(Cell {
        metric: "bound",
        value: bound.to_string(),
        text: if a.bound == Bound::Compute {
            bound.to_string()
        } else {
            format!("{bound} ({})", a.binding.label())
        },
        class: match a.bound {
            Bound::Compute => "bound-compute",
            Bound::Memory => "bound-memory",
            Bound::Network => "bound-network",
        },
        title: String::new(),
        basis: None,
    });
    out.push(cell(
        "achieved",
        a.achieved,
        pretty(a.achieved, Unit::FlopRate),
    ));
    out.push(cell(
        "fraction",
        a.fraction,
        format!("{}%", format_sig(100.0 * a.fraction, 3)),
    ));
    out.push(cell("ridge", a.ridge, format_sig(a.ridge, 4)));
    match &a.critical {
        Some(c) => {
            let metric = if c.dim == "d" {
                "critical_d"
            } else {
                "critical_b"
            };
            let (dim, exact) = (dim_word(&c.dim), format_sig(c.value, 4));
            let mut text = format!("{dim} > {exact}");
            let mut title = format!(
                "Exact crossover: T_math = T_comms at {dim} = {exact}, compute-bound above it"
            );
            if let Some(ap) = c.approx {
                let ap = format_sig(ap, 3);
                text.push_str(&format!(" (rule ≈ {ap})"));
                title.push_str(&format!(
                    "; the chapter's closed-form rule of thumb, which drops the smaller terms, gives {ap}"
                ));
            }
            out.push(Cell {
                metric,
                value: format_exact(c.value),
                text,
                class: "",
                title,
                basis: None,
            });
        }
        None => out.push(Cell {
            metric: "critical_b",
            value: "none".into(),
            text: "—".into(),
            class: "",
            title: "never compute-bound by growing the batch".into(),
            basis: None,
        }),
    }
    // Where the operation has a context, the fit is judged at it (a serving row judges its own
    // at P + G, and says so).
    let at =
        a.op.get_num("ctx")
            .map(|c| format!(" at ctx {}", format_exact(c)))
            .unwrap_or_default();
    // The capacity as the vendor writes it (16 GiB, 80 GB), and what is held in the same units
    // (issue 38, point 10: `16.3 GB / 16 GiB` read as fitting).
    let capacity = roofline::units::format_field(a.capacity, Unit::Bytes);
    let held = if capacity.ends_with("iB") {
        roofline::units::format_bytes_binary(a.memory)
    } else {
        pretty(a.memory, Unit::Bytes)
    };
    out.push(Cell {
        metric: "fits",
        value: a.fits.to_string(),
        text: format!(
            "{} {held} of {capacity}{at}",
            if a.fits { "✓" } else { "✗" },
        ),
        class: if a.fits {
            "bound-compute"
        } else {
            "bound-memory"
        },
        title: "bytes resident in HBM against its capacity".into(),
        basis: None,
    });
    // The kind's own report: shared figures that mean nothing for it, then its own.
    if let Some(na) = a.report.not_applicable {
        for c in out.iter_mut().filter(|c| na.metrics.contains(&c.metric)) {
            c.text = "—".into();
            c.class = "";
            c.title = na.why.into();
        }
    }
    out.extend(a.report.figures.iter().map(figure_cell));
    out
}

/// A figure a kind reports, as a cell (its tone as the bound colours). Days are written as
/// people read them ([`days_words`]: years past a century, never `1.85e6 days`).
fn figure_cell(f: &roofline::results::Figure) -> Cell {
    use roofline::results::Tone;
    let days = matches!(f.metric, "days" | "days_at_mfu");
    let text = match f.value.parse::<f64>() {
        Ok(d) if days => days_words(d),
        // Labelled "bus bandwidth" in its cell (`columns::kind_label`), apart from the
        // roofline's link roof.
        Ok(bw) if f.metric == "busbw" => pretty(bw, Unit::ByteRate),
        _ => f.text.clone(),
    };
    Cell {
        metric: f.metric,
        value: f.value.clone(),
        text,
        class: match f.tone {
            Tone::Plain => "",
            Tone::Compute => "bound-compute",
            Tone::Memory => "bound-memory",
            Tone::Network => "bound-network",
        },
        title: f.title.clone(),
        basis: None,
    }
}

/// Parts grouped by what binds them: `compute: MLP up, MLP down · memory: attention scores`.
fn bound_groups(summary: &[(String, Bound)]) -> String {
    [Bound::Compute, Bound::Memory, Bound::Network]
        .iter()
        .filter_map(|b| {
            let names: Vec<&str> = summary
                .iter()
                .filter(|(_, x)| x == b)
                .map(|(n, _)| n.as_str())
                .collect();
            (!names.is_empty()).then(|| format!("{}: {}", b.as_str(), names.join(", ")))
        })
        .collect::<Vec<_>>()
        .join(" · ")
}

/// The extra figures of a model workload's total row: tokens/s, time per token, memory.
fn workload_cells(w: &Workload) -> Vec<Cell> {
    let binds: Vec<String> = w
        .summary
        .iter()
        .map(|(n, b)| format!("{n}: {}", b.as_str()))
        .collect();
    vec![
        Cell {
            metric: "tokens_per_s",
            value: format_exact(w.tokens_per_s),
            text: format!("{} {}/s", format_sig(w.tokens_per_s, 4), w.unit),
            class: "",
            title: format!(
                "{} {} per step; {} per {}",
                format_exact(w.tokens),
                w.unit,
                pretty(w.time_per_token, Unit::Seconds),
                w.unit
            ),
            basis: None,
        },
        Cell {
            metric: "time_per_token",
            value: format_exact(w.time_per_token),
            text: pretty(w.time_per_token, Unit::Seconds),
            class: "",
            title: binds.join("\n"),
            basis: None,
        },
        Cell {
            metric: "parts_bound",
            value: w
                .summary
                .iter()
                .map(|(n, b)| format!("{n}={}", b.as_str()))
                .collect::<Vec<_>>()
                .join(";"),
            text: bound_groups(&w.summary),
            class: "",
            title: "which parts bind on what".into(),
            basis: None,
        },
        Cell {
            metric: "memory",
            value: format_exact(w.memory),
            text: format!(
                "{} (weights {} + KV {})",
                pretty(w.memory, Unit::Bytes),
                pretty(w.weights, Unit::Bytes),
                pretty(w.kv_cache, Unit::Bytes)
            ),
            class: if w.fits { "" } else { "bound-memory" },
            title: format!("against {} of HBM", pretty(w.capacity, Unit::Bytes)),
            basis: None,
        },
    ]
}

impl ResultRow {
    /// The worked derivation, one step per line (empty when the analysis failed).
    pub fn derivation(&self) -> Vec<String> {
        let mut lines = self
            .analysis
            .as_ref()
            .map(|a| a.derivation())
            .unwrap_or_default();
        lines.extend(self.lines.iter().cloned());
        // What to expect beside the bound (issue 25): the points and the set it rests on.
        if let Some(c) = self.cells.iter().find(|c| c.metric == "t_expected") {
            lines.push(if c.value == "none" {
                format!("No expected time: {}.", c.title)
            } else {
                format!("Measured runs: {}.", c.title)
            });
        }
        lines.extend(super::serving_tails::derivation(&self.cells));
        lines
    }
}

/// Puts `new` after the cell of `metric` (at the end when there is none).
fn insert_after(cells: &mut Vec<Cell>, metric: &str, new: Vec<Cell>) {
    let at = cells
        .iter()
        .position(|c| c.metric == metric)
        .map_or(cells.len(), |i| i + 1);
    cells.splice(at..at, new);
}

/// One row per (operation, chip), operation-major: the scenario's store computed for it.
pub fn result_rows(s: &Scenario) -> Vec<ResultRow> {
    let results = Results::of(s);
    let rows = result_rows_cached(s, &results, &mut RowCache::default());
    compare::rows_with_base(s, rows, &mut compare::BaseCache::default())
        .into_iter()
        .map(|r| Arc::try_unwrap(r).unwrap_or_else(|r| (*r).clone()))
        .collect()
}

/// Rows remembered between edits: a row is formatted again only when its operation, its chip
/// or the options changed, and an unchanged row is the same `Arc` as before (so a reader can
/// tell it apart with `Arc::ptr_eq`, without comparing figures).
pub type RowCache = PairCache<(), Arc<ResultRow>>;

/// [`result_rows`] from `results` (the store brought to `s`), re-using the rows of `cache`
/// that are still valid (and updating it). Rows only format the store's figures.
pub fn result_rows_cached(
    s: &Scenario,
    results: &Results,
    cache: &mut RowCache,
) -> Vec<Arc<ResultRow>> {
    let mut cache = cache.pass();
    let mut rows = Vec::new();
    for (i, j, r) in results.pairs() {
        if i < s.ops.len() && j < s.chips.len() {
            rows.push(cache.get(s, i, j, &(), || Arc::new(result_row(s, i, j, r))));
        }
    }
    rows
}

/// The cells of an analysed row: its figures, expectation, baseline and elasticity cells.
fn analysed_cells(a: &Analysis, r: &PairResults) -> Vec<Cell> {
    let mut c = cells(a);
    insert_expected(&mut c, expected_cells(&r.expectation, r.bare_t_lower));
    add_training_expected(&mut c);
    // Issue 26: against the baseline (filled by `compare::rows_with_base`) and each
    // resource's leverage.
    insert_after(&mut c, "t_lower", vec![compare::no_base_cell()]);
    if let Some(e) = &r.elasticities {
        insert_after(&mut c, "fits", compare::elasticity_cells(a, e));
    }
    c
}

/// The rows of a composite's parts (`i.k/j`), each with its expectation.
fn part_rows(i: usize, j: usize, r: &PairResults) -> Vec<ResultRow> {
    let Ok(Some(w)) = &r.workload else {
        return Vec::new();
    };
    let mut parts = Vec::new();
    for (k, ((part, a), e)) in w.parts.iter().zip(&r.parts).enumerate() {
        let mut c = cells(a);
        insert_expected(&mut c, expected_cells(&e.expectation, e.bare_t_lower));
        c.push(Cell {
            metric: "repeat",
            value: format_exact(part.repeat),
            text: format!("×{}", format_exact(part.repeat)),
            class: "",
            title: "how many times per step (layers)".into(),
            basis: None,
        });
        parts.push(ResultRow {
            id: format!("{i}.{k}/{j}"),
            op_key: format!("{i}.{k}"),
            chip: j,
            name: format!("  {} ×{}", part.name, format_exact(part.repeat)),
            class: "part-row",
            cells: c,
            analysis: Some(Box::new(a.clone())),
            error: None,
            parts: PartRows::default(),
            serving: None,
            lines: Vec::new(),
        });
    }
    parts
}

/// The row of operation `i` on chip `j`, from its figures `r`.
fn result_row(s: &Scenario, i: usize, j: usize, r: &Arc<PairResults>) -> ResultRow {
    let (op, chip) = (&s.ops[i], &s.chips[j]);
    let (mut cells, analysis, error) = match &r.analysis {
        Ok(a) => (analysed_cells(a, r), Some(Box::new(a.clone())), None),
        Err(e) => (Vec::new(), None, Some(e.to_string())),
    };
    let (mut parts, mut class) = (PartRows::default(), "");
    if let Ok(Some(w)) = &r.workload {
        class = "total-row";
        cells.extend(workload_cells(w));
        let n = w.parts.len().min(r.parts.len());
        parts = PartRows::lazy(n, (i, j), r.clone(), part_rows);
    }
    let serving = r
        .serving
        .as_ref()
        .and_then(|v| super::serving::serving_row(s, i, j, v))
        .map(Box::new);
    ResultRow {
        id: format!("{i}/{j}"),
        op_key: i.to_string(),
        chip: j,
        name: format!("{} · {}", op_name(op), chip.name),
        class,
        cells,
        analysis,
        error,
        parts,
        serving,
        lines: Vec::new(),
    }
}

/// A model step's words in the key line: `, step 13.3 ms at ctx 2048: 2,400 tokens/s in the
/// step` (its tokens: B in decode, B·ctx in prefill, B·(k+1) to verify). Not "per sequence":
/// what a sequence sees per token is the serving row's TPOT, at its own context.
fn step_words(op: &roofline::inputs::Op, step: f64, at: &str) -> String {
    if !(step.is_finite() && step > 0.0) {
        return String::new();
    }
    let b = op.get_num("b").unwrap_or(1.0);
    let per_seq = op
        .llm()
        .map_or(1.0, |l| l.phase.tokens_per_sequence(l.ctx, l.spec_k));
    format!(
        ", step {}{at}: {} tokens/s in the step",
        pretty(step, Unit::Seconds),
        format_sig(b * per_seq / step, 4)
    )
}

/// How much the key result line says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyLineDetail {
    /// Under the plot: the exact critical size and the chapter's rule of thumb beside it.
    Full,
    /// In an embed, where a few lines must leave the plot its room: the exact size only.
    Compact,
}

/// The key result line (under the plot, and in embeds with [`KeyLineDetail::Compact`]).
pub fn key_line(s: &Scenario) -> String {
    key_line_with(s, KeyLineDetail::Full)
}

/// The key result line with the given detail.
pub fn key_line_with(s: &Scenario, detail: KeyLineDetail) -> String {
    key_line_of(s, &Results::of(s), detail)
}

/// The key result line of `s` from `results` (the store brought to `s`): words only.
pub fn key_line_of(s: &Scenario, results: &Results, detail: KeyLineDetail) -> String {
    let mut parts = Vec::new();
    let at = |i: usize, j: usize| results.get(i, j).map(|r| &r.analysis);
    for (j, chip) in s.chips.iter().enumerate() {
        for (i, op) in s.ops.iter().enumerate() {
            let who = series_name(s, op, &chip.name);
            let words = at(i, j)
                .map(|a| key_line_words(op, a, detail))
                .unwrap_or_default();
            parts.push(format!("{who}{words}"));
        }
    }
    let against = compare::base_words(s, |i, j| {
        at(i, j).and_then(|a| a.as_ref().ok()).map(|a| a.t_lower)
    });
    let chips = s
        .chips
        .iter()
        .map(|c| c.name.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    // A calibrated page says so wherever its numbers are read (issue 24: a fitted calibration
    // changed every time with nothing saying it was on).
    let cal = if s.options.cal == roofline::inputs::Calibration::NONE {
        String::new()
    } else {
        format!(
            " [calibrated: cal={}, fitted to measured kernels, in every time]",
            s.options.cal.format()
        )
    };
    format!("{chips} — {}{against}{cal}", parts.join("; "))
}

/// The key line's words for `op` analysed as `a`, after its series name: `: memory-bound,
/// compute-bound for B > 240 exactly …`, or the analysis's error.
fn key_line_words(
    op: &roofline::inputs::Op,
    a: &Result<Analysis, roofline::inputs::Error>,
    detail: KeyLineDetail,
) -> String {
    match a {
        Ok(a) => {
            let mut t = format!(": {}-bound", a.bound.as_str());
            t.push_str(&a.report.key_words);
            // A model step states the context it is judged at, as its row does (issue 38,
            // point 4: "step 13.3 ms" beside a TPOT at another context).
            let at = op
                .get_num("ctx")
                .filter(|_| op.traits().serves)
                .map(|c| format!(" at ctx {}", format_exact(c)))
                .unwrap_or_default();
            if !a.fits {
                // A bound still, but no throughput for a setup that cannot run.
                t.push_str(&format!(
                    ", does not fit in HBM{at} ({} of {})",
                    pretty(a.memory, Unit::Bytes),
                    pretty(a.capacity, Unit::Bytes)
                ));
            } else if at.is_empty() {
                t.push_str(&a.report.key_words_fit);
            } else {
                t.push_str(&step_words(op, a.t_lower, &at));
            }
            if let Some(c) = &a.critical {
                let (dim, v) = (dim_word(&c.dim), format_sig(c.value, 4));
                // A row already compute-bound says where it turned so, not "compute-bound,
                // compute-bound for …" (issue 38, point 10).
                let already = a.bound == Bound::Compute;
                t.push_str(&match (detail, already) {
                    (KeyLineDetail::Full, false) => {
                        format!(", compute-bound for {dim} > {v} exactly")
                    }
                    (KeyLineDetail::Full, true) => {
                        format!(" (above its crossover {dim} = {v} exactly)")
                    }
                    (KeyLineDetail::Compact, false) => {
                        format!(" (compute-bound above {dim} = {v})")
                    }
                    (KeyLineDetail::Compact, true) => format!(" (above {dim} = {v})"),
                });
                if let Some(ap) = c.approx.filter(|_| detail == KeyLineDetail::Full) {
                    t.push_str(&format!(
                        " (the chapter's rule of thumb: ≈ {})",
                        format_sig(ap, 3)
                    ));
                }
            }
            t
        }
        Err(e) => format!(": {e}"),
    }
}
