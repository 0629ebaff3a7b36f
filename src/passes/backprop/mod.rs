//! Pass 1 — backprop: the softmax is the only door (section id `backprop`).
//!
//! Figures `jacobian` (the n×n Jacobian heatmap beside the bars of p) and
//! `jacobian-vs-dk` (mean ‖J‖_F against d_k, with and without ÷√d_k). Data flows one
//! way: URL-state memos ([`model`]) → math memos → draw effects ([`jacobian`],
//! [`jacobian_vs_dk`]).

use leptos::prelude::*;

use crate::state::registry::PassId;

use crate::passes::lazy::LazyPart;
use crate::widgets::{HeatmapHint, PassHeading};

use crate::state::use_url_state;

pub mod controls;
pub mod derivation;
pub mod jacobian;
pub mod jacobian_vs_dk;
pub mod model;
pub mod steps;
pub mod train_scale;

pub use jacobian::JacobianFigure;
pub use jacobian_vs_dk::JacobianVsDkFigure;
pub use model::BackpropModel;

/// The section, as the registry's loaders build it.
pub fn section() -> AnyView {
    view! { <BackpropSection /> }.into_any()
}

/// Section `backprop`.
#[component]
pub fn BackpropSection() -> impl IntoView {
    let model = BackpropModel::new(use_url_state());
    view! {
        <section class="pass" id="backprop" aria-labelledby="backprop-title">
            <PassHeading id=PassId::Backprop />
            <p class="claim">
                "Every gradient that reaches W_Q or W_K passes through one small matrix, the softmax Jacobian J; when the softmax saturates, J goes to zero and the gradient stops."
            </p>
            <JacobianFigure model=model />
            <HeatmapHint />
            <LazyPart part=LazyPart::BackpropDerivation />
        </section>
    }
}
