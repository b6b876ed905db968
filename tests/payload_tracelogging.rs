//! TraceLogging payloads decoded from the metadata the events carry: primitive-types.etl,
//! whose five `solar_system/PrimitiveTypesTest` events PerfView's own test baseline
//! (`primitive-types.baseline.txt` in microsoft/perfview's TraceEvent tests) prints as
//! `string_type=Mercury; boolean_type=False; char_type=77; int16_type=-51; ...`.

mod common;

use common::trace;
use etw_classic::payload::{InType, ItemKind, OutType, PayloadDecoder, TraceLoggingEvent, Value};
use etw_classic::wire::{EventHeaderFlags, ExtendedPayload};
use etw_classic::{Bitness, EtlFile, EventKind};

/// One TraceLogging event of the trace: provider name, metadata bytes, user data, bitness.
struct Logged {
    provider: String,
    metadata: Vec<u8>,
    data: Vec<u8>,
    bitness: Bitness,
}

fn tracelogging_events(name: &str) -> Option<Vec<Logged>> {
    let bytes = trace(name)?;
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
            let (items, data) = body.split().unwrap();
            let mut metadata = None;
            let mut provider = None;
            for item in items.iter() {
                match item.payload().unwrap() {
                    ExtendedPayload::EventSchemaTl(bytes) => metadata = Some(bytes.to_vec()),
                    ExtendedPayload::ProviderTraits(traits) => {
                        provider = traits.name_str().map(str::to_owned);
                    }
                    _ => {}
                }
            }
            if let (Some(metadata), Some(provider)) = (metadata, provider) {
                let bitness = if header.flags.contains(EventHeaderFlags::HEADER_32_BIT) {
                    Bitness::Bits32
                } else {
                    Bitness::Bits64
                };
                found.push(Logged {
                    provider,
                    metadata,
                    data: data.to_vec(),
                    bitness,
                });
            }
        }
    }
    Some(found)
}

/// The metadata of `PrimitiveTypesTest`: the names and in-types PAYLOADS.md §2 lists as seen
/// in the trace, and the out-types the metadata gives (`boolean_type` 0x84 / 3 BOOLEAN,
/// `char_type` 0x84 / 2 STRING).
#[test]
fn primitive_types_metadata_names_every_field() {
    let Some(events) = tracelogging_events("primitive-types.etl") else {
        return;
    };
    assert_eq!(
        events.len(),
        5,
        "the baseline counts 5 PrimitiveTypesTest events"
    );
    let first = &events[0];
    assert_eq!(first.provider, "solar_system");
    let event = TraceLoggingEvent::parse(&first.metadata).unwrap();
    assert_eq!(event.name, "PrimitiveTypesTest");
    assert_eq!(event.size, 182);
    assert_eq!(event.tags, 0);
    let fields: heapless::Vec<_, 16> = event.collect_fields().unwrap();
    let described: Vec<(&str, InType, OutType)> = fields
        .iter()
        .map(|field| (field.name, field.in_type, field.out_type))
        .collect();
    assert_eq!(
        described,
        [
            ("string_type", InType::ANSI_STRING, OutType::NULL),
            ("boolean_type", InType::UINT8, OutType::BOOLEAN),
            ("char_type", InType::UINT8, OutType::STRING),
            ("int16_type", InType::INT16, OutType::NULL),
            ("int32_type", InType::INT32, OutType::NULL),
            ("uint16_type", InType::UINT16, OutType::NULL),
            ("uint32_type", InType::UINT32, OutType::NULL),
            ("int64_type", InType::UINT64, OutType::NULL),
            ("uint64_type", InType::UINT64, OutType::NULL),
            ("guid_type", InType::GUID, OutType::NULL),
            ("file_time_type", InType::FILETIME, OutType::NULL),
            ("system_time_type", InType::SYSTEMTIME, OutType::NULL),
        ]
    );
}

/// string, boolean, char, int16, int32, uint16, uint32, int64, uint64, GUID prefix, DataLen.
type BaselineRow = (
    &'static str,
    bool,
    u8,
    i16,
    i32,
    u16,
    u32,
    i64,
    u64,
    &'static str,
    usize,
);

/// Each event's values against PerfView's baseline: the string, boolean, character and
/// integers exactly; the GUID by the prefix the baseline prints; the dates to the hundredth.
#[test]
fn primitive_types_values_match_perfview_baseline() {
    let Some(events) = tracelogging_events("primitive-types.etl") else {
        return;
    };
    // string, boolean, char, int16, int32, uint16, uint32, int64 (as the baseline prints
    // it), uint64, GUID prefix, data length
    let baseline: [BaselineRow; 5] = [
        (
            "Mercury",
            false,
            77,
            -51,
            -102,
            51,
            102,
            -204,
            204,
            "0ad614c4-0ef4-4225-8",
            78,
        ),
        (
            "Venus",
            true,
            86,
            -95,
            -190,
            95,
            190,
            -380,
            380,
            "e04ff801-9ea3-494f-a",
            76,
        ),
        (
            "Earth",
            false,
            69,
            -65,
            -130,
            65,
            130,
            -260,
            260,
            "c7a6c80e-f2a6-4220-a",
            76,
        ),
        (
            "Mars",
            false,
            77,
            -29,
            -58,
            29,
            58,
            -116,
            116,
            "0a922cee-67c1-4108-b",
            75,
        ),
        (
            "Jupiter",
            true,
            74,
            -69,
            -138,
            69,
            138,
            -276,
            276,
            "bb11b97b-1110-4eb6-b",
            78,
        ),
    ];
    // file_time_type: seconds and hundredths as the baseline prints them
    let times = [(35, 79), (36, 23), (36, 67), (37, 4), (37, 48)];
    for ((logged, expected), file_time) in events.iter().zip(baseline).zip(times) {
        let (string, boolean, character, i16_, i32_, u16_, u32_, i64_, u64_, guid, len) = expected;
        assert_eq!(logged.data.len(), len, "{string}: DataLen");
        let event = TraceLoggingEvent::parse(&logged.metadata).unwrap();
        let fields: heapless::Vec<_, 16> = event.collect_fields().unwrap();
        let mut decoder = PayloadDecoder::new(&fields, &logged.data, logged.bitness);
        let values: Vec<(&str, Value<'_>)> = decoder
            .by_ref()
            .map(|item| {
                let item = item.unwrap();
                let ItemKind::Value(value) = item.kind else {
                    panic!("{string}: no arrays or structures in this event");
                };
                (item.field.name, value)
            })
            .collect();
        assert!(
            decoder.rest().is_empty(),
            "{string}: every byte is a field's"
        );
        assert!(!decoder.failed());
        let value = |name: &str| {
            values
                .iter()
                .find(|(field, _)| *field == name)
                .map(|(_, value)| *value)
                .unwrap_or_else(|| panic!("{string}: no field {name}"))
        };
        assert_eq!(value("string_type"), Value::Ansi(string.as_bytes()));
        assert_eq!(value("boolean_type"), Value::U8(u8::from(boolean)));
        assert_eq!(value("char_type"), Value::U8(character));
        assert_eq!(value("int16_type"), Value::I16(i16_));
        assert_eq!(value("int32_type"), Value::I32(i32_));
        assert_eq!(value("uint16_type"), Value::U16(u16_));
        assert_eq!(value("uint32_type"), Value::U32(u32_));
        // The writer described int64_type as UINT64; the baseline prints its bits as signed.
        assert_eq!(value("int64_type"), Value::U64(i64_ as u64));
        assert_eq!(value("uint64_type"), Value::U64(u64_));
        let Value::Guid(actual) = value("guid_type") else {
            panic!("{string}: guid_type is not a GUID");
        };
        assert!(actual.to_string().starts_with(guid), "{string}: {actual}");
        // FILETIME: the baseline's date and time to the hundredth (14:59:35.79 for Mercury).
        let Value::FileTime(filetime) = value("file_time_type") else {
            panic!("{string}: file_time_type is not a FILETIME");
        };
        let utc = etw_classic::wire::UtcDateTime::from_filetime(filetime as i64);
        assert_eq!((utc.year, utc.month, utc.day), (2021, 9, 9), "{string}");
        assert_eq!((utc.hour, utc.minute), (14, 59), "{string}");
        assert_eq!((utc.second, utc.intervals / 100_000), file_time, "{string}");
        let Value::SystemTime(system_time) = value("system_time_type") else {
            panic!("{string}: system_time_type is not a SYSTEMTIME");
        };
        assert_eq!(
            (system_time.year, system_time.month, system_time.day),
            (2021, 9, 9)
        );
        assert_eq!(system_time.minute, 59, "{string}");
        // The baseline prints .03 for every event's system_time_type; the bytes hold the
        // same instant as file_time_type (Mercury: 14:59:35.799, as the baseline prints the
        // FILETIME). Where the two disagree the bytes decide.
        assert_eq!(system_time.hour, 14, "{string}");
        assert_eq!(
            (
                u32::from(system_time.second),
                u32::from(system_time.milliseconds / 10)
            ),
            (u32::from(file_time.0), file_time.1),
            "{string}"
        );
    }
}
