//! The math core: pure Rust, no web types, tested natively with `cargo test`.
//!
//! Every number the page shows is computed here. Functions are total: they clamp or
//! return a typed error rather than panic, and never return NaN or infinity for inputs
//! the page can produce.
//!
//! - Pass 1: [`softmax`] (the softmax, its Jacobian and their norms), [`backprop`] (the
//!   sampled scores and the dₖ sweep);
//! - Pass 2: [`complexity`] (bytes and FLOPs of real configurations, timed attention);
//! - Pass 3: [`rank`] (scores, singular values, ranks, low-rank approximations, heads,
//!   LoRA), [`finetune`] (the memory of full fine-tuning, LoRA and QLoRA), [`jobs`] (its heavy computations as messages for the worker);
//! - Pass 4: [`stability`] (a real stack of decoder blocks, forward and backward);
//! - shared: [`rng`] (seeded streams), [`products`] and [`exp`] (fast kernels),
//!   [`heads`].

pub mod backprop;
pub mod complexity;
pub mod exp;
pub mod finetune;
pub mod heads;
pub mod jobs;
pub mod products;
pub mod rank;
pub mod rng;
pub mod softmax;
pub mod stability;
pub mod train;
