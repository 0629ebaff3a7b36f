//! Where an axis's ticks go: 1-2-5 steps on linear axes, powers of ten on log axes.

use super::spec::Axis;

pub fn to_axis(axis: &Axis, v: f64) -> f64 {
    if axis.log {
        v.log10()
    } else {
        v
    }
}

/// Tick positions (in data units) for an axis: 1-2-5 steps on linear axes, powers of ten
/// (with 2 and 5 between when the span is short) on log axes.
pub fn ticks(axis: &Axis) -> Vec<f64> {
    let (lo, hi) = (axis.min.min(axis.max), axis.min.max(axis.max));
    if !(lo.is_finite() && hi.is_finite()) || hi <= lo {
        return vec![];
    }
    if axis.log {
        if lo <= 0.0 {
            return vec![];
        }
        let (e0, e1) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
        let span = e1 - e0;
        let stride = ((span as f64) / 8.0).ceil().max(1.0) as i32;
        let mut out = Vec::new();
        for e in (e0..=e1).step_by(stride as usize) {
            let base = 10f64.powi(e);
            let mults: &[f64] = if span <= 2 { &[1.0, 2.0, 5.0] } else { &[1.0] };
            out.extend(
                mults
                    .iter()
                    .map(|m| m * base)
                    .filter(|v| *v >= lo * (1.0 - 1e-9) && *v <= hi * (1.0 + 1e-9)),
            );
        }
        return out;
    }
    let raw = (hi - lo) / 6.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * mag);
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    (first..=last).map(|k| k as f64 * step).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn axis(min: f64, max: f64, log: bool) -> Axis {
        Axis {
            label: String::new(),
            min,
            max,
            log,
        }
    }

    #[test]
    fn linear_ticks_are_round_and_inside() {
        assert_eq!(
            ticks(&axis(0.0, 1.0, false)),
            vec![0.0, 0.2, 0.4, 0.6000000000000001, 0.8, 1.0]
        );
        let t = ticks(&axis(-0.3, 0.7, false));
        assert!(t.iter().all(|v| (-0.3..=0.7).contains(v)));
    }

    #[test]
    fn log_ticks_are_powers_of_ten() {
        assert_eq!(
            ticks(&axis(1.0, 1024.0, true)),
            vec![1.0, 10.0, 100.0, 1000.0]
        );
        assert_eq!(
            ticks(&axis(1.0, 20.0, true)),
            vec![1.0, 2.0, 5.0, 10.0, 20.0]
        );
    }

    #[test]
    fn degenerate_axes_have_no_ticks() {
        assert!(ticks(&axis(1.0, 1.0, false)).is_empty());
        assert!(ticks(&axis(0.0, 10.0, true)).is_empty());
        assert!(ticks(&axis(f64::NAN, 10.0, false)).is_empty());
    }
}
