//! The stack: a forward tape that grows one block at a time (so the page can spread the
//! work over several frames), and backward passes that resume block by block.

use std::sync::Arc;

use nalgebra::DMatrix;

use super::block::{block_backward_norm, block_forward, BlockCache};
use super::layer_norm::{layer_norm_backward, layer_norm_forward, LayerNormParams};
use super::norms::{frobenius_norm, largest_magnitude};
use super::profile::GradientProfile;
use super::shape::{NormPlacement, StackShape};
use super::weights::{input_and_loss_weights, UnitWeights, WeightBank};
use crate::math::heads::heads_dividing;

/// The forward pass of a stack, kept so that any depth up to its length can be
/// backpropagated: weights, caches and each block's output. Grows one block at a time
/// ([`Tape::push_block`]) so the page can spread the work over several frames.
#[derive(Clone, Debug)]
pub struct Tape {
    pub shape: StackShape,
    input: DMatrix<f64>,
    loss_weights: DMatrix<f64>,
    /// Each block's unit draws; its weights are `units.at_gain(shape.gain, …)`.
    weights: Vec<Arc<UnitWeights>>,
    caches: Vec<BlockCache>,
    /// outputs[l] = x_{l+1}, the output of block l.
    outputs: Vec<DMatrix<f64>>,
    /// Every norm of the initialised stack, the blocks' and the final one: γ = 1, β = 0.
    norm_at_init: LayerNormParams,
}

impl Tape {
    /// An empty tape (depth 0) for `shape`; heads are reduced to a divisor of d_model.
    pub fn new(mut shape: StackShape) -> Self {
        shape.heads = heads_dividing(shape.d_model, shape.heads);
        let (input, loss_weights) = input_and_loss_weights(&shape);
        let norm_at_init = LayerNormParams::identity(shape.d_model);
        Self {
            shape,
            input,
            loss_weights,
            weights: Vec::new(),
            caches: Vec::new(),
            outputs: Vec::new(),
            norm_at_init,
        }
    }

    /// Blocks run so far.
    pub fn len(&self) -> usize {
        self.outputs.len()
    }

    /// True before the first block.
    pub fn is_empty(&self) -> bool {
        self.outputs.is_empty()
    }

    /// The input of block `layer` (x_0 is the stack's input).
    pub fn block_input(&self, layer: usize) -> &DMatrix<f64> {
        if layer == 0 {
            &self.input
        } else {
            &self.outputs[layer - 1]
        }
    }

    /// Runs one more block forward, its weights from `bank`.
    pub fn push_block_with(&mut self, bank: &mut WeightBank) {
        let layer = self.len();
        let units = bank.units(&self.shape, layer);
        let (y, cache) = block_forward(
            self.block_input(layer),
            &units.at_gain(self.shape.gain, &self.norm_at_init),
            self.shape.heads,
            self.shape.wiring,
        );
        self.weights.push(units);
        self.caches.push(cache);
        self.outputs.push(y);
    }

    /// The first block whose output is not finite (the forward pass overflowed there).
    pub fn first_forward_overflow(&self, depth: usize) -> Option<usize> {
        self.outputs
            .iter()
            .take(depth)
            .position(|y| largest_magnitude(&[y.as_slice()]).is_none())
    }

    /// Output y of the stack of depth `depth` (with the final LN when pre-norm) and the
    /// loss L = Σ y ⊙ r.
    pub fn output_and_loss(&self, depth: usize) -> (DMatrix<f64>, f64) {
        let x = self.block_input(depth.min(self.len()));
        let y = if self.shape.wiring.norm == NormPlacement::Pre {
            layer_norm_forward(x, &self.norm_at_init).0
        } else {
            x.clone()
        };
        let loss = y.component_mul(&self.loss_weights).sum();
        (y, loss)
    }

    /// Starts the backward pass of the stack of depth `depth` (≤ len).
    pub fn backward(&self, depth: usize) -> Backward {
        let depth = depth.min(self.len());
        let r = self.loss_weights.clone();
        let grad = if self.shape.wiring.norm == NormPlacement::Pre {
            let (_, cache) = layer_norm_forward(self.block_input(depth), &self.norm_at_init);
            layer_norm_backward(&r, &cache, &self.norm_at_init).0
        } else {
            r
        };
        Backward {
            depth,
            next: depth,
            grad,
            input_grad_norm: vec![0.0; depth],
            weight_grad_norm: vec![0.0; depth],
        }
    }
}

/// A backward pass in progress, from the top block down; [`Backward::step`] does one block.
#[derive(Clone, Debug)]
pub struct Backward {
    depth: usize,
    /// Blocks still to backpropagate: next − 1 is the next one.
    next: usize,
    grad: DMatrix<f64>,
    input_grad_norm: Vec<f64>,
    weight_grad_norm: Vec<f64>,
}

impl Backward {
    /// Backpropagates through one more block; returns true when every block is done.
    pub fn step(&mut self, tape: &Tape) -> bool {
        if self.next == 0 {
            return true;
        }
        let l = self.next - 1;
        let (dx, weight_grad_norm) = block_backward_norm(
            &self.grad,
            &tape.caches[l],
            &tape.weights[l].at_gain(tape.shape.gain, &tape.norm_at_init),
            tape.shape.wiring,
        );
        self.weight_grad_norm[l] = weight_grad_norm;
        self.input_grad_norm[l] = frobenius_norm(&dx);
        self.grad = dx;
        self.next = l;
        self.next == 0
    }

    /// Runs the pass to the end.
    pub fn finish(mut self, tape: &Tape) -> GradientProfile {
        while !self.step(tape) {}
        self.profile(tape)
    }

    /// The per-layer norms (complete once [`Backward::step`] has returned true).
    pub fn profile(self, tape: &Tape) -> GradientProfile {
        let (_, loss) = tape.output_and_loss(self.depth);
        GradientProfile {
            input_grad_norm: self.input_grad_norm,
            weight_grad_norm: self.weight_grad_norm,
            loss,
            forward_overflow: tape.first_forward_overflow(self.depth),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::stability::reference::*;
    use crate::math::stability::test_support::*;
    use crate::math::stability::*;

    #[test]
    fn stack_input_gradient_matches_finite_differences_for_every_wiring() {
        for wiring in all_wirings() {
            let s = shape(4, 2, 4, wiring);
            let depth = 3;
            let mut tape = Tape::new(s.clone());
            tape.extend_to(depth);
            let mut back = tape.backward(depth);
            while !back.step(&tape) {}
            let analytic = back.grad.clone();
            let loss_of = |x: &DMatrix<f64>| {
                let mut h = x.clone();
                for l in 0..depth {
                    h = block_forward(&h, &block_weights(&s, l), 2, wiring).0;
                }
                let y = if wiring.norm == NormPlacement::Pre {
                    layer_norm_forward(&h, &LayerNormParams::identity(4)).0
                } else {
                    h
                };
                dot(&y, &tape.loss_weights)
            };
            check_gradient(
                &tape.input,
                &analytic,
                loss_of,
                &format!("stack dx₀ ({})", wiring.label()),
            );
            let profile = back.profile(&tape);
            assert!((profile.input_grad_norm[0] - frobenius_norm(&analytic)).abs() < 1e-12);
        }
    }

    #[test]
    fn a_shallow_stack_is_a_prefix_of_a_deep_one() {
        let s = shape(8, 2, 4, Wiring::PRE_NORM);
        let mut deep = Tape::new(s.clone());
        deep.extend_to(6);
        let mut shallow = Tape::new(s);
        shallow.extend_to(3);
        assert_eq!(deep.block_input(3), shallow.block_input(3));
        let a = deep.backward(3).finish(&deep);
        let b = shallow.backward(3).finish(&shallow);
        assert_eq!(a, b);
    }

    #[test]
    fn every_norm_is_finite_or_named_as_overflow_at_depth_128() {
        for wiring in Wiring::SWEEP {
            let p = gradient_profile(&shape(32, 2, 8, wiring), 128);
            let finite = p.input_grad_norm.iter().all(|v| v.is_finite());
            assert_eq!(finite, p.first_backward_overflow().is_none());
            if !finite {
                assert_eq!(p.verdict(), GradientVerdict::Overflow);
            }
        }
    }
}
