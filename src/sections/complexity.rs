//! Pass 2 — complexity: why context is expensive (section id `complexity`).
//!
//! Figures `memory-vs-context` (the n² score matrix against the linear KV cache and
//! FlashAttention's working memory, for real model configurations), `flops-vs-context`
//! (the n² term against the linear terms, with the crossover) and `measured-attention`
//! (a real attention forward pass timed in this browser, with a fitted power law).

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::app::{use_url_state, UrlState};
use crate::formulas;
use crate::math::complexity::{
    attention_crossover, attention_rows, fit_power_law, flash_extra_bytes, growth_on_doubling,
    kv_bytes_per_token, kv_cache_bytes, layer_flops, presets, score_matrix_bytes, weights_bytes,
    MlpKind, ModelConfig,
};
use crate::math::rng::SeededStream;
use crate::state::{Params, Value};
use crate::widgets::format::{format_bytes, format_number};
use crate::widgets::hooks::{now_ms, yield_to_browser};
use crate::widgets::{
    Axis, Chart, ChartSpec, Figure, Formula, Mark, NumberField, Readout, Scale, Select, Slider,
    Tone,
};

/// Smallest and largest context on the controls and the x axis.
pub const MIN_CONTEXT: u64 = 128;
pub const MAX_CONTEXT: u64 = 1 << 20;
/// Accelerator memories drawn as levels: 24 GiB (consumer), 80 GiB (A100/H100), 141 GiB (H200).
pub const ACCELERATOR_GIB: [f64; 3] = [24.0, 80.0, 141.0];
const GIB: f64 = 1024.0 * 1024.0 * 1024.0;

/// Bytes per element of a `dtype=` value.
pub fn element_bytes(dtype: &str) -> f64 {
    match dtype {
        "fp32" => 4.0,
        "fp8" => 1.0,
        "int4" => 0.5,
        _ => 2.0,
    }
}

/// The configuration the URL asks for: a preset, or the custom fields, validated.
pub fn config_from_params(p: &Params) -> Result<ModelConfig, String> {
    let id = p.choice("model");
    if let Some((_, cfg)) = presets().into_iter().find(|(k, _)| *k == id) {
        return Ok(cfg);
    }
    let field = |key: &str| p.int(key).clamp(0, u32::MAX as i64) as u32;
    let window = p.int("cwin").max(0) as u64;
    let cfg = ModelConfig {
        name: "Custom".into(),
        layers: field("cl"),
        d_model: field("cd"),
        heads: field("ch"),
        kv_heads: field("ckv"),
        d_head: field("cdh"),
        d_ff: field("cff"),
        mlp: if p.choice("cmlp") == "gelu" {
            MlpKind::Gelu
        } else {
            MlpKind::SwiGlu
        },
        vocab: field("cv"),
        tied_embeddings: false,
        max_context: MAX_CONTEXT,
        sliding_window: (window > 0).then_some(window),
    };
    cfg.validate()
        .map(|_| cfg)
        .map_err(|e| format!("This custom configuration cannot be evaluated: {e}."))
}

/// Context lengths for curves: 2^(7 + k/4), from 128 to 2^20.
fn context_grid() -> Vec<u64> {
    (0..=52)
        .map(|k| 2f64.powf(7.0 + k as f64 / 4.0).round() as u64)
        .collect()
}

/// Everything Pass 2 computes from the URL state.
#[derive(Clone, Copy)]
pub struct ComplexityModel {
    pub state: UrlState,
    pub n: Memo<u64>,
    pub dtype: Memo<&'static str>,
    pub batch: Memo<u32>,
    pub log_axes: Memo<bool>,
    pub config: Memo<Result<ModelConfig, String>>,
}

/// The numbers read out at the chosen n.
#[derive(Clone, Debug, PartialEq)]
pub struct MemoryAtN {
    pub score: f64,
    pub kv: f64,
    pub flash: f64,
    pub weights: f64,
    pub score_growth: f64,
    pub kv_growth: f64,
}

impl ComplexityModel {
    pub fn new(state: UrlState) -> Self {
        let p = state;
        let n = Memo::new(move |_| {
            p.tracked(|p| p.int("ctx"))
                .clamp(MIN_CONTEXT as i64, MAX_CONTEXT as i64) as u64
        });
        let dtype = Memo::new(move |_| p.tracked(|p| p.choice("dtype")));
        let batch = Memo::new(move |_| p.tracked(|p| p.int("batch")).clamp(1, 64) as u32);
        let log_axes = Memo::new(move |_| p.tracked(|p| p.choice("axes")) != "linear");
        let config = Memo::new(move |_| p.tracked(config_from_params));
        Self {
            state,
            n,
            dtype,
            batch,
            log_axes,
            config,
        }
    }

    /// Memory at the chosen n (None when the configuration is invalid).
    pub fn memory_at_n(&self) -> Option<MemoryAtN> {
        let (n, b, e) = (
            self.n.get(),
            self.batch.get(),
            element_bytes(self.dtype.get()),
        );
        self.config.with(|c| {
            c.as_ref().ok().map(|cfg| MemoryAtN {
                score: score_matrix_bytes(cfg, b, n, e),
                kv: kv_cache_bytes(cfg, b, n, e),
                flash: flash_extra_bytes(cfg, b, n),
                weights: weights_bytes(cfg, e),
                score_growth: growth_on_doubling(|m| score_matrix_bytes(cfg, b, m, e), n),
                kv_growth: growth_on_doubling(|m| kv_cache_bytes(cfg, b, m, e), n),
            })
        })
    }
}

fn bytes_format(x: f64) -> String {
    format_bytes(x)
}

fn tokens_format(x: f64) -> String {
    format!("{}", x.round() as i64)
}

fn factor_format(x: f64) -> String {
    format!("×{}", format_number(x, 3))
}

const MODEL_OPTIONS: &[(&str, &str)] = &[
    ("gpt2", "GPT-2 small"),
    ("llama2-7b", "Llama-2-7B"),
    ("llama3-8b", "Llama-3-8B (GQA)"),
    ("llama3-70b", "Llama-3-70B (GQA)"),
    ("mistral-7b", "Mistral-7B (sliding window)"),
    ("custom", "Custom"),
];
const DTYPE_OPTIONS: &[(&str, &str)] = &[
    ("fp32", "fp32 (4 bytes)"),
    ("bf16", "bf16 (2 bytes)"),
    ("fp8", "fp8 (1 byte)"),
    ("int4", "int4 (½ byte)"),
];
const AXES_OPTIONS: &[(&str, &str)] = &[("log", "log"), ("linear", "linear")];
const MLP_OPTIONS: &[(&str, &str)] = &[
    ("swiglu", "SwiGLU (3 matrices)"),
    ("gelu", "GELU (2 matrices)"),
];

fn choice_signal(
    state: UrlState,
    key: &'static str,
) -> (Signal<&'static str>, Callback<&'static str>) {
    let value = state.choice(key).into();
    let set = Callback::new(move |v: &'static str| state.set_many(vec![(key, Value::Choice(v))]));
    (value, set)
}

fn int_signal(state: UrlState, key: &'static str) -> (Signal<i64>, Callback<i64>) {
    let value = state.int(key).into();
    let set = Callback::new(move |v: i64| state.set_many(vec![(key, Value::Int(v))]));
    (value, set)
}

/// Model, context and (for memory) element type, batch and axes; custom fields when chosen.
#[component]
fn ModelControls(
    model: ComplexityModel,
    #[prop(default = false)] memory: bool,
    #[prop(default = "")] instance: &'static str,
) -> impl IntoView {
    let state = model.state;
    let (model_id, set_model) = choice_signal(state, "model");
    let set_ctx =
        Callback::new(move |v: f64| state.set_many(vec![("ctx", Value::Int(v.round() as i64))]));
    let custom_fields = move || {
        let field = |key: &'static str, label: &'static str, min: i64, max: i64| {
            let (value, set) = int_signal(state, key);
            view! { <NumberField key=key label=label value=value on_change=set min=min max=max instance=instance /> }
        };
        let (mlp, set_mlp) = choice_signal(state, "cmlp");
        view! {
            <fieldset class="custom-model" data-custom-model="">
                <legend>"Custom configuration"</legend>
                {field("cl", "Layers", 1, 256)}
                {field("cd", "d_model", 1, 65_536)}
                {field("ch", "Query heads", 1, 512)}
                {field("ckv", "Key/value heads", 1, 512)}
                {field("cdh", "d_head", 1, 1024)}
                {field("cff", "MLP width d_ff", 1, 262_144)}
                <Select key="cmlp" label="MLP" options=MLP_OPTIONS value=mlp on_change=set_mlp instance=instance />
                {field("cv", "Vocabulary", 1, 1_000_000)}
                {field("cwin", "Sliding window (0 = none)", 0, 1_048_576)}
            </fieldset>
        }
    };
    view! {
        <Select key="model" label="Model" options=MODEL_OPTIONS value=model_id on_change=set_model instance=instance />
        <Slider key="ctx" label="Context n" instance=instance value=Signal::derive(move || model.n.get() as f64) on_change=set_ctx
            scale=Scale::Log2 { min_exp: 7, max_exp: 20, per_octave: 4 } unit="tokens" format=tokens_format />
        {memory.then(|| {
            let (dtype, set_dtype) = choice_signal(state, "dtype");
            let (axes, set_axes) = choice_signal(state, "axes");
            let set_batch = Callback::new(move |v: f64| state.set_many(vec![("batch", Value::Int(v.round() as i64))]));
            view! {
                <Select key="dtype" label="Element type" options=DTYPE_OPTIONS value=dtype on_change=set_dtype instance=instance />
                <Slider key="batch" label="Batch" instance=instance value=Signal::derive(move || model.batch.get() as f64) on_change=set_batch
                    scale=Scale::Linear { min: 1.0, max: 64.0, step: 1.0 } format=tokens_format />
                <Select key="axes" label="Axes" options=AXES_OPTIONS value=axes on_change=set_axes instance=instance />
            }
        })}
        <Show when=move || model_id.get() == "custom">{custom_fields}</Show>
    }
}

/// The visible message for an invalid custom configuration.
#[component]
fn ConfigProblem(model: ComplexityModel) -> impl IntoView {
    view! {
        <Show when=move || model.config.with(|c| c.is_err())>
            <p class="config-error" role="alert" data-config-error="">
                {move || model.config.with(|c| c.as_ref().err().cloned().unwrap_or_default())}
            </p>
        </Show>
    }
}

/// Figure `memory-vs-context`.
#[component]
pub fn MemoryFigure(
    model: ComplexityModel,
    #[prop(default = true)] show_controls: bool,
) -> impl IntoView {
    let at_n = Memo::new(move |_| model.memory_at_n());
    let spec = Signal::derive(move || {
        let (b, e, n, log) = (
            model.batch.get(),
            element_bytes(model.dtype.get()),
            model.n.get(),
            model.log_axes.get(),
        );
        let grid = context_grid();
        model.config.with(|c| {
            let Ok(cfg) = c else {
                return ChartSpec {
                    x: Axis {
                        label: "context n (tokens)".into(),
                        min: MIN_CONTEXT as f64,
                        max: MAX_CONTEXT as f64,
                        log: true,
                    },
                    y: Axis {
                        label: "bytes".into(),
                        min: 1.0,
                        max: 1e12,
                        log: true,
                    },
                    marks: vec![],
                    legend_left: true,
                };
            };
            let curve =
                |f: &dyn Fn(u64) -> f64| grid.iter().map(|&m| (m as f64, f(m))).collect::<Vec<_>>();
            let score = curve(&|m| score_matrix_bytes(cfg, b, m, e));
            let kv = curve(&|m| kv_cache_bytes(cfg, b, m, e));
            let flash = curve(&|m| flash_extra_bytes(cfg, b, m));
            let weights = weights_bytes(cfg, e);
            let top_accel = ACCELERATOR_GIB[2] * GIB;
            let (x, y) = if log {
                let lo = flash
                    .iter()
                    .chain(&kv)
                    .map(|p| p.1)
                    .filter(|v| *v > 0.0)
                    .fold(f64::MAX, f64::min)
                    .min(weights);
                let hi = score
                    .iter()
                    .map(|p| p.1)
                    .fold(top_accel, f64::max)
                    .max(weights);
                (
                    Axis {
                        label: "context n (tokens)".into(),
                        min: MIN_CONTEXT as f64,
                        max: MAX_CONTEXT as f64,
                        log: true,
                    },
                    Axis {
                        label: "bytes".into(),
                        min: 10f64.powf(lo.log10().floor()),
                        max: 10f64.powf(hi.log10().ceil()),
                        log: true,
                    },
                )
            } else {
                let hi = kv
                    .last()
                    .map(|p| p.1)
                    .unwrap_or(0.0)
                    .max(weights)
                    .max(top_accel)
                    * 1.2;
                (
                    Axis {
                        label: "context n (tokens)".into(),
                        min: 0.0,
                        max: MAX_CONTEXT as f64,
                        log: false,
                    },
                    Axis {
                        label: "bytes".into(),
                        min: 0.0,
                        max: hi,
                        log: false,
                    },
                )
            };
            let mut marks = vec![
                Mark::Line {
                    label: "scores (one layer), n²".into(),
                    points: score,
                    tone: Tone::Coral,
                    dashed: false,
                    dots: false,
                },
                Mark::Line {
                    label: "KV cache (all layers), n".into(),
                    points: kv,
                    tone: Tone::Blue,
                    dashed: false,
                    dots: false,
                },
                Mark::Line {
                    label: "FlashAttention extra, n".into(),
                    points: flash,
                    tone: Tone::Purple,
                    dashed: true,
                    dots: false,
                },
                Mark::HRule {
                    label: "weights".into(),
                    y: weights,
                    tone: Tone::Gold,
                },
            ];
            for (i, gib) in ACCELERATOR_GIB.iter().enumerate() {
                let label = if i == 0 {
                    "24 / 80 / 141 GiB accelerators".to_string()
                } else {
                    String::new()
                };
                marks.push(Mark::HRule {
                    label,
                    y: gib * GIB,
                    tone: Tone::Muted,
                });
            }
            marks.push(Mark::VRule {
                label: "chosen n".into(),
                x: n as f64,
                tone: Tone::Fg,
            });
            ChartSpec {
                x,
                y,
                marks,
                legend_left: true,
            }
        })
    });
    let name = move || {
        model.config.with(|c| {
            c.as_ref()
                .map(|c| c.name.clone())
                .unwrap_or_else(|_| "the custom model".into())
        })
    };
    let caption = Signal::derive(move || {
        match at_n.get() {
        None => "No figure: the custom configuration is invalid (see the message above).".to_string(),
        Some(m) => format!(
            "{} at n = {} tokens, batch {}, {}: one layer's score matrix takes {} and grows ×{} when n doubles; the whole KV cache takes {} and grows ×{}; FlashAttention never stores the matrix and keeps {} per layer instead. The scores are {} times the cache.",
            name(),
            model.n.get(),
            model.batch.get(),
            model.dtype.get(),
            format_bytes(m.score),
            format_number(m.score_growth, 3),
            format_bytes(m.kv),
            format_number(m.kv_growth, 3),
            format_bytes(m.flash),
            format_number(m.score / m.kv.max(f64::MIN_POSITIVE), 3),
        ),
    }
    });
    let summary = Signal::derive(move || {
        let marker = at_n
            .get()
            .map(|m| {
                format!(
                    " Marked at n = {}: scores of one layer {}, KV cache {}.",
                    model.n.get(),
                    format_bytes(m.score),
                    format_bytes(m.kv)
                )
            })
            .unwrap_or_default();
        format!(
            "Memory against context length on {} axes for {}.{marker}",
            if model.log_axes.get() {
                "log"
            } else {
                "linear"
            },
            name()
        )
    });
    let csv = Callback::new(move |_| {
        let (b, e) = (
            model.batch.get_untracked(),
            element_bytes(model.dtype.get_untracked()),
        );
        model.config.with_untracked(|c| match c {
            Ok(cfg) => {
                let mut out = String::from("n,score_bytes_one_layer,kv_cache_bytes,flash_extra_bytes_one_layer,weights_bytes\n");
                for m in context_grid() {
                    out.push_str(&format!("{m},{},{},{},{}\n", score_matrix_bytes(cfg, b, m, e), kv_cache_bytes(cfg, b, m, e), flash_extra_bytes(cfg, b, m), weights_bytes(cfg, e)));
                }
                out
            }
            Err(e) => format!("error\n\"{e}\"\n"),
        })
    });
    let get = move |f: fn(&MemoryAtN) -> f64| {
        Signal::derive(move || at_n.with(|m| m.as_ref().map(f).unwrap_or(0.0)))
    };
    view! {
        <Figure id="memory-vs-context" title="Memory against context: the n² wall and the linear cache" caption=caption summary=summary csv=csv
            controls=move || view! { <ModelControls model=model memory=true /> } show_controls=show_controls>
            <ConfigProblem model=model />
            <Chart name="memory-vs-context" spec=spec summary=summary aspect=0.55 />
            <Show when=move || at_n.with(|m| m.is_some())>
                <div class="readouts">
                    <Readout name="score-bytes" label="scores, one layer" value=get(|m| m.score) format=bytes_format />
                    <Readout name="kv-bytes" label="KV cache" value=get(|m| m.kv) format=bytes_format />
                    <Readout name="flash-bytes" label="FlashAttention extra" value=get(|m| m.flash) format=bytes_format />
                    <Readout name="weights-bytes" label="weights" value=get(|m| m.weights) format=bytes_format />
                    <Readout name="score-kv-ratio" label="scores ÷ cache" value=get(|m| m.score / m.kv.max(f64::MIN_POSITIVE)) />
                    <Readout name="score-growth" label="scores when n doubles" value=get(|m| m.score_growth) format=factor_format />
                    <Readout name="kv-growth" label="cache when n doubles" value=get(|m| m.kv_growth) format=factor_format />
                </div>
            </Show>
        </Figure>
    }
}

/// Figure `flops-vs-context`.
#[component]
pub fn FlopsFigure(
    model: ComplexityModel,
    #[prop(default = true)] show_controls: bool,
) -> impl IntoView {
    let crossover = Memo::new(move |_| {
        model
            .config
            .with(|c| c.as_ref().ok().map(attention_crossover))
    });
    let spec = Signal::derive(move || {
        let n = model.n.get();
        model.config.with(|c| {
            let x = Axis {
                label: "context n (tokens)".into(),
                min: MIN_CONTEXT as f64,
                max: MAX_CONTEXT as f64,
                log: true,
            };
            let Ok(cfg) = c else {
                return ChartSpec {
                    x,
                    y: Axis {
                        label: "FLOPs per layer".into(),
                        min: 1.0,
                        max: 1e12,
                        log: true,
                    },
                    marks: vec![],
                    legend_left: true,
                };
            };
            let grid = context_grid();
            let series = |f: fn(&crate::math::complexity::LayerFlops) -> f64| {
                grid.iter()
                    .map(|&m| (m as f64, f(&layer_flops(cfg, m))))
                    .collect::<Vec<_>>()
            };
            let (att, proj, mlp) = (
                series(|f| f.attention_scores),
                series(|f| f.projections),
                series(|f| f.mlp),
            );
            let lo = att
                .iter()
                .chain(&proj)
                .chain(&mlp)
                .map(|p| p.1)
                .fold(f64::MAX, f64::min);
            let hi = att
                .iter()
                .chain(&proj)
                .chain(&mlp)
                .map(|p| p.1)
                .fold(0.0, f64::max);
            let y = Axis {
                label: "FLOPs per layer".into(),
                min: 10f64.powf(lo.log10().floor()),
                max: 10f64.powf(hi.log10().ceil()),
                log: true,
            };
            let mut marks = vec![
                Mark::Line {
                    label: "attention scores + AV, n²".into(),
                    points: att,
                    tone: Tone::Coral,
                    dashed: false,
                    dots: false,
                },
                Mark::Line {
                    label: "Q, K, V, O projections, n".into(),
                    points: proj,
                    tone: Tone::Blue,
                    dashed: false,
                    dots: false,
                },
                Mark::Line {
                    label: "MLP, n".into(),
                    points: mlp,
                    tone: Tone::Green,
                    dashed: false,
                    dots: false,
                },
                Mark::VRule {
                    label: "chosen n".into(),
                    x: n as f64,
                    tone: Tone::Fg,
                },
            ];
            let star = attention_crossover(cfg);
            marks.push(Mark::VRule {
                label: "crossover n*".into(),
                x: star,
                tone: Tone::Purple,
            });
            ChartSpec {
                x,
                y,
                marks,
                legend_left: true,
            }
        })
    });
    let share = Memo::new(move |_| {
        let n = model.n.get();
        model.config.with(|c| {
            c.as_ref().ok().map(|cfg| {
                let f = layer_flops(cfg, n);
                f.attention_scores / (f.attention_scores + f.projections + f.mlp)
            })
        })
    });
    let caption = Signal::derive(move || {
        match (crossover.get(), share.get()) {
        (Some(star), Some(s)) => format!(
            "Per layer, the n² term (QKᵀ and the weighted sum of V) overtakes the projections and the MLP together at n* = {} tokens. At n = {}, attention's n² term is {}% of the layer's forward FLOPs{}.",
            star.round() as u64,
            model.n.get(),
            format_number(100.0 * s, 3),
            if (model.n.get() as f64) < star { ", so the model is still dominated by its matrix multiplications over d" } else { ": past the crossover, context length sets the cost" }
        ),
        _ => "No figure: the custom configuration is invalid.".to_string(),
    }
    });
    let summary = Signal::derive(move || {
        format!(
            "Log-log chart of FLOPs per layer against context, marked at n = {}; crossover at {} tokens.",
            model.n.get(),
            crossover
                .get()
                .map(|c| (c.round() as u64).to_string())
                .unwrap_or_else(|| "—".into())
        )
    });
    let csv = Callback::new(move |_| {
        model.config.with_untracked(|c| match c {
            Ok(cfg) => {
                let mut out = String::from("n,attention_scores_flops,projection_flops,mlp_flops\n");
                for m in context_grid() {
                    let f = layer_flops(cfg, m);
                    out.push_str(&format!(
                        "{m},{},{},{}\n",
                        f.attention_scores, f.projections, f.mlp
                    ));
                }
                out
            }
            Err(e) => format!("error\n\"{e}\"\n"),
        })
    });
    view! {
        <Figure id="flops-vs-context" title="FLOPs per layer: where attention starts to dominate" caption=caption summary=summary csv=csv
            controls=move || view! { <ModelControls model=model instance="-flops" /> } show_controls=show_controls>
            <ConfigProblem model=model />
            <Chart name="flops-vs-context" spec=spec summary=summary aspect=0.55 />
            <Show when=move || crossover.get().is_some()>
                <div class="readouts">
                    <Readout name="crossover-n" label="crossover n*" unit="tokens" value=Signal::derive(move || crossover.get().unwrap_or(0.0)) format=tokens_format />
                    <Readout name="attention-share" label="n² share at n" value=Signal::derive(move || share.get().unwrap_or(0.0)) />
                </div>
            </Show>
        </Figure>
    }
}

/// Head dimension of the measured attention.
pub const MEASURE_D: usize = 64;
/// Stop doubling once one forward pass takes longer than this (ms), or at n = 4096.
pub const MEASURE_STOP_MS: f64 = 200.0;
pub const MEASURE_MAX_N: usize = 4096;
/// Measure each size for at least this long (ms), repeating passes, to beat timer resolution.
const MEASURE_MIN_TOTAL_MS: f64 = 40.0;
/// Work per slice before yielding to the browser (multiply–adds).
const SLICE_WORK: usize = 1 << 20;

/// Times one size: repeated forward passes computed a few rows at a time, yielding in
/// between; returns milliseconds per pass, or None if cancelled.
async fn time_attention(n: usize, cancel: RwSignal<bool>) -> Option<f64> {
    let d = MEASURE_D;
    let draw =
        |stream: u64| SeededStream::new(2026, &[stream, n as u64]).standard_normal_vec(n * d);
    let (q, k, v) = (draw(1), draw(2), draw(3));
    let mut out = vec![0.0; n * d];
    let mut scores = vec![0.0; n];
    let rows_per_slice = (SLICE_WORK / (2 * n * d)).max(1);
    let (mut total, mut passes) = (0.0, 0u32);
    while total < MEASURE_MIN_TOTAL_MS || passes == 0 {
        let mut row = 0;
        while row < n {
            let started = now_ms();
            attention_rows(
                &q,
                &k,
                &v,
                d,
                row..(row + rows_per_slice).min(n),
                &mut out,
                &mut scores,
            );
            total += now_ms() - started;
            row += rows_per_slice;
            yield_to_browser().await;
            if cancel.get_untracked() {
                return None;
            }
        }
        passes += 1;
        if total / passes as f64 > MEASURE_STOP_MS {
            break;
        }
    }
    Some(total / passes as f64)
}

/// Figure `measured-attention`.
#[component]
pub fn MeasuredFigure(#[prop(default = true)] show_controls: bool) -> impl IntoView {
    let points = RwSignal::new(Vec::<(f64, f64)>::new());
    let running = RwSignal::new(false);
    let cancel = RwSignal::new(false);
    let status = RwSignal::new(String::from(
        "Not measured yet: the points will be this browser's own.",
    ));
    let fit = Memo::new(move |_| points.with(|p| fit_power_law(p)));

    let start = move || {
        if running.get_untracked() {
            return;
        }
        running.set(true);
        cancel.set(false);
        points.set(Vec::new());
        spawn_local(async move {
            let mut n = 64usize;
            loop {
                status.set(format!("Measuring n = {n}…"));
                match time_attention(n, cancel).await {
                    None => {
                        status.set(format!(
                            "Cancelled at n = {n}; {} sizes measured.",
                            points.with_untracked(|p| p.len())
                        ));
                        break;
                    }
                    Some(ms) => {
                        points.update(|p| p.push((n as f64, ms)));
                        if ms > MEASURE_STOP_MS || n >= MEASURE_MAX_N {
                            status.set(format!(
                                "Done: {} sizes, the largest n = {n} took {} ms per forward pass.",
                                points.with_untracked(|p| p.len()),
                                format_number(ms, 3)
                            ));
                            break;
                        }
                    }
                }
                n *= 2;
            }
            running.set(false);
        });
    };
    let spec = Signal::derive(move || {
        let pts = points.get();
        let hi_t = pts.iter().map(|p| p.1).fold(1.0, f64::max);
        let lo_t = pts
            .iter()
            .map(|p| p.1)
            .filter(|t| *t > 0.0)
            .fold(hi_t, f64::min);
        let mut marks = vec![Mark::Line {
            label: "measured".into(),
            points: pts.clone(),
            tone: Tone::Blue,
            dashed: false,
            dots: true,
        }];
        if let Some((c, b)) = fit.get() {
            let line: Vec<(f64, f64)> = [64.0, MEASURE_MAX_N as f64]
                .iter()
                .map(|&n| (n, c * n.powf(b)))
                .collect();
            marks.push(Mark::Line {
                label: format!("fit: t ∝ n^{}", format_number(b, 3)),
                points: line,
                tone: Tone::Coral,
                dashed: true,
                dots: false,
            });
        }
        ChartSpec {
            x: Axis {
                label: "n (tokens), d = 64".into(),
                min: 32.0,
                max: 8192.0,
                log: true,
            },
            y: Axis {
                label: "ms per forward pass".into(),
                min: 10f64.powf((lo_t.log10() - 0.5).floor()).min(0.01),
                max: 10f64.powf((hi_t.log10() + 0.3).ceil()),
                log: true,
            },
            marks,
            legend_left: true,
        }
    });
    let caption = Signal::derive(move || {
        match fit.get() {
        Some((_, b)) => format!(
            "Single-head attention (S = QKᵀ/√64, row softmax, times V) run in this browser's WebAssembly for {} sizes. The least-squares fit on log axes gives time ∝ n^{}: {}.",
            points.with(|p| p.len()),
            format_number(b, 3),
            if (b - 2.0).abs() < 0.25 { "the quadratic law, measured" } else if b < 2.0 { "below 2, as fixed costs still weigh on the smallest sizes" } else { "above 2, as the largest sizes outgrow the processor's caches" }
        ),
        None => "Press the button to time attention for n = 64, 128, … in this browser.".to_string(),
    }
    });
    let summary = Signal::derive(move || {
        format!(
            "Log-log chart of measured attention time against n; {} points.",
            points.with(|p| p.len())
        )
    });
    let csv = Callback::new(move |_| {
        let fit = fit.get_untracked();
        let mut out = String::from("n,ms_per_forward_pass,fitted_ms\n");
        for (n, t) in points.get_untracked() {
            let fitted = fit
                .map(|(c, b)| (c * n.powf(b)).to_string())
                .unwrap_or_default();
            out.push_str(&format!("{n},{t},{fitted}\n"));
        }
        out
    });
    let controls = move || {
        view! {
            <div class="control control-measure">
                <button type="button" data-action="measure" disabled=move || running.get() on:click=move |_| start()>
                    "Measure in this browser"
                </button>
                <button type="button" data-action="cancel-measure" disabled=move || !running.get() on:click=move |_| cancel.set(true)>
                    "Cancel"
                </button>
            </div>
        }
    };
    view! {
        <Figure id="measured-attention" title="Measured: attention's time in your browser" caption=caption summary=summary csv=csv
            controls=controls show_controls=show_controls>
            <p class="measure-status" role="status" aria-live="polite" data-measure-status="">{move || status.get()}</p>
            <Chart name="measured-attention" spec=spec summary=summary aspect=0.5 />
            <Show when=move || fit.get().is_some()>
                <div class="readouts">
                    <Readout name="exponent" label="fitted exponent b (t ∝ nᵇ)" value=Signal::derive(move || fit.get().map(|f| f.1).unwrap_or(0.0)) />
                    <Readout name="measured-sizes" label="sizes measured" value=Signal::derive(move || points.with(|p| p.len() as f64)) format=tokens_format />
                </div>
            </Show>
        </Figure>
    }
}

/// One Pass 2 figure alone (the embed view); `None` for another pass's figure id.
pub fn figure(id: &str, show_controls: bool) -> Option<AnyView> {
    let model = ComplexityModel::new(use_url_state());
    match id {
        "memory-vs-context" => {
            Some(view! { <MemoryFigure model=model show_controls=show_controls /> }.into_any())
        }
        "flops-vs-context" => {
            Some(view! { <FlopsFigure model=model show_controls=show_controls /> }.into_any())
        }
        "measured-attention" => {
            Some(view! { <MeasuredFigure show_controls=show_controls /> }.into_any())
        }
        _ => None,
    }
}

/// The KV-cache bytes per token of the chosen model, as a sentence (for the prose).
fn per_token_sentence(model: ComplexityModel) -> String {
    let e = element_bytes(model.dtype.get());
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
            <h2 id="complexity-title"><span class="pass-number">"Pass 2"</span>" Complexity: why context is expensive"</h2>
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
            <MemoryFigure model=model />
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_come_from_the_url() {
        let (p, _, _) = Params::from_query("model=llama3-70b");
        assert_eq!(config_from_params(&p).map(|c| c.layers), Ok(80));
    }

    #[test]
    fn invalid_custom_configuration_is_a_message_not_a_panic() {
        let (p, _, _) = Params::from_query("model=custom&ch=32&ckv=5");
        let err = config_from_params(&p).unwrap_err();
        assert!(err.contains("kv_heads (5) must divide heads (32)"), "{err}");
        let (p, _, notices) = Params::from_query("model=custom&ch=0&cd=NaN");
        assert_eq!(
            notices.len(),
            2,
            "zero heads and NaN are named: {notices:?}"
        );
        // heads clamps to 1, which the default 8 KV heads then exceed: a message again.
        let err = config_from_params(&p).unwrap_err();
        assert!(err.contains("cannot exceed heads (1)"), "{err}");
    }

    #[test]
    fn element_sizes_by_hand() {
        assert_eq!(element_bytes("fp32"), 4.0);
        assert_eq!(element_bytes("bf16"), 2.0);
        assert_eq!(element_bytes("fp8"), 1.0);
        assert_eq!(element_bytes("int4"), 0.5);
    }

    #[test]
    fn context_grid_spans_the_control() {
        let g = context_grid();
        assert_eq!(g.first(), Some(&MIN_CONTEXT));
        assert_eq!(g.last(), Some(&MAX_CONTEXT));
    }
}
