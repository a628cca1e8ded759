//! The first view that needs no wasm (issue 27): Trunk's `pre_build` hook runs this natively
//! (`cargo run --bin static-view`) before every build. It renders the front page's scenario (the
//! one an empty query decodes to) with the app's own core, view and chart code: the plot as
//! inline SVG (light and dark, wide and narrow, one shown through CSS classes), the key line and
//! the results table as HTML, inside a skeleton of the page's layout (title, panels, plot frame).
//! It writes the fragment to `$TRUNK_STAGING_DIR/static-view.html` (or the path given as the
//! first argument); `scripts/csp_post_build.py` puts it at the start of the staged page's
//! `<body>` and deletes the file.
//!
//! In the page, `assets/first-view.js` (a file, as the CSP wants) marks a link (any query) on
//! `<html>` before the first paint: a link then shows the skeleton without the front page's
//! plot and figures. The app removes the static view in the task that mounts it, so nothing
//! paints in between. Native only: nothing here is in the wasm (Trunk builds the
//! `roofline-lab` binary alone).

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    let out = std::env::args()
        .nth(1)
        .map(std::path::PathBuf::from)
        .or_else(|| {
            std::env::var_os("TRUNK_STAGING_DIR")
                .map(|d| std::path::PathBuf::from(d).join("static-view.html"))
        })
        .unwrap_or_else(|| {
            eprintln!("static-view: give the output file, or run me as Trunk's pre_build hook");
            std::process::exit(2)
        });
    let html = native::render().unwrap_or_else(|e| {
        eprintln!("static-view: {e}");
        std::process::exit(1)
    });
    if let Err(e) = std::fs::write(&out, html) {
        eprintln!("static-view: write {}: {e}", out.display());
        std::process::exit(1);
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use std::fmt::Write as _;

    use roofline::scenario::Scenario;
    use roofline_lab::view::{self, ChartModel, ResultRow};

    /// The plot's sizes in CSS px: the page's canvas is 16:9 above 600 px wide and 3:2 below
    /// (style/main.css); the SVG scales to the frame's width, so text keeps about the canvas's
    /// size at common widths.
    const WIDE: (u32, u32) = (800, 450);
    const NARROW: (u32, u32) = (390, 260);

    /// The results table's columns, as the app writes them (one list: `view::columns`).
    use roofline_lab::view::columns::{
        header_of, is_column, is_extra, kind_label, HEAD, WORKLOAD_HEAD,
    };

    /// Text and attribute values as HTML.
    fn esc(s: &str) -> String {
        let mut o = String::with_capacity(s.len());
        for c in s.chars() {
            match c {
                '&' => o.push_str("&amp;"),
                '<' => o.push_str("&lt;"),
                '>' => o.push_str("&gt;"),
                '"' => o.push_str("&quot;"),
                '\'' => o.push_str("&#39;"),
                c => o.push(c),
            }
        }
        o
    }

    /// Advance widths of Helvetica / Arial (per 1000 em) for ASCII 32..=126: the chart's font
    /// stack ends in them, and system-ui faces (San Francisco, Segoe UI, Roboto) are close. The
    /// page measures with the canvas's `measureText`; natively this table stands in for it, so
    /// labels land where the canvas will put them to within a few pixels.
    const HELVETICA: [u16; 95] = [
        278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278,
        278, // ' '..'/'
        556, 556, 556, 556, 556, 556, 556, 556, 556, 556, // '0'..'9'
        278, 278, 584, 584, 584, 556, 1015, // ':'..'@'
        667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, // 'A'..'M'
        722, 778, 667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, // 'N'..'Z'
        278, 278, 278, 469, 556, 333, // '['..'`'
        556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, // 'a'..'m'
        556, 556, 556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, // 'n'..'z'
        334, 260, 334, 584, // '{'..'~'
    ];

    fn measure(text: &str, _family: &str, size: f64, style: &str) -> Option<(f64, f64)> {
        let em: f64 = text
            .chars()
            .map(|c| match c as u32 {
                n @ 32..=126 => HELVETICA[(n - 32) as usize] as f64,
                _ => 556.0,
            })
            .sum();
        let bold = if style.contains("bold") { 1.06 } else { 1.0 };
        Some(((em * size / 1000.0 * bold).ceil(), (size * 1.2).ceil()))
    }

    /// The plots the scenario shows, as the app's `Charts` builds them.
    fn charts(s: &Scenario) -> Vec<ChartModel> {
        let mut out = Vec::new();
        if s.plot.shows_sweep() {
            let a = s.axes;
            out.push(ChartModel::Sweep(view::sweep_chart(
                s, a.y, a.log_x, a.log_y,
            )));
        }
        if s.plot.shows_roofline() {
            out.push(ChartModel::Roofline(view::roofline_chart(s)));
        }
        if s.plot.shows_frontier() {
            out.push(ChartModel::Frontier(view::frontier_chart(s)));
        }
        out
    }

    /// One drawing as inline SVG: plotters' document without its fixed size (CSS sizes it).
    fn svg(m: &ChartModel, dark: bool, (w, h): (u32, u32), class: &str) -> Result<String, String> {
        let doc = m.to_svg(dark, w, h)?;
        let start = doc.find("<svg").ok_or("no <svg> in the drawing")?;
        let doc = &doc[start..];
        let end = doc.find('>').ok_or("no end of the <svg> tag")?;
        if doc.contains(" style=") {
            return Err("the drawing has a style attribute, which the CSP refuses".into());
        }
        Ok(format!(
            r#"<svg class="{class}" viewBox="0 0 {w} {h}" xmlns="http://www.w3.org/2000/svg" aria-hidden="true" focusable="false">{}"#,
            &doc[end + 1..]
        ))
    }

    fn cell_td(out: &mut String, c: &view::Cell) {
        let extra = if is_extra(c.metric) { " extra" } else { "" };
        write!(
            out,
            r#"<td class="{}{extra}" data-label="{}" title="{}">{}</td>"#,
            c.class,
            esc(header_of(c.metric)),
            esc(&c.title),
            esc(&c.text)
        )
        .unwrap();
    }

    /// A result row as the app first shows it (derivation and parts folded).
    fn row(out: &mut String, r: &ResultRow) {
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
        if r.op_key.parse::<usize>().is_ok() {
            out.push_str(r#"<span class="row-actions"><button class="small" tabindex="-1">base</button> <button class="small" tabindex="-1">why?</button></span>"#);
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
                // As the app: the columns first, then a kind's own figures labelled in one
                // last cell.
                let has_parts = !r.parts.is_empty();
                let column = |c: &&view::Cell| is_column(c.metric, has_parts) || is_extra(c.metric);
                r.cells.iter().filter(column).for_each(|c| cell_td(out, c));
                let kind: Vec<&view::Cell> = r.cells.iter().filter(|c| !column(c)).collect();
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
            row(out, s);
        }
    }

    fn results(out: &mut String, rows: &[ResultRow]) {
        out.push_str(
            r#"<section class="panel results sv-front" aria-label="Results"><h2>Results<span class="hint">(click a row for its derivation)</span><span class="spacer"></span><button class="small" aria-pressed="false" tabindex="-1">more columns</button></h2><table class="results-table compact"><thead><tr><th scope="col">operation · chip</th>"#,
        );
        // The front page has no baseline: its "vs base" column folds as the app's does.
        let head = |out: &mut String, (m, t): (&str, &str)| {
            let class = if is_extra(m) || m == "vs_base" {
                "extra"
            } else {
                ""
            };
            write!(out, r#"<th class="{class}" scope="col">{t}</th>"#).unwrap();
        };
        HEAD.into_iter().for_each(|h| head(out, h));
        if rows.iter().any(|r| !r.parts.is_empty()) {
            WORKLOAD_HEAD.into_iter().for_each(|h| head(out, h));
        }
        out.push_str("</tr></thead><tbody>");
        rows.iter().for_each(|r| row(out, r));
        out.push_str("</tbody></table></section>");
    }

    /// The plot tabs as the app shows them for this scenario: a picture of the controls until
    /// the app's own replace them (inert: nothing to click before the app runs).
    fn tabs(out: &mut String, s: &Scenario) {
        use roofline::scenario::PlotKind;
        let has_llm = s.ops.iter().any(|o| o.traits().serves);
        out.push_str(r#"<div class="plot-tabs" inert><div class="tabs">"#);
        for (p, text) in [
            (PlotKind::Sweep, "Sweep"),
            (PlotKind::Roofline, "Roofline"),
            (PlotKind::Both, "Both"),
            (PlotKind::Frontier, "Serving frontier"),
            (PlotKind::Validation, "Validation"),
        ] {
            if p == PlotKind::Frontier && !(has_llm || s.plot == p) {
                continue;
            }
            let sel = if s.plot == p { " sv-selected" } else { "" };
            write!(out, r#"<button class="sv-tab{sel}">{text}</button>"#).unwrap();
        }
        out.push_str(r#"</div><span class="spacer"></span>"#);
        if s.plot.shows_sweep() {
            use roofline_lab::view::SweepMetric;
            let mut metrics = vec![
                (SweepMetric::Achieved, "FLOPs/s"),
                (SweepMetric::Time, "time"),
                (SweepMetric::Fraction, "% of peak"),
            ];
            if has_llm {
                metrics.push((SweepMetric::TokensPerS, "tokens/s"));
            }
            for (m, text) in metrics {
                let on = if s.axes.y == m { " sv-selected" } else { "" };
                write!(out, r#"<button class="small{on}">{text}</button>"#).unwrap();
            }
            let checked = |on: bool| if on { " checked" } else { "" };
            write!(
                out,
                r#"<label class="small"><input type="checkbox"{}> log x</label><label class="small"><input type="checkbox"{}> log y</label>"#,
                checked(s.axes.log_x),
                checked(s.axes.log_y)
            )
            .unwrap();
        }
        out.push_str("</div>");
    }

    /// An input panel of the forms column: its heading and a frame where the app's fields go.
    fn panel(out: &mut String, title: &str, class: &str) {
        write!(
            out,
            r#"<section class="panel" aria-label="{title}"><h2>{title}</h2><div class="sv-fields {class}"></div></section>"#
        )
        .unwrap();
    }

    /// The static view: the page's layout with the front page's plot, key line and results.
    pub fn render() -> Result<String, String> {
        roofline_lab::charts::set_text_measurer(measure);
        let s = roofline::url::decode("").scenario;
        let mut out = String::from(
            "<!-- The front page, drawn at build time by src/bin/static-view.rs; the app replaces it. -->\n",
        );
        out.push_str(r#"<div class="sv" data-static-view="true">"#);
        // The embed's skeleton: a plot frame filling the frame (shown for embed links only).
        out.push_str(
            r#"<main class="sv-embed-frame"><h1 class="visually-hidden">Roofline Lab</h1><p class="sv-embed-note">Roofline Lab: drawing the plot…</p></main>"#,
        );
        out.push_str(
            r#"<main class="app sv-page"><header class="topbar"><h1>Roofline Lab</h1><span class="tagline">Why does this take 50 ms and not 5? FLOPs, bytes and the roofline, after <em>How to Scale Your Model</em>, part 1.<span data-front-question="3"> This plot is the chapter's Question 3: peak FLOP/s against B for D = F = 4096 and 1024.</span></span><div class="actions" inert><button class="primary">Copy link</button><button>Embed</button><button>Export</button></div></header><div class="layout"><div class="forms">"#,
        );
        panel(&mut out, "Chips", "sv-chips");
        panel(&mut out, "Operations", "sv-ops");
        panel(&mut out, "Options", "sv-options");
        panel(&mut out, "Worked examples from the book", "sv-recipes");
        out.push_str(r#"</div><div class="outputs"><section class="panel" aria-label="Plots">"#);
        tabs(&mut out, &s);
        for m in charts(&s) {
            write!(
                out,
                r#"<div class="chart"><div class="sv-plot" role="img" aria-label="{}"><div class="sv-front sv-light">{}{}</div><div class="sv-front sv-dark">{}{}</div></div><div class="readout"></div></div>"#,
                esc(&m.aria_label()),
                svg(&m, false, WIDE, "sv-wide")?,
                svg(&m, false, NARROW, "sv-narrow")?,
                svg(&m, true, WIDE, "sv-wide")?,
                svg(&m, true, NARROW, "sv-narrow")?,
            )
            .unwrap();
        }
        write!(
            out,
            r#"<p class="keyline sv-front" data-static-keyline="true">{}</p></section>"#,
            esc(&view::key_line(&s))
        )
        .unwrap();
        results(&mut out, &view::result_rows(&s));
        out.push_str("</div></div></main></div>\n");
        Ok(out)
    }
}
