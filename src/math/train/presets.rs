//! The training figures' default runs, chosen by measuring five seeds
//! (`cargo run --release --example train_seeds`; the tables are in docs/training.md).

use super::optim::Optimizer;
use super::run::RunConfig;
use super::task::{Task, TaskShape};
use crate::math::stability::Wiring;

/// AdamW's default learning rate on both figures.
pub const ADAMW_LR: f64 = 3e-3;
/// The weight decay of AdamW.
pub const WEIGHT_DECAY: f64 = 0.01;

/// `train-depth`: reverse 4 of 8 symbols, d_model 16 with 2 heads, 8 blocks, 200 steps
/// of AdamW on batches of 16; run A without residual or norm (run B: pre-norm residual).
pub const DEPTH_RUN: RunConfig = RunConfig {
    task: TaskShape {
        task: Task::Reverse,
        symbols: 8,
        length: 4,
    },
    d_model: 16,
    heads: 2,
    depth: 8,
    wiring: Wiring::PLAIN,
    scaled: true,
    optimizer: Optimizer::AdamW {
        lr: ADAMW_LR,
        weight_decay: WEIGHT_DECAY,
    },
    warmup: 0,
    batch: 16,
    steps: 200,
    every: 5,
    seed: 0,
};

/// `train-scale`: associative recall of 4 pairs over 8 values, one head of d_k = 32,
/// 2 pre-norm residual blocks, 600 steps; run A divides the logits by √d_k (run B does
/// not).
pub const SCALE_RUN: RunConfig = RunConfig {
    task: TaskShape {
        task: Task::Recall,
        symbols: 8,
        length: 4,
    },
    d_model: 32,
    heads: 1,
    depth: 2,
    wiring: Wiring::PRE_NORM,
    scaled: true,
    optimizer: Optimizer::AdamW {
        lr: ADAMW_LR,
        weight_decay: WEIGHT_DECAY,
    },
    warmup: 0,
    batch: 16,
    steps: 600,
    every: 15,
    seed: 0,
};

/// The warm-up a figure's "warm-up" switch gives: the first quarter of the steps.
pub fn warmup_for(steps: usize) -> usize {
    steps / 4
}
