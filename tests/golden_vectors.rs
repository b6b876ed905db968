//! Golden vectors from independent sources, decoded and re-encoded with the typed API. (The
//! same vectors, every stated field value included, are checked through the JSON mapping of the
//! command-line tool by `cli/tests/golden_vectors.rs`, which runs the built `etwc`.)
//!
//! - `tests/data/abi-vectors-{i686,x86_64}.json`: bytes laid out by the C compiler from
//!   mingw-w64's own `evntrace.h` (see `tools/abi-vectors/`), with the field values the C
//!   initialisers set. Every struct, every union view, both ABIs.
//! - `tests/data/perfview-full-headers.json`: real `FULL_HEADER32`/`FULL_HEADER64` headers from
//!   Windows traces, with the fields an independent parser (dissect.etl) decoded
//!   (see `tools/perfview-vectors/`).
//! - `tests/data/perfview-logfile-headers.json`: the logfile header event (`SYSTEM_TRACE_HEADER`,
//!   `TRACE_LOGFILE_HEADER`, the two names) that starts each of those traces, with the fields
//!   dissect.etl decoded (`tools/perfview-vectors/logfile_headers.py`).

use etw_classic::{
    wire::TraceLogfileHeader64, Bitness, ClockType, EventInstanceGuidHeader, EventInstanceHeader,
    EventInstanceInfo, EventTrace, EventTraceHeader, HeaderType, Layout, MarkerFlags, MofField,
    SystemTraceHeader, TraceLogfileHeader,
};
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

/// Each vector of `file`: its name, its layout's name, its bytes and the fields its source states.
fn vectors(file: &Value) -> impl Iterator<Item = (&str, &str, Vec<u8>, &Value)> {
    file["vectors"].as_array().unwrap().iter().map(|vector| {
        (
            vector["name"].as_str().unwrap(),
            vector["layout"].as_str().unwrap(),
            hex(vector["hex"].as_str().unwrap()),
            &vector["fields"],
        )
    })
}

/// The bytes of a vector of `layout` decoded by the library's type for it and encoded again.
fn round_trip(layout: &str, bytes: &[u8]) -> Vec<u8> {
    fn array<const N: usize>(bytes: &[u8]) -> &[u8; N] {
        bytes
            .try_into()
            .expect("the vector has the layout's length")
    }
    let with = |bitness| match layout {
        "event-trace32" | "event-trace64" => EventTrace::from_bytes(array(bytes), bitness)
            .to_bytes()
            .to_vec(),
        "instance-info32" | "instance-info64" => {
            let (info, rest) = EventInstanceInfo::parse(bytes, bitness).unwrap();
            assert!(rest.is_empty());
            let mut out = vec![0xEE; info.byte_len()];
            info.emit(&mut out).unwrap();
            out
        }
        "logfile-header32" | "logfile-header64" => {
            let (header, rest) = TraceLogfileHeader::parse(bytes, bitness).unwrap();
            assert!(rest.is_empty());
            let mut out = vec![0xEE; header.byte_len()];
            header.emit(&mut out).unwrap();
            out
        }
        other => panic!("no layout named {other}"),
    };
    match layout {
        "trace-header" => EventTraceHeader::from_bytes(array(bytes))
            .to_bytes()
            .to_vec(),
        "instance-header" => EventInstanceHeader::from_bytes(array(bytes))
            .to_bytes()
            .to_vec(),
        "instance-guid-header" => EventInstanceGuidHeader::from_bytes(array(bytes))
            .to_bytes()
            .to_vec(),
        "mof-field" => MofField::from_bytes(array(bytes)).to_bytes().to_vec(),
        "system-header" => SystemTraceHeader::from_bytes(array(bytes))
            .to_bytes()
            .to_vec(),
        wide if wide.ends_with("64") => with(Bitness::Bits64),
        _ => with(Bitness::Bits32),
    }
}

/// Every vector of `file` decodes and encodes back to its bytes.
fn check_file(file: &Value, expected_count: usize) {
    let mut checked = 0;
    for (name, layout, bytes, _) in vectors(file) {
        assert_eq!(round_trip(layout, &bytes), bytes, "{name}");
        checked += 1;
    }
    assert_eq!(checked, expected_count);
}

#[test]
fn c_abi_vectors_i686_decode_and_encode() {
    check_file(&load("abi-vectors-i686.json"), 24);
}

#[test]
fn c_abi_vectors_x86_64_decode_and_encode() {
    check_file(&load("abi-vectors-x86_64.json"), 24);
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
        assert_eq!(
            sizeof("system-header"),
            Layout::SystemTraceHeader.byte_len()
        );
        let (trace_layout, info_layout, logfile_layout, logfile) = match bitness {
            Bitness::Bits32 => (
                "event-trace32",
                "instance-info32",
                "logfile-header32",
                Layout::TraceLogfileHeader32,
            ),
            Bitness::Bits64 => (
                "event-trace64",
                "instance-info64",
                "logfile-header64",
                Layout::TraceLogfileHeader64,
            ),
        };
        assert_eq!(sizeof(trace_layout), EventTrace::LEN);
        assert_eq!(sizeof(info_layout), bitness.pointer_len() * 2);
        assert_eq!(sizeof(logfile_layout), logfile.byte_len());
        assert_eq!(logfile.bitness(), Some(bitness));

        for (name, layout, bytes, expected) in vectors(&file) {
            if layout == trace_layout {
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
            if layout == info_layout {
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
            if layout == logfile_layout {
                let (header, rest) = TraceLogfileHeader::parse(&bytes, bitness).unwrap();
                assert!(rest.is_empty());
                assert_eq!(header.bitness(), bitness);
                assert_eq!(header.layout(), logfile);
                assert_eq!(
                    header.logger_name(),
                    expected["logger_name"].as_u64().unwrap(),
                    "{name}"
                );
                assert_eq!(
                    header.log_file_name(),
                    expected["log_file_name"].as_u64().unwrap(),
                    "{name}"
                );
                assert_eq!(
                    u64::from(header.buffers_lost()),
                    expected["buffers_lost"].as_u64().unwrap(),
                    "{name}"
                );
                // The C initialisers leave the padding before BootTime zero.
                assert_eq!(header.padding(), [0; 4], "{name}");
                let mut out = vec![0xAA; bytes.len()];
                header.emit(&mut out).unwrap();
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
    for file in [&i686, &x64] {
        assert_eq!(offset(file, "system-header", "Packet.Size"), 0x04);
        assert_eq!(offset(file, "system-header", "Packet.HookId"), 0x06);
        assert_eq!(offset(file, "system-header", "SystemTime"), 0x10);
        assert_eq!(offset(file, "system-header", "UserTime"), 0x1C);
    }
    let logfile = [
        (&i686, "logfile-header32", 0u64),
        (&x64, "logfile-header64", 8),
    ];
    for (file, layout, shift) in logfile {
        assert_eq!(offset(file, layout, "CpuSpeedInMHz"), 0x34);
        assert_eq!(offset(file, layout, "LoggerName"), 0x38);
        assert_eq!(offset(file, layout, "LogFileName"), 0x3C + shift / 2);
        assert_eq!(offset(file, layout, "TimeZone"), 0x40 + shift);
        assert_eq!(offset(file, layout, "TimeZone.DaylightBias"), 0xE8 + shift);
        assert_eq!(offset(file, layout, "BootTime"), 0xF0 + shift);
        assert_eq!(offset(file, layout, "BuffersLost"), 0x10C + shift);
    }
}

#[test]
fn real_trace_headers_decode_encode_and_pass_the_wire_checks() {
    let file = load("perfview-full-headers.json");
    let mut by_type = [0usize; 2];
    for (name, layout, bytes, _) in vectors(&file) {
        assert_eq!(layout, "trace-header");
        assert_eq!(round_trip(layout, &bytes), bytes, "{name}");

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

/// The logfile header event at the start of each PerfView trace: every field our types decode
/// equals what dissect.etl decoded, the names included, and the bytes encode back unchanged.
#[test]
fn real_logfile_headers_decode_to_dissect_values() {
    let file = load("perfview-logfile-headers.json");
    let events = file["events"].as_array().unwrap();
    assert_eq!(events.len(), 5);
    for event in events {
        let name = event["file"].as_str().unwrap();
        let bytes = hex(event["hex"].as_str().unwrap());

        let (system, header, names, rest) = TraceLogfileHeader::parse_event(&bytes).unwrap();
        assert!(rest.is_empty(), "{name}: Size covers the whole event");

        // The system header (its fields through the JSON mapping: cli/tests/golden_vectors.rs).
        assert_eq!(system.to_bytes().as_slice(), &bytes[..0x20], "{name}");
        assert_eq!(system.marker(), 0xC002_0002, "{name}");
        assert_eq!(system.header_type, HeaderType::SYSTEM64, "{name}");
        assert_eq!(system.hook_id, SystemTraceHeader::WMI_LOG_TYPE_HEADER);
        assert_eq!(usize::from(system.size), bytes.len(), "{name}");

        // The logfile header: every member and union view dissect.etl names.
        let logfile = &event["logfile_header"];
        assert_eq!(logfile["layout"], "logfile-header64", "{name}");
        let expected = &logfile["fields"];
        let TraceLogfileHeader::Bits64(header64) = header else {
            panic!("{name}: expected the 64-bit layout");
        };
        let struct_bytes = &bytes[0x20..0x20 + TraceLogfileHeader64::LEN];
        assert_eq!(header64.to_bytes().as_slice(), struct_bytes, "{name}");
        assert_eq!(
            hex(logfile["padding"].as_str().unwrap()),
            header64.padding,
            "{name}: padding"
        );

        assert_eq!(header.pointer_size(), 8, "{name}");
        assert_eq!(
            header.reserved_flags(),
            ClockType::QUERY_PERFORMANCE_COUNTER
        );
        assert_eq!(header.perf_freq(), 10_000_000, "{name}");
        assert_eq!(header.timer_resolution(), 156_250, "{name}");
        assert_eq!(
            u64::from(header.buffers_written()),
            expected["buffers_written"].as_u64().unwrap()
        );

        // The names after the struct, as dissect.etl read them.
        assert!(names.terminated, "{name}");
        assert!(names.rest.is_empty(), "{name}");
        assert_eq!(
            names.logger_name.to_string(),
            event["names"]["logger_name"].as_str().unwrap(),
            "{name}"
        );
        assert_eq!(
            names.log_file_name.to_string(),
            event["names"]["log_file_name"].as_str().unwrap(),
            "{name}"
        );
        let names_len = 2 * (names.logger_name.len() + names.log_file_name.len() + 2);
        assert_eq!(
            names_len as u64,
            event["names"]["bytes"].as_u64().unwrap(),
            "{name}"
        );
        assert_eq!(bytes.len(), 0x20 + TraceLogfileHeader64::LEN + names_len);
    }
}

/// One real logfile header field by field with the typed API (`SelfDescribingSingleEvent.etl`).
#[test]
fn one_real_logfile_header_field_by_field() {
    let file = load("perfview-logfile-headers.json");
    let event = &file["events"][0];
    assert_eq!(event["file"], "SelfDescribingSingleEvent.etl");
    let bytes = hex(event["hex"].as_str().unwrap());
    let (_, header, names, _) = TraceLogfileHeader::parse_event(&bytes).unwrap();
    let header: TraceLogfileHeader64 = match header {
        TraceLogfileHeader::Bits64(header) => header,
        TraceLogfileHeader::Bits32(_) => panic!("expected the 64-bit layout"),
    };
    assert_eq!(header.buffer_size, 0x1_0000);
    assert_eq!(header.version.roll_up(), 0x0002_000A);
    assert_eq!(header.provider_version, 22000);
    assert_eq!(header.number_of_processors, 12);
    assert_eq!(header.end_time, 0x01d8_54fd_69d1_bdd9);
    assert_eq!(header.maximum_file_size, 800);
    assert_eq!(header.log_file_mode, 0x0401_0001);
    assert_eq!(header.buffers_written, 3);
    assert_eq!(header.log_instance.start_buffers(), 1);
    assert_eq!(header.log_instance.events_lost(), 0);
    assert_eq!(header.log_instance.cpu_speed_in_mhz(), 3192);
    assert_eq!((header.logger_name, header.log_file_name), (0, 0));
    assert_eq!(header.time_zone.bias, 480);
    assert!(header.time_zone.standard_name_str() == "@tzres.dll,-212");
    assert_eq!(header.time_zone.daylight_bias, -60);
    assert_eq!(header.boot_time, 0x01d8_4f1d_66d0_4240);
    assert_eq!(header.start_time, 0x01d8_54fd_67d2_4603);
    assert_eq!(header.buffers_lost, 0);
    assert!(names.logger_name == "Relogger");
    assert!(names.log_file_name == "[multiple files]");
}
