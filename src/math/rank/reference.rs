//! Plain forms the tests check the page's faster paths against; the page never calls them.

use nalgebra::DMatrix;

use super::multi_head::{multi_head_split, multi_head_weights, MultiHead};

/// The best rank-k approximation of `m` in Frobenius (and spectral) norm: the truncated
/// SVD U_k Σ_k V_kᵀ (Eckart–Young).
pub fn best_rank_k(m: &DMatrix<f64>, k: usize) -> DMatrix<f64> {
    let svd = m.clone().svd(true, true);
    let (Some(u), Some(v_t)) = (svd.u.as_ref(), svd.v_t.as_ref()) else {
        return DMatrix::zeros(m.nrows(), m.ncols());
    };
    let mut out = DMatrix::zeros(m.nrows(), m.ncols());
    let mut order: Vec<usize> = (0..svd.singular_values.len()).collect();
    order.sort_by(|&a, &b| svd.singular_values[b].total_cmp(&svd.singular_values[a]));
    for &i in order.iter().take(k) {
        out += svd.singular_values[i] * u.column(i) * v_t.row(i);
    }
    out
}

/// Multi-head attention on n random tokens: X ~ N(0,1)^{n×d}, W_Q, W_K, W_V, W_O ~
/// N(0, 1/d). Head h uses columns h·d_head … (h+1)·d_head of Q = XW_Q, K = XW_K, V = XW_V;
/// A_h = softmax(S_h) row by row; the heads' outputs are concatenated and mixed by W_O.
/// `heads` is reduced to the largest divisor of d_model not above it.
pub fn multi_head(seed: u64, n: usize, d_model: usize, heads: usize) -> MultiHead {
    multi_head_split(&multi_head_weights(seed, n, d_model), heads)
}
