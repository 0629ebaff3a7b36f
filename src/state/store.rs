//! The reactive store of the URL state: the parameters in a signal, one trigger per key
//! so that a computation re-runs only when a key it read was set, typed memos of single
//! keys, and the bindings a control needs (its value and a setter that applies at most
//! one change per animation frame).

use leptos::prelude::*;

use super::params::Params;
use super::reads::{KeySet, Recording};
use super::registry::FigureId;
use super::table::{Value, PARAMS};
use super::view::View;

/// The page's URL state: every control's value, and how the page is laid out.
///
/// Reads go through [`UrlState::tracked`] (and the per-key memos built on it): a
/// computation subscribes to the keys it read, one trigger per key, so that a change of one
/// control re-checks only what depends on it, not the hundreds of effects on the page.
/// `params` itself still notifies on every change, for whatever needs the whole state.
#[derive(Clone, Copy)]
pub struct UrlState {
    pub params: RwSignal<Params>,
    /// One trigger per key of [`PARAMS`], notified when that key is set: unit signals
    /// (`ArcRwSignal<bool>`, whose code the page carries anyway), made once per state and
    /// never dropped, so that no read can meet a disposed one.
    keys: &'static [ArcRwSignal<bool>],
    /// How the page is laid out (`embed`, `hide`, `controls`, `theme`, and the `step` it
    /// was opened at), fixed for the page's life.
    pub view: &'static View,
    /// Changes waiting for the next animation frame (see [`UrlState::set_on_frame`]).
    pending: StoredValue<Vec<(&'static str, Value)>>,
    /// True from a change applied in this frame until the next animation frame.
    frame_busy: StoredValue<bool>,
    /// The guided step a figure is at (`step=`, with the figure's id), if any.
    pub step: RwSignal<Option<(FigureId, u32)>>,
}

impl UrlState {
    /// A state from parsed parameters.
    pub fn new(params: Params, view: View) -> Self {
        Self {
            params: RwSignal::new(params),
            keys: PARAMS
                .iter()
                .map(|_| ArcRwSignal::new(false))
                .collect::<Vec<_>>()
                .leak(),
            // Made once per page: a few bytes that live as long as it.
            view: Box::leak(Box::new(view)),
            pending: StoredValue::new(Vec::new()),
            frame_busy: StoredValue::new(false),
            step: RwSignal::new(None),
        }
    }

    /// `f` of the current parameters, subscribing the running computation to exactly the
    /// keys `f` read (see [`Params::recording_reads`]).
    pub fn tracked<T>(&self, f: impl FnOnce(&Params) -> T) -> T {
        let recording = Recording::start();
        let value = self.params.with_untracked(f);
        self.track_keys(recording.finish());
        value
    }

    /// Subscribes the running computation to the keys in `read`.
    #[inline(never)]
    fn track_keys(&self, mut read: KeySet) {
        while read != 0 {
            if let Some(key) = self.keys.get(read.trailing_zeros() as usize) {
                key.track();
            }
            read &= read - 1;
        }
    }

    /// Tells whatever read the keys in `set` that they were set.
    #[inline(never)]
    fn notify_keys(&self, mut set: KeySet) {
        while set != 0 {
            if let Some(key) = self.keys.get(set.trailing_zeros() as usize) {
                key.notify();
            }
            set &= set - 1;
        }
    }

    /// A choice parameter as a memo.
    pub fn choice(&self, key: &'static str) -> Memo<&'static str> {
        let state = *self;
        Memo::new(move |_| state.tracked(|p| p.choice(key)))
    }

    /// Applies a change at once if none was applied in this frame; otherwise queues it
    /// for the next animation frame, merged with whatever else arrives meanwhile. However
    /// many input events a dragged slider fires, its figure recomputes at most once per
    /// frame, and a single change is never delayed.
    pub fn set_on_frame(&self, values: Vec<(&'static str, Value)>) {
        if !self.frame_busy.get_value() {
            self.frame_busy.set_value(true);
            self.set_many(values);
            self.flush_next_frame();
            return;
        }
        self.pending.update_value(|p| {
            for (key, value) in values {
                p.retain(|(k, _)| *k != key);
                p.push((key, value));
            }
        });
    }

    /// At the next frame: apply what was queued (and keep the frame busy), or free it.
    fn flush_next_frame(&self) {
        let state = *self;
        request_animation_frame(move || {
            let queued = state
                .pending
                .try_update_value(std::mem::take)
                .unwrap_or_default();
            if queued.is_empty() {
                state.frame_busy.set_value(false);
            } else {
                state.set_many(queued);
                state.flush_next_frame();
            }
        });
    }

    /// A whole-number control bound to `key`: its value and a per-frame setter.
    pub fn int_control(&self, key: &'static str) -> (Signal<i64>, Callback<i64>) {
        let state = *self;
        (
            self.int(key).into(),
            Callback::new(move |v: i64| state.set_on_frame(vec![(key, Value::Int(v))])),
        )
    }

    /// A real-valued control bound to `key`.
    pub fn float_control(&self, key: &'static str) -> (Signal<f64>, Callback<f64>) {
        let state = *self;
        (
            self.float(key).into(),
            Callback::new(move |v: f64| state.set_on_frame(vec![(key, Value::Float(v))])),
        )
    }

    /// An on/off control bound to `key`.
    pub fn flag_control(&self, key: &'static str) -> (Signal<bool>, Callback<bool>) {
        let state = *self;
        (
            self.flag(key).into(),
            Callback::new(move |v: bool| state.set_on_frame(vec![(key, Value::Bool(v))])),
        )
    }

    /// A choice control bound to `key`.
    pub fn choice_control(
        &self,
        key: &'static str,
    ) -> (Signal<&'static str>, Callback<&'static str>) {
        let state = *self;
        (
            self.choice(key).into(),
            Callback::new(move |v: &'static str| state.set_on_frame(vec![(key, Value::Choice(v))])),
        )
    }

    /// An integer parameter as a memo (recomputes dependants only when it changes).
    pub fn int(&self, key: &'static str) -> Memo<i64> {
        let state = *self;
        Memo::new(move |_| state.tracked(|p| p.int(key)))
    }

    /// A real parameter as a memo.
    pub fn float(&self, key: &'static str) -> Memo<f64> {
        let state = *self;
        Memo::new(move |_| state.tracked(|p| p.float(key)))
    }

    /// A boolean parameter as a memo.
    pub fn flag(&self, key: &'static str) -> Memo<bool> {
        let state = *self;
        Memo::new(move |_| state.tracked(|p| p.flag(key)))
    }

    /// A list parameter as a memo.
    pub fn list(&self, key: &'static str) -> Memo<Option<Vec<f64>>> {
        let state = *self;
        Memo::new(move |_| state.tracked(|p| p.list(key)))
    }

    /// Sets several keys in one update (one recomputation, one URL write).
    pub fn set_many(&self, values: Vec<(&'static str, Value)>) {
        let mut set: KeySet = 0;
        self.params.update_untracked(|p| {
            for (key, value) in values {
                // Keys come from this crate's own constants; a wrong one is a bug that
                // must not take the page down, so it is ignored.
                if let Ok(i) = p.set(key, value) {
                    set |= 1 << i;
                }
            }
        });
        // Every key set is notified, changed or not, as one update of the whole state
        // was before: its memos re-check and stop where the value is the same.
        self.notify_keys(set);
        self.params.notify();
    }
}

/// The URL state from context (a default state outside the app, e.g. in component tests).
pub fn use_url_state() -> UrlState {
    use_context::<UrlState>().unwrap_or_else(|| UrlState::new(Params::default(), View::default()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    fn state() -> UrlState {
        UrlState::new(Params::default(), View::default())
    }

    /// A memo of `f` over `state`, and how many times it has run.
    fn counted(
        state: UrlState,
        f: impl Fn(&Params) -> i64 + Send + Sync + 'static,
    ) -> (Memo<i64>, Arc<AtomicUsize>) {
        let runs = Arc::new(AtomicUsize::new(0));
        let r = runs.clone();
        let memo = Memo::new(move |_| {
            r.fetch_add(1, Ordering::Relaxed);
            state.tracked(&f)
        });
        (memo, runs)
    }

    #[test]
    fn a_memo_reruns_when_a_key_it_read_is_set_and_not_for_other_keys() {
        let s = state();
        let (n, n_runs) = counted(s, |p| p.int("n"));
        let (depth, depth_runs) = counted(s, |p| p.int("depth"));
        assert_eq!((n.get(), depth.get()), (8, 32));
        s.set_many(vec![("n", Value::Int(12))]);
        assert_eq!((n.get(), depth.get()), (12, 32));
        assert_eq!(n_runs.load(Ordering::Relaxed), 2);
        assert_eq!(depth_runs.load(Ordering::Relaxed), 1, "depth was not set");
    }

    #[test]
    fn a_memo_follows_the_keys_it_read_on_its_last_run() {
        let s = state();
        // Reads `n` only while the residual is off, `depth` only while it is on.
        let (m, runs) = counted(s, |p| {
            if p.flag("res") {
                p.int("depth")
            } else {
                p.int("n")
            }
        });
        assert_eq!(m.get(), 8);
        s.set_many(vec![("res", Value::Bool(true))]);
        assert_eq!(m.get(), 32);
        s.set_many(vec![("n", Value::Int(20))]);
        assert_eq!(m.get(), 32);
        assert_eq!(runs.load(Ordering::Relaxed), 2, "n is no longer read");
        s.set_many(vec![("depth", Value::Int(40))]);
        assert_eq!(m.get(), 40);
    }

    #[test]
    fn whatever_reads_the_whole_state_still_sees_every_change() {
        let s = state();
        let whole = Memo::new(move |_| s.params.with(|p| p.to_query(None)));
        assert_eq!(whole.get(), "");
        s.set_many(vec![("depth", Value::Int(40))]);
        assert_eq!(whole.get(), "depth=40");
    }

    #[test]
    fn the_control_memos_hold_the_value_set() {
        let s = state();
        let (depth, gain, res, norm) = (
            s.int("depth"),
            s.float("gain"),
            s.flag("res"),
            s.choice("norm"),
        );
        s.set_many(vec![
            ("depth", Value::Int(40)),
            ("gain", Value::Float(1.5)),
            ("res", Value::Bool(true)),
            ("norm", Value::Choice("pre")),
        ]);
        assert_eq!(
            (depth.get(), gain.get(), res.get(), norm.get()),
            (40, 1.5, true, "pre")
        );
    }
}
