//! Figure `gradient-ab`: two wirings of the same stack side by side.

use leptos::prelude::*;

use crate::state::registry::FigureId;

use super::controls::*;
use super::draw::*;
use super::model::StabilityModel;
use super::schedule::profile_hook::{source_of, use_gradient_profile, AsyncProfile};
use super::sentences::*;
use crate::math::stability::{bottom_to_top, verdict_of};
use crate::state::choices::GRADIENTS;
use crate::widgets::format::number_or_f64_limit;
use crate::widgets::{Chart, Figure, Heatmap, Readout, ReadoutRow, Select, Tone};

/// The figure alone, as the embed view shows it (the registry's loaders call this).
pub fn alone(show_controls: bool) -> AnyView {
    view! { <GradientAbFigure model=super::model::StabilityModel::new(crate::state::use_url_state()) show_controls=show_controls /> }.into_any()
}

/// Figure `gradient-ab`.
#[component]
pub fn GradientAbFigure(
    model: StabilityModel,
    #[prop(default = true)] show_controls: bool,
) -> impl IntoView {
    let on_screen = RwSignal::new(false);
    let run_a = use_gradient_profile(model.shape_a, model.depth, on_screen, model);
    let run_b = use_gradient_profile(model.shape_b, model.depth, on_screen, model);
    let norms = move |run: AsyncProfile| {
        Memo::new(move |_| {
            run.result
                .with(|r| {
                    r.as_ref()
                        .map(|(_, p)| shown_norms(p, model.weights.get()).to_vec())
                })
                .unwrap_or_default()
        })
    };
    let (na, nb) = (norms(run_a), norms(run_b));
    let (ga, gb) = (
        Memo::new(move |_| na.with(|n| strip_grid(n))),
        Memo::new(move |_| nb.with(|n| strip_grid(n))),
    );
    let ratio = move |n: Memo<Vec<f64>>| Signal::derive(move || n.with(|n| ratio_or_pending(n)));
    let (ra, rb) = (ratio(na), ratio(nb));
    let (label_a, label_b) = (
        Signal::derive(move || model.shape_a.with(|s| s.wiring.label())),
        Signal::derive(move || model.shape_b.with(|s| s.wiring.label())),
    );
    let spec = Memo::new(move |_| {
        na.with(|a| {
            nb.with(|b| {
                profile_chart(
                    &[
                        (format!("A: {}", label_a.get()), a.as_slice(), Tone::Purple),
                        (format!("B: {}", label_b.get()), b.as_slice(), Tone::Green),
                    ],
                    None,
                    || model.depth.get(),
                )
            })
        })
    });
    let summary = Signal::derive(move || {
        format!(
            "A ({}) bottom over top {}; B ({}) {}.",
            label_a.get(),
            number_or_f64_limit(ra.get()),
            label_b.get(),
            number_or_f64_limit(rb.get())
        )
    });
    // Each stack's sentence, or what is being computed while it is (about as long).
    let caption = Signal::derive(move || {
        let depth = model.depth.get();
        let sentence = |run: AsyncProfile, n: Memo<Vec<f64>>| {
            if run.result.with(Option::is_none) {
                return "computing how its gradient fares from the top to layer 0, block by block…"
                    .to_string();
            }
            n.with(|n| verdict_sentence(verdict_of(bottom_to_top(n)), depth, None))
        };
        format!(
            "The same seed, input and depth L = {depth}, wired two ways. A, {}: {} B, {}: {}",
            label_a.get(),
            sentence(run_a, na),
            label_b.get(),
            sentence(run_b, nb)
        )
    });
    let csv = Callback::new(move |_| {
        let col = |run: AsyncProfile| {
            run.result
                .with_untracked(|r| r.as_ref().map(|(_, p)| p.clone()))
        };
        match (col(run_a), col(run_b)) {
            (Some(a), Some(b)) => {
                let mut out = String::from("layer,a_input_grad_norm,a_weight_grad_norm,b_input_grad_norm,b_weight_grad_norm\n");
                for l in 0..a.input_grad_norm.len().min(b.input_grad_norm.len()) {
                    out.push_str(&format!(
                        "{l},{},{},{},{}\n",
                        a.input_grad_norm[l],
                        a.weight_grad_norm[l],
                        b.input_grad_norm[l],
                        b.weight_grad_norm[l]
                    ));
                }
                out
            }
            _ => String::new(),
        }
    });
    let controls = move || view! { <DepthSlider model=model instance="-ab" /> };
    let more = move || {
        let (grad, set_grad) = model.state.choice_control("grad");
        view! {
            <WiringControls model=model res="ares" norm="anorm" label="A" instance="-a" />
            <WiringControls model=model res="bres" norm="bnorm" label="B" instance="-b" />
            <Select key="grad" label="Gradient shown" instance="-ab" options=&GRADIENTS value=grad on_change=set_grad />
        }
    };
    view! {
        <Figure id=FigureId::GradientAb on_screen=on_screen caption=caption summary=summary csv=csv
            controls=controls more=more more_keys=&["ares", "anorm", "bres", "bnorm", "grad"] show_controls=show_controls>
            <p class="panel-label">{move || format!("A: {}", label_a.get())}</p>
            <div class="strip">
                <Heatmap name="strip-a" grid=ga scale=STRIP_SCALE describe=describe_layer(run_a.result, model.weights) summary=Signal::derive(move || format!("Strip A, bottom over top {}.", number_or_f64_limit(ra.get()))) max_width=1200.0 height=32.0 />
            </div>
            <p class="panel-label">{move || format!("B: {}", label_b.get())}</p>
            <div class="strip">
                <Heatmap name="strip-b" grid=gb scale=STRIP_SCALE describe=describe_layer(run_b.result, model.weights) summary=Signal::derive(move || format!("Strip B, bottom over top {}.", number_or_f64_limit(rb.get()))) max_width=1200.0 height=32.0 />
            </div>
            <Chart name="gradient-ab-curve" spec=spec summary=summary aspect=0.45 />
            <ReadoutRow busy=move || { run_a.busy.get() || run_b.busy.get() } source=move || source_of(&[run_a, run_b])>
                <Readout name="grad-ratio-a" label="A: bottom / top" value=ra format=number_or_f64_limit />
                <Readout name="grad-ratio-b" label="B: bottom / top" value=rb format=number_or_f64_limit />
            </ReadoutRow>
        </Figure>
    }
}
