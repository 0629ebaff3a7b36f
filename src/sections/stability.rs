//! Pass 4 — stability: why deep stacks train at all (section id `stability`).
//!
//! Figures `gradient-flow` (per-layer gradient norms of a real stack, as a strip and a
//! curve, beside the toy chain), `gradient-ab` (two wirings side by side) and
//! `depth-sweep` (bottom-to-top ratio against depth for the four wirings).
//!
//! The stack is computed off the input event: in slices of at most [`SLICE_MS`] with a
//! yield to the browser between them, so no task blocks the page; a generation counter
//! drops a run as soon as a newer request exists, and the forward tape is kept, so a
//! depth change only runs the new blocks and the backward pass.

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::app::{use_url_state, UrlState};
use crate::formulas;
use crate::math::rng::next_seed;
use crate::math::stability::{
    bottom_to_top, heads_dividing, toy_chain, verdict_of, GradientProfile, GradientVerdict,
    NormPlacement, StackShape, Tape, WeightBank, Wiring, MAX_DEPTH, SWEEP_DEPTHS,
};
use crate::state::SEED_MAX;
use crate::widgets::format::{format_number, pending_whole, whole};
use crate::widgets::hooks::{idle_period, now_ms, run_now_then_spawn, yield_to_browser};
use crate::widgets::{
    Axis, Chart, ChartSpec, ColorBar, ColorMap, ColorScale, Figure, Formula, Grid, Heatmap, Mark,
    Readout, Scale, SeedField, Select, Slider, Toggle, Tone,
};

/// Longest slice of work between two yields to the browser (ms).
pub const SLICE_MS: f64 = 8.0;
/// Longest slice of anticipated work: an idle period may last up to 50 ms, and an input
/// that arrives during a slice waits for it to end, so a slice stops after this long (or
/// at the idle deadline, if sooner) and asks for the next idle period.
pub const IDLE_SLICE_MS: f64 = 3.0;
/// The first slice after an input may use most of the frame, so that work that fits in a
/// frame is drawn in that frame instead of being split across two.
pub const FIRST_SLICE_MS: f64 = 14.0;
/// The strip's colour scale: log₁₀ of the gradient norm from −10 (dark) to +10.
pub const STRIP_SCALE: ColorScale = ColorScale {
    map: ColorMap::Sequential,
    min: -10.0,
    max: 10.0,
};
const NORM_OPTIONS: &[(&str, &str)] = &[
    ("none", "none"),
    ("post", "post-norm: LN(x + F(x))"),
    ("pre", "pre-norm: x + F(LN(x))"),
];
const GRAD_OPTIONS: &[(&str, &str)] =
    &[("act", "activations ∂L/∂xₗ"), ("weight", "weights ∂L/∂θₗ")];

/// The norm placement a `norm=` value names.
pub fn norm_of(id: &str) -> NormPlacement {
    match id {
        "post" => NormPlacement::Post,
        "pre" => NormPlacement::Pre,
        _ => NormPlacement::None,
    }
}

/// The stack the URL describes (everything but depth) for `wiring`.
pub fn shape_from(p: &crate::state::Params, wiring: Wiring) -> StackShape {
    let d_model = p.int("dmodel").clamp(16, 64) as usize;
    StackShape {
        d_model,
        heads: heads_dividing(d_model, p.int("heads").clamp(1, 4) as usize),
        seq_len: p.int("seq").clamp(4, 16) as usize,
        gain: p.float("gain").clamp(GAIN_RANGE.0, GAIN_RANGE.1),
        seed: p.int("sseed").max(0) as u64,
        wiring,
    }
}

/// The norms a figure shows: activations' or weights' gradients.
pub fn shown_norms(profile: &GradientProfile, weights: bool) -> &[f64] {
    if weights {
        &profile.weight_grad_norm
    } else {
        &profile.input_grad_norm
    }
}

/// The caption's sentence for a verdict, from the numbers.
pub fn verdict_sentence(
    verdict: GradientVerdict,
    depth: usize,
    overflow_layer: Option<usize>,
) -> String {
    match verdict {
        GradientVerdict::Vanished(0.0) => format!(
            "Vanished, and past what f64 can hold: the gradient reaching layer 0 underflowed to exactly 0 (below about 5·10⁻³²⁴), so the bottom of this {depth}-block stack cannot learn at all."
        ),
        GradientVerdict::Vanished(r) => format!(
            "Vanished: the gradient reaching layer 0 is {} of the top layer's (below 10⁻³), so the bottom of this {depth}-block stack barely learns.",
            format_number(r, 3)
        ),
        GradientVerdict::Exploded(r) => format!(
            "Exploded: the gradient reaching layer 0 is {} times the top layer's (above 10³).",
            format_number(r, 3)
        ),
        GradientVerdict::Stable(r) => format!(
            "Stable: bottom over top is {}, within a factor of 1000 across {depth} blocks.",
            format_number(r, 3)
        ),
        GradientVerdict::Overflow => match overflow_layer {
            Some(l) => format!(
                "Overflow: the numbers left the range of f64 (about 1.8·10³⁰⁸) at layer {l}; those layers are drawn empty and no ratio exists. The gradient exploded beyond what a computer can hold."
            ),
            None => "Overflow or underflow: a norm left the range of f64, so no ratio exists.".into(),
        },
    }
}

/// A number; "0 (underflow)" for an exact 0 (it fell below f64's range); "overflow" for
/// +∞ (it left f64's range); "…" for NaN (not computed yet).
fn ratio_format(x: f64) -> String {
    if x == 0.0 {
        "0 (underflow)".into()
    } else if x.is_finite() {
        format_number(x, 3)
    } else if x.is_nan() {
        "…".into()
    } else {
        "overflow".into()
    }
}

fn norm_format(x: f64) -> String {
    ratio_format(x)
}

/// bottom/top of `norms`: +∞ when it overflowed, NaN while nothing is computed yet.
fn ratio_or_pending(norms: &[f64]) -> f64 {
    if norms.is_empty() {
        f64::NAN
    } else {
        bottom_to_top(norms).unwrap_or(f64::INFINITY)
    }
}

fn two_digits(x: f64) -> String {
    format_number(x, 3)
}

/// A gradient profile computed in slices, superseded by newer requests.
#[derive(Clone, Copy)]
pub struct AsyncProfile {
    /// The latest finished profile with the depth it belongs to.
    pub result: RwSignal<Option<(usize, GradientProfile)>>,
    /// True while a newer request is still being computed.
    pub busy: RwSignal<bool>,
    /// Whether the profile shown was ready when it was asked for (kept from earlier),
    /// rather than computed for the request. Shown as `data-source`.
    pub was_ready: RwSignal<bool>,
}

/// `data-source` of a figure's readouts: `ready` if every profile it shows was ready
/// when asked for, `computed` if one had to be computed (benchmarks tell them apart).
pub fn source_of(runs: &[AsyncProfile]) -> &'static str {
    if runs.iter().all(|r| r.was_ready.get()) {
        "ready"
    } else {
        "computed"
    }
}

/// Profiles of the stacks computed most recently, shared by the Pass 4 figures: at the
/// defaults `gradient-ab`'s A is exactly `gradient-flow`'s stack, and a reader dragging a
/// slider back and forth returns to depths already computed. A stack another figure is
/// computing right now is marked pending, so that it is not computed twice at once.
#[derive(Clone, Debug, Default)]
pub struct RecentProfiles {
    /// Newest last; at most [`RecentProfiles::KEEP`] finished entries.
    done: Vec<((StackShape, usize), GradientProfile)>,
    pending: Vec<(StackShape, usize)>,
}

/// What [`RecentProfiles`] knows about one stack.
#[derive(Clone, Debug, PartialEq)]
pub enum Known {
    Done(GradientProfile),
    /// Another figure is computing it.
    Pending,
    Unknown,
}

impl RecentProfiles {
    /// Finished profiles kept (a profile at depth 128 is about 2 KB): room for the
    /// stacks asked for lately and for those anticipated around them.
    pub const KEEP: usize = 48;

    /// What is known about the stack `key` (a shape and a depth).
    pub fn lookup(&self, key: &(StackShape, usize)) -> Known {
        if let Some((_, p)) = self.done.iter().find(|(k, _)| k == key) {
            Known::Done(p.clone())
        } else if self.pending.contains(key) {
            Known::Pending
        } else {
            Known::Unknown
        }
    }

    /// Marks `key` as being computed.
    pub fn begin(&mut self, key: (StackShape, usize)) {
        if !self.pending.contains(&key) {
            self.pending.push(key);
        }
    }

    /// The computation of `key` was dropped before it finished.
    pub fn abandon(&mut self, key: &(StackShape, usize)) {
        self.pending.retain(|k| k != key);
    }

    /// Stores the finished profile of `key`, forgetting the oldest beyond [`Self::KEEP`].
    pub fn finish(&mut self, key: (StackShape, usize), profile: GradientProfile) {
        self.abandon(&key);
        self.done.retain(|(k, _)| *k != key);
        self.done.push((key, profile));
        if self.done.len() > Self::KEEP {
            self.done.remove(0);
        }
    }
}

/// How a stack's work is spread over time.
#[derive(Clone, Copy)]
enum Pace {
    /// Asked for: the first slice ends at the given time, later ones [`SLICE_MS`] after
    /// they begin, with a yield to the browser between them.
    Asked { first_end: f64 },
    /// Anticipated: only in the browser's idle periods, so it never delays a frame or an
    /// input.
    Idle,
}

impl Pace {
    /// Waits for the next slice (none for the first slice of `Asked`) and gives the time
    /// it ends; None where idle time never comes.
    async fn next_slice(self, first: bool) -> Option<f64> {
        match self {
            Pace::Asked { first_end } if first => Some(first_end),
            Pace::Asked { .. } => {
                yield_to_browser().await;
                Some(now_ms() + SLICE_MS)
            }
            Pace::Idle => idle_period()
                .await
                .map(|deadline| deadline.min(now_ms() + IDLE_SLICE_MS)),
        }
    }
}

/// The gain slider's step and range (`gain`), used by the slider, the URL's clamp and the
/// stacks anticipated one step away.
const GAIN_STEP: f64 = 0.05;
const GAIN_RANGE: (f64, f64) = (0.25, 2.0);
/// Stacks no more work than this (d_model² · T · depth, four default stacks) are
/// anticipated; larger ones are computed only when asked for.
const ANTICIPATE_MAX_WORK: usize = 4 * 32 * 32 * 8 * 32;

/// The gain slider's values next to `gain`, above and below (None past its ends), as
/// the slider gives them (`"0.8"` parsed, not 0.75 + 0.05).
fn gains_beside(gain: f64) -> (Option<f64>, Option<f64>) {
    let steps = gain / GAIN_STEP;
    let at = |k: f64| {
        // k steps of 0.05 is 5k hundredths; one division rounds it as parsing would.
        let g = k * 5.0 / 100.0;
        (GAIN_RANGE.0..=GAIN_RANGE.1).contains(&g).then_some(g)
    };
    (
        at((steps + 1e-9).floor() + 1.0),
        at((steps - 1e-9).ceil() - 1.0),
    )
}

/// Whether `key` is small enough to anticipate its neighbours in idle time.
pub fn worth_anticipating(key: &(StackShape, usize)) -> bool {
    let (s, l) = key;
    s.d_model * s.d_model * s.seq_len * l <= ANTICIPATE_MAX_WORK
}

/// The stacks a reader is likely to ask for next, after `previous` then `key`: one step
/// of the gain slider and of the depth slider either side, the slider that moved last
/// first, in the direction it moved, and for that slider also the step after next in
/// that direction (a fast drag skips values: the pointer moves several steps a frame).
pub fn likely_next(
    key: &(StackShape, usize),
    previous: Option<&(StackShape, usize)>,
) -> Vec<(StackShape, usize)> {
    let (shape, depth) = key;
    let with_gain = |g: f64| {
        (
            StackShape {
                gain: g,
                ..shape.clone()
            },
            *depth,
        )
    };
    let (up, down) = gains_beside(shape.gain);
    let gain_steps = SliderSteps {
        up: [up, up.and_then(|g| gains_beside(g).0)],
        down: [down, down.and_then(|g| gains_beside(g).1)],
    }
    .map(with_gain);
    let depth_at = |l: usize| (1..=MAX_DEPTH).contains(&l).then_some(l);
    let depth_steps = SliderSteps {
        up: [depth_at(depth + 1), depth_at(depth + 2)],
        down: [
            depth.checked_sub(1).and_then(depth_at),
            depth.checked_sub(2).and_then(depth_at),
        ],
    }
    .map(|l| (shape.clone(), l));
    let moved_gain = previous.and_then(|(p, l)| {
        let same_but_gain = StackShape {
            gain: shape.gain,
            ..p.clone()
        } == *shape;
        (same_but_gain && l == depth && p.gain != shape.gain).then_some(p.gain < shape.gain)
    });
    let moved_depth = previous.and_then(|(p, l)| (p == shape && l != depth).then_some(l < depth));
    match (moved_gain, moved_depth) {
        (_, Some(upward)) => [depth_steps.ahead(upward), gain_steps.beside()].concat(),
        (Some(upward), _) => [gain_steps.ahead(upward), depth_steps.beside()].concat(),
        (None, None) => [gain_steps.beside(), depth_steps.beside()].concat(),
    }
}

/// A slider's values one and two steps above and below the one shown (None past its
/// ends).
struct SliderSteps<T> {
    up: [Option<T>; 2],
    down: [Option<T>; 2],
}

impl<T> SliderSteps<T> {
    fn map<U>(self, f: impl Fn(T) -> U) -> SliderSteps<U> {
        let [u1, u2] = self.up;
        let [d1, d2] = self.down;
        SliderSteps {
            up: [u1.map(&f), u2.map(&f)],
            down: [d1.map(&f), d2.map(&f)],
        }
    }

    /// One step either side, upward first: for a slider that did not move last.
    fn beside(self) -> Vec<T> {
        let [u1, _] = self.up;
        let [d1, _] = self.down;
        [u1, d1].into_iter().flatten().collect()
    }

    /// For the slider that moved last: one step, then two, in the direction it moved
    /// (`upward`), then one step back.
    fn ahead(self, upward: bool) -> Vec<T> {
        let ([a1, a2], [b1, _]) = if upward {
            (self.up, self.down)
        } else {
            (self.down, self.up)
        };
        [a1, a2, b1].into_iter().flatten().collect()
    }
}

/// The stacks one press of a switch away from `key`, after the slider steps of
/// [`likely_next`]: the residual turned the other way, each other norm placement, and the
/// seed the "New" button gives next ([`next_seed`]).
pub fn likely_switches(key: &(StackShape, usize)) -> Vec<(StackShape, usize)> {
    let (shape, depth) = key;
    let with_wiring = |residual: bool, norm: NormPlacement| {
        (
            StackShape {
                wiring: Wiring { residual, norm },
                ..shape.clone()
            },
            *depth,
        )
    };
    let Wiring { residual, norm } = shape.wiring;
    let mut next = vec![with_wiring(!residual, norm)];
    next.extend(
        [NormPlacement::None, NormPlacement::Post, NormPlacement::Pre]
            .into_iter()
            .filter(|n| *n != norm)
            .map(|n| with_wiring(residual, n)),
    );
    let seed = next_seed(shape.seed, SEED_MAX as u64);
    next.push((
        StackShape {
            seed,
            ..shape.clone()
        },
        *depth,
    ));
    next
}

/// Everything [`anticipate`] computes after `previous` then `key`, in order: the slider
/// steps of [`likely_next`], then the switches of [`likely_switches`]; but where the seed
/// is what changed last (a press of "New"), the next seed first, as a reader who
/// presses New once is likely to press it again.
pub fn anticipation_order(
    key: &(StackShape, usize),
    previous: Option<&(StackShape, usize)>,
) -> Vec<(StackShape, usize)> {
    let (shape, depth) = key;
    let seed_moved = previous.is_some_and(|(p, l)| {
        l == depth
            && p.seed != shape.seed
            && StackShape {
                seed: shape.seed,
                ..p.clone()
            } == *shape
    });
    let mut switches = likely_switches(key);
    let mut order = Vec::with_capacity(switches.len() + 4);
    if seed_moved {
        // The next seed is the last of the switches.
        order.extend(switches.pop());
    }
    order.extend(likely_next(key, previous));
    order.extend(switches);
    order
}

/// The weights a stack is computed with: the page's shared [`WeightBank`] (the seed
/// shown), or a bank of its own for a stack of another seed, anticipated, whose draws are
/// let go with it (only its profile is kept), so that the shared bank never switches to
/// a seed the reader has not asked for while the figures' tapes hold the shown seed's.
enum Weights {
    Shared(StoredValue<WeightBank>),
    Own(WeightBank),
}

impl Weights {
    /// Appends the next block to `t`; None if the shared bank was disposed.
    fn push_block(&mut self, t: &mut Tape) -> Option<()> {
        match self {
            Weights::Shared(bank) => bank.try_update_value(|b| t.push_block_with(b)),
            Weights::Own(bank) => {
                t.push_block_with(bank);
                Some(())
            }
        }
    }
}

/// Computes, in idle time only, the stacks a reader is likely to ask for next from `key`
/// ([`likely_next`], then [`likely_switches`]), so that the next slider step or switch
/// finds its profile ready. One figure
/// at a time; stops as soon as `current()` is false (the figure was asked for anything
/// new, or left the screen).
async fn anticipate(
    key: (StackShape, usize),
    previous: Option<(StackShape, usize)>,
    model: StabilityModel,
    slot: TapeSlot,
    current: impl Fn() -> bool + Copy,
) {
    if !worth_anticipating(&key) {
        return;
    }
    while model.anticipating.try_get_value() != Some(false) {
        if idle_period().await.is_none() || !current() {
            return;
        }
    }
    model.anticipating.set_value(true);
    for next in anticipation_order(&key, previous.as_ref()) {
        if !current() {
            break;
        }
        if model.recent.with_value(|r| r.lookup(&next)) != Known::Unknown {
            continue;
        }
        let mut t = slot
            .copy_for(&next.0)
            .unwrap_or_else(|| Tape::new(next.0.clone()));
        let mut weights = if next.0.seed == key.0.seed {
            Weights::Shared(model.bank)
        } else {
            Weights::Own(WeightBank::default())
        };
        match run_stack(&mut t, next.1, &mut weights, Pace::Idle, &current).await {
            Some(profile) => model.recent.update_value(|r| r.finish(next, profile)),
            None => break,
        }
    }
    model.anticipating.try_set_value(false);
}

/// Runs the stack `t` to depth `l` (only the blocks it lacks) and backward, in slices
/// paced by `pace`. None as soon as `wanted()` is false at the start of a slice after
/// the first.
async fn run_stack(
    t: &mut Tape,
    l: usize,
    weights: &mut Weights,
    pace: Pace,
    wanted: &dyn Fn() -> bool,
) -> Option<GradientProfile> {
    let mut end = pace.next_slice(true).await?;
    let next = async |end: &mut f64| -> Option<()> {
        if now_ms() > *end {
            *end = pace.next_slice(false).await?;
            if !wanted() {
                return None;
            }
        }
        Some(())
    };
    if !wanted() {
        return None;
    }
    while t.len() < l {
        weights.push_block(t)?;
        next(&mut end).await?;
    }
    let mut back = t.backward(l);
    while !back.step(t) {
        next(&mut end).await?;
    }
    Some(back.profile(t))
}

/// A figure's forward tape, lent to one task at a time, so that a request does not start
/// the forward pass again from block 0 while an older task still holds the tape.
#[derive(Clone, Copy)]
struct TapeSlot {
    tape: StoredValue<Option<Tape>>,
    lent: StoredValue<bool>,
}

impl TapeSlot {
    /// How long a task waits for the tape before it starts a new one (ms).
    const PATIENCE_MS: f64 = 250.0;

    fn new() -> Self {
        Self {
            tape: StoredValue::new(None),
            lent: StoredValue::new(false),
        }
    }

    /// The tape for `shape` (a new one if the kept one is of another shape), once no
    /// other task holds it; None if `wanted()` turns false meanwhile.
    async fn borrow(self, shape: &StackShape, wanted: impl Fn() -> bool) -> Option<Tape> {
        let since = now_ms();
        while self.lent.try_get_value() == Some(true) && now_ms() - since < Self::PATIENCE_MS {
            yield_to_browser().await;
            if !wanted() {
                return None;
            }
        }
        self.lent.try_set_value(true);
        let kept = self.tape.try_update_value(|t| t.take()).flatten();
        Some(
            kept.filter(|t| t.shape == *shape)
                .unwrap_or_else(|| Tape::new(shape.clone())),
        )
    }

    /// Returns the tape, or lets it go when the figure now wants another shape: a tape
    /// holds every block's activations, tens of MB for the largest stacks, and a shape
    /// no longer asked for must not keep them alive.
    fn give_back(self, t: Tape, still_wanted: bool) {
        self.tape.try_set_value(still_wanted.then_some(t));
        self.lent.try_set_value(false);
    }

    /// A copy of the kept tape if it is of `shape` and no task holds it (a stack of a
    /// neighbouring depth then needs no forward pass from block 0).
    fn copy_for(self, shape: &StackShape) -> Option<Tape> {
        if self.lent.try_get_value() != Some(false) {
            return None;
        }
        self.tape
            .try_with_value(|t| t.as_ref().filter(|t| t.shape == *shape).cloned())
            .flatten()
    }

    /// Lets a kept tape of another shape than `shape` go (one that no task holds).
    fn forget_unless(self, shape: &StackShape) {
        if self.lent.try_get_value() == Some(false)
            && self
                .tape
                .try_with_value(|t| t.as_ref().is_some_and(|t| t.shape != *shape))
                == Some(true)
        {
            self.tape.try_set_value(None);
        }
    }
}

/// Keeps a profile of `shape` at `depth` up to date while `active` (the figure is on
/// screen). The tape is kept across depths, and finished profiles are shared through the
/// model's [`RecentProfiles`].
pub fn use_gradient_profile(
    shape: Memo<StackShape>,
    depth: Memo<usize>,
    active: RwSignal<bool>,
    model: StabilityModel,
) -> AsyncProfile {
    let (bank, recent) = (model.bank, model.recent);
    let result = RwSignal::new(None::<(usize, GradientProfile)>);
    let busy = RwSignal::new(false);
    let was_ready = RwSignal::new(false);
    let generation = StoredValue::new(0u64);
    let requested = StoredValue::new(None::<(StackShape, usize)>);
    let slot = TapeSlot::new();
    let done_for = StoredValue::new(None::<(StackShape, usize)>);
    let show = move |key: (StackShape, usize), profile: GradientProfile, ready: bool| {
        let l = key.1;
        let previous = done_for.get_value();
        done_for.set_value(Some(key.clone()));
        was_ready.set(ready);
        result.set(Some((l, profile)));
        busy.set(false);
        let shown_gen = generation.get_value();
        let current = move || {
            generation.try_get_value() == Some(shown_gen)
                && active.try_get_untracked() == Some(true)
        };
        spawn_local(anticipate(key, previous, model, slot, current));
    };
    Effect::new(move |_| {
        let s = shape.get();
        let l = depth.get().clamp(1, MAX_DEPTH);
        if !active.get() {
            return;
        }
        // A newer request always cancels a run in flight, even when its answer is known
        // (unless that run computes exactly what is asked now).
        let my_gen = generation.get_value() + 1;
        generation.set_value(my_gen);
        let key = (s, l);
        requested.set_value(Some(key.clone()));
        if done_for.with_value(|d| d.as_ref() == Some(&key)) {
            busy.set(false);
            slot.forget_unless(&key.0);
            return;
        }
        if let Known::Done(p) = recent.with_value(|r| r.lookup(&key)) {
            slot.forget_unless(&key.0);
            show(key, p, true);
            return;
        }
        busy.set(true);
        run_now_then_spawn(async move {
            let current = move || generation.try_get_value() == Some(my_gen);
            let asked = move |k: &(StackShape, usize)| {
                current() || requested.try_with_value(|r| r.as_ref() == Some(k)) == Some(true)
            };
            // Another task computing this very stack: wait for it instead.
            loop {
                match recent.with_value(|r| r.lookup(&key)) {
                    Known::Done(p) => {
                        if current() {
                            show(key, p, false);
                        }
                        return;
                    }
                    Known::Pending => {
                        yield_to_browser().await;
                        if !current() {
                            return;
                        }
                    }
                    Known::Unknown => break,
                }
            }
            recent.update_value(|r| r.begin(key.clone()));
            let Some(mut t) = slot.borrow(&key.0, current).await else {
                recent.update_value(|r| r.abandon(&key));
                return;
            };
            // The first slice may use most of the frame; later ones stay short.
            let pace = Pace::Asked {
                first_end: now_ms() + FIRST_SLICE_MS,
            };
            let k = key.clone();
            let same_shape = move |k: &(StackShape, usize)| {
                requested.try_with_value(|r| r.as_ref().map(|r| &r.0) == Some(&k.0)) == Some(true)
            };
            let Some(profile) = run_stack(
                &mut t,
                key.1,
                &mut Weights::Shared(bank),
                pace,
                &move || asked(&k),
            )
            .await
            else {
                recent.update_value(|r| r.abandon(&key));
                return slot.give_back(t, same_shape(&key));
            };
            recent.update_value(|r| r.finish(key.clone(), profile.clone()));
            if requested.with_value(|r| r.as_ref() == Some(&key)) {
                show(key.clone(), profile, false);
            }
            slot.give_back(t, same_shape(&key));
        });
    });
    AsyncProfile {
        result,
        busy,
        was_ready,
    }
}

/// The depth sweep: bottom/top ratio at each depth of [`SWEEP_DEPTHS`] for each wiring
/// (None where it overflowed), computed in slices.
#[derive(Clone, Debug, PartialEq)]
pub struct DepthSweep {
    pub rows: Vec<(Wiring, Vec<Option<f64>>)>,
}

/// Computes the sweep for `base` (its wiring is ignored) whenever it changes while
/// `active` (the figure is on screen).
pub fn use_depth_sweep(
    base: Memo<StackShape>,
    active: RwSignal<bool>,
    bank: StoredValue<WeightBank>,
) -> AsyncSweep {
    let result = RwSignal::new(None::<DepthSweep>);
    // 1 = nothing running (a figure never scrolled to has nothing in progress).
    let progress = RwSignal::new(1.0f64);
    let generation = StoredValue::new(0u64);
    let done_for = StoredValue::new(None::<StackShape>);
    Effect::new(move |_| {
        let s = StackShape {
            wiring: Wiring::PLAIN,
            ..base.get()
        };
        if !active.get() {
            return;
        }
        let my_gen = generation.get_value() + 1;
        generation.set_value(my_gen);
        if done_for.with_value(|d| d.as_ref() == Some(&s)) {
            progress.set(1.0);
            return;
        }
        progress.set(0.0);
        spawn_local(async move {
            let current = move || generation.get_value() == my_gen;
            let total: usize =
                Wiring::SWEEP.len() * (MAX_DEPTH + SWEEP_DEPTHS.iter().sum::<usize>());
            let mut done = 0usize;
            let mut rows = Vec::new();
            let mut slice = now_ms();
            for wiring in Wiring::SWEEP {
                let mut tape = Tape::new(StackShape {
                    wiring,
                    ..s.clone()
                });
                let mut ratios = Vec::new();
                for &depth in &SWEEP_DEPTHS {
                    while tape.len() < depth {
                        bank.update_value(|b| tape.push_block_with(b));
                        done += 1;
                        if now_ms() - slice > SLICE_MS {
                            yield_to_browser().await;
                            slice = now_ms();
                            if !current() {
                                return;
                            }
                            progress.set(done as f64 / total as f64);
                        }
                    }
                    let mut back = tape.backward(depth);
                    loop {
                        let finished = back.step(&tape);
                        done += 1;
                        if now_ms() - slice > SLICE_MS {
                            yield_to_browser().await;
                            slice = now_ms();
                            if !current() {
                                return;
                            }
                            progress.set(done as f64 / total as f64);
                        }
                        if finished {
                            break;
                        }
                    }
                    ratios.push(bottom_to_top(&back.profile(&tape).input_grad_norm));
                }
                rows.push((wiring, ratios));
            }
            if current() {
                done_for.set_value(Some(s));
                result.set(Some(DepthSweep { rows }));
                progress.set(1.0);
            }
        });
    });
    AsyncSweep { result, progress }
}

/// The depth sweep's state.
#[derive(Clone, Copy)]
pub struct AsyncSweep {
    pub result: RwSignal<Option<DepthSweep>>,
    /// Fraction done of the latest request (1 when finished).
    pub progress: RwSignal<f64>,
}

/// Everything Pass 4 computes, as memos over the URL state.
#[derive(Clone, Copy)]
pub struct StabilityModel {
    pub state: UrlState,
    pub depth: Memo<usize>,
    pub weights: Memo<bool>,
    pub rho: Memo<f64>,
    pub requested_heads: Memo<usize>,
    pub shape: Memo<StackShape>,
    pub shape_a: Memo<StackShape>,
    pub shape_b: Memo<StackShape>,
    /// Unit weight draws shared by every Pass 4 figure (they share seed and d_model).
    pub bank: StoredValue<WeightBank>,
    /// Profiles computed lately, shared by every Pass 4 figure.
    pub recent: StoredValue<RecentProfiles>,
    /// True while a figure anticipates stacks in idle time (one at a time).
    pub anticipating: StoredValue<bool>,
}

impl StabilityModel {
    /// Builds the memo graph from the URL state.
    pub fn new(state: UrlState) -> Self {
        let p = state;
        let wiring = |res: &'static str, norm: &'static str| {
            move |p: &crate::state::Params| Wiring {
                residual: p.flag(res),
                norm: norm_of(p.choice(norm)),
            }
        };
        let (w, wa, wb) = (
            wiring("res", "norm"),
            wiring("ares", "anorm"),
            wiring("bres", "bnorm"),
        );
        Self {
            state,
            depth: Memo::new(move |_| {
                p.tracked(|p| p.int("depth")).clamp(1, MAX_DEPTH as i64) as usize
            }),
            weights: Memo::new(move |_| p.tracked(|p| p.choice("grad")) == "weight"),
            rho: Memo::new(move |_| p.tracked(|p| p.float("rho"))),
            requested_heads: Memo::new(move |_| p.tracked(|p| p.int("heads")).clamp(1, 4) as usize),
            shape: Memo::new(move |_| p.tracked(|p| shape_from(p, w(p)))),
            shape_a: Memo::new(move |_| p.tracked(|p| shape_from(p, wa(p)))),
            shape_b: Memo::new(move |_| p.tracked(|p| shape_from(p, wb(p)))),
            bank: StoredValue::new(WeightBank::default()),
            recent: StoredValue::new(RecentProfiles::default()),
            anticipating: StoredValue::new(false),
        }
    }
}

/// The strip: one cell per layer, log₁₀ of the norm (non-finite cells left empty).
fn strip_grid(norms: &[f64]) -> Grid {
    Grid {
        rows: 1,
        cols: norms.len(),
        values: norms
            .iter()
            .map(|v| {
                if v.is_finite() && *v > 0.0 {
                    v.log10()
                } else {
                    f64::NAN
                }
            })
            .collect(),
    }
}

/// The curve of per-layer norms (log y), with optional toy chain scaled to the top layer.
/// Before any profile has arrived (every series empty) the axes still span `pending_depth`
/// layers, so that a figure still computing shows empty axes, not an error.
fn profile_chart(
    series: &[(String, &[f64], Tone)],
    toy: Option<f64>,
    pending_depth: impl FnOnce() -> usize,
) -> ChartSpec {
    let finite: Vec<f64> = series
        .iter()
        .flat_map(|(_, v, _)| v.iter().copied())
        .filter(|v| v.is_finite() && *v > 0.0)
        .collect();
    let depth = series
        .iter()
        .map(|(_, v, _)| v.len())
        .max()
        .filter(|&d| d > 0)
        .unwrap_or_else(|| pending_depth().max(1));
    let mut marks = Vec::new();
    let mut lo = finite.iter().copied().fold(f64::INFINITY, f64::min);
    let mut hi = finite.iter().copied().fold(0.0, f64::max);
    for (label, values, tone) in series {
        marks.push(Mark::Line {
            label: label.clone(),
            points: values
                .iter()
                .enumerate()
                .filter(|(_, v)| v.is_finite() && **v > 0.0)
                .map(|(l, v)| (l as f64, *v))
                .collect(),
            tone: *tone,
            dashed: false,
            dots: values.len() <= 48,
        });
    }
    if let (Some(rho), Some((_, first, _))) = (toy, series.first()) {
        if let Some(top) = first.last().copied().filter(|v| v.is_finite() && *v > 0.0) {
            let chain: Vec<(f64, f64)> = toy_chain(rho, first.len())
                .iter()
                .enumerate()
                .map(|(l, f)| (l as f64, top * f))
                .filter(|(_, v)| v.is_finite() && *v > 0.0)
                .collect();
            for (_, v) in &chain {
                lo = lo.min(*v);
                hi = hi.max(*v);
            }
            marks.push(Mark::Line {
                label: format!("toy chain ρ = {}", format_number(rho, 2)),
                points: chain,
                tone: Tone::Muted,
                dashed: true,
                dots: false,
            });
        }
    }
    if !lo.is_finite() || lo <= 0.0 {
        lo = 1e-3;
    }
    if hi <= lo {
        hi = lo * 10.0;
    }
    ChartSpec {
        x: Axis {
            label: "layer l (0 = bottom)".into(),
            min: -0.5,
            max: depth as f64 - 0.5,
            log: false,
        },
        y: Axis::log_decades("gradient norm", lo, hi),
        marks,
        legend_left: false,
    }
}

fn profile_csv(profile: &GradientProfile) -> String {
    let mut out = String::from("layer,input_grad_norm,weight_grad_norm\n");
    for (l, (a, w)) in profile
        .input_grad_norm
        .iter()
        .zip(&profile.weight_grad_norm)
        .enumerate()
    {
        let cell = |v: &f64| {
            if v.is_finite() {
                format!("{v}")
            } else {
                "overflow".into()
            }
        };
        out.push_str(&format!("{l},{},{}\n", cell(a), cell(w)));
    }
    out
}

fn describe_layer(
    result: RwSignal<Option<(usize, GradientProfile)>>,
    weights: Memo<bool>,
) -> Callback<(usize, usize), String> {
    Callback::new(move |(_, l): (usize, usize)| {
        result.with_untracked(|r| {
            r.as_ref()
                .and_then(|(_, p)| shown_norms(p, weights.get_untracked()).get(l).copied())
                .map(|v| format!("layer {l}: gradient norm {}", norm_format(v)))
                .unwrap_or_default()
        })
    })
}

/// Architecture controls shared by the three figures.
#[component]
fn StackControls(model: StabilityModel, instance: &'static str) -> impl IntoView {
    let s = model.state;
    let (gain, set_gain) = s.float_control("gain");
    let (seed, set_seed) = s.int_control("sseed");
    let (d, set_d) = s.int_control("dmodel");
    let (_, set_h) = s.int_control("heads");
    let (t, set_t) = s.int_control("seq");
    let int_cb = |cb: Callback<i64>| Callback::new(move |v: f64| cb.run(v.round() as i64));
    view! {
        <Slider key="gain" label="Init gain" instance=instance value=gain on_change=set_gain
            scale=Scale::Linear { min: GAIN_RANGE.0, max: GAIN_RANGE.1, step: GAIN_STEP } format=two_digits />
        <SeedField key="sseed" label="Seed" instance=instance value=seed on_change=set_seed />
        <Slider key="dmodel" label="d_model" instance=instance value=Signal::derive(move || d.get() as f64) on_change=int_cb(set_d)
            scale=Scale::Linear { min: 16.0, max: 64.0, step: 4.0 } format=whole />
        <Slider key="heads" label="Heads" instance=instance value=Signal::derive(move || model.requested_heads.get() as f64) on_change=int_cb(set_h)
            scale=Scale::Linear { min: 1.0, max: 4.0, step: 1.0 } format=whole />
        <Slider key="seq" label="Tokens T" instance=instance value=Signal::derive(move || t.get() as f64) on_change=int_cb(set_t)
            scale=Scale::Linear { min: 4.0, max: 16.0, step: 1.0 } format=whole />
    }
}

#[component]
fn DepthSlider(model: StabilityModel, instance: &'static str) -> impl IntoView {
    let (_, set) = model.state.int_control("depth");
    view! {
        <Slider key="depth" label="Depth L" instance=instance value=Signal::derive(move || model.depth.get() as f64)
            on_change=Callback::new(move |v: f64| set.run(v.round() as i64))
            scale=Scale::Linear { min: 1.0, max: MAX_DEPTH as f64, step: 1.0 } format=whole />
    }
}

#[component]
fn WiringControls(
    model: StabilityModel,
    res: &'static str,
    norm: &'static str,
    label: &'static str,
    instance: &'static str,
) -> impl IntoView {
    let (r, set_r) = model.state.flag_control(res);
    let (n, set_n) = model.state.choice_control(norm);
    view! {
        <fieldset class="control-group">
            <legend>{label}</legend>
            <Toggle key=res label="Residual" instance=instance value=r on_change=set_r />
            <Select key=norm label="LayerNorm" instance=instance options=NORM_OPTIONS value=n on_change=set_n />
        </fieldset>
    }
}

fn heads_note(model: StabilityModel) -> impl IntoView {
    move || {
        let (asked, used, d) = (
            model.requested_heads.get(),
            model.shape.with(|s| s.heads),
            model.shape.with(|s| s.d_model),
        );
        (asked != used).then(|| {
            view! { <p class="control-note" role="status">{format!("{asked} heads do not divide d_model = {d}: using {used}.")}</p> }
        })
    }
}

/// Figure `gradient-flow`.
#[component]
pub fn GradientFlowFigure(
    model: StabilityModel,
    #[prop(default = true)] show_controls: bool,
) -> impl IntoView {
    let on_screen = RwSignal::new(false);
    let run = use_gradient_profile(model.shape, model.depth, on_screen, model);
    let norms = Memo::new(move |_| {
        run.result
            .with(|r| {
                r.as_ref()
                    .map(|(_, p)| shown_norms(p, model.weights.get()).to_vec())
            })
            .unwrap_or_default()
    });
    let grid = Memo::new(move |_| norms.with(|n| strip_grid(n)));
    let ratio = Signal::derive(move || norms.with(|n| ratio_or_pending(n)));
    let which = move || {
        if model.weights.get() {
            "weight"
        } else {
            "input"
        }
    };
    // What the strip and the curve say: `shown` once a profile is there, the same
    // waiting sentence for both until then.
    let described = move |shown: fn(&str, usize, String) -> String| {
        Signal::derive(move || {
            if norms.with(Vec::is_empty) {
                return format!(
                    "The stack of {} blocks is still being computed.",
                    model.depth.get()
                );
            }
            shown(which(), norms.with(Vec::len), ratio_format(ratio.get()))
        })
    };
    let summary = described(|which, layers, ratio| {
        format!("Strip of {layers} layers coloured by log₁₀ of the {which} gradient norm; bottom over top = {ratio}.")
    });
    let curve_summary = described(|which, layers, ratio| {
        format!("Curve of the {which} gradient norm at each of {layers} layers, on a log scale; bottom over top = {ratio}.")
    });
    // A memo: the chart redraws only when what it draws changes, not on every input.
    let spec = Memo::new(move |_| {
        norms.with(|n| {
            let label = model.shape.with(|s| s.wiring.label());
            profile_chart(
                &[(label, n.as_slice(), Tone::Blue)],
                Some(model.rho.get()),
                || model.depth.get(),
            )
        })
    });
    let caption = Signal::derive(move || {
        run.result.with(|r| match r {
            None => "Computing the stack…".to_string(),
            Some((depth, p)) => {
                let n = shown_norms(p, model.weights.get());
                let verdict = verdict_of(bottom_to_top(n));
                let toy = model.rho.get().powi(*depth as i32 - 1);
                model.shape.with(|s| {
                    format!(
                        "A real stack of {depth} blocks ({}; d_model {}, {} heads, {} tokens, gain {}), forward and backward in f64. {} The toy chain with ρ = {} would give ρ^(L−1) = {} between the same layers.",
                        s.wiring.label(),
                        s.d_model,
                        s.heads,
                        s.seq_len,
                        format_number(s.gain, 3),
                        verdict_sentence(verdict, *depth, p.first_backward_overflow().or(p.forward_overflow)),
                        format_number(model.rho.get(), 2),
                        format_number(toy, 3)
                    )
                })
            }
        })
    });
    let csv = Callback::new(move |_| {
        run.result
            .with_untracked(|r| r.as_ref().map(|(_, p)| profile_csv(p)).unwrap_or_default())
    });
    let controls = move || {
        let (grad, set_grad) = model.state.choice_control("grad");
        let (_, set_rho) = model.state.float_control("rho");
        view! {
            <DepthSlider model=model instance="" />
            <WiringControls model=model res="res" norm="norm" label="Wiring" instance="" />
            <Select key="grad" label="Gradient shown" options=GRAD_OPTIONS value=grad on_change=set_grad />
            <Slider key="rho" label="Toy factor ρ" value=model.rho on_change=set_rho
                scale=Scale::Linear { min: 0.1, max: 1.5, step: 0.05 } format=two_digits />
            <StackControls model=model instance="" />
            {heads_note(model)}
        }
    };
    view! {
        <Figure id="gradient-flow" on_screen=on_screen title="Gradient flow through a real stack" caption=caption summary=summary csv=csv
            controls=controls show_controls=show_controls>
            <p class="panel-label">"Layer 0 (bottom, left) to layer L − 1 (top, right)"</p>
            <div class="strip">
                <Heatmap name="gradient-strip" grid=grid scale=STRIP_SCALE describe=describe_layer(run.result, model.weights) summary=summary max_width=760.0 height=40.0 />
            </div>
            <ColorBar scale=STRIP_SCALE label="log₁₀ of the gradient norm (dark = vanished; empty = overflow)" />
            <Chart name="gradient-curve" spec=spec summary=curve_summary aspect=0.45 max_width=760.0 />
            <div class="readouts" aria-busy=move || run.busy.get().to_string() data-source=move || source_of(&[run])>
                <Readout name="grad-ratio" label="bottom / top" value=ratio format=ratio_format />
                <Readout name="depth" label="depth L" value=Signal::derive(move || run.result.with(|r| r.as_ref().map_or(f64::NAN, |(d, _)| *d as f64))) format=pending_whole />
                <Readout name="bottom-norm" label="‖grad‖ at layer 0" value=Signal::derive(move || norms.with(|n| n.first().copied().unwrap_or(f64::NAN))) format=norm_format />
                <Readout name="top-norm" label="‖grad‖ at the top" value=Signal::derive(move || norms.with(|n| n.last().copied().unwrap_or(f64::NAN))) format=norm_format />
            </div>
        </Figure>
    }
}

/// Figure `gradient-ab`.
#[component]
pub fn GradientAbFigure(
    model: StabilityModel,
    #[prop(default = true)] show_controls: bool,
) -> impl IntoView {
    let on_screen = RwSignal::new(false);
    let run_a = use_gradient_profile(model.shape_a, model.depth, on_screen, model);
    let run_b = use_gradient_profile(model.shape_b, model.depth, on_screen, model);
    let norms = move |run: AsyncProfile| {
        Memo::new(move |_| {
            run.result
                .with(|r| {
                    r.as_ref()
                        .map(|(_, p)| shown_norms(p, model.weights.get()).to_vec())
                })
                .unwrap_or_default()
        })
    };
    let (na, nb) = (norms(run_a), norms(run_b));
    let (ga, gb) = (
        Memo::new(move |_| na.with(|n| strip_grid(n))),
        Memo::new(move |_| nb.with(|n| strip_grid(n))),
    );
    let ratio = move |n: Memo<Vec<f64>>| Signal::derive(move || n.with(|n| ratio_or_pending(n)));
    let (ra, rb) = (ratio(na), ratio(nb));
    let (label_a, label_b) = (
        Signal::derive(move || model.shape_a.with(|s| s.wiring.label())),
        Signal::derive(move || model.shape_b.with(|s| s.wiring.label())),
    );
    let spec = Memo::new(move |_| {
        na.with(|a| {
            nb.with(|b| {
                profile_chart(
                    &[
                        (format!("A: {}", label_a.get()), a.as_slice(), Tone::Coral),
                        (format!("B: {}", label_b.get()), b.as_slice(), Tone::Blue),
                    ],
                    None,
                    || model.depth.get(),
                )
            })
        })
    });
    let summary = Signal::derive(move || {
        format!(
            "A ({}) bottom over top {}; B ({}) {}.",
            label_a.get(),
            ratio_format(ra.get()),
            label_b.get(),
            ratio_format(rb.get())
        )
    });
    let caption = Signal::derive(move || {
        let depth = model.depth.get();
        if run_a.result.with(Option::is_none) || run_b.result.with(Option::is_none) {
            return format!(
                "The same seed, input and depth L = {depth}, wired two ways: computing both stacks…"
            );
        }
        let sentence = |n: Memo<Vec<f64>>| {
            n.with(|n| verdict_sentence(verdict_of(bottom_to_top(n)), depth, None))
        };
        format!(
            "The same seed, input and depth L = {depth}, wired two ways. A, {}: {} B, {}: {}",
            label_a.get(),
            sentence(na),
            label_b.get(),
            sentence(nb)
        )
    });
    let csv = Callback::new(move |_| {
        let col = |run: AsyncProfile| {
            run.result
                .with_untracked(|r| r.as_ref().map(|(_, p)| p.clone()))
        };
        match (col(run_a), col(run_b)) {
            (Some(a), Some(b)) => {
                let mut out = String::from("layer,a_input_grad_norm,a_weight_grad_norm,b_input_grad_norm,b_weight_grad_norm\n");
                for l in 0..a.input_grad_norm.len().min(b.input_grad_norm.len()) {
                    out.push_str(&format!(
                        "{l},{},{},{},{}\n",
                        a.input_grad_norm[l],
                        a.weight_grad_norm[l],
                        b.input_grad_norm[l],
                        b.weight_grad_norm[l]
                    ));
                }
                out
            }
            _ => String::new(),
        }
    });
    let controls = move || {
        let (grad, set_grad) = model.state.choice_control("grad");
        view! {
            <DepthSlider model=model instance="-ab" />
            <WiringControls model=model res="ares" norm="anorm" label="A" instance="-a" />
            <WiringControls model=model res="bres" norm="bnorm" label="B" instance="-b" />
            <Select key="grad" label="Gradient shown" instance="-ab" options=GRAD_OPTIONS value=grad on_change=set_grad />
        }
    };
    view! {
        <Figure id="gradient-ab" on_screen=on_screen title="Side by side: the identity highway at work" caption=caption summary=summary csv=csv
            controls=controls show_controls=show_controls>
            <p class="panel-label">{move || format!("A: {}", label_a.get())}</p>
            <div class="strip">
                <Heatmap name="strip-a" grid=ga scale=STRIP_SCALE describe=describe_layer(run_a.result, model.weights) summary=Signal::derive(move || format!("Strip A, bottom over top {}.", ratio_format(ra.get()))) max_width=760.0 height=32.0 />
            </div>
            <p class="panel-label">{move || format!("B: {}", label_b.get())}</p>
            <div class="strip">
                <Heatmap name="strip-b" grid=gb scale=STRIP_SCALE describe=describe_layer(run_b.result, model.weights) summary=Signal::derive(move || format!("Strip B, bottom over top {}.", ratio_format(rb.get()))) max_width=760.0 height=32.0 />
            </div>
            <Chart name="gradient-ab-curve" spec=spec summary=summary aspect=0.45 max_width=760.0 />
            <div class="readouts" aria-busy=move || (run_a.busy.get() || run_b.busy.get()).to_string() data-source=move || source_of(&[run_a, run_b])>
                <Readout name="grad-ratio-a" label="A: bottom / top" value=ra format=ratio_format />
                <Readout name="grad-ratio-b" label="B: bottom / top" value=rb format=ratio_format />
            </div>
        </Figure>
    }
}

/// The sweep's readout names, in the order of [`Wiring::SWEEP`].
const SWEEP_READOUTS: [&str; 4] = ["sweep-plain", "sweep-post", "sweep-pre", "sweep-residual"];
const SWEEP_TONES: [Tone; 4] = [Tone::Coral, Tone::Purple, Tone::Blue, Tone::Gold];

/// Figure `depth-sweep`.
#[component]
pub fn DepthSweepFigure(
    model: StabilityModel,
    #[prop(default = true)] show_controls: bool,
) -> impl IntoView {
    let on_screen = RwSignal::new(false);
    let sweep = use_depth_sweep(model.shape, on_screen, model.bank);
    let spec = Memo::new(move |_| {
        sweep.result.with(|r| {
            let rows = r.as_ref().map(|s| s.rows.clone()).unwrap_or_default();
            let values: Vec<f64> = rows
                .iter()
                .flat_map(|(_, v)| v.iter().flatten().copied())
                .filter(|v| *v > 0.0)
                .collect();
            let lo = values.iter().copied().fold(1e-3, f64::min);
            let hi = values.iter().copied().fold(1e3, f64::max);
            let mut marks: Vec<Mark> = rows
                .iter()
                .zip(SWEEP_TONES)
                .map(|((w, v), tone)| Mark::Line {
                    label: w.label(),
                    points: SWEEP_DEPTHS
                        .iter()
                        .zip(v)
                        .filter_map(|(d, r)| r.filter(|r| *r > 0.0).map(|r| (*d as f64, r)))
                        .collect(),
                    tone,
                    dashed: false,
                    dots: true,
                })
                .collect();
            marks.push(Mark::HRule {
                label: "10⁻³ (vanished)".into(),
                y: 1e-3,
                tone: Tone::Muted,
            });
            marks.push(Mark::HRule {
                label: "10³ (exploded)".into(),
                y: 1e3,
                tone: Tone::Muted,
            });
            ChartSpec {
                x: Axis {
                    label: "depth L".into(),
                    min: 1.0,
                    max: MAX_DEPTH as f64,
                    log: true,
                },
                y: Axis::log_decades("bottom / top gradient norm", lo, hi),
                marks,
                legend_left: true,
            }
        })
    });
    let at_deepest = move |i: usize| {
        Signal::derive(move || {
            sweep.result.with(|r| {
                r.as_ref()
                    .and_then(|s| s.rows.get(i))
                    .and_then(|(_, v)| v.last().copied().flatten())
                    .unwrap_or(if r.is_some() { f64::INFINITY } else { f64::NAN })
            })
        })
    };
    let summary = Signal::derive(move || {
        sweep.result.with(|r| match r {
            None => "Computing the depth sweep…".to_string(),
            Some(s) => s
                .rows
                .iter()
                .map(|(w, v)| {
                    format!(
                        "{}: {} at depth 128",
                        w.label(),
                        ratio_format(v.last().copied().flatten().unwrap_or(f64::INFINITY))
                    )
                })
                .collect::<Vec<_>>()
                .join("; "),
        })
    });
    let caption = Signal::derive(move || {
        sweep.result.with(|r| match r {
            // Progress only while a sweep runs (progress 1 = nothing started: off screen).
            None => match sweep.progress.get() {
                p if p < 1.0 => format!("Computing the four wirings at eight depths… {}%", (p * 100.0).round()),
                _ => "Computing the four wirings at eight depths…".to_string(),
            },
            Some(s) => {
                let parts: Vec<String> = s
                    .rows
                    .iter()
                    .map(|(w, v)| {
                        let at = |d: usize| SWEEP_DEPTHS.iter().position(|x| *x == d).and_then(|i| v[i]);
                        format!("{}: {} at L = 32, {} at L = 128", w.label(), ratio_format(at(32).unwrap_or(f64::INFINITY)), ratio_format(at(128).unwrap_or(f64::INFINITY)))
                    })
                    .collect();
                let pending = sweep.progress.get();
                let status = if pending < 1.0 {
                    format!(" (Recomputing for the new settings… {}%.)", (pending * 100.0).round())
                } else {
                    String::new()
                };
                format!("Bottom-to-top gradient ratio of real stacks (same seed, input and weights for every depth: a shallow stack is the first blocks of a deep one). {}.{status}", parts.join("; "))
            }
        })
    });
    let csv = Callback::new(move |_| {
        sweep.result.with_untracked(|r| {
            let mut out =
                String::from("depth,no_residual_no_norm,post_norm,pre_norm,residual_no_norm\n");
            if let Some(s) = r {
                for (i, d) in SWEEP_DEPTHS.iter().enumerate() {
                    let cells: Vec<String> = s
                        .rows
                        .iter()
                        .map(|(_, v)| {
                            v[i].map(|x| x.to_string())
                                .unwrap_or_else(|| "overflow".into())
                        })
                        .collect();
                    out.push_str(&format!("{d},{}\n", cells.join(",")));
                }
            }
            out
        })
    });
    let controls = move || view! { <StackControls model=model instance="-sweep" /> };
    view! {
        <Figure id="depth-sweep" on_screen=on_screen title="Depth sweep: four wirings from 1 to 128 blocks" caption=caption summary=summary csv=csv
            controls=controls show_controls=show_controls>
            <Chart name="depth-sweep" spec=spec summary=summary aspect=0.55 max_width=760.0 />
            <div class="readouts" aria-busy=move || (sweep.progress.get() < 1.0).to_string()>
                {SWEEP_READOUTS.iter().enumerate().map(|(i, name)| {
                    let label = ["no residual, no norm (L = 128)", "post-norm (L = 128)", "pre-norm (L = 128)", "residual, no norm (L = 128)"][i];
                    view! { <Readout name=*name label=label value=at_deepest(i) format=ratio_format /> }
                }).collect_view()}
            </div>
        </Figure>
    }
}

/// One Pass 4 figure alone (the embed view); `None` for another pass's figure id.
pub fn figure(id: &str, show_controls: bool) -> Option<AnyView> {
    if !["gradient-flow", "gradient-ab", "depth-sweep"].contains(&id) {
        return None;
    }
    let model = StabilityModel::new(use_url_state());
    Some(match id {
        "gradient-flow" => {
            view! { <GradientFlowFigure model=model show_controls=show_controls /> }.into_any()
        }
        "gradient-ab" => {
            view! { <GradientAbFigure model=model show_controls=show_controls /> }.into_any()
        }
        _ => view! { <DepthSweepFigure model=model show_controls=show_controls /> }.into_any(),
    })
}

/// Section `stability`.
#[component]
pub fn StabilitySection() -> impl IntoView {
    let model = StabilityModel::new(use_url_state());
    view! {
        <section class="pass" id="stability" aria-labelledby="stability-title">
            <h2 id="stability-title"><span class="pass-number">"Pass 4"</span>" Stability: why deep stacks train at all"</h2>
            <p>
                "Backpropagation through L layers multiplies L Jacobians. If each one shrinks vectors by a factor ρ < 1, the product shrinks geometrically — 0.7³² ≈ 1.1·10⁻⁵ — and the bottom layers receive almost nothing:"
            </p>
            <Formula markup=formulas::JACOBIAN_PRODUCT />
            <p>
                "A residual connection changes the factor itself. The layer adds its branch to its input, so its Jacobian is the identity plus the branch's: a gradient can always pass straight through, whatever F does."
            </p>
            <Formula markup=formulas::RESIDUAL_JACOBIAN />
            <p>
                "LayerNorm keeps the numbers in each token at zero mean and unit spread, with a learned scale and shift. Where it sits matters: after the sum (post-norm, the original Transformer) every gradient must pass through a norm on its way down; inside the branch (pre-norm, GPT-2 and after) the identity path stays clean."
            </p>
            <Formula markup=formulas::LAYER_NORM />
            <p>
                "The figures below are not a simulation of that story. They build a real stack of decoder blocks — causal multi-head attention and a GELU MLP, weights drawn N(0, gain²/fan_in) — run it forward on a random input, take the loss L = Σ y ⊙ r, and backpropagate by hand, checked against finite differences in the tests. "
                "The loss is linear so that the top always receives the same gradient, r: whatever the figures show happened inside the stack."
            </p>
            <GradientFlowFigure model=model />
            <p>
                "Two things the toy chain does not predict. Without residuals but with LayerNorm the gradient does not vanish: the norm rescales each layer's output, and its Jacobian rescales the gradient by the inverse of the spread it removed. "
                "And residuals without any norm do not merely keep the gradient alive: each block adds to the stream, the activations grow, and the gradient grows with depth — exploding rather than vanishing."
            </p>
            <GradientAbFigure model=model />
            <DepthSweepFigure model=model />
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(seed: u64, depth: usize) -> (StackShape, usize) {
        let shape = StackShape {
            d_model: 16,
            heads: 2,
            seq_len: 4,
            gain: 1.0,
            seed,
            wiring: Wiring::PLAIN,
        };
        (shape, depth)
    }

    fn profile(loss: f64) -> GradientProfile {
        GradientProfile {
            input_grad_norm: vec![1.0, 2.0],
            weight_grad_norm: vec![3.0, 4.0],
            loss,
            forward_overflow: None,
        }
    }

    fn at_gain(gain: f64, depth: usize) -> (StackShape, usize) {
        let (shape, _) = key(1, depth);
        (StackShape { gain, ..shape }, depth)
    }

    fn gains_and_depths(keys: &[(StackShape, usize)]) -> Vec<(f64, usize)> {
        keys.iter().map(|(s, l)| (s.gain, *l)).collect()
    }

    #[test]
    fn neighbouring_gains_are_the_values_the_slider_gives() {
        // The slider's value is its text parsed: "0.8", not 0.75 + 0.05.
        let parsed = |text: &str| text.parse::<f64>().ok();
        assert_eq!(gains_beside(0.75), (parsed("0.8"), Some(0.7)));
        assert_eq!(gains_beside(0.9).0, parsed("0.95"));
        assert_ne!(
            0.9 + GAIN_STEP,
            0.95,
            "a sum would miss the profile kept for 0.95"
        );
        assert_eq!(gains_beside(1.15), (parsed("1.2"), parsed("1.1")));
        // A gain between two steps (from a URL) has the grid values either side.
        assert_eq!(gains_beside(0.73), (Some(0.75), Some(0.7)));
        // Past the ends there is nothing.
        assert_eq!(gains_beside(0.25), (Some(0.3), None));
        assert_eq!(gains_beside(2.0), (None, Some(1.95)));
    }

    #[test]
    fn after_no_move_the_gain_neighbours_come_before_the_depth_neighbours() {
        let next = likely_next(&at_gain(1.0, 32), None);
        assert_eq!(
            gains_and_depths(&next),
            vec![(1.05, 32), (0.95, 32), (1.0, 33), (1.0, 31)]
        );
    }

    #[test]
    fn the_slider_that_moved_is_anticipated_first_in_the_direction_it_moved() {
        let down_gain = likely_next(&at_gain(0.9, 32), Some(&at_gain(0.95, 32)));
        assert_eq!(
            gains_and_depths(&down_gain)[..3],
            [(0.85, 32), (0.8, 32), (0.95, 32)]
        );
        let up_depth = likely_next(&at_gain(1.0, 33), Some(&at_gain(1.0, 32)));
        assert_eq!(
            gains_and_depths(&up_depth)[..3],
            [(1.0, 34), (1.0, 35), (1.0, 32)]
        );
        let down_depth = likely_next(&at_gain(1.0, 31), Some(&at_gain(1.0, 32)));
        assert_eq!(
            gains_and_depths(&down_depth)[..3],
            [(1.0, 30), (1.0, 29), (1.0, 32)]
        );
    }

    #[test]
    fn the_slider_that_moved_has_its_step_after_next_anticipated_and_the_other_one_step() {
        // Two steps of the slider that moved (a fast drag skips values), one back; the
        // other slider one step either side.
        let up_gain = likely_next(&at_gain(1.05, 32), Some(&at_gain(1.0, 32)));
        assert_eq!(
            gains_and_depths(&up_gain),
            vec![(1.1, 32), (1.15, 32), (1.0, 32), (1.05, 33), (1.05, 31)]
        );
        // The step after next is the slider's value as parsed ("1.15"), not 1.05 + 2 × 0.05.
        assert_ne!(1.05 + 2.0 * GAIN_STEP, 1.15);
    }

    #[test]
    fn the_step_after_next_stays_within_the_sliders_ranges() {
        let near_top = likely_next(&at_gain(1.95, 32), Some(&at_gain(1.9, 32)));
        assert_eq!(
            gains_and_depths(&near_top)[..2],
            [(2.0, 32), (1.9, 32)],
            "no gain past 2"
        );
        let near_bottom = likely_next(&at_gain(1.0, 2), Some(&at_gain(1.0, 3)));
        assert_eq!(
            gains_and_depths(&near_bottom)[..2],
            [(1.0, 1), (1.0, 3)],
            "no depth below 1"
        );
        let at_deepest = likely_next(&at_gain(1.0, MAX_DEPTH), Some(&at_gain(1.0, MAX_DEPTH - 1)));
        assert_eq!(gains_and_depths(&at_deepest)[0], (1.0, MAX_DEPTH - 1));
    }

    #[test]
    fn anticipated_stacks_stay_within_the_sliders_ranges() {
        let at_ends = likely_next(&at_gain(2.0, MAX_DEPTH), None);
        assert_eq!(
            gains_and_depths(&at_ends),
            vec![(1.95, MAX_DEPTH), (2.0, MAX_DEPTH - 1)]
        );
        let at_bottom = likely_next(&at_gain(0.25, 1), None);
        assert_eq!(gains_and_depths(&at_bottom), vec![(0.3, 1), (0.25, 2)]);
    }

    #[test]
    fn the_switches_anticipated_are_the_residual_flipped_each_other_norm_and_the_next_seed() {
        let (shape, depth) = at_gain(1.0, 32);
        let from = StackShape {
            wiring: Wiring::PRE_NORM,
            ..shape
        };
        let next = likely_switches(&(from.clone(), depth));
        let wirings: Vec<_> = next.iter().map(|(s, _)| s.wiring).collect();
        assert_eq!(
            wirings[..3],
            [
                Wiring {
                    residual: false,
                    norm: NormPlacement::Pre
                },
                Wiring {
                    residual: true,
                    norm: NormPlacement::None
                },
                Wiring::POST_NORM,
            ]
        );
        assert_eq!(next[3].0.seed, next_seed(from.seed, SEED_MAX as u64));
        assert_ne!(next[3].0.seed, from.seed);
        assert_eq!(next[3].0.wiring, from.wiring);
        // Only the switch changes: depth, width, tokens and gain stay.
        for (s, l) in &next {
            assert_eq!(*l, depth);
            assert_eq!(
                (s.d_model, s.seq_len, s.heads, s.gain),
                (from.d_model, from.seq_len, from.heads, from.gain)
            );
        }
        assert_eq!(next.len(), 4);
    }

    #[test]
    fn after_a_new_seed_the_next_seed_is_anticipated_first() {
        let (shape, depth) = at_gain(1.0, 32);
        let pressed = (
            StackShape {
                seed: next_seed(shape.seed, SEED_MAX as u64),
                ..shape.clone()
            },
            depth,
        );
        let order = anticipation_order(&pressed, Some(&(shape, depth)));
        assert_eq!(order[0].0.seed, next_seed(pressed.0.seed, SEED_MAX as u64));
        assert_eq!(order.len(), 8, "2 gains, 2 depths, 3 wirings, 1 seed");
        assert_eq!(
            order
                .iter()
                .filter(|(s, _)| s.seed != pressed.0.seed)
                .count(),
            1
        );
    }

    #[test]
    fn after_a_slider_step_the_sliders_come_first_and_the_next_seed_last() {
        let order = anticipation_order(&at_gain(1.05, 32), Some(&at_gain(1.0, 32)));
        assert_eq!(
            gains_and_depths(&order[..5]),
            vec![(1.1, 32), (1.15, 32), (1.0, 32), (1.05, 33), (1.05, 31)]
        );
        assert_ne!(order[8].0.seed, order[0].0.seed);
        assert_eq!(order.len(), 9);
    }

    #[test]
    fn a_change_of_anything_else_anticipates_as_after_no_move() {
        let other_seed = key(2, 32);
        let next = likely_next(&at_gain(1.0, 32), Some(&other_seed));
        assert_eq!(next, likely_next(&at_gain(1.0, 32), None));
    }

    #[test]
    fn only_stacks_up_to_four_default_stacks_of_work_are_anticipated() {
        let default = (
            StackShape {
                d_model: 32,
                seq_len: 8,
                ..key(1, 32).0
            },
            32,
        );
        assert!(worth_anticipating(&default));
        assert!(worth_anticipating(&(default.0.clone(), 128)));
        let heaviest = (
            StackShape {
                d_model: 64,
                seq_len: 16,
                ..key(1, 128).0
            },
            128,
        );
        assert!(!worth_anticipating(&heaviest));
    }

    #[test]
    fn a_finished_profile_is_found_by_its_shape_and_depth_only() {
        let mut recent = RecentProfiles::default();
        recent.finish(key(1, 32), profile(0.5));
        assert_eq!(recent.lookup(&key(1, 32)), Known::Done(profile(0.5)));
        assert_eq!(recent.lookup(&key(1, 31)), Known::Unknown);
        assert_eq!(recent.lookup(&key(2, 32)), Known::Unknown);
    }

    #[test]
    fn a_stack_being_computed_is_pending_until_finished_or_abandoned() {
        let mut recent = RecentProfiles::default();
        recent.begin(key(1, 8));
        assert_eq!(recent.lookup(&key(1, 8)), Known::Pending);
        recent.abandon(&key(1, 8));
        assert_eq!(recent.lookup(&key(1, 8)), Known::Unknown);
        recent.begin(key(1, 8));
        recent.finish(key(1, 8), profile(1.0));
        assert_eq!(recent.lookup(&key(1, 8)), Known::Done(profile(1.0)));
    }

    #[test]
    fn only_the_newest_profiles_are_kept() {
        let mut recent = RecentProfiles::default();
        for depth in 1..=RecentProfiles::KEEP + 2 {
            recent.finish(key(1, depth), profile(depth as f64));
        }
        assert_eq!(recent.lookup(&key(1, 1)), Known::Unknown);
        assert_eq!(recent.lookup(&key(1, 2)), Known::Unknown);
        let newest = RecentProfiles::KEEP + 2;
        assert_eq!(
            recent.lookup(&key(1, newest)),
            Known::Done(profile(newest as f64))
        );
        // Finishing a stack again replaces it rather than keeping two.
        recent.finish(key(1, newest), profile(-1.0));
        assert_eq!(recent.lookup(&key(1, newest)), Known::Done(profile(-1.0)));
        assert_eq!(recent.done.len(), RecentProfiles::KEEP);
    }

    #[test]
    fn verdict_sentences_name_what_happened() {
        assert!(
            verdict_sentence(GradientVerdict::Vanished(1e-10), 32, None).starts_with("Vanished")
        );
        assert!(verdict_sentence(GradientVerdict::Exploded(1e7), 32, None).starts_with("Exploded"));
        assert!(verdict_sentence(GradientVerdict::Stable(3.0), 32, None).starts_with("Stable"));
        assert!(verdict_sentence(GradientVerdict::Overflow, 128, Some(90)).contains("layer 90"));
    }

    #[test]
    fn a_ratio_that_underflowed_to_zero_is_named_an_underflow() {
        let sentence = verdict_sentence(GradientVerdict::Vanished(0.0), 128, None);
        assert!(sentence.starts_with("Vanished") && sentence.contains("underflowed to exactly 0"));
        assert_eq!(ratio_format(0.0), "0 (underflow)");
        assert_eq!(ratio_format(2.0), "2.00");
    }

    #[test]
    fn strip_leaves_non_finite_and_zero_cells_empty() {
        let g = strip_grid(&[100.0, f64::INFINITY, 0.0, 1e-3]);
        assert_eq!(g.values[0], 2.0);
        assert!(g.values[1].is_nan() && g.values[2].is_nan());
        assert!((g.values[3] + 3.0).abs() < 1e-12);
    }

    #[test]
    fn chart_before_any_profile_spans_the_depth_asked_for() {
        let spec = profile_chart(&[("x".into(), &[], Tone::Blue)], None, || 32);
        assert_eq!((spec.x.min, spec.x.max), (-0.5, 31.5));
        assert!(spec.y.min > 0.0 && spec.y.max > spec.y.min && spec.y.max.is_finite());
        let empty = profile_chart(&[], None, || 0);
        assert!(empty.x.max > empty.x.min, "even with nothing asked for");
    }

    #[test]
    fn chart_with_a_profile_spans_its_layers_not_the_depth_asked_for() {
        let spec = profile_chart(&[("x".into(), &[1.0, 2.0, 3.0], Tone::Blue)], None, || 32);
        assert_eq!((spec.x.min, spec.x.max), (-0.5, 2.5));
    }

    #[test]
    fn chart_never_carries_non_finite_points() {
        let norms = [1.0, f64::INFINITY, f64::NAN, 0.0, 2.0];
        let spec = profile_chart(&[("x".into(), &norms, Tone::Blue)], Some(0.7), || 32);
        for m in &spec.marks {
            if let Mark::Line { points, .. } = m {
                assert!(points
                    .iter()
                    .all(|(x, y)| x.is_finite() && y.is_finite() && *y > 0.0));
            }
        }
        assert!(spec.y.min > 0.0 && spec.y.max.is_finite());
    }

    #[test]
    fn shapes_reduce_heads_to_a_divisor_and_clamp() {
        let (p, _, _) = crate::state::Params::from_query("dmodel=20&heads=3&gain=9");
        let s = shape_from(&p, Wiring::PLAIN);
        assert_eq!((s.d_model, s.heads, s.gain), (20, 2, 2.0));
    }

    #[test]
    fn csv_names_overflow_instead_of_printing_inf() {
        let p = GradientProfile {
            input_grad_norm: vec![f64::INFINITY, 1.0],
            weight_grad_norm: vec![2.0, 3.0],
            loss: 0.0,
            forward_overflow: None,
        };
        let csv = profile_csv(&p);
        assert!(csv.contains("0,overflow,2") && !csv.contains("inf"));
    }
}
