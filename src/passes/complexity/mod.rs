//! Pass 2 — complexity: why context is expensive (section id `complexity`).
//!
//! Figures `memory-vs-context` ([`memory`]), `flops-vs-context` ([`flops`]) and
//! `measured-attention` ([`measured`]); what they compute from the URL state is in
//! [`model`], their shared controls in [`controls`].

use leptos::prelude::*;

use crate::state::registry::PassId;

use crate::widgets::PassHeading;

use crate::formulas;
use crate::math::complexity::kv_bytes_per_token;
use crate::state::choices::DTYPES;
use crate::state::use_url_state;
use crate::widgets::format::{format_bytes, format_number};
use crate::widgets::Formula;

pub mod controls;
pub mod flops;
pub mod measured;
pub mod memory;
pub mod model;
pub mod steps;

pub use flops::FlopsFigure;
pub use measured::MeasuredFigure;
pub use memory::MemoryFigure;
pub use model::ComplexityModel;

/// The section, as the registry's loaders build it.
pub fn section() -> AnyView {
    view! { <ComplexitySection /> }.into_any()
}

/// The KV-cache bytes per token of the chosen model, as a sentence (for the prose).
pub fn per_token_sentence(model: ComplexityModel) -> String {
    let e = DTYPES.value_of(model.dtype.get());
    model.config.with(|c| match c {
        Ok(cfg) => format!(
            "For {} in {}, that is {} per token ({} layers × {} KV heads × {} × 2 × {} bytes).",
            cfg.name,
            model.dtype.get(),
            format_bytes(kv_bytes_per_token(cfg, e)),
            cfg.layers,
            cfg.kv_heads,
            cfg.d_head,
            format_number(e, 2)
        ),
        Err(_) => String::new(),
    })
}

/// Section `complexity`.
#[component]
pub fn ComplexitySection() -> impl IntoView {
    let model = ComplexityModel::new(use_url_state());
    view! {
        <section class="pass" id="complexity" aria-labelledby="complexity-title">
            <PassHeading id=PassId::Complexity />
            <p class="claim">
                "The attention scores of a context of n tokens form an n × n matrix: double the context and it quadruples, while the KV cache only doubles. "
                "Drag the context length and watch the coral n² line pull away from the blue cache."
            </p>
            <MemoryFigure model=model />
            <h3 class="subhead">"Why the scores are quadratic and the cache linear"</h3>
            <p>
                "Every query is compared with every key. For n tokens the scores form an n × n matrix per head, and building it costs n² dot products of length d:"
            </p>
            <Formula markup=formulas::SCORE_MATRIX />
            <p>
                "Double the context and that matrix quadruples. Generation avoids recomputing the past by caching each token's keys and values, and that cache grows only linearly — one K and one V vector per layer and per key/value head for every token:"
            </p>
            <Formula markup=formulas::KV_CACHE />
            <p class="dynamic-prose">{move || per_token_sentence(model)}</p>
            <p>
                "Grouped-query attention (Llama-3, Mistral) shares each key/value head among several query heads, dividing the cache by that factor; a sliding window (Mistral) caps it. "
                "FlashAttention removes the quadratic memory altogether: it streams keys and values through fast on-chip memory and keeps only a running maximum and normaliser per query, so the n × n matrix never exists. The arithmetic, though, is still n²."
            </p>
            <h3 class="subhead">"Where the FLOPs go"</h3>
            <p>
                "Per layer and per token, the projections and the MLP cost a fixed P + M FLOPs, proportional to d²; attention's scores and weighted sum cost 4·n·h·d_head more for every token in the context. Setting the two equal gives the context length where attention takes over:"
            </p>
            <Formula markup=formulas::FLOPS_CROSSOVER />
            <FlopsFigure model=model />
            <h3 class="subhead">"Measured, not only modelled"</h3>
            <p>
                "The curves above are formulas. The figure below runs a real attention forward pass — scores, softmax and the weighted sum, in this page's WebAssembly — for doubling n, and fits a power law to the times. Nothing is pre-recorded."
            </p>
            <MeasuredFigure />
        </section>
    }
}
