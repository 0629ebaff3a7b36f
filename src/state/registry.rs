//! The passes and their figures, one line each (`with_registry!`): names ([`PassId`],
//! [`FigureId`]: the code names a pass or a figure only through them, so a misspelt one
//! does not compile), public ids (a contract: section ids end links as `#<id>`, figure ids
//! are `data-figure` and `embed=` values, each written once, here), files, the WebAssembly
//! module each arrives in, titles and guided steps. The page shell, the lazy loader, the
//! embed view, the URL table, the guided steps and the page binary's split points all
//! come from these lines.

/// The registry itself: every pass and every figure, one line each, in page order. Nothing
/// else in the code spells a public id; everything that lists passes or figures is
/// generated from these lines by a macro handed to `with_registry!`:
/// - here (`define_registry`): [`PassId`], [`FigureId`], [`PASSES`], [`FIGURES`];
/// - in the page's binary (`src/split_points.rs`): each pass's section and each figure
///   alone at the split point of its module, and each figure's guided steps.
///
/// A pass line: `pass <Name>(<folder>) = "<section id>", in <module>, "<title>", "<claim>",`
/// then its figures in braces. A figure line: `<Name>(<file>) = "<figure id>", in <module>,
/// "<title>"`, then `, steps <TABLE>` if its pass's `steps.rs` has guided steps for it.
/// `<module>` is the WebAssembly module the code arrives in: `main` (the first load) or a
/// split module (`passN`, `pass1rest`), fetched when first wanted. The figure's file,
/// `src/passes/<folder>/<file>.rs`, has `pub fn alone(show_controls: bool) -> AnyView` (the
/// figure by itself, for an embed); a pass's `mod.rs` has `pub fn section() -> AnyView`.
#[macro_export]
macro_rules! with_registry {
    ($consumer:ident) => {
        $consumer! {
            pass Backprop(backprop) = "backprop", in main,
                "Backprop: the softmax is the only door",
                "Every gradient that reaches W_Q and W_K passes through the softmax Jacobian, and a saturated softmax lets none through.",
            {
                Jacobian(jacobian) = "jacobian", in main, "The softmax Jacobian J = diag(p) − ppᵀ", steps STEPS;
                JacobianVsDk(jacobian_vs_dk) = "jacobian-vs-dk", in pass1rest, "Mean ‖J‖_F against dₖ: the collapse, measured";
                TrainScale(train_scale) = "train-scale", in pass1rest, "Trained: with and without ÷√dₖ", steps TRAIN_STEPS;
            }
            pass Complexity(complexity) = "complexity", in pass2,
                "Complexity: why context is expensive",
                "The score matrix grows with n², the KV cache only with n.",
            {
                MemoryVsContext(memory) = "memory-vs-context", in pass2, "Memory against context: the n² wall and the linear cache", steps STEPS;
                FlopsVsContext(flops) = "flops-vs-context", in pass2, "FLOPs per layer: where attention starts to dominate";
                MeasuredAttention(measured) = "measured-attention", in pass2, "Measured: attention's time in your browser";
            }
            pass LinearAlgebra(linear_algebra) = "linear-algebra", in pass3,
                "Linear algebra: a rank-dₖ object in an n×n costume",
                "QKᵀ has rank at most dₖ; the softmax of it does not keep the bound.",
            {
                ScoreRank(score_rank) = "score-rank", in pass3, "The rank of the scores, and of the attention", steps STEPS;
                LowRankTarget(low_rank) = "low-rank-target", in pass3, "Best rank-k approximations of attention patterns";
                MultiHead(multi_head) = "multi-head", in pass3, "Multi-head: h small ranks, mixed back by W_O";
                Lora(lora) = "lora", in pass3, "The bridge to LoRA: a low-rank update, counted";
                FinetuneMemory(finetune_memory) = "finetune-memory", in pass3, "Where the memory of fine-tuning goes: full, LoRA, QLoRA", steps FINETUNE_STEPS;
            }
            pass Stability(stability) = "stability", in pass4,
                "Stability: why deep stacks train at all",
                "Without residuals a deep stack's gradient vanishes; the identity path keeps it alive.",
            {
                GradientFlow(gradient_flow) = "gradient-flow", in pass4, "Gradient flow through a real stack", steps STEPS;
                GradientAb(gradient_ab) = "gradient-ab", in pass4, "Side by side: the identity highway at work";
                DepthSweep(depth_sweep) = "depth-sweep", in pass4, "Depth sweep: four wirings from 1 to 128 blocks";
                TrainDepth(train_depth) = "train-depth", in pass4, "Trained: two wirings, live", steps TRAIN_STEPS;
            }
        }
    };
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
    /// The pass that shows it.
    pub pass: PassId,
    /// Its file in its pass's folder, without `.rs`.
    pub file: &'static str,
    /// The WebAssembly module its code arrives in (`main`: the first load).
    pub module: &'static str,
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
    /// Its folder in `src/passes/`.
    pub folder: &'static str,
    /// The WebAssembly module its section arrives in (`main`: the first load).
    pub module: &'static str,
    /// Its figures, in page order.
    pub figures: &'static [FigureId],
}

/// Builds the names and rows of the registry from [`with_registry!`]'s lines.
macro_rules! define_registry {
    ($(
        pass $pass:ident($folder:ident) = $pass_id:literal, in $pass_module:ident, $pass_title:literal, $claim:literal,
        {
            $( $figure:ident($file:ident) = $figure_id:literal, in $module:ident, $title:literal $(, steps $steps:ident)?; )*
        }
    )*) => {
        /// A pass, by name. Its section id is written once, in its line of the registry.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum PassId {
            $( #[doc = $pass_title] $pass, )*
        }

        /// A figure, by name: a typo is a compile error. Its public id (`data-figure`,
        /// `embed=`, `#<id>`) is written once, in its line of the registry.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum FigureId {
            $( $( #[doc = $title] $figure, )* )*
        }

        const PASS_COUNT: usize = [$($pass_id),*].len();
        const FIGURE_COUNT: usize = [$($($figure_id,)*)*].len();

        impl PassId {
            /// Every pass, in page order.
            pub const ALL: [PassId; PASS_COUNT] = [$(Self::$pass),*];
        }

        impl FigureId {
            /// Every figure, in page order.
            pub const ALL: [FigureId; FIGURE_COUNT] = [$($(Self::$figure,)*)*];
        }

        /// Every pass, in page order (the order of [`PassId`]).
        pub static PASSES: [PassInfo; PASS_COUNT] = [$(
            PassInfo {
                pass: PassId::$pass,
                id: $pass_id,
                number: PassId::$pass as u8 + 1,
                title: $pass_title,
                claim: $claim,
                folder: stringify!($folder),
                module: stringify!($pass_module),
                figures: &[$(FigureId::$figure),*],
            },
        )*];

        /// Every figure, in page order (the order of [`FigureId`]).
        pub static FIGURES: [FigureInfo; FIGURE_COUNT] = [$($(
            FigureInfo {
                figure: FigureId::$figure,
                id: $figure_id,
                title: $title,
                pass: PassId::$pass,
                file: stringify!($file),
                module: stringify!($module),
            },
        )*)*];
    };
}

with_registry!(define_registry);

impl FigureId {
    /// Its line of the registry.
    pub fn info(self) -> &'static FigureInfo {
        &FIGURES[self as usize]
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
        self.info().pass.info()
    }

    /// The figure whose public id is `id`.
    pub fn parse(id: &str) -> Option<FigureId> {
        FIGURES.iter().find(|f| f.id == id).map(|f| f.figure)
    }
}

impl PassId {
    /// Its line of the registry.
    pub fn info(self) -> &'static PassInfo {
        &PASSES[self as usize]
    }

    /// Its section id (links end in `#<id>`).
    pub fn as_str(self) -> &'static str {
        self.info().id
    }

    /// Whether its section arrives as a module of its own, after the first load.
    pub fn is_lazy(self) -> bool {
        self.info().module != "main"
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
    fn every_figure_id_is_unique_and_parses_back_to_its_figure() {
        for figure in FigureId::ALL {
            let id = figure.as_str();
            assert_eq!(FIGURES.iter().filter(|f| f.id == id).count(), 1, "{id}");
            assert_eq!(FigureId::parse(id), Some(figure));
        }
        assert_eq!(FigureId::Jacobian.pass().number, 1);
        assert_eq!(FigureId::parse("nope"), None);
    }

    /// Each figure's line is its own (the lookups index by the name's position) and sits
    /// in its pass's list, and the passes list the figures in page order.
    #[test]
    fn every_figure_is_listed_once_by_its_own_pass_in_page_order() {
        for figure in FigureId::ALL {
            assert_eq!(figure.info().figure, figure);
            assert!(figure.pass().figures.contains(&figure));
        }
        let listed: Vec<FigureId> = PASSES
            .iter()
            .flat_map(|p| p.figures.iter().copied())
            .collect();
        assert_eq!(listed, FigureId::ALL);
    }

    #[test]
    fn every_pass_name_has_its_own_line_and_section_id() {
        for p in PassId::ALL {
            assert_eq!(p.info().pass, p);
            assert_eq!(pass(p.as_str()).map(|i| i.pass), Some(p));
        }
        assert_eq!(
            PASSES.iter().filter(|p| !p.pass.is_lazy()).count(),
            1,
            "only Pass 1 is in the first load"
        );
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
                    p.figures.iter().map(|f| f.as_str().to_string()).collect(),
                )
            })
            .collect();
        assert_eq!(rows, registry);
    }
}
