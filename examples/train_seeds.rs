//! Trains the training figures' runs at five seeds and prints the tables of
//! docs/training.md: held-out accuracy and loss at the end of the run, median and range
//! over the seeds, for each wiring × depth of `train-depth` and each d_k × (÷√d_k or not)
//! of `train-scale`, with the native speed in steps per second.
//!
//! `cargo run --release --example train_seeds [seeds]`
use std::time::Instant;

use handwave::math::stability::{NormPlacement, Wiring};
use handwave::math::train::presets::{DEPTH_RUN, SCALE_RUN};
use handwave::math::train::{Optimizer, RunConfig, RunStatus, Trainer};

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// One table row: median (min–max) accuracy and loss over the seeds.
fn row(label: &str, config: RunConfig, seeds: u64) {
    let t0 = Instant::now();
    let (mut acc, mut loss, mut diverged) = (Vec::new(), Vec::new(), 0);
    for seed in 0..seeds {
        let t = Trainer::run(RunConfig { seed, ..config });
        if matches!(t.status, RunStatus::Diverged { .. }) {
            diverged += 1;
        }
        if let Some(p) = t.points.last() {
            acc.push(p.accuracy * 100.0);
            loss.push(p.loss);
        }
    }
    let rate = (seeds as f64 * config.steps as f64) / t0.elapsed().as_secs_f64();
    let (amin, amax) = (
        acc.iter().copied().fold(f64::MAX, f64::min),
        acc.iter().copied().fold(0.0, f64::max),
    );
    let (lmin, lmax) = (
        loss.iter().copied().fold(f64::MAX, f64::min),
        loss.iter().copied().fold(0.0, f64::max),
    );
    let solved = acc.iter().filter(|&&a| a >= 95.0).count();
    println!(
        "| {label} | {:.0} % ({amin:.0}–{amax:.0}) | {solved} of {seeds} | {:.2} ({lmin:.2}–{lmax:.2}) | {} | {rate:.0} |",
        median(&mut acc),
        median(&mut loss),
        if diverged > 0 { format!("{diverged} diverged") } else { "—".into() },
    );
}

fn main() {
    let seeds: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(5);
    let header = "| run | held-out accuracy, median (range) | ≥ 95 % | held-out loss, nats | | steps/s native |\n|---|---|---|---|---|---|";
    println!(
        "train-depth ({} steps, reverse, d_model {}, AdamW η = {:?})\n\n{header}",
        DEPTH_RUN.steps, DEPTH_RUN.d_model, DEPTH_RUN.optimizer
    );
    let post = Wiring {
        residual: true,
        norm: NormPlacement::Post,
    };
    for depth in [4, 8, 16] {
        for (name, wiring, warmup) in [
            ("no residual, no norm", Wiring::PLAIN, 0),
            ("residual, pre-norm", Wiring::PRE_NORM, 0),
            ("residual, post-norm", post, 0),
            ("residual, post-norm, warm-up 50", post, 50),
            ("residual, no norm", Wiring::RESIDUAL_ONLY, 0),
            (
                "no residual, pre-norm",
                Wiring {
                    residual: false,
                    norm: NormPlacement::Pre,
                },
                0,
            ),
        ] {
            row(
                &format!("depth {depth}: {name}"),
                RunConfig {
                    depth,
                    wiring,
                    warmup,
                    ..DEPTH_RUN
                },
                seeds,
            );
        }
    }
    for (name, wiring) in [
        ("no residual, no norm", Wiring::PLAIN),
        ("residual, pre-norm", Wiring::PRE_NORM),
    ] {
        row(
            &format!("depth 8, SGD η = 0.3: {name}"),
            RunConfig {
                wiring,
                optimizer: Optimizer::Sgd { lr: 0.3 },
                ..DEPTH_RUN
            },
            seeds,
        );
    }
    println!(
        "\ntrain-scale ({} steps, recall, {} blocks, one head)\n\n{header}",
        SCALE_RUN.steps, SCALE_RUN.depth
    );
    for d_k in [16, 32, 64] {
        for scaled in [true, false] {
            let label = format!("d_k = {d_k}, {}", if scaled { "÷√d_k" } else { "unscaled" });
            row(
                &label,
                RunConfig {
                    d_model: d_k,
                    scaled,
                    ..SCALE_RUN
                },
                seeds,
            );
        }
    }
}
