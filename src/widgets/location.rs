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
    if let Some(target) = fragment_target() {
        target.scroll_into_view();
        hold_at_fragment(window().scroll_y().unwrap_or(0.0), now() + HOLD_MS);
    }
}

/// How long after a jump the page keeps its fragment's target at the top while what is
/// above it settles (charts sized, formulas typeset, parts arriving).
const HOLD_MS: f64 = 3000.0;

fn now() -> f64 {
    js_sys::Date::now()
}

/// Keeps the fragment's target at the top, frame by frame, until `until` or until the
/// reader (or anything else) scrolls the page away from it. Content that grows above the
/// target without the browser's scroll anchoring making up for it leaves the scroll
/// position where it was and the target lower: the page jumps again. A scroll that moved
/// the page and left the target is the reader's, and ends the hold.
fn hold_at_fragment(left_at: f64, until: f64) {
    request_animation_frame(move || {
        if now() > until {
            return;
        }
        let Some(target) = fragment_target() else {
            return;
        };
        let y = window().scroll_y().unwrap_or(0.0);
        if is_at_fragment() {
            return hold_at_fragment(y, until);
        }
        if (y - left_at).abs() > 1.0 {
            return;
        }
        target.scroll_into_view();
        hold_at_fragment(window().scroll_y().unwrap_or(0.0), until);
    });
}

/// The id the address's fragment names (`#id`, percent-decoded), if any.
pub fn fragment_id() -> Option<String> {
    let hash = window().location().hash().unwrap_or_default();
    let id = hash.strip_prefix('#').filter(|id| !id.is_empty())?;
    Some(
        js_sys::decode_uri_component(id)
            .ok()
            .and_then(|s| s.as_string())
            .unwrap_or_else(|| id.to_string()),
    )
}

/// The element the address's fragment (`#id`) names, if it is on the page.
fn fragment_target() -> Option<web_sys::Element> {
    document().get_element_by_id(&fragment_id()?)
}

/// Whether the page stands at its fragment's target: the target's top at the top of the
/// viewport, below at most the page's scroll padding (3.5rem under the bar of passes on
/// a wide screen; 96 px leaves room for a larger font), as a jump to it leaves it.
pub fn is_at_fragment() -> bool {
    fragment_target().is_some_and(|t| (-2.0..=96.0).contains(&t.get_bounding_client_rect().top()))
}
