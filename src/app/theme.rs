//! The colour scheme: forced by `theme=`, else remembered in the browser, else the
//! system's; the light/dark switch; the palette the figures draw with.

use leptos::prelude::*;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;

use crate::state::choices::THEMES;
use crate::state::Theme;
use crate::widgets::observers::use_printing;
use crate::widgets::palette::Palette;

const THEME_STORAGE_KEY: &str = "handwave-theme";

fn system_prefers_dark() -> bool {
    window()
        .match_media("(prefers-color-scheme: dark)")
        .ok()
        .flatten()
        .map(|m| m.matches())
        .unwrap_or(false)
}

fn system_theme() -> Theme {
    if system_prefers_dark() {
        Theme::Dark
    } else {
        Theme::Light
    }
}

fn stored_theme() -> Option<Theme> {
    let storage = window().local_storage().ok().flatten()?;
    let id = storage.get_item(THEME_STORAGE_KEY).ok().flatten()?;
    THEMES.row(&id).map(|row| row.value)
}

fn remember_theme(theme: Theme) {
    if let Ok(Some(storage)) = window().local_storage() {
        let _ = storage.set_item(THEME_STORAGE_KEY, THEMES.id_of(theme));
    }
}

fn apply_theme(theme: Theme) {
    if let Some(root) = document().document_element() {
        let _ = root.set_attribute("data-theme", THEMES.id_of(theme));
    }
}

/// The scheme in use (`forced` by the URL, else remembered, else the system's), applied
/// to the page, and the palette read from it provided to every figure. Without a forced
/// or remembered choice it follows the system's as that changes.
pub fn use_theme(forced: Option<Theme>) -> RwSignal<Theme> {
    let theme = RwSignal::new(forced.or_else(stored_theme).unwrap_or_else(system_theme));
    let palette = RwSignal::new(Palette::default());
    provide_context(palette);
    // A printed page is light whatever the screen shows: the canvases are drawn again.
    let printing = use_printing();
    Effect::new(move |_| {
        apply_theme(if printing.get() {
            Theme::Light
        } else {
            theme.get()
        });
        palette.set(Palette::read());
    });
    if forced.is_none() {
        if let Ok(Some(query)) = window().match_media("(prefers-color-scheme: dark)") {
            let on_change = Closure::<dyn FnMut(web_sys::MediaQueryListEvent)>::new(
                move |ev: web_sys::MediaQueryListEvent| {
                    if stored_theme().is_none() {
                        theme.set(if ev.matches() {
                            Theme::Dark
                        } else {
                            Theme::Light
                        });
                    }
                },
            );
            let _ = query
                .add_event_listener_with_callback("change", on_change.as_ref().unchecked_ref());
            on_change.forget();
        }
    }
    theme
}

/// The light/dark switch: the choice is remembered in localStorage.
#[component]
pub fn ThemeSwitch(theme: RwSignal<Theme>) -> impl IntoView {
    view! {
        <button
            type="button"
            class="theme-switch"
            data-action="theme"
            aria-pressed=move || (theme.get() == Theme::Dark).to_string()
            on:click=move |_| {
                let next = if theme.get_untracked() == Theme::Dark { Theme::Light } else { Theme::Dark };
                theme.set(next);
                remember_theme(next);
            }
        >
            "Dark mode"
        </button>
    }
}
