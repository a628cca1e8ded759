//! A figure of a result row (its `data-metric` name, exact value, shown text and note) and the
//! row itself. Their own module, below the rows and what adds cells and rows to them
//! (expectations, serving, comparisons), so those need not import the rows that call them.

use std::sync::{Arc, OnceLock};

use roofline::results::{Analysis, PairResults};
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
    pub parts: PartRows,
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

/// The rows of a model's parts, under its row. The page shows them only once their row's
/// "parts" is opened, so the table's rows leave them unformatted ([`PartRows::lazy`]) until
/// first read: an edit of a model's field formats none of them. Read, compared and printed,
/// they are the rows themselves (a slice).
#[derive(Clone, Default)]
pub struct PartRows(Option<Arc<LazyParts>>);

struct LazyParts {
    len: usize,
    rows: OnceLock<Vec<ResultRow>>,
    from: PartSource,
}

/// What formats the part rows of operation `i` on chip `j` from the store's figures.
struct PartSource {
    i: usize,
    j: usize,
    results: Arc<PairResults>,
    format: fn(usize, usize, &PairResults) -> Vec<ResultRow>,
}

impl PartRows {
    /// `len` part rows that `format(i, j, results)` writes when they are first read.
    pub fn lazy(
        len: usize,
        (i, j): (usize, usize),
        results: Arc<PairResults>,
        format: fn(usize, usize, &PairResults) -> Vec<ResultRow>,
    ) -> PartRows {
        if len == 0 {
            return PartRows::default();
        }
        PartRows(Some(Arc::new(LazyParts {
            len,
            rows: OnceLock::new(),
            from: PartSource {
                i,
                j,
                results,
                format,
            },
        })))
    }

    /// How many part rows, without formatting them.
    pub fn len(&self) -> usize {
        self.0.as_ref().map_or(0, |l| l.len)
    }

    /// No part rows (a single operation)?
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the rows are formatted yet (read once; no rows count as formatted).
    pub fn formatted(&self) -> bool {
        self.0.as_ref().is_none_or(|l| l.rows.get().is_some())
    }

    /// The rows, formatted on first read.
    pub fn rows(&self) -> &[ResultRow] {
        let Some(l) = &self.0 else {
            return &[];
        };
        let f = &l.from;
        l.rows.get_or_init(|| (f.format)(f.i, f.j, &f.results))
    }
}

impl std::ops::Deref for PartRows {
    type Target = [ResultRow];
    fn deref(&self) -> &[ResultRow] {
        self.rows()
    }
}

impl IntoIterator for PartRows {
    type Item = ResultRow;
    type IntoIter = std::vec::IntoIter<ResultRow>;
    fn into_iter(self) -> Self::IntoIter {
        self.rows().to_vec().into_iter()
    }
}

impl PartialEq for PartRows {
    fn eq(&self, other: &PartRows) -> bool {
        self.rows() == other.rows()
    }
}

impl std::fmt::Debug for PartRows {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.rows()).finish()
    }
}
