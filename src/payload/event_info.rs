//! `MetaData/EventInfo` and `MetaData/EventMapInfo` events, read in place: the descriptions
//! of manifest (and classic) events that merged traces carry, as TDH returns them.
//!
//! When xperf or PerfView merges a trace, `KernelTraceControl` writes classic events with the
//! GUID [`METADATA_GUID`] (`bbccf6c1-6cd1-48c4-80ff-839482e37671`): class type
//! [`EVENT_INFO_TYPE`] (32) holds a `TRACE_EVENT_INFO` exactly as `TdhGetEventInformation`
//! returns it, class type [`EVENT_MAP_INFO_TYPE`] (33) the provider's GUID followed by an
//! `EVENT_MAP_INFO` as `TdhGetEventMapInformation` returns it (PAYLOADS.md §4; perfview
//! `SymbolTraceEventParser.cs`, `MetaDataEventInfo` opcode 32, `EventMapInfo` opcode 33).
//!
//! The layouts are tdh.h's. Every offset in them is from the start of its structure and
//! names a NUL-terminated UTF-16LE string; an offset of 0 means none. Seen in net.4.5.2.x64
//! (buffer 18 offset 51000): `Microsoft-Windows-DNS-Client`, task `DnsServerForInterface`,
//! opcode `win:Info`, six properties from byte 112.
//!
//! [`EventInfo::parse`] checks the fixed part, every name offset and the property array
//! against the event's length; [`EventInfo::property`] checks one `EVENT_PROPERTY_INFO` and
//! its names; [`EventInfo::collect_fields`] puts the properties in the core's preorder
//! ([`FieldSchema`]), a structure followed at once by its members, into a buffer the caller
//! gives. Nothing allocates and no input panics; an error names the structure, the member
//! and its offset in the event's data.

use crate::payload::schema::MAX_STRUCT_DEPTH;
use crate::payload::schema::{check_fields, Count, FieldSchema, Length, SchemaError};
use crate::payload::types::{InType, OutType};
use crate::wire::{EventDescriptor, Guid, Level, Utf16Str};

/// The GUID of `KernelTraceControl`'s `MetaData` events:
/// `bbccf6c1-6cd1-48c4-80ff-839482e37671` (PAYLOADS.md §1, perfview
/// `SymbolTraceEventParser.cs`).
pub const METADATA_GUID: Guid = Guid::from_fields(
    0xbbcc_f6c1,
    0x6cd1,
    0x48c4,
    [0x80, 0xff, 0x83, 0x94, 0x82, 0xe3, 0x76, 0x71],
);

/// The class type (opcode) of a `MetaData/EventInfo` event: a `TRACE_EVENT_INFO`.
pub const EVENT_INFO_TYPE: u8 = 32;

/// The class type (opcode) of a `MetaData/EventMapInfo` event: a provider GUID, then an
/// `EVENT_MAP_INFO`.
pub const EVENT_MAP_INFO_TYPE: u8 = 33;

/// Bytes of `TRACE_EVENT_INFO` before `EventPropertyInfoArray` (tdh.h).
pub const TRACE_EVENT_INFO_LEN: usize = 112;

/// Bytes of one `EVENT_PROPERTY_INFO` (tdh.h).
pub const EVENT_PROPERTY_INFO_LEN: usize = 24;

/// Bytes of `EVENT_MAP_INFO` before `MapEntryArray` (tdh.h).
pub const EVENT_MAP_INFO_LEN: usize = 16;

/// Bytes of one `EVENT_MAP_ENTRY` (tdh.h).
pub const EVENT_MAP_ENTRY_LEN: usize = 8;

// ---------------------------------------------------------------------------------------------
// Names

/// A name read in place from a `TRACE_EVENT_INFO` or `EVENT_MAP_INFO`: UTF-16LE code units
/// borrowed from the event's data, without their terminating NUL.
///
/// It prints as text (an unpaired surrogate as U+FFFD), compares with `str` by code units,
/// and hashes its code units, so it can be a schema's name type
/// ([`FieldSchema<Utf16Name>`](FieldSchema)).
///
/// ```
/// use etw_classic::payload::Utf16Name;
/// let bytes = [b'G', 0, b'C', 0];
/// let name = Utf16Name::from_le_bytes(&bytes);
/// assert!(name == "GC");
/// assert_eq!(name.len(), 2);
/// ```
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Utf16Name<'a>(Utf16Str<'a>);

impl<'a> Utf16Name<'a> {
    /// The empty name.
    pub const EMPTY: Utf16Name<'static> = Utf16Name(Utf16Str::from_units(&[]));

    /// The name of these little-endian code units (a last odd byte is left out).
    pub fn from_le_bytes(bytes: &'a [u8]) -> Self {
        Self(Utf16Str::from_le_bytes(bytes))
    }

    /// The name as the crate's UTF-16 text type.
    pub const fn text(&self) -> Utf16Str<'a> {
        self.0
    }

    /// The number of UTF-16 code units.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether the name has no code unit.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The characters, with U+FFFD for each unpaired surrogate.
    pub fn chars(&self) -> impl Iterator<Item = char> + 'a {
        self.0.chars()
    }
}

impl Default for Utf16Name<'_> {
    fn default() -> Self {
        Utf16Name::EMPTY
    }
}

impl PartialEq<str> for Utf16Name<'_> {
    /// Exact comparison of the code units with the UTF-16 encoding of `other`.
    fn eq(&self, other: &str) -> bool {
        self.0 == *other
    }
}

impl PartialEq<&str> for Utf16Name<'_> {
    fn eq(&self, other: &&str) -> bool {
        self.0 == **other
    }
}

impl core::hash::Hash for Utf16Name<'_> {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        state.write_usize(self.0.len());
        for unit in self.0.units() {
            state.write_u16(unit);
        }
    }
}

impl core::fmt::Display for Utf16Name<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Display::fmt(&self.0, f)
    }
}

impl core::fmt::Debug for Utf16Name<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Debug::fmt(&self.0, f)
    }
}

#[cfg(feature = "defmt")]
#[cfg_attr(docsrs, doc(cfg(feature = "defmt")))]
impl defmt::Format for Utf16Name<'_> {
    fn format(&self, f: defmt::Formatter) {
        defmt::Format::format(&self.0, f);
    }
}

// ---------------------------------------------------------------------------------------------
// Codes

open_code! {
    /// `TRACE_EVENT_INFO.DecodingSource` (tdh.h `DECODING_SOURCE`): where TDH found the
    /// description.
    pub struct DecodingSource(u32) {
        /// `DecodingSourceXMLFile`: an instrumentation manifest.
        XML_FILE = 0,
        /// `DecodingSourceWbem`: a classic provider's MOF class. TraceEvent looks such an
        /// event up by `EventGuid` and opcode, not by id (`lookupAsClassic`).
        WBEM = 1,
        /// `DecodingSourceWPP`: WPP (TMF) descriptions.
        WPP = 2,
        /// `DecodingSourceTlg`: TraceLogging metadata.
        TLG = 3,
    }
}

open_flags! {
    /// `TRACE_EVENT_INFO.Flags` (tdh.h `TEMPLATE_FLAGS`), the low 4 bits of the member whose
    /// high 28 bits are the event's tags ([`EventInfo::tags`]).
    pub struct TemplateFlags(u32) {
        /// `TEMPLATE_EVENT_DATA`: the template uses `<data>` (EventData) elements.
        EVENT_DATA = 0x1,
        /// `TEMPLATE_USER_DATA`: the template uses a `<UserData>` element.
        USER_DATA = 0x2,
        /// `TEMPLATE_CONTROL_GUID`: the event is a control GUID's (classic).
        CONTROL_GUID = 0x4,
    }
}

open_flags! {
    /// `EVENT_PROPERTY_INFO.Flags` (tdh.h `PROPERTY_FLAGS`).
    pub struct PropertyFlags(u32) {
        /// `PropertyStruct`: the property is a structure whose members are
        /// `StructStartIndex .. StructStartIndex + NumOfStructMembers`.
        STRUCT = 0x1,
        /// `PropertyParamLength`: `length` is the index of the property holding the length.
        PARAM_LENGTH = 0x2,
        /// `PropertyParamCount`: `count` is the index of the property holding the count.
        PARAM_COUNT = 0x4,
        /// `PropertyWBEMXmlFragment`: the property holds an XML fragment.
        WBEM_XML_FRAGMENT = 0x8,
        /// `PropertyParamFixedLength`: `length` is a fixed length.
        PARAM_FIXED_LENGTH = 0x10,
        /// `PropertyParamFixedCount`: `count` is a fixed count.
        PARAM_FIXED_COUNT = 0x20,
        /// `PropertyHasTags`: the low 28 bits of `Reserved` are the property's tags.
        HAS_TAGS = 0x40,
        /// `PropertyHasCustomSchema`: `MapNameOffset` is `CustomSchemaOffset`.
        HAS_CUSTOM_SCHEMA = 0x80,
    }
}

open_flags! {
    /// `EVENT_MAP_INFO.Flag` (tdh.h `MAP_FLAGS`): what kind of map.
    pub struct MapFlags(u32) {
        /// `EVENTMAP_INFO_FLAG_MANIFEST_VALUEMAP`: a manifest `<valueMap>`.
        MANIFEST_VALUEMAP = 0x1,
        /// `EVENTMAP_INFO_FLAG_MANIFEST_BITMAP`: a manifest `<bitMap>`.
        MANIFEST_BITMAP = 0x2,
        /// `EVENTMAP_INFO_FLAG_MANIFEST_PATTERNMAP`: a manifest `<patternMap>`; the entries'
        /// inputs are strings.
        MANIFEST_PATTERNMAP = 0x4,
        /// `EVENTMAP_INFO_FLAG_WBEM_VALUEMAP`: a MOF `ValueMap`.
        WBEM_VALUEMAP = 0x8,
        /// `EVENTMAP_INFO_FLAG_WBEM_BITMAP`: a MOF `ValueMap` of bits.
        WBEM_BITMAP = 0x10,
        /// `EVENTMAP_INFO_FLAG_WBEM_FLAG`: the MOF map's values are flags.
        WBEM_FLAG = 0x20,
        /// `EVENTMAP_INFO_FLAG_WBEM_NO_MAP`: MOF `Values` without a `ValueMap`.
        WBEM_NO_MAP = 0x40,
    }
}

/// `EVENT_MAP_INFO.MapEntryValueType` (tdh.h `MAP_VALUETYPE`) when it says the entries'
/// inputs are strings: `EVENTMAP_ENTRY_VALUETYPE_STRING`.
pub const MAP_VALUETYPE_STRING: u32 = 1;

// ---------------------------------------------------------------------------------------------
// Errors

/// Which structure of an `EventInfo` or `EventMapInfo` event an error is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum InfoStructure {
    /// The fixed part of `TRACE_EVENT_INFO`.
    TraceEventInfo,
    /// The `EVENT_PROPERTY_INFO` at this index of `EventPropertyInfoArray`.
    PropertyInfo(u32),
    /// The provider GUID before an `EVENT_MAP_INFO`, or the fixed part of `EVENT_MAP_INFO`.
    EventMapInfo,
    /// The `EVENT_MAP_ENTRY` at this index of `MapEntryArray`.
    MapEntry(u32),
}

impl core::fmt::Display for InfoStructure {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            Self::TraceEventInfo => f.write_str("TRACE_EVENT_INFO"),
            Self::PropertyInfo(index) => write!(f, "EVENT_PROPERTY_INFO #{index}"),
            Self::EventMapInfo => f.write_str("EVENT_MAP_INFO"),
            Self::MapEntry(index) => write!(f, "EVENT_MAP_ENTRY #{index}"),
        }
    }
}

/// What is wrong in an `EventInfo` or `EventMapInfo` event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum EventInfoErrorKind {
    /// The data ends inside the structure.
    TooShort {
        /// Bytes the structure needs from the start of the data.
        needed: usize,
        /// Bytes of data.
        len: usize,
    },
    /// A count of array elements that do not fit in the data.
    CountTooLarge {
        /// The count.
        count: u32,
        /// How many fit.
        fits: usize,
    },
    /// A name's offset lies outside the structure.
    OffsetOutOfRange {
        /// The offset, from the start of the structure.
        value: u32,
        /// The structure's bytes.
        len: usize,
    },
    /// No NUL code unit ends the name (or the list of names) at this offset.
    Unterminated {
        /// The offset, from the start of the structure.
        value: u32,
    },
    /// A run of bytes (`BinaryXMLOffset` and `BinaryXMLSize`) that ends past the structure.
    RangeOutOfBounds {
        /// Its offset.
        offset: u32,
        /// Its size.
        size: u32,
        /// The structure's bytes.
        len: usize,
    },
    /// `TopLevelPropertyCount` is larger than `PropertyCount`.
    TopLevelTooLarge {
        /// `TopLevelPropertyCount`.
        top_level: u32,
        /// `PropertyCount`.
        property_count: u32,
    },
    /// An index (of a property: a structure's members, a count's or length's property; of a
    /// map entry) is not below the number of elements (`PropertyCount`, `EntryCount`).
    IndexOutOfRange {
        /// The index (for a structure, one past its last member).
        index: u32,
        /// The number of elements.
        count: u32,
    },
    /// A count or length names a property that is not among the fields the event's
    /// top-level properties reach.
    NotAField {
        /// The property it names.
        index: u32,
    },
    /// Structures nest deeper than [`MAX_STRUCT_DEPTH`] levels.
    TooDeep,
    /// Structures reach more fields than `PropertyCount`: their members overlap (TraceEvent
    /// rejects such a description the same way).
    MoreFieldsThanProperties {
        /// `PropertyCount`.
        property_count: u32,
    },
    /// More fields than the caller's buffer holds.
    TooManyFields {
        /// The buffer's length.
        capacity: usize,
    },
    /// The fields contradict each other (a count from a later field, from a field that is not
    /// an integer, ...); the error's structure is the property at fault.
    Schema(SchemaError),
}

/// Where and why an `EventInfo` or `EventMapInfo` event could not be read: the structure, its
/// member (tdh.h's name) and the member's offset in the event's data.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub struct EventInfoError {
    /// The structure.
    pub structure: InfoStructure,
    /// The member, as tdh.h names it (`ProviderNameOffset`, `StructStartIndex`, ...).
    pub member: &'static str,
    /// The member's offset in the event's data.
    pub offset: usize,
    /// What is wrong.
    pub kind: EventInfoErrorKind,
}

impl EventInfoError {
    const fn new(
        structure: InfoStructure,
        member: &'static str,
        offset: usize,
        kind: EventInfoErrorKind,
    ) -> Self {
        Self {
            structure,
            member,
            offset,
            kind,
        }
    }
}

impl core::fmt::Display for EventInfoError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "{}.{} at data offset {}: ",
            self.structure, self.member, self.offset
        )?;
        match self.kind {
            EventInfoErrorKind::TooShort { needed, len } => {
                write!(f, "needs {needed} bytes of data, the event has {len}")
            }
            EventInfoErrorKind::CountTooLarge { count, fits } => {
                write!(f, "{count} elements, but only {fits} fit in the data")
            }
            EventInfoErrorKind::OffsetOutOfRange { value, len } => write!(
                f,
                "offset {value:#x} is past the structure's {len} bytes"
            ),
            EventInfoErrorKind::Unterminated { value } => write!(
                f,
                "the name at offset {value:#x} has no NUL before the end of the data"
            ),
            EventInfoErrorKind::RangeOutOfBounds { offset, size, len } => write!(
                f,
                "{size} bytes at offset {offset:#x} run past the structure's {len} bytes"
            ),
            EventInfoErrorKind::TopLevelTooLarge {
                top_level,
                property_count,
            } => write!(
                f,
                "{top_level} top-level properties, more than the {property_count} properties"
            ),
            EventInfoErrorKind::IndexOutOfRange { index, count } => {
                write!(f, "index {index} is not below the {count} elements")
            }
            EventInfoErrorKind::NotAField { index } => write!(
                f,
                "names property #{index}, which is not one of the event's fields"
            ),
            EventInfoErrorKind::TooDeep => write!(
                f,
                "structures nest deeper than {MAX_STRUCT_DEPTH} levels"
            ),
            EventInfoErrorKind::MoreFieldsThanProperties { property_count } => write!(
                f,
                "structures reach more fields than the {property_count} properties (their members overlap)"
            ),
            EventInfoErrorKind::TooManyFields { capacity } => {
                write!(f, "more fields than the {capacity} the buffer holds")
            }
            EventInfoErrorKind::Schema(error) => write!(f, "{error}"),
        }
    }
}

impl core::error::Error for EventInfoError {}

// ---------------------------------------------------------------------------------------------
// Reading helpers

fn bytes_at<const N: usize>(data: &[u8], at: usize) -> Option<[u8; N]> {
    data.get(at..)?.first_chunk::<N>().copied()
}

fn u16_at(data: &[u8], at: usize) -> u16 {
    bytes_at::<2>(data, at).map_or(0, u16::from_le_bytes)
}

fn u32_at(data: &[u8], at: usize) -> u32 {
    bytes_at::<4>(data, at).map_or(0, u32::from_le_bytes)
}

fn guid_at(data: &[u8], at: usize) -> Guid {
    bytes_at::<16>(data, at).map_or(Guid::NIL, Guid::from_bytes_le)
}

fn usize_of(value: u32) -> usize {
    usize::try_from(value).unwrap_or(usize::MAX)
}

/// What can be wrong with a name offset, before the caller names where it was read.
enum NameFault {
    OutOfRange,
    Unterminated,
}

/// The NUL-terminated UTF-16LE name at `offset` of `structure` (0: none).
fn name_in(structure: &[u8], offset: u32) -> Result<Option<Utf16Name<'_>>, NameFault> {
    if offset == 0 {
        return Ok(None);
    }
    let from = structure
        .get(usize_of(offset)..)
        .filter(|rest| !rest.is_empty())
        .ok_or(NameFault::OutOfRange)?;
    match Utf16Str::split_nul_terminated(from) {
        (name, Some(_)) => Ok(Some(Utf16Name(name))),
        (_, None) => Err(NameFault::Unterminated),
    }
}

/// Checks the double-NUL-terminated list of names at `offset` (`KeywordsNameOffset`).
fn check_name_list(structure: &[u8], offset: u32) -> Result<(), NameFault> {
    if offset == 0 {
        return Ok(());
    }
    let mut rest = structure
        .get(usize_of(offset)..)
        .filter(|rest| !rest.is_empty())
        .ok_or(NameFault::OutOfRange)?;
    loop {
        match Utf16Str::split_nul_terminated(rest) {
            (name, Some(_)) if name.is_empty() => return Ok(()),
            (_, Some(after)) => rest = after,
            (_, None) => return Err(NameFault::Unterminated),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// TRACE_EVENT_INFO

/// The offsets of `TRACE_EVENT_INFO`'s members (tdh.h), from the start of the structure.
mod at {
    pub const PROVIDER_GUID: usize = 0;
    pub const EVENT_GUID: usize = 16;
    pub const EVENT_DESCRIPTOR: usize = 32;
    pub const DECODING_SOURCE: usize = 48;
    pub const PROVIDER_NAME: usize = 52;
    pub const LEVEL_NAME: usize = 56;
    pub const CHANNEL_NAME: usize = 60;
    pub const KEYWORDS_NAME: usize = 64;
    pub const TASK_NAME: usize = 68;
    pub const OPCODE_NAME: usize = 72;
    pub const EVENT_MESSAGE: usize = 76;
    pub const PROVIDER_MESSAGE: usize = 80;
    pub const BINARY_XML: usize = 84;
    pub const BINARY_XML_SIZE: usize = 88;
    pub const EVENT_NAME_OR_ACTIVITY_ID_NAME: usize = 92;
    pub const EVENT_ATTRIBUTES_OR_RELATED_ACTIVITY_ID_NAME: usize = 96;
    pub const PROPERTY_COUNT: usize = 100;
    pub const TOP_LEVEL_PROPERTY_COUNT: usize = 104;
    pub const FLAGS: usize = 108;
}

/// A `TRACE_EVENT_INFO` (tdh.h) read in place: the data of a `MetaData/EventInfo` event.
///
/// | off | size | member |
/// |---|---|---|
/// | 0 | 16 | `ProviderGuid` |
/// | 16 | 16 | `EventGuid` (the classic event class; zero for manifest events) |
/// | 32 | 16 | `EventDescriptor` (`Id`, `Version`, `Channel`, `Level`, `Opcode`, `Task`, `Keyword`) |
/// | 48 | 4 | `DecodingSource` |
/// | 52 | 4 × 8 | `ProviderNameOffset`, `LevelNameOffset`, `ChannelNameOffset`, `KeywordsNameOffset`, `TaskNameOffset`, `OpcodeNameOffset`, `EventMessageOffset`, `ProviderMessageOffset` |
/// | 84 | 4 + 4 | `BinaryXMLOffset`, `BinaryXMLSize` |
/// | 92 | 4 | `EventNameOffset` / `ActivityIDNameOffset` (classic) |
/// | 96 | 4 | `EventAttributesOffset` / `RelatedActivityIDNameOffset` (classic) |
/// | 100 | 4 | `PropertyCount` |
/// | 104 | 4 | `TopLevelPropertyCount` |
/// | 108 | 4 | `Flags` (4 bits) and `Tags` (28 bits) |
/// | 112 | 24 × `PropertyCount` | `EventPropertyInfoArray` |
///
/// [`parse`](Self::parse) checks every name offset (in the data, NUL-terminated) and that
/// the property array fits, so the names are plain members here; a property is checked when
/// it is read.
///
/// ```
/// use etw_classic::payload::{EventInfo, FieldSchema, InType, Utf16Name};
/// # fn utf16(text: &str) -> Vec<u8> { text.encode_utf16().chain([0]).flat_map(u16::to_le_bytes).collect() }
/// // A TRACE_EVENT_INFO with one UInt32 property named "Pid" (names after the array).
/// let mut info = vec![0u8; 112 + 24];
/// info[100..104].copy_from_slice(&1u32.to_le_bytes()); // PropertyCount
/// info[104..108].copy_from_slice(&1u32.to_le_bytes()); // TopLevelPropertyCount
/// info[116..120].copy_from_slice(&136u32.to_le_bytes()); // NameOffset
/// info[120..122].copy_from_slice(&8u16.to_le_bytes()); // InType UInt32
/// info[128..130].copy_from_slice(&1u16.to_le_bytes()); // count
/// info.extend(utf16("Pid"));
/// let event = EventInfo::parse(&info)?;
/// let mut buffer = [FieldSchema::new(Utf16Name::EMPTY, InType::NULL); 8];
/// let fields = event.collect_fields(&mut buffer)?;
/// assert!(fields[0].name == "Pid");
/// assert_eq!(fields[0].in_type, InType::UINT32);
/// # Ok::<(), etw_classic::payload::EventInfoError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct EventInfo<'a> {
    /// `ProviderGuid`.
    pub provider_guid: Guid,
    /// `EventGuid`: the classic event class's GUID (zero for manifest events).
    pub event_guid: Guid,
    /// `EventDescriptor`.
    pub descriptor: EventDescriptor,
    /// `DecodingSource`.
    pub decoding_source: DecodingSource,
    /// `ProviderNameOffset`: the provider's name.
    pub provider_name: Option<Utf16Name<'a>>,
    /// `LevelNameOffset`: the level's name (`win:Informational`).
    pub level_name: Option<Utf16Name<'a>>,
    /// `ChannelNameOffset`: the channel's name.
    pub channel_name: Option<Utf16Name<'a>>,
    /// `TaskNameOffset`: the task's name.
    pub task_name: Option<Utf16Name<'a>>,
    /// `OpcodeNameOffset`: the opcode's name (`win:Info`, `GCAllocationTick`, ...).
    pub opcode_name: Option<Utf16Name<'a>>,
    /// `EventMessageOffset`: the event's message (`%1`-style insertions).
    pub event_message: Option<Utf16Name<'a>>,
    /// `ProviderMessageOffset`: the provider's message.
    pub provider_message: Option<Utf16Name<'a>>,
    /// `BinaryXMLOffset` and `BinaryXMLSize`: the event's template in binary XML, as TDH
    /// keeps it; empty when there is none.
    pub binary_xml: &'a [u8],
    /// `PropertyCount`: the properties in `EventPropertyInfoArray`, structure members
    /// included.
    pub property_count: u32,
    /// `TopLevelPropertyCount`: the first properties of the array, the event's own fields.
    pub top_level_property_count: u32,
    /// `Flags`, the low 4 bits of the member at 108.
    pub flags: TemplateFlags,
    /// The member at 108 whole: `Flags` in the low 4 bits, `Tags` in the high 28.
    pub flags_and_tags: u32,
    /// The name at offset 92: `EventNameOffset`, or `ActivityIDNameOffset` for a classic
    /// event (a union in tdh.h).
    name_at_92: Option<Utf16Name<'a>>,
    /// The name at offset 96: `EventAttributesOffset`, or `RelatedActivityIDNameOffset` for a
    /// classic event.
    name_at_96: Option<Utf16Name<'a>>,
    /// `KeywordsNameOffset`, checked.
    keywords_offset: u32,
    /// The whole structure.
    bytes: &'a [u8],
}

impl<'a> EventInfo<'a> {
    /// Reads a `TRACE_EVENT_INFO` from the data of a `MetaData/EventInfo` event.
    ///
    /// # Errors
    /// Data shorter than 112 bytes; a property array (`PropertyCount` × 24 bytes from byte
    /// 112) that does not fit; `TopLevelPropertyCount` above `PropertyCount`; a name offset
    /// outside the data or whose name has no NUL before the end; binary XML past the end.
    pub fn parse(bytes: &'a [u8]) -> Result<Self, EventInfoError> {
        let structure = InfoStructure::TraceEventInfo;
        if bytes.len() < TRACE_EVENT_INFO_LEN {
            return Err(EventInfoError::new(
                structure,
                "EventPropertyInfoArray",
                0,
                EventInfoErrorKind::TooShort {
                    needed: TRACE_EVENT_INFO_LEN,
                    len: bytes.len(),
                },
            ));
        }
        let property_count = u32_at(bytes, at::PROPERTY_COUNT);
        let fits = bytes.len().saturating_sub(TRACE_EVENT_INFO_LEN) / EVENT_PROPERTY_INFO_LEN;
        if usize_of(property_count) > fits {
            return Err(EventInfoError::new(
                structure,
                "PropertyCount",
                at::PROPERTY_COUNT,
                EventInfoErrorKind::CountTooLarge {
                    count: property_count,
                    fits,
                },
            ));
        }
        let top_level_property_count = u32_at(bytes, at::TOP_LEVEL_PROPERTY_COUNT);
        if top_level_property_count > property_count {
            return Err(EventInfoError::new(
                structure,
                "TopLevelPropertyCount",
                at::TOP_LEVEL_PROPERTY_COUNT,
                EventInfoErrorKind::TopLevelTooLarge {
                    top_level: top_level_property_count,
                    property_count,
                },
            ));
        }
        let name = |member: &'static str, offset_at: usize| {
            let value = u32_at(bytes, offset_at);
            name_in(bytes, value).map_err(|fault| {
                EventInfoError::new(
                    structure,
                    member,
                    offset_at,
                    fault_kind(fault, value, bytes),
                )
            })
        };
        let provider_name = name("ProviderNameOffset", at::PROVIDER_NAME)?;
        let level_name = name("LevelNameOffset", at::LEVEL_NAME)?;
        let channel_name = name("ChannelNameOffset", at::CHANNEL_NAME)?;
        let keywords_offset = u32_at(bytes, at::KEYWORDS_NAME);
        check_name_list(bytes, keywords_offset).map_err(|fault| {
            EventInfoError::new(
                structure,
                "KeywordsNameOffset",
                at::KEYWORDS_NAME,
                fault_kind(fault, keywords_offset, bytes),
            )
        })?;
        let task_name = name("TaskNameOffset", at::TASK_NAME)?;
        let opcode_name = name("OpcodeNameOffset", at::OPCODE_NAME)?;
        let event_message = name("EventMessageOffset", at::EVENT_MESSAGE)?;
        let provider_message = name("ProviderMessageOffset", at::PROVIDER_MESSAGE)?;
        let name_at_92 = name("EventNameOffset", at::EVENT_NAME_OR_ACTIVITY_ID_NAME)?;
        let name_at_96 = name(
            "EventAttributesOffset",
            at::EVENT_ATTRIBUTES_OR_RELATED_ACTIVITY_ID_NAME,
        )?;
        let xml_offset = u32_at(bytes, at::BINARY_XML);
        let xml_size = u32_at(bytes, at::BINARY_XML_SIZE);
        let binary_xml = usize_of(xml_offset)
            .checked_add(usize_of(xml_size))
            .and_then(|end| bytes.get(usize_of(xml_offset)..end))
            .ok_or(EventInfoError::new(
                structure,
                "BinaryXMLSize",
                at::BINARY_XML_SIZE,
                EventInfoErrorKind::RangeOutOfBounds {
                    offset: xml_offset,
                    size: xml_size,
                    len: bytes.len(),
                },
            ))?;
        let flags_and_tags = u32_at(bytes, at::FLAGS);
        let d = at::EVENT_DESCRIPTOR;
        Ok(Self {
            provider_guid: guid_at(bytes, at::PROVIDER_GUID),
            event_guid: guid_at(bytes, at::EVENT_GUID),
            descriptor: EventDescriptor {
                id: u16_at(bytes, d),
                version: bytes.get(d.saturating_add(2)).copied().unwrap_or(0),
                channel: bytes.get(d.saturating_add(3)).copied().unwrap_or(0),
                level: Level(bytes.get(d.saturating_add(4)).copied().unwrap_or(0)),
                opcode: bytes.get(d.saturating_add(5)).copied().unwrap_or(0),
                task: u16_at(bytes, d.saturating_add(6)),
                keyword: bytes_at::<8>(bytes, d.saturating_add(8)).map_or(0, u64::from_le_bytes),
            },
            decoding_source: DecodingSource(u32_at(bytes, at::DECODING_SOURCE)),
            provider_name,
            level_name,
            channel_name,
            task_name,
            opcode_name,
            event_message,
            provider_message,
            binary_xml,
            property_count,
            top_level_property_count,
            flags: TemplateFlags(flags_and_tags & 0xF),
            flags_and_tags,
            name_at_92,
            name_at_96,
            keywords_offset,
            bytes,
        })
    }

    /// The event's tags: the high 28 bits of the member at 108.
    pub const fn tags(&self) -> u32 {
        self.flags_and_tags >> 4
    }

    /// Whether this describes a classic (MOF) event (`DecodingSource` 1), which TraceEvent
    /// looks up by `EventGuid` and opcode rather than by id.
    pub fn is_classic(&self) -> bool {
        self.decoding_source == DecodingSource::WBEM
    }

    /// `EventNameOffset`: the event's name, for a description that is not classic (tdh.h: the
    /// member at 92 is `ActivityIDNameOffset` for classic events).
    pub fn event_name(&self) -> Option<Utf16Name<'a>> {
        self.name_at_92.filter(|_| !self.is_classic())
    }

    /// `EventAttributesOffset`: the event's attributes, for a description that is not
    /// classic.
    pub fn event_attributes(&self) -> Option<Utf16Name<'a>> {
        self.name_at_96.filter(|_| !self.is_classic())
    }

    /// `ActivityIDNameOffset`: the name of the classic event's activity id property.
    pub fn activity_id_name(&self) -> Option<Utf16Name<'a>> {
        self.name_at_92.filter(|_| self.is_classic())
    }

    /// `RelatedActivityIDNameOffset`: the name of the classic event's related activity id
    /// property.
    pub fn related_activity_id_name(&self) -> Option<Utf16Name<'a>> {
        self.name_at_96.filter(|_| self.is_classic())
    }

    /// `KeywordsNameOffset`: the names of the event's keywords, a list of NUL-terminated
    /// names ended by an empty one (checked by [`parse`](Self::parse)).
    pub fn keyword_names(&self) -> KeywordNames<'a> {
        let rest = if self.keywords_offset == 0 {
            &[][..]
        } else {
            self.bytes
                .get(usize_of(self.keywords_offset)..)
                .unwrap_or_default()
        };
        KeywordNames { rest }
    }

    /// The whole structure, as given to [`parse`](Self::parse).
    pub const fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The `EVENT_PROPERTY_INFO` at `index` of `EventPropertyInfoArray`.
    ///
    /// # Errors
    /// `index` not below `PropertyCount`; a name offset outside the data or unterminated.
    pub fn property(&self, index: u32) -> Result<PropertyInfo<'a>, EventInfoError> {
        let start = usize_of(index)
            .checked_mul(EVENT_PROPERTY_INFO_LEN)
            .and_then(|offset| offset.checked_add(TRACE_EVENT_INFO_LEN))
            .unwrap_or(usize::MAX);
        if index >= self.property_count {
            return Err(EventInfoError::new(
                InfoStructure::PropertyInfo(index),
                "Flags",
                start.min(self.bytes.len()),
                EventInfoErrorKind::IndexOutOfRange {
                    index,
                    count: self.property_count,
                },
            ));
        }
        PropertyInfo::read(self.bytes, index, start)
    }

    /// The properties of `EventPropertyInfoArray` in their order, each checked when it is
    /// read; the iteration ends after the first error.
    pub fn properties(&self) -> Properties<'_, 'a> {
        Properties {
            info: self,
            next: 0,
            failed: false,
        }
    }

    /// The event's fields in the core's preorder, written into `out`: each top-level
    /// property, a structure followed at once by its members (TDH lists them elsewhere, at
    /// `StructStartIndex .. StructStartIndex + NumOfStructMembers`), with counts and lengths
    /// taken from a property turned into the index of that property's field. The fields are
    /// checked as one schema ([`check_fields`]).
    ///
    /// How each property becomes a field (tdh.h `EVENT_PROPERTY_INFO`; perfview
    /// `RegisteredTraceEventParser.cs`, `ParseFields`):
    /// - `PropertyStruct`: an [`InType::STRUCT`] of `NumOfStructMembers` members; otherwise
    ///   `InType` and `OutType` as given, and the map named by `MapNameOffset` (none when
    ///   `PropertyHasCustomSchema` makes it `CustomSchemaOffset`);
    /// - count: `PropertyParamCount` → [`Count::FromField`]; `PropertyParamFixedCount`, or
    ///   a `count` above 1 (Windows before 10 does not set the flag) → [`Count::Fixed`];
    ///   otherwise one value;
    /// - length: `PropertyParamLength` → [`Length::FromField`]; `PropertyParamFixedLength`
    ///   → [`Length::Fixed`]; for a type whose size the type does not fix (strings, binary),
    ///   a non-zero `length`, or any `length` of `Binary` → [`Length::Fixed`]; otherwise the
    ///   type's own (the `length` of a fixed-size type is its size);
    /// - tags: the low 28 bits of `Reserved` when `PropertyHasTags` is set.
    ///
    /// # Errors
    /// A property that cannot be read; a structure's members past `PropertyCount`; structures
    /// nesting deeper than [`MAX_STRUCT_DEPTH`] or reaching more fields than `PropertyCount`;
    /// a count or length naming a property that is not a field; more fields than `out`
    /// holds; fields that contradict each other.
    pub fn collect_fields<'o>(
        &self,
        out: &'o mut [FieldSchema<Utf16Name<'a>>],
    ) -> Result<&'o [FieldSchema<Utf16Name<'a>>], EventInfoError> {
        let mut written = 0usize;
        // While collecting, each field's `tags` holds the index of its property; counts and
        // lengths from a property hold that property's index.
        self.emit(0, self.top_level_property_count, 0, out, &mut written)?;
        let fields = out.get_mut(..written).unwrap_or_default();
        for at in 0..fields.len() {
            let Some(field) = fields.get(at).copied() else {
                break;
            };
            let property = field.tags;
            let count = match field.count {
                Count::FromField(index) => {
                    Count::FromField(self.field_of(fields, property, ("count", 16), index)?)
                }
                other => other,
            };
            let length = match field.length {
                Length::FromField(index) => {
                    Length::FromField(self.field_of(fields, property, ("length", 18), index)?)
                }
                other => other,
            };
            if let Some(field) = fields.get_mut(at) {
                field.count = count;
                field.length = length;
            }
        }
        if let Err(error) = check_fields(fields) {
            let property = schema_error_field(error)
                .and_then(|field| fields.get(usize::from(field)))
                .map_or(0, |field| field.tags);
            return Err(EventInfoError::new(
                InfoStructure::PropertyInfo(property),
                "Flags",
                property_offset(property),
                EventInfoErrorKind::Schema(error),
            ));
        }
        for field in fields.iter_mut() {
            let property = self.property(field.tags)?;
            field.tags = property.tags();
        }
        Ok(fields)
    }

    /// Writes the fields of properties `first .. first + count`, `depth` structures down.
    fn emit(
        &self,
        first: u32,
        count: u32,
        depth: usize,
        out: &mut [FieldSchema<Utf16Name<'a>>],
        written: &mut usize,
    ) -> Result<(), EventInfoError> {
        for offset in 0..count {
            let index = first.saturating_add(offset);
            let property = self.property(index)?;
            let here = |member, kind| {
                EventInfoError::new(
                    InfoStructure::PropertyInfo(index),
                    member,
                    property_offset(index),
                    kind,
                )
            };
            if usize_of(self.property_count) <= *written {
                return Err(here(
                    "StructStartIndex",
                    EventInfoErrorKind::MoreFieldsThanProperties {
                        property_count: self.property_count,
                    },
                ));
            }
            let capacity = out.len();
            let slot = out.get_mut(*written).ok_or(here(
                "NameOffset",
                EventInfoErrorKind::TooManyFields { capacity },
            ))?;
            let mut field = property.field();
            field.tags = index;
            *slot = field;
            *written = written.saturating_add(1);
            if let PropertyType::Struct {
                start_index,
                members,
            } = property.kind
            {
                let end = u32::from(start_index).saturating_add(u32::from(members));
                if end > self.property_count {
                    return Err(here(
                        "NumOfStructMembers",
                        EventInfoErrorKind::IndexOutOfRange {
                            index: end,
                            count: self.property_count,
                        },
                    ));
                }
                if depth >= MAX_STRUCT_DEPTH {
                    return Err(here("StructStartIndex", EventInfoErrorKind::TooDeep));
                }
                self.emit(
                    u32::from(start_index),
                    u32::from(members),
                    depth.saturating_add(1),
                    out,
                    written,
                )?;
            }
        }
        Ok(())
    }

    /// The index of the field of property `index` among `fields` (whose `tags` hold their
    /// properties), for the count or length of `property`.
    fn field_of(
        &self,
        fields: &[FieldSchema<Utf16Name<'a>>],
        property: u32,
        (member, member_at): (&'static str, usize),
        index: u16,
    ) -> Result<u16, EventInfoError> {
        let here = |kind| {
            EventInfoError::new(
                InfoStructure::PropertyInfo(property),
                member,
                property_offset(property).saturating_add(member_at),
                kind,
            )
        };
        if u32::from(index) >= self.property_count {
            return Err(here(EventInfoErrorKind::IndexOutOfRange {
                index: u32::from(index),
                count: self.property_count,
            }));
        }
        fields
            .iter()
            .position(|field| field.tags == u32::from(index))
            .and_then(|at| u16::try_from(at).ok())
            .ok_or(here(EventInfoErrorKind::NotAField {
                index: u32::from(index),
            }))
    }
}

/// The offset of `EVENT_PROPERTY_INFO` #`index` in the data.
fn property_offset(index: u32) -> usize {
    usize_of(index)
        .saturating_mul(EVENT_PROPERTY_INFO_LEN)
        .saturating_add(TRACE_EVENT_INFO_LEN)
}

fn schema_error_field(error: SchemaError) -> Option<u16> {
    match error {
        SchemaError::MembersPastEnd { field, .. }
        | SchemaError::TooDeep { field }
        | SchemaError::BadReference { field, .. }
        | SchemaError::MembersOnNonStruct { field } => Some(field),
        _ => None,
    }
}

fn fault_kind(fault: NameFault, value: u32, structure: &[u8]) -> EventInfoErrorKind {
    match fault {
        NameFault::OutOfRange => EventInfoErrorKind::OffsetOutOfRange {
            value,
            len: structure.len(),
        },
        NameFault::Unterminated => EventInfoErrorKind::Unterminated { value },
    }
}

/// The names of an event's keywords ([`EventInfo::keyword_names`]).
#[derive(Clone, Debug)]
pub struct KeywordNames<'a> {
    rest: &'a [u8],
}

impl<'a> Iterator for KeywordNames<'a> {
    type Item = Utf16Name<'a>;

    fn next(&mut self) -> Option<Utf16Name<'a>> {
        match Utf16Str::split_nul_terminated(self.rest) {
            (name, Some(after)) if !name.is_empty() => {
                self.rest = after;
                Some(Utf16Name(name))
            }
            _ => {
                self.rest = &[];
                None
            }
        }
    }
}

impl core::iter::FusedIterator for KeywordNames<'_> {}

/// The properties of an [`EventInfo`] in array order ([`EventInfo::properties`]).
#[derive(Clone, Debug)]
pub struct Properties<'i, 'a> {
    info: &'i EventInfo<'a>,
    next: u32,
    failed: bool,
}

impl<'a> Iterator for Properties<'_, 'a> {
    type Item = Result<PropertyInfo<'a>, EventInfoError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.next >= self.info.property_count {
            return None;
        }
        let property = self.info.property(self.next);
        self.next = self.next.saturating_add(1);
        self.failed = property.is_err();
        Some(property)
    }
}

impl core::iter::FusedIterator for Properties<'_, '_> {}

/// What an `EVENT_PROPERTY_INFO` describes: a value or a structure (a union in tdh.h, chosen
/// by the `PropertyStruct` and `PropertyHasCustomSchema` flags).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum PropertyType<'a> {
    /// `nonStructType`: a value of `InType`, shown as `OutType`, named by a map.
    Value {
        /// `InType`.
        in_type: InType,
        /// `OutType`.
        out_type: OutType,
        /// `MapNameOffset`: the name of the value map or bit map, if any.
        map_name: Option<Utf16Name<'a>>,
    },
    /// `structType`: a structure of `NumOfStructMembers` properties from `StructStartIndex`.
    Struct {
        /// `StructStartIndex`.
        start_index: u16,
        /// `NumOfStructMembers`.
        members: u16,
    },
    /// `customSchemaType`: a value with a custom schema (`PropertyHasCustomSchema`).
    CustomSchema {
        /// `InType`.
        in_type: InType,
        /// `OutType`.
        out_type: OutType,
        /// `CustomSchemaOffset`, from the start of the `TRACE_EVENT_INFO`.
        schema_offset: u32,
    },
}

/// One `EVENT_PROPERTY_INFO` (tdh.h), read in place.
///
/// | off | size | member |
/// |---|---|---|
/// | 0 | 4 | `Flags` |
/// | 4 | 4 | `NameOffset` |
/// | 8 | 2 + 2 + 4 | `InType`, `OutType`, `MapNameOffset`; or `StructStartIndex`, `NumOfStructMembers`, padding |
/// | 16 | 2 | `count` or `countPropertyIndex` |
/// | 18 | 2 | `length` or `lengthPropertyIndex` |
/// | 20 | 4 | `Reserved`, or `Tags` in its low 28 bits |
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct PropertyInfo<'a> {
    /// Its index in `EventPropertyInfoArray`.
    pub index: u32,
    /// `Flags`.
    pub flags: PropertyFlags,
    /// `NameOffset`: the property's name (empty when the offset is 0).
    pub name: Utf16Name<'a>,
    /// A value or a structure.
    pub kind: PropertyType<'a>,
    /// `count`, or with `PropertyParamCount` the index of the property holding the count.
    pub count: u16,
    /// `length`, or with `PropertyParamLength` the index of the property holding the
    /// length.
    pub length: u16,
    /// `Reserved` (the tags in its low 28 bits when `PropertyHasTags` is set).
    pub reserved: u32,
}

impl<'a> PropertyInfo<'a> {
    fn read(info: &'a [u8], index: u32, start: usize) -> Result<Self, EventInfoError> {
        let structure = InfoStructure::PropertyInfo(index);
        let end = start.saturating_add(EVENT_PROPERTY_INFO_LEN);
        if end > info.len() {
            return Err(EventInfoError::new(
                structure,
                "Reserved",
                start.min(info.len()),
                EventInfoErrorKind::TooShort {
                    needed: end,
                    len: info.len(),
                },
            ));
        }
        let member = |offset: usize| start.saturating_add(offset);
        let name_of = |name: &'static str, offset: usize| {
            let value = u32_at(info, member(offset));
            name_in(info, value).map_err(|fault| {
                EventInfoError::new(
                    structure,
                    name,
                    member(offset),
                    fault_kind(fault, value, info),
                )
            })
        };
        let flags = PropertyFlags(u32_at(info, member(0)));
        let name = name_of("NameOffset", 4)?.unwrap_or_default();
        let first = u16_at(info, member(8));
        let second = u16_at(info, member(10));
        let kind = if flags.contains(PropertyFlags::STRUCT) {
            PropertyType::Struct {
                start_index: first,
                members: second,
            }
        } else if flags.contains(PropertyFlags::HAS_CUSTOM_SCHEMA) {
            PropertyType::CustomSchema {
                in_type: InType(first),
                out_type: OutType(second),
                schema_offset: u32_at(info, member(12)),
            }
        } else {
            PropertyType::Value {
                in_type: InType(first),
                out_type: OutType(second),
                map_name: name_of("MapNameOffset", 12)?,
            }
        };
        Ok(Self {
            index,
            flags,
            name,
            kind,
            count: u16_at(info, member(16)),
            length: u16_at(info, member(18)),
            reserved: u32_at(info, member(20)),
        })
    }

    /// The property's tags: the low 28 bits of `Reserved` when `PropertyHasTags` is set,
    /// else 0.
    pub const fn tags(&self) -> u32 {
        if self.flags.contains(PropertyFlags::HAS_TAGS) {
            self.reserved & 0x0FFF_FFFF
        } else {
            0
        }
    }

    /// The property as one field, with a count or length taken from a property still naming
    /// that property's index in `EventPropertyInfoArray` (see
    /// [`EventInfo::collect_fields`], which turns them into field indexes).
    pub fn field(&self) -> FieldSchema<Utf16Name<'a>> {
        let mut field = match self.kind {
            PropertyType::Struct { members, .. } => FieldSchema::structure(self.name, members),
            PropertyType::Value {
                in_type,
                out_type,
                map_name,
            } => {
                let field = FieldSchema::new(self.name, in_type).with_out_type(out_type);
                match map_name {
                    Some(map) => field.with_map(map),
                    None => field,
                }
            }
            PropertyType::CustomSchema {
                in_type, out_type, ..
            } => FieldSchema::new(self.name, in_type).with_out_type(out_type),
        };
        let flags = self.flags;
        field.count = if flags.contains(PropertyFlags::PARAM_COUNT) {
            Count::FromField(self.count)
        } else if flags.contains(PropertyFlags::PARAM_FIXED_COUNT) || self.count > 1 {
            Count::Fixed(self.count)
        } else {
            Count::One
        };
        let sized_by_type = field.is_struct() || field.in_type.fixed_size(8).is_some();
        field.length = if flags.contains(PropertyFlags::PARAM_LENGTH) {
            Length::FromField(self.length)
        } else if flags.contains(PropertyFlags::PARAM_FIXED_LENGTH)
            || (!sized_by_type && (self.length > 0 || field.in_type == InType::BINARY))
        {
            Length::Fixed(self.length)
        } else {
            Length::Natural
        };
        field.with_tags(self.tags())
    }
}

// ---------------------------------------------------------------------------------------------
// EVENT_MAP_INFO

/// The provider GUID and `EVENT_MAP_INFO` (tdh.h) of a `MetaData/EventMapInfo` event, read in
/// place.
///
/// | off (in the data) | size | member |
/// |---|---|---|
/// | 0 | 16 | the provider's GUID |
/// | 16 | 4 | `NameOffset` |
/// | 20 | 4 | `Flag` |
/// | 24 | 4 | `EntryCount` |
/// | 28 | 4 | `MapEntryValueType`, or `FormatStringOffset` for a pattern map |
/// | 32 | 8 × `EntryCount` | `MapEntryArray`: `{OutputOffset, Value or InputOffset}` |
///
/// The offsets inside it are from the start of `EVENT_MAP_INFO` (byte 16 of the data). Seen
/// in net.4.5.2.x64 (buffer 18 offset 52680): `DnsIpTypeMap`, `Flag` 1, entries 0
/// `static ` and 1 `dynamic ` (TDH ends each entry's name with a space; TraceEvent trims it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct EventMapInfo<'a> {
    /// The GUID of the provider whose map it is.
    pub provider_guid: Guid,
    /// `NameOffset`: the map's name, as properties name it in `MapNameOffset`.
    pub name: Option<Utf16Name<'a>>,
    /// `Flag`.
    pub flags: MapFlags,
    /// `EntryCount`.
    pub entry_count: u32,
    /// `MapEntryValueType` (0 `EVENTMAP_ENTRY_VALUETYPE_ULONG`, 1
    /// `EVENTMAP_ENTRY_VALUETYPE_STRING`), or `FormatStringOffset` for a pattern map.
    pub value_type: u32,
    /// The `EVENT_MAP_INFO` structure, from byte 16 of the data.
    map: &'a [u8],
}

/// The offset of `EVENT_MAP_INFO` in an `EventMapInfo` event's data.
const MAP_START: usize = 16;

impl<'a> EventMapInfo<'a> {
    /// Reads the provider GUID and `EVENT_MAP_INFO` from the data of a
    /// `MetaData/EventMapInfo` event.
    ///
    /// # Errors
    /// Data shorter than 32 bytes; entries (`EntryCount` × 8 bytes) that do not fit; a name
    /// offset outside the structure or unterminated.
    pub fn parse(data: &'a [u8]) -> Result<Self, EventInfoError> {
        let structure = InfoStructure::EventMapInfo;
        let needed = MAP_START.saturating_add(EVENT_MAP_INFO_LEN);
        if data.len() < needed {
            return Err(EventInfoError::new(
                structure,
                "MapEntryArray",
                0,
                EventInfoErrorKind::TooShort {
                    needed,
                    len: data.len(),
                },
            ));
        }
        let map = data.get(MAP_START..).unwrap_or_default();
        let entry_count = u32_at(map, 8);
        let fits = map.len().saturating_sub(EVENT_MAP_INFO_LEN) / EVENT_MAP_ENTRY_LEN;
        if usize_of(entry_count) > fits {
            return Err(EventInfoError::new(
                structure,
                "EntryCount",
                MAP_START.saturating_add(8),
                EventInfoErrorKind::CountTooLarge {
                    count: entry_count,
                    fits,
                },
            ));
        }
        let name_offset = u32_at(map, 0);
        let name = name_in(map, name_offset).map_err(|fault| {
            EventInfoError::new(
                structure,
                "NameOffset",
                MAP_START,
                fault_kind(fault, name_offset, map),
            )
        })?;
        Ok(Self {
            provider_guid: guid_at(data, 0),
            name,
            flags: MapFlags(u32_at(map, 4)),
            entry_count,
            value_type: u32_at(map, 12),
            map,
        })
    }

    /// Whether the entries' inputs are strings (`InputOffset`): a pattern map, or a map
    /// whose `MapEntryValueType` is `EVENTMAP_ENTRY_VALUETYPE_STRING`; otherwise they are
    /// values (tdh.h `EVENT_MAP_ENTRY`).
    pub const fn inputs_are_text(&self) -> bool {
        self.flags.contains(MapFlags::MANIFEST_PATTERNMAP)
            || self.value_type == MAP_VALUETYPE_STRING
    }

    /// `FormatStringOffset`: a pattern map's format string.
    ///
    /// # Errors
    /// The offset outside the structure, or the name unterminated.
    pub fn format_string(&self) -> Result<Option<Utf16Name<'a>>, EventInfoError> {
        if !self.flags.contains(MapFlags::MANIFEST_PATTERNMAP) {
            return Ok(None);
        }
        name_in(self.map, self.value_type).map_err(|fault| {
            EventInfoError::new(
                InfoStructure::EventMapInfo,
                "FormatStringOffset",
                MAP_START.saturating_add(12),
                fault_kind(fault, self.value_type, self.map),
            )
        })
    }

    /// The `EVENT_MAP_ENTRY` at `index`.
    ///
    /// # Errors
    /// `index` not below `EntryCount`; a name offset outside the structure or unterminated.
    pub fn entry(&self, index: u32) -> Result<MapEntry<'a>, EventInfoError> {
        let structure = InfoStructure::MapEntry(index);
        let start = usize_of(index)
            .saturating_mul(EVENT_MAP_ENTRY_LEN)
            .saturating_add(EVENT_MAP_INFO_LEN);
        let in_data = |offset: usize| start.saturating_add(offset).saturating_add(MAP_START);
        if index >= self.entry_count {
            return Err(EventInfoError::new(
                structure,
                "OutputOffset",
                in_data(0).min(self.map.len().saturating_add(MAP_START)),
                EventInfoErrorKind::IndexOutOfRange {
                    index,
                    count: self.entry_count,
                },
            ));
        }
        let name_of = |member: &'static str, offset: usize| {
            let value = u32_at(self.map, start.saturating_add(offset));
            name_in(self.map, value)
                .map_err(|fault| {
                    EventInfoError::new(
                        structure,
                        member,
                        in_data(offset),
                        fault_kind(fault, value, self.map),
                    )
                })
                .map(Option::unwrap_or_default)
        };
        let output = name_of("OutputOffset", 0)?;
        let input = if self.inputs_are_text() {
            MapInput::Text(name_of("InputOffset", 4)?)
        } else {
            MapInput::Value(u32_at(self.map, start.saturating_add(4)))
        };
        Ok(MapEntry {
            index,
            output,
            input,
        })
    }

    /// The entries in order, each checked when it is read; the iteration ends after the
    /// first error.
    pub fn entries(&self) -> MapEntries<'_, 'a> {
        MapEntries {
            map: self,
            next: 0,
            failed: false,
        }
    }
}

/// What an `EVENT_MAP_ENTRY` maps from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum MapInput<'a> {
    /// `Value`: a value, or the bits of a bit map.
    Value(u32),
    /// `InputOffset`: a string (a pattern map's pattern, or a map of string inputs).
    Text(Utf16Name<'a>),
}

/// One `EVENT_MAP_ENTRY` (tdh.h): its output name and its input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct MapEntry<'a> {
    /// Its index in `MapEntryArray`.
    pub index: u32,
    /// `OutputOffset`: the name of the value, as TDH stores it (with a trailing space for
    /// manifest maps).
    pub output: Utf16Name<'a>,
    /// `Value` or `InputOffset`.
    pub input: MapInput<'a>,
}

/// The entries of an [`EventMapInfo`] ([`EventMapInfo::entries`]).
#[derive(Clone, Debug)]
pub struct MapEntries<'m, 'a> {
    map: &'m EventMapInfo<'a>,
    next: u32,
    failed: bool,
}

impl<'a> Iterator for MapEntries<'_, 'a> {
    type Item = Result<MapEntry<'a>, EventInfoError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.next >= self.map.entry_count {
            return None;
        }
        let entry = self.map.entry(self.next);
        self.next = self.next.saturating_add(1);
        self.failed = entry.is_err();
        Some(entry)
    }
}

impl core::iter::FusedIterator for MapEntries<'_, '_> {}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;
    use std::string::{String, ToString};
    use std::vec::Vec;

    /// One property to build: (flags, name, first u16, second u16, map name, count, length).
    type Spec = (u32, &'static str, u16, u16, Option<&'static str>, u16, u16);

    fn utf16(text: &str) -> Vec<u8> {
        text.encode_utf16()
            .chain([0])
            .flat_map(u16::to_le_bytes)
            .collect()
    }

    /// A `TRACE_EVENT_INFO` with these properties (the first `top` of them top-level), a
    /// provider name and a keyword list, its names after the property array.
    fn build(properties: &[Spec], top: u32) -> Vec<u8> {
        let count = u32::try_from(properties.len()).unwrap();
        let mut info =
            std::vec![0u8; TRACE_EVENT_INFO_LEN + properties.len() * EVENT_PROPERTY_INFO_LEN];
        let base = info.len();
        let mut names = Vec::new();
        let name_at = |names: &mut Vec<u8>, text: &str| {
            let offset = u32::try_from(base + names.len()).unwrap();
            names.extend(utf16(text));
            offset
        };
        let provider = name_at(&mut names, "Provider");
        info[52..56].copy_from_slice(&provider.to_le_bytes());
        let keywords = name_at(&mut names, "K1");
        names.extend(utf16("K2"));
        names.extend([0, 0]);
        info[64..68].copy_from_slice(&keywords.to_le_bytes());
        info[100..104].copy_from_slice(&count.to_le_bytes());
        info[104..108].copy_from_slice(&top.to_le_bytes());
        for (index, (flags, name, first, second, map, count, length)) in
            properties.iter().enumerate()
        {
            let at = TRACE_EVENT_INFO_LEN + index * EVENT_PROPERTY_INFO_LEN;
            let name = name_at(&mut names, name);
            let map = map.map_or(0, |map| name_at(&mut names, map));
            info[at..at + 4].copy_from_slice(&flags.to_le_bytes());
            info[at + 4..at + 8].copy_from_slice(&name.to_le_bytes());
            info[at + 8..at + 10].copy_from_slice(&first.to_le_bytes());
            info[at + 10..at + 12].copy_from_slice(&second.to_le_bytes());
            info[at + 12..at + 16].copy_from_slice(&map.to_le_bytes());
            info[at + 16..at + 18].copy_from_slice(&count.to_le_bytes());
            info[at + 18..at + 20].copy_from_slice(&length.to_le_bytes());
        }
        info.extend(names);
        info
    }

    const STRUCT: u32 = 0x1;
    const PARAM_LENGTH: u32 = 0x2;
    const PARAM_COUNT: u32 = 0x4;

    /// Top level: Count (u32), Items (a structure of 2 members from property 3, counted by
    /// property 0), Tail (u16); members: Len (u8), Text (a string of Len characters).
    fn with_structure() -> Vec<u8> {
        build(
            &[
                (0, "Count", 8, 0, None, 1, 4),
                (STRUCT | PARAM_COUNT, "Items", 3, 2, None, 0, 0),
                (0, "Tail", 6, 0, Some("TailMap"), 1, 2),
                (0, "Len", 4, 0, None, 1, 1),
                (PARAM_LENGTH, "Text", 1, 0, None, 1, 3),
            ],
            3,
        )
    }

    fn collect(info: &EventInfo<'_>) -> Result<Vec<String>, EventInfoError> {
        let mut buffer = [FieldSchema::new(Utf16Name::EMPTY, InType::NULL); 16];
        let fields = info.collect_fields(&mut buffer)?;
        Ok(fields
            .iter()
            .map(|field| std::format!("{}:{:?}:{:?}", field.name, field.count, field.length))
            .collect())
    }

    #[test]
    fn a_structure_is_followed_by_its_members_and_references_become_field_indexes() {
        let bytes = with_structure();
        let info = EventInfo::parse(&bytes).unwrap();
        assert!(info.provider_name.unwrap() == "Provider");
        let keywords: Vec<String> = info.keyword_names().map(|k| k.to_string()).collect();
        assert_eq!(keywords, ["K1", "K2"]);
        assert_eq!(
            collect(&info).unwrap(),
            [
                "Count:One:Natural",
                "Items:FromField(0):Natural",
                "Len:One:Natural",
                "Text:One:FromField(2)",
                "Tail:One:Natural",
            ]
        );
        let mut buffer = [FieldSchema::new(Utf16Name::EMPTY, InType::NULL); 5];
        let fields = info.collect_fields(&mut buffer).unwrap();
        assert!(fields[1].is_struct() && fields[1].members == 2);
        assert!(fields[4].map.unwrap() == "TailMap");
        assert!(fields.iter().all(|field| field.tags == 0));
        // The decoder walks data with them: Count 1, one Items of Len 2 "hi", Tail 7.
        let data = [1, 0, 0, 0, 2, b'h', 0, b'i', 0, 7, 0];
        let mut decoder =
            crate::payload::PayloadDecoder::new(fields, &data, crate::wire::Bitness::Bits64);
        // Count, Items [ { Len, Text } ], Tail: 8 items.
        assert_eq!(decoder.by_ref().filter(Result::is_ok).count(), 8);
        assert!(!decoder.failed() && decoder.rest().is_empty());
    }

    #[test]
    fn too_small_a_buffer_is_an_error_naming_the_property() {
        let bytes = with_structure();
        let info = EventInfo::parse(&bytes).unwrap();
        let mut buffer = [FieldSchema::new(Utf16Name::EMPTY, InType::NULL); 3];
        let error = info.collect_fields(&mut buffer).unwrap_err();
        assert_eq!(error.structure, InfoStructure::PropertyInfo(4));
        assert_eq!(
            error.kind,
            EventInfoErrorKind::TooManyFields { capacity: 3 }
        );
    }

    #[test]
    fn references_outside_the_fields_are_errors() {
        // A count from property 9 of 2.
        let bytes = build(
            &[
                (0, "A", 8, 0, None, 1, 4),
                (PARAM_COUNT, "B", 8, 0, None, 9, 4),
            ],
            2,
        );
        let error = collect(&EventInfo::parse(&bytes).unwrap()).unwrap_err();
        assert_eq!(
            (error.structure, error.member, error.offset),
            (InfoStructure::PropertyInfo(1), "count", 112 + 24 + 16)
        );
        assert_eq!(
            error.kind,
            EventInfoErrorKind::IndexOutOfRange { index: 9, count: 2 }
        );
        // A count from property 1, which no top-level property reaches.
        let bytes = build(
            &[
                (PARAM_COUNT, "A", 8, 0, None, 1, 4),
                (0, "B", 8, 0, None, 1, 4),
            ],
            1,
        );
        let error = collect(&EventInfo::parse(&bytes).unwrap()).unwrap_err();
        assert_eq!(error.kind, EventInfoErrorKind::NotAField { index: 1 });
        // A count from a later field: the schema check, naming property 0.
        let bytes = build(
            &[
                (PARAM_COUNT, "A", 8, 0, None, 1, 4),
                (0, "B", 8, 0, None, 1, 4),
            ],
            2,
        );
        let error = collect(&EventInfo::parse(&bytes).unwrap()).unwrap_err();
        assert_eq!(error.structure, InfoStructure::PropertyInfo(0));
        assert!(matches!(
            error.kind,
            EventInfoErrorKind::Schema(SchemaError::BadReference { field: 0, names: 1 })
        ));
        assert!(error
            .to_string()
            .starts_with("EVENT_PROPERTY_INFO #0.Flags at data offset 112: "));
    }

    #[test]
    fn structures_that_loop_or_nest_too_deep_are_errors() {
        // A structure whose members are itself: nests until the depth bound or the count.
        let bytes = build(&[(STRUCT, "S", 0, 1, None, 1, 0)], 1);
        let error = collect(&EventInfo::parse(&bytes).unwrap()).unwrap_err();
        assert_eq!(
            error.kind,
            EventInfoErrorKind::MoreFieldsThanProperties { property_count: 1 }
        );
        // Ten nested structures, each the only member of the one before.
        let mut nested: Vec<Spec> = (0..10u16)
            .map(|at| (STRUCT, "S", at + 1, 1, None, 1, 0))
            .collect();
        nested.push((0, "Leaf", 8, 0, None, 1, 4));
        let bytes = build(&nested, 1);
        let error = collect(&EventInfo::parse(&bytes).unwrap()).unwrap_err();
        assert_eq!(error.kind, EventInfoErrorKind::TooDeep);
        assert_eq!(error.structure, InfoStructure::PropertyInfo(8));
        // Members past PropertyCount.
        let bytes = build(
            &[(STRUCT, "S", 1, 5, None, 1, 0), (0, "A", 8, 0, None, 1, 4)],
            1,
        );
        let error = collect(&EventInfo::parse(&bytes).unwrap()).unwrap_err();
        assert_eq!(error.member, "NumOfStructMembers");
        assert_eq!(
            error.kind,
            EventInfoErrorKind::IndexOutOfRange { index: 6, count: 2 }
        );
    }

    #[test]
    fn every_cut_of_the_structure_is_an_error_inside_it() {
        let bytes = with_structure();
        for len in 0..bytes.len() {
            let cut = &bytes[..len];
            match EventInfo::parse(cut) {
                Ok(info) => {
                    let _ = collect(&info);
                }
                Err(error) => {
                    assert!(error.offset <= len, "{len}: {error}");
                    assert!(!error.member.is_empty());
                }
            }
        }
        // A cut inside the last name, a property's: found when the property is read.
        let cut = &bytes[..bytes.len() - 1];
        let error = EventInfo::parse(cut).unwrap().property(4).unwrap_err();
        assert_eq!(
            (error.structure, error.member, error.offset),
            (
                InfoStructure::PropertyInfo(4),
                "NameOffset",
                112 + 4 * 24 + 4
            )
        );
        assert!(matches!(
            error.kind,
            EventInfoErrorKind::Unterminated { .. }
        ));
        // Offsets past the end.
        let mut bad = bytes.clone();
        bad[68..72].copy_from_slice(&u32::MAX.to_le_bytes());
        let error = EventInfo::parse(&bad).unwrap_err();
        assert_eq!((error.member, error.offset), ("TaskNameOffset", 68));
        assert_eq!(
            error.kind,
            EventInfoErrorKind::OffsetOutOfRange {
                value: u32::MAX,
                len: bad.len()
            }
        );
        let mut bad = bytes.clone();
        bad[100..104].copy_from_slice(&1000u32.to_le_bytes());
        let error = EventInfo::parse(&bad).unwrap_err();
        assert_eq!(error.member, "PropertyCount");
        let mut bad = bytes;
        bad[104..108].copy_from_slice(&6u32.to_le_bytes());
        let error = EventInfo::parse(&bad).unwrap_err();
        assert_eq!(
            error.kind,
            EventInfoErrorKind::TopLevelTooLarge {
                top_level: 6,
                property_count: 5
            }
        );
    }

    /// A map event: provider GUID, `EVENT_MAP_INFO` with these flags and value type, and
    /// entries (output, value or input text).
    fn map_event(flags: u32, value_type: u32, entries: &[(&str, Result<u32, &str>)]) -> Vec<u8> {
        let mut map = std::vec![0u8; EVENT_MAP_INFO_LEN + entries.len() * EVENT_MAP_ENTRY_LEN];
        let mut names = utf16("Map");
        let base = map.len();
        map[0..4].copy_from_slice(&u32::try_from(base).unwrap().to_le_bytes());
        map[4..8].copy_from_slice(&flags.to_le_bytes());
        map[8..12].copy_from_slice(&u32::try_from(entries.len()).unwrap().to_le_bytes());
        map[12..16].copy_from_slice(&value_type.to_le_bytes());
        for (index, (output, input)) in entries.iter().enumerate() {
            let at = EVENT_MAP_INFO_LEN + index * EVENT_MAP_ENTRY_LEN;
            let offset = u32::try_from(base + names.len()).unwrap();
            names.extend(utf16(output));
            map[at..at + 4].copy_from_slice(&offset.to_le_bytes());
            let second = match input {
                Ok(value) => *value,
                Err(text) => {
                    let offset = u32::try_from(base + names.len()).unwrap();
                    names.extend(utf16(text));
                    offset
                }
            };
            map[at + 4..at + 8].copy_from_slice(&second.to_le_bytes());
        }
        let mut data = std::vec![0x11u8; 16];
        data.extend(map);
        data.extend(names);
        data
    }

    #[test]
    fn map_entries_are_values_or_text() {
        let data = map_event(2, 0, &[("A ", Ok(1)), ("B ", Ok(4))]);
        let map = EventMapInfo::parse(&data).unwrap();
        assert!(map.name.unwrap() == "Map");
        assert_eq!(map.flags, MapFlags::MANIFEST_BITMAP);
        let entries: Vec<_> = map.entries().map(Result::unwrap).collect();
        assert!(entries[1].output == "B " && entries[1].input == MapInput::Value(4));
        assert_eq!(map.format_string(), Ok(None));

        let data = map_event(1, MAP_VALUETYPE_STRING, &[("Out", Err("In"))]);
        let map = EventMapInfo::parse(&data).unwrap();
        let entry = map.entry(0).unwrap();
        assert!(matches!(entry.input, MapInput::Text(text) if text == "In"));
        let error = map.entry(1).unwrap_err();
        assert_eq!(
            error.kind,
            EventInfoErrorKind::IndexOutOfRange { index: 1, count: 1 }
        );

        // An entry whose output offset is past the end names the entry and member.
        let mut data = map_event(1, 0, &[("A", Ok(0))]);
        data[32..36].copy_from_slice(&0xFFFFu32.to_le_bytes());
        let error = EventMapInfo::parse(&data).unwrap().entry(0).unwrap_err();
        assert_eq!(
            (error.structure, error.member, error.offset),
            (InfoStructure::MapEntry(0), "OutputOffset", 32)
        );
        // Too many entries for the data.
        let mut data = map_event(1, 0, &[("A", Ok(0))]);
        data[24..28].copy_from_slice(&100u32.to_le_bytes());
        let error = EventMapInfo::parse(&data).unwrap_err();
        assert_eq!((error.member, error.offset), ("EntryCount", 24));
        for len in 0..32 {
            let error = EventMapInfo::parse(&data[..len]).unwrap_err();
            assert!(matches!(
                error.kind,
                EventInfoErrorKind::TooShort { needed: 32, .. }
            ));
        }
    }

    #[test]
    fn names_hash_and_compare_by_code_units() {
        use core::hash::{Hash, Hasher};
        struct Sum(u64);
        impl Hasher for Sum {
            fn finish(&self) -> u64 {
                self.0
            }
            fn write(&mut self, bytes: &[u8]) {
                for byte in bytes {
                    self.0 = self.0.wrapping_mul(31).wrapping_add(u64::from(*byte));
                }
            }
        }
        let hash = |name: Utf16Name<'_>| {
            let mut hasher = Sum(0);
            name.hash(&mut hasher);
            hasher.finish()
        };
        let bytes = utf16("GC");
        let a = Utf16Name::from_le_bytes(&bytes[..4]);
        let units = [u16::from(b'G'), u16::from(b'C')];
        let b = Utf16Name(Utf16Str::from_units(&units));
        assert_eq!(a, b);
        assert_eq!(hash(a), hash(b));
        assert!(a == "GC" && a != "GCs");
        assert_eq!(std::format!("{a} {a:?}"), "GC \"GC\"");
        assert!(Utf16Name::default().is_empty());
    }
}
