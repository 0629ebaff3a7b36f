//! The page binary's split points: one lazily loaded module per pass (see
//! `handwave::passes::lazy` for why they live in the binary, and scripts/page-wasm.sh
//! for how the binary is split). Each function is moved, with every piece of code only it
//! reaches, into `split_passN.wasm`; a first call fetches that module, and a module that
//! cannot be fetched is an `Err`, never a panic (`fallible`).

use handwave::app::embed::EmbedView;
use handwave::app::notices::Notices;
use handwave::passes::lazy::{
    register_figure_loader, LazyPart, LazyPass, PassLoadError, PassLoaders,
};
use handwave::passes::{backprop, complexity, linear_algebra, stability};
use handwave::state::registry::FigureId;
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

/// The loaders handed to the app.
pub fn loaders() -> PassLoaders {
    PassLoaders {
        section: |pass| Box::pin(section(pass)),
        part: |part| {
            Box::pin(async move { part_view(part).await.map_err(|LoadFailed| PassLoadError) })
        },
        steps: |id, readings| {
            Box::pin(async move {
                steps_view(id, readings)
                    .await
                    .map_err(|LoadFailed| PassLoadError)
            })
        },
        embed: |figure, show_controls, notices| {
            Box::pin(async move {
                embed_view(figure, show_controls, notices)
                    .await
                    .map_err(|LoadFailed| PassLoadError)
            })
        },
    }
}

async fn section(pass: LazyPass) -> Result<AnyView, PassLoadError> {
    let view = match pass {
        LazyPass::Complexity => complexity_section().await,
        LazyPass::LinearAlgebra => linear_algebra_section().await,
        LazyPass::Stability => stability_section().await,
        LazyPass::BackpropDerivation => part_view(LazyPart::BackpropDerivation).await,
    };
    view.map_err(|LoadFailed| PassLoadError)
}

async fn pass_figure(
    pass: LazyPass,
    id: FigureId,
    show_controls: bool,
) -> Result<AnyView, PassLoadError> {
    let figure = match pass {
        LazyPass::Complexity => complexity_figure(id, show_controls).await,
        LazyPass::LinearAlgebra => linear_algebra_figure(id, show_controls).await,
        LazyPass::Stability => stability_figure(id, show_controls).await,
        LazyPass::BackpropDerivation => backprop_part_figure(id, show_controls).await.map(Some),
    };
    figure
        .map(|f| f.unwrap_or_else(|| ().into_any()))
        .map_err(|LoadFailed| PassLoadError)
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

#[wasm_split(pass1rest, wasm_split_path = ::leptos::wasm_split, fallible)]
fn backprop_part_figure(id: FigureId, show_controls: bool) -> Result<AnyView, LoadFailed> {
    Ok(backprop::derivation::part_figure(id, show_controls))
}

/// A figure's guided steps (`handwave::widgets::Steps`), in a module of their own: the
/// page shows them under a figure, so they need not be in the first load.
/// The tables live here too: only their asks are in the main module.
#[wasm_split(steps, wasm_split_path = ::leptos::wasm_split, fallible)]
fn steps_view(id: FigureId, readings: FigureReadings) -> Result<AnyView, LoadFailed> {
    let steps: &'static [Step] = match id {
        FigureId::Jacobian => &backprop::steps::STEPS,
        FigureId::TrainScale => &backprop::steps::TRAIN_STEPS,
        FigureId::MemoryVsContext => &complexity::steps::STEPS,
        FigureId::ScoreRank => &linear_algebra::steps::STEPS,
        FigureId::FinetuneMemory => &linear_algebra::steps::FINETUNE_STEPS,
        FigureId::GradientFlow => &stability::steps::STEPS,
        FigureId::TrainDepth => &stability::steps::TRAIN_STEPS,
        _ => &[],
    };
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
    register_figure_loader(|pass, id, show_controls| {
        Box::pin(pass_figure(pass, id, show_controls))
    });
    Ok(
        view! { <EmbedView figure=figure show_controls=show_controls notices=notices /> }
            .into_any(),
    )
}

#[wasm_split(pass2, wasm_split_path = ::leptos::wasm_split, fallible)]
fn complexity_section() -> Result<AnyView, LoadFailed> {
    Ok(view! { <complexity::ComplexitySection /> }.into_any())
}

#[wasm_split(pass2, wasm_split_path = ::leptos::wasm_split, fallible)]
fn complexity_figure(id: FigureId, show_controls: bool) -> Result<Option<AnyView>, LoadFailed> {
    Ok(complexity::figure(id, show_controls))
}

#[wasm_split(pass3, wasm_split_path = ::leptos::wasm_split, fallible)]
fn linear_algebra_section() -> Result<AnyView, LoadFailed> {
    Ok(view! { <linear_algebra::LinearAlgebraSection /> }.into_any())
}

#[wasm_split(pass3, wasm_split_path = ::leptos::wasm_split, fallible)]
fn linear_algebra_figure(id: FigureId, show_controls: bool) -> Result<Option<AnyView>, LoadFailed> {
    Ok(linear_algebra::figure(id, show_controls))
}

#[wasm_split(pass4, wasm_split_path = ::leptos::wasm_split, fallible)]
fn stability_section() -> Result<AnyView, LoadFailed> {
    Ok(view! { <stability::StabilitySection /> }.into_any())
}

#[wasm_split(pass4, wasm_split_path = ::leptos::wasm_split, fallible)]
fn stability_figure(id: FigureId, show_controls: bool) -> Result<Option<AnyView>, LoadFailed> {
    Ok(stability::figure(id, show_controls))
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
