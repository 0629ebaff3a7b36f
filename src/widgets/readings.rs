//! What a figure shows, as signals: its readouts (name, value, how it is written), whether
//! it is still computing, its verdict, its training state and the guided step it stands
//! at. [`super::Figure`] provides one to everything inside it; each [`super::Readout`] and
//! [`super::ReadoutRow`] registers itself, and guided steps read the figure through it
//! rather than through the page's attributes (`data-readout`, `data-value`, `aria-busy`,
//! `data-verdict`, `data-train`, `data-step-at`, which stay for tests and instructors).

use leptos::prelude::*;

use super::steps::Readouts;

/// One readout as registered: its public name, its value and how the figure writes it.
#[derive(Clone, Copy)]
struct ReadoutSignal {
    /// Which registration this is (removed again when the readout is).
    token: u64,
    name: &'static str,
    value: Signal<f64>,
    format: fn(f64) -> String,
}

/// A source of "still computing" (a row of readouts' `aria-busy`).
#[derive(Clone, Copy)]
struct BusySignal {
    token: u64,
    busy: Signal<bool>,
}

#[derive(Default)]
struct Registered {
    next_token: u64,
    readouts: Vec<ReadoutSignal>,
    busy: Vec<BusySignal>,
}

impl Registered {
    fn token(&mut self) -> u64 {
        self.next_token += 1;
        self.next_token
    }
}

/// A figure's readings (see the module's documentation). Copy: a handle to arena values.
#[derive(Clone, Copy)]
pub struct FigureReadings {
    registered: StoredValue<Registered>,
    verdict: Option<Signal<String>>,
    train: Option<Signal<&'static str>>,
    /// The guided step reached (0: none), written by the steps, shown as `data-step-at`.
    pub step_at: RwSignal<usize>,
}

impl FigureReadings {
    /// The readings of a figure with this verdict and training state, provided to the
    /// components built after this call under the current owner.
    pub fn provide(verdict: Option<Signal<String>>, train: Option<Signal<&'static str>>) -> Self {
        let readings = Self {
            registered: StoredValue::new(Registered::default()),
            verdict,
            train,
            step_at: RwSignal::new(0),
        };
        provide_context(readings);
        readings
    }

    /// Registers readout `name` for as long as the calling component lives.
    pub fn register_readout(
        self,
        name: &'static str,
        value: Signal<f64>,
        format: fn(f64) -> String,
    ) {
        let token = self.registered.try_update_value(|r| {
            let token = r.token();
            r.readouts.push(ReadoutSignal {
                token,
                name,
                value,
                format,
            });
            token
        });
        on_cleanup(move || {
            if let Some(token) = token {
                self.registered
                    .try_update_value(|r| r.readouts.retain(|s| s.token != token));
            }
        });
    }

    /// Registers a source of "still computing" for as long as the calling component lives.
    pub fn register_busy(self, busy: Signal<bool>) {
        let token = self.registered.try_update_value(|r| {
            let token = r.token();
            r.busy.push(BusySignal { token, busy });
            token
        });
        on_cleanup(move || {
            if let Some(token) = token {
                self.registered
                    .try_update_value(|r| r.busy.retain(|s| s.token != token));
            }
        });
    }

    /// The readouts as shown now, name → (text, full value); untracked.
    pub fn readouts(self) -> Readouts<(String, f64)> {
        self.registered
            .try_with_value(|r| {
                r.readouts
                    .iter()
                    .filter_map(|s| {
                        let value = s.value.try_get_untracked()?;
                        Some((s.name.to_string(), ((s.format)(value), value)))
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The figure's verdict on its state, "" if it gives none; untracked.
    pub fn verdict(self) -> String {
        self.verdict
            .and_then(|v| v.try_get_untracked())
            .unwrap_or_default()
    }

    /// Whether the figure has caught up with its state: no row of readouts still
    /// computing, and no run still training; untracked.
    pub fn settled(self) -> bool {
        let busy = self
            .registered
            .try_with_value(|r| {
                r.busy
                    .iter()
                    .any(|s| s.busy.try_get_untracked().unwrap_or(false))
            })
            .unwrap_or(false);
        let training = self
            .train
            .and_then(|t| t.try_get_untracked())
            .is_some_and(|t| t == "running");
        !busy && !training
    }
}

/// The readings of the figure the calling component is inside, if it is inside one.
pub fn use_figure_readings() -> Option<FigureReadings> {
    use_context::<FigureReadings>()
}
