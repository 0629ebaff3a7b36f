//! Matrix products with a transposed factor, computed without materialising the
//! transpose: AᵀB and ABᵀ, the shapes every backward pass is made of
//! (∂L/∂W = xᵀδ, ∂L/∂x = δWᵀ).
//!
//! Every product reads its factors through strides, so no copy of either factor is made.
//! When A has few rows stored contiguously (A is T×k with T the handful of tokens of a
//! Pass 4 stack, or x in a Gram matrix xxᵀ), C = αAB is formed column by column as
//! C[:, j] = α Σ_p B[p, j] A[:, p] ([`product_of_short_columns`]): for such thin shapes
//! that is 2–3× faster in wasm than `matrixmultiply::dgemm` (the kernel nalgebra itself
//! uses for `A * B`), whose packing costs more than the arithmetic. Every other shape
//! calls dgemm.

use nalgebra::DMatrix;

/// A column-major matrix seen as (rows, cols, row stride, column stride).
struct View<'a> {
    data: &'a [f64],
    rows: usize,
    cols: usize,
    row_stride: isize,
    col_stride: isize,
}

impl<'a> View<'a> {
    fn of(m: &'a DMatrix<f64>) -> Self {
        Self::of_columns(Columns::all(m))
    }

    fn transposed(m: &'a DMatrix<f64>) -> Self {
        Self::of_columns_transposed(Columns::all(m))
    }

    fn of_columns(c: Columns<'a>) -> Self {
        Self {
            data: c.data,
            rows: c.rows,
            cols: c.cols,
            row_stride: 1,
            col_stride: c.rows as isize,
        }
    }

    fn of_columns_transposed(c: Columns<'a>) -> Self {
        Self {
            data: c.data,
            rows: c.cols,
            cols: c.rows,
            row_stride: c.rows as isize,
            col_stride: 1,
        }
    }
}

/// A run of whole columns of a column-major matrix (one attention head's Q_h, K_h or V_h
/// out of Q, K, V): contiguous in memory, so a product reads it in place.
#[derive(Clone, Copy, Debug)]
pub struct Columns<'a> {
    data: &'a [f64],
    rows: usize,
    cols: usize,
}

impl<'a> Columns<'a> {
    /// Every column of `m`.
    pub fn all(m: &'a DMatrix<f64>) -> Self {
        Self {
            data: m.as_slice(),
            rows: m.nrows(),
            cols: m.ncols(),
        }
    }

    /// Columns `first` … `first + count − 1` of `m`, cut to the columns `m` has.
    pub fn of(m: &'a DMatrix<f64>, first: usize, count: usize) -> Self {
        let rows = m.nrows();
        let first = first.min(m.ncols());
        let cols = count.min(m.ncols() - first);
        Self {
            data: &m.as_slice()[first * rows..(first + cols) * rows],
            rows,
            cols,
        }
    }
}

/// A rows×cols matrix of zeros, from one zeroed allocation. nalgebra's `DMatrix::zeros`
/// writes its entries one at a time through a generic constructor, which the page's
/// opt-level "z" leaves as a call per entry (a CPU profile of Pass 4 in the page put it at
/// ~3 % of the stack's time).
pub fn zeros(rows: usize, cols: usize) -> DMatrix<f64> {
    DMatrix::from_vec(rows, cols, vec![0.0; rows * cols])
}

/// C = α A B for strided views; a zero matrix of the right shape when the inner
/// dimensions disagree or are empty (never reached by the callers, whose shapes are
/// fixed by the block).
fn product(alpha: f64, a: View<'_>, b: View<'_>) -> DMatrix<f64> {
    let (m, k, n) = (a.rows, a.cols, b.cols);
    let mut c = zeros(m, n);
    if k != b.rows || m == 0 || n == 0 || k == 0 {
        return c;
    }
    debug_assert!(a.data.len() >= m * k && b.data.len() >= k * n);
    if a.row_stride == 1 && a.col_stride == m as isize && m <= SHORT_COLUMNS {
        product_of_short_columns(alpha, &a, &b, c.as_mut_slice());
        return c;
    }
    // SAFETY: `a` addresses rows·cols entries of `a.data` through its strides (it is a
    // whole column-major matrix or its transpose), likewise `b`; `c` is a fresh m×n
    // column-major matrix (row stride 1, column stride m) that aliases neither.
    unsafe {
        matrixmultiply::dgemm(
            m,
            k,
            n,
            alpha,
            a.data.as_ptr(),
            a.row_stride,
            a.col_stride,
            b.data.as_ptr(),
            b.row_stride,
            b.col_stride,
            0.0,
            c.as_mut_slice().as_mut_ptr(),
            1,
            m as isize,
        );
    }
    c
}

/// Longest columns of A (rows of C) that [`product_of_short_columns`] takes: a stack's
/// tokens (at most 64) with room to spare.
const SHORT_COLUMNS: usize = 128;

/// Rows of C one tile computes: eight f64, four 128-bit vectors, accumulated in registers.
const TILE_ROWS: usize = 8;

/// C = αAB for A stored column-major with contiguous columns (m×k) and B any strided
/// view (k×n), into `c` (m×n, column-major): C[:, j] = α Σ_p B[p, j] A[:, p]. Tiles of
/// eight rows by two columns keep their sums in registers over the whole of p, then
/// are scaled by α once; rows past the last full tile go one at a time.
///
/// The page is built for size (opt-level "z"), at which iterator adapters are not
/// inlined: the loops here are plain counters over slices bounds-checked once, up front.
fn product_of_short_columns(alpha: f64, a: &View<'_>, b: &View<'_>, c: &mut [f64]) {
    let (m, k, n) = (a.rows, a.cols, b.cols);
    let b_last = (k as isize - 1) * b.row_stride + (n as isize - 1) * b.col_stride;
    let in_bounds = a.data.len() >= m * k
        && c.len() >= m * n
        && b.row_stride >= 0
        && b.col_stride >= 0
        && (b_last as usize) < b.data.len();
    if !in_bounds || m == 0 || k == 0 || n == 0 {
        return;
    }
    let full_rows = m - m % TILE_ROWS;
    let mut j = 0;
    while j < n {
        let columns = if j + 2 <= n { 2 } else { 1 };
        let mut r = 0;
        while r < m {
            // SAFETY: checked above: A holds m·k entries, B's last entry (k−1, n−1) lies in
            // its data with non-negative strides, C holds m·n; r + rows ≤ m, j + columns ≤ n.
            unsafe {
                match (r < full_rows, columns) {
                    (true, 2) => tile::<TILE_ROWS, 2>(alpha, a, b, r, j, c),
                    (true, _) => tile::<TILE_ROWS, 1>(alpha, a, b, r, j, c),
                    (false, 2) => tile::<1, 2>(alpha, a, b, r, j, c),
                    (false, _) => tile::<1, 1>(alpha, a, b, r, j, c),
                }
            }
            r += if r < full_rows { TILE_ROWS } else { 1 };
        }
        j += columns;
    }
}

/// Rows r … r+R−1 of columns j … j+C−1 of C = αAB (see [`product_of_short_columns`]).
///
/// # Safety
/// A holds a.rows·a.cols entries, B's strides are non-negative and its entry
/// (a.cols − 1, j + C − 1) lies in its data, C holds a.rows·b.cols entries,
/// r + R ≤ a.rows and j + C ≤ b.cols.
#[inline(always)]
unsafe fn tile<const R: usize, const C: usize>(
    alpha: f64,
    a: &View<'_>,
    b: &View<'_>,
    r: usize,
    j: usize,
    c: &mut [f64],
) {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    if R == TILE_ROWS && C == 2 {
        return simd::tile_8x2(alpha, a, b, r, j, c);
    }
    let (m, k) = (a.rows, a.cols);
    let (x, y) = (a.data.as_ptr(), b.data.as_ptr());
    let (rs, cs) = (b.row_stride as usize, b.col_stride as usize);
    let mut sums = [[0.0_f64; R]; C];
    let mut p = 0;
    while p < k {
        let mut q = 0;
        while q < C {
            let weight = *y.add(p * rs + (j + q) * cs);
            let mut i = 0;
            while i < R {
                sums[q][i] += weight * *x.add(p * m + r + i);
                i += 1;
            }
            q += 1;
        }
        p += 1;
    }
    let out = c.as_mut_ptr();
    let mut q = 0;
    while q < C {
        let mut i = 0;
        while i < R {
            *out.add((j + q) * m + r + i) = alpha * sums[q][i];
            i += 1;
        }
        q += 1;
    }
}

/// The eight-by-two tile in 128-bit vectors (two f64 each), for the browser build: the
/// same sums in the same order as the portable tile, written out so that they stay in
/// eight vector registers whatever the optimisation level.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd {
    use super::View;
    use core::arch::wasm32::{f64x2_add, f64x2_mul, f64x2_splat, v128, v128_load, v128_store};

    /// Rows r … r+7 of columns j and j+1 of C = αAB.
    ///
    /// # Safety
    /// As [`super::tile`] with R = 8 and C = 2.
    #[inline(always)]
    pub(super) unsafe fn tile_8x2(
        alpha: f64,
        a: &View<'_>,
        b: &View<'_>,
        r: usize,
        j: usize,
        c: &mut [f64],
    ) {
        let (m, k) = (a.rows, a.cols);
        let (rs, cs) = (b.row_stride as usize, b.col_stride as usize);
        let (xa, yb) = (a.data.as_ptr(), b.data.as_ptr());
        let load = |x: *const f64, i: usize| v128_load(x.add(i).cast::<v128>());
        let zero = f64x2_splat(0.0);
        let (mut p0, mut p1, mut p2, mut p3) = (zero, zero, zero, zero);
        let (mut q0, mut q1, mut q2, mut q3) = (zero, zero, zero, zero);
        let mut p = 0;
        while p < k {
            // Every pointer is formed from in-bounds offsets: A's rows r … r+7 of column p,
            // B's entries (p, j) and (p, j + 1).
            let x = xa.add(p * m + r);
            let (x0, x1, x2, x3) = (load(x, 0), load(x, 2), load(x, 4), load(x, 6));
            let bu = f64x2_splat(*yb.add(p * rs + j * cs));
            let bw = f64x2_splat(*yb.add(p * rs + (j + 1) * cs));
            p0 = f64x2_add(p0, f64x2_mul(bu, x0));
            p1 = f64x2_add(p1, f64x2_mul(bu, x1));
            p2 = f64x2_add(p2, f64x2_mul(bu, x2));
            p3 = f64x2_add(p3, f64x2_mul(bu, x3));
            q0 = f64x2_add(q0, f64x2_mul(bw, x0));
            q1 = f64x2_add(q1, f64x2_mul(bw, x1));
            q2 = f64x2_add(q2, f64x2_mul(bw, x2));
            q3 = f64x2_add(q3, f64x2_mul(bw, x3));
            p += 1;
        }
        let scale = f64x2_splat(alpha);
        let out = c.as_mut_ptr();
        let store =
            |at: usize, s: v128| v128_store(out.add(at).cast::<v128>(), f64x2_mul(scale, s));
        let (cu, cw) = (j * m + r, (j + 1) * m + r);
        store(cu, p0);
        store(cu + 2, p1);
        store(cu + 4, p2);
        store(cu + 6, p3);
        store(cw, q0);
        store(cw + 2, q1);
        store(cw + 4, q2);
        store(cw + 6, q3);
    }
}

/// αAB for runs of columns A (m×k) and B (k×n).
pub fn columns_times(alpha: f64, a: Columns<'_>, b: Columns<'_>) -> DMatrix<f64> {
    product(alpha, View::of_columns(a), View::of_columns(b))
}

/// αABᵀ for runs of columns A (m×k) and B (n×k).
pub fn columns_times_transpose(alpha: f64, a: Columns<'_>, b: Columns<'_>) -> DMatrix<f64> {
    product(alpha, View::of_columns(a), View::of_columns_transposed(b))
}

/// AᵀB (A is k×m, B is k×n; the result is m×n).
pub fn transpose_times(a: &DMatrix<f64>, b: &DMatrix<f64>) -> DMatrix<f64> {
    product(1.0, View::transposed(a), View::of(b))
}

/// ABᵀ (A is m×k, B is n×k; the result is m×n).
pub fn times_transpose(a: &DMatrix<f64>, b: &DMatrix<f64>) -> DMatrix<f64> {
    scaled_times_transpose(1.0, a, b)
}

/// αAB (A is m×k, B is k×n): the product with the scale folded into the kernel, so a
/// scaled factor αB is never formed.
pub fn scaled_times(alpha: f64, a: &DMatrix<f64>, b: &DMatrix<f64>) -> DMatrix<f64> {
    product(alpha, View::of(a), View::of(b))
}

/// αABᵀ (A is m×k, B is n×k; the result is m×n).
pub fn scaled_times_transpose(alpha: f64, a: &DMatrix<f64>, b: &DMatrix<f64>) -> DMatrix<f64> {
    product(alpha, View::of(a), View::transposed(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(rows: usize, cols: usize, salt: f64) -> DMatrix<f64> {
        DMatrix::from_fn(rows, cols, |i, j| ((i * 7 + j * 3) as f64 + salt).sin())
    }

    #[test]
    fn transpose_times_equals_the_materialised_product() {
        let (a, b) = (sample(9, 6, 0.1), sample(9, 11, 0.7));
        let expected = a.transpose() * &b;
        assert!((transpose_times(&a, &b) - expected).abs().max() < 1e-12);
    }

    #[test]
    fn times_transpose_equals_the_materialised_product() {
        let (a, b) = (sample(8, 13, 0.3), sample(5, 13, 0.9));
        let expected = &a * b.transpose();
        assert!((times_transpose(&a, &b) - expected).abs().max() < 1e-12);
    }

    #[test]
    fn scaled_products_equal_the_scale_times_the_materialised_product() {
        let (a, b, c) = (sample(8, 13, 0.3), sample(13, 6, 0.5), sample(5, 13, 0.9));
        let k = -0.37;
        assert!((scaled_times(k, &a, &b) - (&a * &b) * k).abs().max() < 1e-12);
        assert!(
            (scaled_times_transpose(k, &a, &c) - (&a * c.transpose()) * k)
                .abs()
                .max()
                < 1e-12
        );
    }

    #[test]
    fn a_two_by_two_scaled_product_matches_the_hand_computation() {
        // A = [1 2; 3 4], B = [5 6; 7 8], α = 2: αAB = [38 44; 86 100].
        let a = DMatrix::from_row_slice(2, 2, &[1.0, 2.0, 3.0, 4.0]);
        let b = DMatrix::from_row_slice(2, 2, &[5.0, 6.0, 7.0, 8.0]);
        assert_eq!(
            scaled_times(2.0, &a, &b),
            DMatrix::from_row_slice(2, 2, &[38.0, 44.0, 86.0, 100.0])
        );
    }

    #[test]
    fn a_two_by_two_product_matches_the_hand_computation() {
        // A = [1 2; 3 4], B = [5 6; 7 8]: AᵀB = [26 30; 38 44], ABᵀ = [17 23; 39 53].
        let a = DMatrix::from_row_slice(2, 2, &[1.0, 2.0, 3.0, 4.0]);
        let b = DMatrix::from_row_slice(2, 2, &[5.0, 6.0, 7.0, 8.0]);
        assert_eq!(
            transpose_times(&a, &b),
            DMatrix::from_row_slice(2, 2, &[26.0, 30.0, 38.0, 44.0])
        );
        assert_eq!(
            times_transpose(&a, &b),
            DMatrix::from_row_slice(2, 2, &[17.0, 23.0, 39.0, 53.0])
        );
    }

    #[test]
    fn short_column_tiles_equal_the_materialised_product_for_every_remainder() {
        // Rows 1…17 cover empty, partial and several full eight-row tiles; odd and even
        // column counts cover the one-column tile; k = 1 the shortest sum.
        for m in [1, 3, 7, 8, 9, 16, 17] {
            for (k, n) in [(1, 1), (5, 2), (13, 7), (32, 8)] {
                let (a, b) = (sample(m, k, 0.2), sample(k, n, 0.8));
                let product = scaled_times(1.5, &a, &b);
                let expected = (&a * &b) * 1.5;
                assert!(
                    (product - expected).abs().max() < 1e-12,
                    "m={m} k={k} n={n}"
                );
            }
        }
    }

    #[test]
    fn tall_products_beyond_the_short_columns_still_match() {
        let (a, b) = (sample(SHORT_COLUMNS + 3, 4, 0.4), sample(4, 3, 0.6));
        assert!((scaled_times(1.0, &a, &b) - &a * &b).abs().max() < 1e-12);
    }

    #[test]
    fn products_of_column_runs_equal_products_of_the_copied_columns() {
        let (q, k) = (sample(8, 6, 0.1), sample(8, 6, 0.5));
        let (qh, kh) = (q.columns(2, 3).into_owned(), k.columns(2, 3).into_owned());
        let scores = columns_times_transpose(0.5, Columns::of(&q, 2, 3), Columns::of(&k, 2, 3));
        assert!((scores - (&qh * kh.transpose()) * 0.5).abs().max() < 1e-12);
        let p = sample(8, 8, 0.3);
        let ph = columns_times(1.0, Columns::all(&p), Columns::of(&k, 2, 3));
        assert!((ph - &p * &kh).abs().max() < 1e-12);
    }

    #[test]
    fn a_run_past_the_last_column_is_cut_to_the_matrix() {
        let m = sample(4, 3, 0.0);
        let run = Columns::of(&m, 2, 5);
        assert_eq!((run.rows, run.cols), (4, 1));
        assert_eq!(Columns::of(&m, 7, 2).cols, 0);
    }

    #[test]
    fn zeros_is_nalgebras_zero_matrix() {
        assert_eq!(zeros(3, 5), DMatrix::<f64>::zeros(3, 5));
        assert_eq!(zeros(0, 4).shape(), (0, 4));
    }

    #[test]
    fn mismatched_shapes_give_zeros_not_a_panic() {
        let (a, b) = (sample(3, 4, 0.0), sample(5, 4, 0.0));
        assert_eq!(transpose_times(&a, &b), DMatrix::zeros(4, 4));
    }
}
