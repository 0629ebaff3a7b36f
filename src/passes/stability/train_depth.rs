//! Figure `train-depth`: two stacks of Pass 4's blocks trained side by side, live, on the
//! same data from the same seed, each with its own wiring.

use leptos::prelude::*;

use crate::state::registry::FigureId;

use super::steps::TRAIN_ASKS;
use crate::math::train::presets::{warmup_for, DEPTH_RUN, WEIGHT_DECAY};
use crate::math::train::{Optimizer, Point, RunConfig, TaskShape};
use crate::passes::lazy::LazySteps;
use crate::state::choices::{OPTIMIZERS, TASKS, WIRINGS};
use crate::state::{Params, UrlState};
use crate::widgets::format::{format_number, pending_three_digits, whole};
use crate::widgets::training::{use_training_run, TrainRun, TrainState};
use crate::widgets::training_view::{
    bottom_over_top, curves, latest, layer_grid, learned_text, log_axis, percent, runs_csv,
    RunPair, TrainBar, LAYER_SCALE, LEARNED,
};
use crate::widgets::{
    Axis, Chart, Figure, Heatmap, Readout, ReadoutRow, Scale, SeedField, Select, Slider, Toggle,
};

/// Run A's or B's configuration from the address.
pub fn depth_run(p: &Params, wiring: &str, warm: &str) -> RunConfig {
    let steps = p.int("tsteps").max(1) as usize;
    let lr = p.float("tlr");
    RunConfig {
        task: TaskShape {
            task: p.chosen("ttask", &TASKS),
            ..DEPTH_RUN.task
        },
        depth: p.int("tdepth").max(1) as usize,
        wiring: p.chosen(wiring, &WIRINGS),
        warmup: if p.flag(warm) { warmup_for(steps) } else { 0 },
        optimizer: if p.chosen("topt", &OPTIMIZERS) {
            Optimizer::Sgd { lr }
        } else {
            Optimizer::AdamW {
                lr,
                weight_decay: WEIGHT_DECAY,
            }
        },
        steps,
        seed: p.int("tseed").max(0) as u64,
        ..DEPTH_RUN
    }
}

/// A run's name: its wiring, and its warm-up when it has one.
pub fn run_label(c: &RunConfig) -> String {
    let warm = if c.warmup > 0 {
        format!(", warm-up {}", c.warmup)
    } else {
        String::new()
    };
    format!("{}{warm}", c.wiring.label())
}

/// What happened to one run, in a clause.
fn run_sentence(name: &str, c: &RunConfig, run: TrainRun) -> String {
    let state = run.state.get();
    run.points.with(|points| {
        let Some(p) = points.last() else {
            return format!("{name} ({}): its untrained state is being measured…", run_label(c));
        };
        let top = p.layer_grads.last().copied().unwrap_or(f64::NAN);
        let bottom = p.layer_grads.first().copied().unwrap_or(f64::NAN);
        let ratio = if top > 0.0 { bottom / top } else { f64::NAN };
        let diverged = match state {
            TrainState::Diverged(s) => format!(" It diverged at step {s} (a loss or weight overflowed) and stopped there."),
            _ => String::new(),
        };
        format!(
            "{name} ({}): {} held-out accuracy, loss {} nats{}; its bottom block's gradient is {} of its top block's.{diverged}",
            run_label(c),
            percent(p.accuracy),
            format_number(p.loss, 3),
            if p.accuracy >= LEARNED { ", learned" } else { "" },
            format_number(ratio, 2),
        )
    })
}

/// The figure alone, as the embed view shows it (the registry's loaders call this).
pub fn alone(show_controls: bool) -> AnyView {
    view! { <TrainDepthFigure state=crate::state::use_url_state() show_controls=show_controls /> }
        .into_any()
}

/// Figure `train-depth`.
#[component]
pub fn TrainDepthFigure(
    state: UrlState,
    #[prop(default = true)] show_controls: bool,
) -> impl IntoView {
    let on_screen = RwSignal::new(false);
    let (paused, restart) = (RwSignal::new(false), RwSignal::new(0u32));
    let config_a = Memo::new(move |_| state.tracked(|p| depth_run(p, "twa", "twarma")));
    let config_b = Memo::new(move |_| state.tracked(|p| depth_run(p, "twb", "twarmb")));
    let a = use_training_run(config_a, on_screen, paused, restart);
    let b = use_training_run(config_b, on_screen, paused, restart);
    let steps = Signal::derive(move || config_a.with(|c| c.steps));
    let depth = Signal::derive(move || config_a.with(|c| c.depth));
    let (name_a, name_b) = (
        Signal::derive(move || format!("A: {}", config_a.with(run_label))),
        Signal::derive(move || format!("B: {}", config_b.with(run_label))),
    );
    let chance = Signal::derive(move || config_a.with(|c| c.task));
    let chart = move |read: fn(&Point) -> f64,
                      y: fn([&[Point]; 2]) -> Axis,
                      level: fn(&TaskShape) -> (String, f64)| {
        Memo::new(move |_| {
            let (la, lb) = (name_a.get(), name_b.get());
            a.points.with(|pa| {
                b.points.with(|pb| {
                    curves(
                        [(&la, pa), (&lb, pb)],
                        read,
                        steps.get(),
                        y([pa, pb]),
                        Some(level(&chance.get())),
                    )
                })
            })
        })
    };
    let loss_spec = chart(
        |p| p.loss,
        |s| log_axis("held-out loss, nats", s, |p| p.loss),
        |t| {
            (
                format!(
                    "no attention: ln {} = {}",
                    t.symbols,
                    format_number(t.chance_loss(), 3)
                ),
                t.chance_loss(),
            )
        },
    );
    let acc_spec = chart(
        |p| p.accuracy,
        |_| Axis {
            label: "held-out accuracy".into(),
            min: 0.0,
            max: 1.0,
            log: false,
        },
        |t| {
            (
                format!("no attention: {}", percent(t.chance_accuracy())),
                t.chance_accuracy(),
            )
        },
    );
    let runs = RunPair::new(a, b);
    let (acc_a, acc_b, learned, step, rate) =
        (runs.acc_a, runs.acc_b, runs.learned, runs.step, runs.rate);
    let caption = Signal::derive(move || {
        let (ca, cb) = (config_a.get(), config_b.get());
        let t = ca.task;
        format!(
            "Two stacks of {} blocks (d_model {}, {} heads) trained from the same weights on the same batches, {} steps of {} (seed {}). {} {} Without attention a model could at best guess: {} accuracy, loss ln {} = {} nats.",
            ca.depth,
            ca.d_model,
            ca.heads,
            ca.steps,
            match ca.optimizer { Optimizer::AdamW { lr, .. } => format!("AdamW at η = {}", format_number(lr, 3)), Optimizer::Sgd { lr } => format!("SGD at η = {}", format_number(lr, 3)) },
            ca.seed,
            run_sentence("A", &ca, a),
            run_sentence("B", &cb, b),
            percent(t.chance_accuracy()),
            t.symbols,
            format_number(t.chance_loss(), 3),
        )
    });
    let summary = Signal::derive(move || {
        format!(
            "Training curves: A at {} accuracy, B at {} after step {}.",
            percent(acc_a.get()),
            percent(acc_b.get()),
            step.get()
        )
    });
    let verdict = Signal::derive(move || {
        if runs.training.get() {
            return String::new();
        }
        match learned.get() as u8 {
            1 => "Only A learned the task.".into(),
            2 => "Only B learned the task.".into(),
            3 => "Both stacks learned the task.".into(),
            _ => "Neither stack learned the task in these steps.".into(),
        }
    });
    let csv = Callback::new(move |_| {
        a.points.with_untracked(|pa| {
            b.points
                .with_untracked(|pb| runs_csv(pa, pb, depth.get_untracked()))
        })
    });
    let grid =
        move |run: TrainRun| Memo::new(move |_| run.points.with(|p| layer_grid(p, depth.get())));
    let (grid_a, grid_b) = (grid(a), grid(b));
    let describe = move |run: TrainRun| {
        Callback::new(move |(row, col): (usize, usize)| {
            let d = depth.get_untracked();
            run.points.with_untracked(|p| match p.get(col) {
                Some(point) => format!(
                    "Block {} at step {}: ‖∂L/∂θ‖ = {}",
                    d.saturating_sub(row + 1),
                    point.step,
                    format_number(
                        point
                            .layer_grads
                            .get(d.saturating_sub(row + 1))
                            .copied()
                            .unwrap_or(f64::NAN),
                        3
                    )
                ),
                None => "Not trained yet.".into(),
            })
        })
    };
    let controls = move || {
        let (_, set_depth) = state.int_control("tdepth");
        let (wa, set_wa) = state.choice_control("twa");
        let (wb, set_wb) = state.choice_control("twb");
        view! {
            <Slider key="tdepth" label="Depth L" instance="-train" value=Signal::derive(move || depth.get() as f64)
                on_change=Callback::new(move |v: f64| set_depth.run(v.round() as i64))
                scale={const { Scale::linear_of("tdepth", 1.0) }} format=whole />
            <Select key="twa" label="Run A" instance="-train" options=&WIRINGS value=wa on_change=set_wa />
            <Select key="twb" label="Run B" instance="-train" options=&WIRINGS value=wb on_change=set_wb />
        }
    };
    let more = move || {
        let (warm_a, set_warm_a) = state.flag_control("twarma");
        let (warm_b, set_warm_b) = state.flag_control("twarmb");
        let (opt, set_opt) = state.choice_control("topt");
        let (lr, set_lr) = state.float_control("tlr");
        let (n, set_n) = state.int_control("tsteps");
        let (task, set_task) = state.choice_control("ttask");
        let (seed, set_seed) = state.int_control("tseed");
        view! {
            <Toggle key="twarma" label="Warm-up A (first quarter)" instance="-train" value=warm_a on_change=set_warm_a />
            <Toggle key="twarmb" label="Warm-up B (first quarter)" instance="-train" value=warm_b on_change=set_warm_b />
            <Select key="topt" label="Optimiser" instance="-train" options=&OPTIMIZERS value=opt on_change=set_opt />
            <Slider key="tlr" label="Learning rate η" instance="-train" value=lr on_change=set_lr
                scale={const { Scale::log_of("tlr", 4, 2) }} format=|v| format_number(v, 2) />
            <Slider key="tsteps" label="Steps" instance="-train" value=Signal::derive(move || n.get() as f64)
                on_change=Callback::new(move |v: f64| set_n.run(v.round() as i64))
                scale={const { Scale::linear_of("tsteps", 20.0) }} format=whole />
            <Select key="ttask" label="Task" instance="-train" options=&TASKS value=task on_change=set_task />
            <SeedField key="tseed" label="Seed" instance="-train" value=seed on_change=set_seed />
        }
    };
    view! {
        <Figure id=FigureId::TrainDepth on_screen=on_screen caption=caption summary=summary csv=csv verdict=verdict
            train=runs.attribute(paused)
            controls=controls more=more more_keys=&["twarma", "twarmb", "topt", "tlr", "tsteps", "ttask", "tseed"] show_controls=show_controls>
            <TrainBar runs=runs steps=steps paused=paused restart=restart />
            <Chart name="train-depth-loss" spec=loss_spec summary=summary aspect=0.42 />
            <Chart name="train-depth-accuracy" spec=acc_spec summary=summary aspect=0.32 />
            <p class="panel-label">{move || format!("{}: ‖∂L/∂θ‖ of each block (top block on top) through training", name_a.get())}</p>
            <div class="strip">
                <Heatmap name="train-depth-grads-a" grid=grid_a scale=LAYER_SCALE describe=describe(a) summary=Signal::derive(move || format!("Run A's gradient norm by block and step, {} steps.", a.step.get())) max_width=1200.0 height=72.0 />
            </div>
            <p class="panel-label">{move || format!("{}: ‖∂L/∂θ‖ of each block through training", name_b.get())}</p>
            <div class="strip">
                <Heatmap name="train-depth-grads-b" grid=grid_b scale=LAYER_SCALE describe=describe(b) summary=Signal::derive(move || format!("Run B's gradient norm by block and step, {} steps.", b.step.get())) max_width=1200.0 height=72.0 />
            </div>
            <p class="control-note">"Colour: log₁₀ ‖∂L/∂θ‖ from 10⁻⁸ (dark) to 10 (bright). Each run trains in a Web Worker of its own: its untrained state is measured when the figure comes near the screen, training starts once the figure stays there, and goes on to the end even when scrolled away."</p>
            <ReadoutRow busy=move || runs.measuring()>
                <Readout name="step" label="Step" value=step format=whole />
                <Readout name="loss-a" label="A: loss" value=latest(a, |p| p.loss) format=pending_three_digits />
                <Readout name="loss-b" label="B: loss" value=latest(b, |p| p.loss) format=pending_three_digits />
                <Readout name="acc-a" label="A: accuracy" value=acc_a format=percent />
                <Readout name="acc-b" label="B: accuracy" value=acc_b format=percent />
                <Readout name="grad-ratio-a" label="A: bottom / top ‖∂L/∂θ‖" value=bottom_over_top(a) format=pending_three_digits />
                <Readout name="grad-ratio-b" label="B: bottom / top ‖∂L/∂θ‖" value=bottom_over_top(b) format=pending_three_digits />
                <Readout name="learned" label="Learned" value=learned format=learned_text />
                <Readout name="steps-per-second" label="Steps/s" value=rate format=pending_three_digits />
            </ReadoutRow>
            {show_controls.then(|| view! { <LazySteps id=FigureId::TrainDepth asks=&TRAIN_ASKS /> })}
        </Figure>
    }
}
