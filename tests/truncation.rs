//! Every prefix shorter than a struct gives the precise truncation error, and every output
//! shorter than a struct gives the precise output error with nothing written.

use etw_classic::{
    wire::{
        EventInstanceInfo32, EventInstanceInfo64, EventTrace32, EventTrace64, TraceLogfileHeader32,
        TraceLogfileHeader64,
    },
    Bitness, CodecError, EventInstanceGuidHeader, EventInstanceHeader, EventInstanceInfo,
    EventTrace, EventTraceHeader, Layout, MofField, SystemTraceHeader, TraceLogfileHeader,
};

/// A well-formed instance event header followed by data: valid for every layout's `parse`.
fn sample(len: usize) -> Vec<u8> {
    let mut bytes: Vec<u8> = (0..len)
        .map(|index| (index as u8).wrapping_mul(7).wrapping_add(1))
        .collect();
    // Size = len, HeaderType, MarkerFlags 0xC0 (valid for both wire headers once the type is set).
    bytes[0..2].copy_from_slice(&(len as u16).to_le_bytes());
    bytes[3] = 0xC0;
    bytes
}

/// For one fixed layout: `parse` of every shorter prefix fails exactly; at full length it works;
/// `emit` into every shorter output fails exactly and leaves the output untouched.
macro_rules! sweep {
    ($type:ty, $header_type:expr) => {{
        let mut bytes = sample(<$type>::LEN);
        bytes[2] = $header_type;
        for length in 0..<$type>::LEN {
            assert_eq!(
                <$type>::parse(&bytes[..length]).map(|_| ()),
                Err(CodecError::Truncated {
                    layout: <$type>::LAYOUT,
                    needed: <$type>::LEN,
                    found: length
                }),
                "{} parse of {length} bytes",
                stringify!($type)
            );
        }
        let (value, rest) = <$type>::parse(&bytes).unwrap();
        assert!(rest.is_empty());
        for length in 0..<$type>::LEN {
            let mut out = vec![0xA5; length];
            assert_eq!(
                value.emit(&mut out).map(|_| ()),
                Err(CodecError::OutputTooSmall {
                    layout: <$type>::LAYOUT,
                    needed: <$type>::LEN,
                    found: length
                }),
                "{} emit into {length} bytes",
                stringify!($type)
            );
            assert!(
                out.iter().all(|byte| *byte == 0xA5),
                "nothing written on error"
            );
        }
        let mut out = vec![0xA5; <$type>::LEN + 3];
        let rest = value.emit(&mut out).unwrap();
        assert_eq!(rest.len(), 3);
        assert_eq!(&out[..<$type>::LEN], bytes.as_slice());
        assert_eq!(&out[<$type>::LEN..], [0xA5; 3]);
    }};
}

#[test]
fn event_trace_header_every_truncation() {
    sweep!(EventTraceHeader, 0x14);
}

#[test]
fn event_instance_header_every_truncation() {
    sweep!(EventInstanceHeader, 0x00);
}

#[test]
fn event_instance_guid_header_every_truncation() {
    sweep!(EventInstanceGuidHeader, 0x15);
}

#[test]
fn event_trace_both_layouts_every_truncation() {
    sweep!(EventTrace32, 0x0A);
    sweep!(EventTrace64, 0x14);
}

#[test]
fn event_instance_info_both_layouts_every_truncation() {
    sweep!(EventInstanceInfo32, 0);
    sweep!(EventInstanceInfo64, 0);
}

#[test]
fn mof_field_every_truncation() {
    sweep!(MofField, 0);
}

#[test]
fn system_trace_header_every_truncation() {
    // SYSTEM64; Size (bytes 4..6) comes from the pattern, 0x241D, above the 0x20 minimum.
    sweep!(SystemTraceHeader, 0x02);
}

#[test]
fn trace_logfile_header_both_layouts_every_truncation() {
    sweep!(TraceLogfileHeader32, 0);
    sweep!(TraceLogfileHeader64, 0);
}

#[test]
fn trace_logfile_header_bitness_chosen_every_truncation() {
    let bytes = sample(TraceLogfileHeader64::LEN);
    for (bitness, layout, len) in [
        (Bitness::Bits32, Layout::TraceLogfileHeader32, 0x110),
        (Bitness::Bits64, Layout::TraceLogfileHeader64, 0x118),
    ] {
        for length in 0..len {
            assert_eq!(
                TraceLogfileHeader::parse(&bytes[..length], bitness).map(|_| ()),
                Err(CodecError::Truncated {
                    layout,
                    needed: len,
                    found: length
                })
            );
        }
        let (header, rest) = TraceLogfileHeader::parse(&bytes, bitness).unwrap();
        assert_eq!(rest.len(), TraceLogfileHeader64::LEN - len);
        assert_eq!(header.byte_len(), len);
        for length in 0..len {
            let mut out = vec![0x5Au8; length];
            assert_eq!(
                header.emit(&mut out).map(|_| ()),
                Err(CodecError::OutputTooSmall {
                    layout,
                    needed: len,
                    found: length
                })
            );
            assert!(out.iter().all(|byte| *byte == 0x5A));
        }
    }
}

/// A logfile header event cut anywhere: the system header's own errors first, then the event's
/// `Size` past the input, then (with `Size` cut down to the input) the struct's truncation.
#[test]
fn logfile_header_event_every_truncation() {
    let mut event = vec![0u8; 0x20 + 0x118 + 4];
    event[..8].copy_from_slice(&[0x02, 0x00, 0x02, 0xC0, 0x3C, 0x01, 0x00, 0x00]);
    assert!(TraceLogfileHeader::parse_event(&event).is_ok());
    for length in 0..event.len() {
        let error = TraceLogfileHeader::parse_event(&event[..length]).unwrap_err();
        if length < 0x20 {
            assert_eq!(
                error,
                CodecError::Truncated {
                    layout: Layout::SystemTraceHeader,
                    needed: 0x20,
                    found: length
                }
            );
        } else {
            assert_eq!(
                error,
                CodecError::SizeBeyondInput {
                    layout: Layout::SystemTraceHeader,
                    size: 0x13C,
                    available: length
                }
            );
        }
        let mut shortened = event[..length].to_vec();
        if length >= 0x20 {
            shortened[4..6].copy_from_slice(&(length as u16).to_le_bytes());
            let result = TraceLogfileHeader::parse_event(&shortened).map(|_| ());
            if length < 0x20 + 0x118 {
                assert_eq!(
                    result,
                    Err(CodecError::Truncated {
                        layout: Layout::TraceLogfileHeader64,
                        needed: 0x118,
                        found: length - 0x20
                    })
                );
            } else {
                assert_eq!(result, Ok(()));
            }
        }
    }
}

#[test]
fn bitness_chosen_types_every_truncation() {
    for (bitness, trace_layout, info_layout, info_len) in [
        (
            Bitness::Bits32,
            Layout::EventTrace32,
            Layout::EventInstanceInfo32,
            8,
        ),
        (
            Bitness::Bits64,
            Layout::EventTrace64,
            Layout::EventInstanceInfo64,
            16,
        ),
    ] {
        let bytes = sample(EventTrace::LEN);
        for length in 0..EventTrace::LEN {
            assert_eq!(
                EventTrace::parse(&bytes[..length], bitness).map(|_| ()),
                Err(CodecError::Truncated {
                    layout: trace_layout,
                    needed: 0x58,
                    found: length
                })
            );
        }
        let (trace, _) = EventTrace::parse(&bytes, bitness).unwrap();
        for length in 0..EventTrace::LEN {
            let mut out = vec![0u8; length];
            assert_eq!(
                trace.emit(&mut out).map(|_| ()),
                Err(CodecError::OutputTooSmall {
                    layout: trace_layout,
                    needed: 0x58,
                    found: length
                })
            );
        }
        for length in 0..info_len {
            assert_eq!(
                EventInstanceInfo::parse(&bytes[..length], bitness).map(|_| ()),
                Err(CodecError::Truncated {
                    layout: info_layout,
                    needed: info_len,
                    found: length
                })
            );
        }
        let (info, rest) = EventInstanceInfo::parse(&bytes, bitness).unwrap();
        assert_eq!(rest.len(), EventTrace::LEN - info_len);
        assert_eq!(info.byte_len(), info_len);
        for length in 0..info_len {
            let mut out = vec![0u8; length];
            assert_eq!(
                info.emit(&mut out).map(|_| ()),
                Err(CodecError::OutputTooSmall {
                    layout: info_layout,
                    needed: info_len,
                    found: length
                })
            );
        }
    }
}

#[test]
fn layout_lengths_are_the_sdk_sizes() {
    let lengths: Vec<usize> = Layout::ALL.iter().map(|layout| layout.byte_len()).collect();
    assert_eq!(
        lengths,
        [
            0x30, 0x38, 0x48, 0x58, 0x58, 8, 16, 16, 0x48, 0x20, 0x110, 0x118, 0x50, 8, 0x18, 0x10,
            8
        ]
    );
}
