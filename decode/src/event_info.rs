//! `MetaData/EventInfo` and `MetaData/EventMapInfo` events as owned schemas: the core reads
//! the `TRACE_EVENT_INFO` and `EVENT_MAP_INFO` in place ([`EventInfo`], [`EventMapInfo`]);
//! this module turns them into an [`EventSchema`] under its [`SchemaKey`] and a [`ValueMap`].
//!
//! The key is TraceEvent's (perfview `RegisteredTraceEventParser.cs`, `ParseEventMetaData`
//! and `TraceEventComparer`; PAYLOADS.md §4), with the version added, since a provider's
//! versions of one event have different fields:
//! - an event described by a manifest (`DecodingSource` 0): (provider GUID,
//!   `EVENT_DESCRIPTOR.Id`, `Version`), [`SchemaKey::Descriptor`];
//! - a classic event (`DecodingSource` 1, a MOF class): (`EventGuid`, `EVENT_DESCRIPTOR.Opcode`
//!   as the event type, `Version`), [`SchemaKey::Classic`], as TraceEvent's `lookupAsClassic`
//!   does, so that an .etl describes its own classic events the way merged traces describe
//!   manifest events.
//!
//! WPP and TraceLogging descriptions (`DecodingSource` 2 and 3) are refused: WPP events are
//! keyed by message GUID and id, and TraceLogging events carry their own metadata, whose ids
//! are usually 0.
//!
//! In a merged trace the `EventMapInfo` events of a provider's maps come after the `EventInfo`
//! that names them (seen in net.4.5.2.x64: buffer 18 offsets 51000 and 52680), so a schema is
//! made with the maps known so far ([`event_schema`]) and given the others as they come
//! ([`attach_map`]), as TraceEvent's lazy maps do.

use std::fmt;
use std::sync::Arc;

use etw_classic::payload::{
    DecodingSource, EventInfo, EventInfoError, EventMapInfo, FieldSchema, InType, MapFlags,
    MapInput, Utf16Name,
};

use crate::schema::{EventSchema, MapKind, Name, SchemaKey, SchemaOrigin, SchemaSource, ValueMap};

/// Why an `EventInfo` or `EventMapInfo` event gave no schema or map, and where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct EventInfoSchemaError {
    /// The event's place, as the caller gave it (`buffer 18 offset 0xc738`).
    pub place: String,
    /// What is wrong.
    pub kind: EventInfoSchemaErrorKind,
}

/// What is wrong with an `EventInfo` or `EventMapInfo` event, for a schema.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum EventInfoSchemaErrorKind {
    /// The structure could not be read (the structure, member and offset).
    Read(EventInfoError),
    /// A `DecodingSource` this module does not key (WPP, TraceLogging, or unknown).
    DecodingSource(DecodingSource),
    /// A map this module does not turn into a [`ValueMap`]: a pattern map, a map of string
    /// inputs, a MOF map without values, or one whose `Flag` says neither values nor bits.
    MapKind {
        /// `Flag`.
        flags: MapFlags,
        /// `MapEntryValueType`.
        value_type: u32,
    },
    /// The map has no name (`NameOffset` 0), so no field can name it.
    UnnamedMap,
}

impl fmt::Display for EventInfoSchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.place)?;
        match &self.kind {
            EventInfoSchemaErrorKind::Read(error) => write!(f, "{error}"),
            EventInfoSchemaErrorKind::DecodingSource(source) => write!(
                f,
                "TRACE_EVENT_INFO.DecodingSource {} ({source:?}): only manifest (0) and MOF (1) descriptions are keyed",
                source.0
            ),
            EventInfoSchemaErrorKind::MapKind { flags, value_type } => write!(
                f,
                "EVENT_MAP_INFO.Flag {:#x}, MapEntryValueType {value_type}: not a value map or bit map of numbers",
                flags.0
            ),
            EventInfoSchemaErrorKind::UnnamedMap => {
                f.write_str("EVENT_MAP_INFO.NameOffset is 0: the map has no name")
            }
        }
    }
}

impl std::error::Error for EventInfoSchemaError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            EventInfoSchemaErrorKind::Read(error) => Some(error),
            _ => None,
        }
    }
}

fn error(place: &str, kind: EventInfoSchemaErrorKind) -> EventInfoSchemaError {
    EventInfoSchemaError {
        place: place.to_owned(),
        kind,
    }
}

fn name(name: Utf16Name<'_>) -> Name {
    Name::from(name.to_string())
}

/// The key TraceEvent looks the described events up by (see the module's documentation).
///
/// # Errors
/// A `DecodingSource` other than 0 (manifest) and 1 (MOF).
pub fn schema_key(info: &EventInfo<'_>, place: &str) -> Result<SchemaKey, EventInfoSchemaError> {
    let descriptor = info.descriptor;
    match info.decoding_source {
        DecodingSource::XML_FILE => Ok(SchemaKey::Descriptor {
            provider: info.provider_guid,
            id: descriptor.id,
            version: descriptor.version,
        }),
        DecodingSource::WBEM => Ok(SchemaKey::Classic {
            class: info.event_guid,
            event_type: descriptor.opcode,
            version: descriptor.version,
        }),
        other => Err(error(
            place,
            EventInfoSchemaErrorKind::DecodingSource(other),
        )),
    }
}

/// The schema a `MetaData/EventInfo` event describes, under its key: origin
/// [`SchemaSource::EventInfo`] at `place`, the provider, task, opcode, level and keyword
/// names, the event's own name (`EventNameOffset`, when the description has one), the fields
/// in the core's preorder ([`EventInfo::collect_fields`]), and the maps the fields name that
/// `map` knows (it is asked each map name once; the others can be given later with
/// [`attach_map`]).
///
/// The names are as TDH wrote them (`win:Info`, `win:Informational`);
/// [`EventSchema::display_name`] leaves out a `win:Info` opcode as TraceEvent does.
///
/// # Errors
/// A structure or property that cannot be read, fields that contradict each other, or a
/// `DecodingSource` that is not keyed; each with `place`.
pub fn event_schema(
    data: &[u8],
    place: &str,
    mut map: impl FnMut(&str) -> Option<Arc<ValueMap>>,
) -> Result<(SchemaKey, EventSchema), EventInfoSchemaError> {
    let read = |e| error(place, EventInfoSchemaErrorKind::Read(e));
    let info = EventInfo::parse(data).map_err(read)?;
    let key = schema_key(&info, place)?;
    // PropertyCount fits in the data (24 bytes each), so this is bounded by the data.
    let capacity = usize::try_from(info.property_count).unwrap_or(0);
    let mut buffer = vec![FieldSchema::new(Utf16Name::EMPTY, InType::NULL); capacity];
    let fields = info.collect_fields(&mut buffer).map_err(read)?;

    let mut schema = EventSchema::new(SchemaOrigin {
        source: SchemaSource::EventInfo,
        place: place.to_owned(),
    });
    schema.provider_name = info.provider_name.map(name);
    schema.event_name = info.event_name().map(name);
    schema.task_name = info.task_name.map(name);
    schema.opcode_name = info.opcode_name.map(name);
    schema.level_name = info.level_name.map(name);
    schema.keyword_names = info.keyword_names().map(name).collect();
    schema.fields = fields.iter().map(|field| field.map_names(name)).collect();
    let mut asked: Vec<Name> = Vec::new();
    for field in &schema.fields {
        if let Some(map_name) = &field.map {
            if !asked.contains(map_name) {
                asked.push(map_name.clone());
                if let Some(found) = map(map_name) {
                    schema.maps.push(found);
                }
            }
        }
    }
    Ok((key, schema))
}

/// The provider GUID and the map of a `MetaData/EventMapInfo` event, the map's names trimmed
/// of the space TDH ends them with (TraceEvent's `ParseMap` trims them too): a manifest or MOF
/// value map gives [`MapKind::Value`], a manifest or MOF bit map [`MapKind::Bits`].
///
/// # Errors
/// The structure or an entry cannot be read; the map has no name; a pattern map, a map of
/// string inputs, or a `Flag` that names neither values nor bits (TraceEvent keeps only
/// manifest value and bit maps); each with `place`.
pub fn value_map(
    data: &[u8],
    place: &str,
) -> Result<(etw_classic::Guid, ValueMap), EventInfoSchemaError> {
    let read = |e| error(place, EventInfoSchemaErrorKind::Read(e));
    let info = EventMapInfo::parse(data).map_err(read)?;
    let map_name = info
        .name
        .ok_or_else(|| error(place, EventInfoSchemaErrorKind::UnnamedMap))?;
    let flags = info.flags;
    let kind = if flags.contains(MapFlags::MANIFEST_PATTERNMAP) || info.inputs_are_text() {
        None
    } else if flags.contains(MapFlags::MANIFEST_BITMAP) || flags.contains(MapFlags::WBEM_BITMAP) {
        Some(MapKind::Bits)
    } else if flags.contains(MapFlags::MANIFEST_VALUEMAP) || flags.contains(MapFlags::WBEM_VALUEMAP)
    {
        Some(MapKind::Value)
    } else {
        None
    };
    let kind = kind.ok_or_else(|| {
        error(
            place,
            EventInfoSchemaErrorKind::MapKind {
                flags,
                value_type: info.value_type,
            },
        )
    })?;
    let mut entries = Vec::new();
    for entry in info.entries() {
        let entry = entry.map_err(read)?;
        if let MapInput::Value(value) = entry.input {
            entries.push((
                u64::from(value),
                Name::from(entry.output.to_string().trim()),
            ));
        }
    }
    Ok((
        info.provider_guid,
        ValueMap {
            name: name(map_name),
            kind,
            entries,
        },
    ))
}

/// Gives `schema` the map `map` when one of its fields names it and it does not have a map of
/// that name yet; whether it did.
pub fn attach_map(schema: &mut EventSchema, map: &Arc<ValueMap>) -> bool {
    let named = schema
        .fields
        .iter()
        .any(|field| field.map.as_deref() == Some(&*map.name));
    if !named || schema.map(&map.name).is_some() {
        return false;
    }
    schema.maps.push(Arc::clone(map));
    true
}
