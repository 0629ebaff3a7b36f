//! Pass 1 — backprop: the softmax is the only door (section id `backprop`).
//!
//! Figures `jacobian` (the n×n Jacobian heatmap beside the bars of p) and
//! `jacobian-vs-dk` (mean ‖J‖_F against d_k, with and without ÷√d_k). Data flows one
//! way: URL-state memos ([`model`]) → math memos → draw effects ([`jacobian`],
//! [`jacobian_vs_dk`]).

use leptos::prelude::*;

use crate::state::registry::{FigureId, PassId};

use crate::passes::lazy::{LazyFigure, LazyPart, LazyPass};
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

/// One Pass 1 figure alone (the embed view); `None` for another pass's figure.
pub fn figure(id: FigureId, show_controls: bool) -> Option<AnyView> {
    match id {
        FigureId::Jacobian => {
            let model = BackpropModel::new(use_url_state());
            Some(view! { <JacobianFigure model=model show_controls=show_controls /> }.into_any())
        }
        // In a module of its own with the rest of the derivation (see [`derivation`]).
        FigureId::JacobianVsDk | FigureId::TrainScale => Some(
            view! { <LazyFigure pass=LazyPass::BackpropDerivation id=id show_controls=show_controls /> }
                .into_any(),
        ),
        _ => None,
    }
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
