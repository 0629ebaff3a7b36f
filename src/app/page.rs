//! The whole page: header, introduction, the four passes (Pass 1 at once, the others
//! loaded as they come near the screen) and the footer.

use leptos::prelude::*;

use crate::passes::backprop;
use crate::passes::lazy::{LazyPass, LazySection};
use crate::state::{Notice, Theme};

use super::notices::Notices;
use super::theme::ThemeSwitch;

/// The page of every pass.
#[component]
pub fn Page(theme: RwSignal<Theme>, notices: RwSignal<Vec<Notice>>) -> impl IntoView {
    view! {
        <a class="skip-link" href="#backprop">"Skip to the first pass"</a>
        <header class="site-header">
            <div class="site-title">
                <h1>"handwave"</h1>
                <p class="tagline">"The math underneath the transformer, computed live in your browser."</p>
            </div>
            <ThemeSwitch theme=theme />
        </header>
        <Notices notices=notices />
        <main class="page">
            <section class="intro" aria-label="Introduction">
                <p>
                    "The usual stories about attention — heads specialise, the mask hides the future — are true but not the whole truth. "
                    "Each pass below takes one piece of the math, states it exactly, and lets you move it. "
                    "Every number and every pixel of every figure is computed as you watch, by the same Rust code that the tests check against independent derivations."
                </p>
            </section>
            <backprop::BackpropSection />
            <LazySection pass=LazyPass::Complexity />
            <LazySection pass=LazyPass::LinearAlgebra />
            <LazySection pass=LazyPass::Stability />
        </main>
        <footer class="site-footer">
            <p>"Every figure can be linked in its current state, embedded alone, and exported as PNG or CSV."</p>
        </footer>
    }
}
