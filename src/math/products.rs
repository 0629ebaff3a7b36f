//! Matrix products with a transposed factor, computed without materialising the
//! transpose: AᵀB and ABᵀ, the shapes every backward pass is made of
//! (∂L/∂W = xᵀδ, ∂L/∂x = δWᵀ).
//!
//! Both call `matrixmultiply::dgemm` (the kernel nalgebra itself uses for `A * B`) with
//! the strides of the transposed view, so no copy of either factor is made.

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
        Self {
            data: m.as_slice(),
            rows: m.nrows(),
            cols: m.ncols(),
            row_stride: 1,
            col_stride: m.nrows() as isize,
        }
    }

    fn transposed(m: &'a DMatrix<f64>) -> Self {
        Self {
            data: m.as_slice(),
            rows: m.ncols(),
            cols: m.nrows(),
            row_stride: m.nrows() as isize,
            col_stride: 1,
        }
    }
}

/// C = α A B for strided views; a zero matrix of the right shape when the inner
/// dimensions disagree or are empty (never reached by the callers, whose shapes are
/// fixed by the block).
fn product(alpha: f64, a: View<'_>, b: View<'_>) -> DMatrix<f64> {
    let (m, k, n) = (a.rows, a.cols, b.cols);
    let mut c = DMatrix::zeros(m, n);
    if k != b.rows || m == 0 || n == 0 || k == 0 {
        return c;
    }
    debug_assert!(a.data.len() >= m * k && b.data.len() >= k * n);
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
    fn mismatched_shapes_give_zeros_not_a_panic() {
        let (a, b) = (sample(3, 4, 0.0), sample(5, 4, 0.0));
        assert_eq!(transpose_times(&a, &b), DMatrix::zeros(4, 4));
    }
}
