//! handwave: an explorable explanation of the mathematics underneath the transformer.
//!
//! `math` is the pure core (no web types). `state` owns the URL. `widgets` are reusable
//! components, `sections` compose them with the math, one file per pass, and `app` is the
//! page shell and the embed view.

pub mod formulas {
    //! KaTeX markup rendered at build time by build.rs from src/formulas_tex.rs.
    include!(concat!(env!("OUT_DIR"), "/formulas.rs"));

    /// Every character that the text of `markup` (outside its tags) can show, with the
    /// entities KaTeX writes (`&amp;`, `&lt;`, `&gt;`, `&quot;`, `&#x27;`) decoded. The
    /// page's KaTeX fonts are cut down to these (`make fonts`).
    pub fn characters_shown(markup: &str) -> std::collections::BTreeSet<char> {
        let mut text = String::new();
        let mut inside_tag = false;
        for c in markup.chars() {
            match c {
                '<' => inside_tag = true,
                '>' => inside_tag = false,
                _ if !inside_tag => text.push(c),
                _ => {}
            }
        }
        let decoded = text
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&quot;", "\"")
            .replace("&#x27;", "'")
            .replace("&amp;", "&");
        decoded.chars().filter(|c| !c.is_control()).collect()
    }

    /// [`characters_shown`] over every formula of the page.
    pub fn characters_of_all_formulas() -> std::collections::BTreeSet<char> {
        ALL.iter().flat_map(|m| characters_shown(m)).collect()
    }
}
pub mod katex_css {
    //! KaTeX's style sheet cut down to the classes the formulas use (build.rs writes
    //! `style/katex.css` with it; tests/formulas.rs checks that the file is current).
    include!("katex_css.rs");
}
pub mod app;
pub mod heap;
pub mod math;
pub mod offload;
pub mod sections;
pub mod state;
pub mod widgets;
