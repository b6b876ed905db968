//! A `no_std`, allocation-free, panic-free codec for the classic (MOF-based) Event Tracing for
//! Windows headers.
//!
//! Every struct is decoded and encoded bit-exactly, little-endian whatever the host:
//!
//! | type | SDK struct | bytes |
//! |---|---|---|
//! | [`EventTraceHeader`] | `EVENT_TRACE_HEADER` (`FULL_HEADER32`/`FULL_HEADER64` events) | 0x30 |
//! | [`EventInstanceHeader`] | `EVENT_INSTANCE_HEADER` (input of `TraceEventInstance`) | 0x38 |
//! | [`EventInstanceGuidHeader`] | `EVENT_INSTANCE_GUID_HEADER` (`INSTANCE32`/`INSTANCE64` events) | 0x48 |
//! | [`EventTrace`] ([`EventTrace32`], [`EventTrace64`]) | `EVENT_TRACE` | 0x58 |
//! | [`EventInstanceInfo`] ([`EventInstanceInfo32`], [`EventInstanceInfo64`]) | `EVENT_INSTANCE_INFO` | 8 / 16 |
//! | [`MofField`] | `MOF_FIELD` | 16 |
//! | [`WmiBufferHeader`] | `WMI_BUFFER_HEADER` (start of every trace buffer) | 0x48 |
//! | [`SystemTraceHeader`] | `SYSTEM_TRACE_HEADER` (`SYSTEM32`/`SYSTEM64` events) | 0x20 |
//! | [`TraceLogfileHeader`] ([`TraceLogfileHeader32`], [`TraceLogfileHeader64`]) | `TRACE_LOGFILE_HEADER` (first event of an .etl file) | 0x110 / 0x118 |
//!
//! Each fixed-layout type has the same entry points: `LEN`, `from_bytes(&[u8; LEN])` (any bytes,
//! never fails), `to_bytes() -> [u8; LEN]`, `parse(&[u8]) -> Result<(Self, &[u8]), Error>` (the
//! value and the bytes after it) and `emit(&mut [u8]) -> Result<&mut [u8], Error>` (the unused
//! rest of the output). The bitness-dependent structs take a [`Bitness`] value; the host's own
//! pointer width never enters.
//!
//! The [`plain_lz77`] module decompresses the MS-XCA "Plain LZ77" format that Windows uses for
//! the events of compressed trace buffers ([`WmiBufferHeader::is_compressed`]), into a
//! caller-owned buffer.
//!
//! # Guarantees
//! - **Lossless:** `to_bytes(from_bytes(b)) == b` for every byte array `b`, padding included, and
//!   `from_bytes(to_bytes(v)) == v` for every value. Codes the SDK does not name ([`HeaderType`],
//!   [`EventType`], [`Level`], [`MarkerFlags`], [`WnodeFlags`]) are open newtypes that keep any
//!   value, and every C union ([`GuidOrPtr`], [`TimesOrFlags`], [`BufferContext`],
//!   [`LogInstance`]) is kept as its raw bytes with an accessor and a setter per view.
//! - **No panics:** no input makes any function of the crate panic; malformed input gives an
//!   [`Error`] that says what was expected and what was found. The crate has no `unsafe` code.
//! - **No allocation:** the crate is `#![no_std]` and does not use `alloc`.
//!
//! # Example
//! ```
//! use etw_classic::{Class, EventTraceHeader, EventType, Guid, GuidOrPtr, HeaderType, Level,
//!                   MarkerFlags, TimesOrFlags};
//!
//! let header = EventTraceHeader {
//!     size: 0x30 + 4,
//!     header_type: HeaderType::FULL_HEADER64,
//!     marker_flags: MarkerFlags::EVENT_TRACE_HEADER,
//!     class: Class::new(EventType::START, Level::INFORMATION, 2),
//!     thread_id: 0x1234,
//!     process_id: 0x42,
//!     timestamp: 133_000_000_000_000_000,
//!     guid: GuidOrPtr::from_guid("3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c".parse()?),
//!     times: TimesOrFlags::from_times(3, 5),
//! };
//!
//! // Encode into a caller-owned buffer: header, then the event data.
//! let mut buffer = [0u8; 64];
//! let rest = header.emit(&mut buffer)?;
//! rest[..4].copy_from_slice(&[1, 2, 3, 4]);
//!
//! // Decode it back as a trace buffer holds it.
//! let (decoded, data, _after) = EventTraceHeader::parse_event(&buffer)?;
//! assert_eq!(decoded, header);
//! assert_eq!(data, [1, 2, 3, 4]);
//! assert_eq!(decoded.class.roll_up(), 0x0002_0401);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs, missing_debug_implementations)]
#![cfg_attr(
    not(test),
    deny(
        clippy::indexing_slicing,
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::arithmetic_side_effects,
        clippy::as_conversions,
    )
)]

#[macro_use]
pub mod wire;
pub mod read;
pub mod write;

pub use read::plain_lz77;
pub use read::{
    BufferPosition, ClassicEvents, DeliveredEvent, EtlBuffer, EtlBuffers, EtlFile, Event,
    EventKind, Events, InstanceKey, InstanceNode, InstanceTree, InstanceTreeFull, Lz77Error,
    ReadError, ReadErrorKind, TraceBuffer, MAX_BUFFER_SIZE,
};
pub use wire::{
    cpu_time, cpu_time_nanos, filetime_to_unix, unix_to_filetime, Bitness, BufferContext,
    BufferFlags, BufferType, Class, ClockType, CodecError, EventInstanceGuidHeader,
    EventInstanceHeader, EventInstanceInfo, EventInstanceInfo32, EventInstanceInfo64, EventTrace,
    EventTrace32, EventTrace64, EventTraceHeader, EventType, Guid, GuidOrPtr, GuidParseError,
    GuidTextExpectation, HeaderFamily, HeaderType, Layout, Level, LogInstance, LogfileNames,
    MarkerFlags, MofField, SystemTime, SystemTraceHeader, TimeZoneInformation, TimesOrFlags,
    TraceLogfileHeader, TraceLogfileHeader32, TraceLogfileHeader64, UnixTime, Utf16Str, Utf16Units,
    VersionDetail, WmiBufferHeader, WnodeFlags, DEFAULT_TRACE_ALIGNMENT, FILETIME_UNIX_EPOCH,
    MAX_MOF_FIELDS,
};
pub use write::{
    EtlHeader, EventData, InstanceRole, Provider, Session, SessionStats, SteppingContext,
    TraceContext, TraceError, Traced, Win32Error, EVENT_TRACE_FILE_MODE_SEQUENTIAL,
};

/// The README's examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
