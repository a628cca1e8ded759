//! The results table as the app first shows it (derivations and parts folded, compact
//! columns), in the app's own column order (`view::columns`).

use std::fmt::Write as _;

use super::html::esc;
use crate::view::columns::{
    figure_label, header_of, header_title, is_column, is_extra, is_kind_figure, HEAD, KIND_HEAD,
};
use crate::view::{Cell, ResultRow};

/// How the table is written: the cells carry their `data-metric` (the stylesheet lets some of
/// them wrap, as the app's: issue 38 found the front page's, without them, laid out wider and
/// taller than the app's table that replaces it).
#[derive(Clone, Copy)]
pub struct Table {
    /// The scenario's baseline (operation, chip), whose row says so.
    pub base: Option<(usize, usize)>,
    /// Write each column cell's `data-metric`.
    pub metrics: bool,
    /// The table shows the column of a kind's own figures (some row has one): every row then
    /// has its cell there, as the app's.
    pub kind_col: bool,
}

/// Whether a row has figures for the column of a kind's own.
fn has_kind_figures(r: &ResultRow) -> bool {
    r.error.is_none()
        && r.class != "serving-row"
        && r.cells.iter().any(|c| is_kind_figure(c.metric))
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

/// A figure as the app's `LiveCell` writes it: a span, with its `data-metric` in the drawn
/// view, and an expected figure's basis and its mark.
fn span(out: &mut String, c: &Cell, t: Table) {
    out.push_str("<span");
    if t.metrics {
        write!(
            out,
            r#" data-metric="{}" data-value="{}""#,
            esc(c.metric),
            esc(&c.value)
        )
        .unwrap();
    }
    if let Some(b) = c.basis {
        write!(out, r#" data-basis="{}""#, esc(b)).unwrap();
    }
    write!(
        out,
        r#" class="{}" title="{}">{}"#,
        c.class,
        esc(&c.title),
        esc(&c.text)
    )
    .unwrap();
    if let Some((mark, words)) = crate::view::expected::basis_mark(c.metric, c.basis) {
        write!(
            out,
            r#"<sup class="basis-mark" title="backed by {}">{}</sup>"#,
            esc(words),
            esc(mark)
        )
        .unwrap();
    }
    out.push_str("</span>");
}

/// The expected figure with its band inline (`≈ 787 µs (620–990)`), as the app's.
fn expected_td(out: &mut String, r: &ResultRow, c: &Cell, t: Table) {
    write!(
        out,
        r#"<td class="expected-cell" data-label="{}" title="{}">"#,
        esc(header_of(c.metric)),
        esc(header_title(c.metric))
    )
    .unwrap();
    span(out, c, t);
    let find = |m: &str| r.cells.iter().find(|c| c.metric == m);
    if let (Some(lo), Some(hi)) = (find("t_expected_lo"), find("t_expected_hi")) {
        let class = if lo.value == "none" {
            "band empty"
        } else {
            "band"
        };
        write!(out, r#"<span class="{class}"> ("#).unwrap();
        span(out, lo, t);
        out.push('–');
        span(out, hi, t);
        out.push_str(")</span>");
    }
    out.push_str("</td>");
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
                // An expected figure's band follows it inline, as the app's (issue 40).
                if c.metric.ends_with("_expected_hi") {
                    continue;
                }
                if let Some(stem) = c.metric.strip_suffix("_expected_lo") {
                    let hi = format!("{stem}_expected_hi");
                    if let Some(hi) = r.cells.iter().find(|h| h.metric == hi) {
                        let class = if c.value == "none" {
                            "band empty"
                        } else {
                            "band"
                        };
                        write!(out, r#"<span class="{class}"> ("#).unwrap();
                        span(out, c, t);
                        out.push('–');
                        span(out, hi, t);
                        out.push_str(")</span>");
                    }
                    continue;
                }
                out.push_str(r#"<span class="serving-cell">"#);
                span(out, c, t);
                out.push_str("</span>");
            }
            out.push_str("</td>");
        }
        None => {
            // As the app: the columns first, then a kind's own figures labelled in one last
            // cell.
            let has_parts = !r.parts.is_empty();
            for c in r.cells.iter().filter(|c| is_column(c.metric)) {
                if c.metric == "t_expected" {
                    expected_td(out, r, c, t);
                } else {
                    cell_td(out, c, t);
                }
            }
            let kind: Vec<&Cell> = r
                .cells
                .iter()
                .filter(|c| is_kind_figure(c.metric))
                .collect();
            if t.kind_col {
                if kind.is_empty() {
                    out.push_str(r#"<td class="kind-cells">"#);
                } else {
                    write!(
                        out,
                        r#"<td class="kind-cells" data-label="{}">"#,
                        esc(KIND_HEAD.1)
                    )
                    .unwrap();
                }
                for c in kind {
                    let label = figure_label(c.metric, has_parts);
                    let class = if is_extra(c.metric) {
                        "kind-cell extra"
                    } else {
                        "kind-cell"
                    };
                    write!(out, r#"<span class="{class}">"#).unwrap();
                    if !label.is_empty() {
                        write!(out, r#"<span class="kind-label">{} </span>"#, esc(label)).unwrap();
                    }
                    span(out, c, t);
                    out.push_str("</span>");
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
        let title = header_title(m);
        if title.is_empty() {
            write!(out, r#"<th class="{class}" scope="col">{text}</th>"#).unwrap();
        } else {
            write!(
                out,
                r#"<th class="{class}" scope="col" title="{}">{text}</th>"#,
                esc(title)
            )
            .unwrap();
        }
    };
    HEAD.into_iter().for_each(|h| head(out, h));
    let t = Table {
        kind_col: rows.iter().any(has_kind_figures),
        ..t
    };
    if t.kind_col {
        head(out, KIND_HEAD);
    }
    out.push_str("</tr></thead><tbody>");
    rows.iter().for_each(|r| row(out, r, t));
    out.push_str("</tbody></table></section>");
}
