//! The draw program (issue 27): a small wasm, without Leptos, that draws a link's or an
//! embed's own first view before the app's wasm has arrived. `assets/first-view.js` loads it on
//! a link (any query); it decodes `location.search` with the app's decoder and draws with the
//! app's view and chart code (`roofline_lab::first_view::Drawn`): the page's layout with the
//! key line and results, then each plot as SVG at its frame's size. The app removes the view
//! in the task that mounts it, as it does the front page's. An embed is the draw program's
//! alone: the page keeps its view live (the pointer read-out, a redraw at a new size or theme)
//! and never loads the app.
//!
//! Trunk builds it (index.html: `data-bin="draw" data-type="worker"`, as an ES module, without
//! the crate's default `app` feature, so without Leptos),
//! `scripts/csp_post_build.py` gives its files hashed names. Natively, `cargo run --bin draw --
//! '<query>'` prints the view's HTML (and plot 0 as SVG) for a look.

#[cfg(target_arch = "wasm32")]
mod web {
    use wasm_bindgen::prelude::*;

    /// A link's view (`roofline_lab::first_view::Drawn`), for the page's script.
    #[wasm_bindgen]
    pub struct View(roofline_lab::first_view::Drawn);

    #[wasm_bindgen]
    impl View {
        /// The view of `query` (`location.search`), or `undefined` where the link has notices
        /// or no plot to draw: the page then keeps its skeleton for the app.
        pub fn of(query: &str) -> Option<View> {
            roofline_lab::first_view::Drawn::from_query(query).map(View)
        }

        /// An embed?
        pub fn embed(&self) -> bool {
            self.0.embed()
        }

        /// The view's HTML, each plot an empty frame `[data-drawn-plot="<i>"]`.
        pub fn html(&self) -> String {
            self.0.html()
        }

        /// Plot `i` as SVG of the frame's size in CSS px, or `undefined`.
        pub fn svg(&self, i: usize, width: u32, height: u32, dark: bool) -> Option<String> {
            self.0.svg(i, width, height, dark)
        }

        /// The pointer read-out of plot `i` at (`x`, `y`) in its SVG's units, or `undefined`
        /// (an embed's page answers the pointer with it: the embed never loads the app).
        pub fn readout(&self, i: usize, x: f64, y: f64) -> Option<String> {
            self.0.readout(i, x, y)
        }
    }
}

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    let query = std::env::args().nth(1).unwrap_or_default();
    match roofline_lab::first_view::Drawn::from_query(&query) {
        Some(d) => {
            println!("{}", d.html());
            if let Some(svg) = d.svg(0, 800, 450, false) {
                println!("{svg}");
            }
        }
        None => {
            eprintln!("draw: this link draws nothing (it has notices or no plot to draw)");
            std::process::exit(1);
        }
    }
}
