//! Figure `jacobian-vs-dk`: mean ‖J‖_F against dₖ, with and without the division by
//! √dₖ — the collapse, measured.

use leptos::prelude::*;

use crate::state::registry::FigureId;

use super::controls::{MoreControls, PrimaryControls};
use super::model::BackpropModel;
use crate::math::backprop::{DkSweepCurve, MAX_DK};
use crate::widgets::format::format_number;
use crate::widgets::{Axis, Chart, ChartSpec, Figure, Mark, Readout, Tone};

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

pub fn sweep_csv(curve: &DkSweepCurve) -> String {
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

/// The figure alone, as the embed view shows it (the registry's loaders call this).
pub fn alone(show_controls: bool) -> AnyView {
    view! { <JacobianVsDkFigure model=super::model::BackpropModel::new(crate::state::use_url_state()) show_controls=show_controls embedded=true /> }.into_any()
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
                    tone: Tone::Green,
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
                    tone: Tone::Gold,
                    dashed: true,
                    dots: true,
                },
                Mark::VRule {
                    label: "current dₖ".into(),
                    x: model.d_k.get() as f64,
                    tone: Tone::Muted,
                },
                // The reader's setting: on the curve ÷√dₖ picks, at the current dₖ.
                Mark::Line {
                    label: "your setting".into(),
                    points: c
                        .d_k
                        .iter()
                        .position(|&x| x == model.d_k.get())
                        .map(|i| {
                            let v = if model.divide.get() {
                                c.with_division[i]
                            } else {
                                c.without_division[i]
                            };
                            vec![(c.d_k[i] as f64, v)]
                        })
                        .unwrap_or_default(),
                    tone: Tone::Fg,
                    dashed: false,
                    dots: true,
                },
            ],
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
    // ÷√dₖ leads: it picks the curve the reader's setting is on. In the page the other
    // settings are the figure above's; alone (embedded) the figure has its own.
    let controls = move || {
        view! {
            <PrimaryControls model=model with_alpha=false instance="-sweep" />
            {(!embedded).then(|| view! {
                <p class="control-note">"Tokens, α, seed and the marked dₖ follow the controls of the figure above."</p>
            })}
        }
    };
    // Empty (and so not shown) in the page.
    let more = move || {
        embedded.then(|| view! { <MoreControls model=model with_alpha=true instance="-sweep" /> })
    };
    let more_keys: &'static [&'static str] = if embedded {
        &["n", "dk", "alpha", "seed"]
    } else {
        &[]
    };
    view! {
        <Figure id=FigureId::JacobianVsDk caption=caption summary=summary csv=csv
            controls=controls more=more more_keys=more_keys show_controls=show_controls>
            <Chart name="jacobian-vs-dk" spec=spec summary=summary aspect=0.55 />
            <div class="readouts">
                <Readout name="mean-with" label="mean ‖J‖_F at dₖ, ÷√dₖ" value=at_dk(true) />
                <Readout name="mean-without" label="mean ‖J‖_F at dₖ, no division" value=at_dk(false) />
            </div>
        </Figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
