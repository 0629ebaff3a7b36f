//! A training run as flat `f64` messages, the way the training workers and the page
//! exchange them (one typed array each way, like [`crate::math::jobs`]).
//!
//! The page drives a run in chunks: "train this configuration until step s and send me
//! the points from number k on". The worker keeps the run it was last asked about and
//! carries on from where it stopped; asked about another configuration (or an earlier
//! step), it starts that run again from step 0, which gives the same points bit for bit.
//! Pausing is the page not asking for the next chunk.
//!
//! Request: `[id, KIND_TRAIN, first_point, until_step, …config]` ([`encode_config`]).
//! Answer: `[id, KIND_TRAIN, status, step, depth, points, …points]`, each point
//! `[step, train_loss, loss, accuracy, entropy, grad_wq, …layer_grads]`.

use super::optim::Optimizer;
use super::run::{Point, RunConfig, RunStatus, Trainer};
use super::task::{Task, TaskShape};
use crate::math::heads::heads_dividing;
use crate::math::stability::{NormPlacement, Wiring};

/// The job kind of a training chunk (beside [`crate::math::jobs`]' kinds 1–3).
pub const KIND_TRAIN: u32 = 4;

/// Numbers in an encoded configuration.
pub const CONFIG_LEN: usize = 17;

/// Limits a decoded configuration is clamped to (a hand-edited address cannot ask for more).
pub const MAX_TRAIN_DEPTH: usize = 16;
pub const MAX_TRAIN_WIDTH: usize = 64;
pub const MAX_TRAIN_STEPS: usize = 2000;
pub const MAX_BATCH: usize = 64;

/// The configuration as numbers, in the order [`decode_config`] reads them.
pub fn encode_config(c: &RunConfig) -> [f64; CONFIG_LEN] {
    let (opt, lr, wd) = match c.optimizer {
        Optimizer::AdamW { lr, weight_decay } => (0.0, lr, weight_decay),
        Optimizer::Sgd { lr } => (1.0, lr, 0.0),
    };
    let norm = match c.wiring.norm {
        NormPlacement::None => 0.0,
        NormPlacement::Post => 1.0,
        NormPlacement::Pre => 2.0,
    };
    [
        match c.task.task {
            Task::Reverse => 0.0,
            Task::Recall => 1.0,
        },
        c.task.symbols as f64,
        c.task.length as f64,
        c.d_model as f64,
        c.heads as f64,
        c.depth as f64,
        f64::from(u8::from(c.wiring.residual)),
        norm,
        f64::from(u8::from(c.scaled)),
        opt,
        lr,
        wd,
        c.warmup as f64,
        c.batch as f64,
        c.steps as f64,
        c.every as f64,
        c.seed as f64,
    ]
}

fn whole(x: f64, min: usize, max: usize) -> usize {
    if x.is_finite() {
        (x.round().max(min as f64).min(max as f64)) as usize
    } else {
        min
    }
}

fn real(x: f64, min: f64, max: f64, default: f64) -> f64 {
    if x.is_finite() {
        x.clamp(min, max)
    } else {
        default
    }
}

/// A configuration from numbers, every field clamped to what the engine supports (total:
/// any input gives a runnable configuration; too few numbers give `None`).
pub fn decode_config(v: &[f64]) -> Option<RunConfig> {
    let v: &[f64; CONFIG_LEN] = v.get(..CONFIG_LEN)?.try_into().ok()?;
    let d_model = whole(v[3], 4, MAX_TRAIN_WIDTH);
    let steps = whole(v[14], 1, MAX_TRAIN_STEPS);
    let lr = real(v[10], 1e-6, 10.0, 1e-3);
    Some(RunConfig {
        task: TaskShape {
            task: if v[0] == 1.0 {
                Task::Recall
            } else {
                Task::Reverse
            },
            symbols: whole(v[1], 2, 16),
            length: whole(v[2], 2, 8),
        },
        d_model,
        heads: heads_dividing(d_model, whole(v[4], 1, d_model)),
        depth: whole(v[5], 1, MAX_TRAIN_DEPTH),
        wiring: Wiring {
            residual: v[6] == 1.0,
            norm: match whole(v[7], 0, 2) {
                1 => NormPlacement::Post,
                2 => NormPlacement::Pre,
                _ => NormPlacement::None,
            },
        },
        scaled: v[8] != 0.0,
        optimizer: if v[9] == 1.0 {
            Optimizer::Sgd { lr }
        } else {
            Optimizer::AdamW {
                lr,
                weight_decay: real(v[11], 0.0, 1.0, 0.0),
            }
        },
        warmup: whole(v[12], 0, steps),
        batch: whole(v[13], 1, MAX_BATCH),
        steps,
        every: whole(v[15], 1, 100),
        seed: whole(v[16], 0, 999_999) as u64,
    })
}

/// A chunk to ask for: the run, the first point wanted, and the step to train until.
pub fn encode_request(id: u64, config: &RunConfig, first_point: usize, until: usize) -> Vec<f64> {
    let mut out = vec![
        id as f64,
        f64::from(KIND_TRAIN),
        first_point as f64,
        until as f64,
    ];
    out.extend(encode_config(config));
    out
}

/// What the worker answers about a run.
#[derive(Clone, Debug, PartialEq)]
pub struct Chunk {
    pub status: RunStatus,
    /// Updates made so far.
    pub step: usize,
    /// The points from the one asked for on.
    pub points: Vec<Point>,
}

/// The whole of a training worker: trains the run asked for up to the step asked for,
/// in `run` (kept between requests), and answers with its points from the one asked for.
pub fn respond(request: &[f64], run: &mut Option<Trainer>) -> Vec<f64> {
    let head = |i: usize| request.get(i).copied().unwrap_or(0.0);
    let id = head(0);
    let Some(config) = request.get(4..).and_then(decode_config) else {
        return vec![id, f64::from(KIND_TRAIN), -1.0];
    };
    let until = whole(head(3), 0, config.steps);
    let first = whole(head(2), 0, usize::MAX >> 1);
    let fresh = !run
        .as_ref()
        .is_some_and(|t| t.config == config && t.step <= until);
    if fresh {
        *run = Some(Trainer::new(config));
    }
    let Some(trainer) = run.as_mut() else {
        return vec![id, f64::from(KIND_TRAIN), -1.0];
    };
    trainer.advance(until);
    let status = match trainer.status {
        RunStatus::Running => 0.0,
        RunStatus::Done => 1.0,
        RunStatus::Diverged { .. } => 2.0,
    };
    let mut out = vec![
        id,
        f64::from(KIND_TRAIN),
        status,
        trainer.step as f64,
        config.depth as f64,
    ];
    let points = trainer.points.get(first..).unwrap_or(&[]);
    out.push(points.len() as f64);
    for p in points {
        out.extend([
            p.step as f64,
            p.train_loss,
            p.loss,
            p.accuracy,
            p.entropy,
            p.grad_wq,
        ]);
        out.extend(&p.layer_grads);
    }
    out
}

/// The answer's chunk (after `[id, kind]`), or `None` for a malformed one.
pub fn decode_answer(payload: &[f64]) -> Option<Chunk> {
    let status = match *payload.first()? as i64 {
        0 => RunStatus::Running,
        1 => RunStatus::Done,
        2 => RunStatus::Diverged {
            step: *payload.get(1)? as usize,
        },
        _ => return None,
    };
    let step = *payload.get(1)? as usize;
    let depth = *payload.get(2)? as usize;
    let count = *payload.get(3)? as usize;
    let width = 6 + depth;
    let body = payload.get(4..4 + count.checked_mul(width)?)?;
    let points = body
        .chunks_exact(width)
        .map(|p| Point {
            step: p[0] as usize,
            train_loss: p[1],
            loss: p[2],
            accuracy: p[3],
            entropy: p[4],
            grad_wq: p[5],
            layer_grads: p[6..].to_vec(),
        })
        .collect();
    Some(Chunk {
        status,
        step,
        points,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::train::presets::{DEPTH_RUN, SCALE_RUN};

    fn small() -> RunConfig {
        RunConfig {
            d_model: 8,
            depth: 2,
            steps: 9,
            every: 3,
            batch: 2,
            ..DEPTH_RUN
        }
    }

    #[test]
    fn a_configuration_survives_the_wire() {
        for c in [DEPTH_RUN, SCALE_RUN, small()] {
            assert_eq!(decode_config(&encode_config(&c)), Some(c));
        }
    }

    #[test]
    fn any_numbers_decode_to_a_runnable_configuration() {
        let wild = [
            f64::NAN,
            1e300,
            -5.0,
            7.0,
            3.0,
            99.0,
            1.0,
            9.0,
            0.0,
            1.0,
            f64::INFINITY,
            -1.0,
            1e9,
            0.0,
            1e12,
            0.0,
            -3.0,
        ];
        // Test only: 17 numbers always decode (each field is clamped); too few do not.
        let c = decode_config(&wild).expect("decodes");
        assert!(c.d_model % c.heads == 0 && c.depth <= MAX_TRAIN_DEPTH && c.batch >= 1);
        assert!(c.steps <= MAX_TRAIN_STEPS && c.warmup <= c.steps && c.every >= 1);
        assert_eq!(decode_config(&wild[..5]), None);
    }

    #[test]
    fn chunks_add_up_to_the_whole_run() {
        let whole = Trainer::run(small());
        let mut run = None;
        let mut points = Vec::new();
        for until in [2, 5, 9] {
            let answer = respond(&encode_request(1, &small(), points.len(), until), &mut run);
            // Test only: the worker's own answer to a valid request always decodes.
            let chunk = decode_answer(&answer[2..]).expect("an answer");
            points.extend(chunk.points);
        }
        assert_eq!(points, whole.points);
        // Asked again from the start, a worker that has moved on trains it again: the same.
        // (Test only: as above, the worker's own answers decode.)
        let again = respond(&encode_request(2, &small(), 0, 9), &mut run);
        assert_eq!(
            decode_answer(&again[2..]).expect("an answer").points,
            whole.points
        );
        let other = RunConfig { seed: 1, ..small() };
        let switched = respond(&encode_request(3, &other, 0, 9), &mut run);
        assert_eq!(
            decode_answer(&switched[2..]).expect("an answer").points,
            Trainer::run(other).points
        );
    }
}
