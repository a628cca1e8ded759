//! The plots of the first view: which charts a scenario shows (as the app's `Charts` builds
//! them) and each as inline SVG.

use roofline::inputs::Scenario;

use crate::charts::ChartGeometry;
use crate::view::{self, ChartModel};

/// The plots the page shows for the scenario, as the app's `Charts` builds them (the sweep
/// first, as the plots panel stacks them).
pub fn charts(s: &Scenario) -> Vec<ChartModel> {
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

/// The one plot an embed shows (the app's `EmbedView`): the sweep, else the serving frontier,
/// else the roofline; none when the scenario shows none of them.
pub fn embed_chart(s: &Scenario) -> Option<ChartModel> {
    let a = s.axes;
    if s.plot.shows_sweep() {
        Some(ChartModel::Sweep(view::sweep_chart(
            s, a.y, a.log_x, a.log_y,
        )))
    } else if s.plot.shows_frontier() {
        Some(ChartModel::Frontier(view::frontier_chart(s)))
    } else if s.plot.shows_roofline() {
        Some(ChartModel::Roofline(view::roofline_chart(s)))
    } else {
        None
    }
}

/// One drawing as inline SVG: plotters' document without its fixed size (CSS sizes it), hidden
/// from assistive technology (its frame carries the label). Refuses a drawing with a `style`
/// attribute, which the page's Content-Security-Policy would block.
pub fn svg(m: &ChartModel, dark: bool, size: (u32, u32), class: &str) -> Result<String, String> {
    svg_with_geometry(m, dark, size, class).map(|(svg, _)| svg)
}

/// [`svg`] with the drawing's geometry, for the pointer read-out of a live embed (its pixels are
/// the SVG's `viewBox` units).
pub fn svg_with_geometry(
    m: &ChartModel,
    dark: bool,
    (w, h): (u32, u32),
    class: &str,
) -> Result<(String, ChartGeometry), String> {
    let (doc, geometry) = m.to_svg_with_geometry(dark, w, h)?;
    let start = doc.find("<svg").ok_or("no <svg> in the drawing")?;
    let doc = &doc[start..];
    let end = doc.find('>').ok_or("no end of the <svg> tag")?;
    if doc.contains(" style=") {
        return Err("the drawing has a style attribute, which the CSP refuses".into());
    }
    Ok((
        format!(
            r#"<svg class="{class}" viewBox="0 0 {w} {h}" xmlns="http://www.w3.org/2000/svg" aria-hidden="true" focusable="false">{}"#,
            &doc[end + 1..]
        ),
        geometry,
    ))
}
