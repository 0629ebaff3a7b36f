//! Canvas plumbing: the device pixel ratio, a backing store sized to it, and the draw
//! marks the benchmarks and end-to-end tests read.

use leptos::prelude::*;
use web_sys::{HtmlCanvasElement, HtmlElement};

use super::timing::now_ms;

/// The device pixel ratio, at least 1.
pub fn device_pixel_ratio() -> f64 {
    window().device_pixel_ratio().max(1.0)
}

/// Sizes a canvas's backing store to its CSS size times the device pixel ratio,
/// so drawing stays crisp. Returns the ratio used.
pub fn fit_canvas(canvas: &HtmlCanvasElement, css_width: f64, css_height: f64) -> f64 {
    let dpr = device_pixel_ratio();
    let (w, h) = (
        (css_width * dpr).round().max(1.0) as u32,
        (css_height * dpr).round().max(1.0) as u32,
    );
    // Touch the canvas only when its size changes: a style write invalidates layout, and
    // setting width/height clears the backing store.
    if canvas.width() != w || canvas.height() != h {
        canvas.set_width(w);
        canvas.set_height(h);
        let style = web_sys::HtmlElement::style(canvas);
        let _ = style.set_property("width", &format!("{css_width}px"));
        let _ = style.set_property("height", &format!("{css_height}px"));
    }
    dpr
}

/// Records that a canvas finished drawing, having started at `started_ms`: bumps its
/// `data-draws` counter, stores the time in `data-drawn-at` and the drawing's own cost in
/// `data-draw-ms`. Benchmarks and tests read these.
pub fn mark_drawn(canvas: &HtmlElement, started_ms: f64) {
    let count = canvas
        .get_attribute("data-draws")
        .and_then(|c| c.parse::<u64>().ok())
        .unwrap_or(0)
        + 1;
    let _ = canvas.set_attribute("data-draws", &count.to_string());
    let now = now_ms();
    let _ = canvas.set_attribute("data-drawn-at", &format!("{now:.3}"));
    let _ = canvas.set_attribute("data-draw-ms", &format!("{:.3}", now - started_ms));
}
