//! The hook that computes the depth sweep in slices while its figure is on screen.

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::math::stability::{
    bottom_to_top, StackShape, Tape, WeightBank, Wiring, MAX_DEPTH, SWEEP_DEPTHS,
};
use crate::widgets::timing::Pace;
use crate::widgets::timing::Slices;

/// The depth sweep: bottom/top ratio at each depth of [`SWEEP_DEPTHS`] for each wiring
/// (None where it overflowed), computed in slices.
#[derive(Clone, Debug, PartialEq)]
pub struct DepthSweep {
    pub rows: Vec<(Wiring, Vec<Option<f64>>)>,
}

/// Computes the sweep for `base` (its wiring is ignored) whenever it changes while
/// `active` (the figure is on screen).
pub fn use_depth_sweep(
    base: Memo<StackShape>,
    active: RwSignal<bool>,
    bank: StoredValue<WeightBank>,
) -> AsyncSweep {
    let result = RwSignal::new(None::<DepthSweep>);
    // 1 = nothing running (a figure never scrolled to has nothing in progress).
    let progress = RwSignal::new(1.0f64);
    let generation = StoredValue::new(0u64);
    let done_for = StoredValue::new(None::<StackShape>);
    Effect::new(move |_| {
        let s = StackShape {
            wiring: Wiring::PLAIN,
            ..base.get()
        };
        if !active.get() {
            return;
        }
        let my_gen = generation.get_value() + 1;
        generation.set_value(my_gen);
        if done_for.with_value(|d| d.as_ref() == Some(&s)) {
            progress.set(1.0);
            return;
        }
        progress.set(0.0);
        spawn_local(async move {
            let current = move || generation.get_value() == my_gen;
            let total: usize =
                Wiring::SWEEP.len() * (MAX_DEPTH + SWEEP_DEPTHS.iter().sum::<usize>());
            let mut done = 0usize;
            let mut rows = Vec::new();
            let Some(mut slices) = Slices::start(Pace::asked_in_short_slices()).await else {
                return;
            };
            // After each block, forward or backward: a new slice shows the progress.
            let mut step = async |done: usize| -> Option<()> {
                if slices.step(&current).await? {
                    progress.set(done as f64 / total as f64);
                }
                Some(())
            };
            for wiring in Wiring::SWEEP {
                let mut tape = Tape::new(StackShape {
                    wiring,
                    ..s.clone()
                });
                let mut ratios = Vec::new();
                for &depth in &SWEEP_DEPTHS {
                    while tape.len() < depth {
                        bank.update_value(|b| tape.push_block_with(b));
                        done += 1;
                        if step(done).await.is_none() {
                            return;
                        }
                    }
                    let mut back = tape.backward(depth);
                    loop {
                        let finished = back.step(&tape);
                        done += 1;
                        if step(done).await.is_none() {
                            return;
                        }
                        if finished {
                            break;
                        }
                    }
                    ratios.push(bottom_to_top(&back.profile(&tape).input_grad_norm));
                }
                rows.push((wiring, ratios));
            }
            if current() {
                done_for.set_value(Some(s));
                result.set(Some(DepthSweep { rows }));
                progress.set(1.0);
            }
        });
    });
    AsyncSweep { result, progress }
}

/// The depth sweep's state.
#[derive(Clone, Copy)]
pub struct AsyncSweep {
    pub result: RwSignal<Option<DepthSweep>>,
    /// Fraction done of the latest request (1 when finished).
    pub progress: RwSignal<f64>,
}
