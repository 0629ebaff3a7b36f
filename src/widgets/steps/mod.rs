//! Guided steps ("Try it"): a short sequence of states of one figure, each a sentence and
//! the values of some of its keys, that leads the reader to the figure's point; before a
//! key step, a question asks the reader to predict what will happen. Steps are data, one
//! table per pass; this module runs any table.
//!
//! "Next" moves the figure's controls to the step's state in a short animation (frames
//! computed live; with reduced motion it jumps), and the address follows (`step=`).
//! What the step then says is filled in from the figure's readouts (`{r:name}` and the
//! like), so it can never contradict what the figure shows; a prediction's right answer
//! is decided the same way, from the readouts before and after the step ran.
//!
//! Contract (for tests and instructors): the strip is `[data-steps]`, each step
//! `[data-step="k"]` (k from 1), its buttons `[data-action="step-next"]` and
//! `[data-action="step-back"]`; the figure root carries `data-step-at="k"` once step k
//! is reached; a prediction is `[data-predict]` with options `[data-option="<id>"]`, a
//! commit button `[data-action="predict-commit"]`, and after the reveal
//! `data-revealed="<id of the computed answer>"`.
//!
//! The module's parts, one job each: [`table`] (the step table's types and how an answer
//! is decided), [`sentences`] (templates filled in from readouts), [`animation`] (states
//! and the move between them), [`focus`] (placing the keyboard focus in the strip),
//! [`memory`] (answers remembered in the browser); this file is the strip itself. The
//! strip reads its figure through the figure's [`FigureReadings`] (signals), not through
//! the page.

pub mod animation;
pub mod focus;
pub mod memory;
pub mod sentences;
pub mod table;

pub use animation::{between, state_at};
pub use sentences::{change_words, fill};
pub use table::{readout_number, Decide, Measure, Prediction, Readouts, Step};

use leptos::html;
use leptos::prelude::*;

use super::readings::FigureReadings;
use crate::state::registry::FigureId;
use crate::state::{use_url_state, Value};
use animation::{keys_of, move_to};
use focus::{focus_in_strip, focus_is_ours, restore_focus};
use memory::{remember, remembered};

/// Where the strip is.
#[derive(Clone, Debug, PartialEq)]
enum Phase {
    /// At step k (0: not started), its sentence said.
    At(usize),
    /// Asking the prediction before step k.
    Asking(usize),
    /// Moving to step k (with the reader's prediction, if one was made).
    Moving(usize, Option<&'static str>),
}

/// The "Try it" strip of `figure` running `steps`, reading the figure through
/// `readings`.
#[component]
pub fn Steps(figure: FigureId, steps: &'static [Step], readings: FigureReadings) -> impl IntoView {
    let state = use_url_state();
    let id = figure.as_str();
    let total = steps.len();
    let phase = RwSignal::new(Phase::At(0));
    // The values of the steps' keys before the first step ran (what Back returns to).
    let base = StoredValue::new(Vec::<(&'static str, Value)>::new());
    let was = StoredValue::new(Readouts::<(String, f64)>::new());
    let said = RwSignal::new(String::new());
    let revealed = RwSignal::new(None::<(Option<&'static str>, &'static str, String)>);
    let chosen = RwSignal::new(None::<&'static str>);
    let root = NodeRef::<html::Div>::new();
    let keys = StoredValue::new(keys_of(steps));
    let snapshot_base = move || {
        let values = state.params.with_untracked(|p| {
            keys.with_value(|keys| {
                keys.iter()
                    .filter_map(|k| p.get(k).map(|v| (*k, v.clone())))
                    .collect::<Vec<_>>()
            })
        });
        base.set_value(values);
    };
    // Says step k's sentence once the figure has caught up with the state (Pass 3 and 4
    // compute off the input), filled in from its readouts.
    let say_when_settled = move |k: usize, reader: Option<&'static str>, refocus: bool| {
        fn poll(readings: FigureReadings, tries: u32, f: std::rc::Rc<dyn Fn()>) {
            if readings.settled() || tries == 0 {
                f();
            } else {
                set_timeout(
                    move || poll(readings, tries - 1, f),
                    std::time::Duration::from_millis(50),
                );
            }
        }
        let f = std::rc::Rc::new(move || {
            let now = readings.readouts();
            let verdict = readings.verdict();
            let step = &steps[k - 1];
            let text = was.with_value(|was| fill(step.see, &now, was, &verdict));
            if let Some(p) = &step.predict {
                let values = |m: &Readouts<(String, f64)>| {
                    m.iter()
                        .map(|(k, (_, v))| (k.clone(), *v))
                        .collect::<Readouts<f64>>()
                };
                let answer = was.with_value(|was| p.decide.answer(&values(was), &values(&now)));
                let why = was.with_value(|was| fill(p.why, &now, was, &verdict));
                revealed.set(Some((reader, answer, why)));
                if let Some(r) = reader {
                    remember(&format!("{id}/{k}"), r);
                }
            }
            said.set(text);
            phase.set(Phase::At(k));
            readings.step_at.set(k);
            if refocus {
                restore_focus(id);
            }
        });
        // One frame for the last change to reach the figure, then wait for it to settle.
        // Up to 30 s: a training figure settles when its runs are done.
        request_animation_frame(move || poll(readings, 600, f));
    };
    let run_to = move |k: usize, reader: Option<&'static str>| {
        if base.with_value(Vec::is_empty) {
            snapshot_base();
        }
        was.set_value(readings.readouts());
        revealed.set(None);
        phase.set(Phase::Moving(k, reader));
        let target = base.with_value(|b| state_at(b, steps, k));
        move_to(state, target, move || {
            // The address names the step once its state is reached, so that an address
            // with `step=k` always holds the step's values.
            state.step.set((k > 0).then_some((figure, k as u32)));
            if k == 0 {
                said.set(String::new());
                phase.set(Phase::At(0));
                readings.step_at.set(0);
                restore_focus(id);
            } else {
                say_when_settled(k, reader, true);
            }
        });
    };
    let next = move || {
        let Phase::At(k) = phase.get_untracked() else {
            return;
        };
        if k >= total {
            return;
        }
        let step = &steps[k];
        let asked_before = remembered(&format!("{id}/{}", k + 1));
        match (&step.predict, asked_before) {
            (Some(_), None) => {
                chosen.set(None);
                phase.set(Phase::Asking(k + 1));
                // The question takes the focus (it is what Next led to): its first option.
                request_animation_frame(move || {
                    if focus_is_ours(id) {
                        focus_in_strip(id, &["[data-option]"]);
                    }
                });
            }
            (_, remembered) => {
                let reader = remembered.and_then(|r| {
                    step.predict
                        .as_ref()
                        .and_then(|p| p.options.iter().find(|(o, _)| *o == r).map(|(o, _)| *o))
                });
                run_to(k + 1, reader)
            }
        }
    };
    let back = move || match phase.get_untracked() {
        // A question not answered yet: put it away.
        Phase::Asking(k) => phase.set(Phase::At(k - 1)),
        Phase::At(k) if k > 0 => run_to(k - 1, None),
        _ => {}
    };
    // Opened at a step (`step=`): its state at once, no question asked.
    let opened_at = state
        .step
        .get_untracked()
        .filter(|(f, _)| *f == figure)
        .map(|(_, k)| k as usize);
    if let Some(k) = opened_at.filter(|k| (1..=total).contains(k)) {
        request_animation_frame(move || {
            snapshot_base();
            // The base is the state before any step: the link's values stand for it.
            was.set_value(readings.readouts());
            let target = base.with_value(|b| state_at(b, steps, k));
            state.set_many(target);
            say_when_settled(k, None, false);
        });
    }
    let at = move || match phase.get() {
        Phase::At(k) => k,
        Phase::Asking(k) | Phase::Moving(k, _) => k.saturating_sub(1),
    };
    let current = move || match phase.get() {
        Phase::At(k) => k,
        Phase::Asking(k) | Phase::Moving(k, _) => k,
    };
    let items = steps
        .iter()
        .enumerate()
        .map(|(i, step)| {
            let k = i + 1;
            view! {
                <li data-step=k
                    class=move || match (current() == k, at() >= k) {
                        (true, true) => "step-current step-done",
                        (true, false) => "step-current",
                        (false, true) => "step-done",
                        (false, false) => "",
                    }
                    aria-current=move || (current() == k).then_some("step")>
                    <span class="step-ask">{step.ask}</span>
                </li>
            }
        })
        .collect_view();
    let question = move || {
        let Phase::Asking(k) = phase.get() else {
            return None;
        };
        let p = steps[k - 1].predict.as_ref()?;
        let name = format!("predict-{id}-{k}");
        let options = p
            .options
            .iter()
            .map(|(option, label)| {
                let name = name.clone();
                view! {
                    <label class="predict-option">
                        <input type="radio" name=name data-option=*option
                            prop:checked=move || chosen.get() == Some(*option)
                            on:change=move |_| chosen.set(Some(*option)) />
                        {*label}
                    </label>
                }
            })
            .collect_view();
        Some(view! {
            <fieldset class="predict" data-predict="">
                <legend>"Predict first: " {p.question}</legend>
                {options}
                <div class="predict-actions">
                    <button type="button" data-action="predict-commit" disabled=move || chosen.get().is_none()
                        on:click=move |_| { if let Some(c) = chosen.get_untracked() { run_to(k, Some(c)); } }>
                        "Commit and run the step"
                    </button>
                    <button type="button" class="button-quiet" data-action="predict-skip" on:click=move |_| run_to(k, None)>
                        "Just show me"
                    </button>
                </div>
            </fieldset>
        })
    };
    let reveal = move || {
        let (reader, answer, why) = revealed.get()?;
        let Phase::At(k) = phase.get() else {
            return None;
        };
        let p = steps.get(k.checked_sub(1)?)?.predict.as_ref()?;
        let label = |o: &str| {
            p.options
                .iter()
                .find(|(id, _)| *id == o)
                .map_or("", |(_, l)| *l)
        };
        let verdict = match reader {
            Some(r) if r == answer => format!("You predicted “{}”, and so it is.", label(r)),
            Some(r) => format!(
                "You predicted “{}”; the computation says “{}”.",
                label(r),
                label(answer)
            ),
            None => format!("The computation says “{}”.", label(answer)),
        };
        Some(view! {
            <div class="predict-reveal" data-predict="" data-revealed=answer data-reader=reader.unwrap_or("")>
                <p><strong>{verdict}</strong>" "{why}</p>
            </div>
        })
    };
    let moving = move || matches!(phase.get(), Phase::Moving(..));
    let back_disabled = move || current() == 0 || moving();
    let next_disabled = move || at() >= total || !matches!(phase.get(), Phase::At(_));
    view! {
        <div class="steps" data-steps="" node_ref=root role="group" aria-label="Try it: guided steps">
            <p class="steps-head"><strong>"Try it"</strong>{format!(" — {total} steps")}</p>
            <ol class="steps-list">{items}</ol>
            {question}
            <p class="steps-said" aria-live="polite" data-steps-said="">{move || said.get()}</p>
            {reveal}
            <div class="steps-actions">
                <button type="button" data-action="step-back" disabled=back_disabled on:click=move |_| back()>"Back"</button>
                <button type="button" data-action="step-next" disabled=next_disabled on:click=move |_| next()>
                    {move || if at() == 0 { "Start" } else { "Next" }}
                </button>
            </div>
        </div>
    }
}
