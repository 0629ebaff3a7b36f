//! The profiles computed lately, shared by the Pass 4 figures, and which stacks are being
//! computed right now (pure: no browser types).

use crate::math::stability::{GradientProfile, StackShape};

/// Profiles of the stacks computed most recently, shared by the Pass 4 figures: at the
/// defaults `gradient-ab`'s A is exactly `gradient-flow`'s stack, and a reader dragging a
/// slider back and forth returns to depths already computed. A stack another figure is
/// computing right now is marked pending, so that it is not computed twice at once.
#[derive(Clone, Debug, Default)]
pub struct RecentProfiles {
    /// Newest last; at most [`RecentProfiles::KEEP`] finished entries.
    done: Vec<((StackShape, usize), GradientProfile)>,
    pending: Vec<(StackShape, usize)>,
}

/// What [`RecentProfiles`] knows about one stack.
#[derive(Clone, Debug, PartialEq)]
pub enum Known {
    Done(GradientProfile),
    /// Another figure is computing it.
    Pending,
    Unknown,
}

impl RecentProfiles {
    /// Finished profiles kept (a profile at depth 128 is about 2 KB): room for the
    /// stacks asked for lately and for those anticipated around them.
    pub const KEEP: usize = 48;

    /// What is known about the stack `key` (a shape and a depth).
    pub fn lookup(&self, key: &(StackShape, usize)) -> Known {
        if let Some((_, p)) = self.done.iter().find(|(k, _)| k == key) {
            Known::Done(p.clone())
        } else if self.pending.contains(key) {
            Known::Pending
        } else {
            Known::Unknown
        }
    }

    /// Marks `key` as being computed.
    pub fn begin(&mut self, key: (StackShape, usize)) {
        if !self.pending.contains(&key) {
            self.pending.push(key);
        }
    }

    /// The computation of `key` was dropped before it finished.
    pub fn abandon(&mut self, key: &(StackShape, usize)) {
        self.pending.retain(|k| k != key);
    }

    /// Stores the finished profile of `key`, forgetting the oldest beyond [`Self::KEEP`].
    pub fn finish(&mut self, key: (StackShape, usize), profile: GradientProfile) {
        self.abandon(&key);
        self.done.retain(|(k, _)| *k != key);
        self.done.push((key, profile));
        if self.done.len() > Self::KEEP {
            self.done.remove(0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::stability::shape::Wiring;

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

    fn profile(loss: f64) -> GradientProfile {
        GradientProfile {
            input_grad_norm: vec![1.0, 2.0],
            weight_grad_norm: vec![3.0, 4.0],
            loss,
            forward_overflow: None,
        }
    }

    #[test]
    fn a_finished_profile_is_found_by_its_shape_and_depth_only() {
        let mut recent = RecentProfiles::default();
        recent.finish(key(1, 32), profile(0.5));
        assert_eq!(recent.lookup(&key(1, 32)), Known::Done(profile(0.5)));
        assert_eq!(recent.lookup(&key(1, 31)), Known::Unknown);
        assert_eq!(recent.lookup(&key(2, 32)), Known::Unknown);
    }

    #[test]
    fn a_stack_being_computed_is_pending_until_finished_or_abandoned() {
        let mut recent = RecentProfiles::default();
        recent.begin(key(1, 8));
        assert_eq!(recent.lookup(&key(1, 8)), Known::Pending);
        recent.abandon(&key(1, 8));
        assert_eq!(recent.lookup(&key(1, 8)), Known::Unknown);
        recent.begin(key(1, 8));
        recent.finish(key(1, 8), profile(1.0));
        assert_eq!(recent.lookup(&key(1, 8)), Known::Done(profile(1.0)));
    }

    #[test]
    fn only_the_newest_profiles_are_kept() {
        let mut recent = RecentProfiles::default();
        for depth in 1..=RecentProfiles::KEEP + 2 {
            recent.finish(key(1, depth), profile(depth as f64));
        }
        assert_eq!(recent.lookup(&key(1, 1)), Known::Unknown);
        assert_eq!(recent.lookup(&key(1, 2)), Known::Unknown);
        let newest = RecentProfiles::KEEP + 2;
        assert_eq!(
            recent.lookup(&key(1, newest)),
            Known::Done(profile(newest as f64))
        );
        // Finishing a stack again replaces it rather than keeping two.
        recent.finish(key(1, newest), profile(-1.0));
        assert_eq!(recent.lookup(&key(1, newest)), Known::Done(profile(-1.0)));
        assert_eq!(recent.done.len(), RecentProfiles::KEEP);
    }
}
