//! Heatmap: a matrix drawn as an RGBA buffer put into an ImageData on an offscreen canvas
//! of the matrix's size, then scaled up with smoothing off (one canvas call per frame,
//! never one per cell). The backing store follows the device pixel ratio, so it stays
//! crisp. Hover or keyboard focus of a cell reads it out; arrow keys move between cells.

use leptos::html::{Canvas, Div};
use leptos::prelude::*;
use wasm_bindgen::{Clamped, JsCast};
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement, ImageData};

use super::canvas::{fit_canvas, mark_drawn};
use super::colormap::{rgba_buffer, ColorScale};
use super::format::tick_label;
use super::observers::use_element_width;
use super::palette::use_palette;
use super::palette::{css_rgb, Palette};
use super::timing::now_ms;

/// The id of the page's one sentence on how to read a heatmap's cells, which every
/// heatmap names as part of its description ([`HeatmapHint`]).
pub const HEATMAP_HINT_ID: &str = "heatmap-hint";

/// How to read a heatmap, said once for the page (and, hidden, in an embed view).
#[component]
pub fn HeatmapHint(#[prop(default = false)] hidden: bool) -> impl IntoView {
    view! {
        <p id=HEATMAP_HINT_ID class="heatmap-hint" class:visually-hidden=hidden>
            "Every heatmap reads its cells out: point at a cell or tap it, or focus the heatmap with the Tab key and move between cells with the arrow keys."
        </p>
    }
}

/// A row-major matrix for drawing.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Grid {
    pub rows: usize,
    pub cols: usize,
    pub values: Vec<f64>,
}

impl Grid {
    /// The value at (row, col), if inside.
    pub fn get(&self, row: usize, col: usize) -> Option<f64> {
        (row < self.rows && col < self.cols)
            .then(|| self.values.get(row * self.cols + col).copied())
            .flatten()
    }

    /// From a nalgebra matrix (stored by columns): its entries row by row. One pass over
    /// the columns as stored, no indexing (a 256×256 matrix is copied in well under a
    /// millisecond).
    pub fn from_matrix(m: &nalgebra::DMatrix<f64>) -> Self {
        let (rows, cols) = m.shape();
        let mut values = vec![0.0; rows * cols];
        if rows > 0 {
            for (j, column) in m.as_slice().chunks_exact(rows).enumerate() {
                for (cell, v) in values[j..].iter_mut().step_by(cols).zip(column) {
                    *cell = *v;
                }
            }
        }
        Grid { rows, cols, values }
    }
}

/// Moves a focused cell by a key press; returns the new cell, or None for other keys.
pub fn move_focus(
    key: &str,
    cell: Option<(usize, usize)>,
    rows: usize,
    cols: usize,
) -> Option<(usize, usize)> {
    if rows == 0 || cols == 0 {
        return None;
    }
    let (r, c) = cell
        .map(|(r, c)| (r.min(rows - 1), c.min(cols - 1)))
        .unwrap_or((0, 0));
    let moved = match key {
        "ArrowUp" => (r.saturating_sub(1), c),
        "ArrowDown" => ((r + 1).min(rows - 1), c),
        "ArrowLeft" => (r, c.saturating_sub(1)),
        "ArrowRight" => (r, (c + 1).min(cols - 1)),
        "Home" => (r, 0),
        "End" => (r, cols - 1),
        "PageUp" => (0, c),
        "PageDown" => (rows - 1, c),
        _ => return None,
    };
    Some(moved)
}

fn context_2d(canvas: &HtmlCanvasElement) -> Option<CanvasRenderingContext2d> {
    canvas
        .get_context("2d")
        .ok()
        .flatten()?
        .dyn_into::<CanvasRenderingContext2d>()
        .ok()
}

fn paint_offscreen(offscreen: &HtmlCanvasElement, grid: &Grid, scale: &ColorScale) -> Option<()> {
    if grid.rows == 0 || grid.cols == 0 {
        return None;
    }
    // The offscreen canvas only grows: setting a canvas's size reallocates and clears it,
    // putImageData replaces every pixel of the grid's corner (alpha included), and
    // `composite` copies only that corner. So a grid whose shape goes back and forth (a
    // blocked matrix whose gaps follow the head count) never resizes it.
    if offscreen.width() < grid.cols as u32 || offscreen.height() < grid.rows as u32 {
        offscreen.set_width(offscreen.width().max(grid.cols as u32));
        offscreen.set_height(offscreen.height().max(grid.rows as u32));
    }
    let buf = rgba_buffer(&grid.values, scale);
    let image = ImageData::new_with_u8_clamped_array_and_sh(
        Clamped(&buf[..]),
        grid.cols as u32,
        grid.rows as u32,
    )
    .ok()?;
    context_2d(offscreen)?.put_image_data(&image, 0.0, 0.0).ok()
}

/// The cells of a heatmap lit by a linked formula term; the others are dimmed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum LitCells {
    /// Nothing lit: every cell as it is.
    #[default]
    All,
    /// The diagonal (i = j).
    Diagonal,
    /// Every cell off the diagonal.
    OffDiagonal,
    /// The columns `from..to` of every row.
    Columns(usize, usize),
}

impl LitCells {
    /// Whether cell (row, col) is lit.
    pub fn contains(self, row: usize, col: usize) -> bool {
        match self {
            LitCells::All => true,
            LitCells::Diagonal => row == col,
            LitCells::OffDiagonal => row != col,
            LitCells::Columns(from, to) => (from..to).contains(&col),
        }
    }

    /// The name a drawn canvas carries for it (`data-lit`), for tests.
    pub fn name(self) -> &'static str {
        match self {
            LitCells::All => "all",
            LitCells::Diagonal => "diagonal",
            LitCells::OffDiagonal => "off-diagonal",
            LitCells::Columns(..) => "columns",
        }
    }
}

/// Dims the cells of a `rows`×`cols` picture of `w`×`h` pixels that `lit` leaves out:
/// a veil of the background over them (rectangles per row of cells, or per cell on the
/// diagonal).
fn dim_unlit(
    ctx: &CanvasRenderingContext2d,
    (rows, cols): (usize, usize),
    (w, h): (f64, f64),
    lit: LitCells,
    palette: &Palette,
) {
    let (cw, ch) = (w / cols as f64, h / rows as f64);
    let (r, g, b) = palette.bg;
    ctx.set_fill_style_str(&format!("rgba({r},{g},{b},0.78)"));
    match lit {
        LitCells::All => {}
        LitCells::Diagonal => {
            for row in 0..rows {
                let y = row as f64 * ch;
                let d = row.min(cols);
                ctx.fill_rect(0.0, y, d as f64 * cw, ch);
                ctx.fill_rect((d + 1) as f64 * cw, y, w - (d + 1) as f64 * cw, ch);
            }
        }
        LitCells::OffDiagonal => {
            for row in 0..rows.min(cols) {
                ctx.fill_rect(row as f64 * cw, row as f64 * ch, cw, ch);
            }
        }
        LitCells::Columns(from, to) => {
            let (from, to) = (from.min(cols), to.min(cols).max(from.min(cols)));
            ctx.fill_rect(0.0, 0.0, from as f64 * cw, h);
            ctx.fill_rect(to as f64 * cw, 0.0, w - to as f64 * cw, h);
        }
    }
}

fn composite(
    canvas: &HtmlCanvasElement,
    offscreen: &HtmlCanvasElement,
    grid: &Grid,
    (css_w, css_h): (f64, f64),
    focus: Option<(usize, usize)>,
    lit: LitCells,
    palette: &Palette,
) -> Option<()> {
    let dpr = fit_canvas(canvas, css_w, css_h);
    let ctx = context_2d(canvas)?;
    let (w, h) = (canvas.width() as f64, canvas.height() as f64);
    ctx.set_image_smoothing_enabled(false);
    if grid.rows == 0 || grid.cols == 0 {
        ctx.clear_rect(0.0, 0.0, w, h);
        return Some(());
    }
    // "copy" replaces every pixel of the canvas with the image (transparent cells
    // included), so no clearRect of the whole canvas first.
    let _ = ctx.set_global_composite_operation("copy");
    let drawn = ctx.draw_image_with_html_canvas_element_and_sw_and_sh_and_dx_and_dy_and_dw_and_dh(
        offscreen,
        0.0,
        0.0,
        grid.cols as f64,
        grid.rows as f64,
        0.0,
        0.0,
        w,
        h,
    );
    let _ = ctx.set_global_composite_operation("source-over");
    drawn.ok()?;
    dim_unlit(&ctx, (grid.rows, grid.cols), (w, h), lit, palette);
    let _ = canvas.set_attribute("data-lit", lit.name());
    if let Some((r, c)) = focus {
        let (cw, ch) = (w / grid.cols as f64, h / grid.rows as f64);
        let line = (2.0 * dpr).max(1.0);
        ctx.set_line_width(line * 2.0);
        ctx.set_stroke_style_str(&css_rgb(palette.bg));
        ctx.stroke_rect(c as f64 * cw, r as f64 * ch, cw, ch);
        ctx.set_line_width(line);
        ctx.set_stroke_style_str(&css_rgb(palette.fg));
        ctx.stroke_rect(c as f64 * cw, r as f64 * ch, cw, ch);
    }
    Some(())
}

/// An interactive heatmap of `grid` on a fixed colour scale.
#[component]
pub fn Heatmap(
    /// Names the canvas (`data-canvas`).
    name: &'static str,
    #[prop(into)] grid: Signal<Grid>,
    /// The colour scale; a signal, so a range can follow the data.
    #[prop(into)]
    scale: Signal<ColorScale>,
    /// Text for a cell (row, col): read out on hover and keyboard focus.
    describe: Callback<(usize, usize), String>,
    /// Text alternative of the whole picture (updates with the state).
    #[prop(into)]
    summary: Signal<String>,
    /// Largest CSS width of the drawing.
    #[prop(default = 420.0)]
    max_width: f64,
    /// A fixed CSS height (for strips); by default cells are square.
    #[prop(optional)]
    height: Option<f64>,
    /// A fixed height over width, for a grid whose shape changes while its picture
    /// should keep its size (a matrix with gaps between its blocks): the canvas is then
    /// never resized by a change of data.
    #[prop(optional)]
    aspect: Option<f64>,
    /// The cells a linked formula term lights (the rest dimmed).
    #[prop(optional, into)]
    lit: Option<Signal<LitCells>>,
    /// Told the cell pointed at or focused (or `None`), for a linked formula.
    #[prop(optional)]
    on_cell: Option<Callback<Option<(usize, usize)>>>,
) -> impl IntoView {
    let wrapper = NodeRef::<Div>::new();
    let canvas_ref = NodeRef::<Canvas>::new();
    let width = use_element_width(wrapper, max_width);
    let (focus, set_focus) = signal(None::<(usize, usize)>);
    let offscreen = StoredValue::new_local(
        document()
            .create_element("canvas")
            .ok()
            .and_then(|e| e.dyn_into::<HtmlCanvasElement>().ok()),
    );
    let palette = use_palette();
    let draw = move |canvas: &HtmlCanvasElement, g: &Grid, repaint: bool| {
        let started = now_ms();
        let css_w = width.get_untracked().min(max_width).max(40.0);
        let css_h = height
            .or(aspect.map(|a| css_w * a))
            .unwrap_or(css_w * g.rows as f64 / g.cols.max(1) as f64);
        let colours = palette.get_untracked();
        offscreen.with_value(|off| {
            if let Some(off) = off {
                if repaint {
                    let scale = scale.get_untracked().on_page(colours.is_dark());
                    paint_offscreen(off, g, &scale);
                }
                composite(
                    canvas,
                    off,
                    g,
                    (css_w, css_h),
                    focus.get_untracked(),
                    lit.map(|l| l.get_untracked()).unwrap_or_default(),
                    &colours,
                );
            }
        });
        mark_drawn(canvas, started);
    };
    // The matrix, its scale or the theme changed: recolour the offscreen image and put it
    // on screen, in one go.
    Effect::new(move |_| {
        let Some(canvas) = canvas_ref.get() else {
            return;
        };
        scale.track();
        palette.track();
        grid.with(|g| draw(&canvas, g, true));
    });
    // Size, focus or lit cells changed: only scale the existing image onto the canvas.
    Effect::new(move |first: Option<()>| {
        width.track();
        focus.track();
        if let Some(lit) = lit {
            lit.track();
        }
        let Some(canvas) = canvas_ref.get() else {
            return;
        };
        if first.is_some() {
            grid.with_untracked(|g| draw(&canvas, g, false));
        }
    });

    if let Some(on_cell) = on_cell {
        Effect::new(move |was: Option<Option<(usize, usize)>>| {
            let now = focus.get();
            if was.is_some_and(|w| w != now) {
                on_cell.run(now);
            }
            now
        });
    }
    let cell_at = move |x: f64, y: f64| -> Option<(usize, usize)> {
        let canvas = canvas_ref.get_untracked()?;
        let rect = canvas.get_bounding_client_rect();
        grid.with_untracked(|g| {
            if rect.width() <= 0.0 || rect.height() <= 0.0 || g.rows == 0 {
                return None;
            }
            let col = ((x - rect.left()) / rect.width() * g.cols as f64).floor();
            let row = ((y - rect.top()) / rect.height() * g.rows as f64).floor();
            (col >= 0.0 && row >= 0.0 && (col as usize) < g.cols && (row as usize) < g.rows)
                .then_some((row as usize, col as usize))
        })
    };
    let readout = move || match focus.get() {
        Some((r, c)) if grid.with(|g| r < g.rows && c < g.cols) => describe.run((r, c)),
        // How to read a cell is said once for the page ([`HEATMAP_HINT_ID`]).
        _ => String::new(),
    };

    view! {
        <div class="heatmap" node_ref=wrapper>
            <canvas
                node_ref=canvas_ref
                data-canvas=name
                tabindex="0"
                role="img"
                aria-label=move || summary.get()
                aria-describedby=format!("{name}-cell {HEATMAP_HINT_ID}")
                on:mousemove=move |ev| set_focus.set(cell_at(ev.client_x() as f64, ev.client_y() as f64))
                on:mouseleave=move |_| set_focus.set(None)
                on:focus=move |_| {
                    if focus.get_untracked().is_none() {
                        set_focus.set(Some((0, 0)));
                    }
                }
                on:blur=move |_| set_focus.set(None)
                on:keydown=move |ev| {
                    let (rows, cols) = grid.with_untracked(|g| (g.rows, g.cols));
                    if let Some(cell) = move_focus(&ev.key(), focus.get_untracked(), rows, cols) {
                        ev.prevent_default();
                        set_focus.set(Some(cell));
                    }
                }
            ></canvas>
            <p class="cell-readout" id=format!("{name}-cell") aria-live="polite" data-cell-readout=name>
                {readout}
            </p>
        </div>
    }
}

/// A horizontal colour bar for `scale` with its end and middle values.
#[component]
pub fn ColorBar(#[prop(into)] scale: Signal<ColorScale>, label: &'static str) -> impl IntoView {
    let canvas_ref = NodeRef::<Canvas>::new();
    let palette = use_palette();
    Effect::new(move |_| {
        let Some(canvas) = canvas_ref.get() else {
            return;
        };
        let scale = scale.get().on_page(palette.get().is_dark());
        let steps = 256usize;
        let values: Vec<f64> = (0..steps)
            .map(|i| scale.min + (scale.max - scale.min) * i as f64 / (steps - 1) as f64)
            .collect();
        let grid = Grid {
            rows: 1,
            cols: steps,
            values,
        };
        // The strip shows its whole canvas, so the canvas is exactly the ramp (a new
        // canvas is 300×150, which `paint_offscreen`, made for grow-only offscreen
        // canvases, would keep: the ramp would fill one row of 150, an empty-looking bar).
        if canvas.width() != steps as u32 || canvas.height() != 1 {
            canvas.set_width(steps as u32);
            canvas.set_height(1);
        }
        paint_offscreen(&canvas, &grid, &scale);
    });
    let ends = move || {
        let s = scale.get();
        (s.min, (s.min + s.max) / 2.0, s.max)
    };
    view! {
        <div class="colorbar" role="img" aria-label=move || format!("{label}: colour scale from {} to {}", tick_label(ends().0), tick_label(ends().2))>
            <canvas node_ref=canvas_ref class="colorbar-strip" aria-hidden="true"></canvas>
            <div class="colorbar-ticks" aria-hidden="true">
                <span>{move || tick_label(ends().0)}</span>
                <span>{move || tick_label(ends().1)}</span>
                <span>{move || tick_label(ends().2)}</span>
            </div>
            <div class="colorbar-label">{label}</div>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrow_keys_move_and_stop_at_the_edges() {
        assert_eq!(move_focus("ArrowRight", Some((0, 0)), 3, 3), Some((0, 1)));
        assert_eq!(move_focus("ArrowLeft", Some((0, 0)), 3, 3), Some((0, 0)));
        assert_eq!(move_focus("ArrowDown", Some((2, 1)), 3, 3), Some((2, 1)));
        assert_eq!(move_focus("End", Some((1, 0)), 3, 4), Some((1, 3)));
        assert_eq!(move_focus("a", Some((1, 0)), 3, 4), None);
        assert_eq!(move_focus("ArrowUp", None, 3, 4), Some((0, 0)));
        assert_eq!(move_focus("ArrowUp", Some((1, 1)), 0, 0), None);
    }

    #[test]
    fn grid_from_matrix_is_row_major() {
        let m = nalgebra::DMatrix::from_row_slice(2, 3, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        let g = Grid::from_matrix(&m);
        assert_eq!(g.values, vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        let tall = nalgebra::DMatrix::from_fn(5, 3, |i, j| (10 * i + j) as f64);
        let t = Grid::from_matrix(&tall);
        assert!((0..5).all(|i| (0..3).all(|j| t.get(i, j) == Some(tall[(i, j)]))));
        assert_eq!(
            Grid::from_matrix(&nalgebra::DMatrix::<f64>::zeros(0, 3))
                .values
                .len(),
            0
        );
        assert_eq!(g.get(1, 0), Some(4.0));
        assert_eq!(g.get(2, 0), None);
    }
}
