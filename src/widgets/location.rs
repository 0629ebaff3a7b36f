//! The page's own address: its base (for links and embed code) and the jump to the
//! element its fragment names.

use leptos::prelude::*;

/// The page's address without query or fragment, e.g. `https://host/course/handwave/`.
pub fn page_base_url() -> String {
    let loc = window().location();
    format!(
        "{}{}",
        loc.origin().unwrap_or_default(),
        loc.pathname().unwrap_or_default()
    )
}

/// Scrolls the element that the address's fragment names (`#stability`) into view, if
/// there is one. The page is built after the document has loaded, too late for the
/// browser's own jump to the fragment, so the app makes it once mounted, and a lazily
/// loaded pass again once it has replaced its placeholder.
pub fn scroll_to_fragment() {
    let hash = window().location().hash().unwrap_or_default();
    let Some(id) = hash.strip_prefix('#').filter(|id| !id.is_empty()) else {
        return;
    };
    let id = js_sys::decode_uri_component(id)
        .ok()
        .and_then(|s| s.as_string())
        .unwrap_or_else(|| id.to_string());
    if let Some(target) = document().get_element_by_id(&id) {
        target.scroll_into_view();
    }
}
