//! One module per pass: each composes widgets with the math core.

pub mod backprop;
pub mod complexity;
pub mod lazy;
pub mod linear_algebra;
pub mod stability;
