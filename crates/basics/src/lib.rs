//! The part of handwave's math core that the page's first module needs (Pass 1) and that
//! Pass 4's stack (`handwave-flow`) builds on: seeded random streams and the softmax.
//! Pure Rust, no web types; the page re-exports both as `handwave::math::{rng, softmax}`.

pub mod rng;
pub mod softmax;
