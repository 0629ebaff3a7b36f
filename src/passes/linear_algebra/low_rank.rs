//! Figure `low-rank-target`: a target attention pattern beside its best rank-k
//! approximation (truncated SVD, Eckart–Young) and the error curve as k moves.

use leptos::prelude::*;

use crate::state::registry::FigureId;
use nalgebra::DMatrix;

use super::controls::*;
use super::grids::*;
use super::model::*;
use crate::math::rank::numerical_rank;
use crate::state::choices::TARGETS;
use crate::widgets::format::pending_four_digits;
use crate::widgets::format::{format_number, pending_or, whole};
use crate::widgets::{
    Axis, Chart, ChartSpec, ColorBar, Figure, Grid, Heatmap, Mark, Readout, ReadoutRow, Scale,
    Select, Slider, Tone,
};

/// The figure alone, as the embed view shows it (the registry's loaders call this).
pub fn alone(show_controls: bool) -> AnyView {
    view! { <LowRankFigure model=super::model::LinearAlgebraModel::new(crate::state::use_url_state()) show_controls=show_controls /> }.into_any()
}

/// Figure `low-rank-target`.
#[component]
pub fn LowRankFigure(
    model: LinearAlgebraModel,
    #[prop(default = true)] show_controls: bool,
) -> impl IntoView {
    let target_grid = Memo::new(move |_| model.target.with(Grid::from_matrix));
    let approx_grid = Memo::new(move |_| model.approx.with(Grid::from_matrix));
    // NaN ("…") until the first decomposition has arrived (the figure computes on screen).
    let error = Signal::derive(move || {
        model
            .errors
            .with(|e| e.get(model.k.get()).copied().unwrap_or(f64::NAN))
    });
    let pending = move || model.errors.with(|e| e.is_empty());
    let target_id = model.state.choice("target");
    let target_label = move || TARGETS.label_of(target_id.get());
    let describe = |which: Memo<DMatrix<f64>>, label: &'static str| {
        Callback::new(move |(i, j): (usize, usize)| {
            which.with_untracked(|m| {
                if i < m.nrows() && j < m.ncols() {
                    format!(
                        "row {i}, column {j}: {label} = {}",
                        format_number(m[(i, j)], 4)
                    )
                } else {
                    String::new()
                }
            })
        })
    };
    let summary = Signal::derive(move || {
        format!(
            "The {} target ({n}×{n}) beside its best rank-{} approximation; relative error {}.",
            target_label(),
            model.k.get(),
            pending_or(error.get(), 3),
            n = model.n.get()
        )
    });
    let approx_summary = Signal::derive(move || {
        format!(
            "Best rank-{} approximation of the target, relative error {}.",
            model.k.get(),
            pending_or(error.get(), 3)
        )
    });
    let curve = Signal::derive(move || {
        model.errors.with(|e| ChartSpec {
            x: Axis {
                label: "rank k".into(),
                min: 0.0,
                // Before the first decomposition: the axis the answer will have (k = 0…n).
                max: if e.is_empty() {
                    model.n.get().max(1)
                } else {
                    e.len().max(2) - 1
                } as f64,
                log: false,
            },
            y: Axis {
                label: "‖T − Tₖ‖ / ‖T‖ (Frobenius)".into(),
                min: 0.0,
                max: 1.0,
                log: false,
            },
            marks: vec![
                Mark::Line {
                    label: "relative error".into(),
                    points: e.iter().enumerate().map(|(k, v)| (k as f64, *v)).collect(),
                    tone: Tone::Green,
                    dashed: false,
                    dots: e.len() <= 65,
                },
                Mark::VRule {
                    label: format!("k = {}", model.k.get()),
                    x: model.k.get() as f64,
                    tone: Tone::Fg,
                },
            ],
        })
    });
    let caption = Signal::derive(move || {
        let n = model.n.get();
        let k = model.k.get();
        if pending() {
            return format!(
                "The {} pattern on n = {n} tokens: computing its singular values and best rank-{k} approximation…",
                target_label()
            );
        }
        let rank = model.shown_answer.with(|a| numerical_rank(&a.sigma, n, n));
        let exact = model.errors.with(|e| e.iter().position(|v| *v <= 1e-12));
        let exact_text = match exact {
            Some(r) if r <= k => {
                format!("From k = {r} on the approximation is exact (the target has rank {rank}).")
            }
            Some(r) => {
                format!("The target has rank {rank}: it takes k = {r} to reproduce it exactly.")
            }
            None => format!("The target has rank {rank}."),
        };
        format!(
            "The {} pattern on n = {n} tokens. Its best rank-{k} approximation (truncated SVD) leaves a relative error of {}: the square root of the sum of σᵢ² over i > k, divided by the Frobenius norm of T. {exact_text} A single head with dₖ = {k} cannot do better than this on the scores it must produce.",
            target_label(),
            format_number(error.get(), 4)
        )
    });
    let csv = Callback::new(move |_| {
        model.shown_answer.with_untracked(|svd| {
            model.errors.with_untracked(|e| {
                let mut out = String::from("k,relative_error,sigma_k\n");
                for (k, err) in e.iter().enumerate() {
                    let sigma = match k {
                        0 => String::new(),
                        _ => svd
                            .sigma
                            .get(k - 1)
                            .map(|s| s.to_string())
                            .unwrap_or_default(),
                    };
                    out.push_str(&format!("{k},{err},{sigma}\n"));
                }
                out
            })
        })
    });
    let controls = move || {
        let (target, set_target) = model.state.choice_control("target");
        let (_, set_k) = model.state.int_control("rk");
        view! {
            <Select key="target" label="Target pattern" options=&TARGETS value=target on_change=set_target />
            <Slider key="rk" label="Rank k" value=Signal::derive(move || model.k.get() as f64)
                on_change=Callback::new(move |v: f64| set_k.run(v.round() as i64))
                scale=Signal::derive(move || Scale::Linear { min: 1.0, max: model.n.get() as f64, step: 1.0 }) format=whole />
        }
    };
    let more = move || view! { <TokensSlider model=model instance="-low-rank" /> {seed_field(model, "-low-rank")} };
    view! {
        <Figure id=FigureId::LowRankTarget on_screen=model.target_on_screen caption=caption summary=summary csv=csv
            controls=controls more=more more_keys=&["rn", "rseed"] show_controls=show_controls>
            <div class="pair-layout">
                <div class="pair-item">
                    <p class="panel-label">"Target T"</p>
                    <Heatmap name="target" grid=target_grid scale=TARGET_SCALE describe=describe(model.target, "T") summary=summary max_width=300.0 />
                </div>
                <div class="pair-item">
                    <p class="panel-label">{move || format!("Best rank-{} approximation Tₖ", model.k.get())}</p>
                    <Heatmap name="approximation" grid=approx_grid scale=TARGET_SCALE describe=describe(model.approx, "Tₖ") summary=approx_summary max_width=300.0 />
                </div>
            </div>
            <ColorBar scale=TARGET_SCALE label="entries (same scale for both)" />
            <Chart name="rank-error" spec=curve summary=Signal::derive(move || format!("Relative error against k; {} at the marked k.", pending_or(error.get(), 3))) aspect=0.45 />
            <ReadoutRow busy=move || { (model.target_answer.with(|a| a.is_none()) && model.target_on_screen.get()) || model.target_in_flight.get() }>
                <Readout name="rel-error" label="relative error at k" value=error format=pending_four_digits />
            </ReadoutRow>
        </Figure>
    }
}
