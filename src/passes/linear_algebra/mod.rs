//! Pass 3 — linear algebra: a rank-d_k object in an n×n costume (section id
//! `linear-algebra`).
//!
//! Figures `score-rank` ([`score_rank`]), `low-rank-target` ([`low_rank`]), `multi-head`
//! ([`multi_head`]), `lora` ([`lora`]) and `finetune-memory` ([`finetune_memory`]); what they compute from the URL state is in
//! [`model`]. Every control sets the URL through `set_on_frame`, so a dragged slider
//! recomputes once per frame.

use leptos::prelude::*;

use crate::state::registry::PassId;

use crate::widgets::PassHeading;

use crate::formulas;
use crate::state::use_url_state;
use crate::widgets::Formula;

pub mod controls;
pub mod finetune_memory;
pub mod grids;
pub mod lora;
pub mod low_rank;
pub mod model;
pub mod multi_head;
pub mod score_rank;
pub mod steps;

pub use finetune_memory::FinetuneMemoryFigure;
pub use lora::LoraFigure;
pub use low_rank::LowRankFigure;
pub use model::LinearAlgebraModel;
pub use multi_head::MultiHeadFigure;
pub use score_rank::ScoreRankFigure;

/// The section, as the registry's loaders build it.
pub fn section() -> AnyView {
    view! { <LinearAlgebraSection /> }.into_any()
}

/// Section `linear-algebra`.
#[component]
pub fn LinearAlgebraSection() -> impl IntoView {
    let model = LinearAlgebraModel::new(use_url_state());
    view! {
        <section class="pass" id="linear-algebra" aria-labelledby="linear-algebra-title">
            <PassHeading id=PassId::LinearAlgebra />
            <p class="claim">
                "The score matrix S = QKᵀ/√dₖ is n × n, but it is built from two n × dₖ matrices, so its rank is at most dₖ: when dₖ < n it cannot express an arbitrary pattern. The softmax does not keep that bound. "
                "Raise dₖ towards n and watch rank(S) follow it while rank(A) does not."
            </p>
            <ScoreRankFigure model=model />
            <h3 class="subhead">"Why the rank is bounded, and where the bound stops"</h3>
            <p>
                "W_Q and W_K are learned changes of basis: each token's vector is mapped to a query and a key of dₖ numbers. "
                "The score matrix is every query against every key, an n×n table — but it is built from two thin matrices, and a product of thin matrices cannot have more rank than they do:"
            </p>
            <Formula markup=formulas::RANK_BOUND />
            <p>
                "So when dₖ < n, one head cannot write an arbitrary pattern of scores: all n² of them live in a space of n·dₖ-ish degrees of freedom. "
                "The usual story stops there and is loose in one place. The bound holds for the scores S. The softmax is applied entry by entry, and exponentials of a low-rank matrix are in general of full rank, so the attention matrix A = softmax(S) usually has a higher rank than S — while its singular values still fall off quickly. "
                "Ranks in the figure above are counted the way numpy counts them, and an effective rank says how many directions really carry weight:"
            </p>
            <Formula markup=formulas::NUMERICAL_RANK />
            <h3 class="subhead">"What a rank-k head can and cannot say"</h3>
            <p>
                "Pick a pattern a head might want — attend to yourself, to the previous token, average everything before you — and ask for the closest matrix of rank k. "
                "Eckart and Young answered exactly: truncate the SVD, and the error is what the dropped singular values held."
            </p>
            <Formula markup=formulas::ECKART_YOUNG />
            <LowRankFigure model=model />
            <h3 class="subhead">"Many heads"</h3>
            <p>
                "Multi-head attention carves the projections into h column blocks of d_head = d_model/h. Each head's scores have rank at most d_head; W_O takes the concatenated heads and mixes them back into d_model dimensions, so the layer as a whole is not limited to one head's rank."
            </p>
            <Formula markup=formulas::MULTI_HEAD />
            <MultiHeadFigure model=model />
            <h3 class="subhead">"The bridge to LoRA"</h3>
            <p>
                "The same algebra, used on purpose: fine-tune a d_out × d_in weight with an update that is a product of two thin matrices. "
                "The update then has rank at most r, and costs far fewer parameters and bytes:"
            </p>
            <Formula markup=formulas::LORA />
            <LoraFigure model=model />
            <h3 class="subhead">"Can a 70B fine-tune fit a laptop?"</h3>
            <p>
                "Full fine-tuning with mixed-precision AdamW keeps, for every weight, 16-bit weights and gradients, a 32-bit master copy and two 32-bit moments: 16 bytes a parameter. "
                "LoRA freezes the base, so only the adapters have gradients and optimiser states. QLoRA also stores the frozen linear layers in 4 bits. "
                "Pick a model and a method, and see which machine the result fits."
            </p>
            <FinetuneMemoryFigure state=model.state />
        </section>
    }
}
