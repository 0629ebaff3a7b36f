//! A labelled number: the value as text, its unit, and the full-precision value in
//! `data-value` for tests and screen readers' neighbours; and a row of them, which says
//! while the figure is still computing them (`aria-busy`). Both register with the figure
//! they are in ([`super::readings`]), which is how guided steps read them.

use leptos::prelude::*;

use super::readings::use_figure_readings;

/// A readout with `data-readout="<name>"`.
#[component]
pub fn Readout(
    /// Public name (`data-readout`).
    name: &'static str,
    /// Visible label.
    label: &'static str,
    /// The value; NaN or infinity are shown in words by `format`.
    #[prop(into)]
    value: Signal<f64>,
    /// Unit after the value ("" for none).
    #[prop(default = "")]
    unit: &'static str,
    /// Formats the value for display.
    #[prop(default = default_format)]
    format: fn(f64) -> String,
) -> impl IntoView {
    if let Some(readings) = use_figure_readings() {
        readings.register_readout(name, value, format);
    }
    view! {
        <div class="readout" data-readout=name data-value=move || machine_value(value.get())>
            <span class="readout-label">{label}</span>
            <span class="readout-value">{move || format(value.get())}</span>
            {(!unit.is_empty()).then(|| view! { <span class="readout-unit">{unit}</span> })}
        </div>
    }
}

/// A figure's row of readouts, `aria-busy` while `busy` (the figure computes off the
/// input and has not caught up).
#[component]
pub fn ReadoutRow(
    /// Whether the readouts are still being computed.
    #[prop(into)]
    busy: Signal<bool>,
    /// Where the numbers were computed (`data-source`), for figures that say.
    #[prop(optional, into)]
    source: Option<Signal<String>>,
    children: Children,
) -> impl IntoView {
    if let Some(readings) = use_figure_readings() {
        readings.register_busy(busy);
    }
    view! {
        <div class="readouts" aria-busy=move || busy.get().to_string() data-source=move || source.map(|s| s.get())>
            {children()}
        </div>
    }
}

/// The `data-value` text: the full-precision number, or a word where there is none
/// (an overflowed or undefined value is never written as `inf` or `NaN`).
pub fn machine_value(x: f64) -> String {
    if x.is_finite() {
        x.to_string()
    } else if x.is_nan() {
        "undefined".into()
    } else {
        "overflow".into()
    }
}

fn default_format(x: f64) -> String {
    super::format::format_number(x, 4)
}
