//! A figure of a result row: its `data-metric` name, exact value, shown text and note. Its own
//! module, below the rows and what adds cells to them (expectations, serving, training).

use roofline::units::format_exact;

/// One figure of a result row: `data-metric`, raw `data-value` (base units) and display text.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    /// The metric key of the test contract (`flops`, `t_math`, `bound`, ...).
    pub metric: &'static str,
    /// The raw value in base units, or a word.
    pub value: String,
    /// What people read.
    pub text: String,
    /// CSS class.
    pub class: &'static str,
    /// Tooltip.
    pub title: String,
}

/// A numeric cell: its exact value and text, no class or note.
pub(crate) fn cell(metric: &'static str, v: f64, text: String) -> Cell {
    Cell {
        metric,
        value: format_exact(v),
        text,
        class: "",
        title: String::new(),
    }
}
