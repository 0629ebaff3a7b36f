//! What a stack is, everything but its weights: width, heads, tokens, initialisation gain,
//! seed, and how each sub-layer is wired (residual or not, where the norm sits).

/// Deepest stack the page builds.
pub const MAX_DEPTH: usize = 128;
/// Depths of the depth sweep: 1, 2, 4, …, 128.
pub const SWEEP_DEPTHS: [usize; 8] = [1, 2, 4, 8, 16, 32, 64, 128];

/// Where LayerNorm sits in a sub-layer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NormPlacement {
    /// No normalisation at all.
    None,
    /// After the sum (or after F without a residual): LN(x + F(x)).
    Post,
    /// Inside the branch, before F: x + F(LN(x)), with a final LN on the output.
    Pre,
}

/// How each sub-layer is wired: residual or not, and where the norm sits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Wiring {
    pub residual: bool,
    pub norm: NormPlacement,
}

impl Wiring {
    /// x ← F(x).
    pub const PLAIN: Wiring = Wiring {
        residual: false,
        norm: NormPlacement::None,
    };
    /// x ← LN(x + F(x)) (the original Transformer).
    pub const POST_NORM: Wiring = Wiring {
        residual: true,
        norm: NormPlacement::Post,
    };
    /// x ← x + F(LN(x)) (GPT-2 and later).
    pub const PRE_NORM: Wiring = Wiring {
        residual: true,
        norm: NormPlacement::Pre,
    };
    /// x ← x + F(x).
    pub const RESIDUAL_ONLY: Wiring = Wiring {
        residual: true,
        norm: NormPlacement::None,
    };
    /// The four wirings of the depth sweep.
    pub const SWEEP: [Wiring; 4] = [
        Wiring::PLAIN,
        Wiring::POST_NORM,
        Wiring::PRE_NORM,
        Wiring::RESIDUAL_ONLY,
    ];

    /// A short name: "no residual, no norm", "residual, pre-norm", …
    pub fn label(&self) -> String {
        let res = if self.residual {
            "residual"
        } else {
            "no residual"
        };
        let norm = match self.norm {
            NormPlacement::None => "no norm",
            NormPlacement::Post => "post-norm",
            NormPlacement::Pre => "pre-norm",
        };
        format!("{res}, {norm}")
    }
}

/// The architecture and initialisation of a stack, everything but its depth.
#[derive(Clone, Debug, PartialEq)]
pub struct StackShape {
    pub d_model: usize,
    /// Heads; must divide d_model (see [`heads_dividing`]).
    pub heads: usize,
    /// Tokens T.
    pub seq_len: usize,
    /// Initialisation gain g: weights ~ N(0, g²/fan_in).
    pub gain: f64,
    pub seed: u64,
    pub wiring: Wiring,
}

impl StackShape {}
