//! Moving a figure to a step's state: the state each step reaches, values between two
//! states, and the eased move over a few animation frames (a jump with reduced motion).

use leptos::prelude::*;

use super::table::Step;
use crate::state::{spec, value_from_text, ParamKind, UrlState, Value};
use crate::widgets::timing::now_ms;

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
pub(super) fn keys_of(steps: &[Step]) -> Vec<&'static str> {
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
pub(super) fn reduced_motion() -> bool {
    window()
        .match_media("(prefers-reduced-motion: reduce)")
        .ok()
        .flatten()
        .is_some_and(|m| m.matches())
}

/// Moves `state` to `target`: one change per animation frame over [`MOVE_MS`] (eased),
/// or at once with reduced motion; then `done`.
pub(super) fn move_to(
    state: UrlState,
    target: Vec<(&'static str, Value)>,
    done: impl FnOnce() + 'static,
) {
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

#[cfg(test)]
mod tests {
    use super::*;

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
