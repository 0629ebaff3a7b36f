//! Everything Pass 1 computes, as memos over the URL state: the scores, p = softmax(s),
//! the Jacobian J = diag(p) − ppᵀ with its norms, and the mean ‖J‖_F against dₖ.

use leptos::prelude::*;
use nalgebra::DMatrix;

use crate::math::backprop::{
    mean_jacobian_norm_vs_dk, sample_dk_sweep, sample_raw_scores, scaled_scores, score_scale,
    DkSweepCurve, MAX_DK, MAX_TOKENS, MIN_TOKENS,
};
use crate::math::softmax::{jacobian_summary, softmax, softmax_jacobian, JacobianSummary};
use crate::state::UrlState;

/// Everything Pass 1 computes, as memos over the URL state.
#[derive(Clone, Copy)]
pub struct BackpropModel {
    pub state: UrlState,
    /// Tokens in use (the count of explicit scores when the URL gives them).
    pub n: Memo<usize>,
    pub d_k: Memo<usize>,
    pub divide: Memo<bool>,
    pub alpha: Memo<f64>,
    pub seed: Memo<u64>,
    /// Explicit raw scores from the URL (`z=`), if any.
    pub explicit: Memo<Option<Vec<f64>>>,
    /// Raw scores z (explicit, or q·k_j sampled from the seed).
    pub raw: Memo<Vec<f64>>,
    /// p = softmax(s).
    pub p: Memo<Vec<f64>>,
    /// J = diag(p) − ppᵀ.
    pub jacobian: Memo<DMatrix<f64>>,
    pub summary: Memo<JacobianSummary>,
    /// ‖J‖_F averaged over samples, against d_k.
    pub sweep: Memo<DkSweepCurve>,
}

impl BackpropModel {
    /// Builds the memo graph from the URL state.
    pub fn new(state: UrlState) -> Self {
        let explicit = state.list("z");
        let n_key = state.int("n");
        let n = Memo::new(move |_| {
            explicit
                .with(|z| z.as_ref().map(|z| z.len()))
                .unwrap_or(n_key.get() as usize)
                .clamp(MIN_TOKENS, MAX_TOKENS)
        });
        let d_k_key = state.int("dk");
        let d_k = Memo::new(move |_| (d_k_key.get().max(1) as usize).min(MAX_DK));
        let divide = state.flag("div");
        let alpha = state.float("alpha");
        let seed_key = state.int("seed");
        let seed = Memo::new(move |_| seed_key.get().max(0) as u64);
        let raw = Memo::new(move |_| match explicit.get() {
            Some(z) => z,
            None => sample_raw_scores(seed.get(), n.get(), d_k.get()),
        });
        let p = Memo::new(move |_| {
            let scale = score_scale(alpha.get(), d_k.get(), divide.get());
            raw.with(|z| softmax(&scaled_scores(z, scale)))
        });
        let jacobian = Memo::new(move |_| p.with(|p| softmax_jacobian(p)));
        let summary = Memo::new(move |_| p.with(|p| jacobian.with(|j| jacobian_summary(p, j))));
        let samples = Memo::new(move |_| sample_dk_sweep(seed.get(), n.get()));
        let sweep = Memo::new(move |_| samples.with(|s| mean_jacobian_norm_vs_dk(s, alpha.get())));
        Self {
            state,
            n,
            d_k,
            divide,
            alpha,
            seed,
            explicit,
            raw,
            p,
            jacobian,
            summary,
            sweep,
        }
    }
}
