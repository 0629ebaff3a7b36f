//! The optimisers: AdamW (Loshchilov & Hutter, "Decoupled Weight Decay Regularization",
//! ICLR 2019) and plain SGD, each with an optional linear learning-rate warm-up.

use super::model::Params;

/// Which update rule, and its learning rate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Optimizer {
    /// AdamW with β₁ = 0.9, β₂ = 0.98, ε = 1e-8 and decoupled weight decay on matrices.
    AdamW { lr: f64, weight_decay: f64 },
    /// θ ← θ − η g.
    Sgd { lr: f64 },
}

/// AdamW's β₁.
pub const BETA1: f64 = 0.9;
/// AdamW's β₂ (the Transformer paper's 0.98).
pub const BETA2: f64 = 0.98;
/// AdamW's ε.
pub const EPSILON: f64 = 1e-8;

/// An optimiser with its running state.
#[derive(Clone, Debug, PartialEq)]
pub struct OptimizerState {
    pub optimizer: Optimizer,
    /// Steps of linear warm-up (0: none): η_t = η · min(1, t / warmup) for update t = 1, 2, ….
    pub warmup: usize,
    /// Updates made so far.
    pub t: usize,
    /// First and second moments (AdamW only).
    m: Option<Params>,
    v: Option<Params>,
}

impl OptimizerState {
    /// A fresh optimiser for parameters shaped like `params`.
    pub fn new(optimizer: Optimizer, warmup: usize, params: &Params) -> Self {
        let moments = matches!(optimizer, Optimizer::AdamW { .. });
        Self {
            optimizer,
            warmup,
            t: 0,
            m: moments.then(|| params.zeros_like()),
            v: moments.then(|| params.zeros_like()),
        }
    }

    /// The learning rate of update `t` (1-based): η · min(1, t / warmup).
    pub fn learning_rate(&self, t: usize) -> f64 {
        let lr = match self.optimizer {
            Optimizer::AdamW { lr, .. } | Optimizer::Sgd { lr } => lr,
        };
        if self.warmup == 0 {
            lr
        } else {
            lr * (t as f64 / self.warmup as f64).min(1.0)
        }
    }

    /// One update of `params` along `grads`.
    ///
    /// AdamW, for each parameter θ with gradient g at update t:
    /// θ ← θ − η_t λ θ (matrices only); m ← β₁m + (1 − β₁)g; v ← β₂v + (1 − β₂)g²;
    /// θ ← θ − η_t · (m / (1 − β₁ᵗ)) / (√(v / (1 − β₂ᵗ)) + ε).
    /// SGD: θ ← θ − η_t g.
    pub fn update(&mut self, params: &mut Params, grads: &Params) {
        self.t += 1;
        let lr = self.learning_rate(self.t);
        let g_slices = grads.slices();
        match (self.optimizer, self.m.as_mut(), self.v.as_mut()) {
            (Optimizer::AdamW { weight_decay, .. }, Some(m), Some(v)) => {
                let c1 = 1.0 - BETA1.powi(self.t as i32);
                let c2 = 1.0 - BETA2.powi(self.t as i32);
                let p_slices = params.slices_mut();
                for (((p, (g, decays)), m), v) in p_slices
                    .into_iter()
                    .zip(g_slices)
                    .zip(m.slices_mut())
                    .zip(v.slices_mut())
                {
                    let decay = if decays { lr * weight_decay } else { 0.0 };
                    for i in 0..p.len().min(g.len()) {
                        let gi = g[i];
                        p[i] -= decay * p[i];
                        m[i] = BETA1 * m[i] + (1.0 - BETA1) * gi;
                        v[i] = BETA2 * v[i] + (1.0 - BETA2) * gi * gi;
                        p[i] -= lr * (m[i] / c1) / ((v[i] / c2).sqrt() + EPSILON);
                    }
                }
            }
            _ => {
                for (p, (g, _)) in params.slices_mut().into_iter().zip(g_slices) {
                    for (pi, gi) in p.iter_mut().zip(g) {
                        *pi -= lr * gi;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::stability::Wiring;
    use crate::math::train::model::ModelShape;
    use crate::math::train::task::{Task, TaskShape};

    fn tiny() -> Params {
        let task = TaskShape {
            task: Task::Reverse,
            symbols: 2,
            length: 2,
        };
        let shape = ModelShape {
            wiring: Wiring::PLAIN,
            ..ModelShape::for_task(&task, 4, 1, 1)
        };
        Params::init(&shape, 1)
    }

    fn filled(like: &Params, value: f64) -> Params {
        let mut p = like.zeros_like();
        for s in p.slices_mut() {
            s.fill(value);
        }
        p
    }

    #[test]
    fn one_adamw_step_is_the_update_written_out_by_hand() {
        // θ = 0.5 everywhere, g = 0.2, η = 0.1, λ = 0.01, first update:
        // decay: 0.5 − 0.1·0.01·0.5 = 0.4995 (matrices only);
        // m = 0.1·0.2 = 0.02, m̂ = 0.02/0.1 = 0.2; v = 0.02·0.04 = 0.0008, v̂ = 0.0008/0.02 = 0.04;
        // step = 0.1 · 0.2 / (0.2 + 1e-8) = 0.1 − 5e-9.
        let params = filled(&tiny(), 0.5);
        let grads = filled(&params, 0.2);
        let mut p = params.clone();
        let mut opt = OptimizerState::new(
            Optimizer::AdamW {
                lr: 0.1,
                weight_decay: 0.01,
            },
            0,
            &p,
        );
        opt.update(&mut p, &grads);
        let step = 0.1 * 0.2 / (0.2 + 1e-8);
        for (s, decays) in p.slices() {
            let expected = if decays { 0.4995 - step } else { 0.5 - step };
            for v in s {
                assert!((v - expected).abs() < 1e-15, "{v} vs {expected}");
            }
        }
        // Second update with the same g: m = 0.9·0.02 + 0.02 = 0.038, m̂ = 0.038/0.19 = 0.2;
        // v = 0.98·0.0008 + 0.0008 = 0.001584, v̂ = 0.001584/0.0396 = 0.04: the same step.
        let before = p.clone();
        opt.update(&mut p, &grads);
        for ((a, decays), (b, _)) in p.slices().into_iter().zip(before.slices()) {
            for (x, y) in a.iter().zip(b) {
                let decayed = if decays { y - 0.1 * 0.01 * y } else { *y };
                assert!((x - (decayed - step)).abs() < 1e-14);
            }
        }
    }

    #[test]
    fn sgd_moves_against_the_gradient_by_the_learning_rate() {
        let params = filled(&tiny(), 1.0);
        let grads = filled(&params, 0.5);
        let mut p = params.clone();
        OptimizerState::new(Optimizer::Sgd { lr: 0.2 }, 0, &p).update(&mut p, &grads);
        assert!(p.slices().iter().all(|(s, _)| s.iter().all(|&v| v == 0.9)));
    }

    #[test]
    fn warm_up_ramps_the_learning_rate_linearly() {
        let opt = OptimizerState::new(Optimizer::Sgd { lr: 1.0 }, 4, &tiny());
        let rates: Vec<f64> = (1..=6).map(|t| opt.learning_rate(t)).collect();
        assert_eq!(rates, vec![0.25, 0.5, 0.75, 1.0, 1.0, 1.0]);
    }
}
