//! From a scenario to what the page shows: result rows (with the test contract's `data-metric`
//! figures), chart models, the key result line, exports and recipes. Pure and tested natively;
//! the Leptos components only render what this module computes.
//!
//! One file per concern: [`names`] (what operations, series and axes are called), [`rows`]
//! (the results table and the key line), [`sweep`] and [`roofline`] (the two chart models),
//! [`chart`] (the chart in front: its table, read-out and SVG), [`export`] (CSV, JSON, embed),
//! [`recipes`] (the chapter's worked examples) and [`cache`] (what is remembered per (operation,
//! chip) between edits).

pub mod cache;
pub mod chart;
pub mod export;
pub mod measured;
pub mod names;
pub mod recipes;
pub mod roofline;
pub mod rows;
pub mod sweep;
pub mod train;
pub mod train_plot;

pub use cache::PairCache;
pub use chart::ChartModel;
pub use export::{embed_title, file_stem, iframe_html, scenario_json, sweep_csv};
pub use measured::{
    add_measured, fit_summary, measured_groups, measured_roofline, measured_rows, MeasuredRow,
};
pub use names::{op_name, pretty, OP_KINDS};
pub use recipes::{recipes, Recipe};
pub use roofline::roofline_chart;
pub use rows::{
    cells, key_line, key_line_with, result_rows, result_rows_cached, Cell, KeyLineDetail,
    ResultRow, RowCache,
};
pub use sweep::{
    oom_edge, sweep_chart, sweep_chart_cached, sweepable_fields, OomEdge, SweepCache, SweepMetric,
    Swept,
};
pub use train::train_cells;
pub use train_plot::{train_axis, train_chart, train_plot_of};
