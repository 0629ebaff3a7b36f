//! Pass 4 — stability: why deep stacks train at all.
//!
//! A real stack of decoder blocks (causal multi-head self-attention and a GELU MLP, with
//! LayerNorm), run forward on a seeded random input and backpropagated by hand, in f64.
//! Each block has two sub-layers F (attention, then MLP), each wired by [`Wiring`]:
//!
//! | wiring | sub-layer update |
//! |---|---|
//! | no residual, no norm | x ← F(x) |
//! | no residual, post-norm | x ← LN(F(x)) |
//! | no residual, pre-norm | x ← F(LN(x)), final LN |
//! | residual, no norm | x ← x + F(x) |
//! | residual, post-norm | x ← LN(x + F(x)) |
//! | residual, pre-norm | x ← x + F(LN(x)), final LN |
//!
//! The loss is linear, L = Σ y ⊙ r with r ~ N(0, 1) seeded: its gradient at the output is
//! exactly r whatever y is, so the top of the stack always receives a gradient of the same
//! size and the per-layer norms measure the stack alone (with ½‖y − t‖² the top gradient
//! would grow with the output and hide an explosion inside the stack).
//!
//! Weights are N(0, gain²/fan_in), drawn per layer from their own stream, so a stack of
//! depth L is the first L blocks of a deeper one with the same seed. LayerNorm's γ = 1,
//! β = 0 at initialisation; projections have no biases. GELU is the tanh form of GPT-2.
//! Reference: Xiong et al. (2020), "On Layer Normalization in the Transformer Architecture".
//!
//! One file per part: [`shape`] (what a stack is), [`weights`] (its seeded draws),
//! [`layer_norm`], [`mlp`] and [`attention`] (each layer kind, forward and backward),
//! [`grads`] (where weight gradients go), [`norms`] (overflow-safe norms), [`block`] (a
//! decoder block from its sub-layers), [`tape`] (the stack, run block by block),
//! [`profile`] (per-layer norms and their verdict), [`benchmark`] (the stack the
//! benchmarks time) and [`reference`] (plain forms the tests check the fast ones
//! against; the page never calls them).

pub mod attention;
pub mod benchmark;
pub mod block;
pub mod grads;
pub mod layer_norm;
pub mod mlp;
pub mod norms;
pub mod profile;
pub mod reference;
pub mod shape;
pub mod tape;
pub mod weights;

#[cfg(test)]
pub(crate) mod test_support;

pub use attention::{attention_backward_into, attention_forward, AttentionCache};
pub use benchmark::{benchmark_shape, draw_benchmark_weights, run_benchmark_stacks};
pub use block::{
    block_backward_into, block_backward_norm, block_forward, BlockCache, Branch, SublayerCache,
};
pub use grads::GradSink;
pub use layer_norm::{
    layer_norm_backward, layer_norm_forward, LayerNormCache, LayerNormParams, LN_EPS,
};
pub use mlp::{gelu_derivative_given_gate, gelu_gates, mlp_backward_into, MlpCache};
pub use norms::{frobenius_norm, norm_of_parts, product_frobenius_norms};
pub use profile::{bottom_to_top, toy_chain, verdict_of, GradientProfile, GradientVerdict};
pub use shape::{NormPlacement, StackShape, Wiring, MAX_DEPTH, SWEEP_DEPTHS};
pub use tape::{Backward, Tape};
pub use weights::{
    input_and_loss_weights, unit_block_weights, BlockParams, GainScaled, Param, UnitWeights,
    WeightBank,
};
