//! The keyboard focus inside a figure's strip of guided steps: where the strip places it
//! and whether it may.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// Focuses the first element of figure `id`'s strip that matches `selector` (and is not
/// disabled), if any.
pub(super) fn focus_in_strip(id: &str, selectors: &[&str]) {
    for selector in selectors {
        let query = format!("[data-figure=\"{id}\"] [data-steps] {selector}:not([disabled])");
        if let Ok(Some(el)) = document().query_selector(&query) {
            if let Ok(el) = el.dyn_into::<web_sys::HtmlElement>() {
                let _ = el.focus();
                return;
            }
        }
    }
}

/// Whether the keyboard focus is nowhere (a button that was disabled under it, a question
/// that went away) or inside figure `id`'s strip: then the strip may place it.
pub(super) fn focus_is_ours(id: &str) -> bool {
    let Some(active) = document().active_element() else {
        return true;
    };
    if document().body().is_some_and(|b| *b == active) {
        return true;
    }
    active
        .closest(&format!("[data-figure=\"{id}\"] [data-steps]"))
        .ok()
        .flatten()
        .is_some()
}

/// After a move: the focus back on Next (Back at the last step), unless the reader has
/// taken it elsewhere.
pub(super) fn restore_focus(id: &'static str) {
    request_animation_frame(move || {
        if focus_is_ours(id) {
            focus_in_strip(
                id,
                &["[data-action=\"step-next\"]", "[data-action=\"step-back\"]"],
            );
        }
    });
}
