//! The passes and their figures: ids (public contract: section ids end links as
//! `#<id>`, figure ids are `data-figure` and `embed=` values), numbers and titles. The
//! page shell, the lazy loader, the embed view and the URL table all read this one list.

/// One figure of a pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FigureInfo {
    /// The figure's id (`data-figure`, `embed=`, `#<id>`).
    pub id: &'static str,
    /// Its title, as the figure and its embed code show it.
    pub title: &'static str,
}

/// One pass: a section of the page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PassInfo {
    /// The section's id (`<section id>`, links end in `#<id>`).
    pub id: &'static str,
    /// 1 to 4, in page order.
    pub number: u8,
    /// The section's title, after "Pass N".
    pub title: &'static str,
    /// The pass's claim in a line (the page's contents list).
    pub claim: &'static str,
    /// Its figures, in page order.
    pub figures: &'static [FigureInfo],
}

const fn figure(id: &'static str, title: &'static str) -> FigureInfo {
    FigureInfo { id, title }
}

/// Every pass, in page order.
pub static PASSES: [PassInfo; 4] = [
    PassInfo {
        id: "backprop",
        claim: "Every gradient that reaches W_Q and W_K passes through the softmax Jacobian, and a saturated softmax lets none through.",
        number: 1,
        title: "Backprop: the softmax is the only door",
        figures: &[
            figure("jacobian", "The softmax Jacobian J = diag(p) − ppᵀ"),
            figure(
                "jacobian-vs-dk",
                "Mean ‖J‖_F against dₖ: the collapse, measured",
            ),
            figure("train-scale", "Trained: with and without ÷√dₖ"),
        ],
    },
    PassInfo {
        id: "complexity",
        claim: "The score matrix grows with n², the KV cache only with n.",
        number: 2,
        title: "Complexity: why context is expensive",
        figures: &[
            figure(
                "memory-vs-context",
                "Memory against context: the n² wall and the linear cache",
            ),
            figure(
                "flops-vs-context",
                "FLOPs per layer: where attention starts to dominate",
            ),
            figure(
                "measured-attention",
                "Measured: attention's time in your browser",
            ),
        ],
    },
    PassInfo {
        id: "linear-algebra",
        claim: "QKᵀ has rank at most dₖ; the softmax of it does not keep the bound.",
        number: 3,
        title: "Linear algebra: a rank-dₖ object in an n×n costume",
        figures: &[
            figure("score-rank", "The rank of the scores, and of the attention"),
            figure(
                "low-rank-target",
                "Best rank-k approximations of attention patterns",
            ),
            figure("multi-head", "Multi-head: h small ranks, mixed back by W_O"),
            figure("lora", "The bridge to LoRA: a low-rank update, counted"),
            figure(
                "finetune-memory",
                "Where the memory of fine-tuning goes: full, LoRA, QLoRA",
            ),
        ],
    },
    PassInfo {
        id: "stability",
        claim: "Without residuals a deep stack's gradient vanishes; the identity path keeps it alive.",
        number: 4,
        title: "Stability: why deep stacks train at all",
        figures: &[
            figure("gradient-flow", "Gradient flow through a real stack"),
            figure("gradient-ab", "Side by side: the identity highway at work"),
            figure(
                "depth-sweep",
                "Depth sweep: four wirings from 1 to 128 blocks",
            ),
            figure("train-depth", "Trained: two wirings, live"),
        ],
    },
];

/// The pass with section id `id`.
pub fn pass(id: &str) -> Option<&'static PassInfo> {
    PASSES.iter().find(|p| p.id == id)
}

/// The pass that shows figure `id`.
pub fn pass_of_figure(id: &str) -> Option<&'static PassInfo> {
    PASSES.iter().find(|p| p.figures.iter().any(|f| f.id == id))
}

/// The figure with id `id`.
pub fn figure_info(id: &str) -> Option<&'static FigureInfo> {
    PASSES
        .iter()
        .flat_map(|p| p.figures.iter())
        .find(|f| f.id == id)
}

/// The title of figure `id` ("" for an unknown id).
pub fn figure_title(id: &str) -> &'static str {
    figure_info(id).map_or("", |f| f.title)
}

/// Every figure id, in page order.
pub fn figure_ids() -> impl Iterator<Item = &'static str> {
    PASSES.iter().flat_map(|p| p.figures.iter().map(|f| f.id))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_figure_id_is_unique_and_belongs_to_one_pass() {
        let ids: Vec<_> = figure_ids().collect();
        assert_eq!(ids.len(), 15);
        for id in &ids {
            assert_eq!(ids.iter().filter(|i| *i == id).count(), 1, "{id}");
            assert!(pass_of_figure(id).is_some());
        }
        assert_eq!(pass_of_figure("jacobian").map(|p| p.number), Some(1));
        assert_eq!(pass_of_figure("nope"), None);
    }

    #[test]
    fn passes_are_numbered_in_page_order() {
        for (i, p) in PASSES.iter().enumerate() {
            assert_eq!(p.number as usize, i + 1);
            assert_eq!(pass(p.id), Some(p));
        }
    }

    /// docs/url-state.md's table of figure and section ids is the registry written out (the
    /// end-to-end tests read their list of figures from it).
    #[test]
    fn the_documented_figure_table_is_the_registry() {
        let doc = include_str!("../../docs/url-state.md");
        let table = doc
            .split("## Figure and section ids")
            .nth(1)
            .and_then(|t| t.split("\n\n").nth(1))
            .unwrap_or("");
        let rows: Vec<(String, Vec<String>)> = table
            .lines()
            .filter(|l| l.starts_with("| ") && l.as_bytes().get(2).is_some_and(u8::is_ascii_digit))
            .map(|l| {
                let cells: Vec<&str> = l.split('|').map(str::trim).collect();
                let ids = |cell: &str| -> Vec<String> {
                    cell.split('`')
                        .skip(1)
                        .step_by(2)
                        .map(String::from)
                        .collect()
                };
                (ids(cells[2]).concat(), ids(cells[3]))
            })
            .collect();
        let registry: Vec<(String, Vec<String>)> = PASSES
            .iter()
            .map(|p| {
                (
                    p.id.to_string(),
                    p.figures.iter().map(|f| f.id.to_string()).collect(),
                )
            })
            .collect();
        assert_eq!(rows, registry);
    }
}
