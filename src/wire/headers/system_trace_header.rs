//! `SYSTEM_TRACE_HEADER`: the 0x20-byte header of the kernel's system events (`SYSTEM32` and
//! `SYSTEM64`), among them the logfile header event that starts every .etl file.

use crate::wire::codes::{HeaderType, MarkerFlags};
use crate::wire::error::CodecError;
use crate::wire::field::{self, Field, Reader, Writer};
use crate::wire::layout::Layout;

/// Byte offsets of the members, named after ntwmi.h.
///
/// Sources, which agree on every offset: Geoff Chappell's `SYSTEM_TRACE_HEADER` and
/// `WMI_TRACE_PACKET` pages (from NTWMI.H of the Windows 10 WDK); dissect.etl 3.14's
/// `SystemHeader` cstruct (`Version` u16 @0, `Marker` u16 @2, `Size` u16 @4, `OpCode` u8 @6,
/// `Group` u8 @7, `ThreadId` @8, `ProcessId` @0xC, `TimeDelta` u64 @0x10, `ProcessorTime` u64
/// @0x18); and the C definition in `tools/abi-vectors/generate.py`, whose offsets gcc checks for
/// i686 and x86_64.
#[rustfmt::skip]
mod offset {
    use super::Field;

    pub(super) const VERSION: Field<0, 2> = Field::at(0x00); //                         Marker: USHORT Version
    pub(super) const HEADER_TYPE: Field<{ VERSION.end() }, 1> = Field::at(0x02); //     Marker: UCHAR HeaderType
    pub(super) const FLAGS: Field<{ HEADER_TYPE.end() }, 1> = Field::at(0x03); //       Marker: UCHAR Flags
    pub(super) const SIZE: Field<{ FLAGS.end() }, 2> = Field::at(0x04); //              Packet: USHORT Size
    pub(super) const HOOK_ID: Field<{ SIZE.end() }, 2> = Field::at(0x06); //            Packet: USHORT HookId | UCHAR Type, Group
    pub(super) const THREAD_ID: Field<{ HOOK_ID.end() }, 4> = Field::at(0x08); //       ULONG ThreadId
    pub(super) const PROCESS_ID: Field<{ THREAD_ID.end() }, 4> = Field::at(0x0C); //    ULONG ProcessId
    pub(super) const SYSTEM_TIME: Field<{ PROCESS_ID.end() }, 8> = Field::at(0x10); //  LARGE_INTEGER SystemTime
    pub(super) const KERNEL_TIME: Field<{ SYSTEM_TIME.end() }, 4> = Field::at(0x18); // ULONG KernelTime
    pub(super) const USER_TIME: Field<{ KERNEL_TIME.end() }, 4> = Field::at(0x1C); //   ULONG UserTime

    /// What `parse` checks.
    pub(super) const CHECKED: crate::wire::field::CheckedFields<
        { SIZE.start() },
        { HEADER_TYPE.start() },
        { FLAGS.start() },
    > = crate::wire::field::CheckedFields {
        size: SIZE,
        header_type: HEADER_TYPE,
        marker_flags: FLAGS,
    };
}

const _: () = offset::USER_TIME.ends_at(SystemTraceHeader::LEN);

/// `SYSTEM_TRACE_HEADER` (ntwmi.h; not in the public SDK), 0x20 bytes on both bitnesses: a
/// "version first" header, whose `Size` sits at offset 4.
///
/// | off | size | member | field |
/// |---|---|---|---|
/// | 0x00 | 2 | `Version` (of the `Marker` union) | [`version`](Self::version) |
/// | 0x02 | 1 | `HeaderType` | [`header_type`](Self::header_type) |
/// | 0x03 | 1 | `Flags` | [`flags`](Self::flags) |
/// | 0x04 | 2 | `Packet.Size` (of the `Header` union) | [`size`](Self::size): header + event data |
/// | 0x06 | 2 | `Packet.HookId` \| `Packet.Type`+`Packet.Group` | [`hook_id`](Self::hook_id) |
/// | 0x08 | 4 | `ThreadId` | [`thread_id`](Self::thread_id) |
/// | 0x0C | 4 | `ProcessId` | [`process_id`](Self::process_id) |
/// | 0x10 | 8 | `SystemTime` | [`system_time`](Self::system_time) |
/// | 0x18 | 4 | `KernelTime` | [`kernel_time`](Self::kernel_time) |
/// | 0x1C | 4 | `UserTime` | [`user_time`](Self::user_time) |
///
/// The unions are flattened into their finest members; [`marker`](Self::marker),
/// [`header`](Self::header), [`hook_type`](Self::hook_type) and [`hook_group`](Self::hook_group)
/// give the other views. [`from_bytes`](Self::from_bytes) takes any 0x20 bytes and
/// [`to_bytes`](Self::to_bytes) gives them back unchanged; [`parse`](Self::parse) checks that the
/// bytes are a system event header as a trace buffer holds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct SystemTraceHeader {
    /// `Version`, the low 16 bits of the `Marker`: 2 in the logfile header event of current
    /// Windows, 1 before Windows Vista (Chappell).
    pub version: u16,
    /// `HeaderType`: `SYSTEM32` (0x01) or `SYSTEM64` (0x02) in a trace buffer, the pointer width
    /// of the logger.
    pub header_type: HeaderType,
    /// `Flags`, the marker's high byte: 0xC0 in a trace buffer.
    pub flags: MarkerFlags,
    /// `Packet.Size`: the whole event, this header and the event data.
    pub size: u16,
    /// `Packet.HookId`: which system event this is, and so what its data means;
    /// [`SystemTraceHeader::WMI_LOG_TYPE_HEADER`] for the logfile header event.
    pub hook_id: u16,
    /// `ThreadId` of the thread that logged the event.
    pub thread_id: u32,
    /// `ProcessId` of the process that logged the event.
    pub process_id: u32,
    /// `SystemTime`: when the event was logged, in the session's clock (`LARGE_INTEGER`, signed).
    pub system_time: i64,
    /// `KernelTime`: CPU time in kernel mode, in clock ticks.
    pub kernel_time: u32,
    /// `UserTime`: CPU time in user mode, in clock ticks.
    pub user_time: u32,
}

impl SystemTraceHeader {
    /// Bytes in a `SYSTEM_TRACE_HEADER`.
    pub const LEN: usize = Layout::SystemTraceHeader.byte_len();
    /// The layout this type encodes.
    pub const LAYOUT: Layout = Layout::SystemTraceHeader;
    /// `WMI_LOG_TYPE_HEADER` (0x0000): the hook id of the event whose data is the
    /// `TRACE_LOGFILE_HEADER`, the first event of every .etl file (Chappell; dissect.etl refuses
    /// any other hook id there).
    pub const WMI_LOG_TYPE_HEADER: u16 = 0x0000;

    /// Decodes any 0x20 bytes; nothing is checked and nothing is lost.
    pub fn from_bytes(bytes: &[u8; Self::LEN]) -> Self {
        let read = Reader::new(bytes);
        Self {
            version: read.u16(offset::VERSION),
            header_type: HeaderType(read.u8(offset::HEADER_TYPE)),
            flags: MarkerFlags(read.u8(offset::FLAGS)),
            size: read.u16(offset::SIZE),
            hook_id: read.u16(offset::HOOK_ID),
            thread_id: read.u32(offset::THREAD_ID),
            process_id: read.u32(offset::PROCESS_ID),
            system_time: read.i64(offset::SYSTEM_TIME),
            kernel_time: read.u32(offset::KERNEL_TIME),
            user_time: read.u32(offset::USER_TIME),
        }
    }

    /// Encodes the members into the first `LEN` bytes `write` covers, setting every one of
    /// them (`to_bytes` and `emit` are built on it).
    pub(crate) fn write(&self, write: &mut Writer<'_, { Self::LEN }>) {
        write.u16(offset::VERSION, self.version);
        write.u8(offset::HEADER_TYPE, self.header_type.0);
        write.u8(offset::FLAGS, self.flags.0);
        write.u16(offset::SIZE, self.size);
        write.u16(offset::HOOK_ID, self.hook_id);
        write.u32(offset::THREAD_ID, self.thread_id);
        write.u32(offset::PROCESS_ID, self.process_id);
        write.i64(offset::SYSTEM_TIME, self.system_time);
        write.u32(offset::KERNEL_TIME, self.kernel_time);
        write.u32(offset::USER_TIME, self.user_time);
    }

    /// The `Marker` view of bytes 0..4, little-endian: `Flags << 24 | HeaderType << 16 | Version`
    /// (0xC0020002 for the logfile header event of a 64-bit logger).
    pub const fn marker(&self) -> u32 {
        let [version_low, version_high] = self.version.to_le_bytes();
        u32::from_le_bytes([version_low, version_high, self.header_type.0, self.flags.0])
    }

    /// The header with the given `Marker` (bytes 0..4) split into `Version`, `HeaderType` and
    /// `Flags`.
    #[must_use]
    pub const fn with_marker(mut self, marker: u32) -> Self {
        let [version_low, version_high, header_type, flags] = marker.to_le_bytes();
        self.version = u16::from_le_bytes([version_low, version_high]);
        self.header_type = HeaderType(header_type);
        self.flags = MarkerFlags(flags);
        self
    }

    /// The `Header` view of bytes 4..8 (the whole `WMI_TRACE_PACKET`), little-endian:
    /// `HookId << 16 | Size`.
    pub const fn header(&self) -> u32 {
        let [size_low, size_high] = self.size.to_le_bytes();
        let [hook_low, hook_high] = self.hook_id.to_le_bytes();
        u32::from_le_bytes([size_low, size_high, hook_low, hook_high])
    }

    /// The header with the given `Header` (bytes 4..8) split into `Size` and `HookId`.
    #[must_use]
    pub const fn with_header(mut self, header: u32) -> Self {
        let [size_low, size_high, hook_low, hook_high] = header.to_le_bytes();
        self.size = u16::from_le_bytes([size_low, size_high]);
        self.hook_id = u16::from_le_bytes([hook_low, hook_high]);
        self
    }

    /// `Packet.Type`, the low byte of `HookId` (byte 6): the event's type within its group.
    pub const fn hook_type(&self) -> u8 {
        let [hook_type, _] = self.hook_id.to_le_bytes();
        hook_type
    }

    /// `Packet.Group`, the high byte of `HookId` (byte 7): the event's group (its provider).
    pub const fn hook_group(&self) -> u8 {
        let [_, hook_group] = self.hook_id.to_le_bytes();
        hook_group
    }

    /// The `HookId` made of a `Packet.Type` (low byte) and a `Packet.Group` (high byte).
    pub const fn hook_id_of(hook_type: u8, hook_group: u8) -> u16 {
        u16::from_le_bytes([hook_type, hook_group])
    }

    /// Reads the header at the start of `input` as a trace buffer holds it, and returns it with
    /// the bytes after the header (the event data and whatever follows it).
    ///
    /// # Errors
    /// [`CodecError::Truncated`] for fewer than 0x20 bytes; [`CodecError::NotATraceHeader`] without flags
    /// 0xC0; [`CodecError::WrongHeaderType`] for a type other than `SYSTEM32`/`SYSTEM64`;
    /// [`CodecError::SizeBelowHeader`] for a `Size` under 0x20.
    pub fn parse(input: &[u8]) -> Result<(Self, &[u8]), CodecError> {
        let (bytes, rest) = field::split_prefix::<{ Self::LEN }>(Self::LAYOUT, input)?;
        field::check_event_header(
            Self::LAYOUT,
            &Reader::new(bytes),
            offset::CHECKED,
            [HeaderType::SYSTEM32, HeaderType::SYSTEM64],
        )?;
        Ok((Self::from_bytes(bytes), rest))
    }

    /// Reads one whole event: the header as [`parse`](Self::parse) does, then `Size - 0x20` bytes
    /// of event data. Returns the header, the data and the bytes after the event (which start
    /// with the padding to the next 8-byte boundary, if any).
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

field::fixed_layout_entry_points!(SystemTraceHeader, emit);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::field::ascending;

    /// The C-ABI vector "SYSTEM_TRACE_HEADER fields+hook_id" (the same on i686 and x86_64).
    #[rustfmt::skip]
    const GOLDEN: [u8; 0x20] = [
        0x11, 0x12,                                     // 0x00 Version
        0x13,                                           // 0x02 HeaderType
        0x14,                                           // 0x03 Flags
        0x15, 0x16,                                     // 0x04 Packet.Size
        0x17, 0x18,                                     // 0x06 Packet.HookId (Type, Group)
        0x19, 0x1a, 0x1b, 0x1c,                         // 0x08 ThreadId
        0x1d, 0x1e, 0x1f, 0x20,                         // 0x0C ProcessId
        0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27, 0x28, // 0x10 SystemTime
        0x29, 0x2a, 0x2b, 0x2c,                         // 0x18 KernelTime
        0x2d, 0x2e, 0x2f, 0x30,                         // 0x1C UserTime
    ];

    /// The values the C initialiser of that vector set.
    fn golden_value() -> SystemTraceHeader {
        SystemTraceHeader {
            version: 4625,
            header_type: HeaderType(19),
            flags: MarkerFlags(20),
            size: 5653,
            hook_id: 6167,
            thread_id: 471_538_201,
            process_id: 538_910_237,
            system_time: 2_893_323_226_570_760_737,
            kernel_time: 741_026_345,
            user_time: 808_398_381,
        }
    }

    #[test]
    fn decodes_the_golden_vector() {
        assert_eq!(GOLDEN, ascending());
        let header = SystemTraceHeader::from_bytes(&GOLDEN);
        assert_eq!(header, golden_value());
        assert_eq!(header.marker(), 0x1413_1211);
        assert_eq!(header.header(), 0x1817_1615);
        assert_eq!((header.hook_type(), header.hook_group()), (0x17, 0x18));
    }

    #[test]
    fn encodes_the_golden_vector() {
        assert_eq!(golden_value().to_bytes(), GOLDEN);
        let by_views = SystemTraceHeader {
            hook_id: SystemTraceHeader::hook_id_of(0x17, 0x18),
            ..SystemTraceHeader::default()
        }
        .with_marker(0x1413_1211);
        assert_eq!(
            by_views.to_bytes()[..8],
            [0x11, 0x12, 0x13, 0x14, 0, 0, 0x17, 0x18]
        );
        assert_eq!(by_views.with_header(0x1817_1615).header(), 0x1817_1615);
    }

    /// The first event of `SelfDescribingSingleEvent.etl` (PerfView test traces), its first 0x20
    /// bytes: marker 0xC0020002, Size 364, HookId 0 (dissect.etl reads the same).
    #[test]
    fn parses_the_logfile_header_event_of_a_real_trace() {
        let mut event = [0u8; 364];
        event[..0x20].copy_from_slice(&[
            0x02, 0x00, 0x02, 0xc0, 0x6c, 0x01, 0x00, 0x00, 0xac, 0xb5, 0x01, 0x00, 0xdc, 0x28,
            0x00, 0x00, 0x4d, 0x65, 0x8c, 0x09, 0xe0, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
            0x02, 0x00, 0x00, 0x00,
        ]);
        let (header, data, rest) = SystemTraceHeader::parse_event(&event).unwrap();
        assert_eq!(header.marker(), 0xC002_0002);
        assert_eq!(header.header_type, HeaderType::SYSTEM64);
        assert_eq!(header.size, 364);
        assert_eq!(header.hook_id, SystemTraceHeader::WMI_LOG_TYPE_HEADER);
        assert_eq!((header.thread_id, header.process_id), (0x1_b5ac, 0x28dc));
        assert_eq!(header.system_time, 0x05e0_098c_654d);
        assert_eq!((header.kernel_time, header.user_time), (0, 2));
        assert_eq!(data.len(), 364 - 0x20);
        assert!(rest.is_empty());
    }

    #[test]
    fn parse_checks_what_a_buffer_header_must_be() {
        let mut bytes = GOLDEN;
        bytes[0x02] = 0x01;
        bytes[0x03] = 0xC0;
        assert!(SystemTraceHeader::parse(&bytes).is_ok());
        bytes[0x03] = 0x80;
        assert_eq!(
            SystemTraceHeader::parse(&bytes),
            Err(CodecError::NotATraceHeader {
                layout: Layout::SystemTraceHeader,
                found: MarkerFlags(0x80)
            })
        );
        bytes[0x03] = 0xC0;
        bytes[0x02] = 0x14;
        assert!(matches!(
            SystemTraceHeader::parse(&bytes),
            Err(CodecError::WrongHeaderType { .. })
        ));
        bytes[0x02] = 0x02;
        bytes[0x04..0x06].copy_from_slice(&0x1F_u16.to_le_bytes());
        assert_eq!(
            SystemTraceHeader::parse(&bytes),
            Err(CodecError::SizeBelowHeader {
                layout: Layout::SystemTraceHeader,
                header_len: 0x20,
                size: 0x1F
            })
        );
        bytes[0x04..0x06].copy_from_slice(&0x28_u16.to_le_bytes());
        assert_eq!(
            SystemTraceHeader::parse_event(&bytes),
            Err(CodecError::SizeBeyondInput {
                layout: Layout::SystemTraceHeader,
                size: 0x28,
                available: 0x20
            })
        );
    }
}
