//! `EVENT_INSTANCE_HEADER`: what a provider hands to `TraceEventInstance`.

use crate::wire::class::Class;
use crate::wire::codes::{HeaderType, MarkerFlags};
use crate::wire::field::{self, Field, Reader, Writer};
use crate::wire::headers::event_trace_header::offset as common;
use crate::wire::layout::Layout;
use crate::wire::unions::TimesOrFlags;

/// Byte offsets of the members after the part shared with `EVENT_TRACE_HEADER`.
#[rustfmt::skip]
mod offset {
    use super::Field;

    use super::common::TIME_STAMP;

    pub(super) const REG_HANDLE: Field<{ TIME_STAMP.end() }, 8> = Field::at(0x18); //             ULONGLONG RegHandle
    pub(super) const INSTANCE_ID: Field<{ REG_HANDLE.end() }, 4> = Field::at(0x20); //            ULONG InstanceId
    pub(super) const PARENT_INSTANCE_ID: Field<{ INSTANCE_ID.end() }, 4> = Field::at(0x24); //    ULONG ParentInstanceId
    pub(super) const PROCESSOR_TIME: Field<{ PARENT_INSTANCE_ID.end() }, 8> = Field::at(0x28); // KernelTime+UserTime | ProcessorTime | EventId+Flags
    pub(super) const PARENT_REG_HANDLE: Field<{ PROCESSOR_TIME.end() }, 8> = Field::at(0x30); //  ULONGLONG ParentRegHandle
}

const _: () = offset::PARENT_REG_HANDLE.ends_at(EventInstanceHeader::LEN);

/// `EVENT_INSTANCE_HEADER` (evntrace.h), 0x38 bytes, the same for 32- and 64-bit code.
///
/// | off | size | member | field |
/// |---|---|---|---|
/// | 0x00 | 2 | `Size` | [`size`](Self::size) |
/// | 0x02 | 1 | `HeaderType` | [`header_type`](Self::header_type) |
/// | 0x03 | 1 | `MarkerFlags` | [`marker_flags`](Self::marker_flags) |
/// | 0x04 | 4 | `Version` \| `Class` | [`class`](Self::class) |
/// | 0x08 | 4 | `ThreadId` | [`thread_id`](Self::thread_id) |
/// | 0x0C | 4 | `ProcessId` | [`process_id`](Self::process_id) |
/// | 0x10 | 8 | `TimeStamp` | [`timestamp`](Self::timestamp) |
/// | 0x18 | 8 | `RegHandle` | [`reg_handle`](Self::reg_handle) |
/// | 0x20 | 4 | `InstanceId` | [`instance_id`](Self::instance_id) |
/// | 0x24 | 4 | `ParentInstanceId` | [`parent_instance_id`](Self::parent_instance_id) |
/// | 0x28 | 8 | `KernelTime`+`UserTime` \| `ProcessorTime` \| `EventId`+`Flags` | [`times`](Self::times) |
/// | 0x30 | 8 | `ParentRegHandle` | [`parent_reg_handle`](Self::parent_reg_handle) |
///
/// This is provider-side input, never found in trace buffers (there the event carries an
/// [`EventInstanceGuidHeader`](crate::wire::EventInstanceGuidHeader)), so [`parse`](Self::parse) checks
/// only the length: `HeaderType` and `MarkerFlags` are "Reserved", and `Size` and `Flags` are
/// `TraceEventInstance`'s to check.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct EventInstanceHeader {
    /// `Size`: "Total number of bytes of the event. Size must include the size of the
    /// EVENT_INSTANCE_HEADER structure, plus the size of any event-specific data appended to
    /// this structure. The size must be less than the size of the event tracing session's buffer
    /// minus 72 (0x48)."
    pub size: u16,
    /// `HeaderType` ("Reserved").
    pub header_type: HeaderType,
    /// `MarkerFlags` ("Reserved").
    pub marker_flags: MarkerFlags,
    /// `Class` (the `Version` roll-up): event type, level and class version.
    pub class: Class,
    /// `ThreadId`, filled in on output.
    pub thread_id: u32,
    /// `ProcessId`, filled in on output.
    pub process_id: u32,
    /// `TimeStamp`, filled in on output (100 ns since 1601-01-01).
    pub timestamp: i64,
    /// `RegHandle`: "Handle to a registered event trace class", from `RegisterTraceGuids`.
    pub reg_handle: u64,
    /// `InstanceId`: "On output, contains the event trace instance identifier associated with RegHandle."
    pub instance_id: u32,
    /// `ParentInstanceId`: "On output, contains the event trace instance identifier associated
    /// with ParentRegHandle."
    pub parent_instance_id: u32,
    /// `KernelTime`+`UserTime` | `ProcessorTime` | `EventId`+`Flags`.
    pub times: TimesOrFlags,
    /// `ParentRegHandle`: "Handle to a registered event trace class of a parent event."
    pub parent_reg_handle: u64,
}

impl EventInstanceHeader {
    /// Bytes in an `EVENT_INSTANCE_HEADER`.
    pub const LEN: usize = Layout::EventInstanceHeader.byte_len();
    /// The layout this type encodes.
    pub const LAYOUT: Layout = Layout::EventInstanceHeader;

    /// Decodes any 0x38 bytes; nothing is checked and nothing is lost.
    #[inline]
    pub fn from_bytes(bytes: &[u8; Self::LEN]) -> Self {
        let read = Reader::new(bytes);
        Self {
            size: read.u16(common::SIZE),
            header_type: HeaderType(read.u8(common::HEADER_TYPE)),
            marker_flags: MarkerFlags(read.u8(common::MARKER_FLAGS)),
            class: Class::from_roll_up(read.u32(common::VERSION)),
            thread_id: read.u32(common::THREAD_ID),
            process_id: read.u32(common::PROCESS_ID),
            timestamp: read.i64(common::TIME_STAMP),
            reg_handle: read.u64(offset::REG_HANDLE),
            instance_id: read.u32(offset::INSTANCE_ID),
            parent_instance_id: read.u32(offset::PARENT_INSTANCE_ID),
            times: TimesOrFlags(read.bytes(offset::PROCESSOR_TIME)),
            parent_reg_handle: read.u64(offset::PARENT_REG_HANDLE),
        }
    }

    /// Encodes the members into the first `LEN` bytes `write` covers, setting every one of
    /// them (`to_bytes` and `emit` are built on it).
    #[inline]
    pub(crate) fn write(&self, write: &mut Writer<'_, { Self::LEN }>) {
        write.u16(common::SIZE, self.size);
        write.u8(common::HEADER_TYPE, self.header_type.0);
        write.u8(common::MARKER_FLAGS, self.marker_flags.0);
        write.u32(common::VERSION, self.class.roll_up());
        write.u32(common::THREAD_ID, self.thread_id);
        write.u32(common::PROCESS_ID, self.process_id);
        write.i64(common::TIME_STAMP, self.timestamp);
        write.u64(offset::REG_HANDLE, self.reg_handle);
        write.u32(offset::INSTANCE_ID, self.instance_id);
        write.u32(offset::PARENT_INSTANCE_ID, self.parent_instance_id);
        write.bytes(offset::PROCESSOR_TIME, self.times.0);
        write.u64(offset::PARENT_REG_HANDLE, self.parent_reg_handle);
    }
}

field::fixed_layout_entry_points!(EventInstanceHeader, length_only);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::codes::{EventType, Level, WnodeFlags};
    use crate::wire::field::ascending;

    /// The C-ABI vector "EVENT_INSTANCE_HEADER class+kernel_user" (mingw-w64, both ABIs).
    #[rustfmt::skip]
    const GOLDEN: [u8; 0x38] = [
        0x11, 0x12,                                     // 0x00 Size
        0x13,                                           // 0x02 HeaderType
        0x14,                                           // 0x03 MarkerFlags
        0x15, 0x16, 0x17, 0x18,                         // 0x04 Class.Type, Class.Level, Class.Version
        0x19, 0x1a, 0x1b, 0x1c,                         // 0x08 ThreadId
        0x1d, 0x1e, 0x1f, 0x20,                         // 0x0C ProcessId
        0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27, 0x28, // 0x10 TimeStamp
        0x29, 0x2a, 0x2b, 0x2c, 0x2d, 0x2e, 0x2f, 0x30, // 0x18 RegHandle
        0x31, 0x32, 0x33, 0x34,                         // 0x20 InstanceId
        0x35, 0x36, 0x37, 0x38,                         // 0x24 ParentInstanceId
        0x39, 0x3a, 0x3b, 0x3c,                         // 0x28 KernelTime | EventId
        0x3d, 0x3e, 0x3f, 0x40,                         // 0x2C UserTime | Flags
        0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, // 0x30 ParentRegHandle
    ];

    fn golden_value() -> EventInstanceHeader {
        EventInstanceHeader {
            size: 0x1211,
            header_type: HeaderType(0x13),
            marker_flags: MarkerFlags(0x14),
            class: Class::new(EventType(0x15), Level(0x16), 0x1817),
            thread_id: 0x1c1b_1a19,
            process_id: 0x201f_1e1d,
            timestamp: 0x2827_2625_2423_2221,
            reg_handle: 0x302f_2e2d_2c2b_2a29,
            instance_id: 0x3433_3231,
            parent_instance_id: 0x3837_3635,
            times: TimesOrFlags::from_times(0x3c3b_3a39, 0x403f_3e3d),
            parent_reg_handle: 0x4847_4645_4443_4241,
        }
    }

    #[test]
    fn decodes_and_encodes_the_golden_vector() {
        assert_eq!(GOLDEN, ascending());
        assert_eq!(EventInstanceHeader::from_bytes(&GOLDEN), golden_value());
        assert_eq!(golden_value().to_bytes(), GOLDEN);
    }

    #[test]
    fn the_event_id_view_shares_kernel_time_bytes() {
        let header = EventInstanceHeader::from_bytes(&GOLDEN);
        assert_eq!(header.times.event_id(), 0x3c3b_3a39);
        assert_eq!(header.times.flags(), WnodeFlags(0x403f_3e3d));
    }

    #[test]
    fn parse_checks_only_the_length() {
        // HeaderType and MarkerFlags are "Reserved" on input: any value parses.
        let (header, rest) = EventInstanceHeader::parse(&[0xFF; 0x40]).unwrap();
        assert_eq!(header.size, 0xFFFF);
        assert_eq!(rest.len(), 8);
    }
}
