//! `EVENT_TRACE_HEADER`: the 0x30-byte header of a classic event, the `FULL_HEADER32` and
//! `FULL_HEADER64` events in trace buffers.

use crate::wire::class::Class;
use crate::wire::codes::{HeaderType, MarkerFlags};
use crate::wire::error::CodecError;
use crate::wire::field::{self, Field, Reader, Writer};
use crate::wire::layout::Layout;
use crate::wire::unions::{GuidOrPtr, TimesOrFlags};

/// Byte offsets of the members, named after the SDK (evntrace.h), shared with the headers that
/// begin the same way.
#[rustfmt::skip]
pub(crate) mod offset {
    use super::Field;

    pub(crate) const SIZE: Field<0, 2> = Field::at(0x00); //                             USHORT Size
    pub(crate) const HEADER_TYPE: Field<{ SIZE.end() }, 1> = Field::at(0x02); //         UCHAR  HeaderType
    pub(crate) const MARKER_FLAGS: Field<{ HEADER_TYPE.end() }, 1> = Field::at(0x03); // UCHAR  MarkerFlags
    pub(crate) const VERSION: Field<{ MARKER_FLAGS.end() }, 4> = Field::at(0x04); //     ULONG  Version | struct Class
    pub(crate) const THREAD_ID: Field<{ VERSION.end() }, 4> = Field::at(0x08); //        ULONG  ThreadId
    pub(crate) const PROCESS_ID: Field<{ THREAD_ID.end() }, 4> = Field::at(0x0C); //     ULONG  ProcessId
    pub(crate) const TIME_STAMP: Field<{ PROCESS_ID.end() }, 8> = Field::at(0x10); //    LARGE_INTEGER TimeStamp
    pub(crate) const GUID: Field<{ TIME_STAMP.end() }, 16> = Field::at(0x18); //         GUID Guid | ULONGLONG GuidPtr
    pub(crate) const PROCESSOR_TIME: Field<{ GUID.end() }, 8> = Field::at(0x28); //      KernelTime+UserTime | ProcessorTime | ClientContext+Flags

    /// What `parse` checks, here and in the headers that begin with an `EVENT_TRACE_HEADER`.
    pub(crate) const CHECKED: crate::wire::field::CheckedFields<
        { SIZE.start() },
        { HEADER_TYPE.start() },
        { MARKER_FLAGS.start() },
    > = crate::wire::field::CheckedFields {
        size: SIZE,
        header_type: HEADER_TYPE,
        marker_flags: MARKER_FLAGS,
    };
}

const _: () = offset::PROCESSOR_TIME.ends_at(EventTraceHeader::LEN);

/// `EVENT_TRACE_HEADER` (evntrace.h), 0x30 bytes, the same for 32- and 64-bit code.
///
/// | off | size | member | field |
/// |---|---|---|---|
/// | 0x00 | 2 | `Size` | [`size`](Self::size): header + event data |
/// | 0x02 | 1 | `HeaderType` | [`header_type`](Self::header_type) |
/// | 0x03 | 1 | `MarkerFlags` | [`marker_flags`](Self::marker_flags) |
/// | 0x04 | 4 | `Version` \| `Class` | [`class`](Self::class) |
/// | 0x08 | 4 | `ThreadId` | [`thread_id`](Self::thread_id) |
/// | 0x0C | 4 | `ProcessId` | [`process_id`](Self::process_id) |
/// | 0x10 | 8 | `TimeStamp` | [`timestamp`](Self::timestamp) |
/// | 0x18 | 16 | `Guid` \| `GuidPtr` | [`guid`](Self::guid) |
/// | 0x28 | 8 | `KernelTime`+`UserTime` \| `ProcessorTime` \| `ClientContext`+`Flags` | [`times`](Self::times) |
///
/// [`from_bytes`](Self::from_bytes) takes any 0x30 bytes and [`to_bytes`](Self::to_bytes) gives
/// them back unchanged. [`parse`](Self::parse) reads the header as it appears in a trace buffer
/// and checks it is one: marker flags 0xC0, header type `FULL_HEADER32` or `FULL_HEADER64`, and
/// a `Size` that covers the header.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct EventTraceHeader {
    /// `Size`: "Total number of bytes of the event. Size includes the size of the header
    /// structure, plus the size of any event-specific data appended to the header."
    pub size: u16,
    /// `HeaderType`: `FULL_HEADER32` (0x0A) or `FULL_HEADER64` (0x14) in a trace buffer.
    pub header_type: HeaderType,
    /// `MarkerFlags`: 0xC0 in a trace buffer.
    pub marker_flags: MarkerFlags,
    /// `Class` (the `Version` roll-up): event type, level and class version.
    pub class: Class,
    /// `ThreadId` of the thread that logged the event.
    pub thread_id: u32,
    /// `ProcessId` of the process that logged the event.
    pub process_id: u32,
    /// `TimeStamp`: "the time the event occurred, in 100-nanosecond intervals since midnight,
    /// January 1, 1601" unless the session uses another clock. Signed (`LARGE_INTEGER`).
    pub timestamp: i64,
    /// `Guid` | `GuidPtr`: the event trace class GUID, or on input its address.
    pub guid: GuidOrPtr,
    /// `KernelTime`+`UserTime` | `ProcessorTime` | `ClientContext`+`Flags`.
    pub times: TimesOrFlags,
}

impl EventTraceHeader {
    /// Bytes in an `EVENT_TRACE_HEADER`.
    pub const LEN: usize = Layout::EventTraceHeader.byte_len();
    /// The layout this type encodes.
    pub const LAYOUT: Layout = Layout::EventTraceHeader;

    /// Decodes any 0x30 bytes; nothing is checked and nothing is lost.
    #[inline]
    pub fn from_bytes(bytes: &[u8; Self::LEN]) -> Self {
        Self::read(&Reader::new(bytes))
    }

    /// Decodes the members from the first 0x30 bytes `read` covers: this header alone, or the
    /// start of a struct that embeds it. Reads in place, with no copy of the bytes.
    #[inline]
    pub(crate) fn read<const LEN: usize>(read: &Reader<'_, LEN>) -> Self {
        Self {
            size: read.u16(offset::SIZE),
            header_type: HeaderType(read.u8(offset::HEADER_TYPE)),
            marker_flags: MarkerFlags(read.u8(offset::MARKER_FLAGS)),
            class: Class::from_roll_up(read.u32(offset::VERSION)),
            thread_id: read.u32(offset::THREAD_ID),
            process_id: read.u32(offset::PROCESS_ID),
            timestamp: read.i64(offset::TIME_STAMP),
            guid: GuidOrPtr(read.bytes16(offset::GUID)),
            times: TimesOrFlags(read.bytes(offset::PROCESSOR_TIME)),
        }
    }

    /// Encodes the members into the first 0x30 bytes `write` covers (see [`Self::read`]).
    #[inline]
    pub(crate) fn write<const LEN: usize>(&self, write: &mut Writer<'_, LEN>) {
        write.u16(offset::SIZE, self.size);
        write.u8(offset::HEADER_TYPE, self.header_type.0);
        write.u8(offset::MARKER_FLAGS, self.marker_flags.0);
        write.u32(offset::VERSION, self.class.roll_up());
        write.u32(offset::THREAD_ID, self.thread_id);
        write.u32(offset::PROCESS_ID, self.process_id);
        write.i64(offset::TIME_STAMP, self.timestamp);
        write.bytes16(offset::GUID, self.guid.0);
        write.bytes(offset::PROCESSOR_TIME, self.times.0);
    }

    /// Reads the header at the start of `input` as a trace buffer holds it, and returns it with
    /// the bytes after the header (the event data and whatever follows it).
    ///
    /// # Errors
    /// [`CodecError::Truncated`] for fewer than 0x30 bytes; [`CodecError::NotATraceHeader`] without marker
    /// flags 0xC0; [`CodecError::WrongHeaderType`] for a type other than `FULL_HEADER32`/`FULL_HEADER64`;
    /// [`CodecError::SizeBelowHeader`] for a `Size` under 0x30.
    pub fn parse(input: &[u8]) -> Result<(Self, &[u8]), CodecError> {
        let (bytes, rest) = field::split_prefix::<{ Self::LEN }>(Self::LAYOUT, input)?;
        let read = Reader::new(bytes);
        field::check_event_header(
            Self::LAYOUT,
            &read,
            offset::CHECKED,
            [HeaderType::FULL_HEADER32, HeaderType::FULL_HEADER64],
        )?;
        Ok((Self::read(&read), rest))
    }

    /// Reads one whole event: the header as [`parse`](Self::parse) does, then `Size - 0x30` bytes
    /// of event data. Returns the header, the data and the bytes after the event.
    ///
    /// # Errors
    /// Those of [`parse`](Self::parse), and [`CodecError::SizeBeyondInput`] when `Size` runs past the
    /// end of `input`.
    pub fn parse_event(input: &[u8]) -> Result<(Self, &[u8], &[u8]), CodecError> {
        let (header, _) = Self::parse(input)?;
        let (data, rest) = field::split_event(Self::LAYOUT, input, header.size)?;
        Ok((header, data, rest))
    }
}

field::fixed_layout_entry_points!(EventTraceHeader, emit);

/// An `EVENT_TRACE_HEADER` as the first member of a larger struct.
impl field::Member<{ EventTraceHeader::LEN }> for EventTraceHeader {
    #[inline]
    fn decode(bytes: [u8; Self::LEN]) -> Self {
        Self::from_bytes(&bytes)
    }

    #[inline]
    fn encode(&self) -> [u8; Self::LEN] {
        self.to_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::codes::{EventType, Level};
    use crate::wire::field::ascending;
    use crate::wire::guid::Guid;

    /// The C-ABI vector "EVENT_TRACE_HEADER class+guid+kernel_user" (mingw-w64, both ABIs).
    #[rustfmt::skip]
    const GOLDEN: [u8; 0x30] = [
        0x11, 0x12,                                     // 0x00 Size
        0x13,                                           // 0x02 HeaderType
        0x14,                                           // 0x03 MarkerFlags
        0x15, 0x16, 0x17, 0x18,                         // 0x04 Class.Type, Class.Level, Class.Version
        0x19, 0x1a, 0x1b, 0x1c,                         // 0x08 ThreadId
        0x1d, 0x1e, 0x1f, 0x20,                         // 0x0C ProcessId
        0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27, 0x28, // 0x10 TimeStamp
        0x29, 0x2a, 0x2b, 0x2c, 0x2d, 0x2e, 0x2f, 0x30, // 0x18 Guid (Data1, Data2, Data3)
        0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37, 0x38, // 0x20 Guid (Data4)
        0x39, 0x3a, 0x3b, 0x3c,                         // 0x28 KernelTime
        0x3d, 0x3e, 0x3f, 0x40,                         // 0x2C UserTime
    ];

    fn golden_value() -> EventTraceHeader {
        EventTraceHeader {
            size: 0x1211,
            header_type: HeaderType(0x13),
            marker_flags: MarkerFlags(0x14),
            class: Class::new(EventType(0x15), Level(0x16), 0x1817),
            thread_id: 0x1c1b_1a19,
            process_id: 0x201f_1e1d,
            timestamp: 0x2827_2625_2423_2221,
            guid: GuidOrPtr::from_guid(Guid::from_fields(
                0x2c2b_2a29,
                0x2e2d,
                0x302f,
                [0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37, 0x38],
            )),
            times: TimesOrFlags::from_times(0x3c3b_3a39, 0x403f_3e3d),
        }
    }

    #[test]
    fn decodes_the_golden_vector() {
        assert_eq!(GOLDEN, ascending());
        assert_eq!(EventTraceHeader::from_bytes(&GOLDEN), golden_value());
    }

    #[test]
    fn encodes_the_golden_vector() {
        assert_eq!(golden_value().to_bytes(), GOLDEN);
    }

    #[test]
    fn parse_checks_what_a_buffer_header_must_be() {
        let mut bytes = GOLDEN;
        bytes[0x02] = 0x14;
        bytes[0x03] = 0xC0;
        let (header, rest) = EventTraceHeader::parse(&bytes).unwrap();
        assert_eq!(header.size, 0x1211);
        assert!(rest.is_empty());
        bytes[0x03] = 0x40;
        assert!(matches!(
            EventTraceHeader::parse(&bytes),
            Err(CodecError::NotATraceHeader { .. })
        ));
    }
}
