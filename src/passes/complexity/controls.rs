//! Pass 2's controls: the context and the model lead; the memory figure's element type,
//! batch and axes are its "More settings"; the custom fields appear when "Custom" is
//! chosen; the message for an invalid custom configuration.

use leptos::prelude::*;

use super::model::ComplexityModel;
use crate::state::choices::{AXES, DTYPES, MODELS};
use crate::state::Value;
use crate::widgets::format::whole;
use crate::widgets::{CustomModelFields, Scale, Select, Slider};

/// The context length n, on a log scale.
#[component]
pub fn ContextSlider(
    model: ComplexityModel,
    #[prop(default = "")] instance: &'static str,
) -> impl IntoView {
    let state = model.state;
    let set_ctx =
        Callback::new(move |v: f64| state.set_many(vec![("ctx", Value::Int(v.round() as i64))]));
    view! {
        <Slider key="ctx" label="Context n" instance=instance value=Signal::derive(move || model.n.get() as f64) on_change=set_ctx
            scale={const { Scale::log2_of("ctx", 4) }} unit="tokens" format=whole />
    }
}

/// The model, and the custom configuration's fields when "Custom" is chosen.
#[component]
pub fn ModelSelect(
    model: ComplexityModel,
    #[prop(default = "")] instance: &'static str,
) -> impl IntoView {
    let state = model.state;
    let (model_id, set_model) = state.choice_control("model");
    view! {
        <Select key="model" label="Model" options=&MODELS value=model_id on_change=set_model instance=instance />
        <Show when=move || model_id.get() == "custom">
            <CustomModelFields state=state instance=instance />
        </Show>
    }
}

/// The keys of [`MemoryMoreControls`].
pub const MEMORY_MORE_KEYS: &[&str] = &["dtype", "batch", "axes"];

/// The memory figure's other settings: element type, batch and axes.
#[component]
pub fn MemoryMoreControls(model: ComplexityModel) -> impl IntoView {
    let state = model.state;
    let (dtype, set_dtype) = state.choice_control("dtype");
    let (axes, set_axes) = state.choice_control("axes");
    let set_batch =
        Callback::new(move |v: f64| state.set_many(vec![("batch", Value::Int(v.round() as i64))]));
    view! {
        <Select key="dtype" label="Element type" options=&DTYPES value=dtype on_change=set_dtype />
        <Slider key="batch" label="Batch" value=Signal::derive(move || model.batch.get() as f64) on_change=set_batch
            scale={const { Scale::linear_of("batch", 1.0) }} format=whole />
        <Select key="axes" label="Axes" options=&AXES value=axes on_change=set_axes />
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
