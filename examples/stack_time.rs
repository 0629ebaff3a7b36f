//! Times one default Pass 4 stack (depth 32, d_model 32, 2 heads, 8 tokens, pre-norm),
//! forward and backward, natively, its weights already drawn: `cargo run --release
//! --example stack_time`. A benchmark that prints numbers, not a test. Natively the thin
//! products take the portable tile (the vector one is wasm's), built for size like the
//! page: this times the algorithm, not the page; `node scripts/arith-time.mjs` times the
//! page's own wasm.
use handwave::math::stability::{StackShape, Tape, WeightBank, Wiring};
use std::time::Instant;

fn main() {
    let depth = 32;
    let shape = |rep: u32| StackShape {
        d_model: 32,
        heads: 2,
        seq_len: 8,
        gain: 1.0 + 0.001 * f64::from(rep),
        seed: 1,
        wiring: Wiring::PRE_NORM,
    };
    let mut bank = WeightBank::default();
    for layer in 0..depth {
        bank.units(&shape(0), layer);
    }
    let mut times = Vec::new();
    for round in 0..20 {
        let reps = 50;
        let t0 = Instant::now();
        for rep in 0..reps {
            let mut tape = Tape::new(shape(round * reps + rep));
            while tape.len() < depth {
                tape.push_block_with(&mut bank);
            }
            std::hint::black_box(tape.backward(depth).finish(&tape));
        }
        times.push(t0.elapsed().as_secs_f64() * 1e3 / f64::from(reps));
    }
    times.sort_by(f64::total_cmp);
    println!(
        "depth-32 stack forward + backward, native: {:.3} ms at best, {:.3} ms median",
        times[0], times[10]
    );
}
