//! The MLP sub-layer, MLP(x) = GELU(x W₁) W₂, with GELU in GPT-2's tanh form computed
//! through its gate s = σ(2u), forward and backward.

use nalgebra::DMatrix;

use super::grads::GradSink;
use super::weights::{times_weight, times_weight_transpose, Param};
use crate::math::exp::logistic_clamped_in_place;

pub(super) const GELU_C: f64 = 0.797_884_560_802_865_4; // √(2/π)
pub(super) const GELU_A: f64 = 0.044_715;

/// GELU′(h) from s = σ(2u) (see [`gelu_gates`]): with 1 + t = 2s and 1 − t² = 4s(1 − s)
/// for t = tanh u, ½(1 + t) + ½h(1 − t²)u′ = s + 2h·s(1 − s)·√(2/π)(1 + 3·0.044715h²).
pub fn gelu_derivative_given_gate(h: f64, s: f64) -> f64 {
    s + 2.0 * h * s * (1.0 - s) * GELU_C * (1.0 + 3.0 * GELU_A * h * h)
}

/// s = σ(2u) = 1/(1 + e^(−2u)), u = √(2/π)(h + 0.044715h³), for every pre-activation h:
/// GELU(h) = ½h(1 + tanh u) = h·s, because ½(1 + tanh u) = σ(2u). One exponential per
/// entry, two at a time in the browser ([`logistic_clamped_in_place`]), instead of a tanh.
/// The exponent is clamped to [−708, 709], so s is exactly what σ gives wherever
/// e^(−2u) is a normal f64 and otherwise within 3·10⁻³⁰⁸ of 0 or 1.
pub fn gelu_gates(pre: &DMatrix<f64>) -> DMatrix<f64> {
    let mut s = pre.clone();
    let values = s.as_mut_slice();
    // Plain counting loops: the page is built for size, where iterator adapters are
    // not inlined (see products.rs).
    let mut i = 0;
    while i < values.len() {
        let h = values[i];
        values[i] = 2.0 * GELU_C * (h + GELU_A * h * h * h);
        i += 1;
    }
    logistic_clamped_in_place(values);
    s
}

/// What the MLP's backward pass needs.
#[derive(Clone, Debug, PartialEq)]
pub struct MlpCache {
    pub x: DMatrix<f64>,
    pub pre: DMatrix<f64>,
    /// The gate s = σ(2u) of each pre-activation h ([`gelu_gates`]): GELU(h) = h·s and
    /// GELU′(h) in the backward pass both follow from it (the activation is not kept).
    pub gate: DMatrix<f64>,
}

/// GELU(h) = h·s from the pre-activations and their kept gates.
pub(super) fn gelu_given_gate(pre: &DMatrix<f64>, gate: &DMatrix<f64>) -> DMatrix<f64> {
    let mut a = pre.clone();
    let (values, gates) = (a.as_mut_slice(), gate.as_slice());
    let mut i = 0;
    while i < values.len().min(gates.len()) {
        values[i] *= gates[i];
        i += 1;
    }
    a
}

/// [`mlp_forward`] with W₁ and W₂ given as (M, k), W = k·M (see [`BlockParams`]).
pub(super) fn mlp_forward_weighted(
    x: &DMatrix<f64>,
    w1: (&DMatrix<f64>, f64),
    w2: (&DMatrix<f64>, f64),
) -> (DMatrix<f64>, MlpCache) {
    let pre = times_weight(x, w1);
    let gate = gelu_gates(&pre);
    let y = times_weight(&gelu_given_gate(&pre, &gate), w2);
    (
        y,
        MlpCache {
            x: x.clone(),
            pre,
            gate,
        },
    )
}

/// [`mlp_backward`], W₁ and W₂ given as (M, k) with W = k·M (see [`BlockParams`]), the
/// weight gradients dW₁ = xᵀdh and dW₂ = aᵀdy handed to `sink` as their factors.
/// Returns dx.
pub fn mlp_backward_into(
    dy: &DMatrix<f64>,
    cache: &MlpCache,
    w1: (&DMatrix<f64>, f64),
    w2: (&DMatrix<f64>, f64),
    sink: &mut impl GradSink,
) -> DMatrix<f64> {
    sink.weights(
        &gelu_given_gate(&cache.pre, &cache.gate),
        &[(Param::W2, dy)],
    );
    let mut dh = times_weight_transpose(dy, w2);
    let (grads, pre, gate) = (
        dh.as_mut_slice(),
        cache.pre.as_slice(),
        cache.gate.as_slice(),
    );
    let mut i = 0;
    while i < grads.len().min(pre.len()).min(gate.len()) {
        grads[i] *= gelu_derivative_given_gate(pre[i], gate[i]);
        i += 1;
    }
    sink.weights(&cache.x, &[(Param::W1, &dh)]);
    times_weight_transpose(&dh, w1)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::math::stability::reference::*;
    use crate::math::stability::test_support::*;

    #[test]
    fn gelu_by_gate_at_one_matches_the_hand_value() {
        // ½(1 + tanh(√(2/π)·1.044715)) = ½(1 + tanh 0.8335) = 0.8411919906…
        assert!((gelu_by_gate(1.0) - 0.841_191_990_6).abs() < 1e-10);
        assert_eq!(gelu_by_gate(0.0), 0.0);
    }

    #[test]
    fn gelu_by_gate_equals_the_tanh_form() {
        // ½(1 + tanh u) = σ(2u): the two forms agree to rounding (the gate form is the
        // more exact one for very negative h, where 1 + tanh u cancels).
        for i in -3000..=3000 {
            let h = f64::from(i) * 0.01;
            let (by_gate, by_tanh) = (gelu_by_gate(h), gelu(h));
            assert!(
                (by_gate - by_tanh).abs() < 2e-15 * h.abs().max(1.0),
                "h = {h}"
            );
            let s = gelu_gates(&DMatrix::from_element(1, 1, h))[(0, 0)];
            let derivative = gelu_derivative_given_gate(h, s);
            assert!((derivative - gelu_derivative(h)).abs() < 1e-13, "h = {h}");
        }
    }

    #[test]
    fn gelu_derivative_from_the_gate_matches_finite_differences() {
        for &x in &[-4.0, -1.3, -0.2, 0.0, 0.4, 1.1, 3.5] {
            let fd = (gelu_by_gate(x + 1e-6) - gelu_by_gate(x - 1e-6)) / 2e-6;
            let s = gelu_gates(&DMatrix::from_element(1, 1, x))[(0, 0)];
            assert!(
                (fd - gelu_derivative_given_gate(x, s)).abs() < 1e-8,
                "x = {x}"
            );
        }
    }

    #[test]
    fn gelu_gates_of_huge_pre_activations_stay_finite_and_in_zero_to_one() {
        let pre = DMatrix::from_row_slice(1, 4, &[1e200, -1e200, 800.0, -800.0]);
        let s = gelu_gates(&pre);
        assert!(s.iter().all(|&s| (0.0..=1.0).contains(&s)));
        assert_eq!(s[(0, 0)], 1.0);
        assert!(s[(0, 1)] < 1e-300);
    }

    #[test]
    fn gelu_derivative_matches_finite_differences() {
        for x in [-3.0, -1.0, -0.2, 0.0, 0.4, 1.3, 4.0] {
            let fd = (gelu(x + 1e-6) - gelu(x - 1e-6)) / 2e-6;
            assert!((fd - gelu_derivative(x)).abs() < 1e-8, "x = {x}");
        }
        // By hand: GELU(0) = 0, GELU′(0) = ½.
        assert_eq!(gelu(0.0), 0.0);
        assert_eq!(gelu_derivative(0.0), 0.5);
    }

    #[test]
    fn mlp_backward_matches_finite_differences() {
        let (x, w1, w2, r) = (
            random(4, 3, 4),
            random(5, 4, 8),
            random(6, 8, 4),
            random(7, 3, 4),
        );
        let (_, cache) = mlp_forward(&x, &w1, &w2);
        let (dx, dw1, dw2) = mlp_backward(&r, &cache, &w1, &w2);
        check_gradient(&x, &dx, |x| dot(&mlp_forward(x, &w1, &w2).0, &r), "MLP dx");
        check_gradient(
            &w1,
            &dw1,
            |w| dot(&mlp_forward(&x, w, &w2).0, &r),
            "MLP dW1",
        );
        check_gradient(
            &w2,
            &dw2,
            |w| dot(&mlp_forward(&x, &w1, w).0, &r),
            "MLP dW2",
        );
    }
}
