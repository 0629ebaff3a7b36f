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

/// n × d matrix of independent N(0, 1) entries from `seed` and `stream`.
pub fn gaussian_matrix(seed: u64, stream: u64, rows: usize, cols: usize) -> DMatrix<f64> {
    let mut s = SeededStream::new(seed, &[0x5ABC, stream]);
    DMatrix::from_fn(rows, cols, |_, _| s.standard_normal())
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
    fn effective_rank_by_hand() {
        assert!((effective_rank(&[1.0, 1.0, 1.0, 1.0]) - 4.0).abs() < 1e-14);
        assert!((effective_rank(&[5.0, 0.0, 0.0]) - 1.0).abs() < 1e-14);
        assert_eq!(effective_rank(&[0.0, 0.0]), 0.0);
    }
}
