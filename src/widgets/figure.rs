//! Figure: the frame every live figure shares. Its root carries `data-figure="<id>"`; it
//! has a title, the drawing, a caption generated from the current state, an `aria-label`
//! summary that updates, its primary controls with the rest under "More settings", and
//! actions: export PNG, export CSV, copy link, copy embed code. Printed, it carries the
//! link to exactly this state instead of its controls.

use leptos::html;
use leptos::prelude::*;

use super::chrome::use_chrome;
use super::export::{download_text, export_png};
use super::location::page_base_url;
use super::observers::use_printing;
use super::readings::FigureReadings;
use super::share::{copy_to_clipboard, figure_link};
use crate::state::registry::FigureId;
use crate::state::{use_url_state, ShownControls};

/// Which text the share box shows.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Shared {
    Link,
    Embed,
}

/// The frame of a live figure.
#[component]
pub fn Figure(
    /// Which figure (its public id is `data-figure`, `embed=`); its title comes from the
    /// registry of passes ([`crate::state::registry`]).
    id: FigureId,
    /// One sentence or a few, generated from the state, under the drawing.
    #[prop(into)]
    caption: Signal<String>,
    /// A short summary for assistive technology (`aria-label`).
    #[prop(into)]
    summary: Signal<String>,
    /// The numbers behind the drawing, as CSV.
    csv: Callback<(), String>,
    /// The controls the figure leads with (hidden by `hide=controls` in an embed; each
    /// also hides itself where `controls=` leaves it out).
    #[prop(into)]
    controls: ViewFn,
    /// The figure's other controls, under a "More settings" disclosure.
    #[prop(optional, into)]
    more: Option<ViewFn>,
    /// The URL keys of `more`: the disclosure starts open when the URL sets one of them.
    #[prop(default = &[])]
    more_keys: &'static [&'static str],
    /// Whether to show the controls at all.
    #[prop(default = true)]
    show_controls: bool,
    /// The figure's own verdict on its state, in a sentence (`data-verdict`, which guided
    /// steps quote).
    #[prop(optional, into)]
    verdict: Option<Signal<String>>,
    /// Set while the figure is on (or near) the screen, for figures that compute only then.
    #[prop(optional)]
    on_screen: Option<RwSignal<bool>>,
    /// The formula term or figure part lit by a link (`data-linked`), see
    /// [`super::linked`].
    #[prop(optional)]
    linked: Option<RwSignal<Option<&'static str>>>,
    /// A training figure's state (`data-train`: running, paused or done).
    #[prop(optional, into)]
    train: Option<Signal<&'static str>>,
    children: Children,
) -> impl IntoView {
    let figure = id;
    let (id, title) = (figure.as_str(), figure.title());
    // What the figure shows, as signals, for what is inside it (its guided steps).
    let readings = FigureReadings::provide(verdict, train);
    let root = NodeRef::<html::Figure>::new();
    let state = use_url_state();
    if let Some(signal) = on_screen {
        if state.view.embed.is_some() {
            // An embed is this one figure: it computes at once, on the screen or not, so
            // that a frame below the fold of its host page has its final height (captions
            // and readouts filled in) before the reader scrolls to it.
            signal.set(true);
        } else {
            super::observers::observe_on_screen(root, signal);
        }
    }
    let (shared, set_shared) = signal(None::<Shared>);
    let hide = state.view.controls == ShownControls::Hidden;
    let printing = use_printing();
    // Open from the start where the URL sets one of its keys, or names the controls to show.
    let more_open = matches!(state.view.controls, ShownControls::Only(_))
        || state
            .params
            .with_untracked(|p| more_keys.iter().any(|k| p.is_set(k)));

    let on_png = move |_| {
        if let Some(el) = root.get_untracked() {
            export_png(&el, id, title);
        }
    };
    let on_csv = move |_| {
        download_text(&csv.run(()), &format!("handwave-{id}.csv"), "text/csv");
    };
    let query_of_page = move || state.params.with_untracked(|p| p.to_query(None));
    let on_link = move |_| {
        copy_to_clipboard(&figure_link(&page_base_url(), id, &query_of_page()));
        set_shared.set(Some(Shared::Link));
    };
    let on_embed = move |_| set_shared.set(Some(Shared::Embed));
    // The embed form's code arrives with the first press of "Embed".
    let (chrome, chrome_failed) = use_chrome(move || shared.get() == Some(Shared::Embed));
    let share_box = move || {
        shared.get().map(|kind| {
            let inner = match kind {
                Shared::Link => {
                    let link = figure_link(&page_base_url(), id, &query_of_page());
                    view! {
                        <label>
                            "Link to this figure in this state (copied)"
                            <input type="text" readonly data-share="link" prop:value=link />
                        </label>
                    }
                    .into_any()
                }
                Shared::Embed => match chrome.get() {
                    Some(c) => (c.embed_form)(
                        figure,
                        title,
                        root,
                        page_base_url(),
                        state.params.with_untracked(|p| p.to_query(Some(figure))),
                    ),
                    None => view! {
                        <p>{move || if chrome_failed.get() { "The embed form could not be loaded (are you offline?)." } else { "Loading the embed form…" }}</p>
                    }
                    .into_any(),
                },
            };
            view! {
                <div class="share-box" role="status">
                    {inner}
                    <button type="button" class="button-quiet" on:click=move |_| set_shared.set(None)>
                        "Close"
                    </button>
                </div>
            }
        })
    };
    // Printed: the address of exactly this state, so that a reader of the paper can open it.
    let print_link = move || {
        printing.get().then(|| {
            let link = figure_link(
                &page_base_url(),
                id,
                &state.params.with(|p| p.to_query(None)),
            );
            view! {
                <p class="figure-print-link" data-print-link="">
                    "This figure, in this state: " <a href=link.clone()>{link.clone()}</a>
                </p>
            }
        })
    };
    let controls_box = (show_controls && !hide).then(|| {
        view! {
            <div class="figure-controls">
                <div class="controls-primary" data-primary-controls="">{controls.run()}</div>
            </div>
        }
    });
    // The other controls come after the drawing: the primary ones stay next to it.
    let more_box = (show_controls && !hide)
        .then_some(more)
        .flatten()
        .map(|more| {
            view! {
                <details class="more-settings" data-more-settings="" open=more_open>
                    <summary>"More settings"</summary>
                    <div class="more-settings-body">{more.run()}</div>
                </details>
            }
        });
    let title_id = format!("{id}-title");
    let labelled_by = title_id.clone();

    view! {
        <figure class="figure" id=id data-figure=id node_ref=root aria-labelledby=labelled_by
            data-verdict=move || verdict.map(|v| v.get())
            data-linked=move || linked.and_then(|l| l.get())
            data-train=move || train.map(|t| t.get())
            data-step-at=move || Some(readings.step_at.get()).filter(|k| *k > 0).map(|k| k.to_string())>
            <div class="figure-head">
                <h3 class="figure-title" id=title_id>{title}</h3>
                <div class="figure-actions" role="group" aria-label=format!("{title}: export and share")>
                    <button type="button" data-action="png" on:click=on_png>"PNG"</button>
                    <button type="button" data-action="csv" on:click=on_csv>"CSV"</button>
                    // On a phone the labels shorten so that the four fit one row; the name
                    // read out stays the full one.
                    <button type="button" data-action="copy-link" aria-label="Copy link" on:click=on_link>
                        <span class="label-wide">"Copy link"</span><span class="label-narrow" aria-hidden="true">"Link"</span>
                    </button>
                    <button type="button" data-action="copy-embed" aria-label="Copy embed code" on:click=on_embed>
                        <span class="label-wide">"Copy embed code"</span><span class="label-narrow" aria-hidden="true">"Embed"</span>
                    </button>
                </div>
            </div>
            {share_box}
            {controls_box}
            <div class="figure-body" role="group" aria-label=move || format!("{title}. {}", summary.get())>
                {children()}
            </div>
            {more_box}
            <figcaption class="figure-caption" data-caption=id>{move || caption.get()}</figcaption>
            {print_link}
        </figure>
    }
}
