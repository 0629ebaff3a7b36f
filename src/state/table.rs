//! The URL-state table: every setting on the page as one row (key, kind and range,
//! default, meaning, the figures it belongs to). Parsing, writing, the controls' ranges and
//! the documentation all read these rows (the full table is in docs/url-state.md).

use crate::math::backprop::{MAX_TOKENS, MIN_TOKENS};
use crate::math::complexity::{MAX_CONTEXT, MIN_CONTEXT};
use crate::math::rank::MAX_N;
use crate::math::stability::MAX_DEPTH;

use super::choices::{
    ChoiceList, AXES, DTYPES, FT_METHODS, FT_RECIPES, FT_TARGETS, GRADIENTS, LORA_SHAPES, MLPS,
    MODELS, NORMS, OPTIMIZERS, SHOWN_MATRICES, TARGETS, TASKS, WIRINGS,
};
use super::registry::FigureId;

/// What a parameter holds and its valid range.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ParamKind {
    /// A whole number in `min..=max`.
    Int { min: i64, max: i64 },
    /// A finite real in `min..=max`.
    Float { min: f64, max: f64 },
    /// A power of two 2^e with e in `min_exp..=max_exp`.
    Pow2 { min_exp: u32, max_exp: u32 },
    /// On or off (`1`/`0`; `true`/`false`, `on`/`off` are also read).
    Bool,
    /// One of the options of a choice list (see [`super::choices`]).
    Choice(&'static dyn ChoiceList),
    /// Comma-separated finite reals, each clamped to `min..=max`, `min_len..=max_len` of them.
    FloatList {
        min_len: usize,
        max_len: usize,
        min: f64,
        max: f64,
    },
}

/// A parameter's value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Int(i64),
    Float(f64),
    Bool(bool),
    Choice(&'static str),
    /// `None` is the empty list (the parameter is unset).
    List(Option<Vec<f64>>),
}

/// A row's meaning: its text natively, nothing in the browser's build.
#[cfg(not(target_arch = "wasm32"))]
pub type Meaning = &'static str;
/// A row's meaning: its text natively, nothing in the browser's build.
#[cfg(target_arch = "wasm32")]
pub type Meaning = ();

/// [`Meaning`] of `text` (a constant: in the browser's build the text is dropped).
#[allow(clippy::unused_unit)]
const fn meant(text: &'static str) -> Meaning {
    #[cfg(target_arch = "wasm32")]
    {
        let _ = text;
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        text
    }
}

/// One row of the URL-state table.
#[derive(Clone, Debug)]
pub struct ParamSpec {
    /// The query-string key (public contract: never rename).
    pub key: &'static str,
    pub kind: ParamKind,
    pub default: Value,
    /// What the key means (docs/url-state.md says it at length). Kept in native builds
    /// only: the page shows each control's own label, and the text of every row would
    /// cost the first load about 1.5 KB.
    pub meaning: Meaning,
    /// The figures whose state includes this key (for embed links).
    pub figures: &'static [FigureId],
}

/// The largest seed of every seed field (`seed`, `rseed`, `sseed`); seeds run 0..=SEED_MAX.
pub const SEED_MAX: i64 = 999_999;

const PASS1_FIGURES: &[FigureId] = &[FigureId::Jacobian, FigureId::JacobianVsDk];
const JACOBIAN_ONLY: &[FigureId] = &[FigureId::Jacobian];
const PASS2_MODEL: &[FigureId] = &[FigureId::MemoryVsContext, FigureId::FlopsVsContext];
/// The custom model's fields: Pass 2's figures and the fine-tuning figure read them.
const CUSTOM_MODEL: &[FigureId] = &[
    FigureId::MemoryVsContext,
    FigureId::FlopsVsContext,
    FigureId::FinetuneMemory,
];
const FINETUNE: &[FigureId] = &[FigureId::FinetuneMemory];
const MEMORY_ONLY: &[FigureId] = &[FigureId::MemoryVsContext];
const PASS3_TOKENS: &[FigureId] = &[
    FigureId::ScoreRank,
    FigureId::LowRankTarget,
    FigureId::MultiHead,
];
const SCORE_RANK: &[FigureId] = &[FigureId::ScoreRank];
const LOW_RANK: &[FigureId] = &[FigureId::LowRankTarget];
const MULTI_HEAD: &[FigureId] = &[FigureId::MultiHead];
const LORA: &[FigureId] = &[FigureId::Lora];
const PASS4_ALL: &[FigureId] = &[
    FigureId::GradientFlow,
    FigureId::GradientAb,
    FigureId::DepthSweep,
];
const PASS4_DEPTH: &[FigureId] = &[FigureId::GradientFlow, FigureId::GradientAb];
const GRADIENT_FLOW: &[FigureId] = &[FigureId::GradientFlow];
const GRADIENT_AB: &[FigureId] = &[FigureId::GradientAb];
const TRAIN_DEPTH: &[FigureId] = &[FigureId::TrainDepth];
const TRAIN_SCALE: &[FigureId] = &[FigureId::TrainScale];

const fn int_param(
    key: &'static str,
    min: i64,
    max: i64,
    default: i64,
    meaning: &'static str,
    figures: &'static [FigureId],
) -> ParamSpec {
    ParamSpec {
        key,
        kind: ParamKind::Int { min, max },
        default: Value::Int(default),
        meaning: meant(meaning),
        figures,
    }
}

const fn float_param(
    key: &'static str,
    min: f64,
    max: f64,
    default: f64,
    meaning: &'static str,
    figures: &'static [FigureId],
) -> ParamSpec {
    ParamSpec {
        key,
        kind: ParamKind::Float { min, max },
        default: Value::Float(default),
        meaning: meant(meaning),
        figures,
    }
}

const fn choice_param(
    key: &'static str,
    options: &'static dyn ChoiceList,
    default: &'static str,
    meaning: &'static str,
    figures: &'static [FigureId],
) -> ParamSpec {
    ParamSpec {
        key,
        kind: ParamKind::Choice(options),
        default: Value::Choice(default),
        meaning: meant(meaning),
        figures,
    }
}

const fn bool_param(
    key: &'static str,
    default: bool,
    meaning: &'static str,
    figures: &'static [FigureId],
) -> ParamSpec {
    ParamSpec {
        key,
        kind: ParamKind::Bool,
        default: Value::Bool(default),
        meaning: meant(meaning),
        figures,
    }
}

const fn custom(
    key: &'static str,
    min: i64,
    max: i64,
    default: i64,
    meaning: &'static str,
) -> ParamSpec {
    int_param(key, min, max, default, meaning, CUSTOM_MODEL)
}

/// Every URL key of the page. Order is the order keys are written in a link.
pub static PARAMS: &[ParamSpec] = &[
    ParamSpec {
        key: "n",
        kind: ParamKind::Int {
            min: MIN_TOKENS as i64,
            max: MAX_TOKENS as i64,
        },
        default: Value::Int(8),
        meaning: meant("Pass 1: number of tokens n"),
        figures: PASS1_FIGURES,
    },
    ParamSpec {
        key: "dk",
        kind: ParamKind::Pow2 {
            min_exp: 0,
            max_exp: 10,
        },
        default: Value::Int(64),
        meaning: meant("Pass 1: key dimension d_k (a power of two)"),
        figures: PASS1_FIGURES,
    },
    ParamSpec {
        key: "div",
        kind: ParamKind::Bool,
        default: Value::Bool(true),
        meaning: meant("Pass 1: divide the scores by √d_k"),
        figures: PASS1_FIGURES,
    },
    ParamSpec {
        key: "alpha",
        kind: ParamKind::Float {
            min: 0.05,
            max: 50.0,
        },
        default: Value::Float(1.0),
        meaning: meant("Pass 1: logit scale α"),
        figures: PASS1_FIGURES,
    },
    ParamSpec {
        key: "seed",
        kind: ParamKind::Int {
            min: 0,
            max: SEED_MAX,
        },
        default: Value::Int(1),
        meaning: meant("Pass 1: random seed for q and the keys"),
        figures: PASS1_FIGURES,
    },
    ParamSpec {
        key: "z",
        kind: ParamKind::FloatList {
            min_len: 2,
            max_len: 64,
            min: -1000.0,
            max: 1000.0,
        },
        default: Value::List(None),
        meaning: meant(
            "Pass 1: explicit raw scores z (replace the sampled ones; n follows their count)",
        ),
        figures: JACOBIAN_ONLY,
    },
    ParamSpec {
        key: "ctx",
        kind: ParamKind::Int {
            min: MIN_CONTEXT as i64,
            max: MAX_CONTEXT as i64,
        },
        default: Value::Int(4096),
        meaning: meant("Pass 2: context length n in tokens"),
        figures: PASS2_MODEL,
    },
    ParamSpec {
        key: "model",
        kind: ParamKind::Choice(&MODELS),
        default: Value::Choice("llama2-7b"),
        meaning: meant("Pass 2: model configuration"),
        figures: PASS2_MODEL,
    },
    ParamSpec {
        key: "dtype",
        kind: ParamKind::Choice(&DTYPES),
        default: Value::Choice("bf16"),
        meaning: meant("Pass 2: element type of scores, cache and weights"),
        figures: MEMORY_ONLY,
    },
    ParamSpec {
        key: "batch",
        kind: ParamKind::Int { min: 1, max: 64 },
        default: Value::Int(1),
        meaning: meant("Pass 2: batch size"),
        figures: MEMORY_ONLY,
    },
    ParamSpec {
        key: "axes",
        kind: ParamKind::Choice(&AXES),
        default: Value::Choice("log"),
        meaning: meant("Pass 2: memory axes, log or linear"),
        figures: MEMORY_ONLY,
    },
    custom("cl", 1, 256, 32, "Pass 2, custom model: layers"),
    custom("cd", 1, 65_536, 4096, "Pass 2, custom model: d_model"),
    custom("ch", 1, 512, 32, "Pass 2, custom model: query heads"),
    custom(
        "ckv",
        1,
        512,
        8,
        "Pass 2, custom model: key/value heads (must divide the heads)",
    ),
    custom("cdh", 1, 1024, 128, "Pass 2, custom model: d_head"),
    custom(
        "cff",
        1,
        262_144,
        14_336,
        "Pass 2, custom model: MLP width d_ff",
    ),
    ParamSpec {
        key: "cmlp",
        kind: ParamKind::Choice(&MLPS),
        default: Value::Choice("swiglu"),
        meaning: meant("Pass 2, custom model: MLP kind"),
        figures: CUSTOM_MODEL,
    },
    custom(
        "cv",
        1,
        1_000_000,
        32_000,
        "Pass 2, custom model: vocabulary size",
    ),
    custom(
        "cwin",
        0,
        1_048_576,
        0,
        "Pass 2, custom model: sliding window (0 for none)",
    ),
    bool_param(
        "ctie",
        false,
        "Pass 2, custom model: tied embeddings",
        CUSTOM_MODEL,
    ),
    int_param("rn", 2, MAX_N as i64, 32, "Pass 3: tokens n", PASS3_TOKENS),
    int_param(
        "rdk",
        1,
        256,
        4,
        "Pass 3: key dimension d_k (at most n is used)",
        SCORE_RANK,
    ),
    int_param(
        "rseed",
        0,
        SEED_MAX,
        1,
        "Pass 3: random seed for Q, K, the random target and the heads",
        PASS3_TOKENS,
    ),
    choice_param(
        "rshow",
        &SHOWN_MATRICES,
        "s",
        "Pass 3: matrix shown, S or A = softmax(S)",
        SCORE_RANK,
    ),
    choice_param(
        "target",
        &TARGETS,
        "causal",
        "Pass 3: target attention pattern",
        LOW_RANK,
    ),
    int_param(
        "rk",
        1,
        256,
        4,
        "Pass 3: rank k of the approximation (at most n is used)",
        LOW_RANK,
    ),
    int_param(
        "mhd",
        16,
        128,
        64,
        "Pass 3: d_model of the multi-head figure",
        MULTI_HEAD,
    ),
    int_param(
        "mhh",
        1,
        8,
        4,
        "Pass 3: heads h (must divide d_model)",
        MULTI_HEAD,
    ),
    choice_param(
        "lshape",
        &LORA_SHAPES,
        "4096x4096",
        "Pass 3, LoRA: weight matrix d_out × d_in",
        LORA,
    ),
    int_param("lout", 1, 65_536, 4096, "Pass 3, LoRA custom: d_out", LORA),
    int_param("lin", 1, 65_536, 4096, "Pass 3, LoRA custom: d_in", LORA),
    int_param("lr", 1, 256, 8, "Pass 3, LoRA: rank r", LORA),
    choice_param(
        "ldtype",
        &DTYPES,
        "bf16",
        "Pass 3, LoRA: element type",
        LORA,
    ),
    float_param(
        "ldecay",
        0.0,
        3.0,
        1.0,
        "Pass 3, LoRA example: spectrum decay exponent",
        LORA,
    ),
    choice_param(
        "ftmodel",
        &MODELS,
        "llama3-70b",
        "Pass 3, fine-tuning: model",
        FINETUNE,
    ),
    choice_param(
        "ftmethod",
        &FT_METHODS,
        "qlora",
        "Pass 3, fine-tuning: method",
        FINETUNE,
    ),
    int_param(
        "ftr",
        1,
        1024,
        16,
        "Pass 3, fine-tuning: LoRA rank r",
        FINETUNE,
    ),
    choice_param(
        "fttarget",
        &FT_TARGETS,
        "all",
        "Pass 3, fine-tuning: adapted matrices",
        FINETUNE,
    ),
    int_param("ftbatch", 1, 64, 1, "Pass 3, fine-tuning: batch", FINETUNE),
    int_param(
        "ftseq",
        128,
        32_768,
        1024,
        "Pass 3, fine-tuning: sequence length",
        FINETUNE,
    ),
    bool_param(
        "ftckpt",
        true,
        "Pass 3, fine-tuning: gradient checkpointing",
        FINETUNE,
    ),
    choice_param(
        "ftopt",
        &FT_RECIPES,
        "mixed",
        "Pass 3, fine-tuning: optimiser and precision",
        FINETUNE,
    ),
    bool_param(
        "ftdq",
        true,
        "Pass 3, fine-tuning: double quantisation",
        FINETUNE,
    ),
    int_param(
        "depth",
        1,
        MAX_DEPTH as i64,
        32,
        "Pass 4: depth L (blocks)",
        PASS4_DEPTH,
    ),
    bool_param("res", false, "Pass 4: residual connections", GRADIENT_FLOW),
    choice_param(
        "norm",
        &NORMS,
        "none",
        "Pass 4: LayerNorm placement",
        GRADIENT_FLOW,
    ),
    float_param(
        "gain",
        0.25,
        2.0,
        1.0,
        "Pass 4: initialisation gain",
        PASS4_ALL,
    ),
    int_param(
        "sseed",
        0,
        SEED_MAX,
        1,
        "Pass 4: random seed for weights, input and loss",
        PASS4_ALL,
    ),
    choice_param(
        "grad",
        &GRADIENTS,
        "act",
        "Pass 4: gradient shown, activations or weights",
        PASS4_DEPTH,
    ),
    int_param("dmodel", 16, 64, 32, "Pass 4: d_model", PASS4_ALL),
    int_param(
        "heads",
        1,
        4,
        2,
        "Pass 4: heads (must divide d_model)",
        PASS4_ALL,
    ),
    int_param("seq", 4, 16, 8, "Pass 4: sequence length", PASS4_ALL),
    float_param(
        "rho",
        0.1,
        1.5,
        0.7,
        "Pass 4: per-layer factor ρ of the toy chain",
        GRADIENT_FLOW,
    ),
    bool_param(
        "ares",
        false,
        "Pass 4, side by side: residual of A",
        GRADIENT_AB,
    ),
    choice_param(
        "anorm",
        &NORMS,
        "none",
        "Pass 4, side by side: norm placement of A",
        GRADIENT_AB,
    ),
    bool_param(
        "bres",
        true,
        "Pass 4, side by side: residual of B",
        GRADIENT_AB,
    ),
    choice_param(
        "bnorm",
        &NORMS,
        "pre",
        "Pass 4, side by side: norm placement of B",
        GRADIENT_AB,
    ),
    int_param("tdepth", 1, 16, 8, "Training: depth (blocks)", TRAIN_DEPTH),
    choice_param(
        "twa",
        &WIRINGS,
        "plain",
        "Training: wiring of A",
        TRAIN_DEPTH,
    ),
    choice_param("twb", &WIRINGS, "pre", "Training: wiring of B", TRAIN_DEPTH),
    bool_param("twarma", false, "Training: warm-up of A", TRAIN_DEPTH),
    bool_param("twarmb", false, "Training: warm-up of B", TRAIN_DEPTH),
    choice_param(
        "topt",
        &OPTIMIZERS,
        "adamw",
        "Training: optimiser",
        TRAIN_DEPTH,
    ),
    float_param(
        "tlr",
        1e-4,
        1.0,
        3e-3,
        "Training: learning rate",
        TRAIN_DEPTH,
    ),
    int_param("tsteps", 20, 1000, 200, "Training: steps", TRAIN_DEPTH),
    choice_param("ttask", &TASKS, "reverse", "Training: task", TRAIN_DEPTH),
    int_param("tseed", 0, SEED_MAX, 0, "Training: seed", TRAIN_DEPTH),
    ParamSpec {
        key: "tsdk",
        kind: ParamKind::Pow2 {
            min_exp: 3,
            max_exp: 6,
        },
        default: Value::Int(32),
        meaning: meant("Training ÷√d_k: d_k"),
        figures: TRAIN_SCALE,
    },
    choice_param(
        "tsopt",
        &OPTIMIZERS,
        "adamw",
        "Training ÷√d_k: optimiser",
        TRAIN_SCALE,
    ),
    float_param(
        "tslr",
        1e-4,
        1.0,
        3e-3,
        "Training ÷√d_k: learning rate",
        TRAIN_SCALE,
    ),
    int_param(
        "tssteps",
        20,
        1000,
        600,
        "Training ÷√d_k: steps",
        TRAIN_SCALE,
    ),
    choice_param(
        "tstask",
        &TASKS,
        "recall",
        "Training ÷√d_k: task",
        TRAIN_SCALE,
    ),
    int_param(
        "tsseed",
        0,
        SEED_MAX,
        0,
        "Training ÷√d_k: seed",
        TRAIN_SCALE,
    ),
];

/// The index of `key` in [`PARAMS`].
pub fn spec_index(key: &str) -> Option<usize> {
    PARAMS.iter().position(|p| p.key == key)
}

/// The row of `key`.
pub fn spec(key: &str) -> Option<&'static ParamSpec> {
    PARAMS.iter().find(|p| p.key == key)
}

/// Whether two strings are equal, in a constant expression.
const fn same_text(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// The kind of `key`'s row, for constant expressions: a key that is not in the table
/// does not compile.
const fn kind_of(key: &str) -> ParamKind {
    let mut i = 0;
    while i < PARAMS.len() {
        if same_text(PARAMS[i].key, key) {
            return PARAMS[i].kind;
        }
        i += 1;
    }
    panic!("no such key in the parameter table")
}

/// (min, max) of a whole-number key (a power-of-two key gives its smallest and largest
/// power). Evaluate it in a constant (`const { int_range("depth") }`) and a key that is
/// not a whole-number one does not compile.
pub const fn int_range(key: &str) -> (i64, i64) {
    match kind_of(key) {
        ParamKind::Int { min, max } => (min, max),
        ParamKind::Pow2 { min_exp, max_exp } => (1 << min_exp, 1 << max_exp),
        _ => panic!("not a whole-number key"),
    }
}

/// (min, max) of a real-valued or whole-number key, as reals (see [`int_range`]).
pub const fn float_range(key: &str) -> (f64, f64) {
    match kind_of(key) {
        ParamKind::Float { min, max } => (min, max),
        ParamKind::Int { min, max } => (min as f64, max as f64),
        _ => panic!("not a numeric key"),
    }
}

/// (min_exp, max_exp) of a power-of-two key (see [`int_range`]).
pub const fn pow2_range(key: &str) -> (u32, u32) {
    match kind_of(key) {
        ParamKind::Pow2 { min_exp, max_exp } => (min_exp, max_exp),
        _ => panic!("not a power-of-two key"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_choice_default_is_one_of_its_options() {
        for spec in PARAMS {
            if let (ParamKind::Choice(list), Value::Choice(d)) = (spec.kind, &spec.default) {
                assert_eq!(list.find(d), Some(*d), "{}", spec.key);
            }
        }
    }

    #[test]
    fn ranges_are_read_from_the_rows() {
        assert_eq!(int_range("depth"), (1, 128));
        assert_eq!(int_range("dk"), (1, 1024));
        assert_eq!(pow2_range("dk"), (0, 10));
        assert_eq!(float_range("gain"), (0.25, 2.0));
    }
}
