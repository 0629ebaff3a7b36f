//! Times N(0, 1) draws natively: one call per draw (compiled with handwave, opt-level "z")
//! against the bulk fill of `crates/draws` (opt-level 3). Same bits; see src/math/rng.rs.
use handwave::math::rng::SeededStream;
use std::time::Instant;
fn main() {
    let n = 32 * 12288;
    let mut best = f64::MAX;
    for round in 0..20u64 {
        let mut s = SeededStream::new(round, &[1]);
        let t0 = Instant::now();
        let v = s.standard_normal_vec(n);
        std::hint::black_box(&v);
        best = best.min(t0.elapsed().as_secs_f64() * 1e3);
    }
    println!(
        "one call per draw: {best:.3} ms ({:.2} ns/draw)",
        best * 1e6 / n as f64
    );
    let mut best = f64::MAX;
    for round in 0..20u64 {
        let mut s = SeededStream::new(round, &[1]);
        let t0 = Instant::now();
        let mut v = vec![0.0; n];
        s.fill_standard_normal(&mut v);
        std::hint::black_box(&v);
        best = best.min(t0.elapsed().as_secs_f64() * 1e3);
    }
    println!(
        "in bulk (crates/draws, opt-level 3): {best:.3} ms ({:.2} ns/draw)",
        best * 1e6 / n as f64
    );
}
