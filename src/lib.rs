//! handwave: an explorable explanation of the mathematics underneath the transformer.
//!
//! `math` is the pure core (no web types). `state` owns the URL. `widgets` are reusable
//! components, `sections` compose them with the math, one file per pass, and `app` is the
//! page shell and the embed view.

pub mod formulas {
    //! KaTeX markup rendered at build time by build.rs from src/formulas_tex.rs.
    include!(concat!(env!("OUT_DIR"), "/formulas.rs"));
}
pub mod app;
pub mod heap;
pub mod math;
pub mod offload;
pub mod sections;
pub mod state;
pub mod widgets;
