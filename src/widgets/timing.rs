//! Time and yielding: the page's clock, a yield to the browser between slices of long
//! work, idle periods for work done ahead, and starting a task in the effect that saw the
//! input.

use leptos::prelude::*;
use wasm_bindgen::{JsCast, JsValue};

thread_local! {
    /// The page's Performance object, fetched once: sliced work asks the time after
    /// every block, and `window.performance` is a call into JS that makes a new handle.
    static PERFORMANCE: Option<web_sys::Performance> = window().performance();
}

/// Milliseconds since navigation (0 where there is no Performance API).
pub fn now_ms() -> f64 {
    PERFORMANCE.with(|p| p.as_ref().map(|p| p.now()).unwrap_or(0.0))
}

/// Waits for the next macrotask, so the page can paint and handle input between slices
/// of long work.
pub async fn yield_to_browser() {
    // A message to ourselves, not setTimeout(0): browsers clamp timers nested more than
    // five deep to 4 ms, which would leave a sliced computation idle between its slices.
    // The channel is held by this future until its message arrives.
    let channel = web_sys::MessageChannel::new().ok();
    let promise = js_sys::Promise::new(&mut |resolve, _| match &channel {
        Some(ch) => {
            ch.port1().set_onmessage(Some(&resolve));
            if ch.port2().post_message(&JsValue::NULL).is_err() {
                let _ = resolve.call0(&JsValue::NULL);
            }
        }
        None => {
            let _ = window().set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 0);
        }
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
    if let Some(ch) = channel {
        ch.port1().set_onmessage(None);
        ch.port1().close();
    }
}

/// A copy of `source` for a heavy computation to read: it follows `source` in a task of
/// its own when `later(&value)` holds (so the input's task only moves the control, and the
/// computation and its drawing run in the next one: two tasks, each under the 50 ms
/// budget, instead of one over it), at once otherwise. Also whether the copy is still
/// behind (for `aria-busy`). Only the newest value is ever applied.
pub fn follow_in_own_task<T>(source: Memo<T>, later: fn(&T) -> bool) -> (Signal<T>, Signal<bool>)
where
    T: Clone + PartialEq + Send + Sync + 'static,
{
    let copy = RwSignal::new(source.get_untracked());
    let newest = StoredValue::new(0_u64);
    Effect::new(move |_| {
        let value = source.get();
        if copy.with_untracked(|c| *c == value) {
            return;
        }
        let ticket = newest.get_value() + 1;
        newest.set_value(ticket);
        if later(&value) {
            leptos::task::spawn_local(async move {
                yield_to_browser().await;
                if newest.try_get_value() == Some(ticket) {
                    copy.set(value);
                }
            });
        } else {
            copy.set(value);
        }
    });
    let behind = Signal::derive(move || source.with(|s| copy.with(|c| c != s)));
    (copy.into(), behind)
}

/// Runs `task` at once, up to its first `.await` that must wait, and hands what is left to
/// the browser's task queue (`spawn_local`) only then. Work that an input asked for
/// starts in the effect that saw the input, not one hop of the event loop later (about
/// 0.4 ms on this machine). The first poll is untracked, so nothing `task` reads
/// subscribes the caller; a future that is pending re-registers its waker when the
/// executor polls it, so the throwaway waker of the first poll is never the one woken.
pub fn run_now_then_spawn(task: impl std::future::Future<Output = ()> + 'static) {
    let mut task = Box::pin(task);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    let first = untrack(|| task.as_mut().poll(&mut cx));
    if first.is_pending() {
        leptos::task::spawn_local(task);
    }
}

/// Waits until the browser is idle (`requestIdleCallback`) and gives the time, on
/// [`now_ms`]'s clock, at which that idle period ends. None where the browser has no idle
/// callbacks: work meant for idle time is then not done at all.
pub async fn idle_period() -> Option<f64> {
    let w = window();
    let has_idle = js_sys::Reflect::has(&w, &JsValue::from_str("requestIdleCallback"));
    if has_idle != Ok(true) {
        return None;
    }
    let mut asked = true;
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        asked = w.request_idle_callback(&resolve).is_ok();
    });
    if !asked {
        return None;
    }
    let deadline = wasm_bindgen_futures::JsFuture::from(promise).await.ok()?;
    let remaining = deadline
        .dyn_into::<web_sys::IdleDeadline>()
        .ok()?
        .time_remaining();
    Some(now_ms() + remaining)
}

/// Longest slice of work between two yields to the browser (ms).
pub const SLICE_MS: f64 = 8.0;

/// Longest slice of anticipated work: an idle period may last up to 50 ms, and an input
/// that arrives during a slice waits for it to end, so a slice stops after this long (or
/// at the idle deadline, if sooner) and asks for the next idle period.
pub const IDLE_SLICE_MS: f64 = 3.0;

/// The first slice after an input may use most of the frame, so that work that fits in a
/// frame is drawn in that frame instead of being split across two.
pub const FIRST_SLICE_MS: f64 = 14.0;

/// How long work is spread over time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Pace {
    /// Asked for: the first slice ends at the given time, later ones [`SLICE_MS`] after
    /// they begin, with a yield to the browser between them.
    Asked { first_end: f64 },
    /// Anticipated: only in the browser's idle periods, so it never delays a frame or an
    /// input.
    Idle,
}

impl Pace {
    /// Asked for now: the first slice may use most of this frame ([`FIRST_SLICE_MS`]).
    pub fn asked_now() -> Pace {
        Pace::Asked {
            first_end: now_ms() + FIRST_SLICE_MS,
        }
    }

    /// Asked for now, every slice (the first too) [`SLICE_MS`] long.
    pub fn asked_in_short_slices() -> Pace {
        Pace::Asked {
            first_end: now_ms() + SLICE_MS,
        }
    }

    /// Waits for the next slice (none for the first slice of `Asked`) and gives the time
    /// it ends; None where idle time never comes.
    async fn next_slice(self, first: bool) -> Option<f64> {
        match self {
            Pace::Asked { first_end } if first => Some(first_end),
            Pace::Asked { .. } => {
                yield_to_browser().await;
                Some(now_ms() + SLICE_MS)
            }
            Pace::Idle => idle_period()
                .await
                .map(|deadline| deadline.min(now_ms() + IDLE_SLICE_MS)),
        }
    }
}

/// Long work cut into slices with a wait between them ([`Pace`]), so that no task blocks
/// the page: call [`Slices::step`] after each step of the work.
pub struct Slices {
    pace: Pace,
    /// When the current slice ends (on [`now_ms`]'s clock).
    end: f64,
}

impl Slices {
    /// The first slice of work paced by `pace` (for idle work, once an idle period has
    /// come; None where none ever will).
    pub async fn start(pace: Pace) -> Option<Slices> {
        let end = pace.next_slice(true).await?;
        Some(Slices { pace, end })
    }

    /// After a step of work: while the slice lasts, nothing (`Some(false)`); once it is
    /// over, waits for the next slice and gives `Some(true)`, or None if no slice comes or
    /// `wanted()` is false by then.
    pub async fn step(&mut self, wanted: &dyn Fn() -> bool) -> Option<bool> {
        if now_ms() <= self.end {
            return Some(false);
        }
        self.end = self.pace.next_slice(false).await?;
        wanted().then_some(true)
    }
}
