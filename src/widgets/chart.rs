//! Line and bar charts drawn with plotters on a canvas: linear or log axes (log data is
//! plotted as log₁₀ with ticks labelled in the original units), several series, rules,
//! a legend. Non-finite points are dropped, never drawn.

use leptos::html::{Canvas, Div};
use leptos::prelude::*;
use plotters::prelude::*;
use plotters_canvas::CanvasBackend;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

use super::canvas::{fit_canvas, mark_drawn};
use super::format::tick_label;
use super::observers::use_element_width;
use super::palette::use_palette;
use super::palette::{css_rgb, Palette};
use super::timing::now_ms;

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
    /// The colour of this tone in `palette`.
    pub fn rgb(self, palette: &Palette) -> (u8, u8, u8) {
        match self {
            Tone::Fg => palette.fg,
            Tone::Muted => palette.muted,
            Tone::Coral => palette.coral,
            Tone::Blue => palette.blue,
            Tone::Green => palette.green,
            Tone::Purple => palette.purple,
            Tone::Gold => palette.gold,
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
    Line {
        label: String,
        points: Vec<(f64, f64)>,
        tone: Tone,
        dashed: bool,
        dots: bool,
    },
    /// Bars from the x axis (or the bottom of a log axis) up to each (x, y), `width` wide.
    Bars {
        label: String,
        bars: Vec<(f64, f64)>,
        tone: Tone,
        width: f64,
    },
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
    /// The legend's preferred corner is the upper left (default: the upper right). It
    /// moves to another corner of the plot when that one covers less of what is drawn.
    pub legend_left: bool,
}

impl Axis {
    /// A log axis from the decade at or below `lo` to the decade at or above `hi`
    /// (kept inside 10⁻³⁰⁰…10³⁰⁰, so it never reaches zero or infinity).
    pub fn log_decades(label: &str, lo: f64, hi: f64) -> Axis {
        Axis {
            label: label.into(),
            min: 10f64.powf(lo.log10().floor()).max(1e-300),
            max: 10f64.powf(hi.log10().ceil()).min(1e300),
            log: true,
        }
    }
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
            out.extend(
                mults
                    .iter()
                    .map(|m| m * base)
                    .filter(|v| *v >= lo * (1.0 - 1e-9) && *v <= hi * (1.0 + 1e-9)),
            );
        }
        return out;
    }
    let raw = (hi - lo) / 6.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * mag);
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    (first..=last).map(|k| k as f64 * step).collect()
}

fn rgb(palette: &Palette, tone: Tone) -> RGBColor {
    let (r, g, b) = tone.rgb(palette);
    RGBColor(r, g, b)
}

/// Strokes a polyline in one path (plotters strokes every dash as its own path, which
/// costs milliseconds on long dashed lines), optionally dashed.
fn stroke_polyline(
    ctx: &CanvasRenderingContext2d,
    pixels: &[(i32, i32)],
    (r, g, b): (u8, u8, u8),
    width: f64,
    dash: Option<[f64; 2]>,
) {
    if pixels.len() < 2 {
        return;
    }
    let pattern = js_sys::Array::new();
    if let Some([on, off]) = dash {
        pattern.push(&on.into());
        pattern.push(&off.into());
    }
    let _ = ctx.set_line_dash(&pattern);
    ctx.set_line_width(width);
    ctx.set_line_join("round");
    ctx.set_stroke_style_str(&format!("rgb({r},{g},{b})"));
    ctx.begin_path();
    ctx.move_to(pixels[0].0 as f64, pixels[0].1 as f64);
    for &(x, y) in &pixels[1..] {
        ctx.line_to(x as f64, y as f64);
    }
    ctx.stroke();
    let _ = ctx.set_line_dash(&js_sys::Array::new());
}

/// One legend row: what to draw as its swatch.
enum Swatch {
    Line { dashed: bool },
    Box,
    Rule,
}

/// Text drawn straight on the context. plotters-canvas measures text by inserting a DOM
/// element and reading its layout, which forces a page layout per label (milliseconds a
/// redraw); the context's own text API needs no layout.
fn fill_text(
    ctx: &CanvasRenderingContext2d,
    text: &str,
    x: f64,
    y: f64,
    align: &str,
    baseline: &str,
) {
    ctx.set_text_align(align);
    ctx.set_text_baseline(baseline);
    let _ = ctx.fill_text(text, x, y);
}

/// A rectangle in canvas pixels: (left, top, right, bottom).
type PixelRect = (f64, f64, f64, f64);

/// Points every `step` pixels along a polyline (its vertices included), for
/// [`legend_corner`] to count what a legend would cover.
fn sample_polyline(pixels: &[(i32, i32)], step: f64, out: &mut Vec<(f64, f64)>) {
    let step = step.max(1.0);
    for pair in pixels.windows(2) {
        let ((ax, ay), (bx, by)) = (
            (pair[0].0 as f64, pair[0].1 as f64),
            (pair[1].0 as f64, pair[1].1 as f64),
        );
        let n = ((bx - ax).hypot(by - ay) / step)
            .ceil()
            .clamp(1.0, 10_000.0) as usize;
        out.extend((0..n).map(|i| {
            let t = i as f64 / n as f64;
            (ax + t * (bx - ax), ay + t * (by - ay))
        }));
    }
    out.extend(pixels.last().map(|&(x, y)| (x as f64, y as f64)));
}

/// Points on a grid of `step` pixels over a filled rectangle (a bar).
fn sample_rect((l, t, r, b): PixelRect, step: f64, out: &mut Vec<(f64, f64)>) {
    let step = step.max(1.0);
    let (l, r, t, b) = (l.min(r), l.max(r), t.min(b), t.max(b));
    let (nx, ny) = (
        ((r - l) / step).ceil().clamp(1.0, 1000.0) as usize,
        ((b - t) / step).ceil().clamp(1.0, 1000.0) as usize,
    );
    for i in 0..=nx {
        for j in 0..=ny {
            out.push((
                l + (r - l) * i as f64 / nx as f64,
                t + (b - t) * j as f64 / ny as f64,
            ));
        }
    }
}

/// Which of `candidates` (places for the legend, in order of preference) covers the
/// fewest of the `drawn` points; the earliest among equals, so the preferred place is
/// kept whenever it hides nothing.
fn legend_corner(candidates: &[PixelRect], drawn: &[(f64, f64)]) -> usize {
    let covered = |&(l, t, r, b): &PixelRect| {
        drawn
            .iter()
            .filter(|&&(x, y)| x >= l && x <= r && y >= t && y <= b)
            .count()
    };
    candidates
        .iter()
        .enumerate()
        .min_by_key(|&(i, c)| (covered(c), i))
        .map_or(0, |(i, _)| i)
}

/// The four places for a `w`×`h` legend inside `plot`, `pad` in from its corners, in
/// order of preference: the preferred upper corner, the other upper one, then the lower
/// corners below them.
fn legend_places(
    (l, t, r, b): PixelRect,
    (w, h): (f64, f64),
    pad: f64,
    prefer_left: bool,
) -> [PixelRect; 4] {
    let (left, right) = (l + pad, r - w - pad);
    let (top, bottom) = (t + pad, b - h - pad);
    let at = |x: f64, y: f64| (x, y, x + w, y + h);
    if prefer_left {
        [
            at(left, top),
            at(right, top),
            at(left, bottom),
            at(right, bottom),
        ]
    } else {
        [
            at(right, top),
            at(left, top),
            at(right, bottom),
            at(left, bottom),
        ]
    }
}

/// Draws the legend in the corner of `plot` that hides the least of `drawn`.
fn draw_legend(
    ctx: &CanvasRenderingContext2d,
    entries: &[(String, Tone, Swatch)],
    palette: &Palette,
    plot: PixelRect,
    drawn: &[(f64, f64)],
    prefer_left: bool,
    dpr: f64,
) {
    if entries.is_empty() {
        return;
    }
    let row = 18.0 * dpr;
    let swatch_w = 22.0 * dpr;
    let pad = 6.0 * dpr;
    let text_w = entries
        .iter()
        .map(|(l, _, _)| ctx.measure_text(l).map(|m| m.width()).unwrap_or(0.0))
        .fold(0.0, f64::max);
    let (w, h) = (
        pad * 3.0 + swatch_w + text_w,
        pad * 2.0 + row * entries.len() as f64,
    );
    let places = legend_places(plot, (w, h), pad, prefer_left);
    let (x, y, _, _) = places[legend_corner(&places, drawn)];
    let (r, g, b) = palette.bg;
    ctx.set_fill_style_str(&format!("rgba({r},{g},{b},0.88)"));
    ctx.fill_rect(x, y, w, h);
    ctx.set_line_width(dpr);
    ctx.set_stroke_style_str(&css_rgb(palette.muted));
    ctx.stroke_rect(x, y, w, h);
    for (i, (label, tone, swatch)) in entries.iter().enumerate() {
        let cy = y + pad + row * (i as f64 + 0.5);
        let (sx, ex) = (x + pad, x + pad + swatch_w);
        let colour = tone.rgb(palette);
        match swatch {
            Swatch::Line { dashed } => {
                let dash = dashed.then_some([5.0 * dpr, 3.0 * dpr]);
                stroke_polyline(
                    ctx,
                    &[(sx as i32, cy as i32), (ex as i32, cy as i32)],
                    colour,
                    2.0 * dpr,
                    dash,
                );
            }
            Swatch::Rule => {
                let mid = ((sx + ex) / 2.0) as i32;
                stroke_polyline(
                    ctx,
                    &[
                        (mid, (cy - 6.0 * dpr) as i32),
                        (mid, (cy + 6.0 * dpr) as i32),
                    ],
                    colour,
                    1.5 * dpr,
                    Some([3.0 * dpr, 2.0 * dpr]),
                );
            }
            Swatch::Box => {
                ctx.set_fill_style_str(&css_rgb(colour));
                ctx.fill_rect(sx + 5.0 * dpr, cy - 5.0 * dpr, 10.0 * dpr, 10.0 * dpr);
            }
        }
        ctx.set_fill_style_str(&css_rgb(palette.fg));
        fill_text(ctx, label, ex + pad, cy, "left", "middle");
    }
}

/// Draws `spec` on `canvas` at the given CSS size.
pub fn draw_chart(
    canvas: &HtmlCanvasElement,
    spec: &ChartSpec,
    palette: &Palette,
    css_w: f64,
    css_h: f64,
) -> Result<(), String> {
    let dpr = fit_canvas(canvas, css_w, css_h);
    let px = |v: f64| (v * dpr).round() as u32;
    let bg = RGBColor(palette.bg.0, palette.bg.1, palette.bg.2);
    let muted = rgb(palette, Tone::Muted);
    let err = |e: &dyn std::fmt::Debug| format!("{e:?}");

    let ctx = canvas
        .get_context("2d")
        .ok()
        .flatten()
        .and_then(|c| c.dyn_into::<CanvasRenderingContext2d>().ok())
        .ok_or("this canvas cannot be drawn on")?;
    let backend = CanvasBackend::with_canvas_object(canvas.clone())
        .ok_or("this canvas cannot be drawn on")?;
    let root = backend.into_drawing_area();
    root.fill(&bg).map_err(|e| err(&e))?;

    let (xa, ya) = (&spec.x, &spec.y);
    // `!(max > min)` on purpose: it is also true when either end is NaN.
    #[allow(clippy::neg_cmp_op_on_partial_ord)]
    if xa.log && xa.min <= 0.0
        || ya.log && ya.min <= 0.0
        || !(xa.max > xa.min)
        || !(ya.max > ya.min)
    {
        return Err("axis range is empty or not positive on a log axis".into());
    }
    let (x0, x1) = (to_axis(xa, xa.min), to_axis(xa, xa.max));
    let (y0, y1) = (to_axis(ya, ya.min), to_axis(ya, ya.max));

    let mut chart = ChartBuilder::on(&root)
        .margin(px(10.0))
        .x_label_area_size(px(40.0))
        .y_label_area_size(px(62.0))
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(|e| err(&e))?;
    // The axis lines from plotters; ticks, labels, titles and grid drawn here, so that log
    // axes get ticks at round values of the data (1, 10, 100…) and no text needs layout.
    chart
        .configure_mesh()
        .disable_mesh()
        .x_labels(0)
        .y_labels(0)
        .axis_style(ShapeStyle::from(&muted).stroke_width(px(1.0)))
        .draw()
        .map_err(|e| err(&e))?;
    let tick = 4.0 * dpr;
    let (plot_left, plot_bottom) = {
        let (l, b) = chart.backend_coord(&(x0, y0));
        (l as f64, b as f64)
    };
    let (plot_right, plot_top) = {
        let (r, t) = chart.backend_coord(&(x1, y1));
        (r as f64, t as f64)
    };
    ctx.set_font(&format!("{}px sans-serif", (12.0 * dpr).round()));
    let line = |from: (f64, f64), to: (f64, f64), colour| {
        stroke_polyline(
            &ctx,
            &[(from.0 as i32, from.1 as i32), (to.0 as i32, to.1 as i32)],
            colour,
            dpr,
            None,
        )
    };
    for v in ticks(xa) {
        let bx = chart.backend_coord(&(to_axis(xa, v), y0)).0 as f64;
        line((bx, plot_top), (bx, plot_bottom), palette.grid);
        line((bx, plot_bottom), (bx, plot_bottom + tick), palette.muted);
        ctx.set_fill_style_str(&css_rgb(palette.fg));
        fill_text(
            &ctx,
            &tick_label(v),
            bx,
            plot_bottom + tick + 2.0 * dpr,
            "center",
            "top",
        );
    }
    for v in ticks(ya) {
        let by = chart.backend_coord(&(x0, to_axis(ya, v))).1 as f64;
        line((plot_left, by), (plot_right, by), palette.grid);
        line((plot_left - tick, by), (plot_left, by), palette.muted);
        ctx.set_fill_style_str(&css_rgb(palette.fg));
        fill_text(
            &ctx,
            &tick_label(v),
            plot_left - tick - 3.0 * dpr,
            by,
            "right",
            "middle",
        );
    }
    ctx.set_fill_style_str(&css_rgb(palette.fg));
    fill_text(
        &ctx,
        &xa.label,
        (plot_left + plot_right) / 2.0,
        canvas.height() as f64 - 4.0 * dpr,
        "center",
        "bottom",
    );
    ctx.save();
    let _ = ctx.translate(4.0 * dpr, (plot_top + plot_bottom) / 2.0);
    let _ = ctx.rotate(-std::f64::consts::FRAC_PI_2);
    fill_text(&ctx, &ya.label, 0.0, 0.0, "center", "top");
    ctx.restore();

    let clamp_y = |y: f64| y.clamp(y0, y1);
    let in_x = |x: f64| x >= x0 - 1e-9 && x <= x1 + 1e-9;
    let mut legend: Vec<(String, Tone, Swatch)> = Vec::new();
    // What the marks put on the plot, as points every few pixels: the legend goes where
    // it hides the least of them.
    let mut drawn: Vec<(f64, f64)> = Vec::new();
    let sample_step = 4.0 * dpr;
    for mark in &spec.marks {
        match mark {
            Mark::Line {
                label,
                points,
                tone,
                dashed,
                dots,
            } => {
                let pts: Vec<(f64, f64)> = points
                    .iter()
                    .filter(|(x, y)| {
                        x.is_finite()
                            && y.is_finite()
                            && (!xa.log || *x > 0.0)
                            && (!ya.log || *y > 0.0)
                    })
                    .map(|&(x, y)| (to_axis(xa, x), clamp_y(to_axis(ya, y))))
                    .filter(|(x, _)| in_x(*x))
                    .collect();
                let pixels: Vec<(i32, i32)> = pts.iter().map(|p| chart.backend_coord(p)).collect();
                let dash = dashed.then_some([6.0 * dpr, 4.0 * dpr]);
                stroke_polyline(&ctx, &pixels, tone.rgb(palette), 2.0 * dpr, dash);
                sample_polyline(&pixels, sample_step, &mut drawn);
                if *dots {
                    ctx.set_fill_style_str(&css_rgb(tone.rgb(palette)));
                    for &(x, y) in &pixels {
                        ctx.begin_path();
                        let _ = ctx.arc(x as f64, y as f64, 3.0 * dpr, 0.0, std::f64::consts::TAU);
                        ctx.fill();
                    }
                }
                if !label.is_empty() {
                    legend.push((label.clone(), *tone, Swatch::Line { dashed: *dashed }));
                }
            }
            Mark::Bars {
                label,
                bars,
                tone,
                width,
            } => {
                let color = rgb(palette, *tone);
                let base = y0.max(if ya.log { y0 } else { 0.0 });
                let rects: Vec<Rectangle<(f64, f64)>> = bars
                    .iter()
                    .filter(|(x, y)| x.is_finite() && y.is_finite() && (!ya.log || *y > 0.0))
                    .map(|&(x, y)| {
                        let top = clamp_y(to_axis(ya, y));
                        let (a, b) = (
                            chart.backend_coord(&(x - width / 2.0, base)),
                            chart.backend_coord(&(x + width / 2.0, top)),
                        );
                        sample_rect(
                            (a.0 as f64, b.1 as f64, b.0 as f64, a.1 as f64),
                            sample_step,
                            &mut drawn,
                        );
                        Rectangle::new(
                            [(x - width / 2.0, base), (x + width / 2.0, top)],
                            color.filled(),
                        )
                    })
                    .collect();
                chart.draw_series(rects).map_err(|e| err(&e))?;
                if !label.is_empty() {
                    legend.push((label.clone(), *tone, Swatch::Box));
                }
            }
            Mark::VRule { label, x, tone } => {
                let xv = to_axis(xa, *x);
                if xv.is_finite() && in_x(xv) {
                    let ends = [
                        chart.backend_coord(&(xv, y0)),
                        chart.backend_coord(&(xv, y1)),
                    ];
                    stroke_polyline(
                        &ctx,
                        &ends,
                        tone.rgb(palette),
                        1.5 * dpr,
                        Some([4.0 * dpr, 3.0 * dpr]),
                    );
                    sample_polyline(&ends, sample_step, &mut drawn);
                    if !label.is_empty() {
                        legend.push((label.clone(), *tone, Swatch::Rule));
                    }
                }
            }
            Mark::HRule { label, y, tone } => {
                let yv = to_axis(ya, *y);
                if yv.is_finite() && yv >= y0 && yv <= y1 {
                    let ends = [
                        chart.backend_coord(&(x0, yv)),
                        chart.backend_coord(&(x1, yv)),
                    ];
                    stroke_polyline(
                        &ctx,
                        &ends,
                        tone.rgb(palette),
                        1.5 * dpr,
                        Some([2.0 * dpr, 3.0 * dpr]),
                    );
                    sample_polyline(&ends, sample_step, &mut drawn);
                    if !label.is_empty() {
                        legend.push((label.clone(), *tone, Swatch::Line { dashed: true }));
                    }
                }
            }
        }
    }
    draw_legend(
        &ctx,
        &legend,
        palette,
        (plot_left, plot_top, plot_right, plot_bottom),
        &drawn,
        spec.legend_left,
        dpr,
    );
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

#[cfg(test)]
mod tests {
    use super::*;

    fn axis(min: f64, max: f64, log: bool) -> Axis {
        Axis {
            label: String::new(),
            min,
            max,
            log,
        }
    }

    #[test]
    fn linear_ticks_are_round_and_inside() {
        assert_eq!(
            ticks(&axis(0.0, 1.0, false)),
            vec![0.0, 0.2, 0.4, 0.6000000000000001, 0.8, 1.0]
        );
        let t = ticks(&axis(-0.3, 0.7, false));
        assert!(t.iter().all(|v| (-0.3..=0.7).contains(v)));
    }

    #[test]
    fn log_ticks_are_powers_of_ten() {
        assert_eq!(
            ticks(&axis(1.0, 1024.0, true)),
            vec![1.0, 10.0, 100.0, 1000.0]
        );
        assert_eq!(
            ticks(&axis(1.0, 20.0, true)),
            vec![1.0, 2.0, 5.0, 10.0, 20.0]
        );
    }

    #[test]
    fn log_decades_round_out_and_stay_finite() {
        let a = Axis::log_decades("x", 3e-5, 42.0);
        assert_eq!((a.min, a.max), (1e-5, 100.0));
        let b = Axis::log_decades("x", 1e-320, 1e305);
        assert!(b.min > 0.0 && b.max.is_finite());
    }

    // A 400×300 plot and a 100×40 legend, 6 px in from the corners.
    const PLOT: PixelRect = (50.0, 10.0, 450.0, 310.0);

    fn places(prefer_left: bool) -> [PixelRect; 4] {
        legend_places(PLOT, (100.0, 40.0), 6.0, prefer_left)
    }

    #[test]
    fn legend_places_are_the_four_corners_preferred_first() {
        assert_eq!(places(false)[0], (344.0, 16.0, 444.0, 56.0));
        assert_eq!(places(false)[1], (56.0, 16.0, 156.0, 56.0));
        assert_eq!(places(true)[0], (56.0, 16.0, 156.0, 56.0));
        assert_eq!(places(true)[3], (344.0, 264.0, 444.0, 304.0));
    }

    #[test]
    fn legend_stays_in_the_preferred_corner_when_it_hides_nothing() {
        let mut drawn = Vec::new();
        // A curve along the bottom of the plot.
        sample_polyline(&[(50, 300), (450, 290)], 4.0, &mut drawn);
        assert_eq!(legend_corner(&places(false), &drawn), 0);
        assert_eq!(legend_corner(&places(true), &drawn), 0);
        assert_eq!(legend_corner(&places(false), &[]), 0);
    }

    #[test]
    fn legend_leaves_a_corner_the_data_runs_through() {
        // A curve rising to the top right corner: the legend goes to the upper left.
        let mut drawn = Vec::new();
        sample_polyline(&[(50, 300), (250, 200), (450, 12)], 4.0, &mut drawn);
        assert_eq!(legend_corner(&places(false), &drawn), 1);
        // A tall bar under both upper corners' left one, a curve through the right one:
        // the legend goes down to the emptier lower right.
        let mut drawn = Vec::new();
        sample_rect((60.0, 12.0, 150.0, 310.0), 4.0, &mut drawn);
        sample_polyline(&[(300, 20), (450, 20)], 4.0, &mut drawn);
        assert_eq!(legend_corner(&places(false), &drawn), 2);
    }

    #[test]
    fn sampled_polyline_keeps_its_ends_and_steps_at_most_the_given_length() {
        let mut pts = Vec::new();
        sample_polyline(&[(0, 0), (10, 0), (10, 7)], 2.0, &mut pts);
        assert_eq!(pts.first(), Some(&(0.0, 0.0)));
        assert_eq!(pts.last(), Some(&(10.0, 7.0)));
        assert!(pts
            .windows(2)
            .all(|w| (w[1].0 - w[0].0).hypot(w[1].1 - w[0].1) <= 2.0 + 1e-12));
    }

    #[test]
    fn degenerate_axes_have_no_ticks() {
        assert!(ticks(&axis(1.0, 1.0, false)).is_empty());
        assert!(ticks(&axis(0.0, 10.0, true)).is_empty());
        assert!(ticks(&axis(f64::NAN, 10.0, false)).is_empty());
    }
}
