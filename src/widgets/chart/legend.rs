//! The legend: its rows, and the corner of the plot where it hides the least of what is
//! drawn.

use web_sys::CanvasRenderingContext2d;

use super::draw::{fill_text, stroke_polyline};
use super::spec::Tone;
use crate::widgets::palette::{css_rgb, Palette};

/// One legend row: what to draw as its swatch.
pub enum Swatch {
    Line { dashed: bool },
    Box,
    Rule,
}

/// A rectangle in canvas pixels: (left, top, right, bottom).
pub type PixelRect = (f64, f64, f64, f64);

/// Points every `step` pixels along a polyline (its vertices included), for
/// [`legend_corner`] to count what a legend would cover.
pub fn sample_polyline(pixels: &[(i32, i32)], step: f64, out: &mut Vec<(f64, f64)>) {
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
pub fn sample_rect((l, t, r, b): PixelRect, step: f64, out: &mut Vec<(f64, f64)>) {
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
pub fn legend_corner(candidates: &[PixelRect], drawn: &[(f64, f64)]) -> usize {
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
pub fn legend_places(
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
pub fn draw_legend(
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
