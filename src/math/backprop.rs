//! Pass 1 — the scores that feed the softmax, and how their scale decides its Jacobian.
//!
//! Raw scores z_j = q·k_j with q, k_j ~ N(0, I_{d_k}); the softmax sees
//! s = α·z/√d_k when dividing and s = α·z when not. For independent unit-variance
//! entries Var(q·k) = d_k, so without the division the logits grow like √d_k and the
//! softmax saturates: every entry of J = diag(p) − ppᵀ goes to zero.

use crate::math::rng::SeededStream;
use crate::math::softmax::{jacobian_frobenius, softmax_into};

/// Fewest tokens the figures accept.
pub const MIN_TOKENS: usize = 2;
/// Most tokens the figures accept.
pub const MAX_TOKENS: usize = 64;
/// Largest key dimension d_k (a power of two); queries and keys are drawn at this width
/// and a smaller d_k uses their first d_k coordinates, so moving d_k re-uses the draws.
pub const MAX_DK: usize = 1024;
/// Monte-Carlo samples per point of the ‖J‖-against-d_k curve.
pub const SWEEP_SAMPLES: usize = 256;
/// The d_k values of the sweep: 1, 2, 4, …, 1024.
pub const SWEEP_DKS: [usize; 11] = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024];

const STREAM_QUERY: u64 = 1;
const STREAM_KEY: u64 = 2;
const STREAM_SWEEP: u64 = 3;

/// The factor applied to raw scores: s = scale·z with scale = α/√d_k when `divide`,
/// else α.
pub fn score_scale(alpha: f64, d_k: usize, divide: bool) -> f64 {
    if divide {
        alpha / (d_k.max(1) as f64).sqrt()
    } else {
        alpha
    }
}

/// s = scale · z, elementwise.
pub fn scaled_scores(raw: &[f64], scale: f64) -> Vec<f64> {
    raw.iter().map(|z| scale * z).collect()
}

/// Raw scores z_j = q·k_j, j = 0…n−1, for q, k_j ~ N(0, I_{d_k}) drawn from `seed`.
///
/// q and each k_j come from their own stream, and d_k < 1024 takes the first d_k
/// coordinates of 1024-wide draws: adding a token or changing d_k keeps the other draws.
/// `n` is clamped to 2…64 and `d_k` to 1…1024.
pub fn sample_raw_scores(seed: u64, n: usize, d_k: usize) -> Vec<f64> {
    let n = n.clamp(MIN_TOKENS, MAX_TOKENS);
    let d_k = d_k.clamp(1, MAX_DK);
    let q = SeededStream::new(seed, &[STREAM_QUERY]).standard_normal_vec(MAX_DK);
    (0..n)
        .map(|j| {
            let k = SeededStream::new(seed, &[STREAM_KEY, j as u64]).standard_normal_vec(MAX_DK);
            q[..d_k].iter().zip(&k[..d_k]).map(|(a, b)| a * b).sum()
        })
        .collect()
}

/// Monte-Carlo draws of the raw scores for every d_k of [`SWEEP_DKS`].
///
/// Exact reparametrisation: given q, the scores q·k_j with k_j ~ N(0, I) are independent
/// N(0, ‖q‖²), so z = ‖q‖·g with g ~ N(0, I_n) and ‖q‖² ~ χ²(d_k). This draws the same
/// joint law as sampling q and K in full, in O(n) per sample instead of O(n·d_k).
/// The χ² values are nested (‖q_{1:2d}‖² = ‖q_{1:d}‖² + χ²(d)), as for real prefixes.
#[derive(Clone, Debug, PartialEq)]
pub struct DkSweepSamples {
    /// Tokens per sample.
    pub n: usize,
    /// ‖q‖ for each sample (outer) and each d_k of the sweep (inner).
    pub query_norms: Vec<[f64; SWEEP_DKS.len()]>,
    /// g for each sample: n standard normals, shared across d_k.
    pub directions: Vec<Vec<f64>>,
}

/// Draws [`SWEEP_SAMPLES`] samples of n-token scores for the d_k sweep from `seed`.
pub fn sample_dk_sweep(seed: u64, n: usize) -> DkSweepSamples {
    let n = n.clamp(MIN_TOKENS, MAX_TOKENS);
    let mut query_norms = Vec::with_capacity(SWEEP_SAMPLES);
    let mut directions = Vec::with_capacity(SWEEP_SAMPLES);
    for sample in 0..SWEEP_SAMPLES {
        let mut stream = SeededStream::new(seed, &[STREAM_SWEEP, sample as u64]);
        directions.push(stream.standard_normal_vec(n));
        let mut norms = [0.0; SWEEP_DKS.len()];
        let mut squared = 0.0;
        let mut previous_dk = 0;
        for (slot, &d_k) in norms.iter_mut().zip(SWEEP_DKS.iter()) {
            squared += stream.chi_squared((d_k - previous_dk) as f64);
            previous_dk = d_k;
            *slot = squared.sqrt();
        }
        query_norms.push(norms);
    }
    DkSweepSamples {
        n,
        query_norms,
        directions,
    }
}

/// The mean ‖J‖_F against d_k, with and without the division by √d_k.
#[derive(Clone, Debug, PartialEq)]
pub struct DkSweepCurve {
    /// The d_k values (x axis).
    pub d_k: Vec<usize>,
    /// E‖J‖_F for s = α·z/√d_k.
    pub with_division: Vec<f64>,
    /// E‖J‖_F for s = α·z.
    pub without_division: Vec<f64>,
}

/// E‖J(softmax(s))‖_F over the samples, for each d_k, both scalings, at logit scale α.
///
/// Runs on every move of α: one reused buffer, no allocation per sample.
pub fn mean_jacobian_norm_vs_dk(samples: &DkSweepSamples, alpha: f64) -> DkSweepCurve {
    let mut p = vec![0.0; samples.n];
    let mut mean_norm = |dk_index: usize, divide: bool| {
        let scale = score_scale(alpha, SWEEP_DKS[dk_index], divide);
        let total: f64 = samples
            .directions
            .iter()
            .zip(&samples.query_norms)
            .map(|(g, norms)| {
                let c = scale * norms[dk_index];
                softmax_into(g.iter().map(|x| c * x), &mut p);
                jacobian_frobenius(&p)
            })
            .sum();
        total / samples.directions.len().max(1) as f64
    };
    let with_division = (0..SWEEP_DKS.len()).map(|i| mean_norm(i, true)).collect();
    let without_division = (0..SWEEP_DKS.len()).map(|i| mean_norm(i, false)).collect();
    DkSweepCurve {
        d_k: SWEEP_DKS.to_vec(),
        with_division,
        without_division,
    }
}

/// Whether a distribution counts as saturated on the page: max p > 0.99.
pub fn is_saturated(max_p: f64) -> bool {
    max_p > 0.99
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::softmax::softmax;

    /// Arithmetic mean of `xs`.
    fn mean(xs: &[f64]) -> f64 {
        xs.iter().sum::<f64>() / xs.len() as f64
    }

    #[test]
    fn division_makes_the_score_variance_one() {
        // Var(q·k) = d_k for unit-variance entries; dividing by √d_k brings it back to 1.
        for d_k in [4usize, 64, 256] {
            let z: Vec<f64> = (0..400u64)
                .flat_map(|seed| sample_raw_scores(seed, 8, d_k))
                .collect();
            let var_raw = z.iter().map(|x| x * x).sum::<f64>() / z.len() as f64;
            let s = scaled_scores(&z, score_scale(1.0, d_k, true));
            let var_scaled = s.iter().map(|x| x * x).sum::<f64>() / s.len() as f64;
            assert!(
                (var_raw / d_k as f64 - 1.0).abs() < 0.1,
                "d_k={d_k}: Var z = {var_raw}"
            );
            assert!(
                (var_scaled - 1.0).abs() < 0.1,
                "d_k={d_k}: Var s = {var_scaled}"
            );
        }
    }

    #[test]
    fn score_scale_by_hand() {
        assert_eq!(score_scale(2.0, 64, true), 0.25);
        assert_eq!(score_scale(2.0, 64, false), 2.0);
    }

    #[test]
    fn raw_scores_are_prefix_consistent_in_tokens() {
        let eight = sample_raw_scores(5, 8, 64);
        let twelve = sample_raw_scores(5, 12, 64);
        assert_eq!(eight[..], twelve[..8]);
    }

    #[test]
    fn raw_scores_are_the_dot_products_of_the_drawn_vectors() {
        let q = SeededStream::new(9, &[STREAM_QUERY]).standard_normal_vec(MAX_DK);
        let k1 = SeededStream::new(9, &[STREAM_KEY, 1]).standard_normal_vec(MAX_DK);
        let by_hand: f64 = (0..3).map(|m| q[m] * k1[m]).sum();
        assert!((sample_raw_scores(9, 2, 3)[1] - by_hand).abs() < 1e-15);
    }

    #[test]
    fn out_of_range_sizes_are_clamped_not_panicking() {
        assert_eq!(sample_raw_scores(1, 0, 0).len(), MIN_TOKENS);
        assert_eq!(sample_raw_scores(1, 1000, 1 << 20).len(), MAX_TOKENS);
    }

    #[test]
    fn reparametrised_sweep_matches_brute_force_sampling() {
        // E‖J‖_F at d_k = 16, n = 8, α = 1, no division: the χ² reparametrisation (8 seeds ×
        // 256 samples) against drawing q and K in full (4000 samples). Standard errors of
        // the two means are ≈ 0.004 and 0.002; 0.02 is five of them.
        // Test only: 16 is one of SWEEP_DKS (a constant), so the position exists.
        let i16 = SWEEP_DKS.iter().position(|&d| d == 16).unwrap();
        let reparam = mean(
            &(0..8u64)
                .map(|seed| {
                    mean_jacobian_norm_vs_dk(&sample_dk_sweep(seed, 8), 1.0).without_division[i16]
                })
                .collect::<Vec<_>>(),
        );
        let brute = mean(
            &(0..4000u64)
                .map(|seed| jacobian_frobenius(&softmax(&sample_raw_scores(seed + 100, 8, 16))))
                .collect::<Vec<_>>(),
        );
        assert!(
            (reparam - brute).abs() < 0.02,
            "reparametrised {reparam} vs brute force {brute}"
        );
    }

    #[test]
    fn sweep_query_norms_have_chi_squared_means() {
        let samples = sample_dk_sweep(2, 4);
        for (i, &d_k) in SWEEP_DKS.iter().enumerate() {
            let m = mean(
                &samples
                    .query_norms
                    .iter()
                    .map(|q| q[i] * q[i])
                    .collect::<Vec<_>>(),
            );
            let sd_of_mean = (2.0 * d_k as f64 / SWEEP_SAMPLES as f64).sqrt();
            assert!(
                (m - d_k as f64).abs() < 4.0 * sd_of_mean,
                "d_k={d_k}: mean ‖q‖² {m}"
            );
        }
    }

    #[test]
    fn without_division_the_jacobian_collapses_as_dk_grows() {
        let curve = mean_jacobian_norm_vs_dk(&sample_dk_sweep(1, 8), 1.0);
        let last = curve.without_division.len() - 1;
        assert!(curve.without_division[last] < 0.3 * curve.without_division[0]);
        // With the division the curve is flat: the law of s does not depend on d_k… up to
        // the χ² spread of ‖q‖, which shrinks relative to its mean; stays within 35 %.
        let (lo, hi) = curve
            .with_division
            .iter()
            .fold((f64::MAX, 0.0f64), |(lo, hi), &v| (lo.min(v), hi.max(v)));
        assert!(hi / lo < 1.35, "with division ranges {lo}…{hi}");
    }

    #[test]
    fn sweep_is_finite_at_the_extremes() {
        let curve = mean_jacobian_norm_vs_dk(&sample_dk_sweep(3, MAX_TOKENS), 50.0);
        assert!(curve
            .with_division
            .iter()
            .chain(&curve.without_division)
            .all(|v| v.is_finite()));
    }

    #[test]
    fn saturation_threshold() {
        assert!(is_saturated(0.995));
        assert!(!is_saturated(0.99));
    }
}
