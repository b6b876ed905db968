//! The commands the documentation gives can be run from the repository: every script, example,
//! benchmark and test file they name exists, and every figure of docs/PERFORMANCE.md is measured
//! by something the repository holds or a public tool, not a private one.

use std::path::Path;

/// The repository's root.
const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The documents checked.
const DOCUMENTS: [&str; 8] = [
    "README.md",
    "cli/README.md",
    "docs/ARCHITECTURE.md",
    "docs/FIRMWARE.md",
    "docs/PARQUET.md",
    "docs/PAYLOADS.md",
    "docs/PERFORMANCE.md",
    "docs/TESTING.md",
];

/// The code of a Markdown text: each line of a fenced block, and each span between backquotes
/// elsewhere.
fn code_spans(text: &str) -> Vec<&str> {
    let mut spans = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if fenced {
            spans.push(line);
        } else {
            spans.extend(line.split('`').skip(1).step_by(2));
        }
    }
    spans
}

/// The words of `span` that name a file of the repository by its path: a folder the repository
/// has, then a name ending in `.py`, `.rs` or `.sh`.
fn paths(span: &str) -> Vec<&str> {
    const FOLDERS: [&str; 9] = [
        "tools/",
        "examples/",
        "benches/",
        "python/",
        "firmware/",
        "cli/",
        "decode/",
        "tests/",
        "fuzz/",
    ];
    span.split(|c: char| c.is_whitespace() || c == '(' || c == ')' || c == ',' || c == '\'')
        .filter(|word| FOLDERS.iter().any(|folder| word.starts_with(folder)))
        .filter(|word| [".py", ".rs", ".sh"].iter().any(|end| word.ends_with(end)))
        .filter(|word| !word.contains('*') && !word.contains('<'))
        .collect()
}

/// The word after `flag` in `span`, each time it appears.
fn after<'a>(span: &'a str, flag: &str) -> Vec<&'a str> {
    let words: Vec<&str> = span.split_whitespace().collect();
    words
        .windows(2)
        .filter(|pair| pair[0] == flag)
        .map(|pair| pair[1])
        .collect()
}

#[test]
#[cfg_attr(
    miri,
    ignore = "reads the documents; nothing here depends on byte order"
)]
fn every_file_a_command_names_exists() {
    let root = Path::new(ROOT);
    let mut missing = Vec::new();
    for document in DOCUMENTS {
        let text = std::fs::read_to_string(root.join(document)).expect(document);
        for span in code_spans(&text) {
            for path in paths(span) {
                // From the repository's root, or from the crate the text speaks of.
                if !["", "firmware", "cli", "decode", "python", "fuzz"]
                    .iter()
                    .any(|folder| root.join(folder).join(path).is_file())
                {
                    missing.push(format!("{document}: {path}"));
                }
            }
            let benches = if span.contains("cargo bench") {
                after(span, "--bench")
            } else {
                Vec::new()
            };
            for bench in benches {
                if !["benches", "decode/benches"]
                    .iter()
                    .any(|folder| root.join(folder).join(format!("{bench}.rs")).is_file())
                {
                    missing.push(format!("{document}: the benchmark {bench}"));
                }
            }
            for example in after(span, "--example") {
                if !["examples", "firmware/examples", "decode/examples"]
                    .iter()
                    .any(|folder| root.join(folder).join(format!("{example}.rs")).is_file())
                {
                    missing.push(format!("{document}: the example {example}"));
                }
            }
        }
    }
    assert!(missing.is_empty(), "not in the repository: {missing:#?}");
}

#[test]
#[cfg_attr(
    miri,
    ignore = "reads the documents; nothing here depends on byte order"
)]
fn every_performance_figure_has_a_command_a_reader_can_run() {
    let text = std::fs::read_to_string(Path::new(ROOT).join("docs/PERFORMANCE.md"))
        .expect("docs/PERFORMANCE.md");
    // A timer that is not public may be named, but no command may need it.
    let private: Vec<&str> = code_spans(&text)
        .into_iter()
        .filter(|span| span.trim_start().starts_with("farm-bench "))
        .collect();
    assert!(
        private.is_empty(),
        "commands a reader cannot run: {private:?}"
    );
    // The tools the opening table sends the reader to.
    for tool in [
        "tools/timing/run.py",
        "tools/etl-memory/measure.py",
        "tools/etl-crosscheck/crosscheck.py",
        "examples/lz77_passes.rs",
        "tools/footprint/footprint.py",
        "tools/firmware-costs/costs.py",
    ] {
        assert!(
            text.contains(tool),
            "docs/PERFORMANCE.md does not name {tool}"
        );
    }
}
