//! Pass 3 — a rank-d_k object in an n×n costume.
//!
//! S = QKᵀ/√d_k with Q, K ∈ ℝ^{n×d_k} has rank(S) ≤ d_k. The softmax, applied entrywise,
//! does not preserve that bound. Singular values come from nalgebra's SVD (Golub–Kahan
//! bidiagonalisation with implicit-shift QR); nothing here decomposes by hand.
//! References: Eckart & Young (1936) for best low-rank approximation; Roy & Vetterli
//! (2007) for the effective rank; numpy.linalg.matrix_rank for the tolerance.

use nalgebra::DMatrix;

use crate::math::rng::SeededStream;
use crate::math::softmax::softmax;

pub mod lora;
pub mod multi_head;
pub mod reference;
pub mod scores;

pub use lora::{decaying_update, full_update_params, lora_params, LORA_EXAMPLE_SIZE};
pub use multi_head::{
    multi_head_split, multi_head_weights, HeadSplits, MultiHead, MultiHeadWeights,
};
pub use scores::{relative_errors, score_rank, ScoreRank, Spectrum};

/// Most tokens of Pass 3's matrices.
pub const MAX_N: usize = 256;

/// The path of Pass 3's Gaussian matrices in a seed's streams.
const STREAM_GAUSSIAN: u64 = 0x5ABC;

/// n × d matrix of independent N(0, 1) entries from `seed` and `stream`.
pub fn gaussian_matrix(seed: u64, stream: u64, rows: usize, cols: usize) -> DMatrix<f64> {
    crate::math::rng::gaussian_matrix(seed, &[STREAM_GAUSSIAN, stream], rows, cols)
}

/// n × d matrix whose row i is the first d draws of its own stream (seed, stream, i):
/// adding tokens or widening d keeps every entry already drawn, so moving n or d_k on the
/// page changes the matrix only where it must.
pub fn token_matrix(seed: u64, stream: u64, rows: usize, cols: usize) -> DMatrix<f64> {
    let mut m = DMatrix::zeros(rows, cols);
    for i in 0..rows {
        let mut s = SeededStream::new(seed, &[0x70CE, stream, i as u64]);
        for j in 0..cols {
            m[(i, j)] = s.standard_normal();
        }
    }
    m
}

/// The score matrix S = QKᵀ/√d_k for Q, K of shape n × d_k.
pub fn score_matrix(q: &DMatrix<f64>, k: &DMatrix<f64>) -> DMatrix<f64> {
    let d_k = q.ncols().max(1) as f64;
    q * k.transpose() / d_k.sqrt()
}

/// The row-wise softmax A = softmax(S), each row a distribution.
pub fn row_softmax(s: &DMatrix<f64>) -> DMatrix<f64> {
    let mut out = s.clone();
    for (i, row) in s.row_iter().enumerate() {
        let p = softmax(&row.iter().copied().collect::<Vec<_>>());
        for (j, v) in p.into_iter().enumerate() {
            out[(i, j)] = v;
        }
    }
    out
}

/// Singular values of `m`, descending (all min(rows, cols) of them).
pub fn singular_values(m: &DMatrix<f64>) -> Vec<f64> {
    if m.is_empty() {
        return Vec::new();
    }
    let mut sv: Vec<f64> = m.clone().singular_values().iter().copied().collect();
    sv.sort_by(|a, b| b.total_cmp(a));
    sv
}

/// Singular values of S = QKᵀ/√d_k through its structure: with thin QR factorisations
/// Q = Q₁R_Q and K = Q₂R_K, S = Q₁ (R_Q R_Kᵀ/√d_k) Q₂ᵀ, and Q₁, Q₂ have orthonormal
/// columns, so the non-zero singular values of S are those of the d×d matrix
/// R_Q R_Kᵀ/√d_k (d = min(n, d_k)). The remaining n − d are zero exactly.
pub fn score_singular_values_fast(q: &DMatrix<f64>, k: &DMatrix<f64>) -> Vec<f64> {
    let n = q.nrows();
    let d_k = q.ncols().max(1) as f64;
    let r_q = q.clone().qr().r();
    let r_k = k.clone().qr().r();
    let core = &r_q * r_k.transpose() / d_k.sqrt();
    let mut sv = singular_values(&core);
    sv.resize(n.min(k.nrows()), 0.0);
    sv
}

/// Singular values of the product A Bᵀ of two thin matrices (m × r and p × r) through
/// their thin QR factorisations: A Bᵀ = Q_A (R_A R_Bᵀ) Q_Bᵀ, so σ(A Bᵀ) = σ(R_A R_Bᵀ), an
/// r × r problem; the remaining min(m, p) − r are zero exactly.
pub fn thin_product_singular_values(a: &DMatrix<f64>, b: &DMatrix<f64>) -> Vec<f64> {
    let core = a.clone().qr().r() * b.clone().qr().r().transpose();
    let mut sv = singular_values(&core);
    sv.resize(a.nrows().min(b.nrows()), 0.0);
    sv
}

/// numpy's tolerance for `matrix_rank`: σ_max · max(m, n) · ε (ε = 2.22·10⁻¹⁶).
pub fn rank_tolerance(singular: &[f64], rows: usize, cols: usize) -> f64 {
    singular.first().copied().unwrap_or(0.0) * rows.max(cols) as f64 * f64::EPSILON
}

/// Numerical rank: the number of singular values strictly above [`rank_tolerance`].
pub fn numerical_rank(singular: &[f64], rows: usize, cols: usize) -> usize {
    let tol = rank_tolerance(singular, rows, cols);
    singular.iter().filter(|&&s| s > tol).count()
}

/// Effective rank (Roy & Vetterli 2007): exp(H(p)) with p_i = σ_i / Σσ, H in nats.
/// Between 1 and the number of non-zero singular values; 0 for the zero matrix.
pub fn effective_rank(singular: &[f64]) -> f64 {
    let total: f64 = singular.iter().filter(|s| **s > 0.0).sum();
    if total <= 0.0 {
        return 0.0;
    }
    let h: f64 = singular
        .iter()
        .filter(|s| **s > 0.0)
        .map(|s| s / total)
        .map(|p| -p * p.ln())
        .sum();
    h.exp()
}

/// Relative error of the best rank-k approximation, from the singular values alone:
/// √(Σ_{i>k} σ_i²) / ‖T‖_F (Eckart–Young).
pub fn rank_k_relative_error(singular: &[f64], k: usize) -> f64 {
    let total: f64 = singular.iter().map(|s| s * s).sum();
    if total <= 0.0 {
        return 0.0;
    }
    let tail: f64 = singular.iter().skip(k).map(|s| s * s).sum();
    (tail / total).sqrt()
}

/// Singular values of a tall matrix (rows ≥ cols) through its thin QR, M = QR: Q has
/// orthonormal columns, so σ(M) = σ(R), a cols × cols problem. Falls back to the direct
/// SVD for wide matrices.
pub fn singular_values_tall(m: &DMatrix<f64>) -> Vec<f64> {
    if m.nrows() <= m.ncols() || m.is_empty() {
        return singular_values(m);
    }
    singular_values(&m.clone().qr().r())
}

/// A full SVD M = U Σ Vᵀ with the singular values in descending order, kept so that
/// every rank-k truncation costs O(k·m·n) without decomposing again.
#[derive(Clone, Debug, PartialEq)]
pub struct SortedSvd {
    pub u: DMatrix<f64>,
    pub sigma: Vec<f64>,
    pub v_t: DMatrix<f64>,
}

impl SortedSvd {
    /// Decomposes `m` (nalgebra's SVD), sorting the triplets by σ descending.
    pub fn new(m: &DMatrix<f64>) -> Self {
        let (rows, cols) = m.shape();
        let svd = m.clone().svd(true, true);
        let (Some(u), Some(v_t)) = (svd.u, svd.v_t) else {
            return Self {
                u: DMatrix::zeros(rows, 0),
                sigma: Vec::new(),
                v_t: DMatrix::zeros(0, cols),
            };
        };
        let mut order: Vec<usize> = (0..svd.singular_values.len()).collect();
        order.sort_by(|&a, &b| svd.singular_values[b].total_cmp(&svd.singular_values[a]));
        Self {
            u: DMatrix::from_fn(rows, order.len(), |i, c| u[(i, order[c])]),
            sigma: order.iter().map(|&i| svd.singular_values[i]).collect(),
            v_t: DMatrix::from_fn(order.len(), cols, |r, j| v_t[(order[r], j)]),
        }
    }

    /// U_k Σ_k V_kᵀ: the best rank-k approximation (Eckart–Young).
    pub fn truncate(&self, k: usize) -> DMatrix<f64> {
        let k = k.min(self.sigma.len());
        let scaled = DMatrix::from_fn(self.u.nrows(), k, |i, c| self.u[(i, c)] * self.sigma[c]);
        scaled * self.v_t.rows(0, k)
    }
}

/// Target attention patterns of the low-rank figure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// Each token attends to itself.
    Identity,
    /// Token i attends to i − 1 (token 0 to itself).
    PreviousToken,
    /// Row i attends uniformly to 0…i.
    CausalAverage,
    /// Every token attends to token 0.
    FirstToken,
    /// A seeded random attention pattern: the softmax of N(0, 1) scores, row by row.
    Random(u64),
}

/// The n × n target matrix of `pattern` (each row sums to one).
pub fn target_pattern(pattern: Pattern, n: usize) -> DMatrix<f64> {
    match pattern {
        Pattern::Identity => DMatrix::identity(n, n),
        Pattern::PreviousToken => DMatrix::from_fn(n, n, |i, j| {
            if j + 1 == i || (i == 0 && j == 0) {
                1.0
            } else {
                0.0
            }
        }),
        Pattern::CausalAverage => {
            DMatrix::from_fn(n, n, |i, j| if j <= i { 1.0 / (i + 1) as f64 } else { 0.0 })
        }
        Pattern::FirstToken => DMatrix::from_fn(n, n, |_, j| if j == 0 { 1.0 } else { 0.0 }),
        Pattern::Random(seed) => row_softmax(&gaussian_matrix(seed, 99, n, n)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::rank::reference::best_rank_k;
    use crate::math::rank::reference::multi_head;

    #[test]
    fn rank_of_scores_never_exceeds_dk() {
        for seed in 0..20u64 {
            for (n, d_k) in [(8, 1), (16, 4), (32, 7), (24, 24), (12, 30)] {
                let s = score_matrix(
                    &gaussian_matrix(seed, 1, n, d_k),
                    &gaussian_matrix(seed, 2, n, d_k),
                );
                let sv = singular_values(&s);
                assert!(
                    numerical_rank(&sv, n, n) <= d_k.min(n),
                    "seed {seed} n {n} d_k {d_k}"
                );
            }
        }
    }

    #[test]
    fn softmax_raises_the_rank_of_a_low_rank_score_matrix() {
        let (n, d_k) = (32, 2);
        let s = score_matrix(
            &gaussian_matrix(3, 1, n, d_k),
            &gaussian_matrix(3, 2, n, d_k),
        );
        let a = row_softmax(&s);
        assert_eq!(numerical_rank(&singular_values(&s), n, n), 2);
        assert!(numerical_rank(&singular_values(&a), n, n) > 2 * d_k);
    }

    #[test]
    fn singular_values_of_known_matrices() {
        // diag(3, −2, 1): σ = 3, 2, 1.
        let d = DMatrix::from_diagonal(&nalgebra::DVector::from_vec(vec![3.0, -2.0, 1.0]));
        let sv = singular_values(&d);
        for (got, want) in sv.iter().zip([3.0, 2.0, 1.0]) {
            assert!((got - want).abs() < 1e-14);
        }
        // u vᵀ with u = (1, 2, 2), v = (3, 4): one σ = ‖u‖‖v‖ = 3·5 = 15, the rest 0.
        let u = DMatrix::from_column_slice(3, 1, &[1.0, 2.0, 2.0]);
        let v = DMatrix::from_column_slice(2, 1, &[3.0, 4.0]);
        let sv = singular_values(&(u * v.transpose()));
        assert!((sv[0] - 15.0).abs() < 1e-13 && sv[1].abs() < 1e-13);
        // A rotation: both σ = 1.
        let (c, s) = (0.6, 0.8);
        let sv = singular_values(&DMatrix::from_row_slice(2, 2, &[c, -s, s, c]));
        assert!(sv.iter().all(|x| (x - 1.0).abs() < 1e-15));
    }

    #[test]
    fn numerical_rank_uses_numpys_threshold() {
        // σ = (1, tol·2, tol/2) with tol = 1·max(m, n)·ε for a 4 × 4 matrix: rank 2.
        let tol = 4.0 * f64::EPSILON;
        let sv = [1.0, 2.0 * tol, 0.5 * tol, 0.0];
        assert_eq!(rank_tolerance(&sv, 4, 4), tol);
        assert_eq!(numerical_rank(&sv, 4, 4), 2);
        // Exactly at the threshold does not count (numpy: S > tol).
        assert_eq!(numerical_rank(&[1.0, tol], 4, 4), 1);
    }

    #[test]
    fn fast_path_equals_the_full_decomposition() {
        for (seed, n, d_k) in [(1u64, 16, 3), (2, 32, 8), (3, 20, 20), (4, 10, 16)] {
            let (q, k) = (
                gaussian_matrix(seed, 1, n, d_k),
                gaussian_matrix(seed, 2, n, d_k),
            );
            let full = singular_values(&score_matrix(&q, &k));
            let fast = score_singular_values_fast(&q, &k);
            assert_eq!(full.len(), fast.len());
            for (a, b) in full.iter().zip(&fast) {
                assert!((a - b).abs() <= 1e-10 * full[0], "seed {seed}: {a} vs {b}");
            }
        }
    }

    #[test]
    fn truncated_svd_error_matches_eckart_young() {
        for pattern in [
            Pattern::Identity,
            Pattern::PreviousToken,
            Pattern::CausalAverage,
            Pattern::FirstToken,
            Pattern::Random(5),
        ] {
            let t = target_pattern(pattern, 12);
            let sv = singular_values(&t);
            for k in [1, 3, 6, 12] {
                let approx = best_rank_k(&t, k);
                let direct = (&t - &approx).norm() / t.norm();
                let formula = rank_k_relative_error(&sv, k);
                assert!(
                    (direct - formula).abs() < 1e-12,
                    "{pattern:?} k={k}: {direct} vs {formula}"
                );
            }
        }
    }

    #[test]
    fn targets_are_attention_patterns() {
        for pattern in [
            Pattern::Identity,
            Pattern::PreviousToken,
            Pattern::CausalAverage,
            Pattern::FirstToken,
            Pattern::Random(1),
        ] {
            let t = target_pattern(pattern, 9);
            for row in t.row_iter() {
                assert!((row.sum() - 1.0).abs() < 1e-14, "{pattern:?}");
            }
        }
        // Attending to the first token is rank one; the identity is full rank.
        assert_eq!(
            numerical_rank(
                &singular_values(&target_pattern(Pattern::FirstToken, 9)),
                9,
                9
            ),
            1
        );
        assert_eq!(
            numerical_rank(
                &singular_values(&target_pattern(Pattern::Identity, 9)),
                9,
                9
            ),
            9
        );
    }

    #[test]
    fn sorted_svd_truncation_equals_best_rank_k_and_reconstructs_at_full_rank() {
        let t = target_pattern(Pattern::Random(3), 10);
        let svd = SortedSvd::new(&t);
        assert!(svd.sigma.windows(2).all(|w| w[0] >= w[1]));
        for k in [1, 4, 9] {
            assert!((svd.truncate(k) - best_rank_k(&t, k)).norm() < 1e-12);
        }
        assert!((svd.truncate(10) - &t).norm() < 1e-12);
    }

    #[test]
    fn identity_target_error_is_the_square_root_of_the_missing_fraction() {
        // All σ = 1: the rank-k error is √((n − k)/n).
        let n = 16;
        let sv = singular_values(&target_pattern(Pattern::Identity, n));
        for k in [1, 4, 15, 16] {
            let want = (((n - k) as f64) / n as f64).sqrt();
            assert!((rank_k_relative_error(&sv, k) - want).abs() < 1e-14);
        }
    }

    #[test]
    fn previous_token_target_has_singular_values_root_two_then_ones() {
        // Column 0 holds two ones (rows 0 and 1), columns 1 … n−2 one each, column n−1 none:
        // σ = √2, 1 (n − 2 times), 0.
        let sv = singular_values(&target_pattern(Pattern::PreviousToken, 8));
        assert!((sv[0] - 2f64.sqrt()).abs() < 1e-14);
        assert!(sv[1..7].iter().all(|s| (s - 1.0).abs() < 1e-14));
        assert!(sv[7].abs() < 1e-14);
    }

    #[test]
    fn first_token_target_is_rank_one_with_sigma_root_n() {
        let sv = singular_values(&target_pattern(Pattern::FirstToken, 25));
        assert!((sv[0] - 5.0).abs() < 1e-13);
        assert_eq!(rank_k_relative_error(&sv, 1), 0.0);
    }

    #[test]
    fn thin_product_fast_path_equals_the_full_decomposition() {
        let (a, b) = (token_matrix(3, 1, 30, 5), token_matrix(3, 2, 24, 5));
        let full = singular_values(&(&a * b.transpose()));
        let fast = thin_product_singular_values(&a, &b);
        assert_eq!(full.len(), fast.len());
        for (x, y) in full.iter().zip(&fast) {
            assert!((x - y).abs() <= 1e-10 * full[0]);
        }
    }

    #[test]
    fn tall_singular_values_equal_the_direct_ones() {
        let m = token_matrix(4, 1, 40, 9);
        for (a, b) in singular_values(&m).iter().zip(&singular_values_tall(&m)) {
            assert!((a - b).abs() < 1e-12);
        }
    }

    #[test]
    fn one_draw_of_weights_split_into_heads_is_the_multi_head_layer() {
        let w = multi_head_weights(5, 12, 32);
        for heads in [1, 2, 3, 4, 8] {
            assert_eq!(multi_head_split(&w, heads), multi_head(5, 12, 32, heads));
        }
        // W_V W_O is the sum over heads, so its rank does not depend on the split.
        assert_eq!(
            multi_head_split(&w, 1).combined_ov_rank,
            multi_head_split(&w, 8).combined_ov_rank
        );
    }

    #[test]
    fn token_rows_do_not_change_when_tokens_or_width_are_added() {
        let small = token_matrix(9, 1, 5, 3);
        let big = token_matrix(9, 1, 8, 6);
        assert_eq!(small, big.view((0, 0), (5, 3)).into_owned());
    }

    #[test]
    fn every_head_has_rank_at_most_d_head_and_the_output_at_most_min_n_d() {
        for (n, d, h) in [(32, 16, 4), (24, 64, 8), (12, 32, 1), (40, 48, 3)] {
            let mh = multi_head(2, n, d, h);
            assert_eq!(mh.d_head * mh.heads, d);
            assert_eq!(mh.scores.len(), mh.heads);
            for (&r, &ov) in mh.score_ranks.iter().zip(&mh.ov_ranks) {
                assert!(
                    r <= mh.d_head.min(n) && ov <= mh.d_head,
                    "n {n} d {d} h {h}"
                );
            }
            // Random Gaussian projections: each bound is attained.
            assert_eq!(mh.score_ranks[0], mh.d_head.min(n));
            assert_eq!(mh.combined_ov_rank, d);
            assert!(mh.output_rank <= n.min(d));
        }
        // 3 does not divide 64: the largest divisor below it (2) is used.
        assert_eq!(multi_head(1, 8, 64, 3).heads, 2);
    }

    #[test]
    fn lora_parameter_counts_by_hand() {
        // 4096 × 4096 at r = 8: 16 777 216 against 8 · 8192 = 65 536, a factor of 256.
        assert_eq!(full_update_params(4096, 4096), 16_777_216.0);
        assert_eq!(lora_params(4096, 4096, 8), 65_536.0);
        assert_eq!(lora_params(8192, 28672, 16), 16.0 * 36_864.0);
    }

    #[test]
    fn decaying_update_has_the_spectrum_it_was_built_with() {
        let m = decaying_update(5, 32, 1.5);
        let sv = singular_values(&m);
        for (i, s) in sv.iter().enumerate() {
            assert!((s - ((i + 1) as f64).powf(-1.5)).abs() < 1e-12, "σ_{i}");
        }
    }

    #[test]
    fn effective_rank_by_hand() {
        assert!((effective_rank(&[1.0, 1.0, 1.0, 1.0]) - 4.0).abs() < 1e-14);
        assert!((effective_rank(&[5.0, 0.0, 0.0]) - 1.0).abs() < 1e-14);
        assert_eq!(effective_rank(&[0.0, 0.0]), 0.0);
    }
}
