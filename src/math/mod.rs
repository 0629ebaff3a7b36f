//! The math core: pure Rust, no web types, tested natively with `cargo test`.
//!
//! Every number the page shows is computed here. Functions are total: they clamp or
//! return a typed error rather than panic, and never return NaN or infinity for inputs
//! the page can produce.

pub mod backprop;
pub mod complexity;
pub mod exp;
pub mod products;
pub mod rank;
pub mod rng;
pub mod softmax;
pub mod stability;
pub mod stats;
