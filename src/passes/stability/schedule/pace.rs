//! How a stack's work is spread over time: slices of a few milliseconds with a yield to
//! the browser between them when asked for, idle periods only when anticipated; and the
//! run of one stack, block by block, in such slices.

use leptos::prelude::*;

use crate::math::stability::{GradientProfile, Tape, WeightBank};
use crate::widgets::timing::Pace;
use crate::widgets::timing::Slices;

/// The weights a stack is computed with: the page's shared [`WeightBank`] (the seed
/// shown), or a bank of its own for a stack of another seed, anticipated, whose draws are
/// let go with it (only its profile is kept), so that the shared bank never switches to
/// a seed the reader has not asked for while the figures' tapes hold the shown seed's.
pub enum Weights {
    Shared(StoredValue<WeightBank>),
    Own(WeightBank),
}

impl Weights {
    /// Appends the next block to `t`; None if the shared bank was disposed.
    pub fn push_block(&mut self, t: &mut Tape) -> Option<()> {
        match self {
            Weights::Shared(bank) => bank.try_update_value(|b| t.push_block_with(b)),
            Weights::Own(bank) => {
                t.push_block_with(bank);
                Some(())
            }
        }
    }
}

/// Runs the stack `t` to depth `l` (only the blocks it lacks) and backward, in slices
/// paced by `pace`. None as soon as `wanted()` is false at the start of a slice after
/// the first.
pub async fn run_stack(
    t: &mut Tape,
    l: usize,
    weights: &mut Weights,
    pace: Pace,
    wanted: &dyn Fn() -> bool,
) -> Option<GradientProfile> {
    let mut slices = Slices::start(pace).await?;
    if !wanted() {
        return None;
    }
    while t.len() < l {
        weights.push_block(t)?;
        slices.step(wanted).await?;
    }
    let mut back = t.backward(l);
    while !back.step(t) {
        slices.step(wanted).await?;
    }
    Some(back.profile(t))
}
