//! The page binary's split points (see `handwave::passes::lazy` for why they live in the
//! binary, and scripts/page-wasm.sh for how the binary is split). Each function marked
//! `#[wasm_split(<module>, …)]` is moved, with every piece of code only it reaches, into
//! `split_<module>.wasm`; a first call fetches that module, and a module that cannot be
//! fetched is an `Err`, never a panic (`fallible`).
//!
//! Each pass's section, each figure alone and each figure's guided steps are generated
//! from the registry's lines (`handwave::with_registry!`, in `state/registry.rs`): a new
//! line there is a new split point here, in the module the line names.

use handwave::app::embed::EmbedView;
use handwave::app::notices::Notices;
use handwave::passes::backprop;
use handwave::passes::lazy::{
    register_figure_loader, LazyPart, PassLoadError, PassLoaders, PendingView,
};
use handwave::state::registry::{FigureId, PassId};
use handwave::state::Notice;
use handwave::widgets::chrome::Chrome;
use handwave::widgets::share::EmbedForm;
use handwave::widgets::steps::{Step, Steps};
use handwave::widgets::FigureReadings;
use leptos::prelude::*;
use leptos::wasm_split::{wasm_split, SplitLoaderError};

/// A failed fetch of a pass's module, as the app's error.
pub struct LoadFailed;

impl From<SplitLoaderError> for LoadFailed {
    fn from(_: SplitLoaderError) -> Self {
        Self
    }
}

/// A split point's call as the app's pending view: a failed fetch is its load error.
fn pending(
    loaded: impl std::future::Future<Output = Result<AnyView, LoadFailed>> + 'static,
) -> PendingView {
    Box::pin(async move { loaded.await.map_err(|LoadFailed| PassLoadError) })
}

/// The loaders handed to the app.
pub fn loaders() -> PassLoaders {
    PassLoaders {
        section: |pass| pending(section(pass)),
        part: |part| pending(part_view(part)),
        steps: |id, readings| pending(steps_view(id, readings)),
        embed: |figure, show_controls, notices| pending(embed_view(figure, show_controls, notices)),
    }
}

/// The rest of a pass, after its section's first part.
async fn part_view(part: LazyPart) -> Result<AnyView, LoadFailed> {
    match part {
        LazyPart::BackpropDerivation => backprop_derivation().await,
    }
}

/// Pass 1 after its main figure: the derivation and `jacobian-vs-dk`.
#[wasm_split(pass1rest, wasm_split_path = ::leptos::wasm_split, fallible)]
fn backprop_derivation() -> Result<AnyView, LoadFailed> {
    Ok(view! { <backprop::derivation::Derivation /> }.into_any())
}

/// A figure's guided steps (`handwave::widgets::Steps`), in a module of their own: the
/// page shows them under a figure, so they need not be in the first load.
/// The tables live here too: only their asks are in the main module.
#[wasm_split(steps, wasm_split_path = ::leptos::wasm_split, fallible)]
fn steps_view(id: FigureId, readings: FigureReadings) -> Result<AnyView, LoadFailed> {
    let steps = steps_of(id);
    Ok(view! { <Steps figure=id steps=steps readings=readings /> }.into_any())
}

/// The page's occasional parts: the embed form and the notices about a link's values.
#[wasm_split(chrome, wasm_split_path = ::leptos::wasm_split, fallible)]
fn chrome_builders() -> Result<Chrome, LoadFailed> {
    Ok(Chrome {
        embed_form: |id, title, root, base, query| {
            view! { <EmbedForm id=id title=title root=root base=base query=query /> }.into_any()
        },
        notices: |notices| view! { <Notices notices=notices /> }.into_any(),
    })
}

/// Fetches the occasional parts' module.
pub fn chrome_loader() -> std::pin::Pin<Box<dyn std::future::Future<Output = Option<Chrome>>>> {
    Box::pin(async { chrome_builders().await.ok() })
}

/// The embed view: one figure alone (`?embed=`), with what posts its height to the page
/// around it; only embeds fetch it.
#[wasm_split(embed, wasm_split_path = ::leptos::wasm_split, fallible)]
fn embed_view(
    figure: FigureId,
    show_controls: bool,
    notices: RwSignal<Vec<Notice>>,
) -> Result<AnyView, LoadFailed> {
    register_figure_loader(|id, show_controls| pending(figure_alone(id, show_controls)));
    Ok(
        view! { <EmbedView figure=figure show_controls=show_controls notices=notices /> }
            .into_any(),
    )
}

/// Milliseconds per Pass 4 stack in this browser, the mean over `reps` runs at the page's
/// defaults (d_model 32, 2 heads, 8 tokens, pre-norm with residual) and `depth` blocks:
/// forward, backward and per-layer norms, the weights' unit draws made once beforehand
/// (as the page keeps them), a new gain each run. In Pass 4's module, so that its
/// arithmetic is not kept in the main one.
#[wasm_split(pass4, wasm_split_path = ::leptos::wasm_split, fallible)]
pub fn gradient_stack_ms(depth: u32, reps: u32) -> Result<f64, LoadFailed> {
    use handwave::math::stability::{draw_benchmark_weights, run_benchmark_stacks, WeightBank};
    let now = || {
        web_sys::window()
            .and_then(|w| w.performance())
            .map_or(0.0, |p| p.now())
    };
    let (depth, reps) = (depth.clamp(1, 256) as usize, reps.clamp(1, 1000));
    let mut bank = WeightBank::default();
    draw_benchmark_weights(&mut bank, depth);
    let t0 = now();
    run_benchmark_stacks(&mut bank, depth, 0, reps);
    Ok((now() - t0) / f64::from(reps))
}

/// A split point in module `$module` (a plain function for `main`, the first load) named
/// `$name`, building `$body`.
macro_rules! split_point {
    (main, $name:ident($($arg:ident: $ty:ty),*) => $body:expr) => {
        pub async fn $name($($arg: $ty),*) -> Result<AnyView, super::LoadFailed> {
            Ok($body)
        }
    };
    ($module:ident, $name:ident($($arg:ident: $ty:ty),*) => $body:expr) => {
        #[wasm_split($module, wasm_split_path = ::leptos::wasm_split, fallible)]
        pub fn $name($($arg: $ty),*) -> Result<AnyView, super::LoadFailed> {
            Ok($body)
        }
    };
}

/// From the registry's lines: each pass's section and each figure alone, at the split
/// point of the module its line names; the dispatch from a name to them; each figure's
/// guided steps.
macro_rules! registry_split_points {
    ($(
        pass $pass:ident($folder:ident) = $pass_id:literal, in $pass_module:ident, $pass_title:literal, $claim:literal,
        {
            $( $figure:ident($file:ident) = $figure_id:literal, in $module:ident, $title:literal $(, steps $steps:ident)?; )*
        }
    )*) => {
        /// Each pass's section, in its module.
        mod sections {
            use super::*;
            $( split_point!($pass_module, $folder() => handwave::passes::$folder::section()); )*
        }

        /// Each figure alone (the embed view), in its module.
        mod alone {
            use super::*;
            $($( split_point!($module, $file(show_controls: bool) => handwave::passes::$folder::$file::alone(show_controls)); )*)*
        }

        /// Fetches pass `pass`'s module (once) and builds its section.
        async fn section(pass: PassId) -> Result<AnyView, LoadFailed> {
            match pass {
                $( PassId::$pass => sections::$folder().await, )*
            }
        }

        /// Fetches figure `id`'s module (once) and builds it alone.
        async fn figure_alone(id: FigureId, show_controls: bool) -> Result<AnyView, LoadFailed> {
            match id {
                $($( FigureId::$figure => alone::$file(show_controls).await, )*)*
            }
        }

        /// Figure `id`'s guided steps (none for a figure without).
        fn steps_of(id: FigureId) -> &'static [Step] {
            match id {
                $($($( FigureId::$figure => &handwave::passes::$folder::steps::$steps, )?)*)*
                _ => &[],
            }
        }
    };
}

handwave::with_registry!(registry_split_points);
