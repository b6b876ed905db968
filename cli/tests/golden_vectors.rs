//! The golden vectors of the library's `tests/data/`, through the built `etwc`: each vector's
//! bytes decode (`etwc decode LAYOUT HEX --json`) to the field values its independent source
//! states, and those values encode (`etwc encode LAYOUT JSON`) back to the same bytes.
//!
//! - `abi-vectors-{i686,x86_64}.json`: bytes laid out by the C compiler from mingw-w64's
//!   `evntrace.h`, with the values the C initialisers set (every struct, every union view);
//! - `perfview-full-headers.json`: real `FULL_HEADER32`/`FULL_HEADER64` headers with the fields
//!   dissect.etl decoded;
//! - `perfview-logfile-headers.json`: the logfile header event of each PerfView trace, its
//!   `SYSTEM_TRACE_HEADER` and `TRACE_LOGFILE_HEADER` with the fields dissect.etl decoded.

mod common;

use common::{decode, encode, from_hex};
use serde_json::Value;

/// A JSON file of `tests/data/` in the library's folder.
fn load(name: &str) -> Value {
    let path = format!("{}/../tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{path}: {error}"));
    serde_json::from_str(&text).unwrap()
}

/// Every key the vector states (recursing into objects) has that value in the decoded object.
fn assert_fields_match(name: &str, path: &str, expected: &Value, decoded: &Value) {
    for (key, want) in expected.as_object().unwrap() {
        let got = &decoded[key.as_str()];
        if want.is_object() {
            assert_fields_match(name, &format!("{path}{key}."), want, got);
        } else {
            assert_eq!(got, want, "{name}: {path}{key}");
        }
    }
}

/// Decodes and encodes every vector of `file`; returns how many there were.
fn check_vectors(file: &Value) -> usize {
    let vectors = file["vectors"].as_array().unwrap();
    for vector in vectors {
        let name = vector["name"].as_str().unwrap();
        let layout = vector["layout"].as_str().unwrap();
        let bytes = from_hex(vector["hex"].as_str().unwrap());
        let expected = &vector["fields"];
        let decoded = Value::Object(decode(layout, &bytes));
        assert_fields_match(name, "", expected, &decoded);
        assert_eq!(encode(layout, expected), bytes, "{name}: encode");
    }
    vectors.len()
}

#[test]
fn c_abi_vectors_i686() {
    assert_eq!(check_vectors(&load("abi-vectors-i686.json")), 24);
}

#[test]
fn c_abi_vectors_x86_64() {
    assert_eq!(check_vectors(&load("abi-vectors-x86_64.json")), 24);
}

#[test]
fn real_full_headers() {
    let file = load("perfview-full-headers.json");
    for vector in file["vectors"].as_array().unwrap() {
        assert_eq!(vector["layout"], "trace-header");
    }
    assert!(check_vectors(&file) >= 12);
}

/// The logfile header event of each PerfView trace: the system header and the logfile header
/// decode to the values dissect.etl decoded, naming the same members, and encode back.
#[test]
fn real_logfile_headers() {
    let file = load("perfview-logfile-headers.json");
    let events = file["events"].as_array().unwrap();
    assert_eq!(events.len(), 5);
    for event in events {
        let name = event["file"].as_str().unwrap();
        let bytes = from_hex(event["hex"].as_str().unwrap());

        let system = &event["system_header"]["fields"];
        let decoded = Value::Object(decode("system-header", &bytes[..0x20]));
        assert_fields_match(name, "system_header.", system, &decoded);
        assert_eq!(encode("system-header", system), bytes[..0x20], "{name}");

        let logfile = &event["logfile_header"];
        assert_eq!(logfile["layout"], "logfile-header64", "{name}");
        let expected = &logfile["fields"];
        let struct_bytes = &bytes[0x20..0x20 + 0x118];
        let decoded = decode("logfile-header64", struct_bytes);
        assert_fields_match(
            name,
            "logfile_header.",
            expected,
            &Value::Object(decoded.clone()),
        );
        assert_eq!(
            decoded.len(),
            expected.as_object().unwrap().len(),
            "{name}: dissect.etl and the JSON mapping name the same members"
        );
        // Without the one view of each union the C layout does not hold, the fields encode back.
        let mut one_view = expected.clone();
        for key in ["version", "log_instance_guid"] {
            one_view.as_object_mut().unwrap().remove(key);
        }
        assert_eq!(
            encode("logfile-header64", &one_view),
            struct_bytes,
            "{name}"
        );
    }
}
