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

use leptos::html;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use super::format::format_number;
use super::timing::now_ms;
use crate::state::{
    parse_number, spec, use_url_state, value_from_text, ParamKind, UrlState, Value,
};

/// A figure's readouts by name: (name, value). A handful per figure: a list, searched.
pub type Readouts<T> = Vec<(String, T)>;

/// The value of readout `name` in `readouts`.
fn lookup<'a, T>(readouts: &'a Readouts<T>, name: &str) -> Option<&'a T> {
    readouts.iter().find(|(n, _)| n == name).map(|(_, v)| v)
}

/// One guided step of a figure.
#[derive(Debug)]
pub struct Step {
    /// What the reader is asked to watch, shown before the step runs.
    pub ask: &'static str,
    /// The state the step reaches: keys and their values as URL text, set on top of the
    /// state the steps before it reached (keys it does not name keep their values).
    pub to: &'static [(&'static str, &'static str)],
    /// What the reader now sees, filled in from the figure's readouts: `{r:name}` is a
    /// readout as shown, `{was:name}` as it was shown before the step ran, `{change:name}`
    /// how it changed ("fell 38×", "rose 2.10×", "stayed the same"), `{verdict}` the
    /// figure's own verdict on its state (its `data-verdict`).
    pub see: &'static str,
    /// A prediction asked before the step runs.
    pub predict: Option<Prediction>,
}

/// A question asked before a step: the reader commits to an option, the step runs, and the
/// reader's answer is shown beside the computed one.
#[derive(Debug)]
pub struct Prediction {
    pub question: &'static str,
    /// (id, label) of each option.
    pub options: &'static [(&'static str, &'static str)],
    /// How the right option is decided from the figure's readouts.
    pub decide: Decide,
    /// Why, filled in as [`Step::see`] is.
    pub why: &'static str,
}

/// How the right option of a [`Prediction`] follows from a readout (its full-precision
/// `data-value`) before and after the step: the first case whose bound the measure is
/// below, else `otherwise`.
#[derive(Debug)]
pub struct Decide {
    pub readout: &'static str,
    pub measure: Measure,
    /// (exclusive upper bound, option id), in increasing order of bound.
    pub cases: &'static [(f64, &'static str)],
    pub otherwise: &'static str,
}

/// What [`Decide`] compares with its bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Measure {
    /// The readout after the step over the readout before.
    Ratio,
    /// The readout after the step.
    After,
}

/// A readout's full-precision value: `data-value` read as a number; overflow is +∞, and
/// what is not a number (undefined, still computing) is NaN.
pub fn readout_number(text: &str) -> f64 {
    match text {
        "overflow" => f64::INFINITY,
        // Not `str::parse`, whose tables would double the page's first load (see
        // `state::number`).
        _ => parse_number(text).unwrap_or(f64::NAN),
    }
}

impl Decide {
    /// The option id for readouts `before` and `after` (by name, full precision).
    pub fn answer(&self, before: &Readouts<f64>, after: &Readouts<f64>) -> &'static str {
        let (b, a) = (
            lookup(before, self.readout).copied().unwrap_or(f64::NAN),
            lookup(after, self.readout).copied().unwrap_or(f64::NAN),
        );
        let measure = match self.measure {
            Measure::Ratio if b == 0.0 && a == 0.0 => 1.0,
            Measure::Ratio => a / b,
            Measure::After => a,
        };
        self.cases
            .iter()
            .find(|(bound, _)| measure < *bound)
            .map_or(self.otherwise, |(_, id)| id)
    }
}

/// How a readout changed between `before` and `after` (full precision), in words.
pub fn change_words(before: f64, after: f64) -> String {
    if !(before.is_finite() && after.is_finite()) || before == 0.0 {
        return "changed".into();
    }
    let ratio = after / before;
    if (ratio - 1.0).abs() < 0.02 {
        "stayed the same".into()
    } else if ratio > 1.0 {
        format!("rose {}×", format_number(ratio, 3))
    } else {
        format!("fell {}×", format_number(1.0 / ratio, 3))
    }
}

/// A template filled in: `{r:name}`, `{was:name}`, `{change:name}` and `{verdict}` (see
/// [`Step::see`]) from `now` (shown text and full value of each readout), `was` and the
/// figure's `verdict`. An unknown placeholder is left out.
pub fn fill(
    template: &str,
    now: &Readouts<(String, f64)>,
    was: &Readouts<(String, f64)>,
    verdict: &str,
) -> String {
    let mut out = String::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let Some(close) = rest[open..].find('}').map(|c| open + c) else {
            out.push_str(&rest[open..]);
            return out;
        };
        let placeholder = &rest[open + 1..close];
        let shown = |map: &Readouts<(String, f64)>, name: &str| {
            lookup(map, name)
                .map(|(t, _)| t.clone())
                .unwrap_or_else(|| "…".into())
        };
        let value = |map: &Readouts<(String, f64)>, name: &str| {
            lookup(map, name).map_or(f64::NAN, |(_, v)| *v)
        };
        match placeholder.split_once(':') {
            Some(("r", name)) => out.push_str(&shown(now, name)),
            Some(("was", name)) => out.push_str(&shown(was, name)),
            Some(("change", name)) => {
                out.push_str(&change_words(value(was, name), value(now, name)))
            }
            None if placeholder == "verdict" => out.push_str(verdict),
            _ => {}
        }
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    out
}

/// The state `steps` 1..=k reach from `base`: each step's values set in order.
pub fn state_at(
    base: &[(&'static str, Value)],
    steps: &[Step],
    k: usize,
) -> Vec<(&'static str, Value)> {
    let mut values: Vec<(&'static str, Value)> = base.to_vec();
    for step in steps.iter().take(k) {
        for (key, text) in step.to {
            if let (Some(v), Some(spec)) = (value_from_text(key, text), spec(key)) {
                values.retain(|(k, _)| *k != spec.key);
                values.push((spec.key, v));
            }
        }
    }
    values
}

/// Every key any of `steps` sets.
fn keys_of(steps: &[Step]) -> Vec<&'static str> {
    let mut keys: Vec<&'static str> = Vec::new();
    for step in steps {
        for (key, _) in step.to {
            if let Some(spec) = spec(key) {
                if !keys.contains(&spec.key) {
                    keys.push(spec.key);
                }
            }
        }
    }
    keys
}

/// A value `t` of the way (0…1) from `from` to `to`: numbers move (geometrically where both
/// ends are positive and far apart, as a log slider does), everything else switches at once.
pub fn between(key: &str, from: &Value, to: &Value, t: f64) -> Value {
    let mix = |a: f64, b: f64| {
        if a > 0.0 && b > 0.0 && (b / a > 4.0 || a / b > 4.0) {
            (a.ln() + (b.ln() - a.ln()) * t).exp()
        } else {
            a + (b - a) * t
        }
    };
    match (from, to) {
        (Value::Float(a), Value::Float(b)) => Value::Float(mix(*a, *b)),
        (Value::Int(a), Value::Int(b)) => {
            let pow2 = spec(key).is_some_and(|s| matches!(s.kind, ParamKind::Pow2 { .. }));
            let x = mix(*a as f64, *b as f64);
            if pow2 {
                // Whole powers of two only: the table would snap to the nearest anyway.
                Value::Int(1 << x.max(1.0).log2().round() as u32)
            } else {
                Value::Int(x.round() as i64)
            }
        }
        _ => to.clone(),
    }
}

/// How long a step's move takes (ms): well under a second.
const MOVE_MS: f64 = 600.0;

/// Whether the reader asked for less motion.
fn reduced_motion() -> bool {
    window()
        .match_media("(prefers-reduced-motion: reduce)")
        .ok()
        .flatten()
        .is_some_and(|m| m.matches())
}

/// Moves `state` to `target`: one change per animation frame over [`MOVE_MS`] (eased),
/// or at once with reduced motion; then `done`.
fn move_to(state: UrlState, target: Vec<(&'static str, Value)>, done: impl FnOnce() + 'static) {
    let start: Vec<(&'static str, Value)> = state.params.with_untracked(|p| {
        target
            .iter()
            .filter_map(|(k, _)| p.get(k).map(|v| (*k, v.clone())))
            .collect()
    });
    if reduced_motion() {
        state.set_many(target);
        done();
        return;
    }
    let began = now_ms();
    let done = std::cell::Cell::new(Some(Box::new(done) as Box<dyn FnOnce()>));
    let step = std::rc::Rc::new(move |again: &dyn Fn()| {
        let t = ((now_ms() - began) / MOVE_MS).clamp(0.0, 1.0);
        let eased = t * t * (3.0 - 2.0 * t);
        let values: Vec<(&'static str, Value)> = target
            .iter()
            .map(|(k, to)| {
                let from = start.iter().find(|(s, _)| s == k).map_or(to, |(_, v)| v);
                (
                    *k,
                    if t >= 1.0 {
                        to.clone()
                    } else {
                        between(k, from, to, eased)
                    },
                )
            })
            .collect();
        state.set_many(values);
        if t < 1.0 {
            again();
        } else if let Some(done) = done.take() {
            done();
        }
    });
    // One frame after another until the move is over.
    fn schedule(step: std::rc::Rc<dyn Fn(&dyn Fn())>) {
        let next = step.clone();
        request_animation_frame(move || next(&|| schedule(step.clone())));
    }
    schedule(step);
}

/// The readouts of figure `id` as shown: name → (text, full value).
fn readouts_of(id: &str) -> Readouts<(String, f64)> {
    let selector = format!("[data-figure=\"{id}\"] [data-readout]");
    let mut out = Vec::new();
    if let Ok(list) = document().query_selector_all(&selector) {
        for i in 0..list.length() {
            let Some(el) = list
                .item(i)
                .and_then(|n| n.dyn_into::<web_sys::Element>().ok())
            else {
                continue;
            };
            let name = el.get_attribute("data-readout").unwrap_or_default();
            let value = readout_number(&el.get_attribute("data-value").unwrap_or_default());
            let text = el
                .query_selector(".readout-value")
                .ok()
                .flatten()
                .and_then(|v| v.text_content())
                .unwrap_or_default();
            out.push((name, (text, value)));
        }
    }
    out
}

/// The verdict figure `id` gives on its state (`data-verdict`), "" if none.
fn verdict_of(id: &str) -> String {
    document()
        .query_selector(&format!("[data-figure=\"{id}\"]"))
        .ok()
        .flatten()
        .and_then(|f| f.get_attribute("data-verdict"))
        .unwrap_or_default()
}

/// Whether figure `id` has caught up with its state (no readout still computing).
fn settled(id: &str) -> bool {
    document()
        .query_selector(&format!("[data-figure=\"{id}\"] [aria-busy=\"true\"]"))
        .ok()
        .flatten()
        .is_none()
}

/// Marks figure `id`'s root with the step reached (`data-step-at`), or clears it.
fn mark_step(id: &str, k: usize) {
    if let Ok(Some(root)) = document().query_selector(&format!("[data-figure=\"{id}\"]")) {
        let _ = if k == 0 {
            root.remove_attribute("data-step-at")
        } else {
            root.set_attribute("data-step-at", &k.to_string())
        };
    }
}

/// Focuses the first element of figure `id`'s strip that matches `selector` (and is not
/// disabled), if any.
fn focus_in_strip(id: &str, selectors: &[&str]) {
    for selector in selectors {
        let query = format!("[data-figure=\"{id}\"] [data-steps] {selector}:not([disabled])");
        if let Ok(Some(el)) = document().query_selector(&query) {
            if let Ok(el) = el.dyn_into::<web_sys::HtmlElement>() {
                let _ = el.focus();
                return;
            }
        }
    }
}

/// Whether the keyboard focus is nowhere (a button that was disabled under it, a question
/// that went away) or inside figure `id`'s strip: then the strip may place it.
fn focus_is_ours(id: &str) -> bool {
    let Some(active) = document().active_element() else {
        return true;
    };
    if document().body().is_some_and(|b| *b == active) {
        return true;
    }
    active
        .closest(&format!("[data-figure=\"{id}\"] [data-steps]"))
        .ok()
        .flatten()
        .is_some()
}

/// After a move: the focus back on Next (Back at the last step), unless the reader has
/// taken it elsewhere.
fn restore_focus(id: &'static str) {
    request_animation_frame(move || {
        if focus_is_ours(id) {
            focus_in_strip(
                id,
                &["[data-action=\"step-next\"]", "[data-action=\"step-back\"]"],
            );
        }
    });
}

const ANSWERS_KEY: &str = "handwave-predictions";

/// The reader's answers remembered in this browser (never sent anywhere): "figure/k" →
/// option id.
fn remembered(slot: &str) -> Option<String> {
    let storage = window().local_storage().ok().flatten()?;
    let all = storage.get_item(ANSWERS_KEY).ok().flatten()?;
    all.split(';')
        .filter_map(|pair| pair.split_once('='))
        .find(|(k, _)| *k == slot)
        .map(|(_, v)| v.to_string())
}

fn remember(slot: &str, option: &str) {
    let Some(storage) = window().local_storage().ok().flatten() else {
        return;
    };
    let mut pairs: Vec<String> = storage
        .get_item(ANSWERS_KEY)
        .ok()
        .flatten()
        .unwrap_or_default()
        .split(';')
        .filter(|p| !p.is_empty() && !p.starts_with(&format!("{slot}=")))
        .map(str::to_string)
        .collect();
    pairs.push(format!("{slot}={option}"));
    let _ = storage.set_item(ANSWERS_KEY, &pairs.join(";"));
}

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

/// The "Try it" strip of figure `id` running `steps`.
#[component]
pub fn Steps(id: &'static str, steps: &'static [Step]) -> impl IntoView {
    let state = use_url_state();
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
        fn poll(id: &'static str, tries: u32, f: std::rc::Rc<dyn Fn()>) {
            if settled(id) || tries == 0 {
                f();
            } else {
                set_timeout(
                    move || poll(id, tries - 1, f),
                    std::time::Duration::from_millis(50),
                );
            }
        }
        let f = std::rc::Rc::new(move || {
            let now = readouts_of(id);
            let verdict = verdict_of(id);
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
            mark_step(id, k);
            if refocus {
                restore_focus(id);
            }
        });
        // One frame for the last change to reach the figure, then wait for it to settle.
        request_animation_frame(move || poll(id, 200, f));
    };
    let run_to = move |k: usize, reader: Option<&'static str>| {
        if base.with_value(Vec::is_empty) {
            snapshot_base();
        }
        was.set_value(readouts_of(id));
        revealed.set(None);
        phase.set(Phase::Moving(k, reader));
        let target = base.with_value(|b| state_at(b, steps, k));
        move_to(state, target, move || {
            // The address names the step once its state is reached, so that an address
            // with `step=k` always holds the step's values.
            state.step.set((k > 0).then_some((id, k as u32)));
            if k == 0 {
                said.set(String::new());
                phase.set(Phase::At(0));
                mark_step(id, 0);
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
        .filter(|(f, _)| *f == id)
        .map(|(_, k)| k as usize);
    if let Some(k) = opened_at.filter(|k| (1..=total).contains(k)) {
        request_animation_frame(move || {
            snapshot_base();
            // The base is the state before any step: the link's values stand for it.
            was.set_value(readouts_of(id));
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

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(pairs: &[(&str, &str, f64)]) -> Readouts<(String, f64)> {
        pairs
            .iter()
            .map(|(k, t, v)| (k.to_string(), (t.to_string(), *v)))
            .collect()
    }

    #[test]
    fn a_template_is_filled_from_the_readouts_before_and_after() {
        let was = shown(&[("spectral", "0.214", 0.214)]);
        let now = shown(&[("spectral", "0.00560", 0.0056)]);
        let text = fill(
            "‖J‖₂ {change:spectral}: {was:spectral} → {r:spectral}. {verdict}",
            &now,
            &was,
            "Saturated.",
        );
        assert_eq!(text, "‖J‖₂ fell 38.2×: 0.214 → 0.00560. Saturated.");
        assert_eq!(fill("{r:missing} {nope} done", &now, &was, ""), "…  done");
    }

    #[test]
    fn changes_are_said_in_words() {
        assert_eq!(change_words(2.0, 2.01), "stayed the same");
        assert_eq!(change_words(1.0, 4.0), "rose 4.00×");
        assert_eq!(change_words(4.0, 1.0), "fell 4.00×");
        assert_eq!(change_words(0.0, 1.0), "changed");
        assert_eq!(change_words(f64::NAN, 1.0), "changed");
    }

    #[test]
    fn the_right_option_follows_from_the_readouts() {
        let decide = Decide {
            readout: "grad-ratio",
            measure: Measure::Ratio,
            cases: &[(1e-3, "vanishes"), (0.5, "shrinks"), (2.0, "same")],
            otherwise: "explodes",
        };
        let at = |v: f64| vec![("grad-ratio".to_string(), v)];
        assert_eq!(decide.answer(&at(0.1), &at(1e-12)), "vanishes");
        assert_eq!(decide.answer(&at(0.1), &at(0.03)), "shrinks");
        assert_eq!(decide.answer(&at(0.1), &at(0.1)), "same");
        assert_eq!(decide.answer(&at(0.1), &at(f64::INFINITY)), "explodes");
        let after = Decide {
            measure: Measure::After,
            ..decide
        };
        assert_eq!(after.answer(&at(7.0), &at(0.0001)), "vanishes");
    }

    #[test]
    fn readout_values_are_numbers_or_named_limits() {
        assert_eq!(readout_number("0.5"), 0.5);
        assert_eq!(readout_number("overflow"), f64::INFINITY);
        assert!(readout_number("undefined").is_nan());
    }

    #[test]
    fn the_states_of_the_steps_accumulate_on_the_base() {
        static STEPS: [Step; 2] = [
            Step {
                ask: "",
                to: &[("div", "0")],
                see: "",
                predict: None,
            },
            Step {
                ask: "",
                to: &[("alpha", "20")],
                see: "",
                predict: None,
            },
        ];
        let base = vec![("div", Value::Bool(true)), ("alpha", Value::Float(1.0))];
        assert_eq!(state_at(&base, &STEPS, 0), base);
        assert_eq!(
            state_at(&base, &STEPS, 2),
            vec![("div", Value::Bool(false)), ("alpha", Value::Float(20.0))]
        );
        assert_eq!(keys_of(&STEPS), vec!["div", "alpha"]);
    }

    use crate::state::display_value;

    #[test]
    fn a_move_passes_through_values_the_table_allows() {
        let Value::Float(half) = between("alpha", &Value::Float(1.0), &Value::Float(100.0), 0.5)
        else {
            panic!("a real stays real");
        };
        assert!(
            (half - 10.0).abs() < 1e-9,
            "geometric, as the log slider: {half}"
        );
        assert_eq!(
            between("depth", &Value::Int(8), &Value::Int(64), 0.5),
            Value::Int(23)
        );
        assert_eq!(
            between("dk", &Value::Int(4), &Value::Int(64), 0.5),
            Value::Int(16)
        );
        assert_eq!(
            between("div", &Value::Bool(true), &Value::Bool(false), 0.1),
            Value::Bool(false)
        );
        assert_eq!(
            display_value(&between("rdk", &Value::Int(4), &Value::Int(48), 1.0)),
            "48"
        );
    }
}
