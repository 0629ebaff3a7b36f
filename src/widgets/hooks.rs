//! Browser plumbing behind small hooks: element size, device pixel ratio, theme colours,
//! and the draw marks the benchmarks and end-to-end tests read.

use leptos::prelude::*;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{HtmlCanvasElement, HtmlElement};

/// The CSS-pixel width of an element, kept current by a ResizeObserver.
/// Starts at `initial` until the element is measured.
pub fn use_element_width<E>(node: NodeRef<E>, initial: f64) -> ReadSignal<f64>
where
    E: leptos::html::ElementType,
    E::Output: JsCast + Clone + 'static,
{
    let (width, set_width) = signal(initial);
    Effect::new(move |_| {
        let Some(el) = node.get() else { return };
        let Ok(el) = el.dyn_into::<web_sys::Element>() else {
            return;
        };
        let measured = el.get_bounding_client_rect().width();
        if measured > 0.0 {
            set_width.set(measured);
        }
        let callback = Closure::<dyn FnMut(js_sys::Array)>::new(move |entries: js_sys::Array| {
            if let Some(entry) = entries.get(0).dyn_ref::<web_sys::ResizeObserverEntry>() {
                let w = entry.content_rect().width();
                // `try_`: a last notice may arrive as the component goes away.
                if w > 0.0
                    && width
                        .try_get_untracked()
                        .is_some_and(|old| (w - old).abs() >= 0.5)
                {
                    set_width.try_set(w);
                }
            }
        });
        if let Ok(observer) = web_sys::ResizeObserver::new(callback.as_ref().unchecked_ref()) {
            observer.observe(&el);
            disconnect_on_cleanup(move || observer.disconnect(), callback);
        }
    });
    width
}

/// The device pixel ratio, at least 1.
pub fn device_pixel_ratio() -> f64 {
    window().device_pixel_ratio().max(1.0)
}

/// Sizes a canvas's backing store to its CSS size times the device pixel ratio,
/// so drawing stays crisp. Returns the ratio used.
pub fn fit_canvas(canvas: &HtmlCanvasElement, css_width: f64, css_height: f64) -> f64 {
    let dpr = device_pixel_ratio();
    let (w, h) = (
        (css_width * dpr).round().max(1.0) as u32,
        (css_height * dpr).round().max(1.0) as u32,
    );
    // Touch the canvas only when its size changes: a style write invalidates layout, and
    // setting width/height clears the backing store.
    if canvas.width() != w || canvas.height() != h {
        canvas.set_width(w);
        canvas.set_height(h);
        let style = web_sys::HtmlElement::style(canvas);
        let _ = style.set_property("width", &format!("{css_width}px"));
        let _ = style.set_property("height", &format!("{css_height}px"));
    }
    dpr
}

/// Reads a CSS custom property (e.g. `--c-fg`) as an RGB triple; `fallback` if absent.
pub fn css_color(element: &web_sys::Element, name: &str, fallback: (u8, u8, u8)) -> (u8, u8, u8) {
    let Ok(Some(style)) = window().get_computed_style(element) else {
        return fallback;
    };
    let Ok(value) = style.get_property_value(name) else {
        return fallback;
    };
    parse_hex_color(value.trim()).unwrap_or(fallback)
}

/// Parses `#rgb` or `#rrggbb`.
pub fn parse_hex_color(text: &str) -> Option<(u8, u8, u8)> {
    let hex = text.strip_prefix('#')?;
    let digits: Vec<u8> = hex
        .chars()
        .map(|c| c.to_digit(16).map(|d| d as u8))
        .collect::<Option<_>>()?;
    match digits.len() {
        3 => Some((digits[0] * 17, digits[1] * 17, digits[2] * 17)),
        6 => Some((
            digits[0] * 16 + digits[1],
            digits[2] * 16 + digits[3],
            digits[4] * 16 + digits[5],
        )),
        _ => None,
    }
}

thread_local! {
    /// The page's Performance object, fetched once: sliced work asks the time after
    /// every block, and `window.performance` is a call into JS that makes a new handle.
    static PERFORMANCE: Option<web_sys::Performance> = window().performance();
}

/// Milliseconds since navigation (0 where there is no Performance API).
pub fn now_ms() -> f64 {
    PERFORMANCE.with(|p| p.as_ref().map(|p| p.now()).unwrap_or(0.0))
}

/// Records that a canvas finished drawing, having started at `started_ms`: bumps its
/// `data-draws` counter, stores the time in `data-drawn-at` and the drawing's own cost in
/// `data-draw-ms`. Benchmarks and tests read these.
pub fn mark_drawn(canvas: &HtmlElement, started_ms: f64) {
    let count = canvas
        .get_attribute("data-draws")
        .and_then(|c| c.parse::<u64>().ok())
        .unwrap_or(0)
        + 1;
    let _ = canvas.set_attribute("data-draws", &count.to_string());
    let now = now_ms();
    let _ = canvas.set_attribute("data-drawn-at", &format!("{now:.3}"));
    let _ = canvas.set_attribute("data-draw-ms", &format!("{:.3}", now - started_ms));
}

/// The theme's colours, read once per theme change from the CSS custom properties on
/// `<html>` (reading computed style inside a draw would force a style recalculation).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Palette {
    pub bg: (u8, u8, u8),
    pub fg: (u8, u8, u8),
    pub muted: (u8, u8, u8),
    pub grid: (u8, u8, u8),
    pub coral: (u8, u8, u8),
    pub blue: (u8, u8, u8),
    pub green: (u8, u8, u8),
    pub purple: (u8, u8, u8),
    pub gold: (u8, u8, u8),
}

impl Default for Palette {
    fn default() -> Self {
        Palette {
            bg: (255, 255, 255),
            fg: (29, 29, 31),
            muted: (95, 99, 104),
            grid: (227, 225, 220),
            coral: (217, 84, 63),
            blue: (42, 111, 191),
            green: (46, 139, 87),
            purple: (123, 79, 184),
            gold: (183, 134, 11),
        }
    }
}

impl Palette {
    /// Reads the palette from the document's root element.
    pub fn read() -> Self {
        let d = Palette::default();
        let Some(root) = document().document_element() else {
            return d;
        };
        Palette {
            bg: css_color(&root, "--c-surface", d.bg),
            fg: css_color(&root, "--c-fg", d.fg),
            muted: css_color(&root, "--c-muted", d.muted),
            grid: css_color(&root, "--c-grid", d.grid),
            coral: css_color(&root, "--c-coral", d.coral),
            blue: css_color(&root, "--c-blue", d.blue),
            green: css_color(&root, "--c-green", d.green),
            purple: css_color(&root, "--c-purple", d.purple),
            gold: css_color(&root, "--c-gold", d.gold),
        }
    }
}

/// CSS `rgb()` text of a colour.
pub fn css_rgb((r, g, b): (u8, u8, u8)) -> String {
    format!("rgb({r},{g},{b})")
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_colours_parse() {
        assert_eq!(parse_hex_color("#ff8000"), Some((255, 128, 0)));
        assert_eq!(parse_hex_color("#fff"), Some((255, 255, 255)));
        assert_eq!(parse_hex_color("red"), None);
    }
}
