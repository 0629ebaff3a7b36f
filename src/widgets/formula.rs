//! A formula typeset by KaTeX at build time (see build.rs). Only TeX written in this
//! repository reaches KaTeX; nothing from the URL does.

use leptos::prelude::*;

/// Shows one of the constants of [`crate::formulas`].
#[component]
pub fn Formula(
    /// KaTeX HTML+MathML from `crate::formulas`.
    markup: &'static str,
    #[prop(default = false)] inline: bool,
) -> impl IntoView {
    if inline {
        view! { <span class="formula formula-inline" inner_html=markup></span> }.into_any()
    } else {
        view! { <div class="formula" inner_html=markup></div> }.into_any()
    }
}
