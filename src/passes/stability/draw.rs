//! What Pass 4's figures draw from a profile: the strip of per-layer norms, the curve
//! with the toy chain, the CSV, and a layer's readout.

use leptos::prelude::*;

use crate::math::stability::{toy_chain, GradientProfile};
use crate::widgets::format::format_number;
use crate::widgets::format::number_or_f64_limit;
use crate::widgets::{Axis, ChartSpec, ColorMap, ColorScale, Grid, Mark, Tone};

/// The strip's colour scale: log₁₀ of the gradient norm from −10 (dark) to +10.
pub const STRIP_SCALE: ColorScale = ColorScale {
    map: ColorMap::Sequential,
    min: -10.0,
    max: 10.0,
};

/// The norms a figure shows: activations' or weights' gradients.
pub fn shown_norms(profile: &GradientProfile, weights: bool) -> &[f64] {
    if weights {
        &profile.weight_grad_norm
    } else {
        &profile.input_grad_norm
    }
}

/// The strip: one cell per layer, log₁₀ of the norm (non-finite cells left empty).
pub fn strip_grid(norms: &[f64]) -> Grid {
    Grid {
        rows: 1,
        cols: norms.len(),
        values: norms
            .iter()
            .map(|v| {
                if v.is_finite() && *v > 0.0 {
                    v.log10()
                } else {
                    f64::NAN
                }
            })
            .collect(),
    }
}

/// The curve of per-layer norms (log y), with optional toy chain scaled to the top layer.
/// Before any profile has arrived (every series empty) the axes still span `pending_depth`
/// layers, so that a figure still computing shows empty axes, not an error.
pub fn profile_chart(
    series: &[(String, &[f64], Tone)],
    toy: Option<f64>,
    pending_depth: impl FnOnce() -> usize,
) -> ChartSpec {
    let finite: Vec<f64> = series
        .iter()
        .flat_map(|(_, v, _)| v.iter().copied())
        .filter(|v| v.is_finite() && *v > 0.0)
        .collect();
    let depth = series
        .iter()
        .map(|(_, v, _)| v.len())
        .max()
        .filter(|&d| d > 0)
        .unwrap_or_else(|| pending_depth().max(1));
    let mut marks = Vec::new();
    let mut lo = finite.iter().copied().fold(f64::INFINITY, f64::min);
    let mut hi = finite.iter().copied().fold(0.0, f64::max);
    // The second series dashed, so that the two never differ by colour alone.
    for (i, (label, values, tone)) in series.iter().enumerate() {
        marks.push(Mark::Line {
            label: label.clone(),
            points: values
                .iter()
                .enumerate()
                .filter(|(_, v)| v.is_finite() && **v > 0.0)
                .map(|(l, v)| (l as f64, *v))
                .collect(),
            tone: *tone,
            dashed: i % 2 == 1,
            dots: values.len() <= 48,
        });
    }
    if let (Some(rho), Some((_, first, _))) = (toy, series.first()) {
        if let Some(top) = first.last().copied().filter(|v| v.is_finite() && *v > 0.0) {
            let chain: Vec<(f64, f64)> = toy_chain(rho, first.len())
                .iter()
                .enumerate()
                .map(|(l, f)| (l as f64, top * f))
                .filter(|(_, v)| v.is_finite() && *v > 0.0)
                .collect();
            for (_, v) in &chain {
                lo = lo.min(*v);
                hi = hi.max(*v);
            }
            marks.push(Mark::Line {
                label: format!("toy chain ρ = {}", format_number(rho, 2)),
                points: chain,
                tone: Tone::Muted,
                dashed: true,
                dots: false,
            });
        }
    }
    if !lo.is_finite() || lo <= 0.0 {
        lo = 1e-3;
    }
    if hi <= lo {
        hi = lo * 10.0;
    }
    ChartSpec {
        x: Axis {
            label: "layer l (0 = bottom)".into(),
            min: -0.5,
            max: depth as f64 - 0.5,
            log: false,
        },
        y: Axis::log_decades("gradient norm", lo, hi),
        marks,
    }
}

pub fn profile_csv(profile: &GradientProfile) -> String {
    let mut out = String::from("layer,input_grad_norm,weight_grad_norm\n");
    for (l, (a, w)) in profile
        .input_grad_norm
        .iter()
        .zip(&profile.weight_grad_norm)
        .enumerate()
    {
        let cell = |v: &f64| {
            if v.is_finite() {
                format!("{v}")
            } else {
                "overflow".into()
            }
        };
        out.push_str(&format!("{l},{},{}\n", cell(a), cell(w)));
    }
    out
}

pub fn describe_layer(
    result: RwSignal<Option<(usize, GradientProfile)>>,
    weights: Memo<bool>,
) -> Callback<(usize, usize), String> {
    Callback::new(move |(_, l): (usize, usize)| {
        result.with_untracked(|r| {
            r.as_ref()
                .and_then(|(_, p)| shown_norms(p, weights.get_untracked()).get(l).copied())
                .map(|v| format!("layer {l}: gradient norm {}", number_or_f64_limit(v)))
                .unwrap_or_default()
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strip_leaves_non_finite_and_zero_cells_empty() {
        let g = strip_grid(&[100.0, f64::INFINITY, 0.0, 1e-3]);
        assert_eq!(g.values[0], 2.0);
        assert!(g.values[1].is_nan() && g.values[2].is_nan());
        assert!((g.values[3] + 3.0).abs() < 1e-12);
    }

    #[test]
    fn chart_before_any_profile_spans_the_depth_asked_for() {
        let spec = profile_chart(&[("x".into(), &[], Tone::Green)], None, || 32);
        assert_eq!((spec.x.min, spec.x.max), (-0.5, 31.5));
        assert!(spec.y.min > 0.0 && spec.y.max > spec.y.min && spec.y.max.is_finite());
        let empty = profile_chart(&[], None, || 0);
        assert!(empty.x.max > empty.x.min, "even with nothing asked for");
    }

    #[test]
    fn chart_with_a_profile_spans_its_layers_not_the_depth_asked_for() {
        let spec = profile_chart(&[("x".into(), &[1.0, 2.0, 3.0], Tone::Green)], None, || 32);
        assert_eq!((spec.x.min, spec.x.max), (-0.5, 2.5));
    }

    #[test]
    fn chart_never_carries_non_finite_points() {
        let norms = [1.0, f64::INFINITY, f64::NAN, 0.0, 2.0];
        let spec = profile_chart(&[("x".into(), &norms, Tone::Green)], Some(0.7), || 32);
        for m in &spec.marks {
            if let Mark::Line { points, .. } = m {
                assert!(points
                    .iter()
                    .all(|(x, y)| x.is_finite() && y.is_finite() && *y > 0.0));
            }
        }
        assert!(spec.y.min > 0.0 && spec.y.max.is_finite());
    }

    #[test]
    fn csv_names_overflow_instead_of_printing_inf() {
        let p = GradientProfile {
            input_grad_norm: vec![f64::INFINITY, 1.0],
            weight_grad_norm: vec![2.0, 3.0],
            loss: 0.0,
            forward_overflow: None,
        };
        let csv = profile_csv(&p);
        assert!(csv.contains("0,overflow,2") && !csv.contains("inf"));
    }
}
