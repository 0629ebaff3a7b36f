//! Multi-head attention's ranks: the projections carved into h blocks of d_head, each
//! head's scores of rank at most d_head, and W_O mixing the heads back.

use nalgebra::DMatrix;

use super::{
    numerical_rank, row_softmax, score_matrix, score_singular_values_fast, singular_values,
    singular_values_tall, thin_product_singular_values, token_matrix,
};
use crate::math::heads::heads_dividing;

/// What the multi-head figure shows: each head's score matrix and its rank, and the
/// ranks of the maps the heads are recombined by.
#[derive(Clone, Debug, PartialEq)]
pub struct MultiHead {
    pub d_model: usize,
    pub heads: usize,
    pub d_head: usize,
    /// S_h = Q_h K_hᵀ/√d_head for each head (n × n).
    pub scores: Vec<DMatrix<f64>>,
    /// Numerical rank of each S_h (≤ d_head).
    pub score_ranks: Vec<usize>,
    /// Numerical rank of each head's value–output map W_V^h W_O^h (d × d, ≤ d_head).
    pub ov_ranks: Vec<usize>,
    /// Numerical rank of W_V W_O = Σ_h W_V^h W_O^h (≤ d_model).
    pub combined_ov_rank: usize,
    /// Numerical rank of the layer's output [A_1V_1 | … | A_hV_h] W_O (n × d, ≤ min(n, d)).
    pub output_rank: usize,
    /// W_Q (d × d), its columns cut into h blocks of d_head.
    pub w_q: DMatrix<f64>,
    /// W_O (d × d), its rows cut into h blocks of d_head.
    pub w_o: DMatrix<f64>,
}

/// The part of multi-head attention that does not depend on the number of heads: the
/// tokens X ~ N(0,1)^{n×d}, the weights W_Q, W_K, W_V, W_O ~ N(0, 1/d), the projections
/// Q = XW_Q, K = XW_K, V = XW_V, and the rank of W_V W_O = Σ_h W_V^h W_O^h.
#[derive(Clone, Debug, PartialEq)]
pub struct MultiHeadWeights {
    pub d_model: usize,
    pub q: DMatrix<f64>,
    pub k: DMatrix<f64>,
    pub v: DMatrix<f64>,
    pub w_q: DMatrix<f64>,
    pub w_v: DMatrix<f64>,
    pub w_o: DMatrix<f64>,
    /// Numerical rank of W_V W_O (≤ d_model), whatever the split into heads.
    pub combined_ov_rank: usize,
}

/// Draws the tokens and weights of [`multi_head`] for `seed` (streams 10–14).
pub fn multi_head_weights(seed: u64, n: usize, d_model: usize) -> MultiHeadWeights {
    let d = d_model.max(1);
    let x = token_matrix(seed, 10, n, d);
    let w = |stream: u64| token_matrix(seed, stream, d, d) / (d as f64).sqrt();
    let (w_q, w_k, w_v, w_o) = (w(11), w(12), w(13), w(14));
    let combined = &w_v * &w_o;
    MultiHeadWeights {
        d_model: d,
        q: &x * &w_q,
        k: &x * &w_k,
        v: &x * &w_v,
        combined_ov_rank: numerical_rank(&singular_values(&combined), d, d),
        w_q,
        w_v,
        w_o,
    }
}

/// [`multi_head`] for weights already drawn, split into `heads` heads (reduced to the
/// largest divisor of d_model not above it).
pub fn multi_head_split(w: &MultiHeadWeights, heads: usize) -> MultiHead {
    let d = w.d_model;
    let n = w.q.nrows();
    let heads = heads_dividing(d, heads);
    let d_head = d / heads;
    let mut scores = Vec::with_capacity(heads);
    let mut score_ranks = Vec::with_capacity(heads);
    let mut ov_ranks = Vec::with_capacity(heads);
    let mut concat = DMatrix::zeros(n, d);
    for h in 0..heads {
        let c0 = h * d_head;
        let (qh, kh) = (
            w.q.columns(c0, d_head).into_owned(),
            w.k.columns(c0, d_head).into_owned(),
        );
        let s = score_matrix(&qh, &kh);
        score_ranks.push(numerical_rank(&score_singular_values_fast(&qh, &kh), n, n));
        // W_V^h W_O^h = (d × d_head)(d_head × d): its spectrum through the thin-QR path.
        let ov = thin_product_singular_values(
            &w.w_v.columns(c0, d_head).into_owned(),
            &w.w_o.rows(c0, d_head).transpose(),
        );
        ov_ranks.push(numerical_rank(&ov, d, d));
        let out_h = row_softmax(&s) * w.v.columns(c0, d_head);
        concat.columns_mut(c0, d_head).copy_from(&out_h);
        scores.push(s);
    }
    let output = &concat * &w.w_o;
    MultiHead {
        d_model: d,
        heads,
        d_head,
        scores,
        score_ranks,
        ov_ranks,
        combined_ov_rank: w.combined_ov_rank,
        output_rank: numerical_rank(&singular_values_tall(&output), n, d),
        w_q: w.w_q.clone(),
        w_o: w.w_o.clone(),
    }
}

/// The splits into heads already made of one draw of multi-head weights, by head count:
/// moving h back and forth cuts the same weights again, so each split is made once (at
/// most one per divisor of d_model).
#[derive(Debug, Default)]
pub struct HeadSplits {
    /// What the weights were drawn from: (seed, tokens, d_model).
    drawn_from: Option<(u64, usize, usize)>,
    splits: Vec<MultiHead>,
}

impl HeadSplits {
    /// The split of `w` (drawn from `drawn_from`) into `requested` heads (reduced to a
    /// divisor of d_model), made now or kept from earlier.
    pub fn split(
        &mut self,
        drawn_from: (u64, usize, usize),
        w: &MultiHeadWeights,
        requested: usize,
    ) -> MultiHead {
        if self.drawn_from != Some(drawn_from) {
            self.drawn_from = Some(drawn_from);
            self.splits.clear();
        }
        let heads = heads_dividing(w.d_model, requested);
        if let Some(kept) = self.splits.iter().find(|s| s.heads == heads) {
            return kept.clone();
        }
        let made = multi_head_split(w, heads);
        self.splits.push(made.clone());
        made
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_split_is_the_split_made_fresh_and_is_forgotten_with_its_weights() {
        let w = multi_head_weights(3, 12, 32);
        let mut cache = HeadSplits::default();
        let first = cache.split((3, 12, 32), &w, 4);
        assert_eq!(cache.split((3, 12, 32), &w, 2), multi_head_split(&w, 2));
        assert_eq!(cache.split((3, 12, 32), &w, 4), first);
        assert_eq!(first, multi_head_split(&w, 4));
        // 3 heads do not divide 32: the split is the one into 2, kept once.
        assert_eq!(cache.split((3, 12, 32), &w, 3).heads, 2);
        assert_eq!(cache.splits.len(), 2);
        let other = multi_head_weights(4, 12, 32);
        assert_eq!(
            cache.split((4, 12, 32), &other, 4),
            multi_head_split(&other, 4)
        );
        assert_eq!(
            cache.splits.len(),
            1,
            "splits of the old draw are forgotten"
        );
    }
}
