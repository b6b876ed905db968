//! The `MetaData/EventInfo` and `EventMapInfo` events of net.4.5.2.x64/x86 as owned schemas
//! and maps, learned in file order (a provider's maps come after the EventInfo that names
//! them), then used through the registry to decode the events they describe, compared with
//! the values PerfView's baselines print (`net.4.5.2.x64.baseline.txt`,
//! `net.4.5.2.x86.baseline.txt` in microsoft/perfview's TraceEvent tests).

mod shared_files;

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use etw_classic::payload::{
    FieldSchema, InType, EVENT_INFO_TYPE, EVENT_MAP_INFO_TYPE, METADATA_GUID,
};
use etw_classic::{EtlFile, EventKind, Guid};
use etw_classic_decode::event_info::{
    attach_map, event_schema, value_map, EventInfoSchemaErrorKind,
};
use etw_classic_decode::facts::Facts;
use etw_classic_decode::{
    Decoded, EventSchema, MapKind, Registry, SchemaKey, SchemaSource, ValueMap,
};
use serde_json::json;

/// The schemas and maps of a trace's MetaData events, learned in file order, and every event
/// decoded through a registry holding them: (schemas by key, maps by provider and name,
/// decoded events by display name).
struct Learned {
    schemas: HashMap<SchemaKey, EventSchema>,
    maps: HashMap<(Guid, String), Arc<ValueMap>>,
    decoded: HashMap<String, Vec<Decoded>>,
}

/// [`learn_once`] of each trace, once for all the tests.
fn learn(name: &str) -> Option<&'static Learned> {
    static X64: OnceLock<Option<Learned>> = OnceLock::new();
    static X86: OnceLock<Option<Learned>> = OnceLock::new();
    let cell = match name {
        "net.4.5.2.x64.etl" => &X64,
        "net.4.5.2.x86.etl" => &X86,
        other => panic!("no cache for {other}"),
    };
    cell.get_or_init(|| learn_once(name)).as_ref()
}

fn learn_once(name: &str) -> Option<Learned> {
    let bytes = shared_files::trace(name)?;
    let file = EtlFile::parse(&bytes).unwrap();
    let mut scratch = vec![0u8; file.buffer_size()];
    let mut schemas: HashMap<SchemaKey, EventSchema> = HashMap::new();
    let mut maps: HashMap<(Guid, String), Arc<ValueMap>> = HashMap::new();
    let mut providers: HashMap<SchemaKey, Guid> = HashMap::new();
    // First pass: the MetaData events.
    for buffer in file.buffers() {
        let buffer = buffer.unwrap();
        let index = buffer.index;
        for event in buffer.trace_buffer(&mut scratch).unwrap().events() {
            let event = event.unwrap();
            let EventKind::Full { header, data } = event.kind() else {
                continue;
            };
            if header.guid.guid() != METADATA_GUID {
                continue;
            }
            let place = format!("buffer {index} offset {:#x}", event.offset);
            match header.class.event_type.0 {
                EVENT_INFO_TYPE => {
                    let provider = Guid::from_bytes_le(data[..16].try_into().unwrap());
                    let (key, schema) = event_schema(data, &place, |map| {
                        maps.get(&(provider, map.to_owned())).cloned()
                    })
                    .unwrap_or_else(|e| panic!("{name}: {e}"));
                    providers.insert(key, provider);
                    schemas.insert(key, schema);
                }
                EVENT_MAP_INFO_TYPE => {
                    let (provider, map) =
                        value_map(data, &place).unwrap_or_else(|e| panic!("{name}: {e}"));
                    let map = Arc::new(map);
                    for (key, schema) in &mut schemas {
                        if providers[key] == provider {
                            attach_map(schema, &map);
                        }
                    }
                    maps.insert((provider, map.name.to_string()), map);
                }
                other => panic!("{place}: class type {other}"),
            }
        }
    }
    // Second pass: every event through the registry.
    let mut registry = Registry::new();
    for (key, schema) in &schemas {
        registry.insert(*key, Arc::new(schema.clone()));
    }
    let mut decoded: HashMap<String, Vec<Decoded>> = HashMap::new();
    for buffer in file.buffers() {
        let buffer = buffer.unwrap();
        for event in buffer.trace_buffer(&mut scratch).unwrap().events() {
            let event = event.unwrap();
            let facts = Facts::of(&event);
            if let Ok(event) = registry.decode(&facts) {
                if event.source == Some(SchemaSource::EventInfo) {
                    let name = event.event_name.clone().unwrap_or_default();
                    decoded.entry(name).or_default().push(event);
                }
            }
        }
    }
    Some(Learned {
        schemas,
        maps,
        decoded,
    })
}

fn guid(text: &str) -> Guid {
    Guid::parse_str(text).unwrap()
}

/// The DNS-Client description of PAYLOADS.md §4 as a schema: keyed by provider, id 1001 and
/// version 0, from buffer 18 offset 51000 (0xc738), with the names TDH wrote and the map that
/// came after it.
#[test]
fn dns_client_schema_and_its_map() {
    let Some(learned) = learn("net.4.5.2.x64.etl") else {
        return;
    };
    let key = SchemaKey::Descriptor {
        provider: guid("1c95126e-7eea-49a9-a3fe-a378b03ddb4d"),
        id: 1001,
        version: 0,
    };
    let schema = &learned.schemas[&key];
    assert_eq!(schema.origin.source, SchemaSource::EventInfo);
    assert_eq!(schema.origin.place, "buffer 18 offset 0xc738");
    assert_eq!(
        schema.provider_name.as_deref(),
        Some("Microsoft-Windows-DNS-Client")
    );
    assert_eq!(schema.task_name.as_deref(), Some("DnsServerForInterface"));
    assert_eq!(schema.opcode_name.as_deref(), Some("win:Info"));
    assert_eq!(schema.level_name.as_deref(), Some("win:Informational"));
    assert!(schema.keyword_names.is_empty());
    assert_eq!(schema.event_name, None);
    assert_eq!(
        schema.display_name().as_deref(),
        Some("DnsServerForInterface")
    );
    let names: Vec<&str> = schema.fields.iter().map(|f| &*f.name).collect();
    assert_eq!(
        names,
        [
            "Interface",
            "TotalServerCount",
            "Index",
            "DynamicAddress",
            "AddressLength",
            "Address"
        ]
    );
    let map = schema
        .map("DnsIpTypeMap")
        .expect("attached after the EventInfo");
    assert_eq!(map.kind, MapKind::Value);
    let entries: Vec<(u64, &str)> = map.entries.iter().map(|(v, n)| (*v, &**n)).collect();
    assert_eq!(entries, [(0, "static"), (1, "dynamic")]);
}

/// The maps of the CLR: a value map (`GCAllocationKindMap`: the baseline's
/// `AllocationKind=Small`) and bit maps (`MethodFlagsMap`: `MethodFlags=Jitted`;
/// `ModuleFlagsMap`: `ModuleFlags=DomainNeutral, Manif...`).
#[test]
fn clr_maps_name_values_and_bits() {
    let Some(learned) = learn("net.4.5.2.x64.etl") else {
        return;
    };
    let clr = guid("e13c0d23-ccbc-4e12-931b-d9cc2eee27e4");
    let map = |name: &str| learned.maps[&(clr, name.to_owned())].clone();
    let kind = map("GCAllocationKindMap");
    assert_eq!(kind.kind, MapKind::Value);
    assert_eq!(kind.describe(0).as_deref(), Some("Small"));
    assert_eq!(kind.describe(1).as_deref(), Some("Large"));
    let method = map("MethodFlagsMap");
    assert_eq!(method.kind, MapKind::Bits);
    assert_eq!(method.describe(8).as_deref(), Some("Jitted"));
    let module = map("ModuleFlagsMap");
    assert_eq!(
        module.describe(9).as_deref(),
        Some("DomainNeutral|Manifest")
    );
}

/// Through the registry, the events keep the counts of the baselines and their values: the
/// DNS-Client events (`Interface=Ethernet; TotalServerCount=4; Index=1; DynamicAddress=dynamic;
/// Address=...`) and `GC/AllocationTick` (`AllocationAmount=107,620; AllocationKind=Small;
/// ClrInstanceID=11; ...`), with no error and no byte left over.
#[test]
fn events_decode_through_the_registry_as_the_baselines_print_them() {
    for (name, tick_count, tick_type_id, tick) in [
        (
            "net.4.5.2.x64.etl",
            10382,
            "0x08c3d188",
            json!({
                "AllocationAmount": 107620,
                "AllocationKind": {"value": 0, "name": "Small"},
                "ClrInstanceID": 11,
                "AllocationAmount64": 107620,
                "HeapIndex": 0,
                "Address": "0x1118b854",
            }),
        ),
        (
            "net.4.5.2.x86.etl",
            3196,
            "0x08f52600",
            json!({
                "AllocationAmount": 103468,
                "AllocationKind": {"value": 0, "name": "Small"},
                "ClrInstanceID": 11,
                "AllocationAmount64": 103468,
                "HeapIndex": 0,
                "Address": "0x03c9abe8",
            }),
        ),
    ] {
        let Some(learned) = learn(name) else {
            return;
        };
        for (event_name, events) in &learned.decoded {
            for event in events {
                if event_name == "CLRStack/CLRStackWalk" {
                    // The CLR's manifest says 2 frames (`count="2"`); the events hold FrameCount.
                    continue;
                }
                assert_eq!(event.fields.error, None, "{name}: {event_name}");
                assert_eq!(event.fields.rest, 0, "{name}: {event_name}");
            }
        }
        let dns = &learned.decoded["DnsServerForInterface"];
        assert_eq!(dns.len(), 4, "{name}");
        for (index, event) in dns.iter().enumerate() {
            assert_eq!(
                event.provider_name.as_deref(),
                Some("Microsoft-Windows-DNS-Client")
            );
            let fields = &event.fields.fields;
            assert_eq!(fields["Interface"], json!("Ethernet"));
            assert_eq!(fields["TotalServerCount"], json!(4));
            assert_eq!(fields["Index"], json!(index + 1));
            assert_eq!(
                fields["DynamicAddress"],
                json!({"value": 1, "name": "dynamic"})
            );
            let address = fields["Address"].as_str().unwrap();
            let expected = [
                "[2001:4898::1050:105",
                "[2001:4898::1050:505",
                "10.50.10.50:0",
                "10.50.50.50:0",
            ][index];
            assert!(address.starts_with(expected), "{name}: {address}");
        }
        let ticks = &learned.decoded["GarbageCollection/GCAllocationTick"];
        assert_eq!(ticks.len(), tick_count, "{name}");
        let found = ticks
            .iter()
            .find(|event| event.fields.fields["TypeID"] == json!(tick_type_id))
            .unwrap_or_else(|| panic!("{name}: TypeID {tick_type_id}"));
        for (field, value) in tick.as_object().unwrap() {
            let found = &found.fields.fields[field];
            // The manifest shows AllocationAmount and AllocationAmount64 as hexadecimal
            // (`outType="win:HexInt32"`/`"win:HexInt64"`), PerfView's baseline in decimal:
            // compare the numbers.
            if let (Some(number), Some(text)) = (value.as_u64(), found.as_str()) {
                let hex = text.strip_prefix("0x").unwrap();
                assert_eq!(
                    u64::from_str_radix(hex, 16).unwrap(),
                    number,
                    "{name}: {field}"
                );
            } else {
                assert_eq!(found, value, "{name}: {field}");
            }
        }
        let type_name = found.fields.fields["TypeName"].as_str().unwrap();
        assert!(type_name.starts_with("System.Windows.Media"), "{type_name}");
    }
}

/// A classic description (`DecodingSource` 1) is keyed by its `EventGuid`, opcode and version,
/// as TraceEvent's `lookupAsClassic`; WPP and TraceLogging ones are refused with the place.
#[test]
fn classic_descriptions_are_keyed_by_event_guid_and_opcode() {
    // A TRACE_EVENT_INFO of no property, built from the layout of tdh.h.
    let mut info = vec![0u8; 112];
    let class = guid("3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c");
    info[16..32].copy_from_slice(&class.to_bytes_le());
    info[32..34].copy_from_slice(&7u16.to_le_bytes()); // Id, ignored for classic events
    info[34] = 3; // Version
    info[37] = 1; // Opcode
    info[48] = 1; // DecodingSource: WBEM
    let (key, schema) = event_schema(&info, "here", |_| None).unwrap();
    assert_eq!(
        key,
        SchemaKey::Classic {
            class,
            event_type: 1,
            version: 3
        }
    );
    assert!(schema.fields.is_empty());
    info[48] = 2;
    let error = event_schema(&info, "buffer 1 offset 0x48", |_| None).unwrap_err();
    assert!(matches!(
        error.kind,
        EventInfoSchemaErrorKind::DecodingSource(_)
    ));
    assert!(error.to_string().starts_with("buffer 1 offset 0x48: "));
    let error = event_schema(&info[..100], "there", |_| None).unwrap_err();
    assert_eq!(
        error.to_string(),
        "there: TRACE_EVENT_INFO.EventPropertyInfoArray at data offset 0: needs 112 bytes of data, the event has 100"
    );
}

/// A map that names no field of a schema, or that the schema has already, is not attached.
#[test]
fn maps_attach_once_and_only_where_named() {
    let mut schema = EventSchema::new(etw_classic_decode::SchemaOrigin {
        source: SchemaSource::EventInfo,
        place: String::new(),
    });
    schema
        .fields
        .push(FieldSchema::new("Kind".into(), InType::UINT32).with_map("KindMap".into()));
    let map = |name: &str| {
        Arc::new(ValueMap {
            name: name.into(),
            kind: MapKind::Value,
            entries: vec![(0, "Zero".into())],
        })
    };
    assert!(!attach_map(&mut schema, &map("OtherMap")));
    assert!(attach_map(&mut schema, &map("KindMap")));
    assert!(!attach_map(&mut schema, &map("KindMap")));
    assert_eq!(schema.maps.len(), 1);
}
