//! The skeleton of the page's layout around the first view's plots: the title bar, the input
//! panels' frames, the plot tabs, as the app will lay them out (so that nothing moves when it
//! takes over).

use std::fmt::Write as _;

use roofline::inputs::{PlotKind, Scenario};

/// The title bar; the chapter's question shows on the front page's scenario only (as the app's).
pub fn header(out: &mut String, s: &Scenario) {
    out.push_str(
        r#"<main class="app sv-page"><header class="topbar"><h1>Roofline Lab</h1><span class="tagline">Why does this take 50 ms and not 5? FLOPs, bytes and the roofline, after <em>How to Scale Your Model</em>, part 1."#,
    );
    if *s == Scenario::default() {
        out.push_str(r#"<span data-front-question="3"> This plot is the chapter's Question 3: peak FLOP/s against B for D = F = 4096 and 1024.</span>"#);
    }
    out.push_str(
        r#"</span><div class="actions" inert><button class="primary">Copy link</button><button>Embed</button><button>Export</button></div></header><div class="layout"><div class="forms">"#,
    );
    panel(out, "Chips", "sv-chips");
    panel(out, "Operations", "sv-ops");
    panel(out, "Options", "sv-options");
    panel(out, "Worked examples from the book", "sv-recipes");
    out.push_str(r#"</div><div class="outputs"><section class="panel" aria-label="Plots">"#);
}

/// The plot tabs as the app shows them for this scenario: a picture of the controls until
/// the app's own replace them (inert: nothing to click before the app runs).
pub fn tabs(out: &mut String, s: &Scenario) {
    let has_llm = s.ops.iter().any(|o| o.traits().serves);
    let has_load = crate::view::serving_load::load_pair(s).is_some();
    out.push_str(r#"<div class="plot-tabs" inert><div class="tabs">"#);
    for (p, text) in [
        (PlotKind::Sweep, "Sweep"),
        (PlotKind::Roofline, "Roofline"),
        (PlotKind::Both, "Both"),
        (PlotKind::Frontier, "Serving frontier"),
        (PlotKind::Load, "Load"),
        (PlotKind::Validation, "Validation"),
    ] {
        if p == PlotKind::Frontier && !(has_llm || s.plot == p) {
            continue;
        }
        if p == PlotKind::Load && !(has_load || s.plot == p) {
            continue;
        }
        let sel = if s.plot == p { " sv-selected" } else { "" };
        write!(out, r#"<button class="sv-tab{sel}">{text}</button>"#).unwrap();
    }
    out.push_str(r#"</div><span class="spacer"></span>"#);
    if s.options.cal != roofline::inputs::Calibration::NONE {
        out.push_str(r#"<span class="calibrated"><button class="small cal-chip">calibrated ✕</button></span>"#);
    }
    if s.plot.shows_sweep() {
        let (metrics, shown) = crate::view::y_buttons(s);
        for (m, text) in metrics {
            let on = if shown == m { " sv-selected" } else { "" };
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

/// The app's four worked examples under the key line (`app/recipes.rs`'s `TryNext`), as plain
/// links: they open their example before the app has arrived. `class` is added to the nav's
/// (`sv-front` on the front page, whose own parts a link hides).
pub fn try_next(out: &mut String, class: &str) {
    write!(
        out,
        r#"<nav class="try-next{class}" aria-label="Worked examples to try"><span class="hint">Try: </span>"#
    )
    .unwrap();
    for (_, id, title, query) in crate::view::recipes::try_next() {
        write!(
            out,
            r#"<a class="example-link" href="?{}" data-example-link="{}">{}</a>"#,
            super::esc(&query),
            super::esc(id),
            super::esc(title)
        )
        .unwrap();
    }
    out.push_str("</nav>");
}
