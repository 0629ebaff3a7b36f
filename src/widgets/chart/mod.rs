//! Line and bar charts on a canvas: linear or log axes (log data is plotted as log₁₀ with
//! ticks labelled in the original units), several series, rules, a legend.
//!
//! [`spec`] is what a chart shows, [`ticks`] where its ticks go, [`legend`] where its
//! legend goes, [`draw`] the drawing; [`Chart`] redraws when its spec, width or theme
//! changes.

use leptos::html::{Canvas, Div};
use leptos::prelude::*;

use crate::widgets::canvas::mark_drawn;
use crate::widgets::observers::use_element_width;
use crate::widgets::palette::use_palette;
use crate::widgets::timing::now_ms;

pub mod draw;
pub mod legend;
pub mod spec;
pub mod ticks;

pub use draw::draw_chart;
pub use spec::{Axis, ChartSpec, Mark, Tone};

/// A chart that redraws when its spec, its width or the theme changes.
#[component]
pub fn Chart(
    /// Names the canvas (`data-canvas`).
    name: &'static str,
    #[prop(into)] spec: Signal<ChartSpec>,
    /// Text alternative of the picture (updates with the state).
    #[prop(into)]
    summary: Signal<String>,
    /// Height as a fraction of width (clamped to 200–360 px).
    #[prop(default = 0.6)]
    aspect: f64,
    #[prop(default = 760.0)] max_width: f64,
) -> impl IntoView {
    let wrapper = NodeRef::<Div>::new();
    let canvas_ref = NodeRef::<Canvas>::new();
    let width = use_element_width(wrapper, 480.0);
    let palette = use_palette();
    let (problem, set_problem) = signal(None::<String>);
    Effect::new(move |_| {
        let started = now_ms();
        let colours = palette.get();
        let w = width.get().min(max_width).max(120.0);
        let h = (w * aspect).clamp(200.0, 360.0);
        let Some(canvas) = canvas_ref.get() else {
            return;
        };
        let result = spec.with(|s| draw_chart(&canvas, s, &colours, w, h));
        if problem.get_untracked() != result.as_ref().err().cloned() {
            set_problem.set(result.err());
        }
        mark_drawn(&canvas, started);
    });
    view! {
        <div class="chart" node_ref=wrapper>
            <canvas node_ref=canvas_ref data-canvas=name role="img" aria-label=move || summary.get()></canvas>
            <Show when=move || problem.get().is_some()>
                <p class="chart-problem" role="status">
                    "This chart could not be drawn: " {move || problem.get().unwrap_or_default()}
                </p>
            </Show>
        </div>
    }
}
