//! Pass 2 — what attention costs: the n² score matrix against the linear KV cache, and
//! FLOPs per layer (Vaswani et al. 2017; Kaplan et al. 2020, §2.1, for the FLOP counts).
//!
//! All sizes are in bytes and FLOPs as f64 (a million tokens of a 70B model overflows
//! nothing, and f64 is exact for integers below 2⁵³, far above any count here).
//! A multiply–add counts as two FLOPs. Causal masking is ignored (it halves the n² terms
//! in a kernel that skips masked blocks; the growth law is unchanged).

use serde::{Deserialize, Serialize};
use std::fmt;

/// The feed-forward block's form.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum MlpKind {
    /// Two matrices, d_model → d_ff → d_model, with GELU (GPT-2).
    Gelu,
    /// Three matrices, gate and up d_model → d_ff, down d_ff → d_model (Llama, Mistral).
    SwiGlu,
}

impl MlpKind {
    /// Number of d_model × d_ff matrices.
    pub fn matrices(self) -> u32 {
        match self {
            MlpKind::Gelu => 2,
            MlpKind::SwiGlu => 3,
        }
    }
}

/// A decoder-only transformer's shape.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ModelConfig {
    pub name: &'static str,
    pub layers: u32,
    pub d_model: u32,
    /// Query heads.
    pub heads: u32,
    /// Key/value heads (grouped-query attention when fewer than `heads`).
    pub kv_heads: u32,
    pub d_head: u32,
    pub d_ff: u32,
    pub mlp: MlpKind,
    pub vocab: u32,
    /// Input embedding and output projection share one matrix.
    pub tied_embeddings: bool,
    pub max_context: u64,
    /// Sliding-window attention: the cache keeps at most this many positions.
    pub sliding_window: Option<u64>,
}

/// Why a configuration cannot be evaluated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConfigError {
    /// A field that must be positive is zero.
    Zero(&'static str),
    /// `kv_heads` must divide `heads` (each KV head serves a whole group of query heads).
    KvHeadsDoNotDivideHeads { heads: u32, kv_heads: u32 },
    /// More KV heads than query heads.
    MoreKvHeadsThanHeads { heads: u32, kv_heads: u32 },
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::Zero(field) => write!(f, "{field} must be at least 1"),
            ConfigError::KvHeadsDoNotDivideHeads { heads, kv_heads } => {
                write!(f, "kv_heads ({kv_heads}) must divide heads ({heads}): each key/value head serves a whole group of query heads")
            }
            ConfigError::MoreKvHeadsThanHeads { heads, kv_heads } => {
                write!(f, "kv_heads ({kv_heads}) cannot exceed heads ({heads})")
            }
        }
    }
}

impl ModelConfig {
    /// Checks the fields the formulas need.
    pub fn validate(&self) -> Result<(), ConfigError> {
        for (name, v) in [
            ("layers", self.layers),
            ("d_model", self.d_model),
            ("heads", self.heads),
            ("kv_heads", self.kv_heads),
            ("d_head", self.d_head),
            ("d_ff", self.d_ff),
        ] {
            if v == 0 {
                return Err(ConfigError::Zero(name));
            }
        }
        if self.kv_heads > self.heads {
            return Err(ConfigError::MoreKvHeadsThanHeads {
                heads: self.heads,
                kv_heads: self.kv_heads,
            });
        }
        if !self.heads.is_multiple_of(self.kv_heads) {
            return Err(ConfigError::KvHeadsDoNotDivideHeads {
                heads: self.heads,
                kv_heads: self.kv_heads,
            });
        }
        Ok(())
    }

    /// Width of the concatenated query heads, heads · d_head.
    pub fn attention_width(&self) -> f64 {
        self.heads as f64 * self.d_head as f64
    }
}

/// Shortest context the page models (tokens).
pub const MIN_CONTEXT: u64 = 128;
/// Longest context the page models: 2²⁰ tokens, about a million.
pub const MAX_CONTEXT: u64 = 1 << 20;

/// A published configuration: name, layers, d_model, heads, kv_heads, d_ff, MLP, vocab,
/// tied embeddings, context, sliding window (d_head = d_model / heads).
#[allow(clippy::too_many_arguments)]
const fn published(
    name: &'static str,
    layers: u32,
    d_model: u32,
    heads: u32,
    kv_heads: u32,
    d_ff: u32,
    mlp: MlpKind,
    vocab: u32,
    tied_embeddings: bool,
    max_context: u64,
    sliding_window: Option<u64>,
) -> ModelConfig {
    ModelConfig {
        name,
        layers,
        d_model,
        heads,
        kv_heads,
        d_head: d_model / heads,
        d_ff,
        mlp,
        vocab,
        tied_embeddings,
        max_context,
        sliding_window,
    }
}

// Published configurations. Sources: the `config.json` of each model's release on the
// Hugging Face hub (openai-community/gpt2; meta-llama/Llama-2-7b-hf;
// meta-llama/Meta-Llama-3-8B; meta-llama/Meta-Llama-3-70B; mistralai/Mistral-7B-v0.1),
// fields n_layer/num_hidden_layers, n_embd/hidden_size, n_head/num_attention_heads,
// num_key_value_heads, intermediate_size (GPT-2: n_inner = 4·n_embd), vocab_size,
// tie_word_embeddings, n_ctx/max_position_embeddings, sliding_window.

/// GPT-2 small.
pub const GPT2_SMALL: ModelConfig = published(
    "GPT-2 small",
    12,
    768,
    12,
    12,
    3072,
    MlpKind::Gelu,
    50_257,
    true,
    1024,
    None,
);
/// Llama-2-7B.
pub const LLAMA2_7B: ModelConfig = published(
    "Llama-2-7B",
    32,
    4096,
    32,
    32,
    11_008,
    MlpKind::SwiGlu,
    32_000,
    false,
    4096,
    None,
);
/// Llama-3-8B (grouped-query attention, 8 KV heads).
pub const LLAMA3_8B: ModelConfig = published(
    "Llama-3-8B",
    32,
    4096,
    32,
    8,
    14_336,
    MlpKind::SwiGlu,
    128_256,
    false,
    8192,
    None,
);
/// Llama-3-70B (grouped-query attention, 8 KV heads).
pub const LLAMA3_70B: ModelConfig = published(
    "Llama-3-70B",
    80,
    8192,
    64,
    8,
    28_672,
    MlpKind::SwiGlu,
    128_256,
    false,
    8192,
    None,
);
/// Mistral-7B (grouped-query attention and a 4096-token sliding window).
pub const MISTRAL_7B: ModelConfig = published(
    "Mistral-7B",
    32,
    4096,
    32,
    8,
    14_336,
    MlpKind::SwiGlu,
    32_000,
    false,
    32_768,
    Some(4096),
);

/// Every published configuration.
pub const PRESETS: [ModelConfig; 5] = [GPT2_SMALL, LLAMA2_7B, LLAMA3_8B, LLAMA3_70B, MISTRAL_7B];

/// Bytes of one layer's materialised attention scores (or probabilities) for batch b and
/// context n at e bytes per element: b · heads · n² · e.
pub fn score_matrix_bytes(cfg: &ModelConfig, batch: u32, n: u64, elem_bytes: f64) -> f64 {
    batch as f64 * cfg.heads as f64 * (n as f64) * (n as f64) * elem_bytes
}

/// KV-cache bytes per token: 2 (K and V) · layers · kv_heads · d_head · e.
pub fn kv_bytes_per_token(cfg: &ModelConfig, elem_bytes: f64) -> f64 {
    2.0 * cfg.layers as f64 * cfg.kv_heads as f64 * cfg.d_head as f64 * elem_bytes
}

/// Positions the cache holds at context n: n, or the sliding window if smaller.
pub fn cached_positions(cfg: &ModelConfig, n: u64) -> u64 {
    cfg.sliding_window.map_or(n, |w| n.min(w))
}

/// KV-cache bytes for batch b at context n: b · 2 · layers · kv_heads · d_head · min(n, window) · e.
pub fn kv_cache_bytes(cfg: &ModelConfig, batch: u32, n: u64, elem_bytes: f64) -> f64 {
    batch as f64 * kv_bytes_per_token(cfg, elem_bytes) * cached_positions(cfg, n) as f64
}

/// FlashAttention's extra memory for one layer: b · heads · n · 4 bytes.
///
/// FlashAttention never materialises S: it streams K and V tiles through on-chip memory
/// and keeps, per query row, the running maximum and normaliser, of which the forward pass
/// writes one fp32 log-sum-exp per row for the backward (Dao et al. 2022, §3.1, "O(N)
/// additional memory"; Dao 2023, FlashAttention-2, Algorithm 1, output L). The tiles
/// themselves are a constant independent of n, left out.
pub fn flash_extra_bytes(cfg: &ModelConfig, batch: u32, n: u64) -> f64 {
    batch as f64 * cfg.heads as f64 * n as f64 * 4.0
}

/// Parameter count: per layer the Q, K, V, O projections d·(h·d_h) + 2·d·(kv·d_h) + (h·d_h)·d,
/// the MLP (2 or 3)·d·d_ff and two norm scales 2·d; then the embedding vocab·d (twice if
/// untied) and a final norm d. Biases are left out (GPT-2 has them: 0.08 % of its weights).
pub fn parameter_count(cfg: &ModelConfig) -> f64 {
    let (d, hd, kvd) = (
        cfg.d_model as f64,
        cfg.attention_width(),
        cfg.kv_heads as f64 * cfg.d_head as f64,
    );
    let attention = d * hd + 2.0 * d * kvd + hd * d;
    let mlp = cfg.mlp.matrices() as f64 * d * cfg.d_ff as f64;
    let per_layer = attention + mlp + 2.0 * d;
    let embeddings = cfg.vocab as f64 * d * if cfg.tied_embeddings { 1.0 } else { 2.0 };
    cfg.layers as f64 * per_layer + embeddings + d
}

/// Bytes of the weights at e bytes per parameter.
pub fn weights_bytes(cfg: &ModelConfig, elem_bytes: f64) -> f64 {
    parameter_count(cfg) * elem_bytes
}

/// FLOPs of one layer's forward pass over n tokens, split by where they are spent.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LayerFlops {
    /// QKᵀ and the weighted sum of values: 4 · n² · (heads · d_head).
    pub attention_scores: f64,
    /// Q, K, V, O projections: 2·n·d·(2·h·d_h + 2·kv·d_h).
    pub projections: f64,
    /// The MLP: 2 · n · d · d_ff · (2 or 3).
    pub mlp: f64,
}

/// Forward FLOPs of one layer over n tokens.
pub fn layer_flops(cfg: &ModelConfig, n: u64) -> LayerFlops {
    let n = n as f64;
    let (d, hd, kvd) = (
        cfg.d_model as f64,
        cfg.attention_width(),
        cfg.kv_heads as f64 * cfg.d_head as f64,
    );
    LayerFlops {
        attention_scores: 4.0 * n * n * hd,
        projections: 2.0 * n * d * (2.0 * hd + 2.0 * kvd),
        mlp: 2.0 * n * d * cfg.d_ff as f64 * cfg.mlp.matrices() as f64,
    }
}

/// The context length at which the n² term equals the linear terms:
/// 4·n²·h·d_h = n·(P + M) with P, M the per-token projection and MLP FLOPs, so
/// n* = (P + M) / (4 · h · d_h).
pub fn attention_crossover(cfg: &ModelConfig) -> f64 {
    let per_token = layer_flops(cfg, 1);
    (per_token.projections + per_token.mlp) / (4.0 * cfg.attention_width())
}

/// Factor by which `f` grows when n doubles: f(2n) / f(n).
pub fn growth_on_doubling(f: impl Fn(u64) -> f64, n: u64) -> f64 {
    let base = f(n);
    if base == 0.0 {
        return 0.0;
    }
    f(n.saturating_mul(2)) / base
}

/// Rows `rows` of single-head attention, O_i = Σ_j softmax_j(q_i·k_j / √d) v_j, for Q, K,
/// V of shape n × d stored row-major; written into the same rows of `out` (n × d).
/// `scores` is scratch space of length n. Rows are independent, so the measurement in the
/// browser can compute a few rows at a time and yield in between. Out-of-range rows or
/// short buffers are ignored (no panic).
pub fn attention_rows(
    q: &[f64],
    k: &[f64],
    v: &[f64],
    d: usize,
    rows: std::ops::Range<usize>,
    out: &mut [f64],
    scores: &mut [f64],
) {
    let n = scores.len();
    if d == 0 || q.len() < n * d || k.len() < n * d || v.len() < n * d || out.len() < n * d {
        return;
    }
    let scale = 1.0 / (d as f64).sqrt();
    for i in rows.start..rows.end.min(n) {
        let qi = &q[i * d..(i + 1) * d];
        let mut top = f64::NEG_INFINITY;
        for (j, s) in scores.iter_mut().enumerate() {
            let kj = &k[j * d..(j + 1) * d];
            *s = scale * qi.iter().zip(kj).map(|(a, b)| a * b).sum::<f64>();
            top = top.max(*s);
        }
        let mut total = 0.0;
        for s in scores.iter_mut() {
            *s = (*s - top).exp();
            total += *s;
        }
        let oi = &mut out[i * d..(i + 1) * d];
        oi.iter_mut().for_each(|o| *o = 0.0);
        for (j, s) in scores.iter().enumerate() {
            let w = s / total;
            for (o, vj) in oi.iter_mut().zip(&v[j * d..(j + 1) * d]) {
                *o += w * vj;
            }
        }
    }
}

/// Least-squares fit of a power law t = c · n^b to points (n, t) with n, t > 0, by linear
/// regression of ln t on ln n. Returns (c, b), or `None` with fewer than two usable points
/// or no spread in n.
pub fn fit_power_law(points: &[(f64, f64)]) -> Option<(f64, f64)> {
    let logs: Vec<(f64, f64)> = points
        .iter()
        .filter(|(n, t)| *n > 0.0 && *t > 0.0 && n.is_finite() && t.is_finite())
        .map(|(n, t)| (n.ln(), t.ln()))
        .collect();
    if logs.len() < 2 {
        return None;
    }
    let m = logs.len() as f64;
    let (mx, my) = (
        logs.iter().map(|p| p.0).sum::<f64>() / m,
        logs.iter().map(|p| p.1).sum::<f64>() / m,
    );
    let sxx: f64 = logs.iter().map(|p| (p.0 - mx).powi(2)).sum();
    if sxx <= 0.0 {
        return None;
    }
    let sxy: f64 = logs.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let b = sxy / sxx;
    Some(((my - b * mx).exp(), b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attention_rows_match_a_direct_computation() {
        let (n, d) = (5, 3);
        let q: Vec<f64> = (0..n * d)
            .map(|i| ((i * 7 % 11) as f64 - 5.0) / 4.0)
            .collect();
        let k: Vec<f64> = (0..n * d)
            .map(|i| ((i * 5 % 13) as f64 - 6.0) / 5.0)
            .collect();
        let v: Vec<f64> = (0..n * d).map(|i| (i as f64).sin()).collect();
        let mut out = vec![0.0; n * d];
        let mut scratch = vec![0.0; n];
        attention_rows(&q, &k, &v, d, 0..2, &mut out, &mut scratch);
        attention_rows(&q, &k, &v, d, 2..n, &mut out, &mut scratch);
        for i in 0..n {
            let s: Vec<f64> = (0..n)
                .map(|j| {
                    (0..d).map(|m| q[i * d + m] * k[j * d + m]).sum::<f64>() / (d as f64).sqrt()
                })
                .collect();
            let p = crate::math::softmax::softmax(&s);
            for m in 0..d {
                let want: f64 = (0..n).map(|j| p[j] * v[j * d + m]).sum();
                assert!((out[i * d + m] - want).abs() < 1e-14, "row {i} col {m}");
            }
        }
    }

    #[test]
    fn identical_keys_average_the_values() {
        let (n, d) = (4, 2);
        let q = vec![1.0; n * d];
        let k = vec![0.5; n * d];
        let v: Vec<f64> = (0..n * d).map(|i| i as f64).collect();
        let mut out = vec![0.0; n * d];
        attention_rows(&q, &k, &v, d, 0..n, &mut out, &mut vec![0.0; n]);
        assert!((out[0] - 3.0).abs() < 1e-14 && (out[1] - 4.0).abs() < 1e-14);
    }

    #[test]
    fn power_law_fit_recovers_exact_exponents() {
        let pts: Vec<(f64, f64)> = [64.0, 128.0, 256.0, 512.0]
            .iter()
            .map(|&n| (n, 3e-6 * n * n))
            .collect();
        // Test only: the points are finite and positive, so the fit exists.
        let (c, b) = fit_power_law(&pts).expect("fit");
        assert!((b - 2.0).abs() < 1e-12 && (c / 3e-6 - 1.0).abs() < 1e-9);
        assert_eq!(fit_power_law(&[(64.0, 1.0)]), None);
        assert_eq!(fit_power_law(&[(64.0, 1.0), (64.0, 2.0)]), None);
    }

    fn preset(id: &str) -> ModelConfig {
        match id {
            "gpt2" => GPT2_SMALL,
            "llama2-7b" => LLAMA2_7B,
            "llama3-8b" => LLAMA3_8B,
            "llama3-70b" => LLAMA3_70B,
            "mistral-7b" => MISTRAL_7B,
            // Test only: called with the ids above.
            other => panic!("no preset {other}"),
        }
    }

    #[test]
    fn fp16_kv_bytes_per_token_by_hand() {
        // 2 · layers · kv_heads · d_head · 2 bytes.
        assert_eq!(kv_bytes_per_token(&preset("gpt2"), 2.0), 36_864.0); // 2·12·12·64·2
        assert_eq!(kv_bytes_per_token(&preset("llama2-7b"), 2.0), 524_288.0); // 2·32·32·128·2
        assert_eq!(kv_bytes_per_token(&preset("llama3-8b"), 2.0), 131_072.0); // 2·32·8·128·2
        assert_eq!(kv_bytes_per_token(&preset("llama3-70b"), 2.0), 327_680.0); // 2·80·8·128·2
    }

    #[test]
    fn scores_grow_fourfold_and_the_cache_twofold_when_n_doubles() {
        let cfg = preset("llama2-7b");
        for n in [128u64, 4096, 1 << 19] {
            assert_eq!(
                growth_on_doubling(|n| score_matrix_bytes(&cfg, 1, n, 2.0), n),
                4.0
            );
            assert_eq!(
                growth_on_doubling(|n| kv_cache_bytes(&cfg, 1, n, 2.0), n),
                2.0
            );
            assert_eq!(
                growth_on_doubling(|n| flash_extra_bytes(&cfg, 1, n), n),
                2.0
            );
        }
    }

    #[test]
    fn sliding_window_caps_the_cache() {
        let cfg = preset("mistral-7b");
        assert_eq!(
            kv_cache_bytes(&cfg, 1, 100_000, 2.0),
            kv_cache_bytes(&cfg, 1, 4096, 2.0)
        );
        assert_eq!(
            growth_on_doubling(|n| kv_cache_bytes(&cfg, 1, n, 2.0), 8192),
            1.0
        );
    }

    #[test]
    fn score_matrix_bytes_by_hand() {
        // Llama-2-7B, n = 4096, bf16: 32 heads · 4096² · 2 bytes = 1 GiB per layer.
        assert_eq!(
            score_matrix_bytes(&preset("llama2-7b"), 1, 4096, 2.0),
            1024.0 * 1024.0 * 1024.0
        );
    }

    #[test]
    fn parameter_counts_match_the_published_sizes() {
        // Published: GPT-2 small 124M (with biases and positions), Llama-2-7B 6.74B,
        // Llama-3-8B 8.03B, Llama-3-70B 70.6B, Mistral-7B 7.24B.
        let close = |id: &str, published: f64, tol: f64| {
            let got = parameter_count(&preset(id));
            assert!(
                (got / published - 1.0).abs() < tol,
                "{id}: {got} vs {published}"
            );
        };
        close("gpt2", 124.4e6, 0.02);
        close("llama2-7b", 6.738e9, 0.002);
        close("llama3-8b", 8.030e9, 0.002);
        close("llama3-70b", 70.55e9, 0.002);
        close("mistral-7b", 7.242e9, 0.002);
    }

    #[test]
    fn crossover_satisfies_its_defining_equation() {
        for cfg in PRESETS {
            let n = attention_crossover(&cfg);
            let hd = cfg.attention_width();
            let per_token = layer_flops(&cfg, 1);
            let lhs = 4.0 * n * n * hd;
            let rhs = n * (per_token.projections + per_token.mlp);
            assert!(
                (lhs / rhs - 1.0).abs() < 1e-12,
                "{}: {lhs} vs {rhs}",
                cfg.name
            );
        }
    }

    #[test]
    fn crossover_for_llama2_7b_by_hand() {
        // P = 2·4096·(2·4096 + 2·4096) = 134,217,728; M = 2·4096·11008·3 = 270,532,608;
        // n* = (P + M) / (4·4096) = 24,704.
        assert_eq!(attention_crossover(&preset("llama2-7b")), 24_704.0);
    }

    #[test]
    fn layer_flops_by_hand() {
        let f = layer_flops(&preset("gpt2"), 1024);
        assert_eq!(f.attention_scores, 4.0 * 1024.0 * 1024.0 * 768.0);
        assert_eq!(f.projections, 2.0 * 1024.0 * 768.0 * (4.0 * 768.0));
        assert_eq!(f.mlp, 2.0 * 1024.0 * 768.0 * 3072.0 * 2.0);
    }

    #[test]
    fn invalid_configurations_are_errors_not_panics() {
        let mut cfg = preset("llama3-8b");
        cfg.heads = 0;
        assert_eq!(cfg.validate(), Err(ConfigError::Zero("heads")));
        let mut cfg = preset("llama3-8b");
        cfg.kv_heads = 5;
        assert!(matches!(
            cfg.validate(),
            Err(ConfigError::KvHeadsDoNotDivideHeads { .. })
        ));
        let mut cfg = preset("llama3-8b");
        cfg.kv_heads = 64;
        assert!(matches!(
            cfg.validate(),
            Err(ConfigError::MoreKvHeadsThanHeads { .. })
        ));
        for cfg in PRESETS {
            assert_eq!(cfg.validate(), Ok(()), "{}", cfg.name);
        }
    }

    #[test]
    fn a_million_tokens_stays_finite() {
        let cfg = preset("llama3-70b");
        let n = 1 << 20;
        assert!(score_matrix_bytes(&cfg, 64, n, 4.0).is_finite());
        assert!(kv_cache_bytes(&cfg, 64, n, 4.0).is_finite());
        assert!(layer_flops(&cfg, n).attention_scores.is_finite());
    }
}
