//! handwave: an explorable explanation of the mathematics underneath the transformer.
//!
//! The modules are layers that import one way only (a test, tests/layers.rs, holds the
//! rule):
//!
//! ```text
//! math  ←  state  ←  widgets  ←  passes  ←  app        (binaries on top: main, worker)
//! ```
//!
//! - [`math`]: the pure core, no web types, tested natively;
//! - [`state`]: the URL-state table, its parsing and writing, the reactive store;
//! - [`widgets`]: reusable components and the browser plumbing behind them;
//! - [`passes`]: one folder per pass (its prose, model and figures), and the loader of the
//!   passes that arrive as modules of their own;
//! - [`app`]: the page shell and the embed view.
//!
//! Beside them, at the bottom: [`formulas`] (KaTeX markup rendered at build time),
//! [`katex_css`] (KaTeX's style sheet cut to what the formulas use) and [`heap`] (the
//! allocator the page's binary counts its live bytes with).

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
pub mod passes;
pub mod state;
pub mod widgets;
