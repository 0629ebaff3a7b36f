//! Prints what the real stack does (Pass 4), natively: per wiring and depth, the
//! bottom-to-top gradient ratio and the time taken. `cargo run --release --example stability_report`.
use std::time::Instant;

use handwave::math::stability::reference::gradient_profile;
use handwave::math::stability::{NormPlacement, StackShape, Wiring};

fn main() {
    let wirings = [
        Wiring::PLAIN,
        Wiring {
            residual: false,
            norm: NormPlacement::Post,
        },
        Wiring {
            residual: false,
            norm: NormPlacement::Pre,
        },
        Wiring::POST_NORM,
        Wiring::PRE_NORM,
        Wiring::RESIDUAL_ONLY,
    ];
    println!("| wiring | depth | bottom/top (inputs) | bottom/top (weights) | input grad norms, layer 0, 8, 16, … | ms |");
    println!("|---|---:|---:|---:|---|---:|");
    for wiring in wirings {
        for depth in [1usize, 8, 32, 128] {
            for seed in [1u64, 2, 3] {
                let shape = StackShape {
                    d_model: 32,
                    heads: 2,
                    seq_len: 8,
                    gain: 1.0,
                    seed,
                    wiring,
                };
                let t0 = Instant::now();
                let p = gradient_profile(&shape, depth);
                let ms = t0.elapsed().as_secs_f64() * 1e3;
                let every: Vec<String> = p
                    .input_grad_norm
                    .iter()
                    .step_by(8)
                    .map(|v| format!("{v:.2e}"))
                    .collect();
                let weights = handwave::math::stability::bottom_to_top(&p.weight_grad_norm);
                let show =
                    |r: Option<f64>| r.map(|r| format!("{r:.3e}")).unwrap_or("overflow".into());
                println!(
                    "| {} (seed {seed}) | {depth} | {} | {} | {} | {ms:.2} |",
                    wiring.label(),
                    show(p.ratio()),
                    show(weights),
                    every.join(" "),
                );
            }
        }
    }
}
