//! `WMI_BUFFER_HEADER`: the 0x48 bytes that start every trace buffer, in memory and in .etl files.

use crate::invariant::known;
use crate::wire::field::{self, Field, Reader, Writer};
use crate::wire::layout::Layout;
use crate::wire::records::buffer_context::BufferContext;

/// `DEFAULT_TRACE_ALIGNMENT` (ntwmi.h): events in a trace buffer start at multiples of 8 bytes,
/// so the next event starts at the previous one's offset plus its `Size` rounded up to 8. The
/// pad bytes in between are undefined (real traces hold garbage there) and are never read.
pub const DEFAULT_TRACE_ALIGNMENT: usize = 8;

/// Byte offsets of the members, named after ntwmi.h (Windows 10 WDK; the same offsets in Geoff
/// Chappell's `WMI_BUFFER_HEADER` page, from the kernel's symbol files).
#[rustfmt::skip]
mod offset {
    use super::Field;

    pub(super) const BUFFER_SIZE: Field<0, 4> = Field::at(0x00); //                            ULONG BufferSize
    pub(super) const SAVED_OFFSET: Field<{ BUFFER_SIZE.end() }, 4> = Field::at(0x04); //       ULONG SavedOffset
    pub(super) const CURRENT_OFFSET: Field<{ SAVED_OFFSET.end() }, 4> = Field::at(0x08); //    volatile ULONG CurrentOffset
    pub(super) const REFERENCE_COUNT: Field<{ CURRENT_OFFSET.end() }, 4> = Field::at(0x0C); // volatile LONG ReferenceCount
    pub(super) const TIME_STAMP: Field<{ REFERENCE_COUNT.end() }, 8> = Field::at(0x10); //     LARGE_INTEGER TimeStamp
    pub(super) const SEQUENCE_NUMBER: Field<{ TIME_STAMP.end() }, 8> = Field::at(0x18); //     LONGLONG SequenceNumber
    pub(super) const CLOCK_OR_LINK: Field<{ SEQUENCE_NUMBER.end() }, 8> = Field::at(0x20); //  ClockType:3+Frequency:61 | SlistEntry | NextBuffer
    pub(super) const CLIENT_CONTEXT: Field<{ CLOCK_OR_LINK.end() }, 4> = Field::at(0x28); //   ETW_BUFFER_CONTEXT ClientContext
    pub(super) const STATE: Field<{ CLIENT_CONTEXT.end() }, 4> = Field::at(0x2C); //           ETW_BUFFER_STATE State
    pub(super) const OFFSET: Field<{ STATE.end() }, 4> = Field::at(0x30); //                   ULONG Offset
    pub(super) const BUFFER_FLAG: Field<{ OFFSET.end() }, 2> = Field::at(0x34); //             USHORT BufferFlag
    pub(super) const BUFFER_TYPE: Field<{ BUFFER_FLAG.end() }, 2> = Field::at(0x36); //        USHORT BufferType
    pub(super) const REFERENCE_TIME: Field<{ BUFFER_TYPE.end() }, 16> = Field::at(0x38); //    Padding1[4] | ETW_REF_CLOCK ReferenceTime | GlobalEntry | Pointer0+Pointer1
}

const _: () = offset::REFERENCE_TIME.ends_at(WmiBufferHeader::LEN);

open_flags! {
    /// `BufferFlag`, offset 0x34 of `WMI_BUFFER_HEADER`: the `ETW_BUFFER_FLAG_*` bits of ntwmi.h
    /// (values as in the Windows 10 WDK's ntwmi.h and Geoff Chappell's `WMI_BUFFER_HEADER` page).
    pub struct BufferFlags(u16) {
        /// `ETW_BUFFER_FLAG_FLUSH_MARKER` (0x0001).
        FLUSH_MARKER = 0x0001,
        /// `ETW_BUFFER_FLAG_EVENTS_LOST` (0x0002): events were lost while this buffer was in use.
        EVENTS_LOST = 0x0002,
        /// `ETW_BUFFER_FLAG_BUFFER_LOST` (0x0004).
        BUFFER_LOST = 0x0004,
        /// `ETW_BUFFER_FLAG_RTBACKUP_CORRUPT` (0x0008).
        RTBACKUP_CORRUPT = 0x0008,
        /// `ETW_BUFFER_FLAG_RTBACKUP` (0x0010).
        RTBACKUP = 0x0010,
        /// `ETW_BUFFER_FLAG_PROC_INDEX` (0x0020): `ClientContext` holds a `ProcessorIndex`.
        PROC_INDEX = 0x0020,
        /// `ETW_BUFFER_FLAG_COMPRESSED` (0x0040): the events after the header are compressed.
        COMPRESSED = 0x0040,
    }
}

impl BufferFlags {
    /// `ETW_BUFFER_FLAG_NORMAL` (0): no flag set.
    pub const NORMAL: Self = Self::EMPTY;
}

open_code! {
    /// `BufferType`, offset 0x36 of `WMI_BUFFER_HEADER`: the `ETW_BUFFER_TYPE_*` values of ntwmi.h
    /// (values as in the Windows 10 WDK's ntwmi.h and Geoff Chappell's `WMI_BUFFER_HEADER` page).
    pub struct BufferType(u16) {
        /// `ETW_BUFFER_TYPE_GENERIC`: ordinary events.
        GENERIC = 0,
        /// `ETW_BUFFER_TYPE_RUNDOWN`
        RUNDOWN = 1,
        /// `ETW_BUFFER_TYPE_CTX_SWAP`
        CTX_SWAP = 2,
        /// `ETW_BUFFER_TYPE_REFTIME`
        REFTIME = 3,
        /// `ETW_BUFFER_TYPE_HEADER`: the buffer that holds the logfile header (the first of a file).
        HEADER = 4,
        /// `ETW_BUFFER_TYPE_BATCHED`
        BATCHED = 5,
        /// `ETW_BUFFER_TYPE_EMPTY_MARKER`
        EMPTY_MARKER = 6,
        /// `ETW_BUFFER_TYPE_DBG_INFO`
        DBG_INFO = 7,
        /// `ETW_BUFFER_TYPE_MAXIMUM`: one past the last type.
        MAXIMUM = 8,
    }
}

/// `WMI_BUFFER_HEADER` (ntwmi.h; not in the public SDK), 0x48 bytes on both bitnesses.
///
/// "The WMI_BUFFER_HEADER structure begins each buffer that an event logger ... uses for storing
/// event data on the way to an Event Trace Log (ETL) file" (Chappell); the events follow it,
/// 8-byte aligned, and a `u32` 0xFFFFFFFF where a header would start ends them (the reader's
/// event walk follows these rules).
///
/// | off | size | member | field |
/// |---|---|---|---|
/// | 0x00 | 4 | `BufferSize` | [`buffer_size`](Self::buffer_size) |
/// | 0x04 | 4 | `SavedOffset` | [`saved_offset`](Self::saved_offset) |
/// | 0x08 | 4 | `CurrentOffset` | [`current_offset`](Self::current_offset) |
/// | 0x0C | 4 | `ReferenceCount` | [`reference_count`](Self::reference_count) |
/// | 0x10 | 8 | `TimeStamp` | [`timestamp`](Self::timestamp) |
/// | 0x18 | 8 | `SequenceNumber` | [`sequence_number`](Self::sequence_number) |
/// | 0x20 | 8 | `ClockType`+`Frequency` \| `SlistEntry` \| `NextBuffer` | [`clock_or_link`](Self::clock_or_link) |
/// | 0x28 | 4 | `ClientContext` (`ETW_BUFFER_CONTEXT`) | [`client_context`](Self::client_context) |
/// | 0x2C | 4 | `State` | [`state`](Self::state) |
/// | 0x30 | 4 | `Offset` | [`offset`](Self::offset) |
/// | 0x34 | 2 | `BufferFlag` (0x40: the events are compressed) | [`buffer_flag`](Self::buffer_flag) |
/// | 0x36 | 2 | `BufferType` | [`buffer_type`](Self::buffer_type) |
/// | 0x38 | 16 | `Padding1` \| `ReferenceTime` \| `GlobalEntry` \| `Pointer0`+`Pointer1` | [`reference_time`](Self::reference_time) |
///
/// A buffer header has no marker, so [`parse`](Self::parse) checks only the length. The two
/// unions are kept as raw bytes: which view holds depends on where the buffer has been (in a
/// flushed user-mode buffer they can hold list pointers).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct WmiBufferHeader {
    /// `BufferSize`: the buffer's length in bytes, header included (in a compressed buffer of an
    /// .etl file, the length of the header plus the compressed data).
    pub buffer_size: u32,
    /// `SavedOffset`: "Temp saved offset".
    pub saved_offset: u32,
    /// `CurrentOffset`: "Current offset" of the logger's next write.
    pub current_offset: u32,
    /// `ReferenceCount` (`LONG`).
    pub reference_count: i32,
    /// `TimeStamp`: "Flush time stamp", in the session's clock.
    pub timestamp: i64,
    /// `SequenceNumber`: "Buffer sequence number".
    pub sequence_number: i64,
    /// The union at 0x20, as one little-endian `u64`: `ClockType : 3` and `Frequency : 61`
    /// ("DBG_INFO buffers send to debugger", see [`clock_type`](Self::clock_type) and
    /// [`frequency`](Self::frequency)), or the `SlistEntry`/`NextBuffer` list link.
    pub clock_or_link: u64,
    /// `ClientContext`: "LoggerId/ProcessorIndex".
    pub client_context: BufferContext,
    /// `State`, an `ETW_BUFFER_STATE` (Chappell: 0 free, 1 general logging, 2 context switch,
    /// 3 flush, more in later versions). Kept as the raw `u32`.
    pub state: u32,
    /// `Offset`: "Offset when flushing (can overlap SavedOffset)" — where the events end.
    pub offset: u32,
    /// `BufferFlag`: "(flush marker, events lost)".
    pub buffer_flag: BufferFlags,
    /// `BufferType`: "(generic/rundown/cswitch/reftime)".
    pub buffer_type: BufferType,
    /// The union at 0x38, raw: `Padding1[4]`, `ETW_REF_CLOCK ReferenceTime` (see
    /// [`reference_start_time`](Self::reference_start_time)), `GlobalEntry`, or two pointers.
    pub reference_time: [u8; 16],
}

impl WmiBufferHeader {
    /// Bytes in a `WMI_BUFFER_HEADER`.
    pub const LEN: usize = Layout::WmiBufferHeader.byte_len();
    /// The layout this type encodes.
    pub const LAYOUT: Layout = Layout::WmiBufferHeader;

    /// Decodes any 0x48 bytes; nothing is checked and nothing is lost.
    pub fn from_bytes(bytes: &[u8; Self::LEN]) -> Self {
        let read = Reader::new(bytes);
        Self {
            buffer_size: read.u32(offset::BUFFER_SIZE),
            saved_offset: read.u32(offset::SAVED_OFFSET),
            current_offset: read.u32(offset::CURRENT_OFFSET),
            reference_count: i32::from_le_bytes(read.bytes(offset::REFERENCE_COUNT)),
            timestamp: read.i64(offset::TIME_STAMP),
            sequence_number: read.i64(offset::SEQUENCE_NUMBER),
            clock_or_link: read.u64(offset::CLOCK_OR_LINK),
            client_context: BufferContext(read.bytes(offset::CLIENT_CONTEXT)),
            state: read.u32(offset::STATE),
            offset: read.u32(offset::OFFSET),
            buffer_flag: BufferFlags(read.u16(offset::BUFFER_FLAG)),
            buffer_type: BufferType(read.u16(offset::BUFFER_TYPE)),
            reference_time: read.bytes16(offset::REFERENCE_TIME),
        }
    }

    /// Encodes the members into the first `LEN` bytes `write` covers, setting every one of
    /// them (`to_bytes` and `emit` are built on it).
    ///
    /// Always inlined: the session seals a buffer by writing a header whose members are in
    /// registers; out of line (at opt-level "z", with two callers) the 72-byte struct would be
    /// built on the stack of the trace call that seals.
    #[inline(always)]
    pub(crate) fn write(&self, write: &mut Writer<'_, { Self::LEN }>) {
        write.u32(offset::BUFFER_SIZE, self.buffer_size);
        write.u32(offset::SAVED_OFFSET, self.saved_offset);
        write.u32(offset::CURRENT_OFFSET, self.current_offset);
        write.bytes(offset::REFERENCE_COUNT, self.reference_count.to_le_bytes());
        write.i64(offset::TIME_STAMP, self.timestamp);
        write.i64(offset::SEQUENCE_NUMBER, self.sequence_number);
        write.u64(offset::CLOCK_OR_LINK, self.clock_or_link);
        write.bytes(offset::CLIENT_CONTEXT, self.client_context.0);
        write.u32(offset::STATE, self.state);
        write.u32(offset::OFFSET, self.offset);
        write.u16(offset::BUFFER_FLAG, self.buffer_flag.0);
        write.u16(offset::BUFFER_TYPE, self.buffer_type.0);
        write.bytes16(offset::REFERENCE_TIME, self.reference_time);
    }

    /// Whether `BufferFlag` has `ETW_BUFFER_FLAG_COMPRESSED` (0x40): the bytes after the header
    /// are compressed and cannot be walked as events until decompressed.
    pub fn is_compressed(&self) -> bool {
        self.buffer_flag.contains(BufferFlags::COMPRESSED)
    }

    /// The processor whose events the buffer holds: `ClientContext.ProcessorIndex` (the `u16` at
    /// 0x28) when `BufferFlag` has `ETW_BUFFER_FLAG_PROC_INDEX` (0x20), else
    /// `ClientContext.ProcessorNumber` (the byte at 0x28).
    ///
    /// The rule is evntcons.h's `GetEventProcessorIndex`, "the consumer reads
    /// `BufferContext.ProcessorIndex` when the event's `EVENT_HEADER_FLAG_PROCESSOR_INDEX` is
    /// set, else `ProcessorNumber`", with the buffer's `PROC_INDEX` bit standing for that event
    /// flag, which is never stored (EVENT-HEADERS.md §7: the reading follows from the flag's
    /// name; no source states it outright). As that function does, the index is returned whole:
    /// ntwmi.h also defines `ETW_PROCESSOR_INDEX_MASK` (0x07FF) without saying where it applies,
    /// and every buffer of the sample traces has an index far below it. Every data buffer of the
    /// samples has `PROC_INDEX`; the logfile header's buffer has index 0.
    pub fn processor(&self) -> u16 {
        if self.buffer_flag.contains(BufferFlags::PROC_INDEX) {
            self.client_context.processor_index()
        } else {
            u16::from(self.client_context.processor_number())
        }
    }

    /// `ClockType`, the low 3 bits of the union at 0x20.
    pub fn clock_type(&self) -> u8 {
        let [low, ..] = self.clock_or_link.to_le_bytes();
        low & 0b111
    }

    /// `Frequency`, the high 61 bits of the union at 0x20.
    pub fn frequency(&self) -> u64 {
        // A shift of 3 is below the 64 bits.
        known(self.clock_or_link.checked_shr(3), 0)
    }

    /// `ReferenceTime.StartTime` (`ETW_REF_CLOCK`, bytes 0x38..0x40), little-endian.
    pub fn reference_start_time(&self) -> i64 {
        let [a, b, c, d, e, f, g, h, ..] = self.reference_time;
        i64::from_le_bytes([a, b, c, d, e, f, g, h])
    }

    /// `ReferenceTime.StartPerfClock` (`ETW_REF_CLOCK`, bytes 0x40..0x48), little-endian.
    pub fn reference_start_perf_clock(&self) -> i64 {
        let [.., a, b, c, d, e, f, g, h] = self.reference_time;
        i64::from_le_bytes([a, b, c, d, e, f, g, h])
    }
}

field::fixed_layout_entry_points!(WmiBufferHeader, length_only);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::error::CodecError;
    use crate::wire::field::ascending;

    /// The first 0x48 bytes of `SelfDescribingSingleEvent.etl` (PerfView test traces): the
    /// header of the file's first buffer, the one that holds the logfile header.
    const FIRST_BUFFER: [u8; 0x48] = [
        0x00, 0x04, 0x00, 0x00, //                         0x00 BufferSize
        0xb8, 0x01, 0x00, 0x00, //                         0x04 SavedOffset
        0x00, 0x00, 0x00, 0x00, //                         0x08 CurrentOffset
        0x00, 0x00, 0x00, 0x00, //                         0x0C ReferenceCount
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // 0x10 TimeStamp
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // 0x18 SequenceNumber
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, // 0x20 ClockType+Frequency | SlistEntry
        0x00, 0x00, 0x00, 0x00, //                         0x28 ClientContext
        0x03, 0x00, 0x00, 0x00, //                         0x2C State
        0x08, 0x02, 0x00, 0x00, //                         0x30 Offset
        0x01, 0x00, //                                     0x34 BufferFlag
        0x04, 0x00, //                                     0x36 BufferType
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // 0x38 ReferenceTime.StartTime
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // 0x40 ReferenceTime.StartPerfClock
    ];

    #[test]
    fn decodes_the_first_buffer_of_a_real_trace() {
        let header = WmiBufferHeader::from_bytes(&FIRST_BUFFER);
        assert_eq!(
            header,
            WmiBufferHeader {
                buffer_size: 0x400,
                saved_offset: 0x1b8,
                current_offset: 0,
                reference_count: 0,
                timestamp: 0,
                sequence_number: 0,
                clock_or_link: 0,
                client_context: BufferContext::default(),
                state: 3,
                offset: 0x208,
                buffer_flag: BufferFlags::FLUSH_MARKER,
                buffer_type: BufferType::HEADER,
                reference_time: [0; 16],
            }
        );
        assert!(!header.is_compressed());
        assert_eq!(header.to_bytes(), FIRST_BUFFER);
    }

    #[test]
    fn every_member_sits_at_its_offset() {
        let bytes: [u8; 0x48] = ascending();
        let header = WmiBufferHeader::from_bytes(&bytes);
        assert_eq!(header.buffer_size, 0x1413_1211);
        assert_eq!(header.saved_offset, 0x1817_1615);
        assert_eq!(header.current_offset, 0x1c1b_1a19);
        assert_eq!(header.reference_count, 0x201f_1e1d);
        assert_eq!(header.timestamp, 0x2827_2625_2423_2221);
        assert_eq!(header.sequence_number, 0x302f_2e2d_2c2b_2a29);
        assert_eq!(header.clock_or_link, 0x3837_3635_3433_3231);
        assert_eq!(header.clock_type(), 0x31 & 7);
        assert_eq!(header.frequency(), 0x3837_3635_3433_3231 >> 3);
        let other_clock = WmiBufferHeader {
            clock_or_link: (10_000_000 << 3) | 2,
            ..header
        };
        assert_eq!(
            (other_clock.clock_type(), other_clock.frequency()),
            (2, 10_000_000)
        );
        assert_eq!(header.client_context.0, [0x39, 0x3a, 0x3b, 0x3c]);
        assert_eq!(header.state, 0x403f_3e3d);
        assert_eq!(header.offset, 0x4443_4241);
        assert_eq!(header.buffer_flag, BufferFlags(0x4645));
        assert_eq!(header.buffer_type, BufferType(0x4847));
        assert_eq!(header.reference_start_time(), 0x504f_4e4d_4c4b_4a49);
        assert_eq!(header.reference_start_perf_clock(), 0x5857_5655_5453_5251);
        assert!(header.is_compressed());
        assert_eq!(header.to_bytes(), bytes);
    }

    #[test]
    fn the_processor_is_the_index_or_the_number_as_proc_index_says() {
        let mut header = WmiBufferHeader {
            client_context: BufferContext::new(0x05, 0x01, 44),
            buffer_flag: BufferFlags::PROC_INDEX,
            ..WmiBufferHeader::default()
        };
        // ProcessorIndex: bytes 0x28..0x2A as a u16, 0x0105.
        assert_eq!(header.processor(), 0x0105);
        // Without PROC_INDEX, ProcessorNumber alone: the byte at 0x28.
        header.buffer_flag = BufferFlags::FLUSH_MARKER | BufferFlags::COMPRESSED;
        assert_eq!(header.processor(), 0x05);
        // The first buffer of SelfDescribingSingleEvent.etl (no PROC_INDEX, context 0).
        assert_eq!(WmiBufferHeader::from_bytes(&FIRST_BUFFER).processor(), 0);
    }

    #[test]
    fn parse_checks_only_the_length() {
        let (header, rest) = WmiBufferHeader::parse(&[0xFF; 0x50]).unwrap();
        assert_eq!(header.buffer_size, u32::MAX);
        assert_eq!(rest.len(), 8);
        assert_eq!(
            WmiBufferHeader::parse(&FIRST_BUFFER[..0x47]),
            Err(CodecError::Truncated {
                layout: Layout::WmiBufferHeader,
                needed: 0x48,
                found: 0x47
            })
        );
        let mut out = [0; 0x48];
        assert!(WmiBufferHeader::from_bytes(&FIRST_BUFFER)
            .emit(&mut out)
            .unwrap()
            .is_empty());
        assert_eq!(out, FIRST_BUFFER);
    }

    #[test]
    fn codes_print_their_names() {
        extern crate std;
        use std::format;
        assert_eq!(format!("{:?}", BufferType::HEADER), "HEADER");
        assert_eq!(format!("{:?}", BufferType(9)), "BufferType(0x9)");
        assert_eq!(
            format!("{:?}", BufferFlags(0x61)),
            "BufferFlags(0x61: FLUSH_MARKER | PROC_INDEX | COMPRESSED)"
        );
    }
}
