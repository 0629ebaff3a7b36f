//! The softmax and its Jacobian: the only door through which a gradient reaches W_Q and W_K.
//!
//! For scores s ∈ ℝⁿ, p = softmax(s) with p_i = e^{s_i} / Σ_j e^{s_j}, and
//! J_ij = ∂p_i/∂s_j = p_i (δ_ij − p_j), i.e. J = diag(p) − p pᵀ. J is symmetric, positive
//! semi-definite, its rows sum to zero (J·1 = p − p·Σp = 0) and ‖J‖₂ ≤ ½.

use nalgebra::{DMatrix, SymmetricEigen};

/// Softmax of `s`, computed stably: p_i = e^{s_i − max s} / Σ_j e^{s_j − max s}.
///
/// Total for finite input of any magnitude (no overflow: every exponent is ≤ 0, and the
/// largest term is exactly 1, so the sum is ≥ 1). Non-finite entries are treated as −∞
/// except +∞, which takes all the mass; an empty input gives an empty output.
pub fn softmax(s: &[f64]) -> Vec<f64> {
    if s.is_empty() {
        return Vec::new();
    }
    let clean: Vec<f64> = s
        .iter()
        .map(|&x| if x.is_nan() { f64::NEG_INFINITY } else { x })
        .collect();
    let top = clean.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if top == f64::NEG_INFINITY {
        return vec![1.0 / s.len() as f64; s.len()];
    }
    let exps: Vec<f64> = if top == f64::INFINITY {
        clean
            .iter()
            .map(|&x| if x == f64::INFINITY { 1.0 } else { 0.0 })
            .collect()
    } else {
        clean.iter().map(|&x| (x - top).exp()).collect()
    };
    let total: f64 = exps.iter().sum();
    exps.iter().map(|e| e / total).collect()
}

/// Softmax of finite scores written into `out` (same length), without allocating:
/// out_i = e^{s_i − max s} / Σ_j e^{s_j − max s}. Used on hot paths; [`softmax`] is the
/// general, total version.
pub fn softmax_into(scores: impl Iterator<Item = f64> + Clone, out: &mut [f64]) {
    let top = scores.clone().fold(f64::NEG_INFINITY, f64::max);
    let mut total = 0.0;
    for (slot, s) in out.iter_mut().zip(scores) {
        *slot = if top.is_finite() {
            (s - top).exp()
        } else {
            1.0
        };
        total += *slot;
    }
    for slot in out.iter_mut() {
        *slot /= total;
    }
}

/// The softmax Jacobian J = diag(p) − p pᵀ, an n×n matrix with J_ij = p_i (δ_ij − p_j).
pub fn softmax_jacobian(p: &[f64]) -> DMatrix<f64> {
    let n = p.len();
    DMatrix::from_fn(n, n, |i, j| {
        if i == j {
            p[i] * (1.0 - p[i])
        } else {
            -p[i] * p[j]
        }
    })
}

/// ‖J‖_F of the softmax Jacobian in closed form, O(n):
/// ‖J‖_F² = Σ p_i² − 2 Σ p_i³ + (Σ p_i²)².
///
/// Evaluated term by term as Σ_i p_i²(1 − p_i)² + Σ_i p_i² Σ_{j≠i} p_j², with 1 − p_k and
/// Σ_{j≠k} p_j² of the largest p_k summed from the other entries rather than subtracted
/// from 1: near saturation the textbook form cancels catastrophically (1 − 2 + 1).
pub fn jacobian_frobenius(p: &[f64]) -> f64 {
    let Some((k, &p_k)) = p.iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1)) else {
        return 0.0;
    };
    // One pass over the other entries: with r = Σ_{i≠k} p_i (= 1 − p_k) and
    // r₂ = Σ_{i≠k} p_i², ‖J‖_F² = p_k²(r² + r₂) + Σ_{i≠k} p_i²((1 − p_i)² + p_k² − p_i²) + r₂².
    let (mut rest, mut rest_sq, mut others) = (0.0, 0.0, 0.0);
    let p_k2 = p_k * p_k;
    for (i, &x) in p.iter().enumerate() {
        if i != k {
            let x2 = x * x;
            rest += x;
            rest_sq += x2;
            others += x2 * ((1.0 - x) * (1.0 - x) + p_k2 - x2);
        }
    }
    (p_k2 * (rest * rest + rest_sq) + others + rest_sq * rest_sq)
        .max(0.0)
        .sqrt()
}

/// Spectral norm ‖M‖₂ of a symmetric matrix: the largest |eigenvalue|.
pub fn symmetric_spectral_norm(m: &DMatrix<f64>) -> f64 {
    if m.is_empty() {
        return 0.0;
    }
    SymmetricEigen::new(m.clone())
        .eigenvalues
        .iter()
        .fold(0.0_f64, |acc, l| acc.max(l.abs()))
}

/// Shannon entropy of a distribution in nats, H(p) = −Σ p_i ln p_i (with 0 ln 0 = 0).
pub fn entropy_nats(p: &[f64]) -> f64 {
    p.iter()
        .filter(|&&x| x > 0.0)
        .map(|&x| -x * x.ln())
        .sum::<f64>()
        .max(0.0)
}

/// The four numbers read out beside the Jacobian heatmap.
#[derive(Clone, Debug, PartialEq)]
pub struct JacobianSummary {
    /// ‖J‖_F.
    pub frobenius: f64,
    /// ‖J‖₂, the largest eigenvalue of J (J is positive semi-definite).
    pub spectral: f64,
    /// max_i p_i.
    pub max_p: f64,
    /// H(p) in nats.
    pub entropy: f64,
}

/// Summarises a distribution p through its softmax Jacobian.
pub fn jacobian_summary(p: &[f64], jacobian: &DMatrix<f64>) -> JacobianSummary {
    JacobianSummary {
        frobenius: jacobian_frobenius(p),
        spectral: symmetric_spectral_norm(jacobian),
        max_p: p.iter().copied().fold(0.0, f64::max),
        entropy: entropy_nats(p),
    }
}

/// Plain forms the tests check faster or more specialised code against; the page never
/// calls them.
pub mod reference {
    use nalgebra::{DMatrix, SymmetricEigen};

    /// The product J·v of the softmax Jacobian with a vector, in O(n) without forming J:
    /// (J v)_i = p_i (v_i − Σ_j p_j v_j). J is symmetric, so this is also Jᵀv, the
    /// vector–Jacobian product backpropagation needs: ∂L/∂s = J · ∂L/∂p.
    pub fn softmax_vjp(p: &[f64], v: &[f64]) -> Vec<f64> {
        let mean: f64 = p.iter().zip(v).map(|(p, v)| p * v).sum();
        p.iter().zip(v).map(|(p, v)| p * (v - mean)).collect()
    }

    /// Eigenvalues of a symmetric matrix, ascending.
    pub fn symmetric_eigenvalues(m: &DMatrix<f64>) -> Vec<f64> {
        let mut ev: Vec<f64> = SymmetricEigen::new(m.clone())
            .eigenvalues
            .iter()
            .copied()
            .collect();
        ev.sort_by(f64::total_cmp);
        ev
    }
}

#[cfg(test)]
mod tests {
    use super::reference::{softmax_vjp, symmetric_eigenvalues};
    use super::*;
    use proptest::prelude::*;

    fn scores() -> Vec<f64> {
        vec![1.5, -0.2, 0.3, 2.0, -1.0]
    }

    #[test]
    fn softmax_sums_to_one_and_orders_like_its_input() {
        let p = softmax(&scores());
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-15);
        assert!(p[3] > p[0] && p[0] > p[2] && p[2] > p[1] && p[1] > p[4]);
    }

    #[test]
    fn softmax_of_two_scores_is_the_logistic_function() {
        // By hand: softmax([a, 0])_0 = 1 / (1 + e^{-a}).
        let p = softmax(&[0.7, 0.0]);
        assert!((p[0] - 1.0 / (1.0 + (-0.7f64).exp())).abs() < 1e-15);
    }

    #[test]
    fn softmax_is_stable_for_huge_scores() {
        let p = softmax(&[50_000.0, 49_990.0, -50_000.0]);
        assert!(p.iter().all(|x| x.is_finite()));
        assert!((p[0] - 1.0 / (1.0 + (-10.0f64).exp())).abs() < 1e-12);
        assert_eq!(p[2], 0.0);
    }

    #[test]
    fn softmax_handles_non_finite_input_without_nan() {
        let p = softmax(&[f64::NAN, 1.0, f64::INFINITY]);
        assert_eq!(p, vec![0.0, 0.0, 1.0]);
        let q = softmax(&[f64::NEG_INFINITY, f64::NEG_INFINITY]);
        assert_eq!(q, vec![0.5, 0.5]);
    }

    #[test]
    fn jacobian_matches_central_finite_differences() {
        let s = scores();
        let j = softmax_jacobian(&softmax(&s));
        let h = 1e-6;
        for col in 0..s.len() {
            let mut up = s.clone();
            let mut down = s.clone();
            up[col] += h;
            down[col] -= h;
            let (pu, pd) = (softmax(&up), softmax(&down));
            for row in 0..s.len() {
                let fd = (pu[row] - pd[row]) / (2.0 * h);
                assert!(
                    (fd - j[(row, col)]).abs() < 1e-9,
                    "J[{row},{col}] = {} vs {fd}",
                    j[(row, col)]
                );
            }
        }
    }

    #[test]
    fn jacobian_entries_by_hand_for_two_tokens() {
        // p = (0.25, 0.75): J = [[0.1875, -0.1875], [-0.1875, 0.1875]].
        let j = softmax_jacobian(&[0.25, 0.75]);
        for (i, jj, v) in [
            (0, 0, 0.1875),
            (0, 1, -0.1875),
            (1, 0, -0.1875),
            (1, 1, 0.1875),
        ] {
            assert!((j[(i, jj)] - v).abs() < 1e-15);
        }
        // Its only non-zero eigenvalue is 2 p0 p1 = 0.375.
        assert!((symmetric_spectral_norm(&j) - 0.375).abs() < 1e-14);
    }

    #[test]
    fn vjp_equals_the_jacobian_times_the_vector() {
        let p = softmax(&scores());
        let v = [0.3, -1.2, 2.0, 0.5, -0.7];
        let direct = softmax_jacobian(&p) * nalgebra::DVector::from_column_slice(&v);
        for (a, b) in softmax_vjp(&p, &v).iter().zip(direct.iter()) {
            assert!((a - b).abs() < 1e-15);
        }
    }

    #[test]
    fn jacobian_rows_sum_to_zero() {
        let j = softmax_jacobian(&softmax(&scores()));
        for row in j.row_iter() {
            assert!(row.sum().abs() < 1e-15);
        }
    }

    #[test]
    fn jacobian_is_symmetric() {
        let j = softmax_jacobian(&softmax(&scores()));
        assert_eq!(j, j.transpose());
    }

    #[test]
    fn uniform_p_gives_spectral_norm_one_over_n() {
        for n in [2usize, 3, 8, 64] {
            let p = vec![1.0 / n as f64; n];
            let norm = symmetric_spectral_norm(&softmax_jacobian(&p));
            assert!((norm - 1.0 / n as f64).abs() < 1e-14, "n={n}: {norm}");
        }
    }

    #[test]
    fn one_hot_p_gives_the_zero_jacobian() {
        let j = softmax_jacobian(&[0.0, 1.0, 0.0]);
        assert!(j.iter().all(|&x| x == 0.0));
        assert_eq!(jacobian_frobenius(&[0.0, 1.0, 0.0]), 0.0);
    }

    #[test]
    fn stable_at_alpha_50_with_dk_1024_and_no_division() {
        // Raw scores of that size (q·k with d_k = 1024 has standard deviation 32),
        // multiplied by α = 50: |s| up to ~5000. Nothing overflows, J stays finite.
        let s: Vec<f64> = [40.0, -35.0, 90.0, 12.0, -100.0]
            .iter()
            .map(|z| 50.0 * z)
            .collect();
        let p = softmax(&s);
        let j = softmax_jacobian(&p);
        assert!(p.iter().chain(j.iter()).all(|x| x.is_finite()));
        assert_eq!(p[2], 1.0);
        assert!(jacobian_frobenius(&p) < 1e-300 || jacobian_frobenius(&p) == 0.0);
    }

    #[test]
    fn entropy_of_uniform_is_ln_n_and_of_one_hot_is_zero() {
        assert!((entropy_nats(&[0.25; 4]) - 4f64.ln()).abs() < 1e-15);
        assert_eq!(entropy_nats(&[0.0, 1.0]), 0.0);
    }

    fn logits(max_len: usize) -> impl Strategy<Value = Vec<f64>> {
        prop::collection::vec(-30.0f64..30.0, 2..max_len)
    }

    proptest! {
        #[test]
        fn jacobian_is_positive_semidefinite(s in logits(24)) {
            let ev = symmetric_eigenvalues(&softmax_jacobian(&softmax(&s)));
            prop_assert!(ev[0] > -1e-14, "smallest eigenvalue {}", ev[0]);
        }

        #[test]
        fn jacobian_spectral_norm_is_at_most_one_half(s in logits(24)) {
            let norm = symmetric_spectral_norm(&softmax_jacobian(&softmax(&s)));
            prop_assert!(norm <= 0.5 + 1e-14, "‖J‖₂ = {}", norm);
        }

        #[test]
        fn closed_form_frobenius_equals_the_matrix_norm(s in logits(24)) {
            let p = softmax(&s);
            let direct = softmax_jacobian(&p).norm();
            // The direct matrix loses 1 − p_k to rounding near saturation; both agree to ~1e-16.
            prop_assert!((jacobian_frobenius(&p) - direct).abs() <= 1e-14 + 1e-10 * direct);
        }

        #[test]
        fn frobenius_matches_the_textbook_closed_form_away_from_saturation(s in prop::collection::vec(-2.0f64..2.0, 2..24)) {
            let p = softmax(&s);
            let s2: f64 = p.iter().map(|x| x * x).sum();
            let s3: f64 = p.iter().map(|x| x * x * x).sum();
            prop_assert!((jacobian_frobenius(&p).powi(2) - (s2 - 2.0 * s3 + s2 * s2)).abs() < 1e-14);
        }

        #[test]
        fn softmax_into_equals_softmax(s in logits(24)) {
            let mut out = vec![0.0; s.len()];
            softmax_into(s.iter().copied(), &mut out);
            prop_assert_eq!(out, softmax(&s));
        }

        #[test]
        fn softmax_is_invariant_to_adding_a_constant(s in logits(16), c in -1e3f64..1e3) {
            let shifted: Vec<f64> = s.iter().map(|x| x + c).collect();
            let (a, b) = (softmax(&s), softmax(&shifted));
            for (x, y) in a.iter().zip(&b) {
                prop_assert!((x - y).abs() < 1e-9);
            }
        }
    }
}
