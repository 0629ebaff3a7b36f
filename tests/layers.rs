//! The architecture's rule, held by a test: the library's modules are layers that import
//! one way only,
//!
//! ```text
//! math  ←  state  ←  widgets  ←  passes  ←  app
//! ```
//!
//! so a file may name (`crate::…`) its own layer or one below, never one above; no pass
//! names another pass (what two passes share moves down a layer); and the math core uses
//! no web types. The binaries (`main.rs`, `worker.rs`, `split_points.rs`) sit on top and
//! reach the library as `handwave::…`. `formulas`, `katex_css` and `heap` sit at the
//! bottom beside `math`.

mod support;

use std::fs;
use std::path::Path;

use support::rust_files;

/// The layers, bottom first.
const LAYERS: [&str; 5] = ["math", "state", "widgets", "passes", "app"];
/// Modules at the bottom beside `math`.
const BOTTOM: [&str; 3] = ["formulas", "katex_css", "heap"];
/// The pass folders under `src/passes/`: every folder there is a pass (so a new pass is
/// held to the rule from its first file), and `registry_and_pass_folders_name_the_same_passes`
/// holds them equal to the registry's passes.
fn pass_folders() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/passes");
    let mut out: Vec<String> = fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .filter(|e| e.path().is_dir())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}
/// What the math core must not use.
const WEB_CRATES: [&str; 4] = ["leptos", "web_sys", "wasm_bindgen", "js_sys"];

/// The layer (index into [`LAYERS`]) of a top-level module, or `None` for one that is not
/// layered.
fn layer_of_module(module: &str) -> Option<usize> {
    if BOTTOM.contains(&module) {
        return Some(0);
    }
    LAYERS.iter().position(|l| *l == module)
}

/// A file's path below `src/`, as its parts (`["passes", "backprop", "model.rs"]`).
fn parts_of(relative: &Path) -> Vec<String> {
    relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect()
}

/// The code of a file without its comments (doc links may name any module).
fn code_of(source: &str) -> String {
    source
        .lines()
        .map(|line| match line.find("//") {
            // A `//` inside a string literal ("https://…") is kept: only a line whose
            // comment starts outside quotes is cut, which is all this code has.
            Some(i) if line[..i].matches('"').count() % 2 == 0 => &line[..i],
            _ => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every module path the code names after `crate::` (the first two segments).
fn crate_paths(code: &str) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find("crate::") {
        let after = &rest[i + "crate::".len()..];
        let segment = |s: &str| -> String {
            s.chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect()
        };
        let first = segment(after);
        let second = after[first.len()..]
            .strip_prefix("::")
            .map(segment)
            .filter(|s| !s.is_empty());
        // `crate::` preceded by an identifier character is another word (`handwave_crate::`).
        let preceded = rest[..i]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
        if !preceded && !first.is_empty() {
            out.push((first, second));
        }
        rest = after;
    }
    out
}

/// What is wrong with the imports of the file at `relative` (below `src/`) whose text is
/// `source`: one message per upward import, import of another pass, or web type in math.
fn violations(relative: &Path, source: &str) -> Vec<String> {
    let parts = parts_of(relative);
    let Some(top) = parts.first() else {
        return Vec::new();
    };
    let top_module = top.trim_end_matches(".rs");
    let Some(own_layer) = layer_of_module(top_module) else {
        // lib.rs (which only declares modules), the binaries, and files of no layer.
        return Vec::new();
    };
    let passes = pass_folders();
    let own_pass = (top_module == "passes" && parts.len() > 2)
        .then(|| parts[1].clone())
        .filter(|p| passes.contains(p));
    let code = code_of(source);
    let mut found = Vec::new();
    for (module, sub) in crate_paths(&code) {
        let Some(layer) = layer_of_module(&module) else {
            continue;
        };
        if layer > own_layer {
            found.push(format!(
                "{}: names crate::{module}, a layer above {top_module}",
                relative.display()
            ));
        }
        if let (Some(own), "passes", Some(other)) = (&own_pass, module.as_str(), &sub) {
            if passes.contains(other) && other != own {
                found.push(format!(
                    "{}: pass {own} names pass {other}",
                    relative.display()
                ));
            }
        }
    }
    if top_module == "math" {
        for web in WEB_CRATES {
            if code.contains(&format!("{web}::")) {
                found.push(format!("{}: the math core uses {web}", relative.display()));
            }
        }
    }
    found
}

#[test]
fn no_source_file_imports_against_the_layers() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(files.len() > 40, "found only {} files", files.len());
    let mut all = Vec::new();
    for file in &files {
        let relative = file.strip_prefix(&src).unwrap_or(file);
        let source = fs::read_to_string(file).unwrap_or_default();
        all.extend(violations(relative, &source));
    }
    assert!(
        all.is_empty(),
        "imports against the layers:\n{}",
        all.join("\n")
    );
}

#[test]
fn an_upward_import_is_caught() {
    let found = violations(
        Path::new("widgets/figure.rs"),
        "use crate::app::page_base_url;\nuse crate::state::use_url_state;\n",
    );
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("crate::app"));
    let found = violations(
        Path::new("math/rank/mod.rs"),
        "fn f() { crate::state::spec(\"n\"); }",
    );
    assert_eq!(found.len(), 1, "an inline path counts too: {found:?}");
}

#[test]
fn a_pass_naming_another_pass_is_caught_and_its_own_files_are_not() {
    let other = violations(
        Path::new("passes/linear_algebra/lora.rs"),
        "use crate::passes::complexity::model::ComplexityModel;",
    );
    assert_eq!(other.len(), 1, "{other:?}");
    let own = violations(
        Path::new("passes/linear_algebra/lora.rs"),
        "use crate::passes::linear_algebra::model::LinearAlgebraModel;\nuse crate::passes::lazy::LazyPass;",
    );
    assert!(own.is_empty(), "{own:?}");
}

#[test]
fn web_types_in_the_math_core_are_caught() {
    let found = violations(
        Path::new("math/softmax.rs"),
        "fn f() { let _ = web_sys::window(); }",
    );
    assert_eq!(found.len(), 1, "{found:?}");
}

#[test]
fn downward_imports_and_comments_are_allowed() {
    let found = violations(
        Path::new("app/page.rs"),
        "use crate::passes::backprop;\nuse crate::widgets::PassHeading;\n/// See [`crate::app::App`].\n",
    );
    assert!(found.is_empty(), "{found:?}");
}

#[test]
fn registry_and_pass_folders_name_the_same_passes() {
    let mut registered: Vec<String> = handwave::state::registry::PASSES
        .iter()
        .map(|p| p.folder.to_string())
        .collect();
    registered.sort();
    assert_eq!(
        pass_folders(),
        registered,
        "every folder of src/passes/ is a pass of state/registry.rs, and every pass has its folder"
    );
}

/// Every `<Figure id=FigureId::…` in the sources of a pass folder: (folder, file, figure
/// name).
fn figures_in_sources() -> Vec<(String, String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/passes");
    let mut out = Vec::new();
    for pass in pass_folders() {
        let mut files = Vec::new();
        rust_files(&root.join(&pass), &mut files);
        for file in files {
            let source = fs::read_to_string(&file).unwrap_or_default();
            let stem = file
                .strip_prefix(root.join(&pass))
                .map(|f| f.with_extension("").to_string_lossy().into_owned())
                .unwrap_or_default();
            for (i, _) in source.match_indices(FIGURE_TAG) {
                let rest = &source[i + FIGURE_TAG.len()..];
                let name: String = rest
                    .chars()
                    .take_while(char::is_ascii_alphanumeric)
                    .collect();
                out.push((pass.clone(), stem.clone(), name));
            }
        }
    }
    out.sort();
    out
}

const FIGURE_TAG: &str = "<Figure id=FigureId::";

/// The registry's figures: (their pass's folder, their file, figure name).
fn registered_figures() -> Vec<(String, String, String)> {
    let mut registered: Vec<(String, String, String)> = handwave::state::registry::FIGURES
        .iter()
        .map(|f| {
            (
                f.pass.info().folder.to_string(),
                f.file.to_string(),
                format!("{:?}", f.figure),
            )
        })
        .collect();
    registered.sort();
    registered
}

#[test]
fn every_registered_figure_is_drawn_in_the_file_its_line_names_and_no_other_figure_exists() {
    assert_eq!(
        figures_in_sources(),
        registered_figures(),
        "each figure of state/registry.rs has one <Figure id> in src/passes/<folder>/<file>.rs, and none is unregistered"
    );
}

/// Each figure's file builds it alone (`pub fn alone`), which the page binary's split
/// points call for an embed; each pass's `mod.rs` builds its section (`pub fn section`).
/// (The binary does not compile without them either; this says so natively, and sooner.)
#[test]
fn every_registered_figure_and_pass_can_be_built_by_the_loaders() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/passes");
    let read = |path: std::path::PathBuf| fs::read_to_string(path).unwrap_or_default();
    let mut missing = Vec::new();
    for pass in &handwave::state::registry::PASSES {
        if !read(root.join(pass.folder).join("mod.rs")).contains("pub fn section() -> AnyView") {
            missing.push(format!("{}/mod.rs: pub fn section", pass.folder));
        }
        for figure in pass.figures {
            let file = figure.info().file;
            let source = read(root.join(pass.folder).join(format!("{file}.rs")));
            if !source.contains("pub fn alone(show_controls: bool)") {
                missing.push(format!("{}/{file}.rs: pub fn alone", pass.folder));
            }
        }
    }
    assert!(missing.is_empty(), "missing: {missing:?}");
}
