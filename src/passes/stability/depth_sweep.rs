//! Figure `depth-sweep`: bottom-over-top ratio against depth for the four wirings.

use leptos::prelude::*;

use crate::state::registry::FigureId;

use super::controls::*;
use super::model::StabilityModel;
use super::schedule::sweep_hook::use_depth_sweep;
use crate::math::stability::{Wiring, MAX_DEPTH, SWEEP_DEPTHS};
use crate::widgets::format::number_or_f64_limit;
use crate::widgets::{Axis, Chart, ChartSpec, Figure, Mark, Readout, ReadoutRow, Tone};

/// The sweep's readout names, in the order of [`Wiring::SWEEP`].
pub const SWEEP_READOUTS: [&str; 4] = ["sweep-plain", "sweep-post", "sweep-pre", "sweep-residual"];

pub const SWEEP_TONES: [Tone; 4] = [Tone::Purple, Tone::Green, Tone::Gold, Tone::Fg];

/// The figure alone, as the embed view shows it (the registry's loaders call this).
pub fn alone(show_controls: bool) -> AnyView {
    view! { <DepthSweepFigure model=super::model::StabilityModel::new(crate::state::use_url_state()) show_controls=show_controls /> }.into_any()
}

/// Figure `depth-sweep`.
#[component]
pub fn DepthSweepFigure(
    model: StabilityModel,
    #[prop(default = true)] show_controls: bool,
) -> impl IntoView {
    let on_screen = RwSignal::new(false);
    let sweep = use_depth_sweep(model.shape, on_screen, model.bank);
    let spec = Memo::new(move |_| {
        sweep.result.with(|r| {
            let rows = r.as_ref().map(|s| s.rows.clone()).unwrap_or_default();
            let values: Vec<f64> = rows
                .iter()
                .flat_map(|(_, v)| v.iter().flatten().copied())
                .filter(|v| *v > 0.0)
                .collect();
            let lo = values.iter().copied().fold(1e-3, f64::min);
            let hi = values.iter().copied().fold(1e3, f64::max);
            let mut marks: Vec<Mark> = rows
                .iter()
                .zip(SWEEP_TONES)
                .enumerate()
                .map(|(i, ((w, v), tone))| Mark::Line {
                    label: w.label(),
                    points: SWEEP_DEPTHS
                        .iter()
                        .zip(v)
                        .filter_map(|(d, r)| r.filter(|r| *r > 0.0).map(|r| (*d as f64, r)))
                        .collect(),
                    tone,
                    // Every other wiring dashed: never told apart by colour alone.
                    dashed: i % 2 == 1,
                    dots: true,
                })
                .collect();
            marks.push(Mark::HRule {
                label: "10⁻³ (vanished)".into(),
                y: 1e-3,
                tone: Tone::Muted,
            });
            marks.push(Mark::HRule {
                label: "10³ (exploded)".into(),
                y: 1e3,
                tone: Tone::Muted,
            });
            ChartSpec {
                x: Axis {
                    label: "depth L".into(),
                    min: 1.0,
                    max: MAX_DEPTH as f64,
                    log: true,
                },
                y: Axis::log_decades("bottom / top gradient norm", lo, hi),
                marks,
            }
        })
    });
    let at_deepest = move |i: usize| {
        Signal::derive(move || {
            sweep.result.with(|r| {
                r.as_ref()
                    .and_then(|s| s.rows.get(i))
                    .and_then(|(_, v)| v.last().copied().flatten())
                    .unwrap_or(if r.is_some() { f64::INFINITY } else { f64::NAN })
            })
        })
    };
    let summary = Signal::derive(move || {
        sweep.result.with(|r| match r {
            None => "Computing the depth sweep…".to_string(),
            Some(s) => s
                .rows
                .iter()
                .map(|(w, v)| {
                    format!(
                        "{}: {} at depth 128",
                        w.label(),
                        number_or_f64_limit(v.last().copied().flatten().unwrap_or(f64::INFINITY))
                    )
                })
                .collect::<Vec<_>>()
                .join("; "),
        })
    });
    // The same sentence before the sweep has arrived, with "…" for its numbers, so that the
    // caption keeps its length (and the figure its height) while it computes.
    let caption = Signal::derive(move || {
        let progress = sweep.progress.get();
        sweep.result.with(|r| {
            let parts: Vec<String> = Wiring::SWEEP
                .iter()
                .map(|wiring| {
                    let ratios = r
                        .as_ref()
                        .and_then(|s| s.rows.iter().find(|(w, _)| w == wiring))
                        .map(|(_, v)| v.clone());
                    let at = |d: usize| match &ratios {
                        None => "…".to_string(),
                        Some(v) => {
                            let ratio = SWEEP_DEPTHS.iter().position(|x| *x == d).and_then(|i| v[i]);
                            number_or_f64_limit(ratio.unwrap_or(f64::INFINITY))
                        }
                    };
                    format!("{}: {} at L = 32, {} at L = 128", wiring.label(), at(32), at(128))
                })
                .collect();
            let status = match (r.is_some(), progress < 1.0) {
                (false, true) => format!(" (Computing the four wirings at eight depths… {}%.)", (progress * 100.0).round()),
                (false, false) => " (Computing the four wirings at eight depths…)".to_string(),
                (true, true) => format!(" (Recomputing for the new settings… {}%.)", (progress * 100.0).round()),
                (true, false) => String::new(),
            };
            format!("Bottom-to-top gradient ratio of real stacks (same seed, input and weights for every depth: a shallow stack is the first blocks of a deep one). {}.{status}", parts.join("; "))
        })
    });
    let csv = Callback::new(move |_| {
        sweep.result.with_untracked(|r| {
            let mut out =
                String::from("depth,no_residual_no_norm,post_norm,pre_norm,residual_no_norm\n");
            if let Some(s) = r {
                for (i, d) in SWEEP_DEPTHS.iter().enumerate() {
                    let cells: Vec<String> = s
                        .rows
                        .iter()
                        .map(|(_, v)| {
                            v[i].map(|x| x.to_string())
                                .unwrap_or_else(|| "overflow".into())
                        })
                        .collect();
                    out.push_str(&format!("{d},{}\n", cells.join(",")));
                }
            }
            out
        })
    });
    let controls = move || view! { <GainSlider model=model instance="-sweep" /> };
    let more = move || view! { <StackControls model=model instance="-sweep" with_gain=false /> };
    view! {
        <Figure id=FigureId::DepthSweep on_screen=on_screen caption=caption summary=summary csv=csv
            controls=controls more=more more_keys=&["sseed", "dmodel", "heads", "seq"] show_controls=show_controls>
            <Chart name="depth-sweep" spec=spec summary=summary aspect=0.55 />
            <ReadoutRow busy=move || { sweep.progress.get() < 1.0 }>
                {SWEEP_READOUTS.iter().enumerate().map(|(i, name)| {
                    let label = ["no residual, no norm (L = 128)", "post-norm (L = 128)", "pre-norm (L = 128)", "residual, no norm (L = 128)"][i];
                    view! { <Readout name=*name label=label value=at_deepest(i) format=number_or_f64_limit /> }
                }).collect_view()}
            </ReadoutRow>
        </Figure>
    }
}
