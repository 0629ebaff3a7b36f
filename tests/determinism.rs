//! The seeded generator gives the same bits natively as in the browser
//! (tests/components.rs checks the same constants under wasm32).
#![cfg(not(target_arch = "wasm32"))]

use handwave::math::backprop::sample_raw_scores;

include!("pinned_scores.in");

#[test]
fn seeded_scores_are_pinned() {
    assert_eq!(sample_raw_scores(1, 3, 4), PINNED_SCORES.to_vec());
}
