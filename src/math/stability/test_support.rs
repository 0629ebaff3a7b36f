//! Helpers shared by the stack's tests: shapes, seeded matrices, a finite-difference check.

use nalgebra::DMatrix;

use super::reference::BlockWeights;
use super::shape::{NormPlacement, StackShape, Wiring};
use crate::math::rng::gaussian_matrix;
use crate::math::stability::mlp::gelu_gates;
use crate::math::stability::mlp::gelu_given_gate;
use crate::math::stability::norms::frobenius_norm;
use crate::math::stability::reference::block_weights;

pub(crate) fn shape(d: usize, heads: usize, t: usize, wiring: Wiring) -> StackShape {
    StackShape {
        d_model: d,
        heads,
        seq_len: t,
        gain: 1.0,
        seed: 7,
        wiring,
    }
}

pub(crate) fn random(seed: u64, rows: usize, cols: usize) -> DMatrix<f64> {
    gaussian_matrix(seed, &[99], rows, cols)
}

/// Central difference of the scalar f along every entry of x, compared with `grad`.
pub(crate) fn check_gradient(
    x: &DMatrix<f64>,
    grad: &DMatrix<f64>,
    mut f: impl FnMut(&DMatrix<f64>) -> f64,
    what: &str,
) {
    let h = 1e-5;
    let scale = frobenius_norm(grad).max(1e-8);
    for idx in 0..x.len() {
        let (mut up, mut down) = (x.clone(), x.clone());
        up[idx] += h;
        down[idx] -= h;
        let fd = (f(&up) - f(&down)) / (2.0 * h);
        assert!(
            (fd - grad[idx]).abs() <= 1e-6 * scale + 1e-7 * fd.abs(),
            "{what}[{idx}]: analytic {} vs finite difference {fd}",
            grad[idx]
        );
    }
}

pub(crate) fn dot(a: &DMatrix<f64>, b: &DMatrix<f64>) -> f64 {
    a.component_mul(b).sum()
}

/// GELU from the gate of a 1×1 matrix holding h.
pub(crate) fn gelu_by_gate(h: f64) -> f64 {
    let pre = DMatrix::from_element(1, 1, h);
    gelu_given_gate(&pre, &gelu_gates(&pre))[(0, 0)]
}

pub(crate) fn small_block(seed: u64, d: usize) -> BlockWeights {
    let s = StackShape {
        seed,
        ..shape(d, 2, 5, Wiring::PLAIN)
    };
    let mut w = block_weights(&s, 0);
    w.ln1.gamma = (0..d).map(|i| 0.8 + 0.1 * i as f64).collect();
    w.ln2.beta = (0..d).map(|i| 0.05 * i as f64).collect();
    w
}

pub(crate) fn all_wirings() -> Vec<Wiring> {
    let mut out = Vec::new();
    for residual in [false, true] {
        for norm in [NormPlacement::None, NormPlacement::Post, NormPlacement::Pre] {
            out.push(Wiring { residual, norm });
        }
    }
    out
}
