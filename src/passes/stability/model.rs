//! Everything Pass 4 computes from the URL state: the stacks the figures show (shape and
//! depth, for `gradient-flow` and for A and B of `gradient-ab`), and what the figures
//! share: one bank of weight draws and the profiles computed lately.

use leptos::prelude::*;

use super::schedule::recent::RecentProfiles;
use crate::math::heads::heads_dividing;
use crate::math::stability::{StackShape, WeightBank, Wiring};
use crate::state::choices::{GRADIENTS, NORMS};
use crate::state::UrlState;

/// The stack the URL describes (everything but depth) for `wiring`.
pub fn shape_from(p: &crate::state::Params, wiring: Wiring) -> StackShape {
    let d_model = p.int("dmodel").max(1) as usize;
    StackShape {
        d_model,
        heads: heads_dividing(d_model, p.int("heads").max(1) as usize),
        seq_len: p.int("seq").max(1) as usize,
        gain: p.float("gain"),
        seed: p.int("sseed").max(0) as u64,
        wiring,
    }
}

/// Everything Pass 4 computes, as memos over the URL state.
#[derive(Clone, Copy)]
pub struct StabilityModel {
    pub state: UrlState,
    pub depth: Memo<usize>,
    pub weights: Memo<bool>,
    pub rho: Memo<f64>,
    pub requested_heads: Memo<usize>,
    pub shape: Memo<StackShape>,
    pub shape_a: Memo<StackShape>,
    pub shape_b: Memo<StackShape>,
    /// Unit weight draws shared by every Pass 4 figure (they share seed and d_model).
    pub bank: StoredValue<WeightBank>,
    /// Profiles computed lately, shared by every Pass 4 figure.
    pub recent: StoredValue<RecentProfiles>,
    /// True while a figure anticipates stacks in idle time (one at a time).
    pub anticipating: StoredValue<bool>,
}

impl StabilityModel {
    /// Builds the memo graph from the URL state.
    pub fn new(state: UrlState) -> Self {
        let p = state;
        let wiring = |res: &'static str, norm: &'static str| {
            move |p: &crate::state::Params| Wiring {
                residual: p.flag(res),
                norm: p.chosen(norm, &NORMS),
            }
        };
        let (w, wa, wb) = (
            wiring("res", "norm"),
            wiring("ares", "anorm"),
            wiring("bres", "bnorm"),
        );
        Self {
            state,
            depth: Memo::new(move |_| p.tracked(|p| p.int("depth")).max(1) as usize),
            weights: Memo::new(move |_| p.tracked(|p| p.chosen("grad", &GRADIENTS))),
            rho: Memo::new(move |_| p.tracked(|p| p.float("rho"))),
            requested_heads: Memo::new(move |_| p.tracked(|p| p.int("heads")).max(1) as usize),
            shape: Memo::new(move |_| p.tracked(|p| shape_from(p, w(p)))),
            shape_a: Memo::new(move |_| p.tracked(|p| shape_from(p, wa(p)))),
            shape_b: Memo::new(move |_| p.tracked(|p| shape_from(p, wb(p)))),
            bank: StoredValue::new(WeightBank::default()),
            recent: StoredValue::new(RecentProfiles::default()),
            anticipating: StoredValue::new(false),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_reduce_heads_to_a_divisor_and_clamp() {
        let (p, _, _) = crate::state::Params::from_query("dmodel=20&heads=3&gain=9");
        let s = shape_from(&p, Wiring::PLAIN);
        assert_eq!((s.d_model, s.heads, s.gain), (20, 2, 2.0));
    }
}
