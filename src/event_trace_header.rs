//! `EVENT_TRACE_HEADER`: the 0x30-byte header of a classic event, the `FULL_HEADER32` and
//! `FULL_HEADER64` events in trace buffers.

use crate::wire::{self, Field, Reader, Writer};
use crate::{Class, Error, GuidOrPtr, HeaderType, Layout, MarkerFlags, TimesOrFlags};

/// Byte offsets of the members, named after the SDK (evntrace.h), shared with the headers that
/// begin the same way.
pub(crate) mod offset {
    use super::Field;

    pub(crate) const SIZE: Field<2> = Field::at(0x00); //           USHORT Size
    pub(crate) const HEADER_TYPE: Field<1> = Field::at(0x02); //    UCHAR  HeaderType
    pub(crate) const MARKER_FLAGS: Field<1> = Field::at(0x03); //   UCHAR  MarkerFlags
    pub(crate) const VERSION: Field<4> = Field::at(0x04); //        ULONG  Version | struct Class
    pub(crate) const THREAD_ID: Field<4> = Field::at(0x08); //      ULONG  ThreadId
    pub(crate) const PROCESS_ID: Field<4> = Field::at(0x0C); //     ULONG  ProcessId
    pub(crate) const TIME_STAMP: Field<8> = Field::at(0x10); //     LARGE_INTEGER TimeStamp
    pub(crate) const GUID: Field<16> = Field::at(0x18); //          GUID Guid | ULONGLONG GuidPtr
    pub(crate) const PROCESSOR_TIME: Field<8> = Field::at(0x28); // KernelTime+UserTime | ProcessorTime | ClientContext+Flags
}

const _: () = assert!(offset::PROCESSOR_TIME.end() == EventTraceHeader::LEN);

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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct EventTraceHeader {
    /// `Size`: "Total number of bytes of the event. Size includes the size of the header
    /// structure, plus the size of any event-specific data appended to the header."
    pub size: u16,
    /// `HeaderType`: `FULL_HEADER32` or `FULL_HEADER64` in a trace buffer.
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
    pub const LEN: usize = 0x30;
    /// The layout this type encodes.
    pub const LAYOUT: Layout = Layout::EventTraceHeader;

    /// Decodes any 0x30 bytes; nothing is checked and nothing is lost.
    pub fn from_bytes(bytes: &[u8; Self::LEN]) -> Self {
        let read = Reader::new(bytes);
        Self {
            size: read.u16(offset::SIZE),
            header_type: HeaderType(read.u8(offset::HEADER_TYPE)),
            marker_flags: MarkerFlags(read.u8(offset::MARKER_FLAGS)),
            class: Class::from_roll_up(read.u32(offset::VERSION)),
            thread_id: read.u32(offset::THREAD_ID),
            process_id: read.u32(offset::PROCESS_ID),
            timestamp: read.i64(offset::TIME_STAMP),
            guid: GuidOrPtr(read.bytes(offset::GUID)),
            times: TimesOrFlags(read.bytes(offset::PROCESSOR_TIME)),
        }
    }

    /// Encodes every member; `from_bytes(&h.to_bytes()) == h` for every `h`.
    pub fn to_bytes(&self) -> [u8; Self::LEN] {
        let mut bytes = [0; Self::LEN];
        let mut write = Writer::new(&mut bytes);
        write.u16(offset::SIZE, self.size);
        write.u8(offset::HEADER_TYPE, self.header_type.0);
        write.u8(offset::MARKER_FLAGS, self.marker_flags.0);
        write.u32(offset::VERSION, self.class.roll_up());
        write.u32(offset::THREAD_ID, self.thread_id);
        write.u32(offset::PROCESS_ID, self.process_id);
        write.i64(offset::TIME_STAMP, self.timestamp);
        write.bytes(offset::GUID, self.guid.0);
        write.bytes(offset::PROCESSOR_TIME, self.times.0);
        bytes
    }

    /// Reads the header at the start of `input` as a trace buffer holds it, and returns it with
    /// the bytes after the header (the event data and whatever follows it).
    ///
    /// # Errors
    /// [`Error::Truncated`] for fewer than 0x30 bytes; [`Error::NotATraceHeader`] without marker
    /// flags 0xC0; [`Error::WrongHeaderType`] for a type other than `FULL_HEADER32`/`FULL_HEADER64`;
    /// [`Error::SizeBelowHeader`] for a `Size` under 0x30.
    pub fn parse(input: &[u8]) -> Result<(Self, &[u8]), Error> {
        let (bytes, rest) = wire::split_prefix::<{ Self::LEN }>(Self::LAYOUT, input)?;
        let header = Self::from_bytes(bytes);
        wire::check_event_header(
            Self::LAYOUT,
            header.marker_flags,
            header.header_type,
            [HeaderType::FULL_HEADER32, HeaderType::FULL_HEADER64],
            header.size,
        )?;
        Ok((header, rest))
    }

    /// Reads one whole event: the header as [`parse`](Self::parse) does, then `Size - 0x30` bytes
    /// of event data. Returns the header, the data and the bytes after the event.
    ///
    /// # Errors
    /// Those of [`parse`](Self::parse), and [`Error::SizeBeyondInput`] when `Size` runs past the
    /// end of `input`.
    pub fn parse_event(input: &[u8]) -> Result<(Self, &[u8], &[u8]), Error> {
        let (header, _) = Self::parse(input)?;
        let (data, rest) = wire::split_event(Self::LAYOUT, input, header.size)?;
        Ok((header, data, rest))
    }

    /// Writes the header to the start of `out` and returns the rest of `out`.
    ///
    /// # Errors
    /// [`Error::OutputTooSmall`] when `out` is shorter than 0x30 bytes; nothing is written then.
    pub fn emit<'o>(&self, out: &'o mut [u8]) -> Result<&'o mut [u8], Error> {
        wire::emit_prefix(Self::LAYOUT, self.to_bytes(), out)
    }
}
