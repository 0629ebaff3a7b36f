//! A decoder block: an attention sub-layer, then an MLP sub-layer, each wired with or
//! without a residual and with the norm before, after or nowhere; forward and backward.

use std::borrow::Cow;

use nalgebra::DMatrix;

use super::attention::{attention_backward_into, attention_forward, AttentionCache};
use super::grads::{GradNorm, GradSink};
use super::layer_norm::{layer_norm_backward, layer_norm_forward, LayerNormCache};
use super::mlp::{mlp_backward_into, mlp_forward_weighted, MlpCache};
use super::shape::{NormPlacement, Wiring};
use super::weights::{BlockParams, Param};

/// Which function a sub-layer computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Branch {
    Attention,
    Mlp,
}

#[derive(Clone, Debug, PartialEq)]
pub(super) enum BranchCache {
    Attention(AttentionCache),
    Mlp(MlpCache),
}

/// What one sub-layer's backward pass needs.
#[derive(Clone, Debug, PartialEq)]
pub struct SublayerCache {
    pre_ln: Option<LayerNormCache>,
    branch: BranchCache,
    post_ln: Option<LayerNormCache>,
}

/// What one block's backward pass needs.
#[derive(Clone, Debug, PartialEq)]
pub struct BlockCache {
    attention: SublayerCache,
    mlp: SublayerCache,
}

pub(super) fn sublayer_forward(
    x: &DMatrix<f64>,
    branch: Branch,
    w: &impl BlockParams,
    heads: usize,
    wiring: Wiring,
) -> (DMatrix<f64>, SublayerCache) {
    let ln = w.norm(branch);
    // Without a pre-norm the branch reads x itself: no copy.
    let (u, pre_ln) = if wiring.norm == NormPlacement::Pre {
        let (u, c) = layer_norm_forward(x, ln);
        (Cow::Owned(u), Some(c))
    } else {
        (Cow::Borrowed(x), None)
    };
    let (f, branch_cache) = match branch {
        Branch::Attention => {
            let (f, c) = attention_forward(&u, w, heads);
            (f, BranchCache::Attention(c))
        }
        Branch::Mlp => {
            let (f, c) = mlp_forward_weighted(&u, w.weight(Param::W1), w.weight(Param::W2));
            (f, BranchCache::Mlp(c))
        }
    };
    let s = if wiring.residual { x + f } else { f };
    let (y, post_ln) = if wiring.norm == NormPlacement::Post {
        let (y, c) = layer_norm_forward(&s, ln);
        (y, Some(c))
    } else {
        (s, None)
    };
    (
        y,
        SublayerCache {
            pre_ln,
            branch: branch_cache,
            post_ln,
        },
    )
}

/// Backward through one sub-layer; hands the branch's and the norm's gradients to `sink`.
pub(super) fn sublayer_backward(
    dy: &DMatrix<f64>,
    cache: &SublayerCache,
    w: &impl BlockParams,
    wiring: Wiring,
    sink: &mut impl GradSink,
) -> DMatrix<f64> {
    let branch = match cache.branch {
        BranchCache::Attention(_) => Branch::Attention,
        BranchCache::Mlp(_) => Branch::Mlp,
    };
    let ln = w.norm(branch);
    let mut ln_grad = None;
    let ds = match &cache.post_ln {
        Some(c) => {
            let (ds, g) = layer_norm_backward(dy, c, ln);
            ln_grad = Some(g);
            Cow::Owned(ds)
        }
        None => Cow::Borrowed(dy),
    };
    let du = match &cache.branch {
        BranchCache::Attention(c) => attention_backward_into(&ds, c, w, sink),
        BranchCache::Mlp(c) => {
            mlp_backward_into(&ds, c, w.weight(Param::W1), w.weight(Param::W2), sink)
        }
    };
    let dx_branch = match &cache.pre_ln {
        Some(c) => {
            let (dx, g) = layer_norm_backward(&du, c, ln);
            ln_grad = Some(g);
            dx
        }
        None => du,
    };
    // A norm that is not wired in has zero gradient, and nothing is handed on.
    if let Some(g) = ln_grad {
        sink.layer_norm(branch, g);
    }
    if wiring.residual {
        dx_branch + ds.as_ref()
    } else {
        dx_branch
    }
}

impl BlockCache {
    /// The attention sub-layer's probabilities, one causal T×T matrix per head.
    pub fn attention_probabilities(&self) -> &[DMatrix<f64>] {
        match &self.attention.branch {
            BranchCache::Attention(c) => &c.p,
            BranchCache::Mlp(_) => &[],
        }
    }
}

/// One decoder block forward: the attention sub-layer, then the MLP sub-layer.
pub fn block_forward(
    x: &DMatrix<f64>,
    w: &impl BlockParams,
    heads: usize,
    wiring: Wiring,
) -> (DMatrix<f64>, BlockCache) {
    let (h, attention) = sublayer_forward(x, Branch::Attention, w, heads, wiring);
    let (y, mlp) = sublayer_forward(&h, Branch::Mlp, w, heads, wiring);
    (y, BlockCache { attention, mlp })
}

/// [`block_backward`] keeping only ‖∂L/∂θ‖ over the block's parameters (what the stack
/// plots), each weight's through [`product_frobenius_norms`]: returns (∂L/∂x, ‖∂L/∂θ‖).
pub fn block_backward_norm(
    dy: &DMatrix<f64>,
    cache: &BlockCache,
    w: &impl BlockParams,
    wiring: Wiring,
) -> (DMatrix<f64>, f64) {
    let mut norm = GradNorm::default();
    let dx = block_backward_into(dy, cache, w, wiring, &mut norm);
    (dx, norm.norm())
}

/// Backward through one block, handing every parameter's gradient to `sink`; returns ∂L/∂x.
pub fn block_backward_into(
    dy: &DMatrix<f64>,
    cache: &BlockCache,
    w: &impl BlockParams,
    wiring: Wiring,
    sink: &mut impl GradSink,
) -> DMatrix<f64> {
    let dh = sublayer_backward(dy, &cache.mlp, w, wiring, sink);
    sublayer_backward(&dh, &cache.attention, w, wiring, sink)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::math::stability::reference::*;
    use crate::math::stability::test_support::*;

    #[test]
    fn block_backward_matches_finite_differences_for_every_wiring() {
        for wiring in all_wirings() {
            let w = small_block(14, 4);
            let (x, r) = (random(15, 5, 4), random(16, 5, 4));
            let (_, cache) = block_forward(&x, &w, 2, wiring);
            let (dx, g) = block_backward(&r, &cache, &w, wiring);
            let label = wiring.label();
            check_gradient(
                &x,
                &dx,
                |x| dot(&block_forward(x, &w, 2, wiring).0, &r),
                &format!("block dx ({label})"),
            );
            let mut w1 = w.clone();
            check_gradient(
                &w.w1,
                &g.w1,
                |m| {
                    w1.w1 = m.clone();
                    dot(&block_forward(&x, &w1, 2, wiring).0, &r)
                },
                &format!("block dW1 ({label})"),
            );
            if wiring.norm != NormPlacement::None {
                let gamma = DMatrix::from_column_slice(4, 1, &w.ln1.gamma);
                let dgamma = DMatrix::from_column_slice(4, 1, &g.ln1.gamma);
                check_gradient(
                    &gamma,
                    &dgamma,
                    |m| {
                        let mut w2 = w.clone();
                        w2.ln1.gamma = m.iter().copied().collect();
                        dot(&block_forward(&x, &w2, 2, wiring).0, &r)
                    },
                    &format!("block dγ₁ ({label})"),
                );
            }
        }
    }

    #[test]
    fn weight_gradient_norm_is_the_norm_of_all_parameters() {
        let w = small_block(20, 4);
        let (x, r) = (random(21, 5, 4), random(22, 5, 4));
        let (_, cache) = block_forward(&x, &w, 2, Wiring::POST_NORM);
        let (_, g) = block_backward(&r, &cache, &w, Wiring::POST_NORM);
        let mut all: Vec<f64> = Vec::new();
        for m in [
            &g.attention.wq,
            &g.attention.wk,
            &g.attention.wv,
            &g.attention.wo,
            &g.w1,
            &g.w2,
        ] {
            all.extend(m.iter());
        }
        for v in [&g.ln1.gamma, &g.ln1.beta, &g.ln2.gamma, &g.ln2.beta] {
            all.extend(v.iter());
        }
        let direct = all.iter().map(|x| x * x).sum::<f64>().sqrt();
        assert!((g.norm() - direct).abs() < 1e-12 * direct);
    }

    #[test]
    fn block_gradient_norm_equals_the_norm_of_the_materialised_gradients() {
        for wiring in all_wirings() {
            let w = small_block(23, 8);
            let (x, r) = (random(24, 3, 8), random(25, 3, 8));
            let (_, cache) = block_forward(&x, &w, 2, wiring);
            let (dx, g) = block_backward(&r, &cache, &w, wiring);
            let (dx_fast, norm) = block_backward_norm(&r, &cache, &w, wiring);
            assert_eq!(dx, dx_fast, "{}", wiring.label());
            assert!(
                (norm - g.norm()).abs() <= 1e-12 * g.norm(),
                "{}: {norm} vs {}",
                wiring.label(),
                g.norm()
            );
        }
    }
}
