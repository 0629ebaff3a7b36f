//! A pass's heading, from the registry of passes: "Pass N" and the title, with the id
//! `<section id>-title` that the section is labelled by.

use leptos::prelude::*;

use crate::state::registry::pass;

/// The `<h2>` of the pass whose section id is `id`.
#[component]
pub fn PassHeading(id: &'static str) -> impl IntoView {
    let (number, title) = pass(id).map_or((0, ""), |p| (p.number, p.title));
    view! {
        <h2 id=format!("{id}-title")>
            <span class="pass-number">"Pass "{number}</span>
            " "{title}
        </h2>
    }
}
