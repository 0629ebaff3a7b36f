//! Controls: slider (linear, log or powers of two), toggle, select and a whole-number field.
//!
//! Each is a native form element with a visible label, so keyboard, touch and screen
//! readers work as the platform intends; `data-control="<url key>"` names it for tests.
//! A control never holds state: it shows a signal and reports changes through a callback.

use leptos::prelude::*;

use super::format::whole_or_three_digits;
use crate::math::rng::next_seed;
use crate::state::{
    float_range, int_range, pow2_range, round_significant, use_url_state, ChoiceList, SEED_MAX,
};

/// How a slider's position maps to its value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scale {
    /// value = position, in steps of `step`.
    Linear { min: f64, max: f64, step: f64 },
    /// value = 10^(position/per_decade), rounded to `digits` significant digits and
    /// clamped to min…max. The grid is anchored at 1, so round values (1, 10) are on it.
    Log {
        min: f64,
        max: f64,
        per_decade: u32,
        digits: i32,
    },
    /// value = 2^position.
    Pow2 { min_exp: u32, max_exp: u32 },
    /// value = round(2^(position/per_octave)), whole numbers on a log scale.
    Log2 {
        min_exp: u32,
        max_exp: u32,
        per_octave: u32,
    },
}

impl Scale {
    /// Whole steps of `step` over the range the parameter table gives `key`. Evaluate it
    /// in a constant (`const { Scale::linear_of("n", 1.0) }`): a key not in the table
    /// then does not compile, and nothing is looked up at run time.
    pub const fn linear_of(key: &str, step: f64) -> Scale {
        let (min, max) = float_range(key);
        Scale::Linear { min, max, step }
    }

    /// The powers of two the parameter table allows `key` (a constant, as
    /// [`Scale::linear_of`]).
    pub const fn pow2_of(key: &str) -> Scale {
        let (min_exp, max_exp) = pow2_range(key);
        Scale::Pow2 { min_exp, max_exp }
    }

    /// A log scale over the range the parameter table gives `key`, `per_decade` positions
    /// a decade, values rounded to `digits` significant digits (a constant, as
    /// [`Scale::linear_of`]).
    pub const fn log_of(key: &str, per_decade: u32, digits: i32) -> Scale {
        let (min, max) = float_range(key);
        Scale::Log {
            min,
            max,
            per_decade,
            digits,
        }
    }

    /// Whole numbers of `key`'s range on a log₂ scale, `per_octave` positions an octave
    /// (the range's ends are powers of two; a constant, as [`Scale::linear_of`]).
    pub const fn log2_of(key: &str, per_octave: u32) -> Scale {
        let (min, max) = int_range(key);
        Scale::Log2 {
            min_exp: (min as u64).ilog2(),
            max_exp: (max as u64).ilog2(),
            per_octave,
        }
    }

    /// The range input's (min, max, step) in position space.
    pub fn input_range(&self) -> (f64, f64, f64) {
        match *self {
            Scale::Linear { min, max, step } => (min, max, step),
            Scale::Log {
                min,
                max,
                per_decade,
                ..
            } => {
                let pd = per_decade as f64;
                ((min.log10() * pd).floor(), (max.log10() * pd).ceil(), 1.0)
            }
            Scale::Pow2 { min_exp, max_exp } => (min_exp as f64, max_exp as f64, 1.0),
            Scale::Log2 {
                min_exp,
                max_exp,
                per_octave,
            } => (
                (min_exp * per_octave) as f64,
                (max_exp * per_octave) as f64,
                1.0,
            ),
        }
    }

    /// The value at slider position `pos` (clamped to the range).
    pub fn from_position(&self, pos: f64) -> f64 {
        let (lo, hi, _) = self.input_range();
        let pos = if pos.is_finite() {
            pos.clamp(lo, hi)
        } else {
            lo
        };
        match *self {
            Scale::Linear { .. } => pos,
            Scale::Log {
                min,
                max,
                per_decade,
                digits,
            } => {
                let v = 10f64.powf(pos / per_decade as f64);
                round_significant(v, digits).clamp(min, max)
            }
            Scale::Pow2 { .. } => 2f64.powi(pos.round() as i32),
            Scale::Log2 { per_octave, .. } => 2f64.powf(pos.round() / per_octave as f64).round(),
        }
    }

    /// The slider position of `value` (nearest in log space for log scales).
    pub fn to_position(&self, value: f64) -> f64 {
        let (lo, hi, _) = self.input_range();
        let pos = match *self {
            Scale::Linear { .. } => value,
            Scale::Log {
                min,
                max,
                per_decade,
                ..
            } => {
                if value <= min {
                    lo
                } else if value >= max {
                    hi
                } else {
                    (value.log10() * per_decade as f64).round()
                }
            }
            Scale::Pow2 { .. } => value.log2().round(),
            Scale::Log2 { per_octave, .. } => (value.log2() * per_octave as f64).round(),
        };
        if pos.is_finite() {
            pos.clamp(lo, hi)
        } else {
            lo
        }
    }
}

/// A labelled range slider showing its value and unit.
#[component]
pub fn Slider(
    /// URL key this control sets (`data-control`).
    key: &'static str,
    label: &'static str,
    #[prop(into)] value: Signal<f64>,
    on_change: Callback<f64>,
    /// The position ↔ value map; a signal, so a range can follow another control.
    #[prop(into)]
    scale: Signal<Scale>,
    #[prop(default = "")] unit: &'static str,
    #[prop(default = whole_or_three_digits)] format: fn(f64) -> String,
    /// Distinguishes two instances of the same control on one page.
    #[prop(default = "")]
    instance: &'static str,
) -> impl IntoView {
    if !use_url_state().view.shows_control(key) {
        return ().into_any();
    }
    let id = format!("ctl-{key}{instance}");
    let range = move || scale.get().input_range();
    let text = move || {
        let v = format(value.get());
        if unit.is_empty() {
            v
        } else {
            format!("{v} {unit}")
        }
    };
    view! {
        <div class="control control-slider">
            <label for=id.clone()>{label}</label>
            <input
                type="range"
                id=id.clone()
                data-control=key
                min=move || range().0
                max=move || range().1
                step=move || range().2
                prop:value=move || scale.get().to_position(value.get()).to_string()
                aria-valuetext=text
                on:input=move |ev| {
                    if let Some(pos) = crate::state::parse_number(event_target_value(&ev).trim()) {
                        on_change.run(scale.get_untracked().from_position(pos));
                    }
                }
            />
            <output for=id class="control-value" aria-hidden="true">{text}</output>
        </div>
    }
    .into_any()
}

/// A labelled on/off switch.
#[component]
pub fn Toggle(
    key: &'static str,
    label: &'static str,
    #[prop(into)] value: Signal<bool>,
    on_change: Callback<bool>,
    #[prop(default = "")] instance: &'static str,
) -> impl IntoView {
    if !use_url_state().view.shows_control(key) {
        return ().into_any();
    }
    let id = format!("ctl-{key}{instance}");
    view! {
        <div class="control control-toggle">
            <input
                type="checkbox"
                role="switch"
                id=id.clone()
                data-control=key
                prop:checked=move || value.get()
                aria-checked=move || value.get().to_string()
                on:change=move |ev| on_change.run(event_target_checked(&ev))
            />
            <label for=id>{label}</label>
        </div>
    }
    .into_any()
}

/// A labelled drop-down of a choice's options (their ids and labels, from
/// [`crate::state::choices`]).
#[component]
pub fn Select(
    key: &'static str,
    label: &'static str,
    options: &'static dyn ChoiceList,
    #[prop(into)] value: Signal<&'static str>,
    on_change: Callback<&'static str>,
    #[prop(default = "")] instance: &'static str,
) -> impl IntoView {
    if !use_url_state().view.shows_control(key) {
        return ().into_any();
    }
    let id = format!("ctl-{key}{instance}");
    view! {
        <div class="control control-select">
            <label for=id.clone()>{label}</label>
            <select
                id=id
                data-control=key
                prop:value=move || value.get()
                on:change=move |ev| {
                    if let Some(id) = options.find(&event_target_value(&ev)) {
                        on_change.run(id);
                    }
                }
            >
                {(0..options.len())
                    .map(|i| (options.id(i), options.label(i)))
                    .map(|(id, text)| view! { <option value=id selected=move || value.get() == id>{text}</option> })
                    .collect_view()}
            </select>
        </div>
    }
    .into_any()
}

/// A labelled whole-number field (clamped to min…max on change).
#[component]
pub fn NumberField(
    key: &'static str,
    label: &'static str,
    #[prop(into)] value: Signal<i64>,
    on_change: Callback<i64>,
    min: i64,
    max: i64,
    #[prop(default = "")] instance: &'static str,
) -> impl IntoView {
    if !use_url_state().view.shows_control(key) {
        return ().into_any();
    }
    let id = format!("ctl-{key}{instance}");
    view! {
        <div class="control control-number">
            <label for=id.clone()>{label}</label>
            <input
                type="number"
                inputmode="numeric"
                id=id
                data-control=key
                min=min
                max=max
                step="1"
                prop:value=move || value.get().to_string()
                on:change=move |ev| {
                    let entered = crate::state::parse_number(event_target_value(&ev).trim()).filter(|v| v.is_finite());
                    let accepted = entered.map(|v| (v.round() as i64).clamp(min, max));
                    if let Some(v) = accepted {
                        on_change.run(v);
                    }
                    // Show what the state will hold: a clamped, rounded or rejected entry
                    // may leave it unchanged, and then nothing else would redraw the field.
                    show_value(&ev, accepted.unwrap_or_else(|| value.get_untracked()));
                }
            />
        </div>
    }
    .into_any()
}

/// A whole-number field with a button that gives a new seed (for seeds): the fixed
/// successor [`crate::math::rng::next_seed`], which looks random, differs from the seed
/// shown and lets a figure compute the next seed's picture before it is asked for.
#[component]
pub fn SeedField(
    key: &'static str,
    label: &'static str,
    #[prop(into)] value: Signal<i64>,
    on_change: Callback<i64>,
    /// The largest seed; every seed field of the page shares [`SEED_MAX`].
    #[prop(default = SEED_MAX)]
    max: i64,
    #[prop(default = "")] instance: &'static str,
) -> impl IntoView {
    if !use_url_state().view.shows_control(key) {
        return ().into_any();
    }
    let id = format!("ctl-{key}{instance}");
    view! {
        <div class="control control-seed">
            <label for=id.clone()>{label}</label>
            <input
                type="number"
                inputmode="numeric"
                id=id
                data-control=key
                min="0"
                max=max
                step="1"
                prop:value=move || value.get().to_string()
                on:change=move |ev| {
                    let entered = crate::state::parse_number(event_target_value(&ev).trim()).filter(|v| v.is_finite());
                    let accepted = entered.map(|v| (v.round() as i64).clamp(0, max));
                    if let Some(v) = accepted {
                        on_change.run(v);
                    }
                    // Show what the state will hold: a clamped, rounded or rejected entry
                    // may leave it unchanged, and then nothing else would redraw the field.
                    show_value(&ev, accepted.unwrap_or_else(|| value.get_untracked()));
                }
            />
            <button
                type="button"
                class="button-quiet"
                data-action="new-seed"
                aria-label=format!("{label}: draw a new one")
                on:click=move |_| {
                    // next_seed stays in 0..=max, so no clamp is needed on the way out.
                    let max = max.max(0);
                    let seed = value.get_untracked().clamp(0, max) as u64;
                    on_change.run(next_seed(seed, max as u64) as i64);
                }
            >
                "New"
            </button>
        </div>
    }
    .into_any()
}

/// Puts `value` back into the number field an event came from, if it shows something else.
fn show_value(ev: &leptos::ev::Event, value: i64) {
    let text = value.to_string();
    if let Some(input) = ev
        .target()
        .and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlInputElement>(t).ok())
    {
        if input.value() != text {
            input.set_value(&text);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pow2_scale_round_trips_every_position() {
        let s = Scale::Pow2 {
            min_exp: 0,
            max_exp: 10,
        };
        for e in 0..=10 {
            let v = s.from_position(e as f64);
            assert_eq!(v, (1u32 << e) as f64);
            assert_eq!(s.to_position(v), e as f64);
        }
    }

    #[test]
    fn log_scale_hits_its_ends_and_one() {
        let s = Scale::Log {
            min: 0.05,
            max: 50.0,
            per_decade: 100,
            digits: 3,
        };
        let (lo, hi, _) = s.input_range();
        assert_eq!(s.from_position(lo), 0.05);
        assert_eq!(s.from_position(hi), 50.0);
        assert_eq!(s.from_position(s.to_position(1.0)), 1.0);
        assert_eq!(s.from_position(s.to_position(10.0)), 10.0);
    }

    #[test]
    fn log_scale_positions_are_stable_under_round_trip() {
        let s = Scale::Log {
            min: 0.05,
            max: 50.0,
            per_decade: 100,
            digits: 3,
        };
        let (lo, hi, _) = s.input_range();
        for pos in (lo as i64)..=(hi as i64) {
            let v = s.from_position(pos as f64);
            assert_eq!(s.to_position(v), pos as f64, "pos {pos} → {v}");
        }
    }

    #[test]
    fn log2_scale_has_powers_of_two_on_its_grid() {
        let s = Scale::Log2 {
            min_exp: 7,
            max_exp: 20,
            per_octave: 4,
        };
        assert_eq!(s.from_position(s.to_position(4096.0)), 4096.0);
        assert_eq!(s.from_position(s.to_position(128.0)), 128.0);
        assert_eq!(s.from_position(s.to_position(1_048_576.0)), 1_048_576.0);
        assert_eq!(s.to_position(5000.0), 49.0);
    }

    #[test]
    fn positions_are_clamped_and_nan_safe() {
        let s = Scale::Linear {
            min: 2.0,
            max: 64.0,
            step: 1.0,
        };
        assert_eq!(s.from_position(500.0), 64.0);
        assert_eq!(s.from_position(f64::NAN), 2.0);
        assert_eq!(s.to_position(f64::INFINITY), 2.0);
    }
}
