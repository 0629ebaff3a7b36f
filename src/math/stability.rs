//! Pass 4 — stability: why deep stacks train at all.
//!
//! A real stack of decoder blocks (causal multi-head self-attention and a GELU MLP, with
//! LayerNorm), run forward on a seeded random input and backpropagated by hand, in f64.
//! Each block has two sub-layers F (attention, then MLP), each wired by [`Wiring`]:
//!
//! | wiring | sub-layer update |
//! |---|---|
//! | no residual, no norm | x ← F(x) |
//! | no residual, post-norm | x ← LN(F(x)) |
//! | no residual, pre-norm | x ← F(LN(x)), final LN |
//! | residual, no norm | x ← x + F(x) |
//! | residual, post-norm | x ← LN(x + F(x)) |
//! | residual, pre-norm | x ← x + F(LN(x)), final LN |
//!
//! The loss is linear, L = Σ y ⊙ r with r ~ N(0, 1) seeded: its gradient at the output is
//! exactly r whatever y is, so the top of the stack always receives a gradient of the same
//! size and the per-layer norms measure the stack alone (with ½‖y − t‖² the top gradient
//! would grow with the output and hide an explosion inside the stack).
//!
//! Weights are N(0, gain²/fan_in), drawn per layer from their own stream, so a stack of
//! depth L is the first L blocks of a deeper one with the same seed. LayerNorm's γ = 1,
//! β = 0 at initialisation; projections have no biases. GELU is the tanh form of GPT-2.
//! Reference: Xiong et al. (2020), "On Layer Normalization in the Transformer Architecture".

use std::borrow::Cow;
use std::sync::Arc;

use nalgebra::DMatrix;

use crate::math::exp::logistic_clamped_in_place;
use crate::math::products::{
    columns_times, columns_times_transpose, scaled_times, scaled_times_transpose, times_transpose,
    transpose_times, zeros, Columns,
};
use crate::math::rng::SeededStream;
use crate::math::softmax::softmax_into;

/// ε inside LayerNorm's square root: σ = √(Var(x) + ε).
pub const LN_EPS: f64 = 1e-5;
/// Deepest stack the page builds.
pub const MAX_DEPTH: usize = 128;
/// Depths of the depth sweep: 1, 2, 4, …, 128.
pub const SWEEP_DEPTHS: [usize; 8] = [1, 2, 4, 8, 16, 32, 64, 128];

const STREAM_WEIGHTS: u64 = 0x57AB;
const STREAM_INPUT: u64 = 0x1A9;
const STREAM_TARGET: u64 = 0x7A6;

/// Where LayerNorm sits in a sub-layer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NormPlacement {
    /// No normalisation at all.
    None,
    /// After the sum (or after F without a residual): LN(x + F(x)).
    Post,
    /// Inside the branch, before F: x + F(LN(x)), with a final LN on the output.
    Pre,
}

/// How each sub-layer is wired: residual or not, and where the norm sits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Wiring {
    pub residual: bool,
    pub norm: NormPlacement,
}

impl Wiring {
    /// x ← F(x).
    pub const PLAIN: Wiring = Wiring {
        residual: false,
        norm: NormPlacement::None,
    };
    /// x ← LN(x + F(x)) (the original Transformer).
    pub const POST_NORM: Wiring = Wiring {
        residual: true,
        norm: NormPlacement::Post,
    };
    /// x ← x + F(LN(x)) (GPT-2 and later).
    pub const PRE_NORM: Wiring = Wiring {
        residual: true,
        norm: NormPlacement::Pre,
    };
    /// x ← x + F(x).
    pub const RESIDUAL_ONLY: Wiring = Wiring {
        residual: true,
        norm: NormPlacement::None,
    };
    /// The four wirings of the depth sweep.
    pub const SWEEP: [Wiring; 4] = [
        Wiring::PLAIN,
        Wiring::POST_NORM,
        Wiring::PRE_NORM,
        Wiring::RESIDUAL_ONLY,
    ];

    /// A short name: "no residual, no norm", "residual, pre-norm", …
    pub fn label(&self) -> String {
        let res = if self.residual {
            "residual"
        } else {
            "no residual"
        };
        let norm = match self.norm {
            NormPlacement::None => "no norm",
            NormPlacement::Post => "post-norm",
            NormPlacement::Pre => "pre-norm",
        };
        format!("{res}, {norm}")
    }
}

/// The architecture and initialisation of a stack, everything but its depth.
#[derive(Clone, Debug, PartialEq)]
pub struct StackShape {
    pub d_model: usize,
    /// Heads; must divide d_model (see [`heads_dividing`]).
    pub heads: usize,
    /// Tokens T.
    pub seq_len: usize,
    /// Initialisation gain g: weights ~ N(0, g²/fan_in).
    pub gain: f64,
    pub seed: u64,
    pub wiring: Wiring,
}

impl StackShape {
    /// The MLP's hidden width, 4·d_model.
    pub fn d_ff(&self) -> usize {
        4 * self.d_model
    }
}

/// The largest head count ≤ `heads` that divides `d_model` (at least 1).
pub fn heads_dividing(d_model: usize, heads: usize) -> usize {
    (1..=heads.max(1))
        .rev()
        .find(|h| d_model.is_multiple_of(*h))
        .unwrap_or(1)
}

/// LayerNorm's learnable scale γ and shift β (one per feature).
#[derive(Clone, Debug, PartialEq)]
pub struct LayerNormParams {
    pub gamma: Vec<f64>,
    pub beta: Vec<f64>,
}

impl LayerNormParams {
    /// γ = 1, β = 0: the initialisation.
    pub fn identity(d: usize) -> Self {
        Self {
            gamma: vec![1.0; d],
            beta: vec![0.0; d],
        }
    }
}

/// The weights of one decoder block (shapes d×d, d×4d, 4d×d; x·W convention).
#[derive(Clone, Debug, PartialEq)]
pub struct BlockWeights {
    pub wq: DMatrix<f64>,
    pub wk: DMatrix<f64>,
    pub wv: DMatrix<f64>,
    pub wo: DMatrix<f64>,
    pub w1: DMatrix<f64>,
    pub w2: DMatrix<f64>,
    /// The attention sub-layer's norm (used pre or post, as wired).
    pub ln1: LayerNormParams,
    /// The MLP sub-layer's norm.
    pub ln2: LayerNormParams,
}

/// A block's weights as its forward and backward passes read them: each weight W as a
/// stored matrix M and a factor k with W = k·M. Products then take the factor into the
/// kernel, x·W = k·(x·M) and g·Wᵀ = k·(g·Mᵀ), so a stack runs on its unit draws Z with
/// k = gain/√fan_in and never forms a scaled copy of a weight.
pub trait BlockParams {
    /// (M, k) with W = k·M for the weight `which`.
    fn weight(&self, which: Param) -> (&DMatrix<f64>, f64);
    /// The LayerNorm of the `branch` sub-layer.
    fn norm(&self, branch: Branch) -> &LayerNormParams;
}

impl BlockParams for BlockWeights {
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
}

/// x·W for W = k·M given as (M, k): k·(x·M) in one product.
fn times_weight(x: &DMatrix<f64>, (m, k): (&DMatrix<f64>, f64)) -> DMatrix<f64> {
    scaled_times(k, x, m)
}

/// g·Wᵀ for W = k·M given as (M, k): k·(g·Mᵀ) in one product.
fn times_weight_transpose(g: &DMatrix<f64>, (m, k): (&DMatrix<f64>, f64)) -> DMatrix<f64> {
    scaled_times_transpose(k, g, m)
}

/// A matrix of N(0, std²) entries from its own stream.
fn gaussian(seed: u64, path: &[u64], rows: usize, cols: usize, std: f64) -> DMatrix<f64> {
    let mut entries = vec![0.0; rows * cols];
    SeededStream::new(seed, path).fill_standard_normal(&mut entries);
    if std != 1.0 {
        entries.iter_mut().for_each(|x| *x *= std);
    }
    // Column-major, the order `DMatrix::from_fn` visits entries in (tested).
    DMatrix::from_vec(rows, cols, entries)
}

/// The N(0, 1) draws behind one block's matrices, before gain and fan-in scaling: what
/// a change of gain or wiring can reuse.
#[derive(Clone, Debug, PartialEq)]
pub struct UnitWeights([DMatrix<f64>; 6]);

/// The unit draws of block `layer` for `seed` and width `d` (MLP 4d).
pub fn unit_block_weights(seed: u64, d: usize, layer: usize) -> UnitWeights {
    let f = 4 * d;
    let z = |which: u64, rows: usize, cols: usize| {
        gaussian(
            seed,
            &[STREAM_WEIGHTS, d as u64, layer as u64, which],
            rows,
            cols,
            1.0,
        )
    };
    UnitWeights([
        z(0, d, d),
        z(1, d, d),
        z(2, d, d),
        z(3, d, d),
        z(4, d, f),
        z(5, f, d),
    ])
}

impl UnitWeights {
    /// The factor of matrix `i` at `gain`: k = gain/√fan_in (fan_in its rows).
    fn factor(&self, i: usize, gain: f64) -> f64 {
        gain / (self.0[i].nrows() as f64).sqrt()
    }

    /// These draws as the weights at `gain`, W = (gain/√fan_in)·Z, without a scaled copy;
    /// both norms `norm` (the identity γ = 1, β = 0 at initialisation).
    pub fn at_gain<'a>(&'a self, gain: f64, norm: &'a LayerNormParams) -> GainScaled<'a> {
        GainScaled {
            units: self,
            gain,
            norm,
        }
    }

    /// Every matrix scaled to N(0, gain²/fan_in): W = (gain/√fan_in) · Z; γ = 1, β = 0.
    pub fn scaled(&self, gain: f64) -> BlockWeights {
        let w = |i: usize| {
            let z = &self.0[i];
            let k = self.factor(i, gain);
            let scaled: Vec<f64> = z.as_slice().iter().map(|v| v * k).collect();
            DMatrix::from_vec(z.nrows(), z.ncols(), scaled)
        };
        let d = self.0[0].nrows();
        BlockWeights {
            wq: w(0),
            wk: w(1),
            wv: w(2),
            wo: w(3),
            w1: w(4),
            w2: w(5),
            ln1: LayerNormParams::identity(d),
            ln2: LayerNormParams::identity(d),
        }
    }
}

/// One block's unit draws read at a gain: W = (gain/√fan_in)·Z for each matrix (see
/// [`BlockParams`]), the same weights as [`UnitWeights::scaled`] up to rounding.
pub struct GainScaled<'a> {
    units: &'a UnitWeights,
    gain: f64,
    norm: &'a LayerNormParams,
}

impl BlockParams for GainScaled<'_> {
    fn weight(&self, which: Param) -> (&DMatrix<f64>, f64) {
        let i = match which {
            Param::Wq => 0,
            Param::Wk => 1,
            Param::Wv => 2,
            Param::Wo => 3,
            Param::W1 => 4,
            Param::W2 => 5,
        };
        (&self.units.0[i], self.units.factor(i, self.gain))
    }

    fn norm(&self, _: Branch) -> &LayerNormParams {
        self.norm
    }
}

/// Unit draws kept across stacks of one seed and width, so that changing gain or wiring
/// does not draw every weight again. Shared (not copied) by every tape of that seed and
/// width: the stacks on the page hold one copy of their weights between them (at depth
/// 128 and d_model 64 a copy is 50 MB), scaled to the gain only while a block runs.
#[derive(Clone, Debug, Default)]
pub struct WeightBank {
    key: Option<(u64, usize)>,
    layers: Vec<Arc<UnitWeights>>,
}

impl WeightBank {
    /// Block `layer`'s unit draws for `shape`, drawing (and keeping) what is missing.
    pub fn units(&mut self, shape: &StackShape, layer: usize) -> Arc<UnitWeights> {
        let key = (shape.seed, shape.d_model);
        if self.key != Some(key) {
            self.key = Some(key);
            self.layers.clear();
        }
        while self.layers.len() <= layer {
            let l = self.layers.len();
            self.layers
                .push(Arc::new(unit_block_weights(shape.seed, shape.d_model, l)));
        }
        Arc::clone(&self.layers[layer])
    }

    /// Block `layer`'s weights for `shape` (its unit draws scaled to the gain).
    pub fn block(&mut self, shape: &StackShape, layer: usize) -> BlockWeights {
        self.units(shape, layer).scaled(shape.gain)
    }
}

/// The weights of block `layer`: every matrix N(0, gain²/fan_in), γ = 1, β = 0.
pub fn block_weights(shape: &StackShape, layer: usize) -> BlockWeights {
    unit_block_weights(shape.seed, shape.d_model, layer).scaled(shape.gain)
}

/// The stack's input X ~ N(0, 1)^{T×d} and the loss weights r ~ N(0, 1)^{T×d}.
pub fn input_and_loss_weights(shape: &StackShape) -> (DMatrix<f64>, DMatrix<f64>) {
    let (t, d) = (shape.seq_len, shape.d_model);
    (
        gaussian(shape.seed, &[STREAM_INPUT, d as u64, t as u64], t, d, 1.0),
        gaussian(shape.seed, &[STREAM_TARGET, d as u64, t as u64], t, d, 1.0),
    )
}

/// ‖M‖_F = √(Σ x²), with scaling when the plain sum of squares would overflow or
/// underflow: then ‖M‖_F = m · √(Σ (x/m)²) with m = max |x|. Non-finite entries give +∞.
pub fn frobenius_norm(m: &DMatrix<f64>) -> f64 {
    norm_of_parts(&[m.as_slice()])
}

/// The Euclidean norm of all the entries of `parts` taken together, overflow-safe as
/// [`frobenius_norm`]: one pass when Σ x² is a normal f64, a scaled second pass otherwise.
pub fn norm_of_parts(parts: &[&[f64]]) -> f64 {
    // Plain counting loops: the page is built for size, where iterator adapters are not
    // inlined (see products.rs).
    let mut sum_of_squares = 0.0;
    for part in parts {
        let mut i = 0;
        while i < part.len() {
            sum_of_squares += part[i] * part[i];
            i += 1;
        }
    }
    // Above 1e-200 the largest entry's square is far from the subnormals, so what
    // underflowed is negligible; below it, or on overflow or NaN, scale.
    if sum_of_squares.is_finite() && sum_of_squares > 1e-200 {
        return sum_of_squares.sqrt();
    }
    let Some(top) = largest_magnitude(parts) else {
        return f64::INFINITY;
    };
    if top == 0.0 {
        return 0.0;
    }
    let mut scaled = 0.0;
    for part in parts {
        let mut i = 0;
        while i < part.len() {
            let x = part[i] / top;
            scaled += x * x;
            i += 1;
        }
    }
    top * scaled.sqrt()
}

/// max |x| over every entry of `parts` (0 when there are none); None if one is not finite.
fn largest_magnitude(parts: &[&[f64]]) -> Option<f64> {
    let mut top = 0.0_f64;
    for part in parts {
        let mut i = 0;
        while i < part.len() {
            let x = part[i].abs();
            if !x.is_finite() {
                return None;
            }
            // A comparison, not f64::max: both are finite here, and wasm has no
            // instruction for max's NaN rule, so max is a call into libm's fmax.
            if x > top {
                top = x;
            }
            i += 1;
        }
    }
    Some(top)
}

/// ‖XᵀG‖_F for X (T×a) and each G (T×b) of `gs`, without forming the a×b product when
/// T is the small side: ‖XᵀG‖²_F = tr(GᵀXXᵀG) = Σ_ij (XXᵀ)_ij (GGᵀ)_ij, two T×T Gram
/// matrices (XXᵀ formed once for all of `gs`). A factor whose Gram matrix would leave the
/// safe range (its diagonal outside 10^±120, where a product of entries could leave
/// f64's range) is first scaled by a power of two, exactly, and the norm scaled back:
/// ‖XᵀG‖ = 2^(e_X + e_G) ‖(2^−e_X X)ᵀ(2^−e_G G)‖ ([`scaled_gram`]). The product is
/// formed instead when that is cheaper, when a factor is zero or not finite, and when
/// the sum cancels (Σ (XXᵀ)_ij (GGᵀ)_ij < 10⁻⁴ Σ |(XXᵀ)_ij (GGᵀ)_ij|, where its rounding
/// error could matter): in every case the answer is [`frobenius_norm`]`(XᵀG)` to about
/// 10⁻¹⁰.
pub fn product_frobenius_norms(x: &DMatrix<f64>, gs: &[&DMatrix<f64>]) -> Vec<f64> {
    let (t, a) = x.shape();
    let gram_is_cheaper = |g: &DMatrix<f64>| g.nrows() == t && t * (a + g.ncols()) < a * g.ncols();
    let gram_x = if gs.iter().any(|g| gram_is_cheaper(g)) {
        scaled_gram(x)
    } else {
        None
    };
    gs.iter()
        .map(|&g| {
            gram_x
                .as_ref()
                .filter(|_| gram_is_cheaper(g))
                .and_then(|(xx, ex)| {
                    let (gg, eg) = scaled_gram(g)?;
                    Some(libm::scalbn(norm_from_grams(xx, &gg)?, ex + eg))
                })
                .unwrap_or_else(|| frobenius_norm(&transpose_times(x, g)))
        })
        .collect()
}

/// The Gram matrix MMᵀ when it is [`gram_safe`], with exponent 0; otherwise that of
/// M̃ = 2^−e M, with e = ⌊log₂ max |M|⌋ (so that max |M̃| lies in [1, 2) and M̃M̃ᵀ's
/// largest diagonal entry in [1, 4a] for M of a columns), and e. Scaling by a power of
/// two is exact, so ‖M̃ᵀ·‖ = 2^−e ‖Mᵀ·‖ to the bit. None when M is zero or has an entry
/// that is not finite.
fn scaled_gram(m: &DMatrix<f64>) -> Option<(DMatrix<f64>, i32)> {
    let gram = times_transpose(m, m);
    if gram_safe(&gram) {
        return Some((gram, 0));
    }
    let top = largest_magnitude(&[m.as_slice()]).filter(|&top| top > 0.0)?;
    // Clamped so that 2^−e is a normal f64 and scaling M by it is exact.
    let e = libm::ilogb(top).clamp(-1022, 1022);
    let scaled = m * libm::scalbn(1.0, -e);
    let gram = times_transpose(&scaled, &scaled);
    gram_safe(&gram).then_some((gram, e))
}

/// √(Σ_ij (XXᵀ)_ij (GGᵀ)_ij) = ‖XᵀG‖_F from the two Gram matrices; None when the sum
/// cancels below 10⁻⁴ of Σ |(XXᵀ)_ij (GGᵀ)_ij|.
fn norm_from_grams(xx: &DMatrix<f64>, gg: &DMatrix<f64>) -> Option<f64> {
    let (p, q) = (xx.as_slice(), gg.as_slice());
    let (mut sum, mut magnitude) = (0.0, 0.0);
    let mut i = 0;
    while i < p.len().min(q.len()) {
        let term = p[i] * q[i];
        sum += term;
        magnitude += term.abs();
        i += 1;
    }
    (sum >= 1e-4 * magnitude).then(|| sum.sqrt())
}

/// True when a Gram matrix MMᵀ is safe to multiply entrywise: its diagonal (the rows'
/// squared norms, which bound every entry) is finite, and its largest lies in
/// [10⁻¹²⁰, 10¹²⁰], so products of two entries stay normal f64s and what underflowed is
/// negligible. NaN anywhere in M makes its diagonal NaN and fails too.
fn gram_safe(gram: &DMatrix<f64>) -> bool {
    let (n, entries) = (gram.nrows().min(gram.ncols()), gram.as_slice());
    let mut top = 0.0_f64;
    let mut i = 0;
    while i < n {
        let diagonal = entries[i * gram.nrows() + i];
        if !diagonal.is_finite() {
            return false;
        }
        top = top.max(diagonal);
        i += 1;
    }
    (1e-120..=1e120).contains(&top)
}

// ---------------------------------------------------------------------------------------
// LayerNorm

/// What LayerNorm's backward pass needs: the normalised x̂ and 1/σ per token.
#[derive(Clone, Debug, PartialEq)]
pub struct LayerNormCache {
    pub x_hat: DMatrix<f64>,
    pub inv_sigma: Vec<f64>,
}

/// LN(x) = γ ⊙ (x − μ)/σ + β per token (row), μ and σ² = mean((x − μ)²) over features,
/// σ = √(σ² + ε).
pub fn layer_norm_forward(x: &DMatrix<f64>, p: &LayerNormParams) -> (DMatrix<f64>, LayerNormCache) {
    let (t, d) = x.shape();
    // Column-major storage: column j (feature j of every token) is one contiguous run
    // x[j·t .. (j+1)·t]. Plain counting loops over slices: the page is built for size,
    // where iterator adapters and even `Vec`'s indexing are not inlined (see products.rs),
    // and Pass 4 runs in a wasm module of its own, from which such a shared helper is an
    // indirect call into the main module. Indexing a slice is built in.
    let xs = x.as_slice();
    let (gamma, beta) = (
        &p.gamma[..d.min(p.gamma.len())],
        &p.beta[..d.min(p.beta.len())],
    );
    let mut mu_store = vec![0.0; t];
    let mut var_store = vec![0.0; t];
    let (mu, var) = (mu_store.as_mut_slice(), var_store.as_mut_slice());
    for column in xs.chunks_exact(t.max(1)) {
        let mut i = 0;
        while i < t {
            mu[i] += column[i];
            i += 1;
        }
    }
    mu.iter_mut().for_each(|m| *m /= d as f64);
    for column in xs.chunks_exact(t.max(1)) {
        let mut i = 0;
        while i < t {
            let c = column[i] - mu[i];
            var[i] += c * c;
            i += 1;
        }
    }
    let inv_sigma: Vec<f64> = var
        .iter()
        .map(|s| 1.0 / (s / d as f64 + LN_EPS).sqrt())
        .collect();
    let mut x_hat_store = vec![0.0; t * d];
    let mut y_store = vec![0.0; t * d];
    {
        let (x_hat, y, inv) = (
            x_hat_store.as_mut_slice(),
            y_store.as_mut_slice(),
            inv_sigma.as_slice(),
        );
        let mut j = 0;
        while j < d.min(gamma.len()).min(beta.len()) {
            let (g, b) = (gamma[j], beta[j]);
            let mut i = 0;
            while i < t {
                let at = j * t + i;
                let h = (xs[at] - mu[i]) * inv[i];
                x_hat[at] = h;
                y[at] = g * h + b;
                i += 1;
            }
            j += 1;
        }
    }
    (
        DMatrix::from_vec(t, d, y_store),
        LayerNormCache {
            x_hat: DMatrix::from_vec(t, d, x_hat_store),
            inv_sigma,
        },
    )
}

/// LayerNorm's backward pass: with g = dy ⊙ γ,
/// dx = (1/σ)(g − mean(g) − x̂ ⊙ mean(g ⊙ x̂)) per token; dγ = Σ_t dy ⊙ x̂; dβ = Σ_t dy.
pub fn layer_norm_backward(
    dy: &DMatrix<f64>,
    cache: &LayerNormCache,
    p: &LayerNormParams,
) -> (DMatrix<f64>, LayerNormParams) {
    let (t, d) = dy.shape();
    // Slices, not `Vec`s, in the loops (see layer_norm_forward).
    let (dys, xhs) = (dy.as_slice(), cache.x_hat.as_slice());
    let inv_sigma = cache.inv_sigma.as_slice();
    let gammas = p.gamma.as_slice();
    let d = d.min(gammas.len()).min(xhs.len() / t.max(1));
    let t = t.min(inv_sigma.len());
    let (mut mean_g_store, mut mean_gx_store) = (vec![0.0; t], vec![0.0; t]);
    let (mean_g, mean_gx) = (mean_g_store.as_mut_slice(), mean_gx_store.as_mut_slice());
    let mut grads = LayerNormParams {
        gamma: vec![0.0; dy.ncols()],
        beta: vec![0.0; dy.ncols()],
    };
    let rows = dy.nrows();
    {
        let (dgammas, dbetas) = (grads.gamma.as_mut_slice(), grads.beta.as_mut_slice());
        let mut j = 0;
        while j < d {
            let gamma = gammas[j];
            let (mut dgamma, mut dbeta) = (0.0, 0.0);
            let mut i = 0;
            while i < t {
                let at = j * rows + i;
                let (dyv, xh) = (dys[at], xhs[at]);
                let g = dyv * gamma;
                mean_g[i] += g;
                mean_gx[i] += g * xh;
                dgamma += dyv * xh;
                dbeta += dyv;
                i += 1;
            }
            dgammas[j] = dgamma;
            dbetas[j] = dbeta;
            j += 1;
        }
    }
    mean_g.iter_mut().for_each(|m| *m /= dy.ncols() as f64);
    mean_gx.iter_mut().for_each(|m| *m /= dy.ncols() as f64);
    let mut dx_store = vec![0.0; dys.len()];
    {
        let dx = dx_store.as_mut_slice();
        let mut j = 0;
        while j < d {
            let gamma = gammas[j];
            let mut i = 0;
            while i < t {
                let at = j * rows + i;
                let g = dys[at] * gamma;
                dx[at] = inv_sigma[i] * (g - mean_g[i] - xhs[at] * mean_gx[i]);
                i += 1;
            }
            j += 1;
        }
    }
    (DMatrix::from_vec(dy.nrows(), dy.ncols(), dx_store), grads)
}

// ---------------------------------------------------------------------------------------
// GELU and the MLP

const GELU_C: f64 = 0.797_884_560_802_865_4; // √(2/π)
const GELU_A: f64 = 0.044_715;

/// t = tanh(√(2/π)(x + 0.044715x³)), the tanh inside GELU and its derivative.
pub fn gelu_tanh(x: f64) -> f64 {
    (GELU_C * (x + GELU_A * x * x * x)).tanh()
}

/// GELU, tanh form: ½x(1 + tanh(√(2/π)(x + 0.044715x³))).
pub fn gelu(x: f64) -> f64 {
    0.5 * x * (1.0 + gelu_tanh(x))
}

/// d GELU/dx = ½(1 + t) + ½x(1 − t²)·√(2/π)(1 + 3·0.044715x²), t = tanh(√(2/π)(x + 0.044715x³)).
pub fn gelu_derivative(x: f64) -> f64 {
    gelu_derivative_given_tanh(x, gelu_tanh(x))
}

/// [`gelu_derivative`] with t = [`gelu_tanh`]`(x)` already known (kept from the forward pass).
pub fn gelu_derivative_given_tanh(x: f64, t: f64) -> f64 {
    0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * GELU_C * (1.0 + 3.0 * GELU_A * x * x)
}

/// GELU′(h) from s = σ(2u) (see [`gelu_gates`]): with 1 + t = 2s and 1 − t² = 4s(1 − s)
/// for t = tanh u, ½(1 + t) + ½h(1 − t²)u′ = s + 2h·s(1 − s)·√(2/π)(1 + 3·0.044715h²).
pub fn gelu_derivative_given_gate(h: f64, s: f64) -> f64 {
    s + 2.0 * h * s * (1.0 - s) * GELU_C * (1.0 + 3.0 * GELU_A * h * h)
}

/// s = σ(2u) = 1/(1 + e^(−2u)), u = √(2/π)(h + 0.044715h³), for every pre-activation h:
/// GELU(h) = ½h(1 + tanh u) = h·s, because ½(1 + tanh u) = σ(2u). One exponential per
/// entry, two at a time in the browser ([`logistic_clamped_in_place`]), instead of a tanh.
/// The exponent is clamped to [−708, 709], so s is exactly what σ gives wherever
/// e^(−2u) is a normal f64 and otherwise within 3·10⁻³⁰⁸ of 0 or 1.
pub fn gelu_gates(pre: &DMatrix<f64>) -> DMatrix<f64> {
    let mut s = pre.clone();
    let values = s.as_mut_slice();
    // Plain counting loops: the page is built for size, where iterator adapters are
    // not inlined (see products.rs).
    let mut i = 0;
    while i < values.len() {
        let h = values[i];
        values[i] = 2.0 * GELU_C * (h + GELU_A * h * h * h);
        i += 1;
    }
    logistic_clamped_in_place(values);
    s
}

/// What the MLP's backward pass needs.
#[derive(Clone, Debug, PartialEq)]
pub struct MlpCache {
    pub x: DMatrix<f64>,
    pub pre: DMatrix<f64>,
    /// The gate s = σ(2u) of each pre-activation h ([`gelu_gates`]): GELU(h) = h·s and
    /// GELU′(h) in the backward pass both follow from it (the activation is not kept).
    pub gate: DMatrix<f64>,
}

/// GELU(h) = h·s from the pre-activations and their kept gates.
fn gelu_given_gate(pre: &DMatrix<f64>, gate: &DMatrix<f64>) -> DMatrix<f64> {
    let mut a = pre.clone();
    let (values, gates) = (a.as_mut_slice(), gate.as_slice());
    let mut i = 0;
    while i < values.len().min(gates.len()) {
        values[i] *= gates[i];
        i += 1;
    }
    a
}

/// MLP(x) = GELU(x W₁) W₂.
pub fn mlp_forward(
    x: &DMatrix<f64>,
    w1: &DMatrix<f64>,
    w2: &DMatrix<f64>,
) -> (DMatrix<f64>, MlpCache) {
    mlp_forward_weighted(x, (w1, 1.0), (w2, 1.0))
}

/// [`mlp_forward`] with W₁ and W₂ given as (M, k), W = k·M (see [`BlockParams`]).
fn mlp_forward_weighted(
    x: &DMatrix<f64>,
    w1: (&DMatrix<f64>, f64),
    w2: (&DMatrix<f64>, f64),
) -> (DMatrix<f64>, MlpCache) {
    let pre = times_weight(x, w1);
    let gate = gelu_gates(&pre);
    let y = times_weight(&gelu_given_gate(&pre, &gate), w2);
    (
        y,
        MlpCache {
            x: x.clone(),
            pre,
            gate,
        },
    )
}

/// The MLP's backward pass: dW₂ = aᵀ dy, dh = (dy W₂ᵀ) ⊙ GELU′(h), dW₁ = xᵀ dh, dx = dh W₁ᵀ.
/// Returns (dx, dW₁, dW₂).
pub fn mlp_backward(
    dy: &DMatrix<f64>,
    cache: &MlpCache,
    w1: &DMatrix<f64>,
    w2: &DMatrix<f64>,
) -> (DMatrix<f64>, DMatrix<f64>, DMatrix<f64>) {
    let mut grads = BlockGrads::empty(cache.x.ncols());
    let dx = mlp_backward_into(dy, cache, (w1, 1.0), (w2, 1.0), &mut grads);
    (dx, grads.w1, grads.w2)
}

/// [`mlp_backward`], W₁ and W₂ given as (M, k) with W = k·M (see [`BlockParams`]), the
/// weight gradients dW₁ = xᵀdh and dW₂ = aᵀdy handed to `sink` as their factors.
/// Returns dx.
pub fn mlp_backward_into(
    dy: &DMatrix<f64>,
    cache: &MlpCache,
    w1: (&DMatrix<f64>, f64),
    w2: (&DMatrix<f64>, f64),
    sink: &mut impl GradSink,
) -> DMatrix<f64> {
    sink.weights(
        &gelu_given_gate(&cache.pre, &cache.gate),
        &[(Param::W2, dy)],
    );
    let mut dh = times_weight_transpose(dy, w2);
    let (grads, pre, gate) = (
        dh.as_mut_slice(),
        cache.pre.as_slice(),
        cache.gate.as_slice(),
    );
    let mut i = 0;
    while i < grads.len().min(pre.len()).min(gate.len()) {
        grads[i] *= gelu_derivative_given_gate(pre[i], gate[i]);
        i += 1;
    }
    sink.weights(&cache.x, &[(Param::W1, &dh)]);
    times_weight_transpose(&dh, w1)
}

// ---------------------------------------------------------------------------------------
// Where weight gradients go

/// A weight matrix of a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Param {
    Wq,
    Wk,
    Wv,
    Wo,
    W1,
    W2,
}

/// Where a backward pass puts the gradients of the parameters it passes. A weight W
/// used as X·W has ∂L/∂W = XᵀG, G = ∂L/∂(XW); it arrives as its two factors, so a sink
/// that needs only ‖∂L/∂W‖ never forms the in × out product ([`product_frobenius_norms`]).
pub trait GradSink {
    /// ∂L/∂W = XᵀG for each (W, G) of `grads`, all with the same input X.
    fn weights(&mut self, x: &DMatrix<f64>, grads: &[(Param, &DMatrix<f64>)]);
    /// dγ, dβ of the norm of the `branch` sub-layer (only when that norm is wired in).
    fn layer_norm(&mut self, branch: Branch, grads: LayerNormParams);
}

/// A sink that keeps only the norm of everything it receives: ‖∂L/∂θ‖ over all the
/// block's parameters, as √(Σ_parts ‖part‖²) computed overflow-safe by [`norm_of_parts`].
#[derive(Default)]
struct GradNorm {
    parts: Vec<f64>,
}

impl GradNorm {
    fn norm(&self) -> f64 {
        norm_of_parts(&[&self.parts])
    }
}

impl GradSink for GradNorm {
    fn weights(&mut self, x: &DMatrix<f64>, grads: &[(Param, &DMatrix<f64>)]) {
        let gs: Vec<&DMatrix<f64>> = grads.iter().map(|&(_, g)| g).collect();
        self.parts.extend(product_frobenius_norms(x, &gs));
    }

    fn layer_norm(&mut self, _: Branch, grads: LayerNormParams) {
        self.parts.push(norm_of_parts(&[&grads.gamma, &grads.beta]));
    }
}

// ---------------------------------------------------------------------------------------
// Causal multi-head self-attention

/// What attention's backward pass needs.
#[derive(Clone, Debug, PartialEq)]
pub struct AttentionCache {
    pub x: DMatrix<f64>,
    pub q: DMatrix<f64>,
    pub k: DMatrix<f64>,
    pub v: DMatrix<f64>,
    /// Per head, the T×T attention probabilities (zero above the diagonal).
    pub p: Vec<DMatrix<f64>>,
    /// The heads' outputs, concatenated (T×d).
    pub o: DMatrix<f64>,
}

/// The attention weights' gradients.
#[derive(Clone, Debug, PartialEq)]
pub struct AttentionGrads {
    pub wq: DMatrix<f64>,
    pub wk: DMatrix<f64>,
    pub wv: DMatrix<f64>,
    pub wo: DMatrix<f64>,
}

/// Causal multi-head self-attention: Q = xW_Q, K = xW_K, V = xW_V; for head h (columns
/// h·d_h … (h+1)·d_h), P_h = softmax(Q_h K_hᵀ/√d_h) row by row over positions j ≤ i only;
/// O = [P_1V_1 | … | P_HV_H]; y = O W_O.
pub fn attention_forward(
    x: &DMatrix<f64>,
    w: &impl BlockParams,
    heads: usize,
) -> (DMatrix<f64>, AttentionCache) {
    let (t, d) = x.shape();
    let heads = heads_dividing(d, heads);
    let dh = d / heads;
    let scale = 1.0 / (dh as f64).sqrt();
    let (q, k, v) = (
        times_weight(x, w.weight(Param::Wq)),
        times_weight(x, w.weight(Param::Wk)),
        times_weight(x, w.weight(Param::Wv)),
    );
    let mut o = zeros(t, d);
    let mut probs = Vec::with_capacity(heads);
    for h in 0..heads {
        let c0 = h * dh;
        let (qh, kh, vh) = (
            Columns::of(&q, c0, dh),
            Columns::of(&k, c0, dh),
            Columns::of(&v, c0, dh),
        );
        let scores = columns_times_transpose(scale, qh, kh);
        let mut p = zeros(t, t);
        let mut row = vec![0.0; t];
        for i in 0..t {
            softmax_into((0..=i).map(|j| scores[(i, j)]), &mut row[..=i]);
            for j in 0..=i {
                p[(i, j)] = row[j];
            }
        }
        let oh = columns_times(1.0, Columns::all(&p), vh);
        o.columns_mut(c0, dh).copy_from(&oh);
        probs.push(p);
    }
    let y = times_weight(&o, w.weight(Param::Wo));
    (
        y,
        AttentionCache {
            x: x.clone(),
            q,
            k,
            v,
            p: probs,
            o,
        },
    )
}

/// Attention's backward pass. dW_O = Oᵀdy, dO = dy W_Oᵀ; per head dP = dO_h V_hᵀ,
/// dV_h = Pᵀ dO_h, and each row of dS is J(p_i)·dP_i through the softmax Jacobian of
/// Pass 1 (masked entries have p = 0 and get no gradient); dQ_h = dS K_h/√d_h,
/// dK_h = dSᵀ Q_h/√d_h; dx = dQ W_Qᵀ + dK W_Kᵀ + dV W_Vᵀ.
pub fn attention_backward(
    dy: &DMatrix<f64>,
    cache: &AttentionCache,
    w: &impl BlockParams,
) -> (DMatrix<f64>, AttentionGrads) {
    let mut grads = BlockGrads::empty(cache.x.ncols());
    let dx = attention_backward_into(dy, cache, w, &mut grads);
    (dx, grads.attention)
}

/// [`attention_backward`], the weight gradients dW_Q = xᵀdQ, dW_K = xᵀdK, dW_V = xᵀdV
/// and dW_O = Oᵀdy handed to `sink` as their factors. Returns dx.
pub fn attention_backward_into(
    dy: &DMatrix<f64>,
    cache: &AttentionCache,
    w: &impl BlockParams,
    sink: &mut impl GradSink,
) -> DMatrix<f64> {
    let (t, d) = cache.x.shape();
    let heads = cache.p.len().max(1);
    let dh = d / heads;
    let scale = 1.0 / (dh as f64).sqrt();
    sink.weights(&cache.o, &[(Param::Wo, dy)]);
    let d_o = times_weight_transpose(dy, w.weight(Param::Wo));
    let (mut dq, mut dk, mut dv) = (zeros(t, d), zeros(t, d), zeros(t, d));
    for (h, p) in cache.p.iter().enumerate() {
        let c0 = h * dh;
        let doh = Columns::of(&d_o, c0, dh);
        let dp = columns_times_transpose(1.0, doh, Columns::of(&cache.v, c0, dh));
        // Pᵀ and dSᵀ are T×T: copied transposed, so that every product reads A by columns.
        let p_t = p.transpose();
        dv.columns_mut(c0, dh)
            .copy_from(&columns_times(1.0, Columns::all(&p_t), doh));
        let ds = scaled_softmax_vjp_rows(p, &dp, scale);
        dq.columns_mut(c0, dh).copy_from(&columns_times(
            1.0,
            Columns::all(&ds),
            Columns::of(&cache.k, c0, dh),
        ));
        let ds_t = ds.transpose();
        dk.columns_mut(c0, dh).copy_from(&columns_times(
            1.0,
            Columns::all(&ds_t),
            Columns::of(&cache.q, c0, dh),
        ));
    }
    sink.weights(
        &cache.x,
        &[(Param::Wq, &dq), (Param::Wk, &dk), (Param::Wv, &dv)],
    );
    times_weight_transpose(&dq, w.weight(Param::Wq))
        + times_weight_transpose(&dk, w.weight(Param::Wk))
        + times_weight_transpose(&dv, w.weight(Param::Wv))
}

/// Row i of dS = scale · J(p_i)·dP_i over the unmasked positions j ≤ i of the causal
/// T×T probabilities P ([`softmax_vjp`] row by row, without a vector per row):
/// dS_ij = scale · p_ij (dP_ij − Σ_{k≤i} p_ik dP_ik); zero above the diagonal.
fn scaled_softmax_vjp_rows(p: &DMatrix<f64>, dp: &DMatrix<f64>, scale: f64) -> DMatrix<f64> {
    let t = p.nrows().min(p.ncols()).min(dp.nrows()).min(dp.ncols());
    let (ps, dps) = (p.as_slice(), dp.as_slice());
    let (pr, dr) = (p.nrows(), dp.nrows());
    let mut ds = zeros(t, t);
    let out = ds.as_mut_slice();
    let mut i = 0;
    while i < t {
        let mut mean = 0.0;
        let mut j = 0;
        while j <= i {
            mean += ps[j * pr + i] * dps[j * dr + i];
            j += 1;
        }
        let mut j = 0;
        while j <= i {
            out[j * t + i] = ps[j * pr + i] * (dps[j * dr + i] - mean) * scale;
            j += 1;
        }
        i += 1;
    }
    ds
}

// ---------------------------------------------------------------------------------------
// Sub-layers and blocks

/// Which function a sub-layer computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Branch {
    Attention,
    Mlp,
}

#[derive(Clone, Debug, PartialEq)]
enum BranchCache {
    Attention(AttentionCache),
    Mlp(MlpCache),
}

/// What one sub-layer's backward pass needs.
#[derive(Clone, Debug, PartialEq)]
pub struct SublayerCache {
    pre_ln: Option<LayerNormCache>,
    branch: BranchCache,
    post_ln: Option<LayerNormCache>,
}

/// What one block's backward pass needs.
#[derive(Clone, Debug, PartialEq)]
pub struct BlockCache {
    attention: SublayerCache,
    mlp: SublayerCache,
}

/// The gradients of one block's parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct BlockGrads {
    pub attention: AttentionGrads,
    pub w1: DMatrix<f64>,
    pub w2: DMatrix<f64>,
    pub ln1: LayerNormParams,
    pub ln2: LayerNormParams,
}

impl BlockGrads {
    /// ‖∂L/∂θ‖ over every parameter θ of the block (all matrices and the norms' γ, β in use).
    pub fn norm(&self) -> f64 {
        norm_of_parts(&[
            self.attention.wq.as_slice(),
            self.attention.wk.as_slice(),
            self.attention.wv.as_slice(),
            self.attention.wo.as_slice(),
            self.w1.as_slice(),
            self.w2.as_slice(),
            &self.ln1.gamma,
            &self.ln1.beta,
            &self.ln2.gamma,
            &self.ln2.beta,
        ])
    }
}

impl BlockGrads {
    /// Weight placeholders without storage, for a backward pass to overwrite, and zero
    /// norm gradients (what a norm that is not wired in keeps).
    fn empty(d: usize) -> Self {
        let empty = || zeros(0, 0);
        let zero = || LayerNormParams {
            gamma: vec![0.0; d],
            beta: vec![0.0; d],
        };
        Self {
            attention: AttentionGrads {
                wq: empty(),
                wk: empty(),
                wv: empty(),
                wo: empty(),
            },
            w1: empty(),
            w2: empty(),
            ln1: zero(),
            ln2: zero(),
        }
    }
}

impl GradSink for BlockGrads {
    fn weights(&mut self, x: &DMatrix<f64>, grads: &[(Param, &DMatrix<f64>)]) {
        for &(which, g) in grads {
            let slot = match which {
                Param::Wq => &mut self.attention.wq,
                Param::Wk => &mut self.attention.wk,
                Param::Wv => &mut self.attention.wv,
                Param::Wo => &mut self.attention.wo,
                Param::W1 => &mut self.w1,
                Param::W2 => &mut self.w2,
            };
            *slot = transpose_times(x, g);
        }
    }

    fn layer_norm(&mut self, branch: Branch, grads: LayerNormParams) {
        match branch {
            Branch::Attention => self.ln1 = grads,
            Branch::Mlp => self.ln2 = grads,
        }
    }
}

fn sublayer_forward(
    x: &DMatrix<f64>,
    branch: Branch,
    w: &impl BlockParams,
    heads: usize,
    wiring: Wiring,
) -> (DMatrix<f64>, SublayerCache) {
    let ln = w.norm(branch);
    // Without a pre-norm the branch reads x itself: no copy.
    let (u, pre_ln) = if wiring.norm == NormPlacement::Pre {
        let (u, c) = layer_norm_forward(x, ln);
        (Cow::Owned(u), Some(c))
    } else {
        (Cow::Borrowed(x), None)
    };
    let (f, branch_cache) = match branch {
        Branch::Attention => {
            let (f, c) = attention_forward(&u, w, heads);
            (f, BranchCache::Attention(c))
        }
        Branch::Mlp => {
            let (f, c) = mlp_forward_weighted(&u, w.weight(Param::W1), w.weight(Param::W2));
            (f, BranchCache::Mlp(c))
        }
    };
    let s = if wiring.residual { x + f } else { f };
    let (y, post_ln) = if wiring.norm == NormPlacement::Post {
        let (y, c) = layer_norm_forward(&s, ln);
        (y, Some(c))
    } else {
        (s, None)
    };
    (
        y,
        SublayerCache {
            pre_ln,
            branch: branch_cache,
            post_ln,
        },
    )
}

/// Backward through one sub-layer; hands the branch's and the norm's gradients to `sink`.
fn sublayer_backward(
    dy: &DMatrix<f64>,
    cache: &SublayerCache,
    w: &impl BlockParams,
    wiring: Wiring,
    sink: &mut impl GradSink,
) -> DMatrix<f64> {
    let branch = match cache.branch {
        BranchCache::Attention(_) => Branch::Attention,
        BranchCache::Mlp(_) => Branch::Mlp,
    };
    let ln = w.norm(branch);
    let mut ln_grad = None;
    let ds = match &cache.post_ln {
        Some(c) => {
            let (ds, g) = layer_norm_backward(dy, c, ln);
            ln_grad = Some(g);
            Cow::Owned(ds)
        }
        None => Cow::Borrowed(dy),
    };
    let du = match &cache.branch {
        BranchCache::Attention(c) => attention_backward_into(&ds, c, w, sink),
        BranchCache::Mlp(c) => {
            mlp_backward_into(&ds, c, w.weight(Param::W1), w.weight(Param::W2), sink)
        }
    };
    let dx_branch = match &cache.pre_ln {
        Some(c) => {
            let (dx, g) = layer_norm_backward(&du, c, ln);
            ln_grad = Some(g);
            dx
        }
        None => du,
    };
    // A norm that is not wired in has zero gradient, and nothing is handed on.
    if let Some(g) = ln_grad {
        sink.layer_norm(branch, g);
    }
    if wiring.residual {
        dx_branch + ds.as_ref()
    } else {
        dx_branch
    }
}

/// One decoder block forward: the attention sub-layer, then the MLP sub-layer.
pub fn block_forward(
    x: &DMatrix<f64>,
    w: &impl BlockParams,
    heads: usize,
    wiring: Wiring,
) -> (DMatrix<f64>, BlockCache) {
    let (h, attention) = sublayer_forward(x, Branch::Attention, w, heads, wiring);
    let (y, mlp) = sublayer_forward(&h, Branch::Mlp, w, heads, wiring);
    (y, BlockCache { attention, mlp })
}

/// One decoder block backward: returns ∂L/∂x and the block's parameter gradients.
pub fn block_backward(
    dy: &DMatrix<f64>,
    cache: &BlockCache,
    w: &impl BlockParams,
    wiring: Wiring,
) -> (DMatrix<f64>, BlockGrads) {
    let mut grads = BlockGrads::empty(w.weight(Param::Wq).0.nrows());
    let dx = block_backward_into(dy, cache, w, wiring, &mut grads);
    (dx, grads)
}

/// [`block_backward`] keeping only ‖∂L/∂θ‖ over the block's parameters (what the stack
/// plots), each weight's through [`product_frobenius_norms`]: returns (∂L/∂x, ‖∂L/∂θ‖).
pub fn block_backward_norm(
    dy: &DMatrix<f64>,
    cache: &BlockCache,
    w: &impl BlockParams,
    wiring: Wiring,
) -> (DMatrix<f64>, f64) {
    let mut norm = GradNorm::default();
    let dx = block_backward_into(dy, cache, w, wiring, &mut norm);
    (dx, norm.norm())
}

fn block_backward_into(
    dy: &DMatrix<f64>,
    cache: &BlockCache,
    w: &impl BlockParams,
    wiring: Wiring,
    sink: &mut impl GradSink,
) -> DMatrix<f64> {
    let dh = sublayer_backward(dy, &cache.mlp, w, wiring, sink);
    sublayer_backward(&dh, &cache.attention, w, wiring, sink)
}

// ---------------------------------------------------------------------------------------
// The stack: a forward tape that grows layer by layer, and resumable backward passes

/// The forward pass of a stack, kept so that any depth up to its length can be
/// backpropagated: weights, caches and each block's output. Grows one block at a time
/// ([`Tape::push_block`]) so the page can spread the work over several frames.
#[derive(Clone, Debug)]
pub struct Tape {
    pub shape: StackShape,
    input: DMatrix<f64>,
    loss_weights: DMatrix<f64>,
    /// Each block's unit draws; its weights are `units.at_gain(shape.gain, …)`.
    weights: Vec<Arc<UnitWeights>>,
    caches: Vec<BlockCache>,
    /// outputs[l] = x_{l+1}, the output of block l.
    outputs: Vec<DMatrix<f64>>,
    /// Every norm of the initialised stack, the blocks' and the final one: γ = 1, β = 0.
    norm_at_init: LayerNormParams,
}

impl Tape {
    /// An empty tape (depth 0) for `shape`; heads are reduced to a divisor of d_model.
    pub fn new(mut shape: StackShape) -> Self {
        shape.heads = heads_dividing(shape.d_model, shape.heads);
        let (input, loss_weights) = input_and_loss_weights(&shape);
        let norm_at_init = LayerNormParams::identity(shape.d_model);
        Self {
            shape,
            input,
            loss_weights,
            weights: Vec::new(),
            caches: Vec::new(),
            outputs: Vec::new(),
            norm_at_init,
        }
    }

    /// Blocks run so far.
    pub fn len(&self) -> usize {
        self.outputs.len()
    }

    /// True before the first block.
    pub fn is_empty(&self) -> bool {
        self.outputs.is_empty()
    }

    /// The input of block `layer` (x_0 is the stack's input).
    pub fn block_input(&self, layer: usize) -> &DMatrix<f64> {
        if layer == 0 {
            &self.input
        } else {
            &self.outputs[layer - 1]
        }
    }

    /// Runs one more block forward.
    pub fn push_block(&mut self) {
        self.push_block_with(&mut WeightBank::default());
    }

    /// Runs one more block forward, its weights from `bank`.
    pub fn push_block_with(&mut self, bank: &mut WeightBank) {
        let layer = self.len();
        let units = bank.units(&self.shape, layer);
        let (y, cache) = block_forward(
            self.block_input(layer),
            &units.at_gain(self.shape.gain, &self.norm_at_init),
            self.shape.heads,
            self.shape.wiring,
        );
        self.weights.push(units);
        self.caches.push(cache);
        self.outputs.push(y);
    }

    /// Runs blocks until the tape holds `depth` of them.
    pub fn extend_to(&mut self, depth: usize) {
        while self.len() < depth {
            self.push_block();
        }
    }

    /// The first block whose output is not finite (the forward pass overflowed there).
    pub fn first_forward_overflow(&self, depth: usize) -> Option<usize> {
        self.outputs
            .iter()
            .take(depth)
            .position(|y| largest_magnitude(&[y.as_slice()]).is_none())
    }

    /// Output y of the stack of depth `depth` (with the final LN when pre-norm) and the
    /// loss L = Σ y ⊙ r.
    pub fn output_and_loss(&self, depth: usize) -> (DMatrix<f64>, f64) {
        let x = self.block_input(depth.min(self.len()));
        let y = if self.shape.wiring.norm == NormPlacement::Pre {
            layer_norm_forward(x, &self.norm_at_init).0
        } else {
            x.clone()
        };
        let loss = y.component_mul(&self.loss_weights).sum();
        (y, loss)
    }

    /// Starts the backward pass of the stack of depth `depth` (≤ len).
    pub fn backward(&self, depth: usize) -> Backward {
        let depth = depth.min(self.len());
        let r = self.loss_weights.clone();
        let grad = if self.shape.wiring.norm == NormPlacement::Pre {
            let (_, cache) = layer_norm_forward(self.block_input(depth), &self.norm_at_init);
            layer_norm_backward(&r, &cache, &self.norm_at_init).0
        } else {
            r
        };
        Backward {
            depth,
            next: depth,
            grad,
            input_grad_norm: vec![0.0; depth],
            weight_grad_norm: vec![0.0; depth],
        }
    }
}

/// A backward pass in progress, from the top block down; [`Backward::step`] does one block.
#[derive(Clone, Debug)]
pub struct Backward {
    depth: usize,
    /// Blocks still to backpropagate: next − 1 is the next one.
    next: usize,
    grad: DMatrix<f64>,
    input_grad_norm: Vec<f64>,
    weight_grad_norm: Vec<f64>,
}

impl Backward {
    /// Backpropagates through one more block; returns true when every block is done.
    pub fn step(&mut self, tape: &Tape) -> bool {
        if self.next == 0 {
            return true;
        }
        let l = self.next - 1;
        let (dx, weight_grad_norm) = block_backward_norm(
            &self.grad,
            &tape.caches[l],
            &tape.weights[l].at_gain(tape.shape.gain, &tape.norm_at_init),
            tape.shape.wiring,
        );
        self.weight_grad_norm[l] = weight_grad_norm;
        self.input_grad_norm[l] = frobenius_norm(&dx);
        self.grad = dx;
        self.next = l;
        self.next == 0
    }

    /// Runs the pass to the end.
    pub fn finish(mut self, tape: &Tape) -> GradientProfile {
        while !self.step(tape) {}
        self.profile(tape)
    }

    /// The per-layer norms (complete once [`Backward::step`] has returned true).
    pub fn profile(self, tape: &Tape) -> GradientProfile {
        let (_, loss) = tape.output_and_loss(self.depth);
        GradientProfile {
            input_grad_norm: self.input_grad_norm,
            weight_grad_norm: self.weight_grad_norm,
            loss,
            forward_overflow: tape.first_forward_overflow(self.depth),
        }
    }
}

/// Per-layer gradient norms of one stack.
#[derive(Clone, Debug, PartialEq)]
pub struct GradientProfile {
    /// ‖∂L/∂x_l‖_F for the input x_l of every block l = 0 … L−1 (+∞ where it overflowed).
    pub input_grad_norm: Vec<f64>,
    /// ‖∂L/∂θ_l‖ over every parameter of block l.
    pub weight_grad_norm: Vec<f64>,
    /// L = Σ y ⊙ r (may be non-finite when the forward pass overflowed).
    pub loss: f64,
    /// The first block whose output overflowed f64, if any.
    pub forward_overflow: Option<usize>,
}

/// How a stack's gradient fares from top to bottom.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum GradientVerdict {
    /// bottom/top below 10⁻³.
    Vanished(f64),
    /// bottom/top above 10³.
    Exploded(f64),
    /// Within a factor of 1000 either way.
    Stable(f64),
    /// Some norm left f64's range (overflow to ∞, or underflow of the top to 0).
    Overflow,
}

impl GradientProfile {
    /// bottom/top = ‖∂L/∂x_0‖ / ‖∂L/∂x_{L−1}‖ (1 at depth 1); `None` when a norm is not
    /// finite or the top is zero.
    pub fn ratio(&self) -> Option<f64> {
        bottom_to_top(&self.input_grad_norm)
    }

    /// The verdict the caption names: vanished (< 10⁻³), exploded (> 10³), stable.
    pub fn verdict(&self) -> GradientVerdict {
        verdict_of(self.ratio())
    }

    /// The first layer (from the top) whose gradient is not finite, if any.
    pub fn first_backward_overflow(&self) -> Option<usize> {
        (0..self.input_grad_norm.len()).rev().find(|&l| {
            !self.input_grad_norm[l].is_finite() || !self.weight_grad_norm[l].is_finite()
        })
    }
}

/// norms[0] / norms[last], when both are finite and the last is positive.
pub fn bottom_to_top(norms: &[f64]) -> Option<f64> {
    let (first, last) = (*norms.first()?, *norms.last()?);
    let ratio = first / last;
    (first.is_finite() && last.is_finite() && last > 0.0 && ratio.is_finite()).then_some(ratio)
}

/// The verdict for a bottom/top ratio.
pub fn verdict_of(ratio: Option<f64>) -> GradientVerdict {
    match ratio {
        None => GradientVerdict::Overflow,
        Some(r) if r < 1e-3 => GradientVerdict::Vanished(r),
        Some(r) if r > 1e3 => GradientVerdict::Exploded(r),
        Some(r) => GradientVerdict::Stable(r),
    }
}

/// The whole computation at once: forward `depth` blocks, backward, per-layer norms.
pub fn gradient_profile(shape: &StackShape, depth: usize) -> GradientProfile {
    let mut tape = Tape::new(shape.clone());
    tape.extend_to(depth.max(1));
    tape.backward(depth.max(1)).finish(&tape)
}

/// The textbook toy: a scalar chain with factor ρ per layer. The gradient reaching layer
/// l's input, relative to the top layer's input, is ρ^{(L−1)−l}; after all L layers it
/// is ρ^L (0.7³² ≈ 1.1·10⁻⁵).
pub fn toy_chain(rho: f64, depth: usize) -> Vec<f64> {
    (0..depth)
        .map(|l| rho.powi((depth - 1 - l) as i32))
        .collect()
}

/// The stack that the arithmetic benchmarks time (run `rep`): the page's defaults —
/// d_model 32, 2 heads, 8 tokens, pre-norm with residual, seed 1 — at gain 1 + rep/1000,
/// a new gain each run, so that no run reuses another's scaled weights.
pub fn benchmark_shape(rep: u32) -> StackShape {
    StackShape {
        d_model: 32,
        heads: 2,
        seq_len: 8,
        gain: 1.0 + 0.001 * f64::from(rep),
        seed: 1,
        wiring: Wiring::PRE_NORM,
    }
}

/// Draws the unit weights of `depth` benchmark blocks into `bank` (done once, as the page
/// keeps them), so that [`run_benchmark_stacks`] times the arithmetic alone.
pub fn draw_benchmark_weights(bank: &mut WeightBank, depth: usize) {
    for layer in 0..depth {
        bank.units(&benchmark_shape(0), layer);
    }
}

/// Runs benchmark stacks `first_rep..first_rep + reps` of `depth` blocks each: forward,
/// backward and the per-layer gradient norms, as a figure computes them.
pub fn run_benchmark_stacks(bank: &mut WeightBank, depth: usize, first_rep: u32, reps: u32) {
    for rep in first_rep..first_rep + reps {
        let mut tape = Tape::new(benchmark_shape(rep));
        while tape.len() < depth {
            tape.push_block_with(bank);
        }
        std::hint::black_box(tape.backward(depth).finish(&tape));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn largest_magnitude_is_the_largest_absolute_entry_and_none_past_overflow() {
        assert_eq!(largest_magnitude(&[]), Some(0.0));
        assert_eq!(largest_magnitude(&[&[1.0, -3.5], &[], &[2.0]]), Some(3.5));
        assert_eq!(largest_magnitude(&[&[-0.0]]), Some(0.0));
        assert_eq!(largest_magnitude(&[&[1.0], &[f64::NEG_INFINITY]]), None);
        assert_eq!(largest_magnitude(&[&[f64::NAN, 1.0]]), None);
    }

    fn shape(d: usize, heads: usize, t: usize, wiring: Wiring) -> StackShape {
        StackShape {
            d_model: d,
            heads,
            seq_len: t,
            gain: 1.0,
            seed: 7,
            wiring,
        }
    }

    fn random(seed: u64, rows: usize, cols: usize) -> DMatrix<f64> {
        gaussian(seed, &[99], rows, cols, 1.0)
    }

    #[test]
    fn a_gaussian_matrix_holds_its_stream_column_by_column() {
        let mut s = SeededStream::new(5, &[1, 2]);
        let expected = DMatrix::from_fn(7, 3, |_, _| 0.5 * s.standard_normal());
        let drawn = gaussian(5, &[1, 2], 7, 3, 0.5);
        assert!(expected
            .iter()
            .zip(drawn.iter())
            .all(|(a, b)| a.to_bits() == b.to_bits()));
    }

    /// Central difference of the scalar f along every entry of x, compared with `grad`.
    fn check_gradient(
        x: &DMatrix<f64>,
        grad: &DMatrix<f64>,
        mut f: impl FnMut(&DMatrix<f64>) -> f64,
        what: &str,
    ) {
        let h = 1e-5;
        let scale = frobenius_norm(grad).max(1e-8);
        for idx in 0..x.len() {
            let (mut up, mut down) = (x.clone(), x.clone());
            up[idx] += h;
            down[idx] -= h;
            let fd = (f(&up) - f(&down)) / (2.0 * h);
            assert!(
                (fd - grad[idx]).abs() <= 1e-6 * scale + 1e-7 * fd.abs(),
                "{what}[{idx}]: analytic {} vs finite difference {fd}",
                grad[idx]
            );
        }
    }

    fn dot(a: &DMatrix<f64>, b: &DMatrix<f64>) -> f64 {
        a.component_mul(b).sum()
    }

    /// GELU from the gate of a 1×1 matrix holding h.
    fn gelu_by_gate(h: f64) -> f64 {
        let pre = DMatrix::from_element(1, 1, h);
        gelu_given_gate(&pre, &gelu_gates(&pre))[(0, 0)]
    }

    #[test]
    fn softmax_vjp_rows_equal_the_pass_1_vjp_of_each_row() {
        use crate::math::softmax::softmax_vjp;
        // A causal 5×5 softmax and an upstream gradient: each row of dS is
        // scale · softmax_vjp(p_i, dP_i) over j ≤ i, to the bit, and zero above.
        let t = 5;
        let scores = random(3, t, t);
        let mut p = DMatrix::zeros(t, t);
        for i in 0..t {
            let row =
                crate::math::softmax::softmax(&(0..=i).map(|j| scores[(i, j)]).collect::<Vec<_>>());
            for (j, v) in row.into_iter().enumerate() {
                p[(i, j)] = v;
            }
        }
        let dp = random(4, t, t);
        let ds = scaled_softmax_vjp_rows(&p, &dp, 0.25);
        for i in 0..t {
            let p_row: Vec<f64> = (0..=i).map(|j| p[(i, j)]).collect();
            let dp_row: Vec<f64> = (0..=i).map(|j| dp[(i, j)]).collect();
            for (j, g) in softmax_vjp(&p_row, &dp_row).into_iter().enumerate() {
                assert_eq!(ds[(i, j)].to_bits(), (g * 0.25).to_bits(), "({i}, {j})");
            }
            for j in i + 1..t {
                assert_eq!(ds[(i, j)], 0.0);
            }
        }
    }

    #[test]
    fn gelu_by_gate_at_one_matches_the_hand_value() {
        // ½(1 + tanh(√(2/π)·1.044715)) = ½(1 + tanh 0.8335) = 0.8411919906…
        assert!((gelu_by_gate(1.0) - 0.841_191_990_6).abs() < 1e-10);
        assert_eq!(gelu_by_gate(0.0), 0.0);
    }

    #[test]
    fn gelu_by_gate_equals_the_tanh_form() {
        // ½(1 + tanh u) = σ(2u): the two forms agree to rounding (the gate form is the
        // more exact one for very negative h, where 1 + tanh u cancels).
        for i in -3000..=3000 {
            let h = f64::from(i) * 0.01;
            let (by_gate, by_tanh) = (gelu_by_gate(h), gelu(h));
            assert!(
                (by_gate - by_tanh).abs() < 2e-15 * h.abs().max(1.0),
                "h = {h}"
            );
            let s = gelu_gates(&DMatrix::from_element(1, 1, h))[(0, 0)];
            let derivative = gelu_derivative_given_gate(h, s);
            assert!((derivative - gelu_derivative(h)).abs() < 1e-13, "h = {h}");
        }
    }

    #[test]
    fn gelu_derivative_from_the_gate_matches_finite_differences() {
        for &x in &[-4.0, -1.3, -0.2, 0.0, 0.4, 1.1, 3.5] {
            let fd = (gelu_by_gate(x + 1e-6) - gelu_by_gate(x - 1e-6)) / 2e-6;
            let s = gelu_gates(&DMatrix::from_element(1, 1, x))[(0, 0)];
            assert!(
                (fd - gelu_derivative_given_gate(x, s)).abs() < 1e-8,
                "x = {x}"
            );
        }
    }

    #[test]
    fn gelu_gates_of_huge_pre_activations_stay_finite_and_in_zero_to_one() {
        let pre = DMatrix::from_row_slice(1, 4, &[1e200, -1e200, 800.0, -800.0]);
        let s = gelu_gates(&pre);
        assert!(s.iter().all(|&s| (0.0..=1.0).contains(&s)));
        assert_eq!(s[(0, 0)], 1.0);
        assert!(s[(0, 1)] < 1e-300);
    }

    #[test]
    fn gelu_derivative_matches_finite_differences() {
        for x in [-3.0, -1.0, -0.2, 0.0, 0.4, 1.3, 4.0] {
            let fd = (gelu(x + 1e-6) - gelu(x - 1e-6)) / 2e-6;
            assert!((fd - gelu_derivative(x)).abs() < 1e-8, "x = {x}");
        }
        // By hand: GELU(0) = 0, GELU′(0) = ½.
        assert_eq!(gelu(0.0), 0.0);
        assert_eq!(gelu_derivative(0.0), 0.5);
    }

    #[test]
    fn layer_norm_output_has_zero_mean_and_unit_variance_per_token() {
        let x = random(1, 5, 12) * 3.0 + DMatrix::from_element(5, 12, 2.0);
        let (y, _) = layer_norm_forward(&x, &LayerNormParams::identity(12));
        for row in y.row_iter() {
            let mean = row.sum() / 12.0;
            let var = row.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / 12.0;
            assert!(mean.abs() < 1e-14);
            // Var = σ²/(σ² + ε): one up to ε over the row's variance.
            assert!((var - 1.0).abs() < 1e-5, "variance {var}");
        }
    }

    #[test]
    fn layer_norm_backward_matches_finite_differences() {
        let x = random(2, 4, 6);
        let r = random(3, 4, 6);
        let p = LayerNormParams {
            gamma: (0..6).map(|i| 0.5 + 0.3 * i as f64).collect(),
            beta: (0..6).map(|i| 0.1 * i as f64 - 0.2).collect(),
        };
        let (_, cache) = layer_norm_forward(&x, &p);
        let (dx, grads) = layer_norm_backward(&r, &cache, &p);
        check_gradient(&x, &dx, |x| dot(&layer_norm_forward(x, &p).0, &r), "LN dx");
        let gamma = DMatrix::from_column_slice(6, 1, &p.gamma);
        let dgamma = DMatrix::from_column_slice(6, 1, &grads.gamma);
        check_gradient(
            &gamma,
            &dgamma,
            |g| {
                let q = LayerNormParams {
                    gamma: g.iter().copied().collect(),
                    beta: p.beta.clone(),
                };
                dot(&layer_norm_forward(&x, &q).0, &r)
            },
            "LN dγ",
        );
        for j in 0..6 {
            let by_hand: f64 = (0..4).map(|i| r[(i, j)]).sum();
            assert!((grads.beta[j] - by_hand).abs() < 1e-14, "dβ is Σ_t dy");
        }
    }

    #[test]
    fn mlp_backward_matches_finite_differences() {
        let (x, w1, w2, r) = (
            random(4, 3, 4),
            random(5, 4, 8),
            random(6, 8, 4),
            random(7, 3, 4),
        );
        let (_, cache) = mlp_forward(&x, &w1, &w2);
        let (dx, dw1, dw2) = mlp_backward(&r, &cache, &w1, &w2);
        check_gradient(&x, &dx, |x| dot(&mlp_forward(x, &w1, &w2).0, &r), "MLP dx");
        check_gradient(
            &w1,
            &dw1,
            |w| dot(&mlp_forward(&x, w, &w2).0, &r),
            "MLP dW1",
        );
        check_gradient(
            &w2,
            &dw2,
            |w| dot(&mlp_forward(&x, &w1, w).0, &r),
            "MLP dW2",
        );
    }

    fn small_block(seed: u64, d: usize) -> BlockWeights {
        let s = StackShape {
            seed,
            ..shape(d, 2, 5, Wiring::PLAIN)
        };
        let mut w = block_weights(&s, 0);
        w.ln1.gamma = (0..d).map(|i| 0.8 + 0.1 * i as f64).collect();
        w.ln2.beta = (0..d).map(|i| 0.05 * i as f64).collect();
        w
    }

    #[test]
    fn attention_backward_matches_finite_differences() {
        let w = small_block(8, 4);
        let (x, r) = (random(9, 5, 4), random(10, 5, 4));
        let (_, cache) = attention_forward(&x, &w, 2);
        let (dx, g) = attention_backward(&r, &cache, &w);
        check_gradient(
            &x,
            &dx,
            |x| dot(&attention_forward(x, &w, 2).0, &r),
            "attn dx",
        );
        let with = |f: &dyn Fn(&mut BlockWeights)| {
            let mut w2 = w.clone();
            f(&mut w2);
            w2
        };
        check_gradient(
            &w.wq,
            &g.wq,
            |m| {
                dot(
                    &attention_forward(&x, &with(&|w| w.wq = m.clone()), 2).0,
                    &r,
                )
            },
            "dWq",
        );
        check_gradient(
            &w.wk,
            &g.wk,
            |m| {
                dot(
                    &attention_forward(&x, &with(&|w| w.wk = m.clone()), 2).0,
                    &r,
                )
            },
            "dWk",
        );
        check_gradient(
            &w.wv,
            &g.wv,
            |m| {
                dot(
                    &attention_forward(&x, &with(&|w| w.wv = m.clone()), 2).0,
                    &r,
                )
            },
            "dWv",
        );
        check_gradient(
            &w.wo,
            &g.wo,
            |m| {
                dot(
                    &attention_forward(&x, &with(&|w| w.wo = m.clone()), 2).0,
                    &r,
                )
            },
            "dWo",
        );
    }

    #[test]
    fn causal_mask_keeps_position_i_from_depending_on_later_tokens() {
        let w = small_block(11, 4);
        let x = random(12, 6, 4);
        let (_, cache) = attention_forward(&x, &w, 2);
        for i in 0..6 {
            // The loss reads only the output at position i.
            let mut r = DMatrix::zeros(6, 4);
            r.row_mut(i).copy_from(&random(13, 1, 4));
            let (dx, _) = attention_backward(&r, &cache, &w);
            for j in (i + 1)..6 {
                assert!(
                    dx.row(j).iter().all(|v| *v == 0.0),
                    "output {i} depends on token {j}"
                );
            }
            assert!(dx.row(i).iter().any(|v| *v != 0.0));
        }
        // Probabilities above the diagonal are exactly zero; rows sum to one.
        for p in &cache.p {
            for i in 0..6 {
                assert!((p.row(i).sum() - 1.0).abs() < 1e-14);
                assert!(((i + 1)..6).all(|j| p[(i, j)] == 0.0));
            }
        }
    }

    fn all_wirings() -> Vec<Wiring> {
        let mut out = Vec::new();
        for residual in [false, true] {
            for norm in [NormPlacement::None, NormPlacement::Post, NormPlacement::Pre] {
                out.push(Wiring { residual, norm });
            }
        }
        out
    }

    #[test]
    fn block_backward_matches_finite_differences_for_every_wiring() {
        for wiring in all_wirings() {
            let w = small_block(14, 4);
            let (x, r) = (random(15, 5, 4), random(16, 5, 4));
            let (_, cache) = block_forward(&x, &w, 2, wiring);
            let (dx, g) = block_backward(&r, &cache, &w, wiring);
            let label = wiring.label();
            check_gradient(
                &x,
                &dx,
                |x| dot(&block_forward(x, &w, 2, wiring).0, &r),
                &format!("block dx ({label})"),
            );
            let mut w1 = w.clone();
            check_gradient(
                &w.w1,
                &g.w1,
                |m| {
                    w1.w1 = m.clone();
                    dot(&block_forward(&x, &w1, 2, wiring).0, &r)
                },
                &format!("block dW1 ({label})"),
            );
            if wiring.norm != NormPlacement::None {
                let gamma = DMatrix::from_column_slice(4, 1, &w.ln1.gamma);
                let dgamma = DMatrix::from_column_slice(4, 1, &g.ln1.gamma);
                check_gradient(
                    &gamma,
                    &dgamma,
                    |m| {
                        let mut w2 = w.clone();
                        w2.ln1.gamma = m.iter().copied().collect();
                        dot(&block_forward(&x, &w2, 2, wiring).0, &r)
                    },
                    &format!("block dγ₁ ({label})"),
                );
            }
        }
    }

    #[test]
    fn stack_input_gradient_matches_finite_differences_for_every_wiring() {
        for wiring in all_wirings() {
            let s = shape(4, 2, 4, wiring);
            let depth = 3;
            let mut tape = Tape::new(s.clone());
            tape.extend_to(depth);
            let mut back = tape.backward(depth);
            while !back.step(&tape) {}
            let analytic = back.grad.clone();
            let loss_of = |x: &DMatrix<f64>| {
                let mut h = x.clone();
                for l in 0..depth {
                    h = block_forward(&h, &block_weights(&s, l), 2, wiring).0;
                }
                let y = if wiring.norm == NormPlacement::Pre {
                    layer_norm_forward(&h, &LayerNormParams::identity(4)).0
                } else {
                    h
                };
                dot(&y, &tape.loss_weights)
            };
            check_gradient(
                &tape.input,
                &analytic,
                loss_of,
                &format!("stack dx₀ ({})", wiring.label()),
            );
            let profile = back.profile(&tape);
            assert!((profile.input_grad_norm[0] - frobenius_norm(&analytic)).abs() < 1e-12);
        }
    }

    #[test]
    fn banked_weights_are_bit_identical_to_fresh_draws() {
        let mut bank = WeightBank::default();
        for gain in [1.0, 0.35, 2.0] {
            let s = StackShape {
                gain,
                ..shape(8, 2, 4, Wiring::PRE_NORM)
            };
            for l in [0, 3, 1] {
                assert_eq!(bank.block(&s, l), block_weights(&s, l));
            }
        }
        // By hand: the scale is gain/√fan_in of a unit draw.
        let s = shape(8, 2, 4, Wiring::PLAIN);
        let z = unit_block_weights(s.seed, 8, 0);
        assert_eq!(
            block_weights(&s, 0).w2[(3, 1)],
            z.0[5][(3, 1)] * (1.0 / 32f64.sqrt())
        );
    }

    #[test]
    fn gain_scaled_draws_pass_as_the_scaled_weights_do() {
        // x·(kZ) against k·(x·Z): the same block up to rounding, forward and backward.
        let z = unit_block_weights(11, 8, 2);
        let norm = LayerNormParams::identity(8);
        let (x, r) = (random(3, 4, 8), random(4, 4, 8));
        for gain in [0.35, 1.0, 1.7] {
            let (plain, folded) = (z.scaled(gain), z.at_gain(gain, &norm));
            for wiring in all_wirings() {
                let (y, cache) = block_forward(&x, &plain, 2, wiring);
                let (y_folded, cache_folded) = block_forward(&x, &folded, 2, wiring);
                assert!((&y - &y_folded).abs().max() <= 1e-13 * y.abs().max());
                let (dx, g) = block_backward(&r, &cache, &plain, wiring);
                let (dx_folded, g_folded) = block_backward(&r, &cache_folded, &folded, wiring);
                assert!((&dx - &dx_folded).abs().max() <= 1e-13 * dx.abs().max());
                assert!((g.norm() - g_folded.norm()).abs() <= 1e-13 * g.norm());
            }
        }
    }

    #[test]
    fn ratio_at_depth_one_is_one() {
        for wiring in all_wirings() {
            let p = gradient_profile(&shape(8, 2, 4, wiring), 1);
            assert_eq!(p.ratio(), Some(1.0), "{}", wiring.label());
        }
    }

    #[test]
    fn a_shallow_stack_is_a_prefix_of_a_deep_one() {
        let s = shape(8, 2, 4, Wiring::PRE_NORM);
        let mut deep = Tape::new(s.clone());
        deep.extend_to(6);
        let mut shallow = Tape::new(s);
        shallow.extend_to(3);
        assert_eq!(deep.block_input(3), shallow.block_input(3));
        let a = deep.backward(3).finish(&deep);
        let b = shallow.backward(3).finish(&shallow);
        assert_eq!(a, b);
    }

    #[test]
    fn weight_gradient_norm_is_the_norm_of_all_parameters() {
        let w = small_block(20, 4);
        let (x, r) = (random(21, 5, 4), random(22, 5, 4));
        let (_, cache) = block_forward(&x, &w, 2, Wiring::POST_NORM);
        let (_, g) = block_backward(&r, &cache, &w, Wiring::POST_NORM);
        let mut all: Vec<f64> = Vec::new();
        for m in [
            &g.attention.wq,
            &g.attention.wk,
            &g.attention.wv,
            &g.attention.wo,
            &g.w1,
            &g.w2,
        ] {
            all.extend(m.iter());
        }
        for v in [&g.ln1.gamma, &g.ln1.beta, &g.ln2.gamma, &g.ln2.beta] {
            all.extend(v.iter());
        }
        let direct = all.iter().map(|x| x * x).sum::<f64>().sqrt();
        assert!((g.norm() - direct).abs() < 1e-12 * direct);
    }

    #[test]
    fn product_norm_of_an_outer_product_is_the_product_of_the_norms() {
        // One token (T = 1): XᵀG = x gᵀ, an outer product, with ‖x gᵀ‖ = ‖x‖‖g‖ = 3 · 7.
        let x = DMatrix::from_row_slice(1, 3, &[1.0, 2.0, 2.0]);
        let g = DMatrix::from_row_slice(1, 3, &[2.0, 3.0, 6.0]);
        assert_eq!(product_frobenius_norms(&x, &[&g]), vec![21.0]);
    }

    #[test]
    fn product_norm_equals_the_norm_of_the_formed_product() {
        // Shapes where the Gram route is cheaper and where it is not, and inputs scaled
        // far outside 10^±60, where it must fall back.
        for (t, a, b) in [
            (8, 32, 128),
            (8, 128, 32),
            (4, 16, 16),
            (16, 16, 16),
            (3, 2, 5),
        ] {
            for scale in [1.0, 1e-3, 1e100, 1e-170] {
                let x = random(30, t, a) * scale;
                let g = random(31, t, b);
                let expected = frobenius_norm(&transpose_times(&x, &g));
                let got = product_frobenius_norms(&x, &[&g])[0];
                assert!(
                    (got - expected).abs() <= 1e-12 * expected,
                    "{t}×{a}, {t}×{b}, scale {scale}: {got} vs {expected}"
                );
            }
        }
    }

    #[test]
    fn scaling_a_factor_by_a_power_of_two_changes_only_the_grams_exponent() {
        // 2^k·M for k far outside the safe range: the Gram matrix of the scaled factor is
        // the same to the bit, and the exponent moves by the difference.
        let m = random(34, 8, 32);
        let at = |k: i32| scaled_gram(&(&m * libm::scalbn(1.0, k)));
        // Test only: each factor is finite and non-zero, so it has a (scaled) Gram matrix.
        let (gram_a, e_a) = at(500).expect("Test only: a finite non-zero factor");
        let (gram_b, e_b) = at(510).expect("Test only: a finite non-zero factor");
        assert_eq!(gram_a, gram_b);
        assert_eq!(e_b - e_a, 10);
        let (_, e_small) = at(-1000).expect("Test only: a finite non-zero factor");
        assert_eq!(e_a - e_small, 1500);
        // Subnormal entries (2^−1060 · M) are scaled by at most 2^1022, still exactly,
        // and their Gram matrix is then safe.
        let (_, e_subnormal) = at(-1060).expect("Test only: a finite non-zero factor");
        assert_eq!(e_subnormal, -1022);
        assert_eq!(
            at(0).map(|(_, e)| e),
            Some(0),
            "a safe Gram matrix is left unscaled"
        );
    }

    #[test]
    fn a_zero_or_non_finite_factor_has_no_scaled_gram() {
        assert!(scaled_gram(&DMatrix::zeros(4, 6)).is_none());
        let mut m = random(35, 4, 6);
        m[(1, 2)] = f64::INFINITY;
        assert!(scaled_gram(&m).is_none());
    }

    #[test]
    fn product_norm_of_factors_beyond_the_gram_range_matches_the_formed_product() {
        // X ~ 10^150 and G ~ 10^-170: the Gram matrices alone would leave f64's range; the
        // product XᵀG (~10^-20) does not.
        let x = random(36, 8, 32) * 1e150;
        let g = random(37, 8, 96) * 1e-170;
        let expected = frobenius_norm(&transpose_times(&x, &g));
        let got = product_frobenius_norms(&x, &[&g])[0];
        assert!(
            (got - expected).abs() <= 1e-12 * expected,
            "{got} vs {expected}"
        );
    }

    #[test]
    fn product_norm_is_exact_where_the_gram_sum_cancels() {
        // Two tokens with the same input and nearly opposite gradients: XᵀG = e₁ ⊗ (−10⁻⁹w)
        // is tiny while both Gram matrices are of order one.
        let (v, w) = (random(32, 1, 40), random(33, 1, 40));
        let mut x = DMatrix::zeros(2, 40);
        x[(0, 0)] = 1.0;
        x[(1, 0)] = 1.0;
        let mut g = DMatrix::zeros(2, 40);
        g.row_mut(0).copy_from(&v);
        g.row_mut(1).copy_from(&(-(&v + &w * 1e-9)));
        let expected = 1e-9 * frobenius_norm(&w);
        let got = product_frobenius_norms(&x, &[&g])[0];
        assert!(
            (got - expected).abs() <= 1e-6 * expected,
            "{got} vs {expected}"
        );
    }

    #[test]
    fn product_norm_of_non_finite_factors_is_infinite() {
        let mut x = random(34, 4, 32);
        let g = random(35, 4, 32);
        x[(1, 3)] = f64::NAN;
        assert_eq!(product_frobenius_norms(&x, &[&g]), vec![f64::INFINITY]);
        x[(1, 3)] = f64::INFINITY;
        assert_eq!(product_frobenius_norms(&x, &[&g]), vec![f64::INFINITY]);
    }

    #[test]
    fn block_gradient_norm_equals_the_norm_of_the_materialised_gradients() {
        for wiring in all_wirings() {
            let w = small_block(23, 8);
            let (x, r) = (random(24, 3, 8), random(25, 3, 8));
            let (_, cache) = block_forward(&x, &w, 2, wiring);
            let (dx, g) = block_backward(&r, &cache, &w, wiring);
            let (dx_fast, norm) = block_backward_norm(&r, &cache, &w, wiring);
            assert_eq!(dx, dx_fast, "{}", wiring.label());
            assert!(
                (norm - g.norm()).abs() <= 1e-12 * g.norm(),
                "{}: {norm} vs {}",
                wiring.label(),
                g.norm()
            );
        }
    }

    #[test]
    fn frobenius_norm_survives_entries_near_the_f64_limit() {
        let m = DMatrix::from_element(2, 2, 1e200);
        assert!((frobenius_norm(&m) - 2e200).abs() < 1e186);
        let mut bad = m.clone();
        bad[0] = f64::NAN;
        assert_eq!(frobenius_norm(&bad), f64::INFINITY);
        assert_eq!(frobenius_norm(&DMatrix::zeros(2, 2)), 0.0);
    }

    #[test]
    fn toy_chain_is_rho_to_the_depth() {
        let c = toy_chain(0.7, 32);
        assert_eq!(c[31], 1.0);
        assert!((c[0] - 0.7f64.powi(31)).abs() < 1e-18);
        // After all 32 layers: 0.7³² ≈ 1.1·10⁻⁵.
        assert!((0.7f64.powi(32) - 1.104e-5).abs() < 1e-8);
    }

    #[test]
    fn verdicts_follow_the_thresholds() {
        assert_eq!(verdict_of(Some(1e-4)), GradientVerdict::Vanished(1e-4));
        assert_eq!(verdict_of(Some(2e3)), GradientVerdict::Exploded(2e3));
        assert_eq!(verdict_of(Some(0.5)), GradientVerdict::Stable(0.5));
        assert_eq!(verdict_of(None), GradientVerdict::Overflow);
        assert_eq!(bottom_to_top(&[f64::INFINITY, 1.0]), None);
        assert_eq!(bottom_to_top(&[1.0, 0.0]), None);
    }

    #[test]
    fn heads_that_do_not_divide_fall_back_to_a_divisor() {
        assert_eq!(heads_dividing(32, 3), 2);
        assert_eq!(heads_dividing(36, 4), 4);
        assert_eq!(heads_dividing(17, 4), 1);
        assert_eq!(heads_dividing(24, 0), 1);
    }

    #[test]
    fn every_norm_is_finite_or_named_as_overflow_at_depth_128() {
        for wiring in Wiring::SWEEP {
            let p = gradient_profile(&shape(32, 2, 8, wiring), 128);
            let finite = p.input_grad_norm.iter().all(|v| v.is_finite());
            assert_eq!(finite, p.first_backward_overflow().is_none());
            if !finite {
                assert_eq!(p.verdict(), GradientVerdict::Overflow);
            }
        }
    }
}
