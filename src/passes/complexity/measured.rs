//! Figure `measured-attention`: a real attention forward pass timed in this browser for
//! doubling n, with a power law fitted to the times.

use leptos::prelude::*;

use crate::state::registry::FigureId;
use leptos::task::spawn_local;

use crate::math::complexity::{attention_rows, fit_power_law};
use crate::math::rng::SeededStream;
use crate::widgets::format::format_number;
use crate::widgets::format::whole;
use crate::widgets::timing::now_ms;
use crate::widgets::timing::Pace;
use crate::widgets::timing::Slices;
use crate::widgets::{Axis, Chart, ChartSpec, Figure, Mark, Readout, Tone};

/// Head dimension of the measured attention.
pub const MEASURE_D: usize = 64;

/// Stop doubling once one forward pass takes longer than this (ms), or at n = 4096.
pub const MEASURE_STOP_MS: f64 = 200.0;

pub const MEASURE_MAX_N: usize = 4096;

/// Measure each size for at least this long (ms), repeating passes, to beat timer resolution.
pub const MEASURE_MIN_TOTAL_MS: f64 = 40.0;

/// Work timed at once (multiply–adds): a few milliseconds, so that the work yields to
/// the browser every slice ([`Slices`]) and the timer's resolution does not matter.
pub const SLICE_WORK: usize = 1 << 20;

/// Times one size: repeated forward passes computed a few rows at a time, in slices with
/// yields to the browser between them (the yields are not timed); returns milliseconds
/// per pass, or None if cancelled.
pub async fn time_attention(n: usize, cancel: RwSignal<bool>) -> Option<f64> {
    let d = MEASURE_D;
    let draw =
        |stream: u64| SeededStream::new(2026, &[stream, n as u64]).standard_normal_vec(n * d);
    let (q, k, v) = (draw(1), draw(2), draw(3));
    let mut out = vec![0.0; n * d];
    let mut scores = vec![0.0; n];
    let rows_per_slice = (SLICE_WORK / (2 * n * d)).max(1);
    let (mut total, mut passes) = (0.0, 0u32);
    let mut slices = Slices::start(Pace::asked_in_short_slices()).await?;
    let wanted = move || !cancel.get_untracked();
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
            slices.step(&wanted).await?;
        }
        passes += 1;
        if total / passes as f64 > MEASURE_STOP_MS {
            break;
        }
    }
    Some(total / passes as f64)
}

/// The figure alone, as the embed view shows it (the registry's loaders call this).
pub fn alone(show_controls: bool) -> AnyView {
    view! { <MeasuredFigure show_controls=show_controls /> }.into_any()
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
            tone: Tone::Coral,
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
                tone: Tone::Fg,
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
        <Figure id=FigureId::MeasuredAttention caption=caption summary=summary csv=csv
            controls=controls show_controls=show_controls>
            <p class="measure-status" role="status" aria-live="polite" data-measure-status="">{move || status.get()}</p>
            <Chart name="measured-attention" spec=spec summary=summary aspect=0.5 />
            <Show when=move || fit.get().is_some()>
                <div class="readouts">
                    <Readout name="exponent" label="fitted exponent b (t ∝ nᵇ)" value=Signal::derive(move || fit.get().map(|f| f.1).unwrap_or(0.0)) />
                    <Readout name="measured-sizes" label="sizes measured" value=Signal::derive(move || points.with(|p| p.len() as f64)) format=whole />
                </div>
            </Show>
        </Figure>
    }
}
