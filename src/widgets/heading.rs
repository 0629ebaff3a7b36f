//! A pass's heading, from the registry of passes: "Pass N" and the title, with the id
//! `<section id>-title` that the section is labelled by.

use leptos::prelude::*;

use crate::state::registry::PassId;

/// The `<h2>` of pass `id`.
#[component]
pub fn PassHeading(id: PassId) -> impl IntoView {
    let info = id.info();
    let (number, title) = (info.number, info.title);
    view! {
        <h2 id=format!("{}-title", info.id)>
            <span class="pass-number">"Pass "{number}</span>
            " "{title}
        </h2>
    }
}
