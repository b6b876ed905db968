//! The `TRACE_EVENT_INFO` that describes one event type of a description, built by a `const`
//! function: the data of the `MetaData/EventInfo` event (class type 32 of
//! `KernelTraceControl`'s `MetaData` class) that merged traces carry for each event type
//! (PAYLOADS.md §4), here with `DecodingSource` 1 (WMI MOF), which TraceEvent takes as the
//! description of a classic event, looked up by `EventGuid` and the opcode (the event type).
//!
//! The layout is tdh.h's, every offset from the start of the structure:
//!
//! | offset | size | member | written |
//! |---|---|---|---|
//! | 0 | 16 | `ProviderGuid` | the provider's GUID |
//! | 16 | 16 | `EventGuid` | the class's GUID |
//! | 32 | 16 | `EventDescriptor` | `Id` 0, `Version` the class's, `Channel` 0, `Level` 0, `Opcode` the event type, `Task` 0, `Keyword` 0 |
//! | 48 | 4 | `DecodingSource` | 1 (`DecodingSourceWbem`) |
//! | 52 | 4 | `ProviderNameOffset` | the provider's name |
//! | 56 .. 64 | 12 | `LevelNameOffset`, `ChannelNameOffset`, `KeywordsNameOffset` | 0 (none) |
//! | 68 | 4 | `TaskNameOffset` | the class's name |
//! | 72 | 4 | `OpcodeNameOffset` | the event type's name |
//! | 76 .. 100 | 24 | messages, binary XML, event name, attributes | 0 |
//! | 100 | 4 | `PropertyCount` | the fields |
//! | 104 | 4 | `TopLevelPropertyCount` | the fields (no structures) |
//! | 108 | 4 | `Flags` | 0 |
//! | 112 | 24 each | `EventPropertyInfoArray` | one per field, in order |
//! | then | | the names | NUL-terminated UTF-16LE: provider, class, event type, each field |
//!
//! Each `EVENT_PROPERTY_INFO`: `Flags` (`PropertyParamFixedLength`, 0x10, for `BINARY`, else
//! 0), `NameOffset`, `InType`, `OutType`, `MapNameOffset` 0, `count` 1, `length` (the type's
//! size for the fixed-size types, `N` for `BINARY`, 0 for strings and pointers, whose size
//! the data or the event's pointer size gives), `Reserved` 0.

use crate::describe::description::{
    is_supported, ClassDescription, EventTypeDescription, ProviderDescription,
};
use crate::payload::schema::{FieldSchema, Length};
use crate::payload::types::InType;
use crate::wire::codes::EventType;
use crate::wire::guid::Guid;

/// `DecodingSourceWbem` (tdh.h's `DECODING_SOURCE`): the event is described by WMI MOF.
const DECODING_SOURCE_WBEM: u32 = 1;
/// `PropertyParamFixedLength` (tdh.h's `PROPERTY_FLAGS`).
const PROPERTY_PARAM_FIXED_LENGTH: u32 = 0x10;
/// Bytes of `TRACE_EVENT_INFO` before its `EventPropertyInfoArray`, and of one
/// `EVENT_PROPERTY_INFO` (tdh.h).
const FIXED_LEN: usize = 112;
const PROPERTY_LEN: usize = 24;

/// What one event type's `TRACE_EVENT_INFO` says, borrowed from wherever it comes from: a
/// `const` description ([`of`](Self::of), what [`event_info_bytes`] builds in a constant), or
/// names and fields read at run time (a `.mof` file on the host). Both are laid out by
/// [`write`](Self::write), the one layout of the table above.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EventInfoParts<'a> {
    /// `ProviderGuid`: the provider's GUID.
    pub provider_guid: Guid,
    /// The provider's name.
    pub provider_name: &'a str,
    /// `EventGuid`: the event class's GUID, the `Guid` of its events' headers.
    pub class_guid: Guid,
    /// The class's name, the task name readers show.
    pub class_name: &'a str,
    /// The class's version, `Class.Version` of its events: at most 255, the descriptor's
    /// one-byte `Version`.
    pub version: u16,
    /// The event type, `Class.Type` of its events, written as the descriptor's `Opcode`.
    pub event_type: EventType,
    /// The event type's name, the opcode name readers show.
    pub event_type_name: &'a str,
    /// The fields, in the order of the data.
    pub fields: &'a [FieldSchema<&'a str>],
}

/// Why [`EventInfoParts::write`] wrote nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum EventInfoWriteError {
    /// The version does not fit the descriptor's one-byte `Version`.
    Version(u16),
    /// A name is not ASCII (the names are written a byte to a UTF-16 unit); 0 the provider's,
    /// 1 the class's, 2 the event type's, 3 and up the field's at that index minus 3.
    NotAscii(usize),
    /// The field at this index is not one value of a type typed payloads write
    /// ([`ClassDescription::check`] lists them): a structure, an array, a map, or a length
    /// taken from another field.
    UnsupportedField(usize),
    /// `out` holds fewer bytes than the structure needs, or the structure's offsets do not
    /// fit its `u32` members.
    TooShort {
        /// The structure's bytes.
        needed: usize,
        /// `out`'s.
        found: usize,
    },
}

impl core::fmt::Display for EventInfoWriteError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            Self::Version(version) => write!(
                f,
                "version {version} does not fit the one-byte EVENT_DESCRIPTOR.Version (at most 255)"
            ),
            Self::NotAscii(index) => write!(
                f,
                "name {index} (0 provider, 1 class, 2 event type, then the fields) is not ASCII"
            ),
            Self::UnsupportedField(index) => write!(
                f,
                "field {index} is not one value of an integer, float, BOOLEAN, GUID, POINTER, FILETIME, string or fixed-length BINARY type"
            ),
            Self::TooShort { needed, found } => write!(
                f,
                "the TRACE_EVENT_INFO takes {needed} bytes, the output holds {found}"
            ),
        }
    }
}

impl core::error::Error for EventInfoWriteError {}

impl EventInfoParts<'static> {
    /// The parts of `event_type` of `class` of `provider`.
    pub const fn of(
        provider: &ProviderDescription,
        class: &ClassDescription,
        event_type: &EventTypeDescription,
    ) -> Self {
        Self {
            provider_guid: provider.guid(),
            provider_name: provider.name(),
            class_guid: class.guid(),
            class_name: class.name(),
            version: class.version(),
            event_type: event_type.event_type(),
            event_type_name: event_type.name(),
            fields: event_type.fields(),
        }
    }
}

impl EventInfoParts<'_> {
    /// Bytes of the structure: the fixed part, 24 per field, and each name as NUL-terminated
    /// UTF-16LE (two bytes a character of an ASCII name); saturating.
    pub const fn byte_len(&self) -> usize {
        let mut len = FIXED_LEN
            .saturating_add(PROPERTY_LEN.saturating_mul(self.fields.len()))
            .saturating_add(utf16z_len(self.provider_name))
            .saturating_add(utf16z_len(self.class_name))
            .saturating_add(utf16z_len(self.event_type_name));
        let mut rest = self.fields;
        while let Some((field, after)) = rest.split_first() {
            len = len.saturating_add(utf16z_len(field.name));
            rest = after;
        }
        len
    }

    /// Writes the `TRACE_EVENT_INFO` into the first [`byte_len`](Self::byte_len) bytes of `out` (the
    /// bytes after them are left as they are) and returns that length.
    ///
    /// # Errors
    /// [`EventInfoWriteError`]: nothing is written then.
    pub const fn write(&self, out: &mut [u8]) -> Result<usize, EventInfoWriteError> {
        let len = self.byte_len();
        let found = out.len();
        let (Some(_), Some((out, _))) = (u32_of(len), out.split_at_mut_checked(len)) else {
            return Err(EventInfoWriteError::TooShort { needed: len, found });
        };
        let [version, 0] = self.version.to_le_bytes() else {
            return Err(EventInfoWriteError::Version(self.version));
        };
        let names = [self.provider_name, self.class_name, self.event_type_name];
        let mut index = 0;
        while let Some(name) = item(&names, index) {
            if !name.is_ascii() {
                return Err(EventInfoWriteError::NotAscii(index));
            }
            index = index.saturating_add(1);
        }
        let mut index = 0;
        while let Some(field) = item(self.fields, index) {
            if !field.name.is_ascii() {
                return Err(EventInfoWriteError::NotAscii(index.saturating_add(3)));
            }
            if !is_supported(field) {
                return Err(EventInfoWriteError::UnsupportedField(index));
            }
            index = index.saturating_add(1);
        }
        // The length fits a `u32` (checked above), so each count and offset does.
        let count = u32_or_max(self.fields.len());
        let mut zero = 0;
        while let Some(byte) = slot_at(out, zero) {
            *byte = 0;
            zero = zero.saturating_add(1);
        }
        put(out, 0, &self.provider_guid.to_bytes_le());
        put(out, 16, &self.class_guid.to_bytes_le());
        // EVENT_DESCRIPTOR: Id 0, Version, Channel 0, Level 0, Opcode, Task 0, Keyword 0.
        put(out, 34, &[version, 0, 0, self.event_type.0]);
        put(out, 48, &DECODING_SOURCE_WBEM.to_le_bytes());
        put(out, 100, &count.to_le_bytes());
        put(out, 104, &count.to_le_bytes());
        // The names after the property array.
        let mut at = FIXED_LEN.saturating_add(PROPERTY_LEN.saturating_mul(self.fields.len()));
        at = put_name(out, 52, at, self.provider_name);
        at = put_name(out, 68, at, self.class_name);
        at = put_name(out, 72, at, self.event_type_name);
        let mut index = 0;
        while let Some(field) = item(self.fields, index) {
            let property = FIXED_LEN.saturating_add(PROPERTY_LEN.saturating_mul(index));
            let (flags, length) = property_flags_and_length(field);
            put(out, property, &flags.to_le_bytes());
            at = put_name(out, property.saturating_add(4), at, field.name);
            put(
                out,
                property.saturating_add(8),
                &field.in_type.0.to_le_bytes(),
            );
            put(
                out,
                property.saturating_add(10),
                &field.out_type.0.to_le_bytes(),
            );
            put(out, property.saturating_add(16), &1u16.to_le_bytes());
            put(out, property.saturating_add(18), &length.to_le_bytes());
            index = index.saturating_add(1);
        }
        Ok(len)
    }
}

/// The `TRACE_EVENT_INFO` describing `event_type` of `class` of `provider`, `N` bytes long,
/// laid out by [`EventInfoParts::write`]; `None` when `N` is not
/// [`ClassDescription::event_info_len`] of them, or the parts do not write (a class's version
/// above 255: the descriptor's `Version` is one byte). Meant for a constant, so the bytes are
/// in flash and cost no work (the [`event_info!`](crate::event_info) macro makes one):
///
/// ```
/// use etw_classic::describe::{event_info_bytes, ClassDescription, EventTypeDescription, ProviderDescription};
/// use etw_classic::payload::{EventInfo, FieldSchema, InType};
/// use etw_classic::{EventType, Guid};
///
/// const START: EventTypeDescription = EventTypeDescription::new(
///     EventType(1), "Start", &[FieldSchema::new("Stage", InType::UINT32)]);
/// const STAGE: ClassDescription = ClassDescription::new(Guid::from_fields(1, 2, 3, [4; 8]), "Stage", 0, &[START]);
/// const BOOT: ProviderDescription = ProviderDescription::new(Guid::from_fields(5, 6, 7, [8; 8]), "Boot", &[STAGE]);
/// const LEN: usize = STAGE.event_info_len(BOOT.name(), &START);
/// const INFO: [u8; LEN] = match event_info_bytes::<LEN>(&BOOT, &STAGE, &START) {
///     Some(bytes) => bytes,
///     None => panic!("the description does not fit a TRACE_EVENT_INFO"),
/// };
/// let info = EventInfo::parse(&INFO)?;
/// assert_eq!(info.task_name.map(|name| name.chars().collect::<String>()).as_deref(), Some("Stage"));
/// # Ok::<(), etw_classic::payload::EventInfoError>(())
/// ```
pub const fn event_info_bytes<const N: usize>(
    provider: &ProviderDescription,
    class: &ClassDescription,
    event_type: &EventTypeDescription,
) -> Option<[u8; N]> {
    let parts = EventInfoParts::of(provider, class, event_type);
    if parts.byte_len() != N {
        return None;
    }
    let mut out = [0u8; N];
    match parts.write(&mut out) {
        Ok(_) => Some(out),
        Err(_) => None,
    }
}

/// `Flags` and `length` of a field's `EVENT_PROPERTY_INFO`.
const fn property_flags_and_length(field: &FieldSchema<&str>) -> (u32, u16) {
    match (field.in_type, field.length) {
        (InType::BINARY, Length::Fixed(len)) => (PROPERTY_PARAM_FIXED_LENGTH, len),
        (InType::POINTER, _) => (0, 0),
        (in_type, _) => match in_type.fixed_size(8) {
            Some(size) => (0, u16::from_le_bytes([size, 0])),
            None => (0, 0),
        },
    }
}

/// Bytes of an ASCII `name` as NUL-terminated UTF-16LE.
const fn utf16z_len(name: &str) -> usize {
    name.len().saturating_add(1).saturating_mul(2)
}

/// Writes the ASCII `name` as NUL-terminated UTF-16LE at `at` (each byte, then a zero byte;
/// the NUL is the zeros already there), and its offset into the `u32` at `member`; the offset
/// after it. `out` is [`EventInfoParts::byte_len`] long, which counts every name, and that length
/// fits a `u32`.
const fn put_name(out: &mut [u8], member: usize, at: usize, name: &str) -> usize {
    put(out, member, &u32_or_max(at).to_le_bytes());
    let mut to = at;
    let mut rest = name.as_bytes();
    while let Some((&byte, after)) = rest.split_first() {
        put(out, to, &[byte, 0]);
        to = to.saturating_add(2);
        rest = after;
    }
    at.saturating_add(utf16z_len(name))
}

/// Copies `bytes` into `out` from `at`, as far as `out` goes.
const fn put(out: &mut [u8], at: usize, bytes: &[u8]) {
    let mut to = at;
    let mut rest = bytes;
    while let Some((&byte, after)) = rest.split_first() {
        if let Some(slot) = slot_at(out, to) {
            *slot = byte;
        }
        to = to.saturating_add(1);
        rest = after;
    }
}

/// The byte at `at` of `out`, if there is one (`get_mut` is not `const` at the crate's
/// minimum Rust version).
const fn slot_at(out: &mut [u8], at: usize) -> Option<&mut u8> {
    match out.split_at_mut_checked(at) {
        Some((_, tail)) => tail.first_mut(),
        None => None,
    }
}

/// The element at `index` of `items`, if there is one.
const fn item<T>(items: &[T], index: usize) -> Option<&T> {
    match items.split_at_checked(index) {
        Some((_, tail)) => tail.first(),
        None => None,
    }
}

/// `n` as a `u32`, if it fits.
const fn u32_of(n: usize) -> Option<u32> {
    let bytes = n.to_le_bytes();
    let mut low = [0u8; 4];
    put(&mut low, 0, &bytes);
    let mut at = 4;
    while let Some(&byte) = item(&bytes, at) {
        if byte != 0 {
            return None;
        }
        at = at.saturating_add(1);
    }
    Some(u32::from_le_bytes(low))
}

/// `n` as a `u32`, `u32::MAX` when it does not fit.
const fn u32_or_max(n: usize) -> u32 {
    match u32_of(n) {
        Some(n) => n,
        None => u32::MAX,
    }
}

impl ClassDescription {
    /// The length of the `TRACE_EVENT_INFO` that describes `event_type` of this class with the
    /// provider named `provider_name` (tdh.h): 112 bytes, 24 per `EVENT_PROPERTY_INFO`, then
    /// the names as NUL-terminated UTF-16LE (provider, task = the class, opcode = the event
    /// type, each field's). Identifiers are ASCII: two bytes a character. Saturates rather
    /// than overflows.
    pub const fn event_info_len(
        &self,
        provider_name: &str,
        event_type: &EventTypeDescription,
    ) -> usize {
        EventInfoParts {
            provider_guid: Guid::NIL,
            provider_name,
            class_guid: self.guid(),
            class_name: self.name(),
            version: self.version(),
            event_type: event_type.event_type(),
            event_type_name: event_type.name(),
            fields: event_type.fields(),
        }
        .byte_len()
    }
}
