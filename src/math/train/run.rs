//! A training run: a model, its optimiser, a seeded stream of training batches and a
//! held-out batch, advanced step by step and recorded as points. Deterministic: the
//! same configuration gives the same run, bit for bit.

use super::model::{evaluate, loss_and_gradient, ModelShape, Params};
use super::optim::{Optimizer, OptimizerState};
use super::task::{Example, TaskShape};
use crate::math::rng::SeededStream;
use crate::math::stability::Wiring;

const STREAM_TRAIN: u64 = 0x7EA1;
const STREAM_HELD_OUT: u64 = 0x4E1D;

/// Sequences in the held-out batch every point is measured on.
pub const HELD_OUT: usize = 64;

/// Everything that decides a run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunConfig {
    pub task: TaskShape,
    pub d_model: usize,
    pub heads: usize,
    pub depth: usize,
    pub wiring: Wiring,
    /// Attention logits ÷√d_k.
    pub scaled: bool,
    pub optimizer: Optimizer,
    /// Steps of linear learning-rate warm-up (0: none).
    pub warmup: usize,
    /// Sequences per training step.
    pub batch: usize,
    /// Updates in the whole run.
    pub steps: usize,
    /// A point is recorded every this many steps (and at the last).
    pub every: usize,
    /// Seeds the weights, the training batches and the held-out batch.
    pub seed: u64,
}

impl RunConfig {
    /// The model's shape.
    pub fn shape(&self) -> ModelShape {
        ModelShape {
            wiring: self.wiring,
            scaled: self.scaled,
            ..ModelShape::for_task(&self.task, self.d_model, self.heads, self.depth)
        }
    }
}

/// The state of the model at one recorded step.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    /// Updates made before this point.
    pub step: usize,
    /// Cross-entropy of the training batch at this step, nats.
    pub train_loss: f64,
    /// Held-out cross-entropy, nats.
    pub loss: f64,
    /// Held-out accuracy, 0–1.
    pub accuracy: f64,
    /// Mean entropy of the attention rows on the held-out batch, nats.
    pub entropy: f64,
    /// ‖∂L/∂W_Q‖ over every block, on this step's training batch.
    pub grad_wq: f64,
    /// ‖∂L/∂θ_l‖ of each block's parameters (bottom block first), on this step's batch.
    pub layer_grads: Vec<f64>,
}

/// Where a run is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunStatus {
    Running,
    /// Every step made.
    Done,
    /// The loss or a parameter stopped being finite at this step; the run stops there.
    Diverged {
        step: usize,
    },
}

/// A run in progress.
pub struct Trainer {
    pub config: RunConfig,
    shape: ModelShape,
    params: Params,
    grads: Params,
    optimizer: OptimizerState,
    batches: SeededStream,
    held_out: Vec<Example>,
    /// Updates made.
    pub step: usize,
    /// The gradient at this step has been measured (its update not made yet).
    measured: bool,
    pub status: RunStatus,
    pub points: Vec<Point>,
}

impl Trainer {
    /// A run at step 0: the weights of `config.seed`, nothing trained.
    pub fn new(config: RunConfig) -> Self {
        let shape = config.shape();
        let params = Params::init(&shape, config.seed);
        let grads = params.zeros_like();
        let optimizer = OptimizerState::new(config.optimizer, config.warmup, &params);
        Self {
            config,
            shape,
            held_out: config
                .task
                .examples(config.seed, &[STREAM_HELD_OUT], HELD_OUT),
            batches: SeededStream::new(config.seed, &[STREAM_TRAIN]),
            params,
            grads,
            optimizer,
            step: 0,
            measured: false,
            status: RunStatus::Running,
            points: Vec::new(),
        }
    }

    /// The parameters now.
    pub fn params(&self) -> &Params {
        &self.params
    }

    /// Trains until `until` updates are made (or the run is done, or diverges), with the
    /// gradient at step `until` measured: every point at a step ≤ `until` is recorded.
    /// Step s measures the gradient at the parameters after s updates on a fresh batch,
    /// recording a point at every `every`-th step and at the last (s = steps, where no
    /// update follows), then updates. The same points however the run is cut into calls.
    pub fn advance(&mut self, until: usize) {
        let until = until.min(self.config.steps);
        while self.status == RunStatus::Running {
            self.measure();
            if self.status != RunStatus::Running || self.step >= until {
                break;
            }
            self.apply();
        }
    }

    /// Trains to the end.
    pub fn run(config: RunConfig) -> Self {
        let mut t = Self::new(config);
        t.advance(config.steps);
        t
    }

    /// The gradient at this step on the next batch, and the point if one is due (once
    /// per step).
    fn measure(&mut self) {
        if self.measured {
            return;
        }
        self.measured = true;
        let batch: Vec<Example> = (0..self.config.batch.max(1))
            .map(|_| self.config.task.example(&mut self.batches))
            .collect();
        let stats = loss_and_gradient(&self.params, &self.shape, &batch, &mut self.grads);
        let s = self.step;
        if !stats.loss.is_finite() || !self.grads.is_finite() {
            self.status = RunStatus::Diverged { step: s };
            return;
        }
        let last = s == self.config.steps;
        if s % self.config.every.max(1) == 0 || last {
            let held = evaluate(&self.params, &self.shape, &self.held_out);
            self.points.push(Point {
                step: s,
                train_loss: stats.loss,
                loss: held.loss,
                accuracy: held.accuracy,
                entropy: held.entropy,
                grad_wq: self.grads.query_norm(),
                layer_grads: self.grads.blocks.iter().map(|b| b.norm()).collect(),
            });
        }
        if last {
            self.status = RunStatus::Done;
        }
    }

    /// One update along the measured gradient.
    fn apply(&mut self) {
        self.optimizer.update(&mut self.params, &self.grads);
        self.step += 1;
        self.measured = false;
        if !self.params.is_finite() {
            self.status = RunStatus::Diverged { step: self.step };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::train::task::Task;

    fn small(seed: u64) -> RunConfig {
        RunConfig {
            task: TaskShape {
                task: Task::Reverse,
                symbols: 4,
                length: 3,
            },
            d_model: 8,
            heads: 2,
            depth: 2,
            wiring: Wiring::PRE_NORM,
            scaled: true,
            optimizer: Optimizer::AdamW {
                lr: 1e-2,
                weight_decay: 0.01,
            },
            warmup: 0,
            batch: 4,
            steps: 12,
            every: 5,
            seed,
        }
    }

    #[test]
    fn a_run_reproduces_bit_for_bit() {
        let (a, b) = (Trainer::run(small(3)), Trainer::run(small(3)));
        assert_eq!(a.points, b.points);
        assert_eq!(a.params(), b.params());
        assert_ne!(
            Trainer::run(small(4)).points,
            a.points,
            "another seed, another run"
        );
    }

    #[test]
    fn a_run_advanced_in_pieces_is_the_run_made_at_once() {
        let whole = Trainer::run(small(5));
        let mut pieces = Trainer::new(small(5));
        for until in [0, 3, 3, 7, 20] {
            pieces.advance(until);
            // Every point up to the step asked for is there.
            let expected = if until >= 12 { 12 } else { until / 5 * 5 };
            assert_eq!(pieces.points.last().map(|p| p.step), Some(expected));
        }
        assert_eq!(pieces.points, whole.points);
        assert_eq!(pieces.status, RunStatus::Done);
    }

    #[test]
    fn points_fall_every_few_steps_and_at_the_last() {
        let t = Trainer::run(small(6));
        let steps: Vec<usize> = t.points.iter().map(|p| p.step).collect();
        assert_eq!(steps, vec![0, 5, 10, 12]);
        assert!(t.points.iter().all(|p| p.layer_grads.len() == 2));
    }

    #[test]
    fn a_learning_rate_that_overflows_stops_the_run_as_diverged() {
        let t = Trainer::run(RunConfig {
            optimizer: Optimizer::Sgd { lr: 1e300 },
            wiring: Wiring::PLAIN,
            ..small(7)
        });
        assert!(
            matches!(t.status, RunStatus::Diverged { .. }),
            "{:?}",
            t.status
        );
        assert!(t
            .points
            .iter()
            .all(|p| p.loss.is_finite() && p.layer_grads.iter().all(|g| g.is_finite())));
    }
}
