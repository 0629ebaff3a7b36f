//! Which stacks a reader is likely to ask for next (pure policy, no browser types): one
//! step of each slider either side, the slider that moved first and in its direction, then
//! one press of each switch.

use crate::math::rng::next_seed;
use crate::math::stability::{NormPlacement, StackShape, Wiring, MAX_DEPTH};
use crate::state::float_range;
use crate::state::SEED_MAX;

/// The gain slider's step, used by the slider and by the stacks anticipated one step
/// away (its range is the parameter table's).
pub const GAIN_STEP: f64 = 0.05;

/// Stacks no more work than this (d_model² · T · depth, four default stacks) are
/// anticipated; larger ones are computed only when asked for.
pub const ANTICIPATE_MAX_WORK: usize = 4 * 32 * 32 * 8 * 32;

/// The gain slider's values next to `gain`, above and below (None past its ends), as
/// the slider gives them (`"0.8"` parsed, not 0.75 + 0.05).
pub fn gains_beside(gain: f64) -> (Option<f64>, Option<f64>) {
    let steps = gain / GAIN_STEP;
    let at = |k: f64| {
        // k steps of 0.05 is 5k hundredths; one division rounds it as parsing would.
        let g = k * 5.0 / 100.0;
        let (lowest, highest) = const { float_range("gain") };
        (lowest..=highest).contains(&g).then_some(g)
    };
    (
        at((steps + 1e-9).floor() + 1.0),
        at((steps - 1e-9).ceil() - 1.0),
    )
}

/// Whether `key` is small enough to anticipate its neighbours in idle time.
pub fn worth_anticipating(key: &(StackShape, usize)) -> bool {
    let (s, l) = key;
    s.d_model * s.d_model * s.seq_len * l <= ANTICIPATE_MAX_WORK
}

/// The stacks a reader is likely to ask for next, after `previous` then `key`: one step
/// of the gain slider and of the depth slider either side, the slider that moved last
/// first, in the direction it moved, and for that slider also the step after next in
/// that direction (a fast drag skips values: the pointer moves several steps a frame).
pub fn likely_next(
    key: &(StackShape, usize),
    previous: Option<&(StackShape, usize)>,
) -> Vec<(StackShape, usize)> {
    let (shape, depth) = key;
    let with_gain = |g: f64| {
        (
            StackShape {
                gain: g,
                ..shape.clone()
            },
            *depth,
        )
    };
    let (up, down) = gains_beside(shape.gain);
    let gain_steps = SliderSteps {
        up: [up, up.and_then(|g| gains_beside(g).0)],
        down: [down, down.and_then(|g| gains_beside(g).1)],
    }
    .map(with_gain);
    let depth_at = |l: usize| (1..=MAX_DEPTH).contains(&l).then_some(l);
    let depth_steps = SliderSteps {
        up: [depth_at(depth + 1), depth_at(depth + 2)],
        down: [
            depth.checked_sub(1).and_then(depth_at),
            depth.checked_sub(2).and_then(depth_at),
        ],
    }
    .map(|l| (shape.clone(), l));
    let moved_gain = previous.and_then(|(p, l)| {
        let same_but_gain = StackShape {
            gain: shape.gain,
            ..p.clone()
        } == *shape;
        (same_but_gain && l == depth && p.gain != shape.gain).then_some(p.gain < shape.gain)
    });
    let moved_depth = previous.and_then(|(p, l)| (p == shape && l != depth).then_some(l < depth));
    match (moved_gain, moved_depth) {
        (_, Some(upward)) => [depth_steps.ahead(upward), gain_steps.beside()].concat(),
        (Some(upward), _) => [gain_steps.ahead(upward), depth_steps.beside()].concat(),
        (None, None) => [gain_steps.beside(), depth_steps.beside()].concat(),
    }
}

/// A slider's values one and two steps above and below the one shown (None past its
/// ends).
pub struct SliderSteps<T> {
    up: [Option<T>; 2],
    down: [Option<T>; 2],
}

impl<T> SliderSteps<T> {
    fn map<U>(self, f: impl Fn(T) -> U) -> SliderSteps<U> {
        let [u1, u2] = self.up;
        let [d1, d2] = self.down;
        SliderSteps {
            up: [u1.map(&f), u2.map(&f)],
            down: [d1.map(&f), d2.map(&f)],
        }
    }

    /// One step either side, upward first: for a slider that did not move last.
    fn beside(self) -> Vec<T> {
        let [u1, _] = self.up;
        let [d1, _] = self.down;
        [u1, d1].into_iter().flatten().collect()
    }

    /// For the slider that moved last: one step, then two, in the direction it moved
    /// (`upward`), then one step back.
    fn ahead(self, upward: bool) -> Vec<T> {
        let ([a1, a2], [b1, _]) = if upward {
            (self.up, self.down)
        } else {
            (self.down, self.up)
        };
        [a1, a2, b1].into_iter().flatten().collect()
    }
}

/// The stacks one press of a switch away from `key`, after the slider steps of
/// [`likely_next`]: the residual turned the other way, each other norm placement, and the
/// seed the "New" button gives next ([`next_seed`]).
pub fn likely_switches(key: &(StackShape, usize)) -> Vec<(StackShape, usize)> {
    let (shape, depth) = key;
    let with_wiring = |residual: bool, norm: NormPlacement| {
        (
            StackShape {
                wiring: Wiring { residual, norm },
                ..shape.clone()
            },
            *depth,
        )
    };
    let Wiring { residual, norm } = shape.wiring;
    let mut next = vec![with_wiring(!residual, norm)];
    next.extend(
        [NormPlacement::None, NormPlacement::Post, NormPlacement::Pre]
            .into_iter()
            .filter(|n| *n != norm)
            .map(|n| with_wiring(residual, n)),
    );
    let seed = next_seed(shape.seed, SEED_MAX as u64);
    next.push((
        StackShape {
            seed,
            ..shape.clone()
        },
        *depth,
    ));
    next
}

/// Everything [`anticipate`] computes after `previous` then `key`, in order: the slider
/// steps of [`likely_next`], then the switches of [`likely_switches`]; but where the seed
/// is what changed last (a press of "New"), the next seed first, as a reader who
/// presses New once is likely to press it again.
pub fn anticipation_order(
    key: &(StackShape, usize),
    previous: Option<&(StackShape, usize)>,
) -> Vec<(StackShape, usize)> {
    let (shape, depth) = key;
    let seed_moved = previous.is_some_and(|(p, l)| {
        l == depth
            && p.seed != shape.seed
            && StackShape {
                seed: shape.seed,
                ..p.clone()
            } == *shape
    });
    let mut switches = likely_switches(key);
    let mut order = Vec::with_capacity(switches.len() + 4);
    if seed_moved {
        // The next seed is the last of the switches.
        order.extend(switches.pop());
    }
    order.extend(likely_next(key, previous));
    order.extend(switches);
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(seed: u64, depth: usize) -> (StackShape, usize) {
        let shape = StackShape {
            d_model: 16,
            heads: 2,
            seq_len: 4,
            gain: 1.0,
            seed,
            wiring: Wiring::PLAIN,
        };
        (shape, depth)
    }

    fn at_gain(gain: f64, depth: usize) -> (StackShape, usize) {
        let (shape, _) = key(1, depth);
        (StackShape { gain, ..shape }, depth)
    }

    fn gains_and_depths(keys: &[(StackShape, usize)]) -> Vec<(f64, usize)> {
        keys.iter().map(|(s, l)| (s.gain, *l)).collect()
    }

    #[test]
    fn neighbouring_gains_are_the_values_the_slider_gives() {
        // The slider's value is its text parsed: "0.8", not 0.75 + 0.05.
        let parsed = |text: &str| text.parse::<f64>().ok();
        assert_eq!(gains_beside(0.75), (parsed("0.8"), Some(0.7)));
        assert_eq!(gains_beside(0.9).0, parsed("0.95"));
        assert_ne!(
            0.9 + GAIN_STEP,
            0.95,
            "a sum would miss the profile kept for 0.95"
        );
        assert_eq!(gains_beside(1.15), (parsed("1.2"), parsed("1.1")));
        // A gain between two steps (from a URL) has the grid values either side.
        assert_eq!(gains_beside(0.73), (Some(0.75), Some(0.7)));
        // Past the ends there is nothing.
        assert_eq!(gains_beside(0.25), (Some(0.3), None));
        assert_eq!(gains_beside(2.0), (None, Some(1.95)));
    }

    #[test]
    fn after_no_move_the_gain_neighbours_come_before_the_depth_neighbours() {
        let next = likely_next(&at_gain(1.0, 32), None);
        assert_eq!(
            gains_and_depths(&next),
            vec![(1.05, 32), (0.95, 32), (1.0, 33), (1.0, 31)]
        );
    }

    #[test]
    fn the_slider_that_moved_is_anticipated_first_in_the_direction_it_moved() {
        let down_gain = likely_next(&at_gain(0.9, 32), Some(&at_gain(0.95, 32)));
        assert_eq!(
            gains_and_depths(&down_gain)[..3],
            [(0.85, 32), (0.8, 32), (0.95, 32)]
        );
        let up_depth = likely_next(&at_gain(1.0, 33), Some(&at_gain(1.0, 32)));
        assert_eq!(
            gains_and_depths(&up_depth)[..3],
            [(1.0, 34), (1.0, 35), (1.0, 32)]
        );
        let down_depth = likely_next(&at_gain(1.0, 31), Some(&at_gain(1.0, 32)));
        assert_eq!(
            gains_and_depths(&down_depth)[..3],
            [(1.0, 30), (1.0, 29), (1.0, 32)]
        );
    }

    #[test]
    fn the_slider_that_moved_has_its_step_after_next_anticipated_and_the_other_one_step() {
        // Two steps of the slider that moved (a fast drag skips values), one back; the
        // other slider one step either side.
        let up_gain = likely_next(&at_gain(1.05, 32), Some(&at_gain(1.0, 32)));
        assert_eq!(
            gains_and_depths(&up_gain),
            vec![(1.1, 32), (1.15, 32), (1.0, 32), (1.05, 33), (1.05, 31)]
        );
        // The step after next is the slider's value as parsed ("1.15"), not 1.05 + 2 × 0.05.
        assert_ne!(1.05 + 2.0 * GAIN_STEP, 1.15);
    }

    #[test]
    fn the_step_after_next_stays_within_the_sliders_ranges() {
        let near_top = likely_next(&at_gain(1.95, 32), Some(&at_gain(1.9, 32)));
        assert_eq!(
            gains_and_depths(&near_top)[..2],
            [(2.0, 32), (1.9, 32)],
            "no gain past 2"
        );
        let near_bottom = likely_next(&at_gain(1.0, 2), Some(&at_gain(1.0, 3)));
        assert_eq!(
            gains_and_depths(&near_bottom)[..2],
            [(1.0, 1), (1.0, 3)],
            "no depth below 1"
        );
        let at_deepest = likely_next(&at_gain(1.0, MAX_DEPTH), Some(&at_gain(1.0, MAX_DEPTH - 1)));
        assert_eq!(gains_and_depths(&at_deepest)[0], (1.0, MAX_DEPTH - 1));
    }

    #[test]
    fn anticipated_stacks_stay_within_the_sliders_ranges() {
        let at_ends = likely_next(&at_gain(2.0, MAX_DEPTH), None);
        assert_eq!(
            gains_and_depths(&at_ends),
            vec![(1.95, MAX_DEPTH), (2.0, MAX_DEPTH - 1)]
        );
        let at_bottom = likely_next(&at_gain(0.25, 1), None);
        assert_eq!(gains_and_depths(&at_bottom), vec![(0.3, 1), (0.25, 2)]);
    }

    #[test]
    fn the_switches_anticipated_are_the_residual_flipped_each_other_norm_and_the_next_seed() {
        let (shape, depth) = at_gain(1.0, 32);
        let from = StackShape {
            wiring: Wiring::PRE_NORM,
            ..shape
        };
        let next = likely_switches(&(from.clone(), depth));
        let wirings: Vec<_> = next.iter().map(|(s, _)| s.wiring).collect();
        assert_eq!(
            wirings[..3],
            [
                Wiring {
                    residual: false,
                    norm: NormPlacement::Pre
                },
                Wiring {
                    residual: true,
                    norm: NormPlacement::None
                },
                Wiring::POST_NORM,
            ]
        );
        assert_eq!(next[3].0.seed, next_seed(from.seed, SEED_MAX as u64));
        assert_ne!(next[3].0.seed, from.seed);
        assert_eq!(next[3].0.wiring, from.wiring);
        // Only the switch changes: depth, width, tokens and gain stay.
        for (s, l) in &next {
            assert_eq!(*l, depth);
            assert_eq!(
                (s.d_model, s.seq_len, s.heads, s.gain),
                (from.d_model, from.seq_len, from.heads, from.gain)
            );
        }
        assert_eq!(next.len(), 4);
    }

    #[test]
    fn after_a_new_seed_the_next_seed_is_anticipated_first() {
        let (shape, depth) = at_gain(1.0, 32);
        let pressed = (
            StackShape {
                seed: next_seed(shape.seed, SEED_MAX as u64),
                ..shape.clone()
            },
            depth,
        );
        let order = anticipation_order(&pressed, Some(&(shape, depth)));
        assert_eq!(order[0].0.seed, next_seed(pressed.0.seed, SEED_MAX as u64));
        assert_eq!(order.len(), 8, "2 gains, 2 depths, 3 wirings, 1 seed");
        assert_eq!(
            order
                .iter()
                .filter(|(s, _)| s.seed != pressed.0.seed)
                .count(),
            1
        );
    }

    #[test]
    fn after_a_slider_step_the_sliders_come_first_and_the_next_seed_last() {
        let order = anticipation_order(&at_gain(1.05, 32), Some(&at_gain(1.0, 32)));
        assert_eq!(
            gains_and_depths(&order[..5]),
            vec![(1.1, 32), (1.15, 32), (1.0, 32), (1.05, 33), (1.05, 31)]
        );
        assert_ne!(order[8].0.seed, order[0].0.seed);
        assert_eq!(order.len(), 9);
    }

    #[test]
    fn a_change_of_anything_else_anticipates_as_after_no_move() {
        let other_seed = key(2, 32);
        let next = likely_next(&at_gain(1.0, 32), Some(&other_seed));
        assert_eq!(next, likely_next(&at_gain(1.0, 32), None));
    }

    #[test]
    fn only_stacks_up_to_four_default_stacks_of_work_are_anticipated() {
        let default = (
            StackShape {
                d_model: 32,
                seq_len: 8,
                ..key(1, 32).0
            },
            32,
        );
        assert!(worth_anticipating(&default));
        assert!(worth_anticipating(&(default.0.clone(), 128)));
        let heaviest = (
            StackShape {
                d_model: 64,
                seq_len: 16,
                ..key(1, 128).0
            },
            128,
        );
        assert!(!worth_anticipating(&heaviest));
    }
}
