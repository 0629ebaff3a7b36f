//! Figure `train-scale`: the same small transformer trained twice, live, with and
//! without ÷√dₖ on its attention logits: loss, the attention's row entropy (saturation)
//! and ‖∂L/∂W_Q‖ through training.

use leptos::prelude::*;

use crate::state::registry::FigureId;

use super::steps::TRAIN_ASKS;
use crate::math::train::presets::{SCALE_RUN, WEIGHT_DECAY};
use crate::math::train::{Optimizer, Point, RunConfig, TaskShape};
use crate::passes::lazy::LazySteps;
use crate::state::choices::{OPTIMIZERS, TASKS};
use crate::state::{Params, UrlState};
use crate::widgets::format::{format_number, pending_three_digits, whole};
use crate::widgets::training::{use_training_run, TrainRun, TrainState};
use crate::widgets::training_view::{
    curves, latest, learned_text, log_axis, percent, runs_csv, RunPair, TrainBar,
};
use crate::widgets::{Axis, Chart, Figure, Readout, ReadoutRow, Scale, SeedField, Select, Slider};

/// The run from the address, ÷√dₖ or not.
pub fn scale_run(p: &Params, scaled: bool) -> RunConfig {
    let lr = p.float("tslr");
    let d_k = p.int("tsdk").max(1) as usize;
    RunConfig {
        task: TaskShape {
            task: p.chosen("tstask", &TASKS),
            ..SCALE_RUN.task
        },
        d_model: d_k,
        scaled,
        optimizer: if p.chosen("tsopt", &OPTIMIZERS) {
            Optimizer::Sgd { lr }
        } else {
            Optimizer::AdamW {
                lr,
                weight_decay: WEIGHT_DECAY,
            }
        },
        steps: p.int("tssteps").max(1) as usize,
        seed: p.int("tsseed").max(0) as u64,
        ..SCALE_RUN
    }
}

fn run_sentence(name: &str, run: TrainRun) -> String {
    let state = run.state.get();
    run.points.with(|points| {
        let (Some(first), Some(p)) = (points.first(), points.last()) else {
            return format!("{name}: its untrained state is being measured…");
        };
        let diverged = match state {
            TrainState::Diverged(s) => format!(" It diverged at step {s} and stopped there."),
            _ => String::new(),
        };
        format!(
            "{name}: {} held-out accuracy, loss {} nats; attention entropy {} nats at step 0, {} now; ‖∂L/∂W_Q‖ {} at step 0, {} now.{diverged}",
            percent(p.accuracy),
            format_number(p.loss, 3),
            format_number(first.entropy, 3),
            format_number(p.entropy, 3),
            format_number(first.grad_wq, 3),
            format_number(p.grad_wq, 3),
        )
    })
}

/// The figure alone, as the embed view shows it (the registry's loaders call this).
pub fn alone(show_controls: bool) -> AnyView {
    view! { <TrainScaleFigure state=crate::state::use_url_state() show_controls=show_controls /> }
        .into_any()
}

/// Figure `train-scale`.
#[component]
pub fn TrainScaleFigure(
    state: UrlState,
    #[prop(default = true)] show_controls: bool,
) -> impl IntoView {
    let on_screen = RwSignal::new(false);
    let (paused, restart) = (RwSignal::new(false), RwSignal::new(0u32));
    let config_a = Memo::new(move |_| state.tracked(|p| scale_run(p, true)));
    let config_b = Memo::new(move |_| state.tracked(|p| scale_run(p, false)));
    let a = use_training_run(config_a, on_screen, paused, restart);
    let b = use_training_run(config_b, on_screen, paused, restart);
    let steps = Signal::derive(move || config_a.with(|c| c.steps));
    let task = Signal::derive(move || config_a.with(|c| c.task));
    let chart = move |read: fn(&Point) -> f64,
                      y: fn([&[Point]; 2]) -> Axis,
                      level: fn(&TaskShape) -> Option<(String, f64)>| {
        Memo::new(move |_| {
            a.points.with(|pa| {
                b.points.with(|pb| {
                    curves(
                        [("A: ÷√dₖ", pa), ("B: unscaled", pb)],
                        read,
                        steps.get(),
                        y([pa, pb]),
                        level(&task.get()),
                    )
                })
            })
        })
    };
    let loss_spec = chart(
        |p| p.loss,
        |s| log_axis("held-out loss, nats", s, |p| p.loss),
        |t| {
            Some((
                format!(
                    "no attention: ln {} = {}",
                    t.symbols,
                    format_number(t.chance_loss(), 3)
                ),
                t.chance_loss(),
            ))
        },
    );
    let entropy_spec = chart(
        |p| p.entropy,
        |s| {
            let top = s
                .iter()
                .flat_map(|r| r.iter().map(|p| p.entropy))
                .filter(|v| v.is_finite())
                .fold(0.0_f64, f64::max);
            Axis {
                label: "attention row entropy, nats".into(),
                min: 0.0,
                max: (top * 1.1).max(0.1),
                log: false,
            }
        },
        |_| None,
    );
    let grad_spec = chart(
        |p| p.grad_wq,
        |s| log_axis("‖∂L/∂W_Q‖", s, |p| p.grad_wq),
        |_| None,
    );
    let runs = RunPair::new(a, b);
    let (acc_a, acc_b, learned, step, rate) =
        (runs.acc_a, runs.acc_b, runs.learned, runs.step, runs.rate);
    let caption = Signal::derive(move || {
        let c = config_a.get();
        format!(
            "One head of d_k = {} in {} pre-norm blocks, trained twice from the same weights on the same batches ({} steps, seed {}): A divides the attention logits by √d_k = {}, B does not. {} {} Without attention a model could at best guess: {} accuracy.",
            c.d_model,
            c.depth,
            c.steps,
            c.seed,
            format_number((c.d_model as f64).sqrt(), 3),
            run_sentence("A (÷√dₖ)", a),
            run_sentence("B (unscaled)", b),
            percent(c.task.chance_accuracy()),
        )
    });
    let summary = Signal::derive(move || {
        format!(
            "Training with and without ÷√dₖ: A at {} accuracy, B at {} after step {}.",
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
            1 => "Only the scaled run learned the task.".into(),
            2 => "Only the unscaled run learned the task.".into(),
            3 => "Both runs learned the task.".into(),
            _ => "Neither run learned the task in these steps.".into(),
        }
    });
    let csv = Callback::new(move |_| {
        a.points.with_untracked(|pa| {
            b.points
                .with_untracked(|pb| runs_csv(pa, pb, SCALE_RUN.depth))
        })
    });
    let controls = move || {
        let (dk, set_dk) = state.int_control("tsdk");
        view! {
            <Slider key="tsdk" label="d_k" instance="-train" value=Signal::derive(move || dk.get() as f64)
                on_change=Callback::new(move |v: f64| set_dk.run(v.round() as i64))
                scale={const { Scale::pow2_of("tsdk") }} format=whole />
        }
    };
    let more = move || {
        let (opt, set_opt) = state.choice_control("tsopt");
        let (lr, set_lr) = state.float_control("tslr");
        let (n, set_n) = state.int_control("tssteps");
        let (task, set_task) = state.choice_control("tstask");
        let (seed, set_seed) = state.int_control("tsseed");
        view! {
            <Select key="tsopt" label="Optimiser" instance="-train" options=&OPTIMIZERS value=opt on_change=set_opt />
            <Slider key="tslr" label="Learning rate η" instance="-train" value=lr on_change=set_lr
                scale={const { Scale::log_of("tslr", 4, 2) }} format=|v| format_number(v, 2) />
            <Slider key="tssteps" label="Steps" instance="-train" value=Signal::derive(move || n.get() as f64)
                on_change=Callback::new(move |v: f64| set_n.run(v.round() as i64))
                scale={const { Scale::linear_of("tssteps", 20.0) }} format=whole />
            <Select key="tstask" label="Task" instance="-train" options=&TASKS value=task on_change=set_task />
            <SeedField key="tsseed" label="Seed" instance="-train" value=seed on_change=set_seed />
        }
    };
    let three = pending_three_digits;
    view! {
        <Figure id=FigureId::TrainScale on_screen=on_screen caption=caption summary=summary csv=csv verdict=verdict
            train=runs.attribute(paused)
            controls=controls more=more more_keys=&["tsopt", "tslr", "tssteps", "tstask", "tsseed"] show_controls=show_controls>
            <TrainBar runs=runs steps=steps paused=paused restart=restart />
            <Chart name="train-scale-loss" spec=loss_spec summary=summary aspect=0.4 />
            <Chart name="train-scale-entropy" spec=entropy_spec summary=summary aspect=0.32 />
            <Chart name="train-scale-grad" spec=grad_spec summary=summary aspect=0.32 />
            <p class="control-note">"Each run trains in a Web Worker of its own: its untrained state is measured when the figure comes near the screen, training starts once the figure stays there, and goes on to the end even when scrolled away."</p>
            <ReadoutRow busy=move || runs.measuring()>
                <Readout name="step" label="Step" value=step format=whole />
                <Readout name="loss-a" label="A: loss" value=latest(a, |p| p.loss) format=three />
                <Readout name="loss-b" label="B: loss" value=latest(b, |p| p.loss) format=three />
                <Readout name="acc-a" label="A: accuracy" value=acc_a format=percent />
                <Readout name="acc-b" label="B: accuracy" value=acc_b format=percent />
                <Readout name="entropy-a" label="A: entropy" value=latest(a, |p| p.entropy) format=three />
                <Readout name="entropy-b" label="B: entropy" value=latest(b, |p| p.entropy) format=three />
                <Readout name="grad-wq-a" label="A: ‖∂L/∂W_Q‖" value=latest(a, |p| p.grad_wq) format=three />
                <Readout name="grad-wq-b" label="B: ‖∂L/∂W_Q‖" value=latest(b, |p| p.grad_wq) format=three />
                <Readout name="learned" label="Learned" value=learned format=learned_text />
                <Readout name="steps-per-second" label="Steps/s" value=rate format=three />
            </ReadoutRow>
            {show_controls.then(|| view! { <LazySteps id=FigureId::TrainScale asks=&TRAIN_ASKS /> })}
        </Figure>
    }
}
