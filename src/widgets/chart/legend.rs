//! The legend: its entries laid out in a band above the plot, outside the data, and how
//! much of what is drawn a box would hide (what tests check it never does).

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
/// [`points_inside`] to count what a box would cover.
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

/// Where each legend entry goes in the band above the plot: entries `widths` wide laid
/// left to right with `gap` between them, wrapping onto a new row where the next would
/// pass `available`. Returns each entry's (x offset, row) and the number of rows.
pub fn legend_rows(widths: &[f64], available: f64, gap: f64) -> (Vec<(f64, usize)>, usize) {
    let mut placed = Vec::with_capacity(widths.len());
    let (mut x, mut row) = (0.0, 0);
    for &w in widths {
        if x > 0.0 && x + w > available {
            x = 0.0;
            row += 1;
        }
        placed.push((x, row));
        x += w + gap;
    }
    let rows = if widths.is_empty() { 0 } else { row + 1 };
    (placed, rows)
}

/// How many of the `drawn` points lie inside `rect` (what a legend there would hide).
pub fn points_inside((l, t, r, b): PixelRect, drawn: &[(f64, f64)]) -> usize {
    drawn
        .iter()
        .filter(|&&(x, y)| x >= l && x <= r && y >= t && y <= b)
        .count()
}

/// The height of one legend row and the swatch and padding sizes, in CSS pixels.
pub const LEGEND_ROW: f64 = 18.0;
const SWATCH_W: f64 = 22.0;
const PAD: f64 = 6.0;
const GAP: f64 = 16.0;

/// The rows of the legend of `entries` across `width` canvas pixels (text measured in the
/// context's current font): each entry's (x offset, row), the rows, the band's height.
pub fn legend_layout(
    ctx: &CanvasRenderingContext2d,
    entries: &[(String, Tone, Swatch)],
    width: f64,
    dpr: f64,
) -> (Vec<(f64, usize)>, usize, f64) {
    let widths: Vec<f64> = entries
        .iter()
        .map(|(l, _, _)| {
            SWATCH_W * dpr + PAD * dpr + ctx.measure_text(l).map(|m| m.width()).unwrap_or(0.0)
        })
        .collect();
    let (placed, rows) = legend_rows(&widths, width, GAP * dpr);
    let band = if rows == 0 {
        0.0
    } else {
        rows as f64 * LEGEND_ROW * dpr + PAD * dpr
    };
    (placed, rows, band)
}

/// Draws the legend in the band above the plot, starting at (`left`, `top`): never over
/// what the plot draws. Returns the box it takes.
pub fn draw_legend(
    ctx: &CanvasRenderingContext2d,
    entries: &[(String, Tone, Swatch)],
    palette: &Palette,
    placed: &[(f64, usize)],
    (left, top): (f64, f64),
    dpr: f64,
) -> PixelRect {
    let row = LEGEND_ROW * dpr;
    let swatch_w = SWATCH_W * dpr;
    let pad = PAD * dpr;
    let mut right = left;
    let mut bottom = top;
    for ((label, tone, swatch), &(dx, r)) in entries.iter().zip(placed) {
        let cy = top + row * (r as f64 + 0.5);
        let (sx, ex) = (left + dx, left + dx + swatch_w);
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
        let text_w = ctx.measure_text(label).map(|m| m.width()).unwrap_or(0.0);
        right = right.max(ex + pad + text_w);
        bottom = bottom.max(top + row * (r as f64 + 1.0));
    }
    (left, top, right, bottom)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legend_entries_fill_a_row_then_wrap() {
        let (placed, rows) = legend_rows(&[100.0, 100.0, 100.0], 250.0, 10.0);
        assert_eq!(placed, vec![(0.0, 0), (110.0, 0), (0.0, 1)]);
        assert_eq!(rows, 2);
        let (placed, rows) = legend_rows(&[300.0, 50.0], 250.0, 10.0);
        assert_eq!(
            placed,
            vec![(0.0, 0), (0.0, 1)],
            "an entry wider than the row has a row of its own"
        );
        assert_eq!(rows, 2);
        assert_eq!(legend_rows(&[], 250.0, 10.0).1, 0);
    }

    #[test]
    fn no_entry_runs_past_the_row_unless_alone_in_it() {
        let widths = [80.0, 120.0, 40.0, 200.0, 90.0, 60.0];
        let (placed, _) = legend_rows(&widths, 240.0, 12.0);
        for (i, (&(x, row), w)) in placed.iter().zip(widths).enumerate() {
            let alone = x == 0.0;
            assert!(alone || x + w <= 240.0, "entry {i} at {x} in row {row}");
        }
    }

    #[test]
    fn points_inside_count_what_a_box_would_hide() {
        let mut drawn = Vec::new();
        sample_polyline(&[(0, 0), (100, 0)], 10.0, &mut drawn);
        assert_eq!(points_inside((-1.0, -1.0, 45.0, 1.0), &drawn), 5);
        assert_eq!(points_inside((0.0, 5.0, 100.0, 9.0), &drawn), 0);
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
