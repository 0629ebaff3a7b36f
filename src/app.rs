//! The page shell: URL state in context, notices, the colour scheme, the page of sections
//! and the single-figure embed view (`?embed=<figure-id>`).

use std::time::Duration;

use leptos::prelude::*;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};

use crate::sections::backprop;
use crate::sections::lazy::{LazyFigure, LazyPass, LazySection};
use crate::state::{KeySet, Notice, Params, Recording, Theme, Value, ViewParams, PARAMS};
use crate::widgets::hooks::Palette;

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
    pub view: ViewParamsRef,
    /// Changes waiting for the next animation frame (see [`UrlState::set_on_frame`]).
    pending: StoredValue<Vec<(&'static str, Value)>>,
    /// True from a change applied in this frame until the next animation frame.
    frame_busy: StoredValue<bool>,
}

/// The view parameters, fixed for the page's life.
#[derive(Clone, Copy)]
pub struct ViewParamsRef {
    pub embed: Option<&'static str>,
    pub hide_controls: bool,
    pub theme: Option<Theme>,
}

impl From<&ViewParams> for ViewParamsRef {
    fn from(v: &ViewParams) -> Self {
        Self {
            embed: v.embed,
            hide_controls: v.hide_controls,
            theme: v.theme,
        }
    }
}

impl UrlState {
    /// A state from parsed parameters.
    pub fn new(params: Params, view: &ViewParams) -> Self {
        Self {
            params: RwSignal::new(params),
            keys: PARAMS
                .iter()
                .map(|_| ArcRwSignal::new(false))
                .collect::<Vec<_>>()
                .leak(),
            view: view.into(),
            pending: StoredValue::new(Vec::new()),
            frame_busy: StoredValue::new(false),
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
    use_context::<UrlState>()
        .unwrap_or_else(|| UrlState::new(Params::default(), &ViewParams::default()))
}

/// The colours of the scheme in use, as drawing code needs them (read once per change).
pub fn use_palette() -> Signal<Palette> {
    use_context::<RwSignal<Palette>>()
        .map(Signal::from)
        .unwrap_or_else(|| Signal::stored(Palette::read()))
}

/// The page's address without query or fragment, e.g. `https://host/course/handwave/`.
pub fn page_base_url() -> String {
    let loc = window().location();
    format!(
        "{}{}",
        loc.origin().unwrap_or_default(),
        loc.pathname().unwrap_or_default()
    )
}

const THEME_STORAGE_KEY: &str = "handwave-theme";

fn system_prefers_dark() -> bool {
    window()
        .match_media("(prefers-color-scheme: dark)")
        .ok()
        .flatten()
        .map(|m| m.matches())
        .unwrap_or(false)
}

fn stored_theme() -> Option<Theme> {
    let storage = window().local_storage().ok().flatten()?;
    match storage.get_item(THEME_STORAGE_KEY).ok().flatten()?.as_str() {
        "dark" => Some(Theme::Dark),
        "light" => Some(Theme::Light),
        _ => None,
    }
}

fn apply_theme(theme: Theme) {
    if let Some(root) = document().document_element() {
        let _ = root.set_attribute(
            "data-theme",
            if theme == Theme::Dark {
                "dark"
            } else {
                "light"
            },
        );
    }
}

/// Scrolls the element that the address's fragment names (`#stability`) into view, if
/// there is one. The page is built after the document has loaded, too late for the
/// browser's own jump to the fragment, so the app makes it once mounted, and a lazily
/// loaded pass again once it has replaced its placeholder.
pub fn scroll_to_fragment() {
    let hash = window().location().hash().unwrap_or_default();
    let Some(id) = hash.strip_prefix('#').filter(|id| !id.is_empty()) else {
        return;
    };
    let id = js_sys::decode_uri_component(id)
        .ok()
        .and_then(|s| s.as_string())
        .unwrap_or_else(|| id.to_string());
    if let Some(target) = document().get_element_by_id(&id) {
        target.scroll_into_view();
    }
}

/// Writes the current state to the address bar, replacing the history entry.
fn write_url(params: &Params, view: &ViewParamsRef) {
    let mut parts = Vec::new();
    if let Some(id) = view.embed {
        parts.push(format!("embed={id}"));
        if view.hide_controls {
            parts.push("hide=controls".to_string());
        }
    }
    if let Some(theme) = view.theme {
        parts.push(format!(
            "theme={}",
            if theme == Theme::Dark {
                "dark"
            } else {
                "light"
            }
        ));
    }
    let query = params.to_query(None);
    if !query.is_empty() {
        parts.push(query);
    }
    let loc = window().location();
    let search = if parts.is_empty() {
        String::new()
    } else {
        format!("?{}", parts.join("&"))
    };
    if loc.search().unwrap_or_default() == search {
        return;
    }
    let url = format!(
        "{}{}{}",
        loc.pathname().unwrap_or_default(),
        search,
        loc.hash().unwrap_or_default()
    );
    if let Ok(history) = window().history() {
        let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&url));
    }
}

/// Keeps the address bar in step with the state, at most one write per 150 ms
/// (browsers throttle history updates; a slider emits many events per second).
fn sync_url(state: UrlState) {
    let pending = StoredValue::new(false);
    Effect::new(move |first: Option<()>| {
        state.params.track();
        if first.is_none() || pending.get_value() {
            return;
        }
        pending.set_value(true);
        set_timeout(
            move || {
                pending.set_value(false);
                state.params.with_untracked(|p| write_url(p, &state.view));
            },
            Duration::from_millis(150),
        );
    });
}

/// In an embed, posts the page height to the parent on every size change.
fn post_height_to_parent(figure: &'static str) {
    let Some(body) = document().body() else {
        return;
    };
    let last = std::cell::Cell::new(-1.0f64);
    let callback = Closure::<dyn FnMut(js_sys::Array)>::new(move |_entries: js_sys::Array| {
        let Some(body) = document().body() else {
            return;
        };
        let height = body.get_bounding_client_rect().height().ceil();
        if (height - last.get()).abs() < 0.5 {
            return;
        }
        last.set(height);
        let message = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&message, &"type".into(), &"handwave:resize".into());
        let _ = js_sys::Reflect::set(&message, &"figure".into(), &figure.into());
        let _ = js_sys::Reflect::set(&message, &"height".into(), &height.into());
        // Only inside a frame: a top-level window is its own parent.
        if let Ok(Some(parent)) = window().parent() {
            if !js_sys::Object::is(&parent, &window()) {
                let _ = parent.post_message(&message, "*");
            }
        }
    });
    if let Ok(observer) = web_sys::ResizeObserver::new(callback.as_ref().unchecked_ref()) {
        observer.observe(&body);
    }
    callback.forget();
}

/// The list of notices about values from the URL, each dismissible.
#[component]
fn Notices(notices: RwSignal<Vec<Notice>>) -> impl IntoView {
    view! {
        <Show when=move || notices.with(|n| !n.is_empty())>
            <div class="notices" role="status" aria-live="polite" data-notices="">
                <p class="notices-head">"Some values in the link were changed:"</p>
                <ul>
                    {move || {
                        notices
                            .get()
                            .into_iter()
                            .enumerate()
                            .map(|(i, n)| {
                                view! {
                                    <li class="notice" data-notice-key=n.key.clone()>
                                        <code>{n.key.clone()}</code>
                                        ": "
                                        {n.message.clone()}
                                        <button
                                            type="button"
                                            class="button-quiet"
                                            aria-label=format!("Dismiss the notice about {}", n.key)
                                            on:click=move |_| notices.update(|v| { if i < v.len() { v.remove(i); } })
                                        >
                                            "Dismiss"
                                        </button>
                                    </li>
                                }
                            })
                            .collect_view()
                    }}
                </ul>
            </div>
        </Show>
    }
}

/// The light/dark switch: the choice is remembered in localStorage.
#[component]
fn ThemeSwitch(theme: RwSignal<Theme>) -> impl IntoView {
    view! {
        <button
            type="button"
            class="theme-switch"
            data-action="theme"
            aria-pressed=move || (theme.get() == Theme::Dark).to_string()
            on:click=move |_| {
                let next = if theme.get_untracked() == Theme::Dark { Theme::Light } else { Theme::Dark };
                theme.set(next);
                if let Ok(Some(storage)) = window().local_storage() {
                    let _ = storage.set_item(THEME_STORAGE_KEY, if next == Theme::Dark { "dark" } else { "light" });
                }
            }
        >
            "Dark mode"
        </button>
    }
}

/// The whole application: the page, or one figure in an embed.
#[component]
pub fn App() -> impl IntoView {
    let search = window().location().search().unwrap_or_default();
    let (params, view, notices) = Params::from_query(&search);
    let state = UrlState::new(params, &view);
    provide_context(state);
    let notices = RwSignal::new(notices);

    let theme = RwSignal::new(view.theme.or_else(stored_theme).unwrap_or(
        if system_prefers_dark() {
            Theme::Dark
        } else {
            Theme::Light
        },
    ));
    let palette = RwSignal::new(Palette::default());
    provide_context(palette);
    Effect::new(move |_| {
        apply_theme(theme.get());
        palette.set(Palette::read());
    });
    if view.theme.is_none() {
        if let Ok(Some(query)) = window().match_media("(prefers-color-scheme: dark)") {
            let on_change = Closure::<dyn FnMut(web_sys::MediaQueryListEvent)>::new(
                move |ev: web_sys::MediaQueryListEvent| {
                    if stored_theme().is_none() {
                        theme.set(if ev.matches() {
                            Theme::Dark
                        } else {
                            Theme::Light
                        });
                    }
                },
            );
            let _ = query
                .add_event_listener_with_callback("change", on_change.as_ref().unchecked_ref());
            on_change.forget();
        }
    }
    sync_url(state);
    request_animation_frame(scroll_to_fragment);

    match view.embed {
        Some(figure) => {
            post_height_to_parent(figure);
            if let Some(root) = document().document_element() {
                let _ = root.class_list().add_1("is-embed");
            }
            let show_controls = !view.hide_controls;
            view! {
                <main class="embed" data-embed=figure>
                    <Notices notices=notices />
                    {backprop::figure(figure, show_controls).or_else(|| {
                        LazyPass::of_figure(figure).map(|pass| {
                            view! { <LazyFigure pass=pass id=figure show_controls=show_controls /> }
                                .into_any()
                        })
                    })}
                    <p class="embed-credit">
                        <a href=page_base_url() target="_blank" rel="noopener">"handwave"</a>
                        " — the math underneath the transformer, computed live."
                    </p>
                </main>
            }
            .into_any()
        }
        None => view! {
            <a class="skip-link" href="#backprop">"Skip to the first pass"</a>
            <header class="site-header">
                <div class="site-title">
                    <h1>"handwave"</h1>
                    <p class="tagline">"The math underneath the transformer, computed live in your browser."</p>
                </div>
                <ThemeSwitch theme=theme />
            </header>
            <Notices notices=notices />
            <main class="page">
                <section class="intro" aria-label="Introduction">
                    <p>
                        "The usual stories about attention — heads specialise, the mask hides the future — are true but not the whole truth. "
                        "Each pass below takes one piece of the math, states it exactly, and lets you move it. "
                        "Every number and every pixel of every figure is computed as you watch, by the same Rust code that the tests check against independent derivations."
                    </p>
                </section>
                <backprop::BackpropSection />
                <LazySection pass=LazyPass::Complexity />
                <LazySection pass=LazyPass::LinearAlgebra />
                <LazySection pass=LazyPass::Stability />
            </main>
            <footer class="site-footer">
                <p>"Every figure can be linked in its current state, embedded alone, and exported as PNG or CSV."</p>
            </footer>
        }
        .into_any(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    fn state() -> UrlState {
        UrlState::new(Params::default(), &ViewParams::default())
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
