//! Figure `multi-head`: per-head score matrices, each of rank at most d_head, and the
//! blocks W_Q and W_O are carved into.

use leptos::prelude::*;

use crate::state::registry::FigureId;

use super::controls::*;
use super::grids::*;
use super::model::*;
use crate::widgets::format::{format_number, whole};
use crate::widgets::{ColorScale, Figure, Grid, Heatmap, Readout, Scale, Slider};

/// Names of the per-head heatmaps (`data-canvas`), one per possible head.
pub const HEAD_CANVASES: [&str; 8] = [
    "head-0", "head-1", "head-2", "head-3", "head-4", "head-5", "head-6", "head-7",
];

/// The figure alone, as the embed view shows it (the registry's loaders call this).
pub fn alone(show_controls: bool) -> AnyView {
    view! { <MultiHeadFigure model=super::model::LinearAlgebraModel::new(crate::state::use_url_state()) show_controls=show_controls /> }.into_any()
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
        let (_, set_h) = model.state.int_control("mhh");
        view! {
            <Slider key="mhh" label="Heads h" value=Signal::derive(move || model.requested_heads.get() as f64)
                on_change=Callback::new(move |v: f64| set_h.run(v.round() as i64))
                scale={const { Scale::linear_of("mhh", 1.0) }} format=whole />
        }
    };
    let more = move || {
        let (d, set_d) = model.state.int_control("mhd");
        view! {
            <Slider key="mhd" label="d_model" value=Signal::derive(move || d.get() as f64)
                on_change=Callback::new(move |v: f64| set_d.run(v.round() as i64))
                scale={const { Scale::linear_of("mhd", 8.0) }} format=whole />
            <TokensSlider model=model instance="-multi-head" />
            {seed_field(model, "-multi-head")}
        }
    };
    view! {
        <Figure id=FigureId::MultiHead on_screen=model.heads_on_screen caption=caption summary=summary csv=csv
            controls=controls more=more more_keys=&["mhd", "rn", "rseed"] show_controls=show_controls>
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
