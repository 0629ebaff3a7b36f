//! A formula and its figure linked both ways: a term of the formula (`data-term`) lights
//! the part of the picture it computes, and a part of the picture (a cell, a line, a
//! layer) lights its term and fills the formula in with its numbers
//! (`[data-live-formula]`). Hover, keyboard focus and a tap do the same; the figure root
//! says what is lit (`data-linked`).

use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// The lit term of a figure (its `data-term` name), shared by its formula and its drawing.
pub type LinkSignal = RwSignal<Option<&'static str>>;

/// The name of the term an event happened on (the `data-term` of the target or an
/// ancestor inside the formula).
fn term_of(ev: &web_sys::Event) -> Option<String> {
    ev.target()?
        .dyn_into::<web_sys::Element>()
        .ok()?
        .closest("[data-term]")
        .ok()??
        .get_attribute("data-term")
}

/// A formula whose terms (`<span class="term" data-term="…" tabindex="0">`, in `children`)
/// light their part of the figure: on hover, on keyboard focus, and on a tap, which keeps
/// the term lit until tapped again (or Escape). `terms` are the names it may set. Below
/// it, the live formula: `live`, read out as it changes.
#[component]
pub fn LinkedFormula(
    linked: LinkSignal,
    terms: &'static [&'static str],
    #[prop(into)] live: Signal<String>,
    children: Children,
) -> impl IntoView {
    let pinned = StoredValue::new(false);
    let named = move |ev: &web_sys::Event| {
        term_of(ev).and_then(|t| terms.iter().copied().find(|name| *name == t))
    };
    let unlight = move || {
        if !pinned.get_value() && linked.get_untracked().is_some_and(|t| terms.contains(&t)) {
            linked.set(None);
        }
    };
    view! {
        // The lit term reads as lit, whichever side lit it (style/main.css matches the
        // container's `data-lit` with each term's name).
        <div class="linked-formula" data-lit=move || linked.get()
            on:mouseover=move |ev| { if let Some(t) = named(&ev) { linked.set(Some(t)); } }
            on:mouseleave=move |_| unlight()
            on:focusin=move |ev| { if let Some(t) = named(&ev) { linked.set(Some(t)); } }
            on:focusout=move |_| { pinned.set_value(false); unlight(); }
            on:click=move |ev| {
                if let Some(t) = named(&ev) {
                    let on = !(pinned.get_value() && linked.get_untracked() == Some(t));
                    pinned.set_value(on);
                    linked.set(on.then_some(t));
                }
            }
            on:keydown=move |ev| {
                if ev.key() == "Escape" {
                    pinned.set_value(false);
                    linked.set(None);
                }
            }>
            {children()}
            <p class="live-formula" data-live-formula="" aria-live="polite">{move || live.get()}</p>
        </div>
    }
}
