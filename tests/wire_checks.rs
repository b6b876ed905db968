//! What `parse` and `parse_event` of the two trace-buffer headers check, one error per case.

use etw_classic::{
    CodecError, EventInstanceGuidHeader, EventTraceHeader, HeaderType, Layout, MarkerFlags,
};

/// A FULL_HEADER64 event of `size` bytes: header, then `size - 0x30` data bytes, then `extra`.
fn full_event(size: u16, extra: usize) -> Vec<u8> {
    let mut bytes = vec![0u8; usize::from(size).max(0x30) + extra];
    bytes[0..2].copy_from_slice(&size.to_le_bytes());
    bytes[2] = 0x14;
    bytes[3] = 0xC0;
    for (index, byte) in bytes.iter_mut().enumerate().skip(0x30) {
        *byte = index as u8;
    }
    bytes
}

fn instance_event(size: u16, extra: usize) -> Vec<u8> {
    let mut bytes = vec![0u8; usize::from(size).max(0x48) + extra];
    bytes[0..2].copy_from_slice(&size.to_le_bytes());
    bytes[2] = 0x0B;
    bytes[3] = 0xC0;
    bytes
}

#[test]
fn trace_header_parse_accepts_both_full_header_types() {
    for header_type in [0x0A, 0x14] {
        let mut bytes = full_event(0x30, 0);
        bytes[2] = header_type;
        let (header, rest) = EventTraceHeader::parse(&bytes).unwrap();
        assert_eq!(header.header_type, HeaderType(header_type));
        assert!(rest.is_empty());
    }
}

#[test]
fn trace_header_without_marker_bits_is_not_a_trace_header() {
    for marker in [0x00, 0x80, 0x40, 0x90, 0x3F] {
        let mut bytes = full_event(0x30, 0);
        bytes[3] = marker;
        assert_eq!(
            EventTraceHeader::parse(&bytes),
            Err(CodecError::NotATraceHeader {
                layout: Layout::EventTraceHeader,
                found: MarkerFlags(marker)
            })
        );
    }
    // Extra marker bits beside 0xC0 are kept, not rejected.
    let mut bytes = full_event(0x30, 0);
    bytes[3] = 0xC8;
    assert_eq!(
        EventTraceHeader::parse(&bytes).unwrap().0.marker_flags,
        MarkerFlags(0xC8)
    );
}

#[test]
fn trace_header_with_another_header_type_is_rejected_with_both_expected_types() {
    for header_type in [0x00, 0x01, 0x0B, 0x12, 0x15, 0xFF] {
        let mut bytes = full_event(0x30, 0);
        bytes[2] = header_type;
        assert_eq!(
            EventTraceHeader::parse(&bytes),
            Err(CodecError::WrongHeaderType {
                layout: Layout::EventTraceHeader,
                expected_32: HeaderType::FULL_HEADER32,
                expected_64: HeaderType::FULL_HEADER64,
                found: HeaderType(header_type),
            })
        );
    }
}

#[test]
fn trace_header_size_below_the_header_is_rejected() {
    for size in [0u16, 1, 0x2F] {
        assert_eq!(
            EventTraceHeader::parse(&full_event(size, 0)),
            Err(CodecError::SizeBelowHeader {
                layout: Layout::EventTraceHeader,
                header_len: 0x30,
                size
            })
        );
    }
}

#[test]
fn trace_header_parse_event_splits_data_and_rest() {
    let bytes = full_event(0x3C, 5);
    let (header, data, rest) = EventTraceHeader::parse_event(&bytes).unwrap();
    assert_eq!(header.size, 0x3C);
    assert_eq!(data, &bytes[0x30..0x3C]);
    assert_eq!(data.len(), 12);
    assert_eq!(rest.len(), 5);
}

#[test]
fn trace_header_size_beyond_the_input_is_reported_not_truncated() {
    let bytes = full_event(0x40, 0);
    assert_eq!(
        EventTraceHeader::parse_event(&bytes[..0x3F]),
        Err(CodecError::SizeBeyondInput {
            layout: Layout::EventTraceHeader,
            size: 0x40,
            available: 0x3F
        })
    );
    let bytes = full_event(0xFFFF, 0);
    assert_eq!(
        EventTraceHeader::parse_event(&bytes[..0x100]),
        Err(CodecError::SizeBeyondInput {
            layout: Layout::EventTraceHeader,
            size: 0xFFFF,
            available: 0x100
        })
    );
    // The largest event, exactly present.
    let (_, data, rest) = EventTraceHeader::parse_event(&bytes).unwrap();
    assert_eq!(data.len(), 0xFFFF - 0x30);
    assert!(rest.is_empty());
}

#[test]
fn instance_guid_header_checks() {
    for header_type in [0x0B, 0x15] {
        let mut bytes = instance_event(0x50, 3);
        bytes[2] = header_type;
        let (header, data, rest) = EventInstanceGuidHeader::parse_event(&bytes).unwrap();
        assert_eq!(header.header.header_type, HeaderType(header_type));
        assert_eq!((data.len(), rest.len()), (8, 3));
    }
    let mut bytes = instance_event(0x48, 0);
    bytes[2] = 0x14;
    assert_eq!(
        EventInstanceGuidHeader::parse(&bytes),
        Err(CodecError::WrongHeaderType {
            layout: Layout::EventInstanceGuidHeader,
            expected_32: HeaderType::INSTANCE32,
            expected_64: HeaderType::INSTANCE64,
            found: HeaderType::FULL_HEADER64,
        })
    );
    let mut bytes = instance_event(0x48, 0);
    bytes[3] = 0x80;
    assert_eq!(
        EventInstanceGuidHeader::parse(&bytes),
        Err(CodecError::NotATraceHeader {
            layout: Layout::EventInstanceGuidHeader,
            found: MarkerFlags(0x80)
        })
    );
    // A FULL header's Size (0x30) does not cover an instance header.
    assert_eq!(
        EventInstanceGuidHeader::parse(&instance_event(0x47, 0)),
        Err(CodecError::SizeBelowHeader {
            layout: Layout::EventInstanceGuidHeader,
            header_len: 0x48,
            size: 0x47
        })
    );
    assert_eq!(
        EventInstanceGuidHeader::parse_event(&instance_event(0x60, 0)[..0x50]),
        Err(CodecError::SizeBeyondInput {
            layout: Layout::EventInstanceGuidHeader,
            size: 0x60,
            available: 0x50
        })
    );
}

#[test]
fn the_end_mark_and_fill_are_not_headers() {
    // 0xFFFFFFFF marks the end of events in a buffer; 0xFF fills unused space.
    let fill = [0xFFu8; 0x48];
    assert_eq!(
        EventTraceHeader::parse(&fill),
        Err(CodecError::WrongHeaderType {
            layout: Layout::EventTraceHeader,
            expected_32: HeaderType::FULL_HEADER32,
            expected_64: HeaderType::FULL_HEADER64,
            found: HeaderType(0xFF),
        })
    );
    // from_bytes takes them anyway, and gives them back.
    let header = EventInstanceGuidHeader::from_bytes(&fill);
    assert_eq!(header.to_bytes(), fill);
}

#[test]
fn errors_say_what_was_expected_and_what_was_found() {
    let messages = [
        (
            CodecError::Truncated { layout: Layout::EventTraceHeader, needed: 48, found: 10 },
            "EVENT_TRACE_HEADER: expected 48 bytes, found 10",
        ),
        (
            CodecError::OutputTooSmall { layout: Layout::MofField, needed: 16, found: 3 },
            "MOF_FIELD: encoding needs 16 bytes of output, found room for 3",
        ),
        (
            CodecError::NotATraceHeader { layout: Layout::EventTraceHeader, found: MarkerFlags(0x80) },
            "EVENT_TRACE_HEADER.MarkerFlags (offset 0x03): expected TRACE_HEADER_FLAG|TRACE_HEADER_EVENT_TRACE (0xc0), found 0x80",
        ),
        (
            CodecError::WrongHeaderType {
                layout: Layout::EventInstanceGuidHeader,
                expected_32: HeaderType::INSTANCE32,
                expected_64: HeaderType::INSTANCE64,
                found: HeaderType(0x42),
            },
            "EVENT_INSTANCE_GUID_HEADER.HeaderType (offset 0x02): expected INSTANCE32 or INSTANCE64, found HeaderType(0x42)",
        ),
        (
            CodecError::SizeBelowHeader { layout: Layout::EventTraceHeader, header_len: 48, size: 47 },
            "EVENT_TRACE_HEADER.Size: expected at least the 48-byte header, found 47",
        ),
        (
            CodecError::SizeBeyondInput { layout: Layout::EventTraceHeader, size: 64, available: 63 },
            "EVENT_TRACE_HEADER.Size: expected at most the 63 bytes present, found 64",
        ),
        (
            CodecError::PointerTooWide {
                layout: Layout::EventTrace32,
                bitness: etw_classic::Bitness::Bits32,
                value: 0x1_0000_0000,
            },
            "EVENT_TRACE (32-bit).MofData: a 32-bit pointer holds at most 0xffffffff, found 0x100000000",
        ),
    ];
    for (error, message) in messages {
        assert_eq!(error.to_string(), message);
        // Usable as a standard error.
        let _: &dyn core::error::Error = &error;
    }
}
