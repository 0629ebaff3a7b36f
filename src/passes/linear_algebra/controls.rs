//! Controls shared by Pass 3's figures (tokens, seed), their options and formats.

use leptos::prelude::*;

use super::model::*;
use crate::widgets::format::whole;
use crate::widgets::{Scale, SeedField, Slider};

/// Tokens n (shared by three figures; `instance` tells the copies apart).
#[component]
pub fn TokensSlider(model: LinearAlgebraModel, instance: &'static str) -> impl IntoView {
    let (_, set) = model.state.int_control("rn");
    view! {
        <Slider key="rn" label="Tokens n" instance=instance value=Signal::derive(move || model.n.get() as f64)
            on_change=Callback::new(move |v: f64| set.run(v.round() as i64))
            scale={const { Scale::linear_of("rn", 1.0) }} format=whole />
    }
}

pub fn seed_field(model: LinearAlgebraModel, instance: &'static str) -> impl IntoView {
    let (value, set) = model.state.int_control("rseed");
    view! { <SeedField key="rseed" label="Seed" instance=instance value=value on_change=set /> }
}
