//! A small decoder-only transformer made of Pass 4's blocks: token and position
//! embeddings, `depth` decoder blocks wired as Pass 4 wires them (with a final LayerNorm
//! when pre-norm), an unembedding, and softmax cross-entropy on next-token targets.
//! Forward and backward over a batch, every parameter's gradient accumulated.

use nalgebra::DMatrix;

use super::task::{Example, TaskShape};
use crate::math::products::{transpose_times, zeros};
use crate::math::rng::gaussian_matrix;
use crate::math::softmax::{entropy_nats, softmax};
use crate::math::stability::{
    block_backward_into, block_forward, layer_norm_backward, layer_norm_forward, norm_of_parts,
    unit_block_weights, BlockCache, BlockParams, Branch, GradSink, LayerNormParams, NormPlacement,
    Param, Wiring,
};

const STREAM_EMBED: u64 = 0xE3B;
const STREAM_POSITION: u64 = 0x905;
const STREAM_UNEMBED: u64 = 0x0E3B;

/// The architecture: everything but the weights.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ModelShape {
    pub vocab: usize,
    pub seq_len: usize,
    pub d_model: usize,
    /// Heads; must divide d_model.
    pub heads: usize,
    pub depth: usize,
    pub wiring: Wiring,
    /// Attention logits divided by √d_k (true) or not (Pass 1's switch).
    pub scaled: bool,
}

impl ModelShape {
    /// The shape that learns `task` with the given width, heads, depth and wiring.
    pub fn for_task(task: &TaskShape, d_model: usize, heads: usize, depth: usize) -> Self {
        Self {
            vocab: task.vocab(),
            seq_len: task.seq_len(),
            d_model,
            heads,
            depth,
            wiring: Wiring::PRE_NORM,
            scaled: true,
        }
    }

    /// d_k = d_model / heads.
    pub fn d_head(&self) -> usize {
        self.d_model / self.heads.max(1)
    }
}

/// One block's trainable parameters (shapes d×d, d×4d, 4d×d; x·W convention).
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    pub wq: DMatrix<f64>,
    pub wk: DMatrix<f64>,
    pub wv: DMatrix<f64>,
    pub wo: DMatrix<f64>,
    pub w1: DMatrix<f64>,
    pub w2: DMatrix<f64>,
    pub ln1: LayerNormParams,
    pub ln2: LayerNormParams,
    /// Whether attention divides its logits by √d_k (not a parameter).
    pub scaled: bool,
}

/// Every trainable parameter of the model; the same type holds their gradients and
/// the optimiser's moments.
#[derive(Clone, Debug, PartialEq)]
pub struct Params {
    /// Token embedding E (vocab × d).
    pub embed: DMatrix<f64>,
    /// Position embedding P (seq_len × d).
    pub position: DMatrix<f64>,
    pub blocks: Vec<Block>,
    /// The final LayerNorm (used with pre-norm only).
    pub final_norm: LayerNormParams,
    /// Unembedding U (d × vocab).
    pub unembed: DMatrix<f64>,
}

impl BlockParams for Block {
    fn weight(&self, which: Param) -> (&DMatrix<f64>, f64) {
        let m = match which {
            Param::Wq => &self.wq,
            Param::Wk => &self.wk,
            Param::Wv => &self.wv,
            Param::Wo => &self.wo,
            Param::W1 => &self.w1,
            Param::W2 => &self.w2,
        };
        (m, 1.0)
    }

    fn norm(&self, branch: Branch) -> &LayerNormParams {
        match branch {
            Branch::Attention => &self.ln1,
            Branch::Mlp => &self.ln2,
        }
    }

    fn score_scale(&self, d_head: usize) -> f64 {
        if self.scaled {
            1.0 / (d_head.max(1) as f64).sqrt()
        } else {
            1.0
        }
    }
}

impl Block {
    fn zeros_like(&self) -> Block {
        let z = |m: &DMatrix<f64>| zeros(m.nrows(), m.ncols());
        let d = self.ln1.gamma.len();
        let zero_norm = || LayerNormParams {
            gamma: vec![0.0; d],
            beta: vec![0.0; d],
        };
        Block {
            wq: z(&self.wq),
            wk: z(&self.wk),
            wv: z(&self.wv),
            wo: z(&self.wo),
            w1: z(&self.w1),
            w2: z(&self.w2),
            ln1: zero_norm(),
            ln2: zero_norm(),
            scaled: self.scaled,
        }
    }

    /// Every parameter as a slice, with whether weight decay applies (matrices: yes;
    /// LayerNorm's γ, β: no), in a fixed order.
    fn slices(&self) -> [(&[f64], bool); 10] {
        [
            (self.wq.as_slice(), true),
            (self.wk.as_slice(), true),
            (self.wv.as_slice(), true),
            (self.wo.as_slice(), true),
            (self.w1.as_slice(), true),
            (self.w2.as_slice(), true),
            (&self.ln1.gamma, false),
            (&self.ln1.beta, false),
            (&self.ln2.gamma, false),
            (&self.ln2.beta, false),
        ]
    }

    fn slices_mut(&mut self) -> [&mut [f64]; 10] {
        [
            self.wq.as_mut_slice(),
            self.wk.as_mut_slice(),
            self.wv.as_mut_slice(),
            self.wo.as_mut_slice(),
            self.w1.as_mut_slice(),
            self.w2.as_mut_slice(),
            &mut self.ln1.gamma,
            &mut self.ln1.beta,
            &mut self.ln2.gamma,
            &mut self.ln2.beta,
        ]
    }

    /// ‖θ‖ over every parameter of the block (of its gradient, for a gradient), overflow-safe.
    pub fn norm(&self) -> f64 {
        norm_of_parts(&self.slices().map(|(s, _)| s))
    }
}

/// A sink that adds each gradient it receives to a block of gradients (∂L/∂W += XᵀG).
struct Accumulate<'a>(&'a mut Block);

impl GradSink for Accumulate<'_> {
    fn weights(&mut self, x: &DMatrix<f64>, grads: &[(Param, &DMatrix<f64>)]) {
        for &(which, g) in grads {
            let slot = match which {
                Param::Wq => &mut self.0.wq,
                Param::Wk => &mut self.0.wk,
                Param::Wv => &mut self.0.wv,
                Param::Wo => &mut self.0.wo,
                Param::W1 => &mut self.0.w1,
                Param::W2 => &mut self.0.w2,
            };
            *slot += transpose_times(x, g);
        }
    }

    fn layer_norm(&mut self, branch: Branch, grads: LayerNormParams) {
        let slot = match branch {
            Branch::Attention => &mut self.0.ln1,
            Branch::Mlp => &mut self.0.ln2,
        };
        add_into(&mut slot.gamma, &grads.gamma);
        add_into(&mut slot.beta, &grads.beta);
    }
}

fn add_into(into: &mut [f64], from: &[f64]) {
    for (a, b) in into.iter_mut().zip(from) {
        *a += b;
    }
}

impl Params {
    /// The initial parameters for `shape` from `seed`: each block exactly as Pass 4 draws
    /// it (N(0, 1/fan_in), γ = 1, β = 0, the same streams); E, P ~ N(0, ½) so that
    /// E[token] + P[position] has unit variance; U ~ N(0, 1/(16d)), so that logits of
    /// unit-size features have standard deviation ¼ and the first loss is close to ln V.
    pub fn init(shape: &ModelShape, seed: u64) -> Self {
        let d = shape.d_model;
        let half = std::f64::consts::FRAC_1_SQRT_2;
        let blocks = (0..shape.depth)
            .map(|layer| {
                let w = unit_block_weights(seed, d, layer).scaled(1.0);
                Block {
                    wq: w.wq,
                    wk: w.wk,
                    wv: w.wv,
                    wo: w.wo,
                    w1: w.w1,
                    w2: w.w2,
                    ln1: w.ln1,
                    ln2: w.ln2,
                    scaled: shape.scaled,
                }
            })
            .collect();
        Self {
            embed: gaussian_matrix(seed, &[STREAM_EMBED, d as u64], shape.vocab, d) * half,
            position: gaussian_matrix(seed, &[STREAM_POSITION, d as u64], shape.seq_len, d) * half,
            blocks,
            final_norm: LayerNormParams::identity(d),
            unembed: gaussian_matrix(seed, &[STREAM_UNEMBED, d as u64], d, shape.vocab)
                * (0.25 / (d as f64).sqrt()),
        }
    }

    /// Parameters of the same shapes, all zero (a gradient or a moment to accumulate into).
    pub fn zeros_like(&self) -> Self {
        let z = |m: &DMatrix<f64>| zeros(m.nrows(), m.ncols());
        let d = self.final_norm.gamma.len();
        Self {
            embed: z(&self.embed),
            position: z(&self.position),
            blocks: self.blocks.iter().map(Block::zeros_like).collect(),
            final_norm: LayerNormParams {
                gamma: vec![0.0; d],
                beta: vec![0.0; d],
            },
            unembed: z(&self.unembed),
        }
    }

    /// Every parameter as a slice with whether weight decay applies, in a fixed order
    /// (the same for every `Params` of one shape).
    pub fn slices(&self) -> Vec<(&[f64], bool)> {
        let mut out = vec![
            (self.embed.as_slice(), true),
            (self.position.as_slice(), true),
        ];
        for b in &self.blocks {
            out.extend(b.slices());
        }
        out.push((&self.final_norm.gamma, false));
        out.push((&self.final_norm.beta, false));
        out.push((self.unembed.as_slice(), true));
        out
    }

    /// [`Self::slices`], writable, in the same order.
    pub fn slices_mut(&mut self) -> Vec<&mut [f64]> {
        let mut out = vec![self.embed.as_mut_slice(), self.position.as_mut_slice()];
        for b in &mut self.blocks {
            out.extend(b.slices_mut());
        }
        out.push(&mut self.final_norm.gamma);
        out.push(&mut self.final_norm.beta);
        out.push(self.unembed.as_mut_slice());
        out
    }

    /// The number of scalar parameters.
    pub fn count(&self) -> usize {
        self.slices().iter().map(|(s, _)| s.len()).sum()
    }

    /// Whether every parameter is finite.
    pub fn is_finite(&self) -> bool {
        self.slices()
            .iter()
            .all(|(s, _)| s.iter().all(|v| v.is_finite()))
    }

    /// ‖∂L/∂W_Q‖ over every block, √(Σ_l ‖W_Q,l‖²) (of a gradient, for a gradient).
    pub fn query_norm(&self) -> f64 {
        let parts: Vec<&[f64]> = self.blocks.iter().map(|b| b.wq.as_slice()).collect();
        norm_of_parts(&parts)
    }
}

/// What a batch's forward (and backward) pass measured.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BatchStats {
    /// Mean cross-entropy over every target of the batch, nats.
    pub loss: f64,
    /// Fraction of targets whose largest logit is the target.
    pub accuracy: f64,
    /// Mean entropy of attention's rows (positions 1…T−1; row 0 has one choice), over
    /// heads, blocks and sequences, nats.
    pub entropy: f64,
}

/// Forward through the model for one sequence: the logits (T × vocab), the blocks'
/// caches and what the backward pass needs.
struct Forward {
    logits: DMatrix<f64>,
    blocks: Vec<BlockCache>,
    final_cache: Option<crate::math::stability::LayerNormCache>,
    top: DMatrix<f64>,
}

fn forward(params: &Params, shape: &ModelShape, tokens: &[usize]) -> Forward {
    let (t, d) = (tokens.len().min(shape.seq_len), shape.d_model);
    let mut x = zeros(t, d);
    for (i, &tok) in tokens.iter().take(t).enumerate() {
        let tok = tok.min(shape.vocab.saturating_sub(1));
        for j in 0..d {
            x[(i, j)] = params.embed[(tok, j)] + params.position[(i, j)];
        }
    }
    let mut caches = Vec::with_capacity(params.blocks.len());
    for block in &params.blocks {
        let (y, cache) = block_forward(&x, block, shape.heads, shape.wiring);
        caches.push(cache);
        x = y;
    }
    let (top, final_cache) = if shape.wiring.norm == NormPlacement::Pre {
        let (y, c) = layer_norm_forward(&x, &params.final_norm);
        (y, Some(c))
    } else {
        (x, None)
    };
    let logits = &top * &params.unembed;
    Forward {
        logits,
        blocks: caches,
        final_cache,
        top,
    }
}

/// Softmax of one row of logits (Pass 1's softmax, total for any input).
fn row_softmax(logits: &DMatrix<f64>, i: usize) -> Vec<f64> {
    softmax(&logits.row(i).iter().copied().collect::<Vec<_>>())
}

fn argmax_row(logits: &DMatrix<f64>, i: usize) -> usize {
    let mut best = 0;
    for j in 1..logits.ncols() {
        if logits[(i, j)] > logits[(i, best)] {
            best = j;
        }
    }
    best
}

fn mean_row_entropy(caches: &[BlockCache]) -> (f64, usize) {
    let (mut total, mut rows) = (0.0, 0);
    for cache in caches {
        for p in cache.attention_probabilities() {
            for i in 1..p.nrows() {
                let row: Vec<f64> = (0..=i).map(|j| p[(i, j)]).collect();
                total += entropy_nats(&row);
                rows += 1;
            }
        }
    }
    (total, rows)
}

/// Loss, accuracy and attention entropy of `batch` (forward only).
pub fn evaluate(params: &Params, shape: &ModelShape, batch: &[Example]) -> BatchStats {
    run_batch(params, shape, batch, None)
}

/// Loss, accuracy and entropy of `batch`, and ∂L/∂θ of the mean loss over its targets
/// written into `grads` (overwritten).
pub fn loss_and_gradient(
    params: &Params,
    shape: &ModelShape,
    batch: &[Example],
    grads: &mut Params,
) -> BatchStats {
    *grads = params.zeros_like();
    run_batch(params, shape, batch, Some(grads))
}

fn run_batch(
    params: &Params,
    shape: &ModelShape,
    batch: &[Example],
    mut grads: Option<&mut Params>,
) -> BatchStats {
    let targets: usize = batch
        .iter()
        .map(|e| e.targets.iter().flatten().count())
        .sum();
    let per_target = 1.0 / targets.max(1) as f64;
    let (mut loss, mut right, mut entropy, mut rows) = (0.0, 0usize, 0.0, 0usize);
    for example in batch {
        let f = forward(params, shape, &example.tokens);
        let (e, r) = mean_row_entropy(&f.blocks);
        entropy += e;
        rows += r;
        let mut dlogits = zeros(f.logits.nrows(), f.logits.ncols());
        for (i, target) in example.targets.iter().enumerate().take(f.logits.nrows()) {
            let Some(target) = *target else { continue };
            let p = row_softmax(&f.logits, i);
            loss -= p[target].max(f64::MIN_POSITIVE).ln();
            if argmax_row(&f.logits, i) == target {
                right += 1;
            }
            for (j, pj) in p.iter().enumerate() {
                let hot = if j == target { 1.0 } else { 0.0 };
                dlogits[(i, j)] = (pj - hot) * per_target;
            }
        }
        if let Some(g) = grads.as_deref_mut() {
            backward(params, shape, example, &f, &dlogits, g);
        }
    }
    BatchStats {
        loss: loss * per_target,
        accuracy: right as f64 * per_target,
        entropy: entropy / rows.max(1) as f64,
    }
}

/// ∂L/∂θ for one sequence, added into `grads`, from ∂L/∂logits.
fn backward(
    params: &Params,
    shape: &ModelShape,
    example: &Example,
    f: &Forward,
    dlogits: &DMatrix<f64>,
    grads: &mut Params,
) {
    grads.unembed += transpose_times(&f.top, dlogits);
    let mut dx = dlogits * params.unembed.transpose();
    if let Some(c) = &f.final_cache {
        let (d, g) = layer_norm_backward(&dx, c, &params.final_norm);
        add_into(&mut grads.final_norm.gamma, &g.gamma);
        add_into(&mut grads.final_norm.beta, &g.beta);
        dx = d;
    }
    for ((block, cache), g) in params
        .blocks
        .iter()
        .zip(&f.blocks)
        .zip(grads.blocks.iter_mut())
        .rev()
    {
        dx = block_backward_into(&dx, cache, block, shape.wiring, &mut Accumulate(g));
    }
    for (i, &tok) in example.tokens.iter().take(dx.nrows()).enumerate() {
        let tok = tok.min(shape.vocab.saturating_sub(1));
        for j in 0..dx.ncols() {
            grads.embed[(tok, j)] += dx[(i, j)];
            grads.position[(i, j)] += dx[(i, j)];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::stability::test_support::all_wirings;
    use crate::math::train::task::Task;

    const TASK: TaskShape = TaskShape {
        task: Task::Reverse,
        symbols: 5,
        length: 3,
    };

    fn shape(wiring: Wiring, scaled: bool) -> ModelShape {
        ModelShape {
            wiring,
            scaled,
            ..ModelShape::for_task(&TASK, 8, 2, 2)
        }
    }

    /// Parameters moved off their initial values (γ ≠ 1, β ≠ 0), so that every
    /// gradient, the norms' included, is exercised away from a special point.
    fn perturbed(shape: &ModelShape, seed: u64) -> Params {
        let mut p = Params::init(shape, seed);
        let mut noise = crate::math::rng::SeededStream::new(seed, &[77]);
        for s in p.slices_mut() {
            for v in s.iter_mut() {
                *v += 0.1 * noise.standard_normal();
            }
        }
        p
    }

    #[test]
    fn every_parameter_gradient_matches_finite_differences_in_all_wirings() {
        let batch = TASK.examples(4, &[1], 2);
        for scaled in [true, false] {
            for wiring in all_wirings() {
                let shape = shape(wiring, scaled);
                let params = perturbed(&shape, 11);
                let mut grads = params.zeros_like();
                loss_and_gradient(&params, &shape, &batch, &mut grads);
                let loss_at = |p: &Params| evaluate(p, &shape, &batch).loss;
                let analytic: Vec<f64> = grads
                    .slices()
                    .iter()
                    .flat_map(|(s, _)| s.to_vec())
                    .collect();
                let scale = analytic.iter().map(|g| g * g).sum::<f64>().sqrt();
                let mut k = 0;
                let count = params.slices().len();
                for slice in 0..count {
                    let len = params.slices()[slice].0.len();
                    for idx in 0..len {
                        let h = 1e-5;
                        let (mut up, mut down) = (params.clone(), params.clone());
                        up.slices_mut()[slice][idx] += h;
                        down.slices_mut()[slice][idx] -= h;
                        let fd = (loss_at(&up) - loss_at(&down)) / (2.0 * h);
                        let g = analytic[k];
                        assert!(
                            (fd - g).abs() <= 1e-6 * scale + 1e-6 * fd.abs(),
                            "{} scaled={scaled}: parameter slice {slice}[{idx}]: analytic {g} vs finite difference {fd}",
                            wiring.label()
                        );
                        k += 1;
                    }
                }
                assert_eq!(k, params.count());
            }
        }
    }

    #[test]
    fn loss_at_initialisation_is_near_ln_vocab() {
        // Small logits (U ~ N(0, 1/(16d)) on unit-size features) give near-uniform
        // predictions: the loss within 10 % of ln V for every wiring that keeps features
        // at unit size; a residual stack without a norm grows them (x + F(x) adds
        // variance at every sub-layer), within 15 % at this depth of 2.
        let batch = TASK.examples(2, &[1], 64);
        for wiring in all_wirings() {
            let shape = shape(wiring, true);
            let stats = evaluate(&Params::init(&shape, 3), &shape, &batch);
            let tolerance = if wiring == Wiring::RESIDUAL_ONLY {
                0.15
            } else {
                0.1
            };
            let ln_v = (TASK.vocab() as f64).ln();
            assert!(
                (stats.loss - ln_v).abs() < tolerance * ln_v,
                "{}: {} vs ln V = {ln_v}",
                wiring.label(),
                stats.loss
            );
        }
    }

    #[test]
    fn blocks_start_as_pass_4_draws_them() {
        let shape = shape(Wiring::PLAIN, true);
        let p = Params::init(&shape, 8);
        let z = unit_block_weights(8, 8, 1);
        assert_eq!(p.blocks[1], {
            let w = z.scaled(1.0);
            Block {
                wq: w.wq,
                wk: w.wk,
                wv: w.wv,
                wo: w.wo,
                w1: w.w1,
                w2: w.w2,
                ln1: w.ln1,
                ln2: w.ln2,
                scaled: true,
            }
        });
    }

    #[test]
    fn unscaled_logits_are_sqrt_dk_times_the_scaled_ones() {
        // The same weights: without ÷√d_k each head's probabilities are the softmax of
        // √d_k times the scaled logits, so the attention rows are sharper (lower entropy).
        let batch = TASK.examples(6, &[1], 8);
        let s = shape(Wiring::PRE_NORM, true);
        let u = ModelShape { scaled: false, ..s };
        let mut p = Params::init(&s, 5);
        for b in &mut p.blocks {
            b.wq *= 3.0;
        }
        let mut q = p.clone();
        for b in &mut q.blocks {
            b.scaled = false;
        }
        let scaled = evaluate(&p, &s, &batch);
        let unscaled = evaluate(&q, &u, &batch);
        assert!(unscaled.entropy < scaled.entropy);
        // Dividing W_Q by √d_k undoes the switch exactly (up to rounding).
        for b in &mut q.blocks {
            b.wq /= (s.d_head() as f64).sqrt();
        }
        let undone = evaluate(&q, &u, &batch);
        assert!((undone.loss - scaled.loss).abs() < 1e-12);
        assert!((undone.entropy - scaled.entropy).abs() < 1e-12);
    }
}
