//! The results table's columns, shared by the app (`src/app/results.rs`) and the static first
//! view (`src/bin/static-view.rs`), so the two read the same: the headers in the order of
//! [`ResultRow::cells`](super::ResultRow), which fold behind "more columns", the expected
//! figure with its band in one column, and the labels of a kind's own figures, which sit in a
//! headed column of their own. Pure, tested natively.

/// Column headers, in the order of [`ResultRow::cells`]: (metric, header). The expected
/// figure's band (`t_expected_lo`, `t_expected_hi`) sits in its column ([`is_band`]).
pub const HEAD: [(&str, &str); 18] = [
    ("flops", "FLOPs"),
    ("bytes", "bytes"),
    ("intensity", "intensity"),
    ("t_math", "T_math"),
    ("t_comms", "T_comms"),
    ("t_lower", "T_lower"),
    ("vs_base", "vs base"),
    ("t_upper", "T_upper"),
    ("t_expected", "expected"),
    ("bound", "bound"),
    ("achieved", "achieved"),
    ("fraction", "% peak"),
    ("ridge", "ridge"),
    ("critical", "critical"),
    ("fits", "fits"),
    ("elasticity_peak", "elasticity: peak"),
    ("elasticity_hbm", "elasticity: HBM"),
    ("elasticity_link", "elasticity: link"),
];

/// A model step's own figures (the total row of an `llm` step), labelled in the last column:
/// the step's throughput and its time per token of the step (step ÷ tokens), named so that
/// neither reads as the serving row's TPOT (issue 38, point 4), which parts bind, its memory.
pub const WORKLOAD_LABELS: [(&str, &str); 4] = [
    ("tokens_per_s", "step"),
    ("time_per_token", "step ÷ tokens"),
    ("parts_bound", "parts bound by"),
    ("memory", "memory"),
];

/// The header of the last column: each row's figures of its own kind (a model step's
/// throughput and memory, a training step's MFU, days and cost, a collective's bus bandwidth),
/// each labelled in it (issue 38, point 7: they sat in a column with no header, and a model's
/// columns pushed the table past its panel).
pub const KIND_HEAD: (&str, &str) = ("kind_figures", "more figures");

/// A header's one-sentence explanation, shown on hover (`title`), where the word alone does
/// not say it.
pub fn header_title(metric: &str) -> &'static str {
    match metric {
        "t_expected" => super::expected::EXPECTED_HELP,
        "t_lower" => "The roofline's lower bound on the time: the larger of compute and memory or link time.",
        "tokens_per_s" => "Tokens of one step (B in decode, B·ctx in prefill) per second of that step; the serving row's tokens/s is output tokens per second while decoding.",
        "time_per_token" => "The step's time divided by the tokens it processes (B in decode, B·ctx in prefill): not the time per output token a sequence sees, which is the serving row's TPOT.",
        "fits" => "Whether weights and caches fit in HBM at the context the cell states.",
        "kind_figures" => "Figures of each row's own kind, each with its label: a model step's throughput, time per token of the step and memory, a training step's MFU, days and cost, a collective's bus bandwidth.",
        _ => "",
    }
}

/// Columns behind "more columns": the figures people look for first (T_lower and the expected
/// time, bound, % of peak, critical size, fits; tokens/s, time per token and memory for models)
/// stay in view without scrolling sideways (achieved FLOP/s is the % of peak times the peak).
pub fn is_extra(metric: &str) -> bool {
    matches!(
        metric,
        "flops"
            | "bytes"
            | "intensity"
            | "t_math"
            | "t_comms"
            | "t_upper"
            | "achieved"
            | "ridge"
            | "latency_bound"
            | "algorithm"
            | "parts_bound"
            | "repeat"
            | "elasticity_peak"
            | "elasticity_hbm"
            | "elasticity_link"
    )
}

/// The expected figure's band, shown inline in its column: `≈ 787 µs (620–990)` (issue 38,
/// point 5), each bound an element of its own with its `data-metric`.
pub fn is_band(metric: &str) -> bool {
    matches!(metric, "t_expected_lo" | "t_expected_hi")
}

/// Whether a cell has a column of its own: the shared analysis columns.
pub fn is_column(metric: &str) -> bool {
    HEAD.iter()
        .any(|(m, _)| *m == metric || (*m == "critical" && metric.starts_with("critical")))
}

/// Whether a cell goes into the last column, of a row's own figures: neither a column of its
/// own nor the expected figure's band. Those folded behind "more columns" fold there too.
pub fn is_kind_figure(metric: &str) -> bool {
    !is_column(metric) && !is_band(metric)
}

/// The label of a figure in the last column: a model step's (`has_parts`, its total row) from
/// [`WORKLOAD_LABELS`], else [`kind_label`].
pub fn figure_label(metric: &str, has_parts: bool) -> &'static str {
    WORKLOAD_LABELS
        .iter()
        .find(|(m, _)| has_parts && *m == metric)
        .map_or_else(|| kind_label(metric), |(_, l)| l)
}

/// The label of a kind's own figure in its row's last cell (empty where its text says it).
pub fn kind_label(metric: &str) -> &'static str {
    match metric {
        "mfu" => "MFU",
        "mfu_expected" | "days_expected" => "",
        "tokens_per_s" => "",
        "days" => "",
        "days_at_mfu" => "at the assumed MFU",
        "memory" => "memory",
        "cost" => "cost",
        "busbw" => "bus bandwidth",
        "algorithm" => "algorithm",
        "repeat" => "",
        _ => "",
    }
}

/// The header of a cell's column, for the phone layout's cards.
pub fn header_of(metric: &str) -> &'static str {
    HEAD.iter()
        .find(|(m, _)| *m == metric || (*m == "critical" && metric.starts_with("critical")))
        .map_or("", |(_, h)| h)
}
