//! The figure a strip belongs to, as the page shows it: its readouts and verdict read from
//! their attributes (`data-readout`, `data-value`, `data-verdict`), whether it has caught up,
//! the step it stands at (`data-step-at`), and the keyboard focus inside the strip.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use super::table::{readout_number, Readouts};

/// The readouts of figure `id` as shown: name → (text, full value).
pub(super) fn readouts_of(id: &str) -> Readouts<(String, f64)> {
    let selector = format!("[data-figure=\"{id}\"] [data-readout]");
    let mut out = Vec::new();
    if let Ok(list) = document().query_selector_all(&selector) {
        for i in 0..list.length() {
            let Some(el) = list
                .item(i)
                .and_then(|n| n.dyn_into::<web_sys::Element>().ok())
            else {
                continue;
            };
            let name = el.get_attribute("data-readout").unwrap_or_default();
            let value = readout_number(&el.get_attribute("data-value").unwrap_or_default());
            let text = el
                .query_selector(".readout-value")
                .ok()
                .flatten()
                .and_then(|v| v.text_content())
                .unwrap_or_default();
            out.push((name, (text, value)));
        }
    }
    out
}

/// The verdict figure `id` gives on its state (`data-verdict`), "" if none.
pub(super) fn verdict_of(id: &str) -> String {
    document()
        .query_selector(&format!("[data-figure=\"{id}\"]"))
        .ok()
        .flatten()
        .and_then(|f| f.get_attribute("data-verdict"))
        .unwrap_or_default()
}

/// Whether figure `id` has caught up with its state: no readout still computing, and no
/// run still training (`data-train="running"`).
pub(super) fn settled(id: &str) -> bool {
    let busy = format!(
        "[data-figure=\"{id}\"] [aria-busy=\"true\"], [data-figure=\"{id}\"][data-train=\"running\"]"
    );
    document().query_selector(&busy).ok().flatten().is_none()
}

/// Marks figure `id`'s root with the step reached (`data-step-at`), or clears it.
pub(super) fn mark_step(id: &str, k: usize) {
    if let Ok(Some(root)) = document().query_selector(&format!("[data-figure=\"{id}\"]")) {
        let _ = if k == 0 {
            root.remove_attribute("data-step-at")
        } else {
            root.set_attribute("data-step-at", &k.to_string())
        };
    }
}

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
