//! The page's occasional parts, fetched only when first needed: the embed form of a
//! figure's "Embed" button and the notices about a link's values. Their code lives in a
//! module of the page's binary of its own (`split_chrome.wasm`), so that the first load
//! does not carry it; the binary registers how to fetch it ([`register_chrome_loader`]).

use std::future::Future;
use std::pin::Pin;
use std::sync::OnceLock;

use leptos::prelude::*;

use crate::state::registry::FigureId;

use crate::state::Notice;

/// Builds the embed form of a figure: its id, title, root element, the page's address
/// and its state as a query (see [`super::share::EmbedForm`]).
pub type EmbedFormBuilder =
    fn(FigureId, &'static str, NodeRef<leptos::html::Figure>, String, String) -> AnyView;

/// Builds the notices about a link's values.
pub type NoticesBuilder = fn(RwSignal<Vec<Notice>>) -> AnyView;

/// What the module brings.
#[derive(Clone, Copy)]
pub struct Chrome {
    pub embed_form: EmbedFormBuilder,
    pub notices: NoticesBuilder,
}

/// Fetches the module (once) and hands over its builders; `None` where it cannot be fetched.
pub type ChromeLoader = fn() -> Pin<Box<dyn Future<Output = Option<Chrome>>>>;

static LOADER: OnceLock<ChromeLoader> = OnceLock::new();

/// Hands the page how to fetch its occasional parts; call once, before mounting it.
pub fn register_chrome_loader(loader: ChromeLoader) {
    let _ = LOADER.set(loader);
}

/// The module's builders once `wanted` has been true (fetched then, once): `None` before,
/// or where it could not be fetched (`failed` then says so).
pub fn use_chrome(
    wanted: impl Fn() -> bool + Send + Sync + 'static,
) -> (RwSignal<Option<Chrome>>, RwSignal<bool>) {
    let chrome = RwSignal::new(None::<Chrome>);
    let failed = RwSignal::new(false);
    let asked = StoredValue::new(false);
    Effect::new(move |_| {
        if !wanted() || asked.get_value() {
            return;
        }
        asked.set_value(true);
        let Some(load) = LOADER.get() else {
            failed.set(true);
            return;
        };
        let pending = load();
        leptos::task::spawn_local(async move {
            match pending.await {
                Some(c) => chrome.set(Some(c)),
                None => failed.set(true),
            }
        });
    });
    (chrome, failed)
}
