//! Line and bar charts drawn with plotters on a canvas: linear or log axes (log data is
//! plotted as log₁₀ with ticks labelled in the original units), several series, rules,
//! a legend. Non-finite points are dropped, never drawn.

use leptos::html::{Canvas, Div};
use leptos::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::prelude::*;
use plotters_canvas::CanvasBackend;
use web_sys::HtmlCanvasElement;

use super::format::tick_label;
use super::hooks::{css_color, fit_canvas, mark_drawn, use_element_width};
use crate::app::use_theme;

/// A named colour of the theme (CSS custom properties `--c-*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tone {
    Fg,
    Muted,
    Coral,
    Blue,
    Green,
    Purple,
    Gold,
}

impl Tone {
    fn css(self) -> (&'static str, (u8, u8, u8)) {
        match self {
            Tone::Fg => ("--c-fg", (20, 20, 20)),
            Tone::Muted => ("--c-muted", (110, 110, 110)),
            Tone::Coral => ("--c-coral", (230, 97, 80)),
            Tone::Blue => ("--c-blue", (40, 110, 200)),
            Tone::Green => ("--c-green", (40, 150, 90)),
            Tone::Purple => ("--c-purple", (130, 80, 190)),
            Tone::Gold => ("--c-gold", (200, 150, 20)),
        }
    }
}

/// One axis: label, range, scale.
#[derive(Clone, Debug, PartialEq)]
pub struct Axis {
    pub label: String,
    pub min: f64,
    pub max: f64,
    pub log: bool,
}

/// Something drawn in a chart.
#[derive(Clone, Debug, PartialEq)]
pub enum Mark {
    /// A polyline through `points`.
    Line { label: String, points: Vec<(f64, f64)>, tone: Tone, dashed: bool, dots: bool },
    /// Bars from the x axis (or the bottom of a log axis) up to each (x, y), `width` wide.
    Bars { label: String, bars: Vec<(f64, f64)>, tone: Tone, width: f64 },
    /// A vertical rule at x.
    VRule { label: String, x: f64, tone: Tone },
    /// A horizontal rule at y.
    HRule { label: String, y: f64, tone: Tone },
}

/// Everything a chart draws.
#[derive(Clone, Debug, PartialEq)]
pub struct ChartSpec {
    pub x: Axis,
    pub y: Axis,
    pub marks: Vec<Mark>,
}

fn to_axis(axis: &Axis, v: f64) -> f64 {
    if axis.log {
        v.log10()
    } else {
        v
    }
}

/// Tick positions (in data units) for an axis: 1-2-5 steps on linear axes, powers of ten
/// (with 2 and 5 between when the span is short) on log axes.
pub fn ticks(axis: &Axis) -> Vec<f64> {
    let (lo, hi) = (axis.min.min(axis.max), axis.min.max(axis.max));
    if !(lo.is_finite() && hi.is_finite()) || hi <= lo {
        return vec![];
    }
    if axis.log {
        if lo <= 0.0 {
            return vec![];
        }
        let (e0, e1) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
        let span = e1 - e0;
        let stride = ((span as f64) / 8.0).ceil().max(1.0) as i32;
        let mut out = Vec::new();
        for e in (e0..=e1).step_by(stride as usize) {
            let base = 10f64.powi(e);
            let mults: &[f64] = if span <= 2 { &[1.0, 2.0, 5.0] } else { &[1.0] };
            out.extend(mults.iter().map(|m| m * base).filter(|v| *v >= lo * (1.0 - 1e-9) && *v <= hi * (1.0 + 1e-9)));
        }
        return out;
    }
    let raw = (hi - lo) / 6.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * mag).find(|s| *s >= raw).unwrap_or(10.0 * mag);
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    (first..=last).map(|k| k as f64 * step).collect()
}

fn rgb(canvas: &HtmlCanvasElement, tone: Tone) -> RGBColor {
    let (name, fallback) = tone.css();
    let (r, g, b) = css_color(canvas, name, fallback);
    RGBColor(r, g, b)
}

/// Draws `spec` on `canvas` at the given CSS size.
pub fn draw_chart(canvas: &HtmlCanvasElement, spec: &ChartSpec, css_w: f64, css_h: f64) -> Result<(), String> {
    let dpr = fit_canvas(canvas, css_w, css_h);
    let px = |v: f64| (v * dpr).round() as u32;
    let fg = rgb(canvas, Tone::Fg);
    let muted = rgb(canvas, Tone::Muted);
    let (br, bgc, bb) = css_color(canvas, "--c-bg", (255, 255, 255));
    let bg = RGBColor(br, bgc, bb);
    let (gr, gg, gb) = css_color(canvas, "--c-grid", (225, 225, 225));
    let grid = RGBColor(gr, gg, gb);
    let err = |e: &dyn std::fmt::Debug| format!("{e:?}");

    let backend = CanvasBackend::with_canvas_object(canvas.clone()).ok_or("this canvas cannot be drawn on")?;
    let root = backend.into_drawing_area();
    root.fill(&bg).map_err(|e| err(&e))?;

    let (xa, ya) = (&spec.x, &spec.y);
    if xa.log && xa.min <= 0.0 || ya.log && ya.min <= 0.0 || !(xa.max > xa.min) || !(ya.max > ya.min) {
        return Err("axis range is empty or not positive on a log axis".into());
    }
    let (x0, x1) = (to_axis(xa, xa.min), to_axis(xa, xa.max));
    let (y0, y1) = (to_axis(ya, ya.min), to_axis(ya, ya.max));
    let font = ("sans-serif", 12.0 * dpr).into_font().color(&fg);

    let mut chart = ChartBuilder::on(&root)
        .margin(px(10.0))
        .x_label_area_size(px(40.0))
        .y_label_area_size(px(58.0))
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(|e| err(&e))?;
    // Axes and their titles from plotters; ticks, labels and grid drawn here so that log
    // axes get ticks at round values of the data (1, 10, 100…), not of its logarithm.
    chart
        .configure_mesh()
        .disable_mesh()
        .x_labels(0)
        .y_labels(0)
        .x_desc(xa.label.as_str())
        .y_desc(ya.label.as_str())
        .axis_desc_style(font.clone())
        .axis_style(ShapeStyle::from(&muted).stroke_width(px(1.0)))
        .draw()
        .map_err(|e| err(&e))?;
    let grid_style = ShapeStyle::from(&grid).stroke_width(px(1.0));
    let tick = px(4.0) as i32;
    for v in ticks(xa) {
        let t = to_axis(xa, v);
        chart.draw_series(std::iter::once(PathElement::new(vec![(t, y0), (t, y1)], grid_style))).map_err(|e| err(&e))?;
        let (bx, by) = chart.backend_coord(&(t, y0));
        root.draw(&PathElement::new(vec![(bx, by), (bx, by + tick)], ShapeStyle::from(&muted).stroke_width(px(1.0))))
            .map_err(|e| err(&e))?;
        root.draw(&Text::new(tick_label(v), (bx, by + tick + 2), font.clone().pos(Pos::new(HPos::Center, VPos::Top))))
            .map_err(|e| err(&e))?;
    }
    for v in ticks(ya) {
        let t = to_axis(ya, v);
        chart.draw_series(std::iter::once(PathElement::new(vec![(x0, t), (x1, t)], grid_style))).map_err(|e| err(&e))?;
        let (bx, by) = chart.backend_coord(&(x0, t));
        root.draw(&PathElement::new(vec![(bx - tick, by), (bx, by)], ShapeStyle::from(&muted).stroke_width(px(1.0))))
            .map_err(|e| err(&e))?;
        root.draw(&Text::new(tick_label(v), (bx - tick - 3, by), font.clone().pos(Pos::new(HPos::Right, VPos::Center))))
            .map_err(|e| err(&e))?;
    }

    let clamp_y = |y: f64| y.clamp(y0, y1);
    let in_x = |x: f64| x >= x0 - 1e-9 && x <= x1 + 1e-9;
    let mut any_label = false;
    for mark in &spec.marks {
        match mark {
            Mark::Line { label, points, tone, dashed, dots } => {
                let color = rgb(canvas, *tone);
                let style = ShapeStyle::from(&color).stroke_width(px(2.0));
                let pts: Vec<(f64, f64)> = points
                    .iter()
                    .filter(|(x, y)| x.is_finite() && y.is_finite() && (!xa.log || *x > 0.0) && (!ya.log || *y > 0.0))
                    .map(|&(x, y)| (to_axis(xa, x), clamp_y(to_axis(ya, y))))
                    .filter(|(x, _)| in_x(*x))
                    .collect();
                let legend_style = style;
                let anno = if *dashed {
                    chart
                        .draw_series(DashedLineSeries::new(pts.clone(), px(6.0), px(4.0), style))
                        .map_err(|e| err(&e))?
                } else {
                    chart.draw_series(LineSeries::new(pts.clone(), style)).map_err(|e| err(&e))?
                };
                if !label.is_empty() {
                    any_label = true;
                    anno.label(label.as_str()).legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 20, y)], legend_style)
                    });
                }
                if *dots {
                    chart
                        .draw_series(pts.iter().map(|&p| Circle::new(p, px(3.0), color.filled())))
                        .map_err(|e| err(&e))?;
                }
            }
            Mark::Bars { label, bars, tone, width } => {
                let color = rgb(canvas, *tone);
                let base = y0.max(if ya.log { y0 } else { 0.0 });
                let rects: Vec<Rectangle<(f64, f64)>> = bars
                    .iter()
                    .filter(|(x, y)| x.is_finite() && y.is_finite() && (!ya.log || *y > 0.0))
                    .map(|&(x, y)| {
                        let top = clamp_y(to_axis(ya, y));
                        Rectangle::new([(x - width / 2.0, base), (x + width / 2.0, top)], color.filled())
                    })
                    .collect();
                let anno = chart.draw_series(rects).map_err(|e| err(&e))?;
                if !label.is_empty() {
                    any_label = true;
                    anno.label(label.as_str())
                        .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.filled()));
                }
            }
            Mark::VRule { label, x, tone } => {
                let xv = to_axis(xa, *x);
                if xv.is_finite() && in_x(xv) {
                    let color = rgb(canvas, *tone);
                    let style = ShapeStyle::from(&color).stroke_width(px(1.5));
                    let anno = chart
                        .draw_series(DashedLineSeries::new(vec![(xv, y0), (xv, y1)], px(4.0), px(3.0), style))
                        .map_err(|e| err(&e))?;
                    if !label.is_empty() {
                        any_label = true;
                        anno.label(label.as_str())
                            .legend(move |(x, y)| PathElement::new(vec![(x + 10, y - 6), (x + 10, y + 6)], style));
                    }
                }
            }
            Mark::HRule { label, y, tone } => {
                let yv = to_axis(ya, *y);
                if yv.is_finite() && yv >= y0 && yv <= y1 {
                    let color = rgb(canvas, *tone);
                    let style = ShapeStyle::from(&color).stroke_width(px(1.5));
                    let anno = chart
                        .draw_series(DashedLineSeries::new(vec![(x0, yv), (x1, yv)], px(2.0), px(3.0), style))
                        .map_err(|e| err(&e))?;
                    if !label.is_empty() {
                        any_label = true;
                        anno.label(label.as_str())
                            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
                    }
                }
            }
        }
    }
    if any_label {
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .margin(px(6.0))
            .background_style(bg.mix(0.88))
            .border_style(&muted)
            .label_font(font)
            .draw()
            .map_err(|e| err(&e))?;
    }
    root.present().map_err(|e| err(&e))?;
    Ok(())
}

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
    let theme = use_theme();
    let (problem, set_problem) = signal(None::<String>);
    Effect::new(move |_| {
        theme.track();
        let w = width.get().min(max_width).max(120.0);
        let h = (w * aspect).clamp(200.0, 360.0);
        let Some(canvas) = canvas_ref.get() else { return };
        let result = spec.with(|s| draw_chart(&canvas, s, w, h));
        set_problem.set(result.err());
        mark_drawn(&canvas);
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

#[cfg(test)]
mod tests {
    use super::*;

    fn axis(min: f64, max: f64, log: bool) -> Axis {
        Axis { label: String::new(), min, max, log }
    }

    #[test]
    fn linear_ticks_are_round_and_inside() {
        assert_eq!(ticks(&axis(0.0, 1.0, false)), vec![0.0, 0.2, 0.4, 0.6000000000000001, 0.8, 1.0]);
        let t = ticks(&axis(-0.3, 0.7, false));
        assert!(t.iter().all(|v| (-0.3..=0.7).contains(v)));
    }

    #[test]
    fn log_ticks_are_powers_of_ten() {
        assert_eq!(ticks(&axis(1.0, 1024.0, true)), vec![1.0, 10.0, 100.0, 1000.0]);
        assert_eq!(ticks(&axis(1.0, 20.0, true)), vec![1.0, 2.0, 5.0, 10.0, 20.0]);
    }

    #[test]
    fn degenerate_axes_have_no_ticks() {
        assert!(ticks(&axis(1.0, 1.0, false)).is_empty());
        assert!(ticks(&axis(0.0, 10.0, true)).is_empty());
        assert!(ticks(&axis(f64::NAN, 10.0, false)).is_empty());
    }
}
