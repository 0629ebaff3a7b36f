//! Pass 3 — linear algebra: a rank-d_k object in an n×n costume (section id `linear-algebra`).
//!
//! Figures `score-rank` (S = QKᵀ/√d_k or A = softmax(S), their singular values and
//! ranks), `low-rank-target` (a target pattern against its best rank-k approximation),
//! `multi-head` (per-head score matrices and the ranks of the recombining maps) and
//! `lora` (the parameter calculator beside a live low-rank example).
//! Data flows one way: URL-state memos → math memos → draw effects. Every control sets
//! the URL through `set_on_frame`, so a dragged slider recomputes once per frame.

use leptos::prelude::*;
use nalgebra::DMatrix;

use crate::app::{use_url_state, UrlState};
use crate::formulas;
use crate::math::rank::{
    decaying_update, effective_rank, full_update_params, lora_params, multi_head_split,
    multi_head_weights, numerical_rank, rank_k_relative_error, rank_tolerance, row_softmax,
    score_matrix, score_singular_values_fast, singular_values, target_pattern, token_matrix,
    MultiHead, MultiHeadWeights, Pattern, LORA_EXAMPLE_SIZE,
};
use crate::math::stability::heads_dividing;
use crate::offload::{decode_target, Job, TargetAnswer};
use crate::sections::complexity::element_bytes;
use crate::widgets::format::{format_bytes, format_number, pending_or, pending_whole, whole};
use crate::widgets::offload::{answer_now, submit};
use crate::widgets::{
    Axis, Chart, ChartSpec, ColorBar, ColorMap, ColorScale, Figure, Formula, Grid, Heatmap, Mark,
    NumberField, Readout, Scale, SeedField, Select, Slider, Tone,
};

/// Most tokens of Pass 3.
pub const MAX_N: usize = 256;
/// Most tokens of the multi-head figure: its small multiples are ~150 px wide, so more
/// tokens add no visible detail, only cost (n = 256 with 8 heads took 80 ms a change).
pub const MULTI_HEAD_MAX_N: usize = 64;
/// Names of the per-head heatmaps (`data-canvas`), one per possible head.
const HEAD_CANVASES: [&str; 8] = [
    "head-0", "head-1", "head-2", "head-3", "head-4", "head-5", "head-6", "head-7",
];

const SHOW_OPTIONS: &[(&str, &str)] = &[("s", "S = QKᵀ/√dₖ"), ("a", "A = softmax(S)")];
const TARGET_OPTIONS: &[(&str, &str)] = &[
    ("identity", "identity (attend to yourself)"),
    ("previous", "previous token"),
    ("causal", "causal average"),
    ("first", "attend to the first token"),
    ("random", "random attention pattern"),
];
const LORA_SHAPE_OPTIONS: &[(&str, &str)] = &[
    ("4096x4096", "4096 × 4096 (7B attention projection)"),
    ("8192x8192", "8192 × 8192 (70B attention projection)"),
    ("8192x28672", "8192 × 28672 (70B MLP up-projection)"),
    ("custom", "custom"),
];
const DTYPE_OPTIONS: &[(&str, &str)] = &[
    ("fp32", "fp32 (4 bytes)"),
    ("bf16", "bf16 (2 bytes)"),
    ("fp8", "fp8 (1 byte)"),
    ("int4", "int4 (½ byte)"),
];

/// The pattern a `target=` value names (the random one drawn from `seed`).
pub fn pattern_of(id: &str, seed: u64) -> Pattern {
    match id {
        "identity" => Pattern::Identity,
        "previous" => Pattern::PreviousToken,
        "first" => Pattern::FirstToken,
        "random" => Pattern::Random(seed),
        _ => Pattern::CausalAverage,
    }
}

/// (d_out, d_in) of a LoRA preset, or of the custom fields.
pub fn lora_shape(id: &str, custom: (i64, i64)) -> (u64, u64) {
    match id {
        "8192x8192" => (8192, 8192),
        "8192x28672" => (8192, 28672),
        "custom" => (
            custom.0.clamp(1, 65_536) as u64,
            custom.1.clamp(1, 65_536) as u64,
        ),
        _ => (4096, 4096),
    }
}

/// What `score-rank` computes on the main thread: S, A and the spectrum of S (cheap,
/// through the thin-QR fast path). A's spectrum ([`Spectrum`]) comes from the worker.
#[derive(Clone, Debug, PartialEq)]
pub struct ScoreRank {
    pub n: usize,
    pub d_k: usize,
    pub s: DMatrix<f64>,
    pub a: DMatrix<f64>,
    /// σ(S) from the thin-QR fast path (the last n − min(n, d_k) are exactly zero).
    pub sv_s: Vec<f64>,
    pub rank_s: usize,
    pub erank_s: f64,
}

/// Q, K ~ N(0, 1)^{n×d_k} from `seed`; S, A and the spectrum of S.
pub fn score_rank(seed: u64, n: usize, d_k: usize) -> ScoreRank {
    let (q, k) = (token_matrix(seed, 1, n, d_k), token_matrix(seed, 2, n, d_k));
    let s = score_matrix(&q, &k);
    let a = row_softmax(&s);
    let sv_s = score_singular_values_fast(&q, &k);
    ScoreRank {
        n,
        d_k,
        rank_s: numerical_rank(&sv_s, n, n),
        erank_s: effective_rank(&sv_s),
        s,
        a,
        sv_s,
    }
}

/// A spectrum with its numerical and effective rank.
#[derive(Clone, Debug, PartialEq)]
pub struct Spectrum {
    pub sv: Vec<f64>,
    pub rank: usize,
    pub erank: f64,
}

impl Spectrum {
    /// From the singular values of an n × n matrix.
    pub fn of(sv: Vec<f64>, n: usize) -> Self {
        Self {
            rank: numerical_rank(&sv, n, n),
            erank: effective_rank(&sv),
            sv,
        }
    }
}

/// The caption of `score-rank`: what the ranks show in this state, and when they do not.
pub fn score_rank_caption(r: &ScoreRank, a: Option<&Spectrum>, requested_d_k: usize) -> String {
    let bound = r.d_k.min(r.n);
    let clamp = if requested_d_k > r.n {
        format!(
            " (dₖ = {requested_d_k} was asked for, but only dₖ ≤ n = {} is meaningful here, so dₖ = {}.)",
            r.n, r.d_k
        )
    } else {
        String::new()
    };
    let s_part = format!(
        "n = {} tokens, dₖ = {}: S has numerical rank {} ≤ min(n, dₖ) = {bound}, effective rank {}.{clamp}",
        r.n,
        r.d_k,
        r.rank_s,
        format_number(r.erank_s, 3)
    );
    let a_part = match a {
        None => " Computing the singular values of A = softmax(S)…".to_string(),
        Some(a) if a.rank > r.rank_s => format!(
            " The softmax acts entrywise, so A = softmax(S) is not bound by dₖ: its numerical rank is {} ({} more than S), though its spectrum decays (effective rank {}).",
            a.rank,
            a.rank - r.rank_s,
            format_number(a.erank, 3)
        ),
        Some(a) => format!(
            " Here A = softmax(S) has numerical rank {}, no higher than S: with dₖ ≥ n the scores are already of full rank, so the softmax has nothing to add (effective rank {}).",
            a.rank,
            format_number(a.erank, 3)
        ),
    };
    format!("{s_part}{a_part}")
}

/// Heatmap grid with a gap (NaN, drawn transparent) after every `block` columns or rows.
pub fn blocked_grid(m: &DMatrix<f64>, block: usize, by_columns: bool) -> Grid {
    let block = block.max(1);
    let (rows, cols) = m.shape();
    let gaps = |len: usize| if len == 0 { 0 } else { (len - 1) / block };
    let (out_r, out_c) = if by_columns {
        (rows, cols + gaps(cols))
    } else {
        (rows + gaps(rows), cols)
    };
    let mut values = vec![f64::NAN; out_r * out_c];
    for i in 0..rows {
        for j in 0..cols {
            let (r, c) = if by_columns {
                (i, j + j / block)
            } else {
                (i + i / block, j)
            };
            values[r * out_c + c] = m[(i, j)];
        }
    }
    Grid {
        rows: out_r,
        cols: out_c,
        values,
    }
}

/// The splits into heads already made of one draw of multi-head weights, by head count:
/// moving h back and forth cuts the same weights again, so each split is made once (at
/// most one per divisor of d_model).
#[derive(Default)]
struct SplitCache {
    /// What the weights were drawn from: (seed, tokens, d_model).
    drawn_from: Option<(u64, usize, usize)>,
    splits: Vec<MultiHead>,
}

impl SplitCache {
    /// The split of `w` (drawn from `drawn_from`) into `requested` heads (reduced to a
    /// divisor of d_model), made now or kept from earlier.
    fn split(
        &mut self,
        drawn_from: (u64, usize, usize),
        w: &MultiHeadWeights,
        requested: usize,
    ) -> MultiHead {
        if self.drawn_from != Some(drawn_from) {
            self.drawn_from = Some(drawn_from);
            self.splits.clear();
        }
        let heads = heads_dividing(w.d_model, requested);
        if let Some(kept) = self.splits.iter().find(|s| s.heads == heads) {
            return kept.clone();
        }
        let made = multi_head_split(w, heads);
        self.splits.push(made.clone());
        made
    }
}

/// A diverging scale symmetric about zero that spans `m`.
fn symmetric_scale(m: &DMatrix<f64>) -> ColorScale {
    let top = m.iter().fold(0.0_f64, |a, x| a.max(x.abs())).max(1e-12);
    ColorScale {
        map: ColorMap::Diverging,
        min: -top,
        max: top,
    }
}

/// The diverging ±1 scale of the target and its approximation.
pub const TARGET_SCALE: ColorScale = ColorScale {
    map: ColorMap::Diverging,
    min: -1.0,
    max: 1.0,
};

/// The decoded answer to the job `request()` describes, while `active`: computed in the
/// memo itself when the job is small ([`Job::runs_inline`]), so whatever draws it draws
/// once per change with the answer already there; otherwise sent to the worker whenever it
/// changes and `None` until the answer to the latest request arrives. While not `active`
/// nothing new is computed or sent (a small job keeps what it had).
fn offload_latest<T: Clone + PartialEq + Send + Sync + 'static>(
    request: impl Fn() -> Job + Send + Sync + 'static,
    decode: fn(&Job, &[f64]) -> Option<T>,
    active: RwSignal<bool>,
) -> Memo<Option<T>> {
    let request = Memo::new(move |_| request());
    let from_worker = RwSignal::new(None::<(Job, T)>);
    let sent = StoredValue::new(None::<Job>);
    Effect::new(move |_| {
        // Only for a figure a reader can see: the worker (and its 47 KiB) is not even
        // fetched until Pass 3 comes near the screen.
        if !active.get() {
            return;
        }
        let job = request.get();
        if job.runs_inline() || sent.with_value(|l| l.as_ref() == Some(&job)) {
            return;
        }
        sent.set_value(Some(job.clone()));
        let asked = job.clone();
        submit(job, move |payload| {
            if request.with_untracked(|latest| *latest == asked) {
                if let Some(answer) = decode(&asked, &payload) {
                    from_worker.set(Some((asked, answer)));
                }
            }
        });
    });
    Memo::new(move |prev: Option<&Option<T>>| {
        let job = request.get();
        if job.runs_inline() {
            if !active.get() {
                return prev.cloned().flatten();
            }
            // Small: answered in this frame, without the worker's round trip.
            return decode(&job, &answer_now(&job));
        }
        // Always subscribed to the worker's answer: one that arrives after the figure left
        // the screen is still shown when it comes back (and in its caption meanwhile).
        from_worker.with(|answer| match answer {
            Some((answered, value)) if *answered == job => Some(value.clone()),
            _ => None,
        })
    })
}

/// Everything Pass 3 computes, as memos over the URL state.
#[derive(Clone, Copy)]
pub struct LinearAlgebraModel {
    pub state: UrlState,
    pub n: Memo<usize>,
    pub requested_d_k: Memo<usize>,
    pub d_k: Memo<usize>,
    pub seed: Memo<u64>,
    pub show_a: Memo<bool>,
    /// Set while `score-rank` is on screen (its heavy memo recomputes only then).
    pub score_on_screen: RwSignal<bool>,
    /// Set while `multi-head` is on screen.
    pub heads_on_screen: RwSignal<bool>,
    /// Set while `low-rank-target` is on screen (its worker job is sent only then).
    pub target_on_screen: RwSignal<bool>,
    pub scores: Memo<ScoreRank>,
    /// σ(A) for the current (seed, n, d_k), from the worker; `None` while computing.
    pub attention: Memo<Option<Spectrum>>,
    pub k: Memo<usize>,
    pub target: Memo<DMatrix<f64>>,
    /// σ(T) and T_k for the current target and k, from the worker; `None` while computing.
    pub target_answer: Memo<Option<TargetAnswer>>,
    /// The last answer drawn (kept while a newer one is computed, so nothing flickers).
    pub shown_answer: Memo<TargetAnswer>,
    pub approx: Memo<DMatrix<f64>>,
    pub errors: Memo<Vec<f64>>,
    pub heads: Memo<MultiHead>,
    pub requested_heads: Memo<usize>,
    pub lora_shape: Memo<(u64, u64)>,
    pub lora_r: Memo<u64>,
    pub lora_bytes: Memo<f64>,
    pub lora_errors: Memo<Vec<f64>>,
}

impl LinearAlgebraModel {
    /// Builds the memo graph from the URL state.
    pub fn new(state: UrlState) -> Self {
        let p = state;
        let n = Memo::new(move |_| p.tracked(|p| p.int("rn")).clamp(2, MAX_N as i64) as usize);
        let requested_d_k = Memo::new(move |_| p.tracked(|p| p.int("rdk")).clamp(1, 256) as usize);
        let d_k = Memo::new(move |_| requested_d_k.get().min(n.get()));
        let seed = Memo::new(move |_| p.tracked(|p| p.int("rseed")).max(0) as u64);
        let show_a = Memo::new(move |_| p.tracked(|p| p.choice("rshow")) == "a");
        let score_on_screen = RwSignal::new(false);
        let scores = Memo::new(move |prev: Option<&ScoreRank>| match prev {
            Some(prev) if !score_on_screen.get() => prev.clone(),
            _ => score_rank(seed.get(), n.get(), d_k.get()),
        });
        let k = Memo::new(move |_| (p.tracked(|p| p.int("rk")).max(1) as usize).min(n.get()));
        // Memos over single keys first: a heavy memo that read the whole URL state would
        // recompute whenever any control on the page moved.
        let target_id = state.choice("target");
        let target =
            Memo::new(move |_| target_pattern(pattern_of(target_id.get(), seed.get()), n.get()));
        let attention = offload_latest(
            move || Job::AttentionSpectrum {
                seed: seed.get(),
                n: n.get(),
                d_k: d_k.get(),
            },
            |job, payload| match job {
                Job::AttentionSpectrum { n, .. } if payload.len() == *n => {
                    Some(Spectrum::of(payload.to_vec(), *n))
                }
                _ => None,
            },
            score_on_screen,
        );
        let target_on_screen = RwSignal::new(false);
        let target_answer = offload_latest(
            move || Job::TargetApproximation {
                pattern: pattern_of(target_id.get(), seed.get()),
                n: n.get(),
                k: k.get(),
            },
            |_, payload| decode_target(payload),
            target_on_screen,
        );
        let shown_answer = Memo::new(move |prev: Option<&TargetAnswer>| {
            target_answer
                .get()
                .or_else(|| prev.cloned())
                .unwrap_or(TargetAnswer {
                    sigma: Vec::new(),
                    approx: DMatrix::zeros(0, 0),
                })
        });
        let approx = Memo::new(move |_| shown_answer.with(|a| a.approx.clone()));
        let errors = Memo::new(move |_| shown_answer.with(|a| relative_errors(&a.sigma)));
        let requested_heads = Memo::new(move |_| p.tracked(|p| p.int("mhh")).clamp(1, 8) as usize);
        let heads_on_screen = RwSignal::new(false);
        // The draws and projections do not depend on the split into heads: a change of h
        // only cuts them again.
        let head_d = state.int("mhd");
        // What the weights are drawn from: (seed, tokens, d_model).
        let drawn_from = Memo::new(move |_| {
            (
                seed.get(),
                n.get().min(MULTI_HEAD_MAX_N),
                head_d.get().clamp(16, 128) as usize,
            )
        });
        let head_weights = Memo::new(move |prev: Option<&MultiHeadWeights>| match prev {
            Some(prev) if !heads_on_screen.get() => prev.clone(),
            _ => {
                let (seed, n, d) = drawn_from.get();
                multi_head_weights(seed, n, d)
            }
        });
        let splits = StoredValue::new(SplitCache::default());
        let heads = Memo::new(move |prev: Option<&MultiHead>| match prev {
            Some(prev) if !heads_on_screen.get() => prev.clone(),
            _ => {
                let (from, h) = (drawn_from.get(), requested_heads.get());
                head_weights.with(|w| {
                    splits
                        .try_update_value(|c| c.split(from, w, h))
                        .unwrap_or_else(|| multi_head_split(w, h))
                })
            }
        });
        let lora_shape = Memo::new(move |_| {
            p.tracked(|p| lora_shape(p.choice("lshape"), (p.int("lout"), p.int("lin"))))
        });
        let lora_r = Memo::new(move |_| p.tracked(|p| p.int("lr")).clamp(1, 256) as u64);
        let lora_bytes = Memo::new(move |_| element_bytes(p.tracked(|p| p.choice("ldtype"))));
        let lora_decay = state.float("ldecay");
        let lora_errors = Memo::new(move |_| {
            let decay = lora_decay.get();
            let sv = singular_values(&decaying_update(seed.get(), LORA_EXAMPLE_SIZE, decay));
            (0..=sv.len())
                .map(|r| rank_k_relative_error(&sv, r))
                .collect::<Vec<f64>>()
        });
        Self {
            state,
            n,
            requested_d_k,
            d_k,
            seed,
            show_a,
            score_on_screen,
            heads_on_screen,
            target_on_screen,
            scores,
            attention,
            k,
            target,
            target_answer,
            shown_answer,
            approx,
            errors,
            heads,
            requested_heads,
            lora_shape,
            lora_r,
            lora_bytes,
            lora_errors,
        }
    }
}

/// The relative error of the best rank-k approximation for k = 0…r, from r singular
/// values ([`rank_k_relative_error`]); empty while there are none yet (nothing computed).
fn relative_errors(sigma: &[f64]) -> Vec<f64> {
    if sigma.is_empty() {
        return Vec::new();
    }
    (0..=sigma.len())
        .map(|k| rank_k_relative_error(sigma, k))
        .collect()
}

fn pending_number(x: f64) -> String {
    pending_or(x, 4)
}

fn one_decimal(x: f64) -> String {
    format_number(x, 2)
}

fn count_format(x: f64) -> String {
    if x.is_finite() && x.abs() < 1e15 {
        let digits = format!("{}", x.round() as i64);
        let mut out = String::new();
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i) % 3 == 0 {
                out.push('\u{202F}');
            }
            out.push(c);
        }
        out
    } else {
        format_number(x, 4)
    }
}

fn ratio_format(x: f64) -> String {
    format!("{}×", format_number(x, 4))
}

fn bytes_format(x: f64) -> String {
    format_bytes(x)
}

/// Tokens n (shared by three figures; `instance` tells the copies apart).
#[component]
fn TokensSlider(model: LinearAlgebraModel, instance: &'static str) -> impl IntoView {
    let (_, set) = model.state.int_control("rn");
    view! {
        <Slider key="rn" label="Tokens n" instance=instance value=Signal::derive(move || model.n.get() as f64)
            on_change=Callback::new(move |v: f64| set.run(v.round() as i64))
            scale=Scale::Linear { min: 2.0, max: MAX_N as f64, step: 1.0 } format=whole />
    }
}

fn seed_field(model: LinearAlgebraModel, instance: &'static str) -> impl IntoView {
    let (value, set) = model.state.int_control("rseed");
    view! { <SeedField key="rseed" label="Seed" instance=instance value=value on_change=set /> }
}

/// Figure `score-rank`.
#[component]
pub fn ScoreRankFigure(
    model: LinearAlgebraModel,
    #[prop(default = true)] show_controls: bool,
) -> impl IntoView {
    let shown = Memo::new(move |_| {
        model.scores.with(|r| {
            if model.show_a.get() {
                r.a.clone()
            } else {
                r.s.clone()
            }
        })
    });
    let grid = Memo::new(move |_| shown.with(Grid::from_matrix));
    let scale = Signal::derive(move || {
        if model.show_a.get() {
            let top = shown.with(|m| m.max()).max(1e-12);
            ColorScale {
                map: ColorMap::Sequential,
                min: 0.0,
                max: top,
            }
        } else {
            shown.with(symmetric_scale)
        }
    });
    let name = move || if model.show_a.get() { "A" } else { "S" };
    let rank_a = move || model.attention.with(|a| a.as_ref().map(|a| a.rank));
    let summary = Signal::derive(move || {
        model.scores.with(|r| {
            format!(
                "Heatmap of the {n}×{n} matrix {}; rank(S) = {}, rank(A) {}.",
                name(),
                r.rank_s,
                rank_a().map_or("still being computed".into(), |k| format!("= {k}")),
                n = r.n
            )
        })
    });
    let describe = Callback::new(move |(i, j): (usize, usize)| {
        shown.with_untracked(|m| {
            if i < m.nrows() && j < m.ncols() {
                format!(
                    "row {i}, column {j}: {} = {}",
                    name(),
                    format_number(m[(i, j)], 4)
                )
            } else {
                String::new()
            }
        })
    });
    let spectrum = Signal::derive(move || {
        let sv_a = model
            .attention
            .with(|a| a.as_ref().map(|a| a.sv.clone()).unwrap_or_default());
        model.scores.with(|r| {
            let positive = |v: &[f64]| -> Vec<(f64, f64)> {
                v.iter()
                    .enumerate()
                    .filter(|(_, s)| **s > 0.0 && s.is_finite())
                    .map(|(i, s)| ((i + 1) as f64, *s))
                    .collect()
            };
            let (s_pts, a_pts) = (positive(&r.sv_s), positive(&sv_a));
            let shown_sv = if model.show_a.get() && !sv_a.is_empty() {
                &sv_a
            } else {
                &r.sv_s
            };
            let tol = rank_tolerance(shown_sv, r.n, r.n);
            let all = s_pts.iter().chain(&a_pts).map(|p| p.1);
            let lo = all
                .clone()
                .fold(f64::INFINITY, f64::min)
                .min(tol)
                .max(1e-300);
            let hi = all.fold(0.0, f64::max).max(lo * 10.0);
            ChartSpec {
                x: Axis {
                    label: "index i".into(),
                    min: 0.5,
                    max: r.n as f64 + 0.5,
                    log: false,
                },
                y: Axis::log_decades("σᵢ", lo, hi),
                marks: vec![
                    Mark::Line {
                        label: match r.n.saturating_sub(s_pts.len()) {
                            0 => "σ(S)".to_string(),
                            zeros => format!("σ(S); {zeros} more are exactly 0"),
                        },
                        points: s_pts,
                        tone: Tone::Coral,
                        dashed: false,
                        dots: true,
                    },
                    Mark::Line {
                        label: "σ(A)".into(),
                        points: a_pts,
                        tone: Tone::Blue,
                        dashed: false,
                        dots: r.n <= 64,
                    },
                    Mark::VRule {
                        label: format!("dₖ = {}", r.d_k),
                        x: r.d_k as f64 + 0.5,
                        tone: Tone::Muted,
                    },
                    Mark::HRule {
                        label: format!("rank threshold of {}", name()),
                        y: tol,
                        tone: Tone::Gold,
                    },
                ],
                legend_left: false,
            }
        })
    });
    let spectrum_summary = Signal::derive(move || {
        model.scores.with(|r| {
            format!(
                "Singular values on a log axis: S has {} non-zero, A {}; the marker is at dₖ = {}.",
                r.sv_s.iter().filter(|s| **s > 0.0).count(),
                rank_a().map_or("still being computed".into(), |k| format!(
                    "has {k} above the threshold"
                )),
                r.d_k
            )
        })
    });
    let caption = Signal::derive(move || {
        model.attention.with(|a| {
            model
                .scores
                .with(|r| score_rank_caption(r, a.as_ref(), model.requested_d_k.get()))
        })
    });
    let csv = Callback::new(move |_| {
        model.scores.with_untracked(|r| {
            model.attention.with_untracked(|a| {
                let sv_a = a.as_ref().map(|a| a.sv.as_slice()).unwrap_or_default();
                let mut out = String::from("i,sigma_S,sigma_A\n");
                for (i, s) in r.sv_s.iter().enumerate() {
                    let a = sv_a.get(i).map(|x| x.to_string()).unwrap_or_default();
                    out.push_str(&format!("{},{s},{a}\n", i + 1));
                }
                out
            })
        })
    });
    let controls = move || {
        let (_, set_dk) = model.state.int_control("rdk");
        let (show, set_show) = model.state.choice_control("rshow");
        view! {
            <TokensSlider model=model instance="" />
            <Slider key="rdk" label="Key dimension dₖ" value=Signal::derive(move || model.d_k.get() as f64)
                on_change=Callback::new(move |v: f64| set_dk.run(v.round() as i64))
                scale=Signal::derive(move || Scale::Linear { min: 1.0, max: model.n.get() as f64, step: 1.0 }) format=whole />
            {seed_field(model, "")}
            <Select key="rshow" label="Matrix shown" options=SHOW_OPTIONS value=show on_change=set_show />
        }
    };
    view! {
        <Figure id="score-rank" on_screen=model.score_on_screen title="The rank of the scores, and of the attention" caption=caption summary=summary csv=csv
            controls=controls show_controls=show_controls>
            <div class="pair-layout">
                <div class="pair-item">
                    <Heatmap name="score-rank" grid=grid scale=scale describe=describe summary=summary max_width=360.0 />
                    <ColorBar scale=scale label="entries of the matrix shown" />
                </div>
                <div class="pair-item">
                    <Chart name="singular-values" spec=spectrum summary=spectrum_summary aspect=0.75 />
                </div>
            </div>
            <div class="readouts" aria-busy=move || (model.attention.with(|a| a.is_none()) && model.score_on_screen.get()).to_string()>
                <Readout name="rank-s" label="rank S" value=Signal::derive(move || model.scores.with(|r| r.rank_s as f64)) format=whole />
                <Readout name="rank-a" label="rank A" value=Signal::derive(move || model.attention.with(|a| a.as_ref().map(|a| a.rank as f64).unwrap_or(f64::NAN))) format=pending_whole />
                <Readout name="erank-s" label="effective rank S" value=Signal::derive(move || model.scores.with(|r| r.erank_s)) />
                <Readout name="erank-a" label="effective rank A" value=Signal::derive(move || model.attention.with(|a| a.as_ref().map(|a| a.erank).unwrap_or(f64::NAN))) format=pending_number />
            </div>
        </Figure>
    }
}

/// Figure `low-rank-target`.
#[component]
pub fn LowRankFigure(
    model: LinearAlgebraModel,
    #[prop(default = true)] show_controls: bool,
) -> impl IntoView {
    let target_grid = Memo::new(move |_| model.target.with(Grid::from_matrix));
    let approx_grid = Memo::new(move |_| model.approx.with(Grid::from_matrix));
    // NaN ("…") until the first decomposition has arrived (the figure computes on screen).
    let error = Signal::derive(move || {
        model
            .errors
            .with(|e| e.get(model.k.get()).copied().unwrap_or(f64::NAN))
    });
    let pending = move || model.errors.with(|e| e.is_empty());
    let target_id = model.state.choice("target");
    let target_label = move || {
        let id = target_id.get();
        TARGET_OPTIONS
            .iter()
            .find(|(v, _)| *v == id)
            .map(|(_, t)| *t)
            .unwrap_or("")
    };
    let describe = |which: Memo<DMatrix<f64>>, label: &'static str| {
        Callback::new(move |(i, j): (usize, usize)| {
            which.with_untracked(|m| {
                if i < m.nrows() && j < m.ncols() {
                    format!(
                        "row {i}, column {j}: {label} = {}",
                        format_number(m[(i, j)], 4)
                    )
                } else {
                    String::new()
                }
            })
        })
    };
    let summary = Signal::derive(move || {
        format!(
            "The {} target ({n}×{n}) beside its best rank-{} approximation; relative error {}.",
            target_label(),
            model.k.get(),
            pending_or(error.get(), 3),
            n = model.n.get()
        )
    });
    let approx_summary = Signal::derive(move || {
        format!(
            "Best rank-{} approximation of the target, relative error {}.",
            model.k.get(),
            pending_or(error.get(), 3)
        )
    });
    let curve = Signal::derive(move || {
        model.errors.with(|e| ChartSpec {
            x: Axis {
                label: "rank k".into(),
                min: 0.0,
                // Before the first decomposition: the axis the answer will have (k = 0…n).
                max: if e.is_empty() {
                    model.n.get().max(1)
                } else {
                    e.len().max(2) - 1
                } as f64,
                log: false,
            },
            y: Axis {
                label: "‖T − Tₖ‖ / ‖T‖ (Frobenius)".into(),
                min: 0.0,
                max: 1.0,
                log: false,
            },
            marks: vec![
                Mark::Line {
                    label: "relative error".into(),
                    points: e.iter().enumerate().map(|(k, v)| (k as f64, *v)).collect(),
                    tone: Tone::Blue,
                    dashed: false,
                    dots: e.len() <= 65,
                },
                Mark::VRule {
                    label: format!("k = {}", model.k.get()),
                    x: model.k.get() as f64,
                    tone: Tone::Coral,
                },
            ],
            legend_left: false,
        })
    });
    let caption = Signal::derive(move || {
        let n = model.n.get();
        let k = model.k.get();
        if pending() {
            return format!(
                "The {} pattern on n = {n} tokens: computing its singular values and best rank-{k} approximation…",
                target_label()
            );
        }
        let rank = model.shown_answer.with(|a| numerical_rank(&a.sigma, n, n));
        let exact = model.errors.with(|e| e.iter().position(|v| *v <= 1e-12));
        let exact_text = match exact {
            Some(r) if r <= k => {
                format!("From k = {r} on the approximation is exact (the target has rank {rank}).")
            }
            Some(r) => {
                format!("The target has rank {rank}: it takes k = {r} to reproduce it exactly.")
            }
            None => format!("The target has rank {rank}."),
        };
        format!(
            "The {} pattern on n = {n} tokens. Its best rank-{k} approximation (truncated SVD) leaves a relative error of {}: the square root of the sum of σᵢ² over i > k, divided by the Frobenius norm of T. {exact_text} A single head with dₖ = {k} cannot do better than this on the scores it must produce.",
            target_label(),
            format_number(error.get(), 4)
        )
    });
    let csv = Callback::new(move |_| {
        model.shown_answer.with_untracked(|svd| {
            model.errors.with_untracked(|e| {
                let mut out = String::from("k,relative_error,sigma_k\n");
                for (k, err) in e.iter().enumerate() {
                    let sigma = match k {
                        0 => String::new(),
                        _ => svd
                            .sigma
                            .get(k - 1)
                            .map(|s| s.to_string())
                            .unwrap_or_default(),
                    };
                    out.push_str(&format!("{k},{err},{sigma}\n"));
                }
                out
            })
        })
    });
    let controls = move || {
        let (target, set_target) = model.state.choice_control("target");
        let (_, set_k) = model.state.int_control("rk");
        view! {
            <Select key="target" label="Target pattern" options=TARGET_OPTIONS value=target on_change=set_target />
            <Slider key="rk" label="Rank k" value=Signal::derive(move || model.k.get() as f64)
                on_change=Callback::new(move |v: f64| set_k.run(v.round() as i64))
                scale=Signal::derive(move || Scale::Linear { min: 1.0, max: model.n.get() as f64, step: 1.0 }) format=whole />
            <TokensSlider model=model instance="-low-rank" />
            {seed_field(model, "-low-rank")}
        }
    };
    view! {
        <Figure id="low-rank-target" on_screen=model.target_on_screen title="Best rank-k approximations of attention patterns" caption=caption summary=summary csv=csv
            controls=controls show_controls=show_controls>
            <div class="pair-layout">
                <div class="pair-item">
                    <p class="panel-label">"Target T"</p>
                    <Heatmap name="target" grid=target_grid scale=TARGET_SCALE describe=describe(model.target, "T") summary=summary max_width=300.0 />
                </div>
                <div class="pair-item">
                    <p class="panel-label">{move || format!("Best rank-{} approximation Tₖ", model.k.get())}</p>
                    <Heatmap name="approximation" grid=approx_grid scale=TARGET_SCALE describe=describe(model.approx, "Tₖ") summary=approx_summary max_width=300.0 />
                </div>
            </div>
            <ColorBar scale=TARGET_SCALE label="entries (same scale for both)" />
            <Chart name="rank-error" spec=curve summary=Signal::derive(move || format!("Relative error against k; {} at the marked k.", pending_or(error.get(), 3))) aspect=0.45 max_width=640.0 />
            <div class="readouts" aria-busy=move || (model.target_answer.with(|a| a.is_none()) && model.target_on_screen.get()).to_string()>
                <Readout name="rel-error" label="relative error at k" value=error format=pending_number />
            </div>
        </Figure>
    }
}

/// Figure `multi-head`.
#[component]
pub fn MultiHeadFigure(
    model: LinearAlgebraModel,
    #[prop(default = true)] show_controls: bool,
) -> impl IntoView {
    let mh = model.heads;
    let wq_grid = Memo::new(move |_| mh.with(|m| blocked_grid(&m.w_q, m.d_head, true)));
    let wo_grid = Memo::new(move |_| mh.with(|m| blocked_grid(&m.w_o, m.d_head, false)));
    let w_scale = Signal::derive(move || mh.with(|m| symmetric_scale(&m.w_q)));
    let summary = Signal::derive(move || {
        mh.with(|m| {
            format!(
                "{} heads of d_head = {}: per-head score ranks {:?}; the output has rank {}.",
                m.heads, m.d_head, m.score_ranks, m.output_rank
            )
        })
    });
    let caption = Signal::derive(move || {
        let requested = model.requested_heads.get();
        mh.with(|m| {
            let note = if requested != m.heads {
                format!(" ({requested} heads do not divide d_model = {}; using {}, the largest divisor below.)", m.d_model, m.heads)
            } else {
                String::new()
            };
            let max_rank = m.score_ranks.iter().copied().max().unwrap_or(0);
            let n_all = model.n.get();
            let n = n_all.min(MULTI_HEAD_MAX_N);
            let cap = if n_all > MULTI_HEAD_MAX_N {
                format!(" (This figure uses the first {MULTI_HEAD_MAX_N} of the n = {n_all} tokens.)")
            } else {
                String::new()
            };
            format!(
                "d_model = {} cut into {} heads of d_head = {}{note}. Each head's score matrix has rank at most d_head: here at most {max_rank} on n = {} tokens. Each head's value–output map W_V⁽ⁱ⁾W_O⁽ⁱ⁾ has rank ≤ {} too, but W_O sums them back: W_V W_O has rank {} of a possible {}, and the layer's output has rank {} ≤ min(n, d_model) = {}.",
                m.d_model,
                m.heads,
                m.d_head,
                n,
                m.d_head,
                m.combined_ov_rank,
                m.d_model,
                m.output_rank,
                n.min(m.d_model)
            ) + &cap
        })
    });
    let csv = Callback::new(move |_| {
        mh.with_untracked(|m| {
            let mut out = String::from("head,d_head,score_rank,value_output_rank\n");
            for (h, (r, ov)) in m.score_ranks.iter().zip(&m.ov_ranks).enumerate() {
                out.push_str(&format!("{h},{},{r},{ov}\n", m.d_head));
            }
            out.push_str(&format!(
                "all,{},{},{}\n",
                m.d_model, m.output_rank, m.combined_ov_rank
            ));
            out
        })
    });
    // One cell per head, keyed by its index. A cell, once made, stays: a change of h
    // hides the cells it no longer needs (keeping their last picture, not redrawing it)
    // and shows them again, so moving h back and forth makes no canvas and measures no
    // layout, and leaves the other cells (and their canvases) in place.
    let head_count = Memo::new(move |_| mh.with(|m| m.heads));
    let cells_made =
        Memo::new(move |prev: Option<&usize>| head_count.get().max(prev.copied().unwrap_or(0)));
    let head_cell = move |h: usize| {
        let shown = move || h < head_count.get();
        let grid = Memo::new(move |prev: Option<&Grid>| {
            mh.with(|m| match m.scores.get(h) {
                Some(s) => Grid::from_matrix(s),
                None => prev.cloned().unwrap_or_default(),
            })
        });
        let scale = Memo::new(move |prev: Option<&ColorScale>| {
            mh.with(|m| match m.scores.get(h) {
                Some(s) => symmetric_scale(s),
                None => prev.cloned().unwrap_or(TARGET_SCALE),
            })
        });
        let rank = move || mh.with(|m| m.score_ranks.get(h).copied().unwrap_or(0));
        let head_summary =
            Signal::derive(move || format!("Score matrix of head {h}, rank {}.", rank()));
        let describe = Callback::new(move |(i, j): (usize, usize)| {
            mh.with_untracked(|m| {
                m.scores
                    .get(h)
                    .filter(|s| i < s.nrows() && j < s.ncols())
                    .map(|s| {
                        format!(
                            "head {h}, row {i}, column {j}: S = {}",
                            format_number(s[(i, j)], 4)
                        )
                    })
                    .unwrap_or_default()
            })
        });
        view! {
            <div class="head-cell" data-head=h hidden=move || !shown()>
                <p class="panel-label">{move || format!("head {h}: rank {} ≤ {}", rank(), mh.with(|m| m.d_head))}</p>
                <Heatmap name=HEAD_CANVASES[h.min(7)] grid=grid scale=scale describe=describe summary=head_summary max_width=150.0 />
            </div>
        }
    };
    let heads_view = move || {
        view! { <For each=move || 0..cells_made.get() key=|h| *h let:h>{head_cell(h)}</For> }
    };
    let controls = move || {
        let (d, set_d) = model.state.int_control("mhd");
        let (_, set_h) = model.state.int_control("mhh");
        view! {
            <Slider key="mhd" label="d_model" value=Signal::derive(move || d.get() as f64)
                on_change=Callback::new(move |v: f64| set_d.run(v.round() as i64))
                scale=Scale::Linear { min: 16.0, max: 128.0, step: 8.0 } format=whole />
            <Slider key="mhh" label="Heads h" value=Signal::derive(move || model.requested_heads.get() as f64)
                on_change=Callback::new(move |v: f64| set_h.run(v.round() as i64))
                scale=Scale::Linear { min: 1.0, max: 8.0, step: 1.0 } format=whole />
            <TokensSlider model=model instance="-multi-head" />
        }
    };
    view! {
        <Figure id="multi-head" on_screen=model.heads_on_screen title="Multi-head: h small ranks, mixed back by W_O" caption=caption summary=summary csv=csv
            controls=controls show_controls=show_controls>
            <div class="small-multiples">{heads_view}</div>
            <div class="pair-layout">
                <div class="pair-item">
                    <p class="panel-label">"W_Q, its columns cut into heads (gaps between blocks)"</p>
                    <Heatmap name="w-q-blocks" grid=wq_grid scale=w_scale summary=Signal::derive(move || mh.with(|m| format!("W_Q split into {} column blocks of {}.", m.heads, m.d_head)))
                        describe=Callback::new(move |(i, j): (usize, usize)| format!("row {i}, column {j} of the blocked W_Q")) max_width=260.0 aspect=1.0 />
                </div>
                <div class="pair-item">
                    <p class="panel-label">"W_O, its rows cut into heads: it mixes them back"</p>
                    <Heatmap name="w-o-blocks" grid=wo_grid scale=w_scale summary=Signal::derive(move || mh.with(|m| format!("W_O split into {} row blocks of {}.", m.heads, m.d_head)))
                        describe=Callback::new(move |(i, j): (usize, usize)| format!("row {i}, column {j} of the blocked W_O")) max_width=260.0 aspect=1.0 />
                </div>
            </div>
            <div class="readouts">
                <Readout name="d-head" label="d_head" value=Signal::derive(move || mh.with(|m| m.d_head as f64)) format=whole />
                <Readout name="head-rank" label="largest head rank" value=Signal::derive(move || mh.with(|m| m.score_ranks.iter().copied().max().unwrap_or(0) as f64)) format=whole />
                <Readout name="combined-ov-rank" label="rank W_V W_O" value=Signal::derive(move || mh.with(|m| m.combined_ov_rank as f64)) format=whole />
                <Readout name="output-rank" label="rank of the output" value=Signal::derive(move || mh.with(|m| m.output_rank as f64)) format=whole />
            </div>
        </Figure>
    }
}

/// Figure `lora`.
#[component]
pub fn LoraFigure(
    model: LinearAlgebraModel,
    #[prop(default = true)] show_controls: bool,
) -> impl IntoView {
    let full = Signal::derive(move || {
        let (o, i) = model.lora_shape.get();
        full_update_params(o, i)
    });
    let lora = Signal::derive(move || {
        let (o, i) = model.lora_shape.get();
        lora_params(o, i, model.lora_r.get())
    });
    let ratio = Signal::derive(move || full.get() / lora.get().max(1.0));
    let example_r = move || (model.lora_r.get() as usize).min(LORA_EXAMPLE_SIZE);
    let example_error = Signal::derive(move || {
        model
            .lora_errors
            .with(|e| e.get(example_r()).copied().unwrap_or(0.0))
    });
    let curve = Signal::derive(move || {
        model.lora_errors.with(|e| ChartSpec {
            x: Axis {
                label: "rank r".into(),
                min: 0.0,
                max: LORA_EXAMPLE_SIZE as f64,
                log: false,
            },
            y: Axis {
                label: "relative error of the best rank-r ΔW".into(),
                min: 0.0,
                max: 1.0,
                log: false,
            },
            marks: vec![
                Mark::Line {
                    label: "‖ΔW − ΔWᵣ‖ / ‖ΔW‖ (Frobenius)".into(),
                    points: e.iter().enumerate().map(|(r, v)| (r as f64, *v)).collect(),
                    tone: Tone::Green,
                    dashed: false,
                    dots: false,
                },
                Mark::VRule {
                    label: format!("r = {}", example_r()),
                    x: example_r() as f64,
                    tone: Tone::Coral,
                },
            ],
            legend_left: false,
        })
    });
    let summary = Signal::derive(move || {
        let (o, i) = model.lora_shape.get();
        format!(
            "{o} × {i} at rank {}: {} parameters instead of {}, {} times fewer.",
            model.lora_r.get(),
            count_format(lora.get()),
            count_format(full.get()),
            format_number(ratio.get(), 4)
        )
    });
    let caption = Signal::derive(move || {
        let (o, i) = model.lora_shape.get();
        let e = model.lora_bytes.get();
        let r = model.lora_r.get();
        let clip = if r as usize > LORA_EXAMPLE_SIZE {
            format!(" (the example is {LORA_EXAMPLE_SIZE} × {LORA_EXAMPLE_SIZE}, so its r stops at {LORA_EXAMPLE_SIZE})")
        } else {
            String::new()
        };
        let over = if lora.get() >= full.get() {
            " At this rank LoRA saves nothing: r(d_in + d_out) ≥ d_out·d_in."
        } else {
            ""
        };
        format!(
            "A {o} × {i} weight: a full update ΔW has {} parameters ({}); LoRA's B ({o} × {r}) and A ({r} × {i}) have {} ({}), {} times fewer.{over} The example on the right is a random {LORA_EXAMPLE_SIZE} × {LORA_EXAMPLE_SIZE} update whose i-th singular value falls off as one over i to the power of the decay: its best rank-{} approximation keeps all but {} of it{clip}, which is how much a rank-r update of that shape could not express.",
            count_format(full.get()),
            format_bytes(full.get() * e),
            count_format(lora.get()),
            format_bytes(lora.get() * e),
            format_number(ratio.get(), 4),
            example_r(),
            format_number(example_error.get(), 3)
        )
    });
    let csv = Callback::new(move |_| {
        model.lora_errors.with_untracked(|e| {
            let mut out = String::from("r,relative_error\n");
            for (r, v) in e.iter().enumerate() {
                out.push_str(&format!("{r},{v}\n"));
            }
            out
        })
    });
    let controls = move || {
        let (shape, set_shape) = model.state.choice_control("lshape");
        let (lout, set_lout) = model.state.int_control("lout");
        let (lin, set_lin) = model.state.int_control("lin");
        let (_, set_r) = model.state.int_control("lr");
        let (dtype, set_dtype) = model.state.choice_control("ldtype");
        let (decay, set_decay) = model.state.float_control("ldecay");
        view! {
            <Select key="lshape" label="Weight matrix" options=LORA_SHAPE_OPTIONS value=shape on_change=set_shape />
            <Show when=move || shape.get() == "custom">
                <NumberField key="lout" label="d_out" value=lout on_change=set_lout min=1 max=65_536 />
                <NumberField key="lin" label="d_in" value=lin on_change=set_lin min=1 max=65_536 />
            </Show>
            <Slider key="lr" label="Rank r" value=Signal::derive(move || model.lora_r.get() as f64)
                on_change=Callback::new(move |v: f64| set_r.run(v.round() as i64))
                scale=Scale::Linear { min: 1.0, max: 256.0, step: 1.0 } format=whole />
            <Select key="ldtype" label="Element type" options=DTYPE_OPTIONS value=dtype on_change=set_dtype />
            <Slider key="ldecay" label="Example: spectrum decay" value=decay on_change=set_decay
                scale=Scale::Linear { min: 0.0, max: 3.0, step: 0.1 } format=one_decimal />
        }
    };
    view! {
        <Figure id="lora" title="The bridge to LoRA: a low-rank update, counted" caption=caption summary=summary csv=csv
            controls=controls show_controls=show_controls>
            <div class="pair-layout">
                <div class="pair-item readouts readouts-column">
                    <Readout name="full-params" label="full update d_out·d_in" value=full format=count_format />
                    <Readout name="lora-params" label="LoRA r·(d_in + d_out)" value=lora format=count_format />
                    <Readout name="ratio" label="full / LoRA" value=ratio format=ratio_format />
                    <Readout name="full-bytes" label="full update, bytes" value=Signal::derive(move || full.get() * model.lora_bytes.get()) format=bytes_format />
                    <Readout name="lora-bytes" label="LoRA, bytes" value=Signal::derive(move || lora.get() * model.lora_bytes.get()) format=bytes_format />
                </div>
                <div class="pair-item">
                    <Chart name="lora-error" spec=curve summary=Signal::derive(move || format!("Relative error of the best rank-r approximation of the example update; {} at r = {}.", format_number(example_error.get(), 3), example_r())) aspect=0.7 />
                    <div class="readouts">
                        <Readout name="example-error" label="example: error at r" value=example_error />
                    </div>
                </div>
            </div>
        </Figure>
    }
}

/// One Pass 3 figure alone (the embed view); `None` for another pass's figure id.
pub fn figure(id: &str, show_controls: bool) -> Option<AnyView> {
    if !["score-rank", "low-rank-target", "multi-head", "lora"].contains(&id) {
        return None;
    }
    let model = LinearAlgebraModel::new(use_url_state());
    Some(match id {
        "score-rank" => {
            view! { <ScoreRankFigure model=model show_controls=show_controls /> }.into_any()
        }
        "low-rank-target" => {
            view! { <LowRankFigure model=model show_controls=show_controls /> }.into_any()
        }
        "multi-head" => {
            view! { <MultiHeadFigure model=model show_controls=show_controls /> }.into_any()
        }
        _ => view! { <LoraFigure model=model show_controls=show_controls /> }.into_any(),
    })
}

/// Section `linear-algebra`.
#[component]
pub fn LinearAlgebraSection() -> impl IntoView {
    let model = LinearAlgebraModel::new(use_url_state());
    view! {
        <section class="pass" id="linear-algebra" aria-labelledby="linear-algebra-title">
            <h2 id="linear-algebra-title"><span class="pass-number">"Pass 3"</span>" Linear algebra: a rank-dₖ object in an n×n costume"</h2>
            <p>
                "W_Q and W_K are learned changes of basis: each token's vector is mapped to a query and a key of dₖ numbers. "
                "The score matrix is every query against every key, an n×n table — but it is built from two thin matrices, and a product of thin matrices cannot have more rank than they do:"
            </p>
            <Formula markup=formulas::RANK_BOUND />
            <p>
                "So when dₖ < n, one head cannot write an arbitrary pattern of scores: all n² of them live in a space of n·dₖ-ish degrees of freedom. "
                "The usual story stops there and is loose in one place. The bound holds for the scores S. The softmax is applied entry by entry, and exponentials of a low-rank matrix are in general of full rank, so the attention matrix A = softmax(S) usually has a higher rank than S — while its singular values still fall off quickly. "
                "Ranks below are counted the way numpy counts them, and an effective rank says how many directions really carry weight:"
            </p>
            <Formula markup=formulas::NUMERICAL_RANK />
            <ScoreRankFigure model=model />
            <h3 class="subhead">"What a rank-k head can and cannot say"</h3>
            <p>
                "Pick a pattern a head might want — attend to yourself, to the previous token, average everything before you — and ask for the closest matrix of rank k. "
                "Eckart and Young answered exactly: truncate the SVD, and the error is what the dropped singular values held."
            </p>
            <Formula markup=formulas::ECKART_YOUNG />
            <LowRankFigure model=model />
            <h3 class="subhead">"Many heads"</h3>
            <p>
                "Multi-head attention carves the projections into h column blocks of d_head = d_model/h. Each head's scores have rank at most d_head; W_O takes the concatenated heads and mixes them back into d_model dimensions, so the layer as a whole is not limited to one head's rank."
            </p>
            <Formula markup=formulas::MULTI_HEAD />
            <MultiHeadFigure model=model />
            <h3 class="subhead">"The bridge to LoRA"</h3>
            <p>
                "The same algebra, used on purpose: fine-tune a d_out × d_in weight with an update that is a product of two thin matrices. "
                "The update then has rank at most r, and costs far fewer parameters and bytes:"
            </p>
            <Formula markup=formulas::LORA />
            <LoraFigure model=model />
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_errors_run_from_one_at_k_zero_to_zero_at_full_rank() {
        // σ = (4, 3): ‖T‖_F² = 25; dropping σ₂ = 3 leaves √(9/25) = 0.6.
        let e = relative_errors(&[4.0, 3.0]);
        assert_eq!(e.len(), 3);
        assert!((e[0] - 1.0).abs() < 1e-15 && (e[1] - 0.6).abs() < 1e-15 && e[2] == 0.0);
    }

    #[test]
    fn no_relative_error_is_claimed_before_any_singular_value_is_known() {
        assert!(relative_errors(&[]).is_empty());
    }

    fn spectrum_of_a(seed: u64, n: usize, d_k: usize) -> Spectrum {
        Spectrum::of(crate::offload::attention_spectrum(seed, n, d_k), n)
    }

    #[test]
    fn caption_says_the_softmax_raised_the_rank_when_it_did() {
        let r = score_rank(1, 32, 4);
        let a = spectrum_of_a(1, 32, 4);
        assert!(r.rank_s <= 4 && a.rank > r.rank_s);
        let c = score_rank_caption(&r, Some(&a), 4);
        assert!(c.contains("not bound by dₖ"), "{c}");
    }

    #[test]
    fn caption_says_so_when_the_softmax_adds_no_rank() {
        let r = score_rank(1, 8, 8);
        assert_eq!(r.rank_s, 8);
        let c = score_rank_caption(&r, Some(&spectrum_of_a(1, 8, 8)), 100);
        assert!(c.contains("no higher than S"), "{c}");
        assert!(c.contains("dₖ = 100 was asked for"), "{c}");
    }

    #[test]
    fn caption_says_when_a_is_still_being_computed() {
        let c = score_rank_caption(&score_rank(1, 8, 2), None, 2);
        assert!(c.contains("Computing"), "{c}");
    }

    #[test]
    fn a_kept_split_is_the_split_made_fresh_and_is_forgotten_with_its_weights() {
        let w = multi_head_weights(3, 12, 32);
        let mut cache = SplitCache::default();
        let first = cache.split((3, 12, 32), &w, 4);
        assert_eq!(cache.split((3, 12, 32), &w, 2), multi_head_split(&w, 2));
        assert_eq!(cache.split((3, 12, 32), &w, 4), first);
        assert_eq!(first, multi_head_split(&w, 4));
        // 3 heads do not divide 32: the split is the one into 2, kept once.
        assert_eq!(cache.split((3, 12, 32), &w, 3).heads, 2);
        assert_eq!(cache.splits.len(), 2);
        let other = multi_head_weights(4, 12, 32);
        assert_eq!(
            cache.split((4, 12, 32), &other, 4),
            multi_head_split(&other, 4)
        );
        assert_eq!(
            cache.splits.len(),
            1,
            "splits of the old draw are forgotten"
        );
    }

    #[test]
    fn blocked_grid_inserts_one_gap_between_blocks() {
        let m = DMatrix::from_fn(2, 4, |i, j| (i * 4 + j) as f64);
        let g = blocked_grid(&m, 2, true);
        assert_eq!((g.rows, g.cols), (2, 5));
        assert!(g.get(0, 2).is_some_and(f64::is_nan));
        assert_eq!(g.get(1, 4), Some(7.0));
        let g = blocked_grid(&m, 1, false);
        assert_eq!((g.rows, g.cols), (3, 4));
    }

    #[test]
    fn lora_shapes_come_from_presets_or_the_custom_fields() {
        assert_eq!(lora_shape("8192x28672", (1, 1)), (8192, 28672));
        assert_eq!(lora_shape("custom", (0, 70_000)), (1, 65_536));
        assert_eq!(lora_shape("nonsense", (5, 5)), (4096, 4096));
    }

    #[test]
    fn count_format_groups_thousands() {
        assert_eq!(count_format(16_777_216.0), "16\u{202F}777\u{202F}216");
        assert_eq!(count_format(512.0), "512");
    }
}
