//! Norms that survive f64's range: the Frobenius norm with scaling where the plain sum of
//! squares would overflow or underflow, and ‖XᵀG‖_F from two small Gram matrices
//! without forming the product.

use nalgebra::DMatrix;

use crate::math::products::{times_transpose, transpose_times};

/// ‖M‖_F = √(Σ x²), with scaling when the plain sum of squares would overflow or
/// underflow: then ‖M‖_F = m · √(Σ (x/m)²) with m = max |x|. Non-finite entries give +∞.
pub fn frobenius_norm(m: &DMatrix<f64>) -> f64 {
    norm_of_parts(&[m.as_slice()])
}

/// The Euclidean norm of all the entries of `parts` taken together, overflow-safe as
/// [`frobenius_norm`]: one pass when Σ x² is a normal f64, a scaled second pass otherwise.
pub fn norm_of_parts(parts: &[&[f64]]) -> f64 {
    // Plain counting loops: the page is built for size, where iterator adapters are not
    // inlined (see products.rs).
    let mut sum_of_squares = 0.0;
    for part in parts {
        let mut i = 0;
        while i < part.len() {
            sum_of_squares += part[i] * part[i];
            i += 1;
        }
    }
    // Above 1e-200 the largest entry's square is far from the subnormals, so what
    // underflowed is negligible; below it, or on overflow or NaN, scale.
    if sum_of_squares.is_finite() && sum_of_squares > 1e-200 {
        return sum_of_squares.sqrt();
    }
    let Some(top) = largest_magnitude(parts) else {
        return f64::INFINITY;
    };
    if top == 0.0 {
        return 0.0;
    }
    let mut scaled = 0.0;
    for part in parts {
        let mut i = 0;
        while i < part.len() {
            let x = part[i] / top;
            scaled += x * x;
            i += 1;
        }
    }
    top * scaled.sqrt()
}

/// max |x| over every entry of `parts` (0 when there are none); None if one is not finite.
pub(super) fn largest_magnitude(parts: &[&[f64]]) -> Option<f64> {
    let mut top = 0.0_f64;
    for part in parts {
        let mut i = 0;
        while i < part.len() {
            let x = part[i].abs();
            if !x.is_finite() {
                return None;
            }
            // A comparison, not f64::max: both are finite here, and wasm has no
            // instruction for max's NaN rule, so max is a call into libm's fmax.
            if x > top {
                top = x;
            }
            i += 1;
        }
    }
    Some(top)
}

/// ‖XᵀG‖_F for X (T×a) and each G (T×b) of `gs`, without forming the a×b product when
/// T is the small side: ‖XᵀG‖²_F = tr(GᵀXXᵀG) = Σ_ij (XXᵀ)_ij (GGᵀ)_ij, two T×T Gram
/// matrices (XXᵀ formed once for all of `gs`). A factor whose Gram matrix would leave the
/// safe range (its diagonal outside 10^±120, where a product of entries could leave
/// f64's range) is first scaled by a power of two, exactly, and the norm scaled back:
/// ‖XᵀG‖ = 2^(e_X + e_G) ‖(2^−e_X X)ᵀ(2^−e_G G)‖ ([`scaled_gram`]). The product is
/// formed instead when that is cheaper, when a factor is zero or not finite, and when
/// the sum cancels (Σ (XXᵀ)_ij (GGᵀ)_ij < 10⁻⁴ Σ |(XXᵀ)_ij (GGᵀ)_ij|, where its rounding
/// error could matter): in every case the answer is [`frobenius_norm`]`(XᵀG)` to about
/// 10⁻¹⁰.
pub fn product_frobenius_norms(x: &DMatrix<f64>, gs: &[&DMatrix<f64>]) -> Vec<f64> {
    let (t, a) = x.shape();
    let gram_is_cheaper = |g: &DMatrix<f64>| g.nrows() == t && t * (a + g.ncols()) < a * g.ncols();
    let gram_x = if gs.iter().any(|g| gram_is_cheaper(g)) {
        scaled_gram(x)
    } else {
        None
    };
    gs.iter()
        .map(|&g| {
            gram_x
                .as_ref()
                .filter(|_| gram_is_cheaper(g))
                .and_then(|(xx, ex)| {
                    let (gg, eg) = scaled_gram(g)?;
                    Some(libm::scalbn(norm_from_grams(xx, &gg)?, ex + eg))
                })
                .unwrap_or_else(|| frobenius_norm(&transpose_times(x, g)))
        })
        .collect()
}

/// The Gram matrix MMᵀ when it is [`gram_safe`], with exponent 0; otherwise that of
/// M̃ = 2^−e M, with e = ⌊log₂ max |M|⌋ (so that max |M̃| lies in [1, 2) and M̃M̃ᵀ's
/// largest diagonal entry in [1, 4a] for M of a columns), and e. Scaling by a power of
/// two is exact, so ‖M̃ᵀ·‖ = 2^−e ‖Mᵀ·‖ to the bit. None when M is zero or has an entry
/// that is not finite.
pub(super) fn scaled_gram(m: &DMatrix<f64>) -> Option<(DMatrix<f64>, i32)> {
    let gram = times_transpose(m, m);
    if gram_safe(&gram) {
        return Some((gram, 0));
    }
    let top = largest_magnitude(&[m.as_slice()]).filter(|&top| top > 0.0)?;
    // Clamped so that 2^−e is a normal f64 and scaling M by it is exact.
    let e = libm::ilogb(top).clamp(-1022, 1022);
    let scaled = m * libm::scalbn(1.0, -e);
    let gram = times_transpose(&scaled, &scaled);
    gram_safe(&gram).then_some((gram, e))
}

/// √(Σ_ij (XXᵀ)_ij (GGᵀ)_ij) = ‖XᵀG‖_F from the two Gram matrices; None when the sum
/// cancels below 10⁻⁴ of Σ |(XXᵀ)_ij (GGᵀ)_ij|.
pub(super) fn norm_from_grams(xx: &DMatrix<f64>, gg: &DMatrix<f64>) -> Option<f64> {
    let (p, q) = (xx.as_slice(), gg.as_slice());
    let (mut sum, mut magnitude) = (0.0, 0.0);
    let mut i = 0;
    while i < p.len().min(q.len()) {
        let term = p[i] * q[i];
        sum += term;
        magnitude += term.abs();
        i += 1;
    }
    (sum >= 1e-4 * magnitude).then(|| sum.sqrt())
}

/// True when a Gram matrix MMᵀ is safe to multiply entrywise: its diagonal (the rows'
/// squared norms, which bound every entry) is finite, and its largest lies in
/// [10⁻¹²⁰, 10¹²⁰], so products of two entries stay normal f64s and what underflowed is
/// negligible. NaN anywhere in M makes its diagonal NaN and fails too.
pub(super) fn gram_safe(gram: &DMatrix<f64>) -> bool {
    let (n, entries) = (gram.nrows().min(gram.ncols()), gram.as_slice());
    let mut top = 0.0_f64;
    let mut i = 0;
    while i < n {
        let diagonal = entries[i * gram.nrows() + i];
        if !diagonal.is_finite() {
            return false;
        }
        top = top.max(diagonal);
        i += 1;
    }
    (1e-120..=1e120).contains(&top)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::math::stability::test_support::*;

    #[test]
    fn largest_magnitude_is_the_largest_absolute_entry_and_none_past_overflow() {
        assert_eq!(largest_magnitude(&[]), Some(0.0));
        assert_eq!(largest_magnitude(&[&[1.0, -3.5], &[], &[2.0]]), Some(3.5));
        assert_eq!(largest_magnitude(&[&[-0.0]]), Some(0.0));
        assert_eq!(largest_magnitude(&[&[1.0], &[f64::NEG_INFINITY]]), None);
        assert_eq!(largest_magnitude(&[&[f64::NAN, 1.0]]), None);
    }

    #[test]
    fn product_norm_of_an_outer_product_is_the_product_of_the_norms() {
        // One token (T = 1): XᵀG = x gᵀ, an outer product, with ‖x gᵀ‖ = ‖x‖‖g‖ = 3 · 7.
        let x = DMatrix::from_row_slice(1, 3, &[1.0, 2.0, 2.0]);
        let g = DMatrix::from_row_slice(1, 3, &[2.0, 3.0, 6.0]);
        assert_eq!(product_frobenius_norms(&x, &[&g]), vec![21.0]);
    }

    #[test]
    fn product_norm_equals_the_norm_of_the_formed_product() {
        // Shapes where the Gram route is cheaper and where it is not, and inputs scaled
        // far outside 10^±60, where it must fall back.
        for (t, a, b) in [
            (8, 32, 128),
            (8, 128, 32),
            (4, 16, 16),
            (16, 16, 16),
            (3, 2, 5),
        ] {
            for scale in [1.0, 1e-3, 1e100, 1e-170] {
                let x = random(30, t, a) * scale;
                let g = random(31, t, b);
                let expected = frobenius_norm(&transpose_times(&x, &g));
                let got = product_frobenius_norms(&x, &[&g])[0];
                assert!(
                    (got - expected).abs() <= 1e-12 * expected,
                    "{t}×{a}, {t}×{b}, scale {scale}: {got} vs {expected}"
                );
            }
        }
    }

    #[test]
    fn scaling_a_factor_by_a_power_of_two_changes_only_the_grams_exponent() {
        // 2^k·M for k far outside the safe range: the Gram matrix of the scaled factor is
        // the same to the bit, and the exponent moves by the difference.
        let m = random(34, 8, 32);
        let at = |k: i32| scaled_gram(&(&m * libm::scalbn(1.0, k)));
        // Test only: each factor is finite and non-zero, so it has a (scaled) Gram matrix.
        let (gram_a, e_a) = at(500).expect("Test only: a finite non-zero factor");
        let (gram_b, e_b) = at(510).expect("Test only: a finite non-zero factor");
        assert_eq!(gram_a, gram_b);
        assert_eq!(e_b - e_a, 10);
        let (_, e_small) = at(-1000).expect("Test only: a finite non-zero factor");
        assert_eq!(e_a - e_small, 1500);
        // Subnormal entries (2^−1060 · M) are scaled by at most 2^1022, still exactly,
        // and their Gram matrix is then safe.
        let (_, e_subnormal) = at(-1060).expect("Test only: a finite non-zero factor");
        assert_eq!(e_subnormal, -1022);
        assert_eq!(
            at(0).map(|(_, e)| e),
            Some(0),
            "a safe Gram matrix is left unscaled"
        );
    }

    #[test]
    fn a_zero_or_non_finite_factor_has_no_scaled_gram() {
        assert!(scaled_gram(&DMatrix::zeros(4, 6)).is_none());
        let mut m = random(35, 4, 6);
        m[(1, 2)] = f64::INFINITY;
        assert!(scaled_gram(&m).is_none());
    }

    #[test]
    fn product_norm_of_factors_beyond_the_gram_range_matches_the_formed_product() {
        // X ~ 10^150 and G ~ 10^-170: the Gram matrices alone would leave f64's range; the
        // product XᵀG (~10^-20) does not.
        let x = random(36, 8, 32) * 1e150;
        let g = random(37, 8, 96) * 1e-170;
        let expected = frobenius_norm(&transpose_times(&x, &g));
        let got = product_frobenius_norms(&x, &[&g])[0];
        assert!(
            (got - expected).abs() <= 1e-12 * expected,
            "{got} vs {expected}"
        );
    }

    #[test]
    fn product_norm_is_exact_where_the_gram_sum_cancels() {
        // Two tokens with the same input and nearly opposite gradients: XᵀG = e₁ ⊗ (−10⁻⁹w)
        // is tiny while both Gram matrices are of order one.
        let (v, w) = (random(32, 1, 40), random(33, 1, 40));
        let mut x = DMatrix::zeros(2, 40);
        x[(0, 0)] = 1.0;
        x[(1, 0)] = 1.0;
        let mut g = DMatrix::zeros(2, 40);
        g.row_mut(0).copy_from(&v);
        g.row_mut(1).copy_from(&(-(&v + &w * 1e-9)));
        let expected = 1e-9 * frobenius_norm(&w);
        let got = product_frobenius_norms(&x, &[&g])[0];
        assert!(
            (got - expected).abs() <= 1e-6 * expected,
            "{got} vs {expected}"
        );
    }

    #[test]
    fn product_norm_of_non_finite_factors_is_infinite() {
        let mut x = random(34, 4, 32);
        let g = random(35, 4, 32);
        x[(1, 3)] = f64::NAN;
        assert_eq!(product_frobenius_norms(&x, &[&g]), vec![f64::INFINITY]);
        x[(1, 3)] = f64::INFINITY;
        assert_eq!(product_frobenius_norms(&x, &[&g]), vec![f64::INFINITY]);
    }

    #[test]
    fn frobenius_norm_survives_entries_near_the_f64_limit() {
        let m = DMatrix::from_element(2, 2, 1e200);
        assert!((frobenius_norm(&m) - 2e200).abs() < 1e186);
        let mut bad = m.clone();
        bad[0] = f64::NAN;
        assert_eq!(frobenius_norm(&bad), f64::INFINITY);
        assert_eq!(frobenius_norm(&DMatrix::zeros(2, 2)), 0.0);
    }
}
