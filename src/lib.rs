//! A `no_std`, allocation-free, panic-free codec for Event Tracing for Windows traces: the
//! classic (MOF-based) event headers bit-exactly, the trace buffers a session writes, and .etl
//! files.
//!
//! # The data flow
//! ```text
//!  write (provider side)            wire (bytes <-> structs)           read (consumer side)
//!  Provider: rules of TraceEvent    EventTraceHeader 0x30              EtlFile: the file's buffers
//!    and TraceEventInstance         EventInstanceGuidHeader 0x48         | decompress (Plain LZ77)
//!    |                              SystemTraceHeader 0x20               v
//!    v                              WmiBufferHeader 0x48               TraceBuffer, Events: walk
//!  Session: a fixed pool of    -->  TraceLogfileHeader 32/64      -->    | one buffer's events
//!    trace buffers, sealed          EventTrace, EventInstanceInfo        v
//!    |                              codes, Guid, Class, time           EVENT_TRACE delivery,
//!    v                                                                 InstanceTree
//!  EtlHeader: the .etl file's first buffer ----------------------------------^
//! ```
//! Every arrow is a function over byte slices the caller owns: nothing allocates, and no input
//! makes anything panic.
//!
//! # The modules
//! | module | holds | depends on |
//! |---|---|---|
//! | [`wire`] | one field mechanism and every fixed layout: the event headers, the records (`EVENT_TRACE`, `EVENT_INSTANCE_INFO`, `MOF_FIELD`), the file structures (`WMI_BUFFER_HEADER`, `TRACE_LOGFILE_HEADER`), codes, GUID, the class roll-up, time, UTF-16; [`CodecError`] | nothing |
//! | [`write`](mod@write) | [`Provider`], [`Session`] (trace buffers), [`EtlHeader`] (.etl writer); [`TraceError`] with its Win32 code; with the `std` feature, `EtlWriter` (streaming .etl writer) | `wire` |
//! | [`read`] | [`EtlFile`] (.etl reader), [`plain_lz77`], [`lznt1`], [`xpress_huffman`], [`Events`] (the walk over a buffer), [`TraceBuffer`] (`EVENT_TRACE` delivery), [`InstanceTree`]; [`ReadError`] with the buffer and file offset; with the `std` feature, `EtlReader` (streaming .etl reader) | `wire` |
//!
//! `write` and `read` never use each other. The names most programs need are re-exported here;
//! the rest are in their layer (`etw_classic::wire::TraceLogfileHeader64`,
//! `etw_classic::read::EtlBuffer`, ...).
//!
//! # The structs
//! Every struct is decoded and encoded bit-exactly, little-endian whatever the host, in the
//! layout the data says (a [`Bitness`] for the ones with pointers), never the host's:
//!
//! | type | SDK struct | bytes |
//! |---|---|---|
//! | [`EventTraceHeader`] | `EVENT_TRACE_HEADER` (`FULL_HEADER32`/`FULL_HEADER64` events) | 0x30 |
//! | [`EventInstanceHeader`] | `EVENT_INSTANCE_HEADER` (input of `TraceEventInstance`) | 0x38 |
//! | [`EventInstanceGuidHeader`] | `EVENT_INSTANCE_GUID_HEADER` (`INSTANCE32`/`INSTANCE64` events) | 0x48 |
//! | [`EventTrace`] ([`wire::EventTrace32`], [`wire::EventTrace64`]) | `EVENT_TRACE` | 0x58 |
//! | [`EventInstanceInfo`] ([`wire::EventInstanceInfo32`], [`wire::EventInstanceInfo64`]) | `EVENT_INSTANCE_INFO` | 8 / 16 |
//! | [`MofField`] | `MOF_FIELD` | 16 |
//! | [`WmiBufferHeader`] | `WMI_BUFFER_HEADER` (start of every trace buffer) | 0x48 |
//! | [`SystemTraceHeader`] | `SYSTEM_TRACE_HEADER` (`SYSTEM32`/`SYSTEM64` events) | 0x20 |
//! | [`EventHeader`] | `EVENT_HEADER` (`EVENT_HEADER32`/`EVENT_HEADER64` events), then its extended data items ([`wire::ExtendedItems`]) | 0x50 |
//! | [`CompactTraceHeader`] | the compact `SYSTEM_TRACE_HEADER` (`COMPACT32`/`COMPACT64` events) | 0x18 |
//! | [`PerfInfoTraceHeader`] | `PERFINFO_TRACE_HEADER` (`PERFINFO32`/`PERFINFO64` events) | 0x10 |
//! | [`MessageTraceHeader`] | `MESSAGE_TRACE_HEADER` (WPP `TraceMessage` events) | 8 |
//! | [`TraceLogfileHeader`] ([`wire::TraceLogfileHeader32`], [`wire::TraceLogfileHeader64`]) | `TRACE_LOGFILE_HEADER` (first event of an .etl file) | 0x110 / 0x118 |
//!
//! Each fixed-layout type has the same entry points: `LEN`, `from_bytes(&[u8; LEN])` (any bytes,
//! never fails), `to_bytes() -> [u8; LEN]`, `parse(&[u8]) -> Result<(Self, &[u8]), CodecError>`
//! (the value and the bytes after it) and `emit(&mut [u8]) -> Result<&mut [u8], CodecError>`
//! (the unused rest of the output). Each struct's rustdoc has its offset table with the SDK
//! member names.
//!
//! # Guarantees
//! - **Lossless:** `to_bytes(from_bytes(b)) == b` for every byte array `b`, padding included, and
//!   `from_bytes(to_bytes(v)) == v` for every value. Codes the SDK does not name ([`HeaderType`],
//!   [`EventType`], [`Level`], [`MarkerFlags`], [`WnodeFlags`]) are open newtypes that keep any
//!   value, and every C union ([`GuidOrPtr`], [`TimesOrFlags`], [`BufferContext`],
//!   [`wire::LogInstance`]) is kept as its raw bytes with an accessor and a setter per view.
//! - **No panics:** no input makes any function of the crate panic; malformed input gives an
//!   error that says what was expected, what was found and where. The crate has no `unsafe`
//!   code.
//! - **No allocation:** the crate is `#![no_std]` and does not use `alloc`.
//!
//! # Features
//! - `defmt`: `defmt::Format` for every public type.
//! - `critical-section`: `write::SharedSession`, one [`Session`] shared by thread mode and
//!   interrupt handlers, each call inside a critical section of the `critical-section` crate.
//! - `std` (off by default): `read::EtlReader`, which reads an .etl file from any
//!   `std::io::Read` one buffer at a time (the buffer and one decompression scratch in memory,
//!   never the whole file), on top of the same `no_std` functions [`EtlFile`] uses; and
//!   `write::EtlWriter`, which writes trace buffers to any `std::io::Write + Seek` and
//!   back-patches the logfile header at the end.
//! - `serde`: `serde::Serialize` and `serde::Deserialize` for the owned wire types (every fixed
//!   layout and the enums choosing one by bitness, [`Guid`], [`Class`], the unions, the codes,
//!   [`Bitness`], the time values), with the Rust member names as keys; a union is its raw
//!   bytes and a code its number. `no_std`. The views that borrow bytes ([`wire::LogfileNames`],
//!   [`wire::ExtendedItem`], [`wire::ExtraWords`], ...) and the errors have none.
//! - `arbitrary`: `arbitrary::Arbitrary` for the same types, to build values from fuzzer input.
//!   The `arbitrary` crate needs the standard library, so this feature links it (the crate
//!   stays `#![no_std]` otherwise) and is for hosts only.
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
//!     guid: GuidOrPtr::from_guid("3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c".parse::<Guid>()?),
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
#![cfg_attr(docsrs, feature(doc_cfg))]
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

// `std` for the streaming reader and writer; `arbitrary` because the `arbitrary` crate and the
// code its derive writes use the standard library (that crate is not `no_std`).
#[cfg(any(feature = "std", feature = "arbitrary"))]
extern crate std;

mod invariant;
#[macro_use]
pub mod wire;
pub mod payload;
pub mod read;
pub mod write;
// Above `write` and `payload`: it uses both.
pub mod describe;

pub use read::{lznt1, plain_lz77, xpress_huffman};
pub use read::{
    EtlFile, Event, EventKind, Events, InstanceTree, ReadError, ReadErrorKind, TraceBuffer,
};
#[cfg(feature = "std")]
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
pub use read::{EtlReader, EtlReaderError, TIME_ORDER_MEMORY};
pub use wire::{
    Bitness, BufferContext, Class, ClockType, CodecError, CompactTraceHeader, EventHeader,
    EventInstanceGuidHeader, EventInstanceHeader, EventInstanceInfo, EventTrace, EventTraceHeader,
    EventType, Guid, GuidOrPtr, GuidParseError, HeaderType, Layout, Level, MarkerFlags,
    MessageTraceHeader, MofField, PerfInfoTraceHeader, SystemTraceHeader, TimesOrFlags,
    TraceLogfileHeader, WmiBufferHeader, WnodeFlags,
};
pub use write::{
    EtlHeader, EventData, Provider, Session, SteppingContext, TraceContext, TraceError, Traced,
};
#[cfg(feature = "std")]
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
pub use write::{EtlWriter, EtlWriterError};

/// The README's examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
