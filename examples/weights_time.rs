//! How the Pass 4 stack's time splits between drawing weights and computing (native).
use handwave::math::stability::*;
use std::time::Instant;
fn main() {
    let shape = StackShape {
        d_model: 32,
        heads: 2,
        seq_len: 8,
        gain: 1.0,
        seed: 1,
        wiring: Wiring::PRE_NORM,
    };
    let a = nalgebra::DMatrix::<f64>::from_fn(8, 32, |i, j| (i * j) as f64 * 0.01);
    let b = nalgebra::DMatrix::<f64>::from_fn(32, 128, |i, j| (i + j) as f64 * 0.01);
    let t0 = Instant::now();
    for _ in 0..1000 {
        std::hint::black_box(&a * &b);
    }
    println!(
        "1000 × (8×32 · 32×128): {:.2} ms = {:.2} GFLOP/s",
        t0.elapsed().as_secs_f64() * 1e3,
        2.0 * 8.0 * 32.0 * 128.0 * 1000.0 / t0.elapsed().as_secs_f64() / 1e9
    );
    let w = block_weights(&shape, 0);
    let x =
        nalgebra::DMatrix::<f64>::from_fn(8, 32, |i, j| ((i * 7 + j * 3) % 11) as f64 * 0.1 - 0.5);
    let t0 = Instant::now();
    for _ in 0..1000 {
        std::hint::black_box(attention_forward(&x, &w, 2));
    }
    println!(
        "attention_forward: {:.1} µs",
        t0.elapsed().as_secs_f64() * 1e3
    );
    let t0 = Instant::now();
    for _ in 0..1000 {
        std::hint::black_box(mlp_forward(&x, &w.w1, &w.w2));
    }
    println!("mlp_forward: {:.1} µs", t0.elapsed().as_secs_f64() * 1e3);
    let t0 = Instant::now();
    for _ in 0..1000 {
        std::hint::black_box(layer_norm_forward(&x, &w.ln1));
    }
    println!(
        "layer_norm_forward: {:.1} µs",
        t0.elapsed().as_secs_f64() * 1e3
    );
    let (_, ac) = attention_forward(&x, &w, 2);
    let t0 = Instant::now();
    for _ in 0..1000 {
        std::hint::black_box(attention_backward(&x, &ac, &w));
    }
    println!(
        "attention_backward: {:.1} µs",
        t0.elapsed().as_secs_f64() * 1e3
    );
    let (_, mc) = mlp_forward(&x, &w.w1, &w.w2);
    let t0 = Instant::now();
    for _ in 0..1000 {
        std::hint::black_box(mlp_backward(&x, &mc, &w.w1, &w.w2));
    }
    println!("mlp_backward: {:.1} µs", t0.elapsed().as_secs_f64() * 1e3);
    let t0 = Instant::now();
    for l in 0..32 {
        std::hint::black_box(block_weights(&shape, l));
    }
    println!(
        "weights for 32 blocks: {:.2} ms",
        t0.elapsed().as_secs_f64() * 1e3
    );
    let t0 = Instant::now();
    let mut tape = Tape::new(shape.clone());
    tape.extend_to(32);
    println!(
        "forward 32 blocks (incl. weights): {:.2} ms",
        t0.elapsed().as_secs_f64() * 1e3
    );
    let t0 = Instant::now();
    let p = tape.backward(32).finish(&tape);
    println!(
        "backward 32 blocks: {:.2} ms (ratio {:?})",
        t0.elapsed().as_secs_f64() * 1e3,
        p.ratio()
    );
}
#[allow(dead_code)]
fn unused() {}
