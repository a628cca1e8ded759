//! The first view that needs no app (issue 27): the page's plot, key line and results as plain
//! HTML and inline SVG, drawn with the app's own core, view and chart code, inside a skeleton
//! of the page's layout. Plain Rust (no Leptos, no web-sys), for two programs:
//!
//! - [`front_page`]: the front page, drawn at build time by `src/bin/static-view.rs` (Trunk's
//!   `pre_build` hook) into index.html, four plots (light and dark, wide and narrow) of which
//!   CSS shows one;
//! - [`Drawn`]: a link's or an embed's own view, drawn in the browser by the small draw
//!   program (`src/bin/draw.rs`, no Leptos) from `location.search` before the app's wasm has
//!   arrived; one plot at the size and in the theme the page has.
//!
//! The app removes either view (`[data-static-view]`) in the task that mounts it. Every user
//! text (chip and operation names, anything a link carries) is escaped ([`esc`]): none of it
//! becomes markup. One file per concern: [`html`] (escaping), [`measure`] (text widths without a
//! canvas), [`plot`] (the charts as SVG), [`results`] (the results table), [`page`] (the skeleton).

mod html;
mod measure;
mod page;
mod plot;
mod results;

use std::cell::RefCell;
use std::fmt::Write as _;

use roofline::inputs::Scenario;

pub use html::esc;
pub use measure::helvetica;

use crate::charts::ChartGeometry;
use crate::view::{self, ChartModel, KeyLineDetail};

/// The front page's plot sizes in CSS px: the page's canvas is 16:9 above 600 px wide and 3:2
/// below (style/main.css); the SVG scales to the frame's width, so text keeps about the
/// canvas's size at common widths.
const WIDE: (u32, u32) = (800, 450);
const NARROW: (u32, u32) = (390, 260);

/// The front page (the scenario an empty query decodes to): the page's layout with its plot
/// (four SVGs: light and dark, wide and narrow), key line and results, and the embed's
/// skeleton. Everything of the front page's own carries `sv-front`, which a link hides
/// (assets/first-view.js marks it before the first paint).
pub fn front_page() -> Result<String, String> {
    crate::charts::set_text_measurer(helvetica);
    let s = roofline::url::decode("").scenario;
    let mut out = String::from(
        "<!-- The front page, drawn at build time by src/bin/static-view.rs; the app replaces it. -->\n",
    );
    out.push_str(r#"<div class="sv" data-static-view="true">"#);
    // The embed's skeleton: a plot frame filling the frame (shown for embed links only).
    out.push_str(
        r#"<main class="sv-embed-frame"><h1 class="visually-hidden">Roofline Lab</h1><p class="sv-embed-note">Roofline Lab: drawing the plot…</p></main>"#,
    );
    page::header(&mut out, &s);
    page::tabs(&mut out, &s);
    for m in plot::charts(&s) {
        write!(
            out,
            r#"<div class="chart"><div class="sv-plot" role="img" aria-label="{}"><div class="sv-front sv-light">{}{}</div><div class="sv-front sv-dark">{}{}</div></div><div class="readout"></div></div>"#,
            esc(&m.aria_label()),
            plot::svg(&m, false, WIDE, "sv-wide")?,
            plot::svg(&m, false, NARROW, "sv-narrow")?,
            plot::svg(&m, true, WIDE, "sv-wide")?,
            plot::svg(&m, true, NARROW, "sv-narrow")?,
        )
        .unwrap();
    }
    write!(
        out,
        r#"<p class="keyline sv-front" data-static-keyline="true">{}</p>"#,
        esc(&view::key_line(&s))
    )
    .unwrap();
    page::try_next(&mut out, " sv-front");
    out.push_str("</section>");
    // Its cells carry their `data-metric` as the app's do, so that the stylesheet lays both
    // tables out alike (which figures wrap).
    let table = results::Table {
        base: None,
        metrics: true,
        kind_col: false,
    };
    results::results(&mut out, &view::result_rows(&s), table, " sv-front");
    out.push_str("</div></div></main></div>\n");
    Ok(out)
}

/// The smallest and largest plot the draw program draws, in CSS px a side.
const SIDE: std::ops::RangeInclusive<u32> = 60..=4000;

/// A link's or an embed's first view, drawn by the draw program: the scenario decoded from
/// the link exactly as the app decodes it, and the plots the app will show for it.
pub struct Drawn {
    scenario: Scenario,
    charts: Vec<ChartModel>,
    /// Each plot's geometry as last drawn by [`Drawn::svg`], for [`Drawn::readout`].
    drawn: RefCell<Vec<Option<ChartGeometry>>>,
}

impl Drawn {
    /// The view of the link `query` (`location.search`, with or without its `?`); `None` when
    /// the app would say something about the link (its notices: an unknown name, a bad
    /// number) or shows no plot the view can draw (the validation plot): the page keeps its
    /// skeleton, and the app shows its usual messages.
    pub fn from_query(query: &str) -> Option<Drawn> {
        crate::charts::set_text_measurer(helvetica);
        let d = roofline::url::decode(query);
        if !d.notices.is_empty() {
            return None;
        }
        let s = d.scenario;
        let charts = if s.embed {
            plot::embed_chart(&s).into_iter().collect()
        } else {
            plot::charts(&s)
        };
        // A link's load plot is the app's to draw (the draw program leaves the load model out,
        // its size budget): its view keeps a frame that says so, never another plot. An embed
        // of it is left to the app whole (a drawn embed never loads the app).
        let load_frame = s.plot.shows_load() && !s.embed;
        if charts.is_empty() && !load_frame {
            return None;
        }
        Some(Drawn {
            scenario: s,
            drawn: RefCell::new(vec![None; charts.len()]),
            charts,
        })
    }

    /// An embed (`embed=1`)?
    pub fn embed(&self) -> bool {
        self.scenario.embed
    }

    /// How many plots the view has: [`Drawn::svg`] draws each.
    pub fn plots(&self) -> usize {
        self.charts.len()
    }

    /// The view without its plots: the page's layout (or the embed's) with the key line and
    /// the results; each plot an empty frame (`data-drawn-plot="<i>"`), to be filled by
    /// [`Drawn::svg`] once the page has laid the frame out.
    pub fn html(&self) -> String {
        let s = &self.scenario;
        let mut out = String::from(
            r#"<div class="sv sv-drawn" data-static-view="true" data-drawn-view="true">"#,
        );
        if s.embed {
            // The app's `EmbedView`: the plot filling the frame, the compact key line and the
            // link back under it, the plot's data as a table for screen readers. The page's
            // script keeps it live (assets/first-view.js: the pointer read-out, redrawn at a
            // new size or theme) and marks it ready; an embed never loads the app.
            let key = view::key_line_with(s, KeyLineDetail::Compact);
            let mut full = s.clone();
            full.embed = false;
            write!(
                out,
                r#"<main class="embed-view" data-embed="true"><h1 class="visually-hidden">{}</h1>"#,
                esc(&view::embed_title(s))
            )
            .unwrap();
            self.frames(&mut out);
            write!(
                out,
                r#"<div class="embed-foot"><span class="keyline" data-drawn-keyline="true" data-keyline="true" title="{}">{}</span><a href="?{}" target="_blank" rel="noopener" data-open-app="true">Open in Roofline Lab ↗</a></div>"#,
                esc(&key),
                esc(&key),
                esc(&roofline::url::encode(&full))
            )
            .unwrap();
            for m in &self.charts {
                data_table(&mut out, m);
            }
            out.push_str("</main>");
        } else {
            page::header(&mut out, s);
            page::tabs(&mut out, s);
            self.frames(&mut out);
            write!(
                out,
                r#"<p class="keyline" data-drawn-keyline="true">{}</p>"#,
                esc(&view::key_line(s))
            )
            .unwrap();
            page::try_next(&mut out, "");
            out.push_str("</section>");
            let table = results::Table {
                base: s.base_row().map(|b| (b.op, b.chip)),
                metrics: true,
                kind_col: false,
            };
            results::results(&mut out, &view::result_rows(s), table, "");
            out.push_str("</div></div></main>");
        }
        out.push_str("</div>");
        out
    }

    fn frames(&self, out: &mut String) {
        if self.charts.is_empty() && self.scenario.plot.shows_load() {
            out.push_str(LOAD_SKELETON);
        }
        for (i, m) in self.charts.iter().enumerate() {
            // An embed's plot says its kind, as the app's canvas does (`data-chart`).
            let kind = if self.scenario.embed {
                format!(r#" data-chart="{}""#, m.kind())
            } else {
                String::new()
            };
            write!(
                out,
                r#"<div class="chart"><div class="sv-plot" role="img" aria-label="{}" data-drawn-plot="{i}"{kind}></div><div class="readout" aria-live="polite"></div></div>"#,
                esc(&m.aria_label())
            )
            .unwrap();
        }
    }

    /// Plot `i` as inline SVG of `width` × `height` CSS px (the frame's size), in the dark or
    /// light theme; `None` for no such plot, a size out of reason, or a drawing that failed.
    pub fn svg(&self, i: usize, width: u32, height: u32, dark: bool) -> Option<String> {
        if !SIDE.contains(&width) || !SIDE.contains(&height) {
            return None;
        }
        let (svg, geometry) =
            plot::svg_with_geometry(self.charts.get(i)?, dark, (width, height), "sv-drawn-svg")
                .ok()?;
        if let Some(g) = self.drawn.borrow_mut().get_mut(i) {
            *g = Some(geometry);
        }
        Some(svg)
    }

    /// What the pointer at (`x`, `y`) points at in plot `i`, in the units of the SVG's `viewBox`
    /// as [`Drawn::svg`] last drew it (the app's canvas read-out, to the word); `None` before
    /// that plot is drawn or away from every point (more than 24 px).
    pub fn readout(&self, i: usize, x: f64, y: f64) -> Option<String> {
        let g = (*self.drawn.borrow().get(i)?)?;
        self.charts.get(i)?.readout(&g, x, y, READOUT_PX)
    }
}

/// The load plot's frame until the app draws it: a note, no figure.
const LOAD_SKELETON: &str = r#"<div class="chart"><div class="sv-plot sv-load" role="img" aria-label="Load plot: drawn when the app has loaded" data-load-skeleton="true"><p class="sv-load-note">The load plot (expected TTFT and TPOT per engine against the load, and the throughput–interactivity frontier) is drawn when the app has loaded…</p></div></div>"#;

/// How near a point the pointer must be for the read-out to name it, in CSS px (the app's
/// canvas reads 24 px at its device pixel ratio).
const READOUT_PX: f64 = 24.0;

/// A plot's data as a table off screen, for screen readers (the app's `DataTable`).
fn data_table(out: &mut String, m: &ChartModel) {
    let (head, rows) = m.table();
    write!(
        out,
        r#"<div class="offscreen-table"><table data-chart-table="{}"><caption>{}</caption><thead><tr>"#,
        m.kind(),
        esc(&m.aria_label())
    )
    .unwrap();
    for h in &head {
        write!(out, r#"<th scope="col">{}</th>"#, esc(h)).unwrap();
    }
    out.push_str("</tr></thead><tbody>");
    for r in &rows {
        out.push_str("<tr>");
        for c in r {
            write!(out, "<td>{}</td>", esc(c)).unwrap();
        }
        out.push_str("</tr>");
    }
    out.push_str("</tbody></table></div>");
}

#[cfg(test)]
mod tests;
