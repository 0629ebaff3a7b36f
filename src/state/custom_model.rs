//! The custom model of the URL (`cl`, `cd`, `ch`, `ckv`, `cdh`, `cff`, `cmlp`, `cv`, `cwin`,
//! `ctie`) as a configuration, validated. Pass 2 and the fine-tuning figure both read it.

use crate::math::complexity::{ModelConfig, MAX_CONTEXT};

use super::choices::{Choices, MLPS};
use super::Params;

/// The custom fields as a configuration, or the message that says why they cannot be
/// evaluated.
pub fn custom_config(p: &Params) -> Result<ModelConfig, String> {
    let field = |key: &str| p.int(key).clamp(0, u32::MAX as i64) as u32;
    let window = p.int("cwin").max(0) as u64;
    let cfg = ModelConfig {
        name: "Custom",
        layers: field("cl"),
        d_model: field("cd"),
        heads: field("ch"),
        kv_heads: field("ckv"),
        d_head: field("cdh"),
        d_ff: field("cff"),
        mlp: p.chosen("cmlp", &MLPS),
        vocab: field("cv"),
        tied_embeddings: p.flag("ctie"),
        max_context: MAX_CONTEXT,
        sliding_window: (window > 0).then_some(window),
    };
    cfg.validate()
        .map(|_| cfg)
        .map_err(|e| format!("This custom configuration cannot be evaluated: {e}."))
}

/// The configuration chosen under `key` from `list`: a preset, or the custom fields.
pub fn chosen_config(
    p: &Params,
    key: &str,
    list: &Choices<Option<ModelConfig>>,
) -> Result<ModelConfig, String> {
    match p.chosen(key, list) {
        Some(published) => Ok(published),
        None => custom_config(p),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::complexity::parameter_count;
    use crate::state::choices::MODELS;

    #[test]
    fn tied_embeddings_count_the_embedding_once() {
        let (untied, _, _) = Params::from_query("model=custom&cv=1000&cd=64&ch=4&ckv=4&cdh=16");
        let (tied, _, _) =
            Params::from_query("model=custom&cv=1000&cd=64&ch=4&ckv=4&cdh=16&ctie=1");
        // Test only: both queries set heads that divide evenly, so the configurations are valid.
        let a = parameter_count(&custom_config(&untied).unwrap());
        let b = parameter_count(&custom_config(&tied).unwrap());
        assert_eq!(a - b, 1000.0 * 64.0);
    }

    #[test]
    fn both_lists_read_the_same_custom_fields() {
        let (p, _, _) = Params::from_query("model=custom&ftmodel=custom&cl=7");
        // Test only: the default custom fields are a valid configuration.
        let pass2 = chosen_config(&p, "model", &MODELS).unwrap();
        let finetune = chosen_config(&p, "ftmodel", &MODELS).unwrap();
        assert_eq!(pass2, finetune);
        assert_eq!(pass2.layers, 7);
    }
}
