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
//! # Ok::<(), etw_classic::Error>(())
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

mod buffer_context;
mod class;
#[macro_use]
mod codes;
mod error;
mod etl;
mod etl_writer;
mod event_instance_guid_header;
mod event_instance_header;
mod event_instance_info;
mod event_trace;
mod event_trace_header;
mod events;
mod guid;
mod instance_tree;
mod layout;
mod mof_field;
pub mod plain_lz77;
mod provider;
mod session;
mod system_trace_header;
mod time;
mod time_zone_information;
mod trace_buffer;
mod trace_error;
mod trace_logfile_header;
mod unions;
mod utf16;
mod wire;
mod wmi_buffer_header;

pub use buffer_context::BufferContext;
pub use class::Class;
pub use codes::{
    EventType, HeaderFamily, HeaderType, Level, MarkerFlags, WnodeFlags, MAX_MOF_FIELDS,
};
pub use error::{Error, GuidTextExpectation};
pub use etl::{EtlBuffer, EtlBuffers, EtlFile, MAX_BUFFER_SIZE};
pub use etl_writer::{EtlHeader, EVENT_TRACE_FILE_MODE_SEQUENTIAL};
pub use event_instance_guid_header::EventInstanceGuidHeader;
pub use event_instance_header::EventInstanceHeader;
pub use event_instance_info::{EventInstanceInfo, EventInstanceInfo32, EventInstanceInfo64};
pub use event_trace::{EventTrace, EventTrace32, EventTrace64};
pub use event_trace_header::EventTraceHeader;
pub use events::{Event, EventKind, Events, DEFAULT_TRACE_ALIGNMENT};
pub use guid::Guid;
pub use instance_tree::{InstanceKey, InstanceNode, InstanceTree};
pub use layout::{Bitness, Layout};
pub use mof_field::MofField;
pub use provider::{EventData, Provider, SteppingContext, TraceContext, Traced};
pub use session::{Session, SessionStats};
pub use system_trace_header::SystemTraceHeader;
pub use time::{
    cpu_time, cpu_time_nanos, filetime_to_unix, unix_to_filetime, UnixTime, FILETIME_UNIX_EPOCH,
};
pub use time_zone_information::{SystemTime, TimeZoneInformation};
pub use trace_buffer::{ClassicEvents, DeliveredEvent, TraceBuffer};
pub use trace_error::{InstanceRole, TraceError, Win32Error};
pub use trace_logfile_header::{
    ClockType, LogInstance, LogfileNames, TraceLogfileHeader, TraceLogfileHeader32,
    TraceLogfileHeader64, VersionDetail,
};
pub use unions::{GuidOrPtr, TimesOrFlags};
pub use utf16::{Utf16Str, Utf16Units};
pub use wmi_buffer_header::{BufferFlags, BufferType, WmiBufferHeader};

/// The README's examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
