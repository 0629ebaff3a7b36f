//! The embed view (`?embed=<figure-id>`): one figure alone, sized for an iframe, which
//! tells its parent page its height.

use leptos::prelude::*;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;

use crate::passes::backprop;
use crate::passes::lazy::{LazyFigure, LazyPass};
use crate::state::Notice;
use crate::widgets::location::page_base_url;
use crate::widgets::HeatmapHint;

use super::notices::Notices;

/// In an embed, posts the page's height to the parent page once the figure is in it (its
/// layout, canvases included, is known from its first frame, before anything heavy has
/// been computed), and again whenever the height changes; never the height of the
/// "Loading" line that stands in for a figure whose module is on its way.
fn post_height_to_parent(figure: &'static str) {
    let Some(body) = document().body() else {
        return;
    };
    let last = std::cell::Cell::new(-1.0f64);
    let callback = Closure::<dyn FnMut(js_sys::Array)>::new(move |_entries: js_sys::Array| {
        let Some(body) = document().body() else {
            return;
        };
        if document()
            .query_selector("[data-figure]")
            .ok()
            .flatten()
            .is_none()
        {
            return;
        }
        let height = body.get_bounding_client_rect().height().ceil();
        if (height - last.get()).abs() < 0.5 {
            return;
        }
        last.set(height);
        let message = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&message, &"type".into(), &"handwave:resize".into());
        let _ = js_sys::Reflect::set(&message, &"figure".into(), &figure.into());
        let _ = js_sys::Reflect::set(&message, &"height".into(), &height.into());
        // Only inside a frame: a top-level window is its own parent.
        if let Ok(Some(parent)) = window().parent() {
            if !js_sys::Object::is(&parent, &window()) {
                let _ = parent.post_message(&message, "*");
            }
        }
    });
    if let Ok(observer) = web_sys::ResizeObserver::new(callback.as_ref().unchecked_ref()) {
        observer.observe(&body);
    }
    callback.forget();
}

/// Figure `figure` alone, with the notices and a credit line.
#[component]
pub fn EmbedView(
    figure: &'static str,
    show_controls: bool,
    notices: RwSignal<Vec<Notice>>,
) -> impl IntoView {
    post_height_to_parent(figure);
    if let Some(root) = document().document_element() {
        let _ = root.class_list().add_1("is-embed");
    }
    view! {
        <main class="embed" data-embed=figure>
            <Notices notices=notices />
            {backprop::figure(figure, show_controls).or_else(|| {
                LazyPass::of_figure(figure).map(|pass| {
                    view! { <LazyFigure pass=pass id=figure show_controls=show_controls /> }
                        .into_any()
                })
            })}
            <HeatmapHint hidden=true />
            <p class="embed-credit">
                <a href=page_base_url() target="_blank" rel="noopener">"handwave"</a>
                " — the math underneath the transformer, computed live."
            </p>
        </main>
    }
}
