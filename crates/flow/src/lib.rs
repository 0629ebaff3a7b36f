//! Pass 4's math: a real stack of decoder blocks run forward and backpropagated by hand
//! ([`stability`]), with the thin matrix products ([`products`]) and the vectorised
//! exponential ([`exp`]) it spends its time in. Pure Rust, no web types; the page
//! re-exports the three as `handwave::math::{stability, products, exp}`.
//!
//! A crate of its own for one reason: the page compiles for size (opt-level "z"), where
//! LLVM neither unrolls these loops nor inlines small helpers, and in the split build an
//! un-inlined helper shared with the page's first module is an indirect call. The release
//! profile compiles this crate at opt-level 3; nothing in Pass 1 (the first module) uses
//! it, so the first load does not grow.

pub mod exp;
pub mod products;
pub mod stability;
