//! Figure `jacobian`: the n×n softmax Jacobian as a heatmap beside the bars of p, with
//! its norms read out and a caption generated from the numbers it shows.

use leptos::prelude::*;
use nalgebra::DMatrix;

use super::controls::{MoreControls, PrimaryControls, MORE_KEYS};
use super::model::BackpropModel;
use super::steps::STEPS;
use crate::math::backprop::is_saturated;
use crate::math::softmax::JacobianSummary;
use crate::passes::lazy::LazySteps;
use crate::widgets::format::format_number;
use crate::widgets::{
    Axis, Chart, ChartSpec, ColorBar, ColorMap, ColorScale, Figure, Grid, Heatmap, Mark, Readout,
    Tone,
};

/// The fixed colour range of the Jacobian heatmap: ±¼ (the largest possible entry is ¼),
/// so a fading Jacobian visibly fades.
pub const JACOBIAN_SCALE: ColorScale = ColorScale {
    map: ColorMap::Diverging,
    min: -0.25,
    max: 0.25,
};

/// The caption of `jacobian`, from the numbers it shows.
pub fn jacobian_caption(
    n: usize,
    d_k: usize,
    divide: bool,
    alpha: f64,
    explicit: bool,
    s: &JacobianSummary,
) -> String {
    let source = if explicit {
        format!("{n} raw scores from the link")
    } else {
        format!("{n} tokens with q, k ~ N(0, I) in dₖ = {d_k} dimensions")
    };
    let scaling = if divide {
        format!(
            "scores divided by √dₖ (√{d_k} = {}), then scaled by α = {}",
            format_number((d_k as f64).sqrt(), 3),
            format_number(alpha, 3)
        )
    } else {
        format!(
            "scores not divided by √dₖ, scaled by α = {}",
            format_number(alpha, 3)
        )
    };
    let uniform_norm = 1.0 / n as f64;
    let state = if is_saturated(s.max_p) {
        format!(
            "Saturated: the largest probability is {}, so every entry of J is near zero — ‖J‖₂ = {}, {} times smaller than for uniform attention (1/n = {}). Almost no gradient gets through the softmax to W_Q and W_K.",
            format_number(s.max_p, 4),
            format_number(s.spectral, 3),
            format_number(uniform_norm / s.spectral.max(f64::MIN_POSITIVE), 3),
            format_number(uniform_norm, 3)
        )
    } else {
        format!(
            "The largest probability is {} and the entropy {} nats of a possible ln {n} = {}; ‖J‖₂ = {} (never more than ½), so gradient flows through the softmax.",
            format_number(s.max_p, 3),
            format_number(s.entropy, 3),
            format_number((n as f64).ln(), 3),
            format_number(s.spectral, 3)
        )
    };
    format!("{source}; {scaling}. {state}")
}

pub fn jacobian_csv(p: &[f64], j: &DMatrix<f64>) -> String {
    let n = p.len();
    let mut out = String::from("i,j,p_i,p_j,J_ij\n");
    for i in 0..n {
        for k in 0..n {
            out.push_str(&format!("{i},{k},{},{},{}\n", p[i], p[k], j[(i, k)]));
        }
    }
    out
}

/// Figure `jacobian`: the Jacobian heatmap beside the bars of p, with readouts.
#[component]
pub fn JacobianFigure(
    model: BackpropModel,
    #[prop(default = true)] show_controls: bool,
    /// Whether the figure carries its guided steps (not where its controls are hidden).
    #[prop(default = true)]
    with_steps: bool,
) -> impl IntoView {
    let with_steps = with_steps && show_controls;
    let grid = Signal::derive(move || model.jacobian.with(Grid::from_matrix));
    let caption = Signal::derive(move || {
        jacobian_caption(
            model.n.get(),
            model.d_k.get(),
            model.divide.get(),
            model.alpha.get(),
            model.explicit.with(|z| z.is_some()),
            &model.summary.get(),
        )
    });
    let summary = Signal::derive(move || {
        let s = model.summary.get();
        format!(
            "Heatmap of the {n}×{n} softmax Jacobian: diagonal entries positive, off-diagonal negative; ‖J‖_F = {}, max p = {}.",
            format_number(s.frobenius, 3),
            format_number(s.max_p, 3),
            n = model.n.get()
        )
    });
    let describe = Callback::new(move |(i, j): (usize, usize)| {
        let p = model.p.get_untracked();
        let v = model.jacobian.with_untracked(|m| {
            if i < m.nrows() && j < m.ncols() {
                m[(i, j)]
            } else {
                0.0
            }
        });
        match (p.get(i), p.get(j)) {
            (Some(pi), Some(pj)) => format!(
                "i = {i}, j = {j}: pᵢ = {}, pⱼ = {}, Jᵢⱼ = {}",
                format_number(*pi, 4),
                format_number(*pj, 4),
                format_number(v, 4)
            ),
            _ => String::new(),
        }
    });
    let bars = Signal::derive(move || {
        let p = model.p.get();
        let n = p.len();
        ChartSpec {
            x: Axis {
                label: "token j".into(),
                min: -0.5,
                max: n as f64 - 0.5,
                log: false,
            },
            y: Axis {
                label: "pⱼ".into(),
                min: 0.0,
                max: 1.0,
                log: false,
            },
            marks: vec![Mark::Bars {
                label: String::new(),
                bars: p.iter().enumerate().map(|(j, &v)| (j as f64, v)).collect(),
                tone: Tone::Blue,
                width: 0.8,
            }],
            legend_left: false,
        }
    });
    let bars_summary = Signal::derive(move || {
        let p = model.p.get();
        let shown: Vec<String> = p.iter().take(16).map(|v| format_number(*v, 2)).collect();
        format!(
            "Bar chart of p: {}{}",
            shown.join(", "),
            if p.len() > 16 { ", …" } else { "" }
        )
    });
    let csv = Callback::new(move |_| {
        model
            .p
            .with_untracked(|p| model.jacobian.with_untracked(|j| jacobian_csv(p, j)))
    });
    let verdict = Signal::derive(move || {
        let s = model.summary.get();
        if is_saturated(s.max_p) {
            "The softmax has saturated: p is nearly one-hot, and J with it is nearly zero — almost no gradient gets through.".to_string()
        } else {
            "The softmax is not saturated: J is far from zero, and gradient gets through."
                .to_string()
        }
    });
    let controls = move || view! { <PrimaryControls model=model /> };
    let more = move || view! { <MoreControls model=model /> };
    view! {
        <Figure id="jacobian" caption=caption summary=summary csv=csv verdict=verdict
            controls=controls more=more more_keys=MORE_KEYS show_controls=show_controls>
            <div class="jacobian-layout">
                <div class="jacobian-heatmap">
                    <Heatmap name="jacobian" grid=grid scale=JACOBIAN_SCALE describe=describe summary=summary max_width=400.0 />
                    <ColorBar scale=JACOBIAN_SCALE label="Jᵢⱼ (fixed range ±¼)" />
                </div>
                <div class="jacobian-side">
                    <Chart name="probabilities" spec=bars summary=bars_summary aspect=0.7 />
                    <div class="readouts">
                        <Readout name="frobenius" label="‖J‖_F" value=Signal::derive(move || model.summary.get().frobenius) />
                        <Readout name="spectral" label="‖J‖₂" value=Signal::derive(move || model.summary.get().spectral) />
                        <Readout name="max-p" label="max p" value=Signal::derive(move || model.summary.get().max_p) />
                        <Readout name="entropy" label="entropy H(p)" unit="nats" value=Signal::derive(move || model.summary.get().entropy) />
                    </div>
                    {with_steps.then(|| view! { <LazySteps id="jacobian" steps=&STEPS /> })}
                </div>
            </div>
        </Figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::softmax::jacobian_summary;
    use crate::math::softmax::softmax;
    use crate::math::softmax::softmax_jacobian;

    fn summary_of(p: &[f64]) -> JacobianSummary {
        jacobian_summary(p, &softmax_jacobian(p))
    }

    #[test]
    fn caption_names_saturation_when_max_p_exceeds_099() {
        let p = softmax(&[20.0, 0.0, 0.0, 0.0]);
        let c = jacobian_caption(4, 64, false, 1.0, false, &summary_of(&p));
        assert!(c.contains("Saturated"), "{c}");
        assert!(c.contains("not divided"));
    }

    #[test]
    fn caption_does_not_claim_saturation_for_spread_p() {
        let p = vec![0.25; 4];
        let c = jacobian_caption(4, 64, true, 1.0, false, &summary_of(&p));
        assert!(!c.contains("Saturated"), "{c}");
        assert!(c.contains("gradient flows"));
    }

    #[test]
    fn csv_has_a_row_per_entry() {
        let p = vec![0.5, 0.5];
        let csv = jacobian_csv(&p, &softmax_jacobian(&p));
        assert_eq!(csv.lines().count(), 5);
        assert!(csv.contains("0,1,0.5,0.5,-0.25"));
    }
}
