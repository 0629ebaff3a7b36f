//! Pass 2's controls: the model, the context, and for the memory figure the element type,
//! batch and axes; the custom fields when "Custom" is chosen; the message for an invalid
//! custom configuration.

use leptos::prelude::*;

use super::model::ComplexityModel;
use crate::state::choices::{AXES, DTYPES, MLPS, MODELS};
use crate::state::Value;
use crate::widgets::format::whole;
use crate::widgets::{NumberField, Scale, Select, Slider};

/// Model, context and (for memory) element type, batch and axes; custom fields when chosen.
#[component]
pub fn ModelControls(
    model: ComplexityModel,
    #[prop(default = false)] memory: bool,
    #[prop(default = "")] instance: &'static str,
) -> impl IntoView {
    let state = model.state;
    let (model_id, set_model) = state.choice_control("model");
    let set_ctx =
        Callback::new(move |v: f64| state.set_many(vec![("ctx", Value::Int(v.round() as i64))]));
    let custom_fields = move || {
        let field = |key: &'static str, label: &'static str, min: i64, max: i64| {
            let (value, set) = state.int_control(key);
            view! { <NumberField key=key label=label value=value on_change=set min=min max=max instance=instance /> }
        };
        let (mlp, set_mlp) = state.choice_control("cmlp");
        view! {
            <fieldset class="custom-model" data-custom-model="">
                <legend>"Custom configuration"</legend>
                {field("cl", "Layers", 1, 256)}
                {field("cd", "d_model", 1, 65_536)}
                {field("ch", "Query heads", 1, 512)}
                {field("ckv", "Key/value heads", 1, 512)}
                {field("cdh", "d_head", 1, 1024)}
                {field("cff", "MLP width d_ff", 1, 262_144)}
                <Select key="cmlp" label="MLP" options=&MLPS value=mlp on_change=set_mlp instance=instance />
                {field("cv", "Vocabulary", 1, 1_000_000)}
                {field("cwin", "Sliding window (0 = none)", 0, 1_048_576)}
            </fieldset>
        }
    };
    view! {
        <Select key="model" label="Model" options=&MODELS value=model_id on_change=set_model instance=instance />
        <Slider key="ctx" label="Context n" instance=instance value=Signal::derive(move || model.n.get() as f64) on_change=set_ctx
            scale={const { Scale::log2_of("ctx", 4) }} unit="tokens" format=whole />
        {memory.then(|| {
            let (dtype, set_dtype) = state.choice_control("dtype");
            let (axes, set_axes) = state.choice_control("axes");
            let set_batch = Callback::new(move |v: f64| state.set_many(vec![("batch", Value::Int(v.round() as i64))]));
            view! {
                <Select key="dtype" label="Element type" options=&DTYPES value=dtype on_change=set_dtype instance=instance />
                <Slider key="batch" label="Batch" instance=instance value=Signal::derive(move || model.batch.get() as f64) on_change=set_batch
                    scale={const { Scale::linear_of("batch", 1.0) }} format=whole />
                <Select key="axes" label="Axes" options=&AXES value=axes on_change=set_axes instance=instance />
            }
        })}
        <Show when=move || model_id.get() == "custom">{custom_fields}</Show>
    }
}

/// The visible message for an invalid custom configuration.
#[component]
pub fn ConfigProblem(model: ComplexityModel) -> impl IntoView {
    view! {
        <Show when=move || model.config.with(|c| c.is_err())>
            <p class="config-error" role="alert" data-config-error="">
                {move || model.config.with(|c| c.as_ref().err().cloned().unwrap_or_default())}
            </p>
        </Show>
    }
}
