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

/// What each step of `train-depth` asks, on its own.
pub const TRAIN_ASKS: [&str; 3] = [
    "Train two stacks of 8 blocks: A without residuals or norm, B with residuals and pre-norm.",
    "Make B a post-norm stack, the original Transformer's wiring, with A as before.",
    "Give A residuals too, but no norm.",
];

/// The steps of `train-depth`.
pub static TRAIN_STEPS: [Step; 3] = [
    Step {
        ask: TRAIN_ASKS[0],
        to: &[
            ("tdepth", "8"),
            ("twa", "plain"),
            ("twb", "pre"),
            ("twarma", "0"),
            ("twarmb", "0"),
            ("topt", "adamw"),
        ],
        see: "After {r:step} steps A is at {r:acc-a} held-out accuracy and B at {r:acc-b}. {verdict}",
        predict: Some(Prediction {
            question: "the same 8 blocks, the same data, the same seed. Which stack learns to reverse the sequence?",
            options: &[
                ("a", "A, without residuals or norm."),
                ("b", "B, with residuals and pre-norm."),
                ("both", "both."),
                ("neither", "neither."),
            ],
            decide: Decide {
                readout: "learned",
                measure: Measure::After,
                cases: &[(0.5, "neither"), (1.5, "a"), (2.5, "b")],
                otherwise: "both",
            },
            why: "Learned means at least 95 % held-out accuracy: A reached {r:acc-a}, B {r:acc-b}. At the last step A's bottom block received {r:grad-ratio-a} of its top block's gradient, B's {r:grad-ratio-b}; the heatmaps show it through the run. Where A's gradient did not fade, the plain stack failed for another reason: attention stacked without a residual path loses what tells the tokens apart, faster with every block (Dong, Cordonnier, Loukas, 2021).",
        }),
    },
    Step {
        ask: TRAIN_ASKS[1],
        to: &[("twb", "post")],
        see: "Post-norm at 8 blocks, without warm-up: B reaches {r:acc-b} (loss {r:loss-b}). {verdict} Turn on B's warm-up under More settings to compare.",
        predict: None,
    },
    Step {
        ask: TRAIN_ASKS[2],
        to: &[("twa", "res"), ("twb", "pre")],
        see: "Residuals without a norm: A reaches {r:acc-a}, B (pre-norm) {r:acc-b}. {verdict}",
        predict: None,
    },
];
