//! What the training figures share on screen: the run's bar (progress, steps per second,
//! time left, pause and restart), curves of two runs against step, the layer × step
//! heatmap of a run's gradient norms, its CSV and the readouts' sentences.

use leptos::prelude::*;

use super::chart::{Axis, ChartSpec, Mark, Tone};
use super::colormap::{ColorMap, ColorScale};
use super::format::{format_number, pending_or};
use super::heatmap::Grid;
use super::training::{TrainRun, TrainState};
use crate::math::train::Point;

/// The heatmap's colour scale: log₁₀ of a block's gradient norm, 10⁻⁸ (dark) to 10¹.
pub const LAYER_SCALE: ColorScale = ColorScale {
    map: ColorMap::Sequential,
    min: -8.0,
    max: 1.0,
};

/// What a training figure reads off its two runs, derived once for its readouts, bar and
/// caption.
#[derive(Clone, Copy)]
pub struct RunPair {
    pub a: TrainRun,
    pub b: TrainRun,
    /// Updates made by both (the slower run's).
    pub step: Signal<f64>,
    /// Steps per second of the slower run (of the one measured, before both are).
    pub rate: Signal<f64>,
    /// Either run still waiting to start or training.
    pub training: Signal<bool>,
    pub acc_a: Signal<f64>,
    pub acc_b: Signal<f64>,
    /// [`learned_code`] of the two accuracies.
    pub learned: Signal<f64>,
}

impl RunPair {
    pub fn new(a: TrainRun, b: TrainRun) -> Self {
        let (acc_a, acc_b) = (latest(a, |p| p.accuracy), latest(b, |p| p.accuracy));
        Self {
            a,
            b,
            step: Signal::derive(move || a.step.get().min(b.step.get()) as f64),
            rate: Signal::derive(move || {
                let (ra, rb) = (a.rate.get(), b.rate.get());
                if ra > 0.0 && rb > 0.0 {
                    ra.min(rb)
                } else {
                    ra.max(rb)
                }
            }),
            training: Signal::derive(move || {
                [a, b]
                    .iter()
                    .any(|r| matches!(r.state.get(), TrainState::Running | TrainState::Waiting))
            }),
            acc_a,
            acc_b,
            learned: Signal::derive(move || learned_code(acc_a.get(), acc_b.get())),
        }
    }

    /// Step 0 of either run still on its way (what `aria-busy` says: a moment; a run
    /// lasts seconds and is told by `data-train` and the bar).
    pub fn measuring(&self) -> bool {
        self.a.measuring() || self.b.measuring()
    }

    /// `data-train`: running while either trains, paused when paused, done when both are
    /// over.
    pub fn attribute(self, paused: RwSignal<bool>) -> Signal<&'static str> {
        let (a, b) = (self.a, self.b);
        Signal::derive(move || {
            let (sa, sb) = (a.state.get().attribute(), b.state.get().attribute());
            if sa == "done" && sb == "done" {
                "done"
            } else if paused.get() {
                "paused"
            } else {
                "running"
            }
        })
    }
}

/// The bar above a training figure's plots: a progress bar with steps per second and
/// the time left, and the pause and restart buttons.
#[component]
pub fn TrainBar(
    runs: RunPair,
    /// Steps of the whole run.
    #[prop(into)]
    steps: Signal<usize>,
    paused: RwSignal<bool>,
    restart: RwSignal<u32>,
) -> impl IntoView {
    let (a, b, step, rate) = (runs.a, runs.b, runs.step, runs.rate);
    let over = move |s: TrainState| {
        matches!(
            s,
            TrainState::Done | TrainState::Diverged(_) | TrainState::Failed
        )
    };
    let status = move || {
        let (sa, sb) = (a.state.get(), b.state.get());
        let total = steps.get();
        if sa == TrainState::Failed || sb == TrainState::Failed {
            return "Training needs a Web Worker, and this browser would not start one."
                .to_string();
        }
        if over(sa) && over(sb) {
            return format!("Done: {total} steps each.");
        }
        let r = rate.get();
        let left = if r > 0.0 {
            format!(
                " · {} s left",
                format_number((total as f64 - step.get()).max(0.0) / r, 2)
            )
        } else {
            String::new()
        };
        let what = if paused.get() {
            "Paused at step"
        } else {
            "Step"
        };
        format!(
            "{what} {} of {total} · {} steps/s{left}",
            step.get(),
            format_number(r, 3)
        )
    };
    // What a screen reader hears: the changes of state, not every step.
    let announced = move || {
        let (sa, sb) = (a.state.get(), b.state.get());
        if sa == TrainState::Failed || sb == TrainState::Failed {
            "Training could not start."
        } else if over(sa) && over(sb) {
            "Training done."
        } else if paused.get() {
            "Training paused."
        } else if sa == TrainState::Waiting && sb == TrainState::Waiting {
            ""
        } else {
            "Training."
        }
    };
    view! {
        <div class="train-bar">
            <progress max=move || steps.get().max(1) value=move || step.get() aria-label="Training progress"></progress>
            <span class="train-status">{status}</span>
            <span class="visually-hidden" role="status">{announced}</span>
            <button type="button" class="button-quiet" data-action="train-pause"
                aria-pressed=move || paused.get().to_string()
                disabled=move || over(a.state.get()) && over(b.state.get())
                on:click=move |_| paused.update(|p| *p = !*p)>
                {move || if paused.get() { "Resume" } else { "Pause" }}
            </button>
            <button type="button" class="button-quiet" data-action="train-restart"
                on:click=move |_| { paused.set(false); restart.update(|r| *r += 1); }>"Restart"</button>
        </div>
    }
}

/// The last point's value of `read`, NaN before the first point.
pub fn latest(run: TrainRun, read: fn(&Point) -> f64) -> Signal<f64> {
    Signal::derive(move || run.points.with(|p| p.last().map_or(f64::NAN, read)))
}

/// The bottom block's gradient norm over the top block's at a run's last point (NaN
/// before the first, or for a stack of one block: 1).
pub fn bottom_over_top(run: TrainRun) -> Signal<f64> {
    Signal::derive(move || {
        run.points.with(|p| {
            p.last().map_or(f64::NAN, |p| {
                match (p.layer_grads.first(), p.layer_grads.last()) {
                    (Some(b), Some(t)) if *t > 0.0 => b / t,
                    _ => f64::NAN,
                }
            })
        })
    })
}

/// Curves of runs A and B against step (B dashed), with a labelled level (what a model
/// without attention reaches, say) and the y axis given.
pub fn curves(
    series: [(&str, &[Point]); 2],
    read: fn(&Point) -> f64,
    steps: usize,
    y: Axis,
    level: Option<(String, f64)>,
) -> ChartSpec {
    let mut marks: Vec<Mark> = series
        .iter()
        .enumerate()
        .map(|(i, (label, points))| Mark::Line {
            label: (*label).to_string(),
            points: points
                .iter()
                .map(|p| (p.step as f64, read(p)))
                .filter(|(_, v)| v.is_finite() && (!y.log || *v > 0.0))
                .collect(),
            tone: if i == 0 { Tone::Purple } else { Tone::Green },
            dashed: i == 1,
            dots: false,
        })
        .collect();
    if let Some((label, value)) = level {
        marks.push(Mark::Level {
            label,
            y: value,
            tone: Tone::Muted,
        });
    }
    ChartSpec {
        x: Axis {
            label: "training step".into(),
            min: 0.0,
            max: steps.max(1) as f64,
            log: false,
        },
        y,
        marks,
    }
}

/// A log axis spanning every finite positive value `read` gives over both runs.
pub fn log_axis(label: &str, series: [&[Point]; 2], read: fn(&Point) -> f64) -> Axis {
    let values = series
        .iter()
        .flat_map(|s| s.iter().map(read))
        .filter(|v| v.is_finite() && *v > 0.0);
    let (lo, hi) = values.fold((f64::INFINITY, 0.0_f64), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    });
    if hi > 0.0 {
        Axis::log_decades(label, lo, hi.max(lo * 10.0))
    } else {
        Axis::log_decades(label, 0.01, 10.0)
    }
}

/// A run's gradient norms as a heatmap: one row per block (the top block first, so the
/// picture reads as the stack does), one column per point, log₁₀ of the norm.
pub fn layer_grid(points: &[Point], depth: usize) -> Grid {
    let cols = points.len();
    let mut values = vec![f64::NAN; depth * cols];
    for (c, p) in points.iter().enumerate() {
        for (layer, g) in p.layer_grads.iter().enumerate().take(depth) {
            let row = depth - 1 - layer;
            values[row * cols + c] = if g.is_finite() && *g > 0.0 {
                g.log10()
            } else {
                f64::NAN
            };
        }
    }
    Grid {
        rows: depth,
        cols,
        values,
    }
}

/// The CSV of two runs: one line per recorded step, both runs' numbers side by side,
/// each block's gradient norm in columns of its own.
pub fn runs_csv(a: &[Point], b: &[Point], depth: usize) -> String {
    let mut out = String::from("step");
    for run in ["a", "b"] {
        out.push_str(&format!(
            ",{run}_train_loss,{run}_loss,{run}_accuracy,{run}_attention_entropy,{run}_grad_wq"
        ));
        for l in 0..depth {
            out.push_str(&format!(",{run}_grad_layer{l}"));
        }
    }
    out.push('\n');
    for i in 0..a.len().max(b.len()) {
        let step = a.get(i).or(b.get(i)).map_or(0, |p| p.step);
        out.push_str(&step.to_string());
        for run in [a, b] {
            match run.get(i) {
                Some(p) => {
                    for v in [p.train_loss, p.loss, p.accuracy, p.entropy, p.grad_wq] {
                        out.push_str(&format!(",{v}"));
                    }
                    for l in 0..depth {
                        out.push_str(&format!(
                            ",{}",
                            p.layer_grads.get(l).copied().unwrap_or(f64::NAN)
                        ));
                    }
                }
                None => out.push_str(&",".repeat(5 + depth)),
            }
        }
        out.push('\n');
    }
    out
}

/// Held-out accuracy from which a run is said to have learned the task.
pub const LEARNED: f64 = 0.95;

/// Which runs learned: 0 neither, 1 A only, 2 B only, 3 both (`data-readout="learned"`).
pub fn learned_code(acc_a: f64, acc_b: f64) -> f64 {
    if !(acc_a.is_finite() && acc_b.is_finite()) {
        return f64::NAN;
    }
    f64::from(u8::from(acc_a >= LEARNED)) + 2.0 * f64::from(u8::from(acc_b >= LEARNED))
}

/// [`learned_code`] in words.
pub fn learned_text(code: f64) -> String {
    if !code.is_finite() {
        return "…".into();
    }
    match code as u8 {
        1 => "A only".into(),
        2 => "B only".into(),
        3 => "both".into(),
        _ => "neither".into(),
    }
}

/// Accuracy as a percentage, three significant digits ("…" before the first point).
pub fn percent(x: f64) -> String {
    if x.is_finite() {
        format!("{} %", format_number(x * 100.0, 3))
    } else {
        pending_or(x, 3)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(step: usize, grads: Vec<f64>) -> Point {
        Point {
            step,
            train_loss: 2.0,
            loss: 1.5,
            accuracy: 0.25,
            entropy: 0.7,
            grad_wq: 0.1,
            layer_grads: grads,
        }
    }

    #[test]
    fn the_top_block_is_the_top_row_of_the_heatmap() {
        let g = layer_grid(&[point(0, vec![1e-3, 10.0]), point(5, vec![0.0, 1.0])], 2);
        assert_eq!((g.rows, g.cols), (2, 2));
        assert_eq!(g.get(0, 0), Some(1.0), "the top block (layer 1) first");
        assert_eq!(g.get(1, 0), Some(-3.0));
        assert!(
            g.get(1, 1).is_some_and(f64::is_nan),
            "a zero norm is an empty cell"
        );
    }

    #[test]
    fn the_csv_has_one_line_per_point_and_a_column_per_block() {
        let csv = runs_csv(&[point(0, vec![1.0, 2.0])], &[point(0, vec![3.0, 4.0])], 2);
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].split(',').count(), lines[1].split(',').count());
        assert!(lines[0].ends_with("b_grad_layer1"));
        assert!(lines[1].ends_with(",3,4"));
    }
}
