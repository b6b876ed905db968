//! `PERFINFO_TRACE_HEADER`: the 0x10-byte header of `PERFINFO32` and `PERFINFO64` events, the
//! most common kernel events of a trace (profiling, context switches, system calls, ...).

crate::wire::headers::version_first::version_first_header! {
    /// `PERFINFO_TRACE_HEADER` (ntwmi.h; not in the public SDK), 0x10 bytes on both bitnesses: a
    /// "version first" header, whose `Size` sits at offset 4, without thread, process or CPU
    /// times.
    ///
    /// ntwmi.h: the `Marker` union {`Version`, `HeaderType`, `Flags`}, the `Header` union
    /// (`WMI_TRACE_PACKET Packet`), then `union { PERFINFO_TIMESTAMP TS; LARGE_INTEGER SystemTime; }`
    /// and `UCHAR Data[1]`. The header proper ends where `Data` starts, at 0x10; Geoff Chappell
    /// gives the struct as 0x18 bytes because C pads `Data[1]` out to the struct's 8-byte
    /// alignment. snail-server (`static_size` 16) and dissect.etl 3.14 (`PerformanceInfoHeader`,
    /// its data at 0x10) read 0x10 bytes.
    ///
    /// One definition serves both header types: the layout is the same, and `PERFINFO32` or
    /// `PERFINFO64` only says whether the pointers in the event data are 4 or 8 bytes
    /// ([`HeaderType::bitness`](crate::wire::HeaderType::bitness)).
    ///
    /// Observed in `net.4.5.2.x64.etl` (PerfView samples), buffer 5, 0x58 bytes after the buffer
    /// header: `02 00 11 c0 aa 00 03 14` then `SystemTime`: `Version` 2, `PERFINFO64`, flags
    /// 0xC0, `Size` 0xAA, `HookId` 0x1403 (group [`IMAGE`](crate::wire::EventTraceGroup::IMAGE),
    /// type 3).
    pub struct PerfInfoTraceHeader = PerfInfoTraceHeader, [PERFINFO32, PERFINFO64] {
        /// `SystemTime` (also `TS`, a `PERFINFO_TIMESTAMP`): when the event was logged, in the
        /// session's clock (`LARGE_INTEGER`, signed).
        system_time: i64[8] @ 0x08 => "SystemTime",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::codes::{HeaderType, MarkerFlags};
    use crate::wire::error::CodecError;
    use crate::wire::field::ascending;
    use crate::wire::headers::version_first::{EventTraceGroup, ExtraWords};
    use crate::wire::layout::Layout;

    #[test]
    fn members_lie_at_their_offsets() {
        let bytes: [u8; 0x10] = ascending();
        let header = PerfInfoTraceHeader::from_bytes(&bytes);
        assert_eq!(
            header,
            PerfInfoTraceHeader {
                version: 0x1211,
                header_type: HeaderType(0x13),
                flags: MarkerFlags(0x14),
                size: 0x1615,
                hook_id: 0x1817,
                system_time: 0x201F_1E1D_1C1B_1A19,
            }
        );
        assert_eq!(header.to_bytes(), bytes);
    }

    /// `net.4.5.2.x64.etl`, buffer 5, offset 0x58 after the buffer header (EVENT-HEADERS.md §3,
    /// and dissect.etl through `tools/kernel-header-vectors/print_kernel_events.py`: version 2,
    /// size 170, hook_id 0x1403, system_time 1942912437, data_len 154, data starting
    /// `0000f169f7070000`).
    #[test]
    fn the_worked_example() {
        let mut event = [0u8; 0xAA];
        event[..0x18].copy_from_slice(&[
            0x02, 0x00, 0x11, 0xc0, 0xaa, 0x00, 0x03, 0x14, 0xb5, 0x7d, 0xce, 0x73, 0x00, 0x00,
            0x00, 0x00, 0x00, 0x00, 0xf1, 0x69, 0xf7, 0x07, 0x00, 0x00,
        ]);
        let (header, body, rest) = PerfInfoTraceHeader::parse_event(&event).unwrap();
        assert_eq!(header.version, 2);
        assert_eq!(header.header_type, HeaderType::PERFINFO64);
        assert_eq!(header.flags, MarkerFlags::EVENT_TRACE_HEADER);
        assert_eq!(header.size, 0xAA);
        assert_eq!(header.hook().group(), EventTraceGroup::IMAGE);
        assert_eq!(header.hook_type(), 3);
        assert_eq!(header.system_time, 1_942_912_437);
        assert_eq!(header.marker(), 0xC011_0002);
        let (extra, data) = header.split_extra_words(body).unwrap();
        assert_eq!(extra, ExtraWords::EMPTY);
        assert_eq!(data.len(), 154);
        assert_eq!(data[..8], [0x00, 0x00, 0xf1, 0x69, 0xf7, 0x07, 0x00, 0x00]);
        assert!(rest.is_empty());
        assert_eq!(header.to_bytes(), event[..0x10]);
    }

    #[test]
    fn extra_words_come_out_of_the_body() {
        let mut event = [0u8; 0x30];
        // Version 2 | PEBS | 2 PMC counters, Size 0x30: 0x20 bytes after the header.
        event[..8].copy_from_slice(&[0x02, 0x82, 0x10, 0xC0, 0x30, 0x00, 0x2E, 0x0F]);
        event[0x10..0x18].copy_from_slice(&0xAAu64.to_le_bytes());
        event[0x18..0x20].copy_from_slice(&1u64.to_le_bytes());
        event[0x20..0x28].copy_from_slice(&2u64.to_le_bytes());
        let (header, body, _) = PerfInfoTraceHeader::parse_event(&event).unwrap();
        assert_eq!(header.header_type, HeaderType::PERFINFO32);
        assert_eq!(ExtraWords::version_number(header.version), 2);
        let (extra, data) = header.split_extra_words(body).unwrap();
        assert_eq!(extra.pebs_index(), Some(0xAA));
        assert!(extra.pmc_counters().eq([1, 2]));
        assert_eq!(data, [0; 8]);
        // Seven counters and the index need 64 bytes; Size leaves 0x20.
        event[1] = 0x87;
        let (header, body, _) = PerfInfoTraceHeader::parse_event(&event).unwrap();
        assert_eq!(
            header.split_extra_words(body),
            Err(CodecError::AnnouncedBeyondSize {
                layout: Layout::PerfInfoTraceHeader,
                member: "Version",
                needed: 64,
                available: 0x20
            })
        );
    }

    #[test]
    fn parse_checks_marker_type_and_size() {
        let mut event = [0u8; 0x10];
        event[..8].copy_from_slice(&[0x02, 0x00, 0x11, 0x80, 0x10, 0x00, 0x03, 0x14]);
        assert_eq!(
            PerfInfoTraceHeader::parse(&event),
            Err(CodecError::NotATraceHeader {
                layout: Layout::PerfInfoTraceHeader,
                found: MarkerFlags(0x80)
            })
        );
        event[3] = 0xC0;
        assert!(PerfInfoTraceHeader::parse(&event).is_ok());
        event[2] = 0x01;
        assert!(matches!(
            PerfInfoTraceHeader::parse(&event),
            Err(CodecError::WrongHeaderType { .. })
        ));
        event[2] = 0x10;
        event[4] = 0x0F;
        assert!(matches!(
            PerfInfoTraceHeader::parse(&event),
            Err(CodecError::SizeBelowHeader { size: 0x0F, .. })
        ));
        event[4] = 0x11;
        assert_eq!(
            PerfInfoTraceHeader::parse_event(&event),
            Err(CodecError::SizeBeyondInput {
                layout: Layout::PerfInfoTraceHeader,
                size: 0x11,
                available: 0x10
            })
        );
    }
}
