//! A figure's forward tape, lent to one task at a time.

use leptos::prelude::*;

use crate::math::stability::{StackShape, Tape};
use crate::widgets::timing::{now_ms, yield_to_browser};

/// A figure's forward tape, lent to one task at a time, so that a request does not start
/// the forward pass again from block 0 while an older task still holds the tape.
#[derive(Clone, Copy)]
pub struct TapeSlot {
    tape: StoredValue<Option<Tape>>,
    lent: StoredValue<bool>,
}

impl TapeSlot {
    /// How long a task waits for the tape before it starts a new one (ms).
    const PATIENCE_MS: f64 = 250.0;

    pub fn new() -> Self {
        Self {
            tape: StoredValue::new(None),
            lent: StoredValue::new(false),
        }
    }

    /// The tape for `shape` (a new one if the kept one is of another shape), once no
    /// other task holds it; None if `wanted()` turns false meanwhile.
    pub async fn borrow(self, shape: &StackShape, wanted: impl Fn() -> bool) -> Option<Tape> {
        let since = now_ms();
        while self.lent.try_get_value() == Some(true) && now_ms() - since < Self::PATIENCE_MS {
            yield_to_browser().await;
            if !wanted() {
                return None;
            }
        }
        self.lent.try_set_value(true);
        let kept = self.tape.try_update_value(|t| t.take()).flatten();
        Some(
            kept.filter(|t| t.shape == *shape)
                .unwrap_or_else(|| Tape::new(shape.clone())),
        )
    }

    /// Returns the tape, or lets it go when the figure now wants another shape: a tape
    /// holds every block's activations, tens of MB for the largest stacks, and a shape
    /// no longer asked for must not keep them alive.
    pub fn give_back(self, t: Tape, still_wanted: bool) {
        self.tape.try_set_value(still_wanted.then_some(t));
        self.lent.try_set_value(false);
    }

    /// A copy of the kept tape if it is of `shape` and no task holds it (a stack of a
    /// neighbouring depth then needs no forward pass from block 0).
    pub fn copy_for(self, shape: &StackShape) -> Option<Tape> {
        if self.lent.try_get_value() != Some(false) {
            return None;
        }
        self.tape
            .try_with_value(|t| t.as_ref().filter(|t| t.shape == *shape).cloned())
            .flatten()
    }

    /// Lets a kept tape of another shape than `shape` go (one that no task holds).
    pub fn forget_unless(self, shape: &StackShape) {
        if self.lent.try_get_value() == Some(false)
            && self
                .tape
                .try_with_value(|t| t.as_ref().is_some_and(|t| t.shape != *shape))
                == Some(true)
        {
            self.tape.try_set_value(None);
        }
    }
}
