//! The stack the arithmetic benchmarks time: the page's defaults, a new gain each run.

use super::shape::{StackShape, Wiring};
use super::tape::Tape;
use super::weights::WeightBank;

/// The stack that the arithmetic benchmarks time (run `rep`): the page's defaults —
/// d_model 32, 2 heads, 8 tokens, pre-norm with residual, seed 1 — at gain 1 + rep/1000,
/// a new gain each run, so that no run reuses another's scaled weights.
pub fn benchmark_shape(rep: u32) -> StackShape {
    StackShape {
        d_model: 32,
        heads: 2,
        seq_len: 8,
        gain: 1.0 + 0.001 * f64::from(rep),
        seed: 1,
        wiring: Wiring::PRE_NORM,
    }
}

/// Draws the unit weights of `depth` benchmark blocks into `bank` (done once, as the page
/// keeps them), so that [`run_benchmark_stacks`] times the arithmetic alone.
pub fn draw_benchmark_weights(bank: &mut WeightBank, depth: usize) {
    for layer in 0..depth {
        bank.units(&benchmark_shape(0), layer);
    }
}

/// Runs benchmark stacks `first_rep..first_rep + reps` of `depth` blocks each: forward,
/// backward and the per-layer gradient norms, as a figure computes them.
pub fn run_benchmark_stacks(bank: &mut WeightBank, depth: usize, first_rep: u32, reps: u32) {
    for rep in first_rep..first_rep + reps {
        let mut tape = Tape::new(benchmark_shape(rep));
        while tape.len() < depth {
            tape.push_block_with(bank);
        }
        std::hint::black_box(tape.backward(depth).finish(&tape));
    }
}
