//! Plain forms of what the fast paths compute, kept for the tests to check them against
//! (and for the examples): GELU through tanh, the MLP, attention and block backward passes
//! that materialise every weight gradient, weights drawn and scaled in one go, and the
//! whole stack at once. The page never calls these.

use nalgebra::DMatrix;

use super::attention::{attention_backward_into, AttentionCache};
use super::block::{block_backward_into, BlockCache, Branch};
use super::grads::GradSink;
use super::layer_norm::LayerNormParams;
use super::mlp::{mlp_backward_into, mlp_forward_weighted, MlpCache, GELU_A, GELU_C};
use super::norms::norm_of_parts;
use super::profile::GradientProfile;
use super::shape::StackShape;
use super::tape::Tape;
use super::weights::{unit_block_weights, BlockParams, Param};
use crate::math::products::{transpose_times, zeros};
use crate::math::stability::profile::bottom_to_top;
use crate::math::stability::profile::verdict_of;
use crate::math::stability::profile::GradientVerdict;
use crate::math::stability::shape::Wiring;
use crate::math::stability::weights::WeightBank;

/// t = tanh(√(2/π)(x + 0.044715x³)), the tanh inside GELU and its derivative.
pub fn gelu_tanh(x: f64) -> f64 {
    (GELU_C * (x + GELU_A * x * x * x)).tanh()
}

/// GELU, tanh form: ½x(1 + tanh(√(2/π)(x + 0.044715x³))).
pub fn gelu(x: f64) -> f64 {
    0.5 * x * (1.0 + gelu_tanh(x))
}

/// d GELU/dx = ½(1 + t) + ½x(1 − t²)·√(2/π)(1 + 3·0.044715x²), t = tanh(√(2/π)(x + 0.044715x³)).
pub fn gelu_derivative(x: f64) -> f64 {
    gelu_derivative_given_tanh(x, gelu_tanh(x))
}

/// [`gelu_derivative`] with t = [`gelu_tanh`]`(x)` already known (kept from the forward pass).
pub fn gelu_derivative_given_tanh(x: f64, t: f64) -> f64 {
    0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * GELU_C * (1.0 + 3.0 * GELU_A * x * x)
}

/// MLP(x) = GELU(x W₁) W₂.
pub fn mlp_forward(
    x: &DMatrix<f64>,
    w1: &DMatrix<f64>,
    w2: &DMatrix<f64>,
) -> (DMatrix<f64>, MlpCache) {
    mlp_forward_weighted(x, (w1, 1.0), (w2, 1.0))
}

/// The MLP's backward pass: dW₂ = aᵀ dy, dh = (dy W₂ᵀ) ⊙ GELU′(h), dW₁ = xᵀ dh, dx = dh W₁ᵀ.
/// Returns (dx, dW₁, dW₂).
pub fn mlp_backward(
    dy: &DMatrix<f64>,
    cache: &MlpCache,
    w1: &DMatrix<f64>,
    w2: &DMatrix<f64>,
) -> (DMatrix<f64>, DMatrix<f64>, DMatrix<f64>) {
    let mut grads = BlockGrads::empty(cache.x.ncols());
    let dx = mlp_backward_into(dy, cache, (w1, 1.0), (w2, 1.0), &mut grads);
    (dx, grads.w1, grads.w2)
}

/// The attention weights' gradients.
#[derive(Clone, Debug, PartialEq)]
pub struct AttentionGrads {
    pub wq: DMatrix<f64>,
    pub wk: DMatrix<f64>,
    pub wv: DMatrix<f64>,
    pub wo: DMatrix<f64>,
}

/// Attention's backward pass. dW_O = Oᵀdy, dO = dy W_Oᵀ; per head dP = dO_h V_hᵀ,
/// dV_h = Pᵀ dO_h, and each row of dS is J(p_i)·dP_i through the softmax Jacobian of
/// Pass 1 (masked entries have p = 0 and get no gradient); dQ_h = dS K_h/√d_h,
/// dK_h = dSᵀ Q_h/√d_h; dx = dQ W_Qᵀ + dK W_Kᵀ + dV W_Vᵀ.
pub fn attention_backward(
    dy: &DMatrix<f64>,
    cache: &AttentionCache,
    w: &impl BlockParams,
) -> (DMatrix<f64>, AttentionGrads) {
    let mut grads = BlockGrads::empty(cache.x.ncols());
    let dx = attention_backward_into(dy, cache, w, &mut grads);
    (dx, grads.attention)
}

/// The gradients of one block's parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct BlockGrads {
    pub attention: AttentionGrads,
    pub w1: DMatrix<f64>,
    pub w2: DMatrix<f64>,
    pub ln1: LayerNormParams,
    pub ln2: LayerNormParams,
}

impl BlockGrads {
    /// ‖∂L/∂θ‖ over every parameter θ of the block (all matrices and the norms' γ, β in use).
    pub fn norm(&self) -> f64 {
        norm_of_parts(&[
            self.attention.wq.as_slice(),
            self.attention.wk.as_slice(),
            self.attention.wv.as_slice(),
            self.attention.wo.as_slice(),
            self.w1.as_slice(),
            self.w2.as_slice(),
            &self.ln1.gamma,
            &self.ln1.beta,
            &self.ln2.gamma,
            &self.ln2.beta,
        ])
    }
}

impl BlockGrads {
    /// Weight placeholders without storage, for a backward pass to overwrite, and zero
    /// norm gradients (what a norm that is not wired in keeps).
    pub(super) fn empty(d: usize) -> Self {
        let empty = || zeros(0, 0);
        let zero = || LayerNormParams {
            gamma: vec![0.0; d],
            beta: vec![0.0; d],
        };
        Self {
            attention: AttentionGrads {
                wq: empty(),
                wk: empty(),
                wv: empty(),
                wo: empty(),
            },
            w1: empty(),
            w2: empty(),
            ln1: zero(),
            ln2: zero(),
        }
    }
}

impl GradSink for BlockGrads {
    fn weights(&mut self, x: &DMatrix<f64>, grads: &[(Param, &DMatrix<f64>)]) {
        for &(which, g) in grads {
            let slot = match which {
                Param::Wq => &mut self.attention.wq,
                Param::Wk => &mut self.attention.wk,
                Param::Wv => &mut self.attention.wv,
                Param::Wo => &mut self.attention.wo,
                Param::W1 => &mut self.w1,
                Param::W2 => &mut self.w2,
            };
            *slot = transpose_times(x, g);
        }
    }

    fn layer_norm(&mut self, branch: Branch, grads: LayerNormParams) {
        match branch {
            Branch::Attention => self.ln1 = grads,
            Branch::Mlp => self.ln2 = grads,
        }
    }
}

/// One decoder block backward: returns ∂L/∂x and the block's parameter gradients.
pub fn block_backward(
    dy: &DMatrix<f64>,
    cache: &BlockCache,
    w: &impl BlockParams,
    wiring: Wiring,
) -> (DMatrix<f64>, BlockGrads) {
    let mut grads = BlockGrads::empty(w.weight(Param::Wq).0.nrows());
    let dx = block_backward_into(dy, cache, w, wiring, &mut grads);
    (dx, grads)
}

/// The weights of one decoder block (shapes d×d, d×4d, 4d×d; x·W convention).
#[derive(Clone, Debug, PartialEq)]
pub struct BlockWeights {
    pub wq: DMatrix<f64>,
    pub wk: DMatrix<f64>,
    pub wv: DMatrix<f64>,
    pub wo: DMatrix<f64>,
    pub w1: DMatrix<f64>,
    pub w2: DMatrix<f64>,
    /// The attention sub-layer's norm (used pre or post, as wired).
    pub ln1: LayerNormParams,
    /// The MLP sub-layer's norm.
    pub ln2: LayerNormParams,
}

impl BlockParams for BlockWeights {
    fn weight(&self, which: Param) -> (&DMatrix<f64>, f64) {
        let m = match which {
            Param::Wq => &self.wq,
            Param::Wk => &self.wk,
            Param::Wv => &self.wv,
            Param::Wo => &self.wo,
            Param::W1 => &self.w1,
            Param::W2 => &self.w2,
        };
        (m, 1.0)
    }

    fn norm(&self, branch: Branch) -> &LayerNormParams {
        match branch {
            Branch::Attention => &self.ln1,
            Branch::Mlp => &self.ln2,
        }
    }
}

/// The weights of block `layer`: every matrix N(0, gain²/fan_in), γ = 1, β = 0.
pub fn block_weights(shape: &StackShape, layer: usize) -> BlockWeights {
    unit_block_weights(shape.seed, shape.d_model, layer).scaled(shape.gain)
}

/// The whole computation at once: forward `depth` blocks, backward, per-layer norms.
pub fn gradient_profile(shape: &StackShape, depth: usize) -> GradientProfile {
    let mut tape = Tape::new(shape.clone());
    tape.extend_to(depth.max(1));
    tape.backward(depth.max(1)).finish(&tape)
}

impl GradientProfile {
    /// bottom/top = ‖∂L/∂x_0‖ / ‖∂L/∂x_{L−1}‖ (1 at depth 1); `None` when a norm is not
    /// finite or the top is zero.
    pub fn ratio(&self) -> Option<f64> {
        bottom_to_top(&self.input_grad_norm)
    }

    /// The verdict the caption names: vanished (< 10⁻³), exploded (> 10³), stable.
    pub fn verdict(&self) -> GradientVerdict {
        verdict_of(self.ratio())
    }
}

impl StackShape {
    /// The MLP's hidden width, 4·d_model.
    pub fn d_ff(&self) -> usize {
        4 * self.d_model
    }
}

impl WeightBank {
    /// Block `layer`'s weights for `shape` (its unit draws scaled to the gain).
    pub fn block(&mut self, shape: &StackShape, layer: usize) -> BlockWeights {
        self.units(shape, layer).scaled(shape.gain)
    }
}

impl Tape {
    /// Runs one more block forward.
    pub fn push_block(&mut self) {
        self.push_block_with(&mut WeightBank::default());
    }

    /// Runs blocks until the tape holds `depth` of them.
    pub fn extend_to(&mut self, depth: usize) {
        while self.len() < depth {
            self.push_block();
        }
    }
}
