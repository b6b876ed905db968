//! `MetaData/EventInfo` and `MetaData/EventMapInfo` events (a `TRACE_EVENT_INFO`, a provider
//! GUID and an `EVENT_MAP_INFO`, as TDH returns them) of the merged traces net.4.5.2.x64.etl
//! and net.4.5.2.x86.etl, read in place; then the events they describe, decoded with them.
//!
//! Expected values come from PerfView's own test baselines (`net.4.5.2.x64.baseline.txt` and
//! `net.4.5.2.x86.baseline.txt` in microsoft/perfview's TraceEvent tests, which print the
//! counts of each event and sample events with their fields as TraceEvent decodes them) and
//! from the bytes as PAYLOADS.md §4 reads them by hand.

mod common;

use std::collections::HashMap;
use std::sync::OnceLock;

use common::trace;
use etw_classic::payload::{
    Count, DecodingSource, EventInfo, EventMapInfo, FieldSchema, InType, ItemKind, Length,
    MapFlags, MapInput, OutType, PayloadDecoder, PropertyFlags, PropertyType, TemplateFlags,
    Utf16Name, Value, EVENT_INFO_TYPE, EVENT_MAP_INFO_TYPE, METADATA_GUID,
};
use etw_classic::wire::Guid;
use etw_classic::{Bitness, EtlFile, EventKind};

/// A `MetaData` event: where it is, its class type, its data.
struct Meta {
    buffer: usize,
    offset: usize,
    class_type: u8,
    data: Vec<u8>,
}

/// An `EVENT_HEADER` event: its provider and descriptor, its user data and pointer size.
struct Described {
    provider: Guid,
    id: u16,
    version: u8,
    data: Vec<u8>,
    bitness: Bitness,
}

/// Every `MetaData` event and every `EVENT_HEADER` event of trace `name`, in file order; each
/// trace is walked once for all the tests.
fn walk(name: &str) -> Option<&'static (Vec<Meta>, Vec<Described>)> {
    static X64: OnceLock<Option<(Vec<Meta>, Vec<Described>)>> = OnceLock::new();
    static X86: OnceLock<Option<(Vec<Meta>, Vec<Described>)>> = OnceLock::new();
    let cell = match name {
        "net.4.5.2.x64.etl" => &X64,
        "net.4.5.2.x86.etl" => &X86,
        other => panic!("no cache for {other}"),
    };
    cell.get_or_init(|| walk_once(name)).as_ref()
}

fn walk_once(name: &str) -> Option<(Vec<Meta>, Vec<Described>)> {
    let bytes = trace(name)?;
    let file = EtlFile::parse(&bytes).unwrap();
    let mut scratch = vec![0u8; file.buffer_size()];
    let mut metas = Vec::new();
    let mut described = Vec::new();
    for buffer in file.buffers() {
        let buffer = buffer.unwrap();
        let index = buffer.index;
        let events = buffer.trace_buffer(&mut scratch).unwrap();
        for event in events.events() {
            let event = event.unwrap();
            match event.kind() {
                EventKind::Full { header, data } if header.guid.guid() == METADATA_GUID => {
                    metas.push(Meta {
                        buffer: index,
                        offset: event.offset,
                        class_type: header.class.event_type.0,
                        data: data.to_vec(),
                    });
                }
                EventKind::EventHeader { header, body } => {
                    let (_, data) = body.split().unwrap();
                    // The header type says the logger's pointer size (EVENT-HEADERS.md §1: 0x12
                    // EVENT_HEADER32, 0x13 EVENT_HEADER64); the header's flags do not, on disk.
                    let bitness = event.header_type.bitness().unwrap();
                    described.push(Described {
                        provider: header.provider_id,
                        id: header.event_descriptor.id,
                        version: header.event_descriptor.version,
                        data: data.to_vec(),
                        bitness,
                    });
                }
                _ => {}
            }
        }
    }
    Some((metas, described))
}

/// Fields by (provider, id, version), with a label (see [`schemas_of`]).
type Schemas<'a> = HashMap<(Guid, u16, u8), (String, Vec<FieldSchema<Utf16Name<'a>>>)>;

fn guid(text: &str) -> Guid {
    Guid::parse_str(text).unwrap()
}

const DNS_CLIENT: &str = "1c95126e-7eea-49a9-a3fe-a378b03ddb4d";
const KERNEL_EVENT_TRACING: &str = "b675ec37-bdb6-4648-bc92-f3fdc74d3ca2";

/// Room for the fields of every event of the traces (the most, `GCHeapStats` and
/// `ProcessStop`, have 15).
const CAPACITY: usize = 64;

fn empty_fields<'a>() -> [FieldSchema<Utf16Name<'a>>; CAPACITY] {
    [FieldSchema::new(Utf16Name::EMPTY, InType::NULL); CAPACITY]
}

/// PerfView's baselines count 61 `KernelTraceControl/MetaData/EventInfo` and 24 (x64) or 25
/// (x86) `KernelTraceControl/MetaData/EventMapInfo` events; each is read whole: every name,
/// every property, the fields, every map entry.
#[test]
fn every_event_info_and_map_info_reads() {
    for (name, infos, maps) in [("net.4.5.2.x64.etl", 61, 24), ("net.4.5.2.x86.etl", 61, 25)] {
        let Some((metas, _)) = walk(name) else {
            return;
        };
        let mut counts = (0, 0);
        for meta in metas {
            let place = format!("{name} buffer {} offset {}", meta.buffer, meta.offset);
            match meta.class_type {
                EVENT_INFO_TYPE => {
                    counts.0 += 1;
                    let info =
                        EventInfo::parse(&meta.data).unwrap_or_else(|e| panic!("{place}: {e}"));
                    assert!(info.provider_name.is_some(), "{place}");
                    assert_eq!(info.decoding_source, DecodingSource::XML_FILE, "{place}");
                    for property in info.properties() {
                        property.unwrap_or_else(|e| panic!("{place}: {e}"));
                    }
                    let _ = info.keyword_names().count();
                    let mut buffer = empty_fields();
                    let fields = info
                        .collect_fields(&mut buffer)
                        .unwrap_or_else(|e| panic!("{place}: {e}"));
                    assert_eq!(fields.len(), info.property_count as usize, "{place}");
                }
                EVENT_MAP_INFO_TYPE => {
                    counts.1 += 1;
                    let map =
                        EventMapInfo::parse(&meta.data).unwrap_or_else(|e| panic!("{place}: {e}"));
                    assert!(map.name.is_some(), "{place}");
                    assert_eq!(map.entries().count(), map.entry_count as usize, "{place}");
                    for entry in map.entries() {
                        let entry = entry.unwrap_or_else(|e| panic!("{place}: {e}"));
                        assert!(matches!(entry.input, MapInput::Value(_)), "{place}");
                        assert!(entry.output.chars().last() == Some(' '), "{place}");
                    }
                }
                other => panic!("{place}: class type {other}"),
            }
        }
        assert_eq!(counts, (infos, maps), "{name}");
    }
}

/// The `TRACE_EVENT_INFO` of PAYLOADS.md §4 (net.4.5.2.x64, buffer 18 offset 51000), member by
/// member, and the `EventMapInfo` after it.
#[test]
fn dns_client_event_info_field_by_field() {
    let Some((metas, _)) = walk("net.4.5.2.x64.etl") else {
        return;
    };
    let at = metas
        .iter()
        .position(|meta| (meta.buffer, meta.offset) == (18, 51000))
        .expect("the EventInfo at buffer 18 offset 51000");
    let meta = &metas[at];
    assert_eq!(meta.class_type, EVENT_INFO_TYPE);
    let info = EventInfo::parse(&meta.data).unwrap();
    assert_eq!(info.provider_guid, guid(DNS_CLIENT));
    assert!(info.event_guid.is_nil());
    let d = info.descriptor;
    assert_eq!(
        (d.id, d.version, d.channel, d.level.0, d.opcode, d.task, d.keyword),
        (1001, 0, 16, 4, 0, 1001, 0x8000_0000_0000_0000)
    );
    assert_eq!(info.decoding_source, DecodingSource::XML_FILE);
    assert!(!info.is_classic());
    assert!(info.provider_name.unwrap() == "Microsoft-Windows-DNS-Client");
    assert!(info.task_name.unwrap() == "DnsServerForInterface");
    assert!(info.opcode_name.unwrap() == "win:Info");
    assert!(info.level_name.unwrap() == "win:Informational");
    assert!(info.channel_name.unwrap() == "Microsoft-Windows-DNS-Client/Operational");
    assert_eq!(info.keyword_names().count(), 0);
    assert!(info
        .event_message
        .unwrap()
        .to_string()
        .starts_with("Interface: %1"));
    assert!(info.provider_message.is_some());
    assert!(info.event_name().is_none() && info.activity_id_name().is_none());
    assert_eq!(info.binary_xml.len(), 756);
    assert_eq!((info.property_count, info.top_level_property_count), (6, 6));
    assert_eq!(info.flags, TemplateFlags::EVENT_DATA);
    assert_eq!(info.tags(), 0);

    // The six EVENT_PROPERTY_INFO from byte 112.
    let properties: Vec<_> = info.properties().map(Result::unwrap).collect();
    let described: Vec<(String, u16, u16, Option<String>)> = properties
        .iter()
        .map(|property| match property.kind {
            PropertyType::Value {
                in_type,
                out_type,
                map_name,
            } => (
                property.name.to_string(),
                in_type.0,
                out_type.0,
                map_name.map(|map| map.to_string()),
            ),
            other => panic!("{other:?}"),
        })
        .collect();
    let expected = [
        ("Interface", 1, 1, None),
        ("TotalServerCount", 8, 8, None),
        ("Index", 8, 8, None),
        ("DynamicAddress", 4, 4, Some("DnsIpTypeMap")),
        ("AddressLength", 8, 8, None),
        ("Address", 14, 25, None),
    ];
    for (actual, (name, in_type, out_type, map)) in described.iter().zip(expected) {
        assert_eq!(
            actual,
            &(name.to_owned(), in_type, out_type, map.map(str::to_owned))
        );
    }
    let address = &properties[5];
    assert_eq!(address.flags, PropertyFlags::PARAM_LENGTH);
    assert_eq!((address.count, address.length), (1, 4));

    // As fields: Address takes its length from AddressLength, field 4.
    let mut buffer = empty_fields();
    let fields = info.collect_fields(&mut buffer).unwrap();
    assert_eq!(fields.len(), 6);
    assert_eq!(fields[5].in_type, InType::BINARY);
    assert_eq!(fields[5].out_type, OutType::SOCKET_ADDRESS);
    assert_eq!(fields[5].length, Length::FromField(4));
    assert_eq!(fields[0].length, Length::Natural);
    assert!(fields[3].map.unwrap() == "DnsIpTypeMap");
    assert!(fields.iter().all(|field| field.count == Count::One));

    // The EventMapInfo right after it: DnsIpTypeMap, a manifest value map of two entries.
    let meta = &metas[at + 1];
    assert_eq!((meta.buffer, meta.offset), (18, 52680));
    assert_eq!(meta.class_type, EVENT_MAP_INFO_TYPE);
    let map = EventMapInfo::parse(&meta.data).unwrap();
    assert_eq!(map.provider_guid, guid(DNS_CLIENT));
    assert!(map.name.unwrap() == "DnsIpTypeMap");
    assert_eq!(map.flags, MapFlags::MANIFEST_VALUEMAP);
    assert_eq!(map.entry_count, 2);
    assert!(!map.inputs_are_text());
    let entries: Vec<(MapInput<'_>, String)> = map
        .entries()
        .map(|entry| {
            let entry = entry.unwrap();
            (entry.input, entry.output.to_string())
        })
        .collect();
    assert_eq!(
        entries,
        [
            (MapInput::Value(0), "static ".to_owned()),
            (MapInput::Value(1), "dynamic ".to_owned())
        ]
    );
}

/// The `Microsoft-Windows-Kernel-EventTracing` `ETW_TASK_PROVIDER`/`ETW_OPCODE_ENABLE`
/// description: `ProviderName` (a GUID shown as a GUID) and `SessionName`, the fields the
/// baseline prints for those events.
#[test]
fn kernel_event_tracing_enable_event_info() {
    let Some((metas, _)) = walk("net.4.5.2.x64.etl") else {
        return;
    };
    let infos: Vec<EventInfo<'_>> = metas
        .iter()
        .filter(|meta| meta.class_type == EVENT_INFO_TYPE)
        .map(|meta| EventInfo::parse(&meta.data).unwrap())
        .filter(|info| {
            info.provider_guid == guid(KERNEL_EVENT_TRACING)
                && info
                    .opcode_name
                    .is_some_and(|name| name == "ETW_OPCODE_ENABLE")
        })
        .collect();
    assert_eq!(infos.len(), 1);
    let info = infos[0];
    assert!(info.provider_name.unwrap() == "Microsoft-Windows-Kernel-EventTracing");
    assert!(info.task_name.unwrap() == "ETW_TASK_PROVIDER");
    let keywords: Vec<String> = info.keyword_names().map(|k| k.to_string()).collect();
    assert_eq!(keywords, ["ETW_KEYWORD_PROVIDER"]);
    let mut buffer = empty_fields();
    let fields = info.collect_fields(&mut buffer).unwrap();
    let described: Vec<(String, InType, OutType)> = fields
        .iter()
        .map(|field| (field.name.to_string(), field.in_type, field.out_type))
        .collect();
    assert_eq!(
        described,
        [
            ("ProviderName".to_owned(), InType::GUID, OutType::GUID),
            (
                "SessionName".to_owned(),
                InType::UNICODE_STRING,
                OutType::STRING
            ),
        ]
    );
}

/// Structures: `GCBulkSurvivingObjectRanges` (x64) has a `Values` property that is a
/// structure of two members (properties 4 and 5) counted by property 1; `BulkType`'s
/// structure holds an array counted by a member of the structure.
#[test]
fn structures_come_out_in_preorder_with_counts_as_field_indexes() {
    let Some((metas, _)) = walk("net.4.5.2.x64.etl") else {
        return;
    };
    let infos: Vec<EventInfo<'_>> = metas
        .iter()
        .filter(|meta| meta.class_type == EVENT_INFO_TYPE)
        .map(|meta| EventInfo::parse(&meta.data).unwrap())
        .collect();
    let find = |opcode: &str| {
        *infos
            .iter()
            .find(|info| info.opcode_name.is_some_and(|name| name == opcode))
            .unwrap()
    };
    let surviving = find("GCBulkSurvivingObjectRanges");
    let values = surviving.property(3).unwrap();
    assert_eq!(
        values.flags,
        PropertyFlags::STRUCT | PropertyFlags::PARAM_COUNT
    );
    assert_eq!(
        values.kind,
        PropertyType::Struct {
            start_index: 4,
            members: 2
        }
    );
    let mut buffer = empty_fields();
    let fields = surviving.collect_fields(&mut buffer).unwrap();
    assert_eq!(fields.len(), 6);
    assert!(fields[3].name == "Values" && fields[3].is_struct());
    assert_eq!(
        (fields[3].members, fields[3].count),
        (2, Count::FromField(1))
    );
    assert!(fields[1].name == "Count");

    let bulk_type = find("BulkType");
    let mut buffer = empty_fields();
    let fields = bulk_type.collect_fields(&mut buffer).unwrap();
    let names: Vec<String> = fields.iter().map(|field| field.name.to_string()).collect();
    assert_eq!(names[..3], ["Count", "ClrInstanceID", "Values"]);
    assert_eq!(
        (fields[2].members, fields[2].count),
        (8, Count::FromField(0))
    );
    assert!(fields[10].name == "TypeParameters");
    assert_eq!(fields[10].count, Count::FromField(9));
    assert_eq!(fields[10].out_type, OutType::HEX_INT64);
}

/// One decoded event: (field name, value) of each value item, and the bytes left over.
fn decode<'d>(
    fields: &[FieldSchema<Utf16Name<'_>>],
    event: &'d Described,
) -> (Vec<(String, Value<'d>)>, usize) {
    let mut decoder = PayloadDecoder::new(fields, &event.data, event.bitness);
    let mut values = Vec::new();
    for item in decoder.by_ref() {
        let item = item.unwrap_or_else(|e| panic!("{}", e.named(fields)));
        if let ItemKind::Value(value) = item.kind {
            values.push((item.field.name.to_string(), value));
        }
    }
    assert!(!decoder.failed());
    (values, decoder.rest().len())
}

/// The fields of every EventInfo of a trace by (provider, id, version), with a label: the
/// opcode's name, or the task's when the opcode is a `win:` one (TraceEvent's convention, in
/// which the CLR's names differ from the EventInfo's).
fn schemas_of(metas: &[Meta]) -> Schemas<'_> {
    let mut schemas = HashMap::new();
    for meta in metas
        .iter()
        .filter(|meta| meta.class_type == EVENT_INFO_TYPE)
    {
        let info = EventInfo::parse(&meta.data).unwrap();
        let mut buffer = empty_fields();
        let fields = info.collect_fields(&mut buffer).unwrap().to_vec();
        let key = (
            info.provider_guid,
            info.descriptor.id,
            info.descriptor.version,
        );
        let opcode = info.opcode_name.map(|n| n.to_string()).unwrap_or_default();
        let task = info.task_name.map(|n| n.to_string()).unwrap_or_default();
        let label = if opcode.starts_with("win:") {
            task
        } else {
            opcode
        };
        schemas.insert(key, (label, fields));
    }
    schemas
}

/// Every `EVENT_HEADER` event that one of the trace's EventInfos describes (same provider, id
/// and version) decodes with its fields without an error and without a byte left over; as
/// many of them as PerfView's baseline counts for events TraceEvent names alike (its CLR
/// names come from its own parser: `GC/AllocationTick` is the EventInfo's
/// `GCAllocationTick`).
#[test]
fn every_described_event_decodes_exactly() {
    // (trace, [(label, baseline COUNT)]): the COUNT lines of the baselines.
    let baselines: [(&str, &[(&str, usize)]); 2] = [
        (
            "net.4.5.2.x64.etl",
            &[
                ("DnsServerForInterface", 4),
                ("ETW_OPCODE_ENABLE", 15),
                ("ETW_OPCODE_REGISTER", 31),
                ("ETW_OPCODE_UNREGISTER", 31),
                ("Create", 562),
                ("ProcessStart", 1),
                ("ProcessStop", 1),
                // ImmersiveShellAppManagerOnShellHookMessage/Start and /Stop: 2 each
                ("ImmersiveShellAppManagerOnShellHookMessage", 4),
                ("GCAllocationTick", 10382),
                ("GCGenerationRange", 2112),
                ("GCHeapStats", 264),
                // GC/Start (528: versions 1 and 2 of each) and GC/Stop (264)
                ("GarbageCollection", 792),
                ("MethodJittingStarted", 290),
                ("MethodLoadVerbose", 290),
                ("MethodUnloadVerbose", 288),
                ("BulkType", 54),
                ("AssemblyDCEnd", 27),
                ("DomainModuleDCEnd", 26),
                ("ModuleDCEnd", 27),
            ],
        ),
        (
            "net.4.5.2.x86.etl",
            &[
                ("DnsServerForInterface", 4),
                ("ETW_OPCODE_ENABLE", 15),
                ("ETW_OPCODE_REGISTER", 38),
                ("ETW_OPCODE_UNREGISTER", 32),
                ("Create", 968),
                ("ProcessStart", 1),
                ("ProcessStop", 1),
                ("ImmersiveShellAppManagerOnShellHookMessage", 8),
                ("ImmersiveShellAppManagerSetActiveProcess", 6),
                ("GCAllocationTick", 3196),
                ("GCGenerationRange", 640),
                ("GCHeapStats", 80),
                ("GarbageCollection", 240),
                // Contention/Start and /Stop: 16 each
                ("Contention", 32),
                ("MethodJittingStarted", 395),
                ("MethodUnloadVerbose", 271),
                ("BulkType", 5),
                ("AssemblyDCEnd", 18),
                ("DomainModuleDCEnd", 17),
                ("ModuleDCEnd", 18),
            ],
        ),
    ];
    for (name, expected) in baselines {
        let Some((metas, described)) = walk(name) else {
            return;
        };
        let schemas = schemas_of(metas);
        let mut decoded: HashMap<String, usize> = HashMap::new();
        for event in described {
            let Some((label, fields)) = schemas.get(&(event.provider, event.id, event.version))
            else {
                continue;
            };
            let (values, left) = decode(fields, event);
            if label == "CLRStackWalk" {
                // ClrEtwAll.man declares `<data name="Stack" count="2" inType="win:Pointer"/>`
                // after `FrameCount`, and TDH says the same (a fixed count of 2); the runtime
                // writes FrameCount pointers. What is left is exactly the frames past two.
                let frames = values
                    .iter()
                    .find(|(field, _)| field == "FrameCount")
                    .and_then(|(_, value)| value.as_u64())
                    .unwrap() as usize;
                let pointer = if event.bitness == Bitness::Bits32 {
                    4
                } else {
                    8
                };
                assert_eq!(left, frames.saturating_sub(2) * pointer, "{name}: {label}");
            } else {
                assert_eq!(left, 0, "{name}: {label}: bytes left over");
            }
            *decoded.entry(label.clone()).or_default() += 1;
        }
        let total: usize = decoded.values().sum();
        eprintln!("{name}: {total} events decoded with EventInfo: {decoded:?}");
        for (label, count) in expected {
            assert_eq!(
                decoded.get(*label).copied().unwrap_or(0),
                *count,
                "{name}: {label}"
            );
        }
    }
}

/// The decoded events of `label` in trace `name`, each as (field name, value).
fn decoded_events<'d>(
    schemas: &Schemas<'_>,
    described: &'d [Described],
    label: &str,
) -> Vec<Vec<(String, Value<'d>)>> {
    described
        .iter()
        .filter_map(|event| {
            let (found, fields) = schemas.get(&(event.provider, event.id, event.version))?;
            (found == label).then(|| decode(fields, event).0)
        })
        .collect()
}

fn field<'d>(values: &[(String, Value<'d>)], name: &str) -> Value<'d> {
    values
        .iter()
        .find(|(field, _)| field == name)
        .map(|(_, value)| *value)
        .unwrap_or_else(|| panic!("no field {name} in {values:?}"))
}

fn text(value: Value<'_>) -> String {
    match value {
        Value::Utf16(text) => text.to_string(),
        other => panic!("not UTF-16 text: {other:?}"),
    }
}

/// The four `DnsServerForInterface` events of each trace, as the baselines print them:
/// `Interface=Ethernet; TotalServerCount=4; Index=1..4; DynamicAddress=dynamic` (value 1 of
/// `DnsIpTypeMap`), and `Address` a SOCKADDR: `[2001:4898::1050:105...` and
/// `[2001:4898::1050:505...` (IPv6), `10.50.10.50:0` and `10.50.50.50:0` (IPv4), its length
/// from `AddressLength` (DataLen 59 and 47: 31 bytes before it).
#[test]
fn dns_client_events_decode_as_the_baseline_prints_them() {
    for name in ["net.4.5.2.x64.etl", "net.4.5.2.x86.etl"] {
        let Some((metas, described)) = walk(name) else {
            return;
        };
        let schemas = schemas_of(metas);
        let events = decoded_events(&schemas, described, "DnsServerForInterface");
        assert_eq!(events.len(), 4, "{name}");
        for (index, values) in events.iter().enumerate() {
            assert_eq!(text(field(values, "Interface")), "Ethernet");
            assert_eq!(field(values, "TotalServerCount"), Value::U32(4));
            assert_eq!(field(values, "Index"), Value::U32(index as u32 + 1));
            assert_eq!(field(values, "DynamicAddress"), Value::U8(1));
            let Value::Binary(address) = field(values, "Address") else {
                panic!("Address is binary");
            };
            assert_eq!(
                field(values, "AddressLength"),
                Value::U32(address.len() as u32)
            );
            match index {
                // SOCKADDR_IN6: family 23 (AF_INET6), port 0, flow info, then the address.
                0 | 1 => {
                    assert_eq!(address.len(), 28);
                    assert_eq!(address[..4], [23, 0, 0, 0]);
                    let groups: Vec<u16> = address[8..24]
                        .chunks(2)
                        .map(|pair| u16::from_be_bytes([pair[0], pair[1]]))
                        .collect();
                    assert_eq!(groups[..2], [0x2001, 0x4898]);
                    assert_eq!(groups[6], 0x1050);
                    let seventh = format!("{:x}", groups[7]);
                    assert!(seventh.starts_with(["105", "505"][index]), "{seventh}");
                }
                // SOCKADDR_IN: family 2 (AF_INET), port 0, then the address.
                _ => {
                    assert_eq!(address.len(), 16);
                    assert_eq!(address[..4], [2, 0, 0, 0]);
                    let ip = [[10, 50, 10, 50], [10, 50, 50, 50]][index - 2];
                    assert_eq!(address[4..8], ip);
                }
            }
        }
    }
}

/// `GC/AllocationTick` as the baselines print one event of each trace, the CLR's own
/// `TypeName` text included; a 32-bit process, so `Address` is a 4-byte pointer.
#[test]
fn allocation_tick_decodes_as_the_baseline_prints_it() {
    // (trace, AllocationAmount, TypeID, Address): x64 at 346.933 ms, x86 at 1,552.909 ms.
    for (name, amount, type_id, address) in [
        ("net.4.5.2.x64.etl", 107_620, 0x08c3_d188, 0x1118_b854),
        ("net.4.5.2.x86.etl", 103_468, 0x08f5_2600, 0x03c9_abe8),
    ] {
        let Some((metas, described)) = walk(name) else {
            return;
        };
        let schemas = schemas_of(metas);
        let events = decoded_events(&schemas, described, "GCAllocationTick");
        let values = events
            .iter()
            .find(|values| field(values, "TypeID") == Value::Pointer(type_id))
            .unwrap_or_else(|| panic!("{name}: no AllocationTick of TypeID {type_id:#x}"));
        // AllocationAmount=...; AllocationKind=Small; ClrInstanceID=11; AllocationAmount64=...;
        // TypeID=...; TypeName=System.Windows.Media...; HeapIndex=0; Address=...
        assert_eq!(field(values, "AllocationAmount"), Value::U32(amount));
        assert_eq!(field(values, "AllocationKind"), Value::U32(0));
        assert_eq!(field(values, "ClrInstanceID"), Value::U16(11));
        assert_eq!(
            field(values, "AllocationAmount64"),
            Value::U64(u64::from(amount))
        );
        assert!(text(field(values, "TypeName")).starts_with("System.Windows.Media"));
        assert_eq!(field(values, "HeapIndex"), Value::U32(0));
        assert_eq!(field(values, "Address"), Value::Pointer(address));
        let names: Vec<&str> = values.iter().map(|(name, _)| name.as_str()).collect();
        assert_eq!(
            names,
            [
                "AllocationAmount",
                "AllocationKind",
                "ClrInstanceID",
                "AllocationAmount64",
                "TypeID",
                "TypeName",
                "HeapIndex",
                "Address"
            ]
        );
    }
}

/// More events of net.4.5.2.x64 as its baseline prints them: `Method/LoadVerbose` (a 64-bit
/// process), `GC/Start` in both versions, `Kernel-Process/ProcessStart/Start` and
/// `Kernel-File/Create`.
#[test]
fn more_x64_events_decode_as_the_baseline_prints_them() {
    let Some((metas, described)) = walk("net.4.5.2.x64.etl") else {
        return;
    };
    let schemas = schemas_of(metas);

    // MethodID=8,767,616,885,296; ModuleID=8,767,614,955,552; MethodStartAddress=0x7f95eb10090;
    // MethodSize=633; MethodToken=100,665,049; MethodFlags=Jitted; MethodNamespace=
    // System.AppDomain; MethodName=SetupDomain; MethodSignature=instance void  (bool...;
    // ClrInstanceID=9
    let loads = decoded_events(&schemas, described, "MethodLoadVerbose");
    let load = loads
        .iter()
        .find(|values| field(values, "MethodID") == Value::U64(8_767_616_885_296))
        .unwrap();
    assert_eq!(field(load, "ModuleID"), Value::U64(8_767_614_955_552));
    assert_eq!(
        field(load, "MethodStartAddress"),
        Value::U64(0x7f9_5eb1_0090)
    );
    assert_eq!(field(load, "MethodSize"), Value::U32(633));
    assert_eq!(field(load, "MethodToken"), Value::U32(100_665_049));
    assert_eq!(field(load, "MethodFlags"), Value::U32(8)); // Jitted in MethodFlagsMap
    assert_eq!(text(field(load, "MethodNamespace")), "System.AppDomain");
    assert_eq!(text(field(load, "MethodName")), "SetupDomain");
    assert!(text(field(load, "MethodSignature")).starts_with("instance void  (bool"));
    assert_eq!(field(load, "ClrInstanceID"), Value::U16(9));

    // GC/Start: Count=1; Reason=AllocSmall; Depth=0; Type=NonConcurrentGC; ClrInstanceID=9,
    // twice (DataLen 18: version 1; DataLen 26: version 2 adds ClientSequenceNumber=0).
    let starts = decoded_events(&schemas, described, "GarbageCollection");
    let first: Vec<_> = starts
        .iter()
        .filter(|values| values.iter().any(|(name, _)| name == "Reason"))
        .take(2)
        .collect();
    for values in &first {
        assert_eq!(field(values, "Count"), Value::U32(1));
        assert_eq!(field(values, "Reason"), Value::U32(0));
        assert_eq!(field(values, "Depth"), Value::U32(0));
        assert_eq!(field(values, "Type"), Value::U32(0));
        assert_eq!(field(values, "ClrInstanceID"), Value::U16(9));
    }
    assert_eq!(first[0].len() + 1, first[1].len());
    assert_eq!(field(first[1], "ClientSequenceNumber"), Value::U64(0));

    // ProcessID=3,676; ParentProcessID=3,508; SessionID=1; Flags=0;
    // ImageName=\Device\Mup\clrmain\...
    let starts = decoded_events(&schemas, described, "ProcessStart");
    let [start] = &starts[..] else {
        panic!("one ProcessStart");
    };
    assert_eq!(field(start, "ProcessID"), Value::U32(3676));
    assert_eq!(field(start, "ParentProcessID"), Value::U32(3508));
    assert_eq!(field(start, "SessionID"), Value::U32(1));
    assert_eq!(field(start, "Flags"), Value::U32(0));
    assert!(text(field(start, "ImageName")).starts_with(r"\Device\Mup\clrmain\"));

    // Kernel-File/Create at 169.833 ms: IrpPtr=0xfffffa830393a3e8; FileObject=0xfffffa83004bda90;
    // CreateOptions=2097152; CreateDisposition=OPEN_EXISTING; FileAttributes=0;
    // ShareAccess=ReadWrite, Delete; FileName=C:\Windows\SysWOW64\... TraceEvent's own
    // parser names the fields and splits CreateOptions: the manifest's `CreateOptions` holds
    // the disposition in its high byte (1, FILE_OPEN) and the options (0x200000) below it;
    // ShareAccess is FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE = 7; TraceEvent
    // shows the file name with its drive letter for the device.
    let creates = decoded_events(&schemas, described, "Create");
    let create = creates
        .iter()
        .find(|values| field(values, "Irp") == Value::Pointer(0xffff_fa83_0393_a3e8))
        .unwrap();
    assert_eq!(
        field(create, "FileObject"),
        Value::Pointer(0xffff_fa83_004b_da90)
    );
    assert_eq!(
        field(create, "CreateOptions"),
        Value::U32(0x0100_0000 | 2_097_152)
    );
    assert_eq!(field(create, "CreateAttributes"), Value::U32(0));
    assert_eq!(field(create, "ShareAccess"), Value::U32(7));
    let file_name = text(field(create, "FileName"));
    assert!(
        file_name.starts_with(r"\Device\HarddiskVolume"),
        "{file_name}"
    );
    assert!(file_name.contains(r"\Windows\SysWOW64\"), "{file_name}");
}
