//! Every fixed-layout struct decoded from, and encoded back to, the same arbitrary bytes.
//!
//! Laws checked for each layout, on the one input:
//! - `to_bytes(from_bytes(b)) == b` and `from_bytes(to_bytes(v)) == v`;
//! - `parse` of an input shorter than the struct is `Error::Truncated` with the exact lengths;
//! - `parse` of a long enough input gives `from_bytes` of its prefix and exactly the bytes after
//!   it, and `emit` of the result writes the prefix back and leaves the rest of the output alone;
//! - `emit` into a too-short output is `Error::OutputTooSmall` and writes nothing;
//! - for the two headers read from trace buffers, `parse` succeeds exactly when the marker flags,
//!   header type and `Size` are valid, its errors name a real violation, and `parse_event` splits
//!   `Size` bytes off the input;
//! - the layouts that share leading bytes decode those bytes to the same members.
#![no_main]

use core::fmt::Debug;

use etw_classic::{
    Bitness, Error, EventInstanceGuidHeader, EventInstanceHeader, EventInstanceInfo,
    EventInstanceInfo32, EventInstanceInfo64, EventTrace, EventTrace32, EventTrace64,
    EventTraceHeader, HeaderType, Layout, MarkerFlags, MofField,
};
use libfuzzer_sys::fuzz_target;

/// Byte the output buffers are filled with before `emit`, to see what it wrote.
const FILL: u8 = 0xA5;
/// Spare output bytes after the struct in the `emit` checks.
const SPARE: usize = 7;
/// The longest layout; every buffer below lives on the stack.
const MAX_LEN: usize = EventTrace::LEN;

/// The entry points every fixed-layout struct has, under names of their own so that the calls
/// below always reach the crate's inherent functions.
trait Fixed: Copy + PartialEq + Debug {
    const BYTES: usize;
    const WHICH: Layout;
    fn decode(prefix: &[u8]) -> Self;
    /// `to_bytes`, copied to the front of `out`.
    fn encode(&self, out: &mut [u8; MAX_LEN]);
    fn parse_prefix(input: &[u8]) -> Result<(Self, &[u8]), Error>;
    fn emit_into<'o>(&self, out: &'o mut [u8]) -> Result<&'o mut [u8], Error>;
    /// Whether `parse` must accept these bytes: true for the structs it only length-checks.
    fn wire_valid(&self) -> bool {
        true
    }
    /// Whether `error` names a wire check these bytes really fail.
    fn wire_violation(&self, _error: &Error) -> bool {
        false
    }
}

macro_rules! fixed {
    ($($ty:ident),* $(,)?) => {$(
        impl Fixed for $ty {
            const BYTES: usize = $ty::LEN;
            const WHICH: Layout = $ty::LAYOUT;
            fn decode(prefix: &[u8]) -> Self {
                $ty::from_bytes(prefix.try_into().expect("prefix has the struct's length"))
            }
            fn encode(&self, out: &mut [u8; MAX_LEN]) {
                out[..$ty::LEN].copy_from_slice(&$ty::to_bytes(self));
            }
            fn parse_prefix(input: &[u8]) -> Result<(Self, &[u8]), Error> {
                $ty::parse(input)
            }
            fn emit_into<'o>(&self, out: &'o mut [u8]) -> Result<&'o mut [u8], Error> {
                $ty::emit(self, out)
            }
            wire_rules!($ty);
        }
    )*};
}

/// The wire checks of the two headers found in trace buffers, stated independently of the order
/// in which `parse` makes them.
macro_rules! wire_rules {
    (EventTraceHeader) => {
        fn wire_valid(&self) -> bool {
            header_valid(
                self,
                [HeaderType::FULL_HEADER32, HeaderType::FULL_HEADER64],
                Self::LEN,
            )
        }
        fn wire_violation(&self, error: &Error) -> bool {
            header_violation(
                self,
                Self::LAYOUT,
                [HeaderType::FULL_HEADER32, HeaderType::FULL_HEADER64],
                Self::LEN,
                error,
            )
        }
    };
    (EventInstanceGuidHeader) => {
        fn wire_valid(&self) -> bool {
            header_valid(
                &self.header,
                [HeaderType::INSTANCE32, HeaderType::INSTANCE64],
                Self::LEN,
            )
        }
        fn wire_violation(&self, error: &Error) -> bool {
            header_violation(
                &self.header,
                Self::LAYOUT,
                [HeaderType::INSTANCE32, HeaderType::INSTANCE64],
                Self::LEN,
                error,
            )
        }
    };
    ($other:ident) => {};
}

fixed!(
    EventTraceHeader,
    EventInstanceHeader,
    EventInstanceGuidHeader,
    EventTrace32,
    EventTrace64,
    EventInstanceInfo32,
    EventInstanceInfo64,
    MofField,
);

fn header_valid(header: &EventTraceHeader, allowed: [HeaderType; 2], len: usize) -> bool {
    header
        .marker_flags
        .contains(MarkerFlags::EVENT_TRACE_HEADER)
        && allowed.contains(&header.header_type)
        && usize::from(header.size) >= len
}

fn header_violation(
    header: &EventTraceHeader,
    layout: Layout,
    allowed: [HeaderType; 2],
    len: usize,
    error: &Error,
) -> bool {
    match *error {
        Error::NotATraceHeader {
            layout: which,
            found,
        } => {
            which == layout
                && found == header.marker_flags
                && !found.contains(MarkerFlags::EVENT_TRACE_HEADER)
        }
        Error::WrongHeaderType {
            layout: which,
            expected_32,
            expected_64,
            found,
        } => {
            which == layout
                && [expected_32, expected_64] == allowed
                && found == header.header_type
                && !allowed.contains(&found)
        }
        Error::SizeBelowHeader {
            layout: which,
            header_len,
            size,
        } => which == layout && header_len == len && size == header.size && usize::from(size) < len,
        _ => false,
    }
}

/// Checks the laws every fixed layout obeys on `data`; returns the value `parse` gave, if any.
fn check_layout<T: Fixed>(data: &[u8]) -> Option<T> {
    let len = T::BYTES;
    assert_eq!(
        T::WHICH.byte_len(),
        len,
        "{:?}: LEN and Layout disagree",
        T::WHICH
    );

    let Some(prefix) = data.get(..len) else {
        let error = T::parse_prefix(data).expect_err("parse accepted an input shorter than LEN");
        assert_eq!(
            error,
            Error::Truncated {
                layout: T::WHICH,
                needed: len,
                found: data.len(),
            }
        );
        return None;
    };

    // Lossless both ways.
    let value = T::decode(prefix);
    let mut encoded = [0; MAX_LEN];
    value.encode(&mut encoded);
    let encoded = &encoded[..len];
    assert_eq!(
        encoded,
        prefix,
        "{:?}: to_bytes(from_bytes(b)) != b",
        T::WHICH
    );
    assert_eq!(
        T::decode(encoded),
        value,
        "{:?}: from_bytes(to_bytes(v)) != v",
        T::WHICH
    );

    // `emit` into too little room fails and writes nothing.
    let mut small = [FILL; MAX_LEN];
    let small = &mut small[..len - 1];
    assert_eq!(
        value.emit_into(small).err(),
        Some(Error::OutputTooSmall {
            layout: T::WHICH,
            needed: len,
            found: len - 1,
        })
    );
    assert!(
        small.iter().all(|&byte| byte == FILL),
        "{:?}: emit wrote into a short output",
        T::WHICH
    );

    // `emit` into enough room writes the struct and hands back the rest untouched.
    let mut roomy = [FILL; MAX_LEN + SPARE];
    let roomy = &mut roomy[..len + SPARE];
    let rest = value.emit_into(roomy).expect("emit into enough room");
    assert_eq!(rest.len(), SPARE);
    assert!(
        rest.iter().all(|&byte| byte == FILL),
        "{:?}: emit wrote past the struct",
        T::WHICH
    );
    assert_eq!(&roomy[..len], prefix);

    match T::parse_prefix(data) {
        Ok((parsed, rest)) => {
            assert!(
                value.wire_valid(),
                "{:?}: parse accepted {value:?}",
                T::WHICH
            );
            assert_eq!(
                parsed,
                value,
                "{:?}: parse differs from from_bytes",
                T::WHICH
            );
            assert_eq!(rest.len(), data.len() - len);
            assert_eq!(
                rest.as_ptr(),
                data[len..].as_ptr(),
                "{:?}: rest is not the tail",
                T::WHICH
            );
            let mut fresh = [0; MAX_LEN];
            let fresh = &mut fresh[..len];
            let left = parsed
                .emit_into(fresh)
                .expect("emit into exactly LEN bytes");
            assert!(left.is_empty());
            assert_eq!(&*fresh, prefix, "{:?}: emit(parse(b)) != b", T::WHICH);
            Some(parsed)
        }
        Err(error) => {
            assert!(
                !value.wire_valid(),
                "{:?}: parse rejected a valid header with {error:?}",
                T::WHICH
            );
            assert!(
                value.wire_violation(&error),
                "{:?}: error {error:?} names no real violation of {value:?}",
                T::WHICH
            );
            None
        }
    }
}

/// `parse_event` of a header: the header, its event data and the bytes after the event.
type ParseEvent<T> = fn(&[u8]) -> Result<(T, &[u8], &[u8]), Error>;

/// `parse_event` of a header found in trace buffers: `Size` bytes split off the input.
fn check_event<T: Fixed>(
    data: &[u8],
    parsed: Option<T>,
    size_field: fn(&T) -> u16,
    parse_event: ParseEvent<T>,
) {
    let len = T::BYTES;
    match (parse_event(data), parsed) {
        (Ok((header, event_data, rest)), Some(parsed)) => {
            assert_eq!(
                header,
                parsed,
                "{:?}: parse_event and parse disagree",
                T::WHICH
            );
            let size = usize::from(size_field(&header));
            assert!(size >= len && size <= data.len());
            assert_eq!(event_data.len(), size - len);
            assert_eq!(rest.len(), data.len() - size);
            assert_eq!(event_data, &data[len..size]);
            assert_eq!(rest.as_ptr(), data[size..].as_ptr());
        }
        (Ok((header, _, _)), None) => {
            panic!(
                "{:?}: parse_event accepted {header:?}, parse did not",
                T::WHICH
            )
        }
        (Err(error), Some(parsed)) => {
            let size = size_field(&parsed);
            assert!(
                usize::from(size) > data.len(),
                "{:?}: parse_event rejected {parsed:?}",
                T::WHICH
            );
            assert_eq!(
                error,
                Error::SizeBeyondInput {
                    layout: T::WHICH,
                    size,
                    available: data.len(),
                }
            );
        }
        (Err(error), None) => {
            let expected = T::parse_prefix(data).expect_err("parse failed before");
            assert_eq!(
                error,
                expected,
                "{:?}: parse_event and parse fail differently",
                T::WHICH
            );
        }
    }
}

/// The `EventTrace` enum in the layout `bitness` chooses.
fn check_event_trace(data: &[u8], bitness: Bitness, layout: Layout) {
    let len = EventTrace::LEN;
    let Some(prefix) = data.get(..len) else {
        assert_eq!(
            EventTrace::parse(data, bitness).err(),
            Some(Error::Truncated {
                layout,
                needed: len,
                found: data.len(),
            })
        );
        return;
    };
    let bytes: &[u8; EventTrace::LEN] = prefix.try_into().expect("prefix has LEN bytes");
    let value = EventTrace::from_bytes(bytes, bitness);
    assert_eq!(value.bitness(), bitness);
    assert_eq!(value.layout(), layout);
    assert_eq!(&value.to_bytes(), bytes);
    let direct = match bitness {
        Bitness::Bits32 => EventTrace::Bits32(EventTrace32::from_bytes(bytes)),
        Bitness::Bits64 => EventTrace::Bits64(EventTrace64::from_bytes(bytes)),
    };
    assert_eq!(value, direct);

    // The first 0x48 bytes are an instance header, whose first 0x30 are a trace header.
    let instance = EventInstanceGuidHeader::from_bytes(
        prefix[..EventInstanceGuidHeader::LEN]
            .try_into()
            .expect("0x48 bytes"),
    );
    assert_eq!(value.instance_header(), instance);
    assert_eq!(value.header(), instance.header);

    let (parsed, rest) = EventTrace::parse(data, bitness).expect("parse of LEN bytes");
    assert_eq!(parsed, value);
    assert_eq!(rest.len(), data.len() - len);
    let mut fresh = [0; EventTrace::LEN];
    assert!(parsed
        .emit(&mut fresh)
        .expect("emit into LEN bytes")
        .is_empty());
    assert_eq!(&fresh, bytes);
}

/// The `EventInstanceInfo` enum in the layout `bitness` chooses.
fn check_instance_info(data: &[u8], bitness: Bitness, layout: Layout) {
    let len = layout.byte_len();
    match EventInstanceInfo::parse(data, bitness) {
        Ok((info, rest)) => {
            assert!(data.len() >= len);
            assert_eq!(info.bitness(), bitness);
            assert_eq!(info.byte_len(), len);
            assert_eq!(rest.len(), data.len() - len);
            let direct = match bitness {
                Bitness::Bits32 => {
                    EventInstanceInfo::from(EventInstanceInfo32::parse(data).expect("same input").0)
                }
                Bitness::Bits64 => {
                    EventInstanceInfo::from(EventInstanceInfo64::parse(data).expect("same input").0)
                }
            };
            assert_eq!(info, direct);
            let mut fresh = [0; EventInstanceInfo64::LEN];
            let fresh = &mut fresh[..len];
            assert!(info.emit(fresh).expect("emit into LEN bytes").is_empty());
            assert_eq!(&*fresh, &data[..len]);
        }
        Err(error) => assert_eq!(
            error,
            Error::Truncated {
                layout,
                needed: len,
                found: data.len(),
            }
        ),
    }
}

fuzz_target!(|data: &[u8]| {
    let trace_header = check_layout::<EventTraceHeader>(data);
    check_event(
        data,
        trace_header,
        |h| h.size,
        EventTraceHeader::parse_event,
    );
    let instance_guid = check_layout::<EventInstanceGuidHeader>(data);
    check_event(
        data,
        instance_guid,
        |h| h.header.size,
        EventInstanceGuidHeader::parse_event,
    );

    let _ = check_layout::<EventInstanceHeader>(data);
    let _ = check_layout::<EventTrace32>(data);
    let _ = check_layout::<EventTrace64>(data);
    let _ = check_layout::<EventInstanceInfo32>(data);
    let _ = check_layout::<EventInstanceInfo64>(data);
    let _ = check_layout::<MofField>(data);

    check_event_trace(data, Bitness::Bits32, Layout::EventTrace32);
    check_event_trace(data, Bitness::Bits64, Layout::EventTrace64);
    check_instance_info(data, Bitness::Bits32, Layout::EventInstanceInfo32);
    check_instance_info(data, Bitness::Bits64, Layout::EventInstanceInfo64);

    // The headers that begin like EVENT_TRACE_HEADER read those bytes the same way.
    if let Some(prefix) = data.get(..EventInstanceHeader::LEN) {
        let trace =
            EventTraceHeader::from_bytes(prefix[..EventTraceHeader::LEN].try_into().unwrap());
        let instance = EventInstanceHeader::from_bytes(prefix.try_into().unwrap());
        assert_eq!(
            (
                instance.size,
                instance.header_type,
                instance.marker_flags,
                instance.class
            ),
            (
                trace.size,
                trace.header_type,
                trace.marker_flags,
                trace.class
            )
        );
        assert_eq!(
            (
                instance.thread_id,
                instance.process_id,
                instance.timestamp,
                instance.times
            ),
            (
                trace.thread_id,
                trace.process_id,
                trace.timestamp,
                trace.times
            )
        );
    }
    if let Some(prefix) = data.get(..EventInstanceGuidHeader::LEN) {
        let trace =
            EventTraceHeader::from_bytes(prefix[..EventTraceHeader::LEN].try_into().unwrap());
        let instance = EventInstanceGuidHeader::from_bytes(prefix.try_into().unwrap());
        assert_eq!(instance.header, trace);
    }
});
