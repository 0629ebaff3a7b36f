//! Everything Pass 2 computes from the URL state: the model configuration (a published
//! one or the custom fields, validated), the context, element type and batch, and the
//! memory read out at the chosen n.

use leptos::prelude::*;

use crate::math::complexity::{
    flash_extra_bytes, growth_on_doubling, kv_cache_bytes, score_matrix_bytes, weights_bytes,
    ModelConfig,
};
use crate::state::choices::{AXES, DTYPES, MODELS};
use crate::state::custom_model::chosen_config;
use crate::state::Params;
use crate::state::UrlState;

/// Accelerator memories drawn as levels: 24 GiB (consumer), 80 GiB (A100/H100), 141 GiB (H200).
pub const ACCELERATOR_GIB: [f64; 3] = [24.0, 80.0, 141.0];

pub const GIB: f64 = 1024.0 * 1024.0 * 1024.0;

/// The configuration the URL asks for: a preset, or the custom fields, validated.
pub fn config_from_params(p: &Params) -> Result<ModelConfig, String> {
    chosen_config(p, "model", &MODELS)
}

/// Context lengths for curves: 2^(7 + k/4), from 128 to 2^20.
pub fn context_grid() -> Vec<u64> {
    (0..=52)
        .map(|k| 2f64.powf(7.0 + k as f64 / 4.0).round() as u64)
        .collect()
}

/// Everything Pass 2 computes from the URL state.
#[derive(Clone, Copy)]
pub struct ComplexityModel {
    pub state: UrlState,
    pub n: Memo<u64>,
    pub dtype: Memo<&'static str>,
    pub batch: Memo<u32>,
    pub log_axes: Memo<bool>,
    pub config: Memo<Result<ModelConfig, String>>,
}

/// The numbers read out at the chosen n.
#[derive(Clone, Debug, PartialEq)]
pub struct MemoryAtN {
    pub score: f64,
    pub kv: f64,
    pub flash: f64,
    pub weights: f64,
    pub score_growth: f64,
    pub kv_growth: f64,
}

impl ComplexityModel {
    pub fn new(state: UrlState) -> Self {
        let p = state;
        let n = Memo::new(move |_| p.tracked(|p| p.int("ctx")).max(0) as u64);
        let dtype = Memo::new(move |_| p.tracked(|p| p.choice("dtype")));
        let batch = Memo::new(move |_| p.tracked(|p| p.int("batch")).max(1) as u32);
        let log_axes = Memo::new(move |_| p.tracked(|p| p.chosen("axes", &AXES)));
        let config = Memo::new(move |_| p.tracked(config_from_params));
        Self {
            state,
            n,
            dtype,
            batch,
            log_axes,
            config,
        }
    }

    /// Memory at the chosen n (None when the configuration is invalid).
    pub fn memory_at_n(&self) -> Option<MemoryAtN> {
        let (n, b, e) = (
            self.n.get(),
            self.batch.get(),
            DTYPES.value_of(self.dtype.get()),
        );
        self.config.with(|c| {
            c.as_ref().ok().map(|cfg| MemoryAtN {
                score: score_matrix_bytes(cfg, b, n, e),
                kv: kv_cache_bytes(cfg, b, n, e),
                flash: flash_extra_bytes(cfg, b, n),
                weights: weights_bytes(cfg, e),
                score_growth: growth_on_doubling(|m| score_matrix_bytes(cfg, b, m, e), n),
                kv_growth: growth_on_doubling(|m| kv_cache_bytes(cfg, b, m, e), n),
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::complexity::{MAX_CONTEXT, MIN_CONTEXT};

    #[test]
    fn presets_come_from_the_url() {
        let (p, _, _) = Params::from_query("model=llama3-70b");
        assert_eq!(config_from_params(&p).map(|c| c.layers), Ok(80));
    }

    #[test]
    fn invalid_custom_configuration_is_a_message_not_a_panic() {
        let (p, _, _) = Params::from_query("model=custom&ch=32&ckv=5");
        let err = config_from_params(&p).unwrap_err();
        assert!(err.contains("kv_heads (5) must divide heads (32)"), "{err}");
        let (p, _, notices) = Params::from_query("model=custom&ch=0&cd=NaN");
        assert_eq!(
            notices.len(),
            2,
            "zero heads and NaN are named: {notices:?}"
        );
        // heads clamps to 1, which the default 8 KV heads then exceed: a message again.
        let err = config_from_params(&p).unwrap_err();
        assert!(err.contains("cannot exceed heads (1)"), "{err}");
    }

    #[test]
    fn context_grid_spans_the_control() {
        let g = context_grid();
        assert_eq!(g.first(), Some(&MIN_CONTEXT));
        assert_eq!(g.last(), Some(&MAX_CONTEXT));
    }
}
