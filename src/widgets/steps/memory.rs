//! The reader's predictions, remembered in this browser's `localStorage` (never sent).

use leptos::prelude::*;

const ANSWERS_KEY: &str = "handwave-predictions";

/// The reader's answers remembered in this browser (never sent anywhere): "figure/k" →
/// option id.
pub(super) fn remembered(slot: &str) -> Option<String> {
    let storage = window().local_storage().ok().flatten()?;
    let all = storage.get_item(ANSWERS_KEY).ok().flatten()?;
    all.split(';')
        .filter_map(|pair| pair.split_once('='))
        .find(|(k, _)| *k == slot)
        .map(|(_, v)| v.to_string())
}

pub(super) fn remember(slot: &str, option: &str) {
    let Some(storage) = window().local_storage().ok().flatten() else {
        return;
    };
    let mut pairs: Vec<String> = storage
        .get_item(ANSWERS_KEY)
        .ok()
        .flatten()
        .unwrap_or_default()
        .split(';')
        .filter(|p| !p.is_empty() && !p.starts_with(&format!("{slot}=")))
        .map(str::to_string)
        .collect();
    pairs.push(format!("{slot}={option}"));
    let _ = storage.set_item(ANSWERS_KEY, &pairs.join(";"));
}
