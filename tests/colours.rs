//! The article names two colours, and the page keeps them: coral is attention's n² (the
//! score matrix, its bytes, its FLOPs, its measured time, its singular values) and blue
//! is the KV cache. No other figure draws either, so a colour means one quantity across
//! the whole page. A scan of the passes' sources holds the rule.

use std::fs;
use std::path::Path;

/// The files that may draw in coral: the figures of the score matrix's n².
const CORAL: [&str; 4] = [
    "complexity/memory.rs",
    "complexity/flops.rs",
    "complexity/measured.rs",
    "linear_algebra/score_rank.rs",
];
/// The files that may draw in blue: the KV cache.
const BLUE: [&str; 1] = ["complexity/memory.rs"];

fn pass_sources(dir: &Path, out: &mut Vec<(String, String)>) {
    for entry in fs::read_dir(dir).expect("src/passes is readable").flatten() {
        let path = entry.path();
        if path.is_dir() {
            pass_sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let relative = path
                .strip_prefix("src/passes")
                .expect("under src/passes")
                .to_string_lossy()
                .replace('\\', "/");
            out.push((relative, fs::read_to_string(&path).expect("readable")));
        }
    }
}

fn files_using(tone: &str) -> Vec<String> {
    let mut sources = Vec::new();
    pass_sources(Path::new("src/passes"), &mut sources);
    let mut files: Vec<String> = sources
        .into_iter()
        .filter(|(_, text)| text.contains(tone))
        .map(|(path, _)| path)
        .collect();
    files.sort();
    files
}

#[test]
fn coral_is_only_attentions_n_squared() {
    for file in files_using("Tone::Coral") {
        assert!(
            CORAL.contains(&file.as_str()),
            "{file} draws in coral, which means attention's n²"
        );
    }
}

#[test]
fn blue_is_only_the_kv_cache() {
    for file in files_using("Tone::Blue") {
        assert!(
            BLUE.contains(&file.as_str()),
            "{file} draws in blue, which means the KV cache"
        );
    }
}

#[test]
fn the_scan_sees_the_figures_that_use_them() {
    assert!(files_using("Tone::Coral").contains(&"complexity/memory.rs".to_string()));
    assert_eq!(
        files_using("Tone::Blue"),
        vec!["complexity/memory.rs".to_string()]
    );
}
