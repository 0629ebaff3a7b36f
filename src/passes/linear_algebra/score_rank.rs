//! Figure `score-rank`: S = QKᵀ/√dₖ or A = softmax(S) as a heatmap, their singular values
//! on a log axis with a marker at dₖ, and their numerical and effective ranks.

use leptos::prelude::*;

use crate::state::registry::FigureId;

use super::controls::*;
use super::grids::*;
use super::model::*;
use super::steps::ASKS;
use crate::math::rank::rank_tolerance;
use crate::math::rank::scores::ScoreRank;
use crate::math::rank::scores::Spectrum;
use crate::passes::lazy::LazySteps;
use crate::state::choices::SHOWN_MATRICES;
use crate::widgets::format::pending_four_digits;
use crate::widgets::format::subscript;
use crate::widgets::format::{format_number, pending_whole, whole};
use crate::widgets::{
    Axis, Chart, ChartSpec, ColorBar, ColorMap, ColorScale, Figure, Grid, Heatmap, LinkSignal,
    LinkedFormula, Mark, Readout, ReadoutRow, Scale, Select, Slider, Tone,
};

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

/// Figure `score-rank`.
/// The bound rank(S) ≤ min(n, dₖ) with the state's numbers, and how the singular values
/// of S fall about the rank threshold.
pub fn rank_bound_formula(r: &ScoreRank) -> String {
    let tol = rank_tolerance(&r.sv_s, r.n, r.n);
    format!(
        "rank(S) = {} ≤ min(n, dₖ) = min({}, {}) = {}: {} singular values of S above the threshold {}, {} below it.",
        r.rank_s,
        r.n,
        r.d_k,
        r.n.min(r.d_k),
        r.rank_s,
        format_number(tol, 3),
        r.n - r.rank_s
    )
}

/// Singular value i (from 1) of S against the rank threshold.
pub fn singular_value_formula(r: &ScoreRank, i: usize) -> Option<String> {
    let sigma = *r.sv_s.get(i.checked_sub(1)?)?;
    let tol = rank_tolerance(&r.sv_s, r.n, r.n);
    let (side, counted) = if sigma > tol {
        ("above", "counted in rank(S)")
    } else {
        ("at or below", "not counted: numerically zero")
    };
    Some(format!(
        "σ{}(S) = {}, {side} the threshold {}: {counted} (rank(S) = {} ≤ min(n, dₖ) = {}).",
        subscript(i),
        format_number(sigma, 3),
        format_number(tol, 3),
        r.rank_s,
        r.n.min(r.d_k)
    ))
}

/// The figure alone, as the embed view shows it (the registry's loaders call this).
pub fn alone(show_controls: bool) -> AnyView {
    view! { <ScoreRankFigure model=super::model::LinearAlgebraModel::new(crate::state::use_url_state()) show_controls=show_controls /> }.into_any()
}

#[component]
pub fn ScoreRankFigure(
    model: LinearAlgebraModel,
    #[prop(default = true)] show_controls: bool,
) -> impl IntoView {
    // The matrix shown, read in place (a 256×256 matrix is half a megabyte: never copied
    // for the drawing's sake), its grid and its scale each computed once per change.
    let shown = move |f: &dyn Fn(&nalgebra::DMatrix<f64>) -> Grid| {
        model
            .scores
            .with(|r| if model.show_a.get() { f(&r.a) } else { f(&r.s) })
    };
    let grid = Memo::new(move |_| shown(&Grid::from_matrix));
    let scale = Memo::new(move |_| {
        model.scores.with(|r| {
            if model.show_a.get() {
                let top =
                    r.a.as_slice()
                        .iter()
                        .copied()
                        .fold(0.0, f64::max)
                        .max(1e-12);
                ColorScale {
                    map: ColorMap::Sequential,
                    min: 0.0,
                    max: top,
                }
            } else {
                symmetric_scale(&r.s)
            }
        })
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
        grid.with_untracked(|g| match g.get(i, j) {
            Some(v) => format!("row {i}, column {j}: {} = {}", name(), format_number(v, 4)),
            None => String::new(),
        })
    });
    // Linked: the bound's term, or a singular value under the pointer.
    let linked: LinkSignal = RwSignal::new(None);
    let hover_i = RwSignal::new(None::<usize>);
    let on_hover = Callback::new(move |at: Option<(f64, f64)>| {
        let i = at.map(|(x, _)| x.round().max(1.0) as usize);
        hover_i.set(i);
        linked.set(i.map(|_| "rank-bound"));
    });
    let live = Signal::derive(move || {
        model.scores.with(|r| {
            hover_i
                .get()
                .and_then(|i| singular_value_formula(r, i))
                .unwrap_or_else(|| rank_bound_formula(r))
        })
    });
    let spectrum = Signal::derive(move || {
        let lit = linked.get() == Some("rank-bound");
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
            let tol_s = rank_tolerance(&r.sv_s, r.n, r.n);
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
                        // Lit by the bound: only the values that count in rank(S).
                        points: if lit {
                            s_pts.iter().copied().filter(|p| p.1 > tol_s).collect()
                        } else {
                            s_pts.clone()
                        },
                        tone: Tone::Coral,
                        dashed: false,
                        dots: true,
                    },
                    Mark::Line {
                        // No legend entry (the band would change height under the pointer):
                        // the filled-in formula says what the dimmed values are.
                        label: String::new(),
                        points: if lit {
                            s_pts.iter().copied().filter(|p| p.1 <= tol_s).collect()
                        } else {
                            Vec::new()
                        },
                        tone: Tone::Muted,
                        dashed: true,
                        dots: true,
                    },
                    Mark::Line {
                        label: "σ(A)".into(),
                        points: a_pts,
                        tone: Tone::Purple,
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
            <Slider key="rdk" label="Key dimension dₖ" value=Signal::derive(move || model.d_k.get() as f64)
                on_change=Callback::new(move |v: f64| set_dk.run(v.round() as i64))
                scale=Signal::derive(move || Scale::Linear { min: 1.0, max: model.n.get() as f64, step: 1.0 }) format=whole />
            <Select key="rshow" label="Matrix shown" options=&SHOWN_MATRICES value=show on_change=set_show />
        }
    };
    let more = move || view! { <TokensSlider model=model instance="" /> {seed_field(model, "")} };
    let verdict = Signal::derive(move || {
        let rank_s = model.scores.with(|r| r.rank_s);
        match rank_a() {
            None => "rank(A) is still being computed.".to_string(),
            Some(a) if a > rank_s => format!("The softmax raised the rank: rank(A) = {a} > rank(S) = {rank_s}. The bound holds for the scores, not for the attention."),
            Some(a) => format!("Here rank(A) = {a}, no higher than rank(S) = {rank_s}: the softmax added no rank."),
        }
    });
    view! {
        <Figure id=FigureId::ScoreRank linked=linked on_screen=model.score_on_screen caption=caption summary=summary csv=csv verdict=verdict
            controls=controls more=more more_keys=&["rn", "rseed"] show_controls=show_controls>
            <div class="pair-layout">
                <div class="pair-item">
                    <Heatmap name="score-rank" grid=grid scale=scale describe=describe summary=summary max_width=360.0 />
                    <ColorBar scale=scale label="entries of the matrix shown" />
                </div>
                <div class="pair-item">
                    <Chart name="singular-values" spec=spectrum summary=spectrum_summary aspect=0.75 on_hover=on_hover />
                    <LinkedFormula linked=linked terms=&["rank-bound"] live=live>
                        <p class="term-line">"The bound: "
                            <span class="term" data-term="rank-bound" tabindex="0" role="button"
                                aria-label="the bound rank(S) ≤ min(n, dₖ): lights the singular values of S above the rank threshold and dims those below">"rank(S) ≤ min(n, dₖ)"</span>
                            ". Point at a singular value to read it against the threshold."
                        </p>
                    </LinkedFormula>
                </div>
            </div>
            <ReadoutRow busy=move || { ((model.attention.with(|a| a.is_none()) || model.scores_behind.get()) && model.score_on_screen.get()) || model.score_in_flight.get() }>
                <Readout name="rank-s" label="rank S" value=Signal::derive(move || model.scores.with(|r| r.rank_s as f64)) format=whole />
                <Readout name="rank-a" label="rank A" value=Signal::derive(move || model.attention.with(|a| a.as_ref().map(|a| a.rank as f64).unwrap_or(f64::NAN))) format=pending_whole />
                <Readout name="erank-s" label="effective rank S" value=Signal::derive(move || model.scores.with(|r| r.erank_s)) />
                <Readout name="erank-a" label="effective rank A" value=Signal::derive(move || model.attention.with(|a| a.as_ref().map(|a| a.erank).unwrap_or(f64::NAN))) format=pending_four_digits />
            </ReadoutRow>
            {show_controls.then(|| view! { <LazySteps id=FigureId::ScoreRank asks=&ASKS /> })}
        </Figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bound_is_filled_in_with_the_rank_and_its_limit() {
        let r = crate::math::rank::scores::score_rank(7, 8, 3);
        let text = rank_bound_formula(&r);
        assert!(
            text.starts_with("rank(S) = 3 ≤ min(n, dₖ) = min(8, 3) = 3: 3 singular values"),
            "{text}"
        );
        assert!(text.ends_with("5 below it."), "{text}");
        assert!(singular_value_formula(&r, 1).is_some_and(|t| t.contains("above")));
        assert!(singular_value_formula(&r, 8).is_some_and(|t| t.contains("not counted")));
        assert_eq!(singular_value_formula(&r, 9), None);
        assert_eq!(singular_value_formula(&r, 0), None);
    }
    use crate::math::rank::scores::score_rank;

    fn spectrum_of_a(seed: u64, n: usize, d_k: usize) -> Spectrum {
        Spectrum::of(crate::math::jobs::attention_spectrum(seed, n, d_k), n)
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
}
