//! The two SVDs, on the same deterministic n × n matrix (a softmax-like positive matrix
//! plus a low-rank part, like A = softmax(S)). Exported for wasm: JS times each call.

fn entry(i: usize, j: usize, n: usize) -> f64 {
    let x = ((i * 7919 + j * 104729) % 1009) as f64 / 1009.0;
    (x - 0.5) + ((i as f64 - j as f64) / n as f64).cos()
}

/// nalgebra: singular values only (what the page needs for A).
#[no_mangle]
pub extern "C" fn nalgebra_singular_values(n: usize) -> f64 {
    let m = nalgebra::DMatrix::from_fn(n, n, |i, j| entry(i, j, n));
    m.singular_values()[0]
}

/// nalgebra: full SVD with U and Vᵀ (what the low-rank figure needs).
#[no_mangle]
pub extern "C" fn nalgebra_full_svd(n: usize) -> f64 {
    let m = nalgebra::DMatrix::from_fn(n, n, |i, j| entry(i, j, n));
    let svd = m.svd(true, true);
    svd.singular_values[0] + svd.u.map(|u| u[(0, 0)]).unwrap_or(0.0)
}

/// faer: singular values only.
#[no_mangle]
pub extern "C" fn faer_singular_values(n: usize) -> f64 {
    let m = faer::Mat::<f64>::from_fn(n, n, |i, j| entry(i, j, n));
    m.singular_values().map(|s| s[0]).unwrap_or(f64::NAN)
}

/// faer: full SVD with U and V.
#[no_mangle]
pub extern "C" fn faer_full_svd(n: usize) -> f64 {
    let m = faer::Mat::<f64>::from_fn(n, n, |i, j| entry(i, j, n));
    match m.svd() {
        Ok(svd) => svd.S()[0] + svd.U()[(0, 0)],
        Err(_) => f64::NAN,
    }
}
