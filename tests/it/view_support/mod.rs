//! What the native view tests share: a row's cell by its `data-metric`, its number, and a
//! relative comparison.
#![allow(dead_code)]

use roofline_lab::view::{Cell, ResultRow};

/// The cell of `row` whose metric is `metric` (panics naming the row when there is none).
pub fn cell<'a>(row: &'a ResultRow, metric: &str) -> &'a Cell {
    row.cells
        .iter()
        .find(|c| c.metric == metric)
        .unwrap_or_else(|| panic!("no {metric} in {:?}", row.name))
}

/// The number of `row`'s `metric` cell (its exact `data-value`).
pub fn num(row: &ResultRow, metric: &str) -> f64 {
    let c = cell(row, metric);
    c.value
        .parse()
        .unwrap_or_else(|_| panic!("{metric} = {:?}", c.value))
}

/// `a` within `rel` of `b`, relatively.
pub fn close(a: f64, b: f64, rel: f64, what: &str) {
    assert!((a - b).abs() <= rel * b.abs(), "{what}: {a} vs {b}");
}
