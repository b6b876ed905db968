//! Instrumentation manifests: the .NET runtime's `ClrEtwAll.man` (read from
//! `../shared/data/schemas`, never copied) and the EventSource manifests that
//! net.4.5.2.x64/x86.etl carry in `ManifestData` events, checked against independent facts:
//! counts taken from the file with `grep -c '<event '` per provider, the field names and values
//! PerfView's own test baselines print for the same events (`net.4.5.2.x64.baseline.txt`,
//! `net.4.5.2.x86.baseline.txt` in microsoft/perfview's TraceEvent tests), and every event of
//! those providers in the traces decoding with no error and no byte left over. Bad manifests
//! give errors at the line that is wrong.

mod shared_files;

use std::collections::BTreeMap;
use std::sync::{Mutex, PoisonError};

use etw_classic::payload::{Count, InType, ItemKind, Length, OutType, PayloadDecoder, Value};
use etw_classic::{Bitness, EtlFile, EventKind, Guid};
use etw_classic_decode::manifest::{
    manifest_text, parse_manifest, parse_manifest_as, parse_manifest_bytes, Manifest,
    ManifestErrorKind,
};
use etw_classic_decode::{EventSchema, MapKind, SchemaSource};

const DOTNET_RUNTIME: &str = "e13c0d23-ccbc-4e12-931b-d9cc2eee27e4";
const DOTNET_RUNDOWN: &str = "a669021c-c450-4609-a035-5af59af4df18";
const DOTNET_PRIVATE: &str = "763fd754-7086-4dfe-95eb-c01a46faf4ca";

fn guid(text: &str) -> Guid {
    Guid::parse_str(text).unwrap()
}

fn clr_manifest() -> Option<Manifest> {
    let text = shared_files::schema_file("ClrEtwAll.man")?;
    Some(parse_manifest(&text, "ClrEtwAll.man").unwrap_or_else(|error| panic!("{error}")))
}

/// One `EVENT_HEADER` event of a trace.
struct Logged {
    provider: Guid,
    id: u16,
    version: u8,
    process: u32,
    data: Vec<u8>,
    bitness: Bitness,
}

/// The `EVENT_HEADER` events of trace `name`, read once for all the tests of this file.
fn header_events(name: &str) -> Option<&'static [Logged]> {
    static READ: Mutex<BTreeMap<String, &'static [Logged]>> = Mutex::new(BTreeMap::new());
    let mut read = READ.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(events) = read.get(name) {
        return Some(events);
    }
    let events: &'static [Logged] = Box::leak(read_header_events(name)?.into_boxed_slice());
    read.insert(name.to_owned(), events);
    Some(events)
}

fn read_header_events(name: &str) -> Option<Vec<Logged>> {
    let bytes = shared_files::trace(name)?;
    let file = EtlFile::parse(&bytes).unwrap();
    let mut scratch = vec![0u8; file.buffer_size()];
    let mut found = Vec::new();
    for buffer in file.buffers() {
        let buffer = buffer.unwrap();
        let events = buffer.trace_buffer(&mut scratch).unwrap();
        for event in events.events() {
            let event = event.unwrap();
            let EventKind::EventHeader { header, body } = event.kind() else {
                continue;
            };
            let (_, data) = body.split().unwrap();
            // The header type (EVENT_HEADER32 or EVENT_HEADER64) gives the writer's pointer
            // size: PerfView (PID 3988) ran as a 32-bit process in the x64 trace.
            let bitness = header.bitness().unwrap_or(Bitness::Bits64);
            found.push(Logged {
                provider: header.provider_id,
                id: header.event_descriptor.id,
                version: header.event_descriptor.version,
                process: header.process_id,
                data: data.to_vec(),
                bitness,
            });
        }
    }
    Some(found)
}

/// The values of an event decoded with `schema`, in order, each with its field's name, and
/// the number of bytes left after the last field; panics when a field does not fit.
fn decode_with_rest<'d>(
    schema: &EventSchema,
    event: &'d Logged,
) -> (Vec<(String, Value<'d>)>, usize) {
    let mut decoder = PayloadDecoder::new(&schema.fields, &event.data, event.bitness);
    let mut values = Vec::new();
    for item in decoder.by_ref() {
        let item = item.unwrap_or_else(|error| {
            panic!(
                "{:?} id {} version {}: {error}",
                schema.display_name(),
                event.id,
                event.version
            )
        });
        if let ItemKind::Value(value) = item.kind {
            values.push((item.field.name.to_string(), value));
        }
    }
    (values, decoder.rest().len())
}

/// [`decode_with_rest`] of an event whose every byte is a field's.
fn decode<'d>(schema: &EventSchema, event: &'d Logged) -> Vec<(String, Value<'d>)> {
    let (values, rest) = decode_with_rest(schema, event);
    assert_eq!(
        rest,
        0,
        "{:?} id {} version {}: bytes after the last field",
        schema.display_name(),
        event.id,
        event.version,
    );
    values
}

fn value<'v, 'd>(values: &'v [(String, Value<'d>)], name: &str) -> &'v Value<'d> {
    values
        .iter()
        .find(|(field, _)| field == name)
        .map(|(_, value)| value)
        .unwrap_or_else(|| panic!("no field {name} in {values:?}"))
}

fn text(value: &Value<'_>) -> String {
    match value {
        Value::Utf16(text) => text.to_string(),
        Value::Ansi(bytes) => String::from_utf8_lossy(bytes).into_owned(),
        other => panic!("{other:?} is not text"),
    }
}

/// The four providers of `ClrEtwAll.man` (PROVENANCE.md of the schemas folder names three of
/// their GUIDs), each with as many events as `grep -c '<event '` counts between its
/// `<provider>` and `</provider>` lines (8-2916, 2920-3756, 3758-3848, 3851-5890).
#[test]
fn clr_manifest_loads_every_provider_and_event() {
    let Some(manifest) = clr_manifest() else {
        return;
    };
    let providers: Vec<(&str, String, usize)> = manifest
        .providers
        .iter()
        .map(|provider| {
            (
                &*provider.name,
                provider.guid.to_string(),
                provider.events.len(),
            )
        })
        .collect();
    assert_eq!(
        providers,
        [
            (
                "Microsoft-Windows-DotNETRuntime",
                DOTNET_RUNTIME.to_owned(),
                155
            ),
            (
                "Microsoft-Windows-DotNETRuntimeRundown",
                DOTNET_RUNDOWN.to_owned(),
                45
            ),
            (
                "Microsoft-Windows-DotNETRuntimeStress",
                "cc2bcbba-16b6-4cf3-8990-d74c2e8af500".to_owned(),
                3
            ),
            (
                "Microsoft-Windows-DotNETRuntimePrivate",
                DOTNET_PRIVATE.to_owned(),
                181
            ),
        ]
    );
    let runtime = manifest.provider(guid(DOTNET_RUNTIME)).unwrap();
    assert_eq!(runtime.line, 8);
    let tick = &runtime.events[&(10, 3)];
    assert_eq!(tick.schema.origin.source, SchemaSource::Manifest);
    assert_eq!(tick.schema.origin.place, "ClrEtwAll.man:2214");
}

/// `GCAllocationTick_V3` (event 10 version 3): the fields PerfView's baseline prints for
/// `Microsoft-Windows-DotNETRuntime/GC/AllocationTick`, in its order (`AllocationAmount=107,620;
/// AllocationKind=Small; ClrInstanceID=11; AllocationAmount64=107,620; TypeID=0x08c3d188;
/// TypeName=...; HeapIndex=0; Address=0x1118b854`), with the template's types; the names TDH
/// writes into the trace's EventInfo for it, the `name` attributes of `ClrEtwAll.man`'s
/// `<task name="GarbageCollection"`, `<opcode name="GCAllocationTick"` and
/// `<keyword name="GCKeyword"`, not their messages (the string table's `GC`,
/// `AllocationTick`, `GC`, the names PerfView's own CLR parser prints).
#[test]
fn gc_allocation_tick_v3_has_perfviews_fields_and_names() {
    let Some(manifest) = clr_manifest() else {
        return;
    };
    let runtime = manifest.provider(guid(DOTNET_RUNTIME)).unwrap();
    let tick = &runtime.events[&(10, 3)];
    let fields: Vec<(&str, InType, OutType, Option<&str>)> = tick
        .schema
        .fields
        .iter()
        .map(|field| {
            (
                &*field.name,
                field.in_type,
                field.out_type,
                field.map.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        fields,
        [
            ("AllocationAmount", InType::UINT32, OutType::HEX_INT32, None),
            (
                "AllocationKind",
                InType::UINT32,
                OutType::NULL,
                Some("GCAllocationKindMap")
            ),
            ("ClrInstanceID", InType::UINT16, OutType::NULL, None),
            (
                "AllocationAmount64",
                InType::UINT64,
                OutType::HEX_INT64,
                None
            ),
            ("TypeID", InType::POINTER, OutType::NULL, None),
            ("TypeName", InType::UNICODE_STRING, OutType::NULL, None),
            ("HeapIndex", InType::UINT32, OutType::NULL, None),
            ("Address", InType::POINTER, OutType::NULL, None),
        ]
    );
    assert!(tick
        .schema
        .fields
        .iter()
        .all(|field| field.count == Count::One && field.length == Length::Natural));
    assert_eq!(
        (tick.id, tick.version, tick.task, tick.opcode),
        (10, 3, 1, 11)
    );
    assert_eq!((tick.level, tick.keywords), (5, 0x1));
    assert_eq!(tick.symbol.as_deref(), Some("GCAllocationTick_V3"));
    let schema = &tick.schema;
    assert_eq!(
        schema.provider_name.as_deref(),
        Some("Microsoft-Windows-DotNETRuntime")
    );
    assert_eq!(schema.task_name.as_deref(), Some("GarbageCollection"));
    assert_eq!(schema.opcode_name.as_deref(), Some("GCAllocationTick"));
    assert_eq!(
        schema.display_name().as_deref(),
        Some("GarbageCollection/GCAllocationTick")
    );
    assert_eq!(schema.level_name.as_deref(), Some("win:Verbose"));
    assert_eq!(
        schema
            .keyword_names
            .iter()
            .map(|name| &**name)
            .collect::<Vec<_>>(),
        ["GCKeyword"]
    );
    assert_eq!(
        tick.message.as_deref(),
        Some(
            "Amount=%1;%nKind=%2;%nClrInstanceID=%3;Amount64=%4;%nTypeID=%5;%nTypeName=%6;%nHeapIndex=%7;%nAddress=%8"
        )
    );
    let kind = schema.map("GCAllocationKindMap").unwrap();
    assert_eq!(kind.kind, MapKind::Value);
    let entries: Vec<(u64, &str)> = kind
        .entries
        .iter()
        .map(|(value, name)| (*value, &**name))
        .collect();
    assert_eq!(entries, [(0, "Small"), (1, "Large")]);
}

/// Each GCAllocationTick version 3 event of net.4.5.2.x64.etl and x86.etl decodes with the
/// manifest's schema, every byte a field's, and the rows PerfView's baselines print are among
/// them: x64 `AllocationAmount=107,620; AllocationKind=Small; ClrInstanceID=11;
/// AllocationAmount64=107,620; TypeID=0x08c3d188; TypeName=System.Windows.Media...;
/// HeapIndex=0; Address=0x1118b854` (PID 3988, DataLen 146); x86 `103,468; Small; 11; 103,468;
/// 0x08f52600; System.Windows.Media...; 0; 0x03c9abe8` (PID 3988, DataLen 94).
#[test]
fn gc_allocation_tick_events_decode_to_the_baseline_rows() {
    let Some(manifest) = clr_manifest() else {
        return;
    };
    let runtime = manifest.provider(guid(DOTNET_RUNTIME)).unwrap();
    let schema = runtime.schema(10, 3).unwrap();
    let rows = [
        (
            "net.4.5.2.x64.etl",
            (146, 107_620, 0x08c3_d188_u64, 0x1118_b854_u64),
        ),
        ("net.4.5.2.x86.etl", (94, 103_468, 0x08f5_2600, 0x03c9_abe8)),
    ];
    for (trace, (len, amount, type_id, address)) in rows {
        let Some(events) = header_events(trace) else {
            return;
        };
        let ticks: Vec<&Logged> = events
            .iter()
            .filter(|event| {
                event.provider == guid(DOTNET_RUNTIME) && (event.id, event.version) == (10, 3)
            })
            .collect();
        assert!(!ticks.is_empty(), "{trace}");
        let mut found = 0;
        for event in ticks {
            let values = decode(schema, event);
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
            if event.process != 3988 || event.data.len() != len {
                continue;
            }
            if *value(&values, "AllocationAmount") != Value::U32(amount) {
                continue;
            }
            found += 1;
            let Value::U32(kind) = *value(&values, "AllocationKind") else {
                panic!("AllocationKind is a UInt32");
            };
            let map = schema.map("GCAllocationKindMap").unwrap();
            assert_eq!(map.describe(u64::from(kind)).as_deref(), Some("Small"));
            assert_eq!(*value(&values, "ClrInstanceID"), Value::U16(11));
            assert_eq!(
                *value(&values, "AllocationAmount64"),
                Value::U64(u64::from(amount))
            );
            assert_eq!(*value(&values, "TypeID"), Value::Pointer(type_id));
            assert!(text(value(&values, "TypeName")).starts_with("System.Windows.Media"));
            assert_eq!(*value(&values, "HeapIndex"), Value::U32(0));
            assert_eq!(*value(&values, "Address"), Value::Pointer(address));
        }
        assert_eq!(found, 1, "{trace}: the baseline's row");
    }
}

/// `BulkType` (event 15): `Count`, `ClrInstanceID`, then `Values`, an array of `Count`
/// structures of eight members, the last of which, `TypeParameters`, is an array counted by
/// the member before it. The baselines' rows: x64 `Count=1; ClrInstanceID=11;
/// TypeID_0=0x08fa4248; TypeName_0=SubtreeFinalizer` (DataLen 69), x86 `Count=1;
/// ClrInstanceID=11; TypeID_0=0x0267ed78; TypeName_0=Microsoft.Win32.Safe...` (DataLen 135).
#[test]
fn bulk_type_is_an_array_of_structures() {
    let Some(manifest) = clr_manifest() else {
        return;
    };
    let runtime = manifest.provider(guid(DOTNET_RUNTIME)).unwrap();
    let schema = runtime.schema(15, 0).unwrap();
    let fields: Vec<(&str, InType, Count, u16)> = schema
        .fields
        .iter()
        .map(|field| (&*field.name, field.in_type, field.count, field.members))
        .collect();
    assert_eq!(
        fields,
        [
            ("Count", InType::UINT32, Count::One, 0),
            ("ClrInstanceID", InType::UINT16, Count::One, 0),
            ("Values", InType::STRUCT, Count::FromField(0), 8),
            ("TypeID", InType::UINT64, Count::One, 0),
            ("ModuleID", InType::UINT64, Count::One, 0),
            ("TypeNameID", InType::UINT32, Count::One, 0),
            ("Flags", InType::UINT32, Count::One, 0),
            ("CorElementType", InType::UINT8, Count::One, 0),
            ("Name", InType::UNICODE_STRING, Count::One, 0),
            ("TypeParameterCount", InType::UINT32, Count::One, 0),
            ("TypeParameters", InType::UINT64, Count::FromField(9), 0),
        ]
    );
    assert_eq!(
        schema.fields[6].map.as_deref(),
        Some("TypeFlagsMap"),
        "Flags"
    );
    assert!(schema.map("TypeFlagsMap").is_some());
    assert_eq!(schema.display_name().as_deref(), Some("Type/BulkType"));

    for (trace, len, type_id, name) in [
        ("net.4.5.2.x64.etl", 69, 0x08fa_4248_u64, "SubtreeFinalizer"),
        (
            "net.4.5.2.x86.etl",
            135,
            0x0267_ed78,
            "Microsoft.Win32.Safe",
        ),
    ] {
        let Some(events) = header_events(trace) else {
            return;
        };
        let mut found = 0;
        for event in events.iter().filter(|event| {
            event.provider == guid(DOTNET_RUNTIME) && (event.id, event.version) == (15, 0)
        }) {
            let values = decode(schema, event);
            if event.data.len() == len && *value(&values, "TypeID") == Value::U64(type_id) {
                found += 1;
                assert_eq!(*value(&values, "Count"), Value::U32(1));
                assert_eq!(*value(&values, "ClrInstanceID"), Value::U16(11));
                assert!(text(value(&values, "Name")).starts_with(name));
            }
        }
        assert!(found >= 1, "{trace}: the baseline's row");
    }
}

/// A bit map: `AppDomainFlagsMap` (Default 0x1, Executable 0x2, Shared 0x4), which names the
/// `AppDomainFlags` of `AppDomainLoad_V1`; PerfView's x64 baseline prints
/// `Loader/AppDomainLoad ... AppDomainFlags=Shared; AppDomainName=SharedDomain;
/// AppDomainIndex=0; ClrInstanceID=9` (PID 3676, DataLen 44). The event is named by the
/// manifest's `name` attributes, `<task name="CLRLoader"` and `<opcode name="AppDomainLoad"`
/// (PerfView's CLR parser prints the task's message, `Loader`).
#[test]
fn app_domain_flags_are_a_bit_map() {
    let Some(manifest) = clr_manifest() else {
        return;
    };
    let runtime = manifest.provider(guid(DOTNET_RUNTIME)).unwrap();
    let schema = runtime.schema(156, 1).unwrap();
    assert_eq!(
        schema.display_name().as_deref(),
        Some("CLRLoader/AppDomainLoad")
    );
    let map = schema.map("AppDomainFlagsMap").unwrap();
    assert_eq!(map.kind, MapKind::Bits);
    let entries: Vec<(u64, &str)> = map
        .entries
        .iter()
        .map(|(value, name)| (*value, &**name))
        .collect();
    assert_eq!(entries, [(1, "Default"), (2, "Executable"), (4, "Shared")]);
    let Some(events) = header_events("net.4.5.2.x64.etl") else {
        return;
    };
    let mut found = 0;
    for event in events.iter().filter(|event| {
        event.provider == guid(DOTNET_RUNTIME) && (event.id, event.version) == (156, 1)
    }) {
        let values = decode(schema, event);
        if event.process == 3676 && event.data.len() == 44 {
            found += 1;
            let Value::U32(flags) = *value(&values, "AppDomainFlags") else {
                panic!("AppDomainFlags is a UInt32");
            };
            assert_eq!(map.describe(u64::from(flags)).as_deref(), Some("Shared"));
            assert_eq!(text(value(&values, "AppDomainName")), "SharedDomain");
            assert_eq!(*value(&values, "AppDomainIndex"), Value::U32(0));
            assert_eq!(*value(&values, "ClrInstanceID"), Value::U16(9));
        }
    }
    assert_eq!(found, 1);
}

/// Every event of the three CLR providers in net.4.5.2.x64/x86.etl whose id and version the
/// manifest describes decodes with no error, and every byte is a field's except where the
/// manifest itself says less than the runtime writes:
/// - `ClrStackWalk` (event 82) declares `Stack` with `count="2"`, while the runtime writes
///   `FrameCount` pointers (TraceEvent's `ClrStackWalkTraceData` reads `FrameCount` of them):
///   the bytes left are `(FrameCount - 2)` pointers;
/// - `GCPerHeapHistory` (Private event 4 version 2) has an empty template: all its bytes are
///   left.
#[test]
fn every_clr_event_the_manifest_describes_decodes() {
    let Some(manifest) = clr_manifest() else {
        return;
    };
    for trace in ["net.4.5.2.x64.etl", "net.4.5.2.x86.etl"] {
        let Some(events) = header_events(trace) else {
            return;
        };
        let (mut whole, mut stacks) = (0, 0);
        for event in events {
            let Some(provider) = manifest.provider(event.provider) else {
                continue;
            };
            let Some(schema) = provider.schema(event.id, event.version) else {
                continue;
            };
            let (values, rest) = decode_with_rest(schema, event);
            let key = (provider.guid.to_string(), event.id, event.version);
            if key == (DOTNET_RUNTIME.to_owned(), 82, 0) {
                let Value::U32(frames) = *value(&values, "FrameCount") else {
                    panic!("FrameCount is a UInt32");
                };
                let pointer = match event.bitness {
                    Bitness::Bits32 => 4,
                    Bitness::Bits64 => 8,
                };
                assert_eq!(
                    rest,
                    (frames as usize - 2) * pointer,
                    "{trace}: ClrStackWalk"
                );
                stacks += 1;
            } else if key == (DOTNET_PRIVATE.to_owned(), 4, 2) {
                assert!(schema.fields.is_empty());
                assert_eq!(rest, event.data.len());
            } else {
                assert_eq!(
                    rest,
                    0,
                    "{trace}: {:?}: bytes after the last field",
                    schema.display_name()
                );
                whole += 1;
            }
        }
        assert!(whole > 1000, "{trace}: {whole} CLR events decoded whole");
        assert!(stacks > 1000, "{trace}: {stacks} ClrStackWalk events");
    }
}

/// The EventSource manifests net.4.5.2.x64/x86.etl carry: each `ManifestData` event (id
/// 0xFFFE, opcode 0xFE) whose envelope says `TotalChunks` 1 holds a whole manifest after its
/// 8-byte envelope (`Format 1, MajorVersion 1, MinorVersion 0, Magic 0x5B, TotalChunks,
/// ChunkNumber`, PAYLOADS.md §3). Parsed, each names the provider that wrote it, and every
/// event of those providers decodes whole (but PerfView's `ClrEnableParameters`, 4 bytes
/// longer than its template), among them the rows PerfView's baselines print:
/// `TplEventSource/TaskScheduled/Send ... OriginatingTaskSchedulerID=1; OriginatingTaskID=5;
/// TaskID=6; CreatingTaskID=0; TaskCreationOptions=8,192` (x64), `FrameworkEventSource/
/// ThreadPoolEnqueueWork workID=278,775,272` (x64), `PerfView/SessionParameters
/// sessionName=NT Kernel Logger; ...; bufferSizeMB=256; circularBuffSizeMB=500`.
#[test]
fn eventsource_manifests_in_the_traces_parse_and_decode_their_events() {
    for (trace, task_ids, work_id) in [
        ("net.4.5.2.x64.etl", [1, 5, 6, 0, 8192], 278_775_272_i64),
        ("net.4.5.2.x86.etl", [1, 1, 2, 0, 8192], 64_033_152),
    ] {
        let Some(events) = header_events(trace) else {
            return;
        };
        let mut manifests = Vec::new();
        for event in events
            .iter()
            .filter(|event| event.id == 0xFFFE && event.data.get(..4) == Some(&[1, 1, 0, 0x5B]))
        {
            let total_chunks = u16::from_le_bytes([event.data[4], event.data[5]]);
            if total_chunks != 1 {
                continue;
            }
            let place = format!("{trace} ManifestData of {}", event.provider);
            let manifest = parse_manifest_as(
                &manifest_text(&event.data[8..]).unwrap(),
                &place,
                SchemaSource::EventSourceManifest,
            )
            .unwrap_or_else(|error| panic!("{error}"));
            assert_eq!(manifest.providers.len(), 1);
            assert_eq!(manifest.providers[0].guid, event.provider);
            manifests.push(manifest);
        }
        let mut names: Vec<&str> = manifests
            .iter()
            .map(|manifest| &*manifest.providers[0].name)
            .collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(
            names,
            [
                "PerfView",
                "System.Diagnostics.Eventing.FrameworkEventSource",
                "System.Threading.Tasks.TplEventSource"
            ],
            "{trace}"
        );
        let provider = |name: &str| {
            manifests
                .iter()
                .map(|manifest| &manifest.providers[0])
                .find(|provider| &*provider.name == name)
                .unwrap()
        };
        let mut decoded = 0;
        for event in events {
            for manifest in &manifests {
                let provider = &manifest.providers[0];
                if provider.guid != event.provider {
                    continue;
                }
                if let Some(schema) = provider.schema(event.id, event.version) {
                    assert_eq!(schema.origin.source, SchemaSource::EventSourceManifest);
                    let (_, rest) = decode_with_rest(schema, event);
                    if &*provider.name == "PerfView" && event.id == 13 {
                        // ClrEnableParameters: its template (keywords UInt64, level UInt32)
                        // is 12 bytes; PerfView wrote 16 (the baselines' DataLen=16).
                        assert_eq!((event.data.len(), rest), (16, 4));
                    } else {
                        assert_eq!(rest, 0, "{trace}: {:?}", schema.display_name());
                    }
                    decoded += 1;
                }
            }
        }
        assert!(decoded > 100, "{trace}: {decoded}");

        let tpl = provider("System.Threading.Tasks.TplEventSource");
        let scheduled = tpl.schema(7, 0).unwrap();
        assert_eq!(
            scheduled.display_name().as_deref(),
            Some("TaskScheduled/Send")
        );
        let expected: Vec<(String, Value<'_>)> = [
            "OriginatingTaskSchedulerID",
            "OriginatingTaskID",
            "TaskID",
            "CreatingTaskID",
            "TaskCreationOptions",
        ]
        .into_iter()
        .zip(task_ids)
        .map(|(name, id)| (name.to_owned(), Value::I32(id)))
        .collect();
        let rows: Vec<_> = events
            .iter()
            .filter(|event| event.provider == tpl.guid && event.id == 7)
            .map(|event| decode(scheduled, event))
            .collect();
        assert!(
            rows.contains(&expected),
            "{trace}: the baseline's TaskScheduled row"
        );

        let framework = provider("System.Diagnostics.Eventing.FrameworkEventSource");
        let enqueue = framework.schema(30, 0).unwrap();
        assert_eq!(
            enqueue.display_name().as_deref(),
            Some("ThreadPoolEnqueueWork")
        );
        let rows: Vec<_> = events
            .iter()
            .filter(|event| event.provider == framework.guid && event.id == 30)
            .map(|event| decode(enqueue, event))
            .collect();
        assert!(
            rows.contains(&vec![("workID".to_owned(), Value::I64(work_id))]),
            "{trace}: the baseline's ThreadPoolEnqueueWork row"
        );

        let perfview = provider("PerfView");
        let session = perfview.schema(11, 0).unwrap();
        assert_eq!(session.display_name().as_deref(), Some("SessionParameters"));
        let mut found = 0;
        for event in events
            .iter()
            .filter(|event| event.provider == perfview.guid && event.id == 11)
        {
            let values = decode(session, event);
            if text(value(&values, "sessionName")) == "NT Kernel Logger" {
                found += 1;
                assert_eq!(*value(&values, "bufferSizeMB"), Value::I32(256));
                assert_eq!(*value(&values, "circularBuffSizeMB"), Value::I32(500));
            }
        }
        assert!(found >= 1, "{trace}: the baseline's SessionParameters row");
    }
}

/// A small manifest to break line by line: the provider starts on line 3, its template on
/// line 6, its event on line 13.
fn small_manifest() -> String {
    [
        r#"<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events">"#,
        r#" <instrumentation><events>"#,
        r#"  <provider name="Small" guid="{01020304-0506-0708-090a-0b0c0d0e0f10}">"#,
        r#"   <tasks><task name="Work" value="1" message="$(string.task.Work)"/></tasks>"#,
        r#"   <templates>"#,
        r#"    <template tid="T">"#,
        r#"     <data name="Count" inType="win:UInt16"/>"#,
        r#"     <data name="Items" inType="win:UInt32" count="Count" map="M"/>"#,
        r#"     <data name="Blob" inType="win:Binary" length="Count"/>"#,
        r#"    </template>"#,
        r#"   </templates>"#,
        r#"   <maps><valueMap name="M"><map value="0x1" message="$(string.one)"/></valueMap></maps>"#,
        r#"   <events><event value="1" version="2" task="Work" opcode="win:Start" template="T"/></events>"#,
        r#"  </provider>"#,
        r#" </events></instrumentation>"#,
        r#" <localization><resources culture="en-US"><stringTable>"#,
        r#"  <string id="task.Work" value="Working"/><string id="one" value="One"/>"#,
        r#" </stringTable></resources></localization>"#,
        r#"</instrumentationManifest>"#,
    ]
    .join("\n")
}

#[test]
fn small_manifest_parses() {
    let manifest = parse_manifest(&small_manifest(), "small.man").unwrap();
    let provider = &manifest.providers[0];
    assert_eq!(provider.line, 3);
    let event = &provider.events[&(1, 2)];
    assert_eq!((event.task, event.opcode), (1, 1));
    let schema = &event.schema;
    assert_eq!(schema.origin.place, "small.man:13");
    // The task by its `name`, not its message (`Working`); the built-in opcode by its
    // `win:` name, which the event's name shows without `win:`.
    assert_eq!(schema.task_name.as_deref(), Some("Work"));
    assert_eq!(schema.opcode_name.as_deref(), Some("win:Start"));
    assert_eq!(schema.display_name().as_deref(), Some("Work/Start"));
    assert_eq!(schema.fields[1].count, Count::FromField(0));
    assert_eq!(schema.fields[2].length, Length::FromField(0));
    assert_eq!(schema.map("M").unwrap().describe(1).as_deref(), Some("One"));
}

/// A text to replace in the small manifest, its replacement, the line of the error it makes
/// and what the error must say.
type Fault = (
    &'static str,
    &'static str,
    u32,
    fn(&ManifestErrorKind) -> bool,
);

/// Each fault, put into the small manifest, is an error at its line naming what was expected.
#[test]
fn bad_manifests_give_errors_at_the_right_line() {
    let cases: [Fault; 12] = [
        (
            r#"template="T""#,
            r#"template="Missing""#,
            13,
            |kind| matches!(kind, ManifestErrorKind::UnknownTemplate { tid } if tid == "Missing"),
        ),
        (
            r#"count="Count""#,
            r#"count="Nothing""#,
            8,
            |kind| matches!(kind, ManifestErrorKind::NoSuchField { attribute: "count", name } if name == "Nothing"),
        ),
        (
            r#"inType="win:UInt32""#,
            r#"inType="win:UInt33""#,
            8,
            |kind| matches!(kind, ManifestErrorKind::UnknownInType { name } if name == "win:UInt33"),
        ),
        (
            r#"map="M"/>"#,
            r#"map="M" outType="xs:nothing"/>"#,
            8,
            |kind| matches!(kind, ManifestErrorKind::UnknownOutType { name } if name == "xs:nothing"),
        ),
        (
            r#"map="M""#,
            r#"map="N""#,
            8,
            |kind| matches!(kind, ManifestErrorKind::UnknownMap { name } if name == "N"),
        ),
        (
            r#"length="Count""#,
            "",
            9,
            |kind| matches!(kind, ManifestErrorKind::NeedsLength { name } if name == "Blob"),
        ),
        (
            r#"task="Work""#,
            r#"task="Rest""#,
            13,
            |kind| matches!(kind, ManifestErrorKind::UnknownTask { name } if name == "Rest"),
        ),
        (
            r#"opcode="win:Start""#,
            r#"opcode="win:Begin""#,
            13,
            |kind| matches!(kind, ManifestErrorKind::UnknownOpcode { name } if name == "win:Begin"),
        ),
        (
            r#"$(string.one)"#,
            r#"$(string.two)"#,
            12,
            |kind| matches!(kind, ManifestErrorKind::UnknownString { id } if id == "two"),
        ),
        (
            r#"guid="{01020304-0506-0708-090a-0b0c0d0e0f10}""#,
            r#"guid="{01020304-0506-0708-090a-0b0c0d0e0f1}""#,
            3,
            |kind| matches!(kind, ManifestErrorKind::BadGuid { .. }),
        ),
        (
            r#"value="1" version="2""#,
            r#"value="65536" version="2""#,
            13,
            |kind| {
                matches!(
                    kind,
                    ManifestErrorKind::BadNumber {
                        attribute: "value",
                        max: 65535,
                        ..
                    }
                )
            },
        ),
        (
            r#"<data name="Blob" inType="win:Binary" length="Count"/>"#,
            r#"<data name="Blob" inType="win:Binary" length="Count">"#,
            10,
            |kind| matches!(kind, ManifestErrorKind::Xml(_)),
        ),
    ];
    for (from, to, line, expected) in cases {
        let text = small_manifest().replacen(from, to, 1);
        assert_ne!(text, small_manifest(), "{from} is in the manifest");
        let error = parse_manifest(&text, "bad.man").unwrap_err();
        assert_eq!(error.line, line, "{to}: {error}");
        assert!(expected(&error.kind), "{to}: {error}");
        assert!(
            error.to_string().starts_with(&format!("bad.man:{line}:")),
            "{error}"
        );
    }

    // A second event with the same id and version names the first one's line.
    let doubled = small_manifest().replacen(
        r#"template="T"/></events>"#,
        "template=\"T\"/>\n<event value=\"1\" version=\"2\"/></events>",
        1,
    );
    let error = parse_manifest(&doubled, "twice.man").unwrap_err();
    assert_eq!(error.line, 14, "{error}");
    assert!(
        matches!(
            error.kind,
            ManifestErrorKind::Duplicate {
                what: "event",
                first_line: 13,
                ..
            }
        ),
        "{error}"
    );

    // A count taken from a field that is not an integer: the core's check, at the field.
    let text = small_manifest().replacen(
        r#"<data name="Count" inType="win:UInt16"/>"#,
        r#"<data name="Count" inType="win:UnicodeString"/>"#,
        1,
    );
    let error = parse_manifest(&text, "bad.man").unwrap_err();
    assert_eq!(error.line, 8, "{error}");
    assert!(
        matches!(error.kind, ManifestErrorKind::Schema { ref field, .. } if field == "Items"),
        "{error}"
    );

    // Not a manifest at all.
    let error = parse_manifest("<root/>", "root.xml").unwrap_err();
    assert_eq!((error.line, error.column), (1, 1));
    assert!(matches!(error.kind, ManifestErrorKind::NotAManifest { ref found } if found == "root"));
}

/// The bytes of a manifest in UTF-16 with a byte order mark, as `mc.exe` manifests often are,
/// parse as the UTF-8 text does; bytes that are neither are an error at line 1.
#[test]
fn manifests_in_utf16_parse() {
    let text = small_manifest();
    let mut little = vec![0xFF, 0xFE];
    little.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
    let mut big = vec![0xFE, 0xFF];
    big.extend(text.encode_utf16().flat_map(u16::to_be_bytes));
    let expected = parse_manifest(&text, "small.man").unwrap();
    for bytes in [little, big, text.clone().into_bytes()] {
        let parsed = parse_manifest_bytes(&bytes, "small.man", SchemaSource::Manifest).unwrap();
        assert_eq!(parsed, expected);
    }
    let error =
        parse_manifest_bytes(&[0xFF, 0xFE, 0x41], "odd.man", SchemaSource::Manifest).unwrap_err();
    assert_eq!((error.line, error.kind), (1, ManifestErrorKind::NotText));
}
