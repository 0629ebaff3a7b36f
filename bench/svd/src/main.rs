//! Native timings (ms, median of 9) of both crates at n = 64, 128, 256.
use std::time::Instant;
use svd_bench::*;

fn median_ms(f: extern "C" fn(usize) -> f64, n: usize) -> f64 {
    let mut t: Vec<f64> = (0..9)
        .map(|_| {
            let t0 = Instant::now();
            std::hint::black_box(f(n));
            t0.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[4]
}

fn main() {
    println!("| native | n | nalgebra σ only | faer σ only | nalgebra full | faer full |");
    println!("|---|---:|---:|---:|---:|---:|");
    for n in [64, 128, 256] {
        println!(
            "| native | {n} | {:.2} | {:.2} | {:.2} | {:.2} |",
            median_ms(nalgebra_singular_values, n),
            median_ms(faer_singular_values, n),
            median_ms(nalgebra_full_svd, n),
            median_ms(faer_full_svd, n)
        );
    }
    // Both agree on σ_max.
    let (a, b) = (nalgebra_singular_values(128), faer_singular_values(128));
    assert!((a - b).abs() < 1e-9 * a, "σ_max differs: {a} vs {b}");
}
