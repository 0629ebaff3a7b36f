//! Pass 4's guided steps on `gradient-flow`: a shallow plain stack, a deep one (with a
//! prediction), and the identity path.

use crate::widgets::{Decide, Measure, Prediction, Step};

/// What each step asks, on its own: the page shows these before the steps' module
/// (which holds the rest of the table) has arrived.
pub const ASKS: [&str; 3] = [
    "Turn the residual connections off, with no LayerNorm, and set the depth to 8 blocks.",
    "Raise the depth to 64 blocks, still without residuals.",
    "Turn the residual connections on, with pre-norm.",
];

/// The steps of `gradient-flow`.
pub static STEPS: [Step; 3] = [
    Step {
        ask: ASKS[0],
        to: &[("res", "0"), ("norm", "none"), ("depth", "8")],
        see: "8 blocks without residuals: the gradient reaching layer 0 is {r:grad-ratio} of the top layer's. {verdict}",
        predict: None,
    },
    Step {
        ask: ASKS[1],
        to: &[("depth", "64")],
        see: "At 64 blocks bottom over top is {r:grad-ratio} (it {change:grad-ratio}). {verdict}",
        predict: Some(Prediction {
            question: "the stack goes from 8 to 64 blocks, without residuals. The gradient reaching layer 0, relative to the top's…",
            options: &[
                ("same", "stays about the same."),
                ("shrinks", "gets a few times smaller."),
                ("vanishes", "vanishes: many orders of magnitude smaller."),
                ("explodes", "explodes: much larger."),
            ],
            decide: Decide {
                readout: "grad-ratio",
                measure: Measure::Ratio,
                cases: &[(1e-3, "vanishes"), (0.5, "shrinks"), (2.0, "same")],
                otherwise: "explodes",
            },
            why: "Backpropagation multiplies one Jacobian per block, and without an identity path nothing stops the product from shrinking block after block: bottom over top went from {was:grad-ratio} to {r:grad-ratio}.",
        }),
    },
    Step {
        ask: ASKS[2],
        to: &[("res", "1"), ("norm", "pre")],
        see: "With the identity path x + F(LN(x)) bottom over top is {r:grad-ratio}. {verdict}",
        predict: None,
    },
];
