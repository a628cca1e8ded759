//! Chart text measured with a canvas 2D context's `measureText`, registered with
//! [`crate::charts::set_text_measurer`]. plotters' own browser estimate appends a `<span>` with a
//! `style` attribute per label, which the Content-Security-Policy (`style-src 'self'`) refuses,
//! and forces a layout each time; this touches no element of the page.

use std::cell::RefCell;

use wasm_bindgen::JsCast;

thread_local! {
    /// The 2D context of a canvas that is never added to the page.
    static CONTEXT: RefCell<Option<web_sys::CanvasRenderingContext2d>> = const { RefCell::new(None) };
}

fn context() -> Option<web_sys::CanvasRenderingContext2d> {
    CONTEXT.with(|c| {
        if c.borrow().is_none() {
            let action = "measure chart text";
            let canvas = super::check(
                web_sys::window()?.document()?.create_element("canvas"),
                action,
            )?
            .unchecked_into::<web_sys::HtmlCanvasElement>();
            let ctx = super::check(canvas.get_context("2d"), action)??.unchecked_into();
            *c.borrow_mut() = Some(ctx);
        }
        c.borrow().clone()
    })
}

/// Measured sizes by (CSS font, text).
type Sizes = std::collections::HashMap<(String, String), Option<(f64, f64)>>;

thread_local! {
    /// Sizes already measured, by (font, text): chart text (tick labels, legend names) mostly
    /// repeats from one redraw to the next, and a `measureText` costs a call into the browser
    /// and a string copy. Cleared when it grows past [`CACHE_LIMIT`] entries.
    static SIZES: RefCell<Sizes> = RefCell::new(Sizes::new());
}

/// Largest number of remembered text sizes.
const CACHE_LIMIT: usize = 4096;

/// (text, font family list, size in px, font style) → (width, height) in px, the height being
/// the font's ascent + descent; `None` falls back to plotters' estimate (a failed browser call
/// is reported in the status line).
pub fn measure(text: &str, family: &str, size: f64, style: &str) -> Option<(f64, f64)> {
    measure_font(text, &format!("{style} {size}px {family}"))
}

/// `text`'s (width, height) in px in a CSS `font` (`bold 12px sans-serif`), remembered.
pub fn measure_font(text: &str, font: &str) -> Option<(f64, f64)> {
    let key = (font.to_string(), text.to_string());
    if let Some(m) = SIZES.with(|c| c.borrow().get(&key).copied()) {
        return m;
    }
    let m = measure_now(text, &key.0);
    SIZES.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() >= CACHE_LIMIT {
            c.clear();
        }
        c.insert(key, m);
    });
    m
}

fn measure_now(text: &str, font: &str) -> Option<(f64, f64)> {
    let ctx = context()?;
    ctx.set_font(font);
    let m = super::check(ctx.measure_text(text), "measure chart text")?;
    let (w, h) = (
        m.width(),
        m.font_bounding_box_ascent() + m.font_bounding_box_descent(),
    );
    (w.is_finite() && h.is_finite() && h > 0.0).then(|| (w.ceil(), h.ceil()))
}
