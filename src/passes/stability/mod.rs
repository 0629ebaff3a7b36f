//! Pass 4 — stability: why deep stacks train at all (section id `stability`).
//!
//! Figures `gradient-flow` ([`gradient_flow`]: per-layer gradient norms of a real stack,
//! as a strip and a curve, beside the toy chain), `gradient-ab` ([`gradient_ab`]: two
//! wirings side by side) and `depth-sweep` ([`depth_sweep`]: bottom-to-top ratio against
//! depth for the four wirings).
//!
//! The stack is computed off the input event ([`schedule`]): in slices of a few
//! milliseconds with a yield to the browser between them, so no task blocks the page; a
//! generation counter drops a run as soon as a newer request exists, and the forward tape
//! is kept, so a depth change only runs the new blocks and the backward pass.

use leptos::prelude::*;

use crate::state::registry::PassId;

use crate::widgets::PassHeading;

use crate::formulas;
use crate::state::use_url_state;
use crate::widgets::Formula;

pub mod controls;
pub mod depth_sweep;
pub mod draw;
pub mod gradient_ab;
pub mod gradient_flow;
pub mod model;
pub mod schedule;
pub mod sentences;
pub mod steps;
pub mod train_depth;

pub use depth_sweep::DepthSweepFigure;
pub use gradient_ab::GradientAbFigure;
pub use gradient_flow::GradientFlowFigure;
pub use model::StabilityModel;
pub use train_depth::TrainDepthFigure;

/// The section, as the registry's loaders build it.
pub fn section() -> AnyView {
    view! { <StabilitySection /> }.into_any()
}

/// Section `stability`.
#[component]
pub fn StabilitySection() -> impl IntoView {
    let model = StabilityModel::new(use_url_state());
    view! {
        <section class="pass" id="stability" aria-labelledby="stability-title">
            <PassHeading id=PassId::Stability />
            <p class="claim">
                "Backpropagation through a deep stack multiplies one Jacobian per layer, and without help the product vanishes: the bottom layers stop learning. A residual connection adds an identity path that keeps the gradient alive. "
                "Turn the residual off and raise the depth: layer 0 goes dark."
            </p>
            <GradientFlowFigure model=model />
            <p>
                "The figure is not a simulation of that story. It builds a real stack of decoder blocks — causal multi-head attention and a GELU MLP, weights drawn N(0, gain²/fan_in) — runs it forward on a random input, takes the loss L = Σ y ⊙ r, and backpropagates by hand, checked against finite differences in the tests. "
                "The loss is linear so that the top always receives the same gradient, r: whatever the figures show happened inside the stack."
            </p>
            <h3 class="subhead">"Why the product vanishes, and what the identity changes"</h3>
            <p>
                "Backpropagation through L layers multiplies L Jacobians. If each one shrinks vectors by a factor ρ < 1, the product shrinks geometrically — 0.7³² ≈ 1.1·10⁻⁵ — and the bottom layers receive almost nothing:"
            </p>
            <Formula markup=formulas::JACOBIAN_PRODUCT />
            <p>
                "A residual connection changes the factor itself. The layer adds its branch to its input, so its Jacobian is the identity plus the branch's: a gradient can always pass straight through, whatever F does."
            </p>
            <Formula markup=formulas::RESIDUAL_JACOBIAN />
            <p>
                "LayerNorm keeps the numbers in each token at zero mean and unit spread, with a learned scale and shift. Where it sits matters: after the sum (post-norm, the original Transformer) every gradient must pass through a norm on its way down; inside the branch (pre-norm, GPT-2 and after) the identity path stays clean."
            </p>
            <Formula markup=formulas::LAYER_NORM />
            <p>
                "Two things the toy chain does not predict. Without residuals but with LayerNorm the gradient does not vanish: the norm rescales each layer's output, and its Jacobian rescales the gradient by the inverse of the spread it removed. "
                "And residuals without any norm do not merely keep the gradient alive: each block adds to the stream, the activations grow, and the gradient grows with depth — exploding rather than vanishing."
            </p>
            <GradientAbFigure model=model />
            <DepthSweepFigure model=model />
            <h3 class="subhead">"Does it train? Two stacks, trained live"</h3>
            <p>
                "Everything above is one forward and one backward pass at initialisation. The figure below trains: two stacks of these same blocks, from the same weights, on the same batches, each with its own wiring, on a task that needs attention (reverse a sequence of symbols: without looking back, the best a model can do is guess). "
                "The heatmaps show each block's gradient through the whole run, so whether layer 0 goes dark is seen over training, not only at step 0; the caption says what each run did."
            </p>
            <TrainDepthFigure state=model.state />
        </section>
    }
}
