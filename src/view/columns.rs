//! The results table's columns, shared by the app (`src/app/results.rs`) and the static first
//! view (`src/bin/static-view.rs`), so the two read the same: the headers in the order of
//! [`ResultRow::cells`](super::ResultRow), which fold behind "more columns", and the labels of
//! a kind's own figures that sit in a row's last cell. Pure, tested natively.

/// Column headers, in the order of [`ResultRow::cells`]: (metric, header).
pub const HEAD: [(&str, &str); 20] = [
    ("flops", "FLOPs"),
    ("bytes", "bytes"),
    ("intensity", "intensity"),
    ("t_math", "T_math"),
    ("t_comms", "T_comms"),
    ("t_lower", "T_lower"),
    ("vs_base", "vs base"),
    ("t_upper", "T_upper"),
    ("t_expected", "expected"),
    ("t_expected_lo", "expected p10"),
    ("t_expected_hi", "expected p90"),
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

/// Extra columns when a model workload is present.
pub const WORKLOAD_HEAD: [(&str, &str); 4] = [
    ("tokens_per_s", "tokens/s"),
    ("time_per_token", "time/token"),
    ("parts_bound", "parts bound by"),
    ("memory", "memory"),
];

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
            | "t_expected_lo"
            | "t_expected_hi"
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

/// Whether a cell has a column of its own: the shared analysis columns, and the model columns
/// on a row with parts (an `llm` step's total).
pub fn is_column(metric: &str, has_parts: bool) -> bool {
    HEAD.iter()
        .any(|(m, _)| *m == metric || (*m == "critical" && metric.starts_with("critical")))
        || (has_parts && WORKLOAD_HEAD.iter().any(|(m, _)| *m == metric))
}

/// The label of a kind's own figure in its row's last cell (empty where its text says it).
pub fn kind_label(metric: &str) -> &'static str {
    match metric {
        "mfu" => "MFU",
        "mfu_expected" | "days_expected" => "",
        "tokens_per_s" => "",
        "days_at_mfu" => "at the assumed MFU",
        "memory" => "memory",
        "cost" => "cost",
        _ => "",
    }
}

/// The header of a cell's column, for the phone layout's cards.
pub fn header_of(metric: &str) -> &'static str {
    HEAD.iter()
        .chain(WORKLOAD_HEAD.iter())
        .find(|(m, _)| *m == metric || (*m == "critical" && metric.starts_with("critical")))
        .map_or("", |(_, h)| h)
}
