//! Figure `finetune-memory`: the bytes of fine-tuning a real model by full fine-tuning, LoRA
//! and QLoRA, stacked by component, against the memories of real devices; the verdict names
//! the smallest listed device the chosen method fits.

use leptos::prelude::*;

use crate::state::registry::FigureId;

use super::steps::FINETUNE_ASKS;
use crate::math::complexity::{parameter_count, ModelConfig};
use crate::math::finetune::{
    finetune_memory, smallest_device_that_fits, trainable_params, FinetuneSetup, MemoryBreakdown,
    Method, COMPONENTS, DEVICES, METHODS,
};
use crate::passes::lazy::LazySteps;
use crate::state::choices::{FT_METHODS, FT_RECIPES, FT_TARGETS, MODELS};
use crate::state::custom_model::chosen_config;
use crate::state::{Params, UrlState};
use crate::widgets::format::{format_bytes, grouped_whole, whole};
use crate::widgets::{
    Axis, Chart, ChartSpec, CustomModelFields, Figure, Mark, Readout, Scale, Select, Slider,
    Toggle, Tone,
};

/// Everything the figure shows, computed from the URL state.
#[derive(Clone, Debug, PartialEq)]
pub struct FinetuneView {
    pub model: ModelConfig,
    pub setup: FinetuneSetup,
    pub method: Method,
    /// Full, LoRA, QLoRA, in the order of [`METHODS`].
    pub breakdowns: [MemoryBreakdown; 3],
    pub trainable: f64,
    pub params: f64,
    /// The smallest listed device the chosen method fits (its index in [`DEVICES`]).
    pub fits: Option<usize>,
}

impl FinetuneView {
    /// The chosen method's breakdown.
    pub fn chosen(&self) -> &MemoryBreakdown {
        &self.breakdowns[method_index(self.method)]
    }

    /// The `fits` readout: a device id, or `none`.
    pub fn fits_id(&self) -> &'static str {
        self.fits.map_or("none", |i| DEVICES[i].id)
    }
}

fn method_index(method: Method) -> usize {
    METHODS.iter().position(|m| *m == method).unwrap_or(0)
}

fn method_name(method: Method) -> &'static str {
    match method {
        Method::Full => "full fine-tuning",
        Method::Lora => "LoRA",
        Method::Qlora => "QLoRA",
    }
}

/// The figure's numbers for the URL state `p` (an invalid custom model is a message).
pub fn finetune_view(p: &Params) -> Result<FinetuneView, String> {
    let model = chosen_config(p, "ftmodel", &MODELS)?;
    let setup = FinetuneSetup {
        rank: p.int("ftr").clamp(1, 1024) as u32,
        targets: p.chosen("fttarget", &FT_TARGETS),
        batch: p.int("ftbatch").clamp(1, 64) as u32,
        seq_len: p.int("ftseq").clamp(1, 1 << 20) as u32,
        checkpointing: p.flag("ftckpt"),
        recipe: p.chosen("ftopt", &FT_RECIPES),
        double_quantisation: p.flag("ftdq"),
    };
    let method = p.chosen("ftmethod", &FT_METHODS);
    let breakdowns = METHODS.map(|m| finetune_memory(&model, m, &setup));
    let chosen_total = breakdowns[method_index(method)].total();
    let fits = smallest_device_that_fits(chosen_total)
        .and_then(|d| DEVICES.iter().position(|x| x.id == d.id));
    Ok(FinetuneView {
        trainable: trainable_params(&model, method, &setup),
        params: parameter_count(&model),
        model,
        setup,
        method,
        breakdowns,
        fits,
    })
}

/// The verdict: the smallest listed device the chosen method fits, or that none does, and
/// which laptops it fits (the article's "70B on a laptop", said only where it holds).
pub fn verdict(v: &FinetuneView) -> String {
    let total = format_bytes(v.chosen().total());
    let who = format!("{} of {}", method_name(v.method), v.model.name);
    let device = match v.fits {
        Some(i) => format!(
            "{who} needs {total}: the smallest listed device it fits is a {}.",
            DEVICES[i].label
        ),
        None => format!(
            "{who} needs {total}: it fits none of the listed devices (the largest holds {}).",
            format_bytes(DEVICES[DEVICES.len() - 1].bytes)
        ),
    };
    let laptop = DEVICES
        .iter()
        .filter(|d| d.id.starts_with("laptop"))
        .find(|d| v.chosen().total() <= d.bytes);
    match (laptop, v.fits) {
        (Some(l), Some(i)) if l.id != DEVICES[i].id => {
            format!("{device} Of the laptops, it needs the {}.", l.short)
        }
        (None, Some(_)) => format!("{device} No listed laptop holds it."),
        _ => device,
    }
}

/// One tone per component, in the order of [`COMPONENTS`] (coral and blue keep their
/// page-wide meanings, so neither is used).
const COMPONENT_TONES: [Tone; 7] = [
    Tone::Muted,
    Tone::Purple,
    Tone::Gold,
    Tone::Green,
    Tone::Teal,
    Tone::Fg,
    Tone::Pink,
];

const GIB: f64 = 1024.0 * 1024.0 * 1024.0;

/// The stacked bars and device levels. The axis reaches the device the chosen method fits
/// (or its total, when it fits none), so the verdict's device and bar are always in view; a
/// taller bar is cut at the top, marked ↑ under the axis (its total is in the readouts).
fn chart_spec(v: &FinetuneView) -> ChartSpec {
    let chosen = v.chosen().total();
    let reach = v.fits.map_or(chosen, |i| DEVICES[i].bytes.max(chosen));
    let top = reach * 1.12 / GIB;
    // Stacked bars, painted as bars from zero to each component's running total, the
    // highest total first, so that each component shows as the band above the one below.
    let mut marks = Vec::new();
    for (c, (name, tone)) in COMPONENTS.iter().zip(COMPONENT_TONES).enumerate().rev() {
        let bars: Vec<(f64, f64)> = v
            .breakdowns
            .iter()
            .enumerate()
            .filter(|(_, b)| b.parts()[c] > 0.0)
            .map(|(i, b)| (i as f64, b.parts()[..=c].iter().sum::<f64>() / GIB))
            .collect();
        if !bars.is_empty() {
            marks.push(Mark::Bars {
                label: (*name).to_string(),
                bars,
                tone,
                width: 0.6,
            });
        }
    }
    for d in DEVICES.iter() {
        marks.push(Mark::Level {
            label: d.short.to_string(),
            y: d.bytes / GIB,
            tone: Tone::Muted,
        });
    }
    marks.push(Mark::Categories {
        labels: METHODS
            .iter()
            .enumerate()
            .map(|(i, m)| {
                let cut = if v.breakdowns[i].total() / GIB > top {
                    " ↑"
                } else {
                    ""
                };
                (i as f64, format!("{}{cut}", short_name(*m)))
            })
            .collect(),
    });
    ChartSpec {
        x: Axis {
            label: "method (devices on the right)".into(),
            min: -0.5,
            max: 3.6,
            log: false,
        },
        y: Axis {
            label: "memory (GiB)".into(),
            min: 0.0,
            max: top,
            log: false,
        },
        marks,
    }
}

/// The method's URL id (`ftmethod=`), for the CSV.
fn method_id(m: Method) -> &'static str {
    FT_METHODS
        .rows()
        .iter()
        .find(|r| r.value == m)
        .map_or("", |r| r.id)
}

fn short_name(m: Method) -> &'static str {
    match m {
        Method::Full => "full",
        Method::Lora => "LoRA",
        Method::Qlora => "QLoRA",
    }
}

/// The text alternative: each bar's total and components.
fn bars_in_words(v: &FinetuneView) -> String {
    let mut out = String::new();
    for (m, b) in METHODS.iter().zip(&v.breakdowns) {
        let parts: Vec<String> = COMPONENTS
            .iter()
            .zip(b.parts())
            .filter(|(_, x)| *x > 0.0)
            .map(|(name, x)| format!("{name} {}", format_bytes(x)))
            .collect();
        out.push_str(&format!(
            "{}: {} ({}). ",
            method_name(*m),
            format_bytes(b.total()),
            parts.join(", ")
        ));
    }
    out.push_str(&verdict(v));
    out
}

/// The CSV behind the figure: one row per method, bytes per component and the total.
pub fn finetune_csv(v: &FinetuneView) -> String {
    let mut out = String::from("method,");
    out.push_str(&COMPONENTS.map(|c| c.replace(' ', "_")).join(","));
    out.push_str(",total_bytes,trainable_params\n");
    for (m, b) in METHODS.iter().zip(&v.breakdowns) {
        let cells: Vec<String> = b.parts().iter().map(|x| x.to_string()).collect();
        out.push_str(&format!(
            "{},{},{},{}\n",
            method_id(*m),
            cells.join(","),
            b.total(),
            trainable_params(&v.model, *m, &v.setup)
        ));
    }
    for d in DEVICES.iter() {
        out.push_str(&format!(
            "# device {} = {} bytes ({})\n",
            d.id, d.bytes, d.source
        ));
    }
    out
}

/// The keys under "More settings".
const MORE_KEYS: &[&str] = &[
    "ftr", "fttarget", "ftbatch", "ftseq", "ftckpt", "ftopt", "ftdq",
];

/// The figure alone, as the embed view shows it (the registry's loaders call this).
pub fn alone(show_controls: bool) -> AnyView {
    view! { <FinetuneMemoryFigure state=crate::state::use_url_state() show_controls=show_controls /> }.into_any()
}

/// Figure `finetune-memory`.
#[component]
pub fn FinetuneMemoryFigure(
    state: UrlState,
    #[prop(default = true)] show_controls: bool,
) -> impl IntoView {
    let view_state = Memo::new(move |_| state.tracked(finetune_view));
    let number = move |f: fn(&FinetuneView) -> f64| {
        Signal::derive(move || view_state.with(|v| v.as_ref().map_or(f64::NAN, f)))
    };
    let bytes_full = number(|v| v.breakdowns[0].total());
    let bytes_lora = number(|v| v.breakdowns[1].total());
    let bytes_qlora = number(|v| v.breakdowns[2].total());
    let trainable = number(|v| v.trainable);
    let fits = Signal::derive(move || {
        view_state.with(|v| v.as_ref().map_or("none", FinetuneView::fits_id))
    });
    let spec = Signal::derive(move || {
        view_state.with(|v| match v {
            Ok(v) => chart_spec(v),
            Err(_) => ChartSpec {
                x: Axis {
                    label: "method".into(),
                    min: -0.5,
                    max: 2.5,
                    log: false,
                },
                y: Axis {
                    label: "memory (GiB)".into(),
                    min: 0.0,
                    max: 1.0,
                    log: false,
                },
                marks: vec![],
            },
        })
    });
    let summary = Signal::derive(move || {
        view_state.with(|v| match v {
            Ok(v) => bars_in_words(v),
            Err(e) => e.clone(),
        })
    });
    let caption = Signal::derive(move || {
        view_state.with(|v| match v {
            Ok(v) => {
                let [full, lora, qlora] = v.breakdowns.map(|b| b.total());
                format!(
                    "{} ({} parameters), batch {} × {} tokens: full fine-tuning needs {}, LoRA at rank {} on {} {}, QLoRA {}. {} What this counts: {}",
                    v.model.name,
                    grouped_whole(v.params),
                    v.setup.batch,
                    v.setup.seq_len,
                    format_bytes(full),
                    v.setup.rank,
                    targets_label(v),
                    format_bytes(lora),
                    format_bytes(qlora),
                    verdict(v),
                    counting_note(v)
                )
            }
            Err(e) => e.clone(),
        })
    });
    let verdict_text = Signal::derive(move || {
        view_state.with(|v| v.as_ref().map(verdict).unwrap_or_else(|e| e.clone()))
    });
    let csv = Callback::new(move |_| {
        view_state.with_untracked(|v| v.as_ref().map(finetune_csv).unwrap_or_default())
    });
    // One key's memo, not the whole state: a control elsewhere on the page leaves it be.
    let model_id = state.choice("ftmodel");
    let custom = Memo::new(move |_| model_id.get() == "custom");
    let controls = move || {
        let (model_id, set_model) = state.choice_control("ftmodel");
        let (method, set_method) = state.choice_control("ftmethod");
        view! {
            <Select key="ftmodel" label="Model" options=&MODELS value=model_id on_change=set_model instance="-ft" />
            <Select key="ftmethod" label="Method" options=&FT_METHODS value=method on_change=set_method />
        }
    };
    let more = move || {
        let (r, set_r) = state.int_control("ftr");
        let (target, set_target) = state.choice_control("fttarget");
        let (batch, set_batch) = state.int_control("ftbatch");
        let (seq, set_seq) = state.int_control("ftseq");
        let (ckpt, set_ckpt) = state.flag_control("ftckpt");
        let (recipe, set_recipe) = state.choice_control("ftopt");
        let (dq, set_dq) = state.flag_control("ftdq");
        view! {
            <Slider key="ftr" label="LoRA rank r" value=Signal::derive(move || r.get() as f64)
                on_change=Callback::new(move |v: f64| set_r.run(v.round() as i64))
                scale={const { Scale::log2_of("ftr", 1) }} format=whole />
            <Select key="fttarget" label="Adapters on" options=&FT_TARGETS value=target on_change=set_target />
            <Slider key="ftbatch" label="Batch" value=Signal::derive(move || batch.get() as f64)
                on_change=Callback::new(move |v: f64| set_batch.run(v.round() as i64))
                scale={const { Scale::linear_of("ftbatch", 1.0) }} format=whole />
            <Slider key="ftseq" label="Sequence length" value=Signal::derive(move || seq.get() as f64)
                on_change=Callback::new(move |v: f64| set_seq.run(v.round() as i64))
                scale={const { Scale::log2_of("ftseq", 1) }} unit="tokens" format=whole />
            <Toggle key="ftckpt" label="Gradient checkpointing" value=ckpt on_change=set_ckpt />
            <Select key="ftopt" label="Optimiser and precision" options=&FT_RECIPES value=recipe on_change=set_recipe />
            <Toggle key="ftdq" label="QLoRA: double quantisation" value=dq on_change=set_dq />
        }
    };
    view! {
        <Figure id=FigureId::FinetuneMemory caption=caption summary=summary csv=csv verdict=verdict_text
            controls=controls more=more more_keys=MORE_KEYS show_controls=show_controls>
            <Show when=move || custom.get() && show_controls>
                <CustomModelFields state=state instance="-ft" />
            </Show>
            <Show when=move || view_state.with(|v| v.is_err())>
                <p class="config-error" role="alert" data-config-error="">
                    {move || view_state.with(|v| v.as_ref().err().cloned().unwrap_or_default())}
                </p>
            </Show>
            <Chart name="finetune-memory" spec=spec summary=summary aspect=0.7 />
            <p class="verdict" data-verdict-text="">{move || verdict_text.get()}</p>
            {show_controls.then(|| view! { <LazySteps id=FigureId::FinetuneMemory asks=&FINETUNE_ASKS /> })}
            <div class="readouts">
                <Readout name="bytes-full" label="full fine-tuning" value=bytes_full format=format_bytes />
                <Readout name="bytes-lora" label="LoRA" value=bytes_lora format=format_bytes />
                <Readout name="bytes-qlora" label="QLoRA" value=bytes_qlora format=format_bytes />
                <Readout name="trainable-params" label="trained parameters" value=trainable format=grouped_whole />
                <div class="readout" data-readout="fits" data-value=move || fits.get()>
                    <span class="readout-label">"fits"</span>
                    <span class="readout-value">{move || fits_label(fits.get())}</span>
                </div>
            </div>
        </Figure>
    }
}

fn fits_label(id: &str) -> String {
    DEVICES
        .iter()
        .find(|d| d.id == id)
        .map_or_else(|| "no listed device".to_string(), |d| d.label.to_string())
}

/// The label of the adapted matrices the view was computed for.
fn targets_label(v: &FinetuneView) -> &'static str {
    FT_TARGETS
        .rows()
        .iter()
        .find(|r| r.value == v.setup.targets)
        .map_or("", |r| r.label)
}

/// What the figure counts, in a sentence: the choices that decide its numbers.
pub fn counting_note(v: &FinetuneView) -> String {
    let recipe = FT_RECIPES
        .rows()
        .iter()
        .find(|r| r.value == v.setup.recipe)
        .map_or("", |r| r.label);
    format!(
        "trained parameters by {recipe}; frozen weights in 16 bits (QLoRA: linear layers in NF4, {} double quantisation); activations of FlashAttention blocks, {}, and 32-bit logits; no paging, no framework overhead. Devices at full memory.",
        if v.setup.double_quantisation { "with" } else { "without" },
        if v.setup.checkpointing {
            "checkpointed"
        } else {
            "all kept"
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(q: &str) -> FinetuneView {
        let (p, _, _) = Params::from_query(q);
        // Test only: every query here names a preset, which always evaluates.
        finetune_view(&p).unwrap()
    }

    #[test]
    fn the_default_verdict_is_qlora_on_llama3_70b_on_a_48_gb_gpu_or_larger() {
        let v = view("");
        assert_eq!(v.model.name, "Llama-3-70B");
        assert_eq!(v.method, Method::Qlora);
        let id = v.fits_id();
        assert!(["gpu-48", "laptop-64"].contains(&id), "{id}");
        assert!(verdict(&v).contains("smallest listed device"));
        // The article's laptop, named only where it holds: a 64 GB one, not a 16 GB one.
        assert!(
            verdict(&v).ends_with("Of the laptops, it needs the 64 GB laptop."),
            "{}",
            verdict(&v)
        );
    }

    #[test]
    fn full_fine_tuning_of_a_70b_model_fits_no_device() {
        let v = view("ftmethod=full");
        assert_eq!(v.fits_id(), "none");
        assert!(verdict(&v).contains("fits none"));
    }

    #[test]
    fn an_invalid_custom_model_is_a_message() {
        let (p, _, _) = Params::from_query("ftmodel=custom&ch=32&ckv=5");
        assert!(finetune_view(&p).unwrap_err().contains("must divide"));
    }

    #[test]
    fn the_csv_has_one_row_per_method_summing_to_the_total() {
        let v = view("ftmodel=gpt2");
        let csv = finetune_csv(&v);
        let rows: Vec<&str> = csv.lines().filter(|l| !l.starts_with('#')).collect();
        assert_eq!(rows.len(), 4);
        for row in &rows[1..] {
            // Test only: after the method's id every cell is a number the CSV wrote.
            let cells: Vec<f64> = row.split(',').skip(1).map(|c| c.parse().unwrap()).collect();
            let sum: f64 = cells[..7].iter().sum();
            assert!((sum - cells[7]).abs() <= 1e-6 * cells[7]);
        }
    }

    #[test]
    fn the_chart_stacks_each_bar_to_its_total() {
        let v = view("ftmodel=llama2-7b");
        let spec = chart_spec(&v);
        for (i, b) in v.breakdowns.iter().enumerate() {
            let tops: Vec<f64> = spec
                .marks
                .iter()
                .filter_map(|m| match m {
                    Mark::Bars { bars, .. } => bars.iter().find(|x| x.0 == i as f64).map(|x| x.1),
                    _ => None,
                })
                .collect();
            // Painted tallest first: the first bar is the total, each next one lower.
            assert!(
                (tops[0] - b.total() / GIB).abs() < 1e-9,
                "{} vs {}",
                tops[0],
                b.total() / GIB
            );
            assert!(tops.windows(2).all(|w| w[0] >= w[1]), "{tops:?}");
        }
    }

    #[test]
    fn the_axis_shows_the_chosen_bar_and_the_device_it_fits() {
        for q in [
            "",
            "ftmodel=llama3-8b",
            "ftmethod=full",
            "ftmodel=gpt2&ftmethod=lora",
        ] {
            let v = view(q);
            let spec = chart_spec(&v);
            assert!(spec.y.max * GIB >= v.chosen().total(), "{q}");
            if let Some(i) = v.fits {
                assert!(spec.y.max * GIB >= DEVICES[i].bytes, "{q}");
            }
        }
    }
}
