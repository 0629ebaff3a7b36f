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

/// What each step of `train-scale` asks, on its own.
pub const TRAIN_ASKS: [&str; 2] = [
    "Train both runs at d_k = 32 on associative recall: A divides the logits by √d_k, B does not.",
    "Shrink d_k to 8, where √d_k is under 3.",
];

/// The steps of `train-scale`.
pub static TRAIN_STEPS: [Step; 2] = [
    Step {
        ask: TRAIN_ASKS[0],
        to: &[("tsdk", "32"), ("tsopt", "adamw"), ("tstask", "recall")],
        see: "After {r:step} steps the scaled run is at {r:acc-a} and the unscaled one at {r:acc-b}; attention entropy {r:entropy-a} against {r:entropy-b} nats. {verdict}",
        predict: Some(Prediction {
            question: "the same model and data, with and without ÷√d_k at d_k = 32. Which run learns to recall?",
            options: &[
                ("a", "A, with ÷√d_k."),
                ("b", "B, without."),
                ("both", "both."),
                ("neither", "neither."),
            ],
            decide: Decide {
                readout: "learned",
                measure: Measure::After,
                cases: &[(0.5, "neither"), (1.5, "a"), (2.5, "b")],
                otherwise: "both",
            },
            why: "Learned means at least 95 % held-out accuracy: A reached {r:acc-a}, B {r:acc-b}. Without the division the logits are √d_k times larger, the softmax starts nearly one-hot (entropy {r:entropy-b} nats against {r:entropy-a}), and its Jacobian passes little gradient to W_Q and W_K.",
        }),
    },
    Step {
        ask: TRAIN_ASKS[1],
        to: &[("tsdk", "8")],
        see: "At d_k = 8 the scaled run reaches {r:acc-a} and the unscaled {r:acc-b}. {verdict}",
        predict: None,
    },
];
