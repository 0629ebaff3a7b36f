//! The notices about values from the URL that were clamped, replaced or ignored.

use leptos::prelude::*;

use crate::state::Notice;

/// The list of notices about values from the URL, each dismissible.
#[component]
pub fn Notices(notices: RwSignal<Vec<Notice>>) -> impl IntoView {
    view! {
        <Show when=move || notices.with(|n| !n.is_empty())>
            <div class="notices" role="status" aria-live="polite" data-notices="">
                <p class="notices-head">"Some values in the link were changed:"</p>
                <ul>
                    {move || {
                        notices
                            .get()
                            .into_iter()
                            .enumerate()
                            .map(|(i, n)| {
                                view! {
                                    <li class="notice" data-notice-key=n.key.clone()>
                                        <code>{n.key.clone()}</code>
                                        ": "
                                        {n.message.clone()}
                                        <button
                                            type="button"
                                            class="button-quiet"
                                            aria-label=format!("Dismiss the notice about {}", n.key)
                                            on:click=move |_| notices.update(|v| { if i < v.len() { v.remove(i); } })
                                        >
                                            "Dismiss"
                                        </button>
                                    </li>
                                }
                            })
                            .collect_view()
                    }}
                </ul>
            </div>
        </Show>
    }
}
