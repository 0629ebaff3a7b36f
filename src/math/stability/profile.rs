//! Per-layer gradient norms of one stack, the bottom-over-top ratio and its verdict, and
//! the textbook toy chain they are compared with.

/// Per-layer gradient norms of one stack.
#[derive(Clone, Debug, PartialEq)]
pub struct GradientProfile {
    /// ‖∂L/∂x_l‖_F for the input x_l of every block l = 0 … L−1 (+∞ where it overflowed).
    pub input_grad_norm: Vec<f64>,
    /// ‖∂L/∂θ_l‖ over every parameter of block l.
    pub weight_grad_norm: Vec<f64>,
    /// L = Σ y ⊙ r (may be non-finite when the forward pass overflowed).
    pub loss: f64,
    /// The first block whose output overflowed f64, if any.
    pub forward_overflow: Option<usize>,
}

/// How a stack's gradient fares from top to bottom.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum GradientVerdict {
    /// bottom/top below 10⁻³.
    Vanished(f64),
    /// bottom/top above 10³.
    Exploded(f64),
    /// Within a factor of 1000 either way.
    Stable(f64),
    /// Some norm left f64's range (overflow to ∞, or underflow of the top to 0).
    Overflow,
}

impl GradientProfile {
    /// The first layer (from the top) whose gradient is not finite, if any.
    pub fn first_backward_overflow(&self) -> Option<usize> {
        (0..self.input_grad_norm.len()).rev().find(|&l| {
            !self.input_grad_norm[l].is_finite() || !self.weight_grad_norm[l].is_finite()
        })
    }
}

/// norms[0] / norms[last], when both are finite and the last is positive.
pub fn bottom_to_top(norms: &[f64]) -> Option<f64> {
    let (first, last) = (*norms.first()?, *norms.last()?);
    let ratio = first / last;
    (first.is_finite() && last.is_finite() && last > 0.0 && ratio.is_finite()).then_some(ratio)
}

/// The verdict for a bottom/top ratio.
pub fn verdict_of(ratio: Option<f64>) -> GradientVerdict {
    match ratio {
        None => GradientVerdict::Overflow,
        Some(r) if r < 1e-3 => GradientVerdict::Vanished(r),
        Some(r) if r > 1e3 => GradientVerdict::Exploded(r),
        Some(r) => GradientVerdict::Stable(r),
    }
}

/// The textbook toy: a scalar chain with factor ρ per layer. The gradient reaching layer
/// l's input, relative to the top layer's input, is ρ^{(L−1)−l}; after all L layers it
/// is ρ^L (0.7³² ≈ 1.1·10⁻⁵).
pub fn toy_chain(rho: f64, depth: usize) -> Vec<f64> {
    (0..depth)
        .map(|l| rho.powi((depth - 1 - l) as i32))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::math::stability::reference::*;
    use crate::math::stability::test_support::*;

    #[test]
    fn ratio_at_depth_one_is_one() {
        for wiring in all_wirings() {
            let p = gradient_profile(&shape(8, 2, 4, wiring), 1);
            assert_eq!(p.ratio(), Some(1.0), "{}", wiring.label());
        }
    }

    #[test]
    fn toy_chain_is_rho_to_the_depth() {
        let c = toy_chain(0.7, 32);
        assert_eq!(c[31], 1.0);
        assert!((c[0] - 0.7f64.powi(31)).abs() < 1e-18);
        // After all 32 layers: 0.7³² ≈ 1.1·10⁻⁵.
        assert!((0.7f64.powi(32) - 1.104e-5).abs() < 1e-8);
    }

    #[test]
    fn verdicts_follow_the_thresholds() {
        assert_eq!(verdict_of(Some(1e-4)), GradientVerdict::Vanished(1e-4));
        assert_eq!(verdict_of(Some(2e3)), GradientVerdict::Exploded(2e3));
        assert_eq!(verdict_of(Some(0.5)), GradientVerdict::Stable(0.5));
        assert_eq!(verdict_of(None), GradientVerdict::Overflow);
        assert_eq!(bottom_to_top(&[f64::INFINITY, 1.0]), None);
        assert_eq!(bottom_to_top(&[1.0, 0.0]), None);
    }
}
