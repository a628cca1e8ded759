//! From a scenario to what the page shows: result rows (with the test contract's `data-metric`
//! figures), chart models, the key result line, exports and recipes. Pure and tested natively;
//! the Leptos components only render what this module computes.
//!
//! One file per concern: [`names`] (what operations, series and axes are called), [`rows`]
//! (the results table and the key line), [`sweep`] and [`roofline_plot`] (the two chart models),
//! [`chart`] (the chart in front: its table, read-out and SVG), [`export`] (CSV, JSON, embed),
//! [`recipes`] (the chapter's worked examples), [`form`] (which fields fold) and [`cache`] (what is remembered per (operation,
//! chip) between edits).

pub mod cache;
pub mod cell;
pub mod chart;
pub mod columns;
pub mod compare;
pub mod evidence;
pub mod expected;
pub mod explain;
pub mod export;
pub mod field_edit;
pub mod form;
pub mod frontier;
pub mod import;
#[cfg(feature = "load")]
pub mod load_plot;
pub mod measured;
pub mod measured_parts;
pub mod measured_steps;
pub mod names;
pub mod recipes;
pub mod roofline_plot;
pub mod rows;
pub mod serving;
pub mod serving_load;
pub mod serving_tails;
pub mod sweep;
pub mod train_plot;
pub mod validation;

pub use cache::PairCache;
pub use chart::ChartModel;
pub use compare::{rows_with_base, BaseCache};
pub use evidence::{chip_field_note, FieldNote, SourceNotes};
pub use explain::{explain_panel, ExplainPanel};
pub use export::{
    embed_title, file_stem, iframe_html, results_csv, scenario_json, scenario_json_of, sweep_csv,
};
pub use field_edit::FieldEdit;
pub use form::{
    chip_slider, is_folded_chip_field, keep_sweep_on_a_field, op_more_open, op_slider,
    sweep_range_for, Slider, SLIDER_STEPS,
};
pub use frontier::frontier_chart;
pub use import::{import_hf_config, Imported};
pub use measured::{
    add_expected, add_measured, add_step_marks, apply_refusal, calibration_words, chip_offer,
    fit_profile, fit_summary, group_cells, measured_groups, measured_roofline, measured_rows,
    measured_table, AboveRoof, ChipOffer, MeasuredRow, MeasuredTable,
};
pub use measured_parts::{match_llm_parts, PartMatch, StepMatch};
pub use measured_steps::{step_table, StepRow, StepTable};
pub use names::{op_name, pretty, OP_KINDS};
pub use recipes::{recipes, Recipe};
pub use roofline_plot::{roofline_chart, roofline_chart_of};
pub use rows::{
    cells, key_line, key_line_of, key_line_with, result_rows, result_rows_cached, Cell,
    KeyLineDetail, ResultRow, RowCache,
};
pub use serving::{serving_cells, serving_row};
pub use sweep::{sweep_chart, sweep_chart_of, sweepable_fields, SweepMetric};
pub use train_plot::{train_axis, train_chart, train_plot_of, train_plot_shown, y_buttons};
