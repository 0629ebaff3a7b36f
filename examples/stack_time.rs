//! Times one default Pass 4 stack (depth 32, d_model 32, 2 heads, 8 tokens, pre-norm),
//! forward and backward, natively, its weights already drawn: `cargo run --release
//! --example stack_time`. A benchmark that prints numbers, not a test. Natively the thin
//! products take the portable tile (the vector one is wasm's), built for size like the
//! page: this times the algorithm, not the page; `node scripts/arith-time.mjs` times the
//! page's own wasm.
use handwave::math::stability::{draw_benchmark_weights, run_benchmark_stacks, WeightBank};
use std::time::Instant;

fn main() {
    let depth = 32;
    let mut bank = WeightBank::default();
    draw_benchmark_weights(&mut bank, depth);
    let mut times = Vec::new();
    for round in 0..20 {
        let reps = 50;
        let t0 = Instant::now();
        run_benchmark_stacks(&mut bank, depth, round * reps, reps);
        times.push(t0.elapsed().as_secs_f64() * 1e3 / f64::from(reps));
    }
    times.sort_by(f64::total_cmp);
    println!(
        "depth-32 stack forward + backward, native: {:.3} ms at best, {:.3} ms median",
        times[0], times[10]
    );
}
