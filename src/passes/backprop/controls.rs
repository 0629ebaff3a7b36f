//! The controls of Pass 1's figures: α and ÷√dₖ lead (they are what the pass is about);
//! tokens, dₖ and the seed are the "More settings".

use leptos::prelude::*;

use super::model::BackpropModel;
use crate::state::Value;
use crate::widgets::format::{three_digits, whole};
use crate::widgets::{Scale, SeedField, Slider, Toggle};

/// The keys of [`MoreControls`] (the disclosure opens when the URL sets one).
pub const MORE_KEYS: &[&str] = &["n", "dk", "seed"];

/// The logit scale α and the division by √dₖ.
#[component]
pub fn PrimaryControls(
    model: BackpropModel,
    #[prop(default = true)] with_alpha: bool,
    #[prop(default = "")] instance: &'static str,
) -> impl IntoView {
    let state = model.state;
    let set_alpha = Callback::new(move |v: f64| state.set_many(vec![("alpha", Value::Float(v))]));
    let set_div = Callback::new(move |v: bool| state.set_many(vec![("div", Value::Bool(v))]));
    view! {
        {with_alpha.then(|| view! {
            <Slider key="alpha" label="Logit scale α" instance=instance value=model.alpha on_change=set_alpha
                scale={const { Scale::log_of("alpha", 100, 3) }} format=three_digits unit="×" />
        })}
        <Toggle key="div" label="Divide by √dₖ" instance=instance value=model.divide on_change=set_div />
    }
}

/// Tokens, dₖ, the seed (and α where it is not a primary control).
#[component]
pub fn MoreControls(
    model: BackpropModel,
    #[prop(default = false)] with_alpha: bool,
    #[prop(default = "")] instance: &'static str,
) -> impl IntoView {
    let state = model.state;
    let set_n = Callback::new(move |v: f64| {
        state.set_many(vec![
            ("n", Value::Int(v.round() as i64)),
            ("z", Value::List(None)),
        ]);
    });
    let set_dk =
        Callback::new(move |v: f64| state.set_many(vec![("dk", Value::Int(v.round() as i64))]));
    let set_alpha = Callback::new(move |v: f64| state.set_many(vec![("alpha", Value::Float(v))]));
    let set_seed = Callback::new(move |v: i64| {
        state.set_many(vec![("seed", Value::Int(v)), ("z", Value::List(None))])
    });
    view! {
        <Slider key="n" label="Tokens n" instance=instance value=Signal::derive(move || model.n.get() as f64) on_change=set_n
            scale={const { Scale::linear_of("n", 1.0) }} format=whole />
        <Slider key="dk" label="Key dimension dₖ" instance=instance value=Signal::derive(move || model.d_k.get() as f64) on_change=set_dk
            scale={const { Scale::pow2_of("dk") }} format=whole />
        {with_alpha.then(|| view! {
            <Slider key="alpha" label="Logit scale α" instance=instance value=model.alpha on_change=set_alpha
                scale={const { Scale::log_of("alpha", 100, 3) }} format=three_digits unit="×" />
        })}
        <SeedField key="seed" label="Seed" instance=instance value=Signal::derive(move || model.seed.get() as i64) on_change=set_seed />
        <Show when=move || model.explicit.with(|z| z.is_some())>
            <p class="control-note" data-explicit-scores="">
                "Using the raw scores given in the link (z). Moving the tokens or the seed draws new ones."
            </p>
        </Show>
    }
}
