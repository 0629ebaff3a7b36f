//! A formula typeset by KaTeX at build time (see build.rs). Only TeX written in this
//! repository reaches KaTeX; nothing from the URL does.
//!
//! A display formula is put into the page when it comes near the screen (or when the page
//! is printed), not before: KaTeX's fonts are fetched only once a formula is laid out, so a
//! first screen without a formula costs no font. Until then its place keeps about a
//! formula's height and reads, for assistive technology, as the formula's TeX.

use std::cell::RefCell;

use leptos::html::Div;
use leptos::prelude::*;

use crate::widgets::observers::{
    observe_near_screen, on_fonts_loaded, use_element_width, use_printing,
};

/// What a formula wider than its column says when it takes the keyboard focus.
const SCROLLS_LABEL: &str = "Formula, wider than the page here: scroll it sideways";

/// How near the screen a formula is typeset: a quarter of the screen below it (and above),
/// so that it is usually in place before it scrolls into view.
const NEAR_SCREEN: &str = "25% 0px";

/// The TeX source KaTeX keeps in its MathML (`<annotation encoding="application/x-tex">`),
/// with KaTeX's entities decoded; "" if there is none.
pub fn tex_of(markup: &str) -> String {
    const OPEN: &str = "<annotation encoding=\"application/x-tex\">";
    let Some(start) = markup.find(OPEN).map(|i| i + OPEN.len()) else {
        return String::new();
    };
    let end = markup[start..]
        .find("</annotation>")
        .map_or(markup.len(), |i| start + i);
    markup[start..end]
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#x27;", "'")
        .replace("&amp;", "&")
}

thread_local! {
    /// Formulas to measure in the next animation frame, each with where its answer goes.
    static TO_MEASURE: RefCell<Vec<(web_sys::Element, RwSignal<bool>)>> = const { RefCell::new(Vec::new()) };
}

/// Sets `scrolls` in the next animation frame to whether `formula` is wider than its
/// column (`scrollWidth > clientWidth + 1`). Every formula asking before that frame is
/// measured in it, all widths read before any answer is written: formulas typeset together
/// (a screenful coming near at once) cost one layout of the page, not one each.
fn measure_next_frame(formula: web_sys::Element, scrolls: RwSignal<bool>) {
    let first = TO_MEASURE.with_borrow_mut(|queue| {
        queue.push((formula, scrolls));
        queue.len() == 1
    });
    if first {
        request_animation_frame(measure_queued);
    }
}

/// Reads the widths of every queued formula, then writes the answers (only the changed).
fn measure_queued() {
    let queued = TO_MEASURE.with_borrow_mut(std::mem::take);
    let answers: Vec<(RwSignal<bool>, bool)> = queued
        .iter()
        .map(|(el, scrolls)| (*scrolls, el.scroll_width() > el.client_width() + 1))
        .collect();
    for (scrolls, wide) in answers {
        // `try_`: a formula removed before the frame has no signal left.
        if scrolls.try_get_untracked().is_some_and(|was| was != wide) {
            scrolls.try_set(wide);
        }
    }
}

/// Shows one of the constants of [`crate::formulas`].
#[component]
pub fn Formula(
    /// KaTeX HTML+MathML from `crate::formulas`.
    markup: &'static str,
    #[prop(default = false)] inline: bool,
) -> impl IntoView {
    if inline {
        return view! { <span class="formula formula-inline" inner_html=markup></span> }.into_any();
    }
    let node = NodeRef::<Div>::new();
    let near = RwSignal::new(false);
    observe_near_screen(node, near, NEAR_SCREEN);
    let printing = use_printing();
    // Once typeset, a formula stays.
    let shown = Memo::new(move |was: Option<&bool>| {
        was.copied().unwrap_or(false) || near.get() || printing.get()
    });
    // A display formula wider than its column scrolls sideways (on a phone most do). A
    // scrolling region must be reachable by keyboard to be scrolled without a pointer, so
    // then, and only then, it takes the focus, with a name saying why.
    let width = use_element_width(node, 0.0);
    let scrolls = RwSignal::new(false);
    let measure = move || {
        if let Some(el) = node.get_untracked() {
            measure_next_frame(el.into(), scrolls);
        }
    };
    Effect::new(move |_| {
        width.get();
        shown.get();
        measure();
    });
    // The column does not change width when KaTeX's fonts arrive, but the formula does.
    on_fonts_loaded(measure);
    let pending_label = StoredValue::new(tex_of(markup));
    view! {
        <div
            class="formula"
            class:formula-scrolls=move || scrolls.get()
            class:formula-pending=move || !shown.get()
            data-formula=move || if shown.get() { "shown" } else { "pending" }
            node_ref=node
            inner_html=move || if shown.get() { markup } else { "" }
            tabindex=move || scrolls.get().then_some("0")
            role=move || if shown.get() { scrolls.get().then_some("group") } else { Some("math") }
            aria-label=move || {
                if shown.get() {
                    scrolls.get().then(|| SCROLLS_LABEL.to_string())
                } else {
                    Some(pending_label.get_value())
                }
            }
        ></div>
    }
    .into_any()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tex_of_a_formula_comes_from_its_annotation_decoded() {
        let markup = "<span class=\"katex\"><math><semantics><mi>x</mi><annotation encoding=\"application/x-tex\">a &lt; b \\quad p_i&amp;q</annotation></semantics></math></span>";
        assert_eq!(tex_of(markup), "a < b \\quad p_i&q");
        assert_eq!(tex_of("<span>no math</span>"), "");
    }

    #[test]
    fn every_formula_of_the_page_has_its_tex() {
        for markup in crate::formulas::ALL {
            assert!(
                !tex_of(markup).is_empty(),
                "{}",
                &markup[..80.min(markup.len())]
            );
        }
    }
}
