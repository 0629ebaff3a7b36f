//! Heatmap grids and colour scales of Pass 3's matrices.

use nalgebra::DMatrix;

use crate::widgets::{ColorMap, ColorScale, Grid};

/// Heatmap grid with a gap (NaN, drawn transparent) after every `block` columns or rows.
pub fn blocked_grid(m: &DMatrix<f64>, block: usize, by_columns: bool) -> Grid {
    let block = block.max(1);
    let (rows, cols) = m.shape();
    let gaps = |len: usize| if len == 0 { 0 } else { (len - 1) / block };
    let (out_r, out_c) = if by_columns {
        (rows, cols + gaps(cols))
    } else {
        (rows + gaps(rows), cols)
    };
    let mut values = vec![f64::NAN; out_r * out_c];
    for i in 0..rows {
        for j in 0..cols {
            let (r, c) = if by_columns {
                (i, j + j / block)
            } else {
                (i + i / block, j)
            };
            values[r * out_c + c] = m[(i, j)];
        }
    }
    Grid {
        rows: out_r,
        cols: out_c,
        values,
    }
}

/// A diverging scale symmetric about zero that spans `m`.
pub fn symmetric_scale(m: &DMatrix<f64>) -> ColorScale {
    let top = m
        .as_slice()
        .iter()
        .fold(0.0_f64, |a, x| a.max(x.abs()))
        .max(1e-12);
    ColorScale {
        map: ColorMap::Diverging,
        min: -top,
        max: top,
    }
}

/// The diverging ±1 scale of the target and its approximation.
pub const TARGET_SCALE: ColorScale = ColorScale {
    map: ColorMap::Diverging,
    min: -1.0,
    max: 1.0,
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocked_grid_inserts_one_gap_between_blocks() {
        let m = DMatrix::from_fn(2, 4, |i, j| (i * 4 + j) as f64);
        let g = blocked_grid(&m, 2, true);
        assert_eq!((g.rows, g.cols), (2, 5));
        assert!(g.get(0, 2).is_some_and(f64::is_nan));
        assert_eq!(g.get(1, 4), Some(7.0));
        let g = blocked_grid(&m, 1, false);
        assert_eq!((g.rows, g.cols), (3, 4));
    }
}
