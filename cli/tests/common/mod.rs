//! What the tests of the `etwc` binary share.

// Each test file uses part of this module.
#![allow(dead_code)]

use std::path::PathBuf;

use assert_cmd::Command;
use etw_classic_firmware::{boot_trace, CalledDirectly, EtlSink, Mode};
use serde_json::{Map, Value};

/// The `etwc` binary cargo built for the tests, ready to be given arguments.
pub fn etwc() -> Command {
    Command::new(env!("CARGO_BIN_EXE_etwc"))
}

/// The path of the PerfView test trace `name`, in `ETW_PERFVIEW_DIR` or else in
/// `shared/data/perfview` beside the repository. `None`, with a message saying the check is
/// skipped, when the file is not there; with `ETW_REQUIRE_TRACES=1` a missing trace fails the
/// test instead.
pub fn trace(name: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("ETW_PERFVIEW_DIR").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/data/perfview"),
        PathBuf::from,
    );
    let path = dir.join(name);
    if path.is_file() {
        return Some(path);
    }
    let problem = format!(
        "cannot find the PerfView trace {}; set ETW_PERFVIEW_DIR to the folder holding the \
         PerfView test traces",
        path.display()
    );
    if std::env::var_os("ETW_REQUIRE_TRACES").is_some_and(|value| value == "1") {
        panic!("{problem} (ETW_REQUIRE_TRACES=1 requires every trace)");
    }
    eprintln!("SKIPPED: {problem} to run this check");
    None
}

/// Lowercase or uppercase hex, whitespace allowed, as bytes.
pub fn from_hex(text: &str) -> Vec<u8> {
    let digits: Vec<u8> = text
        .chars()
        .filter(|character| !character.is_whitespace())
        .map(|character| {
            let digit = character
                .to_digit(16)
                .unwrap_or_else(|| panic!("not hex: {text:?}"));
            u8::try_from(digit).unwrap()
        })
        .collect();
    assert!(
        digits.len().is_multiple_of(2),
        "odd number of hex digits: {text:?}"
    );
    digits
        .chunks_exact(2)
        .map(|pair| pair[0] << 4 | pair[1])
        .collect()
}

/// Bytes as lowercase hex.
pub fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// The text of `bytes`, which must be UTF-8.
pub fn utf8(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("the output is UTF-8")
}

/// The stdout of a successful `etwc` run with an empty stderr.
pub fn run(args: &[&str]) -> String {
    let output = etwc()
        .args(args)
        .assert()
        .success()
        .stderr("")
        .get_output()
        .stdout
        .clone();
    utf8(&output)
}

/// `etwc encode LAYOUT JSON`, which must succeed: the bytes it prints as one line of hex.
pub fn encode(layout: &str, value: &Value) -> Vec<u8> {
    let text = run(&["encode", layout, &value.to_string()]);
    let line = text
        .strip_suffix('\n')
        .unwrap_or_else(|| panic!("{layout}: one line expected, found {text:?}"));
    assert!(!line.contains('\n'), "{layout}: one line expected");
    assert!(
        line.chars()
            .all(|character| matches!(character, '0'..='9' | 'a'..='f')),
        "{layout}: lowercase hex expected, found {line:?}"
    );
    from_hex(line)
}

/// `etwc decode LAYOUT HEX --json`, which must succeed: the one JSON object it prints.
pub fn decode(layout: &str, bytes: &[u8]) -> Map<String, Value> {
    let output = etwc()
        .args(["decode", layout, &to_hex(bytes), "--json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = utf8(&output);
    assert_eq!(text.lines().count(), 1, "{layout}: one line expected");
    match serde_json::from_str(&text).unwrap() {
        Value::Object(object) => object,
        other => panic!("{layout}: a JSON object expected, found {other}"),
    }
}

/// The .etl file the firmware's boot trace writes in `mode`, in memory.
pub fn boot_trace_file(mode: Mode) -> Vec<u8> {
    struct FileImage(Vec<u8>);
    impl EtlSink for FileImage {
        type Error = ();
        fn write_at(&mut self, offset: u64, bytes: &[u8]) -> Result<(), ()> {
            let start = usize::try_from(offset).map_err(|_| ())?;
            let end = start + bytes.len();
            if self.0.len() < end {
                self.0.resize(end, 0);
            }
            self.0[start..end].copy_from_slice(bytes);
            Ok(())
        }
    }
    let mut image = FileImage(Vec::new());
    boot_trace(mode, &mut image, &mut CalledDirectly).unwrap();
    image.0
}
