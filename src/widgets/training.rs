//! The main thread's side of a training run ([`crate::math::train::wire`]): each run
//! trains in a Web Worker of its own, asked for one chunk of steps at a time, so the
//! curves grow as it trains and no task of the page's waits on it. Pause is not asking for
//! the next chunk; restart and a change of setting start the run again from step 0.
//! Finished runs are kept per configuration, so going back to a state redraws at once.
//!
//! When its figure first comes near the screen a run measures its step 0 (the untrained
//! model: loss, accuracy, gradients), so the figure shows numbers at once; it starts
//! training when the figure has stayed near the screen for [`DWELL`] (a reader who stops
//! at it, not one scrolling past) and then trains to its end even off screen (it costs the
//! page's main thread nothing, and a default run lasts seconds), so a reader who scrolls
//! back finds it done.

use std::cell::RefCell;
use std::collections::HashMap;

use leptos::prelude::*;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;

use crate::math::jobs::READY;
use crate::math::train::wire::{decode_answer, encode_config, encode_request};
use crate::math::train::{Point, RunConfig, RunStatus};

use super::worker::WORKER_URL;

/// How long a figure stays near the screen before its runs start.
pub const DWELL: std::time::Duration = std::time::Duration::from_millis(400);

/// The wall-clock time one chunk aims at: long enough that a round trip is a small part
/// of it, short enough that the curve grows smoothly and pause answers at once.
const CHUNK_SECONDS: f64 = 0.12;

/// Where a run is, as the figure says it (`data-train`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TrainState {
    /// Not training yet (its figure has not stayed near the screen); step 0 is measured
    /// once the figure has come near.
    Waiting,
    Running,
    Paused,
    Done,
    /// Stopped at this step: the loss or a weight overflowed.
    Diverged(usize),
    /// No worker could start here.
    Failed,
}

impl TrainState {
    /// `data-train`: running, paused or done (diverged and failed runs are done).
    pub fn attribute(self) -> &'static str {
        match self {
            Self::Waiting | Self::Running => "running",
            Self::Paused => "paused",
            Self::Done | Self::Diverged(_) | Self::Failed => "done",
        }
    }
}

/// A run as the figure reads it.
#[derive(Clone, Copy)]
pub struct TrainRun {
    pub points: RwSignal<Vec<Point>>,
    /// Updates made.
    pub step: RwSignal<usize>,
    pub state: RwSignal<TrainState>,
    /// Steps per second, measured over the chunks of this run.
    pub rate: RwSignal<f64>,
    /// The figure has come near the screen: step 0 is on its way, or here.
    pub primed: RwSignal<bool>,
}

impl TrainRun {
    /// Asked for, and no point arrived yet (what `aria-busy` says: a moment, not a run).
    pub fn measuring(&self) -> bool {
        self.primed.get() && self.points.with(Vec::is_empty)
    }
}

type Key = [u64; 17];

fn key_of(config: &RunConfig) -> Key {
    encode_config(config).map(f64::to_bits)
}

thread_local! {
    /// Finished runs, by configuration.
    static FINISHED: RefCell<HashMap<Key, (Vec<Point>, TrainState)>> = RefCell::new(HashMap::new());
}

struct Worker {
    worker: web_sys::Worker,
    ready: bool,
}

/// One run's worker, its chunk loop and the signals it fills.
struct Driver {
    worker: Option<Worker>,
    config: Option<RunConfig>,
    /// Requests sent for the current configuration; answers to older ones are dropped.
    generation: u64,
    in_flight: bool,
    asked_at: f64,
    chunk: usize,
    busy_seconds: f64,
}

fn now_seconds() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now() / 1000.0)
}

/// The run `config` describes, trained while `active` has once been true and `paused`
/// is false; `restart` going up starts it again. `None` shows nothing.
pub fn use_training_run(
    config: Memo<RunConfig>,
    active: RwSignal<bool>,
    paused: RwSignal<bool>,
    restart: RwSignal<u32>,
) -> TrainRun {
    let run = TrainRun {
        points: RwSignal::new(Vec::new()),
        step: RwSignal::new(0),
        state: RwSignal::new(TrainState::Waiting),
        rate: RwSignal::new(0.0),
        primed: RwSignal::new(false),
    };
    let driver = StoredValue::new_local(Driver {
        worker: None,
        config: None,
        generation: 0,
        in_flight: false,
        asked_at: 0.0,
        chunk: 2,
        busy_seconds: 0.0,
    });
    let started = RwSignal::new(false);
    let last_restart = StoredValue::new(0u32);
    // Primed (step 0 measured) when the figure comes near; started once it has stayed
    // near for DWELL.
    Effect::new(move |_| {
        if active.get() && !run.primed.get_untracked() {
            run.primed.set(true);
        }
        if active.get() && !started.get_untracked() {
            set_timeout(
                move || {
                    if active.get_untracked() {
                        started.set(true);
                    }
                },
                DWELL,
            );
        }
    });
    // A new configuration or a restart: from the cache, or from step 0.
    Effect::new(move |_| {
        let c = config.get();
        let restarted = restart.get();
        if !run.primed.get() {
            return;
        }
        // The restart button trains again; the cache is for going back to a state.
        let pressed = restarted != last_restart.get_value();
        last_restart.set_value(restarted);
        let cached = FINISHED.with_borrow(|f| f.get(&key_of(&c)).cloned());
        // An answer still in flight belongs to the run given up: it is dropped on arrival,
        // which then asks for this one.
        driver.update_value(|d| {
            d.config = Some(c);
            d.generation += 1;
            d.busy_seconds = 0.0;
            d.chunk = 2;
        });
        match cached {
            Some((points, state)) if !pressed => {
                let step = points.last().map_or(0, |p| p.step);
                run.points.set(points);
                run.step.set(step);
                run.state.set(state);
            }
            _ => {
                if pressed {
                    FINISHED.with_borrow_mut(|f| f.remove(&key_of(&c)));
                }
                run.points.set(Vec::new());
                run.step.set(0);
                run.rate.set(0.0);
                run.state.set(if !started.get_untracked() {
                    TrainState::Waiting
                } else if paused.get_untracked() {
                    TrainState::Paused
                } else {
                    TrainState::Running
                });
                ask_next(driver, run, paused);
            }
        }
    });
    // Training proper begins.
    Effect::new(move |_| {
        if started.get() && run.state.get_untracked() == TrainState::Waiting {
            // The rate counts training, not the worker's start and step 0.
            driver.update_value(|d| d.busy_seconds = 0.0);
            run.state.set(if paused.get_untracked() {
                TrainState::Paused
            } else {
                TrainState::Running
            });
            ask_next(driver, run, paused);
        }
    });
    // Pause and resume.
    Effect::new(move |_| {
        let p = paused.get();
        let state = run.state.get_untracked();
        match (p, state) {
            (true, TrainState::Running) => run.state.set(TrainState::Paused),
            (false, TrainState::Paused) => {
                run.state.set(TrainState::Running);
                ask_next(driver, run, paused);
            }
            _ => {}
        }
    });
    run
}

fn start_worker(driver: StoredValue<Driver, LocalStorage>, run: TrainRun, paused: RwSignal<bool>) {
    let Ok(worker) = web_sys::Worker::new(WORKER_URL) else {
        run.state.set(TrainState::Failed);
        return;
    };
    let on_message =
        Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |ev: web_sys::MessageEvent| {
            let answer = js_sys::Float64Array::new(&ev.data()).to_vec();
            if answer == READY {
                driver.update_value(|d| {
                    if let Some(w) = d.worker.as_mut() {
                        w.ready = true;
                    }
                });
                ask_next(driver, run, paused);
            } else {
                on_answer(driver, run, paused, &answer);
            }
        });
    let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(move |ev: web_sys::Event| {
        ev.prevent_default();
        run.state.set(TrainState::Failed);
    });
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    // Both live as long as the page (the worker is kept for the next run).
    on_message.forget();
    on_error.forget();
    driver.update_value(|d| {
        d.worker = Some(Worker {
            worker,
            ready: false,
        })
    });
}

/// Sends the next chunk of the current run (only step 0 while it waits to start), unless
/// one is in flight, the run is paused or over, or the worker is not ready yet (it asks
/// when it is).
fn ask_next(driver: StoredValue<Driver, LocalStorage>, run: TrainRun, paused: RwSignal<bool>) {
    let state = run.state.get_untracked();
    let first_only = state == TrainState::Waiting;
    if first_only && run.points.with_untracked(|p| !p.is_empty()) {
        return;
    }
    if !first_only && (paused.get_untracked() || state != TrainState::Running) {
        return;
    }
    if driver.with_value(|d| d.worker.is_none()) {
        start_worker(driver, run, paused);
    }
    let first_point = run.points.with_untracked(Vec::len);
    let step = run.step.get_untracked();
    driver.update_value(|d| {
        let (Some(config), Some(w)) = (d.config, d.worker.as_ref()) else {
            return;
        };
        if !w.ready || d.in_flight {
            return;
        }
        let until = if first_only {
            0
        } else {
            (step + d.chunk).min(config.steps)
        };
        let request = encode_request(d.generation, &config, first_point, until);
        let array = js_sys::Float64Array::from(&request[..]);
        if w.worker.post_message(&array).is_ok() {
            d.in_flight = true;
            d.asked_at = now_seconds();
        }
    });
}

fn on_answer(
    driver: StoredValue<Driver, LocalStorage>,
    run: TrainRun,
    paused: RwSignal<bool>,
    answer: &[f64],
) {
    let generation = answer.first().copied().unwrap_or(-1.0) as u64;
    let current = driver.with_value(|d| d.generation);
    // One request is in flight at a time, so this answers it.
    driver.update_value(|d| d.in_flight = false);
    if generation != current {
        // An answer about a run given up: ask for the current one.
        ask_next(driver, run, paused);
        return;
    }
    let Some(chunk) = answer.get(2..).and_then(decode_answer) else {
        run.state.set(TrainState::Failed);
        return;
    };
    let before = run.step.get_untracked();
    let elapsed = now_seconds() - driver.with_value(|d| d.asked_at);
    let made = chunk.step.saturating_sub(before);
    driver.update_value(|d| {
        d.busy_seconds += elapsed.max(0.0);
        // The next chunk aims at CHUNK_SECONDS at the rate just measured.
        if made > 0 && elapsed > 0.0 {
            let per_step = elapsed / made as f64;
            d.chunk = ((CHUNK_SECONDS / per_step) as usize).clamp(1, 200);
        }
    });
    if !chunk.points.is_empty() {
        run.points.update(|p| p.extend(chunk.points));
    }
    run.step.set(chunk.step);
    let busy = driver.with_value(|d| d.busy_seconds);
    if busy > 0.0 && chunk.step > 0 {
        run.rate.set(chunk.step as f64 / busy);
    }
    let state = match chunk.status {
        RunStatus::Running => None,
        RunStatus::Done => Some(TrainState::Done),
        RunStatus::Diverged { step } => Some(TrainState::Diverged(step)),
    };
    match state {
        Some(s) => {
            run.state.set(s);
            if let Some(config) = driver.with_value(|d| d.config) {
                let points = run.points.get_untracked();
                FINISHED.with_borrow_mut(|f| f.insert(key_of(&config), (points, s)));
            }
        }
        None => ask_next(driver, run, paused),
    }
}
