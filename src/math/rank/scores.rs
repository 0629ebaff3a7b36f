//! What the `score-rank` figure reads: S, A = softmax(S), their spectra and ranks, and
//! the error curve of best rank-k approximations.

use nalgebra::DMatrix;

use super::{
    effective_rank, numerical_rank, rank_k_relative_error, row_softmax, score_matrix,
    score_singular_values_fast, token_matrix,
};

/// What `score-rank` shows of S: S, A and the spectrum of S (cheap, through the thin-QR
/// fast path), computed on the page for small n and in the worker for large n. A's
/// spectrum ([`Spectrum`]) comes from the worker.
#[derive(Clone, Debug, PartialEq)]
pub struct ScoreRank {
    pub n: usize,
    pub d_k: usize,
    pub s: DMatrix<f64>,
    pub a: DMatrix<f64>,
    /// σ(S) from the thin-QR fast path (the last n − min(n, d_k) are exactly zero).
    pub sv_s: Vec<f64>,
    pub rank_s: usize,
    pub erank_s: f64,
}

/// Q, K ~ N(0, 1)^{n×d_k} from `seed`; S, A and the spectrum of S.
pub fn score_rank(seed: u64, n: usize, d_k: usize) -> ScoreRank {
    let (q, k) = (token_matrix(seed, 1, n, d_k), token_matrix(seed, 2, n, d_k));
    let s = score_matrix(&q, &k);
    let a = row_softmax(&s);
    let sv_s = score_singular_values_fast(&q, &k);
    ScoreRank {
        n,
        d_k,
        rank_s: numerical_rank(&sv_s, n, n),
        erank_s: effective_rank(&sv_s),
        s,
        a,
        sv_s,
    }
}

impl ScoreRank {
    /// Flat form, for a worker's answer: S and A column by column, then σ(S)
    /// (2n² + n numbers).
    pub fn to_flat(&self) -> Vec<f64> {
        let mut flat = Vec::with_capacity(2 * self.n * self.n + self.sv_s.len());
        flat.extend_from_slice(self.s.as_slice());
        flat.extend_from_slice(self.a.as_slice());
        flat.extend_from_slice(&self.sv_s);
        flat
    }

    /// Reads [`ScoreRank::to_flat`] back for an n × n score matrix of inner dimension
    /// `d_k` (the ranks computed from σ(S) as [`score_rank`] does); `None` unless `flat`
    /// holds 2n² + n numbers.
    pub fn from_flat(n: usize, d_k: usize, flat: &[f64]) -> Option<Self> {
        let (s, rest) = flat.split_at_checked(n * n)?;
        let (a, sv_s) = rest.split_at_checked(n * n)?;
        (sv_s.len() == n).then(|| ScoreRank {
            n,
            d_k,
            s: DMatrix::from_column_slice(n, n, s),
            a: DMatrix::from_column_slice(n, n, a),
            rank_s: numerical_rank(sv_s, n, n),
            erank_s: effective_rank(sv_s),
            sv_s: sv_s.to_vec(),
        })
    }
}

/// A spectrum with its numerical and effective rank.
#[derive(Clone, Debug, PartialEq)]
pub struct Spectrum {
    pub sv: Vec<f64>,
    pub rank: usize,
    pub erank: f64,
}

impl Spectrum {
    /// From the singular values of an n × n matrix.
    pub fn of(sv: Vec<f64>, n: usize) -> Self {
        Self {
            rank: numerical_rank(&sv, n, n),
            erank: effective_rank(&sv),
            sv,
        }
    }
}

/// The relative error of the best rank-k approximation for k = 0…r, from r singular
/// values ([`rank_k_relative_error`]); empty while there are none yet (nothing computed).
pub fn relative_errors(sigma: &[f64]) -> Vec<f64> {
    if sigma.is_empty() {
        return Vec::new();
    }
    (0..=sigma.len())
        .map(|k| rank_k_relative_error(sigma, k))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_errors_run_from_one_at_k_zero_to_zero_at_full_rank() {
        // σ = (4, 3): ‖T‖_F² = 25; dropping σ₂ = 3 leaves √(9/25) = 0.6.
        let e = relative_errors(&[4.0, 3.0]);
        assert_eq!(e.len(), 3);
        assert!((e[0] - 1.0).abs() < 1e-15 && (e[1] - 0.6).abs() < 1e-15 && e[2] == 0.0);
    }

    #[test]
    fn no_relative_error_is_claimed_before_any_singular_value_is_known() {
        assert!(relative_errors(&[]).is_empty());
    }
}
