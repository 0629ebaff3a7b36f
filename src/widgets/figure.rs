//! Figure: the frame every live figure shares. Its root carries `data-figure="<id>"`; it
//! has a title, the drawing, a caption generated from the current state, an `aria-label`
//! summary that updates, and actions: export PNG, export CSV, copy link, copy embed code.

use leptos::html;
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{HtmlAnchorElement, HtmlCanvasElement, HtmlElement};

use super::canvas::device_pixel_ratio;
use super::location::page_base_url;
use super::palette::{css_rgb, Palette};
use crate::state::registry::figure_title;
use crate::state::use_url_state;

/// Which text the share box shows.
#[derive(Clone, Debug, PartialEq)]
enum Shared {
    Link(String),
    Embed(String),
}

/// The `<iframe>` snippet that embeds `figure` with `query` (already without defaults).
pub fn embed_snippet(base: &str, figure: &str, title: &str, query: &str, height: u32) -> String {
    let sep = if query.is_empty() { "" } else { "&" };
    let src = format!("{base}?embed={figure}{sep}{query}").replace('&', "&amp;");
    let title = title
        .replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;");
    format!(
        "<iframe src=\"{src}\" title=\"{title} (handwave)\" loading=\"lazy\" width=\"100%\" height=\"{height}\" style=\"width:100%;border:0\"></iframe>"
    )
}

/// A link to the whole page in the current state, scrolled to `figure`.
pub fn figure_link(base: &str, figure: &str, query: &str) -> String {
    if query.is_empty() {
        format!("{base}#{figure}")
    } else {
        format!("{base}?{query}#{figure}")
    }
}

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

fn download_text(text: &str, filename: &str, mime: &str) -> Option<()> {
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options).ok()?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).ok()?;
    download(&url, filename);
    web_sys::Url::revoke_object_url(&url).ok()
}

/// Composes every canvas of the figure, at its on-screen place, into one PNG.
fn export_png(root: &HtmlElement, id: &str, title: &str) -> Option<()> {
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

fn copy_to_clipboard(text: &str) {
    let clipboard = window().navigator().clipboard();
    // Rejections (no permission, insecure context) leave the text visible in the box.
    let _ = clipboard.write_text(text);
}

/// The frame of a live figure.
#[component]
pub fn Figure(
    /// Public figure id (`data-figure`, `embed=`); its title comes from the registry of
    /// passes ([`crate::state::registry`]).
    id: &'static str,
    /// One sentence or a few, generated from the state, under the drawing.
    #[prop(into)]
    caption: Signal<String>,
    /// A short summary for assistive technology (`aria-label`).
    #[prop(into)]
    summary: Signal<String>,
    /// The numbers behind the drawing, as CSV.
    csv: Callback<(), String>,
    /// The controls that set this figure (hidden by `hide=controls` in an embed).
    #[prop(into)]
    controls: ViewFn,
    /// Whether to show the controls at all.
    #[prop(default = true)]
    show_controls: bool,
    /// Set while the figure is on (or near) the screen, for figures that compute only then.
    #[prop(optional)]
    on_screen: Option<RwSignal<bool>>,
    children: Children,
) -> impl IntoView {
    let title = figure_title(id);
    let root = NodeRef::<html::Figure>::new();
    if let Some(signal) = on_screen {
        super::observers::observe_on_screen(root, signal);
    }
    let state = use_url_state();
    let (shared, set_shared) = signal(None::<Shared>);
    let hide = state.view.hide_controls && state.view.embed.is_some();

    let on_png = move |_| {
        if let Some(el) = root.get_untracked() {
            export_png(&el, id, title);
        }
    };
    let on_csv = move |_| {
        download_text(&csv.run(()), &format!("handwave-{id}.csv"), "text/csv");
    };
    let on_link = move |_| {
        let link = figure_link(
            &page_base_url(),
            id,
            &state.params.with_untracked(|p| p.to_query(None)),
        );
        copy_to_clipboard(&link);
        set_shared.set(Some(Shared::Link(link)));
    };
    let on_embed = move |_| {
        let height = root
            .get_untracked()
            .map(|el| el.offset_height())
            .unwrap_or(600)
            .max(200) as u32
            + 16;
        let query = state.params.with_untracked(|p| p.to_query(Some(id)));
        let snippet = embed_snippet(&page_base_url(), id, title, &query, height);
        copy_to_clipboard(&snippet);
        set_shared.set(Some(Shared::Embed(snippet)));
    };
    let title_id = format!("{id}-title");
    let labelled_by = title_id.clone();

    view! {
        <figure class="figure" id=id data-figure=id node_ref=root aria-labelledby=labelled_by>
            <div class="figure-head">
                <h3 class="figure-title" id=title_id>{title}</h3>
                <div class="figure-actions" role="group" aria-label=format!("{title}: export and share")>
                    <button type="button" data-action="png" on:click=on_png>"PNG"</button>
                    <button type="button" data-action="csv" on:click=on_csv>"CSV"</button>
                    <button type="button" data-action="copy-link" on:click=on_link>"Copy link"</button>
                    <button type="button" data-action="copy-embed" on:click=on_embed>"Copy embed code"</button>
                </div>
            </div>
            {move || {
                shared
                    .get()
                    .map(|s| {
                        let (label, text, kind) = match s {
                            Shared::Link(t) => ("Link to this figure in this state (copied)", t, "link"),
                            Shared::Embed(t) => ("Embed code (copied)", t, "embed"),
                        };
                        view! {
                            <div class="share-box" role="status">
                                <label>
                                    {label}
                                    <input type="text" readonly data-share=kind prop:value=text />
                                </label>
                                <button type="button" class="button-quiet" on:click=move |_| set_shared.set(None)>
                                    "Close"
                                </button>
                            </div>
                        }
                    })
            }}
            {(show_controls && !hide).then(|| view! { <div class="figure-controls">{controls.run()}</div> })}
            <div class="figure-body" role="group" aria-label=move || format!("{title}. {}", summary.get())>
                {children()}
            </div>
            <figcaption class="figure-caption" data-caption=id>{move || caption.get()}</figcaption>
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embed_snippet_has_title_lazy_loading_and_full_width() {
        let s = embed_snippet(
            "https://x.org/c/",
            "jacobian",
            "The Jacobian",
            "n=12&dk=8",
            640,
        );
        assert!(s.starts_with("<iframe src=\"https://x.org/c/?embed=jacobian&amp;n=12&amp;dk=8\""));
        assert!(s.contains("title=\"The Jacobian (handwave)\""));
        assert!(s.contains("loading=\"lazy\""));
        assert!(s.contains("width=\"100%\""));
    }

    #[test]
    fn links_carry_the_state_and_the_anchor() {
        assert_eq!(
            figure_link("https://x.org/", "jacobian", ""),
            "https://x.org/#jacobian"
        );
        assert_eq!(
            figure_link("https://x.org/", "jacobian", "n=3"),
            "https://x.org/?n=3#jacobian"
        );
    }
}
