//! Keeps the address bar in step with the state, so that a reload restores the page and
//! a copied address reproduces it.

use std::time::Duration;

use leptos::prelude::*;
use wasm_bindgen::JsValue;

use crate::state::registry::FigureId;
use crate::state::{Params, UrlState, View};

/// Writes the current state to the address bar, replacing the history entry: the view's
/// keys (with the step reached, not the one the page was opened at), then every value
/// that differs from its default.
fn write_url(params: &Params, view: &View, step: Option<(FigureId, u32)>) {
    let view = View {
        step: step.map(|(_, k)| k),
        ..view.clone()
    };
    let parts: Vec<String> = [view.to_query(), params.to_query(None)]
        .into_iter()
        .filter(|p| !p.is_empty())
        .collect();
    let loc = window().location();
    let search = if parts.is_empty() {
        String::new()
    } else {
        format!("?{}", parts.join("&"))
    };
    if loc.search().unwrap_or_default() == search {
        return;
    }
    // On the page, the figure at a step is the one the fragment names (`step=` applies to it).
    let hash = match (step, view.embed) {
        (Some((figure, _)), None) => format!("#{}", figure.as_str()),
        _ => loc.hash().unwrap_or_default(),
    };
    let url = format!("{}{}{}", loc.pathname().unwrap_or_default(), search, hash);
    if let Ok(history) = window().history() {
        let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&url));
    }
}

/// Keeps the address bar in step with the state, at most one write per 150 ms
/// (browsers throttle history updates; a slider emits many events per second).
pub fn sync_url(state: UrlState) {
    let pending = StoredValue::new(false);
    Effect::new(move |first: Option<()>| {
        state.params.track();
        state.step.track();
        if first.is_none() || pending.get_value() {
            return;
        }
        pending.set_value(true);
        set_timeout(
            move || {
                pending.set_value(false);
                let step = state.step.get_untracked();
                state
                    .params
                    .with_untracked(|p| write_url(p, state.view, step));
            },
            Duration::from_millis(150),
        );
    });
}
