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

use crate::state::registry::{pass, FigureId};
use crate::state::{Params, ShownControls, UrlState};
use crate::widgets::location::{fragment_id, scroll_to_fragment};

/// The figure `step=` applies to: the embedded one, or on the page the figure (or the
/// main figure of the pass) the address's fragment names, else the first figure.
fn figure_at_step(embed: Option<FigureId>) -> FigureId {
    if let Some(figure) = embed {
        return figure;
    }
    let named = fragment_id().unwrap_or_default();
    let named = named.as_str();
    FigureId::parse(named)
        .or_else(|| pass(named).and_then(|p| p.figures.first()).copied())
        .unwrap_or(FigureId::ALL[0])
}

/// The whole application: the page, or one figure in an embed.
#[component]
pub fn App() -> impl IntoView {
    let search = window().location().search().unwrap_or_default();
    let (params, view, notices) = Params::from_query(&search);
    let state = UrlState::new(params, view);
    let view = state.view;
    state
        .step
        .set(view.step.map(|k| (figure_at_step(view.embed), k)));
    provide_context(state);
    let notices = RwSignal::new(notices);
    let theme = theme::use_theme(view.theme);
    url_sync::sync_url(state);
    request_animation_frame(scroll_to_fragment);
    match view.embed {
        Some(figure) => {
            let show_controls = view.controls != ShownControls::Hidden;
            view! {
                <Suspense fallback=|| view! { <p class="pass-status" role="status">"Loading the figure…"</p> }>
                    {move || Suspend::new(send_wrapper::SendWrapper::new(async move {
                        crate::passes::lazy::embed_view(figure, show_controls, notices)
                            .await
                            .unwrap_or_else(|_| view! {
                                <p class="pass-status pass-failed" role="alert">"This figure could not be loaded (are you offline?). Reload the page to try again."</p>
                            }.into_any())
                    }))}
                </Suspense>
            }
            .into_any()
        }
        None => view! { <page::Page theme=theme notices=notices /> }.into_any(),
    }
}
