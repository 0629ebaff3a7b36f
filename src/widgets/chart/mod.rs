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
    /// Largest CSS width: by default the chart fills the width its card gives it.
    #[prop(default = 1200.0)]
    max_width: f64,
    /// Told the data point (x, y) under the pointer, or `None` off the plot (a tap on a
    /// touch screen counts), for a linked formula.
    #[prop(optional)]
    on_hover: Option<Callback<Option<(f64, f64)>>>,
) -> impl IntoView {
    let wrapper = NodeRef::<Div>::new();
    let canvas_ref = NodeRef::<Canvas>::new();
    let width = use_element_width(wrapper, 480.0);
    let palette = use_palette();
    let (problem, set_problem) = signal(None::<String>);
    let plot = StoredValue::new(None::<legend::PixelRect>);
    Effect::new(move |_| {
        let started = now_ms();
        let colours = palette.get();
        let w = width.get().min(max_width).max(120.0);
        let h = (w * aspect).clamp(200.0, 360.0);
        let Some(canvas) = canvas_ref.get() else {
            return;
        };
        let result = spec.with(|s| draw_chart(&canvas, s, &colours, w, h));
        plot.set_value(result.as_ref().ok().copied());
        if problem.get_untracked() != result.as_ref().err().cloned() {
            set_problem.set(result.err());
        }
        mark_drawn(&canvas, started);
    });
    let hover = move |ev: leptos::ev::MouseEvent| {
        let Some(on_hover) = on_hover else {
            return;
        };
        let at = canvas_ref.get_untracked().and_then(|c| {
            let r = c.get_bounding_client_rect();
            let (x, y) = (
                ev.client_x() as f64 - r.left(),
                ev.client_y() as f64 - r.top(),
            );
            let area = plot.get_value()?;
            spec.with_untracked(|s| data_at(s, area, (x, y)))
        });
        on_hover.run(at);
    };
    view! {
        <div class="chart" node_ref=wrapper>
            <canvas node_ref=canvas_ref data-canvas=name role="img" aria-label=move || summary.get()
                on:mousemove=hover
                on:mouseleave=move |_| { if let Some(h) = on_hover { h.run(None); } }></canvas>
            <Show when=move || problem.get().is_some()>
                <p class="chart-problem" role="status">
                    "This chart could not be drawn: " {move || problem.get().unwrap_or_default()}
                </p>
            </Show>
        </div>
    }
}

/// The data point at (x, y) CSS pixels of a chart whose plot area is `area`, or `None`
/// outside it.
pub fn data_at(
    spec: &ChartSpec,
    area: legend::PixelRect,
    (x, y): (f64, f64),
) -> Option<(f64, f64)> {
    let (l, t, r, b) = area;
    if !(l..=r).contains(&x) || !(t..=b).contains(&y) || r <= l || b <= t {
        return None;
    }
    let along = |axis: &Axis, f: f64| {
        let (lo, hi) = (
            ticks::to_axis(axis, axis.min),
            ticks::to_axis(axis, axis.max),
        );
        let v = lo + f * (hi - lo);
        if axis.log {
            10f64.powf(v)
        } else {
            v
        }
    };
    Some((
        along(&spec.x, (x - l) / (r - l)),
        along(&spec.y, (b - y) / (b - t)),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pixel_of_the_plot_is_the_data_point_under_it() {
        let spec = ChartSpec {
            x: Axis {
                label: String::new(),
                min: 100.0,
                max: 1e6,
                log: true,
            },
            y: Axis {
                label: String::new(),
                min: 0.0,
                max: 10.0,
                log: false,
            },
            marks: vec![],
        };
        let area = (50.0, 10.0, 450.0, 210.0);
        // Test only: (250, 110) lies inside the plot area, so there is a data point.
        let (x, y) = data_at(&spec, area, (250.0, 110.0)).expect("inside");
        assert!(
            (x - 1e4).abs() < 1e-6,
            "halfway along 10² … 10⁶ is 10⁴: {x}"
        );
        assert!((y - 5.0).abs() < 1e-12);
        assert_eq!(data_at(&spec, area, (40.0, 110.0)), None);
    }
}
