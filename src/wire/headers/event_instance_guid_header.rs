//! `EVENT_INSTANCE_GUID_HEADER`: the 0x48-byte header of an instance event in a trace buffer,
//! header types `INSTANCE32` and `INSTANCE64`.

use crate::wire::codes::HeaderType;
use crate::wire::error::CodecError;
use crate::wire::field::{self, Field, Reader, Writer};
use crate::wire::guid::Guid;
use crate::wire::headers::event_trace_header::EventTraceHeader;
use crate::wire::layout::Layout;

/// Byte offsets of the members after the embedded `EVENT_TRACE_HEADER` (ntwmi.h).
#[rustfmt::skip]
pub(crate) mod offset {
    use super::Field;

    pub(crate) const HEADER: Field<0, { super::EventTraceHeader::LEN }> = Field::at(0x00); //   EVENT_TRACE_HEADER members
    pub(crate) const INSTANCE_ID: Field<{ HEADER.end() }, 4> = Field::at(0x30); //              ULONG InstanceId
    pub(crate) const PARENT_INSTANCE_ID: Field<{ INSTANCE_ID.end() }, 4> = Field::at(0x34); //  ULONG ParentInstanceId
    pub(crate) const PARENT_GUID: Field<{ PARENT_INSTANCE_ID.end() }, 16> = Field::at(0x38); // GUID ParentGuid
}

const _: () = offset::PARENT_GUID.ends_at(EventInstanceGuidHeader::LEN);

/// `EVENT_INSTANCE_GUID_HEADER` (ntwmi.h; not in the public SDK), 0x48 bytes on both bitnesses:
/// what `TraceEventInstance` writes into trace buffers and .etl files.
///
/// "It is basically EVENT_TRACE_HEADER + 2 Guids": the first 0x30 bytes are an
/// [`EventTraceHeader`], and the whole is byte-identical to the first 0x48 bytes of the
/// consumer's `EVENT_TRACE`.
///
/// | off | size | member | field |
/// |---|---|---|---|
/// | 0x00 | 0x30 | `Size` .. `ClientContext`+`Flags` | [`header`](Self::header) |
/// | 0x30 | 4 | `InstanceId` | [`instance_id`](Self::instance_id) |
/// | 0x34 | 4 | `ParentInstanceId` | [`parent_instance_id`](Self::parent_instance_id) |
/// | 0x38 | 16 | `ParentGuid` | [`parent_guid`](Self::parent_guid) |
///
/// `HeaderType` 0x0B (`INSTANCE32`) means 32-bit event data follows, 0x15 (`INSTANCE64`) 64-bit.
/// [`parse`](Self::parse) checks marker flags 0xC0, one of those two types, and a `Size` of at
/// least 0x48.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct EventInstanceGuidHeader {
    /// Bytes 0x00..0x30, laid out as `EVENT_TRACE_HEADER`; `header.guid` is the event's class GUID.
    pub header: EventTraceHeader,
    /// `InstanceId`: "labels this event, along with its Guid".
    pub instance_id: u32,
    /// `ParentInstanceId`: the `InstanceId` of the parent event, 0 without a parent.
    pub parent_instance_id: u32,
    /// `ParentGuid`: the class GUID of the parent event.
    pub parent_guid: Guid,
}

impl EventInstanceGuidHeader {
    /// Bytes in an `EVENT_INSTANCE_GUID_HEADER`.
    pub const LEN: usize = Layout::EventInstanceGuidHeader.byte_len();
    /// The layout this type encodes.
    pub const LAYOUT: Layout = Layout::EventInstanceGuidHeader;

    /// Decodes any 0x48 bytes; nothing is checked and nothing is lost.
    #[inline]
    pub fn from_bytes(bytes: &[u8; Self::LEN]) -> Self {
        Self::read(&Reader::new(bytes))
    }

    /// Decodes the members from the bytes `read` covers, in place, with no copy of the bytes.
    #[inline]
    fn read(read: &Reader<'_, { Self::LEN }>) -> Self {
        Self {
            header: EventTraceHeader::read(read),
            instance_id: read.u32(offset::INSTANCE_ID),
            parent_instance_id: read.u32(offset::PARENT_INSTANCE_ID),
            parent_guid: read.guid(offset::PARENT_GUID),
        }
    }

    /// Encodes the members into the bytes `write` covers, setting every one of them (`to_bytes`
    /// and `emit` are built on it).
    #[inline]
    pub(crate) fn write(&self, write: &mut Writer<'_, { Self::LEN }>) {
        self.header.write(write);
        write.u32(offset::INSTANCE_ID, self.instance_id);
        write.u32(offset::PARENT_INSTANCE_ID, self.parent_instance_id);
        write.guid(offset::PARENT_GUID, self.parent_guid);
    }

    /// Reads the header at the start of `input` as a trace buffer holds it, and returns it with
    /// the bytes after the header.
    ///
    /// # Errors
    /// [`CodecError::Truncated`] for fewer than 0x48 bytes; [`CodecError::NotATraceHeader`] without marker
    /// flags 0xC0; [`CodecError::WrongHeaderType`] for a type other than `INSTANCE32`/`INSTANCE64`;
    /// [`CodecError::SizeBelowHeader`] for a `Size` under 0x48.
    pub fn parse(input: &[u8]) -> Result<(Self, &[u8]), CodecError> {
        let (bytes, rest) = field::split_prefix::<{ Self::LEN }>(Self::LAYOUT, input)?;
        let read = Reader::new(bytes);
        field::check_event_header(
            Self::LAYOUT,
            &read,
            crate::wire::headers::event_trace_header::offset::CHECKED,
            [HeaderType::INSTANCE32, HeaderType::INSTANCE64],
        )?;
        Ok((Self::read(&read), rest))
    }

    /// Reads one whole event: the header as [`parse`](Self::parse) does, then `Size - 0x48` bytes
    /// of event data. Returns the header, the data and the bytes after the event.
    ///
    /// # Errors
    /// Those of [`parse`](Self::parse), and [`CodecError::SizeBeyondInput`] when `Size` runs past the
    /// end of `input`.
    pub fn parse_event(input: &[u8]) -> Result<(Self, &[u8], &[u8]), CodecError> {
        let (header, _) = Self::parse(input)?;
        let (data, rest) = field::split_event(Self::LAYOUT, input, header.header.size)?;
        Ok((header, data, rest))
    }
}

field::fixed_layout_entry_points!(EventInstanceGuidHeader, emit);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::field::ascending;

    /// The C-ABI vector "EVENT_INSTANCE_GUID_HEADER class+guid+kernel_user" (defined in C from the
    /// ntwmi.h layout and checked there against the first 0x48 bytes of mingw-w64's EVENT_TRACE).
    fn golden() -> [u8; 0x48] {
        ascending()
    }

    #[test]
    fn decodes_and_encodes_the_golden_vector() {
        let header = EventInstanceGuidHeader::from_bytes(&golden());
        assert_eq!(header.header, EventTraceHeader::from_bytes(&ascending()));
        assert_eq!(header.instance_id, 0x4443_4241);
        assert_eq!(header.parent_instance_id, 0x4847_4645);
        assert_eq!(
            header.parent_guid,
            Guid::from_fields(
                0x4c4b_4a49,
                0x4e4d,
                0x504f,
                [0x51, 0x52, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58]
            )
        );
        assert_eq!(header.to_bytes(), golden());
    }

    #[test]
    fn parse_accepts_instance_types_only() {
        let mut bytes = golden();
        bytes[0x00..0x02].copy_from_slice(&0x48u16.to_le_bytes());
        bytes[0x03] = 0xC0;
        for (header_type, accepted) in [(0x0B, true), (0x15, true), (0x0A, false), (0x14, false)] {
            bytes[0x02] = header_type;
            assert_eq!(
                EventInstanceGuidHeader::parse(&bytes).is_ok(),
                accepted,
                "{header_type:#x}"
            );
        }
    }
}
