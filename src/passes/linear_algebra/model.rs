//! Everything Pass 3 computes, as memos over the URL state: S and A with their spectra,
//! the target pattern and its best rank-k approximation (in the worker when large), the
//! heads, and the LoRA counts.

use leptos::prelude::*;
use nalgebra::DMatrix;

use crate::math::jobs::{decode_scores, decode_target, Job, TargetAnswer};
use crate::math::rank::multi_head::HeadSplits;
use crate::math::rank::scores::relative_errors;
use crate::math::rank::scores::score_rank;
use crate::math::rank::scores::ScoreRank;
use crate::math::rank::scores::Spectrum;
use crate::math::rank::{
    decaying_update, multi_head_split, multi_head_weights, rank_k_relative_error, singular_values,
    target_pattern, MultiHead, MultiHeadWeights, LORA_EXAMPLE_SIZE,
};
use crate::state::choices::{DTYPES, LORA_SHAPES, SHOWN_MATRICES, TARGETS};
use crate::state::Params;
use crate::state::UrlState;
use crate::widgets::timing::follow_in_own_task;
use crate::widgets::worker::use_worker_job;

/// Most tokens of Pass 3.
pub const MAX_N: usize = 256;

/// Most tokens of the multi-head figure: its small multiples are ~150 px wide, so more
/// tokens add no visible detail, only cost (n = 256 with 8 heads took 80 ms a change).
pub const MULTI_HEAD_MAX_N: usize = 64;

/// Above this many tokens a change of n computes Pass 3's matrices in a task of its own.
pub const HEAVY_N: usize = 128;

/// (d_out, d_in) of the LoRA calculator's matrix: a preset's, or the custom fields'.
pub fn lora_shape(p: &Params) -> (u64, u64) {
    p.chosen("lshape", &LORA_SHAPES).unwrap_or_else(|| {
        // The table keeps both fields within 1…65 536.
        (p.int("lout").max(1) as u64, p.int("lin").max(1) as u64)
    })
}

/// Everything Pass 3 computes, as memos over the URL state.
#[derive(Clone, Copy)]
pub struct LinearAlgebraModel {
    pub state: UrlState,
    pub n: Memo<usize>,
    pub requested_d_k: Memo<usize>,
    pub d_k: Memo<usize>,
    pub seed: Memo<u64>,
    pub show_a: Memo<bool>,
    /// Set while `score-rank` is on screen (its heavy memo recomputes only then).
    pub score_on_screen: RwSignal<bool>,
    /// Set while `multi-head` is on screen.
    pub heads_on_screen: RwSignal<bool>,
    /// Set while `low-rank-target` is on screen (its worker job is sent only then).
    pub target_on_screen: RwSignal<bool>,
    pub scores: Memo<ScoreRank>,
    /// The scores have not caught up with the controls yet (computed in the worker).
    pub scores_behind: Signal<bool>,
    /// S, A or the attention's spectrum sent to the worker and not answered yet (the
    /// figure may have left the screen since).
    pub score_in_flight: Signal<bool>,
    /// σ(A) for the current (seed, n, d_k), from the worker; `None` while computing.
    pub attention: Memo<Option<Spectrum>>,
    pub k: Memo<usize>,
    pub target: Memo<DMatrix<f64>>,
    /// σ(T) and T_k for the current target and k, from the worker; `None` while computing.
    pub target_answer: Memo<Option<TargetAnswer>>,
    /// The target's approximation sent to the worker and not answered yet.
    pub target_in_flight: Signal<bool>,
    /// The last answer drawn (kept while a newer one is computed, so nothing flickers).
    pub shown_answer: Memo<TargetAnswer>,
    pub approx: Memo<DMatrix<f64>>,
    pub errors: Memo<Vec<f64>>,
    pub heads: Memo<MultiHead>,
    pub requested_heads: Memo<usize>,
    pub lora_shape: Memo<(u64, u64)>,
    pub lora_r: Memo<u64>,
    pub lora_bytes: Memo<f64>,
    pub lora_errors: Memo<Vec<f64>>,
}

impl LinearAlgebraModel {
    /// Builds the memo graph from the URL state.
    pub fn new(state: UrlState) -> Self {
        let p = state;
        let n = Memo::new(move |_| p.tracked(|p| p.int("rn")).max(1) as usize);
        let requested_d_k = Memo::new(move |_| p.tracked(|p| p.int("rdk")).max(1) as usize);
        let d_k = Memo::new(move |_| requested_d_k.get().min(n.get()));
        let seed = Memo::new(move |_| p.tracked(|p| p.int("rseed")).max(0) as u64);
        let show_a = Memo::new(move |_| p.tracked(|p| p.chosen("rshow", &SHOWN_MATRICES)));
        let score_on_screen = RwSignal::new(false);
        // S, A and σ(S): on the page up to 128 tokens, in the worker above (their task could
        // pass 50 ms there on a slow day).
        let score_job = use_worker_job(
            move || Job::Scores {
                seed: seed.get(),
                n: n.get(),
                d_k: d_k.get(),
            },
            decode_scores,
            score_on_screen,
        );
        let score_answer = score_job.answer;
        // The latest answer, or the last one shown while a newer one is computed (nothing
        // flickers); before any answer, computed here once, so no number shown is a
        // placeholder.
        let scores = Memo::new(move |prev: Option<&ScoreRank>| {
            score_answer
                .get()
                .or_else(|| prev.cloned())
                .unwrap_or_else(|| score_rank(seed.get(), n.get(), d_k.get()))
        });
        let scores_behind = Signal::derive(move || score_answer.with(Option::is_none));
        let k = Memo::new(move |_| (p.tracked(|p| p.int("rk")).max(1) as usize).min(n.get()));
        // Memos over single keys first: a heavy memo that read the whole URL state would
        // recompute whenever any control on the page moved.
        let target_id = state.choice("target");
        let target_inputs = Memo::new(move |_| (target_id.get(), seed.get(), n.get()));
        let (target_for, _) = follow_in_own_task(target_inputs, |&(_, _, n)| n > HEAVY_N);
        let target_on_screen = RwSignal::new(false);
        // Off the screen a change waits (a random pattern at 256 tokens is a softmax of
        // 65,536 draws): what was computed last stays until the figure comes near.
        let target = Memo::new(move |prev: Option<&DMatrix<f64>>| match prev {
            Some(prev) if !target_on_screen.get() => prev.clone(),
            _ => {
                let (id, seed, n) = target_for.get();
                target_pattern((TARGETS.value_of(id))(seed), n)
            }
        });
        let attention_job = use_worker_job(
            move || Job::AttentionSpectrum {
                seed: seed.get(),
                n: n.get(),
                d_k: d_k.get(),
            },
            |job, payload| match job {
                Job::AttentionSpectrum { n, .. } if payload.len() == *n => {
                    Some(Spectrum::of(payload.to_vec(), *n))
                }
                _ => None,
            },
            score_on_screen,
        );
        let attention = attention_job.answer;
        let target_job = use_worker_job(
            move || Job::TargetApproximation {
                pattern: (TARGETS.value_of(target_id.get()))(seed.get()),
                n: n.get(),
                k: k.get(),
            },
            |_, payload| decode_target(payload),
            target_on_screen,
        );
        let target_answer = target_job.answer;
        let shown_answer = Memo::new(move |prev: Option<&TargetAnswer>| {
            target_answer
                .get()
                .or_else(|| prev.cloned())
                .unwrap_or(TargetAnswer {
                    sigma: Vec::new(),
                    approx: DMatrix::zeros(0, 0),
                })
        });
        let approx = Memo::new(move |_| shown_answer.with(|a| a.approx.clone()));
        let errors = Memo::new(move |_| shown_answer.with(|a| relative_errors(&a.sigma)));
        let requested_heads = Memo::new(move |_| p.tracked(|p| p.int("mhh")).max(1) as usize);
        let heads_on_screen = RwSignal::new(false);
        // The draws and projections do not depend on the split into heads: a change of h
        // only cuts them again.
        let head_d = state.int("mhd");
        // What the weights are drawn from: (seed, tokens, d_model).
        let drawn_from = Memo::new(move |_| {
            (
                seed.get(),
                n.get().min(MULTI_HEAD_MAX_N),
                head_d.get().max(1) as usize,
            )
        });
        let head_weights = Memo::new(move |prev: Option<&MultiHeadWeights>| match prev {
            Some(prev) if !heads_on_screen.get() => prev.clone(),
            _ => {
                let (seed, n, d) = drawn_from.get();
                multi_head_weights(seed, n, d)
            }
        });
        let splits = StoredValue::new(HeadSplits::default());
        let heads = Memo::new(move |prev: Option<&MultiHead>| match prev {
            Some(prev) if !heads_on_screen.get() => prev.clone(),
            _ => {
                let (from, h) = (drawn_from.get(), requested_heads.get());
                head_weights.with(|w| {
                    splits
                        .try_update_value(|c| c.split(from, w, h))
                        .unwrap_or_else(|| multi_head_split(w, h))
                })
            }
        });
        let lora_shape = Memo::new(move |_| p.tracked(lora_shape));
        let lora_r = Memo::new(move |_| p.tracked(|p| p.int("lr")).max(1) as u64);
        let lora_bytes = Memo::new(move |_| p.tracked(|p| p.chosen("ldtype", &DTYPES)));
        let lora_decay = state.float("ldecay");
        let lora_errors = Memo::new(move |_| {
            let decay = lora_decay.get();
            let sv = singular_values(&decaying_update(seed.get(), LORA_EXAMPLE_SIZE, decay));
            (0..=sv.len())
                .map(|r| rank_k_relative_error(&sv, r))
                .collect::<Vec<f64>>()
        });
        Self {
            state,
            n,
            requested_d_k,
            d_k,
            seed,
            show_a,
            score_on_screen,
            heads_on_screen,
            target_on_screen,
            scores,
            scores_behind,
            score_in_flight: Signal::derive(move || {
                score_job.in_flight.get() || attention_job.in_flight.get()
            }),
            attention,
            k,
            target,
            target_answer,
            target_in_flight: target_job.in_flight,
            shown_answer,
            approx,
            errors,
            heads,
            requested_heads,
            lora_shape,
            lora_r,
            lora_bytes,
            lora_errors,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lora_shapes_come_from_presets_or_the_custom_fields() {
        let shape = |q: &str| lora_shape(&Params::from_query(q).0);
        assert_eq!(shape("lshape=8192x28672&lout=1"), (8192, 28672));
        assert_eq!(shape("lshape=custom&lout=0&lin=70000"), (1, 65_536));
        assert_eq!(shape("lshape=nonsense"), (4096, 4096));
    }
}
