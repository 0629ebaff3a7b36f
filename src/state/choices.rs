//! Every choice the page offers, one row per option: its URL id (a public contract), the
//! label a control shows, and the typed value the page computes with. The parameter table
//! validates URL values against these rows, the drop-downs list them, and the passes read
//! their values, so an option is spelled in one place only.

use std::fmt;

use crate::math::complexity::{
    MlpKind, ModelConfig, GPT2_SMALL, LLAMA2_7B, LLAMA3_70B, LLAMA3_8B, MISTRAL_7B,
};
use crate::math::finetune::{AdapterTargets, Method, Recipe, GPT3_175B, LLAMA_65B};
use crate::math::rank::Pattern;
use crate::math::stability::{NormPlacement, Wiring};
use crate::math::train::Task;

use super::view::Theme;

/// One option of a choice parameter.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Choice<T: 'static> {
    /// The value's text in a URL (public contract: never rename).
    pub id: &'static str,
    /// What a control shows for it.
    pub label: &'static str,
    /// What the page computes with.
    pub value: T,
}

/// The options of one choice parameter, in the order a control lists them (at least one:
/// [`Choices::new`] refuses an empty list when the page is compiled).
#[derive(Debug)]
pub struct Choices<T: 'static> {
    rows: &'static [Choice<T>],
    first: &'static Choice<T>,
}

impl<T> Choices<T> {
    /// The options `rows`; an empty list does not compile (a constant's panic).
    pub const fn new(rows: &'static [Choice<T>]) -> Self {
        match rows {
            [first, ..] => Self { rows, first },
            [] => panic!("a choice needs at least one option"),
        }
    }

    /// Every option, in order.
    pub fn rows(&self) -> &'static [Choice<T>] {
        self.rows
    }

    /// The row of `id`, if it is one of these options.
    pub fn row(&self, id: &str) -> Option<&'static Choice<T>> {
        self.rows.iter().find(|c| c.id == id)
    }

    /// The label of option `id` ("" for an id that is not one).
    pub fn label_of(&self, id: &str) -> &'static str {
        self.row(id).map_or("", |c| c.label)
    }
}

impl<T: Copy> Choices<T> {
    /// The value of option `id`; the first option's for an id that is not one (the
    /// parameter table never lets one through, so this only keeps the function total).
    pub fn value_of(&self, id: &str) -> T {
        self.row(id).unwrap_or(self.first).value
    }
}

impl<T: Copy + PartialEq> Choices<T> {
    /// The id of the option whose value is `value` (the first option's if none is).
    pub fn id_of(&self, value: T) -> &'static str {
        self.rows
            .iter()
            .find(|c| c.value == value)
            .unwrap_or(self.first)
            .id
    }
}

/// A choice list seen without its value type: what the parameter table and the drop-down
/// control need (ids and labels).
pub trait ChoiceList: Sync {
    /// How many options there are.
    fn len(&self) -> usize;
    /// True when there are none.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The id of option `i` ("" past the end).
    fn id(&self, i: usize) -> &'static str;
    /// The label of option `i` ("" past the end).
    fn label(&self, i: usize) -> &'static str;
}

impl dyn ChoiceList {
    /// The option's id as the list spells it, for `text` matched ignoring ASCII case.
    pub fn find(&self, text: &str) -> Option<&'static str> {
        (0..self.len())
            .map(|i| self.id(i))
            .find(|id| id.eq_ignore_ascii_case(text))
    }
    /// Every id, joined by ", " (for notices).
    pub fn ids_joined(&self) -> String {
        let mut out = String::new();
        for i in 0..self.len() {
            if i > 0 {
                out.push_str(", ");
            }
            out.push_str(self.id(i));
        }
        out
    }
}

impl<T: Sync> ChoiceList for Choices<T> {
    fn len(&self) -> usize {
        self.rows.len()
    }

    fn id(&self, i: usize) -> &'static str {
        self.rows.get(i).map_or("", |c| c.id)
    }

    fn label(&self, i: usize) -> &'static str {
        self.rows.get(i).map_or("", |c| c.label)
    }
}

impl fmt::Debug for dyn ChoiceList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.ids_joined())
    }
}

impl PartialEq for dyn ChoiceList {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && (0..self.len()).all(|i| self.id(i) == other.id(i))
    }
}

const fn row<T>(id: &'static str, label: &'static str, value: T) -> Choice<T> {
    Choice { id, label, value }
}

/// The model configurations of Pass 2 (`model=`) and of the fine-tuning figure
/// (`ftmodel=`): a published one (the LoRA and QLoRA papers' among them), or `None` for
/// the custom fields.
pub static MODELS: Choices<Option<ModelConfig>> = Choices::new(&[
    row("gpt2", "GPT-2 small", Some(GPT2_SMALL)),
    row("llama2-7b", "Llama-2-7B", Some(LLAMA2_7B)),
    row("llama3-8b", "Llama-3-8B (GQA)", Some(LLAMA3_8B)),
    row("llama3-70b", "Llama-3-70B (GQA)", Some(LLAMA3_70B)),
    row(
        "mistral-7b",
        "Mistral-7B (sliding window)",
        Some(MISTRAL_7B),
    ),
    row("llama-65b", "LLaMA-65B (QLoRA paper)", Some(LLAMA_65B)),
    row("gpt3-175b", "GPT-3 175B (LoRA paper)", Some(GPT3_175B)),
    row("custom", "Custom", None),
]);

/// How the fine-tuning figure's chosen method trains (`ftmethod=`).
pub static FT_METHODS: Choices<Method> = Choices::new(&[
    row("full", "full fine-tuning", Method::Full),
    row("lora", "LoRA (16-bit base)", Method::Lora),
    row("qlora", "QLoRA (4-bit base)", Method::Qlora),
]);

/// Which matrices get adapters (`fttarget=`).
pub static FT_TARGETS: Choices<AdapterTargets> = Choices::new(&[
    row("all", "every linear layer", AdapterTargets::AllLinear),
    row("qv", "W_q and W_v only", AdapterTargets::QueryValue),
]);

/// What a trained parameter costs (`ftopt=`).
pub static FT_RECIPES: Choices<Recipe> = Choices::new(&[
    row("mixed", "mixed-precision AdamW (16 B)", Recipe::Mixed),
    row("half", "16-bit, 32-bit moments (12 B)", Recipe::Half),
    row("lean", "16-bit moments, fused step (6 B)", Recipe::Lean),
]);

/// Element types (`dtype=`, `ldtype=`): bytes per element.
pub static DTYPES: Choices<f64> = Choices::new(&[
    row("fp32", "fp32 (4 bytes)", 4.0),
    row("bf16", "bf16 (2 bytes)", 2.0),
    row("fp8", "fp8 (1 byte)", 1.0),
    row("int4", "int4 (½ byte)", 0.5),
]);

/// Pass 2's memory axes (`axes=`): true for logarithmic.
pub static AXES: Choices<bool> =
    Choices::new(&[row("log", "log", true), row("linear", "linear", false)]);

/// The custom model's MLP (`cmlp=`).
pub static MLPS: Choices<MlpKind> = Choices::new(&[
    row("swiglu", "SwiGLU (3 matrices)", MlpKind::SwiGlu),
    row("gelu", "GELU (2 matrices)", MlpKind::Gelu),
]);

/// The matrix `score-rank` shows (`rshow=`): true for A = softmax(S).
pub static SHOWN_MATRICES: Choices<bool> = Choices::new(&[
    row("s", "S = QKᵀ/√dₖ", false),
    row("a", "A = softmax(S)", true),
]);

/// Pass 3's target attention patterns (`target=`); the random one is drawn from the seed
/// the value is given.
pub static TARGETS: Choices<fn(u64) -> Pattern> = Choices::new(&[
    row("identity", "identity (attend to yourself)", |_| {
        Pattern::Identity
    }),
    row("previous", "previous token", |_| Pattern::PreviousToken),
    row("causal", "causal average", |_| Pattern::CausalAverage),
    row("first", "attend to the first token", |_| {
        Pattern::FirstToken
    }),
    row("random", "random attention pattern", Pattern::Random),
]);

/// The LoRA calculator's weight matrices (`lshape=`): (d_out, d_in), or `None` for the
/// custom fields.
pub static LORA_SHAPES: Choices<Option<(u64, u64)>> = Choices::new(&[
    row(
        "4096x4096",
        "4096 × 4096 (7B attention projection)",
        Some((4096, 4096)),
    ),
    row(
        "8192x8192",
        "8192 × 8192 (70B attention projection)",
        Some((8192, 8192)),
    ),
    row(
        "8192x28672",
        "8192 × 28672 (70B MLP up-projection)",
        Some((8192, 28672)),
    ),
    row("custom", "custom", None),
]);

/// Pass 4's LayerNorm placements (`norm=`, `anorm=`, `bnorm=`).
pub static NORMS: Choices<NormPlacement> = Choices::new(&[
    row("none", "none", NormPlacement::None),
    row("post", "post-norm: LN(x + F(x))", NormPlacement::Post),
    row("pre", "pre-norm: x + F(LN(x))", NormPlacement::Pre),
]);

/// The gradient Pass 4 shows (`grad=`): true for the weights'.
pub static GRADIENTS: Choices<bool> = Choices::new(&[
    row("act", "activations ∂L/∂xₗ", false),
    row("weight", "weights ∂L/∂θₗ", true),
]);

/// A training run's wiring (`twa=`, `twb=`): residual or not, and where the norm sits.
pub static WIRINGS: Choices<Wiring> = Choices::new(&[
    row("plain", "no residual, no norm", Wiring::PLAIN),
    row("pre", "residual, pre-norm", Wiring::PRE_NORM),
    row("post", "residual, post-norm", Wiring::POST_NORM),
    row("res", "residual, no norm", Wiring::RESIDUAL_ONLY),
    row(
        "nores-pre",
        "no residual, pre-norm",
        Wiring {
            residual: false,
            norm: NormPlacement::Pre,
        },
    ),
    row(
        "nores-post",
        "no residual, post-norm",
        Wiring {
            residual: false,
            norm: NormPlacement::Post,
        },
    ),
]);

/// A training run's optimiser (`topt=`, `tsopt=`): true for plain SGD.
pub static OPTIMIZERS: Choices<bool> =
    Choices::new(&[row("adamw", "AdamW", false), row("sgd", "SGD", true)]);

/// The task a training run learns (`ttask=`, `tstask=`).
pub static TASKS: Choices<Task> = Choices::new(&[
    row("reverse", "reverse a sequence", Task::Reverse),
    row("recall", "associative recall", Task::Recall),
]);

/// Colour schemes (`theme=`, and the one remembered in the browser).
pub static THEMES: Choices<Theme> = Choices::new(&[
    row("light", "light", Theme::Light),
    row("dark", "dark", Theme::Dark),
]);

#[cfg(test)]
mod tests {
    use super::*;

    fn lists() -> [&'static dyn ChoiceList; 13] {
        [
            &MODELS,
            &DTYPES,
            &AXES,
            &MLPS,
            &SHOWN_MATRICES,
            &TARGETS,
            &LORA_SHAPES,
            &NORMS,
            &GRADIENTS,
            &WIRINGS,
            &OPTIMIZERS,
            &TASKS,
            &THEMES,
        ]
    }

    #[test]
    fn every_list_has_options_with_distinct_ids() {
        for list in lists() {
            assert!(!list.is_empty());
            for i in 0..list.len() {
                for j in 0..i {
                    assert_ne!(list.id(i), list.id(j), "{list:?}");
                }
            }
        }
    }

    #[test]
    fn values_and_ids_map_both_ways() {
        assert_eq!(NORMS.value_of("post"), NormPlacement::Post);
        assert_eq!(NORMS.id_of(NormPlacement::Pre), "pre");
        assert_eq!(DTYPES.value_of("int4"), 0.5);
        assert_eq!(THEMES.id_of(Theme::Dark), "dark");
        assert_eq!(MODELS.value_of("llama3-70b").map(|m| m.layers), Some(80));
        assert_eq!(MODELS.value_of("custom"), None);
        assert_eq!((TARGETS.value_of("random"))(7), Pattern::Random(7));
    }

    #[test]
    fn an_unknown_id_reads_as_the_first_option() {
        assert_eq!(NORMS.value_of("sideways"), NormPlacement::None);
        assert_eq!(NORMS.label_of("sideways"), "");
    }

    #[test]
    fn ids_are_found_ignoring_case() {
        let models: &dyn ChoiceList = &MODELS;
        assert_eq!(models.find("LLAMA3-8B"), Some("llama3-8b"));
        assert_eq!(models.find("gpt5"), None);
    }
}
