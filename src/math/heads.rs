//! Splitting a width into heads: multi-head attention needs h to divide d_model.

/// The largest head count ≤ `heads` that divides `d_model` (at least 1).
pub fn heads_dividing(d_model: usize, heads: usize) -> usize {
    (1..=heads.max(1))
        .rev()
        .find(|h| d_model.is_multiple_of(*h))
        .unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heads_that_do_not_divide_fall_back_to_a_divisor() {
        assert_eq!(heads_dividing(32, 3), 2);
        assert_eq!(heads_dividing(36, 4), 4);
        assert_eq!(heads_dividing(17, 4), 1);
        assert_eq!(heads_dividing(24, 0), 1);
    }
}
