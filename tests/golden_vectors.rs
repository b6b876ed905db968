//! Golden vectors from independent sources, decoded and re-encoded.
//!
//! - `tests/data/abi-vectors-{i686,x86_64}.json`: bytes laid out by the C compiler from
//!   mingw-w64's own `evntrace.h` (see `tools/abi-vectors/`), with the field values the C
//!   initialisers set. Every struct, every union view, both ABIs.
//! - `tests/data/perfview-full-headers.json`: real `FULL_HEADER32`/`FULL_HEADER64` headers from
//!   Windows traces, with the fields an independent parser (dissect.etl) decoded
//!   (see `tools/perfview-vectors/`).

#[path = "../examples/etwdump/fields.rs"]
#[allow(dead_code)]
mod fields;

use etw_classic::{
    Bitness, EventInstanceGuidHeader, EventInstanceInfo, EventTrace, EventTraceHeader, HeaderType,
    Layout, MarkerFlags,
};
use fields::CliLayout;
use serde_json::Value;

fn load(name: &str) -> Value {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{path}: {error}"));
    serde_json::from_str(&text).unwrap()
}

fn hex(text: &str) -> Vec<u8> {
    assert!(text.len().is_multiple_of(2), "odd hex length");
    (0..text.len())
        .step_by(2)
        .map(|at| u8::from_str_radix(&text[at..at + 2], 16).unwrap())
        .collect()
}

fn vectors(file: &Value) -> impl Iterator<Item = (&str, CliLayout, Vec<u8>, &Value)> {
    file["vectors"].as_array().unwrap().iter().map(|vector| {
        let name = vector["name"].as_str().unwrap();
        let layout = CliLayout::from_name(vector["layout"].as_str().unwrap()).unwrap();
        (
            name,
            layout,
            hex(vector["hex"].as_str().unwrap()),
            &vector["fields"],
        )
    })
}

/// Every key the vector states (recursing into `header`) has that value in the decoded object.
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

fn check_file(file: &Value, expected_count: usize) {
    let mut checked = 0;
    for (name, layout, bytes, expected) in vectors(file) {
        assert_eq!(bytes.len(), layout.len(), "{name}: vector length");
        // Decode: bytes -> fields as the C compiler (or the independent parser) saw them.
        let decoded = Value::Object(fields::decode(layout, &bytes).unwrap());
        assert_fields_match(name, "", expected, &decoded);
        // Encode: the stated fields -> exactly the same bytes.
        assert_eq!(
            fields::encode(layout, expected).unwrap(),
            bytes,
            "{name}: encode"
        );
        checked += 1;
    }
    assert_eq!(checked, expected_count);
}

#[test]
fn c_abi_vectors_i686_decode_and_encode() {
    check_file(&load("abi-vectors-i686.json"), 18);
}

#[test]
fn c_abi_vectors_x86_64_decode_and_encode() {
    check_file(&load("abi-vectors-x86_64.json"), 18);
}

/// The bitness-chosen types give the same bytes as the per-layout ones, and the layout lengths
/// agree with the compiler's `sizeof`.
#[test]
fn c_abi_vectors_through_the_bitness_chosen_types() {
    for (file, bitness) in [
        ("abi-vectors-i686.json", Bitness::Bits32),
        ("abi-vectors-x86_64.json", Bitness::Bits64),
    ] {
        let file = load(file);
        let sizeof = |layout: &str| file["layouts"][layout]["sizeof"].as_u64().unwrap() as usize;
        assert_eq!(sizeof("trace-header"), Layout::EventTraceHeader.byte_len());
        assert_eq!(
            sizeof("instance-header"),
            Layout::EventInstanceHeader.byte_len()
        );
        assert_eq!(
            sizeof("instance-guid-header"),
            Layout::EventInstanceGuidHeader.byte_len()
        );
        assert_eq!(sizeof("mof-field"), Layout::MofField.byte_len());
        let (trace_layout, info_layout) = match bitness {
            Bitness::Bits32 => ("event-trace32", "instance-info32"),
            Bitness::Bits64 => ("event-trace64", "instance-info64"),
        };
        assert_eq!(sizeof(trace_layout), EventTrace::LEN);
        assert_eq!(sizeof(info_layout), bitness.pointer_len() * 2);

        for (name, layout, bytes, expected) in vectors(&file) {
            if layout.name() == trace_layout {
                let trace = EventTrace::from_bytes(bytes.as_slice().try_into().unwrap(), bitness);
                assert_eq!(trace.bitness(), bitness);
                assert_eq!(trace.to_bytes().as_slice(), bytes, "{name}");
                assert_eq!(
                    trace.mof_data(),
                    expected["mof_data"].as_u64().unwrap(),
                    "{name}"
                );
                assert_eq!(
                    u64::from(trace.mof_length()),
                    expected["mof_length"].as_u64().unwrap(),
                    "{name}"
                );
                // The first 0x48 bytes of EVENT_TRACE are an EVENT_INSTANCE_GUID_HEADER.
                let first = EventInstanceGuidHeader::from_bytes(bytes[..0x48].try_into().unwrap());
                assert_eq!(trace.instance_header(), first, "{name}");
            }
            if layout.name() == info_layout {
                let (info, rest) = EventInstanceInfo::parse(&bytes, bitness).unwrap();
                assert!(rest.is_empty());
                assert_eq!(info.bitness(), bitness);
                assert_eq!(
                    info.reg_handle(),
                    expected["reg_handle"].as_u64().unwrap(),
                    "{name}"
                );
                assert_eq!(
                    u64::from(info.instance_id()),
                    expected["instance_id"].as_u64().unwrap(),
                    "{name}"
                );
                let mut out = vec![0xAA; bytes.len()];
                info.emit(&mut out).unwrap();
                assert_eq!(out, bytes, "{name}");
            }
        }
    }
}

/// The compiler's offsets for every member agree with the tables in the crate's docs
/// (spot-checked through the members' positions in the decoded vectors above, and here directly).
#[test]
fn c_abi_offsets_match_layouts_md() {
    let i686 = load("abi-vectors-i686.json");
    let x64 = load("abi-vectors-x86_64.json");
    let offset = |file: &Value, layout: &str, member: &str| {
        file["layouts"][layout]["offsets"][member].as_u64().unwrap()
    };
    for file in [&i686, &x64] {
        assert_eq!(offset(file, "trace-header", "TimeStamp"), 0x10);
        assert_eq!(offset(file, "trace-header", "GuidPtr"), 0x18);
        assert_eq!(offset(file, "trace-header", "ProcessorTime"), 0x28);
        assert_eq!(offset(file, "instance-header", "RegHandle"), 0x18);
        assert_eq!(offset(file, "instance-header", "ParentRegHandle"), 0x30);
        assert_eq!(offset(file, "instance-guid-header", "ParentGuid"), 0x38);
        assert_eq!(offset(file, "mof-field", "DataType"), 0x0C);
    }
    assert_eq!(offset(&i686, "event-trace32", "MofLength"), 0x4C);
    assert_eq!(offset(&i686, "event-trace32", "BufferContext"), 0x50);
    assert_eq!(offset(&x64, "event-trace64", "MofLength"), 0x50);
    assert_eq!(offset(&x64, "event-trace64", "BufferContext"), 0x54);
    assert_eq!(offset(&i686, "instance-info32", "InstanceId"), 4);
    assert_eq!(offset(&x64, "instance-info64", "InstanceId"), 8);
}

#[test]
fn real_trace_headers_decode_encode_and_pass_the_wire_checks() {
    let file = load("perfview-full-headers.json");
    let mut by_type = [0usize; 2];
    for (name, layout, bytes, expected) in vectors(&file) {
        assert_eq!(layout, CliLayout::TraceHeader);
        let decoded = Value::Object(fields::decode(layout, &bytes).unwrap());
        assert_fields_match(name, "", expected, &decoded);
        assert_eq!(
            fields::encode(layout, expected).unwrap(),
            bytes,
            "{name}: encode"
        );

        // Real headers are what `parse` is for: they pass its checks.
        let (header, rest) = EventTraceHeader::parse(&bytes).unwrap();
        assert!(rest.is_empty());
        assert_eq!(
            header.marker_flags,
            MarkerFlags::EVENT_TRACE_HEADER,
            "{name}"
        );
        assert!(usize::from(header.size) >= EventTraceHeader::LEN, "{name}");
        match header.header_type {
            HeaderType::FULL_HEADER32 => by_type[0] += 1,
            HeaderType::FULL_HEADER64 => by_type[1] += 1,
            other => panic!("{name}: unexpected {other:?}"),
        }
        assert!(header.header_type.bitness().is_some());
        assert_eq!(header.to_bytes().as_slice(), bytes, "{name}");
    }
    assert!(
        by_type[0] >= 6 && by_type[1] >= 6,
        "both header types covered: {by_type:?}"
    );
}

/// One real header checked field by field with the typed API, not through the JSON mapping.
#[test]
fn one_real_full_header64_field_by_field() {
    let file = load("perfview-full-headers.json");
    let vector = &file["vectors"][0];
    assert_eq!(vector["file"], "SelfDescribingSingleEvent.etl");
    let bytes: [u8; 0x30] = hex(vector["hex"].as_str().unwrap()).try_into().unwrap();
    let header = EventTraceHeader::from_bytes(&bytes);
    assert_eq!(header.size, 112);
    assert_eq!(header.header_type, HeaderType::FULL_HEADER64);
    assert_eq!(header.header_type.bitness(), Some(Bitness::Bits64));
    assert_eq!(header.class.event_type.0, 0x21);
    assert_eq!(header.class.roll_up(), 0x21);
    assert_eq!(header.timestamp, 0x05e0_098c_654d);
    assert_eq!(
        header.guid.guid().to_string(),
        "9b79ee91-b5fd-41c0-a243-4248e266e9d0"
    );
}
