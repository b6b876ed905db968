//! Every prefix shorter than a struct gives the precise truncation error, and every output
//! shorter than a struct gives the precise output error with nothing written.

use etw_classic::{
    Bitness, Error, EventInstanceGuidHeader, EventInstanceHeader, EventInstanceInfo,
    EventInstanceInfo32, EventInstanceInfo64, EventTrace, EventTrace32, EventTrace64,
    EventTraceHeader, Layout, MofField,
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
                Err(Error::Truncated {
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
                Err(Error::OutputTooSmall {
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
                Err(Error::Truncated {
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
                Err(Error::OutputTooSmall {
                    layout: trace_layout,
                    needed: 0x58,
                    found: length
                })
            );
        }
        for length in 0..info_len {
            assert_eq!(
                EventInstanceInfo::parse(&bytes[..length], bitness).map(|_| ()),
                Err(Error::Truncated {
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
                Err(Error::OutputTooSmall {
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
    assert_eq!(lengths, [0x30, 0x38, 0x48, 0x58, 0x58, 8, 16, 16, 0x48]);
}
