//! What Pass 4's captions and readouts say: the verdict of a stack in a sentence, and
//! numbers that name f64's limits (underflow to 0, overflow) and the pending state.

use crate::math::stability::{bottom_to_top, GradientVerdict};
use crate::widgets::format::format_number;

/// The caption's sentence for a verdict, from the numbers.
pub fn verdict_sentence(
    verdict: GradientVerdict,
    depth: usize,
    overflow_layer: Option<usize>,
) -> String {
    match verdict {
        GradientVerdict::Vanished(0.0) => format!(
            "Vanished, and past what f64 can hold: the gradient reaching layer 0 underflowed to exactly 0 (below about 5·10⁻³²⁴), so the bottom of this {depth}-block stack cannot learn at all."
        ),
        GradientVerdict::Vanished(r) => format!(
            "Vanished: the gradient reaching layer 0 is {} of the top layer's (below 10⁻³), so the bottom of this {depth}-block stack barely learns.",
            format_number(r, 3)
        ),
        GradientVerdict::Exploded(r) => format!(
            "Exploded: the gradient reaching layer 0 is {} times the top layer's (above 10³).",
            format_number(r, 3)
        ),
        GradientVerdict::Stable(r) => format!(
            "Stable: bottom over top is {}, within a factor of 1000 across {depth} blocks.",
            format_number(r, 3)
        ),
        GradientVerdict::Overflow => match overflow_layer {
            Some(l) => format!(
                "Overflow: the numbers left the range of f64 (about 1.8·10³⁰⁸) at layer {l}; those layers are drawn empty and no ratio exists. The gradient exploded beyond what a computer can hold."
            ),
            None => "Overflow or underflow: a norm left the range of f64, so no ratio exists.".into(),
        },
    }
}

/// bottom/top of `norms`: +∞ when it overflowed, NaN while nothing is computed yet.
pub fn ratio_or_pending(norms: &[f64]) -> f64 {
    if norms.is_empty() {
        f64::NAN
    } else {
        bottom_to_top(norms).unwrap_or(f64::INFINITY)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdict_sentences_name_what_happened() {
        assert!(
            verdict_sentence(GradientVerdict::Vanished(1e-10), 32, None).starts_with("Vanished")
        );
        assert!(verdict_sentence(GradientVerdict::Exploded(1e7), 32, None).starts_with("Exploded"));
        assert!(verdict_sentence(GradientVerdict::Stable(3.0), 32, None).starts_with("Stable"));
        assert!(verdict_sentence(GradientVerdict::Overflow, 128, Some(90)).contains("layer 90"));
    }

    #[test]
    fn a_ratio_that_underflowed_to_zero_is_named_an_underflow() {
        let sentence = verdict_sentence(GradientVerdict::Vanished(0.0), 128, None);
        assert!(sentence.starts_with("Vanished") && sentence.contains("underflowed to exactly 0"));
    }
}
