//! Causal multi-head self-attention, forward and backward (the backward pass goes through
//! the softmax Jacobian of Pass 1, row by row).

use nalgebra::DMatrix;

use super::grads::GradSink;
use super::weights::{times_weight, times_weight_transpose, BlockParams, Param};
use crate::math::heads::heads_dividing;
use crate::math::products::{columns_times, columns_times_transpose, zeros, Columns};
use crate::math::softmax::softmax_into;

/// What attention's backward pass needs.
#[derive(Clone, Debug, PartialEq)]
pub struct AttentionCache {
    pub x: DMatrix<f64>,
    pub q: DMatrix<f64>,
    pub k: DMatrix<f64>,
    pub v: DMatrix<f64>,
    /// Per head, the T×T attention probabilities (zero above the diagonal).
    pub p: Vec<DMatrix<f64>>,
    /// The heads' outputs, concatenated (T×d).
    pub o: DMatrix<f64>,
}

/// Causal multi-head self-attention: Q = xW_Q, K = xW_K, V = xW_V; for head h (columns
/// h·d_h … (h+1)·d_h), P_h = softmax(s·Q_h K_hᵀ) with s = [`BlockParams::score_scale`] (1/√d_h) row by row over positions j ≤ i only;
/// O = [P_1V_1 | … | P_HV_H]; y = O W_O.
pub fn attention_forward(
    x: &DMatrix<f64>,
    w: &impl BlockParams,
    heads: usize,
) -> (DMatrix<f64>, AttentionCache) {
    let (t, d) = x.shape();
    let heads = heads_dividing(d, heads);
    let dh = d / heads;
    let scale = w.score_scale(dh);
    let (q, k, v) = (
        times_weight(x, w.weight(Param::Wq)),
        times_weight(x, w.weight(Param::Wk)),
        times_weight(x, w.weight(Param::Wv)),
    );
    let mut o = zeros(t, d);
    let mut probs = Vec::with_capacity(heads);
    for h in 0..heads {
        let c0 = h * dh;
        let (qh, kh, vh) = (
            Columns::of(&q, c0, dh),
            Columns::of(&k, c0, dh),
            Columns::of(&v, c0, dh),
        );
        let scores = columns_times_transpose(scale, qh, kh);
        let mut p = zeros(t, t);
        let mut row = vec![0.0; t];
        for i in 0..t {
            softmax_into((0..=i).map(|j| scores[(i, j)]), &mut row[..=i]);
            for j in 0..=i {
                p[(i, j)] = row[j];
            }
        }
        let oh = columns_times(1.0, Columns::all(&p), vh);
        o.columns_mut(c0, dh).copy_from(&oh);
        probs.push(p);
    }
    let y = times_weight(&o, w.weight(Param::Wo));
    (
        y,
        AttentionCache {
            x: x.clone(),
            q,
            k,
            v,
            p: probs,
            o,
        },
    )
}

/// [`attention_backward`], the weight gradients dW_Q = xᵀdQ, dW_K = xᵀdK, dW_V = xᵀdV
/// and dW_O = Oᵀdy handed to `sink` as their factors. Returns dx.
pub fn attention_backward_into(
    dy: &DMatrix<f64>,
    cache: &AttentionCache,
    w: &impl BlockParams,
    sink: &mut impl GradSink,
) -> DMatrix<f64> {
    let (t, d) = cache.x.shape();
    let heads = cache.p.len().max(1);
    let dh = d / heads;
    let scale = w.score_scale(dh);
    sink.weights(&cache.o, &[(Param::Wo, dy)]);
    let d_o = times_weight_transpose(dy, w.weight(Param::Wo));
    let (mut dq, mut dk, mut dv) = (zeros(t, d), zeros(t, d), zeros(t, d));
    for (h, p) in cache.p.iter().enumerate() {
        let c0 = h * dh;
        let doh = Columns::of(&d_o, c0, dh);
        let dp = columns_times_transpose(1.0, doh, Columns::of(&cache.v, c0, dh));
        // Pᵀ and dSᵀ are T×T: copied transposed, so that every product reads A by columns.
        let p_t = p.transpose();
        dv.columns_mut(c0, dh)
            .copy_from(&columns_times(1.0, Columns::all(&p_t), doh));
        let ds = scaled_softmax_vjp_rows(p, &dp, scale);
        dq.columns_mut(c0, dh).copy_from(&columns_times(
            1.0,
            Columns::all(&ds),
            Columns::of(&cache.k, c0, dh),
        ));
        let ds_t = ds.transpose();
        dk.columns_mut(c0, dh).copy_from(&columns_times(
            1.0,
            Columns::all(&ds_t),
            Columns::of(&cache.q, c0, dh),
        ));
    }
    sink.weights(
        &cache.x,
        &[(Param::Wq, &dq), (Param::Wk, &dk), (Param::Wv, &dv)],
    );
    times_weight_transpose(&dq, w.weight(Param::Wq))
        + times_weight_transpose(&dk, w.weight(Param::Wk))
        + times_weight_transpose(&dv, w.weight(Param::Wv))
}

/// Row i of dS = scale · J(p_i)·dP_i over the unmasked positions j ≤ i of the causal
/// T×T probabilities P ([`softmax_vjp`] row by row, without a vector per row):
/// dS_ij = scale · p_ij (dP_ij − Σ_{k≤i} p_ik dP_ik); zero above the diagonal.
pub(super) fn scaled_softmax_vjp_rows(
    p: &DMatrix<f64>,
    dp: &DMatrix<f64>,
    scale: f64,
) -> DMatrix<f64> {
    let t = p.nrows().min(p.ncols()).min(dp.nrows()).min(dp.ncols());
    let (ps, dps) = (p.as_slice(), dp.as_slice());
    let (pr, dr) = (p.nrows(), dp.nrows());
    let mut ds = zeros(t, t);
    let out = ds.as_mut_slice();
    let mut i = 0;
    while i < t {
        let mut mean = 0.0;
        let mut j = 0;
        while j <= i {
            mean += ps[j * pr + i] * dps[j * dr + i];
            j += 1;
        }
        let mut j = 0;
        while j <= i {
            out[j * t + i] = ps[j * pr + i] * (dps[j * dr + i] - mean) * scale;
            j += 1;
        }
        i += 1;
    }
    ds
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::math::stability::reference::*;
    use crate::math::stability::test_support::*;

    #[test]
    fn softmax_vjp_rows_equal_the_pass_1_vjp_of_each_row() {
        use crate::math::softmax::reference::softmax_vjp;
        // A causal 5×5 softmax and an upstream gradient: each row of dS is
        // scale · softmax_vjp(p_i, dP_i) over j ≤ i, to the bit, and zero above.
        let t = 5;
        let scores = random(3, t, t);
        let mut p = DMatrix::zeros(t, t);
        for i in 0..t {
            let row =
                crate::math::softmax::softmax(&(0..=i).map(|j| scores[(i, j)]).collect::<Vec<_>>());
            for (j, v) in row.into_iter().enumerate() {
                p[(i, j)] = v;
            }
        }
        let dp = random(4, t, t);
        let ds = scaled_softmax_vjp_rows(&p, &dp, 0.25);
        for i in 0..t {
            let p_row: Vec<f64> = (0..=i).map(|j| p[(i, j)]).collect();
            let dp_row: Vec<f64> = (0..=i).map(|j| dp[(i, j)]).collect();
            for (j, g) in softmax_vjp(&p_row, &dp_row).into_iter().enumerate() {
                assert_eq!(ds[(i, j)].to_bits(), (g * 0.25).to_bits(), "({i}, {j})");
            }
            for j in i + 1..t {
                assert_eq!(ds[(i, j)], 0.0);
            }
        }
    }

    #[test]
    fn attention_backward_matches_finite_differences() {
        let w = small_block(8, 4);
        let (x, r) = (random(9, 5, 4), random(10, 5, 4));
        let (_, cache) = attention_forward(&x, &w, 2);
        let (dx, g) = attention_backward(&r, &cache, &w);
        check_gradient(
            &x,
            &dx,
            |x| dot(&attention_forward(x, &w, 2).0, &r),
            "attn dx",
        );
        let with = |f: &dyn Fn(&mut BlockWeights)| {
            let mut w2 = w.clone();
            f(&mut w2);
            w2
        };
        check_gradient(
            &w.wq,
            &g.wq,
            |m| {
                dot(
                    &attention_forward(&x, &with(&|w| w.wq = m.clone()), 2).0,
                    &r,
                )
            },
            "dWq",
        );
        check_gradient(
            &w.wk,
            &g.wk,
            |m| {
                dot(
                    &attention_forward(&x, &with(&|w| w.wk = m.clone()), 2).0,
                    &r,
                )
            },
            "dWk",
        );
        check_gradient(
            &w.wv,
            &g.wv,
            |m| {
                dot(
                    &attention_forward(&x, &with(&|w| w.wv = m.clone()), 2).0,
                    &r,
                )
            },
            "dWv",
        );
        check_gradient(
            &w.wo,
            &g.wo,
            |m| {
                dot(
                    &attention_forward(&x, &with(&|w| w.wo = m.clone()), 2).0,
                    &r,
                )
            },
            "dWo",
        );
    }

    #[test]
    fn causal_mask_keeps_position_i_from_depending_on_later_tokens() {
        let w = small_block(11, 4);
        let x = random(12, 6, 4);
        let (_, cache) = attention_forward(&x, &w, 2);
        for i in 0..6 {
            // The loss reads only the output at position i.
            let mut r = DMatrix::zeros(6, 4);
            r.row_mut(i).copy_from(&random(13, 1, 4));
            let (dx, _) = attention_backward(&r, &cache, &w);
            for j in (i + 1)..6 {
                assert!(
                    dx.row(j).iter().all(|v| *v == 0.0),
                    "output {i} depends on token {j}"
                );
            }
            assert!(dx.row(i).iter().any(|v| *v != 0.0));
        }
        // Probabilities above the diagonal are exactly zero; rows sum to one.
        for p in &cache.p {
            for i in 0..6 {
                assert!((p.row(i).sum() - 1.0).abs() < 1e-14);
                assert!(((i + 1)..6).all(|j| p[(i, j)] == 0.0));
            }
        }
    }
}
