//! The results table as the app first shows it (derivations and parts folded, compact
//! columns), in the app's own column order (`view::columns`).

use std::fmt::Write as _;

use super::html::esc;
use crate::view::columns::{header_of, is_column, is_extra, kind_label, HEAD, WORKLOAD_HEAD};
use crate::view::{Cell, ResultRow};

/// How the table is written: the drawn view's cells carry their `data-metric` (the
/// stylesheet lets some of them wrap, as the app's); the front page's are as they were.
#[derive(Clone, Copy)]
pub struct Table {
    /// The scenario's baseline (operation, chip), whose row says so.
    pub base: Option<(usize, usize)>,
    /// Write each column cell's `data-metric`.
    pub metrics: bool,
}

fn cell_td(out: &mut String, c: &Cell, t: Table) {
    let extra = if is_extra(c.metric) { " extra" } else { "" };
    if t.metrics {
        write!(out, r#"<td data-metric="{}""#, esc(c.metric)).unwrap();
    } else {
        out.push_str("<td");
    }
    write!(
        out,
        r#" class="{}{extra}" data-label="{}" title="{}">{}</td>"#,
        c.class,
        esc(header_of(c.metric)),
        esc(&c.title),
        esc(&c.text)
    )
    .unwrap();
}

/// A result row as the app first shows it (derivation and parts folded).
fn row(out: &mut String, r: &ResultRow, t: Table) {
    write!(
        out,
        r#"<tr class="result-row {}"><td class="name">"#,
        r.class
    )
    .unwrap();
    if !r.parts.is_empty() {
        out.push_str(
            r#"<button class="small" aria-expanded="false" tabindex="-1">▸ parts</button> "#,
        );
    }
    write!(
        out,
        r#"<button class="row-toggle" aria-expanded="false" tabindex="-1" title="Show or hide the derivation">{}</button>"#,
        esc(&r.name)
    )
    .unwrap();
    // The app's "base" and "why?" under a result's name (not under a serving row's).
    if let Ok(op) = r.op_key.parse::<usize>() {
        let base = if t.base == Some((op, r.chip)) {
            "baseline ✓"
        } else {
            "base"
        };
        write!(
            out,
            r#"<span class="row-actions"><button class="small" tabindex="-1">{base}</button> <button class="small" tabindex="-1">why?</button></span>"#
        )
        .unwrap();
    }
    out.push_str("</td>");
    match &r.error {
        Some(e) => write!(
            out,
            r#"<td class="error-cell" colspan="13">{}</td>"#,
            esc(e)
        )
        .unwrap(),
        None if r.class == "serving-row" => {
            out.push_str(r#"<td class="serving-cells" colspan="13">"#);
            for c in &r.cells {
                write!(
                    out,
                    r#"<span class="serving-cell"><span class="{}" title="{}">{}</span></span>"#,
                    c.class,
                    esc(&c.title),
                    esc(&c.text)
                )
                .unwrap();
            }
            out.push_str("</td>");
        }
        None => {
            // As the app: the columns first, then a kind's own figures labelled in one last
            // cell.
            let has_parts = !r.parts.is_empty();
            let column = |c: &&Cell| is_column(c.metric, has_parts) || is_extra(c.metric);
            r.cells
                .iter()
                .filter(column)
                .for_each(|c| cell_td(out, c, t));
            let kind: Vec<&Cell> = r.cells.iter().filter(|c| !column(c)).collect();
            if !kind.is_empty() {
                out.push_str(r#"<td class="kind-cells" colspan="4">"#);
                for c in kind {
                    let label = kind_label(c.metric);
                    write!(
                        out,
                        r#"<span class="kind-cell">{}<span class="{}" title="{}">{}</span></span>"#,
                        if label.is_empty() {
                            String::new()
                        } else {
                            format!(r#"<span class="kind-label">{} </span>"#, esc(label))
                        },
                        c.class,
                        esc(&c.title),
                        esc(&c.text)
                    )
                    .unwrap();
                }
                out.push_str("</td>");
            }
        }
    }
    out.push_str("</tr>");
    if let Some(s) = &r.serving {
        row(out, s, t);
    }
}

/// The results panel; `class` is added to the section's (`sv-front` for the front page's, which
/// a link hides). Without a baseline the "vs base" column folds, as the app's does.
pub fn results(out: &mut String, rows: &[ResultRow], t: Table, class: &str) {
    write!(
        out,
        r#"<section class="panel results{class}" aria-label="Results"><h2>Results<span class="hint">(click a row for its derivation)</span><span class="spacer"></span><button class="small" aria-pressed="false" tabindex="-1">more columns</button></h2><table class="results-table compact"><thead><tr><th scope="col">operation · chip</th>"#,
    )
    .unwrap();
    let no_base = t.base.is_none();
    let head = |out: &mut String, (m, text): (&str, &str)| {
        let class = if is_extra(m) || (m == "vs_base" && no_base) {
            "extra"
        } else {
            ""
        };
        write!(out, r#"<th class="{class}" scope="col">{text}</th>"#).unwrap();
    };
    HEAD.into_iter().for_each(|h| head(out, h));
    if rows.iter().any(|r| !r.parts.is_empty()) {
        WORKLOAD_HEAD.into_iter().for_each(|h| head(out, h));
    }
    out.push_str("</tr></thead><tbody>");
    rows.iter().for_each(|r| row(out, r, t));
    out.push_str("</tbody></table></section>");
}
