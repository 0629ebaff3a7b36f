//! eˣ for every entry of a slice, two at a time in wasm SIMD: what Pass 4's GELU spends
//! its time on (a default stack takes 32 768 of them per forward pass; the scalar libm
//! call cost ~23 ns each in wasm, a fifth of the whole stack).
//!
//! The method is the textbook one (Cody and Waite's reduction, then a polynomial):
//! x = k·ln 2 + r with k = round(x / ln 2) and |r| ≤ ½ ln 2, ln 2 split into a high part
//! whose products with k are exact and a low part; e^r by its Taylor series to r¹³/13!
//! (the first term left out is r¹⁴/14! < 5·10⁻¹⁸ of e^r); eˣ = 2ᵏ·e^r with 2ᵏ written
//! straight into an f64's exponent bits. The portable and the SIMD code do the same
//! operations in the same order, so they give the same bits.
//!
//! The argument is clamped to [−708, 709], where 2ᵏ is a normal f64: below −708 the
//! result is e⁻⁷⁰⁸ ≈ 3·10⁻³⁰⁸ instead of a smaller number or zero, above 709 it is
//! e⁷⁰⁹ ≈ 8·10³⁰⁷ instead of a larger one or +∞. NaN stays NaN.

/// log₂ e.
const LOG2_E: f64 = std::f64::consts::LOG2_E;
/// ln 2 = LN2_HI + LN2_LO, LN2_HI with its last 21 bits zero (32 significant bits) so
/// k·LN2_HI is exact for |k| < 2²¹ (fdlibm's split).
const LN2_HI: f64 = f64::from_bits(0x3fe6_2e42_fee0_0000); // 6.93147180369123816490e-01
const LN2_LO: f64 = f64::from_bits(0x3dea_39ef_3579_3c76); // 1.90821492927058770002e-10
/// The argument range kept (see the module's notes).
const LOWEST: f64 = -708.0;
const HIGHEST: f64 = 709.0;
/// Degree of the Taylor polynomial of e^r.
const DEGREE: usize = 13;

/// 1/i! for i = 0 … 13, the Taylor coefficients of e^r.
const INVERSE_FACTORIALS: [f64; DEGREE + 1] = {
    let mut c = [1.0; DEGREE + 1];
    let mut i = 1;
    while i <= DEGREE {
        c[i] = c[i - 1] / i as f64;
        i += 1;
    }
    c
};

/// eˣ for x clamped to [−708, 709] (see the module's notes), NaN for NaN.
pub fn exp_clamped(x: f64) -> f64 {
    let x = x.clamp(LOWEST, HIGHEST);
    let k = (x * LOG2_E).round_ties_even();
    let r = (x - k * LN2_HI) - k * LN2_LO;
    let mut p = INVERSE_FACTORIALS[DEGREE];
    let mut i = DEGREE;
    while i > 0 {
        i -= 1;
        p = p * r + INVERSE_FACTORIALS[i];
    }
    // k ∈ [−1021, 1023] here (0 for NaN, whose p is NaN), so k + 1023 is a normal
    // exponent.
    let two_to_k = f64::from_bits(((k as i64 + 1023) as u64) << 52);
    p * two_to_k
}

/// Replaces every entry x of `values` by [`exp_clamped`]`(x)`, two at a time in the
/// browser build (wasm SIMD), with the same bits.
pub fn exp_clamped_in_place(values: &mut [f64]) {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    let values = simd::exp_pairs_in_place(values);
    for v in values {
        *v = exp_clamped(*v);
    }
}

/// σ(x) = 1/(1 + e^(−x)) with e^(−x) by [`exp_clamped`]: exactly σ(x) to rounding for
/// |x| ≤ 708, and within 3·10⁻³⁰⁸ of 0 or 1 beyond.
pub fn logistic_clamped(x: f64) -> f64 {
    1.0 / (1.0 + exp_clamped(-x))
}

/// Replaces every entry x of `values` by [`logistic_clamped`]`(x)`, two at a time in the
/// browser build (wasm SIMD), with the same bits.
pub fn logistic_clamped_in_place(values: &mut [f64]) {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    let values = simd::logistic_pairs_in_place(values);
    for v in values {
        *v = logistic_clamped(*v);
    }
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd {
    use super::{DEGREE, HIGHEST, INVERSE_FACTORIALS, LN2_HI, LN2_LO, LOG2_E, LOWEST};
    use core::arch::wasm32::*;

    /// [`super::exp_clamped`] of each pair of entries; returns the odd one left over.
    pub(super) fn exp_pairs_in_place(values: &mut [f64]) -> &mut [f64] {
        map_pairs_in_place(values, exp_pair)
    }

    /// [`super::logistic_clamped`] of each pair of entries; returns the odd one left over.
    pub(super) fn logistic_pairs_in_place(values: &mut [f64]) -> &mut [f64] {
        let one = f64x2_splat(1.0);
        map_pairs_in_place(values, |x| {
            f64x2_div(one, f64x2_add(one, exp_pair(f64x2_neg(x))))
        })
    }

    /// Replaces each pair of entries by `f` of it, as one vector; returns the odd one left
    /// over. A plain counting loop (the page is built for size, where iterator adapters
    /// are not inlined).
    #[inline(always)]
    fn map_pairs_in_place(values: &mut [f64], f: impl Fn(v128) -> v128) -> &mut [f64] {
        let pairs = values.len() / 2;
        let at = values.as_mut_ptr();
        let mut k = 0;
        while k < pairs {
            // SAFETY: 2k + 1 < values.len(), so the unaligned 16-byte load and store at
            // entry 2k stay inside `values` (v128_load/v128_store need no alignment).
            unsafe {
                let pair = at.add(2 * k).cast::<v128>();
                v128_store(pair, f(v128_load(pair)));
            }
            k += 1;
        }
        &mut values[2 * pairs..]
    }

    /// The same operations as [`super::exp_clamped`], lane by lane.
    #[inline(always)]
    fn exp_pair(x: v128) -> v128 {
        // f64x2_min/max return NaN when either lane is NaN, as f64::clamp does.
        let x = f64x2_max(f64x2_min(x, f64x2_splat(HIGHEST)), f64x2_splat(LOWEST));
        let k = f64x2_nearest(f64x2_mul(x, f64x2_splat(LOG2_E)));
        let r = f64x2_sub(
            f64x2_sub(x, f64x2_mul(k, f64x2_splat(LN2_HI))),
            f64x2_mul(k, f64x2_splat(LN2_LO)),
        );
        let mut p = f64x2_splat(INVERSE_FACTORIALS[DEGREE]);
        let mut i = DEGREE;
        while i > 0 {
            i -= 1;
            p = f64x2_add(f64x2_mul(p, r), f64x2_splat(INVERSE_FACTORIALS[i]));
        }
        // NaN converts to 0, as `k as i64` does in the portable code.
        let k = i64x2_extend_low_i32x4(i32x4_trunc_sat_f64x2_zero(k));
        let two_to_k = i64x2_shl(i64x2_add(k, i64x2_splat(1023)), 52);
        f64x2_mul(p, two_to_k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Relative distance from the standard library's eˣ.
    fn relative_error(x: f64) -> f64 {
        let want = x.exp();
        (exp_clamped(x) - want).abs() / want
    }

    #[test]
    fn the_two_parts_of_ln_2_add_up_to_ln_2() {
        assert_eq!(LN2_HI + LN2_LO, std::f64::consts::LN_2);
        // The high part's last 21 bits are zero, so k·LN2_HI is exact for |k| < 2²¹.
        assert_eq!(LN2_HI.to_bits() & 0x1f_ffff, 0);
    }

    #[test]
    fn inverse_factorials_are_one_over_i_factorial() {
        assert_eq!(INVERSE_FACTORIALS[0], 1.0);
        assert_eq!(INVERSE_FACTORIALS[3], 1.0 / 6.0);
        assert!((INVERSE_FACTORIALS[13] * 6_227_020_800.0 - 1.0).abs() < 1e-15);
    }

    #[test]
    fn exp_of_small_integers_matches_hand_values() {
        assert_eq!(exp_clamped(0.0), 1.0);
        assert!((exp_clamped(1.0) - std::f64::consts::E).abs() < 4e-16 * std::f64::consts::E);
        assert!((exp_clamped(-1.0) - 1.0 / std::f64::consts::E).abs() < 4e-16);
        assert!((exp_clamped(std::f64::consts::LN_2) - 2.0).abs() < 5e-16);
    }

    #[test]
    fn exp_is_within_two_ulps_of_the_standard_library_across_its_range() {
        // 100 001 points from −708 to 709, and a fine grid around 0.
        let worst = (0..=100_000)
            .map(|i| LOWEST + (HIGHEST - LOWEST) * f64::from(i) / 100_000.0)
            .chain((-1000..=1000).map(|i| f64::from(i) * 1e-3))
            .map(relative_error)
            .fold(0.0_f64, f64::max);
        assert!(worst < 4.5e-16, "worst relative error {worst:e}");
    }

    #[test]
    fn arguments_outside_the_range_are_clamped_and_nan_stays_nan() {
        assert_eq!(exp_clamped(1e6), exp_clamped(HIGHEST));
        assert_eq!(exp_clamped(f64::INFINITY), exp_clamped(HIGHEST));
        assert_eq!(exp_clamped(-1e6), exp_clamped(LOWEST));
        assert!(exp_clamped(HIGHEST).is_finite() && exp_clamped(LOWEST) > 0.0);
        assert!(exp_clamped(f64::NAN).is_nan());
    }

    #[test]
    fn logistic_is_one_over_one_plus_e_to_the_minus_x() {
        assert_eq!(logistic_clamped(0.0), 0.5);
        for x in [-30.0_f64, -2.0, -0.1, 0.3, 4.0, 30.0] {
            let want = 1.0 / (1.0 + (-x).exp());
            assert!(
                (logistic_clamped(x) - want).abs() < 1e-16_f64.max(4e-16 * want),
                "x = {x}"
            );
        }
        assert_eq!(logistic_clamped(1e6), 1.0);
        assert!(logistic_clamped(-1e6) < 1e-300);
        let mut xs = vec![-3.0, 0.5, 2.0];
        logistic_clamped_in_place(&mut xs);
        assert_eq!(xs[1].to_bits(), logistic_clamped(0.5).to_bits());
    }

    #[test]
    fn in_place_exp_of_a_slice_equals_exp_of_each_entry() {
        let xs: Vec<f64> = (0..9).map(|i| f64::from(i) * 3.7 - 15.0).collect();
        let mut ys = xs.clone();
        exp_clamped_in_place(&mut ys);
        for (x, y) in xs.iter().zip(&ys) {
            assert_eq!(exp_clamped(*x).to_bits(), y.to_bits());
        }
    }
}
