//! A formula typeset by KaTeX at build time (see build.rs). Only TeX written in this
//! repository reaches KaTeX; nothing from the URL does.

use leptos::html::Div;
use leptos::prelude::*;

use crate::widgets::observers::{on_fonts_loaded, use_element_width};

/// What a formula wider than its column says when it takes the keyboard focus.
const SCROLLS_LABEL: &str = "Formula, wider than the page here: scroll it sideways";

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
    // A display formula wider than its column scrolls sideways (on a phone most do). A
    // scrolling region must be reachable by keyboard to be scrolled without a pointer, so
    // then, and only then, it takes the focus, with a name saying why.
    let node = NodeRef::<Div>::new();
    let width = use_element_width(node, 0.0);
    let scrolls = RwSignal::new(false);
    let measure = move || {
        if let Some(el) = node.get_untracked() {
            scrolls.try_set(el.scroll_width() > el.client_width() + 1);
        }
    };
    Effect::new(move |_| {
        width.get();
        measure();
    });
    // The column does not change width when KaTeX's fonts arrive, but the formula does.
    on_fonts_loaded(measure);
    view! {
        <div
            class="formula"
            class:formula-scrolls=move || scrolls.get()
            node_ref=node
            inner_html=markup
            tabindex=move || scrolls.get().then_some("0")
            role=move || scrolls.get().then_some("group")
            aria-label=move || scrolls.get().then_some(SCROLLS_LABEL)
        ></div>
    }
    .into_any()
}
