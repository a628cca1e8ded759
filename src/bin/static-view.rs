//! The first view that needs no wasm (issue 27): Trunk's `pre_build` hook runs this natively
//! (`cargo run --bin static-view`) before every build. It renders the front page's scenario (the
//! one an empty query decodes to) with the app's own core, view and chart code: the plot as
//! inline SVG (light and dark, wide and narrow, one shown through CSS classes), the key line and
//! the results table as HTML, inside a skeleton of the page's layout (title, panels, plot frame).
//! The drawing is `roofline_lab::first_view::front_page` (src/first_view/), which the draw
//! program (src/bin/draw.rs) shares for links and embeds. This writes the fragment to
//! `$TRUNK_STAGING_DIR/static-view.html` (or the path given as the first argument);
//! `scripts/csp_post_build.py` puts it at the start of the staged page's `<body>` and deletes
//! the file.
//!
//! In the page, `assets/first-view.js` (a file, as the CSP wants) marks a link (any query) on
//! `<html>` before the first paint: a link then shows the skeleton without the front page's
//! plot and figures. The app removes the static view in the task that mounts it, so nothing
//! paints in between; on a link, the draw program draws the link's own view into the skeleton
//! first. Native only.
//!
//! It also evaluates the validation set (issue 25) and writes the validation view's data,
//! `validation.json`, beside the fragment; the post_build hook names it by its content and
//! tells the page its name. The app fetches it the first time the view opens, so neither the
//! set nor its fits are in the app's wasm (issue 27). Likewise the catalog's source notes,
//! `source-notes.json`, which the app loads once it answers input.

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
    let html = roofline_lab::first_view::front_page().unwrap_or_else(|e| {
        eprintln!("static-view: {e}");
        std::process::exit(1)
    });
    let validation = roofline_lab::view::validation::ValidationPage::of(
        &roofline_lab::view::validation::validation_report(),
    )
    .to_json();
    for (path, text) in [
        (out.clone(), html),
        (out.with_file_name("validation.json"), validation),
        (
            out.with_file_name("source-notes.json"),
            roofline_lab::view::SourceNotes::catalog_json(),
        ),
    ] {
        if let Err(e) = std::fs::write(&path, text) {
            eprintln!("static-view: write {}: {e}", path.display());
            std::process::exit(1);
        }
    }
}
