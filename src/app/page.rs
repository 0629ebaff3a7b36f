//! The whole page: header, introduction, the four passes (Pass 1 at once, the others
//! loaded as they come near the screen) and the footer.

use leptos::prelude::*;

use crate::passes::backprop;
use crate::passes::lazy::LazySection;
use crate::state::registry::{PassId, PASSES};
use crate::state::{Notice, Theme};

use super::theme::ThemeSwitch;
use crate::widgets::chrome::use_chrome;

/// The four claims, each a link to its pass: the page's contents.
#[component]
fn Contents() -> impl IntoView {
    view! {
        <ol class="contents" data-contents="">
            {PASSES
                .iter()
                .map(|p| view! {
                    <li>
                        <a href=format!("#{}", p.id)>
                            <span class="contents-pass">{p.title.split(':').next().unwrap_or(p.title)}</span>
                            " "
                            <span class="contents-claim">{p.claim}</span>
                        </a>
                    </li>
                })
                .collect_view()}
        </ol>
    }
}

/// A compact bar of the four passes that stays at the top of the screen while reading.
#[component]
fn PassNav() -> impl IntoView {
    view! {
        <nav class="pass-nav" aria-label="Passes">
            <ol>
                {PASSES
                    .iter()
                    .map(|p| view! {
                        <li><a href=format!("#{}", p.id)>{p.number}" "{p.title.split(':').next().unwrap_or(p.title)}</a></li>
                    })
                    .collect_view()}
            </ol>
        </nav>
    }
}

/// The page of every pass.
#[component]
pub fn Page(theme: RwSignal<Theme>, notices: RwSignal<Vec<Notice>>) -> impl IntoView {
    // The notices' code arrives only for a link whose values had to be changed.
    let (notices_view, _) = use_chrome(move || notices.with(|n| !n.is_empty()));
    view! {
        <a class="skip-link" href="#backprop">"Skip to the first pass"</a>
        <header class="site-header">
            <div class="site-title">
                <h1>"handwave"</h1>
                <p class="tagline">"The math underneath the transformer, computed live in your browser."</p>
            </div>
            <ThemeSwitch theme=theme />
        </header>
        <PassNav />
        {move || notices_view.get().map(|c| (c.notices)(notices))}
        <main class="page">
            <section class="intro" aria-label="Introduction">
                <p>
                    "Four claims about attention, each made exact and computed as you move the controls:"
                </p>
                <Contents />
            </section>
            <backprop::BackpropSection />
            {PassId::ALL
                .into_iter()
                .filter(|p| p.is_lazy())
                .map(|pass| view! { <LazySection pass=pass /> })
                .collect_view()}
        </main>
        <footer class="site-footer">
            <p>"Every figure can be linked in its current state, embedded alone, and exported as PNG or CSV."</p>
        </footer>
    }
}
