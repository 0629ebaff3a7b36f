//! Pass 3's guided steps on `score-rank`: a small dₖ, dₖ past n (with a prediction), and
//! back.

use crate::widgets::{Decide, Measure, Prediction, Step};

/// What each step asks, on its own: the page shows these before the steps' module
/// (which holds the rest of the table) has arrived.
pub const ASKS: [&str; 3] = [
    "Start from n = 32 tokens and dₖ = 4, the scores S shown.",
    "Raise dₖ from 4 to 48, past the 32 tokens.",
    "Bring dₖ back to 4.",
];

/// The steps of `score-rank`.
pub static STEPS: [Step; 3] = [
    Step {
        ask: ASKS[0],
        to: &[("rn", "32"), ("rdk", "4"), ("rshow", "s")],
        see: "With dₖ = 4, rank(S) = {r:rank-s} and rank(A) = {r:rank-a}. {verdict}",
        predict: None,
    },
    Step {
        ask: ASKS[1],
        to: &[("rdk", "48")],
        see: "rank(S) {change:rank-s}, to {r:rank-s}: it can never exceed min(n, dₖ), and here n = 32 is the smaller. rank(A) = {r:rank-a}. {verdict}",
        predict: Some(Prediction {
            question: "dₖ goes from 4 to 48 while n stays 32. What does rank(S) do?",
            options: &[
                ("stays", "It stays at 4."),
                ("n", "It grows to 32, the number of tokens, and stops there."),
                ("dk", "It grows to 48, with dₖ."),
            ],
            decide: Decide {
                readout: "rank-s",
                measure: Measure::After,
                cases: &[(4.5, "stays"), (32.5, "n")],
                otherwise: "dk",
            },
            why: "S = QKᵀ/√dₖ is n × n and built from two n × dₖ factors, so rank(S) ≤ min(n, dₖ): it followed dₖ until it met n. It reads {r:rank-s}.",
        }),
    },
    Step {
        ask: ASKS[2],
        to: &[("rdk", "4")],
        see: "rank(S) is back to {r:rank-s}, while rank(A) is {r:rank-a}. {verdict}",
        predict: None,
    },
];
