//! A plotters chart on a `<canvas>`: sized for devicePixelRatio, following its container's width,
//! redrawn whenever its model or theme changes, with a readout of the nearest point under the
//! pointer.

use leptos::html::Canvas;
use leptos::prelude::*;
use plotters::prelude::IntoDrawingArea;
use plotters_canvas::CanvasBackend;
use wasm_bindgen::JsCast;

use crate::charts::{self, ChartGeometry, Theme};
use crate::view::ChartModel;

/// Draw `model` onto `canvas` at the device pixel ratio; returns the geometry for hit tests.
pub fn draw_on(
    canvas: &web_sys::HtmlCanvasElement,
    model: &ChartModel,
    dark: bool,
) -> Result<ChartGeometry, String> {
    let dpr = web_sys::window().ok_or("no window")?.device_pixel_ratio();
    draw_scaled(canvas, model, dark, dpr)
}

/// Draw `model` onto `canvas` with a backing store of `scale` × its CSS size (text and lines
/// scale with it, so the result is crisp on HiDPI screens and in 2× exports).
pub fn draw_scaled(
    canvas: &web_sys::HtmlCanvasElement,
    model: &ChartModel,
    dark: bool,
    scale: f64,
) -> Result<ChartGeometry, String> {
    let scale = if scale.is_finite() {
        scale.clamp(1.0, 8.0)
    } else {
        1.0
    };
    let css_w = canvas.client_width().max(1) as f64;
    let css_h = canvas.client_height().max(1) as f64;
    let (w, h) = (
        (css_w * scale).round() as u32,
        (css_h * scale).round() as u32,
    );
    if canvas.width() != w {
        canvas.set_width(w);
    }
    if canvas.height() != h {
        canvas.set_height(h);
    }
    let theme = if dark { Theme::dark() } else { Theme::light() }.with_scale(scale);
    let backend =
        CanvasBackend::with_canvas_object(canvas.clone()).ok_or("no 2d canvas context")?;
    let root = backend.into_drawing_area();
    match model {
        ChartModel::Sweep(m) => charts::sweep::draw(root, m, &theme).map_err(|e| e.to_string()),
        ChartModel::Roofline(m) => {
            charts::roofline::draw(root, m, &theme).map_err(|e| e.to_string())
        }
    }
}

/// A live chart canvas.
#[component]
pub fn ChartCanvas(
    /// The chart to draw; every change redraws it in the same frame.
    #[prop(into)]
    model: Signal<ChartModel>,
    /// Dark theme?
    #[prop(into)]
    dark: Signal<bool>,
    /// Accessible description of what the chart shows.
    #[prop(into)]
    aria_label: Signal<String>,
) -> impl IntoView {
    let canvas_ref = NodeRef::<Canvas>::new();
    let geometry = StoredValue::new(None::<ChartGeometry>);
    let (readout, set_readout) = signal(String::new());
    let (draw_error, set_draw_error) = signal(None::<String>);
    // Bumped when the window (and so the container) is resized.
    let (resized, set_resized) = signal(0u32);
    let handle =
        window_event_listener(leptos::ev::resize, move |_| set_resized.update(|n| *n += 1));
    on_cleanup(move || handle.remove());

    Effect::new(move |_| {
        resized.track();
        let dark = dark.get();
        let Some(canvas) = canvas_ref.get() else {
            return;
        };
        model.with(|m| match draw_on(&canvas, m, dark) {
            Ok(g) => {
                geometry.set_value(Some(g));
                set_draw_error.set(None);
            }
            Err(e) => set_draw_error.set(Some(format!("could not draw the chart: {e}"))),
        });
    });

    let on_move = move |ev: web_sys::MouseEvent| {
        let Some(canvas) = canvas_ref.get_untracked() else {
            return;
        };
        let Some(g) = geometry.get_value() else {
            return;
        };
        let target: &web_sys::Element = canvas.unchecked_ref();
        let rect = target.get_bounding_client_rect();
        let scale = if rect.width() > 0.0 {
            canvas.width() as f64 / rect.width()
        } else {
            1.0
        };
        let px = (ev.client_x() as f64 - rect.left()) * scale;
        let py = (ev.client_y() as f64 - rect.top()) * scale;
        let text = model.with_untracked(|m| m.readout(&g, px, py, 24.0 * scale));
        set_readout.set(text.unwrap_or_default());
    };

    view! {
        <div class="chart">
            <canvas
                node_ref=canvas_ref
                data-chart=move || model.with(ChartModel::kind)
                role="img"
                aria-label=move || aria_label.get()
                on:mousemove=on_move
                on:mouseleave=move |_| set_readout.set(String::new())
            ></canvas>
            <div class="readout" aria-live="polite">
                {move || draw_error.get().unwrap_or_else(|| readout.get())}
            </div>
        </div>
    }
}
