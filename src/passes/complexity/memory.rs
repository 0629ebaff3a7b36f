//! Figure `memory-vs-context`: the materialised score matrix (n², coral) against the KV
//! cache (n, blue) and FlashAttention's working memory, for real model configurations.

use leptos::prelude::*;

use crate::state::registry::FigureId;

use super::controls::{
    ConfigProblem, ContextSlider, MemoryMoreControls, ModelSelect, MEMORY_MORE_KEYS,
};
use super::model::*;
use super::steps::ASKS;
use crate::math::complexity::MAX_CONTEXT;
use crate::math::complexity::MIN_CONTEXT;
use crate::math::complexity::{
    cached_positions, flash_extra_bytes, kv_cache_bytes, score_matrix_bytes, weights_bytes,
    ModelConfig,
};
use crate::passes::lazy::LazySteps;
use crate::state::choices::DTYPES;
use crate::widgets::format::growth_factor;
use crate::widgets::format::{format_bytes, format_number, grouped_whole, tick_label};
use crate::widgets::{
    Axis, Chart, ChartSpec, Figure, LinkSignal, LinkedFormula, Mark, Readout, Tone,
};

/// The KV-cache bytes at context n written out factor by factor:
/// b × 2 × L × h_kv × d_head × n × e = … (n the positions cached, under a sliding window).
pub fn kv_cache_formula(cfg: &ModelConfig, batch: u32, n: u64, elem_bytes: f64) -> String {
    let cached = cached_positions(cfg, n);
    let positions = if cached < n {
        format!("{} (the window)", grouped_whole(cached as f64))
    } else {
        grouped_whole(n as f64)
    };
    format!(
        "KV cache at n = {}: b × 2 × L × h_kv × d_head × n × e = {batch} × 2 × {} × {} × {} × {positions} × {} B = {}",
        grouped_whole(n as f64),
        cfg.layers,
        cfg.kv_heads,
        cfg.d_head,
        tick_label(elem_bytes),
        format_bytes(kv_cache_bytes(cfg, batch, n, elem_bytes))
    )
}

/// One layer's score bytes at context n written out: b × h × n² × e = ….
pub fn score_bytes_formula(cfg: &ModelConfig, batch: u32, n: u64, elem_bytes: f64) -> String {
    format!(
        "Scores of one layer at n = {}: b × h × n² × e = {batch} × {} × {}² × {} B = {}",
        grouped_whole(n as f64),
        cfg.heads,
        grouped_whole(n as f64),
        tick_label(elem_bytes),
        format_bytes(score_matrix_bytes(cfg, batch, n, elem_bytes))
    )
}

/// The figure alone, as the embed view shows it (the registry's loaders call this).
pub fn alone(show_controls: bool) -> AnyView {
    view! { <MemoryFigure model=super::model::ComplexityModel::new(crate::state::use_url_state()) show_controls=show_controls /> }.into_any()
}

/// Figure `memory-vs-context`.
#[component]
pub fn MemoryFigure(
    model: ComplexityModel,
    #[prop(default = true)] show_controls: bool,
) -> impl IntoView {
    let at_n = Memo::new(move |_| model.memory_at_n());
    // Linked: a term of the formula, or the line under the pointer at a context.
    let linked: LinkSignal = RwSignal::new(None);
    let hover_n = RwSignal::new(None::<u64>);
    let on_hover = Callback::new(move |at: Option<(f64, f64)>| {
        let (b, e) = (
            model.batch.get_untracked(),
            DTYPES.value_of(model.dtype.get_untracked()),
        );
        let picked = at.and_then(|(x, y)| {
            let n = x.round().clamp(MIN_CONTEXT as f64, MAX_CONTEXT as f64) as u64;
            model.config.with_untracked(|c| {
                c.as_ref().ok().map(|cfg| {
                    // The nearer of the two lines, on the log scale the chart is read on.
                    let off = |v: f64| (v.max(1.0).log10() - y.max(1.0).log10()).abs();
                    let kv = off(kv_cache_bytes(cfg, b, n, e));
                    let score = off(score_matrix_bytes(cfg, b, n, e));
                    (n, if kv <= score { "kv-cache" } else { "scores" })
                })
            })
        });
        hover_n.set(picked.map(|(n, _)| n));
        linked.set(picked.map(|(_, term)| term));
    });
    let live = Signal::derive(move || {
        let (b, e) = (model.batch.get(), DTYPES.value_of(model.dtype.get()));
        let n = hover_n.get().unwrap_or_else(|| model.n.get());
        model.config.with(|c| match (c, linked.get()) {
            (Ok(cfg), Some("scores")) => score_bytes_formula(cfg, b, n, e),
            (Ok(cfg), _) => kv_cache_formula(cfg, b, n, e),
            (Err(_), _) => String::new(),
        })
    });
    let spec = Signal::derive(move || {
        // What a lit term leaves out is drawn muted.
        let lit = linked.get();
        let tone = |own: &str, tone: Tone| match lit {
            Some(term) if term != own => Tone::Muted,
            _ => tone,
        };
        let (b, e, n, log) = (
            model.batch.get(),
            DTYPES.value_of(model.dtype.get()),
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
                    tone: tone("scores", Tone::Coral),
                    dashed: false,
                    dots: false,
                },
                Mark::Line {
                    label: "KV cache (all layers), n".into(),
                    points: kv,
                    tone: tone("kv-cache", Tone::Blue),
                    dashed: false,
                    dots: false,
                },
                Mark::Line {
                    label: "FlashAttention extra, n".into(),
                    points: flash,
                    tone: tone("flash", Tone::Purple),
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
            ChartSpec { x, y, marks }
        })
    });
    let name = move || {
        model.config.with(|c| {
            c.as_ref()
                .map(|c| c.name)
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
            DTYPES.value_of(model.dtype.get_untracked()),
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
        <Figure id=FigureId::MemoryVsContext caption=caption summary=summary csv=csv linked=linked
            controls=move || view! { <ContextSlider model=model /> <ModelSelect model=model /> }
            more=move || view! { <MemoryMoreControls model=model /> } more_keys=MEMORY_MORE_KEYS show_controls=show_controls>
            <ConfigProblem model=model />
            <Chart name="memory-vs-context" spec=spec summary=summary aspect=0.55 on_hover=on_hover />
            <Show when=move || at_n.with(|m| m.is_some())>
                <LinkedFormula linked=linked terms=&["kv-cache", "scores"] live=live>
                    <p class="term-line">
                        "KV cache: "
                        <span class="term" data-term="kv-cache" tabindex="0" role="button"
                            aria-label="the KV-cache bytes b × 2 × L × h_kv × d_head × n × e: lights the blue line">"b × 2 × L × h_kv × d_head × n × e"</span>
                        " (linear in n); scores of one layer: "
                        <span class="term" data-term="scores" tabindex="0" role="button"
                            aria-label="one layer's score bytes b × h × n² × e: lights the coral line">"b × h × n² × e"</span>
                        " (quadratic). Point at a line to read it at that context."
                    </p>
                </LinkedFormula>
            </Show>
            <Show when=move || at_n.with(|m| m.is_some())>
                <div class="readouts">
                    <Readout name="score-bytes" label="scores, one layer" value=get(|m| m.score) format=format_bytes />
                    <Readout name="kv-bytes" label="KV cache" value=get(|m| m.kv) format=format_bytes />
                    <Readout name="flash-bytes" label="FlashAttention extra" value=get(|m| m.flash) format=format_bytes />
                    <Readout name="weights-bytes" label="weights" value=get(|m| m.weights) format=format_bytes />
                    <Readout name="score-kv-ratio" label="scores ÷ cache" value=get(|m| m.score / m.kv.max(f64::MIN_POSITIVE)) />
                    <Readout name="score-growth" label="scores when n doubles" value=get(|m| m.score_growth) format=growth_factor />
                    <Readout name="kv-growth" label="cache when n doubles" value=get(|m| m.kv_growth) format=growth_factor />
                </div>
            </Show>
            {show_controls.then(|| view! { <LazySteps id=FigureId::MemoryVsContext asks=&ASKS /> })}
        </Figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::complexity::{LLAMA2_7B, MISTRAL_7B};

    #[test]
    fn the_kv_formula_multiplies_its_factors_to_the_cache() {
        // 1 × 2 × 32 × 32 × 128 × 4096 × 2 B = 2³¹ B = 2 GiB, by hand.
        assert_eq!(
            kv_cache_formula(&LLAMA2_7B, 1, 4096, 2.0),
            "KV cache at n = 4\u{202f}096: b × 2 × L × h_kv × d_head × n × e = 1 × 2 × 32 × 32 × 128 × 4\u{202f}096 × 2 B = 2.00 GiB"
        );
        assert_eq!(kv_cache_bytes(&LLAMA2_7B, 1, 4096, 2.0), 2f64.powi(31));
    }

    #[test]
    fn a_sliding_window_caps_the_positions_the_formula_shows() {
        let text = kv_cache_formula(&MISTRAL_7B, 1, 65536, 2.0);
        assert!(text.contains("× 4\u{202f}096 (the window) ×"), "{text}");
    }

    #[test]
    fn the_score_formula_squares_the_context() {
        // 1 × 32 × 4096² × 2 B = 2³⁰ B = 1 GiB.
        assert_eq!(
            score_bytes_formula(&LLAMA2_7B, 1, 4096, 2.0),
            "Scores of one layer at n = 4\u{202f}096: b × h × n² × e = 1 × 32 × 4\u{202f}096² × 2 B = 1.00 GiB"
        );
    }
}
