//! Two Windows-written descriptions of the same events, checked against each other and against
//! the .NET runtime's own manifest, on net.4.5.2.x64.etl and net.4.5.2.x86.etl:
//!
//! 1. **`MetaData/EventInfo` against `ClrEtwAll.man`.** For every (provider, id, version) of
//!    Microsoft-Windows-DotNETRuntime (`e13c0d23-…`) and …Rundown (`a669021c-…`) that a
//!    trace's `TRACE_EVENT_INFO` describes, the .NET runtime's manifest (read from
//!    `../shared/data/schemas`, never copied) describes it too, and the two agree field by
//!    field: names, in-types, counts and lengths (fixed or taken from which field), structures
//!    and their members, the maps' names and their entries. The one kind of disagreement is
//!    the out-type of a data item the manifest gives none: TDH writes the in-type's default
//!    ("if you do not specify an output type for the data item, the service will use the
//!    first output type listed", the table of Winmeta.xml's input types in Microsoft's
//!    "InputType Complex Type" page; [`default_out_type`]), which decoding never depends on.
//!    Then every event of those keys decodes to the same items (names, offsets, values),
//!    the same error and the same bytes left through either schema, and renders to the same
//!    JSON.
//! 2. **The names.** Where the two sources name an event, TDH's description carries the
//!    manifest's `name` attributes of the event's task, opcode, level and keywords
//!    (`GarbageCollection`, `GCAllocationTick`, `win:Verbose`, `GCKeyword`), not their messages
//!    (`GC`, `AllocationTick`, `GC`), and the manifest parser gives the same names, so each
//!    event has one name whichever describes it. (PerfView's baseline prints the EventInfo's
//!    name for the one event its own CLR parser does not know,
//!    `Microsoft-Windows-DotNETRuntime/GarbageCollection/IncreaseMemoryPressure`, and its CLR
//!    parser's `GC/AllocationTick` for the others.)
//! 3. **EventSource manifests in the stream against EventInfo.** No provider of these traces
//!    has both: the EventInfo events describe DNS-Client, Kernel-Process, Immersive-Shell,
//!    Kernel-EventTracing, Kernel-File and the CLR, the `ManifestData` events PerfView,
//!    FrameworkEventSource and TplEventSource. So the stream's manifests are checked on their
//!    own: learned by the registry as the trace streams by, they describe every event of their
//!    providers, each decodes with no error and no byte left (but one, explained where it is
//!    checked), and the events per name are exactly the `COUNT` lines of PerfView's baselines
//!    (`src/TraceEvent/TraceEvent.Tests/inputs/net.4.5.2.x64.baseline.txt` and `...x86...` in
//!    microsoft/perfview, MIT).
//!
//! The traces are read from `$ETW_PERFVIEW_DIR`, else `../shared/data/perfview`, the manifest
//! from `$ETW_SCHEMAS_DIR`, else `../shared/data/schemas`; a missing file skips the checks
//! unless `ETW_REQUIRE_TRACES=1` (see `shared_files/mod.rs`).

mod shared_files;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

use etw_classic::payload::{
    Count, FieldSchema, InType, ItemKind, Length, OutType, PayloadDecoder, PayloadError,
};
use etw_classic::{Bitness, EtlFile, EventKind, Guid};
use etw_classic_decode::facts::Facts;
use etw_classic_decode::manifest::{parse_manifest, Manifest};
use etw_classic_decode::registry::decode_with;
use etw_classic_decode::{EventSchema, Name, Registry, SchemaKey, SchemaSource};

const DOTNET_RUNTIME: Guid = Guid::from_fields(
    0xe13c_0d23,
    0xccbc,
    0x4e12,
    [0x93, 0x1b, 0xd9, 0xcc, 0x2e, 0xee, 0x27, 0xe4],
);
const DOTNET_RUNDOWN: Guid = Guid::from_fields(
    0xa669_021c,
    0xc450,
    0x4609,
    [0xa0, 0x35, 0x5a, 0xf5, 0x9a, 0xf4, 0xdf, 0x18],
);

const TRACES: [&str; 2] = ["net.4.5.2.x64.etl", "net.4.5.2.x86.etl"];

/// One `EVENT_HEADER` event of a trace.
struct Logged {
    provider: Guid,
    id: u16,
    version: u8,
    bitness: Bitness,
    data: Vec<u8>,
}

/// A trace learned by a [`Registry`] in file order (its EventInfo and EventMapInfo events,
/// its `ManifestData` events), and its `EVENT_HEADER` events.
struct Learned {
    registry: Registry,
    events: Vec<Logged>,
}

/// [`learn`] of each trace, once for all the tests.
fn learned(name: &str) -> Option<&'static Learned> {
    static X64: OnceLock<Option<Learned>> = OnceLock::new();
    static X86: OnceLock<Option<Learned>> = OnceLock::new();
    let cell = match name {
        "net.4.5.2.x64.etl" => &X64,
        "net.4.5.2.x86.etl" => &X86,
        other => panic!("no cache for {other}"),
    };
    cell.get_or_init(|| learn(name)).as_ref()
}

fn learn(name: &str) -> Option<Learned> {
    let bytes = shared_files::trace(name)?;
    let file = EtlFile::parse(&bytes).unwrap();
    let mut scratch = vec![0u8; file.buffer_size()];
    let mut registry = Registry::new();
    let mut events = Vec::new();
    for buffer in file.buffers() {
        let buffer = buffer.unwrap();
        let index = buffer.index;
        for event in buffer.trace_buffer(&mut scratch).unwrap().events() {
            let event = event.unwrap();
            let facts = Facts::of(&event);
            registry.learn(&facts, || {
                format!("{name} buffer {index} offset {:#x}", event.offset)
            });
            if let EventKind::EventHeader { header, .. } = event.kind() {
                events.push(Logged {
                    provider: header.provider_id,
                    id: header.event_descriptor.id,
                    version: header.event_descriptor.version,
                    // The header type's, the flag being never set on disk (facts.rs).
                    bitness: facts.bitness.unwrap(),
                    data: facts.payload.unwrap().to_vec(),
                });
            }
        }
    }
    assert_eq!(registry.problems(), Vec::<String>::new(), "{name}");
    Some(Learned { registry, events })
}

fn clr_manifest() -> Option<&'static Manifest> {
    static MANIFEST: OnceLock<Option<Manifest>> = OnceLock::new();
    MANIFEST
        .get_or_init(|| {
            let text = shared_files::schema_file("ClrEtwAll.man")?;
            Some(parse_manifest(&text, "ClrEtwAll.man").unwrap_or_else(|e| panic!("{e}")))
        })
        .as_ref()
}

/// The `MetaData/EventInfo` schemas of the two CLR providers a trace learned, by key.
fn clr_event_infos(learned: &Learned) -> BTreeMap<(Guid, u16, u8), &EventSchema> {
    learned
        .registry
        .schemas()
        .filter(|(_, schema)| schema.origin.source == SchemaSource::EventInfo)
        .filter_map(|(key, schema)| match *key {
            SchemaKey::Descriptor {
                provider,
                id,
                version,
            } if provider == DOTNET_RUNTIME || provider == DOTNET_RUNDOWN => {
                Some(((provider, id, version), &**schema))
            }
            _ => None,
        })
        .collect()
}

/// The out-type TDH reports for a data item whose manifest gives none: the first output type
/// Winmeta.xml lists for its input type (Microsoft, "InputType Complex Type", Remarks: "If you
/// do not specify an output type for the data item, the service will use the first output
/// type listed"): `xs:string` for both strings, `xs:byte` ... `xs:boolean` for the numbers
/// (TDH numbers them like their in-types), `xs:hexBinary` for `win:Binary`, `xs:GUID`,
/// `win:HexInt64` for `win:Pointer` (the only type listed, whatever the pointer size),
/// `xs:dateTime` for the times, `xs:string` for a SID, the hexadecimal types for themselves.
fn default_out_type(in_type: InType) -> OutType {
    match in_type {
        InType::UNICODE_STRING | InType::ANSI_STRING | InType::SID => OutType::STRING,
        InType::INT8 => OutType::BYTE,
        InType::UINT8 => OutType::UNSIGNED_BYTE,
        InType::INT16 => OutType::SHORT,
        InType::UINT16 => OutType::UNSIGNED_SHORT,
        InType::INT32 => OutType::INT,
        InType::UINT32 => OutType::UNSIGNED_INT,
        InType::INT64 => OutType::LONG,
        InType::UINT64 => OutType::UNSIGNED_LONG,
        InType::FLOAT => OutType::FLOAT,
        InType::DOUBLE => OutType::DOUBLE,
        InType::BOOLEAN => OutType::BOOLEAN,
        InType::BINARY => OutType::HEX_BINARY,
        InType::GUID => OutType::GUID,
        InType::POINTER | InType::HEXINT64 => OutType::HEX_INT64,
        InType::FILETIME | InType::SYSTEMTIME => OutType::DATETIME,
        InType::HEXINT32 => OutType::HEX_INT32,
        _ => OutType::NULL,
    }
}

/// How `field`'s count or length reads: `Count::FromField(3)` names field 3 by index, which
/// is only comparable between two schemas whose fields are in the same order (checked by the
/// names before it).
fn shape(field: &FieldSchema<Name>) -> (Count, Length, u16) {
    (field.count, field.length, field.members)
}

/// Every way `info` (EventInfo) and `manifest` describe an event differently, each a line
/// naming the field and what each source says. With `tdh_defaults`, a manifest field without
/// an out-type is taken to have its in-type's default ([`default_out_type`]).
fn differences(info: &EventSchema, manifest: &EventSchema, tdh_defaults: bool) -> Vec<String> {
    let mut found = Vec::new();
    if info.fields.len() != manifest.fields.len() {
        found.push(format!(
            "{} fields in EventInfo, {} in the manifest",
            info.fields.len(),
            manifest.fields.len()
        ));
    }
    for (index, (a, b)) in info.fields.iter().zip(&manifest.fields).enumerate() {
        let at = format!("field #{index} {}", a.name);
        if a.name != b.name {
            found.push(format!("{at}: named {} in the manifest", b.name));
        }
        if a.in_type != b.in_type {
            found.push(format!(
                "{at}: in-type {:?} in EventInfo, {:?} in the manifest",
                a.in_type, b.in_type
            ));
        }
        let manifest_out = if tdh_defaults && b.out_type == OutType::NULL {
            default_out_type(b.in_type)
        } else {
            b.out_type
        };
        if a.out_type != manifest_out {
            found.push(format!(
                "{at}: out-type {:?} in EventInfo, {:?} in the manifest",
                a.out_type, manifest_out
            ));
        }
        if shape(a) != shape(b) {
            found.push(format!(
                "{at}: count, length and members {:?} in EventInfo, {:?} in the manifest",
                shape(a),
                shape(b)
            ));
        }
        if a.tags != b.tags {
            found.push(format!(
                "{at}: tags {:#x} in EventInfo, {:#x} in the manifest",
                a.tags, b.tags
            ));
        }
        match (&a.map, &b.map) {
            (None, None) => {}
            (Some(x), Some(y)) if x == y => {
                // The entries: EventInfo's from the trace's EventMapInfo, the manifest's from
                // its <valueMap>/<bitMap> and string table.
                match (info.map(x), manifest.map(y)) {
                    (Some(m), Some(n)) if m.kind == n.kind && m.entries == n.entries => {}
                    (m, n) => found.push(format!(
                        "{at}: map {x} is {m:?} in EventInfo, {n:?} in the manifest"
                    )),
                }
            }
            (x, y) => found.push(format!(
                "{at}: map {x:?} in EventInfo, {y:?} in the manifest"
            )),
        }
    }
    found
}

/// Test 1a: every CLR event a trace's EventInfo describes, the manifest describes too, with
/// the same fields but for the out-types TDH fills in (the module's documentation). The
/// out-type disagreements are printed one per line; the (in-type, out-type TDH wrote) pairs
/// they have are exactly those the traces' CLR templates use without an `outType`.
#[test]
fn eventinfo_and_the_clr_manifest_describe_the_same_fields() {
    let Some(manifest) = clr_manifest() else {
        return;
    };
    for (trace, shared) in [("net.4.5.2.x64.etl", 50), ("net.4.5.2.x86.etl", 50)] {
        let Some(learned) = learned(trace) else {
            return;
        };
        let infos = clr_event_infos(learned);
        let mut not_in_manifest = Vec::new();
        let mut unexplained = Vec::new();
        let mut out_types = BTreeSet::new();
        let mut raw = 0;
        for (&(provider, id, version), info) in &infos {
            let Some(described) = manifest
                .provider(provider)
                .and_then(|provider| provider.schema(id, version))
            else {
                not_in_manifest.push((provider, id, version));
                continue;
            };
            let place = format!(
                "{trace}: {} event {id} version {version} ({})",
                info.provider_name.as_deref().unwrap_or_default(),
                info.origin.place
            );
            for line in differences(info, described, false) {
                println!("{place}: {line}");
                raw += 1;
            }
            for line in differences(info, described, true) {
                unexplained.push(format!("{place}: {line}"));
            }
            for (a, b) in info.fields.iter().zip(&described.fields) {
                if a.out_type != b.out_type {
                    out_types.insert((a.in_type, a.out_type, b.out_type));
                }
            }
        }
        println!(
            "{trace}: {} CLR events described by both; {raw} out-types TDH filled in",
            infos.len()
        );
        assert_eq!(
            not_in_manifest,
            [],
            "{trace}: CLR EventInfo the manifest lacks"
        );
        assert_eq!(infos.len(), shared, "{trace}: CLR events described by both");
        assert_eq!(unexplained, Vec::<String>::new(), "{trace}");
        // (in-type, out-type in EventInfo, out-type in the manifest) where they differ.
        assert_eq!(
            out_types.into_iter().collect::<Vec<_>>(),
            [
                (InType::UNICODE_STRING, OutType::STRING, OutType::NULL),
                (InType::UINT8, OutType::UNSIGNED_BYTE, OutType::NULL),
                (InType::UINT16, OutType::UNSIGNED_SHORT, OutType::NULL),
                (InType::UINT32, OutType::UNSIGNED_INT, OutType::NULL),
                (InType::UINT64, OutType::UNSIGNED_LONG, OutType::NULL),
                (InType::GUID, OutType::GUID, OutType::NULL),
                // win:Pointer's only output type, on the 32-bit trace too: the pointer's size
                // is the event's (4 bytes in x86's events), the out-type only a hint.
                (InType::POINTER, OutType::HEX_INT64, OutType::NULL),
            ],
            "{trace}"
        );
    }
}

/// The items of `data` decoded with `fields`, the error that stopped them and the bytes left.
type Walk<'s, 'd> = (
    Vec<(&'s str, u16, Option<u32>, usize, ItemKind<'d>)>,
    Option<PayloadError>,
    usize,
);

fn walk<'s, 'd>(fields: &'s [FieldSchema<Name>], data: &'d [u8], bitness: Bitness) -> Walk<'s, 'd> {
    let mut decoder = PayloadDecoder::new(fields, data, bitness);
    let mut items = Vec::new();
    let mut error = None;
    for item in decoder.by_ref() {
        match item {
            Ok(item) => items.push((
                &*item.field.name,
                item.index,
                item.element,
                item.offset,
                item.kind,
            )),
            Err(stopped) => error = Some(stopped),
        }
    }
    (items, error, decoder.rest().len())
}

/// How many events of each key [`every_event_decodes_alike_through_eventinfo_and_the_manifest`]
/// renders as JSON through both schemas (rendering costs more than decoding).
const RENDERED_PER_KEY: usize = 200;

/// Test 1b: every event of the keys both describe decodes through EventInfo's schema and the
/// manifest's to the same items, the same error (none) and the same bytes left (none, but
/// `ClrStackWalk`'s, whose `Stack` both give `count="2"` while the runtime writes
/// `FrameCount` frames: the manifest test shows those bytes are the frames past the second),
/// and renders to the same JSON, maps' names included (the first [`RENDERED_PER_KEY`] of each
/// key). Counts of the baselines: x64
/// `GC/AllocationTick:10382`, `GC/Start:528` (version 1 and version 2 events, one of each per
/// collection: DataLen 18 and 26 in the baseline's rows); x86 `3196` and `160`.
#[test]
fn every_event_decodes_alike_through_eventinfo_and_the_manifest() {
    let Some(manifest) = clr_manifest() else {
        return;
    };
    for (trace, ticks, starts) in [
        ("net.4.5.2.x64.etl", 10382, 528),
        ("net.4.5.2.x86.etl", 3196, 160),
    ] {
        let Some(learned) = learned(trace) else {
            return;
        };
        let infos = clr_event_infos(learned);
        let mut per_key: BTreeMap<(Guid, u16, u8), usize> = BTreeMap::new();
        for event in &learned.events {
            let key = (event.provider, event.id, event.version);
            let Some(info) = infos.get(&key) else {
                continue;
            };
            let described = manifest
                .provider(event.provider)
                .and_then(|provider| provider.schema(event.id, event.version))
                .unwrap();
            let through_info = walk(&info.fields, &event.data, event.bitness);
            let through_manifest = walk(&described.fields, &event.data, event.bitness);
            assert_eq!(
                through_info, through_manifest,
                "{trace}: {key:?} decoded differently"
            );
            let (_, error, rest) = through_info;
            assert_eq!(error, None, "{trace}: {key:?}");
            if key != (DOTNET_RUNTIME, 82, 0) {
                assert_eq!(rest, 0, "{trace}: {key:?}: bytes after the last field");
            }
            let seen = per_key.entry(key).or_default();
            *seen += 1;
            // Rendering depends on the schema (out-types, maps) and the values: the first
            // events of each key are enough to show it does not depend on the source.
            if *seen <= RENDERED_PER_KEY {
                let info_json = decode_with(info, &event.data, event.bitness).fields;
                let manifest_json = decode_with(described, &event.data, event.bitness).fields;
                assert_eq!(
                    info_json, manifest_json,
                    "{trace}: {key:?} rendered differently"
                );
            }
        }
        let total: usize = per_key.values().sum();
        println!(
            "{trace}: {total} events of {} keys decoded alike",
            per_key.len()
        );
        assert_eq!(per_key[&(DOTNET_RUNTIME, 10, 3)], ticks, "{trace}");
        assert_eq!(
            per_key[&(DOTNET_RUNTIME, 1, 1)] + per_key[&(DOTNET_RUNTIME, 1, 2)],
            starts,
            "{trace}"
        );
        // Every key both describe has events in the trace.
        assert_eq!(per_key.len(), infos.len(), "{trace}");
    }
}

/// The `<event>` element of `ClrEtwAll.man` for `(provider, id, version)`, and its
/// `<provider>`.
fn manifest_event<'a, 'input>(
    document: &'a roxmltree::Document<'input>,
    (provider, id, version): (Guid, u16, u8),
) -> Option<(roxmltree::Node<'a, 'input>, roxmltree::Node<'a, 'input>)> {
    let provider = document.descendants().find(|node| {
        node.has_tag_name("provider")
            && node
                .attribute("guid")
                .and_then(|guid| Guid::parse_str(guid).ok())
                == Some(provider)
    })?;
    let event = provider.descendants().find(|node| {
        node.has_tag_name("event")
            && node.attribute("value") == Some(&*id.to_string())
            && node.attribute("version").unwrap_or("0") == version.to_string()
    })?;
    Some((provider, event))
}

/// Test 2: the names TDH wrote in each CLR EventInfo are the manifest's `name` attributes:
/// the provider's `name`, and the event's `task`, `opcode`, `level` and `keywords` as its
/// `<event>` element spells them (read here with the XML parser alone), not the messages the
/// manifest gives them. The manifest parser names them the same way (its documentation), so
/// both sources give every event the same names: `GCAllocationTick_V3` is
/// `GarbageCollection/GCAllocationTick` through either, although the manifest's messages say
/// `GC` and `AllocationTick` (and PerfView's CLR parser prints `GC/AllocationTick`).
#[test]
fn eventinfo_names_are_the_manifests_name_attributes() {
    let (Some(text), Some(manifest)) = (shared_files::schema_file("ClrEtwAll.man"), clr_manifest())
    else {
        return;
    };
    let document = roxmltree::Document::parse(&text).unwrap();
    for trace in TRACES {
        let Some(learned) = learned(trace) else {
            return;
        };
        let mut renamed = Vec::new();
        let mut compared = 0;
        for (&key, info) in &clr_event_infos(learned) {
            let (provider, event) = manifest_event(&document, key).unwrap();
            let attribute = |name| event.attribute(name).map(str::to_owned);
            let mut keywords: Vec<&str> = event
                .attribute("keywords")
                .unwrap_or_default()
                .split_whitespace()
                .collect();
            keywords.sort_unstable();
            let mut info_keywords: Vec<&str> = info.keyword_names.iter().map(|k| &**k).collect();
            info_keywords.sort_unstable();
            let text = |name: &Option<Name>| name.as_deref().map(str::to_owned);
            assert_eq!(
                (
                    text(&info.provider_name),
                    text(&info.task_name),
                    text(&info.opcode_name),
                    text(&info.level_name),
                    info_keywords
                ),
                (
                    provider.attribute("name").map(str::to_owned),
                    attribute("task"),
                    attribute("opcode"),
                    attribute("level"),
                    keywords
                ),
                "{trace}: {key:?}"
            );
            let described = manifest
                .provider(key.0)
                .and_then(|provider| provider.schema(key.1, key.2))
                .unwrap();
            let mut described_keywords: Vec<&str> =
                described.keyword_names.iter().map(|k| &**k).collect();
            described_keywords.sort_unstable();
            let mut info_keywords: Vec<&str> = info.keyword_names.iter().map(|k| &**k).collect();
            info_keywords.sort_unstable();
            let names = |schema: &EventSchema| {
                (
                    text(&schema.provider_name),
                    text(&schema.task_name),
                    text(&schema.opcode_name),
                    text(&schema.level_name),
                    schema.display_name(),
                )
            };
            if (names(info), info_keywords) != (names(described), described_keywords) {
                renamed.push((info.display_name(), described.display_name()));
            }
            compared += 1;
        }
        println!("{trace}: {compared} CLR events described by both");
        assert!(
            renamed.is_empty(),
            "{trace}: named differently: {renamed:?}"
        );
        assert!(compared > 0, "{trace}");
    }
    // The message the manifest gives the task and opcode of GCAllocationTick_V3, which neither
    // source's name is.
    let messages: Vec<&str> = document
        .descendants()
        .filter(|node| {
            node.attribute("id") == Some("RuntimePublisher.GarbageCollectionTaskMessage")
                || node.attribute("id") == Some("RuntimePublisher.GCAllocationTickOpcodeMessage")
        })
        .filter_map(|node| node.attribute("value"))
        .collect();
    assert_eq!(messages, ["GC", "AllocationTick"]);
    let tick = manifest
        .provider(DOTNET_RUNTIME)
        .and_then(|provider| provider.schema(10, 3))
        .unwrap();
    assert_eq!(
        tick.display_name().as_deref(),
        Some("GarbageCollection/GCAllocationTick")
    );
}

const TPL: Guid = Guid::from_fields(
    0x2e5d_ba47,
    0xa3d2,
    0x4d16,
    [0x8e, 0xe0, 0x66, 0x71, 0xff, 0xdc, 0xd7, 0xb5],
);
const FRAMEWORK: Guid = Guid::from_fields(
    0x8e9f_5090,
    0x2d75,
    0x4d03,
    [0x8a, 0x81, 0xe5, 0xaf, 0xbf, 0x85, 0xda, 0xf1],
);
const PERFVIEW: Guid = Guid::from_fields(
    0xa8a7_1ac1,
    0x040f,
    0x54a2,
    [0x07, 0xca, 0x00, 0xa8, 0x9b, 0x5a, 0xb7, 0x61],
);

/// The `COUNT` lines of PerfView's baselines for the three providers whose manifests the
/// traces carry, the same in both traces but for one.
fn baseline_counts(trace: &str) -> BTreeMap<String, usize> {
    let dequeue = if trace == "net.4.5.2.x64.etl" { 2 } else { 3 };
    [
        ("PerfView/ClrEnableParameters", 2),
        ("PerfView/CommandLineParameters", 3),
        ("PerfView/KernelEnableParameters", 1),
        ("PerfView/ManifestData", 2),
        ("PerfView/PerfViewLog", 53),
        ("PerfView/ProviderEnableParameters", 37),
        ("PerfView/Rundown/Start", 1),
        ("PerfView/Rundown/Stop", 1),
        ("PerfView/SessionParameters", 2),
        ("PerfView/StartAndStopTimes", 2),
        ("PerfView/StopReason", 1),
        ("PerfView/Tracing/Start", 1),
        ("PerfView/Tracing/Stop", 1),
        ("PerfView/WaitForIdle", 1),
        (
            "System.Diagnostics.Eventing.FrameworkEventSource/ManifestData",
            1,
        ),
        (
            "System.Diagnostics.Eventing.FrameworkEventSource/ThreadPoolDequeueWork",
            dequeue,
        ),
        (
            "System.Diagnostics.Eventing.FrameworkEventSource/ThreadPoolEnqueueWork",
            3,
        ),
        ("System.Threading.Tasks.TplEventSource/ManifestData", 1),
        ("System.Threading.Tasks.TplEventSource/TaskExecute/Start", 3),
        ("System.Threading.Tasks.TplEventSource/TaskExecute/Stop", 1),
        (
            "System.Threading.Tasks.TplEventSource/TaskScheduled/Send",
            3,
        ),
    ]
    .into_iter()
    .map(|(name, count)| (name.to_owned(), count))
    .collect()
}

/// Test 3: no provider has both an EventInfo description and a manifest in the stream, so the
/// stream's manifests are checked against the events themselves and PerfView's counts. The
/// registry, having learned the whole trace, describes every event of the three providers
/// (the `ManifestData` events aside, which carry the manifests); each decodes with no error and
/// no byte left, but PerfView's `ClrEnableParameters` (event 13), whose template (`keywords`
/// UInt64, `level` UInt32) is 12 bytes while PerfView wrote 16 (the baselines' `DataLen=16`).
/// Named `provider/event` as the registry names them, the events are counted exactly as the
/// baselines count them.
#[test]
fn the_streams_eventsource_manifests_decode_every_event_of_their_providers() {
    for trace in TRACES {
        let Some(learned) = learned(trace) else {
            return;
        };
        let providers = |source| -> BTreeSet<Guid> {
            learned
                .registry
                .schemas()
                .filter(|(_, schema)| schema.origin.source == source)
                .filter_map(|(key, _)| match key {
                    SchemaKey::Descriptor { provider, .. } => Some(*provider),
                    SchemaKey::Classic { .. } => None,
                })
                .collect()
        };
        let in_stream = providers(SchemaSource::EventSourceManifest);
        let described_by_event_info = providers(SchemaSource::EventInfo);
        assert_eq!(
            in_stream,
            BTreeSet::from([TPL, FRAMEWORK, PERFVIEW]),
            "{trace}"
        );
        let guid = |text| Guid::parse_str(text).unwrap();
        assert_eq!(
            described_by_event_info,
            BTreeSet::from([
                guid("1c95126e-7eea-49a9-a3fe-a378b03ddb4d"), // Microsoft-Windows-DNS-Client
                guid("22fb2cd6-0e7b-422b-a0c7-2fad1fd0e716"), // ...-Kernel-Process
                guid("315a8872-923e-4ea2-9889-33cd4754bf64"), // ...-Immersive-Shell
                guid("b675ec37-bdb6-4648-bc92-f3fdc74d3ca2"), // ...-Kernel-EventTracing
                guid("edd08927-9cc4-4e65-b970-c2560fb5c289"), // ...-Kernel-File
                DOTNET_RUNTIME,
                DOTNET_RUNDOWN,
            ]),
            "{trace}"
        );
        assert_eq!(
            described_by_event_info.intersection(&in_stream).count(),
            0,
            "{trace}: a provider described both ways"
        );
        let mut counted: BTreeMap<String, usize> = BTreeMap::new();
        for event in learned
            .events
            .iter()
            .filter(|event| in_stream.contains(&event.provider))
        {
            let key = SchemaKey::Descriptor {
                provider: event.provider,
                id: event.id,
                version: event.version,
            };
            let schema = learned.registry.get(&key);
            let name = if event.id == 0xFFFE {
                assert!(schema.is_none(), "{trace}: {key:?}");
                let provider = learned
                    .registry
                    .schemas()
                    .find(|(key, _)| {
                        matches!(key, SchemaKey::Descriptor { provider, .. } if *provider == event.provider)
                    })
                    .and_then(|(_, schema)| schema.provider_name.clone())
                    .unwrap();
                format!("{provider}/ManifestData")
            } else {
                let schema = schema.unwrap_or_else(|| panic!("{trace}: no schema for {key:?}"));
                assert_eq!(schema.origin.source, SchemaSource::EventSourceManifest);
                let (_, error, rest) = walk(&schema.fields, &event.data, event.bitness);
                assert_eq!(error, None, "{trace}: {key:?}");
                if event.provider == PERFVIEW && event.id == 13 {
                    assert_eq!((event.data.len(), rest), (16, 4), "{trace}");
                } else {
                    assert_eq!(rest, 0, "{trace}: {key:?}: bytes after the last field");
                }
                format!(
                    "{}/{}",
                    schema.provider_name.as_deref().unwrap(),
                    schema.display_name().unwrap()
                )
            };
            *counted.entry(name).or_default() += 1;
        }
        assert_eq!(counted, baseline_counts(trace), "{trace}");
    }
}
