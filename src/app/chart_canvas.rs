//! A plotters chart on a `<canvas>`: sized for devicePixelRatio, following its container's width,
//! redrawn whenever its model or theme changes, with a readout of the nearest point under the
//! pointer.

use leptos::html::Canvas;
use leptos::prelude::*;
use plotters::prelude::IntoDrawingArea;

use super::canvas_backend::CanvasBackend;
use wasm_bindgen::JsCast;

use super::AppError;
use crate::charts::{self, ChartGeometry, ChartTheme};
use crate::view::ChartModel;

/// The backend every chart is drawn through: the canvas on the page, SVG for the export.
type ScreenBackend<'a> = charts::EitherBackend<plotters::prelude::SVGBackend<'a>, CanvasBackend>;

/// Draw `model` onto `canvas` at the device pixel ratio; returns the geometry for hit tests.
pub fn draw_on(
    canvas: &web_sys::HtmlCanvasElement,
    model: &ChartModel,
    dark: bool,
) -> Result<ChartGeometry, AppError> {
    let dpr = web_sys::window()
        .ok_or_else(|| AppError::browser("draw the chart", "no window"))?
        .device_pixel_ratio();
    draw_scaled(canvas, model, dark, dpr, None)
}

/// Draw `model` onto `canvas` with a backing store of `scale` × its CSS size (text and lines
/// scale with it, so the result is crisp on HiDPI screens and in 2× exports). `css_size` is the
/// canvas's CSS size when known (from a `ResizeObserver`); `None` reads it from the element,
/// which forces a layout when the page has pending DOM changes.
pub fn draw_scaled(
    canvas: &web_sys::HtmlCanvasElement,
    model: &ChartModel,
    dark: bool,
    scale: f64,
    css_size: Option<(f64, f64)>,
) -> Result<ChartGeometry, AppError> {
    let scale = if scale.is_finite() {
        scale.clamp(1.0, 8.0)
    } else {
        1.0
    };
    let (css_w, css_h) = css_size
        .filter(|(w, h)| *w >= 1.0 && *h >= 1.0)
        .unwrap_or_else(|| (canvas.client_width() as f64, canvas.client_height() as f64));
    let (css_w, css_h) = (css_w.max(1.0), css_h.max(1.0));
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
    let theme = if dark {
        ChartTheme::dark()
    } else {
        ChartTheme::light()
    }
    .with_scale(scale);
    let backend = CanvasBackend::new(canvas.clone())?;
    // The type the SVG export draws through too (`ChartModel::to_svg_via`): one copy of the
    // chart code in the wasm.
    let root = ScreenBackend::Right(backend).into_drawing_area();
    match model {
        ChartModel::Sweep(m) => charts::sweep::draw(root, m, &theme),
        ChartModel::Roofline(m) => charts::roofline_chart::draw(root, m, &theme),
        ChartModel::Frontier(m) => charts::frontier::draw(root, m, &theme),
        ChartModel::Load(m) => charts::load::draw(root, m, &theme),
    }
    .map_err(|e| AppError::Draw(e.to_string()))
}

/// Marks the end of a draw on the page's performance timeline: `first-plot` once (navigation to
/// first plot, read by the load benchmark; unless the static front page set it first), and `plot-drawn` on every draw (the latest only).
fn mark_drawn() {
    use std::sync::atomic::{AtomicBool, Ordering};
    static FIRST: AtomicBool = AtomicBool::new(true);
    let Some(p) = web_sys::window().and_then(|w| w.performance()) else {
        return;
    };
    // The static front page (index.html) may have set `first-plot` already.
    if FIRST.swap(false, Ordering::Relaxed) && p.get_entries_by_name("first-plot").length() == 0 {
        super::check(p.mark("first-plot"), "mark the first plot");
    }
    p.clear_marks_with_mark_name("plot-drawn");
    super::check(p.mark("plot-drawn"), "mark the plot drawn");
}

/// A live chart canvas.
#[component]
pub fn ChartCanvas(
    /// The chart to draw; every change redraws it in the same frame. `None` draws nothing.
    #[prop(into)]
    model: Signal<Option<ChartModel>>,
    /// Dark theme?
    #[prop(into)]
    dark: Signal<bool>,
) -> impl IntoView {
    let canvas_ref = NodeRef::<Canvas>::new();
    let geometry = StoredValue::new(None::<ChartGeometry>);
    let (readout, set_readout) = signal(String::new());
    // The point the read-out names, in the canvas's backing pixels, with the canvas's size
    // then: a ring marks it on the plot (an SVG over the canvas, so a move draws nothing).
    let (mark, set_mark) = signal(None::<((f64, f64), (u32, u32), f64)>);
    let (draw_error, set_draw_error) = signal(None::<String>);
    // The canvas's CSS size, kept by a ResizeObserver: a redraw never reads the layout (which,
    // right after an edit changed the results table, would force the browser to lay out the page
    // synchronously), and a new size redraws.
    let (size, set_size) = signal(None::<(f64, f64)>);
    type Observer = (
        web_sys::ResizeObserver,
        wasm_bindgen::closure::Closure<dyn Fn(js_sys::Array)>,
    );
    let observer = StoredValue::new_local(None::<Observer>);
    Effect::new(move |_| {
        let Some(canvas) = canvas_ref.get() else {
            return;
        };
        let cb = wasm_bindgen::closure::Closure::<dyn Fn(js_sys::Array)>::new(
            move |entries: js_sys::Array| {
                let Ok(entry) = entries.get(0).dyn_into::<web_sys::ResizeObserverEntry>() else {
                    return;
                };
                let r = entry.content_rect();
                let next = Some((r.width(), r.height()));
                if size.get_untracked() != next {
                    set_size.set(next);
                }
            },
        );
        if let Ok(o) = web_sys::ResizeObserver::new(cb.as_ref().unchecked_ref()) {
            o.observe(&canvas);
            if let Some((old, _)) = observer.try_update_value(|v| v.replace((o, cb))).flatten() {
                old.disconnect();
            }
        }
    });
    on_cleanup(move || {
        if let Some((o, _cb)) = observer.try_update_value(Option::take).flatten() {
            o.disconnect();
        }
    });

    Effect::new(move |_| {
        let css_size = size.get();
        let dark = dark.get();
        let Some(canvas) = canvas_ref.get() else {
            return;
        };
        model.with(|m| {
            let Some(m) = m else { return };
            let dpr = web_sys::window().map_or(1.0, |w| w.device_pixel_ratio());
            match draw_scaled(&canvas, m, dark, dpr, css_size) {
                Ok(g) => {
                    geometry.set_value(Some(g));
                    set_draw_error.set(None);
                    mark_drawn();
                }
                Err(e) => set_draw_error.set(Some(e.to_string())),
            }
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
        let hit = model.with_untracked(|m| {
            m.as_ref()
                .and_then(|m| m.readout_at(&g, px, py, 24.0 * scale))
        });
        let size = (canvas.width(), canvas.height());
        match hit {
            Some((text, at)) => {
                set_readout.set(text);
                set_mark.set(Some((at, size, scale)));
            }
            None => {
                set_readout.set(String::new());
                set_mark.set(None);
            }
        }
    };
    let leave = move |_| {
        set_readout.set(String::new());
        set_mark.set(None);
    };

    view! {
        <div class="chart">
            <canvas
                node_ref=canvas_ref
                data-chart=move || model.with(|m| m.as_ref().map(ChartModel::kind))
                data-panel=move || model.with(|m| m.as_ref().and_then(ChartModel::panel))
                role="img"
                aria-label=move || model.with(|m| m.as_ref().map(ChartModel::aria_label))
                on:mousemove=on_move
                on:mouseleave=leave
            ></canvas>
            {move || mark.get().map(|((x, y), (w, h), scale)| view! {
                <svg class="hover-mark" aria-hidden="true" data-hover-mark="true"
                    viewBox=format!("0 0 {w} {h}") preserveAspectRatio="none">
                    <circle cx=x.to_string() cy=y.to_string() r=(5.0 * scale).to_string()/>
                </svg>
            })}
            <div class="readout" aria-live="polite">
                {move || draw_error.get().unwrap_or_else(|| readout.get())}
            </div>
        </div>
    }
}
