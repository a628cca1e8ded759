//! A figure of a result row (its `data-metric` name, exact value, shown text and note) and the
//! row itself. Their own module, below the rows and what adds cells and rows to them
//! (expectations, serving, comparisons), so those need not import the rows that call them.

use roofline::results::Analysis;
use roofline::units::format_exact;

/// A row of the results table.
#[derive(Debug, Clone, PartialEq)]
pub struct ResultRow {
    /// Unique id (for open/closed derivations).
    pub id: String,
    /// `data-op`: the op's position (`"0"`), or `"<i>.<k>"` for the k-th part of a model.
    pub op_key: String,
    /// `data-chip`.
    pub chip: usize,
    /// "operation · chip".
    pub name: String,
    /// Extra row class (`part-row`, `total-row`).
    pub class: &'static str,
    /// The figures.
    pub cells: Vec<Cell>,
    /// The analysis behind the figures; its derivation is written only when a row is opened,
    /// not on every keystroke.
    pub analysis: Option<Box<Analysis>>,
    /// Why there are no figures (invalid combination, missing peak).
    pub error: Option<String>,
    /// Rows of the parts (model workloads), shown under this one.
    pub parts: Vec<ResultRow>,
    /// The serving row of an `llm` operation (`view::serving`), shown under this one.
    pub serving: Option<Box<ResultRow>>,
    /// Derivation lines of a row without an analysis (the serving row's load equations beside
    /// their numbers, `view::serving_load`), after the analysis's own.
    pub lines: Vec<String>,
}

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
    /// For an expected figure (`*_expected`), the points it rests on as
    /// `roofline::validation::Basis::id` (`chip`, `family`, `pooled`, `own`), or `none` where there is
    /// no expectation: written as `data-basis`. `None` for every other figure.
    pub basis: Option<&'static str>,
}

/// A numeric cell: its exact value and text, no class or note.
pub(crate) fn cell(metric: &'static str, v: f64, text: String) -> Cell {
    Cell {
        metric,
        value: format_exact(v),
        text,
        class: "",
        title: String::new(),
        basis: None,
    }
}
