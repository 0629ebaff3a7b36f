//! LayerNorm: LN(x) = γ ⊙ (x − μ)/σ + β per token, forward and backward.

use nalgebra::DMatrix;

/// ε inside LayerNorm's square root: σ = √(Var(x) + ε).
pub const LN_EPS: f64 = 1e-5;

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

#[cfg(test)]
mod tests {
    use super::*;

    use crate::math::stability::test_support::*;

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
}
