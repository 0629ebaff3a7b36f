//! The embed view (`?embed=<figure-id>`): one figure alone, sized for an iframe, which
//! tells its parent page its height.

use leptos::prelude::*;

use crate::state::registry::FigureId;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;

use crate::passes::lazy::LazyFigure;
use crate::state::Notice;
use crate::widgets::location::page_base_url;
use crate::widgets::HeatmapHint;

use super::notices::Notices;

/// In an embed, posts the page's height to the parent page once the figure is in it, and
/// again whenever the height changes; never the height of the "Loading" line that stands
/// in for a figure whose module is on its way.
///
/// A frame off the screen of a page on another origin gets no animation frames and no
/// observer notices from Chromium until it is scrolled to, yet its layout can be read at
/// any time. So the height is read synchronously: from a timer after mount, when the
/// fonts are ready, a short while after the document changes (a MutationObserver, which
/// is not tied to rendering), and from the ResizeObserver once it runs. No polling.
fn post_height_to_parent(figure: &'static str) {
    let Some(body) = document().body() else {
        return;
    };
    let last = std::rc::Rc::new(std::cell::Cell::new(-1.0f64));
    let post = move || {
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
    };
    let observed = post.clone();
    let callback =
        Closure::<dyn FnMut(js_sys::Array)>::new(move |_entries: js_sys::Array| observed());
    if let Ok(observer) = web_sys::ResizeObserver::new(callback.as_ref().unchecked_ref()) {
        observer.observe(&body);
    }
    callback.forget();
    // Changes to the document: measured once they settle (one timer at a time).
    let pending = std::rc::Rc::new(std::cell::Cell::new(false));
    let after_change = {
        let post = post.clone();
        move || {
            if pending.replace(true) {
                return;
            }
            let pending = pending.clone();
            let post = post.clone();
            set_timeout(
                move || {
                    pending.set(false);
                    post();
                },
                std::time::Duration::from_millis(40),
            );
        }
    };
    let mutated = after_change.clone();
    let on_mutation =
        Closure::<dyn FnMut(js_sys::Array)>::new(move |_records: js_sys::Array| mutated());
    if let Ok(observer) = web_sys::MutationObserver::new(on_mutation.as_ref().unchecked_ref()) {
        let options = web_sys::MutationObserverInit::new();
        options.set_child_list(true);
        options.set_subtree(true);
        options.set_character_data(true);
        options.set_attributes(true);
        options.set_attribute_filter(&js_sys::Array::of4(
            &"style".into(),
            &"class".into(),
            &"open".into(),
            &"hidden".into(),
        ));
        let _ = observer.observe_with_options(&body, &options);
    }
    on_mutation.forget();
    set_timeout(after_change.clone(), std::time::Duration::ZERO);
    if let Ok(ready) = document().fonts().ready() {
        let fonts = Closure::<dyn FnMut(wasm_bindgen::JsValue)>::new(move |_| after_change());
        let _ = ready.then(&fonts);
        fonts.forget();
    }
}

/// Figure `figure` alone, with the notices and a credit line.
#[component]
pub fn EmbedView(
    figure: FigureId,
    show_controls: bool,
    notices: RwSignal<Vec<Notice>>,
) -> impl IntoView {
    post_height_to_parent(figure.as_str());
    if let Some(root) = document().document_element() {
        let _ = root.class_list().add_1("is-embed");
    }
    view! {
        <main class="embed" data-embed=figure.as_str()>
            <Notices notices=notices />
            <LazyFigure id=figure show_controls=show_controls />
            <HeatmapHint hidden=true />
            <p class="embed-credit">
                <a href=page_base_url() target="_blank" rel="noopener">"handwave"</a>
                " — the math underneath the transformer, computed live."
            </p>
        </main>
    }
}
