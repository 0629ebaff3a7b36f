//! Where the memory of fine-tuning goes: the bytes of full fine-tuning, LoRA and QLoRA for a
//! real model, by component (weights, master weights, gradients, optimiser states, adapters,
//! quantisation constants, activations).
//!
//! Sources for each accounting choice:
//! - Mixed-precision AdamW keeps 16-bit weights and gradients, 32-bit master weights and two
//!   32-bit moments: 2 + 2 + 4 + 4 + 4 = 16 bytes per trained parameter (Rajbhandari et al.,
//!   "ZeRO", 2020, §3.1).
//! - LoRA (Hu et al., 2021): ΔW = BA with B ∈ ℝ^{d_out×r}, A ∈ ℝ^{r×d_in} on chosen matrices;
//!   the base is frozen, so it has no gradients and no optimiser states.
//! - QLoRA (Dettmers et al., 2023): the frozen linear layers in 4-bit NormalFloat, one absmax
//!   constant per block of 64 weights; with double quantisation those constants are 8-bit,
//!   with one 32-bit constant per 256 of them: 4 + 8/64 + 32/(64·256) bits per weight instead
//!   of 4 + 32/64. Embeddings and norms stay 16-bit.
//! - Activations: what the backward pass reads, per token and layer, counted tensor by tensor
//!   for a pre-norm decoder block with FlashAttention (the n² scores are never stored),
//!   in the manner of Korthikanti et al., "Reducing Activation Recomputation in Large
//!   Transformer Models" (2022), §4.1; with gradient checkpointing only each block's input is
//!   kept, and one block's activations are rebuilt at a time.
//!
//! All sizes are bytes as f64 (exact for integers below 2⁵³).

use super::complexity::{parameter_count, ModelConfig};

/// How the whole model is fine-tuned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// Every weight is trained.
    Full,
    /// Frozen 16-bit base, trainable low-rank adapters.
    Lora,
    /// Frozen 4-bit NF4 base (linear layers), trainable 16-bit adapters.
    Qlora,
}

/// Every method, in the order the figure draws them.
pub const METHODS: [Method; 3] = [Method::Full, Method::Lora, Method::Qlora];

/// Which weight matrices get an adapter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AdapterTargets {
    /// W_q and W_v of every layer (the LoRA paper's GPT-3 set-up).
    QueryValue,
    /// Every linear layer of every block: W_q, W_k, W_v, W_o and the MLP's matrices (QLoRA).
    AllLinear,
}

/// What one trained parameter costs, by the optimiser and precision recipe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recipe {
    /// Mixed-precision AdamW: 16-bit weights and gradients, 32-bit master weights and
    /// moments: 2 + 4 + 2 + 8 = 16 bytes (ZeRO).
    Mixed,
    /// 16-bit weights and gradients, 32-bit moments, no master copy: 2 + 2 + 8 = 12 bytes
    /// (QLoRA's "16-bit full finetuning").
    Half,
    /// 16-bit weights and 16-bit moments, the optimiser step fused into the backward pass so
    /// that only one layer's gradients exist at a time: 2 + 4 bytes plus one layer of 16-bit
    /// gradients (the LoRA paper's count: weights plus optimiser states at twice their size).
    Lean,
}

impl Recipe {
    /// Bytes of a 32-bit master copy per trained parameter.
    pub fn master_bytes(self) -> f64 {
        match self {
            Recipe::Mixed => 4.0,
            Recipe::Half | Recipe::Lean => 0.0,
        }
    }

    /// Bytes of the two Adam moments per trained parameter.
    pub fn moment_bytes(self) -> f64 {
        match self {
            Recipe::Mixed | Recipe::Half => 8.0,
            Recipe::Lean => 4.0,
        }
    }

    /// Whether every trained parameter's gradient is held until the step (otherwise one
    /// layer's at a time).
    pub fn holds_all_gradients(self) -> bool {
        !matches!(self, Recipe::Lean)
    }
}

/// Bytes of a 16-bit number.
pub const HALF_BYTES: f64 = 2.0;
/// Bits of one NF4 weight.
pub const NF4_BITS: f64 = 4.0;
/// Weights per block sharing one quantisation constant.
pub const QUANT_BLOCK: f64 = 64.0;
/// First-level constants per block of the second level (double quantisation).
pub const CONSTANT_BLOCK: f64 = 256.0;

/// Bits of quantisation constants per quantised weight: 32/64 = 0.5 without double
/// quantisation; 8/64 + 32/(64·256) ≈ 0.127 with it.
pub fn constant_bits_per_weight(double_quantisation: bool) -> f64 {
    if double_quantisation {
        8.0 / QUANT_BLOCK + 32.0 / (QUANT_BLOCK * CONSTANT_BLOCK)
    } else {
        32.0 / QUANT_BLOCK
    }
}

/// The shape of a fine-tuning run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FinetuneSetup {
    pub rank: u32,
    pub targets: AdapterTargets,
    pub batch: u32,
    pub seq_len: u32,
    pub checkpointing: bool,
    pub recipe: Recipe,
    pub double_quantisation: bool,
}

/// Bytes of one method, by component.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MemoryBreakdown {
    /// The model's weights as held on the device (16-bit, or NF4 for QLoRA's linear layers).
    pub weights: f64,
    /// 32-bit master copies of the trained parameters.
    pub master_weights: f64,
    /// Gradients of the trained parameters (16-bit).
    pub gradients: f64,
    /// AdamW's two moments of the trained parameters.
    pub optimizer_states: f64,
    /// The adapters' own 16-bit weights.
    pub adapters: f64,
    /// NF4's absmax constants (QLoRA).
    pub quant_constants: f64,
    /// Activations kept for the backward pass, and the logits of the loss.
    pub activations: f64,
}

/// The components' names, in the order they are stacked and listed.
pub const COMPONENTS: [&str; 7] = [
    "weights",
    "master weights",
    "gradients",
    "optimiser states",
    "adapters",
    "quantisation constants",
    "activations",
];

impl MemoryBreakdown {
    /// The components in the order of [`COMPONENTS`].
    pub fn parts(&self) -> [f64; 7] {
        [
            self.weights,
            self.master_weights,
            self.gradients,
            self.optimizer_states,
            self.adapters,
            self.quant_constants,
            self.activations,
        ]
    }

    /// Their sum.
    pub fn total(&self) -> f64 {
        self.parts().iter().sum()
    }
}

/// Parameters of one block's attention projections: d·(h·d_h) + 2·d·(kv·d_h) + (h·d_h)·d.
pub fn attention_params_per_layer(cfg: &ModelConfig) -> f64 {
    let (d, hd, kvd) = widths(cfg);
    d * hd + 2.0 * d * kvd + hd * d
}

/// Parameters of one block's MLP: (2 or 3) · d · d_ff.
pub fn mlp_params_per_layer(cfg: &ModelConfig) -> f64 {
    cfg.mlp.matrices() as f64 * cfg.d_model as f64 * cfg.d_ff as f64
}

/// Parameters in linear layers of the blocks (what QLoRA quantises):
/// layers · (attention + MLP).
pub fn linear_params(cfg: &ModelConfig) -> f64 {
    cfg.layers as f64 * (attention_params_per_layer(cfg) + mlp_params_per_layer(cfg))
}

/// Parameters of one block: attention, MLP and two norm scales.
pub fn params_per_layer(cfg: &ModelConfig) -> f64 {
    attention_params_per_layer(cfg) + mlp_params_per_layer(cfg) + 2.0 * cfg.d_model as f64
}

/// LoRA parameters of one block: r·(d_in + d_out) summed over the adapted matrices.
/// Query and value: r·(d + h·d_h) + r·(d + kv·d_h). Every linear layer adds W_k, W_o and the
/// MLP's (2 or 3) matrices of r·(d + d_ff) each.
pub fn adapter_params_per_layer(cfg: &ModelConfig, rank: u32, targets: AdapterTargets) -> f64 {
    let (d, hd, kvd) = widths(cfg);
    let r = rank as f64;
    let qv = r * (d + hd) + r * (d + kvd);
    match targets {
        AdapterTargets::QueryValue => qv,
        AdapterTargets::AllLinear => {
            qv + r * (d + kvd)
                + r * (hd + d)
                + cfg.mlp.matrices() as f64 * r * (d + cfg.d_ff as f64)
        }
    }
}

/// Adapter parameters of the whole model: layers · per layer.
pub fn adapter_params(cfg: &ModelConfig, rank: u32, targets: AdapterTargets) -> f64 {
    cfg.layers as f64 * adapter_params_per_layer(cfg, rank, targets)
}

/// Parameters a method trains: every one for full fine-tuning, the adapters otherwise.
pub fn trainable_params(cfg: &ModelConfig, method: Method, setup: &FinetuneSetup) -> f64 {
    match method {
        Method::Full => parameter_count(cfg),
        Method::Lora | Method::Qlora => adapter_params(cfg, setup.rank, setup.targets),
    }
}

/// 16-bit numbers one block keeps per token for its backward pass:
/// two norm inputs 2d; attention: its input d, Q, K, V (h·d_h + 2·kv·d_h), the output
/// before W_O (h·d_h); MLP: its input d and, for GELU, the pre-activation and activation
/// (2·d_ff), for SwiGLU the gate, the up projection and their product (3·d_ff).
/// FlashAttention's per-row log-sum-exp (h fp32 numbers) is added as 2·h halves.
pub fn activation_halves_per_token_per_layer(cfg: &ModelConfig) -> f64 {
    let (d, hd, kvd) = widths(cfg);
    let norms = 2.0 * d;
    let attention = d + hd + 2.0 * kvd + hd + 2.0 * cfg.heads as f64;
    let mlp = d + (cfg.mlp.matrices() as f64) * cfg.d_ff as f64;
    norms + attention + mlp
}

/// Bytes of activations: without checkpointing every block's tensors,
/// b·s·L·2·a with a from [`activation_halves_per_token_per_layer`]; with checkpointing each
/// block's 16-bit input b·s·L·2·d plus one block's tensors b·s·2·a, rebuilt in turn. Plus
/// the 32-bit logits of the loss, b·s·V·4, and the adapters' r-wide intermediates
/// (b·s·r·2 per adapted matrix per layer).
pub fn activation_bytes(cfg: &ModelConfig, method: Method, setup: &FinetuneSetup) -> f64 {
    let tokens = setup.batch as f64 * setup.seq_len as f64;
    let layers = cfg.layers as f64;
    let per_layer = HALF_BYTES * activation_halves_per_token_per_layer(cfg);
    let blocks = if setup.checkpointing {
        layers * HALF_BYTES * cfg.d_model as f64 + per_layer
    } else {
        layers * per_layer
    };
    let adapted = match (method, setup.targets) {
        (Method::Full, _) => 0.0,
        (_, AdapterTargets::QueryValue) => 2.0,
        (_, AdapterTargets::AllLinear) => 4.0 + cfg.mlp.matrices() as f64,
    };
    let adapter_rows = layers * adapted * setup.rank as f64 * HALF_BYTES;
    let logits = cfg.vocab as f64 * 4.0;
    tokens * (blocks + adapter_rows + logits)
}

/// The memory of fine-tuning `cfg` by `method` with `setup`, by component.
pub fn finetune_memory(
    cfg: &ModelConfig,
    method: Method,
    setup: &FinetuneSetup,
) -> MemoryBreakdown {
    let params = parameter_count(cfg);
    let trained = trainable_params(cfg, method, setup);
    let recipe = setup.recipe;
    // With the step fused into the backward pass only the largest layer's gradients exist
    // at once: a block's, or the embedding's for full fine-tuning.
    let gradient_params = if recipe.holds_all_gradients() {
        trained
    } else {
        match method {
            Method::Full => params_per_layer(cfg).max(cfg.vocab as f64 * cfg.d_model as f64),
            Method::Lora | Method::Qlora => {
                adapter_params_per_layer(cfg, setup.rank, setup.targets)
            }
        }
    };
    let (weights, adapters, quant_constants) = match method {
        Method::Full => (HALF_BYTES * params, 0.0, 0.0),
        Method::Lora => (HALF_BYTES * params, HALF_BYTES * trained, 0.0),
        Method::Qlora => {
            let quantised = linear_params(cfg);
            let kept = params - quantised;
            (
                quantised * NF4_BITS / 8.0 + kept * HALF_BYTES,
                HALF_BYTES * trained,
                quantised * constant_bits_per_weight(setup.double_quantisation) / 8.0,
            )
        }
    };
    MemoryBreakdown {
        weights,
        master_weights: recipe.master_bytes() * trained,
        gradients: HALF_BYTES * gradient_params,
        optimizer_states: recipe.moment_bytes() * trained,
        adapters,
        quant_constants,
        activations: activation_bytes(cfg, method, setup),
    }
}

/// One memory size a fine-tuning run may have to fit in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Device {
    /// Stable id (the `fits` readout).
    pub id: &'static str,
    pub label: &'static str,
    /// A short label for the chart.
    pub short: &'static str,
    /// Memory in bytes.
    pub bytes: f64,
    /// Where the number comes from.
    pub source: &'static str,
}

const GIB: f64 = 1024.0 * 1024.0 * 1024.0;

/// The devices the figure draws, smallest first. Memory as the makers sell it, in GiB (a
/// "24 GB" GPU has 24 GiB); a laptop's unified memory counted whole (the operating system
/// and, on macOS, a default limit on what the GPU may wire take a share of it).
pub const DEVICES: [Device; 7] = [
    Device {
        id: "laptop-16",
        label: "laptop, 16 GB unified memory",
        short: "16 GB laptop",
        bytes: 16.0 * GIB,
        source: "MacBook Air (M3) tech specs",
    },
    Device {
        id: "gpu-24",
        label: "consumer GPU, 24 GB",
        short: "24 GB GPU",
        bytes: 24.0 * GIB,
        source: "GeForce RTX 4090 specs",
    },
    Device {
        id: "laptop-36",
        label: "laptop, 36 GB unified memory",
        short: "36 GB laptop",
        bytes: 36.0 * GIB,
        source: "MacBook Pro (M4 Max) tech specs",
    },
    Device {
        id: "gpu-48",
        label: "workstation GPU, 48 GB",
        short: "48 GB GPU",
        bytes: 48.0 * GIB,
        source: "RTX 6000 Ada data sheet",
    },
    Device {
        id: "laptop-64",
        label: "laptop, 64 GB unified memory",
        short: "64 GB laptop",
        bytes: 64.0 * GIB,
        source: "MacBook Pro (M4 Max) tech specs",
    },
    Device {
        id: "gpu-80",
        label: "data-centre GPU, 80 GB",
        short: "80 GB GPU",
        bytes: 80.0 * GIB,
        source: "H100 / A100 80GB data sheets",
    },
    Device {
        id: "laptop-128",
        label: "laptop, 128 GB unified memory",
        short: "128 GB laptop",
        bytes: 128.0 * GIB,
        source: "MacBook Pro (M4 Max) tech specs",
    },
];

/// The smallest listed device whose memory holds `bytes`, or `None` when none does.
pub fn smallest_device_that_fits(bytes: f64) -> Option<&'static Device> {
    DEVICES
        .iter()
        .find(|d| bytes.is_finite() && bytes <= d.bytes)
}

fn widths(cfg: &ModelConfig) -> (f64, f64, f64) {
    (
        cfg.d_model as f64,
        cfg.attention_width(),
        cfg.kv_heads as f64 * cfg.d_head as f64,
    )
}

/// GPT-3 175B (Brown et al., 2020, Table 2.1: 96 layers, d_model 12288, 96 heads of 128,
/// context 2048; d_ff = 4·d_model; GPT-2's tokeniser of 50257 tokens, tied embeddings).
pub const GPT3_175B: ModelConfig = ModelConfig {
    name: "GPT-3 175B",
    layers: 96,
    d_model: 12_288,
    heads: 96,
    kv_heads: 96,
    d_head: 128,
    d_ff: 49_152,
    mlp: super::complexity::MlpKind::Gelu,
    vocab: 50_257,
    tied_embeddings: true,
    max_context: 2048,
    sliding_window: None,
};

/// LLaMA-65B (Touvron et al., 2023, Table 2: 80 layers, d_model 8192, 64 heads; its
/// released config.json: intermediate_size 22016, vocab_size 32000, untied embeddings).
pub const LLAMA_65B: ModelConfig = ModelConfig {
    name: "LLaMA-65B",
    layers: 80,
    d_model: 8192,
    heads: 64,
    kv_heads: 64,
    d_head: 128,
    d_ff: 22_016,
    mlp: super::complexity::MlpKind::SwiGlu,
    vocab: 32_000,
    tied_embeddings: false,
    max_context: 2048,
    sliding_window: None,
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::complexity::{MlpKind, LLAMA2_7B, LLAMA3_70B};

    const GB: f64 = 1e9;

    fn setup(recipe: Recipe) -> FinetuneSetup {
        FinetuneSetup {
            rank: 16,
            targets: AdapterTargets::AllLinear,
            batch: 1,
            seq_len: 1024,
            checkpointing: true,
            recipe,
            double_quantisation: true,
        }
    }

    /// A paper's set-up: batch 1, checkpointing, double quantisation, and its own rank,
    /// adapted matrices, sequence length and recipe.
    fn paper_setup(
        rank: u32,
        targets: AdapterTargets,
        seq_len: u32,
        recipe: Recipe,
    ) -> FinetuneSetup {
        FinetuneSetup {
            rank,
            targets,
            seq_len,
            ..setup(recipe)
        }
    }

    fn within(actual: f64, expected: f64, tolerance: f64) -> bool {
        (actual / expected - 1.0).abs() <= tolerance
    }

    #[test]
    fn mixed_precision_adamw_costs_sixteen_bytes_per_trained_parameter() {
        let s = setup(Recipe::Mixed);
        let m = finetune_memory(&LLAMA2_7B, Method::Full, &s);
        let p = parameter_count(&LLAMA2_7B);
        assert_eq!(
            m.weights + m.master_weights + m.gradients + m.optimizer_states,
            16.0 * p
        );
        assert_eq!(m.optimizer_states, 2.0 * 4.0 * p, "two 32-bit moments");
        assert_eq!(m.adapters + m.quant_constants, 0.0);
    }

    #[test]
    fn lora_keeps_the_base_at_two_bytes_and_trains_only_the_adapters() {
        let s = setup(Recipe::Mixed);
        let m = finetune_memory(&LLAMA2_7B, Method::Lora, &s);
        let p = parameter_count(&LLAMA2_7B);
        let a = adapter_params(&LLAMA2_7B, 16, AdapterTargets::AllLinear);
        assert_eq!(m.weights, 2.0 * p);
        assert_eq!(m.adapters, 2.0 * a);
        assert_eq!(m.master_weights, 4.0 * a);
        assert_eq!(m.gradients, 2.0 * a);
        assert_eq!(m.optimizer_states, 8.0 * a);
    }

    #[test]
    fn adapter_count_is_r_times_in_plus_out_summed_by_hand() {
        // Llama-2-7B: d = 4096, h·d_h = kv·d_h = 4096, d_ff = 11008, SwiGLU.
        let qv = 8.0 * (4096.0 + 4096.0) * 2.0;
        assert_eq!(
            adapter_params_per_layer(&LLAMA2_7B, 8, AdapterTargets::QueryValue),
            qv
        );
        let all = 8.0 * 8192.0 * 4.0 + 3.0 * 8.0 * (4096.0 + 11008.0);
        assert_eq!(
            adapter_params_per_layer(&LLAMA2_7B, 8, AdapterTargets::AllLinear),
            all
        );
        // Grouped-query attention: W_k and W_v map 8192 to 8 · 128 = 1024.
        let g = adapter_params_per_layer(&LLAMA3_70B, 1, AdapterTargets::QueryValue);
        assert_eq!(g, (8192.0 + 8192.0) + (8192.0 + 1024.0));
    }

    #[test]
    fn nf4_with_double_quantisation_costs_its_closed_form_in_bits() {
        let bits = NF4_BITS + constant_bits_per_weight(true);
        assert_eq!(bits, 4.0 + 8.0 / 64.0 + 32.0 / (64.0 * 256.0));
        assert!((constant_bits_per_weight(true) - 0.127).abs() < 1e-3);
        assert_eq!(constant_bits_per_weight(false), 0.5);
        let mut s = setup(Recipe::Mixed);
        let m = finetune_memory(&LLAMA2_7B, Method::Qlora, &s);
        let q = linear_params(&LLAMA2_7B);
        let kept = parameter_count(&LLAMA2_7B) - q;
        assert_eq!(m.weights, q * 0.5 + kept * 2.0);
        assert_eq!(m.quant_constants, q * constant_bits_per_weight(true) / 8.0);
        s.double_quantisation = false;
        assert_eq!(
            finetune_memory(&LLAMA2_7B, Method::Qlora, &s).quant_constants,
            q / 16.0
        );
    }

    #[test]
    fn double_quantisation_saves_three_gigabytes_at_65b() {
        let mut s = setup(Recipe::Half);
        let with = finetune_memory(&LLAMA_65B, Method::Qlora, &s).quant_constants;
        s.double_quantisation = false;
        let without = finetune_memory(&LLAMA_65B, Method::Qlora, &s).quant_constants;
        let saved_bits = (without - with) * 8.0 / linear_params(&LLAMA_65B);
        assert!(within(saved_bits, 0.373, 0.01), "{saved_bits}");
        // QLoRA §3: "reduces the memory footprint by … approximately 3 GB for a 65B model".
        assert!(within(without - with, 3.0 * GB, 0.15), "{}", without - with);
    }

    /// LoRA (Hu et al., 2021, §4.2 and §7): GPT-3 175B, r = 4 on W_q and W_v; VRAM during
    /// training from 1.2 TB to 350 GB; trainable parameters about 10,000 times fewer; the
    /// checkpoint from 350 GB to about 35 MB.
    #[test]
    fn lora_paper_gpt3_set_up_within_fifteen_percent() {
        let s = paper_setup(4, AdapterTargets::QueryValue, 2048, Recipe::Lean);
        let full = finetune_memory(&GPT3_175B, Method::Full, &s).total();
        let lora = finetune_memory(&GPT3_175B, Method::Lora, &s).total();
        assert!(within(full, 1.2e12, 0.15), "full {full}");
        assert!(within(lora, 350.0 * GB, 0.15), "lora {lora}");
        let reduction =
            parameter_count(&GPT3_175B) / trainable_params(&GPT3_175B, Method::Lora, &s);
        assert!(within(reduction, 10_000.0, 0.15), "{reduction}");
        let checkpoint = 2.0 * trainable_params(&GPT3_175B, Method::Lora, &s);
        assert!(within(checkpoint, 35e6, 0.15), "{checkpoint}");
    }

    /// QLoRA (Dettmers et al., 2023, abstract and §1): LLaMA-65B, more than 780 GB for 16-bit
    /// full fine-tuning, under 48 GB with QLoRA (r = 64 on every linear layer).
    #[test]
    fn qlora_paper_65b_set_up_within_fifteen_percent() {
        let s = paper_setup(64, AdapterTargets::AllLinear, 512, Recipe::Half);
        let full = finetune_memory(&LLAMA_65B, Method::Full, &s).total();
        let qlora = finetune_memory(&LLAMA_65B, Method::Qlora, &s).total();
        assert!(
            full > 780.0 * GB && within(full, 780.0 * GB, 0.15),
            "full {full}"
        );
        assert!(
            qlora < 48.0 * GB && within(qlora, 48.0 * GB, 0.15),
            "qlora {qlora}"
        );
    }

    #[test]
    fn the_papers_models_match_their_published_sizes() {
        assert!(within(parameter_count(&GPT3_175B), 175.0e9, 0.01));
        assert!(within(parameter_count(&LLAMA_65B), 65.2e9, 0.01));
        assert!(GPT3_175B.validate().is_ok() && LLAMA_65B.validate().is_ok());
    }

    #[test]
    fn activations_follow_korthikanti_for_a_gpt_block() {
        // Korthikanti et al. count 34·s·b·h bytes per GPT layer with dropout masks (3·s·b·h
        // of them, one byte each) and without the attention scores FlashAttention does not
        // keep; with no dropout that is 31·s·b·h. Ours, per token: two norm inputs 2h;
        // attention's input, Q, K, V and output 5h; the MLP's input and two 4h tensors 9h;
        // in 16 bits, plus one fp32 log-sum-exp a head: 2·16h + 4·heads.
        let cfg = GPT3_175B;
        let h = cfg.d_model as f64;
        let ours = HALF_BYTES * activation_halves_per_token_per_layer(&cfg);
        assert_eq!(
            ours,
            2.0 * (2.0 * h + 5.0 * h + 9.0 * h) + 4.0 * cfg.heads as f64
        );
        assert!(within(ours / h, 31.0, 0.12), "{}", ours / h);
    }

    #[test]
    fn checkpointing_keeps_one_input_per_layer_plus_one_block() {
        let mut s = setup(Recipe::Mixed);
        s.batch = 2;
        s.seq_len = 100;
        let cfg = LLAMA2_7B;
        let block = 2.0 * activation_halves_per_token_per_layer(&cfg);
        let logits = 4.0 * cfg.vocab as f64;
        let on = activation_bytes(&cfg, Method::Full, &s);
        assert_eq!(on, 200.0 * (32.0 * 2.0 * 4096.0 + block + logits));
        s.checkpointing = false;
        assert_eq!(
            activation_bytes(&cfg, Method::Full, &s),
            200.0 * (32.0 * block + logits)
        );
    }

    #[test]
    fn qlora_on_a_70b_model_fits_a_64_gb_laptop_but_not_a_16_gb_one() {
        let s = setup(Recipe::Mixed);
        let q = finetune_memory(&LLAMA3_70B, Method::Qlora, &s).total();
        let fits = smallest_device_that_fits(q).map(|d| d.id);
        assert!(q > 36.0 * GIB && q <= 64.0 * GIB, "{q}");
        assert!(
            matches!(fits, Some("gpu-48") | Some("laptop-64")),
            "{fits:?}"
        );
        let full = finetune_memory(&LLAMA3_70B, Method::Full, &s).total();
        assert_eq!(
            smallest_device_that_fits(full),
            None,
            "a 70B full fine-tune fits none"
        );
    }

    #[test]
    fn devices_are_listed_smallest_first() {
        for w in DEVICES.windows(2) {
            assert!(w[0].bytes < w[1].bytes);
        }
        assert_eq!(smallest_device_that_fits(f64::NAN), None);
        assert_eq!(
            smallest_device_that_fits(1.0).map(|d| d.id),
            Some("laptop-16")
        );
    }

    #[test]
    fn every_component_is_finite_and_not_negative_for_every_method() {
        let tiny = ModelConfig {
            name: "tiny",
            layers: 1,
            d_model: 1,
            heads: 1,
            kv_heads: 1,
            d_head: 1,
            d_ff: 1,
            mlp: MlpKind::Gelu,
            vocab: 1,
            tied_embeddings: true,
            max_context: 1,
            sliding_window: None,
        };
        for cfg in [tiny, GPT3_175B, LLAMA_65B] {
            for method in METHODS {
                for recipe in [Recipe::Mixed, Recipe::Half, Recipe::Lean] {
                    let m = finetune_memory(&cfg, method, &setup(recipe));
                    assert!(
                        m.parts().iter().all(|v| v.is_finite() && *v >= 0.0),
                        "{m:?}"
                    );
                }
            }
        }
    }
}
