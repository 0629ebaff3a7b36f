//! A figure's exports: its canvases composed into one PNG, and its numbers as CSV, each
//! downloaded as a file.

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{HtmlAnchorElement, HtmlCanvasElement, HtmlElement};

use super::canvas::device_pixel_ratio;
use super::palette::{css_rgb, Palette};

fn download(href: &str, filename: &str) -> Option<()> {
    let a = document()
        .create_element("a")
        .ok()?
        .dyn_into::<HtmlAnchorElement>()
        .ok()?;
    a.set_href(href);
    a.set_download(filename);
    document().body()?.append_child(&a).ok()?;
    a.click();
    a.remove();
    Some(())
}

pub fn download_text(text: &str, filename: &str, mime: &str) -> Option<()> {
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options).ok()?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).ok()?;
    download(&url, filename);
    web_sys::Url::revoke_object_url(&url).ok()
}

/// Composes every canvas of the figure, at its on-screen place, into one PNG.
pub fn export_png(root: &HtmlElement, id: &str, title: &str) -> Option<()> {
    let dpr = device_pixel_ratio();
    let frame = root.get_bounding_client_rect();
    let canvases = root.query_selector_all("canvas").ok()?;
    let title_h = 28.0;
    let (w, h) = (frame.width(), frame.height() + title_h);
    let out = document()
        .create_element("canvas")
        .ok()?
        .dyn_into::<HtmlCanvasElement>()
        .ok()?;
    out.set_width((w * dpr) as u32);
    out.set_height((h * dpr) as u32);
    let ctx = out
        .get_context("2d")
        .ok()??
        .dyn_into::<web_sys::CanvasRenderingContext2d>()
        .ok()?;
    let palette = Palette::read();
    ctx.set_fill_style_str(&css_rgb(palette.bg));
    ctx.fill_rect(0.0, 0.0, w * dpr, h * dpr);
    ctx.set_fill_style_str(&css_rgb(palette.fg));
    ctx.set_font(&format!("bold {}px sans-serif", 16.0 * dpr));
    let _ = ctx.fill_text(title, 8.0 * dpr, 20.0 * dpr);
    for i in 0..canvases.length() {
        let Some(c) = canvases
            .item(i)
            .and_then(|n| n.dyn_into::<HtmlCanvasElement>().ok())
        else {
            continue;
        };
        let r = c.get_bounding_client_rect();
        if r.width() <= 0.0 || c.width() == 0 {
            continue;
        }
        let (x, y) = (
            (r.left() - frame.left()) * dpr,
            (r.top() - frame.top() + title_h) * dpr,
        );
        ctx.set_image_smoothing_enabled(false);
        let _ = ctx.draw_image_with_html_canvas_element_and_dw_and_dh(
            &c,
            x,
            y,
            r.width() * dpr,
            r.height() * dpr,
        );
    }
    let url = out.to_data_url_with_type("image/png").ok()?;
    download(&url, &format!("handwave-{id}.png"))
}
