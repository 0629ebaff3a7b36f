//! Where a backward pass puts the weight gradients it passes: a sink trait, and the sink
//! the page uses, which keeps only their norm.

use nalgebra::DMatrix;

use super::block::Branch;
use super::layer_norm::LayerNormParams;
use super::norms::{norm_of_parts, product_frobenius_norms};
use super::weights::Param;

/// Where a backward pass puts the gradients of the parameters it passes. A weight W
/// used as X·W has ∂L/∂W = XᵀG, G = ∂L/∂(XW); it arrives as its two factors, so a sink
/// that needs only ‖∂L/∂W‖ never forms the in × out product ([`product_frobenius_norms`]).
pub trait GradSink {
    /// ∂L/∂W = XᵀG for each (W, G) of `grads`, all with the same input X.
    fn weights(&mut self, x: &DMatrix<f64>, grads: &[(Param, &DMatrix<f64>)]);
    /// dγ, dβ of the norm of the `branch` sub-layer (only when that norm is wired in).
    fn layer_norm(&mut self, branch: Branch, grads: LayerNormParams);
}

/// A sink that keeps only the norm of everything it receives: ‖∂L/∂θ‖ over all the
/// block's parameters, as √(Σ_parts ‖part‖²) computed overflow-safe by [`norm_of_parts`].
#[derive(Default)]
pub(super) struct GradNorm {
    parts: Vec<f64>,
}

impl GradNorm {
    pub(super) fn norm(&self) -> f64 {
        norm_of_parts(&[&self.parts])
    }
}

impl GradSink for GradNorm {
    fn weights(&mut self, x: &DMatrix<f64>, grads: &[(Param, &DMatrix<f64>)]) {
        let gs: Vec<&DMatrix<f64>> = grads.iter().map(|&(_, g)| g).collect();
        self.parts.extend(product_frobenius_norms(x, &gs));
    }

    fn layer_norm(&mut self, _: Branch, grads: LayerNormParams) {
        self.parts.push(norm_of_parts(&[&grads.gamma, &grads.beta]));
    }
}
