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

use crate::describe::description::{ClassDescription, EventTypeDescription, ProviderDescription};
use crate::payload::schema::{FieldSchema, Length};
use crate::payload::types::InType;

/// `DecodingSourceWbem` (tdh.h's `DECODING_SOURCE`): the event is described by WMI MOF.
const DECODING_SOURCE_WBEM: u32 = 1;
/// `PropertyParamFixedLength` (tdh.h's `PROPERTY_FLAGS`).
const PROPERTY_PARAM_FIXED_LENGTH: u32 = 0x10;

/// The `TRACE_EVENT_INFO` describing `event_type` of `class` of `provider`, `N` bytes long;
/// `None` when `N` is not [`ClassDescription::event_info_len`] of them, when a name or an
/// offset does not fit its member, or when the class's version does not fit the descriptor's
/// one-byte `Version`. Meant for a constant, so the bytes are in flash and cost no work:
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
    if class.event_info_len(provider.name(), event_type) != N {
        return None;
    }
    let [version, 0] = class.version().to_le_bytes() else {
        return None;
    };
    let fields = event_type.fields();
    let Some(count) = u32_of(fields.len()) else {
        return None;
    };
    let mut out = [0u8; N];
    put(&mut out, 0, &provider.guid().to_bytes_le());
    put(&mut out, 16, &class.guid().to_bytes_le());
    // EVENT_DESCRIPTOR: Id 0, Version, Channel 0, Level 0, Opcode, Task 0, Keyword 0.
    put(&mut out, 34, &[version, 0, 0, event_type.event_type().0]);
    put(&mut out, 48, &DECODING_SOURCE_WBEM.to_le_bytes());
    put(&mut out, 100, &count.to_le_bytes());
    put(&mut out, 104, &count.to_le_bytes());
    // The names after the property array.
    let mut names = 112usize.saturating_add(24usize.saturating_mul(fields.len()));
    let named = [
        (52, provider.name()),
        (68, class.name()),
        (72, event_type.name()),
    ];
    let mut rest = named.as_slice();
    while let Some((&(member, name), after)) = rest.split_first() {
        match put_name(&mut out, member, names, name) {
            Some(next) => names = next,
            None => return None,
        }
        rest = after;
    }
    let mut index = 0;
    let mut rest = fields;
    while let Some((field, after)) = rest.split_first() {
        let property = 112usize.saturating_add(24usize.saturating_mul(index));
        let (flags, length) = property_flags_and_length(field);
        put(&mut out, property, &flags.to_le_bytes());
        match put_name(&mut out, property.saturating_add(4), names, field.name) {
            Some(next) => names = next,
            None => return None,
        }
        put(
            &mut out,
            property.saturating_add(8),
            &field.in_type.0.to_le_bytes(),
        );
        put(
            &mut out,
            property.saturating_add(10),
            &field.out_type.0.to_le_bytes(),
        );
        put(&mut out, property.saturating_add(16), &1u16.to_le_bytes());
        put(&mut out, property.saturating_add(18), &length.to_le_bytes());
        index = index.saturating_add(1);
        rest = after;
    }
    if names != N {
        return None;
    }
    Some(out)
}

/// `Flags` and `length` of a field's `EVENT_PROPERTY_INFO`.
const fn property_flags_and_length(field: &FieldSchema<&'static str>) -> (u32, u16) {
    match (field.in_type, field.length) {
        (InType::BINARY, Length::Fixed(len)) => (PROPERTY_PARAM_FIXED_LENGTH, len),
        (InType::POINTER, _) => (0, 0),
        (in_type, _) => match in_type.fixed_size(8) {
            Some(size) => (0, u16::from_le_bytes([size, 0])),
            None => (0, 0),
        },
    }
}

/// Writes `name` as NUL-terminated UTF-16LE at `at` (ASCII: each byte, then a zero byte),
/// and its offset into the `u32` at `member`; the offset after it, or `None` when it does not
/// fit `out` or its offset a `u32`.
const fn put_name<const N: usize>(
    out: &mut [u8; N],
    member: usize,
    at: usize,
    name: &str,
) -> Option<usize> {
    let Some(offset) = u32_of(at) else {
        return None;
    };
    let end = at.saturating_add(name.len().saturating_add(1).saturating_mul(2));
    if end > N {
        return None;
    }
    put(out, member, &offset.to_le_bytes());
    let mut to = at;
    let mut rest = name.as_bytes();
    while let Some((&byte, after)) = rest.split_first() {
        put(out, to, &[byte, 0]);
        to = to.saturating_add(2);
        rest = after;
    }
    // The NUL: the array is zeros already.
    Some(end)
}

/// Copies `bytes` into `out` from `at`, as far as `out` goes.
const fn put<const N: usize>(out: &mut [u8; N], at: usize, bytes: &[u8]) {
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
const fn slot_at<const N: usize>(out: &mut [u8; N], at: usize) -> Option<&mut u8> {
    let out: &mut [u8] = out;
    match out.split_at_mut_checked(at) {
        Some((_, tail)) => tail.first_mut(),
        None => None,
    }
}

/// The byte at `at` of `bytes`, if there is one.
const fn slot_ref(bytes: &[u8], at: usize) -> Option<&u8> {
    match bytes.split_at_checked(at) {
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
    while let Some(&byte) = slot_ref(&bytes, at) {
        if byte != 0 {
            return None;
        }
        at = at.saturating_add(1);
    }
    Some(u32::from_le_bytes(low))
}
