//! The URL state: a typed table of every setting on the page, parsed from and written to
//! the query string, and the reactive store the page reads it through.
//!
//! - [`table`]: one row per key (kind, range, default, meaning, figures);
//! - [`choices`]: one row per option of every choice (URL id, label, typed value);
//! - [`custom_model`]: the custom model's fields as a configuration; [`config_json`]: a
//!   pasted config.json read into those fields;
//! - [`registry`]: the passes and their figures (ids, numbers, titles);
//! - [`params`]: the values of every key, read through [`Params::get`];
//! - [`query`]: parsing a query string (total, with notices) and writing one;
//! - [`number`]: decimal numerals to f64;
//! - [`reads`]: which keys a computation read;
//! - [`view`]: the keys that lay the page out (`embed`, `hide`, `theme`);
//! - [`store`]: the reactive store, [`UrlState`], and the controls' bindings.
//!
//! Data flows one way: URL → [`Params`] → the store's memos → the passes' math → drawing.

pub mod choices;
pub mod config_json;
pub mod custom_model;
pub mod number;
pub mod params;
pub mod query;
pub mod reads;
pub mod registry;
pub mod store;
pub mod table;
pub mod view;

pub use choices::{Choice, ChoiceList, Choices};
pub use number::{parse_number, round_significant};
pub use params::{Params, StateError};
pub use query::{display_value, value_from_text, Notice};
pub use reads::{KeySet, Recording};
pub use store::{use_url_state, UrlState};
pub use table::{
    float_range, int_range, pow2_range, spec, spec_index, ParamKind, ParamSpec, Value, PARAMS,
    SEED_MAX,
};
pub use view::{ShownControls, Theme, View};
