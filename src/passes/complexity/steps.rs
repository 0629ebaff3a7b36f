//! Pass 2's guided steps on `memory-vs-context`: a short context, a long one (with a
//! prediction), and grouped-query attention.

use crate::widgets::{Decide, Measure, Prediction, Step};

/// What each step asks, on its own: the page shows these before the steps' module
/// (which holds the rest of the table) has arrived.
pub const ASKS: [&str; 3] = [
    "Set the context to 1,024 tokens (Llama-2-7B, bf16).",
    "Drag the context up to 128k tokens, 128 times longer.",
    "Switch to Llama-3-8B, which shares each key/value head among four query heads.",
];

/// The steps of `memory-vs-context`.
pub static STEPS: [Step; 3] = [
    Step {
        ask: ASKS[0],
        to: &[("ctx", "1024"), ("model", "llama2-7b"), ("dtype", "bf16"), ("batch", "1")],
        see: "At n = 1,024 one layer's scores take {r:score-bytes} and the whole KV cache {r:kv-bytes}: the scores are {r:score-kv-ratio} times the cache.",
        predict: None,
    },
    Step {
        ask: ASKS[1],
        to: &[("ctx", "131072")],
        see: "The scores {change:score-bytes}, to {r:score-bytes}; the cache {change:kv-bytes}, to {r:kv-bytes}. The coral n² line pulls away from the blue cache: now the scores are {r:score-kv-ratio} times the cache.",
        predict: Some(Prediction {
            question: "the context grows 128 times. How much larger does one layer's score matrix get?",
            options: &[
                ("linear", "About 128 times, like the context."),
                ("thousand", "About a thousand times."),
                ("quadratic", "About 16,000 times (128²)."),
            ],
            decide: Decide {
                readout: "score-bytes",
                measure: Measure::Ratio,
                cases: &[(400.0, "linear"), (4000.0, "thousand")],
                otherwise: "quadratic",
            },
            why: "Every query meets every key: n² scores, so 128 times the tokens is 128² times the scores ({change:score-bytes}), while the cache holds one key and one value per token ({change:kv-bytes}).",
        }),
    },
    Step {
        ask: ASKS[2],
        to: &[("model", "llama3-8b")],
        see: "With grouped-query attention the cache {change:kv-bytes}, to {r:kv-bytes}, while one layer's scores are {r:score-bytes}: sharing key/value heads shrinks the cache, not the n² scores.",
        predict: None,
    },
];
