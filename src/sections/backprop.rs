//! Pass 1 — backprop: the softmax is the only door (section id `backprop`).
//!
//! Figures `jacobian` (the n×n Jacobian heatmap beside the bars of p) and
//! `jacobian-vs-dk` (mean ‖J‖_F against d_k, with and without ÷√d_k).
//! Data flows one way: URL-state memos → math memos → draw effects.

use leptos::prelude::*;
use nalgebra::DMatrix;

use crate::app::{use_url_state, UrlState};
use crate::formulas;
use crate::math::backprop::{
    is_saturated, mean_jacobian_norm_vs_dk, sample_dk_sweep, sample_raw_scores, scaled_scores,
    score_scale, DkSweepCurve, MAX_DK, MAX_TOKENS, MIN_TOKENS,
};
use crate::math::softmax::{jacobian_summary, softmax, softmax_jacobian, JacobianSummary};
use crate::state::Value;
use crate::widgets::format::{format_number, whole};
use crate::widgets::{
    Axis, Chart, ChartSpec, ColorBar, ColorMap, ColorScale, Figure, Formula, Grid, Heatmap, Mark,
    Readout, Scale, SeedField, Slider, Toggle, Tone,
};

/// The fixed colour range of the Jacobian heatmap: ±¼ (the largest possible entry is ¼),
/// so a fading Jacobian visibly fades.
pub const JACOBIAN_SCALE: ColorScale = ColorScale {
    map: ColorMap::Diverging,
    min: -0.25,
    max: 0.25,
};

/// Everything Pass 1 computes, as memos over the URL state.
#[derive(Clone, Copy)]
pub struct BackpropModel {
    pub state: UrlState,
    /// Tokens in use (the count of explicit scores when the URL gives them).
    pub n: Memo<usize>,
    pub d_k: Memo<usize>,
    pub divide: Memo<bool>,
    pub alpha: Memo<f64>,
    pub seed: Memo<u64>,
    /// Explicit raw scores from the URL (`z=`), if any.
    pub explicit: Memo<Option<Vec<f64>>>,
    /// Raw scores z (explicit, or q·k_j sampled from the seed).
    pub raw: Memo<Vec<f64>>,
    /// p = softmax(s).
    pub p: Memo<Vec<f64>>,
    /// J = diag(p) − ppᵀ.
    pub jacobian: Memo<DMatrix<f64>>,
    pub summary: Memo<JacobianSummary>,
    /// ‖J‖_F averaged over samples, against d_k.
    pub sweep: Memo<DkSweepCurve>,
}

impl BackpropModel {
    /// Builds the memo graph from the URL state.
    pub fn new(state: UrlState) -> Self {
        let explicit = state.list("z");
        let n_key = state.int("n");
        let n = Memo::new(move |_| {
            explicit
                .with(|z| z.as_ref().map(|z| z.len()))
                .unwrap_or(n_key.get() as usize)
                .clamp(MIN_TOKENS, MAX_TOKENS)
        });
        let d_k_key = state.int("dk");
        let d_k = Memo::new(move |_| (d_k_key.get().max(1) as usize).min(MAX_DK));
        let divide = state.flag("div");
        let alpha = state.float("alpha");
        let seed_key = state.int("seed");
        let seed = Memo::new(move |_| seed_key.get().max(0) as u64);
        let raw = Memo::new(move |_| match explicit.get() {
            Some(z) => z,
            None => sample_raw_scores(seed.get(), n.get(), d_k.get()),
        });
        let p = Memo::new(move |_| {
            let scale = score_scale(alpha.get(), d_k.get(), divide.get());
            raw.with(|z| softmax(&scaled_scores(z, scale)))
        });
        let jacobian = Memo::new(move |_| p.with(|p| softmax_jacobian(p)));
        let summary = Memo::new(move |_| p.with(|p| jacobian.with(|j| jacobian_summary(p, j))));
        let samples = Memo::new(move |_| sample_dk_sweep(seed.get(), n.get()));
        let sweep = Memo::new(move |_| samples.with(|s| mean_jacobian_norm_vs_dk(s, alpha.get())));
        Self {
            state,
            n,
            d_k,
            divide,
            alpha,
            seed,
            explicit,
            raw,
            p,
            jacobian,
            summary,
            sweep,
        }
    }
}

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

/// The caption of `jacobian-vs-dk`, from the curve it shows.
pub fn sweep_caption(curve: &DkSweepCurve, d_k: usize, alpha: f64, n: usize) -> String {
    let at = |v: &[f64], d: usize| {
        curve
            .d_k
            .iter()
            .position(|&x| x == d)
            .map(|i| v[i])
            .unwrap_or(f64::NAN)
    };
    let (first, last) = (curve.d_k[0], curve.d_k[curve.d_k.len() - 1]);
    let (w0, w1) = (
        at(&curve.with_division, first),
        at(&curve.with_division, last),
    );
    let (o0, o1) = (
        at(&curve.without_division, first),
        at(&curve.without_division, last),
    );
    format!(
        "Mean ‖J‖_F over 256 samples of q and K, n = {n}, α = {}. With ÷√dₖ it goes from {} at dₖ = {first} to {} at dₖ = {last}; without it, from {} to {} — {} times smaller. At the marked dₖ = {d_k}: {} with, {} without.",
        format_number(alpha, 3),
        format_number(w0, 3),
        format_number(w1, 3),
        format_number(o0, 3),
        format_number(o1, 3),
        format_number(o0 / o1.max(f64::MIN_POSITIVE), 3),
        format_number(at(&curve.with_division, d_k), 3),
        format_number(at(&curve.without_division, d_k), 3),
    )
}

fn jacobian_csv(p: &[f64], j: &DMatrix<f64>) -> String {
    let n = p.len();
    let mut out = String::from("i,j,p_i,p_j,J_ij\n");
    for i in 0..n {
        for k in 0..n {
            out.push_str(&format!("{i},{k},{},{},{}\n", p[i], p[k], j[(i, k)]));
        }
    }
    out
}

fn sweep_csv(curve: &DkSweepCurve) -> String {
    let mut out =
        String::from("d_k,mean_frobenius_with_division,mean_frobenius_without_division\n");
    for ((d, w), o) in curve
        .d_k
        .iter()
        .zip(&curve.with_division)
        .zip(&curve.without_division)
    {
        out.push_str(&format!("{d},{w},{o}\n"));
    }
    out
}

fn alpha_format(x: f64) -> String {
    format_number(x, 3)
}

/// Controls shared by both figures: tokens, d_k, α, seed (÷√d_k only for `jacobian`).
#[component]
fn PassControls(
    model: BackpropModel,
    #[prop(default = true)] with_divide: bool,
    #[prop(default = "")] instance: &'static str,
) -> impl IntoView {
    let state = model.state;
    let set_n = Callback::new(move |v: f64| {
        state.set_many(vec![
            ("n", Value::Int(v.round() as i64)),
            ("z", Value::List(None)),
        ]);
    });
    let set_dk =
        Callback::new(move |v: f64| state.set_many(vec![("dk", Value::Int(v.round() as i64))]));
    let set_alpha = Callback::new(move |v: f64| state.set_many(vec![("alpha", Value::Float(v))]));
    let set_div = Callback::new(move |v: bool| state.set_many(vec![("div", Value::Bool(v))]));
    let set_seed = Callback::new(move |v: i64| {
        state.set_many(vec![("seed", Value::Int(v)), ("z", Value::List(None))])
    });
    view! {
        <Slider key="n" label="Tokens n" instance=instance value=Signal::derive(move || model.n.get() as f64) on_change=set_n
            scale=Scale::Linear { min: MIN_TOKENS as f64, max: MAX_TOKENS as f64, step: 1.0 } format=whole />
        <Slider key="dk" label="Key dimension dₖ" instance=instance value=Signal::derive(move || model.d_k.get() as f64) on_change=set_dk
            scale=Scale::Pow2 { min_exp: 0, max_exp: 10 } format=whole />
        <Slider key="alpha" label="Logit scale α" instance=instance value=model.alpha on_change=set_alpha
            scale=Scale::Log { min: 0.05, max: 50.0, per_decade: 100, digits: 3 } format=alpha_format unit="×" />
        {with_divide.then(|| view! { <Toggle key="div" label="Divide by √dₖ" instance=instance value=model.divide on_change=set_div /> })}
        <SeedField key="seed" label="Seed" instance=instance value=Signal::derive(move || model.seed.get() as i64) on_change=set_seed />
        <Show when=move || model.explicit.with(|z| z.is_some())>
            <p class="control-note" data-explicit-scores="">
                "Using the raw scores given in the link (z). Moving the tokens or the seed draws new ones."
            </p>
        </Show>
    }
}

/// Figure `jacobian`: the Jacobian heatmap beside the bars of p, with readouts.
#[component]
pub fn JacobianFigure(
    model: BackpropModel,
    #[prop(default = true)] show_controls: bool,
) -> impl IntoView {
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
    let controls = move || view! { <PassControls model=model /> };
    view! {
        <Figure id="jacobian" title="The softmax Jacobian J = diag(p) − ppᵀ" caption=caption summary=summary csv=csv
            controls=controls show_controls=show_controls>
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
                </div>
            </div>
        </Figure>
    }
}

/// Figure `jacobian-vs-dk`: E‖J‖_F against d_k, with and without the division.
#[component]
pub fn JacobianVsDkFigure(
    model: BackpropModel,
    #[prop(default = true)] show_controls: bool,
    #[prop(default = false)] embedded: bool,
) -> impl IntoView {
    let spec = Signal::derive(move || {
        let c = model.sweep.get();
        let positive: Vec<f64> = c
            .with_division
            .iter()
            .chain(&c.without_division)
            .copied()
            .filter(|v| *v > 0.0 && v.is_finite())
            .collect();
        let lowest = positive.iter().copied().fold(1.0, f64::min);
        let y_min = 10f64.powf(lowest.log10().floor()).max(1e-12);
        ChartSpec {
            x: Axis {
                label: "dₖ".into(),
                min: 1.0,
                max: MAX_DK as f64,
                log: true,
            },
            y: Axis {
                label: "mean ‖J‖_F".into(),
                min: y_min,
                max: 1.0,
                log: true,
            },
            marks: vec![
                Mark::Line {
                    label: "÷√dₖ".into(),
                    points: c
                        .d_k
                        .iter()
                        .zip(&c.with_division)
                        .map(|(d, v)| (*d as f64, *v))
                        .collect(),
                    tone: Tone::Blue,
                    dashed: false,
                    dots: true,
                },
                Mark::Line {
                    label: "no division".into(),
                    points: c
                        .d_k
                        .iter()
                        .zip(&c.without_division)
                        .map(|(d, v)| (*d as f64, *v))
                        .collect(),
                    tone: Tone::Coral,
                    dashed: true,
                    dots: true,
                },
                Mark::VRule {
                    label: "current dₖ".into(),
                    x: model.d_k.get() as f64,
                    tone: Tone::Muted,
                },
            ],
            legend_left: false,
        }
    });
    let caption = Signal::derive(move || {
        model
            .sweep
            .with(|c| sweep_caption(c, model.d_k.get(), model.alpha.get(), model.n.get()))
    });
    let summary = Signal::derive(move || {
        model.sweep.with(|c| {
            let last = c.d_k.len() - 1;
            format!(
                "Line chart on log axes: mean ‖J‖_F against dₖ from 1 to 1024. With division it ends at {}; without, at {}.",
                format_number(c.with_division[last], 3),
                format_number(c.without_division[last], 3)
            )
        })
    });
    let at_dk = move |with: bool| {
        Signal::derive(move || {
            let d = model.d_k.get();
            model.sweep.with(|c| {
                let i = c.d_k.iter().position(|&x| x == d).unwrap_or(0);
                if with {
                    c.with_division[i]
                } else {
                    c.without_division[i]
                }
            })
        })
    };
    let csv = Callback::new(move |_| model.sweep.with_untracked(sweep_csv));
    let controls = move || {
        if embedded {
            view! { <PassControls model=model with_divide=false instance="-sweep" /> }.into_any()
        } else {
            view! { <p class="control-note">"Tokens, α, seed and the marked dₖ follow the controls of the figure above."</p> }.into_any()
        }
    };
    view! {
        <Figure id="jacobian-vs-dk" title="Mean ‖J‖_F against dₖ: the collapse, measured" caption=caption summary=summary csv=csv
            controls=controls show_controls=show_controls>
            <Chart name="jacobian-vs-dk" spec=spec summary=summary aspect=0.55 max_width=640.0 />
            <div class="readouts">
                <Readout name="mean-with" label="mean ‖J‖_F at dₖ, ÷√dₖ" value=at_dk(true) />
                <Readout name="mean-without" label="mean ‖J‖_F at dₖ, no division" value=at_dk(false) />
            </div>
        </Figure>
    }
}

/// One Pass 1 figure alone (the embed view); `None` for another pass's figure id.
pub fn figure(id: &str, show_controls: bool) -> Option<AnyView> {
    let model = BackpropModel::new(use_url_state());
    match id {
        "jacobian" => {
            Some(view! { <JacobianFigure model=model show_controls=show_controls /> }.into_any())
        }
        "jacobian-vs-dk" => Some(
            view! { <JacobianVsDkFigure model=model show_controls=show_controls embedded=true /> }
                .into_any(),
        ),
        _ => None,
    }
}

/// Section `backprop`.
#[component]
pub fn BackpropSection() -> impl IntoView {
    let model = BackpropModel::new(use_url_state());
    view! {
        <section class="pass" id="backprop" aria-labelledby="backprop-title">
            <h2 id="backprop-title"><span class="pass-number">"Pass 1"</span>" Backprop: the softmax is the only door"</h2>
            <p>
                "Attention turns a query q and keys kⱼ into scores, the scores into probabilities p with a softmax, and mixes the values with p. "
                "When the loss asks W_Q or W_K to change, the request travels back along one road only: through the softmax. "
                "The chain rule makes that literal:"
            </p>
            <Formula markup=formulas::CHAIN_RULE />
            <p>"The middle factor is the softmax Jacobian. With the scores written out,"</p>
            <Formula markup=formulas::SCORES />
            <p>"differentiating pᵢ by every sⱼ gives a small, exact matrix:"</p>
            <Formula markup=formulas::JACOBIAN />
            <p>
                "Its diagonal holds pᵢ(1 − pᵢ) ≥ 0, the rest −pᵢ pⱼ ≤ 0. It is symmetric and positive semi-definite, each of its rows sums to zero (shifting every score by the same amount changes nothing), and its largest eigenvalue never exceeds ½. "
                "Its size has a closed form in p alone:"
            </p>
            <Formula markup=formulas::JACOBIAN_FROBENIUS />
            <p>
                "Push one score far above the others and the softmax saturates: p becomes one-hot, and every entry of J goes to zero with it. "
                "That is the sense in which the softmax is a door: when it saturates it is shut, and W_Q and W_K stop learning from this query."
            </p>
            <Formula markup=formulas::SATURATION />
            <JacobianFigure model=model />
            <h3 class="subhead">"Why divide by √dₖ"</h3>
            <p>
                "If the entries of q and k are independent with mean 0 and variance 1, each product qₘkₘ has variance 1 and the dₖ of them add up:"
            </p>
            <Formula markup=formulas::DOT_VARIANCE />
            <p>
                "So without the division the typical score grows like √dₖ: at dₖ = 1024 it is 32 times larger than at dₖ = 1, and the softmax is driven into saturation by the width of the model alone. "
                "Dividing by √dₖ keeps the scores at unit variance whatever dₖ is. Turn the division off above and raise dₖ to watch the heatmap fade; the figure below measures the same thing on average."
            </p>
            <JacobianVsDkFigure model=model />
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::softmax::jacobian_summary;

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

    #[test]
    fn sweep_caption_reports_the_collapse_from_the_curve() {
        let curve = DkSweepCurve {
            d_k: vec![1, 1024],
            with_division: vec![0.4, 0.38],
            without_division: vec![0.4, 0.01],
        };
        let c = sweep_caption(&curve, 1024, 1.0, 8);
        assert!(c.contains("40.0 times smaller"), "{c}");
    }
}
