//! The custom model's fields (`cl` … `ctie`), and a field that fills them from a pasted
//! Hugging Face `config.json` (parsed by [`crate::state::config_json`]). A file that cannot
//! be read changes nothing and says why, naming the field.

use leptos::prelude::*;

use crate::state::choices::MLPS;
use crate::state::config_json::parse_config_json;
use crate::state::{int_range, UrlState, Value};
use crate::widgets::{NumberField, Select, Toggle};

/// The custom configuration's fields, with the config.json paste field.
#[component]
pub fn CustomModelFields(
    state: UrlState,
    #[prop(default = "")] instance: &'static str,
) -> impl IntoView {
    let field = move |key: &'static str, label: &'static str, (min, max): (i64, i64)| {
        let (value, set) = state.int_control(key);
        view! { <NumberField key=key label=label value=value on_change=set min=min max=max instance=instance /> }
    };
    let (mlp, set_mlp) = state.choice_control("cmlp");
    let (tied, set_tied) = state.flag_control("ctie");
    view! {
        <fieldset class="custom-model" data-custom-model="">
            <legend>"Custom configuration"</legend>
            <ConfigJsonField state=state instance=instance />
            {field("cl", "Layers", const { int_range("cl") })}
            {field("cd", "d_model", const { int_range("cd") })}
            {field("ch", "Query heads", const { int_range("ch") })}
            {field("ckv", "Key/value heads", const { int_range("ckv") })}
            {field("cdh", "d_head", const { int_range("cdh") })}
            {field("cff", "MLP width d_ff", const { int_range("cff") })}
            <Select key="cmlp" label="MLP" options=&MLPS value=mlp on_change=set_mlp instance=instance />
            {field("cv", "Vocabulary", const { int_range("cv") })}
            {field("cwin", "Sliding window (0 = none)", const { int_range("cwin") })}
            <Toggle key="ctie" label="Tied input and output embeddings" value=tied on_change=set_tied instance=instance />
        </fieldset>
    }
}

/// A text area for a config.json and the button that fills the custom fields from it.
#[component]
fn ConfigJsonField(state: UrlState, instance: &'static str) -> impl IntoView {
    let text = RwSignal::new(String::new());
    let said = RwSignal::new(None::<Result<String, String>>);
    let id = format!("config-json{instance}");
    let fill = move |_| {
        let result = text.with_untracked(|t| parse_config_json(t));
        said.set(Some(match result {
            Ok(mut fields) => {
                let summary = format!(
                    "Filled {} fields from the file; both Pass 2 and the fine-tuning figure now use this custom model.",
                    fields.len()
                );
                fields.push(("model", Value::Choice("custom")));
                fields.push(("ftmodel", Value::Choice("custom")));
                state.set_many(fields);
                Ok(summary)
            }
            Err(e) => Err(e.to_string()),
        }));
    };
    view! {
        <details class="config-json" data-config-json="">
            <summary>"Fill from a config.json"</summary>
            <label for=id.clone()>"Paste a Hugging Face config.json"</label>
            <textarea id=id rows="5" spellcheck="false" data-action="config-json-text"
                placeholder="{\"hidden_size\": 4096, \"num_attention_heads\": 32, …}"
                prop:value=move || text.get()
                on:input=move |ev| text.set(event_target_value(&ev))></textarea>
            <button type="button" data-action="config-json-fill" on:click=fill>"Fill the fields"</button>
            {move || said.get().map(|r| match r {
                Ok(msg) => view! { <p class="config-json-ok" role="status" data-config-json-said="ok">{msg}</p> }.into_any(),
                Err(msg) => view! { <p class="config-error" role="alert" data-config-json-said="error">{msg}</p> }.into_any(),
            })}
        </details>
    }
}
