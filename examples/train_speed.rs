//! Training speed natively: each training figure's default A/B run, one run after the
//! other on one core (the browser runs them side by side in two workers), in steps per
//! second and seconds. `make bench` prints it beside the browser's numbers.
//!
//! `cargo run --release --example train_speed`
use std::time::Instant;

use handwave::math::stability::Wiring;
use handwave::math::train::presets::{DEPTH_RUN, SCALE_RUN};
use handwave::math::train::{RunConfig, Trainer};

fn main() {
    println!("## Training natively (the default runs, one core)\n");
    println!("| figure | run | steps | seconds | steps/s |\n|---|---|---:|---:|---:|");
    let runs: [(&str, &str, RunConfig); 4] = [
        ("train-depth", "A: no residual, no norm", DEPTH_RUN),
        (
            "train-depth",
            "B: residual, pre-norm",
            RunConfig {
                wiring: Wiring::PRE_NORM,
                ..DEPTH_RUN
            },
        ),
        ("train-scale", "A: ÷√d_k", SCALE_RUN),
        (
            "train-scale",
            "B: unscaled",
            RunConfig {
                scaled: false,
                ..SCALE_RUN
            },
        ),
    ];
    for (figure, label, config) in runs {
        let t0 = Instant::now();
        let run = Trainer::run(config);
        let seconds = t0.elapsed().as_secs_f64();
        println!(
            "| {figure} | {label} | {} | {seconds:.2} | {:.0} |",
            run.step,
            run.step as f64 / seconds
        );
    }
}
