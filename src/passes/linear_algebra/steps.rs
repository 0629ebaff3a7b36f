//! Pass 3's guided steps on `score-rank`: a small dₖ, dₖ past n (with a prediction), and
//! back; and on `finetune-memory`: full fine-tuning, LoRA, then QLoRA at 70B (with a
//! prediction of the machine it fits).

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

/// What each step of `finetune-memory` asks, on its own (see [`ASKS`]).
pub const FINETUNE_ASKS: [&str; 3] = [
    "Start with full fine-tuning of Llama-3-8B.",
    "Freeze the base and train LoRA adapters instead.",
    "Now the big one: QLoRA on Llama-3-70B.",
];

const GIB: f64 = 1_073_741_824.0;

/// The steps of `finetune-memory`: full fine-tuning, LoRA, then QLoRA at 70B with a
/// prediction of the machine it fits, decided from `bytes-qlora` against the laptops.
pub static FINETUNE_STEPS: [Step; 3] = [
    Step {
        ask: FINETUNE_ASKS[0],
        to: &[("ftmodel", "llama3-8b"), ("ftmethod", "full")],
        see: "Full fine-tuning of an 8B model needs {r:bytes-full}: 16 bytes for every weight before one activation. {verdict}",
        predict: None,
    },
    Step {
        ask: FINETUNE_ASKS[1],
        to: &[("ftmethod", "lora")],
        see: "LoRA needs {r:bytes-lora}: the frozen weights have no gradients and no optimiser states, only {r:trainable-params} adapter parameters do. {verdict}",
        predict: None,
    },
    Step {
        ask: FINETUNE_ASKS[2],
        to: &[("ftmodel", "llama3-70b"), ("ftmethod", "qlora")],
        see: "QLoRA of Llama-3-70B needs {r:bytes-qlora}. {verdict}",
        predict: Some(Prediction {
            question: "QLoRA on Llama-3-70B (4-bit base, rank-16 adapters): which is the smallest of these laptops it fits in?",
            options: &[
                ("laptop-16", "a 16 GB laptop"),
                ("laptop-36", "a 36 GB laptop"),
                ("laptop-64", "a 64 GB laptop"),
                ("larger", "only a larger machine than those"),
            ],
            decide: Decide {
                readout: "bytes-qlora",
                measure: Measure::After,
                cases: &[
                    (16.0 * GIB + 0.5, "laptop-16"),
                    (36.0 * GIB + 0.5, "laptop-36"),
                    (64.0 * GIB + 0.5, "laptop-64"),
                ],
                otherwise: "larger",
            },
            why: "Four bits a weight is a quarter of sixteen: the 70B base shrinks to about 35 GB, and the adapters with their optimiser states and the activations add a few more. It reads {r:bytes-qlora}, so a 16 GB laptop is far too small.",
        }),
    },
];
