//! Figure `lora`: the parameter count of a rank-r update against the full one, for real
//! matrix sizes, beside a live low-rank example.

use leptos::prelude::*;

use crate::state::registry::FigureId;

use crate::state::int_range;

use super::model::*;
use crate::math::rank::{full_update_params, lora_params, LORA_EXAMPLE_SIZE};
use crate::state::choices::{DTYPES, LORA_SHAPES};
use crate::widgets::format::grouped_whole;
use crate::widgets::format::times_larger;
use crate::widgets::format::two_digits;
use crate::widgets::format::{format_bytes, format_number, whole};
use crate::widgets::{
    Axis, Chart, ChartSpec, Figure, Mark, NumberField, Readout, Scale, Select, Slider, Tone,
};

/// The figure alone, as the embed view shows it (the registry's loaders call this).
pub fn alone(show_controls: bool) -> AnyView {
    view! { <LoraFigure model=super::model::LinearAlgebraModel::new(crate::state::use_url_state()) show_controls=show_controls /> }.into_any()
}

/// Figure `lora`.
#[component]
pub fn LoraFigure(
    model: LinearAlgebraModel,
    #[prop(default = true)] show_controls: bool,
) -> impl IntoView {
    let full = Signal::derive(move || {
        let (o, i) = model.lora_shape.get();
        full_update_params(o, i)
    });
    let lora = Signal::derive(move || {
        let (o, i) = model.lora_shape.get();
        lora_params(o, i, model.lora_r.get())
    });
    let ratio = Signal::derive(move || full.get() / lora.get().max(1.0));
    let example_r = move || (model.lora_r.get() as usize).min(LORA_EXAMPLE_SIZE);
    let example_error = Signal::derive(move || {
        model
            .lora_errors
            .with(|e| e.get(example_r()).copied().unwrap_or(0.0))
    });
    let curve = Signal::derive(move || {
        model.lora_errors.with(|e| ChartSpec {
            x: Axis {
                label: "rank r".into(),
                min: 0.0,
                max: LORA_EXAMPLE_SIZE as f64,
                log: false,
            },
            y: Axis {
                label: "relative error of the best rank-r ΔW".into(),
                min: 0.0,
                max: 1.0,
                log: false,
            },
            marks: vec![
                Mark::Line {
                    label: "‖ΔW − ΔWᵣ‖ / ‖ΔW‖ (Frobenius)".into(),
                    points: e.iter().enumerate().map(|(r, v)| (r as f64, *v)).collect(),
                    tone: Tone::Green,
                    dashed: false,
                    dots: false,
                },
                Mark::VRule {
                    label: format!("r = {}", example_r()),
                    x: example_r() as f64,
                    tone: Tone::Fg,
                },
            ],
        })
    });
    let summary = Signal::derive(move || {
        let (o, i) = model.lora_shape.get();
        format!(
            "{o} × {i} at rank {}: {} parameters instead of {}, {} times fewer.",
            model.lora_r.get(),
            grouped_whole(lora.get()),
            grouped_whole(full.get()),
            format_number(ratio.get(), 4)
        )
    });
    let caption = Signal::derive(move || {
        let (o, i) = model.lora_shape.get();
        let e = model.lora_bytes.get();
        let r = model.lora_r.get();
        let clip = if r as usize > LORA_EXAMPLE_SIZE {
            format!(" (the example is {LORA_EXAMPLE_SIZE} × {LORA_EXAMPLE_SIZE}, so its r stops at {LORA_EXAMPLE_SIZE})")
        } else {
            String::new()
        };
        let over = if lora.get() >= full.get() {
            " At this rank LoRA saves nothing: r(d_in + d_out) ≥ d_out·d_in."
        } else {
            ""
        };
        format!(
            "A {o} × {i} weight: a full update ΔW has {} parameters ({}); LoRA's B ({o} × {r}) and A ({r} × {i}) have {} ({}), {} times fewer.{over} The example on the right is a random {LORA_EXAMPLE_SIZE} × {LORA_EXAMPLE_SIZE} update whose i-th singular value falls off as one over i to the power of the decay: its best rank-{} approximation keeps all but {} of it{clip}, which is how much a rank-r update of that shape could not express.",
            grouped_whole(full.get()),
            format_bytes(full.get() * e),
            grouped_whole(lora.get()),
            format_bytes(lora.get() * e),
            format_number(ratio.get(), 4),
            example_r(),
            format_number(example_error.get(), 3)
        )
    });
    let csv = Callback::new(move |_| {
        model.lora_errors.with_untracked(|e| {
            let mut out = String::from("r,relative_error\n");
            for (r, v) in e.iter().enumerate() {
                out.push_str(&format!("{r},{v}\n"));
            }
            out
        })
    });
    let controls = move || {
        let (_, set_r) = model.state.int_control("lr");
        view! {
            <Slider key="lr" label="Rank r" value=Signal::derive(move || model.lora_r.get() as f64)
                on_change=Callback::new(move |v: f64| set_r.run(v.round() as i64))
                scale={const { Scale::linear_of("lr", 1.0) }} format=whole />
        }
    };
    let more = move || {
        let (shape, set_shape) = model.state.choice_control("lshape");
        let (lout, set_lout) = model.state.int_control("lout");
        let (lin, set_lin) = model.state.int_control("lin");
        let (dtype, set_dtype) = model.state.choice_control("ldtype");
        let (decay, set_decay) = model.state.float_control("ldecay");
        let ((out_min, out_max), (in_min, in_max)) =
            const { (int_range("lout"), int_range("lin")) };
        view! {
            <Select key="lshape" label="Weight matrix" options=&LORA_SHAPES value=shape on_change=set_shape />
            <Show when=move || shape.get() == "custom">
                <NumberField key="lout" label="d_out" value=lout on_change=set_lout min=out_min max=out_max />
                <NumberField key="lin" label="d_in" value=lin on_change=set_lin min=in_min max=in_max />
            </Show>
            <Select key="ldtype" label="Element type" options=&DTYPES value=dtype on_change=set_dtype />
            <Slider key="ldecay" label="Example: spectrum decay" value=decay on_change=set_decay
                scale={const { Scale::linear_of("ldecay", 0.1) }} format=two_digits />
        }
    };
    view! {
        <Figure id=FigureId::Lora caption=caption summary=summary csv=csv
            controls=controls more=more more_keys=&["lshape", "lout", "lin", "ldtype", "ldecay"] show_controls=show_controls>
            <div class="pair-layout">
                <div class="pair-item readouts readouts-column">
                    <Readout name="full-params" label="full update d_out·d_in" value=full format=grouped_whole />
                    <Readout name="lora-params" label="LoRA r·(d_in + d_out)" value=lora format=grouped_whole />
                    <Readout name="ratio" label="full / LoRA" value=ratio format=times_larger />
                    <Readout name="full-bytes" label="full update, bytes" value=Signal::derive(move || full.get() * model.lora_bytes.get()) format=format_bytes />
                    <Readout name="lora-bytes" label="LoRA, bytes" value=Signal::derive(move || lora.get() * model.lora_bytes.get()) format=format_bytes />
                </div>
                <div class="pair-item">
                    <Chart name="lora-error" spec=curve summary=Signal::derive(move || format!("Relative error of the best rank-r approximation of the example update; {} at r = {}.", format_number(example_error.get(), 3), example_r())) aspect=0.7 />
                    <div class="readouts">
                        <Readout name="example-error" label="example: error at r" value=example_error />
                    </div>
                </div>
            </div>
        </Figure>
    }
}
