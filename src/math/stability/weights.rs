//! A stack's seeded draws: each block's unit N(0, 1) matrices, read at a gain without a
//! scaled copy, kept in a bank shared by every stack of one seed and width; the stack's
//! input and the loss weights.

use std::sync::Arc;

use nalgebra::DMatrix;

use super::block::Branch;
use super::layer_norm::LayerNormParams;
use super::shape::StackShape;
use crate::math::products::{scaled_times, scaled_times_transpose};
use crate::math::rng::gaussian_matrix;
use crate::math::stability::reference::BlockWeights;

const STREAM_WEIGHTS: u64 = 0x57AB;
const STREAM_INPUT: u64 = 0x1A9;
const STREAM_TARGET: u64 = 0x7A6;

/// A weight matrix of a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Param {
    Wq,
    Wk,
    Wv,
    Wo,
    W1,
    W2,
}

/// A block's weights as its forward and backward passes read them: each weight W as a
/// stored matrix M and a factor k with W = k·M. Products then take the factor into the
/// kernel, x·W = k·(x·M) and g·Wᵀ = k·(g·Mᵀ), so a stack runs on its unit draws Z with
/// k = gain/√fan_in and never forms a scaled copy of a weight.
pub trait BlockParams {
    /// (M, k) with W = k·M for the weight `which`.
    fn weight(&self, which: Param) -> (&DMatrix<f64>, f64);
    /// The LayerNorm of the `branch` sub-layer.
    fn norm(&self, branch: Branch) -> &LayerNormParams;
    /// The factor on attention's logits for heads of width d_h: 1/√d_h (scaled dot-product
    /// attention, the default), or 1 for the unscaled logits QKᵀ that Pass 1 contrasts.
    fn score_scale(&self, d_head: usize) -> f64 {
        1.0 / (d_head.max(1) as f64).sqrt()
    }
}

/// x·W for W = k·M given as (M, k): k·(x·M) in one product.
pub(super) fn times_weight(x: &DMatrix<f64>, (m, k): (&DMatrix<f64>, f64)) -> DMatrix<f64> {
    scaled_times(k, x, m)
}

/// g·Wᵀ for W = k·M given as (M, k): k·(g·Mᵀ) in one product.
pub(super) fn times_weight_transpose(
    g: &DMatrix<f64>,
    (m, k): (&DMatrix<f64>, f64),
) -> DMatrix<f64> {
    scaled_times_transpose(k, g, m)
}

/// The N(0, 1) draws behind one block's matrices, before gain and fan-in scaling: what
/// a change of gain or wiring can reuse.
#[derive(Clone, Debug, PartialEq)]
pub struct UnitWeights([DMatrix<f64>; 6]);

/// The unit draws of block `layer` for `seed` and width `d` (MLP 4d).
pub fn unit_block_weights(seed: u64, d: usize, layer: usize) -> UnitWeights {
    let f = 4 * d;
    let z = |which: u64, rows: usize, cols: usize| {
        gaussian_matrix(
            seed,
            &[STREAM_WEIGHTS, d as u64, layer as u64, which],
            rows,
            cols,
        )
    };
    UnitWeights([
        z(0, d, d),
        z(1, d, d),
        z(2, d, d),
        z(3, d, d),
        z(4, d, f),
        z(5, f, d),
    ])
}

impl UnitWeights {
    /// The factor of matrix `i` at `gain`: k = gain/√fan_in (fan_in its rows).
    fn factor(&self, i: usize, gain: f64) -> f64 {
        gain / (self.0[i].nrows() as f64).sqrt()
    }

    /// These draws as the weights at `gain`, W = (gain/√fan_in)·Z, without a scaled copy;
    /// both norms `norm` (the identity γ = 1, β = 0 at initialisation).
    pub fn at_gain<'a>(&'a self, gain: f64, norm: &'a LayerNormParams) -> GainScaled<'a> {
        GainScaled {
            units: self,
            gain,
            norm,
        }
    }

    /// Every matrix scaled to N(0, gain²/fan_in): W = (gain/√fan_in) · Z; γ = 1, β = 0.
    pub fn scaled(&self, gain: f64) -> BlockWeights {
        let w = |i: usize| {
            let z = &self.0[i];
            let k = self.factor(i, gain);
            let scaled: Vec<f64> = z.as_slice().iter().map(|v| v * k).collect();
            DMatrix::from_vec(z.nrows(), z.ncols(), scaled)
        };
        let d = self.0[0].nrows();
        BlockWeights {
            wq: w(0),
            wk: w(1),
            wv: w(2),
            wo: w(3),
            w1: w(4),
            w2: w(5),
            ln1: LayerNormParams::identity(d),
            ln2: LayerNormParams::identity(d),
        }
    }
}

/// One block's unit draws read at a gain: W = (gain/√fan_in)·Z for each matrix (see
/// [`BlockParams`]), the same weights as [`UnitWeights::scaled`] up to rounding.
pub struct GainScaled<'a> {
    units: &'a UnitWeights,
    gain: f64,
    norm: &'a LayerNormParams,
}

impl BlockParams for GainScaled<'_> {
    fn weight(&self, which: Param) -> (&DMatrix<f64>, f64) {
        let i = match which {
            Param::Wq => 0,
            Param::Wk => 1,
            Param::Wv => 2,
            Param::Wo => 3,
            Param::W1 => 4,
            Param::W2 => 5,
        };
        (&self.units.0[i], self.units.factor(i, self.gain))
    }

    fn norm(&self, _: Branch) -> &LayerNormParams {
        self.norm
    }
}

/// Unit draws kept across stacks of one seed and width, so that changing gain or wiring
/// does not draw every weight again. Shared (not copied) by every tape of that seed and
/// width: the stacks on the page hold one copy of their weights between them (at depth
/// 128 and d_model 64 a copy is 50 MB), scaled to the gain only while a block runs.
#[derive(Clone, Debug, Default)]
pub struct WeightBank {
    key: Option<(u64, usize)>,
    layers: Vec<Arc<UnitWeights>>,
}

impl WeightBank {
    /// Block `layer`'s unit draws for `shape`, drawing (and keeping) what is missing.
    pub fn units(&mut self, shape: &StackShape, layer: usize) -> Arc<UnitWeights> {
        let key = (shape.seed, shape.d_model);
        if self.key != Some(key) {
            self.key = Some(key);
            self.layers.clear();
        }
        while self.layers.len() <= layer {
            let l = self.layers.len();
            self.layers
                .push(Arc::new(unit_block_weights(shape.seed, shape.d_model, l)));
        }
        Arc::clone(&self.layers[layer])
    }
}

/// The stack's input X ~ N(0, 1)^{T×d} and the loss weights r ~ N(0, 1)^{T×d}.
pub fn input_and_loss_weights(shape: &StackShape) -> (DMatrix<f64>, DMatrix<f64>) {
    let (t, d) = (shape.seq_len, shape.d_model);
    (
        gaussian_matrix(shape.seed, &[STREAM_INPUT, d as u64, t as u64], t, d),
        gaussian_matrix(shape.seed, &[STREAM_TARGET, d as u64, t as u64], t, d),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::stability::reference::*;
    use crate::math::stability::test_support::*;
    use crate::math::stability::*;

    #[test]
    fn banked_weights_are_bit_identical_to_fresh_draws() {
        let mut bank = WeightBank::default();
        for gain in [1.0, 0.35, 2.0] {
            let s = StackShape {
                gain,
                ..shape(8, 2, 4, Wiring::PRE_NORM)
            };
            for l in [0, 3, 1] {
                assert_eq!(bank.block(&s, l), block_weights(&s, l));
            }
        }
        // By hand: the scale is gain/√fan_in of a unit draw.
        let s = shape(8, 2, 4, Wiring::PLAIN);
        let z = unit_block_weights(s.seed, 8, 0);
        assert_eq!(
            block_weights(&s, 0).w2[(3, 1)],
            z.0[5][(3, 1)] * (1.0 / 32f64.sqrt())
        );
    }

    #[test]
    fn gain_scaled_draws_pass_as_the_scaled_weights_do() {
        // x·(kZ) against k·(x·Z): the same block up to rounding, forward and backward.
        let z = unit_block_weights(11, 8, 2);
        let norm = LayerNormParams::identity(8);
        let (x, r) = (random(3, 4, 8), random(4, 4, 8));
        for gain in [0.35, 1.0, 1.7] {
            let (plain, folded) = (z.scaled(gain), z.at_gain(gain, &norm));
            for wiring in all_wirings() {
                let (y, cache) = block_forward(&x, &plain, 2, wiring);
                let (y_folded, cache_folded) = block_forward(&x, &folded, 2, wiring);
                assert!((&y - &y_folded).abs().max() <= 1e-13 * y.abs().max());
                let (dx, g) = block_backward(&r, &cache, &plain, wiring);
                let (dx_folded, g_folded) = block_backward(&r, &cache_folded, &folded, wiring);
                assert!((&dx - &dx_folded).abs().max() <= 1e-13 * dx.abs().max());
                assert!((g.norm() - g_folded.norm()).abs() <= 1e-13 * g.norm());
            }
        }
    }
}
