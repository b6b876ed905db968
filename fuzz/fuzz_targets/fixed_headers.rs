//! Every fixed-layout struct decoded from, and encoded back to, the same arbitrary bytes, and
//! compared with reference models written from the layouts (`etw_classic_fuzz::model`, citing
//! `../shared/reference/LAYOUTS.md` and the SDK declarations).
//!
//! Checked for each layout, on the one input:
//! - its length is the one its table gives; `from_bytes` decodes every member from the
//!   little-endian bytes at the member's offset (every view of every union included), so a
//!   member at a wrong offset, of a wrong width or in the wrong byte order is a finding;
//! - `to_bytes(from_bytes(b)) == b` and `from_bytes(to_bytes(v)) == v`;
//! - `parse` of an input shorter than the struct is `CodecError::Truncated` with the exact lengths;
//! - `parse` of a long enough input gives `from_bytes` of its prefix and exactly the bytes after
//!   it, and `emit` of the result writes the prefix back and leaves the rest of the output alone;
//! - `emit` into a too-short output is `CodecError::OutputTooSmall` and writes nothing;
//! - for the three headers read from trace buffers (`EventTraceHeader`,
//!   `EventInstanceGuidHeader`, `SystemTraceHeader`), `parse` succeeds exactly when the rules
//!   accept the bytes (marker flags 0xC0 in byte 3, one of the layout's two header types in byte
//!   2, a `Size` that covers the header), fails with a violation the bytes really have, and
//!   `parse_event` splits `Size` bytes off the input;
//! - the enums `EventTrace`, `EventInstanceInfo` and `TraceLogfileHeader` are the struct of the
//!   bitness asked for, with the same bytes, and `emit` of a too-small output writes nothing;
//! - `TraceLogfileHeader::parse_event` gives what the rules' steps give: a valid `SYSTEM32` or
//!   `SYSTEM64` header whose `Size` fits, `HookId` 0, the layout the header type names within
//!   `Size`, then the two NUL-terminated UTF-16 names; or an error that step allows;
//! - `LogfileNames::parse` of any bytes reads the names as the model does;
//! - `TimeZoneInformation` and `SystemTime` decode at their offsets, are lossless both ways, and
//!   their name strings stop at the first NUL.
#![no_main]

use core::fmt::Debug;

use etw_classic::{
    wire::{
        EventInstanceInfo32, EventInstanceInfo64, EventTrace32, EventTrace64, LogfileNames,
        SystemTime, TimeZoneInformation, TraceLogfileHeader32, TraceLogfileHeader64,
    },
    Bitness, CodecError, EventInstanceGuidHeader, EventInstanceHeader, EventInstanceInfo,
    EventTrace, EventTraceHeader, Layout, MofField, SystemTraceHeader, TraceLogfileHeader,
    WmiBufferHeader,
};
use etw_classic_fuzz::model::{self, Wire};
use libfuzzer_sys::fuzz_target;

/// Byte the output buffers are filled with before `emit`, to see what it wrote.
const FILL: u8 = 0xA5;
/// Spare output bytes after the struct in the `emit` checks.
const SPARE: usize = 7;
/// The longest layout; every buffer below lives on the stack.
const MAX_LEN: usize = 0x118;

/// The entry points every fixed-layout struct has, under names of their own so that the calls
/// below always reach the crate's inherent functions, and the model of its layout.
trait Fixed: Copy + PartialEq + Debug {
    /// The length its table gives.
    const RULE_LEN: usize;
    /// The library's `LEN`.
    const BYTES: usize;
    const WHICH: Layout;
    /// The wire checks `parse` makes, for the headers read from trace buffers.
    const WIRE: Option<Wire>;
    fn decode(prefix: &[u8]) -> Self;
    /// `to_bytes`, copied to the front of `out`.
    fn encode(&self, out: &mut [u8; MAX_LEN]);
    fn parse_prefix(input: &[u8]) -> Result<(Self, &[u8]), CodecError>;
    fn emit_into<'o>(&self, out: &'o mut [u8]) -> Result<&'o mut [u8], CodecError>;
    /// The model: every member equals the little-endian bytes at its offset in `b`.
    fn check_fields(&self, b: &[u8]);
}

macro_rules! fixed {
    ($($ty:ident: $len:literal, $check:path, $wire:expr;)*) => {$(
        impl Fixed for $ty {
            const RULE_LEN: usize = $len;
            const BYTES: usize = $ty::LEN;
            const WHICH: Layout = $ty::LAYOUT;
            const WIRE: Option<Wire> = $wire;
            fn decode(prefix: &[u8]) -> Self {
                $ty::from_bytes(prefix.try_into().expect("prefix has the struct's length"))
            }
            fn encode(&self, out: &mut [u8; MAX_LEN]) {
                out[..$ty::LEN].copy_from_slice(&$ty::to_bytes(self));
            }
            fn parse_prefix(input: &[u8]) -> Result<(Self, &[u8]), CodecError> {
                $ty::parse(input)
            }
            fn emit_into<'o>(&self, out: &'o mut [u8]) -> Result<&'o mut [u8], CodecError> {
                $ty::emit(self, out)
            }
            fn check_fields(&self, b: &[u8]) {
                $check(self, b)
            }
        }
    )*};
}

// Lengths: LAYOUTS §EVENT_TRACE_HEADER (0x30), §EVENT_INSTANCE_HEADER (0x38),
// §EVENT_INSTANCE_GUID_HEADER (0x48), §EVENT_TRACE (0x58 on both), §Small structs
// (EVENT_INSTANCE_INFO 8 / 16, MOF_FIELD 16, TRACE_LOGFILE_HEADER 0x110 / 0x118), §Trace buffers
// (WMI_BUFFER_HEADER 0x48), §The first four bytes (SYSTEM header 0x20).
fixed! {
    EventTraceHeader: 0x30, model::check_event_trace_header, Some(Wire::Full);
    EventInstanceHeader: 0x38, model::check_event_instance_header, None;
    EventInstanceGuidHeader: 0x48, model::check_event_instance_guid_header, Some(Wire::Instance);
    EventTrace32: 0x58, model::check_event_trace32, None;
    EventTrace64: 0x58, model::check_event_trace64, None;
    EventInstanceInfo32: 8, model::check_instance_info32, None;
    EventInstanceInfo64: 16, model::check_instance_info64, None;
    MofField: 16, model::check_mof_field, None;
    WmiBufferHeader: 0x48, model::check_wmi_buffer_header, None;
    SystemTraceHeader: 0x20, model::check_system_trace_header, Some(Wire::System);
    TraceLogfileHeader32: 0x110, model::check_logfile_header32, None;
    TraceLogfileHeader64: 0x118, model::check_logfile_header64, None;
}

/// Checks the laws and the model of one fixed layout on `data`.
fn check_layout<T: Fixed>(data: &[u8]) {
    let len = T::RULE_LEN;
    assert_eq!(
        T::BYTES,
        len,
        "{:?}: LEN is not the table's length",
        T::WHICH
    );
    assert_eq!(T::WHICH.byte_len(), len, "{:?}: Layout::byte_len", T::WHICH);

    let Some(prefix) = data.get(..len) else {
        let error = T::parse_prefix(data).expect_err("parse accepted an input shorter than LEN");
        assert_eq!(
            error,
            CodecError::Truncated {
                layout: T::WHICH,
                needed: len,
                found: data.len(),
            }
        );
        return;
    };

    // Every member at its offset, then lossless both ways.
    let value = T::decode(prefix);
    value.check_fields(prefix);
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
        Some(CodecError::OutputTooSmall {
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

    // What `parse` must do: the wire checks for the buffer headers, a length check otherwise.
    let expected = match T::WIRE {
        Some(wire) => wire.parse(data),
        None => Ok(len),
    };
    match (T::parse_prefix(data), expected) {
        (Ok((parsed, rest)), Ok(_)) => {
            assert_eq!(
                parsed,
                value,
                "{:?}: parse differs from from_bytes",
                T::WHICH
            );
            assert_eq!(rest.len(), data.len() - len);
            assert_eq!(rest.as_ptr(), data[len..].as_ptr(), "{:?}: rest", T::WHICH);
            let mut fresh = [0; MAX_LEN];
            let fresh = &mut fresh[..len];
            let left = parsed
                .emit_into(fresh)
                .expect("emit into exactly LEN bytes");
            assert!(left.is_empty());
            assert_eq!(&*fresh, prefix, "{:?}: emit(parse(b)) != b", T::WHICH);
        }
        (Err(error), Err(allowed)) => assert!(
            allowed.contains(&error),
            "{:?}: {error:?}, the rules: {allowed:?}",
            T::WHICH
        ),
        (result, expected) => panic!(
            "{:?}: parse gave {result:?}, the rules {expected:?}",
            T::WHICH
        ),
    }
}

/// `parse_event` of a header found in trace buffers against [`Wire::parse_event`]: `Size` bytes
/// split off the input, or an error the rules allow.
fn check_event<T: Fixed>(data: &[u8], parse_event: ParseEvent<T>) {
    let wire = T::WIRE.expect("a header read from trace buffers");
    match (parse_event(data), wire.parse_event(data)) {
        (Ok((header, event_data, rest)), Ok(size)) => {
            assert_eq!(
                header,
                T::decode(&data[..wire.header_len()]),
                "{wire:?}: parse_event"
            );
            assert_eq!(event_data, &data[wire.header_len()..size]);
            assert_eq!(event_data.as_ptr(), data[wire.header_len()..].as_ptr());
            assert_eq!(rest.len(), data.len() - size);
            assert_eq!(rest.as_ptr(), data[size..].as_ptr());
        }
        (Err(error), Err(allowed)) => assert!(
            allowed.contains(&error),
            "{wire:?}: parse_event gave {error:?}, the rules: {allowed:?}"
        ),
        (result, expected) => panic!(
            "{wire:?}: parse_event gave {:?}, the rules {expected:?}",
            result.map(|(header, _, _)| header)
        ),
    }
}

/// `parse_event` of a header: the header, its event data and the bytes after the event.
type ParseEvent<T> = fn(&[u8]) -> Result<(T, &[u8], &[u8]), CodecError>;

/// The `EventTrace` enum in the layout `bitness` chooses (LAYOUTS §EVENT_TRACE: 0x58 bytes on
/// both, with the members after `ParentGuid` where the bitness puts them).
fn check_event_trace(data: &[u8], bitness: Bitness, layout: Layout) {
    let len = 0x58;
    let Some(prefix) = data.get(..len) else {
        assert_eq!(
            EventTrace::parse(data, bitness).err(),
            Some(CodecError::Truncated {
                layout,
                needed: len,
                found: data.len(),
            })
        );
        return;
    };
    let bytes: &[u8; 0x58] = prefix.try_into().expect("prefix has 0x58 bytes");
    let value = EventTrace::from_bytes(bytes, bitness);
    assert_eq!(value.bitness(), bitness);
    assert_eq!(value.layout(), layout);
    assert_eq!(&value.to_bytes(), bytes);
    match value {
        EventTrace::Bits32(trace) => model::check_event_trace32(&trace, prefix),
        EventTrace::Bits64(trace) => model::check_event_trace64(&trace, prefix),
    }
    assert_eq!(
        value.mof_data(),
        model::event_trace_mof_data(prefix, bitness)
    );
    let tail = model::event_trace_tail(bitness);
    assert_eq!(value.mof_length(), model::le32(prefix, tail.mof_length_at));
    model::check_buffer_context(&value.buffer_context(), prefix, tail.context_at);
    // "byte-identical to the first 0x48 bytes of the consumer's EVENT_TRACE" (LAYOUTS
    // §EVENT_INSTANCE_GUID_HEADER).
    model::check_event_instance_guid_header(&value.instance_header(), prefix);
    model::check_event_trace_header(&value.header(), prefix);

    let (parsed, rest) = EventTrace::parse(data, bitness).expect("parse of LEN bytes");
    assert_eq!(parsed, value);
    assert_eq!(rest.len(), data.len() - len);
    let mut fresh = [0; 0x58];
    assert!(parsed
        .emit(&mut fresh)
        .expect("emit into LEN bytes")
        .is_empty());
    assert_eq!(&fresh, bytes);
}

/// The `EventInstanceInfo` enum in the layout `bitness` chooses (LAYOUTS §Small structs: 8
/// bytes on i686, 16 on x86_64).
fn check_instance_info(data: &[u8], bitness: Bitness, layout: Layout) {
    let len = match bitness {
        Bitness::Bits32 => 8,
        Bitness::Bits64 => 16,
    };
    match EventInstanceInfo::parse(data, bitness) {
        Ok((info, rest)) => {
            assert!(data.len() >= len);
            assert_eq!(info.bitness(), bitness);
            assert_eq!(info.byte_len(), len);
            assert_eq!(rest.len(), data.len() - len);
            match info {
                EventInstanceInfo::Bits32(info) => model::check_instance_info32(&info, data),
                EventInstanceInfo::Bits64(info) => model::check_instance_info64(&info, data),
            }
            let mut fresh = [0; 16];
            let fresh = &mut fresh[..len];
            assert!(info.emit(fresh).expect("emit into LEN bytes").is_empty());
            assert_eq!(&*fresh, &data[..len]);
        }
        Err(error) => {
            assert!(data.len() < len, "{error:?} for {} bytes", data.len());
            assert_eq!(
                error,
                CodecError::Truncated {
                    layout,
                    needed: len,
                    found: data.len(),
                }
            );
        }
    }
}

/// The `TraceLogfileHeader` enum in the layout `bitness` chooses (`model::LogfileLayout`).
fn check_logfile_header(data: &[u8], bitness: Bitness, layout: Layout) {
    let len = model::logfile_layout(bitness).len;
    let (header, rest) = match TraceLogfileHeader::parse(data, bitness) {
        Ok(parsed) => parsed,
        Err(error) => {
            assert!(data.len() < len, "{error:?} for {} bytes", data.len());
            assert_eq!(
                error,
                CodecError::Truncated {
                    layout,
                    needed: len,
                    found: data.len(),
                }
            );
            return;
        }
    };
    assert_eq!(header.bitness(), bitness);
    assert_eq!(header.layout(), layout);
    assert_eq!(header.byte_len(), len);
    assert_eq!(rest.len(), data.len() - len);
    assert_eq!(rest.as_ptr(), data[len..].as_ptr());
    match (header, bitness) {
        (TraceLogfileHeader::Bits32(h), Bitness::Bits32) => model::check_logfile_header32(&h, data),
        (TraceLogfileHeader::Bits64(h), Bitness::Bits64) => model::check_logfile_header64(&h, data),
        (header, bitness) => panic!("{header:?} parsed as {bitness:?}"),
    }
    assert_eq!(header.buffer_size(), model::le32(data, 0));

    let mut small = [FILL; MAX_LEN];
    let small = &mut small[..len - 1];
    assert_eq!(
        header.emit(small).err(),
        Some(CodecError::OutputTooSmall {
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

/// `LogfileNames` against `model::names` of the same bytes.
fn check_names_of(bytes: &[u8], names: &LogfileNames<'_>) {
    let expected = model::names(bytes);
    assert!(
        names
            .logger_name
            .units()
            .eq(expected.logger.iter().copied()),
        "LoggerName"
    );
    assert!(
        names
            .log_file_name
            .units()
            .eq(expected.file.iter().copied()),
        "LogFileName"
    );
    assert_eq!(names.terminated, expected.terminated, "both NULs found");
    assert_eq!(names.rest.len(), bytes.len() - expected.rest_at, "rest");
    if expected.terminated {
        assert_eq!(
            names.rest.as_ptr(),
            bytes[expected.rest_at..].as_ptr(),
            "rest"
        );
    }
}

/// `TraceLogfileHeader::parse_event` against `model::logfile_event`.
fn check_logfile_event(data: &[u8]) {
    match (
        TraceLogfileHeader::parse_event(data),
        model::logfile_event(data),
    ) {
        (Ok((system, header, names, rest)), Ok(event)) => {
            model::check_system_trace_header(&system, data);
            match (header, event.bitness) {
                (TraceLogfileHeader::Bits32(h), Bitness::Bits32) => {
                    model::check_logfile_header32(&h, event.data)
                }
                (TraceLogfileHeader::Bits64(h), Bitness::Bits64) => {
                    model::check_logfile_header64(&h, event.data)
                }
                (header, bitness) => panic!("{header:?} for a {bitness:?} logger"),
            }
            let names_bytes = &event.data[model::logfile_layout(event.bitness).len..];
            check_names_of(names_bytes, &names);
            assert_eq!(rest.len(), data.len() - event.size);
            assert_eq!(rest.as_ptr(), data[event.size..].as_ptr());
        }
        (Err(error), Err(allowed)) => assert!(
            allowed.contains(&error),
            "TraceLogfileHeader::parse_event: {error:?}, the rules: {allowed:?}"
        ),
        (result, expected) => panic!(
            "TraceLogfileHeader::parse_event gave {:?}, the rules {:?}",
            result.map(|(system, header, _, _)| (system, header)),
            expected.map(|event| event.bitness)
        ),
    }
}

/// `SystemTime` and `TimeZoneInformation`, which have only `from_bytes` and `to_bytes`: members
/// at their offsets, lossless both ways, names up to the first NUL.
fn check_time_zone(data: &[u8]) {
    if let Some(prefix) = data.first_chunk::<16>() {
        let time = SystemTime::from_bytes(prefix);
        model::check_system_time(&time, prefix, 0);
        assert_eq!(&time.to_bytes(), prefix);
        assert_eq!(SystemTime::from_bytes(&time.to_bytes()), time);
    }
    let Some(prefix) = data.first_chunk::<0xAC>() else {
        return;
    };
    let zone = TimeZoneInformation::from_bytes(prefix);
    model::check_time_zone(&zone, prefix, 0);
    assert_eq!(&zone.to_bytes(), prefix);
    assert_eq!(TimeZoneInformation::from_bytes(&zone.to_bytes()), zone);
}

/// The views of `SYSTEM_TRACE_HEADER`'s first eight bytes rebuild the header (EVENT-HEADERS §3:
/// the marker `u32` is Version, HeaderType, Flags; the `WMI_TRACE_PACKET` `u32` is Size, HookId
/// = Type | Group << 8).
fn check_system_views(data: &[u8]) {
    let Some(prefix) = data.first_chunk::<0x20>() else {
        return;
    };
    let system = SystemTraceHeader::from_bytes(prefix);
    let marker = model::le32(prefix, 0);
    let packet = model::le32(prefix, 4);
    let by_views = SystemTraceHeader {
        hook_id: SystemTraceHeader::hook_id_of(prefix[6], prefix[7]),
        ..system
    }
    .with_marker(marker)
    .with_header(packet);
    assert_eq!(by_views, system);
    assert_eq!(
        SystemTraceHeader::hook_id_of(prefix[6], prefix[7]),
        model::le16(prefix, 6)
    );
}

fuzz_target!(|data: &[u8]| {
    check_layout::<EventTraceHeader>(data);
    check_event::<EventTraceHeader>(data, EventTraceHeader::parse_event);
    check_layout::<EventInstanceGuidHeader>(data);
    check_event::<EventInstanceGuidHeader>(data, EventInstanceGuidHeader::parse_event);
    check_layout::<SystemTraceHeader>(data);
    check_event::<SystemTraceHeader>(data, SystemTraceHeader::parse_event);

    check_layout::<EventInstanceHeader>(data);
    check_layout::<EventTrace32>(data);
    check_layout::<EventTrace64>(data);
    check_layout::<EventInstanceInfo32>(data);
    check_layout::<EventInstanceInfo64>(data);
    check_layout::<MofField>(data);
    check_layout::<WmiBufferHeader>(data);
    check_layout::<TraceLogfileHeader32>(data);
    check_layout::<TraceLogfileHeader64>(data);

    check_event_trace(data, Bitness::Bits32, Layout::EventTrace32);
    check_event_trace(data, Bitness::Bits64, Layout::EventTrace64);
    check_instance_info(data, Bitness::Bits32, Layout::EventInstanceInfo32);
    check_instance_info(data, Bitness::Bits64, Layout::EventInstanceInfo64);
    check_logfile_header(data, Bitness::Bits32, Layout::TraceLogfileHeader32);
    check_logfile_header(data, Bitness::Bits64, Layout::TraceLogfileHeader64);
    check_logfile_event(data);
    check_names_of(data, &LogfileNames::parse(data));
    check_time_zone(data);
    check_system_views(data);
});
