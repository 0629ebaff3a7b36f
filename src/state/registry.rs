//! The passes and their figures: names ([`PassId`], [`FigureId`]: the code names a pass or
//! a figure only through them, so a misspelt one does not compile), public ids (a
//! contract: section ids end links as `#<id>`, figure ids are `data-figure` and `embed=`
//! values, each written once, here), numbers and titles. The page shell, the lazy loader,
//! the embed view, the URL table and the guided steps all read this one list.

/// A figure, by name: a typo is a compile error. Its public id (`data-figure`, `embed=`,
/// `#<id>`) is written once, in its row of [`PASSES`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FigureId {
    Jacobian,
    JacobianVsDk,
    TrainScale,
    MemoryVsContext,
    FlopsVsContext,
    MeasuredAttention,
    ScoreRank,
    LowRankTarget,
    MultiHead,
    Lora,
    FinetuneMemory,
    GradientFlow,
    GradientAb,
    DepthSweep,
    TrainDepth,
}

/// A pass, by name. Its section id is written once, in its row of [`PASSES`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PassId {
    Backprop,
    Complexity,
    LinearAlgebra,
    Stability,
}

/// One figure of a pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FigureInfo {
    /// Which figure this row is.
    pub figure: FigureId,
    /// The figure's id (`data-figure`, `embed=`, `#<id>`).
    pub id: &'static str,
    /// Its title, as the figure and its embed code show it.
    pub title: &'static str,
}

/// One pass: a section of the page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PassInfo {
    /// Which pass this row is.
    pub pass: PassId,
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

const fn figure(figure: FigureId, id: &'static str, title: &'static str) -> FigureInfo {
    FigureInfo { figure, id, title }
}

/// Every pass, in page order.
pub static PASSES: [PassInfo; 4] = [
    PassInfo {
        pass: PassId::Backprop,
        id: "backprop",
        claim: "Every gradient that reaches W_Q and W_K passes through the softmax Jacobian, and a saturated softmax lets none through.",
        number: 1,
        title: "Backprop: the softmax is the only door",
        figures: &[
            figure(
                FigureId::Jacobian,
                "jacobian", "The softmax Jacobian J = diag(p) − ppᵀ"),
            figure(
                FigureId::JacobianVsDk,
                "jacobian-vs-dk",
                "Mean ‖J‖_F against dₖ: the collapse, measured",
            ),
            figure(
                FigureId::TrainScale,
                "train-scale", "Trained: with and without ÷√dₖ"),
        ],
    },
    PassInfo {
        pass: PassId::Complexity,
        id: "complexity",
        claim: "The score matrix grows with n², the KV cache only with n.",
        number: 2,
        title: "Complexity: why context is expensive",
        figures: &[
            figure(
                FigureId::MemoryVsContext,
                "memory-vs-context",
                "Memory against context: the n² wall and the linear cache",
            ),
            figure(
                FigureId::FlopsVsContext,
                "flops-vs-context",
                "FLOPs per layer: where attention starts to dominate",
            ),
            figure(
                FigureId::MeasuredAttention,
                "measured-attention",
                "Measured: attention's time in your browser",
            ),
        ],
    },
    PassInfo {
        pass: PassId::LinearAlgebra,
        id: "linear-algebra",
        claim: "QKᵀ has rank at most dₖ; the softmax of it does not keep the bound.",
        number: 3,
        title: "Linear algebra: a rank-dₖ object in an n×n costume",
        figures: &[
            figure(
                FigureId::ScoreRank,
                "score-rank", "The rank of the scores, and of the attention"),
            figure(
                FigureId::LowRankTarget,
                "low-rank-target",
                "Best rank-k approximations of attention patterns",
            ),
            figure(
                FigureId::MultiHead,
                "multi-head", "Multi-head: h small ranks, mixed back by W_O"),
            figure(
                FigureId::Lora,
                "lora", "The bridge to LoRA: a low-rank update, counted"),
            figure(
                FigureId::FinetuneMemory,
                "finetune-memory",
                "Where the memory of fine-tuning goes: full, LoRA, QLoRA",
            ),
        ],
    },
    PassInfo {
        pass: PassId::Stability,
        id: "stability",
        claim: "Without residuals a deep stack's gradient vanishes; the identity path keeps it alive.",
        number: 4,
        title: "Stability: why deep stacks train at all",
        figures: &[
            figure(
                FigureId::GradientFlow,
                "gradient-flow", "Gradient flow through a real stack"),
            figure(
                FigureId::GradientAb,
                "gradient-ab", "Side by side: the identity highway at work"),
            figure(
                FigureId::DepthSweep,
                "depth-sweep",
                "Depth sweep: four wirings from 1 to 128 blocks",
            ),
            figure(
                FigureId::TrainDepth,
                "train-depth", "Trained: two wirings, live"),
        ],
    },
];

impl FigureId {
    /// Every figure, in page order.
    pub const ALL: [FigureId; 15] = [
        Self::Jacobian,
        Self::JacobianVsDk,
        Self::TrainScale,
        Self::MemoryVsContext,
        Self::FlopsVsContext,
        Self::MeasuredAttention,
        Self::ScoreRank,
        Self::LowRankTarget,
        Self::MultiHead,
        Self::Lora,
        Self::FinetuneMemory,
        Self::GradientFlow,
        Self::GradientAb,
        Self::DepthSweep,
        Self::TrainDepth,
    ];

    /// Its pass and its row of the registry (every figure has one: a test holds it).
    fn row(self) -> (&'static PassInfo, &'static FigureInfo) {
        figure_rows()
            .find(|(_, f)| f.figure == self)
            .unwrap_or((&PASSES[0], &PASSES[0].figures[0]))
    }

    /// Its row of the registry.
    pub fn info(self) -> &'static FigureInfo {
        self.row().1
    }

    /// Its public id (`data-figure`, `embed=`, `#<id>`).
    pub fn as_str(self) -> &'static str {
        self.info().id
    }

    /// Its title.
    pub fn title(self) -> &'static str {
        self.info().title
    }

    /// The pass that shows it.
    pub fn pass(self) -> &'static PassInfo {
        self.row().0
    }

    /// The figure whose public id is `id`.
    pub fn parse(id: &str) -> Option<FigureId> {
        figure_rows()
            .find(|(_, f)| f.id == id)
            .map(|(_, f)| f.figure)
    }
}

/// Every figure's row with its pass's, in page order.
fn figure_rows() -> impl Iterator<Item = (&'static PassInfo, &'static FigureInfo)> {
    PASSES
        .iter()
        .flat_map(|p| p.figures.iter().map(move |f| (p, f)))
}

impl PassId {
    /// Every pass, in page order.
    pub const ALL: [PassId; 4] = [
        Self::Backprop,
        Self::Complexity,
        Self::LinearAlgebra,
        Self::Stability,
    ];

    /// Its row of the registry (every pass has one: a test holds it).
    pub fn info(self) -> &'static PassInfo {
        PASSES.iter().find(|p| p.pass == self).unwrap_or(&PASSES[0])
    }

    /// Its section id (links end in `#<id>`).
    pub fn as_str(self) -> &'static str {
        self.info().id
    }
}

/// The pass with section id `id`.
pub fn pass(id: &str) -> Option<&'static PassInfo> {
    PASSES.iter().find(|p| p.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_figure_id_is_unique_and_belongs_to_one_pass() {
        let ids: Vec<_> = figure_rows().map(|(_, f)| f.id).collect();
        assert_eq!(ids.len(), FigureId::ALL.len());
        for id in &ids {
            assert_eq!(ids.iter().filter(|i| *i == id).count(), 1, "{id}");
        }
        assert_eq!(FigureId::Jacobian.pass().number, 1);
        assert_eq!(FigureId::parse("nope"), None);
    }

    /// Every named figure has exactly one row, in the order of [`FigureId::ALL`], and its
    /// public id reads back as itself (so `info`'s fallback is never taken).
    #[test]
    fn every_figure_name_has_one_row_in_page_order() {
        let rows: Vec<FigureId> = PASSES
            .iter()
            .flat_map(|p| p.figures.iter().map(|f| f.figure))
            .collect();
        assert_eq!(rows, FigureId::ALL);
        for figure in FigureId::ALL {
            assert_eq!(FigureId::parse(figure.as_str()), Some(figure));
            assert!(figure.pass().figures.iter().any(|f| f.figure == figure));
        }
    }

    #[test]
    fn every_pass_name_has_one_row_in_page_order() {
        let rows: Vec<PassId> = PASSES.iter().map(|p| p.pass).collect();
        assert_eq!(rows, PassId::ALL);
        for p in PassId::ALL {
            assert_eq!(pass(p.as_str()).map(|i| i.pass), Some(p));
        }
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
