//! The rest of Pass 1, after its main figure: why the softmax is the only door (the
//! chain rule, the Jacobian, its size), why the scores are divided by √dₖ, and the figure
//! `jacobian-vs-dk`. It arrives as a module of its own when the reader comes near it, so
//! that the first load carries only what the first screen shows.

use leptos::prelude::*;

use super::jacobian_vs_dk::JacobianVsDkFigure;
use super::model::BackpropModel;
use super::train_scale::TrainScaleFigure;
use crate::formulas;
use crate::state::use_url_state;
use crate::widgets::Formula;

/// The derivation and the second figure of Pass 1.
#[component]
pub fn Derivation() -> impl IntoView {
    let model = BackpropModel::new(use_url_state());
    view! {
            <h3 class="subhead">"Why the softmax is the only door"</h3>
            <p>
                "Attention turns a query q and keys kⱼ into scores, the scores into probabilities p with a softmax, and mixes the values with p. "
                "When the loss asks W_Q or W_K to change, the request travels back along one road only: through the softmax. "
                "The chain rule makes that literal:"
            </p>
            <Formula markup=formulas::CHAIN_RULE />
            <p>"The middle factor is the softmax Jacobian. With the scores written out,"</p>
            <Formula markup=formulas::SCORES />
            <p>"differentiating pᵢ by every sⱼ gives a small, exact matrix:"</p>
            <Formula markup=formulas::JACOBIAN />
            <p>
                "Its diagonal holds pᵢ(1 − pᵢ) ≥ 0, the rest −pᵢ pⱼ ≤ 0. It is symmetric and positive semi-definite, each of its rows sums to zero (shifting every score by the same amount changes nothing), and its largest eigenvalue never exceeds ½. "
                "Its size has a closed form in p alone:"
            </p>
            <Formula markup=formulas::JACOBIAN_FROBENIUS />
            <p>
                "Push one score far above the others and the softmax saturates: p becomes one-hot, and every entry of J goes to zero with it. "
                "That is the sense in which the softmax is a door: when it saturates it is shut, and W_Q and W_K stop learning from this query."
            </p>
            <Formula markup=formulas::SATURATION />
            <h3 class="subhead">"Why divide by √dₖ"</h3>
            <p>
                "If the entries of q and k are independent with mean 0 and variance 1, each product qₘkₘ has variance 1 and the dₖ of them add up:"
            </p>
            <Formula markup=formulas::DOT_VARIANCE />
            <p>
                "So without the division the typical score grows like √dₖ: at dₖ = 1024 it is 32 times larger than at dₖ = 1, and the softmax is driven into saturation by the width of the model alone. "
                "Dividing by √dₖ keeps the scores at unit variance whatever dₖ is. Turn the division off above and raise dₖ to watch the heatmap fade; the figure below measures the same thing on average."
            </p>
            <JacobianVsDkFigure model=model />
            <h3 class="subhead">"Does it matter in training?"</h3>
            <p>
                "A saturated softmax at initialisation is a claim about one step. The figure below trains a small transformer twice from the same weights on the same batches, once with the division and once without, on a task only attention can solve (recall the value paired with a key): the loss, the attention's entropy (low means saturated) and the gradient reaching W_Q, through the whole run. "
                "Whether the unscaled run fails, or learns anyway, is what the run shows."
            </p>
            <TrainScaleFigure state=model.state />
    }
}
