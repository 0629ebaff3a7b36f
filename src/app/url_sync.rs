//! Keeps the address bar in step with the state, so that a reload restores the page and
//! a copied address reproduces it.

use std::time::Duration;

use leptos::prelude::*;
use wasm_bindgen::JsValue;

use crate::state::choices::THEMES;
use crate::state::{Params, UrlState, ViewParamsRef};

/// Writes the current state to the address bar, replacing the history entry.
fn write_url(params: &Params, view: &ViewParamsRef, step: Option<(&'static str, u32)>) {
    let mut parts = Vec::new();
    if let Some(id) = view.embed {
        parts.push(format!("embed={id}"));
        if view.hide_controls {
            parts.push("hide=controls".to_string());
        }
    }
    if let Some(keys) = view.controls {
        parts.push(format!("controls={}", keys.join(",")));
    }
    if let Some((_, k)) = step {
        parts.push(format!("step={k}"));
    }
    if let Some(theme) = view.theme {
        parts.push(format!("theme={}", THEMES.id_of(theme)));
    }
    let query = params.to_query(None);
    if !query.is_empty() {
        parts.push(query);
    }
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
        (Some((figure, _)), None) => format!("#{figure}"),
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
                    .with_untracked(|p| write_url(p, &state.view, step));
            },
            Duration::from_millis(150),
        );
    });
}
