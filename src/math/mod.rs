//! The math core: pure Rust, no web types, tested natively with `cargo test`.
//!
//! Every number the page shows is computed here. Functions are total: they clamp or
//! return a typed error rather than panic, and never return NaN or infinity for inputs
//! the page can produce.

pub mod backprop;
pub mod complexity;
pub mod rank;
pub mod stats;

// Crates of their own under crates/, re-exported so that every path stays
// `crate::math::…`: `handwave-basics` compiles for size like the page, `handwave-flow`
// (Pass 4) at opt-level 3.
pub use handwave_basics::{rng, softmax};
pub use handwave_flow::{exp, products, stability};
