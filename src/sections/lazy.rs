//! Passes 2, 3 and 4 as lazily loaded WebAssembly modules.
//!
//! The page's binary (src/split_points.rs) defines one split point per pass: functions
//! marked `#[wasm_split(passN, …)]`, which scripts/page-wasm.sh (wasm-split-cli) moves,
//! with all the code only they reach, into a module of their own (`split_passN.wasm`,
//! plus chunks shared between passes) that the page fetches the first time one of them
//! is called. The first load then carries only the page shell and Pass 1.
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

use crate::widgets::hooks::observe_near_screen;

/// A pass's section or figure on its way: the module's fetch, then the view.
pub type PendingView = Pin<Box<dyn Future<Output = Result<AnyView, PassLoadError>>>>;

/// How the page's binary loads each pass (its split points).
#[derive(Clone, Copy)]
pub struct PassLoaders {
    /// The whole section of a pass.
    pub section: fn(LazyPass) -> PendingView,
    /// One figure of a pass alone (the embed view): its id and whether controls show.
    pub figure: fn(LazyPass, &'static str, bool) -> PendingView,
}

static LOADERS: OnceLock<PassLoaders> = OnceLock::new();

/// Hands the binary's split points to the app; call once, before mounting it.
pub fn register_pass_loaders(loaders: PassLoaders) {
    let _ = LOADERS.set(loaders);
}

/// A pass whose code is loaded on demand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LazyPass {
    Complexity,
    LinearAlgebra,
    Stability,
}

impl LazyPass {
    /// Every lazily loaded pass, in page order.
    pub const ALL: [LazyPass; 3] = [Self::Complexity, Self::LinearAlgebra, Self::Stability];

    /// The section id (a public contract: links end in `#<id>`).
    pub fn section_id(self) -> &'static str {
        match self {
            Self::Complexity => "complexity",
            Self::LinearAlgebra => "linear-algebra",
            Self::Stability => "stability",
        }
    }

    fn number(self) -> &'static str {
        match self {
            Self::Complexity => "Pass 2",
            Self::LinearAlgebra => "Pass 3",
            Self::Stability => "Pass 4",
        }
    }

    fn title(self) -> &'static str {
        match self {
            Self::Complexity => " Complexity: why context is expensive",
            Self::LinearAlgebra => " Linear algebra: a rank-dₖ object in an n×n costume",
            Self::Stability => " Stability: why deep stacks train at all",
        }
    }

    /// The figure ids of this pass (those its embed view can show).
    pub fn figure_ids(self) -> &'static [&'static str] {
        match self {
            Self::Complexity => &[
                "memory-vs-context",
                "flops-vs-context",
                "measured-attention",
            ],
            Self::LinearAlgebra => &["score-rank", "low-rank-target", "multi-head", "lora"],
            Self::Stability => &["gradient-flow", "gradient-ab", "depth-sweep"],
        }
    }

    /// The pass that shows figure `id`, if a lazily loaded one does.
    pub fn of_figure(id: &str) -> Option<LazyPass> {
        Self::ALL.into_iter().find(|p| p.figure_ids().contains(&id))
    }

    /// Fetches this pass's module (once) and builds its section.
    async fn section(self) -> Result<AnyView, PassLoadError> {
        match LOADERS.get() {
            Some(loaders) => (loaders.section)(self).await,
            None => Err(PassLoadError),
        }
    }

    /// Fetches this pass's module (once) and builds figure `id` alone.
    async fn figure(self, id: &'static str, show_controls: bool) -> Result<AnyView, PassLoadError> {
        match LOADERS.get() {
            Some(loaders) => (loaders.figure)(self, id, show_controls).await,
            None => Err(PassLoadError),
        }
    }
}

/// A pass's module could not be fetched or started (offline, or a host that lost a file).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PassLoadError;

/// What stands in a pass's place until its module has arrived: the section's id and
/// title, so that links to `#<id>` land and the outline is whole, and a status line.
fn placeholder(
    pass: LazyPass,
    status: AnyView,
    node: NodeRef<leptos::html::Section>,
    failed: bool,
) -> AnyView {
    let title_id = format!("{}-title", pass.section_id());
    let labelled_by = title_id.clone();
    view! {
        <section class="pass pass-pending" id=pass.section_id() aria-labelledby=labelled_by data-lazy-pass=pass.section_id() data-failed=failed.then_some("") node_ref=node>
            <h2 id=title_id><span class="pass-number">{pass.number()}</span>{pass.title()}</h2>
            {status}
        </section>
    }
    .into_any()
}

fn loading_status(pass: LazyPass) -> AnyView {
    view! { <p class="pass-status" role="status">"Loading " {pass.number()} "…"</p> }.into_any()
}

/// The message and retry button shown where a pass could not be fetched.
fn failed_status(pass: LazyPass, attempt: RwSignal<u32>) -> AnyView {
    view! {
        <p class="pass-status pass-failed" role="alert">
            {pass.number()} " could not be loaded (are you offline?). "
            <button type="button" class="button-quiet" on:click=move |_| attempt.update(|a| *a += 1)>"Try again"</button>
        </p>
    }
    .into_any()
}

/// Whether the address's fragment names this section (`#<id>`).
fn fragment_is(id: &str) -> bool {
    window()
        .location()
        .hash()
        .is_ok_and(|hash| hash.strip_prefix('#') == Some(id))
}

/// A lazily loaded section: a placeholder until it comes within a screen of the viewport,
/// then the pass itself once its module has been fetched.
#[component]
pub fn LazySection(pass: LazyPass) -> impl IntoView {
    let node = NodeRef::<leptos::html::Section>::new();
    let near = RwSignal::new(false);
    observe_near_screen(node, near, "100% 0px");
    // Once asked for, a pass stays: scrolling away must not unload what the reader saw.
    let wanted = Memo::new(move |was: Option<&bool>| was.copied().unwrap_or(false) || near.get());
    let attempt = RwSignal::new(0_u32);
    view! {
        <Show when=move || wanted.get() fallback=move || placeholder(pass, loading_status(pass), node, false)>
            <Suspense fallback=move || placeholder(pass, loading_status(pass), NodeRef::new(), false)>
                {move || {
                    attempt.track();
                    Suspend::new(send_wrapper::SendWrapper::new(async move {
                        match pass.section().await {
                            Ok(section) => {
                                if fragment_is(pass.section_id()) {
                                    request_animation_frame(crate::app::scroll_to_fragment);
                                }
                                section
                            }
                            Err(PassLoadError) => placeholder(pass, failed_status(pass, attempt), NodeRef::new(), true),
                        }
                    }))
                }}
            </Suspense>
        </Show>
    }
}

/// One figure of a lazily loaded pass alone (the embed view), fetched at once.
#[component]
pub fn LazyFigure(pass: LazyPass, id: &'static str, show_controls: bool) -> impl IntoView {
    let attempt = RwSignal::new(0_u32);
    view! {
        <Suspense fallback=move || view! { <p class="pass-status" role="status">"Loading the figure…"</p> }>
            {move || {
                attempt.track();
                Suspend::new(send_wrapper::SendWrapper::new(async move {
                    match pass.figure(id, show_controls).await {
                        Ok(figure) => figure,
                        Err(PassLoadError) => failed_status(pass, attempt),
                    }
                }))
            }}
        </Suspense>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_lazy_figure_id_belongs_to_exactly_one_pass() {
        let ids: Vec<_> = LazyPass::ALL
            .iter()
            .flat_map(|p| p.figure_ids().iter().copied())
            .collect();
        for id in &ids {
            assert_eq!(ids.iter().filter(|i| *i == id).count(), 1, "{id}");
            assert!(LazyPass::of_figure(id).is_some());
        }
        assert_eq!(
            LazyPass::of_figure("jacobian"),
            None,
            "Pass 1 is in the main module"
        );
    }
}
