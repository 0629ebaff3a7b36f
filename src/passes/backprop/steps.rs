//! Pass 1's guided steps on `jacobian`: the division off, α up (with a prediction), the
//! division back, α back.

use crate::widgets::{Decide, Measure, Prediction, Step};

/// What each step asks, on its own: the page shows these before the steps' module
/// (which holds the rest of the table) has arrived.
pub const ASKS: [&str; 4] = [
    "Turn the division by √dₖ off.",
    "Raise the logit scale α to 20.",
    "Turn the division by √dₖ back on.",
    "Bring α back to 1.",
];

/// The steps of `jacobian`.
pub static STEPS: [Step; 4] = [
    Step {
        ask: ASKS[0],
        to: &[("div", "0"), ("alpha", "1")],
        see: "The scores are no longer divided by √dₖ, so they are larger: max p is {r:max-p} (it was {was:max-p}) and ‖J‖₂ {change:spectral}, to {r:spectral}. {verdict}",
        predict: None,
    },
    Step {
        ask: ASKS[1],
        to: &[("alpha", "20")],
        see: "At α = 20, ‖J‖₂ {change:spectral}: from {was:spectral} to {r:spectral}, and max p is {r:max-p}. {verdict}",
        predict: Some(Prediction {
            question: "when α goes from 1 to 20, what happens to the size of the Jacobian, ‖J‖₂?",
            options: &[
                ("grows", "It grows: larger scores, larger gradients."),
                ("same", "It stays about the same."),
                ("collapses", "It collapses towards zero."),
            ],
            decide: Decide {
                readout: "spectral",
                measure: Measure::Ratio,
                cases: &[(0.5, "collapses"), (2.0, "same")],
                otherwise: "grows",
            },
            why: "Larger scores push the softmax towards one-hot, and a one-hot p has pᵢ(1 − pᵢ) ≈ 0 on the diagonal and pᵢpⱼ ≈ 0 elsewhere: ‖J‖₂ went from {was:spectral} to {r:spectral}.",
        }),
    },
    Step {
        ask: ASKS[2],
        to: &[("div", "1")],
        see: "Divided by √dₖ again (α still 20): ‖J‖₂ = {r:spectral}, max p = {r:max-p}. {verdict}",
        predict: None,
    },
    Step {
        ask: ASKS[3],
        to: &[("alpha", "1")],
        see: "With unit-variance scores the door is open again: ‖J‖₂ = {r:spectral}, entropy {r:entropy} nats. {verdict}",
        predict: None,
    },
];
