//! Reference models of the wire formats, written from the published layouts and rules rather
//! than from the library they check.
//!
//! Sources, cited next to each rule:
//! - "LAYOUTS §…": `shared/reference/LAYOUTS.md` beside the repository (offsets compiled from
//!   mingw-w64 `evntrace.h`, ntwmi.h, the seed documents);
//! - "EVENT-HEADERS §n": `shared/reference/EVENT-HEADERS.md` beside it;
//! - "evntrace.h", "minwinbase.h": the public SDK declarations, for the two structs LAYOUTS.md
//!   does not lay out member by member (`TRACE_LOGFILE_HEADER`, of which it gives the sizes, and
//!   `TIME_ZONE_INFORMATION`);
//! - "[MS-XCA] 2.4.4": the Plain LZ77 decompression pseudo-code of the Xpress Compression
//!   Algorithm specification;
//! - "documented": a choice the library's rustdoc states where the sources above are silent
//!   (for example, what ends a stream that the pseudo-code would read past).
//!
//! Every expected value is computed here with `from_le_bytes` on bytes picked out by offset
//! ("Everything is little-endian on the wire, whatever the host", LAYOUTS intro), without calling
//! into `etw_classic`: the library's functions are called only on the values under test, to
//! compare what they return with the model, and its types appear only as the values compared
//! against, built from their public fields or constructors (`Guid::from_fields`, `HeaderType(u8)`,
//! the `Error` variants).

use etw_classic::{
    read::{BufferPosition, Lz77Error},
    wire::{
        BufferFlags, EventInstanceInfo32, EventInstanceInfo64, EventTrace32, EventTrace64,
        SystemTime, TimeZoneInformation, TraceLogfileHeader32, TraceLogfileHeader64,
    },
    Bitness, Class, CodecError, CompactTraceHeader, EventHeader, EventInstanceGuidHeader,
    EventInstanceHeader, EventTraceHeader, Guid, GuidOrPtr, HeaderType, Layout, MarkerFlags,
    MessageTraceHeader, MofField, PerfInfoTraceHeader, ReadError, ReadErrorKind, SystemTraceHeader,
    TimesOrFlags, WmiBufferHeader,
};

// ---------------------------------------------------------------------------------------------
// Reading bytes (LAYOUTS intro: little-endian on the wire)
// ---------------------------------------------------------------------------------------------

/// The little-endian `u16` at `at`.
pub fn le16(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

/// The little-endian `u32` at `at`.
pub fn le32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// The little-endian `u64` at `at`: the low word first.
pub fn le64(b: &[u8], at: usize) -> u64 {
    u64::from(le32(b, at)) | u64::from(le32(b, at + 4)) << 32
}

/// The little-endian `i64` (`LARGE_INTEGER`) at `at`.
pub fn le_i64(b: &[u8], at: usize) -> i64 {
    i64::from_le_bytes(le64(b, at).to_le_bytes())
}

/// The little-endian `i32` (`LONG`) at `at`.
pub fn le_i32(b: &[u8], at: usize) -> i32 {
    i32::from_le_bytes(le32(b, at).to_le_bytes())
}

/// The `GUID` at `at`: "Data1 u32 LE, Data2 u16 LE, Data3 u16 LE, Data4 8 raw bytes"
/// (LAYOUTS §Small structs).
pub fn guid(b: &[u8], at: usize) -> Guid {
    let mut data4 = [0; 8];
    data4.copy_from_slice(&b[at + 8..at + 16]);
    Guid::from_fields(le32(b, at), le16(b, at + 4), le16(b, at + 6), data4)
}

/// The `N` bytes at `at`, as an array.
fn array<const N: usize>(b: &[u8], at: usize) -> [u8; N] {
    let mut out = [0; N];
    out.copy_from_slice(&b[at..at + N]);
    out
}

// ---------------------------------------------------------------------------------------------
// Constants (LAYOUTS §The first four bytes of a trace header; §Trace buffers and .etl files)
// ---------------------------------------------------------------------------------------------

/// `HeaderType` values (LAYOUTS §The first four bytes, the table).
pub mod header_type {
    /// SYSTEM32, version first, 0x20.
    pub const SYSTEM32: u8 = 0x01;
    /// SYSTEM64, version first, 0x20.
    pub const SYSTEM64: u8 = 0x02;
    /// COMPACT32, version first, 0x18.
    pub const COMPACT32: u8 = 0x03;
    /// COMPACT64, version first, 0x18.
    pub const COMPACT64: u8 = 0x04;
    /// FULL_HEADER32, size first, an EVENT_TRACE_HEADER (0x30).
    pub const FULL_HEADER32: u8 = 0x0A;
    /// INSTANCE32, size first, an EVENT_INSTANCE_GUID_HEADER (0x48).
    pub const INSTANCE32: u8 = 0x0B;
    /// TIMED: "not used".
    pub const TIMED: u8 = 0x0C;
    /// ERROR: size first, no fixed header given.
    pub const ERROR: u8 = 0x0D;
    /// WNODE_HEADER: "not used".
    pub const WNODE_HEADER: u8 = 0x0E;
    /// MESSAGE: size first, 0x08.
    pub const MESSAGE: u8 = 0x0F;
    /// PERFINFO32, version first, 0x10.
    pub const PERFINFO32: u8 = 0x10;
    /// PERFINFO64, version first, 0x10.
    pub const PERFINFO64: u8 = 0x11;
    /// EVENT_HEADER32, size first, 0x50.
    pub const EVENT_HEADER32: u8 = 0x12;
    /// EVENT_HEADER64, size first, 0x50.
    pub const EVENT_HEADER64: u8 = 0x13;
    /// FULL_HEADER64.
    pub const FULL_HEADER64: u8 = 0x14;
    /// INSTANCE64.
    pub const INSTANCE64: u8 = 0x15;
}

/// `TRACE_HEADER_FLAG`, 0x80 in `MarkerFlags` (byte 3): a trace header, not a WNODE (LAYOUTS
/// §The first four bytes).
pub const TRACE_HEADER_FLAG: u8 = 0x80;
/// `TRACE_HEADER_EVENT_TRACE`, 0x40 in `MarkerFlags` (LAYOUTS §The first four bytes).
pub const TRACE_HEADER_EVENT_TRACE: u8 = 0x40;
/// `TRACE_MESSAGE`, 0x10 in byte 3 (ntwmi.h `TRACE_MESSAGE 0x10000000`): a message header, whose
/// byte 2 is reserved and whose header type is the enumeration value MESSAGE (EVENT-HEADERS §4).
pub const TRACE_MESSAGE: u8 = 0x10;

/// Whether `flags` has both bits of the classic marker 0xC0 (LAYOUTS §The first four bytes:
/// `TRACE_HEADER_FULL32 = 0xC00A0000` and its siblings; "marker flags 0xC0 in buffers").
pub fn classic_marker(flags: u8) -> bool {
    let both = TRACE_HEADER_FLAG | TRACE_HEADER_EVENT_TRACE;
    flags & both == both
}

/// The length of a `WMI_BUFFER_HEADER`: "Every buffer starts with a 0x48-byte
/// WMI_BUFFER_HEADER" (LAYOUTS §Trace buffers and .etl files).
pub const BUFFER_HEADER_LEN: usize = 0x48;
/// `DEFAULT_TRACE_ALIGNMENT`: "Events in a buffer are 8-byte aligned" (LAYOUTS §Trace buffers).
pub const ALIGNMENT: usize = 8;
/// `ETW_BUFFER_FLAG_COMPRESSED` in `BufferFlag` (LAYOUTS §Trace buffers).
pub const BUFFER_FLAG_COMPRESSED: u16 = 0x40;
/// The largest logfile `BufferSize` the reader accepts, 16 MiB (documented: `MAX_BUFFER_SIZE`).
pub const MAX_BUFFER_SIZE: usize = 16 << 20;

/// `x` rounded up to the next multiple of [`ALIGNMENT`].
pub fn align(x: usize) -> usize {
    x.div_ceil(ALIGNMENT) * ALIGNMENT
}

/// Where `Size` is and how long the fixed header is, for a header type (LAYOUTS §The first four
/// bytes, the table): "version first" headers hold `Size` as a `u16` at 4, "size first" ones at
/// 0. TIMED, ERROR and WNODE_HEADER have no public layout: "A decoder should surface all three
/// as 'known type, opaque body of `Size` bytes' (size-first framing)" (EVENT-HEADERS §5). Any
/// value missing from the table has no known framing.
pub struct Framing {
    /// Offset of the `u16` `Size`.
    pub size_at: usize,
    /// The fixed header's length, `None` where the table gives none (ERROR).
    pub fixed_len: Option<usize>,
}

/// The framing of `header_type`, `None` for a type the table does not frame.
pub fn framing(header_type: u8) -> Option<Framing> {
    use header_type::*;
    let (size_at, fixed_len) = match header_type {
        SYSTEM32 | SYSTEM64 => (4, Some(0x20)),
        COMPACT32 | COMPACT64 => (4, Some(0x18)),
        PERFINFO32 | PERFINFO64 => (4, Some(0x10)),
        FULL_HEADER32 | FULL_HEADER64 => (0, Some(0x30)),
        INSTANCE32 | INSTANCE64 => (0, Some(0x48)),
        EVENT_HEADER32 | EVENT_HEADER64 => (0, Some(0x50)),
        MESSAGE => (0, Some(0x08)),
        TIMED | ERROR | WNODE_HEADER => (0, None),
        _ => return None,
    };
    Some(Framing { size_at, fixed_len })
}

/// The smallest `Size` an event of this framing may have: its fixed header, and never less than
/// the four marker bytes (documented on `Events`: a smaller `Size` could not move a walk on).
pub fn min_size(framing: &Framing) -> usize {
    framing.fixed_len.unwrap_or(0).max(4)
}

// ---------------------------------------------------------------------------------------------
// The walk of a buffer's events (LAYOUTS §Trace buffers and .etl files, §The first four bytes)
// ---------------------------------------------------------------------------------------------

/// One event as the rules find it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WalkedEvent {
    /// Where it starts, from the start of the bytes walked.
    pub offset: usize,
    /// Its header type (byte 2, or MESSAGE for a message header).
    pub header_type: u8,
    /// Byte 3.
    pub flags: u8,
    /// Its `Size`.
    pub size: u16,
}

/// Walks `bytes` as the events after a buffer header, by the rules alone; returns the events
/// and the error that ends the walk, if any.
///
/// - A walk ends, without an error, where fewer than four bytes are left, or where the four bytes
///   read as a little-endian `u32` are 0xFFFFFFFF: "A u32 0xFFFFFFFF where a header would start
///   marks the end of events" (LAYOUTS §Trace buffers).
/// - Byte 3 must have `TRACE_HEADER_FLAG` (0x80): "a trace header, not a WNODE" (LAYOUTS §The
///   first four bytes).
/// - With `TRACE_MESSAGE` (0x10) in byte 3 the event is a message header, `Size` at 0, fixed
///   header 8 (EVENT-HEADERS §4); otherwise byte 2 is the header type, framed by [`framing`].
/// - `Size` must cover [`min_size`] and lie within the bytes left.
/// - "Events in a buffer are 8-byte aligned": the next event starts at this one's offset plus
///   `Size` rounded up to 8 (LAYOUTS §Trace buffers).
pub fn walk(bytes: &[u8]) -> (Vec<WalkedEvent>, Option<ReadErrorKind>) {
    let mut events = Vec::new();
    let mut at = 0;
    loop {
        if at >= bytes.len() || bytes.len() - at < 4 {
            return (events, None);
        }
        let rest = &bytes[at..];
        if le32(rest, 0) == 0xFFFF_FFFF {
            return (events, None);
        }
        let flags = rest[3];
        if flags & TRACE_HEADER_FLAG == 0 {
            let found = le32(rest, 0);
            return (
                events,
                Some(ReadErrorKind::NotAnEventHeader { offset: at, found }),
            );
        }
        let header_type = if flags & TRACE_MESSAGE != 0 {
            header_type::MESSAGE
        } else {
            rest[2]
        };
        let typed = HeaderType(header_type);
        let Some(framing) = framing(header_type) else {
            let error = ReadErrorKind::UnknownEventHeaderType {
                offset: at,
                header_type: typed,
            };
            return (events, Some(error));
        };
        if rest.len() < framing.size_at + 2 {
            let error = ReadErrorKind::EventHeaderTruncated {
                offset: at,
                header_type: typed,
                needed: framing.size_at + 2,
                available: rest.len(),
            };
            return (events, Some(error));
        }
        let size = le16(rest, framing.size_at);
        let min = min_size(&framing);
        if usize::from(size) < min {
            let error = ReadErrorKind::EventSizeBelowHeader {
                offset: at,
                header_type: typed,
                min_size: min,
                size,
            };
            return (events, Some(error));
        }
        if usize::from(size) > rest.len() {
            let error = ReadErrorKind::EventSizeBeyondBuffer {
                offset: at,
                header_type: typed,
                size,
                available: rest.len(),
            };
            return (events, Some(error));
        }
        events.push(WalkedEvent {
            offset: at,
            header_type,
            flags,
            size,
        });
        at += align(usize::from(size));
    }
}

// ---------------------------------------------------------------------------------------------
// The wire checks of the headers read from trace buffers (LAYOUTS §The first four bytes)
// ---------------------------------------------------------------------------------------------

/// A header that `parse` checks as a trace buffer holds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wire {
    /// `EVENT_TRACE_HEADER`: `FULL_HEADER32`/`FULL_HEADER64`, `Size` at 0, 0x30 bytes.
    Full,
    /// `EVENT_INSTANCE_GUID_HEADER`: `INSTANCE32`/`INSTANCE64`, `Size` at 0, 0x48 bytes.
    Instance,
    /// `SYSTEM_TRACE_HEADER`: `SYSTEM32`/`SYSTEM64`, `Size` at 4 ("version first"), 0x20 bytes.
    System,
    /// `EVENT_HEADER`: `EVENT_HEADER32`/`EVENT_HEADER64`, `Size` at 0, 0x50 bytes (EVENT-HEADERS
    /// §1: marker 0xC0 in byte 3).
    EventHeader,
    /// The compact system header: `COMPACT32`/`COMPACT64`, `Size` at 4, 0x18 bytes
    /// (EVENT-HEADERS §3).
    Compact,
    /// `PERFINFO_TRACE_HEADER`: `PERFINFO32`/`PERFINFO64`, `Size` at 4, 0x10 bytes
    /// (EVENT-HEADERS §3).
    PerfInfo,
}

impl Wire {
    /// The layout's name in errors.
    pub fn layout(self) -> Layout {
        match self {
            Self::Full => Layout::EventTraceHeader,
            Self::Instance => Layout::EventInstanceGuidHeader,
            Self::System => Layout::SystemTraceHeader,
            Self::EventHeader => Layout::EventHeader,
            Self::Compact => Layout::CompactTraceHeader,
            Self::PerfInfo => Layout::PerfInfoTraceHeader,
        }
    }

    /// The header types it is written with: the 32-bit one, then the 64-bit one.
    pub fn types(self) -> [u8; 2] {
        use header_type::*;
        match self {
            Self::Full => [FULL_HEADER32, FULL_HEADER64],
            Self::Instance => [INSTANCE32, INSTANCE64],
            Self::System => [SYSTEM32, SYSTEM64],
            Self::EventHeader => [EVENT_HEADER32, EVENT_HEADER64],
            Self::Compact => [COMPACT32, COMPACT64],
            Self::PerfInfo => [PERFINFO32, PERFINFO64],
        }
    }

    /// The fixed length.
    pub fn header_len(self) -> usize {
        match self {
            Self::Full => 0x30,
            Self::Instance => 0x48,
            Self::System => 0x20,
            Self::EventHeader => 0x50,
            Self::Compact => 0x18,
            Self::PerfInfo => 0x10,
        }
    }

    /// Where `Size` is.
    pub fn size_at(self) -> usize {
        match self {
            Self::System | Self::Compact | Self::PerfInfo => 4,
            Self::Full | Self::Instance | Self::EventHeader => 0,
        }
    }

    /// `Size`, read from the header's bytes.
    pub fn size(self, b: &[u8]) -> u16 {
        le16(b, self.size_at())
    }

    /// What is wrong with the header at the start of `b` (at least `len()` bytes), each as the
    /// error that reports it; empty when `parse` must accept it. The rules: marker flags 0xC0
    /// in byte 3, one of the two header types in byte 2, and a `Size` that covers the header.
    pub fn violations(self, b: &[u8]) -> Vec<CodecError> {
        let layout = self.layout();
        let [type32, type64] = self.types();
        let mut found = Vec::new();
        if !classic_marker(b[3]) {
            found.push(CodecError::NotATraceHeader {
                layout,
                found: MarkerFlags(b[3]),
            });
        }
        if b[2] != type32 && b[2] != type64 {
            found.push(CodecError::WrongHeaderType {
                layout,
                expected_32: HeaderType(type32),
                expected_64: HeaderType(type64),
                found: HeaderType(b[2]),
            });
        }
        let size = self.size(b);
        if usize::from(size) < self.header_len() {
            found.push(CodecError::SizeBelowHeader {
                layout,
                header_len: self.header_len(),
                size,
            });
        }
        found
    }

    /// What `parse` of `input` must give: `Ok` with the header length, or the errors it may
    /// report (any one of them: the rules do not order the checks, except that too few bytes
    /// come first).
    pub fn parse(self, input: &[u8]) -> Result<usize, Vec<CodecError>> {
        if input.len() < self.header_len() {
            return Err(vec![CodecError::Truncated {
                layout: self.layout(),
                needed: self.header_len(),
                found: input.len(),
            }]);
        }
        let violations = self.violations(input);
        if violations.is_empty() {
            Ok(self.header_len())
        } else {
            Err(violations)
        }
    }

    /// What `parse_event` of `input` must give: `Ok(Size)` when the header is valid and `Size`
    /// bytes are there ("Size counts header + event data", LAYOUTS §Rules from the seeds).
    pub fn parse_event(self, input: &[u8]) -> Result<usize, Vec<CodecError>> {
        self.parse(input)?;
        let size = self.size(input);
        if usize::from(size) > input.len() {
            return Err(vec![CodecError::SizeBeyondInput {
                layout: self.layout(),
                size,
                available: input.len(),
            }]);
        }
        Ok(usize::from(size))
    }
}

// ---------------------------------------------------------------------------------------------
// Field by field: each fixed layout against the offsets of its table
// ---------------------------------------------------------------------------------------------

/// `Class` from its four bytes at `at`: "roll-up: byte 0x04 Class.Type, 0x05 Class.Level,
/// 0x06..0x08 Class.Version (u16)", and the `Version` view is the same four bytes as one `u32`
/// (LAYOUTS §EVENT_TRACE_HEADER, row 0x04).
pub fn check_class(class: &Class, b: &[u8], at: usize, what: &str) {
    assert_eq!(class.event_type.0, b[at], "{what}: Class.Type");
    assert_eq!(class.level.0, b[at + 1], "{what}: Class.Level");
    assert_eq!(class.version, le16(b, at + 2), "{what}: Class.Version");
    assert_eq!(class.roll_up(), le32(b, at), "{what}: Version roll-up");
}

/// The `Guid | GuidPtr` union at `at`: a GUID, or a `u64` `GuidPtr` in its first eight bytes
/// (LAYOUTS §EVENT_TRACE_HEADER, row 0x18).
fn check_guid_or_ptr(union: &GuidOrPtr, b: &[u8], at: usize, what: &str) {
    assert_eq!(union.0, array::<16>(b, at), "{what}: Guid union bytes");
    assert_eq!(union.guid(), guid(b, at), "{what}: Guid view");
    assert_eq!(union.guid_ptr(), le64(b, at), "{what}: GuidPtr view");
}

/// The 8-byte union at `at`: `{KernelTime u32, UserTime u32} | ProcessorTime u64 |
/// {ClientContext u32, Flags u32}`, and in `EVENT_INSTANCE_HEADER` `{EventId u32, Flags u32}`
/// (LAYOUTS §EVENT_TRACE_HEADER row 0x28, §EVENT_INSTANCE_HEADER row 0x28).
fn check_times(times: &TimesOrFlags, b: &[u8], at: usize, what: &str) {
    assert_eq!(times.0, array::<8>(b, at), "{what}: union bytes");
    assert_eq!(times.kernel_time(), le32(b, at), "{what}: KernelTime");
    assert_eq!(times.user_time(), le32(b, at + 4), "{what}: UserTime");
    assert_eq!(times.processor_time(), le64(b, at), "{what}: ProcessorTime");
    assert_eq!(times.client_context(), le32(b, at), "{what}: ClientContext");
    assert_eq!(times.event_id(), le32(b, at), "{what}: EventId");
    assert_eq!(times.flags().0, le32(b, at + 4), "{what}: Flags");
}

/// The members 0x00..0x18 that `EVENT_TRACE_HEADER` and `EVENT_INSTANCE_HEADER` share (LAYOUTS
/// §EVENT_TRACE_HEADER rows 0x00..0x10; §EVENT_INSTANCE_HEADER "0x00..0x18 as
/// EVENT_TRACE_HEADER").
#[allow(clippy::too_many_arguments)]
fn check_common(
    what: &str,
    b: &[u8],
    size: u16,
    header_type: HeaderType,
    marker_flags: MarkerFlags,
    class: &Class,
    thread_id: u32,
    process_id: u32,
    timestamp: i64,
) {
    assert_eq!(size, le16(b, 0x00), "{what}: Size");
    assert_eq!(header_type.0, b[0x02], "{what}: HeaderType");
    assert_eq!(marker_flags.0, b[0x03], "{what}: MarkerFlags");
    check_class(class, b, 0x04, what);
    assert_eq!(thread_id, le32(b, 0x08), "{what}: ThreadId");
    assert_eq!(process_id, le32(b, 0x0C), "{what}: ProcessId");
    assert_eq!(timestamp, le_i64(b, 0x10), "{what}: TimeStamp");
}

/// `EVENT_TRACE_HEADER`, 0x30 bytes (LAYOUTS §EVENT_TRACE_HEADER).
pub fn check_event_trace_header(h: &EventTraceHeader, b: &[u8]) {
    let what = "EVENT_TRACE_HEADER";
    check_common(
        what,
        b,
        h.size,
        h.header_type,
        h.marker_flags,
        &h.class,
        h.thread_id,
        h.process_id,
        h.timestamp,
    );
    check_guid_or_ptr(&h.guid, b, 0x18, what);
    check_times(&h.times, b, 0x28, what);
}

/// `EVENT_INSTANCE_HEADER`, 0x38 bytes (LAYOUTS §EVENT_INSTANCE_HEADER).
pub fn check_event_instance_header(h: &EventInstanceHeader, b: &[u8]) {
    let what = "EVENT_INSTANCE_HEADER";
    check_common(
        what,
        b,
        h.size,
        h.header_type,
        h.marker_flags,
        &h.class,
        h.thread_id,
        h.process_id,
        h.timestamp,
    );
    assert_eq!(h.reg_handle, le64(b, 0x18), "{what}: RegHandle");
    assert_eq!(h.instance_id, le32(b, 0x20), "{what}: InstanceId");
    assert_eq!(
        h.parent_instance_id,
        le32(b, 0x24),
        "{what}: ParentInstanceId"
    );
    check_times(&h.times, b, 0x28, what);
    assert_eq!(
        h.parent_reg_handle,
        le64(b, 0x30),
        "{what}: ParentRegHandle"
    );
}

/// The instance members after an `EVENT_TRACE_HEADER`: "InstanceId u32 @0x30, ParentInstanceId
/// u32 @0x34, ParentGuid GUID @0x38..0x48" (LAYOUTS §EVENT_INSTANCE_GUID_HEADER, and the same
/// offsets in §EVENT_TRACE).
fn check_instance_members(instance_id: u32, parent_instance_id: u32, parent_guid: Guid, b: &[u8]) {
    assert_eq!(instance_id, le32(b, 0x30), "InstanceId");
    assert_eq!(parent_instance_id, le32(b, 0x34), "ParentInstanceId");
    assert_eq!(parent_guid, guid(b, 0x38), "ParentGuid");
}

/// `EVENT_INSTANCE_GUID_HEADER`, 0x48 bytes (LAYOUTS §EVENT_INSTANCE_GUID_HEADER): "The first
/// 0x30 bytes are an EVENT_TRACE_HEADER", then the instance members.
pub fn check_event_instance_guid_header(h: &EventInstanceGuidHeader, b: &[u8]) {
    check_event_trace_header(&h.header, b);
    check_instance_members(h.instance_id, h.parent_instance_id, h.parent_guid, b);
}

/// `ETW_BUFFER_CONTEXT` at `at`: "ProcessorNumber u8 @0, Alignment u8 @1 (ProcessorIndex u16
/// @0 in newer headers), LoggerId u16 @2" (LAYOUTS §EVENT_TRACE; EVENT-HEADERS §7).
pub fn check_buffer_context(context: &etw_classic::BufferContext, b: &[u8], at: usize) {
    assert_eq!(context.0, array::<4>(b, at), "ETW_BUFFER_CONTEXT bytes");
    assert_eq!(context.processor_number(), b[at], "ProcessorNumber");
    assert_eq!(context.alignment(), b[at + 1], "Alignment");
    assert_eq!(context.processor_index(), le16(b, at), "ProcessorIndex");
    assert_eq!(context.logger_id(), le16(b, at + 2), "LoggerId");
    assert_eq!(context.client_context(), le32(b, at), "ClientContext");
}

/// Where `EVENT_TRACE`'s members after `ParentGuid` are, by bitness (LAYOUTS §EVENT_TRACE: the
/// pointer `MofData` is 4 bytes on i686 and 8 on x86_64, which moves what follows).
#[derive(Clone, Copy, Debug)]
pub struct EventTraceTail {
    /// `MofData` offset (always 0x48) and width.
    pub mof_data_width: usize,
    /// `MofLength`.
    pub mof_length_at: usize,
    /// `ClientContext | BufferContext`.
    pub context_at: usize,
    /// The i686 tail padding, 0x54..0x58; none on x86_64.
    pub padding_at: Option<usize>,
}

/// The `EVENT_TRACE` table's columns.
pub fn event_trace_tail(bitness: Bitness) -> EventTraceTail {
    match bitness {
        Bitness::Bits32 => EventTraceTail {
            mof_data_width: 4,
            mof_length_at: 0x4C,
            context_at: 0x50,
            padding_at: Some(0x54),
        },
        Bitness::Bits64 => EventTraceTail {
            mof_data_width: 8,
            mof_length_at: 0x50,
            context_at: 0x54,
            padding_at: None,
        },
    }
}

/// `MofData` of an `EVENT_TRACE` of that bitness, read from its bytes.
pub fn event_trace_mof_data(b: &[u8], bitness: Bitness) -> u64 {
    match event_trace_tail(bitness).mof_data_width {
        4 => u64::from(le32(b, 0x48)),
        _ => le64(b, 0x48),
    }
}

/// `EVENT_TRACE`, 32-bit layout (LAYOUTS §EVENT_TRACE, i686 column).
pub fn check_event_trace32(t: &EventTrace32, b: &[u8]) {
    let tail = event_trace_tail(Bitness::Bits32);
    check_event_trace_header(&t.header, b);
    check_instance_members(t.instance_id, t.parent_instance_id, t.parent_guid, b);
    assert_eq!(
        u64::from(t.mof_data),
        event_trace_mof_data(b, Bitness::Bits32)
    );
    assert_eq!(t.mof_length, le32(b, tail.mof_length_at), "MofLength");
    check_buffer_context(&t.buffer_context, b, tail.context_at);
    let padding = tail.padding_at.expect("i686 has tail padding");
    assert_eq!(t.tail_padding, array::<4>(b, padding), "tail padding kept");
}

/// `EVENT_TRACE`, 64-bit layout (LAYOUTS §EVENT_TRACE, x86_64 column).
pub fn check_event_trace64(t: &EventTrace64, b: &[u8]) {
    let tail = event_trace_tail(Bitness::Bits64);
    check_event_trace_header(&t.header, b);
    check_instance_members(t.instance_id, t.parent_instance_id, t.parent_guid, b);
    assert_eq!(t.mof_data, event_trace_mof_data(b, Bitness::Bits64));
    assert_eq!(t.mof_length, le32(b, tail.mof_length_at), "MofLength");
    check_buffer_context(&t.buffer_context, b, tail.context_at);
}

/// `EVENT_INSTANCE_INFO`, i686: "8 bytes: RegHandle 0x0/4, InstanceId 0x4/4" (LAYOUTS §Small
/// structs).
pub fn check_instance_info32(i: &EventInstanceInfo32, b: &[u8]) {
    assert_eq!(i.reg_handle, le32(b, 0), "RegHandle (32-bit)");
    assert_eq!(i.instance_id, le32(b, 4), "InstanceId");
}

/// `EVENT_INSTANCE_INFO`, x86_64: "16 bytes: RegHandle 0x0/8, InstanceId 0x8/4, padding
/// 0xC..0x10" (LAYOUTS §Small structs), the padding kept as read (LAYOUTS §Small structs,
/// "a value decoded from bytes keeps what it read").
pub fn check_instance_info64(i: &EventInstanceInfo64, b: &[u8]) {
    assert_eq!(i.reg_handle, le64(b, 0), "RegHandle (64-bit)");
    assert_eq!(i.instance_id, le32(b, 8), "InstanceId");
    assert_eq!(i.tail_padding, array::<4>(b, 0xC), "padding kept");
}

/// `MOF_FIELD {ULONG64 DataPtr; ULONG Length; ULONG DataType}`, 16 bytes on both (LAYOUTS
/// §Small structs).
pub fn check_mof_field(m: &MofField, b: &[u8]) {
    assert_eq!(m.data_ptr, le64(b, 0), "DataPtr");
    assert_eq!(m.length, le32(b, 8), "Length");
    assert_eq!(m.data_type, le32(b, 0xC), "DataType");
}

/// `WMI_BUFFER_HEADER`, 0x48 bytes on both: "BufferSize u32 @0, SavedOffset u32 @4,
/// CurrentOffset u32 @8, ReferenceCount @0x0C, TimeStamp i64 @0x10, SequenceNumber i64 @0x18,
/// clock/frequency @0x20, ClientContext (ETW_BUFFER_CONTEXT) @0x28, State u32 @0x2C, Offset u32
/// @0x30, BufferFlag u16 @0x34, BufferType u16 @0x36, then reference time" (LAYOUTS §Trace
/// buffers; the reference time is 16 bytes, EVENT-HEADERS §6).
pub fn check_wmi_buffer_header(h: &WmiBufferHeader, b: &[u8]) {
    assert_eq!(h.buffer_size, le32(b, 0x00), "BufferSize");
    assert_eq!(h.saved_offset, le32(b, 0x04), "SavedOffset");
    assert_eq!(h.current_offset, le32(b, 0x08), "CurrentOffset");
    assert_eq!(h.reference_count, le_i32(b, 0x0C), "ReferenceCount");
    assert_eq!(h.timestamp, le_i64(b, 0x10), "TimeStamp");
    assert_eq!(h.sequence_number, le_i64(b, 0x18), "SequenceNumber");
    assert_eq!(h.clock_or_link, le64(b, 0x20), "clock/frequency");
    check_buffer_context(&h.client_context, b, 0x28);
    assert_eq!(h.state, le32(b, 0x2C), "State");
    assert_eq!(h.offset, le32(b, 0x30), "Offset");
    assert_eq!(h.buffer_flag.0, le16(b, 0x34), "BufferFlag");
    assert_eq!(h.buffer_type.0, le16(b, 0x36), "BufferType");
    assert_eq!(h.reference_time, array::<16>(b, 0x38), "ReferenceTime");
    assert_eq!(
        h.is_compressed(),
        le16(b, 0x34) & BUFFER_FLAG_COMPRESSED != 0,
        "ETW_BUFFER_FLAG_COMPRESSED"
    );
}

/// `SYSTEM_TRACE_HEADER`, 0x20 bytes: "u16 Version @0, type @2, flags @3, Size u16 @4, HookId
/// @6" (LAYOUTS §The first four bytes, SYSTEM row), then "ThreadId u32 @8, ProcessId u32 @0xC,
/// SystemTime i64 @0x10, KernelTime u32 @0x18, UserTime u32 @0x1C", and HookId "= Type u8 @6 |
/// Group u8 @7" (EVENT-HEADERS §3).
pub fn check_system_trace_header(h: &SystemTraceHeader, b: &[u8]) {
    assert_eq!(h.version, le16(b, 0x00), "Version");
    assert_eq!(h.header_type.0, b[0x02], "HeaderType");
    assert_eq!(h.flags.0, b[0x03], "Flags");
    assert_eq!(h.size, le16(b, 0x04), "Size");
    assert_eq!(h.hook_id, le16(b, 0x06), "HookId");
    assert_eq!(h.thread_id, le32(b, 0x08), "ThreadId");
    assert_eq!(h.process_id, le32(b, 0x0C), "ProcessId");
    assert_eq!(h.system_time, le_i64(b, 0x10), "SystemTime");
    assert_eq!(h.kernel_time, le32(b, 0x18), "KernelTime");
    assert_eq!(h.user_time, le32(b, 0x1C), "UserTime");
    // The two u32 views of the first eight bytes (the marker and the WMI_TRACE_PACKET).
    assert_eq!(h.marker(), le32(b, 0x00), "Marker view");
    assert_eq!(h.header(), le32(b, 0x04), "Header view");
    assert_eq!((h.hook_type(), h.hook_group()), (b[6], b[7]), "Type, Group");
}

// ---------------------------------------------------------------------------------------------
// EVENT_HEADER and its extended data items (EVENT-HEADERS §1 and §2)
// ---------------------------------------------------------------------------------------------

/// `EVENT_HEADER`, 0x50 bytes (EVENT-HEADERS §1, the table): Size u16 @0, HeaderType @2,
/// MarkerFlags @3, Flags u16 @4, EventProperty u16 @6, ThreadId @8, ProcessId @0xC, TimeStamp
/// i64 @0x10, ProviderId GUID @0x18, EventDescriptor {Id u16 @0x28, Version @0x2A, Channel
/// @0x2B, Level @0x2C, Opcode @0x2D, Task u16 @0x2E, Keyword u64 @0x30}, KernelTime u32 @0x38,
/// UserTime u32 @0x3C (ProcessorTime u64 @0x38), ActivityId GUID @0x40.
pub fn check_event_header(h: &EventHeader, b: &[u8]) {
    assert_eq!(h.size, le16(b, 0x00), "Size");
    assert_eq!(h.header_type.0, b[0x02], "HeaderType");
    assert_eq!(h.marker_flags.0, b[0x03], "MarkerFlags");
    assert_eq!(h.flags.0, le16(b, 0x04), "Flags");
    assert_eq!(h.event_property.0, le16(b, 0x06), "EventProperty");
    assert_eq!(h.thread_id, le32(b, 0x08), "ThreadId");
    assert_eq!(h.process_id, le32(b, 0x0C), "ProcessId");
    assert_eq!(h.timestamp, le_i64(b, 0x10), "TimeStamp");
    assert_eq!(h.provider_id, guid(b, 0x18), "ProviderId");
    let d = &h.event_descriptor;
    assert_eq!(d.id, le16(b, 0x28), "Id");
    assert_eq!(
        (d.version, d.channel, d.level.0, d.opcode),
        (b[0x2A], b[0x2B], b[0x2C], b[0x2D]),
        "Version, Channel, Level, Opcode"
    );
    assert_eq!(d.task, le16(b, 0x2E), "Task");
    assert_eq!(d.keyword, le64(b, 0x30), "Keyword");
    assert_eq!(h.times.kernel_time(), le32(b, 0x38), "KernelTime");
    assert_eq!(h.times.user_time(), le32(b, 0x3C), "UserTime");
    assert_eq!(h.times.processor_time(), le64(b, 0x38), "ProcessorTime");
    assert_eq!(h.activity_id, guid(b, 0x40), "ActivityId");
}

/// An extended data item as the rules read it: where it starts in the event, its size, type,
/// linkage word and `DataSize` (EVENT-HEADERS §2, the item table).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ModelItem {
    pub offset: usize,
    pub item_size: usize,
    pub ext_type: u16,
    pub linkage: u16,
    pub data_size: usize,
}

/// How a walk over the items ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ItemsEnd {
    /// The last item (Linkage bit 0) was read; the user data starts at this offset of the bytes
    /// after the header.
    UserData(usize),
    /// The item at this index and event offset breaks a rule.
    Fault {
        index: usize,
        offset: usize,
        fault: etw_classic::wire::ExtendedItemFault,
    },
}

/// The items after a header with `flags`, in `body` (the event's bytes after its 0x50-byte
/// header, up to `Size`), by EVENT-HEADERS §2: none without EXTENDED_INFO (0x0001); otherwise
/// the first at event offset 0x50, each next one at the previous one plus its size, ending with
/// the item whose Linkage bit (bit 0 of the u16 @4) is 0; "A decoder must check that every item
/// lies inside Size". The faults, in the order the library documents its checks: fewer than 8
/// bytes for the item's header, an item size below 8, a `DataSize` beyond the item size less 8,
/// an item past `Size`.
pub fn extended_items(flags: u16, body: &[u8]) -> (Vec<ModelItem>, ItemsEnd) {
    use etw_classic::wire::ExtendedItemFault as F;
    let mut items = Vec::new();
    if flags & 0x0001 == 0 {
        return (items, ItemsEnd::UserData(0));
    }
    let mut at = 0;
    loop {
        let (index, offset, available) = (items.len(), 0x50 + at, body.len() - at);
        let fault = |fault| ItemsEnd::Fault {
            index,
            offset,
            fault,
        };
        if available < 8 {
            return (items, fault(F::HeaderBeyondEvent { available }));
        }
        let item_size = le16(body, at);
        let data_size = le16(body, at + 6);
        if item_size < 8 {
            return (items, fault(F::ItemSizeBelowHeader { item_size }));
        }
        if data_size > item_size - 8 {
            return (
                items,
                fault(F::DataSizeBeyondItem {
                    data_size,
                    item_size,
                }),
            );
        }
        if usize::from(item_size) > available {
            return (
                items,
                fault(F::ItemBeyondEvent {
                    item_size,
                    available,
                }),
            );
        }
        let linkage = le16(body, at + 4);
        items.push(ModelItem {
            offset,
            item_size: usize::from(item_size),
            ext_type: le16(body, at + 2),
            linkage,
            data_size: usize::from(data_size),
        });
        at += usize::from(item_size);
        if linkage & 1 == 0 {
            return (items, ItemsEnd::UserData(at));
        }
    }
}

/// Whether an item's data of type `ext_type` has a length its type accepts (EVENT-HEADERS §2,
/// the type table): a GUID (16) for RELATED_ACTIVITYID; a u32 for TS_ID; 24 bytes for
/// INSTANCE_INFO; MatchId u64 then whole u32 or u64 addresses for STACK_TRACE32/64; one u64 for
/// PEBS_INDEX, EVENT_KEY and PROCESS_START_KEY; whole u64s for PMC_COUNTERS; 16 bytes for
/// STACK_KEY32/64; a SID of 8 + 4 x SubAuthorityCount (byte 1) bytes at most `DataSize`; provider
/// traits whose u16 size is 3..=DataSize with a NUL-terminated name and traits of
/// {u16 size >= 3, u8 type} filling the rest of that size; anything for the other types.
pub fn payload_fits(ext_type: u16, data: &[u8]) -> bool {
    let n = data.len();
    match ext_type {
        0x01 => n == 16,
        0x02 => n >= 8 && 8 + 4 * usize::from(data[1]) <= n,
        0x03 => n == 4,
        0x04 => n == 24,
        0x05 => n >= 8 && (n - 8).is_multiple_of(4),
        0x06 => n >= 8 && (n - 8).is_multiple_of(8),
        0x07 | 0x0A | 0x0D => n == 8,
        0x08 => n.is_multiple_of(8),
        0x0C => provider_traits_fit(data),
        0x11 | 0x12 => n == 16,
        _ => true,
    }
}

fn provider_traits_fit(data: &[u8]) -> bool {
    if data.len() < 3 {
        return false;
    }
    let size = usize::from(le16(data, 0));
    if size < 3 || size > data.len() {
        return false;
    }
    let Some(nul) = data[2..size].iter().position(|&byte| byte == 0) else {
        return false;
    };
    let mut at = 2 + nul + 1;
    while at < size {
        if size - at < 3 {
            return false;
        }
        let trait_size = usize::from(le16(data, at));
        if trait_size < 3 || trait_size > size - at {
            return false;
        }
        at += trait_size;
    }
    true
}

/// The eight bytes every version-first header starts with: "Version u16 @0, HeaderType u8 @2,
/// Flags (MarkerFlags, 0xC0) u8 @3, then WMI_TRACE_PACKET {Size u16 @4, HookId u16 @6 = Type u8
/// @6 | Group u8 @7}" (EVENT-HEADERS §3), and the two `u32` views of them.
macro_rules! check_version_first_prefix {
    ($h:expr, $b:expr) => {{
        let (h, b) = ($h, $b);
        assert_eq!(h.version, le16(b, 0x00), "Version");
        assert_eq!(h.header_type.0, b[0x02], "HeaderType");
        assert_eq!(h.flags.0, b[0x03], "Flags");
        assert_eq!(h.size, le16(b, 0x04), "Size");
        assert_eq!(h.hook_id, le16(b, 0x06), "HookId");
        assert_eq!(h.marker(), le32(b, 0x00), "Marker view");
        assert_eq!(h.header(), le32(b, 0x04), "Header view");
        assert_eq!((h.hook_type(), h.hook_group()), (b[6], b[7]), "Type, Group");
        assert_eq!(
            (h.hook().event_type().0, h.hook().group().0),
            (b[6], b[7]),
            "HookId"
        );
    }};
}

/// The compact system header, 0x18 bytes: the version-first prefix, then "ThreadId u32 @8,
/// ProcessId u32 @0xC, SystemTime i64 @0x10" (EVENT-HEADERS §3, the COMPACT row).
pub fn check_compact_header(h: &CompactTraceHeader, b: &[u8]) {
    check_version_first_prefix!(h, b);
    assert_eq!(h.thread_id, le32(b, 0x08), "ThreadId");
    assert_eq!(h.process_id, le32(b, 0x0C), "ProcessId");
    assert_eq!(h.system_time, le_i64(b, 0x10), "SystemTime");
}

/// `PERFINFO_TRACE_HEADER`, 0x10 bytes: the version-first prefix, then "SystemTime i64" @8
/// (EVENT-HEADERS §3, the PERFINFO row).
pub fn check_perfinfo_header(h: &PerfInfoTraceHeader, b: &[u8]) {
    check_version_first_prefix!(h, b);
    assert_eq!(h.system_time, le_i64(b, 0x08), "SystemTime");
}

/// `MESSAGE_TRACE_HEADER`, 8 bytes: "Size u16 @0, Reserved u8 @2, Version u8 @3,
/// MessageNumber u16 @4, OptionFlags u16 @6" (EVENT-HEADERS §4).
pub fn check_message_header(h: &MessageTraceHeader, b: &[u8]) {
    assert_eq!(h.size, le16(b, 0), "Size");
    assert_eq!(h.reserved, b[2], "Reserved");
    assert_eq!(h.version.0, b[3], "Version");
    assert_eq!(h.message_number, le16(b, 4), "MessageNumber");
    assert_eq!(h.option_flags.0, le16(b, 6), "OptionFlags");
    assert_eq!(h.marker(), le32(b, 0), "Marker view");
    assert_eq!(h.header(), le32(b, 4), "Header view");
}

/// What `MessageTraceHeader::parse` of `input` must give: `Ok(8)`, or the one error the rules
/// give: too few bytes, then byte 3 without 0x90 ("dissect and airbus recognize the message
/// header by byte 3 == 0x90"; the walk by `TRACE_HEADER_FLAG` and `TRACE_MESSAGE`, documented:
/// both bits), then a `Size` under 8 (EVENT-HEADERS §4: Size "whole event incl. header").
pub fn message_parse(input: &[u8]) -> Result<usize, CodecError> {
    let layout = Layout::MessageTraceHeader;
    if input.len() < 8 {
        return Err(CodecError::Truncated {
            layout,
            needed: 8,
            found: input.len(),
        });
    }
    if input[3] & 0x90 != 0x90 {
        return Err(CodecError::NotAMessageHeader {
            layout,
            found: MarkerFlags(input[3]),
        });
    }
    let size = le16(input, 0);
    if size < 8 {
        return Err(CodecError::SizeBelowHeader {
            layout,
            header_len: 8,
            size,
        });
    }
    Ok(8)
}

/// The extra words after a version-first header whose `Version` is `version`, from `body` (the
/// bytes after the fixed header up to `Size`): "0x8000 TRACE_HEADER_PEBS_INDEX_FLAG: one u64
/// PEBS index follows the fixed header; 0x0700 (shift 8) TRACE_HEADER_PMC_COUNTERS_MASK: that
/// many (0..7) u64 PMC counter values follow"; "PEBS u64 first (if flagged), then the PMC u64s.
/// The event data starts at fixed size + 8·(PEBS) + 8·count, and Size still covers everything"
/// (EVENT-HEADERS §3). Read after all three version-first headers (documented: dissect.etl's
/// reading). Returns the PEBS index, the counters and the length of the words, or the error for
/// words that do not fit.
pub fn extra_words(
    layout: Layout,
    version: u16,
    body: &[u8],
) -> Result<(Option<u64>, Vec<u64>, usize), CodecError> {
    let pebs = version & 0x8000 != 0;
    let count = usize::from((version & 0x0700) >> 8);
    let len = 8 * (usize::from(pebs) + count);
    if len > body.len() {
        return Err(CodecError::AnnouncedBeyondSize {
            layout,
            member: "Version",
            needed: len,
            available: body.len(),
        });
    }
    let first_counter = if pebs { 8 } else { 0 };
    let counters = (0..count)
        .map(|i| le64(body, first_counter + 8 * i))
        .collect();
    Ok((pebs.then(|| le64(body, 0)), counters, len))
}

/// The optional fields of a message, as the model reads them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ModelFields {
    pub sequence: Option<u32>,
    pub guid: Option<Guid>,
    pub component_id: Option<u32>,
    pub timestamp: Option<i64>,
    pub thread_and_process: Option<(u32, u32)>,
}

/// The optional fields after a message header with `OptionFlags` `flags`, from `data` (the
/// bytes after the header up to `Size`), "in this fixed order and appear only when their flag
/// is set": SEQUENCE 0x01 u32, GUID 0x02 16 bytes or COMPONENTID 0x04 u32 ("exclusive with
/// GUID"; when both are set the component id, documented from the Windows Research Kernel's
/// writer), TIMESTAMP 0x08 i64, SYSTEMINFO 0x20 "ThreadId then ProcessId, u32 + u32"; "No
/// padding between fields" (EVENT-HEADERS §4). Returns the fields and their length, or the
/// error for fields that do not fit.
pub fn message_fields(flags: u16, data: &[u8]) -> Result<(ModelFields, usize), CodecError> {
    let mut len = 0;
    let mut fields = ModelFields::default();
    let mut read = |n: usize| {
        let at = len;
        len += n;
        (len <= data.len()).then_some(at)
    };
    let mut fits = true;
    if flags & 0x01 != 0 {
        match read(4) {
            Some(at) => fields.sequence = Some(le32(data, at)),
            None => fits = false,
        }
    }
    if flags & 0x04 != 0 {
        match read(4) {
            Some(at) => fields.component_id = Some(le32(data, at)),
            None => fits = false,
        }
    } else if flags & 0x02 != 0 {
        match read(16) {
            Some(at) => fields.guid = Some(guid(data, at)),
            None => fits = false,
        }
    }
    if flags & 0x08 != 0 {
        match read(8) {
            Some(at) => fields.timestamp = Some(le_i64(data, at)),
            None => fits = false,
        }
    }
    if flags & 0x20 != 0 {
        match read(8) {
            Some(at) => fields.thread_and_process = Some((le32(data, at), le32(data, at + 4))),
            None => fits = false,
        }
    }
    if !fits {
        return Err(CodecError::AnnouncedBeyondSize {
            layout: Layout::MessageTraceHeader,
            member: "OptionFlags",
            needed: len,
            available: data.len(),
        });
    }
    Ok((fields, len))
}

/// `SYSTEMTIME`: eight `WORD`s, wYear, wMonth, wDayOfWeek, wDay, wHour, wMinute, wSecond,
/// wMilliseconds (minwinbase.h), 16 bytes.
pub fn check_system_time(t: &SystemTime, b: &[u8], at: usize) {
    let words = [
        t.year,
        t.month,
        t.day_of_week,
        t.day,
        t.hour,
        t.minute,
        t.second,
        t.milliseconds,
    ];
    for (index, word) in words.into_iter().enumerate() {
        assert_eq!(word, le16(b, at + 2 * index), "SYSTEMTIME word {index}");
    }
}

/// `TIME_ZONE_INFORMATION` at `at` (minwinbase.h, 0xAC bytes): `LONG Bias` @0, `WCHAR
/// StandardName[32]` @4, `SYSTEMTIME StandardDate` @0x44, `LONG StandardBias` @0x54, `WCHAR
/// DaylightName[32]` @0x58, `SYSTEMTIME DaylightDate` @0x98, `LONG DaylightBias` @0xA8.
pub fn check_time_zone(z: &TimeZoneInformation, b: &[u8], at: usize) {
    assert_eq!(z.bias, le_i32(b, at), "Bias");
    for index in 0..32 {
        assert_eq!(
            z.standard_name[index],
            le16(b, at + 4 + 2 * index),
            "StandardName"
        );
        assert_eq!(
            z.daylight_name[index],
            le16(b, at + 0x58 + 2 * index),
            "DaylightName"
        );
    }
    check_system_time(&z.standard_date, b, at + 0x44);
    assert_eq!(z.standard_bias, le_i32(b, at + 0x54), "StandardBias");
    check_system_time(&z.daylight_date, b, at + 0x98);
    assert_eq!(z.daylight_bias, le_i32(b, at + 0xA8), "DaylightBias");
    // The names as text stop at the first NUL, or take all 32 units.
    for (text, start) in [(z.standard_name_str(), 4), (z.daylight_name_str(), 0x58)] {
        let units: Vec<u16> = (0..32).map(|i| le16(b, at + start + 2 * i)).collect();
        let end = units.iter().position(|&unit| unit == 0).unwrap_or(32);
        assert!(
            text.units().eq(units[..end].iter().copied()),
            "name up to NUL"
        );
    }
}

/// Offsets of a `TRACE_LOGFILE_HEADER` layout.
///
/// evntrace.h declares, in order: `ULONG BufferSize`; `union { ULONG Version; struct { UCHAR
/// MajorVersion, MinorVersion, SubVersion, SubMinorVersion } VersionDetail }`; `ULONG
/// ProviderVersion`, `NumberOfProcessors`; `LARGE_INTEGER EndTime`; `ULONG TimerResolution`,
/// `MaximumFileSize`, `LogFileMode`, `BuffersWritten`; `union { GUID LogInstanceGuid; struct {
/// ULONG StartBuffers, PointerSize, EventsLost, CpuSpeedInMHz } }`; `LPWSTR LoggerName`,
/// `LogFileName`; `TIME_ZONE_INFORMATION TimeZone` (0xAC); `LARGE_INTEGER BootTime`,
/// `PerfFreq`, `StartTime`; `ULONG ReservedFlags`, `BuffersLost`. With 4- or 8-byte pointers and
/// `LARGE_INTEGER` aligned to 8 on both ABIs, the members up to the pointers sit alike, the
/// pointers move what follows, 4 bytes of padding precede `BootTime`, and the totals are the
/// 0x110 and 0x118 of LAYOUTS §Small structs. EVENT-HEADERS §6 quotes the compiled offsets of
/// `CpuSpeedInMHz` (0x34), `PerfFreq` (0xF8 / 0x100), `StartTime` (0x100 / 0x108) and
/// `ReservedFlags` (0x108 / 0x110), which these agree with.
#[derive(Clone, Copy, Debug)]
pub struct LogfileLayout {
    /// The pointer width.
    pub pointer: usize,
    /// `LogFileName` (`LoggerName` is at 0x38 in both).
    pub log_file_name: usize,
    /// `TimeZone`.
    pub time_zone: usize,
    /// The padding before `BootTime`.
    pub padding: usize,
    /// `BootTime`; `PerfFreq` and `StartTime` follow at +8 and +0x10, `ReservedFlags` and
    /// `BuffersLost` at +0x18 and +0x1C.
    pub boot_time: usize,
    /// The whole struct.
    pub len: usize,
}

/// The `TRACE_LOGFILE_HEADER` layout of a logger of that bitness.
pub fn logfile_layout(bitness: Bitness) -> LogfileLayout {
    match bitness {
        Bitness::Bits32 => LogfileLayout {
            pointer: 4,
            log_file_name: 0x3C,
            time_zone: 0x40,
            padding: 0xEC,
            boot_time: 0xF0,
            len: 0x110,
        },
        Bitness::Bits64 => LogfileLayout {
            pointer: 8,
            log_file_name: 0x40,
            time_zone: 0x48,
            padding: 0xF4,
            boot_time: 0xF8,
            len: 0x118,
        },
    }
}

/// A pointer member of `width` bytes at `at`.
fn pointer(b: &[u8], at: usize, width: usize) -> u64 {
    match width {
        4 => u64::from(le32(b, at)),
        _ => le64(b, at),
    }
}

/// The members of both `TRACE_LOGFILE_HEADER` layouts, as one list of (name, value) pairs, so
/// that the two structs are checked by the same code.
#[derive(Clone, Copy, Debug)]
pub struct LogfileMembers<'a> {
    /// `BufferSize`.
    pub buffer_size: u32,
    /// `Version` as its four `VersionDetail` bytes.
    pub version: [u8; 4],
    /// `ProviderVersion`.
    pub provider_version: u32,
    /// `NumberOfProcessors`.
    pub number_of_processors: u32,
    /// `EndTime`.
    pub end_time: i64,
    /// `TimerResolution`.
    pub timer_resolution: u32,
    /// `MaximumFileSize`.
    pub maximum_file_size: u32,
    /// `LogFileMode`.
    pub log_file_mode: u32,
    /// `BuffersWritten`.
    pub buffers_written: u32,
    /// The `LogInstanceGuid` union's bytes.
    pub log_instance: &'a etw_classic::wire::LogInstance,
    /// `LoggerName`.
    pub logger_name: u64,
    /// `LogFileName`.
    pub log_file_name: u64,
    /// `TimeZone`.
    pub time_zone: &'a TimeZoneInformation,
    /// The padding before `BootTime`.
    pub padding: [u8; 4],
    /// `BootTime`.
    pub boot_time: i64,
    /// `PerfFreq`.
    pub perf_freq: i64,
    /// `StartTime`.
    pub start_time: i64,
    /// `ReservedFlags`.
    pub reserved_flags: u32,
    /// `BuffersLost`.
    pub buffers_lost: u32,
}

macro_rules! logfile_members {
    ($h:expr) => {
        LogfileMembers {
            buffer_size: $h.buffer_size,
            version: [
                $h.version.major_version,
                $h.version.minor_version,
                $h.version.sub_version,
                $h.version.sub_minor_version,
            ],
            provider_version: $h.provider_version,
            number_of_processors: $h.number_of_processors,
            end_time: $h.end_time,
            timer_resolution: $h.timer_resolution,
            maximum_file_size: $h.maximum_file_size,
            log_file_mode: $h.log_file_mode,
            buffers_written: $h.buffers_written,
            log_instance: &$h.log_instance,
            logger_name: u64::from($h.logger_name),
            log_file_name: u64::from($h.log_file_name),
            time_zone: &$h.time_zone,
            padding: $h.padding,
            boot_time: $h.boot_time,
            perf_freq: $h.perf_freq,
            start_time: $h.start_time,
            reserved_flags: $h.reserved_flags.0,
            buffers_lost: $h.buffers_lost,
        }
    };
}

/// `TRACE_LOGFILE_HEADER`, 32-bit layout (see [`LogfileLayout`]).
pub fn check_logfile_header32(h: &TraceLogfileHeader32, b: &[u8]) {
    check_logfile_members(&logfile_members!(h), b, Bitness::Bits32);
}

/// `TRACE_LOGFILE_HEADER`, 64-bit layout (see [`LogfileLayout`]).
pub fn check_logfile_header64(h: &TraceLogfileHeader64, b: &[u8]) {
    check_logfile_members(&logfile_members!(h), b, Bitness::Bits64);
}

fn check_logfile_members(m: &LogfileMembers<'_>, b: &[u8], bitness: Bitness) {
    let layout = logfile_layout(bitness);
    assert_eq!(m.buffer_size, le32(b, 0x00), "BufferSize");
    assert_eq!(m.version, array::<4>(b, 0x04), "VersionDetail bytes");
    assert_eq!(m.provider_version, le32(b, 0x08), "ProviderVersion");
    assert_eq!(m.number_of_processors, le32(b, 0x0C), "NumberOfProcessors");
    assert_eq!(m.end_time, le_i64(b, 0x10), "EndTime");
    assert_eq!(m.timer_resolution, le32(b, 0x18), "TimerResolution");
    assert_eq!(m.maximum_file_size, le32(b, 0x1C), "MaximumFileSize");
    assert_eq!(m.log_file_mode, le32(b, 0x20), "LogFileMode");
    assert_eq!(m.buffers_written, le32(b, 0x24), "BuffersWritten");
    let instance = m.log_instance;
    assert_eq!(instance.0, array::<16>(b, 0x28), "LogInstanceGuid bytes");
    assert_eq!(
        instance.log_instance_guid(),
        guid(b, 0x28),
        "LogInstanceGuid"
    );
    assert_eq!(instance.start_buffers(), le32(b, 0x28), "StartBuffers");
    assert_eq!(instance.pointer_size(), le32(b, 0x2C), "PointerSize");
    assert_eq!(instance.events_lost(), le32(b, 0x30), "EventsLost");
    assert_eq!(instance.cpu_speed_in_mhz(), le32(b, 0x34), "CpuSpeedInMHz");
    assert_eq!(
        m.logger_name,
        pointer(b, 0x38, layout.pointer),
        "LoggerName"
    );
    assert_eq!(
        m.log_file_name,
        pointer(b, layout.log_file_name, layout.pointer),
        "LogFileName"
    );
    check_time_zone(m.time_zone, b, layout.time_zone);
    assert_eq!(m.padding, array::<4>(b, layout.padding), "padding kept");
    assert_eq!(m.boot_time, le_i64(b, layout.boot_time), "BootTime");
    assert_eq!(m.perf_freq, le_i64(b, layout.boot_time + 8), "PerfFreq");
    assert_eq!(
        m.start_time,
        le_i64(b, layout.boot_time + 0x10),
        "StartTime"
    );
    assert_eq!(
        m.reserved_flags,
        le32(b, layout.boot_time + 0x18),
        "ReservedFlags"
    );
    assert_eq!(
        m.buffers_lost,
        le32(b, layout.boot_time + 0x1C),
        "BuffersLost"
    );
    assert_eq!(layout.boot_time + 0x20, layout.len);
}

// ---------------------------------------------------------------------------------------------
// The logfile header event and the names after it
// ---------------------------------------------------------------------------------------------

/// The two names after a `TRACE_LOGFILE_HEADER`: NUL-terminated UTF-16 ("The strings follow the
/// struct", EVENT-HEADERS §6), read as little-endian code units.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Names {
    /// `LoggerName`'s code units, without the NUL.
    pub logger: Vec<u16>,
    /// `LogFileName`'s code units, without the NUL.
    pub file: Vec<u16>,
    /// Whether both names ended with a NUL.
    pub terminated: bool,
    /// Where the bytes after the second NUL start (the input's length when it is missing).
    pub rest_at: usize,
}

/// Reads one NUL-terminated name from `at`; returns its units and where the bytes after its
/// NUL start, `None` when the input ends first (a last odd byte is no code unit).
fn name(b: &[u8], mut at: usize) -> (Vec<u16>, Option<usize>) {
    let mut units = Vec::new();
    while at + 2 <= b.len() {
        let unit = le16(b, at);
        at += 2;
        if unit == 0 {
            return (units, Some(at));
        }
        units.push(unit);
    }
    (units, None)
}

/// The names in `b`; missing ones are empty.
pub fn names(b: &[u8]) -> Names {
    let (logger, after_logger) = name(b, 0);
    let Some(after_logger) = after_logger else {
        return Names {
            logger,
            file: Vec::new(),
            terminated: false,
            rest_at: b.len(),
        };
    };
    let (file, after_file) = name(b, after_logger);
    Names {
        logger,
        file,
        terminated: after_file.is_some(),
        rest_at: after_file.unwrap_or(b.len()),
    }
}

/// The logfile header event, as the rules split it.
#[derive(Clone, Copy, Debug)]
pub struct LogfileEvent<'a> {
    /// The logger's bitness: `SYSTEM32` or `SYSTEM64` (LAYOUTS §Trace buffers: "marker
    /// 0xC0010002 for a 32-bit, 0xC0020002 for a 64-bit logger").
    pub bitness: Bitness,
    /// The event's `Size`.
    pub size: usize,
    /// The `TRACE_LOGFILE_HEADER`'s bytes and the names' after it, up to `Size`.
    pub data: &'a [u8],
}

/// `TraceLogfileHeader::parse_event` by the rules: the first event of an .etl file is a SYSTEM
/// header "carrying TRACE_LOGFILE_HEADER" (LAYOUTS §Trace buffers) with `HookId` 0
/// (`WMI_LOG_TYPE_HEADER`, ntwmi.h), the struct in the layout its header type names, then the
/// names, all within `Size`. Returns the errors any one of which the library may report.
pub fn logfile_event(input: &[u8]) -> Result<LogfileEvent<'_>, Vec<CodecError>> {
    let size = Wire::System.parse_event(input)?;
    let hook_id = le16(input, 6);
    if hook_id != 0 {
        return Err(vec![CodecError::UnexpectedHookId {
            layout: Layout::SystemTraceHeader,
            expected: 0,
            found: hook_id,
        }]);
    }
    let bitness = if input[2] == header_type::SYSTEM32 {
        Bitness::Bits32
    } else {
        Bitness::Bits64
    };
    let data = &input[0x20..size];
    let len = logfile_layout(bitness).len;
    if data.len() < len {
        let layout = match bitness {
            Bitness::Bits32 => Layout::TraceLogfileHeader32,
            Bitness::Bits64 => Layout::TraceLogfileHeader64,
        };
        return Err(vec![CodecError::Truncated {
            layout,
            needed: len,
            found: data.len(),
        }]);
    }
    Ok(LogfileEvent {
        bitness,
        size,
        data,
    })
}

// ---------------------------------------------------------------------------------------------
// Trace buffers and .etl files (LAYOUTS §Trace buffers and .etl files; EVENT-HEADERS §8)
// ---------------------------------------------------------------------------------------------

/// `TraceBuffer::parse` by the rules: a 0x48-byte header; a buffer with
/// `ETW_BUFFER_FLAG_COMPRESSED` (0x40 in `BufferFlag` @0x34) is not walked in place; the events
/// run from 0x48 to `Offset` (u32 @0x30), which must lie within the buffer ("SavedOffset @0x04
/// and Offset @0x30 both equal 0x48 + the decompressed length", EVENT-HEADERS §8). Returns
/// `Offset`.
pub fn trace_buffer(b: &[u8]) -> Result<usize, ReadErrorKind> {
    if b.len() < BUFFER_HEADER_LEN {
        return Err(ReadErrorKind::Codec(CodecError::Truncated {
            layout: Layout::WmiBufferHeader,
            needed: BUFFER_HEADER_LEN,
            found: b.len(),
        }));
    }
    let flag = le16(b, 0x34);
    if flag & BUFFER_FLAG_COMPRESSED != 0 {
        return Err(ReadErrorKind::CompressedBuffer {
            buffer_flag: BufferFlags(flag),
        });
    }
    let offset = le32(b, 0x30);
    let end = offset as usize;
    if end < BUFFER_HEADER_LEN || end > b.len() {
        return Err(ReadErrorKind::BufferOffsetOutOfRange {
            offset,
            min: BUFFER_HEADER_LEN,
            max: b.len(),
        });
    }
    Ok(end)
}

/// The buffer at `file_offset`, the `index`-th of its file: what the reader's errors name.
pub fn position(index: usize, file_offset: usize) -> BufferPosition {
    BufferPosition { index, file_offset }
}

/// The buffers of an .etl file by the rules: each starts with a buffer header whose `BufferSize`
/// (u32 @0) "is the on-disk stride" (EVENT-HEADERS §8), at least the 0x48-byte header itself and
/// within the file. Returns (file offset, `BufferSize`) of each and the error that ends the walk.
pub fn etl_buffers(file: &[u8]) -> (Vec<(usize, usize)>, Option<ReadError>) {
    let mut buffers = Vec::new();
    let mut at = 0;
    while at < file.len() {
        let available = file.len() - at;
        if available < BUFFER_HEADER_LEN {
            let kind = ReadErrorKind::BufferHeaderTruncated {
                needed: BUFFER_HEADER_LEN,
                available,
            };
            let error = ReadError::new(Some(position(buffers.len(), at)), kind);
            return (buffers, Some(error));
        }
        let buffer_size = le32(file, at);
        let size = buffer_size as usize;
        if size < BUFFER_HEADER_LEN || size > available {
            let kind = ReadErrorKind::BufferSizeOutOfRange {
                buffer_size,
                min: BUFFER_HEADER_LEN,
                max: available,
            };
            let error = ReadError::new(Some(position(buffers.len(), at)), kind);
            return (buffers, Some(error));
        }
        buffers.push((at, size));
        at += size;
    }
    (buffers, None)
}

// ---------------------------------------------------------------------------------------------
// Plain LZ77 ([MS-XCA] 2.4.4)
// ---------------------------------------------------------------------------------------------

/// What a Plain LZ77 decoding gives by the rules.
#[derive(Clone, Debug)]
pub struct Lz77 {
    /// The bytes decoded: all of them on success, those of the items before the one at fault
    /// otherwise.
    pub output: Vec<u8>,
    /// `Ok`, or the errors any one of which may be reported for the item at fault (one item can
    /// break two rules, and the rules do not say which is checked first).
    pub end: Result<(), Vec<Lz77Error>>,
}

/// Decodes `input` into at most `capacity` bytes by [MS-XCA] 2.4.4, one byte at a time.
///
/// The pseudo-code, and where this model needs a rule it does not state:
/// - flags are little-endian 32-bit words ("read 4 bytes at InputPosition"), consumed from bit
///   31 down ("BufferedFlags & (1 << BufferedFlagCount)" after the count drops from 32);
/// - flag 0: "Copy 1 byte from InputPosition to OutputPosition";
/// - flag 1 with the input used up: "Decompression is complete";
/// - a match token: "MatchLength = MatchBytes mod 8", "MatchOffset = (MatchBytes / 8) + 1";
///   length 7 takes a 4-bit length from a new byte's low half, or the high half of the byte the
///   previous such match used ("LastLengthHalfByte"); 15 takes a byte; 255 takes a 16-bit
///   length, and 0 there a 32-bit one, which must be at least 15 + 7 and has 15 + 7 taken off;
///   then 15, 7 and 3 are added back as the pseudo-code does;
/// - the copy goes one byte at a time from `MatchOffset` bytes back, so it may overlap itself;
/// - "If the code reads or writes outside the provided buffers ... MUST return an error": a
///   flag word, token or length cut short, a match reaching before the output's start, or an
///   item with no room in the output;
/// - documented (where the pseudo-code would read past the input): an input that ends where a
///   flag word or a literal would be read is complete too;
/// - documented: nothing of the item at fault is written.
pub fn lz77(input: &[u8], capacity: usize) -> Lz77 {
    let mut output: Vec<u8> = Vec::with_capacity(capacity);
    let fail = |output: Vec<u8>, errors: Vec<Lz77Error>| Lz77 {
        output,
        end: Err(errors),
    };
    let done = |output: Vec<u8>| Lz77 {
        output,
        end: Ok(()),
    };
    let mut position = 0;
    let mut flags: u32 = 0;
    let mut flags_left = 0u32;
    let mut half_byte_at: Option<usize> = None;
    loop {
        if flags_left == 0 {
            let available = input.len() - position;
            if available == 0 {
                return done(output);
            }
            if available < 4 {
                let error = Lz77Error::FlagsTruncated {
                    offset: position,
                    available,
                };
                return fail(output, vec![error]);
            }
            flags = le32(input, position);
            position += 4;
            flags_left = 32;
        }
        flags_left -= 1;
        let is_match = (flags >> flags_left) & 1 == 1;
        if !is_match {
            if position == input.len() {
                return done(output);
            }
            if output.len() == capacity {
                let error = Lz77Error::OutputTooSmall {
                    offset: position,
                    needed: 1,
                    available: 0,
                };
                return fail(output, vec![error]);
            }
            output.push(input[position]);
            position += 1;
            continue;
        }

        if position == input.len() {
            return done(output);
        }
        let token_at = position;
        if input.len() - position < 2 {
            let error = Lz77Error::MatchTruncated {
                offset: position,
                available: input.len() - position,
            };
            return fail(output, vec![error]);
        }
        let token = le16(input, position);
        position += 2;
        let distance = usize::from(token / 8) + 1;
        let mut errors = Vec::new();
        if distance > output.len() {
            errors.push(Lz77Error::DistanceBeforeStart {
                offset: token_at,
                distance,
                written: output.len(),
            });
        }
        let truncated = |at: usize, needed: usize| Lz77Error::LengthTruncated {
            offset: at,
            needed,
            available: input.len() - at,
        };
        let mut length = u64::from(token % 8);
        if length == 7 {
            length = match half_byte_at.take() {
                None => {
                    if position == input.len() {
                        errors.push(truncated(position, 1));
                        return fail(output, errors);
                    }
                    half_byte_at = Some(position);
                    position += 1;
                    u64::from(input[position - 1] % 16)
                }
                Some(at) => u64::from(input[at] / 16),
            };
            if length == 15 {
                if position == input.len() {
                    errors.push(truncated(position, 1));
                    return fail(output, errors);
                }
                length = u64::from(input[position]);
                position += 1;
                if length == 255 {
                    if input.len() - position < 2 {
                        errors.push(truncated(position, 2));
                        return fail(output, errors);
                    }
                    let mut wide_at = position;
                    let mut wide = u32::from(le16(input, position));
                    position += 2;
                    if wide == 0 {
                        if input.len() - position < 4 {
                            errors.push(truncated(position, 4));
                            return fail(output, errors);
                        }
                        wide_at = position;
                        wide = le32(input, position);
                        position += 4;
                    }
                    if wide < 15 + 7 {
                        errors.push(Lz77Error::LengthBelowMinimum {
                            offset: wide_at,
                            found: wide,
                        });
                        return fail(output, errors);
                    }
                    length = u64::from(wide) - (15 + 7);
                }
                length += 15;
            }
            length += 7;
        }
        length += 3;
        let room = capacity - output.len();
        if length > room as u64 {
            errors.push(Lz77Error::OutputTooSmall {
                offset: token_at,
                needed: length,
                available: room,
            });
        }
        if !errors.is_empty() {
            return fail(output, errors);
        }
        // One byte at a time, each from `distance` back, so a match longer than its distance
        // repeats its first `distance` bytes. The output from `from` on is then periodic with
        // period `distance`, so whole multiples of the period can be copied at once: the result
        // is the same bytes, in far fewer steps under the sanitizer.
        let from = output.len() - distance;
        let end = output.len() + length as usize;
        while output.len() < end {
            let period_multiple = output.len() - from;
            let step = (end - output.len()).min(period_multiple);
            output.extend_from_within(from..from + step);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// LZNT1 and LZ77+Huffman ([MS-XCA] 2.5, 2.2.4)
// ---------------------------------------------------------------------------------------------

/// An LZNT1 buffer decoded one byte at a time by the rules of [MS-XCA] 2.5, into at most
/// `capacity` bytes: `Ok` with the output, or `Err` with the output of the items before the one
/// at fault.
/// - 2.5.1.2: a chunk header, little-endian: bit 15 compressed, bits 14-12 the signature 3,
///   bits 11-0 the chunk's size minus 3; documented: a header of 0, or the end of the input
///   where a header is due, ends the buffer;
/// - 2.5.1.3: a flag byte, then up to 8 items, flag bits from bit 0: 0 a literal, 1 a 16-bit
///   word; the chunk ends where its size says;
/// - 2.5.1.4: the word's high D bits are the displacement minus 1, the low 16 - D bits the
///   length minus 3, D the smallest of 4..=12 with 2^D >= the bytes the chunk has decoded;
/// - documented: a chunk decodes to at most 4096 bytes, a match stays inside its chunk, and
///   nothing of the item at fault is written.
pub fn lznt1(input: &[u8], capacity: usize) -> Result<Vec<u8>, Vec<u8>> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < input.len() {
        if at + 2 > input.len() {
            return Err(out);
        }
        let header = le16(input, at);
        if header == 0 {
            break;
        }
        if (header >> 12) & 7 != 3 {
            return Err(out);
        }
        let end = at + 2 + usize::from(header & 0xFFF) + 1;
        if end > input.len() {
            return Err(out);
        }
        let chunk_start = out.len();
        let mut pos = at + 2;
        if header & 0x8000 == 0 {
            if out.len() + (end - pos) > capacity {
                return Err(out);
            }
            out.extend_from_slice(&input[pos..end]);
        } else {
            'chunk: while pos < end {
                let flags = input[pos];
                pos += 1;
                for bit in 0..8 {
                    if pos >= end {
                        break 'chunk;
                    }
                    let u = out.len() - chunk_start;
                    if flags >> bit & 1 == 0 {
                        if u + 1 > 4096 || out.len() + 1 > capacity {
                            return Err(out);
                        }
                        out.push(input[pos]);
                        pos += 1;
                        continue;
                    }
                    if pos + 2 > end {
                        return Err(out);
                    }
                    let word = le16(input, pos);
                    let mut d = 4;
                    while d < 12 && (1usize << d) < u {
                        d += 1;
                    }
                    let displacement = usize::from(word >> (16 - d)) + 1;
                    let length = usize::from(word & ((1u16 << (16 - d)) - 1)) + 3;
                    if displacement > u || u + length > 4096 || out.len() + length > capacity {
                        return Err(out);
                    }
                    for _ in 0..length {
                        out.push(out[out.len() - displacement]);
                    }
                    pos += 2;
                }
            }
        }
        at = end;
    }
    Ok(out)
}

/// An LZ77+Huffman stream decoded by the pseudo-code of [MS-XCA] 2.2.4, into at most
/// `capacity` bytes: `Ok` with the output, or `Err` with the output of the symbols before the
/// one at fault.
/// - "Build the decoding table": for each length 1 to 15, each symbol of that length in order
///   takes the next `2^(15 - length)` entries of a `2^15`-entry table; more entries than the
///   table has, or fewer, is an error;
/// - NextBits is two 16-bit words, the first in the high half, "ExtraBitCount = 16"; each
///   symbol is `DecodingTable[NextBits >> 17]`; consuming bits shifts NextBits and, when
///   ExtraBitCount goes below 0, reads the next word at CurrentPosition into the freed bits;
/// - symbol < 256: a literal; otherwise `MatchLength = symbol mod 16`, `MatchOffsetBitLength =
///   symbol / 16` of `symbol - 256`; a length of 15 reads a byte at CurrentPosition, 255 there a
///   16-bit length (0: a 32-bit one), below 15 an error, the length being that minus 3;
///   `MatchOffset = (1 << bits) + the next bits`;
/// - a block ends once 65536 bytes are written since its start; the next table is at
///   CurrentPosition; fewer than 256 bytes there: the end if none is left or the output is full
///   (2.2.4's "If we're at the end of the output buffer"), otherwise an error;
/// - documented: symbol 256 ends the stream when CurrentPosition has reached the end of the
///   input or the output is full; elsewhere it is a match;
/// - reading past the input, a match before the output's start, or an item with no room in the
///   output is an error, and nothing of the symbol at fault is written.
pub fn xpress_huffman(input: &[u8], capacity: usize) -> Result<Vec<u8>, Vec<u8>> {
    let mut out: Vec<u8> = Vec::new();
    let mut pos = 0usize;
    loop {
        if input.len() - pos < 256 {
            return if pos == input.len() || out.len() == capacity {
                Ok(out)
            } else {
                Err(out)
            };
        }
        let mut lengths = [0u8; 512];
        for i in 0..256 {
            lengths[2 * i] = input[pos + i] & 15;
            lengths[2 * i + 1] = input[pos + i] >> 4;
        }
        let mut table = vec![0u16; 1 << 15];
        let mut entry = 0usize;
        for length in 1..=15u8 {
            for symbol in 0..512u16 {
                if lengths[usize::from(symbol)] == length {
                    let count = 1usize << (15 - length);
                    if entry + count > table.len() {
                        return Err(out);
                    }
                    table[entry..entry + count].fill(symbol);
                    entry += count;
                }
            }
        }
        if entry != table.len() {
            return Err(out);
        }
        pos += 256;
        let read16 = |at: usize| -> Option<u32> {
            (at + 2 <= input.len()).then(|| u32::from(le16(input, at)))
        };
        let Some(first) = read16(pos) else {
            return Err(out);
        };
        let Some(second) = read16(pos + 2) else {
            return Err(out);
        };
        let mut next_bits: u32 = first << 16 | second;
        pos += 4;
        let mut extra: i32 = 16;
        let block_end = out.len() + 65536;
        // Consumes `n` bits; `None` when the word to load is missing.
        let consume = |n: u32, next_bits: &mut u32, extra: &mut i32, pos: &mut usize| {
            *next_bits = if n == 32 { 0 } else { *next_bits << n };
            *extra -= n as i32;
            if *extra < 0 {
                let word = read16(*pos)?;
                *next_bits |= word << (-*extra);
                *extra += 16;
                *pos += 2;
            }
            Some(())
        };
        while out.len() < block_end {
            let symbol = table[(next_bits >> 17) as usize];
            let length = u32::from(lengths[usize::from(symbol)]);
            if consume(length, &mut next_bits, &mut extra, &mut pos).is_none() {
                return Err(out);
            }
            if symbol < 256 {
                if out.len() >= capacity {
                    return Err(out);
                }
                out.push(symbol as u8);
                continue;
            }
            if symbol == 256 && (pos >= input.len() || out.len() == capacity) {
                return Ok(out);
            }
            let symbol = symbol - 256;
            let mut match_length = u64::from(symbol % 16);
            let offset_bits = u32::from(symbol / 16);
            if match_length == 15 {
                let Some(&byte) = input.get(pos) else {
                    return Err(out);
                };
                pos += 1;
                match_length = u64::from(byte);
                if match_length == 255 {
                    let Some(wide) = read16(pos) else {
                        return Err(out);
                    };
                    pos += 2;
                    match_length = u64::from(wide);
                    if match_length == 0 {
                        if pos + 4 > input.len() {
                            return Err(out);
                        }
                        match_length = u64::from(le32(input, pos));
                        pos += 4;
                    }
                    if match_length < 15 {
                        return Err(out);
                    }
                    match_length -= 15;
                }
                match_length += 15;
            }
            match_length += 3;
            let offset = if offset_bits == 0 {
                1
            } else {
                (1usize << offset_bits) + (next_bits >> (32 - offset_bits)) as usize
            };
            if consume(offset_bits, &mut next_bits, &mut extra, &mut pos).is_none() {
                return Err(out);
            }
            if offset > out.len() || match_length > (capacity - out.len()) as u64 {
                return Err(out);
            }
            for _ in 0..match_length {
                out.push(out[out.len() - offset]);
            }
        }
    }
}
