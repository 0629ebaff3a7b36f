//! LoRA, counted: a rank-r update ΔW = BA against the full d_out × d_in one, and a live
//! example update with a decaying spectrum.

use nalgebra::DMatrix;

use super::token_matrix;

/// Parameters of a full update ΔW ∈ ℝ^{d_out × d_in}: d_out · d_in.
pub fn full_update_params(d_out: u64, d_in: u64) -> f64 {
    d_out as f64 * d_in as f64
}

/// Parameters of a LoRA update ΔW = BA, B ∈ ℝ^{d_out×r}, A ∈ ℝ^{r×d_in}: r · (d_in + d_out).
pub fn lora_params(d_out: u64, d_in: u64, r: u64) -> f64 {
    r as f64 * (d_in as f64 + d_out as f64)
}

/// Side of the live LoRA example's update matrix.
pub const LORA_EXAMPLE_SIZE: usize = 64;

/// A random m × m update with a decaying spectrum: ΔW = U diag(σ) Vᵀ with U, V orthogonal
/// (Q factors of Gaussian matrices) and σ_i = (i + 1)^(−decay), i = 0 … m−1.
pub fn decaying_update(seed: u64, m: usize, decay: f64) -> DMatrix<f64> {
    let u = token_matrix(seed, 20, m, m).qr().q();
    let v = token_matrix(seed, 21, m, m).qr().q();
    let sigma = DMatrix::from_fn(m, m, |i, j| {
        if i == j {
            ((i + 1) as f64).powf(-decay.clamp(0.0, 3.0))
        } else {
            0.0
        }
    });
    u * sigma * v.transpose()
}
