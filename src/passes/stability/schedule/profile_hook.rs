//! The hook that keeps a figure's profile up to date: computed in slices when asked for,
//! dropped when a newer request exists, shared through the recent profiles, and followed
//! in idle time by the stacks a reader is likely to ask for next.

use leptos::prelude::*;
use leptos::task::spawn_local;

use super::pace::*;
use super::policy::*;
use super::recent::*;
use super::tape_slot::TapeSlot;
use crate::math::stability::{GradientProfile, StackShape, Tape, WeightBank, MAX_DEPTH};
use crate::passes::stability::model::StabilityModel;
use crate::widgets::timing::Pace;
use crate::widgets::timing::{idle_period, run_now_then_spawn, yield_to_browser};

/// A gradient profile computed in slices, superseded by newer requests.
#[derive(Clone, Copy)]
pub struct AsyncProfile {
    /// The latest finished profile with the depth it belongs to.
    pub result: RwSignal<Option<(usize, GradientProfile)>>,
    /// True while a newer request is still being computed.
    pub busy: RwSignal<bool>,
    /// Whether the profile shown was ready when it was asked for (kept from earlier),
    /// rather than computed for the request. Shown as `data-source`.
    pub was_ready: RwSignal<bool>,
}

/// `data-source` of a figure's readouts: `ready` if every profile it shows was ready
/// when asked for, `computed` if one had to be computed (benchmarks tell them apart).
pub fn source_of(runs: &[AsyncProfile]) -> &'static str {
    if runs.iter().all(|r| r.was_ready.get()) {
        "ready"
    } else {
        "computed"
    }
}

/// Computes, in idle time only, the stacks a reader is likely to ask for next from `key`
/// ([`likely_next`], then [`likely_switches`]), so that the next slider step or switch
/// finds its profile ready. One figure
/// at a time; stops as soon as `current()` is false (the figure was asked for anything
/// new, or left the screen).
pub async fn anticipate(
    key: (StackShape, usize),
    previous: Option<(StackShape, usize)>,
    model: StabilityModel,
    slot: TapeSlot,
    current: impl Fn() -> bool + Copy,
) {
    if !worth_anticipating(&key) {
        return;
    }
    while model.anticipating.try_get_value() != Some(false) {
        if idle_period().await.is_none() || !current() {
            return;
        }
    }
    model.anticipating.set_value(true);
    for next in anticipation_order(&key, previous.as_ref()) {
        if !current() {
            break;
        }
        if model.recent.with_value(|r| r.lookup(&next)) != Known::Unknown {
            continue;
        }
        let mut t = slot
            .copy_for(&next.0)
            .unwrap_or_else(|| Tape::new(next.0.clone()));
        let mut weights = if next.0.seed == key.0.seed {
            Weights::Shared(model.bank)
        } else {
            Weights::Own(WeightBank::default())
        };
        match run_stack(&mut t, next.1, &mut weights, Pace::Idle, &current).await {
            Some(profile) => model.recent.update_value(|r| r.finish(next, profile)),
            None => break,
        }
    }
    model.anticipating.try_set_value(false);
}

/// Keeps a profile of `shape` at `depth` up to date while `active` (the figure is on
/// screen). The tape is kept across depths, and finished profiles are shared through the
/// model's [`RecentProfiles`].
pub fn use_gradient_profile(
    shape: Memo<StackShape>,
    depth: Memo<usize>,
    active: RwSignal<bool>,
    model: StabilityModel,
) -> AsyncProfile {
    let (bank, recent) = (model.bank, model.recent);
    let result = RwSignal::new(None::<(usize, GradientProfile)>);
    let busy = RwSignal::new(false);
    let was_ready = RwSignal::new(false);
    let generation = StoredValue::new(0u64);
    let requested = StoredValue::new(None::<(StackShape, usize)>);
    let slot = TapeSlot::new();
    let done_for = StoredValue::new(None::<(StackShape, usize)>);
    let show = move |key: (StackShape, usize), profile: GradientProfile, ready: bool| {
        let l = key.1;
        let previous = done_for.get_value();
        done_for.set_value(Some(key.clone()));
        was_ready.set(ready);
        result.set(Some((l, profile)));
        busy.set(false);
        let shown_gen = generation.get_value();
        let current = move || {
            generation.try_get_value() == Some(shown_gen)
                && active.try_get_untracked() == Some(true)
        };
        spawn_local(anticipate(key, previous, model, slot, current));
    };
    Effect::new(move |_| {
        let s = shape.get();
        let l = depth.get().clamp(1, MAX_DEPTH);
        if !active.get() {
            return;
        }
        // A newer request always cancels a run in flight, even when its answer is known
        // (unless that run computes exactly what is asked now).
        let my_gen = generation.get_value() + 1;
        generation.set_value(my_gen);
        let key = (s, l);
        requested.set_value(Some(key.clone()));
        if done_for.with_value(|d| d.as_ref() == Some(&key)) {
            busy.set(false);
            slot.forget_unless(&key.0);
            return;
        }
        if let Known::Done(p) = recent.with_value(|r| r.lookup(&key)) {
            slot.forget_unless(&key.0);
            show(key, p, true);
            return;
        }
        busy.set(true);
        run_now_then_spawn(async move {
            let current = move || generation.try_get_value() == Some(my_gen);
            let asked = move |k: &(StackShape, usize)| {
                current() || requested.try_with_value(|r| r.as_ref() == Some(k)) == Some(true)
            };
            // Another task computing this very stack: wait for it instead.
            loop {
                match recent.with_value(|r| r.lookup(&key)) {
                    Known::Done(p) => {
                        if current() {
                            show(key, p, false);
                        }
                        return;
                    }
                    Known::Pending => {
                        yield_to_browser().await;
                        if !current() {
                            return;
                        }
                    }
                    Known::Unknown => break,
                }
            }
            recent.update_value(|r| r.begin(key.clone()));
            let Some(mut t) = slot.borrow(&key.0, current).await else {
                recent.update_value(|r| r.abandon(&key));
                return;
            };
            // The first slice may use most of the frame; later ones stay short.
            let pace = Pace::asked_now();
            let k = key.clone();
            let same_shape = move |k: &(StackShape, usize)| {
                requested.try_with_value(|r| r.as_ref().map(|r| &r.0) == Some(&k.0)) == Some(true)
            };
            let Some(profile) = run_stack(
                &mut t,
                key.1,
                &mut Weights::Shared(bank),
                pace,
                &move || asked(&k),
            )
            .await
            else {
                recent.update_value(|r| r.abandon(&key));
                return slot.give_back(t, same_shape(&key));
            };
            recent.update_value(|r| r.finish(key.clone(), profile.clone()));
            if requested.with_value(|r| r.as_ref() == Some(&key)) {
                show(key.clone(), profile, false);
            }
            slot.give_back(t, same_shape(&key));
        });
    });
    AsyncProfile {
        result,
        busy,
        was_ready,
    }
}
