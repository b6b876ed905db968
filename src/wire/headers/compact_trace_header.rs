//! The compact system header: the 0x18-byte header of `COMPACT32` and `COMPACT64` events, a
//! `SYSTEM_TRACE_HEADER` without its CPU times.

crate::wire::headers::version_first::version_first_header! {
    /// The compact `SYSTEM_TRACE_HEADER` of `COMPACT32`/`COMPACT64` events, 0x18 bytes on both
    /// bitnesses: a "version first" header, whose `Size` sits at offset 4.
    ///
    /// ntwmi.h gives it no struct of its own: "System header with no User/Kernel time",
    /// `#define COMPACT_HEADER_SIZE (RTL_SIZEOF_THROUGH_FIELD(SYSTEM_TRACE_HEADER, SystemTime))`,
    /// so its members are those of [`SystemTraceHeader`](crate::wire::SystemTraceHeader) up to
    /// and including `SystemTime`, at the same offsets. dissect.etl 3.14's `CompactSystemHeader`
    /// cstruct agrees (`ThreadId` @8, `ProcessId` @0xC, `TimeDelta` u64 @0x10, 0x18 bytes). The
    /// event data follows at 0x18 (after any [`ExtraWords`](crate::wire::ExtraWords)). No
    /// PerfView sample trace holds a compact event.
    pub struct CompactTraceHeader = CompactTraceHeader, [COMPACT32, COMPACT64] {
        /// `ThreadId` of the thread that logged the event.
        thread_id: u32[4] @ 0x08 => "ThreadId",
        /// `ProcessId` of the process that logged the event.
        process_id: u32[4] @ 0x0C => "ProcessId",
        /// `SystemTime`: when the event was logged, in the session's clock (`LARGE_INTEGER`,
        /// signed).
        system_time: i64[8] @ 0x10 => "SystemTime",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::codes::{HeaderType, MarkerFlags};
    use crate::wire::error::CodecError;
    use crate::wire::field::ascending;
    use crate::wire::layout::Layout;

    /// Byte `i` is `0x11 + i`: each member reads its own bytes, little-endian, at its offset.
    #[test]
    fn members_lie_at_the_offsets_of_the_system_header() {
        let bytes: [u8; 0x18] = ascending();
        let header = CompactTraceHeader::from_bytes(&bytes);
        assert_eq!(
            header,
            CompactTraceHeader {
                version: 0x1211,
                header_type: HeaderType(0x13),
                flags: MarkerFlags(0x14),
                size: 0x1615,
                hook_id: 0x1817,
                thread_id: 0x1C1B_1A19,
                process_id: 0x201F_1E1D,
                system_time: 0x2827_2625_2423_2221,
            }
        );
        assert_eq!(header.to_bytes(), bytes);
        assert_eq!(
            (header.marker(), header.header()),
            (0x1413_1211, 0x1817_1615)
        );
        // The same bytes as a system header agree on every member the two share.
        let system =
            crate::wire::headers::system_trace_header::SystemTraceHeader::from_bytes(&ascending());
        assert_eq!(
            (system.thread_id, system.process_id, system.system_time),
            (header.thread_id, header.process_id, header.system_time)
        );
    }

    #[test]
    fn parse_checks_marker_type_and_size() {
        let mut event = [0u8; 0x1C];
        event[..8].copy_from_slice(&[0x02, 0x00, 0x04, 0xC0, 0x1C, 0x00, 0x03, 0x05]);
        let (header, body, rest) = CompactTraceHeader::parse_event(&event).unwrap();
        assert_eq!(header.header_type, HeaderType::COMPACT64);
        assert_eq!((header.size, header.hook_id, body.len()), (0x1C, 0x0503, 4));
        assert!(rest.is_empty());
        event[2] = 0x02;
        assert_eq!(
            CompactTraceHeader::parse(&event),
            Err(CodecError::WrongHeaderType {
                layout: Layout::CompactTraceHeader,
                expected_32: HeaderType::COMPACT32,
                expected_64: HeaderType::COMPACT64,
                found: HeaderType::SYSTEM64
            })
        );
        event[2] = 0x03;
        event[4] = 0x17;
        assert_eq!(
            CompactTraceHeader::parse(&event),
            Err(CodecError::SizeBelowHeader {
                layout: Layout::CompactTraceHeader,
                header_len: 0x18,
                size: 0x17
            })
        );
        assert_eq!(
            CompactTraceHeader::parse(&event[..0x17]),
            Err(CodecError::Truncated {
                layout: Layout::CompactTraceHeader,
                needed: 0x18,
                found: 0x17
            })
        );
    }
}
