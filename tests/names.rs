//! Names spelled as strings are held to their one table: every URL key the code reads or
//! sets is a row of the parameter table (`src/state/table.rs`), and every readout a guided
//! step quotes or decides by is a readout some figure shows. A typo fails here, natively,
//! instead of reading 0, false or "" (or printing "…") until an end-to-end test looks.

use std::collections::BTreeSet;
mod support;

use handwave::state::ParamKind;

use std::fs;
use std::path::Path;

use support::rust_files;

/// Every source file of the library and binaries, as (path, text without `#[cfg(test)]`
/// modules: tests may name keys that do not exist on purpose).
fn sources() -> Vec<(String, String)> {
    let mut files = Vec::new();
    rust_files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut files,
    );
    files
        .into_iter()
        .map(|f| {
            let text = fs::read_to_string(&f).unwrap_or_default();
            let code = text.split("#[cfg(test)]").next().unwrap_or("").to_string();
            (f.display().to_string(), code)
        })
        .collect()
}

/// The string literal right after each occurrence of `prefix` in `code`.
fn literals_after<'a>(code: &'a str, prefix: &str) -> Vec<&'a str> {
    code.match_indices(prefix)
        .filter_map(|(i, _)| {
            let rest = &code[i + prefix.len()..];
            rest.find('"').map(|end| &rest[..end])
        })
        .collect()
}

/// Calls whose first argument is a URL key.
const KEY_READERS: [&str; 15] = [
    ".int(\"",
    ".float(\"",
    ".flag(\"",
    ".choice(\"",
    ".list(\"",
    ".chosen(\"",
    ".is_set(\"",
    "int_control(\"",
    "float_control(\"",
    "flag_control(\"",
    "choice_control(\"",
    "int_range(\"",
    "float_range(\"",
    "linear_of(\"",
    "log2_of(\"",
];

fn table_keys() -> BTreeSet<&'static str> {
    handwave::state::PARAMS.iter().map(|p| p.key).collect()
}

#[test]
fn every_url_key_the_code_reads_is_a_row_of_the_table() {
    let keys = table_keys();
    let mut unknown = Vec::new();
    let mut seen = 0;
    for (file, code) in sources() {
        for reader in KEY_READERS {
            for key in literals_after(&code, reader) {
                seen += 1;
                if !keys.contains(key) {
                    unknown.push(format!("{file}: {reader}{key}\")"));
                }
            }
        }
    }
    assert!(
        seen > 100,
        "found only {seen} key reads: has the code's spelling changed?"
    );
    assert!(
        unknown.is_empty(),
        "keys not in the table:\n{}",
        unknown.join("\n")
    );
}

/// The kind of row each typed reader answers for: `int` a whole number (or a power of
/// two), `float` a real, `flag` a switch, `choice` an option, `list` a list of reals. A
/// read of the wrong kind answers 0, false or "" as silently as an unknown key.
fn reader_accepts(reader: &str, kind: &ParamKind) -> Option<bool> {
    let accepts = match reader {
        ".int(\"" | "int_control(\"" | "int_range(\"" => {
            matches!(kind, ParamKind::Int { .. } | ParamKind::Pow2 { .. })
        }
        ".float(\"" | "float_control(\"" => matches!(kind, ParamKind::Float { .. }),
        ".flag(\"" | "flag_control(\"" => matches!(kind, ParamKind::Bool),
        ".choice(\"" | ".chosen(\"" | "choice_control(\"" => matches!(kind, ParamKind::Choice(_)),
        ".list(\"" => matches!(kind, ParamKind::FloatList { .. }),
        // Any kind: whether a key is set, and the scales of a slider (a range of numbers).
        _ => return None,
    };
    Some(accepts)
}

#[test]
fn every_typed_read_of_a_url_key_matches_the_kind_of_its_row() {
    let mut wrong = Vec::new();
    let mut seen = 0;
    for (file, code) in sources() {
        for reader in KEY_READERS {
            for key in literals_after(&code, reader) {
                let Some(row) = handwave::state::PARAMS.iter().find(|p| p.key == key) else {
                    continue; // an unknown key fails the test above
                };
                if let Some(accepts) = reader_accepts(reader, &row.kind) {
                    seen += 1;
                    if !accepts {
                        wrong.push(format!(
                            "{file}: {reader}{key}\") reads a {:?} row",
                            row.kind
                        ));
                    }
                }
            }
        }
    }
    assert!(
        seen > 100,
        "found only {seen} typed reads: has the code's spelling changed?"
    );
    assert!(
        wrong.is_empty(),
        "reads of the wrong kind:\n{}",
        wrong.join("\n")
    );
}

/// The keys a step table sets: the first string of each `("key", "value")` pair of its
/// `to: &[…]`.
fn step_keys(code: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for (i, _) in code.match_indices("to: &[") {
        let rest = &code[i..];
        let list = &rest[..rest.find(']').unwrap_or(0)];
        out.extend(literals_after(list, "(\""));
    }
    out
}

#[test]
fn every_key_a_guided_step_sets_is_a_row_of_the_table() {
    let keys = table_keys();
    let mut unknown = Vec::new();
    let mut seen = 0;
    for (file, code) in sources()
        .into_iter()
        .filter(|(f, _)| f.contains("/passes/") && f.ends_with("steps.rs"))
    {
        for key in step_keys(&code) {
            seen += 1;
            if !keys.contains(key) {
                unknown.push(format!("{file}: {key}"));
            }
        }
    }
    assert!(seen >= 10, "found only {seen} step keys");
    assert!(
        unknown.is_empty(),
        "step keys not in the table:\n{}",
        unknown.join("\n")
    );
}

#[test]
fn every_readout_a_guided_step_names_is_shown_by_a_figure() {
    let all = sources();
    // Steps read a figure's readouts through what its `Readout`s register (not the page's
    // attributes): only those count.
    let shown: BTreeSet<&str> = all
        .iter()
        .flat_map(|(_, code)| literals_after(code, "Readout name=\""))
        .collect();
    let mut unknown = Vec::new();
    let mut seen = 0;
    for (file, code) in all
        .iter()
        .filter(|(f, _)| f.contains("/passes/") && f.ends_with("steps.rs"))
    {
        let mut named: Vec<&str> = literals_after(code, "readout: \"");
        for tag in ["{r:", "{was:", "{change:"] {
            named.extend(code.match_indices(tag).filter_map(|(i, _)| {
                let rest = &code[i + tag.len()..];
                rest.find('}').map(|end| &rest[..end])
            }));
        }
        for name in named {
            seen += 1;
            if !shown.contains(name) {
                unknown.push(format!("{file}: {name}"));
            }
        }
    }
    assert!(
        seen >= 20,
        "found only {seen} readout names in the step tables"
    );
    assert!(
        unknown.is_empty(),
        "readouts no figure shows:\n{}",
        unknown.join("\n")
    );
}

#[test]
fn a_misspelt_key_or_readout_would_be_caught() {
    assert!(!table_keys().contains("dpeth"));
    assert_eq!(literals_after("p.int(\"dpeth\")", ".int(\""), vec!["dpeth"]);
    assert_eq!(
        reader_accepts(".flag(\"", &ParamKind::Int { min: 1, max: 2 }),
        Some(false),
        "a switch read of a number row is caught"
    );
    assert_eq!(
        step_keys("to: &[(\"rn\", \"32\"), (\"rdk\", \"4\")],"),
        vec!["rn", "rdk"]
    );
}
