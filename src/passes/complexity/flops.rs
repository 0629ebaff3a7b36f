//! Figure `flops-vs-context`: attention's n²·d term against the projections' and the
//! MLP's n·d² terms per layer, and the context length where attention takes over.

use leptos::prelude::*;

use crate::state::registry::FigureId;

use super::controls::{ConfigProblem, ContextSlider, ModelSelect};
use super::model::*;
use crate::math::complexity::MAX_CONTEXT;
use crate::math::complexity::MIN_CONTEXT;
use crate::math::complexity::{attention_crossover, layer_flops};
use crate::widgets::format::format_number;
use crate::widgets::format::whole;
use crate::widgets::{Axis, Chart, ChartSpec, Figure, Mark, Readout, Tone};

/// The figure alone, as the embed view shows it (the registry's loaders call this).
pub fn alone(show_controls: bool) -> AnyView {
    view! { <FlopsFigure model=super::model::ComplexityModel::new(crate::state::use_url_state()) show_controls=show_controls /> }.into_any()
}

/// Figure `flops-vs-context`.
#[component]
pub fn FlopsFigure(
    model: ComplexityModel,
    #[prop(default = true)] show_controls: bool,
) -> impl IntoView {
    let crossover = Memo::new(move |_| {
        model
            .config
            .with(|c| c.as_ref().ok().map(attention_crossover))
    });
    let spec = Signal::derive(move || {
        let n = model.n.get();
        model.config.with(|c| {
            let x = Axis {
                label: "context n (tokens)".into(),
                min: MIN_CONTEXT as f64,
                max: MAX_CONTEXT as f64,
                log: true,
            };
            let Ok(cfg) = c else {
                return ChartSpec {
                    x,
                    y: Axis {
                        label: "FLOPs per layer".into(),
                        min: 1.0,
                        max: 1e12,
                        log: true,
                    },
                    marks: vec![],
                };
            };
            let grid = context_grid();
            let series = |f: fn(&crate::math::complexity::LayerFlops) -> f64| {
                grid.iter()
                    .map(|&m| (m as f64, f(&layer_flops(cfg, m))))
                    .collect::<Vec<_>>()
            };
            let (att, proj, mlp) = (
                series(|f| f.attention_scores),
                series(|f| f.projections),
                series(|f| f.mlp),
            );
            let lo = att
                .iter()
                .chain(&proj)
                .chain(&mlp)
                .map(|p| p.1)
                .fold(f64::MAX, f64::min);
            let hi = att
                .iter()
                .chain(&proj)
                .chain(&mlp)
                .map(|p| p.1)
                .fold(0.0, f64::max);
            let y = Axis {
                label: "FLOPs per layer".into(),
                min: 10f64.powf(lo.log10().floor()),
                max: 10f64.powf(hi.log10().ceil()),
                log: true,
            };
            let mut marks = vec![
                Mark::Line {
                    label: "attention scores + AV, n²".into(),
                    points: att,
                    tone: Tone::Coral,
                    dashed: false,
                    dots: false,
                },
                Mark::Line {
                    label: "Q, K, V, O projections, n".into(),
                    points: proj,
                    tone: Tone::Muted,
                    dashed: false,
                    dots: false,
                },
                Mark::Line {
                    label: "MLP, n".into(),
                    points: mlp,
                    tone: Tone::Green,
                    dashed: true,
                    dots: false,
                },
                Mark::VRule {
                    label: "chosen n".into(),
                    x: n as f64,
                    tone: Tone::Fg,
                },
            ];
            let star = attention_crossover(cfg);
            marks.push(Mark::VRule {
                label: "crossover n*".into(),
                x: star,
                tone: Tone::Muted,
            });
            ChartSpec { x, y, marks }
        })
    });
    let share = Memo::new(move |_| {
        let n = model.n.get();
        model.config.with(|c| {
            c.as_ref().ok().map(|cfg| {
                let f = layer_flops(cfg, n);
                f.attention_scores / (f.attention_scores + f.projections + f.mlp)
            })
        })
    });
    let caption = Signal::derive(move || {
        match (crossover.get(), share.get()) {
        (Some(star), Some(s)) => format!(
            "Per layer, the n² term (QKᵀ and the weighted sum of V) overtakes the projections and the MLP together at n* = {} tokens. At n = {}, attention's n² term is {}% of the layer's forward FLOPs{}.",
            star.round() as u64,
            model.n.get(),
            format_number(100.0 * s, 3),
            if (model.n.get() as f64) < star { ", so the model is still dominated by its matrix multiplications over d" } else { ": past the crossover, context length sets the cost" }
        ),
        _ => "No figure: the custom configuration is invalid.".to_string(),
    }
    });
    let summary = Signal::derive(move || {
        format!(
            "Log-log chart of FLOPs per layer against context, marked at n = {}; crossover at {} tokens.",
            model.n.get(),
            crossover
                .get()
                .map(|c| (c.round() as u64).to_string())
                .unwrap_or_else(|| "—".into())
        )
    });
    let csv = Callback::new(move |_| {
        model.config.with_untracked(|c| match c {
            Ok(cfg) => {
                let mut out = String::from("n,attention_scores_flops,projection_flops,mlp_flops\n");
                for m in context_grid() {
                    let f = layer_flops(cfg, m);
                    out.push_str(&format!(
                        "{m},{},{},{}\n",
                        f.attention_scores, f.projections, f.mlp
                    ));
                }
                out
            }
            Err(e) => format!("error\n\"{e}\"\n"),
        })
    });
    view! {
        <Figure id=FigureId::FlopsVsContext caption=caption summary=summary csv=csv
            controls=move || view! { <ContextSlider model=model instance="-flops" /> }
            more=move || view! { <ModelSelect model=model instance="-flops" /> }
            more_keys=&["model", "cl", "cd", "ch", "ckv", "cdh", "cff", "cmlp", "cv", "cwin"] show_controls=show_controls>
            <ConfigProblem model=model />
            <Chart name="flops-vs-context" spec=spec summary=summary aspect=0.55 />
            <Show when=move || crossover.get().is_some()>
                <div class="readouts">
                    <Readout name="crossover-n" label="crossover n*" unit="tokens" value=Signal::derive(move || crossover.get().unwrap_or(0.0)) format=whole />
                    <Readout name="attention-share" label="n² share at n" value=Signal::derive(move || share.get().unwrap_or(0.0)) />
                </div>
            </Show>
        </Figure>
    }
}
