//! Sharing a figure: a link to the page in this state, scrolled to the figure, and the
//! `<iframe>` code that embeds the figure alone, with the controls the instructor keeps
//! and a starting height measured from the figure as it stands.

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::HtmlElement;

use crate::state::registry::FigureId;
use crate::state::{ParamKind, ShownControls, View, PARAMS};

/// The URL keys of figure `id` that a reader sets with a control (its state's keys but
/// the raw scores `z`, which only a link sets), in the table's order.
pub fn figure_controls(id: FigureId) -> Vec<&'static str> {
    PARAMS
        .iter()
        .filter(|p| p.figures.contains(&id) && !matches!(p.kind, ParamKind::FloatList { .. }))
        .map(|p| p.key)
        .collect()
}

/// The label the control of `key` shows inside `root` ("" where it has none).
fn control_label(root: &web_sys::Element, key: &str) -> String {
    root.query_selector(&format!("[data-control=\"{key}\"]"))
        .ok()
        .flatten()
        .and_then(|c| c.closest(".control").ok().flatten())
        .and_then(|c| {
            c.query_selector("label, .control-label, legend")
                .ok()
                .flatten()
        })
        .and_then(|l| l.text_content())
        .unwrap_or_default()
}

/// The address of `figure` alone in the embed view: `base?embed=…`, its controls, then
/// `query` (its state, without defaults).
pub fn embed_address(
    base: &str,
    figure: FigureId,
    controls: &ShownControls,
    query: &str,
) -> String {
    let view = View {
        embed: Some(figure),
        controls: controls.clone(),
        ..View::default()
    };
    let parts: Vec<String> = [view.to_query(), query.to_string()]
        .into_iter()
        .filter(|p| !p.is_empty())
        .collect();
    format!("{base}?{}", parts.join("&"))
}

/// The `<iframe>` snippet that embeds `figure` at `address`, `height` CSS pixels tall to
/// start with (the resize message corrects it where the host page listens).
pub fn embed_snippet(address: &str, title: &str, height: u32) -> String {
    let src = address.replace('&', "&amp;");
    let title = title
        .replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;");
    format!(
        "<iframe src=\"{src}\" title=\"{title} (handwave)\" loading=\"lazy\" width=\"100%\" height=\"{height}\" style=\"width:100%;border:0\"></iframe>"
    )
}

/// A link to the whole page in the current state, scrolled to `figure`.
pub fn figure_link(base: &str, figure: &str, query: &str) -> String {
    if query.is_empty() {
        format!("{base}#{figure}")
    } else {
        format!("{base}?{query}#{figure}")
    }
}

/// Puts `text` on the clipboard, where the browser allows it (the share box shows the text
/// either way).
pub fn copy_to_clipboard(text: &str) {
    let clipboard = window().navigator().clipboard();
    // Rejections (no permission, insecure context) leave the text visible in the box.
    let _ = clipboard.write_text(text);
}

/// Extra height an embed has beyond its figure: the embed view's padding and credit line.
const EMBED_CHROME_PX: f64 = 56.0;

/// The height of the first element of `figure` that `selector` matches (0 for none).
fn height_of(figure: &HtmlElement, selector: &str) -> f64 {
    figure
        .query_selector(selector)
        .ok()
        .flatten()
        .map_or(0.0, |e| e.get_bounding_client_rect().height())
}

/// The height of the band the controls of `keys` occupy inside `container` (0 if none of
/// them is there), with the room a box of controls takes around them.
fn band_of(figure: &HtmlElement, container: &str, keys: &[&'static str]) -> f64 {
    let (mut top, mut bottom) = (f64::INFINITY, f64::NEG_INFINITY);
    for key in keys {
        let selector = format!("{container} [data-control=\"{key}\"]");
        let Some(control) = figure
            .query_selector(&selector)
            .ok()
            .flatten()
            .and_then(|c| c.closest(".control").ok().flatten())
        else {
            continue;
        };
        let r = control.get_bounding_client_rect();
        if r.height() > 0.0 {
            top = top.min(r.top());
            bottom = bottom.max(r.bottom());
        }
    }
    if bottom > top {
        bottom - top + 24.0
    } else {
        0.0
    }
}

/// A starting height for the embed of `figure` (its root element) that keeps `controls`:
/// the figure's height as it stands (less the share box this code is shown in), less the
/// controls it would not show. A kept control replaces its box by the band it occupies; a
/// kept "More settings" control is shown open, so its box stays in full.
pub fn embed_height(figure: &HtmlElement, controls: &ShownControls) -> u32 {
    let total = figure.get_bounding_client_rect().height() - height_of(figure, ".share-box");
    let (primary, more) = (
        height_of(figure, ".figure-controls"),
        height_of(figure, ".more-settings"),
    );
    let height = match controls {
        ShownControls::All => total,
        ShownControls::Hidden => total - primary - more,
        ShownControls::Only(keys) => {
            let more_kept = band_of(figure, ".more-settings", keys);
            total - primary - more
                + band_of(figure, ".figure-controls", keys)
                + if more_kept > 0.0 { more } else { 0.0 }
        }
    };
    (height + EMBED_CHROME_PX).round().clamp(160.0, 4000.0) as u32
}

/// The share box of figure `id`: a link, or the embed code with a checkbox per control
/// (ticking one off leaves it out of the embed, and the code updates).
#[component]
pub fn EmbedForm(
    id: FigureId,
    title: &'static str,
    /// The figure's root element, measured for the starting height.
    root: NodeRef<leptos::html::Figure>,
    /// The figure's state as a query string (without defaults).
    query: String,
    base: String,
) -> impl IntoView {
    let all: Vec<&'static str> = figure_controls(id);
    let all = StoredValue::new(all);
    let kept = RwSignal::new(all.get_value());
    let snippet = Memo::new(move |_| {
        let controls = kept.with(|k| all.with_value(|a| ShownControls::keeping(k, a)));
        let height = root
            .get_untracked()
            .map(|el| embed_height(el.unchecked_ref::<HtmlElement>(), &controls))
            .unwrap_or(600);
        embed_snippet(&embed_address(&base, id, &controls, &query), title, height)
    });
    Effect::new(move |_| copy_to_clipboard(&snippet.get()));
    let figure: Option<web_sys::Element> = root.get_untracked().map(Into::into);
    let boxes = figure_controls(id)
        .into_iter()
        .map(|key| {
            let label = figure
                .as_ref()
                .map(|f| control_label(f, key))
                .unwrap_or_default();
            let on = move || kept.with(|k| k.contains(&key));
            view! {
                <label class="embed-control">
                    <input type="checkbox" data-embed-control=key prop:checked=on
                        on:change=move |ev| {
                            let checked = event_target_checked(&ev);
                            kept.update(|k| {
                                k.retain(|x| *x != key);
                                if checked {
                                    k.push(key);
                                }
                            });
                        } />
                    <code>{key}</code>" "{label}
                </label>
            }
        })
        .collect_view();
    view! {
        <label>
            "Embed code (copied)"
            <input type="text" readonly data-share="embed" prop:value=move || snippet.get() />
        </label>
        <fieldset class="embed-controls" data-embed-controls="">
            <legend>"Controls the embedded figure shows"</legend>
            {boxes}
        </fieldset>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embed_snippet_has_title_lazy_loading_and_full_width() {
        let address = embed_address(
            "https://x.org/c/",
            FigureId::Jacobian,
            &ShownControls::All,
            "n=12&dk=8",
        );
        let s = embed_snippet(&address, "The Jacobian", 640);
        assert!(s.starts_with("<iframe src=\"https://x.org/c/?embed=jacobian&amp;n=12&amp;dk=8\""));
        assert!(s.contains("title=\"The Jacobian (handwave)\""));
        assert!(s.contains("loading=\"lazy\""));
        assert!(s.contains("width=\"100%\""));
        assert!(s.contains("height=\"640\""));
    }

    #[test]
    fn embed_addresses_carry_the_controls_kept() {
        let only = ShownControls::Only(vec!["alpha", "div"]);
        assert_eq!(
            embed_address("https://x.org/", FigureId::Jacobian, &only, "alpha=3"),
            "https://x.org/?embed=jacobian&controls=alpha,div&alpha=3"
        );
        assert_eq!(
            embed_address(
                "https://x.org/",
                FigureId::Jacobian,
                &ShownControls::Hidden,
                ""
            ),
            "https://x.org/?embed=jacobian&hide=controls"
        );
    }

    #[test]
    fn a_figures_controls_are_its_keys_but_the_raw_scores() {
        assert_eq!(
            figure_controls(FigureId::Jacobian),
            ["n", "dk", "div", "alpha", "seed"]
        );
    }

    #[test]
    fn links_carry_the_state_and_the_anchor() {
        assert_eq!(
            figure_link("https://x.org/", "jacobian", ""),
            "https://x.org/#jacobian"
        );
        assert_eq!(
            figure_link("https://x.org/", "jacobian", "n=3"),
            "https://x.org/?n=3#jacobian"
        );
    }
}
