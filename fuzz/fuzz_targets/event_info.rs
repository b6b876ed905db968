//! `MetaData/EventInfo` (`TRACE_EVENT_INFO`) and `EventMapInfo` (`EVENT_MAP_INFO`) data read
//! in place, on any bytes.
//!
//! Input: one byte (bit 0: 32-bit pointers for the walk), a little-endian `u16` length `n`,
//! then `n` bytes of structure (or what is left) and the event data after it. Laws:
//! - nothing panics; every error names a member and an offset inside the structure;
//! - what `EventInfo::parse` and `EventMapInfo::parse` give is what the bytes hold at the
//!   offsets of tdh.h, read here with `from_le_bytes` (the model): the GUIDs, the descriptor,
//!   the counts, each name the NUL-terminated UTF-16LE at its offset (nothing past the input);
//!   the binary XML the slice at its offset;
//! - each property and map entry read agrees with the model, and the reading stops at the
//!   first error;
//! - `collect_fields` gives at most `PropertyCount` fields that `check_fields` accepts, and
//!   the data walked with them tiles as in `payload_tracelogging`;
//! - everything is deterministic: reading twice gives the same.
#![no_main]

use etw_classic::payload::{
    check_fields, EventInfo, EventInfoError, EventMapInfo, FieldSchema, InType, MapInput,
    PayloadDecoder, PropertyType, Utf16Name,
};
use etw_classic::{Bitness, Guid};
use libfuzzer_sys::fuzz_target;

fn u16_at(bytes: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([bytes[at], bytes[at + 1]])
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap())
}

fn guid_at(bytes: &[u8], at: usize) -> Guid {
    Guid::from_bytes_le(bytes[at..at + 16].try_into().unwrap())
}

/// The model of a name: the code units from `offset` to the first NUL unit, `None` for offset
/// 0; `Err` when the offset is outside or no NUL ends it.
fn model_name(bytes: &[u8], offset: u32) -> Result<Option<Vec<u16>>, ()> {
    if offset == 0 {
        return Ok(None);
    }
    let start = offset as usize;
    if start >= bytes.len() {
        return Err(());
    }
    let mut units = Vec::new();
    let mut at = start;
    while at + 2 <= bytes.len() {
        let unit = u16_at(bytes, at);
        if unit == 0 {
            return Ok(Some(units));
        }
        units.push(unit);
        at += 2;
    }
    Err(())
}

fn units(name: Option<Utf16Name<'_>>) -> Option<Vec<u16>> {
    name.map(|name| name.text().units().collect())
}

fn check_error(error: &EventInfoError, len: usize) {
    assert!(error.offset <= len, "{error}");
    assert!(!error.member.is_empty());
    assert!(!error.to_string().is_empty());
}

fn check_event_info(info_bytes: &[u8], data: &[u8], bitness: Bitness) {
    let parsed = EventInfo::parse(info_bytes);
    assert_eq!(parsed, EventInfo::parse(info_bytes), "deterministic");
    let info = match parsed {
        Ok(info) => info,
        Err(error) => {
            check_error(&error, info_bytes.len());
            return;
        }
    };
    // The fixed part, read by the model.
    assert!(info_bytes.len() >= 112);
    let property_count = u32_at(info_bytes, 100);
    assert!(112 + 24 * property_count as usize <= info_bytes.len());
    assert_eq!(info.property_count, property_count);
    assert_eq!(info.top_level_property_count, u32_at(info_bytes, 104));
    assert!(info.top_level_property_count <= property_count);
    assert_eq!(info.provider_guid, guid_at(info_bytes, 0));
    assert_eq!(info.event_guid, guid_at(info_bytes, 16));
    let d = info.descriptor;
    assert_eq!(d.id, u16_at(info_bytes, 32));
    assert_eq!(
        (d.version, d.channel, d.level.0, d.opcode),
        (
            info_bytes[34],
            info_bytes[35],
            info_bytes[36],
            info_bytes[37]
        )
    );
    assert_eq!(d.task, u16_at(info_bytes, 38));
    assert_eq!(
        d.keyword,
        u64::from_le_bytes(info_bytes[40..48].try_into().unwrap())
    );
    assert_eq!(info.decoding_source.0, u32_at(info_bytes, 48));
    for (name, at) in [
        (info.provider_name, 52),
        (info.level_name, 56),
        (info.channel_name, 60),
        (info.task_name, 68),
        (info.opcode_name, 72),
        (info.event_message, 76),
        (info.provider_message, 80),
    ] {
        assert_eq!(
            units(name),
            model_name(info_bytes, u32_at(info_bytes, at)).unwrap()
        );
    }
    let at_92 = model_name(info_bytes, u32_at(info_bytes, 92)).unwrap();
    assert_eq!(units(info.event_name().or(info.activity_id_name())), at_92);
    let xml_offset = u32_at(info_bytes, 84) as usize;
    let xml_size = u32_at(info_bytes, 88) as usize;
    assert_eq!(
        info.binary_xml,
        &info_bytes[xml_offset..xml_offset + xml_size]
    );
    if xml_size > 0 {
        assert_eq!(info.binary_xml.as_ptr(), info_bytes[xml_offset..].as_ptr());
    }
    for keyword in info.keyword_names() {
        assert!(!keyword.is_empty());
    }

    // The properties, each against the model.
    let mut read = 0u32;
    for property in info.properties() {
        let property = match property {
            Ok(property) => property,
            Err(error) => {
                check_error(&error, info_bytes.len());
                break;
            }
        };
        let at = 112 + 24 * property.index as usize;
        assert_eq!(property.index, read);
        read += 1;
        assert_eq!(property.flags.0, u32_at(info_bytes, at));
        assert_eq!(
            units(Some(property.name)),
            Some(
                model_name(info_bytes, u32_at(info_bytes, at + 4))
                    .unwrap()
                    .unwrap_or_default()
            )
        );
        match property.kind {
            PropertyType::Struct {
                start_index,
                members,
            } => {
                assert!(property.flags.0 & 1 != 0);
                assert_eq!(
                    (start_index, members),
                    (u16_at(info_bytes, at + 8), u16_at(info_bytes, at + 10))
                );
            }
            PropertyType::Value {
                in_type,
                out_type,
                map_name,
            } => {
                assert_eq!(
                    (in_type.0, out_type.0),
                    (u16_at(info_bytes, at + 8), u16_at(info_bytes, at + 10))
                );
                assert_eq!(
                    units(map_name),
                    model_name(info_bytes, u32_at(info_bytes, at + 12)).unwrap()
                );
            }
            PropertyType::CustomSchema { schema_offset, .. } => {
                assert!(property.flags.0 & 0x80 != 0);
                assert_eq!(schema_offset, u32_at(info_bytes, at + 12));
            }
            _ => {}
        }
        assert_eq!(
            (property.count, property.length),
            (u16_at(info_bytes, at + 16), u16_at(info_bytes, at + 18))
        );
    }
    assert!(read <= property_count);

    // The fields in preorder, and the data walked with them.
    let mut buffer = [FieldSchema::new(Utf16Name::EMPTY, InType::NULL); 64];
    let mut again = buffer;
    let fields = info.collect_fields(&mut buffer);
    let second = info.collect_fields(&mut again);
    assert_eq!(fields, second, "deterministic");
    let fields = match fields {
        Ok(fields) => fields,
        Err(error) => {
            check_error(&error, info_bytes.len());
            return;
        }
    };
    assert!(fields.len() <= property_count as usize);
    assert_eq!(check_fields(fields), Ok(()));
    let mut decoder = PayloadDecoder::new(fields, data, bitness);
    let mut tiled = 0usize;
    for item in decoder.by_ref() {
        match item {
            Ok(item) => {
                assert_eq!(item.offset, tiled, "items tile the data");
                tiled += item.bytes.len();
            }
            Err(error) => {
                assert_eq!(error.offset, tiled, "an error is where its field starts");
                assert!(usize::from(error.field) < fields.len());
            }
        }
    }
    assert_eq!(decoder.offset(), tiled);
    assert!(tiled <= data.len());
}

fn check_map_info(map_bytes: &[u8]) {
    let parsed = EventMapInfo::parse(map_bytes);
    assert_eq!(parsed, EventMapInfo::parse(map_bytes), "deterministic");
    let map = match parsed {
        Ok(map) => map,
        Err(error) => {
            check_error(&error, map_bytes.len());
            return;
        }
    };
    // EVENT_MAP_INFO starts at byte 16; its offsets are from there.
    let info = &map_bytes[16..];
    assert_eq!(map.provider_guid, guid_at(map_bytes, 0));
    assert_eq!(units(map.name), model_name(info, u32_at(info, 0)).unwrap());
    assert_eq!(map.flags.0, u32_at(info, 4));
    assert_eq!(map.entry_count, u32_at(info, 8));
    assert!(16 + 8 * map.entry_count as usize <= info.len());
    assert_eq!(map.value_type, u32_at(info, 12));
    let text = map.flags.0 & 4 != 0 || map.value_type == 1;
    let mut read = 0u32;
    for entry in map.entries() {
        let entry = match entry {
            Ok(entry) => entry,
            Err(error) => {
                check_error(&error, map_bytes.len());
                break;
            }
        };
        let at = 16 + 8 * entry.index as usize;
        assert_eq!(entry.index, read);
        read += 1;
        assert_eq!(
            units(Some(entry.output)),
            Some(
                model_name(info, u32_at(info, at))
                    .unwrap()
                    .unwrap_or_default()
            )
        );
        match entry.input {
            MapInput::Value(value) => {
                assert!(!text);
                assert_eq!(value, u32_at(info, at + 4));
            }
            MapInput::Text(input) => {
                assert!(text);
                assert_eq!(
                    units(Some(input)),
                    Some(
                        model_name(info, u32_at(info, at + 4))
                            .unwrap()
                            .unwrap_or_default()
                    )
                );
            }
            _ => {}
        }
    }
    assert!(read <= map.entry_count);
    if let Err(error) = map.format_string() {
        check_error(&error, map_bytes.len());
    }
}

fuzz_target!(|input: &[u8]| {
    let Some((&choice, rest)) = input.split_first() else {
        return;
    };
    let bitness = if choice & 1 == 1 {
        Bitness::Bits32
    } else {
        Bitness::Bits64
    };
    let (length, rest) = match rest.split_first_chunk::<2>() {
        Some((length, rest)) => (usize::from(u16::from_le_bytes(*length)), rest),
        None => (rest.len(), rest),
    };
    let (structure, data) = rest.split_at(length.min(rest.len()));
    check_event_info(structure, data, bitness);
    check_map_info(structure);
});
