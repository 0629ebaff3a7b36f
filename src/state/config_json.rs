//! A Hugging Face `config.json`, read into the custom model's URL fields (`cl`, `cd`, `ch`,
//! `ckv`, `cdh`, `cff`, `cmlp`, `cv`, `cwin`, `ctie`).
//!
//! Names read: `num_hidden_layers` / `n_layer`, `hidden_size` / `n_embd`,
//! `num_attention_heads` / `n_head`, `num_key_value_heads` (default: the heads),
//! `head_dim` (default: hidden size / heads), `intermediate_size` / `n_inner` (GPT-2's
//! default: 4 · n_embd), `vocab_size`, `tie_word_embeddings` (default: true for GPT-2,
//! whose files leave it out and whose library default is true; false otherwise),
//! `sliding_window` (absent or null: none), and the MLP's form from `model_type` /
//! `hidden_act` (GELU for GPT-2 and other `gelu` activations, SwiGLU for `silu`).
//! Every value is checked against its URL key's range: a file the page cannot model is
//! refused with a message that names the field, and nothing is changed.

use std::fmt;

use serde_json::{Map, Value as Json};

use super::table::{spec, ParamKind, Value};

/// Why a pasted config.json was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConfigJsonError {
    /// Not JSON, or not a JSON object.
    NotAnObject(String),
    /// A field the page needs is absent (the names it was looked for under).
    Missing(&'static str),
    /// A field is present with the wrong type.
    WrongType {
        field: String,
        expected: &'static str,
    },
    /// A number outside what the page models.
    OutOfRange {
        field: String,
        value: i64,
        min: i64,
        max: i64,
    },
    /// The heads do not fit together.
    Inconsistent(String),
}

impl fmt::Display for ConfigJsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigJsonError::NotAnObject(why) => write!(f, "This is not a config.json: {why}."),
            ConfigJsonError::Missing(names) => write!(f, "The file has no {names}."),
            ConfigJsonError::WrongType { field, expected } => {
                write!(f, "{field} should be {expected}.")
            }
            ConfigJsonError::OutOfRange {
                field,
                value,
                min,
                max,
            } => write!(f, "{field} is {value}; the page models {min} to {max}."),
            ConfigJsonError::Inconsistent(why) => write!(f, "{why}."),
        }
    }
}

/// The custom model's fields as URL values, in the table's order.
pub type CustomFields = Vec<(&'static str, Value)>;

/// Reads `text` as a config.json into the custom model's URL fields.
pub fn parse_config_json(text: &str) -> Result<CustomFields, ConfigJsonError> {
    let json: Json =
        serde_json::from_str(text).map_err(|e| ConfigJsonError::NotAnObject(e.to_string()))?;
    let Json::Object(map) = json else {
        return Err(ConfigJsonError::NotAnObject(
            "it is not an object {…}".into(),
        ));
    };
    let model_type = match map.get("model_type") {
        Some(Json::String(s)) => s.to_ascii_lowercase(),
        _ => String::new(),
    };
    let gpt2_names = map.contains_key("n_embd");
    let d_model = required(
        &map,
        &["hidden_size", "n_embd"],
        "hidden_size (or n_embd)",
        "cd",
    )?;
    let layers = required(
        &map,
        &["num_hidden_layers", "n_layer"],
        "num_hidden_layers (or n_layer)",
        "cl",
    )?;
    let heads = required(
        &map,
        &["num_attention_heads", "n_head"],
        "num_attention_heads (or n_head)",
        "ch",
    )?;
    let kv_heads = optional(&map, "num_key_value_heads", "ckv")?.unwrap_or(heads);
    let d_head = match optional(&map, "head_dim", "cdh")? {
        Some(v) => v,
        None if d_model % heads == 0 => in_range("head_dim (hidden_size / heads)", d_model / heads, "cdh")?,
        None => {
            return Err(ConfigJsonError::Inconsistent(format!(
                "hidden_size ({d_model}) is not a multiple of the heads ({heads}) and there is no head_dim"
            )))
        }
    };
    let d_ff = match optional(&map, "intermediate_size", "cff")? {
        Some(v) => v,
        None => match optional(&map, "n_inner", "cff")? {
            Some(v) => v,
            None if gpt2_names => in_range("n_inner (4 · n_embd)", 4 * d_model, "cff")?,
            None => return Err(ConfigJsonError::Missing("intermediate_size (or n_inner)")),
        },
    };
    let vocab = required(&map, &["vocab_size"], "vocab_size", "cv")?;
    let window = optional(&map, "sliding_window", "cwin")?.unwrap_or(0);
    let tied = match map.get("tie_word_embeddings") {
        Some(Json::Bool(b)) => *b,
        Some(Json::Null) | None => model_type == "gpt2" || gpt2_names,
        Some(_) => {
            return Err(ConfigJsonError::WrongType {
                field: "tie_word_embeddings".into(),
                expected: "true or false",
            })
        }
    };
    let mlp = mlp_id(&map, &model_type, gpt2_names)?;
    if kv_heads > heads || heads % kv_heads != 0 {
        return Err(ConfigJsonError::Inconsistent(format!(
            "num_key_value_heads ({kv_heads}) must divide num_attention_heads ({heads})"
        )));
    }
    Ok(vec![
        ("cl", Value::Int(layers)),
        ("cd", Value::Int(d_model)),
        ("ch", Value::Int(heads)),
        ("ckv", Value::Int(kv_heads)),
        ("cdh", Value::Int(d_head)),
        ("cff", Value::Int(d_ff)),
        ("cmlp", Value::Choice(mlp)),
        ("cv", Value::Int(vocab)),
        ("cwin", Value::Int(window)),
        ("ctie", Value::Bool(tied)),
    ])
}

/// SwiGLU for `silu`/`swish` activations and the Llama family, GELU for GPT-2 and `gelu*`.
fn mlp_id(
    map: &Map<String, Json>,
    model_type: &str,
    gpt2_names: bool,
) -> Result<&'static str, ConfigJsonError> {
    let act = match map
        .get("hidden_act")
        .or_else(|| map.get("activation_function"))
    {
        Some(Json::String(s)) => s.to_ascii_lowercase(),
        Some(Json::Null) | None => String::new(),
        Some(_) => {
            return Err(ConfigJsonError::WrongType {
                field: "hidden_act".into(),
                expected: "a string",
            })
        }
    };
    Ok(if act == "silu" || act == "swish" {
        "swiglu"
    } else if act.starts_with("gelu") || gpt2_names || model_type == "gpt2" {
        "gelu"
    } else {
        "swiglu"
    })
}

fn required(
    map: &Map<String, Json>,
    names: &[&'static str],
    described: &'static str,
    key: &'static str,
) -> Result<i64, ConfigJsonError> {
    for name in names {
        if let Some(v) = optional(map, name, key)? {
            return Ok(v);
        }
    }
    Err(ConfigJsonError::Missing(described))
}

/// A whole-number field in the range of URL key `key`; `None` when absent or null.
fn optional(
    map: &Map<String, Json>,
    name: &str,
    key: &'static str,
) -> Result<Option<i64>, ConfigJsonError> {
    match map.get(name) {
        None | Some(Json::Null) => Ok(None),
        Some(Json::Number(n)) => match n.as_i64() {
            Some(v) => in_range(name, v, key).map(Some),
            None => Err(ConfigJsonError::WrongType {
                field: name.to_string(),
                expected: "a whole number",
            }),
        },
        Some(_) => Err(ConfigJsonError::WrongType {
            field: name.to_string(),
            expected: "a whole number",
        }),
    }
}

fn in_range(field: &str, value: i64, key: &'static str) -> Result<i64, ConfigJsonError> {
    let (min, max) = int_range_of(key);
    if (min..=max).contains(&value) {
        Ok(value)
    } else {
        Err(ConfigJsonError::OutOfRange {
            field: field.to_string(),
            value,
            min,
            max,
        })
    }
}

/// (min, max) of whole-number URL key `key`, from its row of the table.
fn int_range_of(key: &str) -> (i64, i64) {
    match spec(key).map(|s| s.kind) {
        Some(ParamKind::Int { min, max }) => (min, max),
        // Every key this module names is a whole-number row (the tests that read real
        // files would refuse every field otherwise); any other key accepts nothing.
        _ => (0, -1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(fields: &CustomFields, key: &str) -> Value {
        fields
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.clone())
            .unwrap_or(Value::Int(-1))
    }

    /// openai-community/gpt2's config.json (abridged to the fields it has).
    const GPT2: &str = r#"{
      "activation_function": "gelu_new", "architectures": ["GPT2LMHeadModel"],
      "attn_pdrop": 0.1, "bos_token_id": 50256, "embd_pdrop": 0.1, "eos_token_id": 50256,
      "initializer_range": 0.02, "layer_norm_epsilon": 1e-05, "model_type": "gpt2",
      "n_ctx": 1024, "n_embd": 768, "n_head": 12, "n_layer": 12, "n_positions": 1024,
      "resid_pdrop": 0.1, "vocab_size": 50257
    }"#;

    /// meta-llama/Llama-2-7b-hf's config.json.
    const LLAMA2: &str = r#"{
      "architectures": ["LlamaForCausalLM"], "bos_token_id": 1, "eos_token_id": 2,
      "hidden_act": "silu", "hidden_size": 4096, "initializer_range": 0.02,
      "intermediate_size": 11008, "max_position_embeddings": 4096, "model_type": "llama",
      "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 32,
      "pretraining_tp": 1, "rms_norm_eps": 1e-05, "rope_scaling": null,
      "tie_word_embeddings": false, "torch_dtype": "float16", "transformers_version": "4.31.0.dev0",
      "use_cache": true, "vocab_size": 32000
    }"#;

    /// mistralai/Mistral-7B-v0.1's config.json (grouped-query attention, sliding window).
    const MISTRAL: &str = r#"{
      "architectures": ["MistralForCausalLM"], "bos_token_id": 1, "eos_token_id": 2,
      "hidden_act": "silu", "hidden_size": 4096, "initializer_range": 0.02,
      "intermediate_size": 14336, "max_position_embeddings": 32768, "model_type": "mistral",
      "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8,
      "rms_norm_eps": 1e-05, "rope_theta": 10000.0, "sliding_window": 4096,
      "tie_word_embeddings": false, "torch_dtype": "bfloat16", "vocab_size": 32000
    }"#;

    /// meta-llama/Meta-Llama-3-70B's config.json (grouped-query attention, 8 KV heads).
    const LLAMA3_70B: &str = r#"{
      "architectures": ["LlamaForCausalLM"], "attention_bias": false, "attention_dropout": 0.0,
      "bos_token_id": 128000, "eos_token_id": 128001, "hidden_act": "silu",
      "hidden_size": 8192, "initializer_range": 0.02, "intermediate_size": 28672,
      "max_position_embeddings": 8192, "model_type": "llama", "num_attention_heads": 64,
      "num_hidden_layers": 80, "num_key_value_heads": 8, "pretraining_tp": 1,
      "rms_norm_eps": 1e-05, "rope_scaling": null, "rope_theta": 500000.0,
      "tie_word_embeddings": false, "torch_dtype": "bfloat16", "vocab_size": 128256
    }"#;

    /// Qwen2-0.5B's config.json (tied embeddings, head_dim implied, GQA with 2 KV heads).
    const QWEN2: &str = r#"{
      "architectures": ["Qwen2ForCausalLM"], "hidden_act": "silu", "hidden_size": 896,
      "intermediate_size": 4864, "max_position_embeddings": 131072, "model_type": "qwen2",
      "num_attention_heads": 14, "num_hidden_layers": 24, "num_key_value_heads": 2,
      "sliding_window": 131072, "tie_word_embeddings": true, "use_sliding_window": false,
      "vocab_size": 151936
    }"#;

    #[test]
    fn gpt2_reads_its_own_names_and_defaults() {
        // Test only: GPT2 is a well-formed config.json the page models; a failure is the verdict.
        let f = parse_config_json(GPT2).unwrap();
        assert_eq!(field(&f, "cl"), Value::Int(12));
        assert_eq!(field(&f, "cd"), Value::Int(768));
        assert_eq!(field(&f, "ch"), Value::Int(12));
        assert_eq!(field(&f, "ckv"), Value::Int(12));
        assert_eq!(field(&f, "cdh"), Value::Int(64));
        assert_eq!(
            field(&f, "cff"),
            Value::Int(3072),
            "n_inner defaults to 4·n_embd"
        );
        assert_eq!(field(&f, "cmlp"), Value::Choice("gelu"));
        assert_eq!(field(&f, "ctie"), Value::Bool(true));
        assert_eq!(field(&f, "cwin"), Value::Int(0));
    }

    #[test]
    fn llama2_reads_as_the_llama2_preset() {
        // Test only: LLAMA2 is a well-formed config.json the page models.
        let f = parse_config_json(LLAMA2).unwrap();
        let expected = [
            ("cl", Value::Int(32)),
            ("cd", Value::Int(4096)),
            ("ch", Value::Int(32)),
            ("ckv", Value::Int(32)),
            ("cdh", Value::Int(128)),
            ("cff", Value::Int(11008)),
            ("cmlp", Value::Choice("swiglu")),
            ("cv", Value::Int(32000)),
            ("cwin", Value::Int(0)),
            ("ctie", Value::Bool(false)),
        ];
        assert_eq!(f, expected.to_vec());
    }

    #[test]
    fn grouped_query_models_keep_their_key_value_heads_and_window() {
        // Test only: the three files are well-formed configs the page models.
        let m = parse_config_json(MISTRAL).unwrap();
        assert_eq!(field(&m, "ckv"), Value::Int(8));
        assert_eq!(field(&m, "cwin"), Value::Int(4096));
        let l = parse_config_json(LLAMA3_70B).unwrap();
        assert_eq!(field(&l, "cl"), Value::Int(80));
        assert_eq!(field(&l, "ckv"), Value::Int(8));
        assert_eq!(field(&l, "cv"), Value::Int(128_256));
        let q = parse_config_json(QWEN2).unwrap();
        assert_eq!(field(&q, "cdh"), Value::Int(64));
        assert_eq!(field(&q, "ckv"), Value::Int(2));
        assert_eq!(field(&q, "ctie"), Value::Bool(true));
    }

    #[test]
    fn bad_json_is_refused_with_a_message() {
        let e = parse_config_json("{\"hidden_size\": 4096,").unwrap_err();
        assert!(matches!(e, ConfigJsonError::NotAnObject(_)), "{e}");
        let e = parse_config_json("[1, 2]").unwrap_err();
        assert!(e.to_string().contains("not an object"), "{e}");
    }

    #[test]
    fn a_missing_field_is_named() {
        let e =
            parse_config_json(&LLAMA2.replace("\"vocab_size\": 32000", "\"x\": 1")).unwrap_err();
        assert_eq!(e, ConfigJsonError::Missing("vocab_size"));
        assert_eq!(e.to_string(), "The file has no vocab_size.");
    }

    #[test]
    fn a_wrong_type_is_named() {
        let e = parse_config_json(
            &LLAMA2.replace("\"hidden_size\": 4096", "\"hidden_size\": \"4096\""),
        )
        .unwrap_err();
        assert_eq!(e.to_string(), "hidden_size should be a whole number.");
        let e =
            parse_config_json(&LLAMA2.replace("\"hidden_size\": 4096", "\"hidden_size\": 40.5"))
                .unwrap_err();
        assert!(e.to_string().starts_with("hidden_size"), "{e}");
    }

    #[test]
    fn an_absurd_size_is_named_with_the_range() {
        let e = parse_config_json(
            &LLAMA2.replace("\"num_hidden_layers\": 32", "\"num_hidden_layers\": 100000"),
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "num_hidden_layers is 100000; the page models 1 to 256."
        );
        let e = parse_config_json(&LLAMA2.replace("\"hidden_size\": 4096", "\"hidden_size\": -3"))
            .unwrap_err();
        assert!(matches!(e, ConfigJsonError::OutOfRange { .. }), "{e}");
    }

    #[test]
    fn heads_that_do_not_fit_together_are_refused() {
        let e = parse_config_json(
            &LLAMA2.replace("\"num_key_value_heads\": 32", "\"num_key_value_heads\": 5"),
        )
        .unwrap_err();
        assert!(e.to_string().contains("must divide"), "{e}");
    }
}
