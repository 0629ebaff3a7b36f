//! Figure `gradient-flow`: the gradient norm reaching each layer of a real stack, as a
//! lit/dark strip and as a curve beside the toy chain.

use leptos::prelude::*;

use crate::state::registry::FigureId;

use super::controls::*;
use super::draw::*;
use super::model::StabilityModel;
use super::schedule::profile_hook::{source_of, use_gradient_profile};
use super::sentences::*;
use super::steps::ASKS;
use crate::math::stability::{bottom_to_top, verdict_of};
use crate::passes::lazy::LazySteps;
use crate::state::choices::GRADIENTS;
use crate::widgets::format::number_or_f64_limit;
use crate::widgets::format::three_digits;
use crate::widgets::format::{format_number, pending_whole, subscript};
use crate::widgets::{
    Chart, ColorBar, Figure, Heatmap, LinkSignal, LinkedFormula, Readout, ReadoutRow, Scale,
    Select, Slider, Tone,
};

/// Layer `l` of a profile of gradient norms (layer 0 at the bottom) written as the top's
/// norm times the product of the per-block factors down to it:
/// ‖gₗ‖ = ‖g_top‖ × ∏ₖ ‖gₖ‖/‖gₖ₊₁‖, with the range those factors take.
pub fn layer_formula(norms: &[f64], l: usize) -> Option<String> {
    let top = norms.len().checked_sub(1)?;
    let g = *norms.get(l)?;
    let n = |x: f64| format_number(x, 3);
    if l == top {
        return Some(format!(
            "Layer {l}, the top: ‖g{}‖ = {}, where backpropagation starts.",
            subscript(l),
            n(g)
        ));
    }
    let factors: Vec<f64> = (l..top).map(|k| norms[k] / norms[k + 1]).collect();
    let lo = factors.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = factors.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    Some(format!(
        "Layer {l}: ‖g{}‖ = {} = ‖g{}‖ × ∏ of {} per-block factors = {} × {} (each factor between {} and {}).",
        subscript(l),
        n(g),
        subscript(top),
        top - l,
        n(norms[top]),
        n(g / norms[top]),
        n(lo),
        n(hi)
    ))
}

/// The figure alone, as the embed view shows it (the registry's loaders call this).
pub fn alone(show_controls: bool) -> AnyView {
    view! { <GradientFlowFigure model=super::model::StabilityModel::new(crate::state::use_url_state()) show_controls=show_controls /> }.into_any()
}

/// Figure `gradient-flow`.
#[component]
pub fn GradientFlowFigure(
    model: StabilityModel,
    #[prop(default = true)] show_controls: bool,
) -> impl IntoView {
    let on_screen = RwSignal::new(false);
    let run = use_gradient_profile(model.shape, model.depth, on_screen, model);
    let norms = Memo::new(move |_| {
        run.result
            .with(|r| {
                r.as_ref()
                    .map(|(_, p)| shown_norms(p, model.weights.get()).to_vec())
            })
            .unwrap_or_default()
    });
    let grid = Memo::new(move |_| norms.with(|n| strip_grid(n)));
    let ratio = Signal::derive(move || norms.with(|n| ratio_or_pending(n)));
    // Linked: the block's factor in the formula (lights the residual switch and the
    // strip), or a layer of the strip (fills the formula in down to it).
    let linked: LinkSignal = RwSignal::new(None);
    let layer = RwSignal::new(None::<usize>);
    let on_cell = Callback::new(move |cell: Option<(usize, usize)>| {
        layer.set(cell.map(|(_, l)| l));
        let residual = model.shape.with_untracked(|s| s.wiring.residual);
        linked.set(cell.map(|_| if residual { "identity" } else { "block" }));
    });
    let live = Signal::derive(move || {
        norms.with(|n| match layer.get().and_then(|l| layer_formula(n, l)) {
            Some(text) => text,
            None if n.is_empty() => "The stack is still being computed.".to_string(),
            None => format!(
                "Backpropagation multiplies one factor per block, {} here, {} times: bottom over top = {}. Point at a layer of the strip to see the product down to it.",
                if model.shape.with(|s| s.wiring.residual) { "I + F′(x)" } else { "F′(x)" },
                n.len().saturating_sub(1),
                number_or_f64_limit(ratio.get())
            ),
        })
    });
    let which = move || {
        if model.weights.get() {
            "weight"
        } else {
            "input"
        }
    };
    // What the strip and the curve say: `shown` once a profile is there, the same
    // waiting sentence for both until then.
    let described = move |shown: fn(&str, usize, String) -> String| {
        Signal::derive(move || {
            if norms.with(Vec::is_empty) {
                return format!(
                    "The stack of {} blocks is still being computed.",
                    model.depth.get()
                );
            }
            shown(
                which(),
                norms.with(Vec::len),
                number_or_f64_limit(ratio.get()),
            )
        })
    };
    let summary = described(|which, layers, ratio| {
        format!("Strip of {layers} layers coloured by log₁₀ of the {which} gradient norm; bottom over top = {ratio}.")
    });
    let curve_summary = described(|which, layers, ratio| {
        format!("Curve of the {which} gradient norm at each of {layers} layers, on a log scale; bottom over top = {ratio}.")
    });
    // A memo: the chart redraws only when what it draws changes, not on every input.
    let spec = Memo::new(move |_| {
        norms.with(|n| {
            let label = model.shape.with(|s| s.wiring.label());
            profile_chart(
                &[(label, n.as_slice(), Tone::Green)],
                Some(model.rho.get()),
                || model.depth.get(),
            )
        })
    });
    // Before the profile arrives, the caption already says everything it can (the stack,
    // the toy chain) and what is being computed, so that it keeps about its length and
    // the figure its height.
    let caption = Signal::derive(move || {
        let (depth, verdict) = run.result.with(|r| match r {
            None => (
                model.depth.get(),
                "Computing how the gradient fares between the top of this stack and its layer 0, block by block…".to_string(),
            ),
            Some((depth, p)) => {
                let n = shown_norms(p, model.weights.get());
                let overflow = p.first_backward_overflow().or(p.forward_overflow);
                (*depth, verdict_sentence(verdict_of(bottom_to_top(n)), *depth, overflow))
            }
        });
        let toy = model.rho.get().powi(depth as i32 - 1);
        model.shape.with(|s| {
            format!(
                "A real stack of {depth} blocks ({}; d_model {}, {} heads, {} tokens, gain {}), forward and backward in f64. {verdict} The toy chain with ρ = {} would give ρ^(L−1) = {} between the same layers.",
                s.wiring.label(),
                s.d_model,
                s.heads,
                s.seq_len,
                format_number(s.gain, 3),
                format_number(model.rho.get(), 2),
                format_number(toy, 3)
            )
        })
    });
    let verdict = Signal::derive(move || {
        run.result.with(|r| match r {
            None => "The stack is still being computed.".to_string(),
            Some((depth, p)) => {
                let n = shown_norms(p, model.weights.get());
                let overflow = p.first_backward_overflow().or(p.forward_overflow);
                verdict_sentence(verdict_of(bottom_to_top(n)), *depth, overflow)
            }
        })
    });
    let csv = Callback::new(move |_| {
        run.result
            .with_untracked(|r| r.as_ref().map(|(_, p)| profile_csv(p)).unwrap_or_default())
    });
    let controls = move || {
        view! {
            <DepthSlider model=model instance="" />
            <ResidualToggle model=model key="res" instance="" />
        }
    };
    let more = move || {
        let (grad, set_grad) = model.state.choice_control("grad");
        let (_, set_rho) = model.state.float_control("rho");
        view! {
            <NormSelect model=model key="norm" instance="" />
            <Select key="grad" label="Gradient shown" options=&GRADIENTS value=grad on_change=set_grad />
            <Slider key="rho" label="Toy factor ρ" value=model.rho on_change=set_rho
                scale={const { Scale::linear_of("rho", 0.05) }} format=three_digits />
            <StackControls model=model instance="" />
            {heads_note(model)}
        }
    };
    view! {
        <Figure id=FigureId::GradientFlow linked=linked on_screen=on_screen verdict=verdict caption=caption summary=summary csv=csv
            controls=controls more=more more_keys=&["norm", "grad", "rho", "gain", "sseed", "dmodel", "heads", "seq"] show_controls=show_controls>
            <p class="panel-label">"Layer 0 (bottom, left) to layer L − 1 (top, right)"</p>
            <div class="strip">
                <Heatmap name="gradient-strip" grid=grid scale=STRIP_SCALE describe=describe_layer(run.result, model.weights) summary=summary max_width=1200.0 height=40.0 on_cell=on_cell />
            </div>
            <ColorBar scale=STRIP_SCALE label="log₁₀ of the gradient norm (dark = vanished; empty = overflow)" />
            <LinkedFormula linked=linked terms=&["identity", "block"] live=live>
                <p class="term-line">"Each block multiplies the gradient on its way down by "
                    <span class="term" data-term="identity" tabindex="0" role="button"
                        aria-label="the residual block's factor I + F′(x): lights the residual switch and the strip">"I + F′(x)"</span>
                    " with the residual (the identity path), by "
                    <span class="term" data-term="block" tabindex="0" role="button"
                        aria-label="the plain block's factor F′(x): lights the residual switch and the strip">"F′(x)"</span>
                    " alone without it."
                </p>
            </LinkedFormula>
            <Chart name="gradient-curve" spec=spec summary=curve_summary aspect=0.45 />
            <ReadoutRow busy=move || run.busy.get() source=move || source_of(&[run])>
                <Readout name="grad-ratio" label="bottom / top" value=ratio format=number_or_f64_limit />
                <Readout name="depth" label="depth L" value=Signal::derive(move || run.result.with(|r| r.as_ref().map_or(f64::NAN, |(d, _)| *d as f64))) format=pending_whole />
                <Readout name="bottom-norm" label="‖grad‖ at layer 0" value=Signal::derive(move || norms.with(|n| n.first().copied().unwrap_or(f64::NAN))) format=number_or_f64_limit />
                <Readout name="top-norm" label="‖grad‖ at the top" value=Signal::derive(move || norms.with(|n| n.last().copied().unwrap_or(f64::NAN))) format=number_or_f64_limit />
            </ReadoutRow>
            {show_controls.then(|| view! { <LazySteps id=FigureId::GradientFlow asks=&ASKS /> })}
        </Figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_layer_is_the_top_times_the_factors_down_to_it() {
        let norms = [0.5, 1.0, 4.0];
        assert_eq!(
            layer_formula(&norms, 0).as_deref(),
            Some("Layer 0: ‖g₀‖ = 0.500 = ‖g₂‖ × ∏ of 2 per-block factors = 4.00 × 0.125 (each factor between 0.250 and 0.500).")
        );
        assert_eq!(
            layer_formula(&norms, 2).as_deref(),
            Some("Layer 2, the top: ‖g₂‖ = 4.00, where backpropagation starts.")
        );
        assert_eq!(layer_formula(&norms, 3), None);
        assert_eq!(layer_formula(&[], 0), None);
    }
}
