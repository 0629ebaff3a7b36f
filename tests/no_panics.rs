//! No `unwrap()` or `expect(` in the library's or binaries' code outside tests: a panic in
//! WASM kills every figure on the page, so every failure is a value at a boundary. Test
//! modules (from `#[cfg(test)]` to the end of a file, as the project writes them) may
//! unwrap: there a failure is the test's verdict.

use std::fs;
use std::path::Path;

fn sources(dir: &Path, out: &mut Vec<(String, String)>) {
    for entry in fs::read_dir(dir).expect("src is readable").flatten() {
        let path = entry.path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push((
                path.display().to_string(),
                fs::read_to_string(&path).expect("readable"),
            ));
        }
    }
}

/// The lines of `text` before its first `#[cfg(test)]`, numbered from 1.
fn code_before_tests(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .take_while(|(_, l)| !l.trim_start().starts_with("#[cfg(test)]"))
        .map(|(i, l)| (i + 1, l))
}

#[test]
fn no_code_outside_tests_unwraps_or_expects() {
    let mut files = Vec::new();
    sources(Path::new("src"), &mut files);
    let mut found = Vec::new();
    for (path, text) in &files {
        for (n, line) in code_before_tests(text) {
            let code = line.split("//").next().unwrap_or("");
            if code.contains(".unwrap()") || code.contains(".expect(") {
                found.push(format!("{path}:{n}: {}", line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "possible panics outside tests:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_scan_reads_code_and_stops_at_the_tests() {
    let text = "let a = b.unwrap();\n#[cfg(test)]\nmod tests { x.unwrap(); }";
    let lines: Vec<_> = code_before_tests(text).collect();
    assert_eq!(lines, vec![(1, "let a = b.unwrap();")]);
}
