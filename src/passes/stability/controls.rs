//! Controls the Pass 4 figures share: depth, the wiring of a stack (residual and norm
//! placement), and the architecture (gain, seed, width, heads, tokens).

use leptos::prelude::*;

use super::model::StabilityModel;
use super::schedule::policy::GAIN_STEP;
use crate::state::choices::NORMS;
use crate::widgets::format::three_digits;
use crate::widgets::format::whole;
use crate::widgets::{Scale, SeedField, Select, Slider, Toggle};

/// Architecture controls shared by the three figures.
#[component]
pub fn StackControls(
    model: StabilityModel,
    instance: &'static str,
    /// Whether the gain is among them (where it is not a primary control).
    #[prop(default = true)]
    with_gain: bool,
) -> impl IntoView {
    let s = model.state;
    let (seed, set_seed) = s.int_control("sseed");
    let (d, set_d) = s.int_control("dmodel");
    let (_, set_h) = s.int_control("heads");
    let (t, set_t) = s.int_control("seq");
    let int_cb = |cb: Callback<i64>| Callback::new(move |v: f64| cb.run(v.round() as i64));
    view! {
        {with_gain.then(|| view! { <GainSlider model=model instance=instance /> })}
        <SeedField key="sseed" label="Seed" instance=instance value=seed on_change=set_seed />
        <Slider key="dmodel" label="d_model" instance=instance value=Signal::derive(move || d.get() as f64) on_change=int_cb(set_d)
            scale={const { Scale::linear_of("dmodel", 4.0) }} format=whole />
        <Slider key="heads" label="Heads" instance=instance value=Signal::derive(move || model.requested_heads.get() as f64) on_change=int_cb(set_h)
            scale={const { Scale::linear_of("heads", 1.0) }} format=whole />
        <Slider key="seq" label="Tokens T" instance=instance value=Signal::derive(move || t.get() as f64) on_change=int_cb(set_t)
            scale={const { Scale::linear_of("seq", 1.0) }} format=whole />
    }
}

#[component]
pub fn DepthSlider(model: StabilityModel, instance: &'static str) -> impl IntoView {
    let (_, set) = model.state.int_control("depth");
    view! {
        <Slider key="depth" label="Depth L" instance=instance value=Signal::derive(move || model.depth.get() as f64)
            on_change=Callback::new(move |v: f64| set.run(v.round() as i64))
            scale={const { Scale::linear_of("depth", 1.0) }} format=whole />
    }
}

/// The initialisation gain.
#[component]
pub fn GainSlider(model: StabilityModel, instance: &'static str) -> impl IntoView {
    let (gain, set_gain) = model.state.float_control("gain");
    view! {
        <Slider key="gain" label="Init gain" instance=instance value=gain on_change=set_gain
            scale={const { Scale::linear_of("gain", GAIN_STEP) }} format=three_digits />
    }
}

/// The residual switch of a stack.
#[component]
pub fn ResidualToggle(
    model: StabilityModel,
    key: &'static str,
    instance: &'static str,
) -> impl IntoView {
    let (r, set_r) = model.state.flag_control(key);
    view! { <Toggle key=key label="Residual" instance=instance value=r on_change=set_r /> }
}

/// The LayerNorm placement of a stack.
#[component]
pub fn NormSelect(
    model: StabilityModel,
    key: &'static str,
    instance: &'static str,
) -> impl IntoView {
    let (n, set_n) = model.state.choice_control(key);
    view! { <Select key=key label="LayerNorm" instance=instance options=&NORMS value=n on_change=set_n /> }
}

#[component]
pub fn WiringControls(
    model: StabilityModel,
    res: &'static str,
    norm: &'static str,
    label: &'static str,
    instance: &'static str,
) -> impl IntoView {
    let (r, set_r) = model.state.flag_control(res);
    let (n, set_n) = model.state.choice_control(norm);
    view! {
        <fieldset class="control-group">
            <legend>{label}</legend>
            <Toggle key=res label="Residual" instance=instance value=r on_change=set_r />
            <Select key=norm label="LayerNorm" instance=instance options=&NORMS value=n on_change=set_n />
        </fieldset>
    }
}

pub fn heads_note(model: StabilityModel) -> impl IntoView {
    move || {
        let (asked, used, d) = (
            model.requested_heads.get(),
            model.shape.with(|s| s.heads),
            model.shape.with(|s| s.d_model),
        );
        (asked != used).then(|| {
            view! { <p class="control-note" role="status">{format!("{asked} heads do not divide d_model = {d}: using {used}.")}</p> }
        })
    }
}
