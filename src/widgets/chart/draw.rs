//! Drawing a [`ChartSpec`](super::spec::ChartSpec) on a canvas with plotters: the plot
//! area and axis lines from plotters, ticks, labels, lines, bars and rules drawn straight
//! on the context (no text needs a page layout). Non-finite points are dropped, never
//! drawn.

use plotters::prelude::*;
use plotters_canvas::CanvasBackend;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

use super::legend::{
    draw_legend, legend_layout, points_inside, sample_polyline, sample_rect, Swatch,
};
use super::spec::{ChartSpec, Mark, Tone};
use super::ticks::{ticks, to_axis};
use crate::widgets::canvas::{device_pixel_ratio, fit_canvas};
use crate::widgets::format::axis_tick_labels;
use crate::widgets::palette::{css_rgb, Palette};

pub fn rgb(palette: &Palette, tone: Tone) -> RGBColor {
    let (r, g, b) = tone.rgb(palette);
    RGBColor(r, g, b)
}

/// Strokes a polyline in one path (plotters strokes every dash as its own path, which
/// costs milliseconds on long dashed lines), optionally dashed.
pub fn stroke_polyline(
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

/// Text drawn straight on the context. plotters-canvas measures text by inserting a DOM
/// element and reading its layout, which forces a page layout per label (milliseconds a
/// redraw); the context's own text API needs no layout.
pub fn fill_text(
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

/// Draws `spec` on `canvas` at the given CSS size; returns the plot area in CSS pixels
/// from the canvas's corner (left, top, right, bottom).
pub fn draw_chart(
    canvas: &HtmlCanvasElement,
    spec: &ChartSpec,
    palette: &Palette,
    css_w: f64,
    css_h: f64,
) -> Result<super::legend::PixelRect, String> {
    let ctx = canvas
        .get_context("2d")
        .ok()
        .flatten()
        .and_then(|c| c.dyn_into::<CanvasRenderingContext2d>().ok())
        .ok_or("this canvas cannot be drawn on")?;
    let font = |dpr: f64| format!("{}px sans-serif", (12.0 * dpr).round());
    // The legend sits in a band above the plot, never over the data: its rows (measured
    // in the chart's font) add to the canvas's height.
    let legend = legend_entries(spec);
    let dpr = device_pixel_ratio();
    ctx.set_font(&font(dpr));
    let plot_width = (css_w - 10.0 - 62.0 - 10.0).max(40.0) * dpr;
    let (placed, _, band) = legend_layout(&ctx, &legend, plot_width, dpr);
    let dpr = fit_canvas(canvas, css_w, css_h + band / dpr);
    let px = |v: f64| (v * dpr).round() as u32;
    let bg = RGBColor(palette.bg.0, palette.bg.1, palette.bg.2);
    let muted = rgb(palette, Tone::Muted);
    let err = |e: &dyn std::fmt::Debug| format!("{e:?}");

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
        .margin_top(px(10.0) + band.round() as u32)
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
    ctx.set_font(&font(dpr));
    let line = |from: (f64, f64), to: (f64, f64), colour| {
        stroke_polyline(
            &ctx,
            &[(from.0 as i32, from.1 as i32), (to.0 as i32, to.1 as i32)],
            colour,
            dpr,
            None,
        )
    };
    // Names in place of numbers where the spec gives them (a bar chart's categories).
    let (x_ticks, x_labels): (Vec<f64>, Vec<String>) = match spec.marks.iter().find_map(|m| match m
    {
        Mark::Categories { labels } => Some(labels.clone()),
        _ => None,
    }) {
        Some(labels) => labels.into_iter().unzip(),
        None => {
            let t = ticks(xa);
            let l = axis_tick_labels(&t);
            (t, l)
        }
    };
    for (v, label) in x_ticks.iter().copied().zip(x_labels) {
        let bx = chart.backend_coord(&(to_axis(xa, v), y0)).0 as f64;
        line((bx, plot_top), (bx, plot_bottom), palette.grid);
        line((bx, plot_bottom), (bx, plot_bottom + tick), palette.muted);
        ctx.set_fill_style_str(&css_rgb(palette.fg));
        fill_text(
            &ctx,
            &label,
            bx,
            plot_bottom + tick + 2.0 * dpr,
            "center",
            "top",
        );
    }
    let y_ticks = ticks(ya);
    for (v, label) in y_ticks.iter().copied().zip(axis_tick_labels(&y_ticks)) {
        let by = chart.backend_coord(&(x0, to_axis(ya, v))).1 as f64;
        line((plot_left, by), (plot_right, by), palette.grid);
        line((plot_left - tick, by), (plot_left, by), palette.muted);
        ctx.set_fill_style_str(&css_rgb(palette.fg));
        fill_text(
            &ctx,
            &label,
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
    // What the marks put on the plot, as points every few pixels: the legend goes where
    // it hides the least of them.
    let mut drawn: Vec<(f64, f64)> = Vec::new();
    let mut last_level = f64::INFINITY;
    let sample_step = 4.0 * dpr;
    for mark in &spec.marks {
        match mark {
            Mark::Line {
                points,
                tone,
                dashed,
                dots,
                ..
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
            }
            Mark::Bars {
                bars, tone, width, ..
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
            }
            Mark::VRule { x, tone, .. } => {
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
                }
            }
            Mark::Categories { .. } => {}
            Mark::HRule { y, tone, .. } | Mark::Level { y, tone, .. } => {
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
                    // A level's label sits on the plot at its right end, unless it would
                    // overlap the one written before it.
                    if let Mark::Level { label, .. } = mark {
                        let by = ends[0].1 as f64;
                        if (last_level - by).abs() >= 13.0 * dpr {
                            last_level = by;
                            ctx.set_fill_style_str(&css_rgb(tone.rgb(palette)));
                            fill_text(
                                &ctx,
                                label,
                                plot_right - 2.0 * dpr,
                                by - 2.0 * dpr,
                                "right",
                                "bottom",
                            );
                        }
                    }
                }
            }
        }
    }
    let legend_box = draw_legend(
        &ctx,
        &legend,
        palette,
        &placed,
        (plot_left, px(6.0) as f64),
        dpr,
    );
    mark_legend(
        canvas,
        (!legend.is_empty()).then(|| (legend_box, points_inside(legend_box, &drawn))),
        (plot_left, plot_top, plot_right, plot_bottom),
        dpr,
    );
    root.present().map_err(|e| err(&e))?;
    Ok((
        plot_left / dpr,
        plot_top / dpr,
        plot_right / dpr,
        plot_bottom / dpr,
    ))
}

/// The legend's entries: every labelled mark, in order, with its swatch.
fn legend_entries(spec: &ChartSpec) -> Vec<(String, Tone, Swatch)> {
    spec.marks
        .iter()
        .filter_map(|mark| match mark {
            Mark::Line {
                label,
                tone,
                dashed,
                ..
            } => Some((label, *tone, Swatch::Line { dashed: *dashed })),
            Mark::Bars { label, tone, .. } => Some((label, *tone, Swatch::Box)),
            Mark::Level { .. } | Mark::Categories { .. } => None,
            Mark::VRule { label, tone, .. } => Some((label, *tone, Swatch::Rule)),
            Mark::HRule { label, tone, .. } => Some((label, *tone, Swatch::Line { dashed: true })),
        })
        .filter(|(label, _, _)| !label.is_empty())
        .map(|(label, tone, swatch)| (label.clone(), tone, swatch))
        .collect()
}

/// Records where the legend and the plot are, in CSS pixels (`data-legend-box`,
/// `data-plot-box`: left,top,right,bottom) and how many drawn points the legend covers
/// (`data-legend-covers`), for tests.
fn mark_legend(
    canvas: &HtmlCanvasElement,
    legend: Option<(super::legend::PixelRect, usize)>,
    plot: super::legend::PixelRect,
    dpr: f64,
) {
    let css = |(l, t, r, b): super::legend::PixelRect| {
        format!(
            "{:.0},{:.0},{:.0},{:.0}",
            l / dpr,
            t / dpr,
            r / dpr,
            b / dpr
        )
    };
    let _ = canvas.set_attribute("data-plot-box", &css(plot));
    match legend {
        Some((rect, covers)) => {
            let _ = canvas.set_attribute("data-legend-box", &css(rect));
            let _ = canvas.set_attribute("data-legend-covers", &covers.to_string());
        }
        None => {
            let _ = canvas.remove_attribute("data-legend-box");
            let _ = canvas.remove_attribute("data-legend-covers");
        }
    }
}
