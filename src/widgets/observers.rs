//! Browser observers behind small hooks: an element's width (ResizeObserver), whether it
//! is near the screen (IntersectionObserver), and web fonts arriving. Each disconnects
//! itself when its owner is cleaned up.

use leptos::prelude::*;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;

/// The CSS-pixel width of an element, kept current by a ResizeObserver.
/// Starts at `initial` until the element is measured.
pub fn use_element_width<E>(node: NodeRef<E>, initial: f64) -> ReadSignal<f64>
where
    E: leptos::html::ElementType,
    E::Output: JsCast + Clone + 'static,
{
    let (width, set_width) = signal(initial);
    // `try_`: a last measurement may arrive as the component goes away.
    let set_if_changed = move |w: f64| {
        if w > 0.0
            && width
                .try_get_untracked()
                .is_some_and(|old| (w - old).abs() >= 0.5)
        {
            set_width.try_set(w);
        }
    };
    Effect::new(move |_| {
        let Some(el) = node.get() else { return };
        let Ok(el) = el.dyn_into::<web_sys::Element>() else {
            return;
        };
        let measured = el.get_bounding_client_rect().width();
        if measured > 0.0 {
            set_width.set(measured);
        } else {
            // Not in the document yet (a view built before it is inserted, as a lazily
            // loaded pass is): measure before the first frame is painted, so that nothing
            // is drawn at the initial width first and the figure's height is final from
            // its first frame. A frame that is off the screen (an embed below the fold of
            // a page on another origin) gets no animation frames until it is scrolled to:
            // a timer measures it too, whichever comes first.
            let measure = {
                let el = el.clone();
                move || set_if_changed(el.get_bounding_client_rect().width())
            };
            request_animation_frame(measure.clone());
            set_timeout(measure, std::time::Duration::ZERO);
        }
        let callback = Closure::<dyn FnMut(js_sys::Array)>::new(move |entries: js_sys::Array| {
            if let Some(entry) = entries.get(0).dyn_ref::<web_sys::ResizeObserverEntry>() {
                set_if_changed(entry.content_rect().width());
            }
        });
        if let Ok(observer) = web_sys::ResizeObserver::new(callback.as_ref().unchecked_ref()) {
            observer.observe(&el);
            disconnect_on_cleanup(move || observer.disconnect(), callback);
        }
    });
    width
}

/// Keeps `on_screen` true while `node` is within 200 px of the viewport (an
/// IntersectionObserver), so heavy figures compute only when a reader can see them.
/// Where the observer is unavailable, the figure counts as always on screen.
pub fn observe_on_screen<E>(node: NodeRef<E>, on_screen: RwSignal<bool>)
where
    E: leptos::html::ElementType,
    E::Output: JsCast + Clone + 'static,
{
    observe_near_screen(node, on_screen, "200px 0px");
}

/// Keeps `near` true while `node` is within `margin` (a CSS margin, e.g. `"100% 0px"`) of
/// the viewport. Where the observer is unavailable, `node` counts as always near.
pub fn observe_near_screen<E>(node: NodeRef<E>, on_screen: RwSignal<bool>, margin: &'static str)
where
    E: leptos::html::ElementType,
    E::Output: JsCast + Clone + 'static,
{
    Effect::new(move |_| {
        let Some(el) = node.get() else { return };
        let Ok(el) = el.dyn_into::<web_sys::Element>() else {
            return;
        };
        let callback = Closure::<dyn FnMut(js_sys::Array)>::new(move |entries: js_sys::Array| {
            if let Some(entry) = entries
                .iter()
                .last()
                .and_then(|e| e.dyn_into::<web_sys::IntersectionObserverEntry>().ok())
            {
                let visible = entry.is_intersecting();
                if on_screen
                    .try_get_untracked()
                    .is_some_and(|now| now != visible)
                {
                    on_screen.try_set(visible);
                }
            }
        });
        let options = web_sys::IntersectionObserverInit::new();
        options.set_root_margin(margin);
        match web_sys::IntersectionObserver::new_with_options(
            callback.as_ref().unchecked_ref(),
            &options,
        ) {
            Ok(observer) => {
                observer.observe(&el);
                disconnect_on_cleanup(move || observer.disconnect(), callback);
            }
            Err(_) => on_screen.set(true),
        }
    });
}

/// Runs `f` each time the page finishes loading fonts (`loadingdone` on `document.fonts`),
/// until the current owner is cleaned up: text set in a web font changes size then.
pub fn on_fonts_loaded(f: impl Fn() + 'static) {
    let fonts = document().fonts();
    let callback = Closure::<dyn FnMut()>::new(f);
    if fonts
        .add_event_listener_with_callback("loadingdone", callback.as_ref().unchecked_ref())
        .is_ok()
    {
        let remove = {
            let listener: js_sys::Function = callback
                .as_ref()
                .unchecked_ref::<js_sys::Function>()
                .clone();
            move || {
                let _ = fonts.remove_event_listener_with_callback("loadingdone", &listener);
            }
        };
        disconnect_on_cleanup(remove, callback);
    }
}

/// When the current owner (an effect, a component) is cleaned up, runs `disconnect` and
/// frees the observer's callback: a removed figure leaves no observer, closure or
/// detached element behind, and no late callback touches its disposed signals.
fn disconnect_on_cleanup<F: ?Sized + 'static>(
    disconnect: impl FnOnce() + 'static,
    callback: Closure<F>,
) {
    let parts =
        send_wrapper::SendWrapper::new((Box::new(disconnect) as Box<dyn FnOnce()>, callback));
    on_cleanup(move || {
        let (disconnect, callback) = parts.take();
        disconnect();
        drop(callback);
    });
}

thread_local! {
    /// Whether the page is being printed, created with its listeners on first use.
    static PRINTING: std::cell::RefCell<Option<ArcRwSignal<bool>>> = const { std::cell::RefCell::new(None) };
}

/// True from the moment the page is about to be printed (`beforeprint`, or the print
/// media query matching, as a headless browser's PDF does) until it is printed
/// (`afterprint`, or the query no longer matching): content put in only near the screen
/// goes in whole then. One signal and one set of listeners for the page.
pub fn use_printing() -> Signal<bool> {
    if let Some(printing) = PRINTING.with_borrow(|p| p.clone()) {
        return printing.into();
    }
    // Reference-counted, not owned by the component that asked first: the page's only
    // print signal outlives any one component (an owned one was disposed with the first
    // component that asked, and every later reader panicked).
    let printing = ArcRwSignal::new(false);
    PRINTING.with_borrow_mut(|p| *p = Some(printing.clone()));
    let set = {
        let printing = printing.clone();
        move |on: bool| {
            if printing.get_untracked() != on {
                printing.set(on);
            }
        }
    };
    let before = {
        let set = set.clone();
        Closure::<dyn FnMut()>::new(move || set(true))
    };
    let after = {
        let set = set.clone();
        Closure::<dyn FnMut()>::new(move || set(false))
    };
    let _ =
        window().add_event_listener_with_callback("beforeprint", before.as_ref().unchecked_ref());
    let _ = window().add_event_listener_with_callback("afterprint", after.as_ref().unchecked_ref());
    before.forget();
    after.forget();
    if let Ok(Some(query)) = window().match_media("print") {
        let on_change = Closure::<dyn FnMut(web_sys::MediaQueryListEvent)>::new(
            move |ev: web_sys::MediaQueryListEvent| set(ev.matches()),
        );
        let _ =
            query.add_event_listener_with_callback("change", on_change.as_ref().unchecked_ref());
        on_change.forget();
    }
    printing.into()
}
