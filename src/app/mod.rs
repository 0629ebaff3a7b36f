//! The page shell: the URL state in context, the colour scheme, and either the page of
//! every pass or one figure alone in the embed view (`?embed=<figure-id>`).
//!
//! - [`page`]: header, passes, footer;
//! - [`embed`]: one figure, sized for an iframe, posting its height to the parent;
//! - [`theme`]: the colour scheme and its switch;
//! - [`notices`]: what was done to values from the URL;
//! - [`url_sync`]: the address bar kept in step with the state.

pub mod embed;
pub mod notices;
pub mod page;
pub mod theme;
pub mod url_sync;

use leptos::prelude::*;

use crate::state::{Params, UrlState};
use crate::widgets::location::scroll_to_fragment;

/// The whole application: the page, or one figure in an embed.
#[component]
pub fn App() -> impl IntoView {
    let search = window().location().search().unwrap_or_default();
    let (params, view, notices) = Params::from_query(&search);
    let state = UrlState::new(params, &view);
    provide_context(state);
    let notices = RwSignal::new(notices);
    let theme = theme::use_theme(view.theme);
    url_sync::sync_url(state);
    request_animation_frame(scroll_to_fragment);
    match view.embed {
        Some(figure) => view! {
            <embed::EmbedView figure=figure show_controls=!view.hide_controls notices=notices />
        }
        .into_any(),
        None => view! { <page::Page theme=theme notices=notices /> }.into_any(),
    }
}
