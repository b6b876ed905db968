//! Every fixed-layout struct decoded from, and encoded back to, the same arbitrary bytes.
//!
//! Laws checked for each layout, on the one input:
//! - `to_bytes(from_bytes(b)) == b` and `from_bytes(to_bytes(v)) == v`;
//! - `parse` of an input shorter than the struct is `Error::Truncated` with the exact lengths;
//! - `parse` of a long enough input gives `from_bytes` of its prefix and exactly the bytes after
//!   it, and `emit` of the result writes the prefix back and leaves the rest of the output alone;
//! - `emit` into a too-short output is `Error::OutputTooSmall` and writes nothing;
//! - for the three headers read from trace buffers (`EventTraceHeader`,
//!   `EventInstanceGuidHeader`, `SystemTraceHeader`), `parse` succeeds exactly when the marker
//!   flags, header type and `Size` are valid, its errors name a real violation, and `parse_event`
//!   splits `Size` bytes off the input;
//! - the enums `EventTrace`, `EventInstanceInfo` and `TraceLogfileHeader` are the struct of the
//!   bitness asked for, with the same bytes, and `emit` of a too-small output writes nothing;
//! - `TraceLogfileHeader::parse_event` is `SystemTraceHeader::parse_event`, then a `HookId` of
//!   0, then the layout `SYSTEM32`/`SYSTEM64` names parsed from the event data, then
//!   `LogfileNames::parse` of the data after it; each step's error is its own;
//! - `LogfileNames::parse` of any bytes never panics, and its names are code units of the input
//!   at the positions its NULs give; `rest` is the input's tail after the second NUL;
//! - `TimeZoneInformation` and `SystemTime` are lossless both ways, and the name strings stop at
//!   the first NUL;
//! - the layouts that share leading bytes decode those bytes to the same members, and the
//!   structs inside others (`TimeZoneInformation`, `SystemTime`, `BufferContext`) decode alike
//!   on their own.
#![no_main]

use core::fmt::Debug;

use etw_classic::{
    Bitness, BufferContext, Error, EventInstanceGuidHeader, EventInstanceHeader, EventInstanceInfo,
    EventInstanceInfo32, EventInstanceInfo64, EventTrace, EventTrace32, EventTrace64,
    EventTraceHeader, HeaderType, Layout, LogfileNames, MarkerFlags, MofField, SystemTime,
    SystemTraceHeader, TimeZoneInformation, TraceLogfileHeader, TraceLogfileHeader32,
    TraceLogfileHeader64, WmiBufferHeader,
};
use libfuzzer_sys::fuzz_target;

/// Byte the output buffers are filled with before `emit`, to see what it wrote.
const FILL: u8 = 0xA5;
/// Spare output bytes after the struct in the `emit` checks.
const SPARE: usize = 7;
/// The longest layout; every buffer below lives on the stack.
const MAX_LEN: usize = TraceLogfileHeader64::LEN;

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

/// The wire checks of the three headers found in trace buffers, stated independently of the
/// order in which `parse` makes them: the header's (marker flags, header type, `Size`) and the
/// two header types it is written with.
macro_rules! wire_rules {
    (EventTraceHeader) => {
        wire_rules!(
            |h: &Self| (h.marker_flags, h.header_type, h.size),
            [HeaderType::FULL_HEADER32, HeaderType::FULL_HEADER64]
        );
    };
    (EventInstanceGuidHeader) => {
        wire_rules!(
            |h: &Self| (h.header.marker_flags, h.header.header_type, h.header.size),
            [HeaderType::INSTANCE32, HeaderType::INSTANCE64]
        );
    };
    (SystemTraceHeader) => {
        wire_rules!(
            |h: &Self| (h.flags, h.header_type, h.size),
            [HeaderType::SYSTEM32, HeaderType::SYSTEM64]
        );
    };
    (|$h:ident: &Self| $marker:expr, $allowed:expr) => {
        fn wire_valid(&self) -> bool {
            let $h = self;
            header_valid($marker, $allowed, Self::LEN)
        }
        fn wire_violation(&self, error: &Error) -> bool {
            let $h = self;
            header_violation($marker, Self::LAYOUT, $allowed, Self::LEN, error)
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
    WmiBufferHeader,
    SystemTraceHeader,
    TraceLogfileHeader32,
    TraceLogfileHeader64,
);

/// The first four bytes and `Size` of a header read from a trace buffer.
type Marker = (MarkerFlags, HeaderType, u16);

fn header_valid((flags, header_type, size): Marker, allowed: [HeaderType; 2], len: usize) -> bool {
    flags.contains(MarkerFlags::EVENT_TRACE_HEADER)
        && allowed.contains(&header_type)
        && usize::from(size) >= len
}

fn header_violation(
    (flags, header_type, header_size): Marker,
    layout: Layout,
    allowed: [HeaderType; 2],
    len: usize,
    error: &Error,
) -> bool {
    match *error {
        Error::NotATraceHeader {
            layout: which,
            found,
        } => which == layout && found == flags && !found.contains(MarkerFlags::EVENT_TRACE_HEADER),
        Error::WrongHeaderType {
            layout: which,
            expected_32,
            expected_64,
            found,
        } => {
            which == layout
                && [expected_32, expected_64] == allowed
                && found == header_type
                && !allowed.contains(&found)
        }
        Error::SizeBelowHeader {
            layout: which,
            header_len,
            size,
        } => which == layout && header_len == len && size == header_size && usize::from(size) < len,
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

/// The `TraceLogfileHeader` enum in the layout `bitness` chooses.
fn check_logfile_header(data: &[u8], bitness: Bitness, layout: Layout) {
    let len = layout.byte_len();
    let (header, rest) = match TraceLogfileHeader::parse(data, bitness) {
        Ok(parsed) => parsed,
        Err(error) => {
            assert_eq!(
                error,
                Error::Truncated {
                    layout,
                    needed: len,
                    found: data.len(),
                }
            );
            assert!(data.len() < len);
            return;
        }
    };
    assert_eq!(header.bitness(), bitness);
    assert_eq!(header.layout(), layout);
    assert_eq!(header.byte_len(), len);
    assert_eq!(rest.len(), data.len() - len);
    assert_eq!(rest.as_ptr(), data[len..].as_ptr());
    let direct = match bitness {
        Bitness::Bits32 => TraceLogfileHeader::from(TraceLogfileHeader32::from_bytes(
            data[..TraceLogfileHeader32::LEN].try_into().unwrap(),
        )),
        Bitness::Bits64 => TraceLogfileHeader::from(TraceLogfileHeader64::from_bytes(
            data[..TraceLogfileHeader64::LEN].try_into().unwrap(),
        )),
    };
    assert_eq!(header, direct);

    let mut small = [FILL; MAX_LEN];
    let small = &mut small[..len - 1];
    assert_eq!(
        header.emit(small).err(),
        Some(Error::OutputTooSmall {
            layout,
            needed: len,
            found: len - 1,
        })
    );
    assert!(small.iter().all(|&byte| byte == FILL));
    let mut roomy = [FILL; MAX_LEN + SPARE];
    let roomy = &mut roomy[..len + SPARE];
    let left = header.emit(roomy).expect("emit into enough room");
    assert_eq!(left.len(), SPARE);
    assert!(left.iter().all(|&byte| byte == FILL));
    assert_eq!(&roomy[..len], &data[..len]);
}

/// `TraceLogfileHeader::parse_event`: the steps its documentation names, in order, each failing
/// with its own error.
fn check_logfile_event(data: &[u8]) {
    let result = TraceLogfileHeader::parse_event(data);
    let (system, event_data, after) = match SystemTraceHeader::parse_event(data) {
        Ok(parts) => parts,
        Err(error) => {
            assert_eq!(result.err(), Some(error));
            return;
        }
    };
    if system.hook_id != SystemTraceHeader::WMI_LOG_TYPE_HEADER {
        assert_eq!(
            result.err(),
            Some(Error::UnexpectedHookId {
                layout: Layout::SystemTraceHeader,
                expected: SystemTraceHeader::WMI_LOG_TYPE_HEADER,
                found: system.hook_id,
            })
        );
        return;
    }
    // `SystemTraceHeader::parse` accepts only these two types.
    let bitness = match system.header_type {
        HeaderType::SYSTEM32 => Bitness::Bits32,
        HeaderType::SYSTEM64 => Bitness::Bits64,
        other => panic!("SystemTraceHeader::parse accepted header type {other:?}"),
    };
    let (header, names_bytes) = match TraceLogfileHeader::parse(event_data, bitness) {
        Ok(parsed) => parsed,
        Err(error) => {
            assert_eq!(result.err(), Some(error));
            return;
        }
    };
    let (parsed_system, parsed_header, names, rest) = result.expect("every step succeeded");
    assert_eq!(parsed_system, system);
    assert_eq!(parsed_header, header);
    assert_eq!(parsed_header.bitness(), bitness);
    assert_eq!(names, LogfileNames::parse(names_bytes));
    assert_eq!(
        names_bytes.len(),
        usize::from(system.size) - SystemTraceHeader::LEN - header.byte_len()
    );
    assert_eq!(rest.len(), data.len() - usize::from(system.size));
    assert_eq!(rest.as_ptr(), after.as_ptr());
}

/// Checks one name of `LogfileNames` that starts at `start` in `bytes`: its code units are those
/// of the input there, none is NUL, and it stops at a NUL code unit or at the end of the input.
/// Returns where the bytes after its NUL start, `None` when it has none.
fn check_name(bytes: &[u8], start: usize, name: etw_classic::Utf16Str<'_>) -> Option<usize> {
    let end = start + 2 * name.len();
    let text = bytes.get(start..end).expect("a name lies within the input");
    assert!(name.units().eq(text
        .chunks_exact(2)
        .map(|pair| u16::from_le_bytes([pair[0], pair[1]]))));
    assert!(name.units().all(|unit| unit != 0), "a name holds a NUL");
    match bytes.get(end..end + 2) {
        Some([0, 0]) => Some(end + 2),
        _ => {
            assert!(
                bytes.len() - end < 2,
                "a name stopped before a code unit that is not NUL"
            );
            None
        }
    }
}

/// `LogfileNames::parse` of any bytes: two NUL-terminated names, then the rest.
fn check_names(bytes: &[u8]) {
    let names = LogfileNames::parse(bytes);
    match check_name(bytes, 0, names.logger_name) {
        None => {
            assert!(names.log_file_name.is_empty());
            assert!(!names.terminated && names.rest.is_empty());
        }
        Some(after_logger) => match check_name(bytes, after_logger, names.log_file_name) {
            None => assert!(!names.terminated && names.rest.is_empty()),
            Some(after_file) => {
                assert!(names.terminated);
                assert_eq!(names.rest.len(), bytes.len() - after_file);
                assert_eq!(names.rest.as_ptr(), bytes[after_file..].as_ptr());
            }
        },
    }
}

/// `SystemTime` and `TimeZoneInformation`, which have only `from_bytes` and `to_bytes`: lossless
/// both ways, members at their offsets, names up to the first NUL.
fn check_time_zone(data: &[u8]) {
    if let Some(prefix) = data.first_chunk::<{ SystemTime::LEN }>() {
        let time = SystemTime::from_bytes(prefix);
        assert_eq!(&time.to_bytes(), prefix);
        assert_eq!(SystemTime::from_bytes(&time.to_bytes()), time);
        let word = |at: usize| u16::from_le_bytes([prefix[at], prefix[at + 1]]);
        assert_eq!(
            [
                time.year,
                time.month,
                time.day_of_week,
                time.day,
                time.hour,
                time.minute,
                time.second,
                time.milliseconds
            ],
            [0, 2, 4, 6, 8, 10, 12, 14].map(word)
        );
    }
    let Some(prefix) = data.first_chunk::<{ TimeZoneInformation::LEN }>() else {
        return;
    };
    let zone = TimeZoneInformation::from_bytes(prefix);
    assert_eq!(&zone.to_bytes(), prefix);
    assert_eq!(TimeZoneInformation::from_bytes(&zone.to_bytes()), zone);
    assert_eq!(
        zone.bias,
        i32::from_le_bytes(prefix[..4].try_into().unwrap())
    );
    assert_eq!(
        zone.standard_date,
        SystemTime::from_bytes(prefix[0x44..0x54].try_into().unwrap())
    );
    assert_eq!(
        zone.daylight_date,
        SystemTime::from_bytes(prefix[0x98..0xA8].try_into().unwrap())
    );
    for (text, units) in [
        (zone.standard_name_str(), &zone.standard_name),
        (zone.daylight_name_str(), &zone.daylight_name),
    ] {
        let end = units
            .iter()
            .position(|&unit| unit == 0)
            .unwrap_or(units.len());
        assert!(text.units().eq(units[..end].iter().copied()));
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

    let system_header = check_layout::<SystemTraceHeader>(data);
    check_event(
        data,
        system_header,
        |h| h.size,
        SystemTraceHeader::parse_event,
    );

    let _ = check_layout::<EventInstanceHeader>(data);
    let _ = check_layout::<EventTrace32>(data);
    let _ = check_layout::<EventTrace64>(data);
    let _ = check_layout::<EventInstanceInfo32>(data);
    let _ = check_layout::<EventInstanceInfo64>(data);
    let _ = check_layout::<MofField>(data);
    let _ = check_layout::<WmiBufferHeader>(data);
    let _ = check_layout::<TraceLogfileHeader32>(data);
    let _ = check_layout::<TraceLogfileHeader64>(data);

    check_event_trace(data, Bitness::Bits32, Layout::EventTrace32);
    check_event_trace(data, Bitness::Bits64, Layout::EventTrace64);
    check_instance_info(data, Bitness::Bits32, Layout::EventInstanceInfo32);
    check_instance_info(data, Bitness::Bits64, Layout::EventInstanceInfo64);
    check_logfile_header(data, Bitness::Bits32, Layout::TraceLogfileHeader32);
    check_logfile_header(data, Bitness::Bits64, Layout::TraceLogfileHeader64);
    check_logfile_event(data);
    check_names(data);
    check_time_zone(data);

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
    // The marker and header views of SYSTEM_TRACE_HEADER are its first two u32s.
    if let Some(prefix) = data.first_chunk::<{ SystemTraceHeader::LEN }>() {
        let system = SystemTraceHeader::from_bytes(prefix);
        let word = |at: usize| u32::from_le_bytes(prefix[at..at + 4].try_into().unwrap());
        assert_eq!((system.marker(), system.header()), (word(0), word(4)));
        assert_eq!(
            (system.hook_type(), system.hook_group()),
            (prefix[6], prefix[7])
        );
        let by_views = SystemTraceHeader {
            hook_id: SystemTraceHeader::hook_id_of(system.hook_type(), system.hook_group()),
            ..system
        }
        .with_marker(word(0))
        .with_header(word(4));
        assert_eq!(by_views, system);
    }
    // ClientContext of WMI_BUFFER_HEADER is an ETW_BUFFER_CONTEXT whose views are its bytes.
    if let Some(prefix) = data.first_chunk::<{ WmiBufferHeader::LEN }>() {
        let header = WmiBufferHeader::from_bytes(prefix);
        let context = header.client_context;
        let raw: [u8; 4] = prefix[0x28..0x2C].try_into().unwrap();
        assert_eq!(context.0, raw);
        assert_eq!(context.client_context(), u32::from_le_bytes(raw));
        assert_eq!(
            context.processor_index(),
            u16::from_le_bytes([raw[0], raw[1]])
        );
        assert_eq!(
            BufferContext::new(
                context.processor_number(),
                context.alignment(),
                context.logger_id()
            ),
            context
        );
        assert_eq!(
            BufferContext::from_client_context(context.client_context()),
            context
        );
        assert_eq!(header.is_compressed(), prefix[0x34] & 0x40 != 0);
    }
    // Both TRACE_LOGFILE_HEADER layouts read the members before the pointers alike, and hold a
    // TIME_ZONE_INFORMATION that decodes as one on its own.
    if let Some(prefix) = data.first_chunk::<{ TraceLogfileHeader64::LEN }>() {
        let narrow = TraceLogfileHeader32::from_bytes(
            prefix[..TraceLogfileHeader32::LEN].try_into().unwrap(),
        );
        let wide = TraceLogfileHeader64::from_bytes(prefix);
        assert_eq!(
            (
                narrow.buffer_size,
                narrow.version,
                narrow.provider_version,
                narrow.number_of_processors,
                narrow.end_time,
                narrow.timer_resolution,
                narrow.maximum_file_size,
                narrow.log_file_mode,
                narrow.buffers_written,
                narrow.log_instance
            ),
            (
                wide.buffer_size,
                wide.version,
                wide.provider_version,
                wide.number_of_processors,
                wide.end_time,
                wide.timer_resolution,
                wide.maximum_file_size,
                wide.log_file_mode,
                wide.buffers_written,
                wide.log_instance
            )
        );
        assert_eq!(
            narrow.version.roll_up(),
            u32::from_le_bytes(prefix[4..8].try_into().unwrap())
        );
        assert_eq!(narrow.log_instance.0[..], prefix[0x28..0x38]);
        assert_eq!(
            narrow.time_zone,
            TimeZoneInformation::from_bytes(prefix[0x40..0xEC].try_into().unwrap())
        );
        assert_eq!(
            wide.time_zone,
            TimeZoneInformation::from_bytes(prefix[0x48..0xF4].try_into().unwrap())
        );
    }
});
