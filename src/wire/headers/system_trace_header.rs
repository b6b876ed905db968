//! `SYSTEM_TRACE_HEADER`: the 0x20-byte header of the kernel's system events (`SYSTEM32` and
//! `SYSTEM64`), among them the logfile header event that starts every .etl file.

crate::wire::headers::version_first::version_first_header! {
    /// `SYSTEM_TRACE_HEADER` (ntwmi.h; not in the public SDK), 0x20 bytes on both bitnesses: a
    /// "version first" header, whose `Size` sits at offset 4.
    ///
    /// Sources, which agree on every offset: Geoff Chappell's `SYSTEM_TRACE_HEADER` and
    /// `WMI_TRACE_PACKET` pages (from NTWMI.H of the Windows 10 WDK); dissect.etl 3.14's
    /// `SystemHeader` cstruct (`Version` u16 @0, `Marker` u16 @2, `Size` u16 @4, `OpCode` u8 @6,
    /// `Group` u8 @7, `ThreadId` @8, `ProcessId` @0xC, `TimeDelta` u64 @0x10, `ProcessorTime` u64
    /// @0x18); and the C definition in `tools/abi-vectors/generate.py`, whose offsets gcc checks
    /// for i686 and x86_64. `Version` is 2 in the logfile header event of current Windows, 1
    /// before Windows Vista (Chappell); the PerfView samples also hold versions 3 and 4.
    pub struct SystemTraceHeader = SystemTraceHeader, [SYSTEM32, SYSTEM64] {
        /// `ThreadId` of the thread that logged the event.
        thread_id: u32[4] @ 0x08 => "ThreadId",
        /// `ProcessId` of the process that logged the event.
        process_id: u32[4] @ 0x0C => "ProcessId",
        /// `SystemTime`: when the event was logged, in the session's clock (`LARGE_INTEGER`,
        /// signed).
        system_time: i64[8] @ 0x10 => "SystemTime",
        /// `KernelTime`: CPU time in kernel mode, in clock ticks.
        kernel_time: u32[4] @ 0x18 => "KernelTime",
        /// `UserTime`: CPU time in user mode, in clock ticks.
        user_time: u32[4] @ 0x1C => "UserTime",
    }
}

impl SystemTraceHeader {
    /// `WMI_LOG_TYPE_HEADER` (0x0000): the hook id of the event whose data is the
    /// `TRACE_LOGFILE_HEADER`, the first event of every .etl file (Chappell; dissect.etl refuses
    /// any other hook id there).
    pub const WMI_LOG_TYPE_HEADER: u16 = 0x0000;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::codes::{HeaderType, MarkerFlags};
    use crate::wire::error::CodecError;
    use crate::wire::field::ascending;
    use crate::wire::layout::Layout;

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
