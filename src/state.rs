//! URL state: a typed table of every setting on the page, parsed from and written to the
//! query string.
//!
//! Every control lives under a short key ([`PARAMS`], documented in the README). Parsing is
//! total: an out-of-range value is clamped, an unparseable, NaN or infinite one falls back
//! to the default, and either way a [`Notice`] names the key and what was done. Unknown
//! keys are ignored. Writing leaves defaults out, so a link carries only what differs.

use std::cell::Cell;
use std::fmt;

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
    /// One of a fixed list of identifiers.
    Choice(&'static [&'static str]),
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

/// One row of the URL-state table.
#[derive(Clone, Debug)]
pub struct ParamSpec {
    /// The query-string key (public contract: never rename).
    pub key: &'static str,
    pub kind: ParamKind,
    pub default: Value,
    /// What the key means, for the README table and notices.
    pub meaning: &'static str,
    /// The figures whose state includes this key (for embed links).
    pub figures: &'static [&'static str],
}

/// The largest seed of every seed field (`seed`, `rseed`, `sseed`); seeds run 0..=SEED_MAX.
pub const SEED_MAX: i64 = 999_999;

const PASS1_FIGURES: &[&str] = &["jacobian", "jacobian-vs-dk"];
const JACOBIAN_ONLY: &[&str] = &["jacobian"];
const PASS2_MODEL: &[&str] = &["memory-vs-context", "flops-vs-context"];
const MEMORY_ONLY: &[&str] = &["memory-vs-context"];
const PASS3_TOKENS: &[&str] = &["score-rank", "low-rank-target", "multi-head"];
const SCORE_RANK: &[&str] = &["score-rank"];
const LOW_RANK: &[&str] = &["low-rank-target"];
const MULTI_HEAD: &[&str] = &["multi-head"];
const LORA: &[&str] = &["lora"];
const PASS4_ALL: &[&str] = &["gradient-flow", "gradient-ab", "depth-sweep"];
const PASS4_DEPTH: &[&str] = &["gradient-flow", "gradient-ab"];
const GRADIENT_FLOW: &[&str] = &["gradient-flow"];
const GRADIENT_AB: &[&str] = &["gradient-ab"];

/// Target patterns of Pass 3 (`target=`).
pub const TARGET_IDS: &[&str] = &["identity", "previous", "causal", "first", "random"];
/// Weight-matrix presets of the LoRA calculator (`lshape=`), d_out × d_in.
pub const LORA_SHAPE_IDS: &[&str] = &["4096x4096", "8192x8192", "8192x28672", "custom"];
/// Norm placements of Pass 4 (`norm=`, `anorm=`, `bnorm=`).
pub const NORM_IDS: &[&str] = &["none", "post", "pre"];

const fn int_param(
    key: &'static str,
    min: i64,
    max: i64,
    default: i64,
    meaning: &'static str,
    figures: &'static [&'static str],
) -> ParamSpec {
    ParamSpec {
        key,
        kind: ParamKind::Int { min, max },
        default: Value::Int(default),
        meaning,
        figures,
    }
}

const fn float_param(
    key: &'static str,
    min: f64,
    max: f64,
    default: f64,
    meaning: &'static str,
    figures: &'static [&'static str],
) -> ParamSpec {
    ParamSpec {
        key,
        kind: ParamKind::Float { min, max },
        default: Value::Float(default),
        meaning,
        figures,
    }
}

const fn choice_param(
    key: &'static str,
    options: &'static [&'static str],
    default: &'static str,
    meaning: &'static str,
    figures: &'static [&'static str],
) -> ParamSpec {
    ParamSpec {
        key,
        kind: ParamKind::Choice(options),
        default: Value::Choice(default),
        meaning,
        figures,
    }
}

const fn bool_param(
    key: &'static str,
    default: bool,
    meaning: &'static str,
    figures: &'static [&'static str],
) -> ParamSpec {
    ParamSpec {
        key,
        kind: ParamKind::Bool,
        default: Value::Bool(default),
        meaning,
        figures,
    }
}

/// Model presets of Pass 2 (`model=`), see `math::complexity::presets`.
pub const MODEL_IDS: &[&str] = &[
    "gpt2",
    "llama2-7b",
    "llama3-8b",
    "llama3-70b",
    "mistral-7b",
    "custom",
];
/// Element types of Pass 2 (`dtype=`).
pub const DTYPE_IDS: &[&str] = &["fp32", "bf16", "fp8", "int4"];

const fn custom(
    key: &'static str,
    min: i64,
    max: i64,
    default: i64,
    meaning: &'static str,
) -> ParamSpec {
    int_param(key, min, max, default, meaning, PASS2_MODEL)
}

/// Every URL key of the page. Order is the order keys are written in a link.
pub static PARAMS: &[ParamSpec] = &[
    ParamSpec {
        key: "n",
        kind: ParamKind::Int { min: 2, max: 64 },
        default: Value::Int(8),
        meaning: "Pass 1: number of tokens n",
        figures: PASS1_FIGURES,
    },
    ParamSpec {
        key: "dk",
        kind: ParamKind::Pow2 {
            min_exp: 0,
            max_exp: 10,
        },
        default: Value::Int(64),
        meaning: "Pass 1: key dimension d_k (a power of two)",
        figures: PASS1_FIGURES,
    },
    ParamSpec {
        key: "div",
        kind: ParamKind::Bool,
        default: Value::Bool(true),
        meaning: "Pass 1: divide the scores by √d_k",
        figures: JACOBIAN_ONLY,
    },
    ParamSpec {
        key: "alpha",
        kind: ParamKind::Float {
            min: 0.05,
            max: 50.0,
        },
        default: Value::Float(1.0),
        meaning: "Pass 1: logit scale α",
        figures: PASS1_FIGURES,
    },
    ParamSpec {
        key: "seed",
        kind: ParamKind::Int {
            min: 0,
            max: SEED_MAX,
        },
        default: Value::Int(1),
        meaning: "Pass 1: random seed for q and the keys",
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
        meaning: "Pass 1: explicit raw scores z (replace the sampled ones; n follows their count)",
        figures: JACOBIAN_ONLY,
    },
    ParamSpec {
        key: "ctx",
        kind: ParamKind::Int {
            min: 128,
            max: 1_048_576,
        },
        default: Value::Int(4096),
        meaning: "Pass 2: context length n in tokens",
        figures: PASS2_MODEL,
    },
    ParamSpec {
        key: "model",
        kind: ParamKind::Choice(MODEL_IDS),
        default: Value::Choice("llama2-7b"),
        meaning: "Pass 2: model configuration",
        figures: PASS2_MODEL,
    },
    ParamSpec {
        key: "dtype",
        kind: ParamKind::Choice(DTYPE_IDS),
        default: Value::Choice("bf16"),
        meaning: "Pass 2: element type of scores, cache and weights",
        figures: MEMORY_ONLY,
    },
    ParamSpec {
        key: "batch",
        kind: ParamKind::Int { min: 1, max: 64 },
        default: Value::Int(1),
        meaning: "Pass 2: batch size",
        figures: MEMORY_ONLY,
    },
    ParamSpec {
        key: "axes",
        kind: ParamKind::Choice(&["log", "linear"]),
        default: Value::Choice("log"),
        meaning: "Pass 2: memory axes, log or linear",
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
        kind: ParamKind::Choice(&["swiglu", "gelu"]),
        default: Value::Choice("swiglu"),
        meaning: "Pass 2, custom model: MLP kind",
        figures: PASS2_MODEL,
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
    int_param("rn", 2, 256, 32, "Pass 3: tokens n", PASS3_TOKENS),
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
        &["s", "a"],
        "s",
        "Pass 3: matrix shown, S or A = softmax(S)",
        SCORE_RANK,
    ),
    choice_param(
        "target",
        TARGET_IDS,
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
        LORA_SHAPE_IDS,
        "4096x4096",
        "Pass 3, LoRA: weight matrix d_out × d_in",
        LORA,
    ),
    int_param("lout", 1, 65_536, 4096, "Pass 3, LoRA custom: d_out", LORA),
    int_param("lin", 1, 65_536, 4096, "Pass 3, LoRA custom: d_in", LORA),
    int_param("lr", 1, 256, 8, "Pass 3, LoRA: rank r", LORA),
    choice_param(
        "ldtype",
        DTYPE_IDS,
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
    int_param("depth", 1, 128, 32, "Pass 4: depth L (blocks)", PASS4_DEPTH),
    bool_param("res", false, "Pass 4: residual connections", GRADIENT_FLOW),
    choice_param(
        "norm",
        NORM_IDS,
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
        &["act", "weight"],
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
        NORM_IDS,
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
        NORM_IDS,
        "pre",
        "Pass 4, side by side: norm placement of B",
        GRADIENT_AB,
    ),
];

/// The figures a page can show alone with `?embed=<id>` (public contract).
pub const FIGURE_IDS: &[&str] = &[
    "jacobian",
    "jacobian-vs-dk",
    "memory-vs-context",
    "flops-vs-context",
    "measured-attention",
    "score-rank",
    "low-rank-target",
    "multi-head",
    "lora",
    "gradient-flow",
    "gradient-ab",
    "depth-sweep",
];

/// A colour scheme forced by the URL (`theme=dark|light`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Theme {
    Light,
    Dark,
}

/// How the page is laid out, from the keys `embed`, `hide` and `theme`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ViewParams {
    /// Render only this figure (`embed=<figure-id>`).
    pub embed: Option<&'static str>,
    /// Hide the figure's controls (`hide=controls`).
    pub hide_controls: bool,
    /// Forced colour scheme.
    pub theme: Option<Theme>,
}

/// A visible message about a value from the URL that was changed or ignored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notice {
    /// The key as it appeared in the URL (text, never markup).
    pub key: String,
    pub message: String,
}

impl fmt::Display for Notice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.key, self.message)
    }
}

/// Why a value cannot be set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StateError {
    UnknownKey(String),
    WrongType(&'static str),
}

impl fmt::Display for StateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StateError::UnknownKey(k) => write!(f, "unknown key {k:?}"),
            StateError::WrongType(k) => write!(f, "wrong value type for key {k:?}"),
        }
    }
}

/// The value of every parameter, aligned with [`PARAMS`].
#[derive(Clone, Debug, PartialEq)]
pub struct Params {
    values: Vec<Value>,
}

impl Default for Params {
    fn default() -> Self {
        Self {
            values: PARAMS.iter().map(|p| p.default.clone()).collect(),
        }
    }
}

/// Longest value text read from the URL; longer text is rejected before parsing.
const MAX_VALUE_CHARS: usize = 4096;

fn spec_index(key: &str) -> Option<usize> {
    PARAMS.iter().position(|p| p.key == key)
}

/// A set of keys of [`PARAMS`]: bit i stands for `PARAMS[i]` (a test checks that every
/// key fits; past 64 keys this must widen).
pub type KeySet = u64;

thread_local! {
    /// The keys read through [`Params::get`] while a [`Recording`] runs.
    static READS: Cell<Option<KeySet>> = const { Cell::new(None) };
}

/// A recording of the keys read through [`Params::get`], from [`Recording::start`] to
/// [`Recording::finish`]. A recording inside another adds its keys to the outer one.
#[must_use]
pub struct Recording {
    outer: Option<KeySet>,
}

impl Recording {
    /// Starts recording (interrupting, and later adding to, any recording running).
    #[inline(never)]
    pub fn start() -> Recording {
        Recording {
            outer: READS.with(|r| r.replace(Some(0))),
        }
    }

    /// The keys read since [`Recording::start`].
    #[inline(never)]
    pub fn finish(self) -> KeySet {
        READS.with(|r| {
            let read = r.get().unwrap_or(0);
            r.set(self.outer.map(|o| o | read));
            read
        })
    }
}

/// Shortens user text for a notice, so a hostile URL cannot flood the page.
fn excerpt(text: &str) -> String {
    let mut out: String = text.chars().take(24).collect();
    if text.chars().count() > 24 {
        out.push('…');
    }
    out
}

fn parse_bool(text: &str) -> Option<bool> {
    match text.to_ascii_lowercase().as_str() {
        "1" | "true" | "on" | "yes" => Some(true),
        "0" | "false" | "off" | "no" => Some(false),
        _ => None,
    }
}

/// Nearest power of two (in log scale) to `x`, exponent clamped to the range.
fn nearest_pow2(x: f64, min_exp: u32, max_exp: u32) -> i64 {
    let e = if x <= 0.0 {
        min_exp as f64
    } else {
        x.log2().round()
    };
    1i64 << (e.clamp(min_exp as f64, max_exp as f64) as u32)
}

/// Rounds a finite value to `digits` significant decimal digits.
pub fn round_significant(x: f64, digits: i32) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let magnitude = x.abs().log10().floor() as i32;
    let factor = 10f64.powi(digits - 1 - magnitude);
    let rounded = (x * factor).round() / factor;
    if rounded.is_finite() {
        rounded
    } else {
        x
    }
}

/// Parses one value of `spec` from URL text. Returns the value and, when the text was
/// not taken as is, the notice to show.
/// The number a decimal numeral denotes, correctly rounded to f64 (±∞ past its range), or
/// `None` where `text` is not one: an optional sign, digits with an optional fraction
/// (`12`, `-2.5`, `.5`, `3.`), an optional exponent (`1e3`, `1.5E-7`). Nothing else: no
/// spaces, no hexadecimal, no `inf` or `NaN` (which the callers reject anyway).
///
/// In the browser the value comes from JavaScript's `parseFloat` of the checked numeral,
/// which rounds correctly as well (ECMA-262's StringToNumber), instead of `str::parse`,
/// whose correctly rounding algorithm brings a 10 KB table of powers of five into the
/// page's first load. Natively it is `str::parse`; a component test checks that the two
/// agree in the browser.
pub fn parse_number(text: &str) -> Option<f64> {
    if !is_decimal_numeral(text) {
        return None;
    }
    #[cfg(target_arch = "wasm32")]
    {
        Some(js_sys::Number::parse_float(text))
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        text.parse::<f64>().ok()
    }
}

/// Whether `text` is `[+-]? (digits [. digits?] | . digits) ([eE] [+-]? digits)?`.
pub fn is_decimal_numeral(text: &str) -> bool {
    let b = text.as_bytes();
    let mut i = 0;
    if matches!(b.first(), Some(b'+' | b'-')) {
        i += 1;
    }
    let digits_from = |mut i: usize| {
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        i
    };
    let int_end = digits_from(i);
    let mut any_digit = int_end > i;
    i = int_end;
    if b.get(i) == Some(&b'.') {
        let frac_end = digits_from(i + 1);
        any_digit |= frac_end > i + 1;
        i = frac_end;
    }
    if !any_digit {
        return false;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        let mut j = i + 1;
        if matches!(b.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        let exp_end = digits_from(j);
        if exp_end == j {
            return false;
        }
        i = exp_end;
    }
    i == b.len()
}

fn parse_value(spec: &ParamSpec, text: &str) -> (Value, Option<String>) {
    let fallback = |why: String| (spec.default.clone(), Some(why));
    if text.chars().count() > MAX_VALUE_CHARS {
        return fallback(format!(
            "value too long ({} characters); using the default",
            text.chars().count()
        ));
    }
    let shown = excerpt(text);
    match spec.kind {
        ParamKind::Int { min, max } => match parse_number(text.trim()) {
            Some(x) if x.is_finite() => {
                let whole = x.round();
                let clamped = whole.clamp(min as f64, max as f64) as i64;
                if clamped as f64 != x {
                    (
                        Value::Int(clamped),
                        Some(format!(
                            "{shown} is not a whole number in {min}–{max}; using {clamped}"
                        )),
                    )
                } else {
                    (Value::Int(clamped), None)
                }
            }
            _ => fallback(format!(
                "{shown:?} is not a number; using the default {}",
                display_value(&spec.default)
            )),
        },
        ParamKind::Float { min, max } => match parse_number(text.trim()) {
            Some(x) if x.is_finite() => {
                let clamped = x.clamp(min, max);
                if clamped != x {
                    (
                        Value::Float(clamped),
                        Some(format!(
                            "{shown} is outside {min}–{max}; clamped to {clamped}"
                        )),
                    )
                } else {
                    (Value::Float(x), None)
                }
            }
            _ => fallback(format!(
                "{shown:?} is not a finite number; using the default {}",
                display_value(&spec.default)
            )),
        },
        ParamKind::Pow2 { min_exp, max_exp } => match parse_number(text.trim()) {
            Some(x) if x.is_finite() => {
                let v = nearest_pow2(x, min_exp, max_exp);
                if v as f64 != x {
                    let (lo, hi) = (1i64 << min_exp, 1i64 << max_exp);
                    (
                        Value::Int(v),
                        Some(format!(
                            "{shown} is not a power of two in {lo}–{hi}; using {v}"
                        )),
                    )
                } else {
                    (Value::Int(v), None)
                }
            }
            _ => fallback(format!(
                "{shown:?} is not a number; using the default {}",
                display_value(&spec.default)
            )),
        },
        ParamKind::Bool => match parse_bool(text.trim()) {
            Some(b) => (Value::Bool(b), None),
            None => fallback(format!(
                "{shown:?} is not 1 or 0; using the default {}",
                display_value(&spec.default)
            )),
        },
        ParamKind::Choice(options) => {
            match options.iter().find(|o| o.eq_ignore_ascii_case(text.trim())) {
                Some(o) => (Value::Choice(o), None),
                None => fallback(format!(
                    "{shown:?} is not one of {}; using the default",
                    options.join(", ")
                )),
            }
        }
        ParamKind::FloatList {
            min_len,
            max_len,
            min,
            max,
        } => parse_list(text, min_len, max_len, min, max, spec),
    }
}

fn parse_list(
    text: &str,
    min_len: usize,
    max_len: usize,
    min: f64,
    max: f64,
    spec: &ParamSpec,
) -> (Value, Option<String>) {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return (Value::List(None), None);
    }
    let mut values = Vec::new();
    for (i, part) in trimmed.split(',').enumerate() {
        match parse_number(part.trim()) {
            Some(x) if x.is_finite() => values.push(x),
            _ => {
                return (
                    spec.default.clone(),
                    Some(format!(
                        "entry {} ({:?}) is not a finite number; ignoring the list",
                        i + 1,
                        excerpt(part)
                    )),
                )
            }
        }
    }
    let mut problems = Vec::new();
    if values.len() > max_len {
        problems.push(format!(
            "{} values given, kept the first {max_len}",
            values.len()
        ));
        values.truncate(max_len);
    }
    if values.len() < min_len {
        return (
            spec.default.clone(),
            Some(format!(
                "needs at least {min_len} values; ignoring the list"
            )),
        );
    }
    let clamped = values.iter().filter(|x| **x < min || **x > max).count();
    if clamped > 0 {
        problems.push(format!("{clamped} value(s) outside {min}–{max} clamped"));
        for x in values.iter_mut() {
            *x = x.clamp(min, max);
        }
    }
    let notice = if problems.is_empty() {
        None
    } else {
        Some(problems.join("; "))
    };
    (Value::List(Some(values)), notice)
}

/// The text a value takes in a URL.
pub fn display_value(value: &Value) -> String {
    match value {
        Value::Int(i) => i.to_string(),
        Value::Float(x) => format!("{x}"),
        Value::Bool(b) => if *b { "1" } else { "0" }.to_string(),
        Value::Choice(c) => (*c).to_string(),
        Value::List(None) => String::new(),
        Value::List(Some(v)) => v
            .iter()
            .map(|x| format!("{x}"))
            .collect::<Vec<_>>()
            .join(","),
    }
}

/// Percent-encodes URL text, keeping the characters our values use (digits, letters,
/// `.`, `-`, `,`) readable.
fn encode_component(text: &str) -> String {
    form_urlencoded::byte_serialize(text.as_bytes())
        .collect::<String>()
        .replace("%2C", ",")
}

impl Params {
    /// Parses a query string (with or without the leading `?`).
    pub fn from_query(query: &str) -> (Params, ViewParams, Vec<Notice>) {
        let mut params = Params::default();
        let mut view = ViewParams::default();
        let mut notices = Vec::new();
        let mut seen: Vec<String> = Vec::new();
        let query = query.strip_prefix('?').unwrap_or(query);
        for (raw_key, raw_value) in form_urlencoded::parse(query.as_bytes()) {
            let key = raw_key.to_string();
            if seen.contains(&key) {
                if spec_index(&key).is_some() || ["embed", "hide", "theme"].contains(&key.as_str())
                {
                    notices.push(Notice {
                        key: excerpt(&key),
                        message: "given more than once; used the first".into(),
                    });
                }
                continue;
            }
            seen.push(key.clone());
            match key.as_str() {
                "embed" => match FIGURE_IDS.iter().find(|id| **id == raw_value.trim()) {
                    Some(id) => view.embed = Some(id),
                    None => notices.push(Notice {
                        key: key.clone(),
                        message: format!(
                            "there is no figure {:?}; showing the whole page",
                            excerpt(&raw_value)
                        ),
                    }),
                },
                "hide" => {
                    if raw_value.split(',').any(|v| v.trim() == "controls") {
                        view.hide_controls = true;
                    } else {
                        notices.push(Notice {
                            key: key.clone(),
                            message: format!(
                                "{:?} is not understood (use hide=controls)",
                                excerpt(&raw_value)
                            ),
                        });
                    }
                }
                "theme" => match raw_value.trim() {
                    "dark" => view.theme = Some(Theme::Dark),
                    "light" => view.theme = Some(Theme::Light),
                    other => notices.push(Notice {
                        key: key.clone(),
                        message: format!(
                            "{:?} is not dark or light; following the system",
                            excerpt(other)
                        ),
                    }),
                },
                _ => {
                    if let Some(i) = spec_index(&key) {
                        let (value, notice) = parse_value(&PARAMS[i], &raw_value);
                        params.values[i] = value;
                        if let Some(message) = notice {
                            notices.push(Notice {
                                key: key.clone(),
                                message,
                            });
                        }
                    }
                }
            }
        }
        (params, view, notices)
    }

    /// The query string (no `?`) of every value that differs from its default, optionally
    /// only for keys used by `figure`.
    pub fn to_query(&self, figure: Option<&str>) -> String {
        PARAMS
            .iter()
            .zip(&self.values)
            .filter(|(spec, value)| **value != spec.default)
            .filter(|(spec, _)| figure.is_none_or(|f| spec.figures.contains(&f)))
            .map(|(spec, value)| {
                format!("{}={}", spec.key, encode_component(&display_value(value)))
            })
            .collect::<Vec<_>>()
            .join("&")
    }

    /// The value under `key`, or `None` for an unknown key. Every read of a value goes
    /// through here, so that [`Params::recording_reads`] sees it.
    pub fn get(&self, key: &str) -> Option<&Value> {
        let i = spec_index(key)?;
        READS.with(|r| {
            if let Some(set) = r.get() {
                r.set(Some(set | 1 << i));
            }
        });
        Some(&self.values[i])
    }

    /// Runs `f` on these parameters and gives its result with the set of keys it read
    /// (what it depends on; see [`Recording`]).
    pub fn recording_reads<T>(&self, f: impl FnOnce(&Params) -> T) -> (T, KeySet) {
        let recording = Recording::start();
        let value = f(self);
        (value, recording.finish())
    }

    /// Sets `key`, validating the value like URL text would be (clamped to its range);
    /// gives the key's index in [`PARAMS`].
    pub fn set(&mut self, key: &str, value: Value) -> Result<usize, StateError> {
        let i = spec_index(key).ok_or_else(|| StateError::UnknownKey(key.to_string()))?;
        let spec = &PARAMS[i];
        let same_type = std::mem::discriminant(&value) == std::mem::discriminant(&spec.default);
        if !same_type {
            return Err(StateError::WrongType(spec.key));
        }
        let (checked, _) = parse_value(spec, &display_value(&value));
        self.values[i] = checked;
        Ok(i)
    }

    /// An integer parameter (also Pow2); 0 for an unknown key or another type.
    pub fn int(&self, key: &str) -> i64 {
        match self.get(key) {
            Some(Value::Int(i)) => *i,
            _ => 0,
        }
    }

    /// A real parameter; 0 for an unknown key or another type.
    pub fn float(&self, key: &str) -> f64 {
        match self.get(key) {
            Some(Value::Float(x)) => *x,
            _ => 0.0,
        }
    }

    /// A boolean parameter; false for an unknown key or another type.
    pub fn flag(&self, key: &str) -> bool {
        matches!(self.get(key), Some(Value::Bool(true)))
    }

    /// A choice parameter; "" for an unknown key or another type.
    pub fn choice(&self, key: &str) -> &'static str {
        match self.get(key) {
            Some(Value::Choice(c)) => c,
            _ => "",
        }
    }

    /// A list parameter; `None` when unset.
    pub fn list(&self, key: &str) -> Option<Vec<f64>> {
        match self.get(key) {
            Some(Value::List(v)) => v.clone(),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bit of a key in a [`KeySet`].
    fn bit(key: &str) -> KeySet {
        // Test only: called with keys of PARAMS; an unknown one fails the test here.
        1 << spec_index(key).expect("a key of PARAMS")
    }

    #[test]
    fn every_key_fits_in_a_key_set() {
        assert!(PARAMS.len() <= KeySet::BITS as usize);
    }

    #[test]
    fn a_recording_holds_exactly_the_keys_read() {
        let p = Params::default();
        let ((), read) = p.recording_reads(|p| {
            let _ = p.int("n") + p.int("depth");
            let _ = p.flag("nonexistent");
        });
        let expected = bit("n") | bit("depth");
        assert_eq!(read, expected);
    }

    #[test]
    fn a_nested_recording_adds_its_keys_to_the_outer_one() {
        let p = Params::default();
        let (inner, outer) = p.recording_reads(|p| {
            let _ = p.int("n");
            p.recording_reads(|p| p.float("gain")).1
        });
        let gain = bit("gain");
        assert_eq!(inner, gain);
        assert_eq!(outer, gain | bit("n"));
    }

    #[test]
    fn reads_outside_a_recording_are_not_kept() {
        let p = Params::default();
        let _ = p.int("n");
        assert_eq!(p.recording_reads(|_| ()).1, 0);
    }

    fn parse(q: &str) -> (Params, ViewParams, Vec<Notice>) {
        Params::from_query(q)
    }

    #[test]
    fn decimal_numerals_parse_to_what_str_parse_gives() {
        for text in [
            "0",
            "12",
            "-2.5",
            "+3",
            ".5",
            "3.",
            "-.25",
            "1e3",
            "1.5E-7",
            "2e+2",
            "0.1",
            "0.30000000000000004",
            "123456789012345678901234567890",
            "1e308",
            "4.9e-324",
            "2.2250738585072014e-308",
        ] {
            assert_eq!(parse_number(text), text.parse::<f64>().ok(), "{text}");
        }
    }

    #[test]
    fn a_numeral_past_f64_is_infinite_not_rejected() {
        assert_eq!(parse_number("1e400"), Some(f64::INFINITY));
        assert_eq!(parse_number("-1e400"), Some(f64::NEG_INFINITY));
    }

    #[test]
    fn anything_but_a_decimal_numeral_is_rejected() {
        for text in [
            "", "+", "-", ".", "e3", "1e", "1e+", "1.2.3", "0x10", "inf", "Infinity", "NaN", "nan",
            " 1", "1 ", "1,5", "--1", "1e3.5", "١٢", "1_000", "<script>",
        ] {
            assert_eq!(parse_number(text), None, "{text:?}");
        }
    }

    #[test]
    fn empty_query_gives_defaults_and_no_notice() {
        let (p, v, n) = parse("");
        assert_eq!(p, Params::default());
        assert_eq!(v, ViewParams::default());
        assert!(n.is_empty());
    }

    #[test]
    fn defaults_are_left_out_of_the_query() {
        assert_eq!(Params::default().to_query(None), "");
    }

    #[test]
    fn valid_values_round_trip() {
        let q = "n=12&dk=256&div=0&alpha=3.5&seed=42&z=1.5,-0.2,3";
        let (p, _, n) = parse(q);
        assert!(n.is_empty(), "{n:?}");
        assert_eq!(p.to_query(None), q);
        let (again, _, _) = parse(&p.to_query(None));
        assert_eq!(again, p);
    }

    #[test]
    fn out_of_range_values_are_clamped_with_a_notice() {
        let (p, _, n) = parse("n=1000&alpha=-3");
        assert_eq!(p.int("n"), 64);
        assert_eq!(p.float("alpha"), 0.05);
        assert_eq!(n.len(), 2);
        assert!(n[0].message.contains("64"));
    }

    #[test]
    fn unparseable_nan_and_infinite_values_fall_back_to_the_default() {
        for bad in ["abc", "NaN", "inf", "-inf", "", "1e999"] {
            let (p, _, n) = parse(&format!("alpha={bad}"));
            assert_eq!(p.float("alpha"), 1.0, "alpha={bad}");
            assert_eq!(n.len(), 1, "alpha={bad}");
            assert_eq!(n[0].key, "alpha");
        }
    }

    #[test]
    fn dk_snaps_to_the_nearest_power_of_two() {
        let (p, _, n) = parse("dk=100");
        assert_eq!(p.int("dk"), 128);
        assert_eq!(n.len(), 1);
        let (p, _, n) = parse("dk=5000");
        assert_eq!(p.int("dk"), 1024);
        assert_eq!(n.len(), 1);
        let (p, _, n) = parse("dk=-3");
        assert_eq!(p.int("dk"), 1);
        assert_eq!(n.len(), 1);
    }

    #[test]
    fn unknown_keys_are_ignored_silently() {
        let (p, _, n) = parse("foo=bar&utm_source=x");
        assert_eq!(p, Params::default());
        assert!(n.is_empty());
    }

    #[test]
    fn repeated_keys_use_the_first_and_say_so() {
        let (p, _, n) = parse("n=5&n=9");
        assert_eq!(p.int("n"), 5);
        assert_eq!(n.len(), 1);
    }

    #[test]
    fn score_list_with_a_bad_entry_is_rejected_whole() {
        let (p, _, n) = parse("z=1,2,NaN");
        assert_eq!(p.list("z"), None);
        assert_eq!(n.len(), 1);
        assert!(n[0].message.contains("entry 3"));
    }

    #[test]
    fn score_list_is_truncated_and_clamped() {
        let many = (0..70).map(|i| i.to_string()).collect::<Vec<_>>().join(",");
        let (p, _, n) = parse(&format!("z={many}"));
        assert_eq!(p.list("z").map(|v| v.len()), Some(64));
        assert_eq!(n.len(), 1);
        let (p, _, _) = parse("z=1e9,0");
        assert_eq!(p.list("z"), Some(vec![1000.0, 0.0]));
    }

    #[test]
    fn score_list_needs_two_values() {
        let (p, _, n) = parse("z=3");
        assert_eq!(p.list("z"), None);
        assert_eq!(n.len(), 1);
    }

    #[test]
    fn percent_encoded_values_are_decoded() {
        let (p, _, n) = parse("z=1.5%2C-2&alpha=%32");
        assert!(n.is_empty());
        assert_eq!(p.list("z"), Some(vec![1.5, -2.0]));
        assert_eq!(p.float("alpha"), 2.0);
    }

    #[test]
    fn embed_view_and_theme_are_read() {
        let (_, v, n) = parse("embed=jacobian&hide=controls&theme=dark");
        assert_eq!(v.embed, Some("jacobian"));
        assert!(v.hide_controls);
        assert_eq!(v.theme, Some(Theme::Dark));
        assert!(n.is_empty());
    }

    #[test]
    fn unknown_embed_id_gives_a_notice_and_the_whole_page() {
        let (_, v, n) = parse("embed=%3Cscript%3E");
        assert_eq!(v.embed, None);
        assert_eq!(n.len(), 1);
        assert!(
            n[0].message.contains("<script>"),
            "text is kept as text: {}",
            n[0].message
        );
    }

    #[test]
    fn very_long_values_are_rejected_before_parsing() {
        let long = "9".repeat(10_000);
        let (p, _, n) = parse(&format!("alpha={long}"));
        assert_eq!(p.float("alpha"), 1.0);
        assert!(n[0].message.contains("too long"));
    }

    #[test]
    fn set_clamps_like_the_url_does() {
        let mut p = Params::default();
        // Test only: `n` is a known integer key, so set accepts it (500 is clamped).
        p.set("n", Value::Int(500)).unwrap();
        assert_eq!(p.int("n"), 64);
        assert_eq!(
            p.set("n", Value::Float(3.0)),
            Err(StateError::WrongType("n"))
        );
        assert!(matches!(
            p.set("nope", Value::Int(1)),
            Err(StateError::UnknownKey(_))
        ));
    }

    #[test]
    fn pass2_keys_parse_and_clamp() {
        let (p, _, n) = parse("ctx=2000000&model=LLAMA3-8B&dtype=fp8&batch=0&ckv=0");
        assert_eq!(p.int("ctx"), 1_048_576);
        assert_eq!(p.choice("model"), "llama3-8b");
        assert_eq!(p.choice("dtype"), "fp8");
        assert_eq!(p.int("batch"), 1);
        assert_eq!(p.int("ckv"), 1);
        assert_eq!(n.len(), 3, "{n:?}");
        let (p, _, n) = parse("model=gpt5");
        assert_eq!(p.choice("model"), "llama2-7b");
        assert_eq!(n.len(), 1);
    }

    #[test]
    fn figure_queries_carry_only_that_figures_keys() {
        let (p, _, _) = parse("n=12&div=0&z=1,2");
        assert_eq!(p.to_query(Some("jacobian-vs-dk")), "n=12");
        assert_eq!(p.to_query(Some("jacobian")), "n=12&div=0&z=1,2");
    }

    #[test]
    fn every_key_is_documented_in_the_readme() {
        let readme = include_str!("../README.md");
        for spec in PARAMS {
            let row = format!("| `{}` |", spec.key);
            assert!(
                readme.contains(&row),
                "README has no table row for key {}",
                spec.key
            );
        }
        for key in ["embed", "hide", "theme"] {
            assert!(
                readme.contains(&format!("| `{key}` |")),
                "README has no row for {key}"
            );
        }
    }

    #[test]
    fn every_figure_key_names_a_known_figure() {
        for spec in PARAMS {
            for f in spec.figures {
                assert!(
                    FIGURE_IDS.contains(f),
                    "{} names unknown figure {f}",
                    spec.key
                );
            }
        }
    }

    #[test]
    fn round_significant_by_hand() {
        assert_eq!(round_significant(1.2589254117941673, 3), 1.26);
        assert_eq!(round_significant(0.050118723, 3), 0.0501);
        assert_eq!(round_significant(49.99, 2), 50.0);
    }

    use proptest::prelude::*;
    proptest! {
        #[test]
        fn any_query_string_parses_without_panic_to_valid_values(q in ".{0,200}") {
            let (p, _, _) = Params::from_query(&q);
            let n = p.int("n");
            prop_assert!((2..=64).contains(&n));
            let a = p.float("alpha");
            prop_assert!(a.is_finite() && (0.05..=50.0).contains(&a));
            prop_assert!(p.int("dk").count_ones() == 1);
        }

        #[test]
        fn written_queries_parse_back_to_the_same_state(n in 2i64..=64, e in 0u32..=10, a in 0.05f64..50.0, seed in 0i64..999_999) {
            let mut p = Params::default();
            // Test only: set fails only on an unknown key or a wrong type; these are known keys
            // with values of their own type (out-of-range values are clamped, not refused).
            p.set("n", Value::Int(n)).unwrap();
            p.set("dk", Value::Int(1 << e)).unwrap();
            p.set("alpha", Value::Float(a)).unwrap();
            p.set("seed", Value::Int(seed)).unwrap();
            let (back, _, notices) = Params::from_query(&p.to_query(None));
            prop_assert!(notices.is_empty());
            prop_assert_eq!(back, p);
        }
    }
}
