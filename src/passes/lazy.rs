//! Passes 2, 3 and 4 as lazily loaded WebAssembly modules.
//!
//! The page's binary (src/split_points.rs) defines the split points, generated from the
//! registry's lines: functions marked `#[wasm_split(<module>, …)]` (a pass's section, a
//! figure alone), which scripts/page-wasm.sh (wasm-split-cli) moves, with all the code
//! only they reach, into a module of their own (`split_<module>.wasm`, plus chunks shared
//! between modules) that the page fetches the first time one of them is called. The
//! first load then carries only the page shell and Pass 1's first part.
//!
//! This library never names the passes' sections itself (a call from here would make
//! them reachable from the main module, which would keep them there): the binary hands
//! its split points over as [`PassLoaders`] before it mounts the app. The split points
//! live in the binary, not here, because each is an exported wasm function, and an
//! export of the library would be linked into every binary built from it (the worker's
//! too, which would grow fourfold).
//!
//! A pass is asked for when its place on the page comes within a screen of the viewport,
//! or at once in an embed view of one of its figures. Until it arrives, its place holds
//! the section's id and title and says that it is loading; if it cannot be fetched, it
//! says so and offers to try again (a split point that fails to load returns an error
//! instead of panicking: the `fallible` option).

use std::future::Future;
use std::pin::Pin;
use std::sync::OnceLock;

use leptos::prelude::*;

use crate::state::registry::{FigureId, PassId};
use crate::state::{use_url_state, Notice};
use crate::widgets::location::{fragment_id, is_at_fragment, scroll_to_fragment};
use crate::widgets::observers::{observe_near_screen, use_printing};
use crate::widgets::{use_figure_readings, FigureReadings, PassHeading};

/// A pass's section or figure on its way: the module's fetch, then the view.
pub type PendingView = Pin<Box<dyn Future<Output = Result<AnyView, PassLoadError>>>>;

/// How the page's binary loads each pass (its split points).
#[derive(Clone, Copy)]
pub struct PassLoaders {
    /// The whole section of a pass.
    pub section: fn(PassId) -> PendingView,
    /// The guided steps of a figure (by its id, reading it through its readings), a
    /// module of their own.
    pub steps: fn(FigureId, FigureReadings) -> PendingView,
    /// A part of a pass that arrives after the rest of its section.
    pub part: fn(LazyPart) -> PendingView,
    /// The embed view (`?embed=`): one figure alone, with its notices (a module of its
    /// own, so that the page's first load does not carry it).
    pub embed: fn(FigureId, bool, RwSignal<Vec<Notice>>) -> PendingView,
}

/// Fetches the embed view's module (once) and builds the view of `figure`.
pub async fn embed_view(
    figure: FigureId,
    show_controls: bool,
    notices: RwSignal<Vec<Notice>>,
) -> Result<AnyView, PassLoadError> {
    match LOADERS.get() {
        Some(loaders) => (loaders.embed)(figure, show_controls, notices).await,
        None => Err(PassLoadError),
    }
}

/// A part of a pass loaded on demand, after the section it belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LazyPart {
    /// Pass 1 after its main figure: its derivation, `jacobian-vs-dk` and `train-scale`.
    BackpropDerivation,
}

impl LazyPart {
    /// The pass it belongs to.
    fn pass(self) -> PassId {
        match self {
            Self::BackpropDerivation => PassId::Backprop,
        }
    }

    /// Its name (`data-lazy-part`).
    fn name(self) -> &'static str {
        match self {
            Self::BackpropDerivation => "backprop-derivation",
        }
    }

    /// Whether figure `id` is in this part: a figure of its pass that the registry puts
    /// in another module than the pass's section.
    fn shows(self, id: FigureId) -> bool {
        let (figure, pass) = (id.info(), self.pass().info());
        figure.pass == pass.pass && figure.module != pass.module
    }
}

static LOADERS: OnceLock<PassLoaders> = OnceLock::new();

/// How one figure is loaded alone: its id and whether controls show.
pub type FigureLoader = fn(FigureId, bool) -> PendingView;

/// The figure loader, registered by the embed view's module (the only view that shows a
/// figure alone), so that the main module does not carry it.
static FIGURE_LOADER: OnceLock<FigureLoader> = OnceLock::new();

/// Hands the embed view the loader of single figures; call before building it.
pub fn register_figure_loader(loader: FigureLoader) {
    let _ = FIGURE_LOADER.set(loader);
}

/// Hands the binary's split points to the app; call once, before mounting it.
pub fn register_pass_loaders(loaders: PassLoaders) {
    let _ = LOADERS.set(loaders);
}

/// Fetches a pass's module (once) and builds its section.
async fn load_section(pass: PassId) -> Result<AnyView, PassLoadError> {
    match LOADERS.get() {
        Some(loaders) => (loaders.section)(pass).await,
        None => Err(PassLoadError),
    }
}

/// Fetches figure `id`'s module (once) and builds the figure alone.
async fn load_figure(id: FigureId, show_controls: bool) -> Result<AnyView, PassLoadError> {
    match FIGURE_LOADER.get() {
        Some(loader) => loader(id, show_controls).await,
        None => Err(PassLoadError),
    }
}

/// A pass's module could not be fetched or started (offline, or a host that lost a file).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PassLoadError;

/// What stands in a pass's place until its module has arrived: the section's id and
/// title, so that links to `#<id>` land and the outline is whole, and a status line.
pub fn placeholder(
    pass: PassId,
    status: AnyView,
    node: NodeRef<leptos::html::Section>,
    failed: bool,
) -> AnyView {
    let labelled_by = format!("{}-title", pass.as_str());
    view! {
        <section class="pass pass-pending" id=pass.as_str() aria-labelledby=labelled_by data-lazy-pass=pass.as_str() data-failed=failed.then_some("") node_ref=node>
            <PassHeading id=pass />
            {status}
        </section>
    }
    .into_any()
}

pub fn loading_status(pass: PassId) -> AnyView {
    view! { <p class="pass-status" role="status">{format!("Loading Pass {}…", pass.info().number)}</p> }.into_any()
}

/// The message and retry button shown where a pass could not be fetched.
pub fn failed_status(pass: PassId, attempt: RwSignal<u32>) -> AnyView {
    try_again(
        format!(
            "Pass {} could not be loaded (are you offline?). ",
            pass.info().number
        ),
        attempt,
        None,
    )
}

/// What stands where a module could not be fetched: what failed, and a button that asks
/// for it again. The one markup of the page's three lazy loaders; a part carries its name
/// (`data-lazy-part`) and `data-failed`.
fn try_again(message: String, attempt: RwSignal<u32>, part: Option<&'static str>) -> AnyView {
    view! {
        <p class="pass-status pass-failed" role="alert" data-lazy-part=part data-failed=part.map(|_| "")>
            {message}
            <button type="button" class="button-quiet" on:click=move |_| attempt.update(|a| *a += 1)>"Try again"</button>
        </p>
    }
    .into_any()
}

/// Whether the address's fragment is one that `names` (a section id or a figure id): a
/// link to a lazy block loads it at once, wherever it is on the page.
fn fragment_names(names: impl Fn(&str) -> bool) -> bool {
    fragment_id().is_some_and(|f| names(&f))
}

/// Whether the address's fragment is one that `names`, now and after every change of the
/// fragment (an in-page link, or the address edited): a link to a figure of a pass not yet
/// here fetches the pass and lands on the figure, as a fresh load of that link does.
fn use_linked(names: impl Fn(&str) -> bool + Copy + 'static) -> RwSignal<bool> {
    let linked = RwSignal::new(fragment_names(names));
    let handle = window_event_listener(leptos::ev::hashchange, move |_| {
        if fragment_names(names) {
            linked.try_set(true);
        }
    });
    let handle = send_wrapper::SendWrapper::new(handle);
    on_cleanup(move || handle.take().remove());
    linked
}

/// The page's one lazy loader: until `wanted`, `pending` holds the place; then `loading`
/// while `load` fetches the module and builds the view; `arrived(ok)` runs once it is
/// there (or has failed); a failure shows `failed`, whose "Try again" loads again.
/// Used for a pass's section, the rest of a pass, a figure's guided steps, and a figure
/// alone in the embed view.
fn lazily(
    wanted: Memo<bool>,
    pending: impl Fn() -> AnyView + Copy + Send + Sync + 'static,
    loading: impl Fn() -> AnyView + Copy + Send + Sync + 'static,
    load: impl Fn() -> PendingView + Copy + Send + Sync + 'static,
    arrived: impl Fn(bool) + Copy + Send + Sync + 'static,
    failed: impl Fn(RwSignal<u32>) -> AnyView + Copy + Send + Sync + 'static,
) -> AnyView {
    let attempt = RwSignal::new(0_u32);
    view! {
        <Show when=move || wanted.get() fallback=pending>
            <Suspense fallback=loading>
                {move || {
                    attempt.track();
                    Suspend::new(send_wrapper::SendWrapper::new(async move {
                        let loaded = load().await;
                        arrived(loaded.is_ok());
                        loaded.unwrap_or_else(|PassLoadError| failed(attempt))
                    }))
                }}
            </Suspense>
        </Show>
    }
    .into_any()
}

/// Wanted once `near`, `linked` or `printing` (or `opened`) has been true: once asked for,
/// a lazy block stays (scrolling away must not unload what the reader saw).
fn wanted_once(
    near: RwSignal<bool>,
    also: impl Fn() -> bool + Send + Sync + 'static,
) -> Memo<bool> {
    Memo::new(move |was: Option<&bool>| was.copied().unwrap_or(false) || near.get() || also())
}

/// After a block arrived above the screen, or for a link to it: the page goes (back) to the
/// fragment, which the block's height would otherwise push away.
fn keep_fragment(linked: RwSignal<bool>, rect: Option<web_sys::DomRect>) {
    if linked.get_untracked() || (is_above_screen(rect) && is_at_fragment()) {
        request_animation_frame(scroll_to_fragment);
    }
}

/// A lazily loaded section: a placeholder until it comes within a screen of the viewport,
/// then the pass itself once its module has been fetched.
#[component]
pub fn LazySection(pass: PassId) -> impl IntoView {
    let node = NodeRef::<leptos::html::Section>::new();
    let near = RwSignal::new(false);
    observe_near_screen(node, near, "100% 0px");
    // Printing asks for every pass: one not yet here is fetched for the next printout.
    let printing = use_printing();
    // Its section, or one of its figures.
    let linked = use_linked(move |f| {
        f == pass.as_str() || FigureId::parse(f).is_some_and(|id| id.info().pass == pass)
    });
    let wanted = wanted_once(near, move || linked.get() || printing.get());
    let loading = NodeRef::<leptos::html::Section>::new();
    lazily(
        wanted,
        move || placeholder(pass, loading_status(pass), node, false),
        move || placeholder(pass, loading_status(pass), loading, false),
        move || Box::pin(load_section(pass)),
        // Its own fragment, or one below that the page stands at and that this section's
        // height would push away (a section that failed leaves the page where it is).
        move |ok| {
            if ok {
                keep_fragment(linked, rect_of(loading));
            }
        },
        move |attempt| placeholder(pass, failed_status(pass, attempt), NodeRef::new(), true),
    )
}

/// One figure alone (the embed view), its module fetched at once.
#[component]
pub fn LazyFigure(id: FigureId, show_controls: bool) -> impl IntoView {
    let status =
        || view! { <p class="pass-status" role="status">"Loading the figure…"</p> }.into_any();
    lazily(
        Memo::new(|_| true),
        status,
        status,
        move || Box::pin(load_figure(id, show_controls)),
        |_| {},
        move |attempt| failed_status(id.info().pass, attempt),
    )
}

/// How near the screen the rest of a pass is fetched: a quarter of a screen ahead.
const PART_NEAR: &str = "0px 0px 25% 0px";

/// A part of a pass (see [`LazyPart`]): a placeholder a screen tall until it comes near
/// the screen, then the part, whose code and text arrive as a module of their own.
#[component]
pub fn LazyPart(part: LazyPart) -> impl IntoView {
    let node = NodeRef::<leptos::html::Div>::new();
    let near = RwSignal::new(false);
    observe_near_screen(node, near, PART_NEAR);
    let printing = use_printing();
    // One of its figures.
    let linked = use_linked(move |f| FigureId::parse(f).is_some_and(|id| part.shows(id)));
    let wanted = wanted_once(near, move || linked.get() || printing.get());
    let loading = NodeRef::<leptos::html::Div>::new();
    let name = part.name();
    lazily(
        wanted,
        move || part_placeholder(Some(name), node),
        move || part_placeholder(None, loading),
        move || match LOADERS.get() {
            Some(loaders) => (loaders.part)(part),
            None => Box::pin(async { Err(PassLoadError) }),
        },
        // The page went to a later fragment before this part arrived above it: the part's
        // height would push the target away.
        move |_| keep_fragment(linked, rect_of(loading)),
        move |attempt| {
            try_again(
                "The rest of this pass could not be loaded (are you offline?). ".into(),
                attempt,
                Some(name),
            )
        },
    )
}

/// What stands in a part's place until it arrives; named (`data-lazy-part`) until it is
/// asked for.
fn part_placeholder(name: Option<&'static str>, node: NodeRef<leptos::html::Div>) -> AnyView {
    view! {
        <div class="part-pending" data-lazy-part=name node_ref=node>
            <p class="pass-status" role="status">"Loading the rest of this pass…"</p>
        </div>
    }
    .into_any()
}

/// Where the element of `node` is, if it is on the page.
fn rect_of<E>(node: NodeRef<E>) -> Option<web_sys::DomRect>
where
    E: leptos::html::ElementType,
    E::Output: wasm_bindgen::JsCast + Clone + 'static,
{
    use wasm_bindgen::JsCast;
    node.get_untracked().and_then(|el| {
        el.dyn_ref::<web_sys::Element>()
            .map(|e| e.get_bounding_client_rect())
    })
}

/// Whether a box starts above the top of the viewport (so that, growing, it pushes down
/// what the viewport shows).
fn is_above_screen(rect: Option<web_sys::DomRect>) -> bool {
    rect.is_some_and(|r| r.top() < 0.0)
}

/// The guided steps as they will look, without their behaviour: their place on the page
/// keeps its height when they load (an embed's first height is its last).
fn steps_placeholder(
    asks: &'static [&'static str],
    node: NodeRef<leptos::html::Div>,
) -> impl IntoView {
    let items = asks
        .iter()
        .map(|ask| view! { <li><span class="step-ask">{*ask}</span></li> })
        .collect_view();
    view! {
        <div class="steps steps-pending" node_ref=node aria-hidden="true">
            <p class="steps-head"><strong>"Try it"</strong>{format!(" — {} steps", asks.len())}</p>
            <ol class="steps-list">{items}</ol>
            <p class="steps-said"></p>
            <div class="steps-actions">
                <button type="button" disabled=true tabindex="-1">"Back"</button>
                <button type="button" disabled=true tabindex="-1">"Start"</button>
            </div>
        </div>
    }
}

/// How near the screen a figure's guided steps are fetched (they sit under its drawing).
const STEPS_NEAR: &str = "0px 0px 25% 0px";

/// The guided steps of figure `id`: a placeholder of their size until they come near the
/// screen (or at once where the address opens the figure at a step), then the steps,
/// whose code arrives as a module of its own.
#[component]
pub fn LazySteps(
    id: FigureId,
    /// What each step asks (the pass's `ASKS`), shown until the steps arrive.
    asks: &'static [&'static str],
) -> impl IntoView {
    let node = NodeRef::<leptos::html::Div>::new();
    let near = RwSignal::new(false);
    observe_near_screen(node, near, STEPS_NEAR);
    let opened_here = use_url_state()
        .step
        .get_untracked()
        .is_some_and(|(figure, _)| figure == id);
    let wanted = wanted_once(near, move || opened_here);
    // Steps belong to a figure: outside one (a mistake the end-to-end tests of every strip
    // would show) they are not offered.
    let Some(readings) = use_figure_readings() else {
        return ().into_any();
    };
    lazily(
        wanted,
        move || steps_placeholder(asks, node).into_any(),
        move || steps_placeholder(asks, NodeRef::new()).into_any(),
        move || match LOADERS.get() {
            Some(loaders) => (loaders.steps)(id, readings),
            None => Box::pin(async { Err(PassLoadError) }),
        },
        |_| {},
        |attempt| {
            try_again(
                "The guided steps could not be loaded (are you offline?). ".into(),
                attempt,
                None,
            )
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rest_of_pass_1_shows_the_figures_the_registry_puts_in_its_module() {
        let part: Vec<FigureId> = FigureId::ALL
            .into_iter()
            .filter(|&id| LazyPart::BackpropDerivation.shows(id))
            .collect();
        assert_eq!(part, [FigureId::JacobianVsDk, FigureId::TrainScale]);
        assert!(part.iter().all(|id| id.info().pass == PassId::Backprop));
    }
}
