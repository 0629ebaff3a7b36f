//! Native timings of Pass 3's heavy steps at n = 256 (what a control change costs).
use std::time::Instant;

use handwave::math::rank::reference::multi_head;
use handwave::math::rank::score_rank;
use handwave::math::rank::{singular_values, target_pattern, Pattern, SortedSvd};

fn time<T>(what: &str, f: impl Fn() -> T) {
    let t0 = Instant::now();
    for _ in 0..5 {
        std::hint::black_box(f());
    }
    println!("{what}: {:.2} ms", t0.elapsed().as_secs_f64() * 1e3 / 5.0);
}

fn main() {
    time("score_rank(n = 256, d_k = 64)", || score_rank(1, 256, 64));
    let a = score_rank(1, 256, 64).a;
    time("σ(A) only, 256", || singular_values(&a));
    let t = target_pattern(Pattern::CausalAverage, 256);
    time("full SVD of the causal target, 256", || SortedSvd::new(&t));
    time("multi_head(n = 256, d = 128, h = 8)", || {
        multi_head(1, 256, 128, 8)
    });
}
