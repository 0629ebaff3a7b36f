//! Figure `jacobian`: the n×n softmax Jacobian as a heatmap beside the bars of p, with
//! its norms read out and a caption generated from the numbers it shows.

use leptos::prelude::*;

use crate::state::registry::FigureId;
use nalgebra::DMatrix;

use super::controls::{MoreControls, PrimaryControls, MORE_KEYS};
use super::model::BackpropModel;
use super::steps::ASKS;
use crate::math::backprop::is_saturated;
use crate::math::softmax::JacobianSummary;
use crate::passes::lazy::LazySteps;
use crate::widgets::format::{format_number, subscript};
use crate::widgets::{
    Axis, Chart, ChartSpec, ColorBar, ColorMap, ColorScale, Figure, Grid, Heatmap, LinkSignal,
    LinkedFormula, LitCells, Mark, Readout, Tone,
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

/// Entry (i, j) of J = diag(p) − ppᵀ written out with its numbers: on the diagonal
/// "J₃₃ = p₃(1 − p₃) = 0.210 × 0.790 = 0.166", off it "J₃₅ = −p₃p₅ = −0.210 × 0.120 =
/// −0.0252". `None` outside p.
pub fn jacobian_entry_formula(p: &[f64], i: usize, j: usize) -> Option<(String, f64)> {
    let (pi, pj) = (*p.get(i)?, *p.get(j)?);
    let (si, sj) = (subscript(i), subscript(j));
    let n = |x: f64| format_number(x, 3);
    Some(if i == j {
        let v = pi * (1.0 - pi);
        (
            format!(
                "J{si}{si} = p{si}(1 − p{si}) = {} × {} = {}",
                n(pi),
                n(1.0 - pi),
                n(v)
            ),
            v,
        )
    } else {
        let v = -pi * pj;
        (
            format!(
                "J{si}{sj} = −p{si}p{sj} = −{} × {} = {}",
                n(pi),
                n(pj),
                n(v)
            ),
            v,
        )
    })
}

/// A term of Jᵢⱼ = pᵢ(δᵢⱼ − pⱼ) over the whole of p: the range its entries take here.
pub fn jacobian_term_formula(p: &[f64], diagonal: bool) -> String {
    let values: Vec<f64> = if diagonal {
        p.iter().map(|pi| pi * (1.0 - pi)).collect()
    } else {
        p.iter()
            .enumerate()
            .flat_map(|(i, pi)| {
                p.iter()
                    .enumerate()
                    .filter(move |(j, _)| *j != i)
                    .map(move |(_, pj)| -pi * pj)
            })
            .collect()
    };
    let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if values.is_empty() {
        return String::new();
    }
    let n = |x: f64| format_number(x, 3);
    if diagonal {
        format!(
            "On the diagonal Jᵢᵢ = pᵢ(1 − pᵢ): here from {} to {} (never more than ¼).",
            n(lo),
            n(hi)
        )
    } else {
        format!(
            "Off the diagonal Jᵢⱼ = −pᵢpⱼ: here from {} to {}.",
            n(lo),
            n(hi)
        )
    }
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

/// The figure alone, as the embed view shows it (the registry's loaders call this).
pub fn alone(show_controls: bool) -> AnyView {
    view! { <JacobianFigure model=super::model::BackpropModel::new(crate::state::use_url_state()) show_controls=show_controls /> }.into_any()
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
    // Linked: a term of the formula, or a cell of the heatmap (then its two bars pᵢ, pⱼ).
    let linked: LinkSignal = RwSignal::new(None);
    let cell = RwSignal::new(None::<(usize, usize)>);
    let on_cell = Callback::new(move |c: Option<(usize, usize)>| {
        cell.set(c);
        linked.set(c.map(|(i, j)| if i == j { "diagonal" } else { "off-diagonal" }));
    });
    let lit = Signal::derive(move || match (cell.get(), linked.get()) {
        (None, Some("diagonal")) => LitCells::Diagonal,
        (None, Some("off-diagonal")) => LitCells::OffDiagonal,
        _ => LitCells::All,
    });
    let live = Signal::derive(move || {
        model.p.with(|p| match (cell.get(), linked.get()) {
            (Some((i, j)), _) => jacobian_entry_formula(p, i, j)
                .map(|(t, _)| t)
                .unwrap_or_default(),
            (None, Some(term)) => jacobian_term_formula(p, term == "diagonal"),
            (None, None) => {
                "Point at a term, or at a cell of the heatmap, to fill the formula in.".to_string()
            }
        })
    });
    let bars = Signal::derive(move || {
        let p = model.p.get();
        let n = p.len();
        let picked = cell.get().filter(|(i, j)| *i < n && *j < n);
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
            marks: {
                let mut marks = vec![Mark::Bars {
                    label: String::new(),
                    bars: p.iter().enumerate().map(|(j, &v)| (j as f64, v)).collect(),
                    tone: Tone::Green,
                    width: 0.8,
                }];
                if let Some((i, j)) = picked {
                    marks.push(Mark::Bars {
                        // No legend (it would change the chart's height under the pointer):
                        // the filled-in formula names the two bars.
                        label: String::new(),
                        bars: vec![(i as f64, p[i]), (j as f64, p[j])],
                        tone: Tone::Fg,
                        width: 0.8,
                    });
                }
                marks
            },
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
        <Figure id=FigureId::Jacobian caption=caption summary=summary csv=csv verdict=verdict linked=linked
            controls=controls more=more more_keys=MORE_KEYS show_controls=show_controls>
            <div class="jacobian-layout">
                <div class="jacobian-heatmap">
                    <Heatmap name="jacobian" grid=grid scale=JACOBIAN_SCALE describe=describe summary=summary max_width=400.0 lit=lit on_cell=on_cell />
                    <ColorBar scale=JACOBIAN_SCALE label="Jᵢⱼ (fixed range ±¼)" />
                </div>
                <div class="jacobian-side">
                    <Chart name="probabilities" spec=bars summary=bars_summary aspect=0.7 />
                    <LinkedFormula linked=linked terms=&["diagonal", "off-diagonal"] live=live>
                        <p class="term-line">"Jᵢⱼ = pᵢ(δᵢⱼ − pⱼ): "
                            <span class="term" data-term="diagonal" tabindex="0" role="button"
                                aria-label="the diagonal term pᵢ(1 − pᵢ): lights the diagonal of the heatmap">"pᵢ(1 − pᵢ)"</span>
                            " on the diagonal, "
                            <span class="term" data-term="off-diagonal" tabindex="0" role="button"
                                aria-label="the off-diagonal term −pᵢpⱼ: lights the cells off the diagonal">"−pᵢpⱼ"</span>
                            " off it."
                        </p>
                    </LinkedFormula>
                    <div class="readouts">
                        <Readout name="frobenius" label="‖J‖_F" value=Signal::derive(move || model.summary.get().frobenius) />
                        <Readout name="spectral" label="‖J‖₂" value=Signal::derive(move || model.summary.get().spectral) />
                        <Readout name="max-p" label="max p" value=Signal::derive(move || model.summary.get().max_p) />
                        <Readout name="entropy" label="entropy H(p)" unit="nats" value=Signal::derive(move || model.summary.get().entropy) />
                    </div>
                    {with_steps.then(|| view! { <LazySteps id=FigureId::Jacobian asks=&ASKS /> })}
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
    fn an_entry_is_written_out_with_its_own_numbers() {
        let p = [0.21, 0.79];
        // Test only: (0, 0) and (0, 1) are inside p, so the entry's formula exists.
        let (text, v) = jacobian_entry_formula(&p, 0, 0).expect("inside p");
        assert_eq!(text, "J₀₀ = p₀(1 − p₀) = 0.210 × 0.790 = 0.166");
        assert!((v - 0.21 * 0.79).abs() < 1e-15);
        let (text, v) = jacobian_entry_formula(&p, 0, 1).expect("inside p");
        assert_eq!(text, "J₀₁ = −p₀p₁ = −0.210 × 0.790 = −0.166");
        assert_eq!(v, softmax_jacobian(&p)[(0, 1)]);
        assert!(jacobian_entry_formula(&p, 2, 0).is_none());
    }

    #[test]
    fn a_term_gives_the_range_of_its_entries() {
        let p = [0.5, 0.25, 0.25];
        // Diagonal: 0.25, 0.1875, 0.1875; off: −0.125 … −0.0625.
        assert_eq!(
            jacobian_term_formula(&p, true),
            "On the diagonal Jᵢᵢ = pᵢ(1 − pᵢ): here from 0.188 to 0.250 (never more than ¼)."
        );
        assert_eq!(
            jacobian_term_formula(&p, false),
            "Off the diagonal Jᵢⱼ = −pᵢpⱼ: here from −0.125 to −0.0625."
        );
    }

    #[test]
    fn csv_has_a_row_per_entry() {
        let p = vec![0.5, 0.5];
        let csv = jacobian_csv(&p, &softmax_jacobian(&p));
        assert_eq!(csv.lines().count(), 5);
        assert!(csv.contains("0,1,0.5,0.5,-0.25"));
    }
}
