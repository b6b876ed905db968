//! The `serde` feature: every owned wire type, decoded from real bytes, goes through JSON and
//! comes back equal, with the Rust member names as its keys.
//!
//! The bytes are the golden vectors of the repository (laid out by the C compiler from
//! mingw-w64's `evntrace.h`, `tests/data/abi-vectors-*.json`; cut from the PerfView traces by
//! dissect.etl, `tests/data/perfview-*.json`) and every event of the PerfView test traces
//! themselves (read as `tests/common/mod.rs` says: a missing trace is skipped, or fails with
//! `ETW_REQUIRE_TRACES=1`).

use std::any::type_name;
use std::collections::BTreeMap;
use std::fmt::Debug;

use etw_classic::{
    wire::{
        filetime_to_unix, EventInstanceInfo32, EventInstanceInfo64, EventTrace32, EventTrace64,
        ExtendedPayload, TraceLogfileHeader32, TraceLogfileHeader64, UtcDateTime,
    },
    Bitness, CompactTraceHeader, EtlFile, EventHeader, EventInstanceGuidHeader,
    EventInstanceHeader, EventInstanceInfo, EventKind, EventTrace, EventTraceHeader, MofField,
    PerfInfoTraceHeader, SystemTraceHeader, TraceLogfileHeader,
};
use serde::{de::DeserializeOwned, Serialize};
use serde_json::{json, Value};

mod common;

/// How many values of each type went through JSON and back.
#[derive(Default)]
struct Covered(BTreeMap<&'static str, usize>);

impl Covered {
    /// How many values of one type go through JSON (the traces hold hundreds of thousands).
    const ENOUGH: usize = 2_000;

    /// `value` to JSON text and back: the same value. Returns the JSON. The values of a type
    /// after its first [`Self::ENOUGH`] are only counted.
    fn round_trip<T>(&mut self, value: &T) -> Value
    where
        T: Serialize + DeserializeOwned + PartialEq + Debug,
    {
        if self
            .0
            .get(short_name::<T>())
            .is_some_and(|count| *count >= Self::ENOUGH)
        {
            return serde_json::to_value(value).unwrap();
        }
        let text = serde_json::to_string(value).unwrap();
        let back: T = serde_json::from_str(&text).unwrap();
        assert_eq!(&back, value, "{} through {text}", type_name::<T>());
        *self.0.entry(short_name::<T>()).or_default() += 1;
        serde_json::from_str(&text).unwrap()
    }

    /// Fails unless every type of `names` went through at least once.
    fn check(&self, names: &[&str]) {
        let missing: Vec<&&str> = names
            .iter()
            .filter(|name| !self.0.contains_key(**name))
            .collect();
        assert!(
            missing.is_empty(),
            "no value of {missing:?}; covered: {:?}",
            self.0
        );
    }

    /// Every member of a decoded header, and the codes and unions inside it.
    fn trace_header(&mut self, header: &EventTraceHeader) {
        self.round_trip(header);
        self.round_trip(&header.header_type);
        self.round_trip(&header.marker_flags);
        self.round_trip(&header.class);
        self.round_trip(&header.class.event_type);
        self.round_trip(&header.class.level);
        self.round_trip(&header.guid);
        self.round_trip(&header.guid.guid());
        self.round_trip(&header.times);
        self.round_trip(&header.times.flags());
        if let Some(family) = header.header_type.family() {
            self.round_trip(&family);
        }
    }

    fn system_header(&mut self, header: &SystemTraceHeader) {
        self.round_trip(header);
        self.round_trip(&header.hook());
        self.round_trip(&header.hook().group());
    }

    fn logfile_header(&mut self, header: &TraceLogfileHeader) {
        self.round_trip(header);
        let time_zone = match header {
            TraceLogfileHeader::Bits32(header32) => {
                self.round_trip(header32);
                self.round_trip(&header32.version);
                self.round_trip(&header32.log_instance);
                self.round_trip(&header32.reserved_flags);
                header32.time_zone
            }
            TraceLogfileHeader::Bits64(header64) => {
                self.round_trip(header64);
                self.round_trip(&header64.version);
                self.round_trip(&header64.log_instance);
                self.round_trip(&header64.reserved_flags);
                header64.time_zone
            }
        };
        self.round_trip(&time_zone);
        self.round_trip(&time_zone.standard_date);
        self.round_trip(&filetime_to_unix(header.start_time()));
        self.round_trip(&UtcDateTime::from_filetime(header.start_time()));
    }
}

/// The last path segment of `T`'s name (`EventTraceHeader`, `Guid`, ...).
fn short_name<T>() -> &'static str {
    let name = type_name::<T>();
    name.rsplit("::").next().unwrap_or(name)
}

fn load(name: &str) -> Value {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

fn hex(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|at| u8::from_str_radix(&text[at..at + 2], 16).unwrap())
        .collect()
}

fn array<const N: usize>(bytes: &[u8]) -> [u8; N] {
    bytes[..N].try_into().unwrap()
}

/// The C compiler's vectors: each layout of both ABIs decoded and through JSON.
#[test]
fn c_abi_vectors_round_trip() {
    let mut covered = Covered::default();
    for abi in ["i686", "x86_64"] {
        let file = load(&format!("abi-vectors-{abi}.json"));
        let bitness = if abi == "i686" {
            Bitness::Bits32
        } else {
            Bitness::Bits64
        };
        covered.round_trip(&bitness);
        for vector in file["vectors"].as_array().unwrap() {
            let bytes = hex(vector["hex"].as_str().unwrap());
            match vector["layout"].as_str().unwrap() {
                "trace-header" => {
                    covered.trace_header(&EventTraceHeader::from_bytes(&array(&bytes)))
                }
                "instance-header" => {
                    covered.round_trip(&EventInstanceHeader::from_bytes(&array(&bytes)));
                }
                "instance-guid-header" => {
                    covered.round_trip(&EventInstanceGuidHeader::from_bytes(&array(&bytes)));
                }
                "event-trace32" => {
                    covered.round_trip(&EventTrace32::from_bytes(&array(&bytes)));
                    let (value, _) = EventTrace::parse(&bytes, bitness).unwrap();
                    covered.round_trip(&value);
                    covered.round_trip(&value.buffer_context());
                }
                "event-trace64" => {
                    covered.round_trip(&EventTrace64::from_bytes(&array(&bytes)));
                    let (value, _) = EventTrace::parse(&bytes, bitness).unwrap();
                    covered.round_trip(&value);
                    covered.round_trip(&value.buffer_context());
                }
                "instance-info32" => {
                    covered.round_trip(&EventInstanceInfo32::from_bytes(&array(&bytes)));
                    let (value, _) = EventInstanceInfo::parse(&bytes, bitness).unwrap();
                    covered.round_trip(&value);
                }
                "instance-info64" => {
                    covered.round_trip(&EventInstanceInfo64::from_bytes(&array(&bytes)));
                    let (value, _) = EventInstanceInfo::parse(&bytes, bitness).unwrap();
                    covered.round_trip(&value);
                }
                "mof-field" => {
                    let field = MofField::from_bytes(&array(&bytes));
                    let json = covered.round_trip(&field);
                    let expected = &vector["fields"];
                    assert_eq!(json["data_ptr"], expected["data_ptr"]);
                    assert_eq!(json["length"], expected["length"]);
                    assert_eq!(json["data_type"], expected["data_type"]);
                }
                "system-header" => {
                    covered.system_header(&SystemTraceHeader::from_bytes(&array(&bytes)))
                }
                "logfile-header32" => {
                    let value = TraceLogfileHeader32::from_bytes(&array(&bytes));
                    covered.logfile_header(&TraceLogfileHeader::Bits32(value));
                }
                "logfile-header64" => {
                    let value = TraceLogfileHeader64::from_bytes(&array(&bytes));
                    covered.logfile_header(&TraceLogfileHeader::Bits64(value));
                }
                other => panic!("a layout this test does not know: {other}"),
            }
        }
    }
    covered.check(&[
        "Bitness",
        "EventTraceHeader",
        "HeaderType",
        "MarkerFlags",
        "Class",
        "EventType",
        "Level",
        "GuidOrPtr",
        "Guid",
        "TimesOrFlags",
        "WnodeFlags",
        "HeaderFamily",
        "EventInstanceHeader",
        "EventInstanceGuidHeader",
        "EventTrace32",
        "EventTrace64",
        "EventTrace",
        "BufferContext",
        "EventInstanceInfo32",
        "EventInstanceInfo64",
        "EventInstanceInfo",
        "MofField",
        "SystemTraceHeader",
        "HookId",
        "EventTraceGroup",
        "TraceLogfileHeader32",
        "TraceLogfileHeader64",
        "TraceLogfileHeader",
        "VersionDetail",
        "LogInstance",
        "TimeZoneInformation",
        "SystemTime",
        "ClockType",
        "UnixTime",
        "UtcDateTime",
    ]);
}

/// A real `FULL_HEADER64` header: its JSON has the Rust member names, with the values
/// dissect.etl decoded.
#[test]
fn real_full_headers_have_the_member_names_and_values() {
    let file = load("perfview-full-headers.json");
    let mut covered = Covered::default();
    for vector in file["vectors"].as_array().unwrap() {
        let name = vector["name"].as_str().unwrap();
        let header = EventTraceHeader::from_bytes(&array(&hex(vector["hex"].as_str().unwrap())));
        let json = covered.round_trip(&header);
        let expected = &vector["fields"];
        let keys: Vec<&str> = json
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            [
                "size",
                "header_type",
                "marker_flags",
                "class",
                "thread_id",
                "process_id",
                "timestamp",
                "guid",
                "times"
            ],
            "{name}"
        );
        for member in [
            "size",
            "header_type",
            "marker_flags",
            "thread_id",
            "process_id",
            "timestamp",
        ] {
            assert_eq!(json[member], expected[member], "{name}: {member}");
        }
        assert_eq!(
            json["class"]["event_type"], expected["class_type"],
            "{name}"
        );
        assert_eq!(json["class"]["level"], expected["class_level"], "{name}");
        assert_eq!(
            json["class"]["version"], expected["class_version"],
            "{name}"
        );
        // Unions are their raw bytes; the GUID is its four members.
        let guid = header.guid.guid();
        assert_eq!(
            guid.to_string(),
            expected["guid"].as_str().unwrap(),
            "{name}"
        );
        assert_eq!(
            covered.round_trip(&guid),
            json!({
                "data1": guid.data1,
                "data2": guid.data2,
                "data3": guid.data3,
                "data4": guid.data4,
            }),
            "{name}"
        );
        assert_eq!(json["guid"].as_array().unwrap().len(), 16, "{name}");
    }
    assert_eq!(covered.0["EventTraceHeader"], 30);
}

/// The logfile header event at the start of each PerfView trace, as dissect.etl cut it out.
#[test]
fn real_logfile_headers_round_trip() {
    let file = load("perfview-logfile-headers.json");
    let mut covered = Covered::default();
    for event in file["events"].as_array().unwrap() {
        let name = event["file"].as_str().unwrap();
        let bytes = hex(event["hex"].as_str().unwrap());
        let (system, header, _names, _rest) = TraceLogfileHeader::parse_event(&bytes).unwrap();
        covered.system_header(&system);
        covered.logfile_header(&header);
        let TraceLogfileHeader::Bits64(header64) = header else {
            panic!("{name}: the 64-bit layout expected");
        };
        let json = covered.round_trip(&header64);
        let expected = &event["logfile_header"]["fields"];
        for member in [
            "buffer_size",
            "provider_version",
            "number_of_processors",
            "end_time",
            "buffers_written",
            "boot_time",
            "perf_freq",
            "start_time",
        ] {
            assert_eq!(json[member], expected[member], "{name}: {member}");
        }
        assert_eq!(
            json["version"]["major_version"], expected["major_version"],
            "{name}"
        );
        assert_eq!(
            json["time_zone"]["bias"], expected["time_zone"]["bias"],
            "{name}"
        );
        let system_json = covered.round_trip(&system);
        let expected = &event["system_header"]["fields"];
        for member in ["version", "header_type", "size", "thread_id", "process_id"] {
            assert_eq!(system_json[member], expected[member], "{name}: {member}");
        }
    }
    assert_eq!(covered.0["TraceLogfileHeader64"], 10);
}

/// Every event of every PerfView trace: each header the walk decodes, the buffer headers, the
/// `EVENT_TRACE`s delivered, and the extended items' fixed layouts.
#[test]
fn every_header_of_the_perfview_traces_round_trips() {
    let mut covered = Covered::default();
    let mut traces = 0;
    for name in [
        "SelfDescribingSingleEvent.etl",
        "gcevents.etl",
        "net.4.5.2.x64.etl",
        "net.4.5.2.x86.etl",
        "primitive-types.etl",
    ] {
        let Some(bytes) = common::trace(name) else {
            continue;
        };
        traces += 1;
        let file = EtlFile::parse(&bytes).unwrap();
        let mut scratch = vec![0u8; file.buffer_size()];
        for buffer in file.buffers() {
            let buffer = buffer.unwrap();
            let trace_buffer = buffer.trace_buffer(&mut scratch).unwrap();
            let json = covered.round_trip(&trace_buffer.header);
            assert_eq!(
                json["buffer_size"], trace_buffer.header.buffer_size,
                "{name}"
            );
            covered.round_trip(&trace_buffer.header.buffer_flag);
            covered.round_trip(&trace_buffer.header.buffer_type);
            covered.round_trip(&trace_buffer.header.client_context);
            for event in trace_buffer.events() {
                match event.unwrap().kind() {
                    EventKind::Full { header, .. } => covered.trace_header(&header),
                    EventKind::Instance { header, .. } => {
                        covered.round_trip(&header);
                    }
                    EventKind::EventHeader { header, body } => {
                        event_header(&mut covered, &header);
                        for item in body.items() {
                            let item = item.unwrap();
                            covered.round_trip(&item.header);
                            covered.round_trip(&item.ext_type());
                            match item.payload().unwrap() {
                                ExtendedPayload::RelatedActivityId(guid) => {
                                    covered.round_trip(&guid);
                                }
                                ExtendedPayload::Instance(instance) => {
                                    covered.round_trip(&instance);
                                }
                                ExtendedPayload::StackKey32(key) => {
                                    covered.round_trip(&key);
                                }
                                ExtendedPayload::StackKey64(key) => {
                                    covered.round_trip(&key);
                                }
                                _ => {}
                            }
                        }
                    }
                    EventKind::System { header, .. } => covered.system_header(&header),
                    EventKind::Compact { header, .. } => {
                        covered.round_trip::<CompactTraceHeader>(&header);
                    }
                    EventKind::PerfInfo { header, .. } => {
                        covered.round_trip::<PerfInfoTraceHeader>(&header);
                    }
                    EventKind::Message { header, fields, .. } => {
                        covered.round_trip(&header);
                        covered.round_trip(&header.option_flags);
                        covered.round_trip(&fields);
                    }
                    _ => {}
                }
            }
            for delivered in trace_buffer.classic_events(file.bitness()) {
                covered.round_trip(&delivered.unwrap().event_trace);
            }
        }
    }
    if traces == 0 {
        return;
    }
    eprintln!(
        "values through JSON (at most {} each): {:?}",
        Covered::ENOUGH,
        covered.0
    );
    // What the five traces hold (their other header types are not in them).
    covered.check(&[
        "WmiBufferHeader",
        "BufferFlags",
        "BufferType",
        "BufferContext",
        "EventTraceHeader",
        "EventHeader",
        "EventHeaderFlags",
        "EventHeaderProperty",
        "EventDescriptor",
        "EventHeaderTimes",
        "EventCpuTime",
        "ExtendedItemHeader",
        "EventHeaderExtType",
        "SystemTraceHeader",
        "HookId",
        "EventTraceGroup",
        "PerfInfoTraceHeader",
        "EventTrace",
    ]);
}

/// The layouts no PerfView trace holds, from bytes laid out by hand after their documented
/// offsets (ntwmi.h's `MESSAGE_TRACE_HEADER` and compact `SYSTEM_TRACE_HEADER`, evntcons.h's
/// extended items), each checked member by member before it goes through JSON.
#[test]
fn layouts_absent_from_the_traces_round_trip() {
    let mut covered = Covered::default();

    // MESSAGE: Size 0x2C, Reserved 0, marker 0x90, MessageNumber 7, OptionFlags SEQUENCE | GUID
    // | TIMESTAMP | SYSTEMINFO (0x2B); then the sequence, the GUID, the time, thread, process.
    let mut event = vec![0x2C, 0x00, 0x00, 0x90, 0x07, 0x00, 0x2B, 0x00];
    event.extend_from_slice(&9u32.to_le_bytes());
    event.extend_from_slice(&[0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88]);
    event.extend_from_slice(&[0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF, 0x00]);
    event.extend_from_slice(&0x0123_4567_89AB_CDEFi64.to_le_bytes());
    event.extend_from_slice(&0x10u32.to_le_bytes());
    event.extend_from_slice(&0x20u32.to_le_bytes());
    assert_eq!(event.len(), 0x2C);
    let (header, data, _) = etw_classic::MessageTraceHeader::parse_event(&event).unwrap();
    let (fields, args) = header.split_fields(data).unwrap();
    assert!(args.is_empty());
    assert_eq!((header.size, header.message_number), (0x2C, 7));
    assert_eq!(fields.sequence, Some(9));
    assert_eq!(fields.timestamp, Some(0x0123_4567_89AB_CDEF));
    let system_info = fields.system_info.unwrap();
    assert_eq!(
        (system_info.thread_id, system_info.process_id),
        (0x10, 0x20)
    );
    let json = covered.round_trip(&header);
    assert_eq!(json["message_number"], 7);
    assert_eq!(json["option_flags"], 0x2B);
    let json = covered.round_trip(&fields);
    assert_eq!(json["sequence"], 9);
    assert_eq!(json["system_info"]["thread_id"], 0x10);
    covered.round_trip(&header.option_flags);
    covered.round_trip(&fields.message_guid.unwrap());
    covered.round_trip(&system_info);

    // COMPACT64: Version 2, HeaderType 0x04, Flags 0xC0, Size 0x18, HookId 0x0A42, ThreadId 5,
    // ProcessId 6, SystemTime 7.
    let mut compact = vec![0x02, 0x00, 0x04, 0xC0, 0x18, 0x00, 0x42, 0x0A];
    compact.extend_from_slice(&5u32.to_le_bytes());
    compact.extend_from_slice(&6u32.to_le_bytes());
    compact.extend_from_slice(&7i64.to_le_bytes());
    let header = CompactTraceHeader::from_bytes(&array(&compact));
    assert_eq!(
        (header.size, header.thread_id, header.process_id),
        (0x18, 5, 6)
    );
    assert_eq!(header.header_type, etw_classic::HeaderType::COMPACT64);
    assert_eq!(header.to_bytes().as_slice(), compact.as_slice());
    let json = covered.round_trip(&header);
    assert_eq!(json["thread_id"], 5);

    // EVENT_EXTENDED_ITEM_INSTANCE: InstanceId 3, ParentInstanceId 2, ParentGuid.
    let mut instance = vec![3, 0, 0, 0, 2, 0, 0, 0];
    instance.extend_from_slice(&[0xD0, 0xA8, 0x6F, 0x3D, 0x05, 0xFE, 0xD0, 0x11]);
    instance.extend_from_slice(&[0x9D, 0xDA, 0x00, 0xC0, 0x4F, 0xD7, 0xBA, 0x7C]);
    let value = etw_classic::wire::ExtendedInstance::from_bytes(&array(&instance));
    assert_eq!(
        value.parent_guid.to_string(),
        "3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c"
    );
    let json = covered.round_trip(&value);
    assert_eq!(json["parent_instance_id"], 2);
    assert_eq!(json["parent_guid"]["data1"], 0x3d6f_a8d0);

    // EVENT_EXTENDED_ITEM_STACK_KEY32 and 64: MatchId, StackKey, Padding.
    let mut key = 0x1122_3344_5566_7788u64.to_le_bytes().to_vec();
    key.extend_from_slice(&0xAABB_CCDDu32.to_le_bytes());
    key.extend_from_slice(&0u32.to_le_bytes());
    let key32 = etw_classic::wire::StackKey32::from_bytes(&array(&key));
    assert_eq!(
        (key32.match_id, key32.stack_key),
        (0x1122_3344_5566_7788, 0xAABB_CCDD)
    );
    assert_eq!(covered.round_trip(&key32)["stack_key"], 0xAABB_CCDDu32);
    let key64 = etw_classic::wire::StackKey64::from_bytes(&array(&key));
    assert_eq!(
        covered.round_trip(&key64)["match_id"],
        0x1122_3344_5566_7788u64
    );

    // The codes no header above carries.
    covered.round_trip(&etw_classic::wire::CompressionFormat::XPRESS);
    covered.round_trip(&etw_classic::wire::ProviderTraitType::GROUP);

    covered.check(&[
        "MessageTraceHeader",
        "MessageFields",
        "TraceMessageFlags",
        "MessageGuid",
        "MessageSystemInfo",
        "CompactTraceHeader",
        "ExtendedInstance",
        "StackKey32",
        "StackKey64",
        "CompressionFormat",
        "ProviderTraitType",
    ]);
}

fn event_header(covered: &mut Covered, header: &EventHeader) {
    let json = covered.round_trip(header);
    assert_eq!(json["provider_id"]["data1"], header.provider_id.data1);
    assert_eq!(json["event_descriptor"]["id"], header.event_descriptor.id);
    covered.round_trip(&header.flags);
    covered.round_trip(&header.event_property);
    covered.round_trip(&header.event_descriptor);
    covered.round_trip(&header.times);
    covered.round_trip(&header.cpu_time());
}
